//! The weight tools on Gene, the mixed-deform and SDEF fixtures and small vertices built here:
//! sums of 1, the bones each vertex keeps, the simplified types, and exact counts.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::Model;
use pmx_core::edit::thousands;
use pmx_core::model::{Bone, BoneIdx, ElementKind, Material, Vec3, Vertex, VertexIdx, Weight};
use pmx_plugins::{Options, PluginError, PluginSelection, Registry, run_plugin};
use pmx_tests::{corpus_model, run_tool};
use serde_json::json;
use std::collections::BTreeMap;

fn b(i: usize) -> Option<BoneIdx> {
    Some(BoneIdx::new(i))
}

/// Bone → summed weight of a vertex (weights of zero and of no bone left out).
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

/// Four bones and one vertex per weight, in one triangle fan of one material.
fn model_with(weights: Vec<Weight>) -> Model {
    let mut model = Model::new_empty();
    for name in ["センター", "上半身", "首", "頭"] {
        model.bones.push(Bone {
            name_ja: name.into(),
            ..Bone::default()
        });
    }
    for (k, weight) in weights.into_iter().enumerate() {
        model.vertices.push(Vertex {
            position: Vec3::new(k as f32, 0.0, 0.0),
            weight,
            ..Vertex::default()
        });
    }
    let count = model.vertices.len() as u32;
    model.faces = (0..count).map(|k| [VertexIdx(k); 3]).collect();
    model.materials.push(Material {
        face_index_count: 3 * count,
        ..Material::default()
    });
    model
}

#[test]
fn normalize_scales_bdef4_to_one_and_clamps_bdef2() {
    let model = model_with(vec![
        Weight::Bdef4 {
            bones: [b(0), b(1), b(2), b(3)],
            weights: [0.2, 0.2, 0.2, 0.2],
        },
        Weight::Bdef4 {
            bones: [b(0), b(1), None, b(3)],
            weights: [0.5, -0.25, 0.5, 0.5],
        },
        Weight::Bdef2 {
            bones: [b(0), b(1)],
            weight: 1.5,
        },
        Weight::Bdef1 { bone: b(2) },
        Weight::Bdef4 {
            bones: [b(0), b(1), None, None],
            weights: [0.25, 0.75, 0.0, 0.0],
        },
        Weight::Qdef {
            bones: [b(0), b(1), None, None],
            weights: [1.0, 1.0, 0.0, 0.0],
        },
    ]);
    let outcome = run_tool(
        "normalize_weights",
        &model,
        &PluginSelection::new(),
        &json!({}),
    );
    assert_eq!(outcome.label_ja, "ウェイトの正規化");
    assert_eq!(outcome.notes[0], "weights normalized: 4 of all 6 vertices");
    let after: Vec<&Weight> = outcome.after.vertices.iter().map(|v| &v.weight).collect();
    assert_eq!(
        *after[0],
        Weight::Bdef4 {
            bones: [b(0), b(1), b(2), b(3)],
            weights: [0.25, 0.25, 0.25, 0.25]
        }
    );
    assert_eq!(
        *after[1],
        Weight::Bdef4 {
            bones: [b(0), b(1), None, b(3)],
            weights: [0.5, 0.0, 0.0, 0.5]
        }
    );
    assert_eq!(
        *after[2],
        Weight::Bdef2 {
            bones: [b(0), b(1)],
            weight: 1.0
        }
    );
    assert_eq!(after[3], &model.vertices[3].weight);
    assert_eq!(after[4], &model.vertices[4].weight);
    assert_eq!(
        *after[5],
        Weight::Qdef {
            bones: [b(0), b(1), None, None],
            weights: [0.5, 0.5, 0.0, 0.0]
        }
    );
}

#[test]
fn normalize_on_gene_leaves_every_bdef4_summing_to_one() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    // Counted here on its own: BDEF4 vertices whose sum is off or with a weight on no bone.
    let off = model
        .vertices
        .iter()
        .filter(|v| match &v.weight {
            Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
                (weights.iter().sum::<f32>() - 1.0).abs() > f32::EPSILON
                    || bones
                        .iter()
                        .zip(weights)
                        .any(|(bone, w)| *w < 0.0 || (bone.is_none() && *w != 0.0))
            }
            Weight::Bdef2 { weight, .. } | Weight::Sdef { weight, .. } => {
                !(0.0..=1.0).contains(weight)
            }
            Weight::Bdef1 { .. } => false,
        })
        .count();
    let Ok(outcome) = std::panic::catch_unwind(|| {
        run_tool(
            "normalize_weights",
            &model,
            &PluginSelection::new(),
            &json!({}),
        )
    }) else {
        // Nothing to do is a refusal (NoChange), which is only right when nothing was off.
        assert_eq!(off, 0);
        return;
    };
    assert_eq!(
        outcome.notes[0],
        format!(
            "weights normalized: {} of all {} vertices",
            thousands(off),
            thousands(model.vertices.len())
        )
    );
    for (k, (before, after)) in model
        .vertices
        .iter()
        .zip(&outcome.after.vertices)
        .enumerate()
    {
        assert_eq!(before.weight.kind(), after.weight.kind(), "vertex {k}");
        assert_eq!(before.weight.bones(), after.weight.bones(), "vertex {k}");
        assert!((sum(&after.weight) - 1.0).abs() < 1e-6, "vertex {k}");
    }
}

#[test]
fn clean_drops_small_weights_and_simplifies_the_type() {
    let sdef = |weight: f32| Weight::Sdef {
        bones: [b(0), b(1)],
        weight,
        c: Vec3::new(0.0, 1.0, 0.0),
        r0: Vec3::new(0.0, 2.0, 0.0),
        r1: Vec3::new(0.0, 0.5, 0.0),
    };
    let model = model_with(vec![
        // 0.005 goes; 0.5 and 0.495 stay and are scaled by 1/0.995.
        Weight::Bdef4 {
            bones: [b(0), b(1), b(2), None],
            weights: [0.5, 0.495, 0.005, 0.0],
        },
        // 0.995 / 0.005: one bone left.
        Weight::Bdef2 {
            bones: [b(2), b(3)],
            weight: 0.995,
        },
        sdef(0.995),
        sdef(0.5),
        // The same bone twice: merged into BDEF2.
        Weight::Bdef4 {
            bones: [b(1), b(2), b(1), b(3)],
            weights: [0.25, 0.5, 0.25, 0.0],
        },
        Weight::Qdef {
            bones: [b(0), b(1), b(2), None],
            weights: [0.6, 0.398, 0.002, 0.0],
        },
        Weight::Bdef1 { bone: b(1) },
        Weight::Bdef4 {
            bones: [b(0), b(1), b(2), b(3)],
            weights: [0.3, 0.3, 0.2, 0.2],
        },
    ]);
    let outcome = run_tool("clean_weights", &model, &PluginSelection::new(), &json!({}));
    assert_eq!(outcome.notes[0], "weights cleaned: 5 of all 8 vertices");
    let after: Vec<&Weight> = outcome.after.vertices.iter().map(|v| &v.weight).collect();
    let Weight::Bdef2 { bones, weight } = after[0] else {
        panic!("{:?}", after[0]);
    };
    assert_eq!(*bones, [b(0), b(1)]);
    assert_eq!(*weight, 0.5 / 0.995);
    assert_eq!(*after[1], Weight::Bdef1 { bone: b(2) });
    assert_eq!(*after[2], Weight::Bdef1 { bone: b(0) });
    assert_eq!(
        after[3], &model.vertices[3].weight,
        "SDEF with two bones stays"
    );
    assert_eq!(
        *after[4],
        Weight::Bdef2 {
            bones: [b(1), b(2)],
            weight: 0.5
        }
    );
    let Weight::Qdef { bones, weights } = after[5] else {
        panic!("{:?}", after[5]);
    };
    assert_eq!(*bones, [b(0), b(1), None, None]);
    assert!((weights[0] - 0.6 / 0.998).abs() < 1e-7 && weights[2] == 0.0);
    // A threshold over every weight of a vertex would drop them all: the largest stays.
    let outcome = run_tool(
        "clean_weights",
        &model,
        &PluginSelection::new().with(ElementKind::Vertex, vec![3, 7]),
        &json!({"threshold": 0.5}),
    );
    assert_eq!(
        outcome.notes[0],
        "weights cleaned: 1 of 2 selected vertices"
    );
    assert_eq!(outcome.after.vertices[3].weight, model.vertices[3].weight);
    assert_eq!(
        outcome.after.vertices[7].weight,
        Weight::Bdef1 { bone: b(0) }
    );
}

#[test]
fn clean_on_gene_keeps_exactly_the_weights_over_the_threshold() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let threshold = 0.05f32;
    // Counted here on its own: vertices with a slot of no bone, of zero, under the threshold,
    // or a bone in two slots.
    let expected_changed = model
        .vertices
        .iter()
        .filter(|v| {
            let pairs = v.weight.bone_weights();
            let distinct: std::collections::BTreeSet<_> =
                pairs.iter().filter_map(|(bone, _)| *bone).collect();
            pairs
                .iter()
                .any(|(bone, w)| bone.is_none() || *w < threshold)
                || distinct.len() < pairs.iter().filter(|(bone, _)| bone.is_some()).count()
        })
        .count();
    let outcome = run_tool(
        "clean_weights",
        &model,
        &PluginSelection::new(),
        &json!({"threshold": threshold}),
    );
    assert_eq!(
        outcome.notes[0],
        format!(
            "weights cleaned: {} of all {} vertices",
            thousands(expected_changed),
            thousands(model.vertices.len())
        )
    );
    assert!(expected_changed > 1000, "{expected_changed}");
    let mut bdef1 = 0;
    for (k, (before, after)) in model
        .vertices
        .iter()
        .zip(&outcome.after.vertices)
        .enumerate()
    {
        let old = effective(&before.weight);
        let new = effective(&after.weight);
        let kept: BTreeMap<usize, f32> = old
            .iter()
            .filter(|(_, w)| **w >= threshold)
            .map(|(b, w)| (*b, *w))
            .collect();
        let total: f32 = kept.values().sum();
        assert_eq!(
            new.keys().collect::<Vec<_>>(),
            kept.keys().collect::<Vec<_>>(),
            "vertex {k}"
        );
        for (bone, w) in &new {
            assert!((w - kept[bone] / total).abs() < 1e-5, "vertex {k}");
        }
        assert!((sum(&after.weight) - 1.0).abs() < 1e-5, "vertex {k}");
        // The type matches what is left.
        let expected_kind = match new.len() {
            1 => pmx_core::model::WeightKind::Bdef1,
            2 => pmx_core::model::WeightKind::Bdef2,
            _ => pmx_core::model::WeightKind::Bdef4,
        };
        if after.weight != before.weight {
            assert_eq!(after.weight.kind(), expected_kind, "vertex {k}");
        }
        bdef1 += usize::from(after.weight.kind() == pmx_core::model::WeightKind::Bdef1);
    }
    assert!(bdef1 > 13_552, "some vertices became BDEF1: {bdef1}");
}

#[test]
fn limit_keeps_the_largest_bones_and_merges_duplicates() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let over = model
        .vertices
        .iter()
        .filter(|v| effective(&v.weight).len() > 2)
        .count();
    let outcome = run_tool(
        "limit_weights",
        &model,
        &PluginSelection::new(),
        &json!({"max_bones": 2}),
    );
    assert_eq!(
        outcome.notes[0],
        format!(
            "weights limited: {} of all {} vertices",
            thousands(over),
            thousands(model.vertices.len())
        )
    );
    for (k, (before, after)) in model
        .vertices
        .iter()
        .zip(&outcome.after.vertices)
        .enumerate()
    {
        let old = effective(&before.weight);
        let new = effective(&after.weight);
        if old.len() <= 2 {
            assert_eq!(before.weight, after.weight, "vertex {k}");
            continue;
        }
        assert_eq!(new.len(), 2, "vertex {k}");
        let smallest_kept = new.keys().map(|b| old[b]).fold(f32::MAX, f32::min);
        for (bone, w) in &old {
            if !new.contains_key(bone) {
                assert!(
                    *w <= smallest_kept,
                    "vertex {k}: dropped {w} > {smallest_kept}"
                );
            }
        }
        assert!(matches!(after.weight, Weight::Bdef2 { .. }), "vertex {k}");
    }
    // One bone per vertex: everything becomes BDEF1 on its largest bone.
    let one = run_tool(
        "limit_weights",
        &model,
        &PluginSelection::new(),
        &json!({"max_bones": 1}),
    );
    for (before, after) in model.vertices.iter().zip(&one.after.vertices) {
        let old = effective(&before.weight);
        let largest = old.values().copied().fold(0.0, f32::max);
        let Weight::Bdef1 { bone } = after.weight else {
            panic!("{:?}", after.weight);
        };
        assert_eq!(old[&bone.unwrap().get()], largest);
    }
    // Duplicates are merged even under the limit.
    let twice = model_with(vec![Weight::Bdef4 {
        bones: [b(1), b(2), b(1), None],
        weights: [0.25, 0.5, 0.25, 0.0],
    }]);
    let merged = run_tool("limit_weights", &twice, &PluginSelection::new(), &json!({}));
    assert_eq!(
        merged.after.vertices[0].weight,
        Weight::Bdef2 {
            bones: [b(1), b(2)],
            weight: 0.5
        }
    );
}

#[test]
fn the_mixed_and_sdef_fixtures_keep_their_types_where_they_can() {
    let Some(mixed) = corpus_model("pmx/generated_utf8_mixed_deform_qdef_in_v20.pmx") else {
        return;
    };
    let Some(elbow) = corpus_model("pmx/generated_utf8_sdef_two_bone_elbow.pmx") else {
        return;
    };
    for model in [&mixed, &elbow] {
        let outcome = run_tool(
            "limit_weights",
            model,
            &PluginSelection::new(),
            &json!({"max_bones": 1}),
        );
        for vertex in &outcome.after.vertices {
            assert_eq!(effective(&vertex.weight).len(), 1, "{:?}", vertex.weight);
        }
    }
    // Cleaning at 1 % changes no SDEF vertex of the elbow whose two weights are both kept.
    let cleaned = std::panic::catch_unwind(|| {
        run_tool("clean_weights", &elbow, &PluginSelection::new(), &json!({}))
    });
    let expected = elbow
        .vertices
        .iter()
        .filter(
            |v| matches!(v.weight, Weight::Sdef { weight, .. } if !(0.01..=0.99).contains(&weight)),
        )
        .count();
    match cleaned {
        Ok(outcome) => {
            assert_eq!(
                outcome.notes[0],
                format!("weights cleaned: {expected} of all 40 vertices")
            );
            for (before, after) in elbow.vertices.iter().zip(&outcome.after.vertices) {
                match effective(&after.weight).len() {
                    2 => assert_eq!(before.weight, after.weight),
                    _ => assert!(matches!(after.weight, Weight::Bdef1 { .. })),
                }
            }
        }
        Err(_) => assert_eq!(expected, 0),
    }
    // QDEF stays QDEF when it keeps two bones.
    let outcome = run_tool(
        "limit_weights",
        &mixed,
        &PluginSelection::new(),
        &json!({"max_bones": 2}),
    );
    for (before, after) in mixed.vertices.iter().zip(&outcome.after.vertices) {
        if matches!(before.weight, Weight::Qdef { .. }) && effective(&before.weight).len() > 1 {
            assert!(
                matches!(after.weight, Weight::Qdef { .. }),
                "{:?}",
                after.weight
            );
        }
        assert!((sum(&after.weight) - 1.0).abs() < 1e-5);
    }
}

#[test]
fn transfer_moves_a_bones_weight_and_merges_it() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let index = |name: &str| {
        model
            .bones
            .iter()
            .position(|bone| bone.name_ja.as_str() == name)
            .unwrap()
    };
    let (elbow, arm) = (index("左ひじ"), index("左腕"));
    let users = model
        .vertices
        .iter()
        .filter(|v| v.weight.bones().contains(&b(elbow)))
        .count();
    assert!(users > 100, "{users}");
    let outcome = run_tool(
        "transfer_weights",
        &model,
        &PluginSelection::new(),
        &json!({"from": "左ひじ", "to": "左腕"}),
    );
    assert_eq!(
        outcome.notes[..2],
        [
            format!(
                "weights transferred: {} of all {} vertices",
                thousands(users),
                thousands(model.vertices.len())
            ),
            "from 左ひじ to 左腕".to_owned()
        ]
    );
    for (k, (before, after)) in model
        .vertices
        .iter()
        .zip(&outcome.after.vertices)
        .enumerate()
    {
        assert!(!after.weight.bones().contains(&b(elbow)), "vertex {k}");
        let old = effective(&before.weight);
        let new = effective(&after.weight);
        let moved = old.get(&elbow).copied().unwrap_or(0.0) + old.get(&arm).copied().unwrap_or(0.0);
        if moved > 0.0 {
            assert!((new[&arm] - moved).abs() < 1e-5, "vertex {k}");
        }
        for (bone, w) in &old {
            if *bone != elbow && *bone != arm {
                assert!((new[bone] - w).abs() < 1e-5, "vertex {k}");
            }
        }
    }
    // By index and from the selected bones (the destination itself is skipped), only on the
    // selected vertices.
    let wrist = index("左手首");
    let selection = PluginSelection::new()
        .with(ElementKind::Bone, vec![elbow, wrist, arm])
        .with(
            ElementKind::Vertex,
            (0..model.vertices.len()).step_by(2).collect(),
        );
    let by_selection = run_tool(
        "transfer_weights",
        &model,
        &selection,
        &json!({"to": arm.to_string()}),
    );
    for (k, (before, after)) in model
        .vertices
        .iter()
        .zip(&by_selection.after.vertices)
        .enumerate()
    {
        if k % 2 == 1 {
            assert_eq!(before, after);
        } else {
            assert!(!after.weight.bones().contains(&b(elbow)));
            assert!(!after.weight.bones().contains(&b(wrist)));
        }
    }
}

#[test]
fn transfer_refuses_missing_or_same_bones() {
    let model = model_with(vec![Weight::Bdef2 {
        bones: [b(0), b(1)],
        weight: 0.25,
    }]);
    let registry = Registry::builtin();
    let plugin = registry.find("transfer_weights").unwrap();
    let run = |options: serde_json::Value, selection: PluginSelection| {
        let options = Options::from_json(&plugin.info().options, &options).unwrap();
        run_plugin(plugin.as_ref(), &mut model.clone(), &selection, &options)
    };
    let error = run(json!({"from": "首"}), PluginSelection::new()).unwrap_err();
    assert!(
        matches!(error, PluginError::BadOption { ref key, .. } if key == "to"),
        "{error}"
    );
    let error = run(json!({"from": "鼻", "to": "首"}), PluginSelection::new()).unwrap_err();
    assert_eq!(error.to_string(), "option \"from\": no bone named \"鼻\"");
    let error = run(json!({"from": "9", "to": "首"}), PluginSelection::new()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "option \"from\": bone 9: the model has 4 bones"
    );
    let error = run(json!({"to": "首"}), PluginSelection::new()).unwrap_err();
    assert!(matches!(error, PluginError::Refused { .. }), "{error}");
    let error = run(json!({"from": "首", "to": "2"}), PluginSelection::new()).unwrap_err();
    assert!(matches!(error, PluginError::Refused { .. }), "{error}");
    // BDEF2 whose both bones become the destination is BDEF1.
    let outcome = run_tool(
        "transfer_weights",
        &model,
        &PluginSelection::new(),
        &json!({"from": "センター", "to": "上半身"}),
    );
    assert_eq!(
        outcome.after.vertices[0].weight,
        Weight::Bdef1 { bone: b(1) }
    );
    // A bone nobody uses: nothing to do.
    let error = run(json!({"from": "頭", "to": "首"}), PluginSelection::new()).unwrap_err();
    assert!(matches!(error, PluginError::NoChange), "{error}");
}
