//! Vertex fetch: vertex elements, streams and their frequencies (instancing), a draw's
//! binding of an input register to its element (bounds-checked), and `D3DDECLTYPE`
//! decoding (`../shared/spec/vertex-pipeline.md` §1).

use crate::guard::Buf;
use crate::{LANES, VmError};
use dxso::ir::Usage;
use half::f16;
use std::sync::Arc;

/// `D3DVERTEXELEMENT9`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexElement {
    /// The stream the element is read from.
    pub stream: u16,
    /// Its byte offset within one vertex of the stream.
    pub offset: u16,
    /// How many components of which number type.
    pub ty: DeclType,
    /// `D3DDECLMETHOD`; only DEFAULT (0) is meaningful without a tessellator.
    pub method: u8,
    /// The semantic's usage the shader's `dcl` matches.
    pub usage: Usage,
    /// The semantic's index.
    pub usage_index: u8,
}

/// `SetStreamSourceFreq` settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Frequency {
    /// The default: one element per vertex.
    #[default]
    Vertex,
    /// `D3DSTREAMSOURCE_INDEXEDDATA | n`: geometry, drawn `n` times (stream 0).
    IndexedData(u32),
    /// `D3DSTREAMSOURCE_INSTANCEDATA | d`: one element per `d` instances.
    InstanceData(u32),
    /// A plain divider `m` (software vertex processing, non-indexed): one element per `m`
    /// vertices of the draw.
    Divider(u32),
}

/// `D3DSTREAMSOURCE_INDEXEDDATA` and `D3DSTREAMSOURCE_INSTANCEDATA`.
pub const STREAMSOURCE_INDEXEDDATA: u32 = 1 << 30;
/// The instance-data marker of a stream frequency setting (bits 30-31 = 2).
pub const STREAMSOURCE_INSTANCEDATA: u32 = 2 << 30;

impl Frequency {
    /// Decode a raw `SetStreamSourceFreq` setting.
    pub fn from_setting(setting: u32) -> Result<Frequency, VmError> {
        let n = setting & 0x3FFF_FFFF;
        match setting >> 30 {
            _ if n == 0 => Err(VmError::BadFrequency(setting)),
            0 if n == 1 => Ok(Frequency::Vertex),
            0 => Ok(Frequency::Divider(n)),
            1 => Ok(Frequency::IndexedData(n)),
            2 => Ok(Frequency::InstanceData(n)),
            _ => Err(VmError::BadFrequency(setting)),
        }
    }
}

/// A vertex buffer bound to a stream.
#[derive(Clone, Debug)]
pub struct StreamSource {
    /// The vertex buffer: shared, read where it is (see [`StreamData`]).
    pub data: StreamData,
    /// Bytes skipped before the first vertex.
    pub offset: usize,
    /// Bytes from one vertex to the next.
    pub stride: usize,
    /// How the stream steps: per vertex, per instance, or by a divider.
    pub frequency: Frequency,
}

pub(crate) struct Binding {
    pub reg: u8,
    pub element: VertexElement,
    /// The stream's data (guarded in guard-page mode).
    pub data: Buf<u8>,
    pub stream: StreamSource,
}

impl Binding {
    pub(crate) fn check_bounds(
        &self,
        vc: usize,
        instances: usize,
        indices: Option<&[u32]>,
    ) -> Result<(), VmError> {
        if vc == 0 {
            return Ok(());
        }
        // Every number here comes from the caller: checked arithmetic throughout, so that a
        // sum that would wrap is an error rather than a bounds check that passes. (The
        // fetch's own sums are each at most `end`.)
        let max_index = match self.stream.frequency {
            Frequency::Vertex | Frequency::IndexedData(_) => match indices {
                Some(ix) => ix.get(..vc).ok_or(VmError::TooFewIndices {
                    indices: ix.len(),
                    vertices: vc,
                })?,
                None => &[],
            }
            .iter()
            .max()
            .map_or(vc - 1, |&i| i as usize),
            Frequency::InstanceData(d) => (instances.saturating_sub(1))
                .checked_div(d as usize)
                .ok_or(VmError::BadFrequency(STREAMSOURCE_INSTANCEDATA))?,
            Frequency::Divider(m) => (vc - 1)
                .checked_div(m as usize)
                .ok_or(VmError::BadFrequency(0))?,
        };
        let e = &self.element;
        let end = max_index
            .checked_mul(self.stream.stride)
            .and_then(|x| x.checked_add(self.stream.offset))
            .and_then(|x| x.checked_add(e.offset as usize + e.ty.size()));
        match end {
            Some(end) if end <= self.stream.data.len() => Ok(()),
            _ => Err(VmError::ReadsPastStream {
                stream: e.stream,
                element: format!("{}{}", e.usage.name().to_ascii_uppercase(), e.usage_index),
                index: max_index,
                len: self.stream.data.len(),
            }),
        }
    }
}

/// `D3DDECLTYPE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeclType {
    /// `float` (1 component).
    Float1 = 0,
    /// `float2`.
    Float2 = 1,
    /// `float3`.
    Float3 = 2,
    /// `float4`.
    Float4 = 3,
    /// A `D3DCOLOR` (BGRA bytes), read as RGBA in [0, 1].
    D3dColor = 4,
    /// Four unsigned bytes, 0..255.
    Ubyte4 = 5,
    /// Two signed 16-bit integers (z 0, w 1).
    Short2 = 6,
    /// Four signed 16-bit integers.
    Short4 = 7,
    /// Four unsigned bytes, normalised to [0, 1].
    Ubyte4N = 8,
    /// Two signed 16-bit integers, normalised to [-1, 1].
    Short2N = 9,
    /// Four signed 16-bit integers, normalised to [-1, 1].
    Short4N = 10,
    /// Two unsigned 16-bit integers, normalised to [0, 1].
    UShort2N = 11,
    /// Four unsigned 16-bit integers, normalised to [0, 1].
    UShort4N = 12,
    /// Three unsigned 10-bit integers in a DWORD.
    UDec3 = 13,
    /// Three signed 10-bit integers in a DWORD, normalised to [-1, 1].
    Dec3N = 14,
    /// Two 16-bit floats.
    Float16_2 = 15,
    /// Four 16-bit floats.
    Float16_4 = 16,
    /// No data: the element is not read.
    Unused = 17,
}

impl DeclType {
    /// Every type, in `D3DDECLTYPE` order (index = value).
    pub const ALL: [DeclType; 18] = [
        DeclType::Float1,
        DeclType::Float2,
        DeclType::Float3,
        DeclType::Float4,
        DeclType::D3dColor,
        DeclType::Ubyte4,
        DeclType::Short2,
        DeclType::Short4,
        DeclType::Ubyte4N,
        DeclType::Short2N,
        DeclType::Short4N,
        DeclType::UShort2N,
        DeclType::UShort4N,
        DeclType::UDec3,
        DeclType::Dec3N,
        DeclType::Float16_2,
        DeclType::Float16_4,
        DeclType::Unused,
    ];

    /// Bytes the type occupies in a stream.
    pub fn size(self) -> usize {
        use DeclType::*;
        match self {
            Float1 | D3dColor | Ubyte4 | Short2 | Ubyte4N | Short2N | UShort2N | UDec3 | Dec3N
            | Float16_2 => 4,
            Float2 | Short4 | Short4N | UShort4N | Float16_4 => 8,
            Float3 => 12,
            Float4 => 16,
            Unused => 0,
        }
    }

    /// The D3DDECLTYPE name without its prefix (`FLOAT3`, `D3DCOLOR`, `UBYTE4N`, ...).
    pub fn name(self) -> &'static str {
        use DeclType::*;
        match self {
            Float1 => "FLOAT1",
            Float2 => "FLOAT2",
            Float3 => "FLOAT3",
            Float4 => "FLOAT4",
            D3dColor => "D3DCOLOR",
            Ubyte4 => "UBYTE4",
            Short2 => "SHORT2",
            Short4 => "SHORT4",
            Ubyte4N => "UBYTE4N",
            Short2N => "SHORT2N",
            Short4N => "SHORT4N",
            UShort2N => "USHORT2N",
            UShort4N => "USHORT4N",
            UDec3 => "UDEC3",
            Dec3N => "DEC3N",
            Float16_2 => "FLOAT16_2",
            Float16_4 => "FLOAT16_4",
            Unused => "UNUSED",
        }
    }

    /// The type named `name` (`D3DDECLTYPE_` left out, any case).
    pub fn from_name(name: &str) -> Option<DeclType> {
        let n = match name.get(..12) {
            Some(p) if p.eq_ignore_ascii_case("D3DDECLTYPE_") => &name[12..],
            _ => name,
        };
        DeclType::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(n))
    }

    /// Expand the elements at byte offsets `at` of `data` into the rows of one register, one
    /// lane each. Each type gets its own loop with [`DeclType::decode`] inlined into it.
    #[inline(always)]
    pub fn decode_lanes(self, data: &[u8], at: &[usize], rows: &mut [[f32; LANES]; 4]) {
        macro_rules! per_type {
            ($($t:ident),*) => {
                match self {
                    $(DeclType::$t => {
                        let size = DeclType::$t.size();
                        // Four vertices at a time, turned into four component rows.
                        let whole = at.len() / 4 * 4;
                        for l in (0..whole).step_by(4) {
                            let t = transpose4([
                                DeclType::$t.decode(&data[at[l]..at[l] + size]),
                                DeclType::$t.decode(&data[at[l + 1]..at[l + 1] + size]),
                                DeclType::$t.decode(&data[at[l + 2]..at[l + 2] + size]),
                                DeclType::$t.decode(&data[at[l + 3]..at[l + 3] + size]),
                            ]);
                            for c in 0..4 {
                                rows[c][l..l + 4].copy_from_slice(&t[c]);
                            }
                        }
                        for l in whole..at.len() {
                            let x = DeclType::$t.decode(&data[at[l]..at[l] + size]);
                            for c in 0..4 {
                                rows[c][l] = x[c];
                            }
                        }
                    })*
                }
            };
        }
        per_type!(
            Float1, Float2, Float3, Float4, D3dColor, Ubyte4, Short2, Short4, Ubyte4N, Short2N,
            Short4N, UShort2N, UShort4N, UDec3, Dec3N, Float16_2, Float16_4, Unused
        )
    }

    /// Expand one element to a register value. `b` holds at least `size()` bytes.
    /// Components a type does not supply are (0, 0, 0, 1).
    #[inline(always)]
    pub fn decode(self, b: &[u8]) -> [f32; 4] {
        use DeclType::*;
        let f = |i: usize| f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let s = |i: usize| i16::from_le_bytes([b[i], b[i + 1]]) as f32;
        let us = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]) as f32;
        let h = |i: usize| f16::from_bits(u16::from_le_bytes([b[i], b[i + 1]])).to_f32();
        let dword = || u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        match self {
            Float1 => [f(0), 0.0, 0.0, 1.0],
            Float2 => [f(0), f(4), 0.0, 1.0],
            Float3 => [f(0), f(4), f(8), 1.0],
            Float4 => [f(0), f(4), f(8), f(12)],
            // A8R8G8B8 in memory is B, G, R, A; the shader sees (R, G, B, A).
            D3dColor => [
                b[2] as f32 / 255.0,
                b[1] as f32 / 255.0,
                b[0] as f32 / 255.0,
                b[3] as f32 / 255.0,
            ],
            Ubyte4 => [b[0] as f32, b[1] as f32, b[2] as f32, b[3] as f32],
            Ubyte4N => [
                b[0] as f32 / 255.0,
                b[1] as f32 / 255.0,
                b[2] as f32 / 255.0,
                b[3] as f32 / 255.0,
            ],
            Short2 => [s(0), s(2), 0.0, 1.0],
            Short4 => [s(0), s(2), s(4), s(6)],
            // The documented divisor: -32768 gives slightly below -1 (not clamped).
            Short2N => [s(0) / 32767.0, s(2) / 32767.0, 0.0, 1.0],
            Short4N => [
                s(0) / 32767.0,
                s(2) / 32767.0,
                s(4) / 32767.0,
                s(6) / 32767.0,
            ],
            UShort2N => [us(0) / 65535.0, us(2) / 65535.0, 0.0, 1.0],
            UShort4N => [
                us(0) / 65535.0,
                us(2) / 65535.0,
                us(4) / 65535.0,
                us(6) / 65535.0,
            ],
            // x = bits 0-9, y = 10-19, z = 20-29; bits 30-31 ignored, w = 1.
            UDec3 => {
                let d = dword();
                [
                    (d & 0x3FF) as f32,
                    (d >> 10 & 0x3FF) as f32,
                    (d >> 20 & 0x3FF) as f32,
                    1.0,
                ]
            }
            Dec3N => {
                let d = dword();
                let sx = |v: u32| ((v << 22) as i32 >> 22) as f32 / 511.0;
                [sx(d & 0x3FF), sx(d >> 10 & 0x3FF), sx(d >> 20 & 0x3FF), 1.0]
            }
            Float16_2 => [h(0), h(2), 0.0, 1.0],
            Float16_4 => [h(0), h(2), h(4), h(6)],
            Unused => [0.0, 0.0, 0.0, 1.0],
        }
    }
}

/// Rows of a 4x4 matrix become its columns: four vertices' components into four component
/// rows (fetch), and back (store).
#[inline(always)]
pub(crate) fn transpose4(m: [[f32; 4]; 4]) -> [[f32; 4]; 4] {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE is part of every x86-64 processor; the loads and stores are unaligned
        // ones of four f32s from and to arrays of four f32s.
        unsafe {
            let [a, b, c, d] = m.map(|r| _mm_loadu_ps(r.as_ptr()));
            let ab_lo = _mm_unpacklo_ps(a, b); // a0 b0 a1 b1
            let ab_hi = _mm_unpackhi_ps(a, b); // a2 b2 a3 b3
            let cd_lo = _mm_unpacklo_ps(c, d);
            let cd_hi = _mm_unpackhi_ps(c, d);
            let cols = [
                _mm_movelh_ps(ab_lo, cd_lo),
                _mm_movehl_ps(cd_lo, ab_lo),
                _mm_movelh_ps(ab_hi, cd_hi),
                _mm_movehl_ps(cd_hi, ab_hi),
            ];
            let mut out = [[0.0f32; 4]; 4];
            for (o, v) in out.iter_mut().zip(cols) {
                _mm_storeu_ps(o.as_mut_ptr(), v);
            }
            out
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::array::from_fn(|c| std::array::from_fn(|r| m[r][c]))
    }
}

#[cfg(test)]
mod tests {
    use super::DeclType::{self, *};

    fn le(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn every_type_by_hand() {
        assert_eq!(
            Float1.decode(&le(&[2.5f32.to_bits()])),
            [2.5, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            Float2.decode(&le(&[1f32.to_bits(), 2f32.to_bits()])),
            [1.0, 2.0, 0.0, 1.0]
        );
        assert_eq!(
            Float3.decode(&le(&[1f32.to_bits(), 2f32.to_bits(), 3f32.to_bits()])),
            [1.0, 2.0, 3.0, 1.0]
        );
        assert_eq!(
            Float4.decode(&le(&[
                1f32.to_bits(),
                2f32.to_bits(),
                3f32.to_bits(),
                (-4f32).to_bits()
            ])),
            [1.0, 2.0, 3.0, -4.0]
        );
        // D3DCOLOR_ARGB(a=0x80, r=0xFF, g=0x00, b=0x33): bytes 33 00 FF 80.
        assert_eq!(
            D3dColor.decode(&[0x33, 0x00, 0xFF, 0x80]),
            [1.0, 0.0, 0x33 as f32 / 255.0, 128.0 / 255.0]
        );
        assert_eq!(Ubyte4.decode(&[1, 2, 3, 255]), [1.0, 2.0, 3.0, 255.0]);
        assert_eq!(
            Ubyte4N.decode(&[0x33, 0, 255, 0x80]),
            [0x33 as f32 / 255.0, 0.0, 1.0, 128.0 / 255.0]
        );
        assert_eq!(
            Short2.decode(&[0xFF, 0xFF, 0x00, 0x80]),
            [-1.0, -32768.0, 0.0, 1.0]
        );
        assert_eq!(
            Short4.decode(&[1, 0, 2, 0, 3, 0, 0xFC, 0xFF]),
            [1.0, 2.0, 3.0, -4.0]
        );
        assert_eq!(
            Short2N.decode(&[0xFF, 0x7F, 0x00, 0x80]),
            [1.0, -32768.0 / 32767.0, 0.0, 1.0]
        );
        assert_eq!(
            Short4N.decode(&[0xFF, 0x7F, 0, 0, 0x01, 0xC0, 0x01, 0x80]),
            [1.0, 0.0, -16383.0 / 32767.0, -1.0]
        );
        assert_eq!(UShort2N.decode(&[0xFF, 0xFF, 0, 0]), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(
            UShort4N.decode(&[0xFF, 0xFF, 0, 0x80, 1, 0, 0, 0]),
            [1.0, 32768.0 / 65535.0, 1.0 / 65535.0, 0.0]
        );
        // x = 1023, y = 1, z = 512, top bits set (ignored).
        let d = 1023 | 1 << 10 | 512 << 20 | 3 << 30;
        assert_eq!(UDec3.decode(&le(&[d])), [1023.0, 1.0, 512.0, 1.0]);
        // x = 511, y = -511 (0x201), z = -512 (0x200).
        let d = 511 | 0x201 << 10 | 0x200 << 20;
        assert_eq!(Dec3N.decode(&le(&[d])), [1.0, -1.0, -512.0 / 511.0, 1.0]);
        // half: 1.0 = 0x3C00, -2.0 = 0xC000, 0.5 = 0x3800, 65504 = 0x7BFF.
        assert_eq!(
            Float16_2.decode(&[0x00, 0x3C, 0x00, 0xC0]),
            [1.0, -2.0, 0.0, 1.0]
        );
        assert_eq!(
            Float16_4.decode(&[0x00, 0x38, 0xFF, 0x7B, 0x00, 0x00, 0x00, 0x3C]),
            [0.5, 65504.0, 0.0, 1.0]
        );
    }

    #[test]
    fn transpose4_swaps_rows_and_columns() {
        let m = [
            [1.0, 2.0, 3.0, 4.0],
            [5.0, 6.0, 7.0, 8.0],
            [9.0, 10.0, 11.0, 12.0],
            [13.0, 14.0, 15.0, 16.0],
        ];
        let t = super::transpose4(m);
        assert_eq!(t[0], [1.0, 5.0, 9.0, 13.0]);
        assert_eq!(t[1], [2.0, 6.0, 10.0, 14.0]);
        assert_eq!(t[3], [4.0, 8.0, 12.0, 16.0]);
        assert_eq!(super::transpose4(t), m);
    }

    #[test]
    fn names_and_sizes() {
        for t in DeclType::ALL {
            assert_eq!(DeclType::from_name(t.name()), Some(t));
        }
        assert_eq!(DeclType::from_name("d3ddecltype_float3"), Some(Float3));
        assert_eq!(Float16_4.size(), 8);
        assert_eq!(D3dColor.size(), 4);
        assert_eq!(Float3.size(), 12);
    }
}

/// The bytes of a vertex buffer bound to a stream ([`crate::StreamSource::data`]), shared:
/// cloning a `StreamData` shares the bytes, and a draw reads them where they are.
///
/// Its bytes are the slice its owner's `as_ref` returns when the `StreamData` is made; the
/// owner is kept alive by every clone, so they stay where they are for as long as one lives.
/// Build one from a `Vec<u8>`, an `Arc<[u8]>`, a `Box<[u8]>`, an iterator of bytes
/// (`collect`), or any owner of bytes with [`StreamData::new`] — a memory-mapped file, or
/// another language's array that the owner keeps from moving (the Python package binds
/// NumPy arrays this way, without a copy).
#[derive(Clone)]
pub struct StreamData {
    /// What holds the bytes; never read again after `new`, only kept alive.
    _owner: Arc<dyn AsRef<[u8]> + Send + Sync>,
    /// `_owner`'s bytes, as its `as_ref` returned them once.
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: `ptr`/`len` are shared, read-only access to bytes that `_owner` (`Send + Sync`)
// holds; nothing writes through them.
unsafe impl Send for StreamData {}
// SAFETY: as for `Send`: the bytes are only read.
unsafe impl Sync for StreamData {}

impl StreamData {
    /// The bytes `owner.as_ref()` returns, shared without a copy.
    pub fn new<T: AsRef<[u8]> + Send + Sync + 'static>(owner: T) -> StreamData {
        let owner: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(owner);
        let bytes = (*owner).as_ref();
        StreamData {
            ptr: std::ptr::NonNull::from(bytes).cast(),
            len: bytes.len(),
            _owner: owner,
        }
    }

    /// Where the bytes are (what a caller that bound its own memory can compare with).
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }
}

impl std::ops::Deref for StreamData {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: the slice `_owner.as_ref()` returned, borrowed from an owner that lives as
        // long as `self` does and that nothing can borrow mutably (it sits in an `Arc` that
        // never hands out `&mut`), so the borrow that produced it is still valid.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl AsRef<[u8]> for StreamData {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl std::fmt::Debug for StreamData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StreamData({} bytes at {:p})", self.len, self.ptr)
    }
}

impl From<Vec<u8>> for StreamData {
    fn from(v: Vec<u8>) -> StreamData {
        StreamData::new(v)
    }
}

impl From<Box<[u8]>> for StreamData {
    fn from(b: Box<[u8]>) -> StreamData {
        StreamData::new(b)
    }
}

impl From<Arc<[u8]>> for StreamData {
    fn from(a: Arc<[u8]>) -> StreamData {
        StreamData::new(a)
    }
}

impl From<&[u8]> for StreamData {
    /// A copy of the bytes.
    fn from(b: &[u8]) -> StreamData {
        StreamData::new(b.to_vec())
    }
}

impl FromIterator<u8> for StreamData {
    fn from_iter<I: IntoIterator<Item = u8>>(iter: I) -> StreamData {
        StreamData::new(iter.into_iter().collect::<Vec<u8>>())
    }
}
