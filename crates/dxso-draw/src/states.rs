//! Render states and texture stage states: D3D9's DWORD-valued state blocks, by their
//! `D3DRENDERSTATETYPE` / `D3DTEXTURESTAGESTATETYPE` numbers, with D3D9's defaults, set by name
//! as `SetRenderState` / `SetTextureStageState` set them.
//!
//! A state holds a DWORD, as on a device: float-valued states hold the float's bits
//! (`FOGSTART`, `POINTSIZE`, `DEPTHBIAS`, ...), enums their `D3D*` numbers. Readers take what a
//! device takes from the DWORD (`ALPHAREF` 0xff70 compares as 0x70).

use crate::DrawError;

/// How a state's value is written by name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    Bool,
    /// Enum names (without their `D3D*_` prefix) with their numbers.
    Enum(&'static [(&'static str, u32)]),
    Float,
    /// A DWORD: a number, or a colour/mask as `"0x..."`.
    Dword,
}

const CMP: &[(&str, u32)] = &[
    ("NEVER", 1),
    ("LESS", 2),
    ("EQUAL", 3),
    ("LESSEQUAL", 4),
    ("GREATER", 5),
    ("NOTEQUAL", 6),
    ("GREATEREQUAL", 7),
    ("ALWAYS", 8),
];
const BLEND: &[(&str, u32)] = &[
    ("ZERO", 1),
    ("ONE", 2),
    ("SRCCOLOR", 3),
    ("INVSRCCOLOR", 4),
    ("SRCALPHA", 5),
    ("INVSRCALPHA", 6),
    ("DESTALPHA", 7),
    ("INVDESTALPHA", 8),
    ("DESTCOLOR", 9),
    ("INVDESTCOLOR", 10),
    ("SRCALPHASAT", 11),
    ("BOTHSRCALPHA", 12),
    ("BOTHINVSRCALPHA", 13),
    ("BLENDFACTOR", 14),
    ("INVBLENDFACTOR", 15),
];
const BLENDOP: &[(&str, u32)] = &[
    ("ADD", 1),
    ("SUBTRACT", 2),
    ("REVSUBTRACT", 3),
    ("MIN", 4),
    ("MAX", 5),
];
const STENCILOP: &[(&str, u32)] = &[
    ("KEEP", 1),
    ("ZERO", 2),
    ("REPLACE", 3),
    ("INCRSAT", 4),
    ("DECRSAT", 5),
    ("INVERT", 6),
    ("INCR", 7),
    ("DECR", 8),
];
const FOGMODE: &[(&str, u32)] = &[("NONE", 0), ("EXP", 1), ("EXP2", 2), ("LINEAR", 3)];
const ZB: &[(&str, u32)] = &[("FALSE", 0), ("TRUE", 1), ("USEW", 2)];
const FILL: &[(&str, u32)] = &[("POINT", 1), ("WIREFRAME", 2), ("SOLID", 3)];
const SHADE: &[(&str, u32)] = &[("FLAT", 1), ("GOURAUD", 2), ("PHONG", 3)];
const CULL: &[(&str, u32)] = &[("NONE", 1), ("CW", 2), ("CCW", 3)];
const MCS: &[(&str, u32)] = &[("MATERIAL", 0), ("COLOR1", 1), ("COLOR2", 2)];
const VBLEND: &[(&str, u32)] = &[
    ("DISABLE", 0),
    ("1WEIGHTS", 1),
    ("2WEIGHTS", 2),
    ("3WEIGHTS", 3),
    ("TWEENING", 255),
    ("0WEIGHTS", 256),
];
const DEGREE: &[(&str, u32)] = &[
    ("LINEAR", 1),
    ("QUADRATIC", 2),
    ("CUBIC", 3),
    ("QUINTIC", 5),
];
const PATCHEDGE: &[(&str, u32)] = &[("DISCRETE", 0), ("CONTINUOUS", 1)];

/// `(name, D3DRS number, kind, default DWORD)` for every render state D3D9 defines. Defaults
/// are D3D9's (the `D3DRENDERSTATETYPE` reference page); `ZENABLE`'s depends on whether a
/// depth-stencil surface is bound (`RenderStates::new`).
pub(crate) const RENDER_STATES: &[(&str, u32, Kind, u32)] = &[
    ("ZENABLE", 7, Kind::Enum(ZB), 1),
    ("FILLMODE", 8, Kind::Enum(FILL), 3),
    ("SHADEMODE", 9, Kind::Enum(SHADE), 2),
    ("ZWRITEENABLE", 14, Kind::Bool, 1),
    ("ALPHATESTENABLE", 15, Kind::Bool, 0),
    ("LASTPIXEL", 16, Kind::Bool, 1),
    ("SRCBLEND", 19, Kind::Enum(BLEND), 2),
    ("DESTBLEND", 20, Kind::Enum(BLEND), 1),
    ("CULLMODE", 22, Kind::Enum(CULL), 3),
    ("ZFUNC", 23, Kind::Enum(CMP), 4),
    ("ALPHAREF", 24, Kind::Dword, 0),
    ("ALPHAFUNC", 25, Kind::Enum(CMP), 8),
    ("DITHERENABLE", 26, Kind::Bool, 0),
    ("ALPHABLENDENABLE", 27, Kind::Bool, 0),
    ("FOGENABLE", 28, Kind::Bool, 0),
    ("SPECULARENABLE", 29, Kind::Bool, 0),
    ("FOGCOLOR", 34, Kind::Dword, 0),
    ("FOGTABLEMODE", 35, Kind::Enum(FOGMODE), 0),
    ("FOGSTART", 36, Kind::Float, 0x0000_0000),
    ("FOGEND", 37, Kind::Float, 0x3f80_0000),
    ("FOGDENSITY", 38, Kind::Float, 0x3f80_0000),
    ("RANGEFOGENABLE", 48, Kind::Bool, 0),
    ("STENCILENABLE", 52, Kind::Bool, 0),
    ("STENCILFAIL", 53, Kind::Enum(STENCILOP), 1),
    ("STENCILZFAIL", 54, Kind::Enum(STENCILOP), 1),
    ("STENCILPASS", 55, Kind::Enum(STENCILOP), 1),
    ("STENCILFUNC", 56, Kind::Enum(CMP), 8),
    ("STENCILREF", 57, Kind::Dword, 0),
    ("STENCILMASK", 58, Kind::Dword, 0xffff_ffff),
    ("STENCILWRITEMASK", 59, Kind::Dword, 0xffff_ffff),
    ("TEXTUREFACTOR", 60, Kind::Dword, 0xffff_ffff),
    ("WRAP0", 128, Kind::Dword, 0),
    ("WRAP1", 129, Kind::Dword, 0),
    ("WRAP2", 130, Kind::Dword, 0),
    ("WRAP3", 131, Kind::Dword, 0),
    ("WRAP4", 132, Kind::Dword, 0),
    ("WRAP5", 133, Kind::Dword, 0),
    ("WRAP6", 134, Kind::Dword, 0),
    ("WRAP7", 135, Kind::Dword, 0),
    ("CLIPPING", 136, Kind::Bool, 1),
    ("LIGHTING", 137, Kind::Bool, 1),
    ("AMBIENT", 139, Kind::Dword, 0),
    ("FOGVERTEXMODE", 140, Kind::Enum(FOGMODE), 0),
    ("COLORVERTEX", 141, Kind::Bool, 1),
    ("LOCALVIEWER", 142, Kind::Bool, 1),
    ("NORMALIZENORMALS", 143, Kind::Bool, 0),
    ("DIFFUSEMATERIALSOURCE", 145, Kind::Enum(MCS), 1),
    ("SPECULARMATERIALSOURCE", 146, Kind::Enum(MCS), 2),
    ("AMBIENTMATERIALSOURCE", 147, Kind::Enum(MCS), 0),
    ("EMISSIVEMATERIALSOURCE", 148, Kind::Enum(MCS), 0),
    ("VERTEXBLEND", 151, Kind::Enum(VBLEND), 0),
    ("CLIPPLANEENABLE", 152, Kind::Dword, 0),
    ("POINTSIZE", 154, Kind::Float, 0x3f80_0000),
    ("POINTSIZE_MIN", 155, Kind::Float, 0x3f80_0000),
    ("POINTSPRITEENABLE", 156, Kind::Bool, 0),
    ("POINTSCALEENABLE", 157, Kind::Bool, 0),
    ("POINTSCALE_A", 158, Kind::Float, 0x3f80_0000),
    ("POINTSCALE_B", 159, Kind::Float, 0),
    ("POINTSCALE_C", 160, Kind::Float, 0),
    ("MULTISAMPLEANTIALIAS", 161, Kind::Bool, 1),
    ("MULTISAMPLEMASK", 162, Kind::Dword, 0xffff_ffff),
    ("PATCHEDGESTYLE", 163, Kind::Enum(PATCHEDGE), 0),
    ("DEBUGMONITORTOKEN", 165, Kind::Dword, 0),
    ("POINTSIZE_MAX", 166, Kind::Float, 0x4280_0000),
    ("INDEXEDVERTEXBLENDENABLE", 167, Kind::Bool, 0),
    ("COLORWRITEENABLE", 168, Kind::Dword, 0xf),
    ("TWEENFACTOR", 170, Kind::Float, 0),
    ("BLENDOP", 171, Kind::Enum(BLENDOP), 1),
    ("POSITIONDEGREE", 172, Kind::Enum(DEGREE), 3),
    ("NORMALDEGREE", 173, Kind::Enum(DEGREE), 1),
    ("SCISSORTESTENABLE", 174, Kind::Bool, 0),
    ("SLOPESCALEDEPTHBIAS", 175, Kind::Float, 0),
    ("ANTIALIASEDLINEENABLE", 176, Kind::Bool, 0),
    ("MINTESSELLATIONLEVEL", 178, Kind::Float, 0x3f80_0000),
    ("MAXTESSELLATIONLEVEL", 179, Kind::Float, 0x3f80_0000),
    ("ADAPTIVETESS_X", 180, Kind::Float, 0),
    ("ADAPTIVETESS_Y", 181, Kind::Float, 0),
    ("ADAPTIVETESS_Z", 182, Kind::Float, 0x3f80_0000),
    ("ADAPTIVETESS_W", 183, Kind::Float, 0),
    ("ENABLEADAPTIVETESSELLATION", 184, Kind::Bool, 0),
    ("TWOSIDEDSTENCILMODE", 185, Kind::Bool, 0),
    ("CCW_STENCILFAIL", 186, Kind::Enum(STENCILOP), 1),
    ("CCW_STENCILZFAIL", 187, Kind::Enum(STENCILOP), 1),
    ("CCW_STENCILPASS", 188, Kind::Enum(STENCILOP), 1),
    ("CCW_STENCILFUNC", 189, Kind::Enum(CMP), 8),
    ("COLORWRITEENABLE1", 190, Kind::Dword, 0xf),
    ("COLORWRITEENABLE2", 191, Kind::Dword, 0xf),
    ("COLORWRITEENABLE3", 192, Kind::Dword, 0xf),
    ("BLENDFACTOR", 193, Kind::Dword, 0xffff_ffff),
    ("SRGBWRITEENABLE", 194, Kind::Bool, 0),
    ("DEPTHBIAS", 195, Kind::Float, 0),
    ("WRAP8", 198, Kind::Dword, 0),
    ("WRAP9", 199, Kind::Dword, 0),
    ("WRAP10", 200, Kind::Dword, 0),
    ("WRAP11", 201, Kind::Dword, 0),
    ("WRAP12", 202, Kind::Dword, 0),
    ("WRAP13", 203, Kind::Dword, 0),
    ("WRAP14", 204, Kind::Dword, 0),
    ("WRAP15", 205, Kind::Dword, 0),
    ("SEPARATEALPHABLENDENABLE", 206, Kind::Bool, 0),
    ("SRCBLENDALPHA", 207, Kind::Enum(BLEND), 2),
    ("DESTBLENDALPHA", 208, Kind::Enum(BLEND), 1),
    ("BLENDOPALPHA", 209, Kind::Enum(BLENDOP), 1),
];

/// A state's value as a scene (or any caller) writes it, before it becomes a DWORD.
#[derive(Clone, Debug, PartialEq)]
pub enum StateValue {
    /// `true` or `false` (TRUE is 1).
    Bool(bool),
    /// An enum's name without its prefix (`"CCW"`, `"SRCALPHA"`), or a DWORD as `"0x..."`.
    Name(String),
    /// The float itself for float-valued states, else the DWORD.
    Number(f64),
    /// A float state's exact DWORD (`{"bits": "0x3f800000"}`).
    Bits(u32),
}

/// Parse `"0x1234abcd"` (a colour or mask) into a DWORD.
pub fn parse_hex(s: &str) -> Option<u32> {
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    if h.is_empty() || h.len() > 8 {
        return None;
    }
    u32::from_str_radix(h, 16).ok()
}

fn dword(what: &str, value: &StateValue, kind: Kind) -> Result<u32, DrawError> {
    let bad = |why: &str| DrawError::State(format!("{what}: {why}"));
    Ok(match (kind, value) {
        (Kind::Float, StateValue::Number(x)) => (*x as f32).to_bits(),
        (Kind::Float | Kind::Dword, StateValue::Bits(b)) => *b,
        (_, StateValue::Bool(b)) if kind == Kind::Bool => *b as u32,
        (Kind::Bool, StateValue::Number(x)) if *x == 0.0 || *x == 1.0 => *x as u32,
        // ZENABLE: D3DZB_TRUE / D3DZB_FALSE.
        (Kind::Enum(names), StateValue::Bool(b)) if names.iter().any(|(n, _)| *n == "TRUE") => {
            *b as u32
        }
        (Kind::Enum(names), StateValue::Name(n)) => names
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(n))
            .map(|&(_, v)| v)
            .ok_or_else(|| {
                let all: Vec<&str> = names.iter().map(|(name, _)| *name).collect();
                bad(&format!("unknown value {n:?} (one of {})", all.join(", ")))
            })?,
        (Kind::Enum(names), StateValue::Number(x)) => names
            .iter()
            .find(|&&(_, v)| v as f64 == *x)
            .map(|&(_, v)| v)
            .ok_or_else(|| bad(&format!("{x} is not one of its values")))?,
        (Kind::Dword, StateValue::Number(x))
            if x.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(x) =>
        {
            *x as u32
        }
        (Kind::Dword, StateValue::Name(n)) => parse_hex(n)
            .ok_or_else(|| bad(&format!("{n:?} is not a DWORD (\"0x...\" or a number)")))?,
        (Kind::Bool, _) => return Err(bad("expects true or false")),
        (Kind::Float, _) => return Err(bad("expects a number or {\"bits\": \"0x...\"}")),
        (Kind::Enum(_), _) => return Err(bad("expects one of its value names")),
        (Kind::Dword, _) => return Err(bad("expects a non-negative integer or \"0x...\"")),
    })
}

/// The render states of one draw: every `D3DRS_*` DWORD, D3D9's defaults until set.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderStates {
    values: [u32; 256],
}

impl RenderStates {
    /// D3D9's defaults. `ZENABLE` defaults to TRUE when the device has a depth-stencil surface
    /// (an automatic depth stencil) and FALSE otherwise.
    pub fn new(depth_stencil: bool) -> RenderStates {
        let mut values = [0u32; 256];
        for &(_, n, _, d) in RENDER_STATES {
            values[n as usize] = d;
        }
        values[7] = depth_stencil as u32;
        RenderStates { values }
    }

    /// Set a state by its name without `D3DRS_` (case-insensitive), as `SetRenderState` does.
    /// Unknown names and values are errors that name them.
    pub fn set(&mut self, name: &str, value: &StateValue) -> Result<(), DrawError> {
        let &(canonical, n, kind, _) = RENDER_STATES
            .iter()
            .find(|(s, ..)| s.eq_ignore_ascii_case(name))
            .ok_or_else(|| DrawError::State(format!("unknown render state {name:?}")))?;
        self.values[n as usize] = dword(canonical, value, kind)?;
        Ok(())
    }

    /// A state's DWORD by its `D3DRS_*` number.
    pub fn get(&self, n: u32) -> u32 {
        self.values.get(n as usize).copied().unwrap_or(0)
    }

    /// A state's DWORD by name (`None`: no such state).
    pub fn get_by_name(&self, name: &str) -> Option<u32> {
        RENDER_STATES
            .iter()
            .find(|(s, ..)| s.eq_ignore_ascii_case(name))
            .map(|&(_, n, ..)| self.get(n))
    }

    pub(crate) fn flag(&self, n: u32) -> bool {
        self.get(n) != 0
    }

    pub(crate) fn float(&self, n: u32) -> f32 {
        f32::from_bits(self.get(n))
    }
}

/// `D3DRS_*` numbers the pipelines read (the CPU draw here, the GPU draw in dxso-gpu).
// Each constant is D3DRENDERSTATETYPE's value under its own name: the name is its doc.
#[allow(missing_docs)]
pub mod rs {
    pub const ZENABLE: u32 = 7;
    pub const SHADEMODE: u32 = 9;
    pub const ZWRITEENABLE: u32 = 14;
    pub const ALPHATESTENABLE: u32 = 15;
    pub const LASTPIXEL: u32 = 16;
    pub const SRCBLEND: u32 = 19;
    pub const DESTBLEND: u32 = 20;
    pub const CULLMODE: u32 = 22;
    pub const ZFUNC: u32 = 23;
    pub const ALPHAREF: u32 = 24;
    pub const ALPHAFUNC: u32 = 25;
    pub const ALPHABLENDENABLE: u32 = 27;
    pub const FOGENABLE: u32 = 28;
    pub const SPECULARENABLE: u32 = 29;
    pub const FOGCOLOR: u32 = 34;
    pub const FOGTABLEMODE: u32 = 35;
    pub const FOGSTART: u32 = 36;
    pub const FOGEND: u32 = 37;
    pub const FOGDENSITY: u32 = 38;
    pub const STENCILENABLE: u32 = 52;
    pub const STENCILFAIL: u32 = 53;
    pub const STENCILZFAIL: u32 = 54;
    pub const STENCILPASS: u32 = 55;
    pub const STENCILFUNC: u32 = 56;
    pub const STENCILREF: u32 = 57;
    pub const STENCILMASK: u32 = 58;
    pub const STENCILWRITEMASK: u32 = 59;
    pub const CLIPPLANEENABLE: u32 = 152;
    pub const POINTSIZE: u32 = 154;
    pub const POINTSIZE_MIN: u32 = 155;
    pub const POINTSPRITEENABLE: u32 = 156;
    pub const POINTSIZE_MAX: u32 = 166;
    pub const COLORWRITEENABLE: u32 = 168;
    pub const BLENDOP: u32 = 171;
    pub const SCISSORTESTENABLE: u32 = 174;
    pub const SLOPESCALEDEPTHBIAS: u32 = 175;
    pub const TWOSIDEDSTENCILMODE: u32 = 185;
    pub const CCW_STENCILFAIL: u32 = 186;
    pub const CCW_STENCILZFAIL: u32 = 187;
    pub const CCW_STENCILPASS: u32 = 188;
    pub const CCW_STENCILFUNC: u32 = 189;
    pub const COLORWRITEENABLE1: u32 = 190;
    pub const BLENDFACTOR: u32 = 193;
    pub const SRGBWRITEENABLE: u32 = 194;
    pub const DEPTHBIAS: u32 = 195;
    pub const SEPARATEALPHABLENDENABLE: u32 = 206;
    pub const SRCBLENDALPHA: u32 = 207;
    pub const DESTBLENDALPHA: u32 = 208;
    pub const BLENDOPALPHA: u32 = 209;
}

/// The texture stage states a draw's ps_1_x shader reads, per stage, by name without
/// `D3DTSS_` (`BUMPENVMAT00`, `BUMPENVLSCALE`, `TEXTURETRANSFORMFLAGS`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct StageStates {
    /// BUMPENVMAT00, 01, 10, 11.
    pub bump_env_mat: [f32; 4],
    /// BUMPENVLSCALE (`texbeml`'s luminance scale).
    pub bump_env_lscale: f32,
    /// BUMPENVLOFFSET (`texbeml`'s luminance offset).
    pub bump_env_loffset: f32,
    /// `D3DTSS_TEXTURETRANSFORMFLAGS` (`D3DTTFF_COUNT1..4`, `| D3DTTFF_PROJECTED` = 256).
    pub texture_transform_flags: u32,
    /// `D3DTSS_TEXCOORDINDEX` (defaults to the stage's own number; see `stage_defaults`).
    pub texcoord_index: u32,
}

const TTFF: &[(&str, u32)] = &[
    ("DISABLE", 0),
    ("COUNT1", 1),
    ("COUNT2", 2),
    ("COUNT3", 3),
    ("COUNT4", 4),
    ("PROJECTED", 256),
];

impl StageStates {
    /// D3D9's defaults for stage `n` (`TEXCOORDINDEX` = n, the rest 0).
    pub fn defaults(n: u32) -> StageStates {
        StageStates {
            texcoord_index: n,
            ..StageStates::default()
        }
    }

    /// Set one state by name. `TEXTURETRANSFORMFLAGS` takes a flag name, `"COUNT3|PROJECTED"`
    /// style combinations, or the DWORD.
    pub fn set(&mut self, name: &str, value: &StateValue) -> Result<(), DrawError> {
        let upper = name.to_ascii_uppercase();
        let float = |v: &StateValue| -> Result<f32, DrawError> {
            Ok(f32::from_bits(dword(&upper, v, Kind::Float)?))
        };
        match upper.as_str() {
            "BUMPENVMAT00" => self.bump_env_mat[0] = float(value)?,
            "BUMPENVMAT01" => self.bump_env_mat[1] = float(value)?,
            "BUMPENVMAT10" => self.bump_env_mat[2] = float(value)?,
            "BUMPENVMAT11" => self.bump_env_mat[3] = float(value)?,
            "BUMPENVLSCALE" => self.bump_env_lscale = float(value)?,
            "BUMPENVLOFFSET" => self.bump_env_loffset = float(value)?,
            "TEXCOORDINDEX" => self.texcoord_index = dword(&upper, value, Kind::Dword)?,
            "TEXTURETRANSFORMFLAGS" => {
                self.texture_transform_flags = match value {
                    StateValue::Name(n) if parse_hex(n).is_none() => {
                        let mut flags = 0;
                        for part in n.split('|') {
                            flags |= dword(
                                &upper,
                                &StateValue::Name(part.trim().into()),
                                Kind::Enum(TTFF),
                            )?;
                        }
                        flags
                    }
                    v => dword(&upper, v, Kind::Dword)?,
                }
            }
            _ => {
                return Err(DrawError::State(format!(
                    "unknown texture stage state {name:?} (BUMPENVMAT00..11, BUMPENVLSCALE, BUMPENVLOFFSET, TEXTURETRANSFORMFLAGS, TEXCOORDINDEX)"
                )));
            }
        }
        Ok(())
    }

    /// Whether `D3DTTFF_PROJECTED` is set.
    pub fn projected(&self) -> bool {
        self.texture_transform_flags & 256 != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_d3d9s() {
        let s = RenderStates::new(true);
        assert_eq!(s.get(rs::CULLMODE), 3);
        assert_eq!(s.get(rs::ZFUNC), 4);
        assert_eq!(s.get(rs::ZENABLE), 1);
        assert_eq!(RenderStates::new(false).get(rs::ZENABLE), 0);
        assert_eq!(s.float(rs::FOGEND), 1.0);
        assert_eq!(s.float(rs::POINTSIZE_MAX), 64.0);
        assert_eq!(s.get(rs::COLORWRITEENABLE), 0xf);
        assert_eq!(s.get(rs::STENCILMASK), u32::MAX);
    }

    #[test]
    fn values_by_name() {
        let mut s = RenderStates::new(true);
        s.set("cullmode", &StateValue::Name("none".into())).unwrap();
        assert_eq!(s.get(rs::CULLMODE), 1);
        s.set("FOGSTART", &StateValue::Number(0.25)).unwrap();
        assert_eq!(s.float(rs::FOGSTART), 0.25);
        s.set("FOGEND", &StateValue::Bits(0x4000_0000)).unwrap();
        assert_eq!(s.float(rs::FOGEND), 2.0);
        s.set("FOGCOLOR", &StateValue::Name("0xff00ff00".into()))
            .unwrap();
        assert_eq!(s.get(rs::FOGCOLOR), 0xff00_ff00);
        s.set("ALPHAREF", &StateValue::Number(65392.0)).unwrap();
        assert_eq!(s.get(rs::ALPHAREF), 0xff70);
        s.set("ZENABLE", &StateValue::Bool(false)).unwrap();
        assert_eq!(s.get(rs::ZENABLE), 0);
    }

    #[test]
    fn errors_name_what_is_wrong() {
        let mut s = RenderStates::new(true);
        let e = s.set("CULLMOD", &StateValue::Bool(true)).unwrap_err();
        assert!(e.to_string().contains("CULLMOD"), "{e}");
        let e = s
            .set("CULLMODE", &StateValue::Name("SIDEWAYS".into()))
            .unwrap_err();
        assert!(
            e.to_string().contains("SIDEWAYS") && e.to_string().contains("CCW"),
            "{e}"
        );
        assert!(s.set("FOGSTART", &StateValue::Bool(true)).is_err());
        assert!(s.set("STENCILREF", &StateValue::Number(-1.0)).is_err());
        assert!(s.set("STENCILREF", &StateValue::Number(1.5)).is_err());
    }

    #[test]
    fn stage_states() {
        let mut st = StageStates::defaults(2);
        assert_eq!(st.texcoord_index, 2);
        st.set("BUMPENVMAT01", &StateValue::Number(-0.5)).unwrap();
        assert_eq!(st.bump_env_mat, [0.0, -0.5, 0.0, 0.0]);
        st.set(
            "TEXTURETRANSFORMFLAGS",
            &StateValue::Name("COUNT3|PROJECTED".into()),
        )
        .unwrap();
        assert_eq!(st.texture_transform_flags, 259);
        assert!(st.projected());
        assert!(st.set("BUMPENVMAT22", &StateValue::Number(1.0)).is_err());
    }
}
