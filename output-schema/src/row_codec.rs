//! A compact binary form of table rows, for the caches the pipeline keeps beside the snapshots
//! (the syntax cache: the rows tree-sitter derived from a file, reused while the file's content
//! stays the same). Never a snapshot file: snapshots hold Parquet only.
//!
//! A blob is a string table followed by the values. Every string goes into the table once and is
//! written as its index, so the paths, kinds and sources a file's rows repeat cost a byte or two
//! each, and a reader shares one [`SharedStr`] among all rows that name the string. Integers are
//! LEB128 varints (signed ones zigzag-encoded), floats their 8 little-endian bytes.
//!
//! The reader treats its input as untrusted: every length and index is checked against what is
//! left, counts are bounded by the bytes that would hold them, and anything out of place is a
//! [`FormatError::Damaged`], never a panic. [`Column::put`] and [`Column::take`] give every column
//! type its form, and the [`table!`](crate::table!) macro composes them into [`Table::put_row`] and
//! [`Table::take_row`], so a row's binary form can never disagree with its columns.

use std::collections::HashMap;

use crate::{FormatError, SharedStr, Table};

/// Writes values, interning their strings.
#[derive(Debug, Default)]
pub struct RowWriter {
    strings: Vec<Box<str>>,
    index: HashMap<Box<str>, u32>,
    body: Vec<u8>,
}

impl RowWriter {
    /// An empty writer.
    pub fn new() -> RowWriter {
        RowWriter::default()
    }

    /// An unsigned integer.
    pub fn put_u64(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.body.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.body.push(v as u8);
    }

    /// A signed integer (zigzag).
    pub fn put_i64(&mut self, v: i64) {
        self.put_u64(((v << 1) ^ (v >> 63)) as u64);
    }

    /// A float, bit for bit.
    pub fn put_f64(&mut self, v: f64) {
        self.body.extend_from_slice(&v.to_bits().to_le_bytes());
    }

    /// A boolean.
    pub fn put_bool(&mut self, v: bool) {
        self.body.push(u8::from(v));
    }

    /// A string (its index in the string table).
    pub fn put_str(&mut self, s: &str) {
        let i = self.intern(s);
        self.put_u64(u64::from(i));
    }

    /// An optional string: 0 for none, else its index plus one.
    pub fn put_opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.put_u64(0),
            Some(s) => {
                let i = self.intern(s);
                self.put_u64(u64::from(i) + 1);
            }
        }
    }

    /// A list of rows of one table, with their count.
    pub fn put_rows<T: Table>(&mut self, rows: &[T]) {
        self.put_u64(rows.len() as u64);
        for row in rows {
            row.put_row(self);
        }
    }

    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.strings.len() as u32;
        self.strings.push(s.into());
        self.index.insert(s.into(), i);
        i
    }

    /// The blob: string table, then the values.
    pub fn finish(self) -> Vec<u8> {
        let table: usize = self.strings.iter().map(|s| s.len() + 2).sum();
        let mut head = RowWriter {
            body: Vec::with_capacity(table + self.body.len() + 8),
            ..RowWriter::default()
        };
        head.put_u64(self.strings.len() as u64);
        for s in &self.strings {
            head.put_u64(s.len() as u64);
            head.body.extend_from_slice(s.as_bytes());
        }
        let mut out = head.body;
        out.extend_from_slice(&self.body);
        out
    }
}

/// Reads values written by a [`RowWriter`].
#[derive(Debug)]
pub struct RowReader<'a> {
    strings: Vec<SharedStr>,
    rest: &'a [u8],
}

fn damaged(why: impl Into<String>) -> FormatError {
    FormatError::Damaged {
        what: "cached rows".into(),
        why: why.into(),
    }
}

impl<'a> RowReader<'a> {
    /// Reads the string table of `blob`; the values follow.
    pub fn new(blob: &'a [u8]) -> Result<RowReader<'a>, FormatError> {
        let mut r = RowReader {
            strings: Vec::new(),
            rest: blob,
        };
        let n = r.take_count(1)?;
        let mut strings = Vec::with_capacity(n);
        for _ in 0..n {
            let len = r.take_count(1)?;
            let (bytes, rest) = r.rest.split_at(len);
            let s = std::str::from_utf8(bytes).map_err(|_| damaged("a string is not UTF-8"))?;
            strings.push(SharedStr::from(s));
            r.rest = rest;
        }
        r.strings = strings;
        Ok(r)
    }

    /// Whether every value was read.
    pub fn is_at_end(&self) -> bool {
        self.rest.is_empty()
    }

    /// An unsigned integer.
    pub fn take_u64(&mut self) -> Result<u64, FormatError> {
        let mut v = 0u64;
        for (i, &b) in self.rest.iter().enumerate().take(10) {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                self.rest = &self.rest[i + 1..];
                return Ok(v);
            }
        }
        Err(damaged("a number runs past the end"))
    }

    /// A count of items that take at least `min_bytes` each: never more than the bytes left
    /// could hold, so a damaged count cannot make a reader reserve memory it will not fill.
    pub fn take_count(&mut self, min_bytes: usize) -> Result<usize, FormatError> {
        let n = self.take_u64()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n.saturating_mul(min_bytes.max(1)) <= self.rest.len())
            .ok_or_else(|| damaged(format!("a count of {n} is more than the bytes left")))
    }

    /// A signed integer.
    pub fn take_i64(&mut self) -> Result<i64, FormatError> {
        let v = self.take_u64()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A 32-bit signed integer.
    pub fn take_i32(&mut self) -> Result<i32, FormatError> {
        let v = self.take_i64()?;
        i32::try_from(v).map_err(|_| damaged(format!("{v} is not a 32-bit integer")))
    }

    /// A float.
    pub fn take_f64(&mut self) -> Result<f64, FormatError> {
        if self.rest.len() < 8 {
            return Err(damaged("a float runs past the end"));
        }
        let (bytes, rest) = self.rest.split_at(8);
        self.rest = rest;
        let mut b = [0u8; 8];
        b.copy_from_slice(bytes);
        Ok(f64::from_bits(u64::from_le_bytes(b)))
    }

    /// A boolean.
    pub fn take_bool(&mut self) -> Result<bool, FormatError> {
        match self.rest.split_first() {
            Some((&b, rest)) if b <= 1 => {
                self.rest = rest;
                Ok(b == 1)
            }
            _ => Err(damaged("not a boolean")),
        }
    }

    /// A string, shared with every other value naming it.
    pub fn take_str(&mut self) -> Result<SharedStr, FormatError> {
        let i = self.take_u64()?;
        self.string(i)
    }

    /// An optional string.
    pub fn take_opt_str(&mut self) -> Result<Option<SharedStr>, FormatError> {
        match self.take_u64()? {
            0 => Ok(None),
            i => self.string(i - 1).map(Some),
        }
    }

    fn string(&self, i: u64) -> Result<SharedStr, FormatError> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.strings.get(i))
            .cloned()
            .ok_or_else(|| damaged(format!("string {i} is not in the table")))
    }

    /// A list of rows written by [`RowWriter::put_rows`].
    pub fn take_rows<T: Table>(&mut self) -> Result<Vec<T>, FormatError> {
        // Every column takes at least one byte.
        let n = self.take_count(T::INFO.columns.len())?;
        let mut rows = Vec::with_capacity(n);
        for _ in 0..n {
            rows.push(T::take_row(self)?);
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::{ImportRow, OccurrenceRow, SymbolRow};
    use crate::Roles;

    fn symbol(i: i32) -> SymbolRow {
        SymbolRow {
            stable_id: format!("ckb:r:sym:{i}").into(),
            name: format!("name{i}"),
            kind: "function".into(),
            container: (i % 2 == 0).then(|| SharedStr::from("Outer")),
            signature: Some("fn f(x: u32) -> u32".into()),
            arity: (i % 3 != 0).then_some(i),
            definition_version_id: "dv".into(),
            visibility: "public".into(),
            visibility_confidence: 0.75,
            visibility_source: "keyword".into(),
            module_id: None,
            language: Some("rust".into()),
            path: "src/lib.rs".into(),
            start_line: i,
            start_col: -i,
            end_line: i + 1,
            end_col: i32::MAX,
            source: "tree-sitter".into(),
            backend_id: None,
            body_hash: Some(format!("{i:x}")),
        }
    }

    #[test]
    fn rows_of_every_code_table_round_trip() {
        let symbols: Vec<SymbolRow> = (0..50).map(symbol).collect();
        let occurrences = vec![OccurrenceRow {
            symbol_id: None,
            name: "x".into(),
            path: "src/lib.rs".into(),
            line: 1,
            col: 2,
            end_line: 1,
            end_col: 3,
            roles: Roles::CALL | Roles::REFERENCE,
            enclosing_symbol_id: Some("ckb:r:sym:1".into()),
            source: "tree-sitter".into(),
        }];
        let imports = vec![ImportRow {
            path: "src/lib.rs".into(),
            line: 1,
            raw: "std::io".into(),
            names: vec!["Read".into(), "Write".into()],
            language: "rust".into(),
            target: None,
            kind: "unknown".into(),
            method: None,
            confidence: f64::MIN_POSITIVE,
            from_module: None,
            to_module: Some("m".into()),
        }];
        let mut w = RowWriter::new();
        w.put_rows(&symbols);
        w.put_rows(&occurrences);
        w.put_rows(&imports);
        w.put_i64(i64::MIN);
        let blob = w.finish();
        let mut r = RowReader::new(&blob).unwrap();
        assert_eq!(r.take_rows::<SymbolRow>().unwrap(), symbols);
        assert_eq!(r.take_rows::<OccurrenceRow>().unwrap(), occurrences);
        assert_eq!(r.take_rows::<ImportRow>().unwrap(), imports);
        assert_eq!(r.take_i64().unwrap(), i64::MIN);
        assert!(r.is_at_end());
    }

    #[test]
    fn every_cut_and_every_flipped_byte_is_an_error_or_rows_never_a_panic() {
        let mut w = RowWriter::new();
        w.put_rows(&(0..5).map(symbol).collect::<Vec<_>>());
        let blob = w.finish();
        for cut in 0..blob.len() {
            let read = RowReader::new(&blob[..cut]).and_then(|mut r| r.take_rows::<SymbolRow>());
            assert!(read.is_err(), "a blob cut at {cut} decoded");
        }
        for i in 0..blob.len() {
            for bit in 0..8 {
                let mut bad = blob.clone();
                bad[i] ^= 1 << bit;
                let _ = RowReader::new(&bad).and_then(|mut r| r.take_rows::<SymbolRow>());
            }
        }
    }

    #[test]
    fn a_huge_count_is_refused_before_anything_is_reserved() {
        let mut w = RowWriter::new();
        w.put_u64(u64::MAX / 2);
        let blob = w.finish();
        let mut r = RowReader::new(&blob).unwrap();
        assert!(r.take_rows::<SymbolRow>().is_err());
    }
}
