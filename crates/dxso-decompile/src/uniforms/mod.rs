//! Uniforms: the constant table's parameters as HLSL declarations of their class and type
//! with their register binding, and the map from each `c#`/`i#`/`b#`/`s#` register to the
//! expression that reads it (`WorldViewProj[2]`, `transpose(Bones[1])[0]`, `c[7]`).

use crate::expr::E;
use crate::view::{Seg, View};
use crate::{Dialect, Error};
use dxso::ctab::{Class, Constant, ConstantTable, ParamType, RegisterSet, TypeInfo};
use dxso::ir::TextureType;
use std::collections::BTreeMap;

mod hlsl_types;

pub use hlsl_types::ident;
pub(crate) use hlsl_types::sampler_ty;
use hlsl_types::{array_suffix, declared, described, fitted, transposed_for_glslang, type_note};

/// What relative addressing (`c[a0.x + n]`) reads through: an array parameter.
#[derive(Clone, Debug)]
pub(crate) struct Indexable {
    /// First register.
    pub start: u32,
    /// Registers.
    pub count: u32,
    /// The parameter's name.
    pub name: String,
    /// Registers per element (1 for a `float4` array).
    pub stride: u32,
    /// Matrix elements whose registers are columns (`column_major`).
    pub columns: bool,
}

/// A sampler register's name and texture type.
#[derive(Clone, Debug)]
pub(crate) struct SamplerInfo {
    pub name: String,
    pub ty: TextureType,
}

/// The uniforms of a shader.
#[derive(Debug, Default)]
pub(crate) struct Uniforms {
    /// Struct type declarations the parameters need.
    pub structs: Vec<String>,
    /// Declarations, one a line, in the order [`Uniforms::build`] gives.
    pub decls: Vec<String>,
    /// The declarations while they are built, with their sort key (register file, first
    /// register).
    keyed: Vec<(u8, u32, String)>,
    /// `c#` register -> how its components read.
    pub float: BTreeMap<u32, View>,
    /// `i#` register -> an `int4` expression.
    pub int: BTreeMap<u32, String>,
    /// `b#` register -> a `bool` expression.
    pub bool_: BTreeMap<u32, String>,
    /// `s#` register -> sampler.
    pub samplers: BTreeMap<u32, SamplerInfo>,
    /// Arrays relative addressing can index.
    pub indexable: Vec<Indexable>,
    /// `c#` registers that are a row or column of a matrix parameter.
    pub matrices: BTreeMap<u32, MatrixLeaf>,
    /// Relative reads outside the table's arrays read `cd`, the register file copied from
    /// each register's expression ([`Uniforms::register_file`]); the `c` array of
    /// [`Uniforms::indexable`] then stands for it.
    pub file_copy: bool,
}

/// A register that holds one row (`row_major`) or column (`column_major`) of a matrix.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MatrixLeaf {
    /// The matrix (`WorldViewProj`, `Bones[3]`).
    pub path: String,
    /// Registers are columns.
    pub columns: bool,
    /// Which row or column.
    pub index: u32,
    pub rows: u16,
    pub cols: u16,
}

/// Dot products with consecutive registers, as one `mul` with a matrix.
#[derive(Clone, Debug)]
pub(crate) struct MatrixUse {
    /// The matrix expression (a cast to the rows the dot products read, or a constructor).
    pub expr: String,
    /// `mul(v, M)` (registers are columns) rather than `mul(M, v)`.
    pub columns: bool,
    /// Components of the product.
    pub out: usize,
    /// The first component the dot products give.
    pub from: usize,
}

/// What the shader needs from the register files (found by a walk over its instructions).
#[derive(Debug, Default)]
pub(crate) struct Needs {
    /// `c#` registers read without relative addressing (and not `def`ined): components read.
    pub float: BTreeMap<u32, u8>,
    /// The base of each relative `c#` read, and the components it takes.
    pub relative: Vec<(u32, u8)>,
    /// Largest `c#` register number a relative read could reach (the file's size - 1).
    pub file_end: u32,
    /// `i#` registers read (not `defi`ned).
    pub int: Vec<u32>,
    /// `b#` registers read (not `defb`ined).
    pub bool_: Vec<u32>,
    /// `s#` registers used, with the texture type their `dcl` (or ps_1_x use) gives.
    pub samplers: BTreeMap<u32, TextureType>,
}

impl Uniforms {
    /// Build from the constant table (if any) and what the shader reads.
    ///
    /// For fxc the declarations come in the constant table's order (`b#`, `i#`, `c#`, `s#`,
    /// each by register), then the registers it does not name. For glslang they are sorted
    /// by register file (`c#`, `i#`, `b#`, `s#`), each by first register, named and unnamed
    /// together: glslang lays `$Global` out in declaration order, `register(cN)` giving a
    /// member the offset `16 N` and an `int4` or `bool` the next free offset, and naga takes
    /// the block only where the offsets rise and no member reaches into the next.
    pub fn build(
        table: Option<&ConstantTable>,
        needs: &Needs,
        dialect: Dialect,
    ) -> Result<Uniforms, Error> {
        let mut u = Uniforms::default();
        if let Some(t) = table {
            let mut constants: Vec<&Constant> = t.constants.iter().collect();
            constants.sort_by_key(|c| (c.register_set as u8, c.register_index));
            for c in constants {
                u.constant(c, needs, dialect);
            }
        }
        u.leftovers(table.is_some(), needs);
        if dialect == Dialect::Glslang {
            u.keyed.sort_by_key(|d| (d.0, d.1));
        }
        u.decls = std::mem::take(&mut u.keyed)
            .into_iter()
            .map(|d| d.2)
            .collect();
        Ok(u)
    }

    /// Keep declaration `text` of register `at` of `set` for [`Uniforms::build`] to sort
    /// (`c#` 0, `i#` 1, `b#` 2, `s#` 3: glslang's order).
    fn declare(&mut self, set: RegisterSet, at: u32, text: String) {
        let rank = match set {
            RegisterSet::Float4 => 0,
            RegisterSet::Int4 => 1,
            RegisterSet::Bool => 2,
            RegisterSet::Sampler => 3,
        };
        self.keyed.push((rank, at, text));
    }

    fn constant(&mut self, c: &Constant, needs: &Needs, dialect: Dialect) {
        let name = ident(&c.name);
        let at = c.register_index as u32;
        let count = c.register_count as u32;
        match c.register_set {
            RegisterSet::Float4 => self.float_constant(c, &name, needs, dialect),
            RegisterSet::Int4 | RegisterSet::Bool => {
                // The registers the table gives it (an array the compiler cut short takes
                // no more, where the next parameter may start).
                let int = c.register_set == RegisterSet::Int4;
                let (ty, prefix) = if int { ("int4", 'i') } else { ("bool", 'b') };
                let n = count.max(1);
                let (decl, arr) = array_suffix(n);
                self.declare(
                    c.register_set,
                    at,
                    format!(
                        "{ty} {name}{decl} : register({prefix}{at});{}",
                        type_note(c, ty)
                    ),
                );
                let map = if int { &mut self.int } else { &mut self.bool_ };
                for k in 0..n {
                    map.insert(at + k, format!("{name}{}", arr(k)));
                }
            }
            RegisterSet::Sampler => {
                let n = c.ty.elements.max(1) as u32;
                let (decl, arr) = array_suffix(n);
                let first = needs.samplers.get(&at).copied();
                let table_ty = match c.ty.ty {
                    ParamType::Sampler1D => Some(TextureType::OneD),
                    ParamType::Sampler3D => Some(TextureType::Volume),
                    ParamType::SamplerCube => Some(TextureType::Cube),
                    ParamType::Sampler2D => Some(TextureType::TwoD),
                    _ => None,
                };
                // What the shader samples a register as is its `dcl`'s type: a single
                // sampler the table types otherwise is declared of the `dcl`'s type.
                let ty = match (n, first, table_ty) {
                    (1, Some(dcl), _) | (_, Some(dcl), None) => dcl,
                    (_, _, Some(t)) => t,
                    (_, None, None) => TextureType::TwoD,
                };
                // glslang makes an array of samplers one arrayed binding, where D3D9 binds
                // each register on its own: for glslang each element the shader uses is a
                // sampler of its own (`Name_3 : register(s3)`), of its `dcl`'s type; for
                // fxc too where a `dcl` gives an element another type than the array's.
                let apart = n > 1
                    && (dialect == Dialect::Glslang
                        || (at..at + n).any(|r| needs.samplers.get(&r).is_some_and(|&d| d != ty)));
                if !apart {
                    self.declare(
                        RegisterSet::Sampler,
                        at,
                        format!("{} {name}{decl} : register(s{at});", sampler_ty(ty)),
                    );
                }
                for k in 0..n {
                    let (element, ty) = if apart {
                        // Of the type the shader's `dcl` gives it (what it samples as).
                        let Some(&dcl) = needs.samplers.get(&(at + k)) else {
                            continue;
                        };
                        self.declare(
                            RegisterSet::Sampler,
                            at + k,
                            format!(
                                "{} {name}_{k} : register(s{}); // {name}[{k}] in the constant table",
                                sampler_ty(dcl),
                                at + k
                            ),
                        );
                        (format!("{name}_{k}"), dcl)
                    } else {
                        (format!("{name}{}", arr(k)), ty)
                    };
                    self.samplers
                        .insert(at + k, SamplerInfo { name: element, ty });
                }
            }
        }
    }

    fn float_constant(&mut self, c: &Constant, name: &str, needs: &Needs, dialect: Dialect) {
        let at = c.register_index as u32;
        let count = (c.register_count as u32).max(1);
        // The type cut to the registers the table gives it: a declaration of the whole
        // type would reach into the next parameter's registers.
        let fitted = fitted(&c.ty, count).map(|t| match dialect {
            Dialect::Glslang => transposed_for_glslang(&t),
            Dialect::Fxc => t,
        });
        let t = fitted.as_ref().unwrap_or(&c.ty);
        let mut leaves = Vec::new();
        flatten(t, name.to_string(), &mut leaves, 0);
        leaves.truncate(count as usize);
        // A leaf narrower than what the shader reads of its register, or a type HLSL would
        // not hold as floats, is declared as the raw registers: exact, and still named.
        // Relative reads index the array their base lies in.
        let relative_hits = needs
            .relative
            .iter()
            .filter(|(base, _)| (at..at + count).contains(base))
            .fold(None, |m: Option<u8>, (_, c)| Some(m.unwrap_or(0) | c));
        // A struct indexed relatively: its members' registers as one array.
        let struct_indexed = relative_hits.is_some() && c.ty.class == Class::Struct;
        let fits = fitted.is_some()
            && !struct_indexed
            && leaves.len() == count as usize
            && leaves.iter().enumerate().all(|(k, leaf)| {
                let mut read = needs.float.get(&(at + k as u32)).copied().unwrap_or(0);
                if let Some(m) = relative_hits {
                    read |= m;
                }
                leaf.float && read >> leaf.width == 0
            });
        if !fits {
            let (decl, arr) = array_suffix(count);
            self.declare(
                RegisterSet::Float4,
                at,
                format!(
                    "float4 {name}{decl} : register(c{at}); // {} in the constant table",
                    described(&c.ty)
                ),
            );
            for k in 0..count {
                self.float
                    .insert(at + k, View::full(format!("{name}{}", arr(k))));
            }
            self.indexable.push(Indexable {
                start: at,
                count,
                name: name.to_string(),
                stride: 1,
                columns: false,
            });
            return;
        }
        let (ty, suffix) = declared(t, name, &mut self.structs);
        let note = if *t == c.ty {
            String::new()
        } else {
            format!(" // {} in the constant table", described(&c.ty))
        };
        self.declare(
            RegisterSet::Float4,
            at,
            format!("{ty} {name}{suffix} : register(c{at});{note}"),
        );
        for (k, leaf) in leaves.iter().enumerate() {
            if let Some(m) = &leaf.matrix {
                self.matrices.insert(at + k as u32, m.clone());
            }
            self.float.insert(
                at + k as u32,
                View(vec![Seg {
                    expr: E::atom(leaf.expr.clone(), leaf.width as usize),
                    first: 0,
                    width: leaf.width as usize,
                }]),
            );
        }
        if t.elements > 1 && t.class != Class::Struct {
            let stride = t.element_registers(RegisterSet::Float4).max(1);
            self.indexable.push(Indexable {
                start: at,
                count,
                name: name.to_string(),
                stride,
                columns: t.class == Class::MatrixColumns,
            });
        }
    }

    /// Relative reads outside every array of the table: they read `cd`, a copy of the
    /// register file `c0 .. c{end - 1}` built as `main` starts from each register's
    /// expression (a parameter's, or for the registers the table does not name, one
    /// declaration per run of them: `float4 c7`, `float4 c40_63[24]`), the way a relative
    /// read with `def`s reads it. No declaration lays over another: fxc refuses overlapping
    /// registers and naga overlapping members.
    fn register_file(&mut self, end: u32) {
        let mut r = 0;
        while r < end {
            if self.float.contains_key(&r) {
                r += 1;
                continue;
            }
            let mut last = r;
            while last + 1 < end && !self.float.contains_key(&(last + 1)) {
                last += 1;
            }
            let note = "// registers the constant table does not name";
            if last == r {
                self.declare(
                    RegisterSet::Float4,
                    r,
                    format!("float4 c{r} : register(c{r}); // not in the constant table"),
                );
                self.float.insert(r, View::full(format!("c{r}")));
            } else {
                let n = last - r + 1;
                self.declare(
                    RegisterSet::Float4,
                    r,
                    format!("float4 c{r}_{last}[{n}] : register(c{r}); {note}"),
                );
                for k in r..=last {
                    self.float
                        .insert(k, View::full(format!("c{r}_{last}[{}]", k - r)));
                }
            }
            r = last + 1;
        }
        self.file_copy = true;
        self.indexable.push(Indexable {
            start: 0,
            count: end,
            name: "c".into(),
            stride: 1,
            columns: false,
        });
    }

    /// Registers read that no parameter covers: without a table `float4 c[N]`; with one,
    /// one `float4 cN` each (or, for relative reads outside every array, the register file
    /// as [`Uniforms::register_file`] builds it).
    fn leftovers(&mut self, has_table: bool, needs: &Needs) {
        let missing: Vec<u32> = needs
            .float
            .keys()
            .copied()
            .filter(|r| !self.float.contains_key(r))
            .collect();
        let relative_outside = needs.relative.iter().any(|&(base, _)| {
            !self
                .indexable
                .iter()
                .any(|a| base >= a.start && base < a.start + a.count)
        });
        if has_table && relative_outside {
            self.register_file(needs.file_end + 1);
        } else if !has_table {
            let end = if !needs.relative.is_empty() {
                needs.file_end + 1
            } else {
                missing.iter().max().map_or(0, |m| m + 1)
            };
            if end > 0 {
                self.declare(
                    RegisterSet::Float4,
                    0,
                    format!("float4 c[{end}] : register(c0);"),
                );
                for r in missing {
                    self.float.insert(r, View::full(format!("c[{r}]")));
                }
                self.indexable.push(Indexable {
                    start: 0,
                    count: end,
                    name: "c".into(),
                    stride: 1,
                    columns: false,
                });
            }
        } else {
            for r in missing {
                self.declare(
                    RegisterSet::Float4,
                    r,
                    format!("float4 c{r} : register(c{r}); // not in the constant table"),
                );
                self.float.insert(r, View::full(format!("c{r}")));
            }
        }
        for &r in &needs.int {
            if !self.int.contains_key(&r) {
                self.declare(RegisterSet::Int4, r, format!("int4 i{r} : register(i{r});"));
                self.int.insert(r, format!("i{r}"));
            }
        }
        for &r in &needs.bool_ {
            if !self.bool_.contains_key(&r) {
                self.declare(RegisterSet::Bool, r, format!("bool b{r} : register(b{r});"));
                self.bool_.insert(r, format!("b{r}"));
            }
        }
        for (&r, &ty) in &needs.samplers {
            if !self.samplers.contains_key(&r) {
                self.declare(
                    RegisterSet::Sampler,
                    r,
                    format!("{} s{r} : register(s{r});", sampler_ty(ty)),
                );
                self.samplers.insert(
                    r,
                    SamplerInfo {
                        name: format!("s{r}"),
                        ty,
                    },
                );
            }
        }
    }

    /// The matrix whose consecutive rows (or columns) registers `regs` are, for dot
    /// products over their first `n` components.
    pub fn matrix_of(&self, regs: &[u32], n: usize) -> Option<MatrixUse> {
        let first = self.matrices.get(regs.first()?);
        if let Some(m) = first {
            let same = regs.iter().enumerate().all(|(k, r)| {
                self.matrices.get(r).is_some_and(|x| {
                    x.path == m.path && x.columns == m.columns && x.index == m.index + k as u32
                })
            });
            if !same {
                return None;
            }
            let (rows, cols) = (m.rows as usize, m.cols as usize);
            return if m.columns {
                (n <= rows).then(|| MatrixUse {
                    expr: if n < rows {
                        format!("(float{n}x{cols}){}", m.path)
                    } else {
                        m.path.clone()
                    },
                    columns: true,
                    out: cols,
                    from: m.index as usize,
                })
            } else {
                (n <= cols).then(|| MatrixUse {
                    expr: if n < cols {
                        format!("(float{rows}x{n}){}", m.path)
                    } else {
                        m.path.clone()
                    },
                    columns: false,
                    out: rows,
                    from: m.index as usize,
                })
            };
        }
        // Raw registers (no table, or registers it does not name): a matrix built of them.
        let mut parts = Vec::new();
        for r in regs {
            let view = self.float.get(r)?;
            let raw = view.0.len() == 1
                && view.0[0].width == 4
                && (view.0[0].expr.s.starts_with("c[")
                    || view.0[0].expr.s[1..].starts_with(|c: char| c.is_ascii_digit()));
            if !raw || self.matrices.contains_key(r) {
                return None;
            }
            parts.push(view.read(&(0..n).collect::<Vec<_>>()).s);
        }
        if regs.len() < 2 {
            return None;
        }
        Some(MatrixUse {
            expr: format!("float{}x{n}({})", regs.len(), parts.join(", ")),
            columns: false,
            out: regs.len(),
            from: 0,
        })
    }

    /// The matrix whose rows (or columns) are registers `regs` from its first, for a sum of
    /// those registers weighted by a vector's components: `columns` then means `mul(M, v)`.
    pub fn weighted_of(&self, regs: &[u32]) -> Option<MatrixUse> {
        let n = regs.len();
        if let Some(m) = self.matrices.get(regs.first()?) {
            let same = regs.iter().enumerate().all(|(k, r)| {
                self.matrices.get(r).is_some_and(|x| {
                    x.path == m.path && x.columns == m.columns && x.index == k as u32
                })
            });
            if !same {
                return None;
            }
            let (rows, cols) = (m.rows as usize, m.cols as usize);
            let (full, out) = if m.columns {
                (cols, rows)
            } else {
                (rows, cols)
            };
            let expr = match (n < full, m.columns) {
                (false, _) => m.path.clone(),
                (true, false) => format!("(float{n}x{cols}){}", m.path),
                (true, true) => format!("(float{rows}x{n}){}", m.path),
            };
            return Some(MatrixUse {
                expr,
                columns: m.columns,
                out,
                from: 0,
            });
        }
        // Raw registers: the rows of a matrix built of them.
        let raw = self.matrix_of(regs, 4)?;
        Some(MatrixUse {
            columns: false,
            out: 4,
            ..raw
        })
    }

    /// The relatively addressed read `c[index + base]` (`index` an `int` expression): the
    /// array it falls in, indexed.
    pub fn relative(&self, index: &str, base: u32) -> Option<E> {
        let a = self
            .indexable
            .iter()
            .find(|a| base >= a.start && base < a.start + a.count)?;
        let off = base - a.start;
        let i = if off == 0 {
            index.to_string()
        } else {
            format!("{index} + {off}")
        };
        let p = if off == 0 {
            i.clone()
        } else {
            format!("({i})")
        };
        let s = match (a.stride, a.columns) {
            (1, _) => format!("{}[{i}]", a.name),
            (n, false) => format!("{}[{p} / {n}][{p} % {n}]", a.name),
            (n, true) => format!("transpose({}[{p} / {n}])[{p} % {n}]", a.name),
        };
        Some(E::atom(s, 4))
    }
}

/// One register of a parameter: its expression and how many components it holds.
struct Leaf {
    expr: String,
    matrix: Option<MatrixLeaf>,
    width: u32,
    /// Whether the values are floats (a `bool` or `int` placed in `c#` is not).
    float: bool,
}

/// The registers of a value of type `t` reached by `path`, in order.
fn flatten(t: &TypeInfo, path: String, out: &mut Vec<Leaf>, depth: usize) {
    if depth > dxso::ctab::MAX_DEPTH || out.len() > 8192 {
        return;
    }
    let elements = t.elements.max(1);
    for e in 0..elements {
        let p = if t.elements > 1 {
            format!("{path}[{e}]")
        } else {
            path.clone()
        };
        let float = t.ty == ParamType::Float;
        match t.class {
            Class::Struct => {
                for m in &t.members {
                    flatten(&m.ty, format!("{p}.{}", ident(&m.name)), out, depth + 1);
                }
            }
            Class::Scalar | Class::Vector | Class::Object => out.push(Leaf {
                expr: p,
                matrix: None,
                width: (t.columns as u32).clamp(1, 4),
                float,
            }),
            Class::MatrixRows => {
                for r in 0..t.rows {
                    out.push(Leaf {
                        expr: format!("{p}[{r}]"),
                        matrix: Some(MatrixLeaf {
                            path: p.clone(),
                            columns: false,
                            index: r as u32,
                            rows: t.rows,
                            cols: t.columns,
                        }),
                        width: (t.columns as u32).clamp(1, 4),
                        float,
                    });
                }
            }
            Class::MatrixColumns => {
                for c in 0..t.columns {
                    out.push(Leaf {
                        expr: format!("transpose({p})[{c}]"),
                        matrix: Some(MatrixLeaf {
                            path: p.clone(),
                            columns: true,
                            index: c as u32,
                            rows: t.rows,
                            cols: t.columns,
                        }),
                        width: (t.rows as u32).clamp(1, 4),
                        float,
                    });
                }
            }
        }
    }
}
