//! Futhark's value formats (docs/language.md §Value formats): the textual and the binary format,
//! read and written, and gzip-compressed streams.
//!
//! Reading takes a byte slice and yields values one at a time ([`Reader`]); textual and
//! binary values may be mixed in one stream, separated by whitespace and `--` comments. A
//! value that starts with the byte `b` is binary, anything else textual. Every malformed input
//! gives a [`DataError`] with its position — never a panic: wrong version bytes, unknown type
//! tags, dimensions whose product overflows or exceeds the remaining data, truncated data,
//! irregular arrays, contradicting suffixes, `[]`, nesting deeper than [`MAX_RANK`].
//!
//! Writing: [`write_text`] gives exactly the form docs/language.md §Textual format gives for
//! written values (one value, every element suffixed, floats as the shortest decimal that reads
//! back); [`write_binary`] that of §Binary format.
//!
//! `f16` is not supported: values of that type are rejected with a clear message.

mod read;
mod write;

#[cfg(test)]
mod tests;

pub use read::Reader;
pub use write::{format_scalar, write_binary, write_binary_into, write_text};

use crate::value::Value;
use std::borrow::Cow;
use std::fmt;
use std::io::Read;
use std::path::Path;

/// The largest rank a value may have (the binary format stores it in one byte).
pub const MAX_RANK: usize = 255;

/// A malformed value stream: where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataError {
    /// Byte offset in the (decompressed) stream.
    pub offset: usize,
    /// 1-based line of the offset.
    pub line: usize,
    /// 1-based column (in bytes) of the offset.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl DataError {
    /// An error at `offset` of `bytes`, with line and column computed from the bytes.
    pub fn at(bytes: &[u8], offset: usize, message: impl Into<String>) -> DataError {
        let offset = offset.min(bytes.len());
        let before = &bytes[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = offset
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1)
            + 1;
        DataError {
            offset,
            line,
            column,
            message: message.into(),
        }
    }

    /// An error about the stream as a whole (no position), e.g. a failed decompression.
    pub fn whole(message: impl Into<String>) -> DataError {
        DataError {
            offset: 0,
            line: 0,
            column: 0,
            message: message.into(),
        }
    }
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(
                f,
                "line {}, column {} (byte {}): {}",
                self.line, self.column, self.offset, self.message
            )
        }
    }
}

impl std::error::Error for DataError {}

/// Whether `bytes` start with the gzip magic bytes `1f 8b`.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Decompresses `bytes` if they are gzip-compressed (recognised by the magic bytes), else
/// returns them unchanged.
pub fn decompress(bytes: &[u8]) -> Result<Cow<'_, [u8]>, DataError> {
    if !is_gzip(bytes) {
        return Ok(Cow::Borrowed(bytes));
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_end(&mut out)
        .map_err(|e| DataError::whole(format!("invalid gzip data: {e}")))?;
    Ok(Cow::Owned(out))
}

/// Compresses `bytes` with gzip.
pub fn compress(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(bytes);
    enc.finish().unwrap_or_default()
}

/// Reads every value of a stream (decompressing it first if it is gzip'd).
pub fn read_values(bytes: &[u8]) -> Result<Vec<Value>, DataError> {
    let bytes = decompress(bytes)?;
    Reader::new(&bytes).collect()
}

/// Reads every value of a data file. A file whose name ends in `.gz` must be gzip-compressed;
/// other files are decompressed when they start with the gzip magic bytes.
pub fn read_file(path: &Path) -> Result<Vec<Value>, DataError> {
    let bytes = std::fs::read(path)
        .map_err(|e| DataError::whole(format!("cannot read {}: {e}", path.display())))?;
    if path.extension().is_some_and(|e| e == "gz") && !is_gzip(&bytes) {
        return Err(DataError::whole(format!(
            "{} is named .gz but is not gzip-compressed",
            path.display()
        )));
    }
    read_values(&bytes)
}

/// Writes values in the textual format, one per line.
pub fn write_text_lines(values: &[Value]) -> String {
    let mut s = String::new();
    for v in values {
        s.push_str(&write_text(v));
        s.push('\n');
    }
    s
}
