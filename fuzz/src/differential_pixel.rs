//! The pixel differential executor: the fuzzer's bytes decode into a pixel program (ps_1_x,
//! ps_2_0, ps_2_x or ps_3_0: arithmetic, `texkill`, `dsx`/`dsy`, every sampling instruction
//! on bound textures, static and dynamic flow control, calls, predication); one that
//! validates shades batches whose inputs are full of NaN, infinities, denormals and extreme
//! values, with helper lanes and both faces, on the interpreter and on every compiled code
//! the processor has (dxso's x86 code at AVX-512 and AVX2 width, Cranelift's on the base
//! path). Colours, depth, discards and the run's result must be the interpreter's, bit for
//! bit (the runner gives one NaN for every NaN in its outputs).
//!
//! Input: a little-endian `u16` byte length `L`, then `L` bytes that decode into the program
//! (see [`program`]), then the data that fills constants and batches (read cyclically, as
//! the vertex target's).

use super::differential::Data;
use dxso::validate::{Caps, validate};
use dxso_vm::{
    Format, Isa, LANES, Options, PixelBatch, PixelState, SamplerState, Texture, TextureAddress,
    TextureFilter, TextureKind, Tier,
};
use std::sync::{Arc, OnceLock};

/// The program's bytes, read once each (zeros, and `done`, past the end).
struct Bytes<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// A number below `n`.
    fn pick(&mut self, n: usize) -> usize {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b as usize % n
    }

    fn one<'s>(&mut self, of: &[&'s str]) -> &'s str {
        of[self.pick(of.len())]
    }
}

/// The shader model a program is written for.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Model {
    Ps20,
    Ps2x,
    Ps30,
}

/// A program generator: the bytes, the model, and the registers it may read.
struct Gen<'a> {
    b: Bytes<'a>,
    model: Model,
    lines: Vec<String>,
}

const SWIZZLES: [&str; 10] = [
    "", ".x", ".y", ".z", ".w", ".yzxw", ".zxyw", ".wzyx", ".xyxy", ".wwzx",
];
const MASKS: [&str; 7] = ["", ".x", ".xy", ".xyz", ".yw", ".z", ".w"];

impl Gen<'_> {
    fn temp(&mut self) -> String {
        format!("r{}", self.b.pick(6))
    }

    /// A source: a temporary, or (`special`) an input or constant; negated, `_abs`,
    /// swizzled as the bytes say (the validator refuses what the model lacks).
    fn src(&mut self, special: bool) -> String {
        let reg = self.reg(special);
        format!("{reg}{}", self.b.one(&SWIZZLES))
    }

    /// A source with one component.
    fn scalar(&mut self, special: bool) -> String {
        let reg = self.reg(special);
        format!("{reg}.{}", self.comp())
    }

    /// A source's register and modifiers.
    fn reg(&mut self, special: bool) -> String {
        let reg = match (special, self.b.pick(if special { 12 } else { 6 })) {
            (true, 6) => "v0".to_string(),
            (true, 7) if self.model == Model::Ps30 => "v2".to_string(),
            (true, 7) => "t0".to_string(),
            (true, 8) => "v1".to_string(),
            (true, 9) if self.model == Model::Ps30 => "vPos".to_string(),
            (true, 9) => "t1".to_string(),
            (true, n @ 10..) => format!("c{}", n - 10 + 2 * self.b.pick(4)),
            (_, n) => format!("r{n}"),
        };
        match self.b.pick(8) {
            0 if reg.starts_with('r') => format!("{reg}_abs"),
            1 => format!("-{reg}"),
            _ => reg,
        }
    }

    fn dst(&mut self) -> String {
        let r = self.temp();
        let m = self.b.one(&MASKS);
        let sat = self.b.one(&["", "", "", "_sat", "_pp"]);
        format!("{sat} {r}{m}")
    }

    fn sampler(&mut self) -> String {
        format!("s{}", self.b.pick(4))
    }

    /// One arithmetic, derivative, kill or sampling line.
    fn line(&mut self) -> String {
        let ops2 = ["add", "sub", "mul", "max", "min", "dp3", "dp4", "crs"];
        let ops1 = if self.model >= Model::Ps2x {
            &[
                "mov", "frc", "rcp", "rsq", "exp", "log", "abs", "nrm", "dsx", "dsy",
            ][..]
        } else {
            &["mov", "frc", "rcp", "rsq", "exp", "log", "abs", "nrm"][..]
        };
        let ops3 = ["mad", "cmp", "lrp", "dp2add"];
        match self.b.pick(12) {
            0..=2 => {
                let op = self.b.one(&ops2);
                let (d, a, b) = (self.dst(), self.src(true), self.src(false));
                format!("{op}{d}, {a}, {b}")
            }
            3 | 4 => {
                let op = self.b.one(ops1);
                let (d, a) = (self.dst(), self.src(true));
                format!("{op}{d}, {a}")
            }
            5 | 6 => {
                let op = self.b.one(&ops3);
                let d = self.dst();
                let (a, b) = (self.src(true), self.src(false));
                let c = if op == "dp2add" {
                    self.scalar(false)
                } else {
                    self.src(false)
                };
                format!("{op}{d}, {a}, {b}, {c}")
            }
            7 => {
                let (d, a, b) = (self.dst(), self.scalar(false), self.scalar(true));
                format!("pow{d}, {a}, {b}")
            }
            8 => format!("texkill {}", self.temp()),
            9 => {
                let (d, c) = (self.temp(), self.coord());
                let op = match self.model {
                    Model::Ps30 => self.b.one(&["texld", "texldp", "texldb", "texldl"]),
                    _ => self.b.one(&["texld", "texldp", "texldb"]),
                };
                let s = self.sampler();
                format!("{op} {d}, {c}, {s}")
            }
            10 if self.model >= Model::Ps2x => {
                let (d, c, s) = (self.temp(), self.coord(), self.sampler());
                let (x, y) = (self.temp(), self.temp());
                format!("texldd {d}, {c}, {s}, {x}, {y}")
            }
            _ => {
                let (sat, r, a) = (self.b.one(&["", "_sat"]), self.temp(), self.scalar(true));
                if self.model == Model::Ps30 {
                    format!("sincos{sat} {r}.xy, {a}")
                } else {
                    format!("sincos{sat} {r}.xy, {a}, c20, c21")
                }
            }
        }
    }

    /// A sampling coordinate: a temporary, or a texture coordinate input.
    fn coord(&mut self) -> String {
        match (self.b.pick(3), self.model) {
            (0, Model::Ps30) => "v0".into(),
            (0, _) => "t0".into(),
            (1, Model::Ps30) => "v2".into(),
            (1, _) => "t1".into(),
            _ => self.temp(),
        }
    }

    /// A comparison's name.
    fn cmp(&mut self) -> &'static str {
        self.b.one(&["gt", "lt", "ge", "le", "eq", "ne"])
    }

    /// A block of lines with flow control nested up to `depth` levels (ps_2_x and ps_3_0).
    fn block(&mut self, depth: u32, in_loop: bool) {
        let n = 1 + self.b.pick(6);
        for _ in 0..n {
            if self.done() {
                return;
            }
            let flow = self.model >= Model::Ps2x;
            let line = match self.b.pick(16) {
                0 if flow && depth > 0 => {
                    let (c, a, b) = (self.cmp(), self.scalar(false), self.scalar(true));
                    self.nest(format!("if_{c} {a}, {b}"), depth, in_loop);
                    continue;
                }
                1 if flow && depth > 0 => {
                    let head = match self.b.pick(3) {
                        0 => format!("if b{}", self.b.pick(2)),
                        1 => format!("if {}p0.{}", self.b.one(&["", "!"]), self.comp()),
                        _ if self.model == Model::Ps30 => "if_lt vFace, c0.x".into(),
                        _ => format!("if b{}", self.b.pick(2)),
                    };
                    self.nest(head, depth, in_loop);
                    continue;
                }
                2 if flow && depth > 0 => {
                    let i = self.b.pick(2);
                    let (head, tail) = if self.model == Model::Ps30 && self.b.pick(2) == 0 {
                        (format!("loop aL, i{i}"), "endloop")
                    } else {
                        (format!("rep i{i}"), "endrep")
                    };
                    self.lines.push(head);
                    self.block(depth - 1, true);
                    tail.to_string()
                }
                3 if flow && in_loop => match self.b.pick(3) {
                    0 => "break".into(),
                    1 => format!("breakp {}p0.{}", self.b.one(&["", "!"]), self.comp()),
                    _ => {
                        let (c, a, b) = (self.cmp(), self.scalar(false), self.scalar(true));
                        format!("break_{c} {a}, {b}")
                    }
                },
                4 | 5 if flow => {
                    let (c, a, b) = (self.cmp(), self.src(true), self.src(false));
                    format!("setp_{c} p0{}, {a}, {b}", self.b.one(&MASKS))
                }
                6 if flow => {
                    let l = self.line();
                    format!("({}p0.{}) {l}", self.b.one(&["", "!"]), self.comp())
                }
                7 if flow => match self.b.pick(2) {
                    0 => "call l0".into(),
                    _ => format!("callnz l0, {}b{}", self.b.one(&["", "!"]), self.b.pick(2)),
                },
                _ => self.line(),
            };
            self.lines.push(line);
        }
    }

    fn comp(&mut self) -> &'static str {
        self.b.one(&["x", "y", "z", "w"])
    }

    /// `head`, a block, maybe `else` and a block, `endif`.
    fn nest(&mut self, head: String, depth: u32, in_loop: bool) {
        self.lines.push(head);
        self.block(depth - 1, in_loop);
        if self.b.pick(2) == 0 {
            self.lines.push("else".into());
            self.block(depth - 1, in_loop);
        }
        self.lines.push("endif".into());
    }

    fn done(&self) -> bool {
        let most = if self.model == Model::Ps20 { 50 } else { 120 };
        self.b.done() || self.lines.len() > most
    }
}

/// The head of a ps_2_0 .. ps_3_0 program: its declarations and the temporaries' values.
fn head(model: Model) -> Vec<String> {
    let mut lines = vec![
        match model {
            Model::Ps20 => "ps_2_0",
            Model::Ps2x => "ps_2_x",
            _ => "ps_3_0",
        }
        .to_string(),
        "def c20, -1.5500992e-006, -2.1701389e-005, 0.0026041667, 0.00026041668".into(),
        "def c21, -0.020833334, -0.125, 1, 0.5".into(),
        "dcl_2d s0".into(),
        "dcl_cube s1".into(),
        "dcl_volume s2".into(),
        "dcl_2d s3".into(),
    ];
    if model == Model::Ps30 {
        lines.extend(
            [
                "dcl_texcoord0 v0",
                "dcl_color0 v1",
                "dcl_texcoord1_centroid v2",
                "dcl vPos.xy",
                "dcl vFace",
            ]
            .map(String::from),
        );
        lines.extend(["mov r2, v2", "mov r3, vPos.xyxy"].map(String::from));
    } else {
        lines.extend(["dcl v0", "dcl v1", "dcl t0", "dcl t1"].map(String::from));
        lines.extend(["mov r2, t0", "mov r3, t1"].map(String::from));
    }
    lines.extend(["mov r0, v0", "mov r1, v1", "mov r4, c0", "mul r5, v1, c1"].map(String::from));
    if model >= Model::Ps2x {
        lines.insert(3, "defi i1, 3, 1, 2, 0".into());
        lines.push("setp_lt p0, r0, v1".into());
    }
    lines
}

/// A ps_1_x program (ps_1_1 .. ps_1_4): texture reads, then arithmetic on r0, r1 with the
/// models' modifiers.
fn program_1x(b: &mut Bytes, version: usize) -> String {
    let ps14 = version == 4;
    let mut lines = vec![format!("ps_1_{version}")];
    lines.push("def c7, 0.25, -0.5, 1.5, 0".into());
    if ps14 {
        lines.push("texld r0, t0".into());
        lines.push(format!("texcrd r1.rgb, t1{}", b.one(&["", "_dz", "_dw"])));
        lines.push("texld r2, t2_dw.xyw".into());
    } else {
        lines.push("tex t0".into());
        lines.push("tex t1".into());
        lines.push(format!("{} t2", b.one(&["texcoord", "tex"])));
        lines.push("texkill t3".into());
        lines.push("mov r0, t0".into());
        lines.push("mov r1, v0".into());
    }
    let srcs = if ps14 {
        ["r0", "r1", "r2", "v0", "v1", "c0", "c3", "c7"]
    } else {
        ["r0", "r1", "t0", "t1", "v0", "v1", "c2", "c7"]
    };
    let mut phased = false;
    for _ in 0..if ps14 { 8 } else { 5 } {
        if b.done() {
            break;
        }
        let src = |b: &mut Bytes| {
            let r = b.one(&srcs);
            let m = b.one(&["", "", "_bx2", "_bias", "_x2", "_x2"]);
            let neg = b.one(&["", "", "-", "1-"]);
            let m = if (m == "_x2" && version != 4) || neg == "1-" {
                ""
            } else {
                m
            };
            let sw = b.one(&["", "", ".a", ".b"]);
            format!("{neg}{r}{m}{sw}")
        };
        let d = format!(
            "{} r{}{}",
            b.one(&["", "", "_x2", "_x4", "_d2", "_sat"]),
            b.pick(2),
            b.one(&["", "", ".rgb", ".a"])
        );
        let line = match b.pick(12) {
            0 => format!("mov{d}, {}", src(b)),
            1 => format!("add{d}, {}, {}", src(b), src(b)),
            2 => format!("sub{d}, {}, {}", src(b), src(b)),
            3 => format!("mul{d}, {}, {}", src(b), src(b)),
            4 => format!("mad{d}, {}, {}, {}", src(b), src(b), src(b)),
            5 => format!("lrp{d}, {}, {}, {}", src(b), src(b), src(b)),
            6 => format!("dp3{d}, {}, {}", src(b), src(b)),
            7 if version >= 2 => format!("dp4{d}, {}, {}", src(b), src(b)),
            8 => format!("cnd{d}, r0.a, {}, {}", src(b), src(b)),
            9 if version >= 2 => format!("cmp{d}, {}, {}, {}", src(b), src(b), src(b)),
            10 if ps14 && !phased => {
                phased = true;
                "phase\ntexld r3, r1".into()
            }
            _ => format!("+mov r1.a, {}", src(b)),
        };
        lines.push(line);
    }
    lines.push("mov r0, r0".into());
    lines.join("\n") + "\n"
}

/// The program the bytes describe: the first picks the model, the rest the lines (until
/// they run out, or about 120 lines).
fn program(bytes: &[u8]) -> String {
    let mut b = Bytes { bytes, at: 0 };
    let model = match b.pick(8) {
        0 => {
            let version = 1 + bytes.first().map_or(0, |x| *x as usize >> 3) % 4;
            return program_1x(&mut b, version);
        }
        1 => Model::Ps20,
        2 | 3 => Model::Ps2x,
        _ => Model::Ps30,
    };
    let mut g = Gen {
        b,
        model,
        lines: head(model),
    };
    let depth = if model >= Model::Ps2x { 3 } else { 0 };
    while !g.done() {
        g.block(depth, false);
    }
    let outs = 1 + g.b.pick(4);
    for k in 0..outs {
        let r = g.temp();
        g.lines.push(format!("mov oC{k}, {r}"));
    }
    if g.b.pick(2) == 1 {
        let r = g.temp();
        let c = g.comp();
        g.lines.push(format!("mov oDepth, {r}.{c}"));
    }
    if model >= Model::Ps2x {
        g.lines.push("ret".into());
        g.lines.push("label l0".into());
        g.b = Bytes {
            bytes: bytes.get(1..9).unwrap_or(&[]),
            at: 0,
        };
        let at = g.lines.len();
        g.block(0, false);
        // No recursion: calls go forward only.
        let sub: Vec<String> = g.lines.split_off(at);
        g.lines
            .extend(sub.into_iter().filter(|l| !l.starts_with("call")));
        g.lines.push("ret".into());
    }
    g.lines.join("\n") + "\n"
}

/// The textures every prepared shader binds: per sampler a kind and format.
struct Textures {
    float: [Arc<Texture>; 3],
    unorm: Arc<Texture>,
}

/// A 4-level texture whose texels vary (a fixed xorshift), with special values among the
/// float ones.
fn texture(kind: TextureKind, format: Format) -> Arc<Texture> {
    let (faces, depth) = match kind {
        TextureKind::Cube => (6, 1),
        TextureKind::Volume => (1, 8),
        TextureKind::TwoD => (1, 1),
    };
    let mut x = 0x9E37_79B9_7F4A_7C15_u64 ^ kind as u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let levels: Vec<Vec<u8>> = (0..4)
        .map(|k| {
            let channels = (8usize >> k) * (8 >> k) * (depth >> k).max(1) * faces * 4;
            match format {
                Format::A32B32G32R32F => (0..channels)
                    .flat_map(|i| {
                        let x = if i % 29 == 3 {
                            [f32::INFINITY, f32::NAN, -0.0][i % 3]
                        } else {
                            (next() >> 40) as f32 / (1u64 << 23) as f32 - 0.5
                        };
                        x.to_le_bytes()
                    })
                    .collect(),
                _ => (0..channels).map(|_| next() as u8).collect(),
            }
        })
        .collect();
    Arc::new(Texture::new(kind, format, 8, 8, depth, &levels).expect("a well-formed texture"))
}

fn textures() -> &'static Textures {
    static T: OnceLock<Textures> = OnceLock::new();
    T.get_or_init(|| Textures {
        float: [TextureKind::TwoD, TextureKind::Cube, TextureKind::Volume]
            .map(|k| texture(k, Format::A32B32G32R32F)),
        unorm: texture(TextureKind::TwoD, Format::A8R8G8B8),
    })
}

/// Bind the samplers the programs declare: s0 2-D, s1 cube, s2 volume (float texels,
/// trilinear, wrapping), s3 2-D (8-bit texels, nearest, clamped and mirrored, a bias); a
/// ps_1_x program's stages take 2-D textures.
fn bind(st: &mut PixelState, ps1: bool) {
    let t = textures();
    let linear = SamplerState {
        min_filter: TextureFilter::Linear,
        mag_filter: TextureFilter::Linear,
        mip_filter: TextureFilter::Linear,
        ..SamplerState::default()
    };
    let point = SamplerState {
        min_filter: TextureFilter::Point,
        mag_filter: TextureFilter::Point,
        mip_filter: TextureFilter::Point,
        address_u: TextureAddress::Clamp,
        address_v: TextureAddress::Mirror,
        mip_lod_bias: 0.5,
        ..SamplerState::default()
    };
    for n in 0..4 {
        let (tex, state) = match (ps1, n) {
            (_, 3) => (&t.unorm, point),
            (true, _) => (&t.float[0], linear),
            (false, n) => (&t.float[n], linear),
        };
        st.set_texture(n, Some(tex.clone())).expect("sampler 0..3");
        st.set_sampler_state(n, state).expect("sampler 0..3");
    }
}

/// One way batches run.
#[derive(Clone, Copy, Debug)]
struct Way {
    name: &'static str,
    tier: Tier,
    isa: Isa,
}

const WAYS: [Way; 4] = [
    Way {
        name: "interpreter",
        tier: Tier::Interpreted,
        isa: Isa::Avx512,
    },
    Way {
        name: "compiled, AVX-512",
        tier: Tier::Compiled,
        isa: Isa::Avx512,
    },
    Way {
        name: "compiled, AVX2",
        tier: Tier::Compiled,
        isa: Isa::Avx2,
    },
    Way {
        name: "compiled, Cranelift (base path)",
        tier: Tier::Compiled,
        isa: Isa::Base,
    },
];

/// A program ready to shade: its text and a state per way the processor has.
struct Prepared {
    text: String,
    states: Vec<(Way, PixelState)>,
}

fn prepare(bytes: &[u8]) -> Option<Prepared> {
    let text = program(bytes);
    let show = std::env::var_os("DXSO_FUZZ_SHOW").is_some();
    let checked = dxso::text::parse(&text)
        .map_err(|e| format!("{e:?}"))
        .and_then(|s| validate(&s, &Caps::max()).map_err(|e| format!("{e:?}")));
    if show {
        eprintln!("{text}=> {:?}", checked.as_ref().map(|_| "validates"));
    }
    let checked = checked.ok()?;
    let shader = checked.shader();
    let mut st = PixelState::new(&checked).ok()?;
    st.set_max_instructions(0);
    bind(&mut st, shader.version.major < 2);
    let states: Vec<_> = WAYS
        .iter()
        .filter(|w| w.isa <= Isa::detect())
        .map(|&w| {
            let mut s = st.clone();
            s.set_options(Options {
                tier: w.tier,
                isa: w.isa,
                ..Options::default()
            });
            (w, s)
        })
        .collect();
    STATS.with_borrow_mut(|s| s.count(&states));
    Some(Prepared { text, states })
}

/// Programs prepared, and how many each compiled way compiled (printed every 1,000).
#[derive(Default)]
struct Stats {
    programs: usize,
    compiled: [usize; 4],
}

impl Stats {
    fn count(&mut self, states: &[(Way, PixelState)]) {
        self.programs += 1;
        for (w, s) in states {
            if let Some(k) = WAYS.iter().position(|x| x.name == w.name) {
                self.compiled[k] += usize::from(s.code_generator().is_some());
            }
        }
        if self.programs.is_multiple_of(1000) {
            eprintln!(
                "differential_pixel: {} programs validated; compiled: AVX-512 {}, AVX2 {}, Cranelift {}",
                self.programs, self.compiled[1], self.compiled[2], self.compiled[3]
            );
        }
    }
}

/// Shaders prepared at most at once.
const CACHED: usize = 256;

thread_local! {
    static PREPARED: std::cell::RefCell<std::collections::HashMap<Vec<u8>, Prepared>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
    static STATS: std::cell::RefCell<Stats> = std::cell::RefCell::new(Stats::default());
}

/// Constants (c#, i#, b#) from the data.
fn constants(data: &mut Data) -> (Vec<[f32; 4]>, Vec<[i32; 4]>, Vec<bool>) {
    let consts = (0..224)
        .map(|_| std::array::from_fn(|_| f32::from_bits(data.float())))
        .collect();
    // Loop counts 0..5 (a count of hundreds, nested, reaches the instruction limit, where
    // every way ends on the interpreter: seconds a run); starts and steps sometimes raw.
    let ints = (0..16)
        .map(|_| {
            let count = data.int().rem_euclid(6);
            if data.byte().is_multiple_of(4) {
                [count, data.int(), data.int(), 0]
            } else {
                [
                    count,
                    data.int().rem_euclid(6) - 2,
                    data.int().rem_euclid(6) - 3,
                    0,
                ]
            }
        })
        .collect();
    let bools = (0..16).map(|_| data.byte() & 1 == 1).collect();
    (consts, ints, bools)
}

/// A batch for `st` from the data: inputs varying smoothly in each quad or raw (special
/// values), helper lanes, faces per quad, depths.
fn batch(st: &PixelState, data: &mut Data) -> PixelBatch {
    let mut b = PixelBatch::new(st);
    for input in b.inputs.iter_mut() {
        for row in input.iter_mut() {
            for q in 0..LANES / 4 {
                let raw = data.byte().is_multiple_of(4);
                let base = f32::from_bits(data.float());
                let (dx, dy) = (data.byte() as f32 / 512.0, data.byte() as f32 / -384.0);
                for k in 0..4 {
                    row[4 * q + k] = if raw {
                        f32::from_bits(data.float())
                    } else {
                        base + dx * (k % 2) as f32 + dy * (k / 2) as f32
                    };
                }
            }
        }
    }
    let (x0, y0) = (data.byte() as f32 * 2.0, data.byte() as f32 * 2.0);
    for q in 0..LANES / 4 {
        let face = if data.byte() & 1 == 0 { 1.0 } else { -1.0 };
        let live = data.byte();
        for k in 0..4 {
            let l = 4 * q + k;
            b.pos[0][l] = x0 + (2 * (q % 4) + k % 2) as f32;
            b.pos[1][l] = y0 + (2 * (q / 4) + k / 2) as f32;
            b.face[l] = face;
            b.live[l] = (live >> k) & 1 == 1 || live >> 4 == 0xF;
            b.depth[l] = if data.byte().is_multiple_of(8) {
                f32::from_bits(data.float())
            } else {
                data.byte() as f32 / 255.0
            };
        }
    }
    b
}

/// A batch's result and outputs as bits.
type Outcome = (Result<(), String>, Vec<u32>, Vec<u32>, [bool; LANES]);

fn outcome(r: Result<(), dxso_vm::VmError>, b: &PixelBatch) -> Outcome {
    let color = b.color.as_flattened().as_flattened();
    (
        r.map_err(|e| e.to_string()),
        color.iter().map(|x| x.to_bits()).collect(),
        b.depth.iter().map(|x| x.to_bits()).collect(),
        b.discarded,
    )
}

/// Where two outcomes first differ, in words.
fn difference(want: &Outcome, got: &Outcome) -> String {
    if want.0 != got.0 {
        return format!("result {:?}, the interpreter's {:?}", got.0, want.0);
    }
    if let Some(i) = (0..want.1.len()).find(|&i| want.1[i] != got.1[i]) {
        let (k, c, l) = (i / (4 * LANES), i / LANES % 4, i % LANES);
        return format!(
            "oC{k}[{c}] lane {l}: {} ({:#x}), the interpreter's {} ({:#x})",
            f32::from_bits(got.1[i]),
            got.1[i],
            f32::from_bits(want.1[i]),
            want.1[i]
        );
    }
    if let Some(l) = (0..LANES).find(|&l| want.2[l] != got.2[l]) {
        return format!(
            "depth lane {l}: {:#x}, the interpreter's {:#x}",
            got.2[l], want.2[l]
        );
    }
    let l = (0..LANES).find(|&l| want.3[l] != got.3[l]);
    format!("discard lane {l:?}")
}

/// `differential_pixel`: see the module docs.
pub fn differential_pixel(data: &[u8]) {
    let Some((len, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let len = (u16::from_le_bytes(*len) as usize).min(rest.len());
    let (bytes, rest) = rest.split_at(len);
    PREPARED.with_borrow_mut(|cache| {
        if !cache.contains_key(bytes) {
            let Some(p) = prepare(bytes) else {
                return;
            };
            if cache.len() >= CACHED {
                cache.clear();
            }
            cache.insert(bytes.to_vec(), p);
        }
        let p = cache.get_mut(bytes).expect("inserted above");
        let mut data = Data::new(rest);
        let (consts, ints, bools) = constants(&mut data);
        let batches: Vec<PixelBatch> = (0..2).map(|_| batch(&p.states[0].1, &mut data)).collect();
        let mut want = Vec::new();
        for (k, (way, st)) in p.states.iter_mut().enumerate() {
            let limit = match st.version().major {
                3.. => 224,
                2 => 32,
                _ => 8,
            };
            st.set_constant_f(0, &consts[..limit])
                .expect("the model's constants");
            st.set_constant_i(0, &ints).expect("16 integer constants");
            st.set_constant_b(0, &bools).expect("16 boolean constants");
            let mut runner = st.runner();
            for (n, b) in batches.iter().enumerate() {
                let mut b = b.clone();
                let got = outcome(runner.run(&mut b), &b);
                if k == 0 {
                    want.push(got);
                } else if got != want[n] {
                    panic!(
                        "{} differs from the interpreter in batch {n}: {}\n{}",
                        way.name,
                        difference(&want[n], &got),
                        p.text
                    );
                }
            }
        }
    });
}
