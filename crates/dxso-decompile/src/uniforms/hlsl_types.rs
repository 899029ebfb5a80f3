//! HLSL spellings of the constant table's types: a parameter's declared type (cut to the
//! registers the table gives it, transposed for glslang where naga needs it), the comment
//! naming the table's own type, sampler types, and parameter names as identifiers.

use crate::expr::float_ty;
use dxso::ctab::{Class, Constant, ParamType, RegisterSet, TypeInfo};
use dxso::ir::TextureType;

/// Type `t` cut to the `count` registers the constant table gives it, where that is fewer
/// than the type takes (a compiler leaves out trailing rows, columns or elements no
/// instruction reads): a matrix of fewer rows (`row_major`) or columns (`column_major`), an
/// array of fewer elements. `None` where no type of the same kind takes exactly those
/// registers (an array cut inside an element or to one element, a matrix cut to one row or
/// column, a struct): the parameter is then declared as its raw registers.
pub(super) fn fitted(t: &TypeInfo, count: u32) -> Option<TypeInfo> {
    if count >= t.registers(RegisterSet::Float4) {
        return Some(t.clone());
    }
    let mut t = t.clone();
    if t.elements > 1 {
        let stride = t.element_registers(RegisterSet::Float4).max(1);
        if !count.is_multiple_of(stride) || count / stride < 2 {
            return None;
        }
        t.elements = (count / stride) as u16;
        return Some(t);
    }
    match t.class {
        // One register left is a vector (`float1x4` is not a matrix glslang and naga take).
        Class::MatrixRows if count > 1 => t.rows = count as u16,
        Class::MatrixColumns if count > 1 => t.columns = count as u16,
        _ => return None,
    }
    Some(t)
}

/// Type `t` with each non-square `column_major` matrix (in it, or in its struct members)
/// as the `row_major` matrix of the transposed shape: the same registers in the same
/// order (register `k` is column `k` of the one, row `k` of the other), read through
/// `mul(M, v)` instead of `mul(v, M)`. For glslang: it writes a `column_major` HLSL matrix
/// as a `RowMajor` SPIR-V member, and naga's SPIR-V front end (its row-major workaround)
/// types the product of a non-square one with a vector wrongly and refuses the module.
pub(super) fn transposed_for_glslang(t: &TypeInfo) -> TypeInfo {
    let mut t = t.clone();
    match t.class {
        Class::MatrixColumns if t.rows != t.columns => {
            t.class = Class::MatrixRows;
            std::mem::swap(&mut t.rows, &mut t.columns);
        }
        Class::Struct => {
            for m in &mut t.members {
                m.ty = transposed_for_glslang(&m.ty);
            }
        }
        _ => {}
    }
    t
}

/// The HLSL type of a declaration and the array suffix after its name; a struct type is
/// declared (named after `hint`) into `structs` first.
pub(super) fn declared(t: &TypeInfo, hint: &str, structs: &mut Vec<String>) -> (String, String) {
    let suffix = if t.elements > 1 {
        format!("[{}]", t.elements)
    } else {
        String::new()
    };
    (hlsl_type_one(t, hint, structs), suffix)
}

/// The HLSL type of one element (`row_major float4x3`, a struct's name).
fn hlsl_type_one(t: &TypeInfo, hint: &str, structs: &mut Vec<String>) -> String {
    let scalar = match t.ty {
        ParamType::Bool => "bool",
        ParamType::Int => "int",
        _ => "float",
    };
    match t.class {
        Class::Scalar => scalar.to_string(),
        Class::Vector => format!("{scalar}{}", t.columns.clamp(1, 4)),
        Class::MatrixRows => format!("row_major {scalar}{}x{}", t.rows, t.columns),
        Class::MatrixColumns => format!("column_major {scalar}{}x{}", t.rows, t.columns),
        Class::Object => "float4".into(),
        Class::Struct => {
            let name = format!("{hint}_t");
            let mut s = format!("struct {name}\n{{\n");
            for m in &t.members {
                let member = ident(&m.name);
                let (ty, suffix) = declared(&m.ty, &format!("{hint}_{member}"), structs);
                s.push_str(&format!("    {ty} {member}{suffix};\n"));
            }
            s.push_str("};");
            structs.push(s);
            name
        }
    }
}

/// The type as the table declares it, for a comment.
fn hlsl_type(t: &TypeInfo) -> String {
    let (ty, suffix) = declared(t, "T", &mut Vec::new());
    format!("{ty}{suffix}")
}

/// The table's type in words, for a comment (a struct by its members).
pub(super) fn described(t: &TypeInfo) -> String {
    if t.class != Class::Struct {
        return hlsl_type(t);
    }
    let members: Vec<String> = t
        .members
        .iter()
        .map(|m| format!("{} {}", hlsl_type(&m.ty), m.name))
        .collect();
    let n = if t.elements > 1 {
        format!("[{}]", t.elements)
    } else {
        String::new()
    };
    format!("struct {{ {}; }}{n}", members.join("; "))
}

/// A comment naming the table's type when it differs from the declaration's.
pub(super) fn type_note(c: &Constant, written: &str) -> String {
    let t = hlsl_type(&c.ty);
    let base = t.split('[').next().unwrap_or("");
    if base == written {
        String::new()
    } else {
        format!(" // {t} in the constant table")
    }
}

/// `[n]` for an array of `n` (nothing for 1), and how element `k` is indexed.
pub(super) fn array_suffix(n: u32) -> (String, fn(u32) -> String) {
    if n > 1 {
        (format!("[{n}]"), |k| format!("[{k}]"))
    } else {
        (String::new(), |_| String::new())
    }
}

/// The HLSL sampler type of a texture type.
pub(crate) fn sampler_ty(ty: TextureType) -> &'static str {
    match ty {
        TextureType::OneD => "sampler1D",
        TextureType::Cube => "samplerCUBE",
        TextureType::Volume => "sampler3D",
        _ => "sampler2D",
    }
}

/// A name HLSL takes as an identifier: other characters become `_`, a leading digit or an
/// HLSL keyword gets a `_` prefix (`$s_blur` becomes `_s_blur`). The name a constant-table
/// parameter has in the decompiled HLSL.
pub fn ident(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) || is_reserved(&s) {
        s.insert(0, '_');
    }
    s
}

fn is_reserved(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "float",
        "float2",
        "float3",
        "float4",
        "int",
        "bool",
        "half",
        "double",
        "matrix",
        "vector",
        "sampler",
        "texture",
        "struct",
        "in",
        "out",
        "inout",
        "uniform",
        "static",
        "const",
        "return",
        "if",
        "else",
        "for",
        "while",
        "do",
        "break",
        "continue",
        "discard",
        "true",
        "false",
        "main",
        "register",
        "packoffset",
        "asm",
        "string",
        "void",
        "sampler2D",
        "sampler3D",
        "samplerCUBE",
        "sampler1D",
        "row_major",
        "column_major",
        "linear",
        "centroid",
        "nointerpolation",
        "shared",
        "switch",
        "case",
        "default",
        "i",
        "o",
        "c",
        "r0",
        "a0",
        "p0",
        "aL",
        "input",
        "output",
        "texture2D",
        "dword",
        "pass",
        "technique",
        "compile",
        "namespace",
        "typedef",
        "volatile",
        "extern",
        "inline",
        "precise",
        "sample",
        "point",
        "line",
        "triangle",
        "lit",
        "dst",
        "mul",
        "dot",
        "min",
        "max",
        "abs",
        "frac",
    ];
    WORDS.contains(&s) || float_ty(1) == s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_identifiers() {
        assert_eq!(ident("World View"), "World_View");
        assert_eq!(ident("$Globals"), "_Globals");
        assert_eq!(ident("2tex"), "_2tex");
        assert_eq!(ident("float"), "_float");
    }
}
