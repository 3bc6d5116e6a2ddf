//! `ckb query symbol <ID|NAME>`: one symbol's metadata and location.
//!
//! Facts: `symbol` (every column the snapshot has for it, location under `location`),
//! `resolution` (`redirected` false, or the alias redirect: `redirectedFrom`, `reason`,
//! `confidence`, `hops`), and `locationFreshness`: `current` when the snapshot describes the
//! working tree exactly, else `may-be-stale` (the tree is dirty, ahead, diverged, or unknown).
//! Only the row group of `symbols` that can hold the ID is read.

use serde_json::json;

use crate::envelope::answer::Answer;
use crate::envelope::facts::symbol_full;
use crate::envelope::respond::{finish, Ctx, Draft};
use crate::snapshot::coverage;
use crate::snapshot::lookup::Lookup;
use crate::QueryError;

/// `current` or `may-be-stale`.
pub fn location_freshness(ctx: &Ctx<'_>) -> &'static str {
    if ctx.freshness.may_be_stale() {
        "may-be-stale"
    } else {
        "current"
    }
}

/// Runs `symbol`.
pub fn symbol(ctx: &Ctx<'_>, input: &str) -> Result<Answer, QueryError> {
    let lookup = Lookup::new(ctx.snapshot);
    let r = lookup.resolve(input)?;
    let s = &r.symbol;
    let loc_fresh = location_freshness(ctx);
    let mut explanation = format!(
        "{} {} {} defined in {}:{}",
        s.visibility,
        s.kind,
        s.qualified_name(),
        s.path,
        s.start_line
    );
    if let Some(m) = &s.module_id {
        explanation.push_str(&format!(" (module {m})"));
    }
    explanation.push_str(&format!("; from {}.", s.source));
    if r.redirected {
        explanation.push_str(&format!(
            " The ID asked for was redirected ({}, confidence {}).",
            r.resolution["reason"].as_str().unwrap_or(""),
            output_schema::json::format_float(r.resolution["confidence"].as_f64().unwrap_or(0.0))
                .unwrap_or_default()
        ));
    }
    if loc_fresh != "current" {
        explanation.push_str(&format!(
            " The location may be stale (snapshot freshness: {}).",
            ctx.freshness.state
        ));
    }
    let facts = json!({
        "symbol": symbol_full(s),
        "resolution": r.resolution,
        "locationFreshness": loc_fresh,
    });
    let mut draft = Draft::new(
        "symbol",
        format!("ckb query symbol {}", s.stable_id),
        facts,
        explanation,
    );
    draft.completeness = coverage::symbols_of(ctx.snapshot, s.source == "scip");
    draft.depends_on_scip = s.source == "scip";
    draft.items(1, 1);
    if r.redirected {
        draft
            .warnings
            .push(format!("{} redirects to {}", input.trim(), s.stable_id));
    }
    draft.suggest_query("refs", &s.stable_id, "where it is used");
    draft.suggest_query("impact", &s.stable_id, "what a change would affect");
    draft.suggest(
        format!(
            "ckb query explore {}",
            crate::envelope::respond::shell_quote(&s.path)
        ),
        "its file in context",
    );
    finish(ctx, draft)
}
