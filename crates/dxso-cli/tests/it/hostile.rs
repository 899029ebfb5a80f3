//! Hostile inputs (`tests/data/hostile/`): each once made a command panic, abort or allocate
//! without bound. Each is replayed here and must end in an ordinary error (exit 1) whose
//! message names what is wrong — the limit, where one applies.

use std::path::PathBuf;
use std::process::Command;

fn hostile(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hostile")
        .join(name)
}

/// Run `dxso ARGS...` with the hostile file `name` last; it must exit 1 with `fragment` in
/// its stderr (and no panic).
fn refuses(args: &[&str], name: &str, fragment: &str) {
    let path = hostile(name);
    let out = Command::new(env!("CARGO_BIN_EXE_dxso"))
        .args(args)
        .arg(&path)
        .output()
        .expect("dxso runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "dxso {args:?} {name}: {err}");
    assert!(!err.contains("panicked"), "dxso {args:?} {name}: {err}");
    assert!(
        err.contains(fragment),
        "dxso {args:?} {name}: wanted {fragment:?} in: {err}"
    );
}

#[test]
fn macro_expansion_is_bounded() {
    // 35 bytes whose macro named itself six times: expanded 16 rounds deep it made gigabytes.
    refuses(
        &["asm"],
        "macro_self.asm",
        "3:5: error: register 'a' needs a number",
    );
    // Fifteen macros, each using the one before twice: 2^15 copies, past the line limit.
    refuses(&["asm"], "macro_bomb.asm", "MAX_MACRO_EXPANSION");
    refuses(&["check"], "macro_bomb.asm", "MAX_MACRO_EXPANSION");
}

#[test]
fn texture_files_are_checked_before_allocating() {
    // A 69-byte PNG declaring 100000x100000: was a 40 GB allocation and an abort.
    refuses(&["run"], "png_huge.json", "MAX_TEXTURE_SIZE");
    // Too large was reported as too small.
    refuses(&["run"], "png_wide.json", "too large");
    refuses(
        &["run"],
        "texture_wide.json",
        "too large: a dimension exceeds MAX_TEXTURE_SIZE",
    );
    // DDS headers: 2^32-1 square with 32 levels; a 4096^3 volume (2^36 texels).
    refuses(&["run"], "dds_huge.json", "MAX_TEXTURE_SIZE");
    refuses(&["run"], "dds_volume.json", "MAX_TEXTURE_TEXELS");
}

#[test]
fn scene_numbers_use_checked_arithmetic() {
    // A stream offset of 2^64-1 wrapped the bounds check, then fetch panicked.
    refuses(
        &["run"],
        "stream_offset.json",
        "reads past the end of the stream",
    );
    refuses(&["run", "--trace", "0"], "stream_offset.json", "reads past");
    // A glTF index of 2^32 - 1 in a second primitive wrapped when offset to its vertices.
    refuses(&["run"], "index_wrap.json", "exceeds 2^32 - 1");
    // A multi-byte character in "hex" was sliced through.
    refuses(&["run"], "hex_multibyte.json", "is not a hex digit");
}

#[test]
fn repeated_diagnostics_are_summarised() {
    // 40 nested `if b#`: one V053 for each of the 16 levels past 24; 10 are shown.
    let out = Command::new(env!("CARGO_BIN_EXE_dxso"))
        .arg("check")
        .arg(hostile("nested_if.asm"))
        .output()
        .expect("dxso runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("error[V053]").count(), 10, "{err}");
    assert!(err.contains("nested_if.asm:28:1: error[V053]"), "{err}");
    assert!(
        err.contains(
            "nested_if.asm: note: 6 more [V053] diagnostics not shown (at most 10 per rule)"
        ),
        "{err}"
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("(16 errors, 0 warnings)"), "{summary}");
}
