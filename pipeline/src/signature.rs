//! What a stored signature may keep: the declaration's shape and types, never values written in
//! the source.
//!
//! Indexers put initializers into their signature text (scip-typescript writes `const KEY = "…"`
//! as `var KEY: "the literal"`, enum members as `Red = VALUE`, static fields as `K: "literal"`), and
//! a tree-sitter header keeps parameter defaults. A snapshot holds facts, not text: string
//! literals become `"…"` (quotes kept, so `"…" | "…"` still reads as a union of literals), a
//! parameter default becomes `…`, and in an indexer's text so do a value after a top-level `=`
//! (except in a type alias, whose right side is its shape) and a number standing as a type
//! (`var RETRIES: 42`).

/// Cuts `text` to at most `max` bytes, on a character boundary, and marks the cut with `…`, if it
/// is longer; says whether it was cut. Some signatures (TypeScript types) run to kilobytes.
pub fn cap(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text.push('…');
    true
}

/// What to strip, by who wrote the signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// `'…'` is a string (TypeScript, JavaScript, Python, …). Otherwise (Rust) `'` starts a
    /// lifetime and only `'x'` character literals are stripped. `"…"` and `` `…` `` always are.
    pub single_quoted_strings: bool,
    /// Whether a value after a top-level `=` goes too. An indexer's hover text puts initializers
    /// there (`(enum member) Red = VALUE`); a tree-sitter header does not, and its top-level `=`
    /// is shape (`handler = function (event)`, `Shape() = default`), so only parameter defaults
    /// (an `=` inside parentheses) go.
    pub top_level_values: bool,
}

impl Rules {
    /// For a SCIP indexer's signature text; `rust` for rust-analyzer's.
    pub fn indexer(rust: bool) -> Rules {
        Rules {
            single_quoted_strings: !rust,
            top_level_values: true,
        }
    }

    /// For a tree-sitter declaration header of a language; `rust` for Rust's.
    pub fn header(rust: bool) -> Rules {
        Rules {
            single_quoted_strings: !rust,
            top_level_values: false,
        }
    }
}

/// Written in place of a removed value.
const ELIDED: &str = "…";

/// `signature` with its string literals and values removed (see the module doc).
pub fn strip_values(signature: &str, rules: Rules) -> String {
    let chars: Vec<char> = signature.chars().collect();
    let type_alias = is_type_alias(signature);
    let mut out = String::with_capacity(signature.len());
    let mut parens = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' | '`' => {
                i = skip_string(&chars, i);
                out.push(c);
                out.push_str(ELIDED);
                out.push(c);
            }
            '\'' if rules.single_quoted_strings || is_char_literal(&chars, i) => {
                i = skip_string(&chars, i);
                out.push_str("'…'");
            }
            '=' if (rules.top_level_values || parens > 0)
                && !type_alias
                && is_assignment(&chars, i)
                && !out.ends_with("operator") =>
            {
                // The spacing around `=` is the writer's; kept as it was.
                out.push('=');
                if chars.get(i + 1).is_some_and(|c| c.is_whitespace()) {
                    out.push(' ');
                }
                out.push_str(ELIDED);
                i = skip_value(&chars, i + 1);
            }
            ':' if rules.top_level_values && number_follows(&chars, i + 1).is_some() => {
                out.push(':');
                let end = number_follows(&chars, i + 1).unwrap_or(i + 1);
                out.extend(chars[i + 1..end].iter().take_while(|c| c.is_whitespace()));
                out.push_str(ELIDED);
                i = end;
            }
            _ => {
                match c {
                    '(' => parens += 1,
                    ')' => parens = parens.saturating_sub(1),
                    _ => {}
                }
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Whether the declaration is a type alias (`type X = …`, `export type X<T> = …`, C++ `using X =
/// …`): the right side of its `=` is a type, kept.
fn is_type_alias(signature: &str) -> bool {
    let head = signature.split('=').next().unwrap_or("");
    // Words outside parentheses only: `def f(type=None)` is no alias.
    let mut depth = 0usize;
    let outside: String = head
        .chars()
        .map(|c| {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 && c != ')' {
                c
            } else {
                ' '
            }
        })
        .collect();
    outside
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == "type" || word == "using")
}

/// The index just past the string literal opening at `start` (escapes honoured; an unclosed
/// literal runs to the end).
fn skip_string(chars: &[char], start: usize) -> usize {
    let quote = chars[start];
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

/// Whether the `'` at `i` opens a character literal (`'x'`, `'\n'`) rather than a lifetime.
fn is_char_literal(chars: &[char], i: usize) -> bool {
    match chars.get(i + 1) {
        Some('\\') => true,
        Some(_) => chars.get(i + 2) == Some(&'\''),
        None => false,
    }
}

/// Whether the `=` at `i` assigns (not `==`, `=>`, `<=`, `>=`, `!=`, `+=`, …).
fn is_assignment(chars: &[char], i: usize) -> bool {
    let before = i.checked_sub(1).map(|j| chars[j]);
    let after = chars.get(i + 1).copied();
    !matches!(
        before,
        Some('=' | '<' | '>' | '!' | '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^')
    ) && !matches!(after, Some('=' | '>'))
}

/// The index where the value that starts at `i` ends: the first `,`, `;` or closing bracket
/// (`>` included, for `<T = Default>`) outside any bracket or string the value opens, or the end.
fn skip_value(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < chars.len() {
        match chars[i] {
            '"' | '`' | '\'' => {
                i = skip_string(chars, i);
                continue;
            }
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' if depth == 0 => return i,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' | ';' if depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

/// When a number literal (optionally signed, after spaces) follows at `i` and is the whole type
/// (nothing but a separator after it), the index just past it.
fn number_follows(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    while j < chars.len() && chars[j] == ' ' {
        j += 1;
    }
    if chars.get(j) == Some(&'-') {
        j += 1;
    }
    if !chars.get(j)?.is_ascii_digit() {
        return None;
    }
    while j < chars.len() && (chars[j].is_ascii_alphanumeric() || matches!(chars[j], '.' | '_')) {
        j += 1;
    }
    match chars.get(j) {
        None | Some(' ' | ',' | ';' | ')' | ']' | '}' | '|' | '&') => Some(j),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> String {
        strip_values(s, Rules::indexer(false))
    }

    fn rust(s: &str) -> String {
        strip_values(s, Rules::indexer(true))
    }

    fn header(s: &str) -> String {
        strip_values(s, Rules::header(false))
    }

    #[test]
    fn literals_and_initializers_go() {
        assert_eq!(ts(r#"var API_KEY: "sk-123""#), r#"var API_KEY: "…""#);
        assert_eq!(ts("(property) K: 'x y'"), "(property) K: '…'");
        assert_eq!(ts("var RETRIES: 42"), "var RETRIES: …");
        assert_eq!(ts("(enum member) Red = SECRET"), "(enum member) Red = …");
        assert_eq!(
            ts(r#"def greet(name: str = "x, y", n=f(1, 2)) -> str"#),
            "def greet(name: str = …, n=…) -> str"
        );
        assert_eq!(ts(r#"let s: `a${b}`"#), "let s: `…`");
        assert_eq!(ts(r#"const X: "a\"b" = "c""#), r#"const X: "…" = …"#);
    }

    #[test]
    fn shapes_stay() {
        assert_eq!(
            ts("function greet(name: string): string"),
            "function greet(name: string): string"
        );
        assert_eq!(ts("(a: number) => boolean"), "(a: number) => boolean");
        assert_eq!(ts(r#"type Mode = "a" | "b""#), r#"type Mode = "…" | "…""#);
        assert_eq!(ts("if a == b"), "if a == b");
        assert_eq!(
            ts("T& operator=(const T& other)"),
            "T& operator=(const T& other)"
        );
        assert_eq!(ts("x: Array<u8>"), "x: Array<u8>");
        assert_eq!(
            ts("class Box<T = Secret> extends B"),
            "class Box<T = …> extends B"
        );
        let sig = "pub fn f<'a, 'b>(x: &'a str, y: &'b str) -> &'a str";
        assert_eq!(rust(sig), sig);
        assert_eq!(
            rust("pub type Alias = [u8; 32]"),
            "pub type Alias = [u8; 32]"
        );
        assert_eq!(rust("pub const C: char = 'x'"), "pub const C: char = …");
        assert_eq!(
            rust("fn f(c: char) -> &'static str"),
            "fn f(c: char) -> &'static str"
        );
    }

    #[test]
    fn headers_lose_defaults_and_literals_but_keep_their_assignments() {
        assert_eq!(
            header(r#"function makeLabel(shape: Shape, prefix = "shape"): string"#),
            "function makeLabel(shape: Shape, prefix = …): string"
        );
        assert_eq!(
            header("def __init__(self, name: str, size: int = 0) -> None"),
            "def __init__(self, name: str, size: int = …) -> None"
        );
        assert_eq!(
            header("def describe(self, *, verbose=False)"),
            "def describe(self, *, verbose=…)"
        );
        for kept in [
            "legacy = function named()",
            "arrow = (a, b) =>",
            "module.exports.handler = async function (event)",
            "Shape() = default",
            "virtual double area() const = 0",
            "using Points = std::vector<Point>",
            "var x: 42",
        ] {
            assert_eq!(header(kept), kept);
        }
        assert_eq!(header("x = 'secret'"), "x = '…'");
        assert_eq!(header("def f(type=SECRET)"), "def f(type=…)");
    }
}
