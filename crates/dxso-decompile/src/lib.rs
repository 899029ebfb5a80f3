//! # dxso-decompile — Direct3D 9 shaders back to HLSL
//!
//! [`decompile`] turns a validated vertex or pixel shader (vs_1_1 .. vs_3_0, ps_1_1 ..
//! ps_3_0) into D3D9-style HLSL (the dialect `fxc /T vs_3_0` takes) that a person can read:
//!
//! - the constant table's parameters as uniforms of their class and type, bound to their
//!   registers (`row_major float4x3 Bones[20] : register(c10);`); without a table, a
//!   `float4 c[N]` array; `def` constants inlined as literals;
//! - input and output structs with semantics (`POSITION`, `TEXCOORD1`, `VPOS`, `DEPTH` ...);
//! - temporaries as locals of the narrowest type holding the components the output touches
//!   (`float r0`, `float2 r1`, `float r2_w`);
//! - one statement per value: `mad` as `a * b + c`, swizzles and masks folded, `dp4`s over a
//!   matrix's rows as `mul(v, M)`, `dp3`/`rsq`/`mul` as `normalize`, `lrp` as `lerp`,
//!   `cmp`/`cnd` as `?:`, structured flow (`if`, `for` for `loop aL, i#` and `rep`, `break`,
//!   subroutines as functions), predication as `if (p0.x)`, relative addressing as an
//!   array index, ps_1_x texture addressing (texbem, texm3x3spec ...) written out.
//!
//! Where one HLSL operation would not give D3D9's result exactly (`rsq` takes `abs` of its
//! operand, `lit` differs from HLSL's at n·l = 0), the output spells out the exact form
//! (`rsqrt(abs(x))`, a `dx9_lit` helper) rather than an approximation.
//!
//! [`Dialect::Glslang`] writes the same program in the form glslang's HLSL front end
//! (`glslangValidator -D --hlsl-dx9-compatible -e main -S vert|frag -V`) compiles:
//! `SV_Position`, `SV_Target#`, `SV_Depth`, and `SV_Position`/`SV_IsFrontFace` read back as
//! D3D9's `VPOS`/`VFACE`.
//!
//! ```
//! let shader = dxso::text::parse(
//!     "vs_2_0\ndcl_position v0\ndp4 oPos.x, v0, c0\ndp4 oPos.y, v0, c1\n\
//!      dp4 oPos.z, v0, c2\ndp4 oPos.w, v0, c3\n",
//! )
//! .unwrap();
//! let checked = dxso::validate::validate(&shader, &Default::default()).unwrap();
//! let hlsl = dxso_decompile::decompile(&checked, &Default::default()).unwrap();
//! assert!(hlsl.contains("o.position = mul(float4x4(c[0], c[1], c[2], c[3]), i.position);"));
//! ```

#![forbid(unsafe_code)]

mod ctx;
mod emit;
mod expr;
mod flow;
mod inst;
mod io;
mod lift;
mod listing;
mod needs;
mod ps1x;
mod uniforms;
mod view;

pub use listing::listing_table;
pub use uniforms::ident;

use dxso::ctab::ConstantTable;
use dxso::validate::Checked;

/// Which compiler the output is written for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Microsoft's D3D9 HLSL compiler (`fxc /T vs_3_0`): `POSITION`, `COLOR#`, `VPOS`,
    /// `VFACE`, `DEPTH` semantics.
    #[default]
    Fxc,
    /// glslang's HLSL front end (`glslangValidator -D --hlsl-dx9-compatible`): position
    /// and pixel outputs as `SV_Position`/`SV_Target#`/`SV_Depth`, `VPOS`/`VFACE` read from
    /// `SV_Position`/`SV_IsFrontFace`.
    Glslang,
}

/// How to decompile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// The compiler the HLSL is written for.
    pub dialect: Dialect,
    /// Put each source instruction, as a comment, above the HLSL it became.
    pub asm_comments: bool,
}

/// Why a shader could not be decompiled.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// The shader's constant table is malformed.
    #[error("constant table: {0}")]
    ConstantTable(#[from] dxso::ctab::CtabError),
    /// A construct the decompiler has no HLSL for.
    #[error("cannot decompile {0}")]
    Unsupported(Unsupported),
}

/// A construct the decompiler has no HLSL for ([`Error::Unsupported`]), with the register,
/// opcode or stage it is about.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Unsupported {
    /// Relative reads of the input registers in a shader with subroutines.
    #[error("relative input reads in a shader with subroutines")]
    RelativeInputsWithSubroutines,
    /// A texture read through a sampler (its number) without a declaration.
    #[error("an undeclared sampler")]
    UndeclaredSampler(u32),
    /// A ps_1_x texture stage (its number) without a sampler.
    #[error("texture stage {0} without a sampler")]
    StageWithoutSampler(u32),
    /// An instruction (its opcode) without the operands its layout has.
    #[error("{0:?} without its operands")]
    MissingOperands(dxso::Opcode),
    /// An instruction (its opcode) the decompiler has no HLSL for.
    #[error("the {0:?} instruction")]
    Instruction(dxso::Opcode),
    /// Relative addressing of a register file other than the constants.
    #[error("relative addressing of {0:?} registers")]
    RelativeAddressing(dxso::ir::RegisterKind),
    /// A relative read no constant array covers (the register).
    #[error("relative read outside every array")]
    RelativeOutsideArrays(u32),
    /// A register file (its kind) used as a relative index.
    #[error("{0:?} as a relative index")]
    RelativeIndex(dxso::ir::RegisterKind),
    /// `aL` read outside every loop.
    #[error("aL outside a loop")]
    LoopCounterOutsideLoop,
    /// A relatively addressed destination.
    #[error("relatively addressed destinations")]
    RelativeDestination,
    /// A read of a register file (its kind) the decompiler does not read.
    #[error("reading {0:?} registers")]
    Reading(dxso::ir::RegisterKind),
    /// A write of a register file (its kind) the decompiler does not write.
    #[error("writing {0:?} registers")]
    Writing(dxso::ir::RegisterKind),
    /// A write of an output register without a declaration.
    #[error("an undeclared output {0:?}")]
    UndeclaredOutput(dxso::ir::Register),
    /// An instruction that writes without its destination.
    #[error("a missing destination")]
    MissingDestination,
}

/// Decompile `shader` with its own constant table (if it has one).
pub fn decompile(shader: &Checked, options: &Options) -> Result<String, Error> {
    let table = shader
        .shader()
        .constant_table()
        .map_err(Error::ConstantTable)?;
    decompile_with_table(shader, table.as_ref(), options)
}

/// Decompile `shader` naming its constants after `table` (for an assembly listing whose
/// header describes the table, as [`dxso::text::parse_header`] reads it); `None`: the
/// constants are registers of a `float4 c[N]` array.
pub fn decompile_with_table(
    shader: &Checked,
    table: Option<&ConstantTable>,
    options: &Options,
) -> Result<String, Error> {
    emit::program(shader.shader(), table, options)
}
