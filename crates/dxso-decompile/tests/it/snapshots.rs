//! Snapshots of a dozen real corpus shaders (`../shared/corpus/dx9-asm`, read at test time:
//! the corpus does not ship) decompiled for fxc. Each expected file under
//! `tests/snapshots/` was read by a person and judged readable; a change to the output shows
//! here as a diff to read again. `DXSO_BLESS=1` rewrites the files.

use dxso_decompile::{Options, decompile_with_table, listing_table};
use std::path::Path;

/// The shaders: what each one shows.
const SHADERS: &[(&str, &str)] = &[
    (
        "vs_2_0/1aa06e7d9989",
        "a Direct3D 11 header ignored: registers as c#",
    ),
    (
        "vs_2_x/aeb12f608b03",
        "Unity 5 (d3d11_9x) header ignored, position fix-ups",
    ),
    (
        "vs_3_0/0a5aa9e740bd",
        "Unity header: row_major matrices, texldl stereo fix",
    ),
    (
        "vs_3_0/05a5a6a02c2f",
        "Source skinning: relative bone reads, a light loop",
    ),
    ("vs_3_0/00135a3929e7", "vs_3_0 with if"),
    ("ps_2_0/b6d1e6a4af47", "rcp/rsq chains, cmp"),
    (
        "ps_2_0/63e5ee3fc2b6",
        "a blur: texture reads folded into one sum",
    ),
    ("ps_2_x/68da99ca8b80", "specular: normalize, pow, texCUBE"),
    ("ps_3_0/25b0a29f24dd", "overlay blend: cmp as ?:, lerp"),
    ("ps_3_0/182c094c5d8d", "light shafts: rep as a counted for"),
    ("ps_3_0/11d1caf72122", "bilateral blur: loop with break_ge"),
    ("ps_3_0/347e1d0e3a53", "vPos, texldp, pow"),
];

fn decompile(source: &str) -> String {
    let shader = dxso::text::parse(source).expect("assembles");
    let checked =
        dxso::validate::validate(&shader, &dxso::validate::Caps::max()).expect("validates");
    let table = listing_table(source, shader.version);
    decompile_with_table(&checked, table.as_ref(), &Options::default()).expect("decompiles")
}

#[test]
fn a_dozen_corpus_shaders_read_as_reviewed() {
    let Some(dir) = dxso_testdata::shared("corpus/dx9-asm") else {
        return;
    };
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let bless = std::env::var_os("DXSO_BLESS").is_some();
    let mut differ = Vec::new();
    for (name, _) in SHADERS {
        let source = dxso_testdata::read_text(&dir.join(format!("{name}.asm")));
        let hlsl = decompile(&source);
        let file = snapshots.join(format!("{}.hlsl", name.replace('/', "_")));
        if bless {
            std::fs::write(&file, &hlsl).expect("writable snapshot");
            continue;
        }
        let expected = std::fs::read_to_string(&file).unwrap_or_default();
        if expected != hlsl {
            eprintln!("--- {}\n{hlsl}", file.display());
            differ.push(*name);
        }
    }
    assert!(
        differ.is_empty(),
        "output differs from the snapshot: {differ:?}"
    );
}
