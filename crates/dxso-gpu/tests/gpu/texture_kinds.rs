//! Vertex texture kinds through [`dxso_gpu::Gpu::draw`] (`texldl`) against dxso-vm: cube
//! and volume textures with point sampling of texel centres (bit for bit), and linear
//! filtering of 2d, cube and volume textures within a measured tolerance.
//!
//! The tolerance of linear filtering: on lavapipe (a CPU adapter) the largest difference
//! measured is 1.2e-7 (one unit in the last place near 1) in all three kinds — llvmpipe
//! filters 32-bit float textures with float weights, so only the order of rounding differs
//! — and the test holds it to [`CPU_TOLERANCE`]. Hardware commonly quantises the sub-texel
//! weights (8 fractional bits is usual), which moves a blend of texels in [0, 1] by up to
//! about 1/256 per axis; on other adapters the bound is [`GPU_TOLERANCE`] (not measured
//! here: this machine has no GPU).

use crate::instructions::{device, register};
use dxso_vm::{Format, SamplerState, Texture, TextureAddress, TextureFilter, TextureKind};

const CPU_TOLERANCE: f32 = 1e-6;
const GPU_TOLERANCE: f32 = 1.0 / 128.0;

/// A shader that samples `s0` of `kind` at each vertex's v0 (w: level of detail).
fn shader(kind: &str) -> String {
    format!(
        "vs_3_0\ndcl_texcoord0 v0\ndcl_{kind} s0\ndcl_position o0\ndcl_texcoord0 o1\n\
         mov o0, v0\ntexldl o1, v0, s0\n"
    )
}

/// A texture of `kind`, `n` texels each way (6 faces for a cube), level 0 only, texel k
/// (in memory order) from `texel(k)`.
fn make(kind: TextureKind, n: usize, texel: impl Fn(usize) -> [f32; 4]) -> Texture {
    let count = match kind {
        TextureKind::TwoD => n * n,
        TextureKind::Cube => 6 * n * n,
        TextureKind::Volume => n * n * n,
    };
    let bytes: Vec<u8> = (0..count)
        .flat_map(&texel)
        .flat_map(f32::to_le_bytes)
        .collect();
    let depth = if kind == TextureKind::Volume { n } else { 1 };
    Texture::new(kind, Format::A32B32G32R32F, n, n, depth, &[bytes]).expect("texture")
}

/// The texldl results of the GPU and of dxso-vm for `coords`.
fn both(
    gpu: &dxso_gpu::Gpu,
    kind: &str,
    texture: Texture,
    state: SamplerState,
    coords: &[[f32; 4]],
) -> (Vec<[f32; 4]>, Vec<[f32; 4]>) {
    let mut dev = device(&shader(kind), &[], coords);
    dev.set_texture(0, Some(texture.into())).unwrap();
    dev.set_sampler_state(0, state).unwrap();
    let g = gpu
        .draw(&dev, coords.len(), 1)
        .unwrap_or_else(|e| panic!("{e}"));
    let c = dev.draw(coords.len(), 1).unwrap();
    (register(&g, 1), register(&c, 1))
}

/// A small deterministic generator of values in [0, 1).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Texel k: four distinct values per texel, all different between texels.
fn distinct(k: usize) -> [f32; 4] {
    let k = k as f32;
    [k, k + 0.25, -k, 1.0 + k * 0.5]
}

/// Directions towards the centre of every texel of every face of a 2x2 cube: the major
/// axis ±1, the other two ±0.5 (a quarter in from the face's edge).
fn cube_centres() -> Vec<[f32; 4]> {
    let mut out = Vec::new();
    for axis in 0..3 {
        for major in [1.0f32, -1.0] {
            for a in [-0.5f32, 0.5] {
                for b in [-0.5f32, 0.5] {
                    let mut d = [0.0; 4];
                    d[axis] = major;
                    d[(axis + 1) % 3] = a;
                    d[(axis + 2) % 3] = b;
                    out.push(d);
                }
            }
        }
    }
    out
}

#[test]
fn cube_point_sampling_reads_every_face_texel_as_dxso_vm() {
    let Some(gpu) = crate::gpu() else { return };
    let coords = cube_centres();
    let (g, c) = both(
        &gpu,
        "cube",
        make(TextureKind::Cube, 2, distinct),
        SamplerState::default(),
        &coords,
    );
    assert_eq!(g, c);
    // Every one of the 24 texels is read once.
    let mut seen: Vec<u32> = g.iter().map(|t| t[0] as u32).collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..24).collect::<Vec<_>>());
    // +X face (face 0): u = -z, v = -y. Direction (1, -0.5, 0.5): u = 0.25, v = 0.75,
    // texel (0, 1) of face 0 = texel 2.
    let k = coords
        .iter()
        .position(|d| *d == [1.0, -0.5, 0.5, 0.0])
        .expect("direction");
    assert_eq!(g[k], distinct(2));
}

#[test]
fn volume_point_sampling_reads_every_texel_as_dxso_vm() {
    let Some(gpu) = crate::gpu() else { return };
    let mut coords = Vec::new();
    for z in [0.25f32, 0.75] {
        for y in [0.25f32, 0.75] {
            for x in [0.25f32, 0.75] {
                coords.push([x, y, z, 0.0]);
            }
        }
    }
    let (g, c) = both(
        &gpu,
        "volume",
        make(TextureKind::Volume, 2, distinct),
        SamplerState::default(),
        &coords,
    );
    assert_eq!(g, c);
    // Texel (x, y, z) of a 2x2x2 volume is texel x + 2y + 4z in memory.
    let want: Vec<[f32; 4]> = (0..8).map(distinct).collect();
    assert_eq!(g, want);
}

fn linear(address: TextureAddress) -> SamplerState {
    SamplerState {
        address_u: address,
        address_v: address,
        address_w: address,
        mag_filter: TextureFilter::Linear,
        min_filter: TextureFilter::Linear,
        ..SamplerState::default()
    }
}

/// The largest difference between GPU and CPU; fails past the adapter's tolerance.
fn within(gpu: &dxso_gpu::Gpu, what: &str, g: &[[f32; 4]], c: &[[f32; 4]]) -> f32 {
    let tolerance = if gpu.is_cpu() {
        CPU_TOLERANCE
    } else {
        GPU_TOLERANCE
    };
    let mut worst = 0.0f32;
    for (a, b) in g.iter().zip(c) {
        for k in 0..4 {
            worst = worst.max((a[k] - b[k]).abs());
        }
    }
    eprintln!(
        "{what}: largest GPU - CPU difference {worst:e} over {} lookups",
        g.len()
    );
    assert!(worst <= tolerance, "{what}: {worst} > {tolerance}");
    worst
}

#[test]
fn linear_filtering_of_2d_cube_and_volume_is_within_tolerance() {
    let Some(gpu) = crate::gpu() else { return };
    let mut rng = Lcg(7);
    let mut texels = |n: usize| -> Vec<[f32; 4]> {
        (0..n)
            .map(|_| [rng.next(), rng.next(), rng.next(), rng.next()])
            .collect()
    };
    let t2 = texels(16);
    let tc = texels(6 * 16);
    let tv = texels(64);
    let mut rng = Lcg(11);
    let mut coord = |lo: f32, hi: f32| lo + (hi - lo) * rng.next();

    // 2d, WRAP: anywhere, also outside [0, 1].
    let coords: Vec<[f32; 4]> = (0..256)
        .map(|_| [coord(-1.5, 2.5), coord(-1.5, 2.5), 0.0, 0.0])
        .collect();
    let (g, c) = both(
        &gpu,
        "2d",
        make(TextureKind::TwoD, 4, |k| t2[k]),
        linear(TextureAddress::Wrap),
        &coords,
    );
    let d2 = within(&gpu, "2d linear", &g, &c);
    // Not point sampling: most lookups are blends no texel equals.
    let blends = g.iter().filter(|v| !t2.contains(v)).count();
    assert!(blends > 200, "{blends} blended lookups of 256");

    // Volume, CLAMP.
    let coords: Vec<[f32; 4]> = (0..256)
        .map(|_| [coord(-0.2, 1.2), coord(-0.2, 1.2), coord(-0.2, 1.2), 0.0])
        .collect();
    let (g, c) = both(
        &gpu,
        "volume",
        make(TextureKind::Volume, 4, |k| tv[k]),
        linear(TextureAddress::Clamp),
        &coords,
    );
    let dv = within(&gpu, "volume linear", &g, &c);

    // Cube: within the inner half of each face (u, v in [0.375, 0.625] of a 4x4 face
    // blends its four middle texels only; D3D9 filters each face alone, Vulkan across
    // edges, so lookups near an edge are not compared).
    let coords: Vec<[f32; 4]> = cube_centres()
        .iter()
        .flat_map(|d| {
            let axis = d.iter().position(|x| x.abs() == 1.0).expect("major axis");
            let mut out = Vec::new();
            for _ in 0..8 {
                let mut e = *d;
                e[(axis + 1) % 3] = coord(-0.25, 0.25);
                e[(axis + 2) % 3] = coord(-0.25, 0.25);
                out.push(e);
            }
            out
        })
        .collect();
    let (g, c) = both(
        &gpu,
        "cube",
        make(TextureKind::Cube, 4, |k| tc[k]),
        linear(TextureAddress::Clamp),
        &coords,
    );
    let dc = within(&gpu, "cube linear", &g, &c);
    eprintln!("linear filtering, largest differences: 2d {d2:e}, volume {dv:e}, cube {dc:e}");
}

/// A texture of another kind than the sampler declares is refused, not uploaded wrongly.
#[test]
fn a_texture_of_the_wrong_kind_is_an_error() {
    let Some(gpu) = crate::gpu() else { return };
    let mut dev = device(&shader("cube"), &[], &[[1.0, 0.0, 0.0, 0.0]]);
    dev.set_texture(0, Some(make(TextureKind::TwoD, 2, distinct).into()))
        .unwrap();
    let e = gpu
        .draw(&dev, 1, 1)
        .expect_err("a 2d texture on a cube sampler");
    assert!(
        matches!(
            e,
            dxso_gpu::Error::Unsupported {
                sampler: 0,
                what: dxso_gpu::SamplerUnsupported::TextureKind {
                    texture: TextureKind::TwoD,
                    sampler: TextureKind::Cube
                }
            }
        ),
        "{e}"
    );
}

/// What a sampler cannot do on the GPU path is typed, with the message every face prints
/// (no GPU needed).
#[test]
fn unsupported_sampler_states_say_what_and_which_sampler() {
    use dxso_gpu::{Error, SamplerUnsupported as S};
    let said = |sampler: u32, what: S| Error::Unsupported { sampler, what }.to_string();
    assert_eq!(
        said(3, S::LodBias(-0.5)),
        "s3: MIPMAPLODBIAS -0.5 is not supported on the GPU path"
    );
    assert_eq!(
        said(0, S::BorderColour(0x8000_00ff)),
        "s0: BORDERCOLOR 0x800000ff (0x00000000, 0xff000000 and 0xffffffff are) is not \
         supported on the GPU path"
    );
    assert_eq!(
        said(
            1,
            S::TextureKind {
                texture: TextureKind::TwoD,
                sampler: TextureKind::Cube
            }
        ),
        "s1: a TwoD texture on a Cube sampler is not supported on the GPU path"
    );
    assert_eq!(
        said(2, S::MirrorOnce),
        "s2: MIRRORONCE addressing is not supported on the GPU path"
    );
    assert_eq!(
        said(2, S::BorderAddressing),
        "s2: BORDER addressing on this adapter is not supported on the GPU path"
    );
    assert_eq!(
        said(2, S::FloatFiltering),
        "s2: linear filtering of float textures on this adapter is not supported on the GPU \
         path"
    );
}
