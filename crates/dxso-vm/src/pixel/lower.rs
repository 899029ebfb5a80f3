//! Pixel shaders lowered onto the vertex engine's op list: where the pixel registers live,
//! the ops only pixel shaders have ([`PixelOp`]), and the ps_1_x rules (source modifiers,
//! destination shifts, co-issue, the texture-addressing instructions) expressed as ops.

use crate::program::{
    Alu, DstKind, DstRef, INPUT_BASE, LowerError, Lowering, OUTPUT_BASE, Op, PsMod, SIGN, SrcRef,
    TEMP_BASE,
};
use dxso::ir::{Instruction, RegisterKind, Src, SrcModifier, Version};
use dxso::opcodes::{Opcode, TEXLD_BIAS, TEXLD_PROJECT};

/// oC0..oC3 then oDepth: the output rows a pixel program clears each batch.
pub(crate) const OUTPUT_ROWS: u16 = 5 * 4;
/// The row of oDepth (its x).
pub(crate) const DEPTH_ROW: u16 = OUTPUT_BASE + 16;
/// ps_1_1 .. ps_1_3 keep what a texture instruction writes into `t#` apart from the
/// interpolated coordinates (which later texture instructions and `texkill` still read):
/// `t#` results live in temp registers 16 + #, which start each pixel as the coordinates.
pub(crate) const TEX_RESULT_TEMP: u16 = 16;

/// Where a pixel program's own registers live in the arena (after the vertex engine's rows).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PixelRows {
    /// vPos (x, y, 0, 0), four rows.
    pub pos: u16,
    /// vFace, its value in all four rows.
    pub face: u16,
    /// 1.0 in lanes `texkill` discarded.
    pub kill: u16,
    /// A row of zeros and a row of ones (constant operands of the lowered ps_1_x ops).
    pub zero: u16,
    pub one: u16,
    /// Three slots of four rows: ps_1_x sources after their modifier.
    pub modified: u16,
    /// Four rows: an instruction's result before its destination shift.
    pub shifted: u16,
    /// Four rows: the first instruction of a co-issued pair's result, stored after the pair.
    pub coissued: u16,
    /// Four rows: the texture-addressing instructions' intermediate values (the dot
    /// products of the texm3x2/texm3x3 sequences, bumped coordinates).
    pub tex: u16,
}

impl PixelRows {
    pub fn new(first: u16) -> PixelRows {
        PixelRows {
            pos: first,
            face: first + 4,
            kill: first + 8,
            zero: first + 9,
            one: first + 10,
            modified: first + 11,
            shifted: first + 23,
            coissued: first + 27,
            tex: first + 31,
        }
    }
    pub fn end(&self) -> u16 {
        self.tex + 4
    }
}

/// The arena row of input register `index` (v0..v9 in ps_3_0; v0, v1 then t0..t7 before).
pub(crate) fn input_row(index: u32) -> u16 {
    INPUT_BASE + index as u16 * 4
}

/// How a sampling op finds its level of detail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum SampleMode {
    /// From the quad derivatives of the coordinates (texld, ps_1_4 texld, the ps_1_x ops).
    Implicit,
    /// texldp / ps_1_4 `_dw`: x, y, z divided by w first.
    Project,
    /// ps_1_4 `_dz`: x, y divided by z first.
    ProjectZ,
    /// ps_1_1 .. ps_1_3 `tex`: as `Project` where the stage's TEXTURETRANSFORMFLAGS has
    /// D3DTTFF_PROJECTED, else `Implicit`.
    Stage,
    /// texldb: implicit plus coordinate w.
    Bias,
    /// texldl: coordinate w is the level of detail.
    Lod,
    /// texldd: the gradients `dx` and `dy` in place of the quad derivatives.
    Grad,
}

impl SampleMode {
    /// Every mode, in the order of its number (`mode as u32`: how compiled code names it to
    /// the sampling callback).
    pub(crate) const ALL: [SampleMode; 7] = [
        SampleMode::Implicit,
        SampleMode::Project,
        SampleMode::ProjectZ,
        SampleMode::Stage,
        SampleMode::Bias,
        SampleMode::Lod,
        SampleMode::Grad,
    ];
}

const _: () = assert!(SampleMode::Grad as usize == SampleMode::ALL.len() - 1);

/// The ops only pixel shaders have, which need the draw's textures and stages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum PixelOp {
    /// Sample `sampler` at `coord`; the texel swizzled by `swizzle` (the sampler operand's
    /// in ps_2_0+, identity before) is stored into `dst`.
    Sample {
        dst: DstRef,
        coord: SrcRef,
        dx: SrcRef,
        dy: SrcRef,
        sampler: u8,
        swizzle: u8,
        mode: SampleMode,
    },
    /// texbem/texbeml/bem: rows `out[0]`, `out[1]` = coord.xy + BUMPENVMAT(stage) * src.xy.
    Bump {
        out: [u16; 2],
        coord: SrcRef,
        src: SrcRef,
        stage: u8,
    },
    /// texbeml: rows `dst .. dst+4` *= src.z * BUMPENVLSCALE + BUMPENVLOFFSET (of `stage`).
    Luminance { dst: u16, src: SrcRef, stage: u8 },
    /// texm3x3spec/vspec: rows `n` (the normal) become the eye vector reflected about it,
    /// 2 * N * (N.E) / (N.N) - E.
    Reflect { n: [u16; 3], eye: SrcRef },
    /// texdepth / texm3x2depth: oDepth = row `num` / row `den` (1.0 where `den` is 0).
    DepthRatio { num: u16, den: u16 },
    /// ps_1_4 texcrd with `_dz` (q = 2) / `_dw` (q = 3): dst = src / src[q].
    Divide { dst: DstRef, src: SrcRef, q: u8 },
}

/// The pixel part of the lowering state.
#[derive(Clone, Debug)]
pub(crate) struct PixelLowering {
    pub version: Version,
    pub rows: PixelRows,
    /// The destination of a co-issued pair's first instruction, stored after the second.
    pending_coissue: Option<DstRef>,
    /// texm3x2pad / texm3x3pad results so far in the current sequence.
    pads: u16,
}

impl PixelLowering {
    pub fn new(version: Version, rows: PixelRows) -> PixelLowering {
        PixelLowering {
            version,
            rows,
            pending_coissue: None,
            pads: 0,
        }
    }

    fn ps1(&self) -> bool {
        self.version.major < 2
    }

    /// ps_1_1 .. ps_1_3 (texture registers hold results, `tex`-style instructions).
    fn ps13(&self) -> bool {
        self.version.number() < 0x104
    }

    /// Base row of a directly addressed pixel-shader register (not c#).
    pub fn reg_row(&self, kind: RegisterKind, number: u32) -> Option<u16> {
        let n = number as u16;
        match kind {
            RegisterKind::Temp if n < 32 => Some(TEMP_BASE + n * 4),
            RegisterKind::Input if self.version.major >= 3 && n < 10 => Some(input_row(number)),
            RegisterKind::Input if n < 2 => Some(input_row(number)),
            RegisterKind::Texture if n < 8 && self.ps13() => {
                Some(TEMP_BASE + (TEX_RESULT_TEMP + n) * 4)
            }
            RegisterKind::Texture if n < 8 && self.version.major < 3 => Some(input_row(2 + number)),
            RegisterKind::ColorOut if n < 4 => Some(OUTPUT_BASE + n * 4),
            RegisterKind::DepthOut => Some(DEPTH_ROW),
            RegisterKind::MiscType if n == 0 => Some(self.rows.pos),
            RegisterKind::MiscType if n == 1 => Some(self.rows.face),
            _ => None,
        }
    }
}

/// Rows `base .. base + 4` as a plain source.
pub(crate) fn identity(base: u16) -> SrcRef {
    SrcRef {
        rows: [base, base + 1, base + 2, base + 3],
        and: u32::MAX,
        xor: 0,
    }
}

fn rows_ref(rows: [u16; 4]) -> SrcRef {
    SrcRef {
        rows,
        and: u32::MAX,
        xor: 0,
    }
}

/// A plain write of `mask` into rows `row ..`.
pub(crate) fn mask_dst(row: u16, mask: u8) -> DstRef {
    DstRef {
        kind: DstKind::Rows(row),
        mask,
        sat: false,
        pred: None,
        hazard: false,
    }
}

impl Lowering<'_> {
    fn px(&self) -> &PixelLowering {
        self.pixel.as_ref().expect("pixel lowering")
    }

    /// A source operand with its ps_1_x modifier applied by a pre-op into scratch slot
    /// `slot` (`_bias`, `_bx2`, `1-x`, `_x2`; negation stays in the operand's sign bits and
    /// applies after the modifier). `_dz`/`_dw` are read by the instructions that take them.
    pub(crate) fn src_modified(
        &mut self,
        i: usize,
        s: &Src,
        slot: u16,
    ) -> Result<SrcRef, LowerError> {
        let (neg, base) = s.modifier.split_negate();
        let kind = match base {
            SrcModifier::Bias => PsMod::Bias,
            SrcModifier::Sign => PsMod::Bx2,
            SrcModifier::Comp => PsMod::Comp,
            SrcModifier::X2 => PsMod::X2,
            _ => return self.src(i, s, slot, 0),
        };
        let Some(p) = &self.pixel else {
            return Err(self.unsupported(i, "this source modifier in a vertex shader"));
        };
        let to = p.rows.modified + slot.min(2) * 4;
        let plain = Src {
            modifier: SrcModifier::None,
            ..*s
        };
        let from = self.src(i, &plain, slot, 0)?;
        self.ops.push(Op::Alu {
            kind: Alu::SrcMod(kind),
            dst: mask_dst(to, 0xF),
            src: [from, from, from],
        });
        Ok(SrcRef {
            xor: if neg { SIGN } else { 0 },
            ..identity(to)
        })
    }

    /// One pixel-shader instruction (flow control and declarations are lowered by the
    /// caller): its own ops, then the ps_1_x destination shift and co-issue around them.
    pub(crate) fn pixel_instruction(
        &mut self,
        i: usize,
        inst: &Instruction,
    ) -> Result<(), LowerError> {
        let start = self.ops.len();
        self.pixel_ops(i, inst)?;
        let ps1 = self.px().ps1();
        let rows = self.px().rows;
        let shift = inst.dst.map_or(0, |d| d.shift & 0xF);
        let next_coissued = ps1
            && !inst.coissue
            && self
                .shader
                .instructions
                .get(i + 1)
                .is_some_and(|n| n.coissue);
        if ps1 && (shift != 0 || next_coissued) && self.ops.len() > start {
            self.shift_and_hold(i, inst, shift, next_coissued)?;
        }
        if inst.coissue
            && let Some(orig) = self.pixel.as_mut().expect("pixel").pending_coissue.take()
        {
            // Both instructions of the pair read the registers as they were before it: the
            // first one's result is stored only now (its _sat already applied).
            let s = identity(rows.coissued);
            // The store belongs to the pair's first instruction (for traces).
            self.op_source.resize(self.ops.len(), i as u32);
            self.ops.push(Op::Alu {
                kind: Alu::Mov,
                dst: DstRef { sat: false, ..orig },
                src: [s, s, s],
            });
            self.op_source.push(i.saturating_sub(1) as u32);
        }
        Ok(())
    }

    /// The destination shift of the instruction whose ops end the list, and, when the next
    /// instruction is co-issued, its result held in scratch rows until the pair ends.
    fn shift_and_hold(
        &mut self,
        i: usize,
        inst: &Instruction,
        shift: u8,
        next_coissued: bool,
    ) -> Result<(), LowerError> {
        let rows = self.px().rows;
        let mut last = self.ops.len() - 1;
        if dst_of(&self.ops[last]).is_none() {
            if inst.opcode != Opcode::TexBemL {
                // texdepth, texm3x2depth, texkill: no register result to shift (dxso
                // ignores the shift; the validator allows `texdepth_x2`).
                return Ok(());
            }
            // texbeml: its last op scales the texel in place; shift that.
            let d = self.dst(i, inst)?;
            let DstKind::Rows(row) = d.kind else {
                return Ok(());
            };
            let s = identity(row);
            self.ops.push(Op::Alu {
                kind: Alu::Mov,
                dst: d,
                src: [s, s, s],
            });
            last += 1;
        }
        let Some(orig) = dst_of(&self.ops[last]) else {
            return Err(self.unsupported(i, "a shift or co-issue on this instruction"));
        };
        // Where the pair's first instruction finally lands before the pair ends.
        let landing = if next_coissued {
            DstRef {
                kind: DstKind::Rows(rows.coissued),
                pred: None,
                hazard: false,
                ..orig
            }
        } else {
            orig
        };
        if shift != 0 {
            let factor = match shift {
                1 => 2.0,
                2 => 4.0,
                3 => 8.0,
                15 => 0.5,
                14 => 0.25,
                13 => 0.125,
                _ => return Err(self.unsupported(i, "this destination shift")),
            };
            set_dst(
                &mut self.ops[last],
                DstRef {
                    kind: DstKind::Rows(rows.shifted),
                    sat: false,
                    pred: None,
                    hazard: false,
                    ..orig
                },
            );
            let s = identity(rows.shifted);
            self.ops.push(Op::Alu {
                kind: Alu::Scale(factor),
                dst: landing,
                src: [s, s, s],
            });
        } else {
            set_dst(&mut self.ops[last], landing);
        }
        if next_coissued {
            self.pixel.as_mut().expect("pixel").pending_coissue = Some(orig);
        }
        Ok(())
    }

    #[allow(clippy::too_many_lines)] // a dispatch `match`: one arm per pixel opcode
    fn pixel_ops(&mut self, i: usize, inst: &Instruction) -> Result<(), LowerError> {
        use Opcode as O;
        let p = self.px().clone();
        let rows = p.rows;
        let dst_number = inst.dst.map_or(0, |d| d.reg.number);
        // ps_1_1 .. ps_1_3: the interpolated coordinates of stage `n` (x, y, z, w).
        let coords = |n: u32| identity(input_row(2 + n));
        // Zero in every component: the rows after `zero` are `one` and scratch.
        let zeros = rows_ref([rows.zero; 4]);
        let unused = zeros;
        let sample = |dst: DstRef, coord: SrcRef, sampler: u32, mode: SampleMode| {
            Op::Pixel(PixelOp::Sample {
                dst,
                coord,
                dx: unused,
                dy: unused,
                sampler: sampler as u8,
                swizzle: 0xE4,
                mode,
            })
        };
        let tex = |k: u16| rows.tex + k;
        match inst.opcode {
            // The alpha of the temporaries does not persist across the phase (`phase---ps`):
            // dxso makes it 0, as dxso-naga's translation does.
            O::Phase => {
                for r in 0..6 {
                    self.ops.push(Op::Alu {
                        kind: Alu::Mov,
                        dst: mask_dst(TEMP_BASE + r * 4, 0x8),
                        src: [zeros, zeros, zeros],
                    });
                }
            }
            // ps_2_0+: texld/texldp/texldb dst, coord, s#; texldl; texldd.
            O::Tex | O::TexLdl | O::TexLdd if inst.srcs.len() >= 2 => {
                let dst = self.dst(i, inst)?;
                let coord = self.src_modified(i, &inst.srcs[0], 0)?;
                let s = inst.srcs[1];
                let (mut dx, mut dy) = (unused, unused);
                let mode = match inst.opcode {
                    O::TexLdl => SampleMode::Lod,
                    O::TexLdd => {
                        let (Some(a), Some(b)) = (inst.srcs.get(2), inst.srcs.get(3)) else {
                            return Err(self.unsupported(i, "texldd without gradients"));
                        };
                        dx = self.src_modified(i, a, 1)?;
                        dy = self.src_modified(i, b, 2)?;
                        SampleMode::Grad
                    }
                    _ if inst.control == TEXLD_PROJECT => SampleMode::Project,
                    _ if inst.control == TEXLD_BIAS => SampleMode::Bias,
                    _ => SampleMode::Implicit,
                };
                self.ops.push(Op::Pixel(PixelOp::Sample {
                    dst,
                    coord,
                    dx,
                    dy,
                    sampler: s.reg.number as u8,
                    swizzle: s.swizzle.0,
                    mode,
                }));
            }
            // ps_1_4: texld r#, t#/r# (stage = the destination's number).
            O::Tex if inst.srcs.len() == 1 => {
                let dst = self.dst(i, inst)?;
                let s = &inst.srcs[0];
                let mode = match s.modifier {
                    SrcModifier::Dz => SampleMode::ProjectZ,
                    SrcModifier::Dw => SampleMode::Project,
                    _ => SampleMode::Implicit,
                };
                let coord = self.src_modified(i, s, 0)?;
                self.ops.push(sample(dst, coord, dst_number, mode));
            }
            // ps_1_1 .. ps_1_3: tex t#.
            O::Tex => {
                let dst = self.dst(i, inst)?;
                self.ops.push(sample(
                    dst,
                    coords(dst_number),
                    dst_number,
                    SampleMode::Stage,
                ));
            }
            // ps_1_4 texcrd r#, t# (with _dz / _dw).
            O::TexCoord if !inst.srcs.is_empty() => {
                let dst = self.dst(i, inst)?;
                let s = &inst.srcs[0];
                let src = self.src_modified(i, s, 0)?;
                self.ops.push(match s.modifier {
                    SrcModifier::Dz | SrcModifier::Dw => Op::Pixel(PixelOp::Divide {
                        dst,
                        src,
                        q: if s.modifier == SrcModifier::Dz { 2 } else { 3 },
                    }),
                    _ => Op::Alu {
                        kind: Alu::Mov,
                        dst,
                        src: [src, src, src],
                    },
                });
            }
            // ps_1_1 .. ps_1_3 texcoord t#: (u, v, w, 1) clamped to [0, 1].
            O::TexCoord => {
                let dst = DstRef {
                    sat: true,
                    ..self.dst(i, inst)?
                };
                let c = coords(dst_number);
                let s = rows_ref([c.rows[0], c.rows[1], c.rows[2], rows.one]);
                self.ops.push(Op::Alu {
                    kind: Alu::Mov,
                    dst,
                    src: [s, s, s],
                });
            }
            O::TexKill => {
                let Some(d) = inst.dst else {
                    return Err(self.unsupported(i, "texkill without an operand"));
                };
                let base = if p.ps13() {
                    input_row(2 + d.reg.number)
                } else {
                    self.reg_row(d.reg.kind, d.reg.number)
                        .ok_or_else(|| self.unsupported(i, "this texkill operand"))?
                };
                let s = identity(base);
                // ps_1_x: x, y, z (`texkill---ps`); ps_2_0+: the operand's write mask (HLSL's
                // clip of a float4 is `texkill r.xyzw`; wined3d and dxso-naga agree).
                let comps = if p.ps1() { 0x7 } else { d.mask.0 };
                self.ops.push(Op::Alu {
                    kind: Alu::Kill(comps),
                    dst: mask_dst(rows.kill, 1),
                    src: [s, s, s],
                });
            }
            O::TexBem | O::TexBemL => {
                let dst = self.dst(i, inst)?;
                let src = self.src_modified(i, &inst.srcs[0], 0)?;
                self.ops.push(Op::Pixel(PixelOp::Bump {
                    out: [tex(0), tex(1)],
                    coord: coords(dst_number),
                    src,
                    stage: dst_number as u8,
                }));
                let c = rows_ref([tex(0), tex(1), rows.zero, rows.zero]);
                self.ops
                    .push(sample(dst, c, dst_number, SampleMode::Implicit));
                if inst.opcode == O::TexBemL
                    && let DstKind::Rows(row) = dst.kind
                {
                    self.ops.push(Op::Pixel(PixelOp::Luminance {
                        dst: row,
                        src,
                        stage: dst_number as u8,
                    }));
                }
            }
            O::Bem => {
                let dst = self.dst(i, inst)?;
                let a = self.src_modified(i, &inst.srcs[0], 0)?;
                let b = self.src_modified(i, &inst.srcs[1], 1)?;
                self.ops.push(Op::Pixel(PixelOp::Bump {
                    out: [tex(0), tex(1)],
                    coord: a,
                    src: b,
                    stage: dst_number as u8,
                }));
                let s = rows_ref([tex(0), tex(1), rows.zero, rows.zero]);
                self.ops.push(Op::Alu {
                    kind: Alu::Mov,
                    dst,
                    src: [s, s, s],
                });
            }
            O::TexReg2Ar | O::TexReg2Gb | O::TexReg2Rgb => {
                let dst = self.dst(i, inst)?;
                let s = self.src_modified(i, &inst.srcs[0], 0)?;
                let r = s.rows;
                let c = SrcRef {
                    rows: match inst.opcode {
                        O::TexReg2Ar => [r[3], r[0], rows.zero, rows.zero],
                        O::TexReg2Gb => [r[1], r[2], rows.zero, rows.zero],
                        _ => [r[0], r[1], r[2], rows.zero],
                    },
                    ..s
                };
                self.ops
                    .push(sample(dst, c, dst_number, SampleMode::Implicit));
            }
            O::TexM3x2Pad | O::TexM3x3Pad => {
                let k = self.px().pads.min(2);
                self.dot3(i, inst, tex(k))?;
                self.pixel.as_mut().expect("pixel").pads = k + 1;
            }
            O::TexM3x2Tex | O::TexM3x2Depth | O::TexDp3Tex => {
                let k = if inst.opcode == O::TexDp3Tex { 0 } else { 1 };
                self.dot3(i, inst, tex(k))?;
                self.pixel.as_mut().expect("pixel").pads = 0;
                if inst.opcode == O::TexM3x2Depth {
                    self.ops.push(Op::Pixel(PixelOp::DepthRatio {
                        num: tex(0),
                        den: tex(1),
                    }));
                } else {
                    let dst = self.dst(i, inst)?;
                    let v = if k == 1 { tex(1) } else { rows.zero };
                    let c = rows_ref([tex(0), v, rows.zero, rows.zero]);
                    self.ops
                        .push(sample(dst, c, dst_number, SampleMode::Implicit));
                }
            }
            O::TexM3x3Tex | O::TexM3x3Spec | O::TexM3x3VSpec | O::TexM3x3 => {
                self.dot3(i, inst, tex(2))?;
                self.pixel.as_mut().expect("pixel").pads = 0;
                let dst = self.dst(i, inst)?;
                let n = [tex(0), tex(1), tex(2)];
                match inst.opcode {
                    O::TexM3x3Spec => {
                        let Some(e) = inst.srcs.get(1) else {
                            return Err(self.unsupported(i, "texm3x3spec without an eye ray"));
                        };
                        let eye = self.src_modified(i, e, 1)?;
                        self.ops.push(Op::Pixel(PixelOp::Reflect { n, eye }));
                    }
                    O::TexM3x3VSpec => {
                        // The eye ray is the w of the three stages' coordinates.
                        let m = dst_number.max(2);
                        let w = |n: u32| input_row(2 + n) + 3;
                        let eye = rows_ref([w(m - 2), w(m - 1), w(m), rows.zero]);
                        self.ops.push(Op::Pixel(PixelOp::Reflect { n, eye }));
                    }
                    _ => {}
                }
                let c = rows_ref([tex(0), tex(1), tex(2), rows.zero]);
                if inst.opcode == O::TexM3x3 {
                    let s = rows_ref([tex(0), tex(1), tex(2), rows.one]);
                    self.ops.push(Op::Alu {
                        kind: Alu::Mov,
                        dst,
                        src: [s, s, s],
                    });
                } else {
                    self.ops
                        .push(sample(dst, c, dst_number, SampleMode::Implicit));
                }
            }
            O::TexDp3 => {
                let dst = self.dst(i, inst)?;
                let s = self.src_modified(i, &inst.srcs[0], 0)?;
                self.ops.push(Op::Alu {
                    kind: Alu::Dp3,
                    dst,
                    src: [coords(dst_number), s, s],
                });
            }
            O::TexDepth => {
                let base = self
                    .reg_row(RegisterKind::Temp, dst_number)
                    .ok_or_else(|| self.unsupported(i, "texdepth's register"))?;
                self.ops.push(Op::Pixel(PixelOp::DepthRatio {
                    num: base,
                    den: base + 1,
                }));
            }
            O::Cnd if p.ps13() => {
                // ps_1_1 .. ps_1_3: the condition is r0.a, replicated.
                let mut inst = inst.clone();
                if let Some(s0) = inst.srcs.first_mut() {
                    s0.swizzle = dxso::ir::Swizzle(0xFF);
                }
                self.arithmetic(i, &inst)?;
            }
            _ => self.arithmetic(i, inst)?,
        }
        Ok(())
    }

    /// A texm3x2/texm3x3/texdp3 step: row `out` = coordinates of the destination's stage
    /// (xyz) . the source register (xyz).
    fn dot3(&mut self, i: usize, inst: &Instruction, out: u16) -> Result<(), LowerError> {
        let m = inst.dst.map_or(0, |d| d.reg.number);
        let Some(s) = inst.srcs.first() else {
            return Err(self.unsupported(i, "a texture matrix step without a source"));
        };
        let s = self.src_modified(i, s, 0)?;
        self.ops.push(Op::Alu {
            kind: Alu::Dp3,
            dst: mask_dst(out, 1),
            src: [identity(input_row(2 + m)), s, s],
        });
        Ok(())
    }
}

fn dst_of(op: &Op) -> Option<DstRef> {
    match op {
        Op::Alu { dst, .. }
        | Op::Pixel(PixelOp::Sample { dst, .. })
        | Op::Pixel(PixelOp::Divide { dst, .. }) => Some(*dst),
        _ => None,
    }
}

fn set_dst(op: &mut Op, to: DstRef) {
    match op {
        Op::Alu { dst, .. }
        | Op::Pixel(PixelOp::Sample { dst, .. })
        | Op::Pixel(PixelOp::Divide { dst, .. }) => *dst = to,
        _ => {}
    }
}
