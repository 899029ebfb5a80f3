//! The decompiler's state and its two primitives: reading a source operand as an HLSL
//! expression (register, swizzle, modifier, relative index) and writing a value to a
//! destination (mask, saturate, shift, predicate).

use crate::expr::{self, ADD, ATOM, E, UNARY, float_ty, literal, literal_splat, swizzle_text};
use crate::io::Io;
use crate::uniforms::Uniforms;
use crate::view::{Seg, View};
use crate::{Error, Options, Unsupported};
use dxso::Shader;
use dxso::ir::{Dst, Instruction, Register, RegisterKind, Relative, Src, SrcModifier};
use std::collections::{BTreeMap, BTreeSet};

/// Helper functions the output needs (emitted before `main` when used).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Helper {
    /// D3D9's `lit` (HLSL's `lit` differs where n·l is 0).
    Lit,
    /// `mova`'s rounding: to nearest, exact halves to even (HLSL's `round` leaves halves
    /// to the implementation).
    Round,
}

/// The components `first .. first + width` of a temporary that its variable holds: the
/// narrowest run covering every component the output touches (the rest are never read or
/// written, so leaving them out changes nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub first: usize,
    pub width: usize,
}

impl Shape {
    /// All four components: a `float4 r#`.
    pub const FULL: Shape = Shape { first: 0, width: 4 };

    /// The narrowest shape covering `mask` (`None` for no component).
    pub fn covering(mask: u8) -> Option<Shape> {
        let mask = mask & 0xF;
        if mask == 0 {
            return None;
        }
        let first = mask.trailing_zeros() as usize;
        let last = 7 - mask.leading_zeros() as usize;
        Some(Shape {
            first,
            width: last + 1 - first,
        })
    }

    /// Whether the shape holds every component of `mask`.
    pub fn holds(self, mask: u8) -> bool {
        let mine = ((1u8 << self.width) - 1) << self.first;
        mask & !mine == 0
    }

    /// The variable of `r{n}`: `r{n}` when it starts at x, else named for its components
    /// (`r3_w`, `r2_zw`).
    pub fn name(self, n: u32) -> String {
        if self.first == 0 {
            return format!("r{n}");
        }
        let comps: String = expr::XYZW[self.first..self.first + self.width]
            .iter()
            .collect();
        format!("r{n}_{comps}")
    }
}

/// Constant values a `def`/`defi`/`defb` gives.
#[derive(Debug, Default)]
pub(crate) struct Defs {
    pub float: BTreeMap<u32, [f32; 4]>,
    pub int: BTreeMap<u32, [i32; 4]>,
    pub bool_: BTreeMap<u32, bool>,
}

/// Everything emission needs.
pub(crate) struct Ctx<'a> {
    pub shader: &'a Shader,
    pub opts: &'a Options,
    pub uniforms: Uniforms,
    pub io: Io,
    pub defs: Defs,
    /// `r#` registers used.
    pub temps: BTreeSet<u32>,
    /// The components of each `r#` the output reads or writes (a mask), over every function.
    pub touched: BTreeMap<u32, u8>,
    /// Temporaries declared narrower than `float4` ([`Shape`]); the others are `float4`.
    pub shapes: BTreeMap<u32, Shape>,
    pub uses_a0: bool,
    pub uses_p0: bool,
    pub helpers: BTreeSet<Helper>,
    /// The loop counters (`aL`) of the loops being emitted, innermost last.
    pub loops: Vec<String>,
    /// The name `aL` reads when no loop of this function encloses it (a subroutine's
    /// parameter).
    pub outer_al: Option<String>,
    /// Serial number for block-local temporaries.
    pub tmp_serial: usize,
    /// Subroutines that read `aL` of the loop they are called from (take it as a parameter).
    pub al_params: BTreeSet<u32>,
    /// Values of temporaries not written out but folded into the one instruction that reads
    /// them: register -> (value, the channels it holds, ascending).
    pub pending: BTreeMap<u32, (E, Vec<usize>)>,
    /// Relative reads of the `c` array see the `def`s: a local copy `cd` holds both.
    pub def_overlay: bool,
    /// Inputs are read relatively (`v[aL]`): a local array holds them.
    pub input_array: bool,
    /// ps_1_x: the locals holding texm3x2pad/texm3x3pad results not consumed yet.
    pub pads: Vec<String>,
}

impl<'a> Ctx<'a> {
    /// The channels (ascending) of a destination mask.
    pub fn channels(mask: u8) -> Vec<usize> {
        (0..4).filter(|c| mask >> c & 1 != 0).collect()
    }

    /// Source `s` read for output channels `chans`, modifiers applied.
    pub fn src(&mut self, s: &Src, chans: &[usize]) -> Result<E, Error> {
        let comps: Vec<usize> = chans.iter().map(|&c| s.swizzle.get(c)).collect();
        if let Some(vals) = self.literal_values(s, &comps) {
            return Ok(vals);
        }
        let base = self.read(s.reg, s.relative, &comps)?;
        Ok(match s.modifier {
            SrcModifier::None => base,
            SrcModifier::Neg => base.neg(),
            SrcModifier::Abs => base.call("abs"),
            SrcModifier::AbsNeg => base.call("abs").neg(),
            SrcModifier::Bias => expr::bin(&base, "-", &E::atom("0.5", 1), ADD),
            SrcModifier::BiasNeg => expr::bin(&E::atom("0.5", 1), "-", &base, ADD),
            SrcModifier::Sign => {
                let two = expr::mul(&E::atom("2", 1), &base);
                expr::bin(&two, "-", &E::atom("1", 1), ADD)
            }
            SrcModifier::SignNeg => {
                let two = expr::mul(&E::atom("2", 1), &base);
                expr::bin(&E::atom("1", 1), "-", &two, ADD)
            }
            SrcModifier::Comp => expr::bin(&E::atom("1", 1), "-", &base, ADD),
            SrcModifier::X2 => expr::mul(&E::atom("2", 1), &base),
            SrcModifier::X2Neg => expr::mul(&E::atom("-2", 1), &base),
            SrcModifier::Dz | SrcModifier::Dw => {
                let by = if s.modifier == SrcModifier::Dz { 2 } else { 3 };
                let d = self.read(s.reg, s.relative, &[by])?;
                expr::div(&base, &d)
            }
            SrcModifier::Not => E::new(format!("!{}", base.at(UNARY)), UNARY, base.w),
        })
    }

    /// A source that is a `def` constant (no relative address): its values, modifier
    /// applied, as a literal.
    fn literal_values(&self, s: &Src, comps: &[usize]) -> Option<E> {
        if s.reg.kind != RegisterKind::Const || s.relative.is_some() {
            return None;
        }
        let v = self.defs.float.get(&s.reg.number)?;
        let f = |x: f32| -> Option<f32> {
            Some(match s.modifier {
                SrcModifier::None => x,
                SrcModifier::Neg => -x,
                SrcModifier::Abs => x.abs(),
                SrcModifier::AbsNeg => -x.abs(),
                SrcModifier::X2 => 2.0 * x,
                SrcModifier::X2Neg => -2.0 * x,
                SrcModifier::Comp => 1.0 - x,
                SrcModifier::Bias => x - 0.5,
                SrcModifier::BiasNeg => -(x - 0.5),
                SrcModifier::Sign => 2.0 * x - 1.0,
                SrcModifier::SignNeg => -(2.0 * x - 1.0),
                _ => return None,
            })
        };
        let vals: Option<Vec<f32>> = comps.iter().map(|&c| f(v[c])).collect();
        Some(literal_splat(&vals?))
    }

    /// Register `reg` (relatively addressed by `rel`) read at components `comps`.
    pub fn read(
        &mut self,
        reg: Register,
        rel: Option<Relative>,
        comps: &[usize],
    ) -> Result<E, Error> {
        use RegisterKind as K;
        let v = self.shader.version;
        if let Some(r) = rel
            && reg.kind == K::Input
        {
            let index = self.index(r)?;
            self.input_array = true;
            let i = if reg.number == 0 {
                index
            } else {
                format!("{index} + {}", reg.number)
            };
            return Ok(E::atom(format!("v[{i}]"), 4).swizzle(comps));
        }
        if let Some(r) = rel {
            if reg.kind != K::Const {
                return Err(Error::Unsupported(Unsupported::RelativeAddressing(
                    reg.kind,
                )));
            }
            let index = self.index(r)?;
            let mut e = self
                .uniforms
                .relative(&index, reg.number)
                .ok_or(Error::Unsupported(Unsupported::RelativeOutsideArrays(
                    reg.number,
                )))?;
            // A relative read sees the shader's `def`s: the array with them written over.
            // (Defs below the base are reached only by a negative index: not overlaid.)
            // With the table, a read outside its arrays reads the copy of the register file.
            if e.s.starts_with("c[")
                && (self.uniforms.file_copy || self.defs.float.range(reg.number..).next().is_some())
            {
                self.def_overlay = true;
                let inner = e.s.get(2..e.s.len().saturating_sub(1)).unwrap_or("0");
                e.s = format!("cd_at({inner})");
            }
            return Ok(e.swizzle(comps));
        }
        Ok(match reg.kind {
            K::Temp => {
                if let Some((e, chans)) = self.pending.get(&reg.number) {
                    let at: Option<Vec<usize>> = comps
                        .iter()
                        .map(|c| chans.iter().position(|x| x == c))
                        .collect();
                    if let Some(at) = at {
                        let v = if e.w == 1 && !e.splat {
                            e.clone().splat(comps.len())
                        } else {
                            e.swizzle(&at)
                        };
                        return Ok(v);
                    }
                }
                let mask = comps.iter().fold(0u8, |m, &c| m | 1 << c);
                self.temp(reg.number, mask).read(comps)
            }
            K::Texture if v.is_pixel() && v.major == 1 && v.minor < 4 => {
                View::full(format!("t{}", reg.number)).read(comps)
            }
            K::Input | K::Texture | K::MiscType => match self.io.read.get(&reg) {
                Some(view) => view.read(comps),
                None => literal(&vec![0.0; comps.len()]),
            },
            K::Const => match self.defs.float.get(&reg.number) {
                Some(vals) => literal(&comps.iter().map(|&c| vals[c]).collect::<Vec<_>>()),
                None => match self.uniforms.float.get(&reg.number) {
                    Some(view) => view.read(comps),
                    None => literal(&vec![0.0; comps.len()]),
                },
            },
            K::ConstBool => E::atom(self.bool_reg(reg.number), 1),
            K::ConstInt => {
                let base = self.int_reg(reg.number);
                E::atom(base, 4).swizzle(comps)
            }
            K::Predicate => {
                self.uses_p0 = true;
                E::atom(format!("p0.{}", swizzle_text(comps)), comps.len())
            }
            K::Loop => E::atom(self.loop_counter()?, 1),
            K::Addr if v.is_vertex() => {
                self.uses_a0 = true;
                E::atom(format!("a0.{}", swizzle_text(comps)), comps.len())
            }
            _ => {
                return Err(Error::Unsupported(Unsupported::Reading(reg.kind)));
            }
        })
    }

    /// The variable of temporary `r{n}` (its [`Shape`]), noting components `mask` as
    /// read or written.
    pub fn temp(&mut self, n: u32, mask: u8) -> View {
        self.temps.insert(n);
        *self.touched.entry(n).or_insert(0) |= mask;
        let shape = self.shapes.get(&n).copied().unwrap_or(Shape::FULL);
        View(vec![Seg {
            expr: E::atom(shape.name(n), shape.width),
            first: shape.first,
            width: shape.width,
        }])
    }

    /// The `bool` expression of `b#`.
    pub fn bool_reg(&self, n: u32) -> String {
        match self.defs.bool_.get(&n) {
            Some(b) => b.to_string(),
            None => self
                .uniforms
                .bool_
                .get(&n)
                .cloned()
                .unwrap_or_else(|| format!("b{n}")),
        }
    }

    /// The `int4` expression of `i#` (a literal for a `defi`).
    pub fn int_reg(&self, n: u32) -> String {
        match self.defs.int.get(&n) {
            Some(v) => format!("int4({}, {}, {}, {})", v[0], v[1], v[2], v[3]),
            None => self
                .uniforms
                .int
                .get(&n)
                .cloned()
                .unwrap_or_else(|| format!("i{n}")),
        }
    }

    /// The counter of the innermost loop.
    pub fn loop_counter(&self) -> Result<String, Error> {
        self.loops
            .last()
            .cloned()
            .or_else(|| self.outer_al.clone())
            .ok_or(Error::Unsupported(Unsupported::LoopCounterOutsideLoop))
    }

    /// The `int` index expression of a relative address.
    fn index(&mut self, r: Relative) -> Result<String, Error> {
        match r.reg.kind {
            RegisterKind::Addr => {
                self.uses_a0 = true;
                Ok(format!("a0.{}", expr::XYZW[r.swizzle.get(0)]))
            }
            RegisterKind::Loop => self.loop_counter(),
            k => Err(Error::Unsupported(Unsupported::RelativeIndex(k))),
        }
    }

    /// The view of a destination register.
    fn dst_view(&mut self, d: &Dst) -> Result<View, Error> {
        use RegisterKind as K;
        let v = self.shader.version;
        if d.relative.is_some() {
            return Err(Error::Unsupported(Unsupported::RelativeDestination));
        }
        Ok(match d.reg.kind {
            K::Temp => self.temp(d.reg.number, d.mask.0),
            K::Texture if v.is_pixel() && v.major == 1 => View::full(format!("t{}", d.reg.number)),
            K::Addr if v.is_vertex() => {
                self.uses_a0 = true;
                View::full("a0")
            }
            K::Predicate => {
                self.uses_p0 = true;
                View::full("p0")
            }
            K::RastOut | K::AttrOut | K::TexCrdOut | K::Output | K::ColorOut | K::DepthOut => self
                .io
                .write
                .get(&d.reg)
                .cloned()
                .ok_or(Error::Unsupported(Unsupported::UndeclaredOutput(d.reg)))?,
            k => return Err(Error::Unsupported(Unsupported::Writing(k))),
        })
    }

    /// Fold `inst`'s value into its one reader instead of writing it (the plan found that
    /// reader): `None` writes it after all (a value too long to repeat inline).
    pub fn defer(&mut self, inst: &Instruction) -> Result<Option<Vec<String>>, Error> {
        let Some(v) = self.value(inst)? else {
            return Ok(None);
        };
        let Some(d) = inst.dst else { return Ok(None) };
        self.pending.remove(&d.reg.number);
        if v.s.len() > INLINE_LIMIT {
            return self.assign(inst, v).map(Some);
        }
        let v = if d.saturate() {
            E::atom(format!("saturate({})", v.s), v.w)
        } else {
            v
        };
        self.pending
            .insert(d.reg.number, (v, Self::channels(d.mask.0)));
        Ok(Some(Vec::new()))
    }

    /// The statements that write `value` (one component per channel of `inst`'s mask, or
    /// one scalar for all) to `inst`'s destination, with its result modifiers and predicate.
    /// [`convert_to`], noting the helper it calls.
    fn convert(&mut self, kind: RegisterKind, v: &E, w: usize) -> E {
        let (e, round) = convert_to(kind, v, w);
        if round {
            self.helpers.insert(Helper::Round);
        }
        e
    }

    pub fn assign(&mut self, inst: &Instruction, value: E) -> Result<Vec<String>, Error> {
        let d = inst
            .dst
            .ok_or(Error::Unsupported(Unsupported::MissingDestination))?;
        let chans = Self::channels(d.mask.0);
        let mut value = value;
        value = match d.shift & 0xF {
            0 => value,
            s @ 1..=3 => expr::mul(&value, &E::atom((1u32 << s).to_string(), 1)),
            s => expr::div(&value, &E::atom((1u32 << (16 - s)).to_string(), 1)),
        };
        if d.saturate() {
            value = E::atom(format!("saturate({})", value.s), value.w);
        }
        if d.reg.kind == RegisterKind::Temp {
            self.pending.remove(&d.reg.number);
        }
        let view = self.dst_view(&d)?;
        let writes = view.writes(&chans);
        let pred = match inst.predicate {
            Some(p) => {
                self.uses_p0 = true;
                let not = if p.modifier == SrcModifier::Not {
                    "!"
                } else {
                    ""
                };
                let comps: Vec<usize> = chans.iter().map(|&c| p.swizzle.get(c)).collect();
                Some((not, comps))
            }
            None => None,
        };
        let uniform_pred = pred
            .as_ref()
            .is_none_or(|(_, c)| c.iter().all(|&x| x == c[0]));
        if writes.len() == 1 && uniform_pred {
            let (lv, idx) = &writes[0];
            let rhs = if value.w == 1 || idx.len() == value.w {
                value
            } else {
                value.swizzle(idx)
            };
            let stmt = format!("{lv} = {};", self.convert(d.reg.kind, &rhs, idx.len()).s);
            return Ok(match pred {
                Some((not, comps)) => {
                    vec![format!("if ({not}p0.{}) {stmt}", expr::XYZW[comps[0]])]
                }
                None => vec![stmt],
            });
        }
        // Several targets or a per-channel predicate: the value once into a temporary.
        self.tmp_serial += 1;
        let t = format!("t_{}", self.tmp_serial);
        let w = chans.len();
        let mut out = vec![format!(
            "{{ {} {t} = {};",
            float_ty(w),
            if value.w == 1 || value.w == w {
                value.s.clone()
            } else {
                value.swizzle(&(0..w).collect::<Vec<_>>()).s
            }
        )];
        for (lv, idx) in writes {
            if let Some((not, comps)) = &pred {
                for (k, &i) in idx.iter().enumerate() {
                    let lvk = single_component(&lv, k, idx.len());
                    let tv = if w == 1 {
                        t.clone()
                    } else {
                        format!("{t}.{}", expr::XYZW[i])
                    };
                    out.push(format!(
                        "  if ({not}p0.{}) {lvk} = {};",
                        expr::XYZW[comps[i]],
                        self.convert(d.reg.kind, &E::atom(tv, 1), 1).s
                    ));
                }
            } else {
                let tv = if w == 1 {
                    E::atom(t.clone(), 1)
                } else {
                    E::atom(t.clone(), w).swizzle(&idx)
                };
                out.push(format!(
                    "  {lv} = {};",
                    self.convert(d.reg.kind, &tv, idx.len()).s
                ));
            }
        }
        out.push("}".into());
        Ok(out)
    }
}

/// The longest expression folded into its reader (longer ones get a statement).
const INLINE_LIMIT: usize = 100;

/// Component `k` of an lvalue of `n` components: a swizzled `base.xyz`, a whole variable
/// (`r0` of a narrowed temporary: `r0.y`) or a member (`o.texcoord0[1]`).
fn single_component(lv: &str, k: usize, n: usize) -> String {
    if n == 1 {
        return lv.to_string();
    }
    match lv.rsplit_once('.') {
        Some((base, sw)) if sw.len() == n && sw.chars().all(|c| expr::XYZW.contains(&c)) => {
            format!("{base}.{}", &sw[k..k + 1])
        }
        None if lv.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
            format!("{lv}.{}", expr::XYZW[k])
        }
        _ => format!("{lv}[{k}]"),
    }
}

/// A value converted for a destination file: `a0` takes ints (`mova` rounds to nearest,
/// halves to even: the `dx9_round` helper; vs_1_1's `mov a0.x` floors), `p0` bools.
fn convert_to(kind: RegisterKind, v: &E, w: usize) -> (E, bool) {
    match kind {
        RegisterKind::Addr => {
            let ty = if w == 1 {
                "int".to_string()
            } else {
                format!("int{w}")
            };
            if v.s.starts_with("floor(") && v.p == ATOM {
                return (E::new(format!("({ty}){}", v.s), UNARY, w), false);
            }
            (E::new(format!("({ty})dx9_round({})", v.s), UNARY, w), true)
        }
        _ => (v.clone(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_is_the_run_from_the_first_to_the_last_component_touched() {
        let s = |first, width| Some(Shape { first, width });
        assert_eq!(Shape::covering(0b0001), s(0, 1));
        assert_eq!(Shape::covering(0b0011), s(0, 2));
        assert_eq!(Shape::covering(0b0111), s(0, 3));
        assert_eq!(Shape::covering(0b0101), s(0, 3));
        assert_eq!(Shape::covering(0b1001), Some(Shape::FULL));
        assert_eq!(Shape::covering(0b1000), s(3, 1));
        assert_eq!(Shape::covering(0b0110), s(1, 2));
        assert_eq!(Shape::covering(0), None);
        let zw = Shape { first: 2, width: 2 };
        assert!(zw.holds(0b1100) && zw.holds(0b0100));
        assert!(!zw.holds(0b0010) && !zw.holds(0b1001));
        assert!(Shape::FULL.holds(0b1111));
        assert_eq!(zw.name(1), "r1_zw");
        assert_eq!(Shape { first: 3, width: 1 }.name(12), "r12_w");
        assert_eq!(Shape { first: 0, width: 3 }.name(0), "r0");
    }

    #[test]
    fn one_component_of_a_whole_lvalue_is_named() {
        assert_eq!(single_component("r0.xz", 1, 2), "r0.z");
        assert_eq!(single_component("r0", 1, 2), "r0.y");
        assert_eq!(single_component("r1_zw", 0, 2), "r1_zw.x");
        assert_eq!(single_component("o.texcoord0", 2, 4), "o.texcoord0[2]");
        assert_eq!(single_component("o.fog", 0, 1), "o.fog");
    }
}
