//! `pmx-studio pose`: a pose file, a motion frame and morphs applied as the new rest shape.

// Test and benchmark code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::{self, LoadOptions, SaveOptions};
use pmx_core::model::{
    Bone, BoneIdx, Model, Morph, MorphOffsets, MorphPanel, Vertex, VertexIdx, VertexMorphOffset,
    Weight,
};
use std::path::{Path, PathBuf};
use std::process::Command;

fn pmx_studio() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
}

/// Bone 0 at the origin, bone 1 ("ひじ") at (1,0,0); a vertex at (1, 0.2, 0) half on each, one
/// at (2,0,0) on bone 1; a vertex morph "上げ" moving vertex 0 by (0,1,0).
fn elbow_model() -> Model {
    let bones = [Some(BoneIdx::new(0)), Some(BoneIdx::new(1))];
    let mut model = Model::new_empty();
    model.bones = vec![
        Bone {
            name_ja: "腕".into(),
            ..Bone::default()
        },
        Bone {
            name_ja: "ひじ".into(),
            name_en: "elbow".into(),
            position: [1.0, 0.0, 0.0].into(),
            parent: Some(BoneIdx::new(0)),
            ..Bone::default()
        },
    ];
    model.vertices = vec![
        Vertex {
            position: [1.0, 0.2, 0.0].into(),
            weight: Weight::Bdef2 { bones, weight: 0.5 },
            ..Vertex::default()
        },
        Vertex {
            position: [2.0, 0.0, 0.0].into(),
            weight: Weight::Bdef1 { bone: bones[1] },
            ..Vertex::default()
        },
    ];
    model.morphs = vec![Morph {
        name_ja: "上げ".into(),
        name_en: "raise".into(),
        panel: MorphPanel::Other,
        offsets: MorphOffsets::Vertex(vec![VertexMorphOffset {
            vertex: VertexIdx::new(0),
            offset: [0.0, 1.0, 0.0].into(),
        }]),
    }];
    model
}

fn positions(path: &Path) -> Vec<[f32; 3]> {
    match formats::load_path(path, &LoadOptions::default()) {
        Ok(loaded) => loaded
            .model
            .vertices
            .iter()
            .map(|v| v.position.to_array())
            .collect(),
        Err(error) => panic!("{error}"),
    }
}

fn close(a: [f32; 3], b: [f32; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
}

fn write_model(dir: &Path) -> PathBuf {
    let input = dir.join("elbow.pmx");
    if let Err(error) = formats::save_path(&elbow_model(), &input, &SaveOptions::default()) {
        panic!("{error}");
    }
    input
}

#[test]
fn vpd_and_morphs_become_the_rest_shape() {
    let Ok(dir) = tempfile::tempdir() else {
        panic!("no temp dir");
    };
    let input = write_model(dir.path());
    // ひじ turned 90° about z (quaternion (0, 0, sin 45°, cos 45°)), in Shift-JIS.
    let mut vpd = b"Vocaloid Pose Data file\r\n\r\nelbow.osm;\r\n1;\r\n\r\nBone0{".to_vec();
    vpd.extend_from_slice(&[0x82, 0xd0, 0x82, 0xb6]);
    vpd.extend_from_slice(b"\r\n  0,0,0;\r\n  0,0,0.70710678,0.70710678;\r\n}\r\n");
    let vpd_path = dir.path().join("pose.vpd");
    if let Err(error) = std::fs::write(&vpd_path, vpd) {
        panic!("{error}");
    }
    let output = dir.path().join("posed.pmx");
    let status = pmx_studio()
        .arg("pose")
        .arg(&input)
        .arg(&output)
        .arg("--vpd")
        .arg(&vpd_path)
        .args(["--morph", "raise=0.5"])
        .status();
    assert!(status.is_ok_and(|s| s.success()));
    let moved = positions(&output);
    // Vertex 0: (1, 0.7, 0) with the morph; half of it turned about the elbow, (0.3, 0, 0):
    // (0.65, 0.35, 0). Vertex 1: (2,0,0) turned about the elbow, (1, 1, 0).
    assert!(close(moved[0], [0.65, 0.35, 0.0]), "{:?}", moved[0]);
    assert!(close(moved[1], [1.0, 1.0, 0.0]), "{:?}", moved[1]);
}

#[test]
fn bad_morphs_and_missing_frames_are_errors() {
    let Ok(dir) = tempfile::tempdir() else {
        panic!("no temp dir");
    };
    let input = write_model(dir.path());
    let output = dir.path().join("posed.pmx");
    let run = |args: &[&str]| {
        pmx_studio()
            .arg("pose")
            .arg(&input)
            .arg(&output)
            .args(args)
            .output()
            .map(|o| {
                (
                    o.status.code(),
                    String::from_utf8_lossy(&o.stderr).into_owned(),
                )
            })
            .unwrap_or_default()
    };
    let (code, stderr) = run(&["--morph", "nope=1"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("no morph named \"nope\""), "{stderr}");
    let (code, _) = run(&["--morph", "上げ=lots"]);
    assert_eq!(code, Some(1));
    let (code, _) = run(&["--vmd", "motion.vmd"]);
    assert_eq!(code, Some(2), "--vmd needs --frame");
    assert!(!output.exists(), "nothing is written on errors");
}

#[test]
fn a_motion_frame_poses_gene() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let (model, motion) = (
        root.join("pmx/pmxeditor_gene_cc_by.pmx"),
        root.join("vmd/mmdagent_ex_nod.vmd"),
    );
    if !model.is_file() || !motion.is_file() {
        println!("skipped: corpus files are absent");
        return;
    }
    let Ok(dir) = tempfile::tempdir() else {
        panic!("no temp dir");
    };
    let output = dir.path().join("nod.pmx");
    let status = pmx_studio()
        .arg("pose")
        .arg(&model)
        .arg(&output)
        .arg("--vmd")
        .arg(&motion)
        .args(["--frame", "20"])
        .status();
    assert!(status.is_ok_and(|s| s.success()));
    let (before, after) = (positions(&model), positions(&output));
    assert_eq!(before.len(), after.len());
    let Ok(gene) = formats::load_path(&model, &LoadOptions::default()) else {
        panic!("Gene reads");
    };
    let on = |names: &[&str]| -> Vec<usize> {
        let bones: Vec<usize> = gene
            .model
            .bones
            .iter()
            .enumerate()
            .filter(|(_, b)| names.contains(&b.name_ja.as_str().as_ref()))
            .map(|(i, _)| i)
            .collect();
        gene.model
            .vertices
            .iter()
            .enumerate()
            .filter(|(_, v)| matches!(v.weight, Weight::Bdef1 { bone: Some(b) } if bones.contains(&b.get())))
            .map(|(i, _)| i)
            .collect()
    };
    // The nod turns the head; the legs stay (Gene's ankles are 0.0005 from their IK bones at
    // rest, which the IK closes: that much they may move).
    let head = on(&["頭"]);
    let legs = on(&["左足", "右足", "左ひざ", "右ひざ", "左足首", "右足首"]);
    assert!(!head.is_empty() && !legs.is_empty());
    assert!(
        head.iter().all(|&v| !close(before[v], after[v])),
        "the head moved"
    );
    let near = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-3);
    assert!(
        legs.iter().all(|&v| near(before[v], after[v])),
        "the legs did not"
    );
}

/// The pendulum of `pmx_physics::generate`, swinging freely about Z.
fn pendulum() -> Model {
    pmx_physics::generate::pendulum((-3.0, 3.0), 0.0)
}

#[test]
fn physics_settles_the_pendulum_the_same_way_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("pendulum.pmx");
    formats::save_path(&pendulum(), &input, &SaveOptions::default()).unwrap();
    let run = |out: &str, extra: &[&str]| {
        let output = dir.path().join(out);
        let status = pmx_studio()
            .arg("pose")
            .arg(&input)
            .arg(&output)
            .args(["--physics", "--seconds", "5"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        (
            std::fs::read(&output).unwrap(),
            String::from_utf8_lossy(&status.stderr).into_owned(),
        )
    };
    let (first, report) = run("a.pmx", &[]);
    let (second, _) = run("b.pmx", &[]);
    assert_eq!(first, second, "the same command writes the same bytes");
    assert!(report.contains("physics (mmd): 300 steps"), "{report}");
    let settled = formats::load_path(&dir.path().join("a.pmx"), &LoadOptions::default())
        .unwrap()
        .model;
    let bob = settled.rigid_bodies[1].position;
    assert!(
        bob.y < 8.2 && bob.x.abs() < 0.2,
        "the bob hangs below the pivot: {bob:?}"
    );

    let (springs, report) = run("c.pmx", &["--engine", "springs"]);
    assert!(report.contains("physics (springs)"), "{report}");
    assert_ne!(springs, first, "the spring bones settle differently");

    let refused = pmx_studio()
        .arg("pose")
        .arg(&input)
        .arg(dir.path().join("d.pmx"))
        .args(["--physics", "--engine", "bullet"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--engine bullet"));
    assert!(!dir.path().join("d.pmx").exists());
}
