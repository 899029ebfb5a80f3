//! A validated shader lowered once into a compact, pre-decoded op list: register files mapped
//! to rows of the batch register arena, swizzles and masks resolved, the matrix macros
//! expanded, relative operands turned into gather ops, flow control turned into jumps.

use crate::LANES;
use dxso::ir::{self, Comparison, Instruction, RegisterKind, Shader, SrcModifier, Usage};
use dxso::opcodes::Opcode;
use dxso::validate::Checked;
use thiserror::Error;

mod lower;
pub(crate) use lower::{Lowering, lower, lower_any};

/// Rows of the register arena (each row = one component of one register, `LANES` lanes).
pub(crate) const TEMP_BASE: u16 = 0;
pub(crate) const TEMPS: u16 = 32;
pub(crate) const INPUT_BASE: u16 = TEMP_BASE + TEMPS * 4;
pub(crate) const INPUTS: u16 = 16;
pub(crate) const OUTPUT_BASE: u16 = INPUT_BASE + INPUTS * 4;
pub(crate) const OUTPUTS: u16 = 16;
pub(crate) const CONST_BASE: u16 = OUTPUT_BASE + OUTPUTS * 4;

/// The vs_1_1..vs_2_x output files packed into one output index space.
const RASTOUT_INDEX: u32 = 0; // oPos, oFog, oPts
const ATTROUT_INDEX: u32 = 3; // oD0, oD1
const TEXCRDOUT_INDEX: u32 = 5; // oT0..oT7

/// Why a shader could not be lowered to the engines' program.
#[derive(Debug, Error, PartialEq, Eq, Clone)]
pub enum LowerError {
    /// A pixel shader given to the vertex engine.
    #[error("pixel shaders do not run on the vertex engine")]
    PixelShader,
    /// An instruction the engines do not run (its index and what).
    #[error("instruction {0}: {1} is not supported by the executor")]
    Unsupported(usize, String),
}

/// A source operand: the row of each component after the swizzle, and its modifiers as bit
/// masks on the value: `(bits & and) ^ xor` (`_abs` clears the sign, negation flips it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SrcRef {
    pub rows: [u16; 4],
    pub and: u32,
    pub xor: u32,
}

pub(crate) const SIGN: u32 = 0x8000_0000;

/// The predicate of a predicated instruction: the p0 component per channel, negated or not.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PredRef {
    pub comps: [u8; 4],
    pub not: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum DstKind {
    /// Rows `row .. row + 4`.
    Rows(u16),
    /// `o[aL + base]`: rows chosen at run time; out-of-range writes are dropped (C4).
    OutputByLoop(i32),
    /// The address register a0.
    Addr,
    /// The predicate register p0.
    Pred,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DstRef {
    pub kind: DstKind,
    pub mask: u8,
    pub sat: bool,
    pub pred: Option<PredRef>,
    /// A component-wise result must be computed whole before it is stored: writing one
    /// component would change a source row a later component reads (`mov r0, r0.yxzw`).
    pub hazard: bool,
}

/// Arithmetic kinds. Component-wise unless noted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Alu {
    Mov,
    Add,
    Mul,
    Mad,
    Min,
    Max,
    Slt,
    Sge,
    Abs,
    Frc,
    Lrp,
    Sgn,
    /// dp3/dp4 (result replicated).
    Dp3,
    Dp4,
    /// Scalar: from component x of the (already swizzled) source, replicated.
    Rcp,
    Rsq,
    Exp,
    Log,
    Pow,
    Lit,
    Dst,
    Crs,
    Nrm,
    /// sincos: x = cos, y = sin of source x.
    SinCos,
    /// mova (and vs_2_0+ `mov a0`, choice C2): the value as it is; storing it into a0
    /// rounds half to even (C3).
    MovA,
    /// floor(s), component-wise: vs_1_1's `mov a0.x, s`, which floors on Windows (C2:
    /// −2.4 → −3, −0.4 → −1, 1.6 → 1; Wine's d3d9 visual tests, run on Windows). The
    /// store's rounding into a0 then leaves the integer as it is.
    Floor,
    /// setp_comp into p0.
    Setp(Comparison),
    /// texldl: source 0 = coordinates, `sampler` = s#, `swizzle` = the sampler operand's
    /// swizzle, applied to the fetched texel.
    TexLdl {
        sampler: u8,
        swizzle: u8,
    },
    /// Pixel shaders: `cmp` (s0 >= 0 ? s1 : s2), component-wise.
    Cmp,
    /// Pixel shaders: `cnd` (s0 > 0.5 ? s1 : s2), component-wise.
    Cnd,
    /// Pixel shaders: `dp2add` (s0.x*s1.x + s0.y*s1.y + s2.x, replicated).
    Dp2Add,
    /// Pixel shaders: `dsx` / `dsy`, quad differences (see `pixel::quad`).
    Dsx,
    Dsy,
    /// ps_1_x destination shift (`_x2` .. `_d8`): s0 times the factor, component-wise.
    Scale(f32),
    /// ps_1_x source modifiers other than negation, component-wise on s0.
    SrcMod(PsMod),
    /// `texkill`: the destination (the kill row, mask x) becomes 1 in lanes where any of
    /// the components of s0 in the mask (bit 0 = x) is below 0, and keeps its value
    /// elsewhere.
    Kill(u8),
}

/// The ps_1_x source modifiers a pre-op applies (negation stays in the operand's bits).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum PsMod {
    /// `_bias`: x - 0.5.
    Bias,
    /// `_bx2`: 2 * (x - 0.5).
    Bx2,
    /// `1 - x`.
    Comp,
    /// `_x2`: 2 * x.
    X2,
}

impl Alu {
    /// For the kinds computed component by component from the same components of their
    /// sources, how many sources they read; 0 for the others.
    pub(crate) fn componentwise_sources(self) -> usize {
        match self {
            Alu::Mov | Alu::Abs | Alu::Frc | Alu::Sgn | Alu::MovA | Alu::Floor => 1,
            Alu::Scale(_) | Alu::SrcMod(_) => 1,
            Alu::Add | Alu::Mul | Alu::Min | Alu::Max | Alu::Slt | Alu::Sge => 2,
            Alu::Mad | Alu::Lrp | Alu::Cmp | Alu::Cnd => 3,
            _ => 0,
        }
    }
}

/// A per-lane condition of dynamic flow control.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Cond {
    /// Component x of two sources compared.
    Cmp(Comparison, SrcRef, SrcRef),
    /// One component of p0, optionally negated.
    Pred(u8, bool),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Op {
    Alu {
        kind: Alu,
        dst: DstRef,
        src: [SrcRef; 3],
    },
    /// Rows `dst .. dst+4` = c[base + a0.comp] per lane (0 outside the file).
    GatherConstA0 {
        dst: u16,
        base: i32,
        comp: u8,
    },
    /// Rows = c[base + aL] (uniform).
    GatherConstAl {
        dst: u16,
        base: i32,
    },
    /// Rows = v[base + aL] (uniform).
    GatherInputAl {
        dst: u16,
        base: i32,
    },
    /// Rows = v[base + a0.comp] per lane.
    GatherInputA0 {
        dst: u16,
        base: i32,
        comp: u8,
    },
    /// if b# (uniform): jump to `target` when false.
    IfBool {
        b: u8,
        not: bool,
        target: u32,
    },
    Jump {
        target: u32,
    },
    /// Dynamic if: `target` = its else or endif op.
    IfDyn {
        cond: Cond,
        target: u32,
    },
    /// Dynamic else: `target` = its endif op.
    ElseDyn {
        target: u32,
    },
    EndIfDyn,
    /// loop aL, i# / rep i#: `end` = the pc of the matching endloop/endrep.
    Loop {
        i: u8,
        end: u32,
        al: bool,
    },
    EndLoop {
        start: u32,
    },
    /// break, break_comp, breakp: `end` = the pc of the enclosing endloop/endrep.
    Break {
        cond: Option<Cond>,
        end: u32,
    },
    /// call / callnz b# / callnz p0.
    Call {
        target: u32,
    },
    CallBool {
        b: u8,
        not: bool,
        target: u32,
    },
    CallPred {
        comp: u8,
        not: bool,
        target: u32,
    },
    Ret,
    /// A pixel-shader operation that needs the draw's textures and stages or the quad (the
    /// x86 code generator compiles sampling; `compile::supported` says what else).
    Pixel(crate::pixel::PixelOp),
}

impl Op {
    /// Whether this op belongs to pixel programs only.
    pub(crate) fn pixel_only(&self) -> bool {
        match self {
            Op::Pixel(_) => true,
            Op::Alu { kind, .. } => matches!(
                kind,
                Alu::Cmp
                    | Alu::Cnd
                    | Alu::Dp2Add
                    | Alu::Dsx
                    | Alu::Dsy
                    | Alu::Scale(_)
                    | Alu::SrcMod(_)
                    | Alu::Kill(_)
            ),
            _ => false,
        }
    }
}

/// A vertex shader ready to run.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) ops: Vec<Op>,
    /// (row, constant register) pairs broadcast at the start of each draw.
    pub(crate) const_rows: Vec<(u16, u32)>,
    pub(crate) rows: usize,
    /// The temp (bit k: r#k) and input (bit 32 + k: v#k) registers the ops write, which
    /// each batch clears (C11, C14): the others are never written, so keep the arena's
    /// zeros. Then the output rows the program writes (or declares).
    pub(crate) written: u64,
    pub(crate) output_rows: u16,
    /// vs_1_1 .. vs_2_x: the first row of `oD0`, which starts each vertex as (1, 1, 1, 1)
    /// instead of 0 (C11: on Windows the diffuse components a shader never writes reach the
    /// rasterizer as 1.0). `None` for vs_3_0, whose outputs all start at 0.
    pub(crate) diffuse: Option<u16>,
    /// The instruction each op comes from (for traces).
    pub(crate) op_source: Vec<u32>,
    /// The shader, for printing traces.
    pub(crate) shader: Shader,
    /// Input registers the shader declares: (register, usage, usage index).
    pub inputs: Vec<(u8, Usage, u8)>,
    /// Output registers in output order.
    pub outputs: Vec<OutputRegister>,
    /// The shader's own constants, applied over the API's (def/defi/defb win).
    pub defs: Vec<(u32, [f32; 4])>,
    /// The shader's `defi` integer constants.
    pub defis: Vec<(u32, [i32; 4])>,
    /// The shader's `defb` boolean constants.
    pub defbs: Vec<(u32, bool)>,
    /// Samplers the shader declares: (register, texture type).
    pub samplers: Vec<(u8, ir::TextureType)>,
    /// Pixel shaders: where the pixel registers live (`None` for vertex shaders).
    pub(crate) pixel: Option<crate::pixel::PixelRows>,
}

/// One output register of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputRegister {
    /// `o3` (vs_3_0) or `oPos`, `oFog`, `oPts`, `oD0`, `oT2` (earlier versions).
    pub name: String,
    /// The semantics it carries: `POSITION0`; several for a packed vs_3_0 register.
    pub semantic: String,
    pub(crate) row: u16,
}

fn semantic_name(usage: Usage, index: u8) -> String {
    format!("{}{index}", usage.name().to_ascii_uppercase())
}

impl Program {
    /// Where the basic blocks of a program without calls start (jump targets and the ops
    /// after branches), `ops.len()` (the end) included.
    pub(crate) fn block_starts(&self) -> std::collections::BTreeSet<usize> {
        let n = self.ops.len();
        let mut starts = std::collections::BTreeSet::from([0, n]);
        for pc in 0..n {
            if let Some(to) = self.successors(pc) {
                starts.extend(to);
                starts.insert(pc + 1);
            }
        }
        starts
    }

    /// Where control goes after the branch at `pc` (`None`: not a branch; calls are not
    /// followed — code generators see programs with calls inlined, `inline_calls` — and
    /// `ret` goes to the end, as it does where there are no subroutines).
    pub(crate) fn successors(&self, pc: usize) -> Option<Vec<usize>> {
        Some(match self.ops[pc] {
            Op::IfBool { target, .. } => vec![target as usize, pc + 1],
            Op::Jump { target } => vec![target as usize],
            Op::Loop { end, .. } => vec![pc + 1, end as usize + 1],
            Op::EndLoop { start } => vec![start as usize, pc + 1],
            Op::Ret => vec![self.ops.len()],
            // A dynamic if or else skips to its else or endif where no lane takes it; the
            // endif changes the lanes that run, so it ends its block too.
            Op::IfDyn { target, .. } | Op::ElseDyn { target } => vec![target as usize, pc + 1],
            Op::EndIfDyn => vec![pc + 1],
            // A break leaves for its loop's end where no lane of the loop runs any more.
            Op::Break { end, .. } => vec![end as usize, pc + 1],
            _ => return None,
        })
    }

    /// Per op, whether only some lanes may run it, so that its writes must keep the other
    /// lanes' values: inside a dynamic `if` (the if, else and endif included), or inside a
    /// loop whose body has a `break`.
    pub(crate) fn masked_ops(&self) -> Vec<bool> {
        let mut depth = 0u32;
        let mut masked: Vec<bool> = self
            .ops
            .iter()
            .map(|op| match op {
                Op::IfDyn { .. } => {
                    depth += 1;
                    true
                }
                Op::EndIfDyn => {
                    depth = depth.saturating_sub(1);
                    true
                }
                _ => depth > 0,
            })
            .collect();
        for (pc, op) in self.ops.iter().enumerate() {
            if let Op::Loop { end, .. } = *op {
                let body = pc..=(end as usize).min(self.ops.len() - 1);
                if self.ops[body.clone()]
                    .iter()
                    .any(|o| matches!(o, Op::Break { .. }))
                {
                    masked[body].fill(true);
                }
            }
        }
        masked
    }

    /// The first row after the constant rows (gather scratch).
    pub(crate) fn scratch_base(&self) -> u16 {
        CONST_BASE + self.const_rows.len() as u16 * 4
    }

    /// Whether `row` is one of the constant rows (broadcast at the start of a draw).
    pub(crate) fn is_const_row(&self, row: u16) -> bool {
        (CONST_BASE..self.scratch_base()).contains(&row)
    }

    /// Whether `row` holds one value in every lane: a constant row, or a scratch row only
    /// `c[aL + n]` gathers write.
    pub(crate) fn is_uniform_row(&self, row: u16) -> bool {
        let uniform = self.scratch_base() + UNIFORM_SLOTS * 4;
        self.is_const_row(row) || (uniform..uniform + 16).contains(&row)
    }

    /// Lower a validated vertex shader.
    pub fn lower(checked: &Checked) -> Result<Program, LowerError> {
        lower(checked.shader())
    }
}

/// The first gather scratch slot of `c[aL + n]` reads (slots of four rows; per-lane gathers
/// use the four before).
const UNIFORM_SLOTS: u16 = 4;

#[allow(dead_code)]
const _: () = assert!(LANES.is_power_of_two());
