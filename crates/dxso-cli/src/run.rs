//! `dxso run` and `dxso bench`.

use crate::outputs::{OutputWriter, PART_VERTICES};
use crate::scene::Scene;
use crate::{Failure, stdout};
use anyhow::Context;
use dxso::report::Report;
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
    Failure::error(path.display(), format!("{e:#}"))
}

/// Load a scene; scene problems are input errors (exit 1), I/O problems exit 2.
pub fn load_scene(path: &Path) -> Result<Scene, Failure> {
    if !path.exists() {
        return Err(Failure::Io(anyhow::anyhow!(
            "{}: no such file",
            path.display()
        )));
    }
    let mut scene = Scene::load(path).map_err(|e| Failure::error(path.display(), e))?;
    scene.device.set_options(dxso_vm::Options::from_env());
    for w in &scene.warnings {
        // dxso-draw's warnings are rendered text: printed as lines.
        crate::diagnostics_out(&Report::line(format!("{}: {w}", path.display())));
    }
    Ok(scene)
}

/// A streamed GPU run's error: the GPU's, or the writer's.
enum GpuOr {
    Gpu(dxso_gpu::Error),
    Sink(anyhow::Error),
}

impl From<dxso_gpu::Error> for GpuOr {
    fn from(e: dxso_gpu::Error) -> GpuOr {
        GpuOr::Gpu(e)
    }
}

/// Where draws run: the CPU (dxso-vm) or a GPU (dxso-gpu).
pub struct On {
    /// `Some(adapter name to look for)` for the GPU.
    gpu: Option<Option<String>>,
    /// How the GPU's shaders are translated.
    float: dxso_naga::FloatMode,
}

impl On {
    pub fn new(gpu: bool, adapter: Option<String>) -> On {
        On {
            gpu: gpu.then_some(adapter),
            float: dxso_naga::FloatMode::Strict,
        }
    }

    /// The GPU's shaders translated in `float` mode (`Strict` unless set).
    pub fn with_float(self, float: dxso_naga::FloatMode) -> On {
        On { float, ..self }
    }

    /// The GPU, opened; no usable adapter is a usage error (exit 2) that says how to get one.
    pub(crate) fn open(&self) -> Result<Option<dxso_gpu::Gpu>, Failure> {
        match &self.gpu {
            None => Ok(None),
            Some(name) => {
                let mut gpu =
                    dxso_gpu::Gpu::new(name.as_deref()).map_err(|e| Failure::Io(e.into()))?;
                gpu.set_float_mode(self.float);
                Ok(Some(gpu))
            }
        }
    }
}

/// A GPU draw's error: the scene's own problems (and what the translation cannot express)
/// exit 1, the GPU's exit 2.
pub(crate) fn gpu_failure(name: &str, e: dxso_gpu::Error) -> Failure {
    use dxso_gpu::Error as E;
    match e {
        E::Vm(_) | E::Translate(_) | E::Unsupported { .. } | E::Refused(_) | E::Frame(_) => {
            Failure::error(name, e)
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
        let t = trace_vertex(&scene, v).map_err(|e| scene_error(path, e.into()))?;
        return stdout(&t.render());
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
    let mut first = true;
    let mut part = |out: &Outputs| -> anyhow::Result<()> {
        if std::mem::take(&mut first) {
            warn(out);
        }
        writer.part(out).map_err(anyhow::Error::new)
    };
    let mut out = Outputs::default();
    let written = match (&gpu, png_out) {
        // A picture needs every vertex: one part.
        (_, Some(png_path)) => {
            let out = match &gpu {
                Some(gpu) => gpu
                    .draw(&scene.device, scene.vertex_count, scene.instance_count)
                    .map_err(|e| gpu_failure(&name, e))?,
                None => scene
                    .device
                    .draw(scene.vertex_count, scene.instance_count)
                    .map_err(|e| scene_error(path, e.into()))?,
            };
            picture(&out, png_path).map_err(|e| scene_error(path, e))?;
            eprintln!("{name}: picture written to {}", png_path.display());
            part(&out)
        }
        // Both engines stream: parts of PART_VERTICES, each written before the next is drawn.
        (Some(gpu), None) => {
            let draw = gpu
                .prepare(&scene.device, scene.vertex_count, scene.instance_count)
                .map_err(|e| gpu_failure(&name, e))?;
            match draw.run_parts(PART_VERTICES, &mut out, |o| part(o).map_err(GpuOr::Sink)) {
                Err(GpuOr::Gpu(e)) => return Err(gpu_failure(&name, e)),
                Err(GpuOr::Sink(e)) => Err(e),
                Ok(()) => Ok(()),
            }
        }
        (None, None) => scene.device.draw_parts(
            scene.vertex_count,
            scene.instance_count,
            PART_VERTICES,
            &mut out,
            part,
        ),
    };
    match written.and_then(|()| writer.finish().map(drop).map_err(anyhow::Error::new)) {
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

/// One instruction a traced vertex executed.
pub struct TraceLine {
    /// The instruction's index in the shader.
    pub instruction: usize,
    /// The instruction as assembly text.
    pub text: String,
    /// What it wrote (`r0 = (1, 2, 3, 4)`).
    pub effect: String,
    /// Whether the vertex's lane was active (flow control, predication).
    pub active: bool,
    /// The constant-table names of the constants the instruction reads
    /// (`  [c8 = cViewProj]`, or empty).
    pub names: String,
}

/// What `run --trace N` prints: every instruction vertex N executed, and its outputs.
pub struct VertexTrace {
    pub vertex: usize,
    pub steps: Vec<TraceLine>,
    /// Each output register: name, semantic, value.
    pub outputs: Vec<(String, String, [f32; 4])>,
    /// Why the shader stopped early (the instruction limit), if it did.
    pub stopped: Option<String>,
}

/// Trace vertex `v` of the scene's draw.
pub fn trace_vertex(scene: &Scene, v: usize) -> Result<VertexTrace, dxso_vm::VmError> {
    trace_device(&scene.device, scene.vertex_count, scene.instance_count, v)
}

/// Trace vertex `v` of a draw of `vertex_count` × `instance_count` vertices on `device` (a
/// run scene's, or a draw scene's vertex stage).
pub fn trace_device(
    device: &dxso_vm::Device,
    vertex_count: usize,
    instance_count: usize,
    v: usize,
) -> Result<VertexTrace, dxso_vm::VmError> {
    let t = device.trace(v, vertex_count, instance_count)?;
    let names = match device.constant_table() {
        Ok(Some(table)) => table.register_names(),
        _ => Default::default(),
    };
    let steps = t
        .steps
        .iter()
        .map(|step| TraceLine {
            instruction: step.instruction,
            text: step.text.clone(),
            effect: step.effect.clone(),
            active: step.active,
            names: constant_names(&step.text, &names),
        })
        .collect();
    let outputs = match device.program() {
        Some(program) => program
            .outputs
            .iter()
            .enumerate()
            .filter_map(|(k, r)| {
                let o = t.outputs.get(k * 4..k * 4 + 4)?;
                Some((
                    r.name.to_string(),
                    r.semantic.to_string(),
                    [o[0], o[1], o[2], o[3]],
                ))
            })
            .collect(),
        None => Vec::new(),
    };
    Ok(VertexTrace {
        vertex: v,
        steps,
        outputs,
        stopped: t.error.as_ref().map(|e| e.to_string()),
    })
}

impl VertexTrace {
    /// The trace as `run --trace` prints it.
    pub fn render(&self) -> String {
        let mut s = format!(
            "vertex {}: {} instructions executed\n",
            self.vertex,
            self.steps.len()
        );
        for step in &self.steps {
            s.push_str(&step_line(
                step.instruction,
                &step.text,
                &step.effect,
                step.active,
                &step.names,
            ));
        }
        s.push_str("outputs:\n");
        for (name, semantic, o) in &self.outputs {
            s.push_str(&format!(
                "  {name:<4} {semantic:<12} ({}, {}, {}, {})\n",
                o[0], o[1], o[2], o[3]
            ));
        }
        if let Some(e) = &self.stopped {
            s.push_str(&format!("stopped: {e}\n"));
        }
        s
    }
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
        s.push_str(&step_line(
            step.instruction,
            &step.text,
            &step.effect,
            step.active,
            &constant_names(&step.text, names),
        ));
    }
    s
}

/// One executed instruction as a trace prints it.
fn step_line(instruction: usize, text: &str, effect: &str, active: bool, names: &str) -> String {
    let mark = if active { ' ' } else { '-' };
    format!("{mark}{instruction:>5}  {text:<40} {effect}{names}\n")
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
