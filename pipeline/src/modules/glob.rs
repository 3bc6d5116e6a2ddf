//! Workspace member globs (Cargo `members`, npm/yarn/pnpm `workspaces`, uv `members`).
//!
//! The supported syntax is what these tools document for member lists: `*` and `?` within one
//! path component and `**` for any number of components; anything else is literal. Patterns are
//! matched against folders that hold a manifest, never expanded against the file system, so a
//! pattern can neither loop over symlinks nor walk outside the repository.

/// Whether `pattern` (already normalized: no `./`, no trailing `/`) matches the relative folder
/// `path` (`""` is the folder the pattern is relative to).
pub fn matches(pattern: &str, path: &str) -> bool {
    let mut pat: Vec<&str> = pattern
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    // `**/**` means the same as `**`; collapsing keeps the backtracking small.
    pat.dedup_by(|a, b| *a == "**" && *b == "**");
    let segs: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    match_segments(&pat, &segs)
}

fn match_segments(pat: &[&str], segs: &[&str]) -> bool {
    match pat.split_first() {
        None => segs.is_empty(),
        Some((&"**", rest)) => (0..=segs.len()).any(|i| match_segments(rest, &segs[i..])),
        Some((p, rest)) => match segs.split_first() {
            Some((s, srest)) => {
                match_component(p.as_bytes(), s.as_bytes()) && match_segments(rest, srest)
            }
            None => false,
        },
    }
}

fn match_component(p: &[u8], s: &[u8]) -> bool {
    // Iterative wildcard matching with one backtrack point: linear in practice, never recursive.
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, si));
            pi += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn member_patterns() {
        assert!(matches("crates/*", "crates/core"));
        assert!(!matches("crates/*", "crates/core/sub"));
        assert!(matches("packages/**", "packages/a/b"));
        assert!(matches("packages/**", "packages"));
        assert!(matches("apps/web-*", "apps/web-admin"));
        assert!(!matches("apps/web-*", "apps/api"));
        assert!(matches("lib?", "lib1"));
        assert!(matches("**", ""));
        assert!(matches("*", "x"));
        assert!(!matches("*", ""));
        assert!(matches("tools/cli", "tools/cli"));
    }
}
