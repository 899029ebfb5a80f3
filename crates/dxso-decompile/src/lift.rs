//! Lifting: what the instruction-by-instruction statements become when a pattern of several
//! instructions is one thing a person would write (`dp4` x 4 over a matrix's rows is one
//! `mul`, `dp3` + `rsq` + `mul` is `normalize`), and which writes nobody reads (dropped).

/// What emission does with one instruction.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Action {
    /// Its own statements.
    Keep,
    /// Nothing: dead, or folded into another instruction's statements.
    Drop,
    /// These statements instead of its own.
    Emit(Vec<String>),
}

use crate::Error;
use crate::ctx::Ctx;

/// The action for every instruction of the shader.
pub(crate) fn plan(cx: &mut Ctx) -> Result<Vec<Action>, Error> {
    Ok(vec![Action::Keep; cx.shader.instructions.len()])
}
