//! How a register's four components map onto HLSL values: one `float4` variable, or several
//! narrower ones side by side (`dcl_texcoord1 o1.xy` + `dcl_texcoord2 o1.zw`, a `float3`
//! parameter in a `c#` register).

use crate::expr::{E, float_ty, literal};

/// One HLSL value holding register components `first .. first + width`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Seg {
    pub expr: E,
    pub first: usize,
    pub width: usize,
}

/// A register as segments (components no segment covers read as 0).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct View(pub Vec<Seg>);

impl View {
    /// One `float4` value.
    pub fn full(name: impl Into<String>) -> View {
        View(vec![Seg {
            expr: E::atom(name, 4),
            first: 0,
            width: 4,
        }])
    }

    /// The segment holding component `c`.
    pub fn seg(&self, c: usize) -> Option<&Seg> {
        self.0
            .iter()
            .find(|s| c >= s.first && c < s.first + s.width)
    }

    /// Read register components `comps` (output order) as one expression.
    pub fn read(&self, comps: &[usize]) -> E {
        if comps.len() > 1 && comps.iter().all(|&c| c == comps[0]) {
            return self.read(&comps[..1]).splat(comps.len());
        }
        // Runs of consecutive output components from the same segment.
        let mut parts: Vec<E> = Vec::new();
        let mut k = 0;
        while k < comps.len() {
            let seg = self.seg(comps[k]);
            let mut j = k + 1;
            while j < comps.len() && self.seg(comps[j]) == seg {
                j += 1;
            }
            let part = match seg {
                Some(s) => {
                    let local: Vec<usize> = comps[k..j].iter().map(|c| c - s.first).collect();
                    if s.width == 1 && local.len() > 1 {
                        // A scalar widened: HLSL's `.xx` works on scalars too.
                        E::atom(
                            format!(
                                "{}.{}",
                                s.expr.at(crate::expr::ATOM),
                                "x".repeat(local.len())
                            ),
                            local.len(),
                        )
                    } else {
                        s.expr.swizzle(&local)
                    }
                }
                None => literal(&vec![0.0; j - k]),
            };
            parts.push(part);
            k = j;
        }
        if parts.len() == 1 {
            return parts.pop().unwrap_or_else(|| literal(&[0.0]));
        }
        let args: Vec<String> = parts.iter().map(|p| p.s.clone()).collect();
        E::atom(
            format!("{}({})", float_ty(comps.len()), args.join(", ")),
            comps.len(),
        )
    }

    /// The assignments writing register components `comps` (ascending) from a value of
    /// `comps.len()` components named `value`: `(lvalue, value components)` per segment.
    pub fn writes(&self, comps: &[usize]) -> Vec<(String, Vec<usize>)> {
        let mut out: Vec<(String, Vec<usize>)> = Vec::new();
        for seg in &self.0 {
            let mine: Vec<(usize, usize)> = comps
                .iter()
                .enumerate()
                .filter(|(_, c)| **c >= seg.first && **c < seg.first + seg.width)
                .map(|(k, c)| (k, c - seg.first))
                .collect();
            if mine.is_empty() {
                continue;
            }
            let local: Vec<usize> = mine.iter().map(|m| m.1).collect();
            let lvalue = if seg.width == 1 {
                seg.expr.s.clone()
            } else {
                seg.expr.swizzle(&local).s
            };
            out.push((lvalue, mine.iter().map(|m| m.0).collect()));
        }
        out
    }
}
