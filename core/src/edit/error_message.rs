//! [`EditError`] as a [`Message`]: a key per variant (`edit.error.*`) with typed arguments, so
//! the editor and the command line say it in the user's language. The English templates are
//! the `#[error]` texts, word for word; the kinds, operations and reasons the constructors
//! name as English strings become words of the resources here (one table each), so the enum
//! and its many constructors stay as they are.

use super::EditError;
use crate::i18n::{Language, Message, MessageArg};
use crate::pose::PoseError;

impl EditError {
    /// The error as a message key with typed arguments (nested errors nested).
    #[must_use]
    pub fn to_message(&self) -> Message {
        match self {
            EditError::IndexOutOfRange { kind, index, len } => {
                Message::new("edit.error.index_out_of_range")
                    .arg("kind", kind_word(kind))
                    .arg("index", *index)
                    .arg("len", *len)
            }
            EditError::NothingSelected { kind } => {
                Message::new("edit.error.nothing_selected").arg("kind", kind_word(kind))
            }
            EditError::BadPath { target, message } => Message::new("edit.error.bad_path")
                .arg("target", kind_word(target.name()))
                .arg("message", message.as_str()),
            EditError::NoSuchField {
                target,
                index,
                field,
            } => Message::new("edit.error.no_such_field")
                .arg("target", kind_word(target.name()))
                .arg("index", *index)
                .arg("field", field.as_str()),
            EditError::FieldTypeMismatch {
                target,
                index,
                field,
            } => Message::new("edit.error.field_type_mismatch")
                .arg("target", kind_word(target.name()))
                .arg("index", *index)
                .arg("field", field.as_str()),
            EditError::InvalidValue {
                target,
                field,
                message,
            } => Message::new("edit.error.invalid_value")
                .arg("target", kind_word(target.name()))
                .arg("field", field.as_str())
                .arg("message", message.as_str()),
            EditError::ValueCount { values, indices } => Message::new("edit.error.value_count")
                .arg("values", *values)
                .arg("indices", *indices),
            EditError::InvalidItem {
                kind,
                item,
                message,
            } => Message::new("edit.error.invalid_item")
                .arg("kind", kind_word(kind))
                .arg("item", *item)
                .arg("message", message.as_str()),
            EditError::Unsupported { op, target } => Message::new("edit.error.unsupported")
                .arg("op", word(op, OPERATIONS))
                .arg("target", kind_word(target.name())),
            EditError::SpecialFrame { index } => {
                Message::new("edit.error.special_frame").arg("index", *index)
            }
            EditError::SortKey { kind, key } => Message::new("edit.error.sort_key")
                .arg("kind", kind_word(kind))
                .arg("key", word(key, SORT_KEYS)),
            EditError::TooMany { kind, max } => Message::new("edit.error.too_many")
                .arg("max", *max)
                .arg("kind", kind_word(kind)),
            EditError::Remap(error) => error.to_message(),
            EditError::File(error) => error.to_message(),
            EditError::Pose(error) => error.to_message(),
            EditError::FacePair {
                first,
                second,
                reason,
            } => Message::new("edit.error.face_pair")
                .arg("first", *first)
                .arg("second", *second)
                .arg("reason", word(reason, FACE_PAIR_REASONS)),
            EditError::NoSuchName { kind, name } => Message::new("edit.error.no_such_name")
                .arg("kind", kind_word(kind))
                .arg("name", name.as_str()),
            EditError::VertexCountMismatch { path, this, other } => {
                Message::new("edit.error.vertex_count_mismatch")
                    .arg("path", path.display().to_string())
                    .arg("this", *this)
                    .arg("other", *other)
            }
            EditError::MorphKindUnsupported {
                tool,
                morph,
                kind,
                supported,
            } => Message::new("edit.error.morph_kind_unsupported")
                .arg("tool", word(tool, MORPH_TOOLS))
                .arg("supported", word(supported, MORPH_KINDS))
                .arg("morph", morph.as_str())
                .arg("kind", word(kind, MORPH_KINDS)),
            EditError::NoPose => Message::new("edit.error.no_pose"),
            EditError::NoOffsets { threshold } => {
                Message::new("edit.error.no_offsets").arg("threshold", *threshold)
            }
            EditError::NoChange => Message::new("edit.error.no_change"),
            EditError::Step { step, op, source } => Message::new("edit.error.step")
                .arg("step", *step)
                .arg("op", *op)
                .arg("source", source.to_message()),
        }
    }

    /// The error in `lang`.
    #[must_use]
    pub fn render(&self, lang: Language) -> String {
        self.to_message().render(lang)
    }
}

impl PoseError {
    /// The error as a message key with typed arguments.
    #[must_use]
    pub fn to_message(&self) -> Message {
        match self {
            PoseError::CountMismatch {
                what,
                kind,
                expected,
                found,
            } => Message::new("edit.error.pose_count_mismatch")
                .arg("what", word(what, POSE_PARTS))
                .arg("found", *found)
                .arg("kind", kind_word(kind))
                .arg("expected", *expected),
        }
    }
}

/// Element kinds as the constructors name them (`ElementKind::name`, `list_name`, and a few
/// phrases), with the noun of the resources they stand for.
const KINDS: &[(&str, &str)] = &[
    ("vertex", "noun.vertex"),
    ("face", "noun.face"),
    ("texture", "noun.texture"),
    ("material", "noun.material"),
    ("bone", "noun.bone"),
    ("morph", "noun.morph"),
    ("display_frame", "noun.display_frame"),
    ("rigid_body", "noun.rigid_body"),
    ("joint", "noun.joint"),
    ("soft_body", "noun.soft_body"),
    ("header", "noun.header"),
    ("info", "noun.info"),
    ("vertices", "nouns.vertex"),
    ("faces", "nouns.face"),
    ("textures", "nouns.texture"),
    ("materials", "nouns.material"),
    ("bones", "nouns.bone"),
    ("morphs", "nouns.morph"),
    ("display_frames", "nouns.display_frame"),
    ("rigid_bodies", "nouns.rigid_body"),
    ("rigid bodies", "nouns.rigid_body"),
    ("joints", "nouns.joint"),
    ("soft_bodies", "nouns.soft_body"),
    ("additional UV channels", "nouns.uv_channel"),
    ("element", "edit.error.word_element"),
    ("op", "edit.error.word_op"),
    ("move, rotation or scale", "edit.error.word_transform_kind"),
];

/// `EditError::Unsupported`'s operations.
const OPERATIONS: &[(&str, &str)] = &[
    ("transform", "edit.error.op_transform"),
    (
        "transform into a morph",
        "edit.error.op_transform_into_morph",
    ),
    (
        "transform into a morph other than a vertex morph",
        "edit.error.op_transform_into_non_vertex_morph",
    ),
    ("transform of UVs", "edit.error.op_transform_uvs"),
    (
        "remove_unused_vertices",
        "edit.error.op_remove_unused_vertices",
    ),
];

/// What `PoseError::CountMismatch` found at odds with the evaluator.
const POSE_PARTS: &[(&str, &str)] = &[
    ("the pose", "edit.error.word_the_pose"),
    ("the model", "edit.error.word_the_model"),
];

/// `SortKey::name`.
const SORT_KEYS: &[(&str, &str)] = &[
    ("name", "edit.sort_by_name"),
    ("hierarchy", "edit.sort_by_hierarchy"),
    ("panel", "edit.sort_by_panel"),
    ("transparency", "edit.sort_by_transparency"),
];

/// Why `Edit::swap_face_diagonal` refuses two faces.
const FACE_PAIR_REASONS: &[(&str, &str)] = &[
    ("are the same face", "edit.error.face_pair_same"),
    (
        "belong to different materials",
        "edit.error.face_pair_materials",
    ),
    ("share no edge", "edit.error.face_pair_no_edge"),
];

/// The morph tools that refuse a kind of morph.
const MORPH_TOOLS: &[(&str, &str)] = &[
    ("split_morph", "edit.error.tool_split_morph"),
    ("mirror_morph", "edit.error.tool_mirror_morph"),
];

/// Morph kinds as the morph tools name them, one kind or the kinds a tool takes.
const MORPH_KINDS: &[(&str, &str)] = &[
    ("group", "edit.error.morph_kind_group"),
    ("vertex", "edit.error.morph_kind_vertex"),
    ("bone", "edit.error.morph_kind_bone"),
    ("UV", "edit.error.morph_kind_uv"),
    ("additional UV1", "edit.error.morph_kind_additional_uv1"),
    ("additional UV2", "edit.error.morph_kind_additional_uv2"),
    ("additional UV3", "edit.error.morph_kind_additional_uv3"),
    ("additional UV4", "edit.error.morph_kind_additional_uv4"),
    ("material", "edit.error.morph_kind_material"),
    ("flip", "edit.error.morph_kind_flip"),
    ("impulse", "edit.error.morph_kind_impulse"),
    ("vertex and UV", "edit.error.morph_kind_vertex_and_uv"),
];

fn kind_word(kind: &str) -> MessageArg {
    word(kind, KINDS)
}

/// The word of the resources that `english` stands for in `table`; a phrase the table lacks
/// (a constructor added later) shows as it is rather than not at all.
fn word(english: &str, table: &[(&str, &'static str)]) -> MessageArg {
    table
        .iter()
        .find(|(phrase, _)| *phrase == english)
        .map_or_else(
            || MessageArg::Text(english.to_owned()),
            |(_, key)| MessageArg::Key(key),
        )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)] // a failed expectation is the test failing

    use super::*;
    use crate::edit::EditTarget;
    use crate::formats::error::FileError;
    use crate::model::refs::RemapError;

    /// One error of every variant (and of every variant of the errors it wraps). Kinds are
    /// one-word ones, whose words in English are the constructors' strings (`rigid_body` is
    /// "rigid body" in the rendered English).
    fn one_of_each() -> Vec<EditError> {
        let step_source = EditError::NothingSelected { kind: "vertex" };
        vec![
            EditError::IndexOutOfRange {
                kind: "bone",
                index: 12,
                len: 3,
            },
            EditError::NothingSelected { kind: "op" },
            EditError::NothingSelected {
                kind: "move, rotation or scale",
            },
            EditError::BadPath {
                target: EditTarget::Bone,
                message: "パス".to_owned(),
            },
            EditError::NoSuchField {
                target: EditTarget::Material,
                index: 2,
                field: "x".to_owned(),
            },
            EditError::FieldTypeMismatch {
                target: EditTarget::Morph,
                index: 4,
                field: "x".to_owned(),
            },
            EditError::InvalidValue {
                target: EditTarget::Vertex,
                field: "x".to_owned(),
                message: "値".to_owned(),
            },
            EditError::ValueCount {
                values: 2,
                indices: 5,
            },
            EditError::InvalidItem {
                kind: "material",
                item: 1,
                message: "値".to_owned(),
            },
            EditError::Unsupported {
                op: "transform of UVs",
                target: EditTarget::Face,
            },
            EditError::SpecialFrame { index: 0 },
            EditError::SortKey {
                kind: "materials",
                key: "hierarchy",
            },
            EditError::TooMany {
                kind: "faces",
                max: 100,
            },
            EditError::Remap(RemapError::OutOfRange { index: 9, len: 2 }),
            EditError::Remap(RemapError::NotInjective { new_index: 1 }),
            EditError::Remap(RemapError::WrongLength { given: 1, len: 2 }),
            EditError::Remap(RemapError::TooLarge),
            EditError::from(FileError::UnknownFormat {
                path: "a.xyz".into(),
            }),
            EditError::Pose(PoseError::CountMismatch {
                what: "the pose",
                kind: "bones",
                expected: 3,
                found: 4,
            }),
            EditError::FacePair {
                first: 1,
                second: 2,
                reason: "share no edge",
            },
            EditError::NoSuchName {
                kind: "morph",
                name: "笑い".to_owned(),
            },
            EditError::VertexCountMismatch {
                path: "b.pmx".into(),
                this: 8,
                other: 9,
            },
            EditError::MorphKindUnsupported {
                tool: "split_morph",
                morph: "笑い".to_owned(),
                kind: "bone",
                supported: "vertex and UV",
            },
            EditError::NoPose,
            EditError::NoOffsets { threshold: 0.5 },
            EditError::NoChange,
            EditError::Step {
                step: 3,
                op: "delete",
                source: Box::new(step_source),
            },
        ]
    }

    #[test]
    fn english_is_the_display_text() {
        for error in one_of_each() {
            assert_eq!(error.render(Language::English), error.to_string());
        }
    }

    #[test]
    fn every_variant_has_its_japanese() {
        // Words that stay in Latin letters in Japanese: PmxEditor's terms, the file names
        // given, and the step's op (a name of the edit script); file extensions too.
        const LATIN_WORDS: &[&str] = &["UV", "VPD", "Root", "pmx", "xyz", "delete"];
        for error in one_of_each() {
            let message = error.to_message();
            assert!(message.is_translated(), "{error}");
            let japanese = error.render(Language::Japanese);
            let english_word = japanese
                .split(|c: char| !c.is_ascii_alphabetic())
                .find(|word| {
                    word.len() > 1
                        && !LATIN_WORDS.contains(word)
                        && !japanese.contains(&format!(".{word}"))
                });
            assert_eq!(english_word, None, "{error} in Japanese: {japanese}");
            assert!(
                !japanese.contains('{'),
                "{error} leaves a placeholder: {japanese}"
            );
        }
    }

    #[test]
    fn every_phrase_of_the_tables_has_its_words() {
        for table in [
            KINDS,
            OPERATIONS,
            SORT_KEYS,
            FACE_PAIR_REASONS,
            MORPH_TOOLS,
            MORPH_KINDS,
            POSE_PARTS,
        ] {
            for (_, key) in table {
                assert!(Language::Japanese.get(key).is_some(), "{key}");
                assert!(Language::English.get(key).is_some(), "{key}");
            }
        }
    }
}
