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
    fn repo_ids_are_sanitized() {
        assert_eq!(sanitize_repo_id("my repo/x"), "my-repo-x");
        assert_eq!(sanitize_repo_id("///"), "repo");
        assert_eq!(sanitize_repo_id(".."), "repo");
    }
}
