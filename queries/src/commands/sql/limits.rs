//! The resource limits of one SQL session — rows, memory, time and threads — parsed from the
//! `ckb query sql` / `ckb query canned` flags. Going over a limit is `SQL_LIMIT_EXCEEDED`, naming
//! the limit and the flag that raises it; a malformed or out-of-range flag is `INVALID_PARAMETER`.

use std::time::Duration;

use output_schema::ErrorCode;

use crate::QueryError;

/// Flag that sets [`SqlLimits::max_rows`].
pub const MAX_ROWS_FLAG: &str = "--max-rows";
/// Flag that sets [`SqlLimits::memory`].
pub const MEMORY_LIMIT_FLAG: &str = "--memory-limit";
/// Flag that sets [`SqlLimits::timeout`].
pub const TIMEOUT_FLAG: &str = "--timeout";
/// Flag that sets [`SqlLimits::threads`].
pub const SQL_THREADS_FLAG: &str = "--sql-threads";

const MAX_ROWS: (u64, u64, u64) = (1, 100_000, 100_000_000);
const TIMEOUT_SECONDS: (u64, u64, u64) = (1, 120, 86_400);
const THREADS: (u64, u64) = (1, 256);
/// Default thread cap: DuckDB's default is every core, too greedy on a shared CI runner.
const DEFAULT_THREADS_CAP: u64 = 4;
const MEMORY_BYTES: (u64, u64) = (32_000_000, 1 << 40);
const DEFAULT_MEMORY: &str = "2GB";

/// Limits of one SQL session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlLimits {
    /// Rows a result may have; one more is an error (the query stops reading there).
    pub max_rows: u64,
    /// DuckDB's memory limit. Nothing spills to disk, so a query that needs more fails.
    pub memory: MemoryLimit,
    /// Wall-clock time for opening the session and running the statement.
    pub timeout: Duration,
    /// DuckDB worker threads.
    pub threads: u64,
}

/// A memory limit in bytes, with the text the user gave for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    /// Bytes.
    pub bytes: u64,
    /// As typed (`512MB`, `2GiB`).
    pub text: String,
}

/// The limit flags as typed (`None`: the default).
#[derive(Clone, Copy, Debug, Default)]
pub struct SqlLimitFlags<'a> {
    /// `--max-rows`.
    pub max_rows: Option<&'a str>,
    /// `--memory-limit`.
    pub memory_limit: Option<&'a str>,
    /// `--timeout` (seconds).
    pub timeout: Option<&'a str>,
    /// `--sql-threads`.
    pub threads: Option<&'a str>,
}

impl Default for SqlLimits {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        SqlLimits {
            max_rows: MAX_ROWS.1,
            memory: parse_memory(DEFAULT_MEMORY).expect("the default memory limit parses"),
            timeout: Duration::from_secs(TIMEOUT_SECONDS.1),
            threads: cores.clamp(THREADS.0, DEFAULT_THREADS_CAP),
        }
    }
}

impl SqlLimits {
    /// The limits the flags ask for, defaults for the others.
    pub fn from_flags(flags: &SqlLimitFlags<'_>) -> Result<Self, QueryError> {
        let mut limits = SqlLimits::default();
        if let Some(v) = flags.max_rows {
            limits.max_rows = whole(MAX_ROWS_FLAG, v, MAX_ROWS.0, MAX_ROWS.2)?;
        }
        if let Some(v) = flags.memory_limit {
            limits.memory = parse_memory(v).ok_or_else(|| {
                QueryError::new(
                    ErrorCode::InvalidParameter,
                    format!(
                        "{MEMORY_LIMIT_FLAG} {v:?} is not a size between 32MB and 1TiB"
                    ),
                    format!("pass {MEMORY_LIMIT_FLAG} as a whole number with a unit: KB, MB, GB, TB (1000s) or KiB, MiB, GiB, TiB (1024s), e.g. 512MB"),
                )
            })?;
        }
        if let Some(v) = flags.timeout {
            limits.timeout = Duration::from_secs(whole(
                TIMEOUT_FLAG,
                v,
                TIMEOUT_SECONDS.0,
                TIMEOUT_SECONDS.2,
            )?);
        }
        if let Some(v) = flags.threads {
            limits.threads = whole(SQL_THREADS_FLAG, v, THREADS.0, THREADS.1)?;
        }
        Ok(limits)
    }
}

fn whole(flag: &str, value: &str, min: u64, max: u64) -> Result<u64, QueryError> {
    match value.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(QueryError::new(
            ErrorCode::InvalidParameter,
            format!("{flag} {value:?} is not a whole number from {min} to {max}"),
            format!(
                "pass {flag} with a whole number from {min} to {max} (see `ckb query sql --help`)"
            ),
        )),
    }
}

/// `<digits><unit>`, unit one of KB MB GB TB KiB MiB GiB TiB (any case), within the allowed range.
fn parse_memory(text: &str) -> Option<MemoryLimit> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit())?;
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().ok()?;
    let multiplier: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "kb" => 1000,
        "mb" => 1000u64.pow(2),
        "gb" => 1000u64.pow(3),
        "tb" => 1000u64.pow(4),
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        _ => return None,
    };
    let bytes = n.checked_mul(multiplier)?;
    (MEMORY_BYTES.0..=MEMORY_BYTES.1)
        .contains(&bytes)
        .then(|| MemoryLimit {
            bytes,
            text: t.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(max_rows: &str, memory: &str, timeout: &str, threads: &str) -> SqlLimitFlags<'static> {
        let leak = |s: &str| -> Option<&'static str> {
            (!s.is_empty()).then(|| &*Box::leak(s.to_string().into_boxed_str()))
        };
        SqlLimitFlags {
            max_rows: leak(max_rows),
            memory_limit: leak(memory),
            timeout: leak(timeout),
            threads: leak(threads),
        }
    }

    #[test]
    fn defaults_are_bounded() {
        let d = SqlLimits::default();
        assert_eq!(d.max_rows, 100_000);
        assert_eq!(d.memory.bytes, 2_000_000_000);
        assert_eq!(d.timeout, Duration::from_secs(120));
        assert!((1..=4).contains(&d.threads));
        assert_eq!(SqlLimits::from_flags(&SqlLimitFlags::default()).unwrap(), d);
    }

    #[test]
    fn flags_parse_at_their_bounds_and_refuse_beyond() {
        let l = SqlLimits::from_flags(&flags("1", "32MB", "1", "1")).unwrap();
        assert_eq!(
            (l.max_rows, l.memory.bytes, l.timeout.as_secs(), l.threads),
            (1, 32_000_000, 1, 1)
        );
        let l = SqlLimits::from_flags(&flags("100000000", "1TiB", "86400", "256")).unwrap();
        assert_eq!(
            (l.max_rows, l.memory.bytes, l.timeout.as_secs(), l.threads),
            (100_000_000, 1 << 40, 86_400, 256)
        );
        assert_eq!(parse_memory("512 mib").unwrap().bytes, 512 << 20);
        for (f, flag) in [
            (flags("0", "", "", ""), MAX_ROWS_FLAG),
            (flags("100000001", "", "", ""), MAX_ROWS_FLAG),
            (flags("-1", "", "", ""), MAX_ROWS_FLAG),
            (flags("", "31MB", "", ""), MEMORY_LIMIT_FLAG),
            (flags("", "2TiB", "", ""), MEMORY_LIMIT_FLAG),
            (flags("", "512", "", ""), MEMORY_LIMIT_FLAG),
            (flags("", "1.5GB", "", ""), MEMORY_LIMIT_FLAG),
            (flags("", "1GB; SET x=1", "", ""), MEMORY_LIMIT_FLAG),
            (
                flags("", "99999999999999999999GB", "", ""),
                MEMORY_LIMIT_FLAG,
            ),
            (flags("", "", "0", ""), TIMEOUT_FLAG),
            (flags("", "", "86401", ""), TIMEOUT_FLAG),
            (flags("", "", "", "0"), SQL_THREADS_FLAG),
            (flags("", "", "", "257"), SQL_THREADS_FLAG),
        ] {
            let e = SqlLimits::from_flags(&f).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidParameter, "{f:?}");
            assert!(e.message.starts_with(flag), "{f:?}: {}", e.message);
        }
    }
}
