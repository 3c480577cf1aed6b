//! Weight painting: the `paint_weights` op, one brush step of the 3D view's ウェイト描画 tool
//! (or a replayed one from a script), and the weight arithmetic that keeps every touched
//! vertex valid (weights summing to 1, at most `max_bones` bones, the simplest deform type
//! that holds them, SDEF and QDEF kept).

use super::{Change, Edit, EditError, EditLabel, EditTarget, LabelArg, Touched};
use crate::model::{BoneIdx, Model, Weight};
use serde::{Deserialize, Serialize};
use std::cell::OnceCell;
use std::collections::HashSet;
use std::sync::OnceLock;

/// How a brush step changes the target bone's weight on each vertex it touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PaintMode {
    /// 加算: the weight grows by the vertex's amount (at most 1).
    Add,
    /// 減算: the weight shrinks by the vertex's amount (at least 0).
    Subtract,
    /// 置換: the weight becomes the vertex's amount (the brush has already blended its value
    /// with the old weight by strength and falloff; a gradient sends its ramp this way).
    Set,
    /// ぼかし: the weight moves towards the average of the vertex's edge neighbours by the
    /// vertex's amount (0: unchanged, 1: the average), the averages taken before the step.
    Smooth,
}

/// A bone named by index or by name (ops and scripts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BoneRef {
    Index(usize),
    Name(String),
}

fn default_max_bones() -> usize {
    4
}

/// One brush step: `{"op": "paint_weights", "bone": 12, "mode": "add", "vertices": [...],
/// "amounts": [...], "mirror": false, "max_bones": 4, "locked": []}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaintWeights {
    /// The bone painted.
    pub bone: BoneRef,
    pub mode: PaintMode,
    /// The vertices the brush touched.
    pub vertices: Vec<usize>,
    /// One per vertex, after the brush's strength and falloff (see [`PaintMode`]).
    pub amounts: Vec<f32>,
    /// X-mirror: each vertex's mirror image (the vertex at (−x, y, z)) gets the same change on
    /// the mirrored bone (左 ↔ 右).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mirror: bool,
    /// The most bones a vertex may keep (4; 2 stays PMD-compatible).
    #[serde(default = "default_max_bones")]
    pub max_bones: usize,
    /// Bones whose weights never change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locked: Vec<BoneRef>,
}

impl Edit {
    /// The edit of one brush step on `model` (unchanged on return), with the lookups it needs
    /// built for this call (the command line, scripts). The 3D view keeps a [`PaintIndex`] and
    /// calls [`Edit::paint_weights_with`].
    pub fn paint_weights(model: &Model, paint: &PaintWeights) -> Result<Edit, EditError> {
        Self::paint_weights_with(model, paint, &PaintIndex::lazy(model))
    }

    /// [`Edit::paint_weights`] with the model's lookups built beforehand. Only the vertices
    /// whose weights change are in the edit; a step that changes none is
    /// [`EditError::NoChange`] (a brush over weights already at their limit: nothing to undo).
    pub fn paint_weights_with(
        model: &Model,
        paint: &PaintWeights,
        index: &PaintIndex,
    ) -> Result<Edit, EditError> {
        let fresh;
        let index = if index.fits(model) {
            index
        } else {
            fresh = PaintIndex::lazy(model);
            &fresh
        };
        let step = Step::new(model, paint)?;
        let mut work: Vec<(usize, f32, Side)> = Vec::with_capacity(paint.vertices.len());
        let mut painted: HashSet<usize> = HashSet::with_capacity(paint.vertices.len());
        for (&vertex, &amount) in paint.vertices.iter().zip(&paint.amounts) {
            // A vertex listed twice is painted once, with its first amount.
            if painted.insert(vertex) {
                work.push((vertex, amount, Side::Painted));
            }
        }
        if paint.mirror {
            let mut mirrored: HashSet<usize> = HashSet::new();
            for (&vertex, &amount) in paint.vertices.iter().zip(&paint.amounts) {
                if let Some(image) = index.mirror_vertex(model, vertex)
                    && !painted.contains(&image)
                    && mirrored.insert(image)
                {
                    work.push((image, amount, Side::Mirrored));
                }
            }
        }
        let mut changes: Vec<(u32, Weight, Weight)> = Vec::with_capacity(work.len());
        for (vertex, amount, side) in work {
            let Some(old) = model.vertices.get(vertex).map(|v| &v.weight) else {
                continue;
            };
            let bone = step.bone(side);
            let average = match paint.mode {
                PaintMode::Smooth => neighbour_average(model, index, vertex, bone),
                _ => 0.0,
            };
            let brush = VertexPaint {
                mode: paint.mode,
                amount,
                average,
                target: bone,
                locked: step.locked(side),
                max_bones: paint.max_bones,
            };
            if let Some(new) = paint_vertex(old, &brush, || step.ancestor(model, side)) {
                changes.push((vertex as u32, old.clone(), new));
            }
        }
        if changes.is_empty() {
            return Err(EditError::NoChange);
        }
        changes.sort_unstable_by_key(|(vertex, ..)| *vertex);
        let mut change = WeightsChange {
            bone_name: step.bone_name.clone(),
            vertices: Vec::with_capacity(changes.len()),
            old: Vec::with_capacity(changes.len()),
            new: Vec::with_capacity(changes.len()),
        };
        for (vertex, old, new) in changes {
            change.vertices.push(vertex);
            change.old.push(old);
            change.new.push(new);
        }
        Ok(Edit::new(change.label(), Change::Weights(change)))
    }
}

/// Whether a vertex is one the brush touched or the mirror image of one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Painted,
    Mirrored,
}

/// A step's bones resolved against the model: the target and locked bones, and their mirror
/// images.
struct Step {
    bone: usize,
    bone_name: String,
    locked: Vec<bool>,
    mirrored_bone: usize,
    mirrored_locked: Vec<bool>,
    /// Where each side's freed weight goes (see [`Step::ancestor`]), found when first needed.
    heirs: [OnceCell<Option<usize>>; 2],
}

impl Step {
    fn new(model: &Model, paint: &PaintWeights) -> Result<Self, EditError> {
        if paint.vertices.is_empty() {
            return Err(EditError::NothingSelected { kind: "vertex" });
        }
        if paint.amounts.len() != paint.vertices.len() {
            return Err(EditError::ValueCount {
                values: paint.amounts.len(),
                indices: paint.vertices.len(),
            });
        }
        if !(1..=4).contains(&paint.max_bones) {
            return Err(EditError::InvalidValue {
                target: EditTarget::Vertex,
                field: "max_bones".into(),
                message: format!(
                    "{} bones per vertex: give 1 to 4 (BDEF4 and QDEF hold 4)",
                    paint.max_bones
                ),
            });
        }
        if let Some((i, amount)) = paint
            .amounts
            .iter()
            .enumerate()
            .find(|(_, a)| !a.is_finite())
        {
            return Err(EditError::InvalidValue {
                target: EditTarget::Vertex,
                field: "amounts".into(),
                message: format!("amount {i} is {amount}, not a finite number"),
            });
        }
        let len = model.vertices.len();
        if let Some(&index) = paint.vertices.iter().find(|&&v| v >= len) {
            return Err(EditError::IndexOutOfRange {
                kind: "vertex",
                index,
                len,
            });
        }
        let bone = resolve_bone(model, &paint.bone)?;
        let mut locked = vec![false; model.bones.len()];
        for reference in &paint.locked {
            locked[resolve_bone(model, reference)?] = true;
        }
        let (mirrored_bone, mirrored_locked) = if paint.mirror {
            let mut mirrored_locked = vec![false; model.bones.len()];
            for (b, _) in locked.iter().enumerate().filter(|(_, l)| **l) {
                mirrored_locked[mirrored_bone(model, b)] = true;
            }
            (mirrored_bone(model, bone), mirrored_locked)
        } else {
            (bone, Vec::new())
        };
        Ok(Self {
            bone,
            bone_name: bone_name(model, bone),
            locked,
            mirrored_bone,
            mirrored_locked,
            heirs: [OnceCell::new(), OnceCell::new()],
        })
    }

    fn bone(&self, side: Side) -> usize {
        match side {
            Side::Painted => self.bone,
            Side::Mirrored => self.mirrored_bone,
        }
    }

    fn locked(&self, side: Side) -> &[bool] {
        match side {
            Side::Painted => &self.locked,
            Side::Mirrored => &self.mirrored_locked,
        }
    }

    /// Where weight taken from the target with nowhere else to go goes: its nearest ancestor
    /// that some vertex is weighted to, else its nearest ancestor; never a locked bone. The
    /// same for every vertex of a side, so found once per step and side.
    fn ancestor(&self, model: &Model, side: Side) -> Option<usize> {
        let cell = match side {
            Side::Painted => &self.heirs[0],
            Side::Mirrored => &self.heirs[1],
        };
        *cell.get_or_init(|| {
            let locked = self.locked(side);
            let chain: Vec<usize> = ancestors(model, self.bone(side))
                .into_iter()
                .filter(|&b| !locked.get(b).copied().unwrap_or(true))
                .collect();
            nearest_weighted(model, &chain).or_else(|| chain.first().copied())
        })
    }
}

/// The first bone of `chain` some vertex has weight on, reading the vertices only until the
/// nearest one is found.
fn nearest_weighted(model: &Model, chain: &[usize]) -> Option<usize> {
    let mut place = vec![usize::MAX; model.bones.len()];
    for (i, &bone) in chain.iter().enumerate() {
        if let Some(slot) = place.get_mut(bone) {
            *slot = (*slot).min(i);
        }
    }
    let mut best = usize::MAX;
    'vertices: for vertex in &model.vertices {
        for (bone, weight) in slots(&vertex.weight) {
            if let Some(bone) = bone
                && weight > 0.0
                && let Some(&at) = place.get(bone.get())
                && at < best
            {
                best = at;
                if best == 0 {
                    break 'vertices;
                }
            }
        }
    }
    chain.get(best).copied()
}

/// The parent chain of `bone`, nearest first (a cycle in a broken file ends it).
fn ancestors(model: &Model, bone: usize) -> Vec<usize> {
    let mut chain = Vec::new();
    let mut current = model.bones.get(bone).and_then(|b| b.parent);
    while let Some(parent) = current.map(BoneIdx::get) {
        if parent == bone || chain.contains(&parent) || parent >= model.bones.len() {
            break;
        }
        chain.push(parent);
        current = model.bones.get(parent).and_then(|b| b.parent);
    }
    chain
}

fn resolve_bone(model: &Model, reference: &BoneRef) -> Result<usize, EditError> {
    match reference {
        BoneRef::Index(index) if *index < model.bones.len() => Ok(*index),
        BoneRef::Index(index) => Err(EditError::IndexOutOfRange {
            kind: "bone",
            index: *index,
            len: model.bones.len(),
        }),
        BoneRef::Name(name) => model
            .bones
            .iter()
            .position(|bone| bone.name_ja.as_str() == name.as_str())
            .or_else(|| {
                model
                    .bones
                    .iter()
                    .position(|bone| bone.name_en.as_str() == name.as_str())
            })
            .ok_or_else(|| EditError::InvalidValue {
                target: EditTarget::Bone,
                field: "bone".into(),
                message: format!("no bone is named \"{name}\""),
            }),
    }
}

/// The other side's bone (左腕 → 右腕, by the Japanese name, else the English one); the bone
/// itself when its name has no side or the other side's bone does not exist.
fn mirrored_bone(model: &Model, bone: usize) -> usize {
    let Some(this) = model.bones.get(bone) else {
        return bone;
    };
    let by_name = |name: String, english: bool| {
        model.bones.iter().position(|b| {
            if english {
                b.name_en.as_str() == name.as_str()
            } else {
                b.name_ja.as_str() == name.as_str()
            }
        })
    };
    crate::model::facts::mirrored_name(&this.name_ja.as_str())
        .and_then(|name| by_name(name, false))
        .or_else(|| {
            crate::model::facts::mirrored_name(&this.name_en.as_str())
                .and_then(|name| by_name(name, true))
        })
        .unwrap_or(bone)
}

fn bone_name(model: &Model, bone: usize) -> String {
    model.bones.get(bone).map_or_else(String::new, |b| {
        let name = b.name_ja.as_str();
        if name.is_empty() {
            b.name_en.as_str().into_owned()
        } else {
            name.into_owned()
        }
    })
}

/// The mean weight of `bone` over `vertex`'s edge neighbours (its own weight when it has none).
fn neighbour_average(model: &Model, index: &PaintIndex, vertex: usize, bone: usize) -> f32 {
    let (sum, count) = index
        .neighbours(model)
        .of(vertex)
        .iter()
        .filter_map(|&n| model.vertices.get(n as usize))
        .fold((0.0f32, 0usize), |(sum, count), v| {
            (sum + bone_weight(&v.weight, bone), count + 1)
        });
    if count == 0 {
        return model
            .vertices
            .get(vertex)
            .map_or(0.0, |v| bone_weight(&v.weight, bone));
    }
    sum / count as f32
}

/// The weight slots as stored: (bone, weight), BDEF2/SDEF's second weight `1 − weight`, without
/// allocating.
fn slots(weight: &Weight) -> impl Iterator<Item = (Option<BoneIdx>, f32)> + '_ {
    let (bones, first, weights): (&[Option<BoneIdx>], f32, &[f32]) = match weight {
        Weight::Bdef1 { bone } => (std::slice::from_ref(bone), 1.0, &[]),
        Weight::Bdef2 { bones, weight } | Weight::Sdef { bones, weight, .. } => {
            (bones, *weight, &[])
        }
        Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
            (bones, f32::NAN, weights)
        }
    };
    bones.iter().enumerate().map(move |(i, &bone)| {
        let w = match (weights.get(i), bones.len(), i) {
            (Some(&w), _, _) => w,
            (None, 2, 1) => 1.0 - first,
            (None, _, _) => first,
        };
        (bone, w)
    })
}

/// A usable weight: finite and not negative (anything else counts as 0).
fn usable(weight: f32) -> f32 {
    if weight.is_finite() && weight > 0.0 {
        weight
    } else {
        0.0
    }
}

/// `bone`'s total weight on a vertex.
fn bone_weight(weight: &Weight, bone: usize) -> f32 {
    slots(weight)
        .filter(|(b, _)| b.map(BoneIdx::get) == Some(bone))
        .map(|(_, w)| usable(w))
        .sum()
}

/// What one vertex gets from the brush.
struct VertexPaint<'a> {
    mode: PaintMode,
    amount: f32,
    /// The target bone's mean over the edge neighbours (ぼかし only).
    average: f32,
    target: usize,
    locked: &'a [bool],
    max_bones: usize,
}

/// A vertex's bones with their weights, duplicates merged, in the order the vertex holds them.
type Entries = Vec<(usize, f32)>;

fn gather(weight: &Weight) -> Entries {
    let mut entries: Entries = Vec::with_capacity(6);
    for (bone, w) in slots(weight) {
        let Some(bone) = bone.map(BoneIdx::get) else {
            continue;
        };
        match entries.iter_mut().find(|(b, _)| *b == bone) {
            Some(entry) => entry.1 += usable(w),
            None => entries.push((bone, usable(w))),
        }
    }
    entries
}

/// Whether a weight is already one a stroke may leave: finite, no negative or out-of-range
/// weight, no weight on no bone, no bone twice, at most `max_bones` bones, summing to 1.
fn is_valid(weight: &Weight, max_bones: usize) -> bool {
    let mut bones: Vec<usize> = Vec::with_capacity(4);
    let mut sum = 0.0f32;
    for (bone, w) in slots(weight) {
        if !w.is_finite() || !(0.0..=1.0).contains(&w) {
            return false;
        }
        match bone {
            None if w > 1e-6 => return false,
            None => {}
            Some(_) if w == 0.0 => {}
            Some(bone) if bones.contains(&bone.get()) => return false,
            Some(bone) => bones.push(bone.get()),
        }
        sum += w;
    }
    !bones.is_empty() && bones.len() <= max_bones && (sum - 1.0).abs() <= 1e-5
}

/// The vertex's new weight, or `None` when it stays as it is.
fn paint_vertex(
    old: &Weight,
    brush: &VertexPaint<'_>,
    ancestor: impl FnOnce() -> Option<usize>,
) -> Option<Weight> {
    let target = brush.target;
    let is_locked = |b: usize| brush.locked.get(b).copied().unwrap_or(false);
    if is_locked(target) {
        return None;
    }
    let mut entries = gather(old);
    let current = entries
        .iter()
        .find(|(b, _)| *b == target)
        .map_or(0.0, |(_, w)| *w);
    let a = brush.amount;
    let wanted = match brush.mode {
        PaintMode::Add => (current + a).min(1.0),
        PaintMode::Subtract => (current - a).max(0.0),
        PaintMode::Set => a,
        PaintMode::Smooth => current + a * (brush.average - current),
    }
    .clamp(0.0, 1.0);
    let locked_total: f32 = entries
        .iter()
        .filter(|(b, _)| *b != target && is_locked(*b))
        .map(|(_, w)| w)
        .sum();
    let room = (1.0 - locked_total).max(0.0);
    let mut painted = wanted.min(room);
    if painted == current && is_valid(old, brush.max_bones) {
        return None;
    }
    let rest = (room - painted).max(0.0);
    let others: f32 = entries
        .iter()
        .filter(|(b, _)| *b != target && !is_locked(*b))
        .map(|(_, w)| w)
        .sum();
    if others > 0.0 {
        let scale = rest / others;
        for (b, w) in entries.iter_mut() {
            if *b != target && !is_locked(*b) {
                *w *= scale;
            }
        }
    } else if rest > 0.0 {
        if painted >= current {
            // Adding with no other bone to take from: the target holds it all.
            painted += rest;
        } else {
            // Taken away with nowhere to go: the nearest weighted ancestor takes it.
            let heir = ancestor()?;
            match entries.iter_mut().find(|(b, _)| *b == heir) {
                Some(entry) => entry.1 += rest,
                None => entries.push((heir, rest)),
            }
        }
    }
    match entries.iter_mut().find(|(b, _)| *b == target) {
        Some(entry) => entry.1 = painted,
        None => entries.push((target, painted)),
    }
    entries.retain(|(_, w)| *w > 0.0);
    limit_bones(&mut entries, brush.max_bones.max(1), target, &is_locked);
    fill_to_one(&mut entries, target, &is_locked);
    let new = rebuild(old, &entries, &is_locked)?;
    (new != *old).then_some(new)
}

/// Drops the smallest bones beyond `max_bones`: unlocked others first, then locked ones, never
/// the target while others are left.
fn limit_bones(
    entries: &mut Entries,
    max_bones: usize,
    target: usize,
    is_locked: &impl Fn(usize) -> bool,
) {
    while entries.len() > max_bones {
        let smallest = |locked: bool| {
            entries
                .iter()
                .enumerate()
                .filter(|(_, (b, _))| *b != target && is_locked(*b) == locked)
                .min_by(|(_, (_, x)), (_, (_, y))| x.total_cmp(y))
                .map(|(i, _)| i)
        };
        match smallest(false).or_else(|| smallest(true)) {
            Some(victim) => {
                entries.remove(victim);
            }
            None => break,
        }
    }
}

/// Brings the sum back to 1 after bones were dropped: the unlocked others grow in proportion,
/// else the target takes the difference, else the locked bones (unavoidable).
fn fill_to_one(entries: &mut Entries, target: usize, is_locked: &impl Fn(usize) -> bool) {
    let total: f32 = entries.iter().map(|(_, w)| w).sum();
    let missing = 1.0 - total;
    if missing == 0.0 || entries.is_empty() {
        return;
    }
    let groups: [&dyn Fn(usize) -> bool; 3] =
        [&|b| b != target && !is_locked(b), &|b| b == target, &|b| {
            b != target && is_locked(b)
        }];
    for group in groups {
        let sum: f32 = entries
            .iter()
            .filter(|(b, _)| group(*b))
            .map(|(_, w)| w)
            .sum();
        if sum > 0.0 {
            let scale = (sum + missing).max(0.0) / sum;
            for (b, w) in entries.iter_mut() {
                if group(*b) {
                    *w *= scale;
                }
            }
            entries.retain(|(_, w)| *w > 0.0);
            return;
        }
    }
}

/// The weight holding `entries` (bones in this order) in the simplest type: BDEF1, BDEF2 or
/// BDEF4; SDEF while two bones remain (C, R0 and R1 kept); QDEF stays QDEF. The last unlocked
/// bone's weight is 1 minus the others', so the sum is 1 within `f32` rounding.
fn rebuild(
    old: &Weight,
    entries: &[(usize, f32)],
    is_locked: &impl Fn(usize) -> bool,
) -> Option<Weight> {
    let count = entries.len();
    if count == 0 || count > 4 {
        return None;
    }
    let mut weights = [0.0f32; 4];
    let mut bones = [None; 4];
    for (i, (bone, w)) in entries.iter().enumerate() {
        bones[i] = Some(BoneIdx::new(*bone));
        weights[i] = *w;
    }
    // The remainder goes to the last unlocked bone, so that locked weights stay exactly as
    // they were (BDEF2 and SDEF store only the first bone's weight: the second is implied).
    let remainder = entries
        .iter()
        .rposition(|(bone, _)| !is_locked(*bone))
        .unwrap_or(count - 1);
    let remainder = match (count, old) {
        // BDEF2/SDEF: the second weight is implied; a locked second bone sets the first.
        (2, Weight::Qdef { .. }) => remainder,
        (2, _) if is_locked(entries[1].0) && !is_locked(entries[0].0) => 0,
        (2, _) => 1,
        _ => remainder,
    };
    let others: f32 = (0..count)
        .filter(|&i| i != remainder)
        .map(|i| weights[i])
        .sum();
    weights[remainder] = (1.0 - others).max(0.0);
    Some(match (old, count) {
        (Weight::Qdef { .. }, _) => Weight::Qdef { bones, weights },
        (_, 1) => Weight::Bdef1 { bone: bones[0] },
        (Weight::Sdef { c, r0, r1, .. }, 2) => Weight::Sdef {
            bones: [bones[0], bones[1]],
            weight: weights[0],
            c: *c,
            r0: *r0,
            r1: *r1,
        },
        (_, 2) => Weight::Bdef2 {
            bones: [bones[0], bones[1]],
            weight: weights[0],
        },
        _ => Weight::Bdef4 { bones, weights },
    })
}

/// The change of a brush step (or of a merged stroke): the changed vertices, sorted, with
/// their weights before and after. Nothing else of the model is kept.
#[derive(Debug, Default)]
pub(crate) struct WeightsChange {
    bone_name: String,
    vertices: Vec<u32>,
    old: Vec<Weight>,
    new: Vec<Weight>,
}

impl WeightsChange {
    /// "ウェイト描画 左腕 (頂点125個)" / "Weight paint 左腕 (125 vertices)".
    pub(crate) fn label(&self) -> EditLabel {
        EditLabel::new("edit.paint_weights")
            .arg("bone", LabelArg::Text(self.bone_name.clone()))
            .count(self.vertices.len(), EditTarget::Vertex)
    }

    /// Writes the new weights (`forward`) or the old ones back.
    pub(crate) fn write(&self, model: &mut Model, forward: bool) -> Touched {
        let values = if forward { &self.new } else { &self.old };
        for (&vertex, weight) in self.vertices.iter().zip(values) {
            if let Some(v) = model.vertices.get_mut(vertex as usize) {
                v.weight = weight.clone();
            }
        }
        let mut touched = Touched::default();
        touched.add_indices(EditTarget::Vertex, &self.vertices);
        touched.vertex_weights_only = !self.vertices.is_empty();
        touched.weighted_vertices = self.vertices.clone();
        touched
    }

    pub(crate) fn heap_size(&self) -> usize {
        self.bone_name.capacity()
            + self.vertices.capacity() * std::mem::size_of::<u32>()
            + (self.old.capacity() + self.new.capacity()) * std::mem::size_of::<Weight>()
    }

    /// Takes in the next step of the same stroke (applied after this one): the union of the
    /// vertices, each with its oldest old weight and its newest new one.
    pub(crate) fn merge(&mut self, later: WeightsChange) {
        let mut vertices = Vec::with_capacity(self.vertices.len() + later.vertices.len());
        let mut old = Vec::with_capacity(vertices.capacity());
        let mut new = Vec::with_capacity(vertices.capacity());
        let mut mine = std::mem::take(&mut self.vertices)
            .into_iter()
            .zip(
                std::mem::take(&mut self.old)
                    .into_iter()
                    .zip(std::mem::take(&mut self.new)),
            )
            .peekable();
        let mut theirs = later
            .vertices
            .into_iter()
            .zip(later.old.into_iter().zip(later.new))
            .peekable();
        loop {
            let order = match (mine.peek(), theirs.peek()) {
                (Some((a, _)), Some((b, _))) => a.cmp(b),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => break,
            };
            let next = match order {
                std::cmp::Ordering::Less => mine.next(),
                std::cmp::Ordering::Greater => theirs.next(),
                std::cmp::Ordering::Equal => match (mine.next(), theirs.next()) {
                    (Some((vertex, (before, _))), Some((_, (_, after)))) => {
                        Some((vertex, (before, after)))
                    }
                    _ => None,
                },
            };
            let Some((vertex, (before, after))) = next else {
                break;
            };
            vertices.push(vertex);
            old.push(before);
            new.push(after);
        }
        self.vertices = vertices;
        self.old = old;
        self.new = new;
    }
}

/// The per-model lookups a brush step needs, built once and kept while the model's faces,
/// vertex positions and vertex count stay as they are (weight edits leave it valid): the edge
/// neighbours of every vertex (ぼかし) and the X-mirror lookup. A part not built yet is built
/// on first use ([`PaintIndex::lazy`]); an index whose counts no longer match the model is not
/// used (the step builds what it needs afresh).
#[derive(Debug, Default)]
pub struct PaintIndex {
    vertices: usize,
    faces: usize,
    neighbours: OnceLock<Adjacency>,
    mirror: OnceLock<MirrorLookup>,
}

impl PaintIndex {
    /// Every lookup, built now (the 3D view builds this when the paint tool starts).
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let index = Self::lazy(model);
        index.neighbours(model);
        index.mirror(model);
        index
    }

    /// Nothing built yet: each lookup is built the first time a step needs it.
    #[must_use]
    pub fn lazy(model: &Model) -> Self {
        Self {
            vertices: model.vertices.len(),
            faces: model.faces.len(),
            neighbours: OnceLock::new(),
            mirror: OnceLock::new(),
        }
    }

    /// Whether the index was built for a model of `model`'s shape (same vertex and face
    /// counts; moving vertices or rewiring faces without changing the counts needs a new index
    /// too, which the caller knows from [`super::Touched`]).
    #[must_use]
    pub fn fits(&self, model: &Model) -> bool {
        self.vertices == model.vertices.len() && self.faces == model.faces.len()
    }

    fn neighbours(&self, model: &Model) -> &Adjacency {
        self.neighbours.get_or_init(|| Adjacency::new(model))
    }

    fn mirror(&self, model: &Model) -> &MirrorLookup {
        self.mirror.get_or_init(|| MirrorLookup::new(model))
    }

    /// `vertex`'s edge neighbours (each once, ascending; none for a vertex past the end).
    #[must_use]
    pub fn neighbours_of(&self, model: &Model, vertex: usize) -> &[u32] {
        self.neighbours(model).of(vertex)
    }

    /// The vertex at `vertex`'s mirror image (−x, y, z), if any within the tolerance; a vertex
    /// on the centre line is its own.
    #[must_use]
    pub fn mirror_vertex(&self, model: &Model, vertex: usize) -> Option<usize> {
        self.mirror(model).find(model, vertex)
    }
}

/// Each vertex's edge neighbours (compressed rows: `neighbours[offsets[v]..offsets[v + 1]]`).
#[derive(Debug)]
struct Adjacency {
    offsets: Vec<usize>,
    neighbours: Vec<u32>,
}

impl Adjacency {
    fn new(model: &Model) -> Self {
        let count = model.vertices.len();
        let edges = || {
            model.faces.iter().flat_map(|face| {
                let [a, b, c] = face.map(|v| v.get());
                [(a, b), (b, c), (c, a)]
            })
        };
        let usable = |(a, b): (usize, usize)| a != b && a < count && b < count;
        let mut degree = vec![0usize; count + 1];
        for (a, b) in edges().filter(|&edge| usable(edge)) {
            degree[a] += 1;
            degree[b] += 1;
        }
        let mut offsets = Vec::with_capacity(count + 1);
        let mut total = 0;
        for d in &degree[..count] {
            offsets.push(total);
            total += d;
        }
        offsets.push(total);
        let mut fill = offsets.clone();
        let mut neighbours = vec![0u32; total];
        for (a, b) in edges().filter(|&edge| usable(edge)) {
            neighbours[fill[a]] = b as u32;
            fill[a] += 1;
            neighbours[fill[b]] = a as u32;
            fill[b] += 1;
        }
        // Each edge is listed by both of its faces: keep each neighbour once.
        let mut compact = Vec::with_capacity(total / 2 + 1);
        let mut compact_offsets = Vec::with_capacity(count + 1);
        for v in 0..count {
            compact_offsets.push(compact.len());
            let row = &mut neighbours[offsets[v]..offsets[v + 1]];
            row.sort_unstable();
            let start = compact.len();
            for &n in row.iter() {
                if compact.len() == start || compact.last() != Some(&n) {
                    compact.push(n);
                }
            }
        }
        compact_offsets.push(compact.len());
        compact.shrink_to_fit();
        Self {
            offsets: compact_offsets,
            neighbours: compact,
        }
    }

    fn of(&self, vertex: usize) -> &[u32] {
        match (self.offsets.get(vertex), self.offsets.get(vertex + 1)) {
            (Some(&start), Some(&end)) => self.neighbours.get(start..end).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// Vertices sorted by the grid cell of their position, to find the one at a mirrored place
/// (a spatial hash: each lookup searches the few cells around the image, so a million vertices
/// are paired in well under a second). The morph tools build one with their own tolerance.
#[derive(Debug)]
pub(crate) struct MirrorLookup {
    /// Two vertices this close (relative to the model's size) are at the same place.
    tolerance: f32,
    cell: f32,
    cells: Vec<(u64, u32)>,
}

/// A cell coordinate's range per axis (21 bits each in the key).
const CELL_BITS: u32 = 21;

impl MirrorLookup {
    /// The tolerance relative to the bounding box's diagonal.
    const RELATIVE_TOLERANCE: f32 = 1e-4;

    fn new(model: &Model) -> Self {
        let mut low = glam::Vec3::splat(f32::INFINITY);
        let mut high = glam::Vec3::splat(f32::NEG_INFINITY);
        for vertex in &model.vertices {
            let p = glam::Vec3::from(vertex.position);
            if p.is_finite() {
                low = low.min(p);
                high = high.max(p);
            }
        }
        let diagonal = if low.x <= high.x {
            (high - low).length()
        } else {
            0.0
        };
        Self::with_tolerance(model, (diagonal * Self::RELATIVE_TOLERANCE).max(1e-6))
    }

    /// A lookup where two places closer than `tolerance` (model units) are the same; a vertex
    /// within `tolerance` of x = 0 is its own image.
    pub(crate) fn with_tolerance(model: &Model, tolerance: f32) -> Self {
        let tolerance = if tolerance.is_finite() && tolerance > 0.0 {
            tolerance
        } else {
            1e-6
        };
        let cell = tolerance * 2.0;
        let mut cells: Vec<(u64, u32)> = model
            .vertices
            .iter()
            .enumerate()
            .filter_map(|(i, vertex)| {
                let p = glam::Vec3::from(vertex.position);
                p.is_finite()
                    .then(|| (cell_key(cell_of(p, cell)), i as u32))
            })
            .collect();
        cells.sort_unstable();
        Self {
            tolerance,
            cell,
            cells,
        }
    }

    /// The vertex at `vertex`'s mirror image (−x, y, z) within the tolerance, the nearest (then
    /// the lowest index) when several are.
    pub(crate) fn find(&self, model: &Model, vertex: usize) -> Option<usize> {
        let p = glam::Vec3::from(model.vertices.get(vertex)?.position);
        if !p.is_finite() {
            return None;
        }
        if p.x.abs() <= self.tolerance {
            return Some(vertex);
        }
        let image = glam::Vec3::new(-p.x, p.y, p.z);
        let low = cell_of(image - self.tolerance, self.cell);
        let high = cell_of(image + self.tolerance, self.cell);
        let mut best: Option<(f32, usize)> = None;
        for x in low[0]..=high[0] {
            for y in low[1]..=high[1] {
                for z in low[2]..=high[2] {
                    let key = cell_key([x, y, z]);
                    let start = self.cells.partition_point(|&(k, _)| k < key);
                    for &(_, other) in self.cells[start..].iter().take_while(|(k, _)| *k == key) {
                        let Some(q) = model.vertices.get(other as usize) else {
                            continue;
                        };
                        let distance = glam::Vec3::from(q.position).distance(image);
                        if distance <= self.tolerance
                            && best.is_none_or(|(d, i)| (distance, other as usize) < (d, i))
                        {
                            best = Some((distance, other as usize));
                        }
                    }
                }
            }
        }
        best.map(|(_, i)| i)
    }
}

fn cell_of(p: glam::Vec3, cell: f32) -> [i64; 3] {
    let limit = (1i64 << (CELL_BITS - 1)) - 1;
    (p / cell)
        .floor()
        .to_array()
        .map(|c| (c as i64).clamp(-limit, limit))
}

fn cell_key(cell: [i64; 3]) -> u64 {
    let offset = 1i64 << (CELL_BITS - 1);
    cell.iter()
        .fold(0u64, |key, &c| (key << CELL_BITS) | (c + offset) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Vec3, Vertex, VertexIdx};

    fn strip(weights: Vec<Weight>) -> Model {
        let mut model = Model::new_empty();
        for name in ["センター", "左腕", "右腕"] {
            model.bones.push(crate::model::Bone {
                name_ja: name.into(),
                parent: (name != "センター").then(|| BoneIdx::new(0)),
                ..crate::model::Bone::default()
            });
        }
        for (i, weight) in weights.into_iter().enumerate() {
            let x = [1.0, -1.0, 0.0, 2.0][i % 4];
            model.vertices.push(Vertex {
                position: Vec3::new(x, i as f32, 0.0),
                weight,
                ..Vertex::default()
            });
        }
        for i in 2..model.vertices.len() {
            model.faces.push([i - 2, i - 1, i].map(VertexIdx::new));
        }
        model
    }

    #[test]
    fn touched_stays_weights_only_only_when_both_sides_are() {
        let model = strip(vec![
            Weight::Bdef1 {
                bone: Some(BoneIdx::new(0))
            };
            4
        ]);
        let stroke = |vertices: Vec<usize>| PaintWeights {
            bone: BoneRef::Name("左腕".into()),
            mode: PaintMode::Add,
            amounts: vec![0.5; vertices.len()],
            vertices,
            mirror: false,
            max_bones: 4,
            locked: Vec::new(),
        };
        let mut copy = model.clone();
        let mut first = Edit::paint_weights(&model, &stroke(vec![3, 0])).unwrap();
        let mut touched = first.apply(&mut copy);
        assert!(touched.vertex_weights_only && !touched.vertex_positions_only);
        assert_eq!(touched.weighted_vertices, vec![0, 3]);
        let mut second = Edit::paint_weights(&copy, &stroke(vec![1])).unwrap();
        touched.extend(second.apply(&mut copy));
        assert!(touched.vertex_weights_only);
        assert_eq!(touched.weighted_vertices, vec![0, 1, 3]);
        let mut bones_only = Touched::default();
        bones_only.add_range(EditTarget::Bone, 0..1);
        touched.extend(bones_only);
        assert!(touched.vertex_weights_only, "no vertices on the other side");
        let mut positions = Touched::default();
        positions.add_range(EditTarget::Vertex, 2..3);
        positions.vertex_positions_only = true;
        touched.extend(positions);
        assert!(!touched.vertex_weights_only && !touched.vertex_positions_only);
        assert!(touched.weighted_vertices.is_empty());
    }

    #[test]
    fn merging_keeps_the_oldest_old_and_the_newest_new() {
        let model = strip(vec![
            Weight::Bdef1 {
                bone: Some(BoneIdx::new(0))
            };
            4
        ]);
        let step = |model: &Model, vertices: Vec<usize>| {
            let paint = PaintWeights {
                bone: BoneRef::Index(1),
                mode: PaintMode::Add,
                amounts: vec![0.25; vertices.len()],
                vertices,
                mirror: false,
                max_bones: 4,
                locked: Vec::new(),
            };
            Edit::paint_weights(model, &paint).unwrap()
        };
        let mut doc = model.clone();
        let mut history = super::super::History::new();
        let gesture = history.new_gesture();
        let first = step(&doc, vec![0, 2]);
        history.apply(&mut doc, first.in_gesture(gesture));
        let second = step(&doc, vec![2, 3]);
        history.apply(&mut doc, second.in_gesture(gesture));
        assert_eq!(history.len(), 1);
        assert_eq!(history.undo_label(), Some("Weight paint 左腕 (3 vertices)"));
        assert_eq!(bone_weight(&doc.vertices[2].weight, 1), 0.5);
        history.undo(&mut doc);
        assert!(doc == model);
    }

    #[test]
    fn the_mirror_image_is_the_vertex_at_minus_x() {
        // Vertices at x = 1, −1, 0, 2: 0 and 1 mirror each other, 2 is on the centre line.
        let model = strip(vec![
            Weight::Bdef1 {
                bone: Some(BoneIdx::new(0))
            };
            4
        ]);
        let mut moved = model.clone();
        moved.vertices[1].position = Vec3::new(-1.0, 0.0, 0.0);
        let index = PaintIndex::new(&moved);
        assert_eq!(index.mirror_vertex(&moved, 0), Some(1));
        assert_eq!(index.mirror_vertex(&moved, 1), Some(0));
        assert_eq!(index.mirror_vertex(&moved, 2), Some(2));
        assert_eq!(index.mirror_vertex(&moved, 3), None);
        let paint = PaintWeights {
            bone: BoneRef::Name("左腕".into()),
            mode: PaintMode::Set,
            vertices: vec![0, 2],
            amounts: vec![1.0, 1.0],
            mirror: true,
            max_bones: 4,
            locked: Vec::new(),
        };
        let mut after = moved.clone();
        Edit::paint_weights(&moved, &paint)
            .unwrap()
            .apply(&mut after);
        assert_eq!(
            after.vertices[0].weight,
            Weight::Bdef1 {
                bone: Some(BoneIdx::new(1))
            }
        );
        assert_eq!(
            after.vertices[1].weight,
            Weight::Bdef1 {
                bone: Some(BoneIdx::new(2))
            }
        );
        assert_eq!(
            after.vertices[2].weight,
            Weight::Bdef1 {
                bone: Some(BoneIdx::new(1))
            }
        );
    }
}
