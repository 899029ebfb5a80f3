//! Fused fetch and store: inputs loaded from the vertex streams (FLOAT1..4 transposed in
//! registers, packed types gathered and decoded), prefetches of the next batch, and finished
//! output records written to the draw's output.

use super::*;

/// Where a component of a packed element comes from.
#[derive(Clone, Copy)]
pub(super) enum Part {
    /// Bits of dword `dword` of the element: shifted left by `shl`, then right by `shr`
    /// (arithmetic when `signed`), converted, divided by the type's scale.
    Field {
        dword: usize,
        shl: u32,
        shr: u32,
        signed: bool,
    },
    /// Half `h` (0..3) of the element.
    Half(usize),
    /// A component the type does not supply.
    Fill(f32),
}

/// How [`DeclType::decode`] reads each component of a packed type, and the type's scale;
/// `None` for the FLOAT types and UNUSED.
pub(super) fn packed_parts(ty: DeclType) -> Option<([Part; 4], f32)> {
    use DeclType::*;
    let field = |dword, shl, shr, signed| Part::Field {
        dword,
        shl,
        shr,
        signed,
    };
    let byte = |b: u32| field(0, 24 - 8 * b, 24, false);
    let short = |h: usize, signed| field(h / 2, 16 - 16 * (h as u32 % 2), 16, signed);
    let shorts = |signed| [0, 1, 2, 3].map(|h| short(h, signed));
    let ten = |k: u32, signed| field(0, 22 - 10 * k, 22, signed);
    let (zero, one) = (Part::Fill(0.0), Part::Fill(1.0));
    Some(match ty {
        // B, G, R, A in memory; the shader sees (R, G, B, A).
        D3dColor => ([byte(2), byte(1), byte(0), byte(3)], 255.0),
        Ubyte4 => ([0, 1, 2, 3].map(byte), 1.0),
        Ubyte4N => ([0, 1, 2, 3].map(byte), 255.0),
        Short2 => ([short(0, true), short(1, true), zero, one], 1.0),
        Short2N => ([short(0, true), short(1, true), zero, one], 32767.0),
        UShort2N => ([short(0, false), short(1, false), zero, one], 65535.0),
        Short4 => (shorts(true), 1.0),
        Short4N => (shorts(true), 32767.0),
        UShort4N => (shorts(false), 65535.0),
        UDec3 => ([ten(0, false), ten(1, false), ten(2, false), one], 1.0),
        Dec3N => ([ten(0, true), ten(1, true), ten(2, true), one], 511.0),
        Float16_2 => ([Part::Half(0), Part::Half(1), zero, one], 1.0),
        Float16_4 => ([0, 1, 2, 3].map(Part::Half), 1.0),
        Float1 | Float2 | Float3 | Float4 | Unused => return None,
    })
}

impl Gen<'_> {
    // ---- fused fetch and store --------------------------------------------------------

    /// rax = the address of `base` plus `bytes_per_lane` times this group's first lane (in
    /// the batch).
    /// Up to `max` of the pass's remaining prefetches.
    pub(super) fn emit_prefetches(&mut self, max: usize) -> R {
        let mut at = None;
        for _ in 0..max {
            let Some((slot, stride, offset)) = self.prefetch.pop() else {
                break;
            };
            if at != Some(slot) {
                self.lane_address(slot & !BY_INDEX, stride)?;
                if slot & BY_INDEX != 0 {
                    // rdx: the pass's first index of the batch after this one.
                    self.a.mov(rdx, qword_ptr(rsp + BATCH_IO))?;
                    self.a.mov(rdx, qword_ptr(rdx + AHEAD_SLOT))?;
                    self.a.add(rdx, qword_ptr(rsp + GROUP))?;
                }
                at = Some(slot);
            }
            if slot & BY_INDEX != 0 {
                self.a.mov(ecx, dword_ptr(rdx + 4 * offset))?;
                self.a.imul_3(rcx, rcx, stride as i32)?;
                self.a.prefetcht1(byte_ptr(rax + rcx))?;
            } else if slot == OUT_SLOT {
                // Lines about to be written: fetched for writing (into L1), so the stores
                // need not ask for ownership again (W1 383 -> 422 M/s against prefetcht1).
                self.a.prefetchw(byte_ptr(rax + offset))?;
            } else {
                self.a.prefetcht1(byte_ptr(rax + offset))?;
            }
        }
        Ok(())
    }

    /// Fused code: the byte offset of each lane's element of this group from the address
    /// [`Self::lane_address`] gives: `stride` times the lane's index (indexed draws) or its
    /// place in the group.
    pub(super) fn lane_offsets(&mut self, stride: u32) -> R<V> {
        let v = self.alloc()?;
        if self.layout.as_ref().is_some_and(|l| l.indexed) {
            // This group's 16 indices: the pass's first lane (GROUP / 4) plus 16 per group.
            self.a.mov(rax, qword_ptr(rsp + BATCH_IO))?;
            self.a.mov(rax, qword_ptr(rax + INDICES_SLOT))?;
            self.a.mov(rcx, qword_ptr(rsp + GROUP))?;
            let m = self.vmem(rax + rcx + self.g as i32 * self.w.bytes());
            vx!(self, vmovdqu32 | vmovdqu(Vr(v), m))?;
            let m = self.kb(stride);
            vx!(self, vpmulld(Vr(v), Vr(v), m))?;
        } else {
            let lanes = self.w.lanes();
            let first = self.g * lanes * stride;
            let words: Vec<u32> = (0..lanes).map(|l| first + l * stride).collect();
            let m = self.vector(&words);
            vx!(self, vmovdqu32 | vmovdqu(Vr(v), m))?;
        }
        Ok(v)
    }

    /// Fused code: rax = the address of this group's first lane's element of input `base / 8`
    /// (indexed draws: of vertex 0), or of its output record (`base` = OUT_SLOT).
    pub(super) fn lane_address(&mut self, base: i32, bytes_per_lane: u32) -> R {
        self.a.mov(rax, qword_ptr(rsp + BATCH_IO))?;
        self.a.mov(rax, qword_ptr(rax + base))?;
        if base != OUT_SLOT && self.layout.as_ref().is_some_and(|l| l.indexed) {
            return Ok(());
        }
        // GROUP counts bytes of a row: 4 per lane.
        self.a.mov(rcx, qword_ptr(rsp + GROUP))?;
        self.a.shr(rcx, 2)?;
        self.a.imul_3(rcx, rcx, bytes_per_lane as i32)?;
        self.a.add(rax, rcx)?;
        Ok(())
    }

    /// Input register `reg` of this group's 16 vertices, from its stream (`floats` floats
    /// each, `stride` bytes apart) into the cache as four component rows.
    pub(super) fn fetch(&mut self, reg: u8, floats: u8, stride: u32) -> R {
        let indexed = self.layout.as_ref().is_some_and(|l| l.indexed);
        if indexed {
            // Each lane's element offset, from the index buffer, to the scratch area.
            let offsets = self.lane_offsets(stride)?;
            let io = self.vmem(rsp + IO);
            vx!(self, vmovdqu32 | vmovdqu(io, Vr(offsets)))?;
            self.free(offsets);
        }
        self.lane_address(reg as i32 * 8, stride)?;
        let (g, lanes) = (self.g, self.w.lanes());
        let at = |v: u32| ((g * lanes + v) * stride) as i32;
        // Only the element's own floats are read (masked loads do not fault): the mask in
        // k1 (AVX-512) or in the low dwords of a register (AVX2's vmaskmovps).
        let mut mask = None;
        if floats < 4 {
            match self.w {
                Width::Zmm => {
                    self.a.mov(ecx, (1u32 << floats) - 1)?;
                    self.a.kmovw(k1, ecx)?;
                }
                Width::Ymm => {
                    let m = self.alloc()?;
                    let words: Vec<u32> = (0..lanes)
                        .map(|l| if l % 4 < floats as u32 { u32::MAX } else { 0 })
                        .collect();
                    let v = self.vector(&words);
                    self.a.vmovups(YMM[m], v)?;
                    mask = Some(m);
                }
            }
        }
        // z[q] lane k = vertex 4k + q: after the transpose, lanes are in vertex order.
        let mut z = [0; 4];
        for (q, zq) in z.iter_mut().enumerate() {
            *zq = self.alloc()?;
            let t = if floats < 4 {
                Some(self.alloc()?)
            } else {
                None
            };
            for k in 0..lanes / 4 {
                let lane = 4 * k + q as u32;
                let m = if indexed {
                    self.a.mov(ecx, dword_ptr(rsp + IO + 4 * lane as i32))?;
                    xmmword_ptr(rax + rcx)
                } else {
                    xmmword_ptr(rax + at(lane))
                };
                let xmm = XMM[*zq];
                match (t, k, mask) {
                    (None, _, _) => self.insert128(*zq, m, k as i32)?,
                    (Some(_), 0, None) => self.a.vmovups(xmm.k1().z(), m)?,
                    (Some(t), _, None) => {
                        let tx = XMM[t];
                        self.a.vmovups(tx.k1().z(), m)?;
                        self.a.vinsertf32x4(ZMM[*zq], ZMM[*zq], tx, k as i32)?;
                    }
                    (Some(_), 0, Some(mk)) => self.a.vmaskmovps(xmm, XMM[mk], m)?,
                    (Some(t), _, Some(mk)) => {
                        self.a.vmaskmovps(XMM[t], XMM[mk], m)?;
                        self.a.vinsertf128(YMM[*zq], YMM[*zq], XMM[t], k as i32)?;
                    }
                }
            }
            if let Some(t) = t {
                self.free(t);
            }
        }
        if let Some(m) = mask {
            self.free(m);
        }
        let mut rows = self.transpose(z)?;
        if floats < 4 {
            self.free(rows[3]);
            rows[3] = self.constant(1.0)?;
        }
        self.bind_input(reg, rows)
    }

    /// The four component rows of input register `reg` for this group: into the cache, and
    /// to the arena too when the program reads inputs relatively (`v[aL]`, `v[a0]`).
    pub(super) fn bind_input(&mut self, reg: u8, rows: [V; 4]) -> R {
        let base = INPUT_BASE + reg as u16 * 4;
        let relative = self
            .p
            .ops
            .iter()
            .any(|op| matches!(op, Op::GatherInputAl { .. } | Op::GatherInputA0 { .. }));
        for (c, v) in rows.into_iter().enumerate() {
            self.bind(base + c as u16, v);
            if relative {
                let key = self.key(base + c as u16);
                let at = self.home(key);
                vx!(self, vmovups(at, Vr(v)))?;
                self.slot[v] = Slot::Row { key, dirty: false };
            }
        }
        Ok(())
    }

    /// Input register `reg` of this group's 16 vertices from elements of a packed type (4 or
    /// 8 bytes: colours, bytes, shorts, 10-bit fields, halves), decoded as
    /// [`DeclType::decode`] does: each lane's dwords gathered, fields shifted out, converted,
    /// divided by the type's scale.
    pub(super) fn fetch_packed(&mut self, reg: u8, ty: DeclType, stride: u32) -> R {
        let index = self.lane_offsets(stride)?;
        self.lane_address(reg as i32 * 8, stride)?;
        let dwords = if ty.size() == 8 { 2 } else { 1 };
        let mut d = [0; 2];
        for (i, word) in d.iter_mut().enumerate().take(dwords) {
            *word = self.alloc()?;
            match self.w {
                Width::Zmm => {
                    self.scratch_k(2);
                    self.a.kxnorw(k2, k2, k2)?;
                    self.a.vpxord(ZMM[*word], ZMM[*word], ZMM[*word])?;
                    self.a
                        .vpgatherdd(ZMM[*word].k2(), dword_ptr(rax + ZMM[index] + 4 * i as i32))?;
                }
                Width::Ymm => {
                    // Every lane (the gather clears its mask register as it goes).
                    let m = self.alloc()?;
                    self.a.vpcmpeqd(YMM[m], YMM[m], YMM[m])?;
                    self.a.vpxor(YMM[*word], YMM[*word], YMM[*word])?;
                    // code_asm spells only the EVEX form: the VEX one built directly.
                    let at = iced_x86::MemoryOperand::with_base_index_scale_displ_size(
                        iced_x86::Register::RAX,
                        YMM[index].into(),
                        1,
                        4 * i as i64,
                        1,
                    );
                    let gather = iced_x86::Instruction::with3(
                        iced_x86::Code::VEX_Vpgatherdd_ymm_vm32y_ymm,
                        iced_x86::Register::from(YMM[*word]),
                        at,
                        iced_x86::Register::from(YMM[m]),
                    )?;
                    self.a.add_instruction(gather)?;
                    self.free(m);
                }
            }
        }
        self.free(index);
        let (parts, scale) =
            packed_parts(ty).ok_or_else(|| Error(format!("{} is not a packed type", ty.name())))?;
        let mut rows = [0; 4];
        for (row, part) in rows.iter_mut().zip(parts) {
            *row = match part {
                Part::Field {
                    dword,
                    shl,
                    shr,
                    signed,
                } => {
                    // `shl` bits off the top, then `shr` down (arithmetic when signed).
                    let t = self.alloc()?;
                    vx!(self, vpslld(Vr(t), Vr(d[dword]), shl))?;
                    if signed {
                        vx!(self, vpsrad(Vr(t), Vr(t), shr))?;
                    } else {
                        vx!(self, vpsrld(Vr(t), Vr(t), shr))?;
                    }
                    vx!(self, vcvtdq2ps(Vr(t), Vr(t)))?;
                    if scale != 1.0 {
                        let k = self.kreg(scale)?;
                        vx!(self, vdivps(Vr(t), Vr(t), Vr(k)))?;
                    }
                    t
                }
                Part::Half(h) => {
                    let t = self.alloc()?;
                    vx!(self, vpsrld(Vr(t), Vr(d[h / 2]), 16 * (h as u32 % 2)))?;
                    match self.w {
                        Width::Zmm => {
                            self.a.vpmovdw(YMM[t], ZMM[t])?;
                            self.a.vcvtph2ps(ZMM[t], YMM[t])?;
                        }
                        Width::Ymm => {
                            // The low 16 bits of each lane, packed into 8 words (exact:
                            // every value fits unsigned), then converted.
                            let low = self.kb(0xFFFF);
                            self.a.vpand(YMM[t], YMM[t], low)?;
                            let hi = self.alloc()?;
                            self.a.vextracti128(XMM[hi], YMM[t], 1)?;
                            self.a.vpackusdw(XMM[t], XMM[t], XMM[hi])?;
                            self.free(hi);
                            self.a.vcvtph2ps(YMM[t], XMM[t])?;
                        }
                    }
                    t
                }
                Part::Fill(x) => self.constant(x)?,
            };
        }
        for v in d.into_iter().take(dwords) {
            self.free(v);
        }
        self.bind_input(reg, rows)
    }

    /// The in-lane 4x4 transpose: `x[q]` lane k element c becomes result c lane k element q.
    pub(super) fn transpose(&mut self, x: [V; 4]) -> R<[V; 4]> {
        let mut t = [0; 4];
        for (i, ti) in t.iter_mut().enumerate() {
            *ti = self.alloc()?;
            let (a, b) = (Vr(x[i / 2 * 2]), Vr(x[i / 2 * 2 + 1]));
            if i % 2 == 0 {
                vx!(self, vunpcklps(Vr(*ti), a, b))?;
            } else {
                vx!(self, vunpckhps(Vr(*ti), a, b))?;
            }
        }
        for &v in &x {
            self.free(v);
        }
        // t0 = (0.0 1.0 0.1 1.1), t1 = (0.2 1.2 0.3 1.3), t2, t3 the same of 2 and 3.
        let mut r = [0; 4];
        for (c, rc) in r.iter_mut().enumerate() {
            *rc = self.alloc()?;
            let (a, b) = (Vr(t[c / 2]), Vr(t[c / 2 + 2]));
            if c % 2 == 0 {
                vx!(self, vunpcklpd(Vr(*rc), a, b))?;
            } else {
                vx!(self, vunpckhpd(Vr(*rc), a, b))?;
            }
        }
        for &v in &t {
            self.free(v);
        }
        Ok(r)
    }

    /// Output registers `ks` of this group's 16 vertices into their output records (one NaN
    /// for every NaN, as the interpreter's store writes them), vertex after vertex: in
    /// address order, so each cache line is written whole at once where the registers fill
    /// it.
    pub(super) fn store_outputs(&mut self, ks: std::ops::Range<usize>) -> R {
        let record = self.p.outputs.len() as u32 * 16;
        let mut u = vec![];
        for k in ks.clone() {
            // The cache is empty here (the program's end): straight from the arena.
            let row = self.p.outputs[k].row;
            let mut x = [0; 4];
            for (c, xc) in x.iter_mut().enumerate() {
                *xc = self.alloc()?;
                let at = self.home(self.key(row + c as u16));
                vx!(self, vmovups(Vr(*xc), at))?;
                let nan = self.cmpv(1, *xc, UNORD, *xc)?;
                self.set_where(*xc, nan, f32::NAN)?;
                self.free_mask(nan);
            }
            u.push(self.transpose(x)?);
        }
        self.lane_address(OUT_SLOT, record)?;
        // u[k][q] lane l = register k of vertex 4l + q.
        let lanes = self.w.lanes();
        for v in 0..lanes {
            for (k, uk) in ks.clone().zip(&u) {
                let (q, lane) = ((v % 4) as usize, v / 4);
                let m = xmmword_ptr(rax + ((self.g * lanes + v) * record + k as u32 * 16) as i32);
                match (lane, self.w) {
                    (0, _) => self.a.vmovups(m, XMM[uk[q]])?,
                    (_, Width::Zmm) => self.a.vextractf32x4(m, ZMM[uk[q]], lane as i32)?,
                    (_, Width::Ymm) => self.a.vextractf128(m, YMM[uk[q]], lane as i32)?,
                }
            }
        }
        Ok(())
    }
}
