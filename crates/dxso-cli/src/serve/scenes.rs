//! Every call the playground makes into scenes and draws, in one place (the scene reader is
//! moving to `dxso_draw::scene`; this file is what follows it).

use super::api::{ApiError, num};
use crate::outputs::OutputWriter;
use crate::run::RunFormat;
use dxso_cli::scene::Scene;
use dxso_draw::{DrawError, DrawScene};
use serde_json::{Value, json};
use std::path::Path;

/// The most vertices (vertex count times instance count) one request runs: the table a page
/// shows; `dxso run` takes any number.
pub const MAX_VERTICES: usize = 1 << 16;

/// Read a run scene (the JSON `dxso run` takes); its relative paths are relative to `dir`.
fn load(scene: &str, dir: &Path) -> Result<Scene, ApiError> {
    if is_draw_scene(scene) {
        return Err(ApiError::input(
            "a draw scene (it names a pixel shader, draws or targets): /api/draw draws it, /api/pixel debugs a pixel",
        ));
    }
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

/// The most pixels (width × height) of a frame one `draw` or `pixel` request draws; `dxso
/// draw` takes any size dxso-draw does.
pub const MAX_PIXELS: u64 = 1 << 22;

/// Read a draw scene (the JSON `dxso draw` takes).
fn load_draw(scene: &str, dir: &Path) -> Result<DrawScene, ApiError> {
    let scene = DrawScene::from_json(scene, dir).map_err(draw_error)?;
    let pixels = u64::from(scene.frame.width) * u64::from(scene.frame.height);
    if pixels > MAX_PIXELS {
        return Err(ApiError::input(format!(
            "the frame is {}x{}; the playground draws at most {MAX_PIXELS} pixels (dxso draw takes more)",
            scene.frame.width, scene.frame.height
        )));
    }
    Ok(scene)
}

/// A draw's error: the scene's (422) or dxso's own defect (500).
fn draw_error(e: DrawError) -> ApiError {
    match e {
        DrawError::Internal(_) => ApiError::internal(e.to_string()),
        e => ApiError::input(e.to_string()),
    }
}

/// Whether a scene's text is a draw scene rather than a run scene.
fn is_draw_scene(scene: &str) -> bool {
    dxso_draw::scene::is_draw_scene(scene)
}

/// `/api/draw`: target `target` of the drawn frame as a PNG (`dxso draw -o OUT.png`).
pub fn draw(scene: &str, dir: &Path, target: usize) -> Result<Vec<u8>, ApiError> {
    let scene = load_draw(scene, dir)?;
    let targets = scene.frame.targets.len();
    if target >= targets {
        return Err(ApiError::input(format!(
            "target {target}: the scene has {targets} render target{}",
            if targets == 1 { "" } else { "s" }
        )));
    }
    let surfaces = dxso_draw::draw_frame(&scene.frame, &scene.draws).map_err(draw_error)?;
    let mut png = Vec::new();
    crate::draw::encode_png(&surfaces, target, &mut png)
        .ok_or_else(|| ApiError::input(format!("target {target}: no such target")))?
        .map_err(|e| ApiError::internal(format!("{e:#}")))?;
    Ok(png)
}

/// `/api/pixel`: the pixel debugger at (x, y) (`dxso draw --trace-pixel X,Y`), and what the
/// surfaces hold there (`dxso draw --pixel X,Y`).
pub fn pixel(scene: &str, dir: &Path, x: u32, y: u32) -> Result<Value, ApiError> {
    let scene = load_draw(scene, dir)?;
    let (width, height) = (scene.frame.width, scene.frame.height);
    if x >= width || y >= height {
        return Err(ApiError::input(format!(
            "pixel {x},{y} is outside the {width}x{height} frame"
        )));
    }
    let (surfaces, reports) =
        dxso_draw::trace_pixel(&scene.frame, &scene.draws, x, y).map_err(draw_error)?;
    let value = surfaces.pixel(x, y).map(|p| {
        json!({
            "targets": p.targets.iter().map(|t| t.map(num)).collect::<Vec<_>>(),
            "z": p.z.map(num),
            "stencil": p.stencil,
        })
    });
    let draws: Vec<Value> = reports
        .iter()
        .map(|r| {
            json!({
                "draw": r.draw,
                "inputs": r.inputs.iter().map(|(semantic, v)| json!({
                    "semantic": semantic, "value": v.map(num),
                })).collect::<Vec<_>>(),
                "shader": r.shader.as_ref().map(|t| json!({
                    "steps": t.steps.iter().map(|s| json!({
                        "instruction": s.instruction, "text": s.text, "effect": s.effect,
                        "active": s.active,
                    })).collect::<Vec<_>>(),
                    "stopped": t.error.as_ref().map(|e| e.to_string()),
                })),
                "discarded": r.discarded,
                "merge": {"steps": r.merge.steps, "written": r.merge.written},
            })
        })
        .collect();
    Ok(json!({
        "x": x, "y": y, "width": width, "height": height,
        "pixel": value,
        "draws": draws,
        "text": crate::draw::trace_text(&scene, x, y, &reports),
    }))
}
