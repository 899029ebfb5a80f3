//! One draw's work: its checked bindings and constants ([`Prepared`]), and the batches that
//! fetch, run (compiled code, fused or not, or the interpreter) and store its vertices on
//! the draw's instruction-set path.

use crate::compile::{BatchIo, CodeGenerator, Fused, Jit, take_callback_panic};
use crate::exec::{CONST_PAD, Isa, Machine, OnIsa, Tracer, Uniforms, on_isa};
use crate::fetch::{Binding, Frequency, transpose4};
use crate::guard::Buf;
use crate::program::{INPUT_BASE, Program};
use crate::texture::Sampling;
use crate::{LANES, VmError};

/// A draw's work on a (rayon worker) thread, a panic in it turned into an error of the draw
/// instead of unwinding out of the worker into the caller.
pub(crate) fn caught(work: impl FnOnce() -> Result<(), VmError>) -> Result<(), VmError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(VmError::Panicked(format!("a draw: {what}")))
    })
}

pub(crate) struct Prepared {
    pub bindings: Vec<Binding>,
    pub unbound: Vec<(u8, String)>,
    pub consts: Buf<[f32; 4]>,
    /// Guard-page mode: the draw's indices, guarded (otherwise the device's are used).
    pub indices: Option<Buf<u32>>,
    pub ints: [[i32; 4]; 16],
    pub bools: [bool; 16],
}

impl Prepared {
    /// Guard-page mode: the constant file, every binding's stream and the draw's
    /// `vertex_count` indices into guarded copies.
    pub(crate) fn guard(&mut self, indices: Option<&[u32]>, vertex_count: usize) {
        self.consts.guard();
        for b in &mut self.bindings {
            b.data.guard();
        }
        self.indices = indices.map(|ix| {
            let mut ix = Buf::Heap(ix[..vertex_count].to_vec());
            ix.guard();
            ix
        });
    }

    pub(crate) fn uniforms<'a>(
        &'a self,
        sampling: &'a Sampling<'a>,
        max_instructions: u64,
    ) -> Uniforms<'a> {
        Uniforms {
            consts: &self.consts[CONST_PAD..self.consts.len() - CONST_PAD],
            padded_consts: &self.consts,
            ints: &self.ints,
            bools: &self.bools,
            max_instructions,
            sampling,
            pixel: None,
        }
    }
}

pub(crate) struct DrawContext<'a> {
    pub isa: Isa,
    pub jit: Option<&'a Jit>,
    pub fused: Option<&'a Fused>,
    pub program: &'a Program,
    pub uniforms: &'a Uniforms<'a>,
    pub bindings: &'a [Binding],
    pub unbound: &'a [(u8, String)],
    pub indices: Option<&'a [u32]>,
    pub vertex_count: usize,
}

impl DrawContext<'_> {
    /// Fetch, run and store draw vertices `first .. first + n` in batches of `LANES`, on the
    /// draw's instruction-set path. `out` holds their outputs (empty when there are none).
    pub(crate) fn batches<T: Tracer>(
        &self,
        m: &mut Machine,
        first: usize,
        n: usize,
        out: &mut [f32],
        tracer: &mut T,
    ) -> Result<(), VmError> {
        on_isa(
            self.isa,
            Batches {
                ctx: self,
                m,
                first,
                n,
                out,
                tracer,
            },
        )
    }

    #[inline(always)]
    fn batch<T: Tracer>(
        &self,
        m: &mut Machine,
        start: usize,
        count: usize,
        out: &mut [f32],
        tracer: &mut T,
    ) -> Result<(), VmError> {
        // Compiled code sets the temporaries it reads before writing, and the x86 code
        // generator's code (either width) the outputs too; everything else starts from zero
        // here.
        let compiled = self.jit.filter(|_| !T::ENABLED);
        let x86 = compiled.is_some_and(|j| j.generator() != CodeGenerator::Cranelift);
        m.reset(self.program, compiled.is_none(), !x86);
        // A full batch of consecutive vertices runs fused code where there is some.
        let k = start % self.vertex_count;
        if let Some(fused) = self.fused.filter(|_| !T::ENABLED)
            && count == LANES
            && k + LANES <= self.vertex_count
        {
            let mut io = BatchIo {
                inputs: [std::ptr::null(); 16],
                out: out.as_mut_ptr(),
                indices: self.indices.map_or(std::ptr::null(), |ix| ix[k..].as_ptr()),
                ahead: self.indices.map_or(std::ptr::null(), |ix| {
                    let next = k + LANES;
                    ix[if next + LANES <= ix.len() { next } else { k }..].as_ptr()
                }),
            };
            // Indexed draws address elements from vertex 0's; instance data is the
            // instance's element.
            let first = if self.indices.is_some() { 0 } else { k };
            let instance = start / self.vertex_count;
            for b in self.bindings {
                let element = match b.stream.frequency {
                    Frequency::InstanceData(d) => instance / d as usize,
                    _ => first,
                };
                let at = b.stream.offset + b.element.offset as usize + element * b.stream.stride;
                io.inputs[b.reg as usize] = b.data[at..].as_ptr();
            }
            let within = fused.run(&mut m.rows, self.program, self.uniforms, &io);
            if let Some(name) = take_callback_panic() {
                return Err(VmError::Panicked(name.into()));
            }
            if !within {
                return Err(VmError::InstructionLimit(self.uniforms.max_instructions));
            }
            return Ok(());
        }
        // Where each lane's vertex sits in the draw: vertex k of instance i, and the stream
        // element k reads through the index buffer. Counters, not divisions.
        let (mut k, mut instance) = (start % self.vertex_count, start / self.vertex_count);
        let mut ks = [0usize; LANES];
        let mut instances = [0usize; LANES];
        let mut vix = [0usize; LANES];
        for l in 0..count {
            ks[l] = k;
            instances[l] = instance;
            vix[l] = self.indices.map_or(k, |ix| ix[k] as usize);
            k += 1;
            if k == self.vertex_count {
                k = 0;
                instance += 1;
            }
        }
        for b in self.bindings {
            let base = INPUT_BASE as usize + b.reg as usize * 4;
            let e = &b.element;
            let data = &b.data[..];
            let first = b.stream.offset + e.offset as usize;
            let stride = b.stream.stride;
            let mut at = [0usize; LANES];
            match b.stream.frequency {
                Frequency::Vertex | Frequency::IndexedData(_) => {
                    for l in 0..count {
                        at[l] = first + vix[l] * stride;
                    }
                }
                Frequency::InstanceData(d) => {
                    for l in 0..count {
                        at[l] = first + instances[l] / d as usize * stride;
                    }
                }
                Frequency::Divider(m) => {
                    for l in 0..count {
                        at[l] = first + ks[l] / m as usize * stride;
                    }
                }
            }
            let rows: &mut [[f32; LANES]; 4] = (&mut m.rows[base..base + 4])
                .try_into()
                .expect("a register is four rows");
            e.ty.decode_lanes(data, &at[..count], rows);
        }
        for &(reg, _) in self.unbound {
            let base = INPUT_BASE as usize + reg as usize * 4;
            for (c, x) in [0.0, 0.0, 0.0, 1.0].into_iter().enumerate() {
                m.rows[base + c] = [x; LANES];
            }
        }
        match compiled {
            Some(jit) => {
                let within = jit.run(&mut m.rows, self.program, self.uniforms);
                if let Some(name) = take_callback_panic() {
                    return Err(VmError::Panicked(name.into()));
                }
                if !within {
                    return Err(VmError::InstructionLimit(self.uniforms.max_instructions));
                }
            }
            _ => m.run_traced(self.program, self.uniforms, tracer)?,
        }
        let regs = self.program.outputs.len();
        for (k, r) in self.program.outputs.iter().enumerate() {
            // The output rows are cleared before the next batch: canonicalise in place.
            let canon: &mut [[f32; LANES]; 4] = (&mut m.rows[r.row as usize..r.row as usize + 4])
                .try_into()
                .expect("a register is four rows");
            // One NaN for every NaN: which operand's NaN an IEEE operation returns depends on
            // operand order, which the compiler may swap per instruction set; no non-NaN
            // result depends on it, so outputs are bit-identical.
            for row in canon.iter_mut() {
                for x in row.iter_mut() {
                    if x.is_nan() {
                        *x = f32::NAN;
                    }
                }
            }
            let mut vertices = out.chunks_exact_mut(regs * 4).take(count);
            for l in (0..count / 4 * 4).step_by(4) {
                let four = |c: usize| -> [f32; 4] { canon[c][l..l + 4].try_into().expect("4") };
                let t = transpose4([four(0), four(1), four(2), four(3)]);
                for v in t {
                    let dst = vertices.next().expect("count vertices");
                    dst[k * 4..k * 4 + 4].copy_from_slice(&v);
                }
            }
            for (j, dst) in vertices.enumerate() {
                let l = count / 4 * 4 + j;
                for c in 0..4 {
                    dst[k * 4 + c] = canon[c][l];
                }
            }
        }
        Ok(())
    }
}

struct Batches<'a, 'c, T> {
    ctx: &'a DrawContext<'c>,
    m: &'a mut Machine,
    first: usize,
    n: usize,
    out: &'a mut [f32],
    tracer: &'a mut T,
}

impl<T: Tracer> OnIsa for Batches<'_, '_, T> {
    type Output = Result<(), VmError>;

    #[inline(always)]
    fn run(self) -> Self::Output {
        let per_vertex = self.ctx.program.outputs.len() * 4;
        let mut done = 0;
        while done < self.n {
            let count = LANES.min(self.n - done);
            let out = if per_vertex == 0 {
                &mut []
            } else {
                &mut self.out[done * per_vertex..(done + count) * per_vertex]
            };
            self.ctx
                .batch(self.m, self.first + done, count, out, self.tracer)?;
            done += count;
        }
        Ok(())
    }
}
