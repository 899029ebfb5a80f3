//! The compiled tier's x86-64 code generator: the same translation as the Cranelift one
//! (`compile/cranelift`), written as x86-64 machine code (assembled with iced-x86) that works on 16
//! lanes per instruction (AVX-512: zmm registers, k masks) or 8 (AVX2: ymm registers, masks
//! as vector registers with compares, and-s and blends) — Cranelift's x86-64 backend emits
//! 128-bit vectors only. Both widths are this one source: [`Width`] (in `asm`) says which,
//! `vx!` emits an instruction at it, and the few places where AVX2 lacks an AVX-512
//! instruction (`vfixupimmps`, `vpternlogd`, `vpcmpud`, merge masking, the zero-masked
//! product) spell the AVX2 form beside it. The AVX2 width covers every operation, fused
//! fetch and store included, but no relative input reads (`v[aL]`, `v[a0]`) yet
//! (`ymm_covers`); with 16 registers it frees temporaries earlier (`release`,
//! `component_done`).
//!
//! A batch of 64 lanes runs as passes over two interleaved groups of one register's lanes
//! (two passes of 2 x 16 at AVX-512 width, four of 2 x 8 at AVX2): each op is emitted for
//! both groups in a row, so their dependency chains overlap. Every arena row
//! (temporaries, inputs, outputs, constants, gather scratch) keeps its home in the arena; a
//! register cache holds rows in the vector registers (32 zmm or 16 ymm) inside a basic block (least recently
//! used rows are written back when registers run out) and is emptied at every block
//! boundary, so every path into a block finds the same state. a0 and p0 are cached the same
//! way, with homes in the stack frame; constant rows are shared by the groups. Liveness
//! (per block and per op) decides what is written back at a block's end (live rows only),
//! when a row leaves its register (after its last reader), which results are computed at
//! all, and which rows start at zero (those read before they are written): the arena needs
//! no clearing between batches.
//!
//! Every operation is the interpreter's formula again (the zero-product rule C8 as a masked
//! multiply, unfused mad, the same exp2/log2 polynomials, the same instruction counting), so
//! all tiers give the same bits; the tests compare them on random programs and the corpus.
//! `texldl` and `sincos` call back into Rust, 16 lanes at a time. Why the code touches only
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
//! `DXSO_JIT_DUMP=PATH` writes each compiled program's machine code to `PATH.bin`
//! (`objdump -D -b binary -mi386:x86-64 PATH.bin`) and prints where it was loaded, so
//! `perf script -F ip` samples can be placed in it.

mod asm;
mod fetch;
mod gather;
mod ops;
mod regs;
#[cfg(test)]
mod tests;

use super::{BatchIo, Entry, Fused, FusedEntry, Layout};
use crate::fetch::DeclType;
use crate::math::{EXP2_MAX, EXP2_MIN, EXP2_POLY, LIT_POWER, LOG2_POLY, ROUNDER};
use crate::program::*;
pub(crate) use asm::Width;
use asm::*;
use dxso::ir::Comparison;
use gather::*;
use iced_x86::IcedError;
use iced_x86::code_asm::*;
use regs::*;
use std::collections::{BTreeSet, HashMap, HashSet};

/// The generated code (its constants follow it in the same mapping).
pub(crate) struct Code {
    _map: memmap2::Mmap,
    pub(crate) entry: Entry,
}

/// Compile `p` (already checked by `compile::supported`) at width `w`.
pub(crate) fn compile(p: &Program, w: Width) -> Result<Code, String> {
    if w == Width::Ymm {
        ymm_covers(p).map_err(|e| e.0)?;
    }
    let (map, entry) = assemble(p, None, w)?;
    // SAFETY: the code follows the System V calling convention with `Entry`'s parameters.
    let entry = unsafe { std::mem::transmute::<*const u8, Entry>(entry) };
    Ok(Code { _map: map, entry })
}

/// Compile `p` (already checked by `compile::supported`) at width `w` with fetch and store
/// fused for draws laid out as `layout` says.
pub(crate) fn compile_fused(p: &Program, layout: &Layout, w: Width) -> Result<Fused, String> {
    if w == Width::Ymm {
        ymm_covers(p).map_err(|e| e.0)?;
        // Halves convert with F16C's vcvtph2ps, which AVX2 does not imply.
        let halves = layout
            .inputs
            .iter()
            .any(|i| matches!(i.1, DeclType::Float16_2 | DeclType::Float16_4));
        if halves && !std::arch::is_x86_feature_detected!("f16c") {
            return Err("FLOAT16 inputs without F16C".into());
        }
    }
    let (map, entry) = assemble(p, Some(layout.clone()), w)?;
    // SAFETY: the code follows the System V calling convention with `FusedEntry`'s
    // parameters.
    let entry = unsafe { std::mem::transmute::<*const u8, FusedEntry>(entry) };
    Ok(Fused {
        _map: map,
        layout: layout.clone(),
        entry,
    })
}

fn assemble(
    p: &Program,
    layout: Option<Layout>,
    w: Width,
) -> Result<(memmap2::Mmap, *const u8), String> {
    let mut g = Gen::new(p, layout, w).map_err(|e| e.to_string())?;
    g.program().map_err(|e| e.to_string())?;
    let code = g.a.assemble(0).map_err(|e| e.to_string())?;
    let mut map = memmap2::MmapMut::map_anon(code.len()).map_err(|e| e.to_string())?;
    map.copy_from_slice(&code);
    // The code is position independent (relative branches and constant reads, absolute
    // callback addresses).
    let map = map.make_exec().map_err(|e| e.to_string())?;
    let entry = map.as_ptr();
    if let Some(path) = std::env::var_os("DXSO_JIT_DUMP") {
        // Raw machine code: `objdump -D -b binary -mi386:x86-64 FILE.bin`; its address, to
        // place a profiler's samples in it.
        let _ = std::fs::write(std::path::Path::new(&path).with_extension("bin"), &code);
        eprintln!("dxso: {} bytes of code at {entry:p}", code.len());
    }
    Ok((map, entry))
}

/// What the AVX2 width covers so far: every ALU operation (`texldl` and `sincos` calling
/// back 8 lanes at a time), predicated writes, `setp`, `mova`, uniform flow (`if b#`, `loop`/`rep`),
/// `c[aL + n]` and `c[a0.n + k]` (with palette runs), unfused or with fetch and store fused.
/// The relative input reads (`v[aL]`, `v[a0]`) are refused here (the tier choice then takes
/// Cranelift's code).
fn ymm_covers(p: &Program) -> R {
    for op in &p.ops {
        match *op {
            Op::Alu { .. } => {}
            Op::IfBool { .. }
            | Op::Jump { .. }
            | Op::Ret
            | Op::Loop { .. }
            | Op::EndLoop { .. }
            | Op::GatherConstAl { .. }
            | Op::GatherConstA0 { .. } => {}
            ref other => return Err(Error(format!("{other:?} at AVX2 width"))),
        }
    }
    Ok(())
}

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
}

/// Bytes per arena row (64 lanes).
const ROW: i32 = (crate::LANES * 4) as i32;
/// Cache keys of constants (pool byte offsets): never written back, never dead.
const KONST: u32 = 0xF000_0000;
/// Pseudo-rows of a0 and p0 (homes in the frame).
const A0_ROW: u16 = 0xFFF0;
const P0_ROW: u16 = 0xFFF4;

/// Groups of 16 lanes run interleaved: each op is emitted once per group in a row, so the
/// processor overlaps their (long) dependency chains.
const G: u32 = 2;

// Frame layout (offsets from the 64-byte aligned rsp): a0 and p0 of each group, then the
// scalars.
const IO: i32 = 0;
const A0_HOME: i32 = 256;
const P0_HOME: i32 = A0_HOME + 256 * G as i32;
const SAVED_RSP: i32 = P0_HOME + 256 * G as i32;
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
    fn new(p: &'a Program, layout: Option<Layout>, w: Width) -> R<Gen<'a>> {
        let mut loop_slot = HashMap::new();
        for (pc, op) in p.ops.iter().enumerate() {
            if matches!(op, Op::Loop { .. }) {
                let n = loop_slot.len() as i32;
                loop_slot.insert(pc, LOOPS + 16 * n);
            }
        }
        let (palette, mut stash) = palette_runs(p);
        let stash_at = (LOOPS + 16 * loop_slot.len() as i32 + 63) & !63;
        for at in stash.values_mut() {
            *at = stash_at + *at * 256 * G as i32;
        }
        let frame = stash_at + stash.len() as i32 * 256 * G as i32;
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
            pc: 0,
            palette,
            stash,
            prefetch: vec![],
            prefetch_per_op: 0,
        })
    }
}

impl Gen<'_> {
    // ---- flow ------------------------------------------------------------------------

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

    fn program(&mut self) -> R {
        // Entry (after `mov rbp, pool`, prepended by `compile`): save the callee-saved
        // registers, align the frame, keep the parameters.
        // rdi arena, rsi consts, rdx nconsts, rcx ints, r8 bools, r9 max, [rsp+8] sampling.
        for r in [rbp, rbx, r12, r13, r14, r15] {
            self.a.push(r)?;
        }
        // rbp: the constant pool, placed after the code.
        let mut pool = self.a.create_label();
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

        let ops = &self.p.ops;
        let n = ops.len();
        let leaders = self.p.block_starts();
        let Liveness {
            block_out: live_out,
            after,
            entry,
        } = liveness(self.p, &leaders);
        let mut block = 0;
        let mut labels: Vec<Option<CodeLabel>> = (0..=n)
            .map(|pc| leaders.contains(&pc).then(|| self.a.create_label()))
            .collect();
        let lab = |labels: &Vec<Option<CodeLabel>>, pc: usize| labels[pc.min(n)].expect("a leader");
        let mut head = self.a.create_label();
        let mut bail = self.a.create_label();
        // How many loops each op is inside.
        let depths: Vec<u32> = ops
            .iter()
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
            .collect();

        // Each group of 16 lanes starts from zero in the rows read before they are written
        // (temporaries, outputs not written on every path, a0, p0), aL and the count; the
        // components of vs_1_1 .. vs_2_x oD0 among them from 1.0 (C11).
        self.label(&mut head)?;
        vx!(self, vpxord | vpxor(Vr(0), Vr(0), Vr(0)))?;
        let mut zeroed: Vec<u16> = entry
            .into_iter()
            .filter(|&r| !(INPUT_BASE..OUTPUT_BASE).contains(&r) && !self.p.is_const_row(r))
            .collect();
        zeroed.sort_unstable();
        let diffuse = self.p.diffuse.map_or(0..0, |d| d..d + 4);
        if zeroed.iter().any(|r| diffuse.contains(r)) {
            let one = self.km(1.0);
            vx!(self, vbroadcastss(Vr(1), one))?;
        }
        for row in zeroed {
            let v = Vr(if diffuse.contains(&row) { 1 } else { 0 });
            for g in 0..G {
                let at = self.home(row as u32 | g << 16);
                vx!(self, vmovups(at, v))?;
            }
        }
        self.a.mov(dword_ptr(rsp + AL), 0)?;
        self.a.xor(r15d, r15d)?;
        // Fused fetch: the inputs go straight into the register cache (the first block
        // starts with them; nothing branches back to it).
        if (0..n).any(|pc| self.p.successors(pc).is_some_and(|to| to.contains(&0))) {
            return Err(Error("a branch to the first op".into()));
        }
        if let Some(layout) = self.layout.clone() {
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
                    for lane in 0..self.w.lanes() * G {
                        self.prefetch.push((slot | BY_INDEX, stride, lane as i32));
                    }
                } else {
                    for line in (0..self.w.lanes() * G * stride).step_by(64) {
                        self.prefetch
                            .push((slot, stride, (ahead * stride + line) as i32));
                    }
                }
            }
            for line in (0..self.w.lanes() * G * record).step_by(64) {
                self.prefetch
                    .push((OUT_SLOT, record, (ahead * record + line) as i32));
            }
            // Emitted from the back.
            self.prefetch.reverse();
            let once = (0..n)
                .filter(|&pc| {
                    depths[pc] == 0
                        && matches!(
                            ops[pc],
                            Op::Alu { .. }
                                | Op::GatherConstA0 { .. }
                                | Op::GatherConstAl { .. }
                                | Op::GatherInputAl { .. }
                                | Op::GatherInputA0 { .. }
                        )
                })
                .count();
            self.prefetch_per_op = self.prefetch.len().div_ceil(once.max(1));
            for g in 0..G {
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
        }

        let mut terminated = false;
        for pc in 0..n {
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
            terminated = false;
            self.pending += 1;
            let op = ops[pc];
            match op {
                Op::Alu { .. }
                | Op::GatherConstA0 { .. }
                | Op::GatherConstAl { .. }
                | Op::GatherInputAl { .. }
                | Op::GatherInputA0 { .. } => {
                    self.live_now = Some(after[pc].clone());
                    self.pc = pc;
                    self.reused_rows = reused_rows(&op);
                    if depths[pc] == 0 && !self.prefetch.is_empty() {
                        self.emit_prefetches(self.prefetch_per_op)?;
                    }
                    for g in 0..G {
                        self.g = g;
                        match op {
                            // c[aL + n] is the same in every lane: loaded once, copied.
                            Op::GatherConstAl { dst, .. } if g > 0 => self.copy_group(dst)?,
                            _ => self.lanes(&op)?,
                        }
                        self.end_op();
                        self.drop_dead(&after[pc]);
                    }
                    self.live_now = None;
                    self.g = 0;
                }
                Op::IfBool { b, not, target } => {
                    self.flush_count()?;
                    self.flush_live(live)?;
                    self.a.cmp(byte_ptr(r14 + b as i32), not as i32)?;
                    // Jump when the bool equals `not` (the if is not taken).
                    self.a.je(lab(&labels, target as usize))?;
                    self.a.jmp(lab(&labels, pc + 1))?;
                    terminated = true;
                }
                Op::Jump { target } => {
                    self.flush_count()?;
                    self.flush_live(live)?;
                    self.a.jmp(lab(&labels, target as usize))?;
                    terminated = true;
                }
                Op::Ret => {
                    self.flush_count()?;
                    self.flush_live(live)?;
                    self.a.jmp(lab(&labels, n))?;
                    terminated = true;
                }
                Op::Loop {
                    i,
                    end,
                    al: with_al,
                } => {
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
                    // C15: the count is unsigned; zero skips the body.
                    self.a.test(eax, eax)?;
                    self.a.je(lab(&labels, end as usize + 1))?;
                    self.a.jmp(lab(&labels, pc + 1))?;
                    terminated = true;
                }
                Op::EndLoop { start } => {
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
                    self.a.jne(lab(&labels, start as usize))?;
                    if with_al {
                        self.a.mov(eax, dword_ptr(rsp + s + 4))?;
                        self.a.mov(dword_ptr(rsp + AL), eax)?;
                    }
                    self.a.jmp(lab(&labels, pc + 1))?;
                    terminated = true;
                }
                other => {
                    return Err(Error(format!("{other:?}")));
                }
            }
            self.end_op();
        }
        if !terminated {
            self.flush_count()?;
            self.flush_live(live_out.get(&block))?;
        }
        let mut end = labels[n].take().expect("the end is a leader");
        self.label(&mut end)?;
        // End of a group: the limit, the outputs (fused store), then the next group or
        // return.
        self.check_limit(bail)?;
        if self.layout.is_some() {
            self.emit_prefetches(usize::MAX)?;
            // Four registers at a time (two at AVX2 width): their transposes stay in
            // registers.
            let regs = self.p.outputs.len();
            let per = if self.w == Width::Zmm { 4 } else { 2 };
            for g in 0..G {
                self.g = g;
                for first in (0..regs).step_by(per) {
                    self.store_outputs(first..regs.min(first + per))?;
                    self.end_op();
                }
            }
            self.g = 0;
            self.flush_live(Some(&HashSet::new()))?;
        }
        let pass = self.w.bytes() * G as i32;
        self.a.add(rbx, pass)?;
        self.a.add(qword_ptr(rsp + GROUP), pass)?;
        self.a.cmp(qword_ptr(rsp + GROUP), ROW)?;
        self.a.jb(head)?;
        self.a.xor(eax, eax)?;
        self.epilogue()?;
        self.label(&mut bail)?;
        self.a.mov(eax, 1)?;
        self.epilogue()?;
        self.label(&mut pool)?;
        let mut words = std::mem::take(&mut self.pool);
        words.push(0);
        Ok(self.a.dd(&words)?)
    }
}
