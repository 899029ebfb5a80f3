//! `dxso bench`: vertex scenes (and, without scenes, the built-in workloads W1-W3) by
//! vertices per second; draw scenes (`../shared/CLI.md`) by the median time of a whole frame.

use crate::run::{On, gpu_failure, load_scene};
use crate::scene::Scene;
use crate::{Failure, stdout};
use dxso::report::Report;
use dxso_draw::scene::{DrawScene, is_draw_scene};
use std::path::PathBuf;
use std::time::Instant;

/// What one benchmark measured.
pub enum Work {
    /// A vertex scene: vertices per draw and the median seconds of one draw; on the GPU
    /// with the inputs resident, and `harness_s` the median of a whole `run --gpu` draw
    /// (fetch, upload, dispatch, read-back).
    Vertices {
        vertices: usize,
        median_s: f64,
        harness_s: Option<f64>,
    },
    /// A draw scene: the frame's pixels (width x height) and the median seconds of a frame.
    Frame { pixels: u64, frame_s: f64 },
}

/// One benchmark result.
pub struct BenchResult {
    pub scene: String,
    pub work: Work,
    pub threads: usize,
}

enum Loaded {
    Vertex(Box<Scene>),
    Frame(DrawScene),
}

fn load(scenes: &[PathBuf]) -> Result<Vec<(String, Loaded)>, Failure> {
    let mut loaded = Vec::new();
    if scenes.is_empty() {
        for w in dxso_vm::workloads::builtin(1_000_000).map_err(|e| Failure::Io(e.into()))? {
            let mut device = w.device;
            device.set_options(dxso_vm::Options::from_env());
            let scene = Scene {
                device,
                vertex_count: w.vertices,
                instance_count: 1,
                warnings: Vec::new(),
            };
            loaded.push((w.name.to_string(), Loaded::Vertex(Box::new(scene))));
        }
        return Ok(loaded);
    }
    for p in scenes {
        let name = p.display().to_string();
        let text = std::fs::read_to_string(p).unwrap_or_default();
        if is_draw_scene(&text) {
            let mut scene = DrawScene::load(p).map_err(|e| Failure::error(&name, e))?;
            scene.set_options(&dxso_vm::Options::from_env());
            for w in &scene.warnings {
                // dxso-draw's warnings are rendered text: printed as lines.
                crate::diagnostics_out(&Report::line(format!("{name}: {w}")));
            }
            loaded.push((name, Loaded::Frame(scene)));
        } else {
            loaded.push((name, Loaded::Vertex(Box::new(load_scene(p)?))));
        }
    }
    Ok(loaded)
}

/// The median of a sample.
fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

pub fn bench(
    scenes: &[PathBuf],
    repeat: usize,
    threads: Option<usize>,
    json_out: bool,
    on: &On,
) -> Result<(), Failure> {
    let gpu = on.open()?;
    let threads_used =
        threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let loaded = load(scenes)?;
    use std::io::IsTerminal;
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new((loaded.len() * (repeat.max(1) + 1)) as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} draws {wide_msg}")
                .expect("valid template"),
        );
        b
    });
    let tick = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let mut results = Vec::new();
    for (name, scene) in loaded {
        if let Some(b) = &bar {
            b.set_message(name.clone());
        }
        let work = match scene {
            Loaded::Vertex(scene) => vertices(&name, *scene, repeat, threads, gpu.as_ref(), &tick)?,
            Loaded::Frame(scene) => match gpu.as_ref() {
                Some(gpu) => gpu_frame(&name, &scene, repeat, gpu, &tick)?,
                None => frame(&name, scene, repeat, threads, &tick)?,
            },
        };
        results.push(BenchResult {
            scene: name,
            work,
            threads: threads_used,
        });
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let adapter = gpu.as_ref().map(|g| g.adapter_name().to_string());
    stdout(&if json_out {
        results_json(&results, adapter.as_deref())
    } else {
        results_text(&results, adapter.as_deref())
    })
}

/// A vertex scene's draws, on the CPU or the GPU.
fn vertices(
    name: &str,
    mut scene: Scene,
    repeat: usize,
    threads: Option<usize>,
    gpu: Option<&dxso_gpu::Gpu>,
    tick: &dyn Fn(),
) -> Result<Work, Failure> {
    scene
        .device
        .set_threads(threads)
        .map_err(|e| Failure::Io(e.into()))?;
    let vertices = scene.vertex_count * scene.instance_count.max(1);
    let fail = |e: dxso_vm::VmError| Failure::error(name, e);
    let mut times = Vec::with_capacity(repeat);
    let mut harness_s = None;
    if let Some(gpu) = gpu {
        // Translation, pipeline, constants and textures once. The harness's draws fetch the
        // vertices (dxso-vm's fetch), upload them, dispatch and read back; the resident
        // draws dispatch over inputs uploaded once and wait, the outputs left on the GPU.
        let fail = |e| gpu_failure(name, e);
        let draw = gpu
            .prepare(&scene.device, scene.vertex_count, scene.instance_count)
            .map_err(fail)?;
        let mut out = dxso_vm::Outputs::default();
        draw.run(&mut out).map_err(fail)?;
        for _ in 0..repeat.max(1) {
            tick();
            let t = Instant::now();
            draw.run(&mut out).map_err(fail)?;
            times.push(t.elapsed().as_secs_f64());
        }
        if let Some(resident) = draw.resident().map_err(fail)? {
            harness_s = Some(median(std::mem::take(&mut times)));
            resident.run().map_err(fail)?;
            for _ in 0..repeat.max(1) {
                let t = Instant::now();
                resident.run().map_err(fail)?;
                times.push(t.elapsed().as_secs_f64());
            }
        }
    } else {
        // The warm-up draw allocates the outputs; the timed draws write into them again.
        let mut out = scene
            .device
            .draw(scene.vertex_count, scene.instance_count)
            .map_err(fail)?;
        for _ in 0..repeat.max(1) {
            tick();
            let t = Instant::now();
            scene
                .device
                .draw_into(scene.vertex_count, scene.instance_count, &mut out)
                .map_err(fail)?;
            times.push(t.elapsed().as_secs_f64());
        }
    }
    Ok(Work::Vertices {
        vertices,
        median_s: median(times),
        harness_s,
    })
}

/// A draw scene's frame on the GPU: translations, pipelines and buffers made once (resident
/// data); each timed frame is the clear and every draw, submitted and waited for; the
/// surfaces are read back once, after the timed frames.
fn gpu_frame(
    name: &str,
    scene: &DrawScene,
    repeat: usize,
    gpu: &dxso_gpu::Gpu,
    tick: &dyn Fn(),
) -> Result<Work, Failure> {
    let fail = |e| gpu_failure(name, e);
    let prepared = gpu
        .prepare_frame(&scene.frame, &scene.draws)
        .map_err(fail)?;
    prepared.run().map_err(fail)?;
    let mut times = Vec::with_capacity(repeat);
    for _ in 0..repeat.max(1) {
        tick();
        let t = Instant::now();
        prepared.run().map_err(fail)?;
        times.push(t.elapsed().as_secs_f64());
    }
    prepared.read_back().map_err(fail)?;
    Ok(Work::Frame {
        pixels: scene.frame.width as u64 * scene.frame.height as u64,
        frame_s: median(times),
    })
}

/// A draw scene's frame (the clear and every draw) on the CPU, on `threads` threads.
fn frame(
    name: &str,
    mut scene: DrawScene,
    repeat: usize,
    threads: Option<usize>,
    tick: &dyn Fn(),
) -> Result<Work, Failure> {
    for d in &mut scene.draws {
        d.vertex
            .set_threads(threads)
            .map_err(|e| Failure::Io(e.into()))?;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| Failure::Io(e.into()))?;
    let fail = |e: dxso_draw::DrawError| Failure::error(name, e);
    let once = || pool.install(|| dxso_draw::draw_frame(&scene.frame, &scene.draws));
    once().map_err(fail)?;
    let mut times = Vec::with_capacity(repeat);
    for _ in 0..repeat.max(1) {
        tick();
        let t = Instant::now();
        once().map_err(fail)?;
        times.push(t.elapsed().as_secs_f64());
    }
    Ok(Work::Frame {
        pixels: scene.frame.width as u64 * scene.frame.height as u64,
        frame_s: median(times),
    })
}

fn results_json(results: &[BenchResult], adapter: Option<&str>) -> String {
    let items: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            let mut v = match r.work {
                Work::Vertices {
                    vertices,
                    median_s,
                    harness_s,
                } => {
                    let mut v = serde_json::json!({
                        "scene": r.scene, "vertices": vertices, "median_s": median_s,
                        "vertices_per_s": vertices as f64 / median_s, "threads": r.threads,
                    });
                    if let Some(h) = harness_s {
                        v["harness_s"] = h.into();
                    }
                    v
                }
                Work::Frame { pixels, frame_s } => serde_json::json!({
                    "scene": r.scene, "frame_s": frame_s, "pixels": pixels, "threads": r.threads,
                }),
            };
            if let Some(a) = adapter {
                v["adapter"] = a.into();
            }
            v
        })
        .collect();
    format!("{}\n", serde_json::json!({ "results": items }))
}

fn results_text(results: &[BenchResult], adapter: Option<&str>) -> String {
    // One table per kind of work: (header, and for a result of that kind its count, seconds).
    type Row = fn(&Work) -> Option<(u64, f64)>;
    let kinds: [(&str, Row); 2] = [
        (
            "scene                          vertices    median s    M vertices/s  threads\n",
            |w| match *w {
                Work::Vertices {
                    vertices, median_s, ..
                } => Some((vertices as u64, median_s)),
                _ => None,
            },
        ),
        (
            "scene                          pixels      frame s     M pixels/s    threads\n",
            |w| match *w {
                Work::Frame { pixels, frame_s } => Some((pixels, frame_s)),
                _ => None,
            },
        ),
    ];
    let mut s = String::new();
    for (header, row) in kinds {
        let rows: Vec<_> = results
            .iter()
            .filter_map(|r| row(&r.work).map(|x| (r, x)))
            .collect();
        if !rows.is_empty() {
            s.push_str(header);
        }
        for (r, (count, secs)) in rows {
            s.push_str(&format!(
                "{:<30} {:>9} {:>11.5} {:>15.1} {:>8}\n",
                r.scene,
                count,
                secs,
                count as f64 / secs / 1e6,
                r.threads
            ));
        }
    }
    for r in results {
        if let Work::Vertices {
            vertices,
            harness_s: Some(h),
            ..
        } = r.work
        {
            s.push_str(&format!(
                "{}: inputs resident above; with fetch, upload and read-back per draw: {:.5} s, {:.1} M vertices/s\n",
                r.scene,
                h,
                vertices as f64 / h / 1e6
            ));
        }
    }
    if let Some(a) = adapter {
        s.push_str(&format!("adapter: {a}\n"));
    }
    s
}
