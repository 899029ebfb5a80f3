//! Dynamic `if`/`else`/`endif`: the execution mask. Each group keeps the lanes that run as
//! a pseudo-row ([`EXEC_ROW`], all ones where a lane runs) that every write inside a
//! dynamic if blends with (`commit`); an if keeps the lanes running before it and those
//! taking it in its frame slot, for its else and endif. A program with dynamic ifs runs
//! every group of the batch in one pass, so the branch past a side no lane takes is the
//! interpreter's (which looks at all 64 lanes), and so is the instruction count.

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

    /// Set ZF where `any` has no lane set (then forget every register: the execution masks
    /// loaded are stale).
    fn none_of(&mut self, any: V) -> R {
        match self.w {
            Width::Zmm => {
                self.a.vptestmd(k1, ZMM[any], ZMM[any])?;
                self.a.kortestw(k1, k1)?;
            }
            Width::Ymm => self.a.vptest(YMM[any], YMM[any])?,
        }
        self.g = 0;
        self.flush_live(Some(&HashSet::new()))
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
            if g == 0 {
                vx!(self, vmovdqa32 | vmovdqa(Vr(any), Vr(m)))?;
            } else {
                vx!(self, vpord | vpor(Vr(any), Vr(any), Vr(m)))?;
            }
            for r in 0..self.w.regs() {
                if r != any {
                    self.free(r);
                }
            }
            // This group's rows may leave their registers for the next group's.
            self.epoch += 1;
        }
        self.none_of(any)
    }

    /// `if` (dynamic) at `pc`: the lanes running and taking it run; ZF set where none does.
    pub(super) fn if_dyn(&mut self, pc: usize, cond: &Cond) -> R {
        let slot = self.if_slot[&pc];
        self.set_exec(|s, g| {
            let exec = s.row(EXEC_ROW)?;
            let saved = s.if_lanes(slot, false, g);
            vx!(s, vmovups(saved, Vr(exec)))?;
            let taken = s.cond_lanes(cond, exec)?;
            let at = s.if_lanes(slot, true, g);
            vx!(s, vmovups(at, Vr(taken)))?;
            Ok(taken)
        })
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
