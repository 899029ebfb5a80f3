//! The executor: a batch of `LANES` vertices in structure-of-arrays form (one lane per
//! vertex), execution masks for dynamic flow control and predication.
//!
//! Arithmetic follows `../shared/spec/instructions.md`, including dxso's choices: a product
//! with a ±0 factor is +0 (C8); `mad` is a product then a sum (not fused); rcp/rsq of 0 give
//! `FLT_MAX` (C5); log of 0 gives `-FLT_MAX` (C6); min/max/slt/sge are the documented selects
//! (C7); mova rounds half to even (C3); relative reads outside a file give 0 (C4).

use crate::program::*;
use crate::texture::Sampling;
use crate::{LANES, VmError};
use dxso::ir::Comparison;

pub(crate) type Row = [f32; LANES];
pub(crate) type Mask = [u32; LANES];

const ALL: Mask = [u32::MAX; LANES];

/// Uniform state of one draw, shared by every batch.
pub(crate) struct Uniforms<'a> {
    pub consts: &'a [[f32; 4]],
    pub ints: &'a [[i32; 4]; 16],
    pub bools: &'a [bool; 16],
    pub max_instructions: u64,
    pub sampling: &'a Sampling<'a>,
}

/// Observes execution (the shader debugger).
pub(crate) trait Tracer {
    const ENABLED: bool;
    fn before(&mut self, _m: &Machine, _pc: usize, _op: &Op) {}
    fn after(&mut self, _m: &Machine, _pc: usize, _op: &Op) {}
}

pub(crate) struct NoTrace;
impl Tracer for NoTrace {
    const ENABLED: bool = false;
}

enum Frame {
    If {
        saved: Mask,
        taken: Mask,
    },
    Loop {
        saved: Mask,
        remaining: u32,
        al_saved: i32,
        step: i32,
        al: bool,
    },
    Call {
        ret: u32,
        saved: Option<Mask>,
    },
}

/// The register arena and execution state of one batch; reused across batches.
pub(crate) struct Machine {
    pub rows: Vec<Row>,
    a0: [[i32; LANES]; 4],
    p0: [Mask; 4],
    exec: Mask,
    full: bool,
    al: i32,
    stack: Vec<Frame>,
}

#[inline(always)]
fn mul(a: f32, b: f32) -> f32 {
    // C8: a product with a zero factor is +0, even against inf or NaN.
    if a == 0.0 || b == 0.0 { 0.0 } else { a * b }
}

#[inline(always)]
fn any(m: &Mask) -> bool {
    m.iter().any(|&x| x != 0)
}

impl Machine {
    pub fn new(program: &Program, uniforms: &Uniforms) -> Machine {
        let mut m = Machine {
            rows: vec![[0.0; LANES]; program.rows],
            a0: [[0; LANES]; 4],
            p0: [[0; LANES]; 4],
            exec: ALL,
            full: true,
            al: 0,
            stack: Vec::with_capacity(16),
        };
        for &(row, c) in &program.const_rows {
            let v = uniforms.consts.get(c as usize).copied().unwrap_or([0.0; 4]);
            for (k, x) in v.iter().enumerate() {
                m.rows[row as usize + k] = [*x; LANES];
            }
        }
        m
    }

    /// Zero temps, outputs, a0 and p0 (inputs are fetched by the caller).
    pub fn reset(&mut self) {
        for r in &mut self.rows[TEMP_BASE as usize..(TEMP_BASE + TEMPS * 4) as usize] {
            *r = [0.0; LANES];
        }
        for r in &mut self.rows[OUTPUT_BASE as usize..(OUTPUT_BASE + OUTPUTS * 4) as usize] {
            *r = [0.0; LANES];
        }
        self.a0 = [[0; LANES]; 4];
        self.p0 = [[0; LANES]; 4];
        self.exec = ALL;
        self.full = true;
        self.al = 0;
        self.stack.clear();
    }

    fn set_exec(&mut self, m: Mask) {
        self.exec = m;
        self.full = m == ALL;
    }

    #[inline(always)]
    fn load(&self, s: &SrcRef, c: usize) -> Row {
        let mut r = self.rows[s.rows[c] as usize];
        if s.abs {
            r.iter_mut().for_each(|x| *x = x.abs());
        }
        if s.neg {
            r.iter_mut().for_each(|x| *x = -*x);
        }
        r
    }

    fn cond(&self, c: &Cond) -> Mask {
        match c {
            Cond::Cmp(cmp, a, b) => {
                let (a, b) = (self.load(a, 0), self.load(b, 0));
                std::array::from_fn(|l| {
                    if compare(*cmp, a[l], b[l]) {
                        u32::MAX
                    } else {
                        0
                    }
                })
            }
            Cond::Pred(comp, not) => {
                let flip = if *not { u32::MAX } else { 0 };
                std::array::from_fn(|l| self.p0[*comp as usize][l] ^ flip)
            }
        }
    }

    /// Lanes a component of `dst` is written in: exec and the predicate.
    fn write_mask(&self, dst: &DstRef, c: usize) -> Option<Mask> {
        match dst.pred {
            None if self.full => None,
            None => Some(self.exec),
            Some(p) => {
                let flip = if p.not { u32::MAX } else { 0 };
                let pr = &self.p0[p.comps[c] as usize];
                Some(std::array::from_fn(|l| self.exec[l] & (pr[l] ^ flip)))
            }
        }
    }

    fn store(&mut self, dst: &DstRef, res: &[Row; 4]) {
        for c in 0..4 {
            if dst.mask >> c & 1 == 0 {
                continue;
            }
            let mut v = res[c];
            if dst.sat {
                // _sat: clamp to [0, 1]; NaN becomes 0.
                v.iter_mut()
                    .for_each(|x| *x = if *x > 0.0 { x.min(1.0) } else { 0.0 });
            }
            let wm = self.write_mask(dst, c);
            match dst.kind {
                DstKind::Rows(row) => blend(&mut self.rows[row as usize + c], &v, wm.as_ref()),
                DstKind::OutputByLoop(base) => {
                    let reg = base + self.al;
                    if (0..OUTPUTS as i32).contains(&reg) {
                        let row = OUTPUT_BASE as usize + reg as usize * 4 + c;
                        blend(&mut self.rows[row], &v, wm.as_ref());
                    }
                }
                DstKind::Addr => {
                    for l in 0..LANES {
                        if wm.is_none_or(|m| m[l] != 0) {
                            // C3: round half to even, saturating; NaN -> 0.
                            self.a0[c][l] = v[l].round_ties_even() as i32;
                        }
                    }
                }
                DstKind::Pred => unreachable!("setp stores its own masks"),
            }
        }
    }

    /// Run the program over the batch in the arena, reporting every executed op to `tracer`
    /// (monomorphised: with [`NoTrace`] the run pays nothing). `Err` when the instruction cap
    /// is hit.
    pub fn run_traced<T: Tracer>(
        &mut self,
        program: &Program,
        u: &Uniforms,
        tracer: &mut T,
    ) -> Result<(), VmError> {
        let ops = &program.ops;
        let mut pc = 0usize;
        let mut executed: u64 = 0;
        while pc < ops.len() {
            executed += 1;
            let op = &ops[pc];
            let at = pc;
            pc += 1;
            if T::ENABLED {
                tracer.before(self, at, op);
            }
            match op {
                Op::Alu { kind, dst, src } => self.alu(*kind, dst, src, u),
                Op::GatherConstA0 { dst, base, comp } => {
                    let idx = self.a0[*comp as usize];
                    for c in 0..4 {
                        let r: Row = std::array::from_fn(|l| {
                            let i = base.wrapping_add(idx[l]);
                            if i >= 0 && (i as usize) < u.consts.len() {
                                u.consts[i as usize][c]
                            } else {
                                0.0
                            }
                        });
                        self.rows[*dst as usize + c] = r;
                    }
                }
                Op::GatherConstAl { dst, base } => {
                    let i = base.wrapping_add(self.al);
                    let v = if i >= 0 {
                        u.consts.get(i as usize).copied()
                    } else {
                        None
                    };
                    let v = v.unwrap_or([0.0; 4]);
                    for c in 0..4 {
                        self.rows[*dst as usize + c] = [v[c]; LANES];
                    }
                }
                Op::GatherInputAl { dst, base } => {
                    let i = base.wrapping_add(self.al);
                    for c in 0..4 {
                        self.rows[*dst as usize + c] = if (0..INPUTS as i32).contains(&i) {
                            self.rows[INPUT_BASE as usize + i as usize * 4 + c]
                        } else {
                            [0.0; LANES]
                        };
                    }
                }
                Op::GatherInputA0 { dst, base, comp } => {
                    let idx = self.a0[*comp as usize];
                    for c in 0..4 {
                        let r: Row = std::array::from_fn(|l| {
                            let i = base.wrapping_add(idx[l]);
                            if (0..INPUTS as i32).contains(&i) {
                                self.rows[INPUT_BASE as usize + i as usize * 4 + c][l]
                            } else {
                                0.0
                            }
                        });
                        self.rows[*dst as usize + c] = r;
                    }
                }
                Op::IfBool { b, not, target } => {
                    if u.bools[*b as usize] == *not {
                        pc = *target as usize;
                    }
                }
                Op::Jump { target } => pc = *target as usize,
                Op::IfDyn { cond, target } => {
                    let c = self.cond(cond);
                    let taken: Mask = std::array::from_fn(|l| self.exec[l] & c[l]);
                    self.stack.push(Frame::If {
                        saved: self.exec,
                        taken,
                    });
                    self.set_exec(taken);
                    if !any(&taken) {
                        pc = *target as usize;
                    }
                }
                Op::ElseDyn { target } => {
                    let Some(Frame::If { saved, taken }) = self.stack.last() else {
                        unreachable!("else inside its if");
                    };
                    let m: Mask = std::array::from_fn(|l| saved[l] & !taken[l]);
                    self.set_exec(m);
                    if !any(&m) {
                        pc = *target as usize;
                    }
                }
                Op::EndIfDyn => {
                    if let Some(Frame::If { saved, .. }) = self.stack.pop() {
                        self.set_exec(saved);
                    }
                }
                Op::Loop { i, end, al } => {
                    let int = u.ints[*i as usize];
                    // C15: the count is unsigned; start and step signed.
                    let count = int[0] as u32;
                    if count == 0 {
                        pc = *end as usize + 1;
                    } else {
                        self.stack.push(Frame::Loop {
                            saved: self.exec,
                            remaining: count,
                            al_saved: self.al,
                            step: int[2],
                            al: *al,
                        });
                        if *al {
                            self.al = int[1];
                        }
                    }
                }
                Op::EndLoop { start } => {
                    if executed > u.max_instructions {
                        return Err(VmError::InstructionLimit(u.max_instructions));
                    }
                    let live = any(&self.exec);
                    let Some(Frame::Loop {
                        saved,
                        remaining,
                        al_saved,
                        step,
                        al,
                    }) = self.stack.last_mut()
                    else {
                        unreachable!("endloop inside its loop");
                    };
                    *remaining -= 1;
                    if *al {
                        self.al = self.al.wrapping_add(*step);
                    }
                    if *remaining > 0 && live {
                        pc = *start as usize;
                    } else {
                        let (saved, al_saved, al) = (*saved, *al_saved, *al);
                        self.stack.pop();
                        if al {
                            self.al = al_saved;
                        }
                        self.set_exec(saved);
                    }
                }
                Op::Break { cond, end } => {
                    let brk: Mask = match cond {
                        None => self.exec,
                        Some(c) => {
                            let c = self.cond(c);
                            std::array::from_fn(|l| self.exec[l] & c[l])
                        }
                    };
                    if any(&brk) {
                        let m: Mask = std::array::from_fn(|l| self.exec[l] & !brk[l]);
                        self.set_exec(m);
                        // Lanes that broke stay off until the loop ends.
                        for f in self.stack.iter_mut().rev() {
                            match f {
                                Frame::If { saved, taken } => {
                                    for l in 0..LANES {
                                        saved[l] &= !brk[l];
                                        taken[l] &= !brk[l];
                                    }
                                }
                                _ => break,
                            }
                        }
                        // Every lane of the loop broke: leave it now. (Inside a dynamic if the
                        // other lanes of the loop may still run: the if's end restores them.)
                        if !any(&m) && matches!(self.stack.last(), Some(Frame::Loop { .. })) {
                            pc = *end as usize;
                        }
                    }
                }
                Op::Call { target } => {
                    self.stack.push(Frame::Call {
                        ret: pc as u32,
                        saved: None,
                    });
                    pc = *target as usize;
                }
                Op::CallBool { b, not, target } => {
                    if u.bools[*b as usize] != *not {
                        self.stack.push(Frame::Call {
                            ret: pc as u32,
                            saved: None,
                        });
                        pc = *target as usize;
                    }
                }
                Op::CallPred { comp, not, target } => {
                    let c = self.cond(&Cond::Pred(*comp, *not));
                    let taken: Mask = std::array::from_fn(|l| self.exec[l] & c[l]);
                    if any(&taken) {
                        self.stack.push(Frame::Call {
                            ret: pc as u32,
                            saved: Some(self.exec),
                        });
                        self.set_exec(taken);
                        pc = *target as usize;
                    }
                }
                Op::Ret => match self.stack.pop() {
                    Some(Frame::Call { ret, saved }) => {
                        if let Some(m) = saved {
                            self.set_exec(m);
                        }
                        pc = ret as usize;
                    }
                    _ => break,
                },
            }
            if T::ENABLED {
                tracer.after(self, at, op);
            }
        }
        if executed > u.max_instructions {
            return Err(VmError::InstructionLimit(u.max_instructions));
        }
        Ok(())
    }

    /// Lane 0's value of `row` (traces run one vertex in lane 0).
    pub fn lane0(&self, row: u16) -> f32 {
        self.rows[row as usize][0]
    }
    pub fn a0_lane0(&self) -> [i32; 4] {
        std::array::from_fn(|c| self.a0[c][0])
    }
    pub fn p0_lane0(&self) -> [bool; 4] {
        std::array::from_fn(|c| self.p0[c][0] != 0)
    }
    pub fn active_lane0(&self) -> bool {
        self.exec[0] != 0
    }
    pub fn al(&self) -> i32 {
        self.al
    }

    fn alu(&mut self, kind: Alu, dst: &DstRef, src: &[SrcRef; 3], u: &Uniforms) {
        let mut res = [[0.0f32; LANES]; 4];
        let mask = dst.mask;
        macro_rules! each {
            (|$($v:ident),*| $e:expr) => {{
                for c in 0..4 {
                    if mask >> c & 1 == 0 { continue; }
                    let mut k = 0usize;
                    $( let $v = self.load(&src[k], c); k += 1; )*
                    let _ = k;
                    let out = &mut res[c];
                    for l in 0..LANES {
                        $( let $v = $v[l]; )*
                        out[l] = $e;
                    }
                }
            }};
        }
        macro_rules! scalar {
            (|$x:ident| $e:expr) => {{
                let a = self.load(&src[0], 0);
                let r: Row = std::array::from_fn(|l| {
                    let $x = a[l];
                    $e
                });
                res = [r; 4];
            }};
        }
        match kind {
            Alu::Mov => each!(|a| a),
            Alu::Add => each!(|a, b| a + b),
            Alu::Mul => each!(|a, b| mul(a, b)),
            Alu::Mad => each!(|a, b, c| mul(a, b) + c),
            Alu::Min => each!(|a, b| if a < b { a } else { b }),
            Alu::Max => each!(|a, b| if a >= b { a } else { b }),
            Alu::Slt => each!(|a, b| if a < b { 1.0 } else { 0.0 }),
            Alu::Sge => each!(|a, b| if a >= b { 1.0 } else { 0.0 }),
            Alu::Abs => each!(|a| a.abs()),
            Alu::Frc => each!(|a| a - a.floor()),
            Alu::Lrp => each!(|a, b, c| mul(a, b - c) + c),
            Alu::Sgn => each!(|a| if a < 0.0 {
                -1.0
            } else if a == 0.0 {
                0.0
            } else {
                1.0
            }),
            Alu::Dp3 | Alu::Dp4 => {
                let n = if kind == Alu::Dp3 { 3 } else { 4 };
                let mut acc = [0.0f32; LANES];
                for c in 0..n {
                    let (a, b) = (self.load(&src[0], c), self.load(&src[1], c));
                    for l in 0..LANES {
                        let p = mul(a[l], b[l]);
                        acc[l] = if c == 0 { p } else { acc[l] + p };
                    }
                }
                res = [acc; 4];
            }
            Alu::Rcp => scalar!(|x| if x == 0.0 {
                f32::MAX
            } else if x == 1.0 {
                1.0
            } else {
                1.0 / x
            }),
            Alu::Rsq => scalar!(|x| {
                let f = x.abs();
                if f == 0.0 {
                    f32::MAX
                } else if f == 1.0 {
                    1.0
                } else {
                    1.0 / f.sqrt()
                }
            }),
            Alu::Exp => scalar!(|x| x.exp2()),
            Alu::Log => scalar!(|x| {
                let f = x.abs();
                if f == 0.0 { -f32::MAX } else { f.log2() }
            }),
            Alu::Pow => {
                let (a, b) = (self.load(&src[0], 0), self.load(&src[1], 0));
                let r: Row = std::array::from_fn(|l| pow(a[l], b[l]));
                res = [r; 4];
            }
            Alu::Lit => {
                let (x, y, w) = (
                    self.load(&src[0], 0),
                    self.load(&src[0], 1),
                    self.load(&src[0], 3),
                );
                for l in 0..LANES {
                    let power = w[l].clamp(-127.9961, 127.9961);
                    res[0][l] = 1.0;
                    res[1][l] = if x[l] > 0.0 { x[l] } else { 0.0 };
                    res[2][l] = if x[l] > 0.0 && y[l] > 0.0 {
                        pow(y[l], power)
                    } else {
                        0.0
                    };
                    res[3][l] = 1.0;
                }
            }
            Alu::Dst => {
                let (ay, az) = (self.load(&src[0], 1), self.load(&src[0], 2));
                let (by, bw) = (self.load(&src[1], 1), self.load(&src[1], 3));
                for l in 0..LANES {
                    res[0][l] = 1.0;
                    res[1][l] = mul(ay[l], by[l]);
                    res[2][l] = az[l];
                    res[3][l] = bw[l];
                }
            }
            Alu::Crs => {
                let a: [Row; 3] = std::array::from_fn(|c| self.load(&src[0], c));
                let b: [Row; 3] = std::array::from_fn(|c| self.load(&src[1], c));
                for l in 0..LANES {
                    res[0][l] = mul(a[1][l], b[2][l]) - mul(a[2][l], b[1][l]);
                    res[1][l] = mul(a[2][l], b[0][l]) - mul(a[0][l], b[2][l]);
                    res[2][l] = mul(a[0][l], b[1][l]) - mul(a[1][l], b[0][l]);
                }
            }
            Alu::Nrm => {
                let a: [Row; 4] = std::array::from_fn(|c| self.load(&src[0], c));
                for l in 0..LANES {
                    let f = mul(a[0][l], a[0][l]) + mul(a[1][l], a[1][l]) + mul(a[2][l], a[2][l]);
                    let f = if f != 0.0 { 1.0 / f.sqrt() } else { f32::MAX };
                    for c in 0..4 {
                        res[c][l] = mul(a[c][l], f);
                    }
                }
            }
            Alu::SinCos => {
                let a = self.load(&src[0], 0);
                for l in 0..LANES {
                    res[0][l] = a[l].cos();
                    res[1][l] = a[l].sin();
                }
            }
            Alu::MovA => each!(|a| a),
            Alu::Setp(cmp) => {
                for c in 0..4 {
                    if mask >> c & 1 == 0 {
                        continue;
                    }
                    let (a, b) = (self.load(&src[0], c), self.load(&src[1], c));
                    let v: Mask = std::array::from_fn(|l| {
                        if compare(cmp, a[l], b[l]) {
                            u32::MAX
                        } else {
                            0
                        }
                    });
                    match self.write_mask(dst, c) {
                        None => self.p0[c] = v,
                        Some(m) => {
                            for l in 0..LANES {
                                self.p0[c][l] = (v[l] & m[l]) | (self.p0[c][l] & !m[l]);
                            }
                        }
                    }
                }
                return;
            }
            Alu::TexLdl { sampler, swizzle } => {
                let coords: [Row; 4] = std::array::from_fn(|c| self.load(&src[0], c));
                let texel = u.sampling.sample_batch(sampler, &coords);
                res = std::array::from_fn(|c| texel[(swizzle >> (2 * c) & 3) as usize]);
            }
        }
        self.store(dst, &res);
    }
}

#[inline(always)]
fn blend(dst: &mut Row, v: &Row, m: Option<&Mask>) {
    match m {
        None => *dst = *v,
        Some(m) => {
            for l in 0..LANES {
                let bits = (v[l].to_bits() & m[l]) | (dst[l].to_bits() & !m[l]);
                dst[l] = f32::from_bits(bits);
            }
        }
    }
}

/// `pow` as exp2(y * log2|x|) with the zero-product rule (C8): pow(0, 0) = 1.
#[inline(always)]
pub(crate) fn pow(x: f32, y: f32) -> f32 {
    mul(y, x.abs().log2()).exp2()
}

/// IEEE ordered comparisons (C7): NaN compares false except `ne`.
#[inline(always)]
pub(crate) fn compare(cmp: Comparison, a: f32, b: f32) -> bool {
    cmp.test(a, b)
}
