//! The compiled tier's x86-64 code generator: the same translation as the Cranelift one
//! (`compile/cranelift`), written as x86-64 machine code (assembled with iced-x86) that works on 16
//! lanes per instruction (AVX-512: zmm registers, k masks) or 8 (AVX2: ymm registers, masks
//! as vector registers with compares, and-s and blends) — Cranelift's x86-64 backend emits
//! 128-bit vectors only. Both widths are this one source: [`Width`] (in `asm`) says which,
//! `vx!` emits an instruction at it, and the few places where AVX2 lacks an AVX-512
//! instruction (`vfixupimmps`, `vpternlogd`, `vpcmpud`, merge masking, the zero-masked
//! product, masked loads and gathers) spell the AVX2 form beside it. Both widths cover the
//! same programs, fused fetch and store included; with 16 registers the AVX2 width frees
//! temporaries earlier (`release`, `component_done`).
//!
//! A batch of 64 lanes runs as passes over two interleaved groups of one register's lanes
//! (two passes of 2 x 16 at AVX-512 width, four of 2 x 8 at AVX2): each op is emitted for
//! both groups in a row, so their dependency chains overlap. A program with dynamic ifs or
//! breaks runs the whole batch in one pass (4 x 16, 8 x 8), so that its branches see every
//! lane (`flow`); so does a program with a loop (more chains in flight). Every arena row
//! (temporaries, inputs, outputs, constants, gather scratch) keeps its home in the arena; a
//! register cache holds rows in the vector registers (32 zmm or 16 ymm) inside a basic
//! block (least recently used rows are written back when registers run out) and is emptied
//! at every block boundary, so every path into a block finds the same state. a0 and p0 are
//! cached the same way, with homes in the stack frame; uniform rows (constants,
//! `c[aL + n]`) are shared by the groups. Liveness (per block and per op) decides what is
//! written back at a block's end (live rows only), when a row leaves its register (after
//! its last reader), which results are computed at all, and which rows start at zero (those
//! read before they are written): the arena needs no clearing between batches.
//!
//! Every operation is the interpreter's formula again (the zero-product rule C8, unfused
//! mad, the same exp2/log2 polynomials, the same instruction counting), so all tiers give
//! the same bits; the tests compare them on random programs and the corpus. Each program is
//! assembled twice: fast code, whose products are `fma(x, y, +0)` (the rule's bits for
//! finite factors) and which checks, where `finite` says, that no inf or NaN went through
//! one unseen, and the exact code (the rule as compares and masked products), which runs a
//! batch again when a check fails.
//! `texldl` and `sincos` call back into Rust, 16 lanes at a time (8 at AVX2 width).
//!
//! Pixel programs (`pixel.rs`: `cmp`, `cnd`, `dp2add`, `texkill`, `dsx`/`dsy`, the ps_1_x
//! modifiers and shifts, `texdepth`'s ratio, `texcrd`'s division, and sampling through
//! `compile::pixel_sample`) run on the runner's
//! arena as the interpreter finds it: no row is zeroed, the rows the runner reads back
//! (colours, depth, ps_1_x's r0, the kill row) are live at the end (`regs::exit_rows`),
//! and the exact code alone is made (no fast products). A group's lanes are whole quads, so
//! the quad differences stay in a register; a sample calls the sampler once for the pass's
//! groups (`Gen::sample_pass`). Why the code touches only
//! memory the draw owns, how W^X holds and what happens to a panic in a callback: the
//! `compile` module's docs.
//!
//! Draws whose inputs are elements of per-vertex or per-instance data (any declaration type
//! but UNUSED), in order or through an index buffer, get a second compilation for their [`Layout`] with fetch
//! and store fused: FLOAT1..FLOAT4 inputs are loaded from the vertex streams and transposed
//! in registers, packed types gathered and decoded in registers, the next batch's vertices
//! and output records prefetched, and finished output records (one NaN for every NaN)
//! written straight to the draw's output; the arena then only holds what spills.
//!
//! [`crate::Options::jit_dump`] (`DXSO_JIT_DUMP=PATH` in the faces) writes each compiled
//! program's machine code to `PATH.bin` (the
//! exact code of fast code, `finite`, to `PATH.exact.bin`; `objdump -D -b binary
//! -mi386:x86-64 PATH.bin`) and prints where it was loaded, so `perf script -F ip` samples
//! can be placed in it.

mod asm;
mod driver;
mod fetch;
mod finite;
mod flow;
mod gather;
mod ops;
mod pixel;
mod regs;
#[cfg(test)]
mod tests;
mod write;

use super::{BatchIo, Layout};
use crate::fetch::DeclType;
use crate::program::*;
pub(crate) use asm::Width;
use asm::*;
pub(crate) use driver::{Code, RERUN, compile, compile_fused};
use dxso::formula::{EXP2_MAX, EXP2_MIN, EXP2_POLY, FLT_MAX, LIT_POWER, LOG2_POLY, ROUNDER};
use dxso::ir::Comparison;
use gather::*;
use iced_x86::IcedError;
use iced_x86::code_asm::*;
use regs::*;
use std::collections::{BTreeSet, HashMap, HashSet};

/// The largest stack frame compiled code may have (bytes).
pub(crate) const MAX_FRAME: i32 = 256 * 1024;

/// The largest stack frame compiled pixel code may have (bytes): it runs on its caller's
/// thread (see the `compile` module's docs).
pub(crate) const MAX_PIXEL_FRAME: i32 = 64 * 1024;

/// A vector register number (zmm or ymm by the width).
type V = usize;

type R<T = ()> = Result<T, Error>;

/// Why a program could not be compiled here.
#[derive(Debug)]
struct Error(String);

impl From<IcedError> for Error {
    fn from(e: IcedError) -> Error {
        Error(e.to_string())
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The code generator's state while it emits one program.
struct Gen<'a> {
    a: CodeAssembler,
    /// The vector width emitted.
    w: Width,
    p: &'a Program,
    /// The constants the code reads (placed after the code, addressed through rbp), and
    /// where each 32-bit value and each 64-byte vector sit in it.
    pool: Vec<u32>,
    pool_index: HashMap<u32, usize>,
    vectors: HashMap<Vec<u32>, usize>,
    /// The register cache: what each vector register holds, when it was last used, and the
    /// op that last read it (pinned while that op is emitted).
    slot: [Slot; 32],
    stamp: [u64; 32],
    pinned: [u64; 32],
    clock: u64,
    /// The current op's number (registers read by it are pinned until it ends).
    epoch: u64,
    /// Instructions counted but not yet added to r15.
    pending: i64,
    /// Frame slot of each Loop op.
    loop_slot: HashMap<usize, i32>,
    frame: i32,
    /// The instruction count when the last label was placed.
    label_at: Option<usize>,
    /// The group of lanes (one vector register's) being emitted (0..G).
    g: u32,
    /// Fetch and store fused for this layout.
    layout: Option<Layout>,
    /// The rows live after the op being emitted (`None`: all).
    live_now: Option<HashSet<u16>>,
    /// The registers whose non-zero masks k2..k7 hold, and when each was taken.
    kcache: [Option<V>; KEPT],
    kstamp: [u64; KEPT],
    /// Rows the op being emitted reads more than once, and a temporary it multiplies more
    /// than once: their masks are worth keeping even when nothing reads them later.
    reused_rows: HashSet<u16>,
    reused_temp: Option<V>,
    /// AVX2: a factor's non-zero mask kept to the op's end (the factor, the mask).
    op_mask: Option<(V, V)>,
    /// The op being emitted.
    pc: usize,
    /// `c[a0.n + k]` reads that share their lanes' addresses: at the first read's pc, the
    /// later reads of `k + 1` and `k + 2` (same block, a0 unchanged) by pc and distance; at
    /// a later read's pc, the frame offset its rows wait at (per group, 256 bytes each).
    palette: Runs,
    stash: HashMap<usize, i32>,
    /// Fused code: the pass's prefetches not yet emitted (the BatchIo slot of the address,
    /// bytes per vertex there, offset from this group's first vertex), and how many go
    /// before each op run once per pass.
    prefetch: Vec<(i32, u32, i32)>,
    prefetch_per_op: usize,
    /// Groups per pass ([`G`], or all of the batch's where the program has dynamic ifs or a
    /// loop).
    groups: u32,
    /// Frame offset of each dynamic if's lanes, by the pc of the if, its else and its endif.
    if_slot: HashMap<usize, i32>,
    /// Frame offset of the lanes running before each loop with a break, by the pc of the
    /// loop and of its endloop.
    loop_exec: HashMap<usize, i32>,
    /// Per break: the slots of the dynamic ifs it is inside of within its loop (innermost
    /// first), and whether it is directly in the loop's body.
    breaks: HashMap<usize, (Vec<i32>, bool)>,
    /// Frame offset of four rows' scratch that `o[aL]` writes outside o0..o15 land in.
    scratch_out: i32,
    /// Per op, whether it is inside a dynamic if (its writes are masked).
    masked: Vec<bool>,
    /// Fast code (`finite`): products are `fma(x, y, +0)`, the ops `check` says have their
    /// results checked into the last vector register (`acc`, kept out of the cache; its
    /// home in the frame across callbacks).
    fast: bool,
    check: Vec<bool>,
    acc_home: i32,
}

/// Bytes per arena row (64 lanes).
const ROW: i32 = (crate::LANES * 4) as i32;
/// Cache keys of constants (pool byte offsets): never written back, never dead.
const KONST: u32 = 0xF000_0000;
/// Pseudo-rows of a0 and p0 (homes in the frame).
const A0_ROW: u16 = 0xFFF0;
const P0_ROW: u16 = 0xFFF4;

/// Groups of one vector register's lanes run interleaved: each op is emitted once per group
/// in a row, so the processor overlaps their (long) dependency chains. Two groups a pass,
/// except in programs with dynamic ifs or breaks: there every group of the batch runs in one pass
/// (four at AVX-512 width, eight at AVX2), so a branch sees all 64 lanes, skips exactly
/// where the interpreter does, and counts the instructions it counts. A program with a loop
/// runs the whole batch in one pass as well (for speed).
const G: u32 = 2;
/// The most groups a pass has (eight of 8 lanes): the frame has room for that many.
const G_MAX: u32 = 8;
/// The pseudo-row of the execution mask (all ones in the lanes that run; home in the frame).
const EXEC_ROW: u16 = 0xFFF8;

// Frame layout (offsets from the 64-byte aligned rsp): a0, p0 and the execution mask of
// each group, then the scalars.
// The callbacks' io slot: 4 rows of one group's lanes (texldl, sincos), 12 rows of a
// pass's lanes for a pixel program's sampling (coordinates and texldd's two gradients).
const IO: i32 = 0;
/// Bytes of the callbacks' io slot: 12 rows of the widest pass (64 lanes: a pixel
/// program's sampling calls once for the pass's groups).
pub(crate) const IO_BYTES: i32 = 12 * ROW;
const A0_HOME: i32 = IO + IO_BYTES;
const P0_HOME: i32 = A0_HOME + 256 * G_MAX as i32;
const EXEC_HOME: i32 = P0_HOME + 256 * G_MAX as i32;
const SAVED_RSP: i32 = EXEC_HOME + 64 * G_MAX as i32;
const SAMPLING: i32 = SAVED_RSP + 8;
const NCONSTS: i32 = SAVED_RSP + 16;
const MAX: i32 = SAVED_RSP + 24;
const GROUP: i32 = SAVED_RSP + 32;
const AL: i32 = SAVED_RSP + 40;
const BATCH_IO: i32 = SAVED_RSP + 48;
const LOOPS: i32 = SAVED_RSP + 64;

/// Where `BatchIo::out` sits in a BatchIo (after the 16 input addresses).
const OUT_SLOT: i32 = 16 * 8;
const _: () = assert!(std::mem::offset_of!(BatchIo, out) == OUT_SLOT as usize);
const INDICES_SLOT: i32 = OUT_SLOT + 8;
const _: () = assert!(std::mem::offset_of!(BatchIo, indices) == INDICES_SLOT as usize);
const AHEAD_SLOT: i32 = INDICES_SLOT + 8;
const _: () = assert!(std::mem::offset_of!(BatchIo, ahead) == AHEAD_SLOT as usize);
/// A prefetch of the element of the vertex `offset` lanes into the next batch's pass (by its
/// index), not of a fixed offset.
const BY_INDEX: i32 = 1 << 16;

impl<'a> Gen<'a> {
    fn new(
        p: &'a Program,
        layout: Option<Layout>,
        w: Width,
        checks: Option<Vec<bool>>,
    ) -> R<Gen<'a>> {
        let mut loop_slot = HashMap::new();
        for (pc, op) in p.ops.iter().enumerate() {
            if matches!(op, Op::Loop { .. }) {
                let n = loop_slot.len() as i32;
                loop_slot.insert(pc, LOOPS + 16 * n);
            }
        }
        let masked = p.masked_ops();
        let dynamic = masked.iter().any(|&m| m);
        // A program with a loop runs the batch in one pass too: its body's chains (W3: rsq,
        // nrm and pow per light) are long and repeat, and more of them in flight made W3 6 %
        // faster at both widths (four groups instead of two at AVX-512 width, eight at
        // AVX2), where straight-line programs (W1, W2) ran 16-19 % slower with four (the
        // registers are shared by more groups).
        let loops = !loop_slot.is_empty();
        let groups = if dynamic || loops {
            ROW as u32 / w.bytes() as u32
        } else {
            G
        };
        let (palette, mut stash) = palette_runs(p);
        let stash_at = (LOOPS + 16 * loop_slot.len() as i32 + 63) & !63;
        for at in stash.values_mut() {
            *at = stash_at + *at * 256 * groups as i32;
        }
        // A slot per level of the flow-control stack (ifs and loops open at an op): a
        // dynamic if's lanes, those running before it and those taking it, per group, which
        // its else and endif find by the if's slot; a loop with a break, the lanes running
        // before it. Each break: the slots of the ifs it is inside of in its loop, and
        // whether it is directly in the loop's body.
        let level = 2 * 64 * groups as i32;
        let levels_at = stash_at + stash.len() as i32 * 256 * groups as i32;
        let mut if_slot = HashMap::new();
        let mut loop_exec = HashMap::new();
        let mut breaks = HashMap::new();
        let mut levels = 0;
        // Open ifs (their slots) and loops (None).
        let mut open: Vec<Option<i32>> = vec![];
        for (pc, op) in p.ops.iter().enumerate() {
            let here = levels_at + open.len() as i32 * level;
            match *op {
                Op::IfDyn { .. } => {
                    open.push(Some(here));
                    if_slot.insert(pc, here);
                }
                Op::ElseDyn { .. } => {
                    let s = open.last().copied().flatten();
                    if_slot.insert(pc, s.ok_or_else(|| Error("else without if".into()))?);
                }
                Op::EndIfDyn => {
                    let s = open.pop().flatten();
                    if_slot.insert(pc, s.ok_or_else(|| Error("endif without if".into()))?);
                }
                Op::Loop { end, .. } => {
                    open.push(None);
                    let body = p.ops.get(pc..end as usize).unwrap_or_default();
                    if body.iter().any(|o| matches!(o, Op::Break { .. })) {
                        loop_exec.insert(pc, here);
                        loop_exec.insert(end as usize, here);
                    }
                }
                // (The guard takes the loop off `open`.)
                Op::EndLoop { .. } if open.pop() != Some(None) => {
                    return Err(Error("endloop inside an if".into()));
                }
                Op::Break { .. } => {
                    let ifs: Vec<i32> = open.iter().rev().map_while(|f| *f).collect();
                    if ifs.len() == open.len() {
                        return Err(Error("break outside a loop".into()));
                    }
                    breaks.insert(pc, (ifs.clone(), ifs.is_empty()));
                }
                _ => {}
            }
            levels = levels.max(open.len() as i32);
        }
        // Where `o[aL]` writes land when aL points outside o0..o15 (four rows).
        let scratch_out = levels_at + levels * level;
        let acc_home = scratch_out + 4 * ROW;
        let frame = acc_home + 64;
        // Worker threads have stacks of 2 MiB: a program needing a large frame (many
        // palette reads, deep flow control) runs on the interpreter.
        let max = if p.pixel.is_some() {
            MAX_PIXEL_FRAME
        } else {
            MAX_FRAME
        };
        if frame > max {
            return Err(Error(format!("a stack frame of {frame} bytes")));
        }
        let mut a = CodeAssembler::new(64)?;
        // xmm16..xmm31 need EVEX encodings (the fused fetch and store use xmm views); AVX2
        // code must have VEX ones.
        a.set_prefer_vex(w == Width::Ymm);
        Ok(Gen {
            a,
            w,
            p,
            pool: Vec::new(),
            pool_index: HashMap::new(),
            vectors: HashMap::new(),
            slot: [Slot::Free; 32],
            stamp: [0; 32],
            pinned: [u64::MAX; 32],
            clock: 0,
            epoch: 0,
            pending: 0,
            loop_slot,
            frame,
            label_at: None,
            g: 0,
            layout,
            live_now: None,
            kcache: [None; KEPT],
            kstamp: [0; KEPT],
            reused_rows: HashSet::new(),
            reused_temp: None,
            op_mask: None,
            pc: 0,
            palette,
            stash,
            prefetch: vec![],
            prefetch_per_op: 0,
            groups,
            if_slot,
            loop_exec,
            breaks,
            masked,
            scratch_out,
            fast: checks.is_some(),
            check: checks.unwrap_or_default(),
            acc_home,
        })
    }
}

impl Gen<'_> {
    // ---- flow ------------------------------------------------------------------------

    /// End the block at a flow op that reads rows (a dynamic if's or a break's condition):
    /// the rows live after it and the rows it reads (from their homes) are written back.
    fn end_block_reading(&mut self, live: Option<&HashSet<u16>>, op: &Op) -> R {
        self.flush_count()?;
        let keep = live.map(|l| {
            let mut k = l.clone();
            k.extend(uses_defs(op, false).0);
            k
        });
        self.flush_live(keep.as_ref())
    }

    fn flush_count(&mut self) -> R {
        if self.pending != 0 {
            self.a.add(r15, self.pending as i32)?;
            self.pending = 0;
        }
        Ok(())
    }

    /// Leave with 1 when more than the allowed instructions ran.
    fn check_limit(&mut self, bail: CodeLabel) -> R {
        self.flush_count()?;
        self.a.cmp(r15, qword_ptr(rsp + MAX))?;
        Ok(self.a.ja(bail)?)
    }

    fn epilogue(&mut self) -> R {
        self.a.vzeroupper()?;
        self.a.mov(rsp, qword_ptr(rsp + SAVED_RSP))?;
        for r in [r15, r14, r13, r12, rbx, rbp] {
            self.a.pop(r)?;
        }
        Ok(self.a.ret()?)
    }

    /// The whole program, by phase: the entry ([`Self::prologue`]); per pass over the groups
    /// of lanes the rows that start from zero ([`Self::zero_rows`]), the fused fetch with
    /// its prefetches ([`Self::plan_prefetches`], [`Self::fused_fetch`]), the ops
    /// ([`Self::body`]) and the pass's end ([`Self::pass_end`]: the limit, the outputs, the
    /// next pass or return); then the exit past the limit and the constant pool.
    fn program(&mut self) -> R {
        let mut pool = self.prologue()?;
        let ops = &self.p.ops;
        let n = ops.len();
        let leaders = self.p.block_starts();
        let liveness = liveness(self.p, &leaders, &self.masked);
        let mut labels: Vec<Option<CodeLabel>> = (0..=n)
            .map(|pc| leaders.contains(&pc).then(|| self.a.create_label()))
            .collect();
        let mut head = self.a.create_label();
        let bail = self.a.create_label();
        let depths = loop_depths(ops);

        // Each group of 16 lanes starts from zero in the rows read before they are written
        // (temporaries, outputs not written on every path, a0, p0), aL and the count; the
        // components of vs_1_1 .. vs_2_x oD0 among them from 1.0 (C11).
        self.label(&mut head)?;
        self.zero_rows(&liveness.entry)?;
        self.a.mov(dword_ptr(rsp + AL), 0)?;
        self.a.xor(r15d, r15d)?;
        // Fused fetch: the inputs go straight into the register cache (the first block
        // starts with them; nothing branches back to it).
        if (0..n).any(|pc| self.p.successors(pc).is_some_and(|to| to.contains(&0))) {
            return Err(Error("a branch to the first op".into()));
        }
        if let Some(layout) = self.layout.clone() {
            self.plan_prefetches(&layout, &depths);
            self.fused_fetch(&layout)?;
        }
        self.body(&mut labels, &liveness, &depths, bail)?;
        let mut end = labels[n].take().expect("the end is a leader");
        self.label(&mut end)?;
        self.pass_end(head, bail)?;
        self.finish(bail, &mut pool)
    }

    /// Entry (after `mov rbp, pool`, prepended by `compile`): save the callee-saved
    /// registers, align the frame, keep the parameters. Returns the constant pool's label.
    fn prologue(&mut self) -> R<CodeLabel> {
        // rdi arena, rsi consts, rdx nconsts, rcx ints, r8 bools, r9 max, [rsp+8] sampling.
        for r in [rbp, rbx, r12, r13, r14, r15] {
            self.a.push(r)?;
        }
        // rbp: the constant pool, placed after the code.
        let pool = self.a.create_label();
        self.a.lea(rbp, ptr(pool))?;
        self.a.mov(rax, qword_ptr(rsp + 56))?;
        self.a.mov(r11, qword_ptr(rsp + 64))?;
        self.a.mov(r10, rsp)?;
        self.a.and(rsp, -64)?;
        self.a.sub(rsp, self.frame)?;
        self.a.mov(qword_ptr(rsp + SAVED_RSP), r10)?;
        self.a.mov(qword_ptr(rsp + SAMPLING), rax)?;
        self.a.mov(qword_ptr(rsp + NCONSTS), rdx)?;
        self.a.mov(qword_ptr(rsp + MAX), r9)?;
        self.a.mov(qword_ptr(rsp + GROUP), 0)?;
        if self.layout.is_some() {
            self.a.mov(qword_ptr(rsp + BATCH_IO), r11)?;
        }
        self.a.mov(rbx, rdi)?;
        self.a.mov(r12, rsi)?;
        self.a.mov(r13, rcx)?;
        self.a.mov(r14, r8)?;
        if self.fast {
            let acc = self.acc();
            vx!(self, vpxord | vpxor(Vr(acc), Vr(acc), Vr(acc)))?;
        }

        Ok(pool)
    }

    /// Zero the rows `entry` reads before writing them in every group (the diffuse colour's
    /// from 1.0), and set the execution mask's row where some op is masked.
    fn zero_rows(&mut self, entry: &HashSet<u16>) -> R {
        vx!(self, vpxord | vpxor(Vr(0), Vr(0), Vr(0)))?;
        let mut zeroed: Vec<u16> = entry
            .iter()
            .copied()
            .filter(|&r| {
                !(INPUT_BASE..OUTPUT_BASE).contains(&r)
                    && !self.p.is_const_row(r)
                    && r != EXEC_ROW
                    // A pixel program's rows are set up by its runner as the interpreter
                    // finds them (`Jit::run_pixel`); a0 and p0 (in the frame) start at 0.
                    && (self.p.pixel.is_none() || r >= A0_ROW)
            })
            .collect();
        zeroed.sort_unstable();
        let diffuse = self.p.diffuse.map_or(0..0, |d| d..d + 4);
        if zeroed.iter().any(|r| diffuse.contains(r)) {
            let one = self.km(1.0);
            vx!(self, vbroadcastss(Vr(1), one))?;
        }
        for row in zeroed {
            let v = Vr(if diffuse.contains(&row) { 1 } else { 0 });
            for g in 0..self.groups {
                let at = self.home(row as u32 | g << 16);
                vx!(self, vmovups(at, v))?;
            }
        }
        if self.masked.iter().any(|&m| m) {
            // Every lane runs.
            match self.w {
                Width::Zmm => self.a.vpternlogd(ZMM[1], ZMM[1], ZMM[1], 0xFF)?,
                Width::Ymm => self.a.vpcmpeqd(YMM[1], YMM[1], YMM[1])?,
            }
            for g in 0..self.groups {
                let at = self.home(EXEC_ROW as u32 | g << 16);
                vx!(self, vmovups(at, Vr(1)))?;
            }
        }
        Ok(())
    }

    /// The prefetches of the fused fetch, spread over the ops run once per pass.
    fn plan_prefetches(&mut self, layout: &Layout, depths: &[u32]) {
        let ops = &self.p.ops;
        let n = ops.len();
        // The next batch's vertices (into L2) and output records (for writing), 32 at a
        // time (a pass over two groups), so they are near when their batch starts: the
        // hardware prefetchers alone leave the loads waiting on memory and the stores
        // waiting for their lines. The prefetches are spread over the ops run once per
        // pass (a burst of them at the start stalled the loads behind them: W2 83 -> 93
        // M/s spread; outputs too: W2 93 -> 110, W3 55 -> 56.5). One batch ahead; two
        // batches ahead was no better.
        let ahead = crate::LANES as u32;
        let record = self.p.outputs.len() as u32 * 16;
        let streams = layout.streams.iter().map(|&reg| {
            let stride = layout.inputs.iter().find(|i| i.0 == reg).map_or(0, |i| i.2);
            (reg as i32 * 8, stride)
        });
        // (Instance data has stride 0: one element a batch, nothing to prefetch.)
        for (slot, stride) in streams.filter(|s| s.1 > 0) {
            if layout.indexed {
                // The element of each of the next batch's vertices (by its index).
                for lane in 0..self.w.lanes() * self.groups {
                    self.prefetch.push((slot | BY_INDEX, stride, lane as i32));
                }
            } else {
                for line in (0..self.w.lanes() * self.groups * stride).step_by(64) {
                    self.prefetch
                        .push((slot, stride, (ahead * stride + line) as i32));
                }
            }
        }
        for line in (0..self.w.lanes() * self.groups * record).step_by(64) {
            self.prefetch
                .push((OUT_SLOT, record, (ahead * record + line) as i32));
        }
        // Emitted from the back.
        self.prefetch.reverse();
        let once = (0..n)
            .filter(|&pc| depths[pc] == 0 && !self.masked[pc] && is_lane_op(&ops[pc]))
            .count();
        self.prefetch_per_op = self.prefetch.len().div_ceil(once.max(1));
    }

    /// The fused fetch: each group's inputs, read from the streams into the register cache.
    fn fused_fetch(&mut self, layout: &Layout) -> R {
        for g in 0..self.groups {
            self.g = g;
            for &(reg, ty, stride) in &layout.inputs {
                match ty {
                    DeclType::Float1 => self.fetch(reg, 1, stride)?,
                    DeclType::Float2 => self.fetch(reg, 2, stride)?,
                    DeclType::Float3 => self.fetch(reg, 3, stride)?,
                    DeclType::Float4 => self.fetch(reg, 4, stride)?,
                    _ => self.fetch_packed(reg, ty, stride)?,
                }
                self.end_op();
            }
        }
        self.g = 0;
        Ok(())
    }

    /// The ops, block by block: each block's label, its ops, and the live rows written back
    /// at its end.
    fn body(
        &mut self,
        labels: &mut [Option<CodeLabel>],
        liveness: &Liveness,
        depths: &[u32],
        bail: CodeLabel,
    ) -> R {
        let live_out = &liveness.block_out;
        let mut block = 0;
        let mut terminated = false;
        for pc in 0..self.p.ops.len() {
            if let Some(mut l) = labels[pc].take() {
                if !terminated && pc > 0 {
                    self.flush_count()?;
                    self.flush_live(live_out.get(&block))?;
                }
                self.label(&mut l)?;
                labels[pc] = Some(l);
                block = pc;
            }
            let live = live_out.get(&block);
            self.pc = pc;
            self.pending += 1;
            let op = self.p.ops[pc];
            terminated = if is_lane_op(&op) {
                self.lane_op(pc, &op, &liveness.after, depths)?;
                false
            } else {
                self.flow_op(pc, op, live, labels, bail)?;
                true
            };
            self.end_op();
        }
        if !terminated {
            self.flush_count()?;
            self.flush_live(live_out.get(&block))?;
        }
        Ok(())
    }

    /// An op computed in the lanes (arithmetic and gathers), emitted for each group.
    fn lane_op(&mut self, pc: usize, op: &Op, after: &[HashSet<u16>], depths: &[u32]) -> R {
        let op = *op;
        self.live_now = Some(after[pc].clone());
        self.pc = pc;
        self.reused_rows = reused_rows(&op);
        if depths[pc] == 0 && !self.masked[pc] && !self.prefetch.is_empty() {
            self.emit_prefetches(self.prefetch_per_op)?;
        }
        if let Op::Pixel(crate::pixel::PixelOp::Sample {
            dst,
            coord,
            dx: gx,
            dy: gy,
            sampler,
            swizzle,
            mode,
        }) = op
        {
            // One call samples the pass's groups.
            self.sample_pass(&dst, [coord, gx, gy], sampler, swizzle, mode, &after[pc])?;
        }
        for g in 0..self.groups {
            self.g = g;
            match op {
                // c[aL + n] is the same in every lane: loaded once into rows
                // the groups share.
                Op::GatherConstAl { .. } if g > 0 => {}
                Op::Pixel(crate::pixel::PixelOp::Sample { .. }) => {}
                _ => self.lanes(&op)?,
            }
            self.end_op();
            self.drop_dead(&after[pc]);
        }
        self.live_now = None;
        self.g = 0;
        Ok(())
    }

    /// A flow-control op: it ends its block (the live rows written back, the count added)
    /// and jumps.
    fn flow_op(
        &mut self,
        pc: usize,
        op: Op,
        live: Option<&HashSet<u16>>,
        labels: &[Option<CodeLabel>],
        bail: CodeLabel,
    ) -> R {
        let n = self.p.ops.len();
        match op {
            Op::IfBool { b, not, target } => {
                self.flush_count()?;
                self.flush_live(live)?;
                self.a.cmp(byte_ptr(r14 + b as i32), not as i32)?;
                // Jump when the bool equals `not` (the if is not taken).
                self.a.je(lab(labels, target as usize))?;
                self.a.jmp(lab(labels, pc + 1))?;
            }
            Op::Jump { target } => {
                self.flush_count()?;
                self.flush_live(live)?;
                self.a.jmp(lab(labels, target as usize))?;
            }
            Op::Ret => {
                self.flush_count()?;
                self.flush_live(live)?;
                self.a.jmp(lab(labels, n))?;
            }
            Op::Loop {
                i,
                end,
                al: with_al,
            } => self.loop_op(pc, i, end, with_al, live, labels)?,
            Op::EndLoop { start } => self.end_loop_op(pc, start, live, labels, bail)?,
            Op::Break { cond, end } => {
                self.end_block_reading(live, &op)?;
                let next = lab(labels, pc + 1);
                self.break_dyn(pc, cond.as_ref(), next, lab(labels, end as usize))?;
                self.a.jmp(next)?;
            }
            Op::IfDyn { cond, target } => {
                self.end_block_reading(live, &op)?;
                self.if_dyn(pc, &cond)?;
                self.a.jz(lab(labels, target as usize))?;
                self.enter_if(pc)?;
                self.a.jmp(lab(labels, pc + 1))?;
            }
            Op::ElseDyn { target } => {
                self.flush_count()?;
                self.flush_live(live)?;
                self.else_dyn(pc)?;
                self.a.jz(lab(labels, target as usize))?;
                self.a.jmp(lab(labels, pc + 1))?;
            }
            Op::EndIfDyn => {
                self.flush_count()?;
                self.flush_live(live)?;
                self.end_if_dyn(pc)?;
                self.a.jmp(lab(labels, pc + 1))?;
            }
            other => {
                return Err(Error(format!("{other:?}")));
            }
        }
        Ok(())
    }

    /// `loop`/`rep`: save the enclosing loop's state, load the count (and aL), and skip the
    /// body for a zero count.
    fn loop_op(
        &mut self,
        pc: usize,
        i: u8,
        end: u32,
        with_al: bool,
        live: Option<&HashSet<u16>>,
        labels: &[Option<CodeLabel>],
    ) -> R {
        self.flush_count()?;
        self.flush_live(live)?;
        let s = self.loop_slot[&pc];
        let at = i as i32 * 16;
        self.a.mov(eax, dword_ptr(r13 + at))?;
        self.a.mov(dword_ptr(rsp + s), eax)?;
        self.a.mov(ecx, dword_ptr(rsp + AL))?;
        self.a.mov(dword_ptr(rsp + s + 4), ecx)?;
        self.a.mov(ecx, dword_ptr(r13 + at + 8))?;
        self.a.mov(dword_ptr(rsp + s + 8), ecx)?;
        if with_al {
            self.a.mov(ecx, dword_ptr(r13 + at + 4))?;
            self.a.mov(dword_ptr(rsp + AL), ecx)?;
        }
        if let Some(&slot) = self.loop_exec.get(&pc) {
            self.save_exec(slot)?;
            self.a.test(dword_ptr(rsp + s), -1)?;
        } else {
            self.a.test(eax, eax)?;
        }
        // C15: the count is unsigned; zero skips the body.
        self.a.je(lab(labels, end as usize + 1))?;
        self.a.jmp(lab(labels, pc + 1))?;
        Ok(())
    }

    /// `endloop`/`endrep`: the limit, aL's step, the count, and the jump back while it lasts
    /// (and some lane runs, in masked code).
    fn end_loop_op(
        &mut self,
        pc: usize,
        start: u32,
        live: Option<&HashSet<u16>>,
        labels: &[Option<CodeLabel>],
        bail: CodeLabel,
    ) -> R {
        let ops = &self.p.ops;
        self.flush_live(live)?;
        self.check_limit(bail)?;
        let Op::Loop { al: with_al, .. } = ops[start as usize - 1] else {
            return Err(Error("endloop without its loop".into()));
        };
        let s = self.loop_slot[&(start as usize - 1)];
        if with_al {
            self.a.mov(eax, dword_ptr(rsp + s + 8))?;
            self.a.add(dword_ptr(rsp + AL), eax)?;
        }
        self.a.sub(dword_ptr(rsp + s), 1)?;
        if self.masked[pc] {
            // Another iteration while some lane of the batch runs (a break
            // may have stopped them all, here or in an enclosing loop's body);
            // leaving a loop with a break, the lanes that ran before it run
            // again.
            let mut exit = self.a.create_label();
            self.a.je(exit)?;
            self.any_exec()?;
            self.a.jnz(lab(labels, start as usize))?;
            self.label(&mut exit)?;
            if let Some(&slot) = self.loop_exec.get(&pc) {
                self.restore_exec(slot)?;
            }
        } else {
            self.a.jne(lab(labels, start as usize))?;
        }
        if with_al {
            self.a.mov(eax, dword_ptr(rsp + s + 4))?;
            self.a.mov(dword_ptr(rsp + AL), eax)?;
        }
        self.a.jmp(lab(labels, pc + 1))?;
        Ok(())
    }

    /// End of a pass: the limit, the outputs (fused store), then the next pass or return.
    fn pass_end(&mut self, head: CodeLabel, bail: CodeLabel) -> R {
        if self.fast {
            self.check_outputs()?;
        }
        self.check_limit(bail)?;
        if self.layout.is_some() {
            self.emit_prefetches(usize::MAX)?;
            // Four registers at a time (two at AVX2 width): their transposes stay in
            // registers.
            let regs = self.p.outputs.len();
            let per = if self.w == Width::Zmm { 4 } else { 2 };
            for g in 0..self.groups {
                self.g = g;
                for first in (0..regs).step_by(per) {
                    self.store_outputs(first..regs.min(first + per))?;
                    self.end_op();
                }
            }
            self.g = 0;
            self.flush_live(Some(&HashSet::new()))?;
        }
        let pass = self.w.bytes() * self.groups as i32;
        self.a.add(rbx, pass)?;
        self.a.add(qword_ptr(rsp + GROUP), pass)?;
        self.a.cmp(qword_ptr(rsp + GROUP), ROW)?;
        self.a.jb(head)?;
        self.a.xor(eax, eax)?;
        if self.fast {
            self.checks_failed(bail)?;
        }
        self.epilogue()?;
        Ok(())
    }

    /// The exit past the limit, then the constant pool.
    fn finish(&mut self, mut bail: CodeLabel, pool: &mut CodeLabel) -> R {
        self.label(&mut bail)?;
        // Fast code hands a batch past the limit to the exact code: its flow may have
        // followed an inf or NaN the checks have not seen yet.
        self.a.mov(eax, if self.fast { RERUN } else { 1 })?;
        self.epilogue()?;
        self.label(pool)?;
        let mut words = std::mem::take(&mut self.pool);
        words.push(0);
        Ok(self.a.dd(&words)?)
    }
}

/// The label of the block at `pc` (the end's for a pc past it).
fn lab(labels: &[Option<CodeLabel>], pc: usize) -> CodeLabel {
    labels[pc.min(labels.len() - 1)].expect("a leader")
}

/// Whether `op` is computed in the lanes (arithmetic, gathers, a pixel program's sampling)
/// rather than flow control.
fn is_lane_op(op: &Op) -> bool {
    matches!(
        op,
        Op::Alu { .. }
            | Op::Pixel(_)
            | Op::GatherConstA0 { .. }
            | Op::GatherConstAl { .. }
            | Op::GatherInputAl { .. }
            | Op::GatherInputA0 { .. }
    )
}

/// How many loops each op is inside.
fn loop_depths(ops: &[Op]) -> Vec<u32> {
    ops.iter()
        .scan(0u32, |d, op| {
            let at = match op {
                Op::EndLoop { .. } => {
                    *d -= 1;
                    *d
                }
                Op::Loop { .. } => {
                    *d += 1;
                    *d - 1
                }
                _ => *d,
            };
            Some(at)
        })
        .collect()
}
