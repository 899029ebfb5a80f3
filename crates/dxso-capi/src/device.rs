//! The software vertex-processing device: shader, constants, declaration, streams, indices,
//! stream frequencies, and draws into the caller's buffer.
//!
//! Threads may share a device: its state is behind a mutex that every call holds for its
//! whole length, so calls on one device from several threads run one after another (each as
//! if alone), never interleaved.

use super::shader::{NAME, source_message};
use super::{DxsoBool, DxsoStatus, Failure, guard, put, slice, writable};
use dxso_format::source::Source;
use dxso_format::validate::Caps;
use dxso_vm::{DeclType, Device, Frequency, Outputs, VertexElement};
use std::ffi::{CString, c_char};
use std::sync::{Mutex, MutexGuard};

/// A device (opaque). Owned by the caller: free with `dxso_device_free`.
///
/// Threads: any number of threads may call the `dxso_device_*` functions on one device at
/// once; each call locks the device for its duration, so concurrent calls run one after
/// another in some order (a draw sees the whole of each state call made before it, never
/// half of one). Only `dxso_device_free` needs the caller's care: no other call on the
/// device may be running or start after it.
pub struct DxsoDevice {
    pub(crate) state: Mutex<State>,
}

// Sharing a device between threads is sound only while its state may move between them.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<DxsoDevice>();
};

/// What a device holds (behind its lock).
pub(crate) struct State {
    inner: Device,
    /// The bound shader's output semantics.
    semantics: Vec<CString>,
    /// Reused by every draw.
    out: Outputs,
}

/// `D3DVERTEXELEMENT9`: `type` is a D3DDECLTYPE value (D3DDECLTYPE_FLOAT3 = 2), `usage` a
/// D3DDECLUSAGE value (D3DDECLUSAGE_POSITION = 0), `method` D3DDECLMETHOD_DEFAULT (0).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DxsoVertexElement {
    /// The vertex stream the element is read from (0 to 15).
    pub stream: u16,
    /// Its byte offset within one vertex of that stream.
    pub offset: u16,
    /// Its D3DDECLTYPE: how many components of which number type.
    pub type_: u8,
    /// Its D3DDECLMETHOD (only D3DDECLMETHOD_DEFAULT is drawn).
    pub method: u8,
    /// The D3DDECLUSAGE the shader's input declaration matches.
    pub usage: u8,
    /// Which of several inputs with the same usage (TEXCOORD3 is 3).
    pub usage_index: u8,
}

/// The state of the device behind `device`, locked for the caller: an argument failure for
/// NULL, an internal one when an earlier call panicked while it held the lock (the state may
/// be half-changed, so the device refuses every call from then on).
///
/// # Safety
///
/// A non-null `device` came from `dxso_device_new` and is not freed.
unsafe fn lock<'a>(device: *const DxsoDevice) -> Result<MutexGuard<'a, State>, Failure> {
    if !device.is_aligned() {
        return Err(Failure::argument("device is not a device (misaligned)"));
    }
    // SAFETY: aligned, and when non-null a live device (the caller's contract). Only shared
    // references are made: the state is changed through the mutex.
    let device = unsafe { device.as_ref() }.ok_or_else(|| Failure::argument("device is null"))?;
    device.state.lock().map_err(|_| {
        Failure(
            DxsoStatus::Internal,
            "the device is unusable: an earlier call on it failed inside dxso (an internal \
             error); free it"
                .into(),
        )
    })
}

/// A new device with nothing bound, in `*out`. Owned by the caller: free with
/// `dxso_device_free`.
///
/// # Safety
///
/// `out` is NULL (DXSO_STATUS_ARGUMENT) or points to a writable `DxsoDevice *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_new(out: *mut *mut DxsoDevice) -> DxsoStatus {
    guard(|| {
        writable(out, "out")?;
        let d = Box::new(DxsoDevice {
            state: Mutex::new(State {
                inner: Device::with_options(dxso_vm::Options::from_env()),
                semantics: Vec::new(),
                out: Outputs {
                    registers: Vec::new(),
                    data: Vec::new(),
                    vertices: 0,
                    unbound_inputs: Vec::new(),
                },
            }),
        });
        // SAFETY: checked by `writable`; writable (the caller's contract).
        unsafe { put(out, Box::into_raw(d), "out") }
    })
}

/// Free a device and everything bound to it. NULL is fine.
///
/// # Safety
///
/// `device` is NULL or came from `dxso_device_new`; it is freed once, when no other call on
/// it is running on any thread, and not used after.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_free(device: *mut DxsoDevice) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if !device.is_null() {
            // SAFETY: it came from Box::into_raw in dxso_device_new and is freed once.
            drop(unsafe { Box::from_raw(device) });
        }
    }));
}

/// Bind a vertex shader from `len` bytes at `data` (assembly text, binary tokens or a hex
/// listing). It must validate against the "max" caps; else DXSO_STATUS_INPUT with each error.
///
/// # Safety
///
/// `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`; `data`
/// points to `len` readable bytes (it may be NULL when `len` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_set_shader(
    device: *mut DxsoDevice,
    data: *const u8,
    len: usize,
) -> DxsoStatus {
    guard(|| {
        // SAFETY: the caller's contract on `device`.
        let mut d = unsafe { lock(device) }?;
        let d = &mut *d;
        // SAFETY: the caller's contract on `data` and `len`.
        let data = unsafe { slice(data, len, "data") }?;
        let source = Source::load(data).map_err(|e| Failure::input(source_message(&e)))?;
        if !source.shader.version.is_vertex() {
            return Err(Failure::input(format!(
                "{NAME}: {} is not a vertex shader",
                source.shader.version
            )));
        }
        let checked = dxso_format::validate::validate(&source.shader, &Caps::max())
            .map_err(|d| Failure::input(source.rejection(NAME, &d)))?;
        d.inner
            .set_vertex_shader(&checked)
            .map_err(Failure::input)?;
        d.semantics = d
            .inner
            .program()
            .map(|p| {
                p.outputs
                    .iter()
                    .map(|r| CString::new(r.semantic.clone()).unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default();
        Ok(())
    })
}

/// The number of output registers of the bound shader (0 without one): each drawn vertex is
/// that many registers of 4 floats. 0 for NULL or a device that had an internal error.
///
/// # Safety
///
/// `device` is NULL or a live device from `dxso_device_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_output_count(device: *const DxsoDevice) -> usize {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the caller's contract.
        unsafe { lock(device) }.map_or(0, |d| d.semantics.len())
    }))
    .unwrap_or(0)
}

/// The semantics of output register `i` ("POSITION0"; "TEXCOORD0+TEXCOORD1" for a packed
/// vs_3_0 register), or NULL when `i` is out of range. Owned by the device: valid until the
/// next `dxso_device_set_shader` or `dxso_device_free` (so a thread that reads it while
/// another may bind a shader must order the two calls itself).
///
/// # Safety
///
/// `device` is NULL or a live device from `dxso_device_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_output_semantic(
    device: *const DxsoDevice,
    i: usize,
) -> *const c_char {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the caller's contract.
        unsafe { lock(device) }.ok().map_or(std::ptr::null(), |d| {
            // The string's bytes stay where they are until the next set_shader or free.
            d.semantics.get(i).map_or(std::ptr::null(), |s| s.as_ptr())
        })
    }))
    .unwrap_or(std::ptr::null())
}

/// `count` registers of 4 values at `values`, as rows.
///
/// # Safety
///
/// `values` points to `count` × 4 readable `T`s (it may be NULL when `count` is 0).
unsafe fn rows4<'a, T>(values: *const T, count: usize) -> Result<&'a [[T; 4]], Failure> {
    // SAFETY: `[T; 4]` is 4 `T`s in a row with `T`'s alignment; the caller's contract.
    unsafe { slice(values.cast::<[T; 4]>(), count, "values") }
}

/// `SetVertexShaderConstantF`: `count` registers of 4 floats at `values`, from `start`.
///
/// # Safety
///
/// `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`;
/// `values` points to `count` × 4 readable floats (it may be NULL when `count` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_set_constant_f(
    device: *mut DxsoDevice,
    start: u32,
    values: *const f32,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        // SAFETY: the caller's contract on `device`.
        let mut d = unsafe { lock(device) }?;
        // SAFETY: the caller's contract on the pointer and its count.
        let rows = unsafe { rows4(values, count) }?;
        d.inner.set_constant_f(start, rows).map_err(Failure::input)
    })
}

/// `SetVertexShaderConstantI`: `count` registers of 4 integers at `values`, from `start`.
///
/// # Safety
///
/// `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`;
/// `values` points to `count` × 4 readable `int32_t`s (it may be NULL when `count` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_set_constant_i(
    device: *mut DxsoDevice,
    start: u32,
    values: *const i32,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        // SAFETY: the caller's contract on `device`.
        let mut d = unsafe { lock(device) }?;
        // SAFETY: the caller's contract on the pointer and its count.
        let rows = unsafe { rows4(values, count) }?;
        d.inner.set_constant_i(start, rows).map_err(Failure::input)
    })
}

/// `count` D3D9 `BOOL`s at `values` as Rust booleans (non-zero is true).
///
/// # Safety
///
/// As [`slice`]'s.
unsafe fn bools(values: *const DxsoBool, count: usize) -> Result<Vec<bool>, Failure> {
    // SAFETY: the caller's contract.
    let values = unsafe { slice(values, count, "values") }?;
    Ok(values.iter().map(|&b| b != 0).collect())
}

/// `SetVertexShaderConstantB`: `count` booleans at `values`, from `start`. Each is a D3D9
/// `BOOL` (32 bits; any non-zero value is true).
///
/// # Safety
///
/// `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`;
/// `values` points to `count` readable `DxsoBool`s (it may be NULL when `count` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_set_constant_b(
    device: *mut DxsoDevice,
    start: u32,
    values: *const DxsoBool,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        // SAFETY: the caller's contract on `device`.
        let mut d = unsafe { lock(device) }?;
        // SAFETY: the caller's contract on the pointer and its count.
        let values = unsafe { bools(values, count) }?;
        d.inner
            .set_constant_b(start, &values)
            .map_err(Failure::input)
    })
}

/// The vertex declaration: `count` elements at `elements` (no D3DDECL_END needed).
///
/// # Safety
///
/// `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`;
/// `elements` points to `count` readable elements (it may be NULL when `count` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_set_declaration(
    device: *mut DxsoDevice,
    elements: *const DxsoVertexElement,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        // SAFETY: the caller's contract on `device`.
        let mut d = unsafe { lock(device) }?;
        // SAFETY: the caller's contract on the pointer and its count.
        let elements = unsafe { slice(elements, count, "elements") }?;
        let decl = elements
            .iter()
            .enumerate()
            .map(|(i, e)| {
                Ok(VertexElement {
                    stream: e.stream,
                    offset: e.offset,
                    ty: DeclType::ALL
                        .get(e.type_ as usize)
                        .copied()
                        .filter(|t| *t != DeclType::Unused)
                        .ok_or_else(|| {
                            Failure::input(format!("declaration[{i}]: unknown type {}", e.type_))
                        })?,
                    method: e.method,
                    usage: dxso_format::ir::Usage::from_u32(e.usage.into()).ok_or_else(|| {
                        Failure::input(format!("declaration[{i}]: unknown usage {}", e.usage))
                    })?,
                    usage_index: e.usage_index,
                })
            })
            .collect::<Result<Vec<_>, Failure>>()?;
        d.inner.set_declaration(decl).map_err(Failure::input)
    })
}

/// `SetStreamSource`: stream `n` reads `len` bytes copied from `data`, from byte `offset`,
/// `stride` bytes per element. `data` NULL (and `len` 0) unbinds the stream. The stream's
/// frequency is `dxso_device_set_stream_frequency`'s.
///
/// # Safety
///
/// `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`; `data`
/// points to `len` readable bytes (it may be NULL when `len` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_set_stream(
    device: *mut DxsoDevice,
    n: u32,
    data: *const u8,
    len: usize,
    offset: usize,
    stride: usize,
) -> DxsoStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        let mut d = unsafe { lock(device) }?;
        let d = &mut *d;
        let n = n as usize;
        let data = if data.is_null() && len == 0 {
            None
        } else {
            // SAFETY: the caller's contract.
            Some(unsafe { slice(data, len, "data") }?.into())
        };
        d.inner
            .set_stream_source(n, data, offset, stride)
            .map_err(Failure::input)
    })
}

/// `SetStreamSourceFreq`: 1 (every vertex), D3DSTREAMSOURCE_INDEXEDDATA | count,
/// D3DSTREAMSOURCE_INSTANCEDATA | divider, or a plain divider (software processing).
///
/// # Safety
///
/// `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_set_stream_frequency(
    device: *mut DxsoDevice,
    n: u32,
    setting: u32,
) -> DxsoStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        let mut d = unsafe { lock(device) }?;
        let d = &mut *d;
        let n = n as usize;
        let frequency = Frequency::from_setting(setting).map_err(Failure::input)?;
        d.inner
            .set_stream_frequency(n, frequency)
            .map_err(Failure::input)
    })
}

/// The index buffer: `count` indices copied from `indices`; NULL unbinds it.
///
/// # Safety
///
/// `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`; a
/// non-null `indices` points to `count` readable `uint32_t`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_set_indices(
    device: *mut DxsoDevice,
    indices: *const u32,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        let mut d = unsafe { lock(device) }?;
        let ix = if indices.is_null() {
            None
        } else {
            // SAFETY: the caller's contract.
            let indices = unsafe { slice(indices, count, "indices") }?;
            let mut ix = Vec::new();
            ix.try_reserve_exact(indices.len()).map_err(|_| {
                Failure::argument(format!("{count} indices are more than memory holds"))
            })?;
            ix.extend_from_slice(indices);
            Some(ix)
        };
        d.inner.set_indices(ix);
        Ok(())
    })
}

/// Run the shader over `vertex_count` vertices, `instance_count` times, writing each vertex's
/// output registers (4 floats each, in `dxso_device_output_semantic` order) to `out`, which
/// holds `out_len` floats: at least vertices × instances × outputs × 4 (else
/// DXSO_STATUS_ARGUMENT, and nothing is drawn or written). `*written`, when not NULL, receives the
/// number of floats written. A draw larger than dxso draws at once (16 GiB of outputs) is
/// DXSO_STATUS_INPUT.
///
/// # Safety
///
/// `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`; `out`
/// points to `out_len` writable floats (it may be NULL when `out_len` is 0) that do not
/// overlap anything dxso reads; `written` is NULL or points to a writable `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_draw(
    device: *mut DxsoDevice,
    vertex_count: usize,
    instance_count: usize,
    out: *mut f32,
    out_len: usize,
    written: *mut usize,
) -> DxsoStatus {
    guard(|| {
        if out_len > isize::MAX as usize / size_of::<f32>() {
            return Err(Failure::argument(format!(
                "out_len: {out_len} floats are more than any buffer holds"
            )));
        }
        if !written.is_null() {
            writable(written, "written")?;
        }
        // SAFETY: the caller's contract.
        let mut d = unsafe { lock(device) }?;
        let State { inner, out: o, .. } = &mut *d;
        // Refused before it runs when the buffer is too small; the device's own size check
        // (`output_floats`, every path's) refuses a draw too large for any buffer.
        let n = inner
            .output_floats(vertex_count, instance_count)
            .map_err(Failure::input)?;
        if n > out_len {
            return Err(Failure::argument(format!(
                "the draw writes {n} floats; the buffer holds {out_len}"
            )));
        }
        inner
            .draw_into(vertex_count, instance_count, o)
            .map_err(Failure::input)?;
        if n > 0 {
            writable(out, "out")?;
            // SAFETY: `out` is aligned and holds `out_len` >= n writable floats (checked, and
            // the caller's contract) that do not overlap the device's own buffer.
            unsafe { std::ptr::copy_nonoverlapping(o.data.as_ptr(), out, n) };
        }
        if !written.is_null() {
            // SAFETY: the caller's contract.
            unsafe { put(written, n, "written") }?;
        }
        Ok(())
    })
}

/// Set the constant named by the string at `name_` from `values` with `set` (one of the
/// Device's by-name setters).
///
/// # Safety
///
/// `device` is NULL or a live device from `dxso_device_new`; `name_` is NULL or a
/// NUL-terminated string.
unsafe fn by_name<T>(
    device: *mut DxsoDevice,
    name_: *const c_char,
    values: &[T],
    set: fn(&mut Device, &str, &[T]) -> Result<(), dxso_vm::VmError>,
) -> Result<(), Failure> {
    // SAFETY: the caller's contract on `device`.
    let mut d = unsafe { lock(device) }?;
    // SAFETY: the caller's contract on `name_` (NULL or a NUL-terminated string).
    set(&mut d.inner, unsafe { name(name_) }?, values).map_err(Failure::input)
}

/// The NUL-terminated UTF-8 string at `name`.
///
/// # Safety
///
/// `name` is NULL or a NUL-terminated string.
unsafe fn name<'a>(name: *const c_char) -> Result<&'a str, Failure> {
    if name.is_null() {
        return Err(Failure::argument("name is null"));
    }
    // SAFETY: non-null, and a NUL-terminated string (the caller's contract).
    unsafe { std::ffi::CStr::from_ptr(name) }
        .to_str()
        .map_err(|e| Failure::argument(format!("name is not UTF-8: {e}")))
}

/// Set a constant by its name in the bound shader's constant table (`"WorldViewProj"`,
/// `"lights[1].pos"`) from `count` floats in HLSL order (a matrix row by row), as
/// `ID3DXConstantTable::SetFloatArray`. DXSO_STATUS_INPUT when the shader has no table or no
/// such constant (the message lists the table's names).
///
/// # Safety
///
/// `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`; `name_`
/// is NULL (DXSO_STATUS_ARGUMENT) or a NUL-terminated string; `values` points to `count`
/// readable floats (it may be NULL when `count` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_set_constant_by_name(
    device: *mut DxsoDevice,
    name_: *const c_char,
    values: *const f32,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        // SAFETY: the caller's contract on `values` and `count`.
        let values = unsafe { slice(values, count, "values") }?;
        // SAFETY: the caller's contract on `device` and `name_`.
        unsafe { by_name(device, name_, values, Device::set_constant_by_name) }
    })
}

/// `dxso_device_set_constant_by_name` from `count` integers (`SetIntArray`).
///
/// # Safety
///
/// As `dxso_device_set_constant_by_name`'s, with `count` readable `int32_t`s at `values`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_set_constant_by_name_i(
    device: *mut DxsoDevice,
    name_: *const c_char,
    values: *const i32,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        // SAFETY: the caller's contract on `values` and `count`.
        let values = unsafe { slice(values, count, "values") }?;
        // SAFETY: the caller's contract on `device` and `name_`.
        unsafe { by_name(device, name_, values, Device::set_constant_by_name_i) }
    })
}

/// `dxso_device_set_constant_by_name` from `count` D3D9 `BOOL`s (`SetBoolArray`; 32 bits
/// each, any non-zero value is true).
///
/// # Safety
///
/// As `dxso_device_set_constant_by_name`'s, with `count` readable `DxsoBool`s at `values`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_device_set_constant_by_name_b(
    device: *mut DxsoDevice,
    name_: *const c_char,
    values: *const DxsoBool,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        // SAFETY: the caller's contract on `values` and `count`.
        let values = unsafe { bools(values, count) }?;
        // SAFETY: the caller's contract on `device` and `name_`.
        unsafe { by_name(device, name_, &values, Device::set_constant_by_name_b) }
    })
}
