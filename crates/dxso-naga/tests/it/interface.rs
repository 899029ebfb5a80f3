//! The Interface of small shaders, worked out by hand from the shader text and the rules in
//! `src/interface.rs` (locations: TEXCOORDn at n, COLORn at 10+n, FOG0 12, PSIZE0 13,
//! others from 14; vs constants in group 0, samplers in group 1; ps in groups 2 and 3).

use dxso_naga::interface::{ConstantBuffer, Def, Interface, Sampler};

fn interface(src: &str) -> Interface {
    let shader = dxso::text::parse(src).expect("assembles");
    let checked = dxso::validate::validate(&shader, &dxso::validate::Caps::max()).expect("valid");
    dxso_naga::translate(&checked, &Default::default())
        .expect("translates")
        .interface
}

/// (register, [(semantic, location, builtin, components)]) of inputs or outputs.
type Row = (
    String,
    Vec<(String, Option<u32>, Option<&'static str>, String)>,
);

fn inputs(i: &Interface) -> Vec<Row> {
    i.inputs
        .iter()
        .map(|x| {
            let v = x.varyings.iter();
            let v = v.map(|v| {
                (
                    v.semantic.clone(),
                    v.location,
                    v.builtin,
                    v.components.clone(),
                )
            });
            (x.register.clone(), v.collect())
        })
        .collect()
}

fn outputs(i: &Interface) -> Vec<(Row, String)> {
    i.outputs
        .iter()
        .map(|x| {
            let v = x.varyings.iter();
            let v = v.map(|v| {
                (
                    v.semantic.clone(),
                    v.location,
                    v.builtin,
                    v.components.clone(),
                )
            });
            ((x.register.clone(), v.collect()), x.components.clone())
        })
        .collect()
}

fn row(reg: &str, v: &[(&str, Option<u32>, Option<&'static str>, &str)]) -> Row {
    (
        reg.into(),
        v.iter()
            .map(|&(s, l, b, c)| (s.into(), l, b, c.into()))
            .collect(),
    )
}

#[test]
fn vs_2_0_attributes_legacy_outputs_and_defs() {
    let i = interface(
        "vs_2_0\n\
         dcl_position v0\n\
         dcl_texcoord1 v3\n\
         def c10, 1, 0, 0.5, -2\n\
         m4x4 oPos, v0, c0\n\
         mov oT1.xy, v3\n\
         mov oD1, c10\n",
    );
    assert_eq!(i.stage, "vertex");
    assert_eq!(i.version, "vs_2_0");
    assert_eq!(i.entry_point, "vs_main");
    assert_eq!(
        i.float_constants,
        Some(ConstantBuffer {
            group: 0,
            binding: 0,
            registers: 256,
            defs: vec![Def {
                register: 10,
                bits: [0x3F80_0000, 0, 0x3F00_0000, 0xC000_0000]
            }],
        })
    );
    assert_eq!(i.int_constants, None);
    assert_eq!(i.bool_constants, None);
    assert!(i.samplers.is_empty());
    assert_eq!(
        inputs(&i),
        vec![
            row("v0", &[("POSITION0", Some(0), None, "xyzw")]),
            row("v3", &[("TEXCOORD1", Some(3), None, "xyzw")]),
        ]
    );
    // dxso-vm's order: oPos, oFog, oPts, oD0, oD1, oT0..; oD0 always (1.0 when unwritten).
    assert_eq!(
        outputs(&i),
        vec![
            (
                row("oPos", &[("POSITION0", None, Some("position"), "xyzw")]),
                "xyzw".into()
            ),
            (row("oD0", &[("COLOR0", Some(10), None, "")]), "".into()),
            (
                row("oD1", &[("COLOR1", Some(11), None, "xyzw")]),
                "xyzw".into()
            ),
            (
                row("oT1", &[("TEXCOORD1", Some(1), None, "xy")]),
                "xy".into()
            ),
        ]
    );
    assert!(i.parameters.is_empty());
}

#[test]
fn vs_3_0_buffers_samplers_and_packed_outputs() {
    let i = interface(
        "vs_3_0\n\
         dcl_position v0\n\
         dcl_texcoord0 o0.xy\n\
         dcl_texcoord1 o0.zw\n\
         dcl_position o1\n\
         dcl_normal o2\n\
         dcl_2d s1\n\
         dcl_cube s2\n\
         defi i0, 4, 0, 1, 0\n\
         mov r0, c0\n\
         mov r1, c1\n\
         if b3\n\
         texldl r0, v0, s1\n\
         endif\n\
         loop aL, i1\n\
         add r1, r1, c2[aL]\n\
         endloop\n\
         mov o0, r0\n\
         mov o1, v0\n\
         mov o2, r1\n",
    );
    let c = i.float_constants.as_ref().expect("c# buffer");
    assert_eq!((c.group, c.binding, c.registers), (0, 0, 256));
    let ints = i.int_constants.as_ref().expect("i1 is not def'd");
    assert_eq!((ints.group, ints.binding, ints.registers), (0, 1, 16));
    assert_eq!(
        ints.defs,
        vec![Def {
            register: 0,
            bits: [4, 0, 1, 0]
        }]
    );
    let b = i.bool_constants.as_ref().expect("b3 is read");
    assert_eq!((b.group, b.binding, b.registers), (0, 2, 16));
    assert_eq!(
        i.samplers,
        vec![
            Sampler {
                register: 1,
                group: 1,
                texture_binding: 2,
                sampler_binding: 3,
                kind: "2d"
            },
            Sampler {
                register: 2,
                group: 1,
                texture_binding: 4,
                sampler_binding: 5,
                kind: "cube"
            },
        ]
    );
    assert_eq!(
        outputs(&i),
        vec![
            (
                row(
                    "o0",
                    &[
                        ("TEXCOORD0", Some(0), None, "xy"),
                        ("TEXCOORD1", Some(1), None, "zw")
                    ]
                ),
                "xyzw".into()
            ),
            (
                row("o1", &[("POSITION0", None, Some("position"), "xyzw")]),
                "xyzw".into()
            ),
            (
                row("o2", &[("NORMAL0", Some(14), None, "xyzw")]),
                "xyzw".into()
            ),
        ]
    );
}

#[test]
fn ps_3_0_builtins_packed_inputs_and_outputs() {
    let i = interface(
        "ps_3_0\n\
         dcl_texcoord0 v0.xy\n\
         dcl_texcoord1 v0.zw\n\
         dcl_color0 v1\n\
         dcl vPos.xy\n\
         dcl vFace\n\
         dcl_2d s0\n\
         texld r0, v0, s0\n\
         add r0, r0, v1\n\
         mov r1.xy, vPos\n\
         if_lt vFace, c0.x\n\
         mov r0, c1\n\
         endif\n\
         mov oC1, r0\n\
         mov oDepth, r1.x\n",
    );
    assert_eq!(i.stage, "fragment");
    assert_eq!(i.entry_point, "ps_main");
    let c = i.float_constants.as_ref().expect("c#");
    assert_eq!((c.group, c.binding, c.registers), (2, 0, 224));
    assert_eq!(i.samplers[0].group, 3);
    assert_eq!(
        inputs(&i),
        vec![
            row(
                "v0",
                &[
                    ("TEXCOORD0", Some(0), None, "xy"),
                    ("TEXCOORD1", Some(1), None, "zw")
                ]
            ),
            row("v1", &[("COLOR0", Some(10), None, "xyzw")]),
            row("vPos", &[("VPOS", None, Some("position"), "xy")]),
            row("vFace", &[("VFACE", None, Some("front_facing"), "xyzw")]),
        ]
    );
    assert_eq!(
        outputs(&i),
        vec![
            (
                row("oC1", &[("COLOR1", Some(1), None, "xyzw")]),
                "xyzw".into()
            ),
            // `mov oDepth, r1.x` encodes the full mask; the entry point writes component x.
            (
                row("oDepth", &[("DEPTH0", None, Some("frag_depth"), "xyzw")]),
                "xyzw".into()
            ),
        ]
    );
}

#[test]
fn ps_2_0_colours_and_texture_coordinates() {
    let i = interface(
        "ps_2_0\n\
         dcl t0.xy\n\
         dcl v0\n\
         dcl_2d s3\n\
         def c0, 0.5, 0.5, 0.5, 1\n\
         texld r0, t0, s3\n\
         mul r0, r0, v0\n\
         mul r0, r0, c0\n\
         mov oC0, r0\n",
    );
    // Every c# read is a def: no buffer.
    assert_eq!(i.float_constants, None);
    assert_eq!(
        inputs(&i),
        vec![
            row("v0", &[("COLOR0", Some(10), None, "xyzw")]),
            row("t0", &[("TEXCOORD0", Some(0), None, "xy")]),
        ]
    );
    assert_eq!(i.samplers[0].texture_binding, 6);
    assert_eq!(i.samplers[0].sampler_binding, 7);
}

#[test]
fn interface_serialises_to_json() {
    let i = interface("vs_1_1\ndcl_position v0\nmov oPos, v0\n");
    let json = serde_json::to_value(&i).expect("serialises");
    assert_eq!(json["stage"], "vertex");
    assert_eq!(json["inputs"][0]["varyings"][0]["semantic"], "POSITION0");
    assert_eq!(json["outputs"][0]["varyings"][0]["builtin"], "position");
    assert_eq!(json["float_constants"], serde_json::Value::Null);
}

#[test]
fn a_pair_agrees_on_locations_by_semantic() {
    let check = |src: &str| {
        let shader = dxso::text::parse(src).expect("assembles");
        dxso::validate::validate(&shader, &dxso::validate::Caps::max()).expect("valid")
    };
    let vs = check(
        "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_tangent o1\ndcl_normal o2\n\
         dcl_texcoord3 o3\nmov o0, v0\nmov o1, v0\nmov o2, v0\nmov o3, v0\n",
    );
    let ps = check(
        "ps_3_0\ndcl_normal v0\ndcl_texcoord3 v1\ndcl_binormal v2\n\
         mov r0, v0\nadd r0, r0, v1\nadd oC0, r0, v2\n",
    );
    let (v, p) = dxso_naga::translate_pair(&vs, &ps, &Default::default()).expect("pair");
    let loc = |i: &Interface, reg: &str, outputs: bool| {
        let list = if outputs {
            &i.outputs
                .iter()
                .map(|o| (&o.register, &o.varyings))
                .collect::<Vec<_>>()
        } else {
            &i.inputs
                .iter()
                .map(|o| (&o.register, &o.varyings))
                .collect::<Vec<_>>()
        };
        list.iter().find(|x| x.0 == reg).expect(reg).1[0].location
    };
    // The ps numbers NORMAL0 and BINORMAL0 from 14 in its order; TEXCOORD3 is fixed at 3.
    assert_eq!(loc(&p.interface, "v0", false), Some(14));
    assert_eq!(loc(&p.interface, "v1", false), Some(3));
    assert_eq!(loc(&p.interface, "v2", false), Some(15));
    // The vs gives NORMAL0 the ps's location, TANGENT0 (unread) the next free one.
    assert_eq!(loc(&v.interface, "o2", true), Some(14));
    assert_eq!(loc(&v.interface, "o3", true), Some(3));
    assert_eq!(loc(&v.interface, "o1", true), Some(16));
    // Alone, the vs numbers in its own order.
    let alone = dxso_naga::translate(&vs, &Default::default()).expect("vs");
    assert_eq!(loc(&alone.interface, "o1", true), Some(14));
}

/// A repeated identical `dcl` (the validator warns, V015; modded shaders have them) is one
/// varying, not two at the same location — naga refused the module before (fuzz finding,
/// kept in `crates/dxso-cli/tests/fuzz-regressions/translate/`).
#[test]
fn a_repeated_identical_dcl_is_one_varying() {
    let i = interface(
        "vs_3_0\ndcl_position v0\ndcl_color1 v2\ndcl_color1 v2\ndcl_position o4\ndcl_color o0\ndcl_color o0\nmov o4, v0\nmov o0, v2\n",
    );
    assert_eq!(
        inputs(&i),
        [
            row("v0", &[("POSITION0", Some(0), None, "xyzw")]),
            row("v2", &[("COLOR1", Some(2), None, "xyzw")]),
        ]
    );
    assert_eq!(
        outputs(&i),
        [
            (
                row("o0", &[("COLOR0", Some(10), None, "xyzw")]),
                "xyzw".into()
            ),
            (
                row("o4", &[("POSITION0", None, Some("position"), "xyzw")]),
                "xyzw".into()
            ),
        ]
    );
}
