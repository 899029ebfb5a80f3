//! A scene's constants (`constants` for the vertex shader, `pixel_constants` for the pixel
//! shader): keys `c#` (4 numbers), `i#` (4 integers), `b#` (`true`/`false`), or a name from
//! the shader's constant table (its values in HLSL order, a matrix row by row).

use super::{Context, SceneError, float, four};
use dxso_vm::{Device, PixelState, VmError};
use serde_json::Value;
use std::collections::BTreeMap;

/// Where constants go: the vertex stage's device or a pixel shader's state.
pub(crate) trait ConstantSink {
    fn set_f(&mut self, n: u32, v: [f32; 4]) -> Result<(), VmError>;
    fn set_i(&mut self, n: u32, v: [i32; 4]) -> Result<(), VmError>;
    fn set_b(&mut self, n: u32, v: bool) -> Result<(), VmError>;
    fn set_by_name(&mut self, name: &str, values: &[f32]) -> Result<(), VmError>;
}

impl ConstantSink for Device {
    fn set_f(&mut self, n: u32, v: [f32; 4]) -> Result<(), VmError> {
        self.set_constant_f(n, &[v])
    }
    fn set_i(&mut self, n: u32, v: [i32; 4]) -> Result<(), VmError> {
        self.set_constant_i(n, &[v])
    }
    fn set_b(&mut self, n: u32, v: bool) -> Result<(), VmError> {
        self.set_constant_b(n, &[v])
    }
    fn set_by_name(&mut self, name: &str, values: &[f32]) -> Result<(), VmError> {
        self.set_constant_by_name(name, values)
    }
}

impl ConstantSink for PixelState {
    fn set_f(&mut self, n: u32, v: [f32; 4]) -> Result<(), VmError> {
        self.set_constant_f(n, &[v])
    }
    fn set_i(&mut self, n: u32, v: [i32; 4]) -> Result<(), VmError> {
        self.set_constant_i(n, &[v])
    }
    fn set_b(&mut self, n: u32, v: bool) -> Result<(), VmError> {
        self.set_constant_b(n, &[v])
    }
    fn set_by_name(&mut self, name: &str, values: &[f32]) -> Result<(), VmError> {
        self.set_constant_by_name(name, values)
    }
}

/// Set every constant of `constants` (the scene field `field`) on `sink`.
pub(crate) fn apply(
    sink: &mut impl ConstantSink,
    constants: &BTreeMap<String, Value>,
    field: &str,
) -> Result<(), SceneError> {
    for (key, v) in constants {
        let (file, n) = key.split_at(1.min(key.len()));
        let Some(n) = n
            .parse::<u32>()
            .ok()
            .filter(|_| matches!(file, "c" | "i" | "b"))
        else {
            set_by_name(sink, key, v, field)?;
            continue;
        };
        match file {
            "c" => sink.set_f(n, four(v, key, float).context(field)?),
            "i" => sink.set_i(
                n,
                four(v, key, |x| {
                    x.as_i64()
                        .and_then(|i| i32::try_from(i).ok())
                        .ok_or_else(|| {
                            SceneError::new(format!("expected a 32-bit integer, found {x}"))
                        })
                })
                .context(field)?,
            ),
            _ => sink.set_b(
                n,
                v.as_bool().ok_or_else(|| {
                    SceneError::new(format!("{field}: {key} must be true or false"))
                })?,
            ),
        }
        .context(field)?;
    }
    Ok(())
}

/// A key that is not a register names a parameter of the shader's constant table
/// (`"WorldViewProj"`, `"cLightInfo[1].pos"`): its values in HLSL order, a matrix row by row
/// (`true`/`false` count as 1 and 0; one number may stand alone).
fn set_by_name(
    sink: &mut impl ConstantSink,
    key: &str,
    v: &Value,
    field: &str,
) -> Result<(), SceneError> {
    let one = std::slice::from_ref(v);
    let items = v.as_array().map_or(one, Vec::as_slice);
    let values: Vec<f32> = items
        .iter()
        .map(|x| match x {
            Value::Bool(b) => Ok(*b as u8 as f32),
            x => float(x),
        })
        .collect::<Result<_, _>>()
        .with_context(|| format!("{field}: {key}"))?;
    sink.set_by_name(key, &values)
        .with_context(|| format!("{field}: {key:?}"))
}
