//! Dynamic `if`/`else`/`endif` and `break`: the execution mask. Each group keeps the lanes that run as
//! a pseudo-row ([`EXEC_ROW`], all ones where a lane runs) that every write inside a
//! dynamic if, or in a loop with a break, blends with (`commit`); an if keeps the lanes
//! running before it and those taking it in its frame slot, for its else and endif, and a
//! loop with a break the lanes running before it. A break takes its lanes out of the
//! running ones and out of the ifs it is inside of, as the interpreter's frames do. A
//! program with dynamic ifs or breaks runs every group of the batch in one pass, so the
//! branch past a side no lane takes, a loop's end when no lane runs, and the instruction
//! count are the interpreter's (which looks at all 64 lanes).

use super::*;

impl Gen<'_> {
    /// The lanes of `exec` where `cond` holds, in a new temporary (all ones per lane).
    fn cond_lanes(&mut self, cond: &Cond, exec: V) -> R<V> {
        match *cond {
            Cond::Cmp(cmp, a, b) => {
                let cc = compare_predicate(cmp);
                let x = self.src(&a, 0)?;
                let y = self.src(&b, 0)?;
                match self.cmpv(1, x, cc, y)? {
                    Mask::K(k) => {
                        let t = self.alloc()?;
                        self.a.vmovdqa32(mk(ZMM[t], k).z(), ZMM[exec])?;
                        Ok(t)
                    }
                    Mask::V(m) => {
                        vx!(self, vpandd | vpand(Vr(m), Vr(m), Vr(exec)))?;
                        Ok(m)
                    }
                }
            }
            Cond::Pred(comp, not) => {
                let p = self.row(P0_ROW + comp as u16)?;
                let t = self.alloc()?;
                if not {
                    // Lanes of exec where p0's component is false.
                    vx!(self, vpandnd | vpandn(Vr(t), Vr(p), Vr(exec)))?;
                } else {
                    vx!(self, vpandd | vpand(Vr(t), Vr(p), Vr(exec)))?;
                }
                Ok(t)
            }
        }
    }

    /// The frame slot of group `g`'s lanes running before the if at `slot` (`taken`: the
    /// lanes taking it).
    fn if_lanes(&self, slot: i32, taken: bool, g: u32) -> AsmMemoryOperand {
        let half = if taken { 64 * G_MAX as i32 } else { 0 };
        self.vmem(rsp + slot + half + g as i32 * 64)
    }

    /// Set ZF where `v` has no lane set.
    fn test_none(&mut self, v: V) -> R {
        match self.w {
            Width::Zmm => {
                self.a.vptestmd(k1, ZMM[v], ZMM[v])?;
                self.a.kortestw(k1, k1)?;
            }
            Width::Ymm => self.a.vptest(YMM[v], YMM[v])?,
        }
        Ok(())
    }

    /// Forget every register after a flow op (the execution masks loaded are stale); the
    /// flags stay.
    fn forget_all(&mut self) -> R {
        self.g = 0;
        self.flush_live(Some(&HashSet::new()))
    }

    /// [`Self::test_none`], then [`Self::forget_all`].
    fn none_of(&mut self, any: V) -> R {
        self.test_none(any)?;
        self.forget_all()
    }

    /// Each group's lanes of `v`, or-ed into `any` (set by group 0).
    fn gather_any(&mut self, any: V, v: V) -> R {
        if self.g == 0 {
            vx!(self, vmovdqa32 | vmovdqa(Vr(any), Vr(v)))?;
        } else {
            vx!(self, vpord | vpor(Vr(any), Vr(any), Vr(v)))?;
        }
        Ok(())
    }

    /// This group's registers but `keep` are free again, and its rows may leave their
    /// registers for the next group's.
    fn next_group(&mut self, keep: &[V]) {
        for r in 0..self.regs() {
            if !keep.contains(&r) {
                self.free(r);
            }
        }
        self.epoch += 1;
    }

    /// The lanes running now into a loop's frame slot (a loop with a break).
    pub(super) fn save_exec(&mut self, slot: i32) -> R {
        for g in 0..self.groups {
            self.g = g;
            let exec = self.row(EXEC_ROW)?;
            let at = self.vmem(rsp + slot + g as i32 * 64);
            vx!(self, vmovups(at, Vr(exec)))?;
            self.next_group(&[]);
        }
        self.forget_all()
    }

    /// The lanes of a loop's frame slot run again (leaving a loop with a break).
    pub(super) fn restore_exec(&mut self, slot: i32) -> R {
        self.set_exec(|s, g| {
            let t = s.alloc()?;
            let at = s.vmem(rsp + slot + g as i32 * 64);
            vx!(s, vmovups(Vr(t), at))?;
            Ok(t)
        })
    }

    /// ZF set where no lane of the batch runs.
    pub(super) fn any_exec(&mut self) -> R {
        let any = self.alloc()?;
        for g in 0..self.groups {
            self.g = g;
            let exec = self.row(EXEC_ROW)?;
            self.gather_any(any, exec)?;
            self.next_group(&[any]);
        }
        self.none_of(any)
    }

    /// `break` (`cond`: `break_comp`, `breakp`) at `pc`: the lanes running and breaking stop
    /// until their loop ends — in the running lanes and in the ifs the break is inside of
    /// in its loop (their lanes before and taking), as the interpreter's frames keep them.
    /// Directly in the loop's body, where some lane broke and none runs any more, the loop
    /// ends now (`end`, its endloop); otherwise on to `next`.
    pub(super) fn break_dyn(
        &mut self,
        pc: usize,
        cond: Option<&Cond>,
        next: CodeLabel,
        end: CodeLabel,
    ) -> R {
        self.forget_masks();
        let (ifs, direct) = self.breaks[&pc].clone();
        let broke = self.alloc()?;
        let left = self.alloc()?;
        for g in 0..self.groups {
            self.g = g;
            let exec = self.row(EXEC_ROW)?;
            let brk = match cond {
                Some(c) => self.cond_lanes(c, exec)?,
                None => self.copy(exec)?,
            };
            let m = self.alloc()?;
            vx!(self, vpandnd | vpandn(Vr(m), Vr(brk), Vr(exec)))?;
            let home = self.home(EXEC_ROW as u32 | g << 16);
            vx!(self, vmovups(home, Vr(m)))?;
            for &slot in &ifs {
                for taken in [false, true] {
                    let t = self.alloc()?;
                    let at = self.if_lanes(slot, taken, g);
                    vx!(self, vmovups(Vr(t), at))?;
                    vx!(self, vpandnd | vpandn(Vr(t), Vr(brk), Vr(t)))?;
                    vx!(self, vmovups(at, Vr(t)))?;
                    self.free(t);
                }
            }
            self.gather_any(broke, brk)?;
            self.gather_any(left, m)?;
            self.next_group(&[broke, left]);
        }
        if direct {
            self.test_none(broke)?;
            self.a.jz(next)?;
            self.test_none(left)?;
            self.a.jz(end)?;
        }
        self.forget_all()
    }

    /// The lanes of every group `lanes` gives (from the running ones and the if's slot)
    /// become the running ones; ZF set where none does.
    fn set_exec(&mut self, mut lanes: impl FnMut(&mut Self, u32) -> R<V>) -> R {
        self.forget_masks();
        let any = self.alloc()?;
        for g in 0..self.groups {
            self.g = g;
            let m = lanes(self, g)?;
            let home = self.home(EXEC_ROW as u32 | g << 16);
            vx!(self, vmovups(home, Vr(m)))?;
            self.gather_any(any, m)?;
            self.next_group(&[any]);
        }
        self.none_of(any)
    }

    /// `if` (dynamic) at `pc`: per group, the lanes running and those taking it into the
    /// if's slot; ZF set where no lane takes it. The caller then skips with the running
    /// lanes as they were (an inlined `callnz p0` that no lane takes skips past its endif),
    /// or enters ([`Self::enter_if`]).
    pub(super) fn if_dyn(&mut self, pc: usize, cond: &Cond) -> R {
        self.forget_masks();
        let slot = self.if_slot[&pc];
        let any = self.alloc()?;
        for g in 0..self.groups {
            self.g = g;
            let exec = self.row(EXEC_ROW)?;
            let saved = self.if_lanes(slot, false, g);
            vx!(self, vmovups(saved, Vr(exec)))?;
            let taken = self.cond_lanes(cond, exec)?;
            let at = self.if_lanes(slot, true, g);
            vx!(self, vmovups(at, Vr(taken)))?;
            self.gather_any(any, taken)?;
            self.next_group(&[any]);
        }
        self.none_of(any)
    }

    /// After [`Self::if_dyn`] where some lane takes the if: those lanes run.
    pub(super) fn enter_if(&mut self, pc: usize) -> R {
        let slot = self.if_slot[&pc];
        for g in 0..self.groups {
            self.g = g;
            let t = self.alloc()?;
            let taken = self.if_lanes(slot, true, g);
            vx!(self, vmovups(Vr(t), taken))?;
            let home = self.home(EXEC_ROW as u32 | g << 16);
            vx!(self, vmovups(home, Vr(t)))?;
            self.next_group(&[]);
        }
        self.forget_all()
    }

    /// `else` (dynamic) at `pc`: the lanes running before the if and not taking it run; ZF
    /// set where none does.
    pub(super) fn else_dyn(&mut self, pc: usize) -> R {
        let slot = self.if_slot[&pc];
        self.set_exec(|s, g| {
            let t = s.alloc()?;
            let taken = s.if_lanes(slot, true, g);
            vx!(s, vmovups(Vr(t), taken))?;
            let saved = s.if_lanes(slot, false, g);
            vx!(s, vpandnd | vpandn(Vr(t), Vr(t), saved))?;
            Ok(t)
        })
    }

    /// `endif` (dynamic) at `pc`: the lanes running before the if run again.
    pub(super) fn end_if_dyn(&mut self, pc: usize) -> R {
        let slot = self.if_slot[&pc];
        self.set_exec(|s, g| {
            let t = s.alloc()?;
            let saved = s.if_lanes(slot, false, g);
            vx!(s, vmovups(Vr(t), saved))?;
            Ok(t)
        })
    }
}
