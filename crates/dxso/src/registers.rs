//! Register files per shader version, as the assembler sees them (`../shared/spec/registers.md`).
//!
//! These are the largest files any device of a version can have: the assembler cannot know the
//! device, so vs_2_x and ps_2_x get 32 temporaries and vertex shaders get the whole 8192-entry
//! constant space. The validator narrows these with the device caps.

use crate::ir::{RegisterKind, Version};

/// How many registers of `kind` a shader of `version` may name, or `None` if the file does
/// not exist in that version.
pub fn file_size(version: Version, kind: RegisterKind) -> Option<u32> {
    use RegisterKind::*;
    let n = version.number();
    let sm2 = n >= 0x200;
    let sm3 = n >= 0x300;
    let size = if version.is_vertex() {
        match kind {
            Temp => match n {
                0..0x200 => 12,
                0x200 => 12,
                _ => 32,
            },
            Input => 16,
            Const => 8192,
            Addr => 1,
            RastOut if !sm3 => 3,
            AttrOut if !sm3 => 2,
            TexCrdOut if !sm3 => 8,
            Output if sm3 => 12,
            ConstInt | ConstBool | Loop if sm2 => {
                if kind == Loop {
                    1
                } else {
                    16
                }
            }
            Label if sm2 => 2048,
            Predicate if n >= 0x201 => 1,
            Sampler if sm3 => 4,
            _ => return None,
        }
    } else {
        match kind {
            Temp => match n {
                0..0x104 => 2,
                0x104 => 6,
                0x200 => 12,
                _ => 32,
            },
            Input => match n {
                0..0x300 => 2,
                _ => 10,
            },
            Const => match n {
                0..0x200 => 8,
                0x200..0x300 => 32,
                _ => 224,
            },
            Texture if !sm3 => match n {
                0..0x104 => 4,
                0x104 => 6,
                _ => 8,
            },
            ColorOut if sm2 => 4,
            DepthOut if sm2 => 1,
            Sampler if sm2 => 16,
            ConstBool | ConstInt if sm2 => 16,
            Label | Predicate if n >= 0x201 => {
                if kind == Label {
                    2048
                } else {
                    1
                }
            }
            Loop if sm3 => 1,
            MiscType if sm3 => 2,
            _ => return None,
        }
    };
    Some(size)
}

/// The assembler name of a register (`r3`, `oPos`, `vFace`, `aL`, ...).
pub fn register_name(kind: RegisterKind, number: u32) -> String {
    use RegisterKind::*;
    match (kind, number) {
        (RastOut, 0) => "oPos".into(),
        (RastOut, 1) => "oFog".into(),
        (RastOut, 2) => "oPts".into(),
        (DepthOut, 0) => "oDepth".into(),
        (MiscType, 0) => "vPos".into(),
        (MiscType, 1) => "vFace".into(),
        (Loop, 0) => "aL".into(),
        _ => format!("{}{number}", prefix(kind)),
    }
}

/// The prefix that a register number follows (`r`, `oT`, `c`, ...).
pub fn prefix(kind: RegisterKind) -> &'static str {
    use RegisterKind::*;
    match kind {
        Temp => "r",
        Input => "v",
        Const => "c",
        Addr => "a",
        Texture => "t",
        RastOut => "oRast",
        AttrOut => "oD",
        TexCrdOut => "oT",
        Output => "o",
        ConstInt => "i",
        ColorOut => "oC",
        DepthOut => "oDepth",
        Sampler => "s",
        ConstBool => "b",
        Loop => "aL",
        TempFloat16 => "h",
        MiscType => "vMisc",
        Label => "l",
        Predicate => "p",
    }
}

/// Parse a register name as written in assembly. Returns the file and the number, `None` for
/// the number when the name is a bare prefix (`c` in `c[a0.x + 4]`). Type 3 and type 6 are
/// resolved for `version` (`a0` / `t0`, `oT0` / `o0`). Names are case-insensitive.
pub fn parse_register_name(name: &str, version: Version) -> Option<(RegisterKind, Option<u32>)> {
    use RegisterKind::*;
    let lower = name.to_ascii_lowercase();
    let fixed = match lower.as_str() {
        "opos" => Some((RastOut, 0)),
        "ofog" => Some((RastOut, 1)),
        "opts" => Some((RastOut, 2)),
        "odepth" => Some((DepthOut, 0)),
        "vpos" => Some((MiscType, 0)),
        "vface" => Some((MiscType, 1)),
        "al" => Some((Loop, 0)),
        _ => None,
    };
    if let Some((k, n)) = fixed {
        return Some((k, Some(n)));
    }
    let split = lower
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(lower.len());
    let (p, digits) = lower.split_at(split);
    let number = if digits.is_empty() {
        None
    } else {
        if !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 5 {
            return None;
        }
        Some(digits.parse().ok()?)
    };
    let vs = version.is_vertex();
    let kind = match p {
        "r" => Temp,
        "v" => Input,
        "c" => Const,
        "a" if vs => Addr,
        "t" if !vs => Texture,
        "od" => AttrOut,
        "ot" => TexCrdOut,
        "oc" => ColorOut,
        "o" => Output,
        "i" => ConstInt,
        "b" => ConstBool,
        "s" => Sampler,
        "p" => Predicate,
        "l" => Label,
        _ => return None,
    };
    Some((kind, number))
}
