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
use dxso::ctab::{ConstantTable, CtabError};

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

/// The register files a by-name setter writes: the vertex [`Device`]'s and the pixel
/// [`crate::PixelState`]'s. The setters are written once, over this trait.
pub(crate) trait ConstantRegisters {
    fn table(&self) -> Result<Option<&ConstantTable>, &CtabError>;
    fn get_f(&self, n: u32) -> Option<[f32; 4]>;
    fn get_i(&self, n: u32) -> Option<[i32; 4]>;
    fn put_f(&mut self, start: u32, v: &[[f32; 4]]) -> Result<(), VmError>;
    fn put_i(&mut self, start: u32, v: &[[i32; 4]]) -> Result<(), VmError>;
    fn put_b(&mut self, start: u32, v: &[bool]) -> Result<(), VmError>;
}

/// The by-name setters as inherent methods of a type implementing [`ConstantRegisters`].
macro_rules! by_name_methods {
    () => {
        /// Resolve `name` (`"WorldViewProj"`, `"cLightInfo[1].pos"`) in the bound shader's
        /// constant table.
        pub fn find_constant(
            &self,
            name: &str,
        ) -> Result<dxso::ctab::ConstantDesc, crate::VmError> {
            crate::by_name::find_constant(self, name)
        }

        /// `SetFloatArray` / `SetVector` / `SetFloat`: set a constant (or an element or member
        /// of one) from floats in HLSL order; a matrix's values row by row. Fewer values than
        /// the constant holds set its first ones.
        pub fn set_constant_by_name(
            &mut self,
            name: &str,
            values: &[f32],
        ) -> Result<(), crate::VmError> {
            crate::by_name::set_floats(self, name, values)
        }

        /// `SetMatrix`: the top-left rows x columns of a 4x4 matrix (`m[row][column]`, as a
        /// `D3DXMATRIX`) into a matrix constant, by D3D9's row/column rule.
        pub fn set_matrix_by_name(
            &mut self,
            name: &str,
            m: &[[f32; 4]; 4],
        ) -> Result<(), crate::VmError> {
            crate::by_name::set_matrix(self, name, m)
        }

        /// `SetIntArray` / `SetInt`.
        pub fn set_constant_by_name_i(
            &mut self,
            name: &str,
            values: &[i32],
        ) -> Result<(), crate::VmError> {
            crate::by_name::set_ints(self, name, values)
        }

        /// `SetBoolArray` / `SetBool`.
        pub fn set_constant_by_name_b(
            &mut self,
            name: &str,
            values: &[bool],
        ) -> Result<(), crate::VmError> {
            crate::by_name::set_bools(self, name, values)
        }

        /// `ID3DXConstantTable::SetDefaults`: every constant's default value from the table
        /// into its registers (`c#` and `i#` get the stored DWORDs, `b#` true for non-zero).
        pub fn set_constant_defaults(&mut self) -> Result<(), crate::VmError> {
            crate::by_name::set_defaults(self)
        }
    };
}
pub(crate) use by_name_methods;

impl ConstantRegisters for Device {
    fn table(&self) -> Result<Option<&ConstantTable>, &CtabError> {
        self.constant_table()
    }
    fn get_f(&self, n: u32) -> Option<[f32; 4]> {
        self.constant_f(n)
    }
    fn get_i(&self, n: u32) -> Option<[i32; 4]> {
        self.constant_i(n)
    }
    fn put_f(&mut self, start: u32, v: &[[f32; 4]]) -> Result<(), VmError> {
        self.set_constant_f(start, v)
    }
    fn put_i(&mut self, start: u32, v: &[[i32; 4]]) -> Result<(), VmError> {
        self.set_constant_i(start, v)
    }
    fn put_b(&mut self, start: u32, v: &[bool]) -> Result<(), VmError> {
        self.set_constant_b(start, v)
    }
}

impl Device {
    by_name_methods!();
}

pub(crate) fn find_constant<R: ConstantRegisters + ?Sized>(
    r: &R,
    name: &str,
) -> Result<ConstantDesc, VmError> {
    let table = match r.table() {
        Ok(Some(t)) => t,
        Ok(None) => return Err(VmError::NoConstantTable),
        Err(e) => return Err(VmError::BadConstantTable(e.clone())),
    };
    table.find(name).ok_or_else(|| VmError::UnknownConstant {
        name: name.to_string(),
        known: table.constants.iter().map(|c| c.name.clone()).collect(),
    })
}

pub(crate) fn set_floats<R: ConstantRegisters + ?Sized>(
    r: &mut R,
    name: &str,
    values: &[f32],
) -> Result<(), VmError> {
    set_values(r, name, values.len(), |i| Value::F(values[i]))
}

pub(crate) fn set_ints<R: ConstantRegisters + ?Sized>(
    r: &mut R,
    name: &str,
    values: &[i32],
) -> Result<(), VmError> {
    set_values(r, name, values.len(), |i| Value::I(values[i]))
}

pub(crate) fn set_bools<R: ConstantRegisters + ?Sized>(
    r: &mut R,
    name: &str,
    values: &[bool],
) -> Result<(), VmError> {
    set_values(r, name, values.len(), |i| Value::B(values[i]))
}

pub(crate) fn set_matrix<R: ConstantRegisters + ?Sized>(
    r: &mut R,
    name: &str,
    m: &[[f32; 4]; 4],
) -> Result<(), VmError> {
    let desc = find_constant(r, name)?;
    let (rows, columns) = (
        desc.ty.rows.min(4) as usize,
        desc.ty.columns.min(4) as usize,
    );
    let values: Vec<f32> = (0..rows)
        .flat_map(|row| (0..columns).map(move |c| m[row][c]))
        .collect();
    set_values(r, name, values.len(), |i| Value::F(values[i]))
}

pub(crate) fn set_defaults<R: ConstantRegisters + ?Sized>(r: &mut R) -> Result<(), VmError> {
    let table = match r.table() {
        Ok(Some(t)) => t.clone(),
        Ok(None) => return Ok(()),
        Err(e) => return Err(VmError::BadConstantTable(e.clone())),
    };
    for c in &table.constants {
        let Some(value) = &c.default_value else {
            continue;
        };
        let first = c.register_index as u32;
        match c.register_set {
            RegisterSet::Float4 => {
                for (k, reg) in value.chunks_exact(4).enumerate() {
                    let v = [0, 1, 2, 3].map(|i| f32::from_bits(reg[i]));
                    r.put_f(first + k as u32, &[v])?;
                }
            }
            RegisterSet::Int4 => {
                for (k, reg) in value.chunks_exact(4).enumerate() {
                    let v = [0, 1, 2, 3].map(|i| reg[i] as i32);
                    r.put_i(first + k as u32, &[v])?;
                }
            }
            RegisterSet::Bool => {
                let v: Vec<bool> = value.iter().map(|&w| w != 0).collect();
                r.put_b(first, &v)?;
            }
            RegisterSet::Sampler => {}
        }
    }
    Ok(())
}

fn set_values<R: ConstantRegisters + ?Sized>(
    r: &mut R,
    name: &str,
    count: usize,
    value: impl Fn(usize) -> Value,
) -> Result<(), VmError> {
    let desc = find_constant(r, name)?;
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
        let (reg, c) = (slot.register, slot.component as usize);
        match slot.set {
            RegisterSet::Float4 => {
                let mut x = r.get_f(reg).ok_or(VmError::ConstantRange {
                    set: RegisterSet::Float4,
                    index: reg,
                })?;
                x[c] = v.float();
                r.put_f(reg, &[x])?;
            }
            RegisterSet::Int4 => {
                let mut x = r.get_i(reg).ok_or(VmError::ConstantRange {
                    set: RegisterSet::Int4,
                    index: reg,
                })?;
                x[c] = v.int();
                r.put_i(reg, &[x])?;
            }
            RegisterSet::Bool => r.put_b(reg, &[v.bool()])?,
            RegisterSet::Sampler => {}
        }
    }
    Ok(())
}
