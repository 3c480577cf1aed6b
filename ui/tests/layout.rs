#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Nothing drawn over its neighbour, at the window sizes users have (1280×800, 1920×1080) and
//! in both languages: a long 情報 comment scrolls inside a box of bounded height above the rows
//! below it, the comment labels stay beside their boxes when another model opens, a long status
//! message is cut before the summary on the right, and a hovered validation message shows one
//! tooltip.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use pmx_core::generate::sample_model;
use pmx_core::model::{Bone, BoneIdx, ElementKind, Model};
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

/// A model with every kind of element, each with several (the panes' rows and panels).
fn every_feature() -> Model {
    pmx_core::generate::feature_model(
        pmx_core::model::PmxVersion::V2_1,
        pmx_core::model::TextEncoding::Utf16,
        60,
        6,
    )
}

/// What a table pane shows: its tab's i18n key and the element kind whose property panel is
/// checked.
const PROPERTY_PANES: [(&str, ElementKind); 6] = [
    ("tab.vertices", ElementKind::Vertex),
    ("tab.materials", ElementKind::Material),
    ("tab.bones", ElementKind::Bone),
    ("tab.morphs", ElementKind::Morph),
    ("tab.rigid_bodies", ElementKind::RigidBody),
    ("tab.joints", ElementKind::Joint),
];

/// The widgets a user reads or sets (labels, fields, check boxes, pickers).
fn is_widget(role: Role) -> bool {
    matches!(
        role,
        Role::Label
            | Role::TextInput
            | Role::MultilineTextInput
            | Role::Button
            | Role::CheckBox
            | Role::ComboBox
            | Role::SpinButton
            | Role::Slider
    )
}

/// Whether `name` is a table cell's (`vertex 0 position.x`): the table scrolls sideways under
/// the property panel, clipped there, so its cells may lie behind it.
fn is_table_cell(name: &str) -> bool {
    let mut words = name.split(' ');
    let kind = words.next().unwrap_or_default();
    let index = words.next().unwrap_or_default();
    !kind.is_empty()
        && kind.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        && !index.is_empty()
        && index.chars().all(|c| c.is_ascii_digit())
}

/// Every widget's rect that starts inside `area` (what the property panel shows; the rows
/// below it are drawn the same way once scrolled to), with its role and name; the table's
/// cells clipped behind it left out.
fn widgets_in(
    harness: &Harness<'_, EditorState>,
    area: egui::Rect,
) -> Vec<(Role, String, egui::Rect)> {
    harness
        .query_all_by(|_| true)
        .filter(|node| is_widget(node.accesskit_node().role()))
        .map(|node| {
            let name = node
                .accesskit_node()
                .label()
                .or_else(|| node.value())
                .unwrap_or_default();
            (node.accesskit_node().role(), name, node.rect())
        })
        .filter(|(_, name, rect)| {
            !is_table_cell(name)
                && rect.left() >= area.left() - 0.5
                && rect.left() < area.right()
                // Below the panel's heading: the table's header row (clipped behind the panel
                // as its cells are) is beside the heading.
                && rect.top() >= area.top() + 40.0
                && rect.top() < area.bottom()
                && rect.width() > 0.0
        })
        .collect()
}

#[test]
fn no_property_row_is_cut_off_or_drawn_over_another() {
    let model = every_feature();
    for language in LANGUAGES {
        for size in WINDOW_SIZES {
            let mut harness = editor_harness(language, size, Some(model.clone()));
            for (tab_key, kind) in PROPERTY_PANES {
                tab(&mut harness, language.tr(tab_key));
                harness
                    .state_mut()
                    .document
                    .as_mut()
                    .unwrap()
                    .selection
                    .get_mut(kind)
                    .select_only(1);
                harness.run_ok();
                let properties = harness.state().tables[&kind]
                    .rects()
                    .expect("the table pane was drawn")
                    .properties;
                let widgets = widgets_in(&harness, properties);
                // (The モーフ tab's panel shares its height with the offsets below it.)
                assert!(
                    widgets.len() >= 3,
                    "{language:?} {size:?} {kind:?}: the property panel's rows ({widgets:?})"
                );
                for (role, name, rect) in &widgets {
                    // Rows below the panel are reached by its vertical scroll bar; across,
                    // every row fits (no horizontal scroll to find position Z or a flag).
                    assert!(
                        rect.right() <= properties.right() + 1.0,
                        "{language:?} {size:?} {kind:?}: {role:?} {name:?} at {rect:?} ends \
                         past the property panel {properties:?}"
                    );
                }
                // Where the panel shows them, no field is drawn over another.
                let fields: Vec<_> = widgets
                    .iter()
                    .filter(|(role, _, rect)| {
                        *role != Role::Label && rect.bottom() <= properties.bottom()
                    })
                    .collect();
                for (i, (_, a_name, a)) in fields.iter().enumerate() {
                    for (_, b_name, b) in &fields[i + 1..] {
                        let overlap = a.intersect(*b);
                        assert!(
                            overlap.width() < 1.0 || overlap.height() < 1.0,
                            "{language:?} {size:?} {kind:?}: {a_name:?} {a:?} is drawn over \
                             {b_name:?} {b:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn the_morph_table_shows_every_column_and_the_bone_tree_a_readable_width() {
    let model = every_feature();
    for language in LANGUAGES {
        for size in WINDOW_SIZES {
            let mut harness = editor_harness(language, size, Some(model.clone()));
            tab(&mut harness, language.tr("tab.morphs"));
            let table = harness.state().tables[&ElementKind::Morph]
                .rects()
                .unwrap()
                .table;
            for key in [
                "morph.name_ja",
                "morph.name_en",
                "morph.panel",
                "morph.kind",
                "morph.offset_count",
            ] {
                let header = harness
                    .query_all_by_label(language.tr(key))
                    .map(|node| node.rect())
                    .find(|rect| rect.top() >= table.top() && rect.top() < table.top() + 60.0)
                    .unwrap_or_else(|| panic!("{language:?} {size:?}: no {key} header"));
                assert!(
                    header.right() <= table.right(),
                    "{language:?} {size:?}: the {key} header at {header:?} is cut by the table's \
                     edge {table:?}"
                );
            }

            tab(&mut harness, language.tr("tab.bones"));
            let table = harness.state().tables[&ElementKind::Bone]
                .rects()
                .unwrap()
                .table;
            let find = harness
                .query_all_by_label(language.tr("bone_tree.find"))
                .map(|node| node.rect())
                .find(|rect| rect.left() < table.left())
                .expect("the bone tree's search");
            let tree_width = table.left() - find.left();
            assert!(
                tree_width >= 200.0,
                "{language:?} {size:?}: the bone tree is {tree_width} wide"
            );
        }
    }
}

/// Eight bones of one name: seven name warnings (more issues than the pane shows at once).
fn model_with_many_issues() -> Model {
    let mut model = Model::new_empty();
    for _ in 0..8 {
        model.bones.push(Bone {
            name_ja: "同じ名前".into(),
            ..Bone::default()
        });
    }
    model
}

#[test]
fn validation_shows_at_least_five_issues() {
    for language in LANGUAGES {
        for size in WINDOW_SIZES {
            let harness = editor_harness(language, size, Some(model_with_many_issues()));
            let issues = harness.state().validation.issues.len();
            assert!(issues >= 6, "{issues} issues");
            let summary_text = match language {
                Language::Japanese => " / 面 ",
                Language::English => " vertices / ",
            };
            let status_top = harness.get_by_label_contains(summary_text).rect().top();
            let paths: Vec<egui::Rect> = harness
                .query_all_by(|_| true)
                .filter(|node| {
                    node.accesskit_node()
                        .label()
                        .is_some_and(|text| text.starts_with("bones[") && text.ends_with("name_ja"))
                })
                .map(|node| node.rect())
                .filter(|rect| rect.bottom() <= status_top)
                .collect();
            assert!(
                paths.len() >= 5,
                "{language:?} {size:?}: {} issue rows shown whole ({paths:?})",
                paths.len()
            );
        }
    }
}

#[test]
fn the_layout_is_remembered_and_reset_from_the_view_menu() {
    let language = Language::English;
    let mut harness = editor_harness(language, WINDOW_SIZES[0], Some(sample_model()));
    // A changed layout: the history's tab moved away (closed here, as a drag would leave it
    // elsewhere), then saved and restored.
    let default_tree = pmx_ui::editor::workspace::default_tree();
    {
        let editor = harness.state_mut();
        let history = editor
            .tree
            .tiles
            .find_pane(&pmx_ui::editor::workspace::Pane::History)
            .unwrap();
        let parent = editor.tree.tiles.parent_of(history).unwrap();
        if let Some(egui_tiles::Tile::Container(container)) = editor.tree.tiles.get_mut(parent) {
            container.retain(|child| child != history);
        }
        let root = editor.tree.root().unwrap();
        if let Some(egui_tiles::Tile::Container(container)) = editor.tree.tiles.get_mut(root) {
            container.add_child(history);
        }
    }
    harness.run_ok();
    let saved = harness.state().settings_to_save();
    assert_eq!(
        saved.layout_version,
        pmx_ui::editor::workspace::LAYOUT_VERSION
    );
    let json = serde_json::to_string(&saved).unwrap();
    let restored: Settings = serde_json::from_str(&json).unwrap();
    let editor = EditorState::new(restored);
    let shape = |tree: &egui_tiles::Tree<pmx_ui::editor::workspace::Pane>| {
        let root = tree.root().unwrap();
        match tree.tiles.get(root) {
            Some(egui_tiles::Tile::Container(container)) => container.children().count(),
            _ => 0,
        }
    };
    assert_eq!(shape(&editor.tree), shape(&harness.state().tree));
    assert_ne!(
        shape(&editor.tree),
        shape(&default_tree),
        "the moved tab stays moved"
    );
    // 表示 > Reset layout: the default again.
    harness.get_by_label("View").click();
    harness.run_ok();
    harness
        .get_by_label_contains(language.tr("menu.reset_layout"))
        .click();
    harness.run_ok();
    assert_eq!(shape(&harness.state().tree), shape(&default_tree));
}

/// Whether the label `name` sits beside the top half of the field of the same name (the label
/// of a multi-line field goes at its top, as PmxEditor's do).
fn label_beside_field(harness: &Harness<'_, EditorState>, name: &str) -> bool {
    let field = text_field(harness, name).rect();
    let label = harness.get_by_role_and_label(Role::Label, name).rect();
    label.center().y >= field.top() && label.center().y <= field.center().y + 1.0
}

#[test]
fn the_comment_labels_stay_beside_their_boxes_when_another_model_opens() {
    // A model with long comments (8-line boxes), then one with one-line comments, as a big
    // model opened after the window started: the grid's rows shrink, and each label must stay
    // beside its own box, not drift down over the next row from the taller rows before.
    for language in LANGUAGES {
        let names = info_names(language);
        let mut tall = sample_model();
        tall.info.comment_ja = long_comment().as_str().into();
        tall.info.comment_en = long_comment().as_str().into();
        let mut harness = editor_harness(language, WINDOW_SIZES[0], Some(tall));
        tab(&mut harness, names.tab);
        for name in [names.comment, names.comment_en] {
            assert!(
                label_beside_field(&harness, name),
                "{language:?}: {name}, tall"
            );
        }
        let mut short = sample_model();
        short.info.comment_ja = "ベンチマーク用に生成".into();
        short.info.comment_en = "generated for benchmarks".into();
        harness
            .state_mut()
            .open_document(Document::from_model(short, None, None));
        // One frame, as the window draws once when a loaded model arrives.
        harness.step();
        for name in [names.comment, names.comment_en] {
            assert!(
                label_beside_field(&harness, name),
                "{language:?}: {name} beside its one-line box in the first frame"
            );
        }
        harness.run_ok();
        for name in [names.comment, names.comment_en] {
            assert!(
                label_beside_field(&harness, name),
                "{language:?}: {name}, settled"
            );
        }
    }
}
