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

/// Assemble `text` with the constant table its `// Parameters:` header describes (as
/// `dxso asm --ctab` does), where the text carries no CTAB comment of its own; without a header
/// the shader has no table. A header that does not parse is an error at its line.
pub fn parse_with_header(text: &str) -> Result<crate::Shader, ParseErrors> {
    let mut shader = parse(text)?;
    if shader.constant_table_index().is_none()
        && let Some(table) = parse_header(text, shader.version)?
    {
        shader.set_constant_table(&table);
    }
    Ok(shader)
}
