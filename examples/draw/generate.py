#!/usr/bin/env python3
"""Writes the example draw scenes of this folder (run it here: python3 generate.py); the
shaders they name are the .asm files beside it."""
import json, math
def dump(name, obj):
    open(name, 'w').write(json.dumps(obj, indent=1) + "\n")

def checker(n, a, b):
    out = []
    for y in range(n):
        for x in range(n):
            out += a if (x + y) % 2 == 0 else b
    return out

# 1. textured quads: ps_2_0 texld, POINT vs LINEAR, POSITIONT.
def quad_t(x0, y0, x1, y1):
    v = []
    for (x, y, u, w) in [(x0,y0,0,0),(x1,y0,1,0),(x0,y1,0,1),(x1,y1,1,1)]:
        v += [x, y, 0.5, 1, u, w]
    return v
tex = {"type": "2d", "format": "A8R8G8B8", "width": 4, "height": 4,
       "levels": [checker(4, [40, 40, 200, 255], [230, 230, 230, 255])]}
decl_t = [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITIONT", "usage_index": 0},
          {"stream": 0, "offset": 16, "type": "FLOAT2", "usage": "TEXCOORD", "usage_index": 0}]
draws = []
for (x0, filt, tint) in [(8, "POINT", [1, 1, 1, 1]), (136, "LINEAR", [1, 0.8, 0.6, 1])]:
    draws.append({"pixel_shader": "textured.ps.asm", "primitive": "TRIANGLESTRIP", "vertex_count": 4,
        "declaration": decl_t, "streams": [{"stride": 24, "f32": quad_t(x0 - 0.5, 8 - 0.5, x0 + 112 - 0.5, 120 - 0.5)}],
        "pixel_textures": {"s0": tex}, "pixel_samplers": {"s0": {"min_filter": filt, "mag_filter": filt}},
        "pixel_constants": {"c0": tint}})
dump('textured.scene.json', {"width": 256, "height": 128, "clear": {"color": "0xff202428"}, "draws": draws})

# 2. two-sided: vFace picks the colour; the strip's triangles alternate winding on screen.
pts = []
for i in range(6):
    a = i / 5.0 * math.pi
    x = -0.85 + 1.7 * i / 5.0
    twist = math.cos(a)  # the ribbon twists: winding flips where cos changes sign
    for s in (1, -1):
        pts += [x, 0.6 * s * twist, 0.5, 1.0, 0.9, 0.6 - 0.1 * i, 0.2 + 0.1 * i, 1.0]
dump('two_sided.scene.json', {"width": 256, "height": 128, "clear": {"color": "0xff101018"},
    "shader": "two_sided.vs.asm", "pixel_shader": "two_sided.ps.asm", "primitive": "TRIANGLESTRIP",
    "vertex_count": 12,
    "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION", "usage_index": 0},
                    {"stream": 0, "offset": 16, "type": "FLOAT4", "usage": "COLOR", "usage_index": 0}],
    "streams": [{"stride": 32, "f32": pts}], "states": {"CULLMODE": "NONE", "ZENABLE": False}})

# 3. fog: a ground plane in perspective, vertex fog from oFog (vs_2_0) and table fog (fixed).
# view-projection: camera at height 1 looking along +z, fov 60, aspect 2.
f = 1 / math.tan(math.radians(30)); aspect = 2.0; near, far = 0.1, 50.0
q = far / (far - near)
eye_y = 1.0; pitch = math.radians(10)
cp, sp = math.cos(pitch), math.sin(pitch)
view = [[1,0,0,0],[0,cp,-sp,-cp*eye_y],[0,sp,cp,-sp*eye_y],[0,0,0,1]]
proj = [[f/aspect,0,0,0],[0,f,0,0],[0,0,q,-q*near],[0,0,1,0]]
vp = [[sum(proj[i][k]*view[k][j] for k in range(4)) for j in range(4)] for i in range(4)]
ground = []
for (x, z, u, v) in [(-20,1,0,0),(20,1,1,0),(-20,40,0,1),(20,40,1,1)]:
    ground += [x, 0, z, 1, u, v]
start, end = 2.0, 30.0
draw_fog = {"shader": "fog.vs.asm", "pixel_shader": "fog.ps.asm", "primitive": "TRIANGLESTRIP", "vertex_count": 4,
    "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION", "usage_index": 0},
                    {"stream": 0, "offset": 16, "type": "FLOAT2", "usage": "TEXCOORD", "usage_index": 0}],
    "streams": [{"stride": 24, "f32": ground}],
    "constants": {"c0": vp[0], "c1": vp[1], "c2": vp[2], "c3": vp[3], "c4": [start, end, 1 / (end - start), 0]},
    "states": {"CULLMODE": "NONE", "FOGENABLE": True, "FOGCOLOR": "0xffb0c0d0"},
    "viewport": {"x": 0, "y": 0, "width": 256, "height": 128, "min_z": 0, "max_z": 1}}
dump('fog.scene.json', {"width": 256, "height": 128, "clear": {"color": "0xffb0c0d0"}, "draws": [draw_fog]})

# 4. blending: translucent triangles over a gradient, four blend setups.
def tri_t(cx, cy, r, color):
    out = []
    for k in range(3):
        a = math.pi / 2 + k * 2 * math.pi / 3
        out += [cx + r * math.cos(a), cy - r * math.sin(a), 0.5, 1.0, color]
    return out
decl_c = [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITIONT", "usage_index": 0},
          {"stream": 0, "offset": 16, "type": "D3DCOLOR", "usage": "COLOR", "usage_index": 0}]
def colour_stream(vals):
    # FLOAT4 + D3DCOLOR as bytes: use hex.
    import struct
    b = b""
    for i in range(0, len(vals), 5):
        b += struct.pack("<4fI", *vals[i:i+4], vals[i+4])
    return {"stride": 20, "hex": b.hex()}
bg = []
for (x, y, c) in [(0, 0, 0xff303040), (256, 0, 0xff303040), (0, 128, 0xffc0c0a0), (256, 128, 0xffc0c0a0)]:
    bg += [x - 0.5, y - 0.5, 0.5, 1.0, c]
draws = [{"primitive": "TRIANGLESTRIP", "vertex_count": 4, "declaration": decl_c, "streams": [colour_stream(bg)],
          "states": {"ZENABLE": False}}]
setups = [({"SRCBLEND": "SRCALPHA", "DESTBLEND": "INVSRCALPHA"}, 0x80ff4020),
          ({"SRCBLEND": "ONE", "DESTBLEND": "ONE"}, 0xff204080),
          ({"SRCBLEND": "ONE", "DESTBLEND": "ONE", "BLENDOP": "MIN"}, 0xff80ff80),
          ({"SRCBLEND": "DESTCOLOR", "DESTBLEND": "ZERO"}, 0xffffc040)]
for i, (st, col) in enumerate(setups):
    s = {"ZENABLE": False, "CULLMODE": "NONE", "ALPHABLENDENABLE": True}
    s.update(st)
    draws.append({"primitive": "TRIANGLELIST", "vertex_count": 3, "declaration": decl_c,
                  "streams": [colour_stream(tri_t(40 + 58 * i, 64, 46, col))], "states": s})
dump('blending.scene.json', {"width": 256, "height": 128, "depth_stencil": None, "draws": draws})

# 5. bump mapping: ps_1_1 texbem perturbs an environment texture's coordinates by a V8U8 map.
n = 16
bump = []
for y in range(n):
    for x in range(n):
        du = math.sin(x / n * 2 * math.pi) * 100
        dv = math.cos(y / n * 2 * math.pi) * 100
        bump += [int(round(du)) & 255, int(round(dv)) & 255]
env = {"type": "2d", "format": "A8R8G8B8", "width": 8, "height": 8,
       "levels": [checker(8, [60, 120, 220, 255], [240, 220, 120, 255])]}
verts = []
for (x, y, u, v) in [(8, 8, 0, 0), (248, 8, 2, 0), (8, 120, 0, 1), (248, 120, 2, 1)]:
    verts += [x - 0.5, y - 0.5, 0.5, 1.0, u, v, u, v]
dump('bump.scene.json', {"width": 256, "height": 128, "clear": {"color": "0xff000000"},
    "pixel_shader": "bump.ps.asm", "primitive": "TRIANGLESTRIP", "vertex_count": 4,
    "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITIONT", "usage_index": 0},
                    {"stream": 0, "offset": 16, "type": "FLOAT2", "usage": "TEXCOORD", "usage_index": 0},
                    {"stream": 0, "offset": 24, "type": "FLOAT2", "usage": "TEXCOORD", "usage_index": 1}],
    "streams": [{"stride": 32, "f32": verts}],
    "pixel_textures": {"s0": {"type": "2d", "format": "V8U8", "width": n, "height": n, "levels": [bump]}, "s1": env},
    "pixel_samplers": {"s0": {"min_filter": "POINT", "mag_filter": "POINT"},
                       "s1": {"min_filter": "LINEAR", "mag_filter": "LINEAR"}},
    "stages": [{}, {"BUMPENVMAT00": 0.08, "BUMPENVMAT01": 0.0, "BUMPENVMAT10": 0.0, "BUMPENVMAT11": 0.08}]})

# 6. lit terrain: a displaced grid, normals from derivatives of the position, vFace.
grid = 24
verts = []
for j in range(grid):
    for i in range(grid):
        verts += [-1 + 2 * i / (grid - 1), 0.0, -1 + 2 * j / (grid - 1), 1.0]
idx = []
for j in range(grid - 1):
    for i in range(grid - 1):
        k = j * grid + i
        idx += [k, k + grid, k + 1, k + 1, k + grid, k + grid + 1]
eye = [0.0, 1.6, -2.4]; at = [0, 0, 0]
def sub(a, b): return [a[i] - b[i] for i in range(3)]
def norm(a):
    l = math.sqrt(sum(x * x for x in a)); return [x / l for x in a]
def cross(a, b): return [a[1]*b[2]-a[2]*b[1], a[2]*b[0]-a[0]*b[2], a[0]*b[1]-a[1]*b[0]]
def dot(a, b): return sum(a[i] * b[i] for i in range(3))
fw = norm(sub(at, eye)); r = norm(cross([0, 1, 0], fw)); u = cross(fw, r)
view = [r + [-dot(r, eye)], u + [-dot(u, eye)], fw + [-dot(fw, eye)], [0, 0, 0, 1]]
f = 1 / math.tan(math.radians(27.5)); aspect = 2.0; near, far = 0.1, 10.0; q = far / (far - near)
proj = [[f / aspect, 0, 0, 0], [0, f, 0, 0], [0, 0, q, -q * near], [0, 0, 1, 0]]
vp = [[sum(proj[i][k] * view[k][j] for k in range(4)) for j in range(4)] for i in range(4)]
dump('terrain.scene.json', {"width": 256, "height": 128, "clear": {"color": "0xff181a22"},
    "shader": "terrain.vs.asm", "pixel_shader": "terrain.ps.asm", "primitive": "TRIANGLELIST",
    "vertex_count": len(idx), "indices": idx,
    "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION", "usage_index": 0}],
    "streams": [{"stride": 16, "f32": [round(x, 6) for x in verts]}],
    "constants": {"c0": vp[0], "c1": vp[1], "c2": vp[2], "c3": vp[3], "c4": [0.25, 4.0, 3.0, 0.0]},
    "states": {"CULLMODE": "NONE"}})
