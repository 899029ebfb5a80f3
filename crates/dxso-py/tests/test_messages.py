"""The same bad input gives the same message in every face: the command line (`dxso translate`),
Python (`dxso.translate`) and the C library (`dxso_translate`, through ctypes), each naming the
shader its own way (the file, `<string>`, `<input>`). The messages come from the library
(`Source::rejection`, `SourceError::render`), so a face that writes its own fails here."""
import ctypes

import dxso
import pytest

BAD = {
    # the validator refuses it
    "invalid": "vs_2_0\ndcl_position v0\ndcl_normal v1\nadd r0, v0, v1\nmov oPos, r0\n",
    # the assembler refuses it
    "unassembled": "vs_2_0\ndcl_position v0\nmvo oPos, v0\n",
    # the reader refuses it (bytecode without its end token)
    "unread": "fffe0200 0200001f 80000000 900f0000",
}


class Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def python_message(source):
    with pytest.raises(dxso.Error) as e:
        dxso.translate(source.encode())  # bytes: text or tokens, as a file is read
    return str(e.value).replace("<string>", "NAME").replace("<bytes>", "NAME")


def c_message(lib, source):
    data = source.encode()
    code, json = Buffer(), ctypes.c_char_p()
    status = lib.dxso_translate(data, ctypes.c_size_t(len(data)), 0, 0,
                                ctypes.byref(code), ctypes.byref(json))
    assert status == 1  # DXSO_STATUS_INPUT
    return lib.dxso_last_error().decode().replace("<input>", "NAME")


def cli_message(cli, tmp_path, source):
    path = tmp_path / "shader.asm"
    path.write_text(source)
    r = cli(["translate", str(path), "--to", "wgsl"])
    assert r.returncode == 1
    return r.stderr.decode().rstrip("\n").replace(str(path), "NAME")


@pytest.mark.parametrize("case", sorted(BAD))
def test_every_face_says_the_same(case, cli, clib, tmp_path):
    source = BAD[case]
    py = python_message(source)
    assert py == c_message(clib, source)
    assert py == cli_message(cli, tmp_path, source)
    assert "NAME" in py and "error" in py
