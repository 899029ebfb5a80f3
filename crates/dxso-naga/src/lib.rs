//! # dxso-naga — Direct3D 9 shaders for GPUs, through naga
//!
//! [`translate`] turns a validated vertex or pixel shader into a [`naga::Module`] (checked by
//! naga's validator) and an [`Interface`] that says how to bind it; [`write()`] prints the
//! module as WGSL, SPIR-V, GLSL (450 core), MSL or HLSL.
//!
//! The module holds three functions:
//! - `body` ([`Translation::body`]): the shader itself. One argument, a struct with one
//!   `vec4<f32>` member per input register ([`Interface::inputs`] order, vPos/vFace as
//!   members too); it returns a struct with one `vec4<f32>` per output register
//!   ([`Interface::outputs`] order). Outputs the shader does not write are 0, except oD0 of
//!   vs_1_1 .. vs_2_x, (1, 1, 1, 1) (dxso-vm's C11). Constants and samplers are globals.
//! - `vs_main` (`@vertex`) or `ps_main` (`@fragment`): calls `body` and maps its struct to
//!   locations and builtins (POSITION0 to `position`, oDepth to `frag_depth`).
//!
//! ```
//! let shader = dxso::text::parse("vs_2_0\ndcl_position v0\nmov oPos, v0\n").unwrap();
//! let checked = dxso::validate::validate(&shader, &Default::default()).unwrap();
//! let t = dxso_naga::translate(&checked, &Default::default()).unwrap();
//! assert_eq!(t.interface.inputs[0].register, "v0");
//! let dxso_naga::Output::Text(wgsl) = dxso_naga::write(&t, dxso_naga::Target::Wgsl).unwrap()
//! else { unreachable!() };
//! assert!(wgsl.contains("@vertex"));
//! ```
//!
//! Float modes ([`FloatMode`]): `Strict` reproduces dxso-vm's arithmetic
//! (`../shared/spec/instructions.md` C1-C16) with explicit selects and dxso-vm's exp/log
//! polynomials; `Ieee` uses plain IEEE operations. Relative reads outside a register file
//! give 0 in both modes, by an explicit bounds check.

#![forbid(unsafe_code)]

mod alu;
mod entry;
mod flow;
mod func;
pub mod interface;
mod lanes;
pub mod ps1x;
mod regs;
mod tex;
mod write;

pub use interface::Interface;
pub use write::{Output, Target, write, write_to};

use dxso::ir::{RegisterKind, ShaderKind, TextureType};
use func::{FnBuilder, named_ty, ty, vec4};
use naga::{
    AddressSpace, ArraySize, Expression, Function, FunctionArgument, FunctionResult,
    GlobalVariable, Handle, ImageClass, ImageDimension, Module, ResourceBinding, Scalar, Span,
    Statement, StructMember, TypeInner,
};
use thiserror::Error;

/// How floating-point arithmetic is translated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FloatMode {
    /// dxso-vm's arithmetic (D3D9's rules as dxso implements them): zero-factor products
    /// are +0, rcp/rsq of 0 give FLT_MAX, log of 0 gives -FLT_MAX, dxso-vm's min/max/_sat
    /// selects and exp/log/pow polynomials.
    #[default]
    Strict,
    /// Plain IEEE operations: faster, as most translation layers do by default.
    Ieee,
}

/// Translation options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// How floating-point arithmetic is translated.
    pub float: FloatMode,
}

/// A translated shader.
#[derive(Debug)]
pub struct Translation {
    /// The naga module: the body, the entry point and their globals.
    pub module: Module,
    /// naga's analysis of `module` (what the back ends need).
    pub info: naga::valid::ModuleInfo,
    /// What the module expects of its caller: bindings, varyings, constants.
    pub interface: Interface,
    /// The shader's body: `fn body(inputs: Inputs) -> Outputs`.
    pub body: Handle<Function>,
}

/// Why a shader was not translated or written.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Error {
    /// An instruction this translator does not handle (yet).
    #[error(
        "{} is not supported in {version} by the GPU translation",
        opcode.mnemonic(*control, *version)
    )]
    Unsupported {
        /// The instruction's opcode.
        opcode: dxso::Opcode,
        /// Its control bits (which name the message gives it: `texldp`, `break_ne`, ...).
        control: u8,
        /// The shader's version.
        version: dxso::Version,
    },
    /// Something a validated shader cannot contain.
    #[error("instruction {instruction}: {what}")]
    Invalid {
        /// The instruction's index.
        instruction: usize,
        /// What is wrong with it.
        what: String,
    },
    /// naga's validator rejected the module (a defect of this translator).
    #[error("naga rejected the translated module: {0}")]
    Validation(String),
    /// Inlining the shader's subroutine calls would translate more than `limit`
    /// ([`MAX_TRANSLATED_INSTRUCTIONS`]) instructions.
    #[error(
        "the translation is too large: with each subroutine call inlined it has more than \
         {limit} instructions (MAX_TRANSLATED_INSTRUCTIONS)"
    )]
    TooLarge {
        /// [`MAX_TRANSLATED_INSTRUCTIONS`].
        limit: usize,
    },
    /// A back end failed.
    #[error("writing {target}: {message}")]
    Write {
        /// The language being written.
        target: &'static str,
        /// naga's error.
        message: String,
    },
    /// [`write_to`]'s output failed.
    #[error("writing the output: {message}")]
    Output {
        /// The I/O error's kind.
        kind: std::io::ErrorKind,
        /// The I/O error's message.
        message: String,
    },
}

/// The most instructions one translation translates, each copy of an inlined subroutine
/// counted again (declarations and comments too): as many as the largest shader dxso reads
/// ([`dxso::source::MAX_INSTRUCTIONS`]), so only a shader whose calls multiply its
/// subroutines reaches it. Past it, [`Error::TooLarge`].
pub const MAX_TRANSLATED_INSTRUCTIONS: usize = dxso::source::MAX_INSTRUCTIONS;

/// The message of an error and of every error it wraps.
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

/// Translate a validated shader.
pub fn translate(
    shader: &dxso::validate::Checked,
    options: &Options,
) -> Result<Translation, Error> {
    translate_unchecked(shader.shader(), options)
}

/// Translate a shader that has not been validated (an assembler test, a fragment). Anything
/// the translation cannot give a meaning to is an [`enum@Error`], never a panic; what a
/// validated shader guarantees (registers written before they are read, declarations) is
/// not checked: undeclared inputs read 0, unwritten registers 0.
pub fn translate_unchecked(shader: &dxso::Shader, options: &Options) -> Result<Translation, Error> {
    translate_with(shader, options, &[])
}

/// Translate a vertex shader and the pixel shader it feeds so that their varyings meet:
/// semantics with a fixed location ([`interface::fixed_location`]) have it in both, and
/// every other semantic the pixel shader reads (`NORMAL0`, `TEXCOORD12`, ...) gets, in the
/// vertex shader, the location the pixel shader reads it at (D3D9 links by semantic, as
/// `dxso::link` does). Vertex outputs the pixel shader does not read are numbered after.
pub fn translate_pair(
    vs: &dxso::validate::Checked,
    ps: &dxso::validate::Checked,
    options: &Options,
) -> Result<(Translation, Translation), Error> {
    let ps = translate(ps, options)?;
    let agreed: Vec<(String, u32)> = ps
        .interface
        .inputs
        .iter()
        .flat_map(|i| &i.varyings)
        .filter_map(|v| Some((v.semantic.clone(), v.location?)))
        .collect();
    let vs = translate_linked(vs, &agreed, options)?;
    Ok((vs, ps))
}

/// Translate a vertex shader for a pixel stage translated elsewhere (another translation,
/// or a module from another compiler): each output semantic without a fixed location
/// ([`interface::fixed_location`]) that `agreed` names (`("NORMAL0", 14)`) gets that
/// location; the others are numbered after the largest agreed one.
pub fn translate_linked(
    vs: &dxso::validate::Checked,
    agreed: &[(String, u32)],
    options: &Options,
) -> Result<Translation, Error> {
    translate_with(vs.shader(), options, agreed)
}

/// The translation, by phase: the body's argument and result structs, the constant
/// buffers the shader reads from memory, the samplers, the inputs and outputs, the
/// instructions, the returned outputs; then the entry point, naga's validation and the
/// interface.
fn translate_with(
    shader: &dxso::Shader,
    options: &Options,
    agreed: &[(String, u32)],
) -> Result<Translation, Error> {
    let version = shader.version;
    let vs = version.kind == ShaderKind::Vertex;
    let usage = interface::scan(shader);
    let io = interface::io(shader, agreed);
    let mut m = Module::default();
    let f32x4 = ty(&mut m, vec4(Scalar::F32));
    let (cgroup, sgroup) = if vs {
        (interface::VS_CONSTANT_GROUP, interface::VS_SAMPLER_GROUP)
    } else {
        (interface::PS_CONSTANT_GROUP, interface::PS_SAMPLER_GROUP)
    };

    // The body's argument and result structs.
    let in_ty = struct_of(
        &mut m,
        f32x4,
        "Inputs",
        io.inputs.iter().map(|i| i.1.register.clone()).collect(),
    );
    let out_ty = struct_of(
        &mut m,
        f32x4,
        "Outputs",
        io.outputs.iter().map(|o| o.1.register.clone()).collect(),
    );

    let mut fb = FnBuilder::new("body", &mut m);
    fb.f.arguments.push(FunctionArgument {
        name: Some("inputs".into()),
        ty: in_ty,
        binding: None,
    });
    fb.f.result = Some(FunctionResult {
        ty: out_ty,
        binding: None,
    });
    let mut tr = regs::Tr::new(m, fb, options.float, version);
    tr.defs = usage.defs.iter().copied().collect();
    tr.defis = usage.defis.iter().copied().collect();
    tr.defbs = usage.defbs.iter().copied().collect();

    let [iface_consts, iface_ints, iface_bools] = constant_buffers(&mut tr, &usage, cgroup);
    let samplers = bind_samplers(&mut tr, sampler_registers(shader), sgroup);
    bind_io(&mut tr, &io, &usage.temps);

    let ps1x_parameters = tr.ps1x_setup(shader, cgroup)?;
    tr.main(shader)?;
    tr.ps1x_flush()?;

    return_outputs(&mut tr, &io, out_ty);
    let regs::Tr { mut m, fb, .. } = tr;
    let body = m.functions.append(fb.finish(), Span::UNDEFINED);

    let entry_point = entry::build(&mut m, body, version, in_ty, &io);
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all() - naga::valid::ValidationFlags::CONTROL_FLOW_UNIFORMITY,
        naga::valid::Capabilities::empty(),
    );
    let info = validator
        .validate(&m)
        .map_err(|e| Error::Validation(chain(e.as_inner())))?;
    let interface = Interface {
        stage: if vs { "vertex" } else { "fragment" },
        version: version.to_string(),
        entry_point,
        body: "body".into(),
        float_constants: iface_consts,
        int_constants: iface_ints,
        bool_constants: iface_bools,
        samplers,
        inputs: io.inputs.into_iter().map(|i| i.1).collect(),
        outputs: io.outputs.into_iter().map(|o| o.1).collect(),
        parameters: ps1x_parameters
            .iter()
            .flat_map(|p| p.read.iter().map(|r| r.1.clone()))
            .collect(),
        ps1x_parameters,
    };
    Ok(Translation {
        module: m,
        info,
        interface,
        body,
    })
}

/// A struct of `vec4<f32>` members named `members` (one `unused` member when there are
/// none: WGSL has no empty structs), for the body's argument and result.
fn struct_of(
    m: &mut Module,
    f32x4: Handle<naga::Type>,
    name: &str,
    members: Vec<String>,
) -> Handle<naga::Type> {
    let mut members: Vec<StructMember> = members
        .into_iter()
        .enumerate()
        .map(|(k, n)| StructMember {
            name: Some(n),
            ty: f32x4,
            binding: None,
            offset: 16 * k as u32,
        })
        .collect();
    if members.is_empty() {
        // WGSL has no empty structs.
        members.push(StructMember {
            name: Some("unused".into()),
            ty: f32x4,
            binding: None,
            offset: 0,
        });
    }
    let span = 16 * members.len() as u32;
    named_ty(m, name, TypeInner::Struct { members, span })
}

/// A uniform array of `registers` 4-vectors of `scalar` at (`group`, `binding`), named
/// `name`.
fn uniform(
    tr: &mut regs::Tr,
    name: &str,
    scalar: Scalar,
    registers: u32,
    group: u32,
    binding: u32,
) -> regs::Buffer {
    let el = ty(&mut tr.m, vec4(scalar));
    let arr = ty(
        &mut tr.m,
        TypeInner::Array {
            base: el,
            size: ArraySize::Constant(
                std::num::NonZeroU32::new(registers.max(1)).unwrap_or(std::num::NonZeroU32::MIN),
            ),
            stride: 16,
        },
    );
    let gv = tr.m.global_variables.append(
        GlobalVariable {
            name: Some(name.into()),
            space: AddressSpace::Uniform,
            binding: Some(ResourceBinding { group, binding }),
            ty: arr,
            init: None,
            memory_decorations: Default::default(),
        },
        Span::UNDEFINED,
    );
    let ptr = tr.fb.expr(Expression::GlobalVariable(gv));
    regs::Buffer { ptr, registers }
}

/// Constant buffers: only the ones the shader reads from memory (c#, i#, b#, in that
/// order), with their `def`s for the interface.
fn constant_buffers(
    tr: &mut regs::Tr,
    usage: &interface::Usage2,
    cgroup: u32,
) -> [Option<interface::ConstantBuffer>; 3] {
    let version = tr.version;
    let mut iface_consts = None;
    let mut iface_ints = None;
    let mut iface_bools = None;
    let defs_of = |v: &[(u32, [u32; 4])]| {
        v.iter()
            .map(|&(register, bits)| interface::Def { register, bits })
            .collect::<Vec<_>>()
    };
    if usage.relative_consts || usage.consts_read.iter().any(|c| !tr.defs.contains_key(c)) {
        let registers = interface::float_registers(version, usage.consts_read.last().copied());
        tr.consts = Some(uniform(tr, "c", Scalar::F32, registers, cgroup, 0));
        iface_consts = Some(interface::ConstantBuffer {
            group: cgroup,
            binding: 0,
            registers,
            defs: defs_of(&usage.defs),
        });
    }
    if usage.ints_read.iter().any(|c| !tr.defis.contains_key(c)) {
        tr.ints = Some(uniform(tr, "i", Scalar::I32, 16, cgroup, 1));
        iface_ints = Some(interface::ConstantBuffer {
            group: cgroup,
            binding: 1,
            registers: 16,
            defs: defs_of(&usage.defis),
        });
    }
    if usage.bools_read.iter().any(|c| !tr.defbs.contains_key(c)) {
        tr.bools = Some(uniform(tr, "b", Scalar::U32, 16, cgroup, 2));
        let defs: Vec<(u32, [u32; 4])> = usage
            .defbs
            .iter()
            .map(|&(r, b)| (r, [b as u32, 0, 0, 0]))
            .collect();
        iface_bools = Some(interface::ConstantBuffer {
            group: cgroup,
            binding: 2,
            registers: 16,
            defs: defs_of(&defs),
        });
    }
    [iface_consts, iface_ints, iface_bools]
}

/// The sampler registers: declared samplers, then (unvalidated shaders) undeclared ones
/// used, as 2d, then the ps_1_x texture stages.
fn sampler_registers(shader: &dxso::Shader) -> Vec<(u32, TextureType)> {
    let mut sampler_regs: Vec<(u32, TextureType)> = Vec::new();
    for inst in &shader.instructions {
        if let (Some(d), Some(decl)) = (inst.dst, inst.decl)
            && d.reg.kind == RegisterKind::Sampler
            && sampler_regs.iter().all(|s| s.0 != d.reg.number)
        {
            let tt = TextureType::from_u32(decl.texture_type as u32).unwrap_or(TextureType::TwoD);
            sampler_regs.push((d.reg.number, tt));
        }
    }
    for inst in &shader.instructions {
        for s in &inst.srcs {
            if s.reg.kind == RegisterKind::Sampler
                && sampler_regs.iter().all(|x| x.0 != s.reg.number)
            {
                sampler_regs.push((s.reg.number, TextureType::TwoD));
            }
        }
    }
    for s in ps1x::samplers(shader) {
        if sampler_regs.iter().all(|x| x.0 != s.0) {
            sampler_regs.push(s);
        }
    }
    sampler_regs
}

/// A texture or sampler handle at (`group`, `binding`), named `name`.
fn handle_global(
    tr: &mut regs::Tr,
    name: String,
    ty: Handle<naga::Type>,
    group: u32,
    binding: u32,
) -> Handle<Expression> {
    let gv = tr.m.global_variables.append(
        GlobalVariable {
            name: Some(name),
            space: AddressSpace::Handle,
            binding: Some(ResourceBinding { group, binding }),
            ty,
            init: None,
            memory_decorations: Default::default(),
        },
        Span::UNDEFINED,
    );
    tr.fb.expr(Expression::GlobalVariable(gv))
}

/// Each sampler register's texture (binding 2n) and sampler (2n + 1), for the body and
/// the interface.
fn bind_samplers(
    tr: &mut regs::Tr,
    sampler_regs: Vec<(u32, TextureType)>,
    sgroup: u32,
) -> Vec<interface::Sampler> {
    let mut samplers = Vec::new();
    for (n, tt) in sampler_regs {
        let (dim, kind) = match tt {
            TextureType::Cube => (ImageDimension::Cube, "cube"),
            TextureType::Volume => (ImageDimension::D3, "volume"),
            _ => (ImageDimension::D2, "2d"),
        };
        let tex_ty = ty(
            &mut tr.m,
            TypeInner::Image {
                dim,
                arrayed: false,
                class: ImageClass::Sampled {
                    kind: naga::ScalarKind::Float,
                    multi: false,
                },
            },
        );
        let smp_ty = ty(&mut tr.m, TypeInner::Sampler { comparison: false });
        let texture = handle_global(tr, format!("t{n}"), tex_ty, sgroup, 2 * n);
        let sampler = handle_global(tr, format!("s{n}"), smp_ty, sgroup, 2 * n + 1);
        tr.samplers.insert(
            n,
            regs::SamplerRef {
                texture,
                sampler,
                dim,
            },
        );
        samplers.push(interface::Sampler {
            register: n,
            group: sgroup,
            texture_binding: 2 * n,
            sampler_binding: 2 * n + 1,
            kind,
        });
    }
    samplers
}

/// Inputs: the members of the argument. Outputs: zero-initialised locals (oD0 of vs_1_1 ..
/// vs_2_x starts at 1.0, C11; ps_1_x has none for the colour, which is r0's final value).
/// Then the temporaries the shader uses.
fn bind_io(tr: &mut regs::Tr, io: &interface::Io, temps: &[u32]) {
    let version = tr.version;
    let vs = version.kind == ShaderKind::Vertex;
    let arg = tr.fb.expr(Expression::FunctionArgument(0));
    for (k, (reg, _)) in io.inputs.iter().enumerate() {
        let v = tr.fb.index(arg, k as u32);
        tr.inputs.push((*reg, v));
    }
    let ps1 = !vs && version.major < 2;
    for (reg, o) in &io.outputs {
        if ps1 && reg.kind == RegisterKind::ColorOut {
            continue; // ps_1_x: the colour is r0's final value.
        }
        let p = tr.local(&o.register, vec4(Scalar::F32));
        if vs && version.major < 3 && *reg == dxso::ir::Register::new(RegisterKind::AttrOut, 0) {
            let one = tr.fb.kf(1.0, func::Shape::Vec4);
            tr.fb.store(p, one);
        }
        tr.outputs.push((*reg, p));
    }
    for &t in temps {
        tr.temp(t);
    }
}

/// Return the outputs (0 for one never written; ps_1_x's colour is r0).
fn return_outputs(tr: &mut regs::Tr, io: &interface::Io, out_ty: Handle<naga::Type>) {
    let version = tr.version;
    let ps1 = version.kind != ShaderKind::Vertex && version.major < 2;
    let mut values = Vec::new();
    for (reg, _) in &io.outputs {
        let v = if ps1 && reg.kind == RegisterKind::ColorOut {
            let r0 = tr.temp(0);
            tr.fb.load(r0)
        } else {
            let p = tr.outputs.iter().find(|o| o.0 == *reg).map(|o| o.1);
            match p {
                Some(p) => tr.fb.load(p),
                None => tr.fb.kf(0.0, func::Shape::Vec4),
            }
        };
        values.push(v);
    }
    if values.is_empty() {
        values.push(tr.fb.kf(0.0, func::Shape::Vec4));
    }
    let result = tr.fb.expr(Expression::Compose {
        ty: out_ty,
        components: values,
    });
    tr.fb.stmt(Statement::Return {
        value: Some(result),
    });
}
