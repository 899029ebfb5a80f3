//! What the assembler reports: each error at its line and column, and the limit on how many.

use crate::report::{Diagnostic, Report, Severity, Snippet};
use crate::source::Position;
use std::fmt;

/// The most errors one text reports; past it the rest are counted in one last error
/// ("N more errors not shown").
pub const MAX_PARSE_ERRORS: usize = 100;

/// One problem in the text, at a 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
    /// What is wrong, in a sentence.
    pub message: String,
    /// The source line the error points into (after preprocessing).
    pub line_text: String,
}

/// Every problem found in a text, in line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseErrors(pub Vec<ParseError>);

impl std::error::Error for ParseErrors {}

impl fmt::Display for ParseErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}:{}: error: {}", e.line, e.col, e.message)?;
        }
        Ok(())
    }
}

impl ParseErrors {
    /// Each error as a diagnostic: `FILE:LINE:COL: error: MESSAGE`, the source line, and a
    /// caret under the column.
    pub fn report(&self, file: &str) -> Report {
        let mut report = Report::default();
        for e in &self.0 {
            report.push(Diagnostic {
                position: Some(Position::Text {
                    line: e.line,
                    col: e.col,
                }),
                snippet: (!e.line_text.is_empty()).then(|| Snippet {
                    line: e.line_text.clone(),
                    col: e.col,
                }),
                ..Diagnostic::new(file, Severity::Error, &e.message)
            });
        }
        report
    }

    /// [`ParseErrors::report`] as plain text; each line ends with a newline.
    pub fn render(&self, file: &str) -> String {
        self.report(file).render()
    }
}

/// Where an instruction came from in the text: 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
}
