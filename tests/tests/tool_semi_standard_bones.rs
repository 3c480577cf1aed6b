//! 準標準ボーン追加 on real models: exactly the missing bones are added where the semi-standard
//! bone plugin puts them, wired, weighted and listed as it does; a model that has them all is
//! left alone; and a motion keying 腰 and 上半身2 moves a model only once the tool added them.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use glam::{FloatExt, Quat, Vec3};
use pmx_core::Model;
use pmx_core::edit::Edit;
use pmx_core::formats::{cp932, vmd};
use pmx_core::model::{BoneFlags, BoneIdx, DisplayItem, ElementKind, Weight};
use pmx_core::pose::{Pose, PoseEvaluator};
use pmx_plugins::{Options, PluginError, PluginSelection, Registry, run_plugin};
use pmx_tests::{corpus_model, run_tool};
use serde_json::json;

const TOOL: &str = "semi_standard_bones";

fn bone(model: &Model, name: &str) -> usize {
    model
        .bones
        .iter()
        .position(|b| b.name_ja.as_str() == name)
        .unwrap_or_else(|| panic!("no bone {name}"))
}

fn has(model: &Model, name: &str) -> bool {
    model.bones.iter().any(|b| b.name_ja.as_str() == name)
}

fn at(model: &Model, name: &str) -> Vec3 {
    model.bones[bone(model, name)].position.into()
}

fn parent_name(model: &Model, name: &str) -> String {
    let parent = model.bones[bone(model, name)].parent.unwrap().get();
    model.bones[parent].name_ja.as_str().into_owned()
}

fn close(a: Vec3, b: Vec3, what: &str) {
    assert!((a - b).length() < 1e-4, "{what}: {a} vs {b}");
}

/// The blender2pmxem sample without the semi-standard bones it has (上半身2, the twist bones,
/// 親指０, 両目, 全ての親), deleted as the editor deletes bones (children, weights and bodies go
/// to the parent).
fn bare_model() -> Option<Model> {
    let mut model = corpus_model("pmx/blender2pmxem_sample_finish_physics.pmx")?;
    let mut names = vec![
        "上半身2".to_owned(),
        "両目".to_owned(),
        "全ての親".to_owned(),
    ];
    for side in ["右", "左"] {
        for twist in ["腕捩", "手捩"] {
            names.push(format!("{side}{twist}"));
            for i in 1..=3 {
                names.push(format!("{side}{twist}{i}"));
            }
        }
        names.push(format!("{side}親指０"));
    }
    let indices: Vec<usize> = names.iter().map(|name| bone(&model, name)).collect();
    let mut edit = Edit::delete(&model, ElementKind::Bone, &indices).unwrap();
    edit.apply(&mut model);
    Some(model)
}

#[test]
fn every_missing_group_is_added_placed_wired_and_weighted_as_the_plugin_does() {
    let Some(before) = bare_model() else { return };
    assert!(!has(&before, "上半身2") && !has(&before, "全ての親"));
    let outcome = run_tool(TOOL, &before, &PluginSelection::new(), &json!({}));
    let after = &outcome.after;
    assert_eq!(outcome.label_en, "Add semi-standard bones");
    assert_eq!(outcome.label_ja, "準標準ボーン追加");
    let added = [
        "右腕捩",
        "右腕捩1",
        "右腕捩2",
        "右腕捩3",
        "左腕捩",
        "左腕捩1",
        "左腕捩2",
        "左腕捩3",
        "右手捩",
        "右手捩1",
        "右手捩2",
        "右手捩3",
        "左手捩",
        "左手捩1",
        "左手捩2",
        "左手捩3",
        "上半身2",
        "腰",
        "腰キャンセル右",
        "腰キャンセル左",
        "右足IK親",
        "左足IK親",
        "右足D",
        "右ひざD",
        "右足首D",
        "右足先EX",
        "左足D",
        "左ひざD",
        "左足首D",
        "左足先EX",
        "右肩P",
        "右肩C",
        "左肩P",
        "左肩C",
        "右親指０",
        "左親指０",
        "グルーブ",
        "両目",
        "全ての親",
        "操作中心",
    ];
    assert_eq!(
        outcome.notes[0],
        format!("added {} bones: {}", added.len(), added.join(", "))
    );
    assert_eq!(after.bones.len(), before.bones.len() + added.len());
    for name in added {
        assert!(has(after, name), "{name} added");
    }

    // The order MMD motions expect: 操作中心, 全ての親, センター, グルーブ, 腰 first.
    let first: Vec<String> = after.bones[..5]
        .iter()
        .map(|b| b.name_ja.as_str().into_owned())
        .collect();
    assert_eq!(
        first,
        ["操作中心", "全ての親", "センター", "グルーブ", "腰"]
    );
    let master = &after.bones[1];
    assert_eq!(master.name_en.as_str(), "master");
    assert_eq!(master.parent, None);
    assert_eq!(
        master.flags,
        BoneFlags::TAIL_IS_BONE
            | BoneFlags::ROTATABLE
            | BoneFlags::MOVABLE
            | BoneFlags::VISIBLE
            | BoneFlags::OPERABLE
    );
    assert_eq!(
        master.tail_bone,
        Some(BoneIdx::new(2)),
        "its tail is センター"
    );
    assert_eq!(after.bones[0].parent, None, "操作中心 stays alone");
    // Every bone that had no parent (センター, the IK bones) is under 全ての親 now.
    for name in ["センター", "左足IK親", "右足IK親"] {
        assert_eq!(parent_name(after, name), "全ての親", "{name}");
    }
    assert_eq!(parent_name(after, "左足ＩＫ"), "左足IK親");

    // グルーブ: 0.2 above センター, between it and its children.
    close(
        at(after, "グルーブ"),
        at(&before, "センター") + Vec3::Y * 0.2,
        "グルーブ",
    );
    assert_eq!(parent_name(after, "グルーブ"), "センター");
    assert_eq!(parent_name(after, "腰"), "グルーブ");

    // 腰: 60 % of the way from 下半身 down to the legs, behind the body by 2 % of its height.
    let lower = at(&before, "下半身");
    let leg = at(&before, "右足");
    let waist = Vec3::new(0.0, lower.y + (leg.y - lower.y) * 0.6, lower.y * 0.02);
    close(at(after, "腰"), waist, "腰");
    let waist_bone = &after.bones[bone(after, "腰")];
    assert_eq!(waist_bone.name_en.as_str(), "waist");
    assert_eq!(
        waist_bone.flags,
        BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE
    );
    close(
        waist_bone.tail_offset.into(),
        (lower - waist) * 0.8,
        "腰's tail",
    );
    for name in ["上半身", "下半身"] {
        assert_eq!(parent_name(after, name), "腰", "{name}");
    }
    // 腰キャンセル: at the leg, under 下半身, taking back 腰's rotation.
    for (side, en) in [("右", "R"), ("左", "L")] {
        let cancel = &after.bones[bone(after, &format!("腰キャンセル{side}"))];
        assert_eq!(cancel.name_en.as_str(), format!("waist cancel_{en}"));
        assert_eq!(
            cancel.flags,
            BoneFlags::ROTATABLE | BoneFlags::OPERABLE | BoneFlags::APPEND_ROTATE
        );
        assert_eq!(cancel.append_parent, Some(BoneIdx::new(bone(after, "腰"))));
        assert_eq!(cancel.append_ratio, -1.0);
        close(
            cancel.position.into(),
            at(&before, &format!("{side}足")),
            "腰キャンセル",
        );
        assert_eq!(parent_name(after, &format!("腰キャンセル{side}")), "下半身");
        assert_eq!(
            parent_name(after, &format!("{side}足")),
            format!("腰キャンセル{side}")
        );
        assert!(
            bone(after, &format!("腰キャンセル{side}")) < bone(after, &format!("{side}足")),
            "before the leg it carries"
        );
    }

    // 上半身2: 35 % of the way from 上半身 to 首, between 上半身 and its children.
    let spine = at(&before, "上半身");
    let neck = at(&before, "首");
    close(at(after, "上半身2"), spine.lerp(neck, 0.35), "上半身2");
    assert_eq!(bone(after, "上半身2"), bone(after, "上半身") + 1);
    assert_eq!(parent_name(after, "上半身2"), "上半身");
    for name in ["首", "左肩P", "右肩P"] {
        assert_eq!(parent_name(after, name), "上半身2", "{name}");
    }
    let spine_bone = &after.bones[bone(after, "上半身")];
    assert!(spine_bone.flags.contains(BoneFlags::TAIL_IS_BONE));
    assert_eq!(
        spine_bone.tail_bone,
        Some(BoneIdx::new(bone(after, "上半身2")))
    );

    // 肩P at 肩, 肩C at 腕 taking back 肩P's rotation.
    for (side, en) in [("右", "R"), ("左", "L")] {
        let p = &after.bones[bone(after, &format!("{side}肩P"))];
        assert_eq!(p.name_en.as_str(), format!("shoulderP_{en}"));
        close(p.position.into(), at(&before, &format!("{side}肩")), "肩P");
        assert_eq!(
            parent_name(after, &format!("{side}肩")),
            format!("{side}肩P")
        );
        let c = &after.bones[bone(after, &format!("{side}肩C"))];
        close(c.position.into(), at(&before, &format!("{side}腕")), "肩C");
        assert_eq!(
            c.append_parent,
            Some(BoneIdx::new(bone(after, &format!("{side}肩P"))))
        );
        assert_eq!(c.append_ratio, -1.0);
        assert_eq!(
            parent_name(after, &format!("{side}肩C")),
            format!("{side}肩")
        );
        assert_eq!(
            parent_name(after, &format!("{side}腕")),
            format!("{side}肩C")
        );
    }

    // 腕捩: 60 % of the way from 腕 to ひじ (the elbow's depth moved towards the arm's
    // vertices), turning about the arm; the helpers take ¼, ½, ¾ of its turn.
    let twist = &after.bones[bone(after, "右腕捩")];
    assert_eq!(twist.name_en.as_str(), "arm twist_R");
    assert_eq!(
        twist.flags,
        BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE | BoneFlags::FIXED_AXIS
    );
    let arm = at(&before, "右腕");
    let elbow = at(&before, "右ひじ");
    let twist_at: Vec3 = twist.position.into();
    let axis: Vec3 = twist.fixed_axis.into();
    assert!((axis.length() - 1.0).abs() < 1e-5);
    // x and y are those of the straight arm; z follows the mesh.
    assert!((twist_at.x - arm.x.lerp(elbow.x, 0.6)).abs() < 1e-4);
    assert!((twist_at.y - arm.y.lerp(elbow.y, 0.6)).abs() < 1e-4);
    assert!(axis.dot((elbow - arm).normalize()) > 0.99);
    assert_eq!(parent_name(after, "右腕捩"), "右腕");
    assert_eq!(parent_name(after, "右ひじ"), "右腕捩");
    assert_eq!(bone(after, "右腕捩"), bone(after, "右腕") + 1);
    for (i, ratio) in [(1, 0.25), (2, 0.5), (3, 0.75)] {
        let helper = &after.bones[bone(after, &format!("右腕捩{i}"))];
        assert_eq!(helper.name_en.as_str(), format!("arm twist{i}_R"));
        assert_eq!(
            helper.flags,
            BoneFlags::ROTATABLE | BoneFlags::OPERABLE | BoneFlags::APPEND_ROTATE
        );
        assert_eq!(
            helper.append_parent,
            Some(BoneIdx::new(bone(after, "右腕捩")))
        );
        assert_eq!(helper.append_ratio, ratio);
        assert_eq!(parent_name(after, &format!("右腕捩{i}")), "右腕");
        assert_eq!(
            bone(after, &format!("右腕捩{i}")),
            bone(after, "右腕捩") + i
        );
    }
    // The arm's own vertices are shared along it, each still weighing one in total.
    let arm_before = bone(&before, "右腕");
    let arm_chain: Vec<usize> = ["右腕", "右腕捩1", "右腕捩2", "右腕捩3", "右腕捩", "右ひじ"]
        .iter()
        .map(|name| bone(after, name))
        .collect();
    let mut split = 0;
    for (old, new) in before.vertices.iter().zip(&after.vertices) {
        if old.weight
            != (Weight::Bdef1 {
                bone: Some(BoneIdx::new(arm_before)),
            })
        {
            continue;
        }
        let Weight::Bdef2 { bones, weight } = new.weight else {
            panic!(
                "a vertex of 右腕 alone is BDEF2 after the split: {:?}",
                new.weight
            )
        };
        assert!((0.0..=1.0).contains(&weight));
        for slot in bones {
            assert!(arm_chain.contains(&slot.unwrap().get()));
        }
        let total: f32 = new.weight.bone_weights().iter().map(|(_, w)| w).sum();
        assert!((total - 1.0).abs() < 1e-6);
        split += 1;
    }
    assert!(split > 20, "{split} vertices of the upper arm were split");

    // 親指０: two thirds of the way from 手首 to 親指１, above it in the chain.
    close(
        at(after, "左親指０"),
        at(&before, "左手首").lerp(at(&before, "左親指１"), 2.0 / 3.0),
        "親指０",
    );
    assert_eq!(parent_name(after, "左親指０"), "左手首");
    assert_eq!(parent_name(after, "左親指１"), "左親指０");
    assert_eq!(bone(after, "左親指０") + 1, bone(after, "左親指１"));

    // 足IK親 on the floor under the leg IK.
    let ik = at(&before, "右足ＩＫ");
    close(at(after, "右足IK親"), Vec3::new(ik.x, 0.0, ik.z), "足IK親");
    assert_eq!(bone(after, "右足IK親") + 1, bone(after, "右足ＩＫ"));

    // The D-bones copy the leg at the end of the list, one layer later, and carry its mesh.
    let n = after.bones.len();
    let tail: Vec<String> = after.bones[n - 8..]
        .iter()
        .map(|b| b.name_ja.as_str().into_owned())
        .collect();
    assert_eq!(
        tail,
        [
            "右足D",
            "右ひざD",
            "右足首D",
            "右足先EX",
            "左足D",
            "左ひざD",
            "左足首D",
            "左足先EX"
        ]
    );
    for (d, original) in [
        ("右足D", "右足"),
        ("右ひざD", "右ひざ"),
        ("右足首D", "右足首"),
    ] {
        let d_bone = &after.bones[bone(after, d)];
        assert_eq!(
            d_bone.append_parent,
            Some(BoneIdx::new(bone(after, original)))
        );
        assert_eq!(d_bone.append_ratio, 1.0);
        assert!(d_bone.flags.contains(BoneFlags::APPEND_ROTATE));
        assert!(
            !d_bone
                .flags
                .intersects(BoneFlags::VISIBLE | BoneFlags::OPERABLE)
        );
        assert_eq!(d_bone.layer, after.bones[bone(after, original)].layer + 1);
        close(d_bone.position.into(), at(&before, original), d);
    }
    assert_eq!(parent_name(after, "右足D"), "腰キャンセル右");
    assert_eq!(parent_name(after, "右ひざD"), "右足D");
    assert_eq!(parent_name(after, "右足首D"), "右ひざD");
    assert_eq!(parent_name(after, "右足先EX"), "右足首D");
    close(
        at(after, "右足先EX"),
        at(&before, "右足首").lerp(at(&before, "右つま先ＩＫ"), 2.0 / 3.0),
        "足先EX",
    );
    let count = |model: &Model, name: &str| {
        let b = bone(model, name);
        model
            .vertices
            .iter()
            .filter(|v| v.weight.bones().contains(&Some(BoneIdx::new(b))))
            .count()
    };
    assert_eq!(count(&before, "右足"), 184);
    assert_eq!(
        count(after, "右足D"),
        184,
        "every vertex of 右足 moved to 右足D"
    );
    assert_eq!(count(after, "右足"), 0);
    assert_eq!(count(after, "右ひざ"), 0);
    assert_eq!(count(after, "右足首"), 0);
    // The leg's rigid body follows the D-bone.
    let body = after
        .rigid_bodies
        .iter()
        .find(|b| b.name_ja.as_str() == "右足")
        .unwrap();
    assert_eq!(body.bone, Some(BoneIdx::new(bone(after, "右足D"))));

    // 両目 above the eyes; the eyes follow it.
    let (l, r) = (at(&before, "左目"), at(&before, "右目"));
    close(
        at(after, "両目"),
        (l + r) * 0.5 + Vec3::Y * (l - r).length() * 2.0,
        "両目",
    );
    let eye = &after.bones[bone(after, "左目")];
    assert_eq!(eye.append_parent, Some(BoneIdx::new(bone(after, "両目"))));
    assert!(bone(after, "両目") < bone(after, "左目"));

    // Display frames: Root holds 操作中心; the センター frame starts with what Root held.
    let root = &after.display_frames[0];
    assert_eq!(root.items, [DisplayItem::Bone(Some(BoneIdx::new(0)))]);
    let center = &after.display_frames[2];
    assert_eq!(center.name_ja.as_str(), "センター");
    let names: Vec<String> = center
        .items
        .iter()
        .map(|item| match item {
            DisplayItem::Bone(Some(b)) => after.bones[b.get()].name_ja.as_str().into_owned(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(names, ["全ての親", "センター", "グルーブ", "腰"]);
    let listed = |name: &str| {
        let b = DisplayItem::Bone(Some(BoneIdx::new(bone(after, name))));
        after
            .display_frames
            .iter()
            .position(|f| f.items.contains(&b))
    };
    assert_eq!(listed("右肩P"), listed("右肩"));
    assert_eq!(listed("右腕捩"), listed("右腕"));
    assert_eq!(listed("右足先EX"), listed("右足首"));
    assert_eq!(listed("右足D"), None, "D-bones are not operated");
    assert_eq!(listed("腰キャンセル右"), None);
}

#[test]
fn a_model_with_every_semi_standard_bone_is_left_alone() {
    let Some(model) = corpus_model("pmx/mmdtools_exported_mmt_test_model.pmx") else {
        return;
    };
    let registry = Registry::builtin();
    let plugin = registry.find(TOOL).unwrap();
    let options = Options::from_json(&plugin.info().options, &json!({})).unwrap();
    let mut working = model.clone();
    let error = run_plugin(
        plugin.as_ref(),
        &mut working,
        &PluginSelection::new(),
        &options,
    )
    .unwrap_err();
    assert!(matches!(error, PluginError::NoChange), "{error}");
    assert!(working == model);
}

#[test]
fn gene_gets_only_the_groups_it_lacks_and_keeps_its_own() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let outcome = run_tool(TOOL, &model, &PluginSelection::new(), &json!({}));
    assert_eq!(
        outcome.notes[0],
        "added 16 bones: 腰, 腰キャンセル右, 腰キャンセル左, 右足D, 右ひざD, 右足首D, 右足先EX, \
         左足D, 左ひざD, 左足首D, 左足先EX, 右肩P, 右肩C, 左肩P, 左肩C, 操作中心"
    );
    assert_eq!(
        outcome.notes[1],
        "already there, left alone: 右腕捩, 左腕捩, 右手捩, 左手捩, 上半身2, 右足IK親, 左足IK親, \
         右親指０, 左親指０, グルーブ, 両目, 全ての親"
    );
    let after = &outcome.after;
    // Gene's own 上半身2 and twist bones are untouched (names, places, wiring).
    for name in ["上半身2", "左腕捩", "両目", "全ての親", "左親指０"] {
        let old = &model.bones[bone(&model, name)];
        let new = &after.bones[bone(after, name)];
        assert_eq!(old.position, new.position, "{name}");
        assert_eq!(old.flags, new.flags, "{name}");
        assert_eq!(old.name_en, new.name_en, "{name}");
    }
    // Option off: that group is not made.
    let without = run_tool(
        TOOL,
        &model,
        &PluginSelection::new(),
        &json!({"waist": false, "leg_d": false, "view_center": false}),
    );
    assert_eq!(
        without.notes[0],
        "added 4 bones: 右肩P, 右肩C, 左肩P, 左肩C"
    );
    assert!(!has(&without.after, "腰"));
}

#[test]
fn a_model_without_the_bones_a_group_stands_on_gets_a_note_not_a_failure() {
    let mut model = Model::new_empty();
    model.bones.push(pmx_core::model::Bone {
        name_ja: "センター".into(),
        ..Default::default()
    });
    let outcome = run_tool(TOOL, &model, &PluginSelection::new(), &json!({}));
    assert_eq!(
        outcome.notes[0],
        "added 3 bones: グルーブ, 全ての親, 操作中心"
    );
    assert!(
        outcome
            .notes
            .contains(&"上半身2 skipped: the model has no 上半身, 首".to_owned())
    );
    assert!(
        outcome
            .notes
            .contains(&"右腕捩 skipped: the model has no 右腕, 右ひじ".to_owned())
    );
    let registry = Registry::builtin();
    let plugin = registry.find(TOOL).unwrap();
    let options = Options::from_json(&plugin.info().options, &json!({})).unwrap();
    let mut working = model.clone();
    let run = run_plugin(
        plugin.as_ref(),
        &mut working,
        &PluginSelection::new(),
        &options,
    )
    .unwrap();
    let ja = run.preview(pmx_core::i18n::Language::Japanese);
    assert!(ja.contains(
        &"「上半身2」は追加しません: 必要な「上半身」「首」ボーンがありません".to_owned()
    ));

    // Nothing can be added: a refusal that says why, in both languages.
    let only = json!({"groove": false, "master": false, "view_center": false});
    let options = Options::from_json(&plugin.info().options, &only).unwrap();
    let error = run_plugin(
        plugin.as_ref(),
        &mut working,
        &PluginSelection::new(),
        &options,
    )
    .unwrap_err();
    let PluginError::Refused { en, ja } = error else {
        panic!("{error}")
    };
    assert!(
        en.starts_with("no semi-standard bone could be added: "),
        "{en}"
    );
    assert!(
        ja.starts_with("追加できる準標準ボーンがありません: "),
        "{ja}"
    );

    // No bones at all.
    let empty = Model::new_empty();
    let mut working = empty.clone();
    let error = run_plugin(
        plugin.as_ref(),
        &mut working,
        &PluginSelection::new(),
        &options,
    )
    .unwrap_err();
    assert!(matches!(error, PluginError::Refused { .. }), "{error}");
}

/// A VMD with one key at frame 0 per (bone, rotation), built by hand.
fn vmd_bytes(keys: &[(&str, Quat)]) -> Vec<u8> {
    let field = |bytes: &mut Vec<u8>, text: &[u8], len: usize| {
        let mut f = text.to_vec();
        f.resize(len, 0);
        bytes.extend_from_slice(&f[..len]);
    };
    let mut bytes = Vec::new();
    field(&mut bytes, b"Vocaloid Motion Data 0002", 30);
    field(&mut bytes, b"test", 20);
    bytes.extend_from_slice(&(keys.len() as u32).to_le_bytes());
    for (name, rotation) in keys {
        field(&mut bytes, &cp932::encode(name).unwrap(), 15);
        bytes.extend_from_slice(&0u32.to_le_bytes());
        for v in [0.0f32; 3] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        for v in rotation.to_array() {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        let mut curve = [0u8; 64];
        for chunk in curve.chunks_mut(16) {
            chunk[..4].fill(20);
            chunk[8..12].fill(107);
        }
        bytes.extend_from_slice(&curve);
    }
    for _ in 0..4 {
        bytes.extend_from_slice(&0u32.to_le_bytes());
    }
    bytes
}

/// The skinned positions of `model` posed by `motion` at frame 0, with the leg IK off (so the
/// legs show what 腰キャンセル does, not where the IK pulls them).
fn posed(model: &Model, motion: &[u8]) -> (Vec<Vec3>, vmd::Binding) {
    let motion = vmd::read(motion, &pmx_core::LoadOptions::default()).unwrap();
    let binding = motion.bind(model);
    let mut pose = Pose::new(model);
    motion.sample(&binding, 0.0, &mut pose);
    for (index, b) in model.bones.iter().enumerate() {
        if b.is_ik() {
            pose.bones[index].ik_enabled = false;
        }
    }
    let mut evaluator = PoseEvaluator::new(model);
    evaluator.evaluate(model, &pose).unwrap();
    (evaluator.positions().to_vec(), binding)
}

/// The first vertex weighted to `name` alone.
fn vertex_on(model: &Model, name: &str) -> usize {
    let b = Some(BoneIdx::new(bone(model, name)));
    model
        .vertices
        .iter()
        .position(|v| v.weight == Weight::Bdef1 { bone: b })
        .unwrap_or_else(|| panic!("no vertex on {name} alone"))
}

#[test]
fn a_motion_keying_waist_and_upper_body_2_moves_the_model_once_the_bones_are_added() {
    let Some(before) = bare_model() else { return };
    let quarter_x = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let quarter_y = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
    let chest_motion = vmd_bytes(&[("上半身2", quarter_x)]);
    let waist_motion = vmd_bytes(&[("腰", quarter_y)]);
    let head = vertex_on(&before, "頭");
    let hips = vertex_on(&before, "下半身");
    let knee = vertex_on(&before, "右ひざ");
    let rest = |model: &Model, v: usize| -> Vec3 { model.vertices[v].position.into() };

    // Without the bones the keys bind to nothing and nothing moves.
    for motion in [&chest_motion, &waist_motion] {
        let (positions, binding) = posed(&before, motion);
        assert!(binding.bones.is_empty());
        assert_eq!(binding.unmatched_bones.len(), 1);
        for v in [head, hips, knee] {
            close(positions[v], rest(&before, v), "unposed");
        }
    }

    let after = run_tool(TOOL, &before, &PluginSelection::new(), &json!({})).after;
    // Deleting and adding bones keeps the vertices in place.
    assert_eq!(after.vertices.len(), before.vertices.len());

    // 上半身2 turned a quarter about X: the head turns about 上半身2 with it; the hips stay.
    let (positions, binding) = posed(&after, &chest_motion);
    assert_eq!(binding.bones.len(), 1);
    let chest = at(&after, "上半身2");
    let expected = chest + quarter_x * (rest(&after, head) - chest);
    close(positions[head], expected, "head under 上半身2");
    assert!(
        (positions[head] - rest(&after, head)).length() > 1.0,
        "the head moved"
    );
    close(positions[hips], rest(&after, hips), "hips under 下半身");

    // 腰 turned a quarter about Y: the hips turn about 腰; the knee, under 腰キャンセル, is
    // carried along with the leg's root but keeps its direction (a pure shift).
    let (positions, binding) = posed(&after, &waist_motion);
    assert_eq!(binding.bones.len(), 1);
    let waist = at(&after, "腰");
    let expected = waist + quarter_y * (rest(&after, hips) - waist);
    close(positions[hips], expected, "hips under 腰");
    let leg = at(&after, "右足");
    let shift = (waist + quarter_y * (leg - waist)) - leg;
    close(
        positions[knee],
        rest(&after, knee) + shift,
        "knee keeps its direction",
    );
    assert!(shift.length() > 0.5, "the leg's root moved with 腰");
    close(
        positions[head],
        waist + quarter_y * (rest(&after, head) - waist),
        "head under 腰",
    );
}
