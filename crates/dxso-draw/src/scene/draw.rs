//! `dxso draw` scenes (`../shared/CLI.md`, "dxso draw"): the frame — `width`, `height`,
//! `targets`, `depth_stencil`, `clear` — and its draws: the scene itself (one draw) or the
//! list `draws`. A draw is a run scene (its vertex stage, [`super::run`]) plus the pixel shader
//! (`pixel_shader`/`pixel_shader_asm`, `pixel_constants`, `pixel_textures`,
//! `pixel_samplers`), `primitive`, `states`, `stages`, `viewport`, `scissor` and
//! `clip_planes`. Each draw is complete in itself: what it does not name has D3D9's default.
//!
//! Choices where D3D9 leaves the scene format open (tested below):
//! - a `viewport` field left out takes the whole target from `x`, `y` (`width - x`,
//!   `height - y`), z 0..1; the viewport must lie inside the targets with `min_z`, `max_z` in
//!   [0, 1], as `SetViewport` requires;
//! - `clear.z` must be in [0, 1] and `clear.stencil` in 0..=255, as `Clear` requires;
//! - pixel constants, textures or samplers in a draw without a pixel shader are a warning
//!   (nothing reads them), not an error.

use super::run::{RUN_FIELDS, SceneFile, vertex_stage};
use super::shader::{Stage, scene_shader};
use super::{Context, SceneError, bail, float, four, json_error, read_file};
use crate::states::{RenderStates, StageStates, StateValue, parse_hex};
use crate::{Clear, DepthFormat, Draw, DrawError, Frame, Primitive, TargetFormat, Viewport};
use dxso_vm::{PixelState, StageState};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// The scene's own fields (the frame), never a draw's.
const FRAME_FIELDS: &[&str] = &[
    "width",
    "height",
    "targets",
    "depth_stencil",
    "clear",
    "draws",
];

/// A draw's fields beyond a run scene's.
const DRAW_FIELDS: &[&str] = &[
    "pixel_shader",
    "pixel_shader_asm",
    "pixel_constants",
    "pixel_textures",
    "pixel_samplers",
    "primitive",
    "states",
    "stages",
    "viewport",
    "scissor",
    "clip_planes",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrameJson {
    #[serde(default = "default_width")]
    width: u32,
    #[serde(default = "default_height")]
    height: u32,
    targets: Option<Vec<TargetJson>>,
    /// Absent: D24S8; `null`: none.
    #[serde(default, deserialize_with = "present")]
    depth_stencil: Option<Option<Value>>,
    clear: Option<ClearJson>,
}

fn default_width() -> u32 {
    640
}

fn default_height() -> u32 {
    480
}

/// A field that is present (`null` included) is `Some`; an absent one defaults to `None`.
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetJson {
    format: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClearJson {
    color: Option<Value>,
    z: Option<Value>,
    stencil: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawJson {
    pixel_shader: Option<String>,
    pixel_shader_asm: Option<String>,
    #[serde(default)]
    pixel_constants: BTreeMap<String, Value>,
    #[serde(default)]
    pixel_textures: BTreeMap<String, Value>,
    #[serde(default)]
    pixel_samplers: BTreeMap<String, Value>,
    primitive: Option<String>,
    #[serde(default)]
    states: BTreeMap<String, Value>,
    #[serde(default)]
    stages: Vec<BTreeMap<String, Value>>,
    viewport: Option<ViewportJson>,
    scissor: Option<Value>,
    #[serde(default)]
    clip_planes: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ViewportJson {
    x: Option<u32>,
    y: Option<u32>,
    width: Option<u32>,
    height: Option<u32>,
    min_z: Option<Value>,
    max_z: Option<Value>,
}

/// A loaded draw scene: the frame, its draws in order, and the warnings of loading them.
pub struct DrawScene {
    /// The surfaces the draws go into.
    pub frame: Frame,
    /// The draws, in order.
    pub draws: Vec<Draw>,
    /// Warnings from validation and binding (printed by the caller).
    pub warnings: Vec<String>,
}

impl DrawScene {
    /// Run every draw's vertex and pixel shaders as `options` says (the tier and the
    /// instruction-set width; loading gives both [`dxso_vm::Options::default`]).
    pub fn set_options(&mut self, options: &dxso_vm::Options) {
        for d in &mut self.draws {
            d.vertex.set_options(options.clone());
            if let Some(p) = &mut d.pixel {
                p.set_options(options.clone());
            }
        }
    }

    /// Load `path`; the files it names are relative to its directory.
    pub fn load(path: &Path) -> Result<DrawScene, DrawError> {
        let text = read_file(path)?;
        let text = String::from_utf8(text)
            .map_err(|_| SceneError::new(format!("reading {}: not UTF-8", path.display())))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        DrawScene::from_json(&text, &dir)
    }

    /// A draw scene from its JSON text; `dir` is where the files it names are.
    pub fn from_json(text: &str, dir: &Path) -> Result<DrawScene, DrawError> {
        let top: Map<String, Value> = serde_json::from_str(text)
            .map_err(json_error)
            .context("scene JSON")?;
        let (mut frame_fields, draw_fields): (Map<String, Value>, Map<String, Value>) = top
            .into_iter()
            .partition(|(k, _)| FRAME_FIELDS.contains(&k.as_str()));
        let draws = frame_fields.remove("draws");
        let frame_json: FrameJson = fields(frame_fields)?;
        let frame = frame(frame_json)?;
        frame.check()?;
        let mut warnings = Vec::new();
        let draws = match draws {
            None => {
                if draw_fields.is_empty() {
                    bail!(
                        "the scene has no draw: give a draw's fields (vertex_count, declaration, streams, ...) or \"draws\": [] for a frame that is only its clear"
                    );
                }
                check_draw_fields(&draw_fields)?;
                vec![draw(draw_fields, &frame, dir, &mut warnings)?]
            }
            Some(list) => {
                if let Some(k) = draw_fields.keys().next() {
                    known_field(k)?;
                    bail!(
                        "{k:?} is a draw's field: with \"draws\", each draw names its own (a draw inherits nothing from the scene)"
                    );
                }
                let Value::Array(list) = list else {
                    bail!("draws: expected an array of draws");
                };
                let mut draws = Vec::with_capacity(list.len());
                for (i, d) in list.into_iter().enumerate() {
                    let Value::Object(d) = d else {
                        bail!("draws[{i}]: expected an object (a draw)");
                    };
                    let mut w = Vec::new();
                    let built = check_draw_fields(&d)
                        .and_then(|()| draw(d, &frame, dir, &mut w))
                        .with_context(|| format!("draws[{i}]"))?;
                    warnings.extend(w.into_iter().map(|w| format!("draws[{i}]: {w}")));
                    draws.push(built);
                }
                draws
            }
        };
        Ok(DrawScene {
            frame,
            draws,
            warnings,
        })
    }
}

/// Whether a scene's JSON text is a draw scene (one `dxso draw` takes: it names a pixel
/// shader, `draws` or `targets`) rather than a run scene. Text that is not a JSON object is
/// neither: `false`, and the run scene reader says what is wrong with it.
pub fn is_draw_scene(text: &str) -> bool {
    serde_json::from_str::<Map<String, Value>>(text).is_ok_and(|top| {
        ["pixel_shader", "pixel_shader_asm", "draws", "targets"]
            .iter()
            .any(|k| top.contains_key(*k))
    })
}

/// Load the draw scene at `path`: its frame and draws.
pub fn load_draw_scene(path: &Path) -> Result<(Frame, Vec<Draw>), DrawError> {
    DrawScene::load(path).map(|s| (s.frame, s.draws))
}

/// A draw scene from its JSON text (`dir`: where the files it names are): its frame and draws.
pub fn draw_scene_from_json(text: &str, dir: &Path) -> Result<(Frame, Vec<Draw>), DrawError> {
    DrawScene::from_json(text, dir).map(|s| (s.frame, s.draws))
}

/// A field name no draw scene has is an error that names it.
fn known_field(k: &str) -> Result<(), SceneError> {
    if FRAME_FIELDS.contains(&k) || RUN_FIELDS.contains(&k) || DRAW_FIELDS.contains(&k) {
        return Ok(());
    }
    bail!(
        "unknown field `{k}`; a draw scene's fields are {}, {} and {}",
        FRAME_FIELDS.join(", "),
        RUN_FIELDS.join(", "),
        DRAW_FIELDS.join(", ")
    )
}

/// A draw's fields are run-scene and draw fields only.
fn check_draw_fields(d: &Map<String, Value>) -> Result<(), SceneError> {
    for k in d.keys() {
        known_field(k)?;
        if FRAME_FIELDS.contains(&k.as_str()) {
            bail!("{k:?} is the scene's field, not a draw's");
        }
    }
    Ok(())
}

/// Deserialize `map` as `T`; a field whose value is wrong is named in the error.
fn fields<T: DeserializeOwned>(map: Map<String, Value>) -> Result<T, SceneError> {
    let value = Value::Object(map);
    T::deserialize(&value).map_err(|whole| {
        // The field at fault: the first that fails alone otherwise than an empty object
        // does (absent fields default; a required one is missing from both).
        let empty = T::deserialize(&Value::Object(Map::new()))
            .err()
            .map(|e| e.to_string());
        if let Value::Object(map) = &value {
            for (k, v) in map {
                let one = Value::Object(Map::from_iter([(k.clone(), v.clone())]));
                if let Err(e) = T::deserialize(&one)
                    && Some(e.to_string()) != empty
                {
                    return json_error(e).context(k);
                }
            }
        }
        json_error(whole)
    })
}

fn frame(f: FrameJson) -> Result<Frame, SceneError> {
    let targets = match f.targets {
        None => vec![TargetFormat::A8R8G8B8],
        Some(ts) => ts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                TargetFormat::from_name(&t.format).with_context(|| format!("targets[{i}]"))
            })
            .collect::<Result<_, _>>()?,
    };
    let depth_stencil = match f.depth_stencil {
        None => Some(DepthFormat::D24S8),
        Some(None) => None,
        Some(Some(v)) => Some(depth_format(&v).context("depth_stencil")?),
    };
    let clear = match f.clear {
        None => Clear::default(),
        Some(c) => clear(c).context("clear")?,
    };
    Ok(Frame {
        width: f.width,
        height: f.height,
        targets,
        depth_stencil,
        clear,
    })
}

/// `"D16"` or `{"format": "D16"}`.
fn depth_format(v: &Value) -> Result<DepthFormat, SceneError> {
    match v {
        Value::String(s) => Ok(DepthFormat::from_name(s)?),
        Value::Object(o) => {
            if let Some(k) = o.keys().find(|k| *k != "format") {
                bail!("unknown field `{k}` (a depth-stencil surface has a \"format\")");
            }
            match o.get("format") {
                Some(Value::String(s)) => Ok(DepthFormat::from_name(s)?),
                _ => bail!("format: expected a format name (D24S8, D24X8, D16, D32F_LOCKABLE)"),
            }
        }
        other => bail!("expected {{\"format\": \"D24S8\"}}, a format name or null, found {other}"),
    }
}

fn clear(c: ClearJson) -> Result<Clear, SceneError> {
    let mut out = Clear::default();
    match &c.color {
        None => {}
        Some(Value::String(s)) => {
            let bits = parse_hex(s).ok_or_else(|| {
                SceneError::new(format!(
                    "color: {s:?} is not a colour (\"0xAARRGGBB\" or four numbers)"
                ))
            })?;
            out.color = crate::d3dcolor(bits);
        }
        Some(v) => out.color = four(v, "color", float)?,
    }
    if let Some(z) = &c.z {
        let z = float(z).context("z")?;
        if !(0.0..=1.0).contains(&z) {
            bail!("z: {z} is outside [0, 1]");
        }
        out.z = z;
    }
    if let Some(s) = &c.stencil {
        out.stencil = s
            .as_u64()
            .and_then(|s| u8::try_from(s).ok())
            .ok_or_else(|| SceneError::new(format!("stencil: {s} is not in 0..=255")))?;
    }
    Ok(out)
}

/// One draw from its fields.
fn draw(
    d: Map<String, Value>,
    frame: &Frame,
    dir: &Path,
    warnings: &mut Vec<String>,
) -> Result<Draw, SceneError> {
    let (draw_fields, run_fields): (Map<String, Value>, Map<String, Value>) = d
        .into_iter()
        .partition(|(k, _)| DRAW_FIELDS.contains(&k.as_str()));
    let run: SceneFile = fields(run_fields)?;
    let json: DrawJson = fields(draw_fields)?;
    let stage = vertex_stage(run, dir, false)?;
    let scene = stage.scene;
    warnings.extend(scene.warnings);
    if scene.device.program().is_some() {
        // The device's own bound on a draw's vertices (and their outputs).
        scene
            .device
            .output_floats(scene.vertex_count, scene.instance_count)
            .context("vertex_count")?;
    }
    let mut out = Draw::new(
        scene.device,
        scene.vertex_count,
        frame.depth_stencil.is_some(),
    );
    out.fixed_function = stage.fixed_function;
    out.instance_count = scene.instance_count;
    if let Some(p) = &json.primitive {
        out.primitive = Primitive::from_name(p).context("primitive")?;
    }
    for (name, v) in &json.states {
        let value = state_value(v).with_context(|| format!("states: {name}"))?;
        set_render_state(&mut out.states, name, &value).context("states")?;
    }
    if json.stages.len() > 8 {
        bail!("stages: {} stages; D3D9 has 8", json.stages.len());
    }
    for (n, states) in json.stages.iter().enumerate() {
        for (name, v) in states {
            let value = state_value(v).with_context(|| format!("stages[{n}]: {name}"))?;
            out.stages[n]
                .set(name, &value)
                .with_context(|| format!("stages[{n}]"))?;
        }
    }
    if let Some(v) = &json.viewport {
        out.viewport = Some(viewport(v, frame).context("viewport")?);
    }
    if let Some(s) = &json.scissor {
        out.scissor = Some(four(s, "scissor", |x| {
            x.as_i64()
                .and_then(|i| i32::try_from(i).ok())
                .ok_or_else(|| SceneError::new(format!("expected a 32-bit integer, found {x}")))
        })?);
    }
    for (key, plane) in &json.clip_planes {
        let n = key
            .parse::<usize>()
            .ok()
            .filter(|&n| n < 6 && (key.len() == 1))
            .ok_or_else(|| {
                SceneError::new(format!(
                    "clip_planes: {key:?}: D3D9 has planes \"0\"..\"5\""
                ))
            })?;
        out.clip_planes[n] = four(plane, key, float).context("clip_planes")?;
    }
    out.pixel = pixel_stage(&json, &out.stages, dir, warnings)?;
    Ok(out)
}

/// A state's JSON value: `true`/`false`, a name (or `"0x..."`), a number, or
/// `{"bits": "0x3f800000"}`.
fn state_value(v: &Value) -> Result<StateValue, SceneError> {
    Ok(match v {
        Value::Bool(b) => StateValue::Bool(*b),
        Value::String(s) => StateValue::Name(s.clone()),
        Value::Number(n) => StateValue::Number(
            n.as_f64()
                .ok_or_else(|| SceneError::new(format!("bad number {n}")))?,
        ),
        Value::Object(o) if o.len() == 1 && o.contains_key("bits") => {
            let bits = &o["bits"];
            StateValue::Bits(
                match bits {
                    Value::String(s) => parse_hex(s),
                    Value::Number(n) => n.as_u64().and_then(|b| u32::try_from(b).ok()),
                    _ => None,
                }
                .ok_or_else(|| {
                    SceneError::new(format!("bits: {bits} is not a DWORD (\"0x...\")"))
                })?,
            )
        }
        other => {
            bail!("expected true/false, a name, a number or {{\"bits\": \"0x...\"}}, found {other}")
        }
    })
}

/// `RenderStates::set`, with `true`/`false` also taken by the states whose values are named
/// `TRUE`/`FALSE` (`ZENABLE`: `D3DZB_TRUE`), which `set` refuses a bool for today.
fn set_render_state(
    states: &mut RenderStates,
    name: &str,
    value: &StateValue,
) -> Result<(), DrawError> {
    states.set(name, value).or_else(|e| match value {
        StateValue::Bool(b) => states
            .set(
                name,
                &StateValue::Name(if *b { "TRUE" } else { "FALSE" }.into()),
            )
            .map_err(|_| e),
        _ => Err(e),
    })
}

fn viewport(v: &ViewportJson, frame: &Frame) -> Result<Viewport, SceneError> {
    let x = v.x.unwrap_or(0);
    let y = v.y.unwrap_or(0);
    let width = v.width.unwrap_or(frame.width.saturating_sub(x));
    let height = v.height.unwrap_or(frame.height.saturating_sub(y));
    let z = |f: &Option<Value>, default: f32, what: &str| -> Result<f32, SceneError> {
        let z = match f {
            None => return Ok(default),
            Some(v) => float(v).context(what)?,
        };
        if !(0.0..=1.0).contains(&z) {
            bail!("{what}: {z} is outside [0, 1]");
        }
        Ok(z)
    };
    let (min_z, max_z) = (z(&v.min_z, 0.0, "min_z")?, z(&v.max_z, 1.0, "max_z")?);
    if width == 0 || height == 0 {
        bail!("a {width}x{height} viewport: width and height must be at least 1");
    }
    if u64::from(x) + u64::from(width) > u64::from(frame.width)
        || u64::from(y) + u64::from(height) > u64::from(frame.height)
    {
        bail!(
            "({x}, {y}) {width}x{height} reaches outside the {}x{} targets",
            frame.width,
            frame.height
        );
    }
    Ok(Viewport {
        x,
        y,
        width,
        height,
        min_z,
        max_z,
    })
}

/// The draw's pixel shader with its constants, textures, samplers and stage states; `None`
/// for a draw without one.
fn pixel_stage(
    json: &DrawJson,
    stages: &[StageStates; 8],
    dir: &Path,
    warnings: &mut Vec<String>,
) -> Result<Option<PixelState>, SceneError> {
    let shader = scene_shader(
        Stage::Pixel,
        ("pixel_shader", json.pixel_shader.as_deref()),
        ("pixel_shader_asm", json.pixel_shader_asm.as_deref()),
        dir,
    )?;
    let Some(shader) = shader else {
        for (field, empty) in [
            ("pixel_constants", json.pixel_constants.is_empty()),
            ("pixel_textures", json.pixel_textures.is_empty()),
            ("pixel_samplers", json.pixel_samplers.is_empty()),
        ] {
            if !empty {
                warnings.push(format!(
                    "{field}: the draw has no pixel shader to read them"
                ));
            }
        }
        return Ok(None);
    };
    warnings.extend(shader.warnings);
    let mut pixel = PixelState::new(&shader.checked).context("pixel_shader")?;
    if shader.header_table.is_some() {
        pixel.set_constant_table(shader.header_table);
    }
    super::constants::apply(&mut pixel, &json.pixel_constants, "pixel_constants")?;
    super::textures::apply_pixel(&mut pixel, &json.pixel_textures, &json.pixel_samplers, dir)?;
    for (n, s) in stages.iter().enumerate() {
        pixel
            .set_stage(
                n,
                StageState {
                    bump_env_mat: s.bump_env_mat,
                    bump_env_lscale: s.bump_env_lscale,
                    bump_env_loffset: s.bump_env_loffset,
                    projected: s.projected(),
                },
            )
            .context("stages")?;
    }
    Ok(Some(pixel))
}
