//! Diagnostics: what went wrong, where, rendered in the style of rustc.
//!
//! Three kinds are kept apart (STYLE.md item 14): the user's error ([`Kind::Error`]), a
//! limitation (a valid program gradus cannot handle yet, [`Kind::Limitation`]) and a compiler
//! bug ([`Kind::Bug`]). Every diagnostic has a primary labelled [`Span`] where one exists.
//! Rendering uses `codespan-reporting`.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Config};
use std::fmt;

/// Index of a source file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The file.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span in `file` from byte `start` to `end`.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }
    /// The smallest span covering both (which must be in the same file).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// The source files of one compilation (the prelude, the main file, its imports).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<(String, String)>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push((name.into(), text.into()));
        FileId(self.files.len() as u32 - 1)
    }
    /// The file's name as given (the path on the command line).
    pub fn name(&self, file: FileId) -> &str {
        self.files
            .get(file.0 as usize)
            .map_or("<unknown>", |f| f.0.as_str())
    }
    /// The file's text.
    pub fn text(&self, file: FileId) -> &str {
        self.files.get(file.0 as usize).map_or("", |f| f.1.as_str())
    }
    /// The source text a span covers.
    pub fn snippet(&self, span: Span) -> &str {
        let t = self.text(span.file);
        t.get(span.start as usize..span.end as usize).unwrap_or("")
    }
    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, file: FileId, offset: u32) -> (usize, usize) {
        let text = self.text(file);
        let offset = (offset as usize).min(text.len());
        let before = &text[..text.floor_char_boundary(offset)];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }
    /// `PATH:LINE:COL-LINE:COL`, the location format of run-time errors (docs/language.md §Run-time
    /// errors).
    pub fn location(&self, span: Span) -> String {
        let (l1, c1) = self.line_col(span.file, span.start);
        let (l2, c2) = self.line_col(span.file, span.end.max(span.start + 1) - 1);
        format!("{}:{l1}:{c1}-{l2}:{c2}", self.name(span.file))
    }
    /// `PATH:LINE:COL`, the location format of compile errors.
    pub fn short_location(&self, span: Span) -> String {
        let (l, c) = self.line_col(span.file, span.start);
        format!("{}:{l}:{c}", self.name(span.file))
    }
}

/// What sort of problem a diagnostic reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The program is wrong (syntax, types, sizes known statically, ...).
    Error,
    /// The program is valid but uses something gradus does not support yet.
    Limitation,
    /// gradus itself is wrong (a verifier failure, an internal invariant).
    Bug,
}

/// One diagnostic: a message, a primary span, secondary labels and notes.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Which kind of problem.
    pub kind: Kind,
    /// One-line summary.
    pub message: String,
    /// The primary location and its label.
    pub primary: Option<(Span, String)>,
    /// Further locations with labels.
    pub secondary: Vec<(Span, String)>,
    /// Free-text notes (`expected ..., found ...`, hints).
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A user error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            kind: Kind::Error,
            message: message.into(),
            primary: Some((span, String::new())),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }
    /// A limitation at `span`: valid input gradus does not support yet.
    pub fn limitation(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            kind: Kind::Limitation,
            ..Diagnostic::error(span, message)
        }
    }
    /// A compiler bug, with no source location.
    pub fn bug(message: impl Into<String>) -> Self {
        Diagnostic {
            kind: Kind::Bug,
            message: message.into(),
            primary: None,
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }
    /// Sets the primary label's text.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        if let Some((_, l)) = &mut self.primary {
            *l = label.into();
        }
        self
    }
    /// Adds a secondary label.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push((span, label.into()));
        self
    }
    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The one-line form `PATH:LINE:COL: message` used in test reports.
    pub fn one_line(&self, sources: &SourceMap) -> String {
        let prefix = match self.kind {
            Kind::Error => "",
            Kind::Limitation => "not supported yet: ",
            Kind::Bug => "internal compiler error: ",
        };
        match &self.primary {
            Some((span, _)) => format!(
                "{}: {prefix}{}",
                sources.short_location(*span),
                self.message
            ),
            None => format!("{prefix}{}", self.message),
        }
    }

    /// The full rendering: `error: message`, `--> file:line:col`, the source line with a
    /// caret, labels and notes.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut files = SimpleFiles::new();
        let mut ids = Vec::new();
        for i in 0..sources.files.len() {
            ids.push(files.add(sources.files[i].0.clone(), sources.files[i].1.clone()));
        }
        let range = |s: &Span| s.start as usize..s.end as usize;
        let mut labels = Vec::new();
        if let Some((span, text)) = &self.primary
            && let Some(&id) = ids.get(span.file.0 as usize)
        {
            labels.push(Label::primary(id, range(span)).with_message(text.clone()));
        }
        for (span, text) in &self.secondary {
            if let Some(&id) = ids.get(span.file.0 as usize) {
                labels.push(Label::secondary(id, range(span)).with_message(text.clone()));
            }
        }
        let message = match self.kind {
            Kind::Error => self.message.clone(),
            Kind::Limitation => format!("not supported yet: {}", self.message),
            Kind::Bug => format!("internal compiler error: {}", self.message),
        };
        let cs = CsDiagnostic::error()
            .with_message(message)
            .with_labels(labels)
            .with_notes(self.notes.clone());
        let mut out = Vec::new();
        let mut writer = codespan_reporting::term::termcolor::NoColor::new(&mut out);
        if term::emit(&mut writer, &Config::default(), &files, &cs).is_err() {
            return self.one_line(sources);
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// The diagnostics of a failed compilation, with the sources needed to render them.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    /// The problems found, first error first.
    pub items: Vec<Diagnostic>,
    /// The files they refer to.
    pub sources: SourceMap,
}

impl Diagnostics {
    /// Renders all diagnostics for a terminal.
    pub fn render(&self) -> String {
        self.items.iter().map(|d| d.render(&self.sources)).collect()
    }
    /// The first diagnostic on one line, for test reports.
    pub fn one_line(&self) -> String {
        self.items.first().map_or_else(
            || "unknown error".to_string(),
            |d| d.one_line(&self.sources),
        )
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostics {}

/// A run-time error in a user program (docs/language.md §Run-time errors).
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeError {
    /// The message, e.g. `Index [5] out of bounds for array of shape [4].`
    pub message: String,
    /// Locations `PATH:LINE:COL-LINE:COL`, innermost first.
    pub locations: Vec<String>,
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error: {}", self.message)?;
        for l in &self.locations {
            write!(f, "\n  at {l}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RuntimeError {}
