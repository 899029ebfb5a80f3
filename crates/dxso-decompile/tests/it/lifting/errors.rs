//! Typed errors: a malformed constant table, and what the decompiler has no HLSL for.

use dxso_decompile::Options;

/// A malformed constant table is refused with the table's own error (where and what), as
/// the command line prints it after `constant table: `.
#[test]
fn a_malformed_constant_table_is_a_typed_error() {
    use dxso::ctab::{CtabError, CtabErrorKind};
    // A CTAB comment of one word after its FourCC: shorter than the 7-word header.
    let shader =
        dxso::text::parse("vs_2_0\n// @comment 42415443 0000001c\ndcl_position v0\nmov oPos, v0\n")
            .expect("assembles");
    let checked =
        dxso::validate::validate(&shader, &dxso::validate::Caps::max()).expect("validates");
    let e = dxso_decompile::decompile(&checked, &Options::default()).unwrap_err();
    assert_eq!(
        e,
        dxso_decompile::Error::ConstantTable(CtabError {
            offset: 1,
            kind: CtabErrorKind::TooShort(1)
        })
    );
    assert_eq!(
        e.to_string(),
        "constant table: constant table word 1: the table is 1 DWORDs long, shorter than its \
         7-DWORD header"
    );
}

/// What the decompiler has no HLSL for is typed (the opcode, register or stage), with the
/// message the command line prints after `cannot decompile `.
#[test]
fn unsupported_constructs_are_typed() {
    use dxso::ir::{Register, RegisterKind};
    use dxso_decompile::{Error, Unsupported};
    let cases = [
        (
            Unsupported::MissingOperands(dxso::Opcode::Mad),
            "Mad without its operands",
        ),
        (
            Unsupported::Instruction(dxso::Opcode::Call),
            "the Call instruction",
        ),
        (
            Unsupported::RelativeAddressing(RegisterKind::Temp),
            "relative addressing of Temp registers",
        ),
        (
            Unsupported::RelativeIndex(RegisterKind::Input),
            "Input as a relative index",
        ),
        (
            Unsupported::StageWithoutSampler(2),
            "texture stage 2 without a sampler",
        ),
        (Unsupported::UndeclaredSampler(3), "an undeclared sampler"),
        (
            Unsupported::RelativeOutsideArrays(40),
            "relative read outside every array",
        ),
        (Unsupported::LoopCounterOutsideLoop, "aL outside a loop"),
        (
            Unsupported::RelativeDestination,
            "relatively addressed destinations",
        ),
        (
            Unsupported::Reading(RegisterKind::MiscType),
            "reading MiscType registers",
        ),
        (
            Unsupported::Writing(RegisterKind::Const),
            "writing Const registers",
        ),
        (Unsupported::MissingDestination, "a missing destination"),
        (
            Unsupported::RelativeInputsWithSubroutines,
            "relative input reads in a shader with subroutines",
        ),
    ];
    for (u, message) in cases {
        assert_eq!(
            Error::Unsupported(u).to_string(),
            format!("cannot decompile {message}")
        );
    }
    let output = Register {
        kind: RegisterKind::Output,
        number: 3,
    };
    assert_eq!(
        Unsupported::UndeclaredOutput(output).to_string(),
        "an undeclared output Register { kind: Output, number: 3 }"
    );
}
