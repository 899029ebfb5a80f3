//! What a render takes and gives: the [`Frame`] (target size, float mode, constants,
//! ps_1_x state, textures, varyings, winding) and the [`Image`] read back. How they are
//! drawn is `render.rs`.

use crate::bind::Source;
use dxso_naga::FloatMode;
use dxso_vm::{SamplerState, Texture};
use std::sync::Arc;

/// A full-screen draw of a pixel shader: the target, the float mode, and what the shader
/// reads.
#[derive(Clone, Debug)]
pub struct Frame {
    /// The targets' width in pixels.
    pub width: u32,
    /// The targets' height in pixels.
    pub height: u32,
    /// How both stages are translated.
    pub float: FloatMode,
    /// The colour every target starts with.
    pub clear: [f32; 4],
    /// `c#` of the pixel shader: register n is element n (absent ones are 0).
    pub float_constants: Vec<[f32; 4]>,
    /// `i#`.
    pub int_constants: Vec<[i32; 4]>,
    /// `b#`.
    pub bool_constants: Vec<bool>,
    /// ps_1_x texture-stage state, row by row in [`dxso_naga::ps1x`]'s layout (absent rows
    /// are 0).
    pub ps1x: Vec<[f32; 4]>,
    /// Textures and sampler states by sampler register; unbound samplers read
    /// (0, 0, 0, 1).
    pub samplers: Vec<Sampler>,
    /// The value of each input semantic of the pixel shader ([`crate::Gpu::render`] only).
    pub varyings: Vec<Varying>,
    /// How the full-screen triangle is wound on screen ([`crate::Gpu::render`] only).
    pub winding: Winding,
}

/// The texture and sampler state of one sampler register.
#[derive(Clone, Debug)]
pub struct Sampler {
    /// The sampler register's number (`s#`).
    pub register: u32,
    /// The texture bound to it.
    pub texture: Arc<Texture>,
    /// Its filtering and addressing.
    pub state: SamplerState,
}

/// One input semantic of a pixel shader as a linear function of the position (x, y) in the
/// target (pixel centres at whole numbers plus 0.5): `origin + x * dx + y * dy`.
#[derive(Clone, Debug, PartialEq)]
pub struct Varying {
    /// The semantic, as the Interface names it: `TEXCOORD0`, `COLOR1`, `NORMAL0`
    /// (ps_1_x/ps_2_x `t#` are `TEXCOORD#`, `v#` `COLOR#`).
    pub semantic: String,
    /// The value at (0, 0).
    pub origin: [f32; 4],
    /// The change per pixel to the right.
    pub dx: [f32; 4],
    /// The change per pixel down.
    pub dy: [f32; 4],
}

impl Varying {
    /// A varying that is `value` at every pixel.
    pub fn constant(semantic: &str, value: [f32; 4]) -> Varying {
        Varying {
            semantic: semantic.into(),
            origin: value,
            dx: [0.0; 4],
            dy: [0.0; 4],
        }
    }

    /// The value at (x, y) in the target.
    pub fn at(&self, x: f32, y: f32) -> [f32; 4] {
        std::array::from_fn(|c| self.origin[c] + x * self.dx[c] + y * self.dy[c])
    }
}

/// The on-screen winding of the full-screen triangle: `Clockwise` is D3D9's front face.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Winding {
    /// Clockwise on screen (the default).
    #[default]
    Clockwise,
    /// Counter-clockwise on screen (a back face in D3D9's default culling).
    CounterClockwise,
}

impl Frame {
    /// A `width` x `height` frame in `Strict` mode, cleared to 0, with no constants,
    /// textures or varyings, and the ps_1_x state of a D3D9 device: bump matrices 0, no
    /// projection, texture coordinates read as values clamped to [-8, 8]
    /// (`PixelShader1xMaxValue` 8) and `v#` colours to [0, 1].
    pub fn new(width: u32, height: u32) -> Frame {
        let mut ps1x = vec![[0.0; 4]; dxso_naga::ps1x::PARAMETER_ROWS as usize];
        ps1x[dxso_naga::ps1x::CLAMP_ROW as usize] = [8.0, 1.0, 0.0, 0.0];
        Frame {
            width,
            height,
            float: FloatMode::Strict,
            clear: [0.0; 4],
            float_constants: Vec::new(),
            int_constants: Vec::new(),
            bool_constants: Vec::new(),
            ps1x,
            samplers: Vec::new(),
            varyings: Vec::new(),
            winding: Winding::Clockwise,
        }
    }
}

impl Source for Frame {
    fn float(&self, n: u32) -> [f32; 4] {
        self.float_constants
            .get(n as usize)
            .copied()
            .unwrap_or([0.0; 4])
    }
    fn int(&self, n: u32) -> [i32; 4] {
        self.int_constants
            .get(n as usize)
            .copied()
            .unwrap_or([0; 4])
    }
    fn boolean(&self, n: u32) -> bool {
        self.bool_constants
            .get(n as usize)
            .copied()
            .unwrap_or(false)
    }
    fn ps1x(&self, row: u32) -> [f32; 4] {
        self.ps1x.get(row as usize).copied().unwrap_or([0.0; 4])
    }
    fn texture(&self, register: u32) -> Option<&Texture> {
        self.samplers
            .iter()
            .find(|s| s.register == register)
            .map(|s| &*s.texture)
    }
    fn sampler_state(&self, register: u32) -> SamplerState {
        self.samplers
            .iter()
            .find(|s| s.register == register)
            .map_or_else(SamplerState::default, |s| s.state)
    }
}

/// One colour output read back.
#[derive(Clone, Debug, PartialEq)]
pub struct ColorTarget {
    /// `oC0` .. `oC3`.
    pub register: String,
    /// Row by row from the top left.
    pub pixels: Vec<[f32; 4]>,
}

/// What a render wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// The width in pixels.
    pub width: u32,
    /// The height in pixels.
    pub height: u32,
    /// One per colour output the pixel shader writes, by register.
    pub colors: Vec<ColorTarget>,
    /// The depth target where the pixel shader writes oDepth, row by row.
    pub depth: Option<Vec<f32>>,
}

impl Image {
    /// Pixel (x, y) of colour output `register` (`oC0`).
    pub fn pixel(&self, register: &str, x: u32, y: u32) -> Option<[f32; 4]> {
        let t = self.colors.iter().find(|t| t.register == register)?;
        if x >= self.width || y >= self.height {
            return None;
        }
        t.pixels
            .get(y as usize * self.width as usize + x as usize)
            .copied()
    }
}
