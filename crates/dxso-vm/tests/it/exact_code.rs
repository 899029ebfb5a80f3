//! The x86 code's exact version on its own (`Options::fast_products` off, `DXSO_FAST_PRODUCTS=0`
//! in the faces): everywhere else it runs only the batches the fast code hands back.

use crate::random::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

#[test]
fn the_exact_code_alone_gives_the_interpreters_bits() {
    let options = dxso_vm::Options {
        fast_products: false,
        ..dxso_vm::Options::default()
    };
    let programs = prop_oneof![arb_uniform_shader(), arb_dynamic_shader()];
    let case = (
        programs,
        prop::collection::vec(prop::array::uniform4(arb_value()), 2 * 70),
        prop::collection::vec(prop::array::uniform4(arb_value()), 4),
        (0i32..4, 0i32..4, -3i32..17, -1i32..3),
        (any::<bool>(), any::<bool>()),
    );
    let mut runner = TestRunner::new(Config {
        cases: 128,
        ..Config::default()
    });
    let result = runner.run(
        &case,
        |(src, inputs, consts, (reps, count, start, step), (b0, linear))| {
            let ints = [[reps, start, step, 0], [count, start, step, 0]];
            alike_in_every_way_with(&options, &src, &inputs, &consts, &ints, b0, linear)
        },
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}
