//! Numbers from the caller that once panicked or wrapped: each is now a typed error.

use crate::common::*;
use dxso_vm::{
    Format, Frequency, MAX_TEXTURE_SIZE, MAX_TEXTURE_TEXELS, STREAMSOURCE_INSTANCEDATA,
    StreamSource, Texture, TextureError, TextureKind, VmError,
};

const PASS: &str = "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\nmov o0, v0\n";

fn stream(offset: usize, stride: usize, frequency: Frequency) -> Option<StreamSource> {
    Some(StreamSource {
        data: f32s(&[1.0, 2.0, 3.0, 4.0]).into(),
        offset,
        stride,
        frequency,
    })
}

#[test]
fn stream_offsets_near_the_top_of_the_range_are_errors() {
    for offset in [usize::MAX, usize::MAX - 15, usize::MAX / 2 + 1] {
        let mut dev = device(PASS, &[vec![[0.0; 4]]]);
        dev.set_stream(0, stream(offset, 16, Frequency::Vertex))
            .unwrap();
        for draw in [dev.draw(1, 1).map(|_| ()), dev.trace(0, 1, 1).map(|_| ())] {
            assert!(
                matches!(draw, Err(VmError::ReadsPastStream { len: 16, .. })),
                "offset {offset}: {draw:?}"
            );
        }
    }
    // A stride that wraps index * stride.
    let mut dev = device(PASS, &[vec![[0.0; 4]]]);
    dev.set_stream(0, stream(0, usize::MAX / 2, Frequency::Vertex))
        .unwrap();
    dev.set_indices(Some(vec![0, 3]));
    assert!(matches!(
        dev.draw(2, 1),
        Err(VmError::ReadsPastStream { index: 3, .. })
    ));
}

#[test]
fn trace_refuses_an_index_buffer_shorter_than_the_draw() {
    let mut dev = device(PASS, &[vec![[0.0; 4]]]);
    dev.set_indices(Some(vec![0]));
    for draw in [dev.draw(3, 1).map(|_| ()), dev.trace(2, 3, 1).map(|_| ())] {
        assert_eq!(
            draw,
            Err(VmError::TooFewIndices {
                indices: 1,
                vertices: 3
            })
        );
    }
}

#[test]
fn index_errors_name_their_numbers_and_keep_their_text() {
    let mut dev = device(PASS, &[vec![[0.0; 4]]]);
    let past = dev.trace(5, 3, 1).map(|_| ());
    assert_eq!(
        past,
        Err(VmError::VertexNotInDraw {
            vertex: 5,
            vertices: 3
        })
    );
    assert_eq!(
        past.unwrap_err().to_string(),
        "bad index buffer: vertex 5 is not in a draw of 3 vertices"
    );
    dev.set_indices(Some(vec![0]));
    assert_eq!(
        dev.draw(3, 1).unwrap_err().to_string(),
        "bad index buffer: 1 indices for 3 vertices"
    );
}

#[test]
fn zero_dividers_are_refused_when_set() {
    let mut dev = device(PASS, &[vec![[0.0; 4]]]);
    assert_eq!(
        dev.set_stream(1, stream(0, 16, Frequency::InstanceData(0))),
        Err(VmError::BadFrequency(STREAMSOURCE_INSTANCEDATA))
    );
    assert_eq!(
        dev.set_stream(0, stream(0, 16, Frequency::Divider(0))),
        Err(VmError::BadFrequency(0))
    );
}

#[test]
fn textures_too_large_say_so_and_name_the_limit() {
    let too = |kind, w, h, d, levels| Texture::check_size(kind, w, h, d, levels).unwrap_err();
    let e = too(TextureKind::TwoD, MAX_TEXTURE_SIZE + 1, 1, 1, 1);
    assert!(
        matches!(
            e,
            TextureError::TooLarge {
                limit: "MAX_TEXTURE_SIZE",
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("too large"), "{e}");
    // 2^13 square with every level: 2^26 + 2^24 + ... texels.
    let e = too(TextureKind::TwoD, 1 << 13, 1 << 13, 1, 14);
    assert!(
        matches!(e, TextureError::TooLarge { limit: "MAX_TEXTURE_TEXELS", max, .. } if max == MAX_TEXTURE_TEXELS),
        "{e}"
    );
    // Exactly 2^26 texels in one level is allowed; 6 faces of 2^12 squared (6 * 2^24) are not.
    assert_eq!(
        Texture::check_size(TextureKind::TwoD, 1 << 13, 1 << 13, 1, 1),
        Ok(())
    );
    assert!(matches!(
        too(TextureKind::Cube, 1 << 12, 1 << 12, 1, 1),
        TextureError::TooLarge { .. }
    ));
    // Too small stays too small; new() applies the same checks.
    assert_eq!(
        too(TextureKind::TwoD, 0, 4, 1, 1),
        TextureError::Size(0, 4, 1)
    );
    assert!(matches!(
        Texture::new(
            TextureKind::TwoD,
            Format::R32F,
            MAX_TEXTURE_SIZE * 2,
            1,
            1,
            &[vec![0; 4]]
        ),
        Err(TextureError::TooLarge { .. })
    ));
}

#[test]
fn constants_past_the_file_name_the_last_register_as_data() {
    use dxso::ctab::RegisterSet;
    use dxso::validate::{Caps, validate};
    let mut dev = device(PASS, &[vec![[0.0; 4]]]);
    // Two values from c99999 reach c100000, past any device's file.
    let e = dev.set_constant_f(99_999, &[[0.0; 4]; 2]).unwrap_err();
    assert_eq!(
        e,
        VmError::ConstantRange {
            set: RegisterSet::Float4,
            index: 100_000
        }
    );
    assert_eq!(e.to_string(), "constant c100000 is out of range");
    let e = dev.set_constant_i(15, &[[0; 4]; 3]).unwrap_err();
    assert_eq!(e.to_string(), "constant i17 is out of range");
    // ps_2_0: i0..i15, b0..b15, c0..c31.
    let ps = dxso::text::parse("ps_2_0\nmov oC0, c0\n").unwrap();
    let mut st = dxso_vm::PixelState::new(&validate(&ps, &Caps::max()).unwrap()).unwrap();
    assert_eq!(
        st.set_constant_b(14, &[true; 3]).unwrap_err(),
        VmError::ConstantRange {
            set: RegisterSet::Bool,
            index: 16
        }
    );
    assert_eq!(
        st.set_constant_f(31, &[[0.0; 4]; 2])
            .unwrap_err()
            .to_string(),
        "constant c32 is out of range"
    );
}
