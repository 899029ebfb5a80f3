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

/// How many source operands of one instruction may read a register file: `ports` different
/// registers of it (the same register again costs no port), and at most `reads` operands
/// naming it (`None`: unlimited).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadPorts {
    /// Different registers of the file one instruction may read.
    pub ports: usize,
    /// Operands of one instruction that may name the file (`None`: unlimited).
    pub reads: Option<usize>,
}

/// The read-port limits of `kind` in `version` (the "# Read ports" and "# Reads/inst" columns
/// of the register tables), or `None` where the tables give none (no instruction reads the
/// file, or the software versions, which have no limits). `vPos` and `vFace` are two files of
/// one port each.
pub fn read_ports(version: Version, kind: RegisterKind) -> Option<ReadPorts> {
    use RegisterKind::*;
    let n = version.number();
    let limit = |ports, reads| Some(ReadPorts { ports, reads });
    if version.minor == 0xFF {
        return None;
    }
    if version.is_vertex() {
        // registers.md §3 (vs_2_0; vs_1_1 as vs_2_0), §4 (vs_2_x: the vs_2_0 rows), §5 (vs_3_0).
        let sm3 = n >= 0x300;
        return match kind {
            Temp => limit(3, None),                       // r#: 3 ports, unlimited
            Input => limit(1, None),                      // v#: 1 port, unlimited
            Const | Addr | Loop if sm3 => limit(1, None), // c#, a0, aL: 1, unlimited (§5)
            Const | Addr | Loop => limit(1, Some(2)),     // c#, a0, aL: 1 port, 2 reads (§3)
            ConstBool | ConstInt | Predicate | Sampler => limit(1, Some(1)), // b#, i#, p0, s#: 1, 1
            _ => None,
        };
    }
    match n {
        // "ps_1_1__ps_1_2__ps_1_3__ps_1_4 Registers", table "Read Port Limit" (different
        // registers per instruction; the page gives no per-instruction read count).
        0x101..0x105 => match kind {
            Const => limit(2, None),                 // c#: 2 in every 1_x
            Temp if n == 0x104 => limit(3, None),    // r#: 3 in 1_4
            Temp => limit(2, None),                  // r#: 2 in 1_1..1_3
            Texture if n == 0x101 => limit(2, None), // t#: 2 in 1_1
            Texture if n == 0x104 => limit(1, None), // t#: 1 in 1_4
            Texture => limit(3, None),               // t#: 3 in 1_2, 1_3
            Input => limit(2, None),                 // v#: 2 (1_4: in phase 2)
            _ => None,
        },
        // "ps_2_0 Registers" and "ps_2_x Registers", table "Input Register Types" (the two
        // tables have the same rows).
        0x200..0x300 => match kind {
            Input => limit(1, None),    // v#: 1 port, unlimited
            Temp => limit(3, None),     // r#: 3 ports, unlimited
            Const => limit(1, Some(2)), // c#: 1 port, 2 reads
            ConstInt | ConstBool | Predicate => limit(1, Some(1)), // i#, b#, p0: 1, 1
            Sampler => limit(1, Some(1)), // s#: 1, 1
            // t#: the row says 1 port and 1 read, but Microsoft's compiler writes
            // `dp3 r0.w, t0, t0` and `lrp r2.z, r0.x, t2.w, t2.z` (18 ps_2_0/ps_2_x shaders of
            // the corpus, which D3D9 takes): only the port limit holds, as for v#.
            Texture => limit(1, None),
            _ => None,
        },
        // "ps_3_0 Registers", table "Input Register Types"; registers.md §8 for v#, vPos,
        // vFace and aL.
        _ => match kind {
            Input => limit(1, None), // v#: 1 port, unlimited
            Temp => limit(3, None),  // r#: 3 ports, unlimited
            Const => limit(1, None), // c#: 1 port, unlimited
            ConstInt | ConstBool | Predicate | Sampler => limit(1, Some(1)), // i#, b#, p0, s#
            MiscType | Loop => limit(1, None), // vPos, vFace, aL: 1, unlimited
            _ => None,
        },
    }
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
