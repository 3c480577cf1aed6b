#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Random modelling edits on the document as the editor applies them (transforms of every kind
//! with and without a mirroring scale, insert, duplicate, delete, move and sort of every kind),
//! each followed by undo and redo. After every step:
//! - the selection holds exactly the elements it should, checked by element (every element
//!   carries a unique tag: vertices in their edge scale, the others in their name), never by
//!   index: after the edit the selected elements that still exist and nothing else, after undo
//!   exactly what was selected before, after redo the same as after the edit;
//! - transformed vertices' normals are the transformed normals (the inverse transpose worked
//!   out here with a matrix inverse), within 1e-5;
//! - undo gives back the model's bytes, redo the edited ones.

use glam::{Mat3, Quat, Vec3};
use pmx_core::edit::{EditOp, EditTarget, SortKey, Transform, TransformGroup, ops_to_edit};
use pmx_core::formats::pmx::{PmxSaveOptions, write};
use pmx_core::generate::{Rng, feature_model};
use pmx_core::model::{ElementKind, Model, PmxVersion, TextEncoding};
use pmx_ui::document::Document;
use std::collections::BTreeSet;

const KINDS: [ElementKind; 6] = [
    ElementKind::Vertex,
    ElementKind::Material,
    ElementKind::Bone,
    ElementKind::Morph,
    ElementKind::RigidBody,
    ElementKind::Joint,
];

/// Gives every element of the kinds above a unique tag (the edit under test keeps or copies
/// tags, never makes new ones).
fn tag(model: &mut Model) {
    for (i, v) in model.vertices.iter_mut().enumerate() {
        v.edge_scale = i as f32;
    }
    for (i, m) in model.materials.iter_mut().enumerate() {
        m.name_ja = format!("m{i:05}").into();
    }
    for (i, b) in model.bones.iter_mut().enumerate() {
        b.name_ja = format!("b{i:05}").into();
    }
    for (i, m) in model.morphs.iter_mut().enumerate() {
        m.name_ja = format!("x{i:05}").into();
    }
    for (i, r) in model.rigid_bodies.iter_mut().enumerate() {
        r.name_ja = format!("r{i:05}").into();
    }
    for (i, j) in model.joints.iter_mut().enumerate() {
        j.name_ja = format!("j{i:05}").into();
    }
}

fn tags(model: &Model, kind: ElementKind) -> Vec<String> {
    match kind {
        ElementKind::Vertex => model
            .vertices
            .iter()
            .map(|v| format!("v{}", v.edge_scale))
            .collect(),
        ElementKind::Material => model
            .materials
            .iter()
            .map(|m| m.name_ja.as_str().into())
            .collect(),
        ElementKind::Bone => model
            .bones
            .iter()
            .map(|b| b.name_ja.as_str().into())
            .collect(),
        ElementKind::Morph => model
            .morphs
            .iter()
            .map(|m| m.name_ja.as_str().into())
            .collect(),
        ElementKind::RigidBody => model
            .rigid_bodies
            .iter()
            .map(|r| r.name_ja.as_str().into())
            .collect(),
        _ => model
            .joints
            .iter()
            .map(|j| j.name_ja.as_str().into())
            .collect(),
    }
}

/// The selection of `kind` as tags, one entry per selected element (a copy selected along with
/// its original would show twice).
fn selected(document: &Document, kind: ElementKind) -> Vec<String> {
    let tags = tags(&document.model, kind);
    let mut list: Vec<String> = document
        .selection
        .get(kind)
        .targets()
        .into_iter()
        .map(|i| tags[i].clone())
        .collect();
    list.sort();
    list
}

fn bytes(model: &Model) -> Vec<u8> {
    write(model, &PmxSaveOptions::default()).unwrap().0
}

fn some(rng: &mut Rng, len: usize, most: usize) -> Vec<usize> {
    let count = 1 + rng.below(most.min(len).max(1));
    let set: BTreeSet<usize> = (0..count).map(|_| rng.below(len)).collect();
    set.into_iter().collect()
}

/// A random transform: a move, a turn, a scale (sometimes mirroring) or all three.
fn random_transform(rng: &mut Rng) -> Transform {
    let mut t = Transform {
        pivot: Vec3::new(
            rng.range(-2.0, 2.0),
            rng.range(0.0, 10.0),
            rng.range(-2.0, 2.0),
        ),
        ..Transform::IDENTITY
    };
    let parts = rng.below(4);
    if parts == 0 || parts == 3 {
        t.translation = Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        );
    }
    if parts == 1 || parts == 3 {
        t.rotation = Quat::from_euler(
            glam::EulerRot::YXZ,
            rng.range(-3.0, 3.0),
            rng.range(-3.0, 3.0),
            rng.range(-3.0, 3.0),
        );
    }
    if parts == 2 || parts == 3 {
        let mirror = if rng.below(3) == 0 { -1.0 } else { 1.0 };
        t.scale = Vec3::new(
            mirror * rng.range(0.5, 2.0),
            rng.range(0.5, 2.0),
            rng.range(0.5, 2.0),
        );
    }
    t
}

/// The normal `n` of a vertex under `t`: the inverse transpose of the linear part, at `n`'s
/// length.
fn expected_normal(t: &Transform, n: Vec3) -> Vec3 {
    let linear = Mat3::from_quat(t.rotation) * Mat3::from_diagonal(t.scale);
    let turned = linear.inverse().transpose() * n;
    if n.length() == 0.0 || turned.length() == 0.0 {
        return n;
    }
    turned.normalize() * n.length()
}

enum Step {
    Transform(EditTarget, Vec<usize>, Transform),
    Ops(Vec<EditOp>),
}

fn random_step(rng: &mut Rng, model: &Model, kind: ElementKind) -> Option<Step> {
    let len = model.count(kind);
    if len == 0 {
        return None;
    }
    let indices = some(rng, len, 12);
    Some(match rng.below(7) {
        0..=1 if kind != ElementKind::Material && kind != ElementKind::Morph => {
            Step::Transform(EditTarget::from(kind), indices, random_transform(rng))
        }
        0..=2 => Step::Ops(vec![EditOp::Duplicate { kind, indices }]),
        3 => Step::Ops(vec![EditOp::Delete {
            kind,
            indices,
            remove_unused_vertices: kind == ElementKind::Material && rng.below(2) == 0,
        }]),
        4 => Step::Ops(vec![EditOp::Move {
            kind,
            indices,
            to: Some(rng.below(len)),
            by: None,
        }]),
        5 => Step::Ops(vec![EditOp::Move {
            kind,
            indices,
            to: None,
            by: Some(rng.below(7) as i64 - 3),
        }]),
        _ => Step::Ops(vec![EditOp::Sort {
            kind,
            by: match kind {
                ElementKind::Bone => SortKey::Hierarchy,
                ElementKind::Material => SortKey::Transparency,
                ElementKind::Morph => SortKey::Panel,
                _ => SortKey::Name,
            },
        }]),
    })
}

#[test]
fn random_edits_keep_the_selection_on_its_elements_normals_turned_and_undo_exact() {
    let mut rng = Rng::new(33);
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 60, 16);
    let mut steps = 0;
    let mut transforms = 0;
    while steps < 240 {
        tag(&mut model);
        let kind = KINDS[rng.below(KINDS.len())];
        let Some(step) = random_step(&mut rng, &model, kind) else {
            continue;
        };
        let mut document = Document::from_model(model.clone(), None, None);
        // A random selection of every kind.
        for k in KINDS {
            let len = document.model.count(k);
            if len > 0 {
                let chosen = some(&mut rng, len, 10);
                let selection = document.selection.get_mut(k);
                for &i in &chosen {
                    selection.indices.insert(i);
                }
                selection.current = chosen.last().copied();
            }
        }
        let before_bytes = bytes(&document.model);
        let before: Vec<Vec<String>> = KINDS.iter().map(|&k| selected(&document, k)).collect();
        let (edit, transformed) = match &step {
            Step::Transform(target, indices, transform) => (
                pmx_core::edit::Edit::transform(
                    &mut document.model,
                    *target,
                    &[TransformGroup {
                        indices: indices.clone(),
                        transform: *transform,
                    }],
                ),
                Some((*target, indices.clone(), *transform)),
            ),
            Step::Ops(ops) => (ops_to_edit(&mut document.model, ops), None),
        };
        let Ok(edit) = edit else {
            // Refused (a special frame, nothing to change): the model must be as it was.
            assert_eq!(bytes(&document.model), before_bytes);
            continue;
        };
        steps += 1;
        let original = document.model.clone();
        document.apply(edit);
        let after_bytes = bytes(&document.model);
        let after: Vec<Vec<String>> = KINDS.iter().map(|&k| selected(&document, k)).collect();
        for (k, &kind) in KINDS.iter().enumerate() {
            // The selected elements that still exist, each once, and nothing else.
            let present: BTreeSet<String> = tags(&document.model, kind).into_iter().collect();
            let expected: Vec<String> = before[k]
                .iter()
                .filter(|t| present.contains(*t))
                .cloned()
                .collect();
            assert_eq!(after[k], expected, "step {steps}: {kind:?} after the edit");
        }
        if let Some((EditTarget::Vertex, indices, transform)) = &transformed {
            transforms += 1;
            for &i in indices {
                let n = original.vertices[i].normal;
                let expected = expected_normal(transform, Vec3::new(n.x, n.y, n.z));
                let got = document.model.vertices[i].normal;
                assert!(
                    (Vec3::new(got.x, got.y, got.z) - expected).length() < 1e-5,
                    "step {steps}: normal of vertex {i}: {got:?}, expected {expected:?}"
                );
            }
        }
        assert!(document.undo().is_some());
        assert_eq!(
            bytes(&document.model),
            before_bytes,
            "step {steps}: undo restores"
        );
        for (k, &kind) in KINDS.iter().enumerate() {
            assert_eq!(
                selected(&document, kind),
                before[k],
                "step {steps}: {kind:?} after undo"
            );
        }
        assert!(document.redo().is_some());
        assert_eq!(
            bytes(&document.model),
            after_bytes,
            "step {steps}: redo repeats"
        );
        for (k, &kind) in KINDS.iter().enumerate() {
            assert_eq!(
                selected(&document, kind),
                after[k],
                "step {steps}: {kind:?} after redo"
            );
        }
        model = document.model.clone();
    }
    assert!(transforms > 10, "{transforms} vertex transforms");
}
