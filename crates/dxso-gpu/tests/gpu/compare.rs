//! Comparing GPU outputs with dxso-vm's, bit for bit, with each difference put in a class.

use dxso_vm::Outputs;

/// How one output component differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// +0 on one side, -0 on the other.
    SignOfZero,
    /// A denormal on the CPU where the GPU has a zero (the driver flushes denormals).
    DenormalFlushed,
    /// Finite values at most [`ROUNDING_ULPS`] units in the last place or [`ROUNDING_ABS`]
    /// apart: the rounding of operations the driver evaluates its own way (its sin/cos, a
    /// contracted multiply-add), grown by later arithmetic; the absolute bound covers
    /// cancellation near zero (the corpus test's inputs and constants lie in [-1, 1]). The
    /// bounds were chosen from lavapipe's measured differences (see the report printed).
    Rounding,
    /// Any other difference.
    Other,
}

/// The most units in the last place a [`Class::Rounding`] difference spans.
pub const ROUNDING_ULPS: u64 = 1024;
/// The largest absolute difference a [`Class::Rounding`] difference may have beyond
/// [`ROUNDING_ULPS`].
pub const ROUNDING_ABS: f32 = 2e-6;

/// The differences between two draws' outputs.
#[derive(Debug, Default)]
pub struct Report {
    pub components: usize,
    pub counts: std::collections::BTreeMap<Class, usize>,
    /// The largest difference beyond the zero classes: (units in the last place, absolute, cpu, gpu, where).
    pub largest: Option<(u64, f32, f32, f32, String)>,
}

impl Report {
    /// Differences within no class.
    pub fn others(&self) -> usize {
        self.counts.get(&Class::Other).copied().unwrap_or(0)
    }

    /// Differences of any kind.
    pub fn differences(&self) -> usize {
        self.counts.values().sum()
    }
}

/// Distance in units in the last place between two finite floats.
pub fn ulps(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let b = x.to_bits() as i64;
        if b < 0x8000_0000 { b } else { 0x8000_0000 - b }
    };
    (key(a) - key(b)).unsigned_abs()
}

pub fn classify(cpu: f32, gpu: f32) -> Option<Class> {
    if cpu.to_bits() == gpu.to_bits() {
        return None;
    }
    if cpu == 0.0 && gpu == 0.0 {
        return Some(Class::SignOfZero);
    }
    if cpu.is_subnormal() && gpu == 0.0 {
        return Some(Class::DenormalFlushed);
    }
    if cpu.is_finite()
        && gpu.is_finite()
        && (ulps(cpu, gpu) <= ROUNDING_ULPS || (cpu - gpu).abs() <= ROUNDING_ABS)
    {
        return Some(Class::Rounding);
    }
    Some(Class::Other)
}

impl Report {
    /// Takes in `other`'s counts (a report of other shaders).
    pub fn merge(&mut self, other: Report) {
        self.components += other.components;
        for (class, n) in other.counts {
            *self.counts.entry(class).or_default() += n;
        }
        if let Some(l) = other.largest
            && self.largest.as_ref().is_none_or(|m| l.0 > m.0)
        {
            self.largest = Some(l);
        }
    }

    pub fn add(&mut self, what: &str, cpu: &Outputs, gpu: &Outputs) {
        assert_eq!(cpu.registers, gpu.registers, "{what}: output registers");
        assert_eq!(cpu.vertices, gpu.vertices, "{what}: vertices");
        let per = cpu.registers.len() * 4;
        for (i, (a, b)) in cpu.data.iter().zip(&gpu.data).enumerate() {
            self.components += 1;
            let Some(class) = classify(*a, *b) else {
                continue;
            };
            *self.counts.entry(class).or_default() += 1;
            if class >= Class::Rounding {
                let u = if a.is_finite() && b.is_finite() {
                    ulps(*a, *b)
                } else {
                    u64::MAX
                };
                if self.largest.as_ref().is_none_or(|l| u > l.0) {
                    let (v, r) = (i / per.max(1), i % per.max(1) / 4);
                    let at = format!(
                        "{what}: vertex {v} {}.{}",
                        cpu.registers[r].name,
                        ["x", "y", "z", "w"][i % 4]
                    );
                    self.largest = Some((u, (a - b).abs(), *a, *b, at));
                }
            }
        }
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} components compared", self.components)?;
        for (c, n) in &self.counts {
            write!(f, "; {c:?}: {n}")?;
        }
        if let Some((u, abs, a, b, at)) = &self.largest {
            write!(
                f,
                "; largest: {u} ulp ({abs:e}) at {at}: cpu {a:e}, gpu {b:e}"
            )?;
        }
        Ok(())
    }
}

#[test]
fn classes_are_told_apart() {
    assert_eq!(classify(1.0, 1.0), None);
    assert_eq!(classify(0.0, -0.0), Some(Class::SignOfZero));
    assert_eq!(classify(1e-40, 0.0), Some(Class::DenormalFlushed));
    assert_eq!(classify(1.0, 1.0 + f32::EPSILON), Some(Class::Rounding));
    assert_eq!(classify(1.0, 1.001), Some(Class::Other));
    assert_eq!(classify(1e-4, 1.01e-4), Some(Class::Rounding));
    assert_eq!(classify(1e-4, 1e-4 + 3e-6), Some(Class::Other));
    assert_eq!(classify(1.0, f32::NAN), Some(Class::Other));
    assert_eq!(ulps(1.0, 1.0 + f32::EPSILON), 1);
    assert_eq!(ulps(-0.0, 0.0), 0);
    assert_eq!(ulps(-f32::from_bits(1), f32::from_bits(1)), 2);
}
