//! The pose engine and the motion formats on the real files of the corpus.

// Test and benchmark code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use glam::{Quat, Vec3};
use pmx_core::formats::{self, LoadOptions, vmd};
use pmx_core::model::{BoneIdx, Model};
use pmx_core::pose::{Pose, PoseEvaluator};
use pmx_tests::{corpus_dir, files_with_extension};
use std::path::Path;

fn load(dir: &Path, file: &str) -> Option<Model> {
    let path = dir.join(file);
    if !path.is_file() {
        println!("skipped: {} is absent", path.display());
        return None;
    }
    match formats::load_path(&path, &LoadOptions::default()) {
        Ok(loaded) => Some(loaded.model),
        Err(error) => panic!("{error}"),
    }
}

fn bone_named(model: &Model, name: &str) -> BoneIdx {
    match model.bones.iter().position(|b| b.name_ja.as_str() == name) {
        Some(index) => BoneIdx::new(index),
        None => panic!("no bone {name}"),
    }
}

fn position(evaluator: &PoseEvaluator, bone: BoneIdx) -> Vec3 {
    evaluator
        .skeleton
        .global(bone)
        .map_or(Vec3::NAN, |g| g.translation.into())
}

/// Moves both leg IK bones and checks that each foot (the IK target) reaches its IK bone.
fn legs_reach_their_ik(model: &Model, moves: [Vec3; 2]) {
    let mut pose = Pose::new(model);
    let legs = [("左足ＩＫ", "左足首"), ("右足ＩＫ", "右足首")];
    for ((ik, _), movement) in legs.iter().zip(moves) {
        pose.set_bone(bone_named(model, ik), Quat::IDENTITY, movement);
    }
    let mut evaluator = PoseEvaluator::new(model);
    if let Err(error) = evaluator.evaluate(model, &pose) {
        panic!("{error}");
    }
    for ((ik, foot), movement) in legs.iter().zip(moves) {
        let (ik, foot) = (bone_named(model, ik), bone_named(model, foot));
        let goal = position(&evaluator, ik);
        let rest_goal = Vec3::from(model.bones[ik.get()].position);
        assert!(
            goal.distance(rest_goal + movement) < 1e-4,
            "the IK bone itself moved by {movement}"
        );
        let miss = position(&evaluator, foot).distance(goal);
        assert!(miss < 1e-3, "foot misses its IK bone by {miss}");
        let rest_foot = Vec3::from(model.bones[foot.get()].position);
        assert!(
            position(&evaluator, foot).distance(rest_foot) > 0.5,
            "the foot moved"
        );
    }
}

#[test]
fn gene_legs_follow_their_ik() {
    let Some(dir) = corpus_dir("pmx") else { return };
    let Some(model) = load(&dir, "pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    // Lift the left foot forwards, the right one up and out.
    legs_reach_their_ik(
        &model,
        [Vec3::new(0.0, 2.0, -1.5), Vec3::new(-0.8, 3.0, 0.5)],
    );
}

#[test]
fn bone_tree_legs_follow_their_ik() {
    let Some(dir) = corpus_dir("pmx") else { return };
    let Some(model) = load(&dir, "mmdbase_bone_tree_420bones_novertex.pmx") else {
        return;
    };
    legs_reach_their_ik(
        &model,
        [Vec3::new(0.3, 1.5, -2.0), Vec3::new(0.0, 4.0, 1.0)],
    );
}

#[test]
fn every_corpus_motion_reads() {
    let Some(dir) = corpus_dir("vmd") else { return };
    // (file, bone keys, morph keys, IK keys) as MANIFEST.md counts them.
    let expected = [
        ("babylon_physics_toggle_v2.vmd", 3, 0, 0),
        ("gene_00_normal_truncated_sjis_name.vmd", 0, 449, 0),
        ("mmdagent_ex_blink_morph_only.vmd", 0, 5, 0),
        ("mmdagent_ex_nod.vmd", 15, 0, 0),
        ("yohawing_mmt_test_model_motion.vmd", 125, 0, 0),
        ("yohawing_test_append_bone_with_ik_section.vmd", 13, 0, 1),
    ];
    let files = files_with_extension(&dir, "vmd");
    assert_eq!(files.len(), expected.len());
    for (file, bones, morphs, ik) in expected {
        let bytes = std::fs::read(dir.join(file)).unwrap_or_default();
        let motion = match vmd::read(&bytes, &LoadOptions::default()) {
            Ok(motion) => motion,
            Err(error) => panic!("{file}: {error}"),
        };
        let count = |keys: Vec<usize>| keys.into_iter().sum::<usize>();
        assert_eq!(
            count(motion.bone_tracks.iter().map(|t| t.keys.len()).collect()),
            bones,
            "{file}"
        );
        assert_eq!(
            count(motion.morph_tracks.iter().map(|t| t.keys.len()).collect()),
            morphs,
            "{file}"
        );
        assert_eq!(motion.ik_keys.len(), ik, "{file}");
    }
}

#[test]
fn a_model_name_cut_mid_character_still_reads() {
    let Some(dir) = corpus_dir("vmd") else { return };
    let bytes =
        std::fs::read(dir.join("gene_00_normal_truncated_sjis_name.vmd")).unwrap_or_default();
    let motion = match vmd::read(&bytes, &LoadOptions::default()) {
        Ok(motion) => motion,
        Err(error) => panic!("{error}"),
    };
    // The 20-byte field ends with the lead byte of a two-byte character.
    assert_eq!(motion.model_name.raw.len(), 20);
    assert!(motion.model_name.cut);
    assert_eq!(motion.model_name.text, "ニルヴァ / Nirva デ");
}

#[test]
fn motions_bind_to_gene_by_name() {
    let (Some(pmx), Some(vmd_dir)) = (corpus_dir("pmx"), corpus_dir("vmd")) else {
        return;
    };
    let Some(gene) = load(&pmx, "pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let read = |file: &str| {
        let bytes = std::fs::read(vmd_dir.join(file)).unwrap_or_default();
        match vmd::read(&bytes, &LoadOptions::default()) {
            Ok(motion) => motion,
            Err(error) => panic!("{file}: {error}"),
        }
    };
    // Names longer than the 15-byte field were cut by MMD: "eyeLookDownRigh" is Gene's
    // "eyeLookDownRight", found by its first 15 bytes.
    let motion = read("gene_00_normal_truncated_sjis_name.vmd");
    let binding = motion.bind(&gene);
    assert_eq!(binding.morphs.len(), 150);
    assert_eq!(binding.unmatched_morphs.len(), 64);
    let cut = binding
        .morphs
        .iter()
        .find(|(_, t)| motion.morph_tracks[*t].name.text == "eyeLookDownRigh")
        .map(|(m, _)| gene.morphs[m.get()].name_ja.as_str().into_owned());
    assert_eq!(cut.as_deref(), Some("eyeLookDownRight"));

    // The nod turns the head: sampled mid-way, the head bone is no longer at rest.
    let motion = read("mmdagent_ex_nod.vmd");
    let binding = motion.bind(&gene);
    assert_eq!(binding.bones.len(), 3);
    assert!(binding.unmatched_bones.is_empty());
    let mut pose = Pose::new(&gene);
    let mut moved = false;
    for frame in 0..=motion.last_frame() {
        motion.sample(&binding, frame as f32, &mut pose);
        moved |= !pose.bones[bone_named(&gene, "頭").get()].is_rest();
    }
    assert!(moved, "the head turns at some frame");
    let blink = read("mmdagent_ex_blink_morph_only.vmd");
    let binding = blink.bind(&gene);
    assert_eq!(binding.morphs.len(), 1);
    let mut evaluator = PoseEvaluator::new(&gene);
    let mut peak = 0.0f32;
    for frame in 0..=blink.last_frame() {
        blink.sample(&binding, frame as f32, &mut pose);
        peak = peak.max(pose.morphs[binding.morphs[0].0.get()]);
    }
    assert_eq!(peak, 1.0, "the blink closes the eyes fully");
    assert!(evaluator.evaluate(&gene, &pose).is_ok());
}
