//! What writing a snapshot's tables costs, and what finding their unchanged parts would cost.
//!
//! Usage: `encode_cost SNAPSHOT_DIR [RUNS]`. For each table of the snapshot (read back from its
//! Parquet file), on one thread, best of RUNS (default 7):
//!
//! - `encode`: [`encode_table`], what every snapshot pays for the table whatever changed;
//! - `digest`: the rows in their binary row form ([`RowWriter`]) hashed with BLAKE3, per 6 000
//!   rows (a row group a writer could copy from the previous file when its digest is unchanged).
//!
//! Issue 25's per-commit budget is a tenth of a full snapshot. Encoding alone is a fixed share of
//! it, and a writer that copied unchanged column chunks would save only what encoding costs
//! beyond the digest that tells which chunks are unchanged: this prints both, so that the
//! trade-off is measured rather than assumed (DESIGN.md, "Per-commit snapshots").

use std::path::Path;
use std::time::Instant;

use output_schema::parquet_io::{encode_table, read_table};
use output_schema::row_codec::RowWriter;
use output_schema::tables::{
    CallEdgeRow, ChurnRow, CochangeRow, CommitRow, FileChangeRow, FileRow, ImportRow,
    ModuleEdgeRow, ModuleRow, OccurrenceRow, OwnershipRow, RelationshipRow, SymbolRow, UsageRow,
};
use output_schema::Table;

/// Rows per digested group.
const GROUP_ROWS: usize = 6000;

/// A table's name, row count and best encode and digest milliseconds, or what went wrong.
type Measured = Result<(&'static str, usize, f64, f64), String>;

/// Measures one table of the snapshot in a folder, best of so many runs.
type Measure = fn(&Path, usize) -> Measured;

/// Best-of-`runs` milliseconds of encoding and of digesting one table.
fn measure<T: Table + Clone>(dir: &Path, runs: usize) -> Measured {
    let file = dir.join(T::INFO.file_name());
    let rows: Vec<T> = read_table(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let (mut encode, mut digest) = (f64::MAX, f64::MAX);
    for _ in 0..runs {
        let mut copy = rows.clone();
        let clock = Instant::now();
        let bytes = encode_table(&mut copy).map_err(|e| e.to_string())?;
        encode = encode.min(clock.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(bytes);
        let clock = Instant::now();
        for group in rows.chunks(GROUP_ROWS) {
            let mut writer = RowWriter::new();
            writer.put_rows(group);
            std::hint::black_box(blake3::hash(&writer.finish()));
        }
        digest = digest.min(clock.elapsed().as_secs_f64() * 1e3);
    }
    Ok((T::INFO.name, rows.len(), encode, digest))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), runs) = (args.next(), args.next()) else {
        eprintln!("usage: encode_cost SNAPSHOT_DIR [RUNS]");
        std::process::exit(2);
    };
    let runs = runs.and_then(|r| r.parse().ok()).unwrap_or(7usize).max(1);
    // One thread: the figures are CPU time, comparable between tables and machines.
    if let Err(e) = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
    {
        eprintln!("encode_cost: {e}");
        std::process::exit(1);
    }
    let dir = Path::new(&dir);
    let tables: [Measure; 14] = [
        measure::<FileRow>,
        measure::<SymbolRow>,
        measure::<OccurrenceRow>,
        measure::<CallEdgeRow>,
        measure::<RelationshipRow>,
        measure::<ImportRow>,
        measure::<ModuleRow>,
        measure::<ModuleEdgeRow>,
        measure::<CommitRow>,
        measure::<FileChangeRow>,
        measure::<ChurnRow>,
        measure::<CochangeRow>,
        measure::<OwnershipRow>,
        measure::<UsageRow>,
    ];
    println!(
        "{:<14} {:>8} {:>10} {:>10}",
        "table", "rows", "encode ms", "digest ms"
    );
    let (mut encode_total, mut digest_total) = (0.0, 0.0);
    for measure in tables {
        match measure(dir, runs) {
            Ok((name, rows, encode, digest)) => {
                println!("{name:<14} {rows:>8} {encode:>10.1} {digest:>10.1}");
                encode_total += encode;
                digest_total += digest;
            }
            Err(e) => {
                eprintln!("encode_cost: {e}");
                std::process::exit(1);
            }
        }
    }
    println!(
        "{:<14} {:>8} {encode_total:>10.1} {digest_total:>10.1}",
        "total", ""
    );
}
