//! Diagnostics as every face prints them, held as data and rendered by one function
//! ([`Report::emit`]) through codespan-reporting's renderer: plain for a pipe, a file, Python
//! or C ([`Report::render`]), coloured for a terminal when the writer is a termcolor writer.
//!
//! A report is a list of items, each one line or more:
//!
//! ```text
//! a.asm:2:1: error[V011]: v0 is used but not declared      (a diagnostic at a line and column)
//!     mov oPos, v0                                         (its snippet: the line ...)
//!     ^                                                    (... and a caret under the column)
//! a.vso: word 4: warning[V020]: ...                        (at a word of bytecode)
//! a.asm: error: ...                                        (at a file)
//! a.asm: the shader does not validate                      (a line printed as it is)
//! ```
//!
//! ```
//! use dxso::report::{Report, Severity};
//! let mut report = Report::default();
//! report.push(dxso::report::Diagnostic::new("a.asm", Severity::Error, "bad token"));
//! report.push_line("a.asm: the shader does not validate");
//! assert_eq!(
//!     report.render(),
//!     "a.asm: error: bad token\na.asm: the shader does not validate\n"
//! );
//! ```

use crate::source::Position;
use codespan_reporting::term::{Config, Renderer, WriteStyle};
use std::fmt;
use std::io::{self, Write};

/// How bad a diagnostic is (the word its header prints).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// `error`: the input is refused.
    Error,
    /// `warning`: accepted, but likely a mistake.
    Warning,
    /// `note`: more about another diagnostic.
    Note,
}

impl From<crate::validate::Severity> for Severity {
    fn from(s: crate::validate::Severity) -> Severity {
        match s {
            crate::validate::Severity::Error => Severity::Error,
            crate::validate::Severity::Warning => Severity::Warning,
        }
    }
}

impl Severity {
    fn codespan(self) -> codespan_reporting::diagnostic::Severity {
        match self {
            Severity::Error => codespan_reporting::diagnostic::Severity::Error,
            Severity::Warning => codespan_reporting::diagnostic::Severity::Warning,
            Severity::Note => codespan_reporting::diagnostic::Severity::Note,
        }
    }
}

/// The source line a text diagnostic points into, with the 1-based column of the caret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snippet {
    /// The line, without its line break.
    pub line: String,
    /// 1-based column the caret stands under.
    pub col: usize,
}

impl Snippet {
    /// `    LINE` and `    ^` under the column (a tab in the line before the column stays a
    /// tab, so the caret lines up however tabs are shown); each line ends with a newline.
    pub fn render(&self) -> String {
        let pad: String = self
            .line
            .chars()
            .take(self.col.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!("    {}\n    {pad}^\n", self.line)
    }
}

/// One finding: where (a file, and a place in it), how bad, which rule, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file's name as the diagnostic begins (`a.asm`, `<stdin>`, `vs.asm + ps.asm`).
    pub file: String,
    /// The line and column, or the word of bytecode; `None` for the file as a whole.
    pub position: Option<Position>,
    /// How bad it is.
    pub severity: Severity,
    /// The rule's id (`V011`, `L003`), printed in brackets after the severity.
    pub code: Option<String>,
    /// What is wrong, in a sentence.
    pub message: String,
    /// For text: the line and a caret under the column.
    pub snippet: Option<Snippet>,
}

impl Diagnostic {
    /// A diagnostic about file `file` as a whole: `FILE: SEVERITY: MESSAGE`.
    pub fn new(file: impl Into<String>, severity: Severity, message: impl fmt::Display) -> Self {
        Diagnostic {
            file: file.into(),
            position: None,
            severity,
            code: None,
            message: message.to_string(),
            snippet: None,
        }
    }

    /// The same diagnostic with rule id `code` (`SEVERITY[CODE]`).
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// Where the diagnostic is, as its line begins: `FILE:LINE:COL`, `FILE: word N`, or
    /// `FILE` alone.
    pub fn at(&self) -> String {
        match self.position {
            Some(p @ Position::Text { .. }) => format!("{}:{p}", self.file),
            Some(p @ Position::Word(_)) => format!("{}: {p}", self.file),
            None => self.file.clone(),
        }
    }

    /// The diagnostic as its header and snippet print (see [`Report::emit`]).
    fn emit(&self, renderer: &mut Renderer<'_, '_>) -> io::Result<()> {
        write!(renderer, "{}: ", self.at())?;
        // One trailing line break of a message (an error's text that ends its lines) is the
        // header's own.
        let message = self.message.strip_suffix('\n').unwrap_or(&self.message);
        renderer
            .render_header(
                None,
                self.severity.codespan(),
                self.code.as_deref(),
                message,
            )
            .map_err(io::Error::other)?;
        if let Some(s) = &self.snippet {
            renderer.write_all(s.render().as_bytes())?;
        }
        Ok(())
    }
}

impl fmt::Display for Diagnostic {
    /// The diagnostic as a [`Report`] of it alone renders.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Report(vec![Item::Diagnostic(self.clone())]).render())
    }
}

/// One entry of a [`Report`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A diagnostic: its header, and its snippet if it has one.
    Diagnostic(Diagnostic),
    /// A line printed as it is (a verdict, or a message already rendered elsewhere).
    Line(String),
}

impl From<Diagnostic> for Item {
    fn from(d: Diagnostic) -> Item {
        Item::Diagnostic(d)
    }
}

/// Diagnostics (and plain lines) in the order they print.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report(pub Vec<Item>);

impl Report {
    /// A report of one diagnostic about file `file` as a whole: `FILE: error: MESSAGE`.
    pub fn error(file: impl Into<String>, message: impl fmt::Display) -> Report {
        Report(vec![Diagnostic::new(file, Severity::Error, message).into()])
    }

    /// A report of one line printed as it is.
    pub fn line(text: impl Into<String>) -> Report {
        Report(vec![Item::Line(text.into())])
    }

    /// Add a diagnostic (or a line) at the end.
    pub fn push(&mut self, item: impl Into<Item>) {
        self.0.push(item.into());
    }

    /// Add a line printed as it is.
    pub fn push_line(&mut self, text: impl Into<String>) {
        self.0.push(Item::Line(text.into()));
    }

    /// Add `other`'s items at the end.
    pub fn append(&mut self, other: Report) {
        self.0.extend(other.0);
    }

    /// Whether there is nothing to print.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Write the report to `w` through codespan-reporting's renderer: a termcolor writer
    /// colours each header's severity (and message) as its styles say, a plain writer
    /// ([`Plain`]) writes the text alone. Every item ends
    /// with a line break (one the item's own text ends with is not doubled).
    pub fn emit(&self, w: &mut dyn WriteStyle) -> io::Result<()> {
        let config = Config::default();
        let mut renderer = Renderer::new(w, &config);
        for item in &self.0 {
            match item {
                Item::Diagnostic(d) => d.emit(&mut renderer)?,
                Item::Line(text) => {
                    renderer.write_all(text.as_bytes())?;
                    if !text.ends_with('\n') {
                        renderer.write_all(b"\n")?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The report as plain text ([`Report::emit`] without styles): what Python, C and a
    /// piped command line print.
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        // Writing to memory does not fail.
        let _ = self.emit(&mut Plain(&mut out));
        String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into())
    }
}

/// A writer without styles: the renderer's text alone (what [`Report::render`] writes).
pub struct Plain<W: Write>(pub W);

impl<W: Write> Write for Plain<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl<W: Write> WriteStyle for Plain<W> {
    fn set_header(&mut self, _: codespan_reporting::diagnostic::Severity) -> io::Result<()> {
        Ok(())
    }

    fn set_header_message(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn set_line_number(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn set_note_bullet(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn set_source_border(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn set_label(
        &mut self,
        _: codespan_reporting::diagnostic::Severity,
        _: codespan_reporting::diagnostic::LabelStyle,
    ) -> io::Result<()> {
        Ok(())
    }

    fn reset(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_each_kind_of_place() {
        let mut r = Report::default();
        r.push(Diagnostic {
            file: "a.asm".into(),
            position: Some(Position::Text { line: 2, col: 3 }),
            severity: Severity::Error,
            code: Some("V011".into()),
            message: "v0 is used but not declared".into(),
            snippet: Some(Snippet {
                line: "\tmov oPos, v0".into(),
                col: 3,
            }),
        });
        r.push(Diagnostic {
            position: Some(Position::Word(4)),
            ..Diagnostic::new("a.vso", Severity::Warning, "unused").with_code("V020")
        });
        r.push(Diagnostic::new("a.asm", Severity::Note, "2 more\n"));
        r.push_line("a.asm: the shader does not validate");
        assert_eq!(
            r.render(),
            "a.asm:2:3: error[V011]: v0 is used but not declared\n    \tmov oPos, v0\n    \t ^\n\
             a.vso: word 4: warning[V020]: unused\n\
             a.asm: note: 2 more\n\
             a.asm: the shader does not validate\n"
        );
        assert_eq!(r.to_string(), r.render());
        assert_eq!(Report::error("x", "bad").render(), "x: error: bad\n");
        assert_eq!(Report::line("x\n").render(), "x\n");
    }
}
