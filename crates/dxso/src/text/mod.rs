//! Assembly text: [`parse`] (text -> IR) and [`print`] (IR -> text).

mod header;
mod parse;
mod print;

pub use header::{parse_header, print_header};
pub use parse::{ParseError, ParseErrors, Span, parse, parse_with_spans};
pub use print::{COMMENT_DIRECTIVE, float, print, print_instruction, swizzle};
