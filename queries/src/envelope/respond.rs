//! Turning a command's findings into the answer envelope, within budget.
//!
//! Every command fills a [`Draft`]: facts, explanation, completeness, the cuts it made for its
//! item budgets ([`Cut`]), the lists that may be shortened further to fit the token budget
//! ([`Trim`]), and its own suggested next commands. [`finish`] then
//! - records the cuts as provenance truncations;
//! - trims the listed arrays (least important first, from their ends) until the canonical JSON
//!   fits `--max-tokens`, recording each trim as a `max-tokens` truncation — JSON is never cut,
//!   only list items are dropped; an answer that cannot fit even then is `BUDGET_EXCEEDED`;
//! - chooses drilldowns, in this order: one per truncation (raise the budget that cut), the stale
//!   SCIP index, a snapshot behind or off the working tree, low completeness (< 0.8; not for
//!   `doctor` and `status`, which list the fixes themselves), then the command's own — deduplicated by command and capped at `--max-drilldowns`.

use serde_json::Value;

use output_schema::ErrorCode;

use crate::envelope::answer::{Answer, CompletenessInfo, Drilldown, Provenance, Truncation};
use crate::envelope::budget::{self, Budget};
use crate::snapshot::coverage;
use crate::snapshot::{Freshness, Snapshot};
use crate::QueryError;

/// What every command needs: the snapshot, its freshness and the budget of this call.
#[derive(Clone, Copy, Debug)]
pub struct Ctx<'a> {
    /// The snapshot read.
    pub snapshot: &'a Snapshot,
    /// The snapshot against the working tree.
    pub freshness: &'a Freshness,
    /// Limits for this call.
    pub budget: Budget,
}

/// A cut a command made to respect an item budget.
#[derive(Clone, Debug, PartialEq)]
pub struct Cut {
    /// Name of the list in `facts`.
    pub what: String,
    /// The budget that cut (`max-items`, `max-modules`, `max-per-module`, `depth`, …).
    pub budget: String,
    /// Items before the cut.
    pub total: usize,
    /// Items kept.
    pub shown: usize,
    /// The flag that would show more (`--limit`, `--max-items`, `--max-modules`,
    /// `--max-per-module`, `--depth`).
    pub flag: Option<&'static str>,
}

impl Cut {
    /// A cut, or `None` when nothing was cut.
    pub fn of(
        what: &str,
        budget: &str,
        total: usize,
        shown: usize,
        flag: Option<&'static str>,
    ) -> Option<Cut> {
        (total > shown).then(|| Cut {
            what: what.into(),
            budget: budget.into(),
            total,
            shown,
            flag,
        })
    }
}

/// An array in `facts` (a JSON pointer) that may be shortened to fit the token budget.
#[derive(Clone, Debug)]
pub struct Trim {
    /// JSON pointer to the array inside `facts` (`/results`, `/modules`).
    pub pointer: String,
    /// Its name in truncations.
    pub what: String,
    /// How many of the answer's items (`compression.itemsOut`) one element holds.
    pub weight: fn(&Value) -> u64,
}

fn one(_: &Value) -> u64 {
    1
}

fn zero(_: &Value) -> u64 {
    0
}

impl Trim {
    /// A trimmable array whose elements are items of the answer.
    pub fn new(pointer: &str, what: &str) -> Trim {
        Trim {
            pointer: pointer.into(),
            what: what.into(),
            weight: one,
        }
    }

    /// Trimmable arrays of items, least important first, each named by its path in `facts`
    /// (`dependencies.in` is the array at `/dependencies/in`).
    pub fn lists(whats: &[&str]) -> Vec<Trim> {
        whats
            .iter()
            .map(|what| Trim::new(&format!("/{}", what.replace('.', "/")), what))
            .collect()
    }

    /// A trimmable array of summaries that are not counted as items.
    pub fn summary(pointer: &str, what: &str) -> Trim {
        Trim {
            weight: zero,
            ..Trim::new(pointer, what)
        }
    }

    /// A trimmable array whose elements hold a number of items.
    pub fn weighted(pointer: &str, what: &str, weight: fn(&Value) -> u64) -> Trim {
        Trim {
            weight,
            ..Trim::new(pointer, what)
        }
    }
}

/// A command's answer before budgets and drilldowns are applied.
#[derive(Clone, Debug)]
pub struct Draft {
    /// The command name (`refs`).
    pub command: String,
    /// The command line that produced it, without budget flags (`ckb query refs <id>`); used to
    /// build drilldowns that raise a budget.
    pub invocation: String,
    /// Structured facts.
    pub facts: Value,
    /// Derived text.
    pub explanation: String,
    /// How complete the facts are.
    pub completeness: CompletenessInfo,
    /// Caveats (added after the freshness warnings).
    pub warnings: Vec<String>,
    /// Cuts made for item budgets.
    pub cuts: Vec<Cut>,
    /// Arrays that may be trimmed for tokens, least important first.
    pub trims: Vec<Trim>,
    /// The command's own next steps (after the automatic ones).
    pub drilldowns: Vec<Drilldown>,
    /// Items considered.
    pub items_in: u64,
    /// Items returned.
    pub items_out: u64,
    /// Whether the facts depend on SCIP data from an index that is stale.
    pub depends_on_scip: bool,
}

impl Draft {
    /// A draft with empty lists.
    pub fn new(command: &str, invocation: String, facts: Value, explanation: String) -> Draft {
        Draft {
            command: command.into(),
            invocation,
            facts,
            explanation,
            completeness: CompletenessInfo {
                score: 1.0,
                reason: "complete".into(),
            },
            warnings: Vec::new(),
            cuts: Vec::new(),
            trims: Vec::new(),
            drilldowns: Vec::new(),
            items_in: 0,
            items_out: 0,
            depends_on_scip: false,
        }
    }

    /// A draft of `ckb query <command> <arg>` (the argument quoted for a shell), with empty lists.
    pub fn about(command: &str, arg: &str, facts: Value, explanation: String) -> Draft {
        let invocation = format!("ckb query {command} {}", shell_quote(arg));
        Draft::new(command, invocation, facts, explanation)
    }

    /// Adds a cut when one was made.
    pub fn cut(&mut self, cut: Option<Cut>) {
        self.cuts.extend(cut);
    }

    /// Records that the list `what` was cut from `total` to `shown` items by `budget`
    /// (`max-items`, `max-modules`, …), when it was; `flag` is what shows more.
    pub fn cut_list(
        &mut self,
        what: &str,
        budget: &str,
        total: usize,
        shown: usize,
        flag: &'static str,
    ) {
        self.cut(Cut::of(what, budget, total, shown, Some(flag)));
    }

    /// The answer's one list `what` (at `/what`): cut from `total` to `shown` items by
    /// `max-items` (`--limit` shows more), and trimmable for tokens.
    pub fn limited_list(&mut self, what: &str, total: usize, shown: usize) {
        self.cut_list(what, "max-items", total, shown, "--limit");
        self.trims = Trim::lists(&[what]);
    }

    /// Records the items considered and the items returned.
    pub fn items(&mut self, considered: usize, returned: usize) {
        self.items_in = considered as u64;
        self.items_out = returned as u64;
    }

    /// Suggests `ckb query <command> <arg>` (`arg` as given: quote paths with [`shell_quote`]).
    pub fn suggest_query(&mut self, command: &str, arg: &str, reason: impl Into<String>) {
        self.suggest(format!("ckb query {command} {arg}"), reason);
    }

    /// Records that `beyond` more items of the list `what` (`shown` listed) lie past the walk's
    /// `depth`, when the depth may still grow, and offers `<command> --depth <depth + 1>`.
    pub fn cut_depth(
        &mut self,
        what: &str,
        shown: usize,
        beyond: usize,
        depth: usize,
        command: &str,
        noun: &str,
    ) {
        if beyond == 0 || depth >= DEPTH_RANGE.1 as usize {
            return;
        }
        self.cut(Some(Cut {
            what: what.into(),
            budget: "depth".into(),
            total: shown + beyond,
            shown,
            flag: None,
        }));
        self.suggest(
            format!("{command} --depth {}", depth + 1),
            format!("{beyond} more {noun} lie beyond depth {depth}"),
        );
    }

    /// Adds a command-specific drilldown.
    pub fn suggest(&mut self, command: impl Into<String>, reason: impl Into<String>) {
        self.drilldowns.push(Drilldown {
            command: command.into(),
            reason: reason.into(),
        });
    }
}

/// The range of `--depth` of every command that walks a graph.
pub const DEPTH_RANGE: (u64, u64) = (1, 10);

/// Quotes an argument for a POSIX shell when it needs it.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._:/=@%+-,".contains(&b));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Arguments quoted for a POSIX shell ([`shell_quote`]), separated by spaces.
pub fn shell_words(args: &[String]) -> String {
    let quoted: Vec<String> = args.iter().map(|a| shell_quote(a)).collect();
    quoted.join(" ")
}

fn tokens_of(answer: &Answer) -> usize {
    output_schema::json::to_string(answer)
        .map(|s| s.len())
        .unwrap_or(0)
        .div_ceil(4)
}

fn array_len(facts: &Value, pointer: &str) -> usize {
    facts
        .pointer(pointer)
        .and_then(Value::as_array)
        .map(Vec::len)
        .unwrap_or(0)
}

/// Trims the listed arrays until the answer fits; returns the trims made as truncations and the
/// number of items dropped.
fn fit_tokens(answer: &mut Answer, limit: usize, trims: &[Trim]) -> (Vec<(String, u64, u64)>, u64) {
    let mut made: Vec<(String, u64, u64)> = Vec::new();
    let mut dropped_items = 0u64;
    let original: Vec<usize> = trims
        .iter()
        .map(|t| array_len(&answer.facts, &t.pointer))
        .collect();
    // Two passes: first keep at least one item of every list, then allow emptying them.
    for keep in [1usize, 0] {
        for t in trims {
            loop {
                let tokens = tokens_of(answer);
                if tokens <= limit {
                    break;
                }
                let Some(items) = answer
                    .facts
                    .pointer_mut(&t.pointer)
                    .and_then(Value::as_array_mut)
                else {
                    break;
                };
                if items.len() <= keep {
                    break;
                }
                let list_tokens = output_schema::json::to_string(&Value::Array(items.clone()))
                    .map(|s| s.len())
                    .unwrap_or(0)
                    .div_ceil(4)
                    .max(1);
                let excess = tokens - limit;
                let per_item = list_tokens.div_ceil(items.len()).max(1);
                let drop = excess.div_ceil(per_item).clamp(1, items.len() - keep);
                let new_len = items.len() - drop;
                dropped_items += items[new_len..].iter().map(t.weight).sum::<u64>();
                items.truncate(new_len);
            }
        }
        if tokens_of(answer) <= limit {
            break;
        }
    }
    for (t, before) in trims.iter().zip(original) {
        let after = array_len(&answer.facts, &t.pointer);
        if after < before {
            made.push((t.what.clone(), before as u64, after as u64));
        }
    }
    (made, dropped_items)
}

/// Settles the token estimate, which is part of the answer it measures, on a fixed point.
fn settle(answer: &mut Answer) {
    for _ in 0..4 {
        let t = tokens_of(answer) as u64;
        if t == answer.compression.estimated_tokens {
            break;
        }
        answer.compression.estimated_tokens = t;
    }
}

/// Trims lists until the whole answer — including the truncations and the drilldown the
/// trimming itself adds — fits the token budget; `BUDGET_EXCEEDED` when even the smallest
/// answer does not.
fn fit(ctx: &Ctx<'_>, draft: &Draft, base: Answer) -> Result<Answer, QueryError> {
    let budget = ctx.budget.tokens;
    let mut target = budget;
    let mut smallest = u64::MAX;
    for _ in 0..8 {
        let mut answer = base.clone();
        let (trimmed, dropped) = fit_tokens(&mut answer, target, &draft.trims);
        for (what, before, after) in &trimmed {
            answer.provenance.truncations.push(Truncation {
                what: what.clone(),
                budget: "max-tokens".into(),
                total: *before,
                shown: *after,
            });
        }
        if !trimmed.is_empty() && ctx.budget.drilldowns > 0 {
            let raise = format!(
                "{} --max-tokens {}",
                draft.invocation,
                (budget * 2).min(budget::TOKENS_RANGE.1 as usize)
            );
            answer.drilldowns.retain(|d| d.command != raise);
            answer.drilldowns.truncate(ctx.budget.drilldowns - 1);
            answer.drilldowns.insert(
                0,
                Drilldown {
                    command: raise,
                    reason: format!("{dropped} list item(s) were left out to fit the token budget"),
                },
            );
        }
        answer.compression.items_out = answer.compression.items_out.saturating_sub(dropped);
        settle(&mut answer);
        let tokens = answer.compression.estimated_tokens;
        if tokens as usize <= budget {
            return Ok(answer);
        }
        smallest = smallest.min(tokens);
        let overshoot = tokens as usize - budget;
        if target <= overshoot {
            break;
        }
        target -= overshoot;
    }
    Err(QueryError::new(
        ErrorCode::BudgetExceeded,
        format!(
            "the smallest {} answer needs about {smallest} tokens; the budget is {budget}",
            draft.command
        ),
        format!(
            "raise the budget: --max-tokens {}",
            smallest.max(budget::TOKENS_RANGE.0)
        ),
    ))
}

/// Builds the answer: truncations, token fitting, drilldowns and compression metrics.
pub fn finish(ctx: &Ctx<'_>, draft: Draft) -> Result<Answer, QueryError> {
    let snapshot = ctx.snapshot;
    let mut provenance = Provenance::of(snapshot, ctx.freshness, draft.completeness.clone());
    let stale = if draft.depends_on_scip {
        coverage::scip_stale(snapshot)
    } else {
        None
    };
    if let Some(why) = &stale {
        provenance.warnings.push(format!(
            "INDEX_STALE: {why}; SCIP facts may not match the code"
        ));
    }
    provenance.warnings.extend(draft.warnings.iter().cloned());
    provenance.truncations = draft
        .cuts
        .iter()
        .map(|c| Truncation {
            what: c.what.clone(),
            budget: c.budget.clone(),
            total: c.total as u64,
            shown: c.shown as u64,
        })
        .collect();

    let mut drilldowns: Vec<Drilldown> = Vec::new();
    for c in &draft.cuts {
        if let Some(flag) = c.flag {
            // Double what was shown (never more than exists): a bounded next step.
            let wanted = (c.total as u64).min((c.shown as u64 * 2).max(c.shown as u64 + 1));
            let range = match flag {
                "--max-modules" => budget::MODULES_RANGE,
                "--max-per-module" => budget::PER_MODULE_RANGE,
                "--depth" => DEPTH_RANGE,
                _ => budget::ITEMS_RANGE,
            };
            drilldowns.push(Drilldown {
                command: format!("{} {flag} {}", draft.invocation, wanted.min(range.1)),
                reason: format!(
                    "{} more {} not shown ({})",
                    c.total - c.shown,
                    c.what,
                    c.budget
                ),
            });
        }
    }
    if let Some(why) = &stale {
        drilldowns.push(Drilldown {
            command: coverage::scip_refresh_command(snapshot),
            reason: format!("the SCIP index is stale ({why})"),
        });
    }
    if ctx.freshness.state.is_outdated() {
        drilldowns.push(Drilldown {
            command: "ckb snapshot".into(),
            reason: format!(
                "the snapshot is {} relative to the working tree",
                ctx.freshness.state
            ),
        });
    }
    // `doctor` and `status` already say what is missing and how to fix it.
    if draft.completeness.score < 0.8 && !matches!(draft.command.as_str(), "doctor" | "status") {
        drilldowns.push(Drilldown {
            command: "ckb query doctor".into(),
            reason: format!(
                "completeness is {} ({}): see what is missing and how to fix it",
                output_schema::json::format_float(draft.completeness.score).unwrap_or_default(),
                draft.completeness.reason
            ),
        });
    }
    drilldowns.extend(draft.drilldowns.iter().cloned());
    let mut seen = std::collections::BTreeSet::new();
    drilldowns.retain(|d| seen.insert(d.command.clone()));
    drilldowns.truncate(ctx.budget.drilldowns);

    let answer = Answer::new(
        &draft.command,
        draft.facts.clone(),
        draft.explanation.clone(),
        provenance,
        drilldowns,
        draft.items_in,
        draft.items_out,
    );
    if answer.compression.estimated_tokens as usize > ctx.budget.tokens {
        return fit(ctx, &draft, answer);
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("ckb:r:sym:00"), "ckb:r:sym:00");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
