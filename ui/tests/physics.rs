//! The pose pane's physics, driven as a user drives it: switch it on, step it, watch a
//! pendulum fall (the bones, the bodies the 3D view draws), the document untouched; apply the
//! simulated pose as rest as one undoable step; switch to the VRM spring bones; Japanese.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use pmx_core::model::Model;
use pmx_ui::EditorState;
use pmx_ui::command::Command;
use pmx_ui::i18n::Language;

mod support;
use support::{click, document, gene_and_nod_motion, harness_with, load_motion, tab};

const PIVOT: Vec3 = pmx_physics::generate::PENDULUM_PIVOT;

/// The pendulum of `pmx_physics::generate`, swinging freely (±3 rad about Z, no spring).
fn pendulum() -> Model {
    pmx_physics::generate::pendulum((-3.0, 3.0), 0.0)
}

/// The bob bone's direction (its rest tail, +X, turned by the pose's physics).
fn bob_direction(harness: &Harness<'_, EditorState>) -> Vec3 {
    let pose = &harness.state().pose.pose;
    let bob = pose
        .physics
        .iter()
        .find(|p| p.bone == 1)
        .expect("the bob is simulated");
    bob.transform.rotation * Vec3::X
}

#[test]
fn stepping_the_physics_swings_the_pendulum_without_touching_the_document() {
    let original = pendulum();
    let mut harness = harness_with(original.clone(), Language::English);
    let revision = document(&harness).revision();
    tab(&mut harness, "Pose");
    click(&mut harness, "Physics");
    assert!(harness.state().pose.physics.enabled);
    for _ in 0..90 {
        click(&mut harness, "Step 1 frame");
    }
    let direction = bob_direction(&harness);
    assert!(direction.y < -0.9, "after 1.5 s the bob hangs: {direction}");
    harness.get_by_label_contains("1.50 s · 90 steps");

    // The bodies the view draws moved with the simulation.
    let model = document(&harness).model.clone();
    let (_, placements) = harness.state().pose.body_placements(&model).unwrap();
    let bob = placements[1].translation;
    assert!(
        bob.y < PIVOT.y - 1.8,
        "the bob's body is below the pivot: {bob}"
    );

    // A click on the bob where it hangs now picks it (bodies are picked where they are drawn),
    // and where it rested picks nothing.
    let view = &harness.state().view;
    let size = glam::Vec2::new(800.0, 600.0);
    let projector = pmx_scene::camera::Projector::new(&view.camera, size);
    let world = |p: glam::Vec3A| glam::Vec3::new(p.x, p.y, -p.z);
    let (pixel, _) = projector.project(world(bob)).unwrap();
    let mut view = std::mem::take(&mut harness.state_mut().view);
    view.pick_mode = pmx_ui::panes::view::PickMode::RigidBody;
    assert_eq!(
        view.pick(&model, pixel, size),
        Some(1),
        "the bob is picked where it hangs"
    );
    let (rest_pixel, _) = projector.project(PIVOT + glam::Vec3::X * 2.0).unwrap();
    assert_eq!(
        view.pick(&model, rest_pixel, size),
        None,
        "nothing is left where it rested"
    );
    harness.state_mut().view = view;

    // Showing and stepping changed nothing in the document.
    assert_eq!(document(&harness).revision(), revision);
    assert!(document(&harness).model == original);
    assert!(!document(&harness).is_dirty());

    // The picked body's readout.
    harness
        .state_mut()
        .document
        .as_mut()
        .unwrap()
        .selection
        .get_mut(pmx_core::model::ElementKind::RigidBody)
        .current = Some(1);
    harness.run_ok();
    harness.get_by_label_contains("Rigid body 1 振り子 (physics)");

    // Physics off: the pose is the user's again.
    click(&mut harness, "Physics");
    assert!(harness.state().pose.pose.physics.is_empty());
    assert!(harness.state().pose.pose.is_rest());
}

#[test]
fn the_simulated_pose_applies_as_rest_in_one_step_and_undoes_exactly() {
    let original = pendulum();
    let mut harness = harness_with(original.clone(), Language::English);
    tab(&mut harness, "Pose");
    click(&mut harness, "Physics");
    for _ in 0..60 {
        click(&mut harness, "Step 1 frame");
    }
    let model = &document(&harness).model;
    let (_, placements) = harness.state().pose.body_placements(model).unwrap();
    let simulated = Vec3::from(placements[1].translation);
    assert!(simulated.y < PIVOT.y - 1.0, "the bob fell: {simulated}");
    click(&mut harness, "Apply pose as rest");
    let applied = &document(&harness).model;
    let bob_body: Vec3 = applied.rigid_bodies[1].position.into();
    assert!(
        bob_body.distance(simulated) < 1e-3,
        "the bob's body rests where the physics left it: {bob_body}, simulated {simulated}"
    );
    let bob_bone: Vec3 = applied.bones[1].tail_offset.into();
    assert!(
        bob_bone.y < -1.0,
        "the bob bone's tail turned down with it: {bob_bone}"
    );
    assert!(document(&harness).is_dirty());
    harness.state_mut().push(Command::Undo);
    harness.run_ok();
    assert!(
        document(&harness).model == original,
        "undo gives the model back"
    );
}

#[test]
fn the_spring_bone_engine_runs_in_the_same_pane_in_japanese() {
    let mut harness = harness_with(pendulum(), Language::Japanese);
    tab(&mut harness, "ポーズ");
    click(&mut harness, "物理演算");
    harness.get_by_label_contains("MMD物理").click();
    harness.run_ok();
    click(&mut harness, "VRMスプリングボーン");
    assert_eq!(
        harness.state().pose.physics.engine,
        pmx_physics::Engine::SpringBones
    );
    for _ in 0..30 {
        click(&mut harness, "1フレーム進める");
    }
    harness.get_by_label_contains("0.50 秒 · 30 ステップ");
    harness.get_by_label_contains("スプリングチェーン 1 本");
    // The bob's spring swings it down under the spring bones' gravity too.
    let direction = bob_direction(&harness);
    assert!(
        direction.y < -0.1,
        "the spring bone swung down: {direction}"
    );
}

#[test]
fn a_motion_scrubbed_with_physics_on_moves_the_hair_and_leaves_the_document_alone() {
    let Some((model, motion_path)) = gene_and_nod_motion() else {
        return;
    };
    let mut harness = harness_with(model.clone(), Language::English);
    tab(&mut harness, "Pose");
    load_motion(&mut harness, &motion_path);
    click(&mut harness, "Physics");
    let last = harness.state().pose.motion_last_frame().unwrap() as f32;
    // Scrub forward in small steps (the physics plays the frames in between), then jump back
    // (it starts over there and settles).
    let mut frame = 0.0;
    while frame < last.min(40.0) {
        frame += 5.0;
        harness.state_mut().pose.scrub_to(&model, frame);
        harness.run_ok();
    }
    let physics = harness.state().pose.pose.physics.clone();
    assert!(!physics.is_empty(), "the physics moved bones");
    assert!(
        physics
            .iter()
            .all(|p| p.transform.translation.is_finite() && p.transform.rotation.is_finite())
    );
    let steps = harness.state().pose.physics.simulation().unwrap().steps();
    assert!(
        steps >= (frame / 30.0 * 60.0) as u64 - 2,
        "{steps} steps for {frame} frames"
    );
    harness.state_mut().pose.scrub_to(&model, 0.0);
    harness.run_ok();
    assert_eq!(
        harness.state().pose.physics.simulation().unwrap().steps(),
        60,
        "a jump back starts over and settles for a second"
    );
    assert!(document(&harness).model == model);
    assert!(!document(&harness).is_dirty());
}

#[test]
fn playing_goes_on_while_another_tab_is_shown() {
    let mut harness = harness_with(pendulum(), Language::English);
    tab(&mut harness, "Pose");
    click(&mut harness, "▶ Play");
    assert!(harness.state().pose.physics.playing);
    // Pick the bob in the rigid body table's tab: the pose pane is hidden now.
    tab(&mut harness, "Rigid bodies");
    let before = harness.state().pose.physics.simulation().unwrap().steps();
    for _ in 0..20 {
        std::thread::sleep(std::time::Duration::from_millis(20));
        harness.step();
    }
    let after = harness.state().pose.physics.simulation().unwrap().steps();
    assert!(
        after >= before + 10,
        "{before} → {after} steps while the table was shown"
    );
    assert!(!harness.state().pose.pose.physics.is_empty());
}

#[test]
fn a_machine_that_cannot_keep_up_is_told_how_far_behind_the_physics_runs() {
    let mut harness = harness_with(pendulum(), Language::English);
    tab(&mut harness, "Pose");
    click(&mut harness, "▶ Play");
    let model = document(&harness).model.clone();
    // As on a slow renderer: frames of 100 ms, a step costing 30 ms (one fits in a frame's
    // 50 ms of physics). The physics runs a sixth of real time.
    let ms = std::time::Duration::from_millis;
    for _ in 0..12 {
        harness
            .state_mut()
            .pose
            .advance_by_clock(&model, ms(100), ms(30));
    }
    // The window's own frame (its real length unknown here) runs at the same step cost.
    harness.state_mut().pose.physics.last_step = ms(30);
    harness.step();
    let speed = harness.state().pose.physics.clock().speed();
    assert!(speed < 0.25, "speed {speed}");
    harness.get_by_label_contains("Can't keep up: ");
    harness.get_by_label_contains("% of real time");
    // Paused, nothing falls behind: the warning goes.
    click(&mut harness, "Pause");
    assert!(
        harness
            .query_all_by_label_contains("Can't keep up")
            .next()
            .is_none()
    );
}
