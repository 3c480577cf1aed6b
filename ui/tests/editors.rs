#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The structure editors (bones, morphs, display frames, joints) driven through their UI with
//! egui_kittest: widgets found by their labels, dragged, clicked and typed into; the document
//! checked afterwards, then every change undone and redone.

use egui::accesskit::Role;
use egui::{Event, Modifiers, PointerButton};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::generate::feature_model;
use pmx_core::model::{
    AngleLimits, BoneIdx, DisplayItem, ElementKind, JointKind, Model, MorphOffsets, PmxVersion,
    TextEncoding, Vec3,
};
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::i18n::Language;

fn harness(model: Model) -> Harness<'static, EditorState> {
    let mut editor = EditorState::new(Settings {
        language: Language::English,
        ..Settings::default()
    });
    editor.open_document(Document::from_model(model, None, None));
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(1600.0, 1000.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    harness
}

/// A small PMX 2.1 model using every feature.
fn model() -> Model {
    feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 24, 12)
}

fn tab(harness: &mut Harness<'_, EditorState>, name: &str) {
    harness.get_by_role_and_label(Role::Button, name).click();
    harness.run_ok();
}

/// Clicks the widget labelled `label`, scrolled into view first (property panels are long).
fn click(harness: &mut Harness<'_, EditorState>, label: &str) {
    harness.get_by_label(label).scroll_to_me();
    harness.run_ok();
    harness.get_by_label(label).click();
    harness.run_ok();
}

fn doc_model<'a>(harness: &'a Harness<'_, EditorState>) -> &'a Model {
    &harness.state().document.as_ref().expect("a document").model
}

fn undo(harness: &mut Harness<'_, EditorState>) {
    harness.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
}

fn redo(harness: &mut Harness<'_, EditorState>) {
    harness.key_press_modifiers(Modifiers::COMMAND, egui::Key::Y);
    harness.run_ok();
}

/// Drags the widget labelled `from` onto the widget labelled `to` with the mouse: press, move
/// in steps (past the drag threshold), release over the target.
fn drag_onto(harness: &mut Harness<'_, EditorState>, from: &str, to: &str) {
    let start = harness.get_by_label(from).rect().center();
    let end = harness.get_by_label(to).rect().center();
    harness.hover_at(start);
    harness.step();
    harness.drag_at(start);
    harness.step();
    for k in 1..=6 {
        let t = k as f32 / 6.0;
        harness.hover_at(start + (end - start) * t);
        harness.step();
    }
    harness.event(Event::PointerButton {
        pos: end,
        button: PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    harness.step();
    harness.remove_cursor();
    harness.run_ok();
}

#[test]
fn re_parent_a_bone_by_drag_and_drop_then_undo_and_redo() {
    let original = model();
    // A bone whose new parent is not below it: the last bone onto bone 1 (unless that is
    // already its parent).
    let moved = original.bones.len() - 1;
    let new_parent = (1..moved)
        .find(|&p| original.bones[moved].parent != Some(BoneIdx::new(p)))
        .unwrap();
    let mut harness = harness(original.clone());
    tab(&mut harness, "Bones");
    drag_onto(
        &mut harness,
        &format!("bone tree {moved}"),
        &format!("bone tree {new_parent}"),
    );
    assert_eq!(
        doc_model(&harness).bones[moved].parent,
        Some(BoneIdx::new(new_parent))
    );
    // Only the parent changed, in one undo step.
    let mut expected = original.clone();
    expected.bones[moved].parent = Some(BoneIdx::new(new_parent));
    assert!(*doc_model(&harness) == expected);
    undo(&mut harness);
    assert_eq!(
        doc_model(&harness).bones[moved].parent,
        original.bones[moved].parent
    );
    assert!(*doc_model(&harness) == original);
    redo(&mut harness);
    assert!(*doc_model(&harness) == expected);
}

#[test]
fn add_an_ik_link_with_limits_then_undo_and_redo() {
    let original = model();
    let ik = original.bones.iter().position(|b| b.is_ik()).unwrap();
    let links = original.bones[ik].ik.links.len();
    let mut harness = harness(original.clone());
    tab(&mut harness, "Bones");
    click(&mut harness, &format!("bone tree {ik}"));
    assert_eq!(
        harness
            .state()
            .document
            .as_ref()
            .unwrap()
            .selection
            .get(ElementKind::Bone)
            .current,
        Some(ik)
    );

    click(&mut harness, "Add link");
    assert_eq!(doc_model(&harness).bones[ik].ik.links.len(), links + 1);
    assert_eq!(doc_model(&harness).bones[ik].ik.links[links].bone, None);
    // Pick the link's bone from the list (bone 0 is never the IK bone's own chain's end).
    click(&mut harness, &format!("ik link {links} bone"));
    let zero_label = {
        let bone = &original.bones[0];
        format!("0 {}", bone.name_ja.as_str())
    };
    harness.get_by_label(&zero_label).click();
    harness.run_ok();
    assert_eq!(
        doc_model(&harness).bones[ik].ik.links[links].bone,
        Some(BoneIdx::new(0))
    );
    // Switch the angle limits on and type the lower x limit in degrees.
    click(&mut harness, &format!("ik link {links} limits"));
    assert_eq!(
        doc_model(&harness).bones[ik].ik.links[links].limits,
        Some(AngleLimits::default())
    );
    harness
        .get_by_label(&format!("ik.links[{links}].limits.lower.x"))
        .set_value_accesskit(-90.0);
    harness.run_ok();
    harness
        .get_by_label(&format!("ik.links[{links}].limits.upper.z"))
        .set_value_accesskit(45.0);
    harness.run_ok();
    let limits = doc_model(&harness).bones[ik].ik.links[links]
        .limits
        .unwrap();
    assert_eq!(limits.lower, Vec3::new((-90.0f32).to_radians(), 0.0, 0.0));
    assert_eq!(limits.upper, Vec3::new(0.0, 0.0, 45.0f32.to_radians()));
    let edited = doc_model(&harness).clone();

    // Five steps: add, bone, limits on, lower x, upper z. Undo them all, then redo them all.
    for _ in 0..5 {
        undo(&mut harness);
    }
    assert!(*doc_model(&harness) == original);
    for _ in 0..5 {
        redo(&mut harness);
    }
    assert!(*doc_model(&harness) == edited);
}

#[test]
fn add_vertex_morph_offsets_from_the_vertex_selection_then_undo_and_redo() {
    let mut original = model();
    let morph = original
        .morphs
        .iter()
        .position(|m| matches!(m.offsets, MorphOffsets::Vertex(_)))
        .unwrap();
    // The generated morph moves every vertex: keep its first three offsets.
    if let MorphOffsets::Vertex(list) = &mut original.morphs[morph].offsets {
        list.truncate(3);
    }
    let MorphOffsets::Vertex(before) = &original.morphs[morph].offsets else {
        unreachable!()
    };
    // Two vertices the morph does not move yet.
    let fresh: Vec<usize> = (0..original.vertices.len())
        .filter(|&v| !before.iter().any(|o| o.vertex.get() == v))
        .take(2)
        .collect();
    assert_eq!(fresh.len(), 2);
    let mut harness = harness(original.clone());
    tab(&mut harness, "Vertices");
    click(&mut harness, &format!("vertex {}", fresh[0]));
    harness
        .get_by_label(&format!("vertex {}", fresh[1]))
        .click_modifiers(Modifiers::COMMAND);
    harness.run_ok();
    tab(&mut harness, "Morphs");
    click(&mut harness, &format!("morph {morph}"));
    click(&mut harness, "Add from selected vertices (2)");
    let MorphOffsets::Vertex(after) = &doc_model(&harness).morphs[morph].offsets else {
        panic!("still a vertex morph");
    };
    assert_eq!(after.len(), before.len() + 2);
    assert_eq!(after[before.len()].vertex.get(), fresh[0]);
    assert_eq!(after[before.len() + 1].vertex.get(), fresh[1]);
    assert_eq!(after[before.len()].offset, Vec3::ZERO);
    // Edit the new offset's y in the offset table.
    let row = before.len();
    harness
        .get_by_label(&format!("morph {morph} offsets[{row}].offset.y"))
        .set_value_accesskit(0.5);
    harness.run_ok();
    let MorphOffsets::Vertex(after) = &doc_model(&harness).morphs[morph].offsets else {
        panic!("still a vertex morph");
    };
    assert_eq!(after[row].offset, Vec3::new(0.0, 0.5, 0.0));
    let edited = doc_model(&harness).clone();
    undo(&mut harness);
    undo(&mut harness);
    assert!(*doc_model(&harness) == original);
    redo(&mut harness);
    redo(&mut harness);
    assert!(*doc_model(&harness) == edited);
}

#[test]
fn move_an_item_between_display_frames_by_drag_and_drop_then_undo_and_redo() {
    let original = model();
    // A frame with items and another frame after it.
    let from = (0..original.display_frames.len())
        .find(|&f| {
            !original.display_frames[f].items.is_empty() && f + 1 < original.display_frames.len()
        })
        .unwrap();
    let to = from + 1;
    let item = original.display_frames[from].items[0];
    let mut harness = harness(original.clone());
    tab(&mut harness, "Display frames");
    drag_onto(
        &mut harness,
        &format!("frame tree {from} item 0"),
        &format!("frame tree {to}"),
    );
    let frames = &doc_model(&harness).display_frames;
    assert_eq!(
        frames[from].items.len(),
        original.display_frames[from].items.len() - 1
    );
    assert_eq!(frames[to].items.last(), Some(&item));
    assert_eq!(
        frames[to].items.len(),
        original.display_frames[to].items.len() + 1
    );
    let edited = doc_model(&harness).clone();
    // Both frames change in one undo step.
    undo(&mut harness);
    assert!(*doc_model(&harness) == original);
    redo(&mut harness);
    assert!(*doc_model(&harness) == edited);
    assert!(matches!(item, DisplayItem::Bone(_) | DisplayItem::Morph(_)));
}

#[test]
fn change_a_joint_kind_then_undo_and_redo() {
    let original = model();
    assert!(!original.joints.is_empty());
    let old = original.joints[0].kind;
    let (new, label) = if old == JointKind::Hinge {
        (JointKind::Slider, "Slider")
    } else {
        (JointKind::Hinge, "Hinge")
    };
    let mut harness = harness(original.clone());
    tab(&mut harness, "Joints");
    click(&mut harness, "joint 0 kind");
    harness.get_by_label(label).click();
    harness.run_ok();
    assert_eq!(doc_model(&harness).joints[0].kind, new);
    undo(&mut harness);
    assert_eq!(doc_model(&harness).joints[0].kind, old);
    assert!(*doc_model(&harness) == original);
    redo(&mut harness);
    assert_eq!(doc_model(&harness).joints[0].kind, new);
}

#[test]
fn a_rigid_body_non_collision_group_is_a_check_box() {
    let original = model();
    let mut harness = harness(original.clone());
    tab(&mut harness, "Rigid bodies");
    click(&mut harness, "rigid_body 0");
    let was = original.rigid_bodies[0].non_collision_mask;
    click(&mut harness, "non_collision_mask 16");
    assert_eq!(
        doc_model(&harness).rigid_bodies[0].non_collision_mask,
        was ^ 0x8000
    );
    undo(&mut harness);
    assert_eq!(doc_model(&harness).rigid_bodies[0].non_collision_mask, was);
}
