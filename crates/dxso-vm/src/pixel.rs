//! Pixel shaders on the CPU: the interface the draw pipeline shades 2x2 quads through.
//!
//! (Interface only in this commit: `PixelRunner::run` refuses every shader until the pixel
//! engine lands; the types and signatures are the contract dxso-draw is written against.)

use crate::texture::{SamplerState, Texture};
use crate::{LANES, Trace, VmError};
use dxso::ir::Usage;
use dxso::validate::Checked;
use std::sync::Arc;

/// Lanes of a batch form quads: lane 4q+0 = pixel (x, y), 4q+1 = (x+1, y), 4q+2 = (x, y+1),
/// 4q+3 = (x+1, y+1).
pub const QUAD: usize = 4;

/// One input register a pixel shader reads, which the rasterizer fills.
#[derive(Clone, Debug, PartialEq)]
pub struct PixelInput {
    pub register: String,
    pub usage: Usage,
    pub usage_index: u8,
    pub mask: u8,
    pub color: bool,
}

/// The texture stage states ps_1_x reads.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct StageState {
    pub bump_env_mat: [f32; 4],
    pub bump_env_lscale: f32,
    pub bump_env_loffset: f32,
    pub projected: bool,
}

/// One draw's pixel shader with its constants, textures, samplers and stages.
#[derive(Clone, Debug)]
pub struct PixelState {
    inputs: Vec<PixelInput>,
}

impl PixelState {
    pub fn new(shader: &Checked) -> Result<PixelState, VmError> {
        if !shader.shader().version.is_pixel() {
            return Err(VmError::Sampler("not a pixel shader".into()));
        }
        Ok(PixelState { inputs: Vec::new() })
    }
    /// The shader's version (major, minor).
    pub fn version(&self) -> (u8, u8) {
        (2, 0)
    }
    pub fn inputs(&self) -> &[PixelInput] {
        &self.inputs
    }
    pub fn reads_position(&self) -> bool {
        false
    }
    pub fn reads_face(&self) -> bool {
        false
    }
    pub fn color_outputs(&self) -> u8 {
        1
    }
    pub fn writes_depth(&self) -> bool {
        false
    }
    pub fn set_constant_f(&mut self, _start: u32, _v: &[[f32; 4]]) -> Result<(), VmError> {
        Ok(())
    }
    pub fn set_constant_i(&mut self, _start: u32, _v: &[[i32; 4]]) -> Result<(), VmError> {
        Ok(())
    }
    pub fn set_constant_b(&mut self, _start: u32, _v: &[bool]) -> Result<(), VmError> {
        Ok(())
    }
    pub fn set_constant_table(&mut self, _t: Option<dxso::ctab::ConstantTable>) {}
    pub fn set_constant_by_name(&mut self, _name: &str, _values: &[f32]) -> Result<(), VmError> {
        Ok(())
    }
    pub fn set_texture(&mut self, _n: usize, _t: Option<Arc<Texture>>) -> Result<(), VmError> {
        Ok(())
    }
    pub fn set_sampler_state(&mut self, _n: usize, _s: SamplerState) -> Result<(), VmError> {
        Ok(())
    }
    pub fn set_stage(&mut self, _n: usize, _s: StageState) -> Result<(), VmError> {
        Ok(())
    }
    pub fn set_max_instructions(&mut self, _n: u64) {}
    pub fn runner(&self) -> PixelRunner<'_> {
        PixelRunner { _state: self }
    }
}

/// A batch of quads: inputs filled by the rasterizer, results written by the run.
pub struct PixelBatch {
    pub inputs: Vec<[[f32; LANES]; 4]>,
    pub pos: [[f32; LANES]; 2],
    pub face: [f32; LANES],
    pub live: [bool; LANES],
    pub color: [[[f32; LANES]; 4]; 4],
    pub depth: [f32; LANES],
    pub discarded: [bool; LANES],
}

impl PixelBatch {
    pub fn new(state: &PixelState) -> PixelBatch {
        PixelBatch {
            inputs: vec![[[0.0; LANES]; 4]; state.inputs.len()],
            pos: [[0.0; LANES]; 2],
            face: [1.0; LANES],
            live: [false; LANES],
            color: [[[0.0; LANES]; 4]; 4],
            depth: [0.0; LANES],
            discarded: [false; LANES],
        }
    }
}

/// Per-thread scratch for running batches.
pub struct PixelRunner<'a> {
    _state: &'a PixelState,
}

impl PixelRunner<'_> {
    pub fn run(&mut self, _batch: &mut PixelBatch) -> Result<(), VmError> {
        Err(VmError::Sampler(
            "pixel shaders are not implemented yet".into(),
        ))
    }
    pub fn trace(&mut self, _batch: &mut PixelBatch, _lane: usize) -> Result<Trace, VmError> {
        Err(VmError::Sampler(
            "pixel shaders are not implemented yet".into(),
        ))
    }
}
