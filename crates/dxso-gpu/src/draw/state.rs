//! A draw's render states as wgpu pipeline and pass state, and the states the GPU path
//! refuses by name (never drawn wrong).

use super::patch::{FogFactor, PixelTail};
use crate::{Error, Refusal};
use dxso_draw::states::rs;
use dxso_draw::{Draw, Primitive, RenderStates};

fn refuse(what: Refusal) -> Error {
    Error::Refused(what)
}

/// Whether D3D9's fixed-function fog applies to the draw (not to ps_3_0).
pub(super) fn fog_applies(draw: &Draw) -> bool {
    draw.states.get(rs::FOGENABLE) != 0 && draw.pixel.as_ref().is_none_or(|p| p.version().major < 3)
}

/// Refuse, by name, what this path does not draw.
pub(super) fn check(draw: &Draw) -> Result<(), Error> {
    let s = &draw.states;
    match draw.primitive {
        Primitive::LineList | Primitive::LineStrip => {
            return Err(refuse(Refusal::Lines));
        }
        _ => {}
    }
    if s.get(rs::ZENABLE) == 2 {
        return Err(refuse(Refusal::WBuffer));
    }
    if s.get(rs::ALPHABLENDENABLE) != 0 {
        let mut dest = vec![s.get(rs::DESTBLEND)];
        if s.get(rs::SEPARATEALPHABLENDENABLE) != 0 {
            dest.push(s.get(rs::DESTBLENDALPHA));
        }
        if dest.iter().any(|&d| d == 12 || d == 13) {
            return Err(refuse(Refusal::BothSrcAlphaDest));
        }
    }
    Ok(())
}

fn compare(func: u32) -> wgpu::CompareFunction {
    use wgpu::CompareFunction as C;
    match func {
        1 => C::Never,
        2 => C::Less,
        3 => C::Equal,
        4 => C::LessEqual,
        5 => C::Greater,
        6 => C::NotEqual,
        7 => C::GreaterEqual,
        _ => C::Always,
    }
}

fn stencil_op(op: u32) -> wgpu::StencilOperation {
    use wgpu::StencilOperation as O;
    match op {
        2 => O::Zero,
        3 => O::Replace,
        4 => O::IncrementClamp,
        5 => O::DecrementClamp,
        6 => O::Invert,
        7 => O::IncrementWrap,
        8 => O::DecrementWrap,
        _ => O::Keep,
    }
}

/// The depth-stencil state of a draw into a surface of wgpu format `format`.
pub(super) fn depth_stencil(
    s: &RenderStates,
    format: wgpu::TextureFormat,
    stencil: bool,
) -> wgpu::DepthStencilState {
    let z_on = s.get(rs::ZENABLE) != 0;
    let face = |func, fail, zfail, pass| wgpu::StencilFaceState {
        compare: compare(s.get(func)),
        fail_op: stencil_op(s.get(fail)),
        depth_fail_op: stencil_op(s.get(zfail)),
        pass_op: stencil_op(s.get(pass)),
    };
    let stencil_state = if stencil && s.get(rs::STENCILENABLE) != 0 {
        let front = face(
            rs::STENCILFUNC,
            rs::STENCILFAIL,
            rs::STENCILZFAIL,
            rs::STENCILPASS,
        );
        let back = if s.get(rs::TWOSIDEDSTENCILMODE) != 0 {
            face(
                rs::CCW_STENCILFUNC,
                rs::CCW_STENCILFAIL,
                rs::CCW_STENCILZFAIL,
                rs::CCW_STENCILPASS,
            )
        } else {
            front
        };
        wgpu::StencilState {
            front,
            back,
            read_mask: s.get(rs::STENCILMASK) & 0xff,
            write_mask: s.get(rs::STENCILWRITEMASK) & 0xff,
        }
    } else {
        wgpu::StencilState::default()
    };
    wgpu::DepthStencilState {
        format,
        depth_write_enabled: Some(z_on && s.get(rs::ZWRITEENABLE) != 0),
        depth_compare: Some(if z_on {
            compare(s.get(rs::ZFUNC))
        } else {
            wgpu::CompareFunction::Always
        }),
        stencil: stencil_state,
        bias: Default::default(),
    }
}

/// The stencil reference (`STENCILREF`'s low byte).
pub(super) fn stencil_reference(s: &RenderStates) -> u32 {
    s.get(rs::STENCILREF) & 0xff
}

/// `CULLMODE` with D3D9's front face (clockwise on screen, `FrontFace::Cw`).
pub(super) fn cull(s: &RenderStates) -> Option<wgpu::Face> {
    match s.get(rs::CULLMODE) {
        2 => Some(wgpu::Face::Front),
        3 => Some(wgpu::Face::Back),
        _ => None,
    }
}

fn factor(f: u32) -> wgpu::BlendFactor {
    use wgpu::BlendFactor as F;
    match f {
        1 => F::Zero,
        3 => F::Src,
        4 => F::OneMinusSrc,
        5 => F::SrcAlpha,
        6 => F::OneMinusSrcAlpha,
        7 => F::DstAlpha,
        8 => F::OneMinusDstAlpha,
        9 => F::Dst,
        10 => F::OneMinusDst,
        11 => F::SrcAlphaSaturated,
        14 => F::Constant,
        15 => F::OneMinusConstant,
        _ => F::One,
    }
}

fn component(src: u32, dst: u32, op: u32) -> wgpu::BlendComponent {
    let (src, dst) = match src {
        12 => (5, 6),
        13 => (6, 5),
        _ => (src, dst),
    };
    let operation = match op {
        2 => wgpu::BlendOperation::Subtract,
        3 => wgpu::BlendOperation::ReverseSubtract,
        4 => wgpu::BlendOperation::Min,
        5 => wgpu::BlendOperation::Max,
        _ => wgpu::BlendOperation::Add,
    };
    // D3D9 ignores the factors of MIN and MAX; WebGPU wants them One.
    let minmax = matches!(
        operation,
        wgpu::BlendOperation::Min | wgpu::BlendOperation::Max
    );
    wgpu::BlendComponent {
        src_factor: if minmax {
            wgpu::BlendFactor::One
        } else {
            factor(src)
        },
        dst_factor: if minmax {
            wgpu::BlendFactor::One
        } else {
            factor(dst)
        },
        operation,
    }
}

/// The blend state (`None`: `ALPHABLENDENABLE` off).
pub(super) fn blend(s: &RenderStates) -> Option<wgpu::BlendState> {
    if s.get(rs::ALPHABLENDENABLE) == 0 {
        return None;
    }
    let color = component(
        s.get(rs::SRCBLEND),
        s.get(rs::DESTBLEND),
        s.get(rs::BLENDOP),
    );
    let alpha = if s.get(rs::SEPARATEALPHABLENDENABLE) != 0 {
        component(
            s.get(rs::SRCBLENDALPHA),
            s.get(rs::DESTBLENDALPHA),
            s.get(rs::BLENDOPALPHA),
        )
    } else {
        color
    };
    Some(wgpu::BlendState { color, alpha })
}

/// `BLENDFACTOR` as the pass's blend constant.
pub(super) fn blend_constant(s: &RenderStates) -> wgpu::Color {
    let [r, g, b, a] = dxso_draw::d3dcolor(s.get(rs::BLENDFACTOR)).map(f64::from);
    wgpu::Color { r, g, b, a }
}

/// Target `t`'s `COLORWRITEENABLE` (RGBA bits, as wgpu's).
pub(super) fn write_mask(s: &RenderStates, t: usize) -> wgpu::ColorWrites {
    let n = if t == 0 {
        rs::COLORWRITEENABLE
    } else {
        rs::COLORWRITEENABLE1 + t as u32 - 1
    };
    wgpu::ColorWrites::from_bits_truncate(s.get(n) & 0xf)
}

/// Whether the scissor test is on.
pub(super) fn scissor_test(s: &RenderStates) -> bool {
    s.get(rs::SCISSORTESTENABLE) != 0
}

/// Fog and the alpha test as the fragment entry adds them. `vertex_fog`: the location and
/// component of the vertex stage's fog factor (`None`: it writes none, and vertex fog is 1).
pub(super) fn pixel_tail(draw: &Draw, vertex_fog: Option<(u32, u32)>) -> PixelTail {
    let s = &draw.states;
    let float = |n: u32| f32::from_bits(s.get(n));
    let fog = if fog_applies(draw) {
        let factor = match s.get(rs::FOGTABLEMODE) {
            mode @ 1..=3 => {
                let (start, end) = (float(rs::FOGSTART), float(rs::FOGEND));
                // LINEAR with FOGEND = FOGSTART is 1: no fog.
                (mode != 3 || end != start).then_some(FogFactor::Table {
                    mode,
                    start,
                    end,
                    density: float(rs::FOGDENSITY),
                })
            }
            _ => vertex_fog.map(|(location, component)| FogFactor::Vertex {
                location,
                component,
            }),
        };
        let c = dxso_draw::d3dcolor(s.get(rs::FOGCOLOR));
        factor.map(|f| (f, [c[0], c[1], c[2]]))
    } else {
        None
    };
    let alpha_test = (s.get(rs::ALPHATESTENABLE) != 0 && s.get(rs::ALPHAFUNC) != 8).then(|| {
        (
            s.get(rs::ALPHAFUNC),
            (s.get(rs::ALPHAREF) & 0xff) as f32 / 255.0,
        )
    });
    let (bias, slope) = (float(rs::DEPTHBIAS), float(rs::SLOPESCALEDEPTHBIAS));
    // D3D9 biases triangles only (the CPU draw gives points none).
    let depth_bias = ((bias != 0.0 || slope != 0.0) && draw.primitive != Primitive::PointList)
        .then_some((bias, slope));
    PixelTail {
        fog,
        alpha_test,
        depth_bias,
    }
}

/// `SHADEMODE FLAT`.
pub(super) fn flat(s: &RenderStates) -> bool {
    s.get(rs::SHADEMODE) == 1
}

/// `SRGBWRITEENABLE` (8-bit targets only, as the CPU draw has it).
pub(super) fn srgb_write(s: &RenderStates) -> bool {
    s.get(rs::SRGBWRITEENABLE) != 0
}

/// The point size of `POINTSIZE` clamped to `POINTSIZE_MIN`..`POINTSIZE_MAX`, as the CPU
/// draw takes it (without a `PSIZE` output; 1 where not finite).
pub(super) fn point_size(s: &RenderStates) -> f32 {
    let float = |n: u32| f32::from_bits(s.get(n));
    let size = float(rs::POINTSIZE)
        .max(float(rs::POINTSIZE_MIN))
        .min(float(rs::POINTSIZE_MAX));
    if size.is_finite() {
        size.clamp(0.0, 8192.0)
    } else {
        1.0
    }
}

/// The primitive topology (lines are refused before).
pub(super) fn topology(p: Primitive) -> wgpu::PrimitiveTopology {
    match p {
        Primitive::PointList => wgpu::PrimitiveTopology::PointList,
        _ => wgpu::PrimitiveTopology::TriangleList,
    }
}

/// `CLIPPLANEENABLE`'s six plane bits.
pub(super) fn clip_planes(s: &RenderStates) -> u32 {
    s.get(rs::CLIPPLANEENABLE) & 0x3f
}

/// `POINTSPRITEENABLE`.
pub(super) fn sprites(s: &RenderStates) -> bool {
    s.get(rs::POINTSPRITEENABLE) != 0
}
