//! File > Export SMF and File > Open of an `.smf` through the real editor: the dialog from the
//! menu with the counts and every loss before writing, a collision material picked from the
//! model's materials, a motion picked by the (simulated) file dialog, the export written and
//! read back, the document unchanged; an opened SMF is an import, never saved back to.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::formats::smf::{SmfExportOptions, read_smf, write_smf};
use pmx_core::formats::{self, FileFormat, cp932};
use pmx_core::generate::feature_model;
use pmx_core::model::{Model, PmxVersion, TextEncoding};
use pmx_ui::EditorState;
use pmx_ui::command::Command;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::editor::{BrowsePurpose, PlatformRequest};
use pmx_ui::i18n::Language;
use std::path::Path;
use std::time::{Duration, Instant};

fn editor(language: Language) -> EditorState {
    EditorState::new(Settings {
        language,
        ..Settings::default()
    })
}

fn harness(editor: EditorState) -> Harness<'static, EditorState> {
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(1500.0, 1000.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    harness
}

fn model() -> Model {
    feature_model(PmxVersion::V2_0, TextEncoding::Utf16, 60, 6)
}

fn with_document(model: Model, language: Language) -> Harness<'static, EditorState> {
    let mut editor = editor(language);
    editor.open_document(Document::from_model(model, None, None));
    harness(editor)
}

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

fn set_path(harness: &mut Harness<'_, EditorState>, path: &Path) {
    harness
        .get_by_role_and_label(Role::TextInput, "Path")
        .set_text_value_accesskit(&path.display().to_string());
    harness.run_ok();
}

fn document<'a>(harness: &'a Harness<'_, EditorState>) -> &'a Document {
    harness
        .state()
        .document
        .as_ref()
        .expect("a document is open")
}

fn open_export_dialog(harness: &mut Harness<'_, EditorState>) {
    click(harness, "File");
    harness.get_by_label_contains("Export SMF").click();
    harness.run_ok();
    harness.get_by_label("Export Selene SMF");
}

/// A VMD with two keys of `bone` (frames 0 and 10), built by hand: the project reads VMD but
/// has no writer.
fn write_vmd(path: &Path, bone: &str) {
    let mut bytes = Vec::new();
    let field = |bytes: &mut Vec<u8>, text: &[u8], len: usize| {
        let mut f = text.to_vec();
        f.resize(len, 0);
        bytes.extend_from_slice(&f[..len]);
    };
    field(&mut bytes, b"Vocaloid Motion Data 0002", 30);
    field(&mut bytes, b"test", 20);
    bytes.extend_from_slice(&2u32.to_le_bytes());
    let name = cp932::encode(bone).unwrap();
    for (frame, angle) in [(0u32, 0.0f32), (10, std::f32::consts::FRAC_PI_4)] {
        field(&mut bytes, &name, 15);
        bytes.extend_from_slice(&frame.to_le_bytes());
        for v in [0.0f32, 0.0, 0.0] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        let (sin, cos) = (angle / 2.0).sin_cos();
        for v in [sin, 0.0, 0.0, cos] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        // Linear interpolation: control points (20, 20) and (107, 107).
        let mut curve = [0u8; 64];
        for chunk in curve.chunks_mut(16) {
            chunk[..4].fill(20);
            chunk[8..12].fill(107);
        }
        bytes.extend_from_slice(&curve);
    }
    // No morph, camera, light or shadow keys.
    for _ in 0..4 {
        bytes.extend_from_slice(&0u32.to_le_bytes());
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn export_lists_counts_and_losses_then_writes_smf_with_the_picked_collision_material() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.smf");
    let original = model();
    let mut harness = with_document(original.clone(), Language::English);
    open_export_dialog(&mut harness);
    set_path(&mut harness, &path);
    // Pick the first material for collision from the list of the model's (Japanese) names.
    let material = format!("0: {}", original.materials[0].name_ja.as_str());
    click(&mut harness, &material);
    // Before anything is written: the counts and the losses, as the writer reports them.
    let expected = write_smf(
        &original,
        &SmfExportOptions {
            collision_materials: vec![0],
            ..SmfExportOptions::default()
        },
    )
    .unwrap()
    .report;
    harness.get_by_label(&format!(
        "{} frames, {} meshes (largest bone palette {} of 40), {} vertices, {} faces",
        expected.frames,
        expected.meshes,
        expected.largest_palette,
        expected.vertices,
        expected.faces
    ));
    harness.get_by_label_contains(&format!(
        "SMF cannot hold {} things of this model",
        expected.losses.len()
    ));
    for loss in expected.losses.iter().take(3) {
        harness.get_by_label(&loss.message_en());
    }
    harness.get_by_label_contains("rigid bodies: SMF has no place for them");
    assert!(!path.exists(), "nothing is written before Export");
    click(&mut harness, "Export");
    assert!(path.exists());
    harness.get_by_label_contains("Exported out.smf");

    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        FileFormat::detect(Path::new("x"), &bytes),
        Some(FileFormat::Smf)
    );
    let (back, report) = read_smf(&bytes, &Default::default()).unwrap();
    assert_eq!(back.faces.len(), original.faces.len());
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.message.contains("collision data")),
        "the picked material is collision data: {:?}",
        report.notes
    );
    // An export is not a save: the document keeps (not) its file and changes nothing.
    let document = document(&harness);
    assert_eq!(document.path, None);
    assert!(document.model == original);
    assert!(document.history.is_empty());
    assert!(!document.is_dirty());
}

#[test]
fn a_motion_picked_in_the_file_dialog_is_baked_and_its_time_unit_shown() {
    let dir = tempfile::tempdir().unwrap();
    let original = model();
    let vmd = dir.path().join("wave.vmd");
    write_vmd(&vmd, &original.bones[0].name_ja.as_str());
    let path = dir.path().join("moving.smf");
    let mut harness = with_document(original, Language::English);
    open_export_dialog(&mut harness);
    set_path(&mut harness, &path);
    click(&mut harness, "Choose VMD…");
    assert!(
        harness
            .state_mut()
            .take_platform_requests()
            .contains(&PlatformRequest::Browse {
                purpose: BrowsePurpose::Motion,
                suggested: None
            }),
        "the button asks the window for a file dialog"
    );
    // The window's answer, as a native dialog gives it.
    harness
        .state_mut()
        .browse_finished(BrowsePurpose::Motion, Some(vmd.clone()));
    harness.run_ok();
    harness.get_by_label_contains("key times are MMD frames (30 a second)");
    click(&mut harness, "Export");
    let (_, report) = read_smf(&std::fs::read(&path).unwrap(), &Default::default()).unwrap();
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.message.contains("1 animation sets (ANIS)")),
        "{:?}",
        report.notes
    );
}

#[test]
fn an_unreadable_motion_blocks_the_export_and_a_bad_extension_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.vmd");
    // Longer than VMD's 30-byte signature, so the reader says what is wrong with it.
    std::fs::write(&bad, [b'x'; 64]).unwrap();
    let mut harness = with_document(model(), Language::English);
    open_export_dialog(&mut harness);
    set_path(&mut harness, &dir.path().join("out.pmx"));
    harness.get_by_label("The file name must end in .smf");
    harness
        .state_mut()
        .browse_finished(BrowsePurpose::Motion, Some(bad));
    harness.run_ok();
    // A long wrapped label is exposed as a value (on the label and its text runs).
    let shown = harness
        .query_all_by(|node| {
            node.value()
                .is_some_and(|value| value.contains("not a VMD file"))
        })
        .count();
    assert!(shown > 0, "the reader's error is shown");
    set_path(&mut harness, &dir.path().join("out.smf"));
    click(&mut harness, "Export");
    assert!(!dir.path().join("out.smf").exists(), "Export is disabled");
}

#[test]
fn the_export_command_writes_without_the_dialog_and_save_as_refuses_smf() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("direct.smf");
    let original = model();
    let mut harness = with_document(original.clone(), Language::English);
    harness.state_mut().push(Command::Export {
        format: FileFormat::Smf,
        path: path.clone(),
        options: Box::default(),
    });
    harness.run_ok();
    assert!(path.exists());
    assert!(!document(&harness).is_dirty());

    click(&mut harness, "File");
    harness.get_by_label_contains("Save as").click();
    harness.run_ok();
    set_path(&mut harness, &path);
    harness.get_by_label_contains("SMF is written with File > Export SMF");
}

#[test]
fn file_open_imports_an_smf_as_a_new_unsaved_model() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.smf");
    let source = model();
    formats::save_smf(&source, &path, &SmfExportOptions::default()).unwrap();
    let mut harness = harness(editor(Language::English));
    harness.state_mut().push(Command::Open(path.clone()));
    harness.run_ok();
    wait_for_load(&mut harness);
    let imported = document(&harness);
    assert_eq!(imported.model.faces.len(), source.faces.len());
    assert_eq!(imported.model.bones.len(), source.bones.len());
    assert_eq!(imported.path, None, "the SMF is not the model's file");
    assert_eq!(imported.imported_from.as_deref(), Some(path.as_path()));
    assert!(!imported.is_dirty());
}

#[test]
fn the_smf_dialog_speaks_japanese() {
    let original = model();
    let mut harness = with_document(original.clone(), Language::Japanese);
    click(&mut harness, "ファイル");
    harness.get_by_label_contains("SMF形式で出力").click();
    harness.run_ok();
    harness.get_by_label("Selene SMF形式で出力");
    harness.get_by_label_contains("SMFで保持できないものが");
    harness.get_by_label("コリジョン材質");
    let rigid_bodies = original.rigid_bodies.len();
    harness.get_by_label_contains(&format!("剛体{rigid_bodies}個: SMFには保存できない"));
    click(&mut harness, "キャンセル");
    assert!(harness.state().document.is_some());
}
