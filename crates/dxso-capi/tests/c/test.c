/* The C API end to end: assemble, disassemble, validate, a device draw, failures, the
 * boundary's checks (enums out of range, counts near SIZE_MAX) and a device shared by four
 * threads. Built by .ci/bindings with `cc -Wall -Wextra -Werror` against include/dxso.h and
 * libdxso, and run twice: under valgrind (no leaks, no invalid accesses) and built again with
 * AddressSanitizer and UndefinedBehaviorSanitizer. Prints "N passed, N failed". */
#include "dxso.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Counted atomically: the threads' checks count too. */
static atomic_int passed, failed;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (cond) {                                                                        \
            passed++;                                                                      \
        } else {                                                                           \
            failed++;                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, \
                    #cond, dxso_last_error());                                             \
        }                                                                                  \
    } while (0)

static uint32_t word(const DxsoBuffer *b, size_t i) {
    const uint8_t *p = b->data + 4 * i;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_assemble_and_disassemble(void) {
    /* The README's example, as Microsoft's assembler encodes it. */
    const char *text = "vs_2_0\nmov r0, -c0[a0.w+5].x\n";
    const uint32_t expected[] = {0xFFFE0200, 0x03000001, 0x800F0000, 0xA1002005, 0xB0FF0000, 0x0000FFFF};
    DxsoBuffer tokens = {NULL, 0};
    CHECK(dxso_assemble(text, strlen(text), 0, &tokens) == DXSO_STATUS_OK);
    CHECK(tokens.len == sizeof expected);
    for (size_t i = 0; i < tokens.len / 4 && i < 6; i++) CHECK(word(&tokens, i) == expected[i]);

    char *listing = NULL;
    CHECK(dxso_disassemble(tokens.data, tokens.len, &listing) == DXSO_STATUS_OK);
    CHECK(listing && strcmp(listing, "    vs_2_0\n    mov r0, -c5[a0.w].x\n") == 0);
    dxso_string_free(listing);

    /* Without its end token the stream is refused, at the word past the end. */
    CHECK(dxso_disassemble(tokens.data, tokens.len - 4, &listing) == DXSO_STATUS_INPUT);
    CHECK(strstr(dxso_last_error(), "<input>: error: word 5") == dxso_last_error());
    dxso_buffer_free(&tokens);
    CHECK(tokens.data == NULL && tokens.len == 0);
    dxso_buffer_free(&tokens); /* twice is harmless */

    const char *bad = "vs_3_0\nmov r0, v17\nfoo\n";
    CHECK(dxso_assemble(bad, strlen(bad), 0, &tokens) == DXSO_STATUS_INPUT);
    CHECK(strcmp(dxso_last_error(),
                 "<input>:2:9: error: register v17 does not exist in vs_3_0\n"
                 "    mov r0, v17\n"
                 "            ^\n"
                 "<input>:3:1: error: unknown instruction 'foo'\n"
                 "    foo\n"
                 "    ^") == 0);
    CHECK(tokens.data == NULL);
    CHECK(dxso_assemble(NULL, 5, 0, &tokens) == DXSO_STATUS_ARGUMENT);
    CHECK(strcmp(dxso_last_error(), "text is null") == 0);
}

static void test_validate(void) {
    const char *text = "vs_2_0\ndcl_position v0\ndcl_normal v1\nadd r0, v0, v1\nmov oPos, r0\n";
    DxsoDiagnostics *list = NULL;
    CHECK(dxso_validate((const uint8_t *)text, strlen(text), NULL, &list) == DXSO_STATUS_OK);
    CHECK(dxso_diagnostics_count(list) == 1);
    const DxsoDiagnostic *d = dxso_diagnostics_get(list, 0);
    CHECK(d && d->severity == DXSO_SEVERITY_ERROR && strcmp(d->rule, "V007") == 0);
    CHECK(d && d->line == 4 && d->column == 1 && d->word == -1);
    CHECK(d && strcmp(d->message, "2 different v# registers in one instruction; vs_2_0 allows 1") == 0);
    CHECK(dxso_diagnostics_get(list, 1) == NULL);
    dxso_diagnostics_free(list);

    /* Bytecode: findings at word offsets; caps by name or as D3DCAPS9 JSON. */
    const char *big = "vs_2_0\ndcl_position v0\nmov oPos, c0\nmov oPos, c300\n";
    DxsoBuffer tokens = {NULL, 0};
    CHECK(dxso_assemble(big, strlen(big), 0, &tokens) == DXSO_STATUS_OK);
    CHECK(dxso_validate(tokens.data, tokens.len, "max", &list) == DXSO_STATUS_OK);
    CHECK(dxso_diagnostics_count(list) == 0);
    dxso_diagnostics_free(list);
    CHECK(dxso_validate(tokens.data, tokens.len, "{\"MaxVertexShaderConst\": 256}", &list) == DXSO_STATUS_OK);
    CHECK(dxso_diagnostics_count(list) == 1);
    d = dxso_diagnostics_get(list, 0);
    CHECK(d && strcmp(d->rule, "V004") == 0 && d->word == 7 && d->line == 0);
    dxso_diagnostics_free(list);
    list = NULL;
    CHECK(dxso_validate(tokens.data, tokens.len, "{\"MaxVertexShaderConst\": 5}", &list) == DXSO_STATUS_INPUT);
    CHECK(strcmp(dxso_last_error(), "caps: MaxVertexShaderConst = 5 is outside 256..8192") == 0);
    CHECK(list == NULL);
    dxso_buffer_free(&tokens);

    /* Text that does not assemble: its errors, with no rule. */
    CHECK(dxso_validate((const uint8_t *)"vs_2_0\nfoo\n", 11, "min", &list) == DXSO_STATUS_OK);
    d = dxso_diagnostics_get(list, 0);
    CHECK(dxso_diagnostics_count(list) == 1 && d && d->rule == NULL && d->line == 2);
    dxso_diagnostics_free(list);
    dxso_diagnostics_free(NULL);
}

static void test_draw(void) {
    const char *shader =
        "vs_3_0\ndcl_position v0\ndcl_color v1\ndcl_position o0\ndcl_color o1\n"
        "m4x4 o0, v0, c0\nmov o1, v1\n";
    DxsoDevice *dev = NULL;
    CHECK(dxso_device_new(&dev) == DXSO_STATUS_OK);
    float out[4 * 2 * 4];
    size_t written = 0;
    CHECK(dxso_device_draw(dev, 1, 1, out, 8, &written) == DXSO_STATUS_INPUT);
    CHECK(strcmp(dxso_last_error(), "no vertex shader is set") == 0);

    CHECK(dxso_device_set_shader(dev, (const uint8_t *)shader, strlen(shader)) == DXSO_STATUS_OK);
    CHECK(dxso_device_output_count(dev) == 2);
    CHECK(strcmp(dxso_device_output_semantic(dev, 0), "POSITION0") == 0);
    CHECK(strcmp(dxso_device_output_semantic(dev, 1), "COLOR0") == 0);
    CHECK(dxso_device_output_semantic(dev, 2) == NULL);

    /* Rows of a matrix that scales x by 2, y by 3 and moves z by 10. */
    const float m[16] = {2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1, 10, 0, 0, 0, 1};
    CHECK(dxso_device_set_constant_f(dev, 0, m, 4) == DXSO_STATUS_OK);
    const DxsoVertexElement decl[2] = {{0, 0, 3 /* FLOAT4 */, 0, 0 /* POSITION */, 0},
                                       {0, 16, 4 /* D3DCOLOR */, 0, 10 /* COLOR */, 0}};
    CHECK(dxso_device_set_declaration(dev, decl, 2) == DXSO_STATUS_OK);
    struct { float pos[4]; uint8_t bgra[4]; } verts[3] = {
        {{1, 1, 1, 1}, {0, 0, 255, 255}}, {{2, 0, -1, 1}, {0, 255, 0, 255}}, {{0, 4, 0, 1}, {255, 0, 0, 0}}};
    CHECK(sizeof verts == 60);
    CHECK(dxso_device_set_stream(dev, 0, (const uint8_t *)verts, sizeof verts, 0, 20) == DXSO_STATUS_OK);
    CHECK(dxso_device_draw(dev, 3, 1, out, 24, &written) == DXSO_STATUS_OK);
    CHECK(written == 24);
    const float expected[24] = {2, 3, 11, 1, 1, 0, 0, 1, 4, 0, 9, 1, 0, 1, 0, 1, 0, 12, 10, 1, 0, 0, 1, 0};
    for (int i = 0; i < 24; i++) CHECK(out[i] == expected[i]);

    /* Index buffer and instancing. */
    const uint32_t ix[2] = {2, 0};
    CHECK(dxso_device_set_indices(dev, ix, 2) == DXSO_STATUS_OK);
    CHECK(dxso_device_draw(dev, 2, 1, out, 24, &written) == DXSO_STATUS_OK);
    CHECK(written == 16 && out[1] == 12 && out[9] == 3);
    CHECK(dxso_device_set_indices(dev, NULL, 0) == DXSO_STATUS_OK);
    CHECK(dxso_device_set_stream_frequency(dev, 0, 0x40000000u | 3) == DXSO_STATUS_OK);
    CHECK(dxso_device_draw(dev, 1, 3, out, 24, &written) == DXSO_STATUS_OK);
    CHECK(written == 24 && out[0] == 2 && out[8] == 2 && out[16] == 2);
    CHECK(dxso_device_set_stream_frequency(dev, 0, 0) == DXSO_STATUS_INPUT);
    CHECK(strcmp(dxso_last_error(), "bad stream frequency setting 0x00000000") == 0);
    CHECK(dxso_device_set_stream_frequency(dev, 0, 1) == DXSO_STATUS_OK);

    /* Failures leave the caller's buffer alone. */
    out[0] = -1;
    CHECK(dxso_device_draw(dev, 3, 1, out, 23, &written) == DXSO_STATUS_ARGUMENT);
    CHECK(strcmp(dxso_last_error(), "the draw writes 24 floats; the buffer holds 23") == 0);
    CHECK(dxso_device_draw(dev, 4, 1, out, 32, NULL) == DXSO_STATUS_INPUT);
    CHECK(strstr(dxso_last_error(), "reads past the end of the stream") != NULL);
    CHECK(out[0] == -1);
    CHECK(dxso_device_set_shader(dev, (const uint8_t *)"vs_2_0\nmov oPos, v0\n", 19) == DXSO_STATUS_INPUT);
    CHECK(strcmp(dxso_last_error(),
                 "<input>:2:1: error[V011]: v0 is used but not declared\n"
                 "    mov oPos, v0\n"
                 "    ^\n"
                 "<input>: the shader does not validate") == 0);
    CHECK(dxso_device_set_constant_f(NULL, 0, m, 4) == DXSO_STATUS_ARGUMENT);
    const DxsoVertexElement bad = {0, 0, 17 /* UNUSED */, 0, 0, 0};
    CHECK(dxso_device_set_declaration(dev, &bad, 1) == DXSO_STATUS_INPUT);
    CHECK(strcmp(dxso_last_error(), "declaration[0]: unknown type 17") == 0);

    /* Integer and boolean constants drive flow control. */
    const char *loop = "vs_2_0\ndcl_position v0\nmov r0, c0\nrep i0\nadd r0, r0, v0\nendrep\n"
                       "if b0\nadd r0, r0, r0\nendif\nmov oPos, r0\n";
    CHECK(dxso_device_set_shader(dev, (const uint8_t *)loop, strlen(loop)) == DXSO_STATUS_OK);
    const int32_t i0[4] = {3, 0, 0, 0};
    const DxsoBool b0 = 2; /* a D3D9 BOOL: 32 bits, any non-zero value is true */
    const float zero[4] = {0, 0, 0, 0};
    CHECK(dxso_device_set_constant_f(dev, 0, zero, 1) == DXSO_STATUS_OK);
    CHECK(dxso_device_set_constant_i(dev, 0, i0, 1) == DXSO_STATUS_OK);
    CHECK(dxso_device_set_constant_b(dev, 0, &b0, 1) == DXSO_STATUS_OK);
    CHECK(dxso_device_draw(dev, 1, 1, out, 24, &written) == DXSO_STATUS_OK);
    /* oPos, then oD0, which a vs_1_1 .. vs_2_x shader always outputs: unwritten, it is white
       (instructions.md C11). */
    CHECK(dxso_device_output_count(dev) == 2);
    CHECK(written == 8 && out[0] == 6 && out[1] == 6 && out[2] == 6 && out[3] == 6);
    CHECK(out[4] == 1 && out[5] == 1 && out[6] == 1 && out[7] == 1);
    dxso_device_free(dev);
    dxso_device_free(NULL);
}

static void test_constants_by_name(void) {
    /* A listing with Microsoft's constant-table header: the shader set its table from it. */
    const char *text =
        "//\n// Parameters:\n//\n//   float4x4 WorldViewProj;\n//\n//\n// Registers:\n//\n"
        "//   Name          Reg   Size\n//   ------------- ----- ----\n//   WorldViewProj c0       4\n//\n"
        "vs_3_0\ndcl_position v0\ndcl_position o0\nm4x4 o0, v0, c0\n";
    DxsoDevice *dev = NULL;
    CHECK(dxso_device_new(&dev) == DXSO_STATUS_OK);
    CHECK(dxso_device_set_shader(dev, (const uint8_t *)text, strlen(text)) == DXSO_STATUS_OK);
    /* Without a CTAB in the tokens (the header is comments), names are unknown. */
    const float m[16] = {2, 0, 0, 1, 0, 3, 0, 0, 0, 0, 1, 10, 0, 0, 0, 1};
    CHECK(dxso_device_set_constant_by_name(dev, "WorldViewProj", m, 16) == DXSO_STATUS_INPUT);
    CHECK(strstr(dxso_last_error(), "constant table") != NULL);

    /* Assembled with DXSO_ASSEMBLE_CTAB, the tokens carry the table: HLSL's default
     * column-major float4x4 puts column k in c<k>, so o0 = v0 * M (a row vector times M). */
    DxsoBuffer tokens = {NULL, 0};
    CHECK(dxso_assemble(text, strlen(text), DXSO_ASSEMBLE_CTAB, &tokens) == DXSO_STATUS_OK);
    CHECK(dxso_device_set_shader(dev, tokens.data, tokens.len) == DXSO_STATUS_OK);
    dxso_buffer_free(&tokens);
    CHECK(dxso_device_set_constant_by_name(dev, "WorldViewProj", m, 16) == DXSO_STATUS_OK);
    const DxsoVertexElement decl = {0, 0, 3 /* FLOAT4 */, 0, 0 /* POSITION */, 0};
    const float v[4] = {1, 2, 3, 1};
    float out[4];
    CHECK(dxso_device_set_declaration(dev, &decl, 1) == DXSO_STATUS_OK);
    CHECK(dxso_device_set_stream(dev, 0, (const uint8_t *)v, sizeof v, 0, 16) == DXSO_STATUS_OK);
    CHECK(dxso_device_draw(dev, 1, 1, out, 4, NULL) == DXSO_STATUS_OK);
    /* v * M = (1*2, 2*3, 3*1, 1*1 + 3*10 + 1) */
    CHECK(out[0] == 2 && out[1] == 6 && out[2] == 3 && out[3] == 32);
    CHECK(dxso_device_set_constant_by_name(dev, "World", m, 16) == DXSO_STATUS_INPUT);
    CHECK(strcmp(dxso_last_error(), "no constant named 'World'; the constant table has: WorldViewProj") == 0);
    dxso_device_free(dev);
}

/* Element i of `list` is `semantic` at `reg` with mask `mask`. */
static int element_is(const DxsoSignature *list, size_t i, const char *semantic, const char *reg, uint32_t mask) {
    const DxsoElement *e = dxso_signature_get(list, i);
    return e && strcmp(e->semantic, semantic) == 0 && strcmp(e->register_name, reg) == 0 && e->mask == mask;
}

static void test_signature(void) {
    const char *ps = "ps_3_0\ndcl_texcoord2 v1.xy\ndef c0, 1, 0, 0, 1\nmov oDepth, c0.x\nmov oC1, v1\nmov oC0, c0\n";
    DxsoSignature *list = NULL;
    CHECK(dxso_signature((const uint8_t *)ps, strlen(ps), DXSO_SIGNATURE_KIND_OUTPUTS, &list) == DXSO_STATUS_OK);
    CHECK(dxso_signature_count(list) == 3);
    CHECK(element_is(list, 0, "COLOR0", "oC0", 0xF) && element_is(list, 1, "COLOR1", "oC1", 0xF));
    CHECK(element_is(list, 2, "DEPTH0", "oDepth", 0xF));
    const DxsoElement *e = dxso_signature_get(list, 2);
    CHECK(e && e->usage == 12 && e->usage_index == 0 && !e->centroid);
    CHECK(dxso_signature_get(list, 3) == NULL);
    dxso_signature_free(list);
    CHECK(dxso_signature((const uint8_t *)ps, strlen(ps), DXSO_SIGNATURE_KIND_INPUTS, &list) == DXSO_STATUS_OK);
    CHECK(dxso_signature_count(list) == 1 && element_is(list, 0, "TEXCOORD2", "v1", 0x3));
    dxso_signature_free(list);

    /* ps_1_x: the colour is r0; bytecode works as text does. */
    const char *ps1 = "ps_1_1\ntex t0\nmov r0.rgb, t0\n";
    DxsoBuffer tokens = {NULL, 0};
    CHECK(dxso_assemble(ps1, strlen(ps1), 0, &tokens) == DXSO_STATUS_OK);
    CHECK(dxso_signature(tokens.data, tokens.len, DXSO_SIGNATURE_KIND_OUTPUTS, &list) == DXSO_STATUS_OK);
    CHECK(dxso_signature_count(list) == 1 && element_is(list, 0, "COLOR0", "r0", 0x7));
    dxso_signature_free(list);
    dxso_buffer_free(&tokens);

    const char *vs = "vs_1_1\ndcl_position v0\nmov oPos, v0\nmov oT1.xy, v0\n";
    CHECK(dxso_signature((const uint8_t *)vs, strlen(vs), DXSO_SIGNATURE_KIND_OUTPUTS, &list) == DXSO_STATUS_OK);
    CHECK(dxso_signature_count(list) == 2 && element_is(list, 0, "POSITION0", "oPos", 0xF));
    CHECK(element_is(list, 1, "TEXCOORD1", "oT1", 0x3));
    dxso_signature_free(list);

    list = NULL;
    CHECK(dxso_signature((const uint8_t *)"ps_2_0\nfoo\n", 11, DXSO_SIGNATURE_KIND_OUTPUTS, &list) == DXSO_STATUS_INPUT);
    CHECK(list == NULL && strstr(dxso_last_error(), "<input>:2:1: error: unknown instruction 'foo'") != NULL);
    dxso_signature_free(NULL);
}

static void test_translate(void) {
    const char *vs = "vs_2_0\ndcl_position v0\ndcl_texcoord0 v1\nm4x4 oPos, v0, c0\nrcp r0.x, v1.x\nmov oT0, r0.x\n";
    DxsoBuffer code = {NULL, 0};
    char *json = NULL;
    CHECK(dxso_translate((const uint8_t *)vs, strlen(vs), DXSO_TARGET_WGSL, DXSO_FLOAT_STRICT, &code, &json) == DXSO_STATUS_OK);
    /* The text has no NUL: search a copy. */
    char wgsl[65536] = {0};
    CHECK(code.len > 0 && code.len < sizeof wgsl && memchr(code.data, 0, code.len) == NULL);
    size_t strict_len = code.len < sizeof wgsl ? code.len : 0;
    memcpy(wgsl, code.data, strict_len);
    CHECK(strstr(wgsl, "@vertex") != NULL);
    CHECK(json && strncmp(json, "{\"stage\":\"vertex\",\"version\":\"vs_2_0\"", 36) == 0);
    CHECK(json && strstr(json, "\"register\":\"oT0\"") != NULL);
    dxso_buffer_free(&code);
    dxso_string_free(json);

    /* IEEE arithmetic is other code (rcp without the FLT_MAX select). */
    CHECK(dxso_translate((const uint8_t *)vs, strlen(vs), DXSO_TARGET_WGSL, DXSO_FLOAT_IEEE, &code, &json) == DXSO_STATUS_OK);
    CHECK(code.len > 0 && (code.len != strict_len || memcmp(code.data, wgsl, code.len) != 0));
    dxso_buffer_free(&code);
    dxso_string_free(json);

    /* SPIR-V: little-endian words, starting with the magic number. */
    const char *ps = "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n";
    CHECK(dxso_translate((const uint8_t *)ps, strlen(ps), DXSO_TARGET_SPIRV, DXSO_FLOAT_STRICT, &code, &json) == DXSO_STATUS_OK);
    CHECK(code.len >= 20 && code.len % 4 == 0 && word(&code, 0) == 0x07230203);
    CHECK(json && strstr(json, "\"stage\":\"fragment\"") != NULL && strstr(json, "\"semantic\":\"COLOR0\"") != NULL);
    dxso_buffer_free(&code);
    dxso_string_free(json);

    /* A shader that does not validate is refused with the validator's errors; nothing is
     * written. */
    const char *bad = "vs_2_0\ndcl_position v0\ndcl_normal v1\nadd r0, v0, v1\nmov oPos, r0\n";
    code.data = NULL;
    json = NULL;
    CHECK(dxso_translate((const uint8_t *)bad, strlen(bad), DXSO_TARGET_GLSL, DXSO_FLOAT_STRICT, &code, &json) == DXSO_STATUS_INPUT);
    CHECK(strcmp(dxso_last_error(),
                 "<input>:4:1: error[V007]: 2 different v# registers in one instruction; vs_2_0 allows 1\n"
                 "    add r0, v0, v1\n"
                 "    ^\n"
                 "<input>: the shader does not validate") == 0);
    CHECK(code.data == NULL && json == NULL);
    CHECK(dxso_translate((const uint8_t *)vs, strlen(vs), DXSO_TARGET_MSL, DXSO_FLOAT_STRICT, NULL, &json) == DXSO_STATUS_ARGUMENT);
    CHECK(strcmp(dxso_last_error(), "code is null") == 0);
}

/* Every enum parameter outside its enum, and every count no buffer can have, is refused
 * with DXSO_STATUS_ARGUMENT: never a crash, DXSO_STATUS_INTERNAL or OK. */
static void test_boundary(void) {
    const char *vs = "vs_3_0\ndcl_position v0\ndcl_position o0\nadd o0, v0, c0\n";
    DxsoSignature *list = NULL;
    const uint32_t kinds[] = {2, 7, 0x80000000u, UINT32_MAX};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        CHECK(dxso_signature((const uint8_t *)vs, strlen(vs), kinds[i], &list) == DXSO_STATUS_ARGUMENT);
        CHECK(list == NULL);
    }
    CHECK(strcmp(dxso_last_error(), "which must be a DxsoSignatureKind (0 or 1), not 4294967295") == 0);
    DxsoBuffer code = {NULL, 0};
    char *json = NULL;
    const uint32_t bad[] = {5, 99, UINT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK(dxso_translate((const uint8_t *)vs, strlen(vs), bad[i], DXSO_FLOAT_STRICT, &code, &json) == DXSO_STATUS_ARGUMENT);
        CHECK(dxso_translate((const uint8_t *)vs, strlen(vs), DXSO_TARGET_WGSL, bad[i], &code, &json) == DXSO_STATUS_ARGUMENT);
    }
    CHECK(strcmp(dxso_last_error(), "float_mode must be a DxsoFloat (0 or 1), not 4294967295") == 0);
    CHECK(code.data == NULL && json == NULL);

    /* Small real buffers, and counts that say they are larger than memory. */
    uint8_t bytes[64] = {0};
    const float floats[16] = {0};
    const int32_t ints[16] = {0};
    const uint32_t words[16] = {0};
    const DxsoVertexElement element = {0, 0, 3 /* FLOAT4 */, 0, 0 /* POSITION */, 0};
    const float v[4] = {1, 2, 3, 1};
    float out[8] = {0};
    DxsoDevice *dev = NULL;
    CHECK(dxso_device_new(&dev) == DXSO_STATUS_OK);
    CHECK(dxso_device_set_shader(dev, (const uint8_t *)vs, strlen(vs)) == DXSO_STATUS_OK);
    CHECK(dxso_device_set_declaration(dev, &element, 1) == DXSO_STATUS_OK);
    CHECK(dxso_device_set_stream(dev, 0, (const uint8_t *)v, sizeof v, 0, 16) == DXSO_STATUS_OK);
    DxsoDiagnostics *diags = NULL;
    for (int k = 0; k < 4; k++) {
        /* SIZE_MAX, SIZE_MAX - 1, and just past SIZE_MAX / size and PTRDIFF_MAX / size. */
#define BIG(size) (k == 0 ? SIZE_MAX : k == 1 ? SIZE_MAX - 1 : k == 2 ? SIZE_MAX / (size) + 1 : (size_t)PTRDIFF_MAX / (size) + 1)
#define REFUSED(call) CHECK((call) == DXSO_STATUS_ARGUMENT)
        if (k != 2) { /* SIZE_MAX / 1 + 1 is 0 */
            REFUSED(dxso_assemble((const char *)bytes, BIG(1), 0, &code));
            REFUSED(dxso_disassemble(bytes, BIG(1), &json));
            REFUSED(dxso_validate(bytes, BIG(1), NULL, &diags));
            REFUSED(dxso_signature(bytes, BIG(1), DXSO_SIGNATURE_KIND_INPUTS, &list));
            REFUSED(dxso_translate(bytes, BIG(1), DXSO_TARGET_WGSL, DXSO_FLOAT_STRICT, &code, &json));
            REFUSED(dxso_device_set_shader(dev, bytes, BIG(1)));
            REFUSED(dxso_device_set_stream(dev, 1, bytes, BIG(1), 0, 16));
        }
        REFUSED(dxso_device_set_constant_f(dev, 0, floats, BIG(16)));
        REFUSED(dxso_device_set_constant_i(dev, 0, ints, BIG(16)));
        REFUSED(dxso_device_set_constant_b(dev, 0, ints, BIG(4)));
        REFUSED(dxso_device_set_declaration(dev, &element, BIG(sizeof element)));
        REFUSED(dxso_device_set_indices(dev, words, BIG(4)));
        REFUSED(dxso_device_draw(dev, 1, 1, out, BIG(4), NULL));
        REFUSED(dxso_device_set_constant_by_name(dev, "c", floats, BIG(4)));
        REFUSED(dxso_device_set_constant_by_name_i(dev, "c", ints, BIG(4)));
        REFUSED(dxso_device_set_constant_by_name_b(dev, "c", ints, BIG(4)));
#undef REFUSED
#undef BIG
    }
    CHECK(strstr(dxso_last_error(), "values: ") == dxso_last_error());
    CHECK(code.data == NULL && json == NULL && diags == NULL && list == NULL);
    /* Draws too large for memory, and offsets and strides past everything: input failures. */
    CHECK(dxso_device_draw(dev, SIZE_MAX, 1, out, 4, NULL) == DXSO_STATUS_INPUT);
    CHECK(dxso_device_draw(dev, (size_t)1 << 40, (size_t)1 << 40, out, 4, NULL) == DXSO_STATUS_INPUT);
    CHECK(dxso_device_draw(dev, 1, 1, out, 4, NULL) == DXSO_STATUS_OK);
    CHECK(out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == 1);
    CHECK(dxso_device_set_stream(dev, 0, (const uint8_t *)v, sizeof v, SIZE_MAX, SIZE_MAX) == DXSO_STATUS_OK);
    CHECK(dxso_device_draw(dev, 2, 1, out, 8, NULL) == DXSO_STATUS_INPUT);
    CHECK(strstr(dxso_last_error(), "past the end of the stream") != NULL);
    /* A buffer too small is refused before the draw runs. */
    CHECK(dxso_device_draw(dev, 3, 1, out, 8, NULL) == DXSO_STATUS_ARGUMENT);
    CHECK(strcmp(dxso_last_error(), "the draw writes 12 floats; the buffer holds 8") == 0);
    dxso_device_free(dev);
}

#define THREADS 4
#define VERTICES 64
#define ROUNDS 25

struct shared {
    DxsoDevice *dev;
    int thread;
};

/* Set c0 to this thread's value and draw: each draw sees one whole c0 (some thread's),
 * the same for every vertex, and the vertices' own positions. */
static void *drawing_thread(void *arg) {
    const struct shared *s = arg;
    const char *vs = "vs_3_0\ndcl_position v0\ndcl_position o0\nadd o0, v0, c0\n";
    static float out[THREADS][VERTICES * 4];
    float *o = out[s->thread];
    for (int round = 0; round < ROUNDS; round++) {
        const float c0[4] = {(float)s->thread, 10.0f * (float)s->thread, 0, 0};
        CHECK(dxso_device_set_constant_f(s->dev, 0, c0, 1) == DXSO_STATUS_OK);
        if (round == 2 * s->thread) /* rebinding the same shader midway changes nothing */
            CHECK(dxso_device_set_shader(s->dev, (const uint8_t *)vs, strlen(vs)) == DXSO_STATUS_OK);
        CHECK(dxso_device_output_count(s->dev) == 1);
        size_t written = 0;
        CHECK(dxso_device_draw(s->dev, VERTICES, 1, o, VERTICES * 4, &written) == DXSO_STATUS_OK);
        CHECK(written == VERTICES * 4);
        const float k = o[0];
        CHECK(k == 0 || k == 1 || k == 2 || k == 3);
        int same = 1;
        for (int i = 0; i < VERTICES; i++)
            same &= o[4 * i] == (float)i + k && o[4 * i + 1] == 10 * k && o[4 * i + 2] == 0 && o[4 * i + 3] == 1;
        CHECK(same);
    }
    return NULL;
}

static void test_threads(void) {
    const char *vs = "vs_3_0\ndcl_position v0\ndcl_position o0\nadd o0, v0, c0\n";
    DxsoDevice *dev = NULL;
    CHECK(dxso_device_new(&dev) == DXSO_STATUS_OK);
    CHECK(dxso_device_set_shader(dev, (const uint8_t *)vs, strlen(vs)) == DXSO_STATUS_OK);
    const DxsoVertexElement element = {0, 0, 3 /* FLOAT4 */, 0, 0 /* POSITION */, 0};
    CHECK(dxso_device_set_declaration(dev, &element, 1) == DXSO_STATUS_OK);
    float v[VERTICES][4];
    for (int i = 0; i < VERTICES; i++) {
        v[i][0] = (float)i;
        v[i][1] = v[i][2] = 0;
        v[i][3] = 1;
    }
    CHECK(dxso_device_set_stream(dev, 0, (const uint8_t *)v, sizeof v, 0, 16) == DXSO_STATUS_OK);
    pthread_t threads[THREADS];
    struct shared shared[THREADS];
    for (int t = 0; t < THREADS; t++) {
        shared[t].dev = dev;
        shared[t].thread = t;
        CHECK(pthread_create(&threads[t], NULL, drawing_thread, &shared[t]) == 0);
    }
    for (int t = 0; t < THREADS; t++) CHECK(pthread_join(threads[t], NULL) == 0);
    dxso_device_free(dev);
}

int main(void) {
    test_boundary();
    test_threads();
    test_translate();
    test_signature();
    test_constants_by_name();
    test_assemble_and_disassemble();
    test_validate();
    test_draw();
    printf("%d passed, %d failed\n", atomic_load(&passed), atomic_load(&failed));
    return failed ? 1 : 0;
}
