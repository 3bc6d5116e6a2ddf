//! Every view of the snapshot format, one module each: precomputed answers stored as canonical,
//! zstd-compressed JSON at `views/<name>.json.zst` ([`crate::layout::view_file`]).
//!
//! A view is declared the way a table is: a typed serde struct whose every field carries a
//! one-line doc, a name, the stages that write it, and a place in [`ALL_VIEWS`]. The pipeline
//! writes a view from its struct ([`View::encode`], canonical JSON, so equal views are equal
//! bytes), readers decode it back into the struct ([`View::decode`]); `ckb schema` lists the
//! fields ([`ViewInfo::fields`]) and `ckb verify` checks that each view the manifest lists
//! decodes ([`ViewInfo::check`]). Field names in the files are camelCase.

mod architecture;
mod syntax_files;

pub use architecture::{
    ArchitectureView, ModuleCounts, ModuleEdgeEntry, ModuleEntry, ModuleEntrypointEntry,
};
pub use syntax_files::{SyntaxFileEntry, SyntaxFilesView};

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::Stage;

/// One field of a view, as documented data (nested fields are flattened: `modules[].id`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewField {
    /// Path of the field in the JSON: `.` between objects, `[]` for list items, `{}` for the
    /// values of a map keyed by name.
    pub path: String,
    /// Type name as shown by `ckb schema` (`string`, `int64?`, `list<module>`, …).
    pub type_name: String,
    /// One-line description.
    pub doc: &'static str,
}

/// Static description of a view.
#[derive(Debug)]
pub struct ViewInfo {
    /// View name; the file is `views/<name>.json.zst`.
    pub name: &'static str,
    /// What the view holds.
    pub doc: &'static str,
    /// Stages that write it.
    pub stages: &'static [Stage],
    /// Every field, flattened, in declaration order.
    pub fields: fn() -> Vec<ViewField>,
    /// Decodes the view's (decompressed) JSON into its struct: `Err` says why it does not.
    pub check: fn(&[u8]) -> Result<(), String>,
}

impl ViewInfo {
    /// The description of view `V`: its name, what it holds and the stages that write it; the
    /// field list and the decoding check come from the struct itself.
    pub const fn of<V: View>(
        name: &'static str,
        doc: &'static str,
        stages: &'static [Stage],
    ) -> ViewInfo {
        ViewInfo {
            name,
            doc,
            stages,
            fields: fields_of::<V>,
            check: check_decodes::<V>,
        }
    }

    /// File name of the view inside a snapshot folder.
    pub fn file_name(&self) -> String {
        crate::layout::view_file(self.name)
    }
}

/// A typed view.
pub trait View: Serialize + DeserializeOwned + ViewType {
    /// The view's description.
    const INFO: &'static ViewInfo;

    /// The view as canonical JSON (compact), the bytes that are compressed into its file.
    fn encode(&self) -> String {
        crate::json::to_string(self).expect("a view serializes to JSON")
    }

    /// Decodes a view's (decompressed) JSON.
    fn decode(json: &[u8]) -> Result<Self, String> {
        serde_json::from_slice(json).map_err(|e| e.to_string())
    }
}

/// How a field's type is shown by `ckb schema`, and the fields of a nested struct.
pub trait ViewType {
    /// Type name (`string`, `int64`, `list<module>`, …).
    fn type_name() -> String;
    /// Appends the fields of a struct type below `prefix`; nothing for a plain value.
    fn describe(_prefix: &str, _out: &mut Vec<ViewField>) {}
}

macro_rules! plain_view_type {
    ($($ty:ty => $name:literal),* $(,)?) => {
        $(impl ViewType for $ty {
            fn type_name() -> String {
                $name.into()
            }
        })*
    };
}

plain_view_type!(String => "string", i64 => "int64", u32 => "int32", f64 => "float64", bool => "bool");

impl<T: ViewType> ViewType for Option<T> {
    fn type_name() -> String {
        format!("{}?", T::type_name())
    }
    fn describe(prefix: &str, out: &mut Vec<ViewField>) {
        T::describe(prefix, out)
    }
}

impl<T: ViewType> ViewType for Vec<T> {
    fn type_name() -> String {
        format!("list<{}>", T::type_name())
    }
    fn describe(prefix: &str, out: &mut Vec<ViewField>) {
        T::describe(&format!("{prefix}[]"), out)
    }
}

impl<T: ViewType> ViewType for BTreeMap<String, T> {
    fn type_name() -> String {
        format!("map<string, {}>", T::type_name())
    }
    fn describe(prefix: &str, out: &mut Vec<ViewField>) {
        T::describe(&format!("{prefix}{{}}"), out)
    }
}

/// A Rust field name as the JSON names it (`fan_in` → `fanIn`).
pub(crate) fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Declares a struct of a view: the serde struct (camelCase field names) and its [`ViewType`],
/// whose field list comes from the same documented fields, so the two cannot disagree.
macro_rules! view_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident as $type_name:literal {
            $(
                #[doc = $doc:literal]
                pub $field:ident: $ty:ty,
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            $(
                #[doc = $doc]
                pub $field: $ty,
            )*
        }

        impl $crate::views::ViewType for $name {
            fn type_name() -> String {
                $type_name.into()
            }
            fn describe(prefix: &str, out: &mut Vec<$crate::views::ViewField>) {
                $(
                    let name = $crate::views::camel_case(stringify!($field));
                    let path = if prefix.is_empty() {
                        name
                    } else {
                        format!("{prefix}.{name}")
                    };
                    out.push($crate::views::ViewField {
                        path: path.clone(),
                        type_name: <$ty as $crate::views::ViewType>::type_name(),
                        doc: $doc.trim(),
                    });
                    <$ty as $crate::views::ViewType>::describe(&path, out);
                )*
            }
        }
    };
}
use view_struct;

/// The fields of a view struct, flattened ([`ViewInfo::fields`]).
pub fn fields_of<V: ViewType>() -> Vec<ViewField> {
    let mut out = Vec::new();
    V::describe("", &mut out);
    out
}

/// Whether JSON decodes as view `V` ([`ViewInfo::check`]).
pub fn check_decodes<V: View>(json: &[u8]) -> Result<(), String> {
    V::decode(json).map(|_| ())
}

/// Every view, in the order `ckb schema` lists them (by name, the order they are written in).
pub static ALL_VIEWS: &[&ViewInfo] = &[ArchitectureView::INFO, SyntaxFilesView::INFO];

/// Finds a view's description by name.
pub fn view_info(name: &str) -> Option<&'static ViewInfo> {
    ALL_VIEWS.iter().copied().find(|v| v.name == name)
}

/// The views one snapshot run writes, each typed; a view is `None` when its stage did not run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Views {
    /// The `architecture` view (modules stage).
    pub architecture: Option<ArchitectureView>,
    /// The `syntax-files` view (syntax stage).
    pub syntax_files: Option<SyntaxFilesView>,
}

impl Views {
    /// Takes every view `other` holds (each stage fills its own).
    pub fn absorb(&mut self, other: Views) {
        let Views {
            architecture,
            syntax_files,
        } = other;
        if architecture.is_some() {
            self.architecture = architecture;
        }
        if syntax_files.is_some() {
            self.syntax_files = syntax_files;
        }
    }

    /// `(name, canonical JSON)` of each view present, in [`ALL_VIEWS`] order.
    pub fn encoded(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(v) = &self.architecture {
            out.push((ArchitectureView::INFO.name, v.encode()));
        }
        if let Some(v) = &self.syntax_files {
            out.push((SyntaxFilesView::INFO.name, v.encode()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_are_sorted_unique_and_documented() {
        let names: Vec<&str> = ALL_VIEWS.iter().map(|v| v.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(
            names, sorted,
            "ALL_VIEWS is sorted by name, without repeats"
        );
        for v in ALL_VIEWS {
            let fields = (v.fields)();
            assert!(!fields.is_empty(), "{}", v.name);
            for f in fields {
                assert!(!f.doc.is_empty(), "{}.{} lacks a doc", v.name, f.path);
            }
        }
    }

    #[test]
    fn field_names_are_camel_case() {
        assert_eq!(camel_case("fan_in"), "fanIn");
        assert_eq!(camel_case("external_edges"), "externalEdges");
        assert_eq!(camel_case("id"), "id");
        let paths: Vec<String> = (ArchitectureView::INFO.fields)()
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert!(
            paths.contains(&"modules[].isEntrypoint".to_string()),
            "{paths:?}"
        );
        assert!(
            paths.contains(&"totals.externalEdges".to_string()),
            "{paths:?}"
        );
    }

    #[test]
    fn a_view_that_does_not_decode_is_named() {
        assert!((ArchitectureView::INFO.check)(b"{\"version\":1}").is_err());
        assert!((SyntaxFilesView::INFO.check)(b"{\"files\":{}}").is_ok());
        assert!((SyntaxFilesView::INFO.check)(b"[]").is_err());
    }
}
