//! Helpers the rules share: edit ops, issue lists with a cap per code, names of kinds.

use super::{Fix, FixStep, Issue, Severity};
use crate::edit::{Element, Field, FieldType, SetField};
use crate::model::{ElementKind, Text};
use crate::path::ModelPath;
use std::borrow::Cow;
use std::collections::HashSet;

/// Sets `field` of the elements at `indices` (none for the header and info) to `value`.
pub(crate) fn set_op<E: Element, T: FieldType>(
    field: Field<E, T>,
    indices: Vec<usize>,
    value: T,
) -> FixStep {
    FixStep::Set(SetField::new(field, indices, value))
}

/// Sets `field` of each element at `indices` to its own value (one value for all when they are
/// equal).
pub(crate) fn set_each_op<E: Element, T: FieldType>(
    field: Field<E, T>,
    indices: Vec<usize>,
    mut values: Vec<T>,
) -> FixStep {
    if values.len() > 1 && values.windows(2).all(|pair| pair[0] == pair[1]) {
        values.truncate(1);
    }
    if values.len() == 1
        && let Some(value) = values.pop()
    {
        return set_op(field, indices, value);
    }
    FixStep::Set(SetField::each(field, indices, values))
}

/// Deletes the elements at `indices`.
pub(crate) fn delete_op(kind: ElementKind, indices: Vec<usize>) -> FixStep {
    FixStep::Delete { kind, indices }
}

/// Japanese name of an element kind (頂点, ボーン, ...).
pub(crate) fn kind_ja(kind: ElementKind) -> &'static str {
    match kind {
        ElementKind::Vertex => "頂点",
        ElementKind::Face => "面",
        ElementKind::Texture => "テクスチャ",
        ElementKind::Material => "材質",
        ElementKind::Bone => "ボーン",
        ElementKind::Morph => "モーフ",
        ElementKind::DisplayFrame => "表示枠",
        ElementKind::RigidBody => "剛体",
        ElementKind::Joint => "ジョイント",
        ElementKind::SoftBody => "ソフトボディ",
    }
}

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A name for messages: `"センター"`, or `(no name)`.
pub(crate) fn quoted(text: &Text) -> Cow<'static, str> {
    if text.is_empty() {
        Cow::Borrowed("(no name)")
    } else {
        Cow::Owned(format!("\"{}\"", text.as_str()))
    }
}

/// Floats and vectors of floats: replacement of non-finite components.
pub(crate) trait Floats: Copy {
    /// Each non-finite component replaced by the same component of `default`.
    fn finite_or(self, default: Self) -> Self;
}

impl Floats for f32 {
    fn finite_or(self, default: Self) -> Self {
        if self.is_finite() { self } else { default }
    }
}

macro_rules! floats_vector {
    ($ty:ty, $($field:ident),+) => {
        impl Floats for $ty {
            fn finite_or(self, default: Self) -> Self {
                Self { $($field: self.$field.finite_or(default.$field)),+ }
            }
        }
    };
}

floats_vector!(crate::model::Vec2, x, y);
floats_vector!(crate::model::Vec3, x, y, z);
floats_vector!(crate::model::Vec4, x, y, z, w);

/// One part of a fix, for one element (a broken model may have a million findings: the parts
/// of a summed-up issue merge into a few steps).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FixPart {
    /// Set a typed field of one element.
    Set(SetField),
    Delete {
        kind: ElementKind,
        index: usize,
    },
}

impl FixPart {
    pub fn set<E: Element, T: FieldType>(field: Field<E, T>, index: usize, value: T) -> Self {
        FixPart::Set(SetField::new(field, vec![index], value))
    }
}

/// The steps of `parts`, merged: the sets of one field in one step (per value type), the
/// deletions of one kind in one step.
pub(crate) fn parts_to_steps(parts: Vec<FixPart>) -> Vec<FixStep> {
    // Each merged set with the elements it already covers (an element set twice stays in
    // separate steps, applied in order).
    let mut sets: Vec<(SetField, HashSet<usize>)> = Vec::new();
    let mut deletes: Vec<(ElementKind, Vec<usize>)> = Vec::new();
    for part in parts {
        match part {
            FixPart::Set(set) => {
                let index = set.indices().first().copied().unwrap_or(0);
                let mut pending = Some(set);
                for (merged, covered) in &mut sets {
                    let Some(set) = pending.take() else { break };
                    if covered.contains(&index) {
                        pending = Some(set);
                        continue;
                    }
                    match merged.absorb(set) {
                        Ok(()) => {
                            covered.insert(index);
                        }
                        Err(set) => pending = Some(set),
                    }
                }
                if let Some(set) = pending {
                    sets.push((set, HashSet::from([index])));
                }
            }
            FixPart::Delete { kind, index } => match deletes.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, indices)) => indices.push(index),
                None => deletes.push((kind, vec![index])),
            },
        }
    }
    let mut steps: Vec<FixStep> = sets.into_iter().map(|(set, _)| FixStep::Set(set)).collect();
    for (kind, mut indices) in deletes {
        indices.sort_unstable();
        indices.dedup();
        steps.push(delete_op(kind, indices));
    }
    steps
}

/// A finding of a rule: the issue text and the parts of its fix.
pub(crate) struct Finding {
    pub path: ModelPath,
    pub message_en: String,
    pub message_ja: String,
    pub parts: Vec<FixPart>,
}

/// Emits findings of one code, the first `cap` one by one and the rest summed up in one issue
/// whose fix covers all of them. `label` gives the fix's label for a number of findings.
pub(crate) fn emit_findings(
    out: &mut Vec<Issue>,
    severity: Severity,
    code: &'static str,
    findings: Vec<Finding>,
    cap: usize,
    summary_path: Option<ModelPath>,
    summary: (&str, &str),
    label: impl Fn(usize) -> (String, String),
) {
    let fix_of = |parts: Vec<FixPart>, count: usize| -> Option<Fix> {
        if parts.is_empty() {
            return None;
        }
        let (en, ja) = label(count);
        Some(Fix::new(en, ja, parts_to_steps(parts)))
    };
    let cap = cap.max(1);
    let total = findings.len();
    let mut rest_parts = Vec::new();
    let mut first_rest = None;
    for (i, finding) in findings.into_iter().enumerate() {
        if i < cap {
            out.push(
                Issue::new(
                    severity,
                    code,
                    finding.path,
                    finding.message_en,
                    finding.message_ja,
                )
                .with_fix(fix_of(finding.parts, 1)),
            );
        } else {
            if i == cap {
                first_rest = Some(finding.path);
            }
            rest_parts.extend(finding.parts);
        }
    }
    if total > cap {
        let rest = total - cap;
        // Findings across element kinds are summed up at the first of the rest.
        let path = match (summary_path, first_rest) {
            (Some(path), _) => path,
            (None, Some(first)) => first,
            (None, None) => ModelPath::header(),
        };
        out.push(
            Issue::new(
                severity,
                code,
                path,
                format!("and {} more: {}", thousands(rest), summary.0),
                format!("他に{}件: {}", thousands(rest), summary.1),
            )
            .with_fix(fix_of(rest_parts, rest))
            .summing_up(rest),
        );
    }
}

/// `weight` made valid for a model with `num_bones` bones, keeping its kind where it can:
/// references past the end become none (weight 0), non-finite and negative weights 0, BDEF4 and
/// QDEF weights normalized to sum 1 (equal when they summed to 0), a BDEF2/SDEF weight clamped
/// to 0..1; BDEF2/SDEF with one usable bone or the same bone twice become BDEF1. A weight with no
/// usable bone goes to bone 0 (none when the model has no bones).
pub(crate) fn repaired_weight(
    original: &crate::model::Weight,
    num_bones: usize,
) -> crate::model::Weight {
    use crate::model::{BoneIdx, Weight};
    let usable = |bone: Option<BoneIdx>| bone.filter(|b| b.get() < num_bones);
    let fallback = Weight::Bdef1 {
        bone: (num_bones > 0).then(|| BoneIdx::new(0)),
    };
    match original {
        Weight::Bdef1 { bone } => match usable(*bone) {
            Some(bone) => Weight::Bdef1 { bone: Some(bone) },
            None => fallback,
        },
        Weight::Bdef2 { bones, weight } | Weight::Sdef { bones, weight, .. } => {
            let w = if weight.is_finite() {
                weight.clamp(0.0, 1.0)
            } else {
                0.5
            };
            match (usable(bones[0]), usable(bones[1])) {
                (Some(a), Some(b)) if a != b => match original {
                    Weight::Sdef { c, r0, r1, .. } => Weight::Sdef {
                        bones: [Some(a), Some(b)],
                        weight: w,
                        c: *c,
                        r0: *r0,
                        r1: *r1,
                    },
                    _ => Weight::Bdef2 {
                        bones: [Some(a), Some(b)],
                        weight: w,
                    },
                },
                (Some(a), _) | (None, Some(a)) => Weight::Bdef1 { bone: Some(a) },
                (None, None) => fallback,
            }
        }
        Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
            let mut slots: [(Option<BoneIdx>, f32); 4] = [(None, 0.0); 4];
            for (slot, (bone, w)) in slots.iter_mut().zip(bones.iter().zip(weights)) {
                // An unusable slot becomes "none" with weight 0.
                if let Some(bone) = usable(*bone) {
                    *slot = (Some(bone), if w.is_finite() { w.max(0.0) } else { 0.0 });
                }
            }
            // The same bone twice: one slot with the sum.
            for i in 0..4 {
                for j in i + 1..4 {
                    if slots[i].0.is_some() && slots[i].0 == slots[j].0 {
                        slots[i].1 += slots[j].1;
                        slots[j] = (None, 0.0);
                    }
                }
            }
            let used = slots.iter().filter(|(bone, _)| bone.is_some()).count();
            if used == 0 {
                return fallback;
            }
            let sum: f32 = slots.iter().map(|(_, w)| w).sum();
            for (bone, w) in &mut slots {
                if bone.is_some() {
                    *w = if sum > 0.0 {
                        *w / sum
                    } else {
                        1.0 / used as f32
                    };
                }
            }
            let bones = slots.map(|(bone, _)| bone);
            let weights = slots.map(|(_, w)| w);
            if matches!(original, Weight::Qdef { .. }) {
                Weight::Qdef { bones, weights }
            } else {
                Weight::Bdef4 { bones, weights }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::field;
    use crate::model::{Vec3, Vertex};

    #[test]
    fn parts_of_many_findings_merge_into_few_typed_steps() {
        let position = field::<Vertex>().position();
        let mut parts: Vec<FixPart> = (0..1000)
            .map(|i| FixPart::set(position.clone(), i, Vec3::ZERO))
            .collect();
        parts.push(FixPart::set(field::<Vertex>().edge_scale(), 7, 1.0));
        // The same element set twice goes into a second step, applied after the first.
        parts.push(FixPart::set(position.clone(), 3, Vec3::new(1.0, 0.0, 0.0)));
        parts.push(FixPart::Delete {
            kind: ElementKind::Face,
            index: 9,
        });
        parts.push(FixPart::Delete {
            kind: ElementKind::Face,
            index: 2,
        });
        let steps = parts_to_steps(parts);
        assert_eq!(steps.len(), 4);
        let FixStep::Set(first) = &steps[0] else {
            panic!("a set first")
        };
        assert_eq!(first.indices().len(), 1000);
        assert_eq!(first.path().to_string(), "position");
        let FixStep::Set(again) = &steps[2] else {
            panic!("the second set of vertex 3")
        };
        assert_eq!(again.indices(), &[3]);
        assert_eq!(
            steps[3],
            FixStep::Delete {
                kind: ElementKind::Face,
                indices: vec![2, 9]
            }
        );
    }
}
