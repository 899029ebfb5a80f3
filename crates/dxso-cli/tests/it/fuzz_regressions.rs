//! Replays every kept fuzz finding through the fuzz target that found it, on stable, so the
//! ordinary `cargo test` (and CI) guards each fix without nightly or libFuzzer.
//!
//! The targets' code is `fuzz/src` itself (included below), so a kept input runs exactly the
//! checks the fuzzer ran. Inputs live in `tests/fuzz-regressions/<target>/`, one file each,
//! named after what they found; a target directory with no inputs replays nothing.

// The fuzz crate's `engine` feature gates are for its own builds (here `test` turns them
// on); `law` is used by the targets, not here.
#[allow(unexpected_cfgs, unused_imports)]
#[path = "../../../../fuzz/src/lib.rs"]
mod fuzz_targets;

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the panic hook: libFuzzer's hook aborts on every panic, even one the library
/// catches (a code generator's panic becomes a silent fallback), so the replay fails on
/// those too.
static PANICKED: AtomicBool = AtomicBool::new(false);
/// One target replays at a time (the flag is global).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Run every input kept for `target`; returns how many ran.
fn replay(target: &str, check: fn(&[u8])) -> usize {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICKED.store(true, Ordering::SeqCst);
            default(info);
        }));
    });
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-regressions")
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for f in &files {
        let data = std::fs::read(f).expect("readable input");
        eprintln!("replaying {}", f.display());
        PANICKED.store(false, Ordering::SeqCst);
        check(&data);
        assert!(
            !PANICKED.load(Ordering::SeqCst),
            "{}: a panic inside the library (caught there)",
            f.display()
        );
    }
    files.len()
}

macro_rules! targets {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            let n = replay(stringify!($name), fuzz_targets::$name);
            eprintln!("{} inputs replayed", n);
        }
    )*};
}

targets!(
    reader,
    assembler,
    validator,
    linker,
    ctab,
    scene,
    draw_scene,
    dds,
    png,
    obj,
    gltf,
    differential,
    differential_pixel,
    translate,
);
