//! The back ends: a translation printed as WGSL, SPIR-V, GLSL (450 core, the one entry
//! point), MSL or HLSL (shader model 5.1), with naga's default options.

use crate::{Error, Translation, chain};
use naga::back;

/// A shading language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// WGSL text.
    Wgsl,
    /// A SPIR-V binary.
    SpirV,
    /// GLSL 450 core text.
    Glsl,
    /// Metal Shading Language text.
    Msl,
    /// HLSL text (shader model 5.1).
    Hlsl,
}

impl Target {
    /// The CLI's name (`--to`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Wgsl => "wgsl",
            Target::SpirV => "spirv",
            Target::Glsl => "glsl",
            Target::Msl => "msl",
            Target::Hlsl => "hlsl",
        }
    }
    /// The target the CLI calls `s` (`--to`).
    pub fn from_name(s: &str) -> Option<Target> {
        [
            Target::Wgsl,
            Target::SpirV,
            Target::Glsl,
            Target::Msl,
            Target::Hlsl,
        ]
        .into_iter()
        .find(|t| t.name() == s)
    }
}

/// A written module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Text (every language but SPIR-V).
    Text(String),
    /// SPIR-V words.
    SpirV(Vec<u32>),
}

/// Write a translation in `target`.
pub fn write(t: &Translation, target: Target) -> Result<Output, Error> {
    if target == Target::SpirV {
        return spirv(t).map(Output::SpirV);
    }
    let mut s = String::new();
    text(t, target, &mut s)?;
    Ok(Output::Text(s))
}

/// Write a translation in `target` into `out` as the back end produces it: the text is never
/// held whole (SPIR-V's words are, then written little-endian). A failure of `out` is
/// [`Error::Output`]; what was written before an error stays written.
pub fn write_to(
    t: &Translation,
    target: Target,
    out: &mut dyn std::io::Write,
) -> Result<(), Error> {
    let io = |e: std::io::Error| Error::Output {
        kind: e.kind(),
        message: e.to_string(),
    };
    if target == Target::SpirV {
        let words = spirv(t)?;
        for chunk in words.chunks(1024) {
            let mut bytes = [0u8; 4096];
            for (b, word) in bytes.chunks_exact_mut(4).zip(chunk) {
                b.copy_from_slice(&word.to_le_bytes());
            }
            out.write_all(&bytes[..4 * chunk.len()]).map_err(io)?;
        }
        return Ok(());
    }
    let mut w = IoText { out, error: None };
    match text(t, target, &mut w) {
        Ok(()) => Ok(()),
        Err(e) => Err(w.error.take().map_or(e, io)),
    }
}

/// `fmt::Write` into an `io::Write`, keeping the I/O error a `fmt::Error` cannot carry.
struct IoText<'a> {
    out: &'a mut dyn std::io::Write,
    error: Option<std::io::Error>,
}

impl std::fmt::Write for IoText<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.out.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            std::fmt::Error
        })
    }
}

fn fail(target: Target) -> impl Fn(&dyn std::error::Error) -> Error {
    move |e| Error::Write {
        target: target.name(),
        message: chain(e),
    }
}

/// SPIR-V with names (`OpName`, `OpMemberName`) whatever dxso was built with: naga's
/// default options add them only where debug assertions are on, so a debug and a release
/// build of dxso would write different bytes for the same shader.
fn spirv(t: &Translation) -> Result<Vec<u32>, Error> {
    let mut options = back::spv::Options::default();
    options.flags |= back::spv::WriterFlags::DEBUG;
    back::spv::write_vec(&t.module, &t.info, &options, None).map_err(|e| fail(Target::SpirV)(&e))
}

/// A text target written into `out`.
fn text(t: &Translation, target: Target, out: &mut impl std::fmt::Write) -> Result<(), Error> {
    let fail = fail(target);
    let (m, info) = (&t.module, &t.info);
    match target {
        Target::Wgsl => {
            let mut w = back::wgsl::Writer::new(out, back::wgsl::WriterFlags::empty());
            w.write(m, info).map_err(|e| fail(&e))?;
        }
        Target::Glsl => {
            let ep = &m.entry_points[0];
            let options = back::glsl::Options {
                version: back::glsl::Version::Desktop(450),
                ..Default::default()
            };
            let pipeline = back::glsl::PipelineOptions {
                shader_stage: ep.stage,
                entry_point: ep.name.clone(),
                multiview: None,
            };
            let mut w = back::glsl::Writer::new(
                out,
                m,
                info,
                &options,
                &pipeline,
                naga::proc::BoundsCheckPolicies::default(),
            )
            .map_err(|e| fail(&e))?;
            w.write().map_err(|e| fail(&e))?;
        }
        Target::Msl => {
            let mut w = back::msl::Writer::new(out);
            w.write(
                m,
                info,
                &back::msl::Options::default(),
                &back::msl::PipelineOptions::default(),
            )
            .map_err(|e| fail(&e))?;
        }
        Target::Hlsl => {
            let options = back::hlsl::Options::default();
            let pipeline = back::hlsl::PipelineOptions::default();
            let mut w = back::hlsl::Writer::new(out, &options, &pipeline);
            w.write(m, info, None).map_err(|e| fail(&e))?;
        }
        Target::SpirV => {
            return Err(Error::Write {
                target: target.name(),
                message: "SPIR-V is binary, not text".into(),
            });
        }
    }
    Ok(())
}
