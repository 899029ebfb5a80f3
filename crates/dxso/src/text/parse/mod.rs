//! Assembly text -> IR: the syntax Microsoft's assembler accepts.
//!
//! One statement per line. `//` and `;` start comments; `/* ... */` block comments may stand
//! wherever white space may, on one line or across lines. A small preprocessor handles
//! object-like `#define`, `#undef`, `#line` (ignored) and `\` line continuation. The text
//! ends at a NUL byte. The assembler also makes the checks an assembler makes (registers that
//! exist in the version, modifiers the version has, operand counts); the validator makes the
//! rest.
//!
//! The assembler's parts, each depending only on those listed before it: [`error`]'s
//! reports, [`cursor`]'s reading of a line, [`operand`]s, [`declaration`]s, [`instruction`]s
//! and the [`driver`] that cuts the text into lines.

mod cursor;
mod declaration;
mod driver;
mod error;
mod instruction;
mod operand;
#[cfg(test)]
mod tests;

pub use super::preprocess::{MAX_MACRO_DEPTH, MAX_MACRO_EXPANSION};
pub use driver::{parse, parse_each, parse_with_spans};
pub use error::{MAX_PARSE_ERRORS, ParseError, ParseErrors, Span};
