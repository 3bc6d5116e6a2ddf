//! The one risk model, shared by `ckb query impact`, `ckb query prepare-change` and `ckb diff`:
//! how risky a change is, as a score on one scale with every factor that makes it up.
//!
//! Each factor has a value in 0..=1 and a weight; the score is Σ weight × value, capped at 1
//! (rounded to 6 decimals), times any multiplier factor (again capped at 1). The level is
//! `high` at a score of at least [`HIGH`], `medium` at least [`MEDIUM`], else `low`. Every factor
//! is listed with its value, weight, contribution (weight × value) and a sentence, so a level can
//! always be explained.
//!
//! Weights (each factor's value is capped at 1):
//!
//! | used by | factor | weight | value |
//! |---|---|---|---|
//! | impact, prepare-change | `visibility` | 0.25 | public 1, protected 0.7, internal / unknown 0.5, private 0.2 (a path: share of public symbols) |
//! | impact, prepare-change | `directCallers` / `directDependents` | 0.30 | direct callers (a path: dependent files) / 10 |
//! | impact, prepare-change | `moduleSpread` | 0.25 | other modules affected / 5 |
//! | impact, prepare-change | `impactKind` | 0.20 | type dependencies 1, transitive callers 0.6, direct only 0.3, none 0 |
//! | prepare-change | `changeType` | multiplier | modify 1, rename 0.9, extract 0.8, delete 1.2 |
//! | diff | `breaking-api` | 0.45 | (15 per high, 8 per medium, 3 per low breaking change) / 45 |
//! | diff | `untouched-callers` | 0.24 | dependents of interface changes in untouched files / 8 |
//! | diff | `modules-affected` | 0.12 | modules reached beyond the first / 3 |
//! | diff | `callers-reached` | 0.10 | direct + transitive dependents / 30 (whole thirds) |
//! | diff | `untested-changes` | 0.10 | changed symbols no test reaches / 5 |
//! | diff | `missed-cochange` | 0.09 | co-change partners left untouched / 3 |
//! | diff | `change-size` | 0.10 | files touched / 50 (whole fifths) |
//! | diff | `incomplete-data` | 0.05 | 1 when any input table is missing |

use serde::Serialize;

/// Score at or above which the risk is `high`.
pub const HIGH: f64 = 0.7;
/// Score at or above which the risk is `medium`.
pub const MEDIUM: f64 = 0.4;

named_enum! {
    /// How risky a change is, least first.
    pub enum RiskLevel {
        /// Below [`MEDIUM`].
        Low => "low",
        /// From [`MEDIUM`] up to [`HIGH`].
        Medium => "medium",
        /// [`HIGH`] and above.
        High => "high",
    }
}

impl RiskLevel {
    /// The level of a score.
    pub fn of(score: f64) -> RiskLevel {
        if score >= HIGH {
            RiskLevel::High
        } else if score >= MEDIUM {
            RiskLevel::Medium
        } else {
            RiskLevel::Low
        }
    }
}

/// One factor of the score.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Factor {
    /// Stable factor name.
    pub factor: String,
    /// Its value, 0..=1 (a multiplier's value is the multiplier).
    pub value: f64,
    /// Its weight (absent for a multiplier).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// weight × value (absent for a multiplier).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contribution: Option<f64>,
    /// Set for a factor that multiplies the score instead of adding to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multiplies: Option<bool>,
    /// What it means.
    pub detail: String,
}

/// A risk: score, level and the factors behind them.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Risk {
    /// 0..=1.
    pub score: f64,
    /// The level of the score.
    pub level: RiskLevel,
    /// Every factor, in the order the caller listed them.
    pub factors: Vec<Factor>,
}

/// Rounds to the 6 decimals answers carry.
pub fn round(x: f64) -> f64 {
    (x * 1_000_000.0).round() / 1_000_000.0
}

impl Risk {
    /// Scores weighted factors: `(name, value, weight, detail)`, value capped at 1.
    pub fn weighted(factors: Vec<(&str, f64, f64, String)>) -> Risk {
        let sum: f64 = factors.iter().map(|(_, v, w, _)| v.min(1.0) * w).sum();
        let score = round(sum.min(1.0));
        let factors = factors
            .into_iter()
            .map(|(name, value, weight, detail)| {
                let value = value.min(1.0);
                Factor {
                    factor: name.into(),
                    value: round(value),
                    weight: Some(weight),
                    contribution: Some(round(value * weight)),
                    multiplies: None,
                    detail,
                }
            })
            .collect();
        Risk {
            score,
            level: RiskLevel::of(score),
            factors,
        }
    }

    /// The same risk multiplied by a factor (capped at 1), which is listed last.
    pub fn times(mut self, name: &str, multiplier: f64, detail: &str) -> Risk {
        self.score = round((self.score * multiplier).min(1.0));
        self.level = RiskLevel::of(self.score);
        self.factors.push(Factor {
            factor: name.into(),
            value: multiplier,
            weight: None,
            contribution: None,
            multiplies: Some(true),
            detail: detail.into(),
        });
        self
    }

    /// "level (score)", as explanations end.
    pub fn summary(&self) -> String {
        format!(
            "{} ({})",
            self.level,
            output_schema::json::format_float(self.score).unwrap_or_default()
        )
    }
}
