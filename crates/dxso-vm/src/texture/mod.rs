//! Vertex textures: formats, mip chains, sampler states and `texldl`
//! (`../shared/spec/vertex-pipeline.md` §6, `instructions.md` §6).
//!
//! Conventions (the spec marks them unverified; these are dxso's choices, tested):
//! - texel `i` of a level of size `n` covers `[i/n, (i+1)/n)`; POINT takes `floor(u·n)`, LINEAR
//!   blends the texels around `u·n − 0.5`; address modes apply to texel indices;
//! - luminance formats read `(L, L, L, 1)` / `(L, L, L, A)`; missing channels read 1, except
//!   A8, whose colour channels read 0;
//! - cube maps select the face by the major axis (ties: x over y over z) and sample inside the
//!   face with CLAMP (D3D9 has no seamless filtering);
//! - LOD (C16): `lod = src.w + MIPMAPLODBIAS`; `lod <= 0` samples with MAGFILTER, else with
//!   MINFILTER. MIPFILTER NONE samples level 0 and ignores MAXMIPLEVEL; otherwise the LOD is
//!   raised to at least MAXMIPLEVEL (itself clamped to the last level) and clamped to the last
//!   level; POINT takes level ⌈lod + 0.5⌉ − 1, LINEAR blends floor and ceil by frac(lod).

use crate::LANES;
use crate::math::Row;
use half::f16;
use std::sync::Arc;

/// `D3DFORMAT`s a vertex texture may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    A32B32G32R32F,
    G32R32F,
    R32F,
    A16B16G16R16F,
    G16R16F,
    R16F,
    A8R8G8B8,
    X8R8G8B8,
    A8B8G8R8,
    A2R10G10B10,
    A2B10G10R10,
    G16R16,
    A16B16G16R16,
    R5G6B5,
    A1R5G5B5,
    A4R4G4B4,
    L8,
    A8L8,
    A8,
    L16,
}

/// How a format's texels are stored, which is also how a scene's `levels` numbers are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// `n` floats of `bits` (32 or 16) per texel, R first.
    Float { bits: u8, n: u8 },
    /// `n` unsigned integers of `bits` (8 or 16) per texel, in memory order.
    Unorm { bits: u8, n: u8 },
    /// One packed little-endian integer of `bytes` (2 or 4) per texel.
    Packed { bytes: u8 },
}

impl Format {
    pub const ALL: [Format; 20] = [
        Format::A32B32G32R32F,
        Format::G32R32F,
        Format::R32F,
        Format::A16B16G16R16F,
        Format::G16R16F,
        Format::R16F,
        Format::A8R8G8B8,
        Format::X8R8G8B8,
        Format::A8B8G8R8,
        Format::A2R10G10B10,
        Format::A2B10G10R10,
        Format::G16R16,
        Format::A16B16G16R16,
        Format::R5G6B5,
        Format::A1R5G5B5,
        Format::A4R4G4B4,
        Format::L8,
        Format::A8L8,
        Format::A8,
        Format::L16,
    ];

    /// The D3DFORMAT name without `D3DFMT_`.
    pub fn name(self) -> &'static str {
        use Format::*;
        match self {
            A32B32G32R32F => "A32B32G32R32F",
            G32R32F => "G32R32F",
            R32F => "R32F",
            A16B16G16R16F => "A16B16G16R16F",
            G16R16F => "G16R16F",
            R16F => "R16F",
            A8R8G8B8 => "A8R8G8B8",
            X8R8G8B8 => "X8R8G8B8",
            A8B8G8R8 => "A8B8G8R8",
            A2R10G10B10 => "A2R10G10B10",
            A2B10G10R10 => "A2B10G10R10",
            G16R16 => "G16R16",
            A16B16G16R16 => "A16B16G16R16",
            R5G6B5 => "R5G6B5",
            A1R5G5B5 => "A1R5G5B5",
            A4R4G4B4 => "A4R4G4B4",
            L8 => "L8",
            A8L8 => "A8L8",
            A8 => "A8",
            L16 => "L16",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        let n = name.strip_prefix("D3DFMT_").unwrap_or(name);
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(n))
    }

    pub fn storage(self) -> Storage {
        use Format::*;
        match self {
            A32B32G32R32F => Storage::Float { bits: 32, n: 4 },
            G32R32F => Storage::Float { bits: 32, n: 2 },
            R32F => Storage::Float { bits: 32, n: 1 },
            A16B16G16R16F => Storage::Float { bits: 16, n: 4 },
            G16R16F => Storage::Float { bits: 16, n: 2 },
            R16F => Storage::Float { bits: 16, n: 1 },
            A8R8G8B8 | X8R8G8B8 | A8B8G8R8 => Storage::Unorm { bits: 8, n: 4 },
            G16R16 => Storage::Unorm { bits: 16, n: 2 },
            A16B16G16R16 => Storage::Unorm { bits: 16, n: 4 },
            L8 | A8 => Storage::Unorm { bits: 8, n: 1 },
            A8L8 => Storage::Unorm { bits: 8, n: 2 },
            L16 => Storage::Unorm { bits: 16, n: 1 },
            A2R10G10B10 | A2B10G10R10 => Storage::Packed { bytes: 4 },
            R5G6B5 | A1R5G5B5 | A4R4G4B4 => Storage::Packed { bytes: 2 },
        }
    }

    /// Bytes per texel.
    pub fn texel_bytes(self) -> usize {
        match self.storage() {
            Storage::Float { bits, n } | Storage::Unorm { bits, n } => {
                bits as usize / 8 * n as usize
            }
            Storage::Packed { bytes } => bytes as usize,
        }
    }

    /// One texel as (R, G, B, A), with D3D9's values for the channels the format lacks.
    pub fn decode(self, b: &[u8]) -> [f32; 4] {
        use Format::*;
        let f = |i: usize| f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
        let h = |i: usize| f16::from_bits(u16::from_le_bytes([b[2 * i], b[2 * i + 1]])).to_f32();
        let u8n = |i: usize| b[i] as f32 / 255.0;
        let u16n = |i: usize| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]) as f32 / 65535.0;
        let word = || u16::from_le_bytes([b[0], b[1]]) as u32;
        let dword = || u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let bits = |v: u32, shift: u32, n: u32| {
            (v >> shift & ((1 << n) - 1)) as f32 / ((1u32 << n) - 1) as f32
        };
        match self {
            A32B32G32R32F => [f(0), f(1), f(2), f(3)],
            G32R32F => [f(0), f(1), 1.0, 1.0],
            R32F => [f(0), 1.0, 1.0, 1.0],
            A16B16G16R16F => [h(0), h(1), h(2), h(3)],
            G16R16F => [h(0), h(1), 1.0, 1.0],
            R16F => [h(0), 1.0, 1.0, 1.0],
            // A8R8G8B8 is stored B, G, R, A.
            A8R8G8B8 => [u8n(2), u8n(1), u8n(0), u8n(3)],
            X8R8G8B8 => [u8n(2), u8n(1), u8n(0), 1.0],
            A8B8G8R8 => [u8n(0), u8n(1), u8n(2), u8n(3)],
            A2R10G10B10 => {
                let d = dword();
                [
                    bits(d, 20, 10),
                    bits(d, 10, 10),
                    bits(d, 0, 10),
                    bits(d, 30, 2),
                ]
            }
            A2B10G10R10 => {
                let d = dword();
                [
                    bits(d, 0, 10),
                    bits(d, 10, 10),
                    bits(d, 20, 10),
                    bits(d, 30, 2),
                ]
            }
            G16R16 => [u16n(0), u16n(1), 1.0, 1.0],
            A16B16G16R16 => [u16n(0), u16n(1), u16n(2), u16n(3)],
            R5G6B5 => {
                let w = word();
                [bits(w, 11, 5), bits(w, 5, 6), bits(w, 0, 5), 1.0]
            }
            A1R5G5B5 => {
                let w = word();
                [bits(w, 10, 5), bits(w, 5, 5), bits(w, 0, 5), bits(w, 15, 1)]
            }
            A4R4G4B4 => {
                let w = word();
                [bits(w, 8, 4), bits(w, 4, 4), bits(w, 0, 4), bits(w, 12, 4)]
            }
            L8 => [u8n(0), u8n(0), u8n(0), 1.0],
            A8L8 => [u8n(0), u8n(0), u8n(0), u8n(1)],
            A8 => [0.0, 0.0, 0.0, u8n(0)],
            L16 => [u16n(0), u16n(0), u16n(0), 1.0],
        }
    }
}

/// `IDirect3D9::CheckDeviceFormat(..., D3DUSAGE_QUERY_VERTEXTEXTURE, type, format)`: which
/// formats this engine samples in vertex shaders. Every [`Format`] is supported, for 2D, cube
/// and volume textures alike; anything else (compressed formats, YUV) is not.
pub fn check_vertex_texture_format(name: &str) -> bool {
    Format::from_name(name).is_some()
}

/// `D3DPTFILTERCAPS_*` bits.
pub const PTFILTERCAPS_MINFPOINT: u32 = 0x0000_0100;
pub const PTFILTERCAPS_MINFLINEAR: u32 = 0x0000_0200;
pub const PTFILTERCAPS_MIPFPOINT: u32 = 0x0001_0000;
pub const PTFILTERCAPS_MIPFLINEAR: u32 = 0x0002_0000;
pub const PTFILTERCAPS_MAGFPOINT: u32 = 0x0100_0000;
pub const PTFILTERCAPS_MAGFLINEAR: u32 = 0x0200_0000;
/// `D3DCAPS9.VertexTextureFilterCaps` of this engine: point and linear min/mag/mip, no
/// anisotropic.
pub const VERTEX_TEXTURE_FILTER_CAPS: u32 = PTFILTERCAPS_MINFPOINT
    | PTFILTERCAPS_MINFLINEAR
    | PTFILTERCAPS_MIPFPOINT
    | PTFILTERCAPS_MIPFLINEAR
    | PTFILTERCAPS_MAGFPOINT
    | PTFILTERCAPS_MAGFLINEAR;

/// `D3DRESOURCETYPE` of a texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureKind {
    TwoD,
    Cube,
    Volume,
}

/// One mip level, decoded to (R, G, B, A) floats; cube faces (+X, −X, +Y, −Y, +Z, −Z) or
/// volume slices follow each other.
#[derive(Clone, Debug, PartialEq)]
struct Level {
    width: usize,
    height: usize,
    depth: usize,
    texels: Vec<[f32; 4]>,
}

/// A texture with its mip chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    pub kind: TextureKind,
    pub format: Format,
    levels: Vec<Level>,
}

/// The largest width, height or depth a texture may have (`MAX_TEXTURE_SIZE`); larger is
/// [`TextureError::TooLarge`].
pub const MAX_TEXTURE_SIZE: usize = 1 << 15;

/// The most texels a texture may hold, all its levels, faces and slices together
/// (`MAX_TEXTURE_TEXELS`, 2^26: 1 GiB once decoded to four floats a texel); more is
/// [`TextureError::TooLarge`]. Decoders check a file's declared size against it (with
/// [`Texture::check_size`]) before they allocate.
pub const MAX_TEXTURE_TEXELS: usize = 1 << 26;

#[derive(Debug, thiserror::Error, PartialEq, Eq, Clone)]
pub enum TextureError {
    #[error("a texture needs a size of at least 1x1x1, not {0}x{1}x{2}")]
    Size(usize, usize, usize),
    #[error("a {width}x{height}x{depth} texture is too large: {what} {limit} ({max})")]
    TooLarge {
        width: usize,
        height: usize,
        depth: usize,
        /// What exceeds the limit ("a dimension exceeds", "its texels exceed").
        what: &'static str,
        /// The limit's name (`MAX_TEXTURE_SIZE`, `MAX_TEXTURE_TEXELS`).
        limit: &'static str,
        max: usize,
    },
    #[error("a texture needs at least one level")]
    NoLevels,
    #[error("level {level}: {got} bytes, {want} expected ({width}x{height}x{depth}{faces})")]
    LevelSize {
        level: usize,
        got: usize,
        want: usize,
        width: usize,
        height: usize,
        depth: usize,
        faces: &'static str,
    },
    #[error("{0} levels are more than a {1}x{2}x{3} texture has")]
    TooManyLevels(usize, usize, usize, usize),
    #[error("a cube texture is square")]
    CubeNotSquare,
    #[error("a {0:?} texture cannot have depth {1}")]
    Depth(TextureKind, usize),
}

impl Texture {
    /// Whether a texture of this kind, size and number of levels may be made: at least 1x1x1,
    /// at most [`MAX_TEXTURE_SIZE`] in each dimension and [`MAX_TEXTURE_TEXELS`] texels in
    /// all, depth 1 unless a volume, square if a cube, at least one level and no more than
    /// the size has. Decoders call it with a file's declared size before they allocate.
    pub fn check_size(
        kind: TextureKind,
        width: usize,
        height: usize,
        depth: usize,
        levels: usize,
    ) -> Result<(), TextureError> {
        if width == 0 || height == 0 || depth == 0 {
            return Err(TextureError::Size(width, height, depth));
        }
        let too_large = |what, limit, max| TextureError::TooLarge {
            width,
            height,
            depth,
            what,
            limit,
            max,
        };
        if width.max(height).max(depth) > MAX_TEXTURE_SIZE {
            return Err(too_large(
                "a dimension exceeds",
                "MAX_TEXTURE_SIZE",
                MAX_TEXTURE_SIZE,
            ));
        }
        if kind != TextureKind::Volume && depth != 1 {
            return Err(TextureError::Depth(kind, depth));
        }
        if kind == TextureKind::Cube && width != height {
            return Err(TextureError::CubeNotSquare);
        }
        if levels == 0 {
            return Err(TextureError::NoLevels);
        }
        let most = 1 + width.max(height).max(depth).ilog2() as usize;
        if levels > most {
            return Err(TextureError::TooManyLevels(levels, width, height, depth));
        }
        // Each dimension is at most 2^15 and there are at most 16 levels: no overflow.
        let faces = if kind == TextureKind::Cube { 6 } else { 1 };
        let texels: usize = (0..levels)
            .map(|k| (width >> k).max(1) * (height >> k).max(1) * (depth >> k).max(1) * faces)
            .sum();
        if texels > MAX_TEXTURE_TEXELS {
            return Err(too_large(
                "its texels exceed",
                "MAX_TEXTURE_TEXELS",
                MAX_TEXTURE_TEXELS,
            ));
        }
        Ok(())
    }

    /// Build a texture from each level's bytes in the format's memory layout. Level `k` is
    /// `max(1, size >> k)` in each dimension; cube levels hold six faces, volume levels all
    /// their slices.
    pub fn new(
        kind: TextureKind,
        format: Format,
        width: usize,
        height: usize,
        depth: usize,
        levels: &[Vec<u8>],
    ) -> Result<Texture, TextureError> {
        Texture::check_size(kind, width, height, depth, levels.len())?;
        let faces = if kind == TextureKind::Cube { 6 } else { 1 };
        let tb = format.texel_bytes();
        let mut out = Vec::with_capacity(levels.len());
        for (k, bytes) in levels.iter().enumerate() {
            let (w, h, d) = (
                (width >> k).max(1),
                (height >> k).max(1),
                (depth >> k).max(1),
            );
            let want = w * h * d * faces * tb;
            if bytes.len() != want {
                return Err(TextureError::LevelSize {
                    level: k,
                    got: bytes.len(),
                    want,
                    width: w,
                    height: h,
                    depth: d,
                    faces: if faces == 6 { " x 6 faces" } else { "" },
                });
            }
            out.push(Level {
                width: w,
                height: h,
                depth: d,
                texels: bytes.chunks_exact(tb).map(|t| format.decode(t)).collect(),
            });
        }
        Ok(Texture {
            kind,
            format,
            levels: out,
        })
    }

    pub fn levels(&self) -> usize {
        self.levels.len()
    }

    pub fn size(&self) -> (usize, usize, usize) {
        let l = &self.levels[0];
        (l.width, l.height, l.depth)
    }

    /// Mip level `k` decoded to (R, G, B, A) floats, as `texldl` reads it: its width, height
    /// and depth, and its texels row by row (cube faces +X, −X, +Y, −Y, +Z, −Z or volume
    /// slices one after another). `None` past the last level.
    pub fn level(&self, k: usize) -> Option<(usize, usize, usize, &[[f32; 4]])> {
        self.levels
            .get(k)
            .map(|l| (l.width, l.height, l.depth, &l.texels[..]))
    }
}

/// `D3DTEXTUREADDRESS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureAddress {
    Wrap = 1,
    Mirror = 2,
    Clamp = 3,
    Border = 4,
    MirrorOnce = 5,
}

impl TextureAddress {
    pub fn from_name(n: &str) -> Option<TextureAddress> {
        let n = n
            .strip_prefix("D3DTADDRESS_")
            .unwrap_or(n)
            .to_ascii_uppercase();
        Some(match n.as_str() {
            "WRAP" => TextureAddress::Wrap,
            "MIRROR" => TextureAddress::Mirror,
            "CLAMP" => TextureAddress::Clamp,
            "BORDER" => TextureAddress::Border,
            "MIRRORONCE" => TextureAddress::MirrorOnce,
            _ => return None,
        })
    }
}

/// `D3DTEXTUREFILTERTYPE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureFilter {
    None = 0,
    Point = 1,
    Linear = 2,
    Anisotropic = 3,
    PyramidalQuad = 6,
    GaussianQuad = 7,
}

impl TextureFilter {
    pub fn from_name(n: &str) -> Option<TextureFilter> {
        let n = n.strip_prefix("D3DTEXF_").unwrap_or(n).to_ascii_uppercase();
        Some(match n.as_str() {
            "NONE" => TextureFilter::None,
            "POINT" => TextureFilter::Point,
            "LINEAR" => TextureFilter::Linear,
            "ANISOTROPIC" => TextureFilter::Anisotropic,
            "PYRAMIDALQUAD" => TextureFilter::PyramidalQuad,
            "GAUSSIANQUAD" => TextureFilter::GaussianQuad,
            _ => return None,
        })
    }
}

/// The sampler states of one vertex sampler (`D3DSAMPLERSTATETYPE`), with D3D9's defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerState {
    pub address_u: TextureAddress,
    pub address_v: TextureAddress,
    pub address_w: TextureAddress,
    /// A D3DCOLOR (A8R8G8B8).
    pub border_color: u32,
    pub mag_filter: TextureFilter,
    pub min_filter: TextureFilter,
    pub mip_filter: TextureFilter,
    pub mip_lod_bias: f32,
    pub max_mip_level: u32,
    pub max_anisotropy: u32,
    pub element_index: u32,
    /// Ignored by vertex sampling.
    pub dmap_offset: u32,
}

impl Default for SamplerState {
    fn default() -> Self {
        SamplerState {
            address_u: TextureAddress::Wrap,
            address_v: TextureAddress::Wrap,
            address_w: TextureAddress::Wrap,
            border_color: 0,
            mag_filter: TextureFilter::Point,
            min_filter: TextureFilter::Point,
            mip_filter: TextureFilter::None,
            mip_lod_bias: 0.0,
            max_mip_level: 0,
            max_anisotropy: 1,
            element_index: 0,
            dmap_offset: 0,
        }
    }
}

impl SamplerState {
    /// Check the states a vertex sampler accepts: MAG/MIN POINT or LINEAR (vertex stages
    /// never report anisotropic or the quad filters), MIP NONE, POINT or LINEAR.
    pub fn check(&self) -> Result<(), String> {
        use TextureFilter::*;
        for (what, f) in [
            ("MAGFILTER", self.mag_filter),
            ("MINFILTER", self.min_filter),
        ] {
            if !matches!(f, Point | Linear) {
                return Err(format!(
                    "{what} {f:?} is not supported by vertex samplers (VertexTextureFilterCaps has point and linear)"
                ));
            }
        }
        if !matches!(self.mip_filter, None | Point | Linear) {
            return Err(format!(
                "MIPFILTER {:?} is not supported by vertex samplers",
                self.mip_filter
            ));
        }
        Ok(())
    }

    fn border(&self) -> [f32; 4] {
        let c = self.border_color;
        let ch = |s: u32| (c >> s & 0xFF) as f32 / 255.0;
        [ch(16), ch(8), ch(0), ch(24)]
    }
}

/// The textures and states `texldl` sees in one draw.
pub(crate) struct Sampling<'a> {
    pub textures: [Option<&'a Arc<Texture>>; 4],
    pub states: [SamplerState; 4],
}

/// Map an integer texel coordinate into `0..n`; `None` = the border colour.
#[inline]
fn address(mode: TextureAddress, i: i64, n: usize) -> Option<usize> {
    let n = n as i64;
    Some(match mode {
        TextureAddress::Wrap => i.rem_euclid(n),
        TextureAddress::Mirror => {
            let m = i.rem_euclid(2 * n);
            if m >= n { 2 * n - 1 - m } else { m }
        }
        TextureAddress::Clamp => i.clamp(0, n - 1),
        TextureAddress::Border => {
            if (0..n).contains(&i) {
                i
            } else {
                return None;
            }
        }
        TextureAddress::MirrorOnce => (if i < 0 { -1 - i } else { i }).clamp(0, n - 1),
    } as usize)
}

/// Floor of `x` as an index, saturating far outside any texture.
#[inline]
fn texel_floor(x: f32) -> i64 {
    let f = x.floor();
    if f.is_nan() {
        0
    } else {
        f.clamp(-(1i64 << 40) as f32, (1i64 << 40) as f32) as i64
    }
}

fn lerp(a: [f32; 4], b: [f32; 4], t: f32) -> [f32; 4] {
    std::array::from_fn(|c| a[c] * (1.0 - t) + b[c] * t)
}

impl Sampling<'_> {
    /// Sample one batch: `coords` rows are the texldl source (x, y, z, w = LOD).
    pub fn sample_batch(&self, sampler: u8, coords: &[Row; 4]) -> [Row; 4] {
        let mut out = [[0.0; LANES]; 4];
        for l in 0..LANES {
            let v = self.sample_lane(
                sampler,
                [coords[0][l], coords[1][l], coords[2][l], coords[3][l]],
            );
            for c in 0..4 {
                out[c][l] = v[c];
            }
        }
        out
    }

    /// One lane's lookup; an unbound sampler reads (0, 0, 0, 1).
    #[inline]
    pub fn sample_lane(&self, sampler: u8, coords: [f32; 4]) -> [f32; 4] {
        match self.textures.get(sampler as usize) {
            Some(Some(tex)) => sample(tex, &self.states[sampler as usize], coords),
            _ => [0.0, 0.0, 0.0, 1.0],
        }
    }
}

/// Test builds: a coordinate with these bits makes the sampler panic (a stand-in defect).
#[cfg(test)]
pub(crate) const PANIC_BITS: u32 = 0x7FC0_0BAD;

/// One `texldl` lookup.
pub fn sample(tex: &Texture, st: &SamplerState, src: [f32; 4]) -> [f32; 4] {
    // Test hook: a coordinate with these bits stands for a defect in the sampler.
    #[cfg(test)]
    if src[0].to_bits() == PANIC_BITS {
        panic!("test: a panic inside the sampler");
    }
    let last = tex.levels.len() - 1;
    let lod = src[3] + st.mip_lod_bias;
    // A NaN LOD magnifies (it is not > 0).
    let magnify = lod.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater);
    let filter = if magnify {
        st.mag_filter
    } else {
        st.min_filter
    };
    // Coordinates within a face for cube maps.
    let (face, uvw) = match tex.kind {
        TextureKind::Cube => cube_face(src[0], src[1], src[2]),
        _ => (0, [src[0], src[1], src[2]]),
    };
    let at = |level: usize| fetch(tex, st, level, face, uvw, filter);
    if st.mip_filter == TextureFilter::None {
        return at(0);
    }
    let base = (st.max_mip_level as usize).min(last);
    if magnify {
        return at(base);
    }
    let lod = lod.max(base as f32).min(last as f32);
    match st.mip_filter {
        TextureFilter::Point => at(((lod + 0.5).ceil() as usize).saturating_sub(1).min(last)),
        _ => {
            let (l0, l1) = (lod.floor() as usize, (lod.ceil() as usize).min(last));
            let t = lod - lod.floor();
            if l0 == l1 || t == 0.0 {
                at(l0)
            } else {
                lerp(at(l0), at(l1), t)
            }
        }
    }
}

/// Major-axis face selection: (face, (u, v) in [0, 1]).
fn cube_face(x: f32, y: f32, z: f32) -> (usize, [f32; 3]) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    let ma = if ma == 0.0 { 1.0 } else { ma };
    (face, [(sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5, 0.0])
}

/// Sample one level with POINT or LINEAR filtering.
fn fetch(
    tex: &Texture,
    st: &SamplerState,
    level: usize,
    face: usize,
    uvw: [f32; 3],
    filter: TextureFilter,
) -> [f32; 4] {
    let lv = &tex.levels[level];
    let dims = [lv.width, lv.height, lv.depth];
    let cube = tex.kind == TextureKind::Cube;
    let modes = if cube {
        [TextureAddress::Clamp; 3]
    } else {
        [st.address_u, st.address_v, st.address_w]
    };
    let axes = if tex.kind == TextureKind::Volume {
        3
    } else {
        2
    };
    let face_base = face * lv.width * lv.height;
    let texel = |idx: [i64; 3]| -> [f32; 4] {
        let mut p = [0usize; 3];
        for a in 0..axes {
            match address(modes[a], idx[a], dims[a]) {
                Some(i) => p[a] = i,
                None => return st.border(),
            }
        }
        lv.texels[face_base + (p[2] * lv.height + p[1]) * lv.width + p[0]]
    };
    if filter == TextureFilter::Linear {
        let mut base = [0i64; 3];
        let mut frac = [0f32; 3];
        for a in 0..axes {
            let x = uvw[a] * dims[a] as f32 - 0.5;
            base[a] = texel_floor(x);
            frac[a] = x - x.floor();
            if !frac[a].is_finite() {
                frac[a] = 0.0;
            }
        }
        let corners = 1 << axes;
        let mut acc = [0.0f32; 4];
        for k in 0..corners {
            let mut idx = base;
            let mut w = 1.0f32;
            for a in 0..axes {
                let hi = k >> a & 1 == 1;
                if hi {
                    idx[a] += 1;
                }
                w *= if hi { frac[a] } else { 1.0 - frac[a] };
            }
            let t = texel(idx);
            for c in 0..4 {
                acc[c] += w * t[c];
            }
        }
        acc
    } else {
        let mut idx = [0i64; 3];
        for a in 0..axes {
            idx[a] = texel_floor(uvw[a] * dims[a] as f32);
        }
        texel(idx)
    }
}
