//! Loader targets: scenes, textures (DDS, PNG) and meshes (OBJ, glTF), through the functions
//! `dxso run` uses. Files a loader reads by name are written to a directory of this process's
//! own (so several fuzzers can run at once).

use dxso_cli::mesh::Mesh;
use dxso_cli::scene::Scene;
use dxso_vm::Device;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Draws larger than this many vertices are loaded but not run (the fuzzer looks for loader
/// defects; the executor has its own target).
const MAX_DRAW: usize = 4096;

/// A vertex shader the scene target's directory holds as text (`s.asm`) and tokens
/// (`s.vso`), so a fuzzed scene can name a shader file.
const SHADER: &str = "vs_3_0\ndcl_position v0\ndcl_texcoord v1\ndcl_position o0\ndcl_texcoord o1\ndcl_2d s0\nmov o0, v0\ntexldl o1, v1, s0\n";

/// This process's scratch directory, made once, holding the files a scene may name.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("dxso-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("scratch directory");
        let shader = dxso::text::parse(SHADER).expect("the scratch shader assembles");
        let tokens = dxso::binary::write_bytes(&shader).expect("and encodes");
        std::fs::write(d.join("s.asm"), SHADER).expect("scratch file");
        std::fs::write(d.join("s.vso"), tokens).expect("scratch file");
        let floats: Vec<u8> = (0..64u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
        std::fs::write(d.join("v.bin"), floats).expect("scratch file");
        d
    })
}

/// Write `data` as `name` in the scratch directory; returns its path.
fn file(name: &str, data: &[u8]) -> PathBuf {
    let path = dir().join(name);
    std::fs::write(&path, data).expect("scratch file");
    path
}

/// Draw what a loaded scene describes, when it is small, as `dxso run` and `--trace` do.
fn draw(scene: &Scene) {
    let n = scene
        .vertex_count
        .saturating_mul(scene.instance_count.max(1));
    if n == 0 || n > MAX_DRAW {
        return;
    }
    let _ = scene.device.draw(scene.vertex_count, scene.instance_count);
    let _ = scene
        .device
        .trace(n - 1, scene.vertex_count, scene.instance_count);
}

/// `scene`: scene JSON, loaded and (when small) drawn and traced.
pub fn scene(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(scene) = Scene::from_json(text, dir()) {
        draw(&scene);
    }
}

/// `draw_scene`: `dxso draw` scene JSON, loaded as `dxso draw` loads it (not drawn: a frame's
/// surfaces may take gigabytes, and the pipeline has targets of its own).
pub fn draw_scene(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = dxso_cli::scene::DrawScene::from_json(text, dir());
}

/// Bind a texture file as vertex sampler s0, as a scene's `"textures": {"s0": {"file": ..}}`.
fn texture(name: &str, data: &[u8]) {
    file(name, data);
    let textures = BTreeMap::from([("s0".to_string(), serde_json::json!({ "file": name }))]);
    let mut device = Device::new();
    let _ = dxso_cli::textures::apply(&mut device, &textures, &BTreeMap::new(), dir());
}

/// `dds`: a DDS file as a vertex texture.
pub fn dds(data: &[u8]) {
    texture("t.dds", data);
}

/// `png`: a PNG file as a vertex texture.
pub fn png(data: &[u8]) {
    texture("t.png", data);
}

/// Load a mesh file and bind it to a device, as a scene's `"mesh"` does.
fn mesh(name: &str, data: &[u8]) {
    let path = file(name, data);
    if let Ok(mesh) = Mesh::load(&path) {
        let _ = mesh.bind(&mut Device::new());
    }
}

/// `obj`: a Wavefront OBJ mesh.
pub fn obj(data: &[u8]) {
    mesh("m.obj", data);
}

/// `gltf`: a glTF mesh, as JSON (`.gltf`) or binary (`.glb`) by its first bytes.
pub fn gltf(data: &[u8]) {
    let name = if data.starts_with(b"glTF") {
        "m.glb"
    } else {
        "m.gltf"
    };
    mesh(name, data);
}
