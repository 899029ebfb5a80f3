//! Textures: formats, mip chains, sampler states and the lookups `texldl` (vertex shaders,
//! `../shared/spec/vertex-pipeline.md` §6, `instructions.md` §6) and a pixel pipeline make.
//!
//! - [`format`]: the `D3DFORMAT`s, texel decoding and [`encode_level`]; vertex textures take
//!   [`Format::VERTEX`] only, pixel textures every [`Format`] ([`Format::pixel_only`]);
//! - [`blocks`]: DXT1 .. DXT5;
//! - [`sampling`]: address modes, filters, sampler states (vertex and pixel checks), sRGB;
//! - [`batch`]: the pixel sampler's path for a pass of lanes on a 2D texture (the same bits).
//!
//! Every level is decoded to (R, G, B, A) f32 texels once, when the texture is made; sampling
//! reads those (DXTn included), so no format costs anything per lookup.
//!
//! Conventions (the spec marks them unverified; these are dxso's choices, tested):
//! - texel `i` of a level of size `n` covers `[i/n, (i+1)/n)`; POINT takes `floor(u·n)`, LINEAR
//!   blends the texels around `u·n − 0.5`; address modes apply to texel indices;
//! - luminance formats read `(L, L, L, 1)` / `(L, L, L, A)`; missing channels read 1, except
//!   A8, whose colour channels read 0 (every format: the table in [`format`]);
//! - cube maps select the face by the major axis (ties: x over y over z) and sample inside the
//!   face with CLAMP (D3D9 has no seamless filtering);
//! - LOD (C16): `lod = src.w + MIPMAPLODBIAS`; `lod <= 0` samples with MAGFILTER, else with
//!   MINFILTER. MIPFILTER NONE samples level 0 and ignores MAXMIPLEVEL; otherwise the LOD is
//!   raised to at least MAXMIPLEVEL (itself clamped to the last level) and clamped to the last
//!   level; POINT takes level ⌈lod + 0.5⌉ − 1, LINEAR blends floor and ceil by frac(lod).

mod batch;
mod blocks;
mod format;
mod names;
mod sampling;
#[cfg(test)]
mod tests;

pub(crate) use batch::sample_2d;
pub use format::{Format, Storage, check_vertex_texture_format, encode_level};
pub use names::{FoundValue, SAMPLER_STATES, SamplerStateError, SamplerValue, ValueProblem};
#[cfg(test)]
pub(crate) use sampling::PANIC_BITS;
pub use sampling::{
    MAX_ANISOTROPY, PIXEL_TEXTURE_FILTER_CAPS, SamplerState, TextureAddress, TextureFilter,
    VERTEX_TEXTURE_FILTER_CAPS, sample, srgb_to_linear,
};
pub(crate) use sampling::{Sampling, lod_matters};

/// `D3DRESOURCETYPE` of a texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureKind {
    /// A 2D texture (`dcl_2d`).
    TwoD,
    /// A cube texture: six square faces (`dcl_cube`).
    Cube,
    /// A volume texture: slices of depth (`dcl_volume`).
    Volume,
}

/// One mip level, decoded to (R, G, B, A) floats; cube faces (+X, −X, +Y, −Y, +Z, −Z) or
/// volume slices follow each other.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Level {
    pub(super) width: usize,
    pub(super) height: usize,
    pub(super) depth: usize,
    pub(super) texels: Vec<[f32; 4]>,
}

/// A texture with its mip chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// 2D, cube or volume.
    pub kind: TextureKind,
    /// How its texels were stored before they were decoded.
    pub format: Format,
    pub(super) levels: Vec<Level>,
}

/// The largest width, height or depth a texture may have (`MAX_TEXTURE_SIZE`); larger is
/// [`TextureError::TooLarge`].
pub const MAX_TEXTURE_SIZE: usize = 1 << 15;

/// The most texels a texture may hold, all its levels, faces and slices together
/// (`MAX_TEXTURE_TEXELS`, 2^26: 1 GiB once decoded to four floats a texel); more is
/// [`TextureError::TooLarge`]. Decoders check a file's declared size against it (with
/// [`Texture::check_size`]) before they allocate.
pub const MAX_TEXTURE_TEXELS: usize = 1 << 26;

/// Why a texture could not be made from the data given.
#[derive(Debug, thiserror::Error, PartialEq, Eq, Clone)]
pub enum TextureError {
    /// A width, height or depth of 0 (width, height, depth).
    #[error("a texture needs a size of at least 1x1x1, not {0}x{1}x{2}")]
    Size(usize, usize, usize),
    /// A texture past [`MAX_TEXTURE_SIZE`] or [`MAX_TEXTURE_TEXELS`].
    #[error("a {width}x{height}x{depth} texture is too large: {what} {limit} ({max})")]
    TooLarge {
        /// Its width.
        width: usize,
        /// Its height.
        height: usize,
        /// Its depth.
        depth: usize,
        /// What exceeds the limit ("a dimension exceeds", "its texels exceed").
        what: &'static str,
        /// The limit's name (`MAX_TEXTURE_SIZE`, `MAX_TEXTURE_TEXELS`).
        limit: &'static str,
        /// The limit's value.
        max: usize,
    },
    /// No level data at all.
    #[error("a texture needs at least one level")]
    NoLevels,
    /// A level whose bytes do not match its size and format.
    #[error("level {level}: {got} bytes, {want} expected ({width}x{height}x{depth}{faces})")]
    LevelSize {
        /// The level's index.
        level: usize,
        /// The bytes given.
        got: usize,
        /// The bytes its size and format take.
        want: usize,
        /// The level's width.
        width: usize,
        /// The level's height.
        height: usize,
        /// The level's depth.
        depth: usize,
        /// `" x 6 faces"` for a cube, else empty.
        faces: &'static str,
    },
    /// More levels than the mip chain of the size has (levels, width, height, depth).
    #[error("{0} levels are more than a {1}x{2}x{3} texture has")]
    TooManyLevels(usize, usize, usize, usize),
    /// A cube texture whose width and height differ.
    #[error("a cube texture is square")]
    CubeNotSquare,
    /// A depth other than 1 for a 2D or cube texture (kind, depth).
    #[error("a {0:?} texture cannot have depth {1}")]
    Depth(TextureKind, usize),
    /// A level given as numbers, with a count its size and format do not take.
    #[error(
        "{got} numbers, {want} expected for a {width}x{height}x{depth}{faces} {format} level ({per} for {unit})"
    )]
    LevelCount {
        /// The format's name.
        format: &'static str,
        /// The numbers given.
        got: usize,
        /// The numbers expected.
        want: usize,
        /// Numbers per `unit`.
        per: usize,
        /// "a texel" or "a 4x4 block".
        unit: &'static str,
        /// The level's width.
        width: usize,
        /// The level's height.
        height: usize,
        /// The level's depth.
        depth: usize,
        /// `" x 6 faces"` for a cube, else empty.
        faces: &'static str,
    },
    /// A number of a level given as numbers that the format cannot store.
    #[error("number {index} ({value}): {format} stores {expected}")]
    LevelNumber {
        /// The format's name.
        format: &'static str,
        /// The number's index in the level.
        index: usize,
        /// The number as given.
        value: String,
        /// What the format stores there, in words.
        expected: &'static str,
    },
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
    /// their slices. A DXTn level holds `ceil(w/4) x ceil(h/4)` blocks a slice or face (its
    /// size need not be a multiple of 4; [`Format::surface_bytes`]).
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
        let mut out = Vec::with_capacity(levels.len());
        for (k, bytes) in levels.iter().enumerate() {
            let (w, h, d) = (
                (width >> k).max(1),
                (height >> k).max(1),
                (depth >> k).max(1),
            );
            let want = format.surface_bytes(w, h, d) * faces;
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
                texels: if format.is_block() {
                    blocks::decode_surface(format, bytes, w, h, d * faces)
                } else {
                    let tb = format.texel_bytes();
                    bytes.chunks_exact(tb).map(|t| format.decode(t)).collect()
                },
            });
        }
        Ok(Texture {
            kind,
            format,
            levels: out,
        })
    }

    /// How many mip levels it has.
    pub fn levels(&self) -> usize {
        self.levels.len()
    }

    /// The first level's width, height and depth.
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
