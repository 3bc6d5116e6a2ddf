//! TypeScript/JavaScript path mapping: `tsconfig*.json` and `jsconfig*.json` (`extends`,
//! `baseUrl`, `paths`).

use super::*;
use crate::modules::formats::{self};
use crate::modules::paths::join;

pub(super) fn read_tsconfig(m: &mut Manifests, path: &str, dir: &str, text: &str) {
    let v: serde_json::Value = match serde_json::from_str(&formats::strip_jsonc(text)) {
        Ok(v) => v,
        Err(e) => return m.malformed(path, formats::json_error(&e)),
    };
    let extends = match v.get("extends") {
        Some(serde_json::Value::String(s)) => vec![s.clone()],
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let opts = v.get("compilerOptions");
    let base_url = opts
        .and_then(|o| o.get("baseUrl"))
        .and_then(|b| b.as_str())
        .and_then(|b| join(dir, b));
    let paths = opts
        .and_then(|o| o.get("paths"))
        .and_then(|p| p.as_object())
        .map(|o| {
            o.iter()
                .map(|(k, v)| {
                    let targets = v
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|t| t.as_str())
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default();
                    (k.clone(), targets)
                })
                .collect()
        });
    m.tsconfig.insert(
        path.to_string(),
        TsConfigFile {
            extends,
            base_url,
            paths,
        },
    );
}
