//! How alike two definitions are: the fuzzy score the identity stage uses to recognise a symbol
//! that vanished under one ID and appeared under another when neither the backend ID nor the body
//! hash says so.
//!
//! `score = 0.40·name + 0.20·signature + 0.15·container + 0.15·path + 0.10·body`, each part in 0..1,
//! and 0 when the kind families differ. The weights make a name-level resemblance necessary: two
//! unrelated names in the same file, container and signature reach only ≈0.58, below the 0.6
//! threshold, because guessing there would be a false redirect. On top of the score, a pair needs
//! [`name_evidence`] to be considered at all.

use output_schema::tables::SymbolRow;

use crate::fingerprint::kind_family;

/// Minimum fuzzy score for an alias.
pub const FUZZY_THRESHOLD: f64 = 0.6;

/// Levenshtein distance over chars.
fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// 1 − edit distance / longer length.
fn edit_ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 1.0;
    }
    1.0 - levenshtein(&a, &b) as f64 / longest as f64
}

/// The words of an identifier (`parseHTTPConfig`, `parse_http_config` → parse, http, config).
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let boundary = c.is_uppercase()
            && !cur.is_empty()
            && (chars[i - 1].is_lowercase() || chars.get(i + 1).is_some_and(|n| n.is_lowercase()));
        if boundary {
            out.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Dice coefficient over word multisets.
fn word_dice(a: &str, b: &str) -> f64 {
    let wa = words(a);
    let mut wb = words(b);
    if wa.is_empty() && wb.is_empty() {
        return 1.0;
    }
    let total = wa.len() + wb.len();
    let mut shared = 0;
    for w in &wa {
        if let Some(p) = wb.iter().position(|x| x == w) {
            wb.swap_remove(p);
            shared += 1;
        }
    }
    2.0 * shared as f64 / total as f64
}

/// Name similarity: the better of the case-insensitive edit ratio and the word overlap.
pub fn name_similarity(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    edit_ratio(&a.to_lowercase(), &b.to_lowercase()).max(word_dice(a, b))
}

/// A signature with the symbol's own name replaced by `_` (whole words) and whitespace collapsed,
/// so a rename alone leaves it unchanged.
fn anonymized_signature(signature: &str, name: &str) -> String {
    let collapsed = signature.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        return collapsed;
    }
    let mut out = String::new();
    let mut rest = collapsed.as_str();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    while let Some(pos) = rest.find(name) {
        let before_ok = rest[..pos].chars().next_back().is_none_or(|c| !is_ident(c));
        let after = &rest[pos + name.len()..];
        let after_ok = after.chars().next().is_none_or(|c| !is_ident(c));
        out.push_str(&rest[..pos]);
        out.push_str(if before_ok && after_ok { "_" } else { name });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Signature similarity with names anonymized; 0.5 (no evidence) when either is unknown.
pub fn signature_similarity(a: &SymbolRow, b: &SymbolRow) -> f64 {
    match (&a.signature, &b.signature) {
        (Some(sa), Some(sb)) => edit_ratio(
            &anonymized_signature(sa, &a.name),
            &anonymized_signature(sb, &b.name),
        ),
        _ => 0.5,
    }
}

fn last_scope(container: Option<&str>) -> Option<&str> {
    container.map(|c| c.rsplit("::").next().unwrap_or(c))
}

fn dir(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

/// Whether two rows can be the same symbol at all (same kind family).
pub fn comparable(a: &SymbolRow, b: &SymbolRow) -> bool {
    kind_family(&a.kind) == kind_family(&b.kind)
}

/// Whether the bodies are known and equal.
pub fn same_body(a: &SymbolRow, b: &SymbolRow) -> bool {
    matches!((&a.body_hash, &b.body_hash), (Some(x), Some(y)) if x == y)
}

/// Whether the names (or bodies) say enough for a fuzzy match to be considered at all: the same
/// name or an equal body; else names that are not mere numbered siblings (`edge_1` / `edge_2`)
/// with a name similarity of at least 0.7, or sharing at least half their non-numeric words in the
/// same file with an identical anonymized signature (a rename that also edited the body).
/// Without it, a deleted function and an unrelated new one in the same file with the same
/// parameters would look alike.
pub fn name_evidence(a: &SymbolRow, b: &SymbolRow) -> bool {
    if a.name == b.name || same_body(a, b) {
        return true;
    }
    let no_digits = |s: &str| {
        s.chars()
            .filter(|c| !c.is_ascii_digit() && *c != '_')
            .collect::<String>()
    };
    if no_digits(&a.name) == no_digits(&b.name) {
        return false;
    }
    name_similarity(&a.name, &b.name) >= 0.7
        || (word_dice_alpha(&a.name, &b.name) >= 0.5
            && a.path == b.path
            && a.signature.is_some()
            && signature_similarity(a, b) == 1.0)
}

/// [`word_dice`] over the words that are not plain numbers.
fn word_dice_alpha(a: &str, b: &str) -> f64 {
    let alpha = |s: &str| {
        words(s)
            .into_iter()
            .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
            .collect::<Vec<_>>()
            .join("_")
    };
    word_dice(&alpha(a), &alpha(b))
}

/// The fuzzy score of a vanished row `a` against a new row `b` (see the module doc).
pub fn score(a: &SymbolRow, b: &SymbolRow) -> f64 {
    if !comparable(a, b) {
        return 0.0;
    }
    let name = name_similarity(&a.name, &b.name);
    let signature = signature_similarity(a, b);
    let container = if a.container == b.container {
        1.0
    } else if last_scope(a.container.as_deref()) == last_scope(b.container.as_deref()) {
        0.5
    } else {
        0.0
    };
    let path = if a.path == b.path {
        1.0
    } else if dir(&a.path) == dir(&b.path) {
        0.5
    } else {
        0.0
    };
    let body = if same_body(a, b) { 1.0 } else { 0.0 };
    0.40 * name + 0.20 * signature + 0.15 * container + 0.15 * path + 0.10 * body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_camel_and_snake_case() {
        assert_eq!(words("parseHTTPConfig"), ["parse", "http", "config"]);
        assert_eq!(words("parse_http_config"), ["parse", "http", "config"]);
        assert_eq!(words("Config"), ["config"]);
    }

    #[test]
    fn names_compare_by_edit_and_words() {
        assert_eq!(name_similarity("a", "a"), 1.0);
        assert!(name_similarity("parse_config", "parseConfig") > 0.99);
        assert!(name_similarity("load_config", "load_settings") >= 0.5);
        assert!(name_similarity("alpha", "omega") < 0.5);
    }

    #[test]
    fn signatures_ignore_the_own_name() {
        assert_eq!(
            anonymized_signature("fn parse(x: u32) -> parser::Parsed", "parse"),
            "fn _(x: u32) -> parser::Parsed"
        );
    }
}
