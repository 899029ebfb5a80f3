//! Declarations: `dcl` (usages, samplers, registers a version may declare), `def*`, and
//! the declarations a whole shader needs (vs_3_0 outputs and their semantics).

use super::*;

impl Validator<'_> {
    pub(super) fn dcl(&mut self, i: usize, inst: &Instruction) {
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

    pub(super) fn def(&mut self, i: usize, inst: &Instruction) {
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
    pub(super) fn declarations(&mut self) {
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

    pub(super) fn vertex_outputs(&mut self) {
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
}
