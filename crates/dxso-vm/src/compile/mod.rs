//! The compiled tier: a lowered [`Program`] translated into machine code that runs a whole
//! batch with temporaries held in registers. Two code generators: dxso's own x86-64 one
//! (`x86/`) at two widths from one source — AVX-512 (16 lanes per instruction, with fetch
//! and store fused where the draw's layout allows) where the instruction-set path is
//! AVX-512, AVX2 (8 lanes per instruction, fused alike, the same programs) where it is AVX2
//! — and Cranelift (`cranelift/`,
//! four lanes per instruction, any processor Cranelift targets) elsewhere or where the
//! first fails. This module is the tier choice ([`Tier`], [`CodeGenerator`], [`compile`]) and the
//! code ABI: what generated code receives ([`Entry`], [`Args`], and for fused code
//! [`Layout`] and [`BatchIo`]) and the callbacks it may call (`texldl`, `sincos`,
//! `pixel_sample`).
//!
//! It covers programs whose flow control is uniform (`if b#`, `loop`/`rep`, `ret` ending
//! the program) and, in the x86 generator's code, every other kind: dynamic `if`/`else`
//! and `break`s (per-lane execution masks, the instruction count exactly the interpreter's:
//! see `x86/flow.rs`), `o[aL]` destinations, and subroutines (inlined first:
//! `Program::inline_calls`, up to a bound on the inlined size). What a generator does not
//! compile runs on the interpreter, which stays the reference. `texldl` and `sincos` call back into Rust (the
//! interpreter's own sampler and `f32::sin`/`cos`).
//!
//! Pixel programs ([`crate::PixelRunner`]) compile on both generators (the x86 one at both
//! widths; Cranelift's without dynamic flow, as for vertices; not yet `texbem`, `bem`,
//! `texbeml` and `texm3x3spec`/`vspec`: see [`supported`]): their arena is the
//! runner's, set up as the interpreter finds it (inputs, vPos, vFace, the kill, zero and
//! one rows, the depth; temporaries and outputs cleared), so the code zeroes no row of it
//! (Cranelift's keeps every pixel row in the arena); `texkill` sets the kill row where a
//! component is below 0, `dsx`/`dsy` are differences within each quad (a group's lanes are
//! whole quads: 16 or 8 lanes, Cranelift's 4 one quad), and every sample (`texld`,
//! `texldp`, `texldb`, `texldl`, `texldd`, the ps_1_x `tex` forms) calls back into the
//! interpreter's own sampler (`pixel_sample`) with the coordinates of whole quads (the x86
//! code's pass of groups, 16 to 64 lanes, in one call; Cranelift's quad), so the implicit
//! level of detail sees each lane's quad. The x86 pixel code is the exact code alone (no
//! fast products: `x86/finite.rs` does not know the pixel ops). Every operation is the interpreter's
//! formula written again, in the same order of rounding (products with the zero rule C8, no
//! fused multiply-add, the same polynomial exp2/log2), so all tiers give bit-identical
//! outputs; tests compare them on random programs and on every corpus shader. (The x86
//! code's products are `fma(x, y, +0)`, which is the rule for finite factors; the code
//! checks that and hands a batch where it fails to its exact twin: `x86/finite.rs`.)
//!
//! Cranelift's memory (`cranelift/`): inputs and constants are read from the batch arena (constant rows
//! there are already broadcast), outputs are written to it; temporaries, gathered operands,
//! a0 and p0 are Cranelift variables.
//!
//! # Module graph
//!
//! The crate's modules import one another without circles: `math` (rows, exp2/log2) and
//! `guard` (arenas) at the bottom; `program` (lowering) and `inline` (calls inlined, over
//! `program`); `texture` (sampling) and `fetch`
//! (streams, declaration types) over them; `exec` (the interpreter and the draw's
//! [`Uniforms`]) over those, with the pixel ops' parts beside it (`pixel::lower`,
//! `pixel::quad`, `pixel::exec`, and the plain struct `pixel::Stages`); `compile` (this
//! module) over `exec`, `fetch`, `texture` and those pixel parts,
//! with `cranelift` and `x86` beneath it importing only `compile`'s ABI and the modules
//! below; `trace` over `exec`; `draw` (a draw's batches) and `pixel`'s runner
//! (`PixelState`, `PixelRunner`) over `compile` and `exec`; `device`
//! (the D3D9 state) over `draw`; `by_name` over `device`. Nothing outside `compile/` knows
//! machine code.
//!
//! # What generated code touches, and why nothing else
//!
//! Machine code from either generator is `unsafe` to run; this is the argument that it stays
//! inside memory the draw owns. It reads and writes only through the pointers of one call
//! ([`Entry`], and for fused x86 code its `BatchIo`), never through an address computed
//! from shader data except as follows:
//! - **The batch arena** (`rows`): every row the code addresses is a constant offset below
//!   `program.rows` (lowering numbers them), and [`Args::new`] asserts that the arena holds
//!   `program.rows` rows. Relative input reads (`v[aL]`, `v[a0]`) compare each index with
//!   the 16 input registers (unsigned, so negative ones fail) and, outside, load from index
//!   0 (Cranelift's code, and the x86 code's uniform `v[aL]` at AVX2 width, which then
//!   ands the rows with zero) or not at all (the x86 code's gathers, and its `v[aL]` at
//!   AVX-512 width, mask those lanes' loads off), giving zero. `o[aL + n]` writes (x86 code
//!   only) compare the register with the 16 outputs (unsigned) and, outside, write to a
//!   scratch area of the stack frame instead.
//! - **The constant file**: relative reads (`c[a0.x + n]`, `c[aL + n]`) clamp each lane's
//!   index into the file or onto the zero register that follows it (unsigned compares, so
//!   negative indices clamp too); the x86 code (either width) then reads up to [`CONST_PAD`]
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
//! - **The stack frame** of the function itself, and the callbacks (`texldl`, `sincos`,
//!   `pixel_sample`) with a frame slot of `4 * N` floats (`pixel_sample`: `12 * N`, `N` the
//!   lanes of the x86 code's pass, at most 64) they read and write; the x86 slot holds 12
//!   rows of 64 lanes (`x86::IO_BYTES`), Cranelift's 12 vectors of 4.
//! - **Pixel code's seventh argument** is the draw's `pixel::Stages` (in place of the
//!   vertex [`Sampling`]): the code never reads through it, it only hands it to
//!   `pixel_sample`, which reads it as the `Stages` it is, for the length of the call
//!   ([`Jit::run_pixel`] borrows it). Pixel code's arena is the runner's `Machine` arena,
//!   of `program.rows` rows ([`Args::new`] asserts it, as for vertices).
//!
//! W^X: code is never writable and executable at once. The x86 generator assembles into
//! a buffer, copies it into an anonymous read-write mapping, and turns that mapping
//! read-execute (`memmap2::MmapMut::make_exec`, an `mprotect`) before taking its address;
//! the `Mmap` is never made writable again and is unmapped when the code is dropped.
//! Cranelift's `JITModule` does the same at `finalize_definitions` (its pages become
//! read-execute), and the module is only read afterwards.
//!
//! The stack: compiled vertex code runs only on threads dxso built, with [`STACK_BYTES`] (8 MiB) of
//! stack each — the pool a device's `set_threads` makes, or [`default_pool`] — whoever calls
//! the draw (a caller's thread, or a pool with small stacks, as a test holds); the x86
//! generator refuses a program whose frame would pass [`x86::MAX_FRAME`] (256 KiB), checked
//! against the stack at compile time. Compiled pixel code runs on the thread that calls
//! [`crate::PixelRunner::run`] (the rasterizer's): its frame is held to
//! [`x86::MAX_PIXEL_FRAME`] (64 KiB; more: the interpreter runs the program), which with
//! the sampling callback's frame fits many times in the smallest stack Rust gives a thread
//! (2 MiB, `std::thread` and rayon's default); a caller that runs pixel batches on a thread
//! of less stack than that is outside this argument. The calling convention is declared, not assumed: every
//! entry and callback type is `extern "sysv64"` on x86-64 (`code_abi!`), the convention the
//! generated code uses on every OS, and Cranelift's signatures are made with `SystemV`.
//!
//! Panics: generated code has no unwind tables, and the callbacks are `extern "C"` (a panic
//! leaving one would abort). Each callback's body runs under `catch_unwind`; a panic there
//! gives zeros to the code, is recorded for the thread, and the draw returns
//! [`crate::VmError::Panicked`] after the batch. A panic elsewhere in a draw's worker (the
//! interpreter, fetch) is caught around the worker's batches and is the same error.
//!
//! Tested, not only argued: in the guard-page test mode ([`crate::Options::guard_pages`],
//! [`crate::Device::set_guard_pages`]; see the `guard` module) a draw's batch arenas, padded
//! constant file, streams, index buffer and output records each end at an inaccessible
//! page, so an access past one by generated code faults. A test build can compile a
//! deliberately broken `c[a0.x]` gather (one register past the padded file); the
//! `guard_tests` show the mode turning it into SIGSEGV for every generator and width, and the
//! `tests/it/guard.rs` suite runs workloads and edge cases guarded with unguarded bits. Not
//! covered: pixel code (a `PixelState` has no guarded mode), the stack frame and the callbacks' slot, the integer and boolean files, and an
//! access that lands inside another buffer of the same draw (a record of another batch in
//! the output slice, before the start of a buffer by less than its slack to the page).
//!
//! [`crate::Options::jit_dump`] (`DXSO_JIT_DUMP` in the faces) prints each program Cranelift
//! compiles as machine code to stderr (the x86 generator writes it to a file: see there);
//! [`crate::Options::jit_why`] (`DXSO_JIT_WHY=1`) prints why a program is not compiled.

mod cranelift;
mod x86;

use crate::Options;
use crate::exec::{CONST_PAD, Isa, Uniforms};
use crate::fetch::DeclType;
use crate::math::Row;
use crate::pixel::exec::sample_rows;
use crate::pixel::lower::SampleMode;
use crate::pixel::{PixelOp, Stages};
use crate::program::*;
use crate::texture::Sampling;

/// How a device runs its shader. Both tiers give identical results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Machine code compiled from the program where the compiled tier covers it (see the
    /// `compile` module), the interpreter elsewhere.
    /// The default.
    Compiled,
    /// Always the interpreter.
    Interpreted,
}

/// The compiled tier's code generators: dxso's x86-64 one at AVX-512 width (16 lanes per
/// instruction) where the instruction-set path is [`crate::Isa::Avx512`], the same at AVX2
/// width (8 lanes per instruction, the same programs) where the path is
/// [`crate::Isa::Avx2`], and Cranelift (four lanes per instruction, any processor
/// Cranelift targets) elsewhere or where the first fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeGenerator {
    /// dxso's x86-64 code generator at AVX-512 width.
    Avx512,
    /// dxso's x86-64 code generator at AVX2 width.
    Avx2,
    /// Cranelift.
    Cranelift,
}

/// Declares function-pointer types and callbacks with the calling convention generated code
/// uses, stated rather than assumed: System V (`extern "sysv64"`) on x86-64, on every
/// operating system — the x86 generator passes arguments in rdi, rsi, rdx, ... and
/// Cranelift is told the same (`cranelift::call_conv`) — so that on Windows, where
/// `extern "C"` is the Win64 convention, nothing is called with its arguments in the wrong
/// registers. Elsewhere (only Cranelift's code runs there) the platform's C convention.
macro_rules! code_abi {
    ($(#[$m:meta])* $vis:vis type $name:ident = unsafe fn($($arg:ty),* $(,)?) -> $ret:ty;) => {
        $(#[$m])*
        #[cfg(target_arch = "x86_64")]
        $vis type $name = unsafe extern "sysv64" fn($($arg),*) -> $ret;
        $(#[$m])*
        #[cfg(not(target_arch = "x86_64"))]
        $vis type $name = unsafe extern "C" fn($($arg),*) -> $ret;
    };
    ($(#[$m:meta])* $vis:vis fn $name:ident<const N: usize>($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$m])*
        #[cfg(target_arch = "x86_64")]
        $vis extern "sysv64" fn $name<const N: usize>($($arg: $ty),*) $body
        $(#[$m])*
        #[cfg(not(target_arch = "x86_64"))]
        $vis extern "C" fn $name<const N: usize>($($arg: $ty),*) $body
    };
}

code_abi! {
    /// `(arena, consts, consts.len(), ints, bools, max_instructions, sampling) -> 0, or 1 when
    /// a vertex runs more than `max_instructions`.
    pub(crate) type Entry = unsafe fn(
        *mut f32,
        *const f32,
        u64,
        *const i32,
        *const u8,
        u64,
        *const Sampling,
    ) -> u32;
}

code_abi! {
    /// `texldl` on `N` lanes (4 for Cranelift's code, 16 or 8 for the x86 code's widths): `io` holds the
    /// coordinates as four component rows of `N` lanes on entry, the texels in the same layout
    /// on return.
    pub(crate) fn texldl<const N: usize>(
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
}

code_abi! {
    /// `sincos` on `N` lanes: `io[0..N]` = x on entry; cos x in `io[0..N]`, sin x in
    /// `io[N..2N]` on return.
    pub(crate) fn sincos<const N: usize>(io: *mut f32) {
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
}

code_abi! {
    /// A pixel program's texture sample (`PixelOp::Sample`) on `N` lanes of whole quads (16,
    /// 32 or 64, the x86 code's pass of groups; 4, Cranelift's): `stages` is the draw's [`Stages`] (pixel code's entry
    /// takes it in place of the [`Sampling`]), `what` is the sampler | the [`SampleMode`]'s
    /// number << 8, and `io` holds twelve rows of `N` floats: the coordinates' four
    /// component rows, then (texldd) the x and the y gradients' on entry; the texel's four
    /// component rows on return. The interpreter's own sampling, so the same bits.
    pub(crate) fn pixel_sample<const N: usize>(
        stages: *const Stages<'_>,
        what: u32,
        io: *mut f32,
    ) {
        // SAFETY: the compiled pixel code passes the draw's stages (alive for the call that
        // runs the code) and its 12 * N float slot.
        let (stages, io) = unsafe { (&*stages, std::slice::from_raw_parts_mut(io, 12 * N)) };
        callback("texture sampling", io, |io| {
            let rows = |k: usize| {
                let mut r = [[0.0f32; N]; 4];
                for (c, row) in r.iter_mut().enumerate() {
                    row.copy_from_slice(&io[(4 * k + c) * N..(4 * k + c + 1) * N]);
                }
                r
            };
            let mode = SampleMode::ALL
                .get((what >> 8) as usize)
                .copied()
                .unwrap_or(SampleMode::Implicit);
            let c = rows(0);
            // The gradients are only texldd's (the slot's other rows hold nothing then).
            let grad = (mode == SampleMode::Grad).then(|| [rows(1), rows(2)]);
            // The texel's rows go straight to the slot's first four.
            let (rows, _) = io.as_chunks_mut::<N>();
            if let Ok(out) = <&mut [[f32; N]; 4]>::try_from(&mut rows[..4]) {
                sample_rows(Some(stages), what as u8, mode, &c, grad.as_ref(), out);
            }
        });
    }
}

thread_local! {
    /// The callback that panicked during the batch this thread runs, if one did.
    static CALLBACK_PANIC: std::cell::Cell<Option<&'static str>> =
        const { std::cell::Cell::new(None) };
}

/// A callback's body, run so that a panic never unwinds into generated code (which has no
/// unwind tables; from an `extern` function it would abort the process): it is caught
/// here, the results are zeros, and the panic is recorded for [`take_callback_panic`], which
/// the draw calls after the batch and turns into an error.
fn callback(name: &'static str, io: &mut [f32], body: impl FnOnce(&mut [f32])) {
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&mut *io)));
    if caught.is_err() {
        io.fill(0.0);
        CALLBACK_PANIC.with(|p| p.set(Some(name)));
    }
}

/// The stack of every thread dxso runs compiled code on (its own pools': see
/// `Device::set_threads` and [`default_pool`]): room for the largest frame the x86 generator
/// makes ([`x86::MAX_FRAME`]), Cranelift's frames (smaller: no spill area per flow level) and
/// the callbacks', many times over.
pub(crate) const STACK_BYTES: usize = 8 << 20;

const _: () = assert!(x86::MAX_FRAME as usize * 8 <= STACK_BYTES);

/// The pool draws run on when the device has none of its own: built by dxso with
/// [`STACK_BYTES`] of stack a thread, so compiled code never runs on a thread whose stack
/// dxso did not size (a caller's thread, or a pool a caller built).
pub(crate) fn default_pool() -> Result<&'static rayon::ThreadPool, crate::VmError> {
    static POOL: std::sync::OnceLock<Result<rayon::ThreadPool, String>> =
        std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(STACK_BYTES)
            .thread_name(|i| format!("dxso-vm-{i}"))
            .build()
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|e| crate::VmError::Threads(e.clone()))
}

/// Test builds: the names of the threads draws ran on (see `Device::draw_into`).
#[cfg(test)]
pub(crate) static DRAW_THREADS: std::sync::Mutex<Vec<Option<String>>> =
    std::sync::Mutex::new(Vec::new());

/// The callback that panicked during this thread's last batch of compiled code (cleared).
pub(crate) fn take_callback_panic() -> Option<&'static str> {
    CALLBACK_PANIC.with(|p| p.take())
}

/// A program compiled to machine code, by one of the code generators.
pub(crate) struct Jit {
    code: Generated,
    entry: Entry,
    /// The x86 code's exact version, for the batches its fast code hands back.
    exact: Option<Entry>,
    odds: Odds,
}

/// How often a program's fast code hands its batches back to the exact code. A batch handed
/// back costs both runs, so where many are (data full of infinities and NaN), the exact
/// code runs alone; the odds are counted on, so it is tried again when they improve.
#[derive(Default)]
struct Odds {
    batches: std::sync::atomic::AtomicU64,
    handed_back: std::sync::atomic::AtomicU64,
}

impl Odds {
    /// Whether the fast code is worth a try: at most one batch in eight handed back (the
    /// fast code saves less than an eighth of a batch's time), after a first few.
    fn worth_trying(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        self.handed_back.load(Relaxed) * 8 <= self.batches.load(Relaxed) + 8
    }

    /// Count a batch. The counters are shared by the draw's threads: written for every
    /// batch, the cache line they sit in made W1 8 % slower. So each thread adds its
    /// batches 64 at a time (and with each one handed back), whatever program they were.
    fn count(&self, handed_back: bool) {
        use std::sync::atomic::Ordering::Relaxed;
        thread_local! {
            static BATCHES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        }
        let n = BATCHES.get() + 1;
        if handed_back {
            self.handed_back.fetch_add(1, Relaxed);
        }
        if handed_back || n == 64 {
            self.batches.fetch_add(n, Relaxed);
            BATCHES.set(0);
        } else {
            BATCHES.set(n);
        }
    }
}

/// Run a batch by `call`: on the fast code, and on the exact code where the fast code hands
/// it back or is not worth trying (see [`Odds`]); the last run's status.
fn run_batch<E: Copy>(fast: E, exact: Option<E>, odds: &Odds, call: impl Fn(E) -> u32) -> u32 {
    let Some(exact) = exact else {
        return call(fast);
    };
    if odds.worth_trying() {
        let status = call(fast);
        let handed_back = status == x86::RERUN;
        odds.count(handed_back);
        if !handed_back {
            return status;
        }
    } else {
        odds.count(false);
    }
    // The exact code starts the batch afresh: it reads only the inputs and uniforms, which
    // the fast code leaves as they were, and writes every output the fast code wrote.
    call(exact)
}

/// What keeps a generator's code mapped.
enum Generated {
    Cranelift(#[allow(dead_code)] Box<cranelift::Code>),
    X86(#[allow(dead_code)] x86::Code, x86::Width),
}

impl std::fmt::Debug for Jit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Jit")
    }
}

impl Jit {
    /// The code generator that made this code.
    pub(crate) fn generator(&self) -> CodeGenerator {
        match self.code {
            Generated::X86(_, x86::Width::Zmm) => CodeGenerator::Avx512,
            Generated::X86(_, x86::Width::Ymm) => CodeGenerator::Avx2,
            Generated::Cranelift(_) => CodeGenerator::Cranelift,
        }
    }

    /// Run the program over the batch in `rows` (inputs fetched, outputs cleared). `false`
    /// when the instruction limit was passed.
    pub(crate) fn run(&self, rows: &mut [Row], program: &Program, u: &Uniforms) -> bool {
        let a = Args::new(rows, program, u);
        let status = run_batch(self.entry, self.exact, &self.odds, |entry| {
            // SAFETY: see `Args::new`.
            unsafe {
                entry(
                    a.arena, a.consts, a.nconsts, a.ints, a.bools, a.max, a.sampling,
                )
            }
        });
        status == 0
    }

    /// Run a pixel program over the batch in `rows` (set up as the interpreter's run finds
    /// it: inputs, vPos, vFace, the kill and constant rows, the depth, temporaries and
    /// outputs cleared), sampling from `stages`. `false` when the instruction limit was
    /// passed.
    pub(crate) fn run_pixel(
        &self,
        rows: &mut [Row],
        program: &Program,
        u: &Uniforms,
        stages: &Stages,
    ) -> bool {
        let a = Args::new(rows, program, u);
        // Pixel code reads its seventh argument as the draw's stages (`pixel_sample`).
        let stages: *const Stages = stages;
        let status = run_batch(self.entry, self.exact, &self.odds, |entry| {
            // SAFETY: as for `Jit::run` (see `Args::new`); pixel code hands its seventh
            // argument to `pixel_sample` only, which reads it as the `Stages` it is.
            unsafe {
                entry(
                    a.arena,
                    a.consts,
                    a.nconsts,
                    a.ints,
                    a.bools,
                    a.max,
                    stages.cast(),
                )
            }
        });
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
    pub(crate) fn new(rows: &mut [Row], program: &Program, u: &Uniforms<'a>) -> Args<'a> {
        assert!(rows.len() >= program.rows, "the arena holds every row");
        Args {
            arena: rows.as_mut_ptr().cast(),
            // The constants' address, from the padded file (the AVX-512 code reads its
            // padding).
            consts: u.padded_consts[CONST_PAD..].as_flattened().as_ptr(),
            nconsts: u.consts.len() as u64,
            ints: u.ints.as_flattened().as_ptr(),
            bools: u.bools.as_ptr().cast(),
            max: u.max_instructions,
            sampling: u.sampling,
        }
    }
}

/// How a draw's vertices reach code compiled for it: the input registers the program reads,
/// each fed by elements of a declaration type (any but UNUSED) `stride` bytes apart, one
/// vertex after another. Such code loads its inputs from the vertex streams and writes
/// finished output records itself (fetch and store fused into the shader); it runs full
/// batches only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// (input register, element type, stride)
    pub inputs: Vec<(u8, DeclType, u32)>,
    /// Per stream, the input register whose element comes first in a vertex: the next
    /// batch's vertices are prefetched from its address on.
    pub streams: Vec<u8>,
    /// Vertices are read through the draw's index buffer (each stream then holds less than
    /// 2 GiB, so element offsets are 32-bit).
    pub indexed: bool,
}

/// What fused code reads per batch: where the element of the batch's first vertex is for
/// each input register (indexed draws: of vertex 0), where the batch's first output record
/// goes, and (indexed draws) the batch's first index.
#[repr(C)]
pub(crate) struct BatchIo {
    pub inputs: [*const u8; 16],
    pub out: *mut f32,
    pub indices: *const u32,
    /// Indexed draws: the next batch's first index, or where there is none, this batch's
    /// (only prefetches follow it).
    pub ahead: *const u32,
}

code_abi! {
    /// `Entry` with the batch's [`BatchIo`] last.
    pub(crate) type FusedEntry = unsafe fn(
        *mut f32,
        *const f32,
        u64,
        *const i32,
        *const u8,
        u64,
        *const Sampling,
        *const BatchIo,
    ) -> u32;
}

/// Code compiled for one [`Layout`].
pub(crate) struct Fused {
    _maps: Vec<memmap2::Mmap>,
    pub(crate) layout: Layout,
    entry: FusedEntry,
    /// The exact code for the batches `entry` hands back (see [`Jit`]).
    exact: Option<FusedEntry>,
    odds: Odds,
}

impl std::fmt::Debug for Fused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fused({:?})", self.layout)
    }
}

impl Fused {
    /// Run a full batch: inputs read from where `io` says, output records written there
    /// (the arena's output rows cleared before). `false` when the instruction limit was
    /// passed.
    pub(crate) fn run(
        &self,
        rows: &mut [Row],
        program: &Program,
        u: &Uniforms,
        io: &BatchIo,
    ) -> bool {
        let a = Args::new(rows, program, u);
        let status = run_batch(self.entry, self.exact, &self.odds, |entry| {
            // SAFETY: as for `Jit::run`; the caller gives a BatchIo whose input elements
            // and output records exist for all 64 vertices, in the layout the code was made
            // for.
            unsafe {
                entry(
                    a.arena, a.consts, a.nconsts, a.ints, a.bools, a.max, a.sampling, io,
                )
            }
        });
        status == 0
    }
}

// SAFETY: the mappings hold finished, read-only code (as for `Jit`), and its entry points
// touch nothing but the memory passed to each call.
unsafe impl Send for Fused {}
// SAFETY: as for `Send`: `run` takes `&self` and only reads the code and its counters
// (atomics).
unsafe impl Sync for Fused {}

/// Whether the compiled tier can run `p`, and if not, why: every op and every kind of flow
/// control (the x86 code generator's; Cranelift's refuses dynamic flow, calls and `o[aL]`,
/// see `cranelift::generate`), with source modifiers no other than negation
/// and `_abs`. Pixel programs: their arithmetic (`cmp`, `cnd`, `dp2add`, `dsx`/`dsy`, the
/// ps_1_x modifiers and shifts, `texkill`), texture sampling, `texdepth`/`texm3x2depth`'s
/// depth ratio and `texcrd`'s `_dz`/`_dw` division; not yet the ps_1_x texture-addressing
/// steps that read the stage states or write rows unmasked (`texbem`/`bem`'s bump,
/// `texbeml`'s luminance, `texm3x3spec`/`vspec`'s reflection), whose programs run on the
/// interpreter.
pub(crate) fn supported(p: &Program) -> Result<(), String> {
    let pixel = p.pixel.is_some();
    for op in &p.ops {
        match op {
            Op::Pixel(
                PixelOp::Sample { .. } | PixelOp::DepthRatio { .. } | PixelOp::Divide { .. },
            ) if pixel => {}
            Op::Pixel(other) => {
                let what = match other {
                    PixelOp::Bump { .. } => "texbem/bem",
                    PixelOp::Luminance { .. } => "texbeml",
                    PixelOp::Reflect { .. } => "texm3x3spec/vspec",
                    PixelOp::Sample { .. }
                    | PixelOp::DepthRatio { .. }
                    | PixelOp::Divide { .. } => "a pixel op in a vertex program",
                };
                return Err(format!("pixel shader: {what}"));
            }
            Op::Alu {
                kind: Alu::TexLdl { .. },
                ..
            } if pixel => return Err("texldl in a pixel program".into()),
            _ if !pixel && op.pixel_only() => return Err("a pixel op in a vertex program".into()),
            Op::Alu { src, .. } => {
                for s in src {
                    if !(s.and == u32::MAX || s.and == !SIGN) || !(s.xor == 0 || s.xor == SIGN) {
                        return Err("source modifier".into());
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Compile `p` (see [`supported`]); `Err` says why not. Where `isa` is AVX-512 or AVX2,
/// the x86 code generator at that width runs first and Cranelift only if it fails (it
/// should not: a failure is a bug, which [`Options::jit_why`] shows). A failure inside a
/// code generator (a processor it cannot target, say; even a panic) is an `Err` too: the
/// draw then runs on the interpreter. `isa` is `options.isa`; [`Options::jit_why`] prints
/// each reason to stderr.
pub(crate) fn compile(p: &Program, options: &Options) -> Result<Jit, String> {
    let why = |generator: &str, e: &str| why(options, generator, e);
    supported(p).inspect_err(|e| why("compiled tier", e))?;
    let width = match options.isa {
        Isa::Avx512 => Some((x86::Width::Zmm, "AVX-512")),
        Isa::Avx2 => Some((x86::Width::Ymm, "AVX2")),
        Isa::Base => None,
    };
    let mut failed = None;
    if let Some((w, name)) = width {
        match guarded(|| x86::compile(p, w, options)) {
            Ok(code) => {
                return Ok(Jit {
                    entry: code.entry,
                    exact: code.exact,
                    odds: Odds::default(),
                    code: Generated::X86(code, w),
                });
            }
            Err(e) => {
                why(name, &e);
                failed = Some(format!("{name}: {e}"));
            }
        }
    }
    let dump = options.jit_dump.is_some();
    let code = guarded(|| cranelift::generate(p, dump))
        .inspect_err(|e| why("Cranelift", e))
        // Both failed: the x86 generator's reason first.
        .map_err(|e| match &failed {
            Some(x86) => format!("{x86}; Cranelift: {e}"),
            None => e,
        })?;
    Ok(Jit {
        entry: code.entry,
        exact: None,
        odds: Odds::default(),
        code: Generated::Cranelift(Box::new(code)),
    })
}

/// Compile `p` with fetch and store fused for draws laid out as `layout` says (see
/// [`Layout`]), by the x86 code generator at the width of `generator`, which compiled the
/// unfused code (Cranelift's code is never fused).
pub(crate) fn compile_fused(
    p: &Program,
    layout: &Layout,
    generator: CodeGenerator,
    options: &Options,
) -> Option<Fused> {
    supported(p).ok()?;
    let (w, name) = match generator {
        CodeGenerator::Avx512 => (x86::Width::Zmm, "AVX-512 (fused)"),
        CodeGenerator::Avx2 => (x86::Width::Ymm, "AVX2 (fused)"),
        CodeGenerator::Cranelift => return None,
    };
    guarded(|| x86::compile_fused(p, layout, w, options))
        .inspect_err(|e| why(options, name, e))
        .ok()
}

/// A code generator's result, its panic turned into an `Err`.
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err("the code generator failed".to_string()))
}

/// Say why a program is not compiled, when [`Options::jit_why`] asks.
fn why(options: &Options, generator: &str, e: &str) {
    if options.jit_why {
        eprintln!("dxso: {generator}: not compiled: {e}");
    }
}

/// Test builds only: registers that compiled gathers of `c[a0.x + n]` add to each lane's
/// clamped index — 0, or with `DXSO_TEST_BREAK_GATHER=1` in the environment
/// `CONST_PAD + 1`, which moves a lane clamped to the zero register one register past
/// the padded constant file: the deliberately broken access the guard-page tests catch.
#[cfg(test)]
pub(crate) fn broken_gather() -> i32 {
    if std::env::var("DXSO_TEST_BREAK_GATHER").as_deref() == Ok("1") {
        CONST_PAD as i32 + 1
    } else {
        0
    }
}

/// Outside test builds, gathers are never broken.
#[cfg(not(test))]
pub(crate) const fn broken_gather() -> i32 {
    0
}

#[cfg(test)]
mod odds_tests {
    use super::*;
    use std::cell::Cell;

    /// `n` batches through [`run_batch`] with a fast code that hands every batch back when
    /// `bad` (and an exact code, or none): how many ran the fast code, and whether every
    /// batch ended with the exact code's status (0).
    fn batches(odds: &Odds, n: usize, bad: bool, exact: Option<bool>) -> (usize, bool) {
        let fast_runs = Cell::new(0);
        let mut right = true;
        for _ in 0..n {
            let status = run_batch(true, exact, odds, |fast| {
                if fast {
                    fast_runs.set(fast_runs.get() + 1);
                    if bad { x86::RERUN } else { 0 }
                } else {
                    0
                }
            });
            right &= status == 0;
        }
        (fast_runs.get(), right)
    }

    #[test]
    fn fast_code_that_hands_most_batches_back_is_tried_less_then_again() {
        let odds = Odds::default();
        // Data full of infinities: after a first few, at most one batch in eight tries it.
        let (tried, right) = batches(&odds, 1000, true, Some(false));
        assert!(right);
        assert!((3..=125).contains(&tried), "{tried}");
        // Finite data again: the fast code comes back, and stays.
        let (tried, right) = batches(&odds, 1000, false, Some(false));
        assert!(right);
        assert!(tried > 900, "{tried}");
        // Without an exact version, the fast code is all there is.
        let (tried, _) = batches(&Odds::default(), 10, true, None);
        assert_eq!(tried, 10);
    }
}
