//! Values between Rhai and JSON: the model's elements reach a script in their JSON form (as
//! `pmx-studio get` prints them) and a script's values go into [`pmx_core::edit::EditOp`]s as
//! JSON.
//!
//! Written by hand rather than through `rhai::serde` so that the conversion of a script's value
//! can count its size as it goes (the queue of edits is bounded) and refuse what JSON cannot
//! hold (a function pointer, the model itself) with a message that names it.

use super::objects::{ElementList, Place, element_index};
use rhai::{Array, Dynamic, FLOAT, INT, Map};
use serde_json::{Number, Value};

/// Nesting deeper than this is refused (no element of the model is nearly this deep).
const MAX_DEPTH: usize = 64;

/// What a JSON node costs in memory, roughly: the `Value` itself (its heap part is counted
/// separately for strings).
const NODE_BYTES: usize = std::mem::size_of::<Value>();

/// A JSON value as a Rhai value: objects become maps, arrays arrays, whole numbers `INT`,
/// other numbers `FLOAT`, `null` the unit `()`.
pub(crate) fn json_to_dynamic(value: &Value) -> Dynamic {
    match value {
        Value::Null => Dynamic::UNIT,
        Value::Bool(flag) => Dynamic::from_bool(*flag),
        Value::Number(number) => number_to_dynamic(number),
        Value::String(text) => Dynamic::from(text.clone()),
        Value::Array(items) => {
            Dynamic::from_array(items.iter().map(json_to_dynamic).collect::<Array>())
        }
        Value::Object(fields) => Dynamic::from_map(
            fields
                .iter()
                .map(|(key, value)| (key.as_str().into(), json_to_dynamic(value)))
                .collect::<Map>(),
        ),
    }
}

fn number_to_dynamic(number: &Number) -> Dynamic {
    if let Some(whole) = number.as_i64() {
        Dynamic::from_int(whole)
    } else {
        Dynamic::from_float(number.as_f64().unwrap_or(FLOAT::NAN))
    }
}

/// A Rhai value as JSON, with its approximate size in bytes added to `bytes`. Non-finite
/// floats become the strings the model's JSON form uses for them (`"NaN"`, `"inf"`, `"-inf"`).
pub(crate) fn dynamic_to_json(value: &Dynamic, bytes: &mut usize) -> Result<Value, String> {
    convert(value, bytes, 0)
}

fn convert(value: &Dynamic, bytes: &mut usize, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("a value nested more than {MAX_DEPTH} levels deep"));
    }
    *bytes += NODE_BYTES;
    if value.is_unit() {
        return Ok(Value::Null);
    }
    if let Ok(flag) = value.as_bool() {
        return Ok(Value::Bool(flag));
    }
    if let Ok(whole) = value.as_int() {
        return Ok(Value::from(whole));
    }
    if let Ok(real) = value.as_float() {
        return Ok(float_to_json(real));
    }
    if let Ok(letter) = value.as_char() {
        *bytes += letter.len_utf8();
        return Ok(Value::String(letter.to_string()));
    }
    if value.is_string() {
        let text = value.clone().into_immutable_string().unwrap_or_default();
        *bytes += text.len();
        return Ok(Value::String(text.to_string()));
    }
    if let Some(items) = value.read_lock::<Array>() {
        *bytes += items.len() * NODE_BYTES;
        return items
            .iter()
            .map(|item| convert(item, bytes, depth + 1))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array);
    }
    if let Some(fields) = value.read_lock::<Map>() {
        let mut object = serde_json::Map::new();
        for (key, item) in fields.iter() {
            *bytes += key.len();
            object.insert(key.to_string(), convert(item, bytes, depth + 1)?);
        }
        return Ok(Value::Object(object));
    }
    // Version 2: an element or a field of one stands for its value (`a.position = b.position`).
    if let Some(place) = value.read_lock::<Place>() {
        let json = place.to_json()?;
        *bytes += json_bytes(&json);
        return Ok(json);
    }
    if let Some(list) = value.read_lock::<ElementList>() {
        return Err(format!(
            "model.{} is the list of every element: write one element or one field",
            list.kind.list_name()
        ));
    }
    Err(format!(
        "a value of type {} cannot be written into the model (use numbers, strings, true/false, \
         (), arrays and maps)",
        type_name(value)
    ))
}

/// A value's type as the script knows it (`Model`, not the Rust path of its type).
pub(crate) fn type_name(value: &Dynamic) -> &'static str {
    let name = value.type_name();
    match name.rsplit("::").next().unwrap_or(name) {
        "ModelView" => "Model",
        short => short,
    }
}

/// About what `value` takes in memory, as [`dynamic_to_json`] counts it.
fn json_bytes(value: &Value) -> usize {
    NODE_BYTES
        + match value {
            Value::String(text) => text.len(),
            Value::Array(items) => items.iter().map(json_bytes).sum(),
            Value::Object(fields) => fields
                .iter()
                .map(|(key, item)| key.len() + json_bytes(item))
                .sum(),
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
}

fn float_to_json(real: FLOAT) -> Value {
    match Number::from_f64(real) {
        Some(number) => Value::Number(number),
        None if real.is_nan() => Value::String("NaN".to_owned()),
        None if real > 0.0 => Value::String("inf".to_owned()),
        None => Value::String("-inf".to_owned()),
    }
}

/// An index or a list of indices: `3` or `[1, 2, 3]`; in version 2 also elements
/// (`model.bones[3]`, `[bone, other]`).
pub(crate) fn indices_of(value: &Dynamic) -> Result<Vec<usize>, String> {
    if let Some(items) = value.read_lock::<Array>() {
        return items.iter().map(one_index).collect();
    }
    if value.is_int() || value.is::<Place>() {
        return one_index(value).map(|index| vec![index]);
    }
    Err(format!(
        "expected an index or an array of indices, not {}",
        value.type_name()
    ))
}

fn one_index(item: &Dynamic) -> Result<usize, String> {
    if let Some(place) = item.read_lock::<Place>() {
        return element_index(&place)
            .ok_or_else(|| format!("{} is a field, not an element", place.describe()))
            .and_then(index_of);
    }
    item.as_int()
        .map_err(|type_name| format!("an index must be a whole number, not {type_name}"))
        .and_then(index_of)
}

/// One index (never negative).
pub(crate) fn index_of(value: INT) -> Result<usize, String> {
    usize::try_from(value).map_err(|_| format!("index {value} is negative"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn json_goes_to_rhai_and_back_unchanged() {
        let value = json!({
            "name_ja": "頭",
            "position": [0.5, 16.25, -0.125],
            "parent": null,
            "layer": 2,
            "flags": "ROTATABLE | VISIBLE",
            "ik": {"links": [{"bone": 3}]}
        });
        let mut bytes = 0;
        let back = dynamic_to_json(&json_to_dynamic(&value), &mut bytes).unwrap();
        assert_eq!(back, value);
        assert!(bytes > 0);
    }

    #[test]
    fn values_json_cannot_hold_are_named() {
        let mut bytes = 0;
        assert_eq!(
            dynamic_to_json(&Dynamic::from_float(FLOAT::INFINITY), &mut bytes).unwrap(),
            json!("inf")
        );
        let pointer = Dynamic::from(rhai::FnPtr::new("f").unwrap());
        let error = dynamic_to_json(&pointer, &mut bytes).unwrap_err();
        assert!(error.contains("Fn"), "{error}");
        assert_eq!(
            indices_of(&Dynamic::from_array(vec![
                Dynamic::from_int(2),
                Dynamic::from_int(0)
            ]))
            .unwrap(),
            vec![2, 0]
        );
        assert_eq!(
            indices_of(&Dynamic::from_int(-1)).unwrap_err(),
            "index -1 is negative"
        );
    }
}
