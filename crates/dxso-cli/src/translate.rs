//! `dxso translate FILE [--to wgsl|spirv|glsl|msl|hlsl] [-o OUT] [--interface OUT.json]
//! [--float strict|ieee]`: a vertex or pixel shader translated for GPUs by `dxso_naga`.

use crate::input::load_shader;
use crate::{Failure, display_name, read_input, stdout};
use anyhow::Context;
use dxso::validate::{Caps, Severity, diagnostics};
use std::io::{IsTerminal, Write};
use std::path::Path;

/// `--to`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum To {
    Wgsl,
    Spirv,
    Glsl,
    Msl,
    Hlsl,
}

/// `--float`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Float {
    Strict,
    Ieee,
}

pub fn translate(
    file: &Path,
    to: To,
    output: Option<&Path>,
    interface: Option<&Path>,
    float: Float,
) -> Result<(), Failure> {
    let target = match to {
        To::Wgsl => dxso_naga::Target::Wgsl,
        To::Spirv => dxso_naga::Target::SpirV,
        To::Glsl => dxso_naga::Target::Glsl,
        To::Msl => dxso_naga::Target::Msl,
        To::Hlsl => dxso_naga::Target::Hlsl,
    };
    // Binary SPIR-V never goes to a terminal.
    if target == dxso_naga::Target::SpirV && output.is_none() && std::io::stdout().is_terminal() {
        return Err(Failure::Io(anyhow::anyhow!(
            "--to spirv writes binary: give -o OUT or pipe stdout"
        )));
    }
    let name = display_name(file);
    let loaded = load_shader(&name, &read_input(file)?).map_err(Failure::Input)?;
    let found = diagnostics(&loaded.shader, &Caps::max());
    if found.iter().any(|d| d.severity == Severity::Error) {
        let mut text = String::new();
        for d in found.iter().filter(|d| d.severity == Severity::Error) {
            let (at, snippet) = loaded.locate(&name, d.instruction);
            text.push_str(&format!("{at}: error[{}]: {}\n", d.rule.id(), d.message));
            if let Some(s) = snippet {
                text.push_str(&s);
            }
        }
        return Err(Failure::Input(text));
    }
    let checked = dxso::validate::validate(&loaded.shader, &Caps::max())
        .map_err(|_| Failure::Input(format!("{name}: error: the shader is invalid")))?;
    let options = dxso_naga::Options {
        float: match float {
            Float::Strict => dxso_naga::FloatMode::Strict,
            Float::Ieee => dxso_naga::FloatMode::Ieee,
        },
    };
    let t = dxso_naga::translate(&checked, &options)
        .map_err(|e| Failure::Input(format!("{name}: error: {e}")))?;
    let out =
        dxso_naga::write(&t, target).map_err(|e| Failure::Input(format!("{name}: error: {e}")))?;
    if let Some(path) = interface {
        let json = serde_json::to_string_pretty(&t.interface).context("interface as JSON")?;
        std::fs::write(path, json + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    let bytes = match out {
        dxso_naga::Output::Text(s) => s.into_bytes(),
        dxso_naga::Output::SpirV(words) => words.iter().flat_map(|w| w.to_le_bytes()).collect(),
    };
    match output {
        Some(path) => {
            std::fs::write(path, &bytes).with_context(|| format!("writing {}", path.display()))?
        }
        None if target == dxso_naga::Target::SpirV => {
            let mut lock = std::io::stdout().lock();
            match lock.write_all(&bytes).and_then(|()| lock.flush()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    return Err(Failure::Io(anyhow::Error::new(e).context("writing stdout")));
                }
                _ => {}
            }
        }
        None => stdout(&String::from_utf8_lossy(&bytes))?,
    }
    Ok(())
}
