//! Reading JSON answers (`ckb query --format json`, `ckb diff --format json`, `ckb schema`) in
//! tests: the values of one or two fields across a list, or of several as one line of text.

use serde_json::Value;

/// The string `field` of every item of the JSON array `list` (`symbol.name` is a nested field);
/// panics, naming the field, where `list` is not an array or an item's `field` is not a string.
pub fn strs<'a>(list: &'a Value, field: &str) -> Vec<&'a str> {
    items(list).map(|item| str_of(item, field)).collect()
}

/// The strings `first` and `second` of every item of the JSON array `list`, as pairs; panics as
/// [`strs`] does.
pub fn str_pairs<'a>(list: &'a Value, first: &str, second: &str) -> Vec<(&'a str, &'a str)> {
    items(list)
        .map(|item| (str_of(item, first), str_of(item, second)))
        .collect()
}

/// Each item of the JSON array `list` as one line: its `fields` (`symbol.name` is a nested
/// field), strings as they are and other values as JSON, separated by spaces. Rows compared this
/// way read as the table they are.
pub fn texts(list: &Value, fields: &[&str]) -> Vec<String> {
    items(list)
        .map(|item| {
            let cells: Vec<String> = fields
                .iter()
                .map(|name| {
                    let value = field(item, name);
                    value
                        .as_str()
                        .map_or_else(|| value.to_string(), String::from)
                })
                .collect();
            cells.join(" ")
        })
        .collect()
}

fn items(list: &Value) -> impl Iterator<Item = &Value> {
    let items = list.as_array();
    items
        .unwrap_or_else(|| panic!("not a JSON array: {list}"))
        .iter()
}

/// The value of `field` in `item`; `symbol.name` is the field `name` of the field `symbol`.
fn field<'a>(item: &'a Value, field: &str) -> &'a Value {
    let pointer = format!("/{}", field.replace('.', "/"));
    item.pointer(&pointer)
        .unwrap_or_else(|| panic!("no {field} in {item}"))
}

fn str_of<'a>(item: &'a Value, name: &str) -> &'a str {
    field(item, name)
        .as_str()
        .unwrap_or_else(|| panic!("{name} is not a string in {item}"))
}
