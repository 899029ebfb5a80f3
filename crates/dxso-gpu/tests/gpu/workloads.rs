//! W1-W3 (dxso-vm's built-in benchmark workloads) on the GPU give dxso-vm's bits.

use crate::compare::Report;

#[test]
fn w1_w2_w3_give_dxso_vms_bits() {
    let Some(gpu) = crate::gpu() else { return };
    for w in dxso_vm::workloads::builtin(4099).unwrap() {
        let cpu = w.device.draw(w.vertices, 1).unwrap();
        let out = gpu.draw(&w.device, w.vertices, 1).unwrap();
        let mut r = Report::default();
        r.add(w.name, &cpu, &out);
        println!("{} on {}: {r}", w.name, gpu.adapter_name());
        assert_eq!(r.differences(), 0, "{}: {r}", w.name);
    }
}

/// Indexed, instanced draws: dxso-vm's fetch feeds the GPU, so the inputs are the same.
#[test]
fn indexed_instanced_draws_fetch_as_dxso_vm_does() {
    let Some(gpu) = crate::gpu() else { return };
    let mut w = dxso_vm::workloads::builtin(10).unwrap().remove(0);
    w.device.set_indices(Some(vec![9, 0, 3, 3, 7, 1, 2]));
    let cpu = w.device.draw(7, 1).unwrap();
    let out = gpu.draw(&w.device, 7, 1).unwrap();
    assert_eq!(cpu, out);
    // The same vertex twice gives the same outputs.
    assert_eq!(out.vertex(2), out.vertex(3));
}

/// `Resident::run` (inputs uploaded once, outputs left on the GPU and read back after) gives
/// dxso-vm's bits and the harness path's outputs (`Draw::run`: fetch, upload, dispatch,
/// read back): W1-W3 and an indexed instanced draw, run twice each (the second over the
/// same resident inputs).
#[test]
fn resident_runs_give_the_harness_outputs() {
    let Some(gpu) = crate::gpu() else { return };
    let mut cases: Vec<(String, dxso_vm::Device, usize, usize)> = dxso_vm::workloads::builtin(4099)
        .unwrap()
        .into_iter()
        .map(|w| (w.name.to_string(), w.device, w.vertices, 1))
        .collect();
    let mut w = dxso_vm::workloads::builtin(10).unwrap().remove(0);
    w.device.set_indices(Some(vec![9, 0, 3, 3, 7, 1, 2]));
    cases.push(("W1 indexed, 3 instances".into(), w.device, 7, 3));
    for (name, device, vertices, instances) in &cases {
        let cpu = device.draw(*vertices, *instances).unwrap();
        // Resident first, so that no harness run has filled the input buffer before.
        let draw = gpu.prepare(device, *vertices, *instances).unwrap();
        let resident = draw
            .resident()
            .unwrap()
            .expect("one dispatch holds the draw");
        assert_eq!(resident.vertices(), vertices * instances);
        let mut out = dxso_vm::Outputs::default();
        for _ in 0..2 {
            resident.run().unwrap();
            resident.read_back(&mut out).unwrap();
            assert!(
                out == cpu,
                "{name}: the resident run's outputs are not dxso-vm's"
            );
        }
        let mut harness = dxso_vm::Outputs::default();
        draw.run(&mut harness).unwrap();
        assert!(
            out == harness,
            "{name}: the resident and harness outputs differ"
        );
    }
}
