//! A plugin's options: described once ([`OptionSpec`]), shown as a form by the editor, given
//! as JSON on the command line (`--options '{"angle": 45}'`), and read back typed by the plugin.

use crate::error::PluginError;
use pmx_core::i18n::Language;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// What kind of value an option takes, with its bounds.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionKind {
    Bool,
    /// A real number in `min..=max`; `unit` is shown after the field ("°", "mm").
    Number {
        min: f64,
        max: f64,
        unit: &'static str,
    },
    Integer {
        min: i64,
        max: i64,
    },
    /// One of `choices` (id, Japanese, English).
    Choice(Vec<(&'static str, &'static str, &'static str)>),
    Text,
}

/// An option's value.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionValue {
    Bool(bool),
    Number(f64),
    Integer(i64),
    Choice(String),
    Text(String),
}

impl OptionValue {
    #[must_use]
    pub fn to_json(&self) -> Value {
        match self {
            OptionValue::Bool(value) => Value::Bool(*value),
            OptionValue::Number(value) => {
                serde_json::Number::from_f64(*value).map_or(Value::Null, Value::Number)
            }
            OptionValue::Integer(value) => Value::from(*value),
            OptionValue::Choice(value) | OptionValue::Text(value) => Value::String(value.clone()),
        }
    }
}

/// One option: its key, its words in both languages, its kind and default.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionSpec {
    pub key: &'static str,
    pub label_ja: String,
    pub label_en: String,
    pub kind: OptionKind,
    pub default: OptionValue,
}

impl OptionSpec {
    #[must_use]
    pub fn bool(key: &'static str, ja: &str, en: &str, default: bool) -> Self {
        Self {
            key,
            label_ja: ja.to_owned(),
            label_en: en.to_owned(),
            kind: OptionKind::Bool,
            default: OptionValue::Bool(default),
        }
    }

    #[must_use]
    pub fn number(
        key: &'static str,
        ja: &str,
        en: &str,
        default: f64,
        min: f64,
        max: f64,
        unit: &'static str,
    ) -> Self {
        Self {
            key,
            label_ja: ja.to_owned(),
            label_en: en.to_owned(),
            kind: OptionKind::Number { min, max, unit },
            default: OptionValue::Number(default),
        }
    }

    #[must_use]
    pub fn integer(
        key: &'static str,
        ja: &str,
        en: &str,
        default: i64,
        min: i64,
        max: i64,
    ) -> Self {
        Self {
            key,
            label_ja: ja.to_owned(),
            label_en: en.to_owned(),
            kind: OptionKind::Integer { min, max },
            default: OptionValue::Integer(default),
        }
    }

    /// `choices`: (id, Japanese, English); the default is an id.
    #[must_use]
    pub fn choice(
        key: &'static str,
        ja: &str,
        en: &str,
        default: &'static str,
        choices: Vec<(&'static str, &'static str, &'static str)>,
    ) -> Self {
        Self {
            key,
            label_ja: ja.to_owned(),
            label_en: en.to_owned(),
            kind: OptionKind::Choice(choices),
            default: OptionValue::Choice(default.to_owned()),
        }
    }

    #[must_use]
    pub fn text(key: &'static str, ja: &str, en: &str, default: &str) -> Self {
        Self {
            key,
            label_ja: ja.to_owned(),
            label_en: en.to_owned(),
            kind: OptionKind::Text,
            default: OptionValue::Text(default.to_owned()),
        }
    }

    #[must_use]
    pub fn label(&self, lang: Language) -> &str {
        match lang {
            Language::Japanese => &self.label_ja,
            Language::English => &self.label_en,
        }
    }

    /// `value` checked against the kind and bounds (a whole number is a fine `Number`).
    pub fn check(&self, value: &Value) -> Result<OptionValue, PluginError> {
        let bad = |message: String| PluginError::BadOption {
            key: self.key.to_owned(),
            message,
        };
        match &self.kind {
            OptionKind::Bool => value
                .as_bool()
                .map(OptionValue::Bool)
                .ok_or_else(|| bad(format!("expected true or false, got {value}"))),
            OptionKind::Number { min, max, .. } => {
                let number = value
                    .as_f64()
                    .ok_or_else(|| bad(format!("expected a number, got {value}")))?;
                if !(number >= *min && number <= *max) {
                    return Err(bad(format!("{number} is outside {min}..={max}")));
                }
                Ok(OptionValue::Number(number))
            }
            OptionKind::Integer { min, max } => {
                let number = value
                    .as_i64()
                    .ok_or_else(|| bad(format!("expected a whole number, got {value}")))?;
                if number < *min || number > *max {
                    return Err(bad(format!("{number} is outside {min}..={max}")));
                }
                Ok(OptionValue::Integer(number))
            }
            OptionKind::Choice(choices) => {
                let id = value
                    .as_str()
                    .ok_or_else(|| bad(format!("expected a string, got {value}")))?;
                if choices.iter().any(|(choice, _, _)| *choice == id) {
                    Ok(OptionValue::Choice(id.to_owned()))
                } else {
                    let ids: Vec<&str> = choices.iter().map(|(choice, _, _)| *choice).collect();
                    Err(bad(format!("\"{id}\" is not one of {}", ids.join(", "))))
                }
            }
            OptionKind::Text => value
                .as_str()
                .map(|text| OptionValue::Text(text.to_owned()))
                .ok_or_else(|| bad(format!("expected a string, got {value}"))),
        }
    }
}

/// The values a run uses: every option of the plugin, from the user or the default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    values: BTreeMap<String, OptionValue>,
}

impl Options {
    /// Every option at its default.
    #[must_use]
    pub fn defaults(specs: &[OptionSpec]) -> Self {
        Self {
            values: specs
                .iter()
                .map(|spec| (spec.key.to_owned(), spec.default.clone()))
                .collect(),
        }
    }

    /// The defaults with `json` (an object) laid over them; unknown keys and wrong values
    /// are errors by name.
    pub fn from_json(specs: &[OptionSpec], json: &Value) -> Result<Self, PluginError> {
        let mut options = Self::defaults(specs);
        let Some(object) = json.as_object() else {
            return Err(PluginError::BadOption {
                key: String::new(),
                message: format!("options must be a JSON object, got {json}"),
            });
        };
        for (key, value) in object {
            let Some(spec) = specs.iter().find(|spec| spec.key == key) else {
                let keys: Vec<&str> = specs.iter().map(|spec| spec.key).collect();
                return Err(PluginError::BadOption {
                    key: key.clone(),
                    message: if keys.is_empty() {
                        "this plugin has no options".to_owned()
                    } else {
                        format!("unknown option (known: {})", keys.join(", "))
                    },
                });
            };
            options.values.insert(key.clone(), spec.check(value)?);
        }
        Ok(options)
    }

    #[must_use]
    pub fn to_json(&self) -> Value {
        Value::Object(
            self.values
                .iter()
                .map(|(key, value)| (key.clone(), value.to_json()))
                .collect::<Map<String, Value>>(),
        )
    }

    pub fn set(&mut self, key: &str, value: OptionValue) {
        self.values.insert(key.to_owned(), value);
    }

    #[must_use]
    pub fn get(&self, key: &str) -> Option<&OptionValue> {
        self.values.get(key)
    }

    /// A bool option (false when absent or of another kind).
    #[must_use]
    pub fn bool(&self, key: &str) -> bool {
        matches!(self.values.get(key), Some(OptionValue::Bool(true)))
    }

    /// A number option (an integer reads as a number; 0 when absent).
    #[must_use]
    pub fn number(&self, key: &str) -> f64 {
        match self.values.get(key) {
            Some(OptionValue::Number(value)) => *value,
            #[allow(clippy::cast_precision_loss)]
            Some(OptionValue::Integer(value)) => *value as f64,
            _ => 0.0,
        }
    }

    #[must_use]
    pub fn integer(&self, key: &str) -> i64 {
        match self.values.get(key) {
            Some(OptionValue::Integer(value)) => *value,
            #[allow(clippy::cast_possible_truncation)]
            Some(OptionValue::Number(value)) => *value as i64,
            _ => 0,
        }
    }

    /// A choice or text option ("" when absent).
    #[must_use]
    pub fn text(&self, key: &str) -> &str {
        match self.values.get(key) {
            Some(OptionValue::Choice(value) | OptionValue::Text(value)) => value,
            _ => "",
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &OptionValue)> {
        self.values.iter().map(|(key, value)| (key.as_str(), value))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn specs() -> Vec<OptionSpec> {
        vec![
            OptionSpec::bool("weights", "ウェイト", "Weights", true),
            OptionSpec::number("angle", "角度", "Angle", 45.0, 0.0, 180.0, "°"),
            OptionSpec::choice(
                "axis",
                "軸",
                "Axis",
                "x",
                vec![("x", "X", "X"), ("y", "Y", "Y")],
            ),
        ]
    }

    #[test]
    fn json_options_lie_over_the_defaults_and_are_checked_by_name() {
        let options = Options::from_json(&specs(), &json!({"angle": 30})).unwrap();
        assert!(options.bool("weights"));
        assert_eq!(options.number("angle"), 30.0);
        assert_eq!(options.text("axis"), "x");
        let error = Options::from_json(&specs(), &json!({"angel": 30})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "option \"angel\": unknown option (known: weights, angle, axis)"
        );
        let error = Options::from_json(&specs(), &json!({"angle": 181})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "option \"angle\": 181 is outside 0..=180"
        );
        let error = Options::from_json(&specs(), &json!({"axis": "z"})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "option \"axis\": \"z\" is not one of x, y"
        );
        assert!(Options::from_json(&specs(), &json!([1])).is_err());
    }
}
