//! What a PMD file holds that neither the model nor PMX has a place for, kept on the model so
//! that PMD → model → PMD (the editor's open and save, `convert a.pmd b.pmd`) gives the same
//! bytes.
//!
//! Today that is the bytes of fixed-size text fields beyond their text: padding other than the
//! PMD writer's default, and texts that fill their field with no terminator. Each kept field is
//! keyed by its place in the PMD file (section and element position) and holds the text it was
//! read with; the PMD writer uses it only while the text it writes into that place is still that
//! text, so a renamed, moved or deleted element simply gets the default padding. Edits therefore
//! never need to update this record, and undo cannot make it disagree with the model.
//!
//! The PMX writer ignores it (PMX has no such bytes), the validator never looks at it, and the
//! JSON form leaves it out when it is empty (every model not read from such a PMD file).

use super::text::hex_bytes;
use serde::{Deserialize, Serialize};

/// A fixed-size text field of a PMD file. Indices are positions in the PMD file's own lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PmdTextSlot {
    /// The header's model name.
    Name,
    /// The header's comment.
    Comment,
    /// The texture field of material `n`.
    MaterialTexture(usize),
    BoneName(usize),
    /// The name of skin `n` (0 is the base skin).
    SkinName(usize),
    BoneFrameName(usize),
    EnglishName,
    EnglishComment,
    EnglishBoneName(usize),
    /// The English name of skin `n + 1` (the base skin has none).
    EnglishSkinName(usize),
    EnglishBoneFrameName(usize),
    /// Entry `n` of the toon texture list.
    ToonName(usize),
    RigidBodyName(usize),
    JointName(usize),
}

/// A text field as read, where the PMD writer would not give its bytes back from the text alone.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PmdTextField {
    pub slot: PmdTextSlot,
    /// The text (Shift-JIS, without terminator) the field held.
    #[serde(with = "hex_bytes")]
    pub text: Vec<u8>,
    /// The bytes after the text: the NUL and what follows it (empty when the text fills the
    /// field).
    #[serde(with = "hex_bytes")]
    pub padding: Vec<u8>,
}

/// The PMD-only details of a model read from a PMD file.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PmdExtras {
    /// In file order, at most one per slot.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub text_fields: Vec<PmdTextField>,
}

impl PmdExtras {
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.text_fields.is_empty()
    }
}
