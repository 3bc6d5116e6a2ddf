//! Author identity without personal data: a keyed hash of the mailmap-resolved email, and a flag
//! for authors that look like bots.
//!
//! `author_id` = the first 32 hex digits of `BLAKE3-keyed(key, lowercase(trimmed email))`, where
//! `key = BLAKE3-derive-key("ckb 2026 author-id v1", salt)`. The salt is the `CKB_SALT` environment
//! variable when set (read by the orchestrator, never here), else `ckb-default-salt:<repo id>`.
//! With the default salt anyone who knows the repository ID can test a guessed email against an
//! ID, so organisations that publish snapshots across teams should set `CKB_SALT`; with a secret
//! salt the IDs of the same person differ between organisations and cannot be reversed.

use gix::bstr::{BStr, ByteSlice};

/// Derives author IDs from emails.
#[derive(Clone)]
pub(crate) struct AuthorHasher {
    key: [u8; 32],
}

impl AuthorHasher {
    /// A hasher for `salt`.
    pub(crate) fn new(salt: &str) -> AuthorHasher {
        AuthorHasher {
            key: blake3::derive_key("ckb 2026 author-id v1", salt.as_bytes()),
        }
    }

    /// The author ID of an email (case and surrounding whitespace do not matter).
    pub(crate) fn id(&self, email: &BStr) -> String {
        let email = email.to_str_lossy().trim().to_lowercase();
        let hex = blake3::keyed_hash(&self.key, email.as_bytes()).to_hex();
        hex[..32].to_string()
    }

    /// A one-way fingerprint of the key, recorded in the manifest so that a later snapshot reuses
    /// author IDs only when they were made with the same salt. It reveals nothing about the salt.
    pub(crate) fn fingerprint(&self) -> String {
        let mut h = crate::hashing::FieldHasher::new("ckb.author-key-fingerprint.v1");
        h.field(&self.key);
        h.hex(16)
    }
}

/// The salt used when `CKB_SALT` is not set: fixed per repository, so IDs are stable across runs.
pub fn default_salt(repo_id: &str) -> String {
    format!("ckb-default-salt:{repo_id}")
}

/// Substrings of a lowercased name or email that mark well-known automation accounts.
const BOT_MARKERS: &[&str] = &[
    "[bot]",
    "dependabot",
    "renovate-bot",
    "renovatebot",
    "github-actions",
    "greenkeeper",
    "snyk-bot",
    "mergify",
    "imgbot",
    "pre-commit-ci",
    "allcontributors",
    "semantic-release-bot",
    "k8s-ci-robot",
    "copybara-service",
    "gitlab-bot",
];

/// Whole names (lowercased) of automation accounts too short to match as substrings.
const BOT_NAMES: &[&str] = &[
    "renovate",
    "bors",
    "codecov",
    "dependabot",
    "travis ci",
    "jenkins",
];

/// Whether an author looks like a bot, judged on the (mailmap-resolved) name and email.
pub(crate) fn is_bot(name: &BStr, email: &BStr) -> bool {
    let name = name.to_str_lossy().trim().to_lowercase();
    let email = email.to_str_lossy().trim().to_lowercase();
    if BOT_MARKERS
        .iter()
        .any(|m| name.contains(m) || email.contains(m))
    {
        return true;
    }
    if BOT_NAMES.contains(&name.as_str()) {
        return true;
    }
    // `ci-bot@example.com`, `release_bot@…`, `Release Bot`.
    let local = email.split('@').next().unwrap_or_default();
    let bot_suffix = |s: &str| {
        ["-bot", "_bot", ".bot", " bot", "+bot"]
            .iter()
            .any(|suffix| s.ends_with(suffix))
    };
    bot_suffix(local) || bot_suffix(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_ignore_case_and_depend_on_the_salt() {
        let a = AuthorHasher::new("s1");
        let id = a.id("Jane@Example.COM ".into());
        assert_eq!(id, a.id("jane@example.com".into()));
        assert_eq!(id.len(), 32);
        assert!(!id.contains("jane"));
        assert_ne!(id, AuthorHasher::new("s2").id("jane@example.com".into()));
        assert_ne!(id, a.id("john@example.com".into()));
        assert_ne!(a.fingerprint(), AuthorHasher::new("s2").fingerprint());
    }

    #[test]
    fn bots_are_recognised() {
        let bot = |n: &str, e: &str| is_bot(n.into(), e.into());
        assert!(bot(
            "dependabot[bot]",
            "49699333+dependabot[bot]@users.noreply.github.com"
        ));
        assert!(bot("Renovate", "renovate@whitesourcesoftware.com"));
        assert!(bot(
            "github-actions",
            "41898282+github-actions@users.noreply.github.com"
        ));
        assert!(bot("Release Bot", "release@example.com"));
        assert!(bot("CI", "ci-bot@example.com"));
        assert!(!bot("Jane Doe", "jane@example.com"));
        assert!(!bot("Abbot Smith", "abbot@example.com"));
        assert!(!bot("Renovated Kitchens", "info@example.com"));
    }
}
