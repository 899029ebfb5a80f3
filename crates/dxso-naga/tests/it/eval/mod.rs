//! A small evaluator of the straight-line naga IR the ps_1_x translation produces, so tests
//! can compare a translated body with hand-computed values on the CPU: loads, stores,
//! composes, swizzles, arithmetic, selects, `if`/`kill`. Sampling is the test's function of
//! the texture's name and the coordinate. Anything else panics (a test's defect).

use naga::{
    BinaryOperator as B, Expression, Handle, Literal, MathFunction as M, Module, ScalarKind,
    Statement, TypeInner,
};
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq)]
enum V {
    F(f32),
    B(bool),
    U(u32),
    I(i32),
    /// A vector or a struct or an array.
    C(Vec<V>),
    Ptr(Root, Vec<u32>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Root {
    Local(Handle<naga::LocalVariable>),
    Global(Handle<naga::GlobalVariable>),
}

/// What the body sees.
pub struct Env<'a> {
    /// Uniform arrays of `vec4<f32>` by the global's name (`c`, `ps1x`).
    pub uniforms: HashMap<&'static str, Vec<[f32; 4]>>,
    /// The members of the body's input struct.
    pub inputs: Vec<[f32; 4]>,
    /// `sample(texture name, coordinate)`.
    pub sample: &'a dyn Fn(&str, &[f32]) -> [f32; 4],
}

/// The body's result.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub outputs: Vec<[f32; 4]>,
    pub killed: bool,
}

struct Run<'a> {
    m: &'a Module,
    f: &'a naga::Function,
    env: &'a Env<'a>,
    values: HashMap<Handle<Expression>, V>,
    locals: HashMap<Handle<naga::LocalVariable>, V>,
    globals: HashMap<Handle<naga::GlobalVariable>, V>,
}

enum Flow {
    Next,
    Kill,
    Return(V),
}

/// Run the translation's body.
pub fn run(t: &dxso_naga::Translation, env: &Env) -> Outcome {
    let m = &t.module;
    let f = &m.functions[t.body];
    let mut r = Run {
        m,
        f,
        env,
        values: HashMap::new(),
        locals: HashMap::new(),
        globals: HashMap::new(),
    };
    for (h, g) in m.global_variables.iter() {
        if let Some(rows) = g.name.as_deref().and_then(|n| env.uniforms.get(n)) {
            let v = V::C(
                rows.iter()
                    .map(|row| V::C(row.iter().map(|&x| V::F(x)).collect()))
                    .collect(),
            );
            r.globals.insert(h, v);
        }
    }
    for (h, l) in f.local_variables.iter() {
        let v = match l.init {
            Some(e) => r.expr(e),
            None => r.zero(l.ty),
        };
        r.locals.insert(h, v);
    }
    match r.block(&f.body) {
        Flow::Kill => Outcome {
            outputs: Vec::new(),
            killed: true,
        },
        Flow::Return(V::C(members)) => Outcome {
            outputs: members.iter().map(vec4).collect(),
            killed: false,
        },
        _ => panic!("the body returns its struct"),
    }
}

fn vec4(v: &V) -> [f32; 4] {
    let V::C(c) = v else {
        panic!("not a vector: {v:?}")
    };
    std::array::from_fn(|k| match c[k] {
        V::F(x) => x,
        ref o => panic!("not a float: {o:?}"),
    })
}

fn scalars(v: &V) -> Vec<V> {
    match v {
        V::C(c) => c.clone(),
        s => vec![s.clone()],
    }
}

impl Run<'_> {
    fn zero(&self, ty: Handle<naga::Type>) -> V {
        match &self.m.types[ty].inner {
            TypeInner::Scalar(s) => zero_scalar(s.kind),
            TypeInner::Vector { size, scalar } => {
                V::C(vec![zero_scalar(scalar.kind); *size as usize])
            }
            TypeInner::Struct { members, .. } => {
                V::C(members.iter().map(|mb| self.zero(mb.ty)).collect())
            }
            other => panic!("zero of {other:?}"),
        }
    }

    fn block(&mut self, b: &naga::Block) -> Flow {
        for s in b.iter() {
            match s {
                Statement::Emit(range) => {
                    for h in range.clone() {
                        let v = self.compute(h);
                        self.values.insert(h, v);
                    }
                }
                Statement::Store { pointer, value } => {
                    let p = self.expr(*pointer);
                    let v = self.expr(*value);
                    let V::Ptr(root, path) = p else {
                        panic!("store through {p:?}")
                    };
                    let target = match root {
                        Root::Local(h) => self.locals.get_mut(&h),
                        Root::Global(h) => self.globals.get_mut(&h),
                    };
                    let mut slot = target.expect("a known variable");
                    for &k in &path {
                        let V::C(c) = slot else {
                            panic!("index into a scalar")
                        };
                        slot = &mut c[k as usize];
                    }
                    *slot = v;
                }
                Statement::If {
                    condition,
                    accept,
                    reject,
                } => {
                    let flow = if self.expr(*condition) == V::B(true) {
                        self.block(accept)
                    } else {
                        self.block(reject)
                    };
                    if !matches!(flow, Flow::Next) {
                        return flow;
                    }
                }
                Statement::Kill => return Flow::Kill,
                Statement::Return { value } => {
                    return Flow::Return(self.expr(value.expect("a value")));
                }
                other => panic!("statement {other:?}"),
            }
        }
        Flow::Next
    }

    /// An expression's value: computed at its `Emit`, or (literals, variables) on demand.
    fn expr(&mut self, h: Handle<Expression>) -> V {
        if let Some(v) = self.values.get(&h) {
            return v.clone();
        }
        assert!(
            self.f.expressions[h].needs_pre_emit()
                || matches!(self.f.expressions[h], Expression::ZeroValue(_)),
            "{:?} used before its Emit",
            self.f.expressions[h]
        );
        let v = self.compute(h);
        self.values.insert(h, v.clone());
        v
    }

    fn read(&self, root: Root, path: &[u32]) -> V {
        let mut v = match root {
            Root::Local(h) => &self.locals[&h],
            Root::Global(h) => self.globals.get(&h).expect("the test gives this uniform"),
        };
        for &k in path {
            let V::C(c) = v else {
                panic!("index into a scalar")
            };
            v = &c[k as usize];
        }
        v.clone()
    }

    #[allow(clippy::too_many_lines)] // a dispatch `match`: one arm per naga expression
    fn compute(&mut self, h: Handle<Expression>) -> V {
        match self.f.expressions[h].clone() {
            Expression::Literal(l) => match l {
                Literal::F32(x) => V::F(x),
                Literal::U32(x) => V::U(x),
                Literal::I32(x) => V::I(x),
                Literal::Bool(x) => V::B(x),
                other => panic!("literal {other:?}"),
            },
            Expression::ZeroValue(ty) => self.zero(ty),
            Expression::LocalVariable(l) => V::Ptr(Root::Local(l), Vec::new()),
            Expression::GlobalVariable(g) => V::Ptr(Root::Global(g), Vec::new()),
            Expression::FunctionArgument(_) => V::C(
                self.env
                    .inputs
                    .iter()
                    .map(|row| V::C(row.iter().map(|&x| V::F(x)).collect()))
                    .collect(),
            ),
            Expression::Compose { ty, components } => {
                let parts: Vec<V> = components.iter().map(|&c| self.expr(c)).collect();
                if matches!(self.m.types[ty].inner, TypeInner::Struct { .. }) {
                    V::C(parts)
                } else {
                    // A vector of scalars and smaller vectors.
                    V::C(parts.iter().flat_map(scalars).collect())
                }
            }
            Expression::Splat { size, value } => V::C(vec![self.expr(value); size as usize]),
            Expression::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let c = scalars(&self.expr(vector));
                V::C(
                    (0..size as usize)
                        .map(|k| c[pattern[k] as usize].clone())
                        .collect(),
                )
            }
            Expression::AccessIndex { base, index } => self.index(base, index),
            Expression::Access { base, index } => {
                let i = match self.expr(index) {
                    V::U(u) => u,
                    V::I(i) => i as u32,
                    o => panic!("index {o:?}"),
                };
                self.index(base, i)
            }
            Expression::Load { pointer } => match self.expr(pointer) {
                V::Ptr(root, path) => self.read(root, &path),
                o => panic!("load of {o:?}"),
            },
            Expression::Binary { op, left, right } => {
                let (a, b) = (self.expr(left), self.expr(right));
                zip(&a, &b, |x, y| binary(op, x, y))
            }
            Expression::Unary { op, expr } => map(&self.expr(expr), |x| match (op, x) {
                (naga::UnaryOperator::Negate, V::F(f)) => V::F(-f),
                (naga::UnaryOperator::LogicalNot, V::B(b)) => V::B(!b),
                (op, x) => panic!("{op:?} {x:?}"),
            }),
            Expression::Select {
                condition,
                accept,
                reject,
            } => {
                let (c, a, r) = (self.expr(condition), self.expr(accept), self.expr(reject));
                match c {
                    V::B(b) => {
                        if b {
                            a
                        } else {
                            r
                        }
                    }
                    V::C(cs) => V::C(
                        cs.iter()
                            .zip(scalars(&a).into_iter().zip(scalars(&r)))
                            .map(|(c, (a, r))| if *c == V::B(true) { a } else { r })
                            .collect(),
                    ),
                    o => panic!("condition {o:?}"),
                }
            }
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                ..
            } => {
                let a = self.expr(arg);
                let b = arg1.map(|h| self.expr(h));
                let c = arg2.map(|h| self.expr(h));
                let f = |v: &V| match v {
                    V::F(x) => *x,
                    o => panic!("math on {o:?}"),
                };
                match fun {
                    M::Dot => {
                        let (x, y) = (scalars(&a), scalars(b.as_ref().expect("two")));
                        V::F(x.iter().zip(&y).map(|(p, q)| f(p) * f(q)).sum())
                    }
                    M::Min => zip(&a, b.as_ref().expect("two"), |x, y| V::F(f(&x).min(f(&y)))),
                    M::Max => zip(&a, b.as_ref().expect("two"), |x, y| V::F(f(&x).max(f(&y)))),
                    M::Clamp => {
                        let lo = zip(&a, b.as_ref().expect("three"), |x, y| {
                            V::F(f(&x).max(f(&y)))
                        });
                        zip(&lo, c.as_ref().expect("three"), |x, y| {
                            V::F(f(&x).min(f(&y)))
                        })
                    }
                    M::Saturate => map(&a, |x| V::F(f(&x).clamp(0.0, 1.0))),
                    M::Abs => map(&a, |x| V::F(f(&x).abs())),
                    M::Floor => map(&a, |x| V::F(f(&x).floor())),
                    other => panic!("math {other:?}"),
                }
            }
            Expression::Relational { fun, argument } => {
                let c = scalars(&self.expr(argument));
                let t = c.iter().filter(|b| **b == V::B(true)).count();
                V::B(match fun {
                    naga::RelationalFunction::Any => t > 0,
                    naga::RelationalFunction::All => t == c.len(),
                    other => panic!("relational {other:?}"),
                })
            }
            Expression::As {
                expr,
                kind,
                convert,
            } => map(&self.expr(expr), |x| match (x, kind, convert) {
                (V::U(u), ScalarKind::Float, None) => V::F(f32::from_bits(u)),
                (V::F(x), ScalarKind::Uint, None) => V::U(x.to_bits()),
                (x, k, c) => panic!("as {x:?} {k:?} {c:?}"),
            }),
            Expression::ImageSample {
                image, coordinate, ..
            } => {
                let Expression::GlobalVariable(g) = self.f.expressions[image] else {
                    panic!("an image global")
                };
                let name = self.m.global_variables[g].name.clone().unwrap_or_default();
                let c: Vec<f32> = scalars(&self.expr(coordinate))
                    .iter()
                    .map(|v| match v {
                        V::F(x) => *x,
                        o => panic!("coordinate {o:?}"),
                    })
                    .collect();
                let t = (self.env.sample)(&name, &c);
                V::C(t.iter().map(|&x| V::F(x)).collect())
            }
            other => panic!("expression {other:?}"),
        }
    }

    fn index(&mut self, base: Handle<Expression>, index: u32) -> V {
        match self.expr(base) {
            V::Ptr(root, mut path) => {
                path.push(index);
                V::Ptr(root, path)
            }
            V::C(c) => c[index as usize].clone(),
            o => panic!("index into {o:?}"),
        }
    }
}

fn zero_scalar(kind: ScalarKind) -> V {
    match kind {
        ScalarKind::Float => V::F(0.0),
        ScalarKind::Bool => V::B(false),
        ScalarKind::Uint => V::U(0),
        _ => V::I(0),
    }
}

fn map(a: &V, f: impl Fn(V) -> V) -> V {
    match a {
        V::C(c) => V::C(c.iter().cloned().map(f).collect()),
        s => f(s.clone()),
    }
}

/// Component-wise, a scalar operand applying to every component.
fn zip(a: &V, b: &V, f: impl Fn(V, V) -> V) -> V {
    match (a, b) {
        (V::C(x), V::C(y)) => V::C(
            x.iter()
                .cloned()
                .zip(y.iter().cloned())
                .map(|(p, q)| f(p, q))
                .collect(),
        ),
        (V::C(x), s) => V::C(x.iter().cloned().map(|p| f(p, s.clone())).collect()),
        (s, V::C(y)) => V::C(y.iter().cloned().map(|q| f(s.clone(), q)).collect()),
        (p, q) => f(p.clone(), q.clone()),
    }
}

fn binary(op: B, a: V, b: V) -> V {
    match (a, b) {
        (V::F(x), V::F(y)) => match op {
            B::Add => V::F(x + y),
            B::Subtract => V::F(x - y),
            B::Multiply => V::F(x * y),
            B::Divide => V::F(x / y),
            B::Less => V::B(x < y),
            B::LessEqual => V::B(x <= y),
            B::Greater => V::B(x > y),
            B::GreaterEqual => V::B(x >= y),
            B::Equal => V::B(x == y),
            B::NotEqual => V::B(x != y),
            o => panic!("{o:?} on floats"),
        },
        (V::B(x), V::B(y)) => match op {
            B::LogicalAnd | B::And => V::B(x && y),
            B::LogicalOr | B::InclusiveOr => V::B(x || y),
            B::Equal => V::B(x == y),
            B::NotEqual => V::B(x != y),
            o => panic!("{o:?} on bools"),
        },
        (a, b) => panic!("{op:?} on {a:?}, {b:?}"),
    }
}
