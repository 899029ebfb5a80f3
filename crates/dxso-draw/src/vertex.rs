//! The vertex stage's results as the rasterizer takes them: each vertex's clip-space (or, for
//! `POSITIONT`, screen-space) position, point size, fog factor and the attributes the pixel
//! stage reads, found in the vertex shader's outputs by semantic.
//!
//! Rules (with their sources or dxso's reasons):
//! - A pixel-shader input takes the vertex output of the same semantic, component by
//!   component (`dxso link` checks the pairing; ps_1_x/ps_2_x read `v0`/`v1` as `COLOR0`/`1`
//!   and `t#` as `TEXCOORD#`).
//! - ps_1_x/ps_2_x colour inputs arrive clamped to [0, 1] (the colour input registers'
//!   reference pages): dxso clamps at the vertex, which equals clamping each interpolated
//!   value since interpolation stays between the vertices' values.
//! - An input no vertex output feeds reads (0, 0, 0, 1), as an unbound vertex input does (C12)
//!   (unverified for the pixel side: D3D9 leaves it undefined); without a vertex shader a
//!   missing `COLOR0` is white and a missing `COLOR1` is (0, 0, 0, 1): black with the fog
//!   factor 1 in its alpha.
//! - The fog factor is `oFog` (vs_1_1 .. vs_2_x) or the `FOG0` output (vs_3_0); without a
//!   vertex shader it is the specular colour's alpha (fixed-function vertex fog). Without any,
//!   it is 1 (no fog).

use crate::DrawError;
use crate::desc::Draw;
use dxso::ir::Usage;
use dxso_vm::Outputs;

/// One vertex ready for clipping and rasterization.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Vertex {
    /// Clip space (x, y, z, w); for `POSITIONT`, screen space (x, y, z, 1/rhw... see
    /// `Prepared::screen_space`).
    pub pos: [f32; 4],
    pub point_size: Option<f32>,
    pub fog: f32,
}

/// What an attribute slot holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Slot {
    pub usage: Usage,
    pub usage_index: u8,
    /// A colour (flat shading takes it from the provoking vertex).
    pub color: bool,
}

/// The vertices of one draw.
pub(crate) struct Prepared {
    pub vertices: Vec<Vertex>,
    pub slots: Vec<Slot>,
    /// Vertex `v`'s attribute `s` at `v * slots.len() + s`.
    pub attrs: Vec<[f32; 4]>,
    /// Positions are screen space (`POSITIONT`: x, y, z, and w = 1/rhw), not clip space.
    pub screen_space: bool,
}

fn semantic(usage: Usage, index: u8) -> String {
    format!("{}{index}", usage.name().to_ascii_uppercase())
}

/// Where a semantic lives in the vertex outputs: the register slot of `Outputs::registers`.
fn find(out: &Outputs, fixed: Option<&[(Usage, u8)]>, usage: Usage, index: u8) -> Option<usize> {
    if let Some(sems) = fixed {
        return sems.iter().position(|&s| s == (usage, index));
    }
    let want = semantic(usage, index);
    out.registers
        .iter()
        .position(|r| r.semantic.split('+').any(|s| s == want))
}

/// The attribute slots of a draw: the pixel shader's inputs, or (no pixel shader) the
/// diffuse and specular colours.
fn slots(draw: &Draw) -> Vec<Slot> {
    match &draw.pixel {
        Some(ps) => ps
            .inputs()
            .iter()
            .map(|i| Slot {
                usage: i.usage,
                usage_index: i.usage_index,
                color: i.usage == Usage::Color,
            })
            .collect(),
        None => (0..2)
            .map(|n| Slot {
                usage: Usage::Color,
                usage_index: n,
                color: true,
            })
            .collect(),
    }
}

/// Whether a slot's values are clamped to [0, 1] at the vertex.
fn clamped(draw: &Draw, slot: usize) -> bool {
    match &draw.pixel {
        Some(ps) => ps.inputs()[slot].color,
        None => true,
    }
}

/// Run the vertex stage and gather what the rasterizer needs.
pub(crate) fn prepare(draw: &Draw) -> Result<Prepared, DrawError> {
    let out = draw.vertex.draw(draw.vertex_count, draw.instance_count)?;
    let fixed = draw.fixed_function.as_deref();
    let (pos_reg, screen_space) = match find(&out, fixed, Usage::Position, 0) {
        Some(r) => (r, false),
        None => match fixed.and_then(|_| find(&out, fixed, Usage::PositionT, 0)) {
            Some(r) => (r, true),
            None => {
                return Err(DrawError::Scene(
                    "the vertex stage writes no POSITION0 (nothing to rasterize)".into(),
                ));
            }
        },
    };
    let slots = slots(draw);
    let sources: Vec<Option<usize>> = slots
        .iter()
        .map(|s| find(&out, fixed, s.usage, s.usage_index))
        .collect();
    let psize = find(&out, fixed, Usage::PSize, 0);
    let fog = if fixed.is_some() {
        find(&out, fixed, Usage::Color, 1).map(|r| (r, 3))
    } else {
        find(&out, fixed, Usage::Fog, 0).map(|r| (r, 0))
    };
    let n = out.registers.len() * 4;
    let mut vertices = Vec::with_capacity(out.vertices);
    let mut attrs = Vec::with_capacity(out.vertices * slots.len());
    for v in 0..out.vertices {
        let data = &out.data[v * n..(v + 1) * n];
        let reg = |r: usize| -> [f32; 4] { std::array::from_fn(|c| data[r * 4 + c]) };
        let mut pos = reg(pos_reg);
        if screen_space {
            // POSITIONT: (x, y, z, rhw); keep w = 1/rhw for perspective interpolation.
            pos[3] = 1.0 / pos[3];
        }
        attrs.extend((0..slots.len()).map(|k| {
            let mut a = match sources[k] {
                Some(r) => reg(r),
                None if fixed.is_some() && slots[k] == diffuse() => [1.0; 4],
                None => [0.0, 0.0, 0.0, 1.0],
            };
            if clamped(draw, k) {
                a = a.map(|x| if x > 0.0 { x.min(1.0) } else { 0.0 });
            }
            a
        }));
        vertices.push(Vertex {
            pos,
            point_size: psize.map(|r| reg(r)[0]),
            fog: fog.map_or(1.0, |(r, c)| reg(r)[c]),
        });
    }
    Ok(Prepared {
        vertices,
        slots,
        attrs,
        screen_space,
    })
}

impl Prepared {
    /// Vertex `v`'s attribute in slot `s`.
    pub fn attr(&self, v: usize, s: usize) -> [f32; 4] {
        self.attrs[v * self.slots.len() + s]
    }
}

fn diffuse() -> Slot {
    Slot {
        usage: Usage::Color,
        usage_index: 0,
        color: true,
    }
}
