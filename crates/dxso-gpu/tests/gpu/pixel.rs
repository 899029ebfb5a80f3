//! Pixel shaders (ps_2_0 .. ps_3_0) rendered over a full-screen triangle with
//! [`dxso_gpu::Gpu::render`] and read back, against pixels computed by hand from the
//! formulas of `../shared/spec/instructions.md`.

use dxso_gpu::{Frame, Gpu, Image, Varying};
use dxso_naga::FloatMode;

/// `src` assembled and validated (maximum caps).
pub fn checked(src: &str) -> dxso::validate::Checked {
    let shader = dxso::text::parse(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    dxso::validate::validate(&shader, &dxso::validate::Caps::max())
        .unwrap_or_else(|d| panic!("{src}\n{d:?}"))
}

/// Render `src` over `frame`.
pub fn render(gpu: &Gpu, src: &str, frame: &Frame) -> Image {
    gpu.render(&checked(src), frame)
        .unwrap_or_else(|e| panic!("{src}\n{e}"))
}

/// The centre of pixel `i` along an axis of `n` pixels, scaled to [0, 1].
pub fn centre(i: u32, n: u32) -> f32 {
    (i as f32 + 0.5) / n as f32
}

/// `semantic` = (x / w, y / h, 0, 1): pixel (i, j) reads ((i + 0.5) / w, (j + 0.5) / h).
pub fn uv(semantic: &str, w: u32, h: u32) -> Varying {
    Varying {
        semantic: semantic.into(),
        origin: [0.0, 0.0, 0.0, 1.0],
        dx: [1.0 / w as f32, 0.0, 0.0, 0.0],
        dy: [0.0, 1.0 / h as f32, 0.0, 0.0],
    }
}

/// Every pixel of `register` against `want(i, j)`, exactly.
pub fn each(image: &Image, register: &str, what: &str, want: impl Fn(u32, u32) -> [f32; 4]) {
    for j in 0..image.height {
        for i in 0..image.width {
            let got = image.pixel(register, i, j).expect("pixel");
            let w = want(i, j);
            assert_eq!(
                got.map(f32::to_bits),
                w.map(f32::to_bits),
                "{what}: {register} pixel ({i}, {j}): got {got:?}, want {w:?}"
            );
        }
    }
}

#[test]
fn smoke() {
    let Some(gpu) = crate::gpu() else { return };
    let mut frame = Frame::new(8, 8);
    frame.varyings.push(uv("TEXCOORD0", 8, 8));
    let img = render(&gpu, "ps_2_0\ndcl t0\nmov oC0, t0\n", &frame);
    each(&img, "oC0", "mov", |i, j| {
        [centre(i, 8), centre(j, 8), 0.0, 1.0]
    });
    let _ = FloatMode::Strict;
}
