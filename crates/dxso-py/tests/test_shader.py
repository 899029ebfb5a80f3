"""assemble, disassemble, validate, Shader, link: values from the README and the spec."""
import pytest

import dxso

# The README's example: `mov r0, -c0[a0.w+5].x` in vs_2_0, as Microsoft's assembler encodes it.
RELATIVE = "vs_2_0\nmov r0, -c0[a0.w+5].x\n"
RELATIVE_TOKENS = [0xFFFE0200, 0x03000001, 0x800F0000, 0xA1002005, 0xB0FF0000, 0x0000FFFF]

PASS = "vs_2_0\ndcl_position v0\nmov oPos, v0\n"


def words(data):
    return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]


def test_assemble_gives_microsofts_tokens():
    data = dxso.assemble(RELATIVE)
    assert isinstance(data, bytes)
    assert words(data) == RELATIVE_TOKENS


def test_assemble_error_is_the_cli_message(cli):
    bad = "vs_3_0\nmov r0, v17\nfoo\n"
    with pytest.raises(dxso.AssembleError) as e:
        dxso.assemble(bad)
    out = cli(["asm", "-"], stdin=bad.encode())
    assert out.returncode == 1
    assert str(e.value) == out.stderr.decode().replace("<stdin>", "<string>").rstrip()
    assert [(d.line, d.column, d.rule) for d in e.value.diagnostics] == [(2, 9, None), (3, 1, None)]
    assert e.value.diagnostics[1].message == "unknown instruction 'foo'"
    assert isinstance(e.value, dxso.Error) and isinstance(e.value, ValueError)


def test_disassemble_reads_binary_and_hex_and_round_trips():
    data = dxso.assemble(RELATIVE)
    text = dxso.disassemble(data)
    assert text.splitlines()[0].strip() == "vs_2_0"
    # printed as Microsoft's disassembler prints it: the offset folded into the register
    assert text == "    vs_2_0\n    mov r0, -c5[a0.w].x\n"
    assert dxso.assemble(text) == data
    hex_listing = "".join(f"{w:08x}\n" for w in RELATIVE_TOKENS)
    assert dxso.disassemble(hex_listing) == text
    assert dxso.disassemble(bytearray(data)) == text
    assert dxso.disassemble(memoryview(data)) == text


def test_disassemble_errors(cli):
    # No end token: the reader says so at the word past the end.
    data = dxso.assemble(PASS)[:-4]
    with pytest.raises(dxso.BytecodeError) as e:
        dxso.disassemble(data)
    out = cli(["dis", "-"], stdin=data)
    assert out.returncode == 1
    assert str(e.value) == out.stderr.decode().replace("<stdin>", "<bytes>").rstrip()
    (d,) = e.value.diagnostics
    assert d.word == 7 and d.line is None
    with pytest.raises(dxso.Error, match="unknown listing style"):
        dxso.disassemble(dxso.assemble(PASS), style="klingon")


def test_disassemble_unity_style_as_the_cli(cli):
    data = dxso.assemble("vs_2_0\ndef c0, 0.5, 1, 0, 0\ndcl_texcoord v0\nmul oPos, v0, c0.x\n")
    text = dxso.disassemble(data, style="unity")
    assert "def c0, 0.50000000, 1.00000000, 0, 0" in text
    assert "dcl_texcoord0 v0" in text
    out = cli(["dis", "-", "--style", "unity"], stdin=data)
    assert out.returncode == 0 and out.stdout.decode() == text
    assert dxso.assemble(text) == data


def test_validate_points_at_line_and_column():
    found = dxso.validate("vs_2_0\ndcl_position v0\ndcl_normal v1\nadd r0, v0, v1\nmov oPos, r0\n")
    assert [(d.severity, d.rule, d.line, d.column, d.instruction) for d in found] == [
        ("error", "V007", 4, 1, 2)
    ]
    assert found[0].message == "2 different v# registers in one instruction; vs_2_0 allows 1"
    assert str(found[0]) == "4:1: error[V007]: " + found[0].message
    assert dxso.validate(PASS) == []


def test_validate_bytecode_points_at_the_word():
    data = dxso.assemble("vs_2_0\ndcl_position v0\nmov oPos, c0\nmov oPos, c300\n")
    assert dxso.validate(data) == []
    (d,) = dxso.validate(data, caps="min")
    assert (d.rule, d.word, d.line, d.instruction) == ("V004", 7, None, 2)
    assert str(d) == "word 7: error[V004]: c300 is out of range: vs_2_0 has 256 c registers"


def test_validate_with_caps():
    shader = "vs_2_0\ndcl_position v0\nmul oPos, v0, c300\n"
    assert dxso.validate(shader) == []
    assert dxso.validate(shader, caps="max") == []
    low = dxso.validate(shader, caps="min")
    assert [(d.severity, d.line) for d in low] == [("error", 3)]
    assert [d.rule for d in dxso.validate(shader, caps={"MaxVertexShaderConst": 256})] == [low[0].rule]
    assert dxso.validate(shader, caps={"MaxVertexShaderConst": 512}) == []
    with pytest.raises(dxso.Error, match=r"MaxVertexShaderConst = 5 is outside 256\.\.8192"):
        dxso.validate(shader, caps={"MaxVertexShaderConst": 5})
    with pytest.raises(dxso.Error, match="unknown field"):
        dxso.validate(shader, caps={"MaxVertexShaderConstants": 256})
    with pytest.raises(dxso.Error):
        dxso.validate(shader, caps="medium")


def test_validate_reports_what_does_not_read():
    (d,) = dxso.validate("vs_2_0\nfoo\n")
    assert (d.severity, d.rule, d.line, d.column) == ("error", None, 2, 1)


def test_warnings_only_is_valid():
    found = dxso.validate("vs_2_0\ndcl_position v0\nmov oPos, v0\ndef c0, 1, 2, 3, 4\n")
    assert found and all(d.severity == "warning" for d in found)
    assert [d.rule for d in found] == ["V018"]


def test_shader_object():
    s = dxso.Shader(
        "vs_3_0\ndcl_position v0\ndcl_texcoord1 v1\ndcl_position o0\ndcl_texcoord2 o1.xy\n"
        "mov o0, v0\nmov o1.xy, v1\n"
    )
    assert (s.version, s.kind) == ("vs_3_0", "vs")
    assert [(e.semantic, e.register, e.mask) for e in s.inputs] == [
        ("POSITION0", "v0", "xyzw"), ("TEXCOORD1", "v1", "xyzw")
    ]
    assert [(e.semantic, e.usage, e.usage_index, e.register, e.mask) for e in s.outputs] == [
        ("POSITION0", "position", 0, "o0", "xyzw"), ("TEXCOORD2", "texcoord", 2, "o1", "xy")
    ]
    assert dxso.Shader(s.tokens).text == s.text
    assert bytes(s) == s.tokens
    old = dxso.Shader(PASS)
    assert [e.semantic for e in old.outputs] == ["POSITION0"] and old.outputs[0].register == "oPos"
    assert old.validate() == [] and old.validate("min") == []
    ps = dxso.Shader("ps_2_0\ndcl t0.xy\ndcl v0\nmov oC0, v0\n")
    assert ps.kind == "ps"
    assert [(e.semantic, e.usage, e.register, e.mask) for e in ps.outputs] == [("COLOR0", "color", "oC0", "xyzw")]
    assert [(e.semantic, e.register, e.mask) for e in ps.inputs] == [("TEXCOORD0", "t0", "xy"), ("COLOR0", "v0", "xyzw")]


def test_pixel_shader_outputs_colours_and_depth():
    ps3 = dxso.Shader("ps_3_0\ndef c0, 1, 0, 0, 1\nmov oDepth, c0.x\nmov oC2, c0\nmov oC0, c0\n")
    assert [(e.semantic, e.usage, e.usage_index, e.register) for e in ps3.outputs] == [
        ("COLOR0", "color", 0, "oC0"), ("COLOR2", "color", 2, "oC2"), ("DEPTH0", "depth", 0, "oDepth")
    ]
    # ps_1_x: the colour is r0, with the components the shader writes.
    ps1 = dxso.Shader("ps_1_1\ntex t0\nmov r0.rgb, t0\n")
    assert [(e.semantic, e.register, e.mask) for e in ps1.outputs] == [("COLOR0", "r0", "xyz")]
    ps14 = dxso.Shader(dxso.assemble("ps_1_4\ntexcrd r0.rgb, t0\ntexdepth r5\n"))
    assert [(e.semantic, e.register, e.mask) for e in ps14.outputs] == [("COLOR0", "r0", "xyz"), ("DEPTH0", "r5", "xy")]
    with pytest.raises(dxso.BytecodeError):
        dxso.Shader(b"\x00\x03\xfe\xff")


VS = "vs_3_0\ndcl_position o0\ndcl_texcoord0 o1.xy\ndcl_texcoord1 o2\nmov o0, c0\nmov o1.xy, c1\nmov o2, c2\n"
PS = "ps_3_0\ndcl_texcoord0 v0.xy\ndcl_texcoord1 v1.xyz\nmov r0, v0.xyxy\nadd r0, r0, v1.xyzx\nmov oC0, r0\n"


def test_link_maps_semantics():
    l = dxso.link(VS, PS)
    assert list(l.varyings) == ["TEXCOORD0", "TEXCOORD1"]
    t1 = l.varyings["TEXCOORD1"]
    assert (t1.vs.register, t1.vs.mask, t1.ps.register, t1.ps.mask) == ("o2", "xyzw", "v1", "xyz")
    assert [e.semantic for e in l.unused] == ["POSITION0"]
    assert l.warnings == []


def test_link_error_is_the_cli_message(cli, tmp_path):
    ps = PS.replace("dcl_texcoord1 v1.xyz", "dcl_texcoord5 v1.xyz")
    with pytest.raises(dxso.LinkError) as e:
        dxso.link(dxso.Shader(VS), ps)
    (tmp_path / "vs.asm").write_text(VS)
    (tmp_path / "ps.asm").write_text(ps)
    out = cli(["link", str(tmp_path / "vs.asm"), str(tmp_path / "ps.asm")])
    assert out.returncode == 1
    expected = out.stderr.decode()
    for f in ("vs.asm", "ps.asm"):
        expected = expected.replace(str(tmp_path / f), "<string>")
    assert str(e.value) == expected.rstrip()
    (d,) = e.value.diagnostics
    assert (d.rule, d.severity, d.line) == ("L002", "error", 3)


def test_link_needs_valid_shaders():
    with pytest.raises(dxso.ValidationError) as e:
        dxso.link("vs_3_0\ndcl_position o0\nmov o0, v0\n", PS)
    assert str(e.value).endswith("<string>: the shader does not validate")
    assert "error[V011]" in str(e.value)
    assert any(d.rule == "V011" for d in e.value.diagnostics)
