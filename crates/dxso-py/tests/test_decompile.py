"""decompile: a shader as readable HLSL, as `dxso decompile` prints it."""
import os
import pathlib
import subprocess

import pytest

import dxso

VS = """// Parameters:
//
//   float4x4 WorldViewProj;
//
// Registers:
//
//   Name          Reg   Size
//   ------------- ----- ----
//   WorldViewProj c0       4
//
vs_2_0
dcl_position v0
dp4 oPos.x, v0, c0
dp4 oPos.y, v0, c1
dp4 oPos.z, v0, c2
dp4 oPos.w, v0, c3
"""


def test_a_listing_decompiles_with_its_headers_names():
    hlsl = dxso.decompile(VS)
    assert "float4x4 WorldViewProj : register(c0);" in hlsl
    assert "o.position = mul(i.position, WorldViewProj);" in hlsl
    assert "float4 position : POSITION;" in hlsl


def test_dialects_and_asm_comments():
    glslang = dxso.decompile(VS, dialect="glslang")
    assert "float4 position : SV_Position;" in glslang
    commented = dxso.decompile(VS, asm_comments=True)
    assert "// dp4 oPos.x, v0, c0" in commented
    with pytest.raises(dxso.Error):
        dxso.decompile(VS, dialect="msl")


def test_bytecode_and_shader_objects_decompile_too():
    ps = "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n"
    text = dxso.decompile(ps)
    assert "o.color0 = tex2D(s0, i.texcoord0.xy);" in text
    assert dxso.decompile(dxso.assemble(ps)) == text
    assert dxso.decompile(dxso.Shader(ps)) == text


def test_an_invalid_shader_raises_validation_error():
    with pytest.raises(dxso.ValidationError):
        dxso.decompile("vs_2_0\nmov oPos, r3\n")


def test_the_same_text_as_the_command_line(tmp_path):
    exe = os.environ.get("DXSO_BIN") or str(pathlib.Path(__file__).resolve().parents[3] / "target/debug/dxso")
    if not os.path.exists(exe):
        pytest.skip("notice: the dxso binary is not built; skipping")
    src = tmp_path / "vs.asm"
    src.write_text(VS)
    out = subprocess.run([exe, "decompile", str(src)], capture_output=True, text=True, check=True)
    assert out.stdout == dxso.decompile(VS)
