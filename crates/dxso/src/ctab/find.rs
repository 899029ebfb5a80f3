//! Names to registers: `"a.b[2].c"` paths resolved as `ID3DXConstantTable::GetConstantByName`
//! does, and a value list laid out over the registers as `SetFloatArray`/`SetMatrix` do.
//!
//! An element or member starts where its predecessors end in the parent's register layout
//! ([`TypeInfo::element_registers`]); its range is clamped to what is left of the parent's
//! registers (so `float4x4 m[2]` given 5 registers has `m[1]` in 1 register, and a member past
//! the end gets 0 registers at the parent's end). Its default value lies at its unclamped
//! place in the parent's.

use super::*;
use std::collections::BTreeMap;

/// [`ConstantDesc::slots`] gives nothing for types of more values than this (no shader's
/// constant file holds them; only a broken table describes one).
const MAX_VALUES: usize = 1 << 20;

/// What a name resolves to (`D3DXCONSTANT_DESC`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstantDesc {
    /// The last name of the path (`pos` for `cLightInfo[1].pos`; `m` for `m[1]`).
    pub name: String,
    /// The register file the value lives in.
    pub register_set: RegisterSet,
    /// Its first register.
    pub register_index: u32,
    /// The registers it takes.
    pub register_count: u32,
    /// The type; `elements` is 1 for an array element.
    pub ty: TypeInfo,
    /// DWORD offset of the default value inside the parent constant's default value.
    pub default_offset: u32,
}

impl ConstantDesc {
    fn top(c: &Constant) -> ConstantDesc {
        ConstantDesc {
            name: c.name.clone(),
            register_set: c.register_set,
            register_index: c.register_index as u32,
            register_count: c.register_count as u32,
            ty: c.ty.clone(),
            default_offset: 0,
        }
    }

    /// A part starting `offset` registers into this one, `size` registers long.
    fn part(&self, name: &str, ty: TypeInfo, offset: u32, size: u32) -> ConstantDesc {
        let start = offset.min(self.register_count);
        ConstantDesc {
            name: name.to_string(),
            register_set: self.register_set,
            register_index: self.register_index + start,
            register_count: size.min(self.register_count - start),
            ty,
            default_offset: self.default_offset.saturating_add(
                offset.saturating_mul(self.register_set.words_per_register() as u32),
            ),
        }
    }

    /// Element `i` of an array (a non-array is its own element 0).
    pub fn element(&self, i: u32) -> Option<ConstantDesc> {
        if i >= self.ty.elements.max(1) as u32 {
            return None;
        }
        if self.ty.elements <= 1 {
            return Some(self.clone());
        }
        let ty = TypeInfo {
            elements: 1,
            ..self.ty.clone()
        };
        let size = ty.element_registers(self.register_set);
        Some(self.part(&self.name, ty, i.saturating_mul(size), size))
    }

    /// Member `name` of a (non-array) struct.
    pub fn member(&self, name: &str) -> Option<ConstantDesc> {
        if self.ty.class != Class::Struct || self.ty.elements > 1 {
            return None;
        }
        let mut offset = 0;
        for m in &self.ty.members {
            let size = m.ty.registers(self.register_set);
            if m.name == name {
                return Some(self.part(&m.name, m.ty.clone(), offset, size));
            }
            offset = offset.saturating_add(size);
        }
        None
    }
}

/// Where one value of a value list goes: component `component` of register `register` of
/// `set` (`component` is 0 for `b#`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Index into the value list (HLSL order: elements in turn, a matrix row by row, struct
    /// members in declaration order).
    pub value: usize,
    /// The register file.
    pub set: RegisterSet,
    /// The register.
    pub register: u32,
    /// The component within it (0..4).
    pub component: u8,
}

impl ConstantTable {
    /// Resolve a path: a constant name followed by any of `[N]` (array element) and `.name`
    /// (struct member), as `"cLightInfo[1].pos"`. `None` when any step does not exist.
    pub fn find(&self, path: &str) -> Option<ConstantDesc> {
        let end = path.find(['.', '[']).unwrap_or(path.len());
        let mut desc = ConstantDesc::top(self.constant(&path[..end])?);
        let mut rest = &path[end..];
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('[') {
                let close = r.find(']')?;
                let digits = &r[..close];
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                desc = desc.element(digits.parse().ok()?)?;
                rest = &r[close + 1..];
            } else {
                let r = rest.strip_prefix('.')?;
                let end = r.find(['.', '[']).unwrap_or(r.len());
                desc = desc.member(&r[..end])?;
                rest = &r[end..];
            }
        }
        Some(desc)
    }

    /// Every path a scene or a caller may name: each constant, and inside it each element and
    /// member (of a struct), depth first (arrays of more than 16 elements list their first
    /// and last only). Each resolves with [`ConstantTable::find`]; a name [`find`] cannot
    /// spell (one holding `.`, `[` or `]`) or does not reach (a repeated name: it finds the
    /// first) is left out with what lies below it.
    ///
    /// [`find`]: ConstantTable::find
    pub fn paths(&self) -> Vec<String> {
        fn nameable(name: &str) -> bool {
            !name.contains(['.', '[', ']'])
        }
        fn walk(path: String, ty: &TypeInfo, out: &mut Vec<String>) {
            out.push(path.clone());
            let n = ty.elements as usize;
            if n > 1 {
                let one = TypeInfo {
                    elements: 1,
                    ..ty.clone()
                };
                let shown: Vec<usize> = if n > 16 {
                    vec![0, n - 1]
                } else {
                    (0..n).collect()
                };
                for i in shown {
                    walk(format!("{path}[{i}]"), &one, out);
                }
            } else if ty.class == Class::Struct {
                for (k, m) in ty.members.iter().enumerate() {
                    if first(&ty.members, k, |m| &m.name) {
                        walk(format!("{path}.{}", m.name), &m.ty, out);
                    }
                }
            }
        }
        /// Whether `items[k]` has a name `find` can spell and reaches it (it finds the first).
        fn first<T>(items: &[T], k: usize, name: impl Fn(&T) -> &String) -> bool {
            let n = name(&items[k]);
            nameable(n) && !items[..k].iter().any(|i| name(i) == n)
        }
        let mut out = Vec::new();
        for (k, c) in self.constants.iter().enumerate() {
            if first(&self.constants, k, |c| &c.name) {
                walk(c.name.clone(), &c.ty, &mut out);
            }
        }
        out
    }
}

impl ConstantTable {
    /// For each register a constant occupies, the most specific name covering it:
    /// `cLightInfo[1].pos` for a member's register, `cViewProj` for each register of a matrix,
    /// `offsets[2]` for an array element.
    pub fn register_names(&self) -> BTreeMap<(RegisterSet, u32), String> {
        fn walk(d: &ConstantDesc, path: String, out: &mut BTreeMap<(RegisterSet, u32), String>) {
            if d.register_count == 0 {
                return;
            }
            if d.ty.elements > 1 {
                for i in 0..d.ty.elements as u32 {
                    match d.element(i) {
                        Some(e) if e.register_count > 0 => walk(&e, format!("{path}[{i}]"), out),
                        _ => break,
                    }
                }
            } else if d.ty.class == Class::Struct {
                for m in &d.ty.members {
                    if let Some(sub) = d.member(&m.name) {
                        walk(&sub, format!("{path}.{}", m.name), out);
                    }
                }
            } else {
                for r in d.register_index..d.register_index + d.register_count {
                    out.insert((d.register_set, r), path.clone());
                }
            }
        }
        let mut out = BTreeMap::new();
        for c in &self.constants {
            walk(&ConstantDesc::top(c), c.name.clone(), &mut out);
        }
        out
    }
}

impl ConstantDesc {
    /// Values the type holds in HLSL order (D3DX's `Bytes / 4`; samplers hold none).
    pub fn value_count(&self) -> usize {
        if self.ty.class == Class::Object {
            return 0;
        }
        self.ty.bytes() as usize / 4
    }

    /// Where each value of a list in HLSL order goes. A `MATRIX_ROWS` matrix puts row `r`
    /// in register `r`; a `MATRIX_COLUMNS` matrix puts column `c` in register `c` (values
    /// still come row by row); in `b#` every component takes its own register. Values whose
    /// register lies past the constant's `register_count` are left out (the compiler gave
    /// them no register).
    pub fn slots(&self) -> Vec<Slot> {
        let mut out = Vec::new();
        if self.value_count() > MAX_VALUES {
            return out;
        }
        let mut value = 0;
        layout(
            &self.ty,
            self.register_set,
            0,
            &mut value,
            &mut |v, reg, comp| {
                if reg < self.register_count && comp < 4 {
                    out.push(Slot {
                        value: v,
                        set: self.register_set,
                        register: self.register_index + reg,
                        component: comp,
                    });
                }
            },
        );
        out
    }
}

/// Walk `ty` placed at relative register `base`, calling `emit(value index, register,
/// component)` for each value in HLSL order.
fn layout(
    ty: &TypeInfo,
    set: RegisterSet,
    base: u32,
    value: &mut usize,
    emit: &mut dyn FnMut(usize, u32, u8),
) {
    let size = ty.element_registers(set);
    let bools = set == RegisterSet::Bool;
    for e in 0..ty.elements.max(1) as u32 {
        let at = base.saturating_add(e.saturating_mul(size));
        match ty.class {
            Class::Object => {}
            Class::Struct => {
                let mut offset = 0;
                for m in &ty.members {
                    layout(&m.ty, set, at.saturating_add(offset), value, emit);
                    offset = offset.saturating_add(m.ty.registers(set));
                }
            }
            class => {
                let (rows, columns) = (ty.rows as u32, ty.columns as u32);
                for r in 0..rows {
                    for c in 0..columns {
                        let (reg, comp) = match class {
                            _ if bools && class == Class::MatrixColumns => (c * rows + r, 0),
                            _ if bools => (r * columns + c, 0),
                            Class::MatrixColumns => (c, r),
                            _ => (r, c),
                        };
                        emit(*value, at.saturating_add(reg), comp.min(255) as u8);
                        *value += 1;
                    }
                }
            }
        }
    }
}
