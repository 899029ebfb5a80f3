//! Subroutine calls inlined, for the code generators (which have no calls): the program a
//! generator compiles in place of one that calls.

use crate::program::{Cond, Op, Program};

impl Program {
    /// The program with every subroutine call replaced by the subroutine's ops, for code
    /// generators without calls: `call` becomes a jump to the next op and its `ret` another
    /// (each counted as the call and the ret are), `callnz b#` an `if b#` around the body
    /// and its ret's jump, `callnz p0` a dynamic if around the body ending in an endif (the
    /// ret) that a call no lane takes skips past — so the executed-instruction count stays
    /// the interpreter's. `None` without calls; `Err` past `limit` ops (the validator
    /// bounds the nesting, not how often a subroutine is called).
    pub(crate) fn inline_calls(&self, limit: usize) -> Result<Option<Program>, String> {
        let call = |op: &Op| {
            matches!(
                op,
                Op::Call { .. } | Op::CallBool { .. } | Op::CallPred { .. }
            )
        };
        if !self.ops.iter().any(call) {
            return Ok(None);
        }
        // The main program ends at its ret (subroutines follow it; no ret is inside a block).
        let main = self.ops.iter().position(|op| matches!(op, Op::Ret));
        let main = main.ok_or("calls without the main program's ret")?;
        let mut ops = vec![];
        let mut source = vec![];
        self.inline_range(0..main, &mut ops, &mut source, limit, 0)?;
        ops.push(Op::Ret);
        source.push(self.op_source.get(main).copied().unwrap_or(0));
        Ok(Some(Program {
            ops,
            op_source: source,
            ..self.clone()
        }))
    }

    /// The ops of `range` (a routine's body up to its ret, or the main program) into `out`
    /// with calls inlined and branch targets moved to where their ops land.
    fn inline_range(
        &self,
        range: std::ops::Range<usize>,
        out: &mut Vec<Op>,
        source: &mut Vec<u32>,
        limit: usize,
        depth: u32,
    ) -> Result<(), String> {
        if depth > 8 {
            return Err("calls nest too deep".into());
        }
        let at = |pc: usize| self.op_source.get(pc).copied().unwrap_or(0);
        // Where each op of the range (and its end) lands, and the ops copied as they are.
        let mut map = vec![0usize; range.len() + 1];
        let mut copied = vec![];
        for pc in range.clone() {
            map[pc - range.start] = out.len();
            match self.ops[pc] {
                Op::Call { target } | Op::CallBool { target, .. } | Op::CallPred { target, .. } => {
                    let target = target as usize;
                    let body = self.ops.get(target..).unwrap_or_default();
                    let ret = body.iter().position(|o| matches!(o, Op::Ret));
                    let ret = target + ret.ok_or("a subroutine without ret")?;
                    let head = out.len();
                    out.push(match self.ops[pc] {
                        Op::CallBool { b, not, .. } => Op::IfBool { b, not, target: 0 },
                        Op::CallPred { comp, not, .. } => Op::IfDyn {
                            cond: Cond::Pred(comp, not),
                            target: 0,
                        },
                        _ => Op::Jump {
                            target: head as u32 + 1,
                        },
                    });
                    source.push(at(pc));
                    self.inline_range(target..ret, out, source, limit, depth + 1)?;
                    let end = out.len() as u32;
                    out.push(match self.ops[pc] {
                        Op::CallPred { .. } => Op::EndIfDyn,
                        _ => Op::Jump { target: end + 1 },
                    });
                    source.push(at(ret));
                    if let Op::IfBool { target, .. } | Op::IfDyn { target, .. } = &mut out[head] {
                        *target = end + 1;
                    }
                }
                op => {
                    copied.push(out.len());
                    out.push(op);
                    source.push(at(pc));
                }
            }
            if out.len() > limit {
                return Err(format!("more than {limit} ops with calls inlined"));
            }
        }
        map[range.len()] = out.len();
        let moved = |t: &mut u32| -> Result<(), String> {
            let old = (*t as usize)
                .checked_sub(range.start)
                .filter(|&k| k < map.len());
            *t = map[old.ok_or("a branch out of its routine")?] as u32;
            Ok(())
        };
        for i in copied {
            match &mut out[i] {
                Op::IfBool { target, .. }
                | Op::Jump { target }
                | Op::IfDyn { target, .. }
                | Op::ElseDyn { target }
                | Op::Loop { end: target, .. }
                | Op::EndLoop { start: target }
                | Op::Break { end: target, .. } => moved(target)?,
                Op::Ret => return Err("a ret inside a routine".into()),
                _ => {}
            }
        }
        Ok(())
    }
}
