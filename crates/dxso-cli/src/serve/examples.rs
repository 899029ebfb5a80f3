//! The scenes under `examples/`, built into the binary for the page's pickers (an example to
//! open, or only its mesh): each scene with the shader files it names put inline
//! (`"shader": "x.asm"` becomes `"shader_asm": "..."`), so it runs wherever the server was
//! started.

use serde_json::{Map, Value, json};

/// One example: its name, its scene's text, and the files the scene names.
struct Example {
    name: &'static str,
    scene: &'static str,
    files: &'static [(&'static str, &'static str)],
}

macro_rules! example_file {
    ($dir:literal, $name:literal) => {
        (
            $name,
            include_str!(concat!("../../../../examples/", $dir, "/", $name)),
        )
    };
}

const EXAMPLES: &[Example] = &[
    Example {
        name: "textured",
        scene: include_str!("../../../../examples/draw/textured.scene.json"),
        files: &[example_file!("draw", "textured.ps.asm")],
    },
    Example {
        name: "terrain",
        scene: include_str!("../../../../examples/draw/terrain.scene.json"),
        files: &[
            example_file!("draw", "terrain.vs.asm"),
            example_file!("draw", "terrain.ps.asm"),
        ],
    },
    Example {
        name: "two_sided",
        scene: include_str!("../../../../examples/draw/two_sided.scene.json"),
        files: &[
            example_file!("draw", "two_sided.vs.asm"),
            example_file!("draw", "two_sided.ps.asm"),
        ],
    },
    Example {
        name: "fog",
        scene: include_str!("../../../../examples/draw/fog.scene.json"),
        files: &[
            example_file!("draw", "fog.vs.asm"),
            example_file!("draw", "fog.ps.asm"),
        ],
    },
    Example {
        name: "bump",
        scene: include_str!("../../../../examples/draw/bump.scene.json"),
        files: &[example_file!("draw", "bump.ps.asm")],
    },
    Example {
        name: "blending",
        scene: include_str!("../../../../examples/draw/blending.scene.json"),
        files: &[],
    },
    Example {
        name: "heightmap",
        scene: include_str!("../../../../examples/heightmap/scene.json"),
        files: &[example_file!("heightmap", "displace.asm")],
    },
];

/// The fields of a scene (or of a draw) that make its mesh: what "Use mesh" copies.
pub const MESH_FIELDS: [&str; 5] = [
    "primitive",
    "vertex_count",
    "indices",
    "declaration",
    "streams",
];

/// `/api/examples`: `{"examples": [{"name", "kind", "scene", "shader", "mesh"}]}` — the scene
/// with its files inline, the shader the page opens with it (the pixel shader, else the vertex
/// shader), and its mesh (the geometry fields of the scene, or of its first draw).
pub fn list() -> Value {
    let examples: Vec<Value> = EXAMPLES.iter().map(example).collect();
    json!({"examples": examples})
}

fn example(e: &Example) -> Value {
    let mut scene: Value = serde_json::from_str(e.scene).unwrap_or(Value::Null);
    inline_files(&mut scene, e.files);
    if let Some(draws) = scene.get_mut("draws").and_then(Value::as_array_mut) {
        for d in draws {
            inline_files(d, e.files);
        }
    }
    let first_draw = scene
        .get("draws")
        .and_then(Value::as_array)
        .and_then(|d| d.first());
    let place = first_draw.unwrap_or(&scene);
    let mut shader = Value::Null;
    for key in ["pixel_shader_asm", "shader_asm"] {
        let found = [place, &scene].into_iter().find_map(|p| p.get(key));
        if let Some(text) = found {
            shader = text.clone();
            break;
        }
    }
    let mesh: Map<String, Value> = MESH_FIELDS
        .iter()
        .filter_map(|&k| Some((k.to_string(), place.get(k)?.clone())))
        .collect();
    let kind = if dxso_draw::scene::is_draw_scene(e.scene) {
        "draw"
    } else {
        "run"
    };
    json!({"name": e.name, "kind": kind, "scene": scene, "shader": shader, "mesh": mesh})
}

/// `"shader": "x.asm"` → `"shader_asm": TEXT` (and `pixel_shader`), for the files given.
fn inline_files(place: &mut Value, files: &[(&str, &str)]) {
    let Some(obj) = place.as_object_mut() else {
        return;
    };
    for (file, inline) in [
        ("shader", "shader_asm"),
        ("pixel_shader", "pixel_shader_asm"),
    ] {
        let text = obj
            .get(file)
            .and_then(Value::as_str)
            .and_then(|name| files.iter().find(|(f, _)| *f == name))
            .map(|(_, text)| *text);
        if let Some(text) = text {
            obj.remove(file);
            obj.insert(inline.to_string(), text.into());
        }
    }
}
