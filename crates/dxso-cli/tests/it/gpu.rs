//! `dxso run --gpu`, `dxso bench --gpu`, `dxso draw --gpu` and `dxso draw --compare`
//! (../shared/CLI.md). Tests that need an adapter
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
    // The inputs resident; the harness's whole draw (fetch, upload, read-back) named apart.
    assert!(r["harness_s"].as_f64().unwrap() > 0.0);
}

/// `bench --gpu --float ieee` translates in Ieee mode; `--float` without `--gpu` is a usage
/// error (the CPU engine has one arithmetic).
#[test]
fn bench_gpu_takes_the_float_mode() {
    let scene = path("tests/data/scale.json");
    let out = dxso(&["bench", &scene, "--repeat", "1", "--float", "ieee"]);
    assert_eq!(out.status.code(), Some(2));
    if !have_adapter() {
        return;
    }
    for mode in ["strict", "ieee"] {
        let out = dxso(&["bench", &scene, "--repeat", "1", "--gpu", "--float", mode]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{mode}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
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

/// `draw --gpu` writes what the CPU draw writes (an example drawn exactly alike), `--pixel`
/// prints the same JSON, `--compare` reports no difference and writes the differences'
/// picture, `bench --gpu` times the frame; a state the GPU path cannot draw exits 1 naming
/// it.
#[test]
fn draw_gpu_writes_what_the_cpu_draw_writes() {
    if !have_adapter() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dxso-draw-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = path("../../examples/draw/textured.scene.json");
    let out = |name: &str| dir.join(name).to_string_lossy().to_string();
    for (name, extra) in [("cpu.dds", &[][..]), ("gpu.dds", &["--gpu"][..])] {
        let mut args = vec!["draw", scene.as_str(), "-o"];
        let o = out(name);
        args.push(&o);
        args.extend(extra);
        let r = dxso(&args);
        assert_eq!(
            r.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&r.stderr)
        );
    }
    assert_eq!(
        std::fs::read(out("cpu.dds")).unwrap(),
        std::fs::read(out("gpu.dds")).unwrap()
    );
    let cpu = dxso(&["draw", &scene, "--pixel", "60,60"]);
    let gpu = dxso(&["draw", &scene, "--pixel", "60,60", "--gpu"]);
    assert_eq!(cpu.stdout, gpu.stdout);
    let diff = out("diff.png");
    let r = dxso(&["draw", &scene, "--compare", "-o", &diff]);
    let text = String::from_utf8_lossy(&r.stdout);
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(
        text.contains("target 0 (A8R8G8B8): 0 of 32768 pixels differ"),
        "{text}"
    );
    assert!(std::path::Path::new(&diff).exists());
    // bench --gpu times the frame with resident data.
    let r = dxso(&[
        "bench", &scene, "--gpu", "--repeat", "1", "--format", "json",
    ]);
    let text = String::from_utf8_lossy(&r.stdout);
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(
        text.contains("\"frame_s\"") && text.contains("\"adapter\""),
        "{text}"
    );
    // w-buffering is refused by name.
    let text = r#"{"width": 4, "height": 4, "vertex_count": 3, "states": {"ZENABLE": "USEW"},
        "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITIONT", "usage_index": 0}],
        "streams": [{"stride": 16, "f32": [0, 0, 0.5, 1, 4, 0, 0.5, 1, 0, 4, 0.5, 1]}]}"#;
    let refused = out("refused.json");
    std::fs::write(&refused, text).unwrap();
    let r = dxso(&["draw", &refused, "--gpu", "-o", &out("b.png")]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(err.contains("USEW") && err.contains("draw 0"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
