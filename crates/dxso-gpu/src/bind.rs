//! The bindings a translation's [`dxso_naga::Interface`] names — the `c#`/`i#`/`b#`
//! constant buffers (with the shader's `def`s written over them), the ps_1_x parameter
//! buffer, textures and samplers — as bind group layout entries and bound resources. The
//! compute draw ([`crate::Draw`]) and the render pipelines ([`crate::render`]) both build
//! their bind groups here, so every binding number comes from the Interface.

use crate::{Error, Gpu, textures};
use dxso_naga::Interface;
use dxso_naga::interface::{ConstantBuffer, Sampler};
use dxso_vm::{SamplerState, Texture};
use wgpu::util::DeviceExt;

/// Where a draw's constants, textures and sampler states come from: a dxso-vm device (the
/// vertex stage) or a [`crate::Frame`] (the pixel stage).
pub(crate) trait Source {
    fn float(&self, n: u32) -> [f32; 4];
    fn int(&self, n: u32) -> [i32; 4];
    fn boolean(&self, n: u32) -> bool;
    /// Row `row` of the ps_1_x parameter buffer (see [`dxso_naga::ps1x`]).
    fn ps1x(&self, _row: u32) -> [f32; 4] {
        [0.0; 4]
    }
    fn texture(&self, register: u32) -> Option<&Texture>;
    fn sampler_state(&self, register: u32) -> SamplerState;
    /// Whether 8-bit textures may be uploaded in 8 or 16 bits a channel (see
    /// [`textures::bind`]): a texel then reads within a unit in the last place of dxso-vm's,
    /// which only a draw into targets hides; bit-exact paths keep `Rgba32Float`.
    fn compact_textures(&self) -> bool {
        false
    }
}

impl Source for dxso_vm::Device {
    fn float(&self, n: u32) -> [f32; 4] {
        self.constant_f(n).unwrap_or([0.0; 4])
    }
    fn int(&self, n: u32) -> [i32; 4] {
        self.constant_i(n).unwrap_or([0; 4])
    }
    fn boolean(&self, n: u32) -> bool {
        self.constant_b(n).unwrap_or(false)
    }
    fn texture(&self, register: u32) -> Option<&Texture> {
        dxso_vm::Device::texture(self, register as usize).map(|t| &**t)
    }
    fn sampler_state(&self, register: u32) -> SamplerState {
        dxso_vm::Device::sampler_state(self, register as usize).unwrap_or_default()
    }
}

pub(crate) fn uniform_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

pub(crate) fn storage_entry(
    binding: u32,
    read_only: bool,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Each sampler register once (a shader may declare one twice).
fn samplers(iface: &Interface) -> Vec<&Sampler> {
    let mut out: Vec<&Sampler> = Vec::new();
    for s in &iface.samplers {
        if out.iter().all(|k| k.register != s.register) {
            out.push(s);
        }
    }
    out
}

fn constant_buffers(iface: &Interface) -> [Option<&ConstantBuffer>; 3] {
    [
        iface.float_constants.as_ref(),
        iface.int_constants.as_ref(),
        iface.bool_constants.as_ref(),
    ]
}

/// The group `group` of `layouts`, which grows to hold it.
fn group_mut(
    layouts: &mut Vec<Vec<wgpu::BindGroupLayoutEntry>>,
    group: u32,
) -> &mut Vec<wgpu::BindGroupLayoutEntry> {
    let g = group as usize;
    if layouts.len() <= g {
        layouts.resize_with(g + 1, Vec::new);
    }
    &mut layouts[g]
}

/// Add the layout entries of everything `iface` binds to `layouts` (indexed by group).
pub(crate) fn add_layout(
    layouts: &mut Vec<Vec<wgpu::BindGroupLayoutEntry>>,
    iface: &Interface,
    visibility: wgpu::ShaderStages,
    features: wgpu::Features,
) {
    for b in constant_buffers(iface).into_iter().flatten() {
        group_mut(layouts, b.group).push(uniform_entry(b.binding, visibility));
    }
    if let Some(p) = &iface.ps1x_parameters {
        group_mut(layouts, p.group).push(uniform_entry(p.binding, visibility));
    }
    let filterable = features.contains(wgpu::Features::FLOAT32_FILTERABLE);
    for s in samplers(iface) {
        let g = group_mut(layouts, s.group);
        g.push(wgpu::BindGroupLayoutEntry {
            binding: s.texture_binding,
            visibility,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable },
                view_dimension: textures::view_dimension(textures::kind(s.kind)),
                multisampled: false,
            },
            count: None,
        });
        g.push(wgpu::BindGroupLayoutEntry {
            binding: s.sampler_binding,
            visibility,
            ty: wgpu::BindingType::Sampler(if filterable {
                wgpu::SamplerBindingType::Filtering
            } else {
                wgpu::SamplerBindingType::NonFiltering
            }),
            count: None,
        });
    }
}

/// The buffers, textures and samplers bound for one interface.
pub(crate) struct Resources {
    /// (group, binding, buffer)
    buffers: Vec<(u32, u32, wgpu::Buffer)>,
    /// (group, texture binding, sampler binding, texture and sampler)
    textures: Vec<(u32, u32, u32, textures::Bound)>,
}

/// The words of a constant buffer: register `n` from `get(n)`, the `def`s written over.
fn words(c: &ConstantBuffer, get: impl Fn(u32) -> [u32; 4]) -> Vec<u32> {
    let mut words: Vec<u32> = (0..c.registers).flat_map(get).collect();
    for d in &c.defs {
        let at = d.register as usize * 4;
        if let Some(w) = words.get_mut(at..at + 4) {
            w.copy_from_slice(&d.bits);
        }
    }
    words
}

/// Upload what `iface` binds, its values from `source`.
pub(crate) fn resources(
    gpu: &Gpu,
    iface: &Interface,
    source: &dyn Source,
) -> Result<Resources, Error> {
    let mut contents: Vec<(u32, u32, Vec<u32>)> = Vec::new();
    if let Some(c) = &iface.float_constants {
        let w = words(c, |n| source.float(n).map(f32::to_bits));
        contents.push((c.group, c.binding, w));
    }
    if let Some(c) = &iface.int_constants {
        let w = words(c, |n| source.int(n).map(|x| x as u32));
        contents.push((c.group, c.binding, w));
    }
    if let Some(c) = &iface.bool_constants {
        let w = words(c, |n| [source.boolean(n) as u32, 0, 0, 0]);
        contents.push((c.group, c.binding, w));
    }
    if let Some(p) = &iface.ps1x_parameters {
        let w = (0..p.rows)
            .flat_map(|r| source.ps1x(r).map(f32::to_bits))
            .collect();
        contents.push((p.group, p.binding, w));
    }
    let buffers = contents
        .into_iter()
        .map(|(g, b, words)| {
            let buf = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("dxso-gpu constants"),
                    contents: bytemuck::cast_slice(&words),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            (g, b, buf)
        })
        .collect();
    let mut bound = Vec::new();
    for s in samplers(iface) {
        let b = textures::bind(
            gpu,
            s.register,
            textures::kind(s.kind),
            source.texture(s.register),
            &source.sampler_state(s.register),
            source.compact_textures(),
        )?;
        bound.push((s.group, s.texture_binding, s.sampler_binding, b));
    }
    Ok(Resources {
        buffers,
        textures: bound,
    })
}

impl Resources {
    /// Each resource with its group.
    pub(crate) fn entries(&self) -> Vec<(u32, wgpu::BindGroupEntry<'_>)> {
        let mut out = Vec::new();
        for (g, b, buf) in &self.buffers {
            out.push((
                *g,
                wgpu::BindGroupEntry {
                    binding: *b,
                    resource: buf.as_entire_binding(),
                },
            ));
        }
        for (g, tb, sb, bound) in &self.textures {
            out.push((
                *g,
                wgpu::BindGroupEntry {
                    binding: *tb,
                    resource: wgpu::BindingResource::TextureView(&bound.view),
                },
            ));
            out.push((
                *g,
                wgpu::BindGroupEntry {
                    binding: *sb,
                    resource: wgpu::BindingResource::Sampler(&bound.sampler),
                },
            ));
        }
        out
    }
}

/// A bind group layout for each group of `layouts`.
pub(crate) fn layouts(
    device: &wgpu::Device,
    layouts: &[Vec<wgpu::BindGroupLayoutEntry>],
) -> Vec<wgpu::BindGroupLayout> {
    layouts
        .iter()
        .map(|entries| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: None,
                entries,
            })
        })
        .collect()
}

/// A bind group for each layout but those in `skip` (bound by the caller), of the entries
/// in its group (empty groups included: a pipeline needs every group of its layout set).
pub(crate) fn groups(
    device: &wgpu::Device,
    layouts: &[wgpu::BindGroupLayout],
    entries: &[(u32, wgpu::BindGroupEntry<'_>)],
    skip: &[u32],
) -> Vec<(u32, wgpu::BindGroup)> {
    (0..layouts.len() as u32)
        .filter(|g| !skip.contains(g))
        .map(|g| {
            let mine: Vec<wgpu::BindGroupEntry<'_>> = entries
                .iter()
                .filter(|e| e.0 == g)
                .map(|e| e.1.clone())
                .collect();
            let bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &layouts[g as usize],
                entries: &mine,
            });
            (g, bg)
        })
        .collect()
}
