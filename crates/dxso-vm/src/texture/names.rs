//! Sampler states and texture kinds by name, as every face takes them (a scene's
//! `"samplers"`, Python's `set_sampler_state(n, address_u="clamp", ...)`): one reader, so the
//! names, the values each takes and the messages for a wrong one are the same everywhere.

use super::{SamplerState, TextureAddress, TextureFilter, TextureKind};

/// A sampler state's value as a face holds it: a name (`"LINEAR"`, `"clamp"`, a border colour
/// as hex `"0xff000000"`), a number, or a flag.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SamplerValue<'a> {
    /// A name: an address mode, a filter, or a colour in hex.
    Name(&'a str),
    /// A number: a count, a bias, a colour as a whole number.
    Number(f64),
    /// A flag (`srgb_texture`).
    Flag(bool),
}

/// Why [`SamplerState::set`] refused a state.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SamplerStateError {
    /// Not one of D3DSAMPLERSTATETYPE's names (in lower case, without `D3DSAMP_`).
    #[error("unknown sampler state {0:?}")]
    Unknown(String),
    /// The state's value is not one it takes.
    #[error("{state}: {problem}")]
    Value {
        /// The state's name.
        state: &'static str,
        /// What is wrong with the value, and what the state takes.
        problem: ValueProblem,
    },
}

/// What is wrong with a sampler state's value ([`SamplerStateError::Value`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ValueProblem {
    /// A value of another kind than the state takes: what it takes (`a number`, `a filter by
    /// name`, ...), and the value given.
    #[error("expected {expected}, not {found}")]
    Expected {
        /// What the state takes.
        expected: &'static str,
        /// The value given.
        found: FoundValue,
    },
    /// A name none of the state's values has: what the names are of (`address mode`,
    /// `filter`), and the name given.
    #[error("unknown {noun} {name:?}")]
    UnknownName {
        /// What the state's names name.
        noun: &'static str,
        /// The name given.
        name: String,
    },
    /// A border colour that is not hex (the text given).
    #[error("bad hex colour {0:?}")]
    BadHexColour(String),
}

/// A [`SamplerValue`] as an error keeps it: a name (printed quoted), a number or a flag.
#[derive(Clone, Debug, PartialEq)]
pub enum FoundValue {
    /// A name.
    Name(String),
    /// A number.
    Number(f64),
    /// A flag.
    Flag(bool),
}

impl From<SamplerValue<'_>> for FoundValue {
    fn from(v: SamplerValue<'_>) -> FoundValue {
        match v {
            SamplerValue::Name(s) => FoundValue::Name(s.to_string()),
            SamplerValue::Number(x) => FoundValue::Number(x),
            SamplerValue::Flag(b) => FoundValue::Flag(b),
        }
    }
}

impl std::fmt::Display for FoundValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FoundValue::Name(s) => write!(f, "{s:?}"),
            FoundValue::Number(x) => write!(f, "{x}"),
            FoundValue::Flag(b) => write!(f, "{b}"),
        }
    }
}

/// [`ValueProblem::Expected`]: `expected` was wanted, `found` given.
fn expected(expected: &'static str, found: SamplerValue) -> ValueProblem {
    ValueProblem::Expected {
        expected,
        found: found.into(),
    }
}

impl TextureKind {
    /// `"2d"`, `"cube"`, or `"volume"` (also `"3d"`), in any case.
    pub fn from_name(name: &str) -> Option<TextureKind> {
        match name.to_ascii_lowercase().as_str() {
            "2d" => Some(TextureKind::TwoD),
            "cube" => Some(TextureKind::Cube),
            "volume" | "3d" => Some(TextureKind::Volume),
            _ => None,
        }
    }
}

/// The names [`SamplerState::set`] takes, in D3DSAMPLERSTATETYPE's order.
pub const SAMPLER_STATES: [&str; 13] = [
    "address_u",
    "address_v",
    "address_w",
    "border_color",
    "mag_filter",
    "min_filter",
    "mip_filter",
    "mip_lod_bias",
    "max_mip_level",
    "max_anisotropy",
    "srgb_texture",
    "element_index",
    "dmap_offset",
];

impl SamplerState {
    /// Set the state `name` (D3DSAMPLERSTATETYPE's name in lower case: `address_u`,
    /// `min_filter`, `border_color`, ...) to `value`: address modes and filters by name
    /// (`"CLAMP"`, `"D3DTEXF_LINEAR"`, any case), `border_color` a D3DCOLOR as a number or hex,
    /// `mip_lod_bias` a number, `srgb_texture` a flag, the rest whole numbers.
    pub fn set(&mut self, name: &str, value: SamplerValue) -> Result<(), SamplerStateError> {
        let state = SAMPLER_STATES
            .iter()
            .copied()
            .find(|s| *s == name)
            .ok_or_else(|| SamplerStateError::Unknown(name.to_string()))?;
        let fail = |problem: ValueProblem| SamplerStateError::Value { state, problem };
        match state {
            "address_u" | "address_v" | "address_w" => {
                let mode = by_name(
                    value,
                    ("an address mode by name", "address mode"),
                    TextureAddress::from_name,
                )
                .map_err(fail)?;
                match state {
                    "address_u" => self.address_u = mode,
                    "address_v" => self.address_v = mode,
                    _ => self.address_w = mode,
                }
            }
            "mag_filter" | "min_filter" | "mip_filter" => {
                let filter = by_name(
                    value,
                    ("a filter by name", "filter"),
                    TextureFilter::from_name,
                )
                .map_err(fail)?;
                match state {
                    "mag_filter" => self.mag_filter = filter,
                    "min_filter" => self.min_filter = filter,
                    _ => self.mip_filter = filter,
                }
            }
            "border_color" => self.border_color = colour(value).map_err(fail)?,
            "mip_lod_bias" => match value {
                SamplerValue::Number(x) => self.mip_lod_bias = x as f32,
                other => return Err(fail(expected("a number", other))),
            },
            "srgb_texture" => match value {
                SamplerValue::Flag(b) => self.srgb_texture = b,
                other => return Err(fail(expected("true or false", other))),
            },
            "max_mip_level" => self.max_mip_level = whole(value).map_err(fail)?,
            "max_anisotropy" => self.max_anisotropy = whole(value).map_err(fail)?,
            "element_index" => self.element_index = whole(value).map_err(fail)?,
            _ => self.dmap_offset = whole(value).map_err(fail)?,
        }
        Ok(())
    }
}

/// A value by name: `what` is what the state takes and what its names are of (`("a filter
/// by name", "filter")`).
fn by_name<T>(
    v: SamplerValue,
    (takes, noun): (&'static str, &'static str),
    find: fn(&str) -> Option<T>,
) -> Result<T, ValueProblem> {
    match v {
        SamplerValue::Name(s) => find(s).ok_or_else(|| ValueProblem::UnknownName {
            noun,
            name: s.to_string(),
        }),
        other => Err(expected(takes, other)),
    }
}

/// A whole number from 0 to 2^32 - 1.
fn whole(v: SamplerValue) -> Result<u32, ValueProblem> {
    match v {
        SamplerValue::Number(x) if x.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&x) => {
            Ok(x as u32)
        }
        other => Err(expected("a whole number from 0 to 4294967295", other)),
    }
}

/// A D3DCOLOR: a whole number, or hex (`"0xff000000"`, `"ff000000"`).
fn colour(v: SamplerValue) -> Result<u32, ValueProblem> {
    match v {
        SamplerValue::Name(s) => {
            let digits = s.trim_start_matches("0x").trim_start_matches("0X");
            u32::from_str_radix(digits, 16).map_err(|_| ValueProblem::BadHexColour(s.to_string()))
        }
        other => whole(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SamplerValue::*;

    #[test]
    fn states_by_name_with_their_values() {
        let mut st = SamplerState::default();
        st.set("address_u", Name("clamp")).unwrap();
        st.set("address_v", Name("D3DTADDRESS_BORDER")).unwrap();
        st.set("min_filter", Name("LINEAR")).unwrap();
        st.set("border_color", Name("0xff000080")).unwrap();
        st.set("max_mip_level", Number(3.0)).unwrap();
        st.set("mip_lod_bias", Number(-0.5)).unwrap();
        st.set("srgb_texture", Flag(true)).unwrap();
        assert_eq!(st.address_u, TextureAddress::Clamp);
        assert_eq!(st.address_v, TextureAddress::Border);
        assert_eq!(st.min_filter, TextureFilter::Linear);
        assert_eq!(st.border_color, 0xff00_0080);
        assert_eq!((st.max_mip_level, st.mip_lod_bias), (3, -0.5));
        assert!(st.srgb_texture);
        st.set("border_color", Number(255.0)).unwrap();
        assert_eq!(st.border_color, 255);
    }

    #[test]
    fn wrong_names_and_values_say_what_was_expected() {
        let mut st = SamplerState::default();
        let e = |r: Result<(), SamplerStateError>| r.unwrap_err().to_string();
        assert_eq!(
            e(st.set("adress_u", Name("clamp"))),
            "unknown sampler state \"adress_u\""
        );
        assert_eq!(
            e(st.set("address_u", Name("clmp"))),
            "address_u: unknown address mode \"clmp\""
        );
        assert_eq!(
            e(st.set("mag_filter", Number(1.0))),
            "mag_filter: expected a filter by name, not 1"
        );
        assert_eq!(
            e(st.set("border_color", Name("0xgg"))),
            "border_color: bad hex colour \"0xgg\""
        );
        assert_eq!(
            e(st.set("max_mip_level", Number(1.5))),
            "max_mip_level: expected a whole number from 0 to 4294967295, not 1.5"
        );
        assert_eq!(
            e(st.set("srgb_texture", Number(1.0))),
            "srgb_texture: expected true or false, not 1"
        );
        assert_eq!(st, SamplerState::default());
        assert_eq!(
            st.set("address_u", Name("clmp")),
            Err(SamplerStateError::Value {
                state: "address_u",
                problem: ValueProblem::UnknownName {
                    noun: "address mode",
                    name: "clmp".into()
                }
            })
        );
        assert_eq!(
            st.set("max_mip_level", Number(1.5)),
            Err(SamplerStateError::Value {
                state: "max_mip_level",
                problem: ValueProblem::Expected {
                    expected: "a whole number from 0 to 4294967295",
                    found: FoundValue::Number(1.5)
                }
            })
        );
        assert_eq!(
            e(st.set("mip_lod_bias", Name("x"))),
            "mip_lod_bias: expected a number, not \"x\""
        );
        assert_eq!(
            e(st.set("min_filter", Flag(true))),
            "min_filter: expected a filter by name, not true"
        );
    }

    #[test]
    fn texture_kinds_by_name() {
        assert_eq!(TextureKind::from_name("2D"), Some(TextureKind::TwoD));
        assert_eq!(TextureKind::from_name("cube"), Some(TextureKind::Cube));
        assert_eq!(TextureKind::from_name("3d"), Some(TextureKind::Volume));
        assert_eq!(TextureKind::from_name("volume"), Some(TextureKind::Volume));
        assert_eq!(TextureKind::from_name("1d"), None);
    }
}
