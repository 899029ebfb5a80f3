//! `dxso translate` bounded in work: subroutine calls that multiply are refused past
//! `dxso_naga::MAX_TRANSLATED_INSTRUCTIONS` (exit 1, the limit named) instead of inlined
//! into millions of bodies, and the time of every target (and of `asm`, `dis`, `check`)
//! grows no faster than n log n in the shader's size.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dxso-translate-limits-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d.join(name)
}

fn dxso(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dxso"))
        .args(args)
        .output()
        .expect("dxso runs")
}

use dxso_testdata::shaders::{nested_calls, relative_shader};

const TARGETS: [&str; 5] = ["wgsl", "spirv", "glsl", "msl", "hlsl"];

#[test]
fn calls_that_multiply_are_refused_naming_the_limit() {
    let file = scratch("nested40.asm");
    std::fs::write(&file, nested_calls(40)).unwrap();
    let file = file.to_str().unwrap();
    let check = dxso(&["check", file]);
    assert_eq!(check.status.code(), Some(0), "the shader is valid");
    for to in TARGETS {
        let start = Instant::now();
        let out = dxso(&["translate", file, "--to", to, "-o", "/dev/null"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "--to {to}: {stderr}");
        assert!(
            stderr.contains("MAX_TRANSLATED_INSTRUCTIONS") && stderr.contains("65536"),
            "--to {to}: {stderr}"
        );
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "--to {to}: {:?}",
            start.elapsed()
        );
    }
    // Calls that stay within the limit still translate: 2^4 bodies.
    let small = scratch("nested2.asm");
    std::fs::write(&small, nested_calls(2)).unwrap();
    let out = dxso(&["translate", small.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The shortest of `runs` runs of `dxso args`, which must succeed.
fn fastest(args: &[&Path], runs: usize) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_dxso"))
                .args(args)
                .output()
                .expect("dxso runs");
            let t = start.elapsed();
            assert!(
                out.status.success(),
                "dxso {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            t
        })
        .min()
        .unwrap_or_default()
}

/// From 4,096 to 32,700 relative-addressing instructions (about as many as a valid shader
/// may have), each command's time must grow by less than n log n's factor (8 x 1.25) with
/// 2.5 of slack for a noisy machine (the fastest of three runs each): 25. A quadratic cost
/// gives 64 (`translate --to msl` took 69 times longer before its blocks were cut).
#[test]
fn time_grows_no_faster_than_n_log_n() {
    let (small, large) = (4096usize, 32_700usize);
    let paths: Vec<(PathBuf, PathBuf)> = [small, large]
        .iter()
        .map(|&n| {
            let asm = scratch(&format!("rel{n}.asm"));
            let vso = scratch(&format!("rel{n}.vso"));
            std::fs::write(&asm, relative_shader(n)).unwrap();
            let out = dxso(&["asm", asm.to_str().unwrap(), "-o", vso.to_str().unwrap()]);
            assert!(out.status.success());
            (asm, vso)
        })
        .collect();
    let growth = large as f64 / small as f64;
    let bound = growth * (large as f64).ln() / (small as f64).ln() * 2.5;
    let mut commands: Vec<(String, Vec<&'static str>)> = vec![
        ("asm".into(), vec!["asm", "-o", "/dev/null"]),
        ("dis".into(), vec!["dis"]),
        ("check".into(), vec!["check"]),
    ];
    for to in TARGETS {
        commands.push((
            format!("translate --to {to}"),
            vec!["translate", "--to", to, "-o", "/dev/null"],
        ));
    }
    let mut report = Vec::new();
    for (name, args) in &commands {
        let times: Vec<Duration> = paths
            .iter()
            .map(|(asm, vso)| {
                let input: &Path = if args[0] == "dis" { vso } else { asm };
                let mut a: Vec<&Path> = vec![Path::new(args[0]), input];
                a.extend(args[1..].iter().map(Path::new));
                fastest(&a, 3)
            })
            .collect();
        let ratio = times[1].as_secs_f64() / times[0].as_secs_f64().max(1e-3);
        report.push(format!(
            "{name}: {:.3} s -> {:.3} s ({ratio:.1}x)",
            times[0].as_secs_f64(),
            times[1].as_secs_f64()
        ));
        assert!(
            ratio < bound,
            "{name}: {small} -> {large} instructions took {ratio:.1}x longer (bound {bound:.1}): {report:?}"
        );
    }
    eprintln!("{}", report.join("\n"));
    for (asm, vso) in paths {
        let _ = std::fs::remove_file(asm);
        let _ = std::fs::remove_file(vso);
    }
}
