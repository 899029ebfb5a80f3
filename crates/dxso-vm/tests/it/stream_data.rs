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
