//! Scene textures and sampler states.

use anyhow::bail;
use dxso_vm::Device;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

pub fn apply(
    _device: &mut Device,
    _textures: &BTreeMap<String, Value>,
    _samplers: &BTreeMap<String, Value>,
    _dir: &Path,
) -> anyhow::Result<()> {
    bail!("vertex textures are not supported yet")
}
