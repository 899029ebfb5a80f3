//! Pixel shader model 1 (ps_1_1 .. ps_1_4): every Wine conformance source translates in both
//! float modes and passes naga, spirv-val and glslangValidator; the translated bodies,
//! run on the CPU by a small IR evaluator (`eval/`), give hand-computed values for the
//! texture-addressing instructions, co-issue, cnd and the modifiers; the interface names
//! the per-draw parameters.

use crate::eval;
use crate::validators;

use crate::eval::{Env, Outcome};
use crate::validators::have;
use dxso_naga::ps1x::{BUMP_MATRIX_ROW, CLAMP_ROW, PARAMETER_ROWS, STAGE_ROW};
use dxso_naga::{FloatMode, Options, Output, Target, Translation};
use std::collections::HashMap;

const MODES: [FloatMode; 2] = [FloatMode::Strict, FloatMode::Ieee];

/// Translate `source`: validated when it validates, unchecked otherwise (the Wine sources
/// are assembler tests; many read registers nothing wrote).
fn translate(source: &str, float: FloatMode) -> (Translation, bool) {
    let shader = dxso::text::parse(source).unwrap_or_else(|e| panic!("{source:?}: {e}"));
    let options = Options { float };
    match dxso::validate::validate(&shader, &dxso::validate::Caps::max()) {
        Ok(checked) => (
            dxso_naga::translate(&checked, &options).unwrap_or_else(|e| panic!("{source:?}: {e}")),
            true,
        ),
        Err(_) => (
            dxso_naga::translate_unchecked(&shader, &options)
                .unwrap_or_else(|e| panic!("{source:?}: {e}")),
            false,
        ),
    }
}

/// The ps_1_x sources of the Wine conformance cases.
fn wine_ps1x() -> Vec<String> {
    let Some(dir) = dxso_testdata::shared("conformance") else {
        return Vec::new();
    };
    let text = std::fs::read_to_string(dir.join("wine-asm-cases.json")).expect("readable");
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).expect("JSON");
    cases
        .iter()
        .filter_map(|c| c["source"].as_str())
        .filter(|s| {
            let head = s.trim_start();
            head.starts_with("ps_1_") || head.starts_with("ps.1.")
        })
        .map(str::to_owned)
        .collect()
}

/// Translate each `(name, source)` in both modes, write it in every target, and run
/// spirv-val and glslangValidator on the SPIR-V and GLSL; returns how many validated.
fn translate_and_validate(label: &str, sources: &[(String, String)]) -> usize {
    let dir = validators::scratch(&format!("ps1x-{label}"));
    let (spirv_val, glslang) = (have("spirv-val"), have("glslangValidator"));
    let mut validated = 0;
    let (mut spvs, mut frags) = (Vec::new(), Vec::new());
    for (k, (name, source)) in sources.iter().enumerate() {
        for float in MODES {
            let (t, checked) = translate(source, float);
            validated += usize::from(checked && float == FloatMode::Strict);
            let Ok(Output::SpirV(words)) = dxso_naga::write(&t, Target::SpirV) else {
                panic!("{name}: no SPIR-V");
            };
            let Ok(Output::Text(glsl)) = dxso_naga::write(&t, Target::Glsl) else {
                panic!("{name}: no GLSL");
            };
            for target in [Target::Wgsl, Target::Msl, Target::Hlsl] {
                dxso_naga::write(&t, target).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            // The file names say which source and mode they are (failures name the file).
            let stem = format!("{k}-{float:?}");
            let spv = dir.join(format!("{stem}.spv"));
            let frag = dir.join(format!("{stem}.frag"));
            validators::write_spirv(&spv, &words);
            std::fs::write(&frag, glsl).expect("write");
            spvs.push(spv);
            frags.push(frag);
        }
    }
    let mut failures = Vec::new();
    if spirv_val {
        failures.extend(validators::spirv_val(&spvs));
    }
    if glslang {
        failures.extend(validators::glslang(&frags));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let names: Vec<String> = sources
        .iter()
        .enumerate()
        .map(|(k, (name, _))| format!("{k}: {name}"))
        .collect();
    assert!(
        failures.is_empty(),
        "{}\n(sources by number:\n{})",
        failures.join("\n"),
        names.join("\n")
    );
    validated
}

#[test]
fn wine_ps1x_sources_translate_and_pass_the_validators() {
    let sources = wine_ps1x();
    if sources.is_empty() {
        return;
    }
    assert_eq!(sources.len(), 59, "the Wine cases hold 59 ps_1_x sources");
    let named: Vec<(String, String)> = sources
        .iter()
        .map(|s| (format!("{s:?}"), s.clone()))
        .collect();
    let validated = translate_and_validate("wine", &named);
    eprintln!(
        "{} ps_1_x sources translate in both modes ({validated} validated, the others \
         unchecked)",
        sources.len()
    );
}

/// Our own fixtures (`tests/ps1x/*.psh`): game-like shaders of each version that use every
/// texture-addressing instruction; each validates.
#[test]
fn fixtures_validate_translate_and_pass_the_validators() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ps1x");
    let mut fixtures: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("tests/ps1x")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "psh"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).expect("text"),
            )
        })
        .collect();
    fixtures.sort();
    assert_eq!(fixtures.len(), 9);
    for (name, source) in &fixtures {
        let shader = dxso::text::parse(source).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = dxso::validate::validate(&shader, &dxso::validate::Caps::max()) {
            panic!("{name} does not validate: {e:?}");
        }
    }
    assert_eq!(
        translate_and_validate("fixtures", &fixtures),
        fixtures.len()
    );
}

/// Per-draw state for [`run`].
#[derive(Clone)]
struct Draw {
    /// Inputs by register name (`t0`, `v1`); absent ones are 0.
    inputs: Vec<(&'static str, [f32; 4])>,
    /// `c#` rows.
    constants: Vec<[f32; 4]>,
    /// The ps_1_x parameter rows (see `dxso_naga::ps1x`).
    params: Vec<[f32; 4]>,
}

impl Default for Draw {
    fn default() -> Draw {
        let mut params = vec![[0.0; 4]; PARAMETER_ROWS as usize];
        params[CLAMP_ROW as usize] = [f32::MAX, 0.0, 0.0, 0.0];
        Draw {
            inputs: Vec::new(),
            constants: vec![[0.0; 4]; 8],
            params,
        }
    }
}

/// Each stage's texture: `t0` returns the fixed texel (0.5, -0.25, 0.75, 1); every other
/// stage returns its coordinate, padded with 0 and with w = 7 + stage, so a test sees the
/// coordinate an instruction computed.
fn texture(name: &str, c: &[f32]) -> [f32; 4] {
    if name == "t0" {
        return [0.5, -0.25, 0.75, 1.0];
    }
    let stage: f32 = name[1..].parse().expect("t#");
    let at = |k: usize| c.get(k).copied().unwrap_or(0.0);
    [at(0), at(1), at(2), 7.0 + stage]
}

/// Translate `source` in `float` and run its body; the outcome and the register names of
/// the outputs.
fn run_in(source: &str, float: FloatMode, draw: &Draw) -> (Outcome, Vec<String>) {
    let (t, _) = translate(source, float);
    let inputs = t
        .interface
        .inputs
        .iter()
        .map(|i| {
            draw.inputs
                .iter()
                .find(|d| d.0 == i.register)
                .map_or([0.0; 4], |d| d.1)
        })
        .collect();
    let env = Env {
        uniforms: HashMap::from([("c", draw.constants.clone()), ("ps1x", draw.params.clone())]),
        inputs,
        sample: &texture,
    };
    let names = t
        .interface
        .outputs
        .iter()
        .map(|o| o.register.clone())
        .collect();
    (eval::run(&t, &env), names)
}

/// The colour (r0) in both modes, which must agree.
fn colour(source: &str, draw: &Draw) -> [f32; 4] {
    let [strict, ieee] = MODES.map(|m| {
        let (o, names) = run_in(source, m, draw);
        assert!(!o.killed, "{source}: killed");
        let k = names.iter().position(|n| n == "oC0").expect("oC0");
        o.outputs[k]
    });
    assert_eq!(strict, ieee, "{source}: the modes differ");
    strict
}

#[test]
fn texbem_and_texbeml_perturb_the_coordinate_by_the_stage_matrix() {
    let mut draw = Draw {
        inputs: vec![("t1", [0.1, 0.2, 0.0, 0.0])],
        ..Draw::default()
    };
    // Stage 1: BUMPENVMAT00 = 2, 01 = 0.5, 10 = -1, 11 = 3; luminance scale 2, offset 0.5.
    draw.params[(BUMP_MATRIX_ROW + 1) as usize] = [2.0, 0.5, -1.0, 3.0];
    draw.params[(STAGE_ROW + 1) as usize] = [2.0, 0.5, 0.0, 0.0];
    // t0 = (du, dv, l) = (0.5, -0.25, 0.75):
    // u' = 0.1 + 2 * 0.5 + -1 * -0.25 = 1.35, v' = 0.2 + 0.5 * 0.5 + 3 * -0.25 = -0.3.
    let u = 0.1f32 + 1.0 + 0.25;
    let v = 0.2f32 + 0.25 - 0.75;
    let bem = colour("ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1\n", &draw);
    assert_eq!(bem, [u, v, 0.0, 8.0]);
    // texbeml: the texel times 0.75 * 2 + 0.5 = 2.
    let beml = colour("ps_1_1\ntex t0\ntexbeml t1, t0\nmov r0, t1\n", &draw);
    assert_eq!(beml, [2.0 * u, 2.0 * v, 0.0, 16.0]);
    // Another stage's matrix is not used.
    draw.params[(BUMP_MATRIX_ROW + 2) as usize] = [9.0; 4];
    assert_eq!(
        colour("ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1\n", &draw),
        bem
    );
}

#[test]
fn bem_of_ps_1_4() {
    let mut draw = Draw::default();
    draw.params[(BUMP_MATRIX_ROW + 1) as usize] = [2.0, 0.5, -1.0, 3.0];
    // r1.r = 0.25 + 2 * 1 + -1 * -1 = 3.25; r1.g = 0.5 + 0.5 * 1 + 3 * -1 = -2.
    let src = "ps_1_4\ndef c0, 0.25, 0.5, 0, 0\ndef c1, 1, -1, 0, 0\nbem r1.rg, c0, c1\n\
               mov r0, r1\n";
    assert_eq!(colour(src, &draw), [3.25, -2.0, 0.0, 0.0]);
}

#[test]
fn bump_products_follow_the_float_mode() {
    // BUMPENVMAT00 = inf times du = 0: +0 in Strict (C8), NaN in Ieee.
    let mut draw = Draw::default();
    draw.params[(BUMP_MATRIX_ROW + 1) as usize] = [f32::INFINITY, 0.0, 0.0, 0.0];
    let src = "ps_1_4\ndef c0, 0.25, 0.5, 0, 0\ndef c1, 0, 1, 0, 0\nbem r1.rg, c0, c1\n\
               mov r0, r1\n";
    let r = |m| {
        let (o, _) = run_in(src, m, &draw);
        o.outputs[0]
    };
    assert_eq!(r(FloatMode::Strict), [0.25, 0.5, 0.0, 0.0]);
    assert!(r(FloatMode::Ieee)[0].is_nan());
}

#[test]
fn texm3x3_family_transforms_and_reflects() {
    // The texel of t0 is N's source: (0.5, -0.25, 0.75); the rows are the coordinates of
    // t1..t3, chosen to give N = (0.75, 0.5, -0.25) (a permutation of the texel).
    let mut draw = Draw {
        inputs: vec![
            ("t1", [0.0, 0.0, 1.0, 0.0]),
            ("t2", [1.0, 0.0, 0.0, 0.0]),
            ("t3", [0.0, 1.0, 0.0, 1.0]),
        ],
        ..Draw::default()
    };
    let n = [0.75f32, 0.5, -0.25];
    let pads = "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\n";
    assert_eq!(
        colour(&format!("{pads}texm3x3tex t3, t0\nmov r0, t3\n"), &draw),
        [n[0], n[1], n[2], 10.0]
    );
    assert_eq!(
        colour(
            &format!(
                "{}texm3x3 t3, t0\nmov r0, t3\n",
                pads.replace("ps_1_1", "ps_1_2")
            ),
            &draw
        ),
        [n[0], n[1], n[2], 1.0]
    );
    // texm3x3spec: E = c0 = (0, 0, 1); R = 2 N (N.E) / (N.N) - E.
    draw.constants[0] = [0.0, 0.0, 1.0, 0.0];
    let ne = -0.25f32;
    let nn = 0.75f32 * 0.75 + 0.5 * 0.5 + 0.25 * 0.25;
    let k = 2.0 * (ne / nn);
    let r = [k * n[0], k * n[1], k * n[2] - 1.0];
    let spec = colour(
        &format!("{pads}texm3x3spec t3, t0, c0\nmov r0, t3\n"),
        &draw,
    );
    assert_eq!(spec, [r[0], r[1], r[2], 10.0]);
    // texm3x3vspec: E is the w of the three coordinates, (0, 0, 1) here.
    let vspec = colour(&format!("{pads}texm3x3vspec t3, t0\nmov r0, t3\n"), &draw);
    assert_eq!(vspec, spec);
}

#[test]
fn texm3x2_texdp3_and_texreg2() {
    let draw = Draw {
        inputs: vec![("t1", [1.0, 1.0, 0.0, 0.0]), ("t2", [0.0, 0.0, 2.0, 0.0])],
        ..Draw::default()
    };
    // t0 = (0.5, -0.25, 0.75): u = 0.5 - 0.25 = 0.25, v = 1.5.
    let pad = "ps_1_3\ntex t0\ntexm3x2pad t1, t0\n";
    assert_eq!(
        colour(&format!("{pad}texm3x2tex t2, t0\nmov r0, t2\n"), &draw),
        [0.25, 1.5, 0.0, 9.0]
    );
    assert_eq!(
        colour("ps_1_3\ntex t0\ntexdp3 t1, t0\nmov r0, t1\n", &draw),
        [0.25; 4]
    );
    assert_eq!(
        colour("ps_1_3\ntex t0\ntexdp3tex t1, t0\nmov r0, t1\n", &draw),
        [0.25, 0.0, 0.0, 8.0]
    );
    for (op, coordinate) in [
        ("texreg2ar", [1.0, 0.5, 0.0]),
        ("texreg2gb", [-0.25, 0.75, 0.0]),
        ("texreg2rgb", [0.5, -0.25, 0.75]),
    ] {
        let got = colour(&format!("ps_1_3\ntex t0\n{op} t1, t0\nmov r0, t1\n"), &draw);
        assert_eq!(got[..3], coordinate, "{op}");
    }
}

#[test]
fn depth_of_texm3x2depth_and_texdepth() {
    let depth = |source: &str, draw: &Draw| {
        let (o, names) = run_in(source, FloatMode::Strict, draw);
        o.outputs[names.iter().position(|n| n == "oDepth").expect("oDepth")][0]
    };
    let draw = Draw {
        inputs: vec![("t1", [1.0, 0.0, 0.0, 0.0]), ("t2", [0.0, 0.0, 1.0, 0.0])],
        ..Draw::default()
    };
    // z = 0.5, w = 0.75.
    let src = "ps_1_3\ntex t0\ntexm3x2pad t1, t0\ntexm3x2depth t2, t0\nmov r0, t0\n";
    assert_eq!(depth(src, &draw), 0.5 / 0.75);
    let src = "ps_1_4\ndef c0, 0.25, 0.5, 0, 0\nmov r5, c0\nphase\ntexdepth r5\nmov r0, c0\n";
    assert_eq!(depth(src, &draw), 0.5);
    // w = 0 gives 1.
    let src = "ps_1_4\ndef c0, 0.25, 0, 0, 0\nmov r5, c0\nphase\ntexdepth r5\nmov r0, c0\n";
    assert_eq!(depth(src, &draw), 1.0);
}

#[test]
fn phase_keeps_the_colour_of_temporaries_but_not_their_alpha() {
    let d = Draw::default();
    let src = "ps_1_4\ndef c0, 0.25, 0.5, 0.75, 1\nmov r1, c0\nphase\nmov r0, r1\n";
    assert_eq!(colour(src, &d), [0.25, 0.5, 0.75, 0.0]);
    let src = "ps_1_4\ndef c0, 0.25, 0.5, 0.75, 1\nmov r1, c0\nphase\nmov r1.a, c0\nmov r0, r1\n";
    assert_eq!(colour(src, &d), [0.25, 0.5, 0.75, 1.0]);
}

#[test]
fn coissued_instructions_read_their_inputs_before_either_writes() {
    let d = Draw::default();
    let head = "ps_1_1\ndef c0, 0.1, 0.2, 0.3, 0.4\ndef c1, 0.5, 0.6, 0.7, 0.8\nmov r0, c0\n";
    // The alpha half reads r0.b as it was before the colour half wrote it.
    assert_eq!(
        colour(&format!("{head}mov r0.rgb, c1\n+mov r0.a, r0.b\n"), &d),
        [0.5, 0.6, 0.7, 0.3]
    );
    // And the colour half reads the alpha before the alpha half writes it.
    assert_eq!(
        colour(&format!("{head}mov r0.rgb, r0.a\n+mov r0.a, c1.b\n"), &d),
        [0.4, 0.4, 0.4, 0.7]
    );
    // Without co-issue the second instruction sees the first one's result.
    assert_eq!(
        colour(&format!("{head}mov r0.rgb, c1\nmov r0.a, r0.b\n"), &d),
        [0.5, 0.6, 0.7, 0.7]
    );
}

#[test]
fn cnd_tests_the_alpha_before_ps_1_4_and_each_component_in_ps_1_4() {
    let d = Draw::default();
    let body = "def c0, 0.9, 0.1, 0.9, 0.2\ndef c1, 1, 1, 1, 1\ndef c2, 0, 0, 0, 0\n\
                mov r0, c0\ncnd r0, r0, c1, c2\n";
    // ps_1_1 .. ps_1_3: r0.a = 0.2 is not above 0.5: every component takes c2.
    for v in ["ps_1_1", "ps_1_2", "ps_1_3"] {
        assert_eq!(colour(&format!("{v}\n{body}"), &d), [0.0; 4], "{v}");
    }
    assert_eq!(
        colour(
            &format!(
                "ps_1_1\n{}",
                body.replace("c0, 0.9, 0.1, 0.9, 0.2", "c0, 0, 0, 0, 0.6")
            ),
            &d
        ),
        [1.0; 4]
    );
    // ps_1_4: component by component.
    assert_eq!(colour(&format!("ps_1_4\n{body}"), &d), [1.0, 0.0, 1.0, 0.0]);
}

#[test]
fn source_modifiers_and_shifts() {
    let d = Draw::default();
    let head = "ps_1_4\ndef c0, 0.75, 0.25, 1.0, 0.0\ndef c1, 0.5, 0.5, 0.5, 0.5\n";
    for (line, want) in [
        // _bx2 = 2x - 1: (0.5, -0.5, 1, -1); _bias = x - 0.5: (0.25, -0.25, 0.5, -0.5).
        ("add_x2 r0, c0_bx2, c0_bias", [1.5, -1.5, 3.0, -3.0]),
        ("mov_d4 r0, 1 - c0", [0.0625, 0.1875, 0.0, 0.25]),
        ("mov_sat r0, c0_x2", [1.0, 0.5, 1.0, 0.0]),
        ("mov_x8 r0, -c0", [-6.0, -2.0, -8.0, 0.0]),
        ("mov_d8 r0, c0_bx2", [0.0625, -0.0625, 0.125, -0.125]),
        ("mov_d2 r0, -c0_bx2", [-0.25, 0.25, -0.5, 0.5]),
        ("mul_x4 r0, c0, c0", [2.25, 0.25, 4.0, 0.0]),
        (
            "mad_d2 r0, c0, c0, -c0_bias",
            [0.15625, 0.15625, 0.25, 0.25],
        ),
        ("dp3 r0, c0, c0_bx2", [1.25; 4]),
        ("cmp r0, c0_bias, c0, -c0", [0.75, -0.25, 1.0, 0.0]),
        ("lrp r0, c1, c0, -c0", [0.0; 4]),
        ("sub_sat r0, c1, c0", [0.0, 0.25, 0.0, 0.5]),
    ] {
        assert_eq!(colour(&format!("{head}{line}\n"), &d), want, "{line}");
    }
}

#[test]
fn texture_coordinates_as_values() {
    let mut draw = Draw {
        inputs: vec![("t0", [-0.5, 0.5, 1.5, 9.0]), ("t1", [2.0, 4.0, 8.0, 16.0])],
        ..Draw::default()
    };
    // texcoord clamps to [0, 1] and sets w = 1.
    assert_eq!(
        colour("ps_1_1\ntexcoord t0\nmov r0, t0\n", &draw),
        [0.0, 0.5, 1.0, 1.0]
    );
    // texcrd keeps the value (within the range); _dz divides x and y by z.
    assert_eq!(
        colour("ps_1_4\ntexcrd r0, t0\n", &draw),
        [-0.5, 0.5, 1.5, 9.0]
    );
    assert_eq!(
        colour("ps_1_4\ntexcrd r0.rgb, t1_dz\n", &draw)[..2],
        [0.25, 0.5]
    );
    // texld with _dw samples at (x/w, y/w).
    assert_eq!(
        colour("ps_1_4\ntexld r1, t1_dw\nmov r0, r1\n", &draw),
        [0.125, 0.25, 0.0, 8.0]
    );
    // The range: texcrd and a t# read before a texture instruction writes it.
    draw.params[CLAMP_ROW as usize] = [1.0, 0.0, 0.0, 0.0];
    assert_eq!(
        colour("ps_1_4\ntexcrd r0, t0\n", &draw),
        [-0.5, 0.5, 1.0, 1.0]
    );
    assert_eq!(colour("ps_1_1\nmov r0, t1\n", &draw), [1.0, 1.0, 1.0, 1.0]);
    // But a texture instruction samples at the raw coordinate.
    assert_eq!(
        colour("ps_1_1\ntex t1\nmov r0, t1\n", &draw),
        [2.0, 4.0, 0.0, 8.0]
    );
    // ... divided by its w (or z) where the stage is projected (D3DTTFF_PROJECTED).
    draw.params[(STAGE_ROW + 1) as usize][2] = 4.0;
    assert_eq!(
        colour("ps_1_1\ntex t1\nmov r0, t1\n", &draw),
        [0.125, 0.25, 0.0, 8.0]
    );
    draw.params[(STAGE_ROW + 1) as usize][2] = 3.0;
    assert_eq!(
        colour("ps_1_1\ntex t1\nmov r0, t1\n", &draw),
        [0.25, 0.5, 0.0, 8.0]
    );
}

#[test]
fn colours_are_clamped_when_the_draw_says_so() {
    let mut draw = Draw {
        inputs: vec![("v0", [1.5, -0.5, 0.5, 2.0])],
        ..Draw::default()
    };
    assert_eq!(colour("ps_1_1\nmov r0, v0\n", &draw), [1.5, -0.5, 0.5, 2.0]);
    draw.params[CLAMP_ROW as usize][1] = 1.0;
    assert_eq!(colour("ps_1_1\nmov r0, v0\n", &draw), [1.0, 0.0, 0.5, 1.0]);
}

#[test]
fn texkill_tests_xyz_of_the_coordinate_before_ps_1_4() {
    let killed = |source: &str, t0: [f32; 4]| {
        let draw = Draw {
            inputs: vec![("t0", t0)],
            ..Draw::default()
        };
        MODES.map(|m| run_in(source, m, &draw).0.killed)
    };
    let src = "ps_1_1\ntexkill t0\nmov r0, v0\n";
    assert_eq!(killed(src, [0.1, 0.2, -0.1, 5.0]), [true; 2]);
    assert_eq!(killed(src, [0.1, 0.2, 0.1, -5.0]), [false; 2]);
    // After `tex t0`, texkill still tests the coordinate, not the texel (-0.25 in y).
    let src = "ps_1_1\ntex t0\ntexkill t0\nmov r0, t0\n";
    assert_eq!(killed(src, [0.1, 0.2, 0.3, 0.0]), [false; 2]);
    // ps_1_4: a register's value.
    let src = "ps_1_4\ndef c0, 1, 1, -1, 1\nmov r1, c0\ntexkill r1\nmov r0, c0\n";
    assert_eq!(killed(src, [0.0; 4]), [true; 2]);
}

#[test]
fn the_interface_names_stages_samplers_and_parameters() {
    let (t, checked) = translate(
        "ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1\n",
        FloatMode::Strict,
    );
    assert!(checked);
    let i = &t.interface;
    assert_eq!(
        i.parameters,
        ["BUMPENVMAT1", "TEXTURETRANSFORMFLAGS0", "PS1X_CLAMP"]
    );
    let p = i.ps1x_parameters.as_ref().expect("a parameter buffer");
    assert_eq!((p.group, p.binding, p.rows), (2, 3, 13));
    assert_eq!(
        p.read,
        [
            (1, "BUMPENVMAT1".to_string()),
            (6, "TEXTURETRANSFORMFLAGS0".into()),
            (12, "PS1X_CLAMP".into())
        ]
    );
    let samplers: Vec<(u32, &str)> = i.samplers.iter().map(|s| (s.register, s.kind)).collect();
    assert_eq!(samplers, [(0, "2d"), (1, "2d")]);
    let inputs: Vec<(&str, Option<u32>)> = i
        .inputs
        .iter()
        .map(|x| (x.register.as_str(), x.varyings[0].location))
        .collect();
    assert_eq!(inputs, [("t0", Some(0)), ("t1", Some(1))]);
    assert_eq!(i.outputs[0].register, "oC0");
    let Output::Text(wgsl) = dxso_naga::write(&t, Target::Wgsl).expect("WGSL") else {
        unreachable!()
    };
    assert!(
        wgsl.contains("@group(2) @binding(3) \nvar<uniform> ps1x: array<vec4<f32>, 13>;"),
        "{wgsl}"
    );

    let spec = "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3spec t3, t0, c0\n\
                mov r0, t3\n";
    let (t, _) = translate(spec, FloatMode::Strict);
    let i = &t.interface;
    let samplers: Vec<(u32, &str)> = i.samplers.iter().map(|s| (s.register, s.kind)).collect();
    assert_eq!(samplers, [(0, "2d"), (3, "cube")]);
    assert_eq!(i.float_constants.as_ref().map(|c| c.registers), Some(8));
    assert_eq!(i.parameters, ["TEXTURETRANSFORMFLAGS0", "PS1X_CLAMP"]);

    // A shader without texture coordinates, colours or bump mapping reads no parameters.
    let (t, _) = translate(
        "ps_1_4\ndef c0, 1, 0, 0, 1\nmov r0, c0\n",
        FloatMode::Strict,
    );
    assert!(t.interface.ps1x_parameters.is_none() && t.interface.parameters.is_empty());

    // texdepth writes oDepth.
    let (t, _) = translate(
        "ps_1_4\ndef c0, 1, 2, 0, 0\nmov r5, c0\nphase\ntexdepth r5\nmov r0, c0\n",
        FloatMode::Strict,
    );
    let outs: Vec<&str> = t
        .interface
        .outputs
        .iter()
        .map(|o| o.register.as_str())
        .collect();
    assert_eq!(outs, ["oC0", "oDepth"]);
}
