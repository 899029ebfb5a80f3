//! Pixel shader model 1 (ps_1_1 .. ps_1_4): its register model, co-issue and the
//! texture-addressing instructions (texcoord/texcrd, tex/texld, texbem, texbeml, texreg2ar/gb/rgb,
//! texm3x2*/texm3x3*, texdp3*, texdepth, bem, phase: the temporaries keep their colour and
//! lose their alpha, which becomes 0).
//!
//! - **Registers.** In ps_1_1 .. ps_1_3 `t#` are locals: each starts as its texture
//!   coordinate clamped to [-range, range] and a texture instruction writing `t#` samples
//!   stage `#` at the raw coordinate. In ps_1_4 `t#` are the coordinates themselves (read by
//!   `texcrd`, `texld`, `texkill`) and `texld r#` samples stage `#`. `r0` is the colour.
//! - **Samplers.** ps_1_x declares none: stage `#` is sampler `s#`, a cube texture for
//!   texm3x3tex/texm3x3spec/texm3x3vspec, a volume for texreg2rgb, 2d otherwise
//!   ([`crate::interface::Sampler::kind`] says which).
//! - **Co-issue.** Every write is held until the next instruction that is not co-issued
//!   starts, so `+` pairs read their inputs before either writes.
//! - **Per-draw state** ([`Parameters`]): a uniform `array<vec4<f32>, 13>` holds the
//!   bump-environment matrix of each stage, its luminance scale and offset, the range that
//!   texture coordinates read as values are clamped to and whether `v#` colours are clamped
//!   to [0, 1]. The eye ray of texm3x3spec is its `c#` operand (the constant buffer).
//! - Products and dot products use the float mode's rules (the helpers of `alu.rs`: in
//!   `Strict` a zero factor gives +0); `cnd` of ps_1_1 .. ps_1_3 tests the alpha of its first
//!   operand (`r0.a > 0.5`).

use crate::Error;
use crate::func::{H, Shape, vec4};
use crate::regs::Tr;
use dxso::Opcode;
use dxso::ir::{
    Dst, Instruction, RESULT_SATURATE, Register, RegisterKind, Shader, Src, TextureType,
};
use naga::{
    AddressSpace, ArraySize, BinaryOperator as B, Expression, GlobalVariable, MathFunction as M,
    ResourceBinding, SampleLevel, Scalar, Span, TypeInner,
};
use serde::Serialize;

/// Texture stages with per-stage parameters (ps_1_4 has six; ps_1_1 .. ps_1_3 four).
pub const STAGES: u32 = 6;
/// Row `BUMP_MATRIX_ROW + k`: (BUMPENVMAT00, BUMPENVMAT01, BUMPENVMAT10, BUMPENVMAT11) of
/// stage `k`.
pub const BUMP_MATRIX_ROW: u32 = 0;
/// Row `STAGE_ROW + k`: (BUMPENVLSCALE, BUMPENVLOFFSET, projection, 0) of stage `k`. The
/// projection is D3DTSS_TEXTURETRANSFORMFLAGS' D3DTTFF_PROJECTED, which `tex` of ps_1_1 ..
/// ps_1_3 honours: 0 samples at the coordinate, 3 (`D3DTTFF_COUNT3 | D3DTTFF_PROJECTED`)
/// divides it by its z, any other nonzero value by its w.
pub const STAGE_ROW: u32 = STAGES;
/// Row `CLAMP_ROW`: (range, colour clamp, 0, 0). Texture coordinates read as values (`t#`
/// before a texture instruction writes it in ps_1_1 .. ps_1_3, `texcrd` in ps_1_4) are
/// clamped to [-range, range] (D3D9: `D3DCAPS9.PixelShader1xMaxValue`, 8 on most hardware
/// of the time; a huge value turns it off); a nonzero colour clamp clamps `v0`/`v1` to
/// [0, 1] as D3D9's fixed-function colour interpolators do.
pub const CLAMP_ROW: u32 = 2 * STAGES;
/// The buffer's rows.
pub const PARAMETER_ROWS: u32 = CLAMP_ROW + 1;
/// The binding of the buffer, in the pixel shader's constant group (`c#` is binding 0).
pub const PARAMETER_BINDING: u32 = 3;

/// The per-draw parameter buffer of a ps_1_x translation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Parameters {
    /// The buffer's bind group (the pixel shader's constant group).
    pub group: u32,
    /// Its binding ([`PARAMETER_BINDING`]).
    pub binding: u32,
    /// Rows (`vec4<f32>` each, see [`BUMP_MATRIX_ROW`], [`STAGE_ROW`],
    /// [`CLAMP_ROW`]).
    pub rows: u32,
    /// The rows the shader reads: `(row, name)`, e.g. `(1, "BUMPENVMAT1")`,
    /// `(7, "BUMPENVLUMINANCE1")`, `(6, "TEXTURETRANSFORMFLAGS0")`, `(12, "PS1X_CLAMP")`.
    pub read: Vec<(u32, String)>,
}

/// The translator's ps_1_x state.
#[derive(Default)]
pub(crate) struct State {
    /// The parameter buffer (a pointer expression).
    params: Option<H>,
    /// The raw texture coordinate of each stage.
    coords: Vec<(u32, H)>,
    /// Writes held until the next instruction that is not co-issued (`None`: not ps_1_x).
    pub held: Option<Vec<(Instruction, Dst, H)>>,
    /// Dot products of the texm3x2pad/texm3x3pad instructions not consumed yet.
    pads: Vec<H>,
}

impl State {
    /// Whether values made by one instruction wait for a later one (held co-issued writes,
    /// pad dot products): no block may end here.
    pub fn carries_values(&self) -> bool {
        self.held.as_ref().is_some_and(|h| !h.is_empty()) || !self.pads.is_empty()
    }
}

fn ps1(shader: &Shader) -> bool {
    shader.version.is_pixel() && shader.version.major < 2
}

/// Whether `op` samples the stage of its destination register.
fn samples(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::Tex
            | O::TexBem
            | O::TexBemL
            | O::TexReg2Ar
            | O::TexReg2Gb
            | O::TexReg2Rgb
            | O::TexM3x2Tex
            | O::TexM3x3Tex
            | O::TexM3x3Spec
            | O::TexM3x3VSpec
            | O::TexDp3Tex
    )
}

/// The sampler of each stage a ps_1_x shader samples, with the texture kind it is given.
pub(crate) fn samplers(shader: &Shader) -> Vec<(u32, TextureType)> {
    let mut out: Vec<(u32, TextureType)> = Vec::new();
    if !ps1(shader) {
        return out;
    }
    for inst in &shader.instructions {
        let Some(d) = inst.dst else { continue };
        if !samples(inst.opcode) || out.iter().any(|s| s.0 == d.reg.number) {
            continue;
        }
        let kind = match inst.opcode {
            Opcode::TexM3x3Tex | Opcode::TexM3x3Spec | Opcode::TexM3x3VSpec => TextureType::Cube,
            Opcode::TexReg2Rgb => TextureType::Volume,
            _ => TextureType::TwoD,
        };
        out.push((d.reg.number, kind));
    }
    out
}

/// The texture coordinate registers a ps_1_1 .. ps_1_3 shader reads through a texture
/// instruction's destination (`tex t0` reads coordinate 0).
pub(crate) fn coordinate_destinations(shader: &Shader) -> Vec<Src> {
    if !ps1(shader) {
        return Vec::new();
    }
    shader
        .instructions
        .iter()
        .filter_map(|i| i.dst.map(|d| d.reg))
        .filter(|r| r.kind == RegisterKind::Texture)
        .map(Src::new)
        .collect()
}

/// The depth output a ps_1_x instruction writes (texdepth, texm3x2depth), for the interface.
pub(crate) fn writes_depth(inst: &Instruction) -> bool {
    matches!(inst.opcode, Opcode::TexDepth | Opcode::TexM3x2Depth)
}

impl Tr {
    /// Prepare a ps_1_x translation (after inputs, outputs and temporaries exist): the
    /// parameter buffer, clamped colours, the `t#` locals of ps_1_1 .. ps_1_3, held writes.
    pub fn ps1x_setup(&mut self, shader: &Shader, group: u32) -> Result<Option<Parameters>, Error> {
        if !ps1(shader) {
            return Ok(None);
        }
        self.ps1.held = Some(Vec::new());
        let mut read: Vec<(u32, String)> = Vec::new();
        for inst in &shader.instructions {
            let Some(d) = inst.dst else { continue };
            let k = d.reg.number;
            if matches!(inst.opcode, Opcode::TexBem | Opcode::TexBemL | Opcode::Bem) {
                read.push((BUMP_MATRIX_ROW + k, format!("BUMPENVMAT{k}")));
            }
            if inst.opcode == Opcode::TexBemL {
                read.push((STAGE_ROW + k, format!("BUMPENVLUMINANCE{k}")));
            }
            if inst.opcode == Opcode::Tex && shader.version.minor < 4 {
                read.push((STAGE_ROW + k, format!("TEXTURETRANSFORMFLAGS{k}")));
            }
        }
        let values = self
            .inputs
            .iter()
            .any(|i| matches!(i.0.kind, RegisterKind::Input | RegisterKind::Texture));
        if values {
            read.push((CLAMP_ROW, "PS1X_CLAMP".into()));
        }
        read.sort();
        read.dedup();
        if read.iter().any(|r| r.0 >= PARAMETER_ROWS) {
            return Err(self.invalid("a texture stage beyond the sixth"));
        }
        if read.is_empty() {
            return Ok(None);
        }

        let el = crate::func::ty(&mut self.m, vec4(Scalar::F32));
        let arr = crate::func::ty(
            &mut self.m,
            TypeInner::Array {
                base: el,
                size: ArraySize::Constant(
                    std::num::NonZeroU32::new(PARAMETER_ROWS).unwrap_or(std::num::NonZeroU32::MIN),
                ),
                stride: 16,
            },
        );
        let gv = self.m.global_variables.append(
            GlobalVariable {
                name: Some("ps1x".into()),
                space: AddressSpace::Uniform,
                binding: Some(ResourceBinding {
                    group,
                    binding: PARAMETER_BINDING,
                }),
                ty: arr,
                init: None,
                memory_decorations: Default::default(),
            },
            Span::UNDEFINED,
        );
        self.ps1.params = Some(self.fb.expr(Expression::GlobalVariable(gv)));

        if values {
            let clamp = self.param(CLAMP_ROW)?;
            let range = self.fb.index(clamp, 0);
            let flag = self.fb.index(clamp, 1);
            let zero = self.fb.f32(0.0);
            let on = self.fb.bin(B::NotEqual, flag, zero);
            for k in 0..self.inputs.len() {
                let (reg, v) = self.inputs[k];
                match reg.kind {
                    RegisterKind::Input => {
                        let sat = self.saturate(v);
                        self.inputs[k].1 = self.fb.select(on, sat, v);
                    }
                    RegisterKind::Texture => {
                        self.ps1.coords.push((reg.number, v));
                        if shader.version.minor < 4 {
                            let init = self.clamp_range(v, range);
                            let p = self.local(&format!("t{}", reg.number), vec4(Scalar::F32));
                            self.fb.store(p, init);
                            self.outputs.push((reg, p));
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(Some(Parameters {
            group,
            binding: PARAMETER_BINDING,
            rows: PARAMETER_ROWS,
            read,
        }))
    }

    /// Store the held writes (at the end of a ps_1_x shader and before each instruction
    /// that is not co-issued).
    pub fn ps1x_flush(&mut self) -> Result<(), Error> {
        let Some(held) = self.ps1.held.take() else {
            return Ok(());
        };
        let mut result = Ok(());
        for (inst, d, v) in &held {
            if let Err(e) = self.store_merged(inst, d, *v) {
                result = Err(e);
                break;
            }
        }
        self.ps1.held = Some(Vec::new());
        result
    }

    fn store_merged(&mut self, inst: &Instruction, d: &Dst, v: H) -> Result<(), Error> {
        let ptr = self.dst_ptr(d)?;
        let new = if d.mask.0 == 0xF {
            v
        } else {
            let old = self.fb.load(ptr);
            self.merge(inst, d, old, v)
        };
        self.fb.store(ptr, new);
        Ok(())
    }

    /// The ps_1_x instructions with a meaning of their own; `Ok(false)` for the others (and
    /// for every instruction of other versions).
    #[allow(clippy::too_many_lines)] // a dispatch `match`: one arm per ps_1_x instruction
    pub fn ps1x(&mut self, inst: &Instruction) -> Result<bool, Error> {
        if self.ps1.held.is_none() {
            return Ok(false);
        }
        if !inst.coissue {
            self.ps1x_flush()?;
        }
        use Opcode as O;
        let dst = inst.dst.ok_or_else(|| self.invalid("no destination"));
        let v = match inst.opcode {
            O::Cnd if self.version.minor < 4 => {
                let s: Vec<H> = inst
                    .srcs
                    .iter()
                    .take(3)
                    .map(|s| self.src(s))
                    .collect::<Result<_, _>>()?;
                if s.len() < 3 {
                    return Err(self.invalid("cnd takes three operands"));
                }
                let a = self.fb.swizzle(s[0], [3; 4]);
                dxso::formula::cnd(&mut self.lanes(Shape::Vec4), a, s[1], s[2])
            }
            O::TexCoord => {
                if self.version.minor < 4 {
                    let c = self.coord(dst?.reg.number);
                    let s = self.saturate(c);
                    let one = self.fb.f32(1.0);
                    self.with_w(s, one)
                } else {
                    let c = self.operand(inst, 0)?;
                    let clamp = self.param(CLAMP_ROW)?;
                    let range = self.fb.index(clamp, 0);
                    self.clamp_range(c, range)
                }
            }
            O::Tex => {
                let n = dst?.reg.number;
                let c = if self.version.minor < 4 {
                    let c = self.coord(n);
                    self.project(n, c)?
                } else {
                    // A ps_1_4 `t#` is its raw coordinate (with `_dz`/`_dw`).
                    self.operand(inst, 0)?
                };
                self.sample_stage(n, c)?
            }
            O::TexKill => {
                self.texkill1x(inst)?;
                return Ok(true);
            }
            O::Phase => {
                self.phase();
                return Ok(true);
            }
            O::TexBem | O::TexBemL => {
                let n = dst?.reg.number;
                let t = self.operand(inst, 0)?;
                let c = self.coord(n);
                let c = self.bump(n, c, t)?;
                let texel = self.sample_stage(n, c)?;
                if inst.opcode == O::TexBem {
                    texel
                } else {
                    let l = self.param(STAGE_ROW + n)?;
                    let scale = self.fb.index(l, 0);
                    let offset = self.fb.index(l, 1);
                    let b = self.fb.index(t, 2);
                    let p = self.mul(b, scale, Shape::Scalar);
                    let lum = self.fb.add(p, offset);
                    let lum = self.fb.splat(lum);
                    self.mul(texel, lum, Shape::Vec4)
                }
            }
            O::Bem => {
                let n = dst?.reg.number;
                let a = self.operand(inst, 0)?;
                let b = self.operand(inst, 1)?;
                self.bump(n, a, b)?
            }
            O::TexReg2Ar | O::TexReg2Gb | O::TexReg2Rgb => {
                let t = self.operand(inst, 0)?;
                let pattern = match inst.opcode {
                    O::TexReg2Ar => [3, 0, 2, 2],
                    O::TexReg2Gb => [1, 2, 2, 2],
                    _ => [0, 1, 2, 3],
                };
                let c = self.fb.swizzle(t, pattern);
                self.sample_stage(dst?.reg.number, c)?
            }
            O::TexM3x2Pad | O::TexM3x3Pad => {
                let u = self.row_dot(inst)?;
                self.ps1.pads.push(u);
                return Ok(true);
            }
            O::TexDp3 | O::TexDp3Tex => {
                let u = self.row_dot(inst)?;
                if inst.opcode == O::TexDp3 {
                    self.fb.splat(u)
                } else {
                    let z = self.fb.f32(0.0);
                    let c = self
                        .fb
                        .compose(&mut self.m, vec4(Scalar::F32), vec![u, z, z, z]);
                    self.sample_stage(dst?.reg.number, c)?
                }
            }
            O::TexM3x2Tex => {
                let v = self.row_dot(inst)?;
                let u = self.pads(1)[0];
                let z = self.fb.f32(0.0);
                let c = self
                    .fb
                    .compose(&mut self.m, vec4(Scalar::F32), vec![u, v, z, z]);
                self.sample_stage(dst?.reg.number, c)?
            }
            O::TexM3x2Depth => {
                let w = self.row_dot(inst)?;
                let z = self.pads(1)[0];
                self.depth(z, w)?;
                return Ok(true);
            }
            O::TexDepth => {
                let r = self.operand_register(dst?.reg)?;
                let z = self.fb.index(r, 0);
                let w = self.fb.index(r, 1);
                self.depth(z, w)?;
                return Ok(true);
            }
            O::TexM3x3 | O::TexM3x3Tex | O::TexM3x3Spec | O::TexM3x3VSpec => {
                let n = dst?.reg.number;
                let w = self.row_dot(inst)?;
                let p = self.pads(2);
                let one = self.fb.f32(1.0);
                let normal =
                    self.fb
                        .compose(&mut self.m, vec4(Scalar::F32), vec![p[0], p[1], w, one]);
                match inst.opcode {
                    O::TexM3x3 => normal,
                    O::TexM3x3Tex => self.sample_stage(n, normal)?,
                    _ => {
                        let eye = if inst.opcode == O::TexM3x3Spec {
                            self.operand(inst, 1)?
                        } else {
                            let e: Vec<H> = (0..3)
                                .map(|k| {
                                    let c = self.coord((n + k).saturating_sub(2));
                                    self.fb.index(c, 3)
                                })
                                .collect();
                            let z = self.fb.f32(0.0);
                            self.fb.compose(
                                &mut self.m,
                                vec4(Scalar::F32),
                                vec![e[0], e[1], e[2], z],
                            )
                        };
                        let r = self.reflect(normal, eye);
                        self.sample_stage(n, r)?
                    }
                }
            }
            _ => return Ok(false),
        };
        self.write(inst, v)?;
        Ok(true)
    }

    /// ps_1_4 `phase`: the alpha of the temporaries does not survive it (D3D9 leaves it
    /// undefined; here it becomes 0).
    fn phase(&mut self) {
        let mut temps: Vec<(u32, H)> = self.temps.iter().map(|(&n, &p)| (n, p)).collect();
        temps.sort_by_key(|t| t.0);
        for (_, p) in temps {
            let v = self.fb.load(p);
            let zero = self.fb.f32(0.0);
            let v = self.with_w(v, zero);
            self.fb.store(p, v);
        }
    }

    /// Row `row` of the parameter buffer.
    fn param(&mut self, row: u32) -> Result<H, Error> {
        let p = self
            .ps1
            .params
            .ok_or_else(|| self.invalid("no ps_1_x parameter buffer"))?;
        let r = self.fb.index(p, row);
        Ok(self.fb.load(r))
    }

    /// The raw texture coordinate of stage `n` (0 when the shader has none).
    fn coord(&mut self, n: u32) -> H {
        match self.ps1.coords.iter().find(|c| c.0 == n) {
            Some(c) => c.1,
            None => self.fb.kf(0.0, Shape::Vec4),
        }
    }

    /// Source `k`, as a value.
    fn operand(&mut self, inst: &Instruction, k: usize) -> Result<H, Error> {
        let s = inst
            .srcs
            .get(k)
            .ok_or_else(|| self.invalid("missing operand"))?;
        self.src(s)
    }

    /// A register's whole value.
    fn operand_register(&mut self, reg: Register) -> Result<H, Error> {
        self.src(&Src::new(reg))
    }

    /// The last `n` pad dot products (0 for those the shader lacks), consumed.
    fn pads(&mut self, n: usize) -> Vec<H> {
        let mut out = Vec::new();
        let have = self.ps1.pads.len();
        for k in 0..n {
            match (have + k).checked_sub(n) {
                Some(i) => out.push(self.ps1.pads[i]),
                None => out.push(self.fb.f32(0.0)),
            }
        }
        self.ps1.pads.clear();
        out
    }

    /// texm3x2*/texm3x3*/texdp3*: the destination stage's coordinate (x, y, z) dotted with
    /// the source's (r, g, b).
    fn row_dot(&mut self, inst: &Instruction) -> Result<H, Error> {
        let n = inst
            .dst
            .ok_or_else(|| self.invalid("no destination"))?
            .reg
            .number;
        let c = self.coord(n);
        let t = self.operand(inst, 0)?;
        Ok(self.dot(c, t, 3))
    }

    /// texbem/bem: `base.xy` plus the bump matrix of stage `n` times `(du, dv) = d.rg`;
    /// z and w are base's.
    fn bump(&mut self, n: u32, base: H, d: H) -> Result<H, Error> {
        let m = self.param(BUMP_MATRIX_ROW + n)?;
        let du = self.fb.index(d, 0);
        let dv = self.fb.index(d, 1);
        let mut parts = Vec::new();
        for (c, (a, b)) in [(0u32, (0u32, 2u32)), (1, (1, 3))] {
            let x = self.fb.index(base, c);
            let ma = self.fb.index(m, a);
            let mb = self.fb.index(m, b);
            let p = self.mul(ma, du, Shape::Scalar);
            let q = self.mul(mb, dv, Shape::Scalar);
            let s = self.fb.add(x, p);
            parts.push(self.fb.add(s, q));
        }
        let z = self.fb.index(base, 2);
        let w = self.fb.index(base, 3);
        parts.extend([z, w]);
        Ok(self.fb.compose(&mut self.m, vec4(Scalar::F32), parts))
    }

    /// `tex` of ps_1_1 .. ps_1_3: the coordinate divided by its z or w where stage `n` is
    /// projected (see [`STAGE_ROW`]).
    fn project(&mut self, n: u32, c: H) -> Result<H, Error> {
        let row = self.param(STAGE_ROW + n)?;
        let flag = self.fb.index(row, 2);
        let zero = self.fb.f32(0.0);
        let three = self.fb.f32(3.0);
        let on = self.fb.bin(B::NotEqual, flag, zero);
        let by_z = self.fb.bin(B::Equal, flag, three);
        let z = self.fb.index(c, 2);
        let w = self.fb.index(c, 3);
        let d = self.fb.select(by_z, z, w);
        let d = self.fb.splat(d);
        let q = self.fb.bin(B::Divide, c, d);
        let on = self.fb.splat(on);
        Ok(self.fb.select(on, q, c))
    }

    /// The eye vector reflected about the normal: `2 N (N.E) / (N.N) - E`.
    fn reflect(&mut self, n: H, e: H) -> H {
        let ne = self.dot(n, e, 3);
        let nn = self.dot(n, n, 3);
        let two = self.fb.f32(2.0);
        let q = self.fb.bin(B::Divide, ne, nn);
        let k = self.mul(two, q, Shape::Scalar);
        let k = self.fb.splat(k);
        let kn = self.mul(k, n, Shape::Vec4);
        self.fb.sub(kn, e)
    }

    /// oDepth = z / w, or 1 where w is 0.
    fn depth(&mut self, z: H, w: H) -> Result<(), Error> {
        let d = dxso::formula::depth_ratio(&mut self.lanes(Shape::Scalar), z, w);
        let v = self.fb.splat(d);
        let depth = Register::new(RegisterKind::DepthOut, 0);
        let ptr = self
            .outputs
            .iter()
            .find(|o| o.0 == depth)
            .map(|o| o.1)
            .ok_or_else(|| self.invalid("no depth output"))?;
        self.fb.store(ptr, v);
        Ok(())
    }

    /// Sample stage `n` at `c`.
    fn sample_stage(&mut self, n: u32, c: H) -> Result<H, Error> {
        let s = Src::new(Register::new(RegisterKind::Sampler, n));
        self.sample(c, &s, SampleLevel::Auto)
    }

    /// texkill: discard where x, y or z is below 0 — of the stage's texture coordinate in
    /// ps_1_1 .. ps_1_3 and of a ps_1_4 `t#`, of the register's value for a ps_1_4 `r#`.
    pub fn texkill1x(&mut self, inst: &Instruction) -> Result<(), Error> {
        self.ps1x_flush()?;
        let d = inst
            .dst
            .ok_or_else(|| self.invalid("texkill without operand"))?;
        let v = if d.reg.kind == RegisterKind::Texture {
            self.coord(d.reg.number)
        } else {
            self.operand_register(d.reg)?
        };
        let zero = self.fb.kf(0.0, Shape::Vec4);
        let lt = self.fb.bin(B::Less, v, zero);
        let xyz = self.fb.prefix(lt, 3);
        let any = self.fb.expr(Expression::Relational {
            fun: naga::RelationalFunction::Any,
            argument: xyz,
        });
        let mut kill = naga::Block::new();
        kill.push(naga::Statement::Kill, Span::UNDEFINED);
        self.fb.stmt(naga::Statement::If {
            condition: any,
            accept: kill,
            reject: naga::Block::new(),
        });
        Ok(())
    }

    /// `_sat` as the float mode does it.
    fn saturate(&mut self, v: H) -> H {
        let mut d = Dst::new(Register::new(RegisterKind::Temp, 0));
        d.modifiers = RESULT_SATURATE;
        self.result_modifiers(&d, v)
    }

    /// `v` clamped to [-range, range] (`range` a scalar).
    fn clamp_range(&mut self, v: H, range: H) -> H {
        let hi = self.fb.splat(range);
        let lo = self.fb.neg(hi);
        self.fb.math_n(M::Clamp, v, Some(lo), Some(hi))
    }

    /// `v` with its w replaced.
    fn with_w(&mut self, v: H, w: H) -> H {
        let parts: Vec<H> = (0..3).map(|c| self.fb.index(v, c)).chain([w]).collect();
        self.fb.compose(&mut self.m, vec4(Scalar::F32), parts)
    }
}
