//! The fast paths against the straightforward one: random shaders on random inputs give
//! bit-identical outputs on every instruction-set path, on the compiled tier and on the
//! interpreter, and whatever the batching.

use crate::common::*;
use crate::random::*;
use dxso_vm::Isa;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_path_and_batching_gives_the_same_bits(
        src in arb_shader(),
        inputs in prop::collection::vec(prop::array::uniform4(arb_value()), 2 * 37),
        c1 in prop::array::uniform4(arb_value()),
    ) {
        let (v0, v1) = inputs.split_at(37);
        let mut dev = device(&src, &[v0.to_vec(), v1.to_vec()]);
        dev.set_constant_f(1, &[c1]).unwrap();
        let best = dev.draw(37, 1).unwrap().data;
        dev.set_isa(Isa::Base);
        let base = dev.draw(37, 1).unwrap().data;
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&best), bits(&base), "{}", src);
        // One vertex alone in its batch gives what it gave inside a full one.
        for k in [0usize, 36] {
            let mut one = device(&src, &[vec![v0[k]], vec![v1[k]]]);
            one.set_constant_f(1, &[c1]).unwrap();
            let alone = one.draw(1, 1).unwrap().data;
            prop_assert_eq!(bits(&alone), bits(&best[k * 12..k * 12 + 12]), "{}", src);
        }
    }

    #[test]
    fn both_code_generators_give_the_interpreters_bits(
        src in arb_uniform_shader(),
        inputs in prop::collection::vec(prop::array::uniform4(arb_value()), 2 * 70),
        consts in prop::collection::vec(prop::array::uniform4(arb_value()), 4),
        reps in 0i32..4,
        (start, step) in (-3i32..18, -2i32..3),
        (b0, linear) in (any::<bool>(), any::<bool>()),
    ) {
        // aL runs from `start` by `step`: v[aL + 1] inside v0..v15 and outside it.
        alike_in_every_way(&src, &inputs, &consts, &[[reps, start, step, 0]], b0, linear)?;
    }

    #[test]
    fn dynamic_flow_gives_the_interpreters_bits_at_both_widths(
        src in arb_dynamic_shader(),
        inputs in prop::collection::vec(prop::array::uniform4(arb_value()), 2 * 70),
        consts in prop::collection::vec(prop::array::uniform4(arb_value()), 4),
        reps in 0i32..4,
        (count, start, step) in (0i32..4, -3i32..17, -1i32..3),
        (b0, linear) in (any::<bool>(), any::<bool>()),
    ) {
        let ints = [[reps, 0, 0, 0], [count, start, step, 0]];
        alike_in_every_way(&src, &inputs, &consts, &ints, b0, linear)?;
    }

    /// Random vertex layouts: one to four elements of any type at random offsets in up to
    /// two streams with random strides (0 included), drawn in order or through random
    /// indices, once or instanced: the fused fetch gives the interpreter's bits.
    #[test]
    fn random_layouts_fetch_alike_in_every_way(
        elements in prop::collection::vec((0usize..17, 0u16..2, 0u16..24), 1..5),
        strides in prop::array::uniform2(prop_oneof![Just(0usize), 1usize..96]),
        n in 64usize..200,
        indexed in any::<bool>(),
        instanced in any::<bool>(),
        seed in any::<u32>(),
    ) {
        use dxso::ir::Usage;
        use dxso_vm::{DeclType, Frequency, StreamSource, VertexElement};
        let mut src = String::from("vs_3_0\ndcl_position o0\n");
        for k in 0..elements.len() {
            src += &format!("dcl_texcoord{k} v{k}\ndcl_texcoord{k} o{}\n", k + 1);
        }
        for k in 0..elements.len() {
            src += &format!("mov o{}, v{k}\n", k + 1);
        }
        src += "mov o0, c0\n";
        let mut dev = device(&src, &[]);
        let decl: Vec<VertexElement> = elements
            .iter()
            .enumerate()
            .map(|(k, &(ty, stream, offset))| VertexElement {
                stream,
                offset,
                ty: DeclType::ALL[ty],
                method: 0,
                usage: Usage::TexCoord,
                usage_index: k as u8,
            })
            .collect();
        dev.set_declaration(decl).unwrap();
        // Each stream long enough for n vertices (or instances) of its elements.
        let mut x = seed | 1;
        let mut bytes = |len: usize| -> Vec<u8> {
            (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x as u8
                })
                .collect()
        };
        for stream in 0..2u16 {
            let end = elements
                .iter()
                .filter(|e| e.1 == stream)
                .map(|e| e.2 as usize + DeclType::ALL[e.0].size())
                .max()
                .unwrap_or(0);
            let frequency = match (stream, instanced) {
                (0, true) => Frequency::IndexedData(3),
                (1, true) => Frequency::InstanceData(2),
                _ => Frequency::Vertex,
            };
            let source = StreamSource {
                data: bytes(n * strides[stream as usize] + end).into(),
                offset: 0,
                stride: strides[stream as usize],
                frequency,
            };
            dev.set_stream(stream as usize, Some(source)).unwrap();
        }
        if indexed {
            let ix = bytes(4 * n).chunks(4).map(|c| c[0] as u32 % n as u32).collect();
            dev.set_indices(Some(ix));
        }
        let instances = if instanced { 3 } else { 1 };
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let mut first = None;
        for way in WAYS {
            set_way(&mut dev, way);
            let out = bits(&dev.draw(n, instances).unwrap().data);
            // The x86 code generator's code (either width) fuses every layout.
            let fused = matches!(
                dev.code_generator(),
                Some(dxso_vm::CodeGenerator::Avx512 | dxso_vm::CodeGenerator::Avx2)
            );
            prop_assert_eq!(dev.last_draw_fused(), fused, "{:?}", way);
            let first = first.get_or_insert_with(|| out.clone());
            prop_assert_eq!(&out, &*first, "{:?}: {:?}", way, elements);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// [`arb_old_shader`]'s programs give the interpreter's bits in every way, and a vertex
    /// alone in its batch what it gets in a full one.
    #[test]
    fn older_versions_give_the_interpreters_bits_in_every_way(
        src in arb_old_shader(),
        inputs in prop::collection::vec(prop::array::uniform4(arb_value()), 2 * 70),
        consts in prop::collection::vec(prop::array::uniform4(arb_value()), 8),
        b0 in any::<bool>(),
    ) {
        let (v0, v1) = inputs.split_at(70);
        let setup = |v0: &[[f32; 4]], v1: &[[f32; 4]]| {
            let mut dev = device(&src, &[v0.to_vec(), v1.to_vec()]);
            dev.set_constant_f(0, &consts).unwrap();
            dev.set_constant_b(0, &[b0]).unwrap();
            dev
        };
        let mut dev = setup(v0, v1);
        let all = bits_in_every_way(&mut dev, 70);
        for (way, out) in WAYS.iter().zip(&all) {
            prop_assert_eq!(out, &all[0], "{:?}: {}", way, src);
        }
        let first = &all[0];
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let per_vertex = first.len() / 70;
        for k in [0usize, 69] {
            let mut one = setup(&v0[k..k + 1], &v1[k..k + 1]);
            for way in WAYS {
                set_way(&mut one, way);
                let alone = bits(&one.draw(1, 1).unwrap().data);
                prop_assert_eq!(&alone, &first[k * per_vertex..(k + 1) * per_vertex], "{:?}: {}", way, src);
            }
        }
    }
}

/// W1 (dp4, mov, mul, add), W2 (its palette reads `c[a0.x + n]`, nrm) and W3 (its light
/// loop, `c[aL + n]`, nrm, rsq, rcp, pow, max) run on the x86 code generator at AVX2 width
/// on the AVX2 path, with the interpreter's bits.
#[test]
fn the_workloads_run_at_avx2_width_with_the_interpreters_bits() {
    let mut workloads = dxso_vm::workloads::builtin(300).unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for w in workloads.iter_mut() {
        w.device.set_tier(dxso_vm::Tier::Interpreted);
        let want = bits(&w.device.draw(w.vertices, 1).unwrap().data);
        w.device.set_tier(dxso_vm::Tier::Compiled);
        w.device.set_isa(Isa::Avx2);
        if Isa::detect() >= Isa::Avx2 {
            assert_eq!(
                w.device.code_generator(),
                Some(dxso_vm::CodeGenerator::Avx2),
                "{}",
                w.name
            );
        }
        let got = bits(&w.device.draw(w.vertices, 1).unwrap().data);
        assert_eq!(got, want, "{}", w.name);
        // Fetch and store fused (FLOAT inputs), and unfused too.
        if Isa::detect() >= Isa::Avx2 {
            assert!(w.device.last_draw_fused(), "{}", w.name);
        }
    }
}

/// The benchmark workloads run compiled by default, with the interpreter's bits.
#[test]
fn the_workloads_run_compiled_with_the_interpreters_bits() {
    let mut workloads = dxso_vm::workloads::builtin(300).unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for w in workloads.iter_mut() {
        assert!(w.device.jit_active(), "{}", w.name);
        let best = bits(&w.device.draw(w.vertices, 1).unwrap().data);
        for way in WAYS {
            let out = bits(&draw_way(&mut w.device, way, w.vertices, true).data);
            assert_eq!(out, best, "{} {way:?}", w.name);
        }
    }
}

/// An instruction whose sources include the components it writes reads them all before it
/// writes any, in every way of running (hand-computed).
#[test]
fn swizzled_self_writes_read_before_they_write() {
    let src = format!(
        "{VS3}mov o0, v0\nmov r0, v0\nmov r0.xyz, r0.yxxy\nmov r1, r0\nmov r1.yw, r1.wxzy\n\
         setp_gt p0, v0, c0\nmov r2, c0\n(p0) mov r2, v0\n(p0) mov r2, r2.wzyx\n\
         add o1, r1, r2\n"
    );
    let mut dev = device(&src, &[vec![[1.0, 2.0, 3.0, 4.0]]]);
    dev.set_constant_f(0, &[[2.5, 0.5, 0.5, 0.5]]).unwrap();
    for way in WAYS {
        set_way(&mut dev, way);
        // r0 = (2, 1, 1, 4), r1 = (2, 2, 1, 1); p0 = (F, T, T, T), r2 = (2.5, 2, 3, 4),
        // then (2.5, 3, 2, 2.5).
        let out = split(&dev.draw(1, 1).unwrap());
        assert_eq!(out[0][1], [4.5, 5.0, 3.0, 3.5], "{way:?}");
    }
}

/// Relative input reads (`v[aL + n]`, `v[a0.x]`) fetch each vertex's own inputs, in every
/// lane of a batch and every way of running (hand-computed).
#[test]
fn relative_input_reads_take_each_vertexs_own_inputs() {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_position o0\ndcl_texcoord0 o1\n\
               mov o0, v0\nmov r0, c0\nloop aL, i0\nadd r0, r0, v[aL + 1]\nendloop\n\
               mova a0.x, v0.w\nadd o1, r0, v[a0.x]\n";
    let n = 70;
    let v0: Vec<[f32; 4]> = (0..n)
        .map(|i| [i as f32, 2.0 * i as f32, 3.0, (i % 2) as f32])
        .collect();
    let v1: Vec<[f32; 4]> = (0..n)
        .map(|i| [10.0 + i as f32, -(i as f32), 0.5, 1.0])
        .collect();
    let mut dev = device(src, &[v0, v1]);
    dev.set_constant_i(0, &[[1, 0, 1, 0]]).unwrap();
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, n, true));
        for (i, o) in out.iter().enumerate() {
            let f = i as f32;
            // r0 = v1; then + v0 (even vertices) or + v1 (odd ones).
            let want = if i % 2 == 0 {
                [10.0 + 2.0 * f, f, 3.5, 1.0]
            } else {
                [20.0 + 2.0 * f, -2.0 * f, 1.0, 2.0]
            };
            assert_eq!(o[1], want, "{way:?} vertex {i}");
        }
    }
}

/// Relative input reads at the edges of v0..v15: v15 is inside, v16 and v-1 outside (zero),
/// per lane through a0 and for the whole draw through aL, in every way of running
/// (hand-computed).
#[test]
fn relative_input_reads_stop_at_the_register_files_edges() {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_texcoord2 v15\n\
               dcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\n\
               mov o0, v0\nmova a0.x, v0.x\nmov o1, v[a0.x + 14]\n\
               loop aL, i0\nmov o2, v[aL + 14]\nendloop\n";
    let n = 70;
    // a0.x cycles through 1 (v15), 2 (v16: outside), -15 (v-1: outside), -14 (v0).
    let pick = [1.0f32, 2.0, -15.0, -14.0];
    let v0: Vec<[f32; 4]> = (0..n).map(|i| [pick[i % 4], i as f32, 0.5, 1.0]).collect();
    let v1: Vec<[f32; 4]> = (0..n).map(|i| [-1.0, -(i as f32), 0.0, 2.0]).collect();
    let v15: Vec<[f32; 4]> = (0..n).map(|i| [7.0, 8.0, i as f32, 9.0]).collect();
    let mut dev = device(src, &[v0.clone(), v1, v15.clone()]);
    for start in [1, 2, -15, -14] {
        dev.set_constant_i(0, &[[1, start, 1, 0]]).unwrap();
        for way in WAYS {
            let out = split(&draw_way(&mut dev, way, n, true));
            let reg = |k: f32, i: usize| match k as i32 {
                1 => v15[i],
                -14 => v0[i],
                _ => [0.0; 4],
            };
            for (i, o) in out.iter().enumerate() {
                assert_eq!(o[1], reg(pick[i % 4], i), "{way:?} vertex {i} v[a0.x + 14]");
                assert_eq!(
                    o[2],
                    reg(start as f32, i),
                    "{way:?} vertex {i} v[aL + 14], aL = {start}"
                );
            }
        }
    }
}

/// The zero rule with one factor used in several products of an op (`r0.x` broadcast, a
/// row read twice by a dot product, the reciprocal length inside `nrm`): lanes whose shared
/// factor is zero and lanes where it is not, next to infinities, NaN and -0, in every way of
/// running (the AVX-512 code keeps such a factor's non-zero mask for the op's other products).
#[test]
fn shared_factors_keep_the_zero_rule_per_lane() {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_position o0\ndcl_texcoord0 o1\n\
               dcl_texcoord1 o2\ndcl_texcoord2 o3\n\
               mov r0, v0\nmul o0, v1, r0.x\ndp4 o1.x, r0.xxyy, v1\nnrm r1.xyz, v1\n\
               mov o2, r1\nmad o3, v1.w, r0, v1.w\n";
    let inf = f32::INFINITY;
    let n = 70;
    // Even vertices: x = 0 (the shared factor), odd ones: x = 2.
    let v0: Vec<[f32; 4]> = (0..n)
        .map(|i| [if i % 2 == 0 { 0.0 } else { 2.0 }, -0.0, 1.0, 0.0])
        .collect();
    // Odd vertices: a length of inf, so nrm's reciprocal length is 0 there.
    let v1: Vec<[f32; 4]> = (0..n)
        .map(|i| [inf, if i % 2 == 0 { f32::NAN } else { 1.0 }, -0.0, 3.0])
        .collect();
    let mut dev = device(src, &[v0, v1]);
    let bits = |v: [f32; 4]| v.map(f32::to_bits);
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, n, true));
        for (i, o) in out.iter().enumerate() {
            let nan = f32::NAN;
            // mul: 0 * anything = +0; 2 * -0 has a zero factor too.
            let mul = if i % 2 == 0 {
                [0.0; 4]
            } else {
                [inf, 2.0, 0.0, 6.0]
            };
            // dp4 (x, x, y, y) . v1: y = -0 zeroes the last two products.
            let dp = if i % 2 == 0 { 0.0 } else { inf };
            assert_eq!(bits(o[0]), bits(mul), "{way:?} vertex {i} mul");
            assert_eq!(o[1][0].to_bits(), dp.to_bits(), "{way:?} vertex {i} dp4");
            // nrm (inf, NaN, -0): the squared length is NaN, so is its reciprocal root:
            // NaN for the non-zero components and +0 for the -0 one. nrm (inf, 1, -0): the
            // reciprocal length is 0, a zero factor of every product.
            let nrm = if i % 2 == 0 {
                [nan, nan, 0.0]
            } else {
                [0.0; 3]
            };
            assert_eq!(
                bits([o[2][0], o[2][1], o[2][2], 0.0]),
                bits([nrm[0], nrm[1], nrm[2], 0.0]),
                "{way:?} vertex {i} nrm"
            );
            // mad 3 * r0 + 3: r0 = (x, -0, 1, 0).
            let x = if i % 2 == 0 { 0.0 } else { 6.0 };
            assert_eq!(
                bits(o[3]),
                bits([x + 3.0, 3.0, 6.0, 3.0]),
                "{way:?} vertex {i} mad"
            );
        }
    }
}

/// `c[a0.x]`, `c[a0.x + 1]`, `c[a0.x + 2]` (the AVX-512 code reads the three with one
/// address per lane) with a0 around both ends of the constant file and far outside it:
/// every way reads the file's registers inside it and zero outside (C4).
#[test]
fn consecutive_relative_constant_reads_zero_outside_the_file() {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\n\
               mova a0.x, v0.x\nmov o0, c[a0.x]\nmov o1, c[a0.x + 1]\nmov o2, c[a0.x + 2]\n";
    // The file's size first (the caps the shader was checked with set it).
    let mut dev = device(src, &[vec![[0.0; 4]]]);
    let file = (1..=8192)
        .rev()
        .find(|&n| dev.set_constant_f(n - 1, &[[0.0; 4]]).is_ok())
        .expect("a constant file") as i32;
    let low = [-100_000, -4, -3, -2, -1, 0, 1];
    let high = [
        file - 4,
        file - 3,
        file - 2,
        file - 1,
        file,
        file + 1,
        1 << 30,
    ];
    let edges: Vec<i32> = low.into_iter().chain(high).collect();
    let n = 70;
    let a0: Vec<[f32; 4]> = (0..n)
        .map(|i| [edges[i % edges.len()] as f32, 0.0, 0.0, 1.0])
        .collect();
    let mut dev = device(src, &[a0]);
    let reg = |i: i32| [i as f32, i as f32 + 0.5, -(i as f32), 1.0];
    let all: Vec<[f32; 4]> = (0..file).map(reg).collect();
    dev.set_constant_f(0, &all).unwrap();
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, n, true));
        for (i, o) in out.iter().enumerate() {
            let a = edges[i % edges.len()];
            for k in 0..3 {
                let want = if (0..file).contains(&(a + k)) {
                    reg(a + k)
                } else {
                    [0.0; 4]
                };
                assert_eq!(o[k as usize], want, "{way:?} a0 {a} + {k}");
            }
        }
    }
}

/// FLOAT1..FLOAT4 elements interleaved in one stream with an odd stride, the last element
/// ending the buffer, read in order and through indices that run backwards: every way of
/// running (fused fetch and store included, for the full batches) reads each vertex's own
/// floats with the (0, 0, 0, 1) fill.
#[test]
fn every_float_type_is_fetched_alike_in_every_way() {
    use dxso::ir::Usage;
    use dxso_vm::{DeclType, Frequency, StreamSource, VertexElement};
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_texcoord2 v2\ndcl_texcoord3 v3\n\
               dcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\ndcl_texcoord2 o3\n\
               mov o0, v0\nmov o1, v1\nmov o2, v2\nmov o3, v3\n";
    let mut dev = device(src, &[]);
    let types = [
        DeclType::Float1,
        DeclType::Float2,
        DeclType::Float3,
        DeclType::Float4,
    ];
    let (offsets, stride) = ([0u16, 4, 12, 24], 44);
    let decl = (0..4)
        .map(|k| VertexElement {
            stream: 0,
            offset: offsets[k],
            ty: types[k],
            method: 0,
            usage: Usage::TexCoord,
            usage_index: k as u8,
        })
        .collect();
    dev.set_declaration(decl).unwrap();
    let n = 133;
    let value = |i: usize, f: usize| (i * 16 + f) as f32 + 0.5;
    let mut data = vec![0u8; (n - 1) * stride + 40];
    for i in 0..n {
        for f in 0..10 {
            let at = i * stride + 4 * f;
            data[at..at + 4].copy_from_slice(&value(i, f).to_le_bytes());
        }
    }
    let source = StreamSource {
        data: data.into(),
        offset: 0,
        stride,
        frequency: Frequency::Vertex,
    };
    dev.set_stream(0, Some(source)).unwrap();
    // In order, then through indices that run backwards.
    let backwards: Vec<u32> = (0..n as u32).rev().collect();
    for (indices, way) in [None, Some(backwards)]
        .into_iter()
        .flat_map(|ix| WAYS.map(|w| (ix.clone(), w)))
    {
        dev.set_indices(indices.clone());
        let out = split(&draw_way(&mut dev, way, n, true));
        for (i, o) in out.iter().enumerate() {
            let vertex = indices.as_ref().map_or(i, |ix| ix[i] as usize);
            let v = |f: usize| value(vertex, f);
            assert_eq!(o[0], [v(0), 0.0, 0.0, 1.0], "{way:?} vertex {i}");
            assert_eq!(o[1], [v(1), v(2), 0.0, 1.0], "{way:?} vertex {i}");
            assert_eq!(o[2], [v(3), v(4), v(5), 1.0], "{way:?} vertex {i}");
            assert_eq!(o[3], [v(6), v(7), v(8), v(9)], "{way:?} vertex {i}");
        }
    }
}

/// Every packed declaration type (colours, bytes, shorts, 10-bit fields, halves), interleaved
/// in one stream at an odd stride with the last element ending the buffer, from pseudo-random
/// bytes (NaN and infinite halves included), read in order and through an index buffer that
/// jumps around and repeats: every way of running (fused fetch for the full batches included)
/// gives each vertex the bits `DeclType::decode` gives (NaN as the one NaN output records
/// hold).
#[test]
fn every_packed_type_is_fetched_alike_in_every_way() {
    use dxso::ir::Usage;
    use dxso_vm::{DeclType, Frequency, StreamSource, VertexElement};
    let packed: Vec<DeclType> = DeclType::ALL
        .into_iter()
        .filter(|t| {
            t.size() > 0 && !t.name().starts_with("FLOAT") || t.name().starts_with("FLOAT16")
        })
        .collect();
    assert_eq!(packed.len(), 13);
    let mut src = String::from("vs_3_0\ndcl_position o0\n");
    for k in 0..11 {
        src += &format!("dcl_texcoord{k} v{k}\n");
        if k > 0 {
            src += &format!("dcl_texcoord{} o{k}\n", k - 1);
        }
    }
    for k in 0..11 {
        src += &format!("mov o{k}, v{k}\n");
    }
    let n = 133;
    let mut seed = 0x2545_f491_u32;
    let mut data = vec![0u8; 70 * n];
    for b in &mut data {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        *b = seed as u8;
    }
    // Indices: every seventh vertex backwards, some twice.
    let indices: Vec<u32> = (0..n as u32)
        .map(|k| (n as u32 - 1 - k) * 7 % n as u32 / 2 * 2)
        .collect();
    // Two draws of eleven types (eleven output registers): the first, then the last; each
    // in order and indexed.
    for (types, indexed) in [
        (&packed[..11], false),
        (&packed[2..], false),
        (&packed[..11], true),
        (&packed[2..], true),
    ] {
        let mut offsets = vec![];
        let mut at = 0;
        for t in types {
            offsets.push(at);
            at += t.size() as u16;
        }
        let stride = at as usize + 2;
        let len = (n - 1) * stride + at as usize;
        let decl = types
            .iter()
            .enumerate()
            .map(|(k, &ty)| VertexElement {
                stream: 0,
                offset: offsets[k],
                ty,
                method: 0,
                usage: Usage::TexCoord,
                usage_index: k as u8,
            })
            .collect();
        let mut dev = device(&src, &[]);
        dev.set_declaration(decl).unwrap();
        let source = StreamSource {
            data: data[..len].to_vec().into(),
            offset: 0,
            stride,
            frequency: Frequency::Vertex,
        };
        dev.set_stream(0, Some(source)).unwrap();
        if indexed {
            dev.set_indices(Some(indices.clone()));
        }
        for way in WAYS {
            let out = split(&draw_way(&mut dev, way, n, true));
            for (i, o) in out.iter().enumerate() {
                let v = if indexed { indices[i] as usize } else { i };
                for (k, &ty) in types.iter().enumerate() {
                    let at = v * stride + offsets[k] as usize;
                    // Output records hold one NaN for every NaN.
                    let want = ty
                        .decode(&data[at..at + ty.size()])
                        .map(|x| if x.is_nan() { f32::NAN } else { x }.to_bits());
                    assert_eq!(
                        o[k].map(f32::to_bits),
                        want,
                        "{way:?} vertex {i} {}",
                        ty.name()
                    );
                }
            }
        }
    }
}

/// Instancing: per-vertex positions (stream 0, drawn five times) and per-instance data
/// (stream 1, one element per two instances: a D3DCOLOR and a FLOAT2), in order and through
/// indices: every way (fused code reads the instance's element in every lane) gives each
/// vertex its own position and its instance's data.
#[test]
fn instance_data_reaches_every_vertex_of_its_instances() {
    use dxso::ir::Usage;
    use dxso_vm::{DeclType, Frequency, StreamSource, VertexElement};
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_color v1\ndcl_texcoord1 v2\n\
               dcl_position o0\ndcl_color o1\ndcl_texcoord0 o2\n\
               mov o0, v0\nmov o1, v1\nmov o2, v2\n";
    let mut dev = device(src, &[]);
    let element = |stream, offset, ty, usage, usage_index| VertexElement {
        stream,
        offset,
        ty,
        method: 0,
        usage,
        usage_index,
    };
    dev.set_declaration(vec![
        element(0, 0, DeclType::Float4, Usage::TexCoord, 0),
        element(1, 0, DeclType::D3dColor, Usage::Color, 0),
        element(1, 4, DeclType::Float2, Usage::TexCoord, 1),
    ])
    .unwrap();
    let (n, instances) = (133, 5);
    let position = |v: usize| [v as f32, 1.0, 2.0, 3.0];
    let mut geometry = vec![];
    for v in 0..n {
        geometry.extend(position(v).map(f32::to_le_bytes).concat());
    }
    // Instance pair j: colour bytes (B, G, R, A) = (j, 2j, 3j, 255), then (10j, -j).
    let mut per_instance = vec![];
    for j in 0..3u8 {
        per_instance.extend([j, 2 * j, 3 * j, 255]);
        per_instance.extend((10.0 * j as f32).to_le_bytes());
        per_instance.extend((-(j as f32)).to_le_bytes());
    }
    let stream = |data: Vec<u8>, stride, frequency| StreamSource {
        data: data.into(),
        offset: 0,
        stride,
        frequency,
    };
    dev.set_stream(
        0,
        Some(stream(
            geometry,
            16,
            Frequency::IndexedData(instances as u32),
        )),
    )
    .unwrap();
    dev.set_stream(
        1,
        Some(stream(per_instance, 12, Frequency::InstanceData(2))),
    )
    .unwrap();
    let backwards: Vec<u32> = (0..n as u32).rev().collect();
    for indices in [None, Some(backwards)] {
        dev.set_indices(indices.clone());
        for way in WAYS {
            set_way(&mut dev, way);
            let out = split(&dev.draw(n, instances).unwrap());
            let x86 = matches!(
                dev.code_generator(),
                Some(dxso_vm::CodeGenerator::Avx512 | dxso_vm::CodeGenerator::Avx2)
            );
            assert_eq!(dev.last_draw_fused(), x86, "{way:?}");
            for (i, o) in out.iter().enumerate() {
                let (k, instance) = (i % n, i / n);
                let v = indices.as_ref().map_or(k, |ix| ix[k] as usize);
                let j = (instance / 2) as f32;
                assert_eq!(o[0], position(v), "{way:?} vertex {i}");
                let colour = [3.0 * j / 255.0, 2.0 * j / 255.0, j / 255.0, 1.0];
                assert_eq!(o[1], colour, "{way:?} vertex {i}");
                assert_eq!(o[2], [10.0 * j, -j, 0.0, 1.0], "{way:?} vertex {i}");
            }
        }
    }
}

/// Eight output registers (the fused store writes them four at a time):
/// every vertex's record holds each register in its place, in every way of running.
#[test]
fn many_output_registers_reach_their_records() {
    let mut src = String::from("vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\n");
    for k in 1..8 {
        src += &format!("dcl_texcoord{k} o{k}\n");
    }
    src += "mov o0, v0\n";
    for k in 1..8 {
        src += &format!("add o{k}, v0, c{k}\n");
    }
    let n = 70;
    let v0: Vec<[f32; 4]> = (0..n).map(|i| [i as f32, 0.5, -(i as f32), 2.0]).collect();
    let mut dev = device(&src, std::slice::from_ref(&v0));
    let consts: Vec<[f32; 4]> = (0..8).map(|k| [k as f32 * 100.0; 4]).collect();
    dev.set_constant_f(0, &consts).unwrap();
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, n, true));
        for (i, o) in out.iter().enumerate() {
            for (k, reg) in o.iter().enumerate() {
                let add = if k == 0 { 0.0 } else { k as f32 * 100.0 };
                let want = v0[i].map(|x| x + add);
                assert_eq!(*reg, want, "{way:?} vertex {i} o{k}");
            }
        }
    }
}

/// A shader with no instructions to execute (only its declarations; fuzz finding) compiles
/// with every code generator (no silent fallback: `set_way` checks which one compiled it) and
/// outputs zeros.
#[test]
fn a_shader_without_instructions_compiles_in_every_way() {
    let mut dev = device("vs_3_0\ndcl_position o0\n", &[]);
    for way in WAYS {
        set_way(&mut dev, way);
        let out = split(&dev.draw(3, 1).unwrap());
        assert_eq!(out, vec![vec![[0.0; 4]]; 3], "{way:?}");
    }
}

/// exp, log, pow and lit (the tiers' exp2 and log2) over the float line: every 2^32 / 24,577th
/// bit pattern (all exponents, both signs, subnormals, NaNs), the clamp and scaling edges of
/// exp2 (-151, -150.5, -150, -149, -126, 128, 129 and their neighbours), powers of two,
/// ±0 and ±inf. Each way gives the interpreter's bits (the AVX-512 code takes other steps:
/// vrndscaleps and vscalefps in exp2, vgetexpps and vgetmantps in log2).
#[test]
fn exp_log_and_pow_alike_in_every_way_over_the_float_line() {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\n\
               dcl_texcoord2 o3\n\
               exp o0.x, v0.x\nlog o0.y, v0.x\nexp o0.z, v0.y\nlog o0.w, v0.z\n\
               pow o1.x, v0.x, v0.y\npow o1.y, v0.y, v0.x\npow o1.z, v0.z, v0.w\n\
               pow o1.w, v0.w, v0.y\nlit o2, v0\nlit o3, v0.wzyx\n";
    let mut xs: Vec<f32> = (0..(1u64 << 32))
        .step_by(24_577)
        .map(|b| f32::from_bits(b as u32))
        .collect();
    for e in [
        -151.0f32, -150.5, -150.0, -149.0, -126.0, -125.5, 128.0, 128.5, 129.0,
    ] {
        for d in [-2i32, -1, 0, 1, 2] {
            xs.push(f32::from_bits((e.to_bits() as i32 + d) as u32));
        }
    }
    for n in -160..=160 {
        xs.push((n as f32).exp2());
        xs.push(n as f32 * 0.75);
    }
    xs.extend([
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE,
        1.0e-45,
    ]);
    let n = xs.len();
    // The four components: the value, then three others from the list, so that pow's
    // exponents range as widely as its bases.
    let v0: Vec<[f32; 4]> = (0..n)
        .map(|i| {
            [
                xs[i],
                xs[(i * 7 + 3) % n],
                xs[(i * 13 + 5) % n],
                xs[(i * 31 + 11) % n],
            ]
        })
        .collect();
    let mut dev = device(src, &[v0]);
    let all = bits_in_every_way(&mut dev, n);
    let want = all.last().expect("ways");
    for (way, got) in WAYS.iter().zip(&all) {
        if let Some(at) = (0..got.len()).find(|&k| got[k] != want[k]) {
            let i = at / (got.len() / n);
            panic!(
                "{way:?} vertex {i} (v0.x = {:e}): {at}th output bits differ",
                xs[i]
            );
        }
    }
}

/// [`exp_log_and_pow_alike_in_every_way_over_the_float_line`] for every float: all 2^32
/// bit patterns through exp and log, the AVX-512 and AVX2 code against the interpreter
/// (11 minutes in release on two busy cores: `cargo test --release -p dxso-vm --test equivalence --
/// --ignored every_float`).
#[test]
#[ignore]
fn exp_and_log_alike_at_every_float() {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\nexp o0.x, v0.x\nlog o0.y, v0.x\n\
               exp o0.z, v0.y\nlog o0.w, v0.y\n";
    // Each vertex takes two floats (x and y); a chunk is 2^21 of them.
    let chunk = 1u64 << 20;
    for start in (0..1u64 << 32).step_by(2 * chunk as usize) {
        let v0: Vec<[f32; 4]> = (0..chunk)
            .map(|i| {
                let b = start + 2 * i;
                [
                    f32::from_bits(b as u32),
                    f32::from_bits(b as u32 + 1),
                    0.0,
                    0.0,
                ]
            })
            .collect();
        let mut dev = device(src, &[v0]);
        let want = split(&draw_way(&mut dev, WAYS[3], chunk as usize, true));
        for way in &WAYS[..2] {
            let got = split(&draw_way(&mut dev, *way, chunk as usize, true));
            for i in 0..chunk as usize {
                let (g, w) = (got[i][0].map(f32::to_bits), want[i][0].map(f32::to_bits));
                assert_eq!(g, w, "{way:?}: bits {:#x}", start + 2 * i as u64);
            }
        }
    }
}

/// The x86 code's fast products (`fma(x, y, +0)`, no zero-rule compares) give NaN for
/// 0 * inf where the rule gives +0: the code checks the results that can reach anything, and
/// a batch where one is inf or NaN runs again with the exact code. Here such a product
/// reaches each op that turns NaN into an ordinary value (max, min, slt, sge, sgn, mova's
/// rounding, a dynamic if, setp and a predicated write, rcp and a loop's body) and nothing
/// else, in both batches of a 70-vertex draw (the full one runs fused, the rest not): every
/// way gives the interpreter's bits.
#[test]
fn products_of_zero_and_inf_hand_their_batches_to_the_exact_code() {
    let consumers = [
        "max o1, r0, c0.x",
        "min o1, r0, c0.y",
        "slt o1, r0, c0.y",
        "sge o1, r0, c0.y",
        "sgn o1, r0",
        "mova a0.x, r0.x\nmov o1, c[a0.x + 1]",
        "if_lt r0.x, c0.y\nmov o1, c0.w\nelse\nmov o1, c0.x\nendif",
        "setp_lt p0, r0, c0.y\n(p0) mov o1, c0.w",
        "rcp r1.x, r0.x\nmin o1, r1.x, c0.w",
        "mov r1, c0.z\nloop aL, i0\nmax r2, r0, c0.x\nadd r1, r1, r2\nendloop\nmov o1, r1",
    ];
    let products = ["mul r0, r9, v1", "dp4 r0, r9, v1", "mad r0, r9, v1, c0.z"];
    let inf = f32::INFINITY;
    let n = 70;
    // Even vertices: zero factors against inf, -inf and NaN; odd ones: finite products.
    let v0: Vec<[f32; 4]> = (0..n)
        .map(|i| {
            if i % 2 == 0 {
                [0.0, -0.0, 0.0, 0.0]
            } else {
                [2.0, 1.0, 0.5, -1.0]
            }
        })
        .collect();
    let v1: Vec<[f32; 4]> = (0..n)
        .map(|i| {
            if i % 2 == 0 {
                [inf, -inf, f32::NAN, 3.0]
            } else {
                [1.0, 2.0, 3.0, 4.0]
            }
        })
        .collect();
    for product in products {
        for consumer in consumers {
            let src = format!(
                "vs_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_position o0\n\
                 dcl_texcoord0 o1\ndef c0, -1, 0.5, 0, 2\ndef c1, 7, 8, 9, 10\n\
                 defi i0, 3, 0, 1, 0\nmov o0, v0\nmov r9, v0\n{product}\n{consumer}\n"
            );
            let mut dev = device(&src, &[v0.clone(), v1.clone()]);
            let all = bits_in_every_way(&mut dev, n);
            for (way, out) in WAYS.iter().zip(&all) {
                assert_eq!(out, &all[3], "{way:?}: {src}");
            }
        }
    }
}

/// A draw whose every batch the fast code hands back (a zero times inf in every vertex,
/// read by `max`): after its first few batches the exact code runs them alone; all 40
/// batches still give the interpreter's bits.
#[test]
fn draws_full_of_zero_times_inf_run_on_the_exact_code() {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_position o0\n\
               dcl_texcoord0 o1\ndef c0, -1, 0.5, 0, 2\nmov o0, v0\nmov r9, v0\n\
               mul r0, r9, v1\nmax o1, r0, c0.x\n";
    let n = 64 * 40;
    let v0: Vec<[f32; 4]> = (0..n).map(|i| [0.0, i as f32, -0.0, 1.0]).collect();
    let v1: Vec<[f32; 4]> = (0..n)
        .map(|_| [f32::INFINITY, 2.0, f32::NAN, 3.0])
        .collect();
    let mut dev = device(src, &[v0, v1]);
    let all = bits_in_every_way(&mut dev, n);
    for (way, out) in WAYS.iter().zip(&all) {
        assert_eq!(out, &all[3], "{way:?}");
    }
}
