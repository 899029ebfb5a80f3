//! # dxso-gpu — Direct3D 9 shaders run on a GPU through wgpu
//!
//! [`Gpu::draw`] runs the draw a [`dxso_vm::Device`] describes — its vertex shader, vertex
//! declaration, streams with their frequencies (instancing), index buffer, float, integer
//! and boolean constants, vertex textures and sampler states — on a GPU and returns the same
//! [`dxso_vm::Outputs`] as [`dxso_vm::Device::draw`], so callers print and compare them
//! alike.
//!
//! How a draw runs:
//! - the shader is translated by [`dxso_naga::translate`] (`FloatMode::Strict` unless
//!   [`Gpu::set_float_mode`] says otherwise), and a compute entry point is added to a copy of
//!   the module in naga IR ([`entry`]): one invocation per vertex calls the translated body
//!   on the vertex's input registers and stores its output registers. naga's validator
//!   checks the module before wgpu sees it (`wgpu::ShaderSource::Naga`);
//! - the vertex inputs are decoded on the CPU by dxso-vm's own vertex fetch
//!   ([`dxso_vm::Device::fetch`]): declaration types, stream offsets and strides,
//!   frequencies, indices and the (0, 0, 0, 1) of unbound inputs are exactly dxso-vm's, and
//!   the GPU sees one `vec4<f32>` per input register per vertex;
//! - constants go to the uniform buffers the translation's [`dxso_naga::Interface`] names,
//!   with the shader's `def`s written over them as it asks;
//! - vertex textures are uploaded as `Rgba32Float` textures holding dxso-vm's decoded texels,
//!   with a sampler translated from the D3D9 sampler state ([`textures`]). Filtering is the
//!   GPU's own: point sampling of texel centres is exact (2d, cube and volume textures);
//!   linear filtering on lavapipe differs from dxso-vm's by at most 1.2e-7 (measured on
//!   texels in [0, 1], all three kinds), and hardware that quantises filter weights by more;
//! - NaN outputs are made the one quiet NaN dxso-vm writes.
//!
//! Measured on Mesa's lavapipe (llvmpipe, LLVM 15) in `Strict` mode (`tests/gpu`): W1-W3
//! give dxso-vm's outputs bit for bit; of the 1,996 corpus vertex shaders on synthesized
//! inputs, 1,905 do, and the other 91 differ only by rounding — at most 4,804 units in the
//! last place (7e-8 absolute, near 2e-4) or 2.8e-4 absolute (292 ulp, at 13.3); no sign of
//! zero or flushed denormal differed. The rounding is the driver's (operations the
//! translation leaves to it, such as `sincos` through its sin/cos, or a multiply-add it
//! contracts); it was not attributed per instruction. One known difference is not rounding:
//! the translation's `c#` buffer holds 256 registers (relative reads past c255 give 0),
//! while dxso-vm's file follows the caps the shader was validated with (8,192 registers with
//! `Caps::max`), so a relative read of c256 or above that the device set differs.
//!
//! **Pixel shaders** ([`Gpu::render`], module `render`): a pixel shader of any version drawn
//! over one triangle covering a `width` x `height` [`Frame`] through its translated
//! `@fragment` entry, each colour output (`oC0`..`oC3`) into an `Rgba32Float` target and
//! oDepth into a depth target, read back as floats ([`Image`]). The frame gives the float
//! mode, constants, ps_1_x texture-stage state, textures (uploaded as for `texldl`) and each
//! input semantic as a linear function of the pixel position ([`Varying`]); a generated
//! vs_3_0, translated with the pixel shader by [`dxso_naga::translate_pair`], carries them.
//! Pixel (x, y) is sampled at its centre (x + 0.5, y + 0.5), where `vPos` reads (x, y);
//! a clockwise triangle is front-facing (`vFace` +1). [`Gpu::render_draw`] draws a dxso-vm
//! device's vertices instead, through its vertex shader's `@vertex` entry.
//!
//! **Whole draws** ([`Gpu::draw_frame`]): a `dxso_draw::Frame` and its `Draw`s (what
//! `dxso draw` scenes become) through a wgpu render pipeline per draw — the translated
//! vertex and pixel shaders (or generated pass-through and fixed-function stages) with
//! D3D9's pixel-centre offset, fog and the alpha test added in naga IR, the declaration as
//! vertex buffer layouts where WebGPU has its formats, and the draw's states as pipeline and
//! pass state — read back as the same `dxso_draw::Surfaces` the CPU draw returns. What it
//! cannot express yet is [`Error::Refused`] by name (docs/gpu.md lists it, with how close
//! each example comes to the CPU draw).
//!
//! Without an adapter [`Gpu::new`] returns [`Error::NoAdapter`]; on Linux without a GPU,
//! Mesa's lavapipe (Debian package `mesa-vulkan-drivers`) is one.

#![forbid(unsafe_code)]

mod bind;
mod draw;
pub mod entry;
mod frame;
mod render;
mod run;
pub mod textures;

pub use draw::{FrameStats, PreparedFrame};
pub use frame::{ColorTarget, Frame, Image, Sampler, Varying, Winding};
pub use run::{Draw, Resident};

use std::sync::{Arc, Mutex};

/// A sampler state or texture the GPU path cannot express ([`Error::Unsupported`]), with its
/// value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SamplerUnsupported {
    /// `BORDER` addressing on an adapter without `ADDRESS_MODE_CLAMP_TO_BORDER`.
    #[error("BORDER addressing on this adapter")]
    BorderAddressing,
    /// `MIRRORONCE` addressing.
    #[error("MIRRORONCE addressing")]
    MirrorOnce,
    /// A linear filter on an adapter without filterable 32-bit float textures.
    #[error("linear filtering of float textures on this adapter")]
    FloatFiltering,
    /// A nonzero `MIPMAPLODBIAS` (the bias).
    #[error("MIPMAPLODBIAS {0}")]
    LodBias(f32),
    /// A border colour wgpu has no preset for (the D3DCOLOR).
    #[error("BORDERCOLOR 0x{0:08x} (0x00000000, 0xff000000 and 0xffffffff are)")]
    BorderColour(u32),
    /// A texture of another kind than the sampler's.
    #[error("a {texture:?} texture on a {sampler:?} sampler")]
    TextureKind {
        /// The texture's kind.
        texture: dxso_vm::TextureKind,
        /// The sampler's.
        sampler: dxso_vm::TextureKind,
    },
}

/// What [`Gpu::render`] or [`Gpu::draw_frame`] cannot draw ([`Error::Frame`]): which size,
/// shader, input or draw.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The pixel shader reads more semantics (how many) than the full-screen vertex stage
    /// [`Gpu::render`] generates can carry (11).
    #[error("the pixel shader reads {0} semantics; the generated vertex stage carries 11")]
    TooManySemantics(usize),
    /// A pixel shader input (its semantic) the generated vertex stage cannot write.
    #[error("the generated vertex stage cannot write the pixel shader's {0} input")]
    UnwritableInput(String),
    /// The shader given as the pixel shader is of another stage (its version).
    #[error("{0} is not a pixel shader")]
    NotPixelShader(dxso::Version),
    /// A pixel shader input (its semantic) the frame gives no value for.
    #[error("the frame gives no value for the input {0}")]
    MissingInput(String),
    /// More vertices than a GPU draw counts (how many).
    #[error("{0} vertices")]
    Vertices(usize),
    /// A target of 0 pixels or past the adapter's limit.
    #[error("a {width}x{height} target (1 to {max} each way)")]
    TargetSize {
        /// The target's width.
        width: u32,
        /// Its height.
        height: u32,
        /// The adapter's largest 2D texture dimension.
        max: u32,
    },
    /// A frame past the adapter's limit.
    #[error("a {width}x{height} frame: the adapter's targets are at most {max}x{max}")]
    FrameSize {
        /// The frame's width.
        width: u32,
        /// Its height.
        height: u32,
        /// The adapter's largest 2D texture dimension.
        max: u32,
    },
    /// A frame dxso-draw refuses ([`dxso_draw::Frame::check`]).
    #[error("{0}")]
    Check(dxso_draw::DrawError),
    /// A draw's viewport dxso-draw refuses ([`dxso_draw::Draw::checked_viewport`]).
    #[error(transparent)]
    Viewport(dxso_draw::ViewportError),
    /// A draw of more vertices (vertices times instances) than one GPU draw takes.
    #[error(
        "a draw of {vertices} vertices x {instances} instances: at most {max} vertices at once"
    )]
    DrawSize {
        /// The draw's vertex count.
        vertices: usize,
        /// Its instance count.
        instances: usize,
        /// [`dxso_draw::MAX_DRAW_VERTICES`].
        max: usize,
    },
    /// One of a frame's draws (its index) cannot be drawn.
    #[error("draw {draw}: {error}")]
    InDraw {
        /// The draw's index in the frame.
        draw: usize,
        /// Why.
        error: Box<FrameError>,
    },
}

/// What the GPU draw ([`Gpu::draw_frame`]) refuses by name ([`Error::Refused`]): the state,
/// format or primitive, with its values.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refusal {
    /// Lines (`LINELIST`, `LINESTRIP`).
    #[error(
        "LINELIST/LINESTRIP: lines (D3D9's diamond rule, LASTPIXEL) are not drawn on the GPU path yet"
    )]
    Lines,
    /// `ZENABLE` `USEW`.
    #[error("render state ZENABLE USEW (w-buffering) is not supported on the GPU path yet")]
    WBuffer,
    /// `DESTBLEND` (or `DESTBLENDALPHA`) `BOTHSRCALPHA` or `BOTHINVSRCALPHA`.
    #[error("DESTBLEND BOTHSRCALPHA/BOTHINVSRCALPHA (valid only as SRCBLEND)")]
    BothSrcAlphaDest,
    /// An R5G6B5 render target.
    #[error("render target format R5G6B5: WebGPU has no renderable 5-6-5 format")]
    R5G6B5Target,
    /// An A16B16G16R16 render target on an adapter without 16-bit unorm targets.
    #[error(
        "render target format A16B16G16R16: the adapter cannot render to 16-bit unorm (Rgba16Unorm) targets"
    )]
    Unorm16Target,
    /// A D24S8 depth-stencil surface on an adapter without `DEPTH32FLOAT_STENCIL8`.
    #[error(
        "depth-stencil format D24S8: the adapter has no readable depth-stencil format (DEPTH32FLOAT_STENCIL8)"
    )]
    D24S8,
    /// A draw without a vertex shader whose declaration passes this semantic on.
    #[error(
        "a draw without a vertex shader passing {}{index}: not supported on the GPU path",
        usage.name().to_ascii_uppercase()
    )]
    PassThrough {
        /// The semantic's usage.
        usage: dxso::ir::Usage,
        /// Its usage index.
        index: u8,
    },
    /// Clip planes on an adapter without clip distances.
    #[error("CLIPPLANEENABLE: the adapter has no clip distances (CLIP_DISTANCES)")]
    ClipDistances,
    /// Clip planes with points larger than a pixel, or point sprites.
    #[error(
        "CLIPPLANEENABLE with points larger than a pixel or sprites (D3D9 clips a point by its centre)"
    )]
    ClipPlanesWithPoints,
    /// Blending into a 32-bit float target on an adapter that cannot blend them.
    #[error(
        "ALPHABLENDENABLE into the {} target: the adapter cannot blend 32-bit floats",
        format.name()
    )]
    Float32Blend {
        /// The target's format.
        format: dxso_draw::TargetFormat,
    },
    /// A pre-transformed vertex the GPU path cannot place exactly.
    #[error(
        "POSITIONT vertex {vertex} is ({:?}, {:?}, {:?}, rhw {:?}): the GPU path draws finite screen positions (x, y within ±2^22) with rhw > 0",
        position[0], position[1], position[2], position[3]
    )]
    PositionT {
        /// The vertex.
        vertex: usize,
        /// Its x, y, z and rhw.
        position: [f32; 4],
    },
    /// `SRGBTEXTURE` on a pixel sampler (its number) whose texture is read as sRGB.
    #[error("s{0}: SRGBTEXTURE (sRGB texture reads) is not drawn on the GPU path yet")]
    SrgbTexture(usize),
    /// The alpha test or fog of a pixel shader that writes no `oC0`.
    #[error("the alpha test or fog of a pixel shader that writes no oC0")]
    NoOc0,
    /// One of a frame's draws (its index) is refused.
    #[error("draw {draw}: {refusal}")]
    InDraw {
        /// The draw's index in the frame.
        draw: usize,
        /// What is refused.
        refusal: Box<Refusal>,
    },
}

/// Why the GPU path could not run a draw.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No Vulkan adapter, or none whose name contains the one asked for.
    #[error("{}", no_adapter_message(wanted.as_deref(), available))]
    NoAdapter {
        /// The adapter name asked for.
        wanted: Option<String>,
        /// The adapters there are.
        available: Vec<String>,
    },
    /// The adapter refused a device.
    #[error("requesting a device from {adapter}: {message}")]
    Device {
        /// The adapter's name.
        adapter: String,
        /// wgpu's error.
        message: String,
    },
    /// The draw's state is wrong (the same errors as dxso-vm's draw).
    #[error(transparent)]
    Vm(#[from] dxso_vm::VmError),
    /// The shader was not translated.
    #[error("translating the shader for the GPU: {0}")]
    Translate(#[from] dxso_naga::Error),
    /// The translation's body or interface is not what this crate expects (a defect).
    #[error("the translated module: {0}")]
    Interface(String),
    /// naga's validator rejected the module with the compute entry (a defect).
    #[error("naga rejected the module with the compute entry: {0}")]
    Validation(String),
    /// A sampler state or texture the GPU path cannot express.
    #[error("s{sampler}: {what} is not supported on the GPU path")]
    Unsupported {
        /// The sampler register.
        sampler: u32,
        /// What the GPU path cannot express.
        what: SamplerUnsupported,
    },
    /// A frame or shader pair [`Gpu::render`] cannot draw: a size of 0 or beyond the
    /// adapter's limit, a shader of the wrong stage, a varying the frame does not give.
    #[error("render: {0}")]
    Frame(FrameError),
    /// A draw's state, format or primitive that the GPU draw ([`Gpu::draw_frame`]) cannot
    /// express yet: named, never drawn wrong.
    #[error("not drawn on the GPU: {0}")]
    Refused(Refusal),
    /// wgpu reported an error (validation, out of memory, a lost device, a failed map).
    #[error("GPU: {0}")]
    Gpu(String),
}

fn no_adapter_message(wanted: Option<&str>, available: &[String]) -> String {
    let mut s = match wanted {
        Some(w) => format!("no GPU adapter whose name contains {w:?}"),
        None => "no usable GPU adapter (Vulkan)".to_string(),
    };
    if available.is_empty() {
        s.push_str("; none found");
    } else {
        s.push_str(&format!("; adapters: {}", available.join(", ")));
    }
    s.push_str(
        ". On Linux without a GPU, install Mesa's lavapipe (Debian package mesa-vulkan-drivers).",
    );
    s
}

/// A GPU device ready to run draws.
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    features: wgpu::Features,
    float: dxso_naga::FloatMode,
    /// Whether `Rgba16Unorm` (D3D9's A16B16G16R16) can be a render target here.
    rgba16_unorm_target: bool,
    /// Errors wgpu reported outside an operation's result (its validation), taken by
    /// [`Gpu::check`].
    errors: Arc<Mutex<Vec<String>>>,
}

/// The names of the Vulkan adapters wgpu finds.
pub fn adapters() -> Vec<String> {
    let instance = instance();
    pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN))
        .iter()
        .map(|a| a.get_info().name)
        .collect()
}

fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    })
}

impl Gpu {
    /// The wgpu device (for a harness that runs its own pipelines beside
    /// [`textures::bind`]'s textures).
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The wgpu queue of [`Gpu::device`].
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// Open the first Vulkan adapter whose name contains `adapter` (ignoring case), or the
    /// best one (a discrete GPU before an integrated, virtual or CPU one) when `None`.
    pub fn new(adapter: Option<&str>) -> Result<Gpu, Error> {
        let instance = instance();
        let found = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
        let available: Vec<String> = found.iter().map(|a| a.get_info().name).collect();
        let rank = |t: wgpu::DeviceType| match t {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Cpu => 3,
            wgpu::DeviceType::Other => 4,
        };
        let chosen = match adapter {
            Some(want) => {
                let want = want.to_lowercase();
                found
                    .into_iter()
                    .find(|a| a.get_info().name.to_lowercase().contains(&want))
            }
            None => found
                .into_iter()
                .min_by_key(|a| rank(a.get_info().device_type)),
        };
        let Some(chosen) = chosen else {
            return Err(Error::NoAdapter {
                wanted: adapter.map(str::to_string),
                available,
            });
        };
        let info = chosen.get_info();
        let limits = chosen.limits();
        let features = chosen.features()
            & (wgpu::Features::FLOAT32_FILTERABLE
                | wgpu::Features::ADDRESS_MODE_CLAMP_TO_BORDER
                | wgpu::Features::DEPTH32FLOAT_STENCIL8
                | wgpu::Features::TEXTURE_FORMAT_16BIT_NORM
                | wgpu::Features::FLOAT32_BLENDABLE
                | wgpu::Features::CLIP_DISTANCES
                | wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES);
        let rgba16_unorm_target = features.contains(
            wgpu::Features::TEXTURE_FORMAT_16BIT_NORM
                | wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES,
        ) && chosen
            .get_texture_format_features(wgpu::TextureFormat::Rgba16Unorm)
            .allowed_usages
            .contains(wgpu::TextureUsages::RENDER_ATTACHMENT);
        let (device, queue) = pollster::block_on(chosen.request_device(&wgpu::DeviceDescriptor {
            label: Some("dxso-gpu"),
            required_features: features,
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| Error::Device {
            adapter: info.name.clone(),
            message: e.to_string(),
        })?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            sink.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(e.to_string());
        }));
        Ok(Gpu {
            device,
            queue,
            info,
            limits,
            features,
            float: dxso_naga::FloatMode::Strict,
            rgba16_unorm_target,
            errors,
        })
    }

    /// The adapter's name (`llvmpipe (LLVM 15.0.6, 256 bits)` for lavapipe).
    pub fn adapter_name(&self) -> &str {
        &self.info.name
    }

    /// Whether the adapter is a CPU (lavapipe, SwiftShader).
    pub fn is_cpu(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// How shaders are translated: `Strict` (dxso-vm's arithmetic, the default) or `Ieee`.
    pub fn set_float_mode(&mut self, float: dxso_naga::FloatMode) {
        self.float = float;
    }

    /// Run the draw `device` describes (`vertex_count` vertices, `instance_count` times).
    pub fn draw(
        &self,
        device: &dxso_vm::Device,
        vertex_count: usize,
        instance_count: usize,
    ) -> Result<dxso_vm::Outputs, Error> {
        let draw = self.prepare(device, vertex_count, instance_count)?;
        let mut out = dxso_vm::Outputs {
            registers: Vec::new(),
            data: Vec::new(),
            vertices: 0,
            unbound_inputs: Vec::new(),
        };
        draw.run(&mut out)?;
        Ok(out)
    }

    /// Everything of a draw that does not change between runs: the translation, the
    /// pipeline, constants, textures and buffers. [`Draw::run`] then fetches the vertices,
    /// uploads them, dispatches and reads the outputs back (what `dxso bench --gpu` reports as
    /// `harness_s`; [`Draw::resident`] gives the dispatch alone).
    pub fn prepare<'a>(
        &'a self,
        device: &'a dxso_vm::Device,
        vertex_count: usize,
        instance_count: usize,
    ) -> Result<Draw<'a>, Error> {
        Draw::new(self, device, vertex_count, instance_count)
    }

    /// Map the first `bytes` of `buffer` (a `MAP_READ` buffer a submitted copy wrote), give
    /// them to `f`, and unmap it.
    fn read_mapped(
        &self,
        buffer: &wgpu::Buffer,
        bytes: u64,
        f: impl FnOnce(&[u8]),
    ) -> Result<(), Error> {
        let slice = buffer.slice(..bytes);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |res| {
            let _ = tx.send(res);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(e.to_string()))?;
        rx.recv()
            .map_err(|e| Error::Gpu(e.to_string()))?
            .map_err(|e| Error::Gpu(e.to_string()))?;
        {
            let view = slice
                .get_mapped_range()
                .map_err(|e| Error::Gpu(e.to_string()))?;
            f(&view);
        }
        buffer.unmap();
        Ok(())
    }

    /// Errors wgpu reported since the last check.
    fn check(&self) -> Result<(), Error> {
        let mut errors = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        if errors.is_empty() {
            Ok(())
        } else {
            let all = errors.join("; ");
            errors.clear();
            Err(Error::Gpu(all))
        }
    }
}
