//! Assembly text: [`parse`] (text -> IR) and [`print`] (IR -> text).

mod parse;
mod print;

pub use parse::{
    MAX_MACRO_DEPTH, MAX_MACRO_EXPANSION, MAX_PARSE_ERRORS, ParseError, ParseErrors, Span, parse,
    parse_with_spans,
};
pub use print::{COMMENT_DIRECTIVE, float, print, print_instruction, swizzle};
