//! The guard-page test mode, tested: with a deliberately broken gather compiled in (a lane
//! clamped to the zero register reads one register past the padded constant file), a draw in
//! guard-page mode dies of SIGSEGV, while the same broken code without the mode returns
//! normally, its wrong read unnoticed. Each draw runs in a child process (this test binary,
//! re-run with a filter for `child_draw` and the way to draw in the environment).

use crate::{CodeGenerator, Device, Isa};
use std::process::{Command, ExitStatus};

/// The child's instructions: `<generator>,<guard>` (`avx512|avx512-unfused|avx2|cranelift`,
/// `on|off`).
const CHILD: &str = "DXSO_GUARD_TEST_CHILD";

/// Vertices per draw: one full batch (fused code runs full batches).
const N: usize = crate::LANES;

/// Every vertex reads `c[a0.x]` with a0.x far past the file: the zero register.
fn gather_device(isa: Isa, guard: bool) -> Device {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\nmova a0.x, v0.x\nmov o0, c[a0.x]\n";
    let mut dev = crate::safety_tests::float4_device(src, &[[100_000.0, 0.0, 0.0, 1.0]; N]);
    dev.set_isa(isa);
    dev.set_guard_pages(guard);
    dev.set_threads(Some(1)).unwrap();
    // Every register of the file is non-zero: only the zero register reads as zeros.
    dev.set_constant_f(0, &vec![[7.0; 4]; 256]).unwrap();
    dev
}

/// Not a test of its own: the child's draw, when the environment names one.
#[test]
fn child_draw() {
    let Ok(way) = std::env::var(CHILD) else {
        return;
    };
    let (generator, guard) = way.split_once(',').expect("generator,guard");
    // Cranelift compiles on the base path (the x86 generator takes the others).
    let isa = match generator {
        "cranelift" => Isa::Base,
        "avx2" => Isa::Avx2,
        _ => Isa::Avx512,
    };
    let mut dev = gather_device(isa, guard == "on");
    let options = crate::Options {
        fuse: generator != "avx512-unfused",
        ..dev.options().clone()
    };
    dev.set_options(options);
    let out = dev.draw(N, 1).expect("draws");
    let want = match generator {
        "cranelift" => CodeGenerator::Cranelift,
        "avx2" => CodeGenerator::Avx2,
        _ => CodeGenerator::Avx512,
    };
    assert_eq!(dev.code_generator(), Some(want));
    assert_eq!(
        dev.last_draw_fused(),
        generator == "avx512" || generator == "avx2"
    );
    // The child's verdict on its outputs, for the parent to read.
    let zeros = out.data.iter().all(|&x| x == 0.0);
    println!("outputs-zero={zeros}");
}

/// Run the child draw: its exit status and whether it reported zero outputs.
fn child(generator: &str, guard: bool, broken: bool) -> (ExitStatus, Option<bool>) {
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--exact", "guard_tests::child_draw", "--nocapture"])
        .args(["--test-threads", "1"])
        .env(
            CHILD,
            format!("{generator},{}", if guard { "on" } else { "off" }),
        )
        .env("DXSO_TEST_BREAK_GATHER", if broken { "1" } else { "0" })
        .output()
        .expect("runs the child");
    let text = String::from_utf8_lossy(&out.stdout);
    let zeros = if text.contains("outputs-zero=true") {
        Some(true)
    } else if text.contains("outputs-zero=false") {
        Some(false)
    } else {
        None
    };
    (out.status, zeros)
}

fn generators() -> Vec<&'static str> {
    match Isa::detect() {
        Isa::Avx512 => vec!["avx512", "avx512-unfused", "avx2", "cranelift"],
        Isa::Avx2 => {
            eprintln!("no AVX-512 here: the AVX2 width and Cranelift only");
            vec!["avx2", "cranelift"]
        }
        Isa::Base => {
            eprintln!("no AVX2 here: Cranelift only");
            vec!["cranelift"]
        }
    }
}

#[cfg(unix)]
#[test]
fn guard_pages_catch_a_gather_past_the_constant_file() {
    use std::os::unix::process::ExitStatusExt;
    for g in generators() {
        // Sound code, guarded: runs clean and reads the zero register.
        let (status, zeros) = child(g, true, false);
        assert!(status.success(), "{g}: {status:?}");
        assert_eq!(zeros, Some(true), "{g}");
        // The broken gather, guarded: the read one register past the padded file faults.
        let (status, _) = child(g, true, true);
        assert_eq!(status.signal(), Some(libc::SIGSEGV), "{g}: {status:?}");
        // The same broken gather unguarded: the draw returns, the wrong read unnoticed
        // (which is what the mode is for).
        let (status, _) = child(g, false, true);
        assert!(status.success(), "{g}: {status:?}");
    }
}
