#![allow(clippy::expect_used, clippy::unwrap_used)]
//! What the user can trust the editor with: nothing changes unless the user changes it (every
//! element of every model selected in every table and panel leaves the history empty and the
//! model's bytes as they were), undo and redo act once per key press whatever has the focus,
//! tables follow a pick in the 3D view, and the tables fit beside the 3D view at 1280 × 800 and
//! 1920 × 1080.

use egui::accesskit::Role;
use egui::{Event, Key, Modifiers, PointerButton, Pos2, Vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use pmx_core::edit::EditTarget;
use pmx_core::formats::{self, LoadOptions};
use pmx_core::generate::feature_model;
use pmx_core::model::{Bone, BoneIdx, ElementKind, Model, PmxVersion, TextEncoding, Vec4};
use pmx_ui::EditorState;
use pmx_ui::command::Command;
use pmx_ui::document::Document;
use pmx_ui::editor::MessageLevel;
use pmx_ui::editor::settings::Settings;
use pmx_ui::editor::workspace::Pane;
use pmx_ui::i18n::Language;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn editor_with(model: Model) -> EditorState {
    let mut editor = EditorState::new(Settings {
        language: Language::English,
        ..Settings::default()
    });
    editor.open_document(Document::from_model(model, None, None));
    editor
}

fn harness_sized(model: Model, size: Vec2) -> Harness<'static, EditorState> {
    build(model, size, false)
}

/// `tofu`: draw characters the bundled font lacks as boxes, as the app does (kittest panics on
/// them by default). Names in real models use characters outside the Japanese subset, and the
/// colour picker's copy button is an emoji; neither is what these tests check.
fn build(model: Model, size: Vec2, tofu: bool) -> Harness<'static, EditorState> {
    let mut builder = Harness::builder()
        .with_size(size)
        .with_context_setup(pmx_ui::editor::fonts::install);
    if tofu {
        builder = builder.allow_missing_glyphs();
    }
    let mut harness = builder.build_ui_state(
        |ui, editor: &mut EditorState| editor.ui(ui),
        editor_with(model),
    );
    harness.run_ok();
    harness
}

fn harness(model: Model) -> Harness<'static, EditorState> {
    harness_sized(model, Vec2::new(1600.0, 1000.0))
}

fn document<'a>(harness: &'a Harness<'_, EditorState>) -> &'a Document {
    harness
        .state()
        .document
        .as_ref()
        .expect("a document is open")
}

fn document_mut<'a>(harness: &'a mut Harness<'_, EditorState>) -> &'a mut Document {
    harness
        .state_mut()
        .document
        .as_mut()
        .expect("a document is open")
}

fn head(harness: &Harness<'_, EditorState>) -> usize {
    document(harness).history.head()
}

fn show_tab(harness: &mut Harness<'_, EditorState>, kind: ElementKind) {
    let pane = Pane::of_kind(kind).expect("every kind has a tab");
    harness.state_mut().show_tab(pane.name()).unwrap();
    harness.run_ok();
}

/// The lossless JSON form: equal bytes mean an equal model, bit for bit (NaNs included).
fn bytes(model: &Model) -> Vec<u8> {
    formats::json::write(model).expect("every model writes as JSON")
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/pmx")
}

/// Every PMX file of the shared corpus (empty, with a printed reason, when it is absent).
fn corpus_models() -> Vec<(String, Model)> {
    let dir = corpus_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("skipping the corpus: {} is absent", dir.display());
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pmx")))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            let options = LoadOptions::default();
            let loaded = formats::load_path(&path, &options).or_else(|_| {
                formats::load_path(
                    &path,
                    &LoadOptions {
                        recover: true,
                        ..LoadOptions::default()
                    },
                )
            });
            match loaded {
                Ok(loaded) => Some((name, loaded.model)),
                Err(error) => {
                    println!("skipping {name}: {error}");
                    None
                }
            }
        })
        .collect()
}

/// About `count` indices spread over `0..len`, with the first and the last.
fn sample(len: usize, count: usize) -> Vec<usize> {
    if len == 0 {
        return Vec::new();
    }
    let step = (len / count.max(1)).max(1);
    let mut indices: Vec<usize> = (0..len).step_by(step).collect();
    if indices.last() != Some(&(len - 1)) {
        indices.push(len - 1);
    }
    indices
}

/// Selects every element of every kind one at a time (a sample of the vertices and faces) in
/// its own tab, then all of them at once, drawing the table rows, property panels, trees and
/// offset lists each time; nothing may reach the history.
fn select_everything(name: &str, model: Model) {
    let started = Instant::now();
    let before = bytes(&model);
    let mut harness = build(model, Vec2::new(1920.0, 1080.0), true);
    harness.state_mut().show_tab("info").unwrap();
    harness.run_ok();
    let mut frames = 0usize;
    for kind in ElementKind::ALL {
        show_tab(&mut harness, kind);
        let len = document(&harness).model.count(kind);
        let one_by_one = if matches!(kind, ElementKind::Vertex | ElementKind::Face) {
            sample(len, 60)
        } else {
            (0..len).collect()
        };
        for index in one_by_one {
            document_mut(&mut harness)
                .selection
                .get_mut(kind)
                .select_only(index);
            // The frame draws the panel and scrolls the table to the row; the row's cells are
            // drawn on the next (the following element's) frame, as the rows go by in order.
            harness.step();
            frames += 1;
        }
        let selection = document_mut(&mut harness).selection.get_mut(kind);
        selection.indices.insert_range(0, len);
        selection.current = (len > 0).then_some(0);
        harness.step();
        harness.step();
        frames += 2;
        let document = document(&harness);
        assert!(
            document.history.is_empty(),
            "{name}: showing {kind:?} pushed {:?}",
            document
                .history
                .edits()
                .map(|e| e.label())
                .collect::<Vec<_>>()
        );
    }
    let document = document(&harness);
    assert!(document.history.is_empty(), "{name}: the history is empty");
    assert!(
        bytes(&document.model) == before,
        "{name}: the model is unchanged, byte for byte"
    );
    if let Some(message) = &harness.state().message {
        assert_ne!(
            message.level,
            MessageLevel::Error,
            "{name}: {}",
            message.text(Language::English)
        );
    }
    println!(
        "{name}: {frames} frames in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn selecting_every_element_of_every_model_changes_nothing() {
    let started = Instant::now();
    select_everything(
        "every-feature PMX 2.1",
        feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 24, 12),
    );
    select_everything(
        "every-feature PMX 2.0",
        feature_model(PmxVersion::V2_0, TextEncoding::Utf8, 24, 12),
    );
    for (name, model) in corpus_models() {
        select_everything(&name, model);
    }
    println!(
        "every model: {:.1} s in all",
        started.elapsed().as_secs_f64()
    );
}

/// A model whose first material is fully transparent with a colour (as 青ざめ and イライラ of
/// the Gene model): the RGB must survive being shown.
fn transparent_material_model() -> Model {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 24, 12);
    model.materials[0].diffuse = Vec4::new(0.3, 0.6, 0.9, 0.0);
    model.materials[0].edge_color = Vec4::new(0.25, 0.5, 0.75, 0.0);
    model.materials[0].specular_power = 0.123_456_79;
    model
}

#[test]
fn a_transparent_colour_keeps_its_rgb_when_shown_and_when_its_picker_opens() {
    let original = transparent_material_model();
    let before = bytes(&original);
    let mut harness = build(original, Vec2::new(1600.0, 1000.0), true);
    show_tab(&mut harness, ElementKind::Material);
    document_mut(&mut harness)
        .selection
        .get_mut(ElementKind::Material)
        .select_only(0);
    harness.run_ok();
    assert!(document(&harness).history.is_empty());
    assert_eq!(
        document(&harness).model.materials[0].diffuse,
        Vec4::new(0.3, 0.6, 0.9, 0.0)
    );
    // Open the property panel's diffuse picker and close it again with Escape.
    harness.get_by_label("diffuse colour").click();
    harness.run_ok();
    harness.key_press(Key::Escape);
    harness.run_ok();
    // The same with the edge colour (RGBA too) and the table cell's swatch.
    harness.get_by_label("edge_color colour").click();
    harness.run_ok();
    harness.key_press(Key::Escape);
    harness.run_ok();
    harness.get_by_label("material 0 diffuse colour").click();
    harness.run_ok();
    harness.key_press(Key::Escape);
    harness.run_ok();
    assert!(document(&harness).history.is_empty());
    assert!(bytes(&document(&harness).model) == before);
}

/// Presses and releases `button` at `pos` in separate frames, as a real click arrives.
fn click_at(harness: &mut Harness<'_, EditorState>, pos: Pos2, button: PointerButton) {
    harness.hover_at(pos);
    harness.step();
    for pressed in [true, false] {
        harness.event(Event::PointerButton {
            pos,
            button,
            pressed,
            modifiers: Modifiers::NONE,
        });
        harness.step();
    }
    harness.run_ok();
}

fn click_label(harness: &mut Harness<'_, EditorState>, label: &str, button: PointerButton) {
    let pos = harness.get_by_label(label).rect().center();
    click_at(harness, pos, button);
}

/// A key press with `modifiers`, down and up in separate frames.
fn press(harness: &mut Harness<'_, EditorState>, modifiers: Modifiers, key: Key) {
    for pressed in [true, false] {
        harness.event(Event::Key {
            key,
            pressed,
            modifiers,
            repeat: false,
            physical_key: None,
        });
        harness.step();
    }
    harness.run_ok();
}

#[test]
fn opening_and_leaving_widgets_changes_nothing() {
    let original = transparent_material_model();
    let before = bytes(&original);
    let mut harness = harness(original);
    show_tab(&mut harness, ElementKind::Material);
    click_label(&mut harness, "material 0", PointerButton::Primary);
    // A number shown rounded (0.1235), clicked into and left: the stored value stays.
    click_label(&mut harness, "specular_power", PointerButton::Primary);
    assert!(
        harness.ctx.memory(|m| m.focused().is_some()),
        "in text mode"
    );
    click_label(&mut harness, "material 1", PointerButton::Primary);
    click_label(&mut harness, "material 0", PointerButton::Primary);
    // A text field clicked into and left.
    click_label(&mut harness, "material 0 name_en", PointerButton::Primary);
    click_label(&mut harness, "material 1", PointerButton::Primary);
    // An index picker opened and closed.
    click_label(&mut harness, "material 0 texture", PointerButton::Primary);
    press(&mut harness, Modifiers::NONE, Key::Escape);
    click_label(&mut harness, "material 0 toon", PointerButton::Primary);
    press(&mut harness, Modifiers::NONE, Key::Escape);
    // A number dragged by nothing: pressed and released in place.
    let pos = harness.get_by_label("material 0 edge_size").rect().center();
    harness.drag_at(pos);
    harness.step();
    harness.drop_at(pos);
    harness.run_ok();
    press(&mut harness, Modifiers::NONE, Key::Escape);
    let document = document(&harness);
    assert!(
        document.history.is_empty(),
        "{:?}",
        document
            .history
            .edits()
            .map(|e| e.label())
            .collect::<Vec<_>>()
    );
    assert!(bytes(&document.model) == before);
}

/// The feature model with `steps` undoable edits of vertex 0's edge scale.
fn harness_with_steps(steps: usize) -> Harness<'static, EditorState> {
    let mut harness = harness(feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 24, 12));
    for step in 0..steps {
        harness.state_mut().push(Command::set(
            pmx_core::edit::field::<pmx_core::model::Vertex>().edge_scale(),
            vec![0],
            step as f32 + 2.0,
        ));
        harness.run_ok();
    }
    assert_eq!(head(&harness), steps);
    harness
}

fn undo(harness: &mut Harness<'_, EditorState>) {
    press(harness, Modifiers::COMMAND, Key::Z);
}

#[test]
fn ctrl_z_after_clicking_a_row_its_menu_or_a_button_undoes_exactly_one_step() {
    let mut harness = harness_with_steps(8);
    show_tab(&mut harness, ElementKind::Bone);

    // A row by its index.
    click_label(&mut harness, "bone 1", PointerButton::Primary);
    undo(&mut harness);
    assert_eq!(head(&harness), 7, "after clicking a row");

    // A row on one of its number cells: the click puts the cell in text mode.
    click_label(&mut harness, "bone 2 position.x", PointerButton::Primary);
    assert!(harness.ctx.memory(|m| m.focused().is_some()));
    undo(&mut harness);
    assert_eq!(head(&harness), 6, "after clicking a number cell");
    assert!(
        harness.ctx.memory(|m| m.focused().is_none()),
        "the cell left text mode"
    );
    // Leaving it pushed nothing: the next click and undo count one step each.
    click_label(&mut harness, "bone 3", PointerButton::Secondary);
    assert_eq!(document(&harness).history.len(), 8, "no step was added");
    press(&mut harness, Modifiers::NONE, Key::Escape);
    undo(&mut harness);
    assert_eq!(head(&harness), 5, "after right-clicking a row");

    // The context menu: Move down is one step, Ctrl+Z takes exactly it back.
    let bones_before = document(&harness).model.bones.clone();
    click_label(&mut harness, "bone 3", PointerButton::Secondary);
    click_label(&mut harness, "Move down", PointerButton::Primary);
    assert_eq!(head(&harness), 6);
    assert_eq!(document(&harness).history.len(), 6);
    undo(&mut harness);
    assert_eq!(head(&harness), 5, "after the context menu");
    assert!(document(&harness).model.bones == bones_before);

    // A button (the bone tree's Expand all).
    click_label(&mut harness, "Expand all", PointerButton::Primary);
    undo(&mut harness);
    assert_eq!(head(&harness), 4, "after a button");

    // A row of the bone tree, then the 3D view.
    click_label(&mut harness, "bone tree 2", PointerButton::Primary);
    undo(&mut harness);
    assert_eq!(head(&harness), 3, "after the tree");
    let view = {
        let tree = &harness.state().tree;
        tree.tiles
            .rect(tree.tiles.find_pane(&Pane::View).unwrap())
            .unwrap()
    };
    click_at(&mut harness, view.center(), PointerButton::Primary);
    undo(&mut harness);
    assert_eq!(head(&harness), 2, "after the 3D view");

    // Ctrl+Y and Ctrl+Shift+Z redo exactly one step each.
    press(&mut harness, Modifiers::COMMAND, Key::Y);
    assert_eq!(head(&harness), 3);
    press(&mut harness, Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    assert_eq!(head(&harness), 4);

    // Two presses that arrive in one frame are two steps.
    for _ in 0..2 {
        harness.event(Event::Key {
            key: Key::Z,
            pressed: true,
            modifiers: Modifiers::COMMAND,
            repeat: false,
            physical_key: None,
        });
    }
    harness.run_ok();
    assert_eq!(head(&harness), 2, "one step per press");
}

#[test]
fn ctrl_z_while_a_text_field_is_edited_acts_on_the_text_only() {
    let mut harness = harness_with_steps(3);
    show_tab(&mut harness, ElementKind::Bone);
    click_label(&mut harness, "bone 1", PointerButton::Primary);
    let name = document(&harness).model.bones[1].name_en.clone();
    // Type into the property panel's English name.
    click_label(&mut harness, "name_en", PointerButton::Primary);
    harness.event(Event::Text("xyz".into()));
    harness.run_ok();
    undo(&mut harness);
    undo(&mut harness);
    assert_eq!(head(&harness), 3, "the history is untouched while typing");
    press(&mut harness, Modifiers::COMMAND, Key::Y);
    assert_eq!(head(&harness), 3);
    // Escape ends the editing (cancelled): Ctrl+Z acts on the document again.
    press(&mut harness, Modifiers::NONE, Key::Escape);
    assert_eq!(document(&harness).model.bones[1].name_en, name);
    assert_eq!(document(&harness).history.len(), 3);
    undo(&mut harness);
    assert_eq!(head(&harness), 2);
}

/// `count` bones in a tree three children wide (a long table and a deep enough tree).
fn many_bones(count: usize) -> Model {
    let mut model = Model::new_empty();
    model.bones = (0..count)
        .map(|i| Bone {
            name_ja: format!("骨{i}").as_str().into(),
            name_en: format!("bone{i}").as_str().into(),
            parent: i.checked_sub(1).map(|p| BoneIdx::new(p / 3)),
            ..Bone::default()
        })
        .collect();
    model
}

/// Selects `index` of `kind` as a pick in the 3D view does (straight in the shared selection).
fn pick_as_the_view_does(harness: &mut Harness<'_, EditorState>, kind: ElementKind, index: usize) {
    let selection = document_mut(harness).selection.get_mut(kind);
    selection.clear();
    selection.indices.insert(index);
    selection.current = Some(index);
    harness.run_ok();
}

#[test]
fn a_pick_in_the_view_scrolls_the_table_and_the_tree_and_the_status_bar_counts_it() {
    let mut harness = harness(many_bones(400));
    show_tab(&mut harness, ElementKind::Bone);
    assert!(
        harness.query_by_label("bone 350").is_none(),
        "row 350 is far down"
    );
    pick_as_the_view_does(&mut harness, ElementKind::Bone, 350);
    let rects = harness.state().tables[&ElementKind::Bone]
        .rects()
        .expect("the bone table was drawn");
    let row = harness.get_by_label("bone 350").rect();
    assert!(
        rects.table.contains_rect(row),
        "row {row:?} shows in the table {:?}",
        rects.table
    );
    let tree_row = harness.get_by_label("bone tree 350").rect();
    assert!(
        tree_row.max.x < rects.table.min.x && tree_row.min.y >= rects.table.min.y - 80.0,
        "the tree row {tree_row:?} is in view beside the table"
    );
    assert!(tree_row.max.y <= rects.table.max.y + 1.0);
    let lang = Language::English;
    let status = |count: usize, key: &'static str| {
        lang.format(
            "status.selected",
            &[("count", &count), ("kind", &lang.tr(key))],
        )
    };
    harness.get_by_label(&status(1, "kind.bones"));

    // A pick of another kind than the table shown: the status bar follows it at once.
    pick_as_the_view_does(&mut harness, ElementKind::Material, 0);
    assert_eq!(
        harness.state().status_selection_kind(),
        Some(ElementKind::Material)
    );
    harness.get_by_label(&status(1, "kind.materials"));
    // Back up the table: a pick of bone 5 scrolls back.
    pick_as_the_view_does(&mut harness, ElementKind::Bone, 5);
    let rects = harness.state().tables[&ElementKind::Bone].rects().unwrap();
    assert!(
        rects
            .table
            .contains_rect(harness.get_by_label("bone 5").rect())
    );
    harness.get_by_label(&status(1, "kind.bones"));
}

#[test]
fn tables_and_property_panels_fit_beside_the_view_at_1280_and_1920() {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 24, 12);
    // Names as long as real ones.
    for (i, bone) in model.bones.iter_mut().enumerate() {
        bone.name_ja = format!("左足ＩＫ親{i}").as_str().into();
        bone.name_en = format!("leg IK parent L {i}").as_str().into();
    }
    for size in [Vec2::new(1280.0, 800.0), Vec2::new(1920.0, 1080.0)] {
        let mut harness = harness_sized(model.clone(), size);
        let view = {
            let tree = &harness.state().tree;
            let id = tree.tiles.find_pane(&Pane::View).expect("the 3D view");
            tree.tiles.rect(id).expect("the 3D view is laid out")
        };
        assert!(
            view.width() >= size.x / 3.0,
            "{size:?}: the 3D view is {} wide",
            view.width()
        );
        for kind in [
            ElementKind::Bone,
            ElementKind::Morph,
            ElementKind::Material,
            ElementKind::DisplayFrame,
            ElementKind::RigidBody,
            ElementKind::Joint,
        ] {
            show_tab(&mut harness, kind);
            harness.state_mut().select_first(kind);
            harness.run_ok();
            let rects = harness.state().tables[&kind]
                .rects()
                .unwrap_or_else(|| panic!("{kind:?} table drawn"));
            assert!(
                rects.table.max.x <= rects.properties.min.x + 0.5,
                "{size:?} {kind:?}: the property panel {:?} is beside the table {:?}",
                rects.properties,
                rects.table
            );
            assert!(rects.properties.width() >= 199.0, "{kind:?} panel width");
            assert!(!rects.table.intersects(view), "{kind:?} beside the view");
            let target = EditTarget::from(kind).name();
            for label in [
                format!("{} 0", kind.name()),
                format!("{target} 0 name_ja"),
                format!("{target} 0 name_en"),
            ] {
                let cell = harness.get_by_label(&label).rect();
                assert!(
                    rects.table.contains_rect(cell),
                    "{size:?} {kind:?}: {label} {cell:?} is inside the table {:?}",
                    rects.table
                );
            }
        }
    }
}

#[test]
fn special_display_frames_are_not_offered_for_deletion() {
    let mut harness = harness(feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 24, 12));
    let frames = document(&harness).model.display_frames.clone();
    assert!(frames[0].special && frames[1].special && !frames[2].special);
    show_tab(&mut harness, ElementKind::DisplayFrame);
    // The context menu of Root: Delete is there but off.
    click_label(&mut harness, "display_frame 0", PointerButton::Secondary);
    let delete = harness.get_by_role_and_label(Role::Button, "Delete");
    assert!(
        delete.accesskit_node().is_disabled(),
        "Delete is off for Root"
    );
    press(&mut harness, Modifiers::NONE, Key::Escape);
    // The Delete key on Root, then on 表情 with an ordinary frame: only the ordinary one goes.
    click_label(&mut harness, "display_frame 0", PointerButton::Primary);
    press(&mut harness, Modifiers::NONE, Key::Delete);
    assert!(document(&harness).history.is_empty());
    assert_eq!(document(&harness).model.display_frames.len(), frames.len());
    click_label(&mut harness, "display_frame 1", PointerButton::Primary);
    harness
        .get_by_label("display_frame 2")
        .click_modifiers(Modifiers::COMMAND);
    harness.run_ok();
    press(&mut harness, Modifiers::NONE, Key::Delete);
    let model = &document(&harness).model;
    assert_eq!(model.display_frames.len(), frames.len() - 1);
    assert!(model.display_frames[0] == frames[0] && model.display_frames[1] == frames[1]);
    assert!(
        harness
            .state()
            .message
            .as_ref()
            .is_none_or(|m| m.level != MessageLevel::Error)
    );
}
