"""translate: a shader for GPUs (WGSL, SPIR-V, GLSL, MSL, HLSL) and its interface."""
import json
import struct

import pytest

import dxso

VS = "vs_2_0\ndcl_position v0\ndcl_texcoord0 v1\nm4x4 oPos, v0, c0\nrcp r0.x, v1.x\nmov oT0, r0.x\n"
PS = "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n"


def output(interface, register):
    return next(o for o in interface["outputs"] if o["register"] == register)


def test_a_vertex_shader_to_wgsl_with_its_interface():
    code, interface = dxso.translate(VS)
    assert isinstance(code, str) and "@vertex" in code and "fn vs_main" in code
    assert interface["stage"] == "vertex" and interface["version"] == "vs_2_0"
    assert [i["register"] for i in interface["inputs"]] == ["v0", "v1"]
    assert interface["float_constants"]["group"] == 0 and interface["float_constants"]["binding"] == 0
    position = output(interface, "oPos")["varyings"]
    assert position == [{"semantic": "POSITION0", "location": None, "builtin": "position", "components": "xyzw"}]
    assert output(interface, "oT0")["varyings"][0]["semantic"] == "TEXCOORD0"
    assert output(interface, "oT0")["varyings"][0]["location"] == 0
    # The same input as bytecode, or as a Shader, gives the same translation.
    assert dxso.translate(dxso.assemble(VS)) == (code, interface)
    assert dxso.translate(dxso.Shader(VS)) == (code, interface)


def test_every_target_and_both_float_modes():
    for to, marker in [("wgsl", "@vertex"), ("glsl", "void main"), ("msl", "vertex"), ("hlsl", "SV_Position")]:
        code, _ = dxso.translate(VS, to=to)
        assert isinstance(code, str) and marker in code, to
    strict, _ = dxso.translate(VS, float="strict")
    ieee, _ = dxso.translate(VS, float="ieee")
    assert strict != ieee  # rcp of 0 gives FLT_MAX only in strict


def test_spirv_is_bytes_of_little_endian_words():
    code, interface = dxso.translate(PS, to="spirv")
    assert isinstance(code, bytes) and len(code) % 4 == 0 and len(code) >= 20
    magic, version = struct.unpack_from("<II", code)
    assert magic == 0x07230203 and version >> 16 == 1
    assert interface["stage"] == "fragment"
    assert [s["register"] for s in interface["samplers"]] == [0] and interface["samplers"][0]["kind"] == "2d"
    assert output(interface, "oC0")["varyings"][0]["semantic"] == "COLOR0"


def test_the_same_as_the_command_line(cli, tmp_path):
    (tmp_path / "vs.asm").write_text(VS)
    (tmp_path / "ps.asm").write_text(PS)
    for name, to, flt in [("vs", "wgsl", "strict"), ("vs", "hlsl", "ieee"), ("ps", "spirv", "strict")]:
        out = cli(["translate", str(tmp_path / f"{name}.asm"), "--to", to, "--float", flt,
                   "-o", str(tmp_path / "code"), "--interface", str(tmp_path / "interface.json")])
        assert out.returncode == 0, out.stderr.decode()
        code, interface = dxso.translate((tmp_path / f"{name}.asm").read_text(), to=to, float=flt)
        expected = (tmp_path / "code").read_bytes()
        assert (code if isinstance(code, bytes) else code.encode()) == expected, (name, to)
        assert interface == json.loads((tmp_path / "interface.json").read_text())


def test_errors():
    bad = "vs_2_0\ndcl_position v0\ndcl_normal v1\nadd r0, v0, v1\nmov oPos, r0\n"
    with pytest.raises(dxso.ValidationError) as e:
        dxso.translate(bad)
    assert str(e.value) == (
        "<string>:4:1: error[V007]: 2 different v# registers in one instruction; vs_2_0 allows 1\n"
        "    add r0, v0, v1\n"
        "    ^\n"
        "<string>: the shader does not validate"
    )
    with pytest.raises(dxso.Error, match='unknown target "dxil"'):
        dxso.translate(VS, to="dxil")
    with pytest.raises(dxso.Error, match='unknown float mode "fast"'):
        dxso.translate(VS, float="fast")
    with pytest.raises(dxso.AssembleError):
        dxso.translate("vs_2_0\nfoo\n")
    assert issubclass(dxso.TranslationError, dxso.Error)
