//! Running the pixel-only ops: texture sampling with the level of detail from the quad,
//! the ps_1_x texture-addressing steps, depth replacement.

use super::lower::{DEPTH_ROW, PixelOp, SampleMode, mask_dst};
use super::quad::{ddx, ddy};
use super::{StageState, Stages};
use crate::LANES;
use crate::exec::{Machine, Uniforms};
use crate::math::{Row, Scalar, mul, rcp};
use crate::program::DstKind;
use crate::texture::{Texture, TextureKind, lod_matters, sample, sample_2d};

/// The texel an unbound sampler (or a sampler past the 16) returns: (0, 0, 0, 1).
pub(crate) const UNBOUND: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

pub(crate) fn run(m: &mut Machine, op: &PixelOp, u: &Uniforms) {
    match *op {
        PixelOp::Sample {
            dst,
            coord,
            dx,
            dy,
            sampler,
            swizzle,
            mode,
        } => {
            let c: [Row; 4] = std::array::from_fn(|k| m.load(&coord, k));
            let grad: Option<[[Row; 4]; 2]> = (mode == SampleMode::Grad).then(|| {
                [
                    std::array::from_fn(|k| m.load(&dx, k)),
                    std::array::from_fn(|k| m.load(&dy, k)),
                ]
            });
            let mut texel = [[0.0; LANES]; 4];
            sample_rows(u.pixel, sampler, mode, &c, grad.as_ref(), &mut texel);
            let res: [Row; 4] = std::array::from_fn(|k| texel[(swizzle >> (2 * k) & 3) as usize]);
            m.store(&dst, &res);
        }
        PixelOp::Bump {
            out,
            coord,
            src,
            stage,
        } => {
            let st = stage_state(u, stage);
            let mat = st.bump_env_mat;
            let (u0, v0) = (m.load(&coord, 0), m.load(&coord, 1));
            let (r, g) = (m.load(&src, 0), m.load(&src, 1));
            let mut uu = [0.0; LANES];
            let mut vv = [0.0; LANES];
            for l in 0..LANES {
                uu[l] = u0[l] + mul(mat[0], r[l]) + mul(mat[2], g[l]);
                vv[l] = v0[l] + mul(mat[1], r[l]) + mul(mat[3], g[l]);
            }
            m.rows[out[0] as usize] = uu;
            m.rows[out[1] as usize] = vv;
        }
        PixelOp::Luminance { dst, src, stage } => {
            let st = stage_state(u, stage);
            let b = m.load(&src, 2);
            let f: Row =
                std::array::from_fn(|l| mul(b[l], st.bump_env_lscale) + st.bump_env_loffset);
            let res: [Row; 4] = std::array::from_fn(|c| {
                let r = &m.rows[dst as usize + c];
                std::array::from_fn(|l| mul(r[l], f[l]))
            });
            m.store(&mask_dst(dst, 0xF), &res);
        }
        PixelOp::Reflect { n, eye } => {
            let nv: [Row; 3] = std::array::from_fn(|c| m.rows[n[c] as usize]);
            let e: [Row; 3] = std::array::from_fn(|c| m.load(&eye, c));
            for l in 0..LANES {
                let ne = mul(nv[0][l], e[0][l]) + mul(nv[1][l], e[1][l]) + mul(nv[2][l], e[2][l]);
                let nn =
                    mul(nv[0][l], nv[0][l]) + mul(nv[1][l], nv[1][l]) + mul(nv[2][l], nv[2][l]);
                let k = mul(2.0 * ne, rcp(nn));
                for c in 0..3 {
                    m.rows[n[c] as usize][l] = mul(k, nv[c][l]) - e[c][l];
                }
            }
        }
        PixelOp::DepthRatio { num, den } => {
            let (a, b) = (m.rows[num as usize], m.rows[den as usize]);
            let r: Row =
                std::array::from_fn(|l| dxso::formula::depth_ratio(&mut Scalar, a[l], b[l]));
            m.put(&mask_dst(DEPTH_ROW, 1), 0, &r);
        }
        PixelOp::Divide { dst, src, q } => {
            let v: [Row; 4] = std::array::from_fn(|c| m.load(&src, c));
            let d = v[q as usize & 3];
            let res: [Row; 4] =
                std::array::from_fn(|c| std::array::from_fn(|l| mul(v[c][l], rcp(d[l]))));
            m.store(&dst, &res);
        }
    }
}

fn stage_state(u: &Uniforms, stage: u8) -> StageState {
    u.pixel
        .and_then(|p| p.stages.get(stage as usize).copied())
        .unwrap_or_default()
}

/// Sample `N` lanes of whole quads (a batch, or a group of the compiled code's: the
/// `compile` module's `pixel_sample` callback): coordinates `c` (after the swizzle and
/// modifiers), gradients for texldd. Each lane's level of detail comes from its quad (see
/// the module docs of `pixel`); then [`sample`] adds MIPMAPLODBIAS and filters (2D textures
/// a pass at once: [`sample_2d`]). `grad`: texldd's x and y gradients. Every lane's result,
/// written to `out`, depends on its quad's lanes only, so `N` does not change any bit.
pub(crate) fn sample_rows<const N: usize>(
    stages: Option<&Stages>,
    sampler: u8,
    mode: SampleMode,
    c: &[[f32; N]; 4],
    grad: Option<&[[[f32; N]; 4]; 2]>,
    out: &mut [[f32; N]; 4],
) {
    let bound = stages.and_then(|p| {
        let tex = p.textures.get(sampler as usize)?.as_ref()?;
        Some((tex, p.samplers.get(sampler as usize).copied()?, p))
    });
    let Some((tex, st, p)) = bound else {
        for k in 0..4 {
            out[k] = [UNBOUND[k]; N];
        }
        return;
    };
    let projected = match mode {
        SampleMode::Project => Some(3),
        SampleMode::ProjectZ => Some(2),
        SampleMode::Stage if p.stages.get(sampler as usize).is_some_and(|s| s.projected) => Some(3),
        _ => None,
    };
    // The coordinates the lookup uses (projected ones divided by their q).
    let divided;
    let a = match projected {
        None => c,
        Some(q) => {
            let mut d = *c;
            for l in 0..N {
                let r = rcp(c[q][l]);
                // _dz divides x and y; texldp and _dw x, y and z.
                for k in 0..q.min(3) {
                    d[k][l] = mul(c[k][l], r);
                }
            }
            divided = d;
            &divided
        }
    };
    let lod: [f32; N] = match (mode, grad) {
        (SampleMode::Lod, _) => c[3],
        // The texel does not depend on it (nor on a NaN it could be): not computed.
        _ if !lod_matters(tex, &st) => [0.0; N],
        (SampleMode::Grad, Some([gx, gy])) => lod_from(tex, a, gx, gy, false),
        _ => {
            let dx: [[f32; N]; 4] = std::array::from_fn(|k| ddx(&a[k]));
            let dy: [[f32; N]; 4] = std::array::from_fn(|k| ddy(&a[k]));
            let mut lod = lod_from(tex, a, &dx, &dy, true);
            if mode == SampleMode::Bias {
                for l in 0..N {
                    lod[l] += c[3][l];
                }
            }
            lod
        }
    };
    if sample_2d(tex, &st, [&a[0], &a[1]], &lod, out) {
        return;
    }
    for l in 0..N {
        let v = sample(tex, &st, [a[0][l], a[1][l], a[2][l], lod[l]]);
        for k in 0..4 {
            out[k][l] = v[k];
        }
    }
}

/// log2 of the larger screen-space footprint of the texel grid: rho = max(|d/dx|, |d/dy|)
/// of the coordinates scaled by the level-0 size (u, v; w too for volumes). Cube maps use
/// the direction divided by its major axis, times half the face size. `quad`: the
/// derivatives came from the quad (cube directions are divided lane by lane first).
fn lod_from<const N: usize>(
    tex: &Texture,
    a: &[[f32; N]; 4],
    dx: &[[f32; N]; 4],
    dy: &[[f32; N]; 4],
    quad: bool,
) -> [f32; N] {
    let (w, h, d) = tex.size();
    let mut lod = [0.0; N];
    match tex.kind {
        TextureKind::Cube => {
            // Each lane's direction on the unit cube, then its quad derivatives.
            let mut n = [[0.0f32; N]; 3];
            for l in 0..N {
                let ma = a[0][l].abs().max(a[1][l].abs()).max(a[2][l].abs());
                let r = rcp(ma);
                for k in 0..3 {
                    n[k][l] = mul(a[k][l], r);
                }
            }
            let s = w as f32 * 0.5;
            let (fx, fy): ([[f32; N]; 3], [[f32; N]; 3]) = if quad {
                (
                    std::array::from_fn(|k| ddx(&n[k])),
                    std::array::from_fn(|k| ddy(&n[k])),
                )
            } else {
                // Explicit gradients of the direction, divided by each lane's major axis.
                let mut fx = [[0.0f32; N]; 3];
                let mut fy = [[0.0f32; N]; 3];
                for l in 0..N {
                    let ma = a[0][l].abs().max(a[1][l].abs()).max(a[2][l].abs());
                    let r = rcp(ma);
                    for k in 0..3 {
                        fx[k][l] = mul(dx[k][l], r);
                        fy[k][l] = mul(dy[k][l], r);
                    }
                }
                (fx, fy)
            };
            for l in 0..N {
                let len = |v: &[[f32; N]; 3]| {
                    (0..3)
                        .map(|k| {
                            let t = v[k][l] * s;
                            t * t
                        })
                        .sum::<f32>()
                        .sqrt()
                };
                lod[l] = len(&fx).max(len(&fy)).log2();
            }
        }
        kind => {
            let scale = [w as f32, h as f32, d as f32];
            let dims = if kind == TextureKind::Volume { 3 } else { 2 };
            for l in 0..N {
                let len = |v: &[[f32; N]; 4]| {
                    (0..dims)
                        .map(|k| {
                            let t = v[k][l] * scale[k];
                            t * t
                        })
                        .sum::<f32>()
                        .sqrt()
                };
                lod[l] = len(dx).max(len(dy)).log2();
            }
        }
    }
    lod
}

/// What a pixel op did, for the trace of lane `lane`.
pub(crate) fn describe(
    m: &Machine,
    op: &PixelOp,
    inst: &dxso::ir::Instruction,
    lane: usize,
) -> String {
    let vec4 = |base: u16| {
        let v: [f32; 4] = std::array::from_fn(|c| m.lane(base + c as u16, lane));
        format!("({}, {}, {}, {})", v[0], v[1], v[2], v[3])
    };
    let name = || {
        inst.dst.map_or_else(
            || "(scratch)".to_string(),
            |d| dxso::registers::register_name(d.reg.kind, d.reg.number),
        )
    };
    match op {
        PixelOp::Sample { dst, .. } | PixelOp::Divide { dst, .. } => match dst.kind {
            DstKind::Rows(row) => format!("{} = {}", name(), vec4(row)),
            _ => String::new(),
        },
        PixelOp::Luminance { dst, .. } => format!("{} = {}", name(), vec4(*dst)),
        PixelOp::DepthRatio { .. } => format!("oDepth = {}", m.lane(DEPTH_ROW, lane)),
        PixelOp::Bump { out, .. } => format!(
            "bumped coordinates ({}, {})",
            m.lane(out[0], lane),
            m.lane(out[1], lane)
        ),
        PixelOp::Reflect { n, .. } => format!(
            "reflected ({}, {}, {})",
            m.lane(n[0], lane),
            m.lane(n[1], lane),
            m.lane(n[2], lane)
        ),
    }
}
