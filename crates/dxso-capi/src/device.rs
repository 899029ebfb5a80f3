//! The software vertex-processing device: shader, constants, declaration, streams, indices,
//! stream frequencies, and draws into the caller's buffer.

use crate::shader::{NAME, source_message};
use crate::{DxsoStatus, Failure, guard, put, slice};
use dxso_format::source::Source;
use dxso_format::validate::{Caps, Severity};
use dxso_vm::{DeclType, Device, Frequency, Outputs, StreamSource, VertexElement};
use std::ffi::{CString, c_char};

const STREAMS: usize = 16;

/// A device (opaque). Owned by the caller: free with `dxso_device_free`.
pub struct DxsoDevice {
    inner: Device,
    /// Each stream as last bound, and each stream's frequency (set separately, as in D3D9).
    streams: [Option<StreamSource>; STREAMS],
    frequencies: [Frequency; STREAMS],
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
    pub stream: u16,
    pub offset: u16,
    pub type_: u8,
    pub method: u8,
    pub usage: u8,
    pub usage_index: u8,
}

/// The device behind `device`, or an argument failure for NULL.
fn get<'a>(device: *mut DxsoDevice) -> Result<&'a mut DxsoDevice, Failure> {
    // SAFETY: a non-null `device` came from `dxso_device_new`, is not freed, and is not used
    // by two threads at once (the header's contract).
    unsafe { device.as_mut() }.ok_or_else(|| Failure::argument("device is null"))
}

/// A new device with nothing bound, in `*out`. Owned by the caller: free with
/// `dxso_device_free`.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_new(out: *mut *mut DxsoDevice) -> DxsoStatus {
    guard(|| {
        let d = Box::new(DxsoDevice {
            inner: Device::new(),
            streams: Default::default(),
            frequencies: [Frequency::Vertex; STREAMS],
            semantics: Vec::new(),
            out: Outputs {
                registers: Vec::new(),
                data: Vec::new(),
                vertices: 0,
                unbound_inputs: Vec::new(),
            },
        });
        let d = Box::into_raw(d);
        put(out, d, "out").inspect_err(|_| {
            // SAFETY: just made by Box::into_raw and not handed out.
            drop(unsafe { Box::from_raw(d) });
        })
    })
}

/// Free a device and everything bound to it. NULL is fine.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_free(device: *mut DxsoDevice) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if !device.is_null() {
            // SAFETY: it came from Box::into_raw in dxso_device_new and is freed once.
            drop(unsafe { Box::from_raw(device) });
        }
    }));
}

/// Bind a vertex shader from `len` bytes at `data` (assembly text, binary tokens or a hex
/// listing). It must validate against the "max" caps; else DXSO_STATUS_INPUT with each error.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_set_shader(
    device: *mut DxsoDevice,
    data: *const u8,
    len: usize,
) -> DxsoStatus {
    guard(|| {
        let d = get(device)?;
        let source = Source::load(slice(data, len, "data")?)
            .map_err(|e| Failure::input(source_message(&e)))?;
        if !source.shader.version.is_vertex() {
            return Err(Failure::input(format!(
                "{NAME}: {} is not a vertex shader",
                source.shader.version
            )));
        }
        let checked =
            dxso_format::validate::validate(&source.shader, &Caps::max()).map_err(|diags| {
                let mut message = String::new();
                for e in diags.iter().filter(|e| e.severity == Severity::Error) {
                    let (at, _) = source.locate(NAME, e.instruction);
                    message.push_str(&format!("{at}: error[{}]: {}\n", e.rule.id(), e.message));
                }
                message.push_str(&format!("{NAME}: the shader does not validate"));
                Failure::input(message)
            })?;
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
/// that many registers of 4 floats.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_output_count(device: *const DxsoDevice) -> usize {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: as in `get`.
        unsafe { device.as_ref() }.map_or(0, |d| d.semantics.len())
    }))
    .unwrap_or(0)
}

/// The semantics of output register `i` ("POSITION0"; "TEXCOORD0+TEXCOORD1" for a packed
/// vs_3_0 register), or NULL when `i` is out of range. Owned by the device: valid until the
/// next `dxso_device_set_shader` or `dxso_device_free`.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_output_semantic(
    device: *const DxsoDevice,
    i: usize,
) -> *const c_char {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: as in `get`.
        unsafe { device.as_ref() }
            .and_then(|d| d.semantics.get(i))
            .map_or(std::ptr::null(), |s| s.as_ptr())
    }))
    .unwrap_or(std::ptr::null())
}

/// `count` registers of 4 values at `values`, as rows.
fn rows4<T: Copy>(values: *const T, count: usize) -> Result<Vec<[T; 4]>, Failure> {
    let n = count
        .checked_mul(4)
        .ok_or_else(|| Failure::argument("count is too large"))?;
    Ok(slice(values, n, "values")?
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect())
}

/// `SetVertexShaderConstantF`: `count` registers of 4 floats at `values`, from `start`.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_set_constant_f(
    device: *mut DxsoDevice,
    start: u32,
    values: *const f32,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        let d = get(device)?;
        let rows = rows4(values, count)?;
        d.inner.set_constant_f(start, &rows).map_err(Failure::input)
    })
}

/// `SetVertexShaderConstantI`: `count` registers of 4 integers at `values`, from `start`.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_set_constant_i(
    device: *mut DxsoDevice,
    start: u32,
    values: *const i32,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        let d = get(device)?;
        let rows = rows4(values, count)?;
        d.inner.set_constant_i(start, &rows).map_err(Failure::input)
    })
}

/// `SetVertexShaderConstantB`: `count` booleans at `values`, from `start`.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_set_constant_b(
    device: *mut DxsoDevice,
    start: u32,
    values: *const bool,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        let d = get(device)?;
        let values = slice(values, count, "values")?;
        d.inner
            .set_constant_b(start, values)
            .map_err(Failure::input)
    })
}

/// The vertex declaration: `count` elements at `elements` (no D3DDECL_END needed).
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_set_declaration(
    device: *mut DxsoDevice,
    elements: *const DxsoVertexElement,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        let d = get(device)?;
        let decl = slice(elements, count, "elements")?
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
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_set_stream(
    device: *mut DxsoDevice,
    n: u32,
    data: *const u8,
    len: usize,
    offset: usize,
    stride: usize,
) -> DxsoStatus {
    guard(|| {
        let d = get(device)?;
        let n = n as usize;
        let source = if data.is_null() && len == 0 {
            None
        } else {
            Some(StreamSource {
                data: slice(data, len, "data")?.into(),
                offset,
                stride,
                frequency: d.frequencies.get(n).copied().unwrap_or_default(),
            })
        };
        d.inner
            .set_stream(n, source.clone())
            .map_err(Failure::input)?;
        d.streams[n] = source;
        Ok(())
    })
}

/// `SetStreamSourceFreq`: 1 (every vertex), D3DSTREAMSOURCE_INDEXEDDATA | count,
/// D3DSTREAMSOURCE_INSTANCEDATA | divider, or a plain divider (software processing).
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_set_stream_frequency(
    device: *mut DxsoDevice,
    n: u32,
    setting: u32,
) -> DxsoStatus {
    guard(|| {
        let d = get(device)?;
        let n = n as usize;
        let frequency = Frequency::from_setting(setting).map_err(Failure::input)?;
        if n >= STREAMS {
            return Err(Failure::input(format!(
                "stream {n} does not exist (D3D9 has {STREAMS})"
            )));
        }
        d.frequencies[n] = frequency;
        if let Some(s) = &mut d.streams[n] {
            s.frequency = frequency;
            d.inner
                .set_stream(n, Some(s.clone()))
                .map_err(Failure::input)?;
        }
        Ok(())
    })
}

/// The index buffer: `count` indices copied from `indices`; NULL unbinds it.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_set_indices(
    device: *mut DxsoDevice,
    indices: *const u32,
    count: usize,
) -> DxsoStatus {
    guard(|| {
        let d = get(device)?;
        let ix = if indices.is_null() {
            None
        } else {
            Some(slice(indices, count, "indices")?.to_vec())
        };
        d.inner.set_indices(ix);
        Ok(())
    })
}

/// Run the shader over `vertex_count` vertices, `instance_count` times, writing each vertex's
/// output registers (4 floats each, in `dxso_device_output_semantic` order) to `out`, which
/// holds `out_len` floats: at least vertices × instances × outputs × 4 (else
/// DXSO_STATUS_ARGUMENT and nothing is written). `*written`, when not NULL, receives the
/// number of floats written.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_draw(
    device: *mut DxsoDevice,
    vertex_count: usize,
    instance_count: usize,
    out: *mut f32,
    out_len: usize,
    written: *mut usize,
) -> DxsoStatus {
    guard(|| {
        let d = get(device)?;
        let DxsoDevice { inner, out: o, .. } = d;
        inner
            .draw_into(vertex_count, instance_count, o)
            .map_err(Failure::input)?;
        let n = o.data.len();
        if n > out_len {
            return Err(Failure::argument(format!(
                "the draw writes {n} floats; the buffer holds {out_len}"
            )));
        }
        if n > 0 {
            if out.is_null() {
                return Err(Failure::argument("out is null"));
            }
            // SAFETY: `out` holds `out_len` >= n writable floats (the header's contract) and
            // does not overlap the device's own buffer.
            unsafe { std::ptr::copy_nonoverlapping(o.data.as_ptr(), out, n) };
        }
        if !written.is_null() {
            put(written, n, "written")?;
        }
        Ok(())
    })
}

/// Set the constant named by the string at `name_` from `count` values at `values` with `set`
/// (one of the Device's by-name setters).
fn by_name<T>(
    device: *mut DxsoDevice,
    name_: *const c_char,
    values: *const T,
    count: usize,
    set: fn(&mut Device, &str, &[T]) -> Result<(), dxso_vm::VmError>,
) -> DxsoStatus {
    guard(|| {
        let d = get(device)?;
        let values = slice(values, count, "values")?;
        set(&mut d.inner, name(name_)?, values).map_err(Failure::input)
    })
}

/// The NUL-terminated UTF-8 string at `name`.
fn name<'a>(name: *const c_char) -> Result<&'a str, Failure> {
    if name.is_null() {
        return Err(Failure::argument("name is null"));
    }
    // SAFETY: non-null, and a NUL-terminated string (the header's contract).
    unsafe { std::ffi::CStr::from_ptr(name) }
        .to_str()
        .map_err(|e| Failure::argument(format!("name is not UTF-8: {e}")))
}

/// Set a constant by its name in the bound shader's constant table (`"WorldViewProj"`,
/// `"lights[1].pos"`) from `count` floats in HLSL order (a matrix row by row), as
/// `ID3DXConstantTable::SetFloatArray`. DXSO_STATUS_INPUT when the shader has no table or no
/// such constant (the message lists the table's names).
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_set_constant_by_name(
    device: *mut DxsoDevice,
    name_: *const c_char,
    values: *const f32,
    count: usize,
) -> DxsoStatus {
    by_name(device, name_, values, count, Device::set_constant_by_name)
}

/// `dxso_device_set_constant_by_name` from `count` integers (`SetIntArray`).
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_set_constant_by_name_i(
    device: *mut DxsoDevice,
    name_: *const c_char,
    values: *const i32,
    count: usize,
) -> DxsoStatus {
    by_name(device, name_, values, count, Device::set_constant_by_name_i)
}

/// `dxso_device_set_constant_by_name` from `count` booleans (`SetBoolArray`).
#[unsafe(no_mangle)]
pub extern "C" fn dxso_device_set_constant_by_name_b(
    device: *mut DxsoDevice,
    name_: *const c_char,
    values: *const bool,
    count: usize,
) -> DxsoStatus {
    by_name(device, name_, values, count, Device::set_constant_by_name_b)
}
