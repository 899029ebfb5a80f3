//! Relative reads: `c[a0 + n]`, `c[aL + n]`, `v[aL]`, `v[a0]`, and the palette runs that let
//! consecutive `c[a0.n + k]` reads share their lanes' addresses.

use super::*;

/// Per first read: the later reads (pc, distance) sharing its addresses.
pub(super) type Runs = HashMap<usize, Vec<(usize, i32)>>;

/// The `c[a0.n + k]` reads that can share their lanes' addresses (see
/// [`Gen::gather_const_a0_run`]): for a read, the later ones in its block of `k + 1` and
/// `k + 2` with the same a0 component and no write of it in between, and the frame slots
/// (numbered here; offsets set by the caller) the later ones' rows wait in.
pub(super) fn palette_runs(p: &Program) -> (Runs, HashMap<usize, i32>) {
    let leaders = p.block_starts();
    let mut runs = HashMap::new();
    let mut stash = HashMap::new();
    for (pc, op) in p.ops.iter().enumerate() {
        let Op::GatherConstA0 { base, comp, .. } = *op else {
            continue;
        };
        if stash.contains_key(&pc) {
            continue;
        }
        let mut later = vec![];
        for q in pc + 1..p.ops.len() {
            let writes_a0 = matches!(
                p.ops[q],
                Op::Alu {
                    dst: DstRef {
                        kind: DstKind::Addr,
                        ..
                    },
                    ..
                }
            );
            if leaders.contains(&q) || writes_a0 {
                break;
            }
            if let Op::GatherConstA0 {
                base: b, comp: c, ..
            } = p.ops[q]
                && c == comp
                && (b - base == 1 || b - base == 2)
                && !later.iter().any(|&(_, k)| k == b - base)
                && !stash.contains_key(&q)
            {
                later.push((q, b - base));
            }
        }
        if !later.is_empty() {
            for &(q, _) in &later {
                let n = stash.len() as i32;
                stash.insert(q, n);
            }
            runs.insert(pc, later);
        }
    }
    (runs, stash)
}

impl Gen<'_> {
    // ---- gathers ---------------------------------------------------------------------

    /// Rows = c[base + a0.comp] per lane; outside the file, the zero register at its end.
    pub(super) fn gather_const_a0(&mut self, dst: u16, base: i32, comp: u8) -> R {
        let a = self.row(A0_ROW + comp as u16)?;
        let i = self.alloc()?;
        let b = self.kb(base as u32);
        self.a.vpaddd(ZMM[i], ZMM[a], b)?;
        let last = self.alloc()?;
        self.a.vpbroadcastd(ZMM[last], dword_ptr(rsp + NCONSTS))?;
        let one = self.kb(1);
        self.a.vpsubd(ZMM[last], ZMM[last], one)?;
        self.a.vpcmpud(k1, ZMM[i], ZMM[last], 1)?;
        self.a.vmovdqa32(ZMM[last].k1(), ZMM[i])?;
        if crate::compile::broken_gather() != 0 {
            let k = self.kb(crate::compile::broken_gather() as u32);
            self.a.vpaddd(ZMM[last], ZMM[last], k)?;
        }
        // Each lane's register whole (16 bytes), then a transpose: cheaper than four
        // 16-lane gathers.
        self.a.vpslld(ZMM[last], ZMM[last], 4)?;
        self.a.vmovdqu32(zmmword_ptr(rsp + IO), ZMM[last])?;
        let mut z = [0; 4];
        for (q, zq) in z.iter_mut().enumerate() {
            *zq = self.alloc()?;
            for k in 0..4 {
                // z[q] lane k = lane 4k + q.
                let lane = 4 * k + q as i32;
                self.a.mov(eax, dword_ptr(rsp + IO + 4 * lane))?;
                let m = xmmword_ptr(r12 + rax);
                if k == 0 {
                    self.a.vmovups(XMM[*zq], m)?;
                } else {
                    self.a.vinsertf32x4(ZMM[*zq], ZMM[*zq], m, k)?;
                }
            }
        }
        let out = self.transpose(z)?;
        for (c, t) in out.into_iter().enumerate() {
            self.bind(dst + c as u16, t);
        }
        Ok(())
    }

    /// Rows = c[base + a0.comp] per lane, and the registers `k` further on that the later
    /// reads `later` (pc, k) take, into the frame: one address per lane for all of them.
    /// The lanes' first register is clamped to -2 ..= the zero register (outside: the zero
    /// register), so the registers k further on are file registers or the zero padding
    /// around the file (device::CONST_PAD) exactly where c[base + k + a0] is outside it.
    pub(super) fn gather_const_a0_run(
        &mut self,
        dst: u16,
        base: i32,
        comp: u8,
        later: &[(usize, i32)],
    ) -> R {
        let a = self.row(A0_ROW + comp as u16)?;
        let i = self.alloc()?;
        let b = self.kb((base + 2) as u32);
        self.a.vpaddd(ZMM[i], ZMM[a], b)?;
        // The zero register is number nconsts - 1: + 2.
        let limit = self.alloc()?;
        self.a.vpbroadcastd(ZMM[limit], dword_ptr(rsp + NCONSTS))?;
        let one = self.kb(1);
        self.a.vpaddd(ZMM[limit], ZMM[limit], one)?;
        self.a.vpminud(ZMM[i], ZMM[i], ZMM[limit])?;
        self.free(limit);
        self.a.vpslld(ZMM[i], ZMM[i], 4)?;
        self.a.vmovdqu32(zmmword_ptr(rsp + IO), ZMM[i])?;
        self.free(i);
        // Register k of lane l at r12 + 16 * (index + 2) + 16 * k - 32.
        let ks: Vec<i32> = std::iter::once(0)
            .chain(later.iter().map(|l| l.1))
            .collect();
        let mut z = vec![[0; 4]; ks.len()];
        for q in 0..4 {
            for zk in z.iter_mut() {
                zk[q] = self.alloc()?;
            }
            for kk in 0..4 {
                // z[k][q] lane kk = lane 4 kk + q.
                let lane = 4 * kk + q as i32;
                self.a.mov(eax, dword_ptr(rsp + IO + 4 * lane))?;
                for (zk, &k) in z.iter().zip(&ks) {
                    let m = xmmword_ptr(r12 + rax + (16 * k - 32));
                    if kk == 0 {
                        self.a.vmovups(XMM[zk[q]], m)?;
                    } else {
                        self.a.vinsertf32x4(ZMM[zk[q]], ZMM[zk[q]], m, kk)?;
                    }
                }
            }
        }
        for (n, zk) in z.into_iter().enumerate() {
            let rows = self.transpose(zk)?;
            if n == 0 {
                for (c, t) in rows.into_iter().enumerate() {
                    self.bind(dst + c as u16, t);
                }
            } else {
                let at = self.stash[&later[n - 1].0] + self.g as i32 * 256;
                for (c, t) in rows.into_iter().enumerate() {
                    self.a
                        .vmovups(zmmword_ptr(rsp + at + c as i32 * 64), ZMM[t])?;
                    self.free(t);
                }
            }
        }
        Ok(())
    }

    /// Rows = c[base + aL] (uniform).
    pub(super) fn gather_const_al(&mut self, dst: u16, base: i32) -> R {
        self.a.mov(eax, dword_ptr(rsp + AL))?;
        self.a.add(eax, base)?;
        self.a.movsxd(rax, eax)?;
        self.a.mov(rcx, qword_ptr(rsp + NCONSTS))?;
        self.a.lea(rdx, rcx - 1)?;
        self.a.cmp(rax, rcx)?;
        self.a.cmovae(rax, rdx)?;
        self.a.shl(rax, 4)?;
        for c in 0..4 {
            if self.live(dst + c as u16) {
                let t = self.alloc()?;
                self.a.vbroadcastss(ZMM[t], dword_ptr(r12 + rax + c * 4))?;
                self.bind(dst + c as u16, t);
            }
        }
        Ok(())
    }

    /// Rows = v[base + aL] (uniform); outside v0..v15, zero.
    pub(super) fn gather_input_al(&mut self, dst: u16, base: i32) -> R {
        self.a.mov(eax, dword_ptr(rsp + AL))?;
        self.a.add(eax, base)?;
        self.a.xor(ecx, ecx)?;
        self.a.xor(edx, edx)?;
        self.a.mov(esi, 0xFFFFu32)?;
        self.a.cmp(eax, INPUTS as u32)?;
        self.a.cmovb(ecx, esi)?;
        self.a.cmovb(edx, eax)?;
        self.a.kmovw(k1, ecx)?;
        self.a.shl(rdx, 10)?;
        for c in 0..4u16 {
            let t = self.alloc()?;
            let off = (INPUT_BASE + c) as i32 * ROW + self.g as i32 * 64;
            self.a
                .vmovups(ZMM[t].k1().z(), zmmword_ptr(rbx + rdx + off))?;
            self.bind(dst + c, t);
        }
        Ok(())
    }

    /// Rows = v[base + a0.comp] per lane; outside v0..v15, zero.
    pub(super) fn gather_input_a0(&mut self, dst: u16, base: i32, comp: u8) -> R {
        let a = self.row(A0_ROW + comp as u16)?;
        let i = self.alloc()?;
        let b = self.kb(base as u32);
        self.a.vpaddd(ZMM[i], ZMM[a], b)?;
        let n = self.kb(INPUTS as u32);
        self.a.vpcmpud(k1, ZMM[i], n, 1)?;
        // Lane l of input register i, component 0, is dword i * 256 + l past v0.x.
        self.a.vpslld(ZMM[i], ZMM[i], 8)?;
        let iota = self.iota();
        self.a.vpaddd(ZMM[i], ZMM[i], iota)?;
        let mut out = [0; 4];
        for (c, o) in out.iter_mut().enumerate() {
            let t = self.alloc()?;
            self.a.vpxord(ZMM[t], ZMM[t], ZMM[t])?;
            self.scratch_k(2);
            self.a.kmovw(k2, k1)?;
            let off = (INPUT_BASE as i32 + c as i32) * ROW + self.g as i32 * 64;
            self.a
                .vgatherdps(ZMM[t].k2(), dword_ptr(rbx + ZMM[i] * 4 + off))?;
            *o = t;
        }
        for (c, t) in out.into_iter().enumerate() {
            self.bind(dst + c as u16, t);
        }
        Ok(())
    }

    /// An operation on the lanes of group `self.g`.
    pub(super) fn lanes(&mut self, op: &Op) -> R {
        match *op {
            Op::Alu { kind, dst, src } => self.alu(kind, &dst, &src),
            Op::GatherConstA0 { dst, base, comp } => {
                if let Some(&at) = self.stash.get(&self.pc) {
                    // Read with an earlier c[a0.n + k]: waiting in the frame.
                    for c in 0..4u16 {
                        let t = self.alloc()?;
                        self.a.vmovups(
                            ZMM[t],
                            zmmword_ptr(rsp + at + self.g as i32 * 256 + c as i32 * 64),
                        )?;
                        self.bind(dst + c, t);
                    }
                    Ok(())
                } else if let Some(later) = self.palette.get(&self.pc).cloned() {
                    self.gather_const_a0_run(dst, base, comp, &later)
                } else {
                    self.gather_const_a0(dst, base, comp)
                }
            }
            Op::GatherConstAl { dst, base } => self.gather_const_al(dst, base),
            Op::GatherInputAl { dst, base } => self.gather_input_al(dst, base),
            Op::GatherInputA0 { dst, base, comp } => self.gather_input_a0(dst, base, comp),
            _ => unreachable!("per-lane operations only"),
        }
    }
}
