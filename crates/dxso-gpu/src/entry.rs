//! The compute entry point added (in naga IR) to a copy of a translated module: one
//! invocation per vertex reads the vertex's input registers from a storage buffer, calls the
//! translated body and stores its output registers in another.
//!
//! ```text
//! @group(G) @binding(0) var<uniform> params: vec4<u32>;               // x: vertices of the dispatch
//! @group(G) @binding(1) var<storage, read> inputs: array<vec4<f32>>;  // vertex-major, a register each
//! @group(G) @binding(2) var<storage, read_write> outputs: array<vec4<f32>>;
//! @compute @workgroup_size(64)
//! fn dxso_gpu_main(@builtin(global_invocation_id) id: vec3<u32>) {
//!     if id.x >= params.x { return; }
//!     let r = body(In(inputs[id.x * I + 0], ...));
//!     outputs[id.x * O + 0] = r.m0; ...
//! }
//! ```
//!
//! `G` is the first bind group the translated module does not use. `inputs` is absent when
//! the body takes no registers, `outputs` when it returns none.

use crate::Error;
use naga::{
    AddressSpace, BinaryOperator, Binding, Block, BuiltIn, EntryPoint, Expression, Function,
    FunctionArgument, Handle, Literal, MemoryDecorations, Module, Range, ResourceBinding, Scalar,
    ShaderStage, Span, Statement, StorageAccess, Type, TypeInner, VectorSize,
};

/// The entry point's name.
pub const ENTRY_POINT: &str = "dxso_gpu_main";
/// Invocations per workgroup.
pub const WORKGROUP_SIZE: u32 = 64;
/// Bindings within the entry's group.
pub const PARAMS_BINDING: u32 = 0;
/// The input buffer's binding.
pub const INPUTS_BINDING: u32 = 1;
/// The output buffer's binding.
pub const OUTPUTS_BINDING: u32 = 2;

/// A translated module with the compute entry added, validated.
pub struct Entry {
    /// The module with the entry added.
    pub module: Module,
    /// naga's analysis of `module` (what the back ends need).
    pub info: naga::valid::ModuleInfo,
    /// The bind group of the entry's own buffers.
    pub group: u32,
    /// Registers the body takes (members of its argument) and returns (of its result).
    pub inputs: u32,
    /// Registers the body returns (members of its result).
    pub outputs: u32,
}

/// The `vec4<f32>` members of the struct type `ty` (the body's argument or result).
fn members(module: &Module, ty: Handle<Type>, what: &str) -> Result<u32, Error> {
    let bad = || Error::Interface(format!("the body's {what} is not a struct of vec4<f32>"));
    let TypeInner::Struct { members, .. } = &module.types.get_handle(ty).map_err(|_| bad())?.inner
    else {
        return Err(bad());
    };
    for m in members {
        match module.types[m.ty].inner {
            TypeInner::Vector {
                size: VectorSize::Quad,
                scalar: Scalar::F32,
            } => {}
            _ => return Err(bad()),
        }
    }
    u32::try_from(members.len()).map_err(|_| bad())
}

/// Expressions of the entry function, each emitted where it is made.
struct Builder {
    f: Function,
}

impl Builder {
    /// An expression that needs no emitting (arguments, globals, literals, call results).
    fn pre(&mut self, e: Expression) -> Handle<Expression> {
        self.f.expressions.append(e, Span::UNDEFINED)
    }

    /// An expression evaluated at this point of `block`.
    fn emit(&mut self, block: &mut Block, e: Expression) -> Handle<Expression> {
        let h = self.f.expressions.append(e, Span::UNDEFINED);
        block.push(
            Statement::Emit(Range::new_from_bounds(h, h)),
            Span::UNDEFINED,
        );
        h
    }

    /// `inputs[base + k]` style element pointer: `base * stride + k` into `array`.
    fn element(
        &mut self,
        block: &mut Block,
        array: Handle<Expression>,
        base: Handle<Expression>,
        stride: u32,
        k: u32,
    ) -> Handle<Expression> {
        let stride = self.pre(Expression::Literal(Literal::U32(stride)));
        let k = self.pre(Expression::Literal(Literal::U32(k)));
        let first = self.emit(
            block,
            Expression::Binary {
                op: BinaryOperator::Multiply,
                left: base,
                right: stride,
            },
        );
        let index = self.emit(
            block,
            Expression::Binary {
                op: BinaryOperator::Add,
                left: first,
                right: k,
            },
        );
        self.emit(block, Expression::Access { base: array, index })
    }

    /// The invocation's vertex (`id.x`), after a return for the invocations past the
    /// dispatch's vertex count (`params.x`).
    fn guard(
        &mut self,
        block: &mut Block,
        params: Handle<naga::GlobalVariable>,
    ) -> Handle<Expression> {
        let id = self.pre(Expression::FunctionArgument(0));
        let params_ptr = self.pre(Expression::GlobalVariable(params));
        let x = self.emit(block, Expression::AccessIndex { base: id, index: 0 });
        let params_v = self.emit(
            block,
            Expression::Load {
                pointer: params_ptr,
            },
        );
        let count = self.emit(
            block,
            Expression::AccessIndex {
                base: params_v,
                index: 0,
            },
        );
        let past = self.emit(
            block,
            Expression::Binary {
                op: BinaryOperator::GreaterEqual,
                left: x,
                right: count,
            },
        );
        block.push(
            Statement::If {
                condition: past,
                accept: Block::from_vec(vec![Statement::Return { value: None }]),
                reject: Block::new(),
            },
            Span::UNDEFINED,
        );
        x
    }
}

/// Copy `module`, add the compute entry calling `body`, and validate the result. The first
/// `inputs` members of the body's argument come from the input buffer (the others are 0: a
/// body without inputs takes a placeholder member); the first `outputs` members of its
/// result go to the output buffer. By phase: the body's shape, the types and buffers the
/// entry uses, the entry function, then naga's validation.
pub fn add_compute_entry(
    module: &Module,
    body: Handle<Function>,
    inputs: u32,
    outputs: u32,
) -> Result<Entry, Error> {
    let mut m = module.clone();
    let shape = body_shape(&m, body, inputs, outputs)?;
    let group = m
        .global_variables
        .iter()
        .filter_map(|(_, g)| g.binding.map(|b| b.group + 1))
        .max()
        .unwrap_or(0);
    let globals = add_globals(&mut m, group, inputs, outputs);
    let function = entry_function(&globals, body, &shape, inputs, outputs);
    m.entry_points.push(EntryPoint {
        name: ENTRY_POINT.into(),
        stage: ShaderStage::Compute,
        early_depth_test: None,
        workgroup_size: [WORKGROUP_SIZE, 1, 1],
        workgroup_size_overrides: None,
        function,
        mesh_info: None,
        task_payload: None,
        incoming_ray_payload: None,
    });
    let info = validate(&m)?;
    Ok(Entry {
        module: m,
        info,
        group,
        inputs,
        outputs,
    })
}

/// The body's argument type (`None`: it takes none) and how many registers its argument
/// and result have.
struct Shape {
    in_ty: Option<Handle<Type>>,
    in_members: u32,
    out_members: u32,
}

/// The shape of `body`, checked against the interface's `inputs` and `outputs`.
fn body_shape(
    m: &Module,
    body: Handle<Function>,
    inputs: u32,
    outputs: u32,
) -> Result<Shape, Error> {
    let f = m
        .functions
        .try_get(body)
        .map_err(|_| Error::Interface("the body function is not in the module".into()))?;
    let in_ty = match f.arguments.as_slice() {
        [] => None,
        [a] => Some(a.ty),
        _ => {
            return Err(Error::Interface(
                "the body takes more than one argument".into(),
            ));
        }
    };
    let in_members = match in_ty {
        Some(ty) => members(m, ty, "argument")?,
        None => 0,
    };
    let out_members = match &f.result {
        Some(r) => members(m, r.ty, "result")?,
        None => 0,
    };
    if inputs > in_members || outputs > out_members {
        return Err(Error::Interface(format!(
            "the interface lists {inputs} inputs and {outputs} outputs; the body takes \
             {in_members} and returns {out_members}"
        )));
    }
    Ok(Shape {
        in_ty,
        in_members,
        out_members,
    })
}

/// The types and global variables the entry uses.
struct Globals {
    uvec3: Handle<Type>,
    vec4: Handle<Type>,
    params: Handle<naga::GlobalVariable>,
    in_buf: Option<Handle<naga::GlobalVariable>>,
    out_buf: Option<Handle<naga::GlobalVariable>>,
}

/// Add the entry's types and its buffers (in `group`; the input and output buffers only
/// where there are registers to move).
fn add_globals(m: &mut Module, group: u32, inputs: u32, outputs: u32) -> Globals {
    let mut ty = |inner| m.types.insert(Type { name: None, inner }, Span::UNDEFINED);
    let uvec3 = ty(TypeInner::Vector {
        size: VectorSize::Tri,
        scalar: Scalar::U32,
    });
    let uvec4 = ty(TypeInner::Vector {
        size: VectorSize::Quad,
        scalar: Scalar::U32,
    });
    let vec4 = ty(TypeInner::Vector {
        size: VectorSize::Quad,
        scalar: Scalar::F32,
    });
    let array = ty(TypeInner::Array {
        base: vec4,
        size: naga::ArraySize::Dynamic,
        stride: 16,
    });
    let mut global = |name: &str, space, binding, ty| {
        m.global_variables.append(
            naga::GlobalVariable {
                name: Some(name.into()),
                space,
                binding: Some(ResourceBinding { group, binding }),
                ty,
                init: None,
                memory_decorations: MemoryDecorations::empty(),
            },
            Span::UNDEFINED,
        )
    };
    let params = global(
        "dxso_gpu_params",
        AddressSpace::Uniform,
        PARAMS_BINDING,
        uvec4,
    );
    let in_buf = (inputs > 0).then(|| {
        global(
            "dxso_gpu_inputs",
            AddressSpace::Storage {
                access: StorageAccess::LOAD,
            },
            INPUTS_BINDING,
            array,
        )
    });
    let out_buf = (outputs > 0).then(|| {
        global(
            "dxso_gpu_outputs",
            AddressSpace::Storage {
                access: StorageAccess::LOAD | StorageAccess::STORE,
            },
            OUTPUTS_BINDING,
            array,
        )
    });

    Globals {
        uvec3,
        vec4,
        params,
        in_buf,
        out_buf,
    }
}

/// The entry function: past the dispatch's vertices return; otherwise load the vertex's
/// input registers, call the body and store its output registers.
fn entry_function(
    g: &Globals,
    body: Handle<Function>,
    shape: &Shape,
    inputs: u32,
    outputs: u32,
) -> Function {
    let Shape {
        in_ty,
        in_members,
        out_members,
    } = *shape;
    let (vec4, in_buf, out_buf) = (g.vec4, g.in_buf, g.out_buf);
    let mut b = Builder {
        f: Function {
            name: Some(ENTRY_POINT.into()),
            arguments: vec![FunctionArgument {
                name: Some("id".into()),
                ty: g.uvec3,
                binding: Some(Binding::BuiltIn(BuiltIn::GlobalInvocationId)),
            }],
            ..Function::default()
        },
    };
    let mut block = Block::new();
    let x = b.guard(&mut block, g.params);
    let mut arguments = Vec::new();
    if let Some(in_ty) = in_ty {
        let mut registers = Vec::new();
        if let Some(in_buf) = in_buf {
            let array = b.pre(Expression::GlobalVariable(in_buf));
            for k in 0..inputs {
                let pointer = b.element(&mut block, array, x, inputs, k);
                registers.push(b.emit(&mut block, Expression::Load { pointer }));
            }
        }
        for _ in inputs..in_members {
            registers.push(b.pre(Expression::ZeroValue(vec4)));
        }
        arguments.push(b.emit(
            &mut block,
            Expression::Compose {
                ty: in_ty,
                components: registers,
            },
        ));
    }
    let result = (out_members > 0).then(|| b.pre(Expression::CallResult(body)));
    block.push(
        Statement::Call {
            function: body,
            arguments,
            result,
        },
        Span::UNDEFINED,
    );
    if let (Some(result), Some(out_buf)) = (result, out_buf) {
        let array = b.pre(Expression::GlobalVariable(out_buf));
        for k in 0..outputs {
            let value = b.emit(
                &mut block,
                Expression::AccessIndex {
                    base: result,
                    index: k,
                },
            );
            let pointer = b.element(&mut block, array, x, outputs, k);
            block.push(Statement::Store { pointer, value }, Span::UNDEFINED);
        }
    }
    b.f.body = block;
    b.f
}

/// naga's validator over a module this crate built or changed.
pub fn validate(m: &Module) -> Result<naga::valid::ModuleInfo, Error> {
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(m)
    .map_err(|e| Error::Validation(e.emit_to_string("")))
}
