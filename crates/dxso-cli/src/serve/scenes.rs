//! Every call the playground makes into scenes and draws, in one place (the scene reader is
//! moving to `dxso_draw::scene`; this file is what follows it).

use super::api::{ApiError, num};
use crate::outputs::OutputWriter;
use crate::run::RunFormat;
use dxso_cli::scene::Scene;
use serde_json::{Value, json};
use std::path::Path;

/// The most vertices (vertex count times instance count) one request runs: the table a page
/// shows; `dxso run` takes any number.
pub const MAX_VERTICES: usize = 1 << 16;

/// Read a run scene (the JSON `dxso run` takes); its relative paths are relative to `dir`.
fn load(scene: &str, dir: &Path) -> Result<Scene, ApiError> {
    let scene = Scene::from_json(scene, dir).map_err(|e| ApiError::input(format!("{e:#}")))?;
    let vertices = scene
        .vertex_count
        .saturating_mul(scene.instance_count.max(1));
    if vertices > MAX_VERTICES {
        return Err(ApiError::input(format!(
            "the scene draws {} vertices; the playground runs at most {MAX_VERTICES} (dxso run takes any number)",
            if vertices == usize::MAX {
                "too many".to_string()
            } else {
                vertices.to_string()
            }
        )));
    }
    Ok(scene)
}

/// `/api/run`: the scene's output vertices as `dxso run` prints them, plus `"warnings"`.
pub fn run(scene: &str, dir: &Path) -> Result<Value, ApiError> {
    let scene = load(scene, dir)?;
    let out = scene
        .device
        .draw(scene.vertex_count, scene.instance_count)
        .map_err(|e| ApiError::input(e.to_string()))?;
    let mut writer = OutputWriter::new(RunFormat::Json, Vec::new());
    writer
        .part(&out)
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let text = writer
        .finish()
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let mut doc: Value =
        serde_json::from_slice(&text).map_err(|e| ApiError::internal(e.to_string()))?;
    let mut warnings = scene.warnings.clone();
    for u in &out.unbound_inputs {
        warnings.push(format!(
            "warning: {u} is declared by the shader but no declaration element feeds it; it reads (0, 0, 0, 1)"
        ));
    }
    if let Some(obj) = doc.as_object_mut() {
        obj.insert("warnings".into(), json!(warnings));
    }
    Ok(doc)
}

/// The most instructions a traced vertex runs: D3D9's smallest
/// `MaxVShaderInstructionsExecuted` (a trace holds every step it ran; the caps the scene's
/// shader is checked with allow 2^24).
pub const MAX_TRACED_INSTRUCTIONS: u64 = 0xFFFF;

/// `/api/trace`: what `dxso run --trace N` prints, as JSON and as its text.
pub fn trace(scene: &str, dir: &Path, vertex: usize) -> Result<Value, ApiError> {
    let mut scene = load(scene, dir)?;
    scene.device.set_max_instructions(MAX_TRACED_INSTRUCTIONS);
    let t = crate::run::trace_vertex(&scene, vertex).map_err(|e| ApiError::input(e.to_string()))?;
    Ok(json!({
        "vertex": t.vertex,
        "steps": t.steps.iter().map(|s| json!({
            "instruction": s.instruction, "text": s.text, "effect": s.effect,
            "active": s.active, "constants": s.names.trim(),
        })).collect::<Vec<_>>(),
        "outputs": t.outputs.iter().map(|(name, semantic, v)| json!({
            "register": name, "semantic": semantic, "value": v.map(num),
        })).collect::<Vec<_>>(),
        "stopped": t.stopped,
        "text": t.render(),
    }))
}
