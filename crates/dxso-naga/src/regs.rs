//! The translator's state and register access: reading a source operand (register file,
//! relative address with its bounds check, swizzle, modifier) and writing a destination
//! (result modifiers, write mask, predicate).

use crate::func::{FnBuilder, H, Shape, vec4};
use crate::{Error, FloatMode};
use dxso::ir::{Dst, Instruction, Register, RegisterKind, Src, SrcModifier, Version};
use naga::{BinaryOperator, MathFunction, Module, Scalar, ScalarKind};
use std::collections::HashMap;

/// One texture register: the texture and sampler globals and the texture's dimension.
#[derive(Clone, Copy)]
pub(crate) struct SamplerRef {
    pub texture: H,
    pub sampler: H,
    pub dim: naga::ImageDimension,
}

/// A uniform buffer of registers: its global (a pointer expression) and register count.
#[derive(Clone, Copy)]
pub(crate) struct Buffer {
    pub ptr: H,
    pub registers: u32,
}

pub(crate) struct Tr {
    pub m: Module,
    pub fb: FnBuilder,
    pub strict: bool,
    pub version: Version,
    /// Pointers to the locals of temporaries and outputs.
    pub temps: HashMap<u32, H>,
    pub outputs: Vec<(Register, H)>,
    /// Values of the input registers (members of the body's argument).
    pub inputs: Vec<(Register, H)>,
    pub a0: H,
    pub al: H,
    pub p0: H,
    pub consts: Option<Buffer>,
    pub ints: Option<Buffer>,
    pub bools: Option<Buffer>,
    pub defs: HashMap<u32, [u32; 4]>,
    pub defis: HashMap<u32, [u32; 4]>,
    pub defbs: HashMap<u32, bool>,
    pub samplers: HashMap<u32, SamplerRef>,
    /// The instruction being translated (for errors).
    pub at: usize,
    /// Each label's instruction index (the first, if a label is repeated).
    pub labels: HashMap<u32, usize>,
    /// Instructions translated so far, each inlined copy counted
    /// ([`crate::MAX_TRANSLATED_INSTRUCTIONS`]).
    pub translated: usize,
    /// ps_1_x: held writes (co-issue), texture coordinates, parameters.
    pub ps1: crate::ps1x::State,
}

/// A zero-initialised local variable; returns its pointer expression.
pub(crate) fn make_local(
    m: &mut Module,
    fb: &mut FnBuilder,
    name: &str,
    inner: naga::TypeInner,
) -> H {
    let ty = crate::func::ty(m, inner);
    let init = fb.expr(naga::Expression::ZeroValue(ty));
    let lv = fb.f.local_variables.append(
        naga::LocalVariable {
            name: Some(name.to_string()),
            ty,
            init: Some(init),
        },
        naga::Span::UNDEFINED,
    );
    fb.expr(naga::Expression::LocalVariable(lv))
}

impl Tr {
    pub fn new(m: Module, fb: FnBuilder, mode: FloatMode, version: Version) -> Tr {
        let (mut m, mut fb) = (m, fb);
        let a0 = make_local(&mut m, &mut fb, "a0", vec4(Scalar::I32));
        let al = make_local(&mut m, &mut fb, "aL", naga::TypeInner::Scalar(Scalar::I32));
        let p0 = make_local(&mut m, &mut fb, "p0", vec4(Scalar::BOOL));
        Tr {
            m,
            fb,
            strict: mode == FloatMode::Strict,
            version,
            temps: HashMap::new(),
            outputs: Vec::new(),
            inputs: Vec::new(),
            a0,
            al,
            p0,
            consts: None,
            ints: None,
            bools: None,
            defs: HashMap::new(),
            defis: HashMap::new(),
            defbs: HashMap::new(),
            samplers: HashMap::new(),
            at: 0,
            labels: HashMap::new(),
            translated: 0,
            ps1: Default::default(),
        }
    }

    /// A zero-initialised local variable; returns its pointer expression.
    pub fn local(&mut self, name: &str, inner: naga::TypeInner) -> H {
        make_local(&mut self.m, &mut self.fb, name, inner)
    }

    pub fn unsupported(&self, inst: &Instruction) -> Error {
        Error::Unsupported {
            opcode: inst.opcode,
            control: inst.control,
            version: self.version,
        }
    }

    pub fn invalid(&self, what: impl Into<String>) -> Error {
        Error::Invalid {
            instruction: self.at,
            what: what.into(),
        }
    }

    /// The value of register `reg` (+ `offset` rows for the matrix macros), unswizzled.
    fn register(&mut self, s: &Src, offset: u32) -> Result<H, Error> {
        let number = s.reg.number + offset;
        if let Some(rel) = s.relative {
            return self.relative(s.reg.kind, number, rel);
        }
        Ok(match s.reg.kind {
            RegisterKind::Temp => {
                let p = self.temp(number);
                self.fb.load(p)
            }
            RegisterKind::Const => match self.defs.get(&number) {
                Some(&bits) => self.fb.vec4_bits(&mut self.m, bits),
                None => {
                    let c = self
                        .consts
                        .ok_or_else(|| self.invalid("no constant buffer"))?;
                    let p = self.fb.index(c.ptr, number);
                    self.fb.load(p)
                }
            },
            // ps_1_1 .. ps_1_3: `t#` is a local that texture instructions write.
            RegisterKind::Texture
                if self
                    .outputs
                    .iter()
                    .any(|o| o.0 == Register::new(s.reg.kind, number)) =>
            {
                let p = self.dst_ptr(&dxso::ir::Dst::new(Register::new(s.reg.kind, number)))?;
                self.fb.load(p)
            }
            RegisterKind::Input | RegisterKind::Texture | RegisterKind::MiscType => {
                match self
                    .inputs
                    .iter()
                    .find(|i| i.0 == Register::new(s.reg.kind, number))
                {
                    Some(i) => i.1,
                    // Undeclared inputs read 0 (the validator only lets ps_1_x do this).
                    None => self.fb.kf(0.0, Shape::Vec4),
                }
            }
            k => return Err(self.invalid(format!("reading {k:?}"))),
        })
    }

    pub fn temp(&mut self, n: u32) -> H {
        if let Some(&p) = self.temps.get(&n) {
            return p;
        }
        let p = self.local(&format!("r{n}"), vec4(Scalar::F32));
        self.temps.insert(n, p);
        p
    }

    /// The index of a relative operand: `number + a0.c` or `number + aL`, as `u32` (a
    /// negative index is huge: one comparison checks both ends). The register's bits as
    /// `u32` are made once per value of the register (and block), not once per read.
    fn address(&mut self, number: u32, rel: dxso::ir::Relative) -> H {
        let reg = if rel.reg.kind == RegisterKind::Loop {
            self.fb.load(self.al)
        } else {
            let a = self.fb.load(self.a0);
            self.fb.index(a, rel.swizzle.get(0) as u32)
        };
        let reg = self.fb.bitcast(reg, ScalarKind::Uint);
        if number == 0 {
            return reg;
        }
        // Wrapping, as the i32 sum's bits.
        let base = self.fb.u32(number);
        self.fb.add(reg, base)
    }

    /// A relative read: 0 outside the register file (C4), explicitly.
    fn relative(
        &mut self,
        kind: RegisterKind,
        number: u32,
        rel: dxso::ir::Relative,
    ) -> Result<H, Error> {
        let u = self.address(number, rel);
        match kind {
            RegisterKind::Const => {
                let c = self
                    .consts
                    .ok_or_else(|| self.invalid("no constant buffer"))?;
                let n = self.fb.u32(c.registers);
                let inside = self.fb.bin(BinaryOperator::Less, u, n);
                let last = self.fb.u32(c.registers - 1);
                let clamped = self.fb.math_n(MathFunction::Min, u, Some(last), None);
                let p = self.fb.expr(naga::Expression::Access {
                    base: c.ptr,
                    index: clamped,
                });
                let v = self.fb.load(p);
                let zero = self.fb.kf(0.0, Shape::Vec4);
                Ok(self.fb.select(inside, v, zero))
            }
            RegisterKind::Input | RegisterKind::Texture => {
                let mut acc = self.fb.kf(0.0, Shape::Vec4);
                for (reg, v) in self.inputs.clone() {
                    if reg.kind != kind {
                        continue;
                    }
                    let k = self.fb.u32(reg.number);
                    let hit = self.fb.bin(BinaryOperator::Equal, u, k);
                    acc = self.fb.select(hit, v, acc);
                }
                Ok(acc)
            }
            k => Err(self.invalid(format!("relative {k:?}"))),
        }
    }

    /// A source operand: register, swizzle and modifier, as `vec4<f32>`.
    pub fn src(&mut self, s: &Src) -> Result<H, Error> {
        self.src_at(s, 0)
    }

    /// Row `offset` of a matrix operand (`c4` of `m4x4 r0, v0, c4` at offset 1 is c5).
    pub fn src_at(&mut self, s: &Src, offset: u32) -> Result<H, Error> {
        let v = self.register(s, offset)?;
        let sw = [0, 1, 2, 3].map(|c| s.swizzle.get(c) as u8);
        let v = self.fb.swizzle(v, sw);
        self.modifier(v, s.modifier)
    }

    fn modifier(&mut self, v: H, m: SrcModifier) -> Result<H, Error> {
        let (neg, base) = m.split_negate();
        let v = match base {
            SrcModifier::None => v,
            SrcModifier::Abs => self.fb.math(MathFunction::Abs, v),
            SrcModifier::Bias => dxso::formula::bias(&mut self.lanes(Shape::Vec4), v),
            // _bx2
            SrcModifier::Sign => dxso::formula::bx2(&mut self.lanes(Shape::Vec4), v),
            SrcModifier::Comp => dxso::formula::comp(&mut self.lanes(Shape::Vec4), v),
            SrcModifier::X2 => dxso::formula::scale(&mut self.lanes(Shape::Vec4), v, 2.0),
            // _dz / _db: x / z; _dw / _da: x / w (ps_1_4 texld / texcrd: x and y only)
            SrcModifier::Dz | SrcModifier::Dw => {
                let c = if base == SrcModifier::Dz { 2 } else { 3 };
                let d = self.fb.swizzle(v, [c; 4]);
                let q = self.fb.bin(BinaryOperator::Divide, v, d);
                let x = self.fb.index(q, 0);
                let y = self.fb.index(q, 1);
                let z = self.fb.index(v, 2);
                let w = self.fb.index(v, 3);
                self.fb
                    .compose(&mut self.m, vec4(Scalar::F32), vec![x, y, z, w])
            }
            SrcModifier::Not => return Err(self.invalid("_not on a value")),
            _ => v,
        };
        Ok(if neg { self.fb.neg(v) } else { v })
    }

    /// The destination's pointer (`None`: a0 and p0, which their instructions store).
    pub fn dst_ptr(&mut self, d: &Dst) -> Result<H, Error> {
        let reg = self.dst_register(d);
        if reg.kind == RegisterKind::Temp {
            return Ok(self.temp(reg.number));
        }
        self.outputs
            .iter()
            .find(|o| o.0 == reg)
            .map(|o| o.1)
            .ok_or_else(|| self.invalid(format!("writing {:?} {}", reg.kind, reg.number)))
    }

    /// The register a destination writes: itself (ps_1_x's colour is r0's final value,
    /// read when the body returns).
    pub fn dst_register(&self, d: &Dst) -> Register {
        d.reg
    }

    /// `_sat` (NaN gives 0 in Strict, C-choice of dxso-vm) and the ps_1_x shift.
    pub fn result_modifiers(&mut self, d: &Dst, v: H) -> H {
        let v = match d.shift {
            0 => v,
            s => {
                let scale = match s {
                    1 => 2.0,
                    2 => 4.0,
                    3 => 8.0,
                    15 => 0.5,
                    14 => 0.25,
                    13 => 0.125,
                    _ => 1.0,
                };
                dxso::formula::scale(&mut self.lanes(Shape::Vec4), v, scale)
            }
        };
        if !d.saturate() {
            return v;
        }
        if self.strict {
            dxso::formula::sat(&mut self.lanes(Shape::Vec4), v)
        } else {
            self.fb.math(MathFunction::Saturate, v)
        }
    }

    /// Merge `new` into `old` by the write mask and the predicate.
    pub fn merge(&mut self, inst: &Instruction, d: &Dst, old: H, new: H) -> H {
        let mask = d.mask.0;
        if mask == 0xF && inst.predicate.is_none() {
            return new;
        }
        let pred = inst.predicate.map(|p| {
            let v = self.fb.load(self.p0);
            (v, p)
        });
        let parts: Vec<H> = (0..4u32)
            .map(|c| {
                let o = self.fb.index(old, c);
                if mask >> c & 1 == 0 {
                    return o;
                }
                let n = self.fb.index(new, c);
                match pred {
                    None => n,
                    Some((p0, p)) => {
                        let b = self.fb.index(p0, p.swizzle.get(c as usize) as u32);
                        if p.modifier == SrcModifier::Not {
                            self.fb.select(b, o, n)
                        } else {
                            self.fb.select(b, n, o)
                        }
                    }
                }
            })
            .collect();
        self.fb.compose(&mut self.m, vec4(Scalar::F32), parts)
    }

    /// Store a `vec4<f32>` result into the destination of `inst`.
    pub fn write(&mut self, inst: &Instruction, v: H) -> Result<(), Error> {
        let d = inst.dst.ok_or_else(|| self.invalid("no destination"))?;
        let v = self.result_modifiers(&d, v);
        if d.reg.kind == RegisterKind::Addr {
            return self.write_a0(inst, &d, v);
        }
        if let Some(held) = self.ps1.held.as_mut() {
            // ps_1_x: stored when the next instruction that is not co-issued starts.
            held.push((inst.clone(), d, v));
            return Ok(());
        }
        if let Some(rel) = d.relative {
            // o[aL + n]: every output the index may name, each behind its test; writes
            // outside the file are dropped (C4).
            let idx = self.address(d.reg.number, rel);
            for (reg, ptr) in self.outputs.clone() {
                if reg.kind != d.reg.kind {
                    continue;
                }
                let k = self.fb.u32(reg.number);
                let hit = self.fb.bin(BinaryOperator::Equal, idx, k);
                self.fb.open();
                let old = self.fb.load(ptr);
                let new = self.merge(inst, &d, old, v);
                self.fb.store(ptr, new);
                let accept = self.fb.close();
                self.fb.stmt(naga::Statement::If {
                    condition: hit,
                    accept,
                    reject: naga::Block::new(),
                });
            }
            return Ok(());
        }
        let ptr = self.dst_ptr(&d)?;
        let new = match (d.mask.0, inst.predicate) {
            (0xF, None) => v,
            (mask @ (1 | 2 | 4 | 8), None) => {
                // One component: stored on its own, without the old value.
                let c = mask.trailing_zeros();
                let to = self.fb.index(ptr, c);
                let value = self.fb.index(v, c);
                self.fb.store(to, value);
                return Ok(());
            }
            _ => {
                let old = self.fb.load(ptr);
                self.merge(inst, &d, old, v)
            }
        };
        self.fb.store(ptr, new);
        Ok(())
    }

    /// a0: mova rounds half to even, saturating, NaN gives 0 (C3); vs_1_1 `mov a0` floors
    /// first (C2).
    fn write_a0(&mut self, inst: &Instruction, d: &Dst, v: H) -> Result<(), Error> {
        let floor = inst.opcode == dxso::Opcode::Mov && self.version.major < 2;
        let r = if floor {
            self.fb.math(MathFunction::Floor, v)
        } else {
            self.fb.math(MathFunction::Round, v)
        };
        let lo = self.fb.kf(-2_147_483_648.0, Shape::Vec4);
        let hi = self.fb.kf(2_147_483_520.0, Shape::Vec4);
        let c = self.fb.math_n(MathFunction::Clamp, r, Some(lo), Some(hi));
        let nan = self.fb.bin(BinaryOperator::NotEqual, v, v);
        let zero = self.fb.kf(0.0, Shape::Vec4);
        let c = self.fb.select(nan, zero, c);
        let i = self.fb.convert(c, ScalarKind::Sint);
        let old = self.fb.load(self.a0);
        let mask = d.mask.0;
        let new = if mask == 0xF && inst.predicate.is_none() {
            i
        } else {
            let pred = inst.predicate;
            let p0 = pred.map(|_| self.fb.load(self.p0));
            let parts: Vec<H> = (0..4u32)
                .map(|c| {
                    let o = self.fb.index(old, c);
                    if mask >> c & 1 == 0 {
                        return o;
                    }
                    let n = self.fb.index(i, c);
                    match (pred, p0) {
                        (Some(p), Some(p0)) => {
                            let b = self.fb.index(p0, p.swizzle.get(c as usize) as u32);
                            if p.modifier == SrcModifier::Not {
                                self.fb.select(b, o, n)
                            } else {
                                self.fb.select(b, n, o)
                            }
                        }
                        _ => n,
                    }
                })
                .collect();
            self.fb.compose(&mut self.m, vec4(Scalar::I32), parts)
        };
        self.fb.store(self.a0, new);
        Ok(())
    }
}
