//! The `paint_weights` op (the 3D view's weight brush) on built models, the generated models and
//! Gene: sums of 1, the bone limit, type simplification, SDEF and QDEF kept, X-mirror, locked
//! bones, vertices outside the stroke untouched to the byte, exact undo, one undo step per
//! stroke, the subtract-to-ancestor rule, the errors, and random strokes that never leave a
//! validator error.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::Model;
use pmx_core::edit::{
    BoneRef, Edit, EditError, EditOp, History, PaintIndex, PaintMode, PaintWeights, ops_to_edit,
};
use pmx_core::formats::pmx::{self, IndexSizeMode, PmxSaveOptions};
use pmx_core::generate::{LargeModelSpec, Rng, feature_model, large_model, sample_model};
use pmx_core::i18n::Language;
use pmx_core::model::facts::mirrored_name;
use pmx_core::model::{
    Bone, BoneIdx, PmxVersion, TextEncoding, Vec3, Vertex, VertexIdx, Weight, WeightKind,
};
use pmx_core::validate::{self, CheckOptions, Severity};
use pmx_tests::corpus_model;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

fn b(i: usize) -> Option<BoneIdx> {
    Some(BoneIdx::new(i))
}

/// Bone → summed weight (no bone and zero weights left out).
fn effective(weight: &Weight) -> BTreeMap<usize, f32> {
    let mut map = BTreeMap::new();
    for (bone, w) in weight.bone_weights() {
        if let Some(bone) = bone
            && w > 0.0
        {
            *map.entry(bone.get()).or_insert(0.0) += w;
        }
    }
    map
}

fn sum(weight: &Weight) -> f32 {
    weight.bone_weights().iter().map(|(_, w)| w).sum()
}

fn pmx_bytes(model: &Model) -> Vec<u8> {
    let options = PmxSaveOptions {
        index_sizes: IndexSizeMode::Keep,
        allow_version_violations: true,
        ..PmxSaveOptions::default()
    };
    pmx::write(model, &options).expect("the model writes").0
}

/// Bones 0 センター ← 1 上半身 ← 2 左肩 ← 3 左腕 ← 4 左ひじ (a chain), 5 右腕 (child of 1),
/// and one vertex per weight given, along +x, in a triangle strip.
fn model_with(weights: Vec<Weight>) -> Model {
    let mut model = Model::new_empty();
    let names = ["センター", "上半身", "左肩", "左腕", "左ひじ", "右腕"];
    let parents = [None, b(0), b(1), b(2), b(3), b(1)];
    for (name, parent) in names.into_iter().zip(parents) {
        model.bones.push(Bone {
            name_ja: name.into(),
            parent,
            ..Bone::default()
        });
    }
    for (i, weight) in weights.into_iter().enumerate() {
        model.vertices.push(Vertex {
            position: Vec3::new(1.0 + i as f32, (i % 2) as f32, 0.0),
            weight,
            ..Vertex::default()
        });
    }
    for i in 2..model.vertices.len() {
        model.faces.push([
            VertexIdx::new(i - 2),
            VertexIdx::new(i - 1),
            VertexIdx::new(i),
        ]);
    }
    model
}

fn paint(bone: usize, mode: PaintMode, vertices: Vec<usize>, amount: f32) -> PaintWeights {
    let amounts = vec![amount; vertices.len()];
    PaintWeights {
        bone: BoneRef::Index(bone),
        mode,
        vertices,
        amounts,
        mirror: false,
        max_bones: 4,
        locked: Vec::new(),
    }
}

/// Applies `paint` to `model` and returns the changed model (checking undo is exact).
fn painted(model: &Model, paint: &PaintWeights) -> Model {
    let mut edit = Edit::paint_weights(model, paint).expect("the stroke builds");
    let mut after = model.clone();
    let touched = edit.apply(&mut after);
    assert!(touched.vertex_weights_only);
    assert!(!touched.vertex_positions_only);
    let changed: Vec<u32> = (0..model.vertices.len() as u32)
        .filter(|&v| model.vertices[v as usize].weight != after.vertices[v as usize].weight)
        .collect();
    assert_eq!(
        touched.weighted_vertices, changed,
        "exactly the changed vertices"
    );
    let mut undone = after.clone();
    edit.revert(&mut undone);
    assert_eq!(pmx_bytes(&undone), pmx_bytes(model), "undo is exact");
    after
}

#[test]
fn add_keeps_sums_of_one_and_the_bone_limit() {
    let model = large_model(&LargeModelSpec::small());
    for max_bones in [2, 4] {
        let vertices: Vec<usize> = (0..2_000).collect();
        let stroke = PaintWeights {
            max_bones,
            ..paint(7, PaintMode::Add, vertices.clone(), 0.3)
        };
        let after = painted(&model, &stroke);
        let mut changed = 0;
        for &v in &vertices {
            let (before, now) = (&model.vertices[v].weight, &after.vertices[v].weight);
            if before == now {
                continue;
            }
            changed += 1;
            assert!((sum(now) - 1.0).abs() <= 1e-5, "vertex {v}: {now:?}");
            assert!(effective(now).len() <= max_bones, "vertex {v}: {now:?}");
            assert!(
                effective(now)[&7] > 0.0,
                "vertex {v} keeps the painted bone"
            );
        }
        assert!(changed > 1_500, "{changed} vertices changed");
    }
}

#[test]
fn types_simplify_bdef4_to_bdef2_to_bdef1() {
    let model = model_with(vec![Weight::Bdef4 {
        bones: [b(0), b(1), b(2), b(3)],
        weights: [0.4, 0.3, 0.2, 0.1],
    }]);
    let two = painted(
        &model,
        &PaintWeights {
            max_bones: 2,
            ..paint(3, PaintMode::Set, vec![0], 0.5)
        },
    );
    match two.vertices[0].weight {
        Weight::Bdef2 { bones, weight } => {
            assert_eq!(bones, [b(0), b(3)], "the largest other kept, order stable");
            assert_eq!(weight, 0.5);
        }
        ref other => panic!("{other:?}"),
    }
    let one = painted(&two, &paint(3, PaintMode::Add, vec![0], 1.0));
    assert_eq!(one.vertices[0].weight, Weight::Bdef1 { bone: b(3) });
    // From BDEF1 a new bone is appended and the type grows again.
    let again = painted(&one, &paint(4, PaintMode::Add, vec![0], 0.25));
    assert_eq!(
        again.vertices[0].weight,
        Weight::Bdef2 {
            bones: [b(3), b(4)],
            weight: 0.75
        }
    );
    let three = painted(&again, &paint(0, PaintMode::Add, vec![0], 0.2));
    assert_eq!(three.vertices[0].weight.kind(), WeightKind::Bdef4);
    assert_eq!(effective(&three.vertices[0].weight).len(), 3);
}

#[test]
fn sdef_stays_sdef_while_two_bones_remain() {
    let (c, r0, r1) = (
        Vec3::new(1.0, 2.0, 3.0),
        Vec3::new(0.5, 0.25, 0.0),
        Vec3::new(-0.5, 0.0, 1.0),
    );
    let model = model_with(vec![Weight::Sdef {
        bones: [b(3), b(4)],
        weight: 0.5,
        c,
        r0,
        r1,
    }]);
    let after = painted(&model, &paint(3, PaintMode::Add, vec![0], 0.2));
    assert_eq!(
        after.vertices[0].weight,
        Weight::Sdef {
            bones: [b(3), b(4)],
            weight: 0.7,
            c,
            r0,
            r1
        }
    );
    let three = painted(&after, &paint(1, PaintMode::Set, vec![0], 0.1));
    assert_eq!(three.vertices[0].weight.kind(), WeightKind::Bdef4);
    let one = painted(&after, &paint(4, PaintMode::Subtract, vec![0], 1.0));
    assert_eq!(one.vertices[0].weight, Weight::Bdef1 { bone: b(3) });
}

#[test]
fn qdef_stays_qdef_padded_as_the_file_pads() {
    let model = model_with(vec![Weight::Qdef {
        bones: [b(3), b(4), None, None],
        weights: [0.5, 0.5, 0.0, 0.0],
    }]);
    let after = painted(&model, &paint(1, PaintMode::Add, vec![0], 0.5));
    match after.vertices[0].weight {
        Weight::Qdef { bones, weights } => {
            assert_eq!(bones, [b(3), b(4), b(1), None]);
            assert_eq!(weights, [0.25, 0.25, 0.5, 0.0]);
        }
        ref other => panic!("{other:?}"),
    }
    let one = painted(&after, &paint(1, PaintMode::Set, vec![0], 1.0));
    assert_eq!(
        one.vertices[0].weight,
        Weight::Qdef {
            bones: [b(1), None, None, None],
            weights: [1.0, 0.0, 0.0, 0.0]
        }
    );
}

#[test]
fn locked_bones_keep_their_weight_exactly() {
    let model = model_with(vec![
        Weight::Bdef4 {
            bones: [b(0), b(1), b(2), b(3)],
            weights: [0.1, 0.3, 0.2, 0.4],
        },
        Weight::Bdef2 {
            bones: [b(1), b(3)],
            weight: 0.3,
        },
    ]);
    let stroke = PaintWeights {
        locked: vec![BoneRef::Name("上半身".into()), BoneRef::Index(0)],
        ..paint(3, PaintMode::Add, vec![0, 1], 0.7)
    };
    let after = painted(&model, &stroke);
    let first = effective(&after.vertices[0].weight);
    assert_eq!(first[&0], 0.1);
    assert_eq!(first[&1], 0.3);
    assert!(
        (first[&3] - 0.6).abs() < 1e-6,
        "the target is held to 1 − locked"
    );
    assert!(!first.contains_key(&2), "the unlocked other gave way");
    // The second is at its limit already: nothing to do.
    assert_eq!(after.vertices[1].weight, model.vertices[1].weight);
    // Painting a locked bone changes nothing at all.
    let locked_target = PaintWeights {
        locked: vec![BoneRef::Index(3)],
        ..paint(3, PaintMode::Add, vec![0, 1], 0.7)
    };
    assert!(matches!(
        Edit::paint_weights(&model, &locked_target),
        Err(EditError::NoChange)
    ));
}

#[test]
fn subtracted_weight_with_nowhere_to_go_goes_to_the_nearest_weighted_ancestor() {
    // 左腕 (3)'s parent 左肩 (2) has no weight anywhere; 上半身 (1) has (vertex 1).
    let model = model_with(vec![
        Weight::Bdef1 { bone: b(3) },
        Weight::Bdef1 { bone: b(1) },
    ]);
    let after = painted(&model, &paint(3, PaintMode::Subtract, vec![0], 0.25));
    assert_eq!(
        after.vertices[0].weight,
        Weight::Bdef2 {
            bones: [b(3), b(1)],
            weight: 0.75
        }
    );
    // Nothing weighted above: the parent takes it.
    let alone = model_with(vec![Weight::Bdef1 { bone: b(4) }]);
    let after = painted(&alone, &paint(4, PaintMode::Subtract, vec![0], 1.0));
    assert_eq!(after.vertices[0].weight, Weight::Bdef1 { bone: b(3) });
    // A root bone has nowhere to give: unchanged.
    let root = model_with(vec![Weight::Bdef1 { bone: b(0) }]);
    assert!(matches!(
        Edit::paint_weights(&root, &paint(0, PaintMode::Subtract, vec![0], 0.5)),
        Err(EditError::NoChange)
    ));
    // Adding with no other bone: the target takes it all (no weight on no bone is left).
    let unweighted = model_with(vec![Weight::Bdef1 { bone: None }]);
    let after = painted(&unweighted, &paint(3, PaintMode::Add, vec![0], 0.2));
    assert_eq!(after.vertices[0].weight, Weight::Bdef1 { bone: b(3) });
}

#[test]
fn smooth_moves_towards_the_neighbours_average() {
    // Vertex 1's neighbours (0 and 2; the strip joins 0-1-2 and 1-2-3) hold 左腕 at 1 and 0.
    let model = model_with(vec![
        Weight::Bdef1 { bone: b(3) },
        Weight::Bdef1 { bone: b(1) },
        Weight::Bdef1 { bone: b(1) },
    ]);
    let after = painted(&model, &paint(3, PaintMode::Smooth, vec![1], 1.0));
    assert_eq!(effective(&after.vertices[1].weight)[&3], 0.5);
    let half = painted(&model, &paint(3, PaintMode::Smooth, vec![1], 0.5));
    assert_eq!(effective(&half.vertices[1].weight)[&3], 0.25);
}

#[test]
fn the_label_names_the_bone_and_counts_vertices() {
    let model = model_with(vec![Weight::Bdef1 { bone: b(1) }; 125]);
    let stroke = PaintWeights {
        bone: BoneRef::Name("左腕".into()),
        ..paint(0, PaintMode::Add, (0..125).collect(), 0.5)
    };
    let edit = Edit::paint_weights(&model, &stroke).unwrap();
    assert_eq!(
        edit.label_in(Language::Japanese),
        "ウェイト描画 左腕 (頂点125個)"
    );
    assert_eq!(edit.label(), "Weight paint 左腕 (125 vertices)");
    let op: EditOp = serde_json::from_value(serde_json::json!({
        "op": "paint_weights", "bone": "左腕", "mode": "add",
        "vertices": (0..125).collect::<Vec<_>>(), "amounts": vec![0.5; 125],
        "mirror": false, "max_bones": 4, "locked": []
    }))
    .unwrap();
    let mut copy = model.clone();
    let from_json = ops_to_edit(&mut copy, &[op]).unwrap();
    assert_eq!(from_json.label(), edit.label());
}

#[test]
fn errors_say_what_is_wrong() {
    let model = model_with(vec![Weight::Bdef1 { bone: b(1) }; 3]);
    let base = paint(3, PaintMode::Add, vec![0, 1], 0.5);
    let fails = |stroke: PaintWeights| Edit::paint_weights(&model, &stroke).unwrap_err();
    assert!(matches!(
        fails(PaintWeights {
            vertices: vec![0, 3],
            ..base.clone()
        }),
        EditError::IndexOutOfRange {
            kind: "vertex",
            index: 3,
            len: 3
        }
    ));
    assert!(matches!(
        fails(PaintWeights {
            amounts: vec![0.5],
            ..base.clone()
        }),
        EditError::ValueCount {
            values: 1,
            indices: 2
        }
    ));
    assert!(matches!(
        fails(PaintWeights {
            amounts: vec![0.5, f32::NAN],
            ..base.clone()
        }),
        EditError::InvalidValue { .. }
    ));
    assert!(matches!(
        fails(PaintWeights {
            bone: BoneRef::Name("尻尾".into()),
            ..base.clone()
        }),
        EditError::InvalidValue { .. }
    ));
    assert!(matches!(
        fails(PaintWeights {
            bone: BoneRef::Index(6),
            ..base.clone()
        }),
        EditError::IndexOutOfRange { kind: "bone", .. }
    ));
    assert!(matches!(
        fails(PaintWeights {
            locked: vec![BoneRef::Index(60)],
            ..base.clone()
        }),
        EditError::IndexOutOfRange { kind: "bone", .. }
    ));
    for max_bones in [0, 5] {
        assert!(matches!(
            fails(PaintWeights {
                max_bones,
                ..base.clone()
            }),
            EditError::InvalidValue { .. }
        ));
    }
    assert!(matches!(
        fails(PaintWeights {
            vertices: Vec::new(),
            amounts: Vec::new(),
            ..base.clone()
        }),
        EditError::NothingSelected { kind: "vertex" }
    ));
    assert!(matches!(
        fails(paint(1, PaintMode::Add, vec![0, 1], 0.5)),
        EditError::NoChange
    ));
    let unknown: Result<EditOp, _> = serde_json::from_value(serde_json::json!({
        "op": "paint_weights", "bone": 1, "mode": "blur", "vertices": [0], "amounts": [1.0]
    }));
    assert!(unknown.is_err());
}

#[test]
fn one_stroke_is_one_undo_step_over_the_union() {
    let model = model_with(vec![Weight::Bdef1 { bone: b(1) }; 10]);
    let mut doc = model.clone();
    let mut history = History::new();
    let gesture = history.new_gesture();
    let index = PaintIndex::new(&doc);
    for (range, amount) in [(0..5, 0.25), (3..8, 0.25)] {
        let stroke = paint(3, PaintMode::Add, range.collect(), amount);
        let edit = Edit::paint_weights_with(&doc, &stroke, &index)
            .unwrap()
            .in_gesture(gesture);
        let touched = history.apply(&mut doc, edit);
        assert!(touched.vertex_weights_only);
    }
    assert_eq!(history.len(), 1, "one step");
    assert_eq!(
        history
            .undo_edit_label()
            .unwrap()
            .render(Language::Japanese),
        "ウェイト描画 左腕 (頂点8個)"
    );
    // Vertices 3 and 4 were painted twice: their weight is the later one's.
    assert_eq!(effective(&doc.vertices[4].weight)[&3], 0.5);
    assert_eq!(effective(&doc.vertices[1].weight)[&3], 0.25);
    let after = pmx_bytes(&doc);
    let touched = history.undo(&mut doc).unwrap();
    assert_eq!(touched.weighted_vertices, (0..8).collect::<Vec<u32>>());
    assert_eq!(
        pmx_bytes(&doc),
        pmx_bytes(&model),
        "one undo gives the model back"
    );
    history.redo(&mut doc).unwrap();
    assert_eq!(pmx_bytes(&doc), after);
}

fn gene() -> Option<Model> {
    corpus_model("pmx/pmxeditor_gene_cc_by.pmx")
}

fn bone_named(model: &Model, name: &str) -> usize {
    model
        .bones
        .iter()
        .position(|bone| bone.name_ja.as_str() == name)
        .unwrap_or_else(|| panic!("no bone {name}"))
}

#[test]
fn gene_vertices_outside_the_stroke_stay_byte_identical_and_undo_is_exact() {
    let Some(model) = gene() else {
        return;
    };
    let arm = bone_named(&model, "左腕");
    let vertices: Vec<usize> = (0..model.vertices.len()).step_by(7).take(600).collect();
    let stroke = PaintWeights {
        bone: BoneRef::Name("左腕".into()),
        ..paint(arm, PaintMode::Add, vertices.clone(), 0.4)
    };
    let mut edit = Edit::paint_weights(&model, &stroke).unwrap();
    let mut after = model.clone();
    let touched = edit.apply(&mut after);
    let stroke_set: BTreeSet<usize> = vertices.iter().copied().collect();
    for (v, (before, now)) in model.vertices.iter().zip(&after.vertices).enumerate() {
        if !stroke_set.contains(&v) {
            assert_eq!(before, now, "vertex {v} is outside the stroke");
        }
    }
    // Put the old weights of the changed vertices back: every byte is the original's.
    let mut restored = after.clone();
    for &v in &touched.weighted_vertices {
        restored.vertices[v as usize].weight = model.vertices[v as usize].weight.clone();
    }
    assert_eq!(pmx_bytes(&restored), pmx_bytes(&model));
    edit.revert(&mut after);
    assert_eq!(pmx_bytes(&after), pmx_bytes(&model), "undo is exact");
}

#[test]
fn gene_mirror_paints_the_right_arm_with_the_same_change() {
    let Some(model) = gene() else {
        return;
    };
    let (left, right) = (bone_named(&model, "左腕"), bone_named(&model, "右腕"));
    let index = PaintIndex::new(&model);
    // The mirror image of a bone's name, as an index (the bone itself without a side).
    let mirror_bone = |bone: usize| {
        mirrored_name(&model.bones[bone].name_ja.as_str())
            .and_then(|name| model.bones.iter().position(|b| b.name_ja.as_str() == name))
            .unwrap_or(bone)
    };
    let mirrored = |weight: &Weight| -> BTreeMap<usize, f32> {
        effective(weight)
            .into_iter()
            .map(|(bone, w)| (mirror_bone(bone), w))
            .collect()
    };
    // Left-arm vertices whose mirror image holds the mirrored weights exactly.
    let pairs: Vec<(usize, usize)> = (0..model.vertices.len())
        .filter(|&v| effective(&model.vertices[v].weight).contains_key(&left))
        .filter_map(|v| {
            let image = index.mirror_vertex(&model, v)?;
            (image != v
                && mirrored(&model.vertices[v].weight) == effective(&model.vertices[image].weight))
            .then_some((v, image))
        })
        .take(200)
        .collect();
    assert!(pairs.len() >= 20, "{} mirrored pairs on Gene", pairs.len());
    let stroke = PaintWeights {
        bone: BoneRef::Name("左腕".into()),
        mirror: true,
        ..paint(
            left,
            PaintMode::Subtract,
            pairs.iter().map(|(v, _)| *v).collect(),
            0.3,
        )
    };
    let after = painted(&model, &stroke);
    let mut changed = 0;
    for &(v, image) in &pairs {
        let (now, image_now) = (&after.vertices[v].weight, &after.vertices[image].weight);
        if now != &model.vertices[v].weight {
            changed += 1;
        }
        let left_delta = effective(now).get(&left).copied().unwrap_or(0.0)
            - effective(&model.vertices[v].weight)[&left];
        let right_delta = effective(image_now).get(&right).copied().unwrap_or(0.0)
            - effective(&model.vertices[image].weight)[&right];
        assert!(
            (left_delta - right_delta).abs() < 1e-6,
            "vertex {v} ({left_delta}) and its image {image} ({right_delta})"
        );
        assert_eq!(mirrored(now), effective(image_now), "vertex {v} / {image}");
    }
    assert!(changed > 0);
}

#[test]
fn gene_strokes_leave_no_validator_error() {
    let Some(model) = gene() else {
        return;
    };
    let arm = bone_named(&model, "左腕");
    let before = error_codes(&model);
    for mode in [
        PaintMode::Add,
        PaintMode::Subtract,
        PaintMode::Set,
        PaintMode::Smooth,
    ] {
        let stroke = PaintWeights {
            mirror: true,
            max_bones: 2,
            ..paint(
                arm,
                mode,
                (0..model.vertices.len()).step_by(3).collect(),
                0.6,
            )
        };
        let after = painted(&model, &stroke);
        assert!(error_codes(&after).is_subset(&before), "{mode:?}");
    }
}

fn error_codes(model: &Model) -> BTreeSet<&'static str> {
    validate::check(model, None, &CheckOptions::default())
        .into_iter()
        .filter(|issue| issue.severity == Severity::Error)
        .map(|issue| issue.code)
        .collect()
}

/// The generated models a random stroke runs on (built once).
fn generated() -> &'static [Model] {
    static MODELS: std::sync::OnceLock<Vec<Model>> = std::sync::OnceLock::new();
    MODELS.get_or_init(|| {
        let mut tube = large_model(&LargeModelSpec::small());
        pmx_core::generate::lay_out_as_tube(&mut tube, 40);
        vec![
            sample_model(),
            feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 90, 14),
            large_model(&LargeModelSpec::small()),
            tube,
        ]
    })
}

fn random_stroke(model: &Model, rng: &mut Rng) -> PaintWeights {
    let modes = [
        PaintMode::Add,
        PaintMode::Subtract,
        PaintMode::Set,
        PaintMode::Smooth,
    ];
    let count = 1 + rng.below(model.vertices.len().min(300));
    let vertices: Vec<usize> = (0..count)
        .map(|_| rng.below(model.vertices.len()))
        .collect();
    let amounts = vertices.iter().map(|_| rng.unit()).collect();
    let bones = model.bones.len();
    let locked = (0..rng.below(4))
        .map(|_| BoneRef::Index(rng.below(bones)))
        .collect();
    PaintWeights {
        bone: BoneRef::Index(rng.below(bones)),
        mode: modes[rng.below(4)],
        vertices,
        amounts,
        mirror: rng.below(2) == 1,
        max_bones: 1 + rng.below(4),
        locked,
    }
}

fn check_random_strokes(seed: u64) {
    let mut rng = Rng::new(seed);
    for model in generated() {
        let before = error_codes(model);
        let index = PaintIndex::new(model);
        let mut current = model.clone();
        for _ in 0..3 {
            let stroke = random_stroke(&current, &mut rng);
            let edit = match Edit::paint_weights_with(&current, &stroke, &index) {
                Ok(edit) => edit,
                Err(EditError::NoChange) => continue,
                Err(error) => panic!("{error}: {stroke:?}"),
            };
            let mut edit = edit;
            let touched = edit.apply(&mut current);
            for &v in &touched.weighted_vertices {
                let weight = &current.vertices[v as usize].weight;
                assert!(
                    (sum(weight) - 1.0).abs() <= 1e-5,
                    "vertex {v}: {weight:?} after {stroke:?}"
                );
                assert!(
                    effective(weight).len() <= stroke.max_bones,
                    "vertex {v}: {weight:?} after {stroke:?}"
                );
                assert!(
                    weight
                        .bone_weights()
                        .iter()
                        .all(|(bone, w)| *w >= 0.0 && (bone.is_some() || *w == 0.0)),
                    "vertex {v}: {weight:?}"
                );
            }
        }
        let after = error_codes(&current);
        assert!(
            after.is_subset(&before),
            "new errors: {:?}",
            after.difference(&before).collect::<Vec<_>>()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_strokes_leave_valid_weights(seed in any::<u64>()) {
        check_random_strokes(seed);
    }
}
