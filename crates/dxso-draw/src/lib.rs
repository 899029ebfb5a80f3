//! # dxso-draw — whole Direct3D 9 draws on the CPU
//!
//! The reference device D3D9 no longer has: a [`Draw`] (the vertex stage, the pixel shader,
//! render states, viewport, scissor, clip planes) goes through primitive assembly, clipping,
//! the viewport transform, D3D9's rasterization rules, interpolation, the pixel shader (on
//! dxso-vm's engine, in 2x2 quads) and the output merger into a [`Frame`]'s surfaces.
//!
//! Where the D3D9 documentation is silent the module that implements a rule says what dxso
//! chose and why (`../shared/spec/pixel-pipeline.md` lists the open points).

#![forbid(unsafe_code)]
// Channel and lane loops index several arrays in step; ranges read best there.
#![allow(clippy::needless_range_loop)]

mod clip;

pub mod desc;
pub mod fixed;
mod merge;
mod pipeline;
mod raster;
pub mod scene;
mod shade;
pub mod states;
pub mod surfaces;
mod vertex;

pub use desc::{
    Clear, DepthFormat, Draw, Frame, MAX_DRAW_VERTICES, MAX_FRAME_BYTES, MAX_TARGET_SIDE,
    Primitive, TargetFormat, Viewport, ViewportError, d3dcolor,
};
pub use merge::MergeReport;
pub use scene::{DrawScene, Scene, SceneError, draw_scene_from_json, load_draw_scene};
pub use states::{RenderStates, StageStates, StateValue};
pub use surfaces::{DepthStencil, PixelValue, Surfaces, Target};

/// Why a frame could not be drawn.
#[derive(Debug, thiserror::Error, PartialEq, Clone)]
pub enum DrawError {
    /// The vertex or pixel stage failed (bad streams, the instruction cap, ...).
    #[error(transparent)]
    Vm(#[from] dxso_vm::VmError),
    /// A render or texture stage state (its name or value).
    #[error("{0}")]
    State(String),
    /// A scene or draw description that cannot be drawn.
    #[error("{0}")]
    Scene(String),
    /// A draw's viewport outside its target.
    #[error(transparent)]
    Viewport(#[from] ViewportError),
    /// A frame or draw beyond dxso's bounds.
    #[error("too large: {0}")]
    TooLarge(String),
    /// A defect in dxso (a generated shader it refused): please report it.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Draw `draws` in order into `frame`'s surfaces, after its clear.
pub fn draw_frame(frame: &Frame, draws: &[Draw]) -> Result<Surfaces, DrawError> {
    let mut surfaces = Surfaces::cleared(frame)?;
    for d in draws {
        pipeline::draw(&mut surfaces, d, None, true)?;
    }
    Ok(surfaces)
}

/// What happened at one pixel in one draw: the pixel debugger's record.
#[derive(Clone, Debug, PartialEq)]
pub struct PixelReport {
    /// The draw's index in the frame.
    pub draw: usize,
    /// The pixel's column.
    pub x: u32,
    /// The pixel's row.
    pub y: u32,
    /// The interpolated inputs, by semantic (`TEXCOORD0`, `COLOR0`, ...).
    pub inputs: Vec<(String, [f32; 4])>,
    /// The pixel shader's run (`None` without a pixel shader).
    pub shader: Option<dxso_vm::Trace>,
    /// `texkill` discarded the pixel.
    pub discarded: bool,
    /// What the output merger did.
    pub merge: MergeReport,
}

/// [`draw_frame`], recording every draw that shades pixel (x, y).
pub fn trace_pixel(
    frame: &Frame,
    draws: &[Draw],
    x: u32,
    y: u32,
) -> Result<(Surfaces, Vec<PixelReport>), DrawError> {
    let mut surfaces = Surfaces::cleared(frame)?;
    let mut reports = Vec::new();
    for (n, d) in draws.iter().enumerate() {
        let probe = pipeline::Probe {
            x,
            y,
            draw: n,
            reports: &mut reports,
        };
        pipeline::draw(&mut surfaces, d, Some(probe), true)?;
    }
    Ok((surfaces, reports))
}
