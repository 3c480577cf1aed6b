//! The one path grammar for a place in a model: `bones[3].ik.links[1].bone`,
//! `morphs[7].offsets[2].offset`, `vertices[12].weight.bones[0]`, `header.index_sizes.vertex`.
//!
//! ```text
//! path    := head ( "." name | "[" index "]" )*
//! head    := "header" | "info" | list          (list: vertices, faces, textures, materials,
//!                                               bones, morphs, display_frames, rigid_bodies,
//!                                               joints, soft_bodies)
//! name    := [a-z_][a-z0-9_]*                   (a field of the JSON form)
//! index   := [0-9]+                             (a position in a list)
//! ```
//!
//! Field names are those of the `.json` form; `vertices[i].additional_uvs[c]` is additional UV
//! channel `c` of vertex `i`, and `textures[i].path` is texture `i` itself. An older dotted index
//! (`ik.links.0`) is read as `ik.links[0]` and always written with brackets.
//!
//! Validator issues carry a [`ModelPath`], reference sites print one, edit scripts name fields
//! with the element-relative [`FieldPath`], `pmx-studio get` resolves
//! them, and the UI selects the element a path names.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// The kinds of element a model holds (used by edits, validators, selections and the CLI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElementKind {
    Vertex,
    Face,
    Texture,
    Material,
    Bone,
    Morph,
    DisplayFrame,
    RigidBody,
    Joint,
    SoftBody,
}

impl ElementKind {
    pub const ALL: [ElementKind; 10] = [
        ElementKind::Vertex,
        ElementKind::Face,
        ElementKind::Texture,
        ElementKind::Material,
        ElementKind::Bone,
        ElementKind::Morph,
        ElementKind::DisplayFrame,
        ElementKind::RigidBody,
        ElementKind::Joint,
        ElementKind::SoftBody,
    ];

    /// The snake_case name used in paths, JSON and the CLI (`rigid_body`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ElementKind::Vertex => "vertex",
            ElementKind::Face => "face",
            ElementKind::Texture => "texture",
            ElementKind::Material => "material",
            ElementKind::Bone => "bone",
            ElementKind::Morph => "morph",
            ElementKind::DisplayFrame => "display_frame",
            ElementKind::RigidBody => "rigid_body",
            ElementKind::Joint => "joint",
            ElementKind::SoftBody => "soft_body",
        }
    }

    /// The field name of the element list in `Model` and in paths (`rigid_bodies`).
    #[must_use]
    pub fn list_name(self) -> &'static str {
        match self {
            ElementKind::Vertex => "vertices",
            ElementKind::Face => "faces",
            ElementKind::Texture => "textures",
            ElementKind::Material => "materials",
            ElementKind::Bone => "bones",
            ElementKind::Morph => "morphs",
            ElementKind::DisplayFrame => "display_frames",
            ElementKind::RigidBody => "rigid_bodies",
            ElementKind::Joint => "joints",
            ElementKind::SoftBody => "soft_bodies",
        }
    }
}

/// What an edit or a path targets: the header, the info block, or a kind of element .
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EditTarget {
    Header,
    Info,
    Vertex,
    Face,
    Texture,
    Material,
    Bone,
    Morph,
    DisplayFrame,
    RigidBody,
    Joint,
    SoftBody,
}

impl EditTarget {
    /// The snake_case name (`rigid_body`), as in JSON.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            EditTarget::Header => "header",
            EditTarget::Info => "info",
            EditTarget::Vertex => "vertex",
            EditTarget::Face => "face",
            EditTarget::Texture => "texture",
            EditTarget::Material => "material",
            EditTarget::Bone => "bone",
            EditTarget::Morph => "morph",
            EditTarget::DisplayFrame => "display_frame",
            EditTarget::RigidBody => "rigid_body",
            EditTarget::Joint => "joint",
            EditTarget::SoftBody => "soft_body",
        }
    }

    /// Header and info exist once; every other target is a list.
    #[must_use]
    pub fn is_single(self) -> bool {
        matches!(self, EditTarget::Header | EditTarget::Info)
    }

    #[must_use]
    pub fn element_kind(self) -> Option<ElementKind> {
        match self {
            EditTarget::Header | EditTarget::Info => None,
            EditTarget::Vertex => Some(ElementKind::Vertex),
            EditTarget::Face => Some(ElementKind::Face),
            EditTarget::Texture => Some(ElementKind::Texture),
            EditTarget::Material => Some(ElementKind::Material),
            EditTarget::Bone => Some(ElementKind::Bone),
            EditTarget::Morph => Some(ElementKind::Morph),
            EditTarget::DisplayFrame => Some(ElementKind::DisplayFrame),
            EditTarget::RigidBody => Some(ElementKind::RigidBody),
            EditTarget::Joint => Some(ElementKind::Joint),
            EditTarget::SoftBody => Some(ElementKind::SoftBody),
        }
    }
}

impl From<ElementKind> for EditTarget {
    fn from(kind: ElementKind) -> Self {
        match kind {
            ElementKind::Vertex => EditTarget::Vertex,
            ElementKind::Face => EditTarget::Face,
            ElementKind::Texture => EditTarget::Texture,
            ElementKind::Material => EditTarget::Material,
            ElementKind::Bone => EditTarget::Bone,
            ElementKind::Morph => EditTarget::Morph,
            ElementKind::DisplayFrame => EditTarget::DisplayFrame,
            ElementKind::RigidBody => EditTarget::RigidBody,
            ElementKind::Joint => EditTarget::Joint,
            ElementKind::SoftBody => EditTarget::SoftBody,
        }
    }
}

impl fmt::Display for EditTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One step of a path: a field by name or a position in a list.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Segment {
    Field(Cow<'static, str>),
    Index(usize),
}

impl Segment {
    /// The field name, if this is a field step.
    #[must_use]
    pub fn name(&self) -> Option<&str> {
        match self {
            Segment::Field(name) => Some(name),
            Segment::Index(_) => None,
        }
    }

    /// The position, if this is a list step.
    #[must_use]
    pub fn index(&self) -> Option<usize> {
        match self {
            Segment::Field(_) => None,
            Segment::Index(index) => Some(*index),
        }
    }

    pub(crate) fn heap_size(&self) -> usize {
        match self {
            Segment::Field(Cow::Owned(name)) => name.capacity(),
            Segment::Field(Cow::Borrowed(_)) | Segment::Index(_) => 0,
        }
    }
}

/// Why a path's text is not a path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a model path: {message} (at character {at})")]
pub struct PathSyntaxError {
    pub text: String,
    /// Character offset of the problem.
    pub at: usize,
    pub message: String,
}

/// Writes segments in the grammar's form (`ik.links[1].bone`); `first` says whether the first
/// field needs no leading dot.
pub(crate) fn write_segments(
    f: &mut fmt::Formatter<'_>,
    segments: &[Segment],
    mut first: bool,
) -> fmt::Result {
    for segment in segments {
        match segment {
            Segment::Field(name) if first => f.write_str(name)?,
            Segment::Field(name) => write!(f, ".{name}")?,
            Segment::Index(index) => write!(f, "[{index}]")?,
        }
        first = false;
    }
    Ok(())
}

/// Parses the segments of a path. The empty text is no segments. A `relative` path (inside an
/// element) may start with a position (`[2]`, or the older `2`).
pub(crate) fn parse_segments(text: &str, relative: bool) -> Result<Vec<Segment>, PathSyntaxError> {
    let error = |at: usize, message: &str| PathSyntaxError {
        text: text.to_owned(),
        at,
        message: message.to_owned(),
    };
    let bytes = text.as_bytes();
    let mut segments = Vec::new();
    let mut at = 0;
    let mut expect_name = true;
    while at < bytes.len() {
        let start = at;
        match bytes[at] {
            b'[' => {
                at += 1;
                let digits = at;
                while at < bytes.len() && bytes[at].is_ascii_digit() {
                    at += 1;
                }
                if digits == at {
                    return Err(error(digits, "expected a position after `[`"));
                }
                if bytes.get(at) != Some(&b']') {
                    return Err(error(at, "expected `]`"));
                }
                let index = text[digits..at]
                    .parse()
                    .map_err(|_| error(digits, "the position is too large"))?;
                segments.push(Segment::Index(index));
                at += 1;
                expect_name = false;
                continue;
            }
            b'.' if !segments.is_empty() => at += 1,
            b'.' => return Err(error(at, "a path does not start with `.`")),
            _ if expect_name && segments.is_empty() => {}
            _ => return Err(error(at, "expected `.` or `[`")),
        }
        let name_start = at;
        while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
            at += 1;
        }
        let name = &text[name_start..at];
        if name.is_empty() {
            return Err(error(name_start, "expected a field name or a position"));
        }
        if name.bytes().all(|b| b.is_ascii_digit()) {
            // The older dotted form of a position (`links.0`).
            if start == name_start && !relative {
                return Err(error(start, "a path starts with a name"));
            }
            let index = name
                .parse()
                .map_err(|_| error(name_start, "the position is too large"))?;
            segments.push(Segment::Index(index));
        } else if name.as_bytes()[0].is_ascii_digit() {
            return Err(error(
                name_start,
                "a field name does not start with a digit",
            ));
        } else {
            segments.push(Segment::Field(Cow::Owned(name.to_owned())));
        }
        expect_name = false;
    }
    Ok(segments)
}

/// A place in a model: an element list, an element, or a field of one, from the model's root.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModelPath {
    /// Starts with the head (`header`, `info` or a list name); for a list, usually its index.
    segments: Vec<Segment>,
}

/// What a path's head names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathHead {
    Header,
    Info,
    List(ElementKind),
}

impl PathHead {
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "header" => Some(PathHead::Header),
            "info" => Some(PathHead::Info),
            _ => ElementKind::ALL
                .into_iter()
                .find(|kind| kind.list_name() == name)
                .map(PathHead::List),
        }
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            PathHead::Header => "header",
            PathHead::Info => "info",
            PathHead::List(kind) => kind.list_name(),
        }
    }
}

impl ModelPath {
    /// The path of the header (`header`); its fields follow with [`ModelPath::field`].
    #[must_use]
    pub fn header() -> Self {
        Self::from_head(PathHead::Header)
    }

    /// The path of the info block (`info`).
    #[must_use]
    pub fn info() -> Self {
        Self::from_head(PathHead::Info)
    }

    /// The path of a whole element list (`bones`).
    #[must_use]
    pub fn list(kind: ElementKind) -> Self {
        Self::from_head(PathHead::List(kind))
    }

    /// The path of one element (`bones[3]`), the start of the paths of its fields:
    /// `ModelPath::element(ElementKind::Bone, 3).field("ik").at("links", 1).field("bone")` is
    /// `bones[3].ik.links[1].bone`.
    #[must_use]
    pub fn element(kind: ElementKind, index: usize) -> Self {
        Self::list(kind).index(index)
    }

    fn from_head(head: PathHead) -> Self {
        // Room for the usual depth (`bones[3].ik.links[1].bone`) without growing.
        let mut segments = Vec::with_capacity(6);
        segments.push(Segment::Field(Cow::Borrowed(head.name())));
        Self { segments }
    }

    /// This path with a field step added (`.name`).
    #[must_use]
    pub fn field(mut self, name: &'static str) -> Self {
        self.segments.push(Segment::Field(Cow::Borrowed(name)));
        self
    }

    /// This path with a list step added (`[index]`).
    #[must_use]
    pub fn index(mut self, index: usize) -> Self {
        self.segments.push(Segment::Index(index));
        self
    }

    /// This path with a list field and a position in it added (`.name[index]`).
    #[must_use]
    pub fn at(self, name: &'static str, index: usize) -> Self {
        self.field(name).index(index)
    }

    /// This path followed by an element-relative one.
    #[must_use]
    pub fn join(mut self, field: &FieldPath) -> Self {
        self.segments.extend_from_slice(field.segments());
        self
    }

    /// Parses a path, checking its grammar and its head (not whether the model has it: see
    /// [`crate::edit::resolve_path`]).
    pub fn parse(text: &str) -> Result<Self, PathSyntaxError> {
        let text = text.trim();
        let segments = parse_segments(text, false)?;
        let Some(Segment::Field(head)) = segments.first() else {
            return Err(PathSyntaxError {
                text: text.to_owned(),
                at: 0,
                message: "a path starts with header, info or an element list".to_owned(),
            });
        };
        if PathHead::parse(head).is_none() {
            return Err(PathSyntaxError {
                text: text.to_owned(),
                at: 0,
                message: format!(
                    "`{head}` is not part of a model (header, info, {})",
                    ElementKind::ALL.map(ElementKind::list_name).join(", ")
                ),
            });
        }
        Ok(Self { segments })
    }

    #[must_use]
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// What the path starts from.
    #[must_use]
    pub fn head(&self) -> PathHead {
        self.segments
            .first()
            .and_then(Segment::name)
            .and_then(PathHead::parse)
            .unwrap_or(PathHead::Header)
    }

    /// The element the path is in: `(Bone, 3)` for `bones[3].ik.links[1].bone`, `(Header, 0)`
    /// for `header.version`; `None` for a whole list (`bones`).
    #[must_use]
    pub fn target(&self) -> Option<(EditTarget, usize)> {
        match self.head() {
            PathHead::Header => Some((EditTarget::Header, 0)),
            PathHead::Info => Some((EditTarget::Info, 0)),
            PathHead::List(kind) => self
                .segments
                .get(1)
                .and_then(Segment::index)
                .map(|index| (EditTarget::from(kind), index)),
        }
    }

    /// The element kind and index, for paths inside a list's element.
    #[must_use]
    pub fn element_of(&self) -> Option<(ElementKind, usize)> {
        let (target, index) = self.target()?;
        Some((target.element_kind()?, index))
    }

    /// The path of the element the path is in (`bones[3]` for `bones[3].ik.links[1].bone`).
    #[must_use]
    pub fn element_path(&self) -> Option<Self> {
        let (kind, index) = self.element_of()?;
        Some(Self::element(kind, index))
    }

    /// The part after the element (`ik.links[1].bone`), as an edit names a field.
    #[must_use]
    pub fn field_path(&self) -> FieldPath {
        let skip = match self.head() {
            PathHead::Header | PathHead::Info => 1,
            PathHead::List(_) => 2,
        };
        FieldPath::from_segments(self.segments.get(skip..).unwrap_or(&[]).to_vec())
    }

    /// The path without its last step (`bones[3].ik` for `bones[3].ik.links`); the head alone
    /// has no parent.
    #[must_use]
    pub fn parent(&self) -> Option<Self> {
        (self.segments.len() > 1).then(|| Self {
            segments: self.segments[..self.segments.len() - 1].to_vec(),
        })
    }
}

impl fmt::Display for ModelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_segments(f, &self.segments, true)
    }
}

impl FromStr for ModelPath {
    type Err = PathSyntaxError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

/// In JSON a path is its text (`"bones[3].parent"`).
impl Serialize for ModelPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ModelPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A path equals the text of the same path (in either index form).
impl PartialEq<str> for ModelPath {
    fn eq(&self, other: &str) -> bool {
        ModelPath::parse(other).is_ok_and(|parsed| parsed == *self)
    }
}

impl PartialEq<&str> for ModelPath {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

/// A path inside an element, in the grammar of [`crate::path`]: `position`, `ik.links[0].bone`,
/// `weight.bones[1]`, `offsets[3].offset.x`. The empty path is the whole element. For vertices,
/// `additional_uvs[N]` reaches additional UV channel `N` of the vertex.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FieldPath {
    segments: Vec<Segment>,
}

impl FieldPath {
    /// Parses a field path (the older dotted positions, `links.0`, are read too).
    pub fn parse(text: &str) -> Result<Self, PathSyntaxError> {
        parse_segments(text.trim(), true).map(Self::from_segments)
    }

    #[must_use]
    pub fn from_segments(segments: Vec<Segment>) -> Self {
        Self { segments }
    }

    /// The whole element.
    #[must_use]
    pub fn whole() -> Self {
        Self::default()
    }

    #[must_use]
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    #[must_use]
    pub fn is_whole(&self) -> bool {
        self.segments.is_empty()
    }

    /// This path with a field step added.
    #[must_use]
    pub fn field(mut self, name: &'static str) -> Self {
        self.segments.push(Segment::Field(Cow::Borrowed(name)));
        self
    }

    /// This path with a list step added.
    #[must_use]
    pub fn index(mut self, index: usize) -> Self {
        self.segments.push(Segment::Index(index));
        self
    }

    /// This path with a list field and a position in it added (`name[index]`).
    #[must_use]
    pub fn at(self, name: &'static str, index: usize) -> Self {
        self.field(name).index(index)
    }

    pub(crate) fn heap_size(&self) -> usize {
        self.segments.capacity() * std::mem::size_of::<Segment>()
            + self.segments.iter().map(Segment::heap_size).sum::<usize>()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_segments(f, &self.segments, true)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn paths_read_and_write_one_form() {
        for text in [
            "bones[3].ik.links[1].bone",
            "morphs[7].offsets[2].value",
            "vertices[12].weight.bones[0]",
            "header.index_sizes.vertex",
            "info.name_ja",
            "faces[1][2]",
            "display_frames",
            "vertices[0].additional_uvs[1]",
        ] {
            let path = ModelPath::parse(text).expect(text);
            assert_eq!(path.to_string(), text);
        }
        // The older dotted index is read, and written with brackets.
        assert_eq!(
            ModelPath::parse("bones.3.ik.links.1.bone")
                .unwrap()
                .to_string(),
            "bones[3].ik.links[1].bone"
        );
    }

    #[test]
    fn paths_name_their_element_and_field() {
        let path = ModelPath::parse("bones[3].ik.links[1].bone").unwrap();
        assert_eq!(path.target(), Some((EditTarget::Bone, 3)));
        assert_eq!(path.field_path().to_string(), "ik.links[1].bone");
        assert_eq!(
            ModelPath::parse("header.version").unwrap().target(),
            Some((EditTarget::Header, 0))
        );
        assert_eq!(ModelPath::parse("materials").unwrap().target(), None);
        assert_eq!(
            ModelPath::element(ElementKind::Joint, 4)
                .field("body_a")
                .to_string(),
            "joints[4].body_a"
        );
        assert_eq!(
            ModelPath::parse("bones[3].ik").unwrap().parent().unwrap(),
            ModelPath::element(ElementKind::Bone, 3)
        );
    }

    #[test]
    fn built_paths_print_as_the_grammar_writes_them() {
        let link = ModelPath::element(ElementKind::Bone, 3)
            .field("ik")
            .at("links", 1)
            .field("bone");
        assert_eq!(link.to_string(), "bones[3].ik.links[1].bone");
        assert_eq!(link, ModelPath::parse("bones[3].ik.links[1].bone").unwrap());
        assert_eq!(link.element_of(), Some((ElementKind::Bone, 3)));
        assert_eq!(
            link.element_path(),
            Some(ModelPath::element(ElementKind::Bone, 3))
        );
        assert_eq!(
            ModelPath::header()
                .field("index_sizes")
                .field("vertex")
                .to_string(),
            "header.index_sizes.vertex"
        );
        assert_eq!(
            ModelPath::info().field("name_ja").to_string(),
            "info.name_ja"
        );
        assert_eq!(
            ModelPath::list(ElementKind::RigidBody).to_string(),
            "rigid_bodies"
        );
        assert_eq!(ModelPath::header().element_path(), None);
        assert_eq!(
            ModelPath::element(ElementKind::Face, 1)
                .index(2)
                .to_string(),
            "faces[1][2]"
        );
        assert_eq!(
            FieldPath::whole()
                .at("offsets", 2)
                .field("offset")
                .to_string(),
            "offsets[2].offset"
        );
    }

    #[test]
    fn bad_paths_say_where() {
        for (text, at) in [
            ("bone[3]", 0),
            ("bones[", 6),
            ("bones[x]", 6),
            ("bones[3", 7),
            ("bones[3]..parent", 9),
            (".bones", 0),
            ("bones[3]parent", 8),
            ("", 0),
            ("bones[3].9a", 9),
        ] {
            let error = ModelPath::parse(text).expect_err(text);
            assert_eq!(error.at, at, "{text}: {error}");
        }
    }

    #[test]
    fn paths_are_json_strings() {
        let path = ModelPath::parse("joints[0].body_b").unwrap();
        let json = serde_json::to_string(&path).unwrap();
        assert_eq!(json, "\"joints[0].body_b\"");
        let back: ModelPath = serde_json::from_str(&json).unwrap();
        assert_eq!(back, path);
        assert!(serde_json::from_str::<ModelPath>("\"nope[1]\"").is_err());
    }
}
