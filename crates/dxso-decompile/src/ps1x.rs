//! Pixel shader model 1 (ps_1_1 .. ps_1_4): the texture-addressing instructions written out
//! as the HLSL they compute.
//!
//! - In ps_1_1 .. ps_1_3 `t#` are locals that start as their texture coordinates
//!   (`float4 t0 = i.texcoord0;`); `tex t#` samples stage `#` at the coordinate. In ps_1_4
//!   `t#` are the coordinates and `texld r#` samples stage `#`.
//! - Stage `#` is sampler `s#`: a cube for texm3x3tex/spec/vspec, a volume for texreg2rgb,
//!   2D otherwise.
//! - Texture stage state the instructions read (D3DTSS_BUMPENVMAT**, BUMPENVLSCALE/OFFSET)
//!   becomes a uniform named after it, with a comment.
//! - The pad instructions' dot products become locals that the last row consumes.

use crate::Error;
use crate::ctx::Ctx;
use crate::expr::{self, E, call};
use crate::uniforms::sampler_ty;
use dxso::Opcode;
use dxso::ir::{Instruction, RegisterKind, TextureType};

impl Ctx<'_> {
    /// The statements of a ps_1_x texture-addressing instruction; `None` for any other.
    pub(crate) fn ps1x(&mut self, inst: &Instruction) -> Result<Option<Vec<String>>, Error> {
        use Opcode as O;
        let v = self.shader.version;
        if !(v.is_pixel() && v.major == 1) {
            return Ok(None);
        }
        let Some(d) = inst.dst else { return Ok(None) };
        let n = d.reg.number;
        let ps14 = v.minor >= 4;
        let value = match inst.opcode {
            O::TexCoord if !ps14 => {
                let c = self.coord(n);
                E::atom(format!("float4(saturate({}.xyz), 1)", c.at(expr::ATOM)), 4)
            }
            O::TexCoord => self.operand(inst, 0)?,
            O::Tex => {
                let c = if ps14 {
                    self.operand(inst, 0)?
                } else {
                    self.coord(n)
                };
                self.stage(n, &c)?
            }
            O::TexBem | O::TexBemL => {
                let t = self.operand(inst, 0)?;
                let c = self.coord(n);
                let at = self.bump_xy(n, &c, &t);
                let texel = self.stage(n, &at)?;
                if inst.opcode == O::TexBem {
                    texel
                } else {
                    let l = self.stage_state(
                        &format!("BUMPENVL{n}"),
                        &format!("(D3DTSS_BUMPENVLSCALE, D3DTSS_BUMPENVLOFFSET) of stage {n}"),
                    );
                    let lum = format!("({}.z * {l}.x + {l}.y)", t.at(expr::ATOM));
                    expr::mul(&texel, &E::atom(lum, 1))
                }
            }
            O::Bem => {
                let a = self.operand(inst, 0)?;
                let b = self.operand(inst, 1)?;
                self.bump(n, &a, &b)
            }
            O::TexReg2Ar | O::TexReg2Gb | O::TexReg2Rgb => {
                let t = self.operand(inst, 0)?;
                let c = match inst.opcode {
                    O::TexReg2Ar => t.swizzle(&[3, 0, 2, 2]),
                    O::TexReg2Gb => t.swizzle(&[1, 2, 2, 2]),
                    _ => t,
                };
                self.stage(n, &c)?
            }
            O::TexM3x2Pad | O::TexM3x3Pad => {
                let u = self.row_dot(inst)?;
                let name = format!("pad{n}");
                self.pads.push(name.clone());
                return Ok(Some(vec![format!("float {name} = {};", u.s)]));
            }
            O::TexDp3 => self.row_dot(inst)?,
            O::TexDp3Tex => {
                let u = self.row_dot(inst)?;
                let c = E::atom(format!("float4({}, 0, 0, 0)", u.s), 4);
                self.stage(n, &c)?
            }
            O::TexM3x2Tex => {
                let v = self.row_dot(inst)?;
                let u = self.take_pads(1).remove(0);
                let c = E::atom(format!("float4({u}, {}, 0, 0)", v.s), 4);
                self.stage(n, &c)?
            }
            O::TexM3x2Depth => {
                let w = self.row_dot(inst)?;
                let z = self.take_pads(1).remove(0);
                return Ok(Some(self.depth(&z, &w.s)));
            }
            O::TexDepth => {
                let r = self.read(d.reg, None, &[0, 1])?;
                let (z, w) = (r.swizzle(&[0]).s, r.swizzle(&[1]).s);
                return Ok(Some(self.depth(&z, &w)));
            }
            O::TexM3x3 | O::TexM3x3Tex | O::TexM3x3Spec | O::TexM3x3VSpec => {
                return self.m3x3(inst).map(Some);
            }
            O::Phase => return Ok(None),
            _ => return Ok(None),
        };
        self.assign(inst, value).map(Some)
    }

    /// texm3x3, texm3x3tex, texm3x3spec, texm3x3vspec: the normal from two pads and this
    /// row, then the normal itself, a lookup with it, or with the eye vector reflected.
    fn m3x3(&mut self, inst: &Instruction) -> Result<Vec<String>, Error> {
        let n = inst.dst.map_or(0, |d| d.reg.number);
        let w = self.row_dot(inst)?;
        let p = self.take_pads(2);
        let normal = format!("normal{n}");
        let mut lines = vec![format!(
            "float3 {normal} = float3({}, {}, {});",
            p[0], p[1], w.s
        )];
        let value = match inst.opcode {
            Opcode::TexM3x3 => E::atom(format!("float4({normal}, 1)"), 4),
            Opcode::TexM3x3Tex => self.stage(n, &E::atom(normal.clone(), 3))?,
            _ => {
                let eye = if inst.opcode == Opcode::TexM3x3Spec {
                    let src = *inst.srcs.get(1).ok_or_else(|| bad(inst))?;
                    self.src(&src, &[0, 1, 2])?.full().s
                } else {
                    let e: Vec<String> = (0..3)
                        .map(|k| {
                            let c = self.coord((n + k).saturating_sub(2));
                            c.swizzle(&[3]).s
                        })
                        .collect();
                    format!("float3({})", e.join(", "))
                };
                let e = format!("eye{n}");
                lines.push(format!("float3 {e} = {eye};"));
                // The eye vector reflected about the normal.
                let r =
                    format!("2 * {normal} * dot({normal}, {e}) / dot({normal}, {normal}) - {e}");
                self.stage(n, &E::new(r, expr::ADD, 3))?
            }
        };
        lines.extend(self.assign(inst, value)?);
        Ok(lines)
    }

    /// Source `k` of `inst`, all four components.
    fn operand(&mut self, inst: &Instruction, k: usize) -> Result<E, Error> {
        let src = *inst.srcs.get(k).ok_or_else(|| bad(inst))?;
        self.src(&src, &[0, 1, 2, 3])
    }

    /// The raw texture coordinate of stage `n`.
    fn coord(&mut self, n: u32) -> E {
        let reg = dxso::ir::Register::new(RegisterKind::Texture, n);
        match self.io.read.get(&reg) {
            Some(view) => view.read(&[0, 1, 2, 3]),
            None => E::atom("float4(0, 0, 0, 0)", 4),
        }
    }

    /// The destination stage's coordinate (x, y, z) dotted with the source's (r, g, b).
    fn row_dot(&mut self, inst: &Instruction) -> Result<E, Error> {
        let n = inst.dst.map_or(0, |d| d.reg.number);
        let c = self.coord(n).swizzle(&[0, 1, 2]);
        let src = *inst.srcs.first().ok_or_else(|| bad(inst))?;
        let t = self.src(&src, &[0, 1, 2])?;
        Ok(call("dot", &[&c, &t], 1))
    }

    /// The last `n` pad results (0 where the shader has fewer), consumed.
    fn take_pads(&mut self, n: usize) -> Vec<String> {
        let have = self.pads.len();
        let out = (0..n)
            .map(|k| match (have + k).checked_sub(n) {
                Some(i) => self.pads[i].clone(),
                None => "0".into(),
            })
            .collect();
        self.pads.clear();
        out
    }

    /// `base.xy` plus stage `n`'s bump matrix times `d.rg`; z and w are `base`'s.
    fn bump(&mut self, n: u32, base: &E, d: &E) -> E {
        let xy = self.bump_xy(n, base, d);
        let zw = base.swizzle(&[2, 3]);
        E::atom(format!("float4({}, {})", xy.s, zw.s), 4)
    }

    /// `base.xy` plus stage `n`'s bump matrix times `d.rg`.
    fn bump_xy(&mut self, n: u32, base: &E, d: &E) -> E {
        let m = self.stage_state(
            &format!("BUMPENVMAT{n}"),
            &format!("(D3DTSS_BUMPENVMAT00, 01, 10, 11) of stage {n}"),
        );
        let b = base.swizzle(&[0, 1]);
        let t = d.at(expr::ATOM);
        E::new(
            format!("{} + {t}.x * {m}.xy + {t}.y * {m}.zw", b.at(expr::ADD)),
            expr::ADD,
            2,
        )
    }

    /// A uniform for texture stage state (declared once).
    fn stage_state(&mut self, name: &str, what: &str) -> String {
        let decl = format!("float4 {name}; // {what}: texture stage state, not a constant");
        if !self.uniforms.decls.contains(&decl) {
            self.uniforms.decls.push(decl);
        }
        name.to_string()
    }

    /// Sample stage `n` at the four-component coordinate `c`.
    fn stage(&mut self, n: u32, c: &E) -> Result<E, Error> {
        let info = self
            .uniforms
            .samplers
            .get(&n)
            .cloned()
            .ok_or(Error::Unsupported(crate::Unsupported::StageWithoutSampler(
                n,
            )))?;
        let _ = sampler_ty(info.ty);
        let (f, comps): (&str, &[usize]) = match info.ty {
            TextureType::Cube => ("texCUBE", &[0, 1, 2]),
            TextureType::Volume => ("tex3D", &[0, 1, 2]),
            TextureType::OneD => ("tex1D", &[0]),
            _ => ("tex2D", &[0, 1]),
        };
        let s = E::atom(info.name, 1);
        Ok(call(f, &[&s, &c.swizzle(comps)], 4))
    }

    /// `oDepth = w == 0 ? 1 : z / w`.
    fn depth(&mut self, z: &str, w: &str) -> Vec<String> {
        let reg = dxso::ir::Register::new(RegisterKind::DepthOut, 0);
        let target = self
            .io
            .write
            .get(&reg)
            .and_then(|v| v.0.first().map(|s| s.expr.s.clone()))
            .unwrap_or_else(|| "o.depth".into());
        vec![format!("{target} = ({w}) == 0 ? 1 : ({z}) / ({w});")]
    }
}

fn bad(inst: &Instruction) -> Error {
    Error::Unsupported(crate::Unsupported::MissingOperands(inst.opcode))
}
