//! Constants by name: the setters `ID3DXConstantTable` gives a D3D9 program
//! (`SetFloatArray`, `SetVector`, `SetMatrix`, `SetIntArray`, `SetBoolArray`), resolved through
//! the bound shader's constant table ([`dxso::ctab`]).
//!
//! Values come in HLSL order: array elements in turn, a matrix row by row (`m[0][0]`,
//! `m[0][1]`, ...), struct members in declaration order. D3D9's rule places them: a
//! `MATRIX_ROWS` matrix (`row_major`) puts row `k` in register `k`; a `MATRIX_COLUMNS` matrix
//! (HLSL's default) puts column `k` in register `k`; a `bool` in `b#` takes one register per
//! component. Values are converted to the register file as D3DX does: into `c#` as floats
//! (`true` is 1.0), into `i#` as integers (floats rounded to nearest, halves away from zero),
//! into `b#` as booleans (non-zero is true). Register components the type does not cover are
//! left as they are; values past the registers the compiler assigned are dropped.

use crate::{Device, VmError};
use dxso::ctab::{ConstantDesc, RegisterSet};

/// One value of any kind, converted to the register file it lands in.
#[derive(Clone, Copy)]
enum Value {
    F(f32),
    I(i32),
    B(bool),
}

impl Value {
    fn float(self) -> f32 {
        match self {
            Value::F(f) => f,
            Value::I(i) => i as f32,
            Value::B(b) => b as u8 as f32,
        }
    }
    fn int(self) -> i32 {
        match self {
            Value::F(f) => f.round() as i32,
            Value::I(i) => i,
            Value::B(b) => b as i32,
        }
    }
    fn bool(self) -> bool {
        match self {
            Value::F(f) => f != 0.0,
            Value::I(i) => i != 0,
            Value::B(b) => b,
        }
    }
}

impl Device {
    /// Resolve `name` (`"WorldViewProj"`, `"cLightInfo[1].pos"`) in the bound shader's
    /// constant table.
    pub fn find_constant(&self, name: &str) -> Result<ConstantDesc, VmError> {
        let table = match self.constant_table() {
            Ok(Some(t)) => t,
            Ok(None) => {
                return Err(VmError::NoConstantTable(
                    "the shader carries no constant table (CTAB)".into(),
                ));
            }
            Err(e) => return Err(VmError::NoConstantTable(e.to_string())),
        };
        table.find(name).ok_or_else(|| VmError::UnknownConstant {
            name: name.to_string(),
            known: table.constants.iter().map(|c| c.name.clone()).collect(),
        })
    }

    /// `SetFloatArray` / `SetVector` / `SetFloat`: set a constant (or an element or member of
    /// one) from floats in HLSL order; a matrix's values row by row. Fewer values than the
    /// constant holds set its first ones.
    pub fn set_constant_by_name(&mut self, name: &str, values: &[f32]) -> Result<(), VmError> {
        self.set_values(name, values.len(), |i| Value::F(values[i]))
    }

    /// `SetMatrix`: the top-left rows x columns of a 4x4 matrix (`m[row][column]`, as a
    /// `D3DXMATRIX`) into a matrix constant, by D3D9's row/column rule.
    pub fn set_matrix_by_name(&mut self, name: &str, m: &[[f32; 4]; 4]) -> Result<(), VmError> {
        let desc = self.find_constant(name)?;
        let (rows, columns) = (
            desc.ty.rows.min(4) as usize,
            desc.ty.columns.min(4) as usize,
        );
        let values: Vec<f32> = (0..rows)
            .flat_map(|r| (0..columns).map(move |c| m[r][c]))
            .collect();
        self.set_values(name, values.len(), |i| Value::F(values[i]))
    }

    /// `SetIntArray` / `SetInt`.
    pub fn set_constant_by_name_i(&mut self, name: &str, values: &[i32]) -> Result<(), VmError> {
        self.set_values(name, values.len(), |i| Value::I(values[i]))
    }

    /// `SetBoolArray` / `SetBool`.
    pub fn set_constant_by_name_b(&mut self, name: &str, values: &[bool]) -> Result<(), VmError> {
        self.set_values(name, values.len(), |i| Value::B(values[i]))
    }

    fn set_values(
        &mut self,
        name: &str,
        count: usize,
        value: impl Fn(usize) -> Value,
    ) -> Result<(), VmError> {
        let desc = self.find_constant(name)?;
        if desc.register_set == RegisterSet::Sampler {
            return Err(VmError::SamplerByName(name.to_string()));
        }
        let capacity = desc.value_count();
        if count > capacity {
            return Err(VmError::TooManyValues {
                name: name.to_string(),
                capacity,
                given: count,
            });
        }
        for slot in desc.slots().into_iter().filter(|s| s.value < count) {
            let v = value(slot.value);
            let (r, c) = (slot.register, slot.component as usize);
            match slot.set {
                RegisterSet::Float4 => {
                    let mut reg = self.register_f(r)?;
                    reg[c] = v.float();
                    self.set_constant_f(r, &[reg])?;
                }
                RegisterSet::Int4 => {
                    let mut reg = self
                        .constant_i(r)
                        .ok_or_else(|| VmError::ConstantRange(format!("i{r}")))?;
                    reg[c] = v.int();
                    self.set_constant_i(r, &[reg])?;
                }
                RegisterSet::Bool => self.set_constant_b(r, &[v.bool()])?,
                RegisterSet::Sampler => {}
            }
        }
        Ok(())
    }

    fn register_f(&self, r: u32) -> Result<[f32; 4], VmError> {
        self.constant_f(r)
            .ok_or_else(|| VmError::ConstantRange(format!("c{r}")))
    }
}
