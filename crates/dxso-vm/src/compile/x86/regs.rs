//! The register cache (which row each vector register holds, least recently used written
//! back), the mask cache, and liveness (per block and per op) that decides what is written
//! back, what is computed at all and which rows start at zero.

use super::*;

/// The rows a component-wise op or a dot product reads more than once (a row used twice may
/// be missed; that only costs a compare).
pub(super) fn reused_rows(op: &Op) -> HashSet<u16> {
    let Op::Alu { kind, dst, src } = *op else {
        return HashSet::new();
    };
    let (comps, n) = match kind {
        Alu::Dp3 => (0b0111, 2),
        Alu::Dp4 => (0b1111, 2),
        k => (dst.mask, k.componentwise_sources()),
    };
    let mut seen = HashSet::new();
    let mut again = HashSet::new();
    for s in &src[..n] {
        for c in (0..4).filter(|c| comps >> c & 1 != 0) {
            if !seen.insert(s.rows[c]) {
                again.insert(s.rows[c]);
            }
        }
    }
    again
}

/// The rows an op may read (more than it does is fine) and the rows it surely writes
/// (fewer is fine): a0, p0 and the execution mask as their pseudo-rows. Inside a dynamic
/// if (`masked`), a write keeps the old value in the lanes that do not run, as a
/// predicated one does: it reads its rows and the execution mask, and surely writes none.
pub(super) fn uses_defs(op: &Op, masked: bool) -> (Vec<u16>, Vec<u16>) {
    let dst4 = |d: u16| (d..d + 4).collect::<Vec<_>>();
    match *op {
        // Sampling: as an op of the coordinates and gradients into its destination.
        Op::Pixel(crate::pixel::PixelOp::Sample {
            dst,
            coord,
            dx: gx,
            dy: gy,
            ..
        }) => uses_defs(
            &Op::Alu {
                kind: Alu::Mov,
                dst,
                src: [coord, gx, gy],
            },
            masked,
        ),
        // texdepth: as an op of the two rows into oDepth.x.
        Op::Pixel(crate::pixel::PixelOp::DepthRatio { num, den }) => {
            let (a, b) = (
                crate::pixel::lower::identity(num),
                crate::pixel::lower::identity(den),
            );
            uses_defs(
                &Op::Alu {
                    kind: Alu::Mov,
                    dst: crate::pixel::lower::mask_dst(crate::pixel::lower::DEPTH_ROW, 1),
                    src: [a, b, b],
                },
                masked,
            )
        }
        // texcrd _dz/_dw: as an op of its source (every component of it: the divisor's
        // too) into its destination.
        Op::Pixel(crate::pixel::PixelOp::Divide { dst, src, .. }) => uses_defs(
            &Op::Alu {
                kind: Alu::Mov,
                dst,
                src: [src, src, src],
            },
            masked,
        ),
        Op::Alu { kind, dst, src } => {
            let mut uses: Vec<u16> = src.iter().flat_map(|s| s.rows).collect();
            if let (Alu::Kill(_), DstKind::Rows(r)) = (kind, dst.kind) {
                // texkill keeps the kill row's value where no component is below 0.
                uses.push(r);
            }
            let target = |c: u16| match dst.kind {
                DstKind::Rows(r) => Some(r + c),
                DstKind::Addr => Some(A0_ROW + c),
                DstKind::Pred => Some(P0_ROW + c),
                DstKind::OutputByLoop(_) => None,
            };
            let written =
                (0..4u16).filter(|&c| dst.mask >> c & 1 != 0 && (kind != Alu::Crs || c < 3));
            let mut defs = vec![];
            if let Some(p) = dst.pred {
                uses.extend(p.comps.map(|c| P0_ROW + c as u16));
            }
            if masked {
                uses.push(EXEC_ROW);
            }
            if dst.pred.is_some() || masked {
                uses.extend((0..4).filter_map(target));
            } else {
                defs.extend(written.filter_map(target));
            }
            (uses, defs)
        }
        Op::GatherConstA0 { dst, comp, .. } | Op::GatherInputA0 { dst, comp, .. } => {
            (vec![A0_ROW + comp as u16], dst4(dst))
        }
        Op::GatherConstAl { dst, .. } | Op::GatherInputAl { dst, .. } => (vec![], dst4(dst)),
        // A dynamic if reads its condition's component (and the execution mask, which
        // only the flow ops write, straight to its home).
        Op::IfDyn { cond, .. }
        | Op::Break {
            cond: Some(cond), ..
        } => match cond {
            Cond::Cmp(_, a, b) => (vec![a.rows[0], b.rows[0], EXEC_ROW], vec![]),
            Cond::Pred(comp, _) => (vec![P0_ROW + comp as u16, EXEC_ROW], vec![]),
        },
        Op::Break { cond: None, .. } => (vec![EXEC_ROW], vec![]),
        _ => (vec![], vec![]),
    }
}

/// The rows a program's caller reads after it: the outputs; for a pixel program oC0..oC3,
/// oDepth, ps_1_x's colour r0 and the kill row.
pub(super) fn exit_rows(p: &Program) -> HashSet<u16> {
    let mut rows: HashSet<u16> = p.outputs.iter().flat_map(|o| o.row..o.row + 4).collect();
    if let Some(px) = &p.pixel {
        rows.extend(OUTPUT_BASE..OUTPUT_BASE + crate::pixel::OUTPUT_ROWS);
        rows.extend(TEMP_BASE..TEMP_BASE + 4);
        rows.insert(px.kill);
    }
    rows
}

/// Which rows are live (a later op may read them before any op writes them; outputs at
/// the end) where: only live rows are written back to their homes when a block ends, a row
/// that is dead after an op leaves its register then, and the rows live at the start need a
/// value (zero) there.
pub(super) struct Liveness {
    /// At the end of each block (by its first pc).
    pub(super) block_out: HashMap<usize, HashSet<u16>>,
    /// After each op.
    pub(super) after: Vec<HashSet<u16>>,
    /// At the start of the program.
    pub(super) entry: HashSet<u16>,
}

/// The liveness of `p`'s rows over its blocks (`starts`); `masked` says which ops keep the
/// old value in lanes they do not write ([`Program::masked_ops`]).
pub(super) fn liveness(p: &Program, starts: &BTreeSet<usize>, masked: &[bool]) -> Liveness {
    let n = p.ops.len();
    let outputs = exit_rows(p);
    let bounds: Vec<usize> = starts.iter().copied().collect();
    let blocks: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
    let mut live_in: HashMap<usize, HashSet<u16>> = HashMap::from([(n, outputs)]);
    let mut block_out = HashMap::new();
    let mut after = vec![HashSet::new(); n];
    loop {
        let mut changed = false;
        for &(start, end) in blocks.iter().rev() {
            let succ = p.successors(end - 1).unwrap_or_else(|| vec![end]);
            let out: HashSet<u16> = succ
                .iter()
                .flat_map(|s| live_in.get(s).into_iter().flatten().copied())
                .collect();
            let mut live = out.clone();
            for pc in (start..end).rev() {
                after[pc] = live.clone();
                let (uses, defs) = uses_defs(&p.ops[pc], masked[pc]);
                for d in defs {
                    live.remove(&d);
                }
                live.extend(uses);
            }
            if live_in.get(&start) != Some(&live) {
                live_in.insert(start, live);
                changed = true;
            }
            block_out.insert(start, out);
        }
        if !changed {
            let entry = live_in.remove(&0).unwrap_or_default();
            return Liveness {
                block_out,
                after,
                entry,
            };
        }
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Slot {
    Free,
    /// Holds a row of a group (`row | group << 16`; written since its last store to the
    /// home when dirty).
    Row {
        key: u32,
        dirty: bool,
    },
    /// An intermediate value of the current op.
    Temp,
}

/// The non-zero masks of cached registers are kept in k2..k7 (k1 is scratch; k2..k4 are
/// scratch too where an op needs more, and forget their masks then).
pub(super) const FIRST_KEPT: usize = 2;

pub(super) const KEPT: usize = 6;

impl Gen<'_> {
    // ---- registers -------------------------------------------------------------------

    /// The cache key of `row` in the current group. Uniform rows (constants, `c[aL + n]`
    /// gathers) hold one value in every lane: all groups share them (as group 0).
    pub(super) fn key(&self, row: u16) -> u32 {
        if self.p.is_uniform_row(row) {
            row as u32
        } else {
            row as u32 | self.g << 16
        }
    }

    pub(super) fn home(&self, key: u32) -> AsmMemoryOperand {
        let (row, g) = (key as u16, (key >> 16) as i32);
        if row == EXEC_ROW {
            self.vmem(rsp + EXEC_HOME + g * 64)
        } else if row >= P0_ROW {
            self.vmem(rsp + P0_HOME + g * 256 + (row - P0_ROW) as i32 * 64)
        } else if row >= A0_ROW {
            self.vmem(rsp + A0_HOME + g * 256 + (row - A0_ROW) as i32 * 64)
        } else {
            self.vmem(rbx + row as i32 * ROW + g * self.w.bytes())
        }
    }

    /// The vector registers the cache and temporaries use: all but the fast code's
    /// check accumulator.
    pub(super) fn regs(&self) -> usize {
        self.w.regs() - self.fast as usize
    }

    pub(super) fn touch(&mut self, r: V) {
        self.clock += 1;
        self.stamp[r] = self.clock;
    }

    /// A register for a new value, evicting the least recently used row not read by the
    /// current op when none is free.
    pub(super) fn alloc(&mut self) -> R<V> {
        let r = match (0..self.regs()).find(|&r| self.slot[r] == Slot::Free) {
            Some(r) => r,
            None => {
                let r = (0..self.regs())
                    .filter(|&r| {
                        matches!(self.slot[r], Slot::Row { .. }) && self.pinned[r] != self.epoch
                    })
                    .min_by_key(|&r| self.stamp[r])
                    .ok_or_else(|| Error("out of vector registers".into()))?;
                if let Slot::Row { key, dirty: true } = self.slot[r] {
                    let at = self.home(key);
                    vx!(self, vmovups(at, Vr(r)))?;
                }
                r
            }
        };
        self.slot[r] = Slot::Temp;
        self.touch(r);
        // (A kept mask's register is a temporary: only its factor's can be taken.)
        self.op_mask = self.op_mask.filter(|e| e.0 != r);
        for k in &mut self.kcache {
            if *k == Some(r) {
                *k = None;
            }
        }
        Ok(r)
    }

    pub(super) fn free(&mut self, r: V) {
        if self.slot[r] == Slot::Temp {
            self.slot[r] = Slot::Free;
        }
    }

    /// The register holding `row`, loading it when it is not cached.
    pub(super) fn row(&mut self, row: u16) -> R<V> {
        let key = self.key(row);
        let found = (0..self.regs())
            .find(|&r| matches!(self.slot[r], Slot::Row { key: x, .. } if x == key));
        let r = match found {
            Some(r) => r,
            None => {
                let r = self.alloc()?;
                let at = self.home(key);
                vx!(self, vmovups(Vr(r), at))?;
                self.slot[r] = Slot::Row { key, dirty: false };
                r
            }
        };
        self.touch(r);
        self.pinned[r] = self.epoch;
        Ok(r)
    }

    /// Make the temporary `v` the value of `row`.
    pub(super) fn bind(&mut self, row: u16, v: V) {
        debug_assert_eq!(self.slot[v], Slot::Temp);
        let key = self.key(row);
        for r in 0..self.regs() {
            if matches!(self.slot[r], Slot::Row { key: x, .. } if x == key) {
                self.slot[r] = Slot::Free;
            }
        }
        self.slot[v] = Slot::Row { key, dirty: true };
        self.touch(v);
        self.pinned[v] = self.epoch;
    }

    pub(super) fn copy(&mut self, v: V) -> R<V> {
        let t = self.alloc()?;
        vx!(self, vmovaps(Vr(t), Vr(v)))?;
        Ok(t)
    }

    /// The end of an op: its temporaries are free again.
    pub(super) fn end_op(&mut self) {
        self.op_mask = None;
        if let Some(t) = self.reused_temp.take() {
            for k in &mut self.kcache {
                if *k == Some(t) {
                    *k = None;
                }
            }
        }
        for r in 0..self.regs() {
            self.free(r);
        }
        self.epoch += 1;
    }

    /// Write every changed row back and forget them all (block boundaries, calls).
    pub(super) fn flush(&mut self) -> R {
        self.flush_live(None)
    }

    /// [`Self::flush`] at the end of a block: rows not in `live` are dead there (every path
    /// writes them before reading them again) and need not be written back.
    pub(super) fn flush_live(&mut self, live: Option<&HashSet<u16>>) -> R {
        for r in 0..self.regs() {
            if let Slot::Row { key, dirty: true } = self.slot[r]
                && live.is_none_or(|l| l.contains(&(key as u16)))
            {
                let at = self.home(key);
                vx!(self, vmovups(at, Vr(r)))?;
            }
            self.slot[r] = Slot::Free;
        }
        Ok(())
    }

    /// Whether a later op may read `row` (results nobody reads are not computed).
    pub(super) fn live(&self, row: u16) -> bool {
        self.live_now.as_ref().is_none_or(|l| l.contains(&row))
    }

    /// Whether the op writes component `c` of `dst` and a later op may read it.
    pub(super) fn writes(&self, dst: &DstRef, c: usize) -> bool {
        let row = match dst.kind {
            DstKind::Rows(r) => r + c as u16,
            DstKind::Addr => A0_ROW + c as u16,
            DstKind::Pred => P0_ROW + c as u16,
            DstKind::OutputByLoop(_) => return dst.mask >> c & 1 != 0,
        };
        dst.mask >> c & 1 != 0 && self.live(row)
    }

    /// Forget this group's rows that no later op reads (dead after the current op; shared
    /// uniform rows after the last group's).
    pub(super) fn drop_dead(&mut self, live: &HashSet<u16>) {
        for r in 0..self.regs() {
            if let Slot::Row { key, .. } = self.slot[r]
                && key & KONST == 0
            {
                let row = key as u16;
                let mine = if self.p.is_uniform_row(row) {
                    self.g == self.groups - 1
                } else {
                    key >> 16 == self.g
                };
                if mine && !live.contains(&row) {
                    self.slot[r] = Slot::Free;
                }
            }
        }
    }

    pub(super) fn label(&mut self, l: &mut CodeLabel) -> R {
        // One label per instruction: a label right after another gets a nop to sit on.
        if self.label_at == Some(self.a.instructions().len()) {
            self.a.nop()?;
        }
        self.label_at = Some(self.a.instructions().len());
        Ok(self.a.set_label(l)?)
    }
}
