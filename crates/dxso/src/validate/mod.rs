//! Validation: check a shader the way the D3D9 runtime does when it is created, against its
//! version's rules and a device's caps. Every rule has a stable id ([`Rule`], [`RULES`]).
//!
//! Choices where `../shared/spec` says "(unverified)" (ids in brackets):
//! - scalar instructions (`rcp`, `rsq`, `exp`, `log`, `expp`, `logp`) accept an identity
//!   swizzle and use `.x`, as the rcp/rsq pages say; other non-replicate swizzles are errors
//!   (V032). A multi-component write mask is a warning (V035) (choice C9).
//! - `mov a0` in vs_2_0+ is a warning (V039) (choice C2).
//! - `texldl` may write a vs_3_0 output register as well as a temporary (V030): the
//!   reference page says a temporary, but the Windows runtime accepts and runs `o#`
//!   (instructions.md §6, from Wine's d3d9 visual tests, which pass on Windows).
//! - read ports (V007) and reads per instruction (V008) follow the register tables
//!   ([`crate::registers::read_ports`]: registers.md §2-§5 and §8, and Microsoft's
//!   "ps_1_1__ps_1_2__ps_1_3__ps_1_4", "ps_2_0", "ps_2_x" and "ps_3_0 Registers" pages for
//!   pixel shaders); `c#` reads per instruction: 2 in vs_2_0/vs_2_x, unlimited in vs_3_0
//!   (interpretation in registers.md §2). sincos's two constant operands are the documented
//!   exception. The software versions (vs_2_sw, ps_2_sw, ...) have no limits.
//! - `_abs` on `c#` is checked per instruction (V042) (choice C10).
//! - `def*` after code is a warning (V018) (choice C13).
//! - read-before-write (V040) follows program order; a subroutine sees every write of the
//!   main program, and a call makes the callee's writes visible after it.
//! - vs_3_0 `v#` may be indexed by `a0` or `aL`; `o#` only by `aL` (registers.md §11).
//! - pixel-shader instruction slots: one per instruction (the spec has no PS slot table);
//!   ps_2_0 counts 64 arithmetic + 32 texture instructions.

mod caps;
mod encoding;
mod rules;

pub use caps::*;
pub use rules::{RULES, Rule};

use crate::ir::{self, *};
use crate::opcodes::{Layout, Opcode};
use crate::registers::{file_size, read_ports, register_name};
use std::collections::{BTreeMap, HashMap, HashSet};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
}

/// One finding, attached to an instruction (index into `Shader::instructions`) when it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub rule: Rule,
    pub severity: Severity,
    pub instruction: Option<usize>,
    pub message: String,
}

/// A shader that passed validation, with the caps it was checked against and its warnings.
#[derive(Clone, Debug)]
pub struct Checked {
    shader: Shader,
    caps: Caps,
    warnings: Vec<Diagnostic>,
}

impl Checked {
    pub fn shader(&self) -> &Shader {
        &self.shader
    }
    pub fn caps(&self) -> &Caps {
        &self.caps
    }
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }
    pub fn into_shader(self) -> Shader {
        self.shader
    }
}

/// Validate `shader` against `caps`. `Err` holds every finding (errors and warnings).
pub fn validate(shader: &Shader, caps: &Caps) -> Result<Checked, Vec<Diagnostic>> {
    let diagnostics = diagnostics(shader, caps);
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        return Err(diagnostics);
    }
    Ok(Checked {
        shader: shader.clone(),
        caps: *caps,
        warnings: diagnostics,
    })
}

/// Every finding for `shader`, ordered by instruction.
pub fn diagnostics(shader: &Shader, caps: &Caps) -> Vec<Diagnostic> {
    let mut v = Validator {
        s: shader,
        caps,
        v: shader.version,
        out: Vec::new(),
        first_code: None,
    };
    v.run();
    let mut out = v.out;
    out.sort_by_key(|d| (d.instruction.unwrap_or(usize::MAX), d.rule));
    out
}

struct Validator<'a> {
    s: &'a Shader,
    caps: &'a Caps,
    v: Version,
    out: Vec<Diagnostic>,
    first_code: Option<usize>,
}

fn name(r: Register) -> String {
    register_name(r.kind, r.number)
}

fn is_output(kind: RegisterKind) -> bool {
    use RegisterKind::*;
    matches!(
        kind,
        RastOut | AttrOut | TexCrdOut | Output | ColorOut | DepthOut
    )
}

fn is_matrix(op: Opcode) -> Option<(u32, u8)> {
    // (registers read from src1, channels produced: as many as the registers)
    op.matrix_rows().map(|rows| (rows, (1u8 << rows) - 1))
}

fn is_scalar(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, Rcp | Rsq | Exp | Log | ExpP | LogP)
}

impl Validator<'_> {
    fn push(&mut self, rule: Rule, severity: Severity, i: Option<usize>, message: String) {
        self.out.push(Diagnostic {
            rule,
            severity,
            instruction: i,
            message,
        });
    }
    fn err(&mut self, rule: Rule, i: usize, message: impl Into<String>) {
        self.push(rule, Severity::Error, Some(i), message.into());
    }
    fn warn(&mut self, rule: Rule, i: usize, message: impl Into<String>) {
        self.push(rule, Severity::Warning, Some(i), message.into());
    }

    fn vs(&self) -> bool {
        self.v.is_vertex()
    }
    fn n(&self) -> u16 {
        self.v.number()
    }
    fn sw(&self) -> bool {
        self.v.minor == 0xFF
    }
    /// vs_2_x / ps_2_x: the versions whose features depend on caps.
    fn is_2x(&self) -> bool {
        self.n() == 0x201
    }
    fn caps2(&self) -> &ShaderCaps2 {
        if self.vs() {
            &self.caps.vs20
        } else {
            &self.caps.ps20
        }
    }
    fn predication(&self) -> bool {
        if self.vs() {
            self.caps.vs_predication()
        } else {
            self.caps.ps_predication()
        }
    }

    /// Registers in a file for this version and these caps; `None` if it does not exist.
    fn file_count(&self, kind: RegisterKind) -> Option<u32> {
        use RegisterKind::*;
        let base = file_size(self.v, kind)?;
        let n = self.n();
        Some(match (self.vs(), kind) {
            (true, Temp) if n == 0x201 => self.caps.vs20.num_temps,
            (true, Const) if self.sw() => 8192,
            (true, Const) => self.caps.max_vertex_shader_const.min(8192),
            (false, Temp) if n == 0x201 => self.caps.ps20.num_temps,
            (true, Label) if n < 0x300 && !self.sw() => 16,
            (true, Predicate) if n == 0x201 && !self.caps.vs_predication() => return None,
            (false, Predicate) if n == 0x201 && !self.caps.ps_predication() => return None,
            _ => base,
        })
    }

    fn run(&mut self) {
        if !self.v.is_known() {
            self.push(
                Rule::InstructionVersion,
                Severity::Error,
                None,
                format!("unknown shader version {}", self.v),
            );
            return;
        }
        for (i, inst) in self.s.instructions.iter().enumerate() {
            self.instruction(i, inst);
        }
        self.declarations();
        self.flow();
        self.read_before_write();
        self.slots();
        if self.vs() {
            self.vertex_outputs();
        }
    }

    fn instruction(&mut self, i: usize, inst: &Instruction) {
        let op = inst.opcode;
        if op == Opcode::Comment {
            return;
        }
        let info = op.info();
        if !op.exists_in(self.v) {
            let m = op.mnemonic(inst.control, self.v);
            self.err(
                Rule::InstructionVersion,
                i,
                format!("{m} does not exist in {}", self.v),
            );
            return;
        }
        let counts = info.layout.src_counts(self.v);
        if !counts.contains(&(inst.srcs.len() as u8))
            || info.layout.has_dst() != inst.dst.is_some()
            || inst.imm.len() != info.layout.imm_count()
        {
            self.err(
                Rule::OperandCount,
                i,
                format!("{} has the wrong operands", info.mnemonic),
            );
            return;
        }
        self.encoding(i, inst);
        if info.comparison && inst.comparison().is_none() {
            self.err(
                Rule::OperandCount,
                i,
                "the comparison code is not one of gt/eq/ge/lt/ne/le",
            );
        }
        match info.layout {
            Layout::Dcl => {
                if let Some(first) = self.first_code {
                    self.err(
                        Rule::DclPlacement,
                        i,
                        format!(
                            "dcl after the first instruction (instruction {})",
                            first + 1
                        ),
                    );
                }
                self.dcl(i, inst);
                return;
            }
            Layout::Def | Layout::DefI | Layout::DefB => {
                if self.first_code.is_some() {
                    self.warn(Rule::DefPlacement, i, "def after executable code");
                }
                self.def(i, inst);
                return;
            }
            _ => {
                self.first_code.get_or_insert(i);
            }
        }
        self.caps_features(i, inst);
        if let Some(d) = &inst.dst {
            self.dst_register(i, inst, d);
        }
        for (k, s) in inst.srcs.iter().enumerate() {
            self.src_register(i, inst, k, s);
        }
        self.predicate(i, inst);
        self.result_modifiers(i, inst);
        self.source_modifiers(i, inst);
        self.operands(i, inst);
        self.read_ports(i, inst);
    }

    fn caps_features(&mut self, i: usize, inst: &Instruction) {
        if !self.is_2x() {
            return;
        }
        use Opcode::*;
        let pred_operand = inst
            .srcs
            .iter()
            .any(|s| s.reg.kind == RegisterKind::Predicate);
        let dynamic = matches!(inst.opcode, IfC | Break | BreakC | BreakP)
            || (matches!(inst.opcode, If | CallNz) && pred_operand);
        let predicated = inst.opcode == Setp || pred_operand || inst.predicate.is_some();
        let what = inst.opcode.mnemonic(inst.control, self.v);
        if dynamic && self.caps2().dynamic_flow_control_depth == 0 {
            self.err(
                Rule::CapsFeature,
                i,
                format!("{what} needs dynamic flow control (DynamicFlowControlDepth > 0)"),
            );
        }
        if predicated && !self.predication() {
            self.err(
                Rule::CapsFeature,
                i,
                format!("{what} needs the predication cap"),
            );
        }
        if self.v.is_pixel()
            && matches!(inst.opcode, Dsx | Dsy | TexLdd)
            && self.caps.ps20.caps & PS20CAPS_GRADIENTINSTRUCTIONS == 0
        {
            self.err(
                Rule::CapsFeature,
                i,
                format!("{what} needs D3DPS20CAPS_GRADIENTINSTRUCTIONS"),
            );
        }
    }

    fn check_range(&mut self, i: usize, reg: Register, span: u32) -> bool {
        match self.file_count(reg.kind) {
            None => {
                self.err(
                    Rule::RegisterFile,
                    i,
                    format!("{} does not exist in {}", name(reg), self.v),
                );
                false
            }
            Some(count) if reg.number.saturating_add(span - 1) >= count => {
                let what = if span > 1 {
                    format!("{}..{}", name(reg), reg.number + span - 1)
                } else {
                    name(reg)
                };
                self.err(
                    Rule::RegisterRange,
                    i,
                    format!(
                        "{what} is out of range: {} has {count} {} registers",
                        self.v,
                        crate::registers::prefix(reg.kind)
                    ),
                );
                false
            }
            Some(_) => true,
        }
    }

    fn dst_register(&mut self, i: usize, inst: &Instruction, d: &Dst) {
        use RegisterKind::*;
        if !self.check_range(i, d.reg, 1) {
            return;
        }
        let texkill = inst.opcode == Opcode::TexKill;
        let writable = match d.reg.kind {
            Temp | Addr | Predicate => true,
            k if is_output(k) => true,
            Texture => self.v.is_pixel() && self.n() < 0x200,
            _ => false,
        };
        if !writable && !texkill {
            self.err(Rule::ReadOnly, i, format!("{} is read-only", name(d.reg)));
        }
        if texkill && is_output(d.reg.kind) {
            self.err(Rule::WriteOnly, i, format!("{} is write-only", name(d.reg)));
        }
        if let Some(rel) = d.relative {
            self.relative(i, d.reg.kind, rel);
        }
    }

    fn src_register(&mut self, i: usize, inst: &Instruction, k: usize, s: &Src) {
        let span = match is_matrix(inst.opcode) {
            Some((rows, _)) if k == 1 => rows,
            _ => 1,
        };
        if !self.check_range(i, s.reg, span) {
            return;
        }
        if is_output(s.reg.kind) {
            self.err(Rule::WriteOnly, i, format!("{} is write-only", name(s.reg)));
        }
        if let Some(rel) = s.relative {
            self.relative(i, s.reg.kind, rel);
        }
    }

    fn relative(&mut self, i: usize, kind: RegisterKind, rel: Relative) {
        use RegisterKind::*;
        let n = self.n();
        let by_a0 = rel.reg.kind == Addr;
        let by_al = rel.reg.kind == Loop;
        let allowed = if self.vs() {
            match kind {
                Const => by_a0 || (by_al && n >= 0x200),
                Input => n >= 0x300 && (by_a0 || by_al),
                Output => n >= 0x300 && by_al,
                _ => false,
            }
        } else {
            n >= 0x300 && kind == Input && by_al
        };
        let file = crate::registers::prefix(kind);
        if !allowed {
            let by = register_name(rel.reg.kind, rel.reg.number);
            self.err(
                Rule::RelativeAddressing,
                i,
                format!("{file}# cannot be indexed by {by} in {}", self.v),
            );
            return;
        }
        if rel.reg.number != 0 {
            self.err(
                Rule::RelativeAddressing,
                i,
                "the index register must be a0 or aL",
            );
        }
        if by_al && rel.swizzle != Swizzle::IDENTITY {
            // The text has no spelling for it (the round-trip law, `encoding.rs`).
            self.err(Rule::RelativeAddressing, i, "aL takes no swizzle");
        }
        if by_a0 && !rel.swizzle.is_replicate() {
            self.err(
                Rule::RelativeAddressing,
                i,
                "an a0 index names one component (a0.x, a0.y, a0.z or a0.w)",
            );
        }
        if by_a0 && n < 0x200 && rel.swizzle.get(0) != 0 {
            self.err(Rule::RelativeAddressing, i, "vs_1_1 indexes with a0.x only");
        }
    }

    fn predicate(&mut self, i: usize, inst: &Instruction) {
        let Some(p) = inst.predicate else { return };
        let info = inst.opcode.info();
        if info.flow || matches!(inst.opcode, Opcode::Nop) {
            self.err(
                Rule::Predication,
                i,
                format!("{} cannot be predicated", info.mnemonic),
            );
        }
        if p.reg != Register::new(RegisterKind::Predicate, 0)
            || !matches!(p.modifier, SrcModifier::None | SrcModifier::Not)
            || p.relative.is_some()
            || !(p.swizzle == Swizzle::IDENTITY || p.swizzle.is_replicate())
        {
            self.err(
                Rule::Predication,
                i,
                "the predicate must be [!]p0 with .xyzw or one component",
            );
            return;
        }
        if self.file_count(RegisterKind::Predicate).is_none() {
            if self.is_2x() {
                self.err(
                    Rule::CapsFeature,
                    i,
                    "predication needs the predication cap",
                );
            } else {
                self.err(
                    Rule::RegisterFile,
                    i,
                    format!("p0 does not exist in {}", self.v),
                );
            }
        }
        if self.vs()
            && self.n() < 0x300
            && inst.opcode == Opcode::SinCos
            && !p.swizzle.is_replicate()
        {
            self.err(
                Rule::Predication,
                i,
                "a predicated sincos in vs_2_x needs a replicate predicate swizzle",
            );
        }
    }

    fn result_modifiers(&mut self, i: usize, inst: &Instruction) {
        let Some(d) = &inst.dst else { return };
        let op = inst.opcode;
        if d.shift != 0 && (self.vs() || self.n() >= 0x200) {
            self.err(
                Rule::ResultModifier,
                i,
                format!("shift modifiers do not exist in {}", self.v),
            );
        } else if (4..=12).contains(&d.shift) {
            self.err(
                Rule::ResultModifier,
                i,
                format!("shift {} is none of _x2, _x4, _x8, _d2, _d4, _d8", d.shift),
            );
        }
        if self.vs() {
            if d.modifiers & !RESULT_SATURATE != 0 {
                self.err(
                    Rule::ResultModifier,
                    i,
                    "_pp and _centroid are not allowed in vertex shaders",
                );
            }
            if d.saturate() {
                if self.n() < 0x300 {
                    self.err(
                        Rule::ResultModifier,
                        i,
                        format!("_sat needs vs_3_0, not {}", self.v),
                    );
                } else if matches!(
                    op,
                    Opcode::Frc | Opcode::SinCos | Opcode::TexLdl | Opcode::MovA | Opcode::Setp
                ) {
                    self.err(
                        Rule::ResultModifier,
                        i,
                        format!("{} takes no _sat", op.info().mnemonic),
                    );
                }
            }
        } else if d.modifiers & 0x8 != 0 {
            self.err(Rule::ResultModifier, i, "unknown result modifier");
        }
    }

    fn source_modifiers(&mut self, i: usize, inst: &Instruction) {
        use SrcModifier::*;
        let pixel1 = self.v.is_pixel() && self.n() < 0x200;
        let matrix = is_matrix(inst.opcode).is_some();
        let mut abs_c = (false, false);
        for (k, s) in inst.srcs.iter().enumerate() {
            let (neg, base) = s.modifier.split_negate();
            let ok = match base {
                None => true,
                Abs => {
                    if self.vs() {
                        self.n() >= 0x300
                    } else {
                        self.n() >= 0x200
                    }
                }
                Not => matches!(
                    s.reg.kind,
                    RegisterKind::ConstBool | RegisterKind::Predicate
                ),
                // _dz/_dw (texld/texcrd divide) exist in ps_1_4 only.
                Dz | Dw => self.v.is_pixel() && self.n() == 0x104,
                _ => pixel1,
            };
            if !ok {
                self.err(
                    Rule::SourceModifier,
                    i,
                    format!("source modifier {base:?} is not allowed here in {}", self.v),
                );
            }
            let plain_data = matches!(
                s.reg.kind,
                RegisterKind::ConstBool
                    | RegisterKind::ConstInt
                    | RegisterKind::Predicate
                    | RegisterKind::Label
                    | RegisterKind::Sampler
                    | RegisterKind::Loop
            );
            if neg && plain_data {
                self.err(
                    Rule::SourceModifier,
                    i,
                    format!("{} cannot be negated", name(s.reg)),
                );
            }
            if matrix && k == 1 && s.modifier != None {
                self.err(
                    Rule::SourceModifier,
                    i,
                    "the matrix operand of m4x4..m3x2 takes no modifier",
                );
            }
            if s.reg.kind == RegisterKind::Const {
                if base == Abs {
                    abs_c.0 = true;
                } else {
                    abs_c.1 = true;
                }
            }
        }
        if self.vs() && abs_c.0 && abs_c.1 {
            self.err(
                Rule::AbsConstantMix,
                i,
                "c# reads in one instruction must all use _abs or none",
            );
        }
    }

    fn want_kind(&mut self, i: usize, what: &str, reg: Register, kinds: &[RegisterKind]) -> bool {
        if kinds.contains(&reg.kind) {
            return true;
        }
        let names: Vec<&str> = kinds.iter().map(|k| crate::registers::prefix(*k)).collect();
        self.err(
            Rule::OperandKind,
            i,
            format!("{what} must be {}#, not {}", names.join("# or "), name(reg)),
        );
        false
    }

    fn want_replicate(&mut self, i: usize, what: &str, s: &Src, identity_ok: bool) {
        if !(s.swizzle.is_replicate() || identity_ok && s.swizzle == Swizzle::IDENTITY) {
            self.err(
                Rule::Swizzle,
                i,
                format!("{what} needs a one-component swizzle (.x, .y, .z or .w)"),
            );
        }
    }

    fn operands(&mut self, i: usize, inst: &Instruction) {
        use Opcode::{
            BreakC, BreakP, Call, CallNz, Crs, Dcl, Def, DefB, DefI, If, IfC, Mov, MovA, Nrm, Pow,
            Rep, Setp, Sgn, SinCos, Tex, TexKill, TexLdd, TexLdl,
        };
        use RegisterKind::{
            Addr, ConstBool, ConstInt, Input, MiscType, Predicate, RastOut, Sampler, Temp, Texture,
        };
        const CONST: RegisterKind = RegisterKind::Const;
        let op = inst.opcode;
        let m = op.info().mnemonic;
        let data: &[RegisterKind] = if self.vs() {
            &[Temp, Input, CONST]
        } else {
            &[Temp, Input, CONST, Texture, MiscType]
        };
        let info = op.info();
        // Destinations of ordinary instructions.
        if let Some(d) = &inst.dst {
            let ok = match op {
                MovA => self.want_kind(i, "mova's destination", d.reg, &[Addr]),
                Setp => self.want_kind(i, "setp's destination", d.reg, &[Predicate]),
                TexKill | Dcl | Def | DefI | DefB => true,
                Mov if d.reg.kind == Addr => {
                    if self.n() >= 0x200 {
                        self.warn(
                            Rule::MovA0,
                            i,
                            "mov a0 in vs_2_0+: use mova (executed as mova)",
                        );
                    }
                    true
                }
                _ => {
                    if matches!(d.reg.kind, Addr | Predicate) {
                        self.err(
                            Rule::OperandKind,
                            i,
                            format!("{m} cannot write {}", name(d.reg)),
                        );
                        false
                    } else {
                        true
                    }
                }
            };
            let _ = ok;
        }
        match op {
            Opcode::Loop => {
                self.want_kind(
                    i,
                    "loop's first operand",
                    inst.srcs[0].reg,
                    &[RegisterKind::Loop],
                );
                self.want_kind(i, "loop's second operand", inst.srcs[1].reg, &[ConstInt]);
            }
            Rep => {
                self.want_kind(i, "rep's operand", inst.srcs[0].reg, &[ConstInt]);
            }
            If => {
                let s = inst.srcs[0];
                if self.want_kind(i, "if's operand", s.reg, &[ConstBool, Predicate])
                    && s.reg.kind == Predicate
                {
                    self.want_replicate(i, "if p0", &s, false);
                }
            }
            BreakP => {
                let s = inst.srcs[0];
                if self.want_kind(i, "breakp's operand", s.reg, &[Predicate]) {
                    self.want_replicate(i, "breakp", &s, false);
                }
            }
            Call | Opcode::Label => {
                self.want_kind(
                    i,
                    &format!("{m}'s operand"),
                    inst.srcs[0].reg,
                    &[RegisterKind::Label],
                );
            }
            CallNz => {
                self.want_kind(
                    i,
                    "callnz's first operand",
                    inst.srcs[0].reg,
                    &[RegisterKind::Label],
                );
                let s = inst.srcs[1];
                if self.want_kind(i, "callnz's condition", s.reg, &[ConstBool, Predicate])
                    && s.reg.kind == Predicate
                {
                    self.want_replicate(i, "callnz p0", &s, false);
                }
            }
            IfC | BreakC => {
                for s in &inst.srcs {
                    if self.want_kind(i, &format!("{m}'s operand"), s.reg, data) {
                        // vFace is a scalar: it is written without a swizzle.
                        let scalar = s.reg == Register::new(MiscType, MISCTYPE_FACE);
                        self.want_replicate(i, &op.mnemonic(inst.control, self.v), s, scalar);
                    }
                }
            }
            TexLdl => {
                let d = inst.dst.expect("texldl has a destination");
                // The reference page says a temporary, but the Windows runtime accepts and
                // runs a vs_3_0 output register (`texldl o1, c0.x, s0`: instructions.md §6).
                let dst: &[RegisterKind] = if self.vs() {
                    &[Temp, RegisterKind::Output]
                } else {
                    &[Temp]
                };
                self.want_kind(i, "texldl's destination", d.reg, dst);
                self.want_kind(i, "texldl's coordinates", inst.srcs[0].reg, data);
                self.want_kind(i, "texldl's second operand", inst.srcs[1].reg, &[Sampler]);
            }
            // ps_1_x texture instructions read texture registers (ps_1_4's texld also a
            // temporary, in its second phase; texm3x3spec's eye vector is a constant): a
            // constant or a colour there has no texture coordinate (fuzz finding:
            // `texcrd r4, c3` passed and left the translation no coordinate to clamp).
            Opcode::TexCoord
            | Tex
            | Opcode::TexBem
            | Opcode::TexBemL
            | Opcode::TexReg2Ar
            | Opcode::TexReg2Gb
            | Opcode::TexReg2Rgb
            | Opcode::TexM3x2Pad
            | Opcode::TexM3x2Tex
            | Opcode::TexM3x3Pad
            | Opcode::TexM3x3Tex
            | Opcode::TexM3x3Spec
            | Opcode::TexM3x3VSpec
            | Opcode::TexDp3Tex
            | Opcode::TexM3x2Depth
            | Opcode::TexDp3
            | Opcode::TexM3x3
                if self.n() < 0x200 =>
            {
                let allowed: &[RegisterKind] = if op == Tex {
                    &[Texture, Temp]
                } else {
                    &[Texture]
                };
                if let Some(s) = inst.srcs.first() {
                    self.want_kind(i, &format!("{m}'s source"), s.reg, allowed);
                }
                if let Some(s) = inst.srcs.get(1).filter(|_| op == Opcode::TexM3x3Spec) {
                    self.want_kind(i, "texm3x3spec's eye vector", s.reg, &[CONST]);
                }
            }
            Tex | TexLdd if self.n() >= 0x200 => {
                // Coordinates (and texldd's gradients) are data registers like any
                // arithmetic source: never i#, b#, p0 or s# (fuzz finding: `texld r0, i0, s0`
                // passed and then had no value to translate).
                self.want_kind(i, "the texture coordinates", inst.srcs[0].reg, data);
                self.want_kind(i, "the sampler operand", inst.srcs[1].reg, &[Sampler]);
                for s in inst.srcs.iter().skip(2) {
                    self.want_kind(i, "texldd's gradient", s.reg, data);
                }
            }
            _ if info.flow || info.layout.src_counts(self.v) == [0] => {}
            _ => {
                let limit = match op {
                    SinCos | Sgn if inst.srcs.len() == 3 => 1,
                    _ if is_matrix(op).is_some() => 1,
                    _ => inst.srcs.len(),
                };
                for s in &inst.srcs[..limit] {
                    self.want_kind(i, &format!("{m}'s source"), s.reg, data);
                }
                if let Some(s) = is_matrix(op).and_then(|_| inst.srcs.get(1)) {
                    self.want_kind(i, &format!("{m}'s matrix"), s.reg, data);
                }
            }
        }
        if !self.vs() {
            return;
        }
        let d = inst.dst;
        let mask = d.map_or(0xF, |d| d.mask.0);
        match op {
            SinCos => {
                if let Some(d) = d {
                    self.want_kind(i, "sincos's destination", d.reg, &[Temp]);
                }
                if !matches!(mask, 1..=3) {
                    self.err(Rule::WriteMask, i, "sincos writes .x, .y or .xy");
                }
                self.want_replicate(i, "sincos's source", &inst.srcs[0], false);
                if inst.srcs.len() == 3 {
                    let (a, b) = (inst.srcs[1].reg, inst.srcs[2].reg);
                    if a.kind != CONST || b.kind != CONST || a == b {
                        self.err(
                            Rule::SinCosConstants,
                            i,
                            "sincos's extra sources must be two different c# (D3DSINCOSCONST1/2)",
                        );
                    }
                }
            }
            Crs => {
                if let Some(d) = d {
                    self.want_kind(i, "crs's destination", d.reg, &[Temp]);
                    if inst.srcs.iter().any(|s| s.reg == d.reg) {
                        self.err(
                            Rule::DstAliasing,
                            i,
                            "crs's destination must differ from its sources",
                        );
                    }
                }
                if mask & 0x8 != 0 {
                    self.err(Rule::WriteMask, i, "crs writes only x, y, z");
                }
                if inst.srcs.iter().any(|s| s.swizzle != Swizzle::IDENTITY) {
                    self.err(Rule::Swizzle, i, "crs's sources take no swizzle");
                }
            }
            Nrm => {
                if let Some(d) = d {
                    self.want_kind(i, "nrm's destination", d.reg, &[Temp]);
                    if inst.srcs[0].reg == d.reg && inst.srcs[0].relative.is_none() {
                        self.err(
                            Rule::DstAliasing,
                            i,
                            "nrm's destination must differ from its source",
                        );
                    }
                }
            }
            Pow => {
                self.want_replicate(i, "pow's first source", &inst.srcs[0], true);
                self.want_replicate(i, "pow's second source", &inst.srcs[1], true);
                if d.is_some_and(|d| d.reg == inst.srcs[1].reg && d.reg.kind == Temp) {
                    self.err(
                        Rule::DstAliasing,
                        i,
                        "pow's destination must differ from its second source",
                    );
                }
                if mask.count_ones() > 1 {
                    self.warn(
                        Rule::ScalarMask,
                        i,
                        "pow is scalar; the result is replicated",
                    );
                }
            }
            _ if is_scalar(op) => {
                self.want_replicate(i, &format!("{m}'s source"), &inst.srcs[0], true);
                if mask.count_ones() > 1 {
                    self.warn(
                        Rule::ScalarMask,
                        i,
                        format!("{m} is scalar; the result is replicated"),
                    );
                }
            }
            Sgn if inst.srcs.len() == 3 => {
                let (a, b) = (inst.srcs[1].reg, inst.srcs[2].reg);
                if a.kind != Temp || b.kind != Temp || a == b {
                    self.err(
                        Rule::SgnScratch,
                        i,
                        "sgn's extra sources must be two different r#",
                    );
                }
            }
            _ => {}
        }
        if let (Some((rows, produced)), Some(d)) = (is_matrix(op), d) {
            let m1 = inst.srcs[1];
            if m1.swizzle != Swizzle::IDENTITY {
                self.err(
                    Rule::Swizzle,
                    i,
                    format!("{m}'s matrix operand takes no swizzle"),
                );
            }
            if mask & !produced != 0 {
                self.err(
                    Rule::WriteMask,
                    i,
                    format!("{m} writes only {}", mask_name(produced)),
                );
            }
            let src0 = inst.srcs[0].reg;
            let in_matrix = d.reg.kind == m1.reg.kind
                && (m1.reg.number..m1.reg.number + rows).contains(&d.reg.number);
            if d.reg == src0 || in_matrix {
                self.err(
                    Rule::DstAliasing,
                    i,
                    format!("{m}'s destination must differ from its sources"),
                );
            }
        }
        // Scalar outputs.
        if let Some(d) = d
            && d.reg.kind == RastOut
            && d.reg.number >= 1
            && d.mask.0.count_ones() != 1
            && d.mask != ir::WriteMask::ALL
        {
            self.err(
                Rule::ScalarOutput,
                i,
                format!(
                    "{} is scalar: write one component (or no mask)",
                    name(d.reg)
                ),
            );
        }
    }

    fn read_ports(&mut self, i: usize, inst: &Instruction) {
        use RegisterKind::*;
        let srcs: &[Src] = match inst.opcode {
            Opcode::SinCos if inst.srcs.len() == 3 => &inst.srcs[..1],
            Opcode::Sgn if inst.srcs.len() == 3 => &inst.srcs[..1],
            _ => &inst.srcs,
        };
        // Per file (vPos and vFace are a file each): the distinct registers read, and how
        // many operands read the file.
        type Reads = (HashSet<(u32, Option<Relative>)>, usize);
        let mut by_file: BTreeMap<(RegisterKind, u32), Reads> = BTreeMap::new();
        for s in srcs {
            if s.reg.kind == Label {
                continue;
            }
            let misc = if s.reg.kind == MiscType {
                s.reg.number
            } else {
                0
            };
            let e = by_file.entry((s.reg.kind, misc)).or_default();
            e.0.insert((s.reg.number, s.relative));
            e.1 += 1;
        }
        for ((kind, misc), (distinct, reads)) in by_file {
            let Some(limit) = read_ports(self.v, kind) else {
                continue;
            };
            let file = match kind {
                MiscType => register_name(kind, misc),
                _ => format!("{}#", crate::registers::prefix(kind)),
            };
            if distinct.len() > limit.ports {
                self.err(
                    Rule::ReadPorts,
                    i,
                    format!(
                        "{} different {file} registers in one instruction; {} allows {}",
                        distinct.len(),
                        self.v,
                        limit.ports
                    ),
                );
            } else if let Some(max) = limit.reads.filter(|&max| reads > max) {
                self.err(
                    Rule::ReadsPerInstruction,
                    i,
                    format!(
                        "{reads} {file} operands in one instruction; {} allows {max}",
                        self.v
                    ),
                );
            }
        }
    }

    fn dcl(&mut self, i: usize, inst: &Instruction) {
        use RegisterKind::*;
        let (Some(d), Some(decl)) = (inst.dst, inst.decl) else {
            return;
        };
        if !self.check_range(i, d.reg, 1) {
            return;
        }
        if d.relative.is_some() || inst.predicate.is_some() || d.shift != 0 {
            self.err(
                Rule::DclInvalid,
                i,
                "a dcl takes no index, predicate or shift",
            );
        }
        let vs = self.vs();
        let n = self.n();
        if vs && d.modifiers != 0 || !vs && d.modifiers & RESULT_SATURATE != 0 {
            self.err(
                Rule::ResultModifier,
                i,
                "dcl takes no modifier in a vertex shader, only _pp/_centroid in a pixel shader",
            );
        }
        let semantic_ok = decl.texture_type == 0 && Usage::from_u32(decl.usage as u32).is_some();
        let plain = decl.token() == 0x8000_0000;
        let full = d.mask == WriteMask::ALL;
        match d.reg.kind {
            Sampler => {
                let t = TextureType::from_u32(decl.texture_type as u32);
                if !matches!(
                    t,
                    Some(TextureType::TwoD | TextureType::Cube | TextureType::Volume)
                ) || decl.usage != 0
                    || decl.usage_index != 0
                {
                    self.err(
                        Rule::DclInvalid,
                        i,
                        "a sampler is declared as dcl_2d, dcl_cube or dcl_volume",
                    );
                }
                if !full {
                    self.err(Rule::DclInvalid, i, "a sampler dcl takes no mask");
                }
            }
            Input if vs || n >= 0x300 => {
                if !semantic_ok {
                    self.err(Rule::DclInvalid, i, "bad usage in an input dcl");
                }
            }
            Input | Texture if !vs => {
                if !plain {
                    self.err(
                        Rule::DclInvalid,
                        i,
                        format!("{} declares inputs with a plain dcl", self.v),
                    );
                }
            }
            Output if vs => {
                if !semantic_ok {
                    self.err(Rule::DclInvalid, i, "bad usage in an output dcl");
                }
            }
            MiscType if !vs => {
                if !plain {
                    self.err(Rule::DclInvalid, i, "vPos and vFace take a plain dcl");
                }
                let ok = if d.reg.number == MISCTYPE_POSITION {
                    matches!(d.mask.0, 1..=3)
                } else {
                    full
                };
                if !ok {
                    self.err(
                        Rule::DclInvalid,
                        i,
                        "vPos is declared .x, .y or .xy; vFace with no mask",
                    );
                }
            }
            _ => self.err(
                Rule::DclInvalid,
                i,
                format!("{} cannot be declared in {}", name(d.reg), self.v),
            ),
        }
    }

    fn def(&mut self, i: usize, inst: &Instruction) {
        let Some(d) = inst.dst else { return };
        let want = match inst.opcode {
            Opcode::Def => RegisterKind::Const,
            Opcode::DefI => RegisterKind::ConstInt,
            _ => RegisterKind::ConstBool,
        };
        if d.reg.kind != want
            || d.relative.is_some()
            || d.mask != WriteMask::ALL
            || d.modifiers != 0
            || d.shift != 0
        {
            self.err(
                Rule::DefTarget,
                i,
                format!(
                    "{} defines a whole {}# register",
                    inst.opcode.info().mnemonic,
                    crate::registers::prefix(want)
                ),
            );
            return;
        }
        if let Some(count) = self.file_count(want)
            && d.reg.number >= count
        {
            self.err(
                Rule::DefTarget,
                i,
                format!("{} is out of range ({count} registers)", name(d.reg)),
            );
        }
    }

    /// Uses of inputs, samplers and vs_3_0 outputs against their declarations.
    fn declarations(&mut self) {
        use RegisterKind::*;
        let mut declared: HashMap<Register, Vec<(u8, Decl, usize)>> = HashMap::new();
        let mut semantics: HashMap<(RegisterKind, u8, u8), usize> = HashMap::new();
        for (i, inst) in self.s.instructions.iter().enumerate() {
            let (Some(d), Some(decl)) = (inst.dst, inst.decl) else {
                continue;
            };
            let entry = declared.entry(d.reg).or_default();
            let same = entry.iter().any(|(m, x, _)| *m == d.mask.0 && *x == decl);
            if same {
                // The runtime accepts a repeated identical dcl (modded shaders do this).
                self.warn(
                    Rule::DclDuplicate,
                    i,
                    format!("{} is declared twice, identically", name(d.reg)),
                );
                continue;
            }
            if entry.iter().any(|(m, _, _)| m & d.mask.0 != 0) {
                self.err(
                    Rule::DclDuplicate,
                    i,
                    format!("{} is declared twice", name(d.reg)),
                );
            }
            entry.push((d.mask.0, decl, i));
            let semantic = matches!(d.reg.kind, Input | Output) && (self.vs() || self.n() >= 0x300);
            if semantic
                && let Some(first) = semantics.insert((d.reg.kind, decl.usage, decl.usage_index), i)
            {
                let u = Usage::from_u32(decl.usage as u32).map_or("?", Usage::name);
                self.err(
                    Rule::DclDuplicate,
                    i,
                    format!(
                        "{u}{} is declared twice (first at instruction {})",
                        decl.usage_index,
                        first + 1
                    ),
                );
            }
        }
        let needs_input_dcl = self.vs() || self.n() >= 0x200;
        for (i, inst) in self.s.instructions.iter().enumerate() {
            if inst.decl.is_some() || inst.opcode == Opcode::Comment {
                continue;
            }
            for s in &inst.srcs {
                let k = s.reg.kind;
                let needs = match k {
                    Input | Texture => needs_input_dcl && s.relative.is_none(),
                    MiscType => true,
                    Sampler => true,
                    _ => false,
                };
                if needs && !declared.contains_key(&s.reg) {
                    let rule = if k == Sampler {
                        Rule::SamplerNotDeclared
                    } else {
                        Rule::InputNotDeclared
                    };
                    self.err(rule, i, format!("{} is used but not declared", name(s.reg)));
                }
            }
            if let Some(d) = inst.dst
                && d.reg.kind == Output
                && inst.opcode != Opcode::Dcl
                && !declared.contains_key(&d.reg)
            {
                self.err(
                    Rule::OutputNotDeclared,
                    i,
                    format!("{} is written but not declared", name(d.reg)),
                );
            }
        }
    }

    fn vertex_outputs(&mut self) {
        use RegisterKind::*;
        let insts = &self.s.instructions;
        if self.n() >= 0x300 {
            let dcls: Vec<(usize, Dst, Decl)> = insts
                .iter()
                .enumerate()
                .filter_map(|(i, x)| match (x.dst, x.decl) {
                    (Some(d), Some(decl)) if d.reg.kind == Output => Some((i, d, decl)),
                    _ => None,
                })
                .collect();
            let position = dcls
                .iter()
                .find(|(_, _, u)| u.usage == Usage::Position as u8 && u.usage_index == 0);
            match position {
                None => self.push(
                    Rule::PositionOutput,
                    Severity::Error,
                    None,
                    "no output is declared dcl_position (o# with mask .xyzw)".into(),
                ),
                Some((i, d, _)) if d.mask != WriteMask::ALL => {
                    let i = *i;
                    self.err(
                        Rule::PositionOutput,
                        i,
                        "the position output needs mask .xyzw",
                    )
                }
                _ => {}
            }
            let registers: HashSet<u32> = dcls.iter().map(|(_, d, _)| d.reg.number).collect();
            let psize: Vec<&(usize, Dst, Decl)> = dcls
                .iter()
                .filter(|(_, _, u)| u.usage == Usage::PSize as u8)
                .collect();
            for (i, d, _) in &psize {
                let shared = dcls.iter().filter(|(_, x, _)| x.reg == d.reg).count() > 1;
                if d.mask != WriteMask::ALL || shared {
                    let i = *i;
                    self.err(
                        Rule::OutputBudget,
                        i,
                        "psize is declared alone with mask .xyzw",
                    );
                }
            }
            if registers.len() == 12 && psize.is_empty() {
                self.push(
                    Rule::OutputBudget,
                    Severity::Error,
                    None,
                    "all twelve output registers are used; the twelfth can only hold psize".into(),
                );
            }
            // Indexed outputs.
            let pos_reg = position.map(|p| p.1.reg.number);
            let psize_reg = psize.first().map(|p| p.1.reg.number);
            let mut problems = Vec::new();
            for (i, inst) in insts.iter().enumerate() {
                let Some(d) = inst.dst else { continue };
                if d.reg.kind != Output || d.relative.is_none() {
                    continue;
                }
                if pos_reg.is_some_and(|p| p != 0) || psize_reg.is_some_and(|p| p != 1) {
                    problems.push((
                        i,
                        "with indexed outputs, position must be in o0 and psize in o1",
                    ));
                }
                if Some(d.reg.number) == pos_reg || Some(d.reg.number) == psize_reg {
                    problems.push((i, "the position and psize registers cannot be indexed"));
                }
            }
            for (i, m) in problems {
                self.err(Rule::OutputIndexing, i, m);
            }
        } else {
            let mut pos_written = false;
            let mut tex_masks: BTreeMap<u32, (u8, usize)> = BTreeMap::new();
            for (i, inst) in insts.iter().enumerate() {
                let Some(d) = inst.dst else { continue };
                match d.reg.kind {
                    RastOut if d.reg.number == RASTOUT_POSITION => pos_written = true,
                    TexCrdOut => {
                        let e = tex_masks.entry(d.reg.number).or_insert((0, i));
                        e.0 |= d.mask.0;
                    }
                    _ => {}
                }
            }
            if !pos_written {
                self.push(
                    Rule::PositionOutput,
                    Severity::Error,
                    None,
                    "oPos is never written".into(),
                );
            }
            for (n, (mask, i)) in tex_masks {
                if !matches!(mask, 0b0001 | 0b0011 | 0b0111 | 0b1111) {
                    self.warn(
                        Rule::TexCoordOutputMask,
                        i,
                        format!(
                            "oT{n} is written as {}; use .x, .xy, .xyz or .xyzw",
                            mask_name(mask)
                        ),
                    );
                }
            }
        }
    }

    /// Flow-control structure, nesting limits, labels and calls.
    fn flow(&mut self) {
        use Opcode::*;
        #[derive(Clone, Copy, PartialEq)]
        enum Block {
            IfStatic { has_else: bool },
            IfDynamic { has_else: bool },
            Loop,
            Rep,
        }
        let vs = self.vs();
        let n = self.n();
        let sw = self.sw();
        let loop_limit = match (vs, n) {
            (_, _) if sw => 4,
            (true, 0x200) => 1,
            (_, 0x201) => self
                .caps2()
                .static_flow_control_depth
                .max(if vs { 1 } else { 0 }),
            _ => 4,
        } as usize;
        let dyn_limit = match n {
            0x201 if !sw => self.caps2().dynamic_flow_control_depth,
            0x200 => 0,
            _ => 24,
        } as usize;
        let call_limit = match (vs, n) {
            (_, _) if sw => 4,
            (true, 0x200) => 1,
            (_, 0x201) => self.caps2().static_flow_control_depth.max(1),
            _ => 4,
        } as usize;
        let count_static = n < 0x300 && !sw;

        let mut stack: Vec<(Block, usize)> = Vec::new();
        let mut loops = 0usize;
        let mut aloops = 0usize;
        let mut dynamic = 0usize;
        let mut static_ifs = 0usize;
        let mut static_count = 0usize;
        let mut routine: Option<u32> = None; // None = main
        let mut after_ret = false;
        let mut labels: HashMap<u32, usize> = HashMap::new();
        let mut calls: Vec<(usize, Option<u32>, u32, bool, bool)> = Vec::new(); // (i, caller, callee, pred, in_loop)
        let mut al_uses: Vec<(usize, Option<u32>)> = Vec::new();
        let mut reported_count = false;

        let uses_al = |inst: &Instruction| {
            inst.srcs.iter().enumerate().any(|(k, s)| {
                (s.reg.kind == RegisterKind::Loop && !(inst.opcode == Loop && k == 0))
                    || s.relative.is_some_and(|r| r.reg.kind == RegisterKind::Loop)
            }) || inst
                .dst
                .is_some_and(|d| d.relative.is_some_and(|r| r.reg.kind == RegisterKind::Loop))
        };

        for (i, inst) in self.s.instructions.iter().enumerate() {
            let op = inst.opcode;
            if matches!(op, Comment | Dcl | Def | DefI | DefB) {
                continue;
            }
            if after_ret && op != Label {
                self.err(
                    Rule::Subroutines,
                    i,
                    "code after ret must start with a label",
                );
                after_ret = false;
            }
            if uses_al(inst) && aloops == 0 {
                al_uses.push((i, routine));
            }
            let pred_src = inst
                .srcs
                .iter()
                .any(|s| s.reg.kind == RegisterKind::Predicate);
            match op {
                If | IfC => {
                    let dynamic_if = op == IfC || pred_src;
                    if dynamic_if {
                        dynamic += 1;
                        if dynamic > dyn_limit {
                            self.err(
                                Rule::DynamicNesting,
                                i,
                                format!("dynamic flow control nested {dynamic} deep; the limit is {dyn_limit}"),
                            );
                        }
                        stack.push((Block::IfDynamic { has_else: false }, i));
                    } else {
                        static_ifs += 1;
                        static_count += 1;
                        if n >= 0x300 && static_ifs > 24 {
                            self.err(Rule::StaticIfNesting, i, "if b# nested deeper than 24");
                        }
                        stack.push((Block::IfStatic { has_else: false }, i));
                    }
                }
                Else => match stack.last_mut() {
                    Some((Block::IfStatic { has_else }, _)) if !*has_else => {
                        *has_else = true;
                        static_count += 1;
                    }
                    Some((Block::IfDynamic { has_else }, _)) if !*has_else => *has_else = true,
                    _ => self.err(Rule::Unbalanced, i, "else without a matching if"),
                },
                EndIf => match stack.last() {
                    Some((Block::IfStatic { .. }, _)) => {
                        stack.pop();
                        static_ifs -= 1;
                    }
                    Some((Block::IfDynamic { .. }, _)) => {
                        stack.pop();
                        dynamic -= 1;
                    }
                    _ => self.err(Rule::Unbalanced, i, "endif without a matching if"),
                },
                Loop | Rep => {
                    loops += 1;
                    static_count += 1;
                    if op == Loop {
                        aloops += 1;
                    }
                    if loops > loop_limit {
                        self.err(
                            Rule::LoopNesting,
                            i,
                            format!("loop/rep nested {loops} deep; the limit is {loop_limit}"),
                        );
                    }
                    stack.push((if op == Loop { Block::Loop } else { Block::Rep }, i));
                }
                EndLoop | EndRep => {
                    let want = if op == EndLoop {
                        Block::Loop
                    } else {
                        Block::Rep
                    };
                    if stack.last().map(|b| b.0) == Some(want) {
                        stack.pop();
                        loops -= 1;
                        if op == EndLoop {
                            aloops -= 1;
                        }
                    } else {
                        let m = op.info().mnemonic;
                        self.err(
                            Rule::Unbalanced,
                            i,
                            format!("{m} without a matching opening"),
                        );
                    }
                }
                Break | BreakC | BreakP => {
                    if loops == 0 {
                        self.err(Rule::BreakOutsideLoop, i, "break outside loop/rep");
                    }
                    if op != Break && dynamic + 1 > dyn_limit {
                        self.err(
                            Rule::DynamicNesting,
                            i,
                            format!(
                                "{} needs one free dynamic level; the limit is {dyn_limit}",
                                op.mnemonic(inst.control, self.v)
                            ),
                        );
                    }
                }
                Call | CallNz => {
                    let pred = op == CallNz && pred_src;
                    if !pred {
                        static_count += 1;
                    }
                    if pred && dynamic + 1 > dyn_limit {
                        self.err(
                            Rule::DynamicNesting,
                            i,
                            format!(
                                "callnz p0 needs one free dynamic level; the limit is {dyn_limit}"
                            ),
                        );
                    }
                    if let Some(l) = inst
                        .srcs
                        .first()
                        .filter(|s| s.reg.kind == RegisterKind::Label)
                    {
                        calls.push((i, routine, l.reg.number, pred, aloops > 0));
                    }
                }
                Ret => {
                    if let Some((_, at)) = stack.last() {
                        let at = *at;
                        self.err(
                            Rule::Unbalanced,
                            i,
                            format!(
                                "ret inside an open block (opened at instruction {})",
                                at + 1
                            ),
                        );
                        stack.clear();
                        loops = 0;
                        aloops = 0;
                        dynamic = 0;
                        static_ifs = 0;
                    }
                    after_ret = true;
                }
                Label => {
                    let l = inst.srcs[0].reg.number;
                    if routine.is_none() && !after_ret {
                        self.err(
                            Rule::Subroutines,
                            i,
                            "label only after the main program's ret",
                        );
                    }
                    if let Some(first) = labels.insert(l, i) {
                        self.err(
                            Rule::Subroutines,
                            i,
                            format!(
                                "label l{l} is defined twice (first at instruction {})",
                                first + 1
                            ),
                        );
                    }
                    routine = Some(l);
                    after_ret = false;
                }
                _ => {}
            }
            if count_static && static_count > 16 && !reported_count {
                reported_count = true;
                self.err(
                    Rule::StaticFlowCount,
                    i,
                    format!(
                        "more than 16 static flow-control instructions in {}",
                        self.v
                    ),
                );
            }
        }
        if let Some((b, at)) = stack.last() {
            let what = match b {
                Block::IfStatic { .. } | Block::IfDynamic { .. } => "if without endif",
                Block::Loop => "loop without endloop",
                Block::Rep => "rep without endrep",
            };
            self.err(Rule::Unbalanced, *at, what);
        }
        // Calls: targets defined, forward only, nesting depth.
        let mut graph: HashMap<Option<u32>, Vec<u32>> = HashMap::new();
        for &(i, caller, callee, _, _) in &calls {
            match labels.get(&callee) {
                None => self.err(
                    Rule::Subroutines,
                    i,
                    format!("l{callee} is called but never defined"),
                ),
                Some(&at) if at < i => self.err(
                    Rule::Subroutines,
                    i,
                    format!("l{callee} is defined before the call; calls go forward only"),
                ),
                Some(_) => graph.entry(caller).or_default().push(callee),
            }
        }
        fn depth(
            graph: &HashMap<Option<u32>, Vec<u32>>,
            node: Option<u32>,
            seen: &mut Vec<Option<u32>>,
        ) -> usize {
            if seen.contains(&node) || seen.len() > 64 {
                return 64;
            }
            seen.push(node);
            let d = graph.get(&node).map_or(0, |cs| {
                cs.iter()
                    .map(|&c| 1 + depth(graph, Some(c), seen))
                    .max()
                    .unwrap_or(0)
            });
            seen.pop();
            d
        }
        let d = depth(&graph, None, &mut Vec::new());
        if d > call_limit {
            self.push(
                Rule::CallNesting,
                Severity::Error,
                calls.first().map(|c| c.0),
                format!("calls nest {d} deep; {} allows {call_limit}", self.v),
            );
        }
        // aL outside loops: allowed in a subroutine only if every call to it is inside a loop.
        for (i, r) in al_uses {
            let ok = match r {
                None => false,
                Some(l) => {
                    let sites: Vec<_> = calls.iter().filter(|c| c.2 == l).collect();
                    !sites.is_empty() && sites.iter().all(|c| c.4)
                }
            };
            if !ok {
                self.err(Rule::LoopCounterOutsideLoop, i, "aL is used outside a loop");
            }
        }
    }

    /// Temporaries, a0 and p0 must be written before they are read (program order).
    fn read_before_write(&mut self) {
        use RegisterKind::*;
        let insts = &self.s.instructions;
        // Split into routines: main, then one per label.
        let mut bounds: Vec<(Option<u32>, usize, usize)> = Vec::new();
        let mut start = 0;
        let mut current = None;
        for (i, inst) in insts.iter().enumerate() {
            if inst.opcode == Opcode::Label
                && let Some(l) = inst.srcs.first()
            {
                bounds.push((current, start, i));
                current = Some(l.reg.number);
                start = i;
            }
        }
        bounds.push((current, start, insts.len()));
        let tracked = |k: RegisterKind| matches!(k, Temp | Addr | Predicate);
        let writes_of = |range: std::ops::Range<usize>| {
            let mut w: HashMap<Register, u8> = HashMap::new();
            for inst in &insts[range] {
                if let Some(d) = inst.dst
                    && tracked(d.reg.kind)
                    && d.relative.is_none()
                {
                    *w.entry(d.reg).or_default() |= d.mask.0;
                }
            }
            w
        };
        let routine_writes: HashMap<Option<u32>, HashMap<Register, u8>> = bounds
            .iter()
            .map(|&(r, s, e)| (r, writes_of(s..e)))
            .collect();
        let main_all = routine_writes.get(&None).cloned().unwrap_or_default();
        let samplers: HashMap<u32, u8> = insts
            .iter()
            .filter(|x| x.decl.is_some() && x.dst.is_some_and(|d| d.reg.kind == Sampler))
            .map(|x| {
                (
                    x.dst.map_or(0, |d| d.reg.number),
                    x.decl.map_or(0, |d| d.texture_type),
                )
            })
            .collect();
        let mut found: Vec<(usize, String)> = Vec::new();
        for &(r, s, e) in &bounds {
            let mut written: HashMap<Register, u8> = if r.is_some() {
                main_all.clone()
            } else {
                HashMap::new()
            };
            for (i, inst) in insts.iter().enumerate().take(e).skip(s) {
                if inst.decl.is_some() {
                    continue;
                }
                // Register granularity: the D3D9 runtime accepts shipped (modded) shaders that
                // read a partly written temporary, so only a register never written is an error.
                let check = |reg: Register, comps: u8, found: &mut Vec<(usize, String)>| {
                    if tracked(reg.kind) && comps != 0 && !written.contains_key(&reg) {
                        found.push((i, format!("{} is read before it is written", name(reg))));
                    }
                };
                for (k, src) in inst.srcs.iter().enumerate() {
                    if !tracked(src.reg.kind) {
                        if let Some(rel) = src.relative
                            && rel.reg.kind == Addr
                        {
                            check(rel.reg, 1 << rel.swizzle.get(0), &mut found);
                        }
                        continue;
                    }
                    let comps = match inst.opcode {
                        Opcode::If | Opcode::CallNz | Opcode::BreakP => 1 << src.swizzle.get(0),
                        // Texture coordinates: as many as the sampler's dimension, plus w for
                        // texldp/texldb/texldl (the LOD or projection).
                        Opcode::Tex | Opcode::TexLdl | Opcode::TexLdd if k == 0 => {
                            let dims = inst
                                .srcs
                                .get(1)
                                .and_then(|s| samplers.get(&s.reg.number))
                                .map_or(0b0111, |&t| {
                                    if t == TextureType::TwoD as u8 {
                                        0b0011
                                    } else {
                                        0b0111
                                    }
                                });
                            let w = if inst.opcode == Opcode::TexLdl || inst.control != 0 {
                                0b1000
                            } else {
                                0
                            };
                            (0..4)
                                .filter(|&c| (dims | w) >> c & 1 != 0)
                                .fold(0, |m, c| m | 1 << src.swizzle.get(c))
                        }
                        _ => inst.src_components(k),
                    };
                    check(src.reg, comps, &mut found);
                }
                if let Some(p) = inst.predicate {
                    let mask = inst.dst.map_or(0xF, |d| d.mask.0);
                    let comps = (0..4)
                        .filter(|&c| mask >> c & 1 != 0)
                        .fold(0u8, |m, c| m | 1 << p.swizzle.get(c));
                    check(p.reg, comps, &mut found);
                }
                if let Some(d) = inst.dst
                    && let Some(rel) = d.relative
                    && rel.reg.kind == Addr
                {
                    check(rel.reg, 1 << rel.swizzle.get(0), &mut found);
                }
                if let Some(d) = inst.dst
                    && tracked(d.reg.kind)
                    && d.relative.is_none()
                {
                    *written.entry(d.reg).or_default() |= d.mask.0;
                }
                if matches!(inst.opcode, Opcode::Call | Opcode::CallNz)
                    && let Some(l) = inst.srcs.first()
                    && let Some(w) = routine_writes.get(&Some(l.reg.number))
                {
                    for (reg, m) in w {
                        *written.entry(*reg).or_default() |= m;
                    }
                }
            }
        }
        let mut seen = HashSet::new();
        for (i, m) in found {
            if seen.insert((i, m.clone())) {
                self.err(Rule::ReadBeforeWrite, i, m);
            }
        }
    }

    fn slots(&mut self) {
        if self.sw() {
            return;
        }
        let cube: HashSet<u32> = self
            .s
            .instructions
            .iter()
            .filter(|x| {
                x.decl
                    .is_some_and(|d| d.texture_type == TextureType::Cube as u8)
            })
            .filter_map(|x| x.dst.map(|d| d.reg.number))
            .collect();
        let mut total = 0usize;
        let mut texture = 0usize;
        let mut over_at = None;
        let limit = match (self.vs(), self.n()) {
            (true, 0..0x200) => 128,
            (true, 0x200..0x300) => 256,
            (true, _) => self.caps.max_vertex_shader30_instruction_slots as usize,
            (false, 0..0x200) => 12,
            (false, 0x200) => 64 + 32,
            (false, 0x201) => self.caps.ps20.num_instruction_slots as usize,
            (false, _) => self.caps.max_pixel_shader30_instruction_slots as usize,
        };
        for (i, inst) in self.s.instructions.iter().enumerate() {
            let op = inst.opcode;
            if matches!(
                op,
                Opcode::Comment
                    | Opcode::Dcl
                    | Opcode::Def
                    | Opcode::DefI
                    | Opcode::DefB
                    | Opcode::Label
                    | Opcode::Phase
            ) {
                continue;
            }
            let mut cost = if self.vs() {
                op.vs_slots(self.v).unwrap_or(1) as usize
            } else {
                1
            };
            if op == Opcode::TexLdl
                && inst
                    .srcs
                    .get(1)
                    .is_some_and(|s| cube.contains(&s.reg.number))
            {
                cost = 5;
            }
            if inst.predicate.is_some() {
                cost += 1;
            }
            if self.v.is_pixel()
                && matches!(
                    op,
                    Opcode::Tex | Opcode::TexKill | Opcode::TexLdd | Opcode::TexLdl
                )
            {
                texture += 1;
            }
            total += cost;
            if total > limit && over_at.is_none() {
                over_at = Some(i);
            }
        }
        if let Some(i) = over_at {
            self.err(
                Rule::InstructionSlots,
                i,
                format!(
                    "the shader needs {total} instruction slots; {} allows {limit}",
                    self.v
                ),
            );
        }
        if self.v.is_pixel() && self.n() == 0x200 && (texture > 32 || total - texture > 64) {
            self.push(
                Rule::InstructionSlots,
                Severity::Error,
                None,
                format!("ps_2_0 allows 64 arithmetic and 32 texture instructions; this has {} and {texture}", total - texture),
            );
        }
    }
}

fn mask_name(m: u8) -> String {
    let s: String = (0..4)
        .filter(|c| m >> c & 1 != 0)
        .map(|c| ['x', 'y', 'z', 'w'][c])
        .collect();
    format!(".{s}")
}

#[cfg(test)]
mod tests;
