//! The differential executor: a validated vertex shader runs in every way the engine can
//! run it, over inputs full of NaN, infinities, denormals and extreme integers (so `a0` and
//! `aL` take extreme values), and every way must give identical bits (or the same error).
//!
//! Input: a little-endian `u16` byte length `L`, then `L` bytes of shader tokens, then the
//! data that fills constants, streams and the draw's layout (read cyclically; see [`Data`]).

use dxso::ir::Usage;
use dxso::validate::{Caps, validate};
use dxso_vm::{DeclType, Device, Frequency, Isa, Outputs, StreamSource, Tier, VertexElement};

/// One way a draw can run.
#[derive(Clone, Copy, Debug)]
pub struct Way {
    pub name: &'static str,
    pub tier: Tier,
    pub isa: Isa,
    /// Whether the draw's layout lets the compiled code fuse fetch and store (when `false`
    /// the stream is bound with the equivalent divider 1, which fused code does not take,
    /// and an indexed draw is laid out in draw order).
    pub fusable: bool,
}

/// Every way to run a draw that exists. The first is the reference. Cranelift compiles on
/// the base path only (and refuses dynamic flow control, calls and `o[aL]`, which then run
/// on the interpreter there).
pub const WAYS: &[Way] = &[
    Way {
        name: "interpreter (baseline x86-64)",
        tier: Tier::Interpreted,
        isa: Isa::Base,
        fusable: true,
    },
    Way {
        name: "interpreter (AVX2)",
        tier: Tier::Interpreted,
        isa: Isa::Avx2,
        fusable: true,
    },
    Way {
        name: "interpreter (AVX-512)",
        tier: Tier::Interpreted,
        isa: Isa::Avx512,
        fusable: true,
    },
    Way {
        name: "compiled, Cranelift",
        tier: Tier::Compiled,
        isa: Isa::Base,
        fusable: true,
    },
    Way {
        name: "compiled, AVX2, unfused fetch",
        tier: Tier::Compiled,
        isa: Isa::Avx2,
        fusable: false,
    },
    Way {
        name: "compiled, AVX2, fused fetch",
        tier: Tier::Compiled,
        isa: Isa::Avx2,
        fusable: true,
    },
    Way {
        name: "compiled, AVX-512, unfused fetch",
        tier: Tier::Compiled,
        isa: Isa::Avx512,
        fusable: false,
    },
    Way {
        name: "compiled, AVX-512, fused fetch",
        tier: Tier::Compiled,
        isa: Isa::Avx512,
        fusable: true,
    },
];

/// Values that trip arithmetic: NaNs (quiet, signalling, negative), infinities, denormals,
/// signed zeros, the largest floats, and integers at the edges of `a0`'s and `aL`'s ranges.
const SPECIAL: [u32; 24] = [
    0x7FC0_0000, // NaN
    0xFFC0_0000, // -NaN
    0x7F80_0001, // signalling NaN
    0x7FBF_FFFF, // NaN with a payload
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x0000_0001, // smallest denormal
    0x007F_FFFF, // largest denormal
    0x8000_0001, // negative denormal
    0x8000_0000, // -0
    0x0000_0000, // 0
    0x7F7F_FFFF, // f32::MAX
    0xFF7F_FFFF, // f32::MIN
    0x3F80_0000, // 1
    0xBF80_0000, // -1
    0x3F00_0000, // 0.5
    0xBF00_0000, // -0.5
    0x4F00_0000, // 2^31
    0xCF00_0000, // -2^31
    0x4B00_0000, // 2^23
    0x45FF_F800, // 8191
    0x4680_0000, // 16384
    0xC680_0200, // -16385
    0x437F_8000, // 255.5
];

/// The fuzzer's data, read as 32-bit words, cyclically (zeros when there is none).
pub(crate) struct Data<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Data<'a> {
    /// The data `bytes` hold, from their start.
    pub(crate) fn new(bytes: &'a [u8]) -> Data<'a> {
        Data { bytes, at: 0 }
    }

    pub(crate) fn word(&mut self) -> u32 {
        if self.bytes.is_empty() {
            return 0;
        }
        let mut w = [0u8; 4];
        for b in &mut w {
            *b = self.bytes[self.at % self.bytes.len()];
            self.at += 1;
        }
        u32::from_le_bytes(w)
    }

    pub(crate) fn byte(&mut self) -> u8 {
        if self.bytes.is_empty() {
            return 0;
        }
        let b = self.bytes[self.at % self.bytes.len()];
        self.at += 1;
        b
    }

    /// A float's bits: a special value, a small integer (a register index), or raw bits.
    pub(crate) fn float(&mut self) -> u32 {
        let w = self.word();
        match w & 3 {
            0 => SPECIAL[(w >> 2) as usize % SPECIAL.len()],
            1 => ((((w >> 2) % 1024) as i32 - 512) as f32 * 0.5).to_bits(),
            _ => w,
        }
    }

    /// An integer constant: small (a loop count, start or step) or raw.
    pub(crate) fn int(&mut self) -> i32 {
        let w = self.word();
        match w & 3 {
            0 => ((w >> 2) % 600) as i32 - 300,
            1 => [i32::MIN, i32::MAX, 255, 256, -1, 0, 1, 2048][(w >> 2) as usize % 8],
            _ => w as i32,
        }
    }
}

/// Vertices per draw: a full batch of 64 (fused code runs it) and a tail.
const VERTICES: usize = 69;

/// The device state a fuzz input describes.
struct Setup {
    elements: Vec<VertexElement>,
    stride: usize,
    stream: Vec<u8>,
    indices: Option<Vec<u32>>,
    consts: Vec<[f32; 4]>,
    ints: Vec<[i32; 4]>,
    bools: Vec<bool>,
}

fn setup(inputs: &[(u8, Usage, u8)], data: &mut Data) -> Setup {
    let mut elements = Vec::new();
    let mut offset = 0usize;
    for &(_, usage, usage_index) in inputs {
        if elements
            .iter()
            .any(|e: &VertexElement| e.usage == usage && e.usage_index == usage_index)
        {
            continue;
        }
        // Mostly FLOAT4 (where the special values land whole); any type but UNUSED.
        let b = data.byte();
        let ty = if b & 1 == 0 {
            DeclType::Float4
        } else {
            decl_type(b >> 1)
        };
        elements.push(VertexElement {
            stream: 0,
            offset: offset as u16,
            ty,
            method: 0,
            usage,
            usage_index,
        });
        offset += ty.size();
    }
    let stride = offset.max(4);
    let words = (stride * VERTICES).div_ceil(4);
    let stream = (0..words)
        .flat_map(|_| data.float().to_le_bytes())
        .collect();
    let indices = (data.byte() & 1 == 1).then(|| {
        (0..VERTICES)
            .map(|_| data.byte() as u32 % VERTICES as u32)
            .collect()
    });
    let consts = (0..256)
        .map(|_| std::array::from_fn(|_| f32::from_bits(data.float())))
        .collect();
    let ints = (0..16)
        .map(|_| std::array::from_fn(|_| data.int()))
        .collect();
    let bools = (0..16).map(|_| data.byte() & 1 == 1).collect();
    Setup {
        elements,
        stride,
        stream,
        indices,
        consts,
        ints,
        bools,
    }
}

fn decl_type(n: u8) -> DeclType {
    use DeclType::*;
    const TYPES: [DeclType; 17] = [
        Float1, Float2, Float3, Float4, D3dColor, Ubyte4, Short2, Short4, Ubyte4N, Short2N,
        Short4N, UShort2N, UShort4N, UDec3, Dec3N, Float16_2, Float16_4,
    ];
    TYPES[n as usize % TYPES.len()]
}

/// A draw's result as bits, so NaNs compare by payload.
#[derive(Debug, PartialEq)]
enum Run {
    Ok(Vec<String>, Vec<u32>),
    Err(String),
}

fn bits(r: Result<Outputs, dxso_vm::VmError>) -> Run {
    match r {
        Ok(o) => Run::Ok(
            o.registers.iter().map(|r| format!("{r:?}")).collect(),
            o.data.iter().map(|x| x.to_bits()).collect(),
        ),
        Err(e) => Run::Err(e.to_string()),
    }
}

/// A device set up to run `checked` the way `way` says (the compiled tiers compile at the
/// first draw).
fn device(checked: &dxso::validate::Checked, way: Way) -> Option<Device> {
    let mut dev = Device::new();
    dev.set_vertex_shader(checked).ok()?;
    // The smallest limit a device may have: fuzzed loops end quickly.
    dev.set_max_instructions(0);
    dev.set_isa(way.isa);
    dev.set_tier(way.tier);
    Some(dev)
}

fn run(dev: &mut Device, s: &Setup, way: Way) -> Run {
    dev.set_constant_f(0, &s.consts)
        .expect("256 constants exist");
    dev.set_constant_i(0, &s.ints)
        .expect("16 integer constants");
    dev.set_constant_b(0, &s.bools)
        .expect("16 boolean constants");
    dev.set_declaration(s.elements.clone())
        .expect("the declaration is well formed");
    // Unfused: a divider of 1 (which fused code does not take) reads the same elements as
    // per-vertex data, but only in draw order, so an indexed draw becomes the stream of the
    // elements its indices name.
    let (frequency, data, indices) = match (&s.indices, way.fusable) {
        (_, true) => (Frequency::Vertex, s.stream.clone(), s.indices.clone()),
        (None, false) => (Frequency::Divider(1), s.stream.clone(), None),
        (Some(ix), false) => {
            let element = |i: u32| &s.stream[i as usize * s.stride..][..s.stride];
            let data = ix.iter().flat_map(|&i| element(i).to_vec()).collect();
            (Frequency::Divider(1), data, None)
        }
    };
    dev.set_stream(
        0,
        Some(StreamSource {
            data: data.into(),
            offset: 0,
            stride: s.stride,
            frequency,
        }),
    )
    .expect("stream 0");
    dev.set_indices(indices);
    bits(dev.draw(VERTICES, 1))
}

/// What a shader needs for a draw: the shader, its declared inputs, a device per way.
struct Prepared {
    shader: dxso::Shader,
    inputs: Vec<(u8, Usage, u8)>,
    devices: Vec<Device>,
}

/// Shaders prepared at most at once (each holds a device per way with its compiled code and
/// worker pool, about 1 MB: 2,048 of them passed libFuzzer's 2 GB RSS limit while the
/// seed corpus loaded).
const CACHED: usize = 256;

thread_local! {
    /// Shaders prepared, by their tokens: inputs that differ only in the data (most of the
    /// fuzzer's mutations of a corpus entry) reuse the devices and their compiled code.
    static PREPARED: std::cell::RefCell<std::collections::HashMap<Vec<u8>, Prepared>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

fn prepare(tokens: &[u8]) -> Option<Prepared> {
    let shader = dxso::binary::read_bytes(tokens).ok()?;
    if !shader.version.is_vertex() {
        return None;
    }
    let checked = validate(&shader, &Caps::max()).ok()?;
    let inputs = dxso_vm::Program::lower(&checked).ok()?.inputs;
    let devices = WAYS
        .iter()
        .map(|&w| device(&checked, w))
        .collect::<Option<_>>()?;
    Some(Prepared {
        shader,
        inputs,
        devices,
    })
}

/// `differential`: see the module docs.
pub fn differential(data: &[u8]) {
    let Some((len, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let len = (u16::from_le_bytes(*len) as usize).min(rest.len()) & !3;
    let (tokens, rest) = rest.split_at(len);
    PREPARED.with_borrow_mut(|cache| {
        if !cache.contains_key(tokens) {
            let Some(p) = prepare(tokens) else {
                return;
            };
            if cache.len() >= CACHED {
                cache.clear();
            }
            cache.insert(tokens.to_vec(), p);
        }
        let p = cache.get_mut(tokens).expect("inserted above");
        let mut data = Data::new(rest);
        let s = setup(&p.inputs, &mut data);
        compare(&p.shader, &s, &mut p.devices);
    });
}

/// Run the draw `s` describes on each way's device; every result must be the first's.
fn compare(shader: &dxso::Shader, s: &Setup, devices: &mut [Device]) {
    let reference = run(&mut devices[0], s, WAYS[0]);
    for (k, &way) in WAYS.iter().enumerate().skip(1) {
        let got = run(&mut devices[k], s, way);
        if got != reference {
            panic!(
                "{} differs from {}: {}\n{}",
                way.name,
                WAYS[0].name,
                first_difference(&reference, &got),
                dxso::text::print(shader),
            );
        }
    }
}

/// Where two runs first differ, in words.
fn first_difference(a: &Run, b: &Run) -> String {
    match (a, b) {
        (Run::Ok(ra, da), Run::Ok(rb, db)) if ra == rb && da.len() == db.len() => {
            let i = (0..da.len()).find(|&i| da[i] != db[i]).unwrap_or(0);
            let per_vertex = (ra.len() * 4).max(1);
            format!(
                "vertex {}, {} component {}: 0x{:08x} ({}) vs 0x{:08x} ({})",
                i / per_vertex,
                ra.get(i % per_vertex / 4).map_or("?", String::as_str),
                i % 4,
                da[i],
                f32::from_bits(da[i]),
                db[i],
                f32::from_bits(db[i])
            )
        }
        _ => format!("{a:?} vs {b:?}"),
    }
}
