//! How a Rust field type maps to an Arrow column, and back.
//!
//! Every table column is a plain Rust type implementing [`Column`]; the table macro uses it to build
//! the Arrow schema, to encode rows into arrays, to decode arrays back into rows and to compare
//! values when sorting. Only signed integer types are used so that every engine (DuckDB, Spark,
//! Trino, pandas) reads the files without unsigned-type surprises.
//!
//! Size: each column type implements every form of the trait (Arrow, JSON, row codec, digest) in
//! one place, so that no form can drift from the others; about 80 of its lines are tests.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, BooleanArray, DictionaryArray, Float64Array, Int32Array, Int32Builder,
    Int64Array, Int8Array, ListArray, ListBuilder, StringArray, StringBuilder,
};
use arrow::buffer::OffsetBuffer;
use arrow::datatypes::{DataType, Field, Int32Type, Int8Type};

use crate::row_codec::{RowReader, RowWriter};
use crate::{FormatError, SharedStr};

/// A Rust type that can be stored as one Arrow/Parquet column.
pub trait Column: Sized + Clone + PartialEq + std::fmt::Debug + Send + Sync {
    /// Short type name shown by `ckb schema` (`string`, `int64`, `list<string>`, …).
    const TYPE_NAME: &'static str;
    /// Whether the column may hold nulls.
    const NULLABLE: bool;
    /// The Arrow data type of the column.
    fn data_type() -> DataType;
    /// Encodes values, in row order, into one Arrow array.
    fn to_array<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef
    where
        Self: 'a;
    /// Encodes values for the Parquet writer only: an array the column's Parquet encoder takes in
    /// place of [`Column::to_array`]'s (same values, so the same bytes are written), which may be
    /// cheaper to build. The default is [`Column::to_array`].
    fn to_write_array<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef
    where
        Self: 'a,
    {
        Self::to_array(values)
    }
    /// Decodes an Arrow array produced by [`Column::to_array`] (or any compatible writer).
    fn from_array(array: &dyn Array, column: &str) -> Result<Vec<Self>, FormatError>;
    /// Total order used when sorting rows.
    fn compare(a: &Self, b: &Self) -> Ordering;
    /// The value as the bytes [`Column::compare`] orders by, for a column that sorts as a byte
    /// string (strings do); `None` for the others. A table whose leading sort column has them is
    /// sorted by a prefix of those bytes first ([`crate::table::sort_rows`]).
    fn sort_bytes(&self) -> Option<&[u8]> {
        None
    }
    /// The value as JSON (JSON Lines export); nulls are `Value::Null`.
    fn to_json(&self) -> serde_json::Value;
    /// Writes the value in the binary row form ([`crate::row_codec`]).
    fn put(&self, out: &mut RowWriter);
    /// Reads a value [`Column::put`] wrote.
    fn take(input: &mut RowReader<'_>) -> Result<Self, FormatError>;
    /// Appends the value's digest form: bytes from which the value can be read back unambiguously
    /// (fixed-width little-endian numbers, length-prefixed strings, a tag before an optional
    /// value), so that two different sequences of values never give the same bytes. Hashed by
    /// [`crate::parquet_io`] to recognise a row group it has encoded before.
    fn put_digest(&self, out: &mut Vec<u8>);
}

/// A string's digest form: its length, then its bytes.
fn put_digest_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn downcast<'a, A: 'static>(array: &'a dyn Array, column: &str) -> Result<&'a A, FormatError> {
    array
        .as_any()
        .downcast_ref::<A>()
        .ok_or_else(|| FormatError::ColumnType {
            column: column.to_string(),
            found: array.data_type().to_string(),
        })
}

fn null_error(column: &str) -> FormatError {
    FormatError::UnexpectedNull {
        column: column.to_string(),
    }
}

macro_rules! primitive_column {
    ($t:ty, $name:literal, $opt_name:literal, $dt:expr, $arr:ty, $cmp:expr, $put:expr, $take:expr) => {
        impl Column for $t {
            const TYPE_NAME: &'static str = $name;
            const NULLABLE: bool = false;
            fn data_type() -> DataType {
                $dt
            }
            fn to_array<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
                Arc::new(<$arr>::from_iter_values(values.copied()))
            }
            fn from_array(array: &dyn Array, column: &str) -> Result<Vec<Self>, FormatError> {
                let a = downcast::<$arr>(array, column)?;
                if a.null_count() > 0 {
                    return Err(null_error(column));
                }
                Ok(a.values().iter().copied().collect())
            }
            fn compare(a: &Self, b: &Self) -> Ordering {
                $cmp(a, b)
            }
            fn to_json(&self) -> serde_json::Value {
                serde_json::json!(*self)
            }
            fn put(&self, out: &mut RowWriter) {
                $put(out, *self)
            }
            fn take(input: &mut RowReader<'_>) -> Result<Self, FormatError> {
                $take(input)
            }
            fn put_digest(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }

        impl Column for Option<$t> {
            const TYPE_NAME: &'static str = $opt_name;
            const NULLABLE: bool = true;
            fn data_type() -> DataType {
                $dt
            }
            fn to_array<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
                Arc::new(<$arr>::from_iter(values.copied()))
            }
            fn from_array(array: &dyn Array, column: &str) -> Result<Vec<Self>, FormatError> {
                let a = downcast::<$arr>(array, column)?;
                Ok(a.iter().collect())
            }
            fn compare(a: &Self, b: &Self) -> Ordering {
                match (a, b) {
                    (None, None) => Ordering::Equal,
                    (None, Some(_)) => Ordering::Less,
                    (Some(_), None) => Ordering::Greater,
                    (Some(x), Some(y)) => $cmp(x, y),
                }
            }
            fn to_json(&self) -> serde_json::Value {
                serde_json::json!(*self)
            }
            fn put(&self, out: &mut RowWriter) {
                out.put_bool(self.is_some());
                if let Some(v) = self {
                    $put(out, *v)
                }
            }
            fn take(input: &mut RowReader<'_>) -> Result<Self, FormatError> {
                Ok(if input.take_bool()? {
                    Some($take(input)?)
                } else {
                    None
                })
            }
            fn put_digest(&self, out: &mut Vec<u8>) {
                match self {
                    None => out.push(0),
                    Some(v) => {
                        out.push(1);
                        out.extend_from_slice(&v.to_le_bytes());
                    }
                }
            }
        }
    };
}

primitive_column!(
    i32,
    "int32",
    "int32?",
    DataType::Int32,
    Int32Array,
    Ord::cmp,
    |out: &mut RowWriter, v: i32| out.put_i64(i64::from(v)),
    RowReader::take_i32
);
primitive_column!(
    i64,
    "int64",
    "int64?",
    DataType::Int64,
    Int64Array,
    Ord::cmp,
    RowWriter::put_i64,
    RowReader::take_i64
);
primitive_column!(
    f64,
    "float64",
    "float64?",
    DataType::Float64,
    Float64Array,
    f64::total_cmp,
    RowWriter::put_f64,
    RowReader::take_f64
);

impl Column for bool {
    const TYPE_NAME: &'static str = "bool";
    const NULLABLE: bool = false;
    fn data_type() -> DataType {
        DataType::Boolean
    }
    fn to_array<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        Arc::new(BooleanArray::from_iter(values.map(|v| Some(*v))))
    }
    fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Bool(*self)
    }
    fn from_array(array: &dyn Array, column: &str) -> Result<Vec<Self>, FormatError> {
        let a = downcast::<BooleanArray>(array, column)?;
        a.iter()
            .map(|v| v.ok_or_else(|| null_error(column)))
            .collect()
    }
    fn compare(a: &Self, b: &Self) -> Ordering {
        a.cmp(b)
    }
    fn put(&self, out: &mut RowWriter) {
        out.put_bool(*self);
    }
    fn put_digest(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn take(input: &mut RowReader<'_>) -> Result<Self, FormatError> {
        input.take_bool()
    }
}

/// Calls `each` with every value of a string column, in row order: a plain string array, or the
/// dictionary-encoded form the table readers ask Parquet for (each distinct value decoded once,
/// with its dictionary index, so a caller can build it once and share it).
fn for_each_str(
    array: &dyn Array,
    column: &str,
    mut each: impl FnMut(Option<(usize, &str)>),
) -> Result<(), FormatError> {
    if let Some(dict) = array.as_any().downcast_ref::<DictionaryArray<Int32Type>>() {
        let values = downcast::<StringArray>(dict.values().as_ref(), column)?;
        for key in dict.keys().iter() {
            match key {
                None => each(None),
                Some(k) => {
                    let k = usize::try_from(k)
                        .ok()
                        .filter(|&k| k < values.len() && values.is_valid(k))
                        .ok_or_else(|| FormatError::InvalidValue {
                            column: column.to_string(),
                            value: format!("dictionary key {k}"),
                        })?;
                    each(Some((k, values.value(k))));
                }
            }
        }
        return Ok(());
    }
    let a = downcast::<StringArray>(array, column)?;
    for (i, v) in a.iter().enumerate() {
        each(v.map(|v| (i, v)));
    }
    Ok(())
}

fn read_strings<T>(
    array: &dyn Array,
    column: &str,
    mut convert: impl FnMut(Option<(usize, &str)>) -> Option<T>,
) -> Result<Vec<T>, FormatError> {
    let mut out = Vec::with_capacity(array.len());
    let mut null = false;
    for_each_str(array, column, |v| match convert(v) {
        Some(v) => out.push(v),
        None => null = true,
    })?;
    if null {
        return Err(null_error(column));
    }
    Ok(out)
}

/// `Column` for a string type and its `Option`: a Parquet string either way. `$reader` makes the
/// per-column state for a decoded array, `$decode` turns one value (its dictionary index and text)
/// into the type with it.
macro_rules! string_column {
    ($t:ty, $reader:expr, $decode:expr, $from_shared:expr) => {
        string_column!(
            $t,
            $reader,
            $decode,
            Self::to_array,
            Self::to_array,
            $from_shared
        );
    };
    ($t:ty, $reader:expr, $decode:expr, $write:path, $write_opt:path, $from_shared:expr) => {
        impl Column for $t {
            const TYPE_NAME: &'static str = "string";
            const NULLABLE: bool = false;
            fn data_type() -> DataType {
                DataType::Utf8
            }
            fn to_array<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
                Arc::new(StringArray::from_iter_values(values))
            }
            fn to_write_array<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
                $write(values)
            }
            fn to_json(&self) -> serde_json::Value {
                serde_json::Value::String(self.to_string())
            }
            fn from_array(array: &dyn Array, column: &str) -> Result<Vec<Self>, FormatError> {
                let mut state = $reader(array);
                read_strings(array, column, |v| v.map(|v| $decode(&mut state, v)))
            }
            fn compare(a: &Self, b: &Self) -> Ordering {
                a.cmp(b)
            }
            fn sort_bytes(&self) -> Option<&[u8]> {
                Some(self.as_bytes())
            }
            fn put(&self, out: &mut RowWriter) {
                out.put_str(self);
            }
            fn take(input: &mut RowReader<'_>) -> Result<Self, FormatError> {
                input.take_str().map($from_shared)
            }
            fn put_digest(&self, out: &mut Vec<u8>) {
                put_digest_str(out, self);
            }
        }

        impl Column for Option<$t> {
            const TYPE_NAME: &'static str = "string?";
            const NULLABLE: bool = true;
            fn data_type() -> DataType {
                DataType::Utf8
            }
            fn to_array<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
                Arc::new(StringArray::from_iter(values.map(|v| v.as_deref())))
            }
            fn to_write_array<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
                $write_opt(values)
            }
            fn to_json(&self) -> serde_json::Value {
                serde_json::json!(self)
            }
            fn from_array(array: &dyn Array, column: &str) -> Result<Vec<Self>, FormatError> {
                let mut state = $reader(array);
                read_strings(array, column, |v| Some(v.map(|v| $decode(&mut state, v))))
            }
            fn compare(a: &Self, b: &Self) -> Ordering {
                a.cmp(b)
            }
            fn put(&self, out: &mut RowWriter) {
                out.put_opt_str(self.as_deref());
            }
            fn take(input: &mut RowReader<'_>) -> Result<Self, FormatError> {
                Ok(input.take_opt_str()?.map($from_shared))
            }
            fn put_digest(&self, out: &mut Vec<u8>) {
                match self {
                    None => out.push(0),
                    Some(v) => {
                        out.push(1);
                        put_digest_str(out, v);
                    }
                }
            }
        }
    };
}

string_column!(
    String,
    |_: &dyn Array| (),
    |_: &mut (), (_, s): (usize, &str)| s.to_owned(),
    |s: SharedStr| s.as_str().to_owned()
);

/// Builds [`SharedStr`]s for one column: once per dictionary entry, or once per run of equal
/// values in a plain array (tables are sorted, so repeated values mostly come in runs).
struct SharedStrs {
    dictionary: bool,
    by_key: Vec<Option<SharedStr>>,
    last: Option<SharedStr>,
}

impl SharedStrs {
    fn for_array(array: &dyn Array) -> Self {
        let dictionary = array
            .as_any()
            .downcast_ref::<DictionaryArray<Int32Type>>()
            .map(|d| d.values().len());
        SharedStrs {
            dictionary: dictionary.is_some(),
            by_key: vec![None; dictionary.unwrap_or(0)],
            last: None,
        }
    }

    /// `key` is a dictionary index [`for_each_str`] checked against the dictionary's length.
    fn get(&mut self, key: usize, value: &str) -> SharedStr {
        if self.dictionary {
            return self.by_key[key]
                .get_or_insert_with(|| SharedStr::from(value))
                .clone();
        }
        match &self.last {
            Some(last) if last.as_str() == value => last.clone(),
            _ => self.last.insert(SharedStr::from(value)).clone(),
        }
    }
}

string_column!(
    SharedStr,
    SharedStrs::for_array,
    |shared: &mut SharedStrs, (k, s): (usize, &str)| shared.get(k, s),
    shared_dictionary,
    optional_shared_dictionary,
    std::convert::identity
);

fn optional_shared_dictionary<'a>(
    values: impl ExactSizeIterator<Item = &'a Option<SharedStr>>,
) -> ArrayRef {
    shared_values_dictionary(values.map(Option::as_ref))
}

fn shared_dictionary<'a>(values: impl ExactSizeIterator<Item = &'a SharedStr>) -> ArrayRef {
    shared_values_dictionary(values.map(Some))
}

/// A [`SharedStr`] column for the Parquet writer: a dictionary array with one entry per shared
/// allocation, the rows pointing at theirs. A plain string array copied every row's bytes (most
/// of an `occurrences` table's memory at write time); the Parquet encoder looks each row's value
/// up either way and interns it by content, so the bytes written are the same. Entries are
/// found by allocation, not content: two allocations of one string become two entries, which the
/// encoder merges.
fn shared_values_dictionary<'a>(
    values: impl ExactSizeIterator<Item = Option<&'a SharedStr>>,
) -> ArrayRef {
    let mut keys = Int32Builder::with_capacity(values.len());
    let mut entries = StringBuilder::new();
    let mut by_allocation: HashMap<usize, i32, foldhash::fast::FixedState> = HashMap::default();
    // Rows come sorted, so a value mostly repeats the previous row's.
    let mut last: Option<(usize, i32)> = None;
    for value in values {
        let Some(value) = value else {
            keys.append_null();
            continue;
        };
        let address = value.as_str().as_ptr() as usize;
        let key = match last {
            Some((a, key)) if a == address => key,
            _ => {
                let next = i32::try_from(by_allocation.len()).unwrap_or(i32::MAX);
                let key = *by_allocation.entry(address).or_insert_with(|| {
                    entries.append_value(value.as_str());
                    next
                });
                last = Some((address, key));
                key
            }
        };
        keys.append_value(key);
    }
    Arc::new(DictionaryArray::new(
        keys.finish(),
        Arc::new(entries.finish()),
    ))
}

/// The `roles` column for the Parquet writer: a list whose items are keys into the role names,
/// where [`Column::to_array`] copies a name's bytes into the list for every role of every row
/// (an `occurrences` table has a row per site). The encoder reads the same values from it, so
/// the same bytes are written.
fn roles_for_writer<'a>(values: impl ExactSizeIterator<Item = &'a Roles>) -> ArrayRef {
    let mut offsets: Vec<i32> = Vec::with_capacity(values.len() + 1);
    offsets.push(0);
    let mut keys: Vec<i8> = Vec::with_capacity(values.len());
    for roles in values {
        for (key, (role, _)) in (0i8..).zip(Roles::NAMES.iter()) {
            if roles.contains(*role) {
                keys.push(key);
            }
        }
        offsets.push(i32::try_from(keys.len()).unwrap_or(i32::MAX));
    }
    let names = StringArray::from_iter_values(Roles::NAMES.iter().map(|(_, name)| *name));
    let items = DictionaryArray::<Int8Type>::new(Int8Array::from(keys), Arc::new(names));
    let item = Arc::new(Field::new("item", items.data_type().clone(), false));
    Arc::new(ListArray::new(
        item,
        OffsetBuffer::new(offsets.into()),
        Arc::new(items),
        None,
    ))
}

fn string_list_type() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, false)))
}

fn build_string_list<'a, I, S>(rows: impl ExactSizeIterator<Item = I>) -> ArrayRef
where
    I: IntoIterator<Item = S>,
    S: AsRef<str> + 'a,
{
    let mut builder = ListBuilder::with_capacity(StringBuilder::new(), rows.len())
        .with_field(Arc::new(Field::new("item", DataType::Utf8, false)));
    for items in rows {
        for item in items {
            builder.values().append_value(item.as_ref());
        }
        builder.append(true);
    }
    Arc::new(builder.finish())
}

/// Calls `each(row, items)` for every row of a `list<string>` column, reading the offsets and the
/// value buffer directly: no per-row array slice or allocation (decoding a snapshot's
/// `occurrences.roles` this way is what keeps reading a previous snapshot cheap).
fn for_each_string_list(
    array: &dyn Array,
    column: &str,
    mut each: impl FnMut(&mut dyn Iterator<Item = &str>) -> Result<(), FormatError>,
) -> Result<(), FormatError> {
    let list = downcast::<ListArray>(array, column)?;
    if list.null_count() > 0 {
        return Err(null_error(column));
    }
    let strings = downcast::<StringArray>(list.values().as_ref(), column)?;
    if strings.null_count() > 0 {
        return Err(null_error(column));
    }
    let offsets = list.value_offsets();
    for w in offsets.windows(2) {
        let (start, end) = (w[0] as usize, w[1] as usize);
        each(&mut (start..end).map(|i| strings.value(i)))?;
    }
    Ok(())
}

fn read_string_list(array: &dyn Array, column: &str) -> Result<Vec<Vec<String>>, FormatError> {
    let mut out = Vec::with_capacity(array.len());
    for_each_string_list(array, column, |items| {
        out.push(items.map(str::to_owned).collect());
        Ok(())
    })?;
    Ok(out)
}

impl Column for Vec<String> {
    const TYPE_NAME: &'static str = "list<string>";
    const NULLABLE: bool = false;
    fn data_type() -> DataType {
        string_list_type()
    }
    fn to_array<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        build_string_list(values.map(|v| v.iter()))
    }
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!(self)
    }
    fn from_array(array: &dyn Array, column: &str) -> Result<Vec<Self>, FormatError> {
        read_string_list(array, column)
    }
    fn compare(a: &Self, b: &Self) -> Ordering {
        a.cmp(b)
    }
    fn put(&self, out: &mut RowWriter) {
        out.put_u64(self.len() as u64);
        for s in self {
            out.put_str(s);
        }
    }
    fn put_digest(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.len() as u64).to_le_bytes());
        for s in self {
            put_digest_str(out, s);
        }
    }
    fn take(input: &mut RowReader<'_>) -> Result<Self, FormatError> {
        let n = input.take_count(1)?;
        (0..n)
            .map(|_| input.take_str().map(|s| s.as_str().to_owned()))
            .collect()
    }
}

/// The roles of an occurrence, stored as a sorted `list<string>` of role names so SQL users can
/// write `list_contains(roles, 'call')`, and held in memory as a bit set.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Roles(pub u16);

impl Roles {
    /// The site defines the symbol.
    pub const DEFINITION: Roles = Roles(1);
    /// The site refers to the symbol.
    pub const REFERENCE: Roles = Roles(1 << 1);
    /// The site imports the symbol.
    pub const IMPORT: Roles = Roles(1 << 2);
    /// The site writes to the symbol.
    pub const WRITE: Roles = Roles(1 << 3);
    /// The site reads the symbol.
    pub const READ: Roles = Roles(1 << 4);
    /// The site calls the symbol.
    pub const CALL: Roles = Roles(1 << 5);
    /// The site is in generated code.
    pub const GENERATED: Roles = Roles(1 << 6);
    /// The site is in test code.
    pub const TEST: Roles = Roles(1 << 7);
    /// A forward declaration (for example a C prototype).
    pub const FORWARD_DEFINITION: Roles = Roles(1 << 8);
    /// The site names a supertype: a base class, an extended or implemented interface, a
    /// supertrait, or the trait of a Rust `impl Trait for Type`.
    pub const SUPERTYPE: Roles = Roles(1 << 9);
    /// The site names the type of a Rust `impl Trait for Type` (the subtype of that trait).
    pub const SUBTYPE: Roles = Roles(1 << 10);

    /// Every role with its stored name, in storage order.
    pub const NAMES: [(Roles, &'static str); 11] = [
        (Roles::DEFINITION, "definition"),
        (Roles::REFERENCE, "reference"),
        (Roles::IMPORT, "import"),
        (Roles::WRITE, "write"),
        (Roles::READ, "read"),
        (Roles::CALL, "call"),
        (Roles::GENERATED, "generated"),
        (Roles::TEST, "test"),
        (Roles::FORWARD_DEFINITION, "forward-definition"),
        (Roles::SUPERTYPE, "supertype"),
        (Roles::SUBTYPE, "subtype"),
    ];

    /// Whether every role of `other` is set in `self`.
    pub fn contains(self, other: Roles) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }

    /// The names of the set roles, in storage order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Roles::NAMES
            .iter()
            .filter(move |(r, _)| self.contains(*r))
            .map(|(_, n)| *n)
    }

    /// Parses a stored role name.
    pub fn from_name(name: &str) -> Option<Roles> {
        Roles::NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(r, _)| *r)
    }
}

impl std::ops::BitOr for Roles {
    type Output = Roles;
    fn bitor(self, rhs: Roles) -> Roles {
        Roles(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Roles {
    fn bitor_assign(&mut self, rhs: Roles) {
        self.0 |= rhs.0;
    }
}

impl Column for Roles {
    const TYPE_NAME: &'static str = "list<string>";
    const NULLABLE: bool = false;
    fn data_type() -> DataType {
        string_list_type()
    }
    fn to_array<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        build_string_list(values.map(|r| r.names()))
    }
    fn to_write_array<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        roles_for_writer(values)
    }
    fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Array(
            self.names()
                .map(|n| serde_json::Value::String(n.into()))
                .collect(),
        )
    }
    fn from_array(array: &dyn Array, column: &str) -> Result<Vec<Self>, FormatError> {
        let mut out = Vec::with_capacity(array.len());
        for_each_string_list(array, column, |names| {
            let mut roles = Roles::default();
            for n in names {
                roles |= Roles::from_name(n).ok_or_else(|| FormatError::InvalidValue {
                    column: column.to_string(),
                    value: n.to_string(),
                })?;
            }
            out.push(roles);
            Ok(())
        })?;
        Ok(out)
    }
    fn compare(a: &Self, b: &Self) -> Ordering {
        a.cmp(b)
    }
    fn put(&self, out: &mut RowWriter) {
        out.put_u64(u64::from(self.0));
    }
    fn put_digest(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
    }
    fn take(input: &mut RowReader<'_>) -> Result<Self, FormatError> {
        let bits = input.take_u64()?;
        u16::try_from(bits)
            .ok()
            .filter(|b| Roles(*b).names().count() == b.count_ones() as usize)
            .map(Roles)
            .ok_or_else(|| FormatError::Damaged {
                what: "cached rows".into(),
                why: format!("{bits} is no set of roles"),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Column>(values: Vec<T>) {
        let array = T::to_array(values.iter());
        assert_eq!(array.data_type(), &T::data_type());
        assert_eq!(T::from_array(array.as_ref(), "c").unwrap(), values);
    }

    #[test]
    fn every_column_type_round_trips() {
        round_trip(vec![1i32, -2, 3]);
        round_trip(vec![Some(1i64), None, Some(-5)]);
        round_trip(vec![0.5f64, 1e-9]);
        round_trip(vec![true, false]);
        round_trip(vec!["a".to_string(), String::new()]);
        round_trip(vec![Some("a".to_string()), None]);
        round_trip(vec![vec!["x".to_string()], vec![]]);
        round_trip(vec![Roles::DEFINITION | Roles::WRITE, Roles::default()]);
        round_trip(vec![SharedStr::from("a"), SharedStr::default()]);
        round_trip(vec![Some(SharedStr::from("a")), None]);
    }

    #[test]
    fn string_columns_read_dictionary_arrays_and_share_each_distinct_value() {
        use arrow::array::{DictionaryArray, Int32Array};
        let values = StringArray::from(vec!["src/a.rs", "src/b.rs"]);
        let keys = Int32Array::from(vec![Some(1), Some(0), None, Some(1)]);
        let dict = DictionaryArray::<Int32Type>::try_new(keys, Arc::new(values)).unwrap();

        let shared = <Option<SharedStr>>::from_array(&dict, "path").unwrap();
        let strings: Vec<Option<&str>> = shared.iter().map(|v| v.as_deref()).collect();
        assert_eq!(
            strings,
            [Some("src/b.rs"), Some("src/a.rs"), None, Some("src/b.rs")]
        );
        let (first, last) = (shared[0].as_ref().unwrap(), shared[3].as_ref().unwrap());
        assert!(
            std::ptr::eq(first.as_str(), last.as_str()),
            "one string per dictionary entry"
        );
        let owned = <Option<String>>::from_array(&dict, "path").unwrap();
        assert_eq!(owned[0].as_deref(), Some("src/b.rs"));
        assert_eq!(owned[2], None);

        // A null in a non-null column is an error in either form.
        assert!(matches!(
            SharedStr::from_array(&dict, "path"),
            Err(FormatError::UnexpectedNull { .. })
        ));
        assert!(matches!(
            String::from_array(&dict, "path"),
            Err(FormatError::UnexpectedNull { .. })
        ));

        // Plain arrays: runs of equal values share one string.
        let plain = StringArray::from(vec!["x", "x", "y", "x"]);
        let shared = SharedStr::from_array(&plain, "path").unwrap();
        assert_eq!(shared, ["x", "x", "y", "x"].map(SharedStr::from));
        assert!(std::ptr::eq(shared[0].as_str(), shared[1].as_str()));
    }

    #[test]
    fn roles_store_names_in_fixed_order() {
        let r = Roles::CALL | Roles::REFERENCE;
        assert_eq!(r.names().collect::<Vec<_>>(), vec!["reference", "call"]);
        assert!(!Roles::default().contains(Roles::default()));
    }

    #[test]
    fn null_in_required_column_is_an_error() {
        let array = Option::<String>::to_array([Some("a".to_string()), None].iter());
        assert!(matches!(
            String::from_array(array.as_ref(), "name"),
            Err(FormatError::UnexpectedNull { .. })
        ));
    }
}
