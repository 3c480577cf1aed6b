//! `META.json`: the VRM 1.0 `meta` object written by hand (or saved by the export dialog),
//! read into [`VrmMeta`]. Its keys are the spec's own names (`avatarPermission`,
//! `creditNotation`, ...), so a `meta` block copied out of a VRM file works as it is; a key
//! left out keeps [`VrmMeta::default`]'s conservative choice, a key we do not know is an
//! error rather than silently ignored (a misspelt `allowRedistribution` must not quietly
//! become "not allowed").

use super::{AvatarPermission, CommercialUsage, Modification, VRM_LICENSE_URL, VrmMeta};
use serde_json::{Map, Value};

/// The keys `META.json` may have: those of VRM 1.0's `meta` (`thumbnailImage` aside: it is an
/// index into the file's images, which the export makes).
pub const META_JSON_KEYS: [&str; 18] = [
    "name",
    "version",
    "authors",
    "copyrightInformation",
    "contactInformation",
    "references",
    "thirdPartyLicenses",
    "licenseUrl",
    "avatarPermission",
    "allowExcessivelyViolentUsage",
    "allowExcessivelySexualUsage",
    "commercialUsage",
    "allowPoliticalOrReligiousUsage",
    "allowAntisocialOrHateUsage",
    "creditNotation",
    "allowRedistribution",
    "modification",
    "otherLicenseUrl",
];

/// Why a `META.json` was refused; every variant names the key at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MetaJsonError {
    #[error("META.json is not valid JSON: {message}")]
    Syntax { message: String },
    #[error("META.json must be a JSON object with the VRM 1.0 meta keys, not {found}")]
    NotAnObject { found: &'static str },
    #[error("META.json: unknown key {} (the keys are VRM 1.0's meta names: {})", quoted(.keys), META_JSON_KEYS.join(", "))]
    UnknownKeys { keys: Vec<String> },
    #[error("META.json: \"{key}\" must be {expected}, not {found}")]
    WrongType {
        key: &'static str,
        expected: &'static str,
        found: &'static str,
    },
    #[error("META.json: \"{key}\" is \"{value}\"; it must be one of {}", .allowed.join(", "))]
    UnknownValue {
        key: &'static str,
        value: String,
        allowed: Vec<&'static str>,
    },
}

fn quoted(keys: &[String]) -> String {
    keys.iter()
        .map(|key| format!("\"{key}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A `META.json` read: the meta and what was ignored (English, one line each).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedMetaJson {
    pub meta: VrmMeta,
    pub warnings: Vec<String>,
}

/// Reads a `META.json` and says what it ignored ([`VrmMeta::from_json_str`] without the
/// warnings).
pub fn parse_meta_json(text: &str) -> Result<ParsedMetaJson, MetaJsonError> {
    let value: Value = serde_json::from_str(text).map_err(|error| MetaJsonError::Syntax {
        message: error.to_string(),
    })?;
    let Value::Object(object) = value else {
        return Err(MetaJsonError::NotAnObject {
            found: type_name(&value),
        });
    };
    let unknown: Vec<String> = object
        .keys()
        .filter(|key| !META_JSON_KEYS.contains(&key.as_str()))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        return Err(MetaJsonError::UnknownKeys { keys: unknown });
    }
    let fields = Fields(&object);
    let defaults = VrmMeta::default();
    let mut warnings = Vec::new();
    if let Some(url) = fields.string("licenseUrl")?
        && url.trim().trim_end_matches('/') != VRM_LICENSE_URL.trim_end_matches('/')
    {
        warnings.push(format!(
            "licenseUrl \"{url}\" ignored: VRM 1.0 files always name {VRM_LICENSE_URL}; give another licence as otherLicenseUrl"
        ));
    }
    let meta = VrmMeta {
        name: fields.string("name")?,
        version: fields.string("version")?,
        authors: fields.strings("authors")?.unwrap_or(defaults.authors),
        copyright_information: fields.string("copyrightInformation")?,
        contact_information: fields.string("contactInformation")?,
        references: fields.strings("references")?.unwrap_or(defaults.references),
        third_party_licenses: fields.string("thirdPartyLicenses")?,
        avatar_permission: fields
            .choice(
                "avatarPermission",
                &[
                    AvatarPermission::OnlyAuthor,
                    AvatarPermission::OnlySeparatelyLicensedPerson,
                    AvatarPermission::Everyone,
                ],
                |p| p.as_str(),
            )?
            .unwrap_or(defaults.avatar_permission),
        allow_excessively_violent_usage: fields
            .bool("allowExcessivelyViolentUsage")?
            .unwrap_or(defaults.allow_excessively_violent_usage),
        allow_excessively_sexual_usage: fields
            .bool("allowExcessivelySexualUsage")?
            .unwrap_or(defaults.allow_excessively_sexual_usage),
        commercial_usage: fields
            .choice(
                "commercialUsage",
                &[
                    CommercialUsage::PersonalNonProfit,
                    CommercialUsage::PersonalProfit,
                    CommercialUsage::Corporation,
                ],
                |c| c.as_str(),
            )?
            .unwrap_or(defaults.commercial_usage),
        allow_political_or_religious_usage: fields
            .bool("allowPoliticalOrReligiousUsage")?
            .unwrap_or(defaults.allow_political_or_religious_usage),
        allow_antisocial_or_hate_usage: fields
            .bool("allowAntisocialOrHateUsage")?
            .unwrap_or(defaults.allow_antisocial_or_hate_usage),
        credit_unnecessary: fields
            .choice("creditNotation", &[false, true], |&unnecessary| {
                credit_notation(unnecessary)
            })?
            .unwrap_or(defaults.credit_unnecessary),
        allow_redistribution: fields
            .bool("allowRedistribution")?
            .unwrap_or(defaults.allow_redistribution),
        modification: fields
            .choice(
                "modification",
                &[
                    Modification::Prohibited,
                    Modification::AllowModification,
                    Modification::AllowModificationRedistribution,
                ],
                |m| m.as_str(),
            )?
            .unwrap_or(defaults.modification),
        other_license_url: fields.string("otherLicenseUrl")?,
    };
    Ok(ParsedMetaJson { meta, warnings })
}

fn credit_notation(unnecessary: bool) -> &'static str {
    if unnecessary {
        "unnecessary"
    } else {
        "required"
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The object's values by key, typed; `null` counts as left out.
struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key).filter(|value| !value.is_null())
    }

    fn string(&self, key: &'static str) -> Result<Option<String>, MetaJsonError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(MetaJsonError::WrongType {
                key,
                expected: "a string",
                found: type_name(other),
            }),
        }
    }

    fn strings(&self, key: &'static str) -> Result<Option<Vec<String>>, MetaJsonError> {
        let wrong = |found: &Value| MetaJsonError::WrongType {
            key,
            expected: "an array of strings",
            found: type_name(found),
        };
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().map(str::to_owned).ok_or_else(|| wrong(item)))
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(other) => Err(wrong(other)),
        }
    }

    fn bool(&self, key: &'static str) -> Result<Option<bool>, MetaJsonError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(value)) => Ok(Some(*value)),
            Some(other) => Err(MetaJsonError::WrongType {
                key,
                expected: "true or false",
                found: type_name(other),
            }),
        }
    }

    /// One of `choices`, by the spec's string for it.
    fn choice<T: Copy>(
        &self,
        key: &'static str,
        choices: &[T],
        name: impl Fn(&T) -> &'static str,
    ) -> Result<Option<T>, MetaJsonError> {
        let Some(text) = self.string(key)? else {
            return Ok(None);
        };
        choices
            .iter()
            .find(|choice| name(choice) == text)
            .copied()
            .map(Some)
            .ok_or_else(|| MetaJsonError::UnknownValue {
                key,
                value: text,
                allowed: choices.iter().map(&name).collect(),
            })
    }
}

impl VrmMeta {
    /// Reads a `META.json` (see the module documentation); what it ignores (a `licenseUrl`
    /// other than VRM's) is dropped silently: use [`parse_meta_json`] to show it.
    pub fn from_json_str(text: &str) -> Result<VrmMeta, MetaJsonError> {
        parse_meta_json(text).map(|parsed| parsed.meta)
    }

    /// This meta as a `META.json` object: every key, the optional texts only when set, so
    /// [`VrmMeta::from_json_str`] gives it back.
    #[must_use]
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        let mut text = |key: &str, value: &Option<String>| {
            if let Some(value) = value {
                object.insert(key.into(), Value::String(value.clone()));
            }
        };
        text("name", &self.name);
        text("version", &self.version);
        text("copyrightInformation", &self.copyright_information);
        text("contactInformation", &self.contact_information);
        text("thirdPartyLicenses", &self.third_party_licenses);
        text("otherLicenseUrl", &self.other_license_url);
        let list =
            |items: &[String]| Value::Array(items.iter().cloned().map(Value::String).collect());
        object.insert("authors".into(), list(&self.authors));
        object.insert("references".into(), list(&self.references));
        object.insert("licenseUrl".into(), VRM_LICENSE_URL.into());
        object.insert(
            "avatarPermission".into(),
            self.avatar_permission.as_str().into(),
        );
        object.insert(
            "commercialUsage".into(),
            self.commercial_usage.as_str().into(),
        );
        object.insert(
            "creditNotation".into(),
            credit_notation(self.credit_unnecessary).into(),
        );
        object.insert("modification".into(), self.modification.as_str().into());
        for (key, value) in [
            (
                "allowExcessivelyViolentUsage",
                self.allow_excessively_violent_usage,
            ),
            (
                "allowExcessivelySexualUsage",
                self.allow_excessively_sexual_usage,
            ),
            (
                "allowPoliticalOrReligiousUsage",
                self.allow_political_or_religious_usage,
            ),
            (
                "allowAntisocialOrHateUsage",
                self.allow_antisocial_or_hate_usage,
            ),
            ("allowRedistribution", self.allow_redistribution),
        ] {
            object.insert(key.into(), Value::Bool(value));
        }
        Value::Object(object)
    }

    /// [`VrmMeta::to_json`] as indented text, ending in a newline.
    #[must_use]
    pub fn to_json_string(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
        text.push('\n');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_vrm_meta_names() {
        let text = r#"{
            "name": "Avatar",
            "version": "1.0",
            "authors": ["Ann", "Bob"],
            "copyrightInformation": "(c) Ann",
            "contactInformation": "ann@example.com",
            "references": ["https://example.com/original"],
            "thirdPartyLicenses": "textures: CC0",
            "licenseUrl": "https://vrm.dev/licenses/1.0/",
            "avatarPermission": "everyone",
            "allowExcessivelyViolentUsage": true,
            "allowExcessivelySexualUsage": false,
            "commercialUsage": "personalProfit",
            "allowPoliticalOrReligiousUsage": true,
            "allowAntisocialOrHateUsage": false,
            "creditNotation": "unnecessary",
            "allowRedistribution": true,
            "modification": "allowModificationRedistribution",
            "otherLicenseUrl": "https://example.com/licence"
        }"#;
        let parsed = parse_meta_json(text).unwrap_or_default();
        assert!(parsed.warnings.is_empty());
        let meta = parsed.meta;
        assert_eq!(meta.name.as_deref(), Some("Avatar"));
        assert_eq!(meta.version.as_deref(), Some("1.0"));
        assert_eq!(meta.authors, ["Ann", "Bob"]);
        assert_eq!(meta.copyright_information.as_deref(), Some("(c) Ann"));
        assert_eq!(meta.contact_information.as_deref(), Some("ann@example.com"));
        assert_eq!(meta.references, ["https://example.com/original"]);
        assert_eq!(meta.third_party_licenses.as_deref(), Some("textures: CC0"));
        assert_eq!(meta.avatar_permission, AvatarPermission::Everyone);
        assert!(meta.allow_excessively_violent_usage);
        assert!(!meta.allow_excessively_sexual_usage);
        assert_eq!(meta.commercial_usage, CommercialUsage::PersonalProfit);
        assert!(meta.allow_political_or_religious_usage);
        assert!(!meta.allow_antisocial_or_hate_usage);
        assert!(meta.credit_unnecessary);
        assert!(meta.allow_redistribution);
        assert_eq!(
            meta.modification,
            Modification::AllowModificationRedistribution
        );
        assert_eq!(
            meta.other_license_url.as_deref(),
            Some("https://example.com/licence")
        );
        // And back: to_json gives the same meta.
        assert_eq!(
            VrmMeta::from_json_str(&meta.to_json_string()),
            Ok(meta.clone())
        );
    }

    #[test]
    fn missing_keys_and_nulls_keep_the_conservative_defaults() {
        assert_eq!(VrmMeta::from_json_str("{}"), Ok(VrmMeta::default()));
        let meta = VrmMeta::from_json_str(r#"{"name": "A", "version": null}"#);
        assert_eq!(
            meta,
            Ok(VrmMeta {
                name: Some("A".into()),
                ..VrmMeta::default()
            })
        );
        assert_eq!(
            VrmMeta::from_json_str(&VrmMeta::default().to_json_string()),
            Ok(VrmMeta::default())
        );
    }

    #[test]
    fn unknown_keys_are_named() {
        let error = VrmMeta::from_json_str(r#"{"name": "A", "allowRedistibution": true}"#);
        assert_eq!(
            error,
            Err(MetaJsonError::UnknownKeys {
                keys: vec!["allowRedistibution".into()]
            })
        );
        let message = error.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("\"allowRedistibution\""), "{message}");
        assert!(message.contains("allowRedistribution"), "{message}");
    }

    #[test]
    fn wrong_types_and_values_name_the_key() {
        let message = |text: &str| {
            VrmMeta::from_json_str(text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        let text = message(r#"{"authors": "Ann"}"#);
        assert!(
            text.contains("\"authors\" must be an array of strings"),
            "{text}"
        );
        let text = message(r#"{"allowRedistribution": "yes"}"#);
        assert!(
            text.contains("\"allowRedistribution\" must be true or false"),
            "{text}"
        );
        let text = message(r#"{"avatarPermission": "anyone"}"#);
        assert!(
            text.contains("\"avatarPermission\" is \"anyone\""),
            "{text}"
        );
        assert!(text.contains("onlyAuthor"), "{text}");
        let text = message(r#"{"creditNotation": "no"}"#);
        assert!(text.contains("required, unnecessary"), "{text}");
        assert!(message("[1]").contains("not an array"));
        assert!(message("{").contains("not valid JSON"));
    }

    #[test]
    fn another_licence_url_is_ignored_with_a_warning() {
        let parsed =
            parse_meta_json(r#"{"licenseUrl": "https://example.com/mine"}"#).unwrap_or_default();
        assert_eq!(parsed.meta, VrmMeta::default());
        assert_eq!(parsed.warnings.len(), 1);
        assert!(parsed.warnings[0].contains("otherLicenseUrl"));
        let parsed = parse_meta_json(r#"{"licenseUrl": "https://vrm.dev/licenses/1.0"}"#)
            .unwrap_or_default();
        assert!(parsed.warnings.is_empty());
    }
}
