//! How long each language's syntax query takes to compile. Every run that parses a file of a
//! language pays this once (a one-file commit included), so it bounds how fast a per-commit
//! snapshot of a repository in that language can be; `pipeline/grammar-queries/README.md` says which
//! pattern shapes are expensive.
//!
//! Usage: `query_compile [--runs N] [FILE.scm LANG]...`. Without files, prints the median and
//! minimum compile time of every language's own query over N runs (default 15). With pairs of a
//! query file and a language name (`rust`, `cpp`, …), compiles those instead, round-robin, so two
//! versions of a query can be compared on a machine whose speed drifts.

use std::time::Instant;

use pipeline::syntax::lang::Lang;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut runs = 15usize;
    let mut queries: Vec<(String, Lang, String)> = Vec::new();
    while let Some(a) = args.next() {
        if a == "--runs" {
            runs = args
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(runs)
                .max(1);
            continue;
        }
        let lang = args.next().and_then(|l| Lang::from_name(&l));
        let (Some(lang), Ok(source)) = (lang, std::fs::read_to_string(&a)) else {
            eprintln!("usage: query_compile [--runs N] [FILE.scm LANG]...  (LANG: rust, cpp, …)");
            std::process::exit(2);
        };
        queries.push((a, lang, source));
    }
    if queries.is_empty() {
        queries = Lang::ALL
            .iter()
            .map(|&l| (l.name().to_string(), l, l.query_source()))
            .collect();
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(runs); queries.len()];
    for _ in 0..runs {
        for ((label, lang, source), times) in queries.iter().zip(&mut times) {
            let grammar = lang.grammar();
            let start = Instant::now();
            if let Err(e) = tree_sitter::Query::new(&grammar, source) {
                eprintln!("{label}: {e}");
                std::process::exit(1);
            }
            times.push(start.elapsed().as_secs_f64() * 1000.0);
        }
    }
    for ((label, _, _), times) in queries.iter().zip(&mut times) {
        times.sort_by(f64::total_cmp);
        println!(
            "{label}: median {:.2} ms, min {:.2} ms ({runs} runs)",
            times[times.len() / 2],
            times[0]
        );
    }
}
