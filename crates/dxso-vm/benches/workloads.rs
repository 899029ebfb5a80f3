//! The benchmark workloads W1 (transform), W2 (skinning), W3 (lighting loop) of
//! `../shared/bench`, 262,144 vertices each, on every core, on the compiled tier (at the
//! processor's widest instruction set, and at AVX2 width) and on the interpreter, each draw
//! into the same output buffer. Run with `cargo bench -p dxso-vm --bench workloads`.

use dxso_vm::workloads::{Workload, builtin};
use std::sync::LazyLock;

const N: usize = 1 << 18;

const TIERS: [&str; 3] = ["compiled", "compiled-avx2", "interpreted"];

static WORKLOADS: LazyLock<[Vec<Workload>; 3]> = LazyLock::new(|| {
    let ways = |f: &dyn Fn(&mut dxso_vm::Device)| {
        let mut ws = builtin(N).expect("workloads build");
        for w in &mut ws {
            f(&mut w.device);
        }
        ws
    };
    [
        ways(&|_| {}),
        // (Where the processor has AVX2; below it, the base path.)
        ways(&|d| d.set_isa(dxso_vm::Isa::Avx2)),
        ways(&|d| d.set_tier(dxso_vm::Tier::Interpreted)),
    ]
});

fn main() {
    divan::main();
}

/// Timed draws of workload `k` on `tier` into one output buffer (the first, untimed draw
/// allocates it), as `dxso bench` draws.
fn draws(b: divan::Bencher, tier: &str, k: usize) {
    let w = &WORKLOADS[TIERS.iter().position(|t| *t == tier).expect("a tier")][k];
    let mut out = w.device.draw(w.vertices, 1).expect("draws");
    b.counter(divan::counter::ItemsCount::new(N))
        .bench_local(|| {
            w.device
                .draw_into(divan::black_box(w.vertices), 1, &mut out)
                .expect("draws")
        });
}

#[divan::bench(sample_count = 20, args = TIERS)]
fn w1_transform(b: divan::Bencher, tier: &str) {
    draws(b, tier, 0);
}

#[divan::bench(sample_count = 10, args = TIERS)]
fn w2_skinning(b: divan::Bencher, tier: &str) {
    draws(b, tier, 1);
}

#[divan::bench(sample_count = 10, args = TIERS)]
fn w3_lighting(b: divan::Bencher, tier: &str) {
    draws(b, tier, 2);
}
