//! The instruction-emission layer: register names, compare predicates, `vfixupimmps`
//! responses, mask-register operands, and the constant pool the code reads through rbp.

use super::*;

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

    /// A broadcast memory operand of the constant with these bits.
    pub(super) fn kb(&mut self, bits: u32) -> AsmMemoryOperand {
        let at = self.pool_at(bits);
        dword_bcst(rbp + at)
    }

    pub(super) fn kf(&mut self, x: f32) -> AsmMemoryOperand {
        self.kb(x.to_bits())
    }

    /// A 32-bit memory operand of the constant (for `vbroadcastss`).
    pub(super) fn km(&mut self, x: f32) -> AsmMemoryOperand {
        let at = self.pool_at(x.to_bits());
        dword_ptr(rbp + at)
    }

    /// Sixteen 32-bit words as one 64-byte vector in the pool (once per distinct vector; not
    /// deduplicated word by word: the sixteen must be consecutive).
    pub(super) fn vector(&mut self, words: [u32; 16]) -> AsmMemoryOperand {
        let at = match self.vectors.get(&words) {
            Some(&at) => at,
            None => {
                let at = self.pool.len();
                self.pool.extend(words);
                self.vectors.insert(words, at);
                at
            }
        };
        zmmword_ptr(rbp + at as i32 * 4)
    }

    /// 0, 1, .., 15 as one 64-byte vector in the pool.
    pub(super) fn iota(&mut self) -> AsmMemoryOperand {
        self.vector(std::array::from_fn(|l| l as u32))
    }
}
