//! `dxso translate FILE [--to wgsl|spirv|glsl|msl|hlsl] [-o OUT] [--interface OUT.json]
//! [--float strict|ieee]`: a vertex or pixel shader translated for GPUs by `dxso_naga`.

use crate::{Failure, display_name, read_input};
use anyhow::Context;
use dxso::validate::Caps;
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

impl Float {
    /// The translation's float mode.
    pub fn mode(self) -> dxso_naga::FloatMode {
        match self {
            Float::Strict => dxso_naga::FloatMode::Strict,
            Float::Ieee => dxso_naga::FloatMode::Ieee,
        }
    }
}

/// Validate the shader (text or bytecode) read from file `name` and translate it. A shader
/// that fails validation is refused with the validator's diagnostics, as `translate` prints
/// them.
pub fn translation(
    name: &str,
    bytes: Vec<u8>,
    float: Float,
) -> Result<dxso_naga::Translation, Failure> {
    let checked = load_checked(name, bytes)?;
    let options = dxso_naga::Options {
        float: float.mode(),
    };
    dxso_naga::translate(&checked, &options).map_err(|e| Failure::error(name, e))
}

/// Load the shader (text or bytecode) read from file `name` and validate it (`Caps::max()`):
/// a shader that fails validation is refused with the validator's diagnostics, as
/// `translate` and `decompile` print them.
pub fn load_checked(name: &str, bytes: Vec<u8>) -> Result<dxso::validate::Checked, Failure> {
    let loaded = dxso::source::Source::load(&bytes).map_err(|e| Failure::Input(e.report(name)))?;
    drop(bytes);
    // One validation; its diagnostics are what a refusal prints.
    // The source (text, spans and its own copy of the instructions) is dropped on return.
    dxso::validate::validate(&loaded.shader, &Caps::max())
        .map_err(|found| Failure::Input(loaded.rejection_report(name, &found)))
}

/// The target language of `--to`.
pub fn target(to: To) -> dxso_naga::Target {
    match to {
        To::Wgsl => dxso_naga::Target::Wgsl,
        To::Spirv => dxso_naga::Target::SpirV,
        To::Glsl => dxso_naga::Target::Glsl,
        To::Msl => dxso_naga::Target::Msl,
        To::Hlsl => dxso_naga::Target::Hlsl,
    }
}

pub fn translate(
    file: &Path,
    to: To,
    output: Option<&Path>,
    interface: Option<&Path>,
    float: Float,
) -> Result<(), Failure> {
    let target = target(to);
    // Binary SPIR-V never goes to a terminal.
    if target == dxso_naga::Target::SpirV && output.is_none() && std::io::stdout().is_terminal() {
        return Err(Failure::Io(anyhow::anyhow!(
            "--to spirv writes binary: give -o OUT or pipe stdout"
        )));
    }
    return_freed_memory_promptly();
    let name = display_name(file);
    let t = translation(&name, read_input(file)?, float)?;
    // The output goes out as the back end writes it: never held whole.
    let written = |e: dxso_naga::Error, to: &str| match e {
        dxso_naga::Error::Output {
            kind: std::io::ErrorKind::BrokenPipe,
            ..
        } => Ok(()),
        dxso_naga::Error::Output { message, .. } => {
            Err(Failure::Io(anyhow::anyhow!("writing {to}: {message}")))
        }
        e => Err(Failure::error(&name, e)),
    };
    match output {
        Some(path) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("writing {}", path.display()))?;
            let mut w = std::io::BufWriter::new(file);
            let result = dxso_naga::write_to(&t, target, &mut w).and_then(|()| {
                w.flush().map_err(|e| dxso_naga::Error::Output {
                    kind: e.kind(),
                    message: e.to_string(),
                })
            });
            drop(w);
            if let Err(e) = result {
                // No half-written output is left behind.
                let _ = std::fs::remove_file(path);
                return written(e, &path.display().to_string());
            }
        }
        None => {
            let mut w = std::io::BufWriter::new(std::io::stdout().lock());
            let result = dxso_naga::write_to(&t, target, &mut w).and_then(|()| {
                w.flush().map_err(|e| dxso_naga::Error::Output {
                    kind: e.kind(),
                    message: e.to_string(),
                })
            });
            if let Err(e) = result {
                return written(e, "stdout");
            }
        }
    }
    if let Some(path) = interface {
        let json = serde_json::to_string_pretty(&t.interface).context("interface as JSON")?;
        std::fs::write(path, json + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// glibc keeps up to twice the largest block freed so far at the top of its heap instead of
/// returning it, and translation frees several megabytes (the source, the expression arena
/// as it grows) before the back end's peak: a fixed threshold of 64 KiB keeps the
/// untouched free memory out of the peak (translate --to spirv of a 32,700-instruction
/// shader: 74 -> 68 MB). No effect elsewhere.
fn return_freed_memory_promptly() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
        }
        const M_TRIM_THRESHOLD: std::ffi::c_int = -1;
        // SAFETY: mallopt only sets a parameter of glibc's allocator; called before any
        // other thread exists.
        unsafe {
            mallopt(M_TRIM_THRESHOLD, 64 << 10);
        }
    }
}
