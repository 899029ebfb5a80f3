//! The GPU's vertex fetch against dxso-vm's, bit for bit: every D3DDECLTYPE at aligned and
//! unaligned offsets, through every stream frequency (per vertex, indexed, `instance` 1 and
//! 2, a plain divider, a divider in an indexed draw, points drawn as quads), each vertex a
//! one-pixel point whose flat colour is the element as the vertex shader read it, into an
//! A32B32G32R32F target; and none of them falls back to dxso-vm's fetch on the CPU.

use dxso_draw::DrawScene;
use dxso_vm::Frequency;

/// Columns (vertices) and rows (instances) of the target.
const VERTICES: usize = 6;
const INSTANCES: usize = 4;

const TYPES: [(&str, usize); 17] = [
    ("FLOAT1", 4),
    ("FLOAT2", 8),
    ("FLOAT3", 12),
    ("FLOAT4", 16),
    ("D3DCOLOR", 4),
    ("UBYTE4", 4),
    ("SHORT2", 4),
    ("SHORT4", 8),
    ("UBYTE4N", 4),
    ("SHORT2N", 4),
    ("SHORT4N", 8),
    ("USHORT2N", 4),
    ("USHORT4N", 8),
    ("UDEC3", 4),
    ("DEC3N", 4),
    ("FLOAT16_2", 4),
    ("FLOAT16_4", 8),
];

/// How the tested element's stream steps, and how the draw reads it.
#[derive(Clone, Copy, Debug)]
enum Variant {
    Vertex,
    /// Through an index buffer (reversed), stream 0 `indexed`.
    Indexed,
    Instance(u32),
    Divider(u32),
    /// A divider in an indexed draw: the element is the vertex's position over the divider.
    IndexedDivider(u32),
    /// Point sprites of one pixel, drawn as quads.
    Quads,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes for `n` elements of a type of `size` bytes, `stride` apart from `offset`: floats
/// within ±4 for FLOAT*, −32768 and 32767 among the SHORTs, any bits otherwise.
fn element_bytes(ty: &str, size: usize, offset: usize, stride: usize, n: usize) -> Vec<u8> {
    let mut seed = 0x2545_f491_u32 ^ (size as u32 * 7919) ^ (offset as u32 * 131);
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let mut out = vec![0u8; offset + stride * (n - 1) + size + 3];
    for e in 0..n {
        let at = offset + e * stride;
        for b in out.iter_mut().skip(at).take(size) {
            *b = next() as u8;
        }
        if ty.starts_with("FLOAT") && !ty.starts_with("FLOAT16") {
            for c in 0..size / 4 {
                let x = (next() % 8001) as f32 / 1000.0 - 4.0;
                out[at + 4 * c..at + 4 * c + 4].copy_from_slice(&x.to_le_bytes());
            }
        }
        if ty.starts_with("SHORT") && e < 2 {
            let v: i16 = if e == 0 { -32768 } else { 32767 };
            out[at..at + 2].copy_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// The scene of `ty` (of `size` bytes) at `offset` in a stride of `stride`, stepping as
/// `variant`.
fn scene(ty: &str, size: usize, offset: usize, stride: usize, variant: Variant) -> DrawScene {
    let (w, h) = (VERTICES, INSTANCES);
    // Positions a tenth of a pixel past D3D9's pixel centres: vertex k at column k, its
    // instance's row from an instance stream.
    let mut pos = Vec::new();
    for k in 0..w {
        let x = 2.0 * (k as f32 + 0.1) / w as f32 - 1.0;
        let y = 1.0 - 2.0 * 0.1 / h as f32;
        pos.extend(x.to_le_bytes());
        pos.extend(y.to_le_bytes());
    }
    let mut rows = Vec::new();
    for i in 0..h {
        rows.extend((-2.0 * i as f32 / h as f32).to_le_bytes());
    }
    let elements = match variant {
        Variant::Instance(d) => h.div_ceil(d as usize),
        _ => w,
    };
    let data = element_bytes(ty, size, offset, stride, elements);
    let frequency = match variant {
        Variant::Instance(d) => format!(r#", "frequency": {{"instance": {d}}}"#),
        _ => String::new(),
    };
    let indexed = matches!(variant, Variant::Indexed | Variant::IndexedDivider(_));
    let indices = if indexed {
        format!(r#""indices": {:?},"#, (0..w).rev().collect::<Vec<_>>())
    } else {
        String::new()
    };
    let sprites = if matches!(variant, Variant::Quads) {
        r#", "POINTSPRITEENABLE": true"#
    } else {
        ""
    };
    let json = format!(
        r#"{{"width": {w}, "height": {h}, "targets": [{{"format": "A32B32G32R32F"}}],
        "clear": {{"color": "0x00204060"}},
        "shader_asm": "vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_texcoord1 v2\ndcl_position o0\ndcl_color o1\nmov r0, v0\nadd r0.y, r0.y, v1.x\nmov o0, r0\nmov o1, v2\n",
        "pixel_shader_asm": "ps_3_0\ndcl_color v0\nmov oC0, v0\n",
        "primitive": "POINTLIST", "vertex_count": {w}, "instance_count": {h}, {indices}
        "declaration": [
          {{"stream": 0, "offset": 0, "type": "FLOAT2", "usage": "POSITION", "usage_index": 0}},
          {{"stream": 1, "offset": 0, "type": "FLOAT1", "usage": "TEXCOORD", "usage_index": 0}},
          {{"stream": 2, "offset": {offset}, "type": "{ty}", "usage": "TEXCOORD", "usage_index": 1}}],
        "streams": [{{"stride": 8, "hex": "{}", "frequency": {{"indexed": {h}}}}},
                    {{"stride": 4, "hex": "{}", "frequency": {{"instance": 1}}}},
                    {{"stride": {stride}, "hex": "{}"{frequency}}}],
        "states": {{"SHADEMODE": "FLAT"{sprites}}}}}"#,
        hex(&pos),
        hex(&rows),
        hex(&data),
    );
    let dir = dxso_testdata::repo_root().join("examples/draw");
    let mut s = DrawScene::from_json(&json, &dir).unwrap_or_else(|e| panic!("{json}\n{e}"));
    if let Variant::Divider(m) | Variant::IndexedDivider(m) = variant {
        s.draws[0]
            .vertex
            .set_stream_frequency(2, Frequency::Divider(m))
            .unwrap();
    }
    s
}

fn variants() -> Vec<Variant> {
    vec![
        Variant::Vertex,
        Variant::Indexed,
        Variant::Instance(1),
        Variant::Instance(2),
        Variant::Divider(4),
        Variant::IndexedDivider(2),
        Variant::Quads,
    ]
}

/// Every type at an aligned offset (4 bytes into a stride with 4 to spare) and an unaligned
/// one (3 bytes into an odd stride), through every variant: the GPU's fetch, never the CPU's,
/// giving dxso-vm's bits in every pixel.
#[test]
fn every_type_and_frequency_matches_dxso_vm_bit_for_bit() {
    let Some(gpu) = crate::gpu() else { return };
    let mut checked = 0;
    for (ty, size) in TYPES {
        for (offset, stride) in [(4, size.next_multiple_of(4) + 8), (3, size + 5)] {
            for variant in variants() {
                let what = format!("{ty} at {offset} of {stride}, {variant:?}");
                let s = scene(ty, size, offset, stride, variant);
                let cpu = dxso_draw::draw_frame(&s.frame, &s.draws)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let prepared = gpu
                    .prepare_frame(&s.frame, &s.draws)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(prepared.stats().cpu_fetches, 0, "{what}: the CPU's fetch");
                prepared.run().unwrap();
                let out = prepared.read_back().unwrap();
                let clear = [32.0 / 255.0, 64.0 / 255.0, 96.0 / 255.0, 0.0];
                for (p, (a, b)) in cpu.targets[0]
                    .texels
                    .iter()
                    .zip(&out.targets[0].texels)
                    .enumerate()
                {
                    let same = a
                        .iter()
                        .zip(b)
                        .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
                    assert!(same, "{what}: pixel {p}: CPU {a:?}, GPU {b:?}");
                    // Every pixel drawn (the CPU's too).
                    assert_ne!(*a, clear, "{what}: pixel {p} not drawn");
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, TYPES.len() * 2 * variants().len());
}
