//! The `Draw` description: what one D3D9 draw call consists of (the vertex stage as a
//! configured `dxso_vm::Device`, the pixel shader's state, render and texture stage states,
//! viewport, scissor, clip planes), and the `Frame` it draws into (render targets, the
//! depth-stencil surface, the clear). The CPU pipeline here and the GPU path take the same
//! description.

use crate::DrawError;
use crate::states::{RenderStates, StageStates};
use dxso::ir::Usage;
use dxso_vm::{Device, PixelState};

/// The largest target side (D3D9 devices allow 16384 at most).
pub const MAX_TARGET_SIDE: u32 = 16384;

/// The most bytes a frame's surfaces (targets and depth-stencil, as dxso holds them: four f32
/// a target pixel, a f32 and a byte a depth pixel) may take.
pub const MAX_FRAME_BYTES: usize = 8 << 30;

/// The most vertices one draw may process (`vertex_count · instance_count`): D3D9 devices
/// index at most 2^24 vertices (`MaxVertexIndex` 0xFFFFFF on the largest), and dxso holds
/// every processed vertex of a draw at once.
pub const MAX_DRAW_VERTICES: usize = 1 << 24;

/// Render target formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetFormat {
    /// 8-bit unsigned normalised ARGB.
    A8R8G8B8,
    /// 8-bit unsigned normalised RGB; alpha reads as 1.
    X8R8G8B8,
    /// 10-bit RGB and 2-bit alpha, unsigned normalised.
    A2R10G10B10,
    /// 5-6-5-bit RGB, unsigned normalised; alpha reads as 1.
    R5G6B5,
    /// 16-bit unsigned normalised RGBA.
    A16B16G16R16,
    /// 16-bit float RGBA.
    A16B16G16R16F,
    /// 32-bit float RGBA.
    A32B32G32R32F,
    /// One 16-bit float channel (red).
    R16F,
    /// One 32-bit float channel (red).
    R32F,
    /// Two 16-bit float channels (red, green).
    G16R16F,
    /// Two 32-bit float channels (red, green).
    G32R32F,
}

impl TargetFormat {
    /// Every format, in declaration order.
    pub const ALL: [TargetFormat; 11] = [
        TargetFormat::A8R8G8B8,
        TargetFormat::X8R8G8B8,
        TargetFormat::A2R10G10B10,
        TargetFormat::R5G6B5,
        TargetFormat::A16B16G16R16,
        TargetFormat::A16B16G16R16F,
        TargetFormat::A32B32G32R32F,
        TargetFormat::R16F,
        TargetFormat::R32F,
        TargetFormat::G16R16F,
        TargetFormat::G32R32F,
    ];

    /// The `D3DFMT_` name without its prefix.
    pub fn name(self) -> &'static str {
        match self {
            TargetFormat::A8R8G8B8 => "A8R8G8B8",
            TargetFormat::X8R8G8B8 => "X8R8G8B8",
            TargetFormat::A2R10G10B10 => "A2R10G10B10",
            TargetFormat::R5G6B5 => "R5G6B5",
            TargetFormat::A16B16G16R16 => "A16B16G16R16",
            TargetFormat::A16B16G16R16F => "A16B16G16R16F",
            TargetFormat::A32B32G32R32F => "A32B32G32R32F",
            TargetFormat::R16F => "R16F",
            TargetFormat::R32F => "R32F",
            TargetFormat::G16R16F => "G16R16F",
            TargetFormat::G32R32F => "G32R32F",
        }
    }

    /// The format named `name` (`D3DFMT_` left out, any case).
    pub fn from_name(name: &str) -> Result<TargetFormat, DrawError> {
        TargetFormat::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                let all: Vec<&str> = TargetFormat::ALL.iter().map(|f| f.name()).collect();
                DrawError::Scene(format!(
                    "unknown render target format {name:?} (one of {})",
                    all.join(", ")
                ))
            })
    }

    /// Bits per channel of a unorm format (R, G, B, A; 0 = the channel is absent), `None` for
    /// float formats.
    pub fn unorm_bits(self) -> Option<[u32; 4]> {
        Some(match self {
            TargetFormat::A8R8G8B8 => [8, 8, 8, 8],
            TargetFormat::X8R8G8B8 => [8, 8, 8, 0],
            TargetFormat::A2R10G10B10 => [10, 10, 10, 2],
            TargetFormat::R5G6B5 => [5, 6, 5, 0],
            TargetFormat::A16B16G16R16 => [16, 16, 16, 16],
            _ => return None,
        })
    }

    /// Channels a float format stores (R, G, B, A); the others read back as D3D9 reads a
    /// missing channel: 1.0 (`R16F` reads `(r, 1, 1, 1)`).
    fn float_channels(self) -> (usize, bool) {
        match self {
            TargetFormat::A16B16G16R16F => (4, true),
            TargetFormat::A32B32G32R32F => (4, false),
            TargetFormat::R16F => (1, true),
            TargetFormat::R32F => (1, false),
            TargetFormat::G16R16F => (2, true),
            TargetFormat::G32R32F => (2, false),
            _ => (4, false),
        }
    }

    /// What the target stores for a written value, read back as floats: unorm channels
    /// clamped to [0, 1] and rounded to the nearest step (round half up, as D3D9's reference
    /// conversion does: `floor(x * max + 0.5)`); half channels rounded to f16; absent
    /// channels read 1.0.
    pub fn store(self, v: [f32; 4]) -> [f32; 4] {
        if let Some(bits) = self.unorm_bits() {
            return std::array::from_fn(|c| {
                if bits[c] == 0 {
                    return 1.0;
                }
                let max = ((1u32 << bits[c]) - 1) as f32;
                let x = if v[c] > 0.0 { v[c].min(1.0) } else { 0.0 };
                // floor(x·max + 0.5): positive and below 2^16, so truncation is the floor
                // (and no libm call).
                ((x * max + 0.5) as u32) as f32 / max
            });
        }
        let (n, half) = self.float_channels();
        std::array::from_fn(|c| {
            if c >= n {
                1.0
            } else if half {
                half_round(v[c])
            } else {
                v[c]
            }
        })
    }

    /// Whether blending and the colour write mask see an alpha channel.
    pub fn has_alpha(self) -> bool {
        !matches!(
            self,
            TargetFormat::X8R8G8B8
                | TargetFormat::R5G6B5
                | TargetFormat::R16F
                | TargetFormat::R32F
                | TargetFormat::G16R16F
                | TargetFormat::G32R32F
        )
    }
}

/// f32 → nearest f16 (ties to even; beyond 65504 infinity) → f32.
fn half_round(x: f32) -> f32 {
    half::f16::from_f32(x).to_f32()
}

/// Depth-stencil formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DepthFormat {
    /// 24-bit depth and 8-bit stencil.
    D24S8,
    /// 24-bit depth, no stencil.
    D24X8,
    /// 16-bit depth, no stencil.
    D16,
    /// 32-bit float depth, no stencil.
    D32FLockable,
}

impl DepthFormat {
    /// The `D3DFMT_` name without its prefix.
    pub fn name(self) -> &'static str {
        match self {
            DepthFormat::D24S8 => "D24S8",
            DepthFormat::D24X8 => "D24X8",
            DepthFormat::D16 => "D16",
            DepthFormat::D32FLockable => "D32F_LOCKABLE",
        }
    }

    /// The format named `name` (`D3DFMT_` left out, any case).
    pub fn from_name(name: &str) -> Result<DepthFormat, DrawError> {
        [
            DepthFormat::D24S8,
            DepthFormat::D24X8,
            DepthFormat::D16,
            DepthFormat::D32FLockable,
        ]
        .into_iter()
        .find(|f| f.name().eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            DrawError::Scene(format!(
                "unknown depth-stencil format {name:?} (D24S8, D24X8, D16, D32F_LOCKABLE)"
            ))
        })
    }

    /// Whether the surface has stencil bits.
    pub fn has_stencil(self) -> bool {
        self == DepthFormat::D24S8
    }

    /// The depth the surface stores for `z` (clamped to [0, 1]): unorm formats round to the
    /// nearest of their 2^n - 1 steps, D32F keeps the float.
    pub fn store(self, z: f32) -> f32 {
        let z = if z > 0.0 { z.min(1.0) } else { 0.0 };
        let bits = match self {
            DepthFormat::D24S8 | DepthFormat::D24X8 => 24,
            DepthFormat::D16 => 16,
            DepthFormat::D32FLockable => return z,
        };
        let max = ((1u64 << bits) - 1) as f64;
        // floor(z·max + 0.5): positive and below 2^25, so truncation is the floor.
        ((((z as f64) * max + 0.5) as u64) as f64 / max) as f32
    }
}

/// D3DPRIMITIVETYPE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Primitive {
    /// Each vertex a point.
    PointList,
    /// Each pair of vertices a line.
    LineList,
    /// A line from each vertex to the next.
    LineStrip,
    #[default]
    /// Each three vertices a triangle (the default).
    TriangleList,
    /// A triangle from each vertex and the two before it.
    TriangleStrip,
    /// A triangle from the first vertex and each consecutive pair after it.
    TriangleFan,
}

impl Primitive {
    /// Every primitive type with its scene-file name.
    pub const ALL: [(Primitive, &'static str); 6] = [
        (Primitive::PointList, "POINTLIST"),
        (Primitive::LineList, "LINELIST"),
        (Primitive::LineStrip, "LINESTRIP"),
        (Primitive::TriangleList, "TRIANGLELIST"),
        (Primitive::TriangleStrip, "TRIANGLESTRIP"),
        (Primitive::TriangleFan, "TRIANGLEFAN"),
    ];

    /// The primitive type a scene names `name`.
    pub fn from_name(name: &str) -> Result<Primitive, DrawError> {
        Primitive::ALL
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(name))
            .map(|&(p, _)| p)
            .ok_or_else(|| {
                DrawError::Scene(format!(
                    "unknown primitive {name:?} (POINTLIST, LINELIST, LINESTRIP, TRIANGLELIST, TRIANGLESTRIP, TRIANGLEFAN)"
                ))
            })
    }
}

/// D3DVIEWPORT9.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// The left edge in pixels.
    pub x: u32,
    /// The top edge in pixels.
    pub y: u32,
    /// The width in pixels.
    pub width: u32,
    /// The height in pixels.
    pub height: u32,
    /// The depth that z = 0 maps to.
    pub min_z: f32,
    /// The depth that z = 1 maps to.
    pub max_z: f32,
}

/// A viewport outside its target, or with z outside 0..1 ([`Draw::checked_viewport`]).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error(
    "viewport {}x{} at ({}, {}), z {}..{}: it must lie inside the {width}x{height} target with z \
     in 0..1",
    .viewport.width, .viewport.height, .viewport.x, .viewport.y, .viewport.min_z, .viewport.max_z
)]
pub struct ViewportError {
    /// The viewport refused.
    pub viewport: Viewport,
    /// The target's width.
    pub width: u32,
    /// The target's height.
    pub height: u32,
}

/// What the targets and the depth-stencil surface hold before the first draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clear {
    /// RGBA in [0, 1] (or any float for float targets).
    pub color: [f32; 4],
    /// The depth (0 near .. 1 far).
    pub z: f32,
    /// The stencil value.
    pub stencil: u8,
}

impl Default for Clear {
    fn default() -> Clear {
        Clear {
            color: [0.0; 4],
            z: 1.0,
            stencil: 0,
        }
    }
}

/// A `D3DCOLOR` (0xAARRGGBB) as RGBA floats.
pub fn d3dcolor(c: u32) -> [f32; 4] {
    let ch = |s: u32| ((c >> s) & 0xff) as f32 / 255.0;
    [ch(16), ch(8), ch(0), ch(24)]
}

/// The surfaces a scene's draws go into.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The targets' width in pixels.
    pub width: u32,
    /// The targets' height in pixels.
    pub height: u32,
    /// Render targets 0..4 (oC0..oC3).
    pub targets: Vec<TargetFormat>,
    /// The depth-stencil surface's format (`None`: no depth-stencil surface).
    pub depth_stencil: Option<DepthFormat>,
    /// What the surfaces hold before the first draw.
    pub clear: Clear,
}

impl Default for Frame {
    fn default() -> Frame {
        Frame {
            width: 640,
            height: 480,
            targets: vec![TargetFormat::A8R8G8B8],
            depth_stencil: Some(DepthFormat::D24S8),
            clear: Clear::default(),
        }
    }
}

impl Frame {
    /// Sizes and counts a device would refuse, and frames beyond [`MAX_FRAME_BYTES`].
    pub fn check(&self) -> Result<(), DrawError> {
        if self.width == 0 || self.height == 0 {
            return Err(DrawError::Scene(
                "the frame's width and height must be at least 1".into(),
            ));
        }
        if self.width > MAX_TARGET_SIDE || self.height > MAX_TARGET_SIDE {
            return Err(DrawError::TooLarge(format!(
                "a {}x{} target: D3D9 targets are at most {MAX_TARGET_SIDE}x{MAX_TARGET_SIDE}",
                self.width, self.height
            )));
        }
        if self.targets.is_empty() || self.targets.len() > 4 {
            return Err(DrawError::Scene(format!(
                "{} render targets: a frame has 1 to 4",
                self.targets.len()
            )));
        }
        let pixels = self.width as usize * self.height as usize;
        let bytes = pixels * (self.targets.len() * 16 + 5);
        if bytes > MAX_FRAME_BYTES {
            return Err(DrawError::TooLarge(format!(
                "the frame's surfaces need {bytes} bytes (the bound is {MAX_FRAME_BYTES})"
            )));
        }
        Ok(())
    }
}

/// One draw call.
pub struct Draw {
    /// The vertex stage: declaration, streams, indices, constants, vertex textures, and the
    /// vertex shader (or, for a draw without one, the pass-through `fixed::pass_through`
    /// sets).
    pub vertex: Device,
    /// `Some` for a draw without a vertex shader: the semantic each output register `o#`
    /// carries (`POSITIONT` for a pre-transformed position).
    pub fixed_function: Option<Vec<(Usage, u8)>>,
    /// Vertices per instance.
    pub vertex_count: usize,
    /// Instances (1 for a draw without instancing).
    pub instance_count: usize,
    /// How the vertices form primitives.
    pub primitive: Primitive,
    /// `None`: no pixel shader (the fixed-function colour: diffuse, plus specular where
    /// `SPECULARENABLE`).
    pub pixel: Option<PixelState>,
    /// The render states (`D3DRS_*`).
    pub states: RenderStates,
    /// The texture-stage states of the eight stages (`D3DTSS_*`).
    pub stages: [StageStates; 8],
    /// `None`: the whole target, z 0..1.
    pub viewport: Option<Viewport>,
    /// `[left, top, right, bottom]`, used where `SCISSORTESTENABLE`.
    pub scissor: Option<[i32; 4]>,
    /// Plane `n` (a, b, c, d), used where bit n of `CLIPPLANEENABLE`.
    pub clip_planes: [[f32; 4]; 6],
}

impl Draw {
    /// The draw's viewport (the whole `width` x `height` target when it sets none), checked as
    /// both the CPU and the GPU draw take it: inside the target, with z in 0..1.
    pub fn checked_viewport(&self, width: u32, height: u32) -> Result<Viewport, ViewportError> {
        let vp = self.viewport.unwrap_or(Viewport {
            x: 0,
            y: 0,
            width,
            height,
            min_z: 0.0,
            max_z: 1.0,
        });
        if vp.width == 0
            || vp.height == 0
            || vp.x as u64 + vp.width as u64 > width as u64
            || vp.y as u64 + vp.height as u64 > height as u64
            || !(0.0..=1.0).contains(&vp.min_z)
            || !(0.0..=1.0).contains(&vp.max_z)
        {
            return Err(ViewportError {
                viewport: vp,
                width,
                height,
            });
        }
        Ok(vp)
    }

    /// A draw with D3D9's defaults around the given vertex stage: a triangle list, no pixel
    /// shader, default states (for a frame with or without a depth-stencil surface).
    pub fn new(vertex: Device, vertex_count: usize, depth_stencil: bool) -> Draw {
        Draw {
            vertex,
            fixed_function: None,
            vertex_count,
            instance_count: 1,
            primitive: Primitive::TriangleList,
            pixel: None,
            states: RenderStates::new(depth_stencil),
            stages: std::array::from_fn(|n| StageStates::defaults(n as u32)),
            viewport: None,
            scissor: None,
            clip_planes: [[0.0; 4]; 6],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_storage_rounds_as_the_format() {
        let f = TargetFormat::A8R8G8B8;
        assert_eq!(
            f.store([0.5, 1.5, -1.0, 0.25]),
            [128.0 / 255.0, 1.0, 0.0, 64.0 / 255.0]
        );
        assert_eq!(TargetFormat::X8R8G8B8.store([0.0, 0.0, 0.0, 0.0])[3], 1.0);
        assert_eq!(
            TargetFormat::R5G6B5.store([1.0, 0.5, 0.0, 0.0]),
            [1.0, 32.0 / 63.0, 0.0, 1.0]
        );
        assert_eq!(
            TargetFormat::R32F.store([2.5, 3.0, 4.0, 5.0]),
            [2.5, 1.0, 1.0, 1.0]
        );
        // 1/3 in f16 is 0x3555 = 0.333251953125.
        assert_eq!(
            TargetFormat::R16F.store([1.0 / 3.0, 0.0, 0.0, 0.0])[0],
            0.333_251_95
        );
        assert_eq!(
            TargetFormat::A16B16G16R16F.store([70000.0; 4])[0],
            f32::INFINITY
        );
        assert_eq!(TargetFormat::A16B16G16R16F.store([1e-8; 4])[0], 0.0);
    }

    #[test]
    fn unorm_rounding_is_floor_of_x_max_plus_a_half() {
        // The oracle: the reference conversion as written, with floor.
        let floor_store = |bits: u32, x: f32| {
            let max = ((1u32 << bits) - 1) as f32;
            let x = if x > 0.0 { x.min(1.0) } else { 0.0 };
            (x * max + 0.5).floor() / max
        };
        let formats = [
            (TargetFormat::A8R8G8B8, 8),
            (TargetFormat::A2R10G10B10, 10),
            (TargetFormat::R5G6B5, 6),
            (TargetFormat::A16B16G16R16, 16),
        ];
        for (format, bits) in formats {
            let max = ((1u32 << bits) - 1) as f32;
            // Every step and every half step (the ties), and a sweep between and beyond.
            let ties = (0..=2 * max as u32 + 2).map(|k| k as f32 / (2.0 * max));
            let sweep = (-4096..=(1 << 18) + 4096).map(|k| k as f32 / (1 << 18) as f32);
            for x in ties.chain(sweep).chain([f32::NAN, f32::INFINITY, -0.0]) {
                assert_eq!(
                    format.store([0.0, x, 0.0, 0.0])[1],
                    floor_store(bits, x),
                    "{x}"
                );
            }
        }
        for (format, bits) in [(DepthFormat::D16, 16), (DepthFormat::D24S8, 24)] {
            let max = ((1u64 << bits) - 1) as f64;
            for k in (-4096..=(1 << 20) + 4096).chain([1 << 23, (1 << 24) - 1]) {
                let z = k as f32 / (1 << 20) as f32;
                let zc = if z > 0.0 { z.min(1.0) } else { 0.0 };
                let want = (((zc as f64) * max + 0.5).floor() / max) as f32;
                assert_eq!(format.store(z), want, "{z}");
            }
        }
    }

    #[test]
    fn depth_storage() {
        assert_eq!(DepthFormat::D16.store(0.5), (32768.0f64 / 65535.0) as f32);
        assert_eq!(DepthFormat::D32FLockable.store(0.3), 0.3);
        assert_eq!(DepthFormat::D24S8.store(2.0), 1.0);
    }

    #[test]
    fn frames_are_bounded() {
        let mut f = Frame::default();
        f.check().unwrap();
        f.width = 16385;
        assert!(matches!(f.check(), Err(DrawError::TooLarge(_))));
        f.width = 16384;
        f.height = 16384;
        f.targets = vec![TargetFormat::A8R8G8B8; 4];
        assert!(matches!(f.check(), Err(DrawError::TooLarge(_))));
        f.targets.clear();
        f.height = 1;
        assert!(f.check().is_err());
    }

    #[test]
    fn d3dcolor_channels() {
        assert_eq!(d3dcolor(0x80ff0000), [1.0, 0.0, 0.0, 128.0 / 255.0]);
    }
}
