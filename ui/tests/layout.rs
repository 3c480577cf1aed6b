#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Nothing drawn over its neighbour, at the window sizes users have (1280×800, 1920×1080) and
//! in both languages: a long 情報 comment scrolls inside a box of bounded height above the rows
//! below it, a long status message is cut before the summary on the right, and a hovered
//! validation message shows one tooltip.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::generate::sample_model;
use pmx_core::model::{Bone, BoneIdx, Model};
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::editor::MessageLevel;
use pmx_ui::editor::settings::Settings;
use pmx_ui::i18n::Language;

mod support;
use support::tab;

const WINDOW_SIZES: [egui::Vec2; 2] = [
    egui::Vec2::new(1280.0, 800.0),
    egui::Vec2::new(1920.0, 1080.0),
];

const LANGUAGES: [Language; 2] = [Language::Japanese, Language::English];

fn editor_harness(
    language: Language,
    size: egui::Vec2,
    model: Option<Model>,
) -> Harness<'static, EditorState> {
    let mut editor = EditorState::new(Settings {
        language,
        ..Settings::default()
    });
    if let Some(model) = model {
        editor.open_document(Document::from_model(model, None, None));
    }
    let mut harness = Harness::builder()
        .with_size(size)
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    harness
}

/// A text field by its name (the label beside it has the same text).
fn text_field<'h>(harness: &'h Harness<'_, EditorState>, name: &'h str) -> egui_kittest::Node<'h> {
    harness
        .query_by_role_and_label(Role::MultilineTextInput, name)
        .or_else(|| harness.query_by_role_and_label(Role::TextInput, name))
        .unwrap_or_else(|| panic!("no text field named {name}"))
}

/// A comment as users write them: short lines, blank lines between paragraphs, `\r\n` (as
/// PmxEditor writes it), and more lines than the box shows.
fn long_comment() -> String {
    let mut lines = vec![
        "ベンチマーク用に生成",
        "",
        "generated for benchmarks",
        "",
        "頂点 3109 / 面 3439",
        "",
    ];
    for _ in 0..5 {
        lines.extend(["ライセンス: CC BY 4.0", "作者: テスト", ""]);
    }
    lines.push("最後の行");
    lines.join("\r\n")
}

struct InfoNames {
    tab: &'static str,
    comment: &'static str,
    comment_en: &'static str,
    version: &'static str,
}

fn info_names(language: Language) -> InfoNames {
    match language {
        Language::Japanese => InfoNames {
            tab: "情報",
            comment: "コメント",
            comment_en: "コメント(英)",
            version: "バージョン",
        },
        Language::English => InfoNames {
            tab: "Info",
            comment: "Comment",
            comment_en: "Comment (en)",
            version: "Version",
        },
    }
}

#[test]
fn a_long_comment_scrolls_in_its_box_and_the_rows_below_stay_in_place() {
    for language in LANGUAGES {
        for size in WINDOW_SIZES {
            let names = info_names(language);
            // The rows below as a 3-line comment leaves them: a longer comment must not move
            // them further down than its bounded box.
            let mut short = sample_model();
            short.info.comment_ja = "一行目\r\n二行目\r\n三行目".into();
            let mut harness = editor_harness(language, size, Some(short));
            tab(&mut harness, names.tab);
            let short_comment = text_field(&harness, names.comment).rect();
            let short_comment_en = text_field(&harness, names.comment_en).rect();
            assert!(
                short_comment_en.top() >= short_comment.bottom(),
                "{language:?} {size:?}: a 3-line comment is shown whole, above コメント(英)"
            );
            // ... in a box no taller than itself (the grid's spacing of 6 px apart).
            assert!(
                short_comment_en.top() - short_comment.bottom() < 10.0,
                "{language:?} {size:?}: the box of a 3-line comment fits it \
                 ({short_comment:?}, then {short_comment_en:?})"
            );

            let mut model = sample_model();
            model.info.comment_ja = long_comment().as_str().into();
            let mut harness = editor_harness(language, size, Some(model));
            tab(&mut harness, names.tab);
            let comment_top = text_field(&harness, names.comment).rect().top();
            let comment_full_height = text_field(&harness, names.comment).rect().height();
            let comment_en = text_field(&harness, names.comment_en).rect();
            let version = harness
                .get_by_role_and_label(Role::Label, names.version)
                .rect();
            // What the box shows, in lines of the comment (the field holds them all).
            let line_height = comment_full_height / long_comment().lines().count() as f32;
            let lines_shown = (comment_en.top() - comment_top) / line_height;
            assert!(
                (7.0..10.0).contains(&lines_shown),
                "{language:?} {size:?}: the box shows about 8 of the comment's lines, not \
                 {lines_shown}"
            );
            assert!(
                version.top() >= comment_en.bottom(),
                "{language:?} {size:?}: バージョン below コメント(英)"
            );
            assert!(
                version.bottom() < size.y,
                "{language:?} {size:?}: バージョン still in the window"
            );

            // The comment scrolls on its own: the rows below do not move. (The text field is
            // taller than its box: the pointer goes near the box's top, not to its centre.)
            let comment_x = text_field(&harness, names.comment).rect().center().x;
            harness.hover_at(egui::pos2(comment_x, comment_top + 20.0));
            harness.run_ok();
            harness.event(egui::Event::MouseWheel {
                unit: egui::MouseWheelUnit::Point,
                delta: egui::vec2(0.0, -200.0),
                modifiers: egui::Modifiers::NONE,
                phase: egui::TouchPhase::Move,
                source: egui::MouseWheelSource::Wheel,
            });
            harness.run_ok();
            assert!(
                text_field(&harness, names.comment).rect().top() < comment_top - 50.0,
                "{language:?} {size:?}: the comment's text scrolled up in its box"
            );
            assert_eq!(
                text_field(&harness, names.comment_en).rect(),
                comment_en,
                "{language:?} {size:?}: コメント(英) did not move"
            );
        }
    }
}

#[test]
fn editing_a_long_comment_in_its_box_is_one_undo_step() {
    let mut model = sample_model();
    model.info.comment_ja = long_comment().as_str().into();
    let mut harness = editor_harness(Language::English, WINDOW_SIZES[0], Some(model));
    tab(&mut harness, "Info");
    text_field(&harness, "Comment").focus();
    harness.run_ok();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::End);
    harness.run_ok();
    text_field(&harness, "Comment").type_text("\nadded");
    harness.run_ok();
    // Still typing: nothing is committed yet.
    assert_eq!(harness.state().document.as_ref().unwrap().history.len(), 0);
    // Leaving the field commits the whole edit as one step.
    text_field(&harness, "Name").focus();
    harness.run_ok();
    let document = harness.state().document.as_ref().unwrap();
    assert_eq!(document.history.len(), 1);
    assert_eq!(
        document.model.info.comment_ja.as_str(),
        format!("{}\nadded", long_comment())
    );
}

/// A load error as the reader reports it: file, section, element, field and byte offset, then
/// more of the same, 300 characters and more.
fn long_error() -> String {
    let mut message =
        "gene.pmx を開けません: malformed file: unknown weight type 127 in vertices, \
                       vertex 14323, field weight, at byte 636302"
            .to_owned();
    while message.chars().count() < 300 {
        message.push_str(" (recovery can read the model up to here; the rest is lost)");
    }
    message
}

#[test]
fn a_long_status_message_is_cut_before_the_summary_on_the_right() {
    for language in LANGUAGES {
        for size in WINDOW_SIZES {
            for model in [None, Some(sample_model())] {
                let with_model = model.is_some();
                let summary_text = match (with_model, language) {
                    (false, Language::Japanese) => "モデルが開かれていません".to_owned(),
                    (false, Language::English) => "No model open".to_owned(),
                    (true, Language::Japanese) => " / 面 ".to_owned(),
                    (true, Language::English) => " vertices / ".to_owned(),
                };
                let mut harness = editor_harness(language, size, model);
                let summary_alone = harness.get_by_label_contains(&summary_text).rect();
                let message = long_error();
                harness
                    .state_mut()
                    .set_message(MessageLevel::Error, message.clone());
                harness.run_ok();
                let summary = harness.get_by_label_contains(&summary_text).rect();
                let status = harness.get_by_label(&message).rect();
                assert!(
                    status.right() <= summary.left(),
                    "{language:?} {size:?} model {with_model}: the message ends at {} before \
                     the summary starts at {}",
                    status.right(),
                    summary.left()
                );
                assert!(
                    status.left() < 20.0 && status.width() > 100.0,
                    "{language:?} {size:?}: the message starts on the left and shows part of \
                     itself ({status:?})"
                );
                assert_eq!(
                    summary, summary_alone,
                    "{language:?} {size:?}: the summary keeps its place"
                );

                // The whole message on hover, once.
                harness.get_by_label(&message).hover();
                harness.run_ok();
                let shown = harness.query_all_by_label(&message).count();
                assert_eq!(
                    shown, 2,
                    "{language:?} {size:?}: the cut label and one tooltip hold the message"
                );
            }
        }
    }
}

/// Two bones, the first a child of the second, with long names: the validator's W-BONE-ORDER
/// message names both and is longer than the message column.
fn model_with_a_long_validation_message() -> Model {
    let mut model = Model::new_empty();
    let long_name = |n: usize| {
        format!(
            "とても長い名前のボーン{n}_{}",
            "あいうえおかきくけこ".repeat(4)
        )
    };
    model.bones.push(Bone {
        name_ja: long_name(0).as_str().into(),
        parent: Some(BoneIdx::new(1)),
        ..Bone::default()
    });
    model.bones.push(Bone {
        name_ja: long_name(1).as_str().into(),
        ..Bone::default()
    });
    model
}

#[test]
fn a_cut_validation_message_shows_one_tooltip() {
    for language in LANGUAGES {
        for size in WINDOW_SIZES {
            let mut harness =
                editor_harness(language, size, Some(model_with_a_long_validation_message()));
            tab(
                &mut harness,
                match language {
                    Language::Japanese => "検証",
                    Language::English => "Validation",
                },
            );
            let issue = harness
                .state()
                .validation
                .issues
                .iter()
                .find(|issue| issue.code == "W-BONE-ORDER")
                .expect("the bone order warning")
                .clone();
            let message = match language {
                Language::Japanese => issue.message_ja,
                Language::English => issue.message_en,
            };
            assert_eq!(harness.query_all_by_label(&message).count(), 1);
            harness.get_by_label(&message).hover();
            harness.run_ok();
            // The cell's label and one tooltip (before: two tooltips stacked, three nodes).
            assert_eq!(
                harness.query_all_by_label(&message).count(),
                2,
                "{language:?} {size:?}: one tooltip for {message}"
            );
        }
    }
}
