"""Streams read the caller's memory where it lies (no copy) when its buffer allows: the device
holds (pins) it while bound, and each draw reads what it holds then."""
import gc
import mmap
import sys

import numpy as np
import pytest

import dxso

# o0 = v0 * 2 (xyz), w = 1: each output is a known function of its input.
SCALE = "vs_3_0\ndcl_position v0\ndcl_position o0\nmul o0, v0, c0\n"


def device(stream, stride=12, offset=0):
    d = dxso.Device()
    d.set_shader(SCALE)
    d.set_declaration([(0, 0, "FLOAT3", "POSITION", 0)])
    d.set_constant(0, [2, 2, 2, 1])
    d.set_stream(0, stream, stride=stride, offset=offset)
    return d


def expected(xyz):
    out = np.ones((len(xyz), 1, 4), np.float32)
    out[:, 0, :3] = xyz * 2
    return out


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * mmap.PAGESIZE


def test_a_large_contiguous_array_is_read_where_it_lies():
    n = 1_000_000
    xyz = np.arange(3 * n, dtype=np.float32).reshape(n, 3) % 1000
    d = device(xyz)
    info = d.stream_info(0)
    assert info == {"address": xyz.ctypes.data, "nbytes": xyz.nbytes, "copied": False, "offset": 0, "stride": 12}
    out, _ = d.draw(n)
    assert np.array_equal(out, expected(xyz))
    assert d.stream_info(1) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_binding_a_large_array_takes_no_memory():
    xyz = np.ones((8_000_000, 3), np.float32)  # 96 MB, every page touched
    d = dxso.Device()
    before = resident_bytes()
    d.set_stream(0, xyz, stride=12)
    grown = resident_bytes() - before
    assert grown < 16 << 20, f"binding grew the process by {grown} bytes"
    assert not d.stream_info(0)["copied"]


def test_bytes_bytearray_memoryview_and_misaligned_buffers_are_not_copied():
    xyz = np.random.default_rng(5).uniform(-9, 9, (100, 3)).astype(np.float32)
    raw = xyz.tobytes()
    d = device(raw)
    assert not d.stream_info(0)["copied"]
    assert np.array_equal(d.draw(100)[0], expected(xyz))
    # One byte into a bytearray: the floats are misaligned, and read all the same.
    buf = bytearray(b"\xee") + bytearray(raw)
    view = memoryview(buf)[1:]
    d = device(view)
    info = d.stream_info(0)
    assert not info["copied"] and info["address"] == np.frombuffer(buf, np.uint8).ctypes.data + 1
    assert np.array_equal(d.draw(100)[0], expected(xyz))


def test_a_non_contiguous_view_is_copied_in_order():
    xyz = np.arange(60, dtype=np.float32).reshape(20, 3)
    padded = np.zeros((20, 6), np.float32)
    padded[:, 3:] = xyz
    view = padded[:, 3:]
    d = device(view)
    info = d.stream_info(0)
    assert info["copied"] and info["nbytes"] == xyz.nbytes
    assert not np.shares_memory(view, padded[:, :3])
    padded[:] = -1  # the copy is the device's own
    assert np.array_equal(d.draw(20)[0], expected(xyz))


def test_writes_between_draws_show_in_the_next_draw():
    xyz = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    d = device(xyz)
    assert np.array_equal(d.draw(2)[0], expected(xyz))
    xyz[1] = [10, 20, 30]
    assert d.draw(2)[0][1, 0].tolist() == [20, 40, 60, 1]


def test_a_bound_array_is_pinned_until_unbound():
    xyz = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    d = device(xyz)
    with pytest.raises(ValueError):
        xyz.resize((4, 3))  # NumPy refuses to move memory a device holds
    buf = bytearray(np.zeros(6, np.float32).tobytes())
    d.set_stream(1, buf, stride=12)
    with pytest.raises(BufferError):
        buf.extend(b"more")
    d.set_stream(1, None)
    buf.extend(b"more")  # unbound: free to move again
    d.set_stream(0, None)
    del d
    gc.collect()
    xyz.resize((4, 3), refcheck=True)


def test_the_device_keeps_a_bound_array_alive():
    xyz = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    d = device(xyz.copy())
    del xyz
    gc.collect()
    garbage = [np.full((2, 3), -7, np.float32) for _ in range(100)]
    assert d.draw(2)[0][:, 0].tolist() == [[2, 4, 6, 1], [8, 10, 12, 1]]
    del garbage
