//! Lifting: what the instruction-by-instruction statements become when a pattern of several
//! instructions is one thing a person would write (`dp4` x 4 over a matrix's rows is one
//! `mul`, `dp3` + `rsq` + `mul` is `normalize`, `dp3` + `rsq` + `rcp` is `length`), and which
//! writes nobody reads (dropped).
//!
//! Liveness is per temporary component and conservative: at every flow-control instruction
//! all temporaries count as live, so only writes overwritten or unread before the next
//! branch point (or the end of `main`) are dropped.

use crate::Error;
use crate::ctx::Ctx;
use crate::expr::{E, call};
use dxso::Opcode;
use dxso::ir::{Instruction, Register, RegisterKind, Src, SrcModifier};
use std::collections::BTreeMap;

/// What emission does with one instruction.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Action {
    /// Its own statements.
    Keep,
    /// Nothing: dead, or folded into another instruction's statements.
    Drop,
    /// These statements instead of its own.
    Emit(Vec<String>),
    /// No statement: its value goes into the one instruction that reads it.
    Inline,
}

/// Live temporary components: bit `4 * r + c`.
type Live = Vec<u8>;

const TEMPS: usize = 32;

/// The action for every instruction of the shader.
pub(crate) fn plan(cx: &mut Ctx) -> Result<Vec<Action>, Error> {
    let insts = &cx.shader.instructions;
    let mut plan = vec![Action::Keep; insts.len()];
    let v = cx.shader.version;
    if v.is_pixel() && v.major == 1 {
        // ps_1_x: co-issue and texture addressing read registers in ways this pass does
        // not model; every instruction stays.
        return Ok(plan);
    }
    let live = liveness(insts);
    for (i, inst) in insts.iter().enumerate() {
        if writes_temp(inst) && inst.predicate.is_none() {
            let d = inst.dst.map_or(0, |d| d.mask.0);
            let r = inst.dst.map_or(0, |d| d.reg.number as usize).min(TEMPS - 1);
            if live[i][r] & d == 0 {
                plan[i] = Action::Drop;
            }
        }
    }
    for i in 0..insts.len() {
        if plan[i] != Action::Keep {
            continue;
        }
        if let Some(n) = normalize(cx, &plan, &live, i)? {
            plan[i..i + n.len()].clone_from_slice(&n);
            continue;
        }
        if let Some(g) = dot_group(cx, &plan, i)? {
            plan[i..i + g.len()].clone_from_slice(&g);
            continue;
        }
        if let Some(g) = weighted_sum(cx, &plan, i)? {
            plan[i..i + g.len()].clone_from_slice(&g);
        }
    }
    let constants: Vec<u32> = cx.defs.float.keys().copied().collect();
    // Registers a folded value reads, through the values folded into it.
    let mut reads_of: BTreeMap<Register, Vec<Register>> = BTreeMap::new();
    for i in 0..insts.len() {
        let inst = &insts[i];
        let mut sources = Vec::new();
        for s in &inst.srcs {
            sources.push(s.reg);
            if let Some(rel) = s.relative {
                sources.push(rel.reg);
            }
            if let Some(more) = reads_of.get(&s.reg) {
                sources.extend(more.iter().copied());
            }
        }
        if plan[i] == Action::Keep && inlinable(insts, &plan, &live, &constants, &sources, i) {
            plan[i] = Action::Inline;
            if let Some(d) = inst.dst {
                reads_of.insert(d.reg, sources);
            }
        } else if let Some(d) = inst.dst {
            reads_of.remove(&d.reg);
        }
    }
    Ok(plan)
}

/// Opcodes whose value is one pure expression ([`Ctx::value`]).
fn pure(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::Mov
            | O::Add
            | O::Sub
            | O::Mul
            | O::Mad
            | O::Min
            | O::Max
            | O::Slt
            | O::Sge
            | O::Abs
            | O::Frc
            | O::Sgn
            | O::Lrp
            | O::Cmp
            | O::Cnd
            | O::Dp3
            | O::Dp4
            | O::Dp2Add
            | O::Rcp
            | O::Rsq
            | O::Exp
            | O::ExpP
            | O::Log
            | O::LogP
            | O::Pow
            | O::Nrm
            | O::Crs
            | O::SinCos
            | O::Lit
            | O::Dst
            | O::M4x4
            | O::M4x3
            | O::M3x4
            | O::M3x3
            | O::M3x2
            | O::Dsx
            | O::Dsy
            | O::Tex
            | O::TexLdl
            | O::TexLdd
    )
}

/// Whether instruction `i`'s value (a temporary) is read by exactly one later instruction
/// of the same block, before anything it reads (`sources`, through the values folded into
/// it) changes, and by nothing after that.
fn inlinable(
    insts: &[Instruction],
    plan: &[Action],
    live: &[Live],
    constants: &[u32],
    sources: &[Register],
    i: usize,
) -> bool {
    let inst = &insts[i];
    let Some(d) = inst.dst else { return false };
    if !pure(inst.opcode)
        || d.reg.kind != RegisterKind::Temp
        || inst.predicate.is_some()
        || d.shift != 0
        || d.relative.is_some()
    {
        return false;
    }
    let r = d.reg.number;
    let mask = d.mask.0;
    for j in i + 1..insts.len() {
        let next = &insts[j];
        if next.opcode.info().flow || next.opcode == Opcode::Label {
            return false;
        }
        let readers: Vec<usize> = (0..next.srcs.len())
            .filter(|&k| next.srcs[k].reg == d.reg && reads(next, k) & mask != 0)
            .collect();
        if !readers.is_empty() {
            let k = readers[0];
            // A constant may be read more than once; other values once.
            let constant = inst.opcode == Opcode::Mov
                && inst.srcs[0].reg.kind == RegisterKind::Const
                && inst.srcs[0].relative.is_none()
                && constants.contains(&inst.srcs[0].reg.number);
            let ok = (readers.len() == 1 || constant)
                && readers
                    .iter()
                    .all(|&k| reads(next, k) & !mask == 0 && next.srcs[k].relative.is_none())
                && plan[j] == Action::Keep
                && pure(next.opcode)
                && reads(next, k) & !mask == 0
                && next.srcs[k].relative.is_none();
            if !ok {
                return false;
            }
            let overwrites = next.dst.is_some_and(|x| {
                x.reg == d.reg && x.mask.0 & mask == mask && next.predicate.is_none()
            });
            return overwrites || live[j][(r as usize).min(TEMPS - 1)] & mask == 0;
        }
        if let Some(x) = next.dst
            && (sources.contains(&x.reg) || x.reg == d.reg)
        {
            return false;
        }
    }
    false
}

fn writes_temp(inst: &Instruction) -> bool {
    inst.dst.is_some_and(|d| d.reg.kind == RegisterKind::Temp)
        && !matches!(
            inst.opcode,
            Opcode::Dcl | Opcode::Def | Opcode::DefI | Opcode::DefB | Opcode::TexKill
        )
}

/// Components of source `k` that `inst` reads (all four swizzled ones where the operand is
/// not componentwise).
fn reads(inst: &Instruction, k: usize) -> u8 {
    use Opcode as O;
    match inst.opcode {
        O::Mov
        | O::Add
        | O::Sub
        | O::Mul
        | O::Mad
        | O::Min
        | O::Max
        | O::Slt
        | O::Sge
        | O::Abs
        | O::Frc
        | O::Lrp
        | O::Cmp
        | O::Dp3
        | O::Dp4
        | O::Dp2Add
        | O::Rcp
        | O::Rsq
        | O::Exp
        | O::Log
        | O::ExpP
        | O::LogP
        | O::Pow
        | O::Crs
        | O::Dsx
        | O::Dsy
        | O::MovA
        | O::Setp
        | O::Sgn => inst.src_components(k),
        _ => {
            let sw = inst.srcs[k].swizzle;
            (0..4).fold(0, |m, c| m | 1 << sw.get(c))
        }
    }
}

/// Temporaries read by each instruction.
fn read_set(inst: &Instruction) -> Live {
    let mut live = vec![0; TEMPS];
    for (k, s) in inst.srcs.iter().enumerate() {
        if s.reg.kind == RegisterKind::Temp {
            live[(s.reg.number as usize).min(TEMPS - 1)] |= reads(inst, k);
        }
    }
    if let Some(d) = inst.dst
        && d.reg.kind == RegisterKind::Temp
        && (inst.predicate.is_some() || inst.opcode == Opcode::TexKill)
    {
        // A predicated write keeps the old value where the predicate is off.
        live[(d.reg.number as usize).min(TEMPS - 1)] |= 0xF;
    }
    live
}

/// What may be live at a branch point: every temporary read from the start of the
/// outermost loop around it (a back edge may go there) to the end of the shader
/// (subroutines included: they follow `main`).
fn branch_live(insts: &[Instruction]) -> Vec<Live> {
    let n = insts.len();
    let mut suffix = vec![vec![0u8; TEMPS]; n + 1];
    for i in (0..n).rev() {
        let r = read_set(&insts[i]);
        suffix[i] = suffix[i + 1].iter().zip(&r).map(|(a, b)| a | b).collect();
    }
    let mut out = Vec::with_capacity(n);
    let mut depth = 0usize;
    let mut outer = 0usize;
    let mut in_subroutine = false;
    for (i, inst) in insts.iter().enumerate() {
        // A subroutine returns to callers anywhere in `main`: anything may be read.
        in_subroutine |= inst.opcode == Opcode::Label;
        if in_subroutine {
            out.push(vec![0xF; TEMPS]);
            continue;
        }
        if matches!(inst.opcode, Opcode::Loop | Opcode::Rep) {
            if depth == 0 {
                outer = i;
            }
            depth += 1;
        }
        let from = if depth > 0 { outer } else { i };
        out.push(suffix[from].clone());
        if matches!(inst.opcode, Opcode::EndLoop | Opcode::EndRep) {
            depth = depth.saturating_sub(1);
        }
    }
    out
}

/// Live temporaries after each instruction.
fn liveness(insts: &[Instruction]) -> Vec<Live> {
    let at_branch = branch_live(insts);
    let all: Live = vec![0xF; TEMPS];
    let mut out = vec![all.clone(); insts.len()];
    let mut live: Live = vec![0; TEMPS];
    for (i, inst) in insts.iter().enumerate().rev() {
        if inst.opcode.info().flow || inst.opcode == Opcode::Label {
            // After a branch point: whatever a path from here may read.
            live = at_branch[i].clone();
            out[i] = live.clone();
            continue;
        }
        out[i] = live.clone();
        if let Some(d) = inst.dst
            && writes_temp(inst)
            && inst.predicate.is_none()
        {
            live[(d.reg.number as usize).min(TEMPS - 1)] &= !d.mask.0;
        }
        if inst.opcode == Opcode::TexKill
            && let Some(d) = inst.dst
            && d.reg.kind == RegisterKind::Temp
        {
            live[(d.reg.number as usize).min(TEMPS - 1)] |= 0xF;
        }
        for (k, s) in inst.srcs.iter().enumerate() {
            if s.reg.kind == RegisterKind::Temp {
                live[(s.reg.number as usize).min(TEMPS - 1)] |= reads(inst, k);
            }
        }
    }
    out
}

/// The same operand (register, relative address, modifier) in both.
fn same_operand(a: &Src, b: &Src) -> bool {
    a.reg == b.reg && a.relative == b.relative && a.modifier == b.modifier
}

/// `dp3 t.c, V, V` + `rsq u.c', t.c` + `mul d, V, u.c'` (normalize) or `rcp d, u.c'`
/// (length), with `t.c` and `u.c'` dead after.
fn normalize(
    cx: &mut Ctx,
    plan: &[Action],
    live: &[Live],
    i: usize,
) -> Result<Option<Vec<Action>>, Error> {
    let insts = &cx.shader.instructions;
    let (Some(a), Some(b), Some(c)) = (insts.get(i), insts.get(i + 1), insts.get(i + 2)) else {
        return Ok(None);
    };
    if a.opcode != Opcode::Dp3
        || b.opcode != Opcode::Rsq
        || !matches!(c.opcode, Opcode::Mul | Opcode::Rcp)
        || plan[i + 1] != Action::Keep
        || plan[i + 2] != Action::Keep
        || [a, b, c].iter().any(|x| x.predicate.is_some() || x.coissue)
    {
        return Ok(None);
    }
    let (Some(da), Some(db)) = (a.dst, b.dst) else {
        return Ok(None);
    };
    let v = a.srcs[0];
    if !same_operand(&v, &a.srcs[1])
        || v.swizzle != a.srcs[1].swizzle
        || v.relative.is_some()
        || da.reg.kind != RegisterKind::Temp
        || da.mask.0.count_ones() != 1
        || db.reg.kind != RegisterKind::Temp
        || db.mask.0.count_ones() != 1
        || da.saturate()
        || db.saturate()
        || da.shift != 0
        || db.shift != 0
    {
        return Ok(None);
    }
    let ca = da.mask.0.trailing_zeros() as usize;
    let cb = db.mask.0.trailing_zeros() as usize;
    let rsq_src = b.srcs[0];
    let v_reads = (0..3).fold(0u8, |m, k| m | 1 << v.swizzle.get(k));
    if rsq_src.reg != da.reg
        || rsq_src.swizzle.get(0) != ca
        || rsq_src.modifier != SrcModifier::None
        // V itself must be intact when the last instruction reads it.
        || (v.reg == da.reg && v_reads >> ca & 1 != 0)
        || (v.reg == db.reg && v_reads >> cb & 1 != 0)
    {
        return Ok(None);
    }
    let scalar = |s: &Src| {
        s.reg == db.reg
            && s.modifier == SrcModifier::None
            && s.swizzle.is_replicate()
            && s.swizzle.get(0) == cb
    };
    let Some(dc) = c.dst else { return Ok(None) };
    let chans = Ctx::channels(dc.mask.0);
    let value = if c.opcode == Opcode::Rcp {
        if !scalar(&c.srcs[0]) {
            return Ok(None);
        }
        let x = cx.src(&v, &[0, 1, 2])?;
        call("length", &[&x], 1)
    } else {
        let (s0, s1) = (c.srcs[0], c.srcs[1]);
        let vec = if scalar(&s1) && same_operand(&s0, &v) {
            s0
        } else if scalar(&s0) && same_operand(&s1, &v) {
            s1
        } else {
            return Ok(None);
        };
        // Each channel reads a component of V that the dot product summed.
        let mut ks = Vec::new();
        for &ch in &chans {
            let comp = vec.swizzle.get(ch);
            match (0..3).find(|&k| v.swizzle.get(k) == comp) {
                Some(k) => ks.push(k),
                None => return Ok(None),
            }
        }
        let x = cx.src(&v, &[0, 1, 2])?;
        E::atom(format!("normalize({})", x.full().s), 3).swizzle(&ks)
    };
    // The dot product's and the reciprocal root's registers must not be read later,
    // except where the last instruction overwrites them.
    let after = &live[i + 2];
    let r_a = (da.reg.number as usize).min(TEMPS - 1);
    let r_b = (db.reg.number as usize).min(TEMPS - 1);
    let overwritten = |r: usize, m: u8| {
        dc.reg.kind == RegisterKind::Temp && dc.reg.number as usize == r && dc.mask.0 & m == m
    };
    let dead = |r: usize, m: u8| after[r] & m == 0 || overwritten(r, m);
    if !dead(r_a, 1 << ca) || !dead(r_b, 1 << cb) {
        return Ok(None);
    }
    let lines = cx.assign(c, value)?;
    Ok(Some(vec![Action::Drop, Action::Drop, Action::Emit(lines)]))
}

/// `dp4`/`dp3` into consecutive channels of one register with consecutive constant
/// registers and one vector: one `mul`.
fn dot_group(cx: &mut Ctx, plan: &[Action], i: usize) -> Result<Option<Vec<Action>>, Error> {
    let insts = &cx.shader.instructions;
    let first = &insts[i];
    if !matches!(first.opcode, Opcode::Dp3 | Opcode::Dp4) || first.predicate.is_some() {
        return Ok(None);
    }
    let Some(d0) = first.dst else { return Ok(None) };
    if d0.mask.0.count_ones() != 1 {
        return Ok(None);
    }
    // Which operand is the matrix row.
    let row_at = |inst: &Instruction| -> Option<usize> {
        (0..2).find(|&k| {
            let s = inst.srcs[k];
            s.reg.kind == RegisterKind::Const
                && s.relative.is_none()
                && s.modifier == SrcModifier::None
                && s.swizzle == dxso::ir::Swizzle::IDENTITY
        })
    };
    let Some(k) = row_at(first) else {
        return Ok(None);
    };
    let vector = first.srcs[1 - k];
    if vector.relative.is_some() || (vector.reg == d0.reg) {
        return Ok(None);
    }
    let mut n = 1;
    let mut mask = d0.mask.0;
    while let Some(next) = insts.get(i + n) {
        let Some(d) = next.dst else { break };
        let ok = next.opcode == first.opcode
            && plan[i + n] == Action::Keep
            && next.predicate.is_none()
            && d.reg == d0.reg
            && d.modifiers == d0.modifiers
            && d.mask.0.count_ones() == 1
            && d.mask.0 > (1 << (31 - (mask as u32).leading_zeros()))
            && row_at(next) == Some(k)
            && next.srcs[k].reg.number == first.srcs[k].reg.number + n as u32
            && next.srcs[1 - k] == vector;
        if !ok {
            break;
        }
        mask |= d.mask.0;
        n += 1;
    }
    if n < 2 {
        return Ok(None);
    }
    let width = if first.opcode == Opcode::Dp3 { 3 } else { 4 };
    let Some(e) = cx.matrix_product(&vector, width, &first.srcs[k], n)? else {
        return Ok(None);
    };
    let mut merged = first.clone();
    if let Some(d) = merged.dst.as_mut() {
        d.mask.0 = mask;
    }
    let lines = cx.assign(&merged, e)?;
    let mut out = vec![Action::Emit(lines)];
    out.extend(std::iter::repeat_n(Action::Drop, n - 1));
    Ok(Some(out))
}

/// `mul d, M[k], v.c` + `mad d, M[k'], v.c', d` ...: registers of one matrix weighted by
/// components of one vector and summed, which is `mul(v, M)` (the registers are rows) or
/// `mul(M, v)` (columns).
fn weighted_sum(cx: &mut Ctx, plan: &[Action], i: usize) -> Result<Option<Vec<Action>>, Error> {
    let insts = &cx.shader.instructions;
    let first = &insts[i];
    let Some(d) = first.dst else { return Ok(None) };
    if first.opcode != Opcode::Mul || first.predicate.is_some() || d.reg.kind != RegisterKind::Temp
    {
        return Ok(None);
    }
    // (register, vector component) of a term, with the vector operand.
    let term = |inst: &Instruction| -> Option<(u32, usize, Src)> {
        let k = (0..2).find(|&k| {
            let s = inst.srcs[k];
            s.reg.kind == RegisterKind::Const
                && s.relative.is_none()
                && s.modifier == SrcModifier::None
                && s.swizzle == dxso::ir::Swizzle::IDENTITY
        })?;
        let v = inst.srcs[1 - k];
        (v.swizzle.is_replicate() && v.relative.is_none() && v.reg != d.reg).then_some((
            inst.srcs[k].reg.number,
            v.swizzle.get(0),
            v,
        ))
    };
    let Some(t0) = term(first) else {
        return Ok(None);
    };
    let mut terms = vec![(t0.0, t0.1)];
    let vector = t0.2;
    let same_vector = |v: &Src| v.reg == vector.reg && v.modifier == vector.modifier;
    let mut n = 1;
    while let Some(next) = insts.get(i + n) {
        let acc = next.srcs.get(2);
        let ok = next.opcode == Opcode::Mad
            && plan[i + n] == Action::Keep
            && next.predicate.is_none()
            && next.dst == Some(d)
            && acc.is_some_and(|a| {
                a.reg == d.reg
                    && a.modifier == SrcModifier::None
                    && a.relative.is_none()
                    && a.swizzle == dxso::ir::Swizzle::IDENTITY
            });
        let t = if ok { term(next) } else { None };
        match t {
            Some((r, c, v)) if same_vector(&v) => terms.push((r, c)),
            _ => break,
        }
        n += 1;
    }
    if n < 2 || d.saturate() || d.shift != 0 {
        return Ok(None);
    }
    terms.sort_unstable();
    let regs: Vec<u32> = terms.iter().map(|t| t.0).collect();
    if regs.windows(2).any(|w| w[1] != w[0] + 1)
        || regs.iter().any(|r| cx.defs.float.contains_key(r))
    {
        return Ok(None);
    }
    let Some(m) = cx.uniforms.weighted_of(&regs) else {
        return Ok(None);
    };
    let comps: Vec<u8> = terms.iter().map(|t| t.1 as u8).collect();
    let mut v = vector;
    let mut sw = [0u8; 4];
    for (k, c) in sw.iter_mut().enumerate() {
        *c = comps[k.min(comps.len() - 1)];
    }
    v.swizzle = dxso::ir::Swizzle::from_components(sw);
    let x = cx.src(&v, &(0..regs.len()).collect::<Vec<_>>())?;
    let mat = E::atom(m.expr.clone(), 4);
    let product = if m.columns {
        call("mul", &[&mat, &x], m.out)
    } else {
        call("mul", &[&x, &mat], m.out)
    };
    let chans = Ctx::channels(d.mask.0);
    if chans.iter().any(|&c| c >= m.out) {
        return Ok(None);
    }
    let lines = cx.assign(&insts[i + n - 1], product.swizzle(&chans))?;
    let mut out = vec![Action::Drop; n - 1];
    out.push(Action::Emit(lines));
    Ok(Some(out))
}
