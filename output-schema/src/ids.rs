//! The shape of stable symbol IDs and other identifiers that appear in snapshot data.
//!
//! A stable ID is `ckb:<repo_id>:sym:<fingerprint>` where `<fingerprint>` is lowercase hex. How the
//! fingerprint is computed belongs to the identity stage; how an ID looks belongs here, so readers
//! can reject malformed IDs and IDs of another repository without knowing how they were made.

use crate::shared_str::SharedStr;

/// Prefix of every stable ID.
pub const STABLE_ID_PREFIX: &str = "ckb:";

/// Length in hex digits of a symbol fingerprint (80 bits; a discriminator may follow after `~`).
pub const FINGERPRINT_HEX_LEN: usize = 20;

/// The pieces of a stable ID, in order: `ckb:<repo>:sym:<fingerprint>[~<discriminator>]`. The
/// one place that says how an ID is laid out.
fn id_parts<'a>(
    repo_id: &'a str,
    fingerprint: &'a str,
    discriminator: Option<&'a str>,
) -> [&'a str; 6] {
    [
        STABLE_ID_PREFIX,
        repo_id,
        ":sym:",
        fingerprint,
        if discriminator.is_some() { "~" } else { "" },
        discriminator.unwrap_or(""),
    ]
}

/// Builds a stable ID from its parts.
pub fn stable_id(repo_id: &str, fingerprint: &str) -> String {
    // Built by hand rather than with `format!`: IDs are made by the hundred thousand.
    id_parts(repo_id, fingerprint, None).concat()
}

/// [`stable_id`] with an optional discriminator (`<fingerprint>~<discriminator>`), as a
/// [`SharedStr`] made in one allocation: IDs are made by the hundred thousand and every one becomes
/// a shared string, so assembling it in a `String` first would cost a second allocation and copy.
pub fn shared_stable_id(
    repo_id: &str,
    fingerprint: &str,
    discriminator: Option<&str>,
) -> SharedStr {
    /// IDs up to this size (every ID with a repository ID of sane length) are assembled on the
    /// stack.
    const STACK_BYTES: usize = 256;
    let parts = id_parts(repo_id, fingerprint, discriminator);
    let len: usize = parts.iter().map(|p| p.len()).sum();
    if len > STACK_BYTES {
        return SharedStr::from(parts.concat());
    }
    let mut buf = [0u8; STACK_BYTES];
    let mut at = 0;
    for part in parts {
        buf[at..at + part.len()].copy_from_slice(part.as_bytes());
        at += part.len();
    }
    // The parts are whole strings, so their concatenation is UTF-8.
    SharedStr::from(std::str::from_utf8(&buf[..len]).unwrap_or_default())
}

/// Starts a stable ID's discriminator.
const DISCRIMINATOR_START: u8 = b'~';
/// Separates the parts of a discriminator (a per-file part, then the part that tells files
/// apart).
const DISCRIMINATOR_PART: u8 = b'.';

/// `id` with one more discriminator part: `<id>~<part>`, or `<id>.<part>` when `id` has a
/// discriminator already. `part` must be non-empty ASCII letters and digits.
pub fn with_discriminator_part(id: &str, part: &str) -> SharedStr {
    let separator = if id.as_bytes().contains(&DISCRIMINATOR_START) {
        DISCRIMINATOR_PART
    } else {
        DISCRIMINATOR_START
    };
    let mut out = String::with_capacity(id.len() + 1 + part.len());
    out.push_str(id);
    out.push(char::from(separator));
    out.push_str(part);
    SharedStr::from(out)
}

/// Undoes [`with_discriminator_part`]: the ID without its discriminator's last part, and that
/// part; `None` when `id` has no discriminator. Reads only the end of the ID (a part never holds
/// `:`), so it is cheap enough to run on every row.
pub fn split_last_discriminator_part(id: &str) -> Option<(&str, &str)> {
    let b = id.as_bytes();
    let at = b
        .iter()
        .rposition(|&c| matches!(c, DISCRIMINATOR_START | DISCRIMINATOR_PART | b':'))?;
    let belongs = match b[at] {
        DISCRIMINATOR_START => true,
        // A dot ends a part only after the discriminator started (repository IDs hold dots too,
        // but before `:sym:`).
        DISCRIMINATOR_PART => b[..at].contains(&DISCRIMINATOR_START),
        _ => false,
    };
    (belongs && at + 1 < b.len()).then(|| (&id[..at], &id[at + 1..]))
}

/// A parsed stable ID.
#[derive(Debug, PartialEq, Eq)]
pub struct StableId<'a> {
    /// Repository the ID belongs to.
    pub repo_id: &'a str,
    /// The fingerprint (with any discriminator).
    pub fingerprint: &'a str,
}

/// Parses a stable ID; `None` when it does not have the documented shape.
pub fn parse_stable_id(id: &str) -> Option<StableId<'_>> {
    let rest = id.strip_prefix(STABLE_ID_PREFIX)?;
    let (repo_id, fingerprint) = rest.rsplit_once(":sym:")?;
    let valid_repo = is_valid_repo_id(repo_id);
    let (hex, discriminator) = match fingerprint.split_once('~') {
        Some((h, d)) => (h, Some(d)),
        None => (fingerprint, None),
    };
    let valid_hex = hex.len() == FINGERPRINT_HEX_LEN
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    let valid_disc = discriminator
        .is_none_or(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.'));
    (valid_repo && valid_hex && valid_disc).then_some(StableId {
        repo_id,
        fingerprint,
    })
}

/// Whether a repo ID uses only `[A-Za-z0-9._-]` and is non-empty.
pub fn is_valid_repo_id(id: &str) -> bool {
    !id.is_empty()
        && id != "."
        && id != ".."
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Turns any name into a valid repo ID by replacing disallowed characters with `-`.
pub fn sanitize_repo_id(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let s = s.trim_matches('-').to_string();
    if is_valid_repo_id(&s) {
        s
    } else {
        "repo".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_stable_ids_are_stable_ids() {
        let fp = "0123456789abcdef0123";
        assert_eq!(&*shared_stable_id("ckb", fp, None), stable_id("ckb", fp));
        assert_eq!(
            &*shared_stable_id("ckb", fp, Some("a2")),
            format!("{}~a2", stable_id("ckb", fp))
        );
        // Longer than the stack buffer.
        let repo = "r".repeat(300);
        assert_eq!(
            &*shared_stable_id(&repo, fp, Some("n1")),
            format!("{}~n1", stable_id(&repo, fp))
        );
    }

    #[test]
    fn stable_ids_round_trip() {
        let id = stable_id("ckb", "0123456789abcdef0123");
        let parsed = parse_stable_id(&id).unwrap();
        assert_eq!(parsed.repo_id, "ckb");
        assert!(parse_stable_id(&format!("{id}~a2")).is_some());
        assert!(parse_stable_id("ckb:ckb:sym:xyz").is_none());
        assert!(parse_stable_id("scip-rust cargo foo 1.0 bar().").is_none());
        assert!(parse_stable_id("ckb:bad repo:sym:0123456789abcdef0123").is_none());
    }

    #[test]
    fn discriminator_parts_are_added_and_taken_off_from_the_end() {
        let plain = stable_id("my.repo", "0123456789abcdef0123");
        let one = with_discriminator_part(&plain, "a2");
        assert_eq!(one.as_str(), format!("{plain}~a2"));
        let two = with_discriminator_part(&one, "fdeadbeef");
        assert_eq!(two.as_str(), format!("{plain}~a2.fdeadbeef"));
        for id in [&one, &two] {
            assert!(parse_stable_id(id).is_some(), "{id}");
        }
        assert_eq!(
            split_last_discriminator_part(&two),
            Some((one.as_str(), "fdeadbeef"))
        );
        assert_eq!(
            split_last_discriminator_part(&one),
            Some((plain.as_str(), "a2"))
        );
        // No discriminator: a dot of the repository ID is not one.
        assert_eq!(split_last_discriminator_part(&plain), None);
        assert_eq!(split_last_discriminator_part("ckb:a.r2"), None);
        assert_eq!(split_last_discriminator_part(&format!("{plain}~")), None);
    }

    #[test]
    fn repo_ids_are_sanitized() {
        assert_eq!(sanitize_repo_id("my repo/x"), "my-repo-x");
        assert_eq!(sanitize_repo_id("///"), "repo");
        assert_eq!(sanitize_repo_id(".."), "repo");
    }
}
