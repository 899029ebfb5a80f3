//! HLSL expressions as text: a string with its precedence (so that composing two never
//! needs more parentheses than the grammar asks for) and its width (1 for a scalar).

use std::fmt::Write as _;

/// Precedence levels, lowest binding first.
pub(crate) const TERNARY: u8 = 1;
/// `<`, `>=`, `==` ...
pub(crate) const COMPARE: u8 = 2;
/// `+`, `-`.
pub(crate) const ADD: u8 = 3;
/// `*`, `/`, `%`.
pub(crate) const MUL: u8 = 4;
/// Unary `-`, `!`, casts.
pub(crate) const UNARY: u8 = 5;
/// Names, literals, calls, member and index accesses, swizzles.
pub(crate) const ATOM: u8 = 6;

/// The component letters of a swizzle.
pub(crate) const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// An HLSL expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct E {
    /// The text.
    pub s: String,
    /// Its precedence ([`ATOM`] ... [`TERNARY`]).
    pub p: u8,
    /// Components: 1 for a scalar, up to 4.
    pub w: usize,
    /// A scalar text standing for `w` equal components (HLSL widens it in arithmetic; a
    /// function argument spells the vector out, [`E::full`]).
    pub splat: bool,
    /// The text is `base.swizzle` (this many trailing characters), so a further swizzle
    /// composes with it.
    pub swz: Option<usize>,
}

impl E {
    /// A name, literal or call.
    pub fn atom(s: impl Into<String>, w: usize) -> E {
        E {
            s: s.into(),
            p: ATOM,
            w,
            splat: false,
            swz: None,
        }
    }

    /// An expression of precedence `p`.
    pub fn new(s: impl Into<String>, p: u8, w: usize) -> E {
        E {
            s: s.into(),
            p,
            w,
            splat: false,
            swz: None,
        }
    }

    /// A scalar expression standing for `w` equal components.
    pub fn splat(mut self, w: usize) -> E {
        self.splat = w > 1;
        self.w = w;
        self
    }

    /// The expression with a splat spelled out as a vector (`float3(x, x, x)` or `x.xxx`).
    pub fn full(&self) -> E {
        if !self.splat {
            return self.clone();
        }
        if self.p == ATOM
            && let Some((base, c)) = self.s.rsplit_once('.')
            && c.len() == 1
            && XYZW.iter().any(|x| c.starts_with(*x))
            && !base.is_empty()
            && !base.starts_with(|c: char| c.is_ascii_digit() || c == '-')
        {
            return E::atom(format!("{base}.{}", c.repeat(self.w)), self.w);
        }
        if self.is_literal() {
            let parts = vec![self.s.clone(); self.w];
            return E::atom(
                format!("{}({})", float_ty(self.w), parts.join(", ")),
                self.w,
            );
        }
        // A cast replicates a scalar without repeating it.
        E::new(
            format!("({}){}", float_ty(self.w), self.at(ATOM)),
            UNARY,
            self.w,
        )
    }

    /// The text, parenthesized when its precedence is below `min`.
    pub fn at(&self, min: u8) -> String {
        if self.p >= min {
            self.s.clone()
        } else {
            format!("({})", self.s)
        }
    }

    /// The components `comps` of this expression (an identity selection is left out).
    pub fn swizzle(&self, comps: &[usize]) -> E {
        if self.splat || (self.w == 1 && self.is_literal()) {
            return self.clone().splat(comps.len());
        }
        if comps.len() > 1 && comps.iter().all(|&c| c == comps[0]) {
            return self.swizzle(&comps[..1]).splat(comps.len());
        }
        if let Some(vals) = self.literal_parts() {
            let picked: Vec<String> = comps
                .iter()
                .map(|&c| vals[c.min(vals.len() - 1)].clone())
                .collect();
            if comps.len() == 1 {
                let p = if picked[0].starts_with('-') {
                    UNARY
                } else {
                    ATOM
                };
                return E::new(picked[0].clone(), p, 1);
            }
            return E::atom(
                format!("{}({})", float_ty(comps.len()), picked.join(", ")),
                comps.len(),
            );
        }
        let identity = comps.len() == self.w && comps.iter().enumerate().all(|(i, &c)| i == c);
        if identity {
            return self.clone();
        }
        if self.w == 1 && comps.len() == 1 {
            return self.clone();
        }
        if let Some(n) = self.swz
            && n == self.w
            && self.p == ATOM
        {
            let (base, sw) = self.s.split_at(self.s.len() - n);
            let sw: Vec<char> = sw.chars().collect();
            let text: String = comps.iter().map(|&c| sw[c.min(n - 1)]).collect();
            let mut e = E::atom(format!("{base}{text}"), comps.len());
            e.swz = Some(comps.len());
            return e;
        }
        let mut e = E::atom(
            format!("{}.{}", self.at(ATOM), swizzle_text(comps)),
            comps.len(),
        );
        e.swz = Some(comps.len());
        e
    }

    /// The components of a literal vector (`float3(1, 0, 0.5)`).
    fn literal_parts(&self) -> Option<Vec<String>> {
        let inner = self
            .s
            .strip_prefix(float_ty(self.w))?
            .strip_prefix('(')?
            .strip_suffix(')')?;
        let parts: Vec<String> = inner.split(", ").map(str::to_string).collect();
        let numbers = parts.iter().all(|p| {
            let e = E::atom(p.clone(), 1);
            e.is_literal() && !p.contains('(')
        });
        (self.w > 1 && parts.len() == self.w && numbers).then_some(parts)
    }

    /// A number (not an expression that computes one).
    pub fn is_literal(&self) -> bool {
        self.s
            .trim_start_matches('-')
            .starts_with(|c: char| c.is_ascii_digit())
            || self.s.starts_with("asfloat(")
    }

    /// Unary minus.
    pub fn neg(&self) -> E {
        let mut e = match self.s.strip_prefix('-') {
            Some(rest) if self.p == UNARY => E::new(rest, ATOM.min(classify(rest)), self.w),
            _ => E::new(format!("-{}", self.at(UNARY)), UNARY, self.w),
        };
        e.splat = self.splat;
        e
    }

    /// A componentwise call `f(self)` (a splat stays one).
    pub fn call(&self, f: &str) -> E {
        let mut e = E::atom(format!("{f}({})", self.s), self.w);
        e.splat = self.splat;
        e
    }
}

/// The precedence of a bare text (used when a leading `-` is taken off).
fn classify(s: &str) -> u8 {
    let mut depth = 0i32;
    for ch in s.chars() {
        match ch {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ' ' if depth == 0 => return TERNARY,
            _ => {}
        }
    }
    ATOM
}

/// `xyzw` letters of a component list.
pub(crate) fn swizzle_text(comps: &[usize]) -> String {
    comps.iter().map(|&c| XYZW[c & 3]).collect()
}

/// `float`, `float2` ... `float4`.
pub(crate) fn float_ty(w: usize) -> &'static str {
    ["float", "float", "float2", "float3", "float4"][w.min(4)]
}

/// A binary operation `a op b` at precedence `p` (left-associative).
pub(crate) fn bin(a: &E, op: &str, b: &E, p: u8) -> E {
    let w = a.w.max(b.w);
    let mut e = E::new(format!("{} {op} {}", a.at(p), b.at(p + 1)), p, w);
    e.splat = a.splat && b.splat;
    if a.splat && b.splat && a.w != b.w {
        e.splat = false;
    }
    e
}

/// `a / b`. Where both are written as integer literals (`1 / 1280`, the `rcp` of a `def`;
/// `1 / 2`, a `_d2` shift of one) HLSL would divide integers (giving 0): the dividend is then
/// written as a float (`1.0 / 1280`).
pub(crate) fn div(a: &E, b: &E) -> E {
    let int = |e: &E| {
        let digits = e.s.strip_prefix('-').unwrap_or(&e.s);
        !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
    };
    if int(a) && int(b) {
        let p = if a.s.starts_with('-') { UNARY } else { ATOM };
        return bin(&E::new(format!("{}.0", a.s), p, a.w), "/", b, MUL);
    }
    bin(a, "/", b, MUL)
}

/// `a + b`, written `a - x` when `b` is `-x`.
pub(crate) fn add(a: &E, b: &E) -> E {
    if b.p == UNARY && b.s.starts_with('-') {
        return bin(a, "-", &b.neg(), ADD);
    }
    if a.p == UNARY && a.s.starts_with('-') && !(b.p == UNARY && b.s.starts_with('-')) {
        // `-x + y` reads as `y - x` (exactly: IEEE addition commutes).
        return bin(b, "-", &a.neg(), ADD);
    }
    if b.p == ADD && a.p > ADD {
        // IEEE addition commutes exactly: the sum first reads without parentheses.
        return bin(b, "+", a, ADD);
    }
    bin(a, "+", b, ADD)
}

/// `a * b`.
pub(crate) fn mul(a: &E, b: &E) -> E {
    bin(a, "*", b, MUL)
}

/// A call with several arguments, of width `w`.
pub(crate) fn call(f: &str, args: &[&E], w: usize) -> E {
    let mut s = format!("{f}(");
    for (k, a) in args.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        s.push_str(&a.full().s);
    }
    s.push(')');
    E::atom(s, w)
}

/// A float literal that reads back as the same bits.
pub(crate) fn float(v: f32) -> String {
    if v.is_nan() || v.is_infinite() {
        return format!("asfloat(0x{:08X}u)", v.to_bits());
    }
    let s = format!("{v:?}");
    match s.strip_suffix(".0") {
        Some(int) if v.abs() < 1e6 && !(v == 0.0 && v.is_sign_negative()) => int.to_string(),
        _ => s,
    }
}

/// A literal vector of `vals` (a scalar when there is one).
pub(crate) fn literal(vals: &[f32]) -> E {
    if vals.len() == 1 {
        let s = float(vals[0]);
        let p = if s.starts_with('-') { UNARY } else { ATOM };
        return E::new(s, p, 1);
    }
    let mut s = format!("{}(", float_ty(vals.len()));
    for (k, v) in vals.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{}", float(*v));
    }
    s.push(')');
    E::atom(s, vals.len())
}

/// A literal that may be written as one scalar where HLSL widens it (arithmetic operands).
pub(crate) fn literal_splat(vals: &[f32]) -> E {
    if vals.len() > 1 && vals.iter().all(|v| v.to_bits() == vals[0].to_bits()) {
        return literal(&vals[..1]).splat(vals.len());
    }
    literal(vals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_read_back_exactly() {
        assert_eq!(float(1.0), "1");
        assert_eq!(float(0.5), "0.5");
        assert_eq!(float(-2.0), "-2");
        assert_eq!(float(-0.0), "-0.0");
        assert_eq!(float(1e-7), "1e-7");
        assert_eq!(float(f32::INFINITY), "asfloat(0x7F800000u)");
        assert_eq!(float(0.1).parse::<f32>().unwrap(), 0.1);
    }

    #[test]
    fn precedence_adds_only_the_parentheses_needed() {
        let a = E::atom("a", 4);
        let b = E::atom("b", 4);
        let c = E::atom("c", 4);
        let m = mul(&a, &b);
        assert_eq!(add(&m, &c).s, "a * b + c");
        assert_eq!(mul(&add(&a, &b), &c).s, "(a + b) * c");
        assert_eq!(add(&a, &b.neg()).s, "a - b");
        assert_eq!(add(&a, &b).swizzle(&[0, 1]).s, "(a + b).xy");
        assert_eq!(b.neg().neg().s, "b");
    }

    #[test]
    fn integer_literals_divide_as_floats() {
        let one = E::atom("1", 1);
        assert_eq!(div(&one, &E::atom("1280", 1)).s, "1.0 / 1280");
        assert_eq!(div(&E::new("-1", UNARY, 1), &E::atom("2", 1)).s, "-1.0 / 2");
        assert_eq!(div(&one, &E::atom("r0.x", 1)).s, "1 / r0.x");
        assert_eq!(div(&E::atom("0.5", 1), &E::atom("2", 1)).s, "0.5 / 2");
    }
}
