//! Round trips built in code over version × encoding × index sizes at every boundary.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::pmx::{self, IndexSizeMode, PmxSaveOptions};
use pmx_core::generate::feature_model;
use pmx_core::model::*;

fn write(model: &Model, options: &PmxSaveOptions) -> Vec<u8> {
    pmx::write(model, options)
        .map(|(bytes, _)| bytes)
        .unwrap_or_else(|e| panic!("write failed: {e}"))
}

fn read(bytes: &[u8]) -> Model {
    pmx::read(bytes, &LoadOptions::default())
        .map(|(model, _)| model)
        .unwrap_or_else(|e| panic!("read failed: {e}"))
}

/// Compares two models field by field, naming the first list that differs.
fn assert_same(expected: &Model, actual: &Model, what: &str) {
    assert_eq!(
        expected.header.version, actual.header.version,
        "{what}: version"
    );
    assert_eq!(
        expected.header.encoding, actual.header.encoding,
        "{what}: encoding"
    );
    assert_eq!(expected.info, actual.info, "{what}: info");
    assert_eq!(
        expected.additional_uvs, actual.additional_uvs,
        "{what}: additional UVs"
    );
    for (i, (a, b)) in expected.vertices.iter().zip(&actual.vertices).enumerate() {
        assert_eq!(a, b, "{what}: vertices[{i}]");
    }
    assert_eq!(
        expected.vertices.len(),
        actual.vertices.len(),
        "{what}: vertex count"
    );
    assert_eq!(expected.faces, actual.faces, "{what}: faces");
    assert_eq!(expected.textures, actual.textures, "{what}: textures");
    assert_eq!(expected.materials, actual.materials, "{what}: materials");
    for (i, (a, b)) in expected.bones.iter().zip(&actual.bones).enumerate() {
        assert_eq!(a, b, "{what}: bones[{i}]");
    }
    assert_eq!(
        expected.bones.len(),
        actual.bones.len(),
        "{what}: bone count"
    );
    for (i, (a, b)) in expected.morphs.iter().zip(&actual.morphs).enumerate() {
        assert_eq!(a, b, "{what}: morphs[{i}]");
    }
    assert_eq!(
        expected.morphs.len(),
        actual.morphs.len(),
        "{what}: morph count"
    );
    assert_eq!(
        expected.display_frames, actual.display_frames,
        "{what}: display frames"
    );
    assert_eq!(
        expected.rigid_bodies, actual.rigid_bodies,
        "{what}: rigid bodies"
    );
    assert_eq!(expected.joints, actual.joints, "{what}: joints");
    assert_eq!(
        expected.soft_bodies, actual.soft_bodies,
        "{what}: soft bodies"
    );
}

/// Bone fields the flags do not select are not in the file; the reader leaves them at defaults.
fn without_unwritten_bone_fields(model: &Model) -> Model {
    let mut model = model.clone();
    for bone in &mut model.bones {
        let flags = bone.flags;
        if flags.contains(BoneFlags::TAIL_IS_BONE) {
            bone.tail_offset = Vec3::ZERO;
        } else {
            bone.tail_bone = None;
        }
        if !flags.intersects(BoneFlags::APPEND_ROTATE | BoneFlags::APPEND_MOVE) {
            bone.append_parent = None;
            bone.append_ratio = 1.0;
        }
        if !flags.contains(BoneFlags::FIXED_AXIS) {
            bone.fixed_axis = Vec3::ZERO;
        }
        if !flags.contains(BoneFlags::LOCAL_AXES) {
            bone.local_axis_x = Vec3::ZERO;
            bone.local_axis_z = Vec3::ZERO;
        }
        if !flags.contains(BoneFlags::EXTERNAL_PARENT) {
            bone.external_parent_key = 0;
        }
        if !flags.contains(BoneFlags::IK) {
            bone.ik = Ik {
                target: None,
                loop_count: 0,
                limit_angle: 0.0,
                links: Vec::new(),
            };
        }
    }
    model
}

#[test]
fn every_version_encoding_and_index_size_boundary_round_trips() {
    // (vertices, other counts) → expected (vertex index size, signed index size)
    let boundaries = [
        (255, 127, 1, 1),
        (256, 128, 2, 2),
        (65_535, 32_767, 2, 2),
        (65_536, 32_768, 4, 4),
    ];
    for version in [PmxVersion::V2_0, PmxVersion::V2_1] {
        for encoding in [TextEncoding::Utf16, TextEncoding::Utf8] {
            for (vertices, others, vertex_size, signed_size) in boundaries {
                let what = format!("{version:?} {encoding:?} {vertices} vertices {others} others");
                let model = feature_model(version, encoding, vertices, others);
                assert_eq!(model.vertices.len(), vertices, "{what}");
                assert_eq!(model.bones.len(), others, "{what}");
                let bytes = write(&model, &PmxSaveOptions::default());
                let back = read(&bytes);
                let sizes = back
                    .header
                    .index_sizes
                    .unwrap_or_else(|| panic!("{what}: sizes"));
                assert_eq!(sizes.vertex, vertex_size, "{what}: vertex index size");
                for (kind, size) in [
                    ("bone", sizes.bone),
                    ("morph", sizes.morph),
                    ("texture", sizes.texture),
                    ("rigid body", sizes.rigid_body),
                ] {
                    assert_eq!(size, signed_size, "{what}: {kind} index size");
                }
                assert_same(&without_unwritten_bone_fields(&model), &back, &what);
                // Writing what was read gives the same bytes, with kept and with minimal sizes.
                assert_eq!(
                    write(&back, &PmxSaveOptions::default()),
                    bytes,
                    "{what}: rewrite (minimal)"
                );
                let keep = PmxSaveOptions {
                    index_sizes: IndexSizeMode::Keep,
                    ..Default::default()
                };
                assert_eq!(write(&back, &keep), bytes, "{what}: rewrite (keep)");
            }
        }
    }
}

#[test]
fn every_feature_is_exercised_by_the_feature_model() {
    let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 300, 130);
    let weights: std::collections::HashSet<_> =
        model.vertices.iter().map(|v| v.weight.kind()).collect();
    assert_eq!(weights.len(), 5, "all five weight types");
    let kinds: std::collections::HashSet<_> =
        model.morphs.iter().map(|m| m.offsets.kind()).collect();
    assert_eq!(kinds.len(), 11, "all eleven morph kinds");
    let joints: std::collections::HashSet<_> = model.joints.iter().map(|j| j.kind).collect();
    assert_eq!(joints.len(), 6, "all six joint kinds");
    assert!(!model.soft_bodies.is_empty());
    let mut flags = BoneFlags::empty();
    for bone in &model.bones {
        flags |= bone.flags;
    }
    assert!(
        flags.contains(BoneFlags::all()),
        "every bone flag used: {flags:?}"
    );
}

#[test]
fn kept_index_sizes_are_used_when_they_fit_and_widened_when_not() {
    let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 100, 20);
    let mut with_wide = model.clone();
    with_wide.header.index_sizes = Some(IndexSizes {
        vertex: 4,
        texture: 4,
        material: 2,
        bone: 2,
        morph: 4,
        rigid_body: 2,
    });
    let keep = PmxSaveOptions {
        index_sizes: IndexSizeMode::Keep,
        ..Default::default()
    };
    let back = read(&write(&with_wide, &keep));
    assert_eq!(back.header.index_sizes, with_wide.header.index_sizes);
    // Too small for the counts: the writer widens instead of writing a broken file.
    let mut too_small = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 300, 20);
    too_small.header.index_sizes = Some(IndexSizes {
        vertex: 1,
        texture: 1,
        material: 1,
        bone: 1,
        morph: 1,
        rigid_body: 1,
    });
    let back = read(&write(&too_small, &keep));
    assert_eq!(back.header.index_sizes.map(|s| s.vertex), Some(2));
}

#[test]
fn version_and_encoding_can_be_converted() {
    let model = feature_model(PmxVersion::V2_0, TextEncoding::Utf16, 50, 20);
    let to = PmxSaveOptions {
        version: Some(PmxVersion::V2_1),
        encoding: Some(TextEncoding::Utf8),
        ..Default::default()
    };
    let back = read(&write(&model, &to));
    assert_eq!(back.header.version, PmxVersion::V2_1);
    assert_eq!(back.header.encoding, TextEncoding::Utf8);
    assert_eq!(back.info, model.info);
    assert_eq!(
        back.bones
            .iter()
            .map(|b| b.name_ja.clone())
            .collect::<Vec<_>>(),
        model
            .bones
            .iter()
            .map(|b| b.name_ja.clone())
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_2_1_model_is_refused_as_2_0_with_every_offender_listed() {
    let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 64, 20);
    let to_20 = PmxSaveOptions {
        version: Some(PmxVersion::V2_0),
        ..Default::default()
    };
    let error = pmx::write(&model, &to_20)
        .err()
        .unwrap_or_else(|| panic!("2.0 with 2.1 features must be refused"));
    let pmx_core::formats::WriteError::VersionViolations { violations } = &error else {
        panic!("wrong error {error}")
    };
    let qdef = model
        .vertices
        .iter()
        .filter(|v| matches!(v.weight, Weight::Qdef { .. }))
        .count();
    let flips = model
        .morphs
        .iter()
        .filter(|m| m.offsets.kind().is_pmx21_only())
        .count();
    let joints = model
        .joints
        .iter()
        .filter(|j| j.kind != JointKind::Spring6Dof)
        .count();
    assert_eq!(
        violations.iter().filter(|v| v.contains("QDEF")).count(),
        qdef
    );
    assert_eq!(
        violations
            .iter()
            .filter(|v| v.starts_with("morphs["))
            .count(),
        flips
    );
    assert_eq!(
        violations
            .iter()
            .filter(|v| v.starts_with("joints["))
            .count(),
        joints
    );
    assert_eq!(
        violations
            .iter()
            .filter(|v| v.starts_with("soft_bodies["))
            .count(),
        model.soft_bodies.len()
    );
    assert_eq!(
        violations
            .iter()
            .filter(|v| v.starts_with("materials["))
            .count(),
        1
    );
    assert!(error.to_string().contains("vertices["), "{error}");
    // Explicitly allowed: written, with soft bodies reported as dropped.
    let allowed = PmxSaveOptions {
        allow_version_violations: true,
        ..to_20
    };
    let (bytes, report) = pmx::write(&model, &allowed).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.warnings.iter().any(|w| w.contains("soft bodies")));
    let back = read(&bytes);
    assert_eq!(back.header.version, PmxVersion::V2_0);
    assert!(back.soft_bodies.is_empty());
    assert_eq!(back.vertices, model.vertices);
}

#[test]
fn undecodable_text_and_odd_values_survive() {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 10, 12);
    model.info.name_ja = Text::Undecodable {
        encoding: TextEncoding::Utf16,
        raw: vec![0x00, 0xD8, 0x41, 0x00],
    };
    model.bones[1].parent = BoneIdx::from_raw(-5);
    model.vertices[0].position = Vec3::new(f32::NAN, -0.0, f32::INFINITY);
    model.vertices[1].weight = Weight::Bdef1 {
        bone: BoneIdx::from_raw(1000),
    };
    let keep = PmxSaveOptions {
        index_sizes: IndexSizeMode::Minimal,
        ..Default::default()
    };
    // Index 1000 does not fit a 1-byte bone index: a clear error, not a wrapped value.
    let error = pmx::write(&model, &keep)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        error.contains("vertices[1].weight") && error.contains("1000"),
        "{error}"
    );
    model.vertices[1].weight = Weight::Bdef1 { bone: None };
    let bytes = write(&model, &keep);
    let back = read(&bytes);
    assert_eq!(back.info.name_ja, model.info.name_ja);
    assert_eq!(back.bones[1].parent.map(BoneIdx::raw), Some(-5));
    assert!(
        back.vertices[0]
            .position
            .bits_eq(model.vertices[0].position)
    );
    let json = pmx_core::formats::json::write(&back).unwrap_or_default();
    let (from_json, _) = pmx_core::formats::json::read(&json).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(write(&from_json, &keep), bytes);
}
