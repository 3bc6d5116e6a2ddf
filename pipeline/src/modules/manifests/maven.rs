//! Maven: `pom.xml` projects (coordinates, modules, dependencies).

use super::*;
use crate::modules::formats::{self};
use crate::modules::paths::join;

pub(super) fn read_pom(m: &mut Manifests, path: &str, dir: &str, text: &str) {
    let project = match formats::parse_xml(text) {
        Ok(p) if p.name == "project" => p,
        Ok(_) => return m.malformed(path, "pom.xml has no <project> root element".into()),
        Err(e) => return m.malformed(path, e),
    };
    let group = project
        .text_of("groupId")
        .or_else(|| project.child("parent").and_then(|p| p.text_of("groupId")))
        .map(str::to_string);
    let mut deps = Vec::new();
    let dep_lists = [
        project.child("dependencies"),
        project
            .child("dependencyManagement")
            .and_then(|d| d.child("dependencies")),
    ];
    for list in dep_lists.into_iter().flatten() {
        for d in list.all("dependency") {
            let (Some(g), Some(a)) = (d.text_of("groupId"), d.text_of("artifactId")) else {
                continue;
            };
            let g = if g.starts_with("${") {
                group.clone().unwrap_or_default()
            } else {
                g.to_string()
            };
            deps.push((g, a.to_string()));
        }
    }
    let members = project
        .child("modules")
        .map(|ms| {
            ms.all("module")
                .filter_map(|x| join(dir, &x.text))
                .collect()
        })
        .unwrap_or_default();
    m.java.insert(
        dir.to_string(),
        JavaProject {
            dir: dir.to_string(),
            gradle: false,
            name: project.text_of("artifactId").map(str::to_string),
            group,
            deps,
            members,
        },
    );
}
