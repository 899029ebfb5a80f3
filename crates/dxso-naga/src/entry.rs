//! The `@vertex` / `@fragment` entry point: reads the stage's inputs (attributes,
//! interpolants, builtins), calls the body, and maps its outputs to locations and builtins.

use crate::func::{FnBuilder, H, Shape, named_ty, ty, vec4};
use crate::interface::{Io, Varying};
use dxso::ir::Version;
use naga::{
    Binding, BuiltIn, EntryPoint, Expression, Function, FunctionArgument, FunctionResult, Handle,
    Interpolation, Module, Sampling, Scalar, ShaderStage, Statement, StructMember, Type, TypeInner,
};

fn location(location: u32, interpolate: bool) -> Binding {
    Binding::Location {
        location,
        interpolation: interpolate.then_some(Interpolation::Perspective),
        sampling: interpolate.then_some(Sampling::Center),
        blend_src: None,
        per_primitive: false,
    }
}

fn varying_binding(v: &Varying, interpolate: bool) -> Binding {
    match (v.builtin, v.location) {
        (Some("position"), _) => Binding::BuiltIn(BuiltIn::Position { invariant: false }),
        (Some("frag_depth"), _) => Binding::BuiltIn(BuiltIn::FragDepth),
        (Some(_), _) => Binding::BuiltIn(BuiltIn::FrontFacing),
        (None, l) => location(l.unwrap_or(0), interpolate),
    }
}

fn component_mask(components: &str) -> u8 {
    components
        .chars()
        .map(|c| match c {
            'x' => 1,
            'y' => 2,
            'z' => 4,
            _ => 8,
        })
        .fold(0, |m, b| m | b)
}

/// Add the entry point; returns its name.
pub(crate) fn build(
    m: &mut Module,
    body: Handle<Function>,
    version: Version,
    in_ty: Handle<Type>,
    io: &Io,
) -> String {
    let vs = version.is_vertex();
    let name = if vs { "vs_main" } else { "ps_main" };
    let f32x4 = ty(m, vec4(Scalar::F32));
    let f32_ty = ty(m, TypeInner::Scalar(Scalar::F32));
    let bool_ty = ty(m, TypeInner::Scalar(Scalar::BOOL));
    let mut fb = FnBuilder::new(name, m);

    // Arguments, then the body's input struct.
    let mut members = Vec::new();
    for (_, input) in &io.inputs {
        let mut parts: Vec<(H, u8)> = Vec::new();
        for v in &input.varyings {
            let front = v.builtin == Some("front_facing");
            let k = fb.f.arguments.len() as u32;
            fb.f.arguments.push(FunctionArgument {
                name: Some(format!("{}_{}", input.register, v.semantic.to_lowercase())),
                ty: if front { bool_ty } else { f32x4 },
                binding: Some(varying_binding(v, !vs)),
            });
            let a = fb.expr(Expression::FunctionArgument(k));
            let value = match v.builtin {
                Some("front_facing") => {
                    let one = fb.f32(1.0);
                    let m1 = fb.f32(-1.0);
                    let s = fb.select(a, one, m1);
                    fb.splat(s)
                }
                Some(_) => {
                    // vPos: D3D9 puts pixel centres on whole numbers.
                    let half = fb.f32(0.5);
                    let x = fb.index(a, 0);
                    let y = fb.index(a, 1);
                    let x = fb.sub(x, half);
                    let y = fb.sub(y, half);
                    let z = fb.f32(0.0);
                    fb.compose(m, vec4(Scalar::F32), vec![x, y, z, z])
                }
                None => a,
            };
            parts.push((value, component_mask(&v.components)));
        }
        let value = if parts.len() == 1 {
            parts[0].0
        } else {
            let comps: Vec<H> = (0..4u32)
                .map(|c| match parts.iter().find(|p| p.1 >> c & 1 != 0) {
                    Some(p) => fb.index(p.0, c),
                    None => fb.f32(0.0),
                })
                .collect();
            fb.compose(m, vec4(Scalar::F32), comps)
        };
        members.push(value);
    }
    if members.is_empty() {
        members.push(fb.kf(0.0, Shape::Vec4));
    }
    let inputs = fb.expr(Expression::Compose {
        ty: in_ty,
        components: members,
    });
    let result = fb.expr(Expression::CallResult(body));
    fb.stmt(Statement::Call {
        function: body,
        arguments: vec![inputs],
        result: Some(result),
    });

    // The stage's output struct.
    let mut out_members = Vec::new();
    let mut values = Vec::new();
    for (k, (_, output)) in io.outputs.iter().enumerate() {
        for v in &output.varyings {
            let value = fb.index(result, k as u32);
            let depth = v.builtin == Some("frag_depth");
            let (t, value) = if depth {
                (f32_ty, fb.index(value, 0))
            } else {
                (f32x4, value)
            };
            out_members.push(StructMember {
                name: Some(format!("{}_{}", output.register, v.semantic.to_lowercase())),
                ty: t,
                binding: Some(varying_binding(v, vs)),
                offset: 16 * out_members.len() as u32,
            });
            values.push(value);
        }
    }
    let has_position = out_members
        .iter()
        .any(|mb| matches!(mb.binding, Some(Binding::BuiltIn(BuiltIn::Position { .. }))));
    if vs && !has_position {
        // A vertex stage must give a position; a shader without POSITION0 gives 0.
        out_members.push(StructMember {
            name: Some("position".into()),
            ty: f32x4,
            binding: Some(Binding::BuiltIn(BuiltIn::Position { invariant: false })),
            offset: 16 * out_members.len() as u32,
        });
        values.push(fb.kf(0.0, Shape::Vec4));
    }
    if out_members.is_empty() {
        fb.stmt(Statement::Return { value: None });
    } else {
        let span = 16 * out_members.len() as u32;
        let st = named_ty(
            m,
            if vs { "VertexOutput" } else { "FragmentOutput" },
            TypeInner::Struct {
                members: out_members,
                span,
            },
        );
        fb.f.result = Some(FunctionResult {
            ty: st,
            binding: None,
        });
        let r = fb.expr(Expression::Compose {
            ty: st,
            components: values,
        });
        fb.stmt(Statement::Return { value: Some(r) });
    }
    m.entry_points.push(EntryPoint {
        name: name.into(),
        stage: if vs {
            ShaderStage::Vertex
        } else {
            ShaderStage::Fragment
        },
        early_depth_test: None,
        workgroup_size: [0; 3],
        workgroup_size_overrides: None,
        function: fb.finish(),
        mesh_info: None,
        task_payload: None,
        incoming_ray_payload: None,
    });
    name.into()
}
