//! Meshes as scene inputs: `"mesh": {"file": "x.obj" | "x.gltf" | "x.glb"}` supplies the
//! streams, the declaration and the index buffer of a draw, mapped to declaration elements by
//! usage: positions → POSITION0 (FLOAT3, stream 0), normals → NORMAL0 (FLOAT3, stream 1),
//! texture coordinates → TEXCOORD0 (FLOAT2, stream 2), skin joints → BLENDINDICES0 (FLOAT4
//! joint numbers, stream 3), skin weights → BLENDWEIGHT0 (FLOAT4, stream 4).

use super::{SceneError, bail, read_file};
use dxso::ir::Usage;
use dxso_vm::{DeclType, Device, Frequency, StreamSource, VertexElement};
use std::path::Path;

/// A [`SceneError`] from a format string.
macro_rules! err {
    ($($t:tt)*) => {
        SceneError::new(format!($($t)*))
    };
}

/// What loading a mesh may hold at its peak: ten times the file's size (a .gltf's buffers
/// included) plus 64 MiB, the bound `docs/limits.md` gives. A mesh whose own numbers say it
/// needs more is refused before anything is sized from them.
fn budget(file_bytes: usize) -> usize {
    file_bytes.saturating_mul(10).saturating_add(64 << 20)
}

/// Bytes an OBJ face corner (`f`'s vertex reference) costs while loading: the OBJ reader's
/// face and index tables, then the mesh's index and the device's copy; about 36 measured on an
/// OBJ of `f 1 1 1` lines.
pub const OBJ_BYTES_PER_CORNER: usize = 44;

/// Bytes a glTF accessor element can cost: up to four f32 as read, then the stream's copy.
pub const GLTF_BYTES_PER_ELEMENT: usize = 32;

/// Refuse a mesh whose loading would need `need` bytes, over `budget(file_bytes)`.
fn within_budget(
    path: &Path,
    what: &str,
    need: usize,
    file_bytes: usize,
) -> Result<(), SceneError> {
    let limit = budget(file_bytes);
    if need > limit {
        bail!(
            "{}: {what} would take about {} MiB to load; a mesh may take at most 10 × its \
             file's size + 64 MiB ({} MiB)",
            path.display(),
            need >> 20,
            limit >> 20
        );
    }
    Ok(())
}

/// The face corners of an OBJ text: the vertex references on its `f` lines, counted without
/// allocating.
fn obj_corners(text: &[u8]) -> usize {
    text.split(|&b| b == b'\n')
        .map(|line| {
            let mut words = line
                .split(|b| b.is_ascii_whitespace())
                .filter(|w| !w.is_empty());
            match words.next() {
                Some(b"f") => words.count(),
                _ => 0,
            }
        })
        .sum()
}

/// The vertex attributes and triangle indices of one mesh (all its primitives joined).
#[derive(Default, Debug, PartialEq)]
pub struct Mesh {
    /// Each vertex's position.
    pub positions: Vec<[f32; 3]>,
    /// Each vertex's normal (empty when the mesh has none).
    pub normals: Vec<[f32; 3]>,
    /// Each vertex's first texture coordinates (empty when the mesh has none).
    pub texcoords: Vec<[f32; 2]>,
    /// Each vertex's skinning joints (empty when the mesh has none).
    pub joints: Vec<[f32; 4]>,
    /// Each vertex's skinning weights (empty when the mesh has none).
    pub weights: Vec<[f32; 4]>,
    /// Three vertex indices per triangle.
    pub indices: Vec<u32>,
}

impl Mesh {
    /// Load a `.obj`, `.gltf` or `.glb` file (by its extension).
    pub fn load(path: &Path) -> Result<Mesh, SceneError> {
        let lower = path.to_string_lossy().to_ascii_lowercase();
        if lower.ends_with(".obj") {
            obj(path)
        } else if lower.ends_with(".gltf") || lower.ends_with(".glb") {
            gltf_mesh(path)
        } else {
            bail!(
                "{}: meshes load from .obj, .gltf or .glb files",
                path.display()
            )
        }
    }

    /// Bind the mesh's attributes as streams and declaration elements; returns the index
    /// count (the draw's vertex count).
    pub fn bind(&self, device: &mut Device) -> Result<usize, SceneError> {
        let (declaration, count) = self.bind_streams(device)?;
        device.set_declaration(declaration)?;
        Ok(count)
    }

    /// Bind the mesh's attributes as streams and its index buffer; returns the declaration
    /// elements that read them (for the caller to set, or to pass through without a vertex
    /// shader) and the index count.
    pub fn bind_streams(
        &self,
        device: &mut Device,
    ) -> Result<(Vec<VertexElement>, usize), SceneError> {
        let n = self.positions.len();
        // Stream k carries attribute k; an attribute a mesh lacks is left out.
        let attributes: [(DeclType, Usage, &str, usize, &[f32]); 5] = [
            (
                DeclType::Float3,
                Usage::Position,
                "positions",
                n,
                self.positions.as_flattened(),
            ),
            (
                DeclType::Float3,
                Usage::Normal,
                "normals",
                self.normals.len(),
                self.normals.as_flattened(),
            ),
            (
                DeclType::Float2,
                Usage::TexCoord,
                "texture coordinates",
                self.texcoords.len(),
                self.texcoords.as_flattened(),
            ),
            (
                DeclType::Float4,
                Usage::BlendIndices,
                "joint sets",
                self.joints.len(),
                self.joints.as_flattened(),
            ),
            (
                DeclType::Float4,
                Usage::BlendWeight,
                "weight sets",
                self.weights.len(),
                self.weights.as_flattened(),
            ),
        ];
        let mut decl = Vec::new();
        for (stream, (ty, usage, what, len, data)) in attributes.into_iter().enumerate() {
            match len {
                0 if stream > 0 => continue,
                l if l == n => {}
                l => bail!("the mesh has {l} {what} for {n} positions"),
            }
            decl.push(VertexElement {
                stream: stream as u16,
                offset: 0,
                ty,
                method: 0,
                usage,
                usage_index: 0,
            });
            device.set_stream(
                stream,
                Some(StreamSource {
                    data: data.iter().flat_map(|x| x.to_le_bytes()).collect(),
                    offset: 0,
                    stride: ty.size(),
                    frequency: Frequency::Vertex,
                }),
            )?;
        }
        if let Some(&bad) = self.indices.iter().find(|&&i| i as usize >= n) {
            bail!("the mesh's index {bad} is past its {n} vertices");
        }
        device.set_indices(Some(self.indices.clone()));
        Ok((decl, self.indices.len()))
    }
}

fn obj(path: &Path) -> Result<Mesh, SceneError> {
    let text = read_file(path)?;
    let corners = obj_corners(&text);
    within_budget(
        path,
        &format!("{corners} face corners"),
        corners.saturating_mul(OBJ_BYTES_PER_CORNER),
        text.len(),
    )?;
    let opts = tobj::LoadOptions {
        single_index: true,
        triangulate: true,
        ..Default::default()
    };
    let (models, _) = tobj::load_obj_buf(&mut std::io::Cursor::new(text), &opts, |_| {
        Err(tobj::LoadError::GenericFailure)
    })
    .map_err(|e| err!("{}: {e}", path.display()))?;
    let mut mesh = Mesh::default();
    for m in models {
        let m = m.mesh;
        let base = u32::try_from(mesh.positions.len())
            .map_err(|_| err!("{}: more than 2^32 vertices", path.display()))?;
        let count = m.positions.len() / 3;
        mesh.positions
            .extend(m.positions.chunks_exact(3).map(|p| [p[0], p[1], p[2]]));
        if m.normals.len() == m.positions.len() {
            mesh.normals
                .extend(m.normals.chunks_exact(3).map(|p| [p[0], p[1], p[2]]));
        }
        if m.texcoords.len() / 2 == count {
            mesh.texcoords
                .extend(m.texcoords.chunks_exact(2).map(|p| [p[0], p[1]]));
        }
        for &i in &m.indices {
            let i = i
                .checked_add(base)
                .ok_or_else(|| err!("{}: an index exceeds 2^32 - 1", path.display()))?;
            mesh.indices.push(i);
        }
    }
    if mesh.positions.is_empty() {
        bail!("{}: no vertices", path.display());
    }
    Ok(mesh)
}

/// gltf-json 1.4's validation looks up a primitive's POSITION accessor before checking that
/// it exists (an index out of bounds panics; fuzz finding): check it first. A document that
/// does not parse is left to `gltf` to report.
fn positions_exist(bytes: &[u8]) -> Result<(), SceneError> {
    use gltf::json::validation::Checked;
    let json = if bytes.starts_with(b"glTF") {
        match gltf::binary::Glb::from_slice(bytes) {
            Ok(glb) => glb.json.into_owned(),
            Err(_) => return Ok(()),
        }
    } else {
        bytes.to_vec()
    };
    let Ok(root) = serde_json::from_slice::<gltf::json::Root>(&json) else {
        return Ok(());
    };
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (k, prim) in mesh.primitives.iter().enumerate() {
            let position = Checked::Valid(gltf::json::mesh::Semantic::Positions);
            if let Some(a) = prim.attributes.get(&position)
                && a.value() >= root.accessors.len()
            {
                bail!(
                    "mesh {m} primitive {k}: POSITION names accessor {}, but there are {}",
                    a.value(),
                    root.accessors.len()
                );
            }
        }
    }
    Ok(())
}

/// A .glb's 12-byte header: its declared total length must cover the header and stay within
/// the file. gltf 1.4 subtracts the header's size from the declared length unchecked (a
/// length under 12 overflows: a panic with overflow checks, fuzz finding), so check it first.
fn glb_header(bytes: &[u8]) -> Result<(), SceneError> {
    let Some(length) = bytes.get(8..12) else {
        bail!("the .glb header is cut short ({} bytes)", bytes.len());
    };
    let length = u32::from_le_bytes([length[0], length[1], length[2], length[3]]) as usize;
    if !(12..=bytes.len()).contains(&length) {
        bail!(
            "the .glb header declares {length} bytes; the file has {} (at least 12 needed)",
            bytes.len()
        );
    }
    Ok(())
}

/// The attributes and indices read must have the types glTF 2.0 gives their semantics (gltf
/// 1.4's reader assumes them: another element size trips its debug assertion, or is read
/// with the wrong stride; fuzz finding). Attributes dxso does not read are not checked.
fn accessor_types(prim: &gltf::Primitive) -> Result<(), SceneError> {
    use gltf::Semantic;
    use gltf::accessor::{DataType as T, Dimensions as D};
    let float = [T::F32].as_slice();
    let normalized = [T::F32, T::U8, T::U16].as_slice();
    for (semantic, a) in prim.attributes() {
        let (dims, types, name) = match semantic {
            Semantic::Positions => (D::Vec3, float, "POSITION"),
            Semantic::Normals => (D::Vec3, float, "NORMAL"),
            Semantic::TexCoords(0) => (D::Vec2, normalized, "TEXCOORD_0"),
            Semantic::Joints(0) => (D::Vec4, [T::U8, T::U16].as_slice(), "JOINTS_0"),
            Semantic::Weights(0) => (D::Vec4, normalized, "WEIGHTS_0"),
            _ => continue,
        };
        if a.dimensions() != dims || !types.contains(&a.data_type()) {
            bail!(
                "{name} is an accessor of {:?} {:?}; glTF gives it {dims:?} of {types:?}",
                a.dimensions(),
                a.data_type()
            );
        }
    }
    if let Some(a) = prim.indices()
        && (a.dimensions() != D::Scalar || !matches!(a.data_type(), T::U8 | T::U16 | T::U32))
    {
        bail!(
            "indices are an accessor of {:?} {:?}; glTF gives them Scalar U8, U16 or U32",
            a.dimensions(),
            a.data_type()
        );
    }
    Ok(())
}

fn gltf_mesh(path: &Path) -> Result<Mesh, SceneError> {
    let bytes = read_file(path)?;
    if bytes.starts_with(b"glTF") {
        glb_header(&bytes).map_err(|e| err!("{}: {e}", path.display()))?;
    }
    positions_exist(&bytes).map_err(|e| err!("{}: {e}", path.display()))?;
    let g = gltf::Gltf::from_slice(&bytes).map_err(|e| err!("{}: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut buffers = Vec::new();
    for b in g.buffers() {
        let data = match b.source() {
            gltf::buffer::Source::Bin => g
                .blob
                .clone()
                .ok_or_else(|| err!("{}: the .glb has no binary chunk", path.display()))?,
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                bail!(
                    "{}: data URIs are not read; use a .glb or an external .bin",
                    path.display()
                )
            }
            gltf::buffer::Source::Uri(uri) => {
                let p = dir.join(uri);
                read_file(&p)?
            }
        };
        buffers.push(data);
    }
    // Every accessor's declared count, before any is read (a sparse accessor without a
    // buffer view can declare any count in a few bytes of JSON).
    let elements = g
        .accessors()
        .map(|a| a.count())
        .fold(0usize, usize::saturating_add);
    let file_bytes = buffers
        .iter()
        .map(Vec::len)
        .fold(bytes.len(), usize::saturating_add);
    within_budget(
        path,
        &format!("{elements} accessor elements"),
        elements.saturating_mul(GLTF_BYTES_PER_ELEMENT),
        file_bytes,
    )?;
    let mut mesh = Mesh::default();
    for m in g.meshes() {
        for prim in m.primitives() {
            if prim.mode() != gltf::mesh::Mode::Triangles {
                bail!("{}: only triangle primitives are read", path.display());
            }
            accessor_types(&prim).map_err(|e| err!("{}: {e}", path.display()))?;
            let reader = prim.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
            let base = u32::try_from(mesh.positions.len())
                .map_err(|_| err!("{}: more than 2^32 vertices", path.display()))?;
            let positions: Vec<[f32; 3]> = reader
                .read_positions()
                .ok_or_else(|| err!("{}: a primitive has no positions", path.display()))?
                .collect();
            let count = positions.len();
            mesh.positions.extend(positions);
            if let Some(n) = reader.read_normals() {
                mesh.normals.extend(n);
            }
            if let Some(t) = reader.read_tex_coords(0) {
                mesh.texcoords.extend(t.into_f32());
            }
            if let Some(j) = reader.read_joints(0) {
                mesh.joints.extend(j.into_u16().map(|j| j.map(f32::from)));
            }
            if let Some(w) = reader.read_weights(0) {
                mesh.weights.extend(w.into_f32());
            }
            // Indices are the file's numbers: one past the u32 range once offset to this
            // primitive's vertices is an error, not a wrap (`bind` then checks each index
            // against the vertex count).
            let past = || {
                err!(
                    "{}: an index of a primitive exceeds 2^32 - 1",
                    path.display()
                )
            };
            match reader.read_indices() {
                Some(ix) => {
                    for i in ix.into_u32() {
                        mesh.indices.push(i.checked_add(base).ok_or_else(past)?);
                    }
                }
                None => {
                    let end = u32::try_from(count)
                        .ok()
                        .and_then(|c| base.checked_add(c))
                        .ok_or_else(past)?;
                    mesh.indices.extend(base..end);
                }
            }
        }
    }
    if mesh.positions.is_empty() {
        bail!("{}: no vertices", path.display());
    }
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glb_header_must_cover_itself_and_stay_in_the_file() {
        let glb = |length: u32, size: usize| {
            let mut b = b"glTF\x02\0\0\0".to_vec();
            b.extend(length.to_le_bytes());
            b.resize(size, 0);
            b
        };
        assert!(glb_header(&glb(20, 20)).is_ok());
        assert!(glb_header(&glb(12, 40)).is_ok());
        for (length, size) in [(4, 20), (11, 20), (21, 20)] {
            let err = glb_header(&glb(length, size)).unwrap_err().to_string();
            assert_eq!(
                err,
                format!(
                    "the .glb header declares {length} bytes; the file has {size} (at least 12 needed)"
                )
            );
        }
        assert!(glb_header(b"glTF\x02\0").is_err());
    }

    #[test]
    fn counts_face_corners() {
        assert_eq!(
            obj_corners(b"v 0 0 0\nf 1 1 1\r\n  f\t1/2/3 4//5 6 7\nfoo 1\nf\n"),
            7
        );
        assert_eq!(obj_corners(b""), 0);
    }

    #[test]
    fn refuses_a_mesh_past_its_budget() {
        assert_eq!(budget(1), 10 + (64 << 20));
        assert_eq!(budget(usize::MAX), usize::MAX);
        let p = Path::new("m.obj");
        assert!(within_budget(p, "x", budget(100), 100).is_ok());
        let err = within_budget(p, "9 face corners", budget(100) + 1, 100).unwrap_err();
        assert_eq!(
            err.to_string(),
            "m.obj: 9 face corners would take about 64 MiB to load; a mesh may take at most 10 × \
             its file's size + 64 MiB (64 MiB)"
        );
    }

    fn device() -> Device {
        let src = "vs_3_0\ndcl_position v0\ndcl_texcoord v1\ndcl_position o0\ndcl_texcoord o1\nmov o0, v0\nmov o1, v1\n";
        let shader = dxso::text::parse(src).unwrap();
        let checked = dxso::validate::validate(&shader, &dxso::validate::Caps::max()).unwrap();
        let mut dev = Device::new();
        dev.set_vertex_shader(&checked).unwrap();
        dev
    }

    #[test]
    fn attributes_bind_to_their_streams_and_mismatches_are_errors() {
        let mut mesh = Mesh {
            positions: vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
            texcoords: vec![[0.25, 0.5], [0.75, 1.0]],
            indices: vec![1, 0],
            ..Mesh::default()
        };
        let mut dev = device();
        assert_eq!(mesh.bind(&mut dev).unwrap(), 2);
        let out = dev.draw(2, 1).unwrap();
        // Index 1 first; FLOAT3 and FLOAT2 fill the missing components with (0, 0, 0, 1).
        assert_eq!(out.vertex(0), &[4.0, 5.0, 6.0, 1.0, 0.75, 1.0, 0.0, 1.0]);
        assert_eq!(out.vertex(1), &[1.0, 2.0, 3.0, 1.0, 0.25, 0.5, 0.0, 1.0]);

        mesh.normals = vec![[0.0, 0.0, 1.0]];
        let err = mesh.bind(&mut device()).unwrap_err().to_string();
        assert_eq!(err, "the mesh has 1 normals for 2 positions");
        mesh.normals.clear();
        mesh.indices = vec![0, 2];
        let err = mesh.bind(&mut device()).unwrap_err().to_string();
        assert_eq!(err, "the mesh's index 2 is past its 2 vertices");
    }
}
