//! `dxso check FILE... [--caps min|max|PATH.json] [--format text|json]`.

use crate::{Failure, display_name, read_input, stdout};
use anyhow::Context;
use dxso::report::{Diagnostic, Report, Severity as Level};
use dxso::validate::{Caps, Severity, diagnostics};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// The most diagnostics of one rule shown for one file (text and JSON); the rest are counted
/// in a note (`"not_shown"` in JSON). One problem can repeat per instruction (each level of
/// nesting past a limit, say).
pub const MAX_DIAGNOSTICS_PER_RULE: usize = 10;

/// `min`, `max` or a JSON caps file (`Caps::from_spec` / `Caps::from_json`).
pub fn load_caps(spec: &str) -> anyhow::Result<Caps> {
    let caps = match spec {
        "max" | "min" => Caps::from_spec(spec),
        path => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading caps file {path}"))?;
            Caps::from_json(&text)
        }
    };
    caps.map_err(|e| anyhow::anyhow!("caps {spec}: {e}"))
}

/// One diagnostic as `check --format json` and the playground's `asm` and `check` print it:
/// the rule (`null` for the assembler's and the reader's errors), the severity, the message,
/// the instruction (the validator's findings) and where it is.
#[derive(serde::Serialize)]
pub struct JsonDiagnostic {
    pub rule: Option<&'static str>,
    pub severity: &'static str,
    pub message: String,
    /// The instruction's index (`null` for a finding about the whole shader); absent for the
    /// assembler's and the reader's errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction: Option<Option<usize>>,
    #[serde(flatten)]
    pub position: crate::input::JsonPosition,
}

impl JsonDiagnostic {
    /// An error without a rule (the assembler's, the reader's, the encoder's) at `position`.
    pub fn error(message: impl ToString, position: Option<dxso::source::Position>) -> Self {
        JsonDiagnostic {
            rule: None,
            severity: "error",
            message: message.to_string(),
            instruction: None,
            position: position.into(),
        }
    }

    /// Each of the assembler's errors, at its line and column.
    pub fn parse_errors(e: &dxso::text::ParseErrors) -> Vec<JsonDiagnostic> {
        e.0.iter()
            .map(|p| {
                let at = dxso::source::Position::Text {
                    line: p.line,
                    col: p.col,
                };
                JsonDiagnostic::error(&p.message, Some(at))
            })
            .collect()
    }

    /// The JSON value (a diagnostic always serialises).
    pub fn value(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a diagnostic serialises")
    }
}

/// One shader checked: its diagnostics as a report (what `check` prints to stderr) and as
/// the JSON of its entry in `"files"`, and the counts.
pub struct FileCheck {
    pub text: Report,
    pub json: serde_json::Value,
    pub errors: usize,
    pub warnings: usize,
}

/// Check one shader (text or bytecode) read from file `name`. A text that does not assemble
/// is invalid, with one diagnostic (rule `null`) per error, each at its line and column.
pub fn check_one(name: &str, bytes: &[u8], caps: &Caps) -> FileCheck {
    let loaded = match dxso::source::Source::load(bytes) {
        Ok(l) => l,
        Err(e) => {
            let text = e.report(name);
            let items = match e {
                dxso::source::SourceError::Parse(e) => JsonDiagnostic::parse_errors(&e),
                dxso::source::SourceError::Read(e) => vec![JsonDiagnostic::error(
                    &e,
                    Some(dxso::source::Position::Word(e.offset)),
                )],
            };
            return FileCheck {
                text,
                json: serde_json::json!({"file": name, "valid": false, "diagnostics": items}),
                errors: 1,
                warnings: 0,
            };
        }
    };
    let found = diagnostics(&loaded.shader, caps);
    let (mut file_errors, mut warnings) = (0, 0);
    let mut text_out = Report::default();
    let mut items = Vec::new();
    // Diagnostics of one rule past MAX_DIAGNOSTICS_PER_RULE are counted, not shown.
    let mut per_rule: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &found {
        let seen = per_rule.entry(d.rule.id()).or_default();
        *seen += 1;
        if *seen > MAX_DIAGNOSTICS_PER_RULE {
            match d.severity {
                Severity::Error => file_errors += 1,
                Severity::Warning => warnings += 1,
            }
            continue;
        }
        let sev = match d.severity {
            Severity::Error => {
                file_errors += 1;
                "error"
            }
            Severity::Warning => {
                warnings += 1;
                "warning"
            }
        };
        text_out.push(
            loaded
                .diagnostic(name, d.instruction, d.severity.into(), &d.message)
                .with_code(d.rule.id()),
        );
        items.push(JsonDiagnostic {
            rule: Some(d.rule.id()),
            severity: sev,
            message: d.message.clone(),
            instruction: Some(d.instruction),
            position: crate::input::position(&loaded, d.instruction),
        });
    }
    let mut not_shown = serde_json::Map::new();
    for (rule, n) in per_rule {
        if n > MAX_DIAGNOSTICS_PER_RULE {
            let more = n - MAX_DIAGNOSTICS_PER_RULE;
            text_out.push(Diagnostic::new(
                name,
                Level::Note,
                format!(
                    "{more} more [{rule}] diagnostics not shown \
                     (at most {MAX_DIAGNOSTICS_PER_RULE} per rule)"
                ),
            ));
            not_shown.insert(rule.to_string(), more.into());
        }
    }
    let mut json = serde_json::json!({
        "file": name, "version": loaded.shader.version.to_string(),
        "valid": file_errors == 0, "diagnostics": items,
    });
    if !not_shown.is_empty()
        && let Some(obj) = json.as_object_mut()
    {
        obj.insert("not_shown".into(), not_shown.into());
    }
    FileCheck {
        text: text_out,
        json,
        errors: file_errors,
        warnings,
    }
}

pub fn check(files: &[PathBuf], caps: &str, json: bool) -> Result<(), Failure> {
    let caps = load_caps(caps)?;
    let bar = (files.len() > 20 && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(files.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}")
                .expect("valid template"),
        );
        b
    });
    let (mut valid, mut invalid, mut errors, mut warnings) = (0, 0, 0, 0);
    let mut text_out = Report::default();
    let mut json_files = Vec::new();
    for file in files {
        let name = display_name(file);
        if let Some(b) = &bar {
            b.set_message(name.clone());
            b.inc(1);
        }
        // Peak memory: the file's bytes are let go once the shader is loaded.
        let one = check_one(&name, &read_input(Path::new(file))?, &caps);
        if one.errors == 0 {
            valid += 1;
        } else {
            invalid += 1;
        }
        errors += one.errors;
        warnings += one.warnings;
        text_out.append(one.text);
        json_files.push(one.json);
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let summary = format!(
        "checked {} shader{}: {valid} valid, {invalid} invalid ({errors} error{}, {warnings} warning{})",
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" },
    );
    if json {
        let doc = serde_json::json!({
            "files": json_files,
            "summary": {"shaders": files.len(), "valid": valid, "invalid": invalid, "errors": errors, "warnings": warnings},
        });
        stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).expect("JSON serialises")
        ))?;
    } else {
        crate::diagnostics_out(&text_out);
        stdout(&format!("{summary}\n"))?;
    }
    if invalid > 0 {
        return Err(Failure::Quiet);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each kind of diagnostic as `check --format json` prints it: the assembler's (no rule,
    /// at a line), the validator's (a rule and an instruction, at a line or a word), the
    /// reader's (no rule, at a word).
    #[test]
    fn diagnostics_serialise_as_check_prints_them() {
        let text = check_one("a.asm", b"vs_2_0\nmov oPos, v0\n", &Caps::max());
        assert_eq!(
            text.json["diagnostics"],
            json!([{"rule": "V011", "severity": "error", "message": "v0 is used but not declared",
                    "instruction": 0, "line": 2, "col": 1}])
        );
        let shader = dxso::text::parse("vs_2_0\nmov oPos, v0\n").unwrap();
        let tokens = dxso::binary::write_bytes(&shader).unwrap();
        let binary = check_one("a.vso", &tokens, &Caps::max());
        assert_eq!(
            binary.json["diagnostics"],
            json!([{"rule": "V011", "severity": "error", "message": "v0 is used but not declared",
                    "instruction": 0, "word": 1}])
        );
        let parse = check_one("b.asm", b"vs_2_0\nfoo\n", &Caps::max());
        let message = dxso::text::parse("vs_2_0\nfoo\n").unwrap_err().0[0]
            .message
            .clone();
        assert_eq!(
            parse.json["diagnostics"],
            json!([{"rule": null, "severity": "error", "message": message, "line": 2, "col": 1}])
        );
        let read = check_one("c.vso", &[0x01, 0x01, 0xFE, 0xFF], &Caps::max());
        assert_eq!(
            read.json["diagnostics"],
            json!([{"rule": null, "severity": "error",
                    "message": "word 1 (instruction 0): the stream ends without an end token (0x0000ffff)",
                    "word": 1}])
        );
        assert_eq!(read.json["valid"], false);
    }
}
