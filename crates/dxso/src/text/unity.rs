//! What the Unity 4 era listings (315 files of `../shared/corpus/dx9-asm`: Dreamfall Chapters,
//! Pineview Drive, The Last Tinker, Oddworld, Legends of Aethereus, ...) spell differently from
//! Microsoft's disassembler. Swizzles, masks of instructions and every mnemonic are the same;
//! three things differ:
//!
//! - `def` values print like C's `%.8f` from Microsoft's old C runtime (`0.50000000`,
//!   `255.00000000`; at most 17 significant digits, then zeros: `1e38` prints as
//!   `99999996802856925000000000000000000000.00000000`), except that a zero component no
//!   instruction reads prints as `0`: Unity's compiler filled the unused components of a
//!   constant with a plain `0` (`def c10, 0.50000000, 0, 0, 0`). A value that eight decimals
//!   cannot carry back to its bits (`0.0333333351` would be `0.03333334`, one bit off) prints
//!   as Microsoft's disassembler prints it, so that the listing stays loss-free.
//! - a `dcl` with a usage always writes its usage index (`dcl_texcoord0`, `dcl_position0 v0`),
//!   except a vertex shader's position output (`dcl_position o0`, beside `dcl_texcoord0 o1`).
//! - a pixel shader's input `dcl` always writes its mask (`dcl_texcoord0 v0.xyzw`).

use crate::ir::*;

/// The components of each float constant (`c#`) that some instruction reads (bit 0 = x).
#[derive(Debug, Default)]
pub(super) struct ConstReads {
    by_register: Vec<u8>,
    /// The lowest base of a relatively addressed read: every register from it on may be read.
    relative_from: Option<u32>,
}

impl ConstReads {
    pub(super) fn of(shader: &Shader) -> ConstReads {
        let mut reads = ConstReads::default();
        for inst in &shader.instructions {
            let registers = inst.opcode.matrix_rows().unwrap_or(1);
            for (k, src) in inst.srcs.iter().enumerate() {
                if src.reg.kind != RegisterKind::Const {
                    continue;
                }
                let first = src.reg.number;
                if src.relative.is_some() {
                    let from = reads.relative_from.map_or(first, |f| f.min(first));
                    reads.relative_from = Some(from);
                } else {
                    let rows = if k == 1 { registers } else { 1 };
                    reads.mark(first..first.saturating_add(rows), inst.src_components(k));
                }
            }
        }
        reads
    }

    fn mark(&mut self, registers: std::ops::Range<u32>, components: u8) {
        for r in registers {
            let r = r as usize;
            if r >= self.by_register.len() {
                // Const numbers are at most 8191 (their 11-bit field): the table stays small.
                self.by_register.resize(r + 1, 0);
            }
            self.by_register[r] |= components;
        }
    }

    fn read(&self, register: u32, component: usize) -> bool {
        self.relative_from.is_some_and(|from| register >= from)
            || self
                .by_register
                .get(register as usize)
                .is_some_and(|m| m >> component & 1 != 0)
    }

    /// The printed values of a `def` of `c{register}`.
    pub(super) fn def_values(&self, register: u32, imm: &[u32]) -> Vec<String> {
        imm.iter()
            .enumerate()
            .map(|(c, &bits)| {
                let v = f32::from_bits(bits);
                if bits == 0 && !self.read(register, c) {
                    return "0".to_string();
                }
                let text = fixed8(v);
                // Eight decimals can lose bits (`0.00001538`); such a value prints as
                // Microsoft's disassembler prints it, so that the listing stays loss-free.
                if text.parse::<f32>().is_ok_and(|back| back.to_bits() == bits) {
                    text
                } else {
                    super::float(v)
                }
            })
            .collect()
    }
}

/// `%.8f` as Microsoft's C runtime of the time printed it: the value rounded to 17 significant
/// digits, then to 8 decimals with halves rounded away from zero. Non-finite values print as
/// their bits, as in [`super::float`].
pub(super) fn fixed8(v: f32) -> String {
    if !v.is_finite() {
        return super::float(v);
    }
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if v == 0.0 {
        return format!("{sign}0.00000000");
    }
    // 17 significant digits: d.dddddddddddddddde±x (exact decimal rounding of the f32).
    let sci = format!("{:.16e}", v.abs() as f64);
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("exponent is an integer");
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    // The value times 10^8 has `whole` digits before its point.
    let whole = exp + 1 + 8;
    let mut kept: Vec<u8> = (0..whole.max(0) as usize)
        .map(|i| digits.get(i).copied().unwrap_or(b'0'))
        .collect();
    let next = if whole >= 0 {
        digits.get(whole as usize).copied().unwrap_or(b'0')
    } else {
        b'0'
    };
    if next >= b'5' {
        round_up(&mut kept);
    }
    while kept.len() < 9 {
        kept.insert(0, b'0');
    }
    let point = kept.len() - 8;
    let text = String::from_utf8(kept).expect("ASCII digits");
    format!("{sign}{}.{}", &text[..point], &text[point..])
}

/// Add one to a decimal digit string, growing it on a carry out of the first digit.
fn round_up(digits: &mut Vec<u8>) {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return;
        }
    }
    digits.insert(0, b'1');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed8_prints_like_the_old_microsoft_runtime() {
        assert_eq!(fixed8(0.5), "0.50000000");
        assert_eq!(fixed8(255.0), "255.00000000");
        assert_eq!(fixed8(0.003_921_568_6), "0.00392157");
        assert_eq!(fixed8(-0.16161616), "-0.16161616");
        assert_eq!(fixed8(0.24), "0.23999999");
        assert_eq!(fixed8(0.0), "0.00000000");
        assert_eq!(fixed8(-0.0), "-0.00000000");
        assert_eq!(fixed8(0.999_999_999), "1.00000000");
        // A tie at the eighth decimal (1/512 = 0.001953125) rounds away from zero.
        assert_eq!(fixed8(1.0 / 512.0), "0.00195313");
        assert_eq!(fixed8(-1.0 / 512.0), "-0.00195313");
        assert_eq!(fixed8(1e-9), "0.00000000");
        // From the corpus: 17 significant digits, then zeros.
        assert_eq!(
            fixed8(1e38),
            "99999996802856925000000000000000000000.00000000"
        );
        assert_eq!(fixed8(f32::NAN), "0x7fc00000");
    }

    #[test]
    fn unread_zero_components_print_as_a_plain_zero() {
        let shader = crate::text::parse(
            "vs_2_0\ndef c10, 0.5, 0, 0, 0\ndef c11, 0, 1, 0, 0\ndef c12, 0, 0, 0, 0\n\
             dcl_position v0\nmul r0.xy, v0, c10.x\nmad r0.z, v0, c11.xyxy, c11.z\n\
             m3x2 r1.xy, v0, c12\nmov oPos, r0\n",
        )
        .unwrap();
        let reads = ConstReads::of(&shader);
        let defs: Vec<Vec<String>> = shader.instructions[..3]
            .iter()
            .map(|i| reads.def_values(i.dst.unwrap().reg.number, &i.imm))
            .collect();
        assert_eq!(defs[0], ["0.50000000", "0", "0", "0"]);
        // mad r0.z reads c11.x (the swizzle's third letter) and c11.z.
        assert_eq!(defs[1], ["0.00000000", "1.00000000", "0.00000000", "0"]);
        // m3x2 reads .xyz of c12 and c13: c12's w is unread.
        assert_eq!(defs[2], ["0.00000000", "0.00000000", "0.00000000", "0"]);
    }

    #[test]
    fn values_eight_decimals_cannot_carry_print_as_microsoft_does() {
        // 0x3d088889 is 0.0333333351; `0.03333334` would read back as 0x3d08888a.
        let values = ConstReads::default().def_values(0, &[0x3d08_8889, 0x3d08_888a, 0, 0]);
        assert_eq!(values, ["0.0333333351", "0.03333334", "0", "0"]);
    }

    /// Two listings written as Unity 4's tools write them print back the same, and the
    /// listing reassembles to the same tokens.
    #[test]
    fn unity_listings_print_back_the_same() {
        use crate::text::{Style, parse, print_styled};
        for listing in [
            "    vs_2_0\n    def c8, 0.50000000, 1.00000000, 0, 0\n    dcl_position0 v0\n    \
             dcl_texcoord0 v1\n    dp4 oPos.x, v0, c0\n    mul oT0.xy, v1, c8.x\n    \
             mov oT0.zw, c8.y\n",
            "    ps_3_0\n    dcl_2d s0\n    def c2, 0.00000000, 2.00000000, 0.00001538, 0\n    \
             dcl_texcoord0 v0.xyzw\n    dcl_texcoord1 v1.xy\n    dcl vPos.xy\n    \
             texldp r0, v0, s0\n    mad r0.xy, v1, c2.y, c2.x\n    mul r0.z, vPos.x, c2.z\n    \
             mov_pp oC0, r0\n",
        ] {
            let shader = parse(listing).unwrap();
            let printed = print_styled(&shader, Style::Unity);
            assert_eq!(printed, listing);
            let again = parse(&printed).unwrap();
            assert_eq!(again, shader);
        }
    }
}
