//! Moving, turning and scaling UVs: the edit behind the UV pane's gizmo and numeric row, and
//! the `transform` op with a UV `target`.
//!
//! A [`UvTransform`] is `uv' = pivot + R · (S · (uv − pivot)) + t` in texture space: a per-axis
//! scale, then a turn, both about `pivot`, then a move. U runs to the right and V downward, as
//! PMX (DirectX) UVs do: v = 0 is the image's top row. A positive angle turns counter-clockwise
//! as the texture is seen upright; with `d = uv − pivot`:
//! `u' = pivot.u + cos·d.u + sin·d.v`, `v' = pivot.v − sin·d.u + cos·d.v`, so +90° about
//! (0.5, 0.5) takes the right edge's middle (1, 0.5) to the top's middle (0.5, 0). Quarter turns
//! use exact sines, so turned UVs on pixel corners stay on them.
//!
//! The edit sets the vertices' UV (or additional UV x, y; z and w are kept) as one field edit:
//! undo writes the old values back bit for bit, and the frames of one drag merge into one undo
//! step. Into a UV morph, the change of the UVs as drawn with the morph goes into its offsets
//! instead, as morph edit mode does for positions ([`super::morph_transform_set`]).

use super::transform::{MIN_MORPH_VALUE, TransformKind, ZERO_OFFSET};
use super::{Edit, EditError, EditLabel, EditTarget, LabelArg, SetField, field};
use crate::model::{
    Model, Morph, MorphKind, MorphOffsets, UvMorphOffset, Vec2, Vec4, Vertex, VertexIdx,
};
use glam::Vec2 as G2;
use std::fmt;
use std::str::FromStr;

/// Which UV a UV transform edits: the vertex's own UV, or additional UV channel 1..=4 (its x,
/// y; z and w are kept), PmxEditor's 追加UV1–4. In an op's `target` it is `"uv"` or
/// `"additional_uv[N]"`. A channel number outside 1..=4 names no channel: edits refuse it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub enum UvChannel {
    #[default]
    Base,
    Additional(u8),
}

impl UvChannel {
    /// The channel's UV of `vertex` (an additional channel's x, y), if both exist.
    #[must_use]
    pub fn uv(self, model: &Model, vertex: usize) -> Option<G2> {
        match self {
            UvChannel::Base => model.vertices.get(vertex).map(|v| G2::from(v.uv)),
            UvChannel::Additional(n) => {
                let channel = usize::from(n).checked_sub(1)?;
                let uv = model.additional_uv(channel, vertex)?;
                Some(G2::new(uv.x, uv.y))
            }
        }
    }

    /// The kind of the morphs that move this channel (`Additional(n)` outside 1..=4, which
    /// names no channel, gives the nearest additional UV kind).
    #[must_use]
    pub fn morph_kind(self) -> MorphKind {
        match self {
            UvChannel::Base => MorphKind::Uv,
            UvChannel::Additional(0 | 1) => MorphKind::AdditionalUv1,
            UvChannel::Additional(2) => MorphKind::AdditionalUv2,
            UvChannel::Additional(3) => MorphKind::AdditionalUv3,
            UvChannel::Additional(_) => MorphKind::AdditionalUv4,
        }
    }

    /// The channels `model` has: the base UV, then its additional channels in order.
    #[must_use]
    pub fn available(model: &Model) -> Vec<UvChannel> {
        std::iter::once(UvChannel::Base)
            .chain((1..=model.additional_uv_count().min(4) as u8).map(UvChannel::Additional))
            .collect()
    }

    /// Whether `model` has this channel, with a UV for every vertex.
    fn is_in(self, model: &Model) -> bool {
        match self {
            UvChannel::Base => true,
            UvChannel::Additional(n) => {
                (1..=4).contains(&n)
                    && model
                        .additional_uvs
                        .get(usize::from(n) - 1)
                        .is_some_and(|list| list.len() >= model.vertices.len())
            }
        }
    }

    /// This channel's name in labels ("UVs" / "UV", "additional UV 2" / "追加UV2").
    fn label_key(self) -> &'static str {
        match self {
            UvChannel::Base => "edit.uv_channel",
            UvChannel::Additional(0 | 1) => "edit.uv_channel_additional1",
            UvChannel::Additional(2) => "edit.uv_channel_additional2",
            UvChannel::Additional(3) => "edit.uv_channel_additional3",
            UvChannel::Additional(_) => "edit.uv_channel_additional4",
        }
    }

    /// The error of an edit of a channel `model` lacks, naming it.
    fn missing(self, model: &Model) -> EditError {
        EditError::InvalidValue {
            target: EditTarget::Vertex,
            field: "target".into(),
            message: format!(
                "the model has no {self} (it has {} additional UV channels)",
                model.additional_uv_count()
            ),
        }
    }
}

impl fmt::Display for UvChannel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UvChannel::Base => f.write_str("uv"),
            UvChannel::Additional(n) => write!(f, "additional_uv[{n}]"),
        }
    }
}

/// Why a UV target's text was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown UV target \"{0}\" (give \"uv\" or \"additional_uv[1]\" to \"additional_uv[4]\")")]
pub struct UvChannelError(pub String);

impl FromStr for UvChannel {
    type Err = UvChannelError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == "uv" {
            return Ok(UvChannel::Base);
        }
        text.strip_prefix("additional_uv[")
            .and_then(|rest| rest.strip_suffix(']'))
            .and_then(|n| n.parse::<u8>().ok())
            .filter(|n| (1..=4).contains(n))
            .map(UvChannel::Additional)
            .ok_or_else(|| UvChannelError(text.to_owned()))
    }
}

impl TryFrom<String> for UvChannel {
    type Error = UvChannelError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<UvChannel> for String {
    fn from(channel: UvChannel) -> Self {
        channel.to_string()
    }
}

/// A per-axis scale about `pivot`, then a turn by `rotation_degrees` about `pivot`, then a
/// move by `translation`, in UV space. Positive degrees turn counter-clockwise as the texture is
/// seen upright (U to the right, V downward: v = 0 is the image's top row); see the module's
/// documentation for the formula.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UvTransform {
    pub translation: G2,
    pub rotation_degrees: f32,
    pub scale: G2,
    pub pivot: G2,
}

impl Default for UvTransform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl UvTransform {
    pub const IDENTITY: UvTransform = UvTransform {
        translation: G2::ZERO,
        rotation_degrees: 0.0,
        scale: G2::ONE,
        pivot: G2::ZERO,
    };

    /// A move by `by`.
    #[must_use]
    pub fn moving(by: G2) -> Self {
        Self {
            translation: by,
            ..Self::IDENTITY
        }
    }

    /// A turn by `degrees` (counter-clockwise as the texture is seen) about `pivot`.
    #[must_use]
    pub fn rotating(degrees: f32, pivot: G2) -> Self {
        Self {
            rotation_degrees: degrees,
            pivot,
            ..Self::IDENTITY
        }
    }

    /// A scale by `factors` (per axis) about `pivot`.
    #[must_use]
    pub fn scaling(factors: G2, pivot: G2) -> Self {
        Self {
            scale: factors,
            pivot,
            ..Self::IDENTITY
        }
    }

    /// Whether the turn changes anything (a whole number of turns does not).
    fn rotates(&self) -> bool {
        self.rotation_degrees.rem_euclid(360.0) != 0.0
    }

    fn scales(&self) -> bool {
        self.scale != G2::ONE
    }

    /// The turn's sine and cosine, exact for quarter turns.
    fn sin_cos(&self) -> (f32, f32) {
        let degrees = self.rotation_degrees.rem_euclid(360.0);
        match degrees {
            0.0 => (0.0, 1.0),
            90.0 => (1.0, 0.0),
            180.0 => (0.0, -1.0),
            270.0 => (-1.0, 0.0),
            _ => degrees.to_radians().sin_cos(),
        }
    }

    /// The UV `uv` goes to.
    #[must_use]
    pub fn point(&self, uv: G2) -> G2 {
        let mut out = uv;
        if self.rotates() || self.scales() {
            let d = (uv - self.pivot) * self.scale;
            let (sin, cos) = self.sin_cos();
            out = self.pivot + G2::new(cos * d.x + sin * d.y, cos * d.y - sin * d.x);
        }
        if self.translation != G2::ZERO {
            out += self.translation;
        }
        out
    }

    /// Which parts the transform has, for its label.
    #[must_use]
    pub fn kind(&self) -> TransformKind {
        TransformKind::of(self.translation != G2::ZERO, self.rotates(), self.scales())
    }

    /// Every part finite (a transform with NaN would write NaN into the model).
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite()
            && self.rotation_degrees.is_finite()
            && self.scale.is_finite()
            && self.pivot.is_finite()
    }
}

/// Vertices and the UV transform they take.
#[derive(Debug, Clone, PartialEq)]
pub struct UvTransformGroup {
    pub indices: Vec<usize>,
    pub transform: UvTransform,
}

/// The mean UV of `vertices` in `channel` (skipping non-finite UVs and vertices out of range):
/// the pivot the UV pane turns and scales about.
#[must_use]
pub fn uv_centre(model: &Model, channel: UvChannel, vertices: &[usize]) -> Option<G2> {
    mean(vertices.iter().filter_map(|&v| channel.uv(model, v)))
}

/// The mean of where `vertices`' UVs are drawn with UV morph `morph` (of `channel`'s kind) at
/// `value`: `base + value × offset.xy` (another kind of morph: at rest). `None` when no vertex
/// has a finite UV.
#[must_use]
pub fn drawn_uv_centre(
    model: &Model,
    channel: UvChannel,
    morph: usize,
    value: f32,
    vertices: &[usize],
) -> Option<G2> {
    let Some(list) = uv_offsets(model, morph, channel) else {
        return uv_centre(model, channel, vertices);
    };
    // The morph's offset of every vertex, summed as the renderer sums repeated entries.
    let mut offsets = vec![G2::ZERO; model.vertices.len()];
    for entry in list {
        if let Some(slot) = offsets.get_mut(entry.vertex.get()) {
            *slot += G2::new(entry.offset.x, entry.offset.y);
        }
    }
    mean(
        vertices
            .iter()
            .filter_map(|&v| Some(channel.uv(model, v)? + offsets[v] * value)),
    )
}

/// The mean of the finite `points`.
fn mean(points: impl Iterator<Item = G2>) -> Option<G2> {
    let (sum, count) = points
        .filter(|p| p.is_finite())
        .fold((G2::ZERO, 0usize), |(sum, count), p| (sum + p, count + 1));
    let centre = sum / count.max(1) as f32;
    (count > 0 && centre.is_finite()).then_some(centre)
}

/// The offsets of `morph` when it is a UV morph of `channel`'s kind.
fn uv_offsets(model: &Model, morph: usize, channel: UvChannel) -> Option<&Vec<UvMorphOffset>> {
    match (&model.morphs.get(morph)?.offsets, channel.morph_kind()) {
        (MorphOffsets::Uv(list), MorphKind::Uv)
        | (MorphOffsets::AdditionalUv1(list), MorphKind::AdditionalUv1)
        | (MorphOffsets::AdditionalUv2(list), MorphKind::AdditionalUv2)
        | (MorphOffsets::AdditionalUv3(list), MorphKind::AdditionalUv3)
        | (MorphOffsets::AdditionalUv4(list), MorphKind::AdditionalUv4) => Some(list),
        _ => None,
    }
}

/// The checked selection: each vertex once, ascending, with the transform of the first group
/// that names it, and the label's kind.
struct Selection {
    vertices: Vec<(usize, UvTransform)>,
    kind: TransformKind,
}

fn select(model: &Model, groups: &[UvTransformGroup]) -> Result<Selection, EditError> {
    let len = model.vertices.len();
    let mut vertices = Vec::with_capacity(groups.iter().map(|g| g.indices.len()).sum());
    let mut kind: Option<TransformKind> = None;
    for group in groups {
        if !group.transform.is_finite() {
            return Err(EditError::InvalidValue {
                target: EditTarget::Vertex,
                field: "transform".into(),
                message: "the move, rotation, scale or pivot is not a finite number".into(),
            });
        }
        if let Some(&index) = group.indices.iter().find(|&&i| i >= len) {
            return Err(EditError::IndexOutOfRange {
                kind: "vertex",
                index,
                len,
            });
        }
        if !group.indices.is_empty() {
            let this = group.transform.kind();
            kind = Some(match kind {
                Some(seen) if seen != this => TransformKind::Mixed,
                _ => this,
            });
        }
        vertices.extend(group.indices.iter().map(|&i| (i, group.transform)));
    }
    // A stable sort keeps each vertex's first group first; the dedup keeps that one.
    vertices.sort_by_key(|&(i, _)| i);
    vertices.dedup_by_key(|&mut (i, _)| i);
    if vertices.is_empty() {
        return Err(EditError::NothingSelected { kind: "vertex" });
    }
    let kind = kind.unwrap_or(TransformKind::Identity);
    if kind == TransformKind::Identity {
        return Err(EditError::NothingSelected {
            kind: "move, rotation or scale",
        });
    }
    Ok(Selection { vertices, kind })
}

/// The label's message key: what the transform did, to the UVs or into a UV morph.
fn label_key(kind: TransformKind, into_morph: bool) -> &'static str {
    match (kind, into_morph) {
        (TransformKind::Move, false) => "edit.uv_move",
        (TransformKind::Rotate, false) => "edit.uv_rotate",
        (TransformKind::Scale, false) => "edit.uv_scale",
        (TransformKind::Mixed | TransformKind::Identity, false) => "edit.uv_transform",
        (TransformKind::Move, true) => "edit.uv_morph_move",
        (TransformKind::Rotate, true) => "edit.uv_morph_rotate",
        (TransformKind::Scale, true) => "edit.uv_morph_scale",
        (TransformKind::Mixed | TransformKind::Identity, true) => "edit.uv_morph_transform",
    }
}

impl Edit {
    /// Moves, turns or scales the UVs of `channel` of vertices, each group by its own
    /// transform, as one undo step labelled by what it did ("頂点12個のUVを回転" / "Rotate the
    /// UVs of 12 vertices"). Positive degrees turn counter-clockwise as the texture is seen
    /// (see [`UvTransform`]). An additional channel's z and w are kept.
    ///
    /// A vertex in two groups takes the first group's transform. Errors: a channel the model
    /// lacks, a vertex out of range, a non-finite transform, no vertex, or no change.
    pub fn transform_uv(
        model: &Model,
        channel: UvChannel,
        groups: &[UvTransformGroup],
    ) -> Result<Edit, EditError> {
        if !channel.is_in(model) {
            return Err(channel.missing(model));
        }
        let Selection { vertices, kind } = select(model, groups)?;
        let indices: Vec<usize> = vertices.iter().map(|&(i, _)| i).collect();
        // A change that leaves every UV where it is (a scale about a line the corners lie on)
        // is no step.
        let set = match channel {
            UvChannel::Base => {
                let uvs: Vec<Vec2> = vertices
                    .iter()
                    .map(|&(i, t)| Vec2::from(t.point(model.vertices[i].uv.into())))
                    .collect();
                if indices
                    .iter()
                    .zip(&uvs)
                    .all(|(&i, uv)| model.vertices[i].uv == *uv)
                {
                    return Err(EditError::NoChange);
                }
                SetField::each(field::<Vertex>().uv(), indices, uvs)
            }
            UvChannel::Additional(n) => {
                let list = &model.additional_uvs[usize::from(n) - 1];
                let uvs: Vec<Vec4> = vertices
                    .iter()
                    .map(|&(i, t)| {
                        let old = list[i];
                        let uv = t.point(G2::new(old.x, old.y));
                        Vec4::new(uv.x, uv.y, old.z, old.w)
                    })
                    .collect();
                if indices.iter().zip(&uvs).all(|(&i, uv)| list[i] == *uv) {
                    return Err(EditError::NoChange);
                }
                SetField::each(
                    field::<Vertex>().additional_uv(usize::from(n) - 1),
                    indices,
                    uvs,
                )
            }
        };
        let label = EditLabel::new(label_key(kind, false))
            .arg("uv", LabelArg::Key(channel.label_key()))
            .count(vertices.len(), EditTarget::Vertex);
        Ok(set.into_edit(model)?.with_label(label))
    }

    /// Morph edit on UVs: `groups` move vertices' UVs of `channel` as they are drawn with UV
    /// morph `morph` at `value` (`base + value × offset.xy`), and the morph's offsets take the
    /// change (a move `d` of a drawn UV is `d / value` of offset; z and w are kept), never the
    /// base UVs. Entries already in the morph keep their place, new ones join the end in vertex
    /// order, and an entry that ends at zero leaves. Labelled "モーフ「目」の頂点12個のUVを移動".
    ///
    /// Errors: a channel the model lacks, a morph that is not a UV morph of `channel`'s kind, a
    /// value under [`MIN_MORPH_VALUE`], a vertex out of range, a non-finite transform, no
    /// vertex, or nothing that would change ([`EditError::NoChange`]).
    pub fn transform_uv_morph(
        model: &Model,
        channel: UvChannel,
        morph: usize,
        value: f32,
        groups: &[UvTransformGroup],
    ) -> Result<Edit, EditError> {
        if !channel.is_in(model) {
            return Err(channel.missing(model));
        }
        let Some(target) = model.morphs.get(morph) else {
            return Err(EditError::IndexOutOfRange {
                kind: "morph",
                index: morph,
                len: model.morphs.len(),
            });
        };
        let Some(list) = uv_offsets(model, morph, channel) else {
            return Err(EditError::InvalidValue {
                target: EditTarget::Morph,
                field: "morph".into(),
                message: format!(
                    "morph {morph} 「{}」 is a {:?} morph; a transform of {channel} goes into a {:?} morph",
                    target.name_ja.as_str(),
                    target.offsets.kind(),
                    channel.morph_kind()
                ),
            });
        };
        if !(value.is_finite() && value >= MIN_MORPH_VALUE) {
            return Err(EditError::InvalidValue {
                target: EditTarget::Morph,
                field: "morph_value".into(),
                message: format!(
                    "the morph is edited shown at {MIN_MORPH_VALUE} to 1, not {value}"
                ),
            });
        }
        let Selection { vertices, kind } = select(model, groups)?;
        let new = with_uv_offset_changes(model, channel, list, value, &vertices)
            .ok_or(EditError::NoChange)?;
        let label = EditLabel::new(label_key(kind, true))
            .arg("name", LabelArg::Text(target.name_ja.as_str().into_owned()))
            .arg("uv", LabelArg::Key(channel.label_key()))
            .count(vertices.len(), EditTarget::Vertex);
        let offsets = match channel.morph_kind() {
            MorphKind::Uv => MorphOffsets::Uv(new),
            MorphKind::AdditionalUv1 => MorphOffsets::AdditionalUv1(new),
            MorphKind::AdditionalUv2 => MorphOffsets::AdditionalUv2(new),
            MorphKind::AdditionalUv3 => MorphOffsets::AdditionalUv3(new),
            _ => MorphOffsets::AdditionalUv4(new),
        };
        let set = SetField::new(field::<Morph>().offsets(), vec![morph], offsets);
        Ok(set.into_edit(model)?.with_label(label))
    }
}

/// No entry of the selection in the morph's list.
const ABSENT: u32 = u32::MAX;

/// `list` with the change of the `selected` vertices' drawn UVs (at `value`) added to their
/// offsets: the first entry of a vertex takes it (a vertex listed twice is drawn with the sum),
/// a changed entry at zero leaves, a vertex without an entry joins the end in vertex order.
/// `None` when nothing changes. One pass over the list and one over the selection.
fn with_uv_offset_changes(
    model: &Model,
    channel: UvChannel,
    list: &[UvMorphOffset],
    value: f32,
    selected: &[(usize, UvTransform)],
) -> Option<Vec<UvMorphOffset>> {
    // Where each selected vertex is in `selected`, then its summed offset and first entry.
    let mut place = vec![ABSENT; model.vertices.len()];
    for (k, &(v, _)) in selected.iter().enumerate() {
        place[v] = k as u32;
    }
    let mut summed = vec![G2::ZERO; selected.len()];
    let mut first = vec![ABSENT; selected.len()];
    for (e, entry) in list.iter().enumerate() {
        let k = place.get(entry.vertex.get()).copied().unwrap_or(ABSENT);
        if k != ABSENT {
            let k = k as usize;
            summed[k] += G2::new(entry.offset.x, entry.offset.y);
            if first[k] == ABSENT {
                first[k] = e as u32;
            }
        }
    }
    // The change of each selected vertex's offset (zero: it stays as it is).
    let deltas: Vec<G2> = selected
        .iter()
        .zip(&summed)
        .map(|(&(v, t), &offset)| {
            let drawn = channel.uv(model, v).unwrap_or(G2::ZERO) + offset * value;
            (t.point(drawn) - drawn) / value
        })
        .collect();
    let is_zero = |o: Vec4| glam::Vec4::from(o).length() < ZERO_OFFSET;
    let mut changed = false;
    let mut out = Vec::with_capacity(list.len() + selected.len());
    for (e, entry) in list.iter().enumerate() {
        let k = place.get(entry.vertex.get()).copied().unwrap_or(ABSENT);
        if k == ABSENT || first[k as usize] != e as u32 || deltas[k as usize] == G2::ZERO {
            out.push(*entry);
            continue;
        }
        let delta = deltas[k as usize];
        let offset = Vec4::new(
            entry.offset.x + delta.x,
            entry.offset.y + delta.y,
            entry.offset.z,
            entry.offset.w,
        );
        if is_zero(offset) {
            changed = true;
            continue;
        }
        changed |= offset != entry.offset;
        out.push(UvMorphOffset {
            vertex: entry.vertex,
            offset,
        });
    }
    for (k, &(v, _)) in selected.iter().enumerate() {
        let offset = Vec4::new(deltas[k].x, deltas[k].y, 0.0, 0.0);
        if first[k] == ABSENT && !is_zero(offset) {
            changed = true;
            out.push(UvMorphOffset {
                vertex: VertexIdx::new(v),
                offset,
            });
        }
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::History;

    #[test]
    fn channels_read_and_write_the_ops_target_text() {
        for (text, channel) in [
            ("uv", UvChannel::Base),
            ("additional_uv[1]", UvChannel::Additional(1)),
            ("additional_uv[4]", UvChannel::Additional(4)),
        ] {
            assert_eq!(text.parse::<UvChannel>(), Ok(channel));
            assert_eq!(channel.to_string(), text);
            assert_eq!(
                serde_json::to_value(channel).unwrap(),
                serde_json::Value::from(text)
            );
        }
        for bad in [
            "",
            "UV",
            "additional_uv[0]",
            "additional_uv[5]",
            "additional_uv[1",
        ] {
            assert!(bad.parse::<UvChannel>().is_err(), "{bad}");
        }
        assert_eq!(UvChannel::Base.morph_kind(), MorphKind::Uv);
        assert_eq!(
            UvChannel::Additional(4).morph_kind(),
            MorphKind::AdditionalUv4
        );
    }

    #[test]
    fn a_turn_follows_the_documented_formula_and_quarter_turns_are_exact() {
        let pivot = G2::new(0.25, 0.75);
        let uv = G2::new(0.625, 0.125);
        let degrees = 37.0f32;
        let (sin, cos) = degrees.to_radians().sin_cos();
        let d = uv - pivot;
        let expected = G2::new(
            pivot.x + cos * d.x + sin * d.y,
            pivot.y - sin * d.x + cos * d.y,
        );
        let got = UvTransform::rotating(degrees, pivot).point(uv);
        assert!((got - expected).length() < 1e-6, "{got} vs {expected}");
        // Quarter turns in either direction land exactly.
        let middle = G2::splat(0.5);
        assert_eq!(
            UvTransform::rotating(90.0, middle).point(G2::new(1.0, 0.5)),
            G2::new(0.5, 0.0)
        );
        assert_eq!(
            UvTransform::rotating(-90.0, middle).point(G2::new(1.0, 0.5)),
            G2::new(0.5, 1.0)
        );
        assert_eq!(
            UvTransform::rotating(180.0, middle).point(G2::ZERO),
            G2::ONE
        );
        assert_eq!(
            UvTransform::rotating(720.0, middle).kind(),
            TransformKind::Identity
        );
        assert_eq!(
            UvTransform::scaling(G2::new(2.0, 1.0), G2::ZERO).point(G2::new(0.25, 0.5)),
            G2::new(0.5, 0.5)
        );
    }

    #[test]
    fn a_vertex_in_two_groups_takes_the_first_groups_transform() {
        let mut model = Model::new_empty();
        model.vertices = vec![Vertex::default(); 3];
        let group = |indices: Vec<usize>, by: f32| UvTransformGroup {
            indices,
            transform: UvTransform::moving(G2::new(by, 0.0)),
        };
        let edit = Edit::transform_uv(
            &model,
            UvChannel::Base,
            &[group(vec![2, 1, 1], 1.0), group(vec![1, 0], 0.5)],
        )
        .unwrap();
        assert_eq!(edit.label(), "Move the UVs of 3 vertices");
        History::new().apply(&mut model, edit);
        let us: Vec<f32> = model.vertices.iter().map(|v| v.uv.x).collect();
        assert_eq!(us, vec![0.5, 1.0, 1.0]);
    }

    #[test]
    fn a_million_vertices_turn_in_one_pass() {
        let mut model = Model::new_empty();
        model.vertices = (0..1_000_000)
            .map(|i| Vertex {
                uv: Vec2::new((i % 1000) as f32 / 1000.0, (i / 1000) as f32 / 1000.0),
                ..Vertex::default()
            })
            .collect();
        let all: Vec<usize> = (0..model.vertices.len()).collect();
        let started = std::time::Instant::now();
        let edit = Edit::transform_uv(
            &model,
            UvChannel::Base,
            &[UvTransformGroup {
                indices: all,
                transform: UvTransform::rotating(90.0, G2::splat(0.5)),
            }],
        )
        .unwrap();
        let built = started.elapsed();
        History::new().apply(&mut model, edit);
        assert_eq!(
            model.vertices[0].uv,
            Vec2::new(0.0, 1.0),
            "top-left → bottom-left"
        );
        eprintln!("1M UVs turned: edit built in {built:?}");
    }
}
