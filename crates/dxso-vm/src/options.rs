//! How a device runs, as one value: the tier, the instruction-set path, the test and
//! measurement modes, and what the code generators report. The library reads no
//! environment variable; the faces (the command, the Python module, the C library) build
//! their devices' options with [`Options::from_env`], so the `DXSO_*` variables keep their
//! meaning there.

use crate::{Isa, Tier};
use std::path::PathBuf;

/// How a [`crate::Device`] runs ([`crate::Device::with_options`],
/// [`crate::Device::set_options`]). Every choice gives identical results except the
/// reports (`jit_why`, `jit_dump`); [`Options::default`] is the fastest way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The widest instruction-set path draws may take; a device takes the lesser of this
    /// and what the processor has ([`Isa::detect`]). `DXSO_ISA=base|avx2|avx512`
    /// (measurements); default [`Isa::Avx512`], i.e. the processor's best.
    pub isa: Isa,
    /// Compiled code or always the interpreter. `DXSO_TIER=interpreted`; default
    /// [`Tier::Compiled`].
    pub tier: Tier,
    /// The guard-page test mode ([`crate::Device::set_guard_pages`]). `DXSO_GUARD_PAGES=1`;
    /// default off.
    pub guard_pages: bool,
    /// Vertex fetch and output store fused into the x86 code generator's code where a
    /// draw's layout allows. `DXSO_FUSE=0` turns it off (measurements); default on.
    pub fuse: bool,
    /// The x86 code generator's fast products (`fma(x, y, +0)`, with the exact code for the
    /// batches that meet an inf or NaN); off, the exact code runs alone.
    /// `DXSO_FAST_PRODUCTS=0` turns them off (measurements); default on.
    pub fast_products: bool,
    /// Print to stderr why a program is not compiled (a code generator's failure is a
    /// bug). `DXSO_JIT_WHY` set; default off.
    pub jit_why: bool,
    /// Report the compiled machine code: Cranelift prints each program's to stderr, the
    /// x86 code generator writes it to this path with the extension `bin` (`exact.bin` for
    /// the exact code beside fast products) and prints its address. `DXSO_JIT_DUMP=PATH`;
    /// default none.
    pub jit_dump: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            isa: Isa::Avx512,
            tier: Tier::Compiled,
            guard_pages: false,
            fuse: true,
            fast_products: true,
            jit_why: false,
            jit_dump: None,
        }
    }
}

impl Options {
    /// The options the `DXSO_*` environment variables ask for (each field's documentation
    /// names its variable); the defaults where they are unset. For the faces only: a
    /// library below them takes its options from its caller.
    pub fn from_env() -> Options {
        let var = |name: &str| std::env::var_os(name);
        let is = |name: &str, value: &str| var(name).is_some_and(|v| v == value);
        Options {
            isa: if is("DXSO_ISA", "base") {
                Isa::Base
            } else if is("DXSO_ISA", "avx2") {
                Isa::Avx2
            } else {
                Isa::Avx512
            },
            tier: if is("DXSO_TIER", "interpreted") {
                Tier::Interpreted
            } else {
                Tier::Compiled
            },
            guard_pages: is("DXSO_GUARD_PAGES", "1"),
            fuse: !is("DXSO_FUSE", "0"),
            fast_products: !is("DXSO_FAST_PRODUCTS", "0"),
            jit_why: var("DXSO_JIT_WHY").is_some(),
            jit_dump: var("DXSO_JIT_DUMP").map(PathBuf::from),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::safety_tests::float4_device;
    use crate::{CodeGenerator, Isa, Options, Tier};

    const SRC: &str = "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\nmul o0, v0, c0\n";

    #[test]
    fn a_device_runs_as_its_options_say() {
        let rows = [[1.0, 2.0, 3.0, 4.0]; crate::LANES];
        let mut dev = float4_device(SRC, &rows);
        dev.set_constant_f(0, &[[2.0; 4]]).unwrap();
        let compiled = dev.draw(rows.len(), 1).unwrap();

        // The interpreter, by options: no code generator, the same bits.
        dev.set_options(Options {
            tier: Tier::Interpreted,
            ..Options::default()
        });
        assert_eq!(dev.options().tier, Tier::Interpreted);
        assert_eq!(dev.code_generator(), None);
        let interpreted = dev.draw(rows.len(), 1).unwrap();
        assert_eq!(interpreted.data, compiled.data);
        assert!(
            interpreted
                .data
                .chunks(4)
                .all(|v| v == [2.0, 4.0, 6.0, 8.0])
        );

        // The base path: Cranelift; the isa is never above the processor's.
        dev.set_options(Options {
            isa: Isa::Base,
            ..Options::default()
        });
        assert_eq!(dev.code_generator(), Some(CodeGenerator::Cranelift));
        assert_eq!(dev.draw(rows.len(), 1).unwrap().data, compiled.data);
        let best = crate::Device::with_options(Options::default());
        assert_eq!(best.options().isa, Isa::detect());
        assert!(!best.options().guard_pages);
    }

    #[test]
    fn fusing_is_an_option() {
        if Isa::detect() == Isa::Base {
            eprintln!("no AVX2 here: the x86 code generator (which fuses) does not run");
            return;
        }
        let rows = [[1.0, 2.0, 3.0, 4.0]; crate::LANES];
        let mut dev = float4_device(SRC, &rows);
        let fused = dev.draw(rows.len(), 1).unwrap();
        assert!(dev.last_draw_fused());
        dev.set_options(Options {
            fuse: false,
            ..Options::default()
        });
        let unfused = dev.draw(rows.len(), 1).unwrap();
        assert!(!dev.last_draw_fused());
        assert_eq!(fused.data, unfused.data);
    }
}
