#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::generate::feature_model;
use crate::model::*;
use serde_json::json;

fn model() -> Model {
    feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 60, 12)
}

/// Applies `edit` through a history, checks undo restores the model and redo gives the edited
/// model again, and returns the edited model.
fn round_trip(original: &Model, edit: Edit) -> (Model, Touched) {
    let mut model = original.clone();
    let mut history = History::new();
    let touched = history.apply(&mut model, edit);
    let edited = model.clone();
    assert!(history.is_dirty());
    history.undo(&mut model).expect("one step to undo");
    assert_eq!(&model, original, "undo restores the model");
    assert!(!history.is_dirty());
    history.redo(&mut model).expect("one step to redo");
    assert_eq!(model, edited, "redo gives the edited model again");
    (edited, touched)
}

fn ops(value: serde_json::Value) -> Vec<EditOp> {
    serde_json::from_value(value).expect("valid ops")
}

#[test]
fn set_vertex_position_and_component() {
    let original = model();
    let edit = Edit::set_json(
        &original,
        EditTarget::Vertex,
        &[0, 2],
        "position",
        &[json!([0.0, 1.0, 0.0])],
    )
    .unwrap();
    assert_eq!(edit.label(), "Set position of 2 vertices");
    let (edited, touched) = round_trip(&original, edit);
    assert_eq!(edited.vertices[0].position, Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(edited.vertices[2].position, Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(edited.vertices[1], original.vertices[1]);
    assert_eq!(
        touched.ranges(EditTarget::Vertex).collect::<Vec<_>>(),
        vec![0..1, 2..3]
    );
    assert!(!touched.structure_changed());

    let edit = Edit::set(&original, EditTarget::Vertex, &[5], "position.y", 7.5f32).unwrap();
    let (edited, _) = round_trip(&original, edit);
    assert_eq!(edited.vertices[5].position.y, 7.5);
    assert_eq!(
        edited.vertices[5].position.x,
        original.vertices[5].position.x
    );
}

#[test]
fn set_paths_into_every_kind() {
    let original = model();
    let cases: Vec<(EditTarget, usize, &str, serde_json::Value)> = vec![
        (EditTarget::Header, 0, "encoding", json!("utf16")),
        (EditTarget::Info, 0, "name_en", json!("renamed")),
        (
            EditTarget::Vertex,
            3,
            "additional_uvs.1",
            json!([1.0, 2.0, 3.0, 4.0]),
        ),
        (
            EditTarget::Vertex,
            0,
            "weight",
            json!({"type": "bdef1", "bone": 2}),
        ),
        (EditTarget::Vertex, 8, "weight.bones.1", json!(3)),
        (EditTarget::Face, 1, "2", json!(7)),
        (EditTarget::Texture, 0, "path", json!("tex/other.png")),
        (EditTarget::Material, 0, "diffuse.w", json!(0.5)),
        (EditTarget::Material, 0, "toon", json!({"shared": 3})),
        (EditTarget::Bone, 0, "ik.links.0.bone", json!(4)),
        (EditTarget::Bone, 3, "parent", json!(null)),
        (EditTarget::Morph, 1, "offsets.0.offset.x", json!(0.25)),
        (EditTarget::Morph, 1, "panel", json!("mouth")),
        (EditTarget::DisplayFrame, 1, "items.0", json!({"morph": 2})),
        (EditTarget::RigidBody, 0, "shape", json!("capsule")),
        (EditTarget::Joint, 0, "body_b", json!(1)),
        (EditTarget::SoftBody, 0, "anchors.1.near_mode", json!(false)),
        (EditTarget::SoftBody, 0, "pinned_vertices.0", json!(9)),
        (EditTarget::SoftBody, 0, "config.vcf", json!(2.5)),
    ];
    for (target, index, field, value) in cases {
        let edit = Edit::set_json(
            &original,
            target,
            &[index],
            field,
            std::slice::from_ref(&value),
        )
        .unwrap_or_else(|e| panic!("{target} {field}: {e}"));
        let (edited, _) = round_trip(&original, edit);
        assert_eq!(
            get_field(&edited, target, index, field).unwrap(),
            value,
            "{target} {field}"
        );
    }
}

#[test]
fn set_rejects_bad_paths_and_values() {
    let model = model();
    assert!(matches!(
        Edit::set_json(&model, EditTarget::Bone, &[0], "no_such", &[json!(1)]),
        Err(EditError::NoSuchField { .. })
    ));
    assert!(matches!(
        Edit::set_json(&model, EditTarget::Bone, &[0], "parent", &[json!("x")]),
        Err(EditError::InvalidValue { .. })
    ));
    assert!(matches!(
        Edit::set_json(&model, EditTarget::Bone, &[999], "parent", &[json!(1)]),
        Err(EditError::IndexOutOfRange { index: 999, .. })
    ));
    // BDEF1 (vertex 0) and BDEF2 (vertex 8) hold different `weight` shapes: `bones` is a path
    // of one but not the other.
    assert!(matches!(
        Edit::set_json(
            &model,
            EditTarget::Vertex,
            &[8, 0],
            "weight.bones",
            &[json!([1, 2])]
        ),
        Err(EditError::NoSuchField { index: 0, .. })
    ));
    assert!(matches!(
        Edit::set_json(
            &model,
            EditTarget::Vertex,
            &[0, 1, 2],
            "edge_scale",
            &[json!(1), json!(2)]
        ),
        Err(EditError::ValueCount {
            values: 2,
            indices: 3
        })
    ));
    assert!(matches!(
        Edit::set(&model, EditTarget::Vertex, &[0], "position", 1.0f32),
        Err(EditError::FieldTypeMismatch { .. })
    ));
}

#[test]
fn a_gesture_is_one_step() {
    let mut model = model();
    let original = model.clone();
    let mut history = History::new();
    let gesture = history.new_gesture();
    for step in 1..=5 {
        let edit = Edit::set(&model, EditTarget::Bone, &[1, 2], "position.x", step as f32)
            .unwrap()
            .in_gesture(gesture);
        history.apply(&mut model, edit);
    }
    assert_eq!(history.len(), 1, "five drag steps merge into one");
    assert_eq!(model.bones[1].position.x, 5.0);
    history.undo(&mut model);
    assert_eq!(model, original);

    // Another gesture is another step.
    history.redo(&mut model);
    let next = history.new_gesture();
    let edit = Edit::set(&model, EditTarget::Bone, &[1, 2], "position.x", 9.0f32)
        .unwrap()
        .in_gesture(next);
    history.apply(&mut model, edit);
    assert_eq!(history.len(), 2);
}

#[test]
fn saved_point_follows_undo_and_redo() {
    let mut model = model();
    let mut history = History::new();
    assert!(!history.is_dirty());
    let edit = Edit::set_json(&model, EditTarget::Info, &[], "name_ja", &[json!("a")]).unwrap();
    history.apply(&mut model, edit);
    assert!(history.is_dirty());
    history.mark_saved();
    assert!(!history.is_dirty());
    history.undo(&mut model);
    assert!(history.is_dirty());
    history.redo(&mut model);
    assert!(!history.is_dirty());
    assert_eq!(history.undo_label(), Some("Set info name_ja"));
    assert_eq!(history.redo_label(), None);
}

#[test]
fn history_limit_drops_the_oldest_steps() {
    let mut model = model();
    let mut history = History::with_limit(3);
    for i in 0..5 {
        let edit = Edit::set(&model, EditTarget::Bone, &[0], "layer", i).unwrap();
        history.apply(&mut model, edit);
    }
    assert_eq!(history.len(), 3);
    history.undo_all(&mut model);
    assert_eq!(model.bones[0].layer, 1, "the two oldest steps are gone");
}

/// Error codes with their counts (paths shift with a deletion; counts do not).
fn error_counts(model: &Model) -> std::collections::BTreeMap<&'static str, usize> {
    let options = crate::validate::CheckOptions {
        max_issues_per_code: usize::MAX,
        ..Default::default()
    };
    let mut counts = std::collections::BTreeMap::new();
    for issue in crate::validate::check(model, None, &options) {
        if issue.is_error() {
            *counts.entry(issue.code).or_default() += 1;
        }
    }
    counts
}

#[test]
fn deleting_a_bone_hands_its_role_to_its_ancestor() {
    let mut original = model();
    let b = |i: usize| Some(BoneIdx::new(i));
    original.bones[3].parent = b(2);
    original.bones[5].parent = b(3);
    original.bones[6].parent = b(4);
    original.bones[7].flags |= BoneFlags::TAIL_IS_BONE;
    original.bones[7].tail_bone = b(3);
    original.bones[8].flags |= BoneFlags::APPEND_ROTATE;
    original.bones[8].flags -= BoneFlags::APPEND_MOVE;
    original.bones[8].append_parent = b(3);
    original.bones[9].flags |= BoneFlags::IK;
    original.bones[9].ik = Ik {
        target: b(3),
        links: vec![IkLink {
            bone: b(2),
            limits: None,
        }],
        ..Ik::default()
    };
    original.bones[10].flags |= BoneFlags::IK;
    original.bones[10].ik = Ik {
        target: b(1),
        links: vec![
            IkLink {
                bone: b(3),
                limits: None,
            },
            IkLink {
                bone: b(2),
                limits: None,
            },
        ],
        ..Ik::default()
    };
    original.rigid_bodies[0].bone = b(3);
    original.rigid_bodies[0].mode = RigidMode::FollowBone;
    original.rigid_bodies[1].bone = b(3);
    original.rigid_bodies[1].mode = RigidMode::Physics;
    original.vertices[0].weight = Weight::Bdef2 {
        bones: [b(2), b(3)],
        weight: 0.25,
    };
    original.vertices[1].weight = Weight::Bdef1 { bone: b(3) };
    original.display_frames[0]
        .items
        .push(DisplayItem::Bone(b(3)));
    let weight_refs = original
        .vertices
        .iter()
        .flat_map(|v| v.weight.bones())
        .filter(|&&bone| bone == b(3))
        .count();
    let children = original.bones.iter().filter(|x| x.parent == b(3)).count();
    let on_bone_3 = |mode: RigidMode| {
        original
            .rigid_bodies
            .iter()
            .filter(|r| {
                r.bone == b(3)
                    && (r.mode == RigidMode::FollowBone) == (mode == RigidMode::FollowBone)
            })
            .count()
    };
    let (following, physics) = (
        on_bone_3(RigidMode::FollowBone),
        on_bone_3(RigidMode::Physics),
    );
    let errors_before = error_counts(&original);

    let edit = Edit::delete(&original, ElementKind::Bone, &[3]).unwrap();
    let report = edit.report().clone();
    let name = original.bones[2].name_ja.as_str().into_owned();
    assert_eq!(
        report.moved,
        vec![
            MovedRefs {
                what: "child bones".into(),
                to: 2,
                to_name: name.clone(),
                count: children
            },
            MovedRefs {
                what: "vertex weights".into(),
                to: 2,
                to_name: name.clone(),
                count: weight_refs
            },
            MovedRefs {
                what: "rigid bodies".into(),
                to: 2,
                to_name: name.clone(),
                count: following
            },
        ]
    );
    assert_eq!(report.switched_off.get("tail bone"), Some(&1));
    assert_eq!(report.switched_off.get("append"), Some(&1));
    assert_eq!(report.switched_off.get("IK"), Some(&1));
    assert_eq!(report.removed_with.get("IK links"), Some(&1));
    assert!(report.removed_with.get("display frame items") >= Some(&1));
    assert_eq!(
        report.cleared.get("rigid body bones"),
        Some(&physics),
        "{report:?}"
    );
    assert!(
        edit.label().starts_with(&format!(
            "Delete 1 bone ({children} child bones, {weight_refs} vertex weights, {following} rigid bodies moved to {name}; and "
        )),
        "{}",
        edit.label()
    );
    let japanese = edit.label_in(crate::i18n::Language::Japanese);
    assert!(
        japanese.starts_with(&format!(
            "ボーン1個を削除（子ボーン{children}個、頂点ウェイト{weight_refs}個、剛体{following}個を{name}へ移動、"
        )),
        "{japanese}"
    );
    assert!(japanese.contains("ボーン1個のIK"), "{japanese}");
    assert!(
        report
            .cleared_examples
            .iter()
            .any(|e| e == "rigid_bodies[1].bone (was bone 3)"),
        "{:?}",
        report.cleared_examples
    );

    let (edited, touched) = round_trip(&original, edit);
    assert_eq!(edited.bones.len(), original.bones.len() - 1);
    // Old bone 5 (now 4) hangs from old bone 3's parent; old 6 → old 4, now 3.
    assert_eq!(edited.bones[4].parent, b(2));
    assert_eq!(edited.bones[5].parent, b(3));
    // The tail points where the deleted bone was.
    let tail = &edited.bones[6];
    assert!(!tail.flags.contains(BoneFlags::TAIL_IS_BONE));
    let (from, to) = (original.bones[7].position, original.bones[3].position);
    assert_eq!(
        tail.tail_offset,
        Vec3::new(to.x - from.x, to.y - from.y, to.z - from.z)
    );
    assert!(!edited.bones[7].has_append());
    assert!(!edited.bones[8].is_ik());
    assert_eq!(edited.bones[9].ik.links.len(), 1);
    assert_eq!(edited.bones[9].ik.links[0].bone, b(2));
    assert_eq!(edited.rigid_bodies[0].bone, b(2));
    assert_eq!(edited.rigid_bodies[1].bone, None);
    assert_eq!(edited.vertices[0].weight, Weight::Bdef1 { bone: b(2) });
    assert_eq!(edited.vertices[1].weight, Weight::Bdef1 { bone: b(2) });
    // No weight went to "no bone", and every vertex still has its whole weight.
    for (vertex, before) in edited.vertices.iter().zip(&original.vertices) {
        let weights = vertex.weight.bone_weights();
        assert!(weights.iter().all(|(bone, w)| bone.is_some() || *w == 0.0));
        let sum = |w: &[(Option<BoneIdx>, f32)]| w.iter().map(|(_, w)| w).sum::<f32>();
        assert!((sum(&weights) - sum(&before.weight.bone_weights())).abs() < 1e-5);
    }
    let items_of_3 = original.display_frames[0]
        .items
        .iter()
        .filter(|item| **item == DisplayItem::Bone(b(3)))
        .count();
    assert_eq!(
        edited.display_frames[0].items.len(),
        original.display_frames[0].items.len() - items_of_3
    );
    assert!(
        !edited.display_frames[0]
            .items
            .contains(&DisplayItem::Bone(None))
    );
    assert_eq!(touched.structure, vec![ElementKind::Bone]);
    assert!(touched.touches(EditTarget::Vertex));
    let errors_after = error_counts(&edited);
    for (code, count) in &errors_after {
        assert!(
            errors_before
                .get(code)
                .is_some_and(|before| before >= count),
            "new {code}: {errors_before:?} → {errors_after:?}"
        );
    }
}

#[test]
fn deleting_a_rigid_body_deletes_its_joints() {
    let original = model();
    let body = original.joints[0].body_a.unwrap().get();
    let joints = original
        .joints
        .iter()
        .filter(|j| [j.body_a, j.body_b].contains(&Some(RigidBodyIdx::new(body))))
        .count();
    let edit = Edit::delete(&original, ElementKind::RigidBody, &[body]).unwrap();
    assert_eq!(edit.report().removed_with.get("joints"), Some(&joints));
    let (edited, touched) = round_trip(&original, edit);
    assert_eq!(edited.joints.len(), original.joints.len() - joints);
    assert!(touched.structure.contains(&ElementKind::Joint));
    assert!(
        edited
            .joints
            .iter()
            .all(|j| j.body_a.is_some() && j.body_b.is_some())
    );
}

#[test]
fn deleting_a_vertex_removes_what_uses_it() {
    let original = model();
    let vertex = 1; // used by faces 0 and 1, and the soft body's first pin
    let faces_using = original
        .faces
        .iter()
        .filter(|f| f.contains(&VertexIdx::new(vertex)))
        .count();
    let edit = Edit::delete(&original, ElementKind::Vertex, &[vertex]).unwrap();
    assert_eq!(edit.report().removed_with.get("faces"), Some(&faces_using));
    assert_eq!(edit.report().removed_with.get("soft body pins"), Some(&1));
    let (edited, touched) = round_trip(&original, edit);
    assert_eq!(edited.vertices.len(), original.vertices.len() - 1);
    assert_eq!(edited.faces.len(), original.faces.len() - faces_using);
    for channel in &edited.additional_uvs {
        assert_eq!(channel.len(), edited.vertices.len());
    }
    let counted: u32 = edited.materials.iter().map(|m| m.face_index_count).sum();
    let original_counted: u32 = original.materials.iter().map(|m| m.face_index_count).sum();
    assert_eq!(counted, original_counted - 3 * faces_using as u32);
    assert_eq!(edited.soft_bodies[0].pinned_vertices.len(), 1);
    assert!(
        edited
            .faces
            .iter()
            .flatten()
            .all(|v| v.get() < edited.vertices.len())
    );
    assert!(touched.structure.contains(&ElementKind::Face));
}

#[test]
fn deleting_a_material_removes_its_faces() {
    let original = model();
    let first = original.materials[0].face_index_count as usize / 3;
    let edit = Edit::delete(&original, ElementKind::Material, &[0]).unwrap();
    let (edited, _) = round_trip(&original, edit);
    assert_eq!(edited.faces.len(), original.faces.len() - first);
    assert_eq!(edited.faces[0], original.faces[first]);
    // The soft body drew with the last material, which is now one lower.
    assert_eq!(
        edited.soft_bodies[0].material,
        Some(MaterialIdx::new(original.materials.len() - 2))
    );

    let mut scratch = original.clone();
    let edit = Edit::delete_materials_and_vertices(&mut scratch, &[0]).unwrap();
    assert_eq!(
        scratch, original,
        "building the edit leaves the model alone"
    );
    let (edited, _) = round_trip(&original, edit);
    let used: std::collections::HashSet<usize> =
        edited.faces.iter().flatten().map(|v| v.get()).collect();
    assert!(edited.vertices.len() < original.vertices.len());
    assert!(used.iter().all(|&v| v < edited.vertices.len()));
}

#[test]
fn special_frames_cannot_be_deleted() {
    let model = model();
    assert!(matches!(
        Edit::delete(&model, ElementKind::DisplayFrame, &[0]),
        Err(EditError::SpecialFrame { index: 0 })
    ));
}

#[test]
fn insert_and_duplicate_every_kind() {
    let original = model();
    for kind in ElementKind::ALL {
        let edit =
            Edit::duplicate(&original, kind, &[0]).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        assert!(edit.label().starts_with("Duplicate 1 "), "{}", edit.label());
        let (edited, touched) = round_trip(&original, edit);
        assert_eq!(edited.count(kind), original.count(kind) + 1, "{kind:?}");
        assert!(touched.structure.contains(&kind));
    }
    // A duplicated material brings copies of its faces, right after the original's.
    let edit = Edit::duplicate(&original, ElementKind::Material, &[0]).unwrap();
    let (edited, _) = round_trip(&original, edit);
    let block = original.materials[0].face_index_count as usize / 3;
    assert_eq!(edited.faces.len(), original.faces.len() + block);
    assert_eq!(edited.faces[block..2 * block], original.faces[..block]);
    assert_eq!(
        edited.materials[1].face_index_count,
        original.materials[0].face_index_count
    );

    // Inserting a bone in the middle renumbers references past it.
    let bone = Bone {
        name_ja: "新".into(),
        parent: Some(BoneIdx::new(0)),
        ..Bone::default()
    };
    let edit = Edit::insert(&original, 1, Elements::Bones(vec![bone])).unwrap();
    let (edited, _) = round_trip(&original, edit);
    assert_eq!(edited.bones[1].name_ja.as_str(), "新");
    assert_eq!(edited.bones[2].name_ja, original.bones[1].name_ja);
    assert_eq!(
        edited.bones[0].tail_bone,
        Some(BoneIdx::new(2)),
        "old bone 1 is now 2"
    );
}

#[test]
fn move_and_sort_keep_every_reference() {
    let original = model();
    let edit = Edit::move_to(&original, ElementKind::Bone, &[0, 1], 5).unwrap();
    let (edited, _) = round_trip(&original, edit);
    assert_eq!(edited.bones[5].name_ja, original.bones[0].name_ja);
    assert_eq!(edited.bones[6].name_ja, original.bones[1].name_ja);
    assert_eq!(edited.bones[5].tail_bone, Some(BoneIdx::new(6)));

    let edit = Edit::move_by(&original, ElementKind::Morph, &[3], -2).unwrap();
    let (edited, _) = round_trip(&original, edit);
    assert_eq!(edited.morphs[1].name_ja, original.morphs[3].name_ja);

    let edit = Edit::sort(&original, ElementKind::Bone, SortKey::Hierarchy).unwrap();
    let (edited, _) = round_trip(&original, edit);
    for (i, bone) in edited.bones.iter().enumerate() {
        if let Some(parent) = bone.parent {
            assert!(parent.get() < i, "bone {i}'s parent comes first");
        }
    }
    let edit = Edit::sort(&original, ElementKind::Material, SortKey::Transparency).unwrap();
    round_trip(&original, edit);
    let edit = Edit::sort(&original, ElementKind::Morph, SortKey::Panel).unwrap();
    let (edited, _) = round_trip(&original, edit);
    assert!(
        edited
            .morphs
            .windows(2)
            .all(|w| w[0].panel.to_raw() <= w[1].panel.to_raw())
    );
    assert!(matches!(
        Edit::sort(&original, ElementKind::Vertex, SortKey::Name),
        Err(EditError::SortKey { .. })
    ));
}

#[test]
fn merging_a_model_appends_everything_as_one_step() {
    let original = model();
    let other = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 20, 9);
    let mut scratch = original.clone();
    let edit = Edit::merge_model(&mut scratch, &other, MergeOptions::default()).unwrap();
    assert_eq!(scratch, original);
    let (edited, _) = round_trip(&original, edit);
    assert_eq!(
        edited.vertices.len(),
        original.vertices.len() + other.vertices.len()
    );
    assert_eq!(edited.bones.len(), original.bones.len() + other.bones.len());
    assert_eq!(edited.faces.len(), original.faces.len() + other.faces.len());
    let last_face = edited.faces.last().unwrap();
    assert_eq!(
        last_face[0].get(),
        other.faces.last().unwrap()[0].get() + original.vertices.len()
    );
    let appended = &edited.vertices[original.vertices.len()];
    assert_eq!(
        appended.weight.bones()[0].map(BoneIdx::get),
        other.vertices[0].weight.bones()[0].map(|b| b.get() + original.bones.len())
    );

    let mut scratch = original.clone();
    let options = MergeOptions {
        match_bones_by_name: true,
    };
    let edit = Edit::merge_model(&mut scratch, &original, options).unwrap();
    let (edited, _) = round_trip(&original, edit);
    assert_eq!(
        edited.bones.len(),
        original.bones.len(),
        "every bone matched"
    );
    assert_eq!(
        edited.vertices[original.vertices.len()].weight,
        original.vertices[0].weight
    );
}

#[test]
fn ops_build_one_step() {
    let mut model = model();
    let original = model.clone();
    let script = ops(json!([
        {"op": "set", "kind": "vertex", "indices": [0], "field": "position", "value": [0, 1, 0]},
        {"op": "set", "kind": "bone", "indices": [2], "field": "parent", "value": null},
        {"op": "delete", "kind": "bone", "indices": [5, 6]},
        {"op": "insert", "kind": "texture", "items": ["tex/new.png"]},
        {"op": "insert", "kind": "face", "material": 0, "items": [[0, 1, 2]]},
        {"op": "duplicate", "kind": "morph", "indices": [0]},
        {"op": "move", "kind": "rigid_body", "indices": [1], "by": -1},
        {"op": "sort", "kind": "material", "by": "name"},
        {"op": "batch", "label": "inner", "ops": [
            {"op": "set", "kind": "info", "field": "comment_en", "value": "x"}
        ]}
    ]));
    let edit = ops_to_edit(&mut model, &script).unwrap();
    assert_eq!(model, original, "building leaves the model unchanged");
    assert_eq!(edit.label(), "Edit script (9 steps)");
    let (edited, _) = round_trip(&original, edit);
    assert_eq!(edited.bones.len(), original.bones.len() - 2);
    assert_eq!(edited.bones[2].parent, None);
    assert_eq!(edited.textures.len(), original.textures.len() + 1);
    assert_eq!(edited.faces.len(), original.faces.len() + 1);
    assert_eq!(edited.info.comment_en.as_str(), "x");

    let mut history = History::new();
    let fix = ops(
        json!([{"op": "set", "kind": "bone", "indices": [0], "field": "ik.links.0.bone", "value": 1}]),
    );
    let touched = history.apply_ops(&mut model, &fix).unwrap();
    assert_eq!(
        touched.ranges(EditTarget::Bone).collect::<Vec<_>>(),
        vec![0..1]
    );
    assert_eq!(history.undo_label(), Some("Set ik.links[0].bone of bone 0"));
    history.undo(&mut model);

    // A failing step names itself and leaves the model unchanged.
    let bad = ops(json!([
        {"op": "delete", "kind": "bone", "indices": [1]},
        {"op": "set", "kind": "bone", "indices": [99], "field": "layer", "value": 1}
    ]));
    let error = ops_to_edit(&mut model, &bad).unwrap_err();
    assert!(
        error.to_string().starts_with("step 1 (set): bone index 99"),
        "{error}"
    );
    assert_eq!(model, original);

    // Unknown fields in an op are errors, not silently ignored.
    assert!(
        serde_json::from_value::<Vec<EditOp>>(
            json!([{"op": "delete", "kind": "bone", "index": [1]}])
        )
        .is_err()
    );
}

#[test]
fn touched_ranges_coalesce_and_cap() {
    let mut touched = Touched::default();
    touched.add_indices(EditTarget::Vertex, &[5, 3, 4, 9]);
    assert_eq!(
        touched.ranges(EditTarget::Vertex).collect::<Vec<_>>(),
        vec![3..6, 9..10]
    );
    let many: Vec<u32> = (0..200).map(|i| i * 2).collect();
    touched.add_indices(EditTarget::Bone, &many);
    assert_eq!(
        touched.ranges(EditTarget::Bone).collect::<Vec<_>>(),
        vec![0..399]
    );
}

#[test]
fn touched_lists_the_exact_vertices_while_every_change_named_them() {
    // 300 vertices far apart: the ranges collapse into one covering range, the list keeps
    // exactly those.
    let spread: Vec<u32> = (0..300).map(|i| i * 1_000 + 7).collect();
    let mut touched = Touched::default();
    touched.add_indices(EditTarget::Vertex, &spread);
    assert_eq!(
        touched.ranges(EditTarget::Vertex).collect::<Vec<_>>(),
        vec![7..299_008]
    );
    assert_eq!(touched.changed_vertices, spread);
    // As ranges for uploads: one per vertex 1,000 apart, joined where closer.
    assert_eq!(touched.vertex_runs(0).len(), 300);
    assert_eq!(touched.vertex_runs(0)[1], 1_007..1_008);
    assert_eq!(touched.vertex_runs(1_000), vec![7..299_008]);
    // Another named change adds to it; a later step of a batch too.
    touched.add_indices(EditTarget::Vertex, &[3, 7]);
    let mut next = Touched::default();
    next.add_indices(EditTarget::Vertex, &[1]);
    touched.extend(next);
    let mut expected = spread.clone();
    expected.extend([1, 3]);
    expected.sort_unstable();
    assert_eq!(touched.changed_vertices, expected);
    // A range (every vertex of a header-wide change) is no list: the ranges say it.
    let mut whole = touched.clone();
    whole.add_range(EditTarget::Vertex, 0..400_000);
    assert!(whole.changed_vertices.is_empty());
    // Nor is a step whose vertex change only had ranges, or one that renumbered vertices.
    let mut ranged = Touched::default();
    ranged.add_range(EditTarget::Vertex, 10..20);
    let mut merged = touched.clone();
    merged.extend(ranged);
    assert!(merged.changed_vertices.is_empty());
    let mut renumbered = Touched::default();
    renumbered.add_structure(ElementKind::Vertex);
    let mut merged = touched.clone();
    merged.extend(renumbered);
    assert!(merged.changed_vertices.is_empty());
    // A step that changed no vertex keeps the list.
    let mut bones = Touched::default();
    bones.add_range(EditTarget::Bone, 0..1);
    let mut merged = touched.clone();
    merged.extend(bones);
    assert_eq!(merged.changed_vertices, expected);
}

#[test]
fn pose_as_rest_is_one_undoable_step_equal_to_the_direct_result() {
    let original = model();
    let mut pose = crate::pose::Pose::new(&original);
    let bone = BoneIdx::new(1);
    pose.set_bone(
        bone,
        glam::Quat::from_rotation_z(0.7),
        glam::Vec3::new(0.0, 0.5, 0.0),
    );
    pose.set_morph(MorphIdx::new(0), 1.0);
    let (expected, notes) = crate::pose::apply_pose_as_rest(&original, &pose).unwrap();
    assert_ne!(
        expected.vertices, original.vertices,
        "the pose moves vertices"
    );
    let edit = Edit::pose_as_rest(&original, &pose).unwrap();
    assert_eq!(edit.label(), "Apply pose as rest");
    assert_eq!(edit.report().notes, notes);
    assert!(!edit.is_structural());
    let (edited, touched) = round_trip(&original, edit);
    assert_eq!(edited, expected);
    assert_eq!(
        touched.ranges(EditTarget::Vertex).collect::<Vec<_>>(),
        vec![0..original.vertices.len()]
    );
    assert_eq!(
        touched.ranges(EditTarget::Bone).collect::<Vec<_>>(),
        vec![0..original.bones.len()]
    );
}

#[test]
fn pose_as_rest_refuses_a_pose_of_another_model() {
    let original = model();
    let mut pose = crate::pose::Pose::new(&original);
    pose.bones.pop();
    assert!(matches!(
        Edit::pose_as_rest(&original, &pose),
        Err(EditError::Pose(_))
    ));
}

#[test]
fn edit_scripts_are_versioned() {
    let bare = EditScript::parse(r#"[{"op": "sort", "kind": "bone", "by": "name"}]"#)
        .expect("a bare list is version 1");
    assert_eq!(bare.version, 1);
    assert_eq!(bare.label, None);
    assert_eq!(bare.ops.len(), 1);

    let unversioned = EditScript::parse(r#"{"label": "x", "ops": []}"#).expect("no version is 1");
    assert_eq!(unversioned.version, 1);
    assert_eq!(unversioned.label.as_deref(), Some("x"));

    let v1 = EditScript::parse(r#"{"version": 1, "label": "Fix", "ops": [{"op": "duplicate", "kind": "bone", "indices": [0]}]}"#)
        .expect("version 1");
    assert_eq!(v1.version, 1);
    assert_eq!(v1.ops.len(), 1);
    // Written back, a script says its version.
    let written = serde_json::to_string(&v1).expect("serialize");
    assert!(written.starts_with(r#"{"version":1,"#), "{written}");

    // A later version is refused by its version, even if its ops are unknown here.
    let error = EditScript::parse(r#"{"version": 2, "ops": [{"op": "teleport"}]}"#)
        .expect_err("version 2 is refused");
    assert!(matches!(error, ScriptError::UnsupportedVersion { .. }));
    assert!(
        error.to_string().contains("version 2 is not supported"),
        "{error}"
    );
    assert!(EditScript::parse(r#"{"version": "1", "ops": []}"#).is_err());
    assert!(matches!(
        EditScript::parse("42"),
        Err(ScriptError::NotAScript { .. })
    ));
    // Op errors keep their line.
    let error = EditScript::parse("{\"version\": 1,\n \"ops\": [{\"op\": \"teleport\"}]}")
        .expect_err("unknown op");
    assert!(error.to_string().contains("line 2"), "{error}");
}
