//! Python: `pyproject.toml` (PEP 621, Poetry, setuptools and Hatch layouts), `setup.cfg`,
//! `setup.py` and `requirements*.txt`, and the PEP 503/508 name rules.
//!
//! Size: `read_pyproject` (~155 lines) reads the four pyproject layouts (PEP 621, Poetry, setuptools, Hatch) one after the other, as the file is laid out.

use std::collections::BTreeMap;

use super::*;
use crate::modules::formats::{self};
use crate::modules::paths::{join, parent_dir, RepoIndex};

/// Normalizes a Python distribution or import name for comparison (PEP 503, with `_`).
pub fn normalize_python_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut sep = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('_');
            }
            sep = false;
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The distribution name at the start of a PEP 508 requirement (`requests[socks]>=2; …` → `requests`).
pub fn pep508_name(req: &str) -> Option<String> {
    let req = req.trim();
    let end = req
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(req.len());
    let name = &req[..end];
    (!name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric()))
    .then(|| normalize_python_name(name))
}

pub(super) fn requirement_names(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty() && !l.starts_with('-') && !l.contains("://"))
        .filter_map(pep508_name)
        .collect()
}

pub(super) fn python_project<'m>(
    m: &'m mut Manifests,
    dir: &str,
    path: &str,
) -> &'m mut PythonProject {
    let p = m
        .python
        .entry(dir.to_string())
        .or_insert_with(|| PythonProject {
            dir: dir.to_string(),
            ..PythonProject::default()
        });
    p.files.push(path.to_string());
    p
}

pub(super) fn read_pyproject(
    m: &mut Manifests,
    path: &str,
    dir: &str,
    text: &str,
    index: &RepoIndex<'_>,
) {
    let t: toml::Table = match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => return m.malformed(path, formats::toml_error(&e, text)),
    };
    let get = |keys: &[&str]| -> Option<&toml::Value> {
        let mut v = t.get(keys[0])?;
        for k in &keys[1..] {
            v = v.get(k)?;
        }
        Some(v)
    };
    let name = get(&["project", "name"])
        .or_else(|| get(&["tool", "poetry", "name"]))
        .and_then(|v| v.as_str())
        .map(str::to_string);
    let mut deps: Vec<String> = Vec::new();
    deps.extend(
        toml_strings(get(&["project", "dependencies"]))
            .iter()
            .filter_map(|s| pep508_name(s)),
    );
    for table in [
        get(&["project", "optional-dependencies"]),
        get(&["dependency-groups"]),
        get(&["tool", "pdm", "dev-dependencies"]),
    ]
    .into_iter()
    .flatten()
    .filter_map(|v| v.as_table())
    {
        for (_, v) in table {
            deps.extend(toml_strings(Some(v)).iter().filter_map(|s| pep508_name(s)));
        }
    }
    deps.extend(
        toml_strings(get(&["tool", "uv", "dev-dependencies"]))
            .iter()
            .filter_map(|s| pep508_name(s)),
    );
    let mut poetry_tables = vec![
        get(&["tool", "poetry", "dependencies"]),
        get(&["tool", "poetry", "dev-dependencies"]),
    ];
    if let Some(groups) = get(&["tool", "poetry", "group"]).and_then(|v| v.as_table()) {
        poetry_tables.extend(groups.values().map(|g| g.get("dependencies")));
    }
    for table in poetry_tables
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_table())
    {
        deps.extend(
            table
                .keys()
                .filter(|k| *k != "python")
                .map(|k| normalize_python_name(k)),
        );
    }
    let mut packages = Vec::new();
    let mut roots = Vec::new();
    let package_dir_root = get(&["tool", "setuptools", "package-dir"])
        .and_then(|v| v.get(""))
        .and_then(|v| v.as_str())
        .and_then(|s| join(dir, s));
    if let Some(r) = &package_dir_root {
        roots.push(r.clone());
    }
    let base = package_dir_root.clone().unwrap_or_else(|| dir.to_string());
    match get(&["tool", "setuptools", "packages"]) {
        Some(toml::Value::Array(a)) => {
            for p in a.iter().filter_map(|v| v.as_str()) {
                // Only top-level packages become modules; `a.b` lives inside `a`.
                if !p.contains('.') {
                    packages.extend(join(&base, p));
                }
            }
        }
        Some(toml::Value::Table(tb)) => {
            let wh = toml_strings(tb.get("find").and_then(|f| f.get("where")));
            roots.extend(wh.iter().filter_map(|w| join(dir, w)));
        }
        _ => {}
    }
    if let Some(a) = get(&["tool", "poetry", "packages"]).and_then(|v| v.as_array()) {
        for p in a {
            let Some(include) = p.get("include").and_then(|v| v.as_str()) else {
                continue;
            };
            let from = p.get("from").and_then(|v| v.as_str()).unwrap_or(".");
            if let Some(r) = join(dir, from) {
                if from != "." {
                    roots.push(r.clone());
                }
                if !include.contains(['*', '.']) {
                    packages.extend(join(&r, include));
                }
            }
        }
    }
    for p in toml_strings(get(&[
        "tool", "hatch", "build", "targets", "wheel", "packages",
    ])) {
        if let Some(d) = join(dir, &p) {
            roots.push(parent_dir(&d).to_string());
            packages.push(d);
        }
    }
    let mut scripts = Vec::new();
    for table in [
        get(&["project", "scripts"]),
        get(&["project", "gui-scripts"]),
        get(&["tool", "poetry", "scripts"]),
    ]
    .into_iter()
    .flatten()
    .filter_map(|v| v.as_table())
    {
        for v in table.values() {
            let target = v
                .as_str()
                .or_else(|| v.get("reference").and_then(|r| r.as_str()));
            if let Some(module) = target.and_then(|s| s.split(':').next()) {
                scripts.push(module.trim().to_string());
            }
        }
    }
    let workspace = toml_strings(get(&["tool", "uv", "workspace", "members"]));
    let p = python_project(m, dir, path);
    if name.is_some() {
        p.name = name;
    }
    p.deps.extend(deps);
    p.packages
        .extend(packages.into_iter().filter(|d| index.is_dir(d)));
    p.source_roots.extend(roots);
    p.scripts.extend(scripts);
    p.workspace.extend(workspace);
}

/// Sections of an INI file: `section -> key -> value` (continuation lines joined with `\n`).
pub(super) fn parse_ini(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut section = String::new();
    let mut last_key: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(k) = &last_key {
                if let Some(v) = out.entry(section.clone()).or_default().get_mut(k) {
                    v.push('\n');
                    v.push_str(trimmed);
                }
            }
            continue;
        }
        if let Some(s) = trimmed.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = s.trim().to_string();
            last_key = None;
        } else if let Some((k, v)) = trimmed.split_once(['=', ':']) {
            let k = k.trim().to_string();
            out.entry(section.clone())
                .or_default()
                .insert(k.clone(), v.trim().to_string());
            last_key = Some(k);
        }
    }
    out
}

pub(super) fn read_setup_cfg(m: &mut Manifests, path: &str, dir: &str, text: &str) {
    let ini = parse_ini(text);
    let val = |s: &str, k: &str| ini.get(s).and_then(|t| t.get(k)).map(String::as_str);
    let list = |v: Option<&str>| -> Vec<String> {
        v.unwrap_or("")
            .split(['\n', ','])
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    let name = val("metadata", "name").map(str::to_string);
    let mut deps: Vec<String> = list(val("options", "install_requires"))
        .iter()
        .filter_map(|s| pep508_name(s))
        .collect();
    if let Some(extras) = ini.get("options.extras_require") {
        for v in extras.values() {
            deps.extend(list(Some(v)).iter().filter_map(|s| pep508_name(s)));
        }
    }
    let mut roots: Vec<String> = list(val("options.packages.find", "where"))
        .iter()
        .filter_map(|w| join(dir, w))
        .collect();
    if let Some(pd) = val("options", "package_dir") {
        for entry in pd.split('\n') {
            if let Some(("", r)) = entry.split_once('=').map(|(a, b)| (a.trim(), b.trim())) {
                roots.extend(join(dir, r));
            }
        }
    }
    let base = roots.first().cloned().unwrap_or_else(|| dir.to_string());
    let packages: Vec<String> = match val("options", "packages") {
        Some(v) if !v.trim_start().starts_with("find") => list(Some(v))
            .iter()
            .filter(|p| !p.contains('.'))
            .filter_map(|p| join(&base, p))
            .collect(),
        _ => Vec::new(),
    };
    let scripts: Vec<String> = list(val("options.entry_points", "console_scripts"))
        .iter()
        .filter_map(|s| script_module(s))
        .collect();
    python_project(m, dir, path).declare(name, deps, roots, packages, scripts);
}

/// The module of a console script entry (`name = module.path:function`), if it names one.
fn script_module(entry: &str) -> Option<String> {
    let (_, target) = entry.split_once('=')?;
    let module = target.split(':').next().unwrap_or("").trim();
    (!module.is_empty()).then(|| module.to_string())
}

impl PythonProject {
    /// Adds what one more of the project's files declares (setup.cfg, setup.py); the first name
    /// found stays.
    fn declare(
        &mut self,
        name: Option<String>,
        deps: Vec<String>,
        roots: Vec<String>,
        packages: Vec<String>,
        scripts: Vec<String>,
    ) {
        if self.name.is_none() {
            self.name = name;
        }
        self.deps.extend(deps);
        self.source_roots.extend(roots);
        self.packages.extend(packages);
        self.scripts.extend(scripts);
    }
}

/// setup.py is code; only well-known literal arguments are read (no evaluation).
pub(super) fn read_setup_py(m: &mut Manifests, path: &str, dir: &str, text: &str) {
    let after = |key: &str| -> Option<&str> {
        let mut from = 0;
        while let Some(i) = text[from..].find(key) {
            let at = from + i;
            let rest = text[at + key.len()..].trim_start();
            let prev_ok = at == 0
                || !text.as_bytes()[at - 1].is_ascii_alphanumeric()
                    && text.as_bytes()[at - 1] != b'_';
            if prev_ok {
                if let Some(r) = rest.strip_prefix('=') {
                    if !r.starts_with('=') {
                        return Some(r.trim_start());
                    }
                }
            }
            from = at + key.len();
        }
        None
    };
    let bracketed = |s: &str, open: char, close: char| -> String {
        if !s.starts_with(open) {
            return String::new();
        }
        let mut depth = 0;
        for (i, c) in s.char_indices() {
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
                if depth == 0 {
                    return s[..=i].to_string();
                }
            }
        }
        String::new()
    };
    let name = after("name").and_then(|s| {
        quoted_strings(s.lines().next().unwrap_or(""))
            .first()
            .map(|s| s.to_string())
    });
    let deps: Vec<String> = after("install_requires")
        .map(|s| bracketed(s, '[', ']'))
        .map(|s| {
            quoted_strings(&s)
                .into_iter()
                .filter_map(pep508_name)
                .collect()
        })
        .unwrap_or_default();
    let mut roots = Vec::new();
    if let Some(pd) = after("package_dir") {
        let pd = bracketed(pd, '{', '}');
        let q = quoted_strings(&pd);
        if q.len() >= 2 && q[0].is_empty() {
            roots.extend(join(dir, q[1]));
        }
    }
    if let Some(i) = text.find("find_packages(") {
        let args = text[i + 14..].split(')').next().unwrap_or("");
        if let Some(w) = quoted_strings(args).first() {
            if !args.trim_start().starts_with("exclude") {
                roots.extend(join(dir, w));
            }
        }
    }
    let scripts: Vec<String> = text
        .find("console_scripts")
        .and_then(|i| text[i..].find('[').map(|j| i + j))
        .map(|j| bracketed(&text[j..], '[', ']'))
        .map(|s| {
            quoted_strings(&s)
                .into_iter()
                .filter_map(script_module)
                .collect()
        })
        .unwrap_or_default();
    python_project(m, dir, path).declare(name, deps, roots, Vec::new(), scripts);
}
