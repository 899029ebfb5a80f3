//! Signatures: a shader's inputs and outputs with their semantics (`dxso::link`'s).

use super::shader::source_message;
use super::{DxsoStatus, Failure, guard, put, slice};
use dxso_format::source::Source;
use std::ffi::{CString, c_char};

/// Which signature `dxso_signature` lists (its `which`, a `uint32_t`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DxsoSignatureKind {
    /// A vertex shader's declared inputs (`dcl_* v#`), a pixel shader's interpolated inputs.
    Inputs = 0,
    /// A vertex shader's outputs (oPos, oD#, oT#, ... or vs_3_0's `o#`); a pixel shader's
    /// colours and depth: COLOR# (`oC#`; `r0` in ps_1_x) and DEPTH0 (`oDepth`).
    Outputs = 1,
}

impl DxsoSignatureKind {
    /// `which` as C passed it: one of the enum's values, else an argument failure.
    fn from_c(which: u32) -> Result<DxsoSignatureKind, Failure> {
        match which {
            0 => Ok(DxsoSignatureKind::Inputs),
            1 => Ok(DxsoSignatureKind::Outputs),
            _ => Err(Failure::argument(format!(
                "which must be a DxsoSignatureKind (0 or 1), not {which}"
            ))),
        }
    }
}

/// One register with a semantic. Its strings are owned by the list it came from.
#[repr(C)]
#[derive(Debug)]
pub struct DxsoElement {
    /// "TEXCOORD0", "COLOR1", "DEPTH0".
    pub semantic: *const c_char,
    /// D3DDECLUSAGE (0 POSITION .. 10 COLOR, 11 FOG, 12 DEPTH, 13 SAMPLE).
    pub usage: u32,
    /// Which of several registers with the same usage (TEXCOORD3 is 3).
    pub usage_index: u32,
    /// The register: "o2", "oPos", "v0", "t1", "oC0", "oDepth", "r0".
    pub register_name: *const c_char,
    /// The components used, bit 0 = x.
    pub mask: u32,
    /// The input is interpolated at the centroid (the `_centroid` modifier).
    pub centroid: bool,
}

/// A signature (opaque). Owned by the caller: free with `dxso_signature_free`.
pub struct DxsoSignature {
    items: Vec<DxsoElement>,
    /// The strings the items point into.
    _strings: Vec<CString>,
}

/// List the inputs or outputs (`which`: a DxsoSignatureKind value) of the shader in `len`
/// bytes at `data` (assembly text, binary tokens or a hex listing; it need not validate)
/// into `*out`, owned by the caller: free it with `dxso_signature_free`. Fails
/// (DXSO_STATUS_INPUT) for text that does not assemble and bytes that are not a shader;
/// DXSO_STATUS_ARGUMENT for a `which` that is not a DxsoSignatureKind.
///
/// # Safety
///
/// `data` points to `len` readable bytes (it may be NULL when `len` is 0); `out` is NULL
/// (DXSO_STATUS_ARGUMENT) or points to a writable `DxsoSignature *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_signature(
    data: *const u8,
    len: usize,
    which: u32,
    out: *mut *mut DxsoSignature,
) -> DxsoStatus {
    guard(|| {
        let which = DxsoSignatureKind::from_c(which)?;
        // SAFETY: the caller's contract.
        let data = unsafe { slice(data, len, "data") }?;
        let source = Source::load(data).map_err(|e| Failure::input(source_message(&e)))?;
        let s = &source.shader;
        let elements = match which {
            DxsoSignatureKind::Inputs if s.version.is_vertex() => {
                dxso_format::link::vertex_inputs(s)
            }
            DxsoSignatureKind::Inputs => dxso_format::link::input_signature(s),
            DxsoSignatureKind::Outputs => dxso_format::link::output_signature(s),
        };
        let mut strings = Vec::new();
        let mut keep = |s: String| {
            let c = CString::new(s).unwrap_or_default();
            let p = c.as_ptr();
            strings.push(c);
            p
        };
        let items = elements
            .iter()
            .map(|e| DxsoElement {
                semantic: keep(e.semantic()),
                usage: e.usage as u32,
                usage_index: e.usage_index.into(),
                register_name: keep(e.register_name()),
                mask: e.mask.into(),
                centroid: e.centroid,
            })
            .collect();
        let list = Box::into_raw(Box::new(DxsoSignature {
            items,
            _strings: strings,
        }));
        // SAFETY: the caller's contract.
        unsafe { put(out, list, "out") }.inspect_err(|_| {
            // SAFETY: just made by Box::into_raw and not handed out.
            drop(unsafe { Box::from_raw(list) });
        })
    })
}

/// The number of elements in `list` (0 for NULL).
///
/// # Safety
///
/// `list` is NULL or a list from `dxso_signature`, not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_signature_count(list: *const DxsoSignature) -> usize {
    // SAFETY: a non-null `list` came from `dxso_signature` and is not freed (the contract).
    std::panic::catch_unwind(|| unsafe { list.as_ref() }.map_or(0, |l| l.items.len())).unwrap_or(0)
}

/// Element `i` of `list`, or NULL when `i` is out of range. Owned by the list: valid until
/// `dxso_signature_free`.
///
/// # Safety
///
/// `list` is NULL or a list from `dxso_signature`, not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_signature_get(
    list: *const DxsoSignature,
    i: usize,
) -> *const DxsoElement {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: as in dxso_signature_count.
        unsafe { list.as_ref() }
            .and_then(|l| l.items.get(i))
            .map_or(std::ptr::null(), |e| e as *const DxsoElement)
    }))
    .unwrap_or(std::ptr::null())
}

/// Free a list from `dxso_signature` (and every string in it). NULL is fine.
///
/// # Safety
///
/// `list` is NULL or a list from `dxso_signature`, freed once, and not in use by another
/// thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_signature_free(list: *mut DxsoSignature) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if !list.is_null() {
            // SAFETY: it came from Box::into_raw in dxso_signature and is freed once.
            drop(unsafe { Box::from_raw(list) });
        }
    }));
}
