//! Building draws by hand: pre-transformed and clip-space vertices with colours.

use dxso::ir::Usage;
use dxso_draw::{Draw, Frame, Primitive, StateValue, Surfaces, TargetFormat, draw_frame, fixed};
use dxso_vm::{DeclType, Device, Frequency, StreamSource, VertexElement};

/// A vertex: position (x, y, z, rhw or w) and a D3DCOLOR diffuse.
pub type V = ([f32; 4], u32);

/// A draw without shaders of `verts` (positions as POSITIONT when `screen`, else POSITION
/// FLOAT4 in clip space) with a diffuse colour each.
pub fn draw(verts: &[V], primitive: Primitive, screen: bool, depth: bool) -> Draw {
    let mut bytes = Vec::new();
    for (p, c) in verts {
        for x in p {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        bytes.extend_from_slice(&c.to_le_bytes());
    }
    let mut device = Device::new();
    let decl = vec![
        VertexElement {
            stream: 0,
            offset: 0,
            ty: DeclType::Float4,
            method: 0,
            usage: if screen {
                Usage::PositionT
            } else {
                Usage::Position
            },
            usage_index: 0,
        },
        VertexElement {
            stream: 0,
            offset: 16,
            ty: DeclType::D3dColor,
            method: 0,
            usage: Usage::Color,
            usage_index: 0,
        },
    ];
    let semantics = fixed::pass_through(&mut device, decl).unwrap();
    device
        .set_stream(
            0,
            Some(StreamSource {
                data: bytes.into(),
                offset: 0,
                stride: 20,
                frequency: Frequency::Vertex,
            }),
        )
        .unwrap();
    let mut d = Draw::new(device, verts.len(), depth);
    d.fixed_function = Some(semantics);
    d.primitive = primitive;
    d
}

/// Set render states by name.
pub fn states(d: &mut Draw, list: &[(&str, StateValue)]) {
    for (n, v) in list {
        d.states.set(n, v).unwrap();
    }
}

pub fn name(s: &str) -> StateValue {
    StateValue::Name(s.into())
}

/// A `w` x `h` frame, one A8R8G8B8 target cleared to `clear`, with or without D24S8.
pub fn frame(w: u32, h: u32, clear: u32, depth: bool) -> Frame {
    Frame {
        width: w,
        height: h,
        targets: vec![TargetFormat::A8R8G8B8],
        depth_stencil: depth.then_some(dxso_draw::DepthFormat::D24S8),
        clear: dxso_draw::Clear {
            color: dxso_draw::d3dcolor(clear),
            ..Default::default()
        },
    }
}

pub fn render(f: &Frame, draws: &[Draw]) -> Surfaces {
    draw_frame(f, draws).unwrap()
}

/// Target 0 at (x, y) as 8-bit channels.
pub fn rgba8(s: &Surfaces, x: u32, y: u32) -> [u8; 4] {
    s.pixel(x, y).unwrap().targets[0].map(|c| (c * 255.0).round() as u8)
}

/// The pixels of target 0 that differ from `background`, as (x, y).
pub fn painted(s: &Surfaces, background: [u8; 4]) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for y in 0..s.height {
        for x in 0..s.width {
            if rgba8(s, x, y) != background {
                v.push((x, y));
            }
        }
    }
    v
}

/// A draw without shaders from raw vertex bytes and a declaration (stream 0).
pub fn draw_raw(
    decl: Vec<VertexElement>,
    bytes: Vec<u8>,
    stride: usize,
    count: usize,
    primitive: Primitive,
) -> Draw {
    let mut device = Device::new();
    let semantics = fixed::pass_through(&mut device, decl).unwrap();
    device
        .set_stream(
            0,
            Some(StreamSource {
                data: bytes.into(),
                offset: 0,
                stride,
                frequency: Frequency::Vertex,
            }),
        )
        .unwrap();
    let mut d = Draw::new(device, count, false);
    d.fixed_function = Some(semantics);
    d.primitive = primitive;
    d
}

/// A declaration element of stream 0.
pub fn element(offset: u16, ty: DeclType, usage: Usage, usage_index: u8) -> VertexElement {
    VertexElement {
        stream: 0,
        offset,
        ty,
        method: 0,
        usage,
        usage_index,
    }
}

/// Parse and validate a shader (either stage).
pub fn checked(asm: &str) -> dxso::validate::Checked {
    let shader = dxso::text::parse(asm).unwrap_or_else(|e| panic!("{asm}: {e:?}"));
    dxso::validate::validate(&shader, &dxso::validate::Caps::max())
        .unwrap_or_else(|e| panic!("{asm}: {e:?}"))
}

/// A draw of FLOAT4 positions (stream 0, 16 bytes each, plus `extra` FLOAT4 per vertex as
/// TEXCOORD0) through a vertex shader and a pixel shader.
pub fn shaded(vs: &str, ps: &str, verts: &[([f32; 4], [f32; 4])], primitive: Primitive) -> Draw {
    let mut bytes = Vec::new();
    for (p, t) in verts {
        for x in p.iter().chain(t) {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    let mut device = Device::new();
    device.set_vertex_shader(&checked(vs)).unwrap();
    device
        .set_declaration(vec![
            element(0, DeclType::Float4, Usage::Position, 0),
            element(16, DeclType::Float4, Usage::TexCoord, 0),
        ])
        .unwrap();
    device
        .set_stream(
            0,
            Some(StreamSource {
                data: bytes.into(),
                offset: 0,
                stride: 32,
                frequency: Frequency::Vertex,
            }),
        )
        .unwrap();
    let mut d = Draw::new(device, verts.len(), false);
    d.primitive = primitive;
    d.pixel = Some(dxso_vm::PixelState::new(&checked(ps)).unwrap());
    d
}

/// A clip-space quad over the whole viewport (a triangle strip) with texture coordinates
/// (0, 0) at the top-left to (1, 1) at the bottom-right.
pub fn screen_quad() -> Vec<([f32; 4], [f32; 4])> {
    vec![
        ([-1.0, 1.0, 0.5, 1.0], [0.0, 0.0, 0.0, 1.0]),
        ([1.0, 1.0, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0]),
        ([-1.0, -1.0, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0]),
        ([1.0, -1.0, 0.5, 1.0], [1.0, 1.0, 0.0, 1.0]),
    ]
}

/// vs_3_0 passing POSITION0 and TEXCOORD0 through.
pub const VS30: &str = "vs_3_0\ndcl_position v0\ndcl_texcoord v1\ndcl_position o0\ndcl_texcoord o1\nmov o0, v0\nmov o1, v1\n";
/// vs_2_0 passing the position and oT0 through.
pub const VS20: &str = "vs_2_0\ndcl_position v0\ndcl_texcoord v1\nmov oPos, v0\nmov oT0, v1\n";
