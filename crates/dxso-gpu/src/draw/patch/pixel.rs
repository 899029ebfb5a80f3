//! The fragment entry's additions: flat inputs, fog, the alpha test, depth bias.

use super::*;

/// Make the fragment entry's inputs at `flat` locations flat (the provoking vertex's value).
pub(in crate::draw) fn flat_inputs(m: &mut Module, entry: &str, flat: &[u32]) -> Result<(), Error> {
    let ep = m
        .entry_points
        .iter_mut()
        .find(|e| e.name == entry)
        .ok_or_else(|| Error::Interface(format!("the fragment entry {entry}: not found")))?;
    for a in &mut ep.function.arguments {
        if let Some(Binding::Location {
            location,
            interpolation,
            sampling,
            ..
        }) = &mut a.binding
            && flat.contains(location)
        {
            *interpolation = Some(naga::Interpolation::Flat);
            *sampling = None;
        }
    }
    Ok(())
}

/// Where the fog factor of a pixel comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::draw) enum FogFactor {
    /// A component of the vertex stage's output at `location` (oFog's x, or without a
    /// vertex shader the specular colour's alpha), interpolated.
    Vertex { location: u32, component: u32 },
    /// Table fog from the pixel's depth: `FOGTABLEMODE` EXP (1), EXP2 (2) or LINEAR (3).
    Table {
        mode: u32,
        start: f32,
        end: f32,
        density: f32,
    },
}

/// What the fragment entry adds after the shader: fixed-function fog into oC0's colour
/// (`k·c + (1 − k)·FOGCOLOR`, k clamped to [0, 1]), then the alpha test on oC0's alpha
/// clamped to [0, 1] against `ALPHAREF / 255` (`func` a `D3DCMPFUNC`; a failing pixel is
/// discarded), as dxso-draw's output merger does them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::draw) struct PixelTail {
    pub fog: Option<(FogFactor, [f32; 3])>,
    pub alpha_test: Option<(u32, f32)>,
    /// `DEPTHBIAS` and `SLOPESCALEDEPTHBIAS`: the pixel's depth plus
    /// `bias + slope · max(|∂z/∂x|, |∂z/∂y|)` (clamped to [0, 1]) where the shader writes no
    /// depth of its own.
    pub depth_bias: Option<(f32, f32)>,
}

/// The fog factor's expression before clamping; `arg` is the argument it reads.
fn fog_factor(
    e: &mut naga::Arena<Expression>,
    factor: FogFactor,
    arg: Handle<Expression>,
) -> Handle<Expression> {
    let lit =
        |e: &mut naga::Arena<Expression>, x: f32| push(e, Expression::Literal(Literal::F32(x)));
    match factor {
        FogFactor::Vertex { component, .. } => push(
            e,
            Expression::AccessIndex {
                base: arg,
                index: component,
            },
        ),
        FogFactor::Table {
            mode,
            start,
            end,
            density,
        } => {
            let z = push(
                e,
                Expression::AccessIndex {
                    base: arg,
                    index: 2,
                },
            );
            match mode {
                1 => {
                    let d = lit(e, -density);
                    let t = bin(e, BinaryOperator::Multiply, d, z);
                    push(e, math1(MathFunction::Exp, t))
                }
                2 => {
                    let d = lit(e, density);
                    let t = bin(e, BinaryOperator::Multiply, d, z);
                    let t2 = bin(e, BinaryOperator::Multiply, t, t);
                    let n = push(
                        e,
                        Expression::Unary {
                            op: naga::UnaryOperator::Negate,
                            expr: t2,
                        },
                    );
                    push(e, math1(MathFunction::Exp, n))
                }
                _ => {
                    let end_k = lit(e, end);
                    let span = lit(e, end - start);
                    let num = bin(e, BinaryOperator::Subtract, end_k, z);
                    bin(e, BinaryOperator::Divide, num, span)
                }
            }
        }
    }
}

/// Add fog and the alpha test ([`PixelTail`]) to the fragment entry `entry`.
pub(in crate::draw) fn finish_pixel(
    m: &mut Module,
    entry: &str,
    tail: &PixelTail,
) -> Result<(), Error> {
    if tail.fog.is_none() && tail.alpha_test.is_none() && tail.depth_bias.is_none() {
        return Ok(());
    }
    let bad = |what: &str| Error::Interface(format!("the fragment entry {entry}: {what}"));
    let ep = m
        .entry_points
        .iter_mut()
        .find(|e| e.name == entry)
        .ok_or_else(|| bad("not found"))?;
    let no_oc0 = || Error::Refused(crate::Refusal::NoOc0);
    let result_ty = ep.function.result.as_ref().ok_or_else(no_oc0)?.ty;
    let TypeInner::Struct { members, .. } = &m.types[result_ty].inner else {
        return Err(bad("does not return a struct"));
    };
    let oc0 = members
        .iter()
        .position(|mb| matches!(mb.binding, Some(Binding::Location { location: 0, .. })))
        .ok_or_else(no_oc0)?;
    let vec_ty = members[oc0].ty;
    let writes_depth = members
        .iter()
        .any(|mb| matches!(mb.binding, Some(Binding::BuiltIn(BuiltIn::FragDepth))));
    // Depth bias: a frag_depth member added to the result.
    let bias = tail.depth_bias.filter(|_| !writes_depth);
    let new_ty = bias.map(|_| depth_result_type(&mut m.types, result_ty));
    if let (Some(t), Some(r)) = (new_ty, ep.function.result.as_mut()) {
        r.ty = t;
    }
    let f = &mut ep.function;
    let (last, ty, mut components) = returned_struct(f, &bad)?;
    let arg = tail.fog.map(|(factor, _)| fog_argument(f, factor, vec_ty));
    let position = bias.map(|_| {
        argument(
            f,
            Binding::BuiltIn(BuiltIn::Position { invariant: false }),
            vec_ty,
        )
    });
    // The depth's slope, at the entry's start: derivatives need uniform control flow, which a
    // `texkill` in the body ends.
    let (start, steepest) = match (bias, position) {
        (Some((_, slope)), Some(pos)) if slope != 0.0 => {
            let (steepest, start) = depth_slope(&mut f.expressions, pos);
            (start, Some(steepest))
        }
        _ => (naga::Block::new(), None),
    };
    let from = f.expressions.len();
    let e = &mut f.expressions;
    let zero = lit(e, 0.0);
    let one = lit(e, 1.0);
    if let (Some((factor, rgb)), Some(arg)) = (tail.fog, arg) {
        let c = components[oc0];
        components[oc0] = fogged(e, c, (factor, rgb), arg, vec_ty, [zero, one]);
    }
    if let (Some((b, slope)), Some(pos)) = (bias, position) {
        components.push(biased_depth(e, pos, (b, slope), steepest, [zero, one]));
    }
    let kill = tail
        .alpha_test
        .and_then(|test| alpha_kill(e, components[oc0], test, [zero, one]));
    let out = push(
        e,
        Expression::Compose {
            ty: new_ty.unwrap_or(ty),
            components,
        },
    );
    let mut inserted = emits(e, from);
    if let Some(condition) = kill {
        inserted.push(
            Statement::If {
                condition,
                accept: naga::Block::from_vec(vec![Statement::Kill]),
                reject: naga::Block::new(),
            },
            Span::UNDEFINED,
        );
    }
    inserted.push(Statement::Return { value: Some(out) }, Span::UNDEFINED);
    f.body.splice(last..last + 1, inserted);
    f.body.splice(0..0, start);
    Ok(())
}

/// The fragment entry's result struct `result_ty` with a `frag_depth` member appended.
fn depth_result_type(
    types: &mut naga::UniqueArena<naga::Type>,
    result_ty: Handle<naga::Type>,
) -> Handle<naga::Type> {
    let mut t = types[result_ty].clone();
    let f32_ty = types.insert(
        naga::Type {
            name: None,
            inner: TypeInner::Scalar(naga::Scalar::F32),
        },
        Span::UNDEFINED,
    );
    if let TypeInner::Struct { members, span } = &mut t.inner {
        members.push(naga::StructMember {
            name: Some("dxso_depth".into()),
            ty: f32_ty,
            binding: Some(Binding::BuiltIn(BuiltIn::FragDepth)),
            offset: *span,
        });
        *span += 16;
    }
    types.insert(t, Span::UNDEFINED)
}

/// The entry argument the fog factor reads: the interpolated vertex output, or for table
/// fog the pixel's position.
fn fog_argument(
    f: &mut naga::Function,
    factor: FogFactor,
    vec_ty: Handle<naga::Type>,
) -> Handle<Expression> {
    let binding = match factor {
        FogFactor::Vertex { location, .. } => Binding::Location {
            location,
            interpolation: Some(naga::Interpolation::Perspective),
            sampling: Some(naga::Sampling::Center),
            blend_src: None,
            per_primitive: false,
        },
        FogFactor::Table { .. } => Binding::BuiltIn(BuiltIn::Position { invariant: false }),
    };
    argument(f, binding, vec_ty)
}

/// The depth's steepest slope `max(|∂z/∂x|, |∂z/∂y|)` of the position `pos`, and the `Emit`
/// statements that evaluate it.
fn depth_slope(
    e: &mut naga::Arena<Expression>,
    pos: Handle<Expression>,
) -> (Handle<Expression>, naga::Block) {
    let begin = e.len();
    let z = push(
        e,
        Expression::AccessIndex {
            base: pos,
            index: 2,
        },
    );
    let d = |e: &mut naga::Arena<Expression>, axis| {
        let d = push(
            e,
            Expression::Derivative {
                axis,
                ctrl: naga::DerivativeControl::None,
                expr: z,
            },
        );
        push(e, math1(MathFunction::Abs, d))
    };
    let dx = d(e, naga::DerivativeAxis::X);
    let dy = d(e, naga::DerivativeAxis::Y);
    let steepest = push(
        e,
        Expression::Math {
            fun: MathFunction::Max,
            arg: dx,
            arg1: Some(dy),
            arg2: None,
            arg3: None,
        },
    );
    (steepest, emits(e, begin))
}

/// The colour `c` fogged: its rgb `k·c + (1 − k)·rgb` with the fog factor `k` clamped to
/// [0, 1] (read from `arg`), its alpha kept.
fn fogged(
    e: &mut naga::Arena<Expression>,
    c: Handle<Expression>,
    (factor, rgb): (FogFactor, [f32; 3]),
    arg: Handle<Expression>,
    vec_ty: Handle<naga::Type>,
    [zero, one]: [Handle<Expression>; 2],
) -> Handle<Expression> {
    let raw = fog_factor(e, factor, arg);
    let k = clamp01(e, raw, zero, one);
    let kv = push(
        e,
        Expression::Splat {
            size: VectorSize::Quad,
            value: k,
        },
    );
    let inv = bin(e, BinaryOperator::Subtract, one, k);
    let iv = push(
        e,
        Expression::Splat {
            size: VectorSize::Quad,
            value: inv,
        },
    );
    let fc: Vec<_> = [rgb[0], rgb[1], rgb[2], 0.0]
        .iter()
        .map(|&x| lit(e, x))
        .collect();
    let fcv = push(
        e,
        Expression::Compose {
            ty: vec_ty,
            components: fc,
        },
    );
    let a = bin(e, BinaryOperator::Multiply, kv, c);
    let b = bin(e, BinaryOperator::Multiply, iv, fcv);
    let mixed = bin(e, BinaryOperator::Add, a, b);
    let parts: Vec<_> = (0..4)
        .map(|i| {
            let base = if i < 3 { mixed } else { c };
            push(e, Expression::AccessIndex { base, index: i })
        })
        .collect();
    push(
        e,
        Expression::Compose {
            ty: vec_ty,
            components: parts,
        },
    )
}

/// The biased depth: the z of `pos` plus `bias` and `slope` times the `steepest` slope
/// (where there is one), clamped to [0, 1].
fn biased_depth(
    e: &mut naga::Arena<Expression>,
    pos: Handle<Expression>,
    (bias, slope): (f32, f32),
    steepest: Option<Handle<Expression>>,
    [zero, one]: [Handle<Expression>; 2],
) -> Handle<Expression> {
    let z = push(
        e,
        Expression::AccessIndex {
            base: pos,
            index: 2,
        },
    );
    let mut b = lit(e, bias);
    if let Some(m) = steepest {
        let k = lit(e, slope);
        let t = bin(e, BinaryOperator::Multiply, k, m);
        b = bin(e, BinaryOperator::Add, b, t);
    }
    let zb = bin(e, BinaryOperator::Add, z, b);
    clamp01(e, zb, zero, one)
}

/// The alpha test of the colour `c`: the condition that discards the pixel (its alpha
/// clamped to [0, 1] failing `func` against `reference`), or `None` where it always passes.
fn alpha_kill(
    e: &mut naga::Arena<Expression>,
    c: Handle<Expression>,
    (func, reference): (u32, f32),
    [zero, one]: [Handle<Expression>; 2],
) -> Option<Handle<Expression>> {
    let a = push(e, Expression::AccessIndex { base: c, index: 3 });
    let a = clamp01(e, a, zero, one);
    let r = lit(e, reference);
    let op = match func {
        2 => Some(BinaryOperator::Less),
        3 => Some(BinaryOperator::Equal),
        4 => Some(BinaryOperator::LessEqual),
        5 => Some(BinaryOperator::Greater),
        6 => Some(BinaryOperator::NotEqual),
        7 => Some(BinaryOperator::GreaterEqual),
        _ => None,
    };
    match (func, op) {
        (1, _) => Some(push(e, Expression::Literal(Literal::Bool(true)))),
        (_, Some(op)) => {
            let pass = bin(e, op, a, r);
            Some(push(
                e,
                Expression::Unary {
                    op: naga::UnaryOperator::LogicalNot,
                    expr: pass,
                },
            ))
        }
        _ => None,
    }
}
