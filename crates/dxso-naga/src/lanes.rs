//! naga's instance of the instruction formulas' lane type ([`dxso::formula::Lanes`]): a
//! value is an `f32` expression of one shape (a scalar or a `vec4`), a mask a `bool`
//! expression of that shape, an integer an `i32` expression (the exp2/log2 bit work, in
//! scalars only).

use crate::func::{FnBuilder, H, Shape};
use crate::regs::Tr;
use dxso::formula::Lanes;
use dxso::ir::Comparison;
use naga::{BinaryOperator as B, MathFunction as M, ScalarKind};

/// Expressions of `shape` added to `fb`.
pub(crate) struct Exprs<'f> {
    pub fb: &'f mut FnBuilder,
    pub shape: Shape,
}

impl Tr {
    /// The formulas' lanes over this function's expressions of `shape`.
    pub(crate) fn lanes(&mut self, shape: Shape) -> Exprs<'_> {
        Exprs {
            fb: &mut self.fb,
            shape,
        }
    }
}

impl Lanes for Exprs<'_> {
    type V = H;
    type M = H;
    type I = H;

    fn k(&mut self, x: f32) -> H {
        self.fb.kf(x, self.shape)
    }
    fn add(&mut self, a: H, b: H) -> H {
        self.fb.add(a, b)
    }
    fn sub(&mut self, a: H, b: H) -> H {
        self.fb.sub(a, b)
    }
    fn fmul(&mut self, a: H, b: H) -> H {
        self.fb.fmul(a, b)
    }
    fn div(&mut self, a: H, b: H) -> H {
        self.fb.bin(B::Divide, a, b)
    }
    fn abs(&mut self, a: H) -> H {
        self.fb.math(M::Abs, a)
    }
    fn floor(&mut self, a: H) -> H {
        self.fb.math(M::Floor, a)
    }
    fn sqrt(&mut self, a: H) -> H {
        self.fb.math(M::Sqrt, a)
    }
    fn round_even(&mut self, a: H) -> H {
        // `round` rounds halves to even (SPIR-V RoundEven). The 1.5 * 2^23 trick would do
        // too, but a shader compiler may fold (x + k) - k into x.
        self.fb.math(M::Round, a)
    }
    fn cmp(&mut self, c: Comparison, a: H, b: H) -> H {
        self.fb.bin(comparison_op(c), a, b)
    }
    fn is_nan(&mut self, a: H) -> H {
        self.fb.bin(B::NotEqual, a, a)
    }
    fn and(&mut self, a: H, b: H) -> H {
        self.fb.bin(B::And, a, b)
    }
    fn or(&mut self, a: H, b: H) -> H {
        self.fb.bin(B::InclusiveOr, a, b)
    }
    fn select(&mut self, m: H, a: H, b: H) -> H {
        self.fb.select(m, a, b)
    }
    fn same(&self, a: H, b: H) -> bool {
        a == b
    }
    fn ik(&mut self, x: i32) -> H {
        self.fb.i32(x)
    }
    fn iadd(&mut self, a: H, b: H) -> H {
        self.fb.add(a, b)
    }
    fn isub(&mut self, a: H, b: H) -> H {
        self.fb.sub(a, b)
    }
    fn iand(&mut self, a: H, b: H) -> H {
        self.fb.bin(B::And, a, b)
    }
    fn ior(&mut self, a: H, b: H) -> H {
        self.fb.bin(B::InclusiveOr, a, b)
    }
    fn shl(&mut self, a: H, n: u32) -> H {
        let n = self.fb.u32(n);
        self.fb.bin(B::ShiftLeft, a, n)
    }
    fn sar(&mut self, a: H, n: u32) -> H {
        // `>>` of a signed integer is arithmetic.
        let n = self.fb.u32(n);
        self.fb.bin(B::ShiftRight, a, n)
    }
    fn shr(&mut self, a: H, n: u32) -> H {
        let u = self.fb.bitcast(a, ScalarKind::Uint);
        let n = self.fb.u32(n);
        let s = self.fb.bin(B::ShiftRight, u, n);
        self.fb.bitcast(s, ScalarKind::Sint)
    }
    fn iselect(&mut self, m: H, a: H, b: H) -> H {
        self.fb.select(m, a, b)
    }
    fn to_int(&mut self, a: H) -> H {
        // NaN to 0 first, as Rust's `as` does (a conversion of NaN is undefined here).
        let nan = self.fb.bin(B::NotEqual, a, a);
        let z = self.fb.f32(0.0);
        let a = self.fb.select(nan, z, a);
        self.fb.convert(a, ScalarKind::Sint)
    }
    fn to_float(&mut self, a: H) -> H {
        self.fb.convert(a, ScalarKind::Float)
    }
    fn bits(&mut self, a: H) -> H {
        self.fb.bitcast(a, ScalarKind::Sint)
    }
    fn float_of_bits(&mut self, a: H) -> H {
        self.fb.bitcast(a, ScalarKind::Float)
    }
}

/// naga's operator for a D3D9 comparison (IEEE ordered: NaN gives false except for `ne`, C7).
pub(crate) fn comparison_op(c: Comparison) -> B {
    match c {
        Comparison::Gt => B::Greater,
        Comparison::Eq => B::Equal,
        Comparison::Ge => B::GreaterEqual,
        Comparison::Lt => B::Less,
        Comparison::Ne => B::NotEqual,
        Comparison::Le => B::LessEqual,
    }
}
