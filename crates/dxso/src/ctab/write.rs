//! [`ConstantTable`] -> CTAB data, laid out as Microsoft's compiler does: the header, the
//! constant records, then each constant's name, type records and default value, then the
//! target and creator strings; strings padded to 4 bytes with `0xAB`.

use super::read::{CONSTANT_BYTES, HEADER_BYTES, MEMBER_BYTES, TYPE_BYTES};
use super::*;

struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    fn reserve(&mut self, n: u32) -> u32 {
        let at = self.bytes.len() as u32;
        self.bytes.resize(self.bytes.len() + n as usize, 0);
        at
    }
    fn put(&mut self, at: u32, value: u32) {
        let at = at as usize;
        self.bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }
    fn string(&mut self, s: &str) -> u32 {
        let at = self.bytes.len() as u32;
        self.bytes.extend_from_slice(s.as_bytes());
        self.bytes.push(0);
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0xAB);
        }
        at
    }
    fn type_info(&mut self, t: &TypeInfo) -> u32 {
        let at = self.reserve(TYPE_BYTES);
        self.put(at, t.class as u32 | (t.ty as u32) << 16);
        self.put(at + 4, t.rows as u32 | (t.columns as u32) << 16);
        self.put(at + 8, t.elements as u32 | (t.members.len() as u32) << 16);
        if !t.members.is_empty() {
            let records = self.reserve(MEMBER_BYTES * t.members.len() as u32);
            self.put(at + 12, records);
            for (k, m) in t.members.iter().enumerate() {
                let name = self.string(&m.name);
                let ty = self.type_info(&m.ty);
                let r = records + MEMBER_BYTES * k as u32;
                self.put(r, name);
                self.put(r + 4, ty);
            }
        }
        at
    }
}

impl ConstantTable {
    /// Encode as CTAB data (the words after the FourCC); [`ConstantTable::read`] gives back
    /// an equal table. Names longer than the data can address are the caller's problem only
    /// in theory: offsets are 32-bit.
    pub fn to_words(&self) -> Vec<u32> {
        let mut w = Writer { bytes: Vec::new() };
        let header = w.reserve(HEADER_BYTES);
        let records = w.reserve(CONSTANT_BYTES * self.constants.len() as u32);
        w.put(header, HEADER_BYTES);
        w.put(header + 8, self.version);
        w.put(header + 12, self.constants.len() as u32);
        w.put(header + 16, records);
        w.put(header + 20, self.flags);
        for (k, c) in self.constants.iter().enumerate() {
            let r = records + CONSTANT_BYTES * k as u32;
            let name = w.string(&c.name);
            let ty = w.type_info(&c.ty);
            w.put(r, name);
            w.put(
                r + 4,
                c.register_set as u32 | (c.register_index as u32) << 16,
            );
            w.put(r + 8, c.register_count as u32);
            w.put(r + 12, ty);
            if let Some(value) = &c.default_value {
                let at = w.reserve(4 * value.len() as u32);
                for (i, &v) in value.iter().enumerate() {
                    w.put(at + 4 * i as u32, v);
                }
                w.put(r + 16, at);
            }
        }
        let target = w.string(&self.target);
        w.put(header + 24, target);
        let creator = w.string(&self.creator);
        w.put(header + 4, creator);
        w.bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }
}
