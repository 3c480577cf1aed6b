//! Edit labels as data: a message key of `resources/i18n/*.json` with typed arguments, rendered
//! in either language when it is shown ("ボーン18の名前を変更" / "Rename bone 18"). An edit never
//! stores a rendered label, so switching the language re-renders the whole history.

use super::{EditReport, EditTarget, thousands};
use crate::i18n::{Language, fill};
use crate::path::{FieldPath, Segment};
use std::fmt;

/// An argument of a label message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelArg {
    /// An element index, as it is.
    Index(usize),
    /// A number with thousands separators ("1,000").
    Number(usize),
    /// `count` of a noun ("3 bones" / "ボーン3個"); the noun is an id of the `noun.*` keys.
    Count(usize, &'static str),
    /// A noun in the singular ("rigid body" / "剛体").
    Noun(&'static str),
    /// A noun in the plural ("rigid bodies" / "剛体").
    Plural(&'static str),
    /// A field path (`name_ja`, `ik.links[0].bone`), each name in the language's vocabulary.
    Field(FieldPath),
    /// Text shown as it is (names, paths).
    Text(String),
    /// A string of the resources.
    Key(&'static str),
    /// Another label ("Delete 2 materials" in "Delete 2 materials and 30 vertices").
    Label(Box<EditLabel>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Message {
    Key {
        key: &'static str,
        args: Vec<(&'static str, LabelArg)>,
    },
    /// Text the user or a script gave: the same in every language.
    Text(String),
    /// Text given in both languages (a validator fix's label).
    Both { en: String, ja: String },
    /// A reader's, writer's or tool's message (an open error in the status bar).
    Shared(crate::i18n::Message),
}

/// What an edit removed or cleared besides its main change, for the label's suffix
/// ("and 12 faces; cleared 3 references"): copied from its [`EditReport`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct Summary {
    /// (the report's English plural phrase, count), e.g. ("morph offsets", 3).
    removed_with: Vec<(String, usize)>,
    /// What a deleted bone handed on: (phrase, count, bone index, bone name), e.g.
    /// ("child bones", 2, 8, "上半身").
    moved: Vec<(String, usize, usize, String)>,
    /// Settings switched off: (the report's phrase, bones), e.g. ("IK", 1).
    switched_off: Vec<(String, usize)>,
    cleared: usize,
}

impl Summary {
    fn is_empty(&self) -> bool {
        self.removed_with.is_empty()
            && self.moved.is_empty()
            && self.switched_off.is_empty()
            && self.cleared == 0
    }
}

/// The label of an edit: what the history, the Edit menu and the status bar show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditLabel {
    message: Message,
    summary: Option<Box<Summary>>,
}

impl EditLabel {
    /// The message `key` (a key of `resources/i18n/*.json`), arguments added with
    /// [`EditLabel::arg`] and the shorthands after it.
    #[must_use]
    pub fn new(key: &'static str) -> Self {
        Self {
            message: Message::Key {
                key,
                args: Vec::new(),
            },
            summary: None,
        }
    }

    /// A label that reads the same in every language (one the user typed).
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            message: Message::Text(text.into()),
            summary: None,
        }
    }

    /// A label given in both languages.
    #[must_use]
    pub fn both(en: impl Into<String>, ja: impl Into<String>) -> Self {
        Self {
            message: Message::Both {
                en: en.into(),
                ja: ja.into(),
            },
            summary: None,
        }
    }

    /// Adds the argument that fills `{name}`.
    #[must_use]
    pub fn arg(mut self, name: &'static str, value: LabelArg) -> Self {
        if let Message::Key { args, .. } = &mut self.message {
            args.push((name, value));
        }
        self
    }

    /// `{count}`: `count` elements of `target` ("3 bones").
    #[must_use]
    pub fn count(self, count: usize, target: impl Into<EditTarget>) -> Self {
        self.arg("count", LabelArg::Count(count, target.into().name()))
    }

    /// `{target}` and `{index}`: one element ("bone 18").
    #[must_use]
    pub fn element(self, target: EditTarget, index: usize) -> Self {
        self.arg("target", LabelArg::Noun(target.name()))
            .arg("index", LabelArg::Index(index))
    }

    /// Adds what `report` says was removed or cleared besides the main change.
    pub(crate) fn with_summary_of(mut self, report: &EditReport) -> Self {
        let summary = Summary {
            removed_with: report
                .removed_with
                .iter()
                .map(|(what, &count)| (what.clone(), count))
                .collect(),
            moved: report
                .moved
                .iter()
                .map(|m| (m.what.clone(), m.count, m.to, m.to_name.clone()))
                .collect(),
            switched_off: report
                .switched_off
                .iter()
                .map(|(what, &count)| (what.clone(), count))
                .collect(),
            cleared: report.cleared_total(),
        };
        self.summary = (!summary.is_empty()).then(|| Box::new(summary));
        self
    }

    /// The message key (`None` for text labels).
    #[must_use]
    pub fn key(&self) -> Option<&'static str> {
        match &self.message {
            Message::Key { key, .. } => Some(key),
            Message::Text(_) | Message::Both { .. } | Message::Shared(_) => None,
        }
    }

    /// Every resource key the label needs (its message, nouns, nested labels), so tests can
    /// check the files have them.
    #[must_use]
    pub fn keys(&self) -> Vec<String> {
        let mut keys = Vec::new();
        if let Message::Shared(message) = &self.message {
            keys.extend(message.keys().into_iter().map(str::to_owned));
        }
        if let Message::Key { key, args } = &self.message {
            keys.push((*key).to_owned());
            for (_, arg) in args {
                match arg {
                    LabelArg::Count(_, noun) => {
                        keys.extend([
                            "edit.count".to_owned(),
                            format!("noun.{noun}"),
                            format!("nouns.{noun}"),
                        ]);
                    }
                    LabelArg::Noun(noun) => keys.push(format!("noun.{noun}")),
                    LabelArg::Plural(noun) => keys.push(format!("nouns.{noun}")),
                    LabelArg::Key(key) => keys.push((*key).to_owned()),
                    LabelArg::Label(label) => keys.extend(label.keys()),
                    // Field names the files lack show as they are (soft body parameters,
                    // axes): the vocabulary is optional per name.
                    LabelArg::Field(_)
                    | LabelArg::Index(_)
                    | LabelArg::Number(_)
                    | LabelArg::Text(_) => {}
                }
            }
        }
        if let Some(summary) = &self.summary {
            keys.push("edit.with_summary".to_owned());
            if !summary.removed_with.is_empty() {
                keys.push("edit.summary_removed".to_owned());
                for (what, _) in &summary.removed_with {
                    if let Some(noun) = report_noun(what) {
                        keys.extend([format!("noun.{noun}"), format!("nouns.{noun}")]);
                    }
                }
            }
            if !summary.moved.is_empty() {
                keys.extend(["edit.summary_moved".to_owned(), "edit.bone_at".to_owned()]);
                for (what, ..) in &summary.moved {
                    if let Some(noun) = report_noun(what) {
                        keys.extend([format!("noun.{noun}"), format!("nouns.{noun}")]);
                    }
                }
            }
            if !summary.switched_off.is_empty() {
                keys.extend([
                    "edit.summary_switched_off".to_owned(),
                    "edit.switched_off_item".to_owned(),
                    "noun.bone".to_owned(),
                    "nouns.bone".to_owned(),
                ]);
                for (what, _) in &summary.switched_off {
                    if let Some(key) = switched_off_key(what) {
                        keys.push(key.to_owned());
                    }
                }
            }
            if summary.cleared > 0 {
                keys.extend([
                    "edit.summary_cleared".to_owned(),
                    "nouns.reference".to_owned(),
                ]);
            }
        }
        keys
    }

    /// The label in `lang`.
    #[must_use]
    pub fn render(&self, lang: Language) -> String {
        let text = match &self.message {
            Message::Key { key, args } => {
                let rendered: Vec<(&str, String)> = args
                    .iter()
                    .map(|(name, arg)| (*name, render_arg(arg, lang)))
                    .collect();
                let display: Vec<(&str, &dyn fmt::Display)> = rendered
                    .iter()
                    .map(|(name, value)| (*name, value as &dyn fmt::Display))
                    .collect();
                lang.format(key, &display)
            }
            Message::Text(text) => text.clone(),
            Message::Both { en, ja } => match lang {
                Language::English => en.clone(),
                Language::Japanese => ja.clone(),
            },
            Message::Shared(message) => message.render(lang),
        };
        match &self.summary {
            Some(summary) => lang.format(
                "edit.with_summary",
                &[("label", &text), ("summary", &summary.render(lang))],
            ),
            None => text,
        }
    }

    pub(crate) fn heap_size(&self) -> usize {
        let message = match &self.message {
            Message::Key { args, .. } => {
                args.capacity() * std::mem::size_of::<(&str, LabelArg)>()
                    + args
                        .iter()
                        .map(|(_, arg)| match arg {
                            LabelArg::Field(path) => path.heap_size(),
                            LabelArg::Text(text) => text.capacity(),
                            LabelArg::Label(label) => {
                                std::mem::size_of::<EditLabel>() + label.heap_size()
                            }
                            _ => 0,
                        })
                        .sum::<usize>()
            }
            Message::Text(text) => text.capacity(),
            Message::Both { en, ja } => en.capacity() + ja.capacity(),
            // Only status messages hold one, never the history.
            Message::Shared(_) => 0,
        };
        message
            + self.summary.as_ref().map_or(0, |s| {
                std::mem::size_of::<Summary>()
                    + s.removed_with
                        .iter()
                        .chain(&s.switched_off)
                        .map(|(what, _)| what.capacity() + std::mem::size_of::<(String, usize)>())
                        .sum::<usize>()
                    + s.moved
                        .iter()
                        .map(|(what, _, _, name)| {
                            what.capacity()
                                + name.capacity()
                                + std::mem::size_of::<(String, usize, usize, String)>()
                        })
                        .sum::<usize>()
            })
    }
}

impl Summary {
    fn render(&self, lang: Language) -> String {
        let mut parts = self.render_moved(lang);
        if !self.removed_with.is_empty() {
            let list: Vec<String> = self
                .removed_with
                .iter()
                .map(|(what, count)| report_count(lang, what, *count))
                .collect();
            let list = list.join(lang.tr("edit.list_separator"));
            parts.push(lang.format("edit.summary_removed", &[("list", &list)]));
        }
        if !self.switched_off.is_empty() {
            let list: Vec<String> = self
                .switched_off
                .iter()
                .map(|(what, bones)| {
                    let setting = switched_off_setting(lang, what);
                    lang.format(
                        "edit.switched_off_item",
                        &[
                            ("what", &setting),
                            ("count", &count_text(lang, *bones, "bone")),
                        ],
                    )
                })
                .collect();
            let list = list.join(lang.tr("edit.list_separator"));
            parts.push(lang.format("edit.summary_switched_off", &[("list", &list)]));
        }
        if self.cleared > 0 {
            let count = count_text(lang, self.cleared, "reference");
            parts.push(lang.format("edit.summary_cleared", &[("count", &count)]));
        }
        parts.join(lang.tr("edit.part_separator"))
    }
}

impl Summary {
    /// "2 child bones, 576 vertex weights moved to 上半身", one part per bone they went to.
    fn render_moved(&self, lang: Language) -> Vec<String> {
        let mut by_bone: Vec<(usize, &str, Vec<String>)> = Vec::new();
        for (what, count, to, name) in &self.moved {
            let text = report_count(lang, what, *count);
            match by_bone
                .iter_mut()
                .find(|(bone, bone_name, _)| bone == to && bone_name == name)
            {
                Some((_, _, list)) => list.push(text),
                None => by_bone.push((*to, name, vec![text])),
            }
        }
        by_bone
            .into_iter()
            .map(|(to, name, list)| {
                let bone = if name.is_empty() {
                    lang.format("edit.bone_at", &[("index", &to)])
                } else {
                    name.to_owned()
                };
                let list = list.join(lang.tr("edit.list_separator"));
                lang.format("edit.summary_moved", &[("list", &list), ("bone", &bone)])
            })
            .collect()
    }
}

/// The resource key of a setting [`EditReport::switched_off`] names ("IK", "append",
/// "tail bone").
fn switched_off_key(phrase: &str) -> Option<&'static str> {
    match phrase {
        "IK" => Some("edit.setting_ik"),
        "append" => Some("edit.setting_append"),
        "tail bone" => Some("edit.setting_tail_bone"),
        _ => None,
    }
}

/// `count` things an [`EditReport`] names by `phrase` ("morph offsets"), in `lang`: "3 morph
/// offsets", 「モーフオフセット3個」. A phrase the table does not know stays as the report says it.
#[must_use]
pub fn report_count(lang: Language, phrase: &str, count: usize) -> String {
    match report_noun(phrase) {
        Some(noun) => count_text(lang, count, noun),
        None => format!("{} {phrase}", thousands(count)),
    }
}

/// A setting [`EditReport::switched_off`] names ("IK", "append", "tail bone"), in `lang`.
#[must_use]
pub fn switched_off_setting(lang: Language, phrase: &str) -> String {
    switched_off_key(phrase).map_or_else(|| phrase.to_owned(), |key| lang.tr(key).to_owned())
}

/// `count` bones, in `lang` ("1 bone", 「ボーン2個」).
#[must_use]
pub fn bone_count(lang: Language, count: usize) -> String {
    count_text(lang, count, "bone")
}

/// The noun id of a phrase an [`EditReport`] counts by ("morph offsets" → `morph_offset`).
#[must_use]
pub fn report_noun(phrase: &str) -> Option<&'static str> {
    REPORT_NOUNS
        .iter()
        .find(|(p, _)| *p == phrase)
        .map(|(_, noun)| *noun)
}

/// The phrases of `EditReport::removed_with` and `RefSite::field_name`, with their noun ids.
pub const REPORT_NOUNS: &[(&str, &str)] = &[
    ("faces", "face"),
    ("child bones", "child_bone"),
    ("rigid bodies", "rigid_body"),
    ("joints", "joint"),
    ("morph offsets", "morph_offset"),
    ("soft body anchors", "soft_body_anchor"),
    ("soft body pins", "soft_body_pin"),
    ("vertex weights", "vertex_weight"),
    ("face corners", "face_corner"),
    ("material textures", "material_texture"),
    ("material sphere textures", "material_sphere"),
    ("material toons", "material_toon"),
    ("bone parents", "bone_parent"),
    ("bone tails", "bone_tail"),
    ("append parents", "append_parent"),
    ("IK targets", "ik_target"),
    ("IK links", "ik_link"),
    ("display frame items", "display_item"),
    ("rigid body bones", "rigid_body_bone"),
    ("joint bodies", "joint_body"),
    ("soft body materials", "soft_body_material"),
];

fn noun_key(noun: &str, plural: bool) -> String {
    format!("{}.{noun}", if plural { "nouns" } else { "noun" })
}

fn noun_text(lang: Language, noun: &str, plural: bool) -> String {
    let key = noun_key(noun, plural);
    lang.get(&key)
        .map_or_else(|| noun.replace('_', " "), str::to_owned)
}

/// "3 bones" / "ボーン3個"; a noun with a counter of its own has a `count.<noun>` template
/// ("3ステップ", "5件").
fn count_text(lang: Language, count: usize, noun: &str) -> String {
    let template = lang
        .get(&format!("count.{noun}"))
        .unwrap_or_else(|| lang.tr("edit.count"));
    let noun = noun_text(lang, noun, count != 1);
    fill(template, &[("count", &thousands(count)), ("noun", &noun)])
}

/// A field path with each name in the language's vocabulary (`field.*`), in the path grammar's
/// form (`ik.links[0].bone`); positions and names the files lack stay as they are.
/// A field path in the language's words: `position.x` is "position.x" / "位置X", `ik.links[0].bone`
/// is "IK.links[0].bone" / "IKのリンク[0]のボーン" (in Japanese a component of a vector or colour
/// is its capital letter after the field; names the vocabulary lacks show as they are).
pub fn field_words(lang: Language, path: &FieldPath) -> String {
    const COMPONENTS: [&str; 8] = ["x", "y", "z", "w", "r", "g", "b", "a"];
    let separator = match lang {
        Language::English => ".",
        Language::Japanese => "の",
    };
    let mut text = String::new();
    for segment in path.segments() {
        match segment {
            Segment::Field(name)
                if lang == Language::Japanese
                    && !text.is_empty()
                    && COMPONENTS.contains(&name.as_ref()) =>
            {
                text.push_str(&name.to_ascii_uppercase());
            }
            Segment::Field(name) => {
                if !text.is_empty() {
                    text.push_str(separator);
                }
                text.push_str(lang.get(&format!("field.{name}")).unwrap_or(name));
            }
            Segment::Index(index) => text.push_str(&format!("[{index}]")),
        }
    }
    text
}

fn render_arg(arg: &LabelArg, lang: Language) -> String {
    match arg {
        LabelArg::Index(index) => index.to_string(),
        LabelArg::Number(n) => thousands(*n),
        LabelArg::Count(count, noun) => count_text(lang, *count, noun),
        LabelArg::Noun(noun) => noun_text(lang, noun, false),
        LabelArg::Plural(noun) => noun_text(lang, noun, true),
        LabelArg::Field(path) => field_words(lang, path),
        LabelArg::Text(text) => text.clone(),
        LabelArg::Key(key) => lang.tr(key).to_owned(),
        LabelArg::Label(label) => label.render(lang),
    }
}

impl From<String> for EditLabel {
    fn from(text: String) -> Self {
        EditLabel::text(text)
    }
}

impl From<crate::i18n::Message> for EditLabel {
    fn from(message: crate::i18n::Message) -> Self {
        Self {
            message: Message::Shared(message),
            summary: None,
        }
    }
}

impl From<&str> for EditLabel {
    fn from(text: &str) -> Self {
        EditLabel::text(text)
    }
}

impl fmt::Display for EditLabel {
    /// In English, as the command line prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(Language::English))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{EN_JSON, JA_JSON};
    use std::collections::{BTreeSet, HashMap};

    fn keys(json: &str) -> BTreeSet<String> {
        let map: HashMap<String, String> = serde_json::from_str(json).expect("valid JSON");
        map.into_keys().collect()
    }

    /// Every key literal of the label vocabulary in the core's sources (`"edit.…"`, `"noun.…"`,
    /// `"nouns.…"`, `"count.…"`), and every noun a label can name, is in both files.
    #[test]
    fn every_label_key_exists_in_both_files() {
        let ja = keys(JA_JSON);
        let en = keys(EN_JSON);
        let mut wanted: BTreeSet<String> = BTreeSet::new();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut stack = vec![root];
        let mut files = 0;
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("readable dir").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                files += 1;
                let text = std::fs::read_to_string(&path).expect("readable source");
                for literal in text.split('"').skip(1).step_by(2) {
                    let is_key = ["edit.", "noun.", "nouns.", "count."]
                        .iter()
                        .any(|p| literal.starts_with(p))
                        && literal.len() > 6
                        && literal
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c == '.' || c == '_');
                    if is_key {
                        wanted.insert(literal.to_owned());
                    }
                }
            }
        }
        assert!(files > 20, "core sources not found");
        assert!(wanted.contains("edit.rename_one"), "{wanted:?}");
        let nouns = [
            "header",
            "info",
            "vertex",
            "face",
            "texture",
            "material",
            "bone",
            "morph",
            "display_frame",
            "rigid_body",
            "joint",
            "soft_body",
            "reference",
            "uv_channel",
            "step",
            "fix",
        ];
        for noun in nouns
            .into_iter()
            .chain(REPORT_NOUNS.iter().map(|(_, noun)| *noun))
        {
            wanted.insert(format!("noun.{noun}"));
            wanted.insert(format!("nouns.{noun}"));
        }
        let missing: Vec<_> = wanted
            .iter()
            .filter(|k| !ja.contains(*k) || !en.contains(*k))
            .collect();
        assert!(missing.is_empty(), "label keys missing: {missing:?}");
    }

    #[test]
    fn labels_render_in_either_language() {
        let rename = EditLabel::new("edit.rename_one").element(EditTarget::Bone, 18);
        assert_eq!(rename.render(Language::English), "Rename bone 18");
        assert_eq!(rename.render(Language::Japanese), "ボーン18の名前を変更");

        let set = EditLabel::new("edit.set_field_many")
            .count(1000, EditTarget::Vertex)
            .arg(
                "field",
                LabelArg::Field(FieldPath::whole().field("edge_scale")),
            );
        assert_eq!(
            set.render(Language::English),
            "Set edge_scale of 1,000 vertices"
        );
        assert_eq!(
            set.render(Language::Japanese),
            "頂点1,000個のエッジ倍率を変更"
        );

        // Each name of a deeper path in the language's words, positions as they are.
        let link = EditLabel::new("edit.set_field_one")
            .element(EditTarget::Bone, 3)
            .arg(
                "field",
                LabelArg::Field(FieldPath::whole().field("ik").at("links", 1).field("bone")),
            );
        assert!(
            link.render(Language::English).contains("ik.links[1].bone"),
            "{}",
            link.render(Language::English)
        );
        assert!(
            link.render(Language::Japanese)
                .contains("IKのリンク[1]のボーン"),
            "{}",
            link.render(Language::Japanese)
        );

        let mut report = EditReport::default();
        report.removed_with.insert("faces".into(), 12);
        report.removed_with.insert("morph offsets".into(), 1);
        report.cleared.insert("vertex weights".into(), 3);
        let delete = EditLabel::new("edit.delete")
            .count(1, EditTarget::Material)
            .with_summary_of(&report);
        assert_eq!(
            delete.render(Language::English),
            "Delete 1 material (and 12 faces, 1 morph offset; cleared 3 references)"
        );
        assert_eq!(
            delete.render(Language::Japanese),
            "材質1個を削除（面12個、モーフオフセット1個も削除、参照3個を解除）"
        );
        for label in [&rename, &set, &delete] {
            for key in label.keys() {
                assert!(Language::Japanese.get(&key).is_some(), "{key}");
                assert!(Language::English.get(&key).is_some(), "{key}");
            }
        }

        let script = EditLabel::new("edit.script").arg("count", LabelArg::Count(9, "step"));
        assert_eq!(script.render(Language::English), "Edit script (9 steps)");
        assert_eq!(
            script.render(Language::Japanese),
            "編集スクリプト（9ステップ）"
        );
        // The status bar's load notes: "1 note" and "3 notes", 件 in Japanese.
        let notes =
            |count| EditLabel::new("status.notes").arg("count", LabelArg::Count(count, "note"));
        assert_eq!(
            notes(1).render(Language::English),
            " (1 note, see the Info tab)"
        );
        assert_eq!(
            notes(3).render(Language::English),
            " (3 notes, see the Info tab)"
        );
        assert_eq!(
            notes(1).render(Language::Japanese),
            " (注意 1 件、情報タブ参照)"
        );
        for key in notes(2).keys() {
            assert!(Language::Japanese.get(&key).is_some(), "{key}");
            assert!(Language::English.get(&key).is_some(), "{key}");
        }
        let typed = EditLabel::text("Tidy up");
        assert_eq!(typed.render(Language::Japanese), "Tidy up");
        let fix = EditLabel::both("Normalize 3 normals", "法線3個を正規化");
        assert_eq!(fix.render(Language::Japanese), "法線3個を正規化");
        assert_eq!(fix.to_string(), "Normalize 3 normals");
    }
}
