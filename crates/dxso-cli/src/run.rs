//! `dxso run` and `dxso bench`.

use crate::outputs::{OutputWriter, PART_VERTICES};
use crate::scene::Scene;
use crate::{Failure, stdout};
use anyhow::Context;
use dxso_vm::Outputs;
use std::io::Write;
use std::path::Path;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RunFormat {
    Json,
    Csv,
    Bin,
}

fn scene_error(path: &Path, e: anyhow::Error) -> Failure {
    Failure::Input(format!("{}: error: {e:#}", path.display()))
}

/// Load a scene; scene problems are input errors (exit 1), I/O problems exit 2.
pub fn load_scene(path: &Path) -> Result<Scene, Failure> {
    if !path.exists() {
        return Err(Failure::Io(anyhow::anyhow!(
            "{}: no such file",
            path.display()
        )));
    }
    let scene =
        Scene::load(path).map_err(|e| Failure::Input(format!("{}: error: {e}", path.display())))?;
    for w in &scene.warnings {
        crate::diagnostics_out(&format!("{}: {w}\n", path.display()));
    }
    Ok(scene)
}

/// Where draws run: the CPU (dxso-vm) or a GPU (dxso-gpu).
pub struct On {
    /// `Some(adapter name to look for)` for the GPU.
    gpu: Option<Option<String>>,
}

impl On {
    pub fn new(gpu: bool, adapter: Option<String>) -> On {
        On {
            gpu: gpu.then_some(adapter),
        }
    }

    /// The GPU, opened; no usable adapter is a usage error (exit 2) that says how to get one.
    pub(crate) fn open(&self) -> Result<Option<dxso_gpu::Gpu>, Failure> {
        match &self.gpu {
            None => Ok(None),
            Some(name) => dxso_gpu::Gpu::new(name.as_deref())
                .map(Some)
                .map_err(|e| Failure::Io(e.into())),
        }
    }
}

/// A GPU draw's error: the scene's own problems (and what the translation cannot express)
/// exit 1, the GPU's exit 2.
pub(crate) fn gpu_failure(name: &str, e: dxso_gpu::Error) -> Failure {
    use dxso_gpu::Error as E;
    match e {
        E::Vm(_) | E::Translate(_) | E::Unsupported { .. } => {
            Failure::Input(format!("{name}: error: {e}"))
        }
        e => Failure::Io(anyhow::Error::new(e).context(name.to_string())),
    }
}

pub fn run(
    path: &Path,
    format: RunFormat,
    output: Option<&Path>,
    png_out: Option<&Path>,
    trace: Option<usize>,
    on: &On,
) -> Result<(), Failure> {
    let scene = load_scene(path)?;
    let gpu = on.open()?;
    if let Some(v) = trace {
        let t = scene
            .device
            .trace(v, scene.vertex_count, scene.instance_count)
            .map_err(|e| scene_error(path, e.into()))?;
        let program = scene.device.program().expect("a scene binds a shader");
        let names = match scene.device.constant_table() {
            Ok(Some(table)) => table.register_names(),
            _ => Default::default(),
        };
        let mut s = format!("vertex {v}: {} instructions executed\n", t.steps.len());
        s.push_str(&trace_steps(&t, &names));
        s.push_str("outputs:\n");
        for (k, r) in program.outputs.iter().enumerate() {
            let o = &t.outputs[k * 4..k * 4 + 4];
            s.push_str(&format!(
                "  {:<4} {:<12} ({}, {}, {}, {})\n",
                r.name, r.semantic, o[0], o[1], o[2], o[3]
            ));
        }
        if let Some(e) = &t.error {
            s.push_str(&format!("stopped: {e}\n"));
        }
        return stdout(&s);
    }
    if format == RunFormat::Bin && output.is_none() {
        return Err(Failure::Io(anyhow::anyhow!("--format bin needs -o OUT")));
    }
    let sink: Box<dyn Write> = match output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut writer = OutputWriter::new(format, sink);
    let name = path.display().to_string();
    let warn = |out: &Outputs| {
        for u in &out.unbound_inputs {
            eprintln!(
                "{name}: warning: {u} is declared by the shader but no declaration element feeds it; it reads (0, 0, 0, 1)"
            );
        }
    };
    let written = match (&gpu, png_out) {
        // A picture needs every vertex, and the GPU path draws whole: one part.
        (Some(_), _) | (None, Some(_)) => {
            let out = match &gpu {
                Some(gpu) => gpu
                    .draw(&scene.device, scene.vertex_count, scene.instance_count)
                    .map_err(|e| gpu_failure(&name, e))?,
                None => scene
                    .device
                    .draw(scene.vertex_count, scene.instance_count)
                    .map_err(|e| scene_error(path, e.into()))?,
            };
            if let Some(png_path) = png_out {
                picture(&out, png_path).map_err(|e| scene_error(path, e))?;
                eprintln!("{name}: picture written to {}", png_path.display());
            }
            warn(&out);
            writer.part(&out).map_err(anyhow::Error::new)
        }
        // The CPU streams: parts of PART_VERTICES, each written before the next is drawn.
        (None, None) => {
            let mut out = Outputs::default();
            let mut first = true;
            scene.device.draw_parts(
                scene.vertex_count,
                scene.instance_count,
                PART_VERTICES,
                &mut out,
                |part| -> anyhow::Result<()> {
                    if std::mem::take(&mut first) {
                        warn(part);
                    }
                    writer.part(part).map_err(anyhow::Error::new)
                },
            )
        }
    };
    match written.and_then(|()| writer.finish().map_err(anyhow::Error::new)) {
        Ok(()) => Ok(()),
        Err(e) => match e.downcast::<dxso_vm::VmError>() {
            Ok(vm) => Err(scene_error(path, vm.into())),
            // A reader that stopped early (`| head`) is not an error.
            Err(e) if broken_pipe(&e) => Ok(()),
            Err(e) => Err(Failure::Io(e.context(match output {
                Some(p) => format!("writing {}", p.display()),
                None => "writing stdout".to_string(),
            }))),
        },
    }
}

fn broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Draw a scene's output as triangles (its indices, or the vertices as a list), placed and
/// coloured as [`crate::raster::vertices`] says.
fn picture(out: &Outputs, path: &Path) -> anyhow::Result<()> {
    let verts = crate::raster::vertices(out).context("--png")?;
    let mut img = crate::raster::Image::new(800, 600, [24, 26, 34, 255]);
    // The draw's vertices are already in index order: draw them as a list.
    img.draw(&verts, None);
    img.write_png(path)
}

/// A float that reads back to the same f32; non-finite values as strings.
pub fn number(x: f32) -> String {
    if x.is_nan() {
        "\"nan\"".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "\"inf\"".into()
        } else {
            "\"-inf\"".into()
        }
    } else {
        // Debug prints the shortest representation that reads back to the same f32.
        format!("{x:?}")
    }
}

/// A trace's executed instructions, one a line (`-` marks a lane that did not run it), with
/// the constant-table names of the constants each reads.
pub(crate) fn trace_steps(
    t: &dxso_vm::Trace,
    names: &std::collections::BTreeMap<(dxso::ctab::RegisterSet, u32), String>,
) -> String {
    let mut s = String::new();
    for step in &t.steps {
        let mark = if step.active { ' ' } else { '-' };
        s.push_str(&format!(
            "{mark}{:>5}  {:<40} {}{}\n",
            step.instruction,
            step.text,
            step.effect,
            constant_names(&step.text, names)
        ));
    }
    s
}

/// `  [c8 = cViewProj, c25 = lights[1].pos]`: the constant-table names of the constant
/// registers an instruction's text names (empty when it names none the table has).
fn constant_names(
    text: &str,
    names: &std::collections::BTreeMap<(dxso::ctab::RegisterSet, u32), String>,
) -> String {
    let mut seen = Vec::new();
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = word.chars();
        let Some(set) = chars.next().and_then(dxso::ctab::RegisterSet::from_prefix) else {
            continue;
        };
        let Ok(n) = chars.as_str().parse::<u32>() else {
            continue;
        };
        if let Some(name) = names.get(&(set, n)) {
            let item = format!("{word} = {name}");
            if !seen.contains(&item) {
                seen.push(item);
            }
        }
    }
    if seen.is_empty() {
        String::new()
    } else {
        format!("  [{}]", seen.join(", "))
    }
}
