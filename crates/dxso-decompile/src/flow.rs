//! Structured flow: the shader split into `main` and its subroutines, each walked in order
//! with `if`/`else`, `loop aL, i#` (a `for` over the integer constant's start, step and
//! count), `rep`, `break`, `break_comp`, `breakp`, `call`/`callnz` and `ret` written as the
//! HLSL statements they are. D3D9's flow is already nested, so one pass suffices.

use crate::Error;
use crate::ctx::Ctx;
use crate::expr::{COMPARE, E, bin};
use crate::inst::cmp_op;
use crate::lift::Action;
use dxso::Opcode;
use dxso::ir::{Comparison, Instruction, RegisterKind};
use std::collections::BTreeSet;

/// One function of the output.
#[derive(Debug)]
pub(crate) struct Body {
    /// `None` for `main`, else the label number.
    pub label: Option<u32>,
    /// Statements, indented relative to the function.
    pub lines: Vec<String>,
    /// Labels this function calls.
    pub calls: BTreeSet<u32>,
    /// Reads `aL` outside its own loops (a subroutine called from a loop).
    pub reads_outer_al: bool,
}

/// The instruction ranges of `main` and of each subroutine (`label` .. `ret`).
pub(crate) fn split(insts: &[Instruction]) -> Vec<(Option<u32>, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut label = None;
    let mut open = true;
    for (i, inst) in insts.iter().enumerate() {
        match inst.opcode {
            Opcode::If | Opcode::IfC | Opcode::Loop | Opcode::Rep => depth += 1,
            Opcode::EndIf | Opcode::EndLoop | Opcode::EndRep => depth -= 1,
            Opcode::Ret if depth == 0 && open => {
                out.push((label, start..i));
                open = false;
            }
            Opcode::Label if depth == 0 => {
                if open {
                    out.push((label, start..i));
                }
                label = inst.srcs.first().map(|s| s.reg.number);
                start = i + 1;
                open = true;
            }
            _ => {}
        }
    }
    if open {
        out.push((label, start..insts.len()));
    }
    out
}

impl Ctx<'_> {
    /// Emit the function of instructions `range`.
    pub(crate) fn body(
        &mut self,
        label: Option<u32>,
        range: std::ops::Range<usize>,
        plan: &[Action],
        returns: &str,
    ) -> Result<Body, Error> {
        let mut b = Body {
            label,
            lines: Vec::new(),
            calls: BTreeSet::new(),
            reads_outer_al: false,
        };
        self.loops.clear();
        self.outer_al = label.map(|_| "aL".to_string());
        let mut indent = 0usize;
        let insts = &self.shader.instructions;
        for i in range {
            let inst = &insts[i];
            if self.opts.asm_comments && !matches!(inst.opcode, Opcode::Comment | Opcode::Dcl) {
                let text = dxso::text::print_instruction(inst, self.shader.version);
                push(&mut b.lines, indent, format!("// {}", text.trim()));
            }
            if matches!(plan[i], Action::Drop | Action::Emit(_))
                && let Some(d) = inst.dst
                && d.reg.kind == RegisterKind::Temp
            {
                // Written here (or by the lifted statement): a folded value no longer holds.
                self.pending.remove(&d.reg.number);
            }
            let (lines, delta) = match &plan[i] {
                Action::Drop => continue,
                Action::Emit(lines) => (lines.clone(), 0),
                Action::Inline => match self.defer(inst)? {
                    Some(lines) => (lines, 0),
                    None => self.statement(inst, &mut b, returns)?,
                },
                Action::Keep => self.statement(inst, &mut b, returns)?,
            };
            if delta < 0 {
                indent = indent.saturating_sub(1);
            }
            for l in lines {
                if l.starts_with("} else") {
                    push(&mut b.lines, indent.saturating_sub(1), l);
                } else {
                    push(&mut b.lines, indent, l);
                }
            }
            if delta > 0 {
                indent += 1;
            }
        }
        Ok(b)
    }

    /// One instruction's statements, and whether it opens (+1) or closes (-1) a block.
    fn statement(
        &mut self,
        inst: &Instruction,
        b: &mut Body,
        returns: &str,
    ) -> Result<(Vec<String>, i32), Error> {
        use Opcode as O;
        let one = |s: String| Ok((vec![s], 0));
        match inst.opcode {
            O::Comment | O::Dcl | O::Def | O::DefI | O::DefB | O::Nop | O::End | O::Label => {
                Ok((vec![], 0))
            }
            O::If | O::IfC => {
                let c = self.condition(inst)?;
                Ok((vec![format!("if ({}) {{", c.s)], 1))
            }
            O::Else => Ok((vec!["} else {".into()], 0)),
            O::EndIf | O::EndLoop | O::EndRep => {
                if inst.opcode != O::EndIf {
                    self.loops.pop();
                }
                Ok((vec!["}".into()], -1))
            }
            O::Loop | O::Rep => Ok((vec![self.loop_head(inst)?], 1)),
            O::Break => one("break;".into()),
            O::BreakC | O::BreakP => {
                let c = self.condition(inst)?;
                one(format!("if ({}) break;", c.s))
            }
            O::Call | O::CallNz => {
                let l = inst.srcs.first().map_or(0, |s| s.reg.number);
                b.calls.insert(l);
                let args = if self.al_params.contains(&l) {
                    match self.loops.last().cloned().or(self.outer_al.clone()) {
                        Some(al) => al,
                        None => "0".into(),
                    }
                } else {
                    String::new()
                };
                let call = format!("l{l}({args});");
                if inst.opcode == O::Call {
                    return one(call);
                }
                let src = *inst.srcs.get(1).ok_or_else(|| bad(inst))?;
                let c = self.src(&src, &[0])?;
                one(format!("if ({}) {call}", c.s))
            }
            O::Ret => one(format!("return{returns};")),
            O::Phase => {
                // ps_1_4: the temporaries' alpha does not survive the phase (0 here, as
                // dxso's engines do; D3D9 leaves it undefined).
                let mut lines = vec!["// phase".to_string()];
                let temps: Vec<u32> = self.temps.iter().copied().collect();
                for r in temps {
                    for (lv, _) in self.temp(r, 1 << 3).writes(&[3]) {
                        lines.push(format!("{lv} = 0;"));
                    }
                }
                Ok((lines, 0))
            }
            _ => {
                if let Some(lines) = self.ps1x(inst)? {
                    return Ok((lines, 0));
                }
                match self.arithmetic(inst)? {
                    Some(lines) => {
                        if inst.srcs.iter().any(|s| s.reg.kind == RegisterKind::Loop)
                            && self.loops.is_empty()
                        {
                            b.reads_outer_al = true;
                        }
                        Ok((lines, 0))
                    }
                    None => Err(Error::Unsupported(crate::Unsupported::Instruction(
                        inst.opcode,
                    ))),
                }
            }
        }
    }

    /// The condition of `if`, `if_comp`, `break_comp`, `breakp`.
    fn condition(&mut self, inst: &Instruction) -> Result<E, Error> {
        let a = *inst.srcs.first().ok_or_else(|| bad(inst))?;
        let x = self.src(&a, &[0])?;
        match inst.opcode {
            Opcode::IfC | Opcode::BreakC => {
                let b = *inst.srcs.get(1).ok_or_else(|| bad(inst))?;
                let y = self.src(&b, &[0])?;
                let c = inst.comparison().unwrap_or(Comparison::Gt);
                Ok(bin(&x, cmp_op(c), &y, COMPARE))
            }
            _ => Ok(x),
        }
    }

    /// `for (...) {` of `loop aL, i#` or `rep i#`.
    fn loop_head(&mut self, inst: &Instruction) -> Result<String, Error> {
        let depth = self.loops.len() + usize::from(self.outer_al.is_some());
        let suffix = if depth == 0 {
            String::new()
        } else {
            depth.to_string()
        };
        let i = *inst
            .srcs
            .get(usize::from(inst.opcode == Opcode::Loop))
            .ok_or_else(|| bad(inst))?;
        let n = i.reg.number;
        let constant = self.defs.int.get(&n).copied();
        let name = self.int_reg(n);
        if inst.opcode == Opcode::Rep {
            let counter = format!("n{suffix}");
            let outer = self.loop_counter().unwrap_or_else(|_| "0".into());
            self.loops.push(outer);
            let count = match constant {
                Some(v) => v[0].to_string(),
                None => format!("{name}.x"),
            };
            return Ok(format!(
                "for (int {counter} = 0; {counter} < {count}; {counter}++) {{"
            ));
        }
        let al = format!("aL{suffix}");
        self.loops.push(al.clone());
        Ok(match constant {
            Some([count, start, step, _]) if step != 0 => {
                let end = start as i64 + count as i64 * step as i64;
                let (op, inc) = match step {
                    1 => ("<", format!("{al}++")),
                    -1 => (">", format!("{al}--")),
                    s if s > 0 => ("<", format!("{al} += {s}")),
                    s => (">", format!("{al} -= {}", -(s as i64))),
                };
                format!("for (int {al} = {start}; {al} {op} {end}; {inc}) {{")
            }
            Some([count, start, _, _]) => {
                format!(
                    "for (int {al} = {start}, n{suffix} = 0; n{suffix} < {count}; n{suffix}++) {{"
                )
            }
            None => format!(
                "for (int {al} = {name}.y, n{suffix} = 0; n{suffix} < {name}.x; {al} += {name}.z, n{suffix}++) {{"
            ),
        })
    }
}

fn push(lines: &mut Vec<String>, indent: usize, s: String) {
    lines.push(format!("{}{s}", "    ".repeat(indent)));
}

fn bad(inst: &Instruction) -> Error {
    Error::Unsupported(crate::Unsupported::MissingOperands(inst.opcode))
}
