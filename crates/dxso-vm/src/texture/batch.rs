//! The pixel sampler's batch path: the lookups of a whole pass of lanes (16–64 from the
//! compiled code, a batch from the interpreter) on a 2D texture at once, with exactly the
//! bits of [`sample`](super::sample) lane by lane.
//!
//! [`sample`](super::sample) decides everything per lane: the texture's kind, the filter,
//! each axis's address mode (WRAP takes an `i64` remainder, a division), the border colour.
//! Here those choices are made once a pass: the address modes of both axes become one of
//! three addressers (a mask for WRAP on a power-of-two size, a clamp for CLAMP, the general
//! [`address`] for the rest), and each lane runs the same arithmetic as
//! [`fetch`](super::sampling) in the same order: `u·w − 0.5`, its floor and fraction, the
//! corner weights `(1 − fx)(1 − fy)`, `fx(1 − fy)`, `(1 − fx)fy`, `fx·fy`, summed onto 0
//! corner by corner; mip selection is [`select`]'s. Where the processor has AVX2 the loop is
//! compiled a second time for it (floor becomes one instruction instead of a call to libm);
//! IEEE arithmetic without contraction gives the same bits on both.
//!
//! Cube and volume textures, and sRGB reads, keep the lane-by-lane path.

use super::sampling::{Pick, address, select, texel_floor};
use super::{Level, SamplerState, Texture, TextureAddress, TextureFilter, TextureKind};

/// How one axis maps an integer texel coordinate into the level (`None`: the border).
trait Axis: Copy {
    fn new(mode: TextureAddress, n: usize) -> Self;
    fn at(self, i: i64) -> Option<usize>;
}

/// WRAP on a power-of-two size: the low bits (the same as `rem_euclid` in two's complement).
#[derive(Clone, Copy)]
struct Mask(i64);

impl Axis for Mask {
    #[inline(always)]
    fn new(_: TextureAddress, n: usize) -> Self {
        Mask(n as i64 - 1)
    }
    #[inline(always)]
    fn at(self, i: i64) -> Option<usize> {
        Some((i & self.0) as usize)
    }
}

/// CLAMP: the nearest texel inside.
#[derive(Clone, Copy)]
struct Clamp(i64);

impl Axis for Clamp {
    #[inline(always)]
    fn new(_: TextureAddress, n: usize) -> Self {
        Clamp(n as i64 - 1)
    }
    #[inline(always)]
    fn at(self, i: i64) -> Option<usize> {
        Some(i.clamp(0, self.0) as usize)
    }
}

/// Any mode: the general addressing.
#[derive(Clone, Copy)]
struct General(TextureAddress, usize);

impl Axis for General {
    #[inline(always)]
    fn new(mode: TextureAddress, n: usize) -> Self {
        General(mode, n)
    }
    #[inline(always)]
    fn at(self, i: i64) -> Option<usize> {
        address(self.0, i, self.1)
    }
}

/// Sample the `N` lanes of coordinates `uv` (rows u, v) at levels of detail `lod` (before
/// MIPMAPLODBIAS; ignored unless [`lod_matters`](super::sampling::lod_matters)) into `out`,
/// as [`sample`](super::sample) would lane by lane. `false` (and `out` untouched) where this
/// path does not apply: a texture other than 2D, or an sRGB read.
pub(crate) fn sample_2d<const N: usize>(
    tex: &Texture,
    st: &SamplerState,
    uv: [&[f32; N]; 2],
    lod: &[f32; N],
    out: &mut [[f32; N]; 4],
) -> bool {
    if tex.kind != TextureKind::TwoD || (st.srgb_texture && tex.format.srgb_read()) {
        return false;
    }
    // Test hook: the same stand-in defect as the lane-by-lane path's.
    #[cfg(test)]
    if uv[0].iter().any(|u| u.to_bits() == super::PANIC_BITS) {
        panic!("test: a panic inside the sampler");
    }
    let (w, h) = (tex.levels[0].width, tex.levels[0].height);
    let pass = Pass {
        tex,
        st,
        uv,
        lod,
        single: !super::sampling::lod_matters(tex, st),
    };
    use TextureAddress::{Clamp as C, Wrap as W};
    match (st.address_u, st.address_v) {
        (W, W) if w.is_power_of_two() && h.is_power_of_two() => pass.run::<Mask, Mask>(out),
        (C, C) => pass.run::<Clamp, Clamp>(out),
        _ => pass.run::<General, General>(out),
    }
    true
}

/// One pass's lookups (see [`sample_2d`]).
struct Pass<'a, const N: usize> {
    tex: &'a Texture,
    st: &'a SamplerState,
    uv: [&'a [f32; N]; 2],
    lod: &'a [f32; N],
    /// Every lane reads level 0 with one filter ([`select`] of any LOD).
    single: bool,
}

impl<const N: usize> Pass<'_, N> {
    /// The lookups with the AVX2 build of the loop where the processor has it.
    fn run<U: Axis, V: Axis>(&self, out: &mut [[f32; N]; 4]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: `run_avx2` only needs AVX2, which the processor was just found to have.
            unsafe { self.run_avx2::<U, V>(out) };
            return;
        }
        self.lanes::<U, V>(out);
    }

    /// [`Pass::lanes`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_avx2<U: Axis, V: Axis>(&self, out: &mut [[f32; N]; 4]) {
        self.lanes::<U, V>(out);
    }

    #[inline(always)]
    fn lanes<U: Axis, V: Axis>(&self, out: &mut [[f32; N]; 4]) {
        let st = self.st;
        let border = st.border();
        if self.single {
            // One level, one filter for the whole pass.
            let pick = select(1, st, 0.0);
            let lv = &self.tex.levels[0];
            let (au, av) = (
                U::new(st.address_u, lv.width),
                V::new(st.address_v, lv.height),
            );
            if pick.filter == TextureFilter::Linear {
                for l in 0..N {
                    let t = linear(lv, au, av, border, self.uv[0][l], self.uv[1][l]);
                    put(out, l, t);
                }
            } else {
                for l in 0..N {
                    let t = point(lv, au, av, border, self.uv[0][l], self.uv[1][l]);
                    put(out, l, t);
                }
            }
            return;
        }
        for l in 0..N {
            let pick: Pick = select(self.tex.levels.len(), st, self.lod[l]);
            let (u, v) = (self.uv[0][l], self.uv[1][l]);
            let t = pick.blend(|k| {
                let lv = &self.tex.levels[k];
                let (au, av) = (
                    U::new(st.address_u, lv.width),
                    V::new(st.address_v, lv.height),
                );
                if pick.filter == TextureFilter::Linear {
                    linear(lv, au, av, border, u, v)
                } else {
                    point(lv, au, av, border, u, v)
                }
            });
            put(out, l, t);
        }
    }
}

#[inline(always)]
fn put<const N: usize>(out: &mut [[f32; N]; 4], l: usize, t: [f32; 4]) {
    for c in 0..4 {
        out[c][l] = t[c];
    }
}

/// The texel at integer coordinates (i, j), or the border colour.
#[inline(always)]
fn texel<U: Axis, V: Axis>(lv: &Level, au: U, av: V, border: [f32; 4], i: i64, j: i64) -> [f32; 4] {
    match (au.at(i), av.at(j)) {
        (Some(x), Some(y)) => lv.texels[y * lv.width + x],
        _ => border,
    }
}

/// POINT: the texel under (u, v).
#[inline(always)]
fn point<U: Axis, V: Axis>(lv: &Level, au: U, av: V, border: [f32; 4], u: f32, v: f32) -> [f32; 4] {
    let i = texel_floor(u * lv.width as f32);
    let j = texel_floor(v * lv.height as f32);
    texel(lv, au, av, border, i, j)
}

/// LINEAR: the four texels around (u·w − 0.5, v·h − 0.5), weighted and summed in `fetch`'s
/// order.
#[inline(always)]
fn linear<U: Axis, V: Axis>(
    lv: &Level,
    au: U,
    av: V,
    border: [f32; 4],
    u: f32,
    v: f32,
) -> [f32; 4] {
    let x = u * lv.width as f32 - 0.5;
    let y = v * lv.height as f32 - 0.5;
    let (i, j) = (texel_floor(x), texel_floor(y));
    let frac = |x: f32| {
        let f = x - x.floor();
        if f.is_finite() { f } else { 0.0 }
    };
    let (fx, fy) = (frac(x), frac(y));
    let corners = [
        ((i, j), (1.0 - fx) * (1.0 - fy)),
        ((i + 1, j), fx * (1.0 - fy)),
        ((i, j + 1), (1.0 - fx) * fy),
        ((i + 1, j + 1), fx * fy),
    ];
    let mut acc = [0.0f32; 4];
    for ((i, j), w) in corners {
        let t = texel(lv, au, av, border, i, j);
        for c in 0..4 {
            acc[c] += w * t[c];
        }
    }
    acc
}
