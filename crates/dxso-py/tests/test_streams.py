"""Streams read the caller's memory where it lies (no copy) when NumPy can make it read-only:
the device holds it, read-only, while bound, and draws run with the GIL released. Memory that
cannot be made so is copied."""
import gc
import mmap
import sys
import threading
import time

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


def test_bytes_and_misaligned_views_of_bytes_are_not_copied_a_bytearray_is():
    xyz = np.random.default_rng(5).uniform(-9, 9, (100, 3)).astype(np.float32)
    raw = xyz.tobytes()
    d = device(raw)
    assert not d.stream_info(0)["copied"]
    assert np.array_equal(d.draw(100)[0], expected(xyz))
    # One byte into bytes: the floats are misaligned, and read in place all the same.
    buf = b"\xee" + raw
    d = device(memoryview(buf)[1:])
    info = d.stream_info(0)
    assert not info["copied"] and info["address"] == np.frombuffer(buf, np.uint8).ctypes.data + 1
    assert np.array_equal(d.draw(100)[0], expected(xyz))
    # A bytearray (or a view of one, or an array over one) cannot be made read-only: copied.
    for writable in (bytearray(raw), memoryview(bytearray(raw)), np.frombuffer(bytearray(raw), np.float32)):
        d = device(writable)
        assert d.stream_info(0)["copied"]
        assert np.array_equal(d.draw(100)[0], expected(xyz))
    b = bytearray(raw)
    d = device(b)
    b[:12] = np.float32([7, 7, 7]).tobytes()
    b.extend(b"more")  # the device has its own copy
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
    assert padded.flags.writeable and view.flags.writeable


def test_a_bound_array_is_read_only_until_unbound():
    xyz = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    d = device(xyz)
    assert not xyz.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        xyz[1] = [10, 20, 30]
    with pytest.raises(ValueError, match="read-only"):
        np.add(xyz, 1, out=xyz)
    assert np.array_equal(d.draw(2)[0], expected(np.array([[1, 2, 3], [4, 5, 6]], np.float32)))
    # Unbind, write, bind again: the next draw sees it.
    d.set_stream(0, None)
    assert xyz.flags.writeable
    xyz[1] = [10, 20, 30]
    d.set_stream(0, xyz, stride=12)
    assert d.draw(2)[0][1, 0].tolist() == [20, 40, 60, 1]
    # Rebinding the stream to another array releases this one.
    other = xyz.copy()
    d.set_stream(0, other, stride=12)
    assert xyz.flags.writeable and not other.flags.writeable
    # Freeing the device releases what it held.
    del d
    gc.collect()
    assert other.flags.writeable


def test_a_bound_view_holds_its_base_and_binding_twice_counts():
    base = np.zeros((4, 3), np.float32)
    view = base[1:3]  # contiguous: read in place
    d = device(view)
    assert not d.stream_info(0)["copied"] and d.stream_info(0)["address"] == view.ctypes.data
    assert not base.flags.writeable and not view.flags.writeable
    with pytest.raises(ValueError):
        base[2] = 1
    # The same array on two streams and on a second device: read-only until the last lets go.
    d.set_stream(1, base, stride=12)
    e = device(base)
    d.set_stream(0, None)
    assert not base.flags.writeable
    assert not view.flags.writeable  # a way into memory still bound stays shut
    d.set_stream(1, None)
    assert not base.flags.writeable
    del e
    gc.collect()
    assert base.flags.writeable and view.flags.writeable
    # An array that was read-only already stays so.
    frozen = np.ones((2, 3), np.float32)
    frozen.flags.writeable = False
    d.set_stream(0, frozen, stride=12)
    d.set_stream(0, None)
    assert not frozen.flags.writeable


def test_resize_cannot_free_a_bound_array():
    xyz = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    d = device(xyz)
    for refcheck in (True, False):
        with pytest.raises(ValueError):
            xyz.resize((100000, 3), refcheck=refcheck)
    base = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.float32)
    d.set_stream(0, base[1:], stride=12)
    with pytest.raises(ValueError):
        base.resize((100000, 3), refcheck=False)
    garbage = [np.full((100000, 3), -7, np.float32) for _ in range(10)]
    assert d.draw(2)[0][:, 0].tolist() == [[8, 10, 12, 1], [14, 16, 18, 1]]
    del garbage
    d.set_stream(0, None)
    del d
    gc.collect()
    base.resize((4, 3), refcheck=False)  # unbound: the owner's to resize again
    xyz.resize((4, 3), refcheck=False)


def test_draws_release_the_gil_while_another_thread_runs_ufuncs():
    n = 1_000_000
    xyz = (np.arange(3 * n, dtype=np.float32).reshape(n, 3) % 1000) - 500
    d = device(xyz)
    first, _ = d.draw(n)
    other = np.zeros(4096, np.float32)
    stamps, refused, stop = [], [], threading.Event()

    def writer():
        while not stop.is_set():
            np.add(other, 1, out=other)
            np.multiply(other, 0.5, out=other)
            stamps.append(time.perf_counter())
            try:
                np.add(xyz, 1, out=xyz)  # the bound array: refused, never raced
            except ValueError:
                refused.append(1)

    # A long switch interval: the writer runs only when this thread releases the GIL (in a
    # draw), not because the interpreter switched threads between two Python lines.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(10)
    t = threading.Thread(target=writer)
    t.start()
    inside = 0
    try:
        for _ in range(5):
            start = time.perf_counter()
            out, _ = d.draw(n)
            end = time.perf_counter()
            assert out.tobytes() == first.tobytes()
            inside += sum(start < s < end for s in stamps[-100000:])
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(interval)
    assert len(refused) == len(stamps) > 0
    assert np.array_equal(first, expected(xyz))
    # With the GIL held during a draw, the writer could not run during one at all.
    assert inside > 10, f"the writer ran {inside} times during the draws"


def test_the_device_keeps_a_bound_array_alive():
    xyz = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    d = device(xyz.copy())
    del xyz
    gc.collect()
    garbage = [np.full((2, 3), -7, np.float32) for _ in range(100)]
    assert d.draw(2)[0][:, 0].tolist() == [[2, 4, 6, 1], [8, 10, 12, 1]]
    del garbage
