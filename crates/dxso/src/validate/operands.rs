//! What each instruction's operands may be: register kinds per opcode and version,
//! swizzles that must replicate, and the read ports a register file allows per
//! instruction.

use super::*;

impl Validator<'_> {
    pub(super) fn want_kind(
        &mut self,
        i: usize,
        what: &str,
        reg: Register,
        kinds: &[RegisterKind],
    ) -> bool {
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

    pub(super) fn want_replicate(&mut self, i: usize, what: &str, s: &Src, identity_ok: bool) {
        if !(s.swizzle.is_replicate() || identity_ok && s.swizzle == Swizzle::IDENTITY) {
            self.err(
                Rule::Swizzle,
                i,
                format!("{what} needs a one-component swizzle (.x, .y, .z or .w)"),
            );
        }
    }

    /// What each operand of `inst` may be, by phase: the destination's register kind, the
    /// sources' kinds, and (in vertex shaders) each instruction's own rules, the matrix
    /// macros' operands and the scalar outputs.
    pub(super) fn operands(&mut self, i: usize, inst: &Instruction) {
        self.dst_kind(i, inst);
        self.src_kinds(i, inst);
        if inst.opcode == Opcode::Crs {
            self.crs_rules(i, inst);
        }
        if !self.vs() {
            return;
        }
        self.vs_instruction_rules(i, inst);
        self.matrix_operands(i, inst);
        self.scalar_output(i, inst);
    }

    /// The register kinds an arithmetic source may be.
    fn data_kinds(&self) -> &'static [RegisterKind] {
        use RegisterKind::{Input, MiscType, Temp, Texture};
        if self.vs() {
            &[Temp, Input, RegisterKind::Const]
        } else {
            &[Temp, Input, RegisterKind::Const, Texture, MiscType]
        }
    }

    /// Destinations of ordinary instructions.
    fn dst_kind(&mut self, i: usize, inst: &Instruction) {
        use Opcode::{Dcl, Def, DefB, DefI, Mov, MovA, Setp, TexKill};
        use RegisterKind::{Addr, Predicate};
        let op = inst.opcode;
        let m = op.info().mnemonic;
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
    }

    /// The register kinds of the sources (and of texldl's destination), per opcode.
    fn src_kinds(&mut self, i: usize, inst: &Instruction) {
        use Opcode::{
            BreakC, BreakP, Call, CallNz, If, IfC, Rep, Sgn, SinCos, Tex, TexLdd, TexLdl,
        };
        use RegisterKind::{ConstBool, ConstInt, MiscType, Predicate, Sampler, Temp, Texture};
        const CONST: RegisterKind = RegisterKind::Const;
        let op = inst.opcode;
        let m = op.info().mnemonic;
        let info = op.info();
        let data = self.data_kinds();
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
    }

    /// `crs` in vertex and pixel shaders alike (`crs---vs`, `crs---ps`): a temporary
    /// destination that is neither source, no w in its mask, no swizzle on the sources.
    fn crs_rules(&mut self, i: usize, inst: &Instruction) {
        if let Some(d) = inst.dst {
            self.want_kind(i, "crs's destination", d.reg, &[RegisterKind::Temp]);
            if inst.srcs.iter().any(|s| s.reg == d.reg) {
                self.err(
                    Rule::DstAliasing,
                    i,
                    "crs's destination must differ from its sources",
                );
            }
        }
        if inst.dst.map_or(0xF, |d| d.mask.0) & 0x8 != 0 {
            self.err(Rule::WriteMask, i, "crs writes only x, y, z");
        }
        if inst.srcs.iter().any(|s| s.swizzle != Swizzle::IDENTITY) {
            self.err(Rule::Swizzle, i, "crs's sources take no swizzle");
        }
    }

    /// Vertex shaders: the rules of sincos, nrm, pow, the scalar instructions and sgn.
    fn vs_instruction_rules(&mut self, i: usize, inst: &Instruction) {
        use Opcode::{Nrm, Pow, Sgn, SinCos};
        use RegisterKind::Temp;
        const CONST: RegisterKind = RegisterKind::Const;
        let op = inst.opcode;
        let m = op.info().mnemonic;
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
            _ if op.is_scalar() => {
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
    }

    /// Vertex shaders: a matrix macro's matrix operand, write mask and aliasing.
    fn matrix_operands(&mut self, i: usize, inst: &Instruction) {
        let op = inst.opcode;
        let m = op.info().mnemonic;
        let d = inst.dst;
        let mask = d.map_or(0xF, |d| d.mask.0);
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
    }

    /// Vertex shaders: the scalar outputs (oFog, oPts) take one component.
    fn scalar_output(&mut self, i: usize, inst: &Instruction) {
        use RegisterKind::RastOut;
        if let Some(d) = inst.dst
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

    pub(super) fn read_ports(&mut self, i: usize, inst: &Instruction) {
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
}
