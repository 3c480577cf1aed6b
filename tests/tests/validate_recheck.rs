//! Property test of the incremental re-check (`pmx_core::validate::recheck`): on generated
//! models that use every reference kind, some of them broken (dangling weight bones and face
//! corners, NaN, duplicate names and faces, more findings of a code than the cap), random
//! edits of every kind (field sets, inserts, deletions, moves, sorts, vertex moves, weight
//! brushes, NaN and dangling values written into the mesh), undos and redos; every few steps
//! the kept check is brought up to date from the steps' `Touched` reports and must equal a full
//! check of the model as it is then, issue for issue (codes, paths, messages, fixes, the cap's
//! summaries and the order).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pmx_core::edit::{
    BoneRef, Edit, EditOp, EditTarget, History, PaintMode, PaintWeights, SetField, SortKey,
    Touched, field, get_field, ops_to_edit,
};
use pmx_core::formats::LoadReport;
use pmx_core::generate::{Rng, feature_model};
use pmx_core::model::{
    BoneIdx, ElementKind, IndexSizes, Model, PmxVersion, TextEncoding, Vec2, Vec3, Vec4, Vertex,
    VertexIdx, Weight,
};
use pmx_core::validate::{CheckOptions, Registry, Target};
use proptest::prelude::*;
use serde_json::{Value, json};

const STEPS_PER_CASE: usize = 120;

const TARGETS: [EditTarget; 11] = [
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
        EditTarget::Info => &["name_ja", "name_en"],
        EditTarget::Vertex => &[
            "position",
            "position.y",
            "normal",
            "uv",
            "weight",
            "weight.bones.0",
            "edge_scale",
            "additional_uvs.0",
        ],
        EditTarget::Face => &["", "0", "2"],
        EditTarget::Texture => &["path"],
        EditTarget::Material => &["name_ja", "diffuse", "texture", "draw_flags", "face_count"],
        EditTarget::Bone => &["name_ja", "position", "parent", "tail_bone", "flags", "ik"],
        EditTarget::Morph => &["name_ja", "panel", "offsets"],
        EditTarget::DisplayFrame => &["name_en", "items"],
        EditTarget::RigidBody => &["name_ja", "bone", "shape", "mass"],
        EditTarget::Joint => &["body_a", "kind"],
        EditTarget::SoftBody => &["material", "anchors", "pinned_vertices"],
    }
}

fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len())]
}

fn indices(rng: &mut Rng, len: usize, max: usize) -> Vec<usize> {
    (0..1 + rng.below(max)).map(|_| rng.below(len)).collect()
}

/// A value of the field's own type: another element's (names repeat: duplicates), sometimes
/// nudged or cleared.
fn value_for(model: &Model, rng: &mut Rng, target: EditTarget, field: &str) -> Option<Value> {
    let source = rng.below(target.count(model).max(1));
    let value = get_field(model, target, source, field).ok()?;
    Some(match value {
        Value::Number(n) if rng.below(2) == 0 => {
            if n.is_f64() {
                json!(n.as_f64().unwrap_or(0.0) as f32 + 1.0)
            } else {
                json!(n.as_i64().unwrap_or(0).saturating_add(1).clamp(0, 100))
            }
        }
        Value::Number(_)
            if field.ends_with("bone")
                || field.ends_with("parent")
                || field == "material"
                || field.starts_with("body")
                || field.ends_with("texture") =>
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
    match rng.below(9) {
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
            let value = value_for(model, rng, target, field)?;
            Some(EditOp::Set {
                kind: target,
                indices,
                field: field.into(),
                value: Some(value),
                values: None,
            })
        }
        4 => (len >= 4).then(|| EditOp::Delete {
            kind,
            indices: indices(rng, len, 2),
            remove_unused_vertices: kind == ElementKind::Material && rng.below(2) == 0,
        }),
        5 => {
            if len == 0 || kind == ElementKind::Material {
                return None;
            }
            let item = get_field(model, kind.into(), rng.below(len), "").ok()?;
            Some(EditOp::Insert {
                kind,
                at: Some(rng.below(len + 1)),
                items: vec![item],
                material: None,
                faces: None,
            })
        }
        6 => (len > 0).then(|| EditOp::Duplicate {
            kind,
            indices: indices(rng, len, 2),
        }),
        7 => (len >= 2).then(|| EditOp::Move {
            kind,
            indices: indices(rng, len, 2),
            to: None,
            by: Some(rng.below(5) as i64 - 2),
        }),
        _ => {
            let by = match kind {
                ElementKind::Bone => SortKey::Name,
                ElementKind::Morph => SortKey::Panel,
                ElementKind::Vertex | ElementKind::Face | ElementKind::Material => return None,
                _ => SortKey::Name,
            };
            Some(EditOp::Sort { kind, by })
        }
    }
}

/// A float that is sometimes NaN or infinite.
fn float(rng: &mut Rng) -> f32 {
    match rng.below(8) {
        0 => f32::NAN,
        1 => f32::INFINITY,
        _ => rng.unit() * 2.5 - 0.5,
    }
}

/// An edit of the mesh's values, the kinds the editor sends most (moves, weight brushes, UV
/// edits), some writing what the rules report (NaN, zero normals, dangling bones).
fn mesh_edit(model: &Model, rng: &mut Rng) -> Option<Edit> {
    let vertices = model.vertices.len();
    if vertices == 0 {
        return None;
    }
    // Now and then a selection spread over a bigger model: more than `Touched::MAX_RANGES`
    // runs, whose ranges collapse into one (the re-check then follows the exact list).
    let most = if vertices >= 300 && rng.below(3) == 0 {
        250
    } else {
        6
    };
    let chosen = indices(rng, vertices, most);
    match rng.below(7) {
        0 => {
            let values = chosen
                .iter()
                .map(|_| Vec3::new(float(rng), rng.unit(), rng.unit()))
                .collect();
            SetField::each(field::<Vertex>().position(), chosen, values)
                .into_edit(model)
                .ok()
        }
        1 => {
            let bone = rng.below(model.bones.len().max(1));
            let paint = PaintWeights {
                bone: BoneRef::Index(bone),
                mode: pick(rng, &[PaintMode::Add, PaintMode::Subtract, PaintMode::Set]),
                amounts: chosen.iter().map(|_| rng.unit()).collect(),
                vertices: chosen,
                mirror: false,
                max_bones: pick(rng, &[2, 4]),
                locked: Vec::new(),
            };
            Edit::paint_weights(model, &paint).ok()
        }
        2 => {
            let num_bones = model.bones.len();
            let bone = |rng: &mut Rng| match rng.below(6) {
                0 => None,
                1 => Some(BoneIdx::new(num_bones + 3)),
                _ => Some(BoneIdx::new(rng.below(num_bones.max(1)))),
            };
            let weight = match rng.below(4) {
                0 => Weight::Bdef1 { bone: bone(rng) },
                1 => Weight::Bdef2 {
                    bones: [bone(rng), bone(rng)],
                    weight: float(rng),
                },
                2 => Weight::Bdef4 {
                    bones: [bone(rng), bone(rng), bone(rng), bone(rng)],
                    weights: [rng.unit(), rng.unit(), -rng.unit(), 0.0],
                },
                _ => Weight::Sdef {
                    bones: [bone(rng), bone(rng)],
                    weight: rng.unit(),
                    c: Vec3::ZERO,
                    r0: Vec3::ZERO,
                    r1: Vec3::ZERO,
                },
            };
            SetField::new(field::<Vertex>().weight(), chosen, weight)
                .into_edit(model)
                .ok()
        }
        3 => {
            let values = chosen
                .iter()
                .map(|_| Vec2::new(float(rng), rng.unit() * 3.0))
                .collect();
            SetField::each(field::<Vertex>().uv(), chosen, values)
                .into_edit(model)
                .ok()
        }
        4 => {
            let normal = pick(
                rng,
                &[
                    Vec3::ZERO,
                    Vec3::new(0.0, 2.0, 0.0),
                    Vec3::new(0.0, 1.0, 0.0),
                ],
            );
            SetField::new(field::<Vertex>().normal(), chosen, normal)
                .into_edit(model)
                .ok()
        }
        5 if !model.additional_uvs.is_empty() => {
            let value = Vec4::new(float(rng), 0.0, 0.0, 0.0);
            SetField::new(field::<Vertex>().additional_uv(0), chosen, value)
                .into_edit(model)
                .ok()
        }
        _ => {
            // A face corner moved to another vertex, or past the last one.
            if model.faces.is_empty() {
                return None;
            }
            let face = rng.below(model.faces.len());
            let corner = rng.below(3);
            let vertex = if rng.below(3) == 0 {
                vertices + 2
            } else {
                rng.below(vertices)
            };
            Edit::set_json(
                model,
                EditTarget::Face,
                &[face],
                &corner.to_string(),
                &[json!(vertex)],
            )
            .ok()
        }
    }
}

/// Breaks `model` the ways the rules report, many times over for some codes (more than the
/// cap of the smallest options).
fn break_model(model: &mut Model) {
    let num_bones = model.bones.len();
    if let Some(v) = model.vertices.get_mut(1) {
        v.weight = Weight::Bdef2 {
            bones: [Some(BoneIdx::new(num_bones + 7)), Some(BoneIdx::new(0))],
            weight: 0.5,
        };
    }
    if let Some(v) = model.vertices.get_mut(3) {
        v.position.x = f32::NAN;
    }
    for v in model.vertices.iter_mut().skip(10).take(12) {
        v.uv.x = 2.0;
        v.normal = Vec3::ZERO;
    }
    if let Some(values) = model.additional_uvs.first_mut()
        && let Some(value) = values.get_mut(4)
    {
        value.y = f32::INFINITY;
    }
    let num_vertices = model.vertices.len();
    if let Some(face) = model.faces.get_mut(2) {
        face[1] = VertexIdx::new(num_vertices + 5);
    }
    if model.faces.len() > 6 {
        model.faces[6] = model.faces[5];
    }
    if model.bones.len() > 2 {
        model.bones[2].name_ja = model.bones[1].name_ja.clone();
    }
}

/// How the check is run: each case uses one.
fn options(variant: usize) -> CheckOptions {
    match variant % 4 {
        0 => CheckOptions::default(),
        // A small cap: most codes are summed up, so the summaries are compared too.
        1 => CheckOptions {
            max_issues_per_code: 2,
            ..CheckOptions::default()
        },
        2 => CheckOptions {
            target: Some(Target::Pmd),
            max_issues_per_code: 3,
            ..CheckOptions::default()
        },
        _ => CheckOptions {
            target: Some(Target::Pmx(PmxVersion::V2_0)),
            ..CheckOptions::default()
        },
    }
}

fn run_case(seed: u64, version: PmxVersion, broken: bool) {
    let mut rng = Rng::new(seed);
    let vertices = if seed.is_multiple_of(3) { 600 } else { 60 };
    let mut model = feature_model(version, TextEncoding::Utf16, vertices, 12);
    if broken {
        break_model(&mut model);
    }
    // Half the cases as read from a file: the load and index-size rules run too.
    let report = seed.is_multiple_of(2).then(|| {
        model.header.index_sizes = Some(IndexSizes::minimal_for(&model));
        LoadReport {
            face_index_count: Some(model.faces.len() * 3 + 3),
            ..LoadReport::default()
        }
    });
    let options = options(seed as usize / 2);
    let registry = Registry::standard();
    let mut kept = registry.check_keeping(&model, report.as_ref(), &options);
    assert_eq!(
        kept.issues(),
        registry.check(&model, report.as_ref(), &options).as_slice()
    );
    if broken {
        assert!(
            kept.issues().iter().any(|issue| issue.is_error()),
            "a broken model has errors"
        );
    }
    let mut history = History::new();
    let mut pending: Vec<Touched> = Vec::new();
    let mut incremental_runs = 0;
    for step in 0..STEPS_PER_CASE {
        match rng.below(12) {
            0 | 1 => pending.extend(history.undo(&mut model)),
            2 => pending.extend(history.redo(&mut model)),
            3..=6 => {
                if let Some(edit) = mesh_edit(&model, &mut rng) {
                    pending.push(history.apply(&mut model, edit));
                }
            }
            _ => {
                if let Some(op) = random_op(&model, &mut rng)
                    && let Ok(edit) = ops_to_edit(&mut model, &[op])
                {
                    pending.push(history.apply(&mut model, edit));
                }
            }
        }
        if rng.below(3) != 0 {
            continue;
        }
        let recheck = registry.recheck(&mut kept, &model, report.as_ref(), &options, &pending);
        assert!(!recheck.full, "same options and report: never a full check");
        if recheck.rules_run < registry.rules().count() {
            incremental_runs += 1;
        }
        pending.clear();
        let full = registry.check(&model, report.as_ref(), &options);
        if kept.issues() != full.as_slice() {
            let first = kept
                .issues()
                .iter()
                .zip(&full)
                .position(|(a, b)| a != b)
                .unwrap_or(full.len().min(kept.issues().len()));
            panic!(
                "seed {seed} step {step}: the re-check differs from a full check at issue \
                 {first} ({} vs {} issues):\nre-check: {:#?}\nfull: {:#?}",
                kept.issues().len(),
                full.len(),
                kept.issues().get(first),
                full.get(first)
            );
        }
    }
    assert!(
        incremental_runs > 0,
        "seed {seed}: some re-checks ran only some rules"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn recheck_equals_a_full_check(seed in 0u64..1_000_000, v21 in any::<bool>(), broken in any::<bool>()) {
        let version = if v21 { PmxVersion::V2_1 } else { PmxVersion::V2_0 };
        run_case(seed, version, broken);
    }
}

#[test]
fn fixed_seeds_recheck_equals_a_full_check() {
    for seed in 0..8 {
        run_case(seed, PmxVersion::V2_1, true);
        run_case(seed + 100, PmxVersion::V2_0, seed % 2 == 0);
    }
}
