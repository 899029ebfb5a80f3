//! Signatures: a shader's inputs and outputs with their semantics (`dxso::link`'s).

use crate::shader::source_message;
use crate::{DxsoStatus, Failure, guard, put, slice};
use dxso_format::source::Source;
use std::ffi::{CString, c_char};

/// Which signature `dxso_signature` lists.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DxsoSignatureKind {
    /// A vertex shader's declared inputs (`dcl_* v#`), a pixel shader's interpolated inputs.
    Inputs = 0,
    /// A vertex shader's outputs (oPos, oD#, oT#, ... or vs_3_0's `o#`); a pixel shader's
    /// colours and depth: COLOR# (`oC#`; `r0` in ps_1_x) and DEPTH0 (`oDepth`).
    Outputs = 1,
}

/// One register with a semantic. Its strings are owned by the list it came from.
#[repr(C)]
#[derive(Debug)]
pub struct DxsoElement {
    /// "TEXCOORD0", "COLOR1", "DEPTH0".
    pub semantic: *const c_char,
    /// D3DDECLUSAGE (0 POSITION .. 10 COLOR, 11 FOG, 12 DEPTH, 13 SAMPLE).
    pub usage: u32,
    pub usage_index: u32,
    /// The register: "o2", "oPos", "v0", "t1", "oC0", "oDepth", "r0".
    pub register_name: *const c_char,
    /// The components used, bit 0 = x.
    pub mask: u32,
    pub centroid: bool,
}

/// A signature (opaque). Owned by the caller: free with `dxso_signature_free`.
pub struct DxsoSignature {
    items: Vec<DxsoElement>,
    /// The strings the items point into.
    _strings: Vec<CString>,
}

/// List the inputs or outputs (`which`) of the shader in `len` bytes at `data` (assembly
/// text, binary tokens or a hex listing; it need not validate) into `*out`, owned by the
/// caller: free it with `dxso_signature_free`. Fails (DXSO_STATUS_INPUT) for text that does
/// not assemble and bytes that are not a shader.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_signature(
    data: *const u8,
    len: usize,
    which: DxsoSignatureKind,
    out: *mut *mut DxsoSignature,
) -> DxsoStatus {
    guard(|| {
        let source = Source::load(slice(data, len, "data")?)
            .map_err(|e| Failure::input(source_message(&e)))?;
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
        put(out, list, "out").inspect_err(|_| {
            // SAFETY: just made by Box::into_raw and not handed out.
            drop(unsafe { Box::from_raw(list) });
        })
    })
}

/// The number of elements in `list` (0 for NULL).
#[unsafe(no_mangle)]
pub extern "C" fn dxso_signature_count(list: *const DxsoSignature) -> usize {
    // SAFETY: a non-null `list` came from `dxso_signature` and is not freed (the contract).
    std::panic::catch_unwind(|| unsafe { list.as_ref() }.map_or(0, |l| l.items.len())).unwrap_or(0)
}

/// Element `i` of `list`, or NULL when `i` is out of range. Owned by the list: valid until
/// `dxso_signature_free`.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_signature_get(list: *const DxsoSignature, i: usize) -> *const DxsoElement {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: as in dxso_signature_count.
        unsafe { list.as_ref() }
            .and_then(|l| l.items.get(i))
            .map_or(std::ptr::null(), |e| e as *const DxsoElement)
    }))
    .unwrap_or(std::ptr::null())
}

/// Free a list from `dxso_signature` (and every string in it). NULL is fine.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_signature_free(list: *mut DxsoSignature) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if !list.is_null() {
            // SAFETY: it came from Box::into_raw in dxso_signature and is freed once.
            drop(unsafe { Box::from_raw(list) });
        }
    }));
}
