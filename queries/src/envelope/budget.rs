//! Answer budgets: how much any one answer may hold, and per-call overrides of them.
//!
//! Defaults come from `.ckb/config.json` (`budgets`, see `output_schema::config::Budgets`:
//! 10 modules, 5 symbols per module, 20 impact items, 5 drilldowns, about 4000 tokens); each call
//! may override them (`--max-modules`, `--max-items`, `--max-tokens`, `--max-drilldowns`,
//! `--limit`). Every value has a documented range; anything outside it is `INVALID_PARAMETER`
//! rather than a silently clamped answer.

use output_schema::config::Budgets;
use output_schema::ErrorCode;

use crate::QueryError;

/// Allowed range of `--max-modules` (and `budgets.modules`).
pub const MODULES_RANGE: (u64, u64) = (1, 500);
/// Allowed range of `--max-items` / `--limit` (and `budgets.impactItems`).
pub const ITEMS_RANGE: (u64, u64) = (1, 1000);
/// Allowed range of `--max-per-module` (and `budgets.symbolsPerModule`).
pub const PER_MODULE_RANGE: (u64, u64) = (1, 100);
/// Allowed range of `--max-drilldowns` (and `budgets.drilldowns`).
pub const DRILLDOWNS_RANGE: (u64, u64) = (0, 20);
/// Allowed range of `--max-tokens` (and `budgets.tokens`); the envelope alone needs a few hundred.
pub const TOKENS_RANGE: (u64, u64) = (500, 1_000_000);

/// The limits one answer must respect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Modules (or module-like groups) listed.
    pub modules: usize,
    /// Symbols (or files) listed per module.
    pub per_module: usize,
    /// Items in the answer's main list (impact items, results, references).
    pub items: usize,
    /// Drilldowns offered.
    pub drilldowns: usize,
    /// Estimated tokens of the whole JSON answer (bytes / 4).
    pub tokens: usize,
}

/// Per-call overrides, as given on the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `--max-modules`.
    pub modules: Option<u64>,
    /// `--max-per-module`.
    pub per_module: Option<u64>,
    /// `--max-items`.
    pub items: Option<u64>,
    /// `--max-tokens`.
    pub tokens: Option<u64>,
    /// `--max-drilldowns`.
    pub drilldowns: Option<u64>,
}

/// Checks that a value lies in a range; `INVALID_PARAMETER` naming the flag otherwise.
pub fn check_range(flag: &str, value: u64, (lo, hi): (u64, u64)) -> Result<usize, QueryError> {
    if value < lo || value > hi {
        return Err(QueryError::new(
            ErrorCode::InvalidParameter,
            format!("{flag} {value} is out of range ({lo}..={hi})"),
            format!("pass {flag} between {lo} and {hi}"),
        ));
    }
    Ok(value as usize)
}

impl Default for Budget {
    fn default() -> Self {
        // The defaults are the config's defaults, which are in range by construction.
        Budget::from_config(&Budgets::default()).unwrap_or(Budget {
            modules: 10,
            per_module: 5,
            items: 20,
            drilldowns: 5,
            tokens: 4000,
        })
    }
}

impl Budget {
    /// The budget a repository's config sets; out-of-range values are reported with their key.
    pub fn from_config(b: &Budgets) -> Result<Budget, QueryError> {
        let key = |k: &str, v: u32, r| {
            check_range(&format!("budgets.{k}"), u64::from(v), r).map_err(|mut e| {
                e.code = ErrorCode::ConfigInvalid;
                e.remediation = format!("fix budgets.{k} in .ckb/config.json ({})", e.remediation);
                e
            })
        };
        Ok(Budget {
            modules: key("modules", b.modules, MODULES_RANGE)?,
            per_module: key("symbolsPerModule", b.symbols_per_module, PER_MODULE_RANGE)?,
            items: key("impactItems", b.impact_items, ITEMS_RANGE)?,
            drilldowns: key("drilldowns", b.drilldowns, DRILLDOWNS_RANGE)?,
            tokens: key("tokens", b.tokens, TOKENS_RANGE)?,
        })
    }

    /// Applies per-call overrides, each checked against its range.
    pub fn with_overrides(mut self, o: &Overrides) -> Result<Budget, QueryError> {
        if let Some(v) = o.modules {
            self.modules = check_range("--max-modules", v, MODULES_RANGE)?;
        }
        if let Some(v) = o.per_module {
            self.per_module = check_range("--max-per-module", v, PER_MODULE_RANGE)?;
        }
        if let Some(v) = o.items {
            self.items = check_range("--max-items", v, ITEMS_RANGE)?;
        }
        if let Some(v) = o.tokens {
            self.tokens = check_range("--max-tokens", v, TOKENS_RANGE)?;
        }
        if let Some(v) = o.drilldowns {
            self.drilldowns = check_range("--max-drilldowns", v, DRILLDOWNS_RANGE)?;
        }
        Ok(self)
    }

    /// The item count of a command with a `--limit`: the limit when given (checked), else the
    /// items budget.
    pub fn limit(&self, limit: Option<u64>) -> Result<usize, QueryError> {
        match limit {
            Some(v) => check_range("--limit", v, ITEMS_RANGE),
            None => Ok(self.items),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_config() {
        let b = Budget::default();
        assert_eq!(
            (b.modules, b.per_module, b.items, b.drilldowns, b.tokens),
            (10, 5, 20, 5, 4000)
        );
    }

    #[test]
    fn out_of_range_overrides_are_invalid_parameters() {
        let b = Budget::default();
        let e = b
            .with_overrides(&Overrides {
                items: Some(0),
                ..Overrides::default()
            })
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidParameter);
        assert!(e.message.contains("--max-items 0"), "{}", e.message);
        assert!(b.limit(Some(1001)).is_err());
        assert_eq!(b.limit(Some(3)).unwrap(), 3);
        assert_eq!(b.limit(None).unwrap(), 20);
        let ok = b
            .with_overrides(&Overrides {
                tokens: Some(800),
                modules: Some(2),
                ..Overrides::default()
            })
            .unwrap();
        assert_eq!((ok.tokens, ok.modules), (800, 2));
    }

    #[test]
    fn bad_config_budgets_are_config_errors() {
        let e = Budget::from_config(&Budgets {
            tokens: 10,
            ..Budgets::default()
        })
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::ConfigInvalid);
        assert!(e.message.contains("budgets.tokens"));
    }
}
