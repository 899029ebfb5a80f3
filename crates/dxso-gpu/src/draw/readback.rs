//! The frame's surfaces read back into dxso-draw's [`Surfaces`].

use super::{Targets, formats};
use crate::{Error, Gpu};
use dxso_draw::{DepthStencil, Frame, Surfaces, Target};

impl Gpu {
    /// Copy `texture`'s `aspect` (texels of `bytes` bytes) out and hand each row's used
    /// bytes to `row`.
    fn read_texture(
        &self,
        frame: &Frame,
        texture: &wgpu::Texture,
        aspect: wgpu::TextureAspect,
        bytes: u32,
        mut row: impl FnMut(&[u8]),
    ) -> Result<(), Error> {
        let used = frame.width as u64 * bytes as u64;
        let padded = used.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64);
        let rows = frame.height as u64;
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("dxso-gpu draw read-back"),
            size: padded * rows,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("dxso-gpu draw read-back"),
            });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded as u32),
                    rows_per_image: Some(frame.height),
                },
            },
            wgpu::Extent3d {
                width: frame.width,
                height: frame.height,
                depth_or_array_layers: 1,
            },
        );
        self.queue.submit([encoder.finish()]);
        self.check()?;
        self.read_mapped(&buffer, padded * rows, |view| {
            for r in view.chunks_exact(padded as usize) {
                row(&r[..used as usize]);
            }
        })?;
        self.check()
    }

    /// Every surface as dxso-draw holds it.
    pub(super) fn read_back(&self, t: &Targets, frame: &Frame) -> Result<Surfaces, Error> {
        let mut targets = Vec::new();
        for c in &t.colors {
            let bytes = formats::texel_bytes(c.wgpu);
            let mut texels = Vec::with_capacity(frame.width as usize * frame.height as usize);
            self.read_texture(frame, &c.texture, wgpu::TextureAspect::All, bytes, |row| {
                texels.extend(
                    row.chunks_exact(bytes as usize)
                        .map(|b| formats::decode(c.format, c.wgpu, b)),
                );
            })?;
            targets.push(Target {
                format: c.format,
                texels,
            });
        }
        let depth_stencil = match &t.depth {
            None => None,
            Some(d) => {
                let n = frame.width as usize * frame.height as usize;
                let mut z = Vec::with_capacity(n);
                let unorm16 = d.wgpu == wgpu::TextureFormat::Depth16Unorm;
                let bytes = if unorm16 { 2 } else { 4 };
                self.read_texture(
                    frame,
                    &d.texture,
                    wgpu::TextureAspect::DepthOnly,
                    bytes,
                    |row| {
                        z.extend(row.chunks_exact(bytes as usize).map(|b| {
                            let v = if unorm16 {
                                (u16::from_le_bytes([b[0], b[1]]) as f64 / 65535.0) as f32
                            } else {
                                f32::from_le_bytes([b[0], b[1], b[2], b[3]])
                            };
                            d.format.store(v)
                        }));
                    },
                )?;
                let mut stencil = Vec::with_capacity(n);
                if d.format.has_stencil() {
                    self.read_texture(
                        frame,
                        &d.texture,
                        wgpu::TextureAspect::StencilOnly,
                        1,
                        |row| stencil.extend_from_slice(row),
                    )?;
                } else {
                    stencil.resize(n, 0);
                }
                Some(DepthStencil {
                    format: d.format,
                    z,
                    stencil,
                })
            }
        };
        Ok(Surfaces {
            width: frame.width,
            height: frame.height,
            targets,
            depth_stencil,
        })
    }
}
