#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The editor driven through its UI with egui_kittest: widgets found by their labels, clicked
//! and typed into, and the document checked afterwards.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::formats::{self, SaveOptions};
use pmx_core::generate::feature_model;
use pmx_core::model::{ElementKind, Model, PmxVersion, TextEncoding};
use pmx_ui::EditorState;
use pmx_ui::command::Command;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::i18n::Language;
use std::time::{Duration, Instant};

mod support;

fn english_editor() -> EditorState {
    EditorState::new(Settings {
        language: Language::English,
        ..Settings::default()
    })
}

fn harness(editor: EditorState) -> Harness<'static, EditorState> {
    harness_sized(editor, egui::Vec2::new(1500.0, 900.0))
}

/// The pose pane sits among many tabs beside the 3D view: its tests use a bigger window.
fn harness_sized(editor: EditorState, size: egui::Vec2) -> Harness<'static, EditorState> {
    Harness::builder()
        .with_size(size)
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor)
}

/// A small PMX 2.1 model using every feature.
fn model() -> Model {
    feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 24, 4)
}

fn with_document(model: Model) -> Harness<'static, EditorState> {
    let mut editor = english_editor();
    editor.open_document(Document::from_model(model, None, None));
    let mut harness = harness(editor);
    harness.run_ok();
    harness
}

fn with_document_wide(model: Model) -> Harness<'static, EditorState> {
    let mut editor = english_editor();
    editor.open_document(Document::from_model(model, None, None));
    let mut harness = harness_sized(editor, egui::Vec2::new(2600.0, 1400.0));
    harness.run_ok();
    harness
}

/// Steps frames until the background load is done.
fn wait_for_load(harness: &mut Harness<'_, EditorState>) {
    let started = Instant::now();
    while harness.state().loading.is_some() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "load did not finish"
        );
        harness.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    harness.run_ok();
}

fn click(harness: &mut Harness<'_, EditorState>, label: &str) {
    harness.get_by_label(label).click();
    harness.run_ok();
}

/// Clicks menu `menu`, then its item labelled `item` (menu items carry their shortcut in the
/// label: "Save Ctrl+S").
fn menu(harness: &mut Harness<'_, EditorState>, menu: &str, item: &str) {
    click(harness, menu);
    click(harness, item);
}

/// Shows a tab (tabs are buttons; the Info tab's counts use the same words as labels).
fn tab(harness: &mut Harness<'_, EditorState>, name: &str) {
    harness.get_by_role_and_label(Role::Button, name).click();
    harness.run_ok();
}

/// A text field by its name (a visible label beside it often has the same text).
fn field<'h>(harness: &'h Harness<'_, EditorState>, name: &'h str) -> egui_kittest::Node<'h> {
    harness
        .query_by_role_and_label(Role::TextInput, name)
        .or_else(|| harness.query_by_role_and_label(Role::MultilineTextInput, name))
        .unwrap_or_else(|| panic!("no text field named {name}"))
}

fn document<'a>(harness: &'a Harness<'_, EditorState>) -> &'a Document {
    harness
        .state()
        .document
        .as_ref()
        .expect("a document is open")
}

#[test]
fn open_edit_a_vertex_in_the_table_and_undo() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("generated.pmx");
    let original = model();
    formats::save_path(&original, &path, &SaveOptions::default()).unwrap();

    let mut harness = harness(english_editor());
    harness.run_ok();
    // Open through File → Open… and the built-in path field.
    menu(&mut harness, "File", "Open… Ctrl+O");
    field(&harness, "Path").set_text_value_accesskit(&path.display().to_string());
    harness.run_ok();
    click(&mut harness, "Open");
    wait_for_load(&mut harness);
    assert_eq!(
        document(&harness).model.vertices.len(),
        original.vertices.len()
    );
    assert_eq!(harness.state().title(), "generated.pmx - PMX Studio");

    tab(&mut harness, "Vertices");
    let before = document(&harness).model.vertices[0].position;
    harness
        .get_by_label("vertex 0 position.x")
        .set_value_accesskit(1.25);
    harness.run_ok();
    let after = &document(&harness).model.vertices[0];
    assert_eq!(after.position.x, 1.25);
    assert_eq!(after.position.y, before.y);
    assert!(document(&harness).is_dirty());
    assert_eq!(harness.state().title(), "generated.pmx* - PMX Studio");

    // Undo from the Edit menu, whose item names the step.
    click(&mut harness, "Edit");
    harness
        .get_by_label_contains("Undo: Set position.x of vertex 0")
        .click();
    harness.run_ok();
    assert_eq!(document(&harness).model.vertices[0].position, before);
    assert!(!document(&harness).is_dirty());
    let on_disk = formats::load_path(&path, &Default::default())
        .unwrap()
        .model;
    assert!(
        document(&harness).model == on_disk,
        "undo restores the model as read"
    );

    // Redo with Ctrl+Y, undo again with Ctrl+Z.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Y);
    harness.run_ok();
    assert_eq!(document(&harness).model.vertices[0].position.x, 1.25);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert_eq!(document(&harness).model.vertices[0].position, before);
    // Ctrl+Shift+Z redoes too.
    harness.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::Z,
    );
    harness.run_ok();
    assert_eq!(document(&harness).model.vertices[0].position.x, 1.25);
}

#[test]
fn deleting_a_material_from_its_context_menu_removes_its_faces() {
    let original = model();
    assert!(original.materials.len() >= 3);
    let mut harness = with_document(original.clone());
    tab(&mut harness, "Materials");
    harness.get_by_label("material 1").click_secondary();
    harness.run_ok();
    click(&mut harness, "Delete");

    let first = original.materials[0].face_index_count as usize / 3;
    let second = original.materials[1].face_index_count as usize / 3;
    assert!(second > 0);
    let mut expected_faces = original.faces.clone();
    expected_faces.drain(first..first + second);
    let model = &document(&harness).model;
    assert_eq!(model.materials.len(), original.materials.len() - 1);
    assert_eq!(model.materials[1].name_ja, original.materials[2].name_ja);
    assert_eq!(model.faces, expected_faces);
    // The vertices stay (plain Delete); undo brings the material and its faces back.
    assert_eq!(model.vertices.len(), original.vertices.len());
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(
        document(&harness).model == original,
        "the model is back as it was"
    );
}

#[test]
fn closing_with_unsaved_changes_asks_first() {
    let mut harness = with_document(model());
    harness.state_mut().push(Command::set(
        pmx_core::edit::field::<pmx_core::model::ModelInfo>().name_ja(),
        Vec::new(),
        "変更".into(),
    ));
    harness.run_ok();
    assert!(document(&harness).is_dirty());

    menu(&mut harness, "File", "Close Ctrl+W");
    assert!(harness.state().is_asking_to_save());
    harness.get_by_label("Unsaved changes");
    click(&mut harness, "Cancel");
    assert!(!harness.state().is_asking_to_save());
    assert!(harness.state().document.is_some());

    // The window's close button asks the same question.
    harness.state_mut().request_quit();
    harness.run_ok();
    assert!(harness.state().is_asking_to_save());
    assert!(!harness.state().quit_confirmed());
    click(&mut harness, "Cancel");

    menu(&mut harness, "File", "Close Ctrl+W");
    click(&mut harness, "Don't save");
    assert!(harness.state().document.is_none());
    assert!(!harness.state().is_asking_to_save());
}

#[test]
fn a_clean_document_closes_without_asking() {
    let mut harness = with_document(model());
    menu(&mut harness, "File", "Close Ctrl+W");
    assert!(!harness.state().is_asking_to_save());
    assert!(harness.state().document.is_none());
    harness.state_mut().request_quit();
    harness.run_ok();
    assert!(harness.state().quit_confirmed());
    assert_eq!(
        harness.state_mut().take_platform_requests(),
        vec![pmx_ui::editor::PlatformRequest::Quit]
    );
}

#[test]
fn shift_click_selects_a_range_and_the_property_panel_edits_all_of_it() {
    let original = model();
    let mut harness = with_document(original.clone());
    tab(&mut harness, "Vertices");
    harness.get_by_label("vertex 1").click();
    harness.run_ok();
    harness
        .get_by_label("vertex 4")
        .click_modifiers(egui::Modifiers::SHIFT);
    harness.run_ok();
    harness
        .get_by_label("vertex 6")
        .click_modifiers(egui::Modifiers::COMMAND);
    harness.run_ok();
    let selected = document(&harness)
        .selection
        .get(ElementKind::Vertex)
        .targets();
    assert_eq!(selected, vec![1, 2, 3, 4, 6]);
    harness.get_by_label("Editing 5 at once");

    // The property panel's field (named by its path) sets all five in one step.
    harness.get_by_label("edge_scale").set_value_accesskit(2.5);
    harness.run_ok();
    let model = &document(&harness).model;
    for (i, vertex) in model.vertices.iter().enumerate() {
        let expected = if selected.contains(&i) {
            2.5
        } else {
            original.vertices[i].edge_scale
        };
        assert_eq!(vertex.edge_scale, expected, "vertex {i}");
    }
    assert_eq!(document(&harness).history.len(), 1);
    click(&mut harness, "Edit");
    harness
        .get_by_label_contains("Undo: Set edge_scale of 5 vertices")
        .click();
    harness.run_ok();
    assert!(
        document(&harness).model == original,
        "the model is back as it was"
    );

    // Ctrl+A selects every row of the table worked in last.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.run_ok();
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Vertex)
            .indices
            .len(),
        original.vertices.len()
    );
}

#[test]
fn context_menu_duplicates_and_moves_rows_and_the_selection_follows() {
    let original = model();
    let mut harness = with_document(original.clone());
    tab(&mut harness, "Textures");
    harness.get_by_label("texture 0").click_secondary();
    harness.run_ok();
    click(&mut harness, "Duplicate");
    let model = &document(&harness).model;
    assert_eq!(model.textures.len(), original.textures.len() + 1);
    assert_eq!(model.textures[1], original.textures[0]);
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Texture)
            .targets(),
        vec![1]
    );

    harness.get_by_label("texture 1").click_secondary();
    harness.run_ok();
    click(&mut harness, "Move down");
    let model = &document(&harness).model;
    assert_eq!(model.textures[2], original.textures[0]);
    assert_eq!(model.textures[1], original.textures[1]);
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Texture)
            .targets(),
        vec![2]
    );
}

#[test]
fn sort_filter_and_go_to_index() {
    let original = model();
    let mut harness = with_document(original.clone());
    tab(&mut harness, "Vertices");
    // Sort by position (its x) ascending.
    click(&mut harness, "Position");
    let shown = harness.state().tables[&ElementKind::Vertex].shown_indices();
    let xs: Vec<f32> = shown
        .iter()
        .map(|&i| original.vertices[i].position.x)
        .collect();
    assert!(xs.windows(2).all(|w| w[0] <= w[1]), "{xs:?}");
    assert_eq!(shown.len(), original.vertices.len());
    // Descending, then back to file order.
    click(&mut harness, "Position ▲");
    let shown = harness.state().tables[&ElementKind::Vertex].shown_indices();
    assert!(
        shown
            .windows(2)
            .all(|w| original.vertices[w[0]].position.x >= original.vertices[w[1]].position.x)
    );
    click(&mut harness, "Position ▼");
    let shown = harness.state().tables[&ElementKind::Vertex].shown_indices();
    assert_eq!(shown, (0..original.vertices.len()).collect::<Vec<_>>());

    field(&harness, "Range").set_text_value_accesskit("2-4, 10");
    harness.run_ok();
    assert_eq!(
        harness.state().tables[&ElementKind::Vertex].shown_indices(),
        vec![2, 3, 4, 10]
    );
    field(&harness, "Range").set_text_value_accesskit("");
    harness.run_ok();

    field(&harness, "Go to").set_text_value_accesskit("17");
    harness.run_ok();
    click(&mut harness, "Go");
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Vertex)
            .targets(),
        vec![17]
    );
}

#[test]
fn text_filter_matches_material_names() {
    let original = model();
    let name = original.materials[2].name_ja.as_str().into_owned();
    let mut harness = with_document(original.clone());
    tab(&mut harness, "Materials");
    field(&harness, "Filter").set_text_value_accesskit(&name);
    harness.run_ok();
    let shown = harness.state().tables[&ElementKind::Material].shown_indices();
    assert!(shown.contains(&2));
    for i in shown {
        assert!(original.materials[i].name_ja.as_str().contains(&name));
    }
}

#[test]
fn history_panel_jumps_to_a_step() {
    let original = model();
    let mut harness = with_document(original.clone());
    for value in [1.0, 2.0, 3.0] {
        harness.state_mut().push(Command::set(
            pmx_core::edit::field::<pmx_core::model::Vertex>().edge_scale(),
            vec![0],
            value,
        ));
        harness.run_ok();
    }
    assert_eq!(document(&harness).history.len(), 3);
    tab(&mut harness, "History");
    click(&mut harness, "1. Set edge_scale of vertex 0");
    assert_eq!(document(&harness).model.vertices[0].edge_scale, 1.0);
    assert_eq!(document(&harness).history.head(), 1);
    click(&mut harness, "(as opened)");
    assert!(
        document(&harness).model == original,
        "the model is back as it was"
    );
    click(&mut harness, "3. Set edge_scale of vertex 0");
    assert_eq!(document(&harness).model.vertices[0].edge_scale, 3.0);
}

#[test]
fn save_as_writes_the_chosen_version_and_clears_the_star() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("saved.pmx");
    let mut original = model();
    original.header.version = PmxVersion::V2_0;
    // A PMX 2.1 feature: a 2.0 target must refuse it and say where.
    original.materials[0].draw_flags |= pmx_core::model::DrawFlags::POINT;
    let mut harness = with_document(original.clone());
    harness.state_mut().push(Command::set(
        pmx_core::edit::field::<pmx_core::model::ModelInfo>().comment_en(),
        Vec::new(),
        "saved by a test".into(),
    ));
    harness.run_ok();
    menu(&mut harness, "File", "Save as… Ctrl+Shift+S");
    field(&harness, "Path").set_text_value_accesskit(&path.display().to_string());
    harness.run_ok();
    harness.get_by_label_contains("cannot be saved as PMX 2.0");
    // The dialog lists the validator's errors for the target: path, then message.
    harness.get_by_label_contains("materials[0].draw_flags  ");
    click(&mut harness, "PMX 2.1");
    click(&mut harness, "UTF-8");
    click(&mut harness, "Save");
    assert!(!document(&harness).is_dirty());
    assert_eq!(harness.state().title(), "saved.pmx - PMX Studio");
    let saved = formats::load_path(&path, &Default::default())
        .unwrap()
        .model;
    assert_eq!(saved.header.version, PmxVersion::V2_1);
    assert_eq!(saved.header.encoding, TextEncoding::Utf8);
    assert_eq!(saved.info.comment_en.as_str(), "saved by a test");
    assert_eq!(saved.vertices, original.vertices);
    assert_eq!(saved.materials, original.materials);
    assert!(
        harness
            .state()
            .settings
            .recent_files
            .iter()
            .any(|p| p.ends_with("saved.pmx"))
    );
}

#[test]
fn a_broken_file_shows_the_readers_message_and_opens_in_recovery_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.pmx");
    let (bytes, _) = pmx_core::formats::pmx::write(&model(), &Default::default()).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let mut harness = harness(english_editor());
    harness.state_mut().push(Command::Open(path.clone()));
    harness.run_ok();
    wait_for_load(&mut harness);
    harness.get_by_label("Cannot open cut.pmx");
    assert!(harness.get_all_by_label_contains("at byte").count() >= 1);
    click(&mut harness, "Open in recovery mode");
    wait_for_load(&mut harness);
    let document = document(&harness);
    assert!(
        document
            .load_report
            .as_ref()
            .unwrap()
            .recovered_from
            .is_some()
    );
    harness.get_by_label("Notes from reading");
}

#[test]
fn the_ui_language_and_the_names_switch() {
    let mut harness = with_document(model());
    click(&mut harness, "View");
    click(&mut harness, "Language / 言語");
    click(&mut harness, "日本語");
    harness.run_ok();
    assert_eq!(harness.state().lang(), Language::Japanese);
    harness.get_by_role_and_label(Role::Button, "頂点");
    harness.get_by_role_and_label(Role::Button, "材質");
    harness.get_by_label("ファイル");
}

#[test]
fn new_model_has_the_root_and_expression_frames() {
    let mut harness = harness(english_editor());
    harness.run_ok();
    menu(&mut harness, "File", "New Ctrl+N");
    let document = document(&harness);
    assert_eq!(document.model.display_frames.len(), 2);
    assert_eq!(document.model.display_frames[1].name_ja.as_str(), "表情");
    assert!(!document.is_dirty());
    assert_eq!(harness.state().title(), "untitled - PMX Studio");
}

#[test]
fn editing_the_model_name_in_the_info_tab() {
    let mut harness = harness(english_editor());
    harness.run_ok();
    menu(&mut harness, "File", "New Ctrl+N");
    tab(&mut harness, "Info");
    field(&harness, "Name").focus();
    harness.run_ok();
    field(&harness, "Name").type_text("テストモデル");
    harness.run_ok();
    harness.key_press(egui::Key::Enter);
    harness.run_ok();
    assert_eq!(
        document(&harness).model.info.name_ja.as_str(),
        "テストモデル"
    );
    assert_eq!(document(&harness).history.len(), 1);
}

/// A small model the validator has nothing to say about: one bone, one triangle, one material.
fn clean_model() -> Model {
    use pmx_core::model::{Bone, Material, Vec3, Vertex, VertexIdx, Weight};
    let mut model = Model::new_empty();
    model.info.name_ja = "検証用".into();
    model.bones.push(Bone {
        name_ja: "センター".into(),
        name_en: "center".into(),
        ..Bone::default()
    });
    model.display_frames[0]
        .items
        .push(pmx_core::model::DisplayItem::Bone(Some(
            pmx_core::model::BoneIdx::new(0),
        )));
    for position in [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        model.vertices.push(Vertex {
            position: Vec3::from(position),
            normal: Vec3::new(0.0, 0.0, -1.0),
            weight: Weight::Bdef1 {
                bone: Some(pmx_core::model::BoneIdx::new(0)),
            },
            ..Vertex::default()
        });
    }
    model.faces.push([VertexIdx(0), VertexIdx(1), VertexIdx(2)]);
    model.materials.push(Material {
        name_ja: "材質".into(),
        name_en: "material".into(),
        face_index_count: 3,
        ..Material::default()
    });
    model
}

#[test]
fn validation_issues_select_their_element_and_fix_as_one_step() {
    let mut broken = clean_model();
    broken.vertices[2].normal = pmx_core::model::Vec3::new(0.0, 0.0, -2.0);
    let mut editor = english_editor();
    editor.open_document(Document::from_model(broken.clone(), None, None));
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(1500.0, 1400.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    tab(&mut harness, "Validation");
    let codes: Vec<&str> = harness
        .state()
        .validation
        .issues
        .iter()
        .map(|i| i.code)
        .collect();
    assert!(codes.contains(&"W-NORMAL-LENGTH"), "{codes:?}");

    // The path is a link to the element.
    click(&mut harness, "vertices[2].normal");
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Vertex)
            .targets(),
        vec![2]
    );
    assert!(
        pmx_ui::editor::workspace::visible_panes(&harness.state().tree)
            .contains(&pmx_ui::editor::workspace::Pane::Vertices)
    );

    // Fix this one issue: one undo step; the list refreshes after the edit.
    click(&mut harness, "Fix vertices[2].normal");
    harness.run_ok();
    assert_eq!(
        document(&harness).model.vertices[2].normal,
        pmx_core::model::Vec3::new(0.0, 0.0, -1.0)
    );
    assert_eq!(document(&harness).history.len(), 1);
    let codes: Vec<&str> = harness
        .state()
        .validation
        .issues
        .iter()
        .map(|i| i.code)
        .collect();
    assert!(!codes.contains(&"W-NORMAL-LENGTH"), "{codes:?}");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(document(&harness).model == broken);

    // Fix all: the whole repair is one step too.
    harness.get_by_label_contains("Fix all").click();
    harness.run_ok();
    assert_eq!(document(&harness).model.vertices[2].normal.z, -1.0);
    assert_eq!(document(&harness).history.head(), 1);
    assert!(
        document(&harness)
            .history
            .undo_label()
            .unwrap()
            .starts_with("Repair")
    );
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(document(&harness).model == broken);
}

#[test]
fn export_pmd_lists_what_pmd_loses_then_writes_a_pmd_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("exported.pmd");
    let original = model();
    let mut harness = with_document(original.clone());
    click(&mut harness, "File");
    harness.get_by_label_contains("Export PMD").click();
    harness.run_ok();
    field(&harness, "Path").set_text_value_accesskit(&path.display().to_string());
    harness.run_ok();
    // The feature model uses BDEF4/SDEF/QDEF and morphs PMD has no place for: the dialog lists
    // them before anything is written, as `check --target pmd` does.
    harness.get_by_label_contains("things (they are lost when saved as PMD)");
    harness.get_by_label("vertices[12].weight  vertex 12 is BDEF4; PMD holds BDEF1/BDEF2 only");
    click(&mut harness, "Export");
    let saved = formats::load_path(&path, &Default::default()).unwrap();
    assert_eq!(saved.format, formats::FileFormat::Pmd);
    assert_eq!(saved.model.vertices.len(), original.vertices.len());
    assert_eq!(saved.model.faces, original.faces);
    assert_eq!(saved.model.bones.len(), original.bones.len());
    assert_eq!(
        saved.model.materials.len(),
        original.materials.len(),
        "materials"
    );
    assert!(!document(&harness).is_dirty());
}

#[test]
fn posing_changes_nothing_until_applied_as_rest_or_saved_as_a_bone_morph() {
    let original = model();
    let mut harness = with_document_wide(original.clone());
    tab(&mut harness, "Pose");
    // A bone picked in the list becomes the bone selection the other tabs share.
    let bone = 1;
    let name = original.bones[bone].name_ja.as_str().into_owned();
    harness
        .get_by_label_contains(&format!("   {bone}  {name}"))
        .click();
    harness.run_ok();
    assert_eq!(
        document(&harness).selection.get(ElementKind::Bone).current,
        Some(bone)
    );
    {
        let editor = harness.state_mut();
        let model = editor.document.as_ref().unwrap().model.clone();
        editor
            .pose
            .set_bone_rotation(&model, bone, glam::Vec3::new(0.0, 0.0, 40.0));
        editor.pose.set_morph(0, 1.0);
    }
    harness.run_ok();
    // Posed and evaluated, but the document is untouched.
    let posed = harness
        .state_mut()
        .pose
        .deformed_positions()
        .unwrap()
        .to_vec();
    assert_eq!(posed.len(), original.vertices.len());
    assert!(
        posed
            .iter()
            .zip(&original.vertices)
            .any(|(p, v)| (*p - glam::Vec3::from(v.position)).length() > 1e-3)
    );
    assert!(!document(&harness).is_dirty());
    assert!(document(&harness).model == original);
    harness.get_by_label_contains("1 bones posed");

    // Save as bone morph: one more morph holding the bone's rotation.
    field(&harness, "Morph name").set_text_value_accesskit("ポーズ1");
    harness.run_ok();
    click(&mut harness, "Save pose as bone morph");
    let saved = document(&harness).model.morphs.last().unwrap().clone();
    assert_eq!(
        document(&harness).model.morphs.len(),
        original.morphs.len() + 1
    );
    assert_eq!(saved.name_ja.as_str(), "ポーズ1");
    match &saved.offsets {
        pmx_core::model::MorphOffsets::Bone(offsets) => {
            assert_eq!(offsets.len(), 1);
            assert_eq!(offsets[0].bone.map(|b| b.get()), Some(bone));
        }
        other => panic!("not a bone morph: {other:?}"),
    }

    // Apply as rest: one undoable step that moves the vertices where the pose put them.
    let pose = harness.state().pose.pose.clone();
    let morphs_before = document(&harness).model.clone();
    let (expected, _) = pmx_core::pose::apply_pose_as_rest(&morphs_before, &pose).unwrap();
    assert!(!pose.is_rest(), "saving a bone morph keeps the pose");
    click(&mut harness, "Apply pose as rest");
    assert!(document(&harness).model == expected);
    assert!(harness.state().pose.pose.is_rest(), "the pose resets");
    assert_eq!(
        document(&harness).history.undo_label(),
        Some("Apply pose as rest")
    );
    menu(&mut harness, "Edit", "Undo: Apply pose as rest Ctrl+Z");
    assert!(document(&harness).model == morphs_before);
}

#[test]
fn pose_pane_saves_and_loads_vpd_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pose.vpd");
    let original = model();
    let mut harness = with_document_wide(original.clone());
    tab(&mut harness, "Pose");
    {
        let editor = harness.state_mut();
        let model = editor.document.as_ref().unwrap().model.clone();
        editor
            .pose
            .set_bone_rotation(&model, 2, glam::Vec3::new(10.0, 20.0, 30.0));
        editor.pose.set_morph(0, 0.5);
    }
    harness.run_ok();
    let posed = harness.state().pose.pose.clone();
    field(&harness, "Pose/motion file").set_text_value_accesskit(&path.display().to_string());
    harness.run_ok();
    click(&mut harness, "Save VPD");
    assert!(path.exists());
    click(&mut harness, "Reset pose");
    assert!(harness.state().pose.pose.is_rest());
    click(&mut harness, "Load VPD");
    let loaded = &harness.state().pose.pose;
    // VPD keeps rotations as decimal text: equal within its printed precision.
    assert!(
        loaded.bones[2]
            .rotation
            .angle_between(posed.bones[2].rotation)
            < 1e-4
    );
    assert_eq!(loaded.morphs[0], 0.5);
    assert_eq!(
        loaded.bones.iter().filter(|b| !b.is_rest()).count(),
        1,
        "only the posed bone is in the file"
    );
    harness.get_by_label_contains("1 / 1 bones, 1 / 1 morphs matched");
    assert!(
        document(&harness).model == original,
        "the model is untouched"
    );
}

#[test]
fn pose_pane_scrubs_a_vmd_motion() {
    let Some((model, motion_path)) = support::gene_and_nod_motion() else {
        return;
    };
    let mut harness = with_document_wide(model);
    tab(&mut harness, "Pose");
    field(&harness, "Pose/motion file")
        .set_text_value_accesskit(&motion_path.display().to_string());
    harness.run_ok();
    click(&mut harness, "Load VMD");
    harness.get_by_label_contains("Motion mmdagent_ex_nod.vmd");
    let last = harness.state().pose.motion_last_frame().unwrap();
    assert!(last > 0);
    let at = |harness: &mut Harness<'_, EditorState>, frame: f32| {
        harness.state_mut().pose.set_frame(frame);
        harness.run_ok();
        harness.state().pose.pose.clone()
    };
    let start = at(&mut harness, 0.0);
    let moving = (1..=last).find(|&f| at(&mut harness, f as f32) != start);
    let moving = moving.unwrap_or_else(|| panic!("the nod moves within its {last} frames"));
    at(&mut harness, moving as f32);
    assert!(harness.state_mut().pose.deformed_positions().is_some());
    assert!(!document(&harness).is_dirty());
}

/// Selects vertices 0 and 5 (what the transform tests move); returns the editor to set more.
fn select_vertices_0_and_5<'h>(harness: &'h mut Harness<'_, EditorState>) -> &'h mut EditorState {
    let editor = harness.state_mut();
    let selection = editor
        .document
        .as_mut()
        .unwrap()
        .selection
        .get_mut(ElementKind::Vertex);
    selection.indices.insert(0);
    selection.indices.insert(5);
    editor
}

#[test]
fn the_view_moves_the_selected_vertices_by_numbers_as_one_step() {
    let original = model();
    let mut harness = with_document(original.clone());
    let editor = select_vertices_0_and_5(&mut harness);
    editor.view.transform.translate = glam::Vec3::new(0.0, 1.5, 0.0);
    harness.run_ok();
    click(&mut harness, "Apply move");
    let moved = &document(&harness).model.vertices;
    for v in [0, 5] {
        assert_eq!(moved[v].position.y, original.vertices[v].position.y + 1.5);
        assert_eq!(moved[v].position.x, original.vertices[v].position.x);
    }
    assert_eq!(moved[1], original.vertices[1]);
    assert_eq!(
        document(&harness).history.undo_label(),
        Some("Move 2 vertices")
    );
    harness.state_mut().push(Command::Undo);
    harness.run_ok();
    assert!(document(&harness).model == original);
}

#[test]
fn dragging_the_gizmo_moves_the_selection_along_x_as_one_step() {
    let original = model();
    let mut harness = with_document(original.clone());
    let editor = select_vertices_0_and_5(&mut harness);
    editor.view.gizmo.mode = pmx_ui::panes::view::gizmo::GizmoMode::Move;
    harness.run_ok();
    {
        // 選択を画面に合わせる: the selection in the middle of the view.
        let editor = harness.state_mut();
        let document = editor.document.as_ref().unwrap();
        editor.view.frame_selection(document);
    }
    harness.run_ok();
    let (rect, layout) = {
        let editor = harness.state_mut();
        let rect = editor.view.last_rect.expect("the view was drawn");
        let document = editor.document.as_ref().unwrap();
        let centre =
            pmx_ui::panes::view::transform::selection_centre(document, ElementKind::Vertex)
                .expect("a selection");
        let size = glam::Vec2::new(rect.width(), rect.height());
        let layout = pmx_ui::panes::view::gizmo::Layout::new(&editor.view.camera, size, centre)
            .expect("the selection is in front of the camera");
        (rect, layout)
    };
    let tip = layout.tips[0].expect("X tip on screen");
    let along = (tip - layout.centre).normalize();
    let at = |d: f32| {
        let p = layout.centre + along * d;
        rect.min + egui::vec2(p.x, p.y)
    };
    let grab = at(60.0);
    harness.event(egui::Event::PointerMoved(grab));
    harness.step();
    harness.event(egui::Event::PointerButton {
        pos: grab,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    harness.step();
    // Several frames of dragging: each is an edit of the same gesture.
    for d in [70.0, 80.0, 100.0, 120.0, 150.0] {
        harness.event(egui::Event::PointerMoved(at(d)));
        harness.step();
    }
    harness.event(egui::Event::PointerButton {
        pos: at(150.0),
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    harness.run_ok();
    let document = document(&harness);
    let moved = &document.model.vertices;
    // 90 pixels of drag along the axis: one gizmo length (90 px) in model units.
    let expected = layout.length;
    for v in [0, 5] {
        let dx = moved[v].position.x - original.vertices[v].position.x;
        assert!(
            (dx - expected).abs() < 0.05 * expected,
            "vertex {v} moved {dx}, expected {expected}"
        );
        assert!((moved[v].position.y - original.vertices[v].position.y).abs() < 1e-4);
        assert!((moved[v].position.z - original.vertices[v].position.z).abs() < 1e-4);
    }
    assert_eq!(moved[1], original.vertices[1]);
    assert_eq!(document.history.len(), 1, "one drag, one undo step");
    assert_eq!(document.history.undo_label(), Some("Move 2 vertices"));
    assert!(harness.state().view.gizmo.drag.is_none());
    harness.state_mut().push(Command::Undo);
    harness.run_ok();
    assert!(harness.state().document.as_ref().unwrap().model == original);
}
