//! The instruction-emission layer: the vector width ([`Width`], and [`vx!`] to emit an
//! instruction at it), register names, compare predicates, `vfixupimmps` responses,
//! mask-register operands, and the constant pool the code reads through rbp.

use super::*;

/// The vector width the generator emits: AVX-512 (16 lanes in 32 zmm registers, k-masks) or
/// AVX2 (8 lanes in 16 ymm registers; masks are vector registers of all-ones lanes). Every
/// formula, the register cache and liveness are the same source at both widths; an
/// instruction names its registers through [`vx!`], which picks the width's register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Width {
    Zmm,
    Ymm,
}

impl Width {
    /// Lanes per vector register.
    pub(super) const fn lanes(self) -> u32 {
        match self {
            Width::Zmm => 16,
            Width::Ymm => 8,
        }
    }

    /// Bytes per vector register (one group's slice of an arena row).
    pub(super) const fn bytes(self) -> i32 {
        self.lanes() as i32 * 4
    }

    /// Vector registers the cache may use.
    pub(super) const fn regs(self) -> usize {
        match self {
            Width::Zmm => 32,
            Width::Ymm => 16,
        }
    }
}

/// A set of lanes: a k register (AVX-512), or a vector register whose lanes are all ones
/// or all zeros (AVX2; a temporary, freed with [`Gen::free_mask`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mask {
    K(u8),
    V(V),
}

/// Vector register `v` as an operand of [`vx!`] (zmm or ymm by the width).
#[derive(Clone, Copy)]
pub(super) struct Vr(pub V);

/// An operand of [`vx!`] at the width `W` ([`Z`] or [`Y`]): vector registers become that
/// width's, memory operands and immediates stay what they are.
pub(super) trait At<W> {
    type Out;
    fn at(self) -> Self::Out;
}
pub(super) struct Z;
pub(super) struct Y;
impl At<Z> for Vr {
    type Out = AsmRegisterZmm;
    fn at(self) -> AsmRegisterZmm {
        ZMM[self.0]
    }
}
impl At<Y> for Vr {
    type Out = AsmRegisterYmm;
    fn at(self) -> AsmRegisterYmm {
        YMM[self.0]
    }
}
impl<W> At<W> for AsmMemoryOperand {
    type Out = AsmMemoryOperand;
    fn at(self) -> AsmMemoryOperand {
        self
    }
}
impl<W> At<W> for i32 {
    type Out = i32;
    fn at(self) -> i32 {
        self
    }
}
impl<W> At<W> for u32 {
    type Out = u32;
    fn at(self) -> u32 {
        self
    }
}

/// `vx!(gen, op(operands))`: emit `op` at `gen`'s width, each `Vr(v)` operand the width's
/// register `v`; `vx!(gen, zop | yop(operands))` where the two widths spell the
/// instruction differently (`vpandd` is AVX-512's, `vpand` AVX2's).
macro_rules! vx {
    ($g:expr, $op:ident ( $($arg:expr),* $(,)? )) => {
        vx!($g, $op | $op ( $($arg),* ))
    };
    ($g:expr, $z:ident | $y:ident ( $($arg:expr),* $(,)? )) => {
        match $g.w {
            Width::Zmm => $g.a.$z($(<_ as At<Z>>::at($arg)),*),
            Width::Ymm => $g.a.$y($(<_ as At<Y>>::at($arg)),*),
        }
    };
}
pub(super) use vx;

/// `k1{k}`: a compare into k1 that keeps only the lanes `k` has.
pub(super) fn mk_k(k: usize) -> AsmRegisterK {
    match k {
        2 => k1.k2(),
        3 => k1.k3(),
        4 => k1.k4(),
        5 => k1.k5(),
        6 => k1.k6(),
        _ => k1.k7(),
    }
}

/// `reg{k}` (merge masking).
pub(super) fn mk(z: AsmRegisterZmm, k: u8) -> AsmRegisterZmm {
    match k {
        1 => z.k1(),
        2 => z.k2(),
        3 => z.k3(),
        4 => z.k4(),
        5 => z.k5(),
        6 => z.k6(),
        _ => z.k7(),
    }
}

pub(super) const KREG: [AsmRegisterK; 8] = [k0, k1, k2, k3, k4, k5, k6, k7];

pub(super) const ZMM: [AsmRegisterZmm; 32] = [
    zmm0, zmm1, zmm2, zmm3, zmm4, zmm5, zmm6, zmm7, zmm8, zmm9, zmm10, zmm11, zmm12, zmm13, zmm14,
    zmm15, zmm16, zmm17, zmm18, zmm19, zmm20, zmm21, zmm22, zmm23, zmm24, zmm25, zmm26, zmm27,
    zmm28, zmm29, zmm30, zmm31,
];

pub(super) const XMM: [AsmRegisterXmm; 32] = [
    xmm0, xmm1, xmm2, xmm3, xmm4, xmm5, xmm6, xmm7, xmm8, xmm9, xmm10, xmm11, xmm12, xmm13, xmm14,
    xmm15, xmm16, xmm17, xmm18, xmm19, xmm20, xmm21, xmm22, xmm23, xmm24, xmm25, xmm26, xmm27,
    xmm28, xmm29, xmm30, xmm31,
];

pub(super) const YMM: [AsmRegisterYmm; 32] = [
    ymm0, ymm1, ymm2, ymm3, ymm4, ymm5, ymm6, ymm7, ymm8, ymm9, ymm10, ymm11, ymm12, ymm13, ymm14,
    ymm15, ymm16, ymm17, ymm18, ymm19, ymm20, ymm21, ymm22, ymm23, ymm24, ymm25, ymm26, ymm27,
    ymm28, ymm29, ymm30, ymm31,
];

// vcmpps predicates.
pub(super) const EQ: i32 = 0x00;
pub(super) const LT: i32 = 0x11;
pub(super) const LE: i32 = 0x12;
pub(super) const UNORD: i32 = 0x03;
pub(super) const NEQ: i32 = 0x04;
pub(super) const GE: i32 = 0x1D;
pub(super) const GT: i32 = 0x1E;

/// What [`Gen::fixup`] writes where its operand is ±0, and (`ZeroInf`) +inf: `vfixupimmps`
/// responses.
#[derive(Clone, Copy)]
pub(super) enum Fix {
    Zero(u32),
    ZeroInf(u32, u32),
}
pub(super) const FIX_NEG_INF: u32 = 0b0100;
pub(super) const FIX_POS_INF: u32 = 0b0101;
pub(super) const FIX_POS_ZERO: u32 = 0b1000;
pub(super) const FIX_MAX: u32 = 0b1110;
pub(super) const FIX_NEG_MAX: u32 = 0b1111;

impl Gen<'_> {
    // ---- constants -------------------------------------------------------------------

    pub(super) fn pool_at(&mut self, bits: u32) -> i32 {
        let next = self.pool.len();
        let i = *self.pool_index.entry(bits).or_insert(next);
        if i == next {
            self.pool.push(bits);
        }
        i as i32 * 4
    }

    /// A memory operand of the constant with these bits in every lane: broadcast from one
    /// word (AVX-512), a whole vector of them in the pool (AVX2 has no embedded broadcast).
    pub(super) fn kb(&mut self, bits: u32) -> AsmMemoryOperand {
        match self.w {
            Width::Zmm => {
                let at = self.pool_at(bits);
                dword_bcst(rbp + at)
            }
            Width::Ymm => self.vector(&[bits; 8]),
        }
    }

    pub(super) fn kf(&mut self, x: f32) -> AsmMemoryOperand {
        self.kb(x.to_bits())
    }

    /// A 32-bit memory operand of the constant (for `vbroadcastss`).
    pub(super) fn km(&mut self, x: f32) -> AsmMemoryOperand {
        let at = self.pool_at(x.to_bits());
        dword_ptr(rbp + at)
    }

    /// One vector register's worth of 32-bit words (16 or 8) as one vector in the pool
    /// (once per distinct vector; not deduplicated word by word: the words must be
    /// consecutive).
    pub(super) fn vector(&mut self, words: &[u32]) -> AsmMemoryOperand {
        debug_assert_eq!(words.len(), self.w.lanes() as usize);
        let at = match self.vectors.get(words) {
            Some(&at) => at,
            None => {
                let at = self.pool.len();
                self.pool.extend(words);
                self.vectors.insert(words.to_vec(), at);
                at
            }
        };
        self.vmem(rbp + at as i32 * 4)
    }

    /// A memory operand one vector register wide.
    pub(super) fn vmem(&self, at: impl Into<AsmMemoryOperand>) -> AsmMemoryOperand {
        let at = at.into();
        match self.w {
            Width::Zmm => zmmword_ptr(at),
            Width::Ymm => ymmword_ptr(at),
        }
    }

    /// 0, 1, .., 15 as one 64-byte vector in the pool.
    pub(super) fn iota(&mut self) -> AsmMemoryOperand {
        let words: [u32; 16] = std::array::from_fn(|l| l as u32);
        self.vector(&words)
    }
}
