//! Every corpus vertex shader, on inputs and constants synthesized as dxso-vm's corpus test
//! does, gives dxso-vm's outputs on the GPU: bit for bit except the classes of
//! [`crate::compare::Class`], counted and printed with the largest difference.

use crate::compare::Report;
use dxso::validate::{Caps, validate};
use dxso_vm::Device;
use std::path::{Path, PathBuf};

/// A device running `checked` over `n` vertices of FLOAT4 inputs with pseudo-random values
/// in [-1, 1], pseudo-random float constants c0..c255, i# = (4, 0, 1, 0) and b# alternating.
///
/// c0..c255 only: the translation's `c#` buffer holds the 256 registers every vs_2_0+ device
/// has (relative reads past them give 0), while dxso-vm's file follows the caps the shader
/// was validated with (8192 registers with `Caps::max`). With c256.. set, the shaders whose
/// `c[a0.x + n]` reads reach past c255 differ (two of the first 90 did when c0..c299 were set).
fn synthesized(checked: &dxso::validate::Checked, n: usize) -> Device {
    let mut dev = Device::new();
    dev.set_vertex_shader(checked).unwrap();
    dxso_vm::workloads::synthesize(&mut dev, n, 256).unwrap();
    dev
}

/// What one worker found over its share of the corpus.
#[derive(Default)]
struct Tally {
    report: Report,
    ran: usize,
    exact: usize,
    rounded: usize,
    untranslated: Vec<String>,
    differing: Vec<String>,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.report.merge(other.report);
        self.ran += other.ran;
        self.exact += other.exact;
        self.rounded += other.rounded;
        self.untranslated.extend(other.untranslated);
        self.differing.extend(other.differing);
    }
}

/// The corpus's vertex shaders that this run covers, in a fixed order.
fn chosen_files(dir: &Path) -> Vec<PathBuf> {
    // DXSO_GPU_CORPUS_LIMIT=N runs the first N shaders of each profile (a quick look).
    let limit = std::env::var("DXSO_GPU_CORPUS_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    // DXSO_GPU_CORPUS_ONLY=a,b runs the shaders whose file names contain a or b.
    let only = std::env::var("DXSO_GPU_CORPUS_ONLY").unwrap_or_default();
    let chosen = |p: &PathBuf| {
        let n = p.file_name().unwrap_or_default().to_string_lossy();
        only.is_empty() || only.split(',').any(|o| n.contains(o))
    };
    let mut all = Vec::new();
    for profile in ["vs_2_0", "vs_2_x", "vs_3_0"] {
        let mut files: Vec<_> = std::fs::read_dir(dir.join(profile))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        all.extend(files.into_iter().filter(chosen).take(limit));
    }
    all
}

/// Runs `files` on a device of its own (the adapter's pipeline compiles, most of the time,
/// then run in parallel with the other workers').
fn run_share(gpu: &dxso_gpu::Gpu, files: &[&PathBuf]) -> Tally {
    let mut t = Tally::default();
    for path in files {
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let shader = dxso::text::parse(&text).unwrap();
        let Ok(checked) = validate(&shader, &Caps::max()) else {
            continue;
        };
        let dev = synthesized(&checked, 67);
        let cpu = dev.draw(67, 1).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let out = match gpu.draw(&dev, 67, 1) {
            Ok(o) => o,
            Err(e @ dxso_gpu::Error::Translate(_)) => {
                t.untranslated.push(format!("{name}: {e}"));
                continue;
            }
            Err(e) => panic!("{}: {e}", path.display()),
        };
        t.ran += 1;
        t.report.add(&name, &cpu, &out);
        let mut own = Report::default();
        own.add(&name, &cpu, &out);
        if own.differences() == 0 {
            t.exact += 1;
        } else {
            t.rounded += (own.others() == 0) as usize;
            t.differing.push(format!("{name}: {own}"));
        }
    }
    t
}

#[test]
fn every_corpus_vertex_shader_gives_dxso_vms_outputs() {
    let Some(gpu) = crate::gpu() else { return };
    let Some(dir) = crate::shared("corpus/dx9-asm") else {
        return;
    };
    let files = chosen_files(&dir);
    // One worker a core, each with a device of its own, taking every n-th shader.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let mut t = std::thread::scope(|s| {
        let handles: Vec<_> = (1..workers)
            .map(|w| {
                let share: Vec<_> = files.iter().skip(w).step_by(workers).collect();
                s.spawn(move || run_share(&crate::gpu().expect("a second device"), &share))
            })
            .collect();
        let mut t = run_share(&gpu, &files.iter().step_by(workers).collect::<Vec<_>>());
        for h in handles {
            t.merge(h.join().expect("worker"));
        }
        t
    });
    t.differing.sort();
    t.untranslated.sort();
    println!(
        "corpus on {}: {} shaders ran, {} bit for bit, {} more within the classes; {} not translated; {}",
        gpu.adapter_name(),
        t.ran,
        t.exact,
        t.rounded,
        t.untranslated.len(),
        t.report
    );
    for u in t.untranslated.iter().take(20) {
        println!("  not translated: {u}");
    }
    for d in t.differing.iter().take(40) {
        println!("  differs: {d}");
    }
    assert!(t.ran > 0);
    assert_eq!(
        t.report.others(),
        0,
        "differences beyond the classes: {:?}; {}",
        t.differing,
        t.report
    );
}
