//! `dxso link VS PS [--format text|json] [--software]`.

use crate::input::Loaded;
use crate::{Failure, display_name, read_input, stdout};
use dxso::link::{Element, link_shaders, mask_letters};
use dxso::report::Report;
use dxso::validate::{Caps, Severity, diagnostics};
use std::path::Path;

fn load(path: &Path) -> Result<(String, Loaded), Failure> {
    let name = display_name(path);
    let bytes = read_input(path)?;
    let loaded = Loaded::load(&bytes).map_err(|e| Failure::Input(e.report(&name)))?;
    let found = diagnostics(&loaded.shader, &Caps::max());
    if found.iter().any(|d| d.severity == Severity::Error) {
        return Err(Failure::Input(loaded.rejection_report(&name, &found)));
    }
    Ok((name, loaded))
}

fn element_json(e: &Element) -> serde_json::Value {
    serde_json::json!({"register": e.register_name(), "mask": mask_letters(e.mask)})
}

pub fn link(vs_path: &Path, ps_path: &Path, software: bool, json: bool) -> Result<(), Failure> {
    let (vs_name, vs) = load(vs_path)?;
    let (ps_name, ps) = load(ps_path)?;
    let result = link_shaders(&vs.shader, &ps.shader, software);
    let report = |d: &dxso::link::LinkDiagnostic, out: &mut Report| {
        out.append(dxso::source::link_report(
            (&vs, &vs_name),
            (&ps, &ps_name),
            d,
        ));
    };
    match result {
        Err(diags) => {
            let mut out = Report::default();
            for d in &diags {
                report(d, &mut out);
            }
            if json {
                let items: Vec<_> = diags
                    .iter()
                    .map(|d| serde_json::json!({
                        "rule": d.rule.id(), "severity": if d.error { "error" } else { "warning" },
                        "message": d.message, "vs": d.vs_instruction.map(|i| crate::input::position(&vs, Some(i))),
                        "ps": d.ps_instruction.map(|i| crate::input::position(&ps, Some(i))),
                    }))
                    .collect();
                stdout(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(
                        &serde_json::json!({"linked": false, "diagnostics": items})
                    )
                    .expect("JSON")
                ))?;
            }
            crate::diagnostics_out(&out);
            Err(Failure::Quiet)
        }
        Ok(l) => {
            let mut warn = Report::default();
            for d in &l.warnings {
                report(d, &mut warn);
            }
            crate::diagnostics_out(&warn);
            if json {
                let doc = serde_json::json!({
                    "linked": true,
                    "varyings": l.varyings.iter().map(|v| serde_json::json!({
                        "semantic": v.semantic, "vs": element_json(&v.vs), "ps": element_json(&v.ps),
                        "centroid": v.ps.centroid,
                    })).collect::<Vec<_>>(),
                    "unused": l.unused.iter().map(|e| serde_json::json!({
                        "semantic": e.semantic(), "vs": element_json(e),
                    })).collect::<Vec<_>>(),
                });
                stdout(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&doc).expect("JSON")
                ))?;
            } else {
                let mut s = String::new();
                for v in &l.varyings {
                    let from = format!("{}.{}", v.vs.register_name(), mask_letters(v.vs.mask));
                    let to = format!("{}.{}", v.ps.register_name(), mask_letters(v.ps.mask));
                    s.push_str(&format!(
                        "{:<14} {from:<10} -> {to}{}\n",
                        v.semantic,
                        if v.ps.centroid { " (centroid)" } else { "" }
                    ));
                }
                if !l.unused.is_empty() {
                    let u: Vec<String> = l
                        .unused
                        .iter()
                        .map(|e| format!("{} ({})", e.semantic(), e.register_name()))
                        .collect();
                    s.push_str(&format!("not read by the pixel shader: {}\n", u.join(", ")));
                }
                stdout(&s)?;
            }
            Ok(())
        }
    }
}
