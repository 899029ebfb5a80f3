//! The back ends: a translation printed as WGSL, SPIR-V, GLSL (450 core, the one entry
//! point), MSL or HLSL (shader model 5.1), with naga's default options.

use crate::{Error, Translation, chain};
use naga::back;

/// A shading language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    Wgsl,
    SpirV,
    Glsl,
    Msl,
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
    Text(String),
    /// SPIR-V words.
    SpirV(Vec<u32>),
}

/// Write a translation in `target`.
pub fn write(t: &Translation, target: Target) -> Result<Output, Error> {
    let fail = |e: &dyn std::error::Error| Error::Write {
        target: target.name(),
        message: chain(e),
    };
    let (m, info) = (&t.module, &t.info);
    Ok(match target {
        Target::Wgsl => Output::Text(
            back::wgsl::write_string(m, info, back::wgsl::WriterFlags::empty())
                .map_err(|e| fail(&e))?,
        ),
        Target::SpirV => Output::SpirV(
            back::spv::write_vec(m, info, &back::spv::Options::default(), None)
                .map_err(|e| fail(&e))?,
        ),
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
            let mut s = String::new();
            let mut w = back::glsl::Writer::new(
                &mut s,
                m,
                info,
                &options,
                &pipeline,
                naga::proc::BoundsCheckPolicies::default(),
            )
            .map_err(|e| fail(&e))?;
            w.write().map_err(|e| fail(&e))?;
            Output::Text(s)
        }
        Target::Msl => {
            let (s, _) = back::msl::write_string(
                m,
                info,
                &back::msl::Options::default(),
                &back::msl::PipelineOptions::default(),
            )
            .map_err(|e| fail(&e))?;
            Output::Text(s)
        }
        Target::Hlsl => {
            let mut s = String::new();
            let options = back::hlsl::Options::default();
            let pipeline = back::hlsl::PipelineOptions::default();
            let mut w = back::hlsl::Writer::new(&mut s, &options, &pipeline);
            w.write(m, info, None).map_err(|e| fail(&e))?;
            Output::Text(s)
        }
    })
}
