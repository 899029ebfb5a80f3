#!/usr/bin/env python3
"""Translation quality: dxso's translated shaders against hand-written WGSL of the same work,
on the same adapter (Mesa's lavapipe), in one run of alternating rounds.

Each round measures, in this order:
  - `dxso bench --gpu --float strict` and `--float ieee` on W1-W3 (../shared/bench's scenes)
    and P1-P3 (bench/pixel's scenes): W1-W3 as one compute dispatch over the resident
    inputs (`median_s`), P1-P3 as one frame (the clear and the draw) with resident data
    (`frame_s`);
  - the hand-written WGSL: ../shared/bench/peer_lavapipe.py on W1-W3 with the same N (its
    data are the scenes' own: the same generator and seed), and bench/pixel/peer_lavapipe.py's
    Peer on P1-P3 (the scenes' vertices, textures and constants, read from their JSON).

Both sides time one submission and the wait for it, with the data already on the GPU:
  - W: dxso encodes the dispatch, submits it and waits (`Device::poll`); the peer submits a
    dispatch plus a 16-byte copy of the output and waits by mapping that copy.
  - P: dxso records the clear and the draw, submits and waits (`Device::poll`); the peer
    submits the same pass plus a one-pixel copy and waits by mapping it. dxso draws into
    Rgba8Unorm (A8R8G8B8), the peer into Bgra8Unorm. dxso-gpu uploads every texture as
    Rgba32Float; the peer's P1 and P3 are measured twice, with bgra8unorm textures and with
    rgba32float ones (rows ", peer's textures rgba32float"): that ratio is the shader's alone.
Reported: per workload, the median over rounds of each round's median of --reps runs, and
translated / hand-written for Strict and Ieee. A ratio counts only from one run (the machine's
speed drifts).

Usage: python3 bench/gpu_translation.py [--dxso target/release/dxso] [--rounds 3] [--reps 5]
         [--n 1000000] [--w-scenes /tmp/dxso-bench] [--p-scenes /tmp/dxso-pixel-bench]
         [--json out.json]
Make the scenes first: python3 ../shared/bench/make_scenes.py --n 1000000 --out /tmp/dxso-bench
and python3 bench/pixel/make_scenes.py. Needs mesa-vulkan-drivers, `pip install wgpu numpy`.
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
W = [("W1", "w1", "transform"), ("W2", "w2", "skinning"), ("W3", "w3", "lighting")]
P = [("P1", "p1_textured"), ("P2", "p2_phong"), ("P3", "p3_bump")]
MODES = ["strict", "ieee"]


def load_pixel_peer():
    spec = importlib.util.spec_from_file_location(
        "pixel_peer", os.path.join(HERE, "pixel", "peer_lavapipe.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dxso_bench(dxso, paths, mode, reps):
    """Seconds per scene stem: a vertex scene's resident dispatch, a draw scene's frame."""
    out = subprocess.run([dxso, "bench", *paths, "--gpu", "--float", mode, "--repeat", str(reps),
                          "--format", "json", "--adapter", "llvmpipe"],
                         check=True, capture_output=True, text=True).stdout
    got = {}
    for r in json.loads(out)["results"]:
        stem = os.path.splitext(os.path.basename(r["scene"]))[0]
        if "frame_s" in r:
            got[stem] = r["frame_s"]
        else:
            if "harness_s" not in r:
                sys.exit(f"{stem}: dxso bench --gpu gave no resident figure (too many vertices?)")
            got[stem] = r["median_s"]
    return got


def w_peer(script, n, reps):
    """Seconds per workload name of the hand-written W1-W3 (median of reps dispatches)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "w.json")
        subprocess.run([sys.executable, script, "--n", str(n), "--reps", str(reps),
                        "--json", out], check=True, capture_output=True, text=True)
        with open(out) as f:
            runs = json.load(f)["runs"]
    return {r["workload"]: r["median_wall_s"] for r in runs}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dxso", default=os.path.join(REPO, "target", "release", "dxso"))
    ap.add_argument("--w-scenes", default="/tmp/dxso-bench")
    ap.add_argument("--p-scenes", default="/tmp/dxso-pixel-bench")
    ap.add_argument("--w-peer", default=os.path.join(REPO, "..", "shared", "bench", "peer_lavapipe.py"))
    ap.add_argument("--n", type=int, default=1_000_000, help="the W scenes' vertex count")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    with open("/proc/loadavg") as f:
        print("loadavg at start:", " ".join(f.read().split()[:3]))

    pixel = load_pixel_peer()
    # Two peers for P1-P3: textures as bgra8unorm (the natural choice), and as rgba32float,
    # the format dxso-gpu uploads every texture in (exact texel values for every D3D9
    # format), so that the ratio against the second is the translated code's alone.
    peers = {"wgsl": pixel.Peer(), "wgsl_f32": pixel.Peer(float_textures=True)}
    print("adapter:", peers["wgsl"].adapter.info["device"])
    prepared = {}
    for _, stem in P:
        with open(os.path.join(args.p_scenes, stem + ".json")) as f:
            scene = json.load(f)
        for kind, peer in peers.items():
            prepared[kind, stem] = peer.prepare(stem, scene)
    paths = [os.path.join(args.w_scenes, s + ".json") for _, s, _ in W]
    paths += [os.path.join(args.p_scenes, s + ".json") for _, s in P]

    rows = [(label, stem) for label, stem, _ in W] + P
    times = {label: {"strict": [], "ieee": [], "wgsl": []} for label, _ in rows}
    textured = {"P1", "P3"}  # P2 reads no texture: one peer is enough
    for label in textured:
        times[label]["wgsl_f32"] = []
    for k in range(args.rounds):
        for mode in MODES:
            got = dxso_bench(args.dxso, paths, mode, args.reps)
            for label, stem in rows:
                times[label][mode].append(got[stem])
        got = w_peer(args.w_peer, args.n, args.reps)
        for label, _, workload in W:
            times[label]["wgsl"].append(got[workload])
        for label, stem in P:
            for kind, peer in peers.items():
                if kind not in times[label]:
                    continue
                peer.frame(prepared[kind, stem])  # warm-up
                times[label][kind].append(statistics.median(
                    peer.frame(prepared[kind, stem]) for _ in range(args.reps)))
        print(f"round {k + 1}/{args.rounds} done", file=sys.stderr)

    with open("/proc/loadavg") as f:
        print("loadavg at end:", " ".join(f.read().split()[:3]))
    print(f"\n| workload | hand-written WGSL ms | Ieee ms | Strict ms | Ieee / WGSL | Strict / WGSL |")
    print("|---|---:|---:|---:|---:|---:|")
    table = {}
    for label, _ in rows:
        med = {m: statistics.median(v) for m, v in times[label].items()}
        table[label] = med
        for peer, name in [("wgsl", label), ("wgsl_f32", f"{label}, peer's textures rgba32float")]:
            if peer in med:
                print(f"| {name} | {med[peer] * 1e3:.1f} | {med['ieee'] * 1e3:.1f} | "
                      f"{med['strict'] * 1e3:.1f} | {med['ieee'] / med[peer]:.2f}x | "
                      f"{med['strict'] / med[peer]:.2f}x |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seconds": times, "medians": table}, f, indent=1)


if __name__ == "__main__":
    main()
