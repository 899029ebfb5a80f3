//! The interpreter's lane type: a batch row, and the instruction formulas of
//! [`dxso::formula`] at one `f32` ([`Scalar`]), which the executor's lane loops inline and
//! the compiler vectorises. No formula is written here: each is `dxso::formula`'s.

use crate::LANES;
pub(crate) use dxso::formula::Scalar;

/// One component of a register over a batch (one lane per vertex).
pub(crate) type Row = [f32; LANES];

/// The D3D9 product ([`dxso::formula::mul`], C8) of one lane.
#[inline(always)]
pub(crate) fn mul(a: f32, b: f32) -> f32 {
    dxso::formula::mul(&mut Scalar, a, b)
}

/// [`dxso::formula::rcp`] (C5) of one lane: also the ps_1_x projections' divisor.
#[inline(always)]
pub(crate) fn rcp(x: f32) -> f32 {
    dxso::formula::rcp(&mut Scalar, x)
}
