//! Changes to translated entry points that D3D9 needs and GPUs lack, made in naga IR: the
//! vertex entry's ([`vertex`]: the pixel-centre offset, clamped colours, flat members, clip
//! distances, constant outputs, points) and the fragment entry's ([`pixel`]: flat inputs, fog,
//! the alpha test, depth bias); here, the expression helpers both use.

use crate::Error;
use naga::{
    BinaryOperator, Binding, BuiltIn, Expression, Handle, Literal, MathFunction, Module, Span,
    Statement, TypeInner, VectorSize,
};

mod inputs;
mod pixel;
mod vertex;

pub(super) use inputs::{
    Convert, Decode, Element, FIRST_BINDING, Input, STORAGE_GROUP, Step, fetch_inputs,
};
pub(super) use pixel::{FogFactor, PixelTail, finish_pixel, flat_inputs};
pub(super) use vertex::{Points, VertexTail, finish_vertex};

fn push(e: &mut naga::Arena<Expression>, x: Expression) -> Handle<Expression> {
    e.append(x, Span::UNDEFINED)
}

/// An `f32` literal.
fn lit(e: &mut naga::Arena<Expression>, x: f32) -> Handle<Expression> {
    push(e, Expression::Literal(Literal::F32(x)))
}

/// An entry's closing `return` of a composed struct: the statement's index in the body, the
/// struct's type and its components.
type Returned = (usize, Handle<naga::Type>, Vec<Handle<Expression>>);

/// The entry's closing `return` of a composed struct ([`Returned`]; `bad` words the error).
fn returned_struct(f: &naga::Function, bad: &dyn Fn(&str) -> Error) -> Result<Returned, Error> {
    let last = f
        .body
        .len()
        .checked_sub(1)
        .ok_or_else(|| bad("has an empty body"))?;
    let ret = match f.body.span_iter().last() {
        Some((Statement::Return { value: Some(r) }, _)) => *r,
        _ => return Err(bad("does not end with a return")),
    };
    let Expression::Compose { ty, components } = f.expressions[ret].clone() else {
        return Err(bad("does not return a composed struct"));
    };
    Ok((last, ty, components))
}

/// `x > 0 ? min(x, 1) : 0` of a scalar or vector `x` (`zero`, `one` of its shape).
fn clamp01(
    e: &mut naga::Arena<Expression>,
    x: Handle<Expression>,
    zero: Handle<Expression>,
    one: Handle<Expression>,
) -> Handle<Expression> {
    let above = push(
        e,
        Expression::Binary {
            op: BinaryOperator::Greater,
            left: x,
            right: zero,
        },
    );
    let low = push(
        e,
        Expression::Math {
            fun: MathFunction::Min,
            arg: x,
            arg1: Some(one),
            arg2: None,
            arg3: None,
        },
    );
    push(
        e,
        Expression::Select {
            condition: above,
            accept: low,
            reject: zero,
        },
    )
}

fn bin(
    e: &mut naga::Arena<Expression>,
    op: BinaryOperator,
    left: Handle<Expression>,
    right: Handle<Expression>,
) -> Handle<Expression> {
    push(e, Expression::Binary { op, left, right })
}

fn math1(fun: MathFunction, arg: Handle<Expression>) -> Expression {
    Expression::Math {
        fun,
        arg,
        arg1: None,
        arg2: None,
        arg3: None,
    }
}

/// `Emit` statements for the expressions from index `from` on that need one (runs that skip
/// literals and arguments, which are in scope from the start).
fn emits(e: &naga::Arena<Expression>, from: usize) -> naga::Block {
    let mut block = naga::Block::new();
    let mut run: Option<(Handle<Expression>, Handle<Expression>)> = None;
    for (h, x) in e.iter().skip(from) {
        if x.needs_pre_emit() {
            if let Some((a, b)) = run.take() {
                block.push(
                    Statement::Emit(naga::Range::new_from_bounds(a, b)),
                    Span::UNDEFINED,
                );
            }
        } else {
            run = Some(run.map_or((h, h), |(a, _)| (a, h)));
        }
    }
    if let Some((a, b)) = run {
        block.push(
            Statement::Emit(naga::Range::new_from_bounds(a, b)),
            Span::UNDEFINED,
        );
    }
    block
}

/// The expression of the entry argument with `binding` (added, of type `ty`, if the entry
/// has none).
fn argument(
    f: &mut naga::Function,
    binding: Binding,
    ty: Handle<naga::Type>,
) -> Handle<Expression> {
    let k = match f
        .arguments
        .iter()
        .position(|a| a.binding.as_ref() == Some(&binding))
    {
        Some(k) => k,
        None => {
            f.arguments.push(naga::FunctionArgument {
                name: Some(format!("dxso_in{}", f.arguments.len())),
                ty,
                binding: Some(binding),
            });
            f.arguments.len() - 1
        }
    };
    push(&mut f.expressions, Expression::FunctionArgument(k as u32))
}
