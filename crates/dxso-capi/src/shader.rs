//! Shaders: assemble, disassemble, validate (diagnostics as a list).

use super::{DxsoBuffer, DxsoStatus, Failure, c_string, guard, put, slice, writable};
use dxso_format::source::{Position, Source, SourceError};
use dxso_format::validate::{Caps, Severity};
use std::ffi::{CStr, CString, c_char};

/// What shaders are called in messages (`<input>:2:9: error: ...`).
pub(crate) const NAME: &str = "<input>";

/// `len` bytes at `text` as UTF-8.
///
/// # Safety
///
/// As [`slice`]'s.
unsafe fn utf8<'a>(text: *const c_char, len: usize) -> Result<&'a str, Failure> {
    // SAFETY: the caller's contract.
    std::str::from_utf8(unsafe { slice(text.cast::<u8>(), len, "text") }?)
        .map_err(|e| Failure::argument(format!("the text is not UTF-8: {e}")))
}

/// The message the command line prints for a source that cannot be read.
pub(crate) fn source_message(e: &SourceError) -> String {
    e.render(NAME).trim_end().to_string()
}

/// `dxso_assemble` flag: build the constant table (CTAB) from the listing's `// Parameters:`
/// header when the text carries no CTAB comment (`dxso asm --ctab`).
pub const DXSO_ASSEMBLE_CTAB: u32 = 1;

/// Assemble `len` bytes of assembly text at `text` into bytecode (little-endian 32-bit
/// tokens) in `*out`; `flags` is 0 or `DXSO_ASSEMBLE_CTAB`. On success `*out` is owned by the caller: free it with
/// `dxso_buffer_free`. On failure `*out` is left untouched and `dxso_last_error()` has every
/// error with its line and column.
///
/// # Safety
///
/// `text` points to `len` readable bytes (it may be NULL when `len` is 0); `out` is NULL
/// (DXSO_STATUS_ARGUMENT) or points to a writable `DxsoBuffer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_assemble(
    text: *const c_char,
    len: usize,
    flags: u32,
    out: *mut DxsoBuffer,
) -> DxsoStatus {
    guard(|| {
        writable(out, "out")?;
        // SAFETY: the caller's contract.
        let text = unsafe { utf8(text, len) }?;
        let fail = |e| Failure::input(source_message(&SourceError::Parse(e)));
        let shader = if flags & DXSO_ASSEMBLE_CTAB != 0 {
            dxso_format::text::parse_with_header(text)
        } else {
            dxso_format::text::parse(text)
        }
        .map_err(fail)?;
        let bytes = dxso_format::binary::write_bytes(&shader)
            .map_err(|e| Failure::input(format!("{NAME}: error: {e}")))?;
        // SAFETY: the caller's contract.
        unsafe { put(out, DxsoBuffer::from_vec(bytes), "out") }
    })
}

/// The assembly listing (Microsoft's) of `len` bytes of bytecode at `data` (binary tokens or
/// a hex listing), as a NUL-terminated string in `*out`, owned by the caller: free it with
/// `dxso_string_free`.
///
/// # Safety
///
/// `data` points to `len` readable bytes (it may be NULL when `len` is 0); `out` is NULL
/// (DXSO_STATUS_ARGUMENT) or points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_disassemble(
    data: *const u8,
    len: usize,
    out: *mut *mut c_char,
) -> DxsoStatus {
    guard(|| {
        writable(out, "out")?;
        // SAFETY: the caller's contract.
        let data = unsafe { slice(data, len, "data") }?;
        let shader = dxso_format::source::read_bytecode(data)
            .map_err(|e| Failure::input(source_message(&SourceError::Read(e))))?;
        // SAFETY: the caller's contract.
        unsafe { put(out, c_string(dxso_format::text::print(&shader)), "out") }
    })
}

/// How bad a finding is.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DxsoSeverity {
    /// The shader is refused: the runtime would not create it.
    Error = 0,
    /// The shader is accepted, but something in it is likely a mistake.
    Warning = 1,
}

/// One finding. Its strings are owned by the list it came from.
#[repr(C)]
#[derive(Debug)]
pub struct DxsoDiagnostic {
    /// Whether the finding refuses the shader.
    pub severity: DxsoSeverity,
    /// The rule id ("V007"); NULL for text that does not assemble or bytes that do not decode.
    pub rule: *const c_char,
    /// What is wrong, in a sentence (UTF-8).
    pub message: *const c_char,
    /// 1-based line and column in the text; 0 when the shader is not text.
    pub line: u32,
    /// The 1-based column in the text; 0 when the shader is not text.
    pub column: u32,
    /// Word offset in the token stream; -1 when the shader is not bytecode.
    pub word: i64,
}

/// A list of findings (opaque). Owned by the caller: free with `dxso_diagnostics_free`.
pub struct DxsoDiagnostics {
    items: Vec<DxsoDiagnostic>,
    /// The strings the items point into.
    _strings: Vec<CString>,
}

impl DxsoDiagnostics {
    fn new(found: Vec<(Severity, Option<&str>, String, Option<Position>)>) -> DxsoDiagnostics {
        let mut strings = Vec::new();
        let mut keep = |s: &str| {
            let c = CString::new(s.replace('\0', "\\0")).unwrap_or_default();
            let p = c.as_ptr();
            strings.push(c);
            p
        };
        let items = found
            .into_iter()
            .map(|(severity, rule, message, at)| {
                let (line, column, word) = match at {
                    Some(Position::Text { line, col }) => (line as u32, col as u32, -1),
                    Some(Position::Word(w)) => (0, 0, w as i64),
                    None => (0, 0, -1),
                };
                DxsoDiagnostic {
                    severity: match severity {
                        Severity::Error => DxsoSeverity::Error,
                        Severity::Warning => DxsoSeverity::Warning,
                    },
                    rule: rule.map_or(std::ptr::null(), &mut keep),
                    message: keep(&message),
                    line,
                    column,
                    word,
                }
            })
            .collect();
        DxsoDiagnostics {
            items,
            _strings: strings,
        }
    }
}

/// `max`, `min`, or a JSON object of D3DCAPS9 fields (as `dxso check --caps FILE.json`).
///
/// # Safety
///
/// A non-null `spec` is a NUL-terminated string.
unsafe fn caps(spec: *const c_char) -> Result<Caps, Failure> {
    if spec.is_null() {
        return Ok(Caps::max());
    }
    // SAFETY: a non-null `caps` is a NUL-terminated string (the caller's contract).
    let spec = unsafe { CStr::from_ptr(spec) }
        .to_str()
        .map_err(|e| Failure::argument(format!("caps is not UTF-8: {e}")))?;
    Caps::from_spec(spec).map_err(|e| Failure::input(format!("caps: {e}")))
}

/// Validate `len` bytes at `data` — assembly text, binary tokens or a hex listing — against
/// `caps`: NULL or "max" (every feature, the highest limits), "min", or a JSON object of
/// D3DCAPS9 fields. `*out` receives every finding (an empty list, or warnings only, means
/// valid; text that does not assemble gives its errors with a NULL rule); it is owned by the
/// caller: free it with `dxso_diagnostics_free`. Fails (DXSO_STATUS_INPUT) only for bad caps.
///
/// # Safety
///
/// `data` points to `len` readable bytes (it may be NULL when `len` is 0); `caps_spec` is
/// NULL or a NUL-terminated string; `out` is NULL (DXSO_STATUS_ARGUMENT) or points to a
/// writable `DxsoDiagnostics *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_validate(
    data: *const u8,
    len: usize,
    caps_spec: *const c_char,
    out: *mut *mut DxsoDiagnostics,
) -> DxsoStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        let caps = unsafe { caps(caps_spec) }?;
        // SAFETY: the caller's contract.
        let data = unsafe { slice(data, len, "data") }?;
        let found = match Source::load(data) {
            Ok(source) => dxso_format::validate::diagnostics(&source.shader, &caps)
                .into_iter()
                .map(|d| {
                    let at = source.position(d.instruction);
                    (d.severity, Some(d.rule.id()), d.message, at)
                })
                .collect(),
            Err(SourceError::Parse(p)) => {
                p.0.into_iter()
                    .map(|e| {
                        let at = Position::Text {
                            line: e.line,
                            col: e.col,
                        };
                        (Severity::Error, None, e.message, Some(at))
                    })
                    .collect()
            }
            Err(SourceError::Read(r)) => {
                let at = Position::Word(r.offset);
                vec![(Severity::Error, None, r.kind.to_string(), Some(at))]
            }
        };
        let list = Box::into_raw(Box::new(DxsoDiagnostics::new(found)));
        // SAFETY: the caller's contract.
        unsafe { put(out, list, "out") }.inspect_err(|_| {
            // SAFETY: just made by Box::into_raw and not handed out.
            drop(unsafe { Box::from_raw(list) });
        })
    })
}

/// The number of findings in `list` (0 for NULL).
///
/// # Safety
///
/// `list` is NULL or a list from `dxso_validate`, not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_diagnostics_count(list: *const DxsoDiagnostics) -> usize {
    // SAFETY: a non-null `list` came from `dxso_validate` and is not freed (the contract).
    std::panic::catch_unwind(|| unsafe { list.as_ref() }.map_or(0, |l| l.items.len())).unwrap_or(0)
}

/// Finding `i` of `list`, or NULL when `i` is out of range. Owned by the list: valid until
/// `dxso_diagnostics_free`.
///
/// # Safety
///
/// `list` is NULL or a list from `dxso_validate`, not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_diagnostics_get(
    list: *const DxsoDiagnostics,
    i: usize,
) -> *const DxsoDiagnostic {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: as in dxso_diagnostics_count.
        unsafe { list.as_ref() }
            .and_then(|l| l.items.get(i))
            .map_or(std::ptr::null(), |d| d as *const DxsoDiagnostic)
    }))
    .unwrap_or(std::ptr::null())
}

/// Free a list from `dxso_validate` (and every string in it). NULL is fine.
///
/// # Safety
///
/// `list` is NULL or a list from `dxso_validate`, freed once, and not in use by another
/// thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_diagnostics_free(list: *mut DxsoDiagnostics) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if !list.is_null() {
            // SAFETY: it came from Box::into_raw in dxso_validate and is freed once.
            drop(unsafe { Box::from_raw(list) });
        }
    }));
}
