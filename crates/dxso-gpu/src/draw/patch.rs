//! Changes to a translated vertex entry point that D3D9 needs and GPUs lack, made in naga IR
//! on the struct the entry returns: the pixel-centre offset of the position, and the clamp
//! of the colours a ps_1_x / ps_2_x pixel shader reads.

use crate::Error;
use naga::{
    BinaryOperator, Binding, BuiltIn, Expression, Handle, Literal, MathFunction, Module, Span,
    Statement, TypeInner, VectorSize,
};

fn push(e: &mut naga::Arena<Expression>, x: Expression) -> Handle<Expression> {
    e.append(x, Span::UNDEFINED)
}

/// Rewrite what the vertex entry `entry` returns:
///
/// - the clip-space position gets `(dx, dy, 0, 0) · w`. D3D9 puts pixel centres on whole
///   screen coordinates, WebGPU at whole + 0.5, so a D3D9 position lands half a pixel left
///   of and above where D3D9 draws it: with a `W` x `H` viewport, `dx = 1/W`, `dy = −1/H`
///   move it back, and rasterization covers the pixels D3D9 does;
/// - the members at `clamp` locations are clamped to [0, 1] (`x > 0 ? min(x, 1) : 0`, NaN
///   to 0), as D3D9 clamps the colour inputs of ps_1_x / ps_2_x (dxso-draw clamps them at
///   the vertex, which equals clamping each interpolated value).
pub(super) fn finish_vertex(
    m: &mut Module,
    entry: &str,
    dx: f32,
    dy: f32,
    clamp: &[u32],
) -> Result<(), Error> {
    let bad = |what: &str| Error::Interface(format!("the vertex entry {entry}: {what}"));
    let ep = m
        .entry_points
        .iter_mut()
        .find(|e| e.name == entry)
        .ok_or_else(|| bad("not found"))?;
    let result_ty = ep
        .function
        .result
        .as_ref()
        .ok_or_else(|| bad("returns nothing"))?
        .ty;
    let TypeInner::Struct { members, .. } = &m.types[result_ty].inner else {
        return Err(bad("does not return a struct"));
    };
    let position = members
        .iter()
        .position(|mb| matches!(mb.binding, Some(Binding::BuiltIn(BuiltIn::Position { .. }))))
        .ok_or_else(|| bad("returns no position"))?;
    let clamped: Vec<usize> = members
        .iter()
        .enumerate()
        .filter(|(_, mb)| {
            matches!(mb.binding, Some(Binding::Location { location, .. }) if clamp.contains(&location))
        })
        .map(|(k, _)| k)
        .collect();
    let vec_ty = members[position].ty;
    let f = &mut ep.function;
    let last = f
        .body
        .len()
        .checked_sub(1)
        .ok_or_else(|| bad("has an empty body"))?;
    let ret = match f.body.span_iter().last() {
        Some((Statement::Return { value: Some(r) }, _)) => *r,
        _ => return Err(bad("does not end with a return")),
    };
    let Expression::Compose { ty, mut components } = f.expressions[ret].clone() else {
        return Err(bad("does not return a composed struct"));
    };
    if components.len() != members.len() {
        return Err(bad("returns a struct of another shape"));
    }
    let e = &mut f.expressions;
    let kx = push(e, Expression::Literal(Literal::F32(dx)));
    let ky = push(e, Expression::Literal(Literal::F32(dy)));
    let zero = push(e, Expression::Literal(Literal::F32(0.0)));
    let one = push(e, Expression::Literal(Literal::F32(1.0)));
    let first = push(
        e,
        Expression::Compose {
            ty: vec_ty,
            components: vec![kx, ky, zero, zero],
        },
    );
    let pos = components[position];
    let w = push(
        e,
        Expression::AccessIndex {
            base: pos,
            index: 3,
        },
    );
    let ws = push(
        e,
        Expression::Splat {
            size: VectorSize::Quad,
            value: w,
        },
    );
    let shift = push(
        e,
        Expression::Binary {
            op: BinaryOperator::Multiply,
            left: first,
            right: ws,
        },
    );
    components[position] = push(
        e,
        Expression::Binary {
            op: BinaryOperator::Add,
            left: pos,
            right: shift,
        },
    );
    let zeros = push(
        e,
        Expression::Splat {
            size: VectorSize::Quad,
            value: zero,
        },
    );
    let ones = push(
        e,
        Expression::Splat {
            size: VectorSize::Quad,
            value: one,
        },
    );
    for k in clamped {
        let x = components[k];
        let above = push(
            e,
            Expression::Binary {
                op: BinaryOperator::Greater,
                left: x,
                right: zeros,
            },
        );
        let low = push(
            e,
            Expression::Math {
                fun: MathFunction::Min,
                arg: x,
                arg1: Some(ones),
                arg2: None,
                arg3: None,
            },
        );
        components[k] = push(
            e,
            Expression::Select {
                condition: above,
                accept: low,
                reject: zeros,
            },
        );
    }
    let out = push(e, Expression::Compose { ty, components });
    let mut inserted = naga::Block::new();
    inserted.push(
        Statement::Emit(naga::Range::new_from_bounds(first, out)),
        Span::UNDEFINED,
    );
    inserted.push(Statement::Return { value: Some(out) }, Span::UNDEFINED);
    f.body.splice(last..last + 1, inserted);
    Ok(())
}
