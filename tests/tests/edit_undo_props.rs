//! Property test of the edit layer: on generated models that use every reference kind, random
//! sequences of 200 edits of every kind (set, insert, duplicate, delete, move, sort, merge,
//! batches, gestures), with undo and redo along the way. Undoing everything gives the original
//! model (and the same PMX bytes); redoing everything gives the edited model; every step in
//! between matches the state recorded when it was first reached.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pmx_core::edit::{
    Edit, EditOp, EditTarget, History, MergeOptions, SortKey, get_field, ops_to_edit,
};
use pmx_core::formats::pmx::{self, IndexSizeMode, PmxSaveOptions};
use pmx_core::generate::{Rng, feature_model};
use pmx_core::model::{ElementKind, Model, PmxVersion, TextEncoding};
use pmx_tests::assert_same_model;
use proptest::prelude::*;
use serde_json::{Value, json};

const EDITS_PER_CASE: usize = 200;

const TARGETS: [EditTarget; 12] = [
    EditTarget::Header,
    EditTarget::Info,
    EditTarget::Vertex,
    EditTarget::Face,
    EditTarget::Texture,
    EditTarget::Material,
    EditTarget::Bone,
    EditTarget::Morph,
    EditTarget::DisplayFrame,
    EditTarget::RigidBody,
    EditTarget::Joint,
    EditTarget::SoftBody,
];

fn fields(target: EditTarget) -> &'static [&'static str] {
    match target {
        EditTarget::Header => &["encoding"],
        EditTarget::Info => &["name_ja", "name_en", "comment_ja", "comment_en"],
        EditTarget::Vertex => &[
            "position",
            "position.y",
            "normal",
            "uv",
            "weight",
            "weight.bones.0",
            "edge_scale",
            "additional_uvs.0",
            "additional_uvs.3.w",
        ],
        EditTarget::Face => &["", "0", "2"],
        EditTarget::Texture => &["path"],
        EditTarget::Material => &[
            "name_ja",
            "diffuse",
            "diffuse.w",
            "texture",
            "sphere_texture",
            "toon",
            "draw_flags",
            "memo",
        ],
        EditTarget::Bone => &[
            "",
            "name_en",
            "position",
            "parent",
            "tail_bone",
            "append_parent",
            "flags",
            "layer",
            "ik",
            "ik.target",
            "ik.links.0.bone",
            "ik.links.0.limits",
        ],
        EditTarget::Morph => &[
            "name_en",
            "panel",
            "offsets",
            "offsets.0",
            "offsets.1.offset",
        ],
        EditTarget::DisplayFrame => &["name_en", "items", "items.0"],
        EditTarget::RigidBody => &["bone", "position", "shape", "mass", "mode"],
        EditTarget::Joint => &["body_a", "body_b", "kind", "spring_move.x"],
        EditTarget::SoftBody => &[
            "material",
            "anchors",
            "anchors.0.rigid_body",
            "pinned_vertices",
            "config.vcf",
            "",
        ],
    }
}

fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len())]
}

fn indices(rng: &mut Rng, len: usize, max: usize) -> Vec<usize> {
    (0..1 + rng.below(max)).map(|_| rng.below(len)).collect()
}

/// A value of the field's own type: another element's, sometimes nudged or cleared.
fn value_for(model: &Model, rng: &mut Rng, target: EditTarget, field: &str) -> Option<Value> {
    let source = rng.below(target.count(model).max(1));
    let value = get_field(model, target, source, field).ok()?;
    Some(match value {
        Value::Number(n) if rng.below(2) == 0 => {
            let nudged = n.as_f64().unwrap_or(0.0) + 1.0;
            if n.is_f64() {
                json!(nudged as f32)
            } else {
                json!(n.as_i64().unwrap_or(0).saturating_add(1).clamp(0, 100))
            }
        }
        Value::String(_)
            if field.starts_with("name")
                || field.starts_with("comment")
                || field == "memo"
                || field == "path" =>
        {
            json!(format!("名前{}", rng.below(1000)))
        }
        Value::Number(_)
            if field.ends_with("bone")
                || field.ends_with("parent")
                || field == "material"
                || field.starts_with("body")
                || field.ends_with("texture")
                || field.ends_with("rigid_body")
                || field.ends_with("target") =>
        {
            if rng.below(4) == 0 {
                Value::Null
            } else {
                value
            }
        }
        other => other,
    })
}

fn random_op(model: &Model, rng: &mut Rng) -> Option<EditOp> {
    let kind = pick(rng, &ElementKind::ALL);
    let len = model.count(kind);
    match rng.below(10) {
        0..=3 => {
            let target = pick(rng, &TARGETS);
            if target.count(model) == 0 {
                return None;
            }
            let field = pick(rng, fields(target));
            let indices = if target.is_single() {
                Vec::new()
            } else {
                indices(rng, target.count(model), 3)
            };
            if rng.below(3) == 0 && indices.len() > 1 {
                let values = indices
                    .iter()
                    .map(|_| value_for(model, rng, target, field))
                    .collect::<Option<Vec<_>>>()?;
                Some(EditOp::Set {
                    kind: target,
                    indices,
                    field: field.into(),
                    value: None,
                    values: Some(values),
                })
            } else {
                let value = value_for(model, rng, target, field)?;
                Some(EditOp::Set {
                    kind: target,
                    indices,
                    field: field.into(),
                    value: Some(value),
                    values: None,
                })
            }
        }
        4 => {
            if len < 4 {
                return None;
            }
            let remove_unused_vertices = kind == ElementKind::Material && rng.below(2) == 0;
            Some(EditOp::Delete {
                kind,
                indices: indices(rng, len, 2),
                remove_unused_vertices,
            })
        }
        5 => {
            if len == 0 {
                return None;
            }
            let source = rng.below(len);
            let item = get_field(model, kind.into(), source, "").ok()?;
            let at = Some(rng.below(len + 1));
            match kind {
                ElementKind::Face if rng.below(2) == 0 && !model.materials.is_empty() => {
                    Some(EditOp::Insert {
                        kind,
                        at: None,
                        items: vec![item],
                        material: Some(rng.below(model.materials.len())),
                        faces: None,
                    })
                }
                ElementKind::Material => {
                    let faces = model.faces.iter().take(1 + rng.below(3)).copied().collect();
                    Some(EditOp::Insert {
                        kind,
                        at,
                        items: vec![item],
                        material: None,
                        faces: Some(vec![faces]),
                    })
                }
                _ => Some(EditOp::Insert {
                    kind,
                    at,
                    items: vec![item],
                    material: None,
                    faces: None,
                }),
            }
        }
        6 => (len > 0).then(|| EditOp::Duplicate {
            kind,
            indices: indices(rng, len, 2),
        }),
        7 => {
            if len < 2 {
                return None;
            }
            let moved = indices(rng, len, 2);
            let mut unique = moved.clone();
            unique.sort_unstable();
            unique.dedup();
            if rng.below(2) == 0 {
                Some(EditOp::Move {
                    kind,
                    indices: moved,
                    to: Some(rng.below(len - unique.len() + 1)),
                    by: None,
                })
            } else {
                let by = rng.below(5) as i64 - 2;
                Some(EditOp::Move {
                    kind,
                    indices: moved,
                    to: None,
                    by: Some(by),
                })
            }
        }
        _ => {
            let by = match kind {
                ElementKind::Bone => pick(rng, &[SortKey::Hierarchy, SortKey::Name]),
                ElementKind::Morph => pick(rng, &[SortKey::Panel, SortKey::Name]),
                ElementKind::Material => pick(rng, &[SortKey::Transparency, SortKey::Name]),
                ElementKind::Vertex | ElementKind::Face => return None,
                _ => SortKey::Name,
            };
            Some(EditOp::Sort { kind, by })
        }
    }
}

/// One random step: an edit built on the current model, or `None` if the attempt was invalid.
fn random_edit(
    model: &mut Model,
    rng: &mut Rng,
    other: &Model,
    history: &mut History,
) -> Option<Edit> {
    match rng.below(20) {
        0 => {
            let options = MergeOptions {
                match_bones_by_name: rng.below(2) == 0,
            };
            Edit::merge_model(model, other, options).ok()
        }
        1 | 2 => {
            // Two or three ops as one batch, each built on the model the previous ones leave.
            let mut ops = Vec::new();
            let mut scratch_history = History::new();
            for _ in 0..2 + rng.below(2) {
                let Some(op) = random_op(model, rng) else {
                    continue;
                };
                let Ok(edit) = ops_to_edit(model, std::slice::from_ref(&op)) else {
                    continue;
                };
                scratch_history.apply(model, edit);
                ops.push(op);
            }
            scratch_history.undo_all(model);
            ops_to_edit(model, &ops).ok()
        }
        3 => {
            // A drag: its steps merge into one undo step (applied here except the last).
            let gesture = history.new_gesture();
            let vertices = indices(rng, model.vertices.len(), 3);
            for step in 0..2 {
                let edit = Edit::set_json(
                    model,
                    EditTarget::Vertex,
                    &vertices,
                    "position.x",
                    &[json!(step as f32)],
                )
                .ok()?
                .in_gesture(gesture);
                history.apply(model, edit);
            }
            Edit::set_json(
                model,
                EditTarget::Vertex,
                &vertices,
                "position.x",
                &[json!(5.0)],
            )
            .ok()
            .map(|edit| edit.in_gesture(gesture))
        }
        _ => {
            let op = random_op(model, rng)?;
            ops_to_edit(model, &[op]).ok()
        }
    }
}

fn pmx_bytes(model: &Model) -> Vec<u8> {
    let options = PmxSaveOptions {
        index_sizes: IndexSizeMode::Keep,
        allow_version_violations: true,
        ..PmxSaveOptions::default()
    };
    pmx::write(model, &options).expect("the model writes").0
}

fn run_case(seed: u64, version: PmxVersion) {
    let original = feature_model(version, TextEncoding::Utf16, 90, 14);
    let other = feature_model(version, TextEncoding::Utf8, 12, 9);
    let mut model = original.clone();
    let mut history = History::new();
    let mut rng = Rng::new(seed);
    // states[i] is the model with the first i steps of the history applied.
    let mut states = vec![original.clone()];
    let mut applied = 0;
    let mut attempts = 0;
    let mut categories = std::collections::BTreeMap::new();
    let mut cleared = 0;
    while applied < EDITS_PER_CASE {
        attempts += 1;
        assert!(attempts < EDITS_PER_CASE * 50, "too many invalid attempts");
        let head_before_gesture = history.head();
        let Some(edit) = random_edit(&mut model, &mut rng, &other, &mut history) else {
            // A gesture may have applied steps before its last one failed.
            states.truncate(head_before_gesture + 1);
            if history.head() > head_before_gesture {
                states.push(model.clone());
            }
            continue;
        };
        let category = edit
            .label()
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_owned();
        *categories.entry(category).or_insert(0usize) += 1;
        cleared += edit.report().cleared_total();
        history.apply(&mut model, edit);
        states.truncate(history.head());
        states.push(model.clone());
        applied += 1;

        // Now and then undo a few steps and redo some of them (the rest is dropped by the next edit).
        if rng.below(10) == 0 {
            for _ in 0..1 + rng.below(3) {
                if history.undo(&mut model).is_some() {
                    assert_same_model(
                        &model,
                        &states[history.head()],
                        &format!("seed {seed}: undo to step {}", history.head()),
                    );
                }
            }
            for _ in 0..rng.below(3) {
                if history.redo(&mut model).is_some() {
                    assert_same_model(
                        &model,
                        &states[history.head()],
                        &format!("seed {seed}: redo to step {}", history.head()),
                    );
                }
            }
            states.truncate(history.head() + 1);
        }
    }
    println!("seed {seed}: {categories:?}, {cleared} references cleared");
    for category in [
        "Set",
        "Delete",
        "Insert",
        "Duplicate",
        "Move",
        "Sort",
        "Merge",
    ] {
        assert!(
            categories.contains_key(category),
            "seed {seed}: no {category} edit in {categories:?}"
        );
    }
    assert!(
        categories.contains_key("Edit"),
        "seed {seed}: no batch in {categories:?}"
    );
    while history.can_redo() {
        history.redo(&mut model);
        states.push(model.clone());
    }
    let edited = model.clone();
    assert_eq!(history.head(), states.len() - 1);

    while history.undo(&mut model).is_some() {
        assert_same_model(
            &model,
            &states[history.head()],
            &format!("seed {seed}: undo to step {}", history.head()),
        );
    }
    assert_same_model(
        &model,
        &original,
        &format!("seed {seed}: undo all gives the original"),
    );
    assert_eq!(
        pmx_bytes(&model),
        pmx_bytes(&original),
        "seed {seed}: same PMX bytes"
    );
    assert!(!history.is_dirty());

    while history.redo(&mut model).is_some() {
        assert_same_model(
            &model,
            &states[history.head()],
            &format!("seed {seed}: redo to step {}", history.head()),
        );
    }
    assert_same_model(
        &model,
        &edited,
        &format!("seed {seed}: redo all gives the edited model"),
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_edits_undo_and_redo_exactly(seed in any::<u64>(), v21 in any::<bool>()) {
        let version = if v21 { PmxVersion::V2_1 } else { PmxVersion::V2_0 };
        run_case(seed, version);
    }
}

#[test]
fn fixed_seeds_undo_and_redo_exactly() {
    for seed in [1, 2, 3] {
        run_case(seed, PmxVersion::V2_1);
    }
}
