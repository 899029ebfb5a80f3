//! The ps_1_x texture-addressing instructions (texcoord/texcrd, tex, texbem, texbeml,
//! texreg2ar/gb/rgb, texm3x2*/texm3x3*, texdp3*, texdepth, bem, phase): not translated yet;
//! they give [`crate::Error::Unsupported`].

use crate::Error;
use crate::regs::Tr;
use dxso::ir::Instruction;

impl Tr {
    /// The ps_1_x texture-addressing family; `Ok(false)` for every other instruction.
    pub fn ps1x(&mut self, _inst: &Instruction) -> Result<bool, Error> {
        Ok(false)
    }
}
