//! The constant table (CTAB): the comment block through which a shader's constants get their
//! HLSL names.
//!
//! A compiler writes the table as a comment block whose first DWORD is the FourCC `CTAB`; the
//! rest (the "CTAB data") is a `D3DXSHADER_CONSTANTTABLE` header followed by constant, type,
//! struct-member and string records, addressed by byte offsets from the start of the data. This
//! module reads it into a typed [`ConstantTable`] ([`ConstantTable::read`],
//! [`crate::Shader::constant_table`]), writes one back ([`ConstantTable::to_words`]), resolves
//! names such as `"cLightInfo[1].pos"` to registers ([`ConstantTable::find`]) and lays a value
//! list out over those registers ([`ConstantDesc::slots`]) the way D3DX's
//! `ID3DXConstantTable` does.
//!
//! Names and numbers follow D3DX: [`RegisterSet`] is `D3DXREGISTER_SET`, [`Class`] is
//! `D3DXPARAMETER_CLASS`, [`ParamType`] is `D3DXPARAMETER_TYPE`.

mod find;
mod read;
mod write;

pub use find::{ConstantDesc, Slot};
pub use read::{CtabError, CtabErrorKind};

use crate::ir::{Instruction, Shader};
use crate::opcodes::Opcode;

/// Struct types nested deeper than this are refused, in binary tables and in the text
/// headers `asm --ctab` reads (HLSL tables nest a few levels; every walk over a type recurses
/// once a level, so the bound is also the recursion's).
pub const MAX_DEPTH: usize = 32;

/// The FourCC that opens a constant-table comment block (`"CTAB"` little-endian).
pub const CTAB_FOURCC: u32 = u32::from_le_bytes(*b"CTAB");

/// `D3DXREGISTER_SET`: the register file a constant lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegisterSet {
    /// `b#`
    Bool = 0,
    /// `i#`
    Int4 = 1,
    /// `c#`
    Float4 = 2,
    /// `s#`
    Sampler = 3,
}

impl RegisterSet {
    /// Every register set, in value order (index = value).
    pub const ALL: [RegisterSet; 4] = [
        RegisterSet::Bool,
        RegisterSet::Int4,
        RegisterSet::Float4,
        RegisterSet::Sampler,
    ];
    /// The register set of `D3DXREGISTER_SET` value `v`.
    pub fn from_u16(v: u16) -> Option<RegisterSet> {
        RegisterSet::ALL.get(v as usize).copied()
    }
    /// The register-name letter the listings use (`b`, `i`, `c`, `s`).
    pub fn prefix(self) -> char {
        match self {
            RegisterSet::Bool => 'b',
            RegisterSet::Int4 => 'i',
            RegisterSet::Float4 => 'c',
            RegisterSet::Sampler => 's',
        }
    }
    /// The register set whose registers are named with `c` (`b`, `i`, `c`, `s`).
    pub fn from_prefix(c: char) -> Option<RegisterSet> {
        RegisterSet::ALL.into_iter().find(|s| s.prefix() == c)
    }
    /// The D3DX name without its prefix (`FLOAT4`).
    pub fn name(self) -> &'static str {
        match self {
            RegisterSet::Bool => "BOOL",
            RegisterSet::Int4 => "INT4",
            RegisterSet::Float4 => "FLOAT4",
            RegisterSet::Sampler => "SAMPLER",
        }
    }
    /// DWORDs one register of this set takes in a default value (4 for `c#`/`i#`, 1 for `b#`).
    pub fn words_per_register(self) -> usize {
        match self {
            RegisterSet::Bool => 1,
            RegisterSet::Int4 | RegisterSet::Float4 => 4,
            RegisterSet::Sampler => 0,
        }
    }
}

/// `D3DXPARAMETER_CLASS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// One value.
    Scalar = 0,
    /// A vector of `columns` values.
    Vector = 1,
    /// A matrix stored row by row (`row_major`): a register per row.
    MatrixRows = 2,
    /// A matrix stored column by column (HLSL's default): a register per column.
    MatrixColumns = 3,
    /// A texture, sampler or shader object.
    Object = 4,
    /// A struct of members.
    Struct = 5,
}

impl Class {
    /// Every class, in value order (index = value).
    pub const ALL: [Class; 6] = [
        Class::Scalar,
        Class::Vector,
        Class::MatrixRows,
        Class::MatrixColumns,
        Class::Object,
        Class::Struct,
    ];
    /// The class of `D3DXPARAMETER_CLASS` value `v`.
    pub fn from_u16(v: u16) -> Option<Class> {
        Class::ALL.get(v as usize).copied()
    }
    /// The D3DX name without its prefix (`MATRIX_COLUMNS`).
    pub fn name(self) -> &'static str {
        match self {
            Class::Scalar => "SCALAR",
            Class::Vector => "VECTOR",
            Class::MatrixRows => "MATRIX_ROWS",
            Class::MatrixColumns => "MATRIX_COLUMNS",
            Class::Object => "OBJECT",
            Class::Struct => "STRUCT",
        }
    }
}

/// `D3DXPARAMETER_TYPE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `void`.
    Void = 0,
    /// `bool`.
    Bool = 1,
    /// `int`.
    Int = 2,
    /// `float`.
    Float = 3,
    /// `string`.
    String = 4,
    /// `texture`.
    Texture = 5,
    /// `texture1D`.
    Texture1D = 6,
    /// `texture2D`.
    Texture2D = 7,
    /// `texture3D`.
    Texture3D = 8,
    /// `textureCUBE`.
    TextureCube = 9,
    /// `sampler`.
    Sampler = 10,
    /// `sampler1D`.
    Sampler1D = 11,
    /// `sampler2D`.
    Sampler2D = 12,
    /// `sampler3D`.
    Sampler3D = 13,
    /// `samplerCUBE`.
    SamplerCube = 14,
    /// `pixelshader`.
    PixelShader = 15,
    /// `vertexshader`.
    VertexShader = 16,
    /// `pixelfragment`.
    PixelFragment = 17,
    /// `vertexfragment`.
    VertexFragment = 18,
    /// A type D3DX does not support.
    Unsupported = 19,
}

impl ParamType {
    /// Every type, in value order (index = value).
    pub const ALL: [ParamType; 20] = [
        ParamType::Void,
        ParamType::Bool,
        ParamType::Int,
        ParamType::Float,
        ParamType::String,
        ParamType::Texture,
        ParamType::Texture1D,
        ParamType::Texture2D,
        ParamType::Texture3D,
        ParamType::TextureCube,
        ParamType::Sampler,
        ParamType::Sampler1D,
        ParamType::Sampler2D,
        ParamType::Sampler3D,
        ParamType::SamplerCube,
        ParamType::PixelShader,
        ParamType::VertexShader,
        ParamType::PixelFragment,
        ParamType::VertexFragment,
        ParamType::Unsupported,
    ];
    /// The type of `D3DXPARAMETER_TYPE` value `v`.
    pub fn from_u16(v: u16) -> Option<ParamType> {
        ParamType::ALL.get(v as usize).copied()
    }
    /// The D3DX name without its prefix (`SAMPLER2D`).
    pub fn name(self) -> &'static str {
        match self {
            ParamType::Void => "VOID",
            ParamType::Bool => "BOOL",
            ParamType::Int => "INT",
            ParamType::Float => "FLOAT",
            ParamType::String => "STRING",
            ParamType::Texture => "TEXTURE",
            ParamType::Texture1D => "TEXTURE1D",
            ParamType::Texture2D => "TEXTURE2D",
            ParamType::Texture3D => "TEXTURE3D",
            ParamType::TextureCube => "TEXTURECUBE",
            ParamType::Sampler => "SAMPLER",
            ParamType::Sampler1D => "SAMPLER1D",
            ParamType::Sampler2D => "SAMPLER2D",
            ParamType::Sampler3D => "SAMPLER3D",
            ParamType::SamplerCube => "SAMPLERCUBE",
            ParamType::PixelShader => "PIXELSHADER",
            ParamType::VertexShader => "VERTEXSHADER",
            ParamType::PixelFragment => "PIXELFRAGMENT",
            ParamType::VertexFragment => "VERTEXFRAGMENT",
            ParamType::Unsupported => "UNSUPPORTED",
        }
    }
}

/// `D3DXSHADER_TYPEINFO`: the HLSL type of a constant or struct member.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeInfo {
    /// Scalar, vector, matrix, object or struct.
    pub class: Class,
    /// The element type.
    pub ty: ParamType,
    /// Rows (1 for a scalar or vector).
    pub rows: u16,
    /// Columns (1 for a scalar).
    pub columns: u16,
    /// Array length; 1 for a non-array.
    pub elements: u16,
    /// The members of a struct, in declaration order (empty otherwise).
    pub members: Vec<Member>,
}

impl TypeInfo {
    /// A non-array type without members.
    pub fn new(class: Class, ty: ParamType, rows: u16, columns: u16) -> TypeInfo {
        TypeInfo {
            class,
            ty,
            rows,
            columns,
            elements: 1,
            members: Vec::new(),
        }
    }

    /// Bytes of the value in memory (`D3DXCONSTANT_DESC::Bytes`): 4 per component, members
    /// summed for a struct, times the element count.
    pub fn bytes(&self) -> u32 {
        self.element_bytes()
            .saturating_mul(self.elements.max(1) as u32)
    }

    /// Bytes of one element.
    pub fn element_bytes(&self) -> u32 {
        if self.class == Class::Struct {
            self.members
                .iter()
                .fold(0u32, |n, m| n.saturating_add(m.ty.bytes()))
        } else {
            (self.rows as u32 * self.columns as u32).saturating_mul(4)
        }
    }

    /// Registers one element takes in `set` as D3DX lays it out: a scalar or vector one
    /// register (one per component in `b#`), a matrix one per row (`MATRIX_ROWS`) or column
    /// (`MATRIX_COLUMNS`), a struct the sum of its members, an object one.
    pub fn element_registers(&self, set: RegisterSet) -> u32 {
        let (rows, columns) = (self.rows as u32, self.columns as u32);
        match self.class {
            Class::Struct => self
                .members
                .iter()
                .fold(0u32, |n, m| n.saturating_add(m.ty.registers(set))),
            Class::Object => 1,
            _ if set == RegisterSet::Bool => rows * columns,
            Class::Scalar | Class::Vector => 1,
            Class::MatrixRows => rows,
            Class::MatrixColumns => columns,
        }
    }

    /// Registers the whole (every element) takes in `set`.
    pub fn registers(&self, set: RegisterSet) -> u32 {
        self.element_registers(set)
            .saturating_mul(self.elements.max(1) as u32)
    }
}

/// `D3DXSHADER_STRUCTMEMBERINFO`: one member of a struct type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Member {
    /// The member's name.
    pub name: String,
    /// The member's type.
    pub ty: TypeInfo,
}

/// `D3DXSHADER_CONSTANTINFO`: one top-level constant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Constant {
    /// The constant's name in the HLSL source.
    pub name: String,
    /// The register file it lives in.
    pub register_set: RegisterSet,
    /// Its first register.
    pub register_index: u16,
    /// Registers the compiler assigned (may be fewer than the type needs when the shader
    /// reads only part of it, as `float4x4` in 3 registers).
    pub register_count: u16,
    /// Its type.
    pub ty: TypeInfo,
    /// The default value as it lies in the table: `register_count` registers of 4 DWORDs
    /// (`c#`, `i#`) or 1 DWORD (`b#`), cut short where the table ends.
    pub default_value: Option<Vec<u32>>,
}

/// A decoded constant table (`D3DXSHADER_CONSTANTTABLE` with its records).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstantTable {
    /// The compiler that wrote it (`Microsoft (R) HLSL Shader Compiler 9.29.952.3111`).
    pub creator: String,
    /// The shader version token the table was written for.
    pub version: u32,
    /// `D3DXSHADER_*` compile flags.
    pub flags: u32,
    /// The target profile (`vs_3_0`).
    pub target: String,
    /// Constants in table order (Microsoft's compiler sorts them by name).
    pub constants: Vec<Constant>,
}

impl ConstantTable {
    /// The top-level constant named `name` (exact, case-sensitive as D3DX).
    pub fn constant(&self, name: &str) -> Option<&Constant> {
        self.constants.iter().find(|c| c.name == name)
    }

    /// The whole comment block: `CTAB` then [`Self::to_words`].
    pub fn to_comment(&self) -> Instruction {
        let mut inst = Instruction::new(Opcode::Comment);
        inst.imm.push(CTAB_FOURCC);
        inst.imm.extend(self.to_words());
        inst
    }
}

/// The CTAB data (the words after the FourCC) of a comment block's payload, if it is one.
pub fn ctab_data(payload: &[u32]) -> Option<&[u32]> {
    match payload.split_first() {
        Some((&CTAB_FOURCC, rest)) => Some(rest),
        _ => None,
    }
}

impl Shader {
    /// The index in [`Shader::instructions`] of the first CTAB comment block.
    pub fn constant_table_index(&self) -> Option<usize> {
        self.instructions
            .iter()
            .position(|i| i.opcode == Opcode::Comment && ctab_data(&i.imm).is_some())
    }

    /// Put `table` in as the shader's CTAB comment block: in place of the first one, or right
    /// after the version token (where compilers put it) when there is none.
    pub fn set_constant_table(&mut self, table: &ConstantTable) {
        let block = table.to_comment();
        match self.constant_table_index() {
            Some(i) => self.instructions[i] = block,
            None => self.instructions.insert(0, block),
        }
    }

    /// The shader's constant table: `Ok(None)` when it has no CTAB comment block; an error
    /// (with the word offset inside the CTAB data) when the block is malformed.
    pub fn constant_table(&self) -> Result<Option<ConstantTable>, CtabError> {
        match self.constant_table_index() {
            None => Ok(None),
            Some(i) => {
                let data = ctab_data(&self.instructions[i].imm).expect("found as CTAB");
                ConstantTable::read(data).map(Some)
            }
        }
    }
}
