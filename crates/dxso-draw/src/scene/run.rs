//! A `dxso run` scene's fields — the vertex shader, `vertex_count`, `instance_count`,
//! `declaration`, `streams`, `indices`, `mesh`, `constants`, `textures`, `samplers` — as a
//! configured [`Device`]. A draw scene's draws have the same fields for their vertex stage.

use super::shader::{Stage, scene_shader};
use super::{Context, SceneError, bail, float, json_error, read_file};
use dxso::ir::Usage;
use dxso_vm::{DeclType, Device, Frequency, StreamSource, VertexElement};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The fields of a run scene (and of a draw's vertex stage).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SceneFile {
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

/// The names of [`SceneFile`]'s fields.
pub(crate) const RUN_FIELDS: &[&str] = &[
    "shader",
    "shader_asm",
    "vertex_count",
    "mesh",
    "instance_count",
    "declaration",
    "streams",
    "indices",
    "constants",
    "textures",
    "samplers",
];

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
    /// The device, with the scene's shader, streams, constants and textures bound.
    pub device: Device,
    /// Vertices per instance.
    pub vertex_count: usize,
    /// Instances (1 without instancing).
    pub instance_count: usize,
    /// Warnings from validation and binding (printed by the caller).
    pub warnings: Vec<String>,
}

/// A draw's vertex stage: [`Scene`] plus, for a draw without a vertex shader, the semantics
/// of the pass-through's outputs.
pub(crate) struct VertexStage {
    pub scene: Scene,
    pub fixed_function: Option<Vec<(Usage, u8)>>,
}

fn usage(name: &str) -> Result<Usage, SceneError> {
    let n = name.strip_prefix("D3DDECLUSAGE_").unwrap_or(name);
    Usage::from_name(n).ok_or_else(|| SceneError::new(format!("unknown usage {name:?}")))
}

impl Scene {
    /// Load `path`. Every error says what is wrong with the scene.
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        let text = read_file(path)?;
        let text = String::from_utf8(text)
            .map_err(|_| SceneError::new(format!("reading {}: not UTF-8", path.display())))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Scene::from_json(&text, &dir)
    }

    /// A scene from its JSON text; `dir` is where the files it names are.
    pub fn from_json(text: &str, dir: &Path) -> Result<Scene, SceneError> {
        let f: SceneFile = serde_json::from_str(text)
            .map_err(json_error)
            .context("scene JSON")?;
        Ok(vertex_stage(f, dir, true)?.scene)
    }
}

/// Build the vertex stage `f` describes. Without a vertex shader (allowed unless
/// `shader_required`), the declaration's elements pass through ([`crate::fixed`]).
pub(crate) fn vertex_stage(
    f: SceneFile,
    dir: &Path,
    shader_required: bool,
) -> Result<VertexStage, SceneError> {
    let mut warnings = Vec::new();
    let shader = scene_shader(
        Stage::Vertex,
        ("shader", f.shader.as_deref()),
        ("shader_asm", f.shader_asm.as_deref()),
        dir,
    )?;
    let mut device = Device::new();
    match shader {
        Some(s) => {
            warnings.extend(s.warnings);
            device.set_vertex_shader(&s.checked)?;
            if s.header_table.is_some() {
                device.set_constant_table(s.header_table);
            }
        }
        None if shader_required => {
            bail!("a scene names exactly one of \"shader\" and \"shader_asm\"")
        }
        None => {}
    }
    let has_shader = device.program().is_some();

    let (declaration, vertex_count) = match (&f.mesh, f.vertex_count) {
        (Some(m), given) => {
            if !f.declaration.is_empty() || !f.streams.is_empty() || f.indices.is_some() {
                bail!("a scene with a \"mesh\" takes its declaration, streams and indices from it");
            }
            let path = dir.join(&m.file);
            let mesh = super::mesh::Mesh::load(&path)?;
            let (declaration, n) = mesh.bind_streams(&mut device)?;
            if given.is_some_and(|g| g != n) {
                bail!(
                    "vertex_count {} differs from the mesh's {n} indices",
                    given.unwrap_or(0)
                );
            }
            (declaration, n)
        }
        (None, Some(n)) => {
            let mut decl = Vec::new();
            for (i, e) in f.declaration.iter().enumerate() {
                decl.push(VertexElement {
                    stream: e.stream,
                    offset: e.offset,
                    ty: DeclType::from_name(&e.ty)
                        .filter(|t| *t != DeclType::Unused)
                        .ok_or_else(|| {
                            SceneError::new(format!("declaration[{i}]: unknown type {:?}", e.ty))
                        })?,
                    method: e.method,
                    usage: usage(&e.usage).with_context(|| format!("declaration[{i}]"))?,
                    usage_index: e.usage_index,
                });
            }
            (decl, n)
        }
        (None, None) => bail!("missing field `vertex_count`"),
    };
    let fixed_function = if has_shader {
        device.set_declaration(declaration)?;
        None
    } else {
        Some(crate::fixed::pass_through(&mut device, declaration).context("declaration")?)
    };

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
    if let Some(ix) = f.indices {
        if ix.len() != vertex_count {
            bail!("{} indices for vertex_count {vertex_count}", ix.len());
        }
        device.set_indices(Some(ix));
    }
    super::constants::apply(&mut device, &f.constants, "constants")?;
    if !f.textures.is_empty() || !f.samplers.is_empty() {
        super::textures::apply(&mut device, &f.textures, &f.samplers, dir)?;
    }
    Ok(VertexStage {
        scene: Scene {
            device,
            vertex_count,
            instance_count: f.instance_count.unwrap_or(1),
            warnings,
        },
        fixed_function,
    })
}

fn stream_bytes(s: &StreamJson, dir: &Path) -> Result<Vec<u8>, SceneError> {
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
            .collect::<Result<Vec<f32>, _>>()?
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect());
    }
    if let Some(b) = &s.bytes {
        return Ok(b.clone());
    }
    if let Some(h) = &s.hex {
        let digits: String = h.chars().filter(|c| !c.is_whitespace()).collect();
        if let Some(c) = digits.chars().find(|c| !c.is_ascii_hexdigit()) {
            bail!("hex: {c:?} is not a hex digit");
        }
        if !digits.len().is_multiple_of(2) {
            bail!("hex: an odd number of digits");
        }
        return (0..digits.len())
            .step_by(2)
            .map(|i| {
                u8::from_str_radix(&digits[i..i + 2], 16).map_err(|_| {
                    SceneError::new(format!("hex: bad digits {:?}", &digits[i..i + 2]))
                })
            })
            .collect();
    }
    let file = dir.join(s.file.as_deref().unwrap_or_default());
    read_file(&file)
}
