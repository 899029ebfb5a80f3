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

    /// 128-bit lane `k` of `v` = the 16 bytes at `m` (lane 0: the rest of `v` cleared).
    pub(super) fn insert128(&mut self, v: V, m: AsmMemoryOperand, k: i32) -> R {
        match (k, self.w) {
            (0, _) => self.a.vmovups(XMM[v], m)?,
            (_, Width::Zmm) => self.a.vinsertf32x4(ZMM[v], ZMM[v], m, k)?,
            (_, Width::Ymm) => self.a.vinsertf128(YMM[v], YMM[v], m, k)?,
        }
        Ok(())
    }

    /// Rows = c[base + a0.comp] per lane; outside the file, the zero register at its end.
    pub(super) fn gather_const_a0(&mut self, dst: u16, base: i32, comp: u8) -> R {
        let a = self.row(A0_ROW + comp as u16)?;
        let i = self.alloc()?;
        let b = self.kb(base as u32);
        vx!(self, vpaddd(Vr(i), Vr(a), b))?;
        let last = self.alloc()?;
        vx!(self, vpbroadcastd(Vr(last), dword_ptr(rsp + NCONSTS)))?;
        let one = self.kb(1);
        vx!(self, vpsubd(Vr(last), Vr(last), one))?;
        // The unsigned minimum of the index and the zero register's.
        match self.w {
            Width::Zmm => {
                self.a.vpcmpud(k1, ZMM[i], ZMM[last], 1)?;
                self.a.vmovdqa32(ZMM[last].k1(), ZMM[i])?;
            }
            Width::Ymm => self.a.vpminud(YMM[last], YMM[last], YMM[i])?,
        }
        if crate::compile::broken_gather() != 0 {
            let k = self.kb(crate::compile::broken_gather() as u32);
            vx!(self, vpaddd(Vr(last), Vr(last), k))?;
        }
        // Each lane's register whole (16 bytes), then a transpose: cheaper than four
        // 16-lane gathers.
        vx!(self, vpslld(Vr(last), Vr(last), 4))?;
        let io = self.vmem(rsp + IO);
        vx!(self, vmovdqu32 | vmovdqu(io, Vr(last)))?;
        let mut z = [0; 4];
        for (q, zq) in z.iter_mut().enumerate() {
            *zq = self.alloc()?;
            for k in 0..self.w.lanes() as i32 / 4 {
                // z[q] lane k = lane 4k + q.
                let lane = 4 * k + q as i32;
                self.a.mov(eax, dword_ptr(rsp + IO + 4 * lane))?;
                let m = xmmword_ptr(r12 + rax);
                self.insert128(*zq, m, k)?;
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
        vx!(self, vpaddd(Vr(i), Vr(a), b))?;
        // The zero register is number nconsts - 1: + 2.
        let limit = self.alloc()?;
        vx!(self, vpbroadcastd(Vr(limit), dword_ptr(rsp + NCONSTS)))?;
        let one = self.kb(1);
        vx!(self, vpaddd(Vr(limit), Vr(limit), one))?;
        vx!(self, vpminud(Vr(i), Vr(i), Vr(limit)))?;
        self.free(limit);
        vx!(self, vpslld(Vr(i), Vr(i), 4))?;
        let io = self.vmem(rsp + IO);
        vx!(self, vmovdqu32 | vmovdqu(io, Vr(i)))?;
        self.free(i);
        // Register k of lane l at r12 + 16 * (index + 2) + 16 * k - 32.
        let ks: Vec<i32> = std::iter::once(0)
            .chain(later.iter().map(|l| l.1))
            .collect();
        // AVX-512: every register of the run at once (32 registers hold them); AVX2: one
        // at a time, the stashed ones first (16 registers).
        let chunks: Vec<Vec<usize>> = match self.w {
            Width::Zmm => vec![(0..ks.len()).collect()],
            Width::Ymm => (1..ks.len()).chain([0]).map(|n| vec![n]).collect(),
        };
        for chunk in chunks {
            let mut z = vec![[0; 4]; chunk.len()];
            for q in 0..4 {
                for zk in z.iter_mut() {
                    zk[q] = self.alloc()?;
                }
                for kk in 0..self.w.lanes() as i32 / 4 {
                    // z[k][q] lane kk = lane 4 kk + q.
                    let lane = 4 * kk + q as i32;
                    self.a.mov(eax, dword_ptr(rsp + IO + 4 * lane))?;
                    for (zk, &n) in z.iter().zip(&chunk) {
                        let m = xmmword_ptr(r12 + rax + (16 * ks[n] - 32));
                        self.insert128(zk[q], m, kk)?;
                    }
                }
            }
            for (zk, &n) in z.into_iter().zip(&chunk) {
                let rows = self.transpose(zk)?;
                if n == 0 {
                    for (c, t) in rows.into_iter().enumerate() {
                        self.bind(dst + c as u16, t);
                    }
                } else {
                    let at = self.stash[&later[n - 1].0] + self.g as i32 * 256;
                    for (c, t) in rows.into_iter().enumerate() {
                        let m = self.vmem(rsp + at + c as i32 * 64);
                        vx!(self, vmovups(m, Vr(t)))?;
                        self.free(t);
                    }
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
                vx!(self, vbroadcastss(Vr(t), dword_ptr(r12 + rax + c * 4)))?;
                self.bind(dst + c as u16, t);
            }
        }
        Ok(())
    }

    /// Rows = v[base + aL] (uniform); outside v0..v15, zero: the loads are masked off
    /// (AVX-512), or made from v0 and and-ed with zero (AVX2).
    pub(super) fn gather_input_al(&mut self, dst: u16, base: i32) -> R {
        self.a.mov(eax, dword_ptr(rsp + AL))?;
        self.a.add(eax, base)?;
        self.a.xor(ecx, ecx)?;
        self.a.xor(edx, edx)?;
        self.a.mov(esi, 0xFFFF_FFFFu32)?;
        self.a.cmp(eax, INPUTS as u32)?;
        self.a.cmovb(ecx, esi)?;
        self.a.cmovb(edx, eax)?;
        // Input register i's rows start i * 4 rows past v0's.
        self.a.shl(rdx, 2 + ROW.trailing_zeros())?;
        let inside = match self.w {
            Width::Zmm => {
                self.a.kmovw(k1, ecx)?;
                None
            }
            Width::Ymm => {
                let m = self.alloc()?;
                self.a.vmovd(XMM[m], ecx)?;
                self.a.vpbroadcastd(YMM[m], XMM[m])?;
                Some(m)
            }
        };
        for c in 0..4u16 {
            let t = self.alloc()?;
            let off = (INPUT_BASE + c) as i32 * ROW + self.g as i32 * self.w.bytes();
            match inside {
                None => self
                    .a
                    .vmovups(ZMM[t].k1().z(), zmmword_ptr(rbx + rdx + off))?,
                Some(m) => self
                    .a
                    .vandps(YMM[t], YMM[m], ymmword_ptr(rbx + rdx + off))?,
            }
            self.bind(dst + c, t);
        }
        if let Some(m) = inside {
            self.free(m);
        }
        Ok(())
    }

    /// Rows = v[base + a0.comp] per lane; outside v0..v15, zero (those lanes' gathers are
    /// masked off).
    pub(super) fn gather_input_a0(&mut self, dst: u16, base: i32, comp: u8) -> R {
        let a = self.row(A0_ROW + comp as u16)?;
        let i = self.alloc()?;
        let b = self.kb(base as u32);
        vx!(self, vpaddd(Vr(i), Vr(a), b))?;
        // The lanes whose register is inside (an unsigned compare: negative ones are not).
        let inside = match self.w {
            Width::Zmm => {
                let n = self.kb(INPUTS as u32);
                self.a.vpcmpud(k1, ZMM[i], n, 1)?;
                None
            }
            Width::Ymm => {
                let m = self.alloc()?;
                let last = self.kb(INPUTS as u32 - 1);
                self.a.vpminud(YMM[m], YMM[i], last)?;
                self.a.vpcmpeqd(YMM[m], YMM[m], YMM[i])?;
                Some(m)
            }
        };
        // Lane l of input register i, component 0, is dword i * 256 + l past v0.x.
        vx!(self, vpslld(Vr(i), Vr(i), 8))?;
        let iota = self.iota();
        vx!(self, vpaddd(Vr(i), Vr(i), iota))?;
        let mut out = [0; 4];
        for (c, o) in out.iter_mut().enumerate() {
            let t = self.alloc()?;
            vx!(self, vpxord | vpxor(Vr(t), Vr(t), Vr(t)))?;
            let off = (INPUT_BASE as i32 + c as i32) * ROW + self.g as i32 * self.w.bytes();
            match inside {
                None => {
                    self.scratch_k(2);
                    self.a.kmovw(k2, k1)?;
                    self.a
                        .vgatherdps(ZMM[t].k2(), dword_ptr(rbx + ZMM[i] * 4 + off))?;
                }
                Some(m) => {
                    // The gather clears its mask: a copy each time.
                    let k = self.alloc()?;
                    self.a.vmovaps(YMM[k], YMM[m])?;
                    self.vex_gather(
                        iced_x86::Code::VEX_Vgatherdps_ymm_vm32y_ymm,
                        t,
                        iced_x86::Register::RBX,
                        (i, 4),
                        off as i64,
                        k,
                    )?;
                    self.free(k);
                }
            }
            *o = t;
        }
        if let Some(m) = inside {
            self.free(m);
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
            Op::Pixel(crate::pixel::PixelOp::DepthRatio { num, den }) => self.depth_ratio(num, den),
            Op::Pixel(crate::pixel::PixelOp::Divide { dst, src, q }) => self.divide(&dst, &src, q),
            Op::GatherConstA0 { dst, base, comp } => {
                if let Some(&at) = self.stash.get(&self.pc) {
                    // Read with an earlier c[a0.n + k]: waiting in the frame.
                    for c in 0..4u16 {
                        let t = self.alloc()?;
                        let m = self.vmem(rsp + at + self.g as i32 * 256 + c as i32 * 64);
                        vx!(self, vmovups(Vr(t), m))?;
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
