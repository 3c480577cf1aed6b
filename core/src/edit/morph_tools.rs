//! The morph tools (ツール > モーフ, and the edit ops of the same names): a vertex morph from
//! another model of the same mesh or from a pose, a morph split into its model-left and
//! model-right halves, a mirrored or symmetric vertex morph, and a group morph of chosen
//! morphs. Each is one undo step; new morphs are also listed in the 表情 display frame so that
//! MikuMikuDance shows them, and offsets that end up zero are not stored.
//!
//! The arithmetic lives here so that the GUI's tools, `pmx-studio run`, edit scripts and Rhai
//! scripts make the same morphs. The planners (`plan_*`) read the model only, so a tool can
//! say what a step will do before it is built. Reading files (another model, a VPD) happens
//! only in the ops ([`super::ops`]); the `Edit` constructors here take what was read.

use super::elements::Elements;
use super::weights::MirrorLookup;
use super::{Edit, EditError, EditLabel, LabelArg, Sequence, SetField, field};
use crate::model::facts::{EXPRESSION_FRAME, mirrored_name};
use crate::model::{
    DisplayFrame, DisplayItem, GroupMorphOffset, Model, Morph, MorphIdx, MorphKind, MorphOffsets,
    MorphPanel, UvMorphOffset, Vec3, Vec4, VertexIdx, VertexMorphOffset,
};
use crate::pose::{Pose, PoseEvaluator};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A morph named by index or by its Japanese name (ops and scripts; the first of that name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MorphRef {
    Index(usize),
    Name(String),
}

impl MorphRef {
    /// The morph's index in `model`.
    pub fn resolve(&self, model: &Model) -> Result<usize, EditError> {
        match self {
            MorphRef::Index(index) if *index < model.morphs.len() => Ok(*index),
            MorphRef::Index(index) => Err(EditError::IndexOutOfRange {
                kind: "morph",
                index: *index,
                len: model.morphs.len(),
            }),
            MorphRef::Name(name) => model
                .morphs
                .iter()
                .position(|morph| morph.name_ja.as_str() == name.as_str())
                .ok_or_else(|| EditError::NoSuchName {
                    kind: "morph",
                    name: name.clone(),
                }),
        }
    }
}

/// The panel of a new morph (MikuMikuDance's four expression panels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PanelChoice {
    Eyebrow,
    Eye,
    Mouth,
    #[default]
    Other,
}

impl PanelChoice {
    /// The choices by their JSON names.
    pub const ALL: [(&'static str, PanelChoice); 4] = [
        ("eye", PanelChoice::Eye),
        ("eyebrow", PanelChoice::Eyebrow),
        ("mouth", PanelChoice::Mouth),
        ("other", PanelChoice::Other),
    ];

    /// The choice named `name` (`"eye"`, ...).
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .find(|(id, _)| *id == name)
            .map(|(_, choice)| *choice)
    }

    #[must_use]
    pub fn panel(self) -> MorphPanel {
        match self {
            PanelChoice::Eyebrow => MorphPanel::Eyebrow,
            PanelChoice::Eye => MorphPanel::Eye,
            PanelChoice::Mouth => MorphPanel::Mouth,
            PanelChoice::Other => MorphPanel::Other,
        }
    }
}

/// The default smallest offset kept: shorter ones are noise of the other file's floats.
pub const DEFAULT_THRESHOLD: f32 = 0.00001;

fn default_threshold() -> f32 {
    DEFAULT_THRESHOLD
}

/// What a new vertex morph is called and where it is shown.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NewMorph {
    pub name: String,
    /// The English name (may be empty).
    pub name_en: String,
    pub panel: PanelChoice,
}

/// `{"op": "morph_from_model", "model": "PATH", "name": "NAME", "panel": "other",
/// "threshold": 0.00001}`: a vertex morph of the other model's vertex positions minus this
/// model's (the same vertices in the same order), offsets no longer than `threshold` left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MorphFromModel {
    /// Any format the registry reads (PMX, PMD, ...); relative to the script's folder.
    pub model: PathBuf,
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name_en: String,
    #[serde(default)]
    pub panel: PanelChoice,
    #[serde(default = "default_threshold")]
    pub threshold: f32,
}

/// A bone of an inline pose: a rotation in degrees (MikuMikuDance's Y-X-Z order) and a move.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InlineBonePose {
    #[serde(default)]
    pub rotate: [f32; 3],
    #[serde(default, rename = "move")]
    pub translate: [f32; 3],
}

/// `{"op": "morph_from_pose", "vpd": "PATH", "name": "NAME", "panel": "other", "threshold":
/// 0.00001}`: the posed vertex positions minus the rest positions as a vertex morph. The pose
/// is a VPD file, or given inline by names (`"morphs": {"まばたき": 1.0}`, `"bones": {"頭":
/// {"rotate": [10, 0, 0], "move": [0, 0, 0]}}`), or both (the inline values win).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MorphFromPose {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vpd: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub morphs: BTreeMap<String, f32>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub bones: BTreeMap<String, InlineBonePose>,
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name_en: String,
    #[serde(default)]
    pub panel: PanelChoice,
    #[serde(default = "default_threshold")]
    pub threshold: f32,
}

fn default_suffix_left() -> String {
    "左".to_owned()
}

fn default_suffix_right() -> String {
    "右".to_owned()
}

fn default_blend_width() -> f32 {
    0.5
}

/// `{"op": "split_morph", "morph": 12 or "まばたき", "suffix_left": "左", "suffix_right": "右",
/// "blend_width": 0.5}`: see [`left_share`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitMorph {
    pub morph: MorphRef,
    #[serde(default = "default_suffix_left")]
    pub suffix_left: String,
    #[serde(default = "default_suffix_right")]
    pub suffix_right: String,
    #[serde(default = "default_blend_width")]
    pub blend_width: f32,
}

/// What `mirror_morph` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MirrorMode {
    /// A new morph (名前の左↔右) with every offset moved to the mirror vertex.
    #[default]
    MirrorCopy,
    /// The morph itself made symmetric from one side.
    Symmetrize,
}

/// The model side a symmetrize copies from (model-left is +X in MikuMikuDance).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MirrorSide {
    #[default]
    Left,
    Right,
}

fn default_tolerance() -> f32 {
    0.001
}

/// `{"op": "mirror_morph", "morph": 12 or "笑い左", "mode": "mirror_copy" | "symmetrize",
/// "tolerance": 0.001, "from": "left" | "right"}`. A vertex's mirror partner is the vertex at
/// (−x, y, z) within `tolerance`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MirrorMorph {
    pub morph: MorphRef,
    #[serde(default)]
    pub mode: MirrorMode,
    #[serde(default = "default_tolerance")]
    pub tolerance: f32,
    #[serde(default)]
    pub from: MirrorSide,
}

fn default_ratio() -> f32 {
    1.0
}

/// A member of a group morph: a morph and its ratio.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupMember {
    pub morph: MorphRef,
    #[serde(default = "default_ratio")]
    pub ratio: f32,
}

/// `{"op": "group_morph_from_selection", "name": "NAME", "panel": "other", "morphs":
/// [{"morph": 3, "ratio": 0.5}]}`: a new group morph of these morphs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupMorph {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name_en: String,
    #[serde(default)]
    pub panel: PanelChoice,
    pub morphs: Vec<GroupMember>,
}

/// The share of an offset that goes to the model-left half of a split at a vertex whose rest
/// X is `x` (model-left is +X): 1 at `x ≥ width / 2`, 0 at `x ≤ −width / 2`, linear in between;
/// a width of 0 (or less) is a hard cut at x = 0, where each half gets 0.5. The right half gets
/// the rest.
#[must_use]
pub fn left_share(x: f32, width: f32) -> f32 {
    if !x.is_finite() {
        return 0.5;
    }
    if width.is_nan() || width <= 0.0 {
        return match x.partial_cmp(&0.0) {
            Some(std::cmp::Ordering::Greater) => 1.0,
            Some(std::cmp::Ordering::Less) => 0.0,
            _ => 0.5,
        };
    }
    ((x + width / 2.0) / width).clamp(0.0, 1.0)
}

fn vertex_x(model: &Model, vertex: VertexIdx) -> f32 {
    // A reference past the vertex list (which `check` reports) is shared half and half.
    model
        .vertices
        .get(vertex.get())
        .map_or(0.0, |vertex| vertex.position.x)
}

fn is_zero3(offset: Vec3) -> bool {
    offset.x == 0.0 && offset.y == 0.0 && offset.z == 0.0
}

fn is_zero4(offset: Vec4) -> bool {
    offset.x == 0.0 && offset.y == 0.0 && offset.z == 0.0 && offset.w == 0.0
}

fn kind_name(kind: MorphKind) -> &'static str {
    match kind {
        MorphKind::Group => "group",
        MorphKind::Vertex => "vertex",
        MorphKind::Bone => "bone",
        MorphKind::Uv => "UV",
        MorphKind::AdditionalUv1 => "additional UV1",
        MorphKind::AdditionalUv2 => "additional UV2",
        MorphKind::AdditionalUv3 => "additional UV3",
        MorphKind::AdditionalUv4 => "additional UV4",
        MorphKind::Material => "material",
        MorphKind::Flip => "flip",
        MorphKind::Impulse => "impulse",
    }
}

fn refuse_kind(tool: &'static str, morph: &Morph, supported: &'static str) -> EditError {
    EditError::MorphKindUnsupported {
        tool,
        morph: morph.name_ja.as_str().into_owned(),
        kind: kind_name(morph.offsets.kind()),
        supported,
    }
}

/// Inserts `morphs` at `at` and lists them in the 表情 frame (right after `after`'s item when
/// the frame lists it, else at its end), as one step named `label`. `model` is unchanged on
/// return. A model without a 表情 frame gets the morphs alone.
fn insert_morphs(
    model: &mut Model,
    at: usize,
    morphs: Vec<Morph>,
    after: Option<usize>,
    label: EditLabel,
) -> Result<Edit, EditError> {
    let count = morphs.len();
    let mut sequence = Sequence::new(model);
    let insert = Edit::insert(sequence.model(), at, Elements::Morphs(morphs))?;
    sequence.push(insert);
    if let Some(frame) = sequence.model().intended_special_frame(EXPRESSION_FRAME)
        && let Some(listed) = sequence.model().display_frames.get(frame)
    {
        let mut items = listed.items.clone();
        let place = after
            .and_then(|source| {
                let source = DisplayItem::Morph(Some(MorphIdx::new(source)));
                items.iter().position(|item| *item == source)
            })
            .map_or(items.len(), |position| position + 1);
        items.splice(
            place..place,
            (at..at + count).map(|m| DisplayItem::Morph(Some(MorphIdx::new(m)))),
        );
        let listing = SetField::new(field::<DisplayFrame>().items(), vec![frame], items)
            .into_edit(sequence.model())?;
        sequence.push(listing);
    }
    Ok(sequence.finish(label))
}

fn label(key: &'static str, name: &str) -> EditLabel {
    EditLabel::new(key).arg("name", LabelArg::Text(name.to_owned()))
}

fn new_vertex_morph(new: &NewMorph, offsets: Vec<VertexMorphOffset>) -> Morph {
    Morph {
        name_ja: new.name.as_str().into(),
        name_en: new.name_en.as_str().into(),
        panel: new.panel.panel(),
        offsets: MorphOffsets::Vertex(offsets),
    }
}

/// A new vertex morph `new` at the end (listed in 表情) of `moved` (one position per vertex)
/// minus the rest positions, offsets no longer than `threshold` left out; refused when none is
/// left. The step is labelled `key` with the morph's name.
fn add_vertex_morph(
    model: &mut Model,
    moved: &[glam::Vec3],
    new: &NewMorph,
    threshold: f32,
    key: &'static str,
) -> Result<Edit, EditError> {
    let rest = model.vertices.iter().map(|v| glam::Vec3::from(v.position));
    let offsets = offsets_between(rest, moved.iter().copied(), threshold);
    if offsets.is_empty() {
        return Err(EditError::NoOffsets { threshold });
    }
    let at = model.morphs.len();
    let morph = new_vertex_morph(new, offsets);
    insert_morphs(model, at, vec![morph], None, label(key, &new.name))
}

/// The offsets from `from` to `to` longer than `threshold`, by vertex.
fn offsets_between(
    from: impl Iterator<Item = glam::Vec3>,
    to: impl Iterator<Item = glam::Vec3>,
    threshold: f32,
) -> Vec<VertexMorphOffset> {
    from.zip(to)
        .enumerate()
        .filter_map(|(v, (rest, moved))| {
            let offset = moved - rest;
            (offset.length() > threshold && offset != glam::Vec3::ZERO).then(|| VertexMorphOffset {
                vertex: VertexIdx::new(v),
                offset: offset.into(),
            })
        })
        .collect()
}

impl Edit {
    /// A new vertex morph (at the end, listed in 表情) of `other`'s vertex positions minus
    /// `model`'s; `other` must have as many vertices (`source` names it in the error).
    /// `model` is unchanged on return.
    pub fn morph_from_model(
        model: &mut Model,
        other: &Model,
        source: &Path,
        new: &NewMorph,
        threshold: f32,
    ) -> Result<Edit, EditError> {
        if other.vertices.len() != model.vertices.len() {
            return Err(EditError::VertexCountMismatch {
                path: source.to_owned(),
                this: model.vertices.len(),
                other: other.vertices.len(),
            });
        }
        let moved: Vec<glam::Vec3> = other
            .vertices
            .iter()
            .map(|v| glam::Vec3::from(v.position))
            .collect();
        add_vertex_morph(model, &moved, new, threshold, "edit.morph_from_model")
    }

    /// A new vertex morph (at the end, listed in 表情) of `pose`'s vertex positions (bones and
    /// morphs evaluated as the preview does) minus the rest positions. A rest pose is refused.
    pub fn morph_from_pose(
        model: &mut Model,
        pose: &Pose,
        new: &NewMorph,
        threshold: f32,
    ) -> Result<Edit, EditError> {
        if pose.is_rest() {
            return Err(EditError::NoPose);
        }
        let mut evaluator = PoseEvaluator::new(model);
        evaluator.evaluate(model, pose)?;
        add_vertex_morph(
            model,
            evaluator.positions(),
            new,
            threshold,
            "edit.morph_from_pose",
        )
    }

    /// The morph's model-left and model-right halves as two new morphs right after it (see
    /// [`plan_split`]); the morph itself is kept.
    pub fn split_morph(model: &mut Model, split: &SplitMorph) -> Result<Edit, EditError> {
        let source = split.morph.resolve(model)?;
        let [left, right] = plan_split(model, source, split)?;
        let name = model.morphs[source].name_ja.as_str().into_owned();
        insert_morphs(
            model,
            source + 1,
            vec![left, right],
            Some(source),
            label("edit.split_morph", &name),
        )
    }

    /// A mirrored copy of a vertex morph, or the morph made symmetric (see [`plan_mirror`]).
    pub fn mirror_morph(model: &mut Model, mirror: &MirrorMorph) -> Result<Edit, EditError> {
        let plan = plan_mirror(model, mirror)?;
        let notes = plan
            .notes()
            .into_iter()
            .map(|(en, ja)| crate::i18n::Message::both(en, ja))
            .collect();
        let mut edit = match plan.target {
            MirrorTarget::Replace(index) => {
                let key = match mirror.mode {
                    MirrorMode::MirrorCopy => "edit.mirror_morph",
                    MirrorMode::Symmetrize => "edit.symmetrize_morph",
                };
                SetField::new(
                    field::<Morph>().offsets(),
                    vec![index],
                    MorphOffsets::Vertex(plan.offsets),
                )
                .into_edit(model)?
                .with_label(label(key, &plan.source_name))
            }
            MirrorTarget::Insert { at, morph } => {
                let morph = Morph {
                    offsets: MorphOffsets::Vertex(plan.offsets),
                    ..*morph
                };
                insert_morphs(
                    model,
                    at,
                    vec![morph],
                    Some(plan.source),
                    label("edit.mirror_morph", &plan.source_name),
                )?
            }
        };
        edit.report.notes = notes;
        Ok(edit)
    }

    /// A new group morph (at the end, listed in 表情) of `group.morphs` with their ratios.
    pub fn group_morph(model: &mut Model, group: &GroupMorph) -> Result<Edit, EditError> {
        if group.morphs.is_empty() {
            return Err(EditError::NothingSelected { kind: "morph" });
        }
        let offsets = group
            .morphs
            .iter()
            .map(|member| {
                Ok(GroupMorphOffset {
                    morph: Some(MorphIdx::new(member.morph.resolve(model)?)),
                    ratio: member.ratio,
                })
            })
            .collect::<Result<Vec<_>, EditError>>()?;
        let morph = Morph {
            name_ja: group.name.as_str().into(),
            name_en: group.name_en.as_str().into(),
            panel: group.panel.panel(),
            offsets: MorphOffsets::Group(offsets),
        };
        let at = model.morphs.len();
        insert_morphs(
            model,
            at,
            vec![morph],
            None,
            label("edit.group_morph", &group.name),
        )
    }
}

/// The pose an inline `morph_from_pose` gives (on top of `pose`): morphs and bones by their
/// Japanese names.
pub fn apply_inline_pose(
    model: &Model,
    pose: &mut Pose,
    morphs: &BTreeMap<String, f32>,
    bones: &BTreeMap<String, InlineBonePose>,
) -> Result<(), EditError> {
    for (name, &value) in morphs {
        let index = MorphRef::Name(name.clone()).resolve(model)?;
        pose.set_morph(MorphIdx::new(index), value);
    }
    for (name, bone) in bones {
        let index = model
            .bones
            .iter()
            .position(|b| b.name_ja.as_str() == name.as_str())
            .ok_or_else(|| EditError::NoSuchName {
                kind: "bone",
                name: name.clone(),
            })?;
        let [x, y, z] = bone.rotate;
        let rotation = crate::model::facts::euler_degrees_to_quat(Vec3::new(x, y, z));
        pose.set_bone(
            crate::model::BoneIdx::new(index),
            rotation,
            glam::Vec3::from_array(bone.translate),
        );
    }
    Ok(())
}

/// The two halves of morph `source` (vertex, UV or additional UV): named with the suffixes
/// (English names get `_L`/`_R` when they are not empty), on the morph's panel, each offset
/// shared by [`left_share`] of its vertex's rest X. Shares of zero are left out.
pub fn plan_split(
    model: &Model,
    source: usize,
    split: &SplitMorph,
) -> Result<[Morph; 2], EditError> {
    let morph = model.morphs.get(source).ok_or(EditError::IndexOutOfRange {
        kind: "morph",
        index: source,
        len: model.morphs.len(),
    })?;
    let width = split.blend_width;
    let share = |vertex: VertexIdx| left_share(vertex_x(model, vertex), width);
    let split_vertex = |offsets: &[VertexMorphOffset]| {
        let mut left = Vec::new();
        let mut right = Vec::new();
        for entry in offsets {
            let offset = glam::Vec3::from(entry.offset);
            let left_part = offset * share(entry.vertex);
            let right_part = offset - left_part;
            if left_part != glam::Vec3::ZERO {
                left.push(VertexMorphOffset {
                    vertex: entry.vertex,
                    offset: left_part.into(),
                });
            }
            if right_part != glam::Vec3::ZERO {
                right.push(VertexMorphOffset {
                    vertex: entry.vertex,
                    offset: right_part.into(),
                });
            }
        }
        (MorphOffsets::Vertex(left), MorphOffsets::Vertex(right))
    };
    let split_uv = |offsets: &[UvMorphOffset], wrap: fn(Vec<UvMorphOffset>) -> MorphOffsets| {
        let mut left = Vec::new();
        let mut right = Vec::new();
        for entry in offsets {
            let offset = glam::Vec4::from(entry.offset);
            let left_part = offset * share(entry.vertex);
            let right_part = offset - left_part;
            if !is_zero4(left_part.into()) {
                left.push(UvMorphOffset {
                    vertex: entry.vertex,
                    offset: left_part.into(),
                });
            }
            if !is_zero4(right_part.into()) {
                right.push(UvMorphOffset {
                    vertex: entry.vertex,
                    offset: right_part.into(),
                });
            }
        }
        (wrap(left), wrap(right))
    };
    let (left, right) = match &morph.offsets {
        MorphOffsets::Vertex(offsets) => split_vertex(offsets),
        MorphOffsets::Uv(offsets) => split_uv(offsets, MorphOffsets::Uv),
        MorphOffsets::AdditionalUv1(offsets) => split_uv(offsets, MorphOffsets::AdditionalUv1),
        MorphOffsets::AdditionalUv2(offsets) => split_uv(offsets, MorphOffsets::AdditionalUv2),
        MorphOffsets::AdditionalUv3(offsets) => split_uv(offsets, MorphOffsets::AdditionalUv3),
        MorphOffsets::AdditionalUv4(offsets) => split_uv(offsets, MorphOffsets::AdditionalUv4),
        _ => return Err(refuse_kind("split_morph", morph, "vertex and UV")),
    };
    let name_ja = morph.name_ja.as_str();
    let name_en = morph.name_en.as_str();
    let english = |suffix: &str| {
        if name_en.is_empty() {
            String::new()
        } else {
            format!("{name_en}{suffix}")
        }
    };
    let half = |suffix: &str, english_suffix: &str, offsets: MorphOffsets| Morph {
        name_ja: format!("{name_ja}{suffix}").as_str().into(),
        name_en: english(english_suffix).as_str().into(),
        panel: morph.panel,
        offsets,
    };
    Ok([
        half(&split.suffix_left, "_L", left),
        half(&split.suffix_right, "_R", right),
    ])
}

/// Where a mirror's offsets go.
#[derive(Debug, Clone, PartialEq)]
pub enum MirrorTarget {
    /// Replace the offsets of this morph (the morph itself for a symmetrize; the existing
    /// morph of the mirrored name and kind for a mirror copy).
    Replace(usize),
    /// A new morph (its offsets are the plan's) at this index.
    Insert { at: usize, morph: Box<Morph> },
}

/// What a `mirror_morph` step does, worked out on the model as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct MirrorPlan {
    pub source: usize,
    pub source_name: String,
    pub mode: MirrorMode,
    /// The name of the morph that receives the offsets.
    pub target_name: String,
    pub target: MirrorTarget,
    /// The new offsets, by vertex, none zero.
    pub offsets: Vec<VertexMorphOffset>,
    /// Offsets skipped because their vertex has no mirror partner.
    pub unpaired: usize,
}

impl MirrorPlan {
    /// What to tell the user, (English, Japanese).
    #[must_use]
    pub fn notes(&self) -> Vec<(String, String)> {
        let mut notes = Vec::new();
        let target = &self.target_name;
        let source = &self.source_name;
        match (&self.target, self.mode) {
            (MirrorTarget::Replace(_), MirrorMode::MirrorCopy) => notes.push((
                format!("\"{target}\" exists already: its offsets are replaced by the mirror of \"{source}\""),
                format!("「{target}」は既にあるため、そのオフセットを「{source}」のミラーで置き換えます"),
            )),
            (MirrorTarget::Insert { .. }, _) => notes.push((
                format!("new morph \"{target}\": the mirror of \"{source}\""),
                format!("新しいモーフ「{target}」:「{source}」のミラー"),
            )),
            (MirrorTarget::Replace(_), MirrorMode::Symmetrize) => notes.push((
                format!("\"{source}\" made symmetric"),
                format!("「{source}」を左右対称にします"),
            )),
        }
        if self.unpaired > 0 {
            let count = self.unpaired;
            notes.push((
                format!("{count} vertices of \"{source}\" have no mirror vertex and were skipped"),
                format!("「{source}」の頂点{count}個はミラー位置に頂点がないため飛ばしました"),
            ));
        }
        notes
    }
}

/// The mirror of vertex morph `mirror.morph` (see [`MirrorMode`]): a vertex's partner is the
/// vertex at (−x, y, z) within the tolerance, a vertex within the tolerance of x = 0 its own.
/// A copy moves each offset (dx, dy, dz) of vertex v to partner(v) as (−dx, dy, dz), into a
/// new morph named with 左↔右 swapped (a name without a side gets "(ミラー)" / " mirror"), or
/// into the existing vertex morph of that name. A symmetrize keeps the `from` side's offsets,
/// mirrors them onto the other side (whose own offsets are replaced) and sets dx = 0 on the
/// centre line. Vertices without a partner are skipped (a copy drops their offsets, a
/// symmetrize leaves them) and counted.
pub fn plan_mirror(model: &Model, mirror: &MirrorMorph) -> Result<MirrorPlan, EditError> {
    let source = mirror.morph.resolve(model)?;
    let morph = &model.morphs[source];
    let MorphOffsets::Vertex(offsets) = &morph.offsets else {
        return Err(refuse_kind("mirror_morph", morph, "vertex"));
    };
    let lookup = MirrorLookup::with_tolerance(model, mirror.tolerance);
    let partner = |vertex: VertexIdx| lookup.find(model, vertex.get());
    let flip = |offset: Vec3| Vec3::new(-offset.x, offset.y, offset.z);
    let mut result: BTreeMap<usize, Vec3> = BTreeMap::new();
    let mut unpaired = 0;
    match mirror.mode {
        MirrorMode::MirrorCopy => {
            for entry in offsets {
                match partner(entry.vertex) {
                    Some(image) => {
                        result.entry(image).or_insert(flip(entry.offset));
                    }
                    None => unpaired += 1,
                }
            }
        }
        MirrorMode::Symmetrize => {
            let tolerance = mirror.tolerance.max(0.0);
            let on_source = |x: f32| match mirror.from {
                MirrorSide::Left => x > tolerance,
                MirrorSide::Right => x < -tolerance,
            };
            for entry in offsets {
                let v = entry.vertex.get();
                let x = vertex_x(model, entry.vertex);
                if x.abs() <= tolerance {
                    result.insert(v, Vec3::new(0.0, entry.offset.y, entry.offset.z));
                } else if on_source(x) {
                    result.insert(v, entry.offset);
                    match partner(entry.vertex) {
                        Some(image) if image != v => {
                            result.insert(image, flip(entry.offset));
                        }
                        _ => unpaired += 1,
                    }
                } else if partner(entry.vertex).is_none() {
                    // The other side's vertex with nothing to mirror from keeps its offset.
                    result.entry(v).or_insert(entry.offset);
                    unpaired += 1;
                }
            }
        }
    }
    let offsets: Vec<VertexMorphOffset> = result
        .into_iter()
        .filter(|(_, offset)| !is_zero3(*offset))
        .map(|(vertex, offset)| VertexMorphOffset {
            vertex: VertexIdx::new(vertex),
            offset,
        })
        .collect();
    let source_name = morph.name_ja.as_str().into_owned();
    let (target_name, target) = match mirror.mode {
        MirrorMode::Symmetrize => (source_name.clone(), MirrorTarget::Replace(source)),
        MirrorMode::MirrorCopy => {
            let name_ja =
                mirrored_name(&source_name).unwrap_or_else(|| format!("{source_name}(ミラー)"));
            let english = morph.name_en.as_str();
            let name_en = match mirrored_name(&english) {
                Some(name) => name,
                None if english.is_empty() => String::new(),
                None => format!("{english} mirror"),
            };
            let existing = model.morphs.iter().enumerate().position(|(index, other)| {
                index != source
                    && other.offsets.kind() == MorphKind::Vertex
                    && other.name_ja.as_str() == name_ja.as_str()
            });
            let target = match existing {
                Some(index) => MirrorTarget::Replace(index),
                None => MirrorTarget::Insert {
                    at: source + 1,
                    morph: Box::new(Morph {
                        name_ja: name_ja.as_str().into(),
                        name_en: name_en.as_str().into(),
                        panel: morph.panel,
                        offsets: MorphOffsets::Vertex(Vec::new()),
                    }),
                },
            };
            (name_ja, target)
        }
    };
    Ok(MirrorPlan {
        source,
        source_name,
        mode: mirror.mode,
        target_name,
        target,
        offsets,
        unpaired,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_left_share_is_linear_in_the_band_and_half_at_a_hard_cut() {
        assert_eq!(left_share(0.25, 0.5), 1.0);
        assert_eq!(left_share(-0.25, 0.5), 0.0);
        assert_eq!(left_share(0.0, 0.5), 0.5);
        assert_eq!(left_share(0.125, 0.5), 0.75);
        assert_eq!(left_share(0.0, 0.0), 0.5);
        assert_eq!(left_share(1e-6, 0.0), 1.0);
        assert_eq!(left_share(-1e-6, 0.0), 0.0);
    }

    #[test]
    fn panels_parse_by_their_json_names() {
        assert_eq!(PanelChoice::parse("eye"), Some(PanelChoice::Eye));
        assert_eq!(
            PanelChoice::parse("mouth").map(PanelChoice::panel),
            Some(MorphPanel::Mouth)
        );
        assert_eq!(PanelChoice::parse("nose"), None);
    }
}
