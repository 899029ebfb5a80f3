//! Assembly text: [`parse`] (text -> IR) and [`print`](fn@print) / [`print_styled`] (IR -> text).

mod header;
mod parse;
mod preprocess;
mod print;
mod unity;

pub use header::{parse_header, print_header};
pub use parse::{
    MAX_MACRO_DEPTH, MAX_MACRO_EXPANSION, MAX_PARSE_ERRORS, ParseError, ParseErrors, Span, parse,
    parse_each, parse_with_spans,
};
pub use print::{
    COMMENT_DIRECTIVE, ListingWriter, Style, float, print, print_instruction, print_styled, swizzle,
};
