//! Small readers for the manifest formats that have no parser among ckb's dependencies.
//!
//! - JSON with comments (`tsconfig.json`): comments and trailing commas are removed, then
//!   serde_json parses the rest, so errors keep serde_json's line and column.
//! - YAML (`pnpm-workspace.yaml`, `pubspec.yaml`): a line-based reader for the subset these files
//!   use — top-level keys, block lists of scalars (`- item`), flow lists (`[a, b]`) and the keys of
//!   one nested mapping level. Anchors, multi-document streams and multi-line scalars are not
//!   interpreted; their lines are simply not matched.
//! - XML (`pom.xml`): a tag tokenizer that builds an element tree (names and text only; attributes,
//!   namespaces prefixes and processing instructions are ignored). Mismatched or unclosed tags are
//!   errors, so a broken pom is reported as malformed rather than half-read.
//!
//! Error messages carry a position and a description, never the offending source text.

/// Removes `//` and `/* */` comments and trailing commas outside strings.
pub fn strip_jsonc(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            out.push(c);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_str = true;
                out.push(c);
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    // Keep newlines so serde_json's line numbers still match the file.
                    if b[i] == b'\n' {
                        out.push(b'\n');
                    }
                    i += 1;
                }
                i += 2;
            }
            b',' => {
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if !matches!(b.get(j), Some(b'}') | Some(b']')) {
                    out.push(c);
                }
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// A serde_json error as `line L column C: <category>` (no source text).
pub fn json_error(e: &serde_json::Error) -> String {
    let what = match e.classify() {
        serde_json::error::Category::Io => "I/O error",
        serde_json::error::Category::Syntax => "syntax error",
        serde_json::error::Category::Data => "unexpected value",
        serde_json::error::Category::Eof => "unexpected end of file",
    };
    format!(
        "invalid JSON at line {} column {}: {what}",
        e.line(),
        e.column()
    )
}

/// A TOML error as `line L: <message>` (the message names the problem, not the text).
pub fn toml_error(e: &toml::de::Error, text: &str) -> String {
    let msg = e.message().lines().next().unwrap_or("").trim();
    match e.span() {
        Some(span) => {
            let line = text.as_bytes()[..span.start.min(text.len())]
                .iter()
                .filter(|&&c| c == b'\n')
                .count()
                + 1;
            format!("invalid TOML at line {line}: {msg}")
        }
        None => format!("invalid TOML: {msg}"),
    }
}

/// One top-level YAML key with its inline value and the indented lines below it.
pub struct YamlEntry<'a> {
    /// The key.
    pub key: String,
    /// The value on the key's own line (comment removed), possibly empty.
    pub inline: String,
    /// The non-empty, non-comment lines indented under the key.
    pub block: Vec<&'a str>,
}

/// Top-level keys of a YAML document (first document only).
pub fn yaml_top_level(text: &str) -> Vec<YamlEntry<'_>> {
    let mut out: Vec<YamlEntry<'_>> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if n > 0 && (line.starts_with("---") || line.starts_with("...")) {
            break;
        }
        let trimmed = line.trim_end();
        if trimmed.trim_start().is_empty()
            || trimmed.trim_start().starts_with('#')
            || trimmed == "---"
        {
            continue;
        }
        if !line.starts_with([' ', '\t', '-']) {
            if let Some((k, v)) = split_key(trimmed) {
                out.push(YamlEntry {
                    key: k,
                    inline: v,
                    block: Vec::new(),
                });
                continue;
            }
        }
        if let Some(last) = out.last_mut() {
            last.block.push(trimmed);
        }
    }
    out
}

fn split_key(line: &str) -> Option<(String, String)> {
    let line = line.trim();
    let (k, v) = if let Some(rest) = line.strip_prefix('"') {
        let end = rest.find('"')?;
        (
            &rest[..end],
            rest[end + 1..].trim_start().strip_prefix(':')?,
        )
    } else if let Some(rest) = line.strip_prefix('\'') {
        let end = rest.find('\'')?;
        (
            &rest[..end],
            rest[end + 1..].trim_start().strip_prefix(':')?,
        )
    } else {
        let i = line.find(':')?;
        // `key:` must be followed by whitespace or the end of line (not `a:b` inside a scalar).
        if !matches!(line.as_bytes().get(i + 1), None | Some(b' ') | Some(b'\t')) {
            return None;
        }
        (&line[..i], &line[i + 1..])
    };
    Some((k.trim().to_string(), strip_comment(v).trim().to_string()))
}

fn strip_comment(v: &str) -> &str {
    let mut quote = None;
    for (i, c) in v.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if i == 0 || v[..i].ends_with([' ', '\t']) => return &v[..i],
            _ => {}
        }
    }
    v
}

/// A YAML scalar without quotes and trailing comment.
pub fn yaml_scalar(v: &str) -> String {
    let v = strip_comment(v).trim();
    let unq = v
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| v.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')));
    unq.unwrap_or(v).to_string()
}

/// The scalar items of a list value: a flow list inline (`[a, b]`) or a block list (`- a`).
pub fn yaml_list(entry: &YamlEntry<'_>) -> Vec<String> {
    if let Some(inner) = entry
        .inline
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
    {
        return inner
            .split(',')
            .map(yaml_scalar)
            .filter(|s| !s.is_empty())
            .collect();
    }
    let indent = block_indent(&entry.block);
    entry
        .block
        .iter()
        .filter(|l| leading(l) == indent)
        .filter_map(|l| l.trim_start().strip_prefix('-'))
        .map(yaml_scalar)
        .filter(|s| !s.is_empty())
        .collect()
}

/// The keys of a nested mapping value (the lines at the block's first indentation level).
pub fn yaml_map_keys(entry: &YamlEntry<'_>) -> Vec<String> {
    let indent = block_indent(&entry.block);
    entry
        .block
        .iter()
        .filter(|l| leading(l) == indent && !l.trim_start().starts_with('-'))
        .filter_map(|l| split_key(l))
        .map(|(k, _)| k)
        .collect()
}

fn leading(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

fn block_indent(block: &[&str]) -> usize {
    block
        .iter()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| leading(l))
        .min()
        .unwrap_or(0)
}

/// An XML element: its local name (prefix dropped), children and direct text.
#[derive(Debug, Default)]
pub struct XmlElement {
    /// Local name.
    pub name: String,
    /// Child elements in document order.
    pub children: Vec<XmlElement>,
    /// Concatenated direct text, trimmed.
    pub text: String,
}

impl XmlElement {
    /// The first child with this name.
    pub fn child(&self, name: &str) -> Option<&XmlElement> {
        self.children.iter().find(|c| c.name == name)
    }

    /// Every child with this name.
    pub fn all<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s XmlElement> + 's {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The text of the first child with this name, when not empty.
    pub fn text_of(&self, name: &str) -> Option<&str> {
        self.child(name)
            .map(|c| c.text.as_str())
            .filter(|t| !t.is_empty())
    }
}

/// Parses an XML document into its root element.
pub fn parse_xml(text: &str) -> Result<XmlElement, String> {
    let b = text.as_bytes();
    let line_at = |i: usize| b[..i.min(b.len())].iter().filter(|&&c| c == b'\n').count() + 1;
    let mut stack: Vec<XmlElement> = vec![XmlElement::default()];
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            let start = i;
            while i < b.len() && b[i] != b'<' {
                i += 1;
            }
            if let Some(top) = stack.last_mut() {
                let t = decode_entities(text[start..i].trim());
                if !t.is_empty() {
                    if !top.text.is_empty() {
                        top.text.push(' ');
                    }
                    top.text.push_str(&t);
                }
            }
            continue;
        }
        let rest = &text[i..];
        let skip_to = |end: &str| rest.find(end).map(|j| i + j + end.len());
        if rest.starts_with("<!--") {
            i = skip_to("-->")
                .ok_or_else(|| format!("invalid XML at line {}: unclosed comment", line_at(i)))?;
        } else if rest.starts_with("<![CDATA[") {
            let end = skip_to("]]>")
                .ok_or_else(|| format!("invalid XML at line {}: unclosed CDATA", line_at(i)))?;
            if let Some(top) = stack.last_mut() {
                top.text.push_str(text[i + 9..end - 3].trim());
            }
            i = end;
        } else if rest.starts_with("<?") {
            i = skip_to("?>").ok_or_else(|| {
                format!("invalid XML at line {}: unclosed declaration", line_at(i))
            })?;
        } else if rest.starts_with("<!") {
            i = skip_to(">").ok_or_else(|| {
                format!("invalid XML at line {}: unclosed declaration", line_at(i))
            })?;
        } else {
            let end = tag_end(b, i)
                .ok_or_else(|| format!("invalid XML at line {}: unclosed tag", line_at(i)))?;
            let inner = &text[i + 1..end];
            let closing = inner.starts_with('/');
            let self_closing = inner.ends_with('/');
            let name_part = inner.trim_start_matches('/').trim_end_matches('/');
            let qname = name_part
                .split(|c: char| c.is_whitespace())
                .next()
                .unwrap_or("");
            let name = qname.rsplit(':').next().unwrap_or(qname).to_string();
            if name.is_empty() {
                return Err(format!(
                    "invalid XML at line {}: empty tag name",
                    line_at(i)
                ));
            }
            if closing {
                let el = stack.pop().filter(|_| !stack.is_empty()).ok_or_else(|| {
                    format!("invalid XML at line {}: unexpected closing tag", line_at(i))
                })?;
                if el.name != name {
                    return Err(format!(
                        "invalid XML at line {}: closing tag </{name}> does not match <{}>",
                        line_at(i),
                        el.name
                    ));
                }
                if let Some(parent) = stack.last_mut() {
                    parent.children.push(el);
                }
            } else {
                let el = XmlElement {
                    name,
                    ..XmlElement::default()
                };
                if self_closing {
                    if let Some(parent) = stack.last_mut() {
                        parent.children.push(el);
                    }
                } else {
                    if stack.len() > 256 {
                        return Err(format!(
                            "invalid XML at line {}: nesting deeper than 256",
                            line_at(i)
                        ));
                    }
                    stack.push(el);
                }
            }
            i = end + 1;
        }
    }
    if stack.len() != 1 {
        let open = stack.last().map(|e| e.name.clone()).unwrap_or_default();
        return Err(format!("invalid XML: <{open}> is never closed"));
    }
    let doc = stack.pop().unwrap_or_default();
    let mut roots = doc.children.into_iter();
    match (roots.next(), roots.next()) {
        (Some(root), None) => Ok(root),
        (None, _) => Err("invalid XML: no root element".into()),
        (Some(_), Some(_)) => Err("invalid XML: more than one root element".into()),
    }
}

fn tag_end(b: &[u8], start: usize) -> Option<usize> {
    let mut quote = None;
    for (j, &c) in b.iter().enumerate().skip(start + 1) {
        match (quote, c) {
            (None, b'"' | b'\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, b'>') => return Some(j),
            (None, b'<') => return None,
            _ => {}
        }
    }
    None
}

fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonc_comments_and_trailing_commas() {
        let text = "{\n // c\n \"a\": \"x//y\", /* b\n */ \"b\": [1, 2,],\n}";
        let v: serde_json::Value = serde_json::from_str(&strip_jsonc(text)).unwrap();
        assert_eq!(v["a"], "x//y");
        assert_eq!(v["b"][1], 2);
    }

    #[test]
    fn yaml_subset() {
        let text = "name: app # the app\npackages:\n  - 'packages/*'\n  - \"apps/**\"\n  # c\n  - '!**/test/**'\ndependencies:\n  http: ^1.0\n  path:\n    sdk: flutter\ndev_dependencies: {}\nflow: [a, 'b']\n";
        let top = yaml_top_level(text);
        let get = |k: &str| top.iter().find(|e| e.key == k).unwrap();
        assert_eq!(yaml_scalar(&get("name").inline), "app");
        assert_eq!(
            yaml_list(get("packages")),
            ["packages/*", "apps/**", "!**/test/**"]
        );
        assert_eq!(yaml_map_keys(get("dependencies")), ["http", "path"]);
        assert_eq!(yaml_list(get("flow")), ["a", "b"]);
    }

    #[test]
    fn xml_tree_and_errors() {
        let x = parse_xml("<?xml version=\"1.0\"?>\n<!-- c --><project xmlns=\"x\"><artifactId>core</artifactId><modules><module>a</module><module>b</module></modules><x/></project>").unwrap();
        assert_eq!(x.text_of("artifactId"), Some("core"));
        let mods: Vec<_> = x
            .child("modules")
            .unwrap()
            .all("module")
            .map(|m| m.text.as_str())
            .collect();
        assert_eq!(mods, ["a", "b"]);
        let e = parse_xml("<project>\n<a></b></project>").unwrap_err();
        assert!(e.contains("line 2") && e.contains("</b>"), "{e}");
        assert!(parse_xml("<project><a>")
            .unwrap_err()
            .contains("never closed"));
        assert!(parse_xml("").is_err());
    }
}
