//! Constant tables for assembly listings that carry none: the header a listing was printed
//! with names the constants. Microsoft's (`// Parameters:` / `// Registers:`) is read by
//! [`dxso::text::parse_header`]; Unity's (`Matrix 4 [_Object2World] 3`, `Vector 17
//! [_MainTex_ST]`, `Float 18 [_Cutoff]`, `SetTexture 0 [_MainTex] 2D 0`, as Unity's shader
//! compiler and DarkStarSword's extractor print them) is read here.

use dxso::Version;
use dxso::ctab::{Class, Constant, ConstantTable, ParamType, RegisterSet, TypeInfo};

/// The constant table the header of listing `text` describes, if it has one: Microsoft's
/// header first, else Unity's. A Microsoft header that does not parse gives `None`.
pub fn listing_table(text: &str, version: Version) -> Option<ConstantTable> {
    if let Ok(Some(t)) = dxso::text::parse_header(text, version) {
        return Some(t);
    }
    unity_table(text, version)
}

/// The table of a Unity header (`None` without one). Unity binds a matrix as rows, so a
/// `Matrix` is a `row_major float4x4` (or `floatNx4` of its register count). A header
/// written for Direct3D 11 (`ConstBuffer`, `BindCB`: byte offsets in constant buffers, not
/// registers, as 3Dmigoto's listings of `d3d11_9x` shaders carry) names nothing here.
fn unity_table(text: &str, version: Version) -> Option<ConstantTable> {
    let mut constants: Vec<Constant> = Vec::new();
    for line in text.lines() {
        if line.contains("ConstBuffer ") || line.contains("BindCB ") {
            return None;
        }
        let Some(body) = line.trim_start().strip_prefix("//") else {
            if line.trim().is_empty() {
                continue;
            }
            break;
        };
        let words: Vec<&str> = body.split_whitespace().collect();
        let [kind, reg, name, rest @ ..] = words.as_slice() else {
            continue;
        };
        let (Ok(reg), Some(name)) = (
            reg.parse::<u16>(),
            name.strip_prefix('[').and_then(|n| n.strip_suffix(']')),
        ) else {
            continue;
        };
        let count = rest.first().and_then(|c| c.parse::<u16>().ok());
        let (set, ty, registers) = match *kind {
            "Matrix" => {
                let rows = count.unwrap_or(4).clamp(1, 4);
                let t = TypeInfo::new(Class::MatrixRows, ParamType::Float, rows, 4);
                (RegisterSet::Float4, t, rows)
            }
            "Vector" => (
                RegisterSet::Float4,
                TypeInfo::new(Class::Vector, ParamType::Float, 1, 4),
                1,
            ),
            "Float" => (
                RegisterSet::Float4,
                TypeInfo::new(Class::Scalar, ParamType::Float, 1, 1),
                1,
            ),
            "SetTexture" => {
                let ty = match rest.first().copied() {
                    Some("CUBE") => ParamType::SamplerCube,
                    Some("3D") => ParamType::Sampler3D,
                    _ => ParamType::Sampler2D,
                };
                (
                    RegisterSet::Sampler,
                    TypeInfo::new(Class::Object, ty, 1, 1),
                    1,
                )
            }
            _ => continue,
        };
        let clash = constants.iter().any(|c| {
            c.name == name
                || (c.register_set == set
                    && reg < c.register_index + c.register_count
                    && c.register_index < reg + registers)
        });
        if clash {
            continue;
        }
        constants.push(Constant {
            name: name.to_string(),
            register_set: set,
            register_index: reg,
            register_count: registers,
            ty,
            default_value: None,
        });
    }
    if constants.is_empty() {
        return None;
    }
    Some(ConstantTable {
        creator: "Unity".into(),
        version: version.token(),
        flags: 0,
        target: version.to_string(),
        constants,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unity_header_names_matrices_vectors_floats_and_textures() {
        let text = "// Keywords { \"POINT\" }\n//   Matrix 4 [_Object2World]\n\
                    //   Matrix 11 [_LightMatrix0] 3\n//   Vector 17 [_MainTex_ST]\n\
                    //   Float 18 [_UVSec]\n//   SetTexture 1 [_LightTexture0] CUBE 1\n\
                    vs_3_0\n";
        let t = listing_table(text, Version::vs(3, 0)).unwrap();
        let names: Vec<_> = t.constants.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "_Object2World",
                "_LightMatrix0",
                "_MainTex_ST",
                "_UVSec",
                "_LightTexture0"
            ]
        );
        assert_eq!(t.constants[1].register_count, 3);
        assert_eq!(t.constants[1].ty.rows, 3);
        assert_eq!(t.constants[1].ty.class, Class::MatrixRows);
        assert_eq!(t.constants[4].ty.ty, ParamType::SamplerCube);
    }

    #[test]
    fn a_direct3d_11_header_names_nothing() {
        let text = "//   ConstBuffer \"$Globals\" 48\n//   Vector 32 [_MainTex_ST]\nvs_2_0\n";
        assert_eq!(listing_table(text, Version::vs(2, 0)), None);
    }
}
