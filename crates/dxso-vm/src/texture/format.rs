//! Texture formats: names, how texels are stored, decoding to (R, G, B, A) floats, and
//! [`encode_level`], which turns a scene's `levels` numbers into a level's bytes.
//!
//! What each format reads as (missing channels as D3D9 reads them):
//!
//! | format | R, G, B, A |
//! |---|---|
//! | float formats | R, G, B, A; a missing channel reads 1 |
//! | A8R8G8B8, A8B8G8R8, A2R10G10B10, ... | R, G, B, A |
//! | X8R8G8B8, R5G6B5, X1R5G5B5, X4R4G4B4, R3G3B2 | R, G, B, 1 |
//! | G16R16 | R, G, 1, 1 |
//! | A8R3G3B2 | R, G, B, A |
//! | L8, L16 / A8L8, A4L4 | L, L, L, 1 / L, L, L, A |
//! | A8 | 0, 0, 0, A |
//! | V8U8, V16U16 | U, V, 1, 1 |
//! | L6V5U5, X8L8V8U8 | U, V, L, 1 |
//! | Q8W8V8U8, Q16W16V16U16 | U, V, W, Q |
//! | A2W10V10U10 | U, V, W, A |
//! | DXT1 .. DXT5 | R, G, B, A (see [`super::blocks`]) |
//!
//! The bump-map rows follow Microsoft's "Recommended DirectX 9.0 driver support" (unused
//! channels read 1; the reference rasterizer reads V16U16's B and A as 1, and L6V5U5 puts L in
//! B); V8U8 reads as V16U16, X8L8V8U8 as L6V5U5.
//!
//! Signed channels (U, V, W, Q) are two's complement and normalized as Direct3D's SNORM rule
//! has it ("Data Conversion Rules"; D3D10's legacy-format table maps V8U8, Q8W8V8U8 and V16U16
//! to the SNORM formats): `max(c / (2^(n-1) - 1), -1)`, so the most negative value and the one
//! above it both read -1.0 (8 bits: -128 and -127 are -1.0, 127 is 1.0). Unsigned channels
//! are `c / (2^n - 1)`.

use super::{TextureError, TextureKind, blocks};
use half::f16;

/// The `D3DFORMAT`s of textures: [`Format::VERTEX`] those vertex shaders sample too, the rest
/// ([`Format::pixel_only`]) only pixel shaders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `D3DFMT_A32B32G32R32F`: four 32-bit floats, RGBA.
    A32B32G32R32F,
    /// `D3DFMT_G32R32F`: two 32-bit floats, RG.
    G32R32F,
    /// `D3DFMT_R32F`: one 32-bit float, R.
    R32F,
    /// `D3DFMT_A16B16G16R16F`: four 16-bit floats, RGBA.
    A16B16G16R16F,
    /// `D3DFMT_G16R16F`: two 16-bit floats, RG.
    G16R16F,
    /// `D3DFMT_R16F`: one 16-bit float, R.
    R16F,
    /// `D3DFMT_A8R8G8B8`: 8-bit unsigned ARGB.
    A8R8G8B8,
    /// `D3DFMT_X8R8G8B8`: 8-bit unsigned RGB, alpha 1.
    X8R8G8B8,
    /// `D3DFMT_A8B8G8R8`: 8-bit unsigned ABGR.
    A8B8G8R8,
    /// `D3DFMT_A2R10G10B10`: 10-bit RGB, 2-bit alpha, unsigned.
    A2R10G10B10,
    /// `D3DFMT_A2B10G10R10`: 10-bit BGR, 2-bit alpha, unsigned.
    A2B10G10R10,
    /// `D3DFMT_G16R16`: 16-bit unsigned RG.
    G16R16,
    /// `D3DFMT_A16B16G16R16`: 16-bit unsigned RGBA.
    A16B16G16R16,
    /// `D3DFMT_R5G6B5`: 5-6-5-bit unsigned RGB.
    R5G6B5,
    /// `D3DFMT_A1R5G5B5`: 5-bit unsigned RGB, 1-bit alpha.
    A1R5G5B5,
    /// `D3DFMT_A4R4G4B4`: 4-bit unsigned ARGB.
    A4R4G4B4,
    /// `D3DFMT_L8`: 8-bit luminance.
    L8,
    /// `D3DFMT_A8L8`: 8-bit luminance and alpha.
    A8L8,
    /// `D3DFMT_A8`: 8-bit alpha (colour reads 0).
    A8,
    /// `D3DFMT_L16`: 16-bit luminance.
    L16,
    // Pixel-only from here.
    /// `D3DFMT_V8U8`: two signed 8-bit channels (bump maps).
    V8U8,
    /// `D3DFMT_L6V5U5`: signed 5-bit U and V, unsigned 6-bit luminance.
    L6V5U5,
    /// `D3DFMT_X8L8V8U8`: signed 8-bit U and V, unsigned 8-bit luminance.
    X8L8V8U8,
    /// `D3DFMT_Q8W8V8U8`: four signed 8-bit channels.
    Q8W8V8U8,
    /// `D3DFMT_V16U16`: two signed 16-bit channels.
    V16U16,
    /// `D3DFMT_A2W10V10U10`: signed 10-bit U, V and W, unsigned 2-bit alpha.
    A2W10V10U10,
    /// `D3DFMT_Q16W16V16U16`: four signed 16-bit channels.
    Q16W16V16U16,
    /// `D3DFMT_DXT1`: BC1 blocks (8 bytes per 4x4 texels).
    DXT1,
    /// `D3DFMT_DXT2`: BC2 blocks, premultiplied alpha.
    DXT2,
    /// `D3DFMT_DXT3`: BC2 blocks (explicit 4-bit alpha).
    DXT3,
    /// `D3DFMT_DXT4`: BC3 blocks, premultiplied alpha.
    DXT4,
    /// `D3DFMT_DXT5`: BC3 blocks (interpolated alpha).
    DXT5,
    /// `D3DFMT_X1R5G5B5`: 5-bit unsigned RGB, alpha 1.
    X1R5G5B5,
    /// `D3DFMT_X4R4G4B4`: 4-bit unsigned RGB, alpha 1.
    X4R4G4B4,
    /// `D3DFMT_R3G3B2`: 3-3-2-bit unsigned RGB.
    R3G3B2,
    /// `D3DFMT_A8R3G3B2`: 3-3-2-bit unsigned RGB, 8-bit alpha.
    A8R3G3B2,
    /// `D3DFMT_A4L4`: 4-bit luminance and alpha.
    A4L4,
}

/// How a format's texels are stored, which is also how a scene's `levels` numbers are read
/// ([`encode_level`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// `n` floats of `bits` (32 or 16) per texel, R first.
    Float {
        /// Bits per float.
        bits: u8,
        /// Floats per texel.
        n: u8,
    },
    /// `n` unsigned integers of `bits` (8 or 16) per texel, in memory order.
    Unorm {
        /// Bits per integer.
        bits: u8,
        /// Integers per texel.
        n: u8,
    },
    /// `n` integers of `bits` (8 or 16) per texel, in memory order (U first); the signed
    /// channels (U, V, W, Q) are two's complement, X8L8V8U8's L and X unsigned.
    Signed {
        /// Bits per integer.
        bits: u8,
        /// Integers per texel.
        n: u8,
    },
    /// One packed little-endian integer of `bytes` (1, 2 or 4) per texel.
    Packed {
        /// Bytes per texel.
        bytes: u8,
    },
    /// 4x4 blocks of `bytes` (8 or 16) each (DXTn); a level is `ceil(w/4) x ceil(h/4)` blocks
    /// for each slice or face.
    Blocks {
        /// Bytes per block.
        bytes: u8,
    },
}

impl Format {
    /// Every format, in declaration order.
    pub const ALL: [Format; 37] = [
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
        Format::V8U8,
        Format::L6V5U5,
        Format::X8L8V8U8,
        Format::Q8W8V8U8,
        Format::V16U16,
        Format::A2W10V10U10,
        Format::Q16W16V16U16,
        Format::DXT1,
        Format::DXT2,
        Format::DXT3,
        Format::DXT4,
        Format::DXT5,
        Format::X1R5G5B5,
        Format::X4R4G4B4,
        Format::R3G3B2,
        Format::A8R3G3B2,
        Format::A4L4,
    ];

    /// The formats vertex textures may have (`CheckDeviceFormat` with
    /// `D3DUSAGE_QUERY_VERTEXTEXTURE` succeeds for them): the first twenty of [`Format::ALL`].
    pub const VERTEX: [Format; 20] = {
        let mut v = [Format::R32F; 20];
        let mut i = 0;
        while i < 20 {
            v[i] = Format::ALL[i];
            i += 1;
        }
        v
    };

    /// Whether only pixel shaders sample this format: the signed (bump-map) formats, DXT1 ..
    /// DXT5 and the small packed formats. Vertex textures refuse them
    /// ([`check_vertex_texture_format`], `Device::set_texture`).
    pub fn pixel_only(self) -> bool {
        !Format::VERTEX.contains(&self)
    }

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
            V8U8 => "V8U8",
            L6V5U5 => "L6V5U5",
            X8L8V8U8 => "X8L8V8U8",
            Q8W8V8U8 => "Q8W8V8U8",
            V16U16 => "V16U16",
            A2W10V10U10 => "A2W10V10U10",
            Q16W16V16U16 => "Q16W16V16U16",
            DXT1 => "DXT1",
            DXT2 => "DXT2",
            DXT3 => "DXT3",
            DXT4 => "DXT4",
            DXT5 => "DXT5",
            X1R5G5B5 => "X1R5G5B5",
            X4R4G4B4 => "X4R4G4B4",
            R3G3B2 => "R3G3B2",
            A8R3G3B2 => "A8R3G3B2",
            A4L4 => "A4L4",
        }
    }

    /// Any format by name (with or without `D3DFMT_`, any case).
    pub fn from_name(name: &str) -> Option<Format> {
        let n = name.strip_prefix("D3DFMT_").unwrap_or(name);
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(n))
    }

    /// How the format's texels are stored.
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
            A2R10G10B10 | A2B10G10R10 | A2W10V10U10 => Storage::Packed { bytes: 4 },
            R5G6B5 | A1R5G5B5 | A4R4G4B4 | X1R5G5B5 | X4R4G4B4 | A8R3G3B2 | L6V5U5 => {
                Storage::Packed { bytes: 2 }
            }
            R3G3B2 | A4L4 => Storage::Packed { bytes: 1 },
            V8U8 => Storage::Signed { bits: 8, n: 2 },
            X8L8V8U8 | Q8W8V8U8 => Storage::Signed { bits: 8, n: 4 },
            V16U16 => Storage::Signed { bits: 16, n: 2 },
            Q16W16V16U16 => Storage::Signed { bits: 16, n: 4 },
            DXT1 => Storage::Blocks { bytes: 8 },
            DXT2 | DXT3 | DXT4 | DXT5 => Storage::Blocks { bytes: 16 },
        }
    }

    /// Bytes per texel; for the block formats (DXTn), bytes per 4x4 block.
    pub fn texel_bytes(self) -> usize {
        match self.storage() {
            Storage::Float { bits, n }
            | Storage::Unorm { bits, n }
            | Storage::Signed { bits, n } => bits as usize / 8 * n as usize,
            Storage::Packed { bytes } | Storage::Blocks { bytes } => bytes as usize,
        }
    }

    /// Whether the format is stored in 4x4 blocks (DXT1 .. DXT5).
    pub fn is_block(self) -> bool {
        matches!(self.storage(), Storage::Blocks { .. })
    }

    /// The bytes of one `width` x `height` x `depth` surface (a level of a 2D or volume
    /// texture, one face of a cube level): block formats cover the size rounded up to whole
    /// 4x4 blocks in each slice. The caller keeps the size within [`super::MAX_TEXTURE_SIZE`]
    /// (then nothing overflows).
    pub fn surface_bytes(self, width: usize, height: usize, depth: usize) -> usize {
        if self.is_block() {
            width.div_ceil(4) * height.div_ceil(4) * depth * self.texel_bytes()
        } else {
            width * height * depth * self.texel_bytes()
        }
    }

    /// Whether `SRGBTEXTURE` converts this format's colour channels (D3D9's
    /// `D3DUSAGE_QUERY_SRGBREAD`): dxso's choice is every format with unsigned colour or
    /// luminance channels of at most 8 bits (the 8-bit RGB formats, the packed 16- and 8-bit
    /// RGB formats, L8, A8L8, A4L4 and DXT1 .. DXT5). The others (float, 10- and 16-bit,
    /// signed, A8) ignore the state, as Microsoft's "Gamma (Direct3D 9)" says of formats
    /// without `SRGBREAD`.
    pub fn srgb_read(self) -> bool {
        use Format::*;
        matches!(
            self,
            A8R8G8B8
                | X8R8G8B8
                | A8B8G8R8
                | R5G6B5
                | A1R5G5B5
                | A4R4G4B4
                | X1R5G5B5
                | X4R4G4B4
                | R3G3B2
                | A8R3G3B2
                | L8
                | A8L8
                | A4L4
                | DXT1
                | DXT2
                | DXT3
                | DXT4
                | DXT5
        )
    }

    /// One texel as (R, G, B, A), with D3D9's values for the channels the format lacks (the
    /// table in this module's docs). `b` holds at least [`Format::texel_bytes`] bytes; for a
    /// block format it is a whole block and the block's first texel (top left) is returned.
    pub fn decode(self, b: &[u8]) -> [f32; 4] {
        use Format::*;
        let f = |i: usize| f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
        let h = |i: usize| f16::from_bits(u16::from_le_bytes([b[2 * i], b[2 * i + 1]])).to_f32();
        let u8n = |i: usize| b[i] as f32 / 255.0;
        let u16n = |i: usize| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]) as f32 / 65535.0;
        let s8n = |i: usize| snorm(b[i] as i8 as i32, 8);
        let s16n = |i: usize| snorm(i16::from_le_bytes([b[2 * i], b[2 * i + 1]]) as i32, 16);
        let byte = || b[0] as u32;
        let word = || u16::from_le_bytes([b[0], b[1]]) as u32;
        let dword = || u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
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
            X1R5G5B5 => {
                let w = word();
                [bits(w, 10, 5), bits(w, 5, 5), bits(w, 0, 5), 1.0]
            }
            A4R4G4B4 => {
                let w = word();
                [bits(w, 8, 4), bits(w, 4, 4), bits(w, 0, 4), bits(w, 12, 4)]
            }
            X4R4G4B4 => {
                let w = word();
                [bits(w, 8, 4), bits(w, 4, 4), bits(w, 0, 4), 1.0]
            }
            R3G3B2 => {
                let c = byte();
                [bits(c, 5, 3), bits(c, 2, 3), bits(c, 0, 2), 1.0]
            }
            A8R3G3B2 => {
                let w = word();
                [bits(w, 5, 3), bits(w, 2, 3), bits(w, 0, 2), bits(w, 8, 8)]
            }
            L8 => [u8n(0), u8n(0), u8n(0), 1.0],
            A8L8 => [u8n(0), u8n(0), u8n(0), u8n(1)],
            A4L4 => {
                let (l, a) = (bits(byte(), 0, 4), bits(byte(), 4, 4));
                [l, l, l, a]
            }
            A8 => [0.0, 0.0, 0.0, u8n(0)],
            L16 => [u16n(0), u16n(0), u16n(0), 1.0],
            V8U8 => [s8n(0), s8n(1), 1.0, 1.0],
            L6V5U5 => {
                let w = word();
                [sbits(w, 0, 5), sbits(w, 5, 5), bits(w, 10, 6), 1.0]
            }
            // Stored U, V, L, X.
            X8L8V8U8 => [s8n(0), s8n(1), u8n(2), 1.0],
            Q8W8V8U8 => [s8n(0), s8n(1), s8n(2), s8n(3)],
            V16U16 => [s16n(0), s16n(1), 1.0, 1.0],
            A2W10V10U10 => {
                let d = dword();
                [
                    sbits(d, 0, 10),
                    sbits(d, 10, 10),
                    sbits(d, 20, 10),
                    bits(d, 30, 2),
                ]
            }
            Q16W16V16U16 => [s16n(0), s16n(1), s16n(2), s16n(3)],
            DXT1 | DXT2 | DXT3 | DXT4 | DXT5 => blocks::decode_block(self, b)[0],
        }
    }
}

/// Unsigned `n`-bit field at `shift`, normalized.
#[inline]
fn bits(v: u32, shift: u32, n: u32) -> f32 {
    (v >> shift & ((1 << n) - 1)) as f32 / ((1u32 << n) - 1) as f32
}

/// Signed (two's complement) `n`-bit field at `shift`, normalized ([`snorm`]).
#[inline]
fn sbits(v: u32, shift: u32, n: u32) -> f32 {
    // Move the field to the top and shift back arithmetically to sign-extend it.
    let c = ((v >> shift) << (32 - n)) as i32 >> (32 - n);
    snorm(c, n)
}

/// SNORM: `c / (2^(n-1) - 1)`, the most negative value clamped to -1.0.
#[inline]
pub(super) fn snorm(c: i32, n: u32) -> f32 {
    (c as f32 / ((1i32 << (n - 1)) - 1) as f32).max(-1.0)
}

/// `IDirect3D9::CheckDeviceFormat(..., D3DUSAGE_QUERY_VERTEXTEXTURE, type, format)`: which
/// formats this engine samples in vertex shaders. Every format of [`Format::VERTEX`] is
/// supported, for 2D, cube and volume textures alike; anything else (the pixel-only formats:
/// signed, DXTn, small packed; YUV and unknown names) is not.
pub fn check_vertex_texture_format(name: &str) -> bool {
    Format::from_name(name).is_some_and(|f| !f.pixel_only())
}

/// One level's bytes from a scene's `levels` numbers, as `../shared/CLI.md` has them: each
/// float of a float format as a number (stored as f32 or, for the 16-bit formats, rounded to
/// the nearest f16; any value, out-of-range ones become infinities); each 8- or 16-bit channel
/// as an unsigned integer in memory order (a signed channel in two's complement: V8U8's -1 is
/// 255); the packed formats one unsigned integer a texel; DXTn the blocks' bytes, 0..=255 each.
///
/// `width`, `height` and `depth` are the level's own size (a cube level holds six faces one
/// after another, a volume level its slices). Errors: a size no texture may have, a count
/// other than the level needs, a number that is not an integer in the range the format stores.
pub fn encode_level(
    kind: TextureKind,
    format: Format,
    width: usize,
    height: usize,
    depth: usize,
    numbers: &[f64],
) -> Result<Vec<u8>, TextureError> {
    super::Texture::check_size(kind, width, height, depth, 1)?;
    let faces = if kind == TextureKind::Cube { 6 } else { 1 };
    let storage = format.storage();
    let (per, unit, elem): (usize, &'static str, usize) = match storage {
        Storage::Float { bits, n } => (n as usize, "a texel", bits as usize / 8),
        Storage::Unorm { bits, n } | Storage::Signed { bits, n } => {
            (n as usize, "a texel", bits as usize / 8)
        }
        Storage::Packed { bytes } => (1, "a texel", bytes as usize),
        Storage::Blocks { bytes } => (bytes as usize, "a 4x4 block", 1),
    };
    let units = format.surface_bytes(width, height, depth) * faces / format.texel_bytes();
    let want = units * per;
    if numbers.len() != want {
        return Err(TextureError::LevelCount {
            format: format.name(),
            got: numbers.len(),
            want,
            per,
            unit,
            width,
            height,
            depth,
            faces: if faces == 6 { " x 6 faces" } else { "" },
        });
    }
    let mut out = Vec::with_capacity(want * elem);
    for (index, &x) in numbers.iter().enumerate() {
        match storage {
            Storage::Float { bits: 32, .. } => out.extend((x as f32).to_le_bytes()),
            Storage::Float { .. } => out.extend(f16::from_f32(x as f32).to_bits().to_le_bytes()),
            _ => {
                let max = (1u64 << (8 * elem)) - 1;
                if !(x.fract() == 0.0 && (0.0..=max as f64).contains(&x)) {
                    return Err(TextureError::LevelNumber {
                        format: format.name(),
                        index,
                        value: x.to_string(),
                        expected: expected(storage),
                    });
                }
                out.extend(&(x as u64).to_le_bytes()[..elem]);
            }
        }
    }
    Ok(out)
}

/// What [`encode_level`] takes for an integer format's numbers.
fn expected(storage: Storage) -> &'static str {
    match storage {
        Storage::Unorm { bits: 8, .. } => "an integer 0..=255 (one 8-bit channel)",
        Storage::Unorm { .. } => "an integer 0..=65535 (one 16-bit channel)",
        Storage::Signed { bits: 8, .. } => {
            "an integer 0..=255 (one 8-bit channel, a signed one in two's complement: -1 is 255)"
        }
        Storage::Signed { .. } => {
            "an integer 0..=65535 (one 16-bit channel, a signed one in two's complement: -1 is 65535)"
        }
        Storage::Packed { bytes: 1 } => "an integer 0..=255 (one texel as an 8-bit integer)",
        Storage::Packed { bytes: 2 } => "an integer 0..=65535 (one texel as a 16-bit integer)",
        Storage::Packed { .. } => "an integer 0..=4294967295 (one texel as a 32-bit integer)",
        Storage::Blocks { .. } => "an integer 0..=255 (one byte of a block)",
        Storage::Float { .. } => "a number",
    }
}
