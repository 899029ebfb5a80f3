//! A real `@vertex` render: a translated vertex shader's `vs_main` draws triangles
//! ([`dxso_gpu::Gpu::render_draw`], vertex buffers laid out by the Interface) with a pixel
//! shader that outputs the interpolated colour; the coverage and colours are checked
//! against dxso-vm's outputs for the same vertices.

use crate::pixel::checked;
use dxso::ir::Usage;
use dxso_gpu::Frame;
use dxso_naga::FloatMode;
use dxso_vm::{DeclType, Device, Frequency, StreamSource, VertexElement};

const W: u32 = 16;
const H: u32 = 16;

/// vs_3_0: position through a matrix (c0..c3), colour scaled by c4.
const VS: &str = "vs_3_0\ndcl_position v0\ndcl_color0 v1\ndcl_position o0\ndcl_color0 o1\n\
                  m4x4 o0, v0, c0\nmul o1, v1, c4\n";
const PS: &str = "ps_3_0\ndcl_color0 v0\nmov oC0, v0\n";

/// Three triangles (position, colour): a large one with a colour per corner; one with
/// w = 2 (its positions doubled, the same place after the divide) over it; and one wound
/// counter-clockwise (nothing is culled).
fn vertices() -> Vec<[[f32; 4]; 2]> {
    vec![
        [[-0.9, 0.9, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0]],
        [[0.9, 0.7, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0]],
        [[-0.6, -0.9, 0.5, 1.0], [0.0, 0.0, 1.0, 1.0]],
        [[-0.2, 0.6, 0.5, 2.0], [0.5, 0.5, 0.5, 1.0]],
        [[1.0, 0.2, 0.5, 2.0], [0.5, 0.5, 0.5, 1.0]],
        [[-0.4, -0.4, 0.5, 2.0], [0.5, 0.5, 0.5, 1.0]],
        [[0.3, -0.3, 0.5, 1.0], [1.0, 1.0, 0.0, 1.0]],
        [[0.35, -0.95, 0.5, 1.0], [0.0, 1.0, 1.0, 1.0]],
        [[0.95, -0.5, 0.5, 1.0], [1.0, 0.0, 1.0, 1.0]],
    ]
}

fn device() -> Device {
    let mut dev = Device::new();
    dev.set_vertex_shader(&checked(VS)).unwrap();
    let element = |offset, usage| VertexElement {
        stream: 0,
        offset,
        ty: DeclType::Float4,
        method: 0,
        usage,
        usage_index: 0,
    };
    dev.set_declaration(vec![element(0, Usage::Position), element(16, Usage::Color)])
        .unwrap();
    let data: Vec<u8> = vertices()
        .iter()
        .flatten()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    dev.set_stream(
        0,
        Some(StreamSource {
            data: data.into(),
            offset: 0,
            stride: 32,
            frequency: Frequency::Vertex,
        }),
    )
    .unwrap();
    // x' = 0.75 x + 0.125 w, y' = y, z' = z, w' = w; colours times (1, 0.5, 1, 1).
    let m = [
        [0.75, 0.0, 0.0, 0.125],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    dev.set_constant_f(0, &m).unwrap();
    dev.set_constant_f(4, &[[1.0, 0.5, 1.0, 1.0]]).unwrap();
    dev
}

/// Twice the signed area of (a, b, p).
fn edge(a: [f32; 2], b: [f32; 2], p: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

#[test]
fn vs_main_draws_what_dxso_vm_computes() {
    let Some(gpu) = crate::gpu() else { return };
    let dev = device();
    let n = vertices().len();
    let cpu = dev.draw(n, 1).unwrap();
    let reg = |name: &str| {
        cpu.registers
            .iter()
            .position(|r| r.name == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let (pos, col) = (reg("o0"), reg("o1"));
    // Each vertex in target pixels (D3D9's viewport: y down) and its colour.
    let screen: Vec<([f32; 2], [f32; 4])> = (0..n)
        .map(|v| {
            let r = cpu.vertex(v);
            let p = &r[pos * 4..pos * 4 + 4];
            let (x, y) = (p[0] / p[3], p[1] / p[3]);
            let at = [(x + 1.0) / 2.0 * W as f32, (1.0 - y) / 2.0 * H as f32];
            (at, r[col * 4..col * 4 + 4].try_into().unwrap())
        })
        .collect();
    let clear = [0.25, 0.25, 0.25, 0.0];
    for mode in [FloatMode::Strict, FloatMode::Ieee] {
        let mut frame = Frame::new(W, H);
        frame.float = mode;
        frame.clear = clear;
        let img = gpu
            .render_draw(&dev, n, &checked(PS), &frame)
            .unwrap_or_else(|e| panic!("{e}"));
        let (mut covered, mut checked_pixels) = (0, 0);
        for j in 0..H {
            for i in 0..W {
                let p = [i as f32 + 0.5, j as f32 + 0.5];
                // The last triangle covering the centre wins; centres within a hundredth
                // of a pixel of an edge are left out (the rasteriser's tie rule).
                let mut want = Some(clear);
                for t in screen.chunks_exact(3) {
                    let (a, b, c) = (t[0].0, t[1].0, t[2].0);
                    let area = edge(a, b, c);
                    let w = [
                        edge(b, c, p) / area,
                        edge(c, a, p) / area,
                        edge(a, b, p) / area,
                    ];
                    let len = |u: [f32; 2], v: [f32; 2]| {
                        ((u[0] - v[0]).powi(2) + (u[1] - v[1]).powi(2)).sqrt()
                    };
                    let dist = [
                        edge(b, c, p).abs() / len(b, c),
                        edge(c, a, p).abs() / len(c, a),
                        edge(a, b, p).abs() / len(a, b),
                    ];
                    if dist.iter().any(|d| *d < 0.01) {
                        want = None;
                    } else if w.iter().all(|x| *x > 0.0) {
                        // Screen-space weights: w is the same at each corner of a triangle.
                        want = Some(std::array::from_fn(|k| {
                            w[0] * t[0].1[k] + w[1] * t[1].1[k] + w[2] * t[2].1[k]
                        }));
                    }
                }
                let Some(want) = want else { continue };
                checked_pixels += 1;
                if want != clear {
                    covered += 1;
                }
                let got = img.pixel("oC0", i, j).expect("oC0");
                for k in 0..4 {
                    assert!(
                        (got[k] - want[k]).abs() <= 1e-5,
                        "{mode:?} pixel ({i}, {j}): got {got:?}, want {want:?}"
                    );
                }
            }
        }
        assert!(checked_pixels > 240, "{checked_pixels} pixels checked");
        assert!(
            covered > 60 && covered < checked_pixels,
            "{covered} covered"
        );
    }
}
