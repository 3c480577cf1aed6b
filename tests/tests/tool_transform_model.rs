//! モデル全体の変形 on Gene: a scale of 2 doubles every length exactly, a turn of 90° about Y
//! sends +X to −Z (glam's right-handed turn of the numbers, the same formula MMD's Y rotation
//! uses on its coordinates), and a transform followed by its inverse gives the model back.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::Model;
use pmx_core::model::facts::euler_to_quat;
use pmx_core::model::{MorphOffsets, Vec3};
use pmx_plugins::{Options, PluginError, PluginSelection, Registry, run_plugin};
use pmx_tests::{corpus_model, run_tool};
use serde_json::json;

fn transform(model: &Model, options: serde_json::Value) -> Model {
    run_tool("transform_model", model, &PluginSelection::new(), &options).after
}

fn close(a: Vec3, b: Vec3, tolerance: f32) -> bool {
    (a.x - b.x).abs() <= tolerance
        && (a.y - b.y).abs() <= tolerance
        && (a.z - b.z).abs() <= tolerance
}

fn doubled(v: Vec3) -> Vec3 {
    Vec3::new(v.x * 2.0, v.y * 2.0, v.z * 2.0)
}

#[test]
fn a_scale_of_two_doubles_every_position_and_size_exactly() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let outcome = run_tool(
        "transform_model",
        &model,
        &PluginSelection::new(),
        &json!({"scale": 2}),
    );
    assert_eq!(outcome.label_ja, "モデル全体の変形");
    let after = &outcome.after;
    for (before, now) in model.vertices.iter().zip(&after.vertices) {
        assert!(now.position.bits_eq(doubled(before.position)));
        assert!(
            now.normal.bits_eq(before.normal),
            "a uniform scale keeps normals"
        );
        assert_eq!(now.uv, before.uv);
    }
    for (before, now) in model.bones.iter().zip(&after.bones) {
        assert!(now.position.bits_eq(doubled(before.position)));
        assert!(now.tail_offset.bits_eq(doubled(before.tail_offset)));
        assert!(now.fixed_axis.bits_eq(before.fixed_axis));
    }
    for (before, now) in model.rigid_bodies.iter().zip(&after.rigid_bodies) {
        assert!(now.position.bits_eq(doubled(before.position)));
        assert!(now.size.bits_eq(doubled(before.size)));
        assert!(now.rotation.bits_eq(before.rotation));
    }
    for (before, now) in model.joints.iter().zip(&after.joints) {
        assert!(now.position.bits_eq(doubled(before.position)));
        assert!(now.move_lower.bits_eq(doubled(before.move_lower)));
        assert!(now.move_upper.bits_eq(doubled(before.move_upper)));
        assert!(now.rotate_lower.bits_eq(before.rotate_lower));
    }
    for (before, now) in model.morphs.iter().zip(&after.morphs) {
        match (&before.offsets, &now.offsets) {
            (MorphOffsets::Vertex(old), MorphOffsets::Vertex(new)) => {
                for (o, n) in old.iter().zip(new) {
                    assert!(n.offset.bits_eq(doubled(o.offset)));
                }
            }
            (MorphOffsets::Bone(old), MorphOffsets::Bone(new)) => {
                for (o, n) in old.iter().zip(new) {
                    assert!(n.translation.bits_eq(doubled(o.translation)));
                    assert!(n.rotation.bits_eq(o.rotation));
                }
            }
            (old, new) => assert_eq!(old, new),
        }
    }
    assert_eq!(after.materials, model.materials);
}

#[test]
fn a_quarter_turn_about_y_sends_x_to_minus_z() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let after = transform(&model, json!({"rotate_y": 90}));
    // (x, y, z) → (z, y, −x): (1, 0, 0) → (0, 0, −1).
    let turn = |v: Vec3| Vec3::new(v.z, v.y, -v.x);
    for (before, now) in model.vertices.iter().zip(&after.vertices) {
        assert!(close(now.position, turn(before.position), 1e-5));
        assert!(close(now.normal, turn(before.normal), 1e-5));
    }
    for (before, now) in model.bones.iter().zip(&after.bones) {
        assert!(close(now.position, turn(before.position), 1e-5));
        assert!(close(now.tail_offset, turn(before.tail_offset), 1e-5));
    }
    let quarter = glam::Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
    for (before, now) in model.rigid_bodies.iter().zip(&after.rigid_bodies) {
        assert!(close(now.position, turn(before.position), 1e-5));
        let expected = quarter * euler_to_quat(before.rotation);
        let got = euler_to_quat(now.rotation);
        assert!(
            got.dot(expected).abs() > 1.0 - 1e-5,
            "{got:?} vs {expected:?}"
        );
        assert!(now.size.bits_eq(before.size));
    }
    for (before, now) in model.joints.iter().zip(&after.joints) {
        assert!(close(now.position, turn(before.position), 1e-5));
        assert!(now.move_lower.bits_eq(before.move_lower));
    }
}

#[test]
fn a_transform_and_its_inverse_give_the_model_back() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let there = transform(
        &model,
        json!({"scale": 2.5, "rotate_y": 30, "move_x": 1, "move_y": -2, "move_z": 3}),
    );
    // Scale, then turn, then move: undone as move back, turn back, scale back.
    let moved = transform(&there, json!({"move_x": -1, "move_y": 2, "move_z": -3}));
    let turned = transform(&moved, json!({"rotate_y": -30}));
    let back = transform(&turned, json!({"scale": 0.4}));
    let tolerance = 1e-4;
    for (a, b) in model.vertices.iter().zip(&back.vertices) {
        assert!(close(a.position, b.position, tolerance));
        assert!(close(a.normal, b.normal, tolerance));
    }
    for (a, b) in model.bones.iter().zip(&back.bones) {
        assert!(close(a.position, b.position, tolerance));
        assert!(close(a.tail_offset, b.tail_offset, tolerance));
        assert!(close(a.fixed_axis, b.fixed_axis, tolerance));
    }
    for (a, b) in model.rigid_bodies.iter().zip(&back.rigid_bodies) {
        assert!(close(a.position, b.position, tolerance));
        assert!(close(a.size, b.size, tolerance));
        let (qa, qb) = (euler_to_quat(a.rotation), euler_to_quat(b.rotation));
        assert!(qa.dot(qb).abs() > 1.0 - 1e-5);
    }
    for (a, b) in model.joints.iter().zip(&back.joints) {
        assert!(close(a.position, b.position, tolerance));
        assert!(close(a.move_lower, b.move_lower, tolerance));
        assert!(close(a.move_upper, b.move_upper, tolerance));
    }
    for (a, b) in model.morphs.iter().zip(&back.morphs) {
        if let (MorphOffsets::Vertex(x), MorphOffsets::Vertex(y)) = (&a.offsets, &b.offsets) {
            for (o, p) in x.iter().zip(y) {
                assert!(close(o.offset, p.offset, tolerance));
            }
        }
    }
}

#[test]
fn per_axis_scales_stretch_normals_by_the_inverse_transpose_and_sdef_follows() {
    let Some(model) = corpus_model("pmx/generated_utf8_sdef_two_bone_elbow.pmx") else {
        return;
    };
    let after = transform(&model, json!({"scale_x": 2, "move_y": 1}));
    for (before, now) in model.vertices.iter().zip(&after.vertices) {
        let p = before.position;
        assert!(now.position.bits_eq(Vec3::new(p.x * 2.0, p.y + 1.0, p.z)));
        if let (
            pmx_core::model::Weight::Sdef { c, r0, .. },
            pmx_core::model::Weight::Sdef { c: c2, r0: r02, .. },
        ) = (&before.weight, &now.weight)
        {
            assert!(c2.bits_eq(Vec3::new(c.x * 2.0, c.y + 1.0, c.z)));
            assert!(r02.bits_eq(Vec3::new(r0.x * 2.0, r0.y + 1.0, r0.z)));
        }
        let n = glam::Vec3::new(before.normal.x / 2.0, before.normal.y, before.normal.z);
        let expected = n.normalize() * glam::Vec3::from(before.normal).length();
        assert!(close(now.normal, Vec3::from(expected), 1e-6));
    }
}

#[test]
fn the_identity_is_no_change_and_a_zero_scale_is_refused() {
    let model = pmx_core::generate::sample_model();
    let registry = Registry::builtin();
    let plugin = registry.find("transform_model").unwrap();
    let info = plugin.info();
    let mut working = model.clone();
    let options = Options::from_json(&info.options, &json!({})).unwrap();
    let error = run_plugin(
        plugin.as_ref(),
        &mut working,
        &PluginSelection::new(),
        &options,
    )
    .map(|_| ())
    .unwrap_err();
    assert!(matches!(error, PluginError::NoChange), "{error}");
    assert!(Options::from_json(&info.options, &json!({"scale": 0})).is_err());
    // The sample model moves as a whole.
    let after = transform(&model, json!({"move_z": -1.5}));
    assert_eq!(
        after.vertices[0].position,
        Vec3::new(
            model.vertices[0].position.x,
            model.vertices[0].position.y,
            model.vertices[0].position.z - 1.5
        )
    );
}
