//! The C library of dxso (`libdxso.so`, `libdxso.a`, header `include/dxso.h`): assemble,
//! disassemble, validate, signatures, translation for GPUs, and a software vertex-processing
//! device. A thin door to the `dxso`, `dxso-vm` and `dxso-naga` crates.
//!
//! Every exported function catches panics ([`guard`]) so nothing unwinds into C, and
//! returns a [`DxsoStatus`]; the message of the last failure is [`dxso_last_error`]'s.
//!
//! The boundary trusts C only with what it cannot check: that a pointer points where its
//! length says. Everything else arrives as a plain integer and is checked: enums are
//! `uint32_t` matched against their values, `BOOL` is [`DxsoBool`] (non-zero is true),
//! every count is checked against `isize::MAX` bytes before a slice is made ([`slice`]),
//! and a device locks itself for each call (threads may share one). The exports that take
//! pointers are `unsafe extern "C"`, each with its `# Safety` contract (also in the header).

// The modules name the root as `super::`, not `crate::`, so that fuzz/fuzz_targets/capi.rs
// can compile these sources as a module of its own (this crate has no rlib to depend on).
#[cfg(any(test, fuzzing))]
pub mod calls;
mod device;
mod shader;
mod signature;
#[cfg(test)]
mod tests;
mod translate;

use std::cell::RefCell;
use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

pub use device::*;
pub use shader::*;
pub use signature::*;
pub use translate::*;

/// What a call did.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DxsoStatus {
    /// Success.
    Ok = 0,
    /// The input is wrong: text that does not assemble, bytes that are not a shader, a shader
    /// that does not validate, a state or draw the device refuses (as the command line's
    /// exit code 1).
    Input = 1,
    /// A bad argument: a null or misaligned pointer where one is needed, text that is not
    /// UTF-8, a buffer too small, an index out of range, an enum parameter that is none of
    /// its enum's values, a count larger than any buffer can hold (more than PTRDIFF_MAX
    /// bytes).
    Argument = 2,
    /// A bug in dxso (a panic, caught at the boundary). A device on which one happened
    /// refuses every later call with this status (free it and make another).
    Internal = 3,
}

/// D3D9's `BOOL`: a 32-bit integer; any non-zero value is true.
pub type DxsoBool = i32;

/// Why a call failed: the status and the message for [`dxso_last_error`].
pub(crate) struct Failure(pub DxsoStatus, pub String);

impl Failure {
    pub fn input(msg: impl std::fmt::Display) -> Failure {
        Failure(DxsoStatus::Input, msg.to_string())
    }
    pub fn argument(msg: impl std::fmt::Display) -> Failure {
        Failure(DxsoStatus::Argument, msg.to_string())
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(msg: &str) {
    let c = CString::new(msg.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Run `f`, turning its failure or panic into a status and the last error.
pub(crate) fn guard(f: impl FnOnce() -> Result<(), Failure>) -> DxsoStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => {
            set_last_error("");
            DxsoStatus::Ok
        }
        Ok(Err(Failure(status, msg))) => {
            set_last_error(&msg);
            status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            set_last_error(&format!("internal error: {what}"));
            DxsoStatus::Internal
        }
    }
}

/// `len` elements at `data` (which may be null when `len` is 0). A length no buffer can have
/// (more than `isize::MAX` bytes), a null or a misaligned pointer is an argument failure,
/// checked before anything is read.
///
/// # Safety
///
/// When `len` is not 0 and `data` is not null, `data` points to `len` initialised `T`s that
/// nothing writes while the slice lives.
pub(crate) unsafe fn slice<'a, T>(
    data: *const T,
    len: usize,
    what: &str,
) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if len > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(Failure::argument(format!(
            "{what}: {len} elements of {} bytes are more than any buffer holds",
            size_of::<T>()
        )));
    }
    if data.is_null() {
        return Err(Failure::argument(format!("{what} is null")));
    }
    if !data.is_aligned() {
        return Err(Failure::argument(format!(
            "{what} is not aligned to {} bytes",
            align_of::<T>()
        )));
    }
    // SAFETY: non-null, aligned, at most isize::MAX bytes (checked above); `len` readable
    // elements that nothing writes meanwhile (the caller's contract).
    Ok(unsafe { std::slice::from_raw_parts(data, len) })
}

/// An argument failure unless `out` is a non-null, aligned pointer. Functions that hand out
/// something the caller must free check each of their out-pointers with it before they make
/// it, so that a bad pointer leaks nothing.
pub(crate) fn writable<T>(out: *mut T, what: &str) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::argument(format!("{what} is null")));
    }
    if !out.is_aligned() {
        return Err(Failure::argument(format!(
            "{what} is not aligned to {} bytes",
            align_of::<T>()
        )));
    }
    Ok(())
}

/// Write `value` through `out`; a null or misaligned `out` is an argument failure (see
/// [`writable`]).
///
/// # Safety
///
/// A non-null `out` points to memory writable as a `T` (what it held is not dropped).
pub(crate) unsafe fn put<T>(out: *mut T, value: T, what: &str) -> Result<(), Failure> {
    writable(out, what)?;
    // SAFETY: non-null and aligned (checked), writable (the caller's contract).
    unsafe { out.write(value) };
    Ok(())
}

/// The message of the last failed call on this thread ("" after a success). Owned by dxso:
/// valid until the next dxso call on the same thread; never null.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_last_error() -> *const c_char {
    catch_unwind(|| LAST_ERROR.with(|e| e.borrow().as_ptr())).unwrap_or(c"".as_ptr())
}

/// Bytes dxso allocated. Owned by the caller: free with `dxso_buffer_free`.
#[repr(C)]
#[derive(Debug)]
pub struct DxsoBuffer {
    /// Where the bytes start.
    pub data: *mut u8,
    /// How many bytes `data` holds.
    pub len: usize,
}

impl DxsoBuffer {
    pub(crate) fn from_vec(v: Vec<u8>) -> DxsoBuffer {
        let b: Box<[u8]> = v.into_boxed_slice();
        let len = b.len();
        DxsoBuffer {
            data: Box::into_raw(b).cast::<u8>(),
            len,
        }
    }
}

/// Free a buffer dxso returned and set it to {NULL, 0}. A null pointer or an empty buffer
/// is fine.
///
/// # Safety
///
/// `buffer` is NULL or points to a `DxsoBuffer` that a dxso function filled (or {NULL, 0}),
/// not freed since, and not used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_buffer_free(buffer: *mut DxsoBuffer) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        if buffer.is_null() || !buffer.is_aligned() {
            return;
        }
        // SAFETY: non-null and aligned; the buffer came from `DxsoBuffer::from_vec` (the
        // contract).
        let b = unsafe { &mut *buffer };
        if !b.data.is_null() {
            let slice = std::ptr::slice_from_raw_parts_mut(b.data, b.len);
            // SAFETY: `data`/`len` are a boxed slice's, not freed before (set to null below).
            drop(unsafe { Box::from_raw(slice) });
        }
        b.data = std::ptr::null_mut();
        b.len = 0;
    }));
}

/// A NUL-terminated string for C, owned by the caller (free with `dxso_string_free`).
pub(crate) fn c_string(s: String) -> *mut c_char {
    CString::new(s.replace('\0', "\\0"))
        .unwrap_or_default()
        .into_raw()
}

/// Free a string dxso returned. Null is fine.
///
/// # Safety
///
/// `s` is NULL or a string a dxso function returned as the caller's, freed once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_string_free(s: *mut c_char) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        if !s.is_null() {
            // SAFETY: it came from `c_string` (CString::into_raw) and is freed once.
            drop(unsafe { CString::from_raw(s) });
        }
    }));
}
