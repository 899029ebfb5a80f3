//! A prepared draw: the pipeline, bind groups and buffers of one scene, and the run that
//! fetches its vertices, dispatches and reads the outputs back.

use crate::entry::{self, Entry};
use crate::{Error, Gpu, bind};
use dxso_vm::{Device, Outputs};

/// A draw ready to run on the GPU (see [`Gpu::prepare`]).
pub struct Draw<'a> {
    gpu: &'a Gpu,
    vm: &'a Device,
    vertex_count: usize,
    instance_count: usize,
    pipeline: wgpu::ComputePipeline,
    /// The translation's bind groups (constants, samplers) by group number.
    groups: Vec<(u32, wgpu::BindGroup)>,
    /// The entry's own group: parameters, inputs and outputs.
    group: u32,
    io_group: wgpu::BindGroup,
    params: wgpu::Buffer,
    inputs: Option<wgpu::Buffer>,
    outputs: Option<wgpu::Buffer>,
    readback: Option<wgpu::Buffer>,
    /// Vertices one dispatch covers (the buffers' size).
    chunk: usize,
    /// For each member of the body's argument, its register's place in dxso-vm's inputs.
    input_slots: Vec<usize>,
    /// For each of dxso-vm's output registers, the member of the body's result holding it
    /// (`None`: the translation has no such output; it reads 0).
    output_slots: Vec<Option<usize>>,
    /// Members of the body's result the entry stores.
    stored: usize,
}

/// The register number of an interface input (`v3` is 3).
fn input_register(name: &str) -> Option<u8> {
    name.strip_prefix('v')?.parse().ok()
}

/// For each input of a vertex shader's interface, its register's place among dxso-vm's
/// fetched input registers.
pub(crate) fn input_slots(
    iface: &dxso_naga::Interface,
    program: &dxso_vm::Program,
) -> Result<Vec<usize>, Error> {
    iface
        .inputs
        .iter()
        .map(|i| {
            input_register(&i.register)
                .and_then(|r| program.inputs.iter().position(|p| p.0 == r))
                .ok_or_else(|| {
                    Error::Interface(format!("input {} is not a declared input", i.register))
                })
        })
        .collect()
}

/// The input registers of vertices `range` in the order of `slots` (the interface's), four
/// floats each, appended to `out`.
pub(crate) fn pack_inputs(
    fetched: &dxso_vm::Inputs,
    slots: &[usize],
    range: std::ops::Range<usize>,
    out: &mut Vec<f32>,
) {
    for v in range {
        let regs = fetched.vertex(v);
        for &s in slots {
            out.extend_from_slice(&regs[s * 4..s * 4 + 4]);
        }
    }
}

impl<'a> Draw<'a> {
    pub(crate) fn new(
        gpu: &'a Gpu,
        vm: &'a Device,
        vertex_count: usize,
        instance_count: usize,
    ) -> Result<Draw<'a>, Error> {
        let checked = vm.vertex_shader().ok_or(dxso_vm::VmError::NoShader)?;
        let program = vm.program().ok_or(dxso_vm::VmError::NoShader)?;
        dxso_vm::draw_vertices(vertex_count, instance_count)?; // the CPU's check (see `run`)
        let t = dxso_naga::translate(checked, &dxso_naga::Options { float: gpu.float })?;
        let iface = &t.interface;

        let input_slots = input_slots(iface, program)?;
        let output_slots: Vec<Option<usize>> = program
            .outputs
            .iter()
            .map(|o| iface.outputs.iter().position(|t| t.register == o.name))
            .collect();
        let stored = iface.outputs.len();
        let Entry {
            module,
            info: _,
            group,
            ..
        } = entry::add_compute_entry(&t.module, t.body, input_slots.len() as u32, stored as u32)?;

        let device = &gpu.device;
        // The pipeline layout: the interface's bindings and the entry's.
        let visibility = wgpu::ShaderStages::COMPUTE;
        let mut layouts: Vec<Vec<wgpu::BindGroupLayoutEntry>> =
            vec![Vec::new(); group as usize + 1];
        bind::add_layout(&mut layouts, iface, visibility, gpu.features);
        let own = &mut layouts[group as usize];
        own.push(bind::uniform_entry(entry::PARAMS_BINDING, visibility));
        if !input_slots.is_empty() {
            own.push(bind::storage_entry(entry::INPUTS_BINDING, true, visibility));
        }
        if stored > 0 {
            own.push(bind::storage_entry(
                entry::OUTPUTS_BINDING,
                false,
                visibility,
            ));
        }
        let bgls = bind::layouts(device, &layouts);
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("dxso-gpu"),
            bind_group_layouts: &bgls.iter().map(Some).collect::<Vec<_>>(),
            immediate_size: 0,
        });
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("dxso-gpu"),
            source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(module)),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("dxso-gpu"),
            layout: Some(&layout),
            module: &shader,
            entry_point: Some(entry::ENTRY_POINT),
            compilation_options: Default::default(),
            cache: None,
        });
        gpu.check()?;

        // Constants (the device's, with the shader's defs written over them) and textures.
        let resources = bind::resources(gpu, iface, vm)?;
        let groups = bind::groups(device, &bgls, &resources.entries(), &[group]);

        // Buffers for one dispatch of `chunk` vertices.
        // Below 2^48 (`output_floats`): no product here wraps.
        let total = vertex_count * instance_count.max(1);
        let widest = input_slots.len().max(stored).max(1) as u64 * 16;
        let limits = &gpu.limits;
        let by_binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
            / widest;
        let by_dispatch =
            limits.max_compute_workgroups_per_dimension as u64 * entry::WORKGROUP_SIZE as u64;
        let chunk = (by_binding.min(by_dispatch) as usize / 64 * 64).max(64);
        let chunk = chunk.min(total.div_ceil(64).max(1) * 64);
        let storage = |usage, regs: usize| {
            (regs > 0).then(|| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("dxso-gpu vertices"),
                    size: (chunk * regs * 16) as u64,
                    usage,
                    mapped_at_creation: false,
                })
            })
        };
        let inputs = storage(
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            input_slots.len(),
        );
        let outputs = storage(
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            stored,
        );
        let readback = storage(
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            stored,
        );
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("dxso-gpu params"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: entry::PARAMS_BINDING,
            resource: params.as_entire_binding(),
        }];
        if let Some(b) = &inputs {
            entries.push(wgpu::BindGroupEntry {
                binding: entry::INPUTS_BINDING,
                resource: b.as_entire_binding(),
            });
        }
        if let Some(b) = &outputs {
            entries.push(wgpu::BindGroupEntry {
                binding: entry::OUTPUTS_BINDING,
                resource: b.as_entire_binding(),
            });
        }
        let io_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("dxso-gpu vertices"),
            layout: &bgls[group as usize],
            entries: &entries,
        });
        gpu.check()?;
        Ok(Draw {
            gpu,
            vm,
            vertex_count,
            instance_count,
            pipeline,
            groups,
            group,
            io_group,
            params,
            inputs,
            outputs,
            readback,
            chunk,
            input_slots,
            output_slots,
            stored,
        })
    }

    /// Fetch the draw's vertices (dxso-vm's fetch), upload them, run the shader over them
    /// and read the outputs back into `out` (its memory reused), in dxso-vm's register
    /// order.
    pub fn run(&self, out: &mut Outputs) -> Result<(), Error> {
        // Held whole: the outputs' bound, as the CPU's draw has it.
        self.vm
            .output_floats(self.vertex_count, self.instance_count)?;
        let total = dxso_vm::draw_vertices(self.vertex_count, self.instance_count)?;
        self.run_range(0..total, out)
    }

    /// [`Draw::run`] part by part: the draw's vertices `part` at a time (the last part
    /// shorter), each fetched, run and read back into `out`, then handed to `sink` before the
    /// next is fetched, so that what is held at once is one part whatever the vertex count.
    pub fn run_parts<E: From<Error>>(
        &self,
        part: usize,
        out: &mut Outputs,
        mut sink: impl FnMut(&Outputs) -> Result<(), E>,
    ) -> Result<(), E> {
        let total =
            dxso_vm::draw_vertices(self.vertex_count, self.instance_count).map_err(Error::from)?;
        let part = part.max(1);
        let mut start = 0;
        loop {
            let n = part.min(total - start);
            self.run_range(start..start + n, out)?;
            sink(out)?;
            start += n;
            if start >= total {
                return Ok(());
            }
        }
    }

    /// A command encoder holding one dispatch of the shader over the first `n` vertices of
    /// the buffers (the parameters already written).
    fn dispatch(&self, n: usize) -> wgpu::CommandEncoder {
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            for (g, bg) in &self.groups {
                pass.set_bind_group(*g, bg, &[]);
            }
            pass.set_bind_group(self.group, &self.io_group, &[]);
            pass.dispatch_workgroups(n.div_ceil(entry::WORKGROUP_SIZE as usize) as u32, 1, 1);
        }
        encoder
    }

    /// The draw with its inputs resident on the GPU: its vertices fetched (dxso-vm's fetch)
    /// and uploaded once, for [`Resident::run`] to dispatch the shader over them again and
    /// again without fetch, upload or read-back (what `dxso bench --gpu` reports as the
    /// throughput). `None` where the draw needs more than one dispatch (more vertices than
    /// one storage binding holds), whose buffers are reused part by part. A [`Draw::run`]
    /// in between overwrites the resident inputs: make a new `Resident` after one.
    pub fn resident(&self) -> Result<Option<Resident<'_, 'a>>, Error> {
        let total = dxso_vm::draw_vertices(self.vertex_count, self.instance_count)?;
        if total > self.chunk || total == 0 || self.stored == 0 {
            return Ok(None);
        }
        let fetched = self
            .vm
            .fetch_range(self.vertex_count, self.instance_count, 0..total)?;
        if let Some(buf) = &self.inputs {
            let mut packed = Vec::new();
            pack_inputs(&fetched, &self.input_slots, 0..total, &mut packed);
            self.gpu
                .queue
                .write_buffer(buf, 0, bytemuck::cast_slice(&packed));
        }
        self.gpu.queue.write_buffer(
            &self.params,
            0,
            bytemuck::cast_slice(&[total as u32, 0, 0, 0]),
        );
        self.gpu.check()?;
        Ok(Some(Resident {
            draw: self,
            vertices: total,
            unbound: fetched.unbound_inputs.clone(),
        }))
    }

    /// Run the draw's vertices `range` into `out` (sized for them).
    fn run_range(&self, range: std::ops::Range<usize>, out: &mut Outputs) -> Result<(), Error> {
        let gpu = self.gpu;
        let program = self.vm.program().ok_or(dxso_vm::VmError::NoShader)?;
        let fetched = self
            .vm
            .fetch_range(self.vertex_count, self.instance_count, range)?;
        let total = fetched.vertices;
        let regs = program.outputs.len();
        let floats = total * regs * 4;
        size_outputs(out, floats)?;
        out.registers = program.outputs.clone();
        out.vertices = total;
        out.unbound_inputs = fetched.unbound_inputs.clone();
        if regs == 0 || total == 0 {
            return Ok(());
        }
        // The inputs as the body takes them: straight from the fetch when the orders agree.
        let per_in = fetched.registers.len();
        let identity = self.input_slots.len() == per_in
            && self.input_slots.iter().enumerate().all(|(k, s)| k == *s);
        let mut packed = Vec::new();
        let mut start = 0;
        while start < total {
            let n = self.chunk.min(total - start);
            if let Some(buf) = &self.inputs {
                let data: &[f32] = if identity {
                    &fetched.data[start * per_in * 4..(start + n) * per_in * 4]
                } else {
                    packed.clear();
                    pack_inputs(&fetched, &self.input_slots, start..start + n, &mut packed);
                    &packed
                };
                gpu.queue.write_buffer(buf, 0, bytemuck::cast_slice(data));
            }
            gpu.queue
                .write_buffer(&self.params, 0, bytemuck::cast_slice(&[n as u32, 0, 0, 0]));
            let mut encoder = self.dispatch(n);
            let bytes = (n * self.stored * 16) as u64;
            if let (Some(o), Some(r)) = (&self.outputs, &self.readback) {
                encoder.copy_buffer_to_buffer(o, 0, r, 0, bytes);
            }
            gpu.queue.submit([encoder.finish()]);
            gpu.check()?;
            self.read_outputs(start, n, regs, out)?;
            gpu.check()?;
            start += n;
        }
        Ok(())
    }

    /// Read the first `n` vertices' outputs (copied to the read-back buffer) into `out`'s
    /// vertices from `start` on, in dxso-vm's register order (`regs` registers).
    fn read_outputs(
        &self,
        start: usize,
        n: usize,
        regs: usize,
        out: &mut Outputs,
    ) -> Result<(), Error> {
        let bytes = (n * self.stored * 16) as u64;
        if let Some(r) = &self.readback {
            self.gpu.read_mapped(r, bytes, |view| {
                let got: &[f32] = bytemuck::cast_slice(view);
                let dst = &mut out.data[start * regs * 4..(start + n) * regs * 4];
                for (v, o) in dst.chunks_exact_mut(regs * 4).enumerate() {
                    let src = &got[v * self.stored * 4..(v + 1) * self.stored * 4];
                    for (k, slot) in self.output_slots.iter().enumerate() {
                        let value = match slot {
                            Some(s) => &src[s * 4..s * 4 + 4],
                            None => &[0.0; 4][..],
                        };
                        // One NaN for every NaN, as dxso-vm writes.
                        for c in 0..4 {
                            let x = value[c];
                            o[k * 4 + c] = if x.is_nan() { f32::NAN } else { x };
                        }
                    }
                }
            })?;
        }
        Ok(())
    }
}

/// `out.data` of `floats` values (its memory reused where it has as many).
fn size_outputs(out: &mut Outputs, floats: usize) -> Result<(), Error> {
    if out.data.len() != floats {
        out.data.clear();
        out.data
            .try_reserve_exact(floats)
            .map_err(|_| dxso_vm::VmError::TooLarge(floats * 4))?;
        out.data.resize(floats, 0.0);
    }
    Ok(())
}

/// A draw whose inputs are on the GPU (see [`Draw::resident`]).
pub struct Resident<'d, 'a> {
    draw: &'d Draw<'a>,
    vertices: usize,
    /// The fetch's unbound inputs (for [`Resident::read_back`]'s outputs).
    unbound: Vec<String>,
}

impl Resident<'_, '_> {
    /// The vertices one run covers.
    pub fn vertices(&self) -> usize {
        self.vertices
    }

    /// Dispatch the shader over the resident inputs into the output buffer, submit and wait
    /// until the GPU has finished (the outputs stay on the GPU).
    pub fn run(&self) -> Result<(), Error> {
        let gpu = self.draw.gpu;
        let encoder = self.draw.dispatch(self.vertices);
        gpu.queue.submit([encoder.finish()]);
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(e.to_string()))?;
        gpu.check()
    }

    /// The outputs of the last [`Resident::run`], read back into `out` as [`Draw::run`]
    /// gives them.
    pub fn read_back(&self, out: &mut Outputs) -> Result<(), Error> {
        let d = self.draw;
        let program = d.vm.program().ok_or(dxso_vm::VmError::NoShader)?;
        let regs = program.outputs.len();
        size_outputs(out, self.vertices * regs * 4)?;
        out.registers = program.outputs.clone();
        out.vertices = self.vertices;
        out.unbound_inputs = self.unbound.clone();
        if regs == 0 {
            return Ok(());
        }
        let mut encoder = d
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        let bytes = (self.vertices * d.stored * 16) as u64;
        if let (Some(o), Some(r)) = (&d.outputs, &d.readback) {
            encoder.copy_buffer_to_buffer(o, 0, r, 0, bytes);
        }
        d.gpu.queue.submit([encoder.finish()]);
        d.gpu.check()?;
        d.read_outputs(0, self.vertices, regs, out)?;
        d.gpu.check()
    }
}
