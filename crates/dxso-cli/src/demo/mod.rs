//! `dxso demo`: a terrain grid displaced by a height map through `texldl` and lit per vertex,
//! run by the real executor, drawn into a PNG by the small rasteriser.

use crate::raster::Image;
use crate::{Failure, stdout};
use anyhow::anyhow;
use dxso::ir::Usage;
use dxso::validate::{Caps, validate};
use dxso_vm::{
    DeclType, Device, Format, Frequency, SamplerState, StreamSource, Texture, TextureAddress,
    TextureFilter, TextureKind, VertexElement,
};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

pub const SHADER: &str = include_str!("terrain.asm");

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
    let mut dev = Device::new();
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

pub fn demo(out: &Path) -> Result<(), Failure> {
    let (dev, n, indices) = device().map_err(Failure::Io)?;
    // Warm up once, then time a few draws.
    dev.draw(n, 1).map_err(|e| Failure::Io(e.into()))?;
    let mut best = f64::MAX;
    let mut outputs = None;
    for _ in 0..5 {
        let t = Instant::now();
        let o = dev.draw(n, 1).map_err(|e| Failure::Io(e.into()))?;
        best = best.min(t.elapsed().as_secs_f64());
        outputs = Some(o);
    }
    let outputs = outputs.expect("drawn");
    let verts = crate::raster::vertices(&outputs).map_err(Failure::Io)?;
    let t = Instant::now();
    let mut img = Image::new(WIDTH, HEIGHT, [24, 26, 34, 255]);
    let tris = img.draw(&verts, Some(&indices));
    let raster_s = t.elapsed().as_secs_f64();
    img.write_png(out).map_err(Failure::Io)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    stdout(&format!(
        "dxso demo: a {GRID}x{GRID} terrain grid displaced by a {TEX}x{TEX} height map (vs_3_0 texldl, three taps\n\
         per vertex for the normal) and lit per vertex, run on the CPU by dxso's executor.\n\
         \n  shader      built-in terrain.asm ({} instructions)\n  vertices    {n} per draw, best of 5 draws: {:.2} ms ({:.1} M vertices/s, {threads} threads)\n  picture     {} ({WIDTH}x{HEIGHT}, {tris} triangles, rasterised in {:.0} ms)\n",
        dxso::text::parse(SHADER)
            .map(|s| s.instructions.len())
            .unwrap_or(0),
        best * 1e3,
        n as f64 / best / 1e6,
        out.display(),
        raster_s * 1e3,
    ))
}
