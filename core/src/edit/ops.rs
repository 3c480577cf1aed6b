//! Edits as JSON: the contract of `pmx-studio edit --script`, and the way validators and plugins
//! express fixes (`Vec<EditOp>`, committed as one undo step with [`ops_to_edit`]).

use super::elements::Elements;
use super::merge::MergeOptions;
use super::structure::SortKey;
use super::{Edit, EditError, EditLabel, EditTarget, LabelArg, Sequence, UvChannel};
use crate::formats::{self, FileError, LoadOptions};
use crate::model::*;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One edit in JSON form: `{"op": "delete", "kind": "bone", "indices": [5, 6]}`.
/// See README.md, "Edit scripts", for every op.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum EditOp {
    /// Sets `field` (a dotted path into the element's JSON form; empty: the whole element) of
    /// the elements at `indices` to `value`, or to `values` (one per index).
    Set {
        kind: EditTarget,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        indices: Vec<usize>,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        field: String,
        #[serde(
            default,
            deserialize_with = "present_value",
            skip_serializing_if = "Option::is_none"
        )]
        value: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        values: Option<Vec<Value>>,
    },
    /// Inserts `items` (elements in JSON form) at `at` (default: the end). Faces may name the
    /// `material` whose range they join; materials may come with their `faces`.
    Insert {
        kind: ElementKind,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<usize>,
        items: Vec<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        material: Option<usize>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        faces: Option<Vec<Vec<Face>>>,
    },
    Duplicate {
        kind: ElementKind,
        indices: Vec<usize>,
    },
    /// Deletes elements; for materials, `remove_unused_vertices` also deletes the vertices no
    /// remaining face uses.
    Delete {
        kind: ElementKind,
        indices: Vec<usize>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        remove_unused_vertices: bool,
    },
    /// Moves elements `to` an index, or `by` places (negative: up).
    Move {
        kind: ElementKind,
        indices: Vec<usize>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<usize>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<i64>,
    },
    Sort {
        kind: ElementKind,
        by: SortKey,
    },
    /// Moves, turns and scales vertices, bones, rigid bodies or joints as the 3D view's
    /// numeric row does: scaled (`[x, y, z]` or one number) and turned (`[x, y, z]` degrees,
    /// MikuMikuDance's Y-X-Z order) about `pivot` (default: the elements' centre), then moved
    /// (`[x, y, z]`). Normals, SDEF points, morph offsets, tails, axes and rotations follow (see
    /// [`Edit::transform`]).
    ///
    /// With `target` `"uv"` or `"additional_uv[N]"` (N 1 to 4; vertices only) the vertices' UVs
    /// move instead, as the UV pane does ([`Edit::transform_uv`]): `scale` (`[u, v]` or one
    /// number), then `rotate` (one number of degrees, counter-clockwise as the texture is seen
    /// upright, V downward: +90° about (0.5, 0.5) takes (1, 0.5) to (0.5, 0)), both about
    /// `pivot` (`[u, v]`, default: the UVs' centre), then `move` (`[u, v]`). An additional
    /// channel's z and w are kept. `target` absent or `"position"` moves positions.
    Transform {
        kind: EditTarget,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<TransformTarget>,
        indices: Vec<usize>,
        #[serde(default, rename = "move", skip_serializing_if = "Option::is_none")]
        translate: Option<TransformValue>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rotate: Option<TransformValue>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scale: Option<TransformValue>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pivot: Option<TransformValue>,
        /// Morph edit mode: the vertices' change goes into this morph's offsets (index or
        /// name) instead of the base mesh or UVs, the vertices taken where they are drawn with
        /// the morph at `morph_value` (default 1); the default pivot is their centre as drawn.
        /// A vertex morph for positions, a UV morph of the target channel's kind for UVs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        morph: Option<super::MorphRef>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        morph_value: Option<f32>,
    },
    /// Appends another model file.
    Merge {
        path: PathBuf,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        match_bones_by_name: bool,
    },
    /// One weight brush step (the 3D view's ウェイト描画): see [`super::PaintWeights`].
    PaintWeights(super::PaintWeights),
    /// A vertex morph from another model file of the same mesh: see
    /// [`super::MorphFromModel`].
    MorphFromModel(super::MorphFromModel),
    /// A vertex morph from a pose (a VPD, or morphs and bones inline): see
    /// [`super::MorphFromPose`].
    MorphFromPose(super::MorphFromPose),
    /// A morph split into its model-left and model-right halves: see [`super::SplitMorph`].
    SplitMorph(super::SplitMorph),
    /// A mirrored copy of a vertex morph, or the morph made symmetric: see
    /// [`super::MirrorMorph`].
    MirrorMorph(super::MirrorMorph),
    /// A new group morph of the given morphs and ratios: see [`super::GroupMorph`].
    GroupMorphFromSelection(super::GroupMorph),
    /// 面の反転: the faces at `indices` turned over (winding reversed): see
    /// [`Edit::flip_faces`].
    FlipFaces {
        indices: Vec<usize>,
    },
    /// 面対角線の入れ替え: the two `faces` (triangles of one material sharing an edge) split
    /// along their quad's other diagonal: see [`Edit::swap_face_diagonal`].
    SwapFaceDiagonal {
        faces: [usize; 2],
    },
    /// Several ops as one named step.
    Batch {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
        ops: Vec<EditOp>,
    },
}

/// What a `transform` op of vertices moves: their positions (`"position"`, the default) or
/// the UVs of a channel (`"uv"`, `"additional_uv[N]"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum TransformTarget {
    Position,
    Uv(UvChannel),
}

impl std::fmt::Display for TransformTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransformTarget::Position => f.write_str("position"),
            TransformTarget::Uv(channel) => channel.fmt(f),
        }
    }
}

impl TryFrom<String> for TransformTarget {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        if text == "position" {
            return Ok(TransformTarget::Position);
        }
        text.parse().map(TransformTarget::Uv).map_err(|_| {
            format!(
                "unknown transform target \"{text}\" (give \"position\", \"uv\" or \
                 \"additional_uv[1]\" to \"additional_uv[4]\")"
            )
        })
    }
}

impl From<TransformTarget> for String {
    fn from(target: TransformTarget) -> Self {
        target.to_string()
    }
}

/// A part of a `transform` op: one number (a UV turn's degrees, a uniform scale), `[u, v]` (UV
/// parts) or `[x, y, z]` (position parts). Which shapes a part takes depends on the op's
/// target; the op's edit refuses the others, naming the part.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TransformValue {
    One(f32),
    Two([f32; 2]),
    Three([f32; 3]),
}

impl From<f32> for TransformValue {
    fn from(value: f32) -> Self {
        TransformValue::One(value)
    }
}

impl From<[f32; 2]> for TransformValue {
    fn from(values: [f32; 2]) -> Self {
        TransformValue::Two(values)
    }
}

impl From<[f32; 3]> for TransformValue {
    fn from(values: [f32; 3]) -> Self {
        TransformValue::Three(values)
    }
}

impl<'de> Deserialize<'de> for TransformValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Numbers;
        impl<'de> serde::de::Visitor<'de> for Numbers {
            type Value = TransformValue;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number, or a list of 2 ([u, v]) or 3 ([x, y, z]) numbers")
            }

            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(TransformValue::One(v as f32))
            }

            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(TransformValue::One(v as f32))
            }

            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(TransformValue::One(v as f32))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut numbers = Vec::with_capacity(3);
                while let Some(number) = seq.next_element::<f32>()? {
                    if numbers.len() == 3 {
                        return Err(serde::de::Error::invalid_length(4, &self));
                    }
                    numbers.push(number);
                }
                match numbers[..] {
                    [u, v] => Ok(TransformValue::Two([u, v])),
                    [x, y, z] => Ok(TransformValue::Three([x, y, z])),
                    _ => Err(serde::de::Error::invalid_length(numbers.len(), &self)),
                }
            }
        }
        deserializer.deserialize_any(Numbers)
    }
}

impl TransformValue {
    /// The value as `[x, y, z]`: a position move, turn or pivot.
    fn three(self) -> Option<glam::Vec3> {
        match self {
            TransformValue::Three(values) => Some(glam::Vec3::from_array(values)),
            _ => None,
        }
    }

    /// The value as `[u, v]`: a UV move or pivot.
    fn two(self) -> Option<glam::Vec2> {
        match self {
            TransformValue::Two(values) => Some(glam::Vec2::from_array(values)),
            _ => None,
        }
    }

    /// The value as one number: a UV turn.
    fn one(self) -> Option<f32> {
        match self {
            TransformValue::One(value) => Some(value),
            _ => None,
        }
    }

    /// A scale of positions: one number for every axis, or `[x, y, z]`.
    fn scale3(self) -> Option<glam::Vec3> {
        match self {
            TransformValue::One(factor) => Some(glam::Vec3::splat(factor)),
            other => other.three(),
        }
    }

    /// A scale of UVs: one number for both axes, or `[u, v]`.
    fn scale2(self) -> Option<glam::Vec2> {
        match self {
            TransformValue::One(factor) => Some(glam::Vec2::splat(factor)),
            other => other.two(),
        }
    }
}

/// A present `"value": null` is `Some(Null)` (set to none), an absent one `None`.
fn present_value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl EditOp {
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            EditOp::Set { .. } => "set",
            EditOp::Insert { .. } => "insert",
            EditOp::Duplicate { .. } => "duplicate",
            EditOp::Delete { .. } => "delete",
            EditOp::Move { .. } => "move",
            EditOp::Sort { .. } => "sort",
            EditOp::Transform { .. } => "transform",
            EditOp::Merge { .. } => "merge",
            EditOp::PaintWeights(_) => "paint_weights",
            EditOp::MorphFromModel(_) => "morph_from_model",
            EditOp::MorphFromPose(_) => "morph_from_pose",
            EditOp::SplitMorph(_) => "split_morph",
            EditOp::MirrorMorph(_) => "mirror_morph",
            EditOp::GroupMorphFromSelection(_) => "group_morph_from_selection",
            EditOp::FlipFaces { .. } => "flip_faces",
            EditOp::SwapFaceDiagonal { .. } => "swap_face_diagonal",
            EditOp::Batch { .. } => "batch",
        }
    }
}

/// The edit script version this build reads and writes.
pub const EDIT_SCRIPT_VERSION: u64 = 1;

/// An edit script file: `{"version": 1, "label": "...", "ops": [...]}`. A bare list of ops, and an
/// object without `version`, are version 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EditScript {
    #[serde(default = "script_version")]
    pub version: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub ops: Vec<EditOp>,
}

fn script_version() -> u64 {
    EDIT_SCRIPT_VERSION
}

/// Why an edit script was not read.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error(
        "edit script version {found} is not supported: this pmx-studio reads version \
         {EDIT_SCRIPT_VERSION} (a newer pmx-studio may read it)"
    )]
    UnsupportedVersion { found: String },
    #[error("a script is a list of ops or an object with \"ops\", not {found}")]
    NotAScript { found: &'static str },
}

impl EditScript {
    /// A version-1 script of `ops`.
    #[must_use]
    pub fn new(label: Option<String>, ops: Vec<EditOp>) -> Self {
        Self {
            version: EDIT_SCRIPT_VERSION,
            label,
            ops,
        }
    }

    /// Parses either form of a script. The version is checked before the ops, so a script of a
    /// later version is refused by its version, not by an op this build does not know; the ops
    /// are then read from the text again so that their errors name a line and column.
    pub fn parse(text: &str) -> Result<Self, ScriptError> {
        let value: Value = serde_json::from_str(text)?;
        match &value {
            Value::Array(_) => Ok(Self::new(None, serde_json::from_str(text)?)),
            Value::Object(fields) => {
                match fields.get("version") {
                    None => {}
                    Some(Value::Number(n)) if n.as_u64() == Some(EDIT_SCRIPT_VERSION) => {}
                    Some(other) => {
                        return Err(ScriptError::UnsupportedVersion {
                            found: other.to_string(),
                        });
                    }
                }
                Ok(serde_json::from_str(text)?)
            }
            Value::Null => Err(ScriptError::NotAScript { found: "null" }),
            Value::Bool(_) => Err(ScriptError::NotAScript { found: "a boolean" }),
            Value::Number(_) => Err(ScriptError::NotAScript { found: "a number" }),
            Value::String(_) => Err(ScriptError::NotAScript { found: "a string" }),
        }
    }
}

fn parse_items<T: serde::de::DeserializeOwned>(
    kind: ElementKind,
    items: &[Value],
) -> Result<Vec<T>, EditError> {
    items
        .iter()
        .enumerate()
        .map(|(item, value)| {
            T::deserialize(value).map_err(|e| EditError::InvalidItem {
                kind: kind.name(),
                item,
                message: e.to_string(),
            })
        })
        .collect()
}

fn insert_op(
    model: &Model,
    kind: ElementKind,
    at: Option<usize>,
    items: &[Value],
    material: Option<usize>,
    faces: Option<&Vec<Vec<Face>>>,
) -> Result<Edit, EditError> {
    let at = at.unwrap_or_else(|| model.count(kind));
    let elements = match kind {
        ElementKind::Vertex => Elements::Vertices {
            vertices: parse_items(kind, items)?,
            additional_uvs: Vec::new(),
        },
        ElementKind::Face => {
            let faces: Vec<Face> = parse_items(kind, items)?;
            return match material {
                Some(material) => Edit::insert_faces(model, material, faces),
                None => Edit::insert(model, at, Elements::Faces(faces)),
            };
        }
        ElementKind::Texture => Elements::Textures(parse_items(kind, items)?),
        ElementKind::Material => {
            let materials: Vec<Material> = parse_items(kind, items)?;
            return match faces {
                Some(faces) => Edit::insert_materials(model, at, materials, faces.clone()),
                None => Edit::insert(model, at, Elements::Materials(materials)),
            };
        }
        ElementKind::Bone => Elements::Bones(parse_items(kind, items)?),
        ElementKind::Morph => Elements::Morphs(parse_items(kind, items)?),
        ElementKind::DisplayFrame => Elements::DisplayFrames(parse_items(kind, items)?),
        ElementKind::RigidBody => Elements::RigidBodies(parse_items(kind, items)?),
        ElementKind::Joint => Elements::Joints(parse_items(kind, items)?),
        ElementKind::SoftBody => Elements::SoftBodies(parse_items(kind, items)?),
    };
    Edit::insert(model, at, elements)
}

impl Edit {
    /// Deletes materials, their faces, and the vertices no remaining face uses (with what
    /// depends on those vertices), as one step. `model` is unchanged on return.
    pub fn delete_materials_and_vertices(
        model: &mut Model,
        indices: &[usize],
    ) -> Result<Edit, EditError> {
        let deleted_edit = Edit::delete(model, ElementKind::Material, indices)?;
        let ranges = super::elements::material_face_ranges(model);
        let mut deleted = vec![false; model.materials.len()];
        for &i in indices {
            if let Some(slot) = deleted.get_mut(i) {
                *slot = true;
            }
        }
        let mut in_deleted = vec![false; model.vertices.len()];
        let mut in_kept = vec![false; model.vertices.len()];
        let mut material = 0;
        for (f, face) in model.faces.iter().enumerate() {
            while material < ranges.len() && ranges[material].end <= f {
                material += 1;
            }
            let gone =
                material < ranges.len() && deleted[material] && ranges[material].contains(&f);
            let marks = if gone { &mut in_deleted } else { &mut in_kept };
            for v in face {
                if let Some(slot) = marks.get_mut(v.get()) {
                    *slot = true;
                }
            }
        }
        let unused: Vec<usize> = (0..model.vertices.len())
            .filter(|&v| in_deleted[v] && !in_kept[v])
            .collect();
        let label = EditLabel::new("edit.and_unused_vertices")
            .arg(
                "label",
                LabelArg::Label(Box::new(deleted_edit.edit_label().clone())),
            )
            .count(unused.len(), EditTarget::Vertex);
        let mut sequence = Sequence::new(model);
        sequence.push(deleted_edit);
        if !unused.is_empty() {
            let edit = Edit::delete(sequence.model(), ElementKind::Vertex, &unused)?;
            sequence.push(edit);
        }
        Ok(sequence.finish(label))
    }
}

/// Builds the edit of one op on `model` (unchanged on return).
fn op_to_edit(model: &mut Model, op: &EditOp, base_dir: Option<&Path>) -> Result<Edit, EditError> {
    match op {
        EditOp::Set {
            kind,
            indices,
            field,
            value,
            values,
        } => {
            let values: Vec<Value> = match (value, values) {
                (Some(value), None) => vec![value.clone()],
                (None, Some(values)) => values.clone(),
                (given_value, given_values) => {
                    return Err(EditError::ValueCount {
                        values: usize::from(given_value.is_some())
                            + given_values.as_ref().map_or(0, Vec::len),
                        indices: indices.len(),
                    });
                }
            };
            Edit::set_json(model, *kind, indices, field, &values)
        }
        EditOp::Insert {
            kind,
            at,
            items,
            material,
            faces,
        } => insert_op(model, *kind, *at, items, *material, faces.as_ref()),
        EditOp::Duplicate { kind, indices } => Edit::duplicate(model, *kind, indices),
        EditOp::Delete {
            kind,
            indices,
            remove_unused_vertices,
        } => {
            if *remove_unused_vertices {
                if *kind != ElementKind::Material {
                    return Err(EditError::Unsupported {
                        op: "remove_unused_vertices",
                        target: (*kind).into(),
                    });
                }
                Edit::delete_materials_and_vertices(model, indices)
            } else {
                Edit::delete(model, *kind, indices)
            }
        }
        EditOp::Move {
            kind,
            indices,
            to,
            by,
        } => match (to, by) {
            (Some(to), None) => Edit::move_to(model, *kind, indices, *to),
            (None, Some(by)) => Edit::move_by(model, *kind, indices, *by),
            _ => Err(EditError::InvalidItem {
                kind: kind.name(),
                item: 0,
                message: "give either `to` or `by`".into(),
            }),
        },
        EditOp::Sort { kind, by } => Edit::sort(model, *kind, *by),
        EditOp::Transform {
            kind,
            target,
            indices,
            translate,
            rotate,
            scale,
            pivot,
            morph,
            morph_value,
        } => {
            let parts = TransformParts {
                kind: *kind,
                target: target.unwrap_or(TransformTarget::Position),
                translate: *translate,
                rotate: *rotate,
                scale: *scale,
                pivot: *pivot,
            };
            let morph = match morph {
                Some(_) if *kind != EditTarget::Vertex => {
                    return Err(EditError::Unsupported {
                        op: "transform into a morph",
                        target: *kind,
                    });
                }
                Some(morph) => Some((morph.resolve(model)?, morph_value.unwrap_or(1.0))),
                None => None,
            };
            match parts.target {
                TransformTarget::Position => position_transform(model, indices, parts, morph),
                TransformTarget::Uv(channel) => {
                    if *kind != EditTarget::Vertex {
                        return Err(EditError::Unsupported {
                            op: "transform of UVs",
                            target: *kind,
                        });
                    }
                    uv_transform(model, channel, indices, parts, morph)
                }
            }
        }
        EditOp::Merge {
            path,
            match_bones_by_name,
        } => {
            let path = in_folder(path, base_dir);
            let other = formats::load_path(&path, &LoadOptions::default())?.model;
            Edit::merge_model(
                model,
                &other,
                MergeOptions {
                    match_bones_by_name: *match_bones_by_name,
                },
            )
        }
        EditOp::PaintWeights(paint) => Edit::paint_weights(model, paint),
        EditOp::MorphFromModel(op) => {
            let path = in_folder(&op.model, base_dir);
            let other = formats::load_path(&path, &LoadOptions::default())?.model;
            let new = super::NewMorph {
                name: op.name.clone(),
                name_en: op.name_en.clone(),
                panel: op.panel,
            };
            Edit::morph_from_model(model, &other, &path, &new, op.threshold)
        }
        EditOp::MorphFromPose(op) => {
            let mut pose = crate::pose::Pose::new(model);
            let mut notes = Vec::new();
            if let Some(vpd) = &op.vpd {
                let path = in_folder(vpd, base_dir);
                let bytes = std::fs::read(&path).map_err(FileError::io(&path))?;
                let file = formats::vpd::read(&bytes, &LoadOptions::default()).map_err(|e| {
                    FileError::Read {
                        path: path.clone(),
                        source: Box::new(e),
                    }
                })?;
                let unmatched = file.apply_to(model, &mut pose);
                if !unmatched.bones.is_empty() || !unmatched.morphs.is_empty() {
                    notes.push(
                        crate::i18n::Message::new("edit.note.pose_unmatched")
                            .arg("path", path.display().to_string())
                            .arg("bones", unmatched.bones.len())
                            .arg("morphs", unmatched.morphs.len()),
                    );
                }
            }
            super::apply_inline_pose(model, &mut pose, &op.morphs, &op.bones)?;
            let new = super::NewMorph {
                name: op.name.clone(),
                name_en: op.name_en.clone(),
                panel: op.panel,
            };
            let mut edit = Edit::morph_from_pose(model, &pose, &new, op.threshold)?;
            edit.report.notes.extend(notes);
            Ok(edit)
        }
        EditOp::SplitMorph(op) => Edit::split_morph(model, op),
        EditOp::MirrorMorph(op) => Edit::mirror_morph(model, op),
        EditOp::GroupMorphFromSelection(op) => Edit::group_morph(model, op),
        EditOp::FlipFaces { indices } => Edit::flip_faces(model, indices),
        EditOp::SwapFaceDiagonal {
            faces: [first, second],
        } => Edit::swap_face_diagonal(model, *first, *second),
        EditOp::Batch { label, ops } => {
            let label = label.clone().map_or_else(
                || EditLabel::new("edit.steps").arg("count", LabelArg::Count(ops.len(), "step")),
                EditLabel::text,
            );
            build(model, ops, base_dir, label)
        }
    }
}

/// The move, turn, scale and pivot of a `transform` op, as given, and what it transforms.
#[derive(Clone, Copy)]
struct TransformParts {
    kind: EditTarget,
    target: TransformTarget,
    translate: Option<TransformValue>,
    rotate: Option<TransformValue>,
    scale: Option<TransformValue>,
    pivot: Option<TransformValue>,
}

impl TransformParts {
    /// Part `name` (`value`) read by `read`, or the error naming it and the shape it takes
    /// (`expected`).
    fn read<T>(
        &self,
        value: Option<TransformValue>,
        name: &str,
        expected: &str,
        read: fn(TransformValue) -> Option<T>,
    ) -> Result<Option<T>, EditError> {
        value
            .map(|value| {
                read(value).ok_or_else(|| EditError::InvalidValue {
                    target: self.kind,
                    field: name.into(),
                    message: format!("a transform of {} takes {expected}", self.target),
                })
            })
            .transpose()
    }
}

/// The `transform` op on positions (into vertex morph `morph` at its value when given).
fn position_transform(
    model: &mut Model,
    indices: &[usize],
    parts: TransformParts,
    morph: Option<(usize, f32)>,
) -> Result<Edit, EditError> {
    let xyz = "[x, y, z]";
    let translation = parts.read(parts.translate, "move", xyz, TransformValue::three)?;
    let (degrees, factors) = ("[x, y, z] degrees", "[x, y, z] or a number");
    let rotate = parts.read(parts.rotate, "rotate", degrees, TransformValue::three)?;
    let scale = parts.read(parts.scale, "scale", factors, TransformValue::scale3)?;
    let pivot = parts.read(parts.pivot, "pivot", xyz, TransformValue::three)?;
    let pivot = pivot.unwrap_or_else(|| {
        let centre = match morph {
            Some((morph, value)) => super::transform::drawn_centre(model, morph, value, indices),
            None => super::transform_centre(model, parts.kind, indices),
        };
        centre.unwrap_or(glam::Vec3::ZERO)
    });
    let transform = super::Transform {
        translation: translation.unwrap_or(glam::Vec3::ZERO),
        rotation: rotate.map_or(glam::Quat::IDENTITY, |degrees| {
            crate::model::facts::euler_degrees_to_quat(Vec3::from(degrees))
        }),
        scale: scale.unwrap_or(glam::Vec3::ONE),
        pivot,
    };
    let groups = [super::TransformGroup {
        indices: indices.to_vec(),
        transform,
    }];
    match morph {
        Some((morph, value)) => Edit::transform_morph(model, morph, value, &groups),
        None => Edit::transform(model, parts.kind, &groups),
    }
}

/// The `transform` op on the UVs of `channel` (into UV morph `morph` at its value when given).
fn uv_transform(
    model: &Model,
    channel: UvChannel,
    indices: &[usize],
    parts: TransformParts,
    morph: Option<(usize, f32)>,
) -> Result<Edit, EditError> {
    let uv = "[u, v]";
    let translation = parts.read(parts.translate, "move", uv, TransformValue::two)?;
    let (degrees, factors) = ("one number of degrees", "[u, v] or a number");
    let rotation = parts.read(parts.rotate, "rotate", degrees, TransformValue::one)?;
    let scale = parts.read(parts.scale, "scale", factors, TransformValue::scale2)?;
    let pivot = parts.read(parts.pivot, "pivot", uv, TransformValue::two)?;
    let pivot = pivot.unwrap_or_else(|| {
        let centre = match morph {
            Some((morph, value)) => super::drawn_uv_centre(model, channel, morph, value, indices),
            None => super::uv_centre(model, channel, indices),
        };
        centre.unwrap_or(glam::Vec2::ZERO)
    });
    let groups = [super::UvTransformGroup {
        indices: indices.to_vec(),
        transform: super::UvTransform {
            translation: translation.unwrap_or(glam::Vec2::ZERO),
            rotation_degrees: rotation.unwrap_or(0.0),
            scale: scale.unwrap_or(glam::Vec2::ONE),
            pivot,
        },
    }];
    match morph {
        Some((morph, value)) => Edit::transform_uv_morph(model, channel, morph, value, &groups),
        None => Edit::transform_uv(model, channel, &groups),
    }
}

/// `path` as an op names it: relative to the script's folder when it has one.
fn in_folder(path: &Path, base_dir: Option<&Path>) -> PathBuf {
    match base_dir {
        Some(dir) if path.is_relative() => dir.join(path),
        _ => path.to_owned(),
    }
}

fn build(
    model: &mut Model,
    ops: &[EditOp],
    base_dir: Option<&Path>,
    label: EditLabel,
) -> Result<Edit, EditError> {
    let mut sequence = Sequence::new(model);
    let mut unchanged = false;
    for (step, op) in ops.iter().enumerate() {
        let edit = match op_to_edit(sequence.model_mut(), op, base_dir) {
            Ok(edit) => edit,
            // A step with nothing to change (a weight brush over full weights) adds no step.
            Err(EditError::NoChange) => {
                unchanged = true;
                continue;
            }
            Err(source) => {
                return Err(EditError::Step {
                    step,
                    op: op.name(),
                    source: Box::new(source),
                });
            }
        };
        sequence.push(edit);
    }
    if sequence.is_empty() {
        return Err(if unchanged {
            EditError::NoChange
        } else {
            EditError::NothingSelected { kind: "op" }
        });
    }
    Ok(sequence.finish_flat(label))
}

/// Builds the edits of `ops`, each on the model as the previous ones leave it, as one undo step
/// (a single op gives its own edit and label). `model` is unchanged on return; apply the edit
/// (through a [`super::History`]) to make the change. Relative merge paths are relative to the
/// working directory.
pub fn ops_to_edit(model: &mut Model, ops: &[EditOp]) -> Result<Edit, EditError> {
    ops_to_edit_in(model, ops, None, None)
}

/// [`ops_to_edit`] with a label for the step and a folder relative merge paths start from.
pub fn ops_to_edit_in(
    model: &mut Model,
    ops: &[EditOp],
    label: Option<&str>,
    base_dir: Option<&Path>,
) -> Result<Edit, EditError> {
    let default_label =
        EditLabel::new("edit.script").arg("count", LabelArg::Count(ops.len(), "step"));
    let edit = build(
        model,
        ops,
        base_dir,
        label.map_or(default_label, EditLabel::text),
    )?;
    Ok(match label {
        Some(label) => edit.with_label(label),
        None => edit,
    })
}
