//! Writing an op's results: `_sat`, a0's rounding, the predicate and (inside dynamic flow
//! control) the execution mask, and `o[aL]` destinations — everything between a value
//! computed and the row that holds it.

use super::*;

impl Gen<'_> {
    /// `k{k}` = the lanes a predicated write of component `c` reaches.
    pub(super) fn pred_mask(&mut self, dst: &DstRef, c: usize, k: u8) -> R<bool> {
        let Some(p) = dst.pred else {
            return Ok(false);
        };
        let v = self.row(P0_ROW + p.comps[c] as u16)?;
        self.scratch_k(k);
        if p.not {
            self.a.vptestnmd(KREG[k as usize], ZMM[v], ZMM[v])?;
        } else {
            self.a.vptestmd(KREG[k as usize], ZMM[v], ZMM[v])?;
        }
        Ok(true)
    }

    /// Write the op's results (all computed before any is written).
    pub(super) fn store(&mut self, dst: &DstRef, res: [Option<V>; 4]) -> R {
        if self.fast && self.check[self.pc] {
            // The results as computed (before `_sat`), each register once.
            let mut done = vec![];
            for (c, v) in res.into_iter().enumerate() {
                if let (true, Some(v)) = (self.writes(dst, c), v)
                    && !done.contains(&v)
                {
                    self.check_value(v)?;
                    done.push(v);
                }
            }
        }
        let mut vals = [None; 4];
        for (c, v) in res.into_iter().enumerate() {
            let (true, Some(v)) = (self.writes(dst, c), v) else {
                continue;
            };
            let v = if dst.sat {
                // _sat, dxso::formula::sat: clamp to [0, 1]; NaN becomes 0 (maxps returns
                // its second operand for NaN; then minps keeps what is below 1).
                let t = self.alloc()?;
                let z = self.kf(0.0);
                vx!(self, vmaxps(Vr(t), Vr(v), z))?;
                let one = self.kf(1.0);
                vx!(self, vminps(Vr(t), Vr(t), one))?;
                // The unclamped value's register is free once no later component has it.
                if !res[c + 1..].contains(&Some(v)) {
                    self.free(v);
                }
                t
            } else {
                v
            };
            vals[c] = Some(match dst.kind {
                DstKind::Rows(row) => (row + c as u16, v),
                DstKind::Addr => {
                    // C3: round half to even, saturating; NaN -> 0.
                    let t = self.round(v, 0x08)?;
                    let big = self.cmpk(2, t, GE, 2_147_483_648.0)?;
                    let nan = self.cmpv(3, t, UNORD, t)?;
                    vx!(self, vcvttps2dq(Vr(t), Vr(t)))?;
                    match (big, nan) {
                        (Mask::V(big), Mask::V(nan)) => {
                            let max = self.kreg(f32::from_bits(i32::MAX as u32))?;
                            self.a.vblendvps(YMM[t], YMM[t], YMM[max], YMM[big])?;
                            self.a.vandnps(YMM[t], YMM[nan], YMM[t])?;
                            self.free(big);
                            self.free(nan);
                        }
                        _ => {
                            let m = self.pool_at(i32::MAX as u32);
                            self.a.vpbroadcastd(ZMM[t].k2(), dword_ptr(rbp + m))?;
                            self.a.vpxord(ZMM[t].k3(), ZMM[t], ZMM[t])?;
                        }
                    }
                    (A0_ROW + c as u16, t)
                }
                DstKind::OutputByLoop(_) => (0, v),
                DstKind::Pred => unreachable!("setp stores its own masks"),
            });
        }
        if let DstKind::OutputByLoop(base) = dst.kind {
            return self.store_by_loop(dst, base, vals.map(|x| x.map(|(_, v)| v)));
        }
        self.commit(dst, vals)
    }

    /// `o[aL + base]` = `vals` (outside o0..o15, nothing). The register is chosen as the
    /// code runs, so this group's output rows go to their homes first and are written there;
    /// an index outside the file writes to a scratch area of the frame instead (no branch:
    /// the register cache stays the same on every path).
    fn store_by_loop(&mut self, dst: &DstRef, base: i32, vals: [Option<V>; 4]) -> R {
        let outputs = OUTPUT_BASE..OUTPUT_BASE + OUTPUTS * 4;
        for r in 0..self.regs() {
            if let Slot::Row { key, dirty } = self.slot[r]
                && outputs.contains(&(key as u16))
                && key >> 16 == self.g
            {
                if dirty {
                    let at = self.home(key);
                    vx!(self, vmovups(at, Vr(r)))?;
                }
                self.slot[r] = Slot::Free;
            }
        }
        let first = OUTPUT_BASE as i32 * ROW + self.g as i32 * self.w.bytes();
        self.a.mov(eax, dword_ptr(rsp + AL))?;
        self.a.add(eax, base)?;
        self.a.mov(edx, eax)?;
        // Output register i's rows start i * 4 rows past o0's.
        self.a.shl(rdx, 2 + ROW.trailing_zeros())?;
        self.a.add(rdx, rbx)?;
        self.a.lea(rcx, rsp + (self.scratch_out - first))?;
        self.a.cmp(eax, OUTPUTS as u32)?;
        self.a.cmovae(rdx, rcx)?;
        for (c, v) in vals.into_iter().enumerate() {
            let Some(v) = v else {
                continue;
            };
            let at = self.vmem(rdx + (first + c as i32 * ROW));
            let v = if dst.pred.is_some() || self.masked[self.pc] {
                let old = self.alloc()?;
                vx!(self, vmovups(Vr(old), at))?;
                self.guard(dst, c, old, v)?
            } else {
                v
            };
            vx!(self, vmovups(at, Vr(v)))?;
        }
        Ok(())
    }

    /// Component `c`'s new value `v` where the write reaches — the lanes of its predicate,
    /// and inside dynamic flow control the lanes that run — and `old` elsewhere, in a new
    /// register.
    pub(super) fn guard(&mut self, dst: &DstRef, c: usize, old: V, v: V) -> R<V> {
        let mut v = v;
        if let Some(p) = dst.pred {
            v = match self.w {
                Width::Ymm => {
                    // p0's lanes are all ones or zeros (setp writes them): the blend's mask.
                    let m = self.row(P0_ROW + p.comps[c] as u16)?;
                    let (keep, new) = if p.not { (v, old) } else { (old, v) };
                    self.select(Mask::V(m), keep, new)?
                }
                Width::Zmm => {
                    self.pred_mask(dst, c, 4)?;
                    let t = self.alloc()?;
                    self.a.vpblendmd(ZMM[t].k4(), ZMM[old], ZMM[v])?;
                    t
                }
            };
        }
        if self.masked[self.pc] {
            let exec = self.row(EXEC_ROW)?;
            let t = match self.w {
                Width::Zmm => {
                    self.scratch_k(3);
                    self.a.vptestmd(k3, ZMM[exec], ZMM[exec])?;
                    let t = self.alloc()?;
                    self.a.vpblendmd(ZMM[t].k3(), ZMM[old], ZMM[v])?;
                    t
                }
                Width::Ymm => self.select(Mask::V(exec), old, v)?,
            };
            if dst.pred.is_some() {
                self.free(v);
            }
            v = t;
        }
        Ok(v)
    }

    /// Write `(row, value)` per component: first everything that reads (predicate masks,
    /// the old values a predicated write keeps, a register of its own for each value), then
    /// the bindings — a value may sit in the register of a row this op writes.
    pub(super) fn commit(&mut self, dst: &DstRef, vals: [Option<(u16, V)>; 4]) -> R {
        if self.masked[self.pc] {
            // The sources are read: only the results need their registers now (the blends
            // below load the old values and the execution mask; at AVX2 width the sources
            // would leave them too few).
            self.epoch += 1;
            for (_, v) in vals.iter().flatten() {
                self.pinned[*v] = self.epoch;
            }
        }
        let mut owned: [Option<(u16, V)>; 4] = [None; 4];
        for (c, x) in vals.into_iter().enumerate() {
            let Some((row, v)) = x else {
                continue;
            };
            let v = if dst.pred.is_some() || self.masked[self.pc] {
                let old = self.row(row)?;
                let t = self.guard(dst, c, old, v)?;
                // The unguarded value's register is free once no later component has it.
                if !vals[c + 1..].iter().flatten().any(|&(_, x)| x == v) {
                    self.free(v);
                }
                t
            } else if self.slot[v] != Slot::Temp || owned.iter().flatten().any(|&(_, o)| o == v) {
                self.copy(v)?
            } else {
                v
            };
            owned[c] = Some((row, v));
        }
        for (row, v) in owned.into_iter().flatten() {
            self.bind(row, v);
        }
        Ok(())
    }
}
