//! `dxso decompile FILE [-o OUT.hlsl] [--for fxc|glslang] [--asm-comments]`: a shader as
//! HLSL a person can read, by `dxso_decompile`.

use crate::translate::load_checked;
use crate::{Failure, display_name, read_input};
use anyhow::Context;
use std::path::Path;

/// `--for`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum For {
    Fxc,
    Glslang,
}

pub fn decompile(
    file: &Path,
    output: Option<&Path>,
    target: For,
    asm_comments: bool,
) -> Result<(), Failure> {
    let name = display_name(file);
    let bytes = read_input(file)?;
    // A listing without a CTAB names its constants in its header (Microsoft's or Unity's).
    let header = if crate::input::is_bytecode(&bytes) {
        None
    } else {
        Some(String::from_utf8_lossy(&bytes).into_owned())
    };
    let checked = load_checked(&name, bytes)?;
    let shader = checked.shader();
    let table = match shader.constant_table() {
        Ok(Some(t)) => Some(t),
        Ok(None) => header
            .as_deref()
            .and_then(|text| dxso_decompile::listing_table(text, shader.version)),
        Err(e) => {
            return Err(Failure::error(name, format!("constant table: {e}")));
        }
    };
    let options = dxso_decompile::Options {
        dialect: match target {
            For::Fxc => dxso_decompile::Dialect::Fxc,
            For::Glslang => dxso_decompile::Dialect::Glslang,
        },
        asm_comments,
    };
    let hlsl = dxso_decompile::decompile_with_table(&checked, table.as_ref(), &options)
        .map_err(|e| Failure::error(&name, e))?;
    match output {
        Some(path) => {
            std::fs::write(path, hlsl).with_context(|| format!("writing {}", path.display()))?
        }
        None => crate::stdout(&hlsl)?,
    }
    Ok(())
}
