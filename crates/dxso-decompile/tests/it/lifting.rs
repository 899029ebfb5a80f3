//! Lifting, pattern by pattern: small shaders written for these tests, and the HLSL a
//! person would write for them (read and checked by hand against the instructions'
//! semantics in `../shared/spec/instructions.md`), one file per family of patterns; the
//! helpers every family shares are here.

mod addressing;
mod arith;
mod ctab;
mod errors;
mod flow;
mod io;
mod locals;
mod ps1x;

use dxso_decompile::{Options, decompile_with_table, listing_table};

/// The HLSL of `source` (a listing; its header, if any, is the constant table).
pub(super) fn hlsl(source: &str) -> String {
    let shader = dxso::text::parse(source).expect("assembles");
    let checked =
        dxso::validate::validate(&shader, &dxso::validate::Caps::max()).expect("validates");
    let table = listing_table(source, shader.version);
    decompile_with_table(&checked, table.as_ref(), &Options::default()).expect("decompiles")
}

/// `main` and what follows it.
pub(super) fn main_of(text: &str) -> &str {
    let at = text
        .find("\nVS_OUTPUT main(")
        .or_else(|| text.find("\nPS_OUTPUT main("));
    &text[at.expect("a main function") + 1..]
}
