//! `dxso demo`: a terrain grid displaced by a height map through `texldl` (vs_3_0) and lit
//! per pixel (ps_3_0), the whole draw run by dxso-draw on the CPU into a PNG.

use crate::{Failure, stdout};
use anyhow::anyhow;
use dxso::ir::Usage;
use dxso::validate::{Caps, validate};
use dxso_draw::{Clear, Draw, Frame, StateValue};
use dxso_vm::{
    DeclType, Device, Format, Frequency, PixelState, SamplerState, StreamSource, Texture,
    TextureAddress, TextureFilter, TextureKind, VertexElement,
};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

pub const SHADER: &str = include_str!("terrain.asm");
pub const PIXEL_SHADER: &str = include_str!("terrain_ps.asm");

/// Grid resolution (vertices per side) and picture size.
const GRID: usize = 256;
const TEX: usize = 256;
const WIDTH: usize = 800;
const HEIGHT: usize = 600;

fn height(u: f32, v: f32) -> f32 {
    use std::f32::consts::TAU;
    let h = 0.45
        + 0.25 * (TAU * 1.3 * u).sin() * (TAU * 0.9 * v).cos()
        + 0.10 * (TAU * 3.0 * (u + 0.4 * v)).sin();
    h.clamp(0.0, 1.0)
}

/// Row-major view-projection (clip = M · v): a perspective camera looking at the terrain.
fn view_projection() -> [[f32; 4]; 4] {
    let eye = [0.0f32, 1.7, -2.3];
    let at = [0.0f32, 0.15, 0.0];
    let sub = |a: [f32; 3], b: [f32; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let norm = |a: [f32; 3]| {
        let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        [a[0] / l, a[1] / l, a[2] / l]
    };
    let cross = |a: [f32; 3], b: [f32; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let f = norm(sub(at, eye));
    let r = norm(cross([0.0, 1.0, 0.0], f));
    let u = cross(f, r);
    let view = [
        [r[0], r[1], r[2], -dot(r, eye)],
        [u[0], u[1], u[2], -dot(u, eye)],
        [f[0], f[1], f[2], -dot(f, eye)],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let (near, far) = (0.1f32, 10.0f32);
    let fy = 1.0 / (0.5f32 * 55f32.to_radians()).tan();
    let fx = fy * HEIGHT as f32 / WIDTH as f32;
    let q = far / (far - near);
    let proj = [
        [fx, 0.0, 0.0, 0.0],
        [0.0, fy, 0.0, 0.0],
        [0.0, 0.0, q, -q * near],
        [0.0, 0.0, 1.0, 0.0],
    ];
    std::array::from_fn(|i| std::array::from_fn(|j| (0..4).map(|k| proj[i][k] * view[k][j]).sum()))
}

/// The demo's device: shader, height texture, grid, constants.
pub fn device() -> anyhow::Result<(Device, usize, Vec<u32>)> {
    let shader = dxso::text::parse(SHADER).map_err(|e| anyhow!("{}", e.render("terrain.asm")))?;
    let checked = validate(&shader, &Caps::max())
        .map_err(|d| anyhow!("terrain.asm does not validate: {d:?}"))?;
    let mut dev = Device::with_options(dxso_vm::Options::from_env());
    dev.set_vertex_shader(&checked)?;
    let texels: Vec<u8> = (0..TEX * TEX)
        .flat_map(|i| {
            height(
                (i % TEX) as f32 / (TEX - 1) as f32,
                (i / TEX) as f32 / (TEX - 1) as f32,
            )
            .to_le_bytes()
        })
        .collect();
    let tex = Texture::new(TextureKind::TwoD, Format::R32F, TEX, TEX, 1, &[texels])?;
    dev.set_texture(0, Some(Arc::new(tex)))?;
    dev.set_sampler_state(
        0,
        SamplerState {
            address_u: TextureAddress::Clamp,
            address_v: TextureAddress::Clamp,
            mag_filter: TextureFilter::Linear,
            min_filter: TextureFilter::Linear,
            ..SamplerState::default()
        },
    )?;
    let mut data = Vec::with_capacity(GRID * GRID * 6);
    for j in 0..GRID {
        for i in 0..GRID {
            let (u, v) = (i as f32 / (GRID - 1) as f32, j as f32 / (GRID - 1) as f32);
            data.extend([u * 2.0 - 1.0, 0.0, v * 2.0 - 1.0, 1.0, u, v]);
        }
    }
    let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
    dev.set_declaration(vec![
        VertexElement {
            stream: 0,
            offset: 0,
            ty: DeclType::Float4,
            method: 0,
            usage: Usage::Position,
            usage_index: 0,
        },
        VertexElement {
            stream: 0,
            offset: 16,
            ty: DeclType::Float2,
            method: 0,
            usage: Usage::TexCoord,
            usage_index: 0,
        },
    ])?;
    dev.set_stream(
        0,
        Some(StreamSource {
            data: bytes.into(),
            offset: 0,
            stride: 24,
            frequency: Frequency::Vertex,
        }),
    )?;
    let step = 1.0 / TEX as f32;
    let scale = 0.4f32;
    dev.set_constant_f(0, &view_projection())?;
    dev.set_constant_f(
        4,
        &[
            [scale, step, scale / (2.0 * step), 0.0],
            {
                let l = [0.5f32, 0.8, -0.35];
                let n = (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]).sqrt();
                [l[0] / n, l[1] / n, l[2] / n, 0.0]
            },
            [0.16, 0.42, 0.18, 1.0],
            [0.92, 0.88, 0.80, 1.0],
        ],
    )?;
    dev.set_constant_f(9, &[[0.08, 0.09, 0.12, 0.0]])?;
    let mut indices = Vec::with_capacity((GRID - 1) * (GRID - 1) * 6);
    for j in 0..GRID - 1 {
        for i in 0..GRID - 1 {
            let k = (j * GRID + i) as u32;
            let g = GRID as u32;
            indices.extend([k, k + g, k + 1, k + 1, k + g, k + g + 1]);
        }
    }
    Ok((dev, GRID * GRID, indices))
}

/// The ground texture: a 64x64 pattern of grass-like noise with its mip chain (A8R8G8B8).
fn ground() -> anyhow::Result<Texture> {
    let mut levels = Vec::new();
    let mut size = 64usize;
    let mut texels: Vec<[f32; 3]> = (0..size * size)
        .map(|i| {
            let (x, y) = ((i % size) as u32, (i / size) as u32);
            // A small integer hash: deterministic noise.
            let mut h = x.wrapping_mul(374_761_393) ^ y.wrapping_mul(668_265_263);
            h = (h ^ (h >> 13)).wrapping_mul(1_274_126_177);
            let n = (h >> 24) as f32 / 255.0;
            let stripe = ((x as f32 * 0.7 + y as f32 * 0.3).sin() * 0.5 + 0.5) * 0.15;
            let k = 0.75 + 0.25 * n - stripe;
            [k, k * 0.97, k * 0.9]
        })
        .collect();
    loop {
        levels.push(
            texels
                .iter()
                .flat_map(|t| {
                    let b = |x: f32| (x.clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
                    [b(t[2]), b(t[1]), b(t[0]), 255]
                })
                .collect::<Vec<u8>>(),
        );
        if size == 1 {
            break;
        }
        let half = size / 2;
        texels = (0..half * half)
            .map(|i| {
                let (x, y) = (i % half * 2, i / half * 2);
                let at = |dx: usize, dy: usize| texels[(y + dy) * size + x + dx];
                std::array::from_fn(|c| {
                    (at(0, 0)[c] + at(1, 0)[c] + at(0, 1)[c] + at(1, 1)[c]) / 4.0
                })
            })
            .collect();
        size = half;
    }
    Ok(Texture::new(
        TextureKind::TwoD,
        Format::A8R8G8B8,
        64,
        64,
        1,
        &levels,
    )?)
}

/// The demo's draw: the terrain's vertex stage and its pixel shader, two-sided.
pub fn draw() -> anyhow::Result<(Draw, Frame)> {
    let (mut dev, _, indices) = device()?;
    let count = indices.len();
    dev.set_indices(Some(indices));
    let ps =
        dxso::text::parse(PIXEL_SHADER).map_err(|e| anyhow!("{}", e.render("terrain_ps.asm")))?;
    let ps = validate(&ps, &Caps::max())
        .map_err(|d| anyhow!("terrain_ps.asm does not validate: {d:?}"))?;
    let mut pixel = PixelState::new(&ps)?;
    pixel.set_texture(0, Some(Arc::new(ground()?)))?;
    pixel.set_sampler_state(
        0,
        SamplerState {
            mag_filter: TextureFilter::Linear,
            min_filter: TextureFilter::Linear,
            mip_filter: TextureFilter::Linear,
            ..SamplerState::default()
        },
    )?;
    for c in [5, 6, 7, 9] {
        if let Some(v) = dev.constant_f(c) {
            pixel.set_constant_f(c, &[v])?;
        }
    }
    let mut d = Draw::new(dev, count, true);
    d.pixel = Some(pixel);
    d.states.set("CULLMODE", &StateValue::Name("NONE".into()))?;
    let frame = Frame {
        width: WIDTH as u32,
        height: HEIGHT as u32,
        clear: Clear {
            color: dxso_draw::d3dcolor(0xff18_1a22),
            ..Clear::default()
        },
        ..Frame::default()
    };
    Ok((d, frame))
}

pub fn demo(out: &Path) -> Result<(), Failure> {
    let (d, frame) = draw().map_err(Failure::Io)?;
    // The vertex stage alone: warm up once, then the best of 5 draws.
    let n = d.vertex_count;
    d.vertex.draw(n, 1).map_err(|e| Failure::Io(e.into()))?;
    let mut vertex_s = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        d.vertex.draw(n, 1).map_err(|e| Failure::Io(e.into()))?;
        vertex_s = vertex_s.min(t.elapsed().as_secs_f64());
    }
    let t = Instant::now();
    let surfaces = dxso_draw::draw_frame(&frame, std::slice::from_ref(&d))
        .map_err(|e| Failure::Io(e.into()))?;
    let frame_s = t.elapsed().as_secs_f64();
    let rgba = surfaces
        .rgba8(0)
        .ok_or_else(|| Failure::Io(anyhow!("no target")))?;
    crate::raster::write_png(out, WIDTH, HEIGHT, &rgba).map_err(Failure::Io)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let lines = |s: &str| {
        s.lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .count()
    };
    stdout(&format!(
        "dxso demo: a {GRID}x{GRID} terrain grid displaced by a {TEX}x{TEX} height map (vs_3_0 texldl, three taps\n\
         per vertex for the normal), lit per pixel by a ps_3_0 (a mip-mapped texture, two-sided through vFace),\n\
         the whole draw run on the CPU by dxso: vertex stage, clipping, rasterization, pixel shader, depth test.\n\
         \n  shaders     built-in terrain.asm + terrain_ps.asm ({} + {} lines)\n  vertices    {n} per draw (indexed), best of 5: {:.2} ms ({:.1} M vertices/s, {threads} threads)\n  picture     {} ({WIDTH}x{HEIGHT}, the whole frame drawn in {:.0} ms)\n",
        lines(SHADER),
        lines(PIXEL_SHADER),
        vertex_s * 1e3,
        n as f64 / vertex_s / 1e6,
        out.display(),
        frame_s * 1e3,
    ))
}
