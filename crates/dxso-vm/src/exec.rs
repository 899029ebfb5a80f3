//! The executor: a batch of `LANES` vertices in structure-of-arrays form (one lane per
//! vertex), execution masks for dynamic flow control and predication.
//!
//! Arithmetic follows `../shared/spec/instructions.md`, including dxso's choices: a product
//! with a ±0 factor is +0 (C8); `mad` is a product then a sum (not fused); rcp/rsq of 0 give
//! `FLT_MAX` (C5); log of 0 gives `-FLT_MAX` (C6); min/max/slt/sge are the documented selects
//! (C7); mova rounds half to even (C3), vs_1_1 `mov a0.x` floors (C2); relative reads
//! outside a file give 0 (C4); outputs start each vertex at 0, but vs_1_1 .. vs_2_x `oD0` at
//! (1, 1, 1, 1) (C11).

use crate::math::{Row, Scalar, mul};
use crate::program::*;
use crate::texture::Sampling;
use crate::{LANES, VmError};
use dxso::formula as f;

/// Build a per-lane array with a plain loop, expanded in place: closures with large bodies
/// are not always inlined, and an op's lane loop must be, to be vectorised for the
/// instruction set the executor was compiled for.
macro_rules! lanes {
    (|$l:ident| $e:expr) => {{
        let mut a = [Default::default(); LANES];
        for $l in 0..LANES {
            a[$l] = $e;
        }
        a
    }};
}

pub(crate) type Mask = [u32; LANES];

const ALL: Mask = [u32::MAX; LANES];

/// Zero registers before and after a draw's constant file (and its zero register).
pub(crate) const CONST_PAD: usize = 2;

/// Uniform state of one draw, shared by every batch.
pub(crate) struct Uniforms<'a> {
    /// The constant file plus one zero register at the end (for reads outside the file).
    pub consts: &'a [[f32; 4]],
    /// `consts` with [`CONST_PAD`] more zero registers before and after it (the
    /// same memory).
    pub padded_consts: &'a [[f32; 4]],
    pub ints: &'a [[i32; 4]; 16],
    pub bools: &'a [bool; 16],
    pub max_instructions: u64,
    pub sampling: &'a Sampling<'a>,
    /// Pixel shaders: the draw's textures, samplers and texture stages.
    pub pixel: Option<&'a crate::pixel::Stages<'a>>,
}

/// The instruction-set paths of the executor: the same Rust code compiled for the baseline
/// x86-64 (or another architecture), for AVX2 + FMA, and for AVX-512, chosen at run time.
/// Results are bit-identical on every path (no fused multiply-add contraction: Rust never
/// contracts, and the kernels use no FMA intrinsics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isa {
    /// Baseline x86-64 (SSE2), or any other processor.
    Base,
    /// AVX2 and FMA.
    Avx2,
    /// AVX-512 (F, VL, BW, DQ) with AVX2 and FMA.
    Avx512,
}

impl Isa {
    /// The best path this processor supports (a device's [`crate::Options::isa`] may cap
    /// it, for measurements).
    pub fn detect() -> Isa {
        static BEST: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *BEST.get_or_init(Isa::hardware)
    }

    fn hardware() -> Isa {
        {
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
                {
                    return Isa::Avx512;
                }
                if std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
                {
                    return Isa::Avx2;
                }
            }
            Isa::Base
        }
    }
}

/// Work compiled once per instruction-set path: `run` is inlined into each path's wrapper,
/// so everything it inlines in turn (fetch, the op loop, the store) uses that path's
/// instructions.
pub(crate) trait OnIsa {
    type Output;
    fn run(self) -> Self::Output;
}

/// Run `task` on the path `isa` (never above what [`Isa::detect`] finds).
pub(crate) fn on_isa<T: OnIsa>(isa: Isa, task: T) -> T::Output {
    #[cfg(target_arch = "x86_64")]
    {
        let isa = isa.min(Isa::detect());
        match isa {
            // SAFETY: `isa` is at most what was detected on this processor, so it has AVX-512.
            Isa::Avx512 => return unsafe { on_avx512(task) },
            // SAFETY: likewise, AVX2 and FMA were detected.
            Isa::Avx2 => return unsafe { on_avx2(task) },
            Isa::Base => {}
        }
    }
    let _ = isa;
    task.run()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(
    enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,bmi1,bmi2,sse4.1,sse4.2,popcnt"
)]
unsafe fn on_avx512<T: OnIsa>(task: T) -> T::Output {
    task.run()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,bmi1,bmi2,sse4.1,sse4.2,popcnt")]
unsafe fn on_avx2<T: OnIsa>(task: T) -> T::Output {
    task.run()
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

// Frames live in a stack reused across batches; boxing the masks would allocate per frame.
#[allow(clippy::large_enum_variant)]
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
    pub rows: crate::guard::Arena,
    a0: [[i32; LANES]; 4],
    p0: [Mask; 4],
    exec: Mask,
    full: bool,
    al: i32,
    stack: Vec<Frame>,
}

/// A source value with its modifiers: `(bits & and) ^ xor`.
#[inline(always)]
fn modified(x: f32, s: &SrcRef) -> f32 {
    f32::from_bits((x.to_bits() & s.and) ^ s.xor)
}

#[inline(always)]
fn any(m: &Mask) -> bool {
    m.iter().any(|&x| x != 0)
}

impl Machine {
    pub fn new(program: &Program, uniforms: &Uniforms) -> Machine {
        let mut m = Machine {
            rows: crate::guard::Arena::new(program.rows),
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

    /// Zero the temps the program writes (when `temps`; and any input register an op
    /// writes), the outputs it writes (when `outputs`; oD0 of vs_1_1 .. vs_2_x starts at
    /// 1.0 instead, C11), a0 and p0 (inputs are fetched by the caller). The registers no
    /// op writes hold the arena's zeros.
    pub fn reset(&mut self, program: &Program, temps: bool, outputs: bool) {
        let mut written = if temps { program.written } else { 0 };
        while written != 0 {
            let t = TEMP_BASE as usize + written.trailing_zeros() as usize * 4;
            self.rows[t..t + 4].fill([0.0; LANES]);
            written &= written - 1;
        }
        let o = OUTPUT_BASE as usize;
        if outputs {
            for r in &mut self.rows[o..o + program.output_rows as usize] {
                *r = [0.0; LANES];
            }
            if let Some(d) = program.diffuse {
                for r in &mut self.rows[d as usize..d as usize + 4] {
                    *r = [1.0; LANES];
                }
            }
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

    /// A source component with its modifiers applied (a copy: for the less common kernels).
    #[inline(always)]
    pub(crate) fn load(&self, s: &SrcRef, c: usize) -> Row {
        let r = &self.rows[s.rows[c] as usize];
        lanes!(|l| modified(r[l], s))
    }

    fn cond(&self, c: &Cond) -> Mask {
        match c {
            Cond::Cmp(cmp, a, b) => {
                let (a, b) = (self.load(a, 0), self.load(b, 0));
                lanes!(|l| if cmp.test(a[l], b[l]) { u32::MAX } else { 0 })
            }
            Cond::Pred(comp, not) => {
                let flip = if *not { u32::MAX } else { 0 };
                lanes!(|l| self.p0[*comp as usize][l] ^ flip)
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
                Some(lanes!(|l| self.exec[l] & (pr[l] ^ flip)))
            }
        }
    }

    /// Store component `c` of a result.
    #[inline(always)]
    pub(crate) fn put(&mut self, dst: &DstRef, c: usize, v: &Row) {
        let mut sat;
        let v = if dst.sat {
            sat = *v;
            sat.iter_mut().for_each(|x| *x = f::sat(&mut Scalar, *x));
            &sat
        } else {
            v
        };
        let wm = self.write_mask(dst, c);
        match dst.kind {
            DstKind::Rows(row) => blend(&mut self.rows[row as usize + c], v, wm.as_ref()),
            DstKind::OutputByLoop(base) => {
                let reg = base + self.al;
                if (0..OUTPUTS as i32).contains(&reg) {
                    let row = OUTPUT_BASE as usize + reg as usize * 4 + c;
                    blend(&mut self.rows[row], v, wm.as_ref());
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

    /// Store every masked component of a whole result.
    #[inline(always)]
    pub(crate) fn store(&mut self, dst: &DstRef, res: &[Row; 4]) {
        for c in 0..4 {
            if dst.mask >> c & 1 != 0 {
                self.put(dst, c, &res[c]);
            }
        }
    }

    /// A component-wise kernel over `N` sources: computed per component straight into the
    /// destination, or whole first when a later component reads an earlier one's row.
    #[inline(always)]
    fn componentwise<const N: usize>(
        &mut self,
        dst: &DstRef,
        src: &[SrcRef; 3],
        f: impl Fn([f32; N]) -> f32,
    ) {
        if dst.hazard {
            let mut whole = [[0.0f32; LANES]; 4];
            for c in 0..4 {
                if dst.mask >> c & 1 != 0 {
                    whole[c] = self.kernel(src, c, &f);
                }
            }
            return self.store(dst, &whole);
        }
        for c in 0..4 {
            if dst.mask >> c & 1 != 0 {
                let t = self.kernel(src, c, &f);
                self.put(dst, c, &t);
            }
        }
    }

    /// Component `c` of a component-wise kernel.
    #[inline(always)]
    fn kernel<const N: usize>(
        &self,
        src: &[SrcRef; 3],
        c: usize,
        f: &impl Fn([f32; N]) -> f32,
    ) -> Row {
        let mut t = [0.0f32; LANES];
        let mut rows: [&Row; N] = [&self.rows[0]; N];
        for k in 0..N {
            rows[k] = &self.rows[src[k].rows[c] as usize];
        }
        for l in 0..LANES {
            let mut args = [0.0f32; N];
            for k in 0..N {
                args[k] = modified(rows[k][l], &src[k]);
            }
            t[l] = f(args);
        }
        t
    }

    /// A result replicated to every masked component.
    #[inline(always)]
    fn replicated(&mut self, dst: &DstRef, t: &Row) {
        for c in 0..4 {
            if dst.mask >> c & 1 != 0 {
                self.put(dst, c, t);
            }
        }
    }

    /// Run the program over the batch in the arena, reporting every executed op to `tracer`
    /// (monomorphised: with [`NoTrace`] the run pays nothing). `Err` when the instruction cap
    /// is hit.
    #[allow(clippy::too_many_lines)] // a dispatch `match`: one arm per op
    #[inline(always)]
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
                Op::Pixel(p) => crate::pixel::exec::run(self, p, u),
                Op::GatherConstA0 { dst, base, comp } => {
                    // C4: outside the constant file reads (0, 0, 0, 0): such lanes read the
                    // zero register the draw appends after the file. Index arithmetic and loads
                    // without branches, so the compiler can use gather instructions.
                    let n = u.consts.len() as i64 - 1;
                    let idx = &self.a0[*comp as usize];
                    let mut at = [0usize; LANES];
                    for l in 0..LANES {
                        let i = *base as i64 + idx[l] as i64;
                        at[l] = if i >= 0 && i < n {
                            i as usize
                        } else {
                            n as usize
                        } * 4;
                    }
                    let flat = u.consts.as_flattened();
                    let d = *dst as usize;
                    for c in 0..4 {
                        let row = &mut self.rows[d + c];
                        for l in 0..LANES {
                            row[l] = flat[at[l] + c];
                        }
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
                        let r: Row = lanes!(|l| {
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
                    let taken: Mask = lanes!(|l| self.exec[l] & c[l]);
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
                    let m: Mask = lanes!(|l| saved[l] & !taken[l]);
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
                            lanes!(|l| self.exec[l] & c[l])
                        }
                    };
                    if any(&brk) {
                        let m: Mask = lanes!(|l| self.exec[l] & !brk[l]);
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
                    let taken: Mask = lanes!(|l| self.exec[l] & c[l]);
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

    /// Lane `l`'s value of `row` (vertex traces run one vertex in lane 0; pixel traces
    /// follow one lane of a batch).
    pub fn lane(&self, row: u16, l: usize) -> f32 {
        self.rows[row as usize][l % LANES]
    }
    pub fn a0_lane(&self, l: usize) -> [i32; 4] {
        std::array::from_fn(|c| self.a0[c][l % LANES])
    }
    pub fn p0_lane(&self, l: usize) -> [bool; 4] {
        std::array::from_fn(|c| self.p0[c][l % LANES] != 0)
    }
    pub fn active_lane(&self, l: usize) -> bool {
        self.exec[l % LANES] != 0
    }

    pub fn al(&self) -> i32 {
        self.al
    }

    #[allow(clippy::too_many_lines)] // a dispatch `match`: one arm per ALU operation
    #[inline(always)]
    fn alu(&mut self, kind: Alu, dst: &DstRef, src: &[SrcRef; 3], u: &Uniforms) {
        let mask = dst.mask;
        macro_rules! scalar {
            (|$x:ident| $e:expr) => {{
                let a = &self.rows[src[0].rows[0] as usize];
                let r: Row = lanes!(|l| {
                    let $x = modified(a[l], &src[0]);
                    $e
                });
                self.replicated(dst, &r);
                return;
            }};
        }
        match kind {
            Alu::Mov => return self.componentwise(dst, src, |[a]| a),
            Alu::Add => return self.componentwise(dst, src, |[a, b]| a + b),
            Alu::Mul => return self.componentwise(dst, src, |[a, b]| f::mul(&mut Scalar, a, b)),
            Alu::Mad => {
                return self.componentwise(dst, src, |[a, b, c]| f::mad(&mut Scalar, a, b, c));
            }
            Alu::Min => return self.componentwise(dst, src, |[a, b]| f::min(&mut Scalar, a, b)),
            Alu::Max => return self.componentwise(dst, src, |[a, b]| f::max(&mut Scalar, a, b)),
            Alu::Slt => return self.componentwise(dst, src, |[a, b]| f::slt(&mut Scalar, a, b)),
            Alu::Sge => return self.componentwise(dst, src, |[a, b]| f::sge(&mut Scalar, a, b)),
            Alu::Abs => return self.componentwise(dst, src, |[a]: [f32; 1]| a.abs()),
            Alu::Frc => {
                return self.componentwise(dst, src, |[a]: [f32; 1]| f::frc(&mut Scalar, a));
            }
            Alu::Lrp => {
                return self.componentwise(dst, src, |[a, b, c]| f::lrp(&mut Scalar, a, b, c));
            }
            Alu::Sgn => {
                return self.componentwise(dst, src, |[a]: [f32; 1]| f::sgn(&mut Scalar, a));
            }
            Alu::MovA => return self.componentwise(dst, src, |[a]| a),
            // C2: vs_1_1 `mov a0.x` floors (the a0 store keeps the integer).
            Alu::Floor => return self.componentwise(dst, src, |[a]: [f32; 1]| a.floor()),
            Alu::Dp3 | Alu::Dp4 => {
                let n = if kind == Alu::Dp3 { 3 } else { 4 };
                // `dxso::formula::dot` row by row (products summed left to right), so that
                // each component's loop over the batch vectorises.
                let mut acc = [0.0f32; LANES];
                for c in 0..n {
                    let (a, b) = (
                        &self.rows[src[0].rows[c] as usize],
                        &self.rows[src[1].rows[c] as usize],
                    );
                    for l in 0..LANES {
                        let p = mul(modified(a[l], &src[0]), modified(b[l], &src[1]));
                        acc[l] = if c == 0 { p } else { acc[l] + p };
                    }
                }
                return self.replicated(dst, &acc);
            }
            Alu::Rcp => scalar!(|x| f::rcp(&mut Scalar, x)),
            Alu::Rsq => scalar!(|x| f::rsq(&mut Scalar, x)),
            Alu::Exp => scalar!(|x| f::exp(&mut Scalar, x)),
            Alu::Log => scalar!(|x| f::log(&mut Scalar, x)),
            Alu::Pow => {
                let (a, b) = (self.load(&src[0], 0), self.load(&src[1], 0));
                let r: Row = lanes!(|l| f::pow(&mut Scalar, a[l], b[l]));
                return self.replicated(dst, &r);
            }
            // Pixel shaders (`crate::pixel` documents the rules).
            Alu::Cmp => {
                return self.componentwise(dst, src, |[a, b, c]| f::cmp(&mut Scalar, a, b, c));
            }
            Alu::Cnd => {
                return self.componentwise(dst, src, |[a, b, c]| f::cnd(&mut Scalar, a, b, c));
            }
            Alu::Scale(k) => {
                return self.componentwise(dst, src, |[a]: [f32; 1]| f::scale(&mut Scalar, a, k));
            }
            Alu::SrcMod(m) => {
                return self.componentwise(dst, src, |[a]: [f32; 1]| match m {
                    PsMod::Bias => f::bias(&mut Scalar, a),
                    PsMod::Bx2 => f::bx2(&mut Scalar, a),
                    PsMod::Comp => f::comp(&mut Scalar, a),
                    PsMod::X2 => f::scale(&mut Scalar, a, 2.0),
                });
            }
            Alu::Dp2Add => {
                let (ax, ay) = (self.load(&src[0], 0), self.load(&src[0], 1));
                let (bx, by) = (self.load(&src[1], 0), self.load(&src[1], 1));
                let c = self.load(&src[2], 0);
                let r: Row =
                    lanes!(|l| f::dp2add(&mut Scalar, [ax[l], ay[l]], [bx[l], by[l]], c[l]));
                return self.replicated(dst, &r);
            }
            Alu::Kill(comps) => {
                let mut r: Row = match dst.kind {
                    DstKind::Rows(row) => self.rows[row as usize],
                    _ => [0.0; LANES],
                };
                for c in (0..4).filter(|c| comps >> c & 1 != 0) {
                    let v = self.load(&src[0], c);
                    for l in 0..LANES {
                        if v[l] < 0.0 {
                            r[l] = 1.0;
                        }
                    }
                }
                return self.put(dst, 0, &r);
            }
            _ => {}
        }
        // The kernels that produce several different components.
        let mut res = [[0.0f32; LANES]; 4];
        match kind {
            Alu::Lit => {
                let (x, y, w) = (
                    self.load(&src[0], 0),
                    self.load(&src[0], 1),
                    self.load(&src[0], 3),
                );
                for l in 0..LANES {
                    let r = f::lit(&mut Scalar, x[l], y[l], w[l]);
                    for c in 0..4 {
                        res[c][l] = r[c];
                    }
                }
            }
            Alu::Dst => {
                let (ay, az) = (self.load(&src[0], 1), self.load(&src[0], 2));
                let (by, bw) = (self.load(&src[1], 1), self.load(&src[1], 3));
                for l in 0..LANES {
                    let r = f::dst(&mut Scalar, ay[l], az[l], by[l], bw[l]);
                    for c in 0..4 {
                        res[c][l] = r[c];
                    }
                }
            }
            Alu::Crs => {
                let a: [Row; 3] = std::array::from_fn(|c| self.load(&src[0], c));
                let b: [Row; 3] = std::array::from_fn(|c| self.load(&src[1], c));
                for l in 0..LANES {
                    let r = f::crs(
                        &mut Scalar,
                        [a[0][l], a[1][l], a[2][l]],
                        [b[0][l], b[1][l], b[2][l]],
                    );
                    for c in 0..3 {
                        res[c][l] = r[c];
                    }
                }
            }
            Alu::Nrm => {
                let a: [Row; 4] = std::array::from_fn(|c| self.load(&src[0], c));
                for l in 0..LANES {
                    let r = f::nrm(&mut Scalar, [a[0][l], a[1][l], a[2][l], a[3][l]]);
                    for c in 0..4 {
                        res[c][l] = r[c];
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
            Alu::Setp(cmp) => {
                for c in 0..4 {
                    if mask >> c & 1 == 0 {
                        continue;
                    }
                    let (a, b) = (self.load(&src[0], c), self.load(&src[1], c));
                    let v: Mask = lanes!(|l| if cmp.test(a[l], b[l]) { u32::MAX } else { 0 });
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
            Alu::Dsx | Alu::Dsy => {
                for c in 0..4 {
                    if mask >> c & 1 != 0 {
                        let v = self.load(&src[0], c);
                        res[c] = if kind == Alu::Dsx {
                            crate::pixel::quad::ddx(&v)
                        } else {
                            crate::pixel::quad::ddy(&v)
                        };
                    }
                }
            }
            Alu::TexLdl { sampler, swizzle } => {
                let coords: [Row; 4] = std::array::from_fn(|c| self.load(&src[0], c));
                let texel = u.sampling.sample_batch(sampler, &coords);
                res = std::array::from_fn(|c| texel[(swizzle >> (2 * c) & 3) as usize]);
            }
            _ => unreachable!("handled above"),
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
