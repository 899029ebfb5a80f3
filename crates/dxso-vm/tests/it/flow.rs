//! Flow control, predication and the draw machinery: lanes of one batch taking different
//! paths, loops with aL, calls, instancing, batch and thread invariance.

use crate::common::*;
use dxso::ir::Usage;
use dxso_vm::{DeclType, Frequency, StreamSource, VertexElement, VmError};

fn lanes(n: usize, f: impl Fn(usize) -> [f32; 4]) -> Vec<[f32; 4]> {
    (0..n).map(f).collect()
}

/// Draw `n` vertices in every way: all must give the same outputs or the same error
/// (`what` names the draw). Whether they succeeded.
fn alike_in_every_way(dev: &mut dxso_vm::Device, n: usize, what: &str) -> bool {
    let results: Vec<_> = WAYS
        .iter()
        .map(|&way| {
            set_way(dev, way);
            dev.draw(n, 1).map(|o| o.data)
        })
        .collect();
    assert!(results.iter().all(|r| *r == results[0]), "{what}");
    results[0].is_ok()
}

/// A dynamic if/else that the lanes of one batch take differently, in every way of running
/// (hand-computed).
#[test]
fn dynamic_if_else_diverges_per_lane() {
    let src = format!("{VS3}mov o0, v0\nif_gt v0.x, c0.x\nmov o1, c1\nelse\nmov o1, c2\nendif\n");
    let v = lanes(70, |i| [i as f32, 0.0, 0.0, 0.0]);
    let mut dev = device(&src, &[v]);
    dev.set_constant_f(0, &[[34.5; 4], [1.0; 4], [2.0; 4]])
        .unwrap();
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, 70, true));
        for (i, o) in out.iter().enumerate() {
            let want = if i as f32 > 34.5 { [1.0; 4] } else { [2.0; 4] };
            assert_eq!(o[1], want, "{way:?} vertex {i}");
        }
    }
}

/// Nested dynamic ifs with an else, in every way of running (hand-computed).
#[test]
fn nested_dynamic_ifs() {
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, c0.x\nif_ge v0.x, c1.x\nadd r0, r0, c1.y\nif_ge v0.x, c1.z\nadd r0, r0, c1.y\nendif\nelse\nadd r0, r0, c1.w\nendif\nmov o1, r0\n"
    );
    let v = lanes(64, |i| [i as f32, 0.0, 0.0, 0.0]);
    let mut dev = device(&src, &[v]);
    dev.set_constant_f(0, &[[0.0; 4], [10.0, 1.0, 20.0, 100.0]])
        .unwrap();
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, 64, true));
        for (i, o) in out.iter().enumerate() {
            let want = if i >= 20 {
                2.0
            } else if i >= 10 {
                1.0
            } else {
                100.0
            };
            assert_eq!(o[1][0], want, "{way:?} vertex {i}");
        }
    }
}

/// Dynamic ifs one after another share their frame slot (a slot per nesting level, not per
/// if): 3,000 of them compile and run as the interpreter does (hand-computed: each adds 1
/// where v0.x < 0.5).
#[test]
fn thousands_of_dynamic_ifs_compile() {
    let body = "if_lt v0.x, c0.x\nadd r0, r0, c1\nendif\n".repeat(3000);
    let src = format!("{VS3}mov o0, v0\nmov r0, c2\n{body}mov o1, r0\n");
    let v = lanes(70, |i| [(i % 2) as f32, 0.0, 0.0, 0.0]);
    let mut dev = device(&src, &[v]);
    dev.set_constant_f(0, &[[0.5; 4], [1.0; 4], [0.0; 4]])
        .unwrap();
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, 70, true));
        for (i, o) in out.iter().enumerate() {
            let want = if i % 2 == 0 { 3000.0 } else { 0.0 };
            assert_eq!(o[1], [want; 4], "{way:?} vertex {i}");
        }
    }
}

/// A side of a dynamic if runs, and its instructions count, when any lane of the 64-vertex
/// batch takes it, and only then. With vertices 0..31 taking the if and 32..63 the else,
/// each loop iteration counts both sides (7 ops: if, 2 adds, else, add, endif, endrep);
/// with every vertex taking the if, the else's body is skipped (6). Every way accepts and
/// refuses the same loop counts around the limit (code deciding per half batch, or never
/// skipping, would count otherwise).
#[test]
fn dynamic_ifs_count_instructions_as_the_interpreter_does() {
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, c0\nrep i0\nif_eq v0.x, c1.x\nadd r0, r0, c0\nadd r0, r0, c0\nelse\nadd r0, r0, c1\nendif\nendrep\nmov o1, r0\n"
    );
    for (half, per_iteration) in [(true, 7), (false, 6)] {
        let v = lanes(64, |i| {
            [if i < 32 || !half { 1.0 } else { 0.0 }, 0.0, 0.0, 0.0]
        });
        let mut dev = device(&src, &[v]);
        dev.set_constant_f(0, &[[1.0; 4], [1.0; 4]]).unwrap();
        dev.set_max_instructions(0xFFFF);
        let mut seen = (false, false);
        let near = 0xFFFF / per_iteration;
        for n in near - 6..near + 6 {
            dev.set_constant_i(0, &[[n, 0, 0, 0]]).unwrap();
            let ok = alike_in_every_way(
                &mut dev,
                64,
                &format!("rep {n} ({per_iteration} an iteration)"),
            );
            seen.0 |= ok;
            seen.1 |= !ok;
        }
        assert_eq!(seen, (true, true), "the sweep crosses the limit");
    }
}

#[test]
fn uniform_if_bool_and_callnz_bool() {
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, c0.x\nif b0\nadd r0, r0, c0.y\nelse\nadd r0, r0, c0.z\nendif\nif !b1\nadd r0, r0, c0.w\nendif\ncallnz l3, b1\nmov o1, r0\nret\nlabel l3\nadd r0, r0, c0.w\nret\n"
    );
    for (b0, b1, want) in [
        (true, false, 1.0 + 1000.0),
        (false, false, 10.0 + 1000.0),
        (true, true, 1.0 + 1000.0),
    ] {
        let mut dev = device(&src, &[vec![[0.0; 4]]]);
        dev.set_constant_f(0, &[[0.0, 1.0, 10.0, 1000.0]]).unwrap();
        dev.set_constant_b(0, &[b0, b1]).unwrap();
        for way in WAYS {
            let out = split(&draw_way(&mut dev, way, 1, true));
            assert_eq!(out[0][1][0], want, "{way:?} b0={b0} b1={b1}");
        }
    }
}

#[test]
fn def_wins_over_api_constants() {
    let src = format!(
        "{VS3}def c5, 1, 2, 3, 4\ndefb b0, true\ndefi i0, 3, 0, 0, 0\nmov o0, v0\nmov r0, c6\nif b0\nrep i0\nadd r0, r0, c5\nendrep\nendif\nmov o1, r0\n"
    );
    let mut dev = device(&src, &[vec![[0.0; 4]]]);
    dev.set_constant_f(5, &[[9.0; 4], [0.5; 4]]).unwrap();
    dev.set_constant_b(0, &[false]).unwrap();
    dev.set_constant_i(0, &[[1, 0, 0, 0]]).unwrap();
    let out = split(&dev.draw(1, 1).unwrap());
    assert_eq!(out[0][1], [3.5, 6.5, 9.5, 12.5]);
}

#[test]
fn loop_al_start_step_and_nesting_restores_al() {
    // Outer loop: aL = 1, 3, 5 (count 3, start 1, step 2); inner loop aL = 0, 1 (count 2).
    // r0.x sums c[aL] over the outer loop after the inner one ran; r0.y sums the inner aL.
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, c20.x\nloop aL, i0\nloop aL, i1\nadd r0.y, r0.y, c10[aL].y\nendloop\nadd r0.x, r0.x, c10[aL].x\nendloop\nmov o1, r0\n"
    );
    let mut dev = device(&src, &[vec![[0.0; 4]]]);
    let consts: Vec<[f32; 4]> = (0..8)
        .map(|k| [k as f32 * 10.0, k as f32, 0.0, 0.0])
        .collect();
    dev.set_constant_f(10, &consts).unwrap();
    dev.set_constant_f(20, &[[0.0; 4]]).unwrap();
    dev.set_constant_i(0, &[[3, 1, 2, 0], [2, 0, 1, 0]])
        .unwrap();
    let out = split(&dev.draw(1, 1).unwrap());
    assert_eq!(out[0][1][0], 10.0 + 30.0 + 50.0);
    assert_eq!(out[0][1][1], 3.0 * (0.0 + 1.0));
}

#[test]
fn loop_count_zero_skips_body() {
    let src =
        format!("{VS3}mov o0, v0\nmov r0, c0\nloop aL, i0\nadd r0, r0, c1\nendloop\nmov o1, r0\n");
    let mut dev = device(&src, &[vec![[0.0; 4]]]);
    dev.set_constant_f(1, &[[1.0; 4]]).unwrap();
    dev.set_constant_i(0, &[[0, 0, 1, 0]]).unwrap();
    assert_eq!(split(&dev.draw(1, 1).unwrap())[0][1], [0.0; 4]);
}

#[test]
fn break_comp_and_breakp_end_lanes_at_different_iterations() {
    // Each lane counts iterations until r0.x >= its v0.x (break_ge), at most 20; the same
    // with setp + breakp inside a dynamic if. In every way of running (hand-computed).
    let direct = format!(
        "{VS3}mov o0, v0\nmov r0, c0\nrep i0\nbreak_ge r0.x, v0.x\nadd r0, r0, c1\nendrep\nmov o1, r0\n"
    );
    let nested = format!(
        "{VS3}mov o0, v0\nmov r0, c0\nrep i0\nif_lt r0.y, c2.x\nsetp_ge p0.x, r0.x, v0.x\nbreakp p0.x\nendif\nadd r0, r0, c1\nendrep\nmov o1, r0\n"
    );
    for src in [direct, nested] {
        let v = lanes(70, |i| [(i % 25) as f32, 0.0, 0.0, 0.0]);
        let mut dev = device(&src, &[v]);
        dev.set_constant_f(0, &[[0.0; 4], [1.0; 4], [100.0; 4]])
            .unwrap();
        dev.set_constant_i(0, &[[20, 0, 0, 0]]).unwrap();
        for way in WAYS {
            let out = split(&draw_way(&mut dev, way, 70, true));
            for (i, o) in out.iter().enumerate() {
                let want = ((i % 25) as f32).min(20.0);
                assert_eq!(o[1][0], want, "{way:?} vertex {i}: {src}");
            }
        }
    }
}

#[test]
fn unconditional_break_inside_dynamic_if() {
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, c0\nrep i0\nadd r0, r0, c1\nif_ge r0.x, v0.x\nbreak\nendif\nendrep\nmov o1, r0\n"
    );
    let v = lanes(70, |i| [(i % 7) as f32 + 1.0, 0.0, 0.0, 0.0]);
    let mut dev = device(&src, &[v]);
    dev.set_constant_f(0, &[[0.0; 4], [1.0; 4]]).unwrap();
    dev.set_constant_i(0, &[[5, 0, 0, 0]]).unwrap();
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, 70, true));
        for (i, o) in out.iter().enumerate() {
            let want = ((i % 7) as f32 + 1.0).min(5.0);
            assert_eq!(o[1][0], want, "{way:?} vertex {i}");
        }
    }
}

/// Breaks count as the interpreter counts: a loop runs while any lane of the 64-vertex
/// batch has not broken out (vertex 63 last here, so code deciding per half batch would
/// count fewer iterations for the first half), a break directly in the body ends the loop
/// at once when the last lane breaks, and a loop inside an if whose lanes all broke stops
/// after one iteration. Every way accepts and refuses the same draws.
#[test]
fn breaks_count_instructions_as_the_interpreter_does() {
    let direct = format!(
        "{VS3}mov o0, v0\nmov r0, c0\nrep i0\nbreak_ge r0.x, v0.x\nadd r0, r0, c1\nendrep\nmov o1, r0\n"
    );
    // Vertex 63 breaks at iteration `last`: 2 + 1 + 3 x last + break + endrep + 1 =
    // 3 x last + 6 ops, swept across the limit of 65,535 (last = 21,843 is the most that
    // passes).
    let mut seen = (false, false);
    for last in 21_838..21_848 {
        let v = lanes(64, |i| {
            [
                if i == 63 {
                    last as f32
                } else {
                    i as f32 * 100.0
                },
                0.0,
                0.0,
                0.0,
            ]
        });
        let mut dev = device(&direct, &[v]);
        dev.set_constant_f(0, &[[0.0; 4], [1.0; 4]]).unwrap();
        dev.set_constant_i(0, &[[1_000_000, 0, 0, 0]]).unwrap();
        dev.set_max_instructions(0xFFFF);
        let ok = alike_in_every_way(&mut dev, 64, &format!("last {last}"));
        assert_eq!(ok, last <= 21_843, "last {last}");
        seen.0 |= ok;
        seen.1 |= !ok;
    }
    assert_eq!(seen, (true, true), "the sweep crosses the limit");
    // Every lane breaks inside the if in the first iteration; the inner loop then runs
    // once with no lane, and the outer one ends: 40,000 inner iterations would pass the
    // limit.
    let emptied = format!(
        "{VS3}mov o0, v0\nmov r0, c0\nrep i0\nif_ge v0.y, c0.x\nbreak\nendif\nrep i0\nadd r0, r0, c1\nendrep\nendrep\nmov o1, r0\n"
    );
    let mut dev = device(&emptied, &[lanes(64, |_| [0.0, 1.0, 0.0, 0.0])]);
    dev.set_constant_f(0, &[[0.0; 4], [1.0; 4]]).unwrap();
    dev.set_constant_i(0, &[[40_000, 0, 0, 0]]).unwrap();
    dev.set_max_instructions(0xFFFF);
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, 64, true));
        assert_eq!(out[0][1], [0.0; 4], "{way:?}");
    }
}

#[test]
fn predication_per_component_and_per_lane() {
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, c0\nsetp_gt p0, v0, c1\n(p0) mov r0, c2\n(!p0.x) add r0.w, r0.w, c2.w\nmov o1, r0\n"
    );
    let v = vec![[1.0, -1.0, 1.0, -1.0], [-1.0, 1.0, -1.0, 1.0]];
    let out = run(
        &src,
        &[(0, [0.0; 4]), (1, [0.0; 4]), (2, [5.0, 6.0, 7.0, 8.0])],
        &[v],
    );
    assert_eq!(out[0][1], [5.0, 0.0, 7.0, 0.0]);
    assert_eq!(out[1][1], [0.0, 6.0, 0.0, 16.0]);
}

#[test]
fn if_pred_and_callnz_pred() {
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, c0\nsetp_lt p0.x, v0.x, c1.x\nif p0.x\nadd r0.x, r0.x, c1.y\nendif\ncallnz l1, !p0.x\nmov o1, r0\nret\nlabel l1\nadd r0.y, r0.y, c1.z\nret\n"
    );
    let v = lanes(70, |i| [i as f32, 0.0, 0.0, 0.0]);
    let mut dev = device(&src, &[v]);
    dev.set_constant_f(0, &[[0.0; 4], [25.0, 1.0, 2.0, 0.0]])
        .unwrap();
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, 70, true));
        for (i, o) in out.iter().enumerate() {
            let lt = (i as f32) < 25.0;
            assert_eq!(o[1][0], if lt { 1.0 } else { 0.0 }, "{way:?} vertex {i}");
            assert_eq!(o[1][1], if lt { 0.0 } else { 2.0 }, "{way:?} vertex {i}");
        }
    }
}

#[test]
fn nested_calls() {
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, c0\ncall l1\nmov o1, r0\nret\nlabel l1\nadd r0, r0, c1\ncall l2\nret\nlabel l2\nmul r0, r0, c2\nret\n"
    );
    let mut dev = device(&src, &[vec![[0.0; 4]]]);
    dev.set_constant_f(0, &[[1.0; 4], [2.0; 4], [10.0; 4]])
        .unwrap();
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, 1, true));
        assert_eq!(out[0][1], [30.0; 4], "{way:?}");
    }
}

/// A program whose calls would inline past the compiled tier's bound (four levels, each
/// calling the next 11 times: 14,641 innermost bodies) runs on the interpreter, right.
#[test]
fn calls_too_many_to_inline_run_interpreted() {
    let calls = |l: u32| format!("call l{l}\n").repeat(11);
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, c1\n{}mov o1, r0\nret\nlabel l1\n{}ret\nlabel l2\n{}ret\nlabel l3\n{}ret\nlabel l4\nadd r0, r0, c0\nret\n",
        calls(1),
        calls(2),
        calls(3),
        calls(4)
    );
    let mut dev = device(&src, &[vec![[0.0; 4]]]);
    dev.set_constant_f(0, &[[1.0; 4], [0.0; 4]]).unwrap();
    assert_eq!(dev.code_generator(), None);
    let out = split(&dev.draw(1, 1).unwrap());
    assert_eq!(out[0][1], [14_641.0; 4]);
}

/// Calls count as the interpreter counts: `callnz p0` that no lane of the batch takes is
/// one op (2 an iteration with the endrep), one that a lane takes runs its body and its ret
/// (5: callnz, add, add, ret, endrep), `call` and `callnz b#` count as themselves and their
/// rets. Every way accepts and refuses the same loop counts around the limit.
#[test]
fn calls_count_instructions_as_the_interpreter_does() {
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, c0\nsetp_lt p0.x, v0.x, c1.x\nrep i0\ncallnz l1, p0.x\nendrep\n\
         rep i1\ncall l2\ncallnz l2, b0\nendrep\nmov o1, r0\nret\n\
         label l1\nadd r0, r0, c1\nadd r0, r0, c1\nret\nlabel l2\nmul r0, r0, c2\nret\n"
    );
    // (p0.x in vertex 40 only, per-iteration count of the first loop).
    for (taken, per_iteration) in [(false, 2), (true, 5)] {
        let v = lanes(64, |i| {
            [if taken && i == 40 { 0.0 } else { 1.0 }, 0.0, 0.0, 0.0]
        });
        let mut dev = device(&src, &[v]);
        dev.set_constant_f(0, &[[0.0; 4], [0.5; 4], [1.0; 4]])
            .unwrap();
        dev.set_constant_b(0, &[true]).unwrap();
        dev.set_max_instructions(0xFFFF);
        let mut seen = (false, false);
        let near = (0xFFFF - 20) / per_iteration;
        for n in near - 4..near + 8 {
            // The second loop: 2 iterations of call, mul, ret, callnz, mul, ret, endrep.
            dev.set_constant_i(0, &[[n, 0, 0, 0], [2, 0, 0, 0]])
                .unwrap();
            let ok = alike_in_every_way(&mut dev, 64, &format!("rep {n}, taken {taken}"));
            seen.0 |= ok;
            seen.1 |= !ok;
        }
        assert_eq!(
            seen,
            (true, true),
            "the sweep crosses the limit (taken {taken})"
        );
    }
}

#[test]
fn inputs_and_outputs_indexed_by_al() {
    // o[aL + 1] = v[aL] for aL = 0, 1 (count 2): o1 = v0, o2 = v1. Then, per lane,
    // (p0.x) o[aL + 1].x over aL = -2 .. 2 inside a dynamic if: o[-1] is outside the file
    // (nothing written), o0.x, o1.x and o2.x get 9 where the vertex takes the if and p0.x
    // holds, and o3 is not in the record. Last, o[aL + 1] for aL = 14, 15: o15, then o16,
    // outside the file (a write there would land on the constants: o2.w reads c0.z after
    // it). In every way of running (hand-computed).
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\n\
               mov o0, v0\nloop aL, i0\nmov o1[aL], v0[aL]\nendloop\n\
               setp_gt p0.x, v0.y, c0.x\nif_lt v0.z, c0.y\nloop aL, i1\n(p0.x) mov o1[aL].x, c1.w\nendloop\nendif\n\
               loop aL, i2\nmov o1[aL], c1.w\nendloop\nmov o2.w, c0.z\n";
    let n = 70;
    // v0.y > 0.5 (p0.x) for even vertices; v0.z < 0.5 (the if) for vertices below 35.
    let v0 = lanes(n, |i| {
        [
            1.0,
            (i % 2 == 0) as u8 as f32,
            if i < 35 { 0.0 } else { 1.0 },
            4.0,
        ]
    });
    let v1 = lanes(n, |i| [5.0, 6.0, 7.0, i as f32]);
    let mut dev = device(src, &[v0.clone(), v1.clone()]);
    dev.set_constant_i(0, &[[2, 0, 1, 0], [5, -2, 1, 0], [2, 14, 1, 0]])
        .unwrap();
    dev.set_constant_f(0, &[[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 9.0]])
        .unwrap();
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, n, true));
        for (i, o) in out.iter().enumerate() {
            let (mut o0, mut o1, mut o2) = (v0[i], v0[i], v1[i]);
            o2[3] = 0.0;
            if i % 2 == 0 && i < 35 {
                o0[0] = 9.0;
                o1[0] = 9.0;
                o2[0] = 9.0;
            }
            assert_eq!(o[..3], [o0, o1, o2], "{way:?} vertex {i}");
        }
    }
}

/// Output registers before vs_3_0 by name; oD0 among them although the shader does not
/// write it, as (1, 1, 1, 1) (C11).
#[test]
fn vs_2_x_output_registers_are_named() {
    let src = "vs_2_x\ndcl_position v0\nmov oPos, v0\nmov oFog, v0.y\nmov oPts, v0.z\nmov oD1, v0\nmov oT3.xy, v0\n";
    let shader = dxso::text::parse(src).unwrap();
    let checked = dxso::validate::validate(&shader, &dxso::validate::Caps::max()).unwrap();
    let mut dev = dxso_vm::Device::new();
    dev.set_vertex_shader(&checked).unwrap();
    dev.set_declaration(vec![VertexElement {
        stream: 0,
        offset: 0,
        ty: DeclType::Float3,
        method: 0,
        usage: Usage::Position,
        usage_index: 0,
    }])
    .unwrap();
    dev.set_stream(
        0,
        Some(StreamSource {
            data: f32s(&[1.0, 2.0, 3.0]).into(),
            offset: 0,
            stride: 12,
            frequency: Frequency::Vertex,
        }),
    )
    .unwrap();
    let out = dev.draw(1, 1).unwrap();
    let names: Vec<(&str, &str)> = out
        .registers
        .iter()
        .map(|r| (r.name.as_str(), r.semantic.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("oPos", "POSITION0"),
            ("oFog", "FOG0"),
            ("oPts", "PSIZE0"),
            ("oD0", "COLOR0"),
            ("oD1", "COLOR1"),
            ("oT3", "TEXCOORD3")
        ]
    );
    assert_eq!(
        out.vertex(0),
        &[
            1.0, 2.0, 3.0, 1.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            2.0, 3.0, 1.0, 1.0, 2.0, 0.0, 0.0
        ]
    );
}

#[test]
fn runaway_shaders_end_with_an_error() {
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, c0\nrep i0\nrep i0\nrep i0\nadd r0, r0, c0\nendrep\nendrep\nendrep\nmov o1, r0\n"
    );
    let mut dev = device(&src, &[vec![[0.0; 4]]]);
    dev.set_constant_i(0, &[[255, 0, 0, 0]]).unwrap();
    dev.set_max_instructions(0xFFFF);
    for way in WAYS {
        set_way(&mut dev, way);
        assert_eq!(
            dev.draw(1, 1),
            Err(VmError::InstructionLimit(0xFFFF)),
            "{way:?}"
        );
    }
}

/// The compiled tier's code generators count executed instructions as the interpreter does:
/// around the limit all accept and refuse the same loop counts.
#[test]
fn every_way_stops_at_the_same_count() {
    let src = format!("{VS3}mov o0, v0\nmov r0, c0\nrep i0\nadd r0, r0, c0\nendrep\nmov o1, r0\n");
    let mut dev = device(&src, &[vec![[0.0; 4]]]);
    dev.set_max_instructions(0xFFFF);
    let mut seen = (false, false);
    for n in 32760..32775 {
        dev.set_constant_i(0, &[[n, 0, 0, 0]]).unwrap();
        let ok = alike_in_every_way(&mut dev, 1, &format!("rep {n}"));
        seen.0 |= ok;
        seen.1 |= !ok;
    }
    assert_eq!(seen, (true, true), "the sweep crosses the limit");
}

/// Outputs do not depend on how vertices fall into batches or threads.
#[test]
fn outputs_are_identical_whatever_the_batching_and_threads() {
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, v0\nrep i0\nbreak_ge r0.x, c0.y\nmad r0, r0, c0.z, c0.w\nendrep\nif_lt r0.y, c0.x\nnrm r1.xyz, r0\nmov r0.xyz, r1\nendif\nmova a0.x, v0.w\nadd o1, r0, c10[a0.x]\n"
    );
    let n = 1000;
    let v = lanes(n, |i| {
        let f = i as f32;
        [
            f * 0.37 - 100.0,
            (f * 1.3).sin() * 5.0,
            f * 0.01,
            (i % 8) as f32,
        ]
    });
    let consts: Vec<(u32, [f32; 4])> = std::iter::once((0, [0.5, 50.0, 1.5, 0.25]))
        .chain((0..8).map(|k| (10 + k, [k as f32, -(k as f32), 0.5, 2.0])))
        .collect();
    let draw = |threads: Option<usize>, count: usize| {
        let mut dev = device(&src, &[v[..count].to_vec()]);
        for (c, x) in &consts {
            dev.set_constant_f(*c, &[*x]).unwrap();
        }
        dev.set_constant_i(0, &[[12, 0, 0, 0]]).unwrap();
        dev.set_threads(threads).unwrap();
        dev.draw(count, 1).unwrap().data
    };
    let all = draw(Some(1), n);
    assert_eq!(draw(Some(2), n), all);
    assert_eq!(draw(Some(3), n), all);
    assert_eq!(draw(None, n), all);
    // Vertex k alone (a batch of one lane) gives the same as within a full batch.
    for k in [0, 1, 31, 32, 33, 999] {
        let mut dev = device(&src, &[vec![v[k]]]);
        for (c, x) in &consts {
            dev.set_constant_f(*c, &[*x]).unwrap();
        }
        dev.set_constant_i(0, &[[12, 0, 0, 0]]).unwrap();
        let one = dev.draw(1, 1).unwrap().data;
        assert_eq!(one[..], all[k * 8..k * 8 + 8], "vertex {k}");
    }
}

#[test]
fn instancing_with_stream_frequency() {
    // Stream 0: 3 vertices of geometry (INDEXEDDATA | 2); stream 1: per-instance offsets.
    let src =
        "vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_position o0\nmov r0, v1\nadd o0, v0, r0\n";
    let shader = dxso::text::parse(src).unwrap();
    let checked = dxso::validate::validate(&shader, &dxso::validate::Caps::max()).unwrap();
    let mut dev = dxso_vm::Device::new();
    dev.set_vertex_shader(&checked).unwrap();
    dev.set_declaration(vec![
        VertexElement {
            stream: 0,
            offset: 0,
            ty: DeclType::Float1,
            method: 0,
            usage: Usage::Position,
            usage_index: 0,
        },
        VertexElement {
            stream: 1,
            offset: 4,
            ty: DeclType::Float1,
            method: 0,
            usage: Usage::TexCoord,
            usage_index: 0,
        },
    ])
    .unwrap();
    dev.set_stream(
        0,
        Some(StreamSource {
            data: f32s(&[1.0, 2.0, 3.0]).into(),
            offset: 0,
            stride: 4,
            frequency: Frequency::from_setting(0x4000_0002).unwrap(),
        }),
    )
    .unwrap();
    // Stream 1: per-instance offsets 100, 200 (element k at byte 8k + 4).
    let offsets = |dev: &mut dxso_vm::Device, frequency: Frequency| {
        dev.set_stream(
            1,
            Some(StreamSource {
                data: f32s(&[0.0, 100.0, 0.0, 200.0]).into(),
                offset: 0,
                stride: 8,
                frequency,
            }),
        )
        .unwrap()
    };
    offsets(&mut dev, Frequency::from_setting(0x8000_0001).unwrap());
    dev.set_indices(Some(vec![2, 0, 1]));
    let out = dev.draw(3, 2).unwrap();
    let x: Vec<f32> = (0..6).map(|i| out.vertex(i)[0]).collect();
    assert_eq!(x, [103.0, 101.0, 102.0, 203.0, 201.0, 202.0]);
    // Divider 2 on stream 1: instance data advances every two instances.
    offsets(&mut dev, Frequency::InstanceData(2));
    let out = dev.draw(3, 3).unwrap();
    let x: Vec<f32> = (0..9).map(|i| out.vertex(i)[0]).collect();
    assert_eq!(
        x,
        [
            103.0, 101.0, 102.0, 103.0, 101.0, 102.0, 203.0, 201.0, 202.0
        ]
    );
    // The software-only plain divider: element k / m.
    dev.set_indices(None);
    offsets(&mut dev, Frequency::from_setting(2).unwrap());
    let out = dev.draw(3, 1).unwrap();
    let x: Vec<f32> = (0..3).map(|i| out.vertex(i)[0]).collect();
    assert_eq!(x, [101.0, 102.0, 203.0]);
    assert_eq!(Frequency::from_setting(0), Err(VmError::BadFrequency(0)));
    assert_eq!(Frequency::from_setting(1), Ok(Frequency::Vertex));
}

#[test]
fn interleaved_streams_offsets_types_and_defaults() {
    // One interleaved stream: D3DCOLOR at 0, SHORT2 at 4, then FLOAT16_2 at 8; stride 12,
    // stream offset 12 (the first vertex is skipped). NORMAL0 has no element: (0,0,0,1).
    let src = "vs_3_0\ndcl_color v0\ndcl_texcoord0 v1\ndcl_texcoord1 v2\ndcl_normal v3\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\ndcl_texcoord2 o3\nmov o0, v0\nmov o1, v1\nmov o2, v2\nmov o3, v3\n";
    let shader = dxso::text::parse(src).unwrap();
    let checked = dxso::validate::validate(&shader, &dxso::validate::Caps::max()).unwrap();
    let mut dev = dxso_vm::Device::new();
    dev.set_vertex_shader(&checked).unwrap();
    dev.set_declaration(vec![
        VertexElement {
            stream: 0,
            offset: 0,
            ty: DeclType::D3dColor,
            method: 0,
            usage: Usage::Color,
            usage_index: 0,
        },
        VertexElement {
            stream: 0,
            offset: 4,
            ty: DeclType::Short2,
            method: 0,
            usage: Usage::TexCoord,
            usage_index: 0,
        },
        VertexElement {
            stream: 0,
            offset: 8,
            ty: DeclType::Float16_2,
            method: 0,
            usage: Usage::TexCoord,
            usage_index: 1,
        },
    ])
    .unwrap();
    let mut bytes = vec![0u8; 12];
    bytes.extend([
        0xFF, 0x00, 0x00, 0xFF, 0x05, 0x00, 0xFB, 0xFF, 0x00, 0x3C, 0x00, 0xB8,
    ]);
    dev.set_stream(
        0,
        Some(StreamSource {
            data: bytes.into(),
            offset: 12,
            stride: 12,
            frequency: Frequency::Vertex,
        }),
    )
    .unwrap();
    let out = dev.draw(1, 1).unwrap();
    assert_eq!(
        out.vertex(0),
        &[
            0.0, 0.0, 1.0, 1.0, 5.0, -5.0, 0.0, 1.0, 1.0, -0.5, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0
        ]
    );
    assert_eq!(out.unbound_inputs, ["v3 (NORMAL0)"]);
    // Reading past the end is an error, not a panic.
    let err = dev.draw(2, 1).unwrap_err();
    assert!(
        matches!(err, VmError::ReadsPastStream { stream: 0, .. }),
        "{err}"
    );
}
