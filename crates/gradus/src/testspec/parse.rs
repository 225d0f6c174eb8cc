//! Finding and parsing `-- ==` blocks.

use super::{Block, Case, Expected, Input, RandomItem, SpecError, Structure, TestFile};
use crate::value::{PrimType, Value};

/// The text of one block with the leading `--` of each line removed, and the file line of
/// each of its lines.
struct BlockText {
    text: String,
    /// File line (1-based) of the block text's line `k` is `first_line + k`.
    first_line: usize,
}

/// Whether a line starts a block: `--`, optional spaces, `==`, optional spaces.
fn is_block_start(line: &str) -> bool {
    line.strip_prefix("--").is_some_and(|r| r.trim() == "==")
}

/// Finds the blocks of a file: a line starting with `-- ==` and the following `--` lines.
fn find_blocks(source: &str) -> Vec<BlockText> {
    let lines: Vec<&str> = source.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if !is_block_start(l) {
            i += 1;
            continue;
        }
        let mut text = String::new();
        let first_line = i + 2;
        i += 1;
        while i < lines.len() {
            // A new `-- ==` line starts the next block.
            let Some(rest) = lines[i]
                .strip_prefix("--")
                .filter(|_| !is_block_start(lines[i]))
            else {
                break;
            };
            text.push_str(rest);
            text.push('\n');
            i += 1;
        }
        blocks.push(BlockText { text, first_line });
    }
    blocks
}

/// A cursor over a block's text.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    first_line: usize,
}

impl<'a> Cursor<'a> {
    fn line(&self) -> usize {
        self.first_line + self.text[..self.pos].matches('\n').count()
    }

    fn err<T>(&self, msg: impl Into<String>) -> Result<T, SpecError> {
        Err(SpecError {
            line: self.line(),
            message: msg.into(),
        })
    }

    fn skip_space(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// The next token without consuming it: `{`, `}`, `@`, a quoted string (with quotes), or
    /// a word (up to whitespace or a brace).
    fn peek(&mut self) -> Option<&'a str> {
        self.skip_space();
        let rest = &self.text[self.pos..];
        let c = rest.chars().next()?;
        if matches!(c, '{' | '}' | '@') {
            return Some(&rest[..1]);
        }
        if c == '"' {
            let end = rest[1..].find('"').map_or(rest.len(), |e| e + 2);
            return Some(&rest[..end]);
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '{' || c == '}')
            .unwrap_or(rest.len());
        Some(&rest[..end])
    }

    fn next(&mut self) -> Option<&'a str> {
        let t = self.peek()?;
        self.pos += t.len();
        Some(t)
    }

    /// The rest of the current line, trimmed, consumed with its newline.
    fn rest_of_line(&mut self) -> &'a str {
        let rest = &self.text[self.pos..];
        let end = rest.find('\n').unwrap_or(rest.len());
        self.pos += end;
        rest[..end].trim()
    }

    fn expect(&mut self, tok: &str) -> Result<(), SpecError> {
        match self.next() {
            Some(t) if t == tok => Ok(()),
            Some(t) => self.err(format!("expected `{tok}`, found `{t}`")),
            None => self.err(format!("expected `{tok}`, found the end of the block")),
        }
    }

    /// The text between `{` and the matching `}` (not nested), consuming both.
    fn braced(&mut self) -> Result<&'a str, SpecError> {
        self.expect("{")?;
        let rest = &self.text[self.pos..];
        match rest.find('}') {
            Some(end) => {
                self.pos += end + 1;
                Ok(&rest[..end])
            }
            None => self.err("missing `}`"),
        }
    }
}

fn is_tag_word(w: &str) -> bool {
    !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Parses every test block of a `.fut` file's text.
pub fn parse_test_file(source: &str) -> Result<TestFile, SpecError> {
    let mut file = TestFile::default();
    for (bi, b) in find_blocks(source).iter().enumerate() {
        let mut c = Cursor {
            text: &b.text,
            pos: 0,
            first_line: b.first_line,
        };
        if file.compile_error.is_some() {
            return c.err("no block may follow a block with an expected compile-time error");
        }
        if c.peek() == Some("tags") {
            if bi != 0 {
                return c.err("`tags` is allowed only in the first block");
            }
            c.next();
            let body = c.braced()?;
            for w in body.split_whitespace() {
                if !is_tag_word(w) {
                    return c.err(format!("invalid tag `{w}`"));
                }
                file.tags.push(w.to_string());
            }
        }
        if let Some(t) = c.peek()
            && t.starts_with("error:")
        {
            if bi != 0 {
                return c.err("an expected compile-time error is allowed only in the first block");
            }
            c.pos += "error:".len();
            file.compile_error = Some(c.rest_of_line().to_string());
            parse_trailing_items(&mut c, &mut file)?;
            continue;
        }
        if let Some(t) = c.peek()
            && t.starts_with("property:")
        {
            c.pos += "property:".len();
            let names = c.rest_of_line();
            file.properties
                .extend(names.split_whitespace().map(String::from));
            parse_trailing_items(&mut c, &mut file)?;
            continue;
        }
        let mut entries = vec!["main".to_string()];
        if c.peek() == Some("entry:") {
            c.next();
            let line = c.rest_of_line();
            entries = line.split_whitespace().map(String::from).collect();
            if entries.is_empty() {
                return c.err("`entry:` names no entry point");
            }
        }
        let mut cases = Vec::new();
        loop {
            match c.peek() {
                None => break,
                Some(t) if t == "structure" || t.starts_with("warning:") => break,
                Some(_) => {
                    let case = parse_case(&mut c, cases.len())?;
                    cases.push(case);
                }
            }
        }
        parse_trailing_items(&mut c, &mut file)?;
        file.blocks.push(Block {
            entries,
            cases,
            index: bi,
        });
    }
    Ok(file)
}

/// `structure` and `warning:` items after the cases of a block.
fn parse_trailing_items(c: &mut Cursor, file: &mut TestFile) -> Result<(), SpecError> {
    while let Some(t) = c.peek() {
        if t == "structure" {
            let line = c.line();
            c.next();
            let qualifier = match c.peek() {
                Some("{") | None => None,
                Some(_) => c.next(),
            };
            let body = c.braced()?;
            match qualifier {
                None => file.structures.push(Structure {
                    line,
                    counts: structure_counts(body)
                        .map_err(|message| SpecError { line, message })?,
                }),
                Some(q) => file.skipped_items.push(format!(
                    "structure {q} {{ {} }}",
                    body.split_whitespace().collect::<Vec<_>>().join(" ")
                )),
            }
        } else if t.starts_with("warning:") {
            c.pos += "warning:".len();
            let re = c.rest_of_line();
            file.skipped_items.push(format!("warning: {re}"));
        } else {
            return c.err(format!("unexpected `{t}`"));
        }
    }
    Ok(())
}

/// The `KIND N` pairs of a `structure { ... }` item; a kind is a path of statement kinds
/// (`Map/BinOp`) of [`crate::core::structure::KINDS`].
fn structure_counts(body: &str) -> Result<Vec<(String, usize)>, String> {
    let words: Vec<&str> = body.split_whitespace().collect();
    if !words.len().is_multiple_of(2) {
        return Err("`structure` needs pairs of a statement kind and a count".into());
    }
    let mut out = Vec::new();
    for pair in words.chunks(2) {
        let (path, n) = (pair[0], pair[1]);
        if let Some(bad) = path
            .split('/')
            .find(|k| !crate::core::structure::KINDS.contains(k))
        {
            return Err(format!(
                "unknown statement kind `{bad}` in `structure` (known: {})",
                crate::core::structure::KINDS.join(", ")
            ));
        }
        let n = n
            .parse::<usize>()
            .map_err(|_| format!("`{path}` needs a count, not `{n}`"))?;
        out.push((path.to_string(), n));
    }
    Ok(out)
}

fn parse_case(c: &mut Cursor, index: usize) -> Result<Case, SpecError> {
    let line = c.line();
    let mut name = None;
    if let Some(t) = c.peek()
        && t.starts_with('"')
    {
        if t.len() < 2 || !t.ends_with('"') {
            return c.err("unterminated case name");
        }
        name = Some(t[1..t.len() - 1].to_string());
        c.next();
    }
    let mut run_tags = Vec::new();
    loop {
        match c.next() {
            Some("input") => break,
            Some(t) if is_tag_word(t) => run_tags.push(t.to_string()),
            Some(t) => return c.err(format!("expected a run tag or `input`, found `{t}`")),
            None => return c.err("expected `input`, found the end of the block"),
        }
    }
    let random = run_tags.iter().any(|t| t == "random");
    let script = run_tags.iter().any(|t| t == "script");
    let input = match c.peek() {
        Some("@") => {
            c.next();
            match c.next() {
                Some(p) if !script => Input::File(p.to_string()),
                Some(p) => Input::Script(format!("@ {p}")),
                None => return c.err("expected a file name after `@`"),
            }
        }
        Some("{") => {
            let body = c.braced()?;
            if script {
                Input::Script(body.trim().to_string())
            } else if random {
                Input::Random(parse_random(c, body)?)
            } else {
                match crate::data::read_values(body.as_bytes()) {
                    Ok(vs) => Input::Values(vs, body.trim().to_string()),
                    Err(e) => return c.err(format!("bad input value: {e}")),
                }
            }
        }
        _ => return c.err("expected `{` or `@` after `input`"),
    };
    let expected = match c.peek() {
        Some("output") => {
            c.next();
            match c.peek() {
                Some("@") => {
                    c.next();
                    match c.next() {
                        Some(p) => Expected::File(p.to_string()),
                        None => return c.err("expected a file name after `@`"),
                    }
                }
                Some("{") => {
                    let body = c.braced()?;
                    match crate::data::read_values(body.as_bytes()) {
                        Ok(vs) => Expected::Values(vs),
                        Err(e) => return c.err(format!("bad output value: {e}")),
                    }
                }
                _ => return c.err("expected `{` or `@` after `output`"),
            }
        }
        Some("auto") => {
            c.next();
            c.expect("output")?;
            Expected::Auto
        }
        Some(t) if t.starts_with("error:") => {
            c.pos += "error:".len();
            Expected::Error(c.rest_of_line().to_string())
        }
        _ => Expected::Success,
    };
    Ok(Case {
        index,
        name,
        run_tags,
        input,
        expected,
        line,
    })
}

fn parse_random(c: &Cursor, body: &str) -> Result<Vec<RandomItem>, SpecError> {
    let mut items = Vec::new();
    for w in body.split_whitespace() {
        let mut rest = w;
        let mut shape = Vec::new();
        while let Some(r) = rest.strip_prefix('[') {
            let Some(end) = r.find(']') else {
                return c.err(format!("bad random input item `{w}`"));
            };
            let d: usize = r[..end].replace('_', "").parse().map_err(|_| SpecError {
                line: c.line(),
                message: format!("random input sizes must be integer literals: `{w}`"),
            })?;
            shape.push(d);
            rest = &r[end + 1..];
        }
        if let Some(elem) = PrimType::from_name(rest) {
            items.push(RandomItem::Generate { elem, shape });
            continue;
        }
        if !shape.is_empty() {
            return c.err(format!("unknown element type in random input item `{w}`"));
        }
        if rest == "f16" {
            return c.err("the type f16 is not supported");
        }
        match crate::data::read_values(w.as_bytes()) {
            Ok(vs) if vs.len() == 1 && matches!(vs[0], Value::Scalar(_)) => {
                let v = vs.into_iter().next();
                if let Some(v) = v {
                    let is_float = v.elem_type().is_float();
                    if is_float && !w.contains("f32") && !w.contains("f64") {
                        return c.err(format!(
                            "float constants in random input need a suffix: `{w}`"
                        ));
                    }
                    items.push(RandomItem::Literal(v));
                }
            }
            _ => return c.err(format!("bad random input item `{w}`")),
        }
    }
    Ok(items)
}
