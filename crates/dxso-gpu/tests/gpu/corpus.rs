//! Every corpus vertex shader, on inputs and constants synthesized as dxso-vm's corpus test
//! does, gives dxso-vm's outputs on the GPU: bit for bit except the classes of
//! [`crate::compare::Class`], counted and printed with the largest difference.

use crate::compare::Report;
use dxso::validate::{Caps, validate};
use dxso_vm::Device;

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

#[test]
fn every_corpus_vertex_shader_gives_dxso_vms_outputs() {
    let Some(gpu) = crate::gpu() else { return };
    let Some(dir) = crate::shared("corpus/dx9-asm") else {
        return;
    };
    // DXSO_GPU_CORPUS_LIMIT=N runs the first N shaders of each profile (a quick look).
    let limit = std::env::var("DXSO_GPU_CORPUS_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let mut report = Report::default();
    let (mut ran, mut untranslated, mut exact, mut rounded) = (0, Vec::new(), 0, 0);
    let mut differing = Vec::new();
    for profile in ["vs_2_0", "vs_2_x", "vs_3_0"] {
        let mut files: Vec<_> = std::fs::read_dir(dir.join(profile))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        // DXSO_GPU_CORPUS_ONLY=a,b runs the shaders whose file names contain a or b.
        let only = std::env::var("DXSO_GPU_CORPUS_ONLY").unwrap_or_default();
        let chosen = |p: &std::path::PathBuf| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            only.is_empty() || only.split(',').any(|o| n.contains(o))
        };
        for path in files.into_iter().filter(chosen).take(limit) {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
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
                    untranslated.push(format!("{name}: {e}"));
                    continue;
                }
                Err(e) => panic!("{}: {e}", path.display()),
            };
            ran += 1;
            report.add(&name, &cpu, &out);
            let mut own = Report::default();
            own.add(&name, &cpu, &out);
            if own.differences() == 0 {
                exact += 1;
            } else {
                rounded += (own.others() == 0) as usize;
                differing.push(format!("{name}: {own}"));
            }
        }
    }
    println!(
        "corpus on {}: {ran} shaders ran, {exact} bit for bit, {rounded} more within the classes; {} not translated; {report}",
        gpu.adapter_name(),
        untranslated.len()
    );
    for u in untranslated.iter().take(20) {
        println!("  not translated: {u}");
    }
    for d in differing.iter().take(40) {
        println!("  differs: {d}");
    }
    assert!(ran > 0);
    assert_eq!(
        report.others(),
        0,
        "differences beyond the classes: {differing:?}; {report}"
    );
}
