//! The playground's JSON API: each endpoint reads its request, calls the function the
//! matching command calls, and writes the answer. No logic of its own.

use super::http::Reply;
use crate::check::JsonDiagnostic;
use crate::translate::{Float, To};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::path::Path;

/// Why a request got no answer: a status (4xx, or 500 for a bug), the message, and for a
/// shader's errors the structured diagnostics.
pub struct ApiError {
    pub status: u16,
    pub message: String,
    pub diagnostics: Option<Value>,
}

impl ApiError {
    /// The request is malformed (not JSON, a missing or unknown field): 400.
    pub fn request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: message.into(),
            diagnostics: None,
        }
    }

    /// The shader or scene is wrong (what the command line exits 1 for): 422.
    pub fn input(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 422,
            message: message.into(),
            diagnostics: None,
        }
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 500,
            message: message.into(),
            diagnostics: None,
        }
    }

    fn reply(self) -> Reply {
        let mut v = json!({"error": self.message});
        if let (Some(d), Some(obj)) = (self.diagnostics, v.as_object_mut()) {
            obj.insert("diagnostics".into(), d);
        }
        Reply::json(self.status, &v)
    }
}

impl From<crate::Failure> for ApiError {
    fn from(f: crate::Failure) -> ApiError {
        match f {
            crate::Failure::Input(r) => ApiError::input(r.render().trim_end().to_string()),
            crate::Failure::Quiet => ApiError::input("the input is invalid"),
            crate::Failure::Io(e) => ApiError::input(format!("{e:#}")),
        }
    }
}

/// A float as JSON, printed so that it reads back to the same f32 (`dxso run`'s numbers):
/// non-finite values as the strings "nan", "inf", "-inf".
pub fn num(x: f32) -> Value {
    serde_json::from_str(&crate::run::number(x)).unwrap_or(Value::Null)
}

/// What the endpoints share: where a scene's relative paths point, and the file the
/// server was started with.
pub struct State {
    pub dir: std::path::PathBuf,
    pub initial: Value,
}

/// The name shaders from the page go by in diagnostics.
const NAME: &str = "shader";

fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::request(format!("request JSON: {e}")))
}

/// Answer an API request (`path` after `/api/`).
pub fn route(state: &State, method: &str, path: &str, body: &[u8]) -> Reply {
    let result = match (method, path) {
        ("GET", "initial") => Ok(state.initial.clone()),
        ("GET", "examples") => Ok(super::examples::list()),
        ("POST", "texture") => texture(body),
        ("POST", "assemble") => parse(body).and_then(assemble),
        ("POST", "disassemble") => parse(body).and_then(disassemble),
        ("POST", "check") => parse(body).and_then(check),
        ("POST", "translate") => parse(body).and_then(translate),
        ("POST", "ctab") => parse(body).and_then(ctab),
        ("POST", "run") => parse(body).and_then(|r| run(&state.dir, r)),
        ("POST", "trace") => parse(body).and_then(|r| trace(&state.dir, r)),
        ("POST", "draw") => {
            return match parse(body).and_then(|r| draw(&state.dir, r)) {
                Ok(png) => Reply {
                    status: 200,
                    content_type: "image/png",
                    body: png,
                },
                Err(e) => e.reply(),
            };
        }
        ("POST", "pixel") => parse(body).and_then(|r| pixel(&state.dir, r)),
        (
            _,
            "initial" | "examples" | "assemble" | "disassemble" | "check" | "translate" | "ctab"
            | "run" | "trace" | "draw" | "pixel" | "texture",
        ) => Err(ApiError {
            status: 405,
            message: format!("{method} /api/{path}: the method is not allowed"),
            diagnostics: None,
        }),
        _ => Err(ApiError {
            status: 404,
            message: format!("no endpoint /api/{path}"),
            diagnostics: None,
        }),
    };
    match result {
        Ok(v) => Reply::json(200, &v),
        Err(e) => e.reply(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AssembleRequest {
    source: String,
    #[serde(default = "yes")]
    ctab: bool,
}

fn yes() -> bool {
    true
}

/// `dxso asm --hex [--ctab]`.
fn assemble(r: AssembleRequest) -> Result<Value, ApiError> {
    match crate::asm::assemble(&r.source, r.ctab) {
        Ok(a) => Ok(json!({
            "tokens": a.tokens.iter().map(|t| format!("{t:08x}")).collect::<Vec<_>>(),
            "instructions": instructions(&a.tokens),
            "meanings": meanings(&a.tokens),
            "warnings": a.warnings,
        })),
        Err(e) => {
            let diagnostics = match &e {
                crate::asm::AsmError::Parse(p) => JsonDiagnostic::parse_errors(p),
                crate::asm::AsmError::Encode(m) => vec![JsonDiagnostic::error(m, None)],
            };
            Err(ApiError {
                status: 422,
                message: e.report(NAME).render().trim_end().to_string(),
                diagnostics: Some(diagnostics.iter().map(JsonDiagnostic::value).collect()),
            })
        }
    }
}

/// What each token means (`dxso::binary::describe`), one entry per token:
/// `{"role", "instruction", "text"}`.
fn meanings(tokens: &[u32]) -> Vec<Value> {
    dxso::binary::describe(tokens)
        .into_iter()
        .map(|m| json!({"role": m.role.name(), "instruction": m.instruction, "text": m.text}))
        .collect()
}

/// Where each instruction's tokens are: `{"word", "words", "text"}` (its first token's
/// offset, its token count, its line as `dis` prints it), for the tokens' meaning on hover.
fn instructions(tokens: &[u32]) -> Vec<Value> {
    let Ok(mut stream) = dxso::binary::instructions(tokens) else {
        return Vec::new();
    };
    let version = stream.version();
    let mut found: Vec<(usize, String)> = Vec::new();
    for item in &mut stream {
        let Ok((offset, inst)) = item else { break };
        let one = dxso::Shader {
            version,
            instructions: vec![inst],
        };
        let text = dxso::text::print(&one);
        let line = text.lines().last().unwrap_or("").trim().to_string();
        found.push((offset, line));
    }
    // The end token follows the last instruction.
    let end = tokens.len().saturating_sub(1);
    found
        .iter()
        .enumerate()
        .map(|(i, (word, text))| {
            let next = found.get(i + 1).map_or(end, |n| n.0);
            json!({"word": word, "words": next.saturating_sub(*word), "text": text})
        })
        .collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DisassembleRequest {
    /// Hex tokens (what `dxso asm --hex` prints).
    source: String,
    #[serde(default)]
    style: Option<String>,
}

/// `dxso dis [--style microsoft|unity]`.
fn disassemble(r: DisassembleRequest) -> Result<Value, ApiError> {
    let style = match r.style.as_deref() {
        None | Some("microsoft") => dxso::text::Style::Microsoft,
        Some("unity") => dxso::text::Style::Unity,
        Some(other) => {
            return Err(ApiError::request(format!(
                "style {other:?}: expected \"microsoft\" or \"unity\""
            )));
        }
    };
    let mut text = Vec::new();
    let mut warnings = Vec::new();
    let mut warn = |w: String| warnings.push(format!("warning: {w}"));
    match crate::asm::disassemble(r.source.into_bytes(), style, &mut text, &mut warn) {
        Ok(()) => Ok(json!({
            "text": String::from_utf8_lossy(&text),
            "warnings": warnings,
        })),
        Err(crate::asm::DisError::Read(e)) => Err(ApiError::input(format!("{NAME}: error: {e}"))),
        Err(crate::asm::DisError::Write(e)) => Err(ApiError::internal(e.to_string())),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckRequest {
    source: String,
    #[serde(default)]
    caps: Option<String>,
}

/// `dxso check --format json [--caps min|max]`: the file's entry, and the text `check`
/// prints.
fn check(r: CheckRequest) -> Result<Value, ApiError> {
    let spec = r.caps.as_deref().unwrap_or("max");
    let caps = dxso::validate::Caps::from_spec(spec)
        .map_err(|e| ApiError::request(format!("caps: {e}")))?;
    let one = crate::check::check_one(NAME, r.source.as_bytes(), &caps);
    let mut v = one.json;
    if let Some(obj) = v.as_object_mut() {
        obj.insert("text".into(), one.text.render().into());
    }
    Ok(v)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TranslateRequest {
    source: String,
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    float: Option<String>,
}

/// `dxso translate --to wgsl|glsl|hlsl|msl --float strict|ieee --interface`.
fn translate(r: TranslateRequest) -> Result<Value, ApiError> {
    let to = match r.to.as_deref() {
        None | Some("wgsl") => To::Wgsl,
        Some("glsl") => To::Glsl,
        Some("hlsl") => To::Hlsl,
        Some("msl") => To::Msl,
        Some(other) => {
            return Err(ApiError::request(format!(
                "to {other:?}: expected \"wgsl\", \"glsl\", \"hlsl\" or \"msl\" (SPIR-V is binary: dxso translate --to spirv)"
            )));
        }
    };
    let float = match r.float.as_deref() {
        None | Some("strict") => Float::Strict,
        Some("ieee") => Float::Ieee,
        Some(other) => {
            return Err(ApiError::request(format!(
                "float {other:?}: expected \"strict\" or \"ieee\""
            )));
        }
    };
    let t = crate::translate::translation(NAME, r.source.into_bytes(), float)?;
    let mut code = Vec::new();
    dxso_naga::write_to(&t, crate::translate::target(to), &mut code)
        .map_err(|e| ApiError::input(format!("{NAME}: error: {e}")))?;
    let interface =
        serde_json::to_value(&t.interface).map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(json!({"code": String::from_utf8_lossy(&code), "interface": interface}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SourceRequest {
    source: String,
}

/// The constant table (the CTAB block `dis` prints as its header; for a listing, its
/// `// Parameters:` header as `asm --ctab` reads it).
fn ctab(r: SourceRequest) -> Result<Value, ApiError> {
    let loaded = crate::input::load_shader(NAME, r.source.as_bytes())
        .map_err(|m| ApiError::input(m.trim_end().to_string()))?;
    let table = match loaded.shader.constant_table() {
        Ok(Some(t)) => Some(t),
        Ok(None) if !crate::input::is_bytecode(r.source.as_bytes()) => {
            dxso::text::parse_header(&r.source, loaded.shader.version)
                .map_err(|e| ApiError::input(e.render(NAME).trim_end().to_string()))?
        }
        Ok(None) => None,
        Err(e) => return Err(ApiError::input(format!("{NAME}: error: {e}"))),
    };
    let Some(table) = table else {
        return Ok(json!({"table": null}));
    };
    let constants: Vec<Value> = table
        .constants
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "register": format!("{}{}", c.register_set.prefix(), c.register_index),
                "register_set": c.register_set.name(),
                "register_index": c.register_index,
                "register_count": c.register_count,
                "class": c.ty.class.name(),
                "type": c.ty.ty.name(),
                "rows": c.ty.rows,
                "columns": c.ty.columns,
                "elements": c.ty.elements,
                "members": c.ty.members.iter().map(|m| m.name.clone()).collect::<Vec<_>>(),
                // The table's DWORDs as values: floats for c#, integers for i# and b#.
                "default_value": c.default_value.as_ref().map(|words| {
                    words
                        .iter()
                        .map(|w| match c.register_set {
                            dxso::ctab::RegisterSet::Float4 => num(f32::from_bits(*w)),
                            _ => json!(*w as i32),
                        })
                        .collect::<Vec<_>>()
                }),
            })
        })
        .collect();
    Ok(json!({"table": {
        "creator": table.creator,
        "target": table.target,
        "constants": constants,
    }}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunRequest {
    /// The scene: a JSON object, or its text.
    scene: Value,
    /// For a draw scene: the draw whose vertex stage runs.
    #[serde(default)]
    draw: Option<usize>,
}

/// The scene as text: given as an object or as a string.
fn scene_text(scene: Value) -> String {
    match scene {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// `dxso run SCENE.json`; with `draw`, the vertex stage of that draw of a draw scene.
fn run(dir: &Path, r: RunRequest) -> Result<Value, ApiError> {
    super::scenes::run(&scene_text(r.scene), dir, r.draw)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TraceRequest {
    scene: Value,
    vertex: usize,
    #[serde(default)]
    draw: Option<usize>,
}

/// `dxso run SCENE.json --trace N`; with `draw`, a vertex of that draw of a draw scene.
fn trace(dir: &Path, r: TraceRequest) -> Result<Value, ApiError> {
    super::scenes::trace(&scene_text(r.scene), dir, r.vertex, r.draw)
}

/// The most texels of a PNG `/api/texture` takes: as inline JSON (four numbers a texel, up to
/// four characters each) the texture must fit a scene in a request ([`MAX_BODY`]).
///
/// [`MAX_BODY`]: super::http::MAX_BODY
pub const MAX_TEXTURE_TEXELS: usize = super::http::MAX_BODY / 16;

/// `POST /api/texture` with a PNG as the body (not JSON): the inline texture a scene takes,
/// the one `{"file": "x.png"}` would load (`dxso_draw::scene::textures::png_to_json`).
fn texture(body: &[u8]) -> Result<Value, ApiError> {
    dxso_draw::scene::textures::png_to_json(body, MAX_TEXTURE_TEXELS).map_err(|e| {
        if e.is_internal() {
            ApiError::internal(e.to_string())
        } else {
            ApiError::input(e.to_string())
        }
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawRequest {
    /// A draw scene (the JSON `dxso draw` takes), as an object or as its text.
    scene: Value,
    #[serde(default)]
    target: usize,
}

/// `dxso draw SCENE.json -o OUT.png [--target N]`: the picture.
fn draw(dir: &Path, r: DrawRequest) -> Result<Vec<u8>, ApiError> {
    super::scenes::draw(&scene_text(r.scene), dir, r.target)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PixelRequest {
    scene: Value,
    x: u32,
    y: u32,
}

/// `dxso draw SCENE.json --trace-pixel X,Y`: the pixel debugger.
fn pixel(dir: &Path, r: PixelRequest) -> Result<Value, ApiError> {
    super::scenes::pixel(&scene_text(r.scene), dir, r.x, r.y)
}
