//! dxso-gpu against dxso-vm on a real adapter (Mesa's lavapipe on a machine without a GPU).
//! Without an adapter each test is skipped (named in the summary at exit); under `CI=true`
//! it fails.

mod compare;
mod corpus;
mod draw;
mod fetch;
mod instructions;
mod lacks;
mod pixel;
mod pixel1x;
mod texture_kinds;
mod vertex;
mod workloads;

use dxso_gpu::Gpu;

/// The adapter, or `None` (a skip) where there is none; a failure under `CI=true`.
pub fn gpu() -> Option<Gpu> {
    match Gpu::new(None) {
        Ok(g) => Some(g),
        Err(e @ dxso_gpu::Error::NoAdapter { .. }) => {
            dxso_testdata::skip(&format!("{e}"));
            None
        }
        Err(e) => panic!("{e}"),
    }
}

pub use dxso_testdata::shared;

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
