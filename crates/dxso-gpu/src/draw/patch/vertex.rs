//! The vertex entry's additions: the pixel-centre offset, clamped colours, flat members,
//! clip distances, constant outputs, point quads and sprites.

use super::*;

/// What [`finish_vertex`] adds to a vertex entry.
#[derive(Clone, Copy, Debug)]
pub(in crate::draw) struct VertexTail<'a> {
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
pub(in crate::draw) struct Points {
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
pub(in crate::draw) fn finish_vertex(
    m: &mut Module,
    entry: &str,
    tail: &VertexTail,
) -> Result<(), Error> {
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
