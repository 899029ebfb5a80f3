//! Peak memory of `dxso asm` and `dxso dis` on a large shader made of the shortest
//! instructions there are (`nop`: a 4-byte line, one token): within ten times the input's
//! size plus 64 MB (the README's limits table). Both commands hold only the input and the
//! tokens, each instruction's IR for as long as it is encoded or printed; held whole, the
//! IR of a `nop` is about 25 times its line.

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The input's size: 2,097,152 `nop` lines.
const NOPS: usize = 2 << 20;

/// Run `dxso ARGS...` (stdout discarded); its exit status must be 0. Returns its maximum
/// resident set size in bytes.
// The child is reaped by `wait4` (which also gives its resource usage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn peak_bytes(args: &[&Path]) -> u64 {
    let child = Command::new(env!("CARGO_BIN_EXE_dxso"))
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .expect("dxso runs");
    let mut status = 0;
    // SAFETY: `rusage` is plain data that wait4 fills in; the pid is our own child, waited
    // for once.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "dxso {args:?}: status {status}"
    );
    // Linux reports ru_maxrss in kilobytes.
    usage.ru_maxrss as u64 * 1024
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("dxso-peak-{}-{name}", std::process::id()))
}

#[test]
fn asm_and_dis_hold_about_the_input() {
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

    let asm = peak_bytes(&[Path::new("asm"), &listing, Path::new("-o"), &tokens]);
    let token_size = std::fs::metadata(&tokens).unwrap().len();
    // The version token, a token per nop and the end token.
    assert_eq!(token_size, 4 * (NOPS as u64 + 2));
    let dis = peak_bytes(&[Path::new("dis"), &tokens]);
    let _ = std::fs::remove_file(&listing);
    let _ = std::fs::remove_file(&tokens);
    let mib = |b: u64| b as f64 / f64::from(1 << 20);
    eprintln!(
        "input {:.1} MiB, limit {:.1} MiB: asm {:.1} MiB, dis {:.1} MiB",
        mib(size),
        mib(limit),
        mib(asm),
        mib(dis)
    );
    assert!(asm <= limit, "asm: {asm} bytes, more than {limit}");
    // dis reads a token file of the same size as the listing (4 bytes per nop).
    let limit = 10 * token_size + (64 << 20);
    assert!(dis <= limit, "dis: {dis} bytes, more than {limit}");
}
