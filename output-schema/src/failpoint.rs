//! Named failpoints: `CKB_FAILPOINT` makes ckb fail at a named point of a snapshot or a store
//! clean-up the way a crash or a full disk would, so that the fault-injection tests
//! (`tests/store_faults.rs`) can stop a real `ckb` process exactly there and check what a reader
//! then finds in the store.
//!
//! The variable holds comma-separated entries:
//!
//! | entry | effect |
//! |---|---|
//! | `kill@POINT` | the process sends itself `SIGKILL` the first time it reaches `POINT` |
//! | `kill@POINT#N` | … the `N`th time (`N` ≥ 1) |
//! | `enospc@POINT` | the file-system operation at `POINT` fails with "no space left on device" |
//! | `enospc@POINT#N` | … from the `N`th time on |
//! | `FLAG` | a plain flag a component asks for by name (`no-exchange`: act as if the file system had no atomic exchange of two folders; `panic`: the binary panics on start; `panic-in-worker`: a snapshot panics on a worker thread of its pool; `repeat-symbol`: the writer is handed one `symbols` row twice, as a defective stage would) |
//!
//! The points are listed in [`POINTS`]. The variable is read once; when it is not set, each point
//! costs one load of an initialised `OnceLock`. A release binary keeps them: the variable does
//! nothing a user who can set it could not do by other means (kill the process, fill the disk).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The environment variable.
pub const VAR: &str = "CKB_FAILPOINT";

/// Every named point, in the order a snapshot reaches them, then the store clean-up's.
pub const POINTS: &[&str] = &[
    // The scan's walk of the working tree, once per file kept.
    "walk",
    // Each file (table, view, manifest) written into the temporary folder, before its bytes.
    "write",
    // Each file's flush to disk, on the flushing thread, before the fsync.
    "fsync",
    // Everything is on disk, nothing is published yet.
    "publish-rename",
    // The new snapshot is visible, its parent folder not yet flushed.
    "published",
    // `--force`: the old snapshot is about to be exchanged with the new one.
    "force-swap",
    // `--force`: exchanged; the old snapshot waits under the temporary name to be removed.
    "force-swapped",
    // `--force` without an atomic exchange: the old snapshot is set aside, the new one not yet in.
    "force-set-aside",
    // The scan cache's temporary file is written, not yet renamed over the cache.
    "scan-cache-write",
    // `ckb store gc`: a snapshot is renamed out of sight, not yet deleted.
    "gc-renamed",
];

/// What one entry asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    /// SIGKILL at the `n`th hit.
    Kill(u64),
    /// Fail with ENOSPC from the `n`th hit on.
    NoSpace(u64),
}

struct Plan {
    actions: BTreeMap<String, Action>,
    flags: Vec<String>,
    hits: BTreeMap<String, AtomicU64>,
}

fn plan() -> Option<&'static Plan> {
    static PLAN: OnceLock<Option<Plan>> = OnceLock::new();
    PLAN.get_or_init(|| {
        let value = std::env::var(VAR).ok()?;
        let plan = parse(&value);
        (!plan.actions.is_empty() || !plan.flags.is_empty()).then_some(plan)
    })
    .as_ref()
}

fn parse(value: &str) -> Plan {
    let mut actions = BTreeMap::new();
    let mut flags = Vec::new();
    for entry in value.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let Some((action, target)) = entry.split_once('@') else {
            flags.push(entry.to_string());
            continue;
        };
        let (point, nth) = match target.split_once('#') {
            Some((p, n)) => (p, n.parse::<u64>().unwrap_or(1).max(1)),
            None => (target, 1),
        };
        let action = match action {
            "kill" => Action::Kill(nth),
            "enospc" => Action::NoSpace(nth),
            // Unknown actions are ignored: a test that misspells one finds its process alive.
            _ => continue,
        };
        actions.insert(point.to_string(), action);
    }
    let hits = actions
        .keys()
        .map(|k| (k.clone(), AtomicU64::new(0)))
        .collect();
    Plan {
        actions,
        flags,
        hits,
    }
}

/// Reaches `point`: the process kills itself here if asked to (`kill@POINT`), and an injected
/// full disk (`enospc@POINT`) is returned as the error of the operation about to run.
pub fn hit(point: &str) -> std::io::Result<()> {
    let Some(plan) = plan() else {
        return Ok(());
    };
    let Some(action) = plan.actions.get(point) else {
        return Ok(());
    };
    let count = plan
        .hits
        .get(point)
        .map_or(1, |c| c.fetch_add(1, Ordering::SeqCst).saturating_add(1));
    match *action {
        Action::Kill(nth) if count == nth => kill_self(),
        Action::NoSpace(nth) if count >= nth => Err(no_space()),
        _ => Ok(()),
    }
}

/// Whether the plain flag `name` is set (`CKB_FAILPOINT=no-exchange`).
pub fn flag(name: &str) -> bool {
    plan().is_some_and(|p| p.flags.iter().any(|f| f == name))
}

/// The error a full disk gives.
pub fn no_space() -> std::io::Error {
    #[cfg(unix)]
    {
        // ENOSPC has the number 28 on every Unix ckb builds for.
        std::io::Error::from_raw_os_error(28)
    }
    #[cfg(not(unix))]
    {
        std::io::Error::from(std::io::ErrorKind::StorageFull)
    }
}

/// Ends the process the hardest way: no destructor, no flush, no exit handler runs, as with an
/// external `kill -9`.
fn kill_self() -> ! {
    #[cfg(unix)]
    {
        let _ =
            rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
    }
    // SIGKILL cannot be caught; should sending it fail, abort is the next hardest stop.
    std::process::abort()
}

/// Whether an I/O error means the disk (or the user's quota) is full.
pub fn is_disk_full(e: &std::io::Error) -> bool {
    // ENOSPC (28) and EDQUOT (122 on Linux, 69 on the BSDs and macOS).
    matches!(e.kind(), std::io::ErrorKind::StorageFull)
        || matches!(e.raw_os_error(), Some(28))
        || (cfg!(target_os = "linux") && e.raw_os_error() == Some(122))
        || (cfg!(any(target_os = "macos", target_os = "freebsd")) && e.raw_os_error() == Some(69))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse_into_actions_and_flags() {
        let plan = parse("kill@write#3, enospc@fsync,no-exchange,bogus@x,kill@walk#0,enospc@y#2");
        assert_eq!(plan.actions.get("write"), Some(&Action::Kill(3)));
        assert_eq!(plan.actions.get("fsync"), Some(&Action::NoSpace(1)));
        assert_eq!(plan.actions.get("y"), Some(&Action::NoSpace(2)));
        assert_eq!(plan.actions.get("walk"), Some(&Action::Kill(1)));
        assert!(!plan.actions.contains_key("x"));
        assert_eq!(plan.flags, vec!["no-exchange".to_string()]);
    }

    #[test]
    fn an_injected_full_disk_is_recognised_as_one() {
        assert!(is_disk_full(&no_space()));
        assert!(!is_disk_full(&std::io::Error::from(
            std::io::ErrorKind::NotFound
        )));
    }
}
