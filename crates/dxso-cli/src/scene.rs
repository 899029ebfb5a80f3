//! Scenes (`../shared/CLI.md`): a JSON description of a draw, turned into a `dxso_vm::Device`.

use crate::input::load_shader;
use anyhow::{Context, anyhow, bail};
use dxso::ir::Usage;
use dxso::validate::{Caps, Severity, validate};
use dxso_vm::{DeclType, Device, Frequency, StreamSource, VertexElement};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SceneFile {
    shader: Option<String>,
    shader_asm: Option<String>,
    #[serde(default)]
    vertex_count: Option<usize>,
    #[serde(default)]
    mesh: Option<MeshJson>,
    #[serde(default)]
    instance_count: Option<usize>,
    #[serde(default)]
    declaration: Vec<ElementJson>,
    #[serde(default)]
    streams: Vec<Option<StreamJson>>,
    #[serde(default)]
    indices: Option<Vec<u32>>,
    #[serde(default)]
    constants: BTreeMap<String, Value>,
    #[serde(default)]
    textures: BTreeMap<String, Value>,
    #[serde(default)]
    samplers: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MeshJson {
    file: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ElementJson {
    stream: u16,
    offset: u16,
    #[serde(rename = "type")]
    ty: String,
    usage: String,
    #[serde(default)]
    usage_index: u8,
    #[serde(default)]
    method: u8,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StreamJson {
    stride: usize,
    #[serde(default)]
    offset: usize,
    f32: Option<Vec<Value>>,
    bytes: Option<Vec<u8>>,
    hex: Option<String>,
    file: Option<String>,
    frequency: Option<FrequencyJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrequencyJson {
    indexed: Option<u32>,
    instance: Option<u32>,
    divider: Option<u32>,
}

/// A loaded scene: a device ready to draw, and the draw's size.
pub struct Scene {
    pub device: Device,
    pub vertex_count: usize,
    pub instance_count: usize,
    /// Warnings from validation and binding (printed by the caller).
    pub warnings: Vec<String>,
}

/// A number as JSON writes it, or the strings "nan", "inf", "-inf".
fn float(v: &Value) -> anyhow::Result<f32> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .map(|x| x as f32)
            .ok_or_else(|| anyhow!("bad number {n}")),
        Value::String(s) => match s.to_ascii_lowercase().as_str() {
            "nan" => Ok(f32::NAN),
            "inf" | "+inf" | "infinity" => Ok(f32::INFINITY),
            "-inf" | "-infinity" => Ok(f32::NEG_INFINITY),
            _ => bail!("expected a number, found {s:?}"),
        },
        other => bail!("expected a number, found {other}"),
    }
}

/// A `constants` key that is not a register names a parameter of the shader's constant table
/// (`"WorldViewProj"`, `"cLightInfo[1].pos"`): its values in HLSL order, a matrix row by row
/// (`true`/`false` count as 1 and 0; one number may stand alone).
fn set_by_name(device: &mut Device, key: &str, v: &Value) -> anyhow::Result<()> {
    let one = std::slice::from_ref(v);
    let items = v.as_array().map_or(one, Vec::as_slice);
    let values: Vec<f32> = items
        .iter()
        .map(|x| match x {
            Value::Bool(b) => Ok(*b as u8 as f32),
            x => float(x),
        })
        .collect::<anyhow::Result<_>>()
        .with_context(|| format!("constants: {key}"))?;
    device
        .set_constant_by_name(key, &values)
        .with_context(|| format!("constants: {key:?}"))
}

fn four<T>(
    v: &Value,
    what: &str,
    f: impl Fn(&Value) -> anyhow::Result<T>,
) -> anyhow::Result<[T; 4]> {
    let arr = v
        .as_array()
        .ok_or_else(|| anyhow!("{what}: expected an array of 4 numbers"))?;
    if arr.len() != 4 {
        bail!("{what}: expected 4 numbers, found {}", arr.len());
    }
    let items: Vec<T> = arr
        .iter()
        .map(&f)
        .collect::<anyhow::Result<_>>()
        .with_context(|| what.to_string())?;
    items
        .try_into()
        .map_err(|_| anyhow!("{what}: expected 4 numbers"))
}

fn usage(name: &str) -> anyhow::Result<Usage> {
    let n = name.strip_prefix("D3DDECLUSAGE_").unwrap_or(name);
    Usage::from_name(n).ok_or_else(|| anyhow!("unknown usage {name:?}"))
}

impl Scene {
    /// Load `path`. Every error says what is wrong with the scene.
    pub fn load(path: &Path) -> anyhow::Result<Scene> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Scene::from_json(&text, &dir)
    }

    pub fn from_json(text: &str, dir: &Path) -> anyhow::Result<Scene> {
        let f: SceneFile = serde_json::from_str(text).context("scene JSON")?;
        let mut warnings = Vec::new();
        let (name, bytes) = match (&f.shader, &f.shader_asm) {
            (Some(p), None) => {
                let full = dir.join(p);
                (
                    p.clone(),
                    std::fs::read(&full).with_context(|| format!("shader {}", full.display()))?,
                )
            }
            (None, Some(asm)) => ("shader_asm".to_string(), asm.as_bytes().to_vec()),
            _ => bail!("a scene names exactly one of \"shader\" and \"shader_asm\""),
        };
        let loaded = load_shader(&name, &bytes).map_err(|m| anyhow!("{}", m.trim_end()))?;
        if !loaded.shader.version.is_vertex() {
            bail!("{name}: {} is not a vertex shader", loaded.shader.version);
        }
        let checked = validate(&loaded.shader, &Caps::max()).map_err(|diags| {
            let lines: Vec<String> = diags
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| {
                    let (at, _) = loaded.locate(&name, d.instruction);
                    format!("{at}: error[{}]: {}", d.rule.id(), d.message)
                })
                .collect();
            anyhow!("the shader does not validate:\n{}", lines.join("\n"))
        })?;
        for w in checked.warnings() {
            let (at, _) = loaded.locate(&name, w.instruction);
            warnings.push(format!("{at}: warning[{}]: {}", w.rule.id(), w.message));
        }
        let mut device = Device::new();
        device.set_vertex_shader(&checked)?;
        if matches!(device.constant_table(), Ok(None)) && !crate::input::is_bytecode(&bytes) {
            // A listing names its constants in its header, as `asm --ctab` reads it.
            let text = String::from_utf8_lossy(&bytes);
            let table = dxso::text::parse_header(&text, loaded.shader.version)
                .map_err(|e| anyhow!("{}", e.render(&name).trim_end()))?;
            device.set_constant_table(table);
        }

        let vertex_count = match (&f.mesh, f.vertex_count) {
            (Some(m), given) => {
                if !f.declaration.is_empty() || !f.streams.is_empty() || f.indices.is_some() {
                    bail!(
                        "a scene with a \"mesh\" takes its declaration, streams and indices from it"
                    );
                }
                let path = dir.join(&m.file);
                let mesh = crate::mesh::Mesh::load(&path)?;
                let n = mesh.bind(&mut device)?;
                if given.is_some_and(|g| g != n) {
                    bail!(
                        "vertex_count {} differs from the mesh's {n} indices",
                        given.unwrap_or(0)
                    );
                }
                n
            }
            (None, Some(n)) => n,
            (None, None) => bail!("missing field `vertex_count`"),
        };
        let mut decl = Vec::new();
        for (i, e) in f.declaration.iter().enumerate() {
            decl.push(VertexElement {
                stream: e.stream,
                offset: e.offset,
                ty: DeclType::from_name(&e.ty)
                    .filter(|t| *t != DeclType::Unused)
                    .ok_or_else(|| anyhow!("declaration[{i}]: unknown type {:?}", e.ty))?,
                method: e.method,
                usage: usage(&e.usage).with_context(|| format!("declaration[{i}]"))?,
                usage_index: e.usage_index,
            });
        }
        if f.mesh.is_none() {
            device.set_declaration(decl)?;
        }

        if f.streams.len() > 16 {
            bail!("{} streams; D3D9 has 16", f.streams.len());
        }
        for (k, s) in f.streams.iter().enumerate() {
            let Some(s) = s else { continue };
            let data = stream_bytes(s, dir).with_context(|| format!("streams[{k}]"))?;
            let frequency = match &s.frequency {
                None => Frequency::Vertex,
                Some(FrequencyJson {
                    indexed: Some(n),
                    instance: None,
                    divider: None,
                }) => Frequency::IndexedData(*n),
                Some(FrequencyJson {
                    indexed: None,
                    instance: Some(d),
                    divider: None,
                }) => {
                    if *d == 0 {
                        bail!("streams[{k}]: an instance divider of 0");
                    }
                    Frequency::InstanceData(*d)
                }
                Some(FrequencyJson {
                    indexed: None,
                    instance: None,
                    divider: Some(m),
                }) => {
                    if *m == 0 {
                        bail!("streams[{k}]: a divider of 0");
                    }
                    Frequency::Divider(*m)
                }
                _ => bail!(
                    "streams[{k}]: frequency names one of \"indexed\", \"instance\" or \"divider\""
                ),
            };
            if s.stride == 0 && frequency == Frequency::Vertex && vertex_count > 1 {
                warnings.push(format!(
                    "streams[{k}]: stride 0: every vertex reads the same element"
                ));
            }
            device.set_stream(
                k,
                Some(StreamSource {
                    data: data.into(),
                    offset: s.offset,
                    stride: s.stride,
                    frequency,
                }),
            )?;
        }
        if let Some(ix) = &f.indices {
            if ix.len() != vertex_count {
                bail!("{} indices for vertex_count {vertex_count}", ix.len());
            }
            device.set_indices(Some(ix.clone()));
        }
        for (key, v) in &f.constants {
            let (file, n) = key.split_at(1.min(key.len()));
            let Some(n) = n
                .parse::<u32>()
                .ok()
                .filter(|_| matches!(file, "c" | "i" | "b"))
            else {
                set_by_name(&mut device, key, v)?;
                continue;
            };
            match file {
                "c" => device.set_constant_f(n, &[four(v, key, float)?])?,
                "i" => device.set_constant_i(
                    n,
                    &[four(v, key, |x| {
                        x.as_i64()
                            .and_then(|i| i32::try_from(i).ok())
                            .ok_or_else(|| anyhow!("expected a 32-bit integer, found {x}"))
                    })?],
                )?,
                "b" => device.set_constant_b(
                    n,
                    &[v.as_bool()
                        .ok_or_else(|| anyhow!("constants: {key} must be true or false"))?],
                )?,
                _ => bail!("constants: {key:?} is not c#, i# or b#"),
            }
        }
        if !f.textures.is_empty() || !f.samplers.is_empty() {
            crate::textures::apply(&mut device, &f.textures, &f.samplers, dir)?;
        }
        Ok(Scene {
            device,
            vertex_count,
            instance_count: f.instance_count.unwrap_or(1),
            warnings,
        })
    }
}

fn stream_bytes(s: &StreamJson, dir: &Path) -> anyhow::Result<Vec<u8>> {
    let given = [
        s.f32.is_some(),
        s.bytes.is_some(),
        s.hex.is_some(),
        s.file.is_some(),
    ];
    if given.iter().filter(|x| **x).count() != 1 {
        bail!("a stream's bytes come from exactly one of \"f32\", \"bytes\", \"hex\" or \"file\"");
    }
    if let Some(v) = &s.f32 {
        return Ok(v
            .iter()
            .map(float)
            .collect::<anyhow::Result<Vec<f32>>>()?
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect());
    }
    if let Some(b) = &s.bytes {
        return Ok(b.clone());
    }
    if let Some(h) = &s.hex {
        let digits: String = h.chars().filter(|c| !c.is_whitespace()).collect();
        if !digits.len().is_multiple_of(2) {
            bail!("hex: an odd number of digits");
        }
        return (0..digits.len())
            .step_by(2)
            .map(|i| {
                u8::from_str_radix(&digits[i..i + 2], 16)
                    .map_err(|_| anyhow!("hex: bad digits {:?}", &digits[i..i + 2]))
            })
            .collect();
    }
    let file = dir.join(s.file.as_deref().unwrap_or_default());
    std::fs::read(&file).with_context(|| format!("reading {}", file.display()))
}
