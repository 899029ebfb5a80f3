"""Every function that takes an array checks its size from the array's shape before it reads
(or copies) any of its data: a broadcast view whose shape implies gigabytes, over a few real
bytes, raises a clear error at once, and the process does not grow."""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dxso

# Runs in a fresh interpreter, so that its peak resident size (ru_maxrss) is its own: every
# call with a huge view, the error each raised, how long it took, and how much the peak grew.
SWEEP = textwrap.dedent(
    r"""
    import json, resource, sys, time
    import numpy as np
    import dxso

    VS = "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n"
    PS = "ps_3_0\ndcl_texcoord0 v0\nmov oC0, v0\n"
    GIB = 1 << 30

    def huge(dtype, shape):
        # A few real bytes; the shape implies gigabytes.
        return np.broadcast_to(np.zeros((), dtype), shape)

    def device():
        d = dxso.Device()
        d.set_shader(VS)
        return d

    bytes16 = huge(np.uint8, (16 * GIB,))
    floats = huge(np.float32, (GIB, 4))  # 16 GiB as float32
    level = np.zeros((1, 1, 4), np.float32)
    calls = {
        "Shader": lambda: dxso.Shader(bytes16),
        "Shader(memoryview)": lambda: dxso.Shader(memoryview(bytes16)),
        "disassemble": lambda: dxso.disassemble(bytes16),
        "validate": lambda: dxso.validate(bytes16),
        "link(vs)": lambda: dxso.link(bytes16, PS),
        "link(ps)": lambda: dxso.link(VS, bytes16),
        "translate": lambda: dxso.translate(bytes16),
        "set_shader": lambda: device().set_shader(bytes16),
        "set_constant": lambda: device().set_constant(0, floats),
        "set_constant(name)": lambda: device().set_constant("WorldViewProj", floats),
        "set_constant(list)": lambda: device().set_constant(0, [[0.0] * 4] * 1_000_000),
        "set_constant_i": lambda: device().set_constant_i(0, huge(np.int32, (GIB, 4))),
        "set_constant_i(name)": lambda: device().set_constant_i("n", huge(np.int32, (GIB, 4))),
        "set_constant_b": lambda: device().set_constant_b(0, huge(np.bool_, (16 * GIB,))),
        "set_constant_b(name)": lambda: device().set_constant_b("b", huge(np.bool_, (16 * GIB,))),
        "set_stream": lambda: device().set_stream(0, floats, stride=16),
        "set_stream(memoryview)": lambda: device().set_stream(0, memoryview(floats), stride=16),
        "set_stream(bytes16)": lambda: device().set_stream(0, bytes16, stride=16),
        "set_indices": lambda: device().set_indices(huge(np.uint16, (8 * GIB,))),
        "set_indices(range)": lambda: device().set_indices(range(10**12)),
        "set_texture": lambda: device().set_texture(0, huge(np.float32, (16384, 16384, 4))),
        "set_texture(wide)": lambda: device().set_texture(0, huge(np.float32, (1, 65536, 4))),
        "set_texture(level size)": lambda: device().set_texture(
            0, huge(np.float32, (4096, 4096, 4)), format="A8R8G8B8"
        ),
        "set_texture(second level)": lambda: device().set_texture(
            0, [np.zeros((2, 2, 4), np.float32), huge(np.float32, (GIB, 4))]
        ),
        "set_texture(cube)": lambda: device().set_texture(
            0, huge(np.float32, (6, 8192, 8192, 4)), kind="cube"
        ),
        "set_texture(volume)": lambda: device().set_texture(
            0, huge(np.float32, (4096, 4096, 4096, 4)), kind="volume"
        ),
    }
    results = {}
    for name, call in calls.items():
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        try:
            call()
            error = None
        except Exception as e:
            error = [type(e).__name__, isinstance(e, dxso.Error), str(e)]
        seconds = time.perf_counter() - start
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
        results[name] = {"error": error, "seconds": seconds, "grown": grown}
    json.dump(results, sys.stdout)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB (Linux)")
def test_a_huge_broadcast_view_is_refused_from_its_shape_everywhere():
    run = subprocess.run([sys.executable, "-c", SWEEP], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    results = json.loads(run.stdout)
    for name, r in results.items():
        assert r["error"] is not None, f"{name}: no error"
        kind, is_dxso_error, message = r["error"]
        assert is_dxso_error, f"{name}: {kind}: {message}"
        assert r["grown"] < 100 << 20, f"{name}: the peak grew by {r['grown']} bytes"
        assert r["seconds"] < 5, f"{name}: {r['seconds']:.1f} s"
    # The errors say what and why.
    assert "copies at most 4294967295 bytes" in results["Shader"]["error"][2]
    assert "(17179869184,)" in results["Shader"]["error"][2]
    assert "registers hold at most 32768 numbers" in results["set_constant"]["error"][2]
    assert "registers hold at most 64 numbers" in results["set_constant_i"]["error"][2]
    assert "at most 1073741823 indices" in results["set_indices(range)"]["error"][2]
    assert "MAX_TEXTURE_TEXELS" in results["set_texture"]["error"][2]
    assert "MAX_TEXTURE_SIZE" in results["set_texture(wide)"]["error"][2]
    assert "level 0: 268435456 bytes, 67108864 expected" in results["set_texture(level size)"]["error"][2]


def test_sizes_within_the_limits_still_work():
    d = dxso.Device()
    d.set_shader("vs_3_0\ndcl_position v0\ndcl_2d s0\ndcl_position o0\ntexldl r0, v0, s0\nadd o0, r0, c0\n")
    d.set_declaration([(0, 0, "FLOAT4", "POSITION", 0)])
    # Broadcast views of sane sizes are copied, as any non-contiguous view is.
    d.set_texture(0, np.broadcast_to(np.float32([0.25, 0.5, 0.75, 1]), (64, 64, 4)))
    d.set_constant(0, np.broadcast_to(np.float32(1), (8192, 4)))
    d.set_stream(0, np.broadcast_to(np.float32([0.5, 0.5, 0, 0]), (10, 4)), stride=16)
    assert d.stream_info(0)["copied"]
    d.set_indices(np.broadcast_to(np.uint16(3), (10,)))
    out, _ = d.draw(10)
    assert out[:, 0].tolist() == [[1.25, 1.5, 1.75, 2]] * 10
    with pytest.raises(dxso.Error, match="registers hold at most 32768 numbers"):
        d.set_constant(0, np.zeros((8193, 4), np.float32))
    with pytest.raises(dxso.DeviceError, match="c8192"):
        d.set_constant(1, np.zeros((8192, 4), np.float32))  # the device's own range check
    with pytest.raises(dxso.Error, match="registers hold at most 16 numbers"):
        d.set_constant_b(0, [True] * 17)


def test_a_shader_from_a_strided_token_array_reads_its_tokens_in_order():
    tokens = np.frombuffer(dxso.assemble("vs_2_0\ndcl_position v0\nmov oPos, v0\n"), np.uint32)
    padded = np.zeros((len(tokens), 2), np.uint32)
    padded[:, 0] = tokens
    assert not padded[:, 0].flags.c_contiguous
    assert dxso.Shader(padded[:, 0]).text == dxso.Shader(tokens).text == dxso.disassemble(padded[:, 0])


def test_another_librarys_array_is_sized_by_its_shape_before_numpy_makes_it():
    class Lazy:
        """What a lazy array library offers: a shape, and `__array__`, which computes it all."""

        shape = (1 << 30, 4)

        def __array__(self, dtype=None, copy=None):
            raise AssertionError("materialised before the size was checked")

    d = dxso.Device()
    for call in (lambda a: d.set_constant(0, a), lambda a: d.set_indices(a), lambda a: d.set_texture(0, a)):
        with pytest.raises(dxso.Error, match=r"\(1073741824, 4\)|too large"):
            call(Lazy())


def test_an_int_is_not_bytes():
    # bytes(n) would make n zero bytes: refused before anything is made.
    for call in (dxso.Shader, dxso.disassemble, lambda n: dxso.Device().set_stream(0, n)):
        with pytest.raises(TypeError, match="not int"):
            call(10**12)
