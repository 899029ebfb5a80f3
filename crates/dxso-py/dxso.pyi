"""dxso: Direct3D 9 shader bytecode — assemble, disassemble, validate, link, run vertex
shaders and whole draws on the CPU with NumPy arrays in and out, and translate shaders for GPUs.
"""

import os

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

BytesLike = Union[bytes, bytearray, memoryview]
ShaderLike = Union["Shader", str, BytesLike]
Caps = Union[str, Mapping[str, Any]]

INDEXEDDATA: int
"""D3DSTREAMSOURCE_INDEXEDDATA: `INDEXEDDATA | n` draws the geometry stream n times."""
INSTANCEDATA: int
"""D3DSTREAMSOURCE_INSTANCEDATA: `INSTANCEDATA | d` gives one element per d instances."""

class Error(ValueError):
    """Every error dxso raises. The message is what the dxso command line prints."""

class AssembleError(Error):
    """The text does not assemble."""
    diagnostics: List[Diagnostic]

class BytecodeError(Error):
    """The bytes are not a shader token stream."""
    diagnostics: List[Diagnostic]

class ValidationError(Error):
    """The shader does not validate."""
    diagnostics: List[Diagnostic]

class LinkError(Error):
    """The vertex shader does not feed the pixel shader."""
    diagnostics: List[Diagnostic]

class DeviceError(Error):
    """The device refused a state or a draw."""

class TranslationError(Error):
    """The GPU translation does not handle something in the shader."""

class Diagnostic:
    """One finding: a validation or link rule, or an assembly or bytecode error (rule None)."""
    severity: str
    """"error" or "warning"."""
    rule: Optional[str]
    """"V007", "L002", ...; None for assembly and bytecode errors."""
    message: str
    line: Optional[int]
    """1-based, when the shader came from text."""
    column: Optional[int]
    word: Optional[int]
    """Word offset, when the shader came from bytecode."""
    instruction: Optional[int]

class Element:
    """A register with a semantic."""
    semantic: str
    """"TEXCOORD0"."""
    usage: str
    usage_index: int
    register: str
    """"o2", "oPos", "v0", "t1"."""
    mask: str
    """"xyz"."""
    centroid: bool

class Shader:
    """A shader read from assembly text (str) or bytes (binary tokens, a hex listing, or text).

    Raises AssembleError or BytecodeError.
    """
    def __init__(self, data: ShaderLike) -> None: ...
    @property
    def version(self) -> str:
        """"vs_3_0", "ps_2_x", ..."""
    @property
    def kind(self) -> str:
        """"vs" or "ps"."""
    @property
    def tokens(self) -> bytes:
        """The token stream (little-endian 32-bit words)."""
    @property
    def text(self) -> str:
        """The disassembly."""
    @property
    def inputs(self) -> List[Element]:
        """A vertex shader's dcl inputs; a pixel shader's interpolated inputs."""
    @property
    def outputs(self) -> List[Element]:
        """A vertex shader's outputs; a pixel shader's colours (COLOR#: oC#, r0 in ps_1_x) and
        depth (DEPTH0: oDepth)."""
    def validate(self, caps: Optional[Caps] = None) -> List[Diagnostic]: ...
    def __bytes__(self) -> bytes: ...

class Varying:
    semantic: str
    vs: Element
    ps: Element

class Linkage:
    varyings: Dict[str, Varying]
    """Semantic -> Varying, in the pixel shader's order."""
    unused: List[Element]
    """Vertex-shader outputs the pixel shader does not read."""
    warnings: List[Diagnostic]

def assemble(text: str) -> bytes:
    """Assemble text into bytecode. Raises AssembleError."""

def disassemble(data: Union[BytesLike, str], style: str = "microsoft") -> str:
    """The listing of bytecode (binary tokens, or a hex listing); style "microsoft" or "unity".

    Raises BytecodeError.
    """

def validate(data_or_text: ShaderLike, caps: Optional[Caps] = None) -> List[Diagnostic]:
    """Findings against caps: "max" (default), "min", or a dict of D3DCAPS9 fields.

    An empty list, or warnings only, means valid.
    """

def link(vs: ShaderLike, ps: ShaderLike, software: bool = False) -> Linkage:
    """Link a vertex shader to a pixel shader by semantic. Raises ValidationError, LinkError."""

def translate(
    data: ShaderLike, to: str = "wgsl", float: str = "strict"
) -> Tuple[Union[str, bytes], Dict[str, Any]]:
    """Translate a vertex or pixel shader (any version) for GPUs, as `dxso translate` does.

    `to`: "wgsl", "spirv", "glsl", "msl" or "hlsl"; `float`: "strict" (D3D9's arithmetic as
    dxso's CPU engine does it) or "ieee". Returns the code (str; bytes of little-endian
    32-bit words for "spirv") and the interface dict (constant buffers, samplers, inputs,
    outputs and their locations: the JSON of `dxso translate --interface`). Raises
    ValidationError (caps "max") or TranslationError."""

def decompile(data: ShaderLike, dialect: str = "fxc", asm_comments: bool = False) -> str:
    """Decompile a vertex or pixel shader (any version) to HLSL a person can read, as
    `dxso decompile` does.

    `dialect`: "fxc" (the D3D9 dialect of Microsoft's compiler) or "glslang" (the form
    `glslangValidator -D --hlsl-dx9-compatible` compiles); `asm_comments` puts each source
    instruction, as a comment, above the HLSL it became. Constants are named after the
    shader's constant table, or the header of an assembly listing. Raises ValidationError
    (caps "max") or TranslationError."""

def draw(scene: Union[Dict[str, Any], str, "os.PathLike[str]"]) -> List[npt.NDArray[np.float32]]:
    """Run a draw scene (`dxso draw`'s JSON format, as a dict or a path) on the CPU: each
    render target as an array of shape (height, width, 4)."""

def trace_pixel(
    scene: Union[Dict[str, Any], str, "os.PathLike[str]"], x: int, y: int
) -> List[Dict[str, Any]]:
    """The pixel debugger: for each draw that shades (x, y), a dict with `draw`, `inputs`
    (semantic -> 4 floats), `steps` (TraceStep list), `discarded`, `merge` (lines) and
    `written`."""

class TraceStep:
    instruction: int
    text: str
    active: bool
    """False when the vertex skipped it (execution mask or predicate)."""
    effect: str
    """"r0 = (1, 2, 3, 4)", "aL = 0", "not taken"."""

class Trace:
    vertex: int
    steps: List[TraceStep]
    outputs: npt.NDArray[np.float32]
    """(outputs, 4)."""
    semantics: List[str]
    error: Optional[str]

ArrayLike = Union[npt.ArrayLike, BytesLike]

class Device:
    """Software vertex processing: shader, constants, declaration, streams, indices,
    textures; `draw` runs the shader over the vertices. Setters raise DeviceError.

    Every method that takes an array checks its size from its shape before reading its data
    (a broadcast view whose shape implies gigabytes raises Error at once): constants at most
    what the registers hold, textures at most MAX_TEXTURE_SIZE and their levels the format's
    size, indices and copied streams at most 4 GiB - 1 bytes."""
    def __init__(self) -> None: ...
    def set_shader(self, shader: ShaderLike) -> None:
        """Bind a vertex shader; it must validate (caps "max"), else ValidationError."""
    def set_constant(self, start: int, values: npt.ArrayLike) -> None:
        """Float constants from c<start>: a 4-vector, or an (n, 4) array of n registers."""
    def set_constant_i(self, start: int, values: npt.ArrayLike) -> None: ...
    def set_constant_b(self, start: int, values: npt.ArrayLike) -> None: ...
    def set_declaration(self, elements: Sequence[Tuple[Any, ...]]) -> None:
        """(stream, offset, type, usage[, usage_index[, method]]) per element, e.g.
        (0, 0, "FLOAT3", "POSITION", 0)."""
    def set_stream(self, n: int, data: Optional[ArrayLike], stride: int = 0, offset: int = 0) -> None:
        """Bind stream n to a NumPy array (any dtype, any strides) or a bytes-like object; None
        unbinds. A C-contiguous array that owns its memory (or a view of one), and bytes, are
        read where they lie, not copied (any alignment): the device holds the array and makes
        it read-only until the stream is unbound or rebound or the device is freed (writing it
        or resizing it, even with refcheck=False, raises ValueError; unbinding restores the
        flag), so draws run with the GIL released. Anything else is copied when bound: a
        non-contiguous view, a bytearray, mmap or other buffer NumPy's flags cannot protect
        (at most 4 GiB - 1 bytes, checked from the shape first)."""
    def stream_info(self, n: int) -> Optional[Dict[str, Any]]:
        """What stream n reads: {"address", "nbytes", "copied", "offset", "stride"} ("address"
        is the array's own ctypes.data when it was not copied); None when unbound."""
    def set_stream_frequency(self, n: int, setting: int) -> None:
        """1, INDEXEDDATA | count, INSTANCEDATA | divider, or a plain divider."""
    def set_indices(self, indices: Optional[npt.ArrayLike]) -> None: ...
    def set_texture(
        self,
        n: int,
        levels: Optional[Union[npt.ArrayLike, Sequence[npt.ArrayLike]]],
        format: str = "A32B32G32R32F",
        kind: str = "2d",
    ) -> None:
        """A texture for sampler n: each level the format's texels in memory order, shaped
        (height, width, ...) for "2d", (6, size, size, ...) for "cube", (depth, height, width,
        ...) for "volume"."""
    def set_sampler_state(self, n: int, **states: Union[str, int, float]) -> None:
        """address_u/v/w, mag/min/mip_filter (names), border_color, mip_lod_bias,
        max_mip_level, max_anisotropy, element_index, dmap_offset."""
    def draw(self, vertex_count: int, instance_count: int = 1) -> Tuple[npt.NDArray[np.float32], List[str]]:
        """A float32 array (vertices, outputs, 4) — the bytes of `dxso run --format bin` — and
        each output register's semantics. Runs with the GIL released (bound streams are
        copies, bytes, or arrays held read-only: see set_stream)."""
    def trace(self, vertex: int, vertex_count: Optional[int] = None, instance_count: int = 1) -> Trace:
        """Every instruction vertex `vertex` executes, with what it wrote."""
