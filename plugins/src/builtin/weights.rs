//! Weights: normalise, clean small weights, limit the bones per vertex, transfer a bone's weight
//! to another. Each works on the selected vertices, else the vertices of the selected materials,
//! else every vertex, and rewrites only the vertices whose weight changes.
//!
//! A weight is rewritten in the simplest type that deforms the same: one bone left is BDEF1,
//! two are BDEF2 (an SDEF vertex stays SDEF with its C/R0/R1, a QDEF one stays QDEF), three or
//! four are BDEF4 (QDEF stays QDEF).

use super::common::{VertexScope, count, target_vertices};
use crate::api::{
    EditBatch, Needs, Plugin, PluginContext, PluginError, PluginGroup, PluginInfo, PluginOutput,
};
use crate::options::OptionSpec;
use pmx_core::Model;
use pmx_core::edit::{SetField, field};
use pmx_core::model::{BoneIdx, ElementKind, Vertex, Weight};
use pmx_core::validate::FixStep;

/// A vertex's influences with a bone and a positive weight, the same bone's weights summed
/// into its first slot, in slot order.
#[derive(Debug, Default)]
struct Influences {
    pairs: Vec<(BoneIdx, f32)>,
    /// A bone appeared in two slots.
    merged: bool,
    /// A slot had no bone, or a weight of zero, below zero or not a number.
    dropped: bool,
}

fn influences(weight: &Weight) -> Influences {
    let mut out = Influences::default();
    for (bone, value) in weight.bone_weights() {
        let Some(bone) = bone.filter(|_| value.is_finite() && value > 0.0) else {
            out.dropped = true;
            continue;
        };
        match out.pairs.iter_mut().find(|(other, _)| *other == bone) {
            Some(entry) => {
                entry.1 += value;
                out.merged = true;
            }
            None => out.pairs.push((bone, value)),
        }
    }
    out
}

/// The weight of `pairs` (distinct bones, positive weights, at most four), scaled to sum to 1,
/// in the simplest type that deforms like `like` (see the module docs). `None` when `pairs` is
/// empty or has more than four entries.
fn rebuilt(pairs: &[(BoneIdx, f32)], like: &Weight) -> Option<Weight> {
    let total: f32 = pairs.iter().map(|(_, w)| w).sum();
    if pairs.is_empty() || pairs.len() > 4 || !(total.is_finite() && total > 0.0) {
        return None;
    }
    let mut weights: Vec<f32> = pairs.iter().map(|(_, w)| w / total).collect();
    // The last weight takes what the others leave, so the sum is 1 up to one rounding.
    let others: f32 = weights[..weights.len() - 1].iter().sum();
    if let Some(last) = weights.last_mut() {
        *last = (1.0 - others).max(0.0);
    }
    let bone = |k: usize| pairs.get(k).map(|(b, _)| *b);
    let weight_of = |k: usize| weights.get(k).copied().unwrap_or(0.0);
    let four_bones = [bone(0), bone(1), bone(2), bone(3)];
    let four_weights = [weight_of(0), weight_of(1), weight_of(2), weight_of(3)];
    Some(match (pairs.len(), like) {
        (1, _) => Weight::Bdef1 { bone: bone(0) },
        (_, Weight::Qdef { .. }) => Weight::Qdef {
            bones: four_bones,
            weights: four_weights,
        },
        (2, Weight::Sdef { c, r0, r1, .. }) => Weight::Sdef {
            bones: [bone(0), bone(1)],
            weight: weight_of(0),
            c: *c,
            r0: *r0,
            r1: *r1,
        },
        (2, _) => Weight::Bdef2 {
            bones: [bone(0), bone(1)],
            weight: weight_of(0),
        },
        _ => Weight::Bdef4 {
            bones: four_bones,
            weights: four_weights,
        },
    })
}

/// The weight set of the vertices whose weight `change` rewrites, with the notes.
fn weight_output(
    model: &Model,
    targets: &[usize],
    scope: VertexScope,
    what: (&str, &str),
    mut change: impl FnMut(&Weight) -> Option<Weight>,
) -> PluginOutput {
    let mut changed = Vec::new();
    let mut weights = Vec::new();
    for &v in targets {
        if let Some(new) = change(&model.vertices[v].weight)
            && new != model.vertices[v].weight
        {
            changed.push(v);
            weights.push(new);
        }
    }
    let (scope_en, scope_ja) = scope.describe(targets.len());
    let mut output = PluginOutput::new(EditBatch::new()).with_note(
        format!("{}: {} of {scope_en}", what.0, count(changed.len())),
        format!("{scope_ja}のうち{}個の{}", count(changed.len()), what.1),
    );
    if !changed.is_empty() {
        output.batch.push(FixStep::Set(SetField::each(
            field::<Vertex>().weight(),
            changed,
            weights,
        )));
    }
    output
}

fn vertex_targets(cx: &PluginContext<'_>) -> Result<(Vec<usize>, VertexScope), PluginError> {
    let (targets, scope) = target_vertices(cx);
    if targets.is_empty() {
        return Err(PluginError::refused(
            "the model has no vertices",
            "頂点がありません",
        ));
    }
    Ok((targets, scope))
}

const VERTEX_SCOPE_EN: &str =
    "Works on the selected vertices, else the vertices of the selected materials, else all.";
const VERTEX_SCOPE_JA: &str = "選択頂点、なければ選択材質の頂点、なければ全頂点が対象です。";

/// ウェイトの正規化: BDEF4 and QDEF weights scaled to sum to 1 (negative weights and weights on
/// no bone become 0); a BDEF2 or SDEF weight outside 0..1 is clamped into it (their two weights
/// always sum to 1). BDEF1 has nothing to normalise.
#[derive(Debug, Clone, Copy)]
pub struct NormalizeWeights;

impl Plugin for NormalizeWeights {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "normalize_weights".to_owned(),
            group: PluginGroup::Weights,
            name_ja: "ウェイトの正規化".to_owned(),
            name_en: "Normalize weights".to_owned(),
            description_ja: format!(
                "BDEF4/QDEFのウェイトの合計を1にします（負のウェイトとボーンなしのウェイトは0）。BDEF2/SDEFのウェイトは0〜1に収めます。{VERTEX_SCOPE_JA}"
            ),
            description_en: format!(
                "Scales BDEF4/QDEF weights to sum to 1 (negative weights and weights on no bone become 0) and clamps BDEF2/SDEF weights into 0..1. {VERTEX_SCOPE_EN}"
            ),
            version: "1.0".to_owned(),
            needs: Needs::SelectedOrAll(ElementKind::Vertex),
            options: Vec::new(),
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let (targets, scope) = vertex_targets(cx)?;
        let mut unweighted = 0usize;
        let mut output = weight_output(
            cx.model,
            &targets,
            scope,
            ("weights normalized", "頂点のウェイトを正規化"),
            |weight| match weight {
                Weight::Bdef1 { .. } => None,
                Weight::Bdef2 { bones, weight } => weight.is_finite().then(|| Weight::Bdef2 {
                    bones: *bones,
                    weight: weight.clamp(0.0, 1.0),
                }),
                Weight::Sdef {
                    bones,
                    weight,
                    c,
                    r0,
                    r1,
                } => weight.is_finite().then(|| Weight::Sdef {
                    bones: *bones,
                    weight: weight.clamp(0.0, 1.0),
                    c: *c,
                    r0: *r0,
                    r1: *r1,
                }),
                Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
                    let usable = |k: usize| {
                        let w = weights[k];
                        if bones[k].is_some() && w.is_finite() && w > 0.0 {
                            w
                        } else {
                            0.0
                        }
                    };
                    let mut scaled = [usable(0), usable(1), usable(2), usable(3)];
                    let total: f32 = scaled.iter().sum();
                    if total <= 0.0 {
                        unweighted += 1;
                        return None;
                    }
                    if (total - 1.0).abs() > f32::EPSILON || scaled != *weights {
                        for w in &mut scaled {
                            *w /= total;
                        }
                        if let Some(last) = (0..4).rev().find(|&k| scaled[k] > 0.0) {
                            let others: f32 =
                                (0..4).filter(|&k| k != last).map(|k| scaled[k]).sum();
                            scaled[last] = (1.0 - others).max(0.0);
                        }
                    }
                    Some(if matches!(weight, Weight::Qdef { .. }) {
                        Weight::Qdef {
                            bones: *bones,
                            weights: scaled,
                        }
                    } else {
                        Weight::Bdef4 {
                            bones: *bones,
                            weights: scaled,
                        }
                    })
                }
            },
        );
        if unweighted > 0 {
            output.note(
                format!(
                    "{} BDEF4/QDEF vertices have no weight on any bone and were left as they are",
                    count(unweighted)
                ),
                format!(
                    "{}個のBDEF4/QDEF頂点はどのボーンにもウェイトがないため変更していません",
                    count(unweighted)
                ),
            );
        }
        Ok(output)
    }
}

/// ウェイトの整理: weights below `threshold` dropped (and slots of no bone or weight 0), the
/// same bone in two slots merged, the rest scaled to sum to 1 and the type simplified (BDEF4 →
/// BDEF2 → BDEF1; SDEF stays SDEF while two bones remain). A vertex whose every weight is
/// below the threshold keeps its largest.
#[derive(Debug, Clone, Copy)]
pub struct CleanWeights;

impl Plugin for CleanWeights {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "clean_weights".to_owned(),
            group: PluginGroup::Weights,
            name_ja: "ウェイトの整理".to_owned(),
            name_en: "Clean weights".to_owned(),
            description_ja: format!(
                "しきい値未満のウェイトを削除し、同じボーンをまとめ、合計を1にしてウェイト種類を簡単にします（BDEF4→BDEF2→BDEF1。SDEFは2ボーン残ればSDEFのまま）。{VERTEX_SCOPE_JA}"
            ),
            description_en: format!(
                "Drops weights below the threshold, merges the same bone in two slots, scales the rest to sum to 1 and simplifies the type (BDEF4 → BDEF2 → BDEF1; SDEF stays SDEF while two bones remain). {VERTEX_SCOPE_EN}"
            ),
            version: "1.0".to_owned(),
            needs: Needs::SelectedOrAll(ElementKind::Vertex),
            options: vec![OptionSpec::number(
                "threshold",
                "しきい値",
                "Threshold",
                0.01,
                0.0,
                0.5,
                "",
            )],
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let (targets, scope) = vertex_targets(cx)?;
        #[allow(clippy::cast_possible_truncation)]
        let threshold = cx.options.number("threshold") as f32;
        Ok(weight_output(
            cx.model,
            &targets,
            scope,
            ("weights cleaned", "頂点のウェイトを整理"),
            |weight| {
                let mut found = influences(weight);
                let largest =
                    found
                        .pairs
                        .iter()
                        .copied()
                        .fold(None, |best: Option<(BoneIdx, f32)>, pair| match best {
                            Some(best) if best.1 >= pair.1 => Some(best),
                            _ => Some(pair),
                        });
                let before = found.pairs.len();
                found.pairs.retain(|(_, w)| *w >= threshold);
                if found.pairs.is_empty() {
                    found.pairs.extend(largest);
                }
                let changed = found.dropped || found.merged || found.pairs.len() != before;
                if changed {
                    rebuilt(&found.pairs, weight)
                } else {
                    None
                }
            },
        ))
    }
}

/// ボーン数の制限: at most `max_bones` bones per vertex (the largest weights kept, scaled to
/// sum to 1); the same bone in two slots is merged first.
#[derive(Debug, Clone, Copy)]
pub struct LimitWeights;

impl Plugin for LimitWeights {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "limit_weights".to_owned(),
            group: PluginGroup::Weights,
            name_ja: "ウェイトボーン数の制限".to_owned(),
            name_en: "Limit bones per vertex".to_owned(),
            description_ja: format!(
                "1頂点のボーンを最大数までにします（大きいウェイトを残して合計を1に）。同じボーンが2回あればまとめます。{VERTEX_SCOPE_JA}"
            ),
            description_en: format!(
                "Keeps at most the given number of bones per vertex (the largest weights, scaled to sum to 1); the same bone in two slots is merged first. {VERTEX_SCOPE_EN}"
            ),
            version: "1.0".to_owned(),
            needs: Needs::SelectedOrAll(ElementKind::Vertex),
            options: vec![OptionSpec::integer(
                "max_bones",
                "最大ボーン数",
                "Bones per vertex at most",
                4,
                1,
                4,
            )],
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let (targets, scope) = vertex_targets(cx)?;
        let max_bones = usize::try_from(cx.options.integer("max_bones").clamp(1, 4)).unwrap_or(4);
        Ok(weight_output(
            cx.model,
            &targets,
            scope,
            ("weights limited", "頂点のボーン数を制限"),
            |weight| {
                let mut found = influences(weight);
                if found.pairs.len() <= max_bones && !found.merged {
                    return None;
                }
                if found.pairs.len() > max_bones {
                    let mut by_weight: Vec<usize> = (0..found.pairs.len()).collect();
                    by_weight.sort_by(|&a, &b| found.pairs[b].1.total_cmp(&found.pairs[a].1));
                    let mut keep = by_weight[..max_bones].to_vec();
                    keep.sort_unstable();
                    found.pairs = keep.iter().map(|&k| found.pairs[k]).collect();
                }
                rebuilt(&found.pairs, weight)
            },
        ))
    }
}

/// A bone by index or name (Japanese first, then English).
fn bone_by_text(model: &Model, text: &str, key: &str) -> Result<usize, PluginError> {
    let text = text.trim();
    if let Ok(index) = text.parse::<usize>() {
        if index < model.bones.len() {
            return Ok(index);
        }
        return Err(PluginError::BadOption {
            key: key.to_owned(),
            message: format!("bone {index}: the model has {} bones", model.bones.len()),
        });
    }
    model
        .bones
        .iter()
        .position(|bone| bone.name_ja.as_str() == text)
        .or_else(|| {
            model
                .bones
                .iter()
                .position(|bone| bone.name_en.as_str() == text)
        })
        .ok_or_else(|| PluginError::BadOption {
            key: key.to_owned(),
            message: format!("no bone named \"{text}\""),
        })
}

/// ウェイトの移動: all the weight of bone `from` (or of every selected bone) moves to bone
/// `to`; a vertex that already has `to` gets the sum in one slot (and a simpler type where
/// fewer bones remain).
#[derive(Debug, Clone, Copy)]
pub struct TransferWeights;

impl Plugin for TransferWeights {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "transfer_weights".to_owned(),
            group: PluginGroup::Weights,
            name_ja: "ウェイトの移動".to_owned(),
            name_en: "Transfer weights".to_owned(),
            description_ja: format!(
                "移動元ボーン（空なら選択ボーンすべて）のウェイトを移動先ボーンに移します。ボーンは名前か番号で指定します。移動先をすでに持つ頂点では合算します。{VERTEX_SCOPE_JA}"
            ),
            description_en: format!(
                "Moves the weight of the source bone (empty: every selected bone) to the destination bone, given by name or index; a vertex that already has the destination gets the sum. {VERTEX_SCOPE_EN}"
            ),
            version: "1.0".to_owned(),
            needs: Needs::Nothing,
            options: vec![
                OptionSpec::text("from", "移動元ボーン", "From bone", ""),
                OptionSpec::text("to", "移動先ボーン", "To bone", ""),
            ],
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let model = cx.model;
        if cx.options.text("to").trim().is_empty() {
            return Err(PluginError::BadOption {
                key: "to".to_owned(),
                message: "give the bone the weight moves to (name or index)".to_owned(),
            });
        }
        let to = bone_by_text(model, cx.options.text("to"), "to")?;
        let from: Vec<usize> = if cx.options.text("from").trim().is_empty() {
            cx.selection
                .get(ElementKind::Bone)
                .iter()
                .copied()
                .filter(|&bone| bone < model.bones.len() && bone != to)
                .collect()
        } else {
            vec![bone_by_text(model, cx.options.text("from"), "from")?]
        };
        if from.is_empty() || from == [to] {
            return Err(PluginError::refused(
                "give a source bone other than the destination (option from, or select bones)",
                "移動先と別の移動元ボーンを指定するか、ボーンを選択してください",
            ));
        }
        let (targets, scope) = vertex_targets(cx)?;
        let to_bone = BoneIdx::new(to);
        let is_source = |bone: Option<BoneIdx>| bone.is_some_and(|b| from.contains(&b.get()));
        let map = |bone: Option<BoneIdx>| {
            if is_source(bone) { Some(to_bone) } else { bone }
        };
        let names: Vec<String> = from
            .iter()
            .map(|&b| model.bones[b].name_ja.as_str().into_owned())
            .collect();
        let mut output = weight_output(
            model,
            &targets,
            scope,
            ("weights transferred", "頂点のウェイトを移動"),
            |weight| {
                if !weight.bones().iter().any(|&bone| is_source(bone)) {
                    return None;
                }
                let mut moved = weight.clone();
                for bone in moved.bones_mut() {
                    *bone = map(*bone);
                }
                let bones = moved.bones();
                let duplicate = (0..bones.len()).any(|i| {
                    (i + 1..bones.len()).any(|j| bones[i].is_some() && bones[i] == bones[j])
                });
                if !duplicate {
                    return Some(moved);
                }
                let found = influences(&moved);
                rebuilt(&found.pairs, &moved)
            },
        );
        output.note(
            format!(
                "from {} to {}",
                names.join(", "),
                model.bones[to].name_ja.as_str()
            ),
            format!(
                "{} → {}",
                names.join("、"),
                model.bones[to].name_ja.as_str()
            ),
        );
        Ok(output)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use pmx_core::model::Vec3;

    fn b(i: usize) -> Option<BoneIdx> {
        Some(BoneIdx::new(i))
    }

    #[test]
    fn rebuilt_weights_take_the_simplest_type_that_deforms_the_same() {
        let bdef4 = Weight::Bdef4 {
            bones: [b(0), b(1), b(2), None],
            weights: [0.5, 0.5, 0.0, 0.0],
        };
        let pairs = [(BoneIdx::new(0), 0.25), (BoneIdx::new(1), 0.75)];
        assert_eq!(
            rebuilt(&pairs, &bdef4),
            Some(Weight::Bdef2 {
                bones: [b(0), b(1)],
                weight: 0.25
            })
        );
        let sdef = Weight::Sdef {
            bones: [b(0), b(1)],
            weight: 0.5,
            c: Vec3::ONE,
            r0: Vec3::ZERO,
            r1: Vec3::ONE,
        };
        assert!(matches!(
            rebuilt(&pairs, &sdef),
            Some(Weight::Sdef { weight, c, .. }) if weight == 0.25 && c == Vec3::ONE
        ));
        assert_eq!(
            rebuilt(&pairs[..1], &sdef),
            Some(Weight::Bdef1 { bone: b(0) })
        );
        let qdef = Weight::Qdef {
            bones: [b(0), b(1), None, None],
            weights: [0.5, 0.5, 0.0, 0.0],
        };
        assert!(matches!(rebuilt(&pairs, &qdef), Some(Weight::Qdef { .. })));
        assert_eq!(rebuilt(&[], &qdef), None);
    }

    #[test]
    fn influences_merge_the_same_bone_and_drop_empty_slots() {
        let weight = Weight::Bdef4 {
            bones: [b(3), b(1), b(3), None],
            weights: [0.25, 0.5, 0.25, 0.0],
        };
        let found = influences(&weight);
        assert_eq!(
            found.pairs,
            vec![(BoneIdx::new(3), 0.5), (BoneIdx::new(1), 0.5)]
        );
        assert!(found.merged && found.dropped);
    }
}
