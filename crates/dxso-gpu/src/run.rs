//! A prepared draw: the pipeline, bind groups and buffers of one scene, and the run that
//! fetches its vertices, dispatches and reads the outputs back.

use crate::entry::{self, Entry};
use crate::{Error, Gpu, textures};
use dxso_vm::{Device, Outputs};
use wgpu::util::DeviceExt;

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

fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The register number of an interface input (`v3` is 3).
fn input_register(name: &str) -> Option<u8> {
    name.strip_prefix('v')?.parse().ok()
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
        let t = dxso_naga::translate(checked, &dxso_naga::Options { float: gpu.float })?;
        let iface = &t.interface;

        // Inputs: each interface input is one of dxso-vm's input registers.
        let mut input_slots = Vec::new();
        for i in &iface.inputs {
            let slot = input_register(&i.register)
                .and_then(|r| program.inputs.iter().position(|p| p.0 == r))
                .ok_or_else(|| {
                    Error::Interface(format!("input {} is not a declared input", i.register))
                })?;
            input_slots.push(slot);
        }
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
        let mut layouts: Vec<Vec<wgpu::BindGroupLayoutEntry>> =
            vec![Vec::new(); group as usize + 1];
        let constants = [
            &iface.float_constants,
            &iface.int_constants,
            &iface.bool_constants,
        ];
        for b in constants.iter().copied().flatten() {
            layouts
                .get_mut(b.group as usize)
                .ok_or_else(|| Error::Interface(format!("bind group {}", b.group)))?
                .push(uniform_entry(b.binding));
        }
        let filterable = gpu.features.contains(wgpu::Features::FLOAT32_FILTERABLE);
        // Each sampler register once (a shader may declare one twice).
        let mut samplers: Vec<&dxso_naga::interface::Sampler> = Vec::new();
        for s in &iface.samplers {
            if samplers.iter().all(|k| k.register != s.register) {
                samplers.push(s);
            }
        }
        for s in &samplers {
            let g = layouts
                .get_mut(s.group as usize)
                .ok_or_else(|| Error::Interface(format!("bind group {}", s.group)))?;
            g.push(wgpu::BindGroupLayoutEntry {
                binding: s.texture_binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable },
                    view_dimension: textures::view_dimension(textures::kind(s.kind)),
                    multisampled: false,
                },
                count: None,
            });
            g.push(wgpu::BindGroupLayoutEntry {
                binding: s.sampler_binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Sampler(if filterable {
                    wgpu::SamplerBindingType::Filtering
                } else {
                    wgpu::SamplerBindingType::NonFiltering
                }),
                count: None,
            });
        }
        let own = &mut layouts[group as usize];
        own.push(uniform_entry(entry::PARAMS_BINDING));
        if !input_slots.is_empty() {
            own.push(storage_entry(entry::INPUTS_BINDING, true));
        }
        if stored > 0 {
            own.push(storage_entry(entry::OUTPUTS_BINDING, false));
        }
        let bgls: Vec<wgpu::BindGroupLayout> = layouts
            .iter()
            .map(|entries| {
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: None,
                    entries,
                })
            })
            .collect();
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

        // Constants: the device's, with the shader's defs written over them.
        let mut resources: Vec<Vec<(u32, wgpu::BindingResource<'_>)>> =
            (0..=group).map(|_| Vec::new()).collect();
        let mut buffers = Vec::new();
        if let Some(c) = &iface.float_constants {
            let mut words: Vec<u32> = (0..c.registers)
                .flat_map(|n| vm.constant_f(n).unwrap_or([0.0; 4]).map(f32::to_bits))
                .collect();
            for d in &c.defs {
                if let Some(w) = words.get_mut(d.register as usize * 4..d.register as usize * 4 + 4)
                {
                    w.copy_from_slice(&d.bits);
                }
            }
            buffers.push((c.group, c.binding, words));
        }
        for (c, get) in [
            (&iface.int_constants, 0usize),
            (&iface.bool_constants, 1usize),
        ] {
            let Some(c) = c else { continue };
            let mut words: Vec<u32> = (0..c.registers)
                .flat_map(|n| match get {
                    0 => vm.constant_i(n).unwrap_or([0; 4]).map(|x| x as u32),
                    _ => [vm.constant_b(n).unwrap_or(false) as u32, 0, 0, 0],
                })
                .collect();
            for d in &c.defs {
                if let Some(w) = words.get_mut(d.register as usize * 4..d.register as usize * 4 + 4)
                {
                    w.copy_from_slice(&d.bits);
                }
            }
            buffers.push((c.group, c.binding, words));
        }
        let constant_buffers: Vec<(u32, u32, wgpu::Buffer)> = buffers
            .into_iter()
            .map(|(g, b, words)| {
                let buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("dxso-gpu constants"),
                    contents: bytemuck::cast_slice(&words),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
                (g, b, buf)
            })
            .collect();
        for (g, b, buf) in &constant_buffers {
            resources[*g as usize].push((*b, buf.as_entire_binding()));
        }
        let mut bound = Vec::new();
        for s in &samplers {
            let state = vm.sampler_state(s.register as usize).unwrap_or_default();
            let texture = vm.texture(s.register as usize).map(|t| &**t);
            bound.push((
                s,
                textures::bind(
                    device,
                    &gpu.queue,
                    gpu.features,
                    s.register,
                    textures::kind(s.kind),
                    texture,
                    &state,
                )?,
            ));
        }
        for (s, b) in &bound {
            resources[s.group as usize].push((
                s.texture_binding,
                wgpu::BindingResource::TextureView(&b.view),
            ));
            resources[s.group as usize].push((
                s.sampler_binding,
                wgpu::BindingResource::Sampler(&b.sampler),
            ));
        }
        let groups: Vec<(u32, wgpu::BindGroup)> = resources
            .iter()
            .enumerate()
            .filter(|(g, _)| *g != group as usize)
            .map(|(g, entries)| {
                let entries: Vec<wgpu::BindGroupEntry<'_>> = entries
                    .iter()
                    .map(|(binding, resource)| wgpu::BindGroupEntry {
                        binding: *binding,
                        resource: resource.clone(),
                    })
                    .collect();
                let bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &bgls[g],
                    entries: &entries,
                });
                (g as u32, bg)
            })
            .collect();

        // Buffers for one dispatch of `chunk` vertices.
        let total = vertex_count.saturating_mul(instance_count.max(1));
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
        let gpu = self.gpu;
        let program = self.vm.program().ok_or(dxso_vm::VmError::NoShader)?;
        let fetched = self.vm.fetch(self.vertex_count, self.instance_count)?;
        let total = fetched.vertices;
        let regs = program.outputs.len();
        let floats = total * regs * 4;
        if out.data.len() != floats {
            out.data.clear();
            out.data
                .try_reserve_exact(floats)
                .map_err(|_| dxso_vm::VmError::TooLarge(floats * 4))?;
            out.data.resize(floats, 0.0);
        }
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
                    for v in start..start + n {
                        let regs = fetched.vertex(v);
                        for &s in &self.input_slots {
                            packed.extend_from_slice(&regs[s * 4..s * 4 + 4]);
                        }
                    }
                    &packed
                };
                gpu.queue.write_buffer(buf, 0, bytemuck::cast_slice(data));
            }
            gpu.queue
                .write_buffer(&self.params, 0, bytemuck::cast_slice(&[n as u32, 0, 0, 0]));
            let mut encoder = gpu
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
            let bytes = (n * self.stored * 16) as u64;
            if let (Some(o), Some(r)) = (&self.outputs, &self.readback) {
                encoder.copy_buffer_to_buffer(o, 0, r, 0, bytes);
            }
            gpu.queue.submit([encoder.finish()]);
            gpu.check()?;
            if let Some(r) = &self.readback {
                let slice = r.slice(..bytes);
                let (tx, rx) = std::sync::mpsc::channel();
                slice.map_async(wgpu::MapMode::Read, move |res| {
                    let _ = tx.send(res);
                });
                gpu.device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .map_err(|e| Error::Gpu(e.to_string()))?;
                rx.recv()
                    .map_err(|e| Error::Gpu(e.to_string()))?
                    .map_err(|e| Error::Gpu(e.to_string()))?;
                {
                    let view = slice
                        .get_mapped_range()
                        .map_err(|e| Error::Gpu(e.to_string()))?;
                    let got: &[f32] = bytemuck::cast_slice(&view);
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
                }
                r.unmap();
            }
            gpu.check()?;
            start += n;
        }
        Ok(())
    }
}
