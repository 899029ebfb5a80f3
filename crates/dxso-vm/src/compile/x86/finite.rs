//! Where the fast code checks its values (the products without the zero rule's compares).
//!
//! The zero rule (C8) makes a product with a zero factor +0 even against inf or NaN. When
//! both factors are finite, `fma(x, y, +0)` gives the rule's bits in one instruction: a
//! zero factor gives an exact ±0 plus +0, which is +0, and any other product rounds once
//! as a multiplication does (an underflow keeps its sign, as the rule's `x * y` does). So
//! the x86 code is assembled twice: a *fast* version whose products are that `fma`, and
//! the *exact* one. The fast version proves its bits right as it runs: a product with an
//! inf or NaN factor gives an inf or NaN result, and every such result that could reach
//! anything the batch computes is checked (`fma(v, 0, acc)` turns `acc` into NaN for good
//! when `v` is inf or NaN). A batch whose check fails runs again with the exact code.
//!
//! Checking every product's result would cost as much as the compares it saves, so this
//! pass places checks only where they are needed. A result need not be checked where, on
//! every path from it, either nothing reads it before it is overwritten, or it reaches a
//! checked value, carried there by ops that give inf or NaN for an inf or NaN source:
//! `add`, `mul`, `mad`, `lrp`, `mov`, `abs` and `nrm` component by component and
//! `dp3`/`dp4` into their result, with no `_sat` or predicate on the write. Ops that do not
//! carry (`max`, `rcp`, a compare, ...) may read it on the way: the batch runs again
//! whatever they made of it. The outputs are checked at the end of every batch. Loops have
//! paths back to their start, so the facts are found as a fixed point over the blocks;
//! every path of a run ends (loops are counted), so the greatest one is right.

use super::*;

/// Per row: whether an inf or NaN there is sure to be checked later (`det`), and whether
/// it is, or nothing reads the value first (`safe`).
#[derive(Clone, PartialEq, Debug)]
struct Facts {
    det: Bits,
    safe: Bits,
}

/// A set of rows.
#[derive(Clone, PartialEq, Debug)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(rows: usize, f: impl Fn(usize) -> bool) -> Bits {
        let mut b = Bits(vec![0; rows.div_ceil(64)]);
        for r in (0..rows).filter(|&r| f(r)) {
            b.set(r as u16, true);
        }
        b
    }

    fn get(&self, r: u16) -> bool {
        self.0[r as usize / 64] >> (r % 64) & 1 != 0
    }

    fn set(&mut self, r: u16, on: bool) {
        let (w, bit) = (r as usize / 64, 1u64 << (r % 64));
        if on {
            self.0[w] |= bit;
        } else {
            self.0[w] &= !bit;
        }
    }

    fn and(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= b;
        }
    }
}

/// What one op does to the rows, for this analysis.
struct Effect {
    /// Rows it reads, each with the rows it carries an inf or NaN of that row into.
    reads: Vec<(u16, Vec<u16>)>,
    /// Rows it overwrites in every lane that runs it.
    kills: Vec<u16>,
    /// Rows it may or may not write (a predicate).
    maybe: Vec<u16>,
    /// Rows its fast products' results go to, and whether they must be checked whatever
    /// follows (a `_sat` clamp, an `o[aL]` write).
    products: Vec<u16>,
    must: bool,
}

fn effect(op: &Op) -> Effect {
    let mut e = Effect {
        reads: vec![],
        kills: vec![],
        maybe: vec![],
        products: vec![],
        must: false,
    };
    match *op {
        Op::Alu { kind, dst, src } => {
            let written: Vec<usize> = (0..4)
                .filter(|&c| dst.mask >> c & 1 != 0 && (kind != Alu::Crs || c < 3))
                .collect();
            let rows = match dst.kind {
                DstKind::Rows(r) => Some(r),
                _ => None,
            };
            // Where an inf or NaN read is sure to arrive: a plain write to rows.
            let plain = rows.filter(|_| !dst.sat && dst.pred.is_none());
            let carries = matches!(
                kind,
                Alu::Mov | Alu::Add | Alu::Mul | Alu::Mad | Alu::Lrp | Alu::Abs
            );
            let nargs = kind.componentwise_sources();
            let mut read = |row: u16, to: Vec<u16>| e.reads.push((row, to));
            if nargs > 0 {
                for &c in &written {
                    let to = match plain {
                        Some(r) if carries => vec![r + c as u16],
                        _ => vec![],
                    };
                    for s in &src[..nargs] {
                        read(s.rows[c], to.clone());
                    }
                }
            } else {
                let comps: &[(usize, usize)] = match kind {
                    Alu::Dp3 | Alu::Crs => &[(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)],
                    Alu::Dp4 => &[
                        (0, 0),
                        (0, 1),
                        (0, 2),
                        (0, 3),
                        (1, 0),
                        (1, 1),
                        (1, 2),
                        (1, 3),
                    ],
                    Alu::Nrm | Alu::TexLdl { .. } => &[(0, 0), (0, 1), (0, 2), (0, 3)],
                    Alu::Rcp | Alu::Rsq | Alu::Exp | Alu::Log | Alu::SinCos => &[(0, 0)],
                    Alu::Pow => &[(0, 0), (1, 0)],
                    Alu::Lit => &[(0, 0), (0, 1), (0, 3)],
                    Alu::Dst => &[(0, 1), (0, 2), (1, 1), (1, 3)],
                    // setp: component-wise, into p0.
                    _ => &[],
                };
                for &(k, c) in comps {
                    let to: Vec<u16> = match (plain, kind) {
                        (Some(r), Alu::Dp3 | Alu::Dp4) => {
                            written.iter().map(|&w| r + w as u16).collect()
                        }
                        // nrm: an inf or NaN component makes the length inf or NaN, its
                        // reciprocal 0 or NaN, and that component's product NaN.
                        (Some(r), Alu::Nrm) if written.contains(&c) => vec![r + c as u16],
                        _ => vec![],
                    };
                    read(src[k].rows[c], to);
                }
                if let Alu::Setp(_) = kind {
                    for &c in &written {
                        read(src[0].rows[c], vec![]);
                        read(src[1].rows[c], vec![]);
                    }
                }
            }
            if let Some(r) = rows {
                let targets = written.iter().map(|&c| r + c as u16);
                if dst.pred.is_some() {
                    e.maybe.extend(targets);
                } else {
                    e.kills.extend(targets);
                }
            }
            let product_comps: Vec<usize> = match kind {
                Alu::Mul | Alu::Mad | Alu::Lrp | Alu::Dp3 | Alu::Dp4 | Alu::Crs | Alu::Nrm => {
                    written.clone()
                }
                Alu::Dst => written.iter().copied().filter(|&c| c == 1).collect(),
                _ => vec![],
            };
            if !product_comps.is_empty() {
                match rows {
                    Some(r) => e.products = product_comps.iter().map(|&c| r + c as u16).collect(),
                    None => e.must = true,
                }
                e.must |= dst.sat;
            }
        }
        Op::GatherConstA0 { dst, .. }
        | Op::GatherInputA0 { dst, .. }
        | Op::GatherConstAl { dst, .. }
        | Op::GatherInputAl { dst, .. } => e.kills.extend(dst..dst + 4),
        Op::IfDyn {
            cond: Cond::Cmp(_, a, b),
            ..
        }
        | Op::Break {
            cond: Some(Cond::Cmp(_, a, b)),
            ..
        } => {
            e.reads.push((a.rows[0], vec![]));
            e.reads.push((b.rows[0], vec![]));
        }
        _ => {}
    }
    e
}

/// The facts before an op from those after it (`checked`: the op's results are checked).
fn step(e: &Effect, checked: bool, after: &Facts) -> Facts {
    let mut after = after.clone();
    if checked {
        // A checked result holds no inf or NaN that is not seen (a predicated write leaves
        // other lanes' values, which this check does not see).
        for &r in e.kills.iter().filter(|r| e.products.contains(r)) {
            after.det.set(r, true);
            after.safe.set(r, true);
        }
    }
    let mut before = after.clone();
    for &k in &e.kills {
        before.det.set(k, false);
        before.safe.set(k, true);
    }
    for &m in &e.maybe {
        before.det.set(m, false);
    }
    let overwritten = |r: u16| e.kills.contains(&r) || e.maybe.contains(&r);
    // A row read several times: each read must be seen.
    let mut seen: Vec<(u16, bool)> = vec![];
    for (r, to) in &e.reads {
        let carried = to.iter().any(|&t| after.det.get(t));
        let stays = !overwritten(*r) && after.det.get(*r);
        let ok = carried || stays;
        match seen.iter_mut().find(|s| s.0 == *r) {
            Some(s) => s.1 &= ok,
            None => seen.push((*r, ok)),
        }
    }
    for (r, ok) in seen {
        before.det.set(r, ok);
        before.safe.set(r, ok);
    }
    before
}

/// Rounds of the analysis that add one check each; then every unseen result gets one.
const MAX_ROUNDS: usize = 64;

/// Per op of `p` (its calls inlined), whether the fast code checks its results; `None`
/// where `p` has no product the fast code would change.
pub(super) fn checks(p: &Program) -> Option<Vec<bool>> {
    let n = p.ops.len();
    let effects: Vec<Effect> = p.ops.iter().map(effect).collect();
    if effects.iter().all(|e| e.products.is_empty() && !e.must) {
        return None;
    }
    // Every row an op names is below `p.rows` (the arena's size), the outputs' included.
    let rows = p.rows;
    let outputs = OUTPUT_BASE as usize..OUTPUT_BASE as usize + OUTPUTS as usize * 4;
    // The end: the outputs are checked there; nothing reads anything after it.
    let end = Facts {
        det: Bits::new(rows, |r| outputs.contains(&r)),
        safe: Bits::new(rows, |_| true),
    };
    let top = Facts {
        det: Bits::new(rows, |_| true),
        safe: Bits::new(rows, |_| true),
    };
    let starts: Vec<usize> = p.block_starts().into_iter().collect();
    let blocks: Vec<(usize, usize)> = starts.windows(2).map(|w| (w[0], w[1])).collect();
    let mut checked: Vec<bool> = effects.iter().map(|e| e.must).collect();
    let mut rounds = 0;
    loop {
        // The facts at each block's start (and the end), from the top down to the fixed
        // point.
        let mut at: std::collections::HashMap<usize, Facts> =
            blocks.iter().map(|b| (b.0, top.clone())).collect();
        at.insert(n, end.clone());
        let out_of = |at: &std::collections::HashMap<usize, Facts>, last: usize| {
            let succ = p.successors(last).unwrap_or_else(|| vec![last + 1]);
            let mut f = top.clone();
            for s in succ {
                let g = &at[&s.min(n)];
                f.det.and(&g.det);
                f.safe.and(&g.safe);
            }
            f
        };
        loop {
            let mut changed = false;
            for &(start, stop) in blocks.iter().rev() {
                let mut f = out_of(&at, stop - 1);
                for pc in (start..stop).rev() {
                    f = step(&effects[pc], checked[pc], &f);
                }
                if at[&start] != f {
                    at.insert(start, f);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // A result that may go unseen gets a check: the last such op's first, since its
        // check may see the earlier ones' values too (after many rounds, all at once).
        // More checks only make more facts true, so this ends.
        let mut failing = vec![];
        for &(start, stop) in &blocks {
            let mut f = out_of(&at, stop - 1);
            for pc in (start..stop).rev() {
                let e = &effects[pc];
                if !checked[pc] && e.products.iter().any(|&r| !f.safe.get(r)) {
                    failing.push(pc);
                }
                f = step(e, checked[pc], &f);
            }
        }
        let Some(&last) = failing.iter().max() else {
            return Some(checked);
        };
        rounds += 1;
        if rounds < MAX_ROUNDS {
            checked[last] = true;
        } else {
            for pc in failing {
                checked[pc] = true;
            }
        }
    }
}

impl Gen<'_> {
    /// The check accumulator: +0 until a checked value is inf or NaN, NaN from then on.
    pub(super) fn acc(&self) -> V {
        self.w.regs() - 1
    }

    /// acc += v * 0: NaN for good when `v` is inf or NaN.
    pub(super) fn check_value(&mut self, v: V) -> R {
        let zero = self.kreg(0.0)?;
        let acc = self.acc();
        vx!(self, vfmadd231ps(Vr(acc), Vr(v), Vr(zero)))?;
        Ok(())
    }

    /// At the end of a pass (the cache empty), every group's output rows are checked.
    pub(super) fn check_outputs(&mut self) -> R {
        let rows: Vec<u16> = self
            .p
            .outputs
            .iter()
            .flat_map(|o| o.row..o.row + 4)
            .collect();
        for g in 0..self.groups {
            self.g = g;
            for &row in &rows {
                let zero = self.kreg(0.0)?;
                let (acc, at) = (self.acc(), self.home(self.key(row)));
                vx!(self, vfmadd231ps(Vr(acc), Vr(zero), at))?;
            }
            self.end_op();
        }
        self.g = 0;
        Ok(())
    }

    /// At the batch's end: where the accumulator is NaN, go to `rerun` (eax says so there).
    pub(super) fn checks_failed(&mut self, rerun: CodeLabel) -> R {
        let acc = self.acc();
        match self.w {
            Width::Zmm => {
                self.a.vcmpps(k1, ZMM[acc], ZMM[acc], UNORD)?;
                self.a.kortestw(k1, k1)?;
            }
            Width::Ymm => self.a.vptest(YMM[acc], YMM[acc])?,
        }
        Ok(self.a.jnz(rerun)?)
    }
}
