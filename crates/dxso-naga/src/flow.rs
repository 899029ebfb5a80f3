//! The instruction walk and flow control. D3D9 flow control is structured, so each
//! `if`/`loop`/`rep` becomes a naga `If`/`Loop`; subroutines are inlined at each call (the
//! registers are global, so a call is its body in place); `aL` is saved around each `loop`.
//!
//! Inlining multiplies: four levels of subroutines each calling the next 40 times are 2.5
//! million bodies from a 1 KB shader. Every instruction the walk translates, each inlined
//! copy again, counts against [`crate::MAX_TRANSLATED_INSTRUCTIONS`]; past it the translation
//! stops with [`Error::TooLarge`]. A shader without calls never reaches it (the walk visits
//! each instruction once, and no shader dxso reads has more).

use crate::Error;
use crate::func::H;
use crate::regs::Tr;
use dxso::Opcode;
use dxso::ir::{Comparison, Instruction, RegisterKind, Shader, SrcModifier};
use naga::{BinaryOperator as B, Block, Statement};

/// Calls nested deeper than this are refused (D3D9 allows 4 levels; recursion never ends).
const MAX_CALL_DEPTH: u32 = 8;

/// A run of instructions (the main program, a subroutine, the arm of an `if`, a loop's
/// body) is one naga block until its expressions reach this many; then what it made so far
/// becomes a nested block ([`crate::func::FnBuilder::nest_since`]) and a new one starts, at
/// the next instruction boundary. naga's MSL writer takes time quadratic in a block's size
/// (a 32,700-instruction shader took 25 s); its SPIR-V writer holds each block's
/// instructions in a vector grown by doubling, so one long block may hold twice what it
/// needs: blocks of this many expressions (about 3,700 SPIR-V instructions, a few hundred
/// D3D9 instructions) stay within 4,096.
const EXPRESSIONS_PER_BLOCK: usize = 3072;

/// Why a run of instructions stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    End,
    Else,
    EndIf,
    EndLoop,
    Ret,
}

impl Tr {
    /// Translate the main program (up to the first `label` or top-level `ret`).
    pub fn main(&mut self, shader: &Shader) -> Result<(), Error> {
        // Each label's first instruction, found once (not a scan per call).
        for (k, x) in shader.instructions.iter().enumerate() {
            if x.opcode == Opcode::Label
                && let Some(s) = x.srcs.first()
            {
                self.labels.entry(s.reg.number).or_insert(k);
            }
        }
        let mut i = 0;
        let stop = self.run(shader, &mut i, 0)?;
        match stop {
            Stop::End | Stop::Ret => Ok(()),
            other => Err(self.invalid(format!("unbalanced flow control ({other:?})"))),
        }
    }

    /// Translate from `*i` until a terminator of the enclosing construct.
    fn run(&mut self, shader: &Shader, i: &mut usize, depth: u32) -> Result<Stop, Error> {
        let mut mark = self.fb.mark();
        let mut made = self.fb.f.expressions.len();
        while *i < shader.instructions.len() {
            // Cut between instructions, where no value crosses (none held for co-issue, no
            // ps_1_x pad product waiting).
            if self.fb.f.expressions.len() - made >= EXPRESSIONS_PER_BLOCK
                && !self.ps1.carries_values()
            {
                self.fb.nest_since(mark);
                mark = self.fb.mark();
                made = self.fb.f.expressions.len();
            }
            let at = *i;
            let inst = &shader.instructions[at];
            *i += 1;
            self.at = at;
            self.translated += 1;
            if self.translated > crate::MAX_TRANSLATED_INSTRUCTIONS {
                return Err(Error::TooLarge {
                    limit: crate::MAX_TRANSLATED_INSTRUCTIONS,
                });
            }
            use Opcode as O;
            match inst.opcode {
                O::Comment | O::Dcl | O::Def | O::DefI | O::DefB | O::Nop => {}
                O::Label => return Ok(Stop::End),
                O::Ret => return Ok(Stop::Ret),
                O::Else => return Ok(Stop::Else),
                O::EndIf => return Ok(Stop::EndIf),
                O::EndLoop | O::EndRep => return Ok(Stop::EndLoop),
                O::If | O::IfC => {
                    let cond = self.condition(inst)?;
                    self.fb.open();
                    let stop = self.run(shader, i, depth)?;
                    let accept = self.fb.close();
                    let reject = match stop {
                        Stop::Else => {
                            self.fb.open();
                            let stop = self.run(shader, i, depth)?;
                            let b = self.fb.close();
                            if stop != Stop::EndIf {
                                return Err(self.invalid("else without endif"));
                            }
                            b
                        }
                        Stop::EndIf => Block::new(),
                        _ => return Err(self.invalid("if without endif")),
                    };
                    self.fb.stmt(Statement::If {
                        condition: cond,
                        accept,
                        reject,
                    });
                }
                O::Loop | O::Rep => self.repeat(shader, inst, i, depth)?,
                O::Break => self.fb.stmt(Statement::Break),
                O::BreakC | O::BreakP => {
                    let cond = self.condition(inst)?;
                    let mut accept = Block::new();
                    accept.push(Statement::Break, naga::Span::UNDEFINED);
                    self.fb.stmt(Statement::If {
                        condition: cond,
                        accept,
                        reject: Block::new(),
                    });
                }
                O::Call => self.call(shader, inst, depth)?,
                O::CallNz => {
                    let cond = self.bool_operand(&inst.srcs[1])?;
                    self.fb.open();
                    self.call(shader, inst, depth)?;
                    let accept = self.fb.close();
                    self.fb.stmt(Statement::If {
                        condition: cond,
                        accept,
                        reject: Block::new(),
                    });
                }
                O::TexKill => self.texkill(inst)?,
                _ => {
                    if !self.ps1x(inst)? && !self.arithmetic(inst)? && !self.texture(inst)? {
                        return Err(self.unsupported(inst));
                    }
                }
            }
        }
        Ok(Stop::End)
    }

    /// A subroutine inlined: from its label to its `ret`.
    fn call(&mut self, shader: &Shader, inst: &Instruction, depth: u32) -> Result<(), Error> {
        if depth >= MAX_CALL_DEPTH {
            return Err(self.invalid("calls nested too deep (or recursive)"));
        }
        let label = inst.srcs[0].reg.number;
        let start = *self
            .labels
            .get(&label)
            .ok_or_else(|| self.invalid(format!("call to undefined l{label}")))?;
        let mut i = start + 1;
        let back = self.at;
        let stop = self.run(shader, &mut i, depth + 1)?;
        self.at = back;
        match stop {
            Stop::Ret | Stop::End => Ok(()),
            _ => Err(self.invalid("ret inside flow control of a subroutine")),
        }
    }

    /// `loop aL, i#` / `rep i#`: i#.x iterations (unsigned, 0 runs none); `loop` sets aL to
    /// i#.y, adds i#.z after each iteration and restores aL after the loop (C15).
    fn repeat(
        &mut self,
        shader: &Shader,
        inst: &Instruction,
        i: &mut usize,
        depth: u32,
    ) -> Result<(), Error> {
        let is_loop = inst.opcode == Opcode::Loop;
        let int = if is_loop { inst.srcs[1] } else { inst.srcs[0] };
        let v = self.int_register(int.reg.number)?;
        let count = self.fb.index(v, 0);
        let count = self.fb.bitcast(count, naga::ScalarKind::Uint);
        let n = self.local(
            &format!("n{}", self.at),
            naga::TypeInner::Scalar(naga::Scalar::U32),
        );
        self.fb.store(n, count);
        let saved = if is_loop {
            let s = self.fb.load(self.al);
            let start = self.fb.index(v, 1);
            self.fb.store(self.al, start);
            Some(s)
        } else {
            None
        };
        self.fb.open();
        // if (n == 0) { break; } n -= 1;
        let left = self.fb.load(n);
        let zero = self.fb.u32(0);
        let done = self.fb.bin(B::Equal, left, zero);
        let mut brk = Block::new();
        brk.push(Statement::Break, naga::Span::UNDEFINED);
        self.fb.stmt(Statement::If {
            condition: done,
            accept: brk,
            reject: Block::new(),
        });
        let one = self.fb.u32(1);
        let dec = self.fb.sub(left, one);
        self.fb.store(n, dec);
        let stop = self.run(shader, i, depth)?;
        if stop != Stop::EndLoop {
            return Err(self.invalid("loop without its end"));
        }
        let body = self.fb.close();
        let continuing = if is_loop {
            self.fb.open();
            let al = self.fb.load(self.al);
            let step = self.fb.index(v, 2);
            let next = self.fb.add(al, step);
            self.fb.store(self.al, next);
            self.fb.close()
        } else {
            Block::new()
        };
        self.fb.stmt(Statement::Loop {
            body,
            continuing,
            break_if: None,
        });
        if let Some(s) = saved {
            self.fb.store(self.al, s);
        }
        Ok(())
    }

    /// `i#` as `vec4<i32>`: the `defi` literal, or the buffer.
    fn int_register(&mut self, n: u32) -> Result<H, Error> {
        if let Some(&bits) = self.defis.get(&n) {
            let parts = bits.map(|b| self.fb.i32(b as i32)).to_vec();
            return Ok(self
                .fb
                .compose(&mut self.m, crate::func::vec4(naga::Scalar::I32), parts));
        }
        let b = self.ints.ok_or_else(|| self.invalid("no integer buffer"))?;
        let p = self.fb.index(b.ptr, n);
        Ok(self.fb.load(p))
    }

    /// A `b#` or `p0.c` operand (with `!`) as a bool.
    fn bool_operand(&mut self, s: &dxso::ir::Src) -> Result<H, Error> {
        let v = match s.reg.kind {
            RegisterKind::ConstBool => match self.defbs.get(&s.reg.number) {
                Some(&b) => self.fb.bool(b),
                None => {
                    let b = self.bools.ok_or_else(|| self.invalid("no bool buffer"))?;
                    let p = self.fb.index(b.ptr, s.reg.number);
                    let v = self.fb.load(p);
                    let x = self.fb.index(v, 0);
                    let z = self.fb.u32(0);
                    self.fb.bin(B::NotEqual, x, z)
                }
            },
            RegisterKind::Predicate => {
                let p = self.fb.load(self.p0);
                self.fb.index(p, s.swizzle.get(0) as u32)
            }
            k => return Err(self.invalid(format!("{k:?} as a condition"))),
        };
        Ok(if s.modifier == SrcModifier::Not {
            self.fb.not(v)
        } else {
            v
        })
    }

    /// The condition of `if`, `if_comp`, `break_comp`, `breakp`.
    fn condition(&mut self, inst: &Instruction) -> Result<H, Error> {
        match inst.opcode {
            Opcode::IfC | Opcode::BreakC => {
                let a = self.src(&inst.srcs[0])?;
                let b = self.src(&inst.srcs[1])?;
                let a = self.fb.index(a, 0);
                let b = self.fb.index(b, 0);
                Ok(self.compare(inst.comparison().unwrap_or(Comparison::Gt), a, b))
            }
            _ => {
                let s = inst
                    .srcs
                    .last()
                    .ok_or_else(|| self.invalid("missing condition"))?;
                self.bool_operand(s)
            }
        }
    }
}
