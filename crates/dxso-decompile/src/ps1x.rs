//! Pixel shader model 1 (ps_1_1 .. ps_1_4): the texture-addressing instructions.

use crate::Error;
use crate::ctx::Ctx;
use dxso::ir::Instruction;

impl Ctx<'_> {
    /// The statements of a ps_1_x texture-addressing instruction; `None` for any other.
    pub(crate) fn ps1x(&mut self, _inst: &Instruction) -> Result<Option<Vec<String>>, Error> {
        Ok(None)
    }
}
