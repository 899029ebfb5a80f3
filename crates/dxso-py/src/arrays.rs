//! Arrays in: every binding that takes an array (or a bytes-like object) goes through here.
//!
//! Two rules. (1) Sizes are checked from the array's shape before its data is touched: a
//! broadcast view (`np.broadcast_to(x, (n, n, 4))`, a few real bytes) whose shape implies
//! gigabytes is refused with a `dxso.Error` before anything is copied. No copy exceeds
//! [`MAX_COPY_BYTES`]; tighter limits (constant registers, texture sizes) apply where the
//! device has them. (2) A stream that reads the caller's memory in place ([`Hold`]) makes
//! that memory read-only for Python while it is bound, so that a draw, which runs with the GIL
//! released, never reads bytes a NumPy ufunc on another thread is writing; memory that cannot
//! be made so is copied.

use crate::errors;
use numpy::{
    PyArray1, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};
use std::collections::HashMap;
use std::sync::Mutex;

/// The most bytes dxso copies out of one array or bytes-like object: 4 GiB − 1, the largest
/// buffer D3D9 makes (`CreateVertexBuffer` and `CreateIndexBuffer` size theirs with a UINT).
pub const MAX_COPY_BYTES: usize = u32::MAX as usize;

/// NumPy's most dimensions: deeper nesting is not an array.
const MAX_DIMS: usize = 64;

fn numpy(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("numpy")
}

fn is_ndarray(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    obj.is_instance(&numpy(obj.py())?.getattr("ndarray")?)
}

/// `(16384, 16384, 4)`, as Python prints a shape.
fn shape_text(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The product of `shape`, None when it overflows.
fn count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

/// The shape NumPy would give `obj` (what `np.asarray(obj).shape` is), found without reading
/// or copying its data: an array's own shape, a buffer's (`memoryview(obj).shape`), or for a
/// nested sequence its length and its first element's shape (NumPy refuses a ragged one).
/// Anything else (a number, a string) is a scalar: `()`.
pub fn shape_of(obj: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let mut shape = Vec::new();
    let mut item = obj.clone();
    while shape.len() < MAX_DIMS {
        if is_ndarray(&item)? {
            let array = item.cast::<numpy::PyUntypedArray>()?;
            shape.extend_from_slice(array.shape());
            break;
        }
        if item.is_instance_of::<PyString>()
            || item.is_instance_of::<PyBytes>()
            || item.is_instance_of::<PyByteArray>()
        {
            // NumPy reads a str or bytes as one scalar (`np.asarray(b"ab").shape == ()`);
            // where its bytes matter, `bytes_of` reads it, by length.
            break;
        }
        if let Ok(view) = memoryview(&item) {
            let dims: Vec<usize> = view.getattr("shape")?.extract()?;
            shape.extend(dims);
            break;
        }
        if item.hasattr("__array__")? || item.hasattr("__array_interface__")? {
            // An array-like of another library: its own `shape` where it has one (`__array__`
            // may compute or copy the whole array), else what NumPy makes of it.
            if let Ok(dims) = item
                .getattr("shape")
                .and_then(|s| s.extract::<Vec<usize>>())
            {
                shape.extend(dims);
            } else {
                let array = numpy(item.py())?.call_method1("asarray", (&item,))?;
                shape.extend_from_slice(array.cast::<numpy::PyUntypedArray>()?.shape());
            }
            break;
        }
        let Ok(sequence) = item.cast::<pyo3::types::PySequence>() else {
            break;
        };
        let n = sequence.len()?;
        shape.push(n);
        if n == 0 {
            break;
        }
        item = sequence.get_item(0)?;
    }
    Ok(shape)
}

/// `memoryview(obj)`: `obj`'s buffer, without a copy (an error when it has none).
fn memoryview<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    obj.py()
        .import("builtins")?
        .getattr("memoryview")?
        .call1((obj,))
}

/// The error for an array larger than what takes it allows.
fn too_large(what: &str, shape: &[usize], items: &str, limit: &str) -> PyErr {
    errors::Error::new_err(format!(
        "{what}: an array of shape {} is {items}; {limit} (checked from its shape, before \
         reading it)",
        shape_text(shape)
    ))
}

/// The numbers of an array-like, flattened, converted by NumPy to `dtype` — after checking
/// from its shape that it holds at most `max` of them (`limit` says so in the error).
pub fn numbers<T: numpy::Element + Copy>(
    obj: &Bound<'_, PyAny>,
    dtype: &str,
    what: &str,
    max: usize,
    limit: &str,
) -> PyResult<Vec<T>> {
    let shape = shape_of(obj)?;
    match count(&shape) {
        Some(n) if n <= max => {}
        Some(n) => return Err(too_large(what, &shape, &format!("{n} numbers"), limit)),
        None => {
            return Err(too_large(
                what,
                &shape,
                "more numbers than memory holds",
                limit,
            ));
        }
    }
    let kwargs = PyDict::new(obj.py());
    kwargs.set_item("dtype", dtype)?;
    let array = numpy(obj.py())?.call_method("ascontiguousarray", (obj,), Some(&kwargs))?;
    let array: PyReadonlyArrayDyn<'_, T> = array.extract()?;
    Ok(array.as_slice()?.to_vec())
}

/// `obj` as a NumPy array without a copy: itself, a contiguous buffer's bytes (any format),
/// or a strided buffer as NumPy reads it (`memoryview` of a broadcast view). None for what
/// has no buffer.
fn as_array<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    if is_ndarray(obj)? {
        return Ok(Some(obj.clone()));
    }
    let np = numpy(obj.py())?;
    let kwargs = PyDict::new(obj.py());
    kwargs.set_item("dtype", "uint8")?;
    if let Ok(array) = np.call_method("frombuffer", (obj,), Some(&kwargs)) {
        return Ok(Some(array));
    }
    match memoryview(obj) {
        Ok(view) => Ok(Some(np.call_method1("asarray", (view,))?)),
        Err(_) => Ok(None),
    }
}

/// An array's size in bytes from its shape and item size, or the error that it exceeds
/// [`MAX_COPY_BYTES`] — before its data is read.
fn copy_size(what: &str, array: &Bound<'_, PyAny>) -> PyResult<usize> {
    let untyped = array.cast::<numpy::PyUntypedArray>()?;
    let shape = untyped.shape().to_vec();
    let itemsize = untyped.dtype().itemsize();
    let limit = format!("dxso copies at most {MAX_COPY_BYTES} bytes");
    match count(&shape).and_then(|n| n.checked_mul(itemsize)) {
        Some(n) if n <= MAX_COPY_BYTES => Ok(n),
        Some(n) => Err(too_large(what, &shape, &format!("{n} bytes"), &limit)),
        None => Err(too_large(
            what,
            &shape,
            "more bytes than memory holds",
            &limit,
        )),
    }
}

/// A copy of an array's bytes in C order, as one-dimensional uint8 (checked first).
fn copied_bytes<'py>(what: &str, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<u8>>> {
    copy_size(what, array)?;
    let kwargs = PyDict::new(array.py());
    kwargs.set_item("order", "C")?;
    let copy = numpy(array.py())?.call_method("array", (array,), Some(&kwargs))?;
    flat_bytes(&copy)
}

/// A C-contiguous array's memory as a one-dimensional uint8 view (no copy).
fn flat_bytes<'py>(array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<u8>>> {
    Ok(array
        .call_method1("reshape", (-1,))?
        .call_method1("view", ("uint8",))?
        .cast_into::<PyArray1<u8>>()?)
}

fn c_contiguous(array: &Bound<'_, PyAny>) -> PyResult<bool> {
    array.getattr("flags")?.getattr("c_contiguous")?.extract()
}

/// The bytes of a bytes-like object or array (any dtype and strides, in C order), as a new
/// vector — `what` names them in errors. Checked from the shape (or length) before a byte is
/// read: at most [`MAX_COPY_BYTES`]. A `str` is not bytes (callers that take text read it
/// first); nor is an `int` (`bytes(n)` would make `n` zero bytes).
pub fn bytes_of(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let limit = || format!("dxso copies at most {MAX_COPY_BYTES} bytes");
    if let Ok(b) = obj.cast::<PyBytes>() {
        let b = b.as_bytes();
        if b.len() > MAX_COPY_BYTES {
            return Err(too_large(what, &[b.len()], "too many bytes", &limit()));
        }
        return Ok(b.to_vec());
    }
    if let Some(array) = as_array(obj)? {
        let bytes = if c_contiguous(&array)? {
            copy_size(what, &array)?;
            flat_bytes(&array)?
        } else {
            copied_bytes(what, &array)?
        };
        return Ok(bytes.readonly().as_slice()?.to_vec());
    }
    if obj.is_instance_of::<pyo3::types::PyInt>() || obj.is_instance_of::<PyString>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{what}: expected a bytes-like object or an array, not {}",
            obj.get_type().name()?
        )));
    }
    // A list or tuple of byte values, or another iterable `bytes()` takes.
    if let Ok(n) = obj.len()
        && n > MAX_COPY_BYTES
    {
        return Err(too_large(what, &[n], "too many bytes", &limit()));
    }
    let b = obj.py().get_type::<PyBytes>().call1((obj,))?;
    Ok(b.cast::<PyBytes>()?.as_bytes().to_vec())
}

/// Each array some `Hold` made read-only, by the array object's address (each entry holds a
/// reference to it, so the address is not reused while it is here). Touched only with the
/// GIL held, and never across a Python call: a Python call may collect garbage, and so drop
/// a `Hold` on this thread.
static LOCKED: Mutex<Option<HashMap<usize, Locked>>> = Mutex::new(None);

struct Locked {
    /// How many `Hold`s hold it.
    holds: usize,
    /// Whether dxso cleared its writeable flag (else it was read-only already, and stays so).
    cleared: bool,
    /// The keys of its bases (`.base`, `.base.base`, ...): it is made writeable again only
    /// when none of them is here, so that no view opens a way to write memory still bound.
    bases: Vec<usize>,
    /// Held by no `Hold` any more, read-only until its bases are released.
    pending: Option<Py<PyAny>>,
}

fn table() -> std::sync::MutexGuard<'static, Option<HashMap<usize, Locked>>> {
    LOCKED.lock().unwrap_or_else(|e| e.into_inner())
}

/// The caller's memory, held in place and read-only for Python while a stream reads it: the
/// NumPy arrays from the one bound to the one that owns the memory (its `.base` chain), each
/// with its writeable flag cleared — NumPy then refuses every write into them, ufuncs' `out=`
/// included, and refuses `resize` even with `refcheck=False` (a weak reference to each says
/// it is referenced) — until the last `Hold` of it is dropped (the stream unbound or rebound,
/// or the device freed), which restores the flags dxso cleared.
///
/// Views of the same memory made before it was bound, not in its base chain, and buffers
/// exported earlier (`memoryview(a)`) keep their own flags: writing through them during a
/// draw is a data race, as writing from native code is (`docs/bindings.md`).
pub struct Hold {
    /// The chain, from the array bound to the owner, with a weak reference to each.
    chain: Vec<(Py<PyAny>, Py<PyAny>)>,
}

/// Whether nothing in this process can write `obj`'s memory: `bytes` (immutable), or a
/// `memoryview` of something that is.
fn immutable(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    if obj.is_exact_instance_of::<PyBytes>() {
        return Ok(true);
    }
    if obj.is_instance_of::<pyo3::types::PyMemoryView>() {
        return immutable(&obj.getattr("obj")?);
    }
    Ok(false)
}

fn set_writeable(array: &Bound<'_, PyAny>, on: bool) -> PyResult<()> {
    array.getattr("flags")?.setattr("writeable", on)
}

impl Hold {
    /// Hold `array` (C-contiguous) read-only, or None when its memory is not NumPy's own —
    /// a `bytearray`, an `mmap`, another library's buffer, which NumPy's flags cannot stop
    /// Python writing — so it must be copied. Memory nothing can write (`bytes`) needs no
    /// hold: `Some` with an empty chain.
    fn new(array: &Bound<'_, PyAny>) -> PyResult<Option<Hold>> {
        let py = array.py();
        let mut chain = vec![array.clone()];
        let mut base = array.getattr("base")?;
        while is_ndarray(&base)? {
            chain.push(base.clone());
            base = base.getattr("base")?;
        }
        let owner = chain.last().expect("the chain holds the array");
        let owns: bool = owner.getattr("flags")?.getattr("owndata")?.extract()?;
        if !(base.is_none() && owns) {
            return Ok(immutable(&base)?.then_some(Hold { chain: Vec::new() }));
        }
        let weakref = py.import("weakref")?.getattr("ref")?;
        let mut held = Vec::new();
        let mut writeable = Vec::new();
        for a in &chain {
            writeable.push(
                a.getattr("flags")?
                    .getattr("writeable")?
                    .extract::<bool>()?,
            );
            held.push((a.clone().unbind(), weakref.call1((a,))?.unbind()));
        }
        let keys: Vec<usize> = held.iter().map(|(a, _)| a.as_ptr() as usize).collect();
        let mut clear = Vec::new();
        {
            let mut guard = table();
            let locked = guard.get_or_insert_with(HashMap::new);
            for (k, writeable) in writeable.into_iter().enumerate() {
                let entry = locked.entry(keys[k]).or_insert(Locked {
                    holds: 0,
                    cleared: false,
                    bases: keys[k + 1..].to_vec(),
                    pending: None,
                });
                if entry.holds == 0 && entry.pending.take().is_none() {
                    entry.cleared = writeable;
                    if writeable {
                        clear.push(k);
                    }
                }
                entry.holds += 1;
            }
        }
        let hold = Hold { chain: held };
        for k in clear {
            // On an error the hold is dropped, and restores what it cleared.
            set_writeable(hold.chain[k].0.bind(py), false)?;
        }
        Ok(Some(hold))
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        if self.chain.is_empty() {
            return;
        }
        // At interpreter exit there is nothing left to restore.
        Python::try_attach(|py| {
            {
                let mut guard = table();
                let locked = guard.get_or_insert_with(HashMap::new);
                for (a, _) in &self.chain {
                    let key = a.as_ptr() as usize;
                    let Some(entry) = locked.get_mut(&key) else {
                        continue;
                    };
                    entry.holds -= 1;
                    if entry.holds == 0 {
                        if entry.cleared {
                            entry.pending = Some(a.clone_ref(py));
                        } else {
                            locked.remove(&key);
                        }
                    }
                }
            }
            // Every pending array none of whose bases is still here, the owners first (NumPy
            // makes a view writeable only while its base is); each pass may free more.
            loop {
                let ready: Vec<Py<PyAny>> = {
                    let mut guard = table();
                    let locked = guard.get_or_insert_with(HashMap::new);
                    let keys: Vec<usize> = locked
                        .iter()
                        .filter(|(_, e)| {
                            e.holds == 0 && e.bases.iter().all(|b| !locked.contains_key(b))
                        })
                        .map(|(k, _)| *k)
                        .collect();
                    keys.iter()
                        .filter_map(|k| locked.remove(k).and_then(|e| e.pending))
                        .collect()
                };
                if ready.is_empty() {
                    break;
                }
                for a in ready {
                    // A failure (the caller made a base read-only meanwhile) leaves it so.
                    let _ = set_writeable(a.bind(py), true);
                }
            }
        });
    }
}

/// `obj`'s bytes for a stream: a one-dimensional uint8 array of the caller's memory itself
/// with what holds it read-only (`Some`), or a copy (`None`) — checked from its shape before
/// it is read. None for what has no buffer.
#[allow(clippy::type_complexity)]
pub fn stream_bytes<'py>(
    what: &str,
    obj: &Bound<'py, PyAny>,
) -> PyResult<Option<(Bound<'py, PyArray1<u8>>, Option<Hold>)>> {
    let Some(array) = as_array(obj)? else {
        return Ok(None);
    };
    if c_contiguous(&array)?
        && let Some(hold) = Hold::new(&array)?
    {
        // The view is made after the hold, so it is read-only as well.
        return Ok(Some((flat_bytes(&array)?, Some(hold))));
    }
    Ok(Some((copied_bytes(what, &array)?, None)))
}

/// The size in bytes `obj` holds (its shape times its item size; a bytes-like object's
/// length), found without reading its data; None when its bytes come from `bytes()`.
pub fn nbytes(obj: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(b.as_bytes().len()));
    }
    let Some(array) = as_array(obj)? else {
        return Ok(None);
    };
    let untyped = array.cast::<numpy::PyUntypedArray>()?;
    Ok(Some(
        count(untyped.shape())
            .and_then(|n| n.checked_mul(untyped.dtype().itemsize()))
            .unwrap_or(usize::MAX),
    ))
}
