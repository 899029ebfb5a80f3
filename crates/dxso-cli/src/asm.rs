//! `dxso asm` and `dxso dis`: the assembler and the disassembler as the command line and the
//! playground (`dxso serve`) both call them.

use dxso::Shader;
use dxso::report::Report;
use dxso::text::{ParseErrors, Style};
use std::io::Write;

/// What [`assemble`] made: the tokens, and warnings for the caller to show.
pub struct Assembled {
    pub tokens: Vec<u32>,
    pub warnings: Vec<String>,
}

/// Why [`assemble`] made nothing: the text's errors (each at a line and column), or an
/// instruction the version cannot encode.
pub enum AsmError {
    Parse(ParseErrors),
    Encode(dxso::binary::WriteError),
}

impl AsmError {
    /// The error as the command line prints it, the file called `name`.
    pub fn report(&self, name: &str) -> Report {
        match self {
            AsmError::Parse(e) => e.report(name),
            AsmError::Encode(e) => Report::error(name, e),
        }
    }
}

/// Assemble `text` into tokens. `ctab`: build the constant table from the listing's header
/// (`// Parameters:`, `// Registers:`) unless the listing carries its CTAB already.
pub fn assemble(text: &str, ctab: bool) -> Result<Assembled, AsmError> {
    // Peak memory: each instruction is encoded as soon as it is parsed; the IR of the
    // whole listing is never held, only the text and the tokens.
    let mut tokens = vec![0];
    let mut encoded = Ok(());
    let mut has_table = false;
    let mut index = 0;
    let mut warnings = Vec::new();
    let version = dxso::text::parse_each(text, |version, inst, _| {
        if encoded.is_ok() {
            has_table |= inst.opcode == dxso::opcodes::Opcode::Comment
                && dxso::ctab::ctab_data(&inst.imm).is_some();
            encoded = dxso::binary::write_instruction(&inst, version, index, &mut tokens);
        }
        index += 1;
    })
    .map_err(AsmError::Parse)?;
    encoded.map_err(AsmError::Encode)?;
    tokens[0] = version.token();
    tokens.push(dxso::binary::END_TOKEN);
    if ctab && !has_table {
        match dxso::text::parse_header(text, version) {
            // Where `Shader::set_constant_table` puts it: right after the version token.
            Ok(Some(table)) => {
                let mut block = Vec::new();
                dxso::binary::write_instruction(&table.to_comment(), version, 0, &mut block)
                    .map_err(AsmError::Encode)?;
                tokens.splice(1..1, block);
            }
            Ok(None) => warnings
                .push("--ctab: no '// Parameters:' header; no constant table written".to_string()),
            Err(e) => return Err(AsmError::Parse(e)),
        }
    }
    Ok(Assembled { tokens, warnings })
}

/// Why [`disassemble`] wrote nothing (or stopped).
pub enum DisError {
    Read(dxso::binary::ReadError),
    Write(std::io::Error),
}

/// Write the listing of bytecode `bytes` (binary tokens or hex tokens) to `out` in `style`,
/// with the constant table's header. `warn` hears, before the listing is written, when the
/// constant table cannot be read (the listing is then printed without its header; the warning
/// comes without its `warning: `, which the caller prints as it prints warnings). Nothing is
/// written for a token stream that fails to read.
pub fn disassemble(
    bytes: Vec<u8>,
    style: Style,
    out: &mut dyn Write,
    warn: &mut dyn FnMut(String),
) -> Result<(), DisError> {
    let mut warning = |shader: &Shader| {
        if let Err(e) = shader.constant_table() {
            warn(format!(
                "{e}; no header printed (the block is kept as its // @comment line)"
            ));
        }
    };
    if style != Style::Microsoft {
        // The Unity style looks at the whole shader (which constants each instruction reads).
        let shader = crate::input::read_bytecode(&bytes).map_err(DisError::Read)?;
        warning(&shader);
        return out
            .write_all(dxso::text::print_styled(&shader, style).as_bytes())
            .map_err(DisError::Write);
    }
    // Peak memory: the bytes are let go once they are tokens; the tokens are read twice, each instruction decoded and dropped: once to
    // check them all (nothing is printed for a stream that fails) and find the constant
    // table, once to print.
    let tokens = dxso::source::bytecode_tokens(&bytes).map_err(DisError::Read)?;
    drop(bytes);
    let mut stream = dxso::binary::instructions(&tokens).map_err(DisError::Read)?;
    let mut table = Shader {
        version: stream.version(),
        instructions: Vec::new(),
    };
    for item in &mut stream {
        let (_, inst) = item.map_err(DisError::Read)?;
        if table.instructions.is_empty()
            && inst.opcode == dxso::opcodes::Opcode::Comment
            && dxso::ctab::ctab_data(&inst.imm).is_some()
        {
            table.instructions.push(inst);
        }
    }
    warning(&table);
    let print = || -> std::io::Result<()> {
        let out = std::io::BufWriter::new(out);
        let header = table.constant_table().ok().flatten();
        let mut listing = dxso::text::ListingWriter::new(out, table.version, header.as_ref())?;
        for item in dxso::binary::instructions(&tokens).into_iter().flatten() {
            // Read once already: no error is left.
            let Ok((_, inst)) = item else { break };
            listing.instruction(&inst)?;
        }
        listing.into_inner().flush()
    };
    print().map_err(DisError::Write)
}
