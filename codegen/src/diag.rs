//! Diagnostics reported against the manifest, rustc style: `tools.yaml:LINE:COL: message`.

use std::fmt;

/// A position in the manifest (1-based line and column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub col: usize,
}

/// One problem found in the manifest, with a stable code and a fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The manifest as named in the message.
    pub file: String,
    /// Where the problem is.
    pub pos: Pos,
    /// The rule broken (`missing-sample`), shown in brackets.
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic of rule `code` at `pos` of `file`.
    pub fn new(file: &str, pos: Pos, code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic { file: file.to_string(), pos, code, message: message.into(), help: None }
    }

    /// Adds the `help:` line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {} [{}]", self.file, self.pos.line, self.pos.col, self.message, self.code)?;
        if let Some(help) = &self.help {
            write!(f, "\n  = help: {help}")?;
        }
        Ok(())
    }
}
