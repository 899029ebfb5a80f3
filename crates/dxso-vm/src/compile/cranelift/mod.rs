//! The Cranelift code generator: four lanes per instruction, on any processor Cranelift
//! targets. Inputs and constants are read from the batch arena (constant rows there are
//! already broadcast), outputs are written to it; temporaries, gathered operands, a0 and p0
//! are Cranelift variables (in pixel programs every row stays in the arena: `pixel`).
//! `ops` emits each operation by its `dxso::formula` formula over `lanes` (the formulas' lane
//! type over Cranelift values), `pixel` the pixel programs' own operations.

mod lanes;
mod ops;
mod pixel;

use super::Entry;
use crate::LANES;
use crate::program::*;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, Block, ConstantData, Endianness, InstBuilder, MemFlagsData, SigRef, Signature,
    StackSlot, StackSlotData, StackSlotKind, Type, Value, types,
};
use cranelift_codegen::isa::CallConv;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use dxso::ir::Comparison;

/// Cranelift's code for one program: the module that owns it, and its entry.
pub(super) struct Code {
    module: Option<JITModule>,
    pub(super) entry: Entry,
}

// SAFETY: the module is only read after `finalize_definitions` (its code is immutable), and
// the entry point touches nothing but the memory passed to it.
unsafe impl Send for Code {}
// SAFETY: as for `Send`: shared access only reads the finished code and calls it.
unsafe impl Sync for Code {}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: `entry` is not called after the code is dropped.
            unsafe { m.free_memory() };
        }
    }
}

/// Compile `p`; `dump` prints its machine code to stderr.
pub(super) fn generate(p: &Program, dump: bool) -> Result<Code, String> {
    // What only the x86 code generator compiles.
    let x86_only = |op: &Op| match op {
        Op::IfDyn { .. }
        | Op::ElseDyn { .. }
        | Op::EndIfDyn
        | Op::Break { .. }
        | Op::Call { .. }
        | Op::CallBool { .. }
        | Op::CallPred { .. } => true,
        Op::Alu { dst, .. } => matches!(dst.kind, DstKind::OutputByLoop(_)),
        _ => false,
    };
    if let Some(op) = p.ops.iter().find(|op| x86_only(op)) {
        return Err(format!("{op:?} (the x86 code generator's only)"));
    }
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| f.set(k, v).map_err(|e| e.to_string());
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    let isa = cranelift_native::builder()
        .map_err(|e| e.to_string())?
        .finish(settings::Flags::new(flags))
        .map_err(|e| e.to_string())?;
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let ptr = module.target_config().pointer_type();
    let mut sig = Signature::new(call_conv(module.isa()));
    for t in [ptr, ptr, types::I64, ptr, ptr, types::I64, ptr] {
        sig.params.push(AbiParam::new(t));
    }
    sig.returns.push(AbiParam::new(types::I32));
    let id = module
        .declare_function("shader", Linkage::Local, &sig)
        .map_err(|e| e.to_string())?;
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    let mut fctx = FunctionBuilderContext::new();
    {
        let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let mut e = Emitter::new(b, p, ptr, call_conv(module.isa()));
        e.program()?;
        e.b.seal_all_blocks();
        e.b.finalize(module.target_config());
    }
    ctx.set_disasm(dump);
    module
        .define_function(id, &mut ctx)
        .map_err(|e| format!("{e:?}"))?;
    if let Some(text) = ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
        eprintln!("{text}");
    }
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(|e| e.to_string())?;
    let code = module.get_finalized_function(id);
    // SAFETY: the function was declared with exactly `Entry`'s signature and calling
    // convention ([`call_conv`]).
    let entry: Entry = unsafe { std::mem::transmute::<*const u8, Entry>(code) };
    Ok(Code {
        module: Some(module),
        entry,
    })
}

const ROW_BYTES: i64 = (LANES * 4) as i64;
/// Groups of four lanes interleaved: each operation is emitted for `K` groups in a row, so
/// the processor overlaps their (long) dependency chains.
const K: usize = 1;
const F4: Type = types::F32X4;
const I4: Type = types::I32X4;

struct Emitter<'a> {
    b: FunctionBuilder<'a>,
    p: &'a Program,
    /// Variables of the rows held in registers (temps and gather scratch), by row.
    vars: Vec<Option<[Variable; K]>>,
    a0: [[Variable; K]; 4],
    p0: [[Variable; K]; 4],
    /// The interleaved group being emitted.
    k: usize,
    al: Variable,
    executed: Variable,
    /// Byte offset of the current group of four lanes within a row.
    group: Variable,
    /// Per `Loop` op: (remaining, saved aL, step).
    loops: Vec<Option<[Variable; 3]>>,
    /// The entry block's parameters.
    arena: Value,
    consts: Value,
    nconsts: Value,
    ints: Value,
    bools: Value,
    max: Value,
    sampling: Value,
    ptr: Type,
    /// The callbacks' signatures (texldl, sincos) and the stack slot they work in.
    texldl_sig: SigRef,
    sincos_sig: SigRef,
    io: StackSlot,
    /// Instructions counted but not yet added to `executed`.
    pending: i64,
}

/// The calling convention of the entry and of the callbacks it calls, as `code_abi!` in
/// `compile` declares them: System V on x86-64 (Windows included), the target's default
/// elsewhere.
pub(super) fn call_conv(isa: &dyn cranelift_codegen::isa::TargetIsa) -> CallConv {
    if cfg!(target_arch = "x86_64") {
        CallConv::SystemV
    } else {
        isa.default_call_conv()
    }
}

fn mem() -> MemFlagsData {
    MemFlagsData::trusted().with_endianness(Endianness::Little)
}

fn bits() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl<'a> Emitter<'a> {
    fn new(
        mut b: FunctionBuilder<'a>,
        p: &'a Program,
        ptr: Type,
        call_conv: CallConv,
    ) -> Emitter<'a> {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let mut vars = vec![None; p.rows];
        // Pixel programs keep every row in the arena, which their runner sets up as the
        // interpreter finds it (ps_1_x's colour r0, the ps_1_1 .. ps_1_3 `t#` results that
        // start as coordinates) and reads back.
        let in_regs = |r: u16| p.pixel.is_none() && (r < INPUT_BASE || r >= p.scratch_base());
        let mut mark = |r: u16, b: &mut FunctionBuilder| {
            if in_regs(r) && vars[r as usize].is_none() {
                vars[r as usize] = Some(std::array::from_fn(|_| b.declare_var(F4)));
            }
        };
        for op in &p.ops {
            match op {
                Op::Alu { dst, src, .. } => {
                    for s in src {
                        s.rows.iter().for_each(|&r| mark(r, &mut b));
                    }
                    if let DstKind::Rows(r) = dst.kind {
                        (r..r + 4).for_each(|r| mark(r, &mut b));
                    }
                }
                Op::GatherConstA0 { dst, .. }
                | Op::GatherConstAl { dst, .. }
                | Op::GatherInputAl { dst, .. }
                | Op::GatherInputA0 { dst, .. } => (*dst..dst + 4).for_each(|r| mark(r, &mut b)),
                _ => {}
            }
        }
        let sig = |params: &[Type]| {
            let mut sig = Signature::new(call_conv);
            sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
            sig
        };
        let texldl_sig = b.import_signature(sig(&[ptr, types::I32, ptr]));
        let sincos_sig = b.import_signature(sig(&[ptr]));
        // Four vectors (texldl, sincos), twelve for a pixel program's sampling.
        let io = b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 192, 4));
        let a0 = std::array::from_fn(|_| std::array::from_fn(|_| b.declare_var(I4)));
        let p0 = std::array::from_fn(|_| std::array::from_fn(|_| b.declare_var(I4)));
        let al = b.declare_var(types::I32);
        let executed = b.declare_var(types::I64);
        let group = b.declare_var(types::I64);
        let loops = p
            .ops
            .iter()
            .map(|op| {
                matches!(op, Op::Loop { .. })
                    .then(|| std::array::from_fn(|_| b.declare_var(types::I32)))
            })
            .collect();
        Emitter {
            b,
            p,
            vars,
            a0,
            p0,
            k: 0,
            al,
            executed,
            group,
            loops,
            arena: params[0],
            consts: params[1],
            nconsts: params[2],
            ints: params[3],
            bools: params[4],
            max: params[5],
            sampling: params[6],
            ptr,
            texldl_sig,
            sincos_sig,
            io,
            pending: 0,
        }
    }

    fn var(&self, row: u16) -> Option<Variable> {
        self.vars[row as usize].map(|v| v[self.k])
    }

    fn a0(&self, c: usize) -> Variable {
        self.a0[c][self.k]
    }

    fn p0(&self, c: usize) -> Variable {
        self.p0[c][self.k]
    }

    /// Byte offset of the interleaved group within the current lane group.
    fn lane_off(&self) -> i32 {
        self.k as i32 * 16
    }

    fn f(&mut self, x: f32) -> Value {
        let s = self.b.ins().f32const(x);
        self.b.ins().splat(F4, s)
    }

    fn i(&mut self, x: i32) -> Value {
        let s = self.b.ins().iconst(types::I32, x as i64);
        self.b.ins().splat(I4, s)
    }

    fn as_i(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(I4, bits(), v)
    }

    fn as_f(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(F4, bits(), v)
    }

    /// Lane-wise `mask ? a : b` for floats.
    fn sel(&mut self, mask: Value, a: Value, b: Value) -> Value {
        let (a, b) = (self.as_i(a), self.as_i(b));
        let r = self.b.ins().bitselect(mask, a, b);
        self.as_f(r)
    }

    fn cmp(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        self.b.ins().fcmp(cc, a, b)
    }

    /// The address of lane group `group` of arena row `row`.
    fn row_addr(&mut self, row: Value) -> Value {
        let off = self.b.ins().imul_imm_s(row, ROW_BYTES);
        let g = self.b.use_var(self.group);
        let off = self.b.ins().iadd(off, g);
        self.b.ins().iadd(self.arena, off)
    }

    fn read_row(&mut self, row: u16) -> Value {
        if let Some(v) = self.var(row) {
            return self.b.use_var(v);
        }
        if self.p.is_const_row(row) {
            // Constant rows hold the value in every lane: any four of them do.
            return self
                .b
                .ins()
                .load(F4, mem(), self.arena, row as i32 * ROW_BYTES as i32);
        }
        let g = self.b.use_var(self.group);
        let at = self.b.ins().iadd(self.arena, g);
        let off = row as i32 * ROW_BYTES as i32 + self.lane_off();
        self.b.ins().load(F4, mem(), at, off)
    }

    fn write_row(&mut self, row: u16, v: Value) {
        match self.var(row) {
            Some(var) => self.b.def_var(var, v),
            None => {
                let g = self.b.use_var(self.group);
                let at = self.b.ins().iadd(self.arena, g);
                let off = row as i32 * ROW_BYTES as i32 + self.lane_off();
                self.b.ins().store(mem(), v, at, off);
            }
        }
    }

    fn src(&mut self, s: &SrcRef, c: usize) -> Value {
        let v = self.src_unnegated(s, c);
        if s.xor != 0 { self.b.ins().fneg(v) } else { v }
    }

    /// A source with `_abs` applied but not negation.
    fn src_unnegated(&mut self, s: &SrcRef, c: usize) -> Value {
        let v = self.read_row(s.rows[c]);
        if s.and != u32::MAX {
            self.b.ins().fabs(v)
        } else {
            v
        }
    }

    fn flush_count(&mut self) {
        if self.pending != 0 {
            let e = self.b.use_var(self.executed);
            let e = self.b.ins().iadd_imm_s(e, self.pending);
            self.b.def_var(self.executed, e);
            self.pending = 0;
        }
    }

    /// Return 1 from the function when more than the allowed instructions ran.
    fn check_limit(&mut self) {
        self.flush_count();
        let e = self.b.use_var(self.executed);
        let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, e, self.max);
        let bail = self.b.create_block();
        let go = self.b.create_block();
        self.b.ins().brif(over, bail, &[], go, &[]);
        self.b.switch_to_block(bail);
        let one = self.b.ins().iconst(types::I32, 1);
        self.b.ins().return_(&[one]);
        self.b.switch_to_block(go);
    }

    fn program(&mut self) -> Result<(), String> {
        let ops = &self.p.ops;
        let n = ops.len();
        let leaders = self.p.block_starts();
        let blocks: Vec<Option<Block>> = (0..=n)
            .map(|pc| leaders.contains(&pc).then(|| self.b.create_block()))
            .collect();
        let block = |pc: usize| blocks[pc.min(n)].expect("a leader");

        // Entry: the first group.
        let zero64 = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(self.group, zero64);
        let head = self.b.create_block();
        self.b.ins().jump(head, &[]);

        self.b.switch_to_block(head);
        self.zero_group();
        self.b.ins().jump(block(0), &[]);
        self.b.switch_to_block(block(0));

        let mut terminated = false;
        for pc in 0..n {
            if pc > 0
                && let Some(bl) = blocks[pc]
            {
                if !terminated {
                    self.flush_count();
                    self.b.ins().jump(bl, &[]);
                }
                self.b.switch_to_block(bl);
            }
            terminated = false;
            self.pending += 1;
            match ops[pc] {
                Op::Alu { .. }
                | Op::Pixel(_)
                | Op::GatherConstA0 { .. }
                | Op::GatherConstAl { .. }
                | Op::GatherInputAl { .. }
                | Op::GatherInputA0 { .. } => {
                    for k in 0..K {
                        self.k = k;
                        self.lanes(&ops[pc]);
                    }
                }
                Op::IfBool { b, not, target } => {
                    self.flush_count();
                    let v = self.b.ins().uload8(types::I32, mem(), self.bools, b as i32);
                    // Jump when the bool equals `not` (the if is not taken).
                    let skip = self.b.ins().icmp_imm_s(IntCC::Equal, v, not as i64);
                    self.b
                        .ins()
                        .brif(skip, block(target as usize), &[], block(pc + 1), &[]);
                    terminated = true;
                }
                Op::Jump { target } => {
                    self.flush_count();
                    self.b.ins().jump(block(target as usize), &[]);
                    terminated = true;
                }
                Op::Ret => {
                    self.flush_count();
                    self.b.ins().jump(block(n), &[]);
                    terminated = true;
                }
                Op::Loop { i, end, al } => {
                    self.flush_count();
                    let [remaining, saved, step] = self.loops[pc].expect("a loop's variables");
                    let at = i as i32 * 16;
                    let count = self.b.ins().load(types::I32, mem(), self.ints, at);
                    let start = self.b.ins().load(types::I32, mem(), self.ints, at + 4);
                    let st = self.b.ins().load(types::I32, mem(), self.ints, at + 8);
                    self.b.def_var(remaining, count);
                    let cur = self.b.use_var(self.al);
                    self.b.def_var(saved, cur);
                    self.b.def_var(step, st);
                    if al {
                        self.b.def_var(self.al, start);
                    }
                    // C15: the count is unsigned; zero skips the body.
                    self.b
                        .ins()
                        .brif(count, block(pc + 1), &[], block(end as usize + 1), &[]);
                    terminated = true;
                }
                Op::EndLoop { start } => {
                    self.check_limit();
                    let Op::Loop { al, .. } = ops[start as usize - 1] else {
                        return Err("endloop without its loop".into());
                    };
                    let [remaining, saved, step] =
                        self.loops[start as usize - 1].expect("a loop's variables");
                    let r = self.b.use_var(remaining);
                    let r = self.b.ins().iadd_imm_s(r, -1);
                    self.b.def_var(remaining, r);
                    if al {
                        let a = self.b.use_var(self.al);
                        let s = self.b.use_var(step);
                        let a = self.b.ins().iadd(a, s);
                        self.b.def_var(self.al, a);
                    }
                    let done = self.b.create_block();
                    self.b.ins().brif(r, block(start as usize), &[], done, &[]);
                    self.b.switch_to_block(done);
                    if al {
                        let s = self.b.use_var(saved);
                        self.b.def_var(self.al, s);
                    }
                    self.b.ins().jump(block(pc + 1), &[]);
                    terminated = true;
                }
                ref other => return Err(format!("{other:?}")),
            }
        }
        if n == 0 {
            // No ops: block(0) is already the end of the group.
            self.flush_count();
        } else {
            if !terminated {
                self.flush_count();
                self.b.ins().jump(block(n), &[]);
            }
            self.b.switch_to_block(block(n));
        }
        self.next_group(head);
        Ok(())
    }

    /// The start of a group of four lanes: zeroed registers, a0, p0, aL and count.
    fn zero_group(&mut self) {
        let zf = self.f(0.0);
        for v in self.vars.clone().into_iter().flatten().flatten() {
            self.b.def_var(v, zf);
        }
        let zi = self.i(0);
        for c in 0..4 {
            for k in 0..K {
                self.b.def_var(self.a0[c][k], zi);
                self.b.def_var(self.p0[c][k], zi);
            }
        }
        let z32 = self.b.ins().iconst(types::I32, 0);
        self.b.def_var(self.al, z32);
        let z64 = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(self.executed, z64);
    }

    /// The end of a group: the instruction limit, then the next group (at `head`) or the
    /// return.
    fn next_group(&mut self, head: Block) {
        self.check_limit();
        let g = self.b.use_var(self.group);
        let g = self.b.ins().iadd_imm_s(g, 16 * K as i64);
        self.b.def_var(self.group, g);
        let more = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, g, (LANES * 4) as i64);
        let ret = self.b.create_block();
        self.b.ins().brif(more, head, &[], ret, &[]);
        self.b.switch_to_block(ret);
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.ins().return_(&[zero]);
    }

    /// An operation on the lanes of interleaved group `self.k`.
    fn lanes(&mut self, op: &Op) {
        match *op {
            Op::Alu { kind, dst, src } => self.alu(kind, &dst, &src),
            Op::Pixel(crate::pixel::PixelOp::Sample {
                dst,
                coord,
                dx: gx,
                dy: gy,
                sampler,
                swizzle,
                mode,
            }) => self.sample(&dst, [coord, gx, gy], sampler, swizzle, mode),
            Op::Pixel(crate::pixel::PixelOp::DepthRatio { num, den }) => self.depth_ratio(num, den),
            Op::Pixel(crate::pixel::PixelOp::Divide { dst, src, q }) => self.divide(&dst, &src, q),
            Op::GatherConstA0 { dst, base, comp } => self.gather_const_a0(dst, base, comp),
            Op::GatherConstAl { dst, base } => self.gather_const_al(dst, base),
            Op::GatherInputAl { dst, base } => self.gather_input_al(dst, base),
            Op::GatherInputA0 { dst, base, comp } => self.gather_input_a0(dst, base, comp),
            _ => unreachable!("per-lane operations only"),
        }
    }

    /// Four lanes' registers (one vector each) turned into four component vectors.
    fn transpose(&mut self, v: [Value; 4]) -> [Value; 4] {
        let shuf = |b: &mut FunctionBuilder, x: Value, y: Value, lanes: [u8; 4]| {
            let bytes: Vec<u8> = lanes
                .iter()
                .flat_map(|&l| (0..4).map(move |k| l * 4 + k))
                .collect();
            let imm = b.func.dfg.immediates.push(ConstantData::from(bytes));
            let x = b.ins().bitcast(types::I8X16, bits(), x);
            let y = b.ins().bitcast(types::I8X16, bits(), y);
            let r = b.ins().shuffle(x, y, imm);
            b.ins().bitcast(F4, bits(), r)
        };
        let b = &mut self.b;
        let t0 = shuf(b, v[0], v[1], [0, 4, 1, 5]);
        let t1 = shuf(b, v[0], v[1], [2, 6, 3, 7]);
        let t2 = shuf(b, v[2], v[3], [0, 4, 1, 5]);
        let t3 = shuf(b, v[2], v[3], [2, 6, 3, 7]);
        [
            shuf(b, t0, t2, [0, 1, 4, 5]),
            shuf(b, t0, t2, [2, 3, 6, 7]),
            shuf(b, t1, t3, [0, 1, 4, 5]),
            shuf(b, t1, t3, [2, 3, 6, 7]),
        ]
    }

    /// Rows = c[base + a0.comp] per lane; outside the file, the zero register at its end.
    fn gather_const_a0(&mut self, dst: u16, base: i32, comp: u8) {
        let idx = self.b.use_var(self.a0(comp as usize));
        let last = self.b.ins().iadd_imm_s(self.nconsts, -1);
        let regs: [Value; 4] = std::array::from_fn(|l| {
            let a = self.b.ins().extractlane(idx, l as u8);
            let a = self.b.ins().sextend(types::I64, a);
            let i = self.b.ins().iadd_imm_s(a, base as i64);
            let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, last);
            let mut at = self.b.ins().select(ok, i, last);
            if crate::compile::broken_gather() != 0 {
                at = self
                    .b
                    .ins()
                    .iadd_imm_s(at, crate::compile::broken_gather() as i64);
            }
            let off = self.b.ins().imul_imm_s(at, 16);
            let addr = self.b.ins().iadd(self.consts, off);
            self.b.ins().load(F4, mem(), addr, 0)
        });
        let cols = self.transpose(regs);
        for (c, v) in cols.into_iter().enumerate() {
            self.write_row(dst + c as u16, v);
        }
    }

    /// Rows = c[base + aL] (uniform).
    fn gather_const_al(&mut self, dst: u16, base: i32) {
        let al = self.b.use_var(self.al);
        let i = self.b.ins().iadd_imm_s(al, base as i64);
        let i = self.b.ins().sextend(types::I64, i);
        let last = self.b.ins().iadd_imm_s(self.nconsts, -1);
        let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, self.nconsts);
        let at = self.b.ins().select(ok, i, last);
        let off = self.b.ins().imul_imm_s(at, 16);
        let addr = self.b.ins().iadd(self.consts, off);
        for c in 0..4 {
            let s = self.b.ins().load(types::F32, mem(), addr, c as i32 * 4);
            let v = self.b.ins().splat(F4, s);
            self.write_row(dst + c, v);
        }
    }

    /// Input register `base + index`: whether it is inside v0..v15, and the register (v0
    /// when it is not).
    fn input_index(&mut self, index: Value, base: i32) -> (Value, Value) {
        let i = self.b.ins().iadd_imm_s(index, base as i64);
        let ok = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, i, INPUTS as i64);
        let zero = self.b.ins().iconst(types::I32, 0);
        let i = self.b.ins().select(ok, i, zero);
        (ok, self.b.ins().uextend(types::I64, i))
    }

    /// Rows = v[base + aL] (uniform); outside v0..v15, zero.
    fn gather_input_al(&mut self, dst: u16, base: i32) {
        let al = self.b.use_var(self.al);
        let (ok, i) = self.input_index(al, base);
        let z = self.f(0.0);
        for c in 0..4 {
            let row = self.b.ins().imul_imm_s(i, 4);
            let row = self.b.ins().iadd_imm_s(row, INPUT_BASE as i64 + c as i64);
            let addr = self.row_addr(row);
            let off = self.lane_off();
            let v = self.b.ins().load(F4, mem(), addr, off);
            let v = self.b.ins().select(ok, v, z);
            self.write_row(dst + c, v);
        }
    }

    /// Rows = v[base + a0.comp] per lane; outside v0..v15, zero.
    fn gather_input_a0(&mut self, dst: u16, base: i32, comp: u8) {
        let idx = self.b.use_var(self.a0(comp as usize));
        let g = self.b.use_var(self.group);
        for c in 0..4u16 {
            let mut v = self.f(0.0);
            for l in 0..4u8 {
                let a = self.b.ins().extractlane(idx, l);
                let (ok, i) = self.input_index(a, base);
                let row = self.b.ins().imul_imm_s(i, 4 * ROW_BYTES);
                let off = self.b.ins().iadd(row, g);
                let addr = self.b.ins().iadd(self.arena, off);
                let off = (INPUT_BASE as i32 + c as i32) * ROW_BYTES as i32
                    + self.lane_off()
                    + l as i32 * 4;
                let x = self.b.ins().load(types::F32, mem(), addr, off);
                let zf = self.b.ins().f32const(0.0);
                let x = self.b.ins().select(ok, x, zf);
                v = self.b.ins().insertlane(v, x, l);
            }
            self.write_row(dst + c, v);
        }
    }
}
