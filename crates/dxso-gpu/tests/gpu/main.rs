//! dxso-gpu against dxso-vm on a real adapter (Mesa's lavapipe on a machine without a GPU).
//! Without an adapter each test prints a notice and passes; under `CI=true` it fails.

mod compare;
mod corpus;
mod instructions;
mod pixel;
mod pixel1x;
mod texture_kinds;
mod vertex;
mod workloads;

use dxso_gpu::Gpu;

/// The adapter, or `None` (with a notice) where there is none; a failure under `CI=true`.
pub fn gpu() -> Option<Gpu> {
    match Gpu::new(None) {
        Ok(g) => Some(g),
        Err(e @ dxso_gpu::Error::NoAdapter { .. }) => {
            if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
                panic!("{e}; CI=true requires a GPU adapter");
            }
            eprintln!("notice: {e}; skipping this GPU test");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// `../shared/<sub>` beside the repository, as the other suites find it.
pub fn shared(sub: &str) -> Option<std::path::PathBuf> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared")
        .join(sub);
    if dir.exists() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("{} is missing, and CI=true requires it", dir.display());
    }
    eprintln!("notice: {} not found; skipping", dir.display());
    None
}

#[test]
fn no_adapter_by_that_name_says_how_to_get_one() {
    let Err(e) = Gpu::new(Some("no adapter is called this")) else {
        panic!("an adapter matched a name no adapter has");
    };
    let text = e.to_string();
    assert!(matches!(e, dxso_gpu::Error::NoAdapter { .. }), "{text}");
    assert!(text.contains("\"no adapter is called this\""), "{text}");
    assert!(text.contains("mesa-vulkan-drivers"), "{text}");
}
