#!/usr/bin/env python3
"""The pixel benchmark's peer: P1-P4 (make_scenes.py) drawn with hand-written WGSL render
pipelines on Mesa's lavapipe through the Python `wgpu` package, side by side with
`dxso bench` on the same scene files in the same run.

Each scene's vertices, textures and constants are read from its JSON, so both engines draw
the same work: P1 a textured and lit full-screen quad, P2 per-pixel Blinn-Phong over 4
lights, P3 a bump-mapped quad, P4 10,000 depth-tested triangles. A frame is one render pass
(clear, then the draw) into a 1920x1080 BGRA8 target (P4 with a Depth32Float buffer),
submitted and waited for by mapping a small buffer copied from the target at the end of the
same submission. Reported: the median frame time of --reps frames after a warm-up, and
pixels a second (the frame's pixels over the frame time, as `dxso bench` counts them).

Usage: python3 peer_lavapipe.py [--scenes /tmp/dxso-pixel-bench] [--reps 5]
                                [--dxso target/release/dxso] [--rounds 3] [--json out.json]
Needs: mesa-vulkan-drivers, `pip install wgpu numpy`.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import wgpu

SCENES = ["p1_textured", "p2_phong", "p3_bump", "p4_triangles"]

# Positions given in D3D9 screen space (POSITIONT: pixel centres at integers) to clip space.
SCREEN = """
@group(0) @binding(0) var<uniform> c: array<vec4<f32>, 16>;
fn clip_from_screen(p: vec4<f32>) -> vec4<f32> {
    let size = vec2<f32>(1920.0, 1080.0);
    let xy = (p.xy + vec2<f32>(0.5, 0.5)) / size * vec2<f32>(2.0, -2.0) + vec2<f32>(-1.0, 1.0);
    return vec4<f32>(xy, p.z, 1.0);
}
"""

P1 = SCREEN + """
@group(0) @binding(1) var s0: sampler;
@group(0) @binding(2) var t0: texture_2d<f32>;
struct V { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32>, @location(1) n: vec3<f32> }
@vertex fn vs(@location(0) p: vec4<f32>, @location(1) uv: vec2<f32>, @location(2) n: vec3<f32>) -> V {
    return V(clip_from_screen(p), uv, n);
}
@fragment fn fs(v: V) -> @location(0) vec4<f32> {
    let texel = textureSample(t0, s0, v.uv);
    let k = clamp(dot(normalize(v.n), c[0].xyz), 0.0, 1.0) * c[1].x + c[1].y;
    return vec4<f32>(texel.rgb * k, texel.a);
}
"""

P2 = SCREEN + """
struct V { @builtin(position) pos: vec4<f32>, @location(0) world: vec3<f32>, @location(1) n: vec3<f32> }
@vertex fn vs(@location(0) p: vec4<f32>, @location(1) world: vec3<f32>, @location(2) n: vec3<f32>) -> V {
    return V(p, world, n);
}
@fragment fn fs(v: V) -> @location(0) vec4<f32> {
    let n = normalize(v.n);
    let view = normalize(c[8].xyz - v.world);
    var colour = vec3<f32>(c[9].z);
    for (var i = 0; i < 4; i++) {
        let l = normalize(c[2 * i].xyz - v.world);
        let h = normalize(l + view);
        let k = clamp(dot(n, l), 0.0, 1.0) + c[9].y * pow(clamp(dot(n, h), 0.0, 1.0), c[9].x);
        colour += c[2 * i + 1].xyz * k;
    }
    return vec4<f32>(colour, c[9].w);
}
"""

P3 = SCREEN + """
@group(0) @binding(1) var s0: sampler;
@group(0) @binding(2) var t0: texture_2d<f32>;
@group(0) @binding(3) var t2: texture_2d<f32>;
struct V { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32>, @location(1) l: vec3<f32> }
@vertex fn vs(@location(0) p: vec4<f32>, @location(1) uv: vec2<f32>, @location(2) l: vec3<f32>) -> V {
    return V(clip_from_screen(p), uv, l);
}
@fragment fn fs(v: V) -> @location(0) vec4<f32> {
    let n = textureSample(t0, s0, v.uv).xyz * 2.0 - 1.0;
    let d = clamp(dot(n, v.l * 2.0 - 1.0), 0.0, 1.0);
    // ps_1_4's phase drops the temporaries' alpha (dxso makes it 0): r0.a * base.a is 0.
    return vec4<f32>(textureSample(t2, s0, v.uv).rgb * d, 0.0);
}
"""

P4 = SCREEN + """
struct V { @builtin(position) pos: vec4<f32>, @location(0) colour: vec4<f32> }
@vertex fn vs(@location(0) p: vec4<f32>, @location(1) bgra: vec4<f32>) -> V {
    return V(clip_from_screen(p), bgra.zyxw);
}
@fragment fn fs(v: V) -> @location(0) vec4<f32> {
    return v.colour;
}
"""

WGSL = {"p1_textured": P1, "p2_phong": P2, "p3_bump": P3, "p4_triangles": P4}
VERTEX_FORMATS = {"FLOAT2": "float32x2", "FLOAT3": "float32x3", "FLOAT4": "float32x4",
                  "D3DCOLOR": "unorm8x4"}


def stream_bytes(stream):
    if "f32" in stream:
        return np.asarray(stream["f32"], np.float32).tobytes()
    return bytes.fromhex(stream["hex"])


def constants(scene):
    c = np.zeros((16, 4), np.float32)
    for name, value in scene.get("pixel_constants", {}).items():
        c[int(name[1:])] = value
    return c


class Peer:
    """float_textures: hold the textures as rgba32float (the texel values over 255), as
    dxso-gpu uploads every texture, instead of bgra8unorm."""

    def __init__(self, float_textures=False):
        adapters = [a for a in wgpu.gpu.enumerate_adapters_sync()
                    if a.info["backend_type"] == "Vulkan" and a.info["adapter_type"] == "CPU"]
        if not adapters:
            sys.exit("no Vulkan CPU adapter (lavapipe) found: apt-get install mesa-vulkan-drivers")
        self.adapter = adapters[0]
        self.float_textures = float_textures
        self.device = self.adapter.request_device_sync(
            required_features=["float32-filterable"] if float_textures else [])
        self.staging = self.device.create_buffer(
            size=256, usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST)

    def texture(self, t):
        d = self.device
        fmt = "rgba32float" if self.float_textures else "bgra8unorm"
        tex = d.create_texture(size=(t["width"], t["height"], 1), format=fmt,
                               usage=wgpu.TextureUsage.TEXTURE_BINDING | wgpu.TextureUsage.COPY_DST)
        # A8R8G8B8's bytes in memory are B, G, R, A: a bgra8unorm texture holds them as they are.
        data = np.asarray(t["levels"][0], np.uint8)
        texel = 4
        if self.float_textures:
            data = (data.reshape(-1, 4)[:, [2, 1, 0, 3]].astype(np.float32) / 255).astype(np.float32)
            texel = 16
        d.queue.write_texture({"texture": tex}, data.tobytes(), {"bytes_per_row": texel * t["width"]},
                              (t["width"], t["height"], 1))
        return tex

    def prepare(self, name, scene):
        """The pipeline, bind group, vertex buffer and targets of one scene."""
        d = self.device
        w, h = scene["width"], scene["height"]
        module = d.create_shader_module(code=WGSL[name])
        decl = scene["declaration"]
        stream = scene["streams"][0]
        attributes = [{"shader_location": i, "offset": e["offset"],
                       "format": VERTEX_FORMATS.get(e["type"], "float32x4")}
                      for i, e in enumerate(decl)]
        depth = scene.get("states", {}).get("ZENABLE", False)
        pipeline = d.create_render_pipeline(
            layout="auto",
            vertex={"module": module, "entry_point": "vs",
                    "buffers": [{"array_stride": stream["stride"], "attributes": attributes}]},
            primitive={"topology": "triangle-strip" if scene["primitive"] == "TRIANGLESTRIP"
                       else "triangle-list", "cull_mode": "none"},
            depth_stencil={"format": "depth32float", "depth_write_enabled": True,
                           "depth_compare": "less-equal"} if depth else None,
            fragment={"module": module, "entry_point": "fs", "targets": [{"format": "bgra8unorm"}]},
        )
        entries = [{"binding": 0, "resource": {"buffer": d.create_buffer_with_data(
            data=constants(scene).tobytes(), usage=wgpu.BufferUsage.UNIFORM)}}]
        textures = scene.get("pixel_textures", {})
        if textures:
            entries.append({"binding": 1, "resource": d.create_sampler(
                mag_filter="linear", min_filter="linear", address_mode_u="repeat",
                address_mode_v="repeat")})
            for binding, slot in [(2, "s0"), (3, "s2")]:
                if slot in textures:
                    entries.append({"binding": binding,
                                    "resource": self.texture(textures[slot]).create_view()})
        # layout="auto" keeps only the bindings the shaders use.
        body = WGSL[name][len(SCREEN):]
        used = {0: "c[", 1: "s0", 2: "t0", 3: "t2"}
        entries = [e for e in entries if used[e["binding"]] in body.replace("var c:", "")]
        bind = d.create_bind_group(layout=pipeline.get_bind_group_layout(0),
                                   entries=entries) if entries else None
        vertices = d.create_buffer_with_data(data=stream_bytes(stream), usage=wgpu.BufferUsage.VERTEX)
        target = d.create_texture(size=(w, h, 1), format="bgra8unorm",
                                  usage=wgpu.TextureUsage.RENDER_ATTACHMENT | wgpu.TextureUsage.COPY_SRC)
        zbuf = d.create_texture(size=(w, h, 1), format="depth32float",
                                usage=wgpu.TextureUsage.RENDER_ATTACHMENT) if depth else None
        return pipeline, bind, vertices, scene["vertex_count"], target, zbuf

    def frame(self, prepared):
        """One frame, waited for; its wall time in seconds."""
        pipeline, bind, vertices, count, target, zbuf = prepared
        d = self.device
        enc = d.create_command_encoder()
        depth = None
        if zbuf is not None:
            depth = {"view": zbuf.create_view(), "depth_clear_value": 1.0,
                     "depth_load_op": "clear", "depth_store_op": "store"}
        rp = enc.begin_render_pass(
            color_attachments=[{"view": target.create_view(), "clear_value": (0, 0, 0, 1),
                                "load_op": "clear", "store_op": "store"}],
            depth_stencil_attachment=depth)
        rp.set_pipeline(pipeline)
        if bind is not None:
            rp.set_bind_group(0, bind)
        rp.set_vertex_buffer(0, vertices)
        rp.draw(count)
        rp.end()
        enc.copy_texture_to_buffer({"texture": target, "origin": (960, 540, 0)},
                                   {"buffer": self.staging, "bytes_per_row": 256}, (1, 1, 1))
        t0 = time.perf_counter()
        d.queue.submit([enc.finish()])
        self.staging.map_sync(wgpu.MapMode.READ)
        self.staging.unmap()
        return time.perf_counter() - t0


def read_target(peer, prepared):
    """The peer's frame as a (1080, 1920, 4) BGRA array."""
    target = prepared[4]
    d = peer.device
    buf = d.create_buffer(size=1920 * 1080 * 4, usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST)
    enc = d.create_command_encoder()
    enc.copy_texture_to_buffer({"texture": target}, {"buffer": buf, "bytes_per_row": 1920 * 4},
                               (1920, 1080, 1))
    d.queue.submit([enc.finish()])
    buf.map_sync(wgpu.MapMode.READ)
    out = np.frombuffer(buf.read_mapped(), np.uint8).reshape(1080, 1920, 4).copy()
    buf.unmap()
    return out


def dxso_image(dxso, path):
    """dxso's frame of the scene at `path` as a (1080, 1920, 4) BGRA array (through a DDS)."""
    out = os.path.join(os.path.dirname(path), "check.dds")
    subprocess.run([dxso, "draw", path, "-o", out], check=True, capture_output=True)
    with open(out, "rb") as f:
        data = f.read()
    return np.frombuffer(data[-1920 * 1080 * 4:], np.uint8).reshape(1080, 1920, 4)


def dxso_bench(dxso, paths, reps):
    out = subprocess.run([dxso, "bench", *paths, "--repeat", str(reps), "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    rows = json.loads(out)
    rows = rows.get("results", rows) if isinstance(rows, dict) else rows
    return {os.path.splitext(os.path.basename(r["scene"]))[0]: r["frame_s"] for r in rows}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", default="/tmp/dxso-pixel-bench")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of both engines")
    ap.add_argument("--dxso", default=None, help="also run `DXSO bench` on the scenes, in turn")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    with open("/proc/loadavg") as f:
        print("loadavg at start:", " ".join(f.read().split()[:3]))
    peer = Peer()
    print("adapter:", peer.adapter.info["device"])
    paths = [os.path.join(args.scenes, n + ".json") for n in SCENES]
    scenes = {}
    for n, p in zip(SCENES, paths):
        with open(p) as f:
            scenes[n] = peer.prepare(n, json.load(f))
    if args.dxso:
        # The same work: the two frames, channel by channel (8-bit steps).
        for n, p in zip(SCENES, paths):
            peer.frame(scenes[n])
            diff = np.abs(read_target(peer, scenes[n]).astype(int) - dxso_image(args.dxso, p).astype(int))
            print(f"{n}: frames differ by {diff.mean():.2f} on average, at most {diff.max()}; "
                  f"{(diff.max(axis=2) > 2).mean() * 100:.2f}% of pixels by more than 2")
    times = {n: {"lavapipe": [], "dxso": []} for n in SCENES}
    for _ in range(args.rounds):
        for n in SCENES:
            peer.frame(scenes[n])  # warm-up
            times[n]["lavapipe"].append(statistics.median(peer.frame(scenes[n]) for _ in range(args.reps)))
        if args.dxso:
            for n, t in dxso_bench(args.dxso, paths, args.reps).items():
                times[n]["dxso"].append(t)
    pixels = 1920 * 1080
    print(f"\n{'scene':<14} {'lavapipe ms':>12} {'M px/s':>8} {'dxso ms':>9} {'M px/s':>8} {'dxso/lavapipe':>14}")
    for n in SCENES:
        lp = statistics.median(times[n]["lavapipe"])
        line = f"{n:<14} {lp * 1e3:>12.1f} {pixels / lp / 1e6:>8.1f}"
        if times[n]["dxso"]:
            dx = statistics.median(times[n]["dxso"])
            line += f" {dx * 1e3:>9.1f} {pixels / dx / 1e6:>8.1f} {lp / dx:>13.2f}x"
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pixels": pixels, "frame_s": times}, f, indent=1)


if __name__ == "__main__":
    main()
