//! The D3D9-shaped state of software vertex processing: the vertex shader, float/int/bool
//! constants, the vertex declaration, streams with their frequencies, an index buffer — and
//! [`Device::draw`], which runs the shader over every vertex of a draw.

use crate::compile::{CodeGenerator, Fused, Jit, Layout, Tier};
use crate::draw::{DrawContext, Prepared, caught};
use crate::exec::{CONST_PAD, Isa, Machine, NoTrace, Uniforms};
use crate::fetch::{
    Binding, DeclType, Frequency, STREAMSOURCE_INSTANCEDATA, StreamData, StreamSource,
    VertexElement,
};
use crate::guard::{Buf, GuardedBuf};
use crate::program::{LowerError, OutputRegister, Program};
use crate::texture::{SamplerState, Sampling, Texture, TextureKind};
use crate::{DeclarationError, LANES, Options, SamplerError, VmError};
use dxso::validate::Checked;
use rayon::prelude::*;
use std::sync::Arc;

mod state;
pub use state::Inputs;

/// The outputs of a draw: `vertices` vertices, each `registers.len()` registers of 4 floats,
/// in draw order (instance by instance).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outputs {
    /// The output registers, in output order.
    pub registers: Vec<OutputRegister>,
    /// The outputs' floats: vertex by vertex, register by register, 4 each.
    pub data: Vec<f32>,
    /// How many vertices `data` holds.
    pub vertices: usize,
    /// Declared inputs that no declaration element feeds (they read (0, 0, 0, 1), choice C12).
    pub unbound_inputs: Vec<String>,
}

impl Outputs {
    /// The registers of vertex `i`, 4 floats each.
    pub fn vertex(&self, i: usize) -> &[f32] {
        let n = self.registers.len() * 4;
        &self.data[i * n..(i + 1) * n]
    }
}

/// Largest output a draw may produce (bytes): beyond it the draw is refused with an error.
pub const MAX_OUTPUT_BYTES: usize = 16 << 30;

/// Batches one rayon task processes in a row.
const BATCHES_PER_TASK: usize = 16;

/// The software vertex-processing device.
pub struct Device {
    program: Option<Program>,
    /// The bound shader as validated (for other engines that run the same draw).
    shader: Option<Arc<Checked>>,
    max_instructions: u64,
    consts: Vec<[f32; 4]>,
    ints: [[i32; 4]; 16],
    bools: [bool; 16],
    declaration: Vec<VertexElement>,
    streams: Vec<Option<StreamSource>>,
    /// Each stream's `SetStreamSourceFreq` setting, kept across rebinding as D3D9 keeps it.
    frequencies: [Frequency; 16],
    indices: Option<Vec<u32>>,
    textures: [Option<Arc<Texture>>; 4],
    samplers: [SamplerState; 4],
    pool: Option<Arc<rayon::ThreadPool>>,
    /// How draws run (`isa` already capped at what the processor has).
    options: Options,
    /// The bound program compiled, when the compiled tier covers it (made at the first draw).
    jit: std::sync::OnceLock<Option<Arc<Jit>>>,
    /// The bound program compiled with fetch and store fused, for the last draw layout that
    /// allowed it (`None` inside: that layout failed to compile).
    fused: std::sync::Mutex<Option<FusedCache>>,
    /// Whether the last draw had fused code for its layout.
    last_fused: std::sync::atomic::AtomicBool,
    /// The bound shader's constant table (for setting constants by name).
    constant_table: Result<Option<dxso::ctab::ConstantTable>, dxso::ctab::CtabError>,
}

type FusedCache = (Layout, Option<Arc<Fused>>);

impl Default for Device {
    fn default() -> Self {
        Device::new()
    }
}

impl Device {
    /// A device with `MaxVertexShaderConst` = 8192 and every constant zero, running as
    /// [`Options::default`] says.
    pub fn new() -> Device {
        Device::with_options(Options::default())
    }

    /// [`Device::new`] running as `options` says.
    pub fn with_options(options: Options) -> Device {
        Device {
            program: None,
            shader: None,
            max_instructions: 1 << 20,
            consts: vec![[0.0; 4]; 8192],
            ints: [[0; 4]; 16],
            bools: [false; 16],
            declaration: Vec::new(),
            streams: vec![None; 16],
            frequencies: [Frequency::Vertex; 16],
            indices: None,
            textures: Default::default(),
            samplers: [SamplerState::default(); 4],
            pool: None,
            options: Options {
                isa: options.isa.min(Isa::detect()),
                ..options
            },
            jit: std::sync::OnceLock::new(),
            fused: std::sync::Mutex::new(None),
            last_fused: std::sync::atomic::AtomicBool::new(false),
            constant_table: Ok(None),
        }
    }

    /// Bind a validated vertex shader (lowered once here). Its constant table, if it carries
    /// one, names its constants for [`Device::set_constant_by_name`].
    pub fn set_vertex_shader(&mut self, shader: &Checked) -> Result<(), VmError> {
        let program = Program::lower(shader)?;
        self.constant_table = shader.shader().constant_table();
        let caps = shader.caps();
        self.consts.resize(
            caps.max_vertex_shader_const.clamp(256, 8192) as usize,
            [0.0; 4],
        );
        self.max_instructions = caps.max_vshader_instructions_executed.max(0xFFFF) as u64;
        self.program = Some(program);
        self.shader = Some(Arc::new(shader.clone()));
        self.jit = std::sync::OnceLock::new();
        self.fused = std::sync::Mutex::new(None);
        Ok(())
    }

    /// The bound program.
    pub fn program(&self) -> Option<&Program> {
        self.program.as_ref()
    }

    /// `MaxVShaderInstructionsExecuted`: a vertex that runs more instructions ends the draw
    /// with [`VmError::InstructionLimit`] (counted per batch of vertices, so a batch whose
    /// lanes diverge counts both paths). [`Device::set_vertex_shader`] sets it from the caps
    /// the shader was validated with; call this after it.
    pub fn set_max_instructions(&mut self, n: u64) {
        self.max_instructions = n.max(0xFFFF);
    }

    /// `SetVertexShaderConstantF`.
    pub fn set_constant_f(&mut self, start: u32, values: &[[f32; 4]]) -> Result<(), VmError> {
        let end = start as usize + values.len();
        if end > self.consts.len() {
            return Err(VmError::ConstantRange {
                set: dxso::ctab::RegisterSet::Float4,
                index: (end - 1) as u32,
            });
        }
        self.consts[start as usize..end].copy_from_slice(values);
        Ok(())
    }

    /// `GetVertexShaderConstantF`: register `c{n}`, `None` past the constant file.
    pub fn constant_f(&self, n: u32) -> Option<[f32; 4]> {
        self.consts.get(n as usize).copied()
    }

    /// `GetVertexShaderConstantI`: register `i{n}`, `None` past `i15`.
    pub fn constant_i(&self, n: u32) -> Option<[i32; 4]> {
        self.ints.get(n as usize).copied()
    }

    /// `GetVertexShaderConstantB`: register `b{n}`, `None` past `b15`.
    pub fn constant_b(&self, n: u32) -> Option<bool> {
        self.bools.get(n as usize).copied()
    }

    /// The bound shader's constant table: `Ok(None)` when it carries none (or no shader is
    /// bound), an error when its CTAB comment block is malformed.
    pub fn constant_table(
        &self,
    ) -> Result<Option<&dxso::ctab::ConstantTable>, &dxso::ctab::CtabError> {
        self.constant_table.as_ref().map(Option::as_ref)
    }

    /// Name the constants with a table from elsewhere (a shader whose CTAB was stripped, or a
    /// table built by hand); `None` forgets the names. Binding a shader replaces it.
    pub fn set_constant_table(&mut self, table: Option<dxso::ctab::ConstantTable>) {
        self.constant_table = Ok(table);
    }

    /// `SetVertexShaderConstantI`.
    pub fn set_constant_i(&mut self, start: u32, values: &[[i32; 4]]) -> Result<(), VmError> {
        let end = start as usize + values.len();
        if end > 16 {
            return Err(VmError::ConstantRange {
                set: dxso::ctab::RegisterSet::Int4,
                index: (end - 1) as u32,
            });
        }
        self.ints[start as usize..end].copy_from_slice(values);
        Ok(())
    }

    /// `SetVertexShaderConstantB`.
    pub fn set_constant_b(&mut self, start: u32, values: &[bool]) -> Result<(), VmError> {
        let end = start as usize + values.len();
        if end > 16 {
            return Err(VmError::ConstantRange {
                set: dxso::ctab::RegisterSet::Bool,
                index: (end - 1) as u32,
            });
        }
        self.bools[start as usize..end].copy_from_slice(values);
        Ok(())
    }

    /// `SetVertexDeclaration`.
    pub fn set_declaration(&mut self, elements: Vec<VertexElement>) -> Result<(), VmError> {
        if elements.len() > 64 {
            return Err(VmError::Declaration(DeclarationError::TooManyElements(
                elements.len(),
            )));
        }
        for (i, e) in elements.iter().enumerate() {
            if e.stream >= 16 {
                return Err(VmError::Declaration(DeclarationError::Stream {
                    element: i,
                    stream: e.stream,
                }));
            }
            if e.usage_index > 15 {
                return Err(VmError::Declaration(DeclarationError::UsageIndex {
                    element: i,
                    usage_index: e.usage_index,
                }));
            }
            if elements[..i]
                .iter()
                .any(|p| p.usage == e.usage && p.usage_index == e.usage_index)
            {
                return Err(VmError::Declaration(DeclarationError::Twice {
                    element: i,
                    usage: e.usage,
                    usage_index: e.usage_index,
                }));
            }
        }
        self.declaration = elements;
        Ok(())
    }

    /// `SetStreamSource` + `SetStreamSourceFreq` in one call: stream `n` and its frequency.
    pub fn set_stream(&mut self, n: usize, source: Option<StreamSource>) -> Result<(), VmError> {
        if n >= 16 {
            return Err(VmError::NoStream(n));
        }
        if let Some(s) = &source {
            check_frequency(n, s.frequency)?;
            self.frequencies[n] = s.frequency;
        }
        self.streams[n] = source;
        Ok(())
    }

    /// `SetStreamSource`: stream `n` reads `data` from byte `offset`, `stride` bytes an
    /// element (`None` unbinds it), at the frequency [`Device::set_stream_frequency`] gave it.
    pub fn set_stream_source(
        &mut self,
        n: usize,
        data: Option<StreamData>,
        offset: usize,
        stride: usize,
    ) -> Result<(), VmError> {
        let frequency = *self.frequencies.get(n).ok_or(VmError::NoStream(n))?;
        let source = data.map(|data| StreamSource {
            data,
            offset,
            stride,
            frequency,
        });
        self.set_stream(n, source)
    }

    /// `SetStreamSourceFreq`: stream `n`'s frequency, kept until set again (the stream bound
    /// now, if any, and every later binding read at it).
    pub fn set_stream_frequency(&mut self, n: usize, frequency: Frequency) -> Result<(), VmError> {
        if n >= 16 {
            return Err(VmError::NoStream(n));
        }
        check_frequency(n, frequency)?;
        self.frequencies[n] = frequency;
        if let Some(s) = &mut self.streams[n] {
            s.frequency = frequency;
        }
        Ok(())
    }

    /// `SetIndices`: vertex `k` of a draw reads stream element `indices[k]`.
    pub fn set_indices(&mut self, indices: Option<Vec<u32>>) {
        self.indices = indices;
    }

    /// `SetTexture(D3DVERTEXTEXTURESAMPLER0 + n, ...)`: the texture vertex sampler `n`
    /// (s0..s3) reads. A texture of a pixel-only format ([`crate::Format::pixel_only`]) is
    /// refused, as D3D9's vertex texture formats are limited.
    pub fn set_texture(&mut self, n: usize, texture: Option<Arc<Texture>>) -> Result<(), VmError> {
        if let Some(t) = texture.as_ref().filter(|t| t.format.pixel_only()) {
            return Err(VmError::Sampler(SamplerError::NotVertexFormat {
                sampler: n,
                format: t.format.name(),
            }));
        }
        let slot = self
            .textures
            .get_mut(n)
            .ok_or(VmError::Sampler(SamplerError::NotVertexSampler(n)))?;
        *slot = texture;
        Ok(())
    }

    /// `SetSamplerState` for vertex sampler `n`: all its states at once.
    pub fn set_sampler_state(&mut self, n: usize, state: SamplerState) -> Result<(), VmError> {
        state
            .check()
            .map_err(|filter| VmError::Sampler(SamplerError::Unsupported { sampler: n, filter }))?;
        let slot = self
            .samplers
            .get_mut(n)
            .ok_or(VmError::Sampler(SamplerError::NotVertexSampler(n)))?;
        *slot = state;
        Ok(())
    }

    /// Choose the executor's instruction-set path (the best one the processor has by
    /// default; a better one than it has falls back). Every path gives identical results.
    pub fn set_isa(&mut self, isa: Isa) {
        self.options.isa = isa.min(Isa::detect());
        // The compiled tier's code generator follows the path too.
        self.jit = std::sync::OnceLock::new();
        self.fused = std::sync::Mutex::new(None);
    }

    /// Choose how draws run: [`Tier::Compiled`] by default. Both tiers give identical
    /// results.
    pub fn set_tier(&mut self, tier: Tier) {
        self.options.tier = tier;
    }

    /// Run as `options` says from now on (the bound program is compiled again at the next
    /// draw).
    pub fn set_options(&mut self, options: Options) {
        self.options = options;
        self.set_isa(self.options.isa);
    }

    /// How the device runs (its instruction-set path capped at what the processor has).
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Guard-page test mode, off by default: each draw copies its batch arenas, constant file, streams, index buffer and
    /// output records into mappings that end (and start) at inaccessible pages, so that
    /// compiled code reading or writing past one of them faults (SIGSEGV) instead of passing
    /// silently. Results are identical; draws are slower (the copies). For tests.
    pub fn set_guard_pages(&mut self, on: bool) {
        self.options.guard_pages = on;
    }

    /// Whether the guard-page test mode is on.
    pub fn guard_pages(&self) -> bool {
        self.options.guard_pages
    }

    /// Whether draws of the bound program run compiled code (compiling it now if needed).
    pub fn jit_active(&self) -> bool {
        self.compiled().is_some()
    }

    /// Whether the last draw ran code with vertex fetch and output store fused in (the x86
    /// code generator's, either width; per-vertex or per-instance inputs of any type but
    /// UNUSED, in order or indexed; its full batches of vertices).
    pub fn last_draw_fused(&self) -> bool {
        self.last_fused.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Which code generator compiled the bound program (`None`: draws run interpreted).
    pub fn code_generator(&self) -> Option<CodeGenerator> {
        self.compiled().map(Jit::generator)
    }

    fn compiled(&self) -> Option<&Jit> {
        let program = self.program.as_ref()?;
        if self.options.tier == Tier::Interpreted {
            return None;
        }
        self.jit
            .get_or_init(|| {
                crate::compile::compile(program, &self.options)
                    .ok()
                    .map(Arc::new)
            })
            .as_deref()
    }

    /// Code with fetch and store fused for this draw, where its layout allows: the AVX-512
    /// code generator compiled the program, every input the program reads bound to elements
    /// of per-vertex or per-instance data (any type but UNUSED; streams under 2 GiB when
    /// indexed).
    fn fused(&self, prep: &Prepared) -> Option<Arc<Fused>> {
        let off = !self.options.fuse;
        let generator = self.compiled()?.generator();
        if off || generator == CodeGenerator::Cranelift || !prep.unbound.is_empty() {
            return None;
        }
        let indexed = self.indices.is_some();
        let mut inputs = Vec::new();
        for b in &prep.bindings {
            if b.element.ty == DeclType::Unused {
                return None;
            }
            // Instance data is one element for a whole batch (batches do not cross
            // instances): all lanes read it, as from a stream of stride 0.
            let stride = match b.stream.frequency {
                Frequency::Vertex | Frequency::IndexedData(_) => b.stream.stride as u32,
                Frequency::InstanceData(_) => 0,
                Frequency::Divider(_) => return None,
            };
            // Offsets of up to 96 vertices (a batch ahead, for the prefetch) are 32-bit
            // instruction immediates; indexed, element offsets (index times stride) are
            // 32-bit too.
            let large = b.stream.stride > 1 << 24 || indexed && b.stream.data.len() >= 1 << 31;
            if large {
                return None;
            }
            inputs.push((b.reg, b.element.ty, stride));
        }
        inputs.sort_unstable_by_key(|i| i.0);
        // Per stream, the element that comes first.
        let mut first: Vec<(u16, u16, u8)> = prep
            .bindings
            .iter()
            .map(|b| (b.element.stream, b.element.offset, b.reg))
            .collect();
        first.sort_unstable();
        first.dedup_by_key(|f| f.0);
        let streams = first.into_iter().map(|f| f.2).collect();
        let layout = Layout {
            inputs,
            streams,
            indexed,
        };
        let program = self.program.as_ref()?;
        let mut cache = self.fused.lock().unwrap_or_else(|e| e.into_inner());
        match &*cache {
            Some((l, code)) if *l == layout => code.clone(),
            _ => {
                let code =
                    crate::compile::compile_fused(program, &layout, generator, &self.options)
                        .map(Arc::new);
                *cache = Some((layout, code.clone()));
                code
            }
        }
    }

    /// Run draws on `n` threads (`None`: every core).
    pub fn set_threads(&mut self, n: Option<usize>) -> Result<(), VmError> {
        self.pool = match n {
            None => None,
            Some(n) => Some(Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n.max(1))
                    .stack_size(crate::compile::STACK_BYTES)
                    .thread_name(|i| format!("dxso-vm-{i}"))
                    .build()
                    .map_err(|e| VmError::Threads(e.to_string()))?,
            )),
        };
        Ok(())
    }

    /// Bindings and constants of one draw, checked.
    fn prepare(
        &self,
        program: &Program,
        vertex_count: usize,
        instances: usize,
    ) -> Result<Prepared, VmError> {
        if let Some(ix) = &self.indices
            && ix.len() < vertex_count
        {
            return Err(VmError::TooFewIndices {
                indices: ix.len(),
                vertices: vertex_count,
            });
        }
        // Bind declared inputs to declaration elements by (usage, index).
        let mut bindings: Vec<Binding> = Vec::new();
        let mut unbound = Vec::new();
        for &(reg, usage, index) in &program.inputs {
            match self
                .declaration
                .iter()
                .find(|e| e.usage == usage && e.usage_index == index)
            {
                Some(e) => {
                    let stream = self.streams[e.stream as usize]
                        .clone()
                        .ok_or(VmError::StreamNotSet(e.stream))?;
                    let b = Binding {
                        reg,
                        element: *e,
                        data: Buf::Shared(Arc::new(stream.data.clone())),
                        stream,
                    };
                    b.check_bounds(vertex_count, instances, self.indices.as_deref())?;
                    bindings.push(b);
                }
                None => unbound.push((
                    reg,
                    format!("v{reg} ({}{index})", usage.name().to_ascii_uppercase()),
                )),
            }
        }

        // Constants: the API's, with the shader's def/defi/defb over them; one zero register
        // past the file (what relative reads outside it see), and CONST_PAD more zero
        // registers on either side (compiled code reads a few registers past an index it
        // clamped).
        let mut consts = vec![[0.0; 4]; CONST_PAD];
        consts.extend_from_slice(&self.consts);
        for &(r, v) in &program.defs {
            if let Some(slot) = consts.get_mut(CONST_PAD + r as usize) {
                *slot = v;
            }
        }
        consts.extend([[0.0; 4]; 1 + CONST_PAD]);
        let mut ints = self.ints;
        for &(r, v) in &program.defis {
            ints[r as usize & 15] = v;
        }
        let mut bools = self.bools;
        for &(r, v) in &program.defbs {
            bools[r as usize & 15] = v;
        }
        for &(s, ty) in &program.samplers {
            let want = match ty {
                dxso::ir::TextureType::Cube => TextureKind::Cube,
                dxso::ir::TextureType::Volume => TextureKind::Volume,
                _ => TextureKind::TwoD,
            };
            if let Some(t) = self.textures.get(s as usize).and_then(|t| t.as_ref())
                && t.kind != want
            {
                return Err(VmError::Sampler(SamplerError::WrongKind {
                    sampler: s as usize,
                    declared: want,
                    bound: t.kind,
                }));
            }
        }
        Ok(Prepared {
            bindings,
            unbound,
            consts: Buf::Heap(consts),
            indices: None,
            ints,
            bools,
        })
    }

    fn sampling(&self) -> Sampling<'_> {
        Sampling {
            textures: std::array::from_fn(|k| self.textures[k].as_ref()),
            states: self.samplers,
        }
    }

    /// Run draw vertex `vertex` (of `vertex_count` × `instance_count`) alone and record every
    /// executed instruction with what it wrote: the shader debugger.
    pub fn trace(
        &self,
        vertex: usize,
        vertex_count: usize,
        instance_count: usize,
    ) -> Result<crate::Trace, VmError> {
        let program = self.program.as_ref().ok_or(VmError::NoShader)?;
        let instances = instance_count.max(1);
        if vertex >= vertex_count.saturating_mul(instances) {
            return Err(VmError::VertexNotInDraw {
                vertex,
                vertices: vertex_count.saturating_mul(instances),
            });
        }
        let prep = self.prepare(program, vertex_count, instances)?;
        let sampling = self.sampling();
        let uniforms = prep.uniforms(&sampling, self.max_instructions);
        // Traces run the interpreter (the tracer turns compiled code off).
        let ctx = self.context(program, &prep, &uniforms, vertex_count, None);
        let mut m = Machine::new(program, &uniforms);
        let mut out = vec![0.0; program.outputs.len() * 4];
        let mut rec = crate::trace::Recorder::new(program);
        let result = ctx.batches(&mut m, vertex, 1, &mut out, &mut rec);
        Ok(rec.finish(vertex, out, result.err()))
    }

    fn context<'a>(
        &'a self,
        program: &'a Program,
        prep: &'a Prepared,
        uniforms: &'a Uniforms<'a>,
        vertex_count: usize,
        fused: Option<&'a Fused>,
    ) -> DrawContext<'a> {
        DrawContext {
            isa: self.options.isa,
            jit: self.compiled(),
            fused,
            program,
            uniforms,
            bindings: &prep.bindings,
            unbound: &prep.unbound,
            indices: prep.indices.as_deref().or(self.indices.as_deref()),
            vertex_count,
        }
    }

    /// Process `vertex_count` vertices `instance_count` times (software vertex processing).
    pub fn draw(&self, vertex_count: usize, instance_count: usize) -> Result<Outputs, VmError> {
        let mut out = Outputs {
            registers: Vec::new(),
            data: Vec::new(),
            vertices: 0,
            unbound_inputs: Vec::new(),
        };
        self.draw_into(vertex_count, instance_count, &mut out)?;
        Ok(out)
    }

    /// The floats a draw of `vertex_count` vertices, `instance_count` times, writes (four a
    /// vertex and output register): the one check of a draw's size that every path (this
    /// device's draws, the GPU's, the CLI's) makes before it sizes anything, so that no
    /// count wraps. Past [`MAX_OUTPUT_BYTES`] (or past `usize`) it is
    /// [`VmError::TooLarge`]; a draw of a shader with no outputs writes nothing whatever
    /// its count, but its vertices still run, so the count stays below 2^48.
    pub fn output_floats(
        &self,
        vertex_count: usize,
        instance_count: usize,
    ) -> Result<usize, VmError> {
        let program = self.program.as_ref().ok_or(VmError::NoShader)?;
        let floats = draw_vertices(vertex_count, instance_count)?
            .checked_mul(program.outputs.len() * 4)
            .ok_or(VmError::TooLarge(usize::MAX))?;
        if floats.saturating_mul(4) > MAX_OUTPUT_BYTES {
            return Err(VmError::TooLarge(floats.saturating_mul(4)));
        }
        Ok(floats)
    }

    /// [`Device::draw`] into `out`, reusing its memory (for repeated draws of one size).
    pub fn draw_into(
        &self,
        vertex_count: usize,
        instance_count: usize,
        out: &mut Outputs,
    ) -> Result<(), VmError> {
        self.output_floats(vertex_count, instance_count)?;
        self.draw_parts(vertex_count, instance_count, usize::MAX, out, |_| Ok(()))
    }

    /// [`Device::draw`] in parts of at most `part` vertices (whole tasks of
    /// `LANES * 16` vertices; instances follow one another as in [`Device::draw`]): each part
    /// is drawn into `out` (its memory reused) and handed to `sink` in order, so that a
    /// draw of any vertex count runs in memory bounded by the part — for writers that stream
    /// a draw's outputs to a file. A part past [`MAX_OUTPUT_BYTES`] is [`VmError::TooLarge`];
    /// a sink's error ends the draw and is returned.
    pub fn draw_parts<E: From<VmError>>(
        &self,
        vertex_count: usize,
        instance_count: usize,
        part: usize,
        out: &mut Outputs,
        mut sink: impl FnMut(&Outputs) -> Result<(), E>,
    ) -> Result<(), E> {
        let program = self.program.as_ref().ok_or(VmError::NoShader)?;
        let instances = instance_count.max(1);
        let total = draw_vertices(vertex_count, instance_count)?;
        let regs = program.outputs.len();
        let task_vertices = LANES * BATCHES_PER_TASK;
        let part = part.clamp(1, total.max(1)).div_ceil(task_vertices) * task_vertices;
        let part_bytes = part.min(total) * regs * 16;
        if part_bytes > MAX_OUTPUT_BYTES {
            return Err(VmError::TooLarge(part_bytes).into());
        }
        let mut prep = self.prepare(program, vertex_count, instances)?;
        if self.options.guard_pages {
            prep.guard(self.indices.as_deref(), vertex_count);
        }
        let sampling = self.sampling();
        let uniforms = prep.uniforms(&sampling, self.max_instructions);
        let fused = self.fused(&prep);
        self.last_fused
            .store(fused.is_some(), std::sync::atomic::Ordering::Relaxed);
        let ctx = self.context(program, &prep, &uniforms, vertex_count, fused.as_deref());
        out.registers = program.outputs.clone();
        out.unbound_inputs = prep.unbound.iter().map(|u| u.1.clone()).collect();
        let mut first = 0;
        loop {
            let n = part.min(total - first);
            self.draw_range(&ctx, program, &uniforms, first, n, out)?;
            sink(out)?;
            first += n;
            if first >= total {
                return Ok(());
            }
        }
    }

    /// Vertices `first..first + n` of the draw `ctx` describes into `out.data` (sized here,
    /// its memory reused), spread over the pool's threads a task at a time.
    fn draw_range(
        &self,
        ctx: &DrawContext,
        program: &Program,
        uniforms: &Uniforms,
        first: usize,
        n: usize,
        out: &mut Outputs,
    ) -> Result<(), VmError> {
        let regs = program.outputs.len();
        let floats = n * regs * 4;
        let data = &mut out.data;
        if data.len() != floats {
            data.clear();
            data.try_reserve_exact(floats)
                .map_err(|_| VmError::TooLarge(floats * 4))?;
            // Every element is written by the batches; the zeros only make the memory valid.
            data.resize(floats, 0.0);
        }
        let task_vertices = LANES * BATCHES_PER_TASK;
        let guard = self.options.guard_pages;
        let machine = || {
            let mut m = Machine::new(program, uniforms);
            if guard {
                m.rows.guard();
            }
            m
        };
        let mut guarded_out = None;
        let records: &mut [f32] = match GuardedBuf::zeroed(floats).filter(|_| guard) {
            Some(g) => guarded_out.insert(g),
            None => &mut data[..],
        };
        let run = || -> Result<(), VmError> {
            #[cfg(test)]
            crate::compile::DRAW_THREADS
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(std::thread::current().name().map(String::from));
            if regs == 0 {
                // Nothing to write; still run the shader for its errors.
                let mut m = machine();
                return caught(|| ctx.batches(&mut m, first, n, &mut [], &mut NoTrace));
            }
            records
                .par_chunks_mut(task_vertices * regs * 4)
                .enumerate()
                .try_for_each_init(machine, |m, (t, chunk)| {
                    let k = chunk.len() / (regs * 4);
                    caught(|| ctx.batches(m, first + t * task_vertices, k, chunk, &mut NoTrace))
                })
        };
        // On dxso's own threads, whose stacks fit compiled code's frames, whoever calls.
        match &self.pool {
            Some(pool) => pool.install(run)?,
            None => crate::compile::default_pool()?.install(run)?,
        }
        if let Some(g) = guarded_out {
            out.data.copy_from_slice(&g);
        }
        out.vertices = n;
        Ok(())
    }
}

/// The vertices a draw runs (`vertex_count` × `instance_count`, at least one instance), below
/// 2^48 so that no product of it with a register count or a record size wraps.
pub fn draw_vertices(vertex_count: usize, instance_count: usize) -> Result<usize, VmError> {
    vertex_count
        .checked_mul(instance_count.max(1))
        .filter(|&t| t < 1 << 48)
        .ok_or(VmError::TooLarge(usize::MAX))
}

impl From<LowerError> for VmError {
    fn from(e: LowerError) -> Self {
        VmError::Lower(e)
    }
}

/// The frequencies D3D9 refuses: instance data on stream 0, and zero counts and dividers.
fn check_frequency(n: usize, frequency: Frequency) -> Result<(), VmError> {
    match frequency {
        Frequency::InstanceData(_) if n == 0 => {
            Err(VmError::BadFrequency(STREAMSOURCE_INSTANCEDATA))
        }
        Frequency::InstanceData(0) => Err(VmError::BadFrequency(STREAMSOURCE_INSTANCEDATA)),
        Frequency::Divider(0) => Err(VmError::BadFrequency(0)),
        _ => Ok(()),
    }
}
