//! A script's description, read from the literal constants at its top level without running
//! it: `api_version`, `name`, `name_en`, `description`, `description_en`, `version`, `needs`
//! and `option_specs` (see docs/scripting.md).

use crate::api::{API_VERSION, Needs, PluginError, PluginGroup, PluginInfo};
use crate::options::{OptionKind, OptionSpec, OptionValue};
use crate::selection::kind_from_name;
use rhai::{AST, Array, Dynamic, FLOAT, INT, Map};
use std::collections::{BTreeMap, HashSet};
use std::sync::{Mutex, OnceLock};

/// At most this many options per script.
const MAX_OPTIONS: usize = 64;
/// Option keys and choice ids: short identifiers.
const MAX_KEY_CHARS: usize = 64;
/// Labels and units.
const MAX_LABEL_CHARS: usize = 200;

/// The script's description and the script API version it declares, or why it is refused.
/// `file` names the script in messages, `stem` (the file name without `.rhai`) makes its id
/// `script:<stem>`.
pub(crate) fn read_info(
    file: &str,
    stem: &str,
    ast: &AST,
) -> Result<(PluginInfo, u32), PluginError> {
    let constants: BTreeMap<String, Dynamic> = ast
        .iter_literal_variables(true, false)
        .map(|(name, _, value)| (name.to_owned(), value))
        .collect();
    let refuse = |en: String, ja: String| {
        PluginError::refused(format!("{file}: {en}"), format!("{file}: {ja}"))
    };
    let Some(version) = constants.get("api_version") else {
        return Err(refuse(
            format!("declares no api_version; put `const api_version = {API_VERSION};` at the top"),
            format!(
                "api_version がありません。先頭に `const api_version = {API_VERSION};` を書いてください"
            ),
        ));
    };
    let version = version.as_int().map_err(|type_name| {
        refuse(
            format!("api_version must be a whole number, not {type_name}"),
            format!("api_version は整数で指定してください({type_name} ではなく)"),
        )
    })?;
    if version > INT::from(API_VERSION) {
        return Err(refuse(
            format!(
                "the script needs script API version {version}; this PMX Studio has version \
                 {API_VERSION} (a newer PMX Studio may run it)"
            ),
            format!(
                "このスクリプトにはスクリプトAPIバージョン{version}が必要です。この PMX Studio は\
                 バージョン{API_VERSION}です(新しい PMX Studio なら動く可能性があります)"
            ),
        ));
    }
    if version < 1 {
        return Err(refuse(
            format!("api_version {version} does not exist (the first version is 1)"),
            format!("api_version {version} はありません(最初のバージョンは1)"),
        ));
    }
    if constants.get("options").is_some_and(Dynamic::is_array) {
        return Err(refuse(
            "declare options as `const option_specs = [...]`: `options` is the name of the \
             values the script reads (`options.scale`)"
                .to_owned(),
            "オプションは `const option_specs = [...]` で宣言してください(`options` は値を読む名前です: \
             `options.scale`)"
                .to_owned(),
        ));
    }
    let text = |key: &str| -> Result<Option<String>, PluginError> {
        match constants.get(key) {
            None => Ok(None),
            Some(value) if value.is_string() => Ok(Some(value.to_string())),
            Some(value) => Err(refuse(
                format!("`{key}` must be a string, not {}", value.type_name()),
                format!(
                    "`{key}` は文字列で指定してください({} ではなく)",
                    value.type_name()
                ),
            )),
        }
    };
    let name_ja = text("name")?.unwrap_or_else(|| stem.to_owned());
    let name_en = text("name_en")?.unwrap_or_else(|| name_ja.clone());
    let description_ja = text("description")?.unwrap_or_default();
    let description_en = text("description_en")?.unwrap_or_else(|| description_ja.clone());
    let needs = match text("needs")? {
        None => Needs::Nothing,
        Some(needs) => parse_needs(&needs).ok_or_else(|| {
            refuse(
                format!(
                    "needs = \"{needs}\": expected \"nothing\", a kind (\"bone\", \"vertex\", ...: \
                     at least one selected) or a kind with \"_or_all\" (\"bone_or_all\": the \
                     selection, or all when none is selected)"
                ),
                format!(
                    "needs = \"{needs}\": \"nothing\"、種類(\"bone\"、\"vertex\" など)、または \
                     \"bone_or_all\" のように指定してください"
                ),
            )
        })?,
    };
    let options = match constants.get("option_specs") {
        None => Vec::new(),
        Some(specs) => read_options(specs).map_err(|(en, ja)| refuse(en, ja))?,
    };
    let info = PluginInfo {
        id: format!("script:{stem}"),
        group: PluginGroup::Scripts,
        name_ja,
        name_en,
        description_ja,
        description_en,
        version: text("version")?.unwrap_or_default(),
        needs,
        options,
    };
    // Checked above: 1 ..= API_VERSION.
    Ok((info, u32::try_from(version).unwrap_or(API_VERSION)))
}

fn parse_needs(needs: &str) -> Option<Needs> {
    let needs = needs.trim();
    if needs == "nothing" || needs.is_empty() {
        return Some(Needs::Nothing);
    }
    if let Some(kind) = needs.strip_suffix("_or_all") {
        return kind_from_name(kind).map(Needs::SelectedOrAll);
    }
    kind_from_name(needs).map(Needs::Selected)
}

type Refusal = (String, String);

fn read_options(specs: &Dynamic) -> Result<Vec<OptionSpec>, Refusal> {
    let Some(list) = specs.read_lock::<Array>() else {
        return Err((
            format!(
                "option_specs must be an array of maps, not {}",
                specs.type_name()
            ),
            "option_specs はマップの配列で指定してください".to_owned(),
        ));
    };
    if list.len() > MAX_OPTIONS {
        return Err((
            format!(
                "{} options declared; a script may have at most {MAX_OPTIONS}",
                list.len()
            ),
            format!("オプションが{}個あります(最大{MAX_OPTIONS}個)", list.len()),
        ));
    }
    let mut seen = HashSet::new();
    let mut options = Vec::with_capacity(list.len());
    for (position, spec) in list.iter().enumerate() {
        let Some(fields) = spec.read_lock::<Map>() else {
            return Err((
                format!("option_specs[{position}] must be a map (#{{ key: ..., kind: ... }})"),
                format!(
                    "option_specs[{position}] はマップ (#{{ key: ..., kind: ... }}) で指定してください"
                ),
            ));
        };
        let option = read_option(&fields).map_err(|message| {
            let key = fields
                .get("key")
                .map_or_else(String::new, |key| format!(" (\"{key}\")"));
            (
                format!("option_specs[{position}]{key}: {message}"),
                format!("option_specs[{position}]{key}: {message}"),
            )
        })?;
        if !seen.insert(option.key) {
            return Err((
                format!(
                    "option_specs[{position}]: the key \"{}\" is declared twice",
                    option.key
                ),
                format!(
                    "option_specs[{position}]: キー \"{}\" が重複しています",
                    option.key
                ),
            ));
        }
        options.push(option);
    }
    Ok(options)
}

fn read_option(fields: &Map) -> Result<OptionSpec, String> {
    let string = |name: &str, max_chars: usize| -> Result<Option<String>, String> {
        match fields.get(name) {
            None => Ok(None),
            Some(value) if value.is_string() => {
                let text = value.to_string();
                if text.chars().count() > max_chars {
                    Err(format!("`{name}` is longer than {max_chars} characters"))
                } else {
                    Ok(Some(text))
                }
            }
            Some(value) => Err(format!(
                "`{name}` must be a string, not {}",
                value.type_name()
            )),
        }
    };
    let key = string("key", MAX_KEY_CHARS)?.ok_or("every option needs a `key`")?;
    if key.is_empty()
        || !key
            .chars()
            .all(|letter| letter.is_ascii_alphanumeric() || letter == '_')
        || key.starts_with(|letter: char| letter.is_ascii_digit())
    {
        return Err(format!(
            "the key \"{key}\" must be a name of ASCII letters, digits and _ (so that \
             `options.{key}` reads it)"
        ));
    }
    let label_ja = string("label", MAX_LABEL_CHARS)?.unwrap_or_else(|| key.clone());
    let label_en = string("label_en", MAX_LABEL_CHARS)?.unwrap_or_else(|| label_ja.clone());
    let kind = string("kind", MAX_KEY_CHARS)?.ok_or(
        "every option needs a `kind`: \"bool\", \"number\", \"integer\", \"choice\" or \"text\"",
    )?;
    // `default` is a reserved word in Rhai (`#{ default: 1 }` does not parse): `initial`, or
    // the quoted `"default"`.
    let default_key = if fields.contains_key("initial") {
        "initial"
    } else {
        "default"
    };
    let default = fields.get(default_key);
    let number = |name: &str, fallback: f64| -> Result<f64, String> {
        match fields.get(name) {
            None => Ok(fallback),
            Some(value) => as_number(value)
                .ok_or_else(|| format!("`{name}` must be a number, not {}", value.type_name())),
        }
    };
    let (kind, default) = match kind.as_str() {
        "bool" => {
            let default = match default {
                None => false,
                Some(value) => value.as_bool().map_err(|type_name| {
                    format!("`initial` must be true or false, not {type_name}")
                })?,
            };
            (OptionKind::Bool, OptionValue::Bool(default))
        }
        "number" => {
            let min = number("min", f64::MIN)?;
            let max = number("max", f64::MAX)?;
            let default = number(default_key, 0.0_f64.clamp(min, max.max(min)))?;
            let unit = string("unit", MAX_KEY_CHARS)?.unwrap_or_default();
            if !(min <= default && default <= max) {
                return Err(format!(
                    "the initial value {default} is outside {min}..={max}"
                ));
            }
            (
                OptionKind::Number {
                    min,
                    max,
                    unit: intern(&unit),
                },
                OptionValue::Number(default),
            )
        }
        "integer" => {
            let whole = |name: &str, fallback: i64| -> Result<i64, String> {
                match fields.get(name) {
                    None => Ok(fallback),
                    Some(value) => value.as_int().map_err(|type_name| {
                        format!("`{name}` must be a whole number, not {type_name}")
                    }),
                }
            };
            let min = whole("min", i64::MIN)?;
            let max = whole("max", i64::MAX)?;
            let default = whole(default_key, 0_i64.clamp(min, max.max(min)))?;
            if !(min <= default && default <= max) {
                return Err(format!(
                    "the initial value {default} is outside {min}..={max}"
                ));
            }
            (
                OptionKind::Integer { min, max },
                OptionValue::Integer(default),
            )
        }
        "choice" => {
            let choices = read_choices(fields.get("choices"))?;
            let default = match default {
                None => choices
                    .first()
                    .map(|(id, _, _)| (*id).to_owned())
                    .unwrap_or_default(),
                Some(value) if value.is_string() => value.to_string(),
                Some(value) => {
                    return Err(format!(
                        "`initial` must be a choice's id, not {}",
                        value.type_name()
                    ));
                }
            };
            if !choices.iter().any(|(id, _, _)| *id == default) {
                return Err(format!(
                    "the initial value \"{default}\" is not one of the choices"
                ));
            }
            (OptionKind::Choice(choices), OptionValue::Choice(default))
        }
        "text" => {
            let default = match default {
                None => String::new(),
                Some(value) if value.is_string() => value.to_string(),
                Some(value) => {
                    return Err(format!(
                        "`initial` must be a string, not {}",
                        value.type_name()
                    ));
                }
            };
            (OptionKind::Text, OptionValue::Text(default))
        }
        other => {
            return Err(format!(
                "kind \"{other}\" is not one of bool, number, integer, choice, text"
            ));
        }
    };
    Ok(OptionSpec {
        key: intern(&key),
        label_ja,
        label_en,
        kind,
        default,
    })
}

fn as_number(value: &Dynamic) -> Option<f64> {
    value
        .as_float()
        .ok()
        .or_else(|| value.as_int().ok().map(|whole| whole as FLOAT))
}

type Choice = (&'static str, &'static str, &'static str);

/// `choices: [["x", "X軸", "X axis"], ...]` or `[#{ id: "x", label: "X軸", label_en: "X axis" }]`.
fn read_choices(choices: Option<&Dynamic>) -> Result<Vec<Choice>, String> {
    let Some(list) = choices.and_then(|choices| choices.read_lock::<Array>()) else {
        return Err("a choice needs `choices`: [[\"id\", \"ラベル\", \"Label\"], ...]".to_owned());
    };
    if list.is_empty() || list.len() > MAX_OPTIONS {
        return Err(format!("a choice needs 1 to {MAX_OPTIONS} choices"));
    }
    let text =
        |value: Option<&Dynamic>, what: &str, max_chars: usize| -> Result<Option<String>, String> {
            match value {
                None => Ok(None),
                Some(value) if value.is_string() => {
                    let text = value.to_string();
                    if text.chars().count() > max_chars {
                        Err(format!(
                            "a choice's {what} is longer than {max_chars} characters"
                        ))
                    } else {
                        Ok(Some(text))
                    }
                }
                Some(value) => Err(format!(
                    "a choice's {what} must be a string, not {}",
                    value.type_name()
                )),
            }
        };
    list.iter()
        .map(|choice| {
            let (id, ja, en) = if let Some(parts) = choice.read_lock::<Array>() {
                (
                    text(parts.first(), "id", MAX_KEY_CHARS)?,
                    text(parts.get(1), "label", MAX_LABEL_CHARS)?,
                    text(parts.get(2), "label_en", MAX_LABEL_CHARS)?,
                )
            } else if let Some(fields) = choice.read_lock::<Map>() {
                (
                    text(fields.get("id"), "id", MAX_KEY_CHARS)?,
                    text(fields.get("label"), "label", MAX_LABEL_CHARS)?,
                    text(fields.get("label_en"), "label_en", MAX_LABEL_CHARS)?,
                )
            } else {
                return Err(format!(
                    "a choice is [\"id\", \"ラベル\", \"Label\"] or a map, not {}",
                    choice.type_name()
                ));
            };
            let id = id.ok_or("a choice needs an id")?;
            let ja = ja.unwrap_or_else(|| id.clone());
            let en = en.unwrap_or_else(|| ja.clone());
            Ok((intern(&id), intern(&ja), intern(&en)))
        })
        .collect()
}

/// `text` as a `&'static str`, leaked once per distinct text. [`OptionSpec`] keys, units and
/// choices are `&'static str` (the built-in tools write them as literals); a script's come from
/// its file. Reloading a script leaks nothing new, and the texts are short and few (bounded by
/// the limits above per script), so the memory stays small.
fn intern(text: &str) -> &'static str {
    static INTERNED: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut interned = INTERNED
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(existing) = interned.get(text) {
        return existing;
    }
    let leaked: &'static str = Box::leak(text.to_owned().into_boxed_str());
    interned.insert(leaked);
    leaked
}
