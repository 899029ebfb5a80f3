"""Device: streams, constants, declaration, indices, frequencies, textures, draw and trace,
checked against hand-computed values and against `dxso run --format bin`."""
import json

import numpy as np
import pytest

import dxso

SCALE = "vs_3_0\ndcl_position v0\ndcl_position o0\nmul o0, v0, c0\n"
XYZ = [(0, 0, "FLOAT3", "POSITION", 0)]


def scale_device():
    d = dxso.Device()
    d.set_shader(SCALE)
    d.set_declaration(XYZ)
    d.set_constant(0, [2, 2, 2, 1])
    return d


def w1_vertices(n):
    rng = np.random.default_rng(1234)
    v = np.empty((n, 8), np.float32)
    v[:, 0:3] = rng.uniform(-10, 10, (n, 3))
    v[:, 3] = 1
    v[:, 4:8] = rng.uniform(0, 1, (n, 4))
    return v


def w1_matrix():
    a = 0.3
    rot = np.array([[np.cos(a), 0, np.sin(a), 0], [0, 1, 0, 0], [-np.sin(a), 0, np.cos(a), 0], [0, 0, 0, 1]])
    proj = np.array([[1.2, 0, 0, 0], [0, 1.6, 0, 0], [0, 0, 1.001, -0.1], [0, 0, 1, 0]])
    return (proj @ rot).astype(np.float32)


def w1_device(shared, stream):
    d = dxso.Device()
    d.set_shader((shared / "bench" / "w1_transform.asm").read_text())
    d.set_declaration([(0, 0, "FLOAT4", "POSITION", 0), (0, 16, "FLOAT4", "COLOR", 0)])
    d.set_stream(0, stream, stride=32)
    d.set_constant(0, w1_matrix())
    return d


def test_w1_equals_the_cli_bin_output_byte_for_byte(shared, cli, tmp_path):
    n = 5000
    v = w1_vertices(n)
    (tmp_path / "w1.bin").write_bytes(v.tobytes())
    m = w1_matrix()
    scene = {
        "shader": str(shared / "bench" / "w1_transform.asm"),
        "vertex_count": n,
        "declaration": [
            {"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION", "usage_index": 0},
            {"stream": 0, "offset": 16, "type": "FLOAT4", "usage": "COLOR", "usage_index": 0},
        ],
        "streams": [{"stride": 32, "file": "w1.bin"}],
        # repr of a float32 converted to a Python float is exact, so JSON carries the same bits
        "constants": {f"c{k}": [float(x) for x in m[k]] for k in range(4)},
    }
    (tmp_path / "w1.json").write_text(json.dumps(scene))
    out = cli(["run", str(tmp_path / "w1.json"), "--format", "bin", "-o", str(tmp_path / "out.f32")])
    assert out.returncode == 0, out.stderr.decode()

    array, semantics = w1_device(shared, v).draw(n)
    assert array.dtype == np.float32 and array.shape == (n, 2, 4)
    assert semantics == ["POSITION0", "COLOR0"]
    assert array.tobytes() == (tmp_path / "out.f32").read_bytes()
    # and the values are the transform: o0 = M v0 (to float32 rounding), o1 = v1 exactly
    np.testing.assert_allclose(array[:, 0], v[:, 0:4] @ m.T, rtol=1e-5, atol=1e-4)
    assert np.array_equal(array[:, 1], v[:, 4:8])


def test_non_contiguous_view_and_bytes_draw_alike(shared):
    n = 777
    v = w1_vertices(n)
    padded = np.zeros((n, 2, 8), np.float32)
    padded[:, 1] = v
    view = padded[:, 1]
    assert not view.flags.c_contiguous
    expected, _ = w1_device(shared, v).draw(n)
    from_view, _ = w1_device(shared, view).draw(n)
    from_bytes, _ = w1_device(shared, v.tobytes()).draw(n)
    assert from_view.tobytes() == expected.tobytes()
    assert from_bytes.tobytes() == expected.tobytes()
    # A Fortran-ordered copy holds the same numbers in another memory order.
    from_fortran, _ = w1_device(shared, np.asfortranarray(v)).draw(n)
    assert from_fortran.tobytes() == expected.tobytes()


def test_draw_scales_and_indexes():
    d = scale_device()
    d.set_stream(0, np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.float32), stride=12)
    out, sem = d.draw(3)
    assert sem == ["POSITION0"]
    assert out.tolist() == [[[2, 4, 6, 1]], [[8, 10, 12, 1]], [[14, 16, 18, 1]]]
    d.set_indices(np.array([2, 0, 2], np.uint16))
    out, _ = d.draw(3)
    assert out[:, 0, 0].tolist() == [14, 2, 14]
    d.set_indices(None)
    d.set_stream(0, np.array([1, 2, 3, 4, 5, 6, 7, 8, 9], np.float32), stride=12, offset=12)
    out, _ = d.draw(2)
    assert out[:, 0, 0].tolist() == [8, 14]


def test_constants_i_and_b():
    d = dxso.Device()
    d.set_shader(
        "vs_2_0\ndcl_position v0\nmov r0, c0\nrep i0\nadd r0, r0, c1\nendrep\n"
        "if b0\nadd r0, r0, c2\nendif\nmov oPos, r0\n"
    )
    d.set_declaration(XYZ)
    d.set_stream(0, np.zeros(3, np.float32), stride=12)
    d.set_constant(1, np.array([1, 2, 3, 4], np.float64))
    d.set_constant(2, [[100, 100, 100, 100]])
    d.set_constant_i(0, [3, 0, 0, 0])
    out, sem = d.draw(1)
    # vs_1_1 .. vs_2_x always output oD0, white where unwritten (instructions.md C11).
    assert sem == ["POSITION0", "COLOR0"]
    assert out[0, 0].tolist() == [3, 6, 9, 12]
    assert out[0, 1].tolist() == [1, 1, 1, 1]
    d.set_constant_b(0, [True])
    out, _ = d.draw(1)
    assert out[0, 0].tolist() == [103, 106, 109, 112]
    with pytest.raises(dxso.Error, match="rows of 4"):
        d.set_constant(0, [1, 2, 3])


def test_instancing_by_stream_frequency():
    d = dxso.Device()
    d.set_shader("vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_position o0\nmov r0, v1\nadd o0, v0, r0\n")
    d.set_declaration([(0, 0, "FLOAT2", "POSITION", 0), (1, 0, "FLOAT1", "TEXCOORD", 0)])
    d.set_stream(0, np.array([[0, 0], [1, 0]], np.float32), stride=8)
    d.set_stream_frequency(0, dxso.INDEXEDDATA | 3)
    d.set_stream(1, np.array([10, 20, 30], np.float32), stride=4)
    d.set_stream_frequency(1, dxso.INSTANCEDATA | 1)
    out, _ = d.draw(2, 3)
    # Missing components read (.., 0, 1): FLOAT2 -> (x, y, 0, 1), FLOAT1 -> (t, 0, 0, 1).
    assert out[:, 0].tolist() == [
        [10, 0, 0, 2], [11, 0, 0, 2], [20, 0, 0, 2], [21, 0, 0, 2], [30, 0, 0, 2], [31, 0, 0, 2]
    ]
    with pytest.raises(dxso.DeviceError, match="bad stream frequency setting 0x00000000"):
        d.set_stream_frequency(0, 0)


def test_texture_from_numpy():
    d = dxso.Device()
    d.set_shader(
        "vs_3_0\ndcl_position v0\ndcl_2d s0\ndcl_position o0\ntexldl r0, v0, s0\nmov o0, r0\n"
    )
    d.set_declaration([(0, 0, "FLOAT4", "POSITION", 0)])
    texels = np.array([[[1, 0, 0, 1], [0, 1, 0, 1]], [[0, 0, 1, 1], [1, 1, 1, 1]]], np.float32)
    d.set_texture(0, texels, format="A32B32G32R32F")
    d.set_stream(0, np.array([[0.25, 0.25, 0, 0], [0.75, 0.25, 0, 0], [0.25, 0.75, 0, 0]], np.float32), stride=16)
    out, _ = d.draw(3)
    assert out[:, 0].tolist() == [[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]]
    # Linear filtering halfway between the two top texels.
    d.set_sampler_state(0, mag_filter="linear", min_filter="linear", address_u="clamp")
    d.set_stream(0, np.array([[0.5, 0.25, 0, 0]], np.float32), stride=16)
    out, _ = d.draw(1)
    assert out[0, 0].tolist() == [0.5, 0.5, 0, 1]
    # A8R8G8B8 in memory order B, G, R, A.
    d.set_texture(0, np.array([[[0, 0, 255, 255]]], np.uint8), format="A8R8G8B8")
    out, _ = d.draw(1)
    assert out[0, 0].tolist() == [1, 0, 0, 1]
    with pytest.raises(dxso.Error, match="texture: level 0: 4 bytes, 16 expected"):
        d.set_texture(0, np.zeros((1, 1), np.float32))
    with pytest.raises(dxso.Error, match="unknown sampler state"):
        d.set_sampler_state(0, colour="red")
    # The scene format's names and values (one reader in dxso-vm): hex border colours, flags.
    d.set_sampler_state(0, address_u="BORDER", address_v="border", border_color="0xff00ff00")
    d.set_stream(0, np.array([[2.5, 0.5, 0, 0]], np.float32), stride=16)
    out, _ = d.draw(1)
    assert out[0, 0].tolist() == [0, 1, 0, 1]
    with pytest.raises(dxso.Error, match=r'^sampler 0: min_filter: unknown filter "cubic"$'):
        d.set_sampler_state(0, min_filter="cubic")
    with pytest.raises(dxso.Error, match=r"^sampler 0: max_mip_level: expected a whole number"):
        d.set_sampler_state(0, max_mip_level=True)


def test_trace_one_vertex():
    d = dxso.Device()
    d.set_shader("vs_2_0\ndcl_position v0\nmov r0, c0\nrep i0\nadd r0, r0, v0\nendrep\nmov oPos, r0\n")
    d.set_declaration(XYZ)
    d.set_stream(0, np.array([[1, 1, 1], [1, 2, 3]], np.float32), stride=12)
    d.set_constant_i(0, [2, 0, 0, 0])
    t = d.trace(1)
    assert t.vertex == 1 and t.error is None
    assert [s.instruction for s in t.steps] == [1, 2, 3, 4, 3, 4, 5]
    assert t.steps[2].text == "add r0, r0, v0" and t.steps[2].effect == "r0 = (1, 2, 3, 1)"
    assert t.steps[4].effect == "r0 = (2, 4, 6, 2)"
    assert t.semantics == ["POSITION0", "COLOR0"]
    assert t.outputs.tolist() == [[2, 4, 6, 2], [1, 1, 1, 1]]


def test_device_errors_carry_the_library_messages():
    d = dxso.Device()
    with pytest.raises(dxso.DeviceError, match="^no vertex shader is set$"):
        d.draw(1)
    with pytest.raises(dxso.ValidationError, match=r"^<string>:2:1: error\[V011\]: v0 is used but not declared\n    mov oPos, v0\n    \^\n<string>: the shader does not validate$"):
        d.set_shader("vs_2_0\nmov oPos, v0\n")
    with pytest.raises(dxso.DeviceError, match="ps_2_0 is not a vertex shader"):
        d.set_shader("ps_2_0\nmov oC0, c0\n")
    d.set_shader(SCALE)
    d.set_declaration(XYZ)
    with pytest.raises(dxso.DeviceError, match="^stream 0 is used by the declaration but not set$"):
        d.draw(1)
    d.set_stream(0, np.zeros(3, np.float32), stride=12)
    with pytest.raises(dxso.DeviceError, match="reads past the end of the stream"):
        d.draw(2)
    with pytest.raises(dxso.Error, match=r'declaration\[0\]: unknown type "FLOAT5"'):
        d.set_declaration([(0, 0, "FLOAT5", "POSITION", 0)])
    with pytest.raises(dxso.Error, match=r'declaration\[0\]: unknown usage "PLACE"'):
        d.set_declaration([(0, 0, "FLOAT3", "PLACE")])


HEADER = """//
// Parameters:
//
//   float4x4 WorldViewProj;
//   float4 Tint;
//
//
// Registers:
//
//   Name          Reg   Size
//   ------------- ----- ----
//   WorldViewProj c0       4
//   Tint          c4       1
//
vs_3_0
dcl_position v0
dcl_position o0
dcl_color o1
m4x4 o0, v0, c0
mov o1, c4
"""


def test_constants_by_name():
    s = dxso.Shader(dxso.assemble(HEADER, ctab=True))
    assert [(c.name, c.register, c.register_count, c.class_, c.type_, c.rows, c.columns) for c in s.constants] == [
        ("WorldViewProj", "c0", 4, "MATRIX_COLUMNS", "FLOAT", 4, 4),
        ("Tint", "c4", 1, "VECTOR", "FLOAT", 1, 4),
    ]
    assert dxso.Shader(HEADER).constants == []  # the header alone is comments
    m = np.arange(16, dtype=np.float32).reshape(4, 4)
    v = np.array([1, 2, 3, 1], np.float32)
    d = dxso.Device()
    d.set_shader(s)
    d.set_declaration([(0, 0, "FLOAT4", "POSITION", 0)])
    d.set_stream(0, v, stride=16)
    d.set_constant("WorldViewProj", m)
    d.set_constant("Tint", [0.5, 0.25, 1, 1])
    by_name, sem = d.draw(1)
    assert sem == ["POSITION0", "COLOR0"]
    # column-major (HLSL's default): column k in c<k>, so o0 = v M
    assert by_name[0, 0].tolist() == (v @ m).tolist()
    assert by_name[0, 1].tolist() == [0.5, 0.25, 1, 1]
    d.set_constant(0, m.T)
    by_register, _ = d.draw(1)
    assert by_register.tobytes() == by_name.tobytes()
    with pytest.raises(dxso.DeviceError, match="^no constant named 'World'; the constant table has: WorldViewProj, Tint$"):
        d.set_constant("World", m)
    d.set_shader(HEADER)
    with pytest.raises(dxso.DeviceError, match="constant table"):
        d.set_constant("WorldViewProj", m)
