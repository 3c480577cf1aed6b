//! 名称の日英変換: fills the English names of bones, morphs, materials and display frames from
//! MMD's standard names (or the Japanese names from the English ones), with the user's own
//! dictionary on top.
//!
//! The built-in tables and the rules for names they do not hold are in
//! [`super::name_dictionary`]. The user's dictionary is a CSV file of `japanese,english` lines
//! (UTF-8 or Shift_JIS, `#` comments, an optional `japanese,english` header); its entries win
//! over the built-in ones. Scripts get no file access; this built-in tool reads that one file,
//! at most [`MAX_DICTIONARY_BYTES`].

use super::name_dictionary::{Category, english_to_japanese, japanese_to_english, normalize};
use crate::api::{
    EditBatch, Needs, Plugin, PluginContext, PluginError, PluginGroup, PluginInfo, PluginOutput,
};
use crate::options::OptionSpec;
use pmx_core::Model;
use pmx_core::edit::{Field, SetField, field};
use pmx_core::model::{Bone, DisplayFrame, Material, Morph, Text};
use pmx_core::validate::FixStep;
use std::collections::HashMap;
use std::path::Path;

/// The largest user dictionary read (a dictionary of names is far smaller).
pub const MAX_DICTIONARY_BYTES: u64 = 4 * 1024 * 1024;

/// The byte length of a Japanese name MMD's motion files keep (VMD stores 15 bytes of
/// Shift_JIS per bone or morph name).
const VMD_NAME_BYTES: usize = 15;

/// 名称の日英変換.
#[derive(Debug, Clone, Copy)]
pub struct TranslateNames;

/// The user's dictionary: Japanese → English and English → Japanese, first entry wins.
#[derive(Debug, Default)]
pub struct UserDictionary {
    to_english: HashMap<String, String>,
    to_japanese: HashMap<String, String>,
}

impl UserDictionary {
    /// Parses the CSV text of a user dictionary. Errors name the line (1-based).
    pub fn parse(text: &str) -> Result<Self, (usize, String)> {
        let mut dictionary = Self::default();
        let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
        for (number, line) in text.lines().enumerate() {
            let line_number = number + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields = split_csv_line(line).map_err(|message| (line_number, message))?;
            let [japanese, english] = fields.as_slice() else {
                return Err((
                    line_number,
                    format!(
                        "expected two columns (japanese,english), found {}",
                        fields.len()
                    ),
                ));
            };
            let (japanese, english) = (japanese.trim(), english.trim());
            if line_number == 1
                && japanese.eq_ignore_ascii_case("japanese")
                && english.eq_ignore_ascii_case("english")
            {
                continue;
            }
            if japanese.is_empty() || english.is_empty() {
                return Err((line_number, "a column is empty".to_owned()));
            }
            dictionary
                .to_english
                .entry(japanese.to_owned())
                .or_insert_with(|| english.to_owned());
            dictionary
                .to_english
                .entry(normalize(japanese))
                .or_insert_with(|| english.to_owned());
            dictionary
                .to_japanese
                .entry(english.to_lowercase())
                .or_insert_with(|| japanese.to_owned());
        }
        Ok(dictionary)
    }

    /// Reads a dictionary file: UTF-8 (with or without BOM), else Shift_JIS.
    pub fn read(path: &Path) -> Result<Self, PluginError> {
        let shown = path.display();
        let size = std::fs::metadata(path)
            .map_err(|error| {
                PluginError::refused(
                    format!("cannot read the dictionary {shown}: {error}"),
                    format!("辞書 {shown} を読めません: {error}"),
                )
            })?
            .len();
        if size > MAX_DICTIONARY_BYTES {
            return Err(PluginError::refused(
                format!(
                    "the dictionary {shown} has {size} bytes; at most {MAX_DICTIONARY_BYTES} are read"
                ),
                format!(
                    "辞書 {shown} が大きすぎます({size}バイト、上限{MAX_DICTIONARY_BYTES}バイト)"
                ),
            ));
        }
        let bytes = std::fs::read(path).map_err(|error| {
            PluginError::refused(
                format!("cannot read the dictionary {shown}: {error}"),
                format!("辞書 {shown} を読めません: {error}"),
            )
        })?;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(error) => {
                let bytes = error.into_bytes();
                encoding_rs::SHIFT_JIS
                    .decode_without_bom_handling_and_without_replacement(&bytes)
                    .map(std::borrow::Cow::into_owned)
                    .ok_or_else(|| {
                        PluginError::refused(
                            format!("the dictionary {shown} is neither UTF-8 nor Shift_JIS"),
                            format!("辞書 {shown} は UTF-8 でも Shift_JIS でもありません"),
                        )
                    })?
            }
        };
        Self::parse(&text).map_err(|(line, message)| {
            PluginError::refused(
                format!("{shown}:{line}: {message}"),
                format!("{shown} の{line}行目: {message}"),
            )
        })
    }

    fn english(&self, japanese: &str) -> Option<&str> {
        self.to_english
            .get(japanese)
            .or_else(|| self.to_english.get(&normalize(japanese)))
            .map(String::as_str)
    }

    fn japanese(&self, english: &str) -> Option<&str> {
        self.to_japanese
            .get(&english.trim().to_lowercase())
            .map(String::as_str)
    }
}

/// The fields of one CSV line (`"` quotes, `""` inside them).
fn split_csv_line(line: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', false) if field.trim().is_empty() => {
                field.clear();
                quoted = true;
            }
            ('"', true) => {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    field.push('"');
                } else {
                    quoted = false;
                }
            }
            (',', false) => fields.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    if quoted {
        return Err("a quote is not closed".to_owned());
    }
    fields.push(field);
    Ok(fields)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    ToEnglish,
    ToJapanese,
}

/// What one category's translation did.
#[derive(Debug, Default)]
struct Tally {
    translated: usize,
    kept: usize,
    untranslated: Vec<String>,
    long_japanese: Vec<String>,
}

/// Translates the names of one category; returns the elements and their new names.
fn translate_list(
    names: &[(&Text, &Text)],
    category: Category,
    direction: Direction,
    overwrite: bool,
    user: &UserDictionary,
    tally: &mut Tally,
) -> (Vec<usize>, Vec<Text>) {
    let mut indices = Vec::new();
    let mut values = Vec::new();
    for (index, (ja, en)) in names.iter().enumerate() {
        let (source, target) = match direction {
            Direction::ToEnglish => (ja, en),
            Direction::ToJapanese => (en, ja),
        };
        let source = source.as_str();
        if source.trim().is_empty() {
            continue;
        }
        if !overwrite && !target.as_str().trim().is_empty() {
            tally.kept += 1;
            continue;
        }
        let translated = match direction {
            Direction::ToEnglish => user
                .english(&source)
                .map(str::to_owned)
                .or_else(|| japanese_to_english(&source, category)),
            Direction::ToJapanese => user
                .japanese(&source)
                .map(str::to_owned)
                .or_else(|| english_to_japanese(&source, category)),
        };
        let Some(translated) = translated else {
            tally.untranslated.push(source.into_owned());
            continue;
        };
        if target.as_str() == translated.as_str() {
            continue;
        }
        if direction == Direction::ToJapanese {
            let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(&translated);
            if bytes.len() > VMD_NAME_BYTES {
                tally.long_japanese.push(translated.clone());
            }
        }
        tally.translated += 1;
        indices.push(index);
        values.push(Text::from(translated));
    }
    (indices, values)
}

fn push_names<E: pmx_core::edit::Element>(
    batch: &mut EditBatch,
    handle: Field<E, Text>,
    indices: Vec<usize>,
    values: Vec<Text>,
) {
    if !indices.is_empty() {
        batch.push(FixStep::Set(SetField::each(handle, indices, values)));
    }
}

fn shown_names(names: &[String]) -> String {
    let mut text = names
        .iter()
        .take(10)
        .map(|name| format!("「{name}」"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > 10 {
        text.push_str(&format!(" (+{})", names.len() - 10));
    }
    text
}

impl Plugin for TranslateNames {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "translate_names".to_owned(),
            group: PluginGroup::Names,
            name_ja: "名称の日英変換".to_owned(),
            name_en: "Translate names".to_owned(),
            description_ja: "ボーン・モーフ・材質・表示枠の名前を、MMD標準名の辞書(とユーザー辞書CSV)で日本語から英語へ(または英語から日本語へ)変換します。標準では空の英名だけを埋めます。".to_owned(),
            description_en: "Translates the names of bones, morphs, materials and display frames from Japanese to English (or back) with a dictionary of MMD's standard names and your own CSV dictionary. By default only empty English names are filled.".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::Nothing,
            options: vec![
                OptionSpec::choice(
                    "direction",
                    "方向",
                    "Direction",
                    "ja_to_en",
                    vec![
                        ("ja_to_en", "日本語 → 英語", "Japanese → English"),
                        ("en_to_ja", "英語 → 日本語", "English → Japanese"),
                    ],
                ),
                OptionSpec::bool("bones", "ボーン", "Bones", true),
                OptionSpec::bool("morphs", "モーフ", "Morphs", true),
                OptionSpec::bool("materials", "材質", "Materials", true),
                OptionSpec::bool("frames", "表示枠", "Display frames", true),
                OptionSpec::bool(
                    "overwrite",
                    "既存の名前も上書き",
                    "Replace existing names",
                    false,
                ),
                OptionSpec::text(
                    "dictionary",
                    "ユーザー辞書(CSV: 日本語,英語)",
                    "User dictionary (CSV: japanese,english)",
                    "",
                ),
            ],
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let direction = if cx.options.text("direction") == "en_to_ja" {
            Direction::ToJapanese
        } else {
            Direction::ToEnglish
        };
        let overwrite = cx.options.bool("overwrite");
        let path = cx.options.text("dictionary").trim();
        let user = if path.is_empty() {
            UserDictionary::default()
        } else {
            UserDictionary::read(Path::new(path))?
        };
        let model: &Model = cx.model;
        let mut batch = EditBatch::new();
        let mut tally = Tally::default();
        let mut per_kind: Vec<(&str, &str, usize)> = Vec::new();
        let to_en = direction == Direction::ToEnglish;

        if cx.options.bool("bones") {
            let names: Vec<(&Text, &Text)> = model
                .bones
                .iter()
                .map(|b| (&b.name_ja, &b.name_en))
                .collect();
            let (indices, values) = translate_list(
                &names,
                Category::Bone,
                direction,
                overwrite,
                &user,
                &mut tally,
            );
            per_kind.push(("bones", "ボーン", indices.len()));
            let handle = if to_en {
                field::<Bone>().name_en()
            } else {
                field::<Bone>().name_ja()
            };
            push_names(&mut batch, handle, indices, values);
        }
        if cx.options.bool("morphs") {
            let names: Vec<(&Text, &Text)> = model
                .morphs
                .iter()
                .map(|m| (&m.name_ja, &m.name_en))
                .collect();
            let (indices, values) = translate_list(
                &names,
                Category::Morph,
                direction,
                overwrite,
                &user,
                &mut tally,
            );
            per_kind.push(("morphs", "モーフ", indices.len()));
            let handle = if to_en {
                field::<Morph>().name_en()
            } else {
                field::<Morph>().name_ja()
            };
            push_names(&mut batch, handle, indices, values);
        }
        if cx.options.bool("materials") {
            let names: Vec<(&Text, &Text)> = model
                .materials
                .iter()
                .map(|m| (&m.name_ja, &m.name_en))
                .collect();
            let (indices, values) = translate_list(
                &names,
                Category::Material,
                direction,
                overwrite,
                &user,
                &mut tally,
            );
            per_kind.push(("materials", "材質", indices.len()));
            let handle = if to_en {
                field::<Material>().name_en()
            } else {
                field::<Material>().name_ja()
            };
            push_names(&mut batch, handle, indices, values);
        }
        if cx.options.bool("frames") {
            // The special frames' Japanese names (Root, 表情) are what MMD looks for: never
            // renamed.
            let names: Vec<(&Text, &Text)> = model
                .display_frames
                .iter()
                .map(|f| (&f.name_ja, &f.name_en))
                .collect();
            let (indices, values) = translate_list(
                &names,
                Category::Frame,
                direction,
                overwrite,
                &user,
                &mut tally,
            );
            let (indices, values): (Vec<usize>, Vec<Text>) = indices
                .into_iter()
                .zip(values)
                .filter(|(index, _)| to_en || !model.display_frames[*index].special)
                .unzip();
            per_kind.push(("display frames", "表示枠", indices.len()));
            let handle = if to_en {
                field::<DisplayFrame>().name_en()
            } else {
                field::<DisplayFrame>().name_ja()
            };
            push_names(&mut batch, handle, indices, values);
        }

        let mut output = PluginOutput::new(batch);
        let (target_en, target_ja) = if to_en {
            ("English", "英名")
        } else {
            ("Japanese", "日本語名")
        };
        output.note(
            format!(
                "{target_en} names set: {}",
                per_kind
                    .iter()
                    .map(|(en, _, n)| format!("{n} {en}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            format!(
                "{target_ja}を設定: {}",
                per_kind
                    .iter()
                    .map(|(_, ja, n)| format!("{ja}{n}個"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        if tally.kept > 0 {
            output.note(
                format!(
                    "{} names that already had a {target_en} name were kept (turn on \"Replace existing names\" to replace them)",
                    tally.kept
                ),
                format!(
                    "{}個は{target_ja}が既にあるため変更しませんでした(「既存の名前も上書き」で置き換えます)",
                    tally.kept
                ),
            );
        }
        if !tally.untranslated.is_empty() {
            let list = shown_names(&tally.untranslated);
            output.note(
                format!(
                    "{} names are not in the dictionary and were left: {list}",
                    tally.untranslated.len()
                ),
                format!(
                    "{}個の名前は辞書にないため変換しませんでした: {list}",
                    tally.untranslated.len()
                ),
            );
        }
        if !tally.long_japanese.is_empty() {
            let list = shown_names(&tally.long_japanese);
            output.note(
                format!(
                    "{} Japanese names are longer than {VMD_NAME_BYTES} bytes in Shift_JIS, more than a VMD motion keeps: {list}",
                    tally.long_japanese.len()
                ),
                format!(
                    "{}個の日本語名はShift_JISで{VMD_NAME_BYTES}バイトを超え、VMDモーションでは切り詰められます: {list}",
                    tally.long_japanese.len()
                ),
            );
        }
        if output.batch.is_empty() {
            return Err(PluginError::NoChange);
        }
        Ok(output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_dictionaries_parse_with_line_numbers() {
        let dictionary = UserDictionary::parse(
            "japanese,english\n# comment\n髪飾り,\"hair pin, gold\"\n左腕,my arm_L\n",
        )
        .unwrap_or_default();
        assert_eq!(dictionary.english("髪飾り"), Some("hair pin, gold"));
        assert_eq!(dictionary.english("左腕"), Some("my arm_L"));
        assert_eq!(dictionary.japanese("MY ARM_L"), Some("左腕"));
        let error = UserDictionary::parse("a,b\nno comma here\n").err();
        assert_eq!(
            error,
            Some((
                2,
                "expected two columns (japanese,english), found 1".to_owned()
            ))
        );
        assert_eq!(
            UserDictionary::parse("a,\"b\n").err().map(|(line, _)| line),
            Some(1)
        );
    }
}
