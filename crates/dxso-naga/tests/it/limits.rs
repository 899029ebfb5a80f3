//! Translation bounded in work: subroutine calls that multiply stop at
//! `MAX_TRANSLATED_INSTRUCTIONS` with `Error::TooLarge`, and a long run of instructions
//! becomes nested blocks of about 3,072 expressions (naga's MSL writer is quadratic in a
//! block's size), valid for naga and written by every back end.

use dxso_naga::{Error, MAX_TRANSLATED_INSTRUCTIONS, Options, Target};
use dxso_testdata::shaders::nested_calls;

fn checked(src: &str) -> dxso::validate::Checked {
    let shader = dxso::text::parse(src).expect("assembles");
    dxso::validate::validate(&shader, &dxso::validate::Caps::max()).expect("valid")
}

#[test]
fn calls_that_multiply_are_refused_at_the_limit() {
    // 40^4 = 2,560,000 inlined bodies from a 1.4 KB shader.
    let err = dxso_naga::translate(&checked(&nested_calls(40)), &Options::default())
        .expect_err("refused");
    assert_eq!(
        err,
        Error::TooLarge {
            limit: MAX_TRANSLATED_INSTRUCTIONS
        }
    );
    assert!(
        err.to_string().contains("MAX_TRANSLATED_INSTRUCTIONS"),
        "{err}"
    );
    // 10^4 bodies (with the calls and rets, about 32,000 instructions) fit.
    let t = dxso_naga::translate(&checked(&nested_calls(10)), &Options::default())
        .expect("within the limit");
    let body = &t.module.functions[t.body];
    assert!(
        body.expressions.len() > 10_000,
        "{}",
        body.expressions.len()
    );
    // 12^4 bodies (about 66,000 instructions) do not.
    assert!(dxso_naga::translate(&checked(&nested_calls(12)), &Options::default()).is_err());
}

#[test]
fn long_runs_become_nested_blocks_every_back_end_writes() {
    let mut src = String::from(
        "vs_3_0\ndcl_position v0\ndcl_texcoord v1\ndcl_position o0\nmova a0.x, v1.x\nmov r0, v0\n",
    );
    for k in 0..1000 {
        src.push_str(&format!("add r0, r0, c{}[a0.x]\n", k % 100));
    }
    src.push_str("if b0\n");
    for k in 0..600 {
        src.push_str(&format!("mad r0, r0, c{}, v1\n", k % 100));
    }
    src.push_str("endif\nmov o0, r0\n");
    let t = dxso_naga::translate(&checked(&src), &Options::default()).expect("translates");
    let body = &t.module.functions[t.body];
    let blocks = body
        .body
        .iter()
        .filter(|s| matches!(s, naga::Statement::Block(_)))
        .count();
    // About 6 expressions each: 1,000 instructions make a block or two of 3,072 expressions.
    assert!((1..=3).contains(&blocks), "{blocks}");
    assert!(body.expressions.len() > 6000, "{}", body.expressions.len());
    for target in [
        Target::Wgsl,
        Target::SpirV,
        Target::Glsl,
        Target::Msl,
        Target::Hlsl,
    ] {
        dxso_naga::write(&t, target).expect("writes");
    }
}

/// An instruction the translation has no code for is refused with its opcode, control and
/// the shader's version (typed), named by its mnemonic in the message.
#[test]
fn an_untranslated_instruction_is_refused_by_opcode_and_version() {
    let shader = dxso::Shader {
        version: dxso::Version::vs(3, 0),
        instructions: vec![dxso::Instruction::new(dxso::Opcode::Phase)],
    };
    let e = dxso_naga::translate_unchecked(&shader, &Options::default()).unwrap_err();
    assert_eq!(
        e,
        Error::Unsupported {
            opcode: dxso::Opcode::Phase,
            control: 0,
            version: dxso::Version::vs(3, 0)
        }
    );
    assert_eq!(
        e.to_string(),
        "phase is not supported in vs_3_0 by the GPU translation"
    );
}
