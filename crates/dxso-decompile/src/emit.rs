//! The whole program: uniforms, input and output structs, helpers, subroutines in call
//! order, then `main`.

use crate::ctx::{Ctx, Helper, Shape};
use crate::expr::float_ty;
use crate::flow::{Body, split};
use crate::{Dialect, Error, Options, io, lift, needs, uniforms::Uniforms};
use dxso::Opcode;
use dxso::Shader;
use dxso::ctab::ConstantTable;
use dxso::ir::{Register, RegisterKind};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Decompile `shader` (already validated): written once with every temporary a `float4`,
/// then again with each declared as the narrowest run of components that first output
/// touches ([`Shape`]). The second can only touch fewer (a shorter text may fold a value
/// that the first wrote out); should it touch a component outside a shape, the first
/// stands.
pub(crate) fn program(
    shader: &Shader,
    table: Option<&ConstantTable>,
    opts: &Options,
) -> Result<String, Error> {
    let (wide, touched) = pass(shader, table, opts, BTreeMap::new())?;
    let v = shader.version;
    let shapes: BTreeMap<u32, Shape> = touched
        .iter()
        // ps_1_x: r0 is the colour output, read whole as main ends.
        .filter(|(r, _)| !(v.is_pixel() && v.major == 1 && **r == 0))
        .filter_map(|(r, m)| Some((*r, Shape::covering(*m)?)))
        .filter(|(_, s)| *s != Shape::FULL)
        .collect();
    if shapes.is_empty() {
        return Ok(wide);
    }
    let (narrow, touched) = pass(shader, table, opts, shapes.clone())?;
    let fits = touched
        .iter()
        .all(|(r, m)| shapes.get(r).is_none_or(|s| s.holds(*m)));
    Ok(if fits { narrow } else { wide })
}

/// One writing of the program with temporaries shaped as `shapes`, and the components of
/// each temporary it touched.
fn pass(
    shader: &Shader,
    table: Option<&ConstantTable>,
    opts: &Options,
    shapes: BTreeMap<u32, Shape>,
) -> Result<(String, BTreeMap<u32, u8>), Error> {
    let defs = needs::defs(shader);
    let needs = needs::needs(shader, &defs);
    let uniforms = Uniforms::build(table, &needs, opts.dialect)?;
    let io = io::build(shader, opts.dialect);
    let mut cx = Ctx {
        shader,
        opts,
        uniforms,
        io,
        defs,
        temps: BTreeSet::new(),
        touched: BTreeMap::new(),
        shapes,
        uses_a0: false,
        uses_p0: false,
        helpers: BTreeSet::new(),
        loops: Vec::new(),
        outer_al: None,
        tmp_serial: 0,
        al_params: BTreeSet::new(),
        pads: Vec::new(),
        input_array: false,
        def_overlay: false,
        pending: Default::default(),
    };
    let parts = split(&shader.instructions);
    cx.al_params = al_params(shader, &parts);
    let plan = lift::plan(&mut cx)?;
    let has_outputs = !cx.io.outputs.is_empty();
    let main_return = if has_outputs { " o" } else { "" };
    let mut bodies = Vec::new();
    for (label, range) in parts {
        let returns = if label.is_none() { main_return } else { "" };
        bodies.push(cx.body(label, range, &plan, returns)?);
    }
    Ok((assemble(&cx, bodies)?, cx.touched))
}

/// Subroutines that read `aL` outside their own loops.
fn al_params(shader: &Shader, parts: &[(Option<u32>, std::ops::Range<usize>)]) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for (label, range) in parts {
        let Some(l) = label else { continue };
        let mut depth = 0i32;
        for inst in &shader.instructions[range.clone()] {
            match inst.opcode {
                Opcode::Loop => depth += 1,
                Opcode::EndLoop => depth -= 1,
                _ => {}
            }
            let reads = inst
                .srcs
                .iter()
                .any(|s| s.relative.is_some_and(|r| r.reg.kind == RegisterKind::Loop));
            if depth <= 0 && reads {
                out.insert(*l);
            }
        }
    }
    out
}

fn assemble(cx: &Ctx, bodies: Vec<Body>) -> Result<String, Error> {
    let v = cx.shader.version;
    let names = if v.is_vertex() {
        ("vertex", "VS_INPUT", "VS_OUTPUT")
    } else {
        ("pixel", "PS_INPUT", "PS_OUTPUT")
    };
    let mut s = String::new();
    declarations(cx, names, &mut s);
    let globals = bodies.len() > 1;
    if globals && cx.input_array {
        return Err(Error::Unsupported(
            crate::Unsupported::RelativeInputsWithSubroutines,
        ));
    }
    let locals = locals(cx, v.is_pixel() && v.major == 1);
    if globals {
        statics(cx, names, &locals, &mut s);
    }
    helpers(cx, &mut s);
    let mut main = None;
    let mut subs = Vec::new();
    for b in bodies {
        match b.label {
            None => main = Some(b),
            Some(_) => subs.push(b),
        }
    }
    for b in call_order(&subs, main.as_ref()) {
        let l = b.label.unwrap_or(0);
        let param = if cx.al_params.contains(&l) {
            "int aL"
        } else {
            ""
        };
        let _ = writeln!(s, "\nvoid l{l}({param})\n{{");
        for line in &b.lines {
            let _ = writeln!(s, "    {line}");
        }
        s.push_str("}\n");
    }
    main_function(cx, names, &locals, main, globals, &mut s);
    Ok(s)
}

/// The header line, the uniforms (structs, then declarations) and the input and output
/// structs. `names`: the stage, the input and the output struct's names.
fn declarations(cx: &Ctx, (stage, input_ty, output_ty): (&str, &str, &str), s: &mut String) {
    let v = cx.shader.version;
    let dialect = match cx.opts.dialect {
        Dialect::Fxc => "fxc",
        Dialect::Glslang => "glslang",
    };
    let _ = writeln!(
        s,
        "// {v} {stage} shader, decompiled by dxso (for {dialect})"
    );
    if !cx.uniforms.decls.is_empty() {
        s.push('\n');
    }
    for st in &cx.uniforms.structs {
        let _ = writeln!(s, "{st}\n");
    }
    for d in &cx.uniforms.decls {
        let _ = writeln!(s, "{d}");
    }
    for (ty, members) in [(input_ty, &cx.io.inputs), (output_ty, &cx.io.outputs)] {
        if members.is_empty() {
            continue;
        }
        let _ = writeln!(s, "\nstruct {ty}\n{{");
        for m in members {
            let _ = writeln!(s, "    {m};", m = m.trim_end_matches(';'));
        }
        s.push_str("};\n");
    }
}

/// With subroutines: the temporaries, `i` and `o` as statics every function shares.
fn statics(
    cx: &Ctx,
    (_, input_ty, output_ty): (&str, &str, &str),
    locals: &[String],
    s: &mut String,
) {
    s.push('\n');
    for l in locals {
        let _ = writeln!(s, "static {l}");
    }
    if !cx.io.inputs.is_empty() {
        let _ = writeln!(s, "static {input_ty} i;");
    }
    if !cx.io.outputs.is_empty() {
        let _ = writeln!(s, "static {output_ty} o;");
    }
}

/// The helpers the body calls: the constants as relative reads see them, `dx9_lit`,
/// `dx9_round`.
fn helpers(cx: &Ctx, s: &mut String) {
    if cx.def_overlay {
        let n = overlay_len(cx);
        let _ = write!(
            s,
            "\n// The constants as relative reads see them: the shader's defs written over the\n\
             // uniforms (filled as main starts), 0 outside the register file (dxso's choice).\n\
             static float4 cd[{n}];\n\
             float4 cd_at(int k)\n{{\n    return (uint)k < {n} ? cd[k] : 0;\n}}\n"
        );
    }
    if cx.helpers.contains(&Helper::Lit) {
        s.push_str(LIT);
    }
    if cx.helpers.contains(&Helper::Round) {
        s.push_str(ROUND);
    }
}

/// `main`: its signature, the locals (or the statics set), the inputs' initialisation, the
/// relative reads' constants, the body and its return.
fn main_function(
    cx: &Ctx,
    (_, input_ty, output_ty): (&str, &str, &str),
    locals: &[String],
    main: Option<Body>,
    globals: bool,
    s: &mut String,
) {
    let v = cx.shader.version;
    let has_in = !cx.io.inputs.is_empty();
    let has_out = !cx.io.outputs.is_empty();
    let ret = if has_out { output_ty } else { "void" };
    let arg = match (has_in, globals) {
        (false, _) => String::new(),
        (true, false) => format!("{input_ty} i"),
        (true, true) => format!("{input_ty} input"),
    };
    let _ = writeln!(s, "\n{ret} main({arg})\n{{");
    if globals {
        if has_in {
            s.push_str("    i = input;\n");
        }
        if has_out {
            let _ = writeln!(s, "    o = ({output_ty})0;");
        }
    } else {
        if has_out {
            let _ = writeln!(s, "    {output_ty} o = ({output_ty})0;");
        }
        for l in locals {
            let _ = writeln!(s, "    {l}");
        }
    }
    for l in &cx.io.init {
        let _ = writeln!(s, "    {l}");
    }
    if cx.def_overlay {
        let n = overlay_len(cx);
        if cx.uniforms.file_copy {
            copy_file(cx, n, s);
        } else {
            let _ = writeln!(
                s,
                "    for (int k = 0; k < {n}; k++) {{\n        cd[k] = c[k];\n    }}"
            );
        }
        for (r, v) in cx.defs.float.iter().filter(|(r, _)| **r < n) {
            let lit = crate::expr::literal(v);
            let _ = writeln!(s, "    cd[{r}] = {};", lit.s);
        }
    }
    if let Some(b) = main {
        for line in &b.lines {
            let _ = writeln!(s, "    {line}");
        }
        if !b.lines.last().is_some_and(|l| l.starts_with("return")) {
            if v.is_pixel() && v.major == 1 {
                s.push_str("    o.color0 = r0;\n");
            }
            if has_out {
                s.push_str("    return o;\n");
            }
        }
    }
    s.push_str("}\n");
}

/// Registers of the `c` array the def overlay copies.
/// `cd[r] = ...;` for registers `0 .. n` from each one's expression (the constant table's
/// parameters and the declarations of the registers it does not name): a run of elements
/// of one array (`Lights[0]`, `Lights[1]`, ...) as one loop.
fn copy_file(cx: &Ctx, n: u32, s: &mut String) {
    let exprs: Vec<String> = (0..n)
        .map(|r| {
            cx.uniforms
                .float
                .get(&r)
                .map_or_else(|| "0".to_string(), |v| v.read(&[0, 1, 2, 3]).s)
        })
        .collect();
    // `Name[j]` -> (Name, j).
    let element = |e: &str| -> Option<(String, u32)> {
        let (name, rest) = e.strip_suffix(']')?.split_once('[')?;
        let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        Some((name.to_string(), rest.parse().ok().filter(|_| ok)?))
    };
    let mut r = 0;
    while r < exprs.len() {
        let run = element(&exprs[r]).map_or(1, |(name, j)| {
            1 + (r + 1..exprs.len())
                .take_while(|&k| element(&exprs[k]) == Some((name.clone(), j + (k - r) as u32)))
                .count()
        });
        if run > 1 {
            let (name, j) = element(&exprs[r]).unwrap_or_default();
            let plus = |base: u32| match base {
                0 => "k".to_string(),
                b => format!("{b} + k"),
            };
            let _ = writeln!(
                s,
                "    for (int k = 0; k < {run}; k++) {{\n        cd[{}] = {name}[{}];\n    }}",
                plus(r as u32),
                plus(j)
            );
        } else {
            let _ = writeln!(s, "    cd[{r}] = {};", exprs[r]);
        }
        r += run;
    }
}

fn overlay_len(cx: &Ctx) -> u32 {
    cx.uniforms
        .indexable
        .iter()
        .find(|a| a.name == "c")
        .map_or(0, |a| a.count)
}

/// Declarations of the registers the body uses as variables.
fn locals(cx: &Ctx, ps1: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut temps = cx.temps.clone();
    if ps1 {
        temps.insert(0);
    }
    for r in temps {
        let shape = cx.shapes.get(&r).copied().unwrap_or(Shape::FULL);
        out.push(format!("{} {} = 0;", float_ty(shape.width), shape.name(r)));
    }
    for t in &cx.io.t_locals {
        out.push(format!("float4 t{t} = i.texcoord{t};"));
    }
    if cx.uses_a0 {
        out.push("int4 a0 = 0;".into());
    }
    if cx.uses_p0 {
        out.push("bool4 p0 = false;".into());
    }
    if cx.input_array {
        // Relative input reads (`v[aL]`): the input registers as one array.
        let n = if cx.shader.version.is_vertex() {
            16
        } else {
            10
        };
        let regs: Vec<String> = (0..n)
            .map(
                |k| match cx.io.read.get(&Register::new(RegisterKind::Input, k)) {
                    Some(view) => view.read(&[0, 1, 2, 3]).full().s,
                    None => "float4(0, 0, 0, 0)".into(),
                },
            )
            .collect();
        out.push(format!("float4 v[{n}] = {{ {} }};", regs.join(", ")));
    }
    out
}

/// Subroutines ordered so each comes after every one it calls (HLSL needs a function
/// declared before its use).
fn call_order<'b>(subs: &'b [Body], main: Option<&Body>) -> Vec<&'b Body> {
    let mut done: Vec<u32> = Vec::new();
    let mut out = Vec::new();
    fn visit<'b>(
        l: u32,
        subs: &'b [Body],
        done: &mut Vec<u32>,
        out: &mut Vec<&'b Body>,
        depth: usize,
    ) {
        if done.contains(&l) || depth > 64 {
            return;
        }
        done.push(l);
        if let Some(b) = subs.iter().find(|b| b.label == Some(l)) {
            for &c in &b.calls {
                visit(c, subs, done, out, depth + 1);
            }
            out.push(b);
        }
    }
    if let Some(m) = main {
        for &c in &m.calls {
            visit(c, subs, &mut done, &mut out, 0);
        }
    }
    for b in subs {
        if let Some(l) = b.label {
            visit(l, subs, &mut done, &mut out, 0);
        }
    }
    out
}

/// `mova`'s rounding (C3 in ../shared/spec/instructions.md): to nearest, exact halves to
/// even. Every step is exact: `x - floor(x)` and `frac(t * 0.5)` (0 for an even `t`, 0.5
/// for an odd one) need no rounding, where `floor(x + 0.5)` would round the sum.
const ROUND: &str = "
// mova's rounding: to nearest, exact halves to even.
float4 dx9_round(float4 x)
{
    float4 t = floor(x);
    float4 d = x - t;
    return t + (float4)(d > 0.5) + (float4)(d == 0.5) * (frac(t * 0.5) * 2);
}
float3 dx9_round(float3 x) { return dx9_round(float4(x, 0)).xyz; }
float2 dx9_round(float2 x) { return dx9_round(float4(x, 0, 0)).xy; }
float dx9_round(float x) { return dx9_round(float4(x, 0, 0, 0)).x; }
";

/// D3D9's `lit`: HLSL's `lit` gives a specular term where n·l is 0, D3D9's does not.
const LIT: &str = "
// D3D9's lit: (1, max(n.l, 0), n.l > 0 && n.h > 0 ? n.h^m : 0, 1), m clamped to +-127.9961.
float4 dx9_lit(float4 s)
{
    float m = clamp(s.w, -127.9961, 127.9961);
    float spec = (s.x > 0 && s.y > 0) ? pow(s.y, m) : 0;
    return float4(1, max(s.x, 0), spec, 1);
}
";
