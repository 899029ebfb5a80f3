//! The built-in benchmark workloads W1 (transform), W2 (skinning), W3 (lighting loop): the
//! shaders of `../shared/bench`, with vertex data laid out as `make_scenes.py` lays it out
//! (FLOAT4 elements, interleaved, one stream), drawn from a small deterministic generator
//! instead of numpy's. Test and bench data, not engine API (hidden from the docs).

use crate::{DeclType, Device, Frequency, StreamSource, VertexElement, VmError};
use dxso::ir::Usage;
use dxso::validate::{Caps, validate};

pub const W1: &str = include_str!("workloads/w1_transform.asm");
pub const W2: &str = include_str!("workloads/w2_skinning.asm");
pub const W3: &str = include_str!("workloads/w3_lighting.asm");

/// xorshift32: deterministic, no dependency.
struct Rng(u32);
impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        (self.0 >> 8) as f32 / (1u32 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
    /// A position in the cube [-10, 10]^3 with w = 1.
    fn position(&mut self) -> [f32; 4] {
        [
            self.range(-10.0, 10.0),
            self.range(-10.0, 10.0),
            self.range(-10.0, 10.0),
            1.0,
        ]
    }
    /// A unit normal with w = 0.
    fn normal(&mut self) -> [f32; 4] {
        let n = self.unit3();
        [n[0], n[1], n[2], 0.0]
    }
    fn unit3(&mut self) -> [f32; 3] {
        loop {
            let v = [
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            ];
            let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            if l > 0.1 && l <= 1.0 {
                return v.map(|x| x / l);
            }
        }
    }
}

/// c0..c3: a perspective-like projection times a rotation about y (as make_scenes.py).
fn matrix() -> [[f32; 4]; 4] {
    let (s, c) = 0.3f32.sin_cos();
    let rot = [
        [c, 0.0, s, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [-s, 0.0, c, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let proj = [
        [1.2, 0.0, 0.0, 0.0],
        [0.0, 1.6, 0.0, 0.0],
        [0.0, 0.0, 1.001, -0.1],
        [0.0, 0.0, 1.0, 0.0],
    ];
    std::array::from_fn(|i| std::array::from_fn(|j| (0..4).map(|k| proj[i][k] * rot[k][j]).sum()))
}

fn device(src: &str, usages: &[Usage], data: Vec<f32>) -> Result<Device, VmError> {
    let shader = dxso::text::parse(src).expect("the built-in workloads assemble");
    let checked = validate(&shader, &Caps::max()).expect("the built-in workloads validate");
    let mut dev = Device::new();
    dev.set_vertex_shader(&checked)?;
    let decl = usages
        .iter()
        .enumerate()
        .map(|(k, &usage)| VertexElement {
            stream: 0,
            offset: 16 * k as u16,
            ty: DeclType::Float4,
            method: 0,
            usage,
            usage_index: 0,
        })
        .collect();
    dev.set_declaration(decl)?;
    let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
    dev.set_stream(
        0,
        Some(StreamSource {
            data: bytes.into(),
            offset: 0,
            stride: 16 * usages.len(),
            frequency: Frequency::Vertex,
        }),
    )?;
    dev.set_constant_f(0, &matrix())?;
    Ok(dev)
}

/// A built-in workload: its name and a device ready to draw `vertices` vertices.
pub struct Workload {
    pub name: &'static str,
    pub device: Device,
    pub vertices: usize,
}

/// The three workloads with `n` vertices each.
pub fn builtin(n: usize) -> Result<Vec<Workload>, VmError> {
    let mut rng = Rng(1234);
    let mut out = Vec::new();

    let mut d = Vec::with_capacity(n * 8);
    for _ in 0..n {
        d.extend(rng.position());
        d.extend([rng.next(), rng.next(), rng.next(), rng.next()]);
    }
    out.push(Workload {
        name: "W1 transform",
        device: device(W1, &[Usage::Position, Usage::Color], d)?,
        vertices: n,
    });

    let mut d = Vec::with_capacity(n * 20);
    for _ in 0..n {
        d.extend(rng.position());
        d.extend(rng.normal());
        d.extend(std::array::from_fn::<f32, 4, _>(|_| {
            (rng.next() * 64.0).floor().min(63.0)
        }));
        let w: [f32; 4] = std::array::from_fn(|_| rng.range(0.05, 1.0));
        let sum: f32 = w.iter().sum();
        d.extend(w.map(|x| x / sum));
        d.extend([rng.next(), rng.next(), 0.0, 0.0]);
    }
    let mut dev = device(
        W2,
        &[
            Usage::Position,
            Usage::Normal,
            Usage::BlendIndices,
            Usage::BlendWeight,
            Usage::TexCoord,
        ],
        d,
    )?;
    for b in 0..64u32 {
        // A rotation about a random axis (Rodrigues) plus a translation, as three rows.
        let ax = rng.unit3();
        let t = rng.range(0.0, std::f32::consts::PI);
        let (s, c) = t.sin_cos();
        let k = [
            [0.0, -ax[2], ax[1]],
            [ax[2], 0.0, -ax[0]],
            [-ax[1], ax[0], 0.0],
        ];
        let rows: Vec<[f32; 4]> = (0..3)
            .map(|i| {
                let mut r = [0.0f32; 4];
                for j in 0..3 {
                    let kk: f32 = (0..3).map(|m| k[i][m] * k[m][j]).sum();
                    r[j] = if i == j { 1.0 } else { 0.0 } + s * k[i][j] + (1.0 - c) * kk;
                }
                r[3] = rng.range(-1.0, 1.0);
                r
            })
            .collect();
        dev.set_constant_f(4 + 3 * b, &rows)?;
    }
    out.push(Workload {
        name: "W2 skinning",
        device: dev,
        vertices: n,
    });

    let mut d = Vec::with_capacity(n * 8);
    for _ in 0..n {
        d.extend(rng.position());
        d.extend(rng.normal());
    }
    let mut dev = device(W3, &[Usage::Position, Usage::Normal], d)?;
    dev.set_constant_f(
        4,
        &[
            [0.0, 2.0, -20.0, 1.0],
            [0.8, 0.7, 0.6, 1.0],
            [0.5, 0.5, 0.5, 16.0],
            [0.05, 0.05, 0.05, 0.0],
        ],
    )?;
    for l in 0..8u32 {
        let p = [
            rng.range(-15.0, 15.0),
            rng.range(-15.0, 15.0),
            rng.range(-15.0, 15.0),
            0.01,
        ];
        let col = [
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
            1.0,
        ];
        dev.set_constant_f(8 + 2 * l, &[p, col])?;
    }
    dev.set_constant_i(0, &[[8, 0, 2, 0]])?;
    out.push(Workload {
        name: "W3 lighting",
        device: dev,
        vertices: n,
    });
    Ok(out)
}

/// Bind inputs and constants for whatever vertex shader `dev` has, as the corpus tests do
/// (dxso-vm's, comparing its ways; dxso-gpu's, comparing the GPU with dxso-vm): one stream
/// of `n` vertices with a FLOAT4 element per input the program reads (in its order),
/// pseudo-random values in [-1, 1] from one xorshift32 sequence that goes on to fill
/// `c0..c{float_constants - 1}`; i# = (4, 0, 1, 0) and b# alternating true/false.
pub fn synthesize(dev: &mut Device, n: usize, float_constants: usize) -> Result<(), VmError> {
    let inputs = dev.program().ok_or(VmError::NoShader)?.inputs.clone();
    let stride = 16 * inputs.len().max(1);
    let decl = inputs
        .iter()
        .enumerate()
        .map(|(k, &(_, usage, usage_index))| VertexElement {
            stream: 0,
            offset: 16 * k as u16,
            ty: DeclType::Float4,
            method: 0,
            usage,
            usage_index,
        })
        .collect();
    dev.set_declaration(decl)?;
    let mut seed = 0x1234_5678u32;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed as f32 / u32::MAX as f32) * 2.0 - 1.0
    };
    let data: Vec<u8> = (0..n * stride / 4)
        .flat_map(|_| rnd().to_le_bytes())
        .collect();
    dev.set_stream(
        0,
        Some(StreamSource {
            data: data.into(),
            offset: 0,
            stride,
            frequency: Frequency::Vertex,
        }),
    )?;
    let consts: Vec<[f32; 4]> = (0..float_constants)
        .map(|_| [rnd(), rnd(), rnd(), rnd()])
        .collect();
    dev.set_constant_f(0, &consts)?;
    dev.set_constant_i(0, &[[4, 0, 1, 0]; 16])?;
    let bools: Vec<bool> = (0..16).map(|k| k % 2 == 0).collect();
    dev.set_constant_b(0, &bools)
}
