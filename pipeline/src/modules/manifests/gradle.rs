//! Gradle: `build.gradle(.kts)` and `settings.gradle(.kts)` (included projects, dependencies).

use super::*;
use crate::modules::paths::join;

pub(super) const GRADLE_CONFIGURATIONS: &[&str] = &[
    "implementation",
    "api",
    "compile",
    "compileOnly",
    "compileOnlyApi",
    "runtimeOnly",
    "testImplementation",
    "testCompile",
    "testCompileOnly",
    "testRuntimeOnly",
    "androidTestImplementation",
    "debugImplementation",
    "releaseImplementation",
    "annotationProcessor",
    "kapt",
    "ksp",
    "classpath",
];

pub(super) fn read_gradle(m: &mut Manifests, dir: &str, name: &str, text: &str) {
    if m.java.get(dir).is_some_and(|j| !j.gradle) {
        // A folder with both pom.xml and Gradle files is described by its pom.
        return;
    }
    let j = m
        .java
        .entry(dir.to_string())
        .or_insert_with(|| JavaProject {
            dir: dir.to_string(),
            gradle: true,
            ..JavaProject::default()
        });
    let settings = name.starts_with("settings");
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("//") || t.starts_with('*') {
            continue;
        }
        let word: String = t
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
            .collect();
        if settings {
            if word == "rootProject.name" {
                j.name = quoted_strings(t).first().map(|s| s.to_string());
            } else if word == "include" {
                for s in quoted_strings(t) {
                    let rel = s.trim_start_matches(':').replace(':', "/");
                    j.members.extend(join(dir, &rel));
                }
            } else if word == "includeBuild" {
                j.members
                    .extend(quoted_strings(t).first().and_then(|s| join(dir, s)));
            }
        } else if word == "group" {
            j.group = quoted_strings(t).first().map(|s| s.to_string());
        } else if GRADLE_CONFIGURATIONS.contains(&word.as_str()) {
            for s in quoted_strings(t) {
                let mut parts = s.split(':');
                if let (Some(g), Some(a)) = (parts.next(), parts.next()) {
                    let ok = |x: &str| {
                        !x.is_empty()
                            && x.chars()
                                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
                    };
                    if ok(g) && ok(a) {
                        j.deps.push((g.to_string(), a.to_string()));
                    }
                }
            }
        }
    }
}
