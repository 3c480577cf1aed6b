#![allow(clippy::expect_used, clippy::unwrap_used)]
//! One language at a time: edit labels (history pane, Edit menu), the status bar, the 検証
//! pane, the PMD export dialog and the pose pane's file report all come from the same ja/en
//! resources, and switching the language re-renders every one of them (they are kept as data,
//! never as rendered text).

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use pmx_core::edit::EditOp;
use pmx_core::generate::feature_model;
use pmx_core::model::{ElementKind, Model, PmxVersion, TextEncoding, Vec3};
use pmx_ui::EditorState;
use pmx_ui::command::Command;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::i18n::Language;

fn click(harness: &mut Harness<'_, EditorState>, label: &str) {
    harness.get_by_label(label).click();
    harness.run_ok();
}

fn tab(harness: &mut Harness<'_, EditorState>, name: &str) {
    harness.get_by_role_and_label(Role::Button, name).click();
    harness.run_ok();
}

/// Switches the language through View → Language (the menu names itself in both languages).
fn switch_to(harness: &mut Harness<'_, EditorState>, language: Language) {
    let view = match harness.state().lang() {
        Language::Japanese => "表示",
        Language::English => "View",
    };
    click(harness, view);
    harness.get_by_label_contains("Language").click();
    harness.run_ok();
    click(harness, language.native_name());
    // Close the menu with a click on the status bar's counts (outside the menus).
    harness.key_press(egui::Key::Escape);
    harness.run_ok();
    assert_eq!(harness.state().lang(), language);
}

/// A model with something to edit, a validator warning (a normal of length 2) and things PMD
/// cannot hold (BDEF4, SDEF, soft bodies, ...).
fn model() -> Model {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 24, 4);
    model.vertices[2].normal = Vec3::new(0.0, 0.0, -2.0);
    model
}

/// Every name the model holds (a label that shows one may hold Japanese in either language).
fn model_names(model: &Model) -> Vec<String> {
    let mut names = vec![
        model.info.name_ja.as_str().into_owned(),
        model.info.name_en.as_str().into_owned(),
        model.info.comment_ja.as_str().into_owned(),
        model.info.comment_en.as_str().into_owned(),
    ];
    names.extend(model.textures.iter().map(|t| t.as_str().into_owned()));
    macro_rules! both {
        ($list:expr) => {
            for e in &$list {
                names.push(e.name_ja.as_str().into_owned());
                names.push(e.name_en.as_str().into_owned());
            }
        };
    }
    both!(model.materials);
    both!(model.bones);
    both!(model.morphs);
    both!(model.display_frames);
    both!(model.rigid_bodies);
    both!(model.joints);
    both!(model.soft_bodies);
    names.retain(|n| !n.trim().is_empty());
    names
}

/// `vertices` of `vertices[12].weight`: an issue line starts with a list name.
fn is_path_head(head: &str) -> bool {
    !head.is_empty() && head.chars().all(|c| c.is_ascii_lowercase() || c == '_')
}

/// Whether the message part of an issue line (after the path) holds an English word: a
/// lowercase ASCII word of four letters or more outside 「quoted」 names.
fn has_english_words(line: &str) -> bool {
    let message = line.split_once("  ").map_or(line, |(_, m)| m);
    let mut unquoted = String::new();
    let mut depth = 0;
    for c in message.chars() {
        match c {
            '「' => depth += 1,
            '」' => depth -= 1,
            _ if depth == 0 => unquoted.push(c),
            _ => {}
        }
    }
    unquoted
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(|word| word.len() >= 4 && word.chars().all(|c| c.is_ascii_lowercase()))
}

fn is_japanese(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}' | '\u{ff01}'..='\u{ff5e}')
}

/// Every text on screen (labels and values) with Japanese in it that does not show one of the
/// model's names: in English there must be none.
fn japanese_texts(harness: &Harness<'_, EditorState>, names: &[String]) -> Vec<String> {
    let mut found: Vec<String> = harness
        .query_all_by(|_| true)
        .flat_map(|node| {
            let node = node.accesskit_node();
            [node.label(), node.value()]
        })
        .flatten()
        .filter(|text| text.chars().any(is_japanese))
        .filter(|text| !names.iter().any(|name| text.contains(name.as_str())))
        // The language menu names each language in its own script, by design.
        .filter(|text| text != "日本語" && !text.contains("言語"))
        .collect();
    found.sort();
    found.dedup();
    found
}

/// How many things the open model loses as PMD: the validator's `W-PMD-*` warnings, the list
/// `check --target pmd` prints.
fn pmd_losses(harness: &Harness<'_, EditorState>) -> usize {
    use pmx_core::validate::{CheckOptions, Target, check};
    let model = &harness.state().document.as_ref().unwrap().model;
    let options = CheckOptions {
        target: Some(Target::Pmd),
        ..CheckOptions::default()
    };
    let lost = check(model, None, &options)
        .iter()
        .filter(|issue| !issue.is_error() && issue.code.starts_with("W-PMD"))
        .count();
    assert!(lost > 5, "the feature model loses things as PMD ({lost})");
    lost
}

#[test]
fn switching_the_language_re_renders_labels_status_validation_dialog_and_pose_report() {
    let original = model();
    let names = model_names(&original);
    let mut editor = EditorState::new(Settings::default());
    assert_eq!(editor.lang(), Language::Japanese, "Japanese is the default");
    editor.open_document(Document::from_model(original.clone(), None, None));
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(2600.0, 1400.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();

    // Three edits: a rename, a deletion, a field edit; then undo and redo the last one, so the
    // status bar holds a message built around an edit label.
    let bone = 1;
    let morph = original.morphs.len() - 1;
    let commands = [
        Command::set(
            pmx_core::edit::field::<pmx_core::model::Bone>().name_ja(),
            vec![bone],
            "改名したボーン".into(),
        ),
        Command::ops(vec![EditOp::Delete {
            kind: ElementKind::Morph,
            indices: vec![morph],
            remove_unused_vertices: false,
        }]),
        Command::set(
            pmx_core::edit::field::<pmx_core::model::Vertex>().edge_scale(),
            vec![0],
            2.0,
        ),
        Command::Undo,
        Command::Redo,
    ];
    for command in commands {
        harness.state_mut().push(command);
        harness.run_ok();
    }
    let document = harness.state().document.as_ref().unwrap();
    assert_eq!(document.history.len(), 3);
    assert_eq!(document.history.head(), 3);
    let mut names = names;
    names.push("改名したボーン".to_owned());

    // A pose file report: save the pose as VPD, load it back (with the pane showing: a pane
    // that meets a document for the first time starts without a report).
    tab(&mut harness, "ポーズ");
    let dir = tempfile::tempdir().unwrap();
    let vpd = dir.path().join("pose.vpd");
    {
        let editor = harness.state_mut();
        let model = editor.document.as_ref().unwrap().model.clone();
        editor
            .pose
            .set_bone_rotation(&model, 2, glam::Vec3::new(10.0, 0.0, 0.0));
        editor.pose.save_vpd(&model, &vpd).unwrap();
        let report = editor.pose.load_vpd(&model, &vpd).unwrap();
        editor.pose.file_message = Some(report);
    }
    harness.run_ok();

    let japanese = [
        "1. ボーン1の名前を変更",
        "2. モーフ1個を削除",
        "3. 頂点0のエッジ倍率を変更",
    ];
    let english = [
        "1. Rename bone 1",
        "2. Delete 1 morph",
        "3. Set edge_scale of vertex 0",
    ];
    let check = |harness: &mut Harness<'_, EditorState>, language: Language| {
        // The history is a tab beside 検証 below the tables: each is looked at on its tab.
        let (history_tab, validation_tab) = match language {
            Language::Japanese => ("編集履歴", "検証"),
            Language::English => ("History", "Validation"),
        };
        let (history, status, validation, pose) = match language {
            Language::Japanese => (
                &japanese,
                "やり直し: 頂点0のエッジ倍率を変更",
                "頂点2の法線の長さが1ではありません",
                "ボーン 1 / 1、モーフ 0 / 0 が一致",
            ),
            Language::English => (
                &english,
                "Redone: Set edge_scale of vertex 0",
                "the normal of vertex 2 has length",
                "1 / 1 bones, 0 / 0 morphs matched",
            ),
        };
        tab(harness, history_tab);
        for row in history {
            harness.get_by_label_contains(row);
        }
        harness.get_by_label(status);
        harness.get_by_label(pose);
        // The rows of the other language are gone (re-rendered, not stored).
        let other = if language == Language::Japanese {
            &english
        } else {
            &japanese
        };
        for row in other {
            assert!(
                harness.query_by_label_contains(row).is_none(),
                "{row} still shown in {language:?}"
            );
        }
        tab(harness, validation_tab);
        harness.get_by_label_contains(validation);
    };
    check(&mut harness, Language::Japanese);

    // The PMD export dialog: its own title, no PMX choices, one count of what PMD loses.
    let open_export = |harness: &mut Harness<'_, EditorState>, file: &str, item: &str| {
        click(harness, file);
        harness.get_by_label_contains(item).click();
        harness.run_ok();
    };
    open_export(&mut harness, "ファイル", "PMD形式で出力");
    harness.get_by_label("PMD形式で出力");
    assert!(harness.query_by_label("名前を付けて保存").is_none());
    assert!(harness.query_by_label("UTF-8").is_none());
    assert!(harness.query_by_label("PMX 2.1").is_none());
    let lost = pmd_losses(&harness);
    let heading = |harness: &Harness<'_, EditorState>, text: &str| -> Vec<String> {
        harness
            .query_all_by_label_contains(text)
            .filter_map(|node| node.accesskit_node().label().or_else(|| node.value()))
            .collect()
    };
    assert_eq!(
        heading(&harness, "PMD では保持できないもの"),
        vec![format!(
            "PMD では保持できないものが {lost} 件あります (PMD で保存すると失われます):"
        )],
        "one count of what PMD loses, the validator's"
    );
    harness.get_by_label("vertices[12].weight  頂点12はBDEF4です。PMDはBDEF1/BDEF2のみです");
    // Every listed loss reads in Japanese (the PMD writer's own list included).
    let listed: Vec<String> = harness
        .query_all_by(|_| true)
        .filter_map(|node| node.accesskit_node().value())
        .filter(|text| text.contains("  ") && text.split('[').next().is_some_and(is_path_head))
        .collect();
    assert!(listed.len() >= 12, "{listed:#?}");
    for line in &listed {
        assert!(!has_english_words(line), "not in Japanese: {line}");
    }
    click(&mut harness, "キャンセル");

    // English: everything re-rendered, nothing Japanese left but the model's own names.
    switch_to(&mut harness, Language::English);
    check(&mut harness, Language::English);
    let left = japanese_texts(&harness, &names);
    assert!(
        left.is_empty(),
        "Japanese text in the English UI: {left:#?}"
    );
    click(&mut harness, "Edit");
    harness.get_by_label_contains("Undo: Set edge_scale of vertex 0");
    harness.key_press(egui::Key::Escape);
    harness.run_ok();

    open_export(&mut harness, "File", "Export PMD");
    harness.get_by_label("Export PMD");
    assert!(harness.query_by_label("Save as").is_none());
    assert!(harness.query_by_label("UTF-8").is_none());
    assert_eq!(
        heading(&harness, "things (they are lost"),
        vec![format!(
            "PMD cannot hold {lost} things (they are lost when saved as PMD):"
        )],
    );
    harness.get_by_label("vertices[12].weight  vertex 12 is BDEF4; PMD holds BDEF1/BDEF2 only");
    let dialog_left = japanese_texts(&harness, &names);
    assert!(
        dialog_left.is_empty(),
        "Japanese text in the English export dialog: {dialog_left:#?}"
    );
    click(&mut harness, "Cancel");

    // And back: the Japanese texts again.
    switch_to(&mut harness, Language::Japanese);
    check(&mut harness, Language::Japanese);
    open_export(&mut harness, "ファイル", "PMD形式で出力");
    harness.get_by_label("PMD形式で出力");
    // Exported: the status bar counts the losses as the dialog did.
    let pmd = dir.path().join("exported.pmd");
    harness
        .get_by_role_and_label(Role::TextInput, "パス")
        .set_text_value_accesskit(&pmd.display().to_string());
    harness.run_ok();
    click(&mut harness, "出力");
    assert!(pmd.exists());
    let status = harness
        .state()
        .message
        .as_ref()
        .unwrap()
        .text(Language::Japanese);
    assert!(
        status.contains(&format!("PMDで保持できない {lost} 件")),
        "{status}"
    );
    switch_to(&mut harness, Language::English);
    harness.get_by_label_contains(&format!("PMD cannot hold {lost} things, lost in this file"));
}
