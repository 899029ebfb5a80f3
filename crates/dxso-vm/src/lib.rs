//! # dxso-vm — software vertex processing
//!
//! Runs validated Direct3D 9 vertex shaders (vs_1_1 .. vs_3_0) on the CPU with D3D9's
//! semantics, and pixel shaders (ps_1_1 .. ps_3_0) over batches of 2x2 quads for a CPU
//! rasterizer ([`PixelState`], [`PixelRunner`]; the `pixel` module documents the rules). A shader is lowered once into a pre-decoded [`Program`]; draws execute it over
//! batches of [`LANES`] vertices in structure-of-arrays form, with execution masks for
//! dynamic flow control and predication, spread over threads with rayon.
//!
//! Where D3D9 on Windows does other than its reference pages say, dxso does what Windows does
//! (`../shared/spec/instructions.md`): vs_1_1 `mov a0.x` floors (C2); vs_1_1 .. vs_2_x `oD0`
//! starts each vertex as (1, 1, 1, 1) and is always among the outputs (C11); `texldl` may
//! write an output register (§6).
//!
//! ```
//! use dxso::validate::{validate, Caps};
//! use dxso_vm::{Device, DeclType, Frequency, StreamSource, VertexElement};
//! use dxso::ir::Usage;
//!
//! let shader = dxso::text::parse("vs_3_0\ndcl_position v0\ndcl_position o0\nmul o0, v0, c0\n").unwrap();
//! let checked = validate(&shader, &Caps::max()).unwrap();
//! let mut device = Device::new();
//! device.set_vertex_shader(&checked).unwrap();
//! device.set_constant_f(0, &[[2.0, 2.0, 2.0, 1.0]]).unwrap();
//! device.set_declaration(vec![VertexElement {
//!     stream: 0, offset: 0, ty: DeclType::Float3, method: 0, usage: Usage::Position, usage_index: 0,
//! }]).unwrap();
//! let data: Vec<u8> = [1.0f32, 2.0, 3.0].iter().flat_map(|f| f.to_le_bytes()).collect();
//! device.set_stream(0, Some(StreamSource { data: data.into(), offset: 0, stride: 12, frequency: Frequency::Vertex })).unwrap();
//! let out = device.draw(1, 1).unwrap();
//! assert_eq!(out.vertex(0), &[2.0, 4.0, 6.0, 1.0]);
//! ```

// Lane and component loops index several arrays in step; ranges read best there.
#![allow(clippy::needless_range_loop)]

mod by_name;
mod compile;
mod device;
mod draw;
mod exec;
mod fetch;
mod guard;
#[cfg(test)]
mod guard_tests;
mod inline;
mod math;
mod options;
mod pixel;
mod program;
#[cfg(test)]
mod safety_tests;
mod texture;
mod trace;
/// Test and bench data, not engine API: the W1-W3 workloads for the divan benchmark, the
/// equivalence and guard suites and the CLI's `bench` (hidden from the docs; it may change
/// without notice).
#[doc(hidden)]
pub mod workloads;

pub use compile::{CodeGenerator, Tier};
pub use device::{Device, Inputs, MAX_OUTPUT_BYTES, Outputs, draw_vertices};
pub use exec::Isa;
pub use fetch::{
    DeclType, Frequency, STREAMSOURCE_INDEXEDDATA, STREAMSOURCE_INSTANCEDATA, StreamData,
    StreamSource, VertexElement,
};
pub use options::Options;
pub use pixel::{
    PIXEL_SAMPLERS, PixelBatch, PixelInput, PixelRunner, PixelState, QUAD, StageState,
    TEXTURE_STAGES,
};
pub use program::{LowerError, OutputRegister, Program};
pub use texture::{
    Format, FoundValue, MAX_ANISOTROPY, MAX_TEXTURE_SIZE, MAX_TEXTURE_TEXELS,
    PIXEL_TEXTURE_FILTER_CAPS, SAMPLER_STATES, SamplerState, SamplerStateError, SamplerValue,
    Storage, Texture, TextureAddress, TextureError, TextureFilter, TextureKind,
    VERTEX_TEXTURE_FILTER_CAPS, ValueProblem, check_vertex_texture_format, encode_level, sample,
    srgb_to_linear,
};
pub use trace::{Trace, TraceStep};

/// The Rust example of `docs/library.md` compiles and runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/library.md")]
pub struct LibraryDoctests;

/// Vertices per batch (one lane each).
pub const LANES: usize = 64;

/// What is wrong with a vertex declaration ([`Device::set_declaration`]): which element,
/// and the value out of range or declared twice.
#[derive(Debug, thiserror::Error, PartialEq, Eq, Clone)]
pub enum DeclarationError {
    /// More elements than `MAXD3DDECLLENGTH` (64) (how many).
    #[error("more than 64 elements")]
    TooManyElements(usize),
    /// An element's stream past 15.
    #[error("element {element}: stream {stream} (0..15)")]
    Stream {
        /// The element's index in the declaration.
        element: usize,
        /// Its stream.
        stream: u16,
    },
    /// An element's usage index past 15.
    #[error("element {element}: usage index {usage_index} (0..15)")]
    UsageIndex {
        /// The element's index in the declaration.
        element: usize,
        /// Its usage index.
        usage_index: u8,
    },
    /// A usage and usage index an earlier element declares already.
    #[error(
        "element {element}: {}{usage_index} is declared twice",
        usage.name().to_ascii_uppercase()
    )]
    Twice {
        /// The element's index in the declaration (the later of the two).
        element: usize,
        /// The usage.
        usage: dxso::ir::Usage,
        /// The usage index.
        usage_index: u8,
    },
}

/// What a sampler or texture stage refused ([`VmError::Sampler`]).
#[derive(Debug, thiserror::Error, PartialEq, Eq, Clone)]
pub enum SamplerError {
    /// A vertex sampler number past s3.
    #[error("s{0}: vertex samplers are s0..s3")]
    NotVertexSampler(usize),
    /// A pixel sampler number past s15.
    #[error("s{0} is past s15")]
    NotPixelSampler(usize),
    /// A texture stage number past 7.
    #[error("texture stage {0} is past stage 7")]
    NotStage(usize),
    /// A texture of a pixel-only format bound to a vertex sampler.
    #[error("s{sampler}: {format} is not a vertex texture format")]
    NotVertexFormat {
        /// The sampler.
        sampler: usize,
        /// The texture's format name.
        format: &'static str,
    },
    /// A texture of another kind than the shader declares for its sampler.
    #[error("s{sampler} is declared {declared:?} by the shader but holds a {bound:?} texture")]
    WrongKind {
        /// The sampler.
        sampler: usize,
        /// The kind the shader's `dcl_2d`/`dcl_cube`/`dcl_volume` declares.
        declared: TextureKind,
        /// The bound texture's kind.
        bound: TextureKind,
    },
    /// A sampler state the sampler does not support.
    #[error("s{sampler}: {filter}")]
    Unsupported {
        /// The sampler.
        sampler: usize,
        /// The state.
        filter: UnsupportedFilter,
    },
}

/// A sampler state a kind of sampler does not support ([`SamplerState::check`],
/// [`SamplerState::check_pixel`]).
#[derive(Debug, thiserror::Error, PartialEq, Eq, Clone, Copy)]
pub enum UnsupportedFilter {
    /// SRGBTEXTURE on a vertex sampler.
    #[error("SRGBTEXTURE is not supported by vertex samplers")]
    VertexSrgb,
    /// A MAGFILTER or MINFILTER (`state`) a vertex sampler does not have.
    #[error(
        "{state} {filter:?} is not supported by vertex samplers (VertexTextureFilterCaps has \
         point and linear)"
    )]
    Vertex {
        /// `MAGFILTER` or `MINFILTER`.
        state: &'static str,
        /// The filter asked for.
        filter: TextureFilter,
    },
    /// A MIPFILTER a vertex sampler does not have.
    #[error("MIPFILTER {0:?} is not supported by vertex samplers")]
    VertexMip(TextureFilter),
    /// A MAGFILTER or MINFILTER (`state`) a pixel sampler does not have.
    #[error(
        "{state} {filter:?} is not supported by pixel samplers (TextureFilterCaps has point, \
         linear and anisotropic)"
    )]
    Pixel {
        /// `MAGFILTER` or `MINFILTER`.
        state: &'static str,
        /// The filter asked for.
        filter: TextureFilter,
    },
    /// A MIPFILTER a pixel sampler does not have.
    #[error("MIPFILTER {0:?} is not supported by pixel samplers")]
    PixelMip(TextureFilter),
}

/// Why a draw could not run.
#[derive(Debug, thiserror::Error, PartialEq, Eq, Clone)]
pub enum VmError {
    /// A draw with no vertex shader bound.
    #[error("no vertex shader is set")]
    NoShader,
    /// A pixel shader's state given a vertex shader (or an unknown version).
    #[error("not a pixel shader: PixelState runs ps_1_1 .. ps_3_0")]
    NotPixelShader,
    /// The shader could not be lowered to the engines' program.
    #[error(transparent)]
    Lower(LowerError),
    /// A stream the declaration reads has no vertex buffer.
    #[error("stream {0} is used by the declaration but not set")]
    StreamNotSet(u16),
    /// An element of some vertex lies past its stream's data.
    #[error(
        "element {element} of stream {stream} reads past the end of the stream ({len} bytes) at element index {index}"
    )]
    ReadsPastStream {
        /// The stream.
        stream: u16,
        /// The element, as the declaration names it.
        element: String,
        /// The vertex (or instance) index read.
        index: usize,
        /// The stream's length in bytes.
        len: usize,
    },
    /// A vertex ran past the instruction limit (the limit).
    #[error("a vertex executed more than {0} instructions (MaxVShaderInstructionsExecuted)")]
    InstructionLimit(u64),
    /// A draw whose outputs would exceed [`MAX_OUTPUT_BYTES`] (the bytes).
    #[error("the draw's outputs ({0} bytes) are too large to hold in memory")]
    TooLarge(usize),
    /// The vertex declaration is wrong (what is wrong).
    #[error("bad vertex declaration: {0}")]
    Declaration(DeclarationError),
    /// A stream frequency setting that is not valid (the setting).
    #[error("bad stream frequency setting 0x{0:08x}")]
    BadFrequency(u32),
    /// A stream number past 15.
    #[error("stream {0} does not exist (D3D9 has 16)")]
    NoStream(usize),
    /// A constant register out of the file's range: the last register a call would have
    /// set (its file, `c#`, `i#` or `b#`, and number).
    #[error("constant {}{index} is out of range", set.prefix())]
    ConstantRange {
        /// The register file.
        set: dxso::ctab::RegisterSet,
        /// The register's number.
        index: u32,
    },
    /// Constants set by name on a shader that carries no constant table.
    #[error("constants by name need a constant table: the shader carries no constant table (CTAB)")]
    NoConstantTable,
    /// Constants set by name (or their defaults) from a constant table that does not read.
    #[error("constants by name need a constant table: {0}")]
    BadConstantTable(dxso::ctab::CtabError),
    /// A name the constant table does not have.
    #[error("no constant named '{name}'; the constant table has: {}", known.join(", "))]
    UnknownConstant {
        /// The name asked for.
        name: String,
        /// The names the table has.
        known: Vec<String>,
    },
    /// More values than the constant's registers hold.
    #[error("constant '{name}' holds {capacity} values; {given} given")]
    TooManyValues {
        /// The constant's name.
        name: String,
        /// The values it holds.
        capacity: usize,
        /// The values given.
        given: usize,
    },
    /// A sampler constant set by name (the name): samplers take textures.
    #[error("constant '{0}' is a sampler: bind a texture to its register instead")]
    SamplerByName(String),
    /// An index buffer with fewer indices than the draw's vertices.
    #[error("bad index buffer: {indices} indices for {vertices} vertices")]
    TooFewIndices {
        /// The indices bound.
        indices: usize,
        /// The vertices drawn.
        vertices: usize,
    },
    /// A vertex (to trace) that the draw does not have.
    #[error("bad index buffer: vertex {vertex} is not in a draw of {vertices} vertices")]
    VertexNotInDraw {
        /// The vertex asked for.
        vertex: usize,
        /// The draw's vertices (all instances).
        vertices: usize,
    },
    /// A part of a draw (vertices to run) that the draw does not hold.
    #[error("bad index buffer: vertices {range:?} are not in a draw of {vertices} vertices")]
    VerticesNotInDraw {
        /// The vertices asked for.
        range: std::ops::Range<usize>,
        /// The draw's vertices (all instances).
        vertices: usize,
    },
    /// A pixel lane (to trace) past a batch's [`LANES`].
    #[error("bad index buffer: lane {lane} is not in a batch of {}", LANES)]
    LaneNotInBatch {
        /// The lane asked for.
        lane: usize,
    },
    /// The worker threads could not be set up (the pool's error).
    #[error("thread pool: {0}")]
    Threads(String),
    /// A texture, sampler state or sampler number that sampling does not support.
    #[error("sampler {0}")]
    Sampler(SamplerError),
    /// A panic inside the draw (a defect in dxso): caught, never an abort.
    #[error("internal error in {0} (a panic, caught); please report it")]
    Panicked(String),
}
