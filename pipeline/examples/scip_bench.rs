//! Benchmark driver for `ci/bench-scip.sh`: one mode per process, so `/usr/bin/time -v` measures
//! each one's wall time and peak memory on its own.
//!
//! - `decode INDEX`: the baseline — a bare streaming decode (top-level fields one at a time with
//!   protobuf's `CodedInputStream`, each document decoded with `Document::parse_from_bytes` and
//!   dropped), single-threaded, no conversion.
//! - `messages INDEX`: a finer bare decode, for reference — each document walked field by field,
//!   every occurrence and `SymbolInformation` decoded with the crate's decoder into one reused
//!   message (as the stage decodes them), nothing converted.
//! - `whole INDEX`: reads the file and decodes the whole `Index` at once (what the `scip` crate
//!   offers), for the memory comparison.
//! - `stage ROOT INDEX [THREADS] [rows]`: scans ROOT and runs the SCIP stage
//!   (`pipeline::scip::run`) on INDEX, as `ckb snapshot` does, keeping its output (occurrences in
//!   their compact form) in memory. With `rows`, the occurrences' row form (`OccurrenceRow`, which
//!   the merge builds) is built afterwards and timed apart (`rows_millis`), and a digest of every
//!   table, the stage report and the backend entries is printed (`digest`) to compare the output of
//!   two builds.
//!
//! - `parse INDEX`: `scip::symbol::parse_symbol` once per distinct global symbol (its share).
//!
//! Each prints one line: `mode=… documents=… occurrences=… cpu_millis=… millis=…`: wall and CPU
//! (user + system, all threads, from `/proc/self/task/*/sched`) milliseconds, to the hundredth, of
//! the measured part only, so the stage's figures leave out the scan that precedes it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use protobuf::Message;
use scip::types::{Document, Index};

fn usage() -> ! {
    eprintln!(
        "usage: scip_bench decode INDEX | messages INDEX | whole INDEX | parse INDEX | stage ROOT INDEX [THREADS] [rows]"
    );
    std::process::exit(2)
}

/// CPU time (user + system, every thread) of this process so far, in milliseconds (fractional: a
/// small index decodes in about 10 ms, where whole milliseconds would move a ratio by 10%): the sum over
/// its threads of `se.sum_exec_runtime` in `/proc/self/task/*/sched` (nanosecond precision), else
/// `/proc/self/stat` (10 ms ticks, taken as Linux's USER_HZ of 100); 0 where neither is available.
/// Threads that have ended are not counted: rayon's pool outlives the measured part.
fn cpu_millis() -> f64 {
    // A running thread's `sum_exec_runtime` is brought up to date only when the scheduler looks at
    // it (a tick, a switch): without this yield, the calling thread's own time would be read as of
    // its last tick, up to 4 ms old, which is a third of a small index's decode.
    std::thread::yield_now();
    let from_sched = || -> Option<f64> {
        let mut millis = 0f64;
        for task in std::fs::read_dir("/proc/self/task").ok()? {
            let sched = std::fs::read_to_string(task.ok()?.path().join("sched")).ok()?;
            let line = sched
                .lines()
                .find(|l| l.starts_with("se.sum_exec_runtime"))?;
            millis += line.rsplit(':').next()?.trim().parse::<f64>().ok()?;
        }
        Some(millis)
    };
    if let Some(millis) = from_sched() {
        return millis;
    }
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may contain spaces) start at field 3: utime is 14 and
    // stime 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<u64> = rest
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    ((fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0)) * 10) as f64
}

/// Milliseconds, to the hundredth, as the bench script reads them.
fn ms(millis: f64) -> String {
    format!("{millis:.2}")
}

/// Minor page faults of this process so far (field 10 of `/proc/self/stat`: first touches of fresh
/// memory, a cost instruction counts miss); 0 where unavailable.
fn minor_faults() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    rest.split_whitespace()
        .nth(7)
        .and_then(|f| f.parse().ok())
        .unwrap_or(0)
}

/// A digest of the stage's tables in a fixed order (the writer sorts rows, so the order the stage
/// emits them in does not matter), its report and its backend entries (counts, warnings), to
/// compare the output of two builds.
fn digest(
    (symbols, occurrences, call_edges, relationships): (
        &[output_schema::tables::SymbolRow],
        &[output_schema::tables::OccurrenceRow],
        &[output_schema::tables::CallEdgeRow],
        &[output_schema::tables::RelationshipRow],
    ),
    report: &output_schema::manifest::StageReport,
    backends: &[output_schema::manifest::Backend],
) -> String {
    use std::hash::{Hash, Hasher};
    let mut lines: Vec<String> = symbols.iter().map(|r| format!("{r:?}")).collect();
    lines.extend(occurrences.iter().map(|r| format!("{r:?}")));
    lines.extend(call_edges.iter().map(|r| format!("{r:?}")));
    lines.extend(relationships.iter().map(|r| format!("{r:?}")));
    lines.sort_unstable();
    lines.push(format!("{report:?}"));
    lines.push(format!("{backends:?}"));
    let mut h = std::hash::DefaultHasher::new();
    lines.hash(&mut h);
    format!("{:016x}", h.finish())
}

fn decode(index: &Path) -> (usize, usize) {
    let limits = pipeline::scip::reader::ReadLimits {
        max_document_bytes: u64::MAX,
        metadata_only: false,
    };
    let (mut docs, mut occs) = (0, 0);
    let walked = pipeline::scip::reader::read_index::<String>(index, limits, |item| {
        if let pipeline::scip::reader::Item::Document(bytes) = item {
            let d = Document::parse_from_bytes(&bytes).map_err(|e| e.to_string())?;
            docs += 1;
            occs += d.occurrences.len();
        }
        Ok(())
    });
    match walked {
        Ok(Ok(())) => (docs, occs),
        Ok(Err(e)) => panic!("document: {e}"),
        Err(e) => panic!("index: {e}"),
    }
}

fn decode_messages(index: &Path) -> (usize, usize) {
    use scip::types::{Occurrence, SymbolInformation};
    let limits = pipeline::scip::reader::ReadLimits {
        max_document_bytes: u64::MAX,
        metadata_only: false,
    };
    let (mut docs, mut occs) = (0, 0);
    let mut occ = Occurrence::new();
    let mut info = SymbolInformation::new();
    let walked = pipeline::scip::reader::read_index::<protobuf::Error>(index, limits, |item| {
        if let pipeline::scip::reader::Item::Document(bytes) = item {
            let mut is = protobuf::CodedInputStream::from_bytes(&bytes);
            let mut path = String::new();
            // Document fields 1 (relative_path), 2 (occurrences) and 3 (symbols).
            while let Some(tag) = is.read_raw_tag_or_eof()? {
                match tag {
                    10 => is.read_string_into(&mut path)?,
                    18 => {
                        occ.clear();
                        is.merge_message(&mut occ)?;
                        occs += 1;
                    }
                    26 => {
                        info.clear();
                        is.merge_message(&mut info)?;
                    }
                    t => protobuf::rt::skip_field_for_tag(t, &mut is)?,
                }
            }
            std::hint::black_box((&path, &occ, &info));
            docs += 1;
        }
        Ok(())
    });
    match walked {
        Ok(Ok(())) => (docs, occs),
        Ok(Err(e)) => panic!("document: {e}"),
        Err(e) => panic!("index: {e}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map(String::as_str).unwrap_or_else(|| usage());
    match mode {
        "decode" | "messages" => {
            let index = PathBuf::from(args.get(1).unwrap_or_else(|| usage()));
            let (t, cpu, faults) = (Instant::now(), cpu_millis(), minor_faults());
            let (docs, occs) = if mode == "decode" {
                decode(&index)
            } else {
                decode_messages(&index)
            };
            println!(
                "mode={mode} documents={docs} occurrences={occs} faults={} cpu_millis={} millis={}",
                minor_faults() - faults,
                ms(cpu_millis() - cpu),
                ms(t.elapsed().as_secs_f64() * 1e3)
            );
        }
        "whole" => {
            let index = PathBuf::from(args.get(1).unwrap_or_else(|| usage()));
            let (t, cpu) = (Instant::now(), cpu_millis());
            let bytes = std::fs::read(&index).expect("read index");
            let idx = Index::parse_from_bytes(&bytes).expect("decode index");
            let occs: usize = idx.documents.iter().map(|d| d.occurrences.len()).sum();
            println!(
                "mode=whole documents={} occurrences={occs} cpu_millis={} millis={}",
                idx.documents.len(),
                ms(cpu_millis() - cpu),
                ms(t.elapsed().as_secs_f64() * 1e3)
            );
        }
        "stage" => {
            let root = PathBuf::from(args.get(1).unwrap_or_else(|| usage()))
                .canonicalize()
                .expect("root");
            let index = PathBuf::from(args.get(2).unwrap_or_else(|| usage()));
            let threads: usize = args.get(3).and_then(|t| t.parse().ok()).unwrap_or(0);
            let with_rows = args.get(4).is_some_and(|a| a == "rows");
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            pool.install(|| {
                let scan_config = pipeline::scan::ScanConfig {
                    max_file_bytes: 1 << 20,
                    ignore_globs: Vec::new(),
                    excluded_folders: Vec::new(),
                    cache_file: None,
                };
                let scanned =
                    pipeline::scan::scan(&root, &scan_config, &pipeline::NoProgress).expect("scan");
                let state = output_schema::manifest::RepoState::default();
                let input = pipeline::scip::ScipInput {
                    root: &root,
                    repo_id: "bench",
                    files: &scanned.files,
                    repo: None,
                    repo_state: &state,
                    indexed_commit: None,
                    config: pipeline::scip::ScipConfig::default(),
                    cache: None,
                };
                let (t, cpu, faults) = (Instant::now(), cpu_millis(), minor_faults());
                let out = pipeline::scip::run(&input, &[index], &pipeline::NoProgress)
                    .expect("scip stage");
                let millis = ms(t.elapsed().as_secs_f64() * 1e3);
                let cpu = ms(cpu_millis() - cpu);
                let faults = minor_faults() - faults;
                let (occurrences, symbols, call_edges) = (
                    out.tables.occurrences.len(),
                    out.tables.symbols.len(),
                    out.tables.call_edges.len(),
                );
                // The row form the merge builds from the stage's compact occurrences, timed apart.
                let (rows_millis, digest) = if with_rows {
                    let t = Instant::now();
                    let rows = out.tables.occurrences.into_rows();
                    assert_eq!(rows.len(), occurrences);
                    let millis = ms(t.elapsed().as_secs_f64() * 1e3);
                    let tables = (
                        &out.tables.symbols[..],
                        &rows[..],
                        &out.tables.call_edges[..],
                        &out.tables.relationships[..],
                    );
                    (millis, digest(tables, &out.report, &out.backends))
                } else {
                    ("-".into(), "-".into())
                };
                println!(
                    "mode=stage documents={} occurrences={occurrences} symbols={symbols} \
                     call_edges={call_edges} digest={digest} rows_millis={rows_millis} \
                     faults={faults} cpu_millis={cpu} millis={millis}",
                    out.report.items,
                );
            });
        }
        "parse" => {
            // parse_symbol alone, once per distinct symbol string (its share of the stage).
            let index = PathBuf::from(args.get(1).unwrap_or_else(|| usage()));
            let bytes = std::fs::read(&index).expect("read index");
            let idx = Index::parse_from_bytes(&bytes).expect("decode index");
            let distinct: std::collections::BTreeSet<&str> = idx
                .documents
                .iter()
                .flat_map(|d| d.occurrences.iter().map(|o| o.symbol.as_str()))
                .filter(|s| !s.is_empty() && !s.starts_with("local "))
                .collect();
            let (t, cpu) = (Instant::now(), cpu_millis());
            let ok = distinct
                .iter()
                .filter(|s| scip::symbol::parse_symbol(s).is_ok())
                .count();
            println!(
                "mode=parse symbols={} parsed={ok} cpu_millis={} millis={}",
                distinct.len(),
                ms(cpu_millis() - cpu),
                ms(t.elapsed().as_secs_f64() * 1e3)
            );
        }
        _ => usage(),
    }
}
