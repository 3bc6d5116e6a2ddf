//! Canonical JSON: the one encoding used for manifests, views and query answers.
//!
//! Rules: object keys sorted by their UTF-8 bytes; object members whose value is `null` omitted;
//! floats written with at most 6 decimals and no trailing zeros (`0.5`, `1`, `0.333333`), non-finite
//! floats omitted like nulls; integers written exactly; no insignificant whitespace in the compact
//! form, two-space indentation in the pretty form. Equal values always encode to equal bytes.

use serde::Serialize;
use serde_json::Value;

/// Encodes any serializable value canonically (compact form).
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    Ok(value_to_string(&serde_json::to_value(value)?, false))
}

/// Encodes any serializable value canonically, indented for people.
pub fn to_string_pretty<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    Ok(value_to_string(&serde_json::to_value(value)?, true))
}

/// Encodes a JSON value canonically.
pub fn value_to_string(value: &Value, pretty: bool) -> String {
    let mut out = String::new();
    write_value(&mut out, value, pretty, 0);
    out
}

/// Formats a float with at most 6 decimals and no trailing zeros; `None` when not finite.
pub fn format_float(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let s = format!("{f:.6}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    Some(if s == "-0" { "0".to_string() } else { s })
}

fn is_omitted(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Number(n) => n.as_f64().is_some_and(|f| !f.is_finite()),
        _ => false,
    }
}

fn indent(out: &mut String, pretty: bool, level: usize) {
    if pretty {
        out.push('\n');
        for _ in 0..level {
            out.push_str("  ");
        }
    }
}

fn write_value(out: &mut String, value: &Value, pretty: bool, level: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                let f = n.as_f64().unwrap_or(0.0);
                out.push_str(&format_float(f).unwrap_or_else(|| "null".to_string()));
            }
        }
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, pretty, level + 1);
                write_value(out, item, pretty, level + 1);
            }
            if !items.is_empty() {
                indent(out, pretty, level);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> =
                map.iter().filter(|(_, v)| !is_omitted(v)).collect();
            members.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, pretty, level + 1);
                write_string(out, k);
                out.push(':');
                if pretty {
                    out.push(' ');
                }
                write_value(out, v, pretty, level + 1);
            }
            if !members.is_empty() {
                indent(out, pretty, level);
            }
            out.push('}');
        }
    }
}

fn write_string(out: &mut String, s: &str) {
    // serde_json's string escaping is canonical (it escapes only what JSON requires).
    out.push_str(&Value::String(s.to_string()).to_string());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_sorted_nulls_omitted_floats_trimmed() {
        let v = json!({"b": 1.0, "a": null, "c": [0.1234567, 2.5, null], "A": {"z": 1, "y": -0.0}});
        assert_eq!(
            value_to_string(&v, false),
            r#"{"A":{"y":0,"z":1},"b":1,"c":[0.123457,2.5,null]}"#
        );
    }

    #[test]
    fn pretty_is_stable() {
        let v = json!({"k": [1, {"x": "é\n"}], "e": {}});
        assert_eq!(
            value_to_string(&v, true),
            "{\n  \"e\": {},\n  \"k\": [\n    1,\n    {\n      \"x\": \"é\\n\"\n    }\n  ]\n}"
        );
    }

    #[test]
    fn large_integers_are_exact() {
        let v = json!({"n": u64::MAX, "m": i64::MIN});
        assert_eq!(
            value_to_string(&v, false),
            format!(r#"{{"m":{},"n":{}}}"#, i64::MIN, u64::MAX)
        );
    }
}
