//! [`SharedStr`]: an immutable string that is cloned by reference count, for the columns whose
//! values repeat across many rows.
//!
//! An `occurrences` row names its file, its target and its enclosing definition, and a file holds
//! hundreds of rows: as `String`s every row owned copies of those values, so building, reading back
//! and freeing a table was mostly `malloc` and `free`. A `SharedStr` column holds one allocation
//! per distinct value (per file at extraction, per dictionary entry when read back from Parquet)
//! and rows share it. Stored bytes are unchanged: a `SharedStr` column is a plain Parquet string.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An immutable, cheaply cloned string. Compares, hashes and prints as the `str` it holds.
///
/// Two clones of one value compare equal without reading their bytes: sorting rows by path, or
/// call sites by caller, mostly compares values that share an allocation.
#[derive(Clone)]
pub struct SharedStr(Arc<str>);

// Hashes as the `str` (what `Borrow<str>` lookups need), like the derived impl would.
impl std::hash::Hash for SharedStr {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (*self.0).hash(state);
    }
}

impl PartialEq for SharedStr {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || *self.0 == *other.0
    }
}

impl Eq for SharedStr {}

impl PartialOrd for SharedStr {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SharedStr {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if Arc::ptr_eq(&self.0, &other.0) {
            return std::cmp::Ordering::Equal;
        }
        self.0.cmp(&other.0)
    }
}

impl SharedStr {
    /// The string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for SharedStr {
    fn default() -> Self {
        SharedStr::from("")
    }
}

impl Deref for SharedStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedStr {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for SharedStr {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl From<&str> for SharedStr {
    fn from(s: &str) -> Self {
        SharedStr(Arc::from(s))
    }
}

impl From<String> for SharedStr {
    fn from(s: String) -> Self {
        SharedStr(Arc::from(s))
    }
}

impl From<&String> for SharedStr {
    fn from(s: &String) -> Self {
        SharedStr::from(s.as_str())
    }
}

impl From<SharedStr> for String {
    fn from(s: SharedStr) -> Self {
        s.0.to_string()
    }
}

impl PartialEq<str> for SharedStr {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for SharedStr {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for SharedStr {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<SharedStr> for str {
    fn eq(&self, other: &SharedStr) -> bool {
        self == &*other.0
    }
}

impl PartialEq<SharedStr> for &str {
    fn eq(&self, other: &SharedStr) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<SharedStr> for String {
    fn eq(&self, other: &SharedStr) -> bool {
        **self == *other.0
    }
}

impl serde::Serialize for SharedStr {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_one_allocation_and_compare_as_str() {
        let a = SharedStr::from("src/lib.rs");
        let b = a.clone();
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        let hash = |v: &dyn Fn(&mut std::hash::DefaultHasher)| {
            let mut h = std::hash::DefaultHasher::new();
            v(&mut h);
            std::hash::Hasher::finish(&h)
        };
        use std::hash::Hash;
        assert_eq!(hash(&|h| a.hash(h)), hash(&|h| "src/lib.rs".hash(h)));
        assert_eq!(a, "src/lib.rs");
        assert_eq!(a, "src/lib.rs".to_string());
        let less = std::cmp::Ordering::Less;
        assert_eq!(SharedStr::from("a").cmp(&SharedStr::from("b")), less);
        // Equal text in separate allocations is still equal, and orders as text.
        let other = SharedStr::from(String::from("src/lib.rs"));
        assert!(!std::ptr::eq(a.as_str(), other.as_str()));
        assert_eq!(a, other);
        assert_eq!(a.cmp(&other), std::cmp::Ordering::Equal);
        assert_eq!(a.cmp(&b), std::cmp::Ordering::Equal);
        assert_eq!(SharedStr::from("src/a.rs").cmp(&a), less);
        assert_eq!(format!("{a} {a:?}"), "src/lib.rs \"src/lib.rs\"");
        assert_eq!(String::from(a), "src/lib.rs");
    }
}
