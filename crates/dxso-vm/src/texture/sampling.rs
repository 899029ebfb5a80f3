//! Sampler states and lookups: address modes, POINT/LINEAR filtering, mip selection, cube
//! faces, sRGB reads.
//!
//! dxso's choices for the pixel samplers' states (documented, tested):
//! - ANISOTROPIC (MINFILTER/MAGFILTER) samples as LINEAR: D3D9 leaves anisotropic filtering
//!   to the hardware and the reference rasterizer's is not specified. MAXANISOTROPY is
//!   therefore accepted with any value and changes nothing.
//! - SRGBTEXTURE converts the R, G and B channels (never alpha) of the formats of
//!   [`Format::srgb_read`](super::Format::srgb_read) from sRGB to linear with the IEC 61966-2-1 curve
//!   ([`srgb_to_linear`]), texel by texel BEFORE filtering — what Microsoft's "Gamma
//!   (Direct3D 9)" calls ideal (D3D9 also allows after). The border colour is not converted
//!   (the same page: every other colour is linear). Other formats ignore the state.
//! - BORDER: a texel index outside the level reads BORDERCOLOR (a D3DCOLOR), so LINEAR blends
//!   it with the edge texels. MIRRORONCE: `|u|` then CLAMP (Microsoft's definition), applied
//!   to texel indices as MIRROR is (index `-1 - i` for `i < 0`), which is the same texel and
//!   weights as filtering at `|u|`.
//! - ADDRESSW addresses the third axis of volume textures (2D and cube lookups ignore it).

use super::{Texture, TextureKind};
use crate::LANES;
use crate::math::Row;
use std::sync::Arc;

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
pub const PTFILTERCAPS_MINFANISOTROPIC: u32 = 0x0000_0400;
pub const PTFILTERCAPS_MAGFANISOTROPIC: u32 = 0x0400_0000;
/// `D3DCAPS9.TextureFilterCaps` of this engine (pixel samplers): the vertex caps plus
/// anisotropic min and mag (sampled as LINEAR).
pub const PIXEL_TEXTURE_FILTER_CAPS: u32 =
    VERTEX_TEXTURE_FILTER_CAPS | PTFILTERCAPS_MINFANISOTROPIC | PTFILTERCAPS_MAGFANISOTROPIC;
/// `D3DCAPS9.MaxAnisotropy` of this engine.
pub const MAX_ANISOTROPY: u32 = 16;

/// `D3DTEXTUREADDRESS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureAddress {
    /// Coordinates repeat (the fraction is used).
    Wrap = 1,
    /// Coordinates repeat, every other copy mirrored.
    Mirror = 2,
    /// Coordinates clamp to [0, 1].
    Clamp = 3,
    /// Coordinates outside [0, 1] read the border colour.
    Border = 4,
    /// Mirrored once about 0, then clamped.
    MirrorOnce = 5,
}

impl TextureAddress {
    /// The mode named `n` (`D3DTADDRESS_` left out, any case).
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
    /// No filtering (as a mip filter: no mipmapping).
    None = 0,
    /// The nearest texel.
    Point = 1,
    /// Bilinear (or, as a mip filter, between two levels).
    Linear = 2,
    /// Anisotropic (sampled as linear).
    Anisotropic = 3,
    /// A 4-sample tent filter (named; sampling refuses it).
    PyramidalQuad = 6,
    /// A 4-sample Gaussian filter (named; sampling refuses it).
    GaussianQuad = 7,
}

impl TextureFilter {
    /// The filter named `n` (`D3DTEXF_` left out, any case).
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

/// The sampler states of one sampler (`D3DSAMPLERSTATETYPE`), with D3D9's defaults; vertex
/// samplers take what [`SamplerState::check`] accepts, pixel samplers what
/// [`SamplerState::check_pixel`] does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerState {
    /// ADDRESSU: the u coordinate's addressing.
    pub address_u: TextureAddress,
    /// ADDRESSV: the v coordinate's addressing.
    pub address_v: TextureAddress,
    /// ADDRESSW: the w coordinate's addressing (volume textures).
    pub address_w: TextureAddress,
    /// A D3DCOLOR (A8R8G8B8).
    pub border_color: u32,
    /// MAGFILTER: filtering when a texel covers more than a pixel.
    pub mag_filter: TextureFilter,
    /// MINFILTER: filtering when a texel covers less than a pixel.
    pub min_filter: TextureFilter,
    /// MIPFILTER: filtering between mip levels.
    pub mip_filter: TextureFilter,
    /// MIPMAPLODBIAS: added to the level of detail.
    pub mip_lod_bias: f32,
    /// MAXMIPLEVEL: the largest (most detailed) level used.
    pub max_mip_level: u32,
    /// MAXANISOTROPY: accepted, without effect (ANISOTROPIC samples as LINEAR).
    pub max_anisotropy: u32,
    /// SRGBTEXTURE: read the colour channels of [`Format::srgb_read`](super::Format::srgb_read) formats as sRGB
    /// (pixel samplers only).
    pub srgb_texture: bool,
    /// ELEMENTINDEX: the element of a multi-element texture.
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
            srgb_texture: false,
            element_index: 0,
            dmap_offset: 0,
        }
    }
}

impl SamplerState {
    /// Check the states a vertex sampler accepts: MAG/MIN POINT or LINEAR (vertex stages
    /// never report anisotropic or the quad filters), MIP NONE, POINT or LINEAR, and no
    /// SRGBTEXTURE (none of the vertex formats is sRGB-read in dxso).
    pub fn check(&self) -> Result<(), crate::UnsupportedFilter> {
        use crate::UnsupportedFilter as U;
        if self.srgb_texture {
            return Err(U::VertexSrgb);
        }
        use TextureFilter::*;
        for (what, f) in [
            ("MAGFILTER", self.mag_filter),
            ("MINFILTER", self.min_filter),
        ] {
            if !matches!(f, Point | Linear) {
                return Err(U::Vertex {
                    state: what,
                    filter: f,
                });
            }
        }
        if !matches!(self.mip_filter, None | Point | Linear) {
            return Err(U::VertexMip(self.mip_filter));
        }
        Ok(())
    }

    /// Check the states a pixel sampler accepts ([`PIXEL_TEXTURE_FILTER_CAPS`]): MAG/MIN
    /// POINT, LINEAR or ANISOTROPIC, MIP NONE, POINT or LINEAR; every address mode,
    /// BORDERCOLOR, MAXANISOTROPY and SRGBTEXTURE value.
    pub fn check_pixel(&self) -> Result<(), crate::UnsupportedFilter> {
        use crate::UnsupportedFilter as U;
        use TextureFilter::*;
        for (what, f) in [
            ("MAGFILTER", self.mag_filter),
            ("MINFILTER", self.min_filter),
        ] {
            if !matches!(f, Point | Linear | Anisotropic) {
                return Err(U::Pixel {
                    state: what,
                    filter: f,
                });
            }
        }
        if !matches!(self.mip_filter, None | Point | Linear) {
            return Err(U::PixelMip(self.mip_filter));
        }
        Ok(())
    }

    pub(super) fn border(&self) -> [f32; 4] {
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

/// Map an integer texel coordinate into `0..n`; `None` = the border colour. Always inlined:
/// LLVM stopped inlining it into the LINEAR loop once `fetch` had its sRGB twin (callgrind: +25%
/// instructions a lookup).
#[inline(always)]
pub(super) fn address(mode: TextureAddress, i: i64, n: usize) -> Option<usize> {
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
#[inline(always)]
pub(super) fn texel_floor(x: f32) -> i64 {
    let f = x.floor();
    if f.is_nan() {
        0
    } else {
        f.clamp(-(1i64 << 40) as f32, (1i64 << 40) as f32) as i64
    }
}

pub(super) fn lerp(a: [f32; 4], b: [f32; 4], t: f32) -> [f32; 4] {
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

/// sRGB to linear (IEC 61966-2-1): `c / 12.92` up to 0.04045, else
/// `((c + 0.055) / 1.055)^2.4`, in f32.
#[inline]
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// One lookup (`texldl`, or a pixel shader's once it has its LOD), `src` = (u, v, w, LOD).
pub fn sample(tex: &Texture, st: &SamplerState, src: [f32; 4]) -> [f32; 4] {
    // Test hook: a coordinate with these bits stands for a defect in the sampler.
    #[cfg(test)]
    if src[0].to_bits() == PANIC_BITS {
        panic!("test: a panic inside the sampler");
    }
    // Two copies of the lookup: the sRGB one never slows the common one down.
    if st.srgb_texture && tex.format.srgb_read() {
        lookup::<true>(tex, st, src)
    } else {
        lookup::<false>(tex, st, src)
    }
}

/// [`sample`] for one `SRGB` setting.
#[inline]
fn lookup<const SRGB: bool>(tex: &Texture, st: &SamplerState, src: [f32; 4]) -> [f32; 4] {
    let pick = select(tex.levels.len(), st, src[3]);
    // Coordinates within a face for cube maps.
    let (face, uvw) = match tex.kind {
        TextureKind::Cube => cube_face(src[0], src[1], src[2]),
        _ => (0, [src[0], src[1], src[2]]),
    };
    pick.blend(|level| fetch::<SRGB>(tex, st, level, face, uvw, pick.filter))
}

/// The levels and filter one lookup reads: [`select`]'s answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Pick {
    /// POINT or LINEAR (ANISOTROPIC already made LINEAR).
    pub(super) filter: TextureFilter,
    /// The level read.
    pub(super) level: usize,
    /// With MIPFILTER LINEAR between two levels: the second level and its weight.
    pub(super) next: Option<(usize, f32)>,
}

impl Pick {
    /// The lookup's texel from `at(level)`, the levels blended by the weight when there are two.
    #[inline(always)]
    pub(super) fn blend(&self, mut at: impl FnMut(usize) -> [f32; 4]) -> [f32; 4] {
        match self.next {
            None => at(self.level),
            Some((l1, t)) => lerp(at(self.level), at(l1), t),
        }
    }
}

/// Mip selection (C16) for a texture of `levels` levels: `lod` is the lookup's level of
/// detail before MIPMAPLODBIAS (see the module docs of `texture`).
#[inline]
pub(super) fn select(levels: usize, st: &SamplerState, lod: f32) -> Pick {
    let last = levels - 1;
    let lod = lod + st.mip_lod_bias;
    // A NaN LOD magnifies (it is not > 0).
    let magnify = lod.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater);
    let filter = match if magnify {
        st.mag_filter
    } else {
        st.min_filter
    } {
        TextureFilter::Anisotropic => TextureFilter::Linear,
        f => f,
    };
    let one = |level| Pick {
        filter,
        level,
        next: None,
    };
    if st.mip_filter == TextureFilter::None {
        return one(0);
    }
    let base = (st.max_mip_level as usize).min(last);
    if magnify {
        return one(base);
    }
    let lod = lod.max(base as f32).min(last as f32);
    match st.mip_filter {
        TextureFilter::Point => one(((lod + 0.5).ceil() as usize).saturating_sub(1).min(last)),
        _ => {
            let (l0, l1) = (lod.floor() as usize, (lod.ceil() as usize).min(last));
            let t = lod - lod.floor();
            if l0 == l1 || t == 0.0 {
                one(l0)
            } else {
                Pick {
                    filter,
                    level: l0,
                    next: Some((l1, t)),
                }
            }
        }
    }
}

/// Whether a lookup's texel can depend on its level of detail: when MAGFILTER and
/// MINFILTER differ (ANISOTROPIC counting as LINEAR), or when a mip filter has more than
/// one level to choose from. Otherwise [`select`] picks level 0 and one filter whatever the
/// LOD (NaN included), and a pixel shader need not compute it.
pub(crate) fn lod_matters(tex: &Texture, st: &SamplerState) -> bool {
    let linear = |f| match f {
        TextureFilter::Anisotropic => TextureFilter::Linear,
        f => f,
    };
    linear(st.mag_filter) != linear(st.min_filter)
        || (st.mip_filter != TextureFilter::None && tex.levels.len() > 1)
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

/// Sample one level with POINT or LINEAR filtering; `SRGB` linearizes each texel's colour
/// channels before filtering.
fn fetch<const SRGB: bool>(
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
        let t = lv.texels[face_base + (p[2] * lv.height + p[1]) * lv.width + p[0]];
        if SRGB {
            [
                srgb_to_linear(t[0]),
                srgb_to_linear(t[1]),
                srgb_to_linear(t[2]),
                t[3],
            ]
        } else {
            t
        }
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
