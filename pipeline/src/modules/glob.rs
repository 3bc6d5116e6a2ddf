//! Workspace member globs (Cargo `members`, npm/yarn/pnpm `workspaces`, uv `members`).
//!
//! The supported syntax is what these tools document for member lists: `*` and `?` within one
//! path component and `**` for any number of components; anything else is literal. Patterns are
//! matched against folders that hold a manifest, never expanded against the file system, so a
//! pattern can neither loop over symlinks nor walk outside the repository.

/// Whether `pattern` (already normalized: no `./`, no trailing `/`) matches the relative folder
/// `path` (`""` is the folder the pattern is relative to).
///
/// Time is linear in practice, whatever the pattern: `**` is matched like `*` in
/// [`match_component`], one component at a time with one backtrack point, so a pattern with many
/// `**` (a manifest is repository content) never backtracks exponentially; at worst it takes
/// (pattern components × path components) component comparisons.
pub fn matches(pattern: &str, path: &str) -> bool {
    match_segments(&segments(pattern), &segments(path))
}

/// The components of a pattern or a folder as [`match_segments`] takes them (empty and `.`
/// components dropped): a caller that matches many folders against many patterns splits each once.
pub fn segments(s: &str) -> Vec<&str> {
    s.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect()
}

/// Path components against pattern components: `**` stands for any number of components, any
/// other pattern component matches exactly one ([`match_component`]).
pub fn match_segments(pat: &[&str], segs: &[&str]) -> bool {
    wildcard(
        pat,
        segs,
        |p| *p == "**",
        |p, s| match_component(p.as_bytes(), s.as_bytes()),
    )
}

/// One component against its pattern: `*` stands for any run of bytes, `?` for one byte.
fn match_component(p: &[u8], s: &[u8]) -> bool {
    wildcard(p, s, |&c| c == b'*', |&c, &b| c == b'?' || c == b)
}

/// Iterative wildcard matching with one backtrack point (the latest star), never recursive:
/// `pat` against `s`, where `is_star` picks the elements standing for any run of elements and
/// `one` says whether any other pattern element matches one element. Linear in practice; at
/// worst (pattern × input) steps.
fn wildcard<P, S>(
    pat: &[P],
    s: &[S],
    is_star: impl Fn(&P) -> bool,
    one: impl Fn(&P, &S) -> bool,
) -> bool {
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < pat.len() && is_star(&pat[pi]) {
            star = Some((pi, si));
            pi += 1;
        } else if pi < pat.len() && one(&pat[pi], &s[si]) {
            pi += 1;
            si += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    pat[pi..].iter().all(is_star)
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
        assert!(matches("**/b", "a/b"));
        assert!(matches("**/b", "b"));
        assert!(matches("a/**/b/**/c", "a/x/b/y/z/c"));
        assert!(matches("a/**/b/**/c", "a/b/c"));
        assert!(!matches("a/**/b/**/c", "a/c/b"));
        assert!(matches("**/*-app/**", "x/y/web-app/z"));
        assert!(!matches("**/*-app/**", "x/y/web/z"));
        assert!(matches("**/**/x", "x"));
    }

    /// Many `**` against a deep path that almost matches: a backtracking matcher tries every way
    /// to share 200 components among 12 `**` (about 10^19), this one at most 25 × 201 component
    /// comparisons.
    #[test]
    fn many_double_stars_do_not_backtrack_exponentially() {
        let pattern = format!("{}b", "**/a/".repeat(12));
        let path = format!("{}c", "a/".repeat(200));
        assert!(!matches(&pattern, &path));
        let path = format!("{}b", "a/".repeat(200));
        assert!(matches(&pattern, &path));
        let wide = format!("**/{}b", "*a*/".repeat(12));
        assert!(matches(&wide, &path));
        assert!(!matches(&wide, &format!("{}c", "a/".repeat(200))));
    }
}
