//! The benchmark workloads W1 (transform), W2 (skinning), W3 (lighting loop) of
//! `../shared/bench`, 262,144 vertices each, on every core.
//! Run with `cargo bench -p dxso-vm --bench workloads`.

use dxso_vm::workloads::{Workload, builtin};
use std::sync::LazyLock;

const N: usize = 1 << 18;

static WORKLOADS: LazyLock<Vec<Workload>> = LazyLock::new(|| builtin(N).expect("workloads build"));

fn main() {
    divan::main();
}

fn draw(k: usize) -> usize {
    let w = &WORKLOADS[k];
    w.device
        .draw(divan::black_box(w.vertices), 1)
        .expect("draws")
        .data
        .len()
}

#[divan::bench(sample_count = 20)]
fn w1_transform(b: divan::Bencher) {
    LazyLock::force(&WORKLOADS);
    b.counter(divan::counter::ItemsCount::new(N))
        .bench(|| draw(0));
}

#[divan::bench(sample_count = 10)]
fn w2_skinning(b: divan::Bencher) {
    LazyLock::force(&WORKLOADS);
    b.counter(divan::counter::ItemsCount::new(N))
        .bench(|| draw(1));
}

#[divan::bench(sample_count = 10)]
fn w3_lighting(b: divan::Bencher) {
    LazyLock::force(&WORKLOADS);
    b.counter(divan::counter::ItemsCount::new(N))
        .bench(|| draw(2));
}
