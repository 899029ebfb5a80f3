//! Scene textures and sampler states: `textures`/`samplers` (the vertex samplers `s0`..`s3`)
//! and `pixel_textures`/`pixel_samplers` (`s0`..`s15`).
//!
//! A texture is `{"type": "2d"|"cube"|"volume", "format": "A8R8G8B8", "width": W,
//! "height": H, "depth": D, "levels": [[...], ...]}` or `{"file": "x.dds"|"x.png"}`.
//! Each level lists the format's stored elements in memory order: floats for the float
//! formats (R first), unsigned integers per 8- or 16-bit channel for the others (A8R8G8B8:
//! B, G, R, A), one integer per texel for the packed 16/32-bit formats (R5G6B5, A2R10G10B10,
//! ...). Cube levels hold the six faces (+X, −X, +Y, −Y, +Z, −Z) one after another; volume
//! levels their slices.

use super::{Context, SceneError, bail, read_file};
use dxso_vm::{
    Device, Format, MAX_TEXTURE_TEXELS, PixelState, SamplerState, SamplerValue, Texture,
    TextureKind, VmError,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The samplers of one stage: where textures and sampler states go.
pub(crate) trait SamplerSink {
    /// `"vertex"` or `"pixel"`, for messages.
    const STAGE: &'static str;
    /// Sampler registers `s0`..`s(COUNT - 1)`.
    const COUNT: usize;
    /// Whether a texture of this format can be bound here (`name`: the `D3DFMT_` name).
    fn takes_format(name: &str) -> bool;
    fn set_texture(&mut self, n: usize, texture: Arc<Texture>) -> Result<(), VmError>;
    fn set_sampler_state(&mut self, n: usize, state: SamplerState) -> Result<(), VmError>;
}

impl SamplerSink for Device {
    const STAGE: &'static str = "vertex";
    const COUNT: usize = 4;
    fn takes_format(name: &str) -> bool {
        dxso_vm::check_vertex_texture_format(name)
    }
    fn set_texture(&mut self, n: usize, texture: Arc<Texture>) -> Result<(), VmError> {
        Device::set_texture(self, n, Some(texture))
    }
    fn set_sampler_state(&mut self, n: usize, state: SamplerState) -> Result<(), VmError> {
        Device::set_sampler_state(self, n, state)
    }
}

impl SamplerSink for PixelState {
    const STAGE: &'static str = "pixel";
    const COUNT: usize = 16;
    fn takes_format(name: &str) -> bool {
        Format::from_name(name).is_some()
    }
    fn set_texture(&mut self, n: usize, texture: Arc<Texture>) -> Result<(), VmError> {
        PixelState::set_texture(self, n, Some(texture))
    }
    fn set_sampler_state(&mut self, n: usize, state: SamplerState) -> Result<(), VmError> {
        PixelState::set_sampler_state(self, n, state)
    }
}

fn sampler_index<S: SamplerSink>(key: &str) -> Result<usize, SceneError> {
    key.strip_prefix('s')
        .filter(|n| !n.starts_with('+') && (n.len() == 1 || !n.starts_with('0')))
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n < S::COUNT)
        .ok_or_else(|| {
            SceneError::new(format!(
                "{key:?}: {} samplers are s0..s{}",
                S::STAGE,
                S::COUNT - 1
            ))
        })
}

/// Bind a run scene's `textures` and `samplers` to the vertex samplers of `device`.
pub fn apply(
    device: &mut Device,
    textures: &BTreeMap<String, Value>,
    samplers: &BTreeMap<String, Value>,
    dir: &Path,
) -> Result<(), SceneError> {
    apply_to(device, ("textures", textures), ("samplers", samplers), dir)
}

/// Bind a draw's `pixel_textures` and `pixel_samplers` to its pixel shader's samplers.
pub fn apply_pixel(
    pixel: &mut PixelState,
    textures: &BTreeMap<String, Value>,
    samplers: &BTreeMap<String, Value>,
    dir: &Path,
) -> Result<(), SceneError> {
    apply_to(
        pixel,
        ("pixel_textures", textures),
        ("pixel_samplers", samplers),
        dir,
    )
}

pub(crate) fn apply_to<S: SamplerSink>(
    sink: &mut S,
    (textures_field, textures): (&str, &BTreeMap<String, Value>),
    (samplers_field, samplers): (&str, &BTreeMap<String, Value>),
    dir: &Path,
) -> Result<(), SceneError> {
    for (key, v) in textures {
        let n = sampler_index::<S>(key).context(textures_field)?;
        let tex = texture::<S>(v, dir).with_context(|| format!("{textures_field}.{key}"))?;
        sink.set_texture(n, Arc::new(tex)).context(textures_field)?;
    }
    for (key, v) in samplers {
        let n = sampler_index::<S>(key).context(samplers_field)?;
        let st = sampler(v).with_context(|| format!("{samplers_field}.{key}"))?;
        sink.set_sampler_state(n, st).context(samplers_field)?;
    }
    Ok(())
}

fn uint(v: &Value, what: &str) -> Result<u64, SceneError> {
    v.as_u64()
        .ok_or_else(|| SceneError::new(format!("{what}: expected an unsigned integer, found {v}")))
}

fn texture<S: SamplerSink>(v: &Value, dir: &Path) -> Result<Texture, SceneError> {
    let obj = v
        .as_object()
        .ok_or_else(|| SceneError::new("expected an object"))?;
    for k in obj.keys() {
        if ![
            "type", "format", "width", "height", "depth", "levels", "file",
        ]
        .contains(&k.as_str())
        {
            bail!("unknown field {k:?}");
        }
    }
    if let Some(file) = obj.get("file") {
        let file = file
            .as_str()
            .ok_or_else(|| SceneError::new("file: expected a path"))?;
        let path = dir.join(file);
        let bytes = read_file(&path)?;
        let lower = file.to_ascii_lowercase();
        return if lower.ends_with(".png") {
            load_png(&bytes)
        } else if lower.ends_with(".dds") {
            load_dds::<S>(&bytes)
        } else {
            bail!("{file}: textures load from .dds or .png files")
        };
    }
    let kind_name = obj.get("type").and_then(Value::as_str).unwrap_or("2d");
    let Some(kind) = TextureKind::from_name(kind_name) else {
        bail!("type {kind_name:?}: expected \"2d\", \"cube\" or \"volume\"")
    };
    let fname = obj
        .get("format")
        .and_then(Value::as_str)
        .ok_or_else(|| SceneError::new("format: missing"))?;
    let format = Format::from_name(fname)
        .filter(|_| S::takes_format(fname))
        .ok_or_else(|| {
            SceneError::new(format!(
                "format {fname:?} is not a {} texture format",
                S::STAGE
            ))
        })?;
    let dim = |k: &str| -> Result<usize, SceneError> {
        match obj.get(k) {
            None => Ok(1),
            Some(v) => Ok(usize::try_from(uint(v, k)?).unwrap_or(usize::MAX)),
        }
    };
    let (w, h, d) = (dim("width")?, dim("height")?, dim("depth")?);
    let levels = obj
        .get("levels")
        .and_then(Value::as_array)
        .ok_or_else(|| SceneError::new("levels: expected an array of levels (or \"file\")"))?;
    let mut bytes = Vec::new();
    for (k, level) in levels.iter().enumerate() {
        let items = level
            .as_array()
            .ok_or_else(|| SceneError::new(format!("levels[{k}]: expected an array")))?;
        bytes.push(
            level_bytes(kind, format, (w, h, d), k, items)
                .with_context(|| format!("levels[{k}]"))?,
        );
    }
    Ok(Texture::new(kind, format, w, h, d, &bytes)?)
}

/// A level's numbers as the bytes `format` stores (level `k` of a `w` x `h` x `d` texture):
/// dxso-vm's encoder, the one place a scene's `levels` become bytes.
fn level_bytes(
    kind: TextureKind,
    format: Format,
    (w, h, d): (usize, usize, usize),
    k: usize,
    items: &[Value],
) -> Result<Vec<u8>, SceneError> {
    let numbers = items
        .iter()
        .map(|x| {
            x.as_f64()
                .ok_or_else(|| SceneError::new(format!("expected a number, found {x}")))
        })
        .collect::<Result<Vec<f64>, SceneError>>()?;
    let size = |n: usize| n.checked_shr(k as u32).unwrap_or(0).max(1);
    Ok(dxso_vm::encode_level(
        kind,
        format,
        size(w),
        size(h),
        size(d),
        &numbers,
    )?)
}

/// The most bytes the PNG decoder may allocate (`png::Limits`): a largest texture
/// ([`MAX_TEXTURE_TEXELS`]) at 16 bits for each of four channels.
pub const PNG_DECODER_BYTES: usize = MAX_TEXTURE_TEXELS * 8;

/// A PNG as one A8B8G8R8 (8-bit) or A16B16G16R16 (16-bit) level; grey images are expanded.
/// The declared size is checked against the texture limits before anything is allocated.
pub fn load_png(bytes: &[u8]) -> Result<Texture, SceneError> {
    let (format, w, h, level) = png_level(bytes, MAX_TEXTURE_TEXELS)?;
    Ok(Texture::new(TextureKind::TwoD, format, w, h, 1, &[level])?)
}

/// A PNG as the inline texture a scene writes (`{"type": "2d", "format": "A8B8G8R8",
/// "width": W, "height": H, "levels": [[R, G, B, A, ...]]}`, 16-bit PNGs as
/// `A16B16G16R16`): the texture that `{"file": "x.png"}` loads, for a scene that carries its
/// texture in itself (the playground puts a PNG from the browser into its scene this way).
/// A PNG of more than `max_texels` texels is refused before it is decoded (inline, each texel
/// is four numbers of JSON).
pub fn png_to_json(bytes: &[u8], max_texels: usize) -> Result<Value, SceneError> {
    let (format, w, h, level) = png_level(bytes, max_texels)?;
    let numbers: Vec<Value> = if format == Format::A16B16G16R16 {
        level
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]).into())
            .collect()
    } else {
        level.iter().map(|&b| b.into()).collect()
    };
    Ok(serde_json::json!({
        "type": "2d",
        "format": format.name(),
        "width": w,
        "height": h,
        "levels": [numbers],
    }))
}

/// A PNG's one level in memory order, its format and size; more than `max_texels` texels is an
/// error before anything is decoded.
fn png_level(
    bytes: &[u8],
    max_texels: usize,
) -> Result<(Format, usize, usize, Vec<u8>), SceneError> {
    let png_error = |e: png::DecodingError| SceneError::new(format!("PNG: {e}"));
    let limits = png::Limits {
        bytes: PNG_DECODER_BYTES,
    };
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), limits);
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(|e| {
        SceneError::new(format!(
            "PNG (decoder limit {PNG_DECODER_BYTES} bytes): {e}"
        ))
    })?;
    let (w, h) = reader.info().size();
    Texture::check_size(TextureKind::TwoD, w as usize, h as usize, 1, 1).context("PNG")?;
    if (w as usize).saturating_mul(h as usize) > max_texels {
        bail!("PNG: {w}x{h} is more than the {max_texels} texels allowed here");
    }
    let size = reader
        .output_buffer_size()
        .filter(|&n| n <= PNG_DECODER_BYTES)
        .ok_or_else(|| {
            SceneError::new(format!(
                "PNG: decoded image exceeds {PNG_DECODER_BYTES} bytes"
            ))
        })?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(png_error)?;
    let (w, h) = (info.width as usize, info.height as usize);
    let data = buf
        .get(..info.buffer_size())
        .ok_or_else(|| SceneError::new("PNG: the frame is larger than its buffer"))?;
    let channels = info.color_type.samples();
    let wide = info.bit_depth == png::BitDepth::Sixteen;
    let mut out = Vec::with_capacity(w * h * if wide { 8 } else { 4 });
    let sample = |t: &[u8], c: usize| -> u16 {
        if wide {
            u16::from_be_bytes([t[2 * c], t[2 * c + 1]])
        } else {
            t[c] as u16
        }
    };
    let stride = channels * if wide { 2 } else { 1 };
    for t in data.chunks_exact(stride) {
        let (r, g, b, a) = match channels {
            1 => (sample(t, 0), sample(t, 0), sample(t, 0), None),
            2 => (sample(t, 0), sample(t, 0), sample(t, 0), Some(sample(t, 1))),
            3 => (sample(t, 0), sample(t, 1), sample(t, 2), None),
            _ => (sample(t, 0), sample(t, 1), sample(t, 2), Some(sample(t, 3))),
        };
        let max = if wide { 0xFFFF } else { 0xFF };
        for c in [r, g, b, a.unwrap_or(max)] {
            if wide {
                out.extend(c.to_le_bytes());
            } else {
                out.push(c as u8);
            }
        }
    }
    let format = if wide {
        Format::A16B16G16R16
    } else {
        Format::A8B8G8R8
    };
    Ok((format, w, h, out))
}

/// A DDS with its mip chain (2D, cube or volume) in one of the formats the stage samples.
fn load_dds<S: SamplerSink>(bytes: &[u8]) -> Result<Texture, SceneError> {
    use ddsfile::D3DFormat as D;
    let dds = ddsfile::Dds::read(std::io::Cursor::new(bytes))
        .map_err(|e| SceneError::new(format!("DDS: {e}")))?;
    let d3d = dds
        .get_d3d_format()
        .ok_or_else(|| SceneError::new("DDS: only D3D9 formats (no DX10 header) are read"))?;
    let format = match d3d {
        D::A32B32G32R32F => Format::A32B32G32R32F,
        D::G32R32F => Format::G32R32F,
        D::R32F => Format::R32F,
        D::A16B16G16R16F => Format::A16B16G16R16F,
        D::G16R16F => Format::G16R16F,
        D::R16F => Format::R16F,
        D::A8R8G8B8 => Format::A8R8G8B8,
        D::X8R8G8B8 => Format::X8R8G8B8,
        D::A8B8G8R8 => Format::A8B8G8R8,
        D::A2R10G10B10 => Format::A2R10G10B10,
        D::A2B10G10R10 => Format::A2B10G10R10,
        D::G16R16 => Format::G16R16,
        D::A16B16G16R16 => Format::A16B16G16R16,
        D::R5G6B5 => Format::R5G6B5,
        D::A1R5G5B5 => Format::A1R5G5B5,
        D::A4R4G4B4 => Format::A4R4G4B4,
        D::L8 => Format::L8,
        D::A8L8 => Format::A8L8,
        D::A8 => Format::A8,
        D::L16 => Format::L16,
        other => bail!("DDS format {other:?} is not a {} texture format", S::STAGE),
    };
    let (w, h, d) = (
        dds.get_width() as usize,
        dds.get_height() as usize,
        dds.get_depth() as usize,
    );
    let layers = dds.get_num_array_layers();
    let kind = match (layers, d) {
        (6, _) => TextureKind::Cube,
        (_, 2..) => TextureKind::Volume,
        _ => TextureKind::TwoD,
    };
    let mips = dds.get_num_mipmap_levels().max(1) as usize;
    // The header's numbers are the file's claim: check them against the limits before
    // computing with them (then no product below can overflow) or allocating.
    Texture::check_size(kind, w, h, d, mips).context("DDS")?;
    let tb = format.texel_bytes();
    let level_bytes = |k: usize| (w >> k).max(1) * (h >> k).max(1) * (d >> k).max(1) * tb;
    let mut levels: Vec<Vec<u8>> = vec![Vec::new(); mips];
    let mut at = 0;
    for _layer in 0..layers {
        for (k, level) in levels.iter_mut().enumerate() {
            let n = level_bytes(k);
            let chunk = dds
                .data
                .get(at..at + n)
                .ok_or_else(|| SceneError::new(format!("DDS: level {k} is cut short")))?;
            level.extend_from_slice(chunk);
            at += n;
        }
    }
    Ok(Texture::new(kind, format, w, h, d, &levels)?)
}

fn sampler(v: &Value) -> Result<SamplerState, SceneError> {
    let obj = v
        .as_object()
        .ok_or_else(|| SceneError::new("expected an object"))?;
    let mut st = SamplerState::default();
    for (k, x) in obj {
        let value = match x {
            Value::String(s) => SamplerValue::Name(s),
            Value::Bool(b) => SamplerValue::Flag(*b),
            Value::Number(n) => SamplerValue::Number(n.as_f64().unwrap_or(f64::NAN)),
            // null, arrays, objects: no state takes them; the message names the state.
            _ => SamplerValue::Name("(not a name, number or flag)"),
        };
        st.set(k, value)
            .map_err(|e| SceneError::new(e.to_string()))?;
    }
    Ok(st)
}
