"""The cost of a Python `Device.draw` against the Rust call it wraps (`Device::draw`, as
`dxso bench` times it), on the W1 transform scene with 100 and 1,000,000 vertices.

    DXSO_BIN=target/release/dxso python crates/dxso-py/examples/overhead.py [--repeat 31]

Both sides draw the same scene on the same number of threads; each prints the median of
`--repeat` draws after one warm-up draw. The Python side's stream is a NumPy array read in
place (no copy); its draw returns a new float32 array (vertices, 2, 4).
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import dxso

# ../shared beside the repository.
W1 = pathlib.Path(__file__).resolve().parents[3].parent / "shared" / "bench" / "w1_transform.asm"


def scene(n, directory):
    rng = np.random.default_rng(7)
    v = np.empty((n, 8), np.float32)
    v[:, 0:3] = rng.uniform(-10, 10, (n, 3))
    v[:, 3] = 1
    v[:, 4:8] = rng.uniform(0, 1, (n, 4))
    m = np.eye(4, dtype=np.float32) * 0.5
    (directory / f"w1_{n}.bin").write_bytes(v.tobytes())
    description = {
        "shader": str(W1),
        "vertex_count": n,
        "declaration": [
            {"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION", "usage_index": 0},
            {"stream": 0, "offset": 16, "type": "FLOAT4", "usage": "COLOR", "usage_index": 0},
        ],
        "streams": [{"stride": 32, "file": f"w1_{n}.bin"}],
        "constants": {f"c{k}": [float(x) for x in m[k]] for k in range(4)},
    }
    path = directory / f"w1_{n}.json"
    path.write_text(json.dumps(description))
    return path, v, m


def rust_median(exe, path, repeat):
    out = subprocess.run([exe, "bench", str(path), "--repeat", str(repeat), "--format", "json"],
                         capture_output=True, check=True, text=True)
    return json.loads(out.stdout)["results"][0]["median_s"]


def python_median(v, m, n, repeat):
    d = dxso.Device()
    d.set_shader(W1.read_text())
    d.set_declaration([(0, 0, "FLOAT4", "POSITION", 0), (0, 16, "FLOAT4", "COLOR", 0)])
    d.set_stream(0, v, stride=32)
    assert not d.stream_info(0)["copied"]
    d.set_constant(0, m)
    d.draw(n)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        d.draw(n)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=31)
    args = p.parse_args()
    exe = os.environ.get("DXSO_BIN", "dxso")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (100, 1_000_000):
            path, v, m = scene(n, pathlib.Path(tmp))
            rust = rust_median(exe, path, args.repeat)
            py = python_median(v, m, n, args.repeat)
            print(f"{n:>9} vertices: Rust {rust * 1e6:10.1f} us  Python {py * 1e6:10.1f} us  "
                  f"overhead {(py - rust) * 1e6:+9.1f} us ({py / rust:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
