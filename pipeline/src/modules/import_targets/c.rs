//! C and C++ `#include`s.
//!
//! A quoted include is looked up next to the including file first (as compilers do); any include
//! is then matched by path suffix among the repository's files (include directories are build
//! settings ckb does not read), and finally against the standard and system headers.

use super::{Kind, Method, Resolution, Resolver, Unresolved, EXACT, SUFFIX};
use crate::modules::paths::{join, parent_dir};
use crate::modules::stdlib;

/// Resolves an include (`raw` as written: `"x.h"`, `<x.h>` or bare).
pub fn resolve(r: &Resolver<'_>, path: &str, raw: &str) -> Resolution {
    let raw = raw.trim().trim_start_matches("#include").trim();
    let angled = raw.starts_with('<');
    let spec = super::clean_raw(raw);
    if spec.is_empty() {
        return Resolution::unknown(Unresolved::NotFound);
    }
    if !angled {
        match join(parent_dir(path), spec) {
            Some(f) if r.index.is_file(&f) => {
                return Resolution::local(Kind::LocalFile, f, Method::Exact, EXACT)
            }
            Some(_) => {}
            None if spec.starts_with("..") => return Resolution::unknown(Unresolved::EscapesRepo),
            None => {}
        }
    }
    // System headers first for `<…>`, so `<string.h>` never matches a vendored copy.
    if angled && stdlib::c_header(spec) {
        return Resolution::stdlib(spec);
    }
    let rel = spec.trim_start_matches("./");
    let cands: Vec<String> = r
        .index
        .with_suffix(rel)
        .into_iter()
        .map(String::from)
        .collect();
    match r.pick(&cands, path) {
        Ok(Some(f)) => return Resolution::local(Kind::LocalFile, f, Method::Suffix, SUFFIX),
        Ok(None) => {}
        Err(why) => return Resolution::unknown(why),
    }
    if stdlib::c_header(spec) {
        return Resolution::stdlib(spec);
    }
    Resolution::unknown(Unresolved::NotFound)
}
