//! `StreamData`: a stream's bytes are shared with their owner and read where they are.

use crate::common::f32s;
use dxso::ir::Usage;
use dxso_vm::{DeclType, Device, Frequency, StreamData, StreamSource, VertexElement};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[test]
fn a_vec_is_taken_without_a_copy_and_clones_share_it() {
    let v = f32s(&[1.0, 2.0, 3.0, 4.0]);
    let at = v.as_ptr();
    let data = StreamData::from(v);
    assert_eq!(data.as_ptr(), at);
    assert_eq!(data.clone().as_ptr(), at);
    assert_eq!(&data[..4], &1.0f32.to_le_bytes());
    let shared: Arc<[u8]> = Arc::from(&[7u8, 8, 9][..]);
    let data = StreamData::from(shared.clone());
    assert_eq!(data.as_ptr(), shared.as_ptr());
    assert_eq!(&*data, &[7, 8, 9]);
}

/// Bytes owned by something else (as a NumPy array is), one byte into its allocation (so
/// the floats are misaligned); says when it is dropped.
struct Foreign {
    bytes: Vec<u8>,
    dropped: Arc<AtomicBool>,
}

impl AsRef<[u8]> for Foreign {
    fn as_ref(&self) -> &[u8] {
        &self.bytes[1..]
    }
}

impl Drop for Foreign {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

#[test]
fn a_draw_reads_an_owners_bytes_in_place_and_the_device_keeps_the_owner_alive() {
    let shader =
        dxso::text::parse("vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n").unwrap();
    let checked = dxso::validate::validate(&shader, &dxso::validate::Caps::max()).unwrap();
    let mut dev = Device::new();
    dev.set_vertex_shader(&checked).unwrap();
    dev.set_declaration(vec![VertexElement {
        stream: 0,
        offset: 0,
        ty: DeclType::Float4,
        method: 0,
        usage: Usage::Position,
        usage_index: 0,
    }])
    .unwrap();
    let values: Vec<f32> = (0..4 * 37).map(|i| i as f32 * 0.5 - 3.0).collect();
    let mut bytes = vec![0xEE];
    bytes.extend(f32s(&values));
    let dropped = Arc::new(AtomicBool::new(false));
    let owner = Foreign {
        bytes,
        dropped: dropped.clone(),
    };
    let at = owner.bytes[1..].as_ptr();
    let data = StreamData::new(owner);
    assert_eq!(data.as_ptr(), at);
    assert_eq!(data.len(), 16 * 37);
    dev.set_stream(
        0,
        Some(StreamSource {
            data,
            offset: 0,
            stride: 16,
            frequency: Frequency::Vertex,
        }),
    )
    .unwrap();
    let out = dev.draw(37, 1).unwrap();
    assert_eq!(out.data, values);
    assert!(!dropped.load(Ordering::SeqCst), "bound: the owner lives");
    dev.set_stream(0, None).unwrap();
    assert!(
        dropped.load(Ordering::SeqCst),
        "unbound: the owner is dropped"
    );
}

/// D3D9's shape: `SetStreamSource` and `SetStreamSourceFreq` are separate calls, in either
/// order, and a stream's frequency outlives rebinding (`set_stream_source` keeps it).
#[test]
fn a_streams_frequency_is_set_apart_and_kept_across_rebinding() {
    let shader = dxso::text::parse(
        "vs_3_0\ndcl_position v0\ndcl_texcoord v1\ndcl_position o0\nmov r0, v1\nadd o0, v0, r0\n",
    )
    .unwrap();
    let checked = dxso::validate::validate(&shader, &dxso::validate::Caps::max()).unwrap();
    let mut dev = Device::new();
    dev.set_vertex_shader(&checked).unwrap();
    let element = |stream, usage| VertexElement {
        stream,
        offset: 0,
        ty: DeclType::Float1,
        method: 0,
        usage,
        usage_index: 0,
    };
    dev.set_declaration(vec![
        element(0, Usage::Position),
        element(1, Usage::TexCoord),
    ])
    .unwrap();
    // The frequency first, the stream after it: 2 vertices drawn for 2 instances.
    dev.set_stream_frequency(0, Frequency::IndexedData(2))
        .unwrap();
    dev.set_stream_frequency(1, Frequency::InstanceData(1))
        .unwrap();
    dev.set_stream_source(0, Some(f32s(&[1.0, 2.0]).into()), 0, 4)
        .unwrap();
    dev.set_stream_source(1, Some(f32s(&[10.0, 20.0]).into()), 0, 4)
        .unwrap();
    let x = |dev: &Device| -> Vec<f32> {
        let out = dev.draw(2, 2).unwrap();
        (0..4).map(|i| out.vertex(i)[0]).collect()
    };
    assert_eq!(x(&dev), [11.0, 12.0, 21.0, 22.0]);
    // Rebinding stream 1 keeps its instance frequency.
    dev.set_stream_source(1, Some(f32s(&[100.0, 200.0]).into()), 0, 4)
        .unwrap();
    assert_eq!(x(&dev), [101.0, 102.0, 201.0, 202.0]);
    assert_eq!(dev.stream(1).unwrap().frequency, Frequency::InstanceData(1));
    // A frequency set after binding applies to the bound stream.
    dev.set_stream_frequency(1, Frequency::Vertex).unwrap();
    assert_eq!(x(&dev), [101.0, 202.0, 101.0, 202.0]);
    // What D3D9 refuses, refused: instance data on stream 0, a stream past 15.
    assert!(matches!(
        dev.set_stream_frequency(0, Frequency::InstanceData(1)),
        Err(dxso_vm::VmError::BadFrequency(_))
    ));
    assert_eq!(
        dev.set_stream_frequency(16, Frequency::Vertex)
            .unwrap_err()
            .to_string(),
        "stream 16 does not exist (D3D9 has 16)"
    );
    dev.set_stream_source(1, None, 0, 0).unwrap();
    assert!(dev.stream(1).is_none());
}

/// A declaration the device refuses says which element and what: typed, with the message
/// every face prints.
#[test]
fn a_bad_declaration_names_the_element_and_the_value() {
    use dxso_vm::{DeclarationError, VmError};
    let element = |stream: u16, usage_index: u8| VertexElement {
        stream,
        offset: 0,
        ty: DeclType::Float4,
        method: 0,
        usage: Usage::TexCoord,
        usage_index,
    };
    let mut device = Device::new();
    let refused = |device: &mut Device, elements: Vec<VertexElement>| {
        let e = device.set_declaration(elements).unwrap_err();
        let VmError::Declaration(d) = &e else {
            panic!("{e:?}")
        };
        (d.clone(), e.to_string())
    };
    assert_eq!(
        refused(&mut device, vec![element(0, 0), element(16, 1)]),
        (
            DeclarationError::Stream {
                element: 1,
                stream: 16
            },
            "bad vertex declaration: element 1: stream 16 (0..15)".to_string()
        )
    );
    assert_eq!(
        refused(&mut device, vec![element(0, 16)]),
        (
            DeclarationError::UsageIndex {
                element: 0,
                usage_index: 16
            },
            "bad vertex declaration: element 0: usage index 16 (0..15)".to_string()
        )
    );
    assert_eq!(
        refused(&mut device, vec![element(0, 3), element(1, 3)]),
        (
            DeclarationError::Twice {
                element: 1,
                usage: Usage::TexCoord,
                usage_index: 3
            },
            "bad vertex declaration: element 1: TEXCOORD3 is declared twice".to_string()
        )
    );
    assert_eq!(
        refused(&mut device, vec![element(0, 0); 65]).0,
        DeclarationError::TooManyElements(65)
    );
    assert_eq!(
        DeclarationError::TooManyElements(65).to_string(),
        "more than 64 elements"
    );
    device
        .set_declaration(vec![element(0, 0), element(1, 1)])
        .unwrap();
}
