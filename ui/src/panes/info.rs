//! The 情報 (Info) pane: names and comments (ja/en, multi-line), version, encoding, additional
//! UV count, index sizes, element counts and what the reader noticed.

use crate::command::{Command, EditCommand, EditRequest};
use crate::widgets::{EditCx, PaneCx, text_commit_ui};
use pmx_core::edit::field;
use pmx_core::model::{ElementKind, IndexSizes, ModelInfo, Text};

/// Width of the name and comment fields.
const FIELD_WIDTH: f32 = 520.0;

/// Lines of a comment shown at once; a longer comment scrolls inside its box.
const COMMENT_VISIBLE_LINES: f32 = 8.0;

/// Room for a text field's frame and inner margin around its lines (egui 0.37's default theme
/// uses 4 px above and below, plus the stroke).
const TEXT_FIELD_FRAME_HEIGHT: f32 = 12.0;

/// The most a comment box takes: `COMMENT_VISIBLE_LINES` lines and the field's frame.
fn comment_box_height(ui: &egui::Ui) -> f32 {
    let line = ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().extra_text_line_spacing;
    COMMENT_VISIBLE_LINES * line + TEXT_FIELD_FRAME_HEIGHT
}

/// The info pane of the open model.
pub fn info_pane_ui(ui: &mut egui::Ui, pane: &mut PaneCx<'_>) {
    let document = &*pane.document;
    let report = document.load_report.as_ref();
    let model = &document.model;
    let cx = &mut EditCx {
        model,
        commands: &mut *pane.commands,
        lang: pane.lang,
        names: pane.names,
        base_dir: None,
    };
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            egui::Grid::new("model_info")
                .num_columns(2)
                .striped(true)
                .spacing([16.0, 6.0])
                .show(ui, |ui| {
                    let info = field::<ModelInfo>;
                    let fields = [
                        ("info.name_ja", info().name_ja(), &model.info.name_ja, false),
                        ("info.name_en", info().name_en(), &model.info.name_en, false),
                        (
                            "info.comment_ja",
                            info().comment_ja(),
                            &model.info.comment_ja,
                            true,
                        ),
                        (
                            "info.comment_en",
                            info().comment_en(),
                            &model.info.comment_en,
                            true,
                        ),
                    ];
                    for (title, handle, value, multiline) in fields {
                        if multiline {
                            // At the top of its box, as PmxEditor has it. Centred, the
                            // grid centres it in the row's height of the last frame: the
                            // first frame after a model with longer comments put it one
                            // row down, over バージョン.
                            ui.vertical(|ui| {
                                ui.add_space(TEXT_FIELD_FRAME_HEIGHT / 2.0 - 2.0);
                                ui.label(cx.tr(title));
                            });
                        } else {
                            ui.label(cx.tr(title));
                        }
                        let value = value.as_str();
                        let id = ui
                            .scope_id()
                            .with(("info", handle.field_path().to_string()));
                        let name = cx.tr(title);
                        let edited = if multiline {
                            // A comment of any length gets a box of bounded height with its
                            // own scroll bar (as PmxEditor's comment boxes have), so the rows
                            // below stay where they are. Top-down: in the grid row's layout
                            // (left to right, centred) a short comment would be centred in a
                            // box taller than itself.
                            ui.vertical(|ui| {
                                egui::ScrollArea::vertical()
                                    .id_salt(id.with("scroll"))
                                    .max_height(comment_box_height(ui))
                                    // A grid cell offers a scroll area only a row's height,
                                    // and the default minimum (64 px) then showed 3 lines of 8.
                                    .min_scrolled_height(comment_box_height(ui))
                                    .show(ui, |ui| {
                                        text_commit_ui(ui, id, &value, true, FIELD_WIDTH, name)
                                    })
                                    .inner
                            })
                            .inner
                        } else {
                            text_commit_ui(ui, id, &value, false, FIELD_WIDTH, name)
                        };
                        if let Some(new) = edited {
                            cx.commands.push(Command::set(
                                handle,
                                Vec::new(),
                                Text::from(new.as_str()),
                            ));
                        }
                        ui.end_row();
                    }
                    ui.label(cx.tr("info.version"));
                    ui.label(format!("PMX {}", model.header.version.name()))
                        .on_hover_text(cx.tr("info.change_with_save_as"));
                    ui.end_row();
                    ui.label(cx.tr("info.encoding"));
                    ui.label(match model.header.encoding {
                        pmx_core::model::TextEncoding::Utf16 => "UTF-16LE",
                        pmx_core::model::TextEncoding::Utf8 => "UTF-8",
                    })
                    .on_hover_text(cx.tr("info.change_with_save_as"));
                    ui.end_row();
                    ui.label(cx.tr("info.additional_uvs"));
                    ui.horizontal(|ui| {
                        ui.label(model.additional_uv_count().to_string());
                        if model.additional_uv_count() < 4
                            && ui.small_button(cx.tr("menu.add_uv_channel")).clicked()
                        {
                            cx.commands.push(Command::Edit(EditCommand {
                                request: EditRequest::AddUvChannels(1),
                                gesture: None,
                                select_created: false,
                            }));
                        }
                    });
                    ui.end_row();
                    let sizes = model
                        .header
                        .index_sizes
                        .unwrap_or_else(|| IndexSizes::minimal_for(model));
                    ui.label(cx.tr("info.index_sizes"));
                    ui.label(cx.lang.format(
                        "info.index_sizes_value",
                        &[
                            ("vertex", &sizes.vertex),
                            ("texture", &sizes.texture),
                            ("material", &sizes.material),
                            ("bone", &sizes.bone),
                            ("morph", &sizes.morph),
                            ("rigid_body", &sizes.rigid_body),
                        ],
                    ));
                    ui.end_row();
                });
            ui.add_space(12.0);
            ui.heading(cx.tr("info.counts"));
            egui::Grid::new("model_counts")
                .num_columns(2)
                .striped(true)
                .spacing([16.0, 4.0])
                .show(ui, |ui| {
                    for kind in ElementKind::ALL {
                        ui.label(cx.tr(kind_label(kind)));
                        ui.monospace(format!("{:>10}", model.count(kind)));
                        ui.end_row();
                    }
                });
            if let Some(report) = report
                && (!report.notes.is_empty() || report.recovered_from.is_some())
            {
                ui.add_space(12.0);
                ui.heading(cx.tr("info.notes"));
                if let Some(error) = &report.recovered_from {
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        cx.lang
                            .format("info.recovered", &[("error", &error.render(cx.lang))]),
                    );
                }
                for note in &report.notes {
                    let color = if note.lost {
                        ui.visuals().warn_fg_color
                    } else {
                        ui.visuals().text_color()
                    };
                    ui.colored_label(color, note.render(cx.lang));
                }
            }
        });
}

/// i18n key of an element kind's tab-style name (PmxEditor's names).
#[must_use]
pub fn kind_label(kind: ElementKind) -> &'static str {
    match kind {
        ElementKind::Vertex => "tab.vertices",
        ElementKind::Face => "tab.faces",
        ElementKind::Texture => "tab.textures",
        ElementKind::Material => "tab.materials",
        ElementKind::Bone => "tab.bones",
        ElementKind::Morph => "tab.morphs",
        ElementKind::DisplayFrame => "tab.display_frames",
        ElementKind::RigidBody => "tab.rigid_bodies",
        ElementKind::Joint => "tab.joints",
        ElementKind::SoftBody => "tab.soft_bodies",
    }
}
