//! Constants set by name through the shader's constant table equal the same constants set by
//! register: a column-major matrix, a row-major matrix, an array element, a struct member of
//! an array element, an int and a bool.

use crate::common;

use dxso::ctab::{Class, Constant, ConstantTable, Member, ParamType, RegisterSet, TypeInfo};
use dxso::validate::{Caps, validate};
use dxso_vm::{Device, VmError};

fn constant(name: &str, set: RegisterSet, index: u16, count: u16, ty: TypeInfo) -> Constant {
    Constant {
        name: name.into(),
        register_set: set,
        register_index: index,
        register_count: count,
        ty,
        default_value: None,
    }
}

fn table() -> ConstantTable {
    let v4 = TypeInfo::new(Class::Vector, ParamType::Float, 1, 4);
    let light = TypeInfo {
        class: Class::Struct,
        ty: ParamType::Void,
        rows: 1,
        columns: 12,
        elements: 2,
        members: ["color", "dir", "pos"]
            .map(|n| Member {
                name: n.into(),
                ty: v4.clone(),
            })
            .to_vec(),
    };
    let offsets = TypeInfo {
        elements: 4,
        ..v4.clone()
    };
    use RegisterSet::*;
    ConstantTable {
        creator: "dxso test".into(),
        version: 0xFFFE_0300,
        flags: 0,
        target: "vs_3_0".into(),
        constants: vec![
            constant(
                "count",
                Int4,
                0,
                1,
                TypeInfo::new(Class::Scalar, ParamType::Int, 1, 1),
            ),
            constant(
                "enable",
                Bool,
                3,
                1,
                TypeInfo::new(Class::Scalar, ParamType::Bool, 1, 1),
            ),
            constant("lights", Float4, 20, 6, light),
            constant("offsets", Float4, 30, 4, offsets),
            constant(
                "viewProj",
                Float4,
                8,
                4,
                TypeInfo::new(Class::MatrixColumns, ParamType::Float, 4, 4),
            ),
            constant(
                "world",
                Float4,
                12,
                3,
                TypeInfo::new(Class::MatrixRows, ParamType::Float, 3, 4),
            ),
        ],
    }
}

const SHADER: &str = "vs_3_0
dcl_texcoord v0
dcl_position o0
dcl_texcoord o1
dcl_texcoord1 o2
dcl_texcoord2 o3
m4x4 o0, v0, c8
mov r0, c32
add o1, r0, c25
m3x4 o2, v0, c12
mov r1, c0
if b3
mov r1.x, c1.y
endif
rep i0
add r1.y, r1.y, c1.x
endrep
mov o3, r1
";

fn device() -> Device {
    let mut shader = dxso::text::parse(SHADER).expect("shader");
    shader.instructions.insert(0, table().to_comment());
    let checked = validate(&shader, &Caps::max()).expect("valid");
    let mut dev = common::device(
        "vs_3_0\ndcl_texcoord v0\ndcl_position o0\nmov o0, v0\n",
        &[vec![[1.0, 2.0, 3.0, 1.0], [-1.0, 0.5, 4.0, 1.0]]],
    );
    dev.set_vertex_shader(&checked).expect("bind");
    dev.set_constant_f(0, &[[0.0; 4], [1.0, 7.0, 0.0, 0.0]])
        .unwrap();
    dev
}

#[test]
fn by_name_equals_by_register() {
    // Row-major 4x4 as a scene gives it: m[r][c] = 10r + c.
    let m: Vec<f32> = (0..16).map(|i| (10 * (i / 4) + i % 4) as f32).collect();
    let w: Vec<f32> = (0..12).map(|i| i as f32 * 0.5 - 1.0).collect();

    let mut named = device();
    named.set_constant_by_name("viewProj", &m).unwrap();
    named.set_constant_by_name("world", &w).unwrap();
    named
        .set_constant_by_name("lights[1].pos", &[1.0, 2.0, 3.0, 4.0])
        .unwrap();
    named
        .set_constant_by_name("lights[0].color", &[0.5, 0.25, 0.125, 1.0])
        .unwrap();
    named
        .set_constant_by_name("offsets[2]", &[9.0, 8.0, 7.0, 6.0])
        .unwrap();
    named.set_constant_by_name_i("count", &[3]).unwrap();
    named.set_constant_by_name_b("enable", &[true]).unwrap();

    let mut regs = device();
    // MATRIX_COLUMNS: register 8 + k holds column k.
    for k in 0..4 {
        let col = [m[k], m[4 + k], m[8 + k], m[12 + k]];
        regs.set_constant_f(8 + k as u32, &[col]).unwrap();
    }
    // MATRIX_ROWS: register 12 + k holds row k.
    for k in 0..3 {
        regs.set_constant_f(
            12 + k as u32,
            &[[w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]]],
        )
        .unwrap();
    }
    regs.set_constant_f(20 + 3 + 2, &[[1.0, 2.0, 3.0, 4.0]])
        .unwrap(); // lights[1].pos
    regs.set_constant_f(20, &[[0.5, 0.25, 0.125, 1.0]]).unwrap(); // lights[0].color
    regs.set_constant_f(32, &[[9.0, 8.0, 7.0, 6.0]]).unwrap(); // offsets[2]
    regs.set_constant_i(0, &[[3, 0, 0, 0]]).unwrap();
    regs.set_constant_b(3, &[true]).unwrap();

    let a = common::split(&named.draw(2, 1).unwrap());
    let b = common::split(&regs.draw(2, 1).unwrap());
    assert_eq!(a, b);
    // And the values are the hand-computed ones: o0 = v * M (row vector times matrix).
    let v = [1.0f32, 2.0, 3.0, 1.0];
    let want: Vec<f32> = (0..4)
        .map(|c| (0..4).map(|r| v[r] * m[4 * r + c]).sum())
        .collect();
    assert_eq!(a[0][0].to_vec(), want);
    assert_eq!(a[0][1], [10.0, 10.0, 10.0, 10.0]); // offsets[2] + lights[1].pos
    assert_eq!(a[0][3], [7.0, 3.0, 0.0, 0.0]); // b3 set, three reps of +1
}

#[test]
fn set_matrix_takes_the_top_left_part_and_unset_components_stay() {
    let mut dev = device();
    dev.set_constant_f(14, &[[5.0; 4]]).unwrap();
    let mut m = [[0.0f32; 4]; 4];
    for (r, row) in m.iter_mut().enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            *x = (r * 4 + c) as f32;
        }
    }
    dev.set_matrix_by_name("world", &m).unwrap();
    assert_eq!(dev.constant_f(12), Some([0.0, 1.0, 2.0, 3.0]));
    assert_eq!(dev.constant_f(14), Some([8.0, 9.0, 10.0, 11.0]));
    assert_eq!(dev.constant_f(15), Some([0.0; 4]));
    // A float3 part of a register leaves w alone.
    dev.set_constant_f(31, &[[0.0, 0.0, 0.0, 42.0]]).unwrap();
    dev.set_constant_by_name("offsets[1]", &[1.0, 2.0, 3.0])
        .unwrap();
    assert_eq!(dev.constant_f(31), Some([1.0, 2.0, 3.0, 42.0]));
}

#[test]
fn unknown_names_list_the_table() {
    let mut dev = device();
    let e = dev.set_constant_by_name("viewproj", &[1.0]).unwrap_err();
    match &e {
        VmError::UnknownConstant { name, known } => {
            assert_eq!(name, "viewproj");
            assert!(known.contains(&"viewProj".to_string()), "{known:?}");
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("viewProj"), "{e}");
    let e = dev
        .set_constant_by_name("offsets[1]", &[0.0; 5])
        .unwrap_err();
    assert!(
        matches!(
            e,
            VmError::TooManyValues {
                capacity: 4,
                given: 5,
                ..
            }
        ),
        "{e:?}"
    );
    let mut bare = common::device(
        "vs_3_0\ndcl_texcoord v0\ndcl_position o0\nmov o0, v0\n",
        &[],
    );
    let e = bare.set_constant_by_name("x", &[1.0]).unwrap_err();
    assert_eq!(e, VmError::NoConstantTable);
    assert_eq!(
        e.to_string(),
        "constants by name need a constant table: the shader carries no constant table (CTAB)"
    );
}

#[test]
fn set_defaults_writes_each_default_value() {
    let mut t = table();
    let bits = |v: [f32; 4]| v.map(f32::to_bits).to_vec();
    t.constants[3].default_value = Some([bits([1.0, 2.0, 3.0, 4.0]), bits([0.5; 4])].concat());
    t.constants[0].default_value = Some(vec![7, 0, 1, 0]);
    t.constants[1].default_value = Some(vec![1]);
    let mut dev = device();
    dev.set_constant_table(Some(t));
    dev.set_constant_defaults().unwrap();
    assert_eq!(dev.constant_f(30), Some([1.0, 2.0, 3.0, 4.0]));
    assert_eq!(dev.constant_f(31), Some([0.5; 4]));
    assert_eq!(
        dev.constant_f(32),
        Some([0.0; 4]),
        "only the registers the value covers"
    );
    assert_eq!(dev.constant_i(0), Some([7, 0, 1, 0]));
    assert_eq!(dev.constant_b(3), Some(true));
}
