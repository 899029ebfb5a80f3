//! Behaviour proof for vertex shaders: the decompiled HLSL (`Dialect::Glslang`, constants as
//! the `float4 c[N]` array) compiled by glslang, through naga's SPIR-V front end (wgpu's
//! `spirv` source) on a Vulkan adapter (lavapipe here), against dxso-vm running the original
//! bytecode, on the same synthesized inputs and constants.
//!
//! The decompiled `main` is called from a compute entry appended to the HLSL: one
//! invocation per vertex reads the `VS_INPUT` members from a storage buffer and stores the
//! `VS_OUTPUT` members in another. Shaders that sample textures are left out (the harness
//! binds no textures). A component matches when both are NaN, both the same infinity, or
//! they differ by at most 1e-3 + 1e-3 x the larger magnitude (dxso-vm's Strict arithmetic
//! against the GPU's IEEE one: the `Ieee` class of docs/translate.md).
//!
//! The default test takes every 16th vertex shader of the corpus; `--ignored` all of them.
//! The same with the constant tables (the output a user gets: the table's names and types,
//! `$Global` filled by name as for pixel shaders) takes every 16th too; `--ignored` all of them.

use crate::pixel_behaviour::strict_limit;
use dxso::Opcode;
use dxso::ir::{RegisterKind, TextureType, Usage};
use dxso_decompile::{Dialect, Options};
use dxso_vm::{
    DeclType, Device, Format, Frequency, SamplerState, StreamSource, Texture, TextureKind,
    VertexElement,
};
use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;

const VERTICES: usize = 64;

/// An 8x8 single-level texture of `kind` whose texels all differ, or with `flat` every texel
/// (0.5, 0.25, 0.75, 1): a comparison that differs with varied texels and agrees with flat
/// ones differs in which texel a read picked.
pub(crate) fn texture_of(kind: TextureKind, flat: bool) -> Arc<Texture> {
    let (faces, depth) = match kind {
        TextureKind::Cube => (6, 1),
        TextureKind::Volume => (1, 8),
        TextureKind::TwoD => (1, 1),
    };
    let n = 64 * depth * faces;
    let bytes: Vec<u8> = (0..n)
        .flat_map(|t| {
            let f = t as f32 / n as f32;
            if flat {
                return [0.5, 0.25, 0.75, 1.0];
            }
            [
                f,
                1.0 - f,
                0.25 + (t % 7) as f32 * 0.125,
                0.5 + (t % 3) as f32 * 0.25,
            ]
        })
        .flat_map(f32::to_le_bytes)
        .collect();
    Arc::new(Texture::new(kind, Format::A32B32G32R32F, 8, 8, depth, &[bytes]).expect("a texture"))
}

/// The sampler registers the shader declares, with their texture kinds.
pub(crate) fn sampler_kinds(shader: &dxso::Shader) -> BTreeMap<u32, TextureKind> {
    let mut out = BTreeMap::new();
    for i in &shader.instructions {
        let (Opcode::Dcl, Some(d), Some(decl)) = (i.opcode, i.dst, i.decl) else {
            continue;
        };
        if d.reg.kind == RegisterKind::Sampler {
            let kind = match TextureType::from_u32(decl.texture_type as u32) {
                Some(TextureType::Cube) => TextureKind::Cube,
                Some(TextureType::Volume) => TextureKind::Volume,
                _ => TextureKind::TwoD,
            };
            out.insert(d.reg.number, kind);
        }
    }
    out
}

/// A deterministic generator of test values.
pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    pub(crate) fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32) / ((1u64 << 24) as f32)
    }
    /// In [lo, hi).
    pub(crate) fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
}

use dxso_gpu::Gpu;

/// dxso-gpu's device (its textures are bound by [`dxso_gpu::textures::bind`]).
fn gpu() -> Option<Gpu> {
    Gpu::new(None).ok()
}

/// The members (name, components) of struct `ty` in the HLSL.
pub(crate) fn members(hlsl: &str, ty: &str) -> Vec<(String, usize, String)> {
    let Some(start) = hlsl.find(&format!("struct {ty}\n{{\n")) else {
        return Vec::new();
    };
    let body = &hlsl[start..];
    let end = body.find("};").unwrap_or(body.len());
    body[..end]
        .lines()
        .skip(2)
        .filter_map(|l| {
            let (decl, sem) = l.trim().trim_end_matches(';').split_once(" : ")?;
            let (t, name) = decl.split_once(' ')?;
            let w = match t {
                "float" => 1,
                "float2" => 2,
                "float3" => 3,
                _ => 4,
            };
            Some((name.to_string(), w, sem.to_string()))
        })
        .collect()
}

/// The HLSL with a compute entry that runs `main` over buffers.
fn harness(hlsl: &str, inputs: usize, outputs: &[(String, usize, String)]) -> Option<String> {
    let mut s = hlsl
        .replace(
            "VS_OUTPUT main(VS_INPUT i)",
            "VS_OUTPUT vs_body(VS_INPUT i)",
        )
        .replace(
            "VS_OUTPUT main(VS_INPUT input)",
            "VS_OUTPUT vs_body(VS_INPUT input)",
        )
        .replace("VS_OUTPUT main()", "VS_OUTPUT vs_body()");
    if !s.contains("vs_body(") {
        return None;
    }
    s.push_str("\n[[vk::binding(1, 0)]] RWStructuredBuffer<float4> dxso_in;\n");
    s.push_str("[[vk::binding(2, 0)]] RWStructuredBuffer<float4> dxso_out;\n");
    s.push_str("[numthreads(64, 1, 1)]\nvoid cs_main(uint3 id : SV_DispatchThreadID)\n{\n");
    let ins = members(hlsl, "VS_INPUT");
    let call = if ins.is_empty() {
        "vs_body()".to_string()
    } else {
        s.push_str("    VS_INPUT v;\n");
        for (k, (name, _, _)) in ins.iter().enumerate() {
            s.push_str(&format!("    v.{name} = dxso_in[id.x * {inputs} + {k}];\n"));
        }
        "vs_body(v)".to_string()
    };
    s.push_str(&format!("    VS_OUTPUT r = {call};\n"));
    for (k, (name, w, _)) in outputs.iter().enumerate() {
        let value = match w {
            1 => format!("float4(r.{name}, 0, 0, 0)"),
            2 => format!("float4(r.{name}, 0, 0)"),
            3 => format!("float4(r.{name}, 0)"),
            _ => format!("r.{name}"),
        };
        s.push_str(&format!(
            "    dxso_out[id.x * {} + {k}] = {value};\n",
            outputs.len()
        ));
    }
    s.push_str("}\n");
    Some(s)
}

/// Compile `src` (HLSL) with glslang for `stage` (`vert`, `frag`, `comp`) and entry
/// `entry` into `spv`; the first error line where it fails.
pub(crate) fn glslang(
    src: &std::path::Path,
    stage: &str,
    entry: &str,
    spv: &std::path::Path,
) -> Result<(), String> {
    let built = Command::new("glslangValidator")
        .args([
            "-D",
            "--hlsl-dx9-compatible",
            "-e",
            entry,
            "-S",
            stage,
            "-V",
        ])
        .arg(src)
        .arg("-o")
        .arg(spv)
        .output()
        .expect("glslang runs");
    if built.status.success() {
        return Ok(());
    }
    Err(String::from_utf8_lossy(&built.stdout)
        .lines()
        .find(|l| l.starts_with("ERROR"))
        .unwrap_or("")
        .to_string())
}

/// `$Global` members and their byte offsets, from the SPIR-V's disassembly.
pub(crate) fn globals(spv: &std::path::Path) -> Vec<(String, u32)> {
    let out = Command::new("spirv-dis")
        .arg(spv)
        .output()
        .expect("spirv-dis runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut names = BTreeMap::new();
    let mut offsets = BTreeMap::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w.as_slice() {
            ["OpMemberName", "%_Global", k, name] => {
                names.insert(
                    k.parse::<u32>().unwrap_or(0),
                    name.trim_matches('"').to_string(),
                );
            }
            ["OpMemberDecorate", "%_Global", k, "Offset", off] => {
                offsets.insert(
                    k.parse::<u32>().unwrap_or(0),
                    off.parse::<u32>().unwrap_or(0),
                );
            }
            _ => {}
        }
    }
    names
        .into_iter()
        .filter_map(|(k, n)| Some((n, *offsets.get(&k)?)))
        .collect()
}

/// What one shader's comparison found.
enum Verdict {
    Skipped(&'static str),
    Match,
    Differ(String),
}

pub(crate) struct Consts {
    pub(crate) f: Vec<[f32; 4]>,
    pub(crate) i: [i32; 4],
}

fn compare(gpu: &Gpu, source: &str, dir: &std::path::Path, seed: u64, with_table: bool) -> Verdict {
    let Ok(shader) = dxso::text::parse(source) else {
        return Verdict::Skipped("does not assemble");
    };
    if !shader.version.is_vertex() {
        return Verdict::Skipped("pixel shader");
    }
    let Ok(checked) = dxso::validate::validate(&shader, &dxso::validate::Caps::max()) else {
        return Verdict::Skipped("does not validate");
    };
    let options = Options {
        dialect: Dialect::Glslang,
        asm_comments: false,
    };
    // With the table: the constant table's names and types (or the listing's header).
    let table = if with_table {
        match shader.constant_table() {
            Ok(Some(t)) => Some(t),
            _ => dxso_decompile::listing_table(source, shader.version),
        }
    } else {
        None
    };
    let Ok(hlsl) = dxso_decompile::decompile_with_table(&checked, table.as_ref(), &options) else {
        return Verdict::Differ("does not decompile".into());
    };
    // Inputs: the declared v# in declaration order (the order of VS_INPUT's members).
    let decls: Vec<(u32, Usage, u8)> = shader
        .instructions
        .iter()
        .filter(|i| i.opcode == Opcode::Dcl)
        .filter_map(|i| {
            let (d, decl) = (i.dst?, i.decl?);
            (d.reg.kind == RegisterKind::Input).then(|| {
                Some((
                    d.reg.number,
                    Usage::from_u32(decl.usage as u32)?,
                    decl.usage_index,
                ))
            })?
        })
        .collect();
    let outputs = members(&hlsl, "VS_OUTPUT");
    let Some(program) = harness(&hlsl, decls.len().max(1), &outputs) else {
        return Verdict::Differ("no main".into());
    };
    let src = dir.join(format!("{seed}.hlsl"));
    let spv = dir.join(format!("{seed}.spv"));
    std::fs::write(&src, &program).expect("writable");
    if let Err(e) = glslang(&src, "comp", "cs_main", &spv) {
        return Verdict::Differ(format!("harness does not compile: {e}"));
    }
    let mut rng = Lcg(seed);
    let consts = Consts {
        f: (0..256)
            .map(|_| [0; 4].map(|_| rng.range(-1.0, 1.0)))
            .collect(),
        i: [2, 1, 1, 0],
    };
    let mut input = vec![0f32; VERTICES * decls.len().max(1) * 4];
    for v in 0..VERTICES {
        for (k, (_, usage, _)) in decls.iter().enumerate() {
            for c in 0..4 {
                // Indices stay small so that relative reads stay inside the file.
                let x = if *usage == Usage::BlendIndices {
                    rng.range(0.0, 0.05)
                } else {
                    rng.range(-1.0, 1.0)
                };
                input[(v * decls.len().max(1) + k) * 4 + c] = x;
            }
        }
    }
    let kinds = sampler_kinds(&shader);
    let uniform =
        crate::pixel_behaviour::uniform_with_table(&globals(&spv), table.as_ref(), &hlsl, &consts);
    let words = crate::spirv_split::words(&std::fs::read(&spv).expect("spv"));
    // Vertex textures: glslang's combined image-samplers split for naga, in group 1.
    let (words, splits) = match crate::spirv_split::split(&words, 1) {
        Ok(s) => s,
        Err(e) => return Verdict::Differ(format!("SPIR-V split: {e:?}")),
    };
    // Both sides with textures whose texels differ (or, `flat`, are all equal).
    let attempt = |flat: bool| -> Result<(Outputs, Result<(), Difference>), String> {
        let expected = reference(&checked, &decls, &consts, &input, &kinds, flat)
            // The harness's state is the same for every shader: a refusal is a harness gap.
            .map_err(|e| format!("dxso-vm refuses the draw: {e}"))?;
        let mut bound = Vec::new();
        for s in &splits {
            let kind = kinds.get(&s.register).copied().unwrap_or(TextureKind::TwoD);
            let b = dxso_gpu::textures::bind(
                gpu,
                s.register,
                kind,
                Some(&texture_of(kind, flat)),
                &SamplerState::default(),
                false,
            )
            .map_err(|e| format!("texture s{}: {e}", s.register))?;
            bound.push((s.texture_binding, s.sampler_binding, b));
        }
        let got = run(gpu, &words, &uniform, &input, outputs.len(), &bound)
            .map_err(|e| format!("GPU: {e}"))?;
        let checked = check(&shader, &outputs, &expected, &got);
        Ok((expected, checked))
    };
    let (expected, (detail, at, non_finite)) = match attempt(false) {
        Ok((_, Ok(()))) => return Verdict::Match,
        Ok((expected, Err(d))) => (expected, d),
        Err(e) => return Verdict::Differ(e),
    };
    // The class, told as for pixel shaders (`pixel_behaviour::compare`): non-finite values,
    // then non-finite values dxso-vm wrote before the output (its trace), then texel choice
    // (flat textures agree), then ill-conditioned (dxso-vm's own value moves past the
    // tolerance with its inputs an ulp or two up).
    let Some((reg, v, c)) = at else {
        return Verdict::Differ(detail);
    };
    let value = |o: &Outputs| o[v].get(&reg).map(|r| r[c]);
    let class = if non_finite {
        NON_FINITE
    } else if non_finite_on_the_way(&checked, &decls, &consts, &input, &kinds, v) {
        NON_FINITE_ON_THE_WAY
    } else if !splits.is_empty() && matches!(attempt(true), Ok((_, Ok(())))) {
        TEXEL_CHOICE
    } else {
        let nudge = |x: f32| x * (1.0 + f32::EPSILON);
        let moved = Consts {
            f: consts.f.iter().map(|r| r.map(nudge)).collect(),
            i: consts.i,
        };
        let input: Vec<f32> = input.iter().copied().map(nudge).collect();
        match reference(&checked, &decls, &moved, &input, &kinds, false) {
            Ok(m) if matches!((value(&expected), value(&m)), (Some(a), Some(b)) if !close(a, b)) => {
                ILL_CONDITIONED
            }
            _ => return Verdict::Differ(detail),
        }
    };
    Verdict::Differ(format!("{class}: {detail}"))
}

/// dxso-vm's outputs: per vertex, each output register's value.
type Outputs = Vec<BTreeMap<String, [f32; 4]>>;

/// The class of a NaN, an infinity or D3D9's FLT_MAX stand-in on either side
/// ([`crate::pixel_behaviour::strict_limit`]).
const NON_FINITE: &str = "non-finite values (Strict against IEEE)";
/// The class of a difference where dxso-vm's own run wrote such a value before the output
/// ([`non_finite_on_the_way`]).
const NON_FINITE_ON_THE_WAY: &str = "non-finite values on the way (Strict against IEEE)";
/// The class of a difference that flat textures remove.
const TEXEL_CHOICE: &str = "texel choice";
/// The class of a difference that dxso-vm's own value shows when its inputs move by an ulp.
const ILL_CONDITIONED: &str = "ill-conditioned (an ulp of input moves the output)";

/// The `$Global` block: `c` (float4s), `cN` and `cF_L` (registers N, F to L), `iN` (int4),
/// `bN` (bool as a 32-bit word).
pub(crate) fn uniform_bytes(globals: &[(String, u32)], hlsl: &str, c: &Consts) -> Vec<u8> {
    let mut bytes = vec![0u8; 16];
    let mut put = |at: usize, data: &[u8]| {
        if bytes.len() < at + data.len() {
            bytes.resize(at + data.len(), 0);
        }
        bytes[at..at + data.len()].copy_from_slice(data);
    };
    for (name, off) in globals {
        let at = *off as usize;
        if name == "c" {
            let n = hlsl
                .split("float4 c[")
                .nth(1)
                .and_then(|s| s.split(']').next())
                .and_then(|s| s.parse::<usize>().ok())
                .unwrap_or(0);
            let data: Vec<u8> = c.f[..n.min(256)]
                .iter()
                .flatten()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            put(at, &data);
        } else if let Some(n) = name.strip_prefix('i').and_then(|n| n.parse::<u32>().ok()) {
            let _ = n;
            let data: Vec<u8> = c.i.iter().flat_map(|x| x.to_le_bytes()).collect();
            put(at, &data);
        } else if let Some(n) = name.strip_prefix('b').and_then(|n| n.parse::<u32>().ok()) {
            put(at, &u32::from(n % 2 == 0).to_le_bytes());
        } else if let Some((first, last)) = name
            .strip_prefix('c')
            .and_then(|n| n.split_once('_'))
            .and_then(|(f, l)| Some((f.parse::<usize>().ok()?, l.parse::<usize>().ok()?)))
        {
            // `cF_L`: registers F to L that the constant table does not name.
            let data: Vec<u8> = c.f[first.min(255)..=last.min(255)]
                .iter()
                .flatten()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            put(at, &data);
        } else if let Some(n) = name.strip_prefix('c').and_then(|n| n.parse::<usize>().ok()) {
            let data: Vec<u8> = c.f[n.min(255)]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            put(at, &data);
        }
    }
    let len = bytes.len().div_ceil(16) * 16;
    bytes.resize(len, 0);
    bytes
}

/// dxso-vm's outputs: per vertex, register name -> 4 floats.
fn reference(
    checked: &dxso::validate::Checked,
    decls: &[(u32, Usage, u8)],
    c: &Consts,
    input: &[f32],
    textures: &BTreeMap<u32, TextureKind>,
    flat: bool,
) -> Result<Outputs, String> {
    let dev = device(checked, decls, c, input, textures, flat)?;
    let out = dev.draw(VERTICES, 1).map_err(|e| e.to_string())?;
    Ok((0..VERTICES)
        .map(|v| {
            let regs = out.vertex(v);
            out.registers
                .iter()
                .enumerate()
                .map(|(k, r)| {
                    (
                        r.name.clone(),
                        [
                            regs[k * 4],
                            regs[k * 4 + 1],
                            regs[k * 4 + 2],
                            regs[k * 4 + 3],
                        ],
                    )
                })
                .collect()
        })
        .collect())
}

/// Whether an instruction dxso-vm ran for `vertex` wrote a NaN, an infinity or a magnitude of
/// 1e30 or more ([`strict_limit`]: D3D9's FLT_MAX stand-ins from `rcp(0)`, `rsq(0)`,
/// `log(0)`), read from its trace (the shader debugger's record of each write). Where the
/// GPU's IEEE arithmetic had an infinity or a NaN instead, a later `frc`, comparison or
/// `mova` of it parts the two: an out-of-range relative read of a constant gives 0 on both,
/// then `rcp(0)` gives FLT_MAX on one and infinity on the other, then an index from it reads
/// different registers.
fn non_finite_on_the_way(
    checked: &dxso::validate::Checked,
    decls: &[(u32, Usage, u8)],
    c: &Consts,
    input: &[f32],
    textures: &BTreeMap<u32, TextureKind>,
    vertex: usize,
) -> bool {
    let Ok(trace) = device(checked, decls, c, input, textures, false)
        .and_then(|d| d.trace(vertex, VERTICES, 1).map_err(|e| e.to_string()))
    else {
        return false;
    };
    trace.steps.iter().filter(|s| s.active).any(|s| {
        s.effect
            .split(|ch: char| !(ch.is_ascii_alphanumeric() || "+-.".contains(ch)))
            .any(|word| word.parse::<f32>().is_ok_and(strict_limit))
    })
}

/// dxso-vm's device set up with the shader, its textures, constants and one FLOAT4 element per
/// declared input.
fn device(
    checked: &dxso::validate::Checked,
    decls: &[(u32, Usage, u8)],
    c: &Consts,
    input: &[f32],
    textures: &BTreeMap<u32, TextureKind>,
    flat: bool,
) -> Result<Device, String> {
    let mut dev = Device::new();
    dev.set_vertex_shader(checked).map_err(|e| e.to_string())?;
    for (&n, &kind) in textures {
        dev.set_texture(n as usize, Some(texture_of(kind, flat)))
            .map_err(|e| e.to_string())?;
        dev.set_sampler_state(n as usize, SamplerState::default())
            .map_err(|e| e.to_string())?;
    }
    dev.set_constant_f(0, &c.f).map_err(|e| e.to_string())?;
    dev.set_constant_i(0, &[c.i; 16])
        .map_err(|e| e.to_string())?;
    let bools: Vec<bool> = (0..16).map(|n| n % 2 == 0).collect();
    dev.set_constant_b(0, &bools).map_err(|e| e.to_string())?;
    let n = decls.len().max(1);
    let elements = decls
        .iter()
        .enumerate()
        .map(|(k, (_, usage, index))| VertexElement {
            stream: 0,
            offset: (k * 16) as u16,
            ty: DeclType::Float4,
            method: 0,
            usage: *usage,
            usage_index: *index,
        })
        .collect();
    dev.set_declaration(elements).map_err(|e| e.to_string())?;
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    dev.set_stream(
        0,
        Some(StreamSource {
            data: bytes.into(),
            offset: 0,
            stride: n * 16,
            frequency: Frequency::Vertex,
        }),
    )
    .map_err(|e| e.to_string())?;
    Ok(dev)
}

/// The GPU's outputs: per vertex, one vec4 per VS_OUTPUT member.
fn run(
    gpu: &Gpu,
    spv: &[u32],
    uniform: &[u8],
    input: &[f32],
    outputs: usize,
    textures: &[(u32, u32, dxso_gpu::textures::Bound)],
) -> Result<Vec<f32>, String> {
    use wgpu::util::DeviceExt;
    let d = gpu.device();
    let scope = d.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = d.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::SpirV(std::borrow::Cow::Borrowed(spv)),
    });
    let pipeline = d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("cs_main"),
        compilation_options: Default::default(),
        cache: None,
    });
    if let Some(e) = pollster::block_on(scope.pop()) {
        // The first lines, and naga's cause lines (`= ...`) where it refused the module.
        let e = e.to_string();
        let cause = e.lines().filter(|l| l.trim_start().starts_with("= "));
        return Err(e
            .lines()
            .take(3)
            .chain(cause)
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" / "));
    }
    let layout = pipeline.get_bind_group_layout(0);
    let buffer = |data: &[u8], usage| {
        d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: data,
            usage,
        })
    };
    let ubo = buffer(uniform, wgpu::BufferUsages::UNIFORM);
    let mut in_bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    in_bytes.resize(in_bytes.len().max(16), 0);
    let inb = buffer(&in_bytes, wgpu::BufferUsages::STORAGE);
    let out_len = (VERTICES * outputs.max(1) * 16) as u64;
    let outb = d.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: out_len,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = d.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: out_len,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    // The automatic layout holds only the bindings the shader uses: try the full set, then
    // without the uniform block or the inputs.
    let mut group = None;
    for (with_ubo, with_in) in [(true, true), (false, true), (true, false), (false, false)] {
        let mut entries = Vec::new();
        if with_ubo {
            entries.push(wgpu::BindGroupEntry {
                binding: 0,
                resource: ubo.as_entire_binding(),
            });
        }
        if with_in {
            entries.push(wgpu::BindGroupEntry {
                binding: 1,
                resource: inb.as_entire_binding(),
            });
        }
        entries.push(wgpu::BindGroupEntry {
            binding: 2,
            resource: outb.as_entire_binding(),
        });
        let scope = d.push_error_scope(wgpu::ErrorFilter::Validation);
        let g = d.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &entries,
        });
        if pollster::block_on(scope.pop()).is_none() {
            group = Some(g);
            break;
        }
    }
    let group = group.ok_or("no bind group fits the layout")?;
    // The textures and samplers (bindings 2n, 2n + 1 of s#) in group 1.
    let texture_group = if textures.is_empty() {
        None
    } else {
        let scope = d.push_error_scope(wgpu::ErrorFilter::Validation);
        let entries: Vec<wgpu::BindGroupEntry<'_>> = textures
            .iter()
            .flat_map(|(t, s, b)| {
                [
                    wgpu::BindGroupEntry {
                        binding: *t,
                        resource: wgpu::BindingResource::TextureView(&b.view),
                    },
                    wgpu::BindGroupEntry {
                        binding: *s,
                        resource: wgpu::BindingResource::Sampler(&b.sampler),
                    },
                ]
            })
            .collect();
        let g = d.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(1),
            entries: &entries,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("texture bind group: {e}"));
        }
        Some(g)
    };
    let mut encoder = d.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        if let Some(g) = &texture_group {
            pass.set_bind_group(1, g, &[]);
        }
        pass.dispatch_workgroups((VERTICES as u32).div_ceil(64), 1, 1);
    }
    encoder.copy_buffer_to_buffer(&outb, 0, &readback, 0, out_len);
    gpu.queue().submit([encoder.finish()]);
    let slice = readback.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    d.poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| e.to_string())?;
    rx.recv()
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    let data: Vec<f32> = {
        let view = slice.get_mapped_range().map_err(|e| e.to_string())?;
        view.chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    };
    readback.unmap();
    Ok(data)
}

/// The dxso-vm register and first component of a VS_OUTPUT member's semantic.
fn register_of(shader: &dxso::Shader, semantic: &str) -> Option<(String, usize)> {
    let sem = semantic.to_ascii_uppercase();
    let (stem, index) = match sem.find(|c: char| c.is_ascii_digit()) {
        Some(p) => (sem[..p].to_string(), sem[p..].parse::<u8>().ok()?),
        None => (sem.clone(), 0),
    };
    let stem = if stem == "SV_POSITION" {
        "POSITION".to_string()
    } else {
        stem
    };
    if shader.version.major >= 3 {
        let usage = Usage::from_name(&stem)?;
        return shader.instructions.iter().find_map(|i| {
            let (d, decl) = (i.dst?, i.decl?);
            (i.opcode == Opcode::Dcl
                && d.reg.kind == RegisterKind::Output
                && decl.usage == usage as u8
                && decl.usage_index == index)
                .then(|| {
                    (
                        format!("o{}", d.reg.number),
                        d.mask.0.trailing_zeros() as usize,
                    )
                })
        });
    }
    Some(match stem.as_str() {
        "POSITION" => ("oPos".into(), 0),
        "FOG" => ("oFog".into(), 0),
        "PSIZE" => ("oPts".into(), 0),
        "COLOR" => (format!("oD{index}"), 0),
        "TEXCOORD" => (format!("oT{index}"), 0),
        _ => return None,
    })
}

pub(crate) fn close(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-3 + 1e-3 * a.abs().max(b.abs())
}

/// The first difference: its description, for a value that differs where (dxso-vm's
/// register, the vertex, the component), and whether either side's value is non-finite
/// ([`crate::pixel_behaviour::strict_limit`]).
type Difference = (String, Option<(String, usize, usize)>, bool);

fn check(
    shader: &dxso::Shader,
    outputs: &[(String, usize, String)],
    expected: &[BTreeMap<String, [f32; 4]>],
    got: &[f32],
) -> Result<(), Difference> {
    for (k, (name, w, sem)) in outputs.iter().enumerate() {
        let Some((reg, first)) = register_of(shader, sem) else {
            return Err((format!("no register for {sem}"), None, false));
        };
        for v in 0..VERTICES {
            let Some(want) = expected[v].get(&reg) else {
                return Err((format!("dxso-vm has no {reg}"), None, false));
            };
            for c in 0..*w {
                let g = got[(v * outputs.len() + k) * 4 + c];
                let e = want.get(first + c).copied().unwrap_or(0.0);
                if !close(e, g) {
                    let detail = format!(
                        "{name} ({reg}) .{} of vertex {v}: dxso-vm {e}, GPU {g}",
                        ['x', 'y', 'z', 'w'][c.min(3)]
                    );
                    let at = (first + c < 4).then(|| (reg.clone(), v, first + c));
                    let non_finite = strict_limit(e) || strict_limit(g);
                    return Err((detail, at, non_finite));
                }
            }
        }
    }
    Ok(())
}

fn sweep(step: usize, with_table: bool) {
    if !(dxso_testdata::tool("glslangValidator", "glslang-tools")
        && dxso_testdata::tool("spirv-dis", "spirv-tools"))
    {
        return;
    }
    let Some(dir) = dxso_testdata::shared("corpus/dx9-asm") else {
        return;
    };
    let Some(gpu) = gpu() else {
        dxso_testdata::skip("no Vulkan adapter (lavapipe: Debian mesa-vulkan-drivers)");
        return;
    };
    // One directory per sweep: the sweeps run at once in one process.
    let tmp = std::env::temp_dir().join(format!(
        "dxso-decompile-behaviour-{}-{step}-{with_table}",
        std::process::id()
    ));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let files = corpus_sample(&dir, "vs", step);
    let (mut matched, mut compared) = (0, 0);
    // Of those, the shaders that sample textures (texldl).
    let (mut textured_matched, mut textured) = (0, 0);
    let mut skipped: BTreeMap<&str, usize> = BTreeMap::new();
    let mut differ: Vec<(String, String)> = Vec::new();
    for (seed, path) in &files {
        let source = dxso_testdata::read_text(path);
        let samples = source.contains("texldl");
        match compare(&gpu, &source, &tmp, *seed, with_table) {
            Verdict::Skipped(why) => *skipped.entry(why).or_default() += 1,
            Verdict::Match => {
                matched += 1;
                compared += 1;
                textured_matched += usize::from(samples);
                textured += usize::from(samples);
            }
            Verdict::Differ(why) => {
                compared += 1;
                textured += usize::from(samples);
                let name = path
                    .strip_prefix(&dir)
                    .unwrap_or(path)
                    .display()
                    .to_string();
                differ.push((name, why));
            }
        }
    }
    // DXSO_BEHAVIOUR_KEEP=1: keep the HLSL and SPIR-V (named by the shader's index).
    if std::env::var_os("DXSO_BEHAVIOUR_KEEP").is_some() {
        eprintln!("kept in {}", tmp.display());
    } else {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    for (name, why) in &differ {
        eprintln!("differs: {name}: {why}");
    }
    let mut classes: BTreeMap<&str, usize> = BTreeMap::new();
    for class in [
        NON_FINITE,
        NON_FINITE_ON_THE_WAY,
        TEXEL_CHOICE,
        ILL_CONDITIONED,
    ] {
        classes.insert(
            class,
            differ.iter().filter(|d| d.1.starts_with(class)).count(),
        );
    }
    eprintln!(
        "behaviour (constant table: {with_table}): {matched} of {compared} vertex shaders give dxso-vm's outputs through \
         decompile + glslang + naga on the GPU ({textured_matched} of {textured} that sample \
         textures); of the rest by class: {classes:?}; skipped: {skipped:?}"
    );
    assert!(compared > 0);
    assert!(
        matched * 100 >= compared * 97,
        "{matched} of {compared} match (< 97%)"
    );
}

#[test]
fn vertex_shaders_behave_as_the_original() {
    sweep(16, false);
}

#[test]
#[ignore = "every corpus vertex shader: minutes on lavapipe"]
fn every_vertex_shader_behaves_as_the_original() {
    sweep(1, false);
}

/// The same with the constant tables' names and types (every 16th shader).
#[test]
fn vertex_shaders_with_their_constant_tables_behave() {
    sweep(16, true);
}

#[test]
#[ignore = "every corpus vertex shader with its constant table: minutes on lavapipe"]
fn every_vertex_shader_with_its_constant_table_behaves() {
    sweep(1, true);
}

/// Every `step`th corpus file of `profile` (`"vs"`, `"ps"`) with the seed of its inputs (its
/// place in that selection, from 1), or with `DXSO_BEHAVIOUR_ONLY=NAME,...` just the files
/// whose paths contain one of the names, with the seeds they have in the whole selection: the
/// same `step` then gives the same inputs (to look at a difference).
pub(crate) fn corpus_sample(
    dir: &std::path::Path,
    profile: &str,
    step: usize,
) -> Vec<(u64, std::path::PathBuf)> {
    let only = std::env::var("DXSO_BEHAVIOUR_ONLY").ok();
    dxso_testdata::asm_files(dir)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(&format!("/{profile}_")))
        .step_by(step)
        .enumerate()
        .filter(|(_, p)| {
            only.as_ref()
                .is_none_or(|only| only.split(',').any(|o| p.to_string_lossy().contains(o)))
        })
        .map(|(k, p)| (k as u64 + 1, p))
        .collect()
}
