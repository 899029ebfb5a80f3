//! The compiled tier: a lowered [`Program`] translated into machine code that runs a whole
//! batch with temporaries held in registers. Two code generators: the AVX-512 one
//! (`avx512.rs`, 16 lanes per instruction, with fetch and store fused where the draw's
//! layout allows) where the instruction-set path is AVX-512, and this one, Cranelift (four
//! lanes per instruction, any processor Cranelift targets), elsewhere or where the first
//! fails.
//!
//! It covers programs whose flow control is uniform (`if b#`, `loop`/`rep`, `ret` ending
//! the program); anything else (dynamic branches, `break`, subroutines, `o[aL]`) runs on the
//! interpreter, which stays the reference. `texldl` and `sincos` call back into Rust (the
//! interpreter's own sampler and `f32::sin`/`cos`). Every operation is the interpreter's
//! formula written again, in the same order of rounding (products with the zero rule C8, no
//! fused multiply-add, the same polynomial exp2/log2), so all tiers give bit-identical
//! outputs; tests compare them on random programs and on every corpus shader.
//!
//! Cranelift's memory: inputs and constants are read from the batch arena (constant rows
//! there are already broadcast), outputs are written to it; temporaries, gathered operands,
//! a0 and p0 are Cranelift variables.
//!
//! # What generated code touches, and why nothing else
//!
//! Machine code from either generator is `unsafe` to run; this is the argument that it stays
//! inside memory the draw owns. It reads and writes only through the pointers of one call
//! ([`Entry`], and for fused AVX-512 code its `BatchIo`), never through an address computed
//! from shader data except as follows:
//! - **The batch arena** (`rows`): every row the code addresses is a constant offset below
//!   `program.rows` (lowering numbers them), and [`Args::new`] asserts that the arena holds
//!   `program.rows` rows. Relative input reads (`v[aL]`, `v[a0]`) compare each index with
//!   the 16 input registers (unsigned, so negative ones fail) and, outside, load from index
//!   0 (Cranelift) or not at all (AVX-512 masks the load or gather off), giving zero.
//! - **The constant file**: relative reads (`c[a0.x + n]`, `c[aL + n]`) clamp each lane's
//!   index into the file or onto the zero register that follows it (unsigned compares, so
//!   negative indices clamp too); the AVX-512 code then reads up to `device::CONST_PAD`
//!   registers beyond a clamped index, which the draw's padded file provides (zeros on both
//!   sides). Direct reads use register numbers the validator bounded by the caps, inside the
//!   file the device sized from the same caps. Integer and boolean files are 16 entries,
//!   addressed by register number (at most 15).
//! - **Vertex streams** (fused code only): the element addresses of a batch are
//!   `inputs[r] + lane * stride` (or `index * stride` through the index buffer), for vertex
//!   or index numbers the draw checked before it ran (`Binding::check_bounds`: the largest
//!   index times the stride plus the offset plus the element size is within the stream, all
//!   in checked arithmetic); fused code runs only full batches of 64 vertices inside the
//!   draw, reads 64 indices, and the next batch's addresses are used for prefetches only
//!   (which do not fault).
//! - **The output buffer** (fused code only): 64 records of `outputs * 16` bytes from the
//!   batch's first record, the draw's output slice for exactly that batch.
//! - **The stack frame** of the function itself, and the callbacks (`texldl`, `sincos`) with
//!   a frame slot of `4 * N` floats they read and write.
//!
//! W^X: code is never writable and executable at once. The AVX-512 generator assembles into
//! a buffer, copies it into an anonymous read-write mapping, and turns that mapping
//! read-execute (`memmap2::MmapMut::make_exec`, an `mprotect`) before taking its address;
//! the `Mmap` is never made writable again and is unmapped when the code is dropped.
//! Cranelift's `JITModule` does the same at `finalize_definitions` (its pages become
//! read-execute), and the module is only read afterwards.
//!
//! Panics: generated code has no unwind tables, and the callbacks are `extern "C"` (a panic
//! leaving one would abort). Each callback's body runs under `catch_unwind`; a panic there
//! gives zeros to the code, is recorded for the thread, and the draw returns
//! [`crate::VmError::Panicked`] after the batch. A panic elsewhere in a draw's worker (the
//! interpreter, fetch) is caught around the worker's batches and is the same error.
//!
//! Tested, not only argued: in the guard-page test mode (`DXSO_GUARD_PAGES=1`,
//! [`crate::Device::set_guard_pages`]; see the `guard` module) a draw's batch arenas, padded
//! constant file, streams, index buffer and output records each end at an inaccessible
//! page, so an access past one by generated code faults. A test build can compile a
//! deliberately broken `c[a0.x]` gather (one register past the padded file); the
//! `guard_tests` show the mode turning it into SIGSEGV for both generators, and the
//! `tests/guard.rs` suite runs workloads and edge cases guarded with unguarded bits. Not
//! covered: the stack frame and the callbacks' slot, the integer and boolean files, and an
//! access that lands inside another buffer of the same draw (a record of another batch in
//! the output slice, before the start of a buffer by less than its slack to the page).
//!
//! `DXSO_JIT_DUMP=1` prints each program Cranelift compiles as machine code to stderr (the
//! AVX-512 generator writes it to a file: see there); `DXSO_JIT_WHY=1` prints why a program
//! is not compiled.

use crate::LANES;
use crate::exec::{EXP2_MAX, EXP2_MIN, EXP2_POLY, LIT_POWER, LOG2_POLY, ROUNDER, Uniforms};
use crate::program::*;
use crate::texture::Sampling;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, Block, ConstantData, Endianness, InstBuilder, MemFlagsData, SigRef, Signature,
    StackSlot, StackSlotData, StackSlotKind, Type, Value, types,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use dxso::ir::Comparison;

/// `(arena, consts, consts.len(), ints, bools, max_instructions, sampling) -> 0, or 1 when a
/// vertex runs more than `max_instructions`.
pub(crate) type Entry = unsafe extern "C" fn(
    *mut f32,
    *const f32,
    u64,
    *const i32,
    *const u8,
    u64,
    *const Sampling,
) -> u32;

/// `texldl` on `N` lanes (4 for Cranelift's code, 16 for the AVX-512 code): `io` holds the
/// coordinates as four component rows of `N` lanes on entry, the texels in the same layout
/// on return.
pub(crate) extern "C" fn texldl<const N: usize>(
    sampling: *const Sampling,
    sampler: u32,
    io: *mut f32,
) {
    // SAFETY: the compiled code passes the draw's sampling state and its 4 * N float slot.
    let (sampling, io) = unsafe { (&*sampling, std::slice::from_raw_parts_mut(io, 4 * N)) };
    callback("texldl", io, |io| {
        for l in 0..N {
            let coords = [io[l], io[N + l], io[2 * N + l], io[3 * N + l]];
            let t = sampling.sample_lane(sampler as u8, coords);
            for (c, x) in t.into_iter().enumerate() {
                io[c * N + l] = x;
            }
        }
    });
}

/// `sincos` on `N` lanes: `io[0..N]` = x on entry; cos x in `io[0..N]`, sin x in
/// `io[N..2N]` on return.
pub(crate) extern "C" fn sincos<const N: usize>(io: *mut f32) {
    // SAFETY: the compiled code passes its 4 * N float slot.
    let io = unsafe { std::slice::from_raw_parts_mut(io, 4 * N) };
    callback("sincos", io, |io| {
        for l in 0..N {
            let x = io[l];
            io[l] = x.cos();
            io[N + l] = x.sin();
        }
    });
}

thread_local! {
    /// The callback that panicked during the batch this thread runs, if one did.
    static CALLBACK_PANIC: std::cell::Cell<Option<&'static str>> =
        const { std::cell::Cell::new(None) };
}

/// A callback's body, run so that a panic never unwinds into generated code (which has no
/// unwind tables; from an `extern "C"` function it would abort the process): it is caught
/// here, the results are zeros, and the panic is recorded for [`take_callback_panic`], which
/// the draw calls after the batch and turns into an error.
fn callback(name: &'static str, io: &mut [f32], body: impl FnOnce(&mut [f32])) {
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&mut *io)));
    if caught.is_err() {
        io.fill(0.0);
        CALLBACK_PANIC.with(|p| p.set(Some(name)));
    }
}

/// The callback that panicked during this thread's last batch of compiled code (cleared).
pub(crate) fn take_callback_panic() -> Option<&'static str> {
    CALLBACK_PANIC.with(|p| p.take())
}

/// A program compiled to machine code: by Cranelift, or by the AVX-512 code generator
/// (`avx512.rs`) where the processor has AVX-512.
pub(crate) struct Jit {
    module: Option<JITModule>,
    zmm: Option<crate::avx512::Code>,
    entry: Entry,
}

// SAFETY: the module is only read after `finalize_definitions` (its code is immutable), and
// the entry point touches nothing but the memory passed to it.
unsafe impl Send for Jit {}
unsafe impl Sync for Jit {}

impl Drop for Jit {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: `entry` is not called after the Jit is dropped.
            unsafe { m.free_memory() };
        }
    }
}

impl std::fmt::Debug for Jit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Jit")
    }
}

impl Jit {
    /// The code generator that made this code.
    pub(crate) fn generator(&self) -> crate::CodeGenerator {
        if self.zmm.is_some() {
            crate::CodeGenerator::Avx512
        } else {
            crate::CodeGenerator::Cranelift
        }
    }

    /// Run the program over the batch in `rows` (inputs fetched, outputs cleared). `false`
    /// when the instruction limit was passed.
    pub(crate) fn run(
        &self,
        rows: &mut [crate::exec::Row],
        program: &Program,
        u: &Uniforms,
    ) -> bool {
        let a = Args::new(rows, program, u);
        // SAFETY: see `Args::new`.
        let status = unsafe {
            (self.entry)(
                a.arena, a.consts, a.nconsts, a.ints, a.bools, a.max, a.sampling,
            )
        };
        status == 0
    }
}

/// The arguments compiled code takes for a batch.
pub(crate) struct Args<'a> {
    pub arena: *mut f32,
    pub consts: *const f32,
    pub nconsts: u64,
    pub ints: *const i32,
    pub bools: *const u8,
    pub max: u64,
    pub sampling: *const Sampling<'a>,
}

impl<'a> Args<'a> {
    /// The arena has every row the program addresses (checked here); gathers clamp their
    /// indices to `nconsts` registers; ints and bools are the draw's 16-entry files.
    pub(crate) fn new(
        rows: &mut [crate::exec::Row],
        program: &Program,
        u: &Uniforms<'a>,
    ) -> Args<'a> {
        assert!(rows.len() >= program.rows, "the arena holds every row");
        Args {
            arena: rows.as_mut_ptr().cast(),
            // The constants' address, from the padded file (the AVX-512 code reads its
            // padding).
            consts: u.padded_consts[crate::device::CONST_PAD..]
                .as_flattened()
                .as_ptr(),
            nconsts: u.consts.len() as u64,
            ints: u.ints.as_flattened().as_ptr(),
            bools: u.bools.as_ptr().cast(),
            max: u.max_instructions,
            sampling: u.sampling,
        }
    }
}

/// Whether the compiled tier can run `p`, and if not, why.
fn supported(p: &Program) -> Result<(), String> {
    for op in &p.ops {
        match op {
            Op::Alu { dst, src, .. } => {
                if matches!(dst.kind, DstKind::OutputByLoop(_)) {
                    return Err("o[aL] destination".into());
                }
                for s in src {
                    if !(s.and == u32::MAX || s.and == !SIGN) || !(s.xor == 0 || s.xor == SIGN) {
                        return Err("source modifier".into());
                    }
                }
            }
            Op::GatherConstA0 { .. }
            | Op::GatherConstAl { .. }
            | Op::GatherInputAl { .. }
            | Op::GatherInputA0 { .. }
            | Op::IfBool { .. }
            | Op::Jump { .. }
            | Op::Loop { .. }
            | Op::EndLoop { .. } => {}
            // `ret` ends the program when there are no calls.
            Op::Ret => {}
            other => return Err(format!("{other:?}")),
        }
    }
    Ok(())
}

/// Compile `p` (see [`supported`]); `Err` says why not. Where `isa` is AVX-512, the
/// AVX-512 code generator runs first and Cranelift only if it fails. A failure inside a
/// code generator (a processor it cannot target, say; even a panic) is an `Err` too: the
/// draw then runs on the interpreter. `DXSO_JIT_WHY=1` prints each reason to stderr.
pub(crate) fn compile(p: &Program, isa: crate::exec::Isa) -> Result<Jit, String> {
    supported(p).inspect_err(|e| why("compiled tier", e))?;
    if isa == crate::exec::Isa::Avx512 {
        let zmm = guarded(|| {
            crate::avx512::compile(p).map(|code| Jit {
                module: None,
                entry: code.entry,
                zmm: Some(code),
            })
        });
        match zmm {
            Ok(jit) => return Ok(jit),
            Err(e) => why("AVX-512", &e),
        }
    }
    guarded(|| generate(p)).inspect_err(|e| why("Cranelift", e))
}

/// Compile `p` with fetch and store fused for draws laid out as `layout` says (AVX-512 only;
/// see [`crate::avx512::Layout`]).
pub(crate) fn compile_fused(
    p: &Program,
    layout: &crate::avx512::Layout,
) -> Option<crate::avx512::Fused> {
    supported(p).ok()?;
    guarded(|| crate::avx512::compile_fused(p, layout))
        .inspect_err(|e| why("AVX-512 (fused)", e))
        .ok()
}

/// A code generator's result, its panic turned into an `Err`.
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err("the code generator failed".to_string()))
}

/// Say why a program is not compiled, when `DXSO_JIT_WHY` is set.
fn why(generator: &str, e: &str) {
    if std::env::var_os("DXSO_JIT_WHY").is_some() {
        eprintln!("dxso: {generator}: not compiled: {e}");
    }
}

fn generate(p: &Program) -> Result<Jit, String> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| f.set(k, v).map_err(|e| e.to_string());
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    let isa = cranelift_native::builder()
        .map_err(|e| e.to_string())?
        .finish(settings::Flags::new(flags))
        .map_err(|e| e.to_string())?;
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    for t in [ptr, ptr, types::I64, ptr, ptr, types::I64, ptr] {
        sig.params.push(AbiParam::new(t));
    }
    sig.returns.push(AbiParam::new(types::I32));
    let id = module
        .declare_function("shader", Linkage::Local, &sig)
        .map_err(|e| e.to_string())?;
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    let mut fctx = FunctionBuilderContext::new();
    {
        let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let mut e = Emitter::new(b, p, ptr, module.isa().default_call_conv());
        e.program()?;
        e.b.seal_all_blocks();
        e.b.finalize(module.target_config());
    }
    ctx.set_disasm(std::env::var_os("DXSO_JIT_DUMP").is_some());
    module
        .define_function(id, &mut ctx)
        .map_err(|e| format!("{e:?}"))?;
    if let Some(text) = ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
        eprintln!("{text}");
    }
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(|e| e.to_string())?;
    let code = module.get_finalized_function(id);
    // SAFETY: the function was declared with exactly `Entry`'s signature (System V on x86-64,
    // the target's default calling convention everywhere).
    let entry: Entry = unsafe { std::mem::transmute::<*const u8, Entry>(code) };
    Ok(Jit {
        module: Some(module),
        zmm: None,
        entry,
    })
}

const ROW_BYTES: i64 = (LANES * 4) as i64;
/// Groups of four lanes interleaved: each operation is emitted for `K` groups in a row, so
/// the processor overlaps their (long) dependency chains.
const K: usize = 1;
const F4: Type = types::F32X4;
const I4: Type = types::I32X4;

struct Emitter<'a> {
    b: FunctionBuilder<'a>,
    p: &'a Program,
    /// Variables of the rows held in registers (temps and gather scratch), by row.
    vars: Vec<Option<[Variable; K]>>,
    a0: [[Variable; K]; 4],
    p0: [[Variable; K]; 4],
    /// The interleaved group being emitted.
    k: usize,
    al: Variable,
    executed: Variable,
    /// Byte offset of the current group of four lanes within a row.
    group: Variable,
    /// Per `Loop` op: (remaining, saved aL, step).
    loops: Vec<Option<[Variable; 3]>>,
    /// The entry block's parameters.
    arena: Value,
    consts: Value,
    nconsts: Value,
    ints: Value,
    bools: Value,
    max: Value,
    sampling: Value,
    ptr: Type,
    /// The callbacks' signatures (texldl, sincos) and the stack slot they work in.
    texldl_sig: SigRef,
    sincos_sig: SigRef,
    io: StackSlot,
    /// Instructions counted but not yet added to `executed`.
    pending: i64,
}

fn mem() -> MemFlagsData {
    MemFlagsData::trusted().with_endianness(Endianness::Little)
}

fn bits() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl<'a> Emitter<'a> {
    fn new(
        mut b: FunctionBuilder<'a>,
        p: &'a Program,
        ptr: Type,
        call_conv: cranelift_codegen::isa::CallConv,
    ) -> Emitter<'a> {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let mut vars = vec![None; p.rows];
        let in_regs = |r: u16| r < INPUT_BASE || r >= p.scratch_base();
        let mut mark = |r: u16, b: &mut FunctionBuilder| {
            if in_regs(r) && vars[r as usize].is_none() {
                vars[r as usize] = Some(std::array::from_fn(|_| b.declare_var(F4)));
            }
        };
        for op in &p.ops {
            match op {
                Op::Alu { dst, src, .. } => {
                    for s in src {
                        s.rows.iter().for_each(|&r| mark(r, &mut b));
                    }
                    if let DstKind::Rows(r) = dst.kind {
                        (r..r + 4).for_each(|r| mark(r, &mut b));
                    }
                }
                Op::GatherConstA0 { dst, .. }
                | Op::GatherConstAl { dst, .. }
                | Op::GatherInputAl { dst, .. }
                | Op::GatherInputA0 { dst, .. } => (*dst..dst + 4).for_each(|r| mark(r, &mut b)),
                _ => {}
            }
        }
        let sig = |params: &[Type]| {
            let mut sig = Signature::new(call_conv);
            sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
            sig
        };
        let texldl_sig = b.import_signature(sig(&[ptr, types::I32, ptr]));
        let sincos_sig = b.import_signature(sig(&[ptr]));
        let io = b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 64, 4));
        let a0 = std::array::from_fn(|_| std::array::from_fn(|_| b.declare_var(I4)));
        let p0 = std::array::from_fn(|_| std::array::from_fn(|_| b.declare_var(I4)));
        let al = b.declare_var(types::I32);
        let executed = b.declare_var(types::I64);
        let group = b.declare_var(types::I64);
        let loops = p
            .ops
            .iter()
            .map(|op| {
                matches!(op, Op::Loop { .. })
                    .then(|| std::array::from_fn(|_| b.declare_var(types::I32)))
            })
            .collect();
        Emitter {
            b,
            p,
            vars,
            a0,
            p0,
            k: 0,
            al,
            executed,
            group,
            loops,
            arena: params[0],
            consts: params[1],
            nconsts: params[2],
            ints: params[3],
            bools: params[4],
            max: params[5],
            sampling: params[6],
            ptr,
            texldl_sig,
            sincos_sig,
            io,
            pending: 0,
        }
    }

    fn var(&self, row: u16) -> Option<Variable> {
        self.vars[row as usize].map(|v| v[self.k])
    }

    fn a0(&self, c: usize) -> Variable {
        self.a0[c][self.k]
    }

    fn p0(&self, c: usize) -> Variable {
        self.p0[c][self.k]
    }

    /// Byte offset of the interleaved group within the current lane group.
    fn lane_off(&self) -> i32 {
        self.k as i32 * 16
    }

    fn f(&mut self, x: f32) -> Value {
        let s = self.b.ins().f32const(x);
        self.b.ins().splat(F4, s)
    }

    fn i(&mut self, x: i32) -> Value {
        let s = self.b.ins().iconst(types::I32, x as i64);
        self.b.ins().splat(I4, s)
    }

    fn as_i(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(I4, bits(), v)
    }

    fn as_f(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(F4, bits(), v)
    }

    /// Lane-wise `mask ? a : b` for floats.
    fn sel(&mut self, mask: Value, a: Value, b: Value) -> Value {
        let (a, b) = (self.as_i(a), self.as_i(b));
        let r = self.b.ins().bitselect(mask, a, b);
        self.as_f(r)
    }

    fn cmp(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        self.b.ins().fcmp(cc, a, b)
    }

    /// The product with the zero rule (C8): a zero factor gives +0.
    fn mul(&mut self, a: Value, b: Value) -> Value {
        if a == b {
            // A square is +0 for a zero factor of either sign already.
            return self.b.ins().fmul(a, b);
        }
        let z = self.f(0.0);
        let za = self.cmp(FloatCC::Equal, a, z);
        let zb = self.cmp(FloatCC::Equal, b, z);
        let zero = self.b.ins().bor(za, zb);
        let p = self.b.ins().fmul(a, b);
        let p = self.as_i(p);
        let r = self.b.ins().band_not(p, zero);
        self.as_f(r)
    }

    fn add(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fadd(a, b)
    }

    /// The address of lane group `group` of arena row `row`.
    fn row_addr(&mut self, row: Value) -> Value {
        let off = self.b.ins().imul_imm_s(row, ROW_BYTES);
        let g = self.b.use_var(self.group);
        let off = self.b.ins().iadd(off, g);
        self.b.ins().iadd(self.arena, off)
    }

    fn read_row(&mut self, row: u16) -> Value {
        if let Some(v) = self.var(row) {
            return self.b.use_var(v);
        }
        if self.p.is_const_row(row) {
            // Constant rows hold the value in every lane: any four of them do.
            return self
                .b
                .ins()
                .load(F4, mem(), self.arena, row as i32 * ROW_BYTES as i32);
        }
        let g = self.b.use_var(self.group);
        let at = self.b.ins().iadd(self.arena, g);
        let off = row as i32 * ROW_BYTES as i32 + self.lane_off();
        self.b.ins().load(F4, mem(), at, off)
    }

    fn write_row(&mut self, row: u16, v: Value) {
        match self.var(row) {
            Some(var) => self.b.def_var(var, v),
            None => {
                let g = self.b.use_var(self.group);
                let at = self.b.ins().iadd(self.arena, g);
                let off = row as i32 * ROW_BYTES as i32 + self.lane_off();
                self.b.ins().store(mem(), v, at, off);
            }
        }
    }

    fn src(&mut self, s: &SrcRef, c: usize) -> Value {
        let v = self.src_unnegated(s, c);
        if s.xor != 0 { self.b.ins().fneg(v) } else { v }
    }

    /// A source with `_abs` applied but not negation.
    fn src_unnegated(&mut self, s: &SrcRef, c: usize) -> Value {
        let v = self.read_row(s.rows[c]);
        if s.and != u32::MAX {
            self.b.ins().fabs(v)
        } else {
            v
        }
    }

    fn flush_count(&mut self) {
        if self.pending != 0 {
            let e = self.b.use_var(self.executed);
            let e = self.b.ins().iadd_imm_s(e, self.pending);
            self.b.def_var(self.executed, e);
            self.pending = 0;
        }
    }

    /// Return 1 from the function when more than the allowed instructions ran.
    fn check_limit(&mut self) {
        self.flush_count();
        let e = self.b.use_var(self.executed);
        let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, e, self.max);
        let bail = self.b.create_block();
        let go = self.b.create_block();
        self.b.ins().brif(over, bail, &[], go, &[]);
        self.b.switch_to_block(bail);
        let one = self.b.ins().iconst(types::I32, 1);
        self.b.ins().return_(&[one]);
        self.b.switch_to_block(go);
    }

    fn program(&mut self) -> Result<(), String> {
        let ops = &self.p.ops;
        let n = ops.len();
        let leaders = self.p.block_starts();
        let blocks: Vec<Option<Block>> = (0..=n)
            .map(|pc| leaders.contains(&pc).then(|| self.b.create_block()))
            .collect();
        let block = |pc: usize| blocks[pc.min(n)].expect("a leader");

        // Entry: the first group.
        let zero64 = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(self.group, zero64);
        let head = self.b.create_block();
        self.b.ins().jump(head, &[]);

        // Each group of four lanes starts from zeroed registers.
        self.b.switch_to_block(head);
        let zf = self.f(0.0);
        for v in self.vars.clone().into_iter().flatten().flatten() {
            self.b.def_var(v, zf);
        }
        let zi = self.i(0);
        for c in 0..4 {
            for k in 0..K {
                self.b.def_var(self.a0[c][k], zi);
                self.b.def_var(self.p0[c][k], zi);
            }
        }
        let z32 = self.b.ins().iconst(types::I32, 0);
        self.b.def_var(self.al, z32);
        let z64 = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(self.executed, z64);
        self.b.ins().jump(block(0), &[]);
        self.b.switch_to_block(block(0));

        let mut terminated = false;
        for pc in 0..n {
            if pc > 0
                && let Some(bl) = blocks[pc]
            {
                if !terminated {
                    self.flush_count();
                    self.b.ins().jump(bl, &[]);
                }
                self.b.switch_to_block(bl);
            }
            terminated = false;
            self.pending += 1;
            match ops[pc] {
                Op::Alu { .. }
                | Op::GatherConstA0 { .. }
                | Op::GatherConstAl { .. }
                | Op::GatherInputAl { .. }
                | Op::GatherInputA0 { .. } => {
                    for k in 0..K {
                        self.k = k;
                        self.lanes(&ops[pc]);
                    }
                }
                Op::IfBool { b, not, target } => {
                    self.flush_count();
                    let v = self.b.ins().uload8(types::I32, mem(), self.bools, b as i32);
                    // Jump when the bool equals `not` (the if is not taken).
                    let skip = self.b.ins().icmp_imm_s(IntCC::Equal, v, not as i64);
                    self.b
                        .ins()
                        .brif(skip, block(target as usize), &[], block(pc + 1), &[]);
                    terminated = true;
                }
                Op::Jump { target } => {
                    self.flush_count();
                    self.b.ins().jump(block(target as usize), &[]);
                    terminated = true;
                }
                Op::Ret => {
                    self.flush_count();
                    self.b.ins().jump(block(n), &[]);
                    terminated = true;
                }
                Op::Loop { i, end, al } => {
                    self.flush_count();
                    let [remaining, saved, step] = self.loops[pc].expect("a loop's variables");
                    let at = i as i32 * 16;
                    let count = self.b.ins().load(types::I32, mem(), self.ints, at);
                    let start = self.b.ins().load(types::I32, mem(), self.ints, at + 4);
                    let st = self.b.ins().load(types::I32, mem(), self.ints, at + 8);
                    self.b.def_var(remaining, count);
                    let cur = self.b.use_var(self.al);
                    self.b.def_var(saved, cur);
                    self.b.def_var(step, st);
                    if al {
                        self.b.def_var(self.al, start);
                    }
                    // C15: the count is unsigned; zero skips the body.
                    self.b
                        .ins()
                        .brif(count, block(pc + 1), &[], block(end as usize + 1), &[]);
                    terminated = true;
                }
                Op::EndLoop { start } => {
                    self.check_limit();
                    let Op::Loop { al, .. } = ops[start as usize - 1] else {
                        return Err("endloop without its loop".into());
                    };
                    let [remaining, saved, step] =
                        self.loops[start as usize - 1].expect("a loop's variables");
                    let r = self.b.use_var(remaining);
                    let r = self.b.ins().iadd_imm_s(r, -1);
                    self.b.def_var(remaining, r);
                    if al {
                        let a = self.b.use_var(self.al);
                        let s = self.b.use_var(step);
                        let a = self.b.ins().iadd(a, s);
                        self.b.def_var(self.al, a);
                    }
                    let done = self.b.create_block();
                    self.b.ins().brif(r, block(start as usize), &[], done, &[]);
                    self.b.switch_to_block(done);
                    if al {
                        let s = self.b.use_var(saved);
                        self.b.def_var(self.al, s);
                    }
                    self.b.ins().jump(block(pc + 1), &[]);
                    terminated = true;
                }
                ref other => return Err(format!("{other:?}")),
            }
        }
        if n == 0 {
            // No ops: block(0) is already the end of the group.
            self.flush_count();
        } else {
            if !terminated {
                self.flush_count();
                self.b.ins().jump(block(n), &[]);
            }
            self.b.switch_to_block(block(n));
        }
        // End of a group: the limit, then the next group or return.
        self.check_limit();
        let g = self.b.use_var(self.group);
        let g = self.b.ins().iadd_imm_s(g, 16 * K as i64);
        self.b.def_var(self.group, g);
        let more = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, g, (LANES * 4) as i64);
        let ret = self.b.create_block();
        self.b.ins().brif(more, head, &[], ret, &[]);
        self.b.switch_to_block(ret);
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.ins().return_(&[zero]);
        Ok(())
    }

    /// An operation on the lanes of interleaved group `self.k`.
    fn lanes(&mut self, op: &Op) {
        match *op {
            Op::Alu { kind, dst, src } => self.alu(kind, &dst, &src),
            Op::GatherConstA0 { dst, base, comp } => self.gather_const_a0(dst, base, comp),
            Op::GatherConstAl { dst, base } => self.gather_const_al(dst, base),
            Op::GatherInputAl { dst, base } => self.gather_input_al(dst, base),
            Op::GatherInputA0 { dst, base, comp } => self.gather_input_a0(dst, base, comp),
            _ => unreachable!("per-lane operations only"),
        }
    }

    /// Four lanes' registers (one vector each) turned into four component vectors.
    fn transpose(&mut self, v: [Value; 4]) -> [Value; 4] {
        let shuf = |b: &mut FunctionBuilder, x: Value, y: Value, lanes: [u8; 4]| {
            let bytes: Vec<u8> = lanes
                .iter()
                .flat_map(|&l| (0..4).map(move |k| l * 4 + k))
                .collect();
            let imm = b.func.dfg.immediates.push(ConstantData::from(bytes));
            let x = b.ins().bitcast(types::I8X16, bits(), x);
            let y = b.ins().bitcast(types::I8X16, bits(), y);
            let r = b.ins().shuffle(x, y, imm);
            b.ins().bitcast(F4, bits(), r)
        };
        let b = &mut self.b;
        let t0 = shuf(b, v[0], v[1], [0, 4, 1, 5]);
        let t1 = shuf(b, v[0], v[1], [2, 6, 3, 7]);
        let t2 = shuf(b, v[2], v[3], [0, 4, 1, 5]);
        let t3 = shuf(b, v[2], v[3], [2, 6, 3, 7]);
        [
            shuf(b, t0, t2, [0, 1, 4, 5]),
            shuf(b, t0, t2, [2, 3, 6, 7]),
            shuf(b, t1, t3, [0, 1, 4, 5]),
            shuf(b, t1, t3, [2, 3, 6, 7]),
        ]
    }

    /// Rows = c[base + a0.comp] per lane; outside the file, the zero register at its end.
    fn gather_const_a0(&mut self, dst: u16, base: i32, comp: u8) {
        let idx = self.b.use_var(self.a0(comp as usize));
        let last = self.b.ins().iadd_imm_s(self.nconsts, -1);
        let regs: [Value; 4] = std::array::from_fn(|l| {
            let a = self.b.ins().extractlane(idx, l as u8);
            let a = self.b.ins().sextend(types::I64, a);
            let i = self.b.ins().iadd_imm_s(a, base as i64);
            let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, last);
            let mut at = self.b.ins().select(ok, i, last);
            if crate::guard::broken_gather() != 0 {
                at = self
                    .b
                    .ins()
                    .iadd_imm_s(at, crate::guard::broken_gather() as i64);
            }
            let off = self.b.ins().imul_imm_s(at, 16);
            let addr = self.b.ins().iadd(self.consts, off);
            self.b.ins().load(F4, mem(), addr, 0)
        });
        let cols = self.transpose(regs);
        for (c, v) in cols.into_iter().enumerate() {
            self.write_row(dst + c as u16, v);
        }
    }

    /// Rows = c[base + aL] (uniform).
    fn gather_const_al(&mut self, dst: u16, base: i32) {
        let al = self.b.use_var(self.al);
        let i = self.b.ins().iadd_imm_s(al, base as i64);
        let i = self.b.ins().sextend(types::I64, i);
        let last = self.b.ins().iadd_imm_s(self.nconsts, -1);
        let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, self.nconsts);
        let at = self.b.ins().select(ok, i, last);
        let off = self.b.ins().imul_imm_s(at, 16);
        let addr = self.b.ins().iadd(self.consts, off);
        for c in 0..4 {
            let s = self.b.ins().load(types::F32, mem(), addr, c as i32 * 4);
            let v = self.b.ins().splat(F4, s);
            self.write_row(dst + c, v);
        }
    }

    /// Input register `base + index`: whether it is inside v0..v15, and the register (v0
    /// when it is not).
    fn input_index(&mut self, index: Value, base: i32) -> (Value, Value) {
        let i = self.b.ins().iadd_imm_s(index, base as i64);
        let ok = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, i, INPUTS as i64);
        let zero = self.b.ins().iconst(types::I32, 0);
        let i = self.b.ins().select(ok, i, zero);
        (ok, self.b.ins().uextend(types::I64, i))
    }

    /// Rows = v[base + aL] (uniform); outside v0..v15, zero.
    fn gather_input_al(&mut self, dst: u16, base: i32) {
        let al = self.b.use_var(self.al);
        let (ok, i) = self.input_index(al, base);
        let z = self.f(0.0);
        for c in 0..4 {
            let row = self.b.ins().imul_imm_s(i, 4);
            let row = self.b.ins().iadd_imm_s(row, INPUT_BASE as i64 + c as i64);
            let addr = self.row_addr(row);
            let off = self.lane_off();
            let v = self.b.ins().load(F4, mem(), addr, off);
            let v = self.b.ins().select(ok, v, z);
            self.write_row(dst + c, v);
        }
    }

    /// Rows = v[base + a0.comp] per lane; outside v0..v15, zero.
    fn gather_input_a0(&mut self, dst: u16, base: i32, comp: u8) {
        let idx = self.b.use_var(self.a0(comp as usize));
        let g = self.b.use_var(self.group);
        for c in 0..4u16 {
            let mut v = self.f(0.0);
            for l in 0..4u8 {
                let a = self.b.ins().extractlane(idx, l);
                let (ok, i) = self.input_index(a, base);
                let row = self.b.ins().imul_imm_s(i, 4 * ROW_BYTES);
                let off = self.b.ins().iadd(row, g);
                let addr = self.b.ins().iadd(self.arena, off);
                let off = (INPUT_BASE as i32 + c as i32) * ROW_BYTES as i32
                    + self.lane_off()
                    + l as i32 * 4;
                let x = self.b.ins().load(types::F32, mem(), addr, off);
                let zf = self.b.ins().f32const(0.0);
                let x = self.b.ins().select(ok, x, zf);
                v = self.b.ins().insertlane(v, x, l);
            }
            self.write_row(dst + c, v);
        }
    }

    /// `f32::clamp`: NaN stays NaN.
    fn clamp(&mut self, x: Value, lo: f32, hi: f32) -> Value {
        let (lo, hi) = (self.f(lo), self.f(hi));
        let m = self.cmp(FloatCC::LessThan, x, lo);
        let x = self.sel(m, lo, x);
        let m = self.cmp(FloatCC::GreaterThan, x, hi);
        self.sel(m, hi, x)
    }

    /// The polynomial with coefficients `k` (highest first) at `x`, by Horner's rule.
    fn horner(&mut self, x: Value, k: &[f32]) -> Value {
        let mut p = self.f(k[0]);
        for &c in &k[1..] {
            let t = self.b.ins().fmul(p, x);
            let c = self.f(c);
            p = self.b.ins().fadd(t, c);
        }
        p
    }

    /// 2^x as [`crate::exec::exp2`] computes it.
    fn exp2(&mut self, x: Value) -> Value {
        let x = self.clamp(x, EXP2_MIN, EXP2_MAX);
        let big = self.f(ROUNDER);
        let n = self.b.ins().fadd(x, big);
        let n = self.b.ins().fsub(n, big);
        let fr = self.b.ins().fsub(x, n);
        let p = self.horner(fr, &EXP2_POLY);
        let lowest = self.f(EXP2_MIN);
        let zero = self.cmp(FloatCC::LessThanOrEqual, n, lowest);
        let n = self.b.ins().fcvt_to_sint_sat(I4, n);
        let n1 = self.b.ins().sshr_imm_s(n, 1);
        let n2 = self.b.ins().isub(n, n1);
        let bias = self.i(127);
        let scale = |e: &mut Self, k: Value| {
            let k = e.b.ins().iadd(k, bias);
            let k = e.b.ins().ishl_imm_s(k, 23);
            e.as_f(k)
        };
        let s1 = scale(self, n1);
        let s2 = scale(self, n2);
        let one = self.f(1.0);
        let s2 = self.sel(zero, one, s2);
        let r = self.b.ins().fmul(p, s1);
        let r = self.b.ins().fmul(r, s2);
        let z = self.f(0.0);
        self.sel(zero, z, r)
    }

    /// log2(x) as [`crate::exec::log2`] computes it.
    fn log2(&mut self, x: Value) -> Value {
        let minpos = self.f(f32::MIN_POSITIVE);
        let sub = self.cmp(FloatCC::LessThan, x, minpos);
        let k = self.f(8_388_608.0);
        let scaled = self.b.ins().fmul(x, k);
        let xs = self.sel(sub, scaled, x);
        let bits = self.as_i(xs);
        let e = self.b.ins().ushr_imm_s(bits, 23);
        let ff = self.i(0xFF);
        let e = self.b.ins().band(e, ff);
        let k127 = self.i(127);
        let e = self.b.ins().isub(e, k127);
        let k23 = self.i(23);
        let sub23 = self.b.ins().band(sub, k23);
        let e = self.b.ins().isub(e, sub23);
        let mant = self.i(0x007F_FFFF);
        let one_bits = self.i(0x3F80_0000);
        let m = self.b.ins().band(bits, mant);
        let m = self.b.ins().bor(m, one_bits);
        let m = self.as_f(m);
        let sqrt2 = self.f(std::f32::consts::SQRT_2);
        let big = self.cmp(FloatCC::GreaterThan, m, sqrt2);
        let half = self.f(0.5);
        let mh = self.b.ins().fmul(m, half);
        let m = self.sel(big, mh, m);
        // `big` is all ones (-1) where true.
        let e = self.b.ins().isub(e, big);
        let one = self.f(1.0);
        let num = self.b.ins().fsub(m, one);
        let den = self.b.ins().fadd(m, one);
        let s = self.b.ins().fdiv(num, den);
        let s2 = self.b.ins().fmul(s, s);
        let p = self.horner(s2, &LOG2_POLY);
        let two = self.f(2.0);
        let two_s = self.b.ins().fmul(two, s);
        let t = self.b.ins().fmul(two_s, s2);
        let t = self.b.ins().fmul(t, p);
        let ln_m = self.b.ins().fadd(two_s, t);
        let l2e = self.f(std::f32::consts::LOG2_E);
        let r = self.b.ins().fmul(ln_m, l2e);
        let ef = self.b.ins().fcvt_from_sint(F4, e);
        let r = self.b.ins().fadd(r, ef);
        let inf = self.f(f32::INFINITY);
        let is_inf = self.cmp(FloatCC::Equal, x, inf);
        let r = self.sel(is_inf, x, r);
        let z = self.f(0.0);
        let is_zero = self.cmp(FloatCC::Equal, x, z);
        let ninf = self.f(f32::NEG_INFINITY);
        let r = self.sel(is_zero, ninf, r);
        let neg = self.cmp(FloatCC::LessThan, x, z);
        let nan = self.cmp(FloatCC::Unordered, x, x);
        let bad = self.b.ins().bor(neg, nan);
        let qnan = self.f(f32::NAN);
        self.sel(bad, qnan, r)
    }

    fn pow(&mut self, x: Value, y: Value) -> Value {
        let ax = self.b.ins().fabs(x);
        let l = self.log2(ax);
        let t = self.mul(y, l);
        self.exp2(t)
    }

    /// `x == k ? v : r`
    fn when_eq(&mut self, x: Value, k: f32, v: f32, r: Value) -> Value {
        let kv = self.f(k);
        let m = self.cmp(FloatCC::Equal, x, kv);
        let v = self.f(v);
        self.sel(m, v, r)
    }

    fn dot(&mut self, src: &[SrcRef; 3], n: usize) -> Value {
        let mut acc = None;
        for c in 0..n {
            let a = self.src(&src[0], c);
            let b = self.src(&src[1], c);
            let p = self.mul(a, b);
            acc = Some(match acc {
                None => p,
                Some(s) => self.add(s, p),
            });
        }
        acc.expect("n > 0")
    }

    fn alu(&mut self, kind: Alu, dst: &DstRef, src: &[SrcRef; 3]) {
        let mask = dst.mask;
        let on = |c: usize| mask >> c & 1 != 0;
        let mut res: [Option<Value>; 4] = [None; 4];
        let nargs = kind.componentwise_sources();
        if nargs > 0 {
            for c in (0..4).filter(|&c| on(c)) {
                let a: Vec<Value> = (0..nargs).map(|k| self.src(&src[k], c)).collect();
                let v = match kind {
                    Alu::Mov | Alu::MovA => a[0],
                    // x + (-y) is x - y in IEEE arithmetic: skip the negation.
                    Alu::Add if src[1].xor != 0 => {
                        let b = self.src_unnegated(&src[1], c);
                        self.b.ins().fsub(a[0], b)
                    }
                    Alu::Add => self.add(a[0], a[1]),
                    Alu::Mul => self.mul(a[0], a[1]),
                    Alu::Mad => {
                        let p = self.mul(a[0], a[1]);
                        self.add(p, a[2])
                    }
                    Alu::Min => {
                        let m = self.cmp(FloatCC::LessThan, a[0], a[1]);
                        self.sel(m, a[0], a[1])
                    }
                    Alu::Max => {
                        let m = self.cmp(FloatCC::GreaterThanOrEqual, a[0], a[1]);
                        self.sel(m, a[0], a[1])
                    }
                    Alu::Slt | Alu::Sge => {
                        let cc = if kind == Alu::Slt {
                            FloatCC::LessThan
                        } else {
                            FloatCC::GreaterThanOrEqual
                        };
                        let m = self.cmp(cc, a[0], a[1]);
                        let one = self.f(1.0);
                        let one = self.as_i(one);
                        let r = self.b.ins().band(m, one);
                        self.as_f(r)
                    }
                    Alu::Abs => self.b.ins().fabs(a[0]),
                    // C2: vs_1_1 `mov a0.x` floors.
                    Alu::Floor => self.b.ins().floor(a[0]),
                    Alu::Frc => {
                        let f = self.b.ins().floor(a[0]);
                        self.b.ins().fsub(a[0], f)
                    }
                    Alu::Lrp => {
                        let d = self.b.ins().fsub(a[1], a[2]);
                        let p = self.mul(a[0], d);
                        self.add(p, a[2])
                    }
                    Alu::Sgn => {
                        // a < 0: -1; a == 0: 0; otherwise (NaN too) 1.
                        let z = self.f(0.0);
                        let one = self.f(1.0);
                        let r = self.when_eq(a[0], 0.0, 0.0, one);
                        let neg = self.cmp(FloatCC::LessThan, a[0], z);
                        let m1 = self.f(-1.0);
                        self.sel(neg, m1, r)
                    }
                    _ => unreachable!("component-wise kinds"),
                };
                res[c] = Some(v);
            }
            return self.store(dst, res);
        }
        let replicated = match kind {
            Alu::Dp3 => Some(self.dot(src, 3)),
            Alu::Dp4 => Some(self.dot(src, 4)),
            Alu::Rcp => {
                let x = self.src(&src[0], 0);
                let one = self.f(1.0);
                let r = self.b.ins().fdiv(one, x);
                let r = self.when_eq(x, 1.0, 1.0, r);
                Some(self.when_eq(x, 0.0, f32::MAX, r))
            }
            Alu::Rsq => {
                let x = self.src(&src[0], 0);
                let f = self.b.ins().fabs(x);
                let one = self.f(1.0);
                let s = self.b.ins().sqrt(f);
                let r = self.b.ins().fdiv(one, s);
                let r = self.when_eq(f, 1.0, 1.0, r);
                Some(self.when_eq(f, 0.0, f32::MAX, r))
            }
            Alu::Exp => {
                let x = self.src(&src[0], 0);
                Some(self.exp2(x))
            }
            Alu::Log => {
                let x = self.src(&src[0], 0);
                let f = self.b.ins().fabs(x);
                let l = self.log2(f);
                Some(self.when_eq(f, 0.0, -f32::MAX, l))
            }
            Alu::Pow => {
                let x = self.src(&src[0], 0);
                let y = self.src(&src[1], 0);
                Some(self.pow(x, y))
            }
            _ => None,
        };
        if let Some(v) = replicated {
            return self.store(dst, [Some(v); 4]);
        }
        match kind {
            Alu::TexLdl { sampler, swizzle } => {
                let coords: [Value; 4] = std::array::from_fn(|c| self.src(&src[0], c));
                let sampler = self.b.ins().iconst(types::I32, sampler as i64);
                let texel = self.callback(
                    texldl::<4> as *const u8,
                    self.texldl_sig,
                    coords,
                    &[self.sampling, sampler],
                );
                let res = std::array::from_fn(|c| Some(texel[(swizzle >> (2 * c) & 3) as usize]));
                self.store(dst, res);
            }
            Alu::SinCos => {
                let x = self.src(&src[0], 0);
                let z = self.f(0.0);
                let r = self.callback(sincos::<4> as *const u8, self.sincos_sig, [x, z, z, z], &[]);
                self.store(dst, [Some(r[0]), Some(r[1]), Some(z), Some(z)]);
            }
            Alu::Lit => {
                let x = self.src(&src[0], 0);
                let y = self.src(&src[0], 1);
                let w = self.src(&src[0], 3);
                let power = self.clamp(w, -LIT_POWER, LIT_POWER);
                let z = self.f(0.0);
                let one = self.f(1.0);
                let xpos = self.cmp(FloatCC::GreaterThan, x, z);
                let ypos = self.cmp(FloatCC::GreaterThan, y, z);
                let r1 = self.sel(xpos, x, z);
                let both = self.b.ins().band(xpos, ypos);
                let pw = self.pow(y, power);
                let r2 = self.sel(both, pw, z);
                self.store(dst, [Some(one), Some(r1), Some(r2), Some(one)]);
            }
            Alu::Dst => {
                let ay = self.src(&src[0], 1);
                let az = self.src(&src[0], 2);
                let by = self.src(&src[1], 1);
                let bw = self.src(&src[1], 3);
                let one = self.f(1.0);
                let y = self.mul(ay, by);
                self.store(dst, [Some(one), Some(y), Some(az), Some(bw)]);
            }
            Alu::Crs => {
                let a: [Value; 3] = std::array::from_fn(|c| self.src(&src[0], c));
                let b: [Value; 3] = std::array::from_fn(|c| self.src(&src[1], c));
                let mut cross = |i: usize, j: usize| {
                    let p = self.mul(a[i], b[j]);
                    let q = self.mul(a[j], b[i]);
                    self.b.ins().fsub(p, q)
                };
                let r = [cross(1, 2), cross(2, 0), cross(0, 1)];
                self.store(dst, [Some(r[0]), Some(r[1]), Some(r[2]), None]);
            }
            Alu::Nrm => {
                let a: [Value; 4] = std::array::from_fn(|c| self.src(&src[0], c));
                let mut f = self.mul(a[0], a[0]);
                for c in 1..3 {
                    let p = self.mul(a[c], a[c]);
                    f = self.add(f, p);
                }
                let one = self.f(1.0);
                let s = self.b.ins().sqrt(f);
                let r = self.b.ins().fdiv(one, s);
                let z = self.f(0.0);
                let nz = self.cmp(FloatCC::NotEqual, f, z);
                let max = self.f(f32::MAX);
                let f = self.sel(nz, r, max);
                let out: [Value; 4] = std::array::from_fn(|c| self.mul(a[c], f));
                self.store(dst, out.map(Some));
            }
            Alu::Setp(cmp) => {
                let cc = match cmp {
                    Comparison::Gt => FloatCC::GreaterThan,
                    Comparison::Eq => FloatCC::Equal,
                    Comparison::Ge => FloatCC::GreaterThanOrEqual,
                    Comparison::Lt => FloatCC::LessThan,
                    Comparison::Ne => FloatCC::NotEqual,
                    Comparison::Le => FloatCC::LessThanOrEqual,
                };
                for c in (0..4).filter(|&c| on(c)) {
                    let a = self.src(&src[0], c);
                    let b = self.src(&src[1], c);
                    let v = self.cmp(cc, a, b);
                    let v = match self.pred_mask(dst, c) {
                        None => v,
                        Some(m) => {
                            let old = self.b.use_var(self.p0(c));
                            self.b.ins().bitselect(m, v, old)
                        }
                    };
                    self.b.def_var(self.p0(c), v);
                }
            }
            _ => unreachable!("supported() admits only these kinds"),
        }
    }

    /// Call `f(leading..., io)` with `io` (four vectors) in the stack slot; the four vectors
    /// it leaves there.
    fn callback(
        &mut self,
        f: *const u8,
        sig: SigRef,
        io: [Value; 4],
        leading: &[Value],
    ) -> [Value; 4] {
        for (c, v) in io.into_iter().enumerate() {
            self.b
                .ins()
                .stack_store(self.ptr, v, self.io, c as i32 * 16);
        }
        let at = self.b.ins().stack_addr(self.ptr, self.io, 0);
        let callee = self.b.ins().iconst(self.ptr, f as i64);
        let mut args = leading.to_vec();
        args.push(at);
        self.b.ins().call_indirect(sig, callee, &args);
        std::array::from_fn(|c| {
            self.b
                .ins()
                .stack_load(self.ptr, F4, self.io, c as i32 * 16)
        })
    }

    /// The lanes a predicated write reaches (all lanes run: flow here is uniform).
    fn pred_mask(&mut self, dst: &DstRef, c: usize) -> Option<Value> {
        let p = dst.pred?;
        let m = self.b.use_var(self.p0(p.comps[c] as usize));
        Some(if p.not { self.b.ins().bnot(m) } else { m })
    }

    fn store(&mut self, dst: &DstRef, res: [Option<Value>; 4]) {
        for (c, v) in res.into_iter().enumerate() {
            let (true, Some(v)) = (dst.mask >> c & 1 != 0, v) else {
                continue;
            };
            let v = if dst.sat {
                // _sat: clamp to [0, 1]; NaN becomes 0.
                let (z, one) = (self.f(0.0), self.f(1.0));
                let lt1 = self.cmp(FloatCC::LessThan, v, one);
                let m = self.sel(lt1, v, one);
                let pos = self.cmp(FloatCC::GreaterThan, v, z);
                self.sel(pos, m, z)
            } else {
                v
            };
            let wm = self.pred_mask(dst, c);
            match dst.kind {
                DstKind::Rows(row) => {
                    let row = row + c as u16;
                    let v = match wm {
                        None => v,
                        Some(m) => {
                            let old = self.read_row(row);
                            self.sel(m, v, old)
                        }
                    };
                    self.write_row(row, v);
                }
                DstKind::Addr => {
                    // C3: round half to even, saturating; NaN -> 0.
                    let r = self.b.ins().nearest(v);
                    let r = self.b.ins().fcvt_to_sint_sat(I4, r);
                    let r = match wm {
                        None => r,
                        Some(m) => {
                            let old = self.b.use_var(self.a0(c));
                            self.b.ins().bitselect(m, r, old)
                        }
                    };
                    self.b.def_var(self.a0(c), r);
                }
                DstKind::Pred | DstKind::OutputByLoop(_) => {
                    unreachable!("setp stores its own masks; o[aL] is not compiled")
                }
            }
        }
    }
}
