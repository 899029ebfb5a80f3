//! The two shader stages of a draw: the translated vertex shader (or, for a draw without one,
//! a generated vs_3_0 that passes the declaration's elements through, turning a `POSITIONT`
//! position into clip space), and the translated pixel shader (or, without one, a generated
//! ps_3_0 giving D3D9's fixed-function colour: the diffuse colour, plus the specular colour's
//! RGB where `SPECULARENABLE`), linked by semantic with [`dxso_naga::translate_pair`].

use crate::bind::Source;
use crate::{Error, Refusal};
use dxso::ir::Usage;
use dxso::validate::{Caps, Checked, validate};
use dxso_draw::Draw;
use dxso_naga::{Options, Translation, ps1x};
use dxso_vm::{PixelState, SamplerState, Texture};
use std::fmt::Write;

/// A source of nothing: generated stages bind nothing (their constants are `def`s).
pub(super) struct Nothing;

impl Source for Nothing {
    fn float(&self, _: u32) -> [f32; 4] {
        [0.0; 4]
    }
    fn int(&self, _: u32) -> [i32; 4] {
        [0; 4]
    }
    fn boolean(&self, _: u32) -> bool {
        false
    }
    fn texture(&self, _: u32) -> Option<&Texture> {
        None
    }
    fn sampler_state(&self, _: u32) -> SamplerState {
        SamplerState::default()
    }
}

/// A draw's pixel shader state as the translation binds it, with the ps_1_x parameter rows
/// from its texture stage states.
pub(super) struct PixelSource<'a> {
    ps: &'a PixelState,
    rows: Vec<[f32; 4]>,
}

impl<'a> PixelSource<'a> {
    pub(super) fn new(ps: &'a PixelState) -> PixelSource<'a> {
        let mut rows = vec![[0.0; 4]; ps1x::PARAMETER_ROWS as usize];
        for k in 0..ps1x::STAGES {
            let st = ps.stage(k as usize);
            rows[(ps1x::BUMP_MATRIX_ROW + k) as usize] = st.bump_env_mat;
            // dxso-vm divides a projected coordinate by its w (any nonzero value but 3).
            let projected = if st.projected { 1.0 } else { 0.0 };
            rows[(ps1x::STAGE_ROW + k) as usize] =
                [st.bump_env_lscale, st.bump_env_loffset, projected, 0.0];
        }
        // PixelShader1xMaxValue 8 and v# colours clamped to [0, 1], as dxso-vm's.
        rows[ps1x::CLAMP_ROW as usize] = [8.0, 1.0, 0.0, 0.0];
        PixelSource { ps, rows }
    }
}

impl Source for PixelSource<'_> {
    fn float(&self, n: u32) -> [f32; 4] {
        self.ps.constant_f(n).unwrap_or([0.0; 4])
    }
    fn int(&self, n: u32) -> [i32; 4] {
        self.ps.constant_i(n).unwrap_or([0; 4])
    }
    fn boolean(&self, n: u32) -> bool {
        self.ps.constant_b(n).unwrap_or(false)
    }
    fn ps1x(&self, row: u32) -> [f32; 4] {
        self.rows.get(row as usize).copied().unwrap_or([0.0; 4])
    }
    fn texture(&self, register: u32) -> Option<&Texture> {
        self.ps.texture(register as usize).map(|t| &**t)
    }
    fn sampler_state(&self, register: u32) -> SamplerState {
        self.ps.sampler_state(register as usize)
    }
    /// The draw's pixel textures: 8-bit ones compact (its targets hide their last bit).
    fn compact_textures(&self) -> bool {
        true
    }
}

fn checked(text: &str, what: &str) -> Result<Checked, Error> {
    let shader = dxso::text::parse(text)
        .map_err(|e| Error::Interface(format!("the generated {what}: {e}")))?;
    validate(&shader, &Caps::max())
        .map_err(|e| Error::Interface(format!("the generated {what}: {e:?}")))
}

/// The viewport a `POSITIONT` position is mapped back through: x, y, width, height.
pub(super) type Rect = (f32, f32, f32, f32);

/// The pass-through vs_3_0 of a draw without a vertex shader: declaration element `i` is
/// `v#i` (dxso-draw renames it `TEXCOORD#i`); its semantic is its output's. A `POSITIONT`
/// position (x, y, z, rhw) in screen space becomes clip space through `viewport`:
/// `w = 1/rhw`, `((x − X)·2/W − 1, 1 − (y − Y)·2/H, z, 1)·w`.
fn pass_through_vs(semantics: &[(Usage, u8)], viewport: Rect) -> Result<String, Error> {
    let (x0, y0, w, h) = viewport;
    let mut dcl = String::from("vs_3_0\n");
    let mut code = String::new();
    let _ = writeln!(
        dcl,
        "def c0, {:e}, {:e}, 0, 0\ndef c1, {:e}, {:e}, 0, 1",
        2.0 / w,
        -2.0 / h,
        -2.0 * x0 / w - 1.0,
        2.0 * y0 / h + 1.0
    );
    for (i, &(usage, index)) in semantics.iter().enumerate() {
        let _ = writeln!(dcl, "dcl_texcoord{i} v{i}");
        match (usage, index) {
            (Usage::Position, 0) => {
                let _ = writeln!(dcl, "dcl_position o{i}");
                let _ = writeln!(code, "mov o{i}, v{i}");
            }
            (Usage::PositionT, 0) => {
                let _ = writeln!(dcl, "dcl_position o{i}");
                let _ = writeln!(
                    code,
                    "rcp r0.w, v{i}.w\nmov r2, c1\nmad r1.xy, v{i}, c0, r2\nmov r1.z, v{i}.z\nmul o{i}.xyz, r1, r0.w\nmov o{i}.w, r0.w"
                );
            }
            (Usage::PSize, 0) => {
                let _ = writeln!(dcl, "dcl_psize o{i}");
                let _ = writeln!(code, "mov o{i}, v{i}");
            }
            (Usage::PSize, _) | (Usage::Position | Usage::PositionT, _) => {
                return Err(Error::Refused(Refusal::PassThrough { usage, index }));
            }
            _ => {
                let _ = writeln!(dcl, "dcl_{}{index} o{i}", usage.name());
                let _ = writeln!(code, "mov o{i}, v{i}");
            }
        }
    }
    Ok(dcl + &code)
}

/// The fixed-function colour as ps_3_0: COLOR0 (white where the vertex stage of a draw
/// without a vertex shader has none, (0, 0, 0, 1) for a vertex shader that writes none)
/// clamped to [0, 1], plus COLOR1's RGB clamped where `specular`.
fn fixed_ps(outputs: &[String], fixed: bool, specular: bool) -> String {
    let has = |s: &str| outputs.iter().any(|o| o == s);
    let mut t = String::from("ps_3_0\ndef c0, 1, 1, 1, 1\ndef c1, 0, 0, 0, 1\n");
    let mut code = String::new();
    if has("COLOR0") {
        t.push_str("dcl_color0 v0\n");
        code.push_str("mov_sat r0, v0\n");
    } else {
        code.push_str(if fixed {
            "mov r0, c0\n"
        } else {
            "mov r0, c1\n"
        });
    }
    if specular && has("COLOR1") {
        t.push_str("dcl_color1 v1\n");
        code.push_str("mov_sat r1, v1\nadd r0.xyz, r0, r1\n");
    }
    code.push_str("mov oC0, r0\n");
    t + &code
}

/// The semantics (`TEXCOORD0`, `COLOR1`) an interface's inputs or outputs carry at
/// locations.
pub(super) fn semantics<'a>(
    varyings: impl Iterator<Item = &'a dxso_naga::interface::Varying>,
) -> Vec<String> {
    varyings
        .filter(|v| v.builtin.is_none())
        .map(|v| v.semantic.to_ascii_uppercase())
        .collect()
}

/// Both stages translated and linked.
pub(super) struct Stages {
    pub vs: Translation,
    pub ps: Translation,
    /// The vertex stage is generated (its constants are `def`s).
    pub generated_vs: bool,
    /// Positions are `POSITIONT` (screen space: no viewport depth mapping).
    pub screen_space: bool,
    /// The locations and values of pixel shader inputs the vertex stage does not write.
    pub unwritten: Vec<(u32, [f32; 4])>,
    /// The location of the vertex stage's `PSIZE` output (per-vertex point sizes).
    pub psize: Option<u32>,
}

/// Translate (or generate) both stages of `draw`.
pub(super) fn build(draw: &Draw, options: &Options, viewport: Rect) -> Result<Stages, Error> {
    let (vs, generated_vs, screen_space) = match &draw.fixed_function {
        Some(sems) => {
            let text = pass_through_vs(sems, viewport)?;
            let screen = sems.contains(&(Usage::PositionT, 0));
            (checked(&text, "pass-through vertex stage")?, true, screen)
        }
        None => {
            let vs = draw
                .vertex
                .vertex_shader()
                .ok_or(dxso_vm::VmError::NoShader)?;
            (vs.clone(), false, false)
        }
    };
    let alone = dxso_naga::translate(&vs, options)?;
    let outputs = semantics(alone.interface.outputs.iter().flat_map(|o| &o.varyings));
    let ps = match &draw.pixel {
        Some(p) => validate(p.shader(), &Caps::max()).map_err(|e| {
            Error::Interface(format!("the pixel shader no longer validates: {e:?}"))
        })?,
        None => {
            let specular = draw.states.get_by_name("SPECULARENABLE").unwrap_or(0) != 0;
            checked(
                &fixed_ps(&outputs, generated_vs, specular),
                "fixed-function pixel stage",
            )?
        }
    };
    let (vs, ps) = dxso_naga::translate_pair(&vs, &ps, options)?;
    // Pixel shader inputs no vertex output feeds read as the CPU draw reads them: (0, 0, 0, 1),
    // and white for the diffuse colour of a draw without a vertex shader.
    let mut unwritten = Vec::new();
    for v in ps.interface.inputs.iter().flat_map(|i| &i.varyings) {
        let s = v.semantic.to_ascii_uppercase();
        if let (None, Some(l), false) = (v.builtin, v.location, outputs.contains(&s)) {
            let white = generated_vs && s == "COLOR0";
            unwritten.push((
                l,
                if white {
                    [1.0; 4]
                } else {
                    [0.0, 0.0, 0.0, 1.0]
                },
            ));
        }
    }
    let psize = vs
        .interface
        .outputs
        .iter()
        .flat_map(|o| &o.varyings)
        .find(|v| v.semantic.eq_ignore_ascii_case("PSIZE0"))
        .and_then(|v| v.location);
    Ok(Stages {
        vs,
        ps,
        generated_vs,
        screen_space,
        unwritten,
        psize,
    })
}
