//! Dart: `pubspec.yaml` packages.

use super::*;
use crate::modules::formats::{yaml_list, yaml_map_keys, yaml_scalar, yaml_top_level};
use crate::modules::paths::join;

pub(super) fn read_pubspec(m: &mut Manifests, dir: &str, text: &str) {
    let top = yaml_top_level(text);
    let mut d = DartPackage {
        dir: dir.to_string(),
        ..DartPackage::default()
    };
    for e in &top {
        match e.key.as_str() {
            "name" => d.name = Some(yaml_scalar(&e.inline)).filter(|s| !s.is_empty()),
            "dependencies" | "dev_dependencies" => d.deps.extend(yaml_map_keys(e)),
            "workspace" => d
                .workspace
                .extend(yaml_list(e).iter().filter_map(|w| join(dir, w))),
            _ => {}
        }
    }
    m.dart.insert(dir.to_string(), d);
}
