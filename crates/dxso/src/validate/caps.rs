//! Device capabilities that the rules depend on (`D3DCAPS9` fields, by their D3D names).

/// `D3DVS20CAPS_PREDICATION`.
pub const VS20CAPS_PREDICATION: u32 = 1 << 0;
/// `D3DPS20CAPS_*`.
pub const PS20CAPS_ARBITRARYSWIZZLE: u32 = 1 << 0;
/// `D3DPS20CAPS_GRADIENTINSTRUCTIONS`: `dsx`, `dsy` and `texldd`.
pub const PS20CAPS_GRADIENTINSTRUCTIONS: u32 = 1 << 1;
/// `D3DPS20CAPS_PREDICATION`: the predicate register `p0`.
pub const PS20CAPS_PREDICATION: u32 = 1 << 2;
/// `D3DPS20CAPS_NODEPENDENTREADLIMIT`: no limit on dependent texture reads.
pub const PS20CAPS_NODEPENDENTREADLIMIT: u32 = 1 << 3;
/// `D3DPS20CAPS_NOTEXINSTRUCTIONLIMIT`: no limit on texture instructions.
pub const PS20CAPS_NOTEXINSTRUCTIONLIMIT: u32 = 1 << 4;

/// `D3DVSHADERCAPS2_0` / `D3DPSHADERCAPS2_0` (the PS one adds `NumInstructionSlots`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct ShaderCaps2 {
    #[cfg_attr(feature = "serde", serde(rename = "Caps", default))]
    /// The `D3DVS20CAPS_*` / `D3DPS20CAPS_*` flags.
    pub caps: u32,
    #[cfg_attr(feature = "serde", serde(rename = "DynamicFlowControlDepth"))]
    /// How deep dynamic flow control may nest (0 in the 2_0 versions).
    pub dynamic_flow_control_depth: u32,
    #[cfg_attr(feature = "serde", serde(rename = "NumTemps"))]
    /// Temporaries (`r#`) available.
    pub num_temps: u32,
    #[cfg_attr(feature = "serde", serde(rename = "StaticFlowControlDepth"))]
    /// How deep static flow control (loops, calls) may nest.
    pub static_flow_control_depth: u32,
    /// Pixel shaders only (ps_2_x: 96..512).
    #[cfg_attr(feature = "serde", serde(rename = "NumInstructionSlots", default))]
    pub num_instruction_slots: u32,
}

/// The caps a validation profile uses. A JSON caps file names any of these fields by its
/// D3D9 name (`MaxVertexShaderConst`, `VS20Caps`: {`Caps`, `DynamicFlowControlDepth`,
/// `NumTemps`, `StaticFlowControlDepth`}, `PS20Caps` (+ `NumInstructionSlots`),
/// `MaxVertexShader30InstructionSlots`, `MaxPixelShader30InstructionSlots`,
/// `MaxVShaderInstructionsExecuted`); fields left out take the `max` preset's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct Caps {
    #[cfg_attr(feature = "serde", serde(rename = "MaxVertexShaderConst"))]
    /// `c#` registers a vertex shader may read.
    pub max_vertex_shader_const: u32,
    #[cfg_attr(feature = "serde", serde(rename = "VS20Caps"))]
    /// The vs_2_x caps.
    pub vs20: ShaderCaps2,
    #[cfg_attr(feature = "serde", serde(rename = "PS20Caps"))]
    /// The ps_2_x caps.
    pub ps20: ShaderCaps2,
    #[cfg_attr(feature = "serde", serde(rename = "MaxVertexShader30InstructionSlots"))]
    /// Instruction slots of a vs_3_0 shader (512 or more).
    pub max_vertex_shader30_instruction_slots: u32,
    #[cfg_attr(feature = "serde", serde(rename = "MaxPixelShader30InstructionSlots"))]
    /// Instruction slots of a ps_3_0 shader (512 or more).
    pub max_pixel_shader30_instruction_slots: u32,
    #[cfg_attr(feature = "serde", serde(rename = "MaxVShaderInstructionsExecuted"))]
    /// Instructions a vertex shader may execute per vertex (at least 65535).
    pub max_vshader_instructions_executed: u32,
}

impl Default for Caps {
    fn default() -> Self {
        Caps::max()
    }
}

impl Caps {
    /// Every optional feature, the highest limits D3D9 allows (dxso's own CPU device).
    pub fn max() -> Caps {
        Caps {
            max_vertex_shader_const: 8192,
            vs20: ShaderCaps2 {
                caps: VS20CAPS_PREDICATION,
                dynamic_flow_control_depth: 24,
                num_temps: 32,
                static_flow_control_depth: 4,
                num_instruction_slots: 0,
            },
            ps20: ShaderCaps2 {
                caps: PS20CAPS_ARBITRARYSWIZZLE
                    | PS20CAPS_GRADIENTINSTRUCTIONS
                    | PS20CAPS_PREDICATION
                    | PS20CAPS_NODEPENDENTREADLIMIT
                    | PS20CAPS_NOTEXINSTRUCTIONLIMIT,
                dynamic_flow_control_depth: 24,
                num_temps: 32,
                static_flow_control_depth: 4,
                num_instruction_slots: 512,
            },
            max_vertex_shader30_instruction_slots: 32768,
            max_pixel_shader30_instruction_slots: 32768,
            max_vshader_instructions_executed: 1 << 24,
        }
    }

    /// The smallest device each version allows.
    pub fn min() -> Caps {
        Caps {
            max_vertex_shader_const: 256,
            vs20: ShaderCaps2 {
                caps: 0,
                dynamic_flow_control_depth: 0,
                num_temps: 12,
                static_flow_control_depth: 1,
                num_instruction_slots: 0,
            },
            ps20: ShaderCaps2 {
                caps: 0,
                dynamic_flow_control_depth: 0,
                num_temps: 12,
                static_flow_control_depth: 0,
                num_instruction_slots: 96,
            },
            max_vertex_shader30_instruction_slots: 512,
            max_pixel_shader30_instruction_slots: 512,
            max_vshader_instructions_executed: 0xFFFF,
        }
    }

    /// Values outside what D3D9 defines for these fields.
    pub fn problems(&self) -> Vec<CapsProblem> {
        let mut out = Vec::new();
        let mut check = |field: &'static str, value: u32, min: u32, max: u32| {
            if !(min..=max).contains(&value) {
                out.push(CapsProblem {
                    field,
                    value,
                    min,
                    max,
                });
            }
        };
        check(
            "MaxVertexShaderConst",
            self.max_vertex_shader_const,
            256,
            8192,
        );
        check("VS20Caps.NumTemps", self.vs20.num_temps, 12, 32);
        check(
            "VS20Caps.DynamicFlowControlDepth",
            self.vs20.dynamic_flow_control_depth,
            0,
            24,
        );
        check(
            "VS20Caps.StaticFlowControlDepth",
            self.vs20.static_flow_control_depth,
            1,
            4,
        );
        check("PS20Caps.NumTemps", self.ps20.num_temps, 12, 32);
        check(
            "PS20Caps.DynamicFlowControlDepth",
            self.ps20.dynamic_flow_control_depth,
            0,
            24,
        );
        check(
            "PS20Caps.StaticFlowControlDepth",
            self.ps20.static_flow_control_depth,
            0,
            4,
        );
        check(
            "PS20Caps.NumInstructionSlots",
            self.ps20.num_instruction_slots,
            96,
            512,
        );
        check(
            "MaxVertexShader30InstructionSlots",
            self.max_vertex_shader30_instruction_slots,
            512,
            32768,
        );
        check(
            "MaxPixelShader30InstructionSlots",
            self.max_pixel_shader30_instruction_slots,
            512,
            32768,
        );
        check(
            "MaxVShaderInstructionsExecuted",
            self.max_vshader_instructions_executed,
            0xFFFF,
            u32::MAX,
        );
        out
    }

    /// A device as every face names one: `"max"`, `"min"`, or a JSON object of D3DCAPS9 fields
    /// (what a `--caps FILE.json` holds), checked with [`Caps::problems`].
    #[cfg(feature = "serde")]
    pub fn from_spec(spec: &str) -> Result<Caps, CapsError> {
        match spec.trim() {
            "max" => Ok(Caps::max()),
            "min" => Ok(Caps::min()),
            json if json.starts_with('{') => Caps::from_json(json),
            _ => Err(CapsError::Unknown),
        }
    }

    /// A JSON object of D3DCAPS9 fields (unknown fields refused), checked with
    /// [`Caps::problems`].
    #[cfg(feature = "serde")]
    pub fn from_json(json: &str) -> Result<Caps, CapsError> {
        let caps: Caps = serde_json::from_str(json).map_err(|e| CapsError::Json(e.to_string()))?;
        let problems = caps.problems();
        if problems.is_empty() {
            Ok(caps)
        } else {
            Err(CapsError::OutOfRange(problems))
        }
    }

    /// Whether vs_2_x may use the predicate register.
    pub fn vs_predication(&self) -> bool {
        self.vs20.caps & VS20CAPS_PREDICATION != 0
    }
    /// Whether ps_2_x may use the predicate register.
    pub fn ps_predication(&self) -> bool {
        self.ps20.caps & PS20CAPS_PREDICATION != 0
    }
}

/// A caps field outside what D3D9 defines for it ([`Caps::problems`]): `FIELD = VALUE is
/// outside MIN..MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field} = {value} is outside {min}..{max}")]
pub struct CapsProblem {
    /// The D3DCAPS9 field, as the JSON names it (`VS20Caps.NumTemps`).
    pub field: &'static str,
    /// Its value.
    pub value: u32,
    /// The least value D3D9 allows.
    pub min: u32,
    /// The greatest.
    pub max: u32,
}

/// Why a caps spec was refused (`Caps::from_spec`, `Caps::from_json`: the `serde` feature's);
/// the faces print it after `caps` and what named the caps (a file, a string, a dict).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CapsError {
    /// Neither `max`, `min` nor a JSON object.
    #[error("expected \"max\", \"min\" or a JSON object of D3DCAPS9 fields")]
    Unknown,
    /// Not JSON, or not the D3DCAPS9 fields (serde_json's message).
    #[error("{0}")]
    Json(String),
    /// Fields outside what D3D9 defines for them ([`Caps::problems`]).
    #[error("{}", .0.iter().map(CapsProblem::to_string).collect::<Vec<_>>().join("; "))]
    OutOfRange(Vec<CapsProblem>),
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    #[test]
    fn specs_by_name_and_as_json() {
        assert_eq!(Caps::from_spec("max"), Ok(Caps::max()));
        assert_eq!(Caps::from_spec(" min\n"), Ok(Caps::min()));
        let json = r#"{"MaxVertexShaderConst": 512}"#;
        let caps = Caps::from_spec(json).unwrap();
        assert_eq!(caps.max_vertex_shader_const, 512);
        assert_eq!(caps, Caps::from_json(json).unwrap());
        assert_eq!(
            Caps::from_spec("mid").unwrap_err().to_string(),
            r#"expected "max", "min" or a JSON object of D3DCAPS9 fields"#
        );
        assert_eq!(
            Caps::from_spec(r#"{"MaxVertexShaderConst": 5}"#)
                .unwrap_err()
                .to_string(),
            "MaxVertexShaderConst = 5 is outside 256..8192"
        );
        assert_eq!(
            Caps::from_json(
                r#"{"MaxVertexShaderConst": 5, "MaxPixelShader30InstructionSlots": 100}"#
            ),
            Err(CapsError::OutOfRange(vec![
                CapsProblem {
                    field: "MaxVertexShaderConst",
                    value: 5,
                    min: 256,
                    max: 8192
                },
                CapsProblem {
                    field: "MaxPixelShader30InstructionSlots",
                    value: 100,
                    min: 512,
                    max: 32768
                },
            ]))
        );
        assert_eq!(
            Caps::from_json(
                r#"{"MaxVertexShaderConst": 5, "MaxPixelShader30InstructionSlots": 100}"#
            )
            .unwrap_err()
            .to_string(),
            "MaxVertexShaderConst = 5 is outside 256..8192; \
             MaxPixelShader30InstructionSlots = 100 is outside 512..32768"
        );
        let unknown = Caps::from_json(r#"{"MaxVertexShaderConsts": 256}"#).unwrap_err();
        assert!(matches!(&unknown, CapsError::Json(m) if m.contains("MaxVertexShaderConsts")));
    }
}
