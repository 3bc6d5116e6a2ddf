//! Python imports.
//!
//! Relative imports (`.`, `..x.y`) walk up from the importing file's package. Absolute imports
//! look up their first component among the top-level modules and packages of the source roots
//! (the repository root, each Python project's folder, its `src/` and declared roots); the rest
//! of the dotted path is followed as far as files and folders exist (what remains is an attribute).
//! A script outside any package also sees its own folder (Python puts it first on `sys.path`).
//! Then the standard library, then dependencies declared in pyproject.toml / setup.cfg / setup.py /
//! requirements*.txt of the importer's folder or an ancestor (with a short list of well-known
//! distribution ≠ import names), then a unique path suffix.

use std::collections::{BTreeSet, HashMap};

use super::{
    nearest, Kind, Method, Resolution, Resolver, Unresolved, EXACT, FUZZY, LIKELY, SUFFIX,
};
use crate::modules::manifests::{normalize_python_name, Manifests};
use crate::modules::paths::{ancestors, child, parent_dir, strip_dir, RepoIndex};
use crate::modules::stdlib;

/// Import names whose distribution is named differently (import → normalized distribution).
const DISTRIBUTION_NAMES: &[(&str, &str)] = &[
    ("yaml", "pyyaml"),
    ("PIL", "pillow"),
    ("sklearn", "scikit_learn"),
    ("skimage", "scikit_image"),
    ("bs4", "beautifulsoup4"),
    ("dateutil", "python_dateutil"),
    ("cv2", "opencv_python"),
    ("attr", "attrs"),
    ("jwt", "pyjwt"),
    ("dotenv", "python_dotenv"),
    ("Crypto", "pycryptodome"),
    ("OpenSSL", "pyopenssl"),
    ("serial", "pyserial"),
    ("git", "gitpython"),
    ("zmq", "pyzmq"),
    ("MySQLdb", "mysqlclient"),
    ("jose", "python_jose"),
    ("multipart", "python_multipart"),
    ("magic", "python_magic"),
    ("docx", "python_docx"),
    ("google", "protobuf"),
    ("grpc", "grpcio"),
    ("win32api", "pywin32"),
    ("gi", "pygobject"),
    ("fitz", "pymupdf"),
    ("Levenshtein", "python_levenshtein"),
];

/// Lookups for Python resolution.
pub struct PythonContext {
    /// Top-level module/package name → paths (a `.py` file or a package folder), sorted.
    tops: HashMap<String, Vec<String>>,
}

impl PythonContext {
    /// Indexes top-level modules and packages of every source root.
    pub fn new(m: &Manifests, index: &RepoIndex<'_>, files: &[&str]) -> PythonContext {
        let mut roots: BTreeSet<String> = BTreeSet::new();
        let mut src_roots: BTreeSet<String> = BTreeSet::new();
        roots.insert(".".into());
        for (dir, p) in &m.python {
            roots.insert(dir.clone());
            let src = child(dir, "src");
            if index.is_dir(&src) {
                src_roots.insert(src);
            }
            src_roots.extend(p.source_roots.iter().cloned());
            src_roots.extend(p.packages.iter().map(|d| parent_dir(d).to_string()));
        }
        if index.is_dir("src") {
            src_roots.insert("src".into());
        }
        roots.extend(src_roots.iter().cloned());
        let mut tops: HashMap<String, BTreeSet<String>> = HashMap::new();
        for f in files
            .iter()
            .filter(|f| f.ends_with(".py") || f.ends_with(".pyi"))
        {
            for root in ancestors(parent_dir(f)).filter(|a| roots.contains(*a)) {
                let Some(rel) = strip_dir(f, root) else {
                    continue;
                };
                match rel.split_once('/') {
                    None => {
                        let stem = rel.trim_end_matches(".pyi").trim_end_matches(".py");
                        if stem != "__init__" && stem != "setup" && stem != "conftest" {
                            tops.entry(stem.to_string())
                                .or_default()
                                .insert(f.to_string());
                        }
                    }
                    Some((top, _)) => {
                        let pkg = child(root, top);
                        if src_roots.contains(root) || index.is_file(&format!("{pkg}/__init__.py"))
                        {
                            tops.entry(top.to_string()).or_default().insert(pkg);
                        }
                    }
                }
            }
        }
        PythonContext {
            tops: tops
                .into_iter()
                .map(|(k, v)| (k, v.into_iter().collect()))
                .collect(),
        }
    }
}

/// A module file `<base>.py` or `<base>.pyi`.
fn py_file(index: &RepoIndex<'_>, base: &str) -> Option<String> {
    [format!("{base}.py"), format!("{base}.pyi")]
        .into_iter()
        .find(|f| index.is_file(f))
}

/// Follows dotted `segs` down from a module file or package folder as far as files and folders
/// exist (what remains names attributes); returns the module file, the package's `__init__.py`,
/// or the (namespace) package folder.
fn descend(index: &RepoIndex<'_>, start: &str, segs: &[&str]) -> String {
    let mut cur = start.to_string();
    for seg in segs {
        if index.is_file(&cur) {
            break;
        }
        let sub = child(&cur, seg);
        if let Some(f) = py_file(index, &sub) {
            cur = f;
        } else if index.is_dir(&sub) {
            cur = sub;
        } else {
            break;
        }
    }
    package_file(index, cur)
}

/// A package folder's `__init__.py` when it has one, else the folder.
fn package_file(index: &RepoIndex<'_>, target: String) -> String {
    if index.is_file(&target) {
        return target;
    }
    for init in ["__init__.py", "__init__.pyi"] {
        let f = child(&target, init);
        if index.is_file(&f) {
            return f;
        }
    }
    target
}

fn project_of<'m>(m: &'m Manifests, path: &str) -> Option<&'m String> {
    nearest(&m.python, parent_dir(path)).map(|(d, _)| d)
}

/// Resolves a Python import (`raw` is the dotted module, with leading dots for relative imports).
pub fn resolve(r: &Resolver<'_>, path: &str, raw: &str, names: &[String]) -> Resolution {
    let index = r.index;
    let raw = raw.strip_prefix("import ").unwrap_or(raw).trim();
    let raw = raw.split_whitespace().next().unwrap_or(raw);
    let dots = raw.len() - raw.trim_start_matches('.').len();
    let rest = &raw[dots..];
    let segs: Vec<&str> = rest.split('.').filter(|s| !s.is_empty()).collect();
    if dots > 0 {
        let mut base = parent_dir(path).to_string();
        for _ in 1..dots {
            if base == "." {
                return Resolution::unknown(Unresolved::EscapesRepo);
            }
            base = parent_dir(&base).to_string();
        }
        // `from . import x`: x is a submodule when such a file exists.
        if segs.is_empty() && names.len() == 1 {
            if let Some(f) = py_file(index, &child(&base, &names[0])) {
                return local(r, path, f, EXACT);
            }
        }
        let target = descend(index, &base, &segs);
        if strip_dir(&target, &base).is_none() || !(index.is_file(&target) || index.is_dir(&target))
        {
            return Resolution::unknown(Unresolved::NotFound);
        }
        if (target == base || target == child(&base, "__init__.py")) && !segs.is_empty() {
            return Resolution::unknown(Unresolved::NotFound);
        }
        return local(r, path, target, EXACT);
    }
    let Some(&top) = segs.first() else {
        return Resolution::unknown(Unresolved::NotFound);
    };
    if let Some(cands) = r.python.tops.get(top) {
        // Prefer a candidate of the importer's own project; several equally near ones lower confidence.
        let own = project_of(r.manifests, path);
        let pick = cands
            .iter()
            .find(|c| project_of(r.manifests, &format!("{c}/x")) == own)
            .unwrap_or(&cands[0]);
        let confidence = if cands.len() == 1 { EXACT } else { LIKELY };
        let target = descend(index, pick, &segs[1..]);
        return local(r, path, target, confidence);
    }
    // A script outside any package imports its neighbours.
    let dir = parent_dir(path);
    if !index.is_file(&child(dir, "__init__.py")) {
        let start = child(dir, top);
        let hit = py_file(index, &start).or_else(|| index.is_dir(&start).then_some(start));
        if let Some(first) = hit {
            let target = descend(index, &first, &segs[1..]);
            return local(r, path, target, LIKELY);
        }
    }
    if stdlib::python(top) {
        return Resolution::stdlib(top);
    }
    let mut declared: BTreeSet<&String> = BTreeSet::new();
    for d in ancestors(dir) {
        if let Some(p) = r.manifests.python.get(d) {
            declared.extend(&p.deps);
        }
        if let Some(reqs) = r.manifests.requirements.get(d) {
            declared.extend(reqs);
        }
    }
    let norm = normalize_python_name(top);
    if declared.contains(&norm) {
        return Resolution::external(norm, Method::Exact, EXACT);
    }
    if let Some((_, dist)) = DISTRIBUTION_NAMES.iter().find(|(imp, _)| *imp == top) {
        if declared.contains(&dist.to_string()) {
            return Resolution::external(*dist, Method::Exact, EXACT);
        }
    }
    // `psycopg2` from `psycopg2-binary`, `foo` from `foo-client`: a looser match.
    let prefix = format!("{norm}_");
    if let Some(d) = declared.iter().find(|d| d.starts_with(&prefix)) {
        return Resolution::external(d.as_str(), Method::Fuzzy, FUZZY);
    }
    suffix(r, path, &segs)
}

fn local(r: &Resolver<'_>, importer: &str, target: String, confidence: f64) -> Resolution {
    let own = project_of(r.manifests, importer);
    let theirs = project_of(
        r.manifests,
        &if r.index.is_file(&target) {
            target.clone()
        } else {
            format!("{target}/x")
        },
    );
    let mut res = Resolution::path(r.index, target, Method::Exact, confidence);
    if theirs.is_some() && own != theirs {
        res.kind = Kind::WorkspacePackage;
    }
    res
}

fn suffix(r: &Resolver<'_>, importer: &str, segs: &[&str]) -> Resolution {
    // Try the whole dotted path, then without its last part (an attribute).
    for take in [segs.len(), segs.len().saturating_sub(1)] {
        if take < 2 {
            continue;
        }
        let rel = segs[..take].join("/");
        let cands = r
            .index
            .with_any_suffix(&[format!("{rel}.py"), format!("{rel}/__init__.py")]);
        match r.pick(&cands, importer) {
            Ok(Some(f)) => {
                let mut res = Resolution::path(r.index, f, Method::Suffix, SUFFIX);
                res.kind = Kind::LocalFile;
                return res;
            }
            Ok(None) => continue,
            Err(why) => return Resolution::unknown(why),
        }
    }
    Resolution::unknown(Unresolved::NotFound)
}
