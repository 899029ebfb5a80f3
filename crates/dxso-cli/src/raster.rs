//! A small triangle rasteriser for pictures of a draw's output: clipping in homogeneous
//! space, perspective divide, the D3D9 viewport, a depth test, and the colour output
//! interpolated perspective-correctly.

use anyhow::Context;
use std::path::Path;

/// One vertex as the rasteriser takes it: clip-space position and an RGBA colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasterVertex {
    pub pos: [f32; 4],
    pub color: [f32; 4],
}

/// A draw's output vertices as the rasteriser takes them: the register with the POSITION0
/// semantic places them, the one with COLOR0 colours them; without a COLOR0 output they are
/// white, as the components of vs_1_1 .. vs_2_x `oD0` a shader never writes are
/// (../shared/spec/instructions.md C11; the executor starts that oD0 at (1, 1, 1, 1)).
pub fn vertices(out: &dxso_vm::Outputs) -> anyhow::Result<Vec<RasterVertex>> {
    let find = |sem: &str| {
        out.registers
            .iter()
            .position(|r| r.semantic.split('+').any(|s| s == sem))
    };
    let pos = find("POSITION0").ok_or_else(|| anyhow::anyhow!("no POSITION0 output to draw"))?;
    let color = find("COLOR0");
    let reg = |v: &[f32], k: usize| [v[k * 4], v[k * 4 + 1], v[k * 4 + 2], v[k * 4 + 3]];
    Ok((0..out.vertices)
        .map(|i| {
            let v = out.vertex(i);
            RasterVertex {
                pos: reg(v, pos),
                color: color.map_or([1.0; 4], |c| reg(v, c)),
            }
        })
        .collect())
}

pub struct Image {
    pub width: usize,
    pub height: usize,
    /// RGBA8, row 0 at the top.
    pub pixels: Vec<u8>,
    depth: Vec<f32>,
}

impl Image {
    pub fn new(width: usize, height: usize, background: [u8; 4]) -> Image {
        Image {
            width,
            height,
            pixels: background.repeat(width * height),
            depth: vec![1.0; width * height],
        }
    }

    #[cfg(test)]
    pub fn pixel(&self, x: usize, y: usize) -> [u8; 4] {
        let i = (y * self.width + x) * 4;
        [
            self.pixels[i],
            self.pixels[i + 1],
            self.pixels[i + 2],
            self.pixels[i + 3],
        ]
    }

    /// Draw a triangle list (`indices` or consecutive vertices); returns triangles drawn.
    pub fn draw(&mut self, verts: &[RasterVertex], indices: Option<&[u32]>) -> usize {
        let n = indices.map_or(verts.len(), <[u32]>::len);
        let mut drawn = 0;
        for t in 0..n / 3 {
            let get = |k: usize| {
                let i = indices.map_or(3 * t + k, |ix| ix[3 * t + k] as usize);
                verts.get(i).copied()
            };
            let (Some(a), Some(b), Some(c)) = (get(0), get(1), get(2)) else {
                continue;
            };
            let poly = clip(vec![a, b, c]);
            for k in 1..poly.len().saturating_sub(1) {
                self.triangle(poly[0], poly[k], poly[k + 1]);
            }
            drawn += usize::from(poly.len() >= 3);
        }
        drawn
    }

    fn triangle(&mut self, a: RasterVertex, b: RasterVertex, c: RasterVertex) {
        // Perspective divide and the D3D9 viewport: x right, y down, z in [0, 1].
        let (w, h) = (self.width as f32, self.height as f32);
        let screen = |v: &RasterVertex| {
            let iw = 1.0 / v.pos[3];
            [
                (v.pos[0] * iw + 1.0) * 0.5 * w,
                (1.0 - v.pos[1] * iw) * 0.5 * h,
                v.pos[2] * iw,
                iw,
            ]
        };
        let (pa, pb, pc) = (screen(&a), screen(&b), screen(&c));
        let area = (pb[0] - pa[0]) * (pc[1] - pa[1]) - (pb[1] - pa[1]) * (pc[0] - pa[0]);
        if area == 0.0 || !area.is_finite() {
            return;
        }
        let min_x = pa[0].min(pb[0]).min(pc[0]).floor().max(0.0) as usize;
        let max_x = (pa[0].max(pb[0]).max(pc[0]).ceil().min(w) as usize).min(self.width);
        let min_y = pa[1].min(pb[1]).min(pc[1]).floor().max(0.0) as usize;
        let max_y = (pa[1].max(pb[1]).max(pc[1]).ceil().min(h) as usize).min(self.height);
        for y in min_y..max_y {
            for x in min_x..max_x {
                // Pixel centres at +0.5.
                let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
                let e = |p: &[f32; 4], q: &[f32; 4]| {
                    (q[0] - p[0]) * (py - p[1]) - (q[1] - p[1]) * (px - p[0])
                };
                let (w0, w1, w2) = (e(&pb, &pc) / area, e(&pc, &pa) / area, e(&pa, &pb) / area);
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let z = w0 * pa[2] + w1 * pb[2] + w2 * pc[2];
                let i = y * self.width + x;
                if !(0.0..=1.0).contains(&z) || z >= self.depth[i] {
                    continue;
                }
                self.depth[i] = z;
                // Perspective-correct: interpolate attribute/w and 1/w.
                let iw = w0 * pa[3] + w1 * pb[3] + w2 * pc[3];
                for ch in 0..4 {
                    let v = (w0 * a.color[ch] * pa[3]
                        + w1 * b.color[ch] * pb[3]
                        + w2 * c.color[ch] * pc[3])
                        / iw;
                    self.pixels[i * 4 + ch] = if ch == 3 {
                        255
                    } else {
                        (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
                    };
                }
            }
        }
    }

    pub fn write_png(&self, path: &Path) -> anyhow::Result<()> {
        write_png(path, self.width, self.height, &self.pixels)
    }
}

/// Write 8-bit RGBA rows as a PNG file.
pub fn write_png(path: &Path, width: usize, height: usize, rgba: &[u8]) -> anyhow::Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    encode_png(
        std::io::BufWriter::new(file),
        width as u32,
        height as u32,
        rgba,
    )
}

/// Encode 8-bit RGBA rows as a PNG into `w`: the one PNG writer of the command line.
pub fn encode_png(
    w: impl std::io::Write,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> anyhow::Result<()> {
    let mut enc = png::Encoder::new(w, width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().context("PNG header")?;
    w.write_image_data(rgba).context("PNG data")?;
    w.finish().context("PNG end")?;
    Ok(())
}

/// Sutherland-Hodgman against the D3D clip volume: -w <= x, y <= w, 0 <= z <= w.
fn clip(mut poly: Vec<RasterVertex>) -> Vec<RasterVertex> {
    let planes: [fn(&[f32; 4]) -> f32; 6] = [
        |p| p[3] + p[0],
        |p| p[3] - p[0],
        |p| p[3] + p[1],
        |p| p[3] - p[1],
        |p| p[2],
        |p| p[3] - p[2],
    ];
    for plane in planes {
        if poly.is_empty() {
            break;
        }
        let mut out = Vec::with_capacity(poly.len() + 2);
        for k in 0..poly.len() {
            let (a, b) = (poly[k], poly[(k + 1) % poly.len()]);
            let (da, db) = (plane(&a.pos), plane(&b.pos));
            if da >= 0.0 {
                out.push(a);
            }
            if (da >= 0.0) != (db >= 0.0) {
                let t = da / (da - db);
                let lerp = |x: &[f32; 4], y: &[f32; 4]| -> [f32; 4] {
                    std::array::from_fn(|c| x[c] + (y[c] - x[c]) * t)
                };
                out.push(RasterVertex {
                    pos: lerp(&a.pos, &b.pos),
                    color: lerp(&a.color, &b.color),
                });
            }
        }
        poly = out;
    }
    poly
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32, z: f32, color: [f32; 4]) -> RasterVertex {
        RasterVertex {
            pos: [x, y, z, 1.0],
            color,
        }
    }

    #[test]
    fn fills_covers_and_depth_tests() {
        let mut img = Image::new(4, 4, [0, 0, 0, 255]);
        let red = [1.0, 0.0, 0.0, 1.0];
        let green = [0.0, 1.0, 0.0, 1.0];
        // A red quad over the whole viewport at z = 0.5.
        let quad = [
            v(-1.0, -1.0, 0.5, red),
            v(-1.0, 1.0, 0.5, red),
            v(1.0, 1.0, 0.5, red),
            v(1.0, -1.0, 0.5, red),
        ];
        assert_eq!(img.draw(&quad, Some(&[0, 1, 2, 0, 2, 3])), 2);
        assert_eq!(img.pixel(0, 0), [255, 0, 0, 255]);
        assert_eq!(img.pixel(3, 3), [255, 0, 0, 255]);
        // A green triangle behind it (z = 0.8) loses; in front (z = 0.2) wins.
        let tri = |z| {
            [
                v(-1.0, -1.0, z, green),
                v(-1.0, 1.0, z, green),
                v(1.0, 1.0, z, green),
            ]
        };
        img.draw(&tri(0.8), None);
        assert_eq!(img.pixel(0, 0), [255, 0, 0, 255]);
        img.draw(&tri(0.2), None);
        assert_eq!(img.pixel(0, 0), [0, 255, 0, 255]);
        // The bottom-right corner is outside that triangle.
        assert_eq!(img.pixel(3, 3), [255, 0, 0, 255]);
    }

    #[test]
    fn clips_behind_the_eye_and_interpolates() {
        let mut img = Image::new(2, 1, [0, 0, 0, 255]);
        // A triangle partly behind the near plane (z < 0) still covers the visible part.
        let tri = [
            v(-1.0, -1.0, -1.0, [0.0; 4]),
            v(-1.0, 3.0, 0.5, [0.0; 4]),
            v(3.0, -1.0, 0.5, [0.0; 4]),
        ];
        img.draw(&tri, None);
        // Colours interpolate: left black, right white across a 2-pixel quad.
        let mut img = Image::new(2, 1, [0, 0, 0, 255]);
        let (k, w) = ([0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]);
        let quad = [
            v(-1.0, -1.0, 0.5, k),
            v(-1.0, 1.0, 0.5, k),
            v(1.0, 1.0, 0.5, w),
            v(1.0, -1.0, 0.5, w),
        ];
        img.draw(&quad, Some(&[0, 1, 2, 0, 2, 3]));
        assert_eq!(img.pixel(0, 0), [64, 64, 64, 255]);
        assert_eq!(img.pixel(1, 0), [191, 191, 191, 255]);
        assert_eq!(clip(tri.to_vec()).len(), 4);
    }
}
