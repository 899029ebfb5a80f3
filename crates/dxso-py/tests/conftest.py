"""Fixtures for the pytest suite of the `dxso` Python package.

The suite runs against an installed wheel (`.ci/run` builds it with maturin). Tests that
compare with the command line need the `dxso` binary: `DXSO_BIN`, or `target/debug/dxso`
of this repository. Tests that read `../shared` skip with a notice when it is missing, and
fail instead under `CI=true`, as the Rust suites do.
"""
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
IN_CI = os.environ.get("CI") in ("true", "1")


def _missing(what):
    if IN_CI:
        pytest.fail(f"{what} is missing, and CI=true requires it")
    pytest.skip(f"notice: {what} not found; skipping")


@pytest.fixture
def shared():
    """`../shared` beside the repository."""
    d = REPO.parent / "shared"
    if not d.exists():
        _missing(str(d))
    return d


def _exe():
    return os.environ.get("DXSO_BIN") or str(
        pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "debug" / "dxso"
    )


@pytest.fixture
def clib():
    """The C library (libdxso.so beside the `dxso` binary: `cargo build -p dxso-capi`)."""
    import ctypes

    path = pathlib.Path(_exe()).with_name("libdxso.so")
    if not path.exists():
        _missing(f"the C library ({path})")
    lib = ctypes.CDLL(str(path))
    lib.dxso_last_error.restype = ctypes.c_char_p
    return lib


@pytest.fixture
def cli():
    """Run the `dxso` command line: cli(args, stdin=None) -> CompletedProcess (bytes)."""
    exe = _exe()
    if not os.path.exists(exe):
        _missing(f"the dxso binary ({exe})")

    def run(args, stdin=None):
        return subprocess.run([exe, *args], input=stdin, capture_output=True)

    return run
