//! # Pixel shaders (ps_1_1 .. ps_3_0) on the CPU, one batch of 2x2 quads at a time
//!
//! A rasterizer (dxso-draw) fills a [`PixelBatch`]: [`LANES`] pixels as quads (lane 4q+0 =
//! pixel (x, y), 4q+1 = (x+1, y), 4q+2 = (x, y+1), 4q+3 = (x+1, y+1)), the shader's inputs
//! in the order of [`PixelState::inputs`], vPos, vFace, the covered (`live`) lanes and the
//! interpolated depth; [`PixelRunner::run`] shades it on the vertex engine's interpreter
//! (the same lowered ops, execution masks and arithmetic, C1-C16 of
//! `../shared/spec/instructions.md`) and writes the colours, depth and discards back — or
//! on compiled code (the x86 code generator at the path's width, Cranelift's on the base
//! path; [`PixelState::set_options`] and [`PixelState::code_generator`]) where the compiled
//! tier covers the program, with the same bits: the `compile` module says what it covers
//! (not yet `texbem`, `bem`, `texbeml`, `texm3x3spec`/`vspec`, nor dynamic flow on
//! Cranelift's code: those run on the interpreter).
//!
//! ## Rules, with their sources (Microsoft's Direct3D 9 asm reference pages unless noted)
//!
//! - **Registers** (`dx9-graphics-reference-asm-ps-registers-*`): ps_3_0 inputs `v0..v9` by
//!   their `dcl` semantic, read relatively as `v[aL + n]` too (outside v0..v9 reads 0, C4);
//!   ps_2_0/2_x `v0`/`v1` are COLOR0/1 and `t#` TEXCOORD#; ps_1_x the same with no `dcl`
//!   (the inputs a shader reads are found from its instructions, all four components).
//!   [`PixelInput::color`] marks the ps_1_x/ps_2_x colours the rasterizer clamps to [0, 1]
//!   (`pixel-pipeline.md`); ps_3_0 inputs are not clamped. `vPos` reads (x, y, 0, 0), `vFace`
//!   its value in every component. Outputs oC0..oC3 start each pixel at (0, 0, 0, 0);
//!   ps_1_x's colour is r0 at the end (ps_1_x registers page); oDepth starts as the
//!   interpolated depth, so a lane that does not write it keeps that. Colours and depth
//!   come back with one NaN (`f32::NAN`) for every NaN (no payloads: see `one_nan`).
//! - **Instructions**: everything the vertex engine runs, with its arithmetic; `cmp`:
//!   s0 >= 0 ? s1 : s2 (NaN picks s2); `cnd`: s0 > 0.5 ? s1 : s2, in ps_1_1..1_3 s0 is r0.a
//!   replicated whatever its swizzle (`cnd---ps`); `dp2add`: s0.x*s1.x + s0.y*s1.y + s2.x
//!   (s2's selected component), with the zero-product rule (C8).
//! - **ps_1_x modifiers** (`dx9-graphics-reference-asm-ps-registers-modifiers-*`,
//!   `...-instructions-modifiers-ps-1-x`): sources `_bias` (x − 0.5), `_bx2` (2(x − 0.5)),
//!   `1 − x`, `_x2` (2x), negation applied after them; destination shifts `_x2 _x4 _x8 _d2
//!   _d4 _d8` multiply the result before `_sat`. Co-issued pairs (`+`) both read the
//!   registers as they were before the pair (the first one's result is stored after the
//!   second runs). Registers have float range: dxso does not clamp temporaries to
//!   `PixelShader1xMaxValue` (a device's cap, at least 1), but **clamps ps_1_x constants to
//!   [−1, 1]** (`def` and API values alike; the DirectX 8 register reference gives
//!   registers that range; wined3d, a behaviour reference, clamps ps 1.x constants too) —
//!   dxso's choice, tested. (dxso-naga's ps1x translation does not clamp constants yet.)
//! - **texkill** (`texkill---ps`): ps_1_x discards the pixel if any of x, y, z of the
//!   operand is below 0 (ps_1_1..1_3: the interpolated coordinates of the stage; ps_1_4:
//!   the register); ps_2_0+ tests the components of the operand's write mask (all four for
//!   `texkill r0`: HLSL's `clip` of a float4 compiles to it; wined3d, a behaviour
//!   reference, and dxso-naga's translation do the same) — dxso's reading, tested. Only lanes that execute it (masks, predicate) are killed; helper lanes
//!   (`live` false) run every instruction but never report a discard.
//! - **Derivatives**: `dsx`/`dsy` are "fine" quad differences ([`quad`]: right minus left
//!   within the lane's quad row, bottom minus top within its column); in divergent flow
//!   they read whatever the other lanes hold (undefined in D3D9: `dsx---ps`).
//! - **Texture sampling**: `texld` (ps_2_0+: result swizzled by the sampler operand's
//!   swizzle), `texldp` (x, y, z divided by w first), `texldb` (LOD + w), `texldl` (LOD =
//!   w), `texldd` (explicit gradients), ps_1_4 `texld` (stage = the destination's number;
//!   `_dz` divides x, y by z, `_dw` x, y, z by w), ps_1_1..1_3 `tex` (stage #; divided by w
//!   when the stage's [`StageState::projected`] is set: dxso's choice of the last
//!   coordinate, since the count of TEXTURETRANSFORMFLAGS is not in [`StageState`]). A
//!   division by 0 multiplies by `FLT_MAX` (C5). The implicit level of detail is
//!   per pixel: rho = max(|d(uv\[w\])/dx|, |d(uv\[w\])/dy|) of the coordinates scaled by the
//!   level-0 size (w for volumes only; cube maps: the direction divided by its major axis,
//!   times half the face size), LOD = log2(rho) (`pixel-pipeline.md`: the usual choice;
//!   the D3D9 pages give no formula); [`crate::sample`] then adds MIPMAPLODBIAS, picks MAG
//!   or MIN by the sign and clamps by MAXMIPLEVEL. An unbound sampler reads (0, 0, 0, 1)
//!   (dxso's choice, as most D3D9 hardware and the vertex engine's `texldl`).
//! - **ps_1_x texture addressing** (each instruction's `---ps` page): `texcoord` writes
//!   (u, v, w, 1) clamped to [0, 1]; in ps_1_1 .. ps_1_3 a `t#` no texture instruction
//!   wrote reads its coordinates, unclamped (dxso emulates an unlimited
//!   `PixelShader1xMaxValue`; dxso-naga's `PS1X_CLAMP` range set huge agrees); `texcrd` copies (with `_dz`/`_dw` division); `texbem`/`texbeml`
//!   u' = u + M00 r + M10 g, v' = v + M01 r + M11 g with the destination stage's
//!   BUMPENVMAT, texbeml then multiplies the texel by b·LSCALE + LOFFSET; `bem` writes
//!   (u', v') from its two sources; `texreg2ar` samples at (a, r), `texreg2gb` (g, b),
//!   `texreg2rgb` (r, g, b); `texm3x2pad/tex/depth`, `texm3x3pad/tex/spec/vspec`, `texm3x3`
//!   dot the stages' coordinates (xyz) with the source; spec/vspec reflect the eye ray
//!   (c# or the three stages' w) about the result: 2N(N·E)/(N·N) − E; `texdp3tex` samples
//!   at (u, 0), `texdp3` writes the dot product; `texdepth` and `texm3x2depth` replace the
//!   depth by the ratio of two values (1.0 where the divisor is 0). `phase`: the alpha of
//!   r0..r5 does not persist across it (`phase---ps`); dxso makes it 0, as dxso-naga does.
//!   `tex` with D3DTTFF_PROJECTED divides by w (dxso-naga divides by z for
//!   `D3DTTFF_COUNT3 | D3DTTFF_PROJECTED`, a count [`StageState`] does not carry).
//! - **Budget**: [`PixelState::set_max_instructions`] bounds the ops a batch executes
//!   (loops included); past it the run ends with [`VmError::InstructionLimit`].

pub(crate) mod exec;
pub(crate) mod lower;
pub(crate) mod quad;
#[cfg(test)]
mod tests;

use crate::by_name::{ConstantRegisters, by_name_methods};
use crate::compile::{Jit, take_callback_panic};
use crate::exec::{CONST_PAD, Machine, NoTrace, Tracer, Uniforms};
use crate::program::{Program, lower_any};
use crate::texture::Sampling;
use crate::{CodeGenerator, Isa, Options, Tier};
use crate::{LANES, SamplerError, SamplerState, Texture, Trace, VmError};
use dxso::ctab::{ConstantTable, CtabError};
use dxso::ir::{RegisterKind, TextureType, Usage, Version};
use dxso::opcodes::Opcode;
use dxso::validate::Checked;
use lower::{DEPTH_ROW, input_row};
pub(crate) use lower::{OUTPUT_ROWS, PixelLowering, PixelOp, PixelRows};
use std::sync::{Arc, OnceLock};

/// Lanes of a batch form quads: lane 4q+0 = pixel (x, y), 4q+1 = (x+1, y), 4q+2 =
/// (x, y+1), 4q+3 = (x+1, y+1).
pub const QUAD: usize = 4;

/// Texture samplers a pixel shader may use (s0..s15).
pub const PIXEL_SAMPLERS: usize = 16;
/// Texture stages (D3DTSS_*) ps_1_x reads.
pub const TEXTURE_STAGES: usize = 8;

/// One input register the shader reads, which the rasterizer fills.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PixelInput {
    /// `v0`, `v1`, `t3` (as the disassembly names it).
    pub register: String,
    /// ps_3_0: its dcl semantic; ps_1_x/2_x: v0/v1 = Color 0/1, t# = TexCoord #.
    pub usage: Usage,
    /// The semantic's index.
    pub usage_index: u8,
    /// Components declared/read (bit 0 = x); the run reads only these from the batch (a
    /// ps_3_0 register packing two semantics is listed once for each, with its components).
    pub mask: u8,
    /// A ps_1_x/ps_2_x colour input: the rasterizer clamps it to [0, 1].
    pub color: bool,
}

/// Texture stage states ps_1_x reads (D3DTSS_*). Default: all zero, not projected (the
/// D3D9 defaults).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct StageState {
    /// BUMPENVMAT00, 01, 10, 11.
    pub bump_env_mat: [f32; 4],
    /// BUMPENVLSCALE (`texbeml`'s luminance scale).
    pub bump_env_lscale: f32,
    /// BUMPENVLOFFSET (`texbeml`'s luminance offset).
    pub bump_env_loffset: f32,
    /// TEXTURETRANSFORMFLAGS has D3DTTFF_PROJECTED (ps_1_1..1_3 `tex` divides by the last
    /// coordinate, w).
    pub projected: bool,
}

/// What the sampling ops see of one draw.
pub(crate) struct Stages<'a> {
    pub textures: &'a [Option<Arc<Texture>>; PIXEL_SAMPLERS],
    pub samplers: &'a [SamplerState; PIXEL_SAMPLERS],
    pub stages: &'a [StageState; TEXTURE_STAGES],
}

/// One draw's pixel shader with its constants, textures, samplers and stages.
///
/// ```
/// use dxso::validate::{validate, Caps};
/// use dxso_vm::{LANES, PixelBatch, PixelState};
///
/// let ps = dxso::text::parse("ps_2_0\ndcl v0\nmul oC0, v0, c0\n").unwrap();
/// let mut state = PixelState::new(&validate(&ps, &Caps::max()).unwrap()).unwrap();
/// state.set_constant_f(0, &[[0.5, 0.25, 1.0, 1.0]]).unwrap();
/// assert_eq!(state.inputs()[0].register, "v0");
/// // One runner per thread, reused batch after batch.
/// let mut runner = state.runner();
/// let mut batch = PixelBatch::new(&state);
/// batch.inputs[0] = [[0.8; LANES]; 4]; // v0 of every lane (x, y, z, w rows)
/// runner.run(&mut batch).unwrap();
/// assert_eq!(batch.color[0][1][0], 0.2); // oC0.y of lane 0
/// ```
#[derive(Clone, Debug)]
pub struct PixelState {
    program: Program,
    version: Version,
    inputs: Vec<PixelInput>,
    /// The base row of each input.
    input_rows: Vec<u16>,
    /// ps_1_1 .. ps_1_3: (coordinate row, t# register row) pairs copied at the start of
    /// each pixel (a `t#` holds its coordinates until a texture instruction writes it).
    tex_init: Vec<(u16, u16)>,
    reads_position: bool,
    reads_face: bool,
    color_outputs: u8,
    writes_depth: bool,
    consts: Vec<[f32; 4]>,
    ints: [[i32; 4]; 16],
    bools: [bool; 16],
    textures: [Option<Arc<Texture>>; PIXEL_SAMPLERS],
    samplers: [SamplerState; PIXEL_SAMPLERS],
    stages: [StageState; TEXTURE_STAGES],
    max_instructions: u64,
    constant_table: Result<Option<ConstantTable>, CtabError>,
    /// The tier and instruction-set path ([`PixelState::set_options`]).
    options: Options,
    /// The program compiled for `options` on first use (shared by clones: the same program
    /// and options), or why not.
    jit: Arc<OnceLock<Result<Jit, String>>>,
}

/// A batch of pixels: filled by the rasterizer, results written by the run.
#[derive(Clone, Debug)]
pub struct PixelBatch {
    /// One entry per [`PixelState::inputs`], same order.
    pub inputs: Vec<[[f32; LANES]; 4]>,
    /// vPos x, y (integer pixel coordinates).
    pub pos: [[f32; LANES]; 2],
    /// vFace: +1 front, −1 back.
    pub face: [f32; LANES],
    /// Covered pixels; false = helper lane (runs, only for derivatives) or unused.
    pub live: [bool; LANES],
    /// Out: oC0..oC3 (ps_1_x: r0 in `color[0]`).
    pub color: [[[f32; LANES]; 4]; 4],
    /// In: the interpolated depth; out: oDepth where the shader writes it.
    pub depth: [f32; LANES],
    /// Out: texkill (only live lanes).
    pub discarded: [bool; LANES],
}

impl PixelBatch {
    /// A batch with zero inputs for `state`'s shader, every lane live, front-facing.
    pub fn new(state: &PixelState) -> PixelBatch {
        PixelBatch {
            inputs: vec![[[0.0; LANES]; 4]; state.inputs.len()],
            pos: [[0.0; LANES]; 2],
            face: [1.0; LANES],
            live: [true; LANES],
            color: [[[0.0; LANES]; 4]; 4],
            depth: [0.0; LANES],
            discarded: [false; LANES],
        }
    }
}

/// Constant registers per version: (c#, i#, b#). i# and b# are the API's 16 whatever the
/// version (SetPixelShaderConstantI/B take 16).
fn limits(v: Version) -> (usize, usize, usize) {
    match v.major {
        3.. => (224, 16, 16),
        2 => (32, 16, 16),
        _ => (8, 16, 16),
    }
}

impl PixelState {
    /// Lower a validated pixel shader; vertex shaders are refused.
    pub fn new(shader: &Checked) -> Result<PixelState, VmError> {
        let s = shader.shader();
        if !s.version.is_pixel() {
            return Err(VmError::NotPixelShader);
        }
        let program = lower_any(s).map_err(VmError::Lower)?;
        let version = s.version;
        let (inputs, input_rows) = find_inputs(s);
        let reads = |kind: RegisterKind, n: u32| {
            s.instructions.iter().any(|i| {
                i.srcs
                    .iter()
                    .any(|x| x.reg.kind == kind && x.reg.number == n)
                    || (i.opcode == Opcode::Dcl
                        && i.dst
                            .is_some_and(|d| d.reg.kind == kind && d.reg.number == n))
            })
        };
        let mut color_outputs = 0u8;
        let mut writes_depth = false;
        for i in &s.instructions {
            if let Some(d) = i.dst {
                match d.reg.kind {
                    RegisterKind::ColorOut if d.reg.number < 4 => {
                        color_outputs |= 1 << d.reg.number
                    }
                    RegisterKind::DepthOut => writes_depth = true,
                    _ => {}
                }
            }
            if matches!(i.opcode, Opcode::TexDepth | Opcode::TexM3x2Depth) {
                writes_depth = true;
            }
        }
        if version.major < 2 {
            color_outputs = 1;
        }
        let (c, _, _) = limits(version);
        let tex_init = if version.number() < 0x104 {
            inputs
                .iter()
                .zip(&input_rows)
                .filter_map(|(i, &row)| {
                    let n: u16 = i.register.strip_prefix('t')?.parse().ok()?;
                    Some((
                        row,
                        crate::program::TEMP_BASE + (lower::TEX_RESULT_TEMP + n) * 4,
                    ))
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(PixelState {
            program,
            version,
            inputs,
            input_rows,
            tex_init,
            reads_position: reads(RegisterKind::MiscType, 0),
            reads_face: reads(RegisterKind::MiscType, 1),
            color_outputs,
            writes_depth,
            consts: vec![[0.0; 4]; c],
            ints: [[0; 4]; 16],
            bools: [false; 16],
            textures: Default::default(),
            samplers: [SamplerState::default(); PIXEL_SAMPLERS],
            stages: [StageState::default(); TEXTURE_STAGES],
            max_instructions: 1 << 20,
            constant_table: s.constant_table(),
            options: Options::default(),
            jit: Arc::default(),
        })
    }

    /// How batches run: the tier and the instruction-set path, as a vertex device's
    /// ([`crate::Device::set_options`]; the path is capped by what the processor has).
    /// Default [`Options::default`]: compiled code where the compiled tier covers the
    /// program (the `compile` module), the interpreter elsewhere; every choice gives the
    /// same bits.
    pub fn set_options(&mut self, options: Options) {
        self.options = Options {
            isa: options.isa.min(Isa::detect()),
            ..options
        };
        self.jit = Arc::default();
    }

    /// The options batches run with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The code generator whose code runs this shader's batches, or `None` where the
    /// interpreter does (the tier, or a program the compiled tier does not cover:
    /// [`PixelState::why_interpreted`]).
    pub fn code_generator(&self) -> Option<CodeGenerator> {
        self.compiled().map(Jit::generator)
    }

    /// Why the interpreter runs this shader's batches (`None` where compiled code does).
    pub fn why_interpreted(&self) -> Option<String> {
        if self.options.tier == Tier::Interpreted {
            return Some("the interpreted tier".into());
        }
        self.compiled_or_why().err()
    }

    fn compiled(&self) -> Option<&Jit> {
        if self.options.tier == Tier::Interpreted {
            return None;
        }
        self.compiled_or_why().ok()
    }

    fn compiled_or_why(&self) -> Result<&Jit, String> {
        self.jit
            .get_or_init(|| crate::compile::compile(&self.program, &self.options))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The input registers the shader reads, in the order [`PixelBatch::inputs`] takes them.
    pub fn inputs(&self) -> &[PixelInput] {
        &self.inputs
    }
    /// Whether the shader reads vPos (ps_3_0).
    pub fn reads_position(&self) -> bool {
        self.reads_position
    }
    /// Whether the shader reads vFace (ps_3_0).
    pub fn reads_face(&self) -> bool {
        self.reads_face
    }
    /// Bit n: oCn written (ps_1_x: bit 0, the result is r0).
    pub fn color_outputs(&self) -> u8 {
        self.color_outputs
    }
    /// Whether the shader replaces the depth (oDepth, ps_1_4 texdepth, texm3x2depth).
    pub fn writes_depth(&self) -> bool {
        self.writes_depth
    }
    /// The shader (as validated), for a caller that translates it (the GPU path).
    pub fn shader(&self) -> &dxso::Shader {
        &self.program.shader
    }
    /// The texture bound to sampler `n` (`None`: unbound or past s15).
    pub fn texture(&self, n: usize) -> Option<&Arc<Texture>> {
        self.textures.get(n)?.as_ref()
    }
    /// The sampler state of sampler `n` (the default past s15).
    pub fn sampler_state(&self, n: usize) -> SamplerState {
        self.samplers.get(n).copied().unwrap_or_default()
    }
    /// The ps_1_x texture stage states of stage `n` (the default past stage 7).
    pub fn stage(&self, n: usize) -> StageState {
        self.stages.get(n).copied().unwrap_or_default()
    }
    /// The shader's version.
    pub fn version(&self) -> Version {
        self.version
    }
    /// The samplers the shader reads with their texture types: its `dcl_*` samplers
    /// (ps_2_0+), or for ps_1_x (which declares none) the stage of each texture instruction
    /// that samples (cube for texm3x3tex/spec/vspec, volume for texreg2rgb, 2D otherwise:
    /// the types those instructions are written for). Sampling uses whatever texture is
    /// bound; this is for the caller's checks.
    pub fn samplers(&self) -> Vec<(u8, TextureType)> {
        if self.version.major >= 2 {
            return self.program.samplers.clone();
        }
        use Opcode as O;
        let mut out: Vec<(u8, TextureType)> = Vec::new();
        let ps14 = self.version.number() >= 0x104;
        for i in &self.program.shader.instructions {
            let ty = match i.opcode {
                O::TexM3x3Tex | O::TexM3x3Spec | O::TexM3x3VSpec => TextureType::Cube,
                O::TexReg2Rgb => TextureType::Volume,
                O::Tex if ps14 || i.srcs.is_empty() => TextureType::TwoD,
                O::TexBem | O::TexBemL | O::TexReg2Ar | O::TexReg2Gb | O::TexM3x2Tex => {
                    TextureType::TwoD
                }
                O::TexDp3Tex => TextureType::OneD,
                _ => continue,
            };
            if let Some(d) = i.dst
                && !out.iter().any(|s| s.0 == d.reg.number as u8)
            {
                out.push((d.reg.number as u8, ty));
            }
        }
        out.sort_by_key(|s| s.0);
        out
    }

    /// `SetPixelShaderConstantF`: c0..c223 (ps_3_0), c0..c31 (ps_2_x), c0..c7 (ps_1_x).
    pub fn set_constant_f(&mut self, start: u32, v: &[[f32; 4]]) -> Result<(), VmError> {
        let end = start as usize + v.len();
        if end > self.consts.len() {
            return Err(VmError::ConstantRange {
                set: dxso::ctab::RegisterSet::Float4,
                index: (end.max(1) - 1) as u32,
            });
        }
        self.consts[start as usize..end].copy_from_slice(v);
        Ok(())
    }
    /// `SetPixelShaderConstantI`: i0..i15.
    pub fn set_constant_i(&mut self, start: u32, v: &[[i32; 4]]) -> Result<(), VmError> {
        let end = start as usize + v.len();
        if end > limits(self.version).1 {
            return Err(VmError::ConstantRange {
                set: dxso::ctab::RegisterSet::Int4,
                index: (end.max(1) - 1) as u32,
            });
        }
        self.ints[start as usize..end].copy_from_slice(v);
        Ok(())
    }
    /// `SetPixelShaderConstantB`: b0..b15.
    pub fn set_constant_b(&mut self, start: u32, v: &[bool]) -> Result<(), VmError> {
        let end = start as usize + v.len();
        if end > limits(self.version).2 {
            return Err(VmError::ConstantRange {
                set: dxso::ctab::RegisterSet::Bool,
                index: (end.max(1) - 1) as u32,
            });
        }
        self.bools[start as usize..end].copy_from_slice(v);
        Ok(())
    }
    /// Register `c{n}` as set through the API, `None` past the file.
    pub fn constant_f(&self, n: u32) -> Option<[f32; 4]> {
        self.consts.get(n as usize).copied()
    }
    /// Register `i{n}`, `None` past `i15`.
    pub fn constant_i(&self, n: u32) -> Option<[i32; 4]> {
        self.ints.get(n as usize).copied()
    }
    /// Register `b{n}`, `None` past `b15`.
    pub fn constant_b(&self, n: u32) -> Option<bool> {
        self.bools.get(n as usize).copied()
    }

    /// The shader's constant table: `Ok(None)` when it carries none, an error when its
    /// CTAB comment block is malformed.
    pub fn constant_table(&self) -> Result<Option<&ConstantTable>, &CtabError> {
        self.constant_table.as_ref().map(Option::as_ref)
    }

    /// Name the constants with a table from elsewhere; `None` forgets the names.
    pub fn set_constant_table(&mut self, t: Option<ConstantTable>) {
        self.constant_table = Ok(t);
    }

    by_name_methods!();

    /// `SetTexture` for sampler `n` (< 16); `None` unbinds (reads (0, 0, 0, 1)).
    pub fn set_texture(&mut self, n: usize, t: Option<Arc<Texture>>) -> Result<(), VmError> {
        let slot = self
            .textures
            .get_mut(n)
            .ok_or(VmError::Sampler(SamplerError::NotPixelSampler(n)))?;
        *slot = t;
        Ok(())
    }

    /// `SetSamplerState` for sampler `n` (< 16).
    pub fn set_sampler_state(&mut self, n: usize, s: SamplerState) -> Result<(), VmError> {
        let slot = self
            .samplers
            .get_mut(n)
            .ok_or(VmError::Sampler(SamplerError::NotPixelSampler(n)))?;
        *slot = s;
        Ok(())
    }

    /// The texture stage states of stage `n` (< 8) that ps_1_x reads.
    pub fn set_stage(&mut self, n: usize, s: StageState) -> Result<(), VmError> {
        let slot = self
            .stages
            .get_mut(n)
            .ok_or(VmError::Sampler(SamplerError::NotStage(n)))?;
        *slot = s;
        Ok(())
    }

    /// The most ops one batch may execute (at least 65535, as for vertex shaders): past it
    /// the run ends with [`VmError::InstructionLimit`].
    pub fn set_max_instructions(&mut self, n: u64) {
        self.max_instructions = n.max(0xFFFF);
    }

    /// Per-thread scratch (the register arena), reusable across batches. The constants as
    /// they are now are taken in (with the shader's `def`s over them).
    pub fn runner(&self) -> PixelRunner<'_> {
        let ps1 = self.version.major < 2;
        let mut file = vec![[0.0f32; 4]; CONST_PAD];
        file.extend_from_slice(&self.consts);
        for &(n, v) in &self.program.defs {
            if let Some(r) = file.get_mut(CONST_PAD + n as usize) {
                *r = v;
            }
        }
        if ps1 {
            for r in &mut file[CONST_PAD..] {
                *r = r.map(|x| if x.is_nan() { x } else { x.clamp(-1.0, 1.0) });
            }
        }
        // The zero register after the file (reads outside it, C4), then the padding.
        file.extend(std::iter::repeat_n([0.0; 4], 1 + CONST_PAD));
        let mut ints = self.ints;
        for &(n, v) in &self.program.defis {
            if let Some(r) = ints.get_mut(n as usize) {
                *r = v;
            }
        }
        let mut bools = self.bools;
        for &(n, v) in &self.program.defbs {
            if let Some(r) = bools.get_mut(n as usize) {
                *r = v;
            }
        }
        let mut runner = PixelRunner {
            state: self,
            file,
            ints,
            bools,
            machine: None,
            jit: self.compiled(),
        };
        let machine = {
            let sampling = no_sampling();
            let u = uniforms(
                &runner.file,
                &runner.ints,
                &runner.bools,
                self.max_instructions,
                &sampling,
            );
            Machine::new(&self.program, &u)
        };
        runner.machine = Some(machine);
        runner
    }
}

impl ConstantRegisters for PixelState {
    fn table(&self) -> Result<Option<&ConstantTable>, &CtabError> {
        self.constant_table()
    }
    fn get_f(&self, n: u32) -> Option<[f32; 4]> {
        self.constant_f(n)
    }
    fn get_i(&self, n: u32) -> Option<[i32; 4]> {
        self.constant_i(n)
    }
    fn put_f(&mut self, start: u32, v: &[[f32; 4]]) -> Result<(), VmError> {
        self.set_constant_f(start, v)
    }
    fn put_i(&mut self, start: u32, v: &[[i32; 4]]) -> Result<(), VmError> {
        self.set_constant_i(start, v)
    }
    fn put_b(&mut self, start: u32, v: &[bool]) -> Result<(), VmError> {
        self.set_constant_b(start, v)
    }
}

/// The vertex engine's texldl sampling, unused by pixel programs (their sampling ops read
/// [`Stages`]).
fn no_sampling() -> Sampling<'static> {
    Sampling {
        textures: [None; 4],
        states: [SamplerState::default(); 4],
    }
}

/// The inputs a pixel shader reads and each one's base row.
fn find_inputs(s: &dxso::ir::Shader) -> (Vec<PixelInput>, Vec<u16>) {
    let v = s.version;
    // (register kind, number) -> (usage, index, mask)
    let mut found: Vec<(RegisterKind, u32, Usage, u8, u8)> = Vec::new();
    // One entry per register and semantic: ps_3_0 may pack several semantics into one
    // register (`dcl_texcoord0 v0.xy`, `dcl_texcoord1 v0.zw`), each filling its components.
    let mut add = |kind, n, usage, index, mask: u8| {
        if let Some(e) = found
            .iter_mut()
            .find(|e| e.0 == kind && e.1 == n && e.2 == usage && e.3 == index)
        {
            e.4 |= mask;
        } else {
            found.push((kind, n, usage, index, mask));
        }
    };
    if v.major >= 2 {
        for i in s.instructions.iter().filter(|i| i.opcode == Opcode::Dcl) {
            let Some(d) = i.dst else { continue };
            let n = d.reg.number;
            match d.reg.kind {
                RegisterKind::Input if v.major >= 3 => {
                    let (usage, index) = i.decl.map_or((Usage::Color, 0), |dc| {
                        (
                            Usage::from_u32(dc.usage as u32).unwrap_or(Usage::TexCoord),
                            dc.usage_index,
                        )
                    });
                    add(RegisterKind::Input, n, usage, index, d.mask.0);
                }
                RegisterKind::Input if n < 2 => {
                    add(RegisterKind::Input, n, Usage::Color, n as u8, d.mask.0)
                }
                RegisterKind::Texture if n < 8 => {
                    add(RegisterKind::Texture, n, Usage::TexCoord, n as u8, d.mask.0)
                }
                _ => {}
            }
        }
    } else {
        let ps13 = v.number() < 0x104;
        for i in &s.instructions {
            for x in &i.srcs {
                match x.reg.kind {
                    RegisterKind::Input if x.reg.number < 2 => add(
                        RegisterKind::Input,
                        x.reg.number,
                        Usage::Color,
                        x.reg.number as u8,
                        0xF,
                    ),
                    // t# read as a value: ps_1_4's coordinates; in ps_1_1 .. ps_1_3 a t#
                    // no texture instruction wrote yet holds its coordinates.
                    RegisterKind::Texture if x.reg.number < 8 => add(
                        RegisterKind::Texture,
                        x.reg.number,
                        Usage::TexCoord,
                        x.reg.number as u8,
                        0xF,
                    ),
                    _ => {}
                }
            }
            let Some(d) = i.dst else { continue };
            let n = d.reg.number;
            if d.reg.kind != RegisterKind::Texture || n >= 8 {
                continue;
            }
            use Opcode as O;
            // The instructions that read their destination stage's coordinates.
            let coords =
                ps13 && matches!(
                    i.opcode,
                    O::Tex
                        | O::TexCoord
                        | O::TexKill
                        | O::TexBem
                        | O::TexBemL
                        | O::TexM3x2Pad
                        | O::TexM3x2Tex
                        | O::TexM3x2Depth
                        | O::TexM3x3Pad
                        | O::TexM3x3Tex
                        | O::TexM3x3Spec
                        | O::TexM3x3VSpec
                        | O::TexM3x3
                        | O::TexDp3
                        | O::TexDp3Tex
                ) || (!ps13 && i.opcode == O::TexKill);
            if coords {
                add(RegisterKind::Texture, n, Usage::TexCoord, n as u8, 0xF);
            }
        }
    }
    found.sort_by_key(|e| (e.0 != RegisterKind::Input, e.1, e.4.trailing_zeros()));
    let mut inputs = Vec::new();
    let mut rows = Vec::new();
    for (kind, n, usage, index, mask) in found {
        let (name, row, color) = match kind {
            RegisterKind::Input => (format!("v{n}"), input_row(n), v.major < 3),
            _ => (format!("t{n}"), input_row(2 + n), false),
        };
        inputs.push(PixelInput {
            register: name,
            usage,
            usage_index: index,
            mask,
            color,
        });
        rows.push(row);
    }
    (inputs, rows)
}

/// Per-thread scratch of a [`PixelState`]: the register arena and the constant file with
/// the shader's `def`s; reusable across batches.
pub struct PixelRunner<'a> {
    state: &'a PixelState,
    file: Vec<[f32; 4]>,
    ints: [[i32; 4]; 16],
    bools: [bool; 16],
    machine: Option<Machine>,
    /// The compiled code batches run on (`None`: the interpreter).
    jit: Option<&'a Jit>,
}

/// The uniforms of a run over a constant file laid out as the vertex draw's (padding, the
/// file, a zero register, padding).
fn uniforms<'s>(
    file: &'s [[f32; 4]],
    ints: &'s [[i32; 4]; 16],
    bools: &'s [bool; 16],
    max_instructions: u64,
    sampling: &'s Sampling<'s>,
) -> Uniforms<'s> {
    Uniforms {
        consts: &file[CONST_PAD..file.len() - CONST_PAD],
        padded_consts: file,
        ints,
        bools,
        max_instructions,
        sampling,
        pixel: None,
    }
}

impl PixelRunner<'_> {
    /// Shade one batch: outputs into `batch.color`, `batch.depth`, `batch.discarded`. On
    /// compiled code where the shader's [`PixelState::code_generator`] is some, else on the
    /// interpreter: the same bits either way.
    pub fn run(&mut self, batch: &mut PixelBatch) -> Result<(), VmError> {
        let Some(jit) = self.jit else {
            return self.run_with(batch, &mut NoTrace);
        };
        let depth = batch.depth;
        match self.shade(batch, |m, program, u, stages| {
            let within = jit.run_pixel(&mut m.rows, program, u, stages);
            if let Some(name) = take_callback_panic() {
                return Err(VmError::Panicked(name.into()));
            }
            if within {
                Ok(())
            } else {
                Err(VmError::InstructionLimit(u.max_instructions))
            }
        }) {
            // Past the limit, the interpreter's partial results (where it stopped).
            Err(VmError::InstructionLimit(_)) => {
                batch.depth = depth;
                self.run_with(batch, &mut NoTrace)
            }
            r => r,
        }
    }

    /// Shade one batch and record lane `lane`'s every executed instruction (the shader
    /// debugger): the same [`Trace`] as a vertex's, `vertex` holding the lane, `outputs`
    /// the written oC registers (4 floats each, in order; ps_1_x: r0) then oDepth if the
    /// shader writes it. Constants the shader's CTAB names are named in each step's text.
    pub fn trace(&mut self, batch: &mut PixelBatch, lane: usize) -> Result<Trace, VmError> {
        if lane >= LANES {
            return Err(VmError::LaneNotInBatch { lane });
        }
        let names = match self.state.constant_table() {
            Ok(Some(t)) => t
                .constants
                .iter()
                .filter(|c| c.register_set == dxso::ctab::RegisterSet::Float4)
                .flat_map(|c| {
                    (0..c.register_count.max(1)).map(move |k| {
                        let name = if c.register_count > 1 {
                            format!("{}[{k}]", c.name)
                        } else {
                            c.name.clone()
                        };
                        (format!("c{}", c.register_index as u32 + k as u32), name)
                    })
                })
                .collect(),
            _ => Vec::new(),
        };
        let mut rec = crate::trace::Recorder::for_lane(&self.state.program, lane, names);
        let result = self.run_with(batch, &mut rec);
        let mut outputs = Vec::new();
        for k in 0..4 {
            if self.state.color_outputs >> k & 1 != 0 {
                outputs.extend((0..4).map(|c| batch.color[k][c][lane]));
            }
        }
        if self.state.writes_depth {
            outputs.push(batch.depth[lane]);
        }
        Ok(rec.finish(lane, outputs, result.err()))
    }

    fn run_with<T: Tracer>(
        &mut self,
        batch: &mut PixelBatch,
        tracer: &mut T,
    ) -> Result<(), VmError> {
        self.shade(batch, |m, program, u, _| m.run_traced(program, u, tracer))
    }

    /// Shade one batch by `exec` on the arena set up as the program's run finds it: the
    /// inputs, vPos, vFace, the kill, zero and one rows, the depth, temporaries and outputs
    /// cleared. The results are read back from the arena whatever `exec` returns.
    fn shade(
        &mut self,
        batch: &mut PixelBatch,
        exec: impl FnOnce(&mut Machine, &Program, &Uniforms, &Stages) -> Result<(), VmError>,
    ) -> Result<(), VmError> {
        let state = self.state;
        let program = &state.program;
        let Some(rows) = program.pixel else {
            return Err(VmError::NotPixelShader);
        };
        let sampling = no_sampling();
        let stages = Stages {
            textures: &state.textures,
            samplers: &state.samplers,
            stages: &state.stages,
        };
        let mut u = uniforms(
            &self.file,
            &self.ints,
            &self.bools,
            state.max_instructions,
            &sampling,
        );
        u.pixel = Some(&stages);
        let Some(m) = self.machine.as_mut() else {
            return Err(VmError::NotPixelShader);
        };
        // The temporaries and outputs the program writes start at zero; the input rows
        // the batch does not fill are never written, so hold the arena's zeros.
        m.reset(program, true, true);
        for (k, (&base, input)) in state.input_rows.iter().zip(&state.inputs).enumerate() {
            let v = batch.inputs.get(k);
            for c in (0..4).filter(|c| input.mask >> c & 1 != 0) {
                m.rows[base as usize + c] = v.map_or([0.0; LANES], |v| v[c]);
            }
        }
        for &(from, to) in &state.tex_init {
            for c in 0..4 {
                m.rows[to as usize + c] = m.rows[from as usize + c];
            }
        }
        let (p, f) = (rows.pos as usize, rows.face as usize);
        m.rows[p] = batch.pos[0];
        m.rows[p + 1] = batch.pos[1];
        m.rows[p + 2] = [0.0; LANES];
        m.rows[p + 3] = [0.0; LANES];
        for c in 0..4 {
            m.rows[f + c] = batch.face;
        }
        m.rows[rows.kill as usize] = [0.0; LANES];
        m.rows[rows.zero as usize] = [0.0; LANES];
        m.rows[rows.one as usize] = [1.0; LANES];
        m.rows[DEPTH_ROW as usize] = batch.depth;
        let result = exec(m, program, &u, &stages);
        let ps1 = state.version.major < 2;
        for k in 0..4 {
            if state.color_outputs >> k & 1 == 0 {
                continue;
            }
            let base = if ps1 {
                crate::program::TEMP_BASE
            } else {
                crate::program::OUTPUT_BASE + k as u16 * 4
            } as usize;
            for c in 0..4 {
                batch.color[k][c] = one_nan(&m.rows[base + c]);
            }
        }
        if state.writes_depth {
            batch.depth = one_nan(&m.rows[DEPTH_ROW as usize]);
        }
        let kill = &m.rows[rows.kill as usize];
        for l in 0..LANES {
            batch.discarded[l] = batch.live[l] && kill[l] != 0.0;
        }
        result
    }
}

/// A row of results with one NaN (`f32::NAN`) for every NaN. Which NaN an operation on
/// NaN operands gives depends on the order of its operands (x86 returns the first one's,
/// and the hardware's default NaN is negative where Rust's is positive), an order the
/// compiler is free to change in the interpreter (its products and sums commute): so
/// colours and depth carry no payload, as the vertex engine's output records (fused
/// stores) do not, and every tier gives the same bits.
fn one_nan(row: &[f32; LANES]) -> [f32; LANES] {
    row.map(|x| if x.is_nan() { f32::NAN } else { x })
}

const _: () = assert!(LANES.is_multiple_of(QUAD));
const _: () = assert!(OUTPUT_ROWS == 20);
