//! A draw's vertices on the GPU: its streams as vertex buffers and storage buffers, the
//! declaration as vertex buffer layouts where WebGPU has the element's format and step, and
//! as a decode in the vertex entry ([`super::patch::fetch_inputs`]) where it has not.
//!
//! - **Layouts.** FLOAT1..4 (`Float32`..`Float32x4`), FLOAT16_2/4 (`Float16x2/x4`), and the
//!   integer types as WebGPU's integer formats converted in the entry: D3DCOLOR, UBYTE4 and
//!   UBYTE4N as `Uint8x4` (D3DCOLOR's B, G, R, A turned to R, G, B, A; UBYTE4N and D3DCOLOR
//!   divided by 255), SHORT2/4 and SHORT2N/4N as `Sint16x2/x4` (the N types divided by 32767:
//!   −32768 reads −1.00003, as dxso-vm and D3D9's documentation have it, where `Snorm16`
//!   would read −1), USHORT2N/4N as `Uint16x2/x4` divided by 65535; per vertex (the default
//!   and `indexed` frequencies) or per instance (`instance` 1). Missing components read
//!   (0, 0, 0, 1), as in D3D9. Every value is dxso-vm's, bit for bit (on lavapipe, whose
//!   division is IEEE's). The index buffer is the D3D9 indices composed with the
//!   primitive assembly; instances are the GPU's.
//! - **Decoded in the shader** (from the stream's bytes in a read-only storage buffer, as
//!   dxso-vm's `DeclType::decode`): UDEC3 and DEC3N, every element of a stream with another
//!   frequency (`instance` dividers other than 1: `instance_index / d`; a plain divider `m`:
//!   `vertex_index / m`), elements at offsets or strides WebGPU's layouts do not allow, and
//!   every element of draws whose vertex index is not the element's: indexed draws with a
//!   divider and points drawn as quads. Those draw the draw position across instances `p`
//!   (`vertex_index`, or `instance_index` for quads) and the entry reads
//!   `indices[p % count]` (the index buffer in a storage buffer), `(p / count) / d` or
//!   `(p % count) / m`. Unbound inputs read (0, 0, 0, 1).
//! - dxso-vm's fetch (decoded on the CPU, one `vec4<f32>` per input register) only where the
//!   adapter's limits are too small for the storage buffers ([`on_cpu`]).

use super::assemble;
use super::patch::{Convert, Decode, Element, FIRST_BINDING, Input, Step};
use crate::Error;
use dxso_draw::Draw;
use dxso_vm::{DeclType, Frequency, Program, StreamData};
use naga::ScalarKind;

/// Bytes for a GPU buffer: a stream's (shared between draws, uploaded once per frame) or
/// the draw's own.
#[derive(Clone)]
pub(super) enum Data {
    Stream(StreamData),
    Owned(Vec<u8>),
}

impl Data {
    pub fn bytes(&self) -> &[u8] {
        match self {
            Data::Stream(s) => s,
            Data::Owned(v) => v,
        }
    }
}

/// One vertex buffer: its data from `offset`, stride, step and what is read from it.
pub(super) struct Stream {
    pub data: Data,
    pub offset: u64,
    pub stride: u64,
    pub step: wgpu::VertexStepMode,
    pub attributes: Vec<wgpu::VertexAttribute>,
}

/// A draw's vertex buffers, storage buffers, index list and the entry's decoded inputs.
pub(super) struct Vertices {
    pub streams: Vec<Stream>,
    /// (binding, data) of each storage buffer the entry reads.
    pub storage: Vec<(u32, Data)>,
    /// How the entry gets each input location that no `Float` layout gives it.
    pub inputs: Vec<(u32, Input)>,
    pub indices: Vec<u32>,
    /// Instances the GPU draws (the index list holds one instance's).
    pub instances: u32,
}

/// The WebGPU format of a D3DDECLTYPE and how the entry makes D3D9's floats of it. The
/// normalized types are read as integers and divided in the shader, as dxso-vm does: the
/// `Unorm`/`Snorm` formats' conversion need not be the exact quotient (lavapipe's is a
/// unit in the last place off), and `Snorm16` reads −32768 as −1 where D3D9 divides by 32767.
fn format(ty: DeclType) -> Option<(wgpu::VertexFormat, Option<Convert>)> {
    use wgpu::VertexFormat as V;
    let int = |kind, scale, bgra| Some(Convert { kind, scale, bgra });
    let (u, i) = (ScalarKind::Uint, ScalarKind::Sint);
    Some(match ty {
        DeclType::Float1 => (V::Float32, None),
        DeclType::Float2 => (V::Float32x2, None),
        DeclType::Float3 => (V::Float32x3, None),
        DeclType::Float4 => (V::Float32x4, None),
        DeclType::Float16_2 => (V::Float16x2, None),
        DeclType::Float16_4 => (V::Float16x4, None),
        // Memory order B, G, R, A; the shader sees R, G, B, A.
        DeclType::D3dColor => (V::Uint8x4, int(u, [255.0; 4], true)),
        DeclType::Ubyte4N => (V::Uint8x4, int(u, [255.0; 4], false)),
        DeclType::Ubyte4 => (V::Uint8x4, int(u, [1.0; 4], false)),
        DeclType::Short2 => (V::Sint16x2, int(i, [1.0; 4], false)),
        DeclType::Short4 => (V::Sint16x4, int(i, [1.0; 4], false)),
        DeclType::Short2N => (V::Sint16x2, int(i, [32767.0, 32767.0, 1.0, 1.0], false)),
        DeclType::Short4N => (V::Sint16x4, int(i, [32767.0; 4], false)),
        DeclType::UShort2N => (V::Uint16x2, int(u, [65535.0, 65535.0, 1.0, 1.0], false)),
        DeclType::UShort4N => (V::Uint16x4, int(u, [65535.0; 4], false)),
        _ => return None,
    })
}

/// A shader input's register and its declaration element (`None`: unbound).
type Bound<'a> = Option<(&'a dxso_vm::VertexElement, &'a dxso_vm::StreamSource)>;

/// The input locations of the vertex entry and their elements (`None`: an input that is
/// not a `v#` register the program declares, which only dxso-vm's fetch places).
fn elements<'a>(
    draw: &'a Draw,
    iface: &dxso_naga::Interface,
    program: &Program,
) -> Option<Vec<(u32, Bound<'a>)>> {
    let dev = &draw.vertex;
    let mut out = Vec::new();
    for input in &iface.inputs {
        let reg = input
            .register
            .strip_prefix('v')
            .and_then(|n| n.parse::<u8>().ok())?;
        let &(_, usage, index) = program.inputs.iter().find(|p| p.0 == reg)?;
        let location = input.varyings.first().and_then(|v| v.location)?;
        let element = dev
            .declaration()
            .iter()
            .find(|e| e.usage == usage && e.usage_index == index);
        let bound = match element {
            Some(e) => Some((e, dev.stream(e.stream as usize)?)),
            None => None,
        };
        out.push((location, bound));
    }
    Some(out)
}

/// The GPU's vertex fetch of `draw` for the vertex shader of `iface` (`None`: the adapter's
/// limits leave it to dxso-vm's fetch). `expanded`: points drawn as quads.
pub(super) fn on_gpu(
    draw: &Draw,
    iface: &dxso_naga::Interface,
    program: &Program,
    flat: bool,
    expanded: bool,
    limits: &wgpu::Limits,
) -> Result<Option<Vertices>, Error> {
    let instances = draw.instance_count.max(1);
    // dxso-vm's own checks (streams set, reads inside them, enough indices), nothing fetched.
    draw.vertex
        .fetch_range(draw.vertex_count, instances, 0..0)?;
    let Some(elements) = elements(draw, iface, program) else {
        return Ok(None);
    };
    let ix = draw.vertex.indices();
    let divider = elements
        .iter()
        .any(|(_, b)| b.is_some_and(|(_, s)| matches!(s.frequency, Frequency::Divider(_))));
    // The vertex index is the element's (composed indices, the GPU's instances), or the
    // draw position across instances.
    let unrolled = expanded || (divider && ix.is_some());
    let count = u32::try_from(draw.vertex_count).map_err(|_| Error::Frame(too_large(draw)))?;
    let mut v = Vertices {
        streams: Vec::new(),
        storage: Vec::new(),
        inputs: Vec::new(),
        indices: Vec::new(),
        instances: 1,
    };
    let mut stream_of_layout: Vec<u16> = Vec::new();
    let mut storage_streams: Vec<u16> = Vec::new();
    for (location, bound) in elements {
        let Some((e, s)) = bound else {
            v.inputs.push((location, Input::Unbound));
            continue;
        };
        if !unrolled && let Some(attr) = layout(e, s, location, limits) {
            let (attr, step, convert) = attr;
            let slot = match stream_of_layout.iter().position(|&n| n == e.stream) {
                Some(k) => k,
                None if v.streams.len() < limits.max_vertex_buffers as usize => {
                    stream_of_layout.push(e.stream);
                    v.streams.push(Stream {
                        data: Data::Stream(s.data.clone()),
                        offset: s.offset as u64,
                        stride: s.stride as u64,
                        step,
                        attributes: Vec::new(),
                    });
                    v.streams.len() - 1
                }
                None => usize::MAX,
            };
            if slot != usize::MAX {
                v.streams[slot].attributes.push(attr);
                if let Some(c) = convert {
                    v.inputs.push((location, Input::Convert(c)));
                }
                continue;
            }
        }
        if s.data.len() as u64 > limits.max_storage_buffer_binding_size {
            return Ok(None);
        }
        let binding = match storage_streams.iter().position(|&n| n == e.stream) {
            Some(k) => v.storage[k].0,
            None => {
                storage_streams.push(e.stream);
                let b = FIRST_BINDING + v.storage.len() as u32;
                v.storage.push((b, Data::Stream(s.data.clone())));
                b
            }
        };
        let element = if unrolled {
            Element::Unrolled {
                quads: expanded,
                count,
                step: match s.frequency {
                    Frequency::Vertex | Frequency::IndexedData(_) => Step::Vertex(None),
                    Frequency::InstanceData(d) => Step::Instance(d),
                    Frequency::Divider(m) => Step::Divider(m),
                },
            }
        } else {
            match s.frequency {
                Frequency::Vertex | Frequency::IndexedData(_) => Element::Vertex(1),
                Frequency::InstanceData(d) => Element::Instance(d),
                // Not indexed here: the vertex index is the vertex's position.
                Frequency::Divider(m) => Element::Vertex(m),
            }
        };
        let base = s.offset as u64 + e.offset as u64;
        let (Ok(base), Ok(stride)) = (u32::try_from(base), u32::try_from(s.stride)) else {
            return Ok(None);
        };
        v.inputs.push((
            location,
            Input::Decode(Decode {
                binding,
                ty: e.ty,
                base,
                stride,
                element,
            }),
        ));
    }
    // Unrolled draws that read through the index buffer: it is a storage buffer too.
    if unrolled && let Some(ix) = ix {
        let reads_indices = v.inputs.iter().any(|(_, i)| {
            matches!(
                i,
                Input::Decode(Decode {
                    element: Element::Unrolled {
                        step: Step::Vertex(_),
                        ..
                    },
                    ..
                })
            )
        });
        if reads_indices {
            let b = FIRST_BINDING + v.storage.len() as u32;
            v.storage
                .push((b, Data::Owned(bytemuck::cast_slice(ix).to_vec())));
            for (_, i) in &mut v.inputs {
                if let Input::Decode(Decode {
                    element:
                        Element::Unrolled {
                            step: Step::Vertex(ixb),
                            ..
                        },
                    ..
                }) = i
                {
                    *ixb = Some(b);
                }
            }
        }
    }
    if v.storage.len() > limits.max_storage_buffers_per_shader_stage as usize {
        return Ok(None);
    }
    if unrolled {
        v.indices = assemble(draw.primitive, draw.vertex_count, instances, flat);
    } else {
        let one = assemble(draw.primitive, draw.vertex_count, 1, flat);
        v.indices = match ix {
            Some(ix) => one.iter().map(|&k| ix[k as usize]).collect(),
            None => one,
        };
        v.instances = u32::try_from(instances).map_err(|_| Error::Frame(too_large(draw)))?;
    }
    Ok(Some(v))
}

fn too_large(draw: &Draw) -> crate::FrameError {
    crate::FrameError::DrawSize {
        vertices: draw.vertex_count,
        instances: draw.instance_count,
        max: dxso_draw::MAX_DRAW_VERTICES,
    }
}

/// The vertex attribute of an element where WebGPU's layouts read it as D3D9 does: its
/// format, a step WebGPU has, an offset and stride it allows, a vertex buffer offset of a
/// multiple of 4 inside the stream.
fn layout(
    e: &dxso_vm::VertexElement,
    s: &dxso_vm::StreamSource,
    location: u32,
    limits: &wgpu::Limits,
) -> Option<(wgpu::VertexAttribute, wgpu::VertexStepMode, Option<Convert>)> {
    let (fmt, convert) = format(e.ty)?;
    let step = match s.frequency {
        Frequency::Vertex | Frequency::IndexedData(_) => wgpu::VertexStepMode::Vertex,
        Frequency::InstanceData(1) => wgpu::VertexStepMode::Instance,
        _ => return None,
    };
    let size = fmt.size();
    let offset = e.offset as u64;
    let stride = s.stride as u64;
    let fits = offset.is_multiple_of(size.min(4))
        && stride.is_multiple_of(4)
        && stride <= limits.max_vertex_buffer_array_stride as u64
        && offset + size <= limits.max_vertex_buffer_array_stride as u64
        && (stride == 0 || offset + size <= stride)
        && s.offset.is_multiple_of(4)
        && s.offset < s.data.len();
    fits.then_some((
        wgpu::VertexAttribute {
            format: fmt,
            offset,
            shader_location: location,
        },
        step,
        convert,
    ))
}

/// dxso-vm's fetch: one `vec4<f32>` per input register, in the interface's order, vertex by
/// vertex in draw order (every instance).
pub(super) fn on_cpu(
    draw: &Draw,
    iface: &dxso_naga::Interface,
    program: &Program,
    assembled: Vec<u32>,
    expanded: bool,
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
            data: Data::Owned(bytemuck::cast_slice(&data).to_vec()),
            offset: 0,
            stride: 16 * attributes.len() as u64,
            // Expanded points: one point an instance, its six corners the vertices.
            step: if expanded {
                wgpu::VertexStepMode::Instance
            } else {
                wgpu::VertexStepMode::Vertex
            },
            attributes,
        }]
    };
    Ok(Vertices {
        streams,
        storage: Vec::new(),
        inputs: Vec::new(),
        indices: assembled,
        instances: 1,
    })
}
