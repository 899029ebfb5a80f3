//! A draw's vertices on the GPU: its streams as vertex buffers, the declaration as vertex
//! buffer layouts and the index buffer composed with the primitive assembly, where WebGPU has
//! the declaration's formats; dxso-vm's fetch (decoded on the CPU, one `vec4<f32>` per input
//! register) everywhere else.
//!
//! WebGPU formats for D3DDECLTYPEs: FLOAT1..4 (`Float32`..`Float32x4`), FLOAT16_2/4,
//! D3DCOLOR (`Unorm8x4Bgra`: the shader sees R, G, B, A), UBYTE4N, SHORT2N/4N (`Snorm16`:
//! −32768 reads −1 where dxso-vm divides by 32767 and reads −1.00003), USHORT2N/4N; missing
//! components read (0, 0, 0, 1), as in D3D9. UBYTE4, SHORT2/4, UDEC3 and DEC3N (integers and
//! packed formats the shader reads as floats), stream frequencies other than one element per
//! vertex (instancing), unbound shader inputs, and layouts WebGPU does not allow (an
//! unaligned offset or stride, an element past its stride) use dxso-vm's fetch.

use crate::Error;
use dxso_draw::Draw;
use dxso_vm::{DeclType, Frequency, Program};

/// One vertex buffer: the stream's bytes from its offset, its stride, what is read from it.
pub(super) struct Stream {
    pub bytes: Vec<u8>,
    pub stride: u64,
    pub attributes: Vec<wgpu::VertexAttribute>,
}

/// A draw's vertex buffers and index list.
pub(super) struct Vertices {
    pub streams: Vec<Stream>,
    pub indices: Vec<u32>,
}

fn format(ty: DeclType) -> Option<wgpu::VertexFormat> {
    use wgpu::VertexFormat as V;
    Some(match ty {
        DeclType::Float1 => V::Float32,
        DeclType::Float2 => V::Float32x2,
        DeclType::Float3 => V::Float32x3,
        DeclType::Float4 => V::Float32x4,
        DeclType::D3dColor => V::Unorm8x4Bgra,
        DeclType::Ubyte4N => V::Unorm8x4,
        DeclType::Short2N => V::Snorm16x2,
        DeclType::Short4N => V::Snorm16x4,
        DeclType::UShort2N => V::Unorm16x2,
        DeclType::UShort4N => V::Unorm16x4,
        DeclType::Float16_2 => V::Float16x2,
        DeclType::Float16_4 => V::Float16x4,
        _ => return None,
    })
}

/// The GPU's vertex fetch of `draw` for the vertex shader of `iface` (`None`: dxso-vm's
/// fetch draws it). `assembled`: the primitives' vertices in draw order.
pub(super) fn on_gpu(
    draw: &Draw,
    iface: &dxso_naga::Interface,
    program: &Program,
    assembled: &[u32],
    limits: &wgpu::Limits,
) -> Result<Option<Vertices>, Error> {
    if draw.instance_count > 1 {
        return Ok(None);
    }
    // dxso-vm's own checks (streams set, reads inside them, enough indices), nothing fetched.
    draw.vertex.fetch_range(draw.vertex_count, 1, 0..0)?;
    let dev = &draw.vertex;
    let mut streams: Vec<(u16, Stream)> = Vec::new();
    for input in &iface.inputs {
        let Some(reg) = input
            .register
            .strip_prefix('v')
            .and_then(|n| n.parse::<u8>().ok())
        else {
            return Ok(None);
        };
        let Some(&(_, usage, index)) = program.inputs.iter().find(|p| p.0 == reg) else {
            return Ok(None);
        };
        let Some(e) = dev
            .declaration()
            .iter()
            .find(|e| e.usage == usage && e.usage_index == index)
        else {
            return Ok(None);
        };
        let Some(s) = dev.stream(e.stream as usize) else {
            return Ok(None);
        };
        let (Some(fmt), Some(location)) = (
            format(e.ty),
            input.varyings.first().and_then(|v| v.location),
        ) else {
            return Ok(None);
        };
        let size = fmt.size();
        let offset = e.offset as u64;
        let stride = s.stride as u64;
        if s.frequency != Frequency::Vertex
            || !offset.is_multiple_of(size.min(4))
            || !stride.is_multiple_of(4)
            || stride > limits.max_vertex_buffer_array_stride as u64
            || (stride != 0 && offset + size > stride)
            || s.offset > s.data.len()
        {
            return Ok(None);
        }
        let attribute = wgpu::VertexAttribute {
            format: fmt,
            offset,
            shader_location: location,
        };
        match streams.iter_mut().find(|(n, _)| *n == e.stream) {
            Some((_, st)) => st.attributes.push(attribute),
            None => streams.push((
                e.stream,
                Stream {
                    bytes: s.data[s.offset..].to_vec(),
                    stride,
                    attributes: vec![attribute],
                },
            )),
        }
    }
    if streams.len() > limits.max_vertex_buffers as usize {
        return Ok(None);
    }
    let indices = match dev.indices() {
        Some(ix) => assembled.iter().map(|&k| ix[k as usize]).collect(),
        None => assembled.to_vec(),
    };
    Ok(Some(Vertices {
        streams: streams.into_iter().map(|(_, s)| s).collect(),
        indices,
    }))
}

/// dxso-vm's fetch: one `vec4<f32>` per input register, in the interface's order, vertex by
/// vertex in draw order (every instance).
pub(super) fn on_cpu(
    draw: &Draw,
    iface: &dxso_naga::Interface,
    program: &Program,
    assembled: &[u32],
) -> Result<Vertices, Error> {
    let slots = crate::run::input_slots(iface, program)?;
    let fetched = draw.vertex.fetch(draw.vertex_count, draw.instance_count)?;
    let mut data = Vec::new();
    crate::run::pack_inputs(&fetched, &slots, 0..fetched.vertices, &mut data);
    let mut attributes = Vec::new();
    for (k, i) in iface.inputs.iter().enumerate() {
        let location = i.varyings.first().and_then(|v| v.location).ok_or_else(|| {
            Error::Interface(format!("vertex input {} has no location", i.register))
        })?;
        attributes.push(wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 16 * k as u64,
            shader_location: location,
        });
    }
    let streams = if attributes.is_empty() {
        Vec::new()
    } else {
        vec![Stream {
            bytes: bytemuck::cast_slice(&data).to_vec(),
            stride: 16 * attributes.len() as u64,
            attributes,
        }]
    };
    Ok(Vertices {
        streams,
        indices: assembled.to_vec(),
    })
}
