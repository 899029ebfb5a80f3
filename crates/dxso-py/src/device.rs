//! `Device`: software vertex processing (`dxso_vm::Device`) with NumPy arrays in and out.

use crate::arrays;
use crate::errors::{self, DeviceError};
use crate::shader;
use dxso::validate::Caps;
use dxso_vm::{
    DeclType, Format, Frequency, SamplerState, SamplerValue, StreamData, Texture, TextureError,
    TextureKind, VertexElement,
};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::Arc;

/// D3D9's 16 vertex streams.
const STREAMS: usize = 16;

/// The software vertex-processing device: a vertex shader, constants, a vertex declaration,
/// streams, an index buffer, vertex textures — and `draw`, which runs the shader over the
/// vertices. Every setter raises `DeviceError` with the reason when D3D9 would refuse it.
#[pyclass(module = "dxso")]
pub struct Device {
    inner: dxso_vm::Device,
    /// What holds each stream's memory read-only when it is the caller's (`None`: a copy).
    holds: [Option<arrays::Hold>; STREAMS],
}

/// The float constant registers of dxso's device (`MaxVertexShaderConst` 8192, software
/// vertex processing), and the integer and boolean ones (16 each): what a constant array may
/// hold at most, checked from its shape before it is read.
const FLOAT_REGISTERS: usize = 8192;
const INT_REGISTERS: usize = 16;
const BOOL_REGISTERS: usize = 16;

/// Rows of four numbers: a (4,) vector is one register, an (n, 4) matrix n registers — at
/// most `registers` of them.
fn rows<T: numpy::Element + Copy + Default>(
    what: &str,
    obj: &Bound<'_, PyAny>,
    dtype: &str,
    registers: usize,
) -> PyResult<Vec<[T; 4]>> {
    let flat: Vec<T> = constant_numbers(what, obj, dtype, registers * 4)?;
    if !flat.len().is_multiple_of(4) {
        return Err(errors::Error::new_err(format!(
            "constants come in rows of 4 numbers, not {}",
            flat.len()
        )));
    }
    Ok(flat
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect())
}

/// A constant's numbers, at most `max` (what its register file holds).
fn constant_numbers<T: numpy::Element + Copy>(
    what: &str,
    obj: &Bound<'_, PyAny>,
    dtype: &str,
    max: usize,
) -> PyResult<Vec<T>> {
    let limit = format!("the registers hold at most {max} numbers");
    arrays::numbers(obj, dtype, what, max, &limit)
}

/// The memory of a uint8 NumPy array, which a stream reads where it is (`Device.set_stream`).
///
/// The array is the caller's memory held by an [`arrays::Hold`] (read-only for Python, in
/// place, alive: nothing in Python writes, resizes or frees it while it is bound), or memory
/// nothing can write (`bytes`). So a draw may read it with the GIL released.
struct Pinned {
    _array: Py<PyArray1<u8>>,
    ptr: *const u8,
    len: usize,
}

impl Pinned {
    fn new(array: Bound<'_, PyArray1<u8>>) -> Pinned {
        Pinned {
            ptr: array.data().cast_const(),
            len: numpy::PyUntypedArrayMethods::len(&array),
            _array: array.unbind(),
        }
    }
}

// SAFETY: the pointer is only read (as `AsRef`), under the contract above; `Py` is `Send +
// Sync`.
unsafe impl Send for Pinned {}
// SAFETY: as for `Send`: shared access only reads the pinned bytes.
unsafe impl Sync for Pinned {}

impl AsRef<[u8]> for Pinned {
    fn as_ref(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: the `len` bytes of the array's data, kept alive, in place and unwritten by
        // `_array` and the stream's `Hold` (see the type's docs).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// A stream's bytes: `obj`'s memory itself where [`arrays::stream_bytes`] can hold it
/// read-only (with that hold), else a copy (`None`).
fn stream_data(obj: &Bound<'_, PyAny>) -> PyResult<(StreamData, Option<arrays::Hold>)> {
    Ok(match arrays::stream_bytes("stream", obj)? {
        Some((array, hold)) => (StreamData::new(Pinned::new(array)), hold),
        None => (arrays::bytes_of("stream", obj)?.into(), None),
    })
}

/// A register number (`Ok`) or a constant's name (`Err`).
fn register_or_name(at: &Bound<'_, PyAny>) -> PyResult<Result<u32, String>> {
    if at.is_instance_of::<pyo3::types::PyString>() {
        return Ok(Err(at.extract()?));
    }
    Ok(Ok(at.extract()?))
}

fn decl_element(i: usize, e: &Bound<'_, PyAny>) -> PyResult<VertexElement> {
    let bad = |what: String| errors::Error::new_err(format!("declaration[{i}]: {what}"));
    let t = e.cast::<PyTuple>().map_err(|_| {
        bad("expected (stream, offset, type, usage[, usage_index[, method]])".into())
    })?;
    if !(4..=6).contains(&t.len()) {
        return Err(bad(format!(
            "{} items; expected (stream, offset, type, usage[, usage_index[, method]])",
            t.len()
        )));
    }
    let ty: String = t.get_item(2)?.extract()?;
    let usage: String = t.get_item(3)?.extract()?;
    Ok(VertexElement {
        stream: t.get_item(0)?.extract()?,
        offset: t.get_item(1)?.extract()?,
        ty: DeclType::from_name(&ty)
            .filter(|t| *t != DeclType::Unused)
            .ok_or_else(|| bad(format!("unknown type {ty:?}")))?,
        usage: dxso::ir::Usage::from_name(usage.strip_prefix("D3DDECLUSAGE_").unwrap_or(&usage))
            .ok_or_else(|| bad(format!("unknown usage {usage:?}")))?,
        usage_index: match t.len() {
            4 => 0,
            _ => t.get_item(4)?.extract()?,
        },
        method: match t.len() {
            6 => t.get_item(5)?.extract()?,
            _ => 0,
        },
    })
}

/// The output array (vertices, registers, 4) and the registers' semantics.
type Drawn<'py> = (Bound<'py, PyAny>, Vec<String>);

fn semantics(registers: &[dxso_vm::OutputRegister]) -> Vec<String> {
    registers.iter().map(|r| r.semantic.clone()).collect()
}

#[pymethods]
impl Device {
    #[new]
    fn py_new() -> Device {
        Device {
            inner: dxso_vm::Device::with_options(dxso_vm::Options::from_env()),
            holds: Default::default(),
        }
    }

    /// Bind a vertex shader (a `Shader`, text or bytes). It must validate against the "max"
    /// caps (dxso's device): else `ValidationError`.
    fn set_shader(&mut self, py: Python<'_>, shader: &Bound<'_, PyAny>) -> PyResult<()> {
        let (name, source) = shader::load(shader)?;
        if !source.shader.version.is_vertex() {
            return Err(DeviceError::new_err(format!(
                "{name}: {} is not a vertex shader",
                source.shader.version
            )));
        }
        let checked = shader::check(py, &name, &source, &Caps::max())?;
        self.inner
            .set_vertex_shader(&checked)
            .map_err(errors::device)
    }

    /// Float constants (`SetVertexShaderConstantF`): `at` a register number — a 4-vector is
    /// one register, an (n, 4) array n registers — or a name in the shader's constant table
    /// (`"WorldViewProj"`, `"lights[1].pos"`; `ID3DXConstantTable::SetFloatArray`: values in
    /// HLSL order, a matrix row by row, placed by its row/column-major class).
    fn set_constant(&mut self, at: &Bound<'_, PyAny>, values: &Bound<'_, PyAny>) -> PyResult<()> {
        match register_or_name(at)? {
            Err(name) => {
                let values: Vec<f32> =
                    constant_numbers("set_constant", values, "float32", FLOAT_REGISTERS * 4)?;
                self.inner.set_constant_by_name(&name, &values)
            }
            Ok(start) => self.inner.set_constant_f(
                start,
                &rows("set_constant", values, "float32", FLOAT_REGISTERS)?,
            ),
        }
        .map_err(errors::device)
    }

    /// Integer constants `i#` (`SetVertexShaderConstantI`): rows of 4 from register `at`, or a
    /// constant by name.
    fn set_constant_i(&mut self, at: &Bound<'_, PyAny>, values: &Bound<'_, PyAny>) -> PyResult<()> {
        match register_or_name(at)? {
            Err(name) => {
                let values: Vec<i32> =
                    constant_numbers("set_constant_i", values, "int32", INT_REGISTERS * 4)?;
                self.inner.set_constant_by_name_i(&name, &values)
            }
            Ok(start) => self.inner.set_constant_i(
                start,
                &rows("set_constant_i", values, "int32", INT_REGISTERS)?,
            ),
        }
        .map_err(errors::device)
    }

    /// Boolean constants `b#` (`SetVertexShaderConstantB`) from register `at`, or by name.
    fn set_constant_b(&mut self, at: &Bound<'_, PyAny>, values: &Bound<'_, PyAny>) -> PyResult<()> {
        let values: Vec<bool> = constant_numbers("set_constant_b", values, "bool", BOOL_REGISTERS)?;
        match register_or_name(at)? {
            Err(name) => self.inner.set_constant_by_name_b(&name, &values),
            Ok(start) => self.inner.set_constant_b(start, &values),
        }
        .map_err(errors::device)
    }

    /// The vertex declaration: a list of `(stream, offset, type, usage[, usage_index[,
    /// method]])`, e.g. `(0, 0, "FLOAT3", "POSITION", 0)` (D3DDECLTYPE and D3DDECLUSAGE
    /// names, with or without their prefixes).
    fn set_declaration(&mut self, elements: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
        let decl = elements
            .iter()
            .enumerate()
            .map(|(i, e)| decl_element(i, e))
            .collect::<PyResult<Vec<_>>>()?;
        self.inner.set_declaration(decl).map_err(errors::device)
    }

    /// Bind stream `n` (`SetStreamSource`): `data` is a NumPy array (any dtype) or a
    /// bytes-like object; `stride` and `offset` in bytes. None unbinds it. Its frequency is
    /// `set_stream_frequency`'s.
    ///
    /// A C-contiguous NumPy array that owns its memory (or a view of one), and `bytes`, are
    /// read where they lie, without a copy, at any alignment: the device holds the array until
    /// the stream is unbound or rebound (or the device is freed) and makes it read-only
    /// meanwhile — writing it raises `ValueError`, and so does `resize`, even with
    /// `refcheck=False` — so no Python code on any thread can change or free it while a draw,
    /// which runs with the GIL released, reads it. Unbinding restores the writeable flags it
    /// cleared. Anything else is copied, in order, when it is bound: a non-contiguous view,
    /// and memory NumPy's flags cannot protect (`bytearray`, `memoryview` of one, `mmap`,
    /// another library's buffer). A copy's size is checked from the shape first: at most
    /// 4 GiB - 1 bytes.
    #[pyo3(signature = (n, data, stride = 0, offset = 0))]
    fn set_stream(
        &mut self,
        n: usize,
        data: Option<&Bound<'_, PyAny>>,
        stride: usize,
        offset: usize,
    ) -> PyResult<()> {
        let (data, hold) = match data {
            Some(d) => {
                let (data, hold) = stream_data(d)?;
                (Some(data), hold)
            }
            None => (None, None),
        };
        self.inner
            .set_stream_source(n, data, offset, stride)
            .map_err(errors::device)?;
        // The old hold goes last, once nothing reads the memory it held.
        self.holds[n] = hold;
        Ok(())
    }

    /// What stream `n` reads: a dict with "address" (of its first byte: the array's own
    /// `ctypes.data` when it was bound without a copy), "nbytes", "copied", "offset",
    /// "stride"; None when it is not bound.
    fn stream_info<'py>(&self, py: Python<'py>, n: usize) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = self.inner.stream(n) else {
            return Ok(None);
        };
        let info = PyDict::new(py);
        info.set_item("address", s.data.as_ptr() as usize)?;
        info.set_item("nbytes", s.data.len())?;
        info.set_item("copied", self.holds[n].is_none())?;
        info.set_item("offset", s.offset)?;
        info.set_item("stride", s.stride)?;
        Ok(Some(info))
    }

    /// `SetStreamSourceFreq(n, setting)`: 1 (every vertex), `INDEXEDDATA | count`,
    /// `INSTANCEDATA | divider`, or a plain divider (software vertex processing).
    fn set_stream_frequency(&mut self, n: usize, setting: u32) -> PyResult<()> {
        let frequency = Frequency::from_setting(setting).map_err(errors::device)?;
        self.inner
            .set_stream_frequency(n, frequency)
            .map_err(errors::device)
    }

    /// The index buffer (array-like of integers; 16- or 32-bit alike), or None.
    fn set_indices(&mut self, indices: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let max = arrays::MAX_COPY_BYTES / 4;
        let limit = format!("an index buffer holds at most {max} indices (4 GiB - 1 bytes)");
        let indices = indices
            .map(|i| arrays::numbers(i, "uint32", "set_indices", max, &limit))
            .transpose()?;
        self.inner.set_indices(indices);
        Ok(())
    }

    /// Bind a texture to vertex sampler `n` (0-3): `levels` is one NumPy array or a list of
    /// them (the mip chain), each holding the format's texels in memory order — shape (height,
    /// width, ...) for "2d", (6, size, size, ...) for "cube" (+X, -X, +Y, -Y, +Z, -Z),
    /// (depth, height, width, ...) for "volume"; e.g. an (h, w, 4) float32 array for
    /// "A32B32G32R32F", an (h, w, 4) uint8 array (B, G, R, A) for "A8R8G8B8". None unbinds.
    #[pyo3(signature = (n, levels, format = "A32B32G32R32F", kind = "2d"))]
    fn set_texture(
        &mut self,
        n: usize,
        levels: Option<&Bound<'_, PyAny>>,
        format: &str,
        kind: &str,
    ) -> PyResult<()> {
        let Some(levels) = levels else {
            return self.inner.set_texture(n, None).map_err(errors::device);
        };
        let fmt = Format::from_name(format)
            .ok_or_else(|| errors::Error::new_err(format!("unknown texture format {format:?}")))?;
        let kind = TextureKind::from_name(kind).ok_or_else(|| {
            errors::Error::new_err(format!(
                "unknown texture type {kind:?}; expected \"2d\", \"cube\" or \"volume\""
            ))
        })?;
        let list: Vec<Bound<'_, PyAny>> = if levels.is_instance_of::<pyo3::types::PyList>() {
            levels.extract()?
        } else {
            vec![levels.clone()]
        };
        let first = list
            .first()
            .ok_or_else(|| errors::Error::new_err("a texture needs at least one level"))?;
        // Every size is checked from the arrays' shapes before any of their data is read.
        let shape = arrays::shape_of(first)?;
        let dim = |k: usize| shape.get(k).copied().unwrap_or(1);
        let (width, height, depth) = match kind {
            TextureKind::TwoD => (dim(1), dim(0), 1),
            TextureKind::Cube => (dim(2), dim(1), 1),
            TextureKind::Volume => (dim(2), dim(1), dim(0)),
        };
        let texture_error = |e: TextureError| errors::Error::new_err(format!("texture: {e}"));
        Texture::check_size(kind, width, height, depth, list.len()).map_err(texture_error)?;
        let faces = if kind == TextureKind::Cube { 6 } else { 1 };
        let mut bytes = Vec::with_capacity(list.len());
        for (k, level) in list.iter().enumerate() {
            let (w, h, d) = (
                (width >> k).max(1),
                (height >> k).max(1),
                (depth >> k).max(1),
            );
            // At most MAX_TEXTURE_TEXELS texels of at most 16 bytes: no overflow.
            let want = w * h * d * faces * fmt.texel_bytes();
            if let Some(got) = arrays::nbytes(level)?
                && got != want
            {
                return Err(texture_error(TextureError::LevelSize {
                    level: k,
                    got,
                    want,
                    width: w,
                    height: h,
                    depth: d,
                    faces: if faces == 6 { " x 6 faces" } else { "" },
                }));
            }
            bytes.push(arrays::bytes_of(&format!("texture level {k}"), level)?);
        }
        let texture = Texture::new(kind, fmt, width, height, depth, &bytes)
            .map_err(|e| errors::Error::new_err(format!("texture: {e}")))?;
        self.inner
            .set_texture(n, Some(Arc::new(texture)))
            .map_err(errors::device)
    }

    /// Sampler states of vertex sampler `n`, by D3DSAMPLERSTATETYPE name in lower case:
    /// `address_u="clamp"`, `min_filter="linear"`, `border_color=0xff0000ff`, ... (the rest
    /// keep D3D9's defaults).
    #[pyo3(signature = (n, **states))]
    fn set_sampler_state(&mut self, n: usize, states: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        let mut st = SamplerState::default();
        for (key, value) in states.into_iter().flatten() {
            let key: String = key.extract()?;
            // bool before numbers: Python's True is also an int.
            let text;
            let value = if let Ok(b) = value.cast::<pyo3::types::PyBool>() {
                SamplerValue::Flag(b.is_true())
            } else if let Ok(x) = value.extract::<f64>() {
                SamplerValue::Number(x)
            } else {
                text = value.extract::<String>()?;
                SamplerValue::Name(&text)
            };
            st.set(&key, value)
                .map_err(|e| errors::Error::new_err(format!("sampler {n}: {e}")))?;
        }
        self.inner.set_sampler_state(n, st).map_err(errors::device)
    }

    /// Run the shader over `vertex_count` vertices, `instance_count` times. Returns a float32
    /// array shaped (vertices, outputs, 4) — the bytes `dxso run --format bin` writes — and
    /// each output register's semantics ("POSITION0"; "TEXCOORD0+TEXCOORD1" for a packed
    /// vs_3_0 register). The GIL is released during the draw (streams that read the caller's
    /// memory hold it read-only: see `set_stream`).
    #[pyo3(signature = (vertex_count, instance_count = 1))]
    fn draw<'py>(
        &self,
        py: Python<'py>,
        vertex_count: usize,
        instance_count: usize,
    ) -> PyResult<Drawn<'py>> {
        let inner = &self.inner;
        let draw = || inner.draw(vertex_count, instance_count);
        // Every stream is a copy, immutable `bytes`, or the caller's memory held read-only
        // (`set_stream`): no Python code can write or free it meanwhile, so other threads run.
        let out = py.detach(draw).map_err(errors::device)?;
        let shape = [out.vertices, out.registers.len(), 4];
        let array = PyArray1::from_vec(py, out.data).reshape(shape)?;
        Ok((array.into_any(), semantics(&out.registers)))
    }

    /// Run vertex `vertex` of a draw of `vertex_count` (default `vertex + 1`) ×
    /// `instance_count` vertices alone, recording every instruction it executes: the shader
    /// debugger (`dxso run --trace N`).
    #[pyo3(signature = (vertex, vertex_count = None, instance_count = 1))]
    fn trace(
        &self,
        py: Python<'_>,
        vertex: usize,
        vertex_count: Option<usize>,
        instance_count: usize,
    ) -> PyResult<Trace> {
        let count = vertex_count.unwrap_or(vertex.saturating_add(1));
        let inner = &self.inner;
        let t = py
            .detach(|| inner.trace(vertex, count, instance_count))
            .map_err(errors::device)?;
        let registers = self
            .inner
            .program()
            .map(|p| p.outputs.clone())
            .unwrap_or_default();
        let shape = [registers.len(), 4];
        let outputs = PyArray1::from_vec(py, t.outputs).reshape(shape)?;
        Ok(Trace {
            vertex: t.vertex,
            steps: t.steps.into_iter().map(TraceStep::from).collect(),
            outputs: outputs.into_any().unbind(),
            semantics: semantics(&registers),
            error: t.error.map(|e| e.to_string()),
        })
    }
}

impl From<dxso_vm::TraceStep> for TraceStep {
    fn from(s: dxso_vm::TraceStep) -> TraceStep {
        TraceStep {
            instruction: s.instruction,
            text: s.text,
            active: s.active,
            effect: s.effect,
        }
    }
}

/// One executed instruction of a trace.
#[pyclass(frozen, module = "dxso")]
#[derive(Clone)]
pub struct TraceStep {
    /// Index of the instruction in the shader.
    #[pyo3(get)]
    instruction: usize,
    /// The instruction as the listing prints it.
    #[pyo3(get)]
    text: String,
    /// False when the vertex skipped it (execution mask or predicate).
    #[pyo3(get)]
    active: bool,
    /// What it wrote: "r0 = (1, 2, 3, 4)", "aL = 0", "not taken".
    #[pyo3(get)]
    effect: String,
}

#[pymethods]
impl TraceStep {
    fn __repr__(&self) -> String {
        format!(
            "<TraceStep {}{} {}  {}>",
            if self.active { "" } else { "- " },
            self.instruction,
            self.text,
            self.effect
        )
    }
}

/// What one vertex did: its executed instructions, its outputs, and the error that stopped
/// it, if one did.
#[pyclass(frozen, module = "dxso")]
pub struct Trace {
    #[pyo3(get)]
    vertex: usize,
    #[pyo3(get)]
    steps: Vec<TraceStep>,
    /// float32 array (outputs, 4).
    #[pyo3(get)]
    outputs: Py<PyAny>,
    #[pyo3(get)]
    semantics: Vec<String>,
    #[pyo3(get)]
    error: Option<String>,
}
