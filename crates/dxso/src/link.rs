//! Linkage: a vertex shader's outputs feed a pixel shader's inputs by semantic (usage and
//! usage index), never by register number (`../shared/spec/linkage.md`).
//!
//! Rules, with stable ids:
//! - L001: hardware vs_3_0 pairs only with ps_3_0, and ps_3_0 only with vs_3_0; a software
//!   vs_3_0 may feed an older pixel shader;
//! - L002: every semantic the pixel shader reads is written by the vertex shader;
//! - L003: the pixel shader's components of a semantic are a subset of the vertex shader's,
//!   at the same positions;
//! - L004: packing agrees: two semantics share a register in the pixel shader exactly when
//!   they share one in the vertex shader;
//! - L005: PSIZE never reaches the pixel shader;
//! - L006 (warning): a ps_3_0 POSITION input is linked by semantic; it is not the pixel
//!   position (that is vPos);
//! - L007: a software vs_3_0 feeding a pixel shader older than ps_3_0 may use only the
//!   semantics an FVF can express (POSITION0, COLOR0-1, TEXCOORD0-7, FOG0, PSIZE0).
//!
//! Vertex shaders below vs_3_0 output oPos, oD0-1, oT0-7, oFog and oPts as POSITION0,
//! COLOR0-1, TEXCOORD0-7, FOG0 and PSIZE0 (masks from their writes); pixel shaders below
//! ps_3_0 read v0-1 as COLOR0-1 and t0-7 as TEXCOORD0-7.

use crate::ir::*;
use crate::opcodes::Opcode;
use crate::registers::register_name;
use crate::validate::Checked;

/// One entry of a signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element {
    /// The semantic's usage (`TEXCOORD` of `TEXCOORD3`).
    pub usage: Usage,
    /// The semantic's index (3 of `TEXCOORD3`).
    pub usage_index: u8,
    /// The register that carries it.
    pub register: Register,
    /// Components, bit 0 = x.
    pub mask: u8,
    /// Interpolated at the centroid (`_centroid`).
    pub centroid: bool,
    /// The dcl (or first writing/reading instruction) it comes from.
    pub instruction: Option<usize>,
}

impl Element {
    /// The semantic's name (`TEXCOORD3`).
    pub fn semantic(&self) -> String {
        format!(
            "{}{}",
            self.usage.name().to_ascii_uppercase(),
            self.usage_index
        )
    }
    /// The register's name (`o2`, `oT3`, `v1`).
    pub fn register_name(&self) -> String {
        register_name(self.register.kind, self.register.number)
    }
}

/// Component letters of a mask (`xyz`).
pub fn mask_letters(m: u8) -> String {
    (0..4)
        .filter(|c| m >> c & 1 != 0)
        .map(|c| ['x', 'y', 'z', 'w'][c])
        .collect()
}

/// The registers of `kind` a shader declares with a semantic (vs_3_0 outputs, ps_3_0 inputs).
fn declared(shader: &Shader, kind: RegisterKind) -> Vec<Element> {
    let mut out = Vec::new();
    for (i, inst) in shader.instructions.iter().enumerate() {
        if let (Some(d), Some(decl)) = (inst.dst, inst.decl)
            && d.reg.kind == kind
            && let Some(usage) = Usage::from_u32(decl.usage as u32)
        {
            out.push(Element {
                usage,
                usage_index: decl.usage_index,
                register: d.reg,
                mask: d.mask.0,
                centroid: d.modifiers & RESULT_CENTROID != 0,
                instruction: Some(i),
            });
        }
    }
    out
}

/// What a shader outputs: a vertex shader's varyings; a pixel shader's colours and depth
/// (`pixel_outputs`).
pub fn output_signature(vs: &Shader) -> Vec<Element> {
    if vs.version.is_pixel() {
        return pixel_outputs(vs);
    }
    if vs.version.major >= 3 {
        return declared(vs, RegisterKind::Output);
    }
    let mut out: Vec<Element> = Vec::new();
    for (i, inst) in vs.instructions.iter().enumerate() {
        let Some(d) = inst.dst else { continue };
        if inst.decl.is_some() {
            continue;
        }
        let (usage, index) = match (d.reg.kind, d.reg.number) {
            (RegisterKind::RastOut, RASTOUT_POSITION) => (Usage::Position, 0),
            (RegisterKind::RastOut, RASTOUT_FOG) => (Usage::Fog, 0),
            (RegisterKind::RastOut, RASTOUT_POINT_SIZE) => (Usage::PSize, 0),
            (RegisterKind::AttrOut, n) => (Usage::Color, n as u8),
            (RegisterKind::TexCrdOut, n) => (Usage::TexCoord, n as u8),
            _ => continue,
        };
        match out.iter_mut().find(|e| e.register == d.reg) {
            Some(e) => e.mask |= d.mask.0,
            None => out.push(Element {
                usage,
                usage_index: index,
                register: d.reg,
                mask: d.mask.0,
                centroid: false,
                instruction: Some(i),
            }),
        }
    }
    out
}

/// What a pixel shader outputs, in register order: from ps_2_0 on, each `oC#` it writes as
/// COLOR# and `oDepth` as DEPTH0; in ps_1_x the colour is `r0` (COLOR0, always present: the
/// pixel's colour is whatever `r0` holds at the end), and ps_1_4's `texdepth r5` makes `r5`
/// the depth (DEPTH0, its x/y). Masks are the components written (`r0` unwritten: xyzw).
fn pixel_outputs(ps: &Shader) -> Vec<Element> {
    let legacy = ps.version.number() < 0x200;
    let mut out: Vec<Element> = Vec::new();
    if legacy {
        out.push(Element {
            usage: Usage::Color,
            usage_index: 0,
            register: Register {
                kind: RegisterKind::Temp,
                number: 0,
            },
            mask: 0,
            centroid: false,
            instruction: None,
        });
    }
    for (i, inst) in ps.instructions.iter().enumerate() {
        let Some(d) = inst.dst else { continue };
        let (usage, index, mask) = match (d.reg.kind, d.reg.number) {
            (RegisterKind::ColorOut, n) if !legacy => (Usage::Color, n as u8, d.mask.0),
            (RegisterKind::DepthOut, _) if !legacy => (Usage::Depth, 0, d.mask.0),
            (RegisterKind::Temp, 0) if legacy => (Usage::Color, 0, d.mask.0),
            (RegisterKind::Temp, _) if legacy && inst.opcode == Opcode::TexDepth => {
                (Usage::Depth, 0, 0b0011)
            }
            _ => continue,
        };
        match out.iter_mut().find(|e| e.register == d.reg) {
            Some(e) => {
                e.mask |= mask;
                e.instruction.get_or_insert(i);
            }
            None => out.push(Element {
                usage,
                usage_index: index,
                register: d.reg,
                mask,
                centroid: false,
                instruction: Some(i),
            }),
        }
    }
    for e in &mut out {
        if e.mask == 0 {
            e.mask = 0xF;
        }
    }
    out.sort_by_key(|e| (e.usage == Usage::Depth, e.usage_index));
    out
}

/// What a vertex shader reads: its `dcl_usage v#` inputs (every vertex-shader version
/// declares them).
pub fn vertex_inputs(vs: &Shader) -> Vec<Element> {
    declared(vs, RegisterKind::Input)
}

/// What a pixel shader reads (its interpolated inputs; vPos and vFace are not varyings).
pub fn input_signature(ps: &Shader) -> Vec<Element> {
    let n = ps.version.number();
    if n >= 0x300 {
        return declared(ps, RegisterKind::Input);
    }
    let mut out: Vec<Element> = Vec::new();
    let legacy = |reg: Register| match reg.kind {
        RegisterKind::Input => Some((Usage::Color, reg.number as u8)),
        RegisterKind::Texture => Some((Usage::TexCoord, reg.number as u8)),
        _ => None,
    };
    let mut add = |reg: Register, mask: u8, centroid: bool, i: usize| {
        let Some((usage, index)) = legacy(reg) else {
            return;
        };
        match out.iter_mut().find(|e| e.register == reg) {
            Some(e) => e.mask |= mask,
            None => out.push(Element {
                usage,
                usage_index: index,
                register: reg,
                mask,
                centroid,
                instruction: Some(i),
            }),
        }
    };
    if n >= 0x200 {
        // ps_2_x declares its inputs.
        for (i, inst) in ps.instructions.iter().enumerate() {
            if let (Some(d), Some(_)) = (inst.dst, inst.decl) {
                add(d.reg, d.mask.0, d.modifiers & RESULT_CENTROID != 0, i);
            }
        }
    } else {
        // ps_1_x: the registers it reads, and the texture registers tex* instructions load.
        for (i, inst) in ps.instructions.iter().enumerate() {
            for s in &inst.srcs {
                add(s.reg, 0xF, false, i);
            }
            // tex t0, texcoord t0, texkill t0, texm3x2pad t1, ...: the destination's texture
            // coordinates are read.
            if let Some(d) = inst.dst
                && d.reg.kind == RegisterKind::Texture
                && inst.opcode.info().mnemonic.starts_with("tex")
            {
                add(d.reg, 0xF, false, i);
            }
        }
    }
    out
}

/// Linkage rules (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LinkRule {
    /// L001: the two versions cannot be linked.
    Versions,
    /// L002: the pixel shader reads a semantic the vertex shader does not write.
    Missing,
    /// L003: the pixel shader reads components the vertex shader does not write.
    Coverage,
    /// L004: the two shaders pack semantics into registers differently.
    Packing,
    /// L005: the pixel shader reads PSIZE.
    PSize,
    /// L006 (warning): a ps_3_0 POSITION input, linked by semantic (not the pixel position).
    Position,
    /// L007: a vs_3_0 feeding an older pixel shader writes a semantic an FVF cannot express.
    Fvf,
}

impl LinkRule {
    /// The rule's stable id (`L001`).
    pub fn id(self) -> &'static str {
        match self {
            LinkRule::Versions => "L001",
            LinkRule::Missing => "L002",
            LinkRule::Coverage => "L003",
            LinkRule::Packing => "L004",
            LinkRule::PSize => "L005",
            LinkRule::Position => "L006",
            LinkRule::Fvf => "L007",
        }
    }
}

/// A linkage problem, pointing at the dcl (or instruction) on each side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkDiagnostic {
    /// The rule broken.
    pub rule: LinkRule,
    /// `true` for errors, `false` for warnings.
    pub error: bool,
    /// What is wrong, in a sentence.
    pub message: String,
    /// The vertex shader's instruction it points at.
    pub vs_instruction: Option<usize>,
    /// The pixel shader's instruction it points at.
    pub ps_instruction: Option<usize>,
}

/// One varying: which vertex-shader register and components feed which pixel-shader register
/// and components.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Varying {
    /// The semantic's name (`TEXCOORD0`).
    pub semantic: String,
    /// The vertex-shader output.
    pub vs: Element,
    /// The pixel-shader input.
    pub ps: Element,
}

/// The result of a successful link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Linkage {
    /// One varying per pixel-shader input, in input order.
    pub varyings: Vec<Varying>,
    /// Vertex-shader outputs the pixel shader does not read (POSITION0 and PSIZE0 go to the
    /// rasteriser).
    pub unused: Vec<Element>,
    /// The warnings (L006).
    pub warnings: Vec<LinkDiagnostic>,
}

/// Link a validated vertex shader to a validated pixel shader. `software` = the vertex shader
/// runs under software vertex processing (a vs_3_0 may then feed an older pixel shader).
pub fn link(vs: &Checked, ps: &Checked, software: bool) -> Result<Linkage, Vec<LinkDiagnostic>> {
    link_shaders(vs.shader(), ps.shader(), software)
}

/// [`link`] on shaders that have not been validated (the CLI validates first). By phase:
/// the versions, the outputs a vs_3_0 may give an older pixel shader, each input matched
/// to its output, and (ps_3_0) the packing of registers.
pub fn link_shaders(
    vs: &Shader,
    ps: &Shader,
    software: bool,
) -> Result<Linkage, Vec<LinkDiagnostic>> {
    let mut diags: Vec<LinkDiagnostic> = Vec::new();
    let mut err = |rule, message: String, v: Option<usize>, p: Option<usize>| {
        diags.push(link_error(rule, message, v, p))
    };
    if !vs.version.is_vertex() || !ps.version.is_pixel() {
        err(
            LinkRule::Versions,
            format!(
                "link takes a vertex shader and a pixel shader, not {} and {}",
                vs.version, ps.version
            ),
            None,
            None,
        );
        return Err(diags);
    }
    let vs3 = vs.version.major >= 3;
    let ps3 = ps.version.major >= 3;
    if ps3 && !vs3 {
        err(
            LinkRule::Versions,
            format!("ps_3_0 pairs only with vs_3_0, not {}", vs.version),
            None,
            None,
        );
    }
    if vs3 && !ps3 && !software {
        err(
            LinkRule::Versions,
            format!(
                "a hardware vs_3_0 pairs only with ps_3_0, not {} (software vertex processing allows it)",
                ps.version
            ),
            None,
            None,
        );
    }
    let outputs = output_signature(vs);
    let inputs = input_signature(ps);
    if vs3 && !ps3 {
        fvf_outputs(&outputs, ps.version, &mut diags);
    }
    let (varyings, warnings) = match_varyings(&inputs, &outputs, ps3, &mut diags);
    if ps3 {
        packing(&varyings, &mut diags);
    }
    if diags.iter().any(|d| d.error) {
        diags.extend(warnings);
        return Err(diags);
    }
    let unused = outputs
        .into_iter()
        .filter(|o| {
            !varyings
                .iter()
                .any(|v| v.vs.usage == o.usage && v.vs.usage_index == o.usage_index)
        })
        .collect();
    Ok(Linkage {
        varyings,
        unused,
        warnings,
    })
}

/// An error of `rule` at the vertex shader's instruction `v` and the pixel shader's `p`.
fn link_error(
    rule: LinkRule,
    message: String,
    v: Option<usize>,
    p: Option<usize>,
) -> LinkDiagnostic {
    LinkDiagnostic {
        rule,
        error: true,
        message,
        vs_instruction: v,
        ps_instruction: p,
    }
}

/// A vs_3_0 feeding an older pixel shader writes only the outputs an FVF has.
fn fvf_outputs(outputs: &[Element], ps_version: Version, diags: &mut Vec<LinkDiagnostic>) {
    let mut err = |rule, message: String, v: Option<usize>, p: Option<usize>| {
        diags.push(link_error(rule, message, v, p))
    };
    for o in outputs {
        let fvf = match o.usage {
            Usage::Position | Usage::Fog | Usage::PSize => o.usage_index == 0,
            Usage::Color => o.usage_index <= 1,
            Usage::TexCoord => o.usage_index <= 7,
            _ => false,
        };
        if !fvf {
            err(
                LinkRule::Fvf,
                format!(
                    "{} ({}) is not an FVF output; a vs_3_0 feeding {} may use POSITION0, COLOR0-1, TEXCOORD0-7, FOG0 and PSIZE0",
                    o.semantic(),
                    o.register_name(),
                    ps_version
                ),
                o.instruction,
                None,
            );
        }
    }
}

/// Each pixel-shader input matched to the vertex-shader output of its semantic: the
/// varyings, and the warnings.
fn match_varyings(
    inputs: &[Element],
    outputs: &[Element],
    ps3: bool,
    diags: &mut Vec<LinkDiagnostic>,
) -> (Vec<Varying>, Vec<LinkDiagnostic>) {
    let mut err = |rule, message: String, v: Option<usize>, p: Option<usize>| {
        diags.push(link_error(rule, message, v, p))
    };
    let mut varyings = Vec::new();
    let mut warnings = Vec::new();
    for p in inputs {
        if p.usage == Usage::PSize {
            err(
                LinkRule::PSize,
                format!(
                    "{} ({}) is read by the pixel shader, but PSIZE never reaches it",
                    p.semantic(),
                    p.register_name()
                ),
                None,
                p.instruction,
            );
            continue;
        }
        let Some(v) = outputs
            .iter()
            .find(|o| o.usage == p.usage && o.usage_index == p.usage_index)
        else {
            err(
                LinkRule::Missing,
                format!(
                    "{} is read by the pixel shader ({}.{}) but not written by the vertex shader",
                    p.semantic(),
                    p.register_name(),
                    mask_letters(p.mask)
                ),
                None,
                p.instruction,
            );
            continue;
        };
        if p.mask & !v.mask != 0 {
            err(
                LinkRule::Coverage,
                format!(
                    "{}: the pixel shader reads {}.{} but the vertex shader writes only {}.{}",
                    p.semantic(),
                    p.register_name(),
                    mask_letters(p.mask),
                    v.register_name(),
                    mask_letters(v.mask)
                ),
                v.instruction,
                p.instruction,
            );
            continue;
        }
        if p.usage == Usage::Position && ps3 {
            warnings.push(LinkDiagnostic {
                rule: LinkRule::Position,
                error: false,
                message:
                    "a ps_3_0 POSITION0 input is linked by semantic; the pixel position is vPos"
                        .into(),
                vs_instruction: v.instruction,
                ps_instruction: p.instruction,
            });
        }
        varyings.push(Varying {
            semantic: p.semantic(),
            vs: v.clone(),
            ps: p.clone(),
        });
    }
    (varyings, warnings)
}

/// Packing: same register in the PS <=> same register in the VS.
fn packing(varyings: &[Varying], diags: &mut Vec<LinkDiagnostic>) {
    let mut err = |rule, message: String, v: Option<usize>, p: Option<usize>| {
        diags.push(link_error(rule, message, v, p))
    };
    for (a_i, a) in varyings.iter().enumerate() {
        for b in &varyings[a_i + 1..] {
            let same_ps = a.ps.register == b.ps.register;
            let same_vs = a.vs.register == b.vs.register;
            if same_ps != same_vs {
                let (packed, split) = if same_ps {
                    ("pixel", "vertex")
                } else {
                    ("vertex", "pixel")
                };
                err(
                    LinkRule::Packing,
                    format!(
                        "{} and {} share a register in the {packed} shader ({}) but not in the {split} shader ({} / {})",
                        a.semantic,
                        b.semantic,
                        if same_ps {
                            a.ps.register_name()
                        } else {
                            a.vs.register_name()
                        },
                        if same_ps {
                            a.vs.register_name()
                        } else {
                            a.ps.register_name()
                        },
                        if same_ps {
                            b.vs.register_name()
                        } else {
                            b.ps.register_name()
                        },
                    ),
                    b.vs.instruction,
                    b.ps.instruction,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse;

    fn vs(decls: &str) -> Shader {
        parse(&format!("vs_3_0\ndcl_position o0\n{decls}")).unwrap()
    }

    const PS: &str = "ps_3_0\ndcl_texcoord0 v0.x\ndcl_texcoord1 v0.yz\ndcl_texcoord2 v1.w\n";

    fn rules(vs_decls: &str) -> Vec<&'static str> {
        match link_shaders(&vs(vs_decls), &parse(PS).unwrap(), false) {
            Ok(_) => vec![],
            Err(d) => d.iter().filter(|d| d.error).map(|d| d.rule.id()).collect(),
        }
    }

    /// The spec's table (linkage.md §3, after Shader model 3's example).
    #[test]
    fn the_documented_pairs() {
        assert_eq!(
            rules("dcl_texcoord0 o2.x\ndcl_texcoord1 o2.yz\ndcl_texcoord2 o4\n"),
            Vec::<&str>::new()
        );
        assert_eq!(
            rules("dcl_texcoord0 o2.x\ndcl_texcoord1 o5.yzw\ndcl_texcoord2 o4\n"),
            ["L004"]
        );
        assert_eq!(
            rules("dcl_texcoord0 o2.x\ndcl_texcoord1 o2.yz\ndcl_texcoord2 o2.w\n"),
            ["L004", "L004"]
        );
        assert_eq!(
            rules("dcl_texcoord0 o2.x\ndcl_texcoord1 o2.yzw\ndcl_texcoord2 o4.yz\n"),
            ["L003"]
        );
        assert_eq!(
            rules("dcl_texcoord0 o2.x\ndcl_texcoord1 o2.yzw\n"),
            ["L002"]
        );
    }

    #[test]
    fn the_map_register_by_register() {
        let l = link_shaders(
            &vs("dcl_texcoord0 o2.x\ndcl_texcoord1 o2.yz\ndcl_texcoord2 o4\ndcl_color o5\n"),
            &parse(PS).unwrap(),
            false,
        )
        .unwrap();
        let map: Vec<(String, String, String, String, String)> = l
            .varyings
            .iter()
            .map(|v| {
                (
                    v.semantic.clone(),
                    v.vs.register_name(),
                    mask_letters(v.vs.mask),
                    v.ps.register_name(),
                    mask_letters(v.ps.mask),
                )
            })
            .collect();
        let s = |a: &str| a.to_string();
        assert_eq!(
            map,
            [
                (s("TEXCOORD0"), s("o2"), s("x"), s("v0"), s("x")),
                (s("TEXCOORD1"), s("o2"), s("yz"), s("v0"), s("yz")),
                (s("TEXCOORD2"), s("o4"), s("xyzw"), s("v1"), s("w")),
            ]
        );
        let unused: Vec<String> = l.unused.iter().map(Element::semantic).collect();
        assert_eq!(unused, ["POSITION0", "COLOR0"]);
    }

    #[test]
    fn version_pairs_psize_and_fvf() {
        let ps2 = parse("ps_2_0\ndcl t0.xy\ndcl v0\nmov r0, v0\nmov oC0, r0\n").unwrap();
        let vs2 =
            parse("vs_2_0\ndcl_position v0\nmov oPos, v0\nmov oT0.xy, v0\nmov oD0, v0\n").unwrap();
        let vs3 = vs("dcl_texcoord0 o1.xy\ndcl_color o2\n");
        assert!(link_shaders(&vs2, &ps2, false).is_ok());
        let e = link_shaders(&vs3, &ps2, false).unwrap_err();
        assert_eq!(e[0].rule, LinkRule::Versions);
        assert!(link_shaders(&vs3, &ps2, true).is_ok());
        let vs3_tangent = vs("dcl_texcoord0 o1.xy\ndcl_color o2\ndcl_tangent o3\n");
        let e = link_shaders(&vs3_tangent, &ps2, true).unwrap_err();
        assert_eq!(e[0].rule, LinkRule::Fvf);
        let e = link_shaders(&vs2, &parse(PS).unwrap(), false).unwrap_err();
        assert_eq!(e[0].rule, LinkRule::Versions);
        let ps_psize = parse("ps_3_0\ndcl_psize v0.x\n").unwrap();
        let e = link_shaders(&vs("dcl_psize o1\n"), &ps_psize, false).unwrap_err();
        assert_eq!(e[0].rule, LinkRule::PSize);
        // ps_2_0 reads t1, which the vs_2_0 never writes.
        let ps2b = parse("ps_2_0\ndcl t1.xy\nmov oC0, t1\n").unwrap();
        let e = link_shaders(&vs2, &ps2b, false).unwrap_err();
        assert_eq!(e[0].rule, LinkRule::Missing);
        assert!(e[0].message.contains("TEXCOORD1"), "{}", e[0].message);
    }

    #[test]
    fn ps_position_input_warns() {
        let ps = parse("ps_3_0\ndcl_position v0\nmov oC0, v0\n").unwrap();
        let l = link_shaders(&vs(""), &ps, false).unwrap();
        assert_eq!(l.warnings[0].rule, LinkRule::Position);
        assert_eq!(l.varyings[0].vs.register_name(), "o0");
    }

    /// (semantic, register, mask) of each output.
    fn outputs(src: &str) -> Vec<(String, String, String)> {
        output_signature(&parse(src).unwrap())
            .iter()
            .map(|e| (e.semantic(), e.register_name(), mask_letters(e.mask)))
            .collect()
    }

    fn owned(v: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
        v.iter()
            .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
            .collect()
    }

    #[test]
    fn pixel_shader_outputs_are_colours_and_depth() {
        // Register order, whatever the order of the writes; masks from the writes.
        let ps3 = "ps_3_0\ndef c0, 1, 0, 0, 1\nmov oDepth, c0.x\nmov oC1, c0\nmov oC0, c0\n";
        assert_eq!(
            outputs(ps3),
            owned(&[
                ("COLOR0", "oC0", "xyzw"),
                ("COLOR1", "oC1", "xyzw"),
                ("DEPTH0", "oDepth", "xyzw"),
            ])
        );
        let ps2 = "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n";
        assert_eq!(outputs(ps2), owned(&[("COLOR0", "oC0", "xyzw")]));
        // ps_1_x: r0 is the colour, its components as written (co-issued halves add up).
        let ps1 = "ps_1_1\ntex t0\nmov r0.rgb, t0\n+mov r0.a, v0\n";
        assert_eq!(outputs(ps1), owned(&[("COLOR0", "r0", "xyzw")]));
        let ps1 = "ps_1_3\ntex t0\nmov r0.rgb, t0\n";
        assert_eq!(outputs(ps1), owned(&[("COLOR0", "r0", "xyz")]));
        let ps14 = "ps_1_4\ntexcrd r0.rgb, t0\ntexdepth r5\n";
        assert_eq!(
            outputs(ps14),
            owned(&[("COLOR0", "r0", "xyz"), ("DEPTH0", "r5", "xy")])
        );
        // A temporary is no output from ps_2_0 on, and r0 unwritten is still the colour.
        assert_eq!(
            outputs("ps_2_0\ndef c0, 1, 1, 1, 1\nmov r0, c0\nmov oC0, r0\n"),
            owned(&[("COLOR0", "oC0", "xyzw")])
        );
        assert_eq!(
            outputs("ps_1_1\ndef c0, 1, 1, 1, 1\nmov r1, c0\n"),
            owned(&[("COLOR0", "r0", "xyzw")])
        );
    }
}
