//! Format targets: the token reader (with the round-trip law), the assembler, the validator,
//! the linker and the constant-table reader.

use dxso::Shader;
use dxso::binary;
use dxso::ctab::ConstantTable;
use dxso::validate::{Caps, Severity, diagnostics, validate};

/// The round-trip law: a shader that validates (under the most permissive caps) prints as
/// text that the assembler turns back into exactly `tokens`.
pub fn law(shader: &Shader, tokens: &[u32]) {
    if validate(shader, &Caps::max()).is_err() {
        return;
    }
    let text = dxso::text::print(shader);
    let back = dxso::text::parse(&text).unwrap_or_else(|e| {
        panic!("round-trip law: the printed text of a valid shader does not assemble\n{text}\n{e}")
    });
    let again = binary::write(&back).unwrap_or_else(|e| {
        panic!("round-trip law: the reassembled shader does not encode\n{text}\n{e}")
    });
    assert_eq!(
        again, tokens,
        "round-trip law: the printed text reassembles to other tokens\n{text}"
    );
}

fn words(data: &[u8]) -> Vec<u32> {
    data.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `reader`: little-endian tokens -> `binary::read`. What it accepts writes back to the same
/// tokens (up to the end token) and obeys the round-trip law.
pub fn reader(data: &[u8]) {
    let Ok(shader) = binary::read_bytes(data) else {
        return;
    };
    let tokens = binary::write(&shader).expect("write takes every shader read gives");
    let input = words(data);
    assert_eq!(
        tokens[..],
        input[..tokens.len()],
        "write(read(t)) differs from t"
    );
    law(&shader, &tokens);
}

/// `assembler`: text -> `text::parse` (as `dxso asm` reads it). A shader it accepts that
/// encodes reads back to itself, and obeys the round-trip law when it validates.
pub fn assembler(data: &[u8]) {
    let source = String::from_utf8_lossy(data);
    let Ok(shader) = dxso::text::parse(&source) else {
        return;
    };
    let _ = dxso::text::print(&shader);
    let Ok(tokens) = binary::write(&shader) else {
        return;
    };
    let back = binary::read(&tokens).unwrap_or_else(|e| {
        panic!("the tokens of an assembled shader do not read back: {e}\n{source}")
    });
    assert_eq!(back, shader, "read(write(s)) differs from s");
    law(&shader, &tokens);
}

/// A shader file as `dxso check` takes it: tokens when it starts with a version token, else
/// text; with where each instruction came from (a word offset, or a line and column).
pub(crate) fn load(data: &[u8]) -> Option<(Shader, Vec<usize>)> {
    if data.len() >= 4 && matches!(u16::from_le_bytes([data[2], data[3]]), 0xFFFE | 0xFFFF) {
        if !data.len().is_multiple_of(4) {
            return None;
        }
        return binary::read_with_offsets(&words(data)).ok();
    }
    let source = String::from_utf8_lossy(data);
    let (shader, spans) = dxso::text::parse_with_spans(&source).ok()?;
    let at = spans.iter().map(|s| s.line).collect();
    Some((shader, at))
}

/// `validator`: a shader file (text or tokens) validated with the min and max caps; every
/// diagnostic names an instruction that exists and has a place in the file.
pub fn validator(data: &[u8]) {
    let Some((shader, at)) = load(data) else {
        return;
    };
    assert_eq!(
        at.len(),
        shader.instructions.len(),
        "an instruction has no place"
    );
    for caps in [Caps::min(), Caps::max()] {
        let found = diagnostics(&shader, &caps);
        for d in &found {
            let _ = d.rule.id();
            if let Some(i) = d.instruction {
                assert!(i < shader.instructions.len(), "{d:?} names no instruction");
            }
        }
        let errors = found.iter().any(|d| d.severity == Severity::Error);
        assert_eq!(validate(&shader, &caps).is_err(), errors);
    }
}

/// The separator between the vertex and the pixel shader in a `linker` input.
pub const LINK_SEPARATOR: &[u8] = b"\n%%\n";

/// `linker`: two shaders (vertex, then pixel, split at [`LINK_SEPARATOR`]), each text or
/// tokens, linked validated or not, with and without software processing.
pub fn linker(data: &[u8]) {
    let Some(at) = data
        .windows(LINK_SEPARATOR.len())
        .position(|w| w == LINK_SEPARATOR)
    else {
        return;
    };
    let (vs, ps) = (&data[..at], &data[at + LINK_SEPARATOR.len()..]);
    let (Some((vs, _)), Some((ps, _))) = (load(vs), load(ps)) else {
        return;
    };
    for software in [false, true] {
        let _ = dxso::link::link_shaders(&vs, &ps, software);
    }
    let caps = Caps::max();
    if let (Ok(v), Ok(p)) = (validate(&vs, &caps), validate(&ps, &caps)) {
        for software in [false, true] {
            if let Err(diags) = dxso::link::link(&v, &p, software) {
                for d in diags {
                    for (i, n) in [
                        (d.vs_instruction, v.shader().instructions.len()),
                        (d.ps_instruction, p.shader().instructions.len()),
                    ] {
                        assert!(i.is_none_or(|i| i < n), "{d:?} names no instruction");
                    }
                }
            }
        }
    }
}

/// Paths of a constant table looked up per input (`paths` lists every one; a fuzzed table may
/// have many).
const MAX_PATHS: usize = 64;

/// `ctab`: CTAB data (the words of a constant-table comment block after its FourCC) ->
/// `ctab::ConstantTable::read`. A table it accepts writes back to data that reads as the
/// same table (with several default values cut short by the end of the table, only the last
/// can be cut the same: then the written table only has to read), and each of its paths resolves and
/// lays out.
pub fn ctab(data: &[u8]) {
    let Ok(table) = ConstantTable::read(&words(data)) else {
        return;
    };
    let again = ConstantTable::read(&table.to_words())
        .unwrap_or_else(|e| panic!("to_words gives CTAB data read refuses: {e}\n{table:?}"));
    // Default values the end of the table cut short: only one can end the written table.
    let cut = table
        .constants
        .iter()
        .filter(|c| {
            c.default_value.as_ref().is_some_and(|v| {
                v.len() < c.register_count as usize * c.register_set.words_per_register()
            })
        })
        .count();
    if cut <= 1 {
        assert_eq!(again, table, "read(to_words(t)) differs from t");
    } else {
        ConstantTable::read(&again.to_words()).expect("a written table reads");
    }
    for path in table.paths().iter().take(MAX_PATHS) {
        let desc = table
            .find(path)
            .unwrap_or_else(|| panic!("{path} is listed by paths but not found"));
        let _ = desc.value_count();
        let _ = desc.slots();
    }
}
