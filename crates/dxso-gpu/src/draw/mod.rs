//! Whole D3D9 draws through a wgpu render pipeline: [`Gpu::draw_frame`] draws a
//! [`dxso_draw::Frame`]'s draws, as dxso-draw describes them, into targets of the frame's
//! formats and reads them back as the same [`dxso_draw::Surfaces`] the CPU draw returns.
//!
//! - **Vertex stage.** The translated vertex shader's `@vertex` entry (for a draw without
//!   one, a generated pass-through: [`stages`]), with its position moved by D3D9's
//!   pixel-centre offset, the colours a ps_1_x / ps_2_x pixel shader reads clamped and, for
//!   `SHADEMODE FLAT`, its colours flat ([`patch`]). Vertex fetch is the GPU's for every
//!   declaration type and stream frequency ([`fetch`]): vertex buffer layouts where WebGPU
//!   has the format and step (integer formats converted in the vertex entry), a decode from
//!   the stream's bytes in a storage buffer in the vertex entry elsewhere (UDEC3, DEC3N,
//!   dividers, unaligned elements), the indices composed with the primitive assembly and
//!   instances the GPU's. Each distinct buffer is uploaded once per frame and each distinct
//!   pipeline made once ([`FrameStats`]). Primitives become a triangle index list in dxso-draw's
//!   order (lists, strips with alternating order, fans; turned to start at the provoking
//!   vertex when flat).
//! - **Pixel stage.** The translated pixel shader's `@fragment` entry (without one, a
//!   generated fixed-function colour), its constants, textures, samplers and ps_1_x stage
//!   state from the draw's `PixelState`.
//! - **States** ([`state`]): viewport (depth range; `POSITIONT` draws use 0..1, as the CPU
//!   draw takes their z as it is), the scissor rectangle, `CULLMODE` (clockwise is the front
//!   face), depth test/write/function, stencil (two-sided too), blending with separate alpha
//!   and `BLENDFACTOR`, colour write masks, sRGB writes (an sRGB view of 8-bit targets).
//!   Fog, the alpha test and depth bias are added to the fragment entry, user clip planes
//!   to the vertex entry as clip distances ([`patch`]). What the path cannot draw yet is
//!   refused by name ([`crate::Error::Refused`]): lines, w-buffering, R5G6B5 targets. Points larger than a pixel, sized per vertex (`PSIZE`) and
//!   sprites are quads, an instance each, expanded in the vertex entry.
//! - **Surfaces** ([`formats`]): A8R8G8B8/X8R8G8B8 as `Rgba8Unorm` (X8's alpha kept at 1),
//!   A2R10G10B10, A16B16G16R16 (where the adapter has 16-bit unorm), the float formats as
//!   their wgpu twins; D16 as `Depth16Unorm`, D24X8/D32F as `Depth32Float`, D24S8 as
//!   `Depth32FloatStencil8`. Read back, every value is what dxso-draw's surface holds for it
//!   (`TargetFormat::store`), so PNG/DDS/pixel output is the CPU draw's code.

mod fetch;
mod formats;
mod pass;
mod patch;
mod readback;
mod stages;
mod state;

use crate::{Error, FrameError, Gpu, Refusal};
use dxso_draw::{Draw, Frame, Primitive, Surfaces, TargetFormat, Viewport};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use wgpu::util::DeviceExt;

/// One colour target: its D3D9 format, wgpu format and texture.
struct ColorSurface {
    format: TargetFormat,
    wgpu: wgpu::TextureFormat,
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    /// An 8-bit target's sRGB view (`SRGBWRITEENABLE`: written and blended in linear space).
    srgb_view: Option<wgpu::TextureView>,
}

/// The depth-stencil surface.
struct DepthSurface {
    format: dxso_draw::DepthFormat,
    wgpu: wgpu::TextureFormat,
    texture: wgpu::Texture,
    view: wgpu::TextureView,
}

/// The frame's surfaces on the GPU.
struct Targets {
    colors: Vec<ColorSurface>,
    depth: Option<DepthSurface>,
}

/// The vertex indices of `count` vertices of `primitive`, instance by instance, as a
/// triangle list in dxso-draw's order (strips alternate, fans turn around vertex 0); with
/// `flat`, each triangle turned (its winding kept) to start at D3D9's provoking vertex,
/// which WebGPU's flat interpolation takes.
fn assemble(primitive: Primitive, count: usize, instances: usize, flat: bool) -> Vec<u32> {
    let mut out = Vec::new();
    for k in 0..instances {
        let base = k * count;
        let mut tri = |a: usize, b: usize, c: usize| {
            out.extend([a, b, c].map(|v| (base + v) as u32));
        };
        match primitive {
            Primitive::TriangleList => {
                (0..count / 3).for_each(|i| tri(3 * i, 3 * i + 1, 3 * i + 2))
            }
            Primitive::TriangleStrip => (2..count.max(2)).for_each(|i| {
                let k = i - 2;
                match (k % 2 == 0, flat) {
                    (true, _) => tri(k, k + 1, k + 2),
                    // The same triangle turned to start at its provoking vertex, k.
                    (false, true) => tri(k, k + 2, k + 1),
                    (false, false) => tri(k + 1, k, k + 2),
                }
            }),
            // Flat: turned to start at the provoking vertex, i − 1.
            Primitive::TriangleFan if flat => (2..count.max(2)).for_each(|i| tri(i - 1, i, 0)),
            Primitive::TriangleFan => (2..count.max(2)).for_each(|i| tri(0, i - 1, i)),
            Primitive::PointList => out.extend((0..count).map(|v| (base + v) as u32)),
            _ => {}
        }
    }
    out
}

impl Gpu {
    /// Draw `draws` in order into `frame`'s surfaces, after its clear, through wgpu render
    /// pipelines, and read the surfaces back as dxso-draw holds them. A state, format or
    /// primitive the GPU path cannot draw yet is [`Error::Refused`] (naming it, and the draw)
    /// before anything is drawn.
    pub fn draw_frame(&self, frame: &Frame, draws: &[Draw]) -> Result<Surfaces, Error> {
        let prepared = self.prepare_frame(frame, draws)?;
        prepared.run()?;
        prepared.read_back()
    }

    /// Everything of a frame that stays from one drawing to the next: its surfaces, and each
    /// draw's translation, pipeline, bindings, vertex and index buffers (resident on the
    /// GPU). [`PreparedFrame::run`] then clears and draws; [`PreparedFrame::read_back`] reads
    /// the surfaces (what `dxso bench --gpu` times apart).
    pub fn prepare_frame(&self, frame: &Frame, draws: &[Draw]) -> Result<PreparedFrame<'_>, Error> {
        frame
            .check()
            .map_err(|e| Error::Frame(FrameError::Check(e)))?;
        let max = self.limits.max_texture_dimension_2d;
        if frame.width > max || frame.height > max {
            return Err(Error::Frame(FrameError::FrameSize {
                width: frame.width,
                height: frame.height,
                max,
            }));
        }
        let in_draw = |n: usize| {
            move |e: Error| match e {
                Error::Refused(refusal) => Error::Refused(Refusal::InDraw {
                    draw: n,
                    refusal: Box::new(refusal),
                }),
                Error::Frame(error) => Error::Frame(FrameError::InDraw {
                    draw: n,
                    error: Box::new(error),
                }),
                e => e,
            }
        };
        for (n, d) in draws.iter().enumerate() {
            state::check(d).map_err(in_draw(n))?;
        }
        let targets = self.targets(frame)?;
        let mut prepared = Vec::new();
        let mut cache = Cache::default();
        for (n, d) in draws.iter().enumerate() {
            prepared.extend(
                self.prepare_one(&targets, frame, d, &mut cache)
                    .map_err(in_draw(n))?,
            );
        }
        Ok(PreparedFrame {
            gpu: self,
            frame: frame.clone(),
            targets,
            draws: prepared,
            stats: cache.stats,
        })
    }

    /// The frame's surfaces (cleared by [`PreparedFrame::run`]).
    fn targets(&self, frame: &Frame) -> Result<Targets, Error> {
        let size = wgpu::Extent3d {
            width: frame.width,
            height: frame.height,
            depth_or_array_layers: 1,
        };
        let texture = |format, view_formats: &[wgpu::TextureFormat]| {
            self.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("dxso-gpu draw target"),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats,
            })
        };
        let mut colors = Vec::new();
        for &format in &frame.targets {
            let wgpu = formats::color(format, self.rgba16_unorm_target)?;
            let srgb = wgpu == wgpu::TextureFormat::Rgba8Unorm;
            let texture = if srgb {
                texture(wgpu, &[wgpu::TextureFormat::Rgba8UnormSrgb])
            } else {
                texture(wgpu, &[])
            };
            let view = texture.create_view(&Default::default());
            let srgb_view = srgb.then(|| {
                texture.create_view(&wgpu::TextureViewDescriptor {
                    format: Some(wgpu::TextureFormat::Rgba8UnormSrgb),
                    ..Default::default()
                })
            });
            colors.push(ColorSurface {
                format,
                wgpu,
                texture,
                view,
                srgb_view,
            });
        }
        let depth = match frame.depth_stencil {
            Some(format) => {
                let wgpu = formats::depth(format, self.features)?;
                let texture = texture(wgpu, &[]);
                let view = texture.create_view(&Default::default());
                Some(DepthSurface {
                    format,
                    wgpu,
                    texture,
                    view,
                })
            }
            None => None,
        };
        Ok(Targets { colors, depth })
    }

    /// Record the frame's clear.
    fn record_clear(&self, encoder: &mut wgpu::CommandEncoder, t: &Targets, frame: &Frame) {
        let attachments: Vec<_> = t
            .colors
            .iter()
            .map(|c| {
                let [r, g, b, a] = c.format.store(frame.clear.color).map(f64::from);
                Some(wgpu::RenderPassColorAttachment {
                    view: &c.view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
                        store: wgpu::StoreOp::Store,
                    },
                })
            })
            .collect();
        {
            let ds = t
                .depth
                .as_ref()
                .map(|d| wgpu::RenderPassDepthStencilAttachment {
                    view: &d.view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(d.format.store(frame.clear.z)),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: d.format.has_stencil().then_some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(frame.clear.stencil as u32),
                        store: wgpu::StoreOp::Store,
                    }),
                });
            let _pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("dxso-gpu clear"),
                color_attachments: &attachments,
                depth_stencil_attachment: ds,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
        }
    }
}

/// A frame ready to draw on the GPU ([`Gpu::prepare_frame`]).
pub struct PreparedFrame<'a> {
    gpu: &'a Gpu,
    frame: Frame,
    targets: Targets,
    draws: Vec<Prepared>,
    stats: FrameStats,
}

/// What preparing a frame made: buffers and pipelines are made once per distinct content
/// within the frame, however many draws use them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// GPU buffers uploaded for vertices: streams, index lists and index buffers, one per
    /// distinct content (draws binding the same vertex buffer share its upload).
    pub buffers: usize,
    /// Render pipelines made.
    pub pipelines: usize,
    /// Draws whose vertices dxso-vm's fetch decoded on the CPU (the adapter's limits too
    /// small for the GPU's fetch).
    pub cpu_fetches: usize,
}

/// What draws of one frame share: buffers by their bytes, pipelines by everything they are
/// made of.
#[derive(Default)]
struct Cache {
    /// By the bytes' length and hash: each buffer with its bytes (compared on a hit).
    buffers: HashMap<(usize, u64), Vec<(fetch::Data, wgpu::Buffer)>>,
    pipelines: HashMap<String, (wgpu::RenderPipeline, Vec<wgpu::BindGroupLayout>)>,
    stats: FrameStats,
}

impl Cache {
    /// The GPU buffer of `data` (vertex, index and read-only storage use), uploaded on the
    /// first use of these bytes in the frame (draws of a scene each hold their streams, so
    /// the same vertex buffer is the same bytes); padded to a multiple of four bytes, at
    /// least four.
    fn buffer(&mut self, device: &wgpu::Device, data: &fetch::Data) -> wgpu::Buffer {
        let bytes = data.bytes();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        let found = self.buffers.entry((bytes.len(), h.finish())).or_default();
        if let Some((_, b)) = found
            .iter()
            .find(|(d, _)| std::ptr::eq(d.bytes().as_ptr(), bytes.as_ptr()) || d.bytes() == bytes)
        {
            return b.clone();
        }
        self.stats.buffers += 1;
        let mut padded;
        let contents = if !bytes.len().is_multiple_of(4) || bytes.is_empty() {
            padded = bytes.to_vec();
            padded.resize((bytes.len().div_ceil(4) * 4).max(4), 0);
            &padded[..]
        } else {
            bytes
        };
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("dxso-gpu draw vertices"),
            contents,
            usage: wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::INDEX
                | wgpu::BufferUsages::STORAGE,
        });
        found.push((data.clone(), buffer.clone()));
        buffer
    }
}

impl PreparedFrame<'_> {
    /// What preparing the frame made ([`FrameStats`]).
    pub fn stats(&self) -> FrameStats {
        self.stats
    }

    /// Clear the surfaces and draw every draw, in order; returns when the GPU is done.
    pub fn run(&self) -> Result<(), Error> {
        let gpu = self.gpu;
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("dxso-gpu frame"),
            });
        gpu.record_clear(&mut encoder, &self.targets, &self.frame);
        for p in &self.draws {
            gpu.record_draw(&mut encoder, &self.targets, p);
        }
        gpu.queue.submit([encoder.finish()]);
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(e.to_string()))?;
        gpu.check()
    }

    /// The surfaces as dxso-draw holds them.
    pub fn read_back(&self) -> Result<Surfaces, Error> {
        self.gpu.read_back(&self.targets, &self.frame)
    }
}

/// The viewport of a draw (the whole target by default), checked as dxso-draw checks it.
fn viewport(frame: &Frame, draw: &Draw) -> Result<Viewport, Error> {
    draw.checked_viewport(frame.width, frame.height)
        .map_err(|e| Error::Frame(FrameError::Viewport(e)))
}

/// The pixels a draw may touch: the viewport, within the scissor rectangle where the
/// scissor test is on. `None`: none.
fn rectangle(vp: &Viewport, draw: &Draw) -> Option<[u32; 4]> {
    let (mut x0, mut y0) = (vp.x as i64, vp.y as i64);
    let (mut x1, mut y1) = (x0 + vp.width as i64, y0 + vp.height as i64);
    if state::scissor_test(&draw.states)
        && let Some([l, t, r, b]) = draw.scissor
    {
        x0 = x0.max(l as i64);
        y0 = y0.max(t as i64);
        x1 = x1.min(r as i64);
        y1 = y1.min(b as i64);
    }
    (x0 < x1 && y0 < y1).then(|| [x0 as u32, y0 as u32, (x1 - x0) as u32, (y1 - y0) as u32])
}

/// Everything one draw records.
struct Prepared {
    pipeline: wgpu::RenderPipeline,
    groups: Vec<(u32, wgpu::BindGroup)>,
    /// Vertex buffers and the offsets they are bound at.
    vertices: Vec<(wgpu::Buffer, u64)>,
    indices: wgpu::Buffer,
    index_count: u32,
    /// Instances the GPU draws.
    instances: u32,
    viewport: Viewport,
    rect: [u32; 4],
    stencil_reference: u32,
    blend_constant: wgpu::Color,
    /// `SRGBWRITEENABLE`: 8-bit targets through their sRGB views.
    srgb: bool,
    /// Points drawn as quads: this many instances of six vertices, no index buffer.
    points: Option<u32>,
}
