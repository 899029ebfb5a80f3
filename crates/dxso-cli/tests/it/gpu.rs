//! `dxso run --gpu` and `dxso bench --gpu` (../shared/CLI.md). Tests that need an adapter
//! are skipped without one (named in the summary at exit); under `CI=true` they fail.

use std::process::{Command, Output};

fn dxso(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dxso"))
        .args(args)
        .output()
        .expect("dxso runs")
}

fn path(rel: &str) -> String {
    format!("{}/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// Whether a GPU adapter exists (a skip when not; a failure under `CI=true`).
pub(crate) fn have_adapter() -> bool {
    if !dxso_gpu::adapters().is_empty() {
        return true;
    }
    dxso_testdata::skip("no GPU adapter (Debian: mesa-vulkan-drivers)");
    false
}

#[test]
fn no_usable_adapter_exits_2_and_says_how_to_get_one() {
    let out = dxso(&[
        "run",
        &path("tests/data/scale.json"),
        "--gpu",
        "--adapter",
        "no adapter is called this",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("mesa-vulkan-drivers"), "{err}");
    assert!(err.contains("lavapipe"), "{err}");
    // --adapter means nothing without --gpu.
    let out = dxso(&["run", &path("tests/data/scale.json"), "--adapter", "x"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The GPU prints what the CPU prints: the same registers and values, in json and csv.
#[test]
fn run_gpu_prints_the_cpus_outputs() {
    if !have_adapter() {
        return;
    }
    for scene in [
        "tests/data/scale.json",
        "tests/data/instanced.json",
        "../../examples/heightmap/scene.json",
    ] {
        for format in ["json", "csv"] {
            let cpu = dxso(&["run", &path(scene), "--format", format]);
            let gpu = dxso(&["run", &path(scene), "--format", format, "--gpu"]);
            assert_eq!(
                gpu.status.code(),
                Some(0),
                "{scene}: {}",
                String::from_utf8_lossy(&gpu.stderr)
            );
            assert_eq!(
                String::from_utf8_lossy(&gpu.stdout),
                String::from_utf8_lossy(&cpu.stdout),
                "{scene} {format}"
            );
        }
    }
}

#[test]
fn bench_gpu_reports_as_the_cpu_bench_does() {
    if !have_adapter() {
        return;
    }
    let out = dxso(&[
        "bench",
        &path("tests/data/scale.json"),
        "--repeat",
        "2",
        "--format",
        "json",
        "--gpu",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["results"][0];
    assert_eq!(r["vertices"], 3);
    assert!(r["median_s"].as_f64().unwrap() > 0.0);
    assert!(r["vertices_per_s"].as_f64().unwrap() > 0.0);
    assert!(!r["adapter"].as_str().unwrap().is_empty());
}

/// A draw's size is checked once, by the same function, on every path: a vertex count of
/// 2^64-1 is "too large" (exit 1) for `run`, `run --gpu` and `bench --gpu` alike (the GPU
/// path once rounded its buffer size up past 2^64, to 0, and exited 2 with wgpu's error).
#[test]
fn a_draw_too_large_is_refused_alike_on_cpu_and_gpu() {
    let scene = path("tests/data/hostile/vertex_count_max.json");
    let mut runs = vec![vec!["run", scene.as_str()]];
    if have_adapter() {
        runs.push(vec!["run", scene.as_str(), "--gpu"]);
        runs.push(vec!["bench", scene.as_str(), "--gpu", "--repeat", "1"]);
    }
    for args in runs {
        let out = dxso(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("too large"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
