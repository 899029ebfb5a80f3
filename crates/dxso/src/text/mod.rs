//! Assembly text: [`parse`] (text -> IR) and [`print`] (IR -> text).

mod parse;
mod print;

pub use parse::{ParseError, ParseErrors, parse};
pub use print::{COMMENT_DIRECTIVE, float, print, print_instruction, swizzle};
