//! One draw through the stages: the vertex stage ([`crate::vertex`]), primitive assembly,
//! clipping ([`crate::clip`]), the viewport transform, culling, rasterization
//! ([`crate::raster`]), the pixel stage ([`crate::shade`]) and the output merger
//! ([`crate::merge`]). Primitives are drawn in order, so blending sees them as D3D9 does.
//!
//! - Primitive assembly: lists, strips and fans of `vertex_count` vertices, instance by
//!   instance; the provoking vertex (flat shading) is vertex 3i of a list, i of a strip, i+1
//!   of a fan (D3DSHADEMODE).
//! - The viewport maps clip x = -1 to the viewport's left edge and y = 1 to its top, with
//!   pixel centres at integer coordinates: `x = X + (1 + x/w)·W/2`, `y = Y + (1 − y/w)·H/2`,
//!   `z = MinZ + z/w·(MaxZ − MinZ)`.
//! - Culling (`CULLMODE`): clockwise on screen is the front face (D3D9's default winding);
//!   CCW culls counter-clockwise triangles, CW clockwise ones. `vFace` is +1 on front faces,
//!   -1 on back faces, whatever the cull mode (dxso's choice; D3D9 defines only the sign),
//!   and +1 for points and lines.
//! - Pre-transformed (`POSITIONT`) vertices are screen space: no clipping (the viewport
//!   rectangle still bounds them), w = 1/rhw for perspective interpolation.
//! - Depth bias: `z + DEPTHBIAS + SLOPESCALEDEPTHBIAS · max(|∂z/∂x|, |∂z/∂y|)` on triangles.

use crate::clip::{self, ClipVertex, Plane};
use crate::desc::{Draw, Primitive};
use crate::merge::{MergeReport, Merger};
use crate::raster::{self, Quad, Rect, Screen};
use crate::shade::{Counts, Shading};
use crate::states::rs;
use crate::surfaces::{Band, Surfaces};
use crate::vertex::{self, Prepared};
use crate::{DrawError, PixelReport};
use rayon::prelude::*;

/// A primitive's vertex indices (into the draw's vertices) and its provoking vertex.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Prim {
    v: [usize; 3],
    n: usize,
    provoking: usize,
}

/// The primitives of `count` vertices starting at `base`.
fn assemble(p: Primitive, base: usize, count: usize) -> Vec<Prim> {
    let tri = |a, b, c, provoking| Prim {
        v: [base + a, base + b, base + c],
        n: 3,
        provoking: base + provoking,
    };
    let line = |a, b| Prim {
        v: [base + a, base + b, base + b],
        n: 2,
        provoking: base + a,
    };
    match p {
        Primitive::PointList => (0..count)
            .map(|i| Prim {
                v: [base + i; 3],
                n: 1,
                provoking: base + i,
            })
            .collect(),
        Primitive::LineList => (0..count / 2).map(|i| line(2 * i, 2 * i + 1)).collect(),
        Primitive::LineStrip => (1..count.max(1)).map(|i| line(i - 1, i)).collect(),
        Primitive::TriangleList => (0..count / 3)
            .map(|i| tri(3 * i, 3 * i + 1, 3 * i + 2, 3 * i))
            .collect(),
        Primitive::TriangleStrip => (2..count.max(2))
            .map(|i| {
                let k = i - 2;
                if k % 2 == 0 {
                    tri(k, k + 1, k + 2, k)
                } else {
                    tri(k + 1, k, k + 2, k)
                }
            })
            .collect(),
        Primitive::TriangleFan => (2..count.max(2)).map(|i| tri(0, i - 1, i, i - 1)).collect(),
    }
}

/// The viewport transform.
struct Transform {
    x: f32,
    y: f32,
    half_w: f32,
    half_h: f32,
    min_z: f32,
    range_z: f32,
}

impl Transform {
    fn screen(&self, v: &ClipVertex) -> Screen {
        let inv_w = 1.0 / v.pos[3];
        Screen {
            x: self.x + (1.0 + v.pos[0] * inv_w) * self.half_w,
            y: self.y + (1.0 - v.pos[1] * inv_w) * self.half_h,
            z: self.min_z + v.pos[2] * inv_w * self.range_z,
            inv_w,
            weights: v.weights,
        }
    }
}

/// Everything fixed for one draw.
struct Setup<'a> {
    draw: &'a Draw,
    prepared: Prepared,
    planes: Vec<Plane>,
    transform: Transform,
    rect: Rect,
}

fn setup<'a>(sf: &Surfaces, draw: &'a Draw) -> Result<Setup<'a>, DrawError> {
    let s = &draw.states;
    let total = draw.vertex_count.checked_mul(draw.instance_count.max(1));
    if total.is_none_or(|n| n > crate::desc::MAX_DRAW_VERTICES) {
        return Err(DrawError::TooLarge(format!(
            "a draw of {} vertices x {} instances: dxso draws at most {} vertices at once",
            draw.vertex_count,
            draw.instance_count,
            crate::desc::MAX_DRAW_VERTICES
        )));
    }
    let vp = draw.checked_viewport(sf.width, sf.height)?;
    let mut rect = Rect {
        x0: vp.x as i64,
        y0: vp.y as i64,
        x1: vp.x as i64 + vp.width as i64,
        y1: vp.y as i64 + vp.height as i64,
    };
    if s.flag(rs::SCISSORTESTENABLE)
        && let Some([l, t, r, b]) = draw.scissor
    {
        rect.x0 = rect.x0.max(l as i64);
        rect.y0 = rect.y0.max(t as i64);
        rect.x1 = rect.x1.min(r as i64);
        rect.y1 = rect.y1.min(b as i64);
    }
    Ok(Setup {
        draw,
        prepared: vertex::prepare(draw)?,
        planes: clip::planes(&draw.clip_planes, s.get(rs::CLIPPLANEENABLE)),
        transform: Transform {
            x: vp.x as f32,
            y: vp.y as f32,
            half_w: vp.width as f32 / 2.0,
            half_h: vp.height as f32 / 2.0,
            min_z: vp.min_z,
            range_z: vp.max_z - vp.min_z,
        },
        rect,
    })
}

/// Where a probe (the pixel debugger) looks, and what it found.
pub(crate) struct Probe<'a> {
    pub x: u32,
    pub y: u32,
    pub draw: usize,
    pub reports: &'a mut Vec<PixelReport>,
}

/// Rows a thread draws at once (even: quads never straddle two bands).
const BAND_ROWS: u32 = 32;

/// Draw one draw into the surfaces: the vertex stage and primitive setup once, then the
/// pixels band by band in parallel (each band walks, in order, every primitive that reaches
/// its rows, so blending and the depth test see them as D3D9 does). `early_z` allows the early
/// depth test (see [`crate::shade`]). The counts say what the pixel stage did.
pub(crate) fn draw(
    sf: &mut Surfaces,
    draw: &Draw,
    probe: Option<Probe>,
    early_z: bool,
) -> Result<Counts, DrawError> {
    let setup = setup(sf, draw)?;
    let mut prims = Vec::new();
    let per_instance = draw.vertex_count;
    for k in 0..draw.instance_count.max(1) {
        for prim in assemble(draw.primitive, k * per_instance, per_instance) {
            primitive(&setup, &prim, &mut prims);
        }
    }
    let rows: Vec<(i64, i64)> = prims.iter().map(Raster::rows).collect();
    let merger = || Merger {
        states: &draw.states,
        fog_applies: draw.pixel.as_ref().is_none_or(|p| p.version().major < 3),
    };
    if probe.is_some() {
        let height = sf.height;
        let mut bands = sf.bands(height);
        return shade_band(
            &setup,
            (&prims, &rows),
            &mut bands[0],
            merger(),
            probe,
            early_z,
        );
    }
    sf.bands(BAND_ROWS)
        .into_par_iter()
        .map(|mut band| shade_band(&setup, (&prims, &rows), &mut band, merger(), None, early_z))
        .try_reduce(Counts::default, |a, b| Ok(a + b))
}

/// Rasterize every primitive over one band and shade its pixels.
fn shade_band(
    setup: &Setup,
    (prims, rows): (&[Raster], &[(i64, i64)]),
    band: &mut Band,
    merger: Merger,
    probe: Option<Probe>,
    early_z: bool,
) -> Result<Counts, DrawError> {
    let rect = Rect {
        y0: setup.rect.y0.max(band.y0 as i64),
        y1: setup.rect.y1.min(band.y1 as i64),
        ..setup.rect
    };
    if rect.y0 >= rect.y1 {
        return Ok(Counts::default());
    }
    let mut shading = Shading::new(setup.draw, &setup.prepared, merger, probe, early_z)?;
    let mut status = Ok(());
    for (p, &(y0, y1)) in prims.iter().zip(rows) {
        if y1 <= rect.y0 || y0 >= rect.y1 {
            continue;
        }
        let (Raster::Triangle { pv, .. } | Raster::Line { pv, .. } | Raster::Point { pv, .. }) = p;
        shading.begin(pv);
        let mut sink = |q: &Quad, face: f32, bias: f32| {
            if status.is_ok() {
                status = shading.push(band, q, face, bias);
            }
        };
        match p {
            Raster::Triangle { v, face, bias, .. } => {
                raster::triangle(v, &rect, &mut |q| sink(q, *face, *bias))
            }
            Raster::Line { a, b, last, .. } => {
                raster::line(a, b, *last, &rect, &mut |q| sink(q, 1.0, 0.0))
            }
            Raster::Point { c, size, .. } => {
                raster::point(c, *size, &rect, &mut |q| sink(q, 1.0, 0.0))
            }
        }
        status.clone()?;
    }
    shading.finish(band)
}

/// A primitive after clipping, the viewport and culling: what the rasterizer walks.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Raster {
    /// Positive area (front faces as given, back faces reordered); `face` ±1.
    Triangle {
        v: [Screen; 3],
        face: f32,
        bias: f32,
        pv: PrimVerts,
    },
    Line {
        a: Screen,
        b: Screen,
        last: bool,
        pv: PrimVerts,
    },
    Point {
        c: Screen,
        size: f32,
        pv: PrimVerts,
    },
}

impl Raster {
    /// Rows `[y0, y1)` holding every pixel the primitive may cover: a pixel beyond its
    /// vertices' rows each way (snapping, the line rule and the point rule stay inside), so a
    /// band outside them skips it.
    fn rows(&self) -> (i64, i64) {
        let (lo, hi) = match self {
            Raster::Triangle { v, .. } => (
                v[0].y.min(v[1].y).min(v[2].y),
                v[0].y.max(v[1].y).max(v[2].y),
            ),
            Raster::Line { a, b, .. } => (a.y.min(b.y), a.y.max(b.y)),
            Raster::Point { c, size, .. } => (c.y - size / 2.0, c.y + size / 2.0),
        };
        (lo.floor() as i64 - 1, hi.ceil() as i64 + 2)
    }
}

/// A primitive's original vertices and its provoking one, for interpolation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PrimVerts {
    pub v: [usize; 3],
    pub provoking: usize,
    /// For points: the centre and size (point sprites' texture coordinates).
    pub sprite: Option<(f32, f32, f32)>,
}

/// Clip, transform and cull one primitive into `out`.
fn primitive(setup: &Setup, prim: &Prim, out: &mut Vec<Raster>) {
    let verts = &setup.prepared.vertices;
    let pv = PrimVerts {
        v: prim.v,
        provoking: prim.provoking,
        sprite: None,
    };
    let poly: Vec<ClipVertex> = (0..prim.n)
        .map(|k| {
            let mut weights = [0.0; 3];
            weights[k] = 1.0;
            ClipVertex {
                pos: verts[prim.v[k]].pos,
                weights,
            }
        })
        .collect();
    let screen: Vec<Screen> = if setup.prepared.screen_space {
        poly.iter()
            .map(|v| Screen {
                x: v.pos[0],
                y: v.pos[1],
                z: v.pos[2],
                inv_w: 1.0 / v.pos[3],
                weights: v.weights,
            })
            .collect()
    } else if prim.n == 1 {
        // A point is drawn whole where its centre is inside the view volume and every
        // enabled clip plane, and not at all elsewhere.
        let p = poly[0].pos;
        let in_view = p[0].abs() <= p[3] && p[1].abs() <= p[3];
        if !in_view
            || !clip::inside(&setup.planes[..2], &p)
            || !clip::inside(&setup.planes[6..], &p)
        {
            return;
        }
        vec![setup.transform.screen(&poly[0])]
    } else {
        clip::clip(poly, &setup.planes)
            .iter()
            .map(|v| setup.transform.screen(v))
            .collect()
    };
    if !screen.iter().all(raster::representable) {
        return;
    }
    let s = &setup.draw.states;
    match prim.n {
        1 => {
            let size = point_size(setup, verts[prim.v[0]].point_size);
            let c = screen[0];
            let pv = PrimVerts {
                sprite: s.flag(rs::POINTSPRITEENABLE).then_some((c.x, c.y, size)),
                ..pv
            };
            out.push(Raster::Point { c, size, pv });
        }
        2 if screen.len() == 2 => out.push(Raster::Line {
            a: screen[0],
            b: screen[1],
            last: s.get(rs::LASTPIXEL) != 0,
            pv,
        }),
        2 => {}
        _ => triangles(setup, &screen, pv, out),
    }
}

fn point_size(setup: &Setup, from_vertex: Option<f32>) -> f32 {
    let s = &setup.draw.states;
    let size = from_vertex.unwrap_or(s.float(rs::POINTSIZE));
    let size = size
        .max(s.float(rs::POINTSIZE_MIN))
        .min(s.float(rs::POINTSIZE_MAX));
    if size.is_finite() {
        size.clamp(0.0, 8192.0)
    } else {
        1.0
    }
}

/// Cull a clipped polygon and add its fan.
fn triangles(setup: &Setup, poly: &[Screen], pv: PrimVerts, out: &mut Vec<Raster>) {
    if poly.len() < 3 {
        return;
    }
    let area: i64 = (1..poly.len() - 1)
        .map(|i| raster::signed_area(&[poly[0], poly[i], poly[i + 1]]))
        .sum();
    if area == 0 {
        return;
    }
    let front = area > 0;
    match setup.draw.states.get(rs::CULLMODE) {
        2 if front => return,
        3 if !front => return,
        _ => {}
    }
    let face = if front { 1.0 } else { -1.0 };
    let bias = depth_bias(setup, poly);
    for i in 1..poly.len() - 1 {
        let v = if front {
            [poly[0], poly[i], poly[i + 1]]
        } else {
            [poly[0], poly[i + 1], poly[i]]
        };
        out.push(Raster::Triangle { v, face, bias, pv });
    }
}

fn depth_bias(setup: &Setup, p: &[Screen]) -> f32 {
    let s = &setup.draw.states;
    let (bias, slope) = (s.float(rs::DEPTHBIAS), s.float(rs::SLOPESCALEDEPTHBIAS));
    if slope == 0.0 {
        return bias;
    }
    let (a, b, c) = (p[0], p[1], p[2]);
    let det = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y);
    if det == 0.0 {
        return bias;
    }
    let dzdx = ((b.z - a.z) * (c.y - a.y) - (c.z - a.z) * (b.y - a.y)) / det;
    let dzdy = ((c.z - a.z) * (b.x - a.x) - (b.z - a.z) * (c.x - a.x)) / det;
    bias + slope * dzdx.abs().max(dzdy.abs())
}

/// What the merger reported for a probed pixel, with the draw's index.
pub(crate) fn report(draw: usize, x: u32, y: u32) -> PixelReport {
    PixelReport {
        draw,
        x,
        y,
        inputs: Vec::new(),
        shader: None,
        discarded: false,
        merge: MergeReport::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assembly_of_each_primitive_type() {
        let v = |p: Vec<Prim>| p.iter().map(|p| (p.v, p.provoking)).collect::<Vec<_>>();
        assert_eq!(assemble(Primitive::TriangleList, 0, 7).len(), 2);
        assert_eq!(
            v(assemble(Primitive::TriangleStrip, 0, 5)),
            vec![([0, 1, 2], 0), ([2, 1, 3], 1), ([2, 3, 4], 2)]
        );
        assert_eq!(
            v(assemble(Primitive::TriangleFan, 10, 4)),
            vec![([10, 11, 12], 11), ([10, 12, 13], 12)]
        );
        assert_eq!(assemble(Primitive::LineStrip, 0, 4).len(), 3);
        assert_eq!(assemble(Primitive::LineList, 0, 5).len(), 2);
        assert_eq!(assemble(Primitive::PointList, 0, 3).len(), 3);
        assert!(assemble(Primitive::TriangleStrip, 0, 1).is_empty());
        assert!(assemble(Primitive::LineStrip, 0, 0).is_empty());
    }

    #[test]
    fn primitives_stay_inside_their_rows() {
        let s = |x: f32, y: f32| Screen {
            x,
            y,
            z: 0.5,
            inv_w: 1.0,
            weights: [1.0, 0.0, 0.0],
        };
        let pv = PrimVerts {
            v: [0; 3],
            provoking: 0,
            sprite: None,
        };
        let prims = [
            Raster::Triangle {
                v: [s(3.0, 40.2), s(30.5, 45.0), s(7.25, 50.7)],
                face: 1.0,
                bias: 0.0,
                pv,
            },
            Raster::Line {
                a: s(0.0, 7.5),
                b: s(30.0, 2.5),
                last: true,
                pv,
            },
            Raster::Point {
                c: s(10.0, 20.0),
                size: 5.0,
                pv,
            },
        ];
        let everywhere = Rect {
            x0: 0,
            y0: 0,
            x1: 64,
            y1: 64,
        };
        let want = [(39, 53), (1, 10), (16, 25)];
        for (p, want) in prims.iter().zip(want) {
            assert_eq!(p.rows(), want);
            let mut ys = Vec::new();
            let mut sink = |q: &Quad| {
                for k in 0..4 {
                    if q.covered[k] {
                        ys.push(q.y + (k >> 1) as i64);
                    }
                }
            };
            match p {
                Raster::Triangle { v, .. } => raster::triangle(v, &everywhere, &mut sink),
                Raster::Line { a, b, last, .. } => {
                    raster::line(a, b, *last, &everywhere, &mut sink)
                }
                Raster::Point { c, size, .. } => raster::point(c, *size, &everywhere, &mut sink),
            }
            let (lo, hi) = (ys.iter().min().unwrap(), ys.iter().max().unwrap());
            assert!(*lo >= want.0 && *hi < want.1, "{p:?}: rows {lo}..={hi}");
        }
    }

    use crate::desc::{Clear, DepthFormat, Frame, TargetFormat};
    use crate::states::StateValue;
    use dxso::ir::Usage;
    use dxso_vm::{DeclType, Device, Frequency, StreamSource, VertexElement};

    fn checked(asm: &str) -> dxso::validate::Checked {
        let shader = dxso::text::parse(asm).unwrap();
        dxso::validate::validate(&shader, &dxso::validate::Caps::max()).unwrap()
    }

    /// A triangle list of clip-space positions with TEXCOORD0, through a pass-through
    /// vs_3_0 and `ps`, CULLMODE NONE and `zfunc`.
    fn shaded(ps: &str, verts: &[[f32; 8]], zfunc: &str) -> Draw {
        let bytes: Vec<u8> = verts
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let element = |offset, usage| VertexElement {
            stream: 0,
            offset,
            ty: DeclType::Float4,
            method: 0,
            usage,
            usage_index: 0,
        };
        let mut device = Device::new();
        let vs = "vs_3_0\ndcl_position v0\ndcl_texcoord v1\ndcl_position o0\n\
                  dcl_texcoord o1\nmov o0, v0\nmov o1, v1\n";
        device.set_vertex_shader(&checked(vs)).unwrap();
        device
            .set_declaration(vec![
                element(0, Usage::Position),
                element(16, Usage::TexCoord),
            ])
            .unwrap();
        let stream = StreamSource {
            data: bytes.into(),
            offset: 0,
            stride: 32,
            frequency: Frequency::Vertex,
        };
        device.set_stream(0, Some(stream)).unwrap();
        let mut d = Draw::new(device, verts.len(), true);
        d.pixel = Some(dxso_vm::PixelState::new(&checked(ps)).unwrap());
        for (name, value) in [("CULLMODE", "NONE"), ("ZFUNC", zfunc)] {
            d.states.set(name, &StateValue::Name(value.into())).unwrap();
        }
        d
    }

    fn frame(w: u32, h: u32) -> Frame {
        Frame {
            width: w,
            height: h,
            targets: vec![TargetFormat::A8R8G8B8],
            depth_stencil: Some(DepthFormat::D24S8),
            clear: Clear {
                z: 1.0,
                ..Default::default()
            },
        }
    }

    /// Draw `draws` with the early depth test allowed or not: the surfaces and the counts
    /// summed over the draws.
    fn run(f: &Frame, draws: &[Draw], early_z: bool) -> (Surfaces, Counts) {
        let mut sf = Surfaces::cleared(f).unwrap();
        let mut counts = Counts::default();
        for d in draws {
            counts = counts + draw(&mut sf, d, None, early_z).unwrap();
        }
        (sf, counts)
    }

    /// A whole-viewport quad (two triangles) at depth `z`.
    fn quad(z: f32) -> Vec<[f32; 8]> {
        let v = |x: f32, y: f32| [x, y, z, 1.0, (x + 1.0) / 2.0, (1.0 - y) / 2.0, 0.0, 1.0];
        let (a, b, c, d) = (v(-1.0, 1.0), v(1.0, 1.0), v(-1.0, -1.0), v(1.0, -1.0));
        vec![a, b, c, c, b, d]
    }

    const FLAT: &str = "ps_3_0\ndcl_texcoord v0\nmov oC0, v0\n";

    #[test]
    fn a_hidden_quad_is_not_shaded() {
        // 40x36 (two bands), cleared to depth 1: a quad at z 0.25, then one at 0.75, each
        // 1440 pixels in 360 quads, 18 of which the diagonal splits between its two triangles
        // (shaded once for each: 378). Without early z both are shaded (2880 pixels); with it,
        // LESS(EQUAL) rejects the far one whole, GREATER and NEVER both, and EQUAL and
        // NOTEQUAL (not monotonic) none.
        let f = frame(40, 36);
        for (zfunc, want) in [
            ("LESSEQUAL", (1440, 378, 378)),
            ("LESS", (1440, 378, 378)),
            ("GREATER", (0, 0, 756)),
            ("NEVER", (0, 0, 756)),
            ("EQUAL", (2880, 756, 0)),
            ("NOTEQUAL", (2880, 756, 0)),
        ] {
            let draws = [
                shaded(FLAT, &quad(0.25), zfunc),
                shaded(FLAT, &quad(0.75), zfunc),
            ];
            let (on, n_on) = run(&f, &draws, true);
            let (off, n_off) = run(&f, &draws, false);
            assert_eq!(on, off, "{zfunc}");
            let counts = |n: Counts| (n.pixels, n.quads, n.rejected_quads);
            assert_eq!(counts(n_off), (2880, 756, 0), "{zfunc}");
            assert_eq!(counts(n_on), want, "{zfunc}");
        }
    }

    #[test]
    fn texkill_and_stencil_keep_the_late_test_only() {
        let f = frame(16, 16);
        let kill = "ps_3_0\ndcl_texcoord v0\ntexkill v0\nmov oC0, v0\n";
        let draws = [
            shaded(kill, &quad(0.25), "LESS"),
            shaded(kill, &quad(0.5), "LESS"),
        ];
        assert_eq!(run(&f, &draws, true).1.pixels, 512);
        let mut draws = [
            shaded(FLAT, &quad(0.25), "LESS"),
            shaded(FLAT, &quad(0.5), "LESS"),
        ];
        for d in &mut draws {
            d.states
                .set("STENCILENABLE", &StateValue::Bool(true))
                .unwrap();
        }
        assert_eq!(run(&f, &draws, true).1.pixels, 512);
    }

    /// `n` triangles in random order and depth (a fixed xorshift sequence) about a fifth of
    /// the viewport wide, spilling past its edges.
    fn overlapping(n: usize) -> Vec<[f32; 8]> {
        let mut seed = 0x2545_f491_u32;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as f32 / u32::MAX as f32
        };
        let mut verts = Vec::new();
        for _ in 0..n {
            let (cx, cy, z) = (rnd() * 2.4 - 1.2, rnd() * 2.4 - 1.2, rnd());
            for _ in 0..3 {
                let (x, y) = (cx + rnd() * 0.8 - 0.4, cy + rnd() * 0.8 - 0.4);
                verts.push([x, y, z, 1.0, x * 3.0, y * y, z, 1.0]);
            }
        }
        verts
    }

    const DERIVATIVES: &str = "ps_3_0\ndcl_texcoord v0\ndef c0, 8, 0.5, 0, 1\ndsx r0, v0\n\
                               dsy r1, v0\nadd r0, r0, r1\nmad oC0, r0, c0.x, v0\n";

    #[test]
    fn one_thread_and_four_draw_the_same() {
        let draws = [shaded(DERIVATIVES, &overlapping(120), "LESSEQUAL")];
        let f = frame(70, 130);
        let on = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| run(&f, &draws, true))
        };
        let (one, four) = (on(1), on(4));
        assert_eq!(one, four);
        assert!(four.1.pixels > 1000, "{:?}", four.1);
    }

    #[test]
    fn overlapping_triangles_draw_the_same_with_early_z() {
        // A P4-like scene over 96x80, ZFUNC LESSEQUAL with Z writes, a shader whose colour
        // takes the texture coordinates' derivatives (so a rejected pixel must still run as
        // a helper).
        let draws = [shaded(DERIVATIVES, &overlapping(160), "LESSEQUAL")];
        let f = frame(96, 80);
        let (on, n_on) = run(&f, &draws, true);
        let (off, n_off) = run(&f, &draws, false);
        assert_eq!(on, off);
        assert!(
            n_on.pixels * 10 < n_off.pixels * 8,
            "shaded {} of {} pixels",
            n_on.pixels,
            n_off.pixels
        );
        assert!(n_on.rejected_quads > 0);
        assert_eq!(n_off.rejected_quads, 0);
    }
}
