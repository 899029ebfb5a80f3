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
mod declarations;
mod encoding;
mod flow;
mod operands;
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
    /// The runtime would refuse the shader.
    Error,
    /// The runtime accepts the shader, but something in it is likely a mistake.
    Warning,
}

/// One finding, attached to an instruction (index into `Shader::instructions`) when it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule broken.
    pub rule: Rule,
    /// Error or warning.
    pub severity: Severity,
    /// The instruction it points at (an index into `Shader::instructions`).
    pub instruction: Option<usize>,
    /// What is wrong, in a sentence.
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
    /// The shader as validated.
    pub fn shader(&self) -> &Shader {
        &self.shader
    }
    /// The caps it was validated against.
    pub fn caps(&self) -> &Caps {
        &self.caps
    }
    /// The warnings validation found.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }
    /// The shader, without the caps and warnings.
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
