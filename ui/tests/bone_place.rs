#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Bones by clicking (issue 38), on Gene where the mesh matters:
//! - ボーン追加 mode: a click on Gene's body adds a bone half way between the pick ray's front
//!   hit and the hit behind it (both worked out here with `pmx_scene::pick` along the same
//!   ray), a child of the selected bone, named ボーンN, in its parent's display frame, selected;
//!   one undo step the validator finds no new error in; undo removes it exactly;
//! - the context menu's ここにボーンを追加 adds the same bone;
//! - dragging a bone's tail moves its tail offset, or the tail bone when the tail is a bone,
//!   so that the tail follows the pointer (at the same depth); dragging a head moves the bone;
//!   one undo step each.

mod support;
#[path = "support/view_edit.rs"]
mod view_edit;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::{Vec2, Vec3};
use pmx_core::model::{Bone, BoneFlags, BoneIdx, DisplayItem, ElementKind, Model};
use pmx_ui::EditorState;
use pmx_ui::i18n::Language;
use pmx_ui::panes::view::camera::{OrbitCamera, to_world};
use pmx_ui::panes::view::{PickMode, pick};
use support::{document, drag, gene_and_nod_motion, harness_with};
use view_edit::{assert_no_new_errors, click_view, on_screen, view_size};

/// Gene open with 上半身 selected, looking at the chest from the front.
fn gene_with_upper_body() -> Option<(Model, usize, Harness<'static, EditorState>)> {
    let (model, _) = gene_and_nod_motion()?;
    let parent = model
        .bones
        .iter()
        .position(|b| b.name_ja.as_str() == "上半身")
        .expect("Gene has 上半身");
    let mut harness = harness_with(model.clone(), Language::Japanese);
    {
        let editor = harness.state_mut();
        editor.view.camera = OrbitCamera {
            target: Vec3::new(0.0, 13.0, 0.0),
            distance: 25.0,
            ..OrbitCamera::default()
        };
        let document = editor.document.as_mut().unwrap();
        document
            .selection
            .get_mut(ElementKind::Bone)
            .select_only(parent);
    }
    harness.run_ok();
    Some((model, parent, harness))
}

/// The point half way between the ray's front hit on `model` and the next hit behind it
/// (model space), worked out from every triangle the ray crosses.
fn between_the_hits(model: &Model, camera: &OrbitCamera, pixel: Vec2, size: Vec2) -> Vec3 {
    let positions: Vec<Vec3> = model
        .vertices
        .iter()
        .map(|v| to_world(v.position))
        .collect();
    let faces: Vec<[u32; 3]> = model
        .faces
        .iter()
        .map(|f| [f[0].0, f[1].0, f[2].0])
        .collect();
    let ray = camera.ray(pixel, size);
    let hits = pick::ray_hits(&ray, &positions, &faces);
    let front = hits.first().expect("the ray hits the body").1;
    let back = hits
        .iter()
        .map(|h| h.1)
        .find(|&t| t > front + 1.0e-3)
        .expect("the ray leaves the body");
    let world = ray.at((front + back) * 0.5);
    Vec3::new(world.x, world.y, -world.z)
}

/// The added bone is the last, where it should be, a child of `parent` in its frame, selected.
fn check_new_bone(original: &Model, harness: &Harness<'_, EditorState>, parent: usize, at: Vec3) {
    let document = document(harness);
    let model = &document.model;
    assert_eq!(model.bones.len(), original.bones.len() + 1);
    let index = original.bones.len();
    let bone = &model.bones[index];
    let position = Vec3::from(bone.position);
    assert!((position - at).length() < 1.0e-3, "{position} vs {at}");
    assert_eq!(bone.parent, Some(BoneIdx::new(parent)));
    assert_eq!(bone.name_ja.as_str(), "ボーン1");
    assert!(
        bone.flags
            .contains(BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE)
    );
    let lists = |bone: usize| {
        model.display_frames.iter().position(|f| {
            f.items
                .contains(&DisplayItem::Bone(Some(BoneIdx::new(bone))))
        })
    };
    assert!(lists(parent).is_some(), "Gene lists 上半身");
    assert_eq!(lists(index), lists(parent), "in its parent's display frame");
    let frame = &model.display_frames[lists(index).unwrap()];
    assert_eq!(
        frame.items.last(),
        Some(&DisplayItem::Bone(Some(BoneIdx::new(index))))
    );
    assert_eq!(
        document.selection.get(ElementKind::Bone).indices.to_vec(),
        vec![index],
        "the new bone is selected"
    );
    assert_eq!(document.history.len(), 1, "one undo step");
    assert_no_new_errors(original, model);
}

fn undo_removes_it(harness: &mut Harness<'_, EditorState>, original: &Model) {
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(
        document(harness).model == *original,
        "undo removes the bone exactly"
    );
}

#[test]
fn a_click_in_bone_mode_adds_a_bone_between_the_front_and_back_hits() {
    let Some((original, parent, mut harness)) = gene_with_upper_body() else {
        return;
    };
    harness.get_by_label("ボーン追加").click();
    harness.run_ok();
    assert!(harness.state().view.bone_place.active);
    let size = view_size(&harness);
    let pixel = size * 0.5;
    let expected = between_the_hits(&original, &harness.state().view.camera, pixel, size);
    click_view(&mut harness, pixel, egui::PointerButton::Primary);
    check_new_bone(&original, &harness, parent, expected);
    assert_eq!(harness.state().view.pick_mode, PickMode::Bone);
    undo_removes_it(&mut harness, &original);
}

#[test]
fn the_context_menu_adds_the_same_bone() {
    let Some((original, parent, mut harness)) = gene_with_upper_body() else {
        return;
    };
    let size = view_size(&harness);
    let pixel = size * 0.5 + Vec2::new(0.0, 30.0);
    let expected = between_the_hits(&original, &harness.state().view.camera, pixel, size);
    click_view(&mut harness, pixel, egui::PointerButton::Secondary);
    harness.get_by_label("ここにボーンを追加").click();
    harness.run_ok();
    check_new_bone(&original, &harness, parent, expected);
    undo_removes_it(&mut harness, &original);
}

/// Three bones in a row: 0 with its tail an offset, 1 with its tail bone 2.
fn bones_model() -> Model {
    let mut model = Model::new_empty();
    let bone = |name: &str, y: f32, parent: Option<usize>| Bone {
        name_ja: name.into(),
        name_en: name.into(),
        position: pmx_core::model::Vec3::new(0.0, y, 0.0),
        parent: parent.map(BoneIdx::new),
        flags: BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE,
        ..Bone::default()
    };
    let mut offset = bone("a", 8.0, None);
    offset.tail_offset = pmx_core::model::Vec3::new(0.0, 2.0, 0.0);
    let mut tail_bone = bone("b", 11.0, Some(0));
    tail_bone.flags |= BoneFlags::TAIL_IS_BONE;
    tail_bone.tail_bone = Some(BoneIdx::new(2));
    model.bones = vec![offset, tail_bone, bone("c", 13.0, Some(1))];
    model
}

/// Drags the bone head or tail drawn at `tail` (model space) 60 pixels right and 20 up;
/// returns where the pointer let go (viewport pixels).
fn drag_tail(harness: &mut Harness<'_, EditorState>, tail: Vec3) -> Vec2 {
    let size = view_size(harness);
    let camera = harness.state().view.camera;
    let projector = pmx_ui::panes::view::camera::Projector::new(&camera, size);
    let (from, _) = projector.project(to_world(tail.into())).unwrap();
    let to = from + Vec2::new(60.0, -20.0);
    let (from_at, to_at) = (on_screen(harness, from), on_screen(harness, to));
    drag(harness, from_at, to_at, 6);
    to
}

/// `tail` (model space) is drawn at `pixel` at the depth `depth_z` (model z) it had.
fn assert_drawn_at(harness: &Harness<'_, EditorState>, tail: Vec3, pixel: Vec2, depth_z: f32) {
    let size = view_size(harness);
    let camera = harness.state().view.camera;
    let projector = pmx_ui::panes::view::camera::Projector::new(&camera, size);
    let (at, _) = projector.project(to_world(tail.into())).unwrap();
    assert!(
        at.distance(pixel) < 0.5,
        "tail drawn at {at}, pointer at {pixel}"
    );
    assert!(
        (tail.z - depth_z).abs() < 1.0e-3,
        "the tail stays at its depth"
    );
}

#[test]
fn dragging_a_tail_moves_the_offset_or_the_tail_bone_as_the_bone_says() {
    let original = bones_model();
    let mut harness = harness_with(original.clone(), Language::Japanese);
    {
        let view = &mut harness.state_mut().view;
        view.pick_mode = PickMode::Bone;
        view.camera = OrbitCamera {
            target: Vec3::new(0.0, 10.0, 0.0),
            distance: 20.0,
            ..OrbitCamera::default()
        };
    }
    harness.run_ok();
    // Bone 0's tail is an offset: the offset moves, the head stays.
    let head = Vec3::from(original.bones[0].position);
    let to = drag_tail(
        &mut harness,
        head + Vec3::from(original.bones[0].tail_offset),
    );
    let model = &document(&harness).model;
    assert_eq!(model.bones[0].position, original.bones[0].position);
    let tail = head + Vec3::from(model.bones[0].tail_offset);
    assert_drawn_at(&harness, tail, to, 0.0);
    assert_eq!(document(&harness).history.len(), 1, "one drag, one step");
    assert_no_new_errors(&original, &document(&harness).model);
    // Bone 1's tail is bone 2: bone 2 moves, bone 1 does not.
    let before = document(&harness).model.clone();
    let to = drag_tail(&mut harness, Vec3::from(original.bones[2].position));
    let model = &document(&harness).model;
    assert_eq!(model.bones[1], before.bones[1]);
    assert_drawn_at(&harness, Vec3::from(model.bones[2].position), to, 0.0);
    assert_eq!(
        document(&harness).history.len(),
        2,
        "a second drag, a second step"
    );
    // Bone 0's head: the bone moves (its tail offset with it), selected.
    let before = document(&harness).model.clone();
    let to = drag_tail(&mut harness, Vec3::from(before.bones[0].position));
    let model = &document(&harness).model;
    assert_eq!(model.bones[0].tail_offset, before.bones[0].tail_offset);
    assert_drawn_at(&harness, Vec3::from(model.bones[0].position), to, 0.0);
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Bone)
            .indices
            .to_vec(),
        vec![0]
    );
    assert_eq!(document(&harness).history.len(), 3);
    for _ in 0..3 {
        harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    }
    harness.run_ok();
    assert!(document(&harness).model == original);
}
