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
            "a draw scene (it names a pixel shader, draws or targets): /api/draw draws it, /api/pixel debugs a pixel; give \"draw\": N to run draw N's vertex stage",
        ));
    }
    let mut scene = Scene::from_json(scene, dir).map_err(|e| ApiError::input(format!("{e:#}")))?;
    scene.device.set_options(dxso_vm::Options::from_env());
    check_vertices(scene.vertex_count, scene.instance_count)?;
    Ok(scene)
}

/// Refuse a draw of more than [`MAX_VERTICES`] vertices.
fn check_vertices(vertex_count: usize, instance_count: usize) -> Result<(), ApiError> {
    let vertices = vertex_count.saturating_mul(instance_count.max(1));
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
    Ok(())
}

/// The vertex stage a `run` or `trace` request runs: a run scene's device, or (with `draw`)
/// the vertex stage of draw `draw` of a draw scene; its vertex and instance counts and the
/// loader's warnings.
struct Stage {
    device: dxso_vm::Device,
    vertex_count: usize,
    instance_count: usize,
    warnings: Vec<String>,
}

fn stage(scene: &str, dir: &Path, draw: Option<usize>) -> Result<Stage, ApiError> {
    let Some(n) = draw else {
        let s = load(scene, dir)?;
        return Ok(Stage {
            device: s.device,
            vertex_count: s.vertex_count,
            instance_count: s.instance_count,
            warnings: s.warnings,
        });
    };
    if !is_draw_scene(scene) {
        return Err(ApiError::input(format!(
            "draw {n}: a run scene has no draws (leave \"draw\" out)"
        )));
    }
    let mut s = load_draw(scene, dir)?;
    let count = s.draws.len();
    if n >= count {
        return Err(ApiError::input(format!(
            "draw {n}: the scene has {count} draw{}",
            if count == 1 { "" } else { "s" }
        )));
    }
    let d = s.draws.swap_remove(n);
    check_vertices(d.vertex_count, d.instance_count)?;
    Ok(Stage {
        device: d.vertex,
        vertex_count: d.vertex_count,
        instance_count: d.instance_count,
        warnings: s.warnings,
    })
}

/// `/api/run`: the scene's output vertices as `dxso run` prints them, plus `"warnings"`; with
/// `draw`, those of a draw scene's draw `draw`.
pub fn run(scene: &str, dir: &Path, draw: Option<usize>) -> Result<Value, ApiError> {
    let stage = stage(scene, dir, draw)?;
    let out = stage
        .device
        .draw(stage.vertex_count, stage.instance_count)
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
    let mut warnings = stage.warnings;
    for u in &out.unbound_inputs {
        warnings.push(format!(
            "warning: {u} is declared by the shader but no declaration element feeds it; it reads (0, 0, 0, 1)"
        ));
    }
    if let Some(obj) = doc.as_object_mut() {
        obj.insert("warnings".into(), json!(warnings));
        if let Some(n) = draw {
            obj.insert("draw".into(), json!(n));
        }
    }
    Ok(doc)
}

/// One traced instruction as the `trace` (a vertex's) and `pixel` (a pixel shader's) replies
/// give it: the vertex's also name the constants the instruction reads.
#[derive(serde::Serialize)]
struct JsonStep<'a> {
    instruction: usize,
    text: &'a str,
    effect: &'a str,
    active: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    constants: Option<&'a str>,
}

impl<'a> JsonStep<'a> {
    fn vertex(s: &'a crate::run::TraceLine) -> Self {
        JsonStep {
            instruction: s.instruction,
            text: &s.text,
            effect: &s.effect,
            active: s.active,
            constants: Some(s.names.trim()),
        }
    }

    fn pixel(s: &'a dxso_vm::TraceStep) -> Self {
        JsonStep {
            instruction: s.instruction,
            text: &s.text,
            effect: &s.effect,
            active: s.active,
            constants: None,
        }
    }
}

/// The most instructions a traced vertex runs: D3D9's smallest
/// `MaxVShaderInstructionsExecuted` (a trace holds every step it ran; the caps the scene's
/// shader is checked with allow 2^24).
pub const MAX_TRACED_INSTRUCTIONS: u64 = 0xFFFF;

/// `/api/trace`: what `dxso run --trace N` prints, as JSON and as its text; with `draw`, a
/// vertex of a draw scene's draw `draw`.
pub fn trace(
    scene: &str,
    dir: &Path,
    vertex: usize,
    draw: Option<usize>,
) -> Result<Value, ApiError> {
    let mut stage = stage(scene, dir, draw)?;
    stage.device.set_max_instructions(MAX_TRACED_INSTRUCTIONS);
    let t = crate::run::trace_device(
        &stage.device,
        stage.vertex_count,
        stage.instance_count,
        vertex,
    )
    .map_err(|e| ApiError::input(e.to_string()))?;
    Ok(json!({
        "vertex": t.vertex,
        "steps": t.steps.iter().map(JsonStep::vertex).collect::<Vec<_>>(),
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
    let mut scene = DrawScene::from_json(scene, dir).map_err(draw_error)?;
    scene.set_options(&dxso_vm::Options::from_env());
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
                    "steps": t.steps.iter().map(JsonStep::pixel).collect::<Vec<_>>(),
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
