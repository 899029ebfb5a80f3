//! The output merger, in D3D9's order: fog, the alpha test, the stencil and depth tests (and
//! their writes), then blending and the colour write into each render target.
//!
//! Rules and dxso's choices:
//! - Fog (`FOGENABLE`) blends `FOGCOLOR` into oC0's colour by the fog factor: table fog
//!   (`FOGTABLEMODE` LINEAR/EXP/EXP2) computes it from the pixel's depth, otherwise the
//!   interpolated vertex fog (oFog) clamped to [0, 1] ("Fog Color", "Vertex Fog", "Pixel
//!   Fog"). ps_3_0 gets no fixed-function fog: its model leaves fog to the shader (the spec
//!   page marks this unverified; dxso chooses it and tests it).
//! - The alpha test compares oC0's alpha clamped to [0, 1] with `(ALPHAREF & 0xff) / 255`.
//! - Depth compares at the surface's precision (the incoming depth rounded as the format
//!   stores it); stencil compares `(ref & mask)` with `(stencil & mask)`, `ref` on the left, and
//!   writes through `STENCILWRITEMASK`; back faces use the `CCW_` states with
//!   `TWOSIDEDSTENCILMODE`.
//! - Blending reads the target as stored; for unorm targets the source is clamped to [0, 1]
//!   first and the result is clamped and rounded as the format stores it. With
//!   `SRGBWRITEENABLE` an 8-bit target blends in linear space (the stored value decoded from
//!   sRGB, the result encoded back): a choice, since D3D9 hardware differed.
//! - A target the pixel shader writes no `oC#` for keeps its contents.
//!
//! The common case (no fog, alpha test, stencil or sRGB write; one A8R8G8B8 or X8R8G8B8
//! target; blending off or SRCALPHA, INVSRCALPHA, ADD) takes [`Merger::plain`]'s states,
//! decided once per band, and [`Merger::merge_plain`] per pixel: the same arithmetic without
//! the per-fragment state lookups.

use crate::desc::{TargetFormat, d3dcolor};
use crate::states::{RenderStates, rs};
use crate::surfaces::Band;

/// One shaded pixel on its way into the surfaces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Fragment {
    pub x: u32,
    pub y: u32,
    pub colors: [[f32; 4]; 4],
    /// Bit n: oCn was written.
    pub written: u8,
    pub z: f32,
    pub front: bool,
    /// The interpolated vertex fog factor (before clamping).
    pub fog: f32,
}

/// What the merger did with a fragment, for the pixel debugger.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MergeReport {
    /// One line per step: `fog factor 0.25: (..) -> (..)`, `depth test LESSEQUAL 0.5 vs 1: passed`, ...
    pub steps: Vec<String>,
    /// Whether the fragment reached the targets.
    pub written: bool,
}

/// D3DCMPFUNC `func` applied to `a` (the incoming value) and `b` (the stored one).
pub(crate) fn compare(func: u32, a: f32, b: f32) -> bool {
    match func {
        1 => false,
        2 => a < b,
        3 => a == b,
        4 => a <= b,
        5 => a > b,
        6 => a != b,
        7 => a >= b,
        _ => true,
    }
}

fn compare_u(func: u32, a: u32, b: u32) -> bool {
    compare(func, a as f32, b as f32)
}

const CMP_NAMES: [&str; 9] = [
    "?",
    "NEVER",
    "LESS",
    "EQUAL",
    "LESSEQUAL",
    "GREATER",
    "NOTEQUAL",
    "GREATEREQUAL",
    "ALWAYS",
];

fn cmp_name(func: u32) -> &'static str {
    CMP_NAMES.get(func as usize).copied().unwrap_or("ALWAYS")
}

fn stencil_op(op: u32, s: u8, reference: u8) -> u8 {
    match op {
        2 => 0,
        3 => reference,
        4 => s.saturating_add(1),
        5 => s.saturating_sub(1),
        6 => !s,
        7 => s.wrapping_add(1),
        8 => s.wrapping_sub(1),
        _ => s,
    }
}

fn clamp01(x: f32) -> f32 {
    if x > 0.0 { x.min(1.0) } else { 0.0 }
}

/// sRGB → linear (the IEC 61966-2-1 curve).
pub(crate) fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// linear → sRGB.
pub(crate) fn linear_to_srgb(c: f32) -> f32 {
    let c = clamp01(c);
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

fn v4(v: [f32; 4]) -> String {
    format!("({}, {}, {}, {})", v[0], v[1], v[2], v[3])
}

/// The merger's view of one draw's states.
pub(crate) struct Merger<'a> {
    pub states: &'a RenderStates,
    /// Fixed-function fog applies (not for ps_3_0).
    pub fog_applies: bool,
}

/// `k / 255` for every 8-bit step.
const UNORM8: [f32; 256] = {
    let mut t = [0.0; 256];
    let mut k = 0;
    while k < 256 {
        t[k] = k as f32 / 255.0;
        k += 1;
    }
    t
};

/// [`TargetFormat::store`] for one 8-bit unorm channel: clamped to [0, 1], rounded to
/// `floor(x·255 + 0.5) / 255` (the quotient looked up).
fn unorm8(x: f32) -> f32 {
    let x = if x > 0.0 { x.min(1.0) } else { 0.0 };
    UNORM8[(x * 255.0 + 0.5) as usize]
}

/// A fragment's depth for [`Merger::merge_plain`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Depth {
    /// As interpolated (or written by the shader).
    Raw(f32),
    /// Already rounded as the depth surface stores it (by the early depth test).
    Stored(f32),
}

/// The states of the output merger's common case (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Plain {
    format: TargetFormat,
    /// ZFUNC with ZENABLE and a depth surface, else `None`.
    zfunc: Option<u32>,
    zwrite: bool,
    /// SRCALPHA, INVSRCALPHA, ADD.
    blend: bool,
    /// COLORWRITEENABLE.
    mask: u32,
}

impl Merger<'_> {
    /// The common case's states for `sf`, or `None` where the draw needs the general path.
    pub fn plain(&self, sf: &Band) -> Option<Plain> {
        let s = self.states;
        let stencil = s.flag(rs::STENCILENABLE)
            && sf.depth_stencil.as_ref().is_some_and(|d| d.0.has_stencil());
        let blend = s.flag(rs::ALPHABLENDENABLE);
        let simple_blend = s.get(rs::SRCBLEND) == 5
            && s.get(rs::DESTBLEND) == 6
            && s.get(rs::BLENDOP) == 1
            && !s.flag(rs::SEPARATEALPHABLENDENABLE);
        let [(format, _)] = sf.targets.as_slice() else {
            return None;
        };
        let format = *format;
        let fog = self.fog_applies && s.flag(rs::FOGENABLE);
        let plain = !fog
            && !s.flag(rs::ALPHATESTENABLE)
            && !stencil
            && !s.flag(rs::SRGBWRITEENABLE)
            && matches!(format, TargetFormat::A8R8G8B8 | TargetFormat::X8R8G8B8)
            && (!blend || simple_blend);
        let z_on = s.get(rs::ZENABLE) != 0 && sf.depth_stencil.is_some();
        plain.then(|| Plain {
            format,
            zfunc: z_on.then(|| s.get(rs::ZFUNC)),
            zwrite: s.flag(rs::ZWRITEENABLE),
            blend,
            mask: s.get(rs::COLORWRITEENABLE),
        })
    }

    /// [`Merger::merge`] in the common case `p`: the pixel at (x, y) with depth `z` and oC0
    /// `color` (`None`: the shader writes no oC0).
    pub fn merge_plain(
        p: &Plain,
        sf: &mut Band,
        (x, y): (u32, u32),
        z: Depth,
        color: Option<[f32; 4]>,
    ) {
        let i = sf.index(x, y);
        if let (Some(func), Some((format, zs, _))) = (p.zfunc, sf.depth_stencil.as_mut()) {
            let zq = match z {
                Depth::Raw(z) => format.store(z),
                Depth::Stored(zq) => zq,
            };
            if !compare(func, zq, zs[i]) {
                return;
            }
            if p.zwrite {
                zs[i] = zq;
            }
        }
        let Some(color) = color else { return };
        let texels = &mut sf.targets[0].1;
        let old = texels[i];
        let alpha = clamp01(color[3]);
        let k = 1.0 - alpha;
        let x8 = p.format == TargetFormat::X8R8G8B8;
        let mut stored = old;
        for c in 0..4 {
            if p.mask >> c & 1 != 0 {
                let src = clamp01(color[c]);
                let out = if p.blend {
                    src * alpha + old[c] * k
                } else {
                    src
                };
                stored[c] = if c == 3 && x8 { 1.0 } else { unorm8(out) };
            }
        }
        texels[i] = stored;
    }

    fn fog_factor(&self, f: &Fragment) -> f32 {
        let s = self.states;
        let d = f.z;
        let factor = match s.get(rs::FOGTABLEMODE) {
            1 => (-s.float(rs::FOGDENSITY) * d).exp(),
            2 => (-(s.float(rs::FOGDENSITY) * d).powi(2)).exp(),
            3 => {
                let (start, end) = (s.float(rs::FOGSTART), s.float(rs::FOGEND));
                if end == start {
                    1.0
                } else {
                    (end - d) / (end - start)
                }
            }
            _ => f.fog,
        };
        clamp01(factor)
    }

    /// Fog and the alpha test. `false`: the fragment is discarded.
    fn colour_tests(&self, f: &mut Fragment, report: &mut Option<&mut MergeReport>) -> bool {
        let s = self.states;
        if self.fog_applies && s.flag(rs::FOGENABLE) {
            let k = self.fog_factor(f);
            let fc = d3dcolor(s.get(rs::FOGCOLOR));
            let before = f.colors[0];
            for c in 0..3 {
                f.colors[0][c] = k * f.colors[0][c] + (1.0 - k) * fc[c];
            }
            if let Some(r) = report {
                r.steps.push(format!(
                    "fog factor {k}: {} -> {}",
                    v4(before),
                    v4(f.colors[0])
                ));
            }
        }
        if s.flag(rs::ALPHATESTENABLE) {
            let func = s.get(rs::ALPHAFUNC);
            let reference = (s.get(rs::ALPHAREF) & 0xff) as f32 / 255.0;
            let a = clamp01(f.colors[0][3]);
            let pass = compare(func, a, reference);
            if let Some(r) = report {
                r.steps.push(format!(
                    "alpha test {} {a} vs {reference}: {}",
                    cmp_name(func),
                    if pass { "passed" } else { "failed" }
                ));
            }
            if !pass {
                return false;
            }
        }
        true
    }

    /// Stencil and depth. `false`: the fragment is discarded.
    fn depth_stencil(
        &self,
        sf: &mut Band,
        f: &Fragment,
        report: &mut Option<&mut MergeReport>,
    ) -> bool {
        let s = self.states;
        let i = sf.index(f.x, f.y);
        let Some((format, z, stencil)) = sf.depth_stencil.as_mut() else {
            return true;
        };
        let format = *format;
        let z_on = s.get(rs::ZENABLE) != 0;
        let zq = format.store(f.z);
        let z_pass = !z_on || compare(s.get(rs::ZFUNC), zq, z[i]);
        if let Some(r) = report.as_deref_mut().filter(|_| z_on) {
            r.steps.push(format!(
                "depth test {} {zq} vs {}: {}",
                cmp_name(s.get(rs::ZFUNC)),
                z[i],
                if z_pass { "passed" } else { "failed" }
            ));
        }
        if s.flag(rs::STENCILENABLE) && format.has_stencil() {
            let back = !f.front && s.flag(rs::TWOSIDEDSTENCILMODE);
            let [func, fail, zfail, pass] = if back {
                [
                    rs::CCW_STENCILFUNC,
                    rs::CCW_STENCILFAIL,
                    rs::CCW_STENCILZFAIL,
                    rs::CCW_STENCILPASS,
                ]
            } else {
                [
                    rs::STENCILFUNC,
                    rs::STENCILFAIL,
                    rs::STENCILZFAIL,
                    rs::STENCILPASS,
                ]
            }
            .map(|n| s.get(n));
            let reference = (s.get(rs::STENCILREF) & 0xff) as u8;
            let mask = s.get(rs::STENCILMASK) & 0xff;
            let wmask = (s.get(rs::STENCILWRITEMASK) & 0xff) as u8;
            let old = stencil[i];
            let s_pass = compare_u(func, reference as u32 & mask, old as u32 & mask);
            let op = if !s_pass {
                fail
            } else if !z_pass {
                zfail
            } else {
                pass
            };
            let new = stencil_op(op, old, reference);
            stencil[i] = (old & !wmask) | (new & wmask);
            if let Some(r) = report {
                r.steps.push(format!(
                    "stencil test {} ref {reference} vs {old}: {}; stencil {old} -> {}",
                    cmp_name(func),
                    if s_pass { "passed" } else { "failed" },
                    stencil[i]
                ));
            }
            if !s_pass {
                return false;
            }
        }
        if !z_pass {
            return false;
        }
        if z_on && s.flag(rs::ZWRITEENABLE) {
            z[i] = zq;
        }
        true
    }

    /// Merge one fragment into the surfaces.
    pub fn merge(&self, sf: &mut Band, mut f: Fragment, mut report: Option<&mut MergeReport>) {
        if !self.colour_tests(&mut f, &mut report) || !self.depth_stencil(sf, &f, &mut report) {
            return;
        }
        let i = sf.index(f.x, f.y);
        for (t, (format, texels)) in sf.targets.iter_mut().enumerate() {
            if f.written >> t & 1 == 0 {
                continue;
            }
            let mask = self.states.get(if t == 0 {
                rs::COLORWRITEENABLE
            } else {
                rs::COLORWRITEENABLE1 + t as u32 - 1
            });
            let old = texels[i];
            let new = self.blend(*format, f.colors[t], old);
            let mut stored = old;
            for c in 0..4 {
                if mask >> c & 1 != 0 {
                    stored[c] = new[c];
                }
            }
            texels[i] = stored;
            if let Some(r) = report.as_deref_mut() {
                r.steps
                    .push(format!("target {t}: {} -> {}", v4(old), v4(stored)));
            }
        }
        if let Some(r) = report {
            r.written = true;
        }
    }

    /// The value target `format` stores for source `src` over destination `dst`.
    fn blend(&self, format: TargetFormat, src: [f32; 4], dst: [f32; 4]) -> [f32; 4] {
        let s = self.states;
        let unorm = format.unorm_bits().is_some();
        let srgb = s.flag(rs::SRGBWRITEENABLE) && format.unorm_bits().is_some_and(|b| b[0] == 8);
        let src = if unorm { src.map(clamp01) } else { src };
        let mut dst = dst;
        if srgb {
            for c in 0..3 {
                dst[c] = srgb_to_linear(dst[c]);
            }
        }
        let mut out = if s.flag(rs::ALPHABLENDENABLE) {
            self.blended(src, dst)
        } else {
            src
        };
        if srgb {
            for c in 0..3 {
                out[c] = linear_to_srgb(out[c]);
            }
        }
        format.store(out)
    }

    fn blended(&self, src: [f32; 4], dst: [f32; 4]) -> [f32; 4] {
        let s = self.states;
        let (mut sb, mut db, op) = (
            s.get(rs::SRCBLEND),
            s.get(rs::DESTBLEND),
            s.get(rs::BLENDOP),
        );
        let (mut sba, mut dba, opa) = if s.flag(rs::SEPARATEALPHABLENDENABLE) {
            (
                s.get(rs::SRCBLENDALPHA),
                s.get(rs::DESTBLENDALPHA),
                s.get(rs::BLENDOPALPHA),
            )
        } else {
            (sb, db, op)
        };
        // BOTHSRCALPHA / BOTHINVSRCALPHA set both factors from the source blend.
        for (sf, df) in [(&mut sb, &mut db), (&mut sba, &mut dba)] {
            match *sf {
                12 => (*sf, *df) = (5, 6),
                13 => (*sf, *df) = (6, 5),
                _ => {}
            }
        }
        let factor_k = d3dcolor(s.get(rs::BLENDFACTOR));
        let factor = |f: u32, c: usize| -> f32 {
            match f {
                1 => 0.0,
                3 => src[c],
                4 => 1.0 - src[c],
                5 => src[3],
                6 => 1.0 - src[3],
                7 => dst[3],
                8 => 1.0 - dst[3],
                9 => dst[c],
                10 => 1.0 - dst[c],
                11 if c < 3 => src[3].min(1.0 - dst[3]),
                14 => factor_k[c],
                15 => 1.0 - factor_k[c],
                _ => 1.0,
            }
        };
        std::array::from_fn(|c| {
            let (sf, df, op) = if c == 3 {
                (sba, dba, opa)
            } else {
                (sb, db, op)
            };
            let (a, b) = (src[c] * factor(sf, c), dst[c] * factor(df, c));
            match op {
                2 => a - b,
                3 => b - a,
                4 => src[c].min(dst[c]),
                5 => src[c].max(dst[c]),
                _ => a + b,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::{Clear, DepthFormat, Frame};
    use crate::states::StateValue;
    use crate::surfaces::Surfaces;
    use proptest::prelude::*;

    fn states(depth: bool, list: &[(&str, StateValue)]) -> RenderStates {
        let mut s = RenderStates::new(depth);
        for (name, value) in list {
            s.set(name, value).unwrap();
        }
        s
    }

    fn frame(target: TargetFormat, depth: Option<DepthFormat>) -> Frame {
        Frame {
            width: 4,
            height: 4,
            targets: vec![target],
            depth_stencil: depth,
            clear: Clear {
                color: [0.3, 0.6, 0.1, 0.8],
                z: 0.5,
                ..Default::default()
            },
        }
    }

    #[test]
    fn other_states_take_the_general_path() {
        use StateValue::{Bool, Name};
        let on = |name| (name, Bool(true));
        let cases = [
            (vec![on("FOGENABLE")], TargetFormat::A8R8G8B8),
            (vec![on("ALPHATESTENABLE")], TargetFormat::A8R8G8B8),
            (vec![on("STENCILENABLE")], TargetFormat::A8R8G8B8),
            (vec![on("SRGBWRITEENABLE")], TargetFormat::A8R8G8B8),
            (vec![on("ALPHABLENDENABLE")], TargetFormat::A8R8G8B8),
            (
                vec![
                    on("ALPHABLENDENABLE"),
                    ("SRCBLEND", Name("SRCALPHA".into())),
                    ("DESTBLEND", Name("INVSRCALPHA".into())),
                    on("SEPARATEALPHABLENDENABLE"),
                ],
                TargetFormat::A8R8G8B8,
            ),
            (vec![], TargetFormat::R5G6B5),
            (vec![], TargetFormat::A16B16G16R16F),
        ];
        for (list, target) in cases {
            let st = states(true, &list);
            let m = Merger {
                states: &st,
                fog_applies: true,
            };
            let mut sf = Surfaces::cleared(&frame(target, Some(DepthFormat::D24S8))).unwrap();
            assert_eq!(m.plain(&sf.bands(4)[0]), None, "{list:?} {target:?}");
        }
        // Fog under ps_3_0 (no fixed-function fog) and the defaults stay plain.
        let st = states(true, &[on("FOGENABLE")]);
        let m = Merger {
            states: &st,
            fog_applies: false,
        };
        let f = frame(TargetFormat::X8R8G8B8, Some(DepthFormat::D24S8));
        let mut sf = Surfaces::cleared(&f).unwrap();
        let p = m.plain(&sf.bands(4)[0]).unwrap();
        assert_eq!(
            (p.zfunc, p.zwrite, p.blend, p.mask),
            (Some(4), true, false, 15)
        );
    }

    #[test]
    fn unorm8_is_the_targets_rounding() {
        let f = TargetFormat::A8R8G8B8;
        let ties = (0..=512).map(|k| k as f32 / 510.0);
        let sweep = (-4096..=(1 << 20) + 4096).map(|k| k as f32 / (1 << 20) as f32);
        for x in ties
            .chain(sweep)
            .chain([f32::NAN, f32::INFINITY, -0.0, 2.0])
        {
            assert_eq!(unorm8(x).to_bits(), f.store([x; 4])[0].to_bits(), "{x}");
        }
        assert_eq!(unorm8(0.5), 128.0 / 255.0);
    }

    proptest! {
        /// The common case's merge leaves the surfaces as the general one does, fragment by
        /// fragment (overlapping fragments see each other's depth and colour).
        #[test]
        fn the_common_case_merges_as_the_general_path(
            target in prop::sample::select(vec![TargetFormat::A8R8G8B8, TargetFormat::X8R8G8B8]),
            depth in prop::sample::select(vec![
                None,
                Some(DepthFormat::D24S8),
                Some(DepthFormat::D16),
                Some(DepthFormat::D32FLockable),
            ]),
            (zenable, zfunc, zwrite) in (any::<bool>(), 1u32..=8, any::<bool>()),
            (blend, mask, written) in (any::<bool>(), 0u32..16, any::<bool>()),
            frags in prop::collection::vec(
                (0u32..4, 0u32..4, -0.25f32..1.25, prop::array::uniform4(-0.5f32..1.5)),
                1..40,
            ),
        ) {
            use StateValue::{Bool, Name, Number};
            let st = states(depth.is_some(), &[
                ("ZENABLE", Bool(zenable)),
                ("ZFUNC", Number(zfunc as f64)),
                ("ZWRITEENABLE", Bool(zwrite)),
                ("ALPHABLENDENABLE", Bool(blend)),
                ("SRCBLEND", Name("SRCALPHA".into())),
                ("DESTBLEND", Name("INVSRCALPHA".into())),
                ("COLORWRITEENABLE", Number(mask as f64)),
            ]);
            let m = Merger { states: &st, fog_applies: true };
            let f = frame(target, depth);
            let mut plain = Surfaces::cleared(&f).unwrap();
            let mut general = plain.clone();
            {
                let mut band = plain.bands(4).remove(0);
                let p = m.plain(&band).unwrap();
                for &(x, y, z, color) in &frags {
                    let z = match depth {
                        Some(format) if x == y => Depth::Stored(format.store(z)),
                        _ => Depth::Raw(z),
                    };
                    Merger::merge_plain(&p, &mut band, (x, y), z, written.then_some(color));
                }
            }
            {
                let mut band = general.bands(4).remove(0);
                for &(x, y, z, color) in &frags {
                    let fragment = Fragment {
                        x,
                        y,
                        colors: [color, [0.0; 4], [0.0; 4], [0.0; 4]],
                        written: written as u8,
                        z,
                        front: true,
                        fog: 1.0,
                    };
                    m.merge(&mut band, fragment, None);
                }
            }
            prop_assert_eq!(plain, general);
        }
    }
}
