//! The benchmark workloads W1 (transform), W2 (skinning), W3 (lighting loop) of
//! `../shared/bench`, 262,144 vertices each, on every core, on the compiled tier and on
//! the interpreter. Run with `cargo bench -p dxso-vm --bench workloads`.

use dxso_vm::workloads::{Workload, builtin};
use std::sync::LazyLock;

const N: usize = 1 << 18;

const TIERS: [&str; 2] = ["compiled", "interpreted"];

static WORKLOADS: LazyLock<[Vec<Workload>; 2]> = LazyLock::new(|| {
    let mut interpreted = builtin(N).expect("workloads build");
    for w in &mut interpreted {
        w.device.set_tier(dxso_vm::Tier::Interpreted);
    }
    [builtin(N).expect("workloads build"), interpreted]
});

fn main() {
    divan::main();
}

fn draw(tier: &str, k: usize) -> usize {
    let w = &WORKLOADS[TIERS.iter().position(|t| *t == tier).expect("a tier")][k];
    w.device
        .draw(divan::black_box(w.vertices), 1)
        .expect("draws")
        .data
        .len()
}

#[divan::bench(sample_count = 20, args = TIERS)]
fn w1_transform(b: divan::Bencher, tier: &str) {
    LazyLock::force(&WORKLOADS);
    b.counter(divan::counter::ItemsCount::new(N))
        .bench(|| draw(tier, 0));
}

#[divan::bench(sample_count = 10, args = TIERS)]
fn w2_skinning(b: divan::Bencher, tier: &str) {
    LazyLock::force(&WORKLOADS);
    b.counter(divan::counter::ItemsCount::new(N))
        .bench(|| draw(tier, 1));
}

#[divan::bench(sample_count = 10, args = TIERS)]
fn w3_lighting(b: divan::Bencher, tier: &str) {
    LazyLock::force(&WORKLOADS);
    b.counter(divan::counter::ItemsCount::new(N))
        .bench(|| draw(tier, 2));
}
