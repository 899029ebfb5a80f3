//! The pixel stage: quads from the rasterizer gathered into batches of `LANES` pixels, their
//! inputs interpolated, the pixel shader run on dxso-vm's engine (or, without one, the
//! fixed-function colour), and each covered pixel handed to the output merger in order.
//!
//! - Flat shading (`SHADEMODE` FLAT) takes colour inputs from the provoking vertex; the fog
//!   factor is still interpolated (D3DSHADEMODE).
//! - Point sprites (`POINTSPRITEENABLE`): every texture-coordinate input reads (u, v, 0, 1)
//!   across the point, (0, 0) at its top-left corner and (1, 1) at its bottom-right.
//! - Without a pixel shader the colour is the diffuse colour, plus the specular colour's RGB
//!   where `SPECULARENABLE` (alpha from the diffuse).
//! - `vPos` is the pixel's integer (x, y); `vFace` is ±1 (see `pipeline`).
//! - Early depth rejection: where the depth test cannot change its verdict after shading
//!   (ZENABLE with a monotonic ZFUNC: NEVER, LESS, LESSEQUAL, GREATER, GREATEREQUAL; no
//!   stencil, no alpha test; a shader that writes no depth and has no texkill), a covered
//!   pixel whose depth fails against the depth buffer before shading is not shaded: later
//!   writes only move the buffer in the function's direction, so it would fail the output
//!   merger's test too (which still runs, so images are the same). A quad with no pixel left
//!   is dropped; otherwise the rejected pixels run as helpers, for the derivatives. The pixel
//!   debugger (`trace_pixel`) draws without it: its report shows the merger's test.

use crate::DrawError;
use crate::PixelReport;
use crate::desc::Draw;
use crate::merge::{Depth, Fragment, Merger, Plain, compare};
use crate::pipeline::{PrimVerts, Probe, report};
use crate::raster::Quad;
use crate::states::rs;
use crate::surfaces::Band;
use crate::vertex::Prepared;
use dxso::Opcode;
use dxso::ir::Usage;
use dxso_vm::{LANES, PixelBatch, PixelRunner};

const QUADS: usize = LANES / 4;

pub(crate) struct Shading<'a> {
    draw: &'a Draw,
    prepared: &'a Prepared,
    merger: Merger<'a>,
    runner: Option<PixelRunner<'a>>,
    batch: PixelBatch,
    quads: usize,
    xy: [(u32, u32); LANES],
    /// Where the early depth test ran: the live lanes' depths as the surface stores them.
    stored_z: [f32; LANES],
    fog: [f32; LANES],
    flat: bool,
    written: u8,
    probe: Option<Probe<'a>>,
    /// Per slot, what the current primitive feeds it (see [`Shading::begin`]).
    inputs: Vec<Input>,
    /// The current primitive's vertices' fog factors.
    vertex_fog: [f32; 3],
    /// ZFUNC where the depth test runs before shading too (see the module docs).
    early_z: Option<u32>,
    counts: Counts,
}

/// What the pixel stage did, counted (for tests and tuning).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Counts {
    /// Quads shaded.
    pub quads: u64,
    /// Covered pixels shaded (not counting helpers).
    pub pixels: u64,
    /// Quads the early depth test dropped whole.
    pub rejected_quads: u64,
}

impl std::ops::Add for Counts {
    type Output = Counts;
    fn add(self, o: Counts) -> Counts {
        Counts {
            quads: self.quads + o.quads,
            pixels: self.pixels + o.pixels,
            rejected_quads: self.rejected_quads + o.rejected_quads,
        }
    }
}

/// The depth function when a failed depth test before shading stays failed (see the module
/// docs), else `None`.
fn early_depth(draw: &Draw) -> Option<u32> {
    let s = &draw.states;
    let func = s.get(rs::ZFUNC);
    let shader = draw.pixel.as_ref().is_none_or(|ps| {
        !ps.writes_depth()
            && !ps
                .shader()
                .instructions
                .iter()
                .any(|i| i.opcode == Opcode::TexKill)
    });
    let monotonic = matches!(func, 1 | 2 | 4 | 5 | 7);
    let states =
        s.get(rs::ZENABLE) != 0 && !s.flag(rs::STENCILENABLE) && !s.flag(rs::ALPHATESTENABLE);
    (shader && monotonic && states).then_some(func)
}

/// Where one input slot's values come from over a primitive.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Input {
    /// Weighted over the three vertices' rows (perspective-correct weights from the quad).
    Interpolated([[f32; 4]; 3]),
    /// The provoking vertex's colour (flat shading).
    Flat([f32; 4]),
    /// Point-sprite coordinates: the sprite's top-left corner and size in pixels.
    Sprite { left: f32, top: f32, size: f32 },
}

fn empty_batch(inputs: usize) -> PixelBatch {
    PixelBatch {
        inputs: vec![[[0.0; LANES]; 4]; inputs],
        pos: [[0.0; LANES]; 2],
        face: [1.0; LANES],
        live: [false; LANES],
        color: [[[0.0; LANES]; 4]; 4],
        depth: [0.0; LANES],
        discarded: [false; LANES],
    }
}

fn copy(b: &PixelBatch) -> PixelBatch {
    PixelBatch {
        inputs: b.inputs.clone(),
        pos: b.pos,
        face: b.face,
        live: b.live,
        color: b.color,
        depth: b.depth,
        discarded: b.discarded,
    }
}

impl<'a> Shading<'a> {
    /// The pixel stage of one band; `early_z` allows the early depth test (never with a
    /// probe, whose report shows the output merger's test).
    pub fn new(
        draw: &'a Draw,
        prepared: &'a Prepared,
        merger: Merger<'a>,
        probe: Option<Probe<'a>>,
        early_z: bool,
    ) -> Result<Shading<'a>, DrawError> {
        let (runner, written) = match &draw.pixel {
            Some(ps) => (Some(ps.runner()), ps.color_outputs()),
            None => (None, 1),
        };
        Ok(Shading {
            draw,
            prepared,
            merger,
            runner,
            batch: empty_batch(prepared.slots.len()),
            quads: 0,
            xy: [(0, 0); LANES],
            stored_z: [0.0; LANES],
            fog: [1.0; LANES],
            flat: draw.states.get(rs::SHADEMODE) == 1,
            written,
            early_z: early_depth(draw).filter(|_| early_z && probe.is_none()),
            inputs: Vec::with_capacity(prepared.slots.len()),
            vertex_fog: [1.0; 3],
            counts: Counts::default(),
            probe,
        })
    }

    /// Set up what is constant over one primitive's quads: each slot's three vertex rows (or
    /// the provoking vertex's colour, or the point sprite's corner), and the fog factors.
    pub fn begin(&mut self, pv: &PrimVerts) {
        let prepared = self.prepared;
        self.inputs.clear();
        for (s, slot) in prepared.slots.iter().enumerate() {
            let input =
                if let Some((cx, cy, size)) = pv.sprite.filter(|_| slot.usage == Usage::TexCoord) {
                    Input::Sprite {
                        left: cx - size / 2.0,
                        top: cy - size / 2.0,
                        size,
                    }
                } else if slot.color && self.flat {
                    Input::Flat(prepared.attr(pv.provoking, s))
                } else {
                    Input::Interpolated(pv.v.map(|v| prepared.attr(v, s)))
                };
            self.inputs.push(input);
        }
        self.vertex_fog = pv.v.map(|v| prepared.vertices[v].fog);
    }

    /// Add one quad of the primitive [`Shading::begin`] set up; a full batch is shaded and
    /// merged.
    pub fn push(&mut self, sf: &mut Band, q: &Quad, face: f32, bias: f32) -> Result<(), DrawError> {
        let (live, stored) = self.early_depth(sf, q, bias);
        if live == [false; 4] {
            self.counts.rejected_quads += 1;
            return Ok(());
        }
        self.counts.quads += 1;
        self.counts.pixels += live.iter().filter(|&&l| l).count() as u64;
        let base = self.quads * 4;
        self.stored_z[base..base + 4].copy_from_slice(&stored);
        let w = &q.weights;
        for (s, input) in self.inputs.iter().enumerate() {
            let rows = &mut self.batch.inputs[s];
            match *input {
                Input::Interpolated(r) => {
                    for c in 0..4 {
                        for k in 0..4 {
                            rows[c][base + k] =
                                w[k][0] * r[0][c] + w[k][1] * r[1][c] + w[k][2] * r[2][c];
                        }
                    }
                }
                Input::Flat(v) => {
                    for c in 0..4 {
                        rows[c][base..base + 4].fill(v[c]);
                    }
                }
                Input::Sprite { left, top, size } => {
                    for k in 0..4 {
                        let (x, y) = (q.x + (k & 1) as i64, q.y + (k >> 1) as i64);
                        let value = [(x as f32 - left) / size, (y as f32 - top) / size, 0.0, 1.0];
                        for c in 0..4 {
                            rows[c][base + k] = value[c];
                        }
                    }
                }
            }
        }
        let f = self.vertex_fog;
        for k in 0..4 {
            let lane = base + k;
            let (x, y) = (q.x + (k & 1) as i64, q.y + (k >> 1) as i64);
            self.batch.pos[0][lane] = x as f32;
            self.batch.pos[1][lane] = y as f32;
            self.batch.face[lane] = face;
            self.batch.live[lane] = live[k];
            self.batch.depth[lane] = q.z[k] + bias;
            self.batch.discarded[lane] = false;
            self.fog[lane] = w[k][0] * f[0] + w[k][1] * f[1] + w[k][2] * f[2];
            self.xy[lane] = (x.max(0) as u32, y.max(0) as u32);
        }
        self.quads += 1;
        if self.quads == QUADS {
            self.flush(sf)?;
        }
        Ok(())
    }

    /// The quad's pixels still live after the early depth test (where it runs).
    /// Also the depths as the surface stores them, for the merger (the shader leaves the
    /// depth alone where the early test runs).
    fn early_depth(&self, sf: &Band, q: &Quad, bias: f32) -> ([bool; 4], [f32; 4]) {
        let mut live = q.covered;
        let mut stored = [0.0; 4];
        let (Some(func), Some((format, z, _))) = (self.early_z, sf.depth_stencil.as_ref()) else {
            return (live, stored);
        };
        for k in 0..4 {
            if live[k] {
                let (x, y) = (q.x + (k & 1) as i64, q.y + (k >> 1) as i64);
                let i = sf.index(x as u32, y as u32);
                stored[k] = format.store(q.z[k] + bias);
                live[k] = compare(func, stored[k], z[i]);
            }
        }
        (live, stored)
    }

    /// Shade and merge what is left, and say what the band's pixel stage did.
    pub fn finish(mut self, sf: &mut Band) -> Result<Counts, DrawError> {
        self.flush(sf)?;
        Ok(self.counts)
    }

    /// Shade and merge the gathered quads.
    fn flush(&mut self, sf: &mut Band) -> Result<(), DrawError> {
        let lanes = self.quads * 4;
        if lanes == 0 {
            return Ok(());
        }
        for l in lanes..LANES {
            self.batch.live[l] = false;
        }
        let probed = self.probed_lane(lanes);
        let traced = match (probed, &mut self.runner) {
            (Some(l), Some(r)) => Some(r.trace(&mut copy(&self.batch), l)?),
            _ => None,
        };
        match &mut self.runner {
            Some(r) => r.run(&mut self.batch)?,
            None => self.fixed_colour(lanes),
        }
        self.quads = 0;
        if let Some(p) = self.merger.plain(sf).filter(|_| self.probe.is_none()) {
            self.merge_plain(&p, sf, lanes);
            return Ok(());
        }
        for l in 0..lanes {
            if !self.batch.live[l] || self.batch.discarded[l] {
                if probed == Some(l) {
                    self.record(l, traced.clone(), None);
                }
                continue;
            }
            let f = Fragment {
                x: self.xy[l].0,
                y: self.xy[l].1,
                colors: std::array::from_fn(|t| std::array::from_fn(|c| self.batch.color[t][c][l])),
                written: self.written,
                z: self.batch.depth[l],
                front: self.batch.face[l] > 0.0,
                fog: self.fog[l],
            };
            if probed == Some(l) {
                let mut m = crate::merge::MergeReport::default();
                self.merger.merge(sf, f, Some(&mut m));
                self.record(l, traced.clone(), Some(m));
            } else {
                self.merger.merge(sf, f, None);
            }
        }
        Ok(())
    }

    /// The output merger's common case over the batch's first `lanes` lanes.
    fn merge_plain(&self, p: &Plain, sf: &mut Band, lanes: usize) {
        let b = &self.batch;
        let written = self.written & 1 != 0;
        for l in 0..lanes {
            if b.live[l] && !b.discarded[l] {
                let c = &b.color[0];
                let color = written.then_some([c[0][l], c[1][l], c[2][l], c[3][l]]);
                let z = match self.early_z {
                    Some(_) => Depth::Stored(self.stored_z[l]),
                    None => Depth::Raw(b.depth[l]),
                };
                Merger::merge_plain(p, sf, self.xy[l], z, color);
            }
        }
    }

    fn probed_lane(&self, lanes: usize) -> Option<usize> {
        let p = self.probe.as_ref()?;
        (0..lanes).find(|&l| self.batch.live[l] && self.xy[l] == (p.x, p.y))
    }

    fn record(
        &mut self,
        lane: usize,
        shader: Option<dxso_vm::Trace>,
        merge: Option<crate::merge::MergeReport>,
    ) {
        let inputs = self
            .prepared
            .slots
            .iter()
            .enumerate()
            .map(|(s, slot)| {
                let name = format!(
                    "{}{}",
                    slot.usage.name().to_ascii_uppercase(),
                    slot.usage_index
                );
                (name, std::array::from_fn(|c| self.batch.inputs[s][c][lane]))
            })
            .collect();
        let Some(p) = self.probe.as_mut() else { return };
        let mut r: PixelReport = report(p.draw, p.x, p.y);
        r.inputs = inputs;
        r.shader = shader;
        r.discarded = merge.is_none();
        r.merge = merge.unwrap_or_default();
        p.reports.push(r);
    }

    fn fixed_colour(&mut self, lanes: usize) {
        let specular = self.draw.states.flag(rs::SPECULARENABLE);
        for l in 0..lanes {
            for c in 0..4 {
                let mut v = self.batch.inputs[0][c][l];
                if specular && c < 3 {
                    v += self.batch.inputs[1][c][l];
                }
                self.batch.color[0][c][l] = v;
            }
        }
    }
}
