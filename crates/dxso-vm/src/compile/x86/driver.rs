//! The x86 generator's driver: a program assembled at one width as fast code (products
//! `fma(x, y, +0)` with their checks) and, where those checks exist, as exact code, each
//! copied into its own read-execute mapping; for vertex draws also fused with fetch and
//! store (`compile_fused`).

use super::Width;
use super::{Gen, finite};
use crate::Options;
use crate::compile::{Entry, Fused, FusedEntry, Layout};
use crate::fetch::DeclType;
use crate::program::Program;

/// The generated code (its constants follow it in the same mapping): the fast code, and
/// where it has products without the zero rule's compares, the exact code for the batches
/// it hands back (`finite`).
pub(crate) struct Code {
    _maps: Vec<memmap2::Mmap>,
    pub(crate) entry: Entry,
    pub(crate) exact: Option<Entry>,
}

/// What an entry returns for a batch it hands back to the exact code: a product met an inf
/// or NaN (or the batch passed the instruction limit, which the exact code decides).
pub(crate) const RERUN: u32 = 2;

/// Compile `p` (already checked by `compile::supported`) at width `w`. Products are
/// `fma(x, y, +0)` (both widths' paths require FMA: `Isa`) unless
/// [`Options::fast_products`] is off, which asks for the exact code alone (for measuring).
pub(crate) fn compile(p: &Program, w: Width, options: &Options) -> Result<Code, String> {
    // SAFETY: the code follows the System V calling convention with `Entry`'s parameters.
    let to_entry = |e| unsafe { std::mem::transmute::<*const u8, Entry>(e) };
    let (maps, entries) = assemble_both(p, None, w, options, to_entry)?;
    Ok(Code {
        _maps: maps,
        entry: entries[0],
        exact: entries.get(1).copied(),
    })
}

/// Code mappings and their entries.
type Assembled<E> = (Vec<memmap2::Mmap>, Vec<E>);

/// `p` assembled as fast code and, where that checks products, as exact code too: the
/// mappings and the entries (fast first), each made a function by `to_entry`.
fn assemble_both<E>(
    p: &Program,
    layout: Option<Layout>,
    w: Width,
    options: &Options,
    to_entry: impl Fn(*const u8) -> E,
) -> Result<Assembled<E>, String> {
    let mut maps = vec![];
    let mut entries = vec![];
    // Pixel programs: the exact code alone (the checks' analysis, `finite`, does not know
    // the pixel ops: texkill, the quad differences, sampling).
    let fast_products = options.fast_products && p.pixel.is_none();
    for fast in [fast_products, false] {
        let (map, entry, checked) = assemble(p, layout.clone(), w, fast, options)?;
        maps.push(map);
        entries.push(to_entry(entry));
        if !checked {
            break;
        }
    }
    Ok((maps, entries))
}

/// Compile `p` (already checked by `compile::supported`) at width `w` with fetch and store
/// fused for draws laid out as `layout` says.
pub(crate) fn compile_fused(
    p: &Program,
    layout: &Layout,
    w: Width,
    options: &Options,
) -> Result<Fused, String> {
    if w == Width::Ymm {
        // Halves convert with F16C's vcvtph2ps, which AVX2 does not imply.
        let halves = layout
            .inputs
            .iter()
            .any(|i| matches!(i.1, DeclType::Float16_2 | DeclType::Float16_4));
        if halves && !std::arch::is_x86_feature_detected!("f16c") {
            return Err("FLOAT16 inputs without F16C".into());
        }
    }
    // SAFETY: the code follows the System V calling convention with `FusedEntry`'s
    // parameters.
    let to_entry = |e| unsafe { std::mem::transmute::<*const u8, FusedEntry>(e) };
    let (maps, entries) = assemble_both(p, Some(layout.clone()), w, options, to_entry)?;
    Ok(Fused {
        _maps: maps,
        layout: layout.clone(),
        entry: entries[0],
        exact: entries.get(1).copied(),
        odds: Default::default(),
    })
}

/// The code's mapping, its entry, and whether it is fast code that checks its products
/// (`fast` asked for it, and `p` has products it changes).
fn assemble(
    p: &Program,
    layout: Option<Layout>,
    w: Width,
    fast: bool,
    options: &Options,
) -> Result<(memmap2::Mmap, *const u8, bool), String> {
    // Subroutines inlined (the generator has no calls).
    let inlined = p.inline_calls(MAX_INLINED_OPS)?;
    let p = inlined.as_ref().unwrap_or(p);
    let checks = if fast { finite::checks(p) } else { None };
    let mut g = Gen::new(p, layout, w, checks).map_err(|e| e.to_string())?;
    g.program().map_err(|e| {
        format!(
            "{e} (op {} of {}: {:?})",
            g.pc,
            g.p.ops.len(),
            g.p.ops.get(g.pc)
        )
    })?;
    let code = g.a.assemble(0).map_err(|e| e.to_string())?;
    let mut map = memmap2::MmapMut::map_anon(code.len()).map_err(|e| e.to_string())?;
    map.copy_from_slice(&code);
    // The code is position independent (relative branches and constant reads, absolute
    // callback addresses).
    let map = map.make_exec().map_err(|e| e.to_string())?;
    let entry = map.as_ptr();
    if let Some(path) = &options.jit_dump {
        // Raw machine code: `objdump -D -b binary -mi386:x86-64 FILE.bin`; its address, to
        // place a profiler's samples in it.
        let ext = if !fast && options.fast_products && p.pixel.is_none() {
            "exact.bin"
        } else {
            "bin"
        };
        let _ = std::fs::write(path.with_extension(ext), &code);
        eprintln!("dxso: {} bytes of code at {entry:p}", code.len());
    }
    Ok((map, entry, g.fast))
}

/// The most ops a program may have once its subroutine calls are inlined (more: not
/// compiled).
const MAX_INLINED_OPS: usize = 16_384;
