#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Files as a user reaches them: the pose pane's VMD/VPD through the native dialog and its
//! recent motions, the pose pane's bone search by index, the recent files (documents only)
//! beside File > Export's own recent list, and the import dialogs' path field taking the focus.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::generate::sample_model;
use pmx_core::model::{Bone, Model};
use pmx_ui::EditorState;
use pmx_ui::editor::settings::Settings;
use pmx_ui::editor::{BrowsePurpose, PlatformRequest};
use pmx_ui::i18n::Language;
use std::path::Path;

mod support;
use support::{click, document, gene_and_nod_motion, harness_of, harness_with, tab};

/// The editor in English on `model`, with `settings`.
fn harness_with_settings(model: Model, settings: Settings) -> Harness<'static, EditorState> {
    let editor = EditorState::new(Settings {
        language: Language::English,
        ..settings
    });
    harness_of(editor, model)
}

fn is_nod(path: &Path) -> bool {
    path.ends_with("mmdagent_ex_nod.vmd")
}

#[test]
fn a_motion_chosen_in_the_file_dialog_loads_in_the_pose_pane_and_is_remembered() {
    let Some((gene, motion)) = gene_and_nod_motion() else {
        return;
    };
    let mut harness = harness_with(gene, Language::English);
    tab(&mut harness, "Pose");
    assert!(harness.state().settings.recent_motions.is_empty());
    click(&mut harness, "Browse…");
    assert!(
        harness
            .state_mut()
            .take_platform_requests()
            .contains(&PlatformRequest::Browse {
                purpose: BrowsePurpose::Pose,
                suggested: None
            }),
        "the button asks the window for a file dialog"
    );
    // Its filters offer VMD and VPD.
    let filters = BrowsePurpose::Pose.filters();
    assert!(filters[0].extensions.contains(&"vmd".to_owned()));
    assert!(filters[0].extensions.contains(&"vpd".to_owned()));
    // The window's answer, as a native dialog gives it.
    harness
        .state_mut()
        .browse_finished(BrowsePurpose::Pose, Some(motion.clone()));
    harness.run_ok();
    let pose = &harness.state().pose;
    assert_eq!(pose.motion_name(), Some("mmdagent_ex_nod.vmd"));
    assert!(pose.motion_last_frame().is_some_and(|last| last > 0));
    assert_eq!(pose.file_path, motion.display().to_string());
    // The report says what matched; the motion's row shows with its frame slider.
    harness.get_by_label_contains("Motion mmdagent_ex_nod.vmd");
    // The motion drives the pose: some frame of the nod differs from its first.
    let last = harness.state().pose.motion_last_frame().unwrap();
    let pose = &mut harness.state_mut().pose;
    let start = pose.pose.clone();
    let moves = (1..=last).any(|frame| {
        pose.set_frame(frame as f32);
        pose.pose != start
    });
    assert!(moves, "the nod moves within its {last} frames");
    let recent = &harness.state().settings.recent_motions;
    assert_eq!(recent.len(), 1);
    assert!(is_nod(&recent[0]), "{recent:?}");
}

#[test]
fn a_recent_motion_loads_from_the_pose_panes_menu() {
    let Some((gene, motion)) = gene_and_nod_motion() else {
        return;
    };
    // As the settings keep them: absolute, without `..`.
    let motion = std::fs::canonicalize(motion).unwrap();
    let other = Path::new("/nonexistent/other.vpd").to_owned();
    let mut harness = harness_with_settings(
        gene,
        Settings {
            recent_motions: vec![motion.clone(), other.clone()],
            ..Settings::default()
        },
    );
    tab(&mut harness, "Pose");
    assert_eq!(harness.state().pose.motion_name(), None);
    click(&mut harness, "Recent motions");
    harness.get_by_label("other.vpd");
    click(&mut harness, "mmdagent_ex_nod.vmd");
    assert_eq!(
        harness.state().pose.motion_name(),
        Some("mmdagent_ex_nod.vmd")
    );
    assert_eq!(harness.state().pose.file_path, motion.display().to_string());
    // Still first, still once; the other entry stays.
    assert_eq!(harness.state().settings.recent_motions.len(), 2);
    assert!(is_nod(&harness.state().settings.recent_motions[0]));
    // A file that cannot be read is reported and not moved up.
    click(&mut harness, "Recent motions");
    click(&mut harness, "other.vpd");
    harness.get_by_label_contains("/nonexistent/other.vpd");
    assert!(is_nod(&harness.state().settings.recent_motions[0]));
}

/// Twenty bones named a, b, c…, but bone 3 is named 腕12.
fn lettered_bones() -> Model {
    let mut model = Model::new_empty();
    for i in 0..20u8 {
        let name = if i == 3 {
            "腕12".to_owned()
        } else {
            char::from(b'a' + i).to_string()
        };
        model.bones.push(Bone {
            name_ja: name.as_str().into(),
            ..Bone::default()
        });
    }
    model
}

#[test]
fn the_pose_panes_bone_search_takes_an_index_too() {
    let mut harness = harness_with(lettered_bones(), Language::English);
    tab(&mut harness, "Pose");
    harness.get_by_label("   0  a");
    harness
        .get_by_role_and_label(Role::TextInput, "Find bone")
        .set_text_value_accesskit("12");
    harness.run_ok();
    // Bone 12 (named m) by its index, and 腕12 by its name; nothing else.
    let twelve = harness.get_by_label("  12  m").rect();
    let by_name = harness.get_by_label("   3  腕12").rect();
    assert!(
        twelve.top() < by_name.top(),
        "the index's bone first: {twelve:?} {by_name:?}"
    );
    assert!(harness.query_by_label("   0  a").is_none());
    assert!(harness.query_by_label("   2  c").is_none());
    click(&mut harness, "  12  m");
    assert_eq!(
        document(&harness)
            .selection
            .get(pmx_core::model::ElementKind::Bone)
            .current,
        Some(12)
    );
    // A number past the last bone finds names only.
    let field = harness.get_by_role_and_label(Role::TextInput, "Find bone");
    field.set_text_value_accesskit("99");
    harness.run_ok();
    assert!(harness.query_by_label_contains("  m").is_none());
}

#[test]
fn an_exported_pmd_is_listed_with_the_exports_not_the_recent_files() {
    let dir = tempfile::tempdir().unwrap();
    let pmd = dir.path().join("exported.pmd");
    let mut harness = harness_with(sample_model(), Language::English);
    click(&mut harness, "File");
    harness.get_by_label_contains("Export PMD").click();
    harness.run_ok();
    harness
        .get_by_role_and_label(Role::TextInput, "Path")
        .set_text_value_accesskit(&pmd.display().to_string());
    harness.run_ok();
    click(&mut harness, "Export");
    assert!(pmd.exists());
    let settings = &harness.state().settings;
    assert!(
        !settings
            .recent_files
            .iter()
            .any(|p| p.ends_with("exported.pmd")),
        "recent files: {:?}",
        settings.recent_files
    );
    assert!(
        settings.recent_exports[0].ends_with("exported.pmd"),
        "{:?}",
        settings.recent_exports
    );

    // An export of another format (CSV) joins the same list, first.
    let csv = dir.path().join("table.csv");
    harness.state_mut().push(pmx_ui::command::Command::Export {
        format: pmx_core::formats::FileFormat::Csv,
        path: csv.clone(),
        options: Box::default(),
    });
    harness.run_ok();
    assert!(csv.exists());
    let settings = &harness.state().settings;
    assert!(settings.recent_exports[0].ends_with("table.csv"));
    assert!(settings.recent_exports[1].ends_with("exported.pmd"));
    assert!(
        !settings
            .recent_files
            .iter()
            .any(|p| p.ends_with("table.csv"))
    );

    // Saved as PMX, the document is a recent file.
    let pmx = dir.path().join("saved.pmx");
    let save_settings = document(&harness).save_settings;
    harness.state_mut().push(pmx_ui::command::Command::SaveTo {
        path: pmx.clone(),
        settings: save_settings,
        then: None,
    });
    harness.run_ok();
    let settings = &harness.state().settings;
    assert!(settings.recent_files[0].ends_with("saved.pmx"));
    assert!(
        !settings
            .recent_exports
            .iter()
            .any(|p| p.ends_with("saved.pmx"))
    );

    // File > Recent exports opens the export dialog again with the path filled in.
    click(&mut harness, "File");
    click(&mut harness, "Recent exports");
    click(&mut harness, "exported.pmd");
    let field = harness.get_by_role_and_label(Role::TextInput, "Path");
    assert_eq!(
        field.value().as_deref(),
        Some(pmd.display().to_string().as_str())
    );
    harness.get_by_label("Export");
}

#[test]
fn the_import_dialogs_focus_their_path_field() {
    for item in ["Import MQO", "Import VRM"] {
        let mut harness = harness_with(sample_model(), Language::English);
        click(&mut harness, "File");
        harness.get_by_label_contains(item).click();
        harness.run_ok();
        let field = harness.get_by_role_and_label(Role::TextInput, "Path");
        assert!(field.is_focused(), "{item}: the path field has the focus");
        // Typing goes into it at once.
        harness.run_ok();
        let focused = harness.ctx.memory(|m| m.focused());
        assert!(focused.is_some(), "{item}");
    }
}
