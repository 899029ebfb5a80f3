"""dxso.draw and dxso.trace_pixel: whole draws from draw scenes, as `dxso draw` runs them."""
import struct

import numpy as np
import pytest

import dxso
from conftest import REPO


def triangle_scene():
    # A pre-transformed triangle over pixel centres x >= 1, y >= 1, x + y < 5 (the top-left
    # rule), diffuse red with alpha 0x80, on an 8x8 frame cleared to blue.
    data = b""
    for x, y in [(0.5, 0.5), (4.5, 0.5), (0.5, 4.5)]:
        data += struct.pack("<4fI", x, y, 0.5, 1.0, 0x80FF0000)
    return {
        "width": 8,
        "height": 8,
        "depth_stencil": None,
        "clear": {"color": "0xff0000ff"},
        "primitive": "TRIANGLELIST",
        "vertex_count": 3,
        "declaration": [
            {"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITIONT"},
            {"stream": 0, "offset": 16, "type": "D3DCOLOR", "usage": "COLOR"},
        ],
        "streams": [{"stride": 20, "hex": data.hex()}],
    }


def test_draw_returns_each_target_as_an_array():
    (target,) = dxso.draw(triangle_scene())
    assert target.shape == (8, 8, 4) and target.dtype == np.float32
    red = np.array([1.0, 0.0, 0.0, 128 / 255], dtype=np.float32)
    blue = np.array([0.0, 0.0, 1.0, 1.0], dtype=np.float32)
    covered = {(1, 1), (2, 1), (3, 1), (1, 2), (2, 2), (1, 3)}
    for y in range(8):
        for x in range(8):
            want = red if (x, y) in covered else blue
            assert np.array_equal(target[y, x], want), (x, y)


def test_draw_takes_a_path_and_trace_pixel_reports_each_draw():
    scene = REPO / "examples" / "draw" / "blending.scene.json"
    (target,) = dxso.draw(str(scene))
    assert target.shape == (128, 256, 4)
    reports = dxso.trace_pixel(scene, 60, 64)
    assert [r["draw"] for r in reports] == [0, 1]
    assert reports[1]["inputs"]["COLOR0"] == pytest.approx([1.0, 64 / 255, 32 / 255, 128 / 255])
    assert reports[1]["steps"] == []
    assert reports[1]["written"] and not reports[1]["discarded"]
    assert reports[1]["merge"][-1].startswith("target 0: ")


def test_trace_pixel_of_a_pixel_shader_lists_its_steps():
    scene = REPO / "examples" / "draw" / "terrain.scene.json"
    (r,) = dxso.trace_pixel(scene, 128, 70)
    texts = [s.text for s in r["steps"]]
    assert texts[0] == "dsx r0.xyz, v0"
    assert texts[-1] == "mov oC0, r5"
    assert r["merge"][0].startswith("depth test LESSEQUAL")


def test_bad_scenes_and_pixels_are_errors():
    scene = triangle_scene()
    scene["states"] = {"CULLMOD": "NONE"}
    with pytest.raises(dxso.DeviceError, match="CULLMOD"):
        dxso.draw(scene)
    with pytest.raises(dxso.Error, match="outside the 8x8 frame"):
        dxso.trace_pixel(triangle_scene(), 8, 0)
    with pytest.raises(dxso.Error, match="a dict"):
        dxso.draw(42)
