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

/// What [`finish_vertex`] adds to a vertex entry.
#[derive(Clone, Copy, Debug)]
pub(super) struct VertexTail<'a> {
    /// The pixel-centre offset in clip space (times w).
    pub offset: [f32; 2],
    /// Locations clamped to [0, 1].
    pub clamp: &'a [u32],
    /// Locations made flat.
    pub flat: &'a [u32],
    /// User clip planes (clip distances).
    pub planes: &'a [[f32; 4]],
    /// Outputs added at these locations with these values (pixel shader inputs the vertex
    /// stage does not write).
    pub constants: &'a [(u32, [f32; 4])],
    /// Points drawn as quads: instance i is point i, vertex 0..6 a corner of its two
    /// triangles.
    pub points: Option<&'a Points>,
}

/// Points larger than a pixel (or sprites) as quads.
#[derive(Clone, Debug)]
pub(super) struct Points {
    /// Half the point's side in clip space (times w): `size / W`, `−size / H`.
    pub half: [f32; 2],
    /// Sprites: the locations that read (u, v, 0, 1) across the point.
    pub sprite: Vec<u32>,
    /// `POSITIONT` points: drawn wherever their centre is (no view-volume test, as on the
    /// CPU).
    pub screen_space: bool,
    /// The location of a `PSIZE` output: its x is the size (clamped to `limits`, then to
    /// 0..8192, 1 where not finite, as the CPU draw does) instead of `half`'s.
    pub psize: Option<u32>,
    /// `POINTSIZE_MIN`, `POINTSIZE_MAX`.
    pub limits: [f32; 2],
    /// Clip space per pixel (times w): `1/W`, `−1/H`.
    pub per_pixel: [f32; 2],
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
pub(super) fn finish_vertex(m: &mut Module, entry: &str, tail: &VertexTail) -> Result<(), Error> {
    let VertexTail {
        offset: [dx, dy],
        planes,
        points,
        ..
    } = *tail;
    let u32_ty = points.map(|_| {
        m.types.insert(
            naga::Type {
                name: None,
                inner: TypeInner::Scalar(naga::Scalar::U32),
            },
            Span::UNDEFINED,
        )
    });
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
    let mb = vertex_members(members, tail).ok_or_else(|| bad("returns no position"))?;
    let vec_ty = mb.vec_ty;
    // Flat shading: the members at `flat` locations take the provoking (first) vertex's
    // value; user clip planes: a clip-distance member, `dot(plane, position)` each.
    let new_ty = vertex_result_type(&mut m.types, result_ty, tail, vec_ty);
    let clip_ty = new_ty.and_then(|t| t.1);
    let new_ty = new_ty.map(|t| t.0);
    if let Some(t) = new_ty
        && let Some(r) = ep.function.result.as_mut()
    {
        r.ty = t;
    }
    let f = &mut ep.function;
    let (last, ty, mut components) = returned_struct(f, &bad)?;
    if components.len() != mb.count {
        return Err(bad("returns a struct of another shape"));
    }
    let from = f.expressions.len();
    let vertex_index = u32_ty.map(|t| argument(f, Binding::BuiltIn(BuiltIn::VertexIndex), t));
    let e = &mut f.expressions;
    let kx = lit(e, dx);
    let ky = lit(e, dy);
    let zero = lit(e, 0.0);
    let one = lit(e, 1.0);
    let first = push(
        e,
        Expression::Compose {
            ty: vec_ty,
            components: vec![kx, ky, zero, zero],
        },
    );
    let original = components[mb.position];
    let corner = points.zip(vertex_index);
    let sprite_uv = offset_position(e, &mut components, &mb, corner, first, [zero, one]);
    if let Some(arr) = clip_ty {
        clip_distances(e, &mut components, planes, original, vec_ty, arr);
    }
    constant_outputs(e, &mut components, tail, sprite_uv, vec_ty, [zero, one]);
    clamp_members(e, &mut components, &mb.clamped, zero, one);
    let out = push(
        e,
        Expression::Compose {
            ty: new_ty.unwrap_or(ty),
            components,
        },
    );
    let mut inserted = emits(e, from);
    inserted.push(Statement::Return { value: Some(out) }, Span::UNDEFINED);
    f.body.splice(last..last + 1, inserted);
    Ok(())
}

/// An `f32` literal.
fn lit(e: &mut naga::Arena<Expression>, x: f32) -> Handle<Expression> {
    push(e, Expression::Literal(Literal::F32(x)))
}

/// The members of a vertex entry's result struct that [`finish_vertex`] reads or rewrites.
struct VertexMembers {
    /// The clip-space position.
    position: usize,
    /// The members at `clamp` locations.
    clamped: Vec<usize>,
    /// The `PSIZE` member of points.
    psize: Option<usize>,
    /// The members at sprite locations of points.
    sprite: Vec<usize>,
    /// The position's type (a four-vector of `f32`).
    vec_ty: Handle<naga::Type>,
    /// How many members the struct has.
    count: usize,
}

/// Find the [`VertexMembers`] of `tail` among `members` (`None` without a position).
fn vertex_members(members: &[naga::StructMember], tail: &VertexTail) -> Option<VertexMembers> {
    let VertexTail { clamp, points, .. } = *tail;
    let position = members
        .iter()
        .position(|mb| matches!(mb.binding, Some(Binding::BuiltIn(BuiltIn::Position { .. }))))?;
    let clamped: Vec<usize> = members
        .iter()
        .enumerate()
        .filter(|(_, mb)| {
            matches!(mb.binding, Some(Binding::Location { location, .. }) if clamp.contains(&location))
        })
        .map(|(k, _)| k)
        .collect();
    let psize = members.iter().position(|mb| {
        matches!(mb.binding, Some(Binding::Location { location, .. })
            if points.is_some_and(|p| p.psize == Some(location)))
    });
    let sprite: Vec<usize> = members
        .iter()
        .enumerate()
        .filter(|(_, mb)| {
            matches!(mb.binding, Some(Binding::Location { location, .. })
                if points.is_some_and(|p| p.sprite.contains(&location)))
        })
        .map(|(k, _)| k)
        .collect();
    Some(VertexMembers {
        position,
        clamped,
        psize,
        sprite,
        vec_ty: members[position].ty,
        count: members.len(),
    })
}

/// The vertex entry's result struct `result_ty` with the members at `flat` locations made
/// flat, and a clip-distance member (`planes`) and the `constants` outputs appended: the new
/// struct and the clip distances' array type, or `None` where `tail` adds none of these.
fn vertex_result_type(
    types: &mut naga::UniqueArena<naga::Type>,
    result_ty: Handle<naga::Type>,
    tail: &VertexTail,
    vec_ty: Handle<naga::Type>,
) -> Option<(Handle<naga::Type>, Option<Handle<naga::Type>>)> {
    let VertexTail {
        flat,
        planes,
        constants,
        ..
    } = *tail;
    if flat.is_empty() && planes.is_empty() && constants.is_empty() {
        return None;
    }
    let mut t = types[result_ty].clone();
    let f32_ty = types.insert(
        naga::Type {
            name: None,
            inner: TypeInner::Scalar(naga::Scalar::F32),
        },
        Span::UNDEFINED,
    );
    let clip_ty = std::num::NonZeroU32::new(planes.len() as u32).map(|n| {
        types.insert(
            naga::Type {
                name: None,
                inner: TypeInner::Array {
                    base: f32_ty,
                    size: naga::ArraySize::Constant(n),
                    stride: 4,
                },
            },
            Span::UNDEFINED,
        )
    });
    if let TypeInner::Struct { members, span } = &mut t.inner {
        for mb in members.iter_mut() {
            if let Some(Binding::Location {
                location,
                interpolation,
                sampling,
                ..
            }) = &mut mb.binding
                && flat.contains(location)
            {
                *interpolation = Some(naga::Interpolation::Flat);
                *sampling = None;
            }
        }
        if let Some(ty) = clip_ty {
            members.push(naga::StructMember {
                name: Some("dxso_clip".into()),
                ty,
                binding: Some(Binding::BuiltIn(BuiltIn::ClipDistances)),
                offset: *span,
            });
            *span += (4 * planes.len() as u32).next_multiple_of(16);
        }
        for (k, &(location, _)) in constants.iter().enumerate() {
            members.push(naga::StructMember {
                name: Some(format!("dxso_unwritten{k}")),
                ty: vec_ty,
                binding: Some(Binding::Location {
                    location,
                    interpolation: Some(naga::Interpolation::Perspective),
                    sampling: Some(naga::Sampling::Center),
                    blend_src: None,
                    per_primitive: false,
                }),
                offset: *span,
            });
            *span += 16;
        }
    }
    Some((types.insert(t, Span::UNDEFINED), clip_ty))
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

/// Add the pixel-centre offset `first · w` to the position member of `components`; for
/// points (and the vertex index) first move it to its quad corner ([`point_corner`]) and
/// set the sprite members to the corner's (u, v, 0, 1). The corner's (u, v) for points.
fn offset_position(
    e: &mut naga::Arena<Expression>,
    components: &mut [Handle<Expression>],
    mb: &VertexMembers,
    points: Option<(&Points, Handle<Expression>)>,
    first: Handle<Expression>,
    [zero, one]: [Handle<Expression>; 2],
) -> Option<(Handle<Expression>, Handle<Expression>)> {
    let mut pos = components[mb.position];
    let mut sprite_uv = None;
    if let Some((p, vi)) = points {
        let psize = mb.psize.map(|k| components[k]);
        let (moved, u, v) = point_corner(e, pos, vi, p, psize, mb.vec_ty);
        pos = moved;
        sprite_uv = Some((u, v));
        for &k in &mb.sprite {
            components[k] = push(
                e,
                Expression::Compose {
                    ty: mb.vec_ty,
                    components: vec![u, v, zero, one],
                },
            );
        }
    }
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
    components[mb.position] = push(
        e,
        Expression::Binary {
            op: BinaryOperator::Add,
            left: pos,
            right: shift,
        },
    );
    sprite_uv
}

/// Append the clip distances to `components`: an array (of type `arr`) of
/// `dot(plane, position)` for each of `planes`, with the shader's own `position`.
fn clip_distances(
    e: &mut naga::Arena<Expression>,
    components: &mut Vec<Handle<Expression>>,
    planes: &[[f32; 4]],
    position: Handle<Expression>,
    vec_ty: Handle<naga::Type>,
    arr: Handle<naga::Type>,
) {
    let mut dots = Vec::new();
    for p in planes {
        let k: Vec<_> = p.iter().map(|&x| lit(e, x)).collect();
        let plane = push(
            e,
            Expression::Compose {
                ty: vec_ty,
                components: k,
            },
        );
        dots.push(push(
            e,
            Expression::Math {
                fun: MathFunction::Dot,
                arg: plane,
                arg1: Some(position),
                arg2: None,
                arg3: None,
            },
        ));
    }
    components.push(push(
        e,
        Expression::Compose {
            ty: arr,
            components: dots,
        },
    ));
}

/// Append the `constants` outputs of `tail` to `components`: their values, or at a sprite
/// location of points the corner's (u, v, 0, 1) (`sprite_uv`).
fn constant_outputs(
    e: &mut naga::Arena<Expression>,
    components: &mut Vec<Handle<Expression>>,
    tail: &VertexTail,
    sprite_uv: Option<(Handle<Expression>, Handle<Expression>)>,
    vec_ty: Handle<naga::Type>,
    [zero, one]: [Handle<Expression>; 2],
) {
    for &(location, v) in tail.constants {
        let sprite = tail.points.is_some_and(|p| p.sprite.contains(&location));
        let k: Vec<_> = match sprite_uv {
            Some((su, sv)) if sprite => vec![su, sv, zero, one],
            _ => v.iter().map(|&x| lit(e, x)).collect(),
        };
        components.push(push(
            e,
            Expression::Compose {
                ty: vec_ty,
                components: k,
            },
        ));
    }
}

/// Clamp the `clamped` members of `components` (four-vectors) to [0, 1] ([`clamp01`]).
fn clamp_members(
    e: &mut naga::Arena<Expression>,
    components: &mut [Handle<Expression>],
    clamped: &[usize],
    zero: Handle<Expression>,
    one: Handle<Expression>,
) {
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
    for &k in clamped {
        components[k] = clamp01(e, components[k], zeros, ones);
    }
}

/// Make the fragment entry's inputs at `flat` locations flat (the provoking vertex's value).
pub(super) fn flat_inputs(m: &mut Module, entry: &str, flat: &[u32]) -> Result<(), Error> {
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
pub(super) enum FogFactor {
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
pub(super) struct PixelTail {
    pub fog: Option<(FogFactor, [f32; 3])>,
    pub alpha_test: Option<(u32, f32)>,
    /// `DEPTHBIAS` and `SLOPESCALEDEPTHBIAS`: the pixel's depth plus
    /// `bias + slope · max(|∂z/∂x|, |∂z/∂y|)` (clamped to [0, 1]) where the shader writes no
    /// depth of its own.
    pub depth_bias: Option<(f32, f32)>,
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

/// Add fog and the alpha test ([`PixelTail`]) to the fragment entry `entry`.
pub(super) fn finish_pixel(m: &mut Module, entry: &str, tail: &PixelTail) -> Result<(), Error> {
    if tail.fog.is_none() && tail.alpha_test.is_none() && tail.depth_bias.is_none() {
        return Ok(());
    }
    let bad = |what: &str| Error::Interface(format!("the fragment entry {entry}: {what}"));
    let ep = m
        .entry_points
        .iter_mut()
        .find(|e| e.name == entry)
        .ok_or_else(|| bad("not found"))?;
    let no_oc0 =
        || Error::Refused("the alpha test or fog of a pixel shader that writes no oC0".into());
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

/// A point's quad corner: vertex `vi` (0..6, two clockwise triangles) of the square of
/// half-side `p.half` (clip space, times w) around `pos`, or a position outside the view
/// volume where the point's centre is outside it (D3D9 draws a point whole or not at all;
/// `POSITIONT` points are not tested); and the corner's sprite coordinates (u, v).
fn point_corner(
    e: &mut naga::Arena<Expression>,
    pos: Handle<Expression>,
    vi: Handle<Expression>,
    p: &Points,
    psize: Option<Handle<Expression>>,
    vec_ty: Handle<naga::Type>,
) -> (Handle<Expression>, Handle<Expression>, Handle<Expression>) {
    let f = |e: &mut naga::Arena<Expression>, x: f32| push(e, Expression::Literal(Literal::F32(x)));
    let (zero, one, minus) = (f(e, 0.0), f(e, 1.0), f(e, -1.0));
    let (hx, hy) = match psize {
        None => (f(e, p.half[0]), f(e, p.half[1])),
        Some(v) => {
            let size = point_size(e, v, p.limits, zero, one);
            let (px, py) = (f(e, p.per_pixel[0]), f(e, p.per_pixel[1]));
            (
                bin(e, BinaryOperator::Multiply, size, px),
                bin(e, BinaryOperator::Multiply, size, py),
            )
        }
    };
    let ks: Vec<_> = (0..6)
        .map(|k| push(e, Expression::Literal(Literal::U32(k))))
        .collect();
    let any = |e: &mut naga::Arena<Expression>, of: [usize; 3]| {
        let eq: Vec<_> = of
            .iter()
            .map(|&k| bin(e, BinaryOperator::Equal, vi, ks[k]))
            .collect();
        let a = bin(e, BinaryOperator::LogicalOr, eq[0], eq[1]);
        bin(e, BinaryOperator::LogicalOr, a, eq[2])
    };
    // Corners (−1, −1), (1, −1), (−1, 1); (−1, 1), (1, −1), (1, 1): x right, y down.
    let right = any(e, [1, 4, 5]);
    let low = any(e, [2, 3, 5]);
    let select = |e: &mut naga::Arena<Expression>, c, a, b| {
        push(
            e,
            Expression::Select {
                condition: c,
                accept: a,
                reject: b,
            },
        )
    };
    let cx = select(e, right, one, minus);
    let cy = select(e, low, one, minus);
    let ox = bin(e, BinaryOperator::Multiply, cx, hx);
    let oy = bin(e, BinaryOperator::Multiply, cy, hy);
    let off = push(
        e,
        Expression::Compose {
            ty: vec_ty,
            components: vec![ox, oy, zero, zero],
        },
    );
    let c = |e: &mut naga::Arena<Expression>, i| {
        push(
            e,
            Expression::AccessIndex {
                base: pos,
                index: i,
            },
        )
    };
    let (x, y, z, w) = (c(e, 0), c(e, 1), c(e, 2), c(e, 3));
    let ws = push(
        e,
        Expression::Splat {
            size: VectorSize::Quad,
            value: w,
        },
    );
    let scaled = bin(e, BinaryOperator::Multiply, off, ws);
    let moved = bin(e, BinaryOperator::Add, pos, scaled);
    let ax = push(e, math1(MathFunction::Abs, x));
    let ay = push(e, math1(MathFunction::Abs, y));
    let tests = [
        bin(e, BinaryOperator::LessEqual, ax, w),
        bin(e, BinaryOperator::LessEqual, ay, w),
        bin(e, BinaryOperator::GreaterEqual, z, zero),
        bin(e, BinaryOperator::LessEqual, z, w),
        bin(e, BinaryOperator::Greater, w, zero),
    ];
    let mut inside = tests[0];
    for &t in &tests[1..] {
        inside = bin(e, BinaryOperator::LogicalAnd, inside, t);
    }
    let away = push(
        e,
        Expression::Compose {
            ty: vec_ty,
            components: vec![zero, zero, minus, one],
        },
    );
    let corner = if p.screen_space {
        moved
    } else {
        select(e, inside, moved, away)
    };
    let u = select(e, right, one, zero);
    let v = select(e, low, one, zero);
    (corner, u, v)
}

/// A `PSIZE` output's point size as the CPU draw takes it: x clamped to `limits` (min, max),
/// then to 0..8192, and 1 where that is not finite.
fn point_size(
    e: &mut naga::Arena<Expression>,
    psize: Handle<Expression>,
    limits: [f32; 2],
    zero: Handle<Expression>,
    one: Handle<Expression>,
) -> Handle<Expression> {
    let f = |e: &mut naga::Arena<Expression>, x: f32| push(e, Expression::Literal(Literal::F32(x)));
    let math2 = |e: &mut naga::Arena<Expression>, fun, a, b| {
        push(
            e,
            Expression::Math {
                fun,
                arg: a,
                arg1: Some(b),
                arg2: None,
                arg3: None,
            },
        )
    };
    let (lo, hi, top) = (f(e, limits[0]), f(e, limits[1]), f(e, 8192.0));
    let x = push(
        e,
        Expression::AccessIndex {
            base: psize,
            index: 0,
        },
    );
    let s = math2(e, MathFunction::Max, x, lo);
    let s = math2(e, MathFunction::Min, s, hi);
    let nan = push(
        e,
        Expression::Relational {
            fun: naga::RelationalFunction::IsNan,
            argument: s,
        },
    );
    let inf = push(
        e,
        Expression::Relational {
            fun: naga::RelationalFunction::IsInf,
            argument: s,
        },
    );
    let bad = bin(e, BinaryOperator::LogicalOr, nan, inf);
    let c = math2(e, MathFunction::Min, s, top);
    let c = math2(e, MathFunction::Max, c, zero);
    push(
        e,
        Expression::Select {
            condition: bad,
            accept: one,
            reject: c,
        },
    )
}
