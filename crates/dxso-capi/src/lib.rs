//! The C library of dxso (`libdxso.so`, `libdxso.a`, header `include/dxso.h`): assemble,
//! disassemble, validate, signatures, translation for GPUs, and a software vertex-processing
//! device. A thin door to the `dxso`, `dxso-vm` and `dxso-naga` crates.
//!
//! Every exported function catches panics ([`guard`]) so nothing unwinds into C, and
//! returns a [`DxsoStatus`]; the message of the last failure is [`dxso_last_error`]'s.

// Exported functions take raw pointers from C; each checks them and documents its contract
// in the header (clippy would have every one `unsafe`, which C callers cannot see anyway).
#![allow(clippy::not_unsafe_ptr_arg_deref)]

mod device;
mod shader;
mod signature;
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
    /// A bad argument: a null pointer where one is needed, text that is not UTF-8, a buffer
    /// too small, an index out of range.
    Argument = 2,
    /// A bug in dxso (a panic, caught at the boundary).
    Internal = 3,
}

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

/// `len` bytes at `data` (which may be null when `len` is 0).
pub(crate) fn slice<'a, T>(data: *const T, len: usize, what: &str) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if data.is_null() {
        return Err(Failure::argument(format!("{what} is null")));
    }
    // SAFETY: the caller passes `len` readable elements at `data` (the header's contract).
    Ok(unsafe { std::slice::from_raw_parts(data, len) })
}

/// Write `value` through `out`, which must not be null.
pub(crate) fn put<T>(out: *mut T, value: T, what: &str) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::argument(format!("{what} is null")));
    }
    // SAFETY: non-null, and the caller passes a writable `T` (the header's contract).
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
    pub data: *mut u8,
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
#[unsafe(no_mangle)]
pub extern "C" fn dxso_buffer_free(buffer: *mut DxsoBuffer) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        if buffer.is_null() {
            return;
        }
        // SAFETY: non-null; the buffer came from `DxsoBuffer::from_vec` (the contract).
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
#[unsafe(no_mangle)]
pub extern "C" fn dxso_string_free(s: *mut c_char) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        if !s.is_null() {
            // SAFETY: it came from `c_string` (CString::into_raw) and is freed once.
            drop(unsafe { CString::from_raw(s) });
        }
    }));
}
