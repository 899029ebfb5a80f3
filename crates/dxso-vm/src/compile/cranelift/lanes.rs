//! Cranelift's instance of the instruction formulas' lane type ([`dxso::formula::Lanes`]):
//! a value is an `f32x4` SSA value (one lane group), a mask and an integer an `i32x4`.

use super::*;
use dxso::formula::{Lanes, ROUNDER};

impl Lanes for Emitter<'_> {
    type V = Value;
    type M = Value;
    type I = Value;

    fn k(&mut self, x: f32) -> Value {
        self.f(x)
    }
    fn add(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fadd(a, b)
    }
    fn sub(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fsub(a, b)
    }
    fn fmul(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fmul(a, b)
    }
    fn div(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fdiv(a, b)
    }
    fn abs(&mut self, a: Value) -> Value {
        self.b.ins().fabs(a)
    }
    fn floor(&mut self, a: Value) -> Value {
        self.b.ins().floor(a)
    }
    fn sqrt(&mut self, a: Value) -> Value {
        self.b.ins().sqrt(a)
    }
    fn round_even(&mut self, a: Value) -> Value {
        // The 1.5 * 2^23 trick: no SSE4.1 `roundps` needed.
        let big = self.f(ROUNDER);
        let n = self.b.ins().fadd(a, big);
        self.b.ins().fsub(n, big)
    }
    fn cmp(&mut self, c: Comparison, a: Value, b: Value) -> Value {
        self.b.ins().fcmp(float_cc(c), a, b)
    }
    fn is_nan(&mut self, a: Value) -> Value {
        self.b.ins().fcmp(FloatCC::Unordered, a, a)
    }
    fn and(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().band(a, b)
    }
    fn or(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().bor(a, b)
    }
    fn select(&mut self, m: Value, a: Value, b: Value) -> Value {
        self.sel(m, a, b)
    }
    fn same(&self, a: Value, b: Value) -> bool {
        a == b
    }
    fn ik(&mut self, x: i32) -> Value {
        self.i(x)
    }
    fn iadd(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().iadd(a, b)
    }
    fn isub(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().isub(a, b)
    }
    fn iand(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().band(a, b)
    }
    fn ior(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().bor(a, b)
    }
    fn shl(&mut self, a: Value, n: u32) -> Value {
        self.b.ins().ishl_imm_s(a, n as i64)
    }
    fn sar(&mut self, a: Value, n: u32) -> Value {
        self.b.ins().sshr_imm_s(a, n as i64)
    }
    fn shr(&mut self, a: Value, n: u32) -> Value {
        self.b.ins().ushr_imm_s(a, n as i64)
    }
    fn iselect(&mut self, m: Value, a: Value, b: Value) -> Value {
        self.b.ins().bitselect(m, a, b)
    }
    fn to_int(&mut self, a: Value) -> Value {
        self.b.ins().fcvt_to_sint_sat(I4, a)
    }
    fn to_float(&mut self, a: Value) -> Value {
        self.b.ins().fcvt_from_sint(F4, a)
    }
    fn bits(&mut self, a: Value) -> Value {
        self.as_i(a)
    }
    fn float_of_bits(&mut self, a: Value) -> Value {
        self.as_f(a)
    }
}

/// A D3D9 comparison as Cranelift's (ordered, but `ne` true for NaN, C7).
pub(super) fn float_cc(c: Comparison) -> FloatCC {
    match c {
        Comparison::Gt => FloatCC::GreaterThan,
        Comparison::Eq => FloatCC::Equal,
        Comparison::Ge => FloatCC::GreaterThanOrEqual,
        Comparison::Lt => FloatCC::LessThan,
        Comparison::Ne => FloatCC::NotEqual,
        Comparison::Le => FloatCC::LessThanOrEqual,
    }
}
