//! The shader's inputs and outputs as HLSL structs with semantics, and the view of each
//! input and output register over their members (`i.texcoord1.xy`, `o.position`).

use crate::Dialect;
use crate::expr::{E, float_ty};
use crate::view::{Seg, View};
use dxso::Opcode;
use dxso::ir::{MISCTYPE_FACE, MISCTYPE_POSITION, Register, RegisterKind, Shader, Usage};
use std::collections::BTreeMap;

/// The input and output structs and the registers' views over them.
#[derive(Debug, Default)]
pub(crate) struct Io {
    /// Members of the input struct (`float4 position : POSITION;`).
    pub inputs: Vec<String>,
    /// Members of the output struct.
    pub outputs: Vec<String>,
    /// Input registers (`v#`, `t#` of ps_1_4 and ps_2_x, vPos, vFace).
    pub read: BTreeMap<Register, View>,
    /// Output registers (for ps_1_x: `r0` is copied to `o.color` at the end).
    pub write: BTreeMap<Register, View>,
    /// Statements that start the body (the outputs D3D9 starts at 1).
    pub init: Vec<String>,
    /// ps_1_1 .. ps_1_3: the `t#` registers, locals that start as their coordinates.
    pub t_locals: Vec<u32>,
    in_names: Vec<String>,
    out_names: Vec<String>,
}

impl Io {
    fn member(&mut self, input: bool, ty: &str, base: &str, semantic: &str) -> String {
        let names = if input {
            &mut self.in_names
        } else {
            &mut self.out_names
        };
        let mut name = base.to_string();
        let mut n = 1;
        while names.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        names.push(name.clone());
        let line = format!("{ty} {name} : {semantic};");
        if input {
            self.inputs.push(line);
            format!("i.{name}")
        } else {
            self.outputs.push(line);
            format!("o.{name}")
        }
    }
}

/// The member name and semantic of a `dcl` usage.
fn semantic(usage: u8, index: u8) -> (String, String) {
    let u = Usage::from_u32(usage as u32).unwrap_or(Usage::TexCoord);
    let upper = match u {
        Usage::PSize => "PSIZE".to_string(),
        Usage::PositionT => "POSITIONT".to_string(),
        u => u.name().to_ascii_uppercase(),
    };
    let numbered = matches!(u, Usage::TexCoord | Usage::Color) || index > 0;
    if numbered {
        (format!("{}{index}", u.name()), format!("{upper}{index}"))
    } else {
        (u.name().to_string(), upper)
    }
}

/// Components of a mask as (first, width) when contiguous, else the whole register.
fn span(mask: u8) -> (usize, usize) {
    let m = mask & 0xF;
    if m == 0 {
        return (0, 4);
    }
    let first = m.trailing_zeros() as usize;
    let width = (m >> first).trailing_ones() as usize;
    if (m >> first) >> width != 0 {
        (0, 4)
    } else {
        (first, width)
    }
}

/// Every register some instruction writes (destination) or reads (sources), by kind.
fn used(shader: &Shader, kind: RegisterKind, dst: bool) -> BTreeMap<u32, u8> {
    let mut m = BTreeMap::new();
    for inst in &shader.instructions {
        if matches!(inst.opcode, Opcode::Dcl | Opcode::Comment) {
            continue;
        }
        if dst {
            if let Some(d) = inst.dst
                && d.reg.kind == kind
            {
                *m.entry(d.reg.number).or_insert(0) |= d.mask.0;
            }
        } else {
            for (k, s) in inst.srcs.iter().enumerate() {
                if s.reg.kind == kind {
                    *m.entry(s.reg.number).or_insert(0) |= inst.src_components(k);
                }
            }
        }
    }
    m
}

/// Build the interface of `shader`.
pub(crate) fn build(shader: &Shader, dialect: Dialect) -> Io {
    let mut io = Io::default();
    let v = shader.version;
    for inst in shader
        .instructions
        .iter()
        .filter(|i| i.opcode == Opcode::Dcl)
    {
        let (Some(d), Some(decl)) = (inst.dst, inst.decl) else {
            continue;
        };
        let input = match d.reg.kind {
            RegisterKind::Input => true,
            RegisterKind::Output => false,
            _ => continue,
        };
        if v.major < 3 && !v.is_vertex() {
            continue; // ps_2_x `dcl v0`: no usage; handled below.
        }
        let (name, mut sem) = semantic(decl.usage, decl.usage_index);
        if !input && decl.usage == Usage::Position as u8 && dialect == Dialect::Glslang {
            sem = "SV_Position".into();
        }
        let (first, width) = if v.is_vertex() && input {
            (0, 4)
        } else {
            span(d.mask.0)
        };
        // A semantic keeps its components' positions (linkage: the pixel shader's mask lies
        // in the vertex shader's at the same positions): `dcl_texcoord2 v0.zw` reads
        // TEXCOORD2's z and w, so the member reaches its last component and is read there.
        let e = io.member(input, float_ty(first + width), &name, &sem);
        let expr = if first > 0 {
            let comps: Vec<usize> = (first..first + width).collect();
            E::atom(e, first + width).swizzle(&comps)
        } else {
            E::atom(e, width)
        };
        let map = if input { &mut io.read } else { &mut io.write };
        map.entry(d.reg)
            .or_default()
            .0
            .push(Seg { expr, first, width });
    }
    if v.is_vertex() {
        if v.major < 3 {
            legacy_vs_outputs(shader, &mut io, dialect);
        }
    } else {
        pixel(shader, &mut io, dialect);
    }
    io
}

fn legacy_vs_outputs(shader: &Shader, io: &mut Io, dialect: Dialect) {
    for (kind, names) in [
        (RegisterKind::RastOut, 0),
        (RegisterKind::AttrOut, 1),
        (RegisterKind::TexCrdOut, 2),
    ] {
        for (n, mask) in used(shader, kind, true) {
            let (base, sem, width) = match (names, n) {
                (0, 0) => (
                    "position".to_string(),
                    match dialect {
                        Dialect::Fxc => "POSITION".to_string(),
                        Dialect::Glslang => "SV_Position".to_string(),
                    },
                    4,
                ),
                (0, 1) => ("fog".into(), "FOG".into(), 1),
                (0, _) => ("psize".into(), "PSIZE".into(), 1),
                (1, n) => (format!("color{n}"), format!("COLOR{n}"), 4),
                (_, n) => (format!("texcoord{n}"), format!("TEXCOORD{n}"), 4),
            };
            let e = io.member(false, float_ty(width), &base, &sem);
            if names == 1 && mask != 0xF {
                // D3D9 starts the diffuse and specular outputs at (1, 1, 1, 1).
                io.init.push(format!("{e} = 1;"));
            }
            io.write.insert(Register::new(kind, n), single(e, width));
        }
    }
}

fn single(e: String, width: usize) -> View {
    View(vec![Seg {
        expr: E::atom(e, width),
        first: 0,
        width,
    }])
}

fn pixel(shader: &Shader, io: &mut Io, dialect: Dialect) {
    let v = shader.version;
    let glslang = dialect == Dialect::Glslang;
    if v.major < 3 {
        let mut inputs = used(shader, RegisterKind::Input, false);
        let mut texcoords = used(shader, RegisterKind::Texture, false);
        for (n, m) in used(shader, RegisterKind::Texture, true) {
            *texcoords.entry(n).or_insert(0) |= m;
        }
        for inst in shader
            .instructions
            .iter()
            .filter(|i| i.opcode == Opcode::Dcl)
        {
            if let Some(d) = inst.dst {
                match d.reg.kind {
                    RegisterKind::Input => inputs.entry(d.reg.number).or_insert(0),
                    RegisterKind::Texture => texcoords.entry(d.reg.number).or_insert(0),
                    _ => continue,
                };
            }
        }
        for n in inputs.keys() {
            let e = io.member(true, "float4", &format!("color{n}"), &format!("COLOR{n}"));
            io.read
                .insert(Register::new(RegisterKind::Input, *n), single(e, 4));
        }
        for n in texcoords.keys() {
            let e = io.member(
                true,
                "float4",
                &format!("texcoord{n}"),
                &format!("TEXCOORD{n}"),
            );
            io.read
                .insert(Register::new(RegisterKind::Texture, *n), single(e, 4));
            if v.major == 1 && v.minor < 4 {
                io.t_locals.push(*n);
            }
        }
    }
    for (n, _) in used(shader, RegisterKind::MiscType, false) {
        let reg = Register::new(RegisterKind::MiscType, n);
        let view = match (n, glslang) {
            (MISCTYPE_POSITION, false) => single(io.member(true, "float2", "vpos", "VPOS"), 2),
            (MISCTYPE_POSITION, true) => {
                let e = io.member(true, "float4", "fragCoord", "SV_Position");
                // D3D9's pixel position is the integer pixel (its centre), not the centre
                // at .5 that the fragment coordinate gives.
                single(format!("floor({e}.xy)"), 2)
            }
            (MISCTYPE_FACE, false) => single(io.member(true, "float", "vface", "VFACE"), 1),
            _ => {
                let e = io.member(true, "bool", "frontFace", "SV_IsFrontFace");
                // VFACE's sign is all that is defined: +1 front, -1 back.
                single(format!("({e} ? 1.0 : -1.0)"), 1)
            }
        };
        io.read.insert(reg, view);
    }
    let mut colors = used(shader, RegisterKind::ColorOut, true);
    if v.major == 1 {
        colors.insert(0, 0xF);
    }
    for n in colors.keys() {
        let sem = if glslang {
            format!("SV_Target{n}")
        } else {
            format!("COLOR{n}")
        };
        let e = io.member(false, "float4", &format!("color{n}"), &sem);
        io.write
            .insert(Register::new(RegisterKind::ColorOut, *n), single(e, 4));
    }
    let depth_written = !used(shader, RegisterKind::DepthOut, true).is_empty()
        || shader
            .instructions
            .iter()
            .any(|i| matches!(i.opcode, Opcode::TexM3x2Depth | Opcode::TexDepth));
    if depth_written {
        let sem = if glslang { "SV_Depth" } else { "DEPTH" };
        let e = io.member(false, "float", "depth", sem);
        io.write
            .insert(Register::new(RegisterKind::DepthOut, 0), single(e, 1));
    }
}
