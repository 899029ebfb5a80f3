//! Texture sampling (`texld`, `texldp`, `texldb`, `texldd`, `texldl`), derivatives and
//! `texkill`, for vs_3_0 and ps_2_0 .. ps_3_0. The ps_1_x texture-addressing instructions
//! live in `ps1x.rs`.

use crate::Error;
use crate::func::{H, Shape};
use crate::regs::Tr;
use dxso::Opcode;
use dxso::ir::{Instruction, Src};
use dxso::opcodes::{TEXLD_BIAS, TEXLD_PROJECT};
use naga::{BinaryOperator as B, Expression, ImageDimension, SampleLevel, Statement};

impl Tr {
    /// Sampling and derivative instructions; `Ok(false)` for others.
    pub fn texture(&mut self, inst: &Instruction) -> Result<bool, Error> {
        let v = match inst.opcode {
            Opcode::TexLdl => {
                let c = self.src(&inst.srcs[0])?;
                let lod = self.fb.index(c, 3);
                self.sample(c, &inst.srcs[1], SampleLevel::Exact(lod))?
            }
            Opcode::Tex if self.version.major >= 2 => {
                let c = self.src(&inst.srcs[0])?;
                match inst.control {
                    TEXLD_PROJECT => {
                        let w = self.fb.swizzle(c, [3; 4]);
                        let p = self.fb.bin(B::Divide, c, w);
                        self.sample(p, &inst.srcs[1], SampleLevel::Auto)?
                    }
                    TEXLD_BIAS => {
                        let b = self.fb.index(c, 3);
                        self.sample(c, &inst.srcs[1], SampleLevel::Bias(b))?
                    }
                    _ => self.sample(c, &inst.srcs[1], SampleLevel::Auto)?,
                }
            }
            Opcode::TexLdd => {
                let c = self.src(&inst.srcs[0])?;
                let dx = self.src(&inst.srcs[2])?;
                let dy = self.src(&inst.srcs[3])?;
                let dim = self.sampler(inst.srcs[1].reg.number)?.dim;
                let x = self.coords(dx, dim);
                let y = self.coords(dy, dim);
                self.sample(c, &inst.srcs[1], SampleLevel::Gradient { x, y })?
            }
            Opcode::Dsx | Opcode::Dsy => {
                let s = self.src(&inst.srcs[0])?;
                let axis = if inst.opcode == Opcode::Dsx {
                    naga::DerivativeAxis::X
                } else {
                    naga::DerivativeAxis::Y
                };
                self.fb.expr(Expression::Derivative {
                    axis,
                    ctrl: naga::DerivativeControl::None,
                    expr: s,
                })
            }
            _ => return Ok(false),
        };
        self.write(inst, v)?;
        Ok(true)
    }

    pub fn sampler(&self, n: u32) -> Result<crate::regs::SamplerRef, Error> {
        self.samplers
            .get(&n)
            .copied()
            .ok_or_else(|| self.invalid(format!("sampler s{n} is not declared")))
    }

    /// The coordinate components a texture of `dim` takes.
    fn coords(&mut self, c: H, dim: ImageDimension) -> H {
        match dim {
            ImageDimension::D1 => self.fb.index(c, 0),
            ImageDimension::D2 => self.fb.prefix(c, 2),
            _ => self.fb.prefix(c, 3),
        }
    }

    /// Sample texture `s#` at `c` and apply the sampler operand's swizzle.
    pub fn sample(&mut self, c: H, s: &Src, level: SampleLevel) -> Result<H, Error> {
        let smp = self.sampler(s.reg.number)?;
        let coordinate = self.coords(c, smp.dim);
        let texel = self.fb.expr(Expression::ImageSample {
            image: smp.texture,
            sampler: smp.sampler,
            gather: None,
            coordinate,
            array_index: None,
            offset: None,
            level,
            depth_ref: None,
            clamp_to_edge: false,
        });
        Ok(self
            .fb
            .swizzle(texel, [0, 1, 2, 3].map(|k| s.swizzle.get(k) as u8)))
    }

    /// texkill: discard the pixel when any written component of the operand is below 0.
    pub fn texkill(&mut self, inst: &Instruction) -> Result<(), Error> {
        if self.version.is_pixel() && self.version.major < 2 {
            return self.texkill1x(inst);
        }
        let d = inst
            .dst
            .ok_or_else(|| self.invalid("texkill without operand"))?;
        let v = self.src(&Src::new(d.reg))?;
        let zero = self.fb.kf(0.0, Shape::Vec4);
        let lt = self.fb.bin(B::Less, v, zero);
        let mut any: Option<H> = None;
        for c in 0..4 {
            if !d.mask.has(c) {
                continue;
            }
            let b = self.fb.index(lt, c as u32);
            any = Some(match any {
                None => b,
                Some(a) => self.fb.bin(B::LogicalOr, a, b),
            });
        }
        if let Some(cond) = any {
            let mut kill = naga::Block::new();
            kill.push(Statement::Kill, naga::Span::UNDEFINED);
            self.fb.stmt(Statement::If {
                condition: cond,
                accept: kill,
                reject: naga::Block::new(),
            });
        }
        Ok(())
    }
}
