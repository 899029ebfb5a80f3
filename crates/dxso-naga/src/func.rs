//! Building one naga function: its expression arena with the `Emit` bookkeeping naga needs,
//! the stack of blocks being filled, and small constructors for the expressions the
//! translator uses (literals that may be infinite or NaN, splats, swizzles, selects, ...).

use std::collections::HashMap;

use naga::{
    BinaryOperator, Block, Expression, Function, Handle, Literal, MathFunction, Module, Scalar,
    ScalarKind, Span, Statement, SwizzleComponent, Type, TypeInner, VectorSize,
};

pub(crate) type H = Handle<Expression>;

/// The shape of a value the arithmetic helpers work on: one `f32` or a `vec4<f32>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Scalar,
    Vec4,
}

/// A function under construction.
pub(crate) struct FnBuilder {
    pub f: Function,
    blocks: Vec<Block>,
    /// The first and last expression of the run not yet covered by an `Emit`.
    pending: Option<(H, H)>,
    /// Each literal made so far, by kind and bits: a literal is valid anywhere in its
    /// function, so one expression serves every use (fewer expressions for naga's validator
    /// and back ends to walk, and fewer `Emit` runs broken by them).
    literals: HashMap<(u8, u32), H>,
    /// `vec4<f32>`, and its +0 (`ZeroValue`, also valid anywhere) once made.
    vec4_f32: Handle<Type>,
    zero4: Option<H>,
    /// Values already computed in the current block that a later read may take instead of
    /// making them again: each load through a fixed path from a variable and each value
    /// stored through one (until a store to that variable), and each `vec4_bits` constant. Emptied when a block opens or closes
    /// and at every statement other than a store, so a value is only reused where it is
    /// in scope and still what the variable holds.
    reuse: HashMap<Reuse, H>,
}

/// What [`FnBuilder::reuse`] keys values by.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Reuse {
    /// A load of a variable (the expression naming it) through constant indices.
    Load(H, Vec<u32>),
    /// A `vec4<f32>` of four bit patterns.
    Bits([u32; 4]),
    /// Component `.1` of value `.0` (an `AccessIndex`).
    Component(H, u32),
    /// Value `.0`'s bits as `.1` (an `As` without conversion).
    Bitcast(H, ScalarKind),
}

impl FnBuilder {
    pub fn new(name: &str, module: &mut Module) -> FnBuilder {
        FnBuilder {
            f: Function {
                name: Some(name.to_string()),
                ..Function::default()
            },
            blocks: vec![Block::new()],
            pending: None,
            literals: HashMap::new(),
            vec4_f32: ty(module, vec4(Scalar::F32)),
            zero4: None,
            reuse: HashMap::new(),
        }
    }

    /// Append an expression; those naga evaluates at the start of the function (literals,
    /// variables, arguments) and call results stay out of `Emit` ranges.
    pub fn expr(&mut self, e: Expression) -> H {
        if e.needs_pre_emit() || matches!(e, Expression::CallResult(_)) {
            self.flush();
            return self.f.expressions.append(e, Span::UNDEFINED);
        }
        let h = self.f.expressions.append(e, Span::UNDEFINED);
        self.pending = Some(match self.pending {
            Some((first, _)) => (first, h),
            None => (h, h),
        });
        h
    }

    /// Emit the pending expressions into the current block.
    pub fn flush(&mut self) {
        if let Some((first, last)) = self.pending.take() {
            let range = naga::Range::new_from_bounds(first, last);
            self.current().push(Statement::Emit(range), Span::UNDEFINED);
        }
    }

    fn current(&mut self) -> &mut Block {
        self.blocks.last_mut().expect("a block is always open")
    }

    pub fn stmt(&mut self, s: Statement) {
        self.flush();
        match &s {
            // A store changes only what its variable holds, and what it stores is what a
            // load through the same path would give until the next store.
            Statement::Store { pointer, value } => match self.path(*pointer) {
                Some((root, path)) => {
                    self.reuse
                        .retain(|k, _| !matches!(k, Reuse::Load(r, _) if *r == root));
                    self.reuse.insert(Reuse::Load(root, path), *value);
                }
                None => self.reuse.clear(),
            },
            _ => self.reuse.clear(),
        }
        self.current().push(s, Span::UNDEFINED);
    }

    /// The variable a pointer expression starts from and the constant indices that lead
    /// from it, if it is such a chain.
    fn path(&self, mut pointer: H) -> Option<(H, Vec<u32>)> {
        let mut indices = Vec::new();
        loop {
            match self.f.expressions[pointer] {
                Expression::AccessIndex { base, index } => {
                    indices.push(index);
                    pointer = base;
                }
                Expression::LocalVariable(_) | Expression::GlobalVariable(_) => {
                    indices.reverse();
                    return Some((pointer, indices));
                }
                _ => return None,
            }
        }
    }

    /// Start a nested block (the arm of an `if`, the body of a loop).
    pub fn open(&mut self) {
        self.flush();
        self.reuse.clear();
        self.blocks.push(Block::new());
    }

    /// Finish the nested block started last.
    pub fn close(&mut self) -> Block {
        self.flush();
        self.reuse.clear();
        if self.blocks.len() > 1 {
            self.blocks.pop().unwrap_or_default()
        } else {
            Block::new()
        }
    }

    /// How many statements the current block holds (the pending expressions emitted first):
    /// a mark for [`FnBuilder::nest_since`].
    pub fn mark(&mut self) -> usize {
        self.flush();
        self.current().len()
    }

    /// Move the current block's statements from `mark` on into one nested `Block` statement.
    /// What they computed goes out of scope (so nothing is reused past it). naga's MSL
    /// writer forgets a block's named expressions at its end one at a time, each in time
    /// proportional to those named after it in the function: one block of n instructions
    /// costs it n^2 (a 32k-instruction shader 25 s), blocks of a few hundred cost nothing.
    pub fn nest_since(&mut self, mark: usize) {
        self.flush();
        self.reuse.clear();
        let block = std::mem::take(self.current());
        let mut outer = Block::with_capacity(mark + 1);
        let mut inner = Block::with_capacity(block.len().saturating_sub(mark));
        for (k, (s, span)) in block.span_into_iter().enumerate() {
            if k < mark {
                outer.push(s, span);
            } else {
                inner.push(s, span);
            }
        }
        if !inner.is_empty() {
            outer.push(Statement::Block(inner), Span::UNDEFINED);
        }
        *self.current() = outer;
    }

    /// The finished function.
    pub fn finish(mut self) -> Function {
        self.flush();
        self.f.body = self.blocks.swap_remove(0);
        // The expressions at their size: grown by doubling, the arena may be nearly twice
        // what it holds, for the rest of the translation and the back end.
        self.f.expressions = self.f.expressions.clone();
        self.f
    }

    // ---- constructors -------------------------------------------------------------------

    /// An `f32` constant. naga rejects non-finite literals, so infinities and NaNs are a
    /// bitcast of their bits.
    pub fn f32(&mut self, v: f32) -> H {
        if v.is_finite() {
            self.literal(0, v.to_bits(), Literal::F32(v))
        } else {
            let bits = self.u32(v.to_bits());
            self.bitcast(bits, ScalarKind::Float)
        }
    }
    pub fn u32(&mut self, v: u32) -> H {
        self.literal(1, v, Literal::U32(v))
    }
    pub fn i32(&mut self, v: i32) -> H {
        self.literal(2, v as u32, Literal::I32(v))
    }
    pub fn bool(&mut self, v: bool) -> H {
        self.literal(3, v.into(), Literal::Bool(v))
    }
    /// The function's one expression for literal `l` (of kind `kind` and bits `bits`).
    fn literal(&mut self, kind: u8, bits: u32, l: Literal) -> H {
        if let Some(&h) = self.literals.get(&(kind, bits)) {
            return h;
        }
        let h = self.expr(Expression::Literal(l));
        self.literals.insert((kind, bits), h);
        h
    }
    /// `v` in `shape`.
    pub fn kf(&mut self, v: f32, shape: Shape) -> H {
        if shape == Shape::Vec4 && v.to_bits() == 0 {
            return self.zero4();
        }
        let s = self.f32(v);
        self.fit(s, shape)
    }
    /// `vec4<f32>(+0)`, one expression for the whole function.
    pub fn zero4(&mut self) -> H {
        if let Some(h) = self.zero4 {
            return h;
        }
        let h = self.expr(Expression::ZeroValue(self.vec4_f32));
        self.zero4 = Some(h);
        h
    }
    /// A scalar expression splatted to `shape`.
    pub fn fit(&mut self, s: H, shape: Shape) -> H {
        match shape {
            Shape::Scalar => s,
            Shape::Vec4 => self.splat(s),
        }
    }
    pub fn splat(&mut self, value: H) -> H {
        self.expr(Expression::Splat {
            size: VectorSize::Quad,
            value,
        })
    }
    /// A `vec4<f32>` of four bit patterns (any of them may be infinite or NaN).
    pub fn vec4_bits(&mut self, module: &mut Module, bits: [u32; 4]) -> H {
        if let Some(&h) = self.reuse.get(&Reuse::Bits(bits)) {
            return h;
        }
        let parts = bits.map(|b| self.f32(f32::from_bits(b)));
        let h = self.compose(module, vec4(Scalar::F32), parts.to_vec());
        self.reuse.insert(Reuse::Bits(bits), h);
        h
    }
    pub fn compose(&mut self, module: &mut Module, inner: TypeInner, components: Vec<H>) -> H {
        let ty = ty(module, inner);
        self.expr(Expression::Compose { ty, components })
    }
    pub fn bin(&mut self, op: BinaryOperator, left: H, right: H) -> H {
        self.expr(Expression::Binary { op, left, right })
    }
    pub fn add(&mut self, a: H, b: H) -> H {
        self.bin(BinaryOperator::Add, a, b)
    }
    pub fn sub(&mut self, a: H, b: H) -> H {
        self.bin(BinaryOperator::Subtract, a, b)
    }
    pub fn fmul(&mut self, a: H, b: H) -> H {
        self.bin(BinaryOperator::Multiply, a, b)
    }
    pub fn neg(&mut self, a: H) -> H {
        self.expr(Expression::Unary {
            op: naga::UnaryOperator::Negate,
            expr: a,
        })
    }
    pub fn not(&mut self, a: H) -> H {
        self.expr(Expression::Unary {
            op: naga::UnaryOperator::LogicalNot,
            expr: a,
        })
    }
    pub fn math(&mut self, fun: MathFunction, arg: H) -> H {
        self.math_n(fun, arg, None, None)
    }
    pub fn math_n(&mut self, fun: MathFunction, arg: H, arg1: Option<H>, arg2: Option<H>) -> H {
        self.expr(Expression::Math {
            fun,
            arg,
            arg1,
            arg2,
            arg3: None,
        })
    }
    /// `condition ? accept : reject`.
    pub fn select(&mut self, condition: H, accept: H, reject: H) -> H {
        self.expr(Expression::Select {
            condition,
            accept,
            reject,
        })
    }
    /// Component `index` of a vector (or the pointer to it). A component of a splat, a
    /// swizzle or the +0 vector is taken from what they were made of, so a scalar result
    /// written through a mask, or a swizzled operand read one component at a time, adds no
    /// expression.
    pub fn index(&mut self, base: H, index: u32) -> H {
        match self.f.expressions[base] {
            Expression::Splat { value, .. } => return value,
            Expression::Swizzle {
                vector, pattern, ..
            } if (index as usize) < pattern.len() => {
                return self.index(vector, pattern[index as usize] as u32);
            }
            Expression::ZeroValue(ty) if ty == self.vec4_f32 => return self.f32(0.0),
            _ => {}
        }
        if let Some(&h) = self.reuse.get(&Reuse::Component(base, index)) {
            return h;
        }
        let h = self.expr(Expression::AccessIndex { base, index });
        self.reuse.insert(Reuse::Component(base, index), h);
        h
    }
    /// The value `pointer` points at: the value already loaded through the same path in
    /// this block since the last store to its variable, or a new load.
    pub fn load(&mut self, pointer: H) -> H {
        let key = self
            .path(pointer)
            .map(|(root, path)| Reuse::Load(root, path));
        if let Some(&h) = key.as_ref().and_then(|k| self.reuse.get(k)) {
            return h;
        }
        let h = self.expr(Expression::Load { pointer });
        if let Some(k) = key {
            self.reuse.insert(k, h);
        }
        h
    }
    pub fn store(&mut self, pointer: H, value: H) {
        self.stmt(Statement::Store { pointer, value });
    }
    /// A four-component swizzle; the identity gives `v` itself.
    pub fn swizzle(&mut self, v: H, pattern: [u8; 4]) -> H {
        if pattern == [0, 1, 2, 3] {
            return v;
        }
        self.expr(Expression::Swizzle {
            size: VectorSize::Quad,
            vector: v,
            pattern: pattern.map(component),
        })
    }
    /// The first `n` (2 or 3) components of a vector.
    pub fn prefix(&mut self, v: H, n: u8) -> H {
        let size = if n == 2 {
            VectorSize::Bi
        } else {
            VectorSize::Tri
        };
        self.expr(Expression::Swizzle {
            size,
            vector: v,
            pattern: [0, 1, 2, 3].map(component),
        })
    }
    pub fn bitcast(&mut self, expr: H, kind: ScalarKind) -> H {
        if let Some(&h) = self.reuse.get(&Reuse::Bitcast(expr, kind)) {
            return h;
        }
        let h = self.expr(Expression::As {
            expr,
            kind,
            convert: None,
        });
        self.reuse.insert(Reuse::Bitcast(expr, kind), h);
        h
    }
    pub fn convert(&mut self, expr: H, kind: ScalarKind) -> H {
        self.expr(Expression::As {
            expr,
            kind,
            convert: Some(4),
        })
    }
}

fn component(c: u8) -> SwizzleComponent {
    match c & 3 {
        0 => SwizzleComponent::X,
        1 => SwizzleComponent::Y,
        2 => SwizzleComponent::Z,
        _ => SwizzleComponent::W,
    }
}

pub(crate) fn vec4(scalar: Scalar) -> TypeInner {
    TypeInner::Vector {
        size: VectorSize::Quad,
        scalar,
    }
}

pub(crate) fn ty(module: &mut Module, inner: TypeInner) -> Handle<Type> {
    module
        .types
        .insert(Type { name: None, inner }, Span::UNDEFINED)
}

pub(crate) fn named_ty(module: &mut Module, name: &str, inner: TypeInner) -> Handle<Type> {
    module.types.insert(
        Type {
            name: Some(name.to_string()),
            inner,
        },
        Span::UNDEFINED,
    )
}
