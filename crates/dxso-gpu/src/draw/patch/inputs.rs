//! The vertex entry's inputs where no vertex buffer layout gives them as the shader reads
//! them: integer layouts (`Sint16x2/x4`, `Uint8x4`) converted to `f32`, elements decoded
//! from the stream's bytes in a read-only storage buffer (`array<u32>`, addressed from the
//! vertex and instance indices), and unbound inputs as (0, 0, 0, 1).
//!
//! The translated entry calls its body with a composed `Inputs` struct of its arguments;
//! the replaced arguments leave the entry (their old uses read zero, and are dead), and the
//! call takes a struct composed of the new values.

use super::{argument, bin, emits, lit, push};
use crate::Error;
use dxso_vm::DeclType;
use naga::{
    BinaryOperator as B, Binding, BuiltIn, Expression, Handle, Literal, MathFunction, Module,
    ScalarKind, Span, Statement, TypeInner, VectorSize,
};

/// Which element of a stream a vertex reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(in crate::draw) enum Element {
    /// `vertex_index / n` (1: the index buffer's value, or the vertex's position).
    Vertex(u32),
    /// `instance_index / n`.
    Instance(u32),
    /// From the draw position `p` across instances (`instance_index` where `quads`, points
    /// drawn as an instance each; else `vertex_index`): vertex `k = p % count` of instance
    /// `p / count`, reading the element `step` gives.
    Unrolled { quads: bool, count: u32, step: Step },
}

/// How a stream steps, from vertex `k` of instance `i` (dxso-vm's rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(in crate::draw) enum Step {
    /// `indices[k]` (the storage buffer at this binding holds the index buffer), or `k`.
    Vertex(Option<u32>),
    /// `i / d`.
    Instance(u32),
    /// `k / m`.
    Divider(u32),
}

/// An element decoded in the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(in crate::draw) struct Decode {
    /// The storage buffer's binding (in the vertex constants' group).
    pub binding: u32,
    pub ty: DeclType,
    /// Bytes to the first element's data (the stream's offset plus the element's).
    pub base: u32,
    pub stride: u32,
    pub element: Element,
}

/// A vertex buffer layout of integers, made D3D9's floats in the entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::draw) struct Convert {
    /// `Sint` or `Uint`.
    pub kind: ScalarKind,
    /// Each component divided by this (after the turn).
    pub scale: [f32; 4],
    /// D3DCOLOR: the bytes B, G, R, A turned to R, G, B, A.
    pub bgra: bool,
}

/// How the entry gets the input at one location.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::draw) enum Input {
    /// A vertex buffer layout of integers: converted.
    Convert(Convert),
    /// Decoded from a storage buffer.
    Decode(Decode),
    /// No stream element: (0, 0, 0, 1).
    Unbound,
}

/// The bind group of the storage buffers (the vertex shader's constants').
pub(in crate::draw) const STORAGE_GROUP: u32 = dxso_naga::interface::VS_CONSTANT_GROUP;
/// The first storage buffer's binding (the constants use 0..=2).
pub(in crate::draw) const FIRST_BINDING: u32 = 16;

struct Types {
    u32: Handle<naga::Type>,
    ivec4: Handle<naga::Type>,
    uvec4: Handle<naga::Type>,
    vec4: Handle<naga::Type>,
    words: Handle<naga::Type>,
}

fn types(m: &mut Module) -> Types {
    let mut t = |inner| {
        m.types
            .insert(naga::Type { name: None, inner }, Span::UNDEFINED)
    };
    let u32 = t(TypeInner::Scalar(naga::Scalar::U32));
    let vec4 = t(TypeInner::Vector {
        size: VectorSize::Quad,
        scalar: naga::Scalar::F32,
    });
    let words = t(TypeInner::Array {
        base: u32,
        size: naga::ArraySize::Dynamic,
        stride: 4,
    });
    let ivec4 = m_vec4(&mut m.types, naga::Scalar::I32);
    let uvec4 = m_vec4(&mut m.types, naga::Scalar::U32);
    Types {
        u32,
        ivec4,
        uvec4,
        vec4,
        words,
    }
}

/// Give the entry `entry` of `m` its inputs at the locations of `inputs` as each says.
/// `Ok(false)`: the entry is not shaped as the translation makes it (`m` is then half
/// changed: the caller patches a copy and drops it).
pub(in crate::draw) fn fetch_inputs(
    m: &mut Module,
    entry: &str,
    inputs: &[(u32, Input)],
) -> Result<bool, Error> {
    if inputs.is_empty() {
        return Ok(true);
    }
    let ty = types(m);
    // The storage buffers, one global each.
    let mut buffers: Vec<(u32, Handle<naga::GlobalVariable>)> = Vec::new();
    for (_, i) in inputs {
        let mut bindings = Vec::new();
        if let Input::Decode(d) = i {
            bindings.push(d.binding);
            if let Element::Unrolled {
                step: Step::Vertex(Some(b)),
                ..
            } = d.element
            {
                bindings.push(b);
            }
        }
        for b in bindings {
            if buffers.iter().all(|x| x.0 != b) {
                let g = m.global_variables.append(
                    naga::GlobalVariable {
                        name: Some(format!("dxso_stream{b}")),
                        space: naga::AddressSpace::Storage {
                            access: naga::StorageAccess::LOAD,
                        },
                        binding: Some(naga::ResourceBinding {
                            group: STORAGE_GROUP,
                            binding: b,
                        }),
                        ty: ty.words,
                        init: None,
                        memory_decorations: Default::default(),
                    },
                    Span::UNDEFINED,
                );
                buffers.push((b, g));
            }
        }
    }
    let Some(ep) = m.entry_points.iter_mut().find(|e| e.name == entry) else {
        return Ok(false);
    };
    let f = &mut ep.function;
    // The call of the body with the composed inputs.
    let Some((at, compose)) = f.body.iter().enumerate().find_map(|(k, s)| match s {
        Statement::Call { arguments, .. } if arguments.len() == 1 => Some((k, arguments[0])),
        _ => None,
    }) else {
        return Ok(false);
    };
    let Expression::Compose {
        ty: inputs_ty,
        components,
    } = f.expressions[compose].clone()
    else {
        return Ok(false);
    };
    // Each replaced input: its argument and its component of the struct.
    let mut plan = Vec::new();
    for &(location, how) in inputs {
        let Some(arg) = f.arguments.iter().position(
            |a| matches!(a.binding, Some(Binding::Location { location: l, .. }) if l == location),
        ) else {
            return Ok(false);
        };
        let Some(component) = components.iter().position(
            |&c| matches!(f.expressions[c], Expression::FunctionArgument(k) if k as usize == arg),
        ) else {
            return Ok(false);
        };
        plan.push((arg, component, how));
    }
    let from = f.expressions.len();
    let u32_ty = ty.u32;
    let mut ids = Ids {
        vertex: None,
        instance: None,
    };
    let mut new_components = components.clone();
    for &(arg, component, how) in &plan {
        let value = match how {
            Input::Convert(c) => {
                f.arguments[arg].ty = match c.kind {
                    ScalarKind::Sint => ty.ivec4,
                    _ => ty.uvec4,
                };
                convert(&mut f.expressions, arg, c, ty.vec4)
            }
            Input::Unbound => {
                let e = &mut f.expressions;
                let (zero, one) = (lit(e, 0.0), lit(e, 1.0));
                push(
                    e,
                    Expression::Compose {
                        ty: ty.vec4,
                        components: vec![zero, zero, zero, one],
                    },
                )
            }
            Input::Decode(d) => {
                let element = ids.element(f, u32_ty, &buffers, d.element);
                let e = &mut f.expressions;
                let buffer = global(e, &buffers, d.binding);
                let mut r = Reader {
                    e,
                    buffer,
                    aligned: d.base % 4 == 0 && d.stride % 4 == 0,
                };
                let stride = r.u(d.stride);
                let base = r.u(d.base);
                let offset = bin(r.e, B::Multiply, element, stride);
                let address = bin(r.e, B::Add, offset, base);
                let c = r.decode(d.ty, address);
                push(
                    r.e,
                    Expression::Compose {
                        ty: ty.vec4,
                        components: c.to_vec(),
                    },
                )
            }
        };
        new_components[component] = value;
    }
    let call_arg = push(
        &mut f.expressions,
        Expression::Compose {
            ty: inputs_ty,
            components: new_components,
        },
    );
    let block = emits(&f.expressions, from);
    if let Statement::Call { arguments, .. } = &mut f.body[at] {
        arguments[0] = call_arg;
    }
    f.body.splice(at..at, block);
    drop_arguments(f, &plan, from, ty.vec4);
    Ok(true)
}

/// `arg`, an integer four-vector, as D3D9's floats ([`Convert`]).
fn convert(
    e: &mut naga::Arena<Expression>,
    arg: usize,
    c: Convert,
    vec4: Handle<naga::Type>,
) -> Handle<Expression> {
    let mut a = push(e, Expression::FunctionArgument(arg as u32));
    if c.bgra {
        use naga::SwizzleComponent::{W, X, Y, Z};
        a = push(
            e,
            Expression::Swizzle {
                size: VectorSize::Quad,
                vector: a,
                pattern: [Z, Y, X, W],
            },
        );
    }
    let x = push(
        e,
        Expression::As {
            expr: a,
            kind: ScalarKind::Float,
            convert: Some(4),
        },
    );
    if c.scale == [1.0; 4] {
        return x;
    }
    let s = c.scale.map(|k| lit(e, k));
    let scale = push(
        e,
        Expression::Compose {
            ty: vec4,
            components: s.to_vec(),
        },
    );
    bin(e, B::Divide, x, scale)
}

/// Take the decoded and unbound inputs' arguments out of the entry (converted ones stay, as
/// their new type); the expressions before `from` that read any of them (the old struct's)
/// read zero instead.
fn drop_arguments(
    f: &mut naga::Function,
    plan: &[(usize, usize, Input)],
    from: usize,
    vec4: Handle<naga::Type>,
) {
    let mut gone: Vec<usize> = plan
        .iter()
        .filter(|p| !matches!(p.2, Input::Convert(_)))
        .map(|p| p.0)
        .collect();
    let converted: Vec<usize> = plan
        .iter()
        .filter(|p| matches!(p.2, Input::Convert(_)))
        .map(|p| p.0)
        .collect();
    gone.sort_unstable();
    for (h, x) in f.expressions.iter_mut() {
        if h.index() >= from {
            continue;
        }
        if let Expression::FunctionArgument(k) = *x
            && (gone.contains(&(k as usize)) || converted.contains(&(k as usize)))
        {
            *x = Expression::ZeroValue(vec4);
        }
    }
    for &k in gone.iter().rev() {
        f.arguments.remove(k);
        for (_, x) in f.expressions.iter_mut() {
            if let Expression::FunctionArgument(j) = x
                && *j as usize > k
            {
                *j -= 1;
            }
        }
    }
}

fn m_vec4(types: &mut naga::UniqueArena<naga::Type>, scalar: naga::Scalar) -> Handle<naga::Type> {
    types.insert(
        naga::Type {
            name: None,
            inner: TypeInner::Vector {
                size: VectorSize::Quad,
                scalar,
            },
        },
        Span::UNDEFINED,
    )
}

fn global(
    e: &mut naga::Arena<Expression>,
    buffers: &[(u32, Handle<naga::GlobalVariable>)],
    binding: u32,
) -> Handle<Expression> {
    let g = buffers
        .iter()
        .find(|b| b.0 == binding)
        .map(|b| b.1)
        .expect("every binding of the inputs has its global");
    push(e, Expression::GlobalVariable(g))
}

/// The entry's vertex and instance indices (arguments added on first use).
struct Ids {
    vertex: Option<Handle<Expression>>,
    instance: Option<Handle<Expression>>,
}

impl Ids {
    fn get(
        &mut self,
        f: &mut naga::Function,
        ty: Handle<naga::Type>,
        instance: bool,
    ) -> Handle<Expression> {
        let (slot, builtin) = if instance {
            (&mut self.instance, BuiltIn::InstanceIndex)
        } else {
            (&mut self.vertex, BuiltIn::VertexIndex)
        };
        *slot.get_or_insert_with(|| argument(f, Binding::BuiltIn(builtin), ty))
    }

    /// The element index `element` gives.
    fn element(
        &mut self,
        f: &mut naga::Function,
        ty: Handle<naga::Type>,
        buffers: &[(u32, Handle<naga::GlobalVariable>)],
        element: Element,
    ) -> Handle<Expression> {
        let div = |e: &mut naga::Arena<Expression>, x, n: u32| {
            if n == 1 {
                x
            } else {
                let n = push(e, Expression::Literal(Literal::U32(n)));
                bin(e, B::Divide, x, n)
            }
        };
        match element {
            Element::Vertex(n) => {
                let v = self.get(f, ty, false);
                div(&mut f.expressions, v, n)
            }
            Element::Instance(n) => {
                let v = self.get(f, ty, true);
                div(&mut f.expressions, v, n)
            }
            Element::Unrolled { quads, count, step } => {
                let p = self.get(f, ty, quads);
                let e = &mut f.expressions;
                let n = push(e, Expression::Literal(Literal::U32(count.max(1))));
                let k = bin(e, B::Modulo, p, n);
                match step {
                    Step::Vertex(None) => k,
                    Step::Vertex(Some(b)) => {
                        let g = global(e, buffers, b);
                        let ptr = push(e, Expression::Access { base: g, index: k });
                        push(e, Expression::Load { pointer: ptr })
                    }
                    Step::Instance(d) => {
                        let i = bin(e, B::Divide, p, n);
                        div(e, i, d)
                    }
                    Step::Divider(m) => div(e, k, m),
                }
            }
        }
    }
}

/// Reads a storage buffer's bytes as dxso-vm's `DeclType::decode` does.
struct Reader<'a> {
    e: &'a mut naga::Arena<Expression>,
    buffer: Handle<Expression>,
    /// Every address a multiple of 4.
    aligned: bool,
}

impl Reader<'_> {
    fn u(&mut self, x: u32) -> Handle<Expression> {
        push(self.e, Expression::Literal(Literal::U32(x)))
    }

    fn word(&mut self, index: Handle<Expression>) -> Handle<Expression> {
        let ptr = push(
            self.e,
            Expression::Access {
                base: self.buffer,
                index,
            },
        );
        push(self.e, Expression::Load { pointer: ptr })
    }

    /// The little-endian 32 bits at byte `address + plus` (any alignment).
    fn load32(&mut self, address: Handle<Expression>, plus: u32) -> Handle<Expression> {
        let at = if plus == 0 {
            address
        } else {
            let p = self.u(plus);
            bin(self.e, B::Add, address, p)
        };
        let two = self.u(2);
        let index = bin(self.e, B::ShiftRight, at, two);
        let w0 = self.word(index);
        if self.aligned && plus.is_multiple_of(4) {
            return w0;
        }
        let one = self.u(1);
        let next = bin(self.e, B::Add, index, one);
        let w1 = self.word(next);
        let three = self.u(3);
        let low = bin(self.e, B::And, at, three);
        let shift = bin(self.e, B::ShiftLeft, low, three);
        let thirty_two = self.u(32);
        let up = bin(self.e, B::Subtract, thirty_two, shift);
        let a = bin(self.e, B::ShiftRight, w0, shift);
        let b = bin(self.e, B::ShiftLeft, w1, up);
        let joined = bin(self.e, B::InclusiveOr, a, b);
        let zero = self.u(0);
        let unaligned = bin(self.e, B::NotEqual, shift, zero);
        push(
            self.e,
            Expression::Select {
                condition: unaligned,
                accept: joined,
                reject: w0,
            },
        )
    }

    fn math(&mut self, fun: MathFunction, args: [Handle<Expression>; 3]) -> Handle<Expression> {
        push(
            self.e,
            Expression::Math {
                fun,
                arg: args[0],
                arg1: Some(args[1]),
                arg2: Some(args[2]),
                arg3: None,
            },
        )
    }

    fn float_of(&mut self, x: Handle<Expression>) -> Handle<Expression> {
        push(
            self.e,
            Expression::As {
                expr: x,
                kind: ScalarKind::Float,
                convert: Some(4),
            },
        )
    }

    /// Bits `offset..offset + count` of `word` as a float: signed (sign-extended) or not,
    /// divided by `scale` where it is not 1.
    fn field(
        &mut self,
        word: Handle<Expression>,
        offset: u32,
        count: u32,
        signed: bool,
        scale: f32,
    ) -> Handle<Expression> {
        let source = if signed {
            push(
                self.e,
                Expression::As {
                    expr: word,
                    kind: ScalarKind::Sint,
                    convert: None,
                },
            )
        } else {
            word
        };
        let (o, c) = (self.u(offset), self.u(count));
        let bits = self.math(MathFunction::ExtractBits, [source, o, c]);
        let x = self.float_of(bits);
        if scale == 1.0 {
            x
        } else {
            let s = lit(self.e, scale);
            bin(self.e, B::Divide, x, s)
        }
    }

    /// The four components of a `ty` element at `address`.
    fn decode(&mut self, ty: DeclType, address: Handle<Expression>) -> [Handle<Expression>; 4] {
        use DeclType::*;
        let zero = lit(self.e, 0.0);
        let one = lit(self.e, 1.0);
        let mut out = [zero, zero, zero, one];
        match ty {
            Float1 | Float2 | Float3 | Float4 => {
                let n = match ty {
                    Float1 => 1,
                    Float2 => 2,
                    Float3 => 3,
                    _ => 4,
                };
                for (c, o) in out.iter_mut().enumerate().take(n) {
                    let w = self.load32(address, 4 * c as u32);
                    *o = push(
                        self.e,
                        Expression::As {
                            expr: w,
                            kind: ScalarKind::Float,
                            convert: None,
                        },
                    );
                }
            }
            D3dColor | Ubyte4 | Ubyte4N => {
                let w = self.load32(address, 0);
                let scale = if ty == Ubyte4 { 1.0 } else { 255.0 };
                // D3DCOLOR's bytes are B, G, R, A.
                let order = if ty == D3dColor {
                    [2, 1, 0, 3]
                } else {
                    [0, 1, 2, 3]
                };
                for (o, byte) in out.iter_mut().zip(order) {
                    *o = self.field(w, 8 * byte, 8, false, scale);
                }
            }
            Short2 | Short4 | Short2N | Short4N | UShort2N | UShort4N => {
                let n = if matches!(ty, Short2 | Short2N | UShort2N) {
                    2
                } else {
                    4
                };
                let signed = !matches!(ty, UShort2N | UShort4N);
                let scale = match ty {
                    Short2 | Short4 => 1.0,
                    Short2N | Short4N => 32767.0,
                    _ => 65535.0,
                };
                for (c, o) in out.iter_mut().enumerate().take(n) {
                    let w = self.load32(address, 4 * (c as u32 / 2));
                    *o = self.field(w, 16 * (c as u32 % 2), 16, signed, scale);
                }
            }
            UDec3 | Dec3N => {
                let w = self.load32(address, 0);
                let signed = ty == Dec3N;
                let scale = if signed { 511.0 } else { 1.0 };
                for (c, o) in out.iter_mut().enumerate().take(3) {
                    *o = self.field(w, 10 * c as u32, 10, signed, scale);
                }
            }
            Float16_2 | Float16_4 => {
                let n = if ty == Float16_2 { 1 } else { 2 };
                for k in 0..n {
                    let w = self.load32(address, 4 * k as u32);
                    let pair = push(
                        self.e,
                        Expression::Math {
                            fun: MathFunction::Unpack2x16float,
                            arg: w,
                            arg1: None,
                            arg2: None,
                            arg3: None,
                        },
                    );
                    for c in 0..2 {
                        out[2 * k + c] = push(
                            self.e,
                            Expression::AccessIndex {
                                base: pair,
                                index: c as u32,
                            },
                        );
                    }
                }
            }
            Unused => {}
        }
        out
    }
}
