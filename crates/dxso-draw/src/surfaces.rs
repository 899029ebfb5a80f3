//! What a frame's draws go into: the render targets and the depth-stencil surface, as dxso
//! holds them (every value already rounded to what its format stores), and what a caller reads
//! back (a pixel, a target as 8-bit RGBA).

use crate::DrawError;
use crate::desc::{DepthFormat, Frame, TargetFormat};

/// One render target's contents, row-major from the top-left pixel.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// Its format.
    pub format: TargetFormat,
    /// RGBA per pixel.
    pub texels: Vec<[f32; 4]>,
}

/// The depth-stencil surface's contents.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthStencil {
    /// Its format.
    pub format: DepthFormat,
    /// Depth per pixel.
    pub z: Vec<f32>,
    /// Stencil per pixel.
    pub stencil: Vec<u8>,
}

/// The surfaces of a frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Surfaces {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The render targets, by index.
    pub targets: Vec<Target>,
    /// The depth-stencil surface, when the frame has one.
    pub depth_stencil: Option<DepthStencil>,
}

/// What the surfaces hold at one pixel.
#[derive(Clone, Debug, PartialEq)]
pub struct PixelValue {
    /// The pixel's column.
    pub x: u32,
    /// The pixel's row.
    pub y: u32,
    /// Each target's value there.
    pub targets: Vec<[f32; 4]>,
    /// `None` without a depth-stencil surface.
    pub z: Option<f32>,
    /// `None` without a depth-stencil surface.
    pub stencil: Option<u8>,
}

impl Surfaces {
    /// The frame's surfaces after its clear.
    pub fn cleared(frame: &Frame) -> Result<Surfaces, DrawError> {
        frame.check()?;
        let n = frame.width as usize * frame.height as usize;
        let targets = frame
            .targets
            .iter()
            .map(|&format| Target {
                format,
                texels: vec![format.store(frame.clear.color); n],
            })
            .collect();
        let depth_stencil = frame.depth_stencil.map(|format| DepthStencil {
            format,
            z: vec![format.store(frame.clear.z); n],
            stencil: vec![
                if format.has_stencil() {
                    frame.clear.stencil
                } else {
                    0
                };
                n
            ],
        });
        Ok(Surfaces {
            width: frame.width,
            height: frame.height,
            targets,
            depth_stencil,
        })
    }

    /// What every surface holds at (x, y); `None` outside the frame.
    pub fn pixel(&self, x: u32, y: u32) -> Option<PixelValue> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = y as usize * self.width as usize + x as usize;
        Some(PixelValue {
            x,
            y,
            targets: self.targets.iter().map(|t| t.texels[i]).collect(),
            z: self.depth_stencil.as_ref().map(|d| d.z[i]),
            stencil: self
                .depth_stencil
                .as_ref()
                .filter(|d| d.format.has_stencil())
                .map(|d| d.stencil[i]),
        })
    }

    /// Target `n` as 8-bit RGBA rows (float targets clamped to [0, 1]), for a PNG.
    pub fn rgba8(&self, n: usize) -> Option<Vec<u8>> {
        let t = self.targets.get(n)?;
        let byte = |x: f32| (if x > 0.0 { x.min(1.0) } else { 0.0 } * 255.0 + 0.5) as u8;
        Some(t.texels.iter().flat_map(|p| p.map(byte)).collect())
    }
}

/// Rows `y0..y1` of every surface, borrowed mutably: what one thread draws into.
pub(crate) struct Band<'a> {
    pub y0: u32,
    pub y1: u32,
    pub width: u32,
    pub targets: Vec<(TargetFormat, &'a mut [[f32; 4]])>,
    pub depth_stencil: Option<(DepthFormat, &'a mut [f32], &'a mut [u8])>,
}

impl Band<'_> {
    /// The index of pixel (x, y) (inside the band) in the band's slices.
    pub fn index(&self, x: u32, y: u32) -> usize {
        (y - self.y0) as usize * self.width as usize + x as usize
    }
}

impl Surfaces {
    /// The surfaces split into bands of `rows` rows, top to bottom.
    pub(crate) fn bands(&mut self, rows: u32) -> Vec<Band<'_>> {
        let (w, h) = (self.width, self.height);
        let rows = rows.max(1);
        let chunk = rows as usize * w as usize;
        let mut targets: Vec<_> = self
            .targets
            .iter_mut()
            .map(|t| (t.format, t.texels.chunks_mut(chunk)))
            .collect();
        let mut depth = self
            .depth_stencil
            .as_mut()
            .map(|d| (d.format, d.z.chunks_mut(chunk), d.stencil.chunks_mut(chunk)));
        let mut bands = Vec::new();
        let mut y0 = 0;
        while y0 < h {
            let y1 = (y0 + rows).min(h);
            bands.push(Band {
                y0,
                y1,
                width: w,
                targets: targets
                    .iter_mut()
                    .map(|(f, it)| (*f, it.next().unwrap_or_default()))
                    .collect(),
                depth_stencil: depth.as_mut().map(|(f, z, s)| {
                    (
                        *f,
                        z.next().unwrap_or_default(),
                        s.next().unwrap_or_default(),
                    )
                }),
            });
            y0 = y1;
        }
        bands
    }
}
