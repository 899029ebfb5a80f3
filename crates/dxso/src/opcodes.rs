//! The one opcode table (`../shared/spec/bytecode.md` §10). The reader, the writer, the
//! assembler, the printer and the validator all take what they know about an opcode from here.

use crate::ir::{Comparison, Version};

/// An inclusive range of `Version::number()` values (`major << 8 | minor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionRange {
    /// The first version in the range.
    pub min: u16,
    /// The last version in the range.
    pub max: u16,
}

impl VersionRange {
    /// The empty range (no version has the opcode).
    pub const NONE: VersionRange = VersionRange {
        min: 0xFFFF,
        max: 0,
    };
    /// The versions `min` to `max`, both included.
    pub const fn new(min: u16, max: u16) -> Self {
        VersionRange { min, max }
    }
    /// Whether version number `n` is in the range.
    pub fn contains(self, n: u16) -> bool {
        self.min <= n && n <= self.max
    }
}

/// How an opcode's operands are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `dst` destination tokens (0 or 1), then `src` source tokens.
    /// Fixed counts of destination and source tokens.
    Ops {
        /// Destination tokens (0 or 1).
        dst: u8,
        /// Source tokens.
        src: u8,
    },
    /// `sincos`: 1/3 below SM3, 1/1 in SM3.
    SinCos,
    /// `sgn`: 1/3; vs_3_0 also 1/1 (bytecode.md note A).
    Sgn,
    /// `tex`: 1/0 in ps_1_0..1_3, 1/1 (`texld`) in ps_1_4, 1/2 from ps_2_0.
    Tex,
    /// `texcoord`: 1/0 in ps_1_0..1_3, 1/1 (`texcrd`) in ps_1_4.
    TexCoord,
    /// `dcl`: usage token, then a destination.
    Dcl,
    /// `def`: destination, then 4 f32.
    Def,
    /// `defi`: destination, then 4 i32.
    DefI,
    /// `defb`: destination, then 1 DWORD.
    DefB,
    /// A comment block; the count is in bits 16-30.
    Comment,
    /// The end token.
    End,
}

impl Layout {
    /// The source counts allowed for `version`.
    pub fn src_counts(self, version: Version) -> &'static [u8] {
        const C: [[u8; 1]; 5] = [[0], [1], [2], [3], [4]];
        let sm3 = version.major >= 3;
        match self {
            Layout::Ops { src, .. } => &C[src as usize],
            Layout::SinCos if sm3 => &[1],
            Layout::SinCos => &[3],
            Layout::Sgn if sm3 && version.is_vertex() => &[3, 1],
            Layout::Sgn => &[3],
            Layout::Tex => match version.number() {
                0..0x104 => &[0],
                0x104 => &[1],
                _ => &[2],
            },
            Layout::TexCoord if version.number() >= 0x104 => &[1],
            Layout::TexCoord => &[0],
            Layout::Dcl | Layout::Def | Layout::DefI | Layout::DefB => &[0],
            Layout::Comment | Layout::End => &[0],
        }
    }
    /// Whether a destination token comes first.
    pub fn has_dst(self) -> bool {
        match self {
            Layout::Ops { dst, .. } => dst == 1,
            Layout::Comment | Layout::End => false,
            _ => true,
        }
    }
    /// Immediate DWORDs after the destination (def/defi/defb).
    pub fn imm_count(self) -> usize {
        match self {
            Layout::Def | Layout::DefI => 4,
            Layout::DefB => 1,
            _ => 0,
        }
    }
}

/// Everything the project knows about one opcode.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    /// The opcode.
    pub opcode: Opcode,
    /// `D3DSIO_*` value.
    pub number: u16,
    /// The mnemonic (for `ifc`/`breakc`/`setp`: the stem before `_comp`).
    pub mnemonic: &'static str,
    /// How its operands are laid out.
    pub layout: Layout,
    /// Vertex shader versions that have the opcode.
    pub vs: VersionRange,
    /// Pixel shader versions that have the opcode.
    pub ps: VersionRange,
    /// Instruction slots in vs_2_0 / vs_2_x / vs_3_0 (0 = free, `NA` = not available).
    pub vs_slots: [u8; 3],
    /// Takes a comparison suffix (`if_gt`, `break_ne`, `setp_lt`).
    pub comparison: bool,
    /// Flow-control instruction (no predication, no result modifiers).
    pub flow: bool,
}

/// Slot marker for "not available in this version".
pub const NA: u8 = 0xFF;

const fn r(min: u16, max: u16) -> VersionRange {
    VersionRange::new(min, max)
}
const ALL_VS: VersionRange = r(0x100, 0x3FF);
const ALL_PS: VersionRange = r(0x100, 0x3FF);
const SM2: VersionRange = r(0x200, 0x3FF);
const SM2X: VersionRange = r(0x201, 0x3FF);
const SM3: VersionRange = r(0x300, 0x3FF);
const NONE: VersionRange = VersionRange::NONE;
const PS1: VersionRange = r(0x100, 0x103);
const fn ops(dst: u8, src: u8) -> Layout {
    Layout::Ops { dst, src }
}

macro_rules! opcode_table {
    ($( $name:ident = $num:literal, $mn:literal, $layout:expr, vs $vs:expr, ps $ps:expr, slots $slots:expr $(, $flag:ident)* ; )*) => {
        /// `D3DSHADER_INSTRUCTION_OPCODE_TYPE`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $mn, "` (`D3DSIO_*` number ", stringify!($num), ").")]
                $name = $num,
            )*
        }

        /// The table, in opcode order.
        pub static OPCODES: &[OpInfo] = &[
            $( OpInfo {
                opcode: Opcode::$name,
                number: $num,
                mnemonic: $mn,
                layout: $layout,
                vs: $vs,
                ps: $ps,
                vs_slots: $slots,
                comparison: opcode_table!(@flag comparison $($flag)*),
                flow: opcode_table!(@flag flow $($flag)*),
            }, )*
        ];
    };
    (@flag $want:ident) => { false };
    (@flag $want:ident $first:ident $($rest:ident)*) => {
        opcode_table!(@is $want $first) || opcode_table!(@flag $want $($rest)*)
    };
    (@is comparison comparison) => { true };
    (@is flow flow) => { true };
    (@is $a:ident $b:ident) => { false };
}

opcode_table! {
    Nop = 0, "nop", ops(0, 0), vs ALL_VS, ps ALL_PS, slots [1, 1, 1];
    Mov = 1, "mov", ops(1, 1), vs ALL_VS, ps ALL_PS, slots [1, 1, 1];
    Add = 2, "add", ops(1, 2), vs ALL_VS, ps ALL_PS, slots [1, 1, 1];
    Sub = 3, "sub", ops(1, 2), vs ALL_VS, ps ALL_PS, slots [1, 1, 1];
    Mad = 4, "mad", ops(1, 3), vs ALL_VS, ps ALL_PS, slots [1, 1, 1];
    Mul = 5, "mul", ops(1, 2), vs ALL_VS, ps ALL_PS, slots [1, 1, 1];
    Rcp = 6, "rcp", ops(1, 1), vs ALL_VS, ps SM2, slots [1, 1, 1];
    Rsq = 7, "rsq", ops(1, 1), vs ALL_VS, ps SM2, slots [1, 1, 1];
    Dp3 = 8, "dp3", ops(1, 2), vs ALL_VS, ps ALL_PS, slots [1, 1, 1];
    Dp4 = 9, "dp4", ops(1, 2), vs ALL_VS, ps r(0x102, 0x3FF), slots [1, 1, 1];
    Min = 10, "min", ops(1, 2), vs ALL_VS, ps SM2, slots [1, 1, 1];
    Max = 11, "max", ops(1, 2), vs ALL_VS, ps SM2, slots [1, 1, 1];
    Slt = 12, "slt", ops(1, 2), vs ALL_VS, ps NONE, slots [1, 1, 1];
    Sge = 13, "sge", ops(1, 2), vs ALL_VS, ps NONE, slots [1, 1, 1];
    Exp = 14, "exp", ops(1, 1), vs ALL_VS, ps SM2, slots [1, 1, 1];
    Log = 15, "log", ops(1, 1), vs ALL_VS, ps SM2, slots [1, 1, 1];
    Lit = 16, "lit", ops(1, 1), vs ALL_VS, ps NONE, slots [3, 3, 3];
    Dst = 17, "dst", ops(1, 2), vs ALL_VS, ps NONE, slots [1, 1, 1];
    Lrp = 18, "lrp", ops(1, 3), vs SM2, ps ALL_PS, slots [2, 2, 2];
    Frc = 19, "frc", ops(1, 1), vs ALL_VS, ps SM2, slots [1, 1, 1];
    M4x4 = 20, "m4x4", ops(1, 2), vs ALL_VS, ps SM2, slots [4, 4, 4];
    M4x3 = 21, "m4x3", ops(1, 2), vs ALL_VS, ps SM2, slots [3, 3, 3];
    M3x4 = 22, "m3x4", ops(1, 2), vs ALL_VS, ps SM2, slots [4, 4, 4];
    M3x3 = 23, "m3x3", ops(1, 2), vs ALL_VS, ps SM2, slots [3, 3, 3];
    M3x2 = 24, "m3x2", ops(1, 2), vs ALL_VS, ps SM2, slots [2, 2, 2];
    Call = 25, "call", ops(0, 1), vs SM2, ps SM2X, slots [2, 2, 2], flow;
    CallNz = 26, "callnz", ops(0, 2), vs SM2, ps SM2X, slots [3, 3, 3], flow;
    Loop = 27, "loop", ops(0, 2), vs SM2, ps SM3, slots [3, 3, 3], flow;
    Ret = 28, "ret", ops(0, 0), vs SM2, ps SM2X, slots [1, 1, 1], flow;
    EndLoop = 29, "endloop", ops(0, 0), vs SM2, ps SM3, slots [2, 2, 2], flow;
    Label = 30, "label", ops(0, 1), vs SM2, ps SM2X, slots [0, 0, 0], flow;
    Dcl = 31, "dcl", Layout::Dcl, vs ALL_VS, ps SM2, slots [0, 0, 0];
    Pow = 32, "pow", ops(1, 2), vs SM2, ps SM2, slots [3, 3, 3];
    Crs = 33, "crs", ops(1, 2), vs SM2, ps SM2, slots [2, 2, 2];
    Sgn = 34, "sgn", Layout::Sgn, vs SM2, ps NONE, slots [3, 3, 3];
    Abs = 35, "abs", ops(1, 1), vs SM2, ps SM2, slots [1, 1, 1];
    Nrm = 36, "nrm", ops(1, 1), vs SM2, ps SM2, slots [3, 3, 3];
    SinCos = 37, "sincos", Layout::SinCos, vs SM2, ps SM2, slots [8, 8, 8];
    Rep = 38, "rep", ops(0, 1), vs SM2, ps SM2X, slots [3, 3, 3], flow;
    EndRep = 39, "endrep", ops(0, 0), vs SM2, ps SM2X, slots [2, 2, 2], flow;
    If = 40, "if", ops(0, 1), vs SM2, ps SM2X, slots [3, 3, 3], flow;
    IfC = 41, "if", ops(0, 2), vs SM2X, ps SM2X, slots [NA, 3, 3], comparison, flow;
    Else = 42, "else", ops(0, 0), vs SM2, ps SM2X, slots [1, 1, 1], flow;
    EndIf = 43, "endif", ops(0, 0), vs SM2, ps SM2X, slots [1, 1, 1], flow;
    Break = 44, "break", ops(0, 0), vs SM2X, ps SM2X, slots [NA, 1, 1], flow;
    BreakC = 45, "break", ops(0, 2), vs SM2X, ps SM2X, slots [NA, 3, 3], comparison, flow;
    MovA = 46, "mova", ops(1, 1), vs SM2, ps NONE, slots [1, 1, 1];
    DefB = 47, "defb", Layout::DefB, vs SM2, ps SM2, slots [0, 0, 0];
    DefI = 48, "defi", Layout::DefI, vs SM2, ps SM2X, slots [0, 0, 0];
    TexCoord = 64, "texcoord", Layout::TexCoord, vs NONE, ps r(0x100, 0x104), slots [NA, NA, NA];
    TexKill = 65, "texkill", ops(1, 0), vs NONE, ps ALL_PS, slots [NA, NA, NA];
    Tex = 66, "texld", Layout::Tex, vs NONE, ps ALL_PS, slots [NA, NA, NA];
    TexBem = 67, "texbem", ops(1, 1), vs NONE, ps PS1, slots [NA, NA, NA];
    TexBemL = 68, "texbeml", ops(1, 1), vs NONE, ps PS1, slots [NA, NA, NA];
    TexReg2Ar = 69, "texreg2ar", ops(1, 1), vs NONE, ps PS1, slots [NA, NA, NA];
    TexReg2Gb = 70, "texreg2gb", ops(1, 1), vs NONE, ps PS1, slots [NA, NA, NA];
    TexM3x2Pad = 71, "texm3x2pad", ops(1, 1), vs NONE, ps PS1, slots [NA, NA, NA];
    TexM3x2Tex = 72, "texm3x2tex", ops(1, 1), vs NONE, ps PS1, slots [NA, NA, NA];
    TexM3x3Pad = 73, "texm3x3pad", ops(1, 1), vs NONE, ps PS1, slots [NA, NA, NA];
    TexM3x3Tex = 74, "texm3x3tex", ops(1, 1), vs NONE, ps PS1, slots [NA, NA, NA];
    TexM3x3Diff = 75, "texm3x3diff", ops(1, 1), vs NONE, ps NONE, slots [NA, NA, NA];
    TexM3x3Spec = 76, "texm3x3spec", ops(1, 2), vs NONE, ps PS1, slots [NA, NA, NA];
    TexM3x3VSpec = 77, "texm3x3vspec", ops(1, 1), vs NONE, ps PS1, slots [NA, NA, NA];
    ExpP = 78, "expp", ops(1, 1), vs ALL_VS, ps SM2, slots [1, 1, 1];
    LogP = 79, "logp", ops(1, 1), vs ALL_VS, ps SM2, slots [1, 1, 1];
    Cnd = 80, "cnd", ops(1, 3), vs NONE, ps r(0x100, 0x104), slots [NA, NA, NA];
    Def = 81, "def", Layout::Def, vs ALL_VS, ps ALL_PS, slots [0, 0, 0];
    TexReg2Rgb = 82, "texreg2rgb", ops(1, 1), vs NONE, ps r(0x102, 0x103), slots [NA, NA, NA];
    TexDp3Tex = 83, "texdp3tex", ops(1, 1), vs NONE, ps r(0x102, 0x103), slots [NA, NA, NA];
    TexM3x2Depth = 84, "texm3x2depth", ops(1, 1), vs NONE, ps r(0x103, 0x103), slots [NA, NA, NA];
    TexDp3 = 85, "texdp3", ops(1, 1), vs NONE, ps r(0x102, 0x103), slots [NA, NA, NA];
    TexM3x3 = 86, "texm3x3", ops(1, 1), vs NONE, ps r(0x102, 0x103), slots [NA, NA, NA];
    TexDepth = 87, "texdepth", ops(1, 0), vs NONE, ps r(0x104, 0x104), slots [NA, NA, NA];
    Cmp = 88, "cmp", ops(1, 3), vs NONE, ps r(0x102, 0x3FF), slots [NA, NA, NA];
    Bem = 89, "bem", ops(1, 2), vs NONE, ps r(0x104, 0x104), slots [NA, NA, NA];
    Dp2Add = 90, "dp2add", ops(1, 3), vs NONE, ps SM2, slots [NA, NA, NA];
    Dsx = 91, "dsx", ops(1, 1), vs NONE, ps SM2X, slots [NA, NA, NA];
    Dsy = 92, "dsy", ops(1, 1), vs NONE, ps SM2X, slots [NA, NA, NA];
    TexLdd = 93, "texldd", ops(1, 4), vs NONE, ps SM2X, slots [NA, NA, NA];
    Setp = 94, "setp", ops(1, 2), vs SM2X, ps SM2X, slots [NA, 1, 1], comparison;
    TexLdl = 95, "texldl", ops(1, 2), vs SM3, ps SM3, slots [NA, NA, 2];
    BreakP = 96, "breakp", ops(0, 1), vs SM2X, ps SM2X, slots [NA, 3, 3], flow;
    Phase = 0xFFFD, "phase", ops(0, 0), vs NONE, ps r(0x104, 0x104), slots [NA, NA, NA];
    Comment = 0xFFFE, "comment", Layout::Comment, vs ALL_VS, ps ALL_PS, slots [0, 0, 0];
    End = 0xFFFF, "end", Layout::End, vs ALL_VS, ps ALL_PS, slots [0, 0, 0];
}

/// `texld` control values (`D3DSI_TEXLD_PROJECT`, `D3DSI_TEXLD_BIAS`).
pub const TEXLD_PROJECT: u8 = 1;
/// `D3DSI_TEXLD_BIAS`: `texldb`, the level-of-detail bias in the coordinate's w.
pub const TEXLD_BIAS: u8 = 2;

impl Opcode {
    /// The opcode with this `D3DSIO_*` number.
    pub fn from_number(n: u16) -> Option<Opcode> {
        // The table is sorted by number: a binary search keeps this one list the only list.
        OPCODES
            .binary_search_by_key(&n, |i| i.number)
            .ok()
            .map(|i| OPCODES[i].opcode)
    }
    /// Everything the table knows about the opcode.
    pub fn info(self) -> &'static OpInfo {
        let n = self as u16;
        let i = OPCODES
            .binary_search_by_key(&n, |i| i.number)
            .expect("every Opcode is in OPCODES");
        &OPCODES[i]
    }
    /// Whether a shader of `version` has this opcode.
    pub fn exists_in(self, version: Version) -> bool {
        let info = self.info();
        let range = if version.is_vertex() {
            info.vs
        } else {
            info.ps
        };
        range.contains(version.number())
    }
    /// The mnemonic as printed for `version` with `control` bits (comparison included).
    pub fn mnemonic(self, control: u8, version: Version) -> String {
        let info = self.info();
        let ps14 = version.is_pixel() && version.number() < 0x104;
        match self {
            Opcode::Tex if ps14 => "tex".into(),
            Opcode::Tex => match control {
                TEXLD_PROJECT => "texldp".into(),
                TEXLD_BIAS => "texldb".into(),
                _ => "texld".into(),
            },
            Opcode::TexCoord if version.number() >= 0x104 => "texcrd".into(),
            _ if info.comparison => match Comparison::from_u8(control & 7) {
                Some(c) => format!("{}_{}", info.mnemonic, c.name()),
                None => info.mnemonic.into(),
            },
            _ => info.mnemonic.into(),
        }
    }
    /// Resolve a mnemonic stem (the part before the first `_`), and whether a comparison
    /// suffix follows, to an opcode and its control bits.
    pub fn lookup(stem: &str, has_comparison: bool) -> Option<(Opcode, u8)> {
        let stem = stem.to_ascii_lowercase();
        let alias = match stem.as_str() {
            "tex" | "texld" => Some((Opcode::Tex, 0)),
            "texldp" => Some((Opcode::Tex, TEXLD_PROJECT)),
            "texldb" => Some((Opcode::Tex, TEXLD_BIAS)),
            "texcrd" => Some((Opcode::TexCoord, 0)),
            _ => None,
        };
        if alias.is_some() {
            return alias;
        }
        OPCODES
            .iter()
            .filter(|i| !matches!(i.layout, Layout::Comment | Layout::End))
            .find(|i| i.mnemonic == stem && i.comparison == has_comparison)
            .map(|i| (i.opcode, 0))
    }
    /// Whether some opcode takes a comparison suffix after this stem.
    pub fn stem_takes_comparison(stem: &str) -> bool {
        OPCODES
            .iter()
            .any(|i| i.comparison && i.mnemonic.eq_ignore_ascii_case(stem))
    }
    /// For a matrix macro (`m4x4`, `m4x3`, `m3x4`, `m3x3`, `m3x2`), how many consecutive
    /// registers its second source reads, which is also how many channels it writes.
    pub fn matrix_rows(self) -> Option<u32> {
        match self {
            Opcode::M4x4 | Opcode::M3x4 => Some(4),
            Opcode::M4x3 | Opcode::M3x3 => Some(3),
            Opcode::M3x2 => Some(2),
            _ => None,
        }
    }
    /// For a matrix macro, how many components of the vector and of each row it reads: 4 for
    /// `m4x4` and `m4x3`, 3 for `m3x4`, `m3x3` and `m3x2`.
    pub fn matrix_width(self) -> Option<u32> {
        match self {
            Opcode::M4x4 | Opcode::M4x3 => Some(4),
            Opcode::M3x4 | Opcode::M3x3 | Opcode::M3x2 => Some(3),
            _ => None,
        }
    }
    /// How many consecutive registers source `k` reads: a matrix macro's rows for its second
    /// source ([`Self::matrix_rows`]), one otherwise.
    pub fn source_registers(self, k: usize) -> u32 {
        match self.matrix_rows() {
            Some(rows) if k == 1 => rows,
            _ => 1,
        }
    }
    /// Whether the instruction reads one component of its source and writes the scalar
    /// result to every channel of its mask (`rcp`, `rsq`, `exp`, `log`, `expp`, `logp`).
    pub fn is_scalar(self) -> bool {
        matches!(
            self,
            Opcode::Rcp | Opcode::Rsq | Opcode::Exp | Opcode::Log | Opcode::ExpP | Opcode::LogP
        )
    }
    /// Instruction slots in a vertex shader of `version` (vs_2_0 / vs_2_x / vs_3_0 columns).
    pub fn vs_slots(self, version: Version) -> Option<u8> {
        let col = match version.number() {
            0x200 => 0,
            0x201..0x300 => 1,
            _ => 2,
        };
        match self.info().vs_slots[col] {
            NA => None,
            n => Some(n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_numbers_match_the_enum() {
        for w in OPCODES.windows(2) {
            assert!(w[0].number < w[1].number, "{:?}", w[1].opcode);
        }
        for info in OPCODES {
            assert_eq!(info.opcode as u16, info.number);
            assert_eq!(Opcode::from_number(info.number), Some(info.opcode));
        }
        assert_eq!(Opcode::from_number(49), None);
        assert_eq!(Opcode::from_number(97), None);
    }

    #[test]
    fn version_dependent_operands() {
        let vs20 = Version::vs(2, 0);
        let vs30 = Version::vs(3, 0);
        assert_eq!(Opcode::SinCos.info().layout.src_counts(vs20), &[3]);
        assert_eq!(Opcode::SinCos.info().layout.src_counts(vs30), &[1]);
        assert_eq!(Opcode::Sgn.info().layout.src_counts(vs30), &[3, 1]);
        assert_eq!(
            Opcode::Tex.info().layout.src_counts(Version::ps(1, 3)),
            &[0]
        );
        assert_eq!(
            Opcode::Tex.info().layout.src_counts(Version::ps(1, 4)),
            &[1]
        );
        assert_eq!(
            Opcode::Tex.info().layout.src_counts(Version::ps(2, 0)),
            &[2]
        );
    }

    #[test]
    fn mnemonics_round_trip_through_lookup() {
        let v = Version::ps(3, 0);
        assert_eq!(Opcode::lookup("if", true), Some((Opcode::IfC, 0)));
        assert_eq!(Opcode::lookup("if", false), Some((Opcode::If, 0)));
        assert_eq!(Opcode::lookup("texldp", false), Some((Opcode::Tex, 1)));
        assert_eq!(Opcode::IfC.mnemonic(3, v), "if_ge");
        assert_eq!(Opcode::Tex.mnemonic(2, v), "texldb");
        assert_eq!(Opcode::Tex.mnemonic(0, Version::ps(1, 3)), "tex");
        assert_eq!(Opcode::TexCoord.mnemonic(0, Version::ps(1, 4)), "texcrd");
        assert!(Opcode::Lrp.exists_in(Version::vs(2, 0)));
        assert!(!Opcode::Lrp.exists_in(Version::vs(1, 1)));
        assert!(!Opcode::TexLdl.exists_in(Version::vs(2, 1)));
        assert_eq!(Opcode::IfC.vs_slots(Version::vs(2, 0)), None);
        assert_eq!(Opcode::M4x4.vs_slots(Version::vs(3, 0)), Some(4));
    }
}
