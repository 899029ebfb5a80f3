//! The shader IR: a loss-free, decoded view of a DXSO token stream.
//!
//! Every field maps to a bit field of the token format (`../shared/spec/bytecode.md`), so that
//! `binary::read` followed by `binary::write` gives back the same tokens. Names follow D3D9's own
//! terms (`D3DSPR_*`, `D3DSPSM_*`, `D3DDECLUSAGE_*`).

use crate::opcodes::Opcode;
use std::fmt;

/// Vertex or pixel shader (the high word of the version token).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderKind {
    /// A vertex shader (`vs_*`).
    Vertex,
    /// A pixel shader (`ps_*`).
    Pixel,
}

/// A shader version: `vs_2_0` is `{Vertex, 2, 0}`; `vs_2_x` is `{Vertex, 2, 1}`;
/// the software profiles `vs_2_sw` / `vs_3_sw` use minor `0xFF`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Version {
    /// Vertex or pixel.
    pub kind: ShaderKind,
    /// The major version (1, 2 or 3).
    pub major: u8,
    /// The minor version (`0xFF` for the software profiles; 1 for `_2_x`).
    pub minor: u8,
}

impl Version {
    /// The version `kind`_`major`_`minor`.
    pub const fn new(kind: ShaderKind, major: u8, minor: u8) -> Self {
        Version { kind, major, minor }
    }
    /// A vertex-shader version (`Version::vs(3, 0)` is vs_3_0).
    pub const fn vs(major: u8, minor: u8) -> Self {
        Self::new(ShaderKind::Vertex, major, minor)
    }
    /// A pixel-shader version (`Version::ps(2, 0)` is ps_2_0).
    pub const fn ps(major: u8, minor: u8) -> Self {
        Self::new(ShaderKind::Pixel, major, minor)
    }
    /// `major << 8 | minor`, the number version ranges in the opcode table compare against.
    pub const fn number(self) -> u16 {
        (self.major as u16) << 8 | self.minor as u16
    }
    /// Whether this is a vertex-shader version.
    pub fn is_vertex(self) -> bool {
        self.kind == ShaderKind::Vertex
    }
    /// Whether this is a pixel-shader version.
    pub fn is_pixel(self) -> bool {
        self.kind == ShaderKind::Pixel
    }
    /// SM2+ instructions carry their length in bits 24-27; SM1 ones do not.
    pub fn has_length(self) -> bool {
        self.major >= 2
    }
    /// The version token (`D3DVS_VERSION` / `D3DPS_VERSION`).
    pub fn token(self) -> u32 {
        let high = match self.kind {
            ShaderKind::Vertex => 0xFFFE_0000,
            ShaderKind::Pixel => 0xFFFF_0000,
        };
        high | (self.major as u32) << 8 | self.minor as u32
    }
    /// Versions dxso knows: vs_1_0..vs_3_0 (+ vs_2_sw, vs_3_sw), ps_1_0..ps_3_0 (+ sw).
    pub fn is_known(self) -> bool {
        match (self.major, self.minor) {
            (1, m) => match self.kind {
                ShaderKind::Vertex => m <= 1,
                ShaderKind::Pixel => m <= 4,
            },
            (2, 0 | 1 | 0xFF) | (3, 0 | 0xFF) => true,
            _ => false,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match self.kind {
            ShaderKind::Vertex => "vs",
            ShaderKind::Pixel => "ps",
        };
        match self.minor {
            1 if self.major == 2 => write!(f, "{prefix}_2_x"),
            0xFF => write!(f, "{prefix}_{}_sw", self.major),
            m => write!(f, "{prefix}_{}_{}", self.major, m),
        }
    }
}

/// Register files (`D3DSHADER_PARAM_REGISTER_TYPE`). Type 3 is `a0` in vertex shaders and `t#`
/// in pixel shaders; type 6 is `oT#` below vs_3_0 and `o#` in vs_3_0. CONST2/3/4 are folded
/// into [`RegisterKind::Const`] with numbers 2048..8191.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegisterKind {
    /// `r#`: temporaries.
    Temp,
    /// `v#`: vertex inputs, or a pixel shader's colour inputs.
    Input,
    /// `c#`: float constants (0..8191 with CONST2/3/4 folded in).
    Const,
    /// `a0`: the address register (vertex shaders).
    Addr,
    /// `t#`: texture coordinates / texture results (pixel shaders).
    Texture,
    /// `oPos`, `oFog`, `oPts` (`RASTOUT_*`), below vs_3_0.
    RastOut,
    /// `oD#`: the colour outputs below vs_3_0.
    AttrOut,
    /// `oT#`: the texture-coordinate outputs below vs_3_0.
    TexCrdOut,
    /// `o#`: vs_3_0's outputs.
    Output,
    /// `i#`: integer constants.
    ConstInt,
    /// `oC#`: a pixel shader's colour outputs.
    ColorOut,
    /// `oDepth`: a pixel shader's depth output.
    DepthOut,
    /// `s#`: samplers.
    Sampler,
    /// `b#`: boolean constants.
    ConstBool,
    /// `aL`: the loop counter.
    Loop,
    /// `D3DSPR_TEMPFLOAT16` (register type 16): half-precision temporaries no shader version
    /// declares.
    TempFloat16,
    /// `vPos` and `vFace` (`MISCTYPE_*`), ps_3_0.
    MiscType,
    /// `l#`: labels of subroutines.
    Label,
    /// `p0`: the predicate register.
    Predicate,
}

impl RegisterKind {
    /// Decode a 5-bit register type for a shader of `version`; `number` is the 11-bit field,
    /// returned adjusted for CONST2/3/4.
    pub fn from_type(ty: u32, number: u32, version: Version) -> Option<(RegisterKind, u32)> {
        use RegisterKind::*;
        let vs = version.is_vertex();
        Some(match ty {
            0 => (Temp, number),
            1 => (Input, number),
            2 => (Const, number),
            3 => (if vs { Addr } else { Texture }, number),
            4 => (RastOut, number),
            5 => (AttrOut, number),
            6 => (
                if vs && version.major >= 3 {
                    Output
                } else {
                    TexCrdOut
                },
                number,
            ),
            7 => (ConstInt, number),
            8 => (ColorOut, number),
            9 => (DepthOut, number),
            10 => (Sampler, number),
            11 => (Const, number + 2048),
            12 => (Const, number + 4096),
            13 => (Const, number + 6144),
            14 => (ConstBool, number),
            15 => (Loop, number),
            16 => (TempFloat16, number),
            17 => (MiscType, number),
            18 => (Label, number),
            19 => (Predicate, number),
            _ => return None,
        })
    }

    /// The 5-bit register type and 11-bit number to encode `number` of this file.
    pub fn to_type(self, number: u32) -> (u32, u32) {
        use RegisterKind::*;
        match self {
            Temp => (0, number),
            Input => (1, number),
            Const => match number {
                0..2048 => (2, number),
                2048..4096 => (11, number - 2048),
                4096..6144 => (12, number - 4096),
                _ => (13, number - 6144),
            },
            Addr | Texture => (3, number),
            RastOut => (4, number),
            AttrOut => (5, number),
            TexCrdOut | Output => (6, number),
            ConstInt => (7, number),
            ColorOut => (8, number),
            DepthOut => (9, number),
            Sampler => (10, number),
            ConstBool => (14, number),
            Loop => (15, number),
            TempFloat16 => (16, number),
            MiscType => (17, number),
            Label => (18, number),
            Predicate => (19, number),
        }
    }

    /// Largest number that can be encoded for this file.
    pub fn max_number(self) -> u32 {
        if self == RegisterKind::Const {
            8191
        } else {
            2047
        }
    }
}

/// `D3DSRO_*` numbers of the RASTOUT file.
pub const RASTOUT_POSITION: u32 = 0;
/// `oFog`.
pub const RASTOUT_FOG: u32 = 1;
/// `oPts`, the point size.
pub const RASTOUT_POINT_SIZE: u32 = 2;
/// `D3DSMO_*` numbers of the MISCTYPE file.
pub const MISCTYPE_POSITION: u32 = 0;
/// `vFace`.
pub const MISCTYPE_FACE: u32 = 1;

/// A register: file and number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Register {
    /// The register file.
    pub kind: RegisterKind,
    /// The number within the file.
    pub number: u32,
}

impl Register {
    /// Register `number` of file `kind`.
    pub const fn new(kind: RegisterKind, number: u32) -> Self {
        Register { kind, number }
    }
}

/// A source swizzle: 2 bits per output channel, x in bits 0-1 (token bits 16-23).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle(pub u8);

impl Swizzle {
    /// `.xyzw`: each channel reads its own component.
    pub const IDENTITY: Swizzle = Swizzle(0xE4);
    /// The source component read for output channel `channel` (0..4).
    pub fn get(self, channel: usize) -> usize {
        (self.0 >> (channel * 2) & 3) as usize
    }
    /// All four channels read the same component.
    pub fn replicate(component: u8) -> Swizzle {
        Swizzle(component * 0x55)
    }
    /// Whether all four channels read the same component.
    pub fn is_replicate(self) -> bool {
        self.0.is_multiple_of(0x55)
    }
    /// The swizzle reading component `c[k]` into channel `k` (each 0..4).
    pub fn from_components(c: [u8; 4]) -> Swizzle {
        Swizzle(c[0] | c[1] << 2 | c[2] << 4 | c[3] << 6)
    }
}

/// A destination write mask: bit 0 = x ... bit 3 = w.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WriteMask(pub u8);

impl WriteMask {
    /// `.xyzw`: every channel written.
    pub const ALL: WriteMask = WriteMask(0xF);
    /// Whether channel `channel` (0..4) is written.
    pub fn has(self, channel: usize) -> bool {
        self.0 >> channel & 1 != 0
    }
}

/// Source modifiers (`D3DSPSM_*`, token bits 24-27).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SrcModifier {
    /// The register as it is.
    None = 0,
    /// `-r`.
    Neg = 1,
    /// `r_bias`: r - 0.5.
    Bias = 2,
    /// `-r_bias`.
    BiasNeg = 3,
    /// `r_bx2`: 2r - 1.
    Sign = 4,
    /// `-r_bx2`.
    SignNeg = 5,
    /// `1 - r`.
    Comp = 6,
    /// `r_x2`: 2r.
    X2 = 7,
    /// `-r_x2`.
    X2Neg = 8,
    /// `r_dz`: divide by z (ps_1_4 texld/texcrd).
    Dz = 9,
    /// `r_dw`: divide by w (ps_1_4 texld/texcrd).
    Dw = 10,
    /// `r_abs`: |r|.
    Abs = 11,
    /// `-r_abs`: -|r|.
    AbsNeg = 12,
    /// `!r`: a boolean or predicate negated.
    Not = 13,
}

impl SrcModifier {
    /// The modifier of token bits 24-27 (`None` for the reserved values 14 and 15).
    pub fn from_bits(v: u32) -> Option<SrcModifier> {
        use SrcModifier::*;
        Some(match v {
            0 => None,
            1 => Neg,
            2 => Bias,
            3 => BiasNeg,
            4 => Sign,
            5 => SignNeg,
            6 => Comp,
            7 => X2,
            8 => X2Neg,
            9 => Dz,
            10 => Dw,
            11 => Abs,
            12 => AbsNeg,
            13 => Not,
            _ => return Option::None,
        })
    }
    /// Whether the modifier negates (after any other operation).
    pub fn is_negated(self) -> bool {
        use SrcModifier::*;
        matches!(self, Neg | BiasNeg | SignNeg | X2Neg | AbsNeg)
    }
    /// Split into (negate, base modifier).
    pub fn split_negate(self) -> (bool, SrcModifier) {
        use SrcModifier::*;
        match self {
            Neg => (true, None),
            BiasNeg => (true, Bias),
            SignNeg => (true, Sign),
            X2Neg => (true, X2),
            AbsNeg => (true, Abs),
            m => (false, m),
        }
    }
    /// Combine a base modifier with a negation; `None` if the pair has no encoding.
    pub fn with_negate(self, negate: bool) -> Option<SrcModifier> {
        use SrcModifier::*;
        if !negate {
            return Some(self);
        }
        match self {
            None => Some(Neg),
            Bias => Some(BiasNeg),
            Sign => Some(SignNeg),
            X2 => Some(X2Neg),
            Abs => Some(AbsNeg),
            _ => Option::None,
        }
    }
}

/// Result modifier flags (`D3DSPDM_*`, token bits 20-23).
pub const RESULT_SATURATE: u8 = 1;
/// `_pp`: partial precision allowed.
pub const RESULT_PARTIAL_PRECISION: u8 = 2;
/// `_centroid`: interpolated at the centroid.
pub const RESULT_CENTROID: u8 = 4;

/// The index register of a relatively addressed operand. In vs_1_1 the index is implicitly
/// `a0.x` and no token is written; from SM2 on an extra token names `a0.c` or `aL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Relative {
    /// `Addr` (`a0`) or `Loop` (`aL`) (other kinds decode, and the validator rejects them).
    pub reg: Register,
    /// Swizzle of the relative token; only its first component is meaningful.
    pub swizzle: Swizzle,
}

impl Relative {
    /// `a0` with component `component` (0..4) as the index.
    pub fn a0(component: u8) -> Relative {
        Relative {
            reg: Register::new(RegisterKind::Addr, 0),
            swizzle: Swizzle::replicate(component),
        }
    }
    /// `aL` as the index.
    pub fn al() -> Relative {
        Relative {
            reg: Register::new(RegisterKind::Loop, 0),
            swizzle: Swizzle::IDENTITY,
        }
    }
}

/// A destination parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dst {
    /// The register written.
    pub reg: Register,
    /// The components written.
    pub mask: WriteMask,
    /// `RESULT_*` flags.
    pub modifiers: u8,
    /// 4-bit shift scale (ps_1_x): 1 = x2, 2 = x4, 3 = x8, 15 = d2, 14 = d4, 13 = d8.
    pub shift: u8,
    /// The index register, for a relatively addressed destination (`o[aL + n]`).
    pub relative: Option<Relative>,
}

impl Dst {
    /// Register `reg`, every component written, no modifier.
    pub fn new(reg: Register) -> Dst {
        Dst {
            reg,
            mask: WriteMask::ALL,
            modifiers: 0,
            shift: 0,
            relative: None,
        }
    }
    /// Whether the result is clamped to [0, 1] (`_sat`).
    pub fn saturate(&self) -> bool {
        self.modifiers & RESULT_SATURATE != 0
    }
}

/// A source parameter (also used for the predicate token, label operands and relative tokens).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Src {
    /// The register read.
    pub reg: Register,
    /// Which component each channel reads.
    pub swizzle: Swizzle,
    /// The modifier applied to the value read.
    pub modifier: SrcModifier,
    /// The index register, for a relatively addressed source (`c[a0.x + n]`).
    pub relative: Option<Relative>,
}

impl Src {
    /// Register `reg` read as it is (`.xyzw`, no modifier).
    pub fn new(reg: Register) -> Src {
        Src {
            reg,
            swizzle: Swizzle::IDENTITY,
            modifier: SrcModifier::None,
            relative: None,
        }
    }
}

/// `D3DDECLUSAGE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Usage {
    /// `POSITION`: the untransformed position.
    Position = 0,
    /// `BLENDWEIGHT`: skinning weights.
    BlendWeight = 1,
    /// `BLENDINDICES`: skinning matrix indices.
    BlendIndices = 2,
    /// `NORMAL`.
    Normal = 3,
    /// `PSIZE`: the point size.
    PSize = 4,
    /// `TEXCOORD`.
    TexCoord = 5,
    /// `TANGENT`.
    Tangent = 6,
    /// `BINORMAL`.
    Binormal = 7,
    /// `TESSFACTOR`.
    TessFactor = 8,
    /// `POSITIONT`: a position already transformed to the screen.
    PositionT = 9,
    /// `COLOR`.
    Color = 10,
    /// `FOG`.
    Fog = 11,
    /// `DEPTH`.
    Depth = 12,
    /// `SAMPLE`.
    Sample = 13,
}

impl Usage {
    /// Every usage, in `D3DDECLUSAGE` order (index = value).
    pub const ALL: [Usage; 14] = [
        Usage::Position,
        Usage::BlendWeight,
        Usage::BlendIndices,
        Usage::Normal,
        Usage::PSize,
        Usage::TexCoord,
        Usage::Tangent,
        Usage::Binormal,
        Usage::TessFactor,
        Usage::PositionT,
        Usage::Color,
        Usage::Fog,
        Usage::Depth,
        Usage::Sample,
    ];
    /// The usage of `D3DDECLUSAGE` value `v` (`None` past `SAMPLE`).
    pub fn from_u32(v: u32) -> Option<Usage> {
        Usage::ALL.get(v as usize).copied()
    }
    /// The assembler spelling (`dcl_<name>`).
    pub fn name(self) -> &'static str {
        match self {
            Usage::Position => "position",
            Usage::BlendWeight => "blendweight",
            Usage::BlendIndices => "blendindices",
            Usage::Normal => "normal",
            Usage::PSize => "psize",
            Usage::TexCoord => "texcoord",
            Usage::Tangent => "tangent",
            Usage::Binormal => "binormal",
            Usage::TessFactor => "tessfactor",
            Usage::PositionT => "positiont",
            Usage::Color => "color",
            Usage::Fog => "fog",
            Usage::Depth => "depth",
            Usage::Sample => "sample",
        }
    }
    /// The usage spelled `name` in `dcl_<name>` (any case).
    pub fn from_name(name: &str) -> Option<Usage> {
        Usage::ALL
            .into_iter()
            .find(|u| u.name().eq_ignore_ascii_case(name))
    }
}

/// `D3DSAMPLER_TEXTURE_TYPE` (usage token bits 27-30).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureType {
    /// `D3DSTT_UNKNOWN`: no texture type (the usage token of a `dcl` that is not a sampler's).
    Unknown = 0,
    /// `D3DSTT_1D`: a one-dimensional texture.
    OneD = 1,
    /// `dcl_2d`.
    TwoD = 2,
    /// `dcl_cube`.
    Cube = 3,
    /// `dcl_volume`.
    Volume = 4,
}

impl TextureType {
    /// The texture type of value `v` (`None` for the values D3D9 does not define).
    pub fn from_u32(v: u32) -> Option<TextureType> {
        Some(match v {
            0 => TextureType::Unknown,
            1 => TextureType::OneD,
            2 => TextureType::TwoD,
            3 => TextureType::Cube,
            4 => TextureType::Volume,
            _ => return None,
        })
    }
    /// The assembler spelling (`dcl_<name>`).
    pub fn name(self) -> &'static str {
        match self {
            TextureType::Unknown => "unknown",
            TextureType::OneD => "1d",
            TextureType::TwoD => "2d",
            TextureType::Cube => "cube",
            TextureType::Volume => "volume",
        }
    }
}

/// The usage token of a `dcl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decl {
    /// Bits 0-4 (raw: a sampler or a ps_2_x `dcl` keeps 0 here).
    pub usage: u8,
    /// Bits 16-19.
    pub usage_index: u8,
    /// Bits 27-30 (samplers).
    pub texture_type: u8,
}

impl Decl {
    /// The usage token of `dcl_<usage><index>`.
    pub fn semantic(usage: Usage, index: u8) -> Decl {
        Decl {
            usage: usage as u8,
            usage_index: index,
            texture_type: 0,
        }
    }
    /// The usage token of a sampler's `dcl_<type>`.
    pub fn sampler(ty: TextureType) -> Decl {
        Decl {
            usage: 0,
            usage_index: 0,
            texture_type: ty as u8,
        }
    }
    /// The token's 32-bit value (bit 31 set).
    pub fn token(self) -> u32 {
        0x8000_0000
            | self.usage as u32
            | (self.usage_index as u32) << 16
            | (self.texture_type as u32) << 27
    }
    /// The usage token `t` decoded; `None` when bit 31 is clear or a reserved bit is set.
    pub fn from_token(t: u32) -> Option<Decl> {
        if t & 0x8000_0000 == 0 || t & !0xF80F_001F != 0 {
            return None;
        }
        Some(Decl {
            usage: (t & 0x1F) as u8,
            usage_index: (t >> 16 & 0xF) as u8,
            texture_type: (t >> 27 & 0xF) as u8,
        })
    }
}

/// `D3DSHADER_COMPARISON` (control bits 16-18 of ifc / breakc / setp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    /// `_gt`: a > b.
    Gt = 1,
    /// `_eq`: a == b.
    Eq = 2,
    /// `_ge`: a >= b.
    Ge = 3,
    /// `_lt`: a < b.
    Lt = 4,
    /// `_ne`: a != b.
    Ne = 5,
    /// `_le`: a <= b.
    Le = 6,
}

impl Comparison {
    /// Every comparison, in value order (1..=6).
    pub const ALL: [Comparison; 6] = [
        Comparison::Gt,
        Comparison::Eq,
        Comparison::Ge,
        Comparison::Lt,
        Comparison::Ne,
        Comparison::Le,
    ];
    /// The comparison of value `v` (`None` for 0 and 7).
    pub fn from_u8(v: u8) -> Option<Comparison> {
        Comparison::ALL.get((v as usize).wrapping_sub(1)).copied()
    }
    /// The assembler suffix (`gt` in `if_gt`).
    pub fn name(self) -> &'static str {
        match self {
            Comparison::Gt => "gt",
            Comparison::Eq => "eq",
            Comparison::Ge => "ge",
            Comparison::Lt => "lt",
            Comparison::Ne => "ne",
            Comparison::Le => "le",
        }
    }
    /// The comparison spelled `s` (any case).
    pub fn from_name(s: &str) -> Option<Comparison> {
        Comparison::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s))
    }
    /// Evaluate the comparison: IEEE ordered compares, so NaN gives false except for `ne`
    /// (instructions.md choice C7).
    #[inline(always)]
    pub fn test(self, a: f32, b: f32) -> bool {
        match self {
            Comparison::Gt => a > b,
            Comparison::Eq => a == b,
            Comparison::Ge => a >= b,
            Comparison::Lt => a < b,
            Comparison::Ne => a != b,
            Comparison::Le => a <= b,
        }
    }
}

/// One instruction, or a comment block (opcode [`Opcode::Comment`], payload in `imm`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instruction {
    /// What the instruction does.
    pub opcode: Opcode,
    /// Opcode-specific control bits 16-23 (comparison, texld project/bias).
    pub control: u8,
    /// Bit 30 (ps_1_x co-issue, printed as a leading `+`).
    pub coissue: bool,
    /// The destination operand, when the opcode has one.
    pub dst: Option<Dst>,
    /// The predicate token of a predicated instruction (bit 28).
    pub predicate: Option<Src>,
    /// The source operands in order (the labels of `call`, the sampler of `texld` among them).
    pub srcs: Vec<Src>,
    /// The usage token of a `dcl`.
    pub decl: Option<Decl>,
    /// Immediate DWORDs: def (4 f32 bits), defi (4 i32), defb (1), or a comment's payload.
    pub imm: Vec<u32>,
}

impl Instruction {
    /// An instruction of `opcode` with no operands, control bits or immediates.
    pub fn new(opcode: Opcode) -> Instruction {
        Instruction {
            opcode,
            control: 0,
            coissue: false,
            dst: None,
            predicate: None,
            srcs: Vec::new(),
            decl: None,
            imm: Vec::new(),
        }
    }
    /// The comparison of `ifc`, `breakc` or `setp`.
    pub fn comparison(&self) -> Option<Comparison> {
        Comparison::from_u8(self.control & 7)
    }

    /// The output channels (bit 0 = x) whose values source `k` feeds, before its swizzle:
    /// the write mask for component-wise instructions, fixed sets for dot products, macros
    /// and scalar instructions.
    pub fn src_channels(&self, k: usize) -> u8 {
        use Opcode::*;
        let mask = self.dst.map_or(0xF, |d| d.mask.0);
        match self.opcode {
            Dp3 | Nrm | Crs => 0b0111,
            Dp4 => 0xF,
            M4x4 | M4x3 | M3x4 | M3x3 | M3x2 => (1 << self.opcode.matrix_width().unwrap_or(4)) - 1,
            op if op.is_scalar() && k == 0 => 1,
            Pow | SinCos if k == 0 || self.opcode == Pow => 1,
            SinCos => 0,
            IfC | BreakC | If | BreakP | CallNz => 1,
            Lit => 0b1011,
            Dst if k == 0 => 0b0110,
            Dst => 0b1010,
            TexLdl if k == 0 => 0xF,
            Dp2Add if k < 2 => 0b0011,
            Dp2Add => 1,
            Tex | TexLdd | Dsx | Dsy | TexKill if k > 0 => 0,
            Loop | Rep | Call | Label => 0,
            Sgn if k > 0 => 0,
            _ => mask,
        }
    }

    /// The source components (bit 0 = x) that source `k` reads: [`Self::src_channels`]
    /// mapped through its swizzle.
    pub fn src_components(&self, k: usize) -> u8 {
        let channels = self.src_channels(k);
        let sw = self.srcs[k].swizzle;
        (0..4)
            .filter(|&c| channels >> c & 1 != 0)
            .fold(0, |m, c| m | 1 << sw.get(c))
    }
}

/// A whole shader: version token, then instructions and comment blocks in order. The end token
/// is implicit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shader {
    /// Its version token.
    pub version: Version,
    /// Its instructions and comment blocks, in token order.
    pub instructions: Vec<Instruction>,
}
