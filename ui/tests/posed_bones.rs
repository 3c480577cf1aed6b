//! The 3D view's bone layer follows the pose pane's pose, as the mesh and the rigid bodies do:
//! a posed bone's child is drawn and picked where the pose put it, the physics' result moves
//! the bones it moves, a corpus motion puts the bone heads where the skinned mesh is, and a
//! reset brings them back to rest. Posing never changes the document.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::{Vec2, Vec3};
use pmx_core::model::{Bone, BoneFlags, BoneIdx, ElementKind, Model};
use pmx_scene::frame::Upload;
use pmx_ui::EditorState;
use pmx_ui::i18n::Language;

mod support;
use support::{click, document, gene_and_nod_motion, harness_with, load_motion, tab};

/// The view's bone layer switched on by its checkbox, as the user does.
fn show_bones(harness: &mut Harness<'_, EditorState>) {
    harness
        .get_by_role_and_label(Role::CheckBox, "Bones")
        .click();
    harness.run_ok();
    assert!(harness.state().view.layers.bones);
}

/// The bone heads (points) of the last overlay the view queued for the GPU: what it draws.
/// Only the bone layer adds points here (no vertex is selected).
fn drawn_points(harness: &Harness<'_, EditorState>) -> Vec<Vec3> {
    let uploads = harness.state().view.scene.pending();
    let overlay = uploads
        .iter()
        .rev()
        .find_map(|upload| match upload {
            Upload::Overlay(geometry) => Some(geometry),
            _ => None,
        })
        .expect("the view queued an overlay");
    overlay
        .points
        .iter()
        .map(|p| Vec3::from(p.position))
        .collect()
}

/// The view's bone head of `bone` (world space, Z mirrored).
fn drawn_head(harness: &Harness<'_, EditorState>, bone: usize) -> Vec3 {
    let editor = harness.state();
    let model = &editor.document.as_ref().unwrap().model;
    editor.view.drawn_bone_head(model, bone).unwrap()
}

fn world(p: pmx_core::model::Vec3) -> Vec3 {
    Vec3::new(p.x, p.y, -p.z)
}

/// A click in the view at world point `at` (projected with the view's camera and rectangle).
fn click_in_view(harness: &mut Harness<'_, EditorState>, at: Vec3) {
    let position = {
        let view = &harness.state().view;
        let rect = view.last_rect.expect("the view was drawn");
        let size = Vec2::new(rect.width(), rect.height());
        let projector = pmx_scene::camera::Projector::new(&view.camera, size);
        let (pixel, _) = projector.project(at).expect("in front of the camera");
        rect.min + egui::vec2(pixel.x, pixel.y)
    };
    harness.event(egui::Event::PointerMoved(position));
    harness.step();
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos: position,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.step();
    }
    harness.run_ok();
}

/// A parent at (0, 10, 0) whose tail is its child at (0, 15, 0); the child's tail is an
/// offset of (0, 3, 0).
fn two_bones() -> Model {
    let at = |x, y, z| pmx_core::model::Vec3::new(x, y, z);
    let mut model = Model::new_empty();
    let mut parent = Bone {
        name_ja: "親".into(),
        position: at(0.0, 10.0, 0.0),
        tail_bone: Some(BoneIdx::new(1)),
        ..Bone::default()
    };
    parent.flags |= BoneFlags::TAIL_IS_BONE;
    let child = Bone {
        name_ja: "子".into(),
        position: at(0.0, 15.0, 0.0),
        parent: Some(BoneIdx::new(0)),
        tail_offset: at(0.0, 3.0, 0.0),
        ..Bone::default()
    };
    model.bones = vec![parent, child];
    model
}

#[test]
fn a_posed_bone_is_drawn_and_picked_where_the_pose_puts_it_and_goes_back_on_reset() {
    let original = two_bones();
    let mut harness = harness_with(original.clone(), Language::English);
    let revision = document(&harness).revision();
    show_bones(&mut harness);
    let rest_child = world(original.bones[1].position);
    assert_eq!(drawn_head(&harness, 1), rest_child);
    assert_eq!(drawn_points(&harness)[1], rest_child);

    tab(&mut harness, "Pose");
    harness
        .state_mut()
        .pose
        .set_bone_rotation(&original, 0, Vec3::new(0.0, 0.0, 90.0));
    harness.run_ok();

    // 90° about Z lays the child's 5 units from its parent sideways: (±5, 10, 0).
    let turn =
        pmx_core::model::facts::euler_degrees_to_quat(pmx_core::model::Vec3::new(0.0, 0.0, 90.0));
    let posed = turn * Vec3::new(0.0, 5.0, 0.0) + Vec3::new(0.0, 10.0, 0.0);
    let posed_child = Vec3::new(posed.x, posed.y, -posed.z);
    assert!((posed_child.x.abs() - 5.0).abs() < 1e-4, "{posed_child}");
    assert!((posed_child.y - 10.0).abs() < 1e-4, "{posed_child}");
    let head = drawn_head(&harness, 1);
    assert!(
        head.distance(posed_child) < 1e-4,
        "{head} is not {posed_child}"
    );
    let points = drawn_points(&harness);
    assert_eq!(points.len(), 2);
    assert!(
        points[1].distance(posed_child) < 1e-4,
        "the overlay draws the child at {}, not {posed_child}",
        points[1]
    );
    assert!(points[0].distance(world(original.bones[0].position)) < 1e-4);

    // ボーン選択: a click where the child is drawn picks it; where it rested, nothing.
    click(&mut harness, "bone");
    assert_eq!(
        harness.state().view.pick_mode,
        pmx_ui::panes::view::PickMode::Bone
    );
    click_in_view(&mut harness, posed_child);
    let bones = &document(&harness).selection.get(ElementKind::Bone);
    assert_eq!(bones.current, Some(1), "the posed child is picked");
    click_in_view(&mut harness, rest_child);
    let bones = &document(&harness).selection.get(ElementKind::Bone);
    assert_eq!(
        bones.current, None,
        "nothing is left where the child rested"
    );

    // Posing and picking changed nothing in the document.
    assert_eq!(document(&harness).revision(), revision);
    assert!(document(&harness).model == original);
    assert!(document(&harness).history.is_empty());
    assert!(!document(&harness).is_dirty());

    click(&mut harness, "Reset pose");
    assert!(harness.state().pose.pose.is_rest());
    assert_eq!(drawn_head(&harness, 1), rest_child);
    assert_eq!(
        drawn_points(&harness),
        vec![world(original.bones[0].position), rest_child]
    );
    click_in_view(&mut harness, rest_child);
    let bones = &document(&harness).selection.get(ElementKind::Bone);
    assert_eq!(bones.current, Some(1), "back at rest, picked at rest");
    assert!(document(&harness).model == original);
    assert!(document(&harness).history.is_empty());
}

#[test]
fn the_physics_swings_the_drawn_bone_with_the_pendulum() {
    let original = pmx_physics::generate::pendulum((-3.0, 3.0), 0.0);
    let pivot = pmx_physics::generate::PENDULUM_PIVOT;
    let mut harness = harness_with(original.clone(), Language::English);
    show_bones(&mut harness);
    tab(&mut harness, "Pose");
    click(&mut harness, "Physics");
    for _ in 0..90 {
        click(&mut harness, "Step 1 frame");
    }
    // The bob bone's tail (its arm, +X at rest) hangs below the pivot after 1.5 s, in the
    // drawn overlay and in the transforms the mesh was skinned with.
    let editor = harness.state();
    let model = &editor.document.as_ref().unwrap().model;
    let globals = editor.pose.evaluated().unwrap().skeleton.globals();
    let tail = pmx_scene::overlay::bone_tail_placed(model, 1, Some(globals)).unwrap();
    assert!(tail.y < pivot.y - 1.8, "the bob's tail hangs: {tail}");
    let uploads = editor.view.scene.pending();
    let lines = uploads
        .iter()
        .rev()
        .find_map(|upload| match upload {
            Upload::Overlay(geometry) => Some(&geometry.lines),
            _ => None,
        })
        .unwrap();
    let drawn_tail = Vec3::from(lines.last().unwrap().position);
    assert!(
        drawn_tail.distance(tail) < 1e-4,
        "the view draws the bob's tail at {drawn_tail}, the pose has it at {tail}"
    );
    assert!(document(&harness).model == original);
    assert!(document(&harness).history.is_empty());
}

#[test]
fn a_corpus_motion_puts_the_bone_heads_where_the_skinned_mesh_is() {
    let Some((original, motion_path)) = gene_and_nod_motion() else {
        return;
    };
    let mut harness = harness_with(original.clone(), Language::English);
    show_bones(&mut harness);
    tab(&mut harness, "Pose");
    load_motion(&mut harness, &motion_path);
    let last = harness.state().pose.motion_last_frame().unwrap() as f32;
    // At every frame the motion turns bones, a vertex bound to one bone only (BDEF1) keeps
    // its place relative to that bone's drawn head and turn: the bones sit in the mesh the
    // view shows.
    let (mut posed_frames, mut moved) = (0, 0);
    for frame in 0..=last as u32 {
        harness.state_mut().pose.set_frame(frame as f32);
        // One frame: the overlay painted with this frame's mesh is made from the same pose
        // (not the previous frame's, as a motion playing would show).
        harness.step();
        let heads: Vec<Vec3> = match harness.state().pose.bone_placements() {
            Some((_, globals)) => globals
                .iter()
                .map(|global| world(Vec3::from(global.translation).into()))
                .collect(),
            None => original.bones.iter().map(|b| world(b.position)).collect(),
        };
        assert_eq!(drawn_points(&harness), heads, "frame {frame}");
        harness.run_ok();
        let Some(positions) = harness
            .state_mut()
            .pose
            .deformed_positions()
            .map(<[Vec3]>::to_vec)
        else {
            continue;
        };
        let editor = harness.state();
        posed_frames += 1;
        let globals = editor.pose.evaluated().unwrap().skeleton.globals();
        let mut checked = 0;
        for (index, vertex) in original.vertices.iter().enumerate().step_by(37) {
            let pmx_core::model::Weight::Bdef1 { bone: Some(bone) } = vertex.weight else {
                continue;
            };
            let bone = bone.get();
            let rest_head = Vec3::from(original.bones[bone].position);
            let head = editor.view.drawn_bone_head(&original, bone).unwrap();
            let expected_vertex = globals[bone].rotation
                * (Vec3::from(vertex.position) - rest_head)
                + world_back(head);
            assert!(
                positions[index].distance(expected_vertex) < 1e-3,
                "frame {frame}, vertex {index} of bone {bone}: mesh {} vs bone {expected_vertex}",
                positions[index]
            );
            checked += 1;
            if head.distance(world(original.bones[bone].position)) > 1e-3 {
                moved += 1;
            }
        }
        assert!(checked > 10, "{checked} single-bone vertices checked");
    }
    assert!(posed_frames > 0, "the motion poses the model");
    assert!(moved > 0, "the motion moved bones the view draws");
    assert!(document(&harness).model == original);
    assert!(document(&harness).history.is_empty());

    click(&mut harness, "Reset pose");
    for bone in 0..original.bones.len() {
        assert_eq!(
            drawn_head(&harness, bone),
            world(original.bones[bone].position)
        );
    }
}

/// A world-space point back in model space.
fn world_back(p: Vec3) -> Vec3 {
    Vec3::new(p.x, p.y, -p.z)
}
