//! Peak memory of `dxso asm`, `dis` and `check` on a large shader made of the shortest
//! instructions there are (`nop`: a 4-byte line, one token): within ten times the input's
//! size plus 64 MB (the README's limits table). `asm` and `dis` hold only the input and the
//! tokens, each instruction's IR for as long as it is encoded or printed; held whole, the
//! IR of a `nop` is about 25 times its line. `check` holds at most
//! `dxso::source::MAX_INSTRUCTIONS` instructions and counts the rest. `translate`, to every
//! target, of a shader as large as a valid one gets and of one whose calls would multiply
//! past `dxso_naga::MAX_TRANSLATED_INSTRUCTIONS`, within the same bound.

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The input's size: 2,097,152 `nop` lines.
const NOPS: usize = 2 << 20;

/// Run `dxso ARGS...` (stdout and stderr discarded); its exit status must be `code`. Returns
/// its maximum resident set size in bytes.
// The child is reaped by `wait4` (which also gives its resource usage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn peak_bytes(args: &[&Path], code: i32) -> u64 {
    let child = Command::new(env!("CARGO_BIN_EXE_dxso"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("dxso runs");
    let mut status = 0;
    // SAFETY: `rusage` is plain data that wait4 fills in; the pid is our own child, waited
    // for once.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; `status` and `usage` are live locals wait4 writes.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == code,
        "dxso {args:?}: status {status}"
    );
    // Linux reports ru_maxrss in kilobytes.
    usage.ru_maxrss as u64 * 1024
}

/// [`peak_bytes`] without what the child inherits: Linux starts a process's peak at the peak
/// of the process that executed it, so a child of this test binary, while other tests hold
/// tens of MiB, reports at least that. A fresh copy of this binary (a few MiB) runs
/// `dxso ARGS...` in its place ([`peak_of_a_grandchild`]) and prints its peak.
fn own_peak_bytes(args: &[&Path], code: i32) -> u64 {
    let joined = args
        .iter()
        .map(|a| a.to_str().expect("UTF-8 path"))
        .collect::<Vec<_>>()
        .join("\u{1f}");
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            "peak_memory::peak_of_a_grandchild",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(PEAK_ARGS, joined)
        .env(PEAK_CODE, code.to_string())
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .find_map(|l| Some(l.split_once("dxso peak bytes: ")?.1))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak reported: {stdout}"))
}

const PEAK_ARGS: &str = "DXSO_PEAK_ARGS";
const PEAK_CODE: &str = "DXSO_PEAK_CODE";

/// Run by [`own_peak_bytes`] in a fresh copy of the test binary (nothing without its
/// environment).
#[test]
#[ignore = "run by own_peak_bytes"]
fn peak_of_a_grandchild() {
    let (Some(args), Some(code)) = (std::env::var_os(PEAK_ARGS), std::env::var_os(PEAK_CODE))
    else {
        return;
    };
    let args = args.to_str().expect("UTF-8").to_string();
    let args: Vec<&Path> = args.split('\u{1f}').map(Path::new).collect();
    let code: i32 = code.to_str().and_then(|c| c.parse().ok()).expect("a code");
    println!("dxso peak bytes: {}", peak_bytes(&args, code));
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("dxso-peak-{}-{name}", std::process::id()))
}

#[test]
fn asm_dis_and_check_hold_about_the_input() {
    let listing = scratch("nops.asm");
    let tokens = scratch("nops.vso");
    let mut text = String::with_capacity(7 + 4 * NOPS);
    text.push_str("vs_3_0\n");
    for _ in 0..NOPS {
        text.push_str("nop\n");
    }
    std::fs::write(&listing, &text).unwrap();
    let size = text.len() as u64;
    drop(text);
    let limit = 10 * size + (64 << 20);

    let asm = peak_bytes(&[Path::new("asm"), &listing, Path::new("-o"), &tokens], 0);
    let token_size = std::fs::metadata(&tokens).unwrap().len();
    // The version token, a token per nop and the end token.
    assert_eq!(token_size, 4 * (NOPS as u64 + 2));
    let dis = peak_bytes(&[Path::new("dis"), &tokens], 0);
    // Far past what any valid shader has: `check` says so (exit 1) without holding it all.
    let check_text = peak_bytes(&[Path::new("check"), &listing], 1);
    let check_tokens = peak_bytes(&[Path::new("check"), &tokens], 1);
    let _ = std::fs::remove_file(&listing);
    let _ = std::fs::remove_file(&tokens);
    let mib = |b: u64| b as f64 / f64::from(1 << 20);
    eprintln!(
        "input {:.1} MiB, limit {:.1} MiB: asm {:.1} MiB, dis {:.1} MiB, check {:.1} MiB (text) \
         and {:.1} MiB (tokens)",
        mib(size),
        mib(limit),
        mib(asm),
        mib(dis),
        mib(check_text),
        mib(check_tokens)
    );
    assert!(asm <= limit, "asm: {asm} bytes, more than {limit}");
    assert!(
        check_text <= limit,
        "check: {check_text} bytes, more than {limit}"
    );
    // dis reads a token file of the same size as the listing (4 bytes per nop).
    let limit = 10 * token_size + (64 << 20);
    assert!(dis <= limit, "dis: {dis} bytes, more than {limit}");
    assert!(
        check_tokens <= limit,
        "check: {check_tokens} bytes, more than {limit}"
    );
}

/// A scene drawing three vertices of mesh `obj`: the draw's `vertex_count` differs from the
/// mesh's, so `dxso run` loads the mesh, then exits 1 — what is measured is the loading.
fn mesh_scene(obj: &Path) -> PathBuf {
    let scene = obj.with_extension("json");
    let doc = serde_json::json!({
        "shader_asm": "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n",
        "mesh": {"file": obj},
        "vertex_count": 3,
    });
    std::fs::write(&scene, doc.to_string()).unwrap();
    scene
}

/// The densest OBJ there is (`f 1 1 1`: 8 bytes, three face corners) costs the OBJ reader
/// about 36 bytes a corner: 8 MiB of it loads within the bound, 16 MiB is refused before the
/// reader runs (`OBJ_BYTES_PER_CORNER`), both within ten times the file plus 64 MiB.
#[test]
fn mesh_loading_holds_about_the_input() {
    let mib = |b: u64| b as f64 / f64::from(1 << 20);
    for (faces, refused) in [(1 << 20, false), (2 << 20, true)] {
        let obj = scratch(&format!("dense-{faces}.obj"));
        let mut text = String::with_capacity(8 + 8 * faces);
        text.push_str("v 0 0 0\n");
        for _ in 0..faces {
            text.push_str("f 1 1 1\n");
        }
        std::fs::write(&obj, &text).unwrap();
        let size = text.len() as u64;
        drop(text);
        let scene = mesh_scene(&obj);
        let peak = peak_bytes(
            &[
                Path::new("run"),
                &scene,
                Path::new("-o"),
                Path::new("/dev/null"),
            ],
            1,
        );
        let out = Command::new(env!("CARGO_BIN_EXE_dxso"))
            .args([
                Path::new("run"),
                &scene,
                Path::new("-o"),
                Path::new("/dev/null"),
            ])
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&obj);
        let _ = std::fs::remove_file(&scene);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let limit = 10 * size + (64 << 20);
        eprintln!(
            "OBJ {:.1} MiB, limit {:.1} MiB: run {:.1} MiB",
            mib(size),
            mib(limit),
            mib(peak)
        );
        assert!(peak <= limit, "run: {peak} bytes, more than {limit}");
        let says = if refused {
            "face corners would take about"
        } else {
            "differs from the mesh's"
        };
        assert!(stderr.contains(says), "{stderr}");
    }
}

/// `dxso translate` of a shader as large as a valid one gets (32,700 instructions, half of
/// them relative constant reads) to every target, and of a small one whose calls would
/// inline millions of bodies (refused at `MAX_TRANSLATED_INSTRUCTIONS`, exit 1): each within
/// ten times the input plus 64 MB.
#[test]
fn translate_holds_about_the_input() {
    let mib = |b: u64| b as f64 / f64::from(1 << 20);
    let large = scratch("relative.asm");
    let text = dxso_testdata::shaders::relative_shader(32_700);
    std::fs::write(&large, &text).unwrap();
    let nested = scratch("nested.asm");
    let calls = dxso_testdata::shaders::nested_calls(40);
    std::fs::write(&nested, &calls).unwrap();
    let mut report = Vec::new();
    let mut over = Vec::new();
    for (file, size, code) in [
        (&large, text.len() as u64, 0),
        (&nested, calls.len() as u64, 1),
    ] {
        let limit = 10 * size + (64 << 20);
        for to in ["wgsl", "spirv", "glsl", "msl", "hlsl"] {
            let peak = own_peak_bytes(
                &[
                    Path::new("translate"),
                    file,
                    Path::new("--to"),
                    Path::new(to),
                    Path::new("-o"),
                    Path::new("/dev/null"),
                ],
                code,
            );
            let line = format!(
                "{}: input {:.2} MiB, limit {:.1} MiB: translate --to {to} {:.1} MiB",
                file.display(),
                mib(size),
                mib(limit),
                mib(peak)
            );
            if peak > limit {
                over.push(line.clone());
            }
            report.push(line);
        }
    }
    let _ = std::fs::remove_file(&large);
    let _ = std::fs::remove_file(&nested);
    eprintln!("{}", report.join("\n"));
    assert!(over.is_empty(), "over the limit: {over:#?}");
}

/// `dxso run` streams a CPU draw's outputs a part at a time (`Device::draw_parts`): a
/// 201-byte scene whose stride-0 stream feeds 2^24 vertices writes 256 MiB of `--format
/// bin` (and about 1 GiB of csv) in memory bounded by the part, not the draw. Held whole, the
/// bin outputs were 532 MiB at the peak (the floats and their bytes).
#[test]
fn run_streams_its_outputs() {
    let scene = scratch("stream.json");
    std::fs::write(
        &scene,
        format!(
            r#"{{"shader_asm": "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n", "vertex_count": {}, "declaration": [{{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION"}}], "streams": [{{"stride": 0, "f32": [1, 2, 3, 4]}}]}}"#,
            1 << 24
        ),
    )
    .unwrap();
    let out = scratch("stream.out");
    for format in ["bin", "csv"] {
        let peak = own_peak_bytes(
            &[
                Path::new("run"),
                &scene,
                Path::new("--format"),
                Path::new(format),
                Path::new("-o"),
                &out,
            ],
            0,
        );
        let written = std::fs::metadata(&out).unwrap().len();
        if format == "bin" {
            assert_eq!(written, 16 << 24, "every vertex's o0 written");
        }
        assert!(
            peak < 96 << 20,
            "run --format {format}: peak {} MiB for {} MiB written",
            peak >> 20,
            written >> 20
        );
    }
    // The GPU path streams too: without it, the fetched inputs and the outputs (256 MiB
    // each) would be held whole, over the bound with lavapipe's own memory beside them.
    if crate::gpu::have_adapter() {
        let peak = own_peak_bytes(
            &[
                Path::new("run"),
                &scene,
                Path::new("--gpu"),
                Path::new("--format"),
                Path::new("bin"),
                Path::new("-o"),
                &out,
            ],
            0,
        );
        assert_eq!(std::fs::metadata(&out).unwrap().len(), 16 << 24);
        assert!(peak < 384 << 20, "run --gpu: peak {} MiB", peak >> 20);
    }
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&scene);
}
