//! The `scip_snapshot` target: the `snapshot` target's whole snapshots, with a SCIP index that
//! the input describes too. An index is written by a third-party tool, of any version, for a
//! commit that may not be the one snapshotted; what ckb promises of the tables it writes from one
//! must hold for any index: the SCIP stage, the merge with tree-sitter's rows, identity, usage
//! and the writer end in a snapshot or a coded error (never `INTERNAL_ERROR`); every table keeps
//! its order and its unique key (the writer refuses a key twice, `ckb verify`'s row check reads
//! them back); and the snapshot of the changed repository with its new index, built on the first
//! snapshot and the caches beside it (syntax, SCIP documents), is the cold one byte for byte.
//!
//! An input is three parts separated by empty records: the repository and its change (as in
//! `snapshot`), then a recipe of one index or two, read a byte at a time by [`indexes_for`]. The
//! indexes are built for the files the repository holds at each snapshot, so that their
//! documents name real files at places inside them (and, now and then, a file outside the scan or
//! a place past a file's end), over a vocabulary of SCIP symbols named after the files' own
//! identifiers: the merge then matches them with tree-sitter's definitions of the same names.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use output_schema::tables::FileRow;
use pipeline::PreviousChoice;
use protobuf::{EnumOrUnknown, Message};
use scip::types::{
    Document, Index, Metadata, Occurrence, Relationship, Signature, SymbolInformation, ToolInfo,
};

use crate::repo::{self, encode_repo};
use crate::snapshot::{split_change, take, verified, warm_and_cold, SnapshotRun};

/// Runs the three snapshots; never panics for any input.
pub fn scip_snapshot(data: &[u8]) {
    let _ = scip_snapshot_run(data);
}

/// [`scip_snapshot`], returning what it came to.
pub fn scip_snapshot_run(data: &[u8]) -> SnapshotRun {
    let (before, rest) = split_change(data);
    let (change, recipe) = split_change(rest);
    let root = repo::write_repo(before, "scip-snapshot-repo");
    let scratch = crate::thread_scratch();
    let (warm_store, cold_store) = (
        scratch.join("scip-snapshot-warm"),
        scratch.join("scip-snapshot-cold"),
    );
    for store in [&warm_store, &cold_store] {
        let _ = std::fs::remove_dir_all(store);
    }
    let indexes = write_indexes(&root, recipe, &scratch);
    let Ok(first) = take(&root, &warm_store, PreviousChoice::Disabled, &indexes) else {
        return SnapshotRun::default();
    };
    let first_m = verified(&first);
    repo::change_repo(&root, change);
    let indexes = write_indexes(&root, recipe, &scratch);
    let stores = (warm_store.as_path(), cold_store.as_path());
    let Some((warm_m, _)) = warm_and_cold(&root, &first, stores, &indexes) else {
        return SnapshotRun::default();
    };
    SnapshotRun::of(Some(&first_m), &warm_m)
}

/// Writes the indexes the recipe describes for the repository at `root` as it is now into
/// `scratch`, and returns their paths in the order `--scip` takes them.
fn write_indexes(root: &Path, recipe: &[u8], scratch: &Path) -> Vec<PathBuf> {
    let files = repo::scan(root).unwrap_or_default();
    (indexes_for(root, &files, recipe).iter().enumerate())
        .map(|(i, index)| {
            let path = scratch.join(format!("scip-snapshot-index-{i}.scip"));
            let bytes = index
                .write_to_bytes()
                .expect("an index built in memory encodes");
            std::fs::write(&path, bytes).expect("the scratch index");
            path
        })
        .collect()
}

/// Reads a recipe a byte at a time; past its end every byte is 0, so that any recipe, even an
/// empty one, describes an index.
struct Recipe<'a>(std::slice::Iter<'a, u8>);

impl Recipe<'_> {
    fn byte(&mut self) -> u8 {
        self.0.next().copied().unwrap_or(0)
    }

    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        match n {
            0 => 0,
            n => usize::from(self.byte()) % n,
        }
    }

    /// A number below `n`, as SCIP's `int32` fields hold it.
    fn int(&mut self, n: usize) -> i32 {
        self.below(n) as i32
    }

    fn pick<'v, T>(&mut self, from: &'v [T]) -> &'v T {
        &from[self.below(from.len())]
    }
}

/// The tools whose symbol schemes an index may use: (tool, scheme and package manager of its
/// symbols, the repository's own package and version, language of its documents).
const TOOLS: &[(&str, &str, &str, &str)] = &[
    ("rust-analyzer", "rust-analyzer cargo", "fx 1.0.0", "rust"),
    (
        "scip-typescript",
        "scip-typescript npm",
        "fx 1.0.0",
        "typescript",
    ),
    ("scip-python", "scip-python python", "fx 0.1", "python"),
    ("scip-go", "scip-go gomod", "example.com/fx v1", "go"),
    ("scip-java", "semanticdb maven", "com.fx 1.0", "java"),
];

/// Paths a document may name that are not files of the scan.
const ELSEWHERE: &[&str] = &["gone.rs", "../outside.py", "/etc/passwd", "", "a//b.ts"];

/// The indexes a recipe describes for `files` (the scan of the repository at `root`): one, and
/// a second when the byte after the first's recipe is odd (two `--scip` files: the first wins a
/// path both cover, and the second may define the first's symbols again, from other files, or
/// call the same callees from them).
pub fn indexes_for(root: &Path, files: &[FileRow], recipe: &[u8]) -> Vec<Index> {
    let mut r = Recipe(recipe.iter());
    let names = identifiers(root, files);
    let mut indexes = vec![index_for(root, files, &names, &mut r)];
    if r.byte() & 1 == 1 {
        indexes.push(index_for(root, files, &names, &mut r));
    }
    indexes
}

/// One index, read from the recipe where `r` stands.
fn index_for(root: &Path, files: &[FileRow], names: &[String], r: &mut Recipe<'_>) -> Index {
    let &(tool, manager, package, language) = r.pick(TOOLS);
    let scheme = format!("{manager} {package}");
    let mut symbol = |r: &mut Recipe<'_>| -> String {
        let name = r.pick(names).clone();
        let other = r.pick(names).clone();
        match r.below(8) {
            0 => format!("{scheme} {name}()."),
            1 => format!("{scheme} {name}#"),
            2 => format!("{scheme} {other}#{name}()."),
            3 => format!("{scheme} {name}."),
            4 => format!("{scheme} {other}/{name}()."),
            5 => format!("local {}", r.below(4)),
            6 => format!("{scheme} {name}!"),
            _ => format!("{manager} other 2.0 {name}()."),
        }
    };

    let tool_info = ToolInfo {
        name: tool.into(),
        version: "1.0".into(),
        ..ToolInfo::default()
    };
    // Fields are read from the recipe in the order written.
    let metadata = Metadata {
        tool_info: Some(tool_info).into(),
        project_root: match r.below(8) {
            7 => "file:///elsewhere".into(),
            _ => format!(
                "file://{}",
                root.canonicalize().unwrap_or(root.into()).display()
            ),
        },
        text_document_encoding: EnumOrUnknown::from_i32(r.int(3)),
        ..Metadata::default()
    };
    let mut index = Index {
        metadata: Some(metadata).into(),
        ..Index::default()
    };

    for _ in 0..r.below(6) {
        let mut doc = Document::new();
        let file = match r.below(16) {
            15 => None,
            _ if files.is_empty() => None,
            _ => Some(r.pick(files)),
        };
        let lines = file.map_or(3, |f| f.line_count as usize);
        doc.relative_path = match file {
            Some(f) => f.path.clone(),
            None => r.pick(ELSEWHERE).to_string(),
        };
        doc.language = match r.below(4) {
            3 => String::new(),
            _ => language.into(),
        };
        doc.position_encoding = EnumOrUnknown::from_i32(r.int(4));
        for _ in 0..r.below(16) {
            let mut occurrence = Occurrence::new();
            let (line, col, len) = (r.int(lines + 2), r.int(48), 1 + r.int(12));
            occurrence.range = match r.below(5) {
                0 => vec![line, col, line + r.int(3), r.int(48)],
                1 => vec![line, col + len, col],
                2 => vec![line],
                _ => vec![line, col, col + len],
            };
            occurrence.symbol = symbol(r);
            occurrence.symbol_roles = i32::from(r.byte() & 0x7f);
            // Bit 0: an enclosing range; bits 1–2 its form: from the name's line down (as most
            // indexers give it, so definitions nest), from lines above it (rust-analyzer's
            // range takes in attributes and doc comments), the name's own range (a tie), or a
            // range elsewhere that does not hold the name.
            let enclosing = r.byte();
            if enclosing & 1 == 1 {
                occurrence.enclosing_range = match (enclosing >> 1) & 3 {
                    0 => vec![line, 0, line + r.int(6), 1],
                    1 => vec![(line - 1 - r.int(3)).max(0), 0, line + 1 + r.int(6), 0],
                    2 => occurrence.range.clone(),
                    _ => vec![line + 1, 0, line + 2 + r.int(3), 0],
                };
            }
            doc.occurrences.push(occurrence);
        }
        for _ in 0..r.below(4) {
            doc.symbols.push(symbol_information(r, &mut symbol));
        }
        index.documents.push(doc);
    }
    for _ in 0..r.below(3) {
        let information = symbol_information(r, &mut symbol);
        index.external_symbols.push(information);
    }
    index
}

/// Symbol information: a kind of any number, relationships, a signature and documentation
/// (which must never reach a table).
fn symbol_information(
    r: &mut Recipe<'_>,
    symbol: &mut impl FnMut(&mut Recipe<'_>) -> String,
) -> SymbolInformation {
    let mut information = SymbolInformation::new();
    information.symbol = symbol(r);
    information.kind = EnumOrUnknown::from_i32(r.int(90));
    for _ in 0..r.below(3) {
        let mut relationship = Relationship::new();
        relationship.symbol = symbol(r);
        let flags = r.byte();
        relationship.is_reference = flags & 1 != 0;
        relationship.is_implementation = flags & 2 != 0;
        relationship.is_type_definition = flags & 4 != 0;
        relationship.is_definition = flags & 8 != 0;
        information.relationships.push(relationship);
    }
    if r.byte() & 1 == 1 {
        let mut signature = Signature::new();
        signature.text = format!("fn {}(x: u8) -> u8", information.symbol.len());
        information.signature_documentation = Some(signature).into();
    }
    information.documentation = vec!["DOCUMENTATION-MUST-NOT-LEAK".into()];
    information
}

/// Names for the index's symbols: the identifiers the files hold (at most 24, in order), so that
/// SCIP's definitions meet tree-sitter's of the same name.
fn identifiers(root: &Path, files: &[FileRow]) -> Vec<String> {
    let mut names = BTreeSet::new();
    for file in files {
        let Ok(text) = std::fs::read(root.join(&file.path)) else {
            continue;
        };
        for word in text.split(|b| !(b.is_ascii_alphanumeric() || *b == b'_')) {
            if word
                .first()
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
                && word.len() <= 24
            {
                names.insert(String::from_utf8_lossy(word).into_owned());
            }
        }
    }
    let mut names: Vec<String> = names.into_iter().take(24).collect();
    if names.is_empty() {
        names.push("f".into());
    }
    names
}

/// The seeds: a Rust and a TypeScript repository with a change, and a recipe that defines and
/// references their functions and types.
pub fn scip_snapshot_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let input = |before: &[(&str, &str)], change: &[(&str, &str)], recipe: &[u8]| {
        let mut input = encode_repo(before);
        input.extend_from_slice(&[0, 0]);
        input.extend_from_slice(&encode_repo(change));
        input.extend_from_slice(&[0, 0]);
        input.extend_from_slice(recipe);
        input
    };
    vec![
        (
            "rust-with-rust-analyzer",
            input(
                &[
                    (
                        "src/lib.rs",
                        "pub fn area(s: &Square) -> u32 {\n    s.side() * s.side()\n}\n\npub struct Square(pub u32);\n",
                    ),
                    (
                        "src/shapes.rs",
                        "impl crate::Square {\n    pub fn side(&self) -> u32 { self.0 }\n}\n",
                    ),
                    ("src/main.rs", "fn main() {\n    let _ = fx::area(&fx::Square(2));\n}\n"),
                ],
                &[(
                    "src/main.rs",
                    "fn main() {\n    let _ = fx::area(&fx::Square(3));\n}\n",
                )],
                RUST_RECIPE,
            ),
        ),
        (
            "typescript-with-scip-typescript",
            input(
                &[
                    (
                        "src/circle.ts",
                        "export class Circle {\n  constructor(public r: number) {}\n  area(): number { return 3 * this.r * this.r; }\n}\n",
                    ),
                    (
                        "src/main.ts",
                        "import { Circle } from \"./circle\";\n\nexport function run(): number {\n  return new Circle(2).area();\n}\n",
                    ),
                ],
                &[("src/extra.ts", "export function extra(): number { return 1; }\n")],
                TS_RECIPE,
            ),
        ),
        (
            "rust-in-two-indexes",
            input(
                &[
                    (
                        "src/a.rs",
                        "pub fn helper() -> u32 { 1 }\npub fn run() -> u32 { helper() }\n",
                    ),
                    ("src/b.rs", "pub fn run() -> u32 { helper() }\n"),
                ],
                &[("src/b.rs", "pub fn run() -> u32 { helper() * 2 }\n")],
                TWO_INDEXES_RECIPE,
            ),
        ),
    ]
}

/// rust-analyzer (tool 0) at this root: the definitions of `area`, `Square`, `Square#side` and
/// `main` where tree-sitter finds them, references to `side` and `area`, symbol information with
/// a relationship, and an external symbol. Each line is one read of [`index_for`]; names and
/// files are indexes into the sorted identifiers and paths of the seed's repository.
const RUST_RECIPE: &[u8] = &[
    0, 0, 0, 3, // tool, project root, text encoding, documents
    0, 0, 0, 1, 3, // src/lib.rs: file, language, UTF-8, occurrences
    0, 7, 3, 3, 2, 0, 0, 1, 1,
    2, // area(): line, column, length, range form, symbol, roles, enclosing
    4, 11, 5, 3, 0, 0, 1, 1, 0, // Square#
    1, 6, 3, 3, 12, 0, 2, 0, 0, // a reference to Square#side()
    2, // symbol information
    2, 0, 0, 17, 0, 1, // area(): kind, no relationship, a signature
    0, 0, 1, 0, 1, 12, 0, 2, 1, 0, // Square#, referring to Square#side()
    0, 2, 0, 1, 1, // src/shapes.rs
    1, 11, 3, 3, 12, 0, 2, 1, 1, 0, // Square#side()
    0, // no symbol information
    0, 1, 0, 1, 2, // src/main.rs
    0, 3, 3, 3, 8, 0, 0, 1, 0, // main()
    1, 16, 3, 3, 2, 0, 0, 0, 0, // a reference to area()
    0, // no symbol information
    1, 5, 0, 7, 0, 0, 0, // an external symbol of another package
];

/// scip-typescript (tool 1): the definitions of `Circle`, `Circle#area` and `run`, a reference to
/// `area`, and symbol information with an implementation relationship.
const TS_RECIPE: &[u8] = &[
    1, 0, 0, 2, // tool, project root, text encoding, documents
    0, 0, 0, 1, 2, // src/circle.ts
    0, 13, 5, 3, 0, 0, 1, 1, 0, // Circle#
    2, 2, 3, 3, 1, 0, 2, 1, 0, // Circle#area()
    0, // no symbol information
    0, 1, 0, 1, 2, // src/main.ts
    2, 16, 2, 3, 14, 0, 0, 1, 0, // run()
    3, 23, 3, 3, 1, 0, 2, 0, 0, // a reference to Circle#area()
    1, 0, 0, 1, 0, 1, 1, 0, 2, 2,
    0, // Circle#, implementing Circle#area() (a fuzzer's pairing)
    0, // no external symbols
];

/// Two rust-analyzer indexes (as two runs over overlapping crates give): the first defines
/// `helper` and `run` in `src/a.rs`, `run` calling `helper`; the second defines `run` again in
/// `src/b.rs`, calling `helper` too. The symbol is one, defined twice, and its call to `helper` is
/// found in both indexes. Names: `fn`, `helper`, `pub`, `run`, `u32`; files: `src/a.rs`,
/// `src/b.rs`.
const TWO_INDEXES_RECIPE: &[u8] = &[
    0, 0, 0, 1, // the first index: tool, project root, text encoding, documents
    0, 0, 0, 1, 3, // src/a.rs
    0, 7, 5, 3, 1, 0, 0, 1, 0, // helper()
    1, 7, 2, 3, 3, 0, 0, 1, 1, 1, // run(), enclosing its line
    1, 22, 5, 3, 1, 0, 0, 0, 0, // a reference to helper() in run()
    0, // no symbol information
    0, // no external symbols
    1, // a second index
    0, 0, 0, 1, // tool, project root, text encoding, documents
    0, 1, 0, 1, 2, // src/b.rs
    0, 7, 2, 3, 3, 0, 0, 1, 1, 1, // run() again
    0, 22, 5, 3, 1, 0, 0, 0, 0, // a reference to helper() in it
    0, // no symbol information
    0, // no external symbols
];
