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
