#!/usr/bin/env python3
"""Writes the pixel benchmark scenes P1-P4 (1920x1080 draw scenes for `dxso bench` and
`dxso draw`) into a folder outside the repository (default /tmp/dxso-pixel-bench):

  P1 p1_textured.json  ps_2_0: a full-screen quad, texld of a 256x256 A8R8G8B8 texture
                       (bilinear, wrapped 8 times), lit by nrm + dp3_sat + mad
  P2 p2_phong.json     vs_3_0 + ps_3_0: a full-screen plane, per-pixel Blinn-Phong over 4 point
                       lights (nrm, dp3_sat, pow, mad per light; unrolled: ps_3_0 cannot index c#)
  P3 p3_bump.json      ps_1_4: a full-screen quad, a normal map's texel dotted with the light
                       vector (_bx2, dp3_sat), then a phase and a base texture's texel multiplied in
  P4 p4_triangles.json ps_2_0: 10,000 small triangles (about 800 pixels each, 3.9 times the
                       screen) in random order and depth, Z test LESSEQUAL with Z writes

peer_lavapipe.py draws the same scenes (the same vertices, textures and constants, read from
these files) with hand-written WGSL on Mesa's lavapipe. Deterministic (random.Random(1234)).

Usage: python3 make_scenes.py [--out DIR] [--triangles 10000]
"""
import argparse
import json
import math
import os
import random
import struct
import sys

W, H = 1920, 1080
HERE = os.path.dirname(os.path.abspath(__file__))


def texture(n, texel):
    """An n x n A8R8G8B8 texture from texel(x, y) = [r, g, b, a] (0-255); a scene's levels
    hold the format's bytes in memory order, which for A8R8G8B8 is B, G, R, A."""
    level = []
    for y in range(n):
        for x in range(n):
            r, g, b, a = texel(x, y)
            level += [b, g, r, a]
    return {"type": "2d", "format": "A8R8G8B8", "width": n, "height": n, "levels": [level]}


def stone(x, y):
    v = (x * 7 + y * 13) % 64 + (((x // 32) + (y // 32)) % 2) * 96 + 64
    return [v, (v * 3) // 4 + 20, v // 2 + 40, 255]


def bumps(x, y):
    # A normal map: a bump per 32x32 cell, normals encoded as 0.5 * n + 0.5.
    u, v = (x % 32 - 15.5) / 16.0, (y % 32 - 15.5) / 16.0
    nx, ny = -u * 0.8, -v * 0.8
    nz = math.sqrt(max(0.0, 1.0 - nx * nx - ny * ny))
    return [round((c * 0.5 + 0.5) * 255) for c in (nx, ny, nz)] + [255]


SAMPLER = {"min_filter": "LINEAR", "mag_filter": "LINEAR", "address_u": "WRAP", "address_v": "WRAP"}
POSITIONT = {"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITIONT", "usage_index": 0}


def element(offset, kind, usage, index):
    return {"stream": 0, "offset": offset, "type": kind, "usage": usage, "usage_index": index}


def screen_quad(extra):
    """A full-screen TRIANGLESTRIP of POSITIONT vertices (pixel edges at -0.5) followed by
    extra(u, v) floats, u and v in 0..1 across the screen."""
    data = []
    for (u, v) in [(0, 0), (1, 0), (0, 1), (1, 1)]:
        data += [u * W - 0.5, v * H - 0.5, 0.5, 1.0] + extra(u, v)
    return data


def p1():
    decl = [POSITIONT, element(16, "FLOAT2", "TEXCOORD", 0), element(24, "FLOAT3", "TEXCOORD", 1)]
    data = screen_quad(lambda u, v: [u * 8, v * 8 * H / W, u - 0.5, v - 0.5, 1.0])
    return {"width": W, "height": H, "clear": {"color": "0xff000000"}, "depth_stencil": None,
            "pixel_shader": "p1_textured.ps.asm", "primitive": "TRIANGLESTRIP", "vertex_count": 4,
            "declaration": decl, "streams": [{"stride": 36, "f32": data}],
            "pixel_textures": {"s0": texture(256, stone)}, "pixel_samplers": {"s0": SAMPLER},
            "pixel_constants": {"c0": [0.36, 0.48, 0.8, 0], "c1": [0.8, 0.25, 0, 0]},
            "states": {"ZENABLE": False, "CULLMODE": "NONE"}}


def p2():
    decl = [element(0, "FLOAT4", "POSITION", 0), element(16, "FLOAT3", "TEXCOORD", 0),
            element(28, "FLOAT3", "TEXCOORD", 1)]
    data = []
    for (x, y) in [(-1, 1), (1, 1), (-1, -1), (1, -1)]:
        # clip-space position, the world position (a plane at z = 0) and a tilted normal
        data += [x, y, 0.5, 1.0, x * 1.6, y * 0.9, 0.0, x * 0.3, y * 0.3, 1.0]
    lights = {}
    for i, (pos, colour) in enumerate([([-1.2, 0.6, 0.8], [0.45, 0.15, 0.1]), ([1.1, 0.5, 0.6], [0.1, 0.4, 0.15]),
                                       ([0.0, -0.7, 0.5], [0.15, 0.2, 0.5]), ([0.4, 0.2, 1.5], [0.25, 0.25, 0.2])]):
        lights[f"c{2 * i}"] = pos + [1]
        lights[f"c{2 * i + 1}"] = colour + [1]
    lights["c8"] = [0.0, 0.0, 3.0, 1]       # the eye
    lights["c9"] = [24.0, 0.6, 0.03, 1]     # specular power, specular weight, ambient
    return {"width": W, "height": H, "clear": {"color": "0xff000000"}, "depth_stencil": None,
            "shader": "p2_phong.vs.asm", "pixel_shader": "p2_phong.ps.asm",
            "primitive": "TRIANGLESTRIP", "vertex_count": 4,
            "declaration": decl, "streams": [{"stride": 40, "f32": data}],
            "pixel_constants": lights, "states": {"ZENABLE": False, "CULLMODE": "NONE"}}


def p3():
    decl = [POSITIONT, element(16, "FLOAT2", "TEXCOORD", 0), element(24, "FLOAT3", "TEXCOORD", 1)]
    # t1: the light vector, biased into 0..1 as ps_1_x lighting passes it (_bx2 undoes it)
    data = screen_quad(lambda u, v: [u * 8, v * 8 * H / W, 0.5 + 0.3 * (u - 0.5), 0.5 + 0.3 * (v - 0.5), 0.9])
    return {"width": W, "height": H, "clear": {"color": "0xff000000"}, "depth_stencil": None,
            "pixel_shader": "p3_bump.ps.asm", "primitive": "TRIANGLESTRIP", "vertex_count": 4,
            "declaration": decl, "streams": [{"stride": 36, "f32": data}],
            "pixel_textures": {"s0": texture(256, bumps), "s2": texture(256, stone)},
            "pixel_samplers": {"s0": SAMPLER, "s2": SAMPLER},
            "states": {"ZENABLE": False, "CULLMODE": "NONE"}}


def p4(count):
    rng = random.Random(1234)
    data = []
    for _ in range(count):
        cx, cy = rng.uniform(-20, W + 20), rng.uniform(-20, H + 20)
        z = rng.uniform(0.05, 0.95)
        colour = 0xFF000000 | rng.getrandbits(24)
        a = rng.uniform(0, 2 * math.pi)
        for k in range(3):
            # an equilateral triangle of circumradius 25 (area 812 pixels), clockwise on screen
            t = a + k * 2 * math.pi / 3
            data.append((cx + 25 * math.cos(t), cy + 25 * math.sin(t), z, colour))
    raw = bytearray()
    for (x, y, z, colour) in data:
        raw += struct.pack("<ffffI", x, y, z, 1.0, colour)
    decl = [POSITIONT, element(16, "D3DCOLOR", "COLOR", 0)]
    return {"width": W, "height": H, "clear": {"color": "0xff000000", "z": 1.0},
            "pixel_shader": "p4_flat.ps.asm", "primitive": "TRIANGLELIST", "vertex_count": 3 * count,
            "declaration": decl, "streams": [{"stride": 20, "hex": raw.hex()}],
            "states": {"ZENABLE": True, "ZWRITEENABLE": True, "ZFUNC": "LESSEQUAL", "CULLMODE": "NONE"}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/dxso-pixel-bench")
    ap.add_argument("--triangles", type=int, default=10_000)
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    if os.path.commonpath([out, os.path.dirname(os.path.dirname(HERE))]) == os.path.dirname(os.path.dirname(HERE)):
        sys.exit(f"{out}: write the scenes outside the repository (they are tens of MB)")
    os.makedirs(out, exist_ok=True)
    for name in ["p1_textured.ps.asm", "p2_phong.vs.asm", "p2_phong.ps.asm", "p3_bump.ps.asm", "p4_flat.ps.asm"]:
        with open(os.path.join(HERE, name)) as src, open(os.path.join(out, name), "w") as dst:
            dst.write(src.read())
    for name, scene in [("p1_textured", p1()), ("p2_phong", p2()), ("p3_bump", p3()),
                        ("p4_triangles", p4(args.triangles))]:
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(scene, f)
        print(os.path.join(out, name + ".json"))


if __name__ == "__main__":
    main()
