//! The device's state as other engines need it to run the same draw (dxso-gpu runs a draw
//! on a GPU from a [`Device`]): the bound shader, textures and sampler states, and each
//! vertex's input registers decoded exactly as the draw's own vertex fetch decodes them.

use super::{Device, MAX_OUTPUT_BYTES};
use crate::VmError;
use crate::fetch::Frequency;
use crate::texture::{SamplerState, Texture};
use dxso::validate::Checked;
use std::sync::Arc;

/// The input registers of every vertex of a draw, as the shader sees them: `vertices`
/// vertices in draw order (instance by instance), each `registers.len()` registers of 4
/// floats.
#[derive(Clone, Debug, PartialEq)]
pub struct Inputs {
    /// The input registers (`v#` numbers) the shader declares, in declaration order.
    pub registers: Vec<u8>,
    /// The inputs' floats: vertex by vertex, register by register, 4 each.
    pub data: Vec<f32>,
    /// How many vertices `data` holds.
    pub vertices: usize,
    /// Declared inputs that no declaration element feeds (they read (0, 0, 0, 1), C12).
    pub unbound_inputs: Vec<String>,
}

impl Inputs {
    /// The input registers of vertex `i`, 4 floats each.
    pub fn vertex(&self, i: usize) -> &[f32] {
        let n = self.registers.len() * 4;
        &self.data[i * n..(i + 1) * n]
    }
}

impl Device {
    /// The bound vertex shader as it was validated.
    pub fn vertex_shader(&self) -> Option<&Checked> {
        self.shader.as_deref()
    }

    /// The vertex declaration (`GetVertexDeclaration`).
    pub fn declaration(&self) -> &[crate::VertexElement] {
        &self.declaration
    }

    /// `GetStreamSource` of stream `n` (`None`: unset, or past stream 15).
    pub fn stream(&self, n: usize) -> Option<&crate::StreamSource> {
        self.streams.get(n)?.as_ref()
    }

    /// The index buffer (`None`: the draw reads stream vertices in order).
    pub fn indices(&self) -> Option<&[u32]> {
        self.indices.as_deref()
    }

    /// `GetTexture` of vertex sampler `n` (s0..s3).
    pub fn texture(&self, n: usize) -> Option<&Arc<Texture>> {
        self.textures.get(n)?.as_ref()
    }

    /// `GetSamplerState` of vertex sampler `n` (s0..s3), all its states.
    pub fn sampler_state(&self, n: usize) -> Option<SamplerState> {
        self.samplers.get(n).copied()
    }

    /// The input registers of each vertex of a draw of `vertex_count` vertices
    /// `instance_count` times: the declaration, streams, frequencies and index buffer
    /// applied and each element decoded by the same code [`Device::draw`] runs, with the same
    /// checks (a stream read past its end is the same error).
    pub fn fetch(&self, vertex_count: usize, instance_count: usize) -> Result<Inputs, VmError> {
        let total = vertex_count
            .checked_mul(instance_count.max(1))
            .ok_or(VmError::TooLarge(usize::MAX))?;
        self.fetch_range(vertex_count, instance_count, 0..total)
    }

    /// [`Device::fetch`] of the draw vertices `range` only (draw order, instance by
    /// instance): what a caller that streams a large draw part by part holds at once.
    pub fn fetch_range(
        &self,
        vertex_count: usize,
        instance_count: usize,
        range: std::ops::Range<usize>,
    ) -> Result<Inputs, VmError> {
        let program = self.program.as_ref().ok_or(VmError::NoShader)?;
        let instances = instance_count.max(1);
        let total = vertex_count
            .checked_mul(instances)
            .ok_or(VmError::TooLarge(usize::MAX))?;
        if range.start > range.end || range.end > total {
            return Err(VmError::VerticesNotInDraw {
                range,
                vertices: total,
            });
        }
        let first = range.start;
        let total = range.len();
        let regs = program.inputs.len();
        let floats = total
            .checked_mul(regs * 4)
            .ok_or(VmError::TooLarge(usize::MAX))?;
        if floats.saturating_mul(4) > MAX_OUTPUT_BYTES {
            return Err(VmError::TooLarge(floats.saturating_mul(4)));
        }
        let prep = self.prepare(program, vertex_count, instances)?;
        let mut data = Vec::new();
        data.try_reserve_exact(floats)
            .map_err(|_| VmError::TooLarge(floats * 4))?;
        data.resize(floats, 0.0);
        // Each register's slot among the vertex's registers.
        let slot = |reg: u8| {
            program
                .inputs
                .iter()
                .position(|i| i.0 == reg)
                .expect("bindings come from the program's inputs")
        };
        let bound: Vec<_> = prep.bindings.iter().map(|b| (slot(b.reg), b)).collect();
        let unbound: Vec<usize> = prep.unbound.iter().map(|u| slot(u.0)).collect();
        if regs > 0 {
            for (v, out) in data.chunks_exact_mut(regs * 4).enumerate() {
                let v = first + v;
                let (k, instance) = (v % vertex_count, v / vertex_count);
                let vix = self.indices.as_ref().map_or(k, |ix| ix[k] as usize);
                for &(s, b) in &bound {
                    let e = &b.element;
                    let element = match b.stream.frequency {
                        Frequency::Vertex | Frequency::IndexedData(_) => vix,
                        Frequency::InstanceData(d) => instance / d as usize,
                        Frequency::Divider(m) => k / m as usize,
                    };
                    // In bounds: `prepare` checked the largest element each binding reads.
                    let at = b.stream.offset + e.offset as usize + element * b.stream.stride;
                    out[s * 4..s * 4 + 4].copy_from_slice(&e.ty.decode(&b.data[at..]));
                }
                for &s in &unbound {
                    out[s * 4..s * 4 + 4].copy_from_slice(&[0.0, 0.0, 0.0, 1.0]);
                }
            }
        }
        Ok(Inputs {
            registers: program.inputs.iter().map(|i| i.0).collect(),
            data,
            vertices: total,
            unbound_inputs: prep.unbound.iter().map(|u| u.1.clone()).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{DeclType, Device, Frequency, StreamSource, VertexElement};
    use dxso::ir::Usage;
    use dxso::validate::{Caps, validate};

    fn device(asm: &str) -> Device {
        let shader = dxso::text::parse(asm).unwrap();
        let checked = validate(&shader, &Caps::max()).unwrap();
        let mut d = Device::new();
        d.set_vertex_shader(&checked).unwrap();
        d
    }

    fn element(stream: u16, offset: u16, ty: DeclType, usage: Usage) -> VertexElement {
        VertexElement {
            stream,
            offset,
            ty,
            method: 0,
            usage,
            usage_index: 0,
        }
    }

    /// Indexed geometry, per-instance data, a decoded D3DCOLOR and an unbound input: the
    /// same values the draw's shader sees (it copies each input to an output).
    #[test]
    fn fetch_gives_what_the_draw_reads() {
        let mut d = device(
            "vs_3_0\ndcl_position v0\ndcl_color v1\ndcl_texcoord v2\ndcl_normal v3\n\
             dcl_position o0\ndcl_color o1\ndcl_texcoord o2\ndcl_normal o3\n\
             mov o0, v0\nmov o1, v1\nmov o2, v2\nmov o3, v3\n",
        );
        d.set_declaration(vec![
            element(0, 0, DeclType::Float2, Usage::Position),
            element(0, 8, DeclType::D3dColor, Usage::Color),
            element(1, 0, DeclType::Float1, Usage::TexCoord),
        ])
        .unwrap();
        let mut geometry = Vec::new();
        for k in 0..3u32 {
            geometry.extend((k as f32).to_le_bytes());
            geometry.extend((10.0 + k as f32).to_le_bytes());
            geometry.extend(0xff00_8000u32.wrapping_add(k).to_le_bytes());
        }
        d.set_stream(
            0,
            Some(StreamSource {
                data: geometry.into(),
                offset: 0,
                stride: 12,
                frequency: Frequency::IndexedData(2),
            }),
        )
        .unwrap();
        let per_instance: Vec<u8> = [5.0f32, 6.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        d.set_stream(
            1,
            Some(StreamSource {
                data: per_instance.into(),
                offset: 0,
                stride: 4,
                frequency: Frequency::InstanceData(1),
            }),
        )
        .unwrap();
        d.set_indices(Some(vec![2, 0]));
        let inputs = d.fetch(2, 2).unwrap();
        let outputs = d.draw(2, 2).unwrap();
        assert_eq!(inputs.registers, vec![0, 1, 2, 3]);
        assert_eq!(inputs.vertices, 4);
        assert_eq!(inputs.data, outputs.data);
        assert_eq!(inputs.unbound_inputs, outputs.unbound_inputs);
        // Vertex 2 is instance 1's first vertex: stream element 2, instance element 1.
        let b = 2.0 / 255.0;
        assert_eq!(
            inputs.vertex(2),
            &[
                2.0,
                12.0,
                0.0,
                1.0,
                0.0,
                128.0 / 255.0,
                b,
                1.0,
                6.0,
                0.0,
                0.0,
                1.0,
                0.0,
                0.0,
                0.0,
                1.0
            ]
        );
        assert_eq!(
            d.fetch(3, 1).unwrap_err().to_string(),
            d.draw(3, 1).unwrap_err().to_string()
        );
    }
}
