//! ミラー on Gene: copies land at the exact mirrored places with the other side's bones, the
//! faces among them come along reversed in their own material, and mirror mode gives the other
//! side's counterpart the selected side's values.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::Model;
use pmx_core::model::{BoneIdx, DisplayItem, ElementKind, MorphOffsets, Vec3, VertexIdx};
use pmx_plugins::{Options, PluginSelection, Registry, run_plugin};
use pmx_tests::{corpus_model, run_tool};
use serde_json::json;

fn bone_named(model: &Model, name: &str) -> usize {
    model
        .bones
        .iter()
        .position(|bone| bone.name_ja.as_str() == name)
        .unwrap_or_else(|| panic!("no bone {name}"))
}

fn bone_name(model: &Model, bone: Option<BoneIdx>) -> String {
    bone.map(|b| model.bones[b.get()].name_ja.as_str().into_owned())
        .unwrap_or_default()
}

/// The tool's refusal, in English.
fn refusal(model: &Model, selection: &PluginSelection, options: &serde_json::Value) -> String {
    let registry = Registry::builtin();
    let plugin = registry.find("mirror").unwrap();
    let options = Options::from_json(&plugin.info().options, options).unwrap();
    let mut working = model.clone();
    run_plugin(plugin.as_ref(), &mut working, selection, &options)
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

/// A face of `material` whose three vertices sit at x > 1 and are weighted only to 左 bones.
fn left_face(model: &Model, material: usize) -> [usize; 3] {
    let range = model.material_face_ranges()[material].clone();
    model.faces[range]
        .iter()
        .map(|face| face.map(VertexIdx::get))
        .find(|face| {
            face.iter().all(|&v| {
                let vertex = &model.vertices[v];
                vertex.position.x > 1.0
                    && vertex.weight.bones().iter().all(|bone| {
                        bone.is_some_and(|b| {
                            model.bones[b.get()].name_ja.as_str().starts_with('左')
                        })
                    })
            })
        })
        .expect("a left-side face")
}

#[test]
fn copying_left_vertices_makes_mirrored_vertices_on_the_right_bones_with_their_face() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    // 手肌 (hands and arms): a triangle on the left arm.
    let material = 1;
    let face = left_face(&model, material);
    let mut selected = face.to_vec();
    selected.sort_unstable();
    let selection = PluginSelection::new().with(ElementKind::Vertex, selected.clone());
    let outcome = run_tool("mirror", &model, &selection, &json!({}));
    let after = &outcome.after;
    assert_eq!(outcome.label_en, "Mirror");
    assert_eq!(outcome.label_ja, "ミラー");
    let n = model.vertices.len();
    assert_eq!(after.vertices.len(), n + 3);
    assert_eq!(after.faces.len(), model.faces.len() + 1);
    assert_eq!(
        after.materials[material].face_index_count,
        model.materials[material].face_index_count + 3
    );
    for (k, &original) in selected.iter().enumerate() {
        let source = &model.vertices[original];
        let copy = &after.vertices[n + k];
        let p = source.position;
        assert!(
            copy.position.bits_eq(Vec3::new(-p.x, p.y, p.z)),
            "vertex {k}"
        );
        let m = source.normal;
        assert!(copy.normal.bits_eq(Vec3::new(-m.x, m.y, m.z)));
        assert_eq!(copy.uv, source.uv);
        assert_eq!(copy.weight.kind(), source.weight.kind());
        // Same weights, on the right side's bones of the same names.
        for ((bone, weight), (copy_bone, copy_weight)) in source
            .weight
            .bone_weights()
            .into_iter()
            .zip(copy.weight.bone_weights())
        {
            assert_eq!(weight.to_bits(), copy_weight.to_bits());
            let name = bone_name(&model, bone);
            assert_eq!(
                bone_name(after, copy_bone),
                name.replacen('左', "右", 1),
                "{name}"
            );
        }
    }
    // The copied face is the last of its material, winding reversed.
    let end = after.material_face_ranges()[material].end;
    let position = |v: usize| selected.iter().position(|&s| s == v).unwrap() + n;
    let expected = [position(face[0]), position(face[2]), position(face[1])];
    assert_eq!(after.faces[end - 1].map(VertexIdx::get), expected);
    // Faces of the other materials did not move relative to their materials.
    let later = after.material_face_ranges()[material + 1].clone();
    assert_eq!(
        after.faces[later.clone()],
        model.faces[model.material_face_ranges()[material + 1].clone()]
    );
    // Vertex morph offsets of the originals come along for the copies, mirrored.
    for (before, morph) in model.morphs.iter().zip(&after.morphs) {
        if let (MorphOffsets::Vertex(old), MorphOffsets::Vertex(new)) =
            (&before.offsets, &morph.offsets)
        {
            let of_originals: Vec<_> = old
                .iter()
                .filter(|o| selected.contains(&o.vertex.get()))
                .collect();
            assert_eq!(new.len(), old.len() + of_originals.len());
            for (added, original) in new[old.len()..].iter().zip(of_originals) {
                assert_eq!(added.vertex.get(), position(original.vertex.get()));
                let o = original.offset;
                assert!(added.offset.bits_eq(Vec3::new(-o.x, o.y, o.z)));
            }
        }
    }
}

#[test]
fn copying_a_left_bone_makes_its_right_twin_under_the_right_parent() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let arm = bone_named(&model, "左腕");
    let selection = PluginSelection::new().with(ElementKind::Bone, vec![arm]);
    let outcome = run_tool("mirror", &model, &selection, &json!({"mode": "copy"}));
    let after = &outcome.after;
    let copy = &after.bones[model.bones.len()];
    assert_eq!(copy.name_ja.as_str(), "右腕");
    assert_eq!(copy.name_en.as_str(), "arm_R");
    assert_eq!(bone_name(after, copy.parent), "右肩");
    let original = &model.bones[arm];
    assert!(copy.position.bits_eq(Vec3::new(
        -original.position.x,
        original.position.y,
        original.position.z
    )));
    assert!(copy.tail_offset.bits_eq(Vec3::new(
        -original.tail_offset.x,
        original.tail_offset.y,
        original.tail_offset.z
    )));
    // The copy joins 左腕's display frame right after it.
    let frame = after
        .display_frames
        .iter()
        .find(|f| f.name_ja.as_str() == "左腕")
        .unwrap();
    let at = frame
        .items
        .iter()
        .position(|item| *item == DisplayItem::Bone(Some(BoneIdx::new(arm))))
        .unwrap();
    assert_eq!(
        frame.items[at + 1],
        DisplayItem::Bone(Some(BoneIdx::new(model.bones.len())))
    );
}

#[test]
fn mirror_mode_gives_the_right_arm_the_left_arms_values() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let left = bone_named(&model, "左腕");
    let right = bone_named(&model, "右腕");
    let selection = PluginSelection::new().with(ElementKind::Bone, vec![left]);
    let outcome = run_tool("mirror", &model, &selection, &json!({"mode": "mirror"}));
    assert_eq!(
        outcome.notes[0],
        "mirrored onto the other side: 0 vertices, 1 bones, 0 rigid bodies, 0 joints"
    );
    let bone = &outcome.after.bones[right];
    // Gene's 左腕: (1.3334012, 15.36092, 0.07036243), tail (2.3614755, -1.5920782, 0.06906485).
    assert_eq!(bone.position, Vec3::new(-1.3334012, 15.36092, 0.07036243));
    assert_eq!(
        bone.tail_offset,
        Vec3::new(-2.3614755, -1.5920782, 0.06906485)
    );
    assert_eq!(bone.name_ja.as_str(), "右腕");
    assert_eq!(bone.name_en.as_str(), "arm_R");
    assert_eq!(bone_name(&outcome.after, bone.parent), "右肩");
    assert_eq!(bone.flags, model.bones[left].flags);
    for (index, (before, after)) in model.bones.iter().zip(&outcome.after.bones).enumerate() {
        if index != right {
            assert_eq!(before, after, "bone {index}");
        }
    }

    // Rigid bodies pair up by name too: 左腕's body onto 右腕's, angles about Y and Z negated.
    let body = model
        .rigid_bodies
        .iter()
        .position(|b| b.name_ja.as_str() == "左腕")
        .unwrap();
    let target = model
        .rigid_bodies
        .iter()
        .position(|b| b.name_ja.as_str() == "右腕")
        .unwrap();
    let selection = PluginSelection::new().with(ElementKind::RigidBody, vec![body]);
    let outcome = run_tool("mirror", &model, &selection, &json!({"mode": "mirror"}));
    let source = &model.rigid_bodies[body];
    let mirrored = &outcome.after.rigid_bodies[target];
    assert!(mirrored.position.bits_eq(Vec3::new(
        -source.position.x,
        source.position.y,
        source.position.z
    )));
    assert!(mirrored.rotation.bits_eq(Vec3::new(
        source.rotation.x,
        -source.rotation.y,
        -source.rotation.z
    )));
    assert_eq!(bone_name(&outcome.after, mirrored.bone), "右腕");
    assert_eq!(mirrored.name_ja.as_str(), "右腕");
}

#[test]
fn mirror_mode_snaps_the_vertex_found_at_the_mirrored_position() {
    let Some(mut model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    // Gene is symmetric: a left vertex whose mirror image has exactly one vertex near it
    // (a brute-force search, fine in a test), then that vertex moved off by less than the
    // tolerance.
    let near = |p: Vec3, radius: f32| -> Vec<usize> {
        (0..model.vertices.len())
            .filter(|&v| {
                let q = model.vertices[v].position;
                ((q.x + p.x).powi(2) + (q.y - p.y).powi(2) + (q.z - p.z).powi(2)).sqrt() < radius
            })
            .collect()
    };
    let (source, target) = left_face(&model, 1)
        .into_iter()
        .chain(0..model.vertices.len())
        .filter(|&v| model.vertices[v].position.x > 1.0)
        .find_map(
            |v| match near(model.vertices[v].position, 0.01).as_slice() {
                [only] => Some((v, *only)),
                _ => None,
            },
        )
        .expect("a vertex with one counterpart");
    let p = model.vertices[source].position;
    model.vertices[target].position = Vec3::new(-p.x + 0.0004, p.y, p.z - 0.0003);
    let selection = PluginSelection::new().with(ElementKind::Vertex, vec![source]);
    let outcome = run_tool("mirror", &model, &selection, &json!({"mode": "mirror"}));
    let snapped = &outcome.after.vertices[target];
    assert!(snapped.position.bits_eq(Vec3::new(-p.x, p.y, p.z)));
    for (bone, copy_bone) in model.vertices[source]
        .weight
        .bones()
        .iter()
        .zip(snapped.weight.bones())
    {
        assert_eq!(
            bone_name(&outcome.after, *copy_bone),
            bone_name(&model, *bone).replacen('左', "右", 1)
        );
    }
    // Its UV is its own.
    assert_eq!(snapped.uv, model.vertices[target].uv);
    assert_eq!(
        outcome.notes[0],
        "mirrored onto the other side: 1 vertices, 0 bones, 0 rigid bodies, 0 joints"
    );

    // Out of tolerance: nothing to do, said so.
    model.vertices[target].position = Vec3::new(-p.x + 0.01, p.y, p.z);
    let error = refusal(
        &model,
        &PluginSelection::new().with(ElementKind::Vertex, vec![source]),
        &json!({"mode": "mirror", "tolerance": 0.001}),
    );
    assert!(
        error.contains("1 selected vertices have no vertex at their mirrored position"),
        "{error}"
    );
}

#[test]
fn mirror_refuses_without_a_selection_and_lists_missing_counterparts() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    assert_eq!(
        refusal(&model, &PluginSelection::new(), &json!({})),
        "select vertices, bones, rigid bodies or joints first"
    );
    // 右腕xca has no 左腕xca.
    let lonely = bone_named(&model, "右腕xca");
    let error = refusal(
        &model,
        &PluginSelection::new().with(ElementKind::Bone, vec![lonely]),
        &json!({"mode": "mirror"}),
    );
    assert!(
        error.contains("1 bones have no counterpart on the other side: 「右腕xca」"),
        "{error}"
    );
    // Both sides selected: skipped, said so.
    let both = vec![bone_named(&model, "左腕"), bone_named(&model, "右腕")];
    let error = refusal(
        &model,
        &PluginSelection::new().with(ElementKind::Bone, both),
        &json!({"mode": "mirror"}),
    );
    assert!(error.contains("select one side only"), "{error}");
}

#[test]
fn copying_on_the_sample_model_keeps_it_valid() {
    let model = pmx_core::generate::sample_model();
    let all_bones: Vec<usize> = (0..model.bones.len()).collect();
    let all_bodies: Vec<usize> = (0..model.rigid_bodies.len()).collect();
    let all_joints: Vec<usize> = (0..model.joints.len()).collect();
    let selection = PluginSelection::new()
        .with(ElementKind::Bone, all_bones)
        .with(ElementKind::RigidBody, all_bodies)
        .with(ElementKind::Joint, all_joints)
        .with(ElementKind::Vertex, vec![0, 1, 2]);
    let outcome = run_tool("mirror", &model, &selection, &json!({"axis": "z"}));
    assert_eq!(outcome.after.bones.len(), 2 * model.bones.len());
    assert_eq!(outcome.after.vertices.len(), model.vertices.len() + 3);
    let p = model.vertices[0].position;
    assert!(
        outcome.after.vertices[model.vertices.len()]
            .position
            .bits_eq(Vec3::new(p.x, p.y, -p.z))
    );
}
