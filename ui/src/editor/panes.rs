//! The tab area's panes: the element tables, 情報 (info) and the undo history.

use super::EditorState;
use crate::command::{Command, Commands};
use crate::document::Document;
use crate::i18n::{Language, NameLanguage};
use crate::info::info_pane_ui;
use crate::table::{
    FaceTable, MaterialTable, TableCx, TableState, TextureTable, VertexTable, table_pane_ui,
};
use crate::validation::{ValidationState, validation_pane_ui};
use crate::widgets::EditCx;
use crate::workspace::Pane;
use pmx_core::model::ElementKind;
use std::collections::HashMap;

struct Behavior<'a> {
    lang: Language,
    names: NameLanguage,
    document: Option<&'a mut Document>,
    document_id: u64,
    tables: &'a mut HashMap<ElementKind, TableState>,
    commands: &'a mut Commands,
    focus_kind: &'a mut Option<ElementKind>,
    validation: &'a mut ValidationState,
    pose: &'a mut crate::pose::PoseState,
    view: &'a mut crate::view::ViewState,
    editors: &'a mut crate::editors::EditorsState,
    loading: bool,
}

impl egui_tiles::Behavior<Pane> for Behavior<'_> {
    fn tab_title_for_pane(&mut self, pane: &Pane) -> egui::WidgetText {
        self.lang.tr(pane.title_key()).into()
    }

    fn pane_ui(
        &mut self,
        ui: &mut egui::Ui,
        _tile_id: egui_tiles::TileId,
        pane: &mut Pane,
    ) -> egui_tiles::UiResponse {
        // The table the user clicks in is the one Ctrl+A and Delete act on.
        if let Some(kind) = pane.kind()
            && ui.rect_contains_pointer(ui.max_rect())
            && ui.input(|i| i.pointer.any_pressed())
        {
            *self.focus_kind = Some(kind);
        }
        let lang = self.lang;
        let Some(document) = self.document.as_deref_mut() else {
            empty_pane_ui(ui, lang, self.loading, self.commands);
            return egui_tiles::UiResponse::None;
        };
        match pane {
            Pane::Info => {
                let mut cx = EditCx {
                    model: &document.model,
                    commands: self.commands,
                    lang,
                    names: self.names,
                    base_dir: None,
                };
                info_pane_ui(ui, &mut cx, document.load_report.as_ref());
            }
            Pane::History => history_ui(ui, lang, document, self.commands),
            Pane::Pose => crate::pose::pose_pane_ui(
                ui,
                lang,
                self.names,
                self.pose,
                document,
                self.document_id,
                self.commands,
            ),
            Pane::View => {
                crate::view::view_pane_ui(
                    ui,
                    lang,
                    self.view,
                    document,
                    self.document_id,
                    self.commands,
                );
            }
            Pane::Validation => {
                validation_pane_ui(
                    ui,
                    lang,
                    self.validation,
                    document,
                    self.document_id,
                    self.commands,
                    &self.view.scene.texture_problems,
                );
            }
            table_pane => {
                let Some(kind) = table_pane.kind() else {
                    return egui_tiles::UiResponse::None;
                };
                let Some(state) = self.tables.get_mut(&kind) else {
                    return egui_tiles::UiResponse::None;
                };
                if crate::editors::handles(kind) {
                    let cx = crate::editors::PaneCx {
                        document,
                        document_id: self.document_id,
                        commands: self.commands,
                        lang,
                        names: self.names,
                    };
                    crate::editors::editor_pane_ui(ui, kind, state, self.editors, cx);
                    return egui_tiles::UiResponse::None;
                }
                let base_dir = document.path.as_deref().and_then(std::path::Path::parent);
                let cx = TableCx {
                    model: &document.model,
                    document_id: self.document_id,
                    revision: document.revision(),
                    structure_revision: document.structure_revision(kind),
                    selection: document.selection.get_mut(kind),
                    commands: self.commands,
                    lang,
                    names: self.names,
                    base_dir,
                };
                match kind {
                    ElementKind::Vertex => table_pane_ui(ui, &VertexTable, state, cx),
                    ElementKind::Face => table_pane_ui(ui, &FaceTable, state, cx),
                    ElementKind::Texture => table_pane_ui(ui, &TextureTable, state, cx),
                    _ => table_pane_ui(ui, &MaterialTable, state, cx),
                }
            }
        }
        egui_tiles::UiResponse::None
    }

    fn simplification_options(&self) -> egui_tiles::SimplificationOptions {
        egui_tiles::SimplificationOptions {
            all_panes_must_have_tabs: true,
            ..Default::default()
        }
    }
}

fn empty_pane_ui(ui: &mut egui::Ui, lang: Language, loading: bool, commands: &mut Commands) {
    ui.add_space(24.0);
    ui.vertical_centered(|ui| {
        if loading {
            ui.spinner();
            ui.label(lang.tr("status.loading"));
            return;
        }
        ui.heading("PMX Studio");
        ui.label(lang.tr("status.no_model_hint"));
        ui.add_space(8.0);
        if ui.button(lang.tr("status.open_model")).clicked() {
            commands.push(Command::ShowOpenDialog);
        }
        if ui.button(lang.tr("status.new_model")).clicked() {
            commands.push(Command::New);
        }
    });
}

/// The undo history: every step with its label; a click jumps there.
fn history_ui(ui: &mut egui::Ui, lang: Language, document: &Document, commands: &mut Commands) {
    let history = &document.history;
    ui.horizontal(|ui| {
        if ui
            .add_enabled(history.can_undo(), egui::Button::new(lang.tr("menu.undo")))
            .clicked()
        {
            commands.push(Command::Undo);
        }
        if ui
            .add_enabled(history.can_redo(), egui::Button::new(lang.tr("menu.redo")))
            .clicked()
        {
            commands.push(Command::Redo);
        }
    });
    ui.separator();
    let head = history.head();
    let edits: Vec<&pmx_core::edit::Edit> = history.edits().collect();
    let row_height = ui.spacing().interact_size.y;
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .stick_to_bottom(true)
        .show_rows(ui, row_height, edits.len() + 1, |ui, rows| {
            for row in rows {
                // Only the visible rows are rendered, in the current language.
                let text = if row == 0 {
                    lang.tr("history.start").to_owned()
                } else {
                    let label = edits
                        .get(row - 1)
                        .map(|e| e.label_in(lang))
                        .unwrap_or_default();
                    format!("{row}. {label}")
                };
                let applied = row <= head;
                let rich = if applied {
                    egui::RichText::new(text)
                } else {
                    egui::RichText::new(text).weak().italics()
                };
                if ui.selectable_label(row == head, rich).clicked() && row != head {
                    commands.push(Command::JumpToHistory(row));
                }
            }
        });
}

impl EditorState {
    pub(super) fn workspace_ui(&mut self, ui: &mut egui::Ui) {
        let mut behavior = Behavior {
            lang: self.settings.language,
            names: self.settings.names,
            document: self.document.as_mut(),
            document_id: self.document_id,
            tables: &mut self.tables,
            commands: &mut self.commands,
            focus_kind: &mut self.focus_kind,
            validation: &mut self.validation,
            pose: &mut self.pose,
            view: &mut self.view,
            editors: &mut self.editors,
            loading: self.loading.is_some(),
        };
        self.tree.ui(&mut behavior, ui);
        self.feed_pose_to_view();
    }

    /// The 3D view draws the pose pane's pose: deformed positions and normals go to the GPU
    /// when the pose changes, and the model's own values again when it is back at rest. The
    /// document never changes.
    fn feed_pose_to_view(&mut self) {
        let Some(document) = &self.document else {
            return;
        };
        let generation = self.pose.generation();
        if generation == self.fed_pose_generation {
            return;
        }
        self.fed_pose_generation = generation;
        let to_model = |list: &[glam::Vec3]| -> Vec<pmx_core::model::Vec3> {
            list.iter().map(|&v| v.into()).collect()
        };
        match self.pose.evaluated().filter(|_| !self.pose.pose.is_rest()) {
            Some(evaluated) => {
                self.view.scene.upload_deformed(
                    0,
                    &to_model(evaluated.positions()),
                    &to_model(evaluated.normals()),
                );
                self.view_shows_pose = true;
            }
            None if self.view_shows_pose => {
                let vertices = &document.model.vertices;
                let positions: Vec<_> = vertices.iter().map(|v| v.position).collect();
                let normals: Vec<_> = vertices.iter().map(|v| v.normal).collect();
                self.view.scene.upload_deformed(0, &positions, &normals);
                self.view_shows_pose = false;
            }
            None => {}
        }
    }
}
