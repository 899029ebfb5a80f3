//! The compiled tier's AVX-512 code generator: the same translation as the Cranelift one
//! (`jit.rs`), written as x86-64 machine code (assembled with iced-x86) that works on 16
//! lanes per instruction — Cranelift's x86-64 backend emits 128-bit vectors only.
//!
//! A batch of 64 lanes runs as two passes over two interleaved groups of 16: each op is
//! emitted for both groups in a row, so their dependency chains overlap. Every arena row
//! (temporaries, inputs, outputs, constants, gather scratch) keeps its home in the arena; a
//! register cache holds rows in the 32 zmm registers inside a basic block (least recently
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
//! `jit` module's docs.
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

use crate::exec::{EXP2_MAX, EXP2_MIN, EXP2_POLY, LIT_POWER, LOG2_POLY, ROUNDER};
use crate::fetch::DeclType;
use crate::program::*;
use crate::texture::Sampling;
use dxso::ir::Comparison;
use iced_x86::IcedError;
use iced_x86::code_asm::*;
use std::collections::{BTreeSet, HashMap, HashSet};

/// The generated code (its constants follow it in the same mapping).
pub(crate) struct Code {
    _map: memmap2::Mmap,
    pub(crate) entry: crate::jit::Entry,
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

/// `Entry` with the batch's [`BatchIo`] last.
pub(crate) type FusedEntry = unsafe extern "C" fn(
    *mut f32,
    *const f32,
    u64,
    *const i32,
    *const u8,
    u64,
    *const Sampling,
    *const BatchIo,
) -> u32;

/// Code compiled for one [`Layout`].
pub(crate) struct Fused {
    _map: memmap2::Mmap,
    pub(crate) layout: Layout,
    pub(crate) entry: FusedEntry,
}

impl std::fmt::Debug for Fused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fused({:?})", self.layout)
    }
}

// SAFETY: the mapping is immutable executable code; the entry touches only what it is given.
unsafe impl Send for Fused {}
unsafe impl Sync for Fused {}

impl Fused {
    /// Run a full batch: inputs read from where `io` says, output records written there
    /// (the arena's output rows cleared before). `false` when the instruction limit was
    /// passed.
    pub(crate) fn run(
        &self,
        rows: &mut [crate::exec::Row],
        program: &Program,
        u: &crate::exec::Uniforms,
        io: &BatchIo,
    ) -> bool {
        let a = crate::jit::Args::new(rows, program, u);
        // SAFETY: as for `Jit::run`; the caller gives a BatchIo whose input elements and
        // output records exist for all 64 vertices, in the layout the code was made for.
        let status = unsafe {
            (self.entry)(
                a.arena, a.consts, a.nconsts, a.ints, a.bools, a.max, a.sampling, io,
            )
        };
        status == 0
    }
}

/// Compile `p` (already checked by `jit::supported`).
pub(crate) fn compile(p: &Program) -> Result<Code, String> {
    let (map, entry) = assemble(p, None)?;
    // SAFETY: the code follows the System V calling convention with `Entry`'s parameters.
    let entry = unsafe { std::mem::transmute::<*const u8, crate::jit::Entry>(entry) };
    Ok(Code { _map: map, entry })
}

/// Compile `p` (already checked by `jit::supported`) with fetch and store fused for draws
/// laid out as `layout` says.
pub(crate) fn compile_fused(p: &Program, layout: &Layout) -> Result<Fused, String> {
    let (map, entry) = assemble(p, Some(layout.clone()))?;
    // SAFETY: the code follows the System V calling convention with `FusedEntry`'s
    // parameters.
    let entry = unsafe { std::mem::transmute::<*const u8, FusedEntry>(entry) };
    Ok(Fused {
        _map: map,
        layout: layout.clone(),
        entry,
    })
}

fn assemble(p: &Program, layout: Option<Layout>) -> Result<(memmap2::Mmap, *const u8), String> {
    let mut g = Gen::new(p, layout).map_err(|e| e.to_string())?;
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

/// The rows a component-wise op or a dot product reads more than once (a row used twice may
/// be missed; that only costs a compare).
fn reused_rows(op: &Op) -> HashSet<u16> {
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

/// Per first read: the later reads (pc, distance) sharing its addresses.
type Runs = HashMap<usize, Vec<(usize, i32)>>;

/// The `c[a0.n + k]` reads that can share their lanes' addresses (see
/// [`Gen::gather_const_a0_run`]): for a read, the later ones in its block of `k + 1` and
/// `k + 2` with the same a0 component and no write of it in between, and the frame slots
/// (numbered here; offsets set by the caller) the later ones' rows wait in.
fn palette_runs(p: &Program) -> (Runs, HashMap<usize, i32>) {
    let leaders = p.block_starts();
    let mut runs = HashMap::new();
    let mut stash = HashMap::new();
    for (pc, op) in p.ops.iter().enumerate() {
        let Op::GatherConstA0 { base, comp, .. } = *op else {
            continue;
        };
        if stash.contains_key(&pc) {
            continue;
        }
        let mut later = vec![];
        for q in pc + 1..p.ops.len() {
            let writes_a0 = matches!(
                p.ops[q],
                Op::Alu {
                    dst: DstRef {
                        kind: DstKind::Addr,
                        ..
                    },
                    ..
                }
            );
            if leaders.contains(&q) || writes_a0 {
                break;
            }
            if let Op::GatherConstA0 {
                base: b, comp: c, ..
            } = p.ops[q]
                && c == comp
                && (b - base == 1 || b - base == 2)
                && !later.iter().any(|&(_, k)| k == b - base)
                && !stash.contains_key(&q)
            {
                later.push((q, b - base));
            }
        }
        if !later.is_empty() {
            for &(q, _) in &later {
                let n = stash.len() as i32;
                stash.insert(q, n);
            }
            runs.insert(pc, later);
        }
    }
    (runs, stash)
}

/// Where a component of a packed element comes from.
#[derive(Clone, Copy)]
enum Part {
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
fn packed_parts(ty: DeclType) -> Option<([Part; 4], f32)> {
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

/// The rows an op may read (more than it does is fine) and the rows it surely writes
/// (fewer is fine): a0 and p0 as their pseudo-rows.
fn uses_defs(op: &Op) -> (Vec<u16>, Vec<u16>) {
    let dst4 = |d: u16| (d..d + 4).collect::<Vec<_>>();
    match *op {
        Op::Alu { kind, dst, src } => {
            let mut uses: Vec<u16> = src.iter().flat_map(|s| s.rows).collect();
            let target = |c: u16| match dst.kind {
                DstKind::Rows(r) => Some(r + c),
                DstKind::Addr => Some(A0_ROW + c),
                DstKind::Pred => Some(P0_ROW + c),
                DstKind::OutputByLoop(_) => None,
            };
            let written =
                (0..4u16).filter(|&c| dst.mask >> c & 1 != 0 && (kind != Alu::Crs || c < 3));
            let mut defs = vec![];
            match dst.pred {
                Some(p) => {
                    uses.extend(p.comps.map(|c| P0_ROW + c as u16));
                    uses.extend((0..4).filter_map(target));
                }
                None => defs.extend(written.filter_map(target)),
            }
            (uses, defs)
        }
        Op::GatherConstA0 { dst, comp, .. } | Op::GatherInputA0 { dst, comp, .. } => {
            (vec![A0_ROW + comp as u16], dst4(dst))
        }
        Op::GatherConstAl { dst, .. } | Op::GatherInputAl { dst, .. } => (vec![], dst4(dst)),
        _ => (vec![], vec![]),
    }
}

/// Which rows are live (a later op may read them before any op writes them; outputs at
/// the end) where: only live rows are written back to their homes when a block ends, a row
/// that is dead after an op leaves its register then, and the rows live at the start need a
/// value (zero) there.
struct Liveness {
    /// At the end of each block (by its first pc).
    block_out: HashMap<usize, HashSet<u16>>,
    /// After each op.
    after: Vec<HashSet<u16>>,
    /// At the start of the program.
    entry: HashSet<u16>,
}

fn liveness(p: &Program, starts: &BTreeSet<usize>) -> Liveness {
    let n = p.ops.len();
    let outputs: HashSet<u16> = p.outputs.iter().flat_map(|o| o.row..o.row + 4).collect();
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
                let (uses, defs) = uses_defs(&p.ops[pc]);
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

const ZMM: [AsmRegisterZmm; 32] = [
    zmm0, zmm1, zmm2, zmm3, zmm4, zmm5, zmm6, zmm7, zmm8, zmm9, zmm10, zmm11, zmm12, zmm13, zmm14,
    zmm15, zmm16, zmm17, zmm18, zmm19, zmm20, zmm21, zmm22, zmm23, zmm24, zmm25, zmm26, zmm27,
    zmm28, zmm29, zmm30, zmm31,
];

const XMM: [AsmRegisterXmm; 32] = [
    xmm0, xmm1, xmm2, xmm3, xmm4, xmm5, xmm6, xmm7, xmm8, xmm9, xmm10, xmm11, xmm12, xmm13, xmm14,
    xmm15, xmm16, xmm17, xmm18, xmm19, xmm20, xmm21, xmm22, xmm23, xmm24, xmm25, xmm26, xmm27,
    xmm28, xmm29, xmm30, xmm31,
];

const YMM: [AsmRegisterYmm; 32] = [
    ymm0, ymm1, ymm2, ymm3, ymm4, ymm5, ymm6, ymm7, ymm8, ymm9, ymm10, ymm11, ymm12, ymm13, ymm14,
    ymm15, ymm16, ymm17, ymm18, ymm19, ymm20, ymm21, ymm22, ymm23, ymm24, ymm25, ymm26, ymm27,
    ymm28, ymm29, ymm30, ymm31,
];

// vcmpps predicates.
const EQ: i32 = 0x00;
const LT: i32 = 0x11;
const LE: i32 = 0x12;
const UNORD: i32 = 0x03;
const NEQ: i32 = 0x04;
const GE: i32 = 0x1D;
const GT: i32 = 0x1E;

/// What [`Gen::fixup`] writes where its operand is ±0, and (`ZeroInf`) +inf: `vfixupimmps`
/// responses.
#[derive(Clone, Copy)]
enum Fix {
    Zero(u32),
    ZeroInf(u32, u32),
}
const FIX_NEG_INF: u32 = 0b0100;
const FIX_POS_INF: u32 = 0b0101;
const FIX_POS_ZERO: u32 = 0b1000;
const FIX_MAX: u32 = 0b1110;
const FIX_NEG_MAX: u32 = 0b1111;

/// A zmm register number.
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

#[derive(Clone, Copy, PartialEq, Debug)]
enum Slot {
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

/// `k1{k}`: a compare into k1 that keeps only the lanes `k` has.
fn mk_k(k: usize) -> AsmRegisterK {
    match k {
        2 => k1.k2(),
        3 => k1.k3(),
        4 => k1.k4(),
        5 => k1.k5(),
        6 => k1.k6(),
        _ => k1.k7(),
    }
}

/// `reg{k}` (merge masking).
fn mk(z: AsmRegisterZmm, k: u8) -> AsmRegisterZmm {
    match k {
        1 => z.k1(),
        2 => z.k2(),
        3 => z.k3(),
        4 => z.k4(),
        5 => z.k5(),
        6 => z.k6(),
        _ => z.k7(),
    }
}

const KREG: [AsmRegisterK; 8] = [k0, k1, k2, k3, k4, k5, k6, k7];

/// The non-zero masks of cached registers are kept in k2..k7 (k1 is scratch; k2..k4 are
/// scratch too where an op needs more, and forget their masks then).
const FIRST_KEPT: usize = 2;
const KEPT: usize = 6;

/// The code generator's state while it emits one program.
struct Gen<'a> {
    a: CodeAssembler,
    p: &'a Program,
    /// The constants the code reads (placed after the code, addressed through rbp), and
    /// where each 32-bit value and each 64-byte vector sit in it.
    pool: Vec<u32>,
    pool_index: HashMap<u32, usize>,
    vectors: HashMap<[u32; 16], usize>,
    /// The register cache: what each zmm register holds, when it was last used, and the
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
    /// The group of 16 lanes being emitted (0..G).
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

impl<'a> Gen<'a> {
    fn new(p: &'a Program, layout: Option<Layout>) -> R<Gen<'a>> {
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
        // xmm16..xmm31 need EVEX encodings (the fused fetch and store use xmm views).
        a.set_prefer_vex(false);
        Ok(Gen {
            a,
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

    // ---- constants -------------------------------------------------------------------

    fn pool_at(&mut self, bits: u32) -> i32 {
        let next = self.pool.len();
        let i = *self.pool_index.entry(bits).or_insert(next);
        if i == next {
            self.pool.push(bits);
        }
        i as i32 * 4
    }

    /// A broadcast memory operand of the constant with these bits.
    fn kb(&mut self, bits: u32) -> AsmMemoryOperand {
        let at = self.pool_at(bits);
        dword_bcst(rbp + at)
    }

    fn kf(&mut self, x: f32) -> AsmMemoryOperand {
        self.kb(x.to_bits())
    }

    /// A 32-bit memory operand of the constant (for `vbroadcastss`).
    fn km(&mut self, x: f32) -> AsmMemoryOperand {
        let at = self.pool_at(x.to_bits());
        dword_ptr(rbp + at)
    }

    /// Sixteen 32-bit words as one 64-byte vector in the pool (once per distinct vector; not
    /// deduplicated word by word: the sixteen must be consecutive).
    fn vector(&mut self, words: [u32; 16]) -> AsmMemoryOperand {
        let at = match self.vectors.get(&words) {
            Some(&at) => at,
            None => {
                let at = self.pool.len();
                self.pool.extend(words);
                self.vectors.insert(words, at);
                at
            }
        };
        zmmword_ptr(rbp + at as i32 * 4)
    }

    /// 0, 1, .., 15 as one 64-byte vector in the pool.
    fn iota(&mut self) -> AsmMemoryOperand {
        self.vector(std::array::from_fn(|l| l as u32))
    }

    // ---- registers -------------------------------------------------------------------

    /// The cache key of `row` in the current group. Constant rows hold one value in every
    /// lane: all groups share them (as group 0).
    fn key(&self, row: u16) -> u32 {
        if self.p.is_const_row(row) {
            row as u32
        } else {
            row as u32 | self.g << 16
        }
    }

    fn home(&self, key: u32) -> AsmMemoryOperand {
        let (row, g) = (key as u16, (key >> 16) as i32);
        if row >= P0_ROW {
            zmmword_ptr(rsp + P0_HOME + g * 256 + (row - P0_ROW) as i32 * 64)
        } else if row >= A0_ROW {
            zmmword_ptr(rsp + A0_HOME + g * 256 + (row - A0_ROW) as i32 * 64)
        } else {
            zmmword_ptr(rbx + row as i32 * ROW + g * 64)
        }
    }

    fn touch(&mut self, r: V) {
        self.clock += 1;
        self.stamp[r] = self.clock;
    }

    /// A register for a new value, evicting the least recently used row not read by the
    /// current op when none is free.
    fn alloc(&mut self) -> R<V> {
        let r = match (0..32).find(|&r| self.slot[r] == Slot::Free) {
            Some(r) => r,
            None => {
                let r = (0..32)
                    .filter(|&r| {
                        matches!(self.slot[r], Slot::Row { .. }) && self.pinned[r] != self.epoch
                    })
                    .min_by_key(|&r| self.stamp[r])
                    .ok_or_else(|| Error("out of vector registers".into()))?;
                if let Slot::Row { key, dirty: true } = self.slot[r] {
                    let at = self.home(key);
                    self.a.vmovups(at, ZMM[r])?;
                }
                r
            }
        };
        self.slot[r] = Slot::Temp;
        self.touch(r);
        for k in &mut self.kcache {
            if *k == Some(r) {
                *k = None;
            }
        }
        Ok(r)
    }

    fn free(&mut self, r: V) {
        if self.slot[r] == Slot::Temp {
            self.slot[r] = Slot::Free;
        }
    }

    /// The register holding `row`, loading it when it is not cached.
    fn row(&mut self, row: u16) -> R<V> {
        let key = self.key(row);
        let found = (0..32).find(|&r| matches!(self.slot[r], Slot::Row { key: x, .. } if x == key));
        let r = match found {
            Some(r) => r,
            None => {
                let r = self.alloc()?;
                let at = self.home(key);
                self.a.vmovups(ZMM[r], at)?;
                self.slot[r] = Slot::Row { key, dirty: false };
                r
            }
        };
        self.touch(r);
        self.pinned[r] = self.epoch;
        Ok(r)
    }

    /// Make the temporary `v` the value of `row`.
    fn bind(&mut self, row: u16, v: V) {
        debug_assert_eq!(self.slot[v], Slot::Temp);
        let key = self.key(row);
        for r in 0..32 {
            if matches!(self.slot[r], Slot::Row { key: x, .. } if x == key) {
                self.slot[r] = Slot::Free;
            }
        }
        self.slot[v] = Slot::Row { key, dirty: true };
        self.touch(v);
        self.pinned[v] = self.epoch;
    }

    fn copy(&mut self, v: V) -> R<V> {
        let t = self.alloc()?;
        self.a.vmovaps(ZMM[t], ZMM[v])?;
        Ok(t)
    }

    /// The end of an op: its temporaries are free again.
    fn end_op(&mut self) {
        if let Some(t) = self.reused_temp.take() {
            for k in &mut self.kcache {
                if *k == Some(t) {
                    *k = None;
                }
            }
        }
        for r in 0..32 {
            self.free(r);
        }
        self.epoch += 1;
    }

    /// Write every changed row back and forget them all (block boundaries, calls).
    fn flush(&mut self) -> R {
        self.flush_live(None)
    }

    /// [`Self::flush`] at the end of a block: rows not in `live` are dead there (every path
    /// writes them before reading them again) and need not be written back.
    fn flush_live(&mut self, live: Option<&HashSet<u16>>) -> R {
        for r in 0..32 {
            if let Slot::Row { key, dirty: true } = self.slot[r]
                && live.is_none_or(|l| l.contains(&(key as u16)))
            {
                let at = self.home(key);
                self.a.vmovups(at, ZMM[r])?;
            }
            self.slot[r] = Slot::Free;
        }
        Ok(())
    }

    /// Whether a later op may read `row` (results nobody reads are not computed).
    fn live(&self, row: u16) -> bool {
        self.live_now.as_ref().is_none_or(|l| l.contains(&row))
    }

    /// Whether the op writes component `c` of `dst` and a later op may read it.
    fn writes(&self, dst: &DstRef, c: usize) -> bool {
        let row = match dst.kind {
            DstKind::Rows(r) => r + c as u16,
            DstKind::Addr => A0_ROW + c as u16,
            DstKind::Pred => P0_ROW + c as u16,
            DstKind::OutputByLoop(_) => return dst.mask >> c & 1 != 0,
        };
        dst.mask >> c & 1 != 0 && self.live(row)
    }

    /// Rows `dst .. dst + 4` of this group = those of group 0.
    fn copy_group(&mut self, dst: u16) -> R {
        let g = self.g;
        for c in 0..4 {
            if !self.live(dst + c) {
                continue;
            }
            self.g = 0;
            let v = self.row(dst + c)?;
            self.g = g;
            let t = self.copy(v)?;
            self.bind(dst + c, t);
        }
        Ok(())
    }

    /// Forget this group's rows that no later op reads (dead after the current op; shared
    /// constant rows after the last group's).
    fn drop_dead(&mut self, live: &HashSet<u16>) {
        for r in 0..32 {
            if let Slot::Row { key, .. } = self.slot[r]
                && key & KONST == 0
            {
                let row = key as u16;
                let mine = if self.p.is_const_row(row) {
                    self.g == G - 1
                } else {
                    key >> 16 == self.g
                };
                if mine && !live.contains(&row) {
                    self.slot[r] = Slot::Free;
                }
            }
        }
    }

    fn label(&mut self, l: &mut CodeLabel) -> R {
        // One label per instruction: a label right after another gets a nop to sit on.
        if self.label_at == Some(self.a.instructions().len()) {
            self.a.nop()?;
        }
        self.label_at = Some(self.a.instructions().len());
        Ok(self.a.set_label(l)?)
    }

    // ---- values ----------------------------------------------------------------------

    /// A register holding `x` in every lane, shared (read only) while it stays cached.
    fn kreg(&mut self, x: f32) -> R<V> {
        let key = KONST | self.pool_at(x.to_bits()) as u32;
        let found = (0..32).find(|&r| self.slot[r] == Slot::Row { key, dirty: false });
        let r = match found {
            Some(r) => r,
            None => {
                let r = self.alloc()?;
                let m = self.km(x);
                self.a.vbroadcastss(ZMM[r], m)?;
                self.slot[r] = Slot::Row { key, dirty: false };
                r
            }
        };
        self.touch(r);
        self.pinned[r] = self.epoch;
        Ok(r)
    }

    /// A new temporary holding `x` in every lane.
    fn constant(&mut self, x: f32) -> R<V> {
        let t = self.alloc()?;
        let m = self.km(x);
        self.a.vbroadcastss(ZMM[t], m)?;
        Ok(t)
    }

    /// Source component `c` with `_abs` applied but not negation.
    fn src_unnegated(&mut self, s: &SrcRef, c: usize) -> R<V> {
        let v = self.row(s.rows[c])?;
        if s.and == u32::MAX {
            return Ok(v);
        }
        let t = self.alloc()?;
        let m = self.kb(!SIGN);
        self.a.vpandd(ZMM[t], ZMM[v], m)?;
        Ok(t)
    }

    fn src(&mut self, s: &SrcRef, c: usize) -> R<V> {
        let v = self.src_unnegated(s, c)?;
        if s.xor == 0 {
            return Ok(v);
        }
        let t = self.alloc()?;
        let m = self.kb(SIGN);
        self.a.vpxord(ZMM[t], ZMM[v], m)?;
        self.free(v);
        Ok(t)
    }

    fn op3(
        &mut self,
        f: fn(
            &mut CodeAssembler,
            AsmRegisterZmm,
            AsmRegisterZmm,
            AsmRegisterZmm,
        ) -> Result<(), IcedError>,
        x: V,
        y: V,
    ) -> R<V> {
        let t = self.alloc()?;
        f(&mut self.a, ZMM[t], ZMM[x], ZMM[y])?;
        Ok(t)
    }

    fn fadd(&mut self, x: V, y: V) -> R<V> {
        self.op3(|a, d, x, y| a.vaddps(d, x, y), x, y)
    }

    fn fsub(&mut self, x: V, y: V) -> R<V> {
        self.op3(|a, d, x, y| a.vsubps(d, x, y), x, y)
    }

    fn fmul(&mut self, x: V, y: V) -> R<V> {
        self.op3(|a, d, x, y| a.vmulps(d, x, y), x, y)
    }

    fn fdiv(&mut self, x: V, y: V) -> R<V> {
        self.op3(|a, d, x, y| a.vdivps(d, x, y), x, y)
    }

    /// The product with the zero rule (C8): a zero factor gives +0.
    fn mul(&mut self, x: V, y: V) -> R<V> {
        if x == y {
            // A square is +0 for a zero factor of either sign already.
            return self.fmul(x, y);
        }
        // k1 = lanes where neither factor is zero; the non-zero masks of cached rows are
        // kept in k5..k7 while their registers hold them.
        let (x, y) = match (self.mask_of(x), self.mask_of(y)) {
            (_, Some(_)) => (x, y),
            (Some(_), None) => (y, x),
            (None, None) if self.worth_keeping(y) => (x, y),
            (None, None) => (y, x),
        };
        // Compared with a register holding zero: with a broadcast memory operand instead,
        // W2 ran 6 % and W3 5 % slower.
        let zero = |g: &mut Self| g.kreg(0.0).map(|z| ZMM[z]);
        match (self.mask_of(x), self.mask_of(y)) {
            (Some(kx), Some(ky)) => self.a.kandw(k1, KREG[kx], KREG[ky])?,
            (None, Some(ky)) => {
                let z = zero(self)?;
                self.a.vcmpps(mk_k(ky), ZMM[x], z, NEQ)?;
            }
            _ => {
                let z = zero(self)?;
                match self.mask_slot(y) {
                    Some(ky) => {
                        self.a.vcmpps(KREG[ky], ZMM[y], z, NEQ)?;
                        self.a.vcmpps(mk_k(ky), ZMM[x], z, NEQ)?;
                    }
                    None => {
                        self.a.vcmpps(k1, ZMM[y], z, NEQ)?;
                        self.a.vcmpps(k1.k1(), ZMM[x], z, NEQ)?;
                    }
                }
            }
        }
        let t = self.alloc()?;
        self.a.vmulps(ZMM[t].k1().z(), ZMM[x], ZMM[y])?;
        Ok(t)
    }

    /// The k register holding `v`'s non-zero mask, if one does.
    fn mask_of(&self, v: V) -> Option<usize> {
        (0..KEPT)
            .find(|&i| self.kcache[i] == Some(v))
            .map(|i| i + FIRST_KEPT)
    }

    /// Whether `v` holds a row a later op or this one reads again, a constant, or the
    /// temporary this op multiplies again: its mask may be used again.
    fn worth_keeping(&self, v: V) -> bool {
        match self.slot[v] {
            Slot::Row { key, .. } => {
                key & KONST != 0
                    || self.reused_rows.contains(&(key as u16))
                    || self.live(key as u16)
            }
            _ => self.reused_temp == Some(v),
        }
    }

    /// A k register (2..7) to keep the non-zero mask of `v` in, when that is worth it: the
    /// least recently taken one.
    fn mask_slot(&mut self, v: V) -> Option<usize> {
        if !self.worth_keeping(v) {
            return None;
        }
        let i = (0..KEPT).min_by_key(|&i| self.kstamp[i]).expect("slots");
        self.clock += 1;
        self.kstamp[i] = self.clock;
        self.kcache[i] = Some(v);
        Some(i + FIRST_KEPT)
    }

    /// Forget every kept mask (the k registers are about to change).
    fn forget_masks(&mut self) {
        self.kcache = [None; KEPT];
    }

    /// `k{k}` is about to be used as scratch: forget the mask kept there.
    fn scratch_k(&mut self, k: u8) {
        if let Some(i) = (k as usize).checked_sub(FIRST_KEPT) {
            self.kcache[i] = None;
        }
    }

    /// `k{n} = x <cc> y` with `y` a constant.
    fn cmpk(&mut self, k: u8, x: V, cc: i32, y: f32) -> R {
        self.scratch_k(k);
        let m = self.kf(y);
        Ok(self.a.vcmpps(KREG[k as usize], ZMM[x], m, cc)?)
    }

    /// `t{k} = constant` (merge).
    fn set_where(&mut self, t: V, k: u8, x: f32) -> R {
        let m = self.km(x);
        Ok(self.a.vbroadcastss(mk(ZMM[t], k), m)?)
    }

    /// `f32::clamp` (NaN stays NaN), into a new temporary.
    fn clamp(&mut self, x: V, lo: f32, hi: f32) -> R<V> {
        // maxps(lo, x) is `lo > x ? lo : x`, minps(hi, t) `hi < t ? hi : t`: x itself
        // when it is NaN.
        let (lo, hi) = (self.kreg(lo)?, self.kreg(hi)?);
        let t = self.alloc()?;
        self.a.vmaxps(ZMM[t], ZMM[lo], ZMM[x])?;
        self.a.vminps(ZMM[t], ZMM[hi], ZMM[t])?;
        Ok(t)
    }

    /// The polynomial with coefficients `k` (highest first) at `x`, by Horner's rule.
    fn horner(&mut self, x: V, k: &[f32]) -> R<V> {
        let p = self.constant(k[0])?;
        for &c in &k[1..] {
            self.a.vmulps(ZMM[p], ZMM[p], ZMM[x])?;
            let m = self.kf(c);
            self.a.vaddps(ZMM[p], ZMM[p], m)?;
        }
        Ok(p)
    }

    /// 2^x as [`crate::exec::exp2`] computes it.
    fn exp2(&mut self, x: V) -> R<V> {
        let x = self.clamp(x, EXP2_MIN, EXP2_MAX)?;
        let n = self.alloc()?;
        let big = self.kf(ROUNDER);
        self.a.vaddps(ZMM[n], ZMM[x], big)?;
        let big = self.kf(ROUNDER);
        self.a.vsubps(ZMM[n], ZMM[n], big)?;
        let fr = self.fsub(x, n)?;
        self.free(x);
        let p = self.horner(fr, &EXP2_POLY)?;
        self.free(fr);
        self.cmpk(2, n, LE, EXP2_MIN)?;
        // n is integral and inside the clamp (or NaN, which the product keeps NaN).
        self.a.vcvttps2dq(ZMM[n], ZMM[n])?;
        let n1 = self.alloc()?;
        self.a.vpsrad(ZMM[n1], ZMM[n], 1)?;
        self.a.vpsubd(ZMM[n], ZMM[n], ZMM[n1])?;
        for s in [n1, n] {
            let bias = self.kb(127);
            self.a.vpaddd(ZMM[s], ZMM[s], bias)?;
            self.a.vpslld(ZMM[s], ZMM[s], 23)?;
        }
        self.set_where(n, 2, 1.0)?;
        self.a.vmulps(ZMM[p], ZMM[p], ZMM[n1])?;
        self.a.vmulps(ZMM[p], ZMM[p], ZMM[n])?;
        self.a.vpxord(ZMM[p].k2(), ZMM[p], ZMM[p])?;
        self.free(n);
        self.free(n1);
        Ok(p)
    }

    /// log2(x) as [`crate::exec::log2`] computes it, for x >= 0 or NaN.
    fn log2(&mut self, x: V) -> R<V> {
        self.cmpk(1, x, LT, f32::MIN_POSITIVE)?;
        let xs = self.copy(x)?;
        let k = self.kf(8_388_608.0);
        self.a.vmulps(ZMM[xs].k1(), ZMM[x], k)?;
        let e = self.alloc()?;
        self.a.vpsrld(ZMM[e], ZMM[xs], 23)?;
        let m = self.kb(0xFF);
        self.a.vpandd(ZMM[e], ZMM[e], m)?;
        let m = self.kb(127);
        self.a.vpsubd(ZMM[e], ZMM[e], m)?;
        let m = self.kb(23);
        self.a.vpsubd(ZMM[e].k1(), ZMM[e], m)?;
        let mant = self.kb(0x007F_FFFF);
        self.a.vpandd(ZMM[xs], ZMM[xs], mant)?;
        let one_bits = self.kb(0x3F80_0000);
        self.a.vpord(ZMM[xs], ZMM[xs], one_bits)?;
        let m = xs;
        self.cmpk(2, m, GT, std::f32::consts::SQRT_2)?;
        let half = self.kf(0.5);
        self.a.vmulps(ZMM[m].k2(), ZMM[m], half)?;
        let one = self.kb(1);
        self.a.vpaddd(ZMM[e].k2(), ZMM[e], one)?;
        let num = self.alloc()?;
        let one = self.kf(1.0);
        self.a.vsubps(ZMM[num], ZMM[m], one)?;
        let one = self.kf(1.0);
        self.a.vaddps(ZMM[m], ZMM[m], one)?;
        let s = self.fdiv(num, m)?;
        self.free(num);
        self.free(m);
        let s2 = self.fmul(s, s)?;
        let p = self.horner(s2, &LOG2_POLY)?;
        let two_s = self.alloc()?;
        let two = self.kf(2.0);
        self.a.vmulps(ZMM[two_s], ZMM[s], two)?;
        self.free(s);
        let t = self.fmul(two_s, s2)?;
        self.a.vmulps(ZMM[t], ZMM[t], ZMM[p])?;
        self.free(s2);
        self.free(p);
        self.a.vaddps(ZMM[t], ZMM[two_s], ZMM[t])?;
        self.free(two_s);
        let l2e = self.kf(std::f32::consts::LOG2_E);
        self.a.vmulps(ZMM[t], ZMM[t], l2e)?;
        self.a.vcvtdq2ps(ZMM[e], ZMM[e])?;
        self.a.vaddps(ZMM[t], ZMM[t], ZMM[e])?;
        self.free(e);
        let r = t;
        self.fixup(r, x, Fix::ZeroInf(FIX_NEG_INF, FIX_POS_INF))?;
        // Below zero would be NaN too; every caller passes a magnitude.
        self.a.vcmpps(k1, ZMM[x], ZMM[x], UNORD)?;
        self.set_where(r, 1, f32::NAN)?;
        Ok(r)
    }

    fn abs(&mut self, x: V) -> R<V> {
        let t = self.alloc()?;
        let m = self.kb(!SIGN);
        self.a.vpandd(ZMM[t], ZMM[x], m)?;
        Ok(t)
    }

    fn pow(&mut self, x: V, y: V) -> R<V> {
        let abs_x = self.abs(x)?;
        let l = self.log2(abs_x)?;
        self.free(abs_x);
        let t = self.mul(y, l)?;
        self.free(l);
        let r = self.exp2(t)?;
        self.free(t);
        Ok(r)
    }

    /// `r` = a fixed value where `x` is ±0 (or +inf), in one `vfixupimmps` (classifies `x`
    /// without a compare; denormals are not zero).
    fn fixup(&mut self, r: V, x: V, fix: Fix) -> R {
        // One 4-bit response per class of x: 2 = ±0, 5 = +inf (0: keep r).
        let table = match fix {
            Fix::Zero(z) => z << 8,
            Fix::ZeroInf(z, inf) => z << 8 | inf << 20,
        };
        let t = self.kb(table);
        Ok(self.a.vfixupimmps(ZMM[r], ZMM[x], t, 0)?)
    }

    fn dot(&mut self, src: &[SrcRef; 3], n: usize) -> R<V> {
        let mut acc: Option<V> = None;
        for c in 0..n {
            let a = self.src(&src[0], c)?;
            let b = self.src(&src[1], c)?;
            let p = self.mul(a, b)?;
            acc = Some(match acc {
                None => p,
                Some(s) => {
                    self.a.vaddps(ZMM[s], ZMM[s], ZMM[p])?;
                    self.free(p);
                    s
                }
            });
        }
        Ok(acc.expect("n > 0"))
    }

    /// `k{k}` = the lanes a predicated write of component `c` reaches.
    fn pred_mask(&mut self, dst: &DstRef, c: usize, k: u8) -> R<bool> {
        let Some(p) = dst.pred else {
            return Ok(false);
        };
        let v = self.row(P0_ROW + p.comps[c] as u16)?;
        self.scratch_k(k);
        if p.not {
            self.a.vptestnmd(KREG[k as usize], ZMM[v], ZMM[v])?;
        } else {
            self.a.vptestmd(KREG[k as usize], ZMM[v], ZMM[v])?;
        }
        Ok(true)
    }

    /// Write the op's results (all computed before any is written).
    fn store(&mut self, dst: &DstRef, res: [Option<V>; 4]) -> R {
        let mut vals = [None; 4];
        for (c, v) in res.into_iter().enumerate() {
            let (true, Some(v)) = (self.writes(dst, c), v) else {
                continue;
            };
            let v = if dst.sat {
                // _sat: clamp to [0, 1]; NaN becomes 0 (maxps returns its second operand
                // for NaN; then minps keeps what is below 1).
                let t = self.alloc()?;
                let z = self.kf(0.0);
                self.a.vmaxps(ZMM[t], ZMM[v], z)?;
                let one = self.kf(1.0);
                self.a.vminps(ZMM[t], ZMM[t], one)?;
                t
            } else {
                v
            };
            vals[c] = Some(match dst.kind {
                DstKind::Rows(row) => (row + c as u16, v),
                DstKind::Addr => {
                    // C3: round half to even, saturating; NaN -> 0.
                    let t = self.alloc()?;
                    self.a.vrndscaleps(ZMM[t], ZMM[v], 0x08)?;
                    self.cmpk(2, t, GE, 2_147_483_648.0)?;
                    self.scratch_k(3);
                    self.a.vcmpps(k3, ZMM[t], ZMM[t], UNORD)?;
                    self.a.vcvttps2dq(ZMM[t], ZMM[t])?;
                    let m = self.pool_at(i32::MAX as u32);
                    self.a.vpbroadcastd(ZMM[t].k2(), dword_ptr(rbp + m))?;
                    self.a.vpxord(ZMM[t].k3(), ZMM[t], ZMM[t])?;
                    (A0_ROW + c as u16, t)
                }
                DstKind::Pred | DstKind::OutputByLoop(_) => {
                    unreachable!("setp stores its own masks; o[aL] is not compiled")
                }
            });
        }
        self.commit(dst, vals)
    }

    /// Write `(row, value)` per component: first everything that reads (predicate masks,
    /// the old values a predicated write keeps, a register of its own for each value), then
    /// the bindings — a value may sit in the register of a row this op writes.
    fn commit(&mut self, dst: &DstRef, vals: [Option<(u16, V)>; 4]) -> R {
        let mut owned: [Option<(u16, V)>; 4] = [None; 4];
        for (c, x) in vals.into_iter().enumerate() {
            let Some((row, v)) = x else {
                continue;
            };
            let v = if self.pred_mask(dst, c, 4)? {
                let old = self.row(row)?;
                let t = self.alloc()?;
                self.a.vpblendmd(ZMM[t].k4(), ZMM[old], ZMM[v])?;
                t
            } else if self.slot[v] != Slot::Temp || owned.iter().flatten().any(|&(_, o)| o == v) {
                self.copy(v)?
            } else {
                v
            };
            owned[c] = Some((row, v));
        }
        for (row, v) in owned.into_iter().flatten() {
            self.bind(row, v);
        }
        Ok(())
    }

    fn alu(&mut self, kind: Alu, dst: &DstRef, src: &[SrcRef; 3]) -> R {
        let live: [bool; 4] = std::array::from_fn(|c| self.writes(dst, c));
        if live == [false; 4] {
            return Ok(());
        }
        let on = |c: usize| live[c];
        let nargs = kind.componentwise_sources();
        if nargs > 0 {
            let mut res = [None; 4];
            for c in (0..4).filter(|&c| on(c)) {
                let mut a = [0; 3];
                for k in 0..nargs {
                    // x + (-y) is x - y in IEEE arithmetic: skip the negation.
                    a[k] = if kind == Alu::Add && k == 1 && src[1].xor != 0 {
                        self.src_unnegated(&src[1], c)?
                    } else {
                        self.src(&src[k], c)?
                    };
                }
                let v = match kind {
                    Alu::Mov | Alu::MovA => a[0],
                    Alu::Add if src[1].xor != 0 => self.fsub(a[0], a[1])?,
                    Alu::Add => self.fadd(a[0], a[1])?,
                    Alu::Mul => self.mul(a[0], a[1])?,
                    Alu::Mad => {
                        let p = self.mul(a[0], a[1])?;
                        self.a.vaddps(ZMM[p], ZMM[p], ZMM[a[2]])?;
                        p
                    }
                    // minps is `x < y ? x : y`, the interpreter's min.
                    Alu::Min => self.op3(|a, d, x, y| a.vminps(d, x, y), a[0], a[1])?,
                    Alu::Max => {
                        // `x >= y ? x : y` (maxps differs on +-0 and NaN).
                        self.a.vcmpps(k1, ZMM[a[0]], ZMM[a[1]], GE)?;
                        let t = self.alloc()?;
                        self.a.vblendmps(ZMM[t].k1(), ZMM[a[1]], ZMM[a[0]])?;
                        t
                    }
                    Alu::Slt | Alu::Sge => {
                        let cc = if kind == Alu::Slt { LT } else { GE };
                        self.a.vcmpps(k1, ZMM[a[0]], ZMM[a[1]], cc)?;
                        let t = self.alloc()?;
                        let one = self.km(1.0);
                        self.a.vbroadcastss(ZMM[t].k1().z(), one)?;
                        t
                    }
                    Alu::Abs => self.abs(a[0])?,
                    Alu::Frc => {
                        let t = self.alloc()?;
                        self.a.vrndscaleps(ZMM[t], ZMM[a[0]], 0x09)?;
                        self.a.vsubps(ZMM[t], ZMM[a[0]], ZMM[t])?;
                        t
                    }
                    Alu::Lrp => {
                        let d = self.fsub(a[1], a[2])?;
                        let p = self.mul(a[0], d)?;
                        self.free(d);
                        self.a.vaddps(ZMM[p], ZMM[p], ZMM[a[2]])?;
                        p
                    }
                    Alu::Sgn => {
                        // a < 0: -1; a == 0: 0; otherwise (NaN too) 1.
                        let t = self.constant(1.0)?;
                        self.fixup(t, a[0], Fix::Zero(FIX_POS_ZERO))?;
                        self.cmpk(1, a[0], LT, 0.0)?;
                        self.set_where(t, 1, -1.0)?;
                        t
                    }
                    _ => unreachable!("component-wise kinds"),
                };
                // The sources' own temporaries (modifiers) are done with.
                for &x in &a[..nargs] {
                    if x != v {
                        self.free(x);
                    }
                }
                res[c] = Some(v);
            }
            return self.store(dst, res);
        }
        let replicated = match kind {
            Alu::Dp3 => Some(self.dot(src, 3)?),
            Alu::Dp4 => Some(self.dot(src, 4)?),
            Alu::Rcp => {
                // (1 / 1 is 1 already: the pseudo-code's x == 1 case needs no code.)
                let x = self.src(&src[0], 0)?;
                let one = self.kreg(1.0)?;
                let r = self.fdiv(one, x)?;
                self.fixup(r, x, Fix::Zero(FIX_MAX))?;
                Some(r)
            }
            Alu::Rsq => {
                let x = self.src(&src[0], 0)?;
                let f = self.abs(x)?;
                let s = self.alloc()?;
                self.a.vsqrtps(ZMM[s], ZMM[f])?;
                let one = self.kreg(1.0)?;
                let r = self.fdiv(one, s)?;
                self.fixup(r, f, Fix::Zero(FIX_MAX))?;
                Some(r)
            }
            Alu::Exp => {
                let x = self.src(&src[0], 0)?;
                Some(self.exp2(x)?)
            }
            Alu::Log => {
                let x = self.src(&src[0], 0)?;
                let f = self.abs(x)?;
                let l = self.log2(f)?;
                self.fixup(l, f, Fix::Zero(FIX_NEG_MAX))?;
                Some(l)
            }
            Alu::Pow => {
                let x = self.src(&src[0], 0)?;
                let y = self.src(&src[1], 0)?;
                Some(self.pow(x, y)?)
            }
            _ => None,
        };
        if let Some(v) = replicated {
            return self.store(dst, [Some(v); 4]);
        }
        match kind {
            Alu::TexLdl { sampler, swizzle } => {
                for c in 0..4 {
                    let v = self.src(&src[0], c)?;
                    self.a
                        .vmovups(zmmword_ptr(rsp + IO + c as i32 * 64), ZMM[v])?;
                }
                self.call(crate::jit::texldl::<16> as *const u8, Some(sampler as u32))?;
                let texel: [V; 4] = std::array::from_fn(|_| 0);
                let mut texel = texel;
                for (c, t) in texel.iter_mut().enumerate() {
                    *t = self.alloc()?;
                    self.a
                        .vmovups(ZMM[*t], zmmword_ptr(rsp + IO + c as i32 * 64))?;
                }
                let res = std::array::from_fn(|c| Some(texel[(swizzle >> (2 * c) & 3) as usize]));
                self.store(dst, res)
            }
            Alu::SinCos => {
                let x = self.src(&src[0], 0)?;
                self.a.vmovups(zmmword_ptr(rsp + IO), ZMM[x])?;
                self.call(crate::jit::sincos::<16> as *const u8, None)?;
                let cos = self.alloc()?;
                self.a.vmovups(ZMM[cos], zmmword_ptr(rsp + IO))?;
                let sin = self.alloc()?;
                self.a.vmovups(ZMM[sin], zmmword_ptr(rsp + IO + 64))?;
                let z = self.constant(0.0)?;
                self.store(dst, [Some(cos), Some(sin), Some(z), Some(z)])
            }
            Alu::Lit => {
                let x = self.src(&src[0], 0)?;
                let y = self.src(&src[0], 1)?;
                let w = self.src(&src[0], 3)?;
                let power = self.clamp(w, -LIT_POWER, LIT_POWER)?;
                let pw = self.pow(y, power)?;
                let one = self.constant(1.0)?;
                self.cmpk(2, x, GT, 0.0)?;
                self.cmpk(3, y, GT, 0.0)?;
                let r1 = self.alloc()?;
                self.a.vmovaps(ZMM[r1].k2().z(), ZMM[x])?;
                self.a.kandw(k3, k2, k3)?;
                self.a.vmovaps(ZMM[pw].k3().z(), ZMM[pw])?;
                self.store(dst, [Some(one), Some(r1), Some(pw), Some(one)])
            }
            Alu::Dst => {
                let ay = self.src(&src[0], 1)?;
                let az = self.src(&src[0], 2)?;
                let by = self.src(&src[1], 1)?;
                let bw = self.src(&src[1], 3)?;
                let one = self.constant(1.0)?;
                let y = self.mul(ay, by)?;
                self.store(dst, [Some(one), Some(y), Some(az), Some(bw)])
            }
            Alu::Crs => {
                let mut a = [0; 3];
                let mut b = [0; 3];
                for c in 0..3 {
                    a[c] = self.src(&src[0], c)?;
                }
                for c in 0..3 {
                    b[c] = self.src(&src[1], c)?;
                }
                let mut r = [None; 4];
                for (c, (i, j)) in [(1, 2), (2, 0), (0, 1)].into_iter().enumerate() {
                    let p = self.mul(a[i], b[j])?;
                    let q = self.mul(a[j], b[i])?;
                    self.a.vsubps(ZMM[p], ZMM[p], ZMM[q])?;
                    self.free(q);
                    r[c] = Some(p);
                }
                self.store(dst, r)
            }
            Alu::Nrm => {
                let mut a = [0; 4];
                for c in 0..4 {
                    a[c] = self.src(&src[0], c)?;
                }
                let f = self.mul(a[0], a[0])?;
                for c in 1..3 {
                    let p = self.mul(a[c], a[c])?;
                    self.a.vaddps(ZMM[f], ZMM[f], ZMM[p])?;
                    self.free(p);
                }
                let r = self.alloc()?;
                self.a.vsqrtps(ZMM[r], ZMM[f])?;
                let one = self.kreg(1.0)?;
                self.a.vdivps(ZMM[r], ZMM[one], ZMM[r])?;
                // f == 0 (not NaN): the largest float.
                self.fixup(r, f, Fix::Zero(FIX_MAX))?;
                self.free(f);
                // r is final: its mask serves all four products.
                self.reused_temp = Some(r);
                let mut out = [None; 4];
                for c in 0..4 {
                    out[c] = Some(self.mul(a[c], r)?);
                }
                self.store(dst, out)
            }
            Alu::Setp(cmp) => {
                let cc = match cmp {
                    Comparison::Gt => GT,
                    Comparison::Eq => EQ,
                    Comparison::Ge => GE,
                    Comparison::Lt => LT,
                    Comparison::Ne => NEQ,
                    Comparison::Le => LE,
                };
                let mut res = [None; 4];
                for c in (0..4).filter(|&c| on(c)) {
                    let a = self.src(&src[0], c)?;
                    let b = self.src(&src[1], c)?;
                    self.a.vcmpps(k1, ZMM[a], ZMM[b], cc)?;
                    let t = self.alloc()?;
                    self.a.vpternlogd(ZMM[t].k1().z(), ZMM[t], ZMM[t], 0xFF)?;
                    res[c] = Some(t);
                }
                let vals = std::array::from_fn(|c| res[c].map(|v| (P0_ROW + c as u16, v)));
                self.commit(dst, vals)
            }
            _ => unreachable!("supported() admits only these kinds"),
        }
    }

    /// Call a callback with the frame's io slot (after writing every cached row back:
    /// the callee may use every vector register).
    fn call(&mut self, f: *const u8, sampler: Option<u32>) -> R {
        self.flush()?;
        self.forget_masks();
        self.a.vzeroupper()?;
        match sampler {
            Some(s) => {
                self.a.mov(rdi, qword_ptr(rsp + SAMPLING))?;
                self.a.mov(esi, s)?;
                self.a.mov(rdx, rsp)?;
            }
            None => self.a.mov(rdi, rsp)?,
        }
        self.a.mov(rax, f as u64)?;
        Ok(self.a.call(rax)?)
    }

    // ---- gathers ---------------------------------------------------------------------

    /// Rows = c[base + a0.comp] per lane; outside the file, the zero register at its end.
    fn gather_const_a0(&mut self, dst: u16, base: i32, comp: u8) -> R {
        let a = self.row(A0_ROW + comp as u16)?;
        let i = self.alloc()?;
        let b = self.kb(base as u32);
        self.a.vpaddd(ZMM[i], ZMM[a], b)?;
        let last = self.alloc()?;
        self.a.vpbroadcastd(ZMM[last], dword_ptr(rsp + NCONSTS))?;
        let one = self.kb(1);
        self.a.vpsubd(ZMM[last], ZMM[last], one)?;
        self.a.vpcmpud(k1, ZMM[i], ZMM[last], 1)?;
        self.a.vmovdqa32(ZMM[last].k1(), ZMM[i])?;
        // Each lane's register whole (16 bytes), then a transpose: cheaper than four
        // 16-lane gathers.
        self.a.vpslld(ZMM[last], ZMM[last], 4)?;
        self.a.vmovdqu32(zmmword_ptr(rsp + IO), ZMM[last])?;
        let mut z = [0; 4];
        for (q, zq) in z.iter_mut().enumerate() {
            *zq = self.alloc()?;
            for k in 0..4 {
                // z[q] lane k = lane 4k + q.
                let lane = 4 * k + q as i32;
                self.a.mov(eax, dword_ptr(rsp + IO + 4 * lane))?;
                let m = xmmword_ptr(r12 + rax);
                if k == 0 {
                    self.a.vmovups(XMM[*zq], m)?;
                } else {
                    self.a.vinsertf32x4(ZMM[*zq], ZMM[*zq], m, k)?;
                }
            }
        }
        let out = self.transpose(z)?;
        for (c, t) in out.into_iter().enumerate() {
            self.bind(dst + c as u16, t);
        }
        Ok(())
    }

    /// Rows = c[base + a0.comp] per lane, and the registers `k` further on that the later
    /// reads `later` (pc, k) take, into the frame: one address per lane for all of them.
    /// The lanes' first register is clamped to -2 ..= the zero register (outside: the zero
    /// register), so the registers k further on are file registers or the zero padding
    /// around the file (device::CONST_PAD) exactly where c[base + k + a0] is outside it.
    fn gather_const_a0_run(&mut self, dst: u16, base: i32, comp: u8, later: &[(usize, i32)]) -> R {
        let a = self.row(A0_ROW + comp as u16)?;
        let i = self.alloc()?;
        let b = self.kb((base + 2) as u32);
        self.a.vpaddd(ZMM[i], ZMM[a], b)?;
        // The zero register is number nconsts - 1: + 2.
        let limit = self.alloc()?;
        self.a.vpbroadcastd(ZMM[limit], dword_ptr(rsp + NCONSTS))?;
        let one = self.kb(1);
        self.a.vpaddd(ZMM[limit], ZMM[limit], one)?;
        self.a.vpminud(ZMM[i], ZMM[i], ZMM[limit])?;
        self.free(limit);
        self.a.vpslld(ZMM[i], ZMM[i], 4)?;
        self.a.vmovdqu32(zmmword_ptr(rsp + IO), ZMM[i])?;
        self.free(i);
        // Register k of lane l at r12 + 16 * (index + 2) + 16 * k - 32.
        let ks: Vec<i32> = std::iter::once(0)
            .chain(later.iter().map(|l| l.1))
            .collect();
        let mut z = vec![[0; 4]; ks.len()];
        for q in 0..4 {
            for zk in z.iter_mut() {
                zk[q] = self.alloc()?;
            }
            for kk in 0..4 {
                // z[k][q] lane kk = lane 4 kk + q.
                let lane = 4 * kk + q as i32;
                self.a.mov(eax, dword_ptr(rsp + IO + 4 * lane))?;
                for (zk, &k) in z.iter().zip(&ks) {
                    let m = xmmword_ptr(r12 + rax + (16 * k - 32));
                    if kk == 0 {
                        self.a.vmovups(XMM[zk[q]], m)?;
                    } else {
                        self.a.vinsertf32x4(ZMM[zk[q]], ZMM[zk[q]], m, kk)?;
                    }
                }
            }
        }
        for (n, zk) in z.into_iter().enumerate() {
            let rows = self.transpose(zk)?;
            if n == 0 {
                for (c, t) in rows.into_iter().enumerate() {
                    self.bind(dst + c as u16, t);
                }
            } else {
                let at = self.stash[&later[n - 1].0] + self.g as i32 * 256;
                for (c, t) in rows.into_iter().enumerate() {
                    self.a
                        .vmovups(zmmword_ptr(rsp + at + c as i32 * 64), ZMM[t])?;
                    self.free(t);
                }
            }
        }
        Ok(())
    }

    /// Rows = c[base + aL] (uniform).
    fn gather_const_al(&mut self, dst: u16, base: i32) -> R {
        self.a.mov(eax, dword_ptr(rsp + AL))?;
        self.a.add(eax, base)?;
        self.a.movsxd(rax, eax)?;
        self.a.mov(rcx, qword_ptr(rsp + NCONSTS))?;
        self.a.lea(rdx, rcx - 1)?;
        self.a.cmp(rax, rcx)?;
        self.a.cmovae(rax, rdx)?;
        self.a.shl(rax, 4)?;
        for c in 0..4 {
            if self.live(dst + c as u16) {
                let t = self.alloc()?;
                self.a.vbroadcastss(ZMM[t], dword_ptr(r12 + rax + c * 4))?;
                self.bind(dst + c as u16, t);
            }
        }
        Ok(())
    }

    /// Rows = v[base + aL] (uniform); outside v0..v15, zero.
    fn gather_input_al(&mut self, dst: u16, base: i32) -> R {
        self.a.mov(eax, dword_ptr(rsp + AL))?;
        self.a.add(eax, base)?;
        self.a.xor(ecx, ecx)?;
        self.a.xor(edx, edx)?;
        self.a.mov(esi, 0xFFFFu32)?;
        self.a.cmp(eax, INPUTS as u32)?;
        self.a.cmovb(ecx, esi)?;
        self.a.cmovb(edx, eax)?;
        self.a.kmovw(k1, ecx)?;
        self.a.shl(rdx, 10)?;
        for c in 0..4u16 {
            let t = self.alloc()?;
            let off = (INPUT_BASE + c) as i32 * ROW + self.g as i32 * 64;
            self.a
                .vmovups(ZMM[t].k1().z(), zmmword_ptr(rbx + rdx + off))?;
            self.bind(dst + c, t);
        }
        Ok(())
    }

    /// Rows = v[base + a0.comp] per lane; outside v0..v15, zero.
    fn gather_input_a0(&mut self, dst: u16, base: i32, comp: u8) -> R {
        let a = self.row(A0_ROW + comp as u16)?;
        let i = self.alloc()?;
        let b = self.kb(base as u32);
        self.a.vpaddd(ZMM[i], ZMM[a], b)?;
        let n = self.kb(INPUTS as u32);
        self.a.vpcmpud(k1, ZMM[i], n, 1)?;
        // Lane l of input register i, component 0, is dword i * 256 + l past v0.x.
        self.a.vpslld(ZMM[i], ZMM[i], 8)?;
        let iota = self.iota();
        self.a.vpaddd(ZMM[i], ZMM[i], iota)?;
        let mut out = [0; 4];
        for (c, o) in out.iter_mut().enumerate() {
            let t = self.alloc()?;
            self.a.vpxord(ZMM[t], ZMM[t], ZMM[t])?;
            self.scratch_k(2);
            self.a.kmovw(k2, k1)?;
            let off = (INPUT_BASE as i32 + c as i32) * ROW + self.g as i32 * 64;
            self.a
                .vgatherdps(ZMM[t].k2(), dword_ptr(rbx + ZMM[i] * 4 + off))?;
            *o = t;
        }
        for (c, t) in out.into_iter().enumerate() {
            self.bind(dst + c as u16, t);
        }
        Ok(())
    }

    /// An operation on the lanes of group `self.g`.
    fn lanes(&mut self, op: &Op) -> R {
        match *op {
            Op::Alu { kind, dst, src } => self.alu(kind, &dst, &src),
            Op::GatherConstA0 { dst, base, comp } => {
                if let Some(&at) = self.stash.get(&self.pc) {
                    // Read with an earlier c[a0.n + k]: waiting in the frame.
                    for c in 0..4u16 {
                        let t = self.alloc()?;
                        self.a.vmovups(
                            ZMM[t],
                            zmmword_ptr(rsp + at + self.g as i32 * 256 + c as i32 * 64),
                        )?;
                        self.bind(dst + c, t);
                    }
                    Ok(())
                } else if let Some(later) = self.palette.get(&self.pc).cloned() {
                    self.gather_const_a0_run(dst, base, comp, &later)
                } else {
                    self.gather_const_a0(dst, base, comp)
                }
            }
            Op::GatherConstAl { dst, base } => self.gather_const_al(dst, base),
            Op::GatherInputAl { dst, base } => self.gather_input_al(dst, base),
            Op::GatherInputA0 { dst, base, comp } => self.gather_input_a0(dst, base, comp),
            _ => unreachable!("per-lane operations only"),
        }
    }

    // ---- fused fetch and store --------------------------------------------------------

    /// rax = the address of `base` plus `bytes_per_lane` times this group's first lane (in
    /// the batch).
    /// Up to `max` of the pass's remaining prefetches.
    fn emit_prefetches(&mut self, max: usize) -> R {
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
    fn lane_offsets(&mut self, stride: u32) -> R<V> {
        let v = self.alloc()?;
        if self.layout.as_ref().is_some_and(|l| l.indexed) {
            // This group's 16 indices: the pass's first lane (GROUP / 4) plus 16 per group.
            self.a.mov(rax, qword_ptr(rsp + BATCH_IO))?;
            self.a.mov(rax, qword_ptr(rax + INDICES_SLOT))?;
            self.a.mov(rcx, qword_ptr(rsp + GROUP))?;
            self.a
                .vmovdqu32(ZMM[v], zmmword_ptr(rax + rcx + self.g as i32 * 64))?;
            let m = self.kb(stride);
            self.a.vpmulld(ZMM[v], ZMM[v], m)?;
        } else {
            let first = self.g * 16 * stride;
            let m = self.vector(std::array::from_fn(|l| first + l as u32 * stride));
            self.a.vmovdqu32(ZMM[v], m)?;
        }
        Ok(v)
    }

    /// Fused code: rax = the address of this group's first lane's element of input `base / 8`
    /// (indexed draws: of vertex 0), or of its output record (`base` = OUT_SLOT).
    fn lane_address(&mut self, base: i32, bytes_per_lane: u32) -> R {
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
    fn fetch(&mut self, reg: u8, floats: u8, stride: u32) -> R {
        let indexed = self.layout.as_ref().is_some_and(|l| l.indexed);
        if indexed {
            // Each lane's element offset, from the index buffer, to the scratch area.
            let offsets = self.lane_offsets(stride)?;
            self.a.vmovdqu32(zmmword_ptr(rsp + IO), ZMM[offsets])?;
            self.free(offsets);
        }
        self.lane_address(reg as i32 * 8, stride)?;
        let g = self.g;
        let at = |v: u32| ((g * 16 + v) * stride) as i32;
        if floats < 4 {
            // Only the element's own floats are read (masked loads do not fault).
            self.a.mov(ecx, (1u32 << floats) - 1)?;
            self.a.kmovw(k1, ecx)?;
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
            for k in 0..4u32 {
                let lane = 4 * k + q as u32;
                let m = if indexed {
                    self.a.mov(ecx, dword_ptr(rsp + IO + 4 * lane as i32))?;
                    xmmword_ptr(rax + rcx)
                } else {
                    xmmword_ptr(rax + at(lane))
                };
                let xmm = XMM[*zq];
                match (t, k) {
                    (None, 0) => self.a.vmovups(xmm, m)?,
                    (None, _) => self.a.vinsertf32x4(ZMM[*zq], ZMM[*zq], m, k as i32)?,
                    (Some(_), 0) => self.a.vmovups(xmm.k1().z(), m)?,
                    (Some(t), _) => {
                        let tx = XMM[t];
                        self.a.vmovups(tx.k1().z(), m)?;
                        self.a.vinsertf32x4(ZMM[*zq], ZMM[*zq], tx, k as i32)?;
                    }
                }
            }
            if let Some(t) = t {
                self.free(t);
            }
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
    fn bind_input(&mut self, reg: u8, rows: [V; 4]) -> R {
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
                self.a.vmovups(at, ZMM[v])?;
                self.slot[v] = Slot::Row { key, dirty: false };
            }
        }
        Ok(())
    }

    /// Input register `reg` of this group's 16 vertices from elements of a packed type (4 or
    /// 8 bytes: colours, bytes, shorts, 10-bit fields, halves), decoded as
    /// [`DeclType::decode`] does: each lane's dwords gathered, fields shifted out, converted,
    /// divided by the type's scale.
    fn fetch_packed(&mut self, reg: u8, ty: DeclType, stride: u32) -> R {
        let index = self.lane_offsets(stride)?;
        self.lane_address(reg as i32 * 8, stride)?;
        let dwords = if ty.size() == 8 { 2 } else { 1 };
        let mut d = [0; 2];
        for (i, word) in d.iter_mut().enumerate().take(dwords) {
            *word = self.alloc()?;
            self.scratch_k(2);
            self.a.kxnorw(k2, k2, k2)?;
            self.a.vpxord(ZMM[*word], ZMM[*word], ZMM[*word])?;
            self.a
                .vpgatherdd(ZMM[*word].k2(), dword_ptr(rax + ZMM[index] + 4 * i as i32))?;
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
                    self.a.vpslld(ZMM[t], ZMM[d[dword]], shl)?;
                    if signed {
                        self.a.vpsrad(ZMM[t], ZMM[t], shr)?;
                    } else {
                        self.a.vpsrld(ZMM[t], ZMM[t], shr)?;
                    }
                    self.a.vcvtdq2ps(ZMM[t], ZMM[t])?;
                    if scale != 1.0 {
                        let k = self.kreg(scale)?;
                        self.a.vdivps(ZMM[t], ZMM[t], ZMM[k])?;
                    }
                    t
                }
                Part::Half(h) => {
                    let t = self.alloc()?;
                    self.a.vpsrld(ZMM[t], ZMM[d[h / 2]], 16 * (h as u32 % 2))?;
                    self.a.vpmovdw(YMM[t], ZMM[t])?;
                    self.a.vcvtph2ps(ZMM[t], YMM[t])?;
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
    fn transpose(&mut self, x: [V; 4]) -> R<[V; 4]> {
        let mut t = [0; 4];
        for (i, ti) in t.iter_mut().enumerate() {
            *ti = self.alloc()?;
            let (a, b) = (ZMM[x[i / 2 * 2]], ZMM[x[i / 2 * 2 + 1]]);
            if i % 2 == 0 {
                self.a.vunpcklps(ZMM[*ti], a, b)?;
            } else {
                self.a.vunpckhps(ZMM[*ti], a, b)?;
            }
        }
        for &v in &x {
            self.free(v);
        }
        // t0 = (0.0 1.0 0.1 1.1), t1 = (0.2 1.2 0.3 1.3), t2, t3 the same of 2 and 3.
        let mut r = [0; 4];
        for (c, rc) in r.iter_mut().enumerate() {
            *rc = self.alloc()?;
            let (a, b) = (ZMM[t[c / 2]], ZMM[t[c / 2 + 2]]);
            if c % 2 == 0 {
                self.a.vunpcklpd(ZMM[*rc], a, b)?;
            } else {
                self.a.vunpckhpd(ZMM[*rc], a, b)?;
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
    fn store_outputs(&mut self, ks: std::ops::Range<usize>) -> R {
        let record = self.p.outputs.len() as u32 * 16;
        let mut u = vec![];
        for k in ks.clone() {
            // The cache is empty here (the program's end): straight from the arena.
            let row = self.p.outputs[k].row;
            let mut x = [0; 4];
            for (c, xc) in x.iter_mut().enumerate() {
                *xc = self.alloc()?;
                let at = self.home(self.key(row + c as u16));
                self.a.vmovups(ZMM[*xc], at)?;
                self.a.vcmpps(k1, ZMM[*xc], ZMM[*xc], UNORD)?;
                self.set_where(*xc, 1, f32::NAN)?;
            }
            u.push(self.transpose(x)?);
        }
        self.lane_address(OUT_SLOT, record)?;
        // u[k][q] lane l = register k of vertex 4l + q.
        for v in 0..16u32 {
            for (k, uk) in ks.clone().zip(&u) {
                let (q, lane) = ((v % 4) as usize, v / 4);
                let m = xmmword_ptr(rax + ((self.g * 16 + v) * record + k as u32 * 16) as i32);
                if lane == 0 {
                    self.a.vmovups(m, XMM[uk[q]])?;
                } else {
                    self.a.vextractf32x4(m, ZMM[uk[q]], lane as i32)?;
                }
            }
        }
        Ok(())
    }

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
        // (temporaries, outputs not written on every path, a0, p0), aL and the count.
        self.label(&mut head)?;
        self.a.vpxord(zmm0, zmm0, zmm0)?;
        let mut zeroed: Vec<u16> = entry
            .into_iter()
            .filter(|&r| !(INPUT_BASE..OUTPUT_BASE).contains(&r) && !self.p.is_const_row(r))
            .collect();
        zeroed.sort_unstable();
        for row in zeroed {
            for g in 0..G {
                let at = self.home(row as u32 | g << 16);
                self.a.vmovups(at, zmm0)?;
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
                    for lane in 0..16 * G {
                        self.prefetch.push((slot | BY_INDEX, stride, lane as i32));
                    }
                } else {
                    for line in (0..16 * G * stride).step_by(64) {
                        self.prefetch
                            .push((slot, stride, (ahead * stride + line) as i32));
                    }
                }
            }
            for line in (0..16 * G * record).step_by(64) {
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
            // Four registers at a time: their transposes stay in registers.
            let regs = self.p.outputs.len();
            for g in 0..G {
                self.g = g;
                for first in (0..regs).step_by(4) {
                    self.store_outputs(first..regs.min(first + 4))?;
                    self.end_op();
                }
            }
            self.g = 0;
            self.flush_live(Some(&HashSet::new()))?;
        }
        self.a.add(rbx, 64 * G as i32)?;
        self.a.add(qword_ptr(rsp + GROUP), 64 * G as i32)?;
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
