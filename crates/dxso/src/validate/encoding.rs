//! Token fields the assembly text cannot spell. The round-trip law — every token stream that
//! [`crate::binary::read`] accepts and [`super::validate`] passes prints as text that
//! [`crate::text::parse`] turns back into the same tokens — holds because the validator
//! refuses each such field here, with a rule id. The reader stays loss-free (it keeps every
//! field it can represent, so `dis` shows what a stream holds); fields the IR cannot hold at
//! all are the reader's typed errors instead (`ReadErrorKind::ReservedBits`, ...).
//!
//! Per field:
//! - instruction-control bits 16-23 [V061]: only `setp`/`ifc`/`breakc` (a comparison in
//!   bits 16-18) and `texld` from ps_2_0 (0, `texldp` 1, `texldb` 2) define them; anything
//!   else has no spelling and D3D9 requires them zero.
//! - the co-issue bit 30 [V062]: `+` exists in ps_1_x only.
//! - a destination write mask of 0 [V031]: writes nothing, and `.` with no letters is not
//!   text.
//! - a shift in a vertex shader, or a shift value other than `_x2`/`_x4`/`_x8`/`_d2`/`_d4`/
//!   `_d8` (4..=12) [V034] (checked with the other result modifiers).
//! - a swizzle on an `aL` index [V010] (checked with relative addressing): `c[aL]` is the
//!   only spelling.
//! - the predicated bit 28 on `dcl`/`def`/`defi`/`defb` [V038]: a declaration has no
//!   `(p0)` spelling, and its predicate token would print as any register at all.

use super::{Rule, Validator};
use crate::ir::Instruction;
use crate::opcodes::{Layout, Opcode, TEXLD_BIAS};

impl Validator<'_> {
    /// The checks above, for every instruction but comments.
    pub(super) fn encoding(&mut self, i: usize, inst: &Instruction) {
        let pixel1 = self.v.is_pixel() && self.n() < 0x200;
        let control_ok = match inst.opcode {
            op if op.info().comparison => inst.control & !7 == 0,
            Opcode::Tex if self.v.is_pixel() && !pixel1 => inst.control <= TEXLD_BIAS,
            _ => inst.control == 0,
        };
        if !control_ok {
            self.err(
                Rule::InstructionControl,
                i,
                format!(
                    "instruction-control bits 0x{:02x} are not defined for {}",
                    inst.control,
                    inst.opcode.info().mnemonic
                ),
            );
        }
        if inst.coissue && !pixel1 {
            self.err(
                Rule::CoIssue,
                i,
                format!("co-issue (+) does not exist in {}", self.v),
            );
        }
        let declaration = matches!(
            inst.opcode.info().layout,
            Layout::Dcl | Layout::Def | Layout::DefI | Layout::DefB
        );
        if declaration && inst.predicate.is_some() {
            self.err(
                Rule::Predication,
                i,
                format!("{} cannot be predicated", inst.opcode.info().mnemonic),
            );
        }
        if inst.dst.is_some_and(|d| d.mask.0 == 0) {
            self.err(Rule::WriteMask, i, "a write mask of 0 writes nothing");
        }
    }
}
