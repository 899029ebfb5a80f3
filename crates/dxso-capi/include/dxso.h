/* dxso: Direct3D 9 shader bytecode from C and C++.
 *
 * Generated from crates/dxso-capi by cbindgen (tests/header.rs checks it never drifts;
 * DXSO_BLESS=1 cargo test -p dxso-capi --test header rewrites it). Do not edit.
 *
 * Conventions:
 * - Every function returns a DxsoStatus (or a value documented as never failing) and never
 *   unwinds into the caller: an internal failure is DXSO_STATUS_INTERNAL.
 * - After a failure, dxso_last_error() returns the message (the text the dxso command line
 *   prints for the same failure), valid until the next dxso call on the same thread.
 * - Each returned buffer says who owns it and which function frees it.
 * - Arguments are checked, not trusted: an enum parameter is a uint32_t that must be one of
 *   its enum's values, a count must fit in PTRDIFF_MAX bytes, a pointer must be aligned
 *   (else DXSO_STATUS_ARGUMENT). D3D9's BOOL is DxsoBool (int32_t; non-zero is true).
 *   What cannot be checked is the caller's to keep: each function's "Safety" paragraph.
 * - Threads: every function may be called from any thread. A DxsoDevice may be shared:
 *   each call locks it, so calls on one device run one after another, never interleaved;
 *   only dxso_device_free must not overlap another call on that device. Lists and buffers
 *   are read-only after they are returned (any number of readers) until they are freed.
 * - Sections: errors, buffers, shaders (assemble, disassemble, validate), signatures
 *   (inputs and outputs with semantics), translation for GPUs (dxso_translate: WGSL, SPIR-V,
 *   GLSL, MSL or HLSL plus the interface as JSON), the software vertex-processing device.
 */

#ifndef DXSO_H
#define DXSO_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/*
 `dxso_assemble` flag: build the constant table (CTAB) from the listing's `// Parameters:`
 header when the text carries no CTAB comment (`dxso asm --ctab`).
 */
#define DXSO_ASSEMBLE_CTAB 1

/*
 What a call did.
 */
typedef enum DxsoStatus {
  /*
   Success.
   */
  DXSO_STATUS_OK = 0,
  /*
   The input is wrong: text that does not assemble, bytes that are not a shader, a shader
   that does not validate, a state or draw the device refuses (as the command line's
   exit code 1).
   */
  DXSO_STATUS_INPUT = 1,
  /*
   A bad argument: a null or misaligned pointer where one is needed, text that is not
   UTF-8, a buffer too small, an index out of range, an enum parameter that is none of
   its enum's values, a count larger than any buffer can hold (more than PTRDIFF_MAX
   bytes).
   */
  DXSO_STATUS_ARGUMENT = 2,
  /*
   A bug in dxso (a panic, caught at the boundary). A device on which one happened
   refuses every later call with this status (free it and make another).
   */
  DXSO_STATUS_INTERNAL = 3,
} DxsoStatus;

/*
 How bad a finding is.
 */
typedef enum DxsoSeverity {
  /*
   The shader is refused: the runtime would not create it.
   */
  DXSO_SEVERITY_ERROR = 0,
  /*
   The shader is accepted, but something in it is likely a mistake.
   */
  DXSO_SEVERITY_WARNING = 1,
} DxsoSeverity;

/*
 Which signature `dxso_signature` lists (its `which`, a `uint32_t`).
 */
typedef enum DxsoSignatureKind {
  /*
   A vertex shader's declared inputs (`dcl_* v#`), a pixel shader's interpolated inputs.
   */
  DXSO_SIGNATURE_KIND_INPUTS = 0,
  /*
   A vertex shader's outputs (oPos, oD#, oT#, ... or vs_3_0's `o#`); a pixel shader's
   colours and depth: COLOR# (`oC#`; `r0` in ps_1_x) and DEPTH0 (`oDepth`).
   */
  DXSO_SIGNATURE_KIND_OUTPUTS = 1,
} DxsoSignatureKind;

/*
 The language `dxso_translate` writes (its `target`, a `uint32_t`).
 */
typedef enum DxsoTarget {
  /*
   WGSL text, as WebGPU takes it.
   */
  DXSO_TARGET_WGSL = 0,
  /*
   A binary SPIR-V module (little-endian 32-bit words).
   */
  DXSO_TARGET_SPIRV = 1,
  /*
   GLSL 450 core.
   */
  DXSO_TARGET_GLSL = 2,
  /*
   Metal Shading Language text.
   */
  DXSO_TARGET_MSL = 3,
  /*
   HLSL shader model 5.1.
   */
  DXSO_TARGET_HLSL = 4,
} DxsoTarget;

/*
 The arithmetic `dxso_translate` emits (its `float_mode`, a `uint32_t`).
 */
typedef enum DxsoFloat {
  /*
   D3D9's arithmetic as dxso's CPU engine does it (a zero factor gives +0, rcp/rsq of 0
   give FLT_MAX, log of 0 gives -FLT_MAX, relative reads outside a file give 0, ...).
   */
  DXSO_FLOAT_STRICT = 0,
  /*
   Plain IEEE operations.
   */
  DXSO_FLOAT_IEEE = 1,
} DxsoFloat;

/*
 A device (opaque). Owned by the caller: free with `dxso_device_free`.

 Threads: any number of threads may call the `dxso_device_*` functions on one device at
 once; each call locks the device for its duration, so concurrent calls run one after
 another in some order (a draw sees the whole of each state call made before it, never
 half of one). Only `dxso_device_free` needs the caller's care: no other call on the
 device may be running or start after it.
 */
typedef struct DxsoDevice DxsoDevice;

/*
 A list of findings (opaque). Owned by the caller: free with `dxso_diagnostics_free`.
 */
typedef struct DxsoDiagnostics DxsoDiagnostics;

/*
 A signature (opaque). Owned by the caller: free with `dxso_signature_free`.
 */
typedef struct DxsoSignature DxsoSignature;

/*
 Bytes dxso allocated. Owned by the caller: free with `dxso_buffer_free`.
 */
typedef struct DxsoBuffer {
  /*
   Where the bytes start.
   */
  uint8_t *data;
  /*
   How many bytes `data` holds.
   */
  size_t len;
} DxsoBuffer;

/*
 D3D9's `BOOL`: a 32-bit integer; any non-zero value is true.
 */
typedef int32_t DxsoBool;

/*
 `D3DVERTEXELEMENT9`: `type` is a D3DDECLTYPE value (D3DDECLTYPE_FLOAT3 = 2), `usage` a
 D3DDECLUSAGE value (D3DDECLUSAGE_POSITION = 0), `method` D3DDECLMETHOD_DEFAULT (0).
 */
typedef struct DxsoVertexElement {
  /*
   The vertex stream the element is read from (0 to 15).
   */
  uint16_t stream;
  /*
   Its byte offset within one vertex of that stream.
   */
  uint16_t offset;
  /*
   Its D3DDECLTYPE: how many components of which number type.
   */
  uint8_t type_;
  /*
   Its D3DDECLMETHOD (only D3DDECLMETHOD_DEFAULT is drawn).
   */
  uint8_t method;
  /*
   The D3DDECLUSAGE the shader's input declaration matches.
   */
  uint8_t usage;
  /*
   Which of several inputs with the same usage (TEXCOORD3 is 3).
   */
  uint8_t usage_index;
} DxsoVertexElement;

/*
 One finding. Its strings are owned by the list it came from.
 */
typedef struct DxsoDiagnostic {
  /*
   Whether the finding refuses the shader.
   */
  enum DxsoSeverity severity;
  /*
   The rule id ("V007"); NULL for text that does not assemble or bytes that do not decode.
   */
  const char *rule;
  /*
   What is wrong, in a sentence (UTF-8).
   */
  const char *message;
  /*
   1-based line and column in the text; 0 when the shader is not text.
   */
  uint32_t line;
  /*
   The 1-based column in the text; 0 when the shader is not text.
   */
  uint32_t column;
  /*
   Word offset in the token stream; -1 when the shader is not bytecode.
   */
  int64_t word;
} DxsoDiagnostic;

/*
 One register with a semantic. Its strings are owned by the list it came from.
 */
typedef struct DxsoElement {
  /*
   "TEXCOORD0", "COLOR1", "DEPTH0".
   */
  const char *semantic;
  /*
   D3DDECLUSAGE (0 POSITION .. 10 COLOR, 11 FOG, 12 DEPTH, 13 SAMPLE).
   */
  uint32_t usage;
  /*
   Which of several registers with the same usage (TEXCOORD3 is 3).
   */
  uint32_t usage_index;
  /*
   The register: "o2", "oPos", "v0", "t1", "oC0", "oDepth", "r0".
   */
  const char *register_name;
  /*
   The components used, bit 0 = x.
   */
  uint32_t mask;
  /*
   The input is interpolated at the centroid (the `_centroid` modifier).
   */
  bool centroid;
} DxsoElement;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/*
 The message of the last failed call on this thread ("" after a success). Owned by dxso:
 valid until the next dxso call on the same thread; never null.
 */
const char *dxso_last_error(void);

/*
 Free a buffer dxso returned and set it to {NULL, 0}. A null pointer or an empty buffer
 is fine.

 # Safety

 `buffer` is NULL or points to a `DxsoBuffer` that a dxso function filled (or {NULL, 0}),
 not freed since, and not used by another thread meanwhile.
 */
void dxso_buffer_free(struct DxsoBuffer *buffer);

/*
 Free a string dxso returned. Null is fine.

 # Safety

 `s` is NULL or a string a dxso function returned as the caller's, freed once.
 */
void dxso_string_free(char *s);

/*
 A new device with nothing bound, in `*out`. Owned by the caller: free with
 `dxso_device_free`.

 # Safety

 `out` is NULL (DXSO_STATUS_ARGUMENT) or points to a writable `DxsoDevice *`.
 */
enum DxsoStatus dxso_device_new(struct DxsoDevice **out);

/*
 Free a device and everything bound to it. NULL is fine.

 # Safety

 `device` is NULL or came from `dxso_device_new`; it is freed once, when no other call on
 it is running on any thread, and not used after.
 */
void dxso_device_free(struct DxsoDevice *device);

/*
 Bind a vertex shader from `len` bytes at `data` (assembly text, binary tokens or a hex
 listing). It must validate against the "max" caps; else DXSO_STATUS_INPUT with each error.

 # Safety

 `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`; `data`
 points to `len` readable bytes (it may be NULL when `len` is 0).
 */
enum DxsoStatus dxso_device_set_shader(struct DxsoDevice *device, const uint8_t *data, size_t len);

/*
 The number of output registers of the bound shader (0 without one): each drawn vertex is
 that many registers of 4 floats. 0 for NULL or a device that had an internal error.

 # Safety

 `device` is NULL or a live device from `dxso_device_new`.
 */
size_t dxso_device_output_count(const struct DxsoDevice *device);

/*
 The semantics of output register `i` ("POSITION0"; "TEXCOORD0+TEXCOORD1" for a packed
 vs_3_0 register), or NULL when `i` is out of range. Owned by the device: valid until the
 next `dxso_device_set_shader` or `dxso_device_free` (so a thread that reads it while
 another may bind a shader must order the two calls itself).

 # Safety

 `device` is NULL or a live device from `dxso_device_new`.
 */
const char *dxso_device_output_semantic(const struct DxsoDevice *device, size_t i);

/*
 `SetVertexShaderConstantF`: `count` registers of 4 floats at `values`, from `start`.

 # Safety

 `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`;
 `values` points to `count` × 4 readable floats (it may be NULL when `count` is 0).
 */
enum DxsoStatus dxso_device_set_constant_f(struct DxsoDevice *device,
                                           uint32_t start,
                                           const float *values,
                                           size_t count);

/*
 `SetVertexShaderConstantI`: `count` registers of 4 integers at `values`, from `start`.

 # Safety

 `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`;
 `values` points to `count` × 4 readable `int32_t`s (it may be NULL when `count` is 0).
 */
enum DxsoStatus dxso_device_set_constant_i(struct DxsoDevice *device,
                                           uint32_t start,
                                           const int32_t *values,
                                           size_t count);

/*
 `SetVertexShaderConstantB`: `count` booleans at `values`, from `start`. Each is a D3D9
 `BOOL` (32 bits; any non-zero value is true).

 # Safety

 `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`;
 `values` points to `count` readable `DxsoBool`s (it may be NULL when `count` is 0).
 */
enum DxsoStatus dxso_device_set_constant_b(struct DxsoDevice *device,
                                           uint32_t start,
                                           const DxsoBool *values,
                                           size_t count);

/*
 The vertex declaration: `count` elements at `elements` (no D3DDECL_END needed).

 # Safety

 `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`;
 `elements` points to `count` readable elements (it may be NULL when `count` is 0).
 */
enum DxsoStatus dxso_device_set_declaration(struct DxsoDevice *device,
                                            const struct DxsoVertexElement *elements,
                                            size_t count);

/*
 `SetStreamSource`: stream `n` reads `len` bytes copied from `data`, from byte `offset`,
 `stride` bytes per element. `data` NULL (and `len` 0) unbinds the stream. The stream's
 frequency is `dxso_device_set_stream_frequency`'s.

 # Safety

 `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`; `data`
 points to `len` readable bytes (it may be NULL when `len` is 0).
 */
enum DxsoStatus dxso_device_set_stream(struct DxsoDevice *device,
                                       uint32_t n,
                                       const uint8_t *data,
                                       size_t len,
                                       size_t offset,
                                       size_t stride);

/*
 `SetStreamSourceFreq`: 1 (every vertex), D3DSTREAMSOURCE_INDEXEDDATA | count,
 D3DSTREAMSOURCE_INSTANCEDATA | divider, or a plain divider (software processing).

 # Safety

 `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`.
 */
enum DxsoStatus dxso_device_set_stream_frequency(struct DxsoDevice *device,
                                                 uint32_t n,
                                                 uint32_t setting);

/*
 The index buffer: `count` indices copied from `indices`; NULL unbinds it.

 # Safety

 `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`; a
 non-null `indices` points to `count` readable `uint32_t`s.
 */
enum DxsoStatus dxso_device_set_indices(struct DxsoDevice *device,
                                        const uint32_t *indices,
                                        size_t count);

/*
 Run the shader over `vertex_count` vertices, `instance_count` times, writing each vertex's
 output registers (4 floats each, in `dxso_device_output_semantic` order) to `out`, which
 holds `out_len` floats: at least vertices × instances × outputs × 4 (else
 DXSO_STATUS_ARGUMENT, and nothing is drawn or written). `*written`, when not NULL, receives the
 number of floats written. A draw larger than dxso draws at once (16 GiB of outputs) is
 DXSO_STATUS_INPUT.

 # Safety

 `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`; `out`
 points to `out_len` writable floats (it may be NULL when `out_len` is 0) that do not
 overlap anything dxso reads; `written` is NULL or points to a writable `size_t`.
 */
enum DxsoStatus dxso_device_draw(struct DxsoDevice *device,
                                 size_t vertex_count,
                                 size_t instance_count,
                                 float *out,
                                 size_t out_len,
                                 size_t *written);

/*
 Set a constant by its name in the bound shader's constant table (`"WorldViewProj"`,
 `"lights[1].pos"`) from `count` floats in HLSL order (a matrix row by row), as
 `ID3DXConstantTable::SetFloatArray`. DXSO_STATUS_INPUT when the shader has no table or no
 such constant (the message lists the table's names).

 # Safety

 `device` is NULL (DXSO_STATUS_ARGUMENT) or a live device from `dxso_device_new`; `name_`
 is NULL (DXSO_STATUS_ARGUMENT) or a NUL-terminated string; `values` points to `count`
 readable floats (it may be NULL when `count` is 0).
 */
enum DxsoStatus dxso_device_set_constant_by_name(struct DxsoDevice *device,
                                                 const char *name_,
                                                 const float *values,
                                                 size_t count);

/*
 `dxso_device_set_constant_by_name` from `count` integers (`SetIntArray`).

 # Safety

 As `dxso_device_set_constant_by_name`'s, with `count` readable `int32_t`s at `values`.
 */
enum DxsoStatus dxso_device_set_constant_by_name_i(struct DxsoDevice *device,
                                                   const char *name_,
                                                   const int32_t *values,
                                                   size_t count);

/*
 `dxso_device_set_constant_by_name` from `count` D3D9 `BOOL`s (`SetBoolArray`; 32 bits
 each, any non-zero value is true).

 # Safety

 As `dxso_device_set_constant_by_name`'s, with `count` readable `DxsoBool`s at `values`.
 */
enum DxsoStatus dxso_device_set_constant_by_name_b(struct DxsoDevice *device,
                                                   const char *name_,
                                                   const DxsoBool *values,
                                                   size_t count);

/*
 Assemble `len` bytes of assembly text at `text` into bytecode (little-endian 32-bit
 tokens) in `*out`; `flags` is 0 or `DXSO_ASSEMBLE_CTAB`. On success `*out` is owned by the caller: free it with
 `dxso_buffer_free`. On failure `*out` is left untouched and `dxso_last_error()` has every
 error with its line and column.

 # Safety

 `text` points to `len` readable bytes (it may be NULL when `len` is 0); `out` is NULL
 (DXSO_STATUS_ARGUMENT) or points to a writable `DxsoBuffer`.
 */
enum DxsoStatus dxso_assemble(const char *text,
                              size_t len,
                              uint32_t flags,
                              struct DxsoBuffer *out);

/*
 The assembly listing (Microsoft's) of `len` bytes of bytecode at `data` (binary tokens or
 a hex listing), as a NUL-terminated string in `*out`, owned by the caller: free it with
 `dxso_string_free`.

 # Safety

 `data` points to `len` readable bytes (it may be NULL when `len` is 0); `out` is NULL
 (DXSO_STATUS_ARGUMENT) or points to a writable `char *`.
 */
enum DxsoStatus dxso_disassemble(const uint8_t *data, size_t len, char **out);

/*
 Validate `len` bytes at `data` — assembly text, binary tokens or a hex listing — against
 `caps`: NULL or "max" (every feature, the highest limits), "min", or a JSON object of
 D3DCAPS9 fields. `*out` receives every finding (an empty list, or warnings only, means
 valid; text that does not assemble gives its errors with a NULL rule); it is owned by the
 caller: free it with `dxso_diagnostics_free`. Fails (DXSO_STATUS_INPUT) only for bad caps.

 # Safety

 `data` points to `len` readable bytes (it may be NULL when `len` is 0); `caps_spec` is
 NULL or a NUL-terminated string; `out` is NULL (DXSO_STATUS_ARGUMENT) or points to a
 writable `DxsoDiagnostics *`.
 */
enum DxsoStatus dxso_validate(const uint8_t *data,
                              size_t len,
                              const char *caps_spec,
                              struct DxsoDiagnostics **out);

/*
 The number of findings in `list` (0 for NULL).

 # Safety

 `list` is NULL or a list from `dxso_validate`, not freed.
 */
size_t dxso_diagnostics_count(const struct DxsoDiagnostics *list);

/*
 Finding `i` of `list`, or NULL when `i` is out of range. Owned by the list: valid until
 `dxso_diagnostics_free`.

 # Safety

 `list` is NULL or a list from `dxso_validate`, not freed.
 */
const struct DxsoDiagnostic *dxso_diagnostics_get(const struct DxsoDiagnostics *list, size_t i);

/*
 Free a list from `dxso_validate` (and every string in it). NULL is fine.

 # Safety

 `list` is NULL or a list from `dxso_validate`, freed once, and not in use by another
 thread.
 */
void dxso_diagnostics_free(struct DxsoDiagnostics *list);

/*
 List the inputs or outputs (`which`: a DxsoSignatureKind value) of the shader in `len`
 bytes at `data` (assembly text, binary tokens or a hex listing; it need not validate)
 into `*out`, owned by the caller: free it with `dxso_signature_free`. Fails
 (DXSO_STATUS_INPUT) for text that does not assemble and bytes that are not a shader;
 DXSO_STATUS_ARGUMENT for a `which` that is not a DxsoSignatureKind.

 # Safety

 `data` points to `len` readable bytes (it may be NULL when `len` is 0); `out` is NULL
 (DXSO_STATUS_ARGUMENT) or points to a writable `DxsoSignature *`.
 */
enum DxsoStatus dxso_signature(const uint8_t *data,
                               size_t len,
                               uint32_t which,
                               struct DxsoSignature **out);

/*
 The number of elements in `list` (0 for NULL).

 # Safety

 `list` is NULL or a list from `dxso_signature`, not freed.
 */
size_t dxso_signature_count(const struct DxsoSignature *list);

/*
 Element `i` of `list`, or NULL when `i` is out of range. Owned by the list: valid until
 `dxso_signature_free`.

 # Safety

 `list` is NULL or a list from `dxso_signature`, not freed.
 */
const struct DxsoElement *dxso_signature_get(const struct DxsoSignature *list, size_t i);

/*
 Free a list from `dxso_signature` (and every string in it). NULL is fine.

 # Safety

 `list` is NULL or a list from `dxso_signature`, freed once, and not in use by another
 thread.
 */
void dxso_signature_free(struct DxsoSignature *list);

/*
 Translate the vertex or pixel shader in `len` bytes at `data` (assembly text, binary
 tokens or a hex listing; any version) into `target` (a DxsoTarget value) with the
 arithmetic `float_mode` (a DxsoFloat value), as `dxso translate` does.

 On success `*code` holds the code — UTF-8 text without a terminating NUL (print it with
 its length), or for DXSO_TARGET_SPIRV the SPIR-V module's bytes — owned by the caller:
 free it with `dxso_buffer_free`. `*interface_json` (NUL-terminated; owned by the caller:
 free it with `dxso_string_free`) is what a caller must know to bind the shader: constant
 buffers, samplers, inputs, outputs and their locations, as JSON (`dxso translate
 --interface`). On failure neither is written: DXSO_STATUS_INPUT for a shader that does
 not read, does not validate (caps "max"; the message has the validator's errors) or that
 the translation does not handle; DXSO_STATUS_ARGUMENT for a `target` or `float_mode`
 outside its enum.

 # Safety

 `data` points to `len` readable bytes (it may be NULL when `len` is 0); `code` and
 `interface_json` are NULL (DXSO_STATUS_ARGUMENT) or point to a writable `DxsoBuffer` and
 `char *`.
 */
enum DxsoStatus dxso_translate(const uint8_t *data,
                               size_t len,
                               uint32_t target,
                               uint32_t float_mode,
                               struct DxsoBuffer *code,
                               char **interface_json);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* DXSO_H */
