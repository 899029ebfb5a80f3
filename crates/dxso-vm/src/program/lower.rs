//! Lowering: a validated shader's instructions to the program's ops (rows placed, operands
//! resolved, the matrix macros expanded, flow control turned into jumps).

use super::*;

pub(crate) struct Lowering<'a> {
    pub shader: &'a Shader,
    pub ops: Vec<Op>,
    pub op_source: Vec<u32>,
    const_rows: Vec<(u16, u32)>,
    next_row: u16,
    scratch: u16,
    vs3: bool,
    /// Pixel shaders: the pixel registers' rows and the lowering's pending state.
    pub pixel: Option<crate::pixel::PixelLowering>,
}

/// Output index (0..16) of an output register.
fn output_index(kind: RegisterKind, number: u32, vs3: bool) -> Option<u32> {
    match kind {
        RegisterKind::Output if vs3 => Some(number),
        RegisterKind::RastOut => Some(RASTOUT_INDEX + number),
        RegisterKind::AttrOut => Some(ATTROUT_INDEX + number),
        RegisterKind::TexCrdOut => Some(TEXCRDOUT_INDEX + number),
        _ => None,
    }
    .filter(|&i| i < OUTPUTS as u32)
}

pub(crate) fn lower(shader: &Shader) -> Result<Program, LowerError> {
    if shader.version.is_pixel() {
        return Err(LowerError::PixelShader);
    }
    lower_any(shader)
}

/// Lower a vertex or a pixel shader (pixel shaders only run through `pixel::PixelState`).
pub(crate) fn lower_any(shader: &Shader) -> Result<Program, LowerError> {
    let pixel = shader.version.is_pixel();
    let vs3 = !pixel && shader.version.major >= 3;
    let mut l = Lowering {
        shader,
        ops: Vec::new(),
        op_source: Vec::new(),
        const_rows: Vec::new(),
        next_row: CONST_BASE,
        scratch: 0,
        vs3,
        pixel: None,
    };
    let mut program = Program {
        ops: Vec::new(),
        const_rows: Vec::new(),
        rows: 0,
        inputs: Vec::new(),
        outputs: Vec::new(),
        defs: Vec::new(),
        defis: Vec::new(),
        defbs: Vec::new(),
        samplers: Vec::new(),
        op_source: Vec::new(),
        shader: shader.clone(),
        written: 0,
        output_rows: 0,
        diffuse: None,
        pixel: None,
    };
    l.place_rows(&mut program);
    let mut outputs = declarations(&mut program, shader);
    if !vs3 && !pixel {
        outputs.extend(written_outputs(&mut program, shader));
    }
    outputs.sort_by_key(|o| o.0);
    program.outputs = outputs
        .into_iter()
        .map(|(i, name, semantic)| OutputRegister {
            name,
            semantic,
            row: OUTPUT_BASE + i as u16 * 4,
        })
        .collect();
    l.code()?;
    cleared_rows(&mut program, &l.ops);
    program.op_source = l.op_source;
    program.ops = l.ops;
    program.const_rows = l.const_rows;
    program.rows = l.next_row as usize;
    Ok(program)
}

/// The `def`s, declared inputs, samplers and (vs_3_0) outputs of a shader; the outputs as
/// (index, name, semantics).
fn declarations(program: &mut Program, shader: &Shader) -> Vec<(u32, String, String)> {
    let mut outputs: Vec<(u32, String, String)> = Vec::new();
    for inst in &shader.instructions {
        let (Some(d), Some(decl)) = (inst.dst, inst.decl) else {
            match inst.opcode {
                Opcode::Def => program.defs.push((
                    inst.dst.map_or(0, |d| d.reg.number),
                    std::array::from_fn(|k| f32::from_bits(inst.imm[k])),
                )),
                Opcode::DefI => program.defis.push((
                    inst.dst.map_or(0, |d| d.reg.number),
                    std::array::from_fn(|k| inst.imm[k] as i32),
                )),
                Opcode::DefB => program
                    .defbs
                    .push((inst.dst.map_or(0, |d| d.reg.number), inst.imm[0] != 0)),
                _ => {}
            }
            continue;
        };
        let usage = Usage::from_u32(decl.usage as u32).unwrap_or(Usage::Position);
        match d.reg.kind {
            RegisterKind::Input => {
                program
                    .inputs
                    .push((d.reg.number as u8, usage, decl.usage_index))
            }
            RegisterKind::Output => {
                let sem = semantic_name(usage, decl.usage_index);
                match outputs.iter_mut().find(|o| o.0 == d.reg.number) {
                    Some(o) => {
                        o.2.push('+');
                        o.2.push_str(&sem);
                    }
                    None => outputs.push((d.reg.number, format!("o{}", d.reg.number), sem)),
                }
            }
            RegisterKind::Sampler => program.samplers.push((
                d.reg.number as u8,
                ir::TextureType::from_u32(decl.texture_type as u32)
                    .unwrap_or(ir::TextureType::TwoD),
            )),
            _ => {}
        }
    }
    outputs
}

/// vs_1_1 .. vs_2_x: every output register the shader writes, in a fixed order; and oD0
/// always: its unwritten components are 1.0 (C11), which the rasterizer sees.
fn written_outputs(program: &mut Program, shader: &Shader) -> Vec<(u32, String, String)> {
    let mut written = [false; OUTPUTS as usize];
    written[ATTROUT_INDEX as usize] = true;
    program.diffuse = Some(OUTPUT_BASE + ATTROUT_INDEX as u16 * 4);
    for inst in &shader.instructions {
        if let Some(d) = inst.dst
            && let Some(i) = output_index(d.reg.kind, d.reg.number, false)
        {
            written[i as usize] = true;
        }
    }
    let mut outputs = Vec::new();
    for (i, w) in written.iter().enumerate() {
        if !w {
            continue;
        }
        let i = i as u32;
        let (name, sem) = match i {
            0 => ("oPos".to_string(), "POSITION0".to_string()),
            1 => ("oFog".into(), "FOG0".into()),
            2 => ("oPts".into(), "PSIZE0".into()),
            3 | 4 => (format!("oD{}", i - 3), format!("COLOR{}", i - 3)),
            _ => (format!("oT{}", i - 5), format!("TEXCOORD{}", i - 5)),
        };
        outputs.push((i, name, sem));
    }
    outputs
}

/// The temp, input and output rows each batch clears: those the ops write (C11, C14). A
/// register no op writes keeps the arena's zeros from batch to batch; a written one could
/// leak a lane's value into the next batch's lanes that read it before writing it (a write
/// under a branch or a predicate, one component of it), so it starts each batch at zero.
fn cleared_rows(program: &mut Program, ops: &[Op]) {
    use crate::pixel::PixelOp;
    let (mut written, mut output_rows) = (0u64, 0u16);
    let mut mark = |row: u16| {
        if row < OUTPUT_BASE {
            written |= 1 << ((row - TEMP_BASE) / 4);
        } else if row < CONST_BASE {
            output_rows = output_rows.max((row - OUTPUT_BASE) / 4 * 4 + 4);
        }
    };
    for op in ops {
        let dst = match op {
            Op::Alu { dst, .. }
            | Op::Pixel(PixelOp::Sample { dst, .. } | PixelOp::Divide { dst, .. }) => dst,
            Op::Pixel(PixelOp::Luminance { dst, .. }) => {
                (*dst..*dst + 4).for_each(&mut mark);
                continue;
            }
            // The others write scratch rows (written before they are read) or texdepth's
            // oDepth, which starts each batch as the interpolated depth (the pixel runner).
            _ => continue,
        };
        match dst.kind {
            DstKind::Rows(r) => (0..4)
                .filter(|c| dst.mask >> c & 1 != 0)
                .for_each(|c| mark(r + c)),
            DstKind::OutputByLoop(_) => mark(OUTPUT_BASE + OUTPUTS * 4 - 1),
            DstKind::Addr | DstKind::Pred => {}
        }
    }
    program.written = written;
    program.output_rows = output_rows;
    // Outputs a program declares but never writes still read as zero (oD0 of vs_1_1 ..
    // vs_2_x as one).
    for o in &program.outputs {
        program.output_rows = program.output_rows.max(o.row - OUTPUT_BASE + 4);
    }
}

impl Lowering<'_> {
    /// Constant rows first (every directly read constant, a matrix macro's rows included), so
    /// scratch rows follow them; then the gather scratch and, for pixel shaders, their rows.
    fn place_rows(&mut self, program: &mut Program) {
        let mut consts: Vec<u32> = Vec::new();
        for inst in &self.shader.instructions {
            for (k, s) in inst.srcs.iter().enumerate() {
                if s.reg.kind == RegisterKind::Const && s.relative.is_none() {
                    let span = inst.opcode.source_registers(k);
                    consts.extend(s.reg.number..s.reg.number + span);
                }
            }
        }
        consts.sort_unstable();
        consts.dedup();
        for c in consts {
            self.const_rows.push((self.next_row, c));
            self.next_row += 4;
        }
        self.scratch = self.next_row;
        // Four slots of four rows for per-lane gathers, four more for c[aL + n] ones (which
        // hold one value in every lane: see `is_uniform_row`).
        self.next_row += 8 * 4;
        if self.shader.version.is_pixel() {
            let rows = crate::pixel::PixelRows::new(self.next_row);
            self.next_row = rows.end();
            program.pixel = Some(rows);
            self.pixel = Some(crate::pixel::PixelLowering::new(self.shader.version, rows));
        }
    }

    fn const_row(&self, c: u32) -> u16 {
        self.const_rows
            .iter()
            .find(|(_, n)| *n == c)
            .map(|r| r.0)
            .expect("every directly read constant has rows")
    }

    /// Base row of a directly addressed register.
    pub(crate) fn reg_row(&self, kind: RegisterKind, number: u32) -> Option<u16> {
        if let Some(p) = &self.pixel {
            return match kind {
                RegisterKind::Const => Some(self.const_row(number)),
                _ => p.reg_row(kind, number),
            };
        }
        Some(match kind {
            RegisterKind::Temp if number < TEMPS as u32 => TEMP_BASE + number as u16 * 4,
            RegisterKind::Input if number < INPUTS as u32 => INPUT_BASE + number as u16 * 4,
            RegisterKind::Const => self.const_row(number),
            _ => OUTPUT_BASE + output_index(kind, number, self.vs3)? as u16 * 4,
        })
    }

    /// A source operand; relative ones get a gather op into scratch rows `slot`.
    pub(crate) fn src(
        &mut self,
        i: usize,
        s: &ir::Src,
        slot: u16,
        span_row: u32,
    ) -> Result<SrcRef, LowerError> {
        let (neg, base) = s.modifier.split_negate();
        let abs = base == SrcModifier::Abs;
        let base_row = match s.relative {
            None => self
                .reg_row(s.reg.kind, s.reg.number + span_row)
                .ok_or_else(|| self.unsupported(i, &format!("reading {:?}", s.reg.kind)))?,
            Some(rel) => {
                let by_loop = rel.reg.kind == RegisterKind::Loop;
                let uniform = by_loop && s.reg.kind == RegisterKind::Const;
                let dst = self.scratch + (slot + if uniform { UNIFORM_SLOTS } else { 0 }) * 4;
                let number = (s.reg.number + span_row) as i32;
                let comp = rel.swizzle.get(0) as u8;
                self.ops.push(match (s.reg.kind, by_loop) {
                    (RegisterKind::Const, false) => Op::GatherConstA0 {
                        dst,
                        base: number,
                        comp,
                    },
                    (RegisterKind::Const, true) => Op::GatherConstAl { dst, base: number },
                    (RegisterKind::Input, true) => Op::GatherInputAl { dst, base: number },
                    (RegisterKind::Input, false) => Op::GatherInputA0 {
                        dst,
                        base: number,
                        comp,
                    },
                    _ => return Err(self.unsupported(i, "this relative operand")),
                });
                dst
            }
        };
        Ok(SrcRef {
            rows: std::array::from_fn(|c| base_row + s.swizzle.get(c) as u16),
            and: if abs { !SIGN } else { u32::MAX },
            xor: if neg { SIGN } else { 0 },
        })
    }

    pub(crate) fn unsupported(&self, i: usize, what: &str) -> LowerError {
        LowerError::Unsupported(i, what.to_string())
    }

    pub(crate) fn dst(&self, i: usize, inst: &Instruction) -> Result<DstRef, LowerError> {
        let d = inst.dst.expect("arithmetic has a destination");
        let kind = match (d.reg.kind, d.relative) {
            (RegisterKind::Addr, _) => DstKind::Addr,
            (RegisterKind::Predicate, _) => DstKind::Pred,
            (RegisterKind::Output, Some(_)) => DstKind::OutputByLoop(d.reg.number as i32),
            (k, None) => DstKind::Rows(
                self.reg_row(k, d.reg.number)
                    .ok_or_else(|| self.unsupported(i, &format!("writing {k:?}")))?,
            ),
            _ => return Err(self.unsupported(i, "this relative destination")),
        };
        let pred = inst.predicate.map(|p| PredRef {
            comps: std::array::from_fn(|c| p.swizzle.get(c) as u8),
            not: p.modifier == SrcModifier::Not,
        });
        Ok(DstRef {
            kind,
            mask: d.mask.0,
            sat: d.saturate(),
            pred,
            hazard: false,
        })
    }

    fn cond(&mut self, i: usize, inst: &Instruction) -> Result<Cond, LowerError> {
        Ok(match inst.opcode {
            Opcode::IfC | Opcode::BreakC => {
                let a = self.src(i, &inst.srcs[0], 0, 0)?;
                let b = self.src(i, &inst.srcs[1], 1, 0)?;
                Cond::Cmp(inst.comparison().unwrap_or(Comparison::Gt), a, b)
            }
            _ => {
                let p = inst.srcs.last().expect("a predicate operand");
                Cond::Pred(p.swizzle.get(0) as u8, p.modifier == SrcModifier::Not)
            }
        })
    }

    fn code(&mut self) -> Result<(), LowerError> {
        use Opcode as O;
        // Pending jump fix-ups.
        enum Open {
            IfBool(usize),
            IfBoolElse(usize),
            IfDyn(usize),
            IfDynElse(usize),
            Loop(usize),
        }
        let mut open: Vec<Open> = Vec::new();
        let mut label_pc: Vec<(u32, u32)> = Vec::new();
        let mut calls: Vec<(usize, u32)> = Vec::new();
        let insts = &self.shader.instructions;
        for (i, inst) in insts.iter().enumerate() {
            let pc = self.ops.len();
            match inst.opcode {
                O::Comment | O::Dcl | O::Def | O::DefI | O::DefB | O::Nop => {}
                O::Label => label_pc.push((inst.srcs[0].reg.number, pc as u32)),
                O::Ret => self.ops.push(Op::Ret),
                O::Call => {
                    calls.push((pc, inst.srcs[0].reg.number));
                    self.ops.push(Op::Call { target: 0 });
                }
                O::CallNz => {
                    calls.push((pc, inst.srcs[0].reg.number));
                    let c = inst.srcs[1];
                    let not = c.modifier == SrcModifier::Not;
                    self.ops.push(if c.reg.kind == RegisterKind::ConstBool {
                        Op::CallBool {
                            b: c.reg.number as u8,
                            not,
                            target: 0,
                        }
                    } else {
                        Op::CallPred {
                            comp: c.swizzle.get(0) as u8,
                            not,
                            target: 0,
                        }
                    });
                }
                O::If if inst.srcs[0].reg.kind == RegisterKind::ConstBool => {
                    let c = inst.srcs[0];
                    open.push(Open::IfBool(pc));
                    self.ops.push(Op::IfBool {
                        b: c.reg.number as u8,
                        not: c.modifier == SrcModifier::Not,
                        target: 0,
                    });
                }
                O::If | O::IfC => {
                    let cond = self.cond(i, inst)?;
                    open.push(Open::IfDyn(self.ops.len()));
                    self.ops.push(Op::IfDyn { cond, target: 0 });
                }
                O::Else => match open.pop() {
                    Some(Open::IfBool(at)) => {
                        open.push(Open::IfBoolElse(pc));
                        self.ops.push(Op::Jump { target: 0 });
                        self.patch(at, pc as u32 + 1);
                    }
                    Some(Open::IfDyn(at)) => {
                        open.push(Open::IfDynElse(pc));
                        self.ops.push(Op::ElseDyn { target: 0 });
                        self.patch(at, pc as u32);
                    }
                    _ => return Err(self.unsupported(i, "else without if")),
                },
                O::EndIf => match open.pop() {
                    Some(Open::IfBool(at)) | Some(Open::IfBoolElse(at)) => {
                        self.patch(at, pc as u32)
                    }
                    Some(Open::IfDyn(at)) | Some(Open::IfDynElse(at)) => {
                        self.ops.push(Op::EndIfDyn);
                        self.patch(at, pc as u32);
                    }
                    _ => return Err(self.unsupported(i, "endif without if")),
                },
                O::Loop | O::Rep => {
                    let int = if inst.opcode == O::Loop {
                        inst.srcs[1]
                    } else {
                        inst.srcs[0]
                    };
                    open.push(Open::Loop(pc));
                    self.ops.push(Op::Loop {
                        i: int.reg.number as u8,
                        end: 0,
                        al: inst.opcode == O::Loop,
                    });
                }
                O::EndLoop | O::EndRep => match open.pop() {
                    Some(Open::Loop(at)) => {
                        self.ops.push(Op::EndLoop {
                            start: at as u32 + 1,
                        });
                        self.patch(at, pc as u32);
                        // Breaks inside this loop jump to its end.
                        for op in &mut self.ops[at..pc] {
                            if let Op::Break { end, .. } = op
                                && *end == u32::MAX
                            {
                                *end = pc as u32;
                            }
                        }
                    }
                    _ => return Err(self.unsupported(i, "end of loop without loop")),
                },
                O::Break => self.ops.push(Op::Break {
                    cond: None,
                    end: u32::MAX,
                }),
                O::BreakC | O::BreakP => {
                    let cond = self.cond(i, inst)?;
                    self.ops.push(Op::Break {
                        cond: Some(cond),
                        end: u32::MAX,
                    });
                }
                _ if self.pixel.is_some() => self.pixel_instruction(i, inst)?,
                _ => self.arithmetic(i, inst)?,
            }
            self.op_source.resize(self.ops.len(), i as u32);
        }
        for (at, l) in calls {
            let target = label_pc
                .iter()
                .find(|x| x.0 == l)
                .map(|x| x.1)
                .ok_or_else(|| self.unsupported(at, &format!("call to undefined l{l}")))?;
            match &mut self.ops[at] {
                Op::Call { target: t }
                | Op::CallBool { target: t, .. }
                | Op::CallPred { target: t, .. } => *t = target,
                _ => unreachable!("call sites hold call ops"),
            }
        }
        if !open.is_empty() {
            return Err(self.unsupported(insts.len(), "unclosed flow control"));
        }
        Ok(())
    }

    fn patch(&mut self, at: usize, to: u32) {
        match &mut self.ops[at] {
            Op::IfBool { target, .. }
            | Op::IfDyn { target, .. }
            | Op::ElseDyn { target }
            | Op::Jump { target } => *target = to,
            Op::Loop { end, .. } => *end = to,
            _ => unreachable!("only flow ops are patched"),
        }
    }

    pub(crate) fn arithmetic(&mut self, i: usize, inst: &Instruction) -> Result<(), LowerError> {
        use Opcode as O;
        let unused = SrcRef {
            rows: [0; 4],
            and: u32::MAX,
            xor: 0,
        };
        let matrix = match inst.opcode {
            O::M4x4 => Some((4, Alu::Dp4)),
            O::M4x3 => Some((3, Alu::Dp4)),
            O::M3x4 => Some((4, Alu::Dp3)),
            O::M3x3 => Some((3, Alu::Dp3)),
            O::M3x2 => Some((2, Alu::Dp3)),
            _ => None,
        };
        if let Some((rows, kind)) = matrix {
            // One dot product per produced component (the validator keeps dst apart from
            // the sources, so the expansion reads no partial result).
            let dst = self.dst(i, inst)?;
            for r in 0..rows {
                if dst.mask >> r & 1 == 0 {
                    continue;
                }
                let a = self.src(i, &inst.srcs[0], 0, 0)?;
                let b = self.src(i, &inst.srcs[1], 1, r as u32)?;
                self.ops.push(Op::Alu {
                    kind,
                    dst: DstRef {
                        mask: 1 << r,
                        ..dst
                    },
                    src: [a, b, unused],
                });
            }
            return Ok(());
        }
        let kind = match inst.opcode {
            // C2: vs_1_1 floors, vs_2_0+ rounds as mova does.
            O::Mov if inst.dst.is_some_and(|d| d.reg.kind == RegisterKind::Addr) => {
                if self.shader.version.major < 2 {
                    Alu::Floor
                } else {
                    Alu::MovA
                }
            }
            O::Mov => Alu::Mov,
            O::Add | O::Sub => Alu::Add,
            O::Mul => Alu::Mul,
            O::Mad => Alu::Mad,
            O::Min => Alu::Min,
            O::Max => Alu::Max,
            O::Slt => Alu::Slt,
            O::Sge => Alu::Sge,
            O::Abs => Alu::Abs,
            O::Frc => Alu::Frc,
            O::Lrp => Alu::Lrp,
            O::Sgn => Alu::Sgn,
            O::Dp3 => Alu::Dp3,
            O::Dp4 => Alu::Dp4,
            O::Rcp => Alu::Rcp,
            O::Rsq => Alu::Rsq,
            O::Exp | O::ExpP => Alu::Exp,
            O::Log | O::LogP => Alu::Log,
            O::Pow => Alu::Pow,
            O::Lit => Alu::Lit,
            O::Dst => Alu::Dst,
            O::Crs => Alu::Crs,
            O::Nrm => Alu::Nrm,
            O::SinCos => Alu::SinCos,
            O::MovA => Alu::MovA,
            O::Setp => Alu::Setp(inst.comparison().unwrap_or(Comparison::Gt)),
            O::TexLdl => Alu::TexLdl {
                sampler: inst.srcs[1].reg.number as u8,
                swizzle: inst.srcs[1].swizzle.0,
            },
            O::Cmp if self.pixel.is_some() => Alu::Cmp,
            O::Cnd if self.pixel.is_some() => Alu::Cnd,
            O::Dp2Add if self.pixel.is_some() => Alu::Dp2Add,
            O::Dsx if self.pixel.is_some() => Alu::Dsx,
            O::Dsy if self.pixel.is_some() => Alu::Dsy,
            other => return Err(self.unsupported(i, other.info().mnemonic)),
        };
        let dst = self.dst(i, inst)?;
        let n = match kind {
            Alu::SinCos | Alu::Sgn | Alu::TexLdl { .. } | Alu::Dsx | Alu::Dsy => 1,
            _ => inst.srcs.len().min(3),
        };
        let mut src = [unused; 3];
        for (k, s) in inst.srcs.iter().take(n).enumerate() {
            src[k] = self.src_modified(i, s, k as u16)?;
        }
        if inst.opcode == O::Sub {
            src[1].xor ^= SIGN;
        }
        let mut dst = dst;
        if let DstKind::Rows(base) = dst.kind {
            let comps: Vec<usize> = (0..4).filter(|c| dst.mask >> c & 1 != 0).collect();
            dst.hazard = comps.iter().enumerate().any(|(k, &c)| {
                comps[..k]
                    .iter()
                    .any(|&earlier| src[..n].iter().any(|s| s.rows[c] == base + earlier as u16))
            });
        }
        self.ops.push(Op::Alu { kind, dst, src });
        Ok(())
    }
}
