//! CTAB data -> [`ConstantTable`]. Every offset is checked against the data; a bad table is a
//! [`CtabError`] with the word offset (from the start of the CTAB data, the `Size` DWORD) of
//! the field that is wrong. Never a panic, whatever the words.

use super::*;
use thiserror::Error;

/// Size in bytes of `D3DXSHADER_CONSTANTTABLE`.
pub(super) const HEADER_BYTES: u32 = 28;
/// Size in bytes of `D3DXSHADER_CONSTANTINFO`.
pub(super) const CONSTANT_BYTES: u32 = 20;
/// Size in bytes of `D3DXSHADER_TYPEINFO`.
pub(super) const TYPE_BYTES: u32 = 16;
/// Size in bytes of `D3DXSHADER_STRUCTMEMBERINFO`.
pub(super) const MEMBER_BYTES: u32 = 8;
use super::MAX_DEPTH;
/// Type records decoded in all (shared records count each time they are used): a bound on
/// the work a table whose records point at each other can cause.
const MAX_TYPE_RECORDS: usize = 1 << 16;

/// Why CTAB data could not be read, and where.
#[derive(Debug, Error, PartialEq, Eq, Clone)]
#[error("constant table word {offset}: {kind}")]
pub struct CtabError {
    /// Index of the offending DWORD from the start of the CTAB data (the `Size` field; the
    /// comment block's FourCC is the word before it).
    pub offset: usize,
    /// What is wrong.
    pub kind: CtabErrorKind,
}

/// What is wrong with a constant table (the message names the field).
#[derive(Debug, Error, PartialEq, Eq, Clone)]
pub enum CtabErrorKind {
    /// Fewer DWORDs than the header's 7.
    #[error("the table is {0} DWORDs long, shorter than its 7-DWORD header")]
    TooShort(usize),
    /// A header whose size field is not 28.
    #[error("header size {0} is not 28")]
    HeaderSize(u32),
    /// A record or string offset past the table's end.
    #[error("{what} at byte offset {at} lies outside the table's {len} bytes")]
    OutOfBounds {
        /// Which record or string.
        what: &'static str,
        /// Its byte offset.
        at: u32,
        /// The table's length in bytes.
        len: usize,
    },
    /// A record offset that is not a multiple of 4.
    #[error("{what} at byte offset {at} is not 4-byte aligned")]
    Unaligned {
        /// Which record.
        what: &'static str,
        /// Its byte offset.
        at: u32,
    },
    /// A string without its NUL inside the table (the string's byte offset).
    #[error("the string at byte offset {0} has no terminating NUL inside the table")]
    UnterminatedString(u32),
    /// A register-set value D3DX does not define.
    #[error("unknown register set {0}")]
    RegisterSet(u16),
    /// A parameter-class value D3DX does not define.
    #[error("unknown parameter class {0}")]
    Class(u16),
    /// A parameter-type value D3DX does not define.
    #[error("unknown parameter type {0}")]
    Type(u16),
    /// Struct types nested deeper than the reader follows.
    #[error("struct types nest deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// Type records that expand to more entries than the reader builds.
    #[error("the type records expand to more than {MAX_TYPE_RECORDS} entries")]
    TooManyTypes,
}

struct Reader<'a> {
    words: &'a [u32],
    types_read: usize,
}

impl Reader<'_> {
    fn len_bytes(&self) -> usize {
        self.words.len() * 4
    }

    fn err(&self, byte_at: u32, kind: CtabErrorKind) -> CtabError {
        CtabError {
            offset: byte_at as usize / 4,
            kind,
        }
    }

    /// The word index of a record of `size` bytes at byte offset `at` (from a field at word
    /// `field`), checked to lie inside the data and be aligned.
    fn record(
        &self,
        field: usize,
        at: u32,
        size: u32,
        what: &'static str,
    ) -> Result<usize, CtabError> {
        let end = at as u64 + size as u64;
        if end > self.len_bytes() as u64 {
            return Err(CtabError {
                offset: field,
                kind: CtabErrorKind::OutOfBounds {
                    what,
                    at,
                    len: self.len_bytes(),
                },
            });
        }
        if !at.is_multiple_of(4) {
            return Err(CtabError {
                offset: field,
                kind: CtabErrorKind::Unaligned { what, at },
            });
        }
        Ok(at as usize / 4)
    }

    fn string(&self, field: usize, at: u32, what: &'static str) -> Result<String, CtabError> {
        let len = self.len_bytes();
        if at as usize >= len {
            return Err(CtabError {
                offset: field,
                kind: CtabErrorKind::OutOfBounds { what, at, len },
            });
        }
        let byte = |i: usize| self.words[i / 4].to_le_bytes()[i % 4];
        let start = at as usize;
        let end = (start..len)
            .find(|&i| byte(i) == 0)
            .ok_or_else(|| self.err(at, CtabErrorKind::UnterminatedString(at)))?;
        let bytes: Vec<u8> = (start..end).map(byte).collect();
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn type_info(&mut self, field: usize, at: u32, depth: usize) -> Result<TypeInfo, CtabError> {
        if depth > MAX_DEPTH {
            return Err(CtabError {
                offset: field,
                kind: CtabErrorKind::TooDeep,
            });
        }
        self.types_read += 1;
        if self.types_read > MAX_TYPE_RECORDS {
            return Err(CtabError {
                offset: field,
                kind: CtabErrorKind::TooManyTypes,
            });
        }
        let w = self.record(field, at, TYPE_BYTES, "type record")?;
        let (class, ty) = halves(self.words[w]);
        let (rows, columns) = halves(self.words[w + 1]);
        let (elements, member_count) = halves(self.words[w + 2]);
        let members_at = self.words[w + 3];
        let class = Class::from_u16(class).ok_or(CtabError {
            offset: w,
            kind: CtabErrorKind::Class(class),
        })?;
        let ty = ParamType::from_u16(ty).ok_or(CtabError {
            offset: w,
            kind: CtabErrorKind::Type(ty),
        })?;
        let mut members = Vec::new();
        if member_count > 0 {
            let first = self.record(
                w + 3,
                members_at,
                MEMBER_BYTES * member_count as u32,
                "struct member records",
            )?;
            for k in 0..member_count as usize {
                let m = first + 2 * k;
                let name = self.string(m, self.words[m], "member name")?;
                let ty = self.type_info(m + 1, self.words[m + 1], depth + 1)?;
                members.push(Member { name, ty });
            }
        }
        Ok(TypeInfo {
            class,
            ty,
            rows,
            columns,
            elements,
            members,
        })
    }

    fn constant(&mut self, w: usize) -> Result<Constant, CtabError> {
        let name = self.string(w, self.words[w], "constant name")?;
        let (set, index) = halves(self.words[w + 1]);
        let (count, _reserved) = halves(self.words[w + 2]);
        let register_set = RegisterSet::from_u16(set).ok_or(CtabError {
            offset: w + 1,
            kind: CtabErrorKind::RegisterSet(set),
        })?;
        let ty = self.type_info(w + 3, self.words[w + 3], 0)?;
        let default_at = self.words[w + 4];
        let default_value = if default_at == 0 {
            None
        } else {
            let want = count as usize * register_set.words_per_register();
            let first = self.record(w + 4, default_at, 0, "default value")?;
            // A value cut short by the end of the table keeps what is there (D3DX reads
            // through a pointer and never notices).
            let end = (first + want).min(self.words.len());
            Some(self.words[first..end].to_vec())
        };
        Ok(Constant {
            name,
            register_set,
            register_index: index,
            register_count: count,
            ty,
            default_value,
        })
    }
}

fn halves(x: u32) -> (u16, u16) {
    (x as u16, (x >> 16) as u16)
}

impl ConstantTable {
    /// Decode CTAB data: the words of a CTAB comment block after its FourCC.
    pub fn read(data: &[u32]) -> Result<ConstantTable, CtabError> {
        if data.len() < 7 {
            return Err(CtabError {
                offset: data.len(),
                kind: CtabErrorKind::TooShort(data.len()),
            });
        }
        let mut r = Reader {
            words: data,
            types_read: 0,
        };
        if data[0] != HEADER_BYTES {
            return Err(CtabError {
                offset: 0,
                kind: CtabErrorKind::HeaderSize(data[0]),
            });
        }
        let creator = r.string(1, data[1], "creator")?;
        let version = data[2];
        let count = data[3];
        let flags = data[5];
        let target = if data[6] == 0 {
            String::new()
        } else {
            r.string(6, data[6], "target")?
        };
        let first = r.record(
            4,
            data[4],
            CONSTANT_BYTES.saturating_mul(count),
            "constant records",
        )?;
        let mut constants = Vec::with_capacity(count as usize);
        for k in 0..count as usize {
            constants.push(r.constant(first + 5 * k)?);
        }
        Ok(ConstantTable {
            creator,
            version,
            flags,
            target,
            constants,
        })
    }
}
