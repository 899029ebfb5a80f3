//! What a caller must know to bind a translated shader: constant buffers, samplers, vertex
//! inputs or interpolated inputs, outputs and their locations. Serialised to JSON by
//! `dxso translate --interface`.

use dxso::ir::{self, RegisterKind, Shader, ShaderKind, Usage};
use dxso::opcodes::Opcode;
use serde::Serialize;

/// Bind group of a vertex shader's constant buffers (`c#` binding 0, `i#` 1, `b#` 2).
pub const VS_CONSTANT_GROUP: u32 = 0;
/// Bind group of a vertex shader's textures and samplers.
pub const VS_SAMPLER_GROUP: u32 = 1;
/// Bind group of a pixel shader's constant buffers (so a vs/ps pair never collides).
pub const PS_CONSTANT_GROUP: u32 = 2;
/// Bind group of a pixel shader's textures and samplers.
pub const PS_SAMPLER_GROUP: u32 = 3;

/// Everything outside the shader that a translation reads or writes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interface {
    /// `"vertex"` or `"fragment"`.
    pub stage: &'static str,
    /// The D3D9 version, as `vs_3_0`.
    pub version: String,
    /// The names of the entry points in the module: the `@vertex` or `@fragment` function
    /// and the body (see [`crate::Translation::body`]).
    pub entry_point: String,
    /// The body function's name (`body`).
    pub body: String,
    /// `c#`: a uniform `array<vec4<f32>, registers>` (register n is element n). `None` when
    /// the shader reads no `c#` from memory (every read is a `def` turned into a literal).
    pub float_constants: Option<ConstantBuffer>,
    /// `i#`: a uniform `array<vec4<i32>, 16>`.
    pub int_constants: Option<ConstantBuffer>,
    /// `b#`: a uniform `array<vec4<u32>, 16>`; register n is component x of element n
    /// (nonzero = true).
    pub bool_constants: Option<ConstantBuffer>,
    /// Each sampler register the shader uses.
    pub samplers: Vec<Sampler>,
    /// The members of the body's input struct, in order.
    pub inputs: Vec<Input>,
    /// The members of the body's output struct, in order.
    pub outputs: Vec<Output>,
    /// Per-draw parameters (point size, fog, clip planes, half-pixel offset) the translation
    /// reads from the caller. Only ps_1_x reads any (the names of
    /// [`crate::ps1x::Parameters::read`]): the shader's own results (`oPts`, `oFog`) are
    /// outputs like any other, clip planes and the half-pixel offset are the caller's
    /// pipeline state, and position is written as D3D9 computes it.
    pub parameters: Vec<String>,
    /// ps_1_x: the buffer of per-draw texture-stage state (bump-environment matrices, ...).
    pub ps1x_parameters: Option<crate::ps1x::Parameters>,
}

/// A constant buffer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConstantBuffer {
    /// Its bind group.
    pub group: u32,
    /// Its binding within the group.
    pub binding: u32,
    /// Registers (16 bytes each) the buffer holds. Relative reads outside `0..registers`
    /// give (0, 0, 0, 0) whatever the buffer's size.
    pub registers: u32,
    /// Registers the shader fixes with `def`/`defi`/`defb`: direct reads use the literal, but
    /// a relative read may reach them, so the caller must write these values into the buffer
    /// (and never others there).
    pub defs: Vec<Def>,
}

/// One `def`'d register: its exact bits (`f32`, `i32` or the bool 0/1 as `u32`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Def {
    /// The register's number.
    pub register: u32,
    /// Its four components' bits.
    pub bits: [u32; 4],
}

/// A sampler register: a texture at `texture_binding` and a sampler at `sampler_binding`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sampler {
    /// The sampler register's number (`s#`).
    pub register: u32,
    /// The bind group of its texture and sampler.
    pub group: u32,
    /// The texture's binding (2n).
    pub texture_binding: u32,
    /// The sampler's binding (2n + 1).
    pub sampler_binding: u32,
    /// `"2d"`, `"cube"` or `"volume"` (`1d` and undeclared samplers are 2d textures).
    pub kind: &'static str,
}

/// An input register.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Input {
    /// `v3`, `t0` (ps_1_x/ps_2_x texture coordinates), `vPos`, `vFace`.
    pub register: String,
    /// Where its value comes from: one vertex attribute (at location = the register
    /// number), one interpolant per semantic (a packed ps_3_0 register has several, each
    /// giving the components it declares), or a builtin: `position` (vPos: the pixel's
    /// top-left corner, D3D9's whole-number centres; z = w = 0) or `front_facing` (vFace:
    /// +1.0 front, -1.0 back).
    pub varyings: Vec<Varying>,
    /// What the entry point reads: always `vec4<f32>`. D3D9 vertex formats without a
    /// WebGPU float equivalent (`UBYTE4`, `SHORT2`, `SHORT4`: integers read as floats) must
    /// be converted by the caller (or fed as `float32x4`).
    pub kind: &'static str,
}

/// An output register.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Output {
    /// `oPos`, `oD0`, `oT3`, `oFog`, `oPts`, `o5` (vs_3_0), `oC0`, `oDepth`.
    pub register: String,
    /// One varying per semantic the register carries (a packed vs_3_0 register carries
    /// several, each receiving the whole register).
    pub varyings: Vec<Varying>,
    /// Components the shader writes (`"xyzw"`); the others are 0 (oD0 of vs_1_1..vs_2_x:
    /// 1.0).
    pub components: String,
}

/// One semantic of a register and where it travels.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Varying {
    /// `POSITION0`, `TEXCOORD1`, `COLOR0`, `DEPTH0`, `VPOS`, `VFACE`.
    pub semantic: String,
    /// The location (`None` for builtins).
    pub location: Option<u32>,
    /// `position`, `frag_depth`, `front_facing`.
    pub builtin: Option<&'static str>,
    /// The components of the register this semantic covers (its `dcl` mask).
    pub components: String,
}

/// The location a semantic gets when it is a varying: TEXCOORD0..9 at 0..9, COLOR0/1 at
/// 10/11, FOG0 at 12, PSIZE0 at 13; the others (`NORMAL0`, `TEXCOORD10`, ...) from 14 on,
/// in the order the shader declares them. A vertex and a pixel shader that only use the
/// fixed ones agree without a link step.
pub fn fixed_location(usage: Usage, index: u8) -> Option<u32> {
    match (usage, index) {
        (Usage::TexCoord, i) if i < 10 => Some(i as u32),
        (Usage::Color, i) if i < 2 => Some(10 + i as u32),
        (Usage::Fog, 0) => Some(12),
        (Usage::PSize, 0) => Some(13),
        _ => None,
    }
}
pub(crate) const FIRST_FREE_LOCATION: u32 = 14;

pub(crate) fn semantic_name(usage: Usage, index: u8) -> String {
    format!("{}{index}", usage.name().to_ascii_uppercase())
}

pub(crate) fn mask_name(mask: u8) -> String {
    "xyzw"
        .chars()
        .enumerate()
        .filter(|(c, _)| mask >> c & 1 != 0)
        .map(|(_, ch)| ch)
        .collect()
}

/// What the translator needs to know about the registers a shader uses.
#[derive(Clone, Debug, Default)]
pub(crate) struct Usage2 {
    /// Directly read `c#` numbers (matrix macros span rows), relative reads, `def`s.
    pub consts_read: Vec<u32>,
    pub relative_consts: bool,
    pub defs: Vec<(u32, [u32; 4])>,
    pub ints_read: Vec<u32>,
    pub defis: Vec<(u32, [u32; 4])>,
    pub bools_read: Vec<u32>,
    pub defbs: Vec<(u32, bool)>,
    pub temps: Vec<u32>,
}

pub(crate) fn scan(shader: &Shader) -> Usage2 {
    let mut u = Usage2::default();
    for inst in &shader.instructions {
        match inst.opcode {
            Opcode::Def => {
                if let Some(d) = inst.dst {
                    u.defs
                        .push((d.reg.number, std::array::from_fn(|k| inst.imm[k])));
                }
                continue;
            }
            Opcode::DefI => {
                if let Some(d) = inst.dst {
                    u.defis
                        .push((d.reg.number, std::array::from_fn(|k| inst.imm[k])));
                }
                continue;
            }
            Opcode::DefB => {
                if let Some(d) = inst.dst {
                    u.defbs.push((d.reg.number, inst.imm[0] != 0));
                }
                continue;
            }
            _ => {}
        }
        if let Some(d) = inst.dst
            && d.reg.kind == RegisterKind::Temp
        {
            u.temps.push(d.reg.number);
        }
        for (k, s) in inst.srcs.iter().enumerate() {
            match s.reg.kind {
                RegisterKind::Const if s.relative.is_some() => u.relative_consts = true,
                RegisterKind::Const => {
                    let span = inst.opcode.source_registers(k);
                    u.consts_read.extend(s.reg.number..s.reg.number + span)
                }
                RegisterKind::ConstInt => u.ints_read.push(s.reg.number),
                RegisterKind::ConstBool => u.bools_read.push(s.reg.number),
                RegisterKind::Temp => {
                    let span = inst.opcode.source_registers(k);
                    u.temps.extend(s.reg.number..s.reg.number + span)
                }
                _ => {}
            }
        }
    }
    for v in [
        &mut u.consts_read,
        &mut u.ints_read,
        &mut u.bools_read,
        &mut u.temps,
    ] {
        v.sort_unstable();
        v.dedup();
    }
    u
}

/// The number of `c#` registers of the constant buffer: the version's register file
/// (vs: 256, the D3D9 minimum every vs_2_0+ device has; ps_3_0 224, ps_2_x 32, ps_1_x 8),
/// grown to cover the highest register read.
pub(crate) fn float_registers(version: ir::Version, highest: Option<u32>) -> u32 {
    let file = match (version.kind, version.major) {
        (ShaderKind::Vertex, _) => 256,
        (ShaderKind::Pixel, 3) => 224,
        (ShaderKind::Pixel, 2) => 32,
        (ShaderKind::Pixel, _) => 8,
    };
    file.max(highest.map_or(0, |h| h + 1))
}

/// The inputs and outputs of a shader: the interface entries and, beside each, the register
/// the body reads or writes.
pub(crate) struct Io {
    pub inputs: Vec<(ir::Register, Input)>,
    pub outputs: Vec<(ir::Register, Output)>,
}

/// vs_1_1 .. vs_2_x output registers in the order dxso-vm lists them.
fn legacy_outputs() -> impl Iterator<Item = (ir::Register, &'static str, Usage, u8)> {
    use RegisterKind::*;
    [
        (ir::Register::new(RastOut, 0), "oPos", Usage::Position, 0),
        (ir::Register::new(RastOut, 1), "oFog", Usage::Fog, 0),
        (ir::Register::new(RastOut, 2), "oPts", Usage::PSize, 0),
        (ir::Register::new(AttrOut, 0), "oD0", Usage::Color, 0),
        (ir::Register::new(AttrOut, 1), "oD1", Usage::Color, 1),
    ]
    .into_iter()
    .chain((0..8u8).map(|t| {
        let name: &'static str =
            ["oT0", "oT1", "oT2", "oT3", "oT4", "oT5", "oT6", "oT7"][t as usize];
        (
            ir::Register::new(TexCrdOut, t as u32),
            name,
            Usage::TexCoord,
            t,
        )
    }))
}

/// The locations of varyings without a fixed one: those `agreed` with another stage, then
/// the next free ones in the order asked.
struct Locations<'a> {
    agreed: &'a [(String, u32)],
    next: u32,
}

impl Locations<'_> {
    /// The location of (`usage`, `index`).
    fn of(&mut self, usage: Usage, index: u8) -> u32 {
        let name = semantic_name(usage, index);
        fixed_location(usage, index)
            .or_else(|| self.agreed.iter().find(|a| a.0 == name).map(|a| a.1))
            .unwrap_or_else(|| {
                self.next += 1;
                self.next - 1
            })
    }
}

/// The inputs and outputs of `shader`. `agreed` gives the locations of semantics without a
/// fixed one that another stage already uses ([`crate::translate_pair`]); the others are
/// numbered after them. By phase: the write mask of each output register, the declared
/// registers, ps_1_x's inputs as read, and the outputs written without a declaration.
pub(crate) fn io(shader: &Shader, agreed: &[(String, u32)]) -> Io {
    let v = shader.version;
    let vs = v.is_vertex();
    let next = agreed
        .iter()
        .map(|a| a.1 + 1)
        .max()
        .unwrap_or(0)
        .max(FIRST_FREE_LOCATION);
    let mut loc = Locations { agreed, next };
    let written = written_masks(shader);
    let (mut inputs, mut outputs) = declared(shader, &mut loc, &written);
    if !vs && v.major < 2 {
        ps1x_inputs(shader, &mut loc, &mut inputs);
    }
    inputs.sort_by_key(|i| i.0);
    if vs && v.major < 3 {
        legacy_vs_outputs(&mut loc, &written, &mut outputs);
    } else if !vs {
        ps_outputs(&written, &mut outputs);
    }
    outputs.sort_by_key(|o| o.0);
    Io { inputs, outputs }
}

/// The components written of each output register (ps_1_x: r0 as the colour, the depth
/// as oDepth); all of them for a relative destination.
fn written_masks(shader: &Shader) -> Vec<(ir::Register, u8)> {
    let v = shader.version;
    let mut written: Vec<(ir::Register, u8)> = Vec::new();
    for inst in &shader.instructions {
        if let Some(d) = inst.dst
            && inst.opcode != Opcode::Dcl
        {
            let reg = if crate::ps1x::writes_depth(inst) {
                ir::Register::new(RegisterKind::DepthOut, 0)
            } else if v.is_pixel()
                && v.major < 2
                && d.reg == ir::Register::new(RegisterKind::Temp, 0)
            {
                ir::Register::new(RegisterKind::ColorOut, 0)
            } else {
                d.reg
            };
            let mask = if d.relative.is_some() { 0xF } else { d.mask.0 };
            match written.iter_mut().find(|w| w.0 == reg) {
                Some(w) => w.1 |= mask,
                None => written.push((reg, mask)),
            }
        }
    }
    written
}

/// The mask written to `reg`, from [`written_masks`].
fn mask_of(written: &[(ir::Register, u8)], reg: ir::Register) -> u8 {
    written.iter().find(|w| w.0 == reg).map_or(0, |w| w.1)
}

/// The declared inputs and outputs (`dcl`), in declaration order.
#[allow(clippy::type_complexity)] // the two lists `Io` holds
fn declared(
    shader: &Shader,
    loc: &mut Locations<'_>,
    written: &[(ir::Register, u8)],
) -> (Vec<(ir::Register, Input)>, Vec<(ir::Register, Output)>) {
    let v = shader.version;
    let vs = v.is_vertex();
    let any_relative_output = shader.instructions.iter().any(|i| {
        i.dst
            .is_some_and(|d| d.reg.kind == RegisterKind::Output && d.relative.is_some())
    });
    let mut inputs: Vec<(ir::Register, Input)> = Vec::new();
    let mut outputs: Vec<(ir::Register, Output)> = Vec::new();
    for inst in &shader.instructions {
        let (Opcode::Dcl, Some(d), Some(decl)) = (inst.opcode, inst.dst, inst.decl) else {
            continue;
        };
        let usage = Usage::from_u32(decl.usage as u32).unwrap_or(Usage::Position);
        let index = decl.usage_index;
        let comps = mask_name(d.mask.0);
        match d.reg.kind {
            RegisterKind::Input | RegisterKind::Texture | RegisterKind::MiscType => {
                let (name, varying) = declared_input(v, d.reg, usage, index, comps, loc);
                // A repeated identical dcl (the validator warns, V015) is one varying.
                match inputs.iter_mut().find(|i| i.0 == d.reg) {
                    Some(i) if i.1.varyings.contains(&varying) => {}
                    Some(i) => i.1.varyings.push(varying),
                    None => inputs.push((
                        d.reg,
                        Input {
                            register: name,
                            varyings: vec![varying],
                            kind: "vec4<f32>",
                        },
                    )),
                }
            }
            RegisterKind::Output => {
                let builtin = vs && usage == Usage::Position && index == 0;
                let varying = Varying {
                    semantic: semantic_name(usage, index),
                    location: (!builtin).then(|| loc.of(usage, index)),
                    builtin: builtin.then_some("position"),
                    components: comps,
                };
                match outputs.iter_mut().find(|o| o.0 == d.reg) {
                    Some(o) if o.1.varyings.contains(&varying) => {}
                    Some(o) => o.1.varyings.push(varying),
                    None => {
                        let m = if any_relative_output {
                            0xF
                        } else {
                            mask_of(written, d.reg)
                        };
                        outputs.push((
                            d.reg,
                            Output {
                                register: format!("o{}", d.reg.number),
                                varyings: vec![varying],
                                components: mask_name(m),
                            },
                        ))
                    }
                }
            }
            _ => {}
        }
    }
    (inputs, outputs)
}

/// A declared input's register name and varying (vPos and vFace are builtins).
fn declared_input(
    v: ir::Version,
    reg: ir::Register,
    usage: Usage,
    index: u8,
    comps: String,
    loc: &mut Locations<'_>,
) -> (String, Varying) {
    let vs = v.is_vertex();
    let (usage, index) = match (vs, v.major, reg.kind) {
        (false, 2, RegisterKind::Input) => (Usage::Color, reg.number as u8),
        (false, 2, RegisterKind::Texture) => (Usage::TexCoord, reg.number as u8),
        _ => (usage, index),
    };
    if reg.kind == RegisterKind::MiscType {
        let pos = reg.number == ir::MISCTYPE_POSITION;
        let (n, sem, b) = if pos {
            ("vPos", "VPOS", "position")
        } else {
            ("vFace", "VFACE", "front_facing")
        };
        (
            n.to_string(),
            Varying {
                semantic: sem.into(),
                location: None,
                builtin: Some(b),
                components: comps,
            },
        )
    } else {
        let prefix = if reg.kind == RegisterKind::Texture {
            "t"
        } else {
            "v"
        };
        (
            format!("{prefix}{}", reg.number),
            Varying {
                semantic: semantic_name(usage, index),
                location: Some(if vs { reg.number } else { loc.of(usage, index) }),
                builtin: None,
                components: comps,
            },
        )
    }
}

/// ps_1_x declares nothing: colours v0/v1 and texture registers as read (ps_1_1 .. ps_1_3
/// texture instructions read the coordinate of their destination).
fn ps1x_inputs(shader: &Shader, loc: &mut Locations<'_>, inputs: &mut Vec<(ir::Register, Input)>) {
    let destinations = crate::ps1x::coordinate_destinations(shader);
    let read = shader.instructions.iter().flat_map(|i| i.srcs.iter());
    for s in read.chain(destinations.iter()) {
        {
            let (usage, prefix) = match s.reg.kind {
                RegisterKind::Input => (Usage::Color, "v"),
                RegisterKind::Texture => (Usage::TexCoord, "t"),
                _ => continue,
            };
            if inputs.iter().all(|i| i.0 != s.reg) {
                let index = s.reg.number as u8;
                inputs.push((
                    s.reg,
                    Input {
                        register: format!("{prefix}{}", s.reg.number),
                        varyings: vec![Varying {
                            semantic: semantic_name(usage, index),
                            location: Some(loc.of(usage, index)),
                            builtin: None,
                            components: "xyzw".into(),
                        }],
                        kind: "vec4<f32>",
                    },
                ));
            }
        }
    }
}

/// vs_1_1 .. vs_2_x: the fixed output registers written (oD0 always: it starts at 1.0).
fn legacy_vs_outputs(
    loc: &mut Locations<'_>,
    written: &[(ir::Register, u8)],
    outputs: &mut Vec<(ir::Register, Output)>,
) {
    for (reg, name, usage, index) in legacy_outputs() {
        let m = mask_of(written, reg);
        let diffuse = reg == ir::Register::new(RegisterKind::AttrOut, 0);
        if m == 0 && !diffuse {
            continue;
        }
        let builtin = usage == Usage::Position;
        outputs.push((
            reg,
            Output {
                register: name.into(),
                varyings: vec![Varying {
                    semantic: semantic_name(usage, index),
                    location: (!builtin).then(|| loc.of(usage, index)),
                    builtin: builtin.then_some("position"),
                    components: mask_name(m),
                }],
                components: mask_name(m),
            },
        ));
    }
}

/// Pixel shaders: the colour and depth outputs written.
fn ps_outputs(written: &[(ir::Register, u8)], outputs: &mut Vec<(ir::Register, Output)>) {
    let mut regs: Vec<(ir::Register, u8)> = written
        .iter()
        .filter(|w| matches!(w.0.kind, RegisterKind::ColorOut | RegisterKind::DepthOut))
        .copied()
        .collect();
    regs.sort_by_key(|w| w.0);
    for (reg, m) in regs {
        let depth = reg.kind == RegisterKind::DepthOut;
        outputs.push((
            reg,
            Output {
                register: if depth {
                    "oDepth".into()
                } else {
                    format!("oC{}", reg.number)
                },
                varyings: vec![Varying {
                    semantic: if depth {
                        "DEPTH0".into()
                    } else {
                        format!("COLOR{}", reg.number)
                    },
                    location: (!depth).then_some(reg.number),
                    builtin: depth.then_some("frag_depth"),
                    components: mask_name(m),
                }],
                components: mask_name(m),
            },
        ));
    }
}
