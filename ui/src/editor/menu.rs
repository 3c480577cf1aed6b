//! The menu bar (File, Edit, View, Tools, Help) and the status bar.

use super::formats::{FORMAT_UI, MenuGroup, export_of};
use super::{EditorState, MessageLevel};
use crate::command::{BrowsePurpose, Command, EditCommand, EditRequest};
use crate::document::{LoadPhase, file_name};
use crate::editor::workspace::{self, Pane};
use crate::i18n::{Language, NameLanguage};
use crate::widgets::recent_files_ui;
use pmx_core::edit::{EditOp, SortKey};
use pmx_core::model::ElementKind;

impl EditorState {
    pub(super) fn menu_bar_ui(&mut self, ui: &mut egui::Ui) {
        let lang = self.lang();
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button(lang.tr("menu.file"), |ui| self.file_menu_ui(ui));
            ui.menu_button(lang.tr("menu.edit"), |ui| self.edit_menu_ui(ui));
            ui.menu_button(lang.tr("menu.view"), |ui| self.view_menu_ui(ui));
            ui.menu_button(lang.tr("menu.tools"), |ui| self.tools_menu_ui(ui));
            ui.menu_button(lang.tr("menu.help"), |ui| {
                if ui.button(lang.tr("menu.shortcuts")).clicked() {
                    self.show_shortcuts();
                }
                if ui.button(lang.tr("menu.about")).clicked() {
                    self.show_about();
                }
            });
        });
    }

    fn item(
        &mut self,
        ui: &mut egui::Ui,
        key: &'static str,
        shortcut: &str,
        enabled: bool,
        command: Command,
    ) {
        let button = egui::Button::new(self.lang().tr(key)).shortcut_text(shortcut);
        if ui.add_enabled(enabled, button).clicked() {
            self.commands.push(command);
        }
    }

    fn file_menu_ui(&mut self, ui: &mut egui::Ui) {
        let lang = self.lang();
        let open = self.document.is_some();
        self.item(ui, "menu.new", "Ctrl+N", true, Command::New);
        self.item(ui, "menu.open", "Ctrl+O", true, Command::ShowOpenDialog);
        ui.menu_button(lang.tr("menu.recent"), |ui| {
            if let Some(path) = recent_files_ui(ui, lang, &self.settings.recent_files) {
                self.commands.push(Command::Open(path));
            }
            if !self.settings.recent_files.is_empty() {
                ui.separator();
                if ui.button(lang.tr("menu.clear_recent")).clicked() {
                    self.settings.recent_files.clear();
                }
            }
        });
        ui.separator();
        self.item(ui, "menu.save", "Ctrl+S", open, Command::Save);
        self.item(
            ui,
            "menu.save_as",
            "Ctrl+Shift+S",
            open,
            Command::ShowSaveAsDialog,
        );
        self.format_items(ui, MenuGroup::Save);
        ui.separator();
        self.format_items(ui, MenuGroup::Convert);
        ui.separator();
        self.format_items(ui, MenuGroup::Text);
        ui.separator();
        self.item(
            ui,
            "menu.export_uv_layout",
            "",
            open,
            Command::ShowUvLayoutDialog,
        );
        self.recent_exports_ui(ui);
        ui.separator();
        self.item(ui, "menu.close", "Ctrl+W", open, Command::Close);
        self.item(ui, "menu.quit", "Ctrl+Q", true, Command::Quit);
    }

    /// File > Export's own recent list: a file exported before opens its export dialog again
    /// with its path filled in (the export writes a copy of the open model).
    fn recent_exports_ui(&mut self, ui: &mut egui::Ui) {
        let lang = self.lang();
        let open = self.document.is_some();
        ui.add_enabled_ui(open, |ui| {
            ui.menu_button(lang.tr("menu.recent_exports"), |ui| {
                if let Some(path) = recent_files_ui(ui, lang, &self.settings.recent_exports) {
                    self.export_again(&path);
                }
                if !self.settings.recent_exports.is_empty() {
                    ui.separator();
                    if ui.button(lang.tr("menu.clear_recent")).clicked() {
                        self.settings.recent_exports.clear();
                    }
                }
            });
        });
    }

    /// The export dialog that wrote `path` (by its extension; a PNG is the UV layout), open
    /// with `path` in its path field.
    fn export_again(&mut self, path: &std::path::Path) {
        let (show, purposes) = match export_of(path) {
            // Export PMD is Save as for a `.pmd`: its field takes Save's answer.
            Some(entry) => (
                Command::ShowExportDialog(entry.format),
                vec![BrowsePurpose::Export(entry.format), BrowsePurpose::Save],
            ),
            None => (Command::ShowUvLayoutDialog, vec![BrowsePurpose::UvLayout]),
        };
        self.run(show);
        if let Some(dialog) = &mut self.dialog {
            let _filled = purposes
                .into_iter()
                .any(|purpose| dialog.browsed(purpose, path));
        }
    }

    /// The formats' File > Import and Export items of `group` (imports first), from the
    /// format table; an import needs no model, an export needs one open.
    fn format_items(&mut self, ui: &mut egui::Ui, group: MenuGroup) {
        let open = self.document.is_some();
        let in_group = || FORMAT_UI.iter().filter(|entry| entry.menu == group);
        for entry in in_group() {
            if let Some(import) = &entry.import {
                self.item(
                    ui,
                    import.label,
                    "",
                    true,
                    Command::ShowImportDialog(entry.format),
                );
            }
        }
        for entry in in_group() {
            if let Some(export) = &entry.export {
                self.item(
                    ui,
                    export.label,
                    "",
                    open,
                    Command::ShowExportDialog(entry.format),
                );
            }
        }
    }

    fn edit_menu_ui(&mut self, ui: &mut egui::Ui) {
        let lang = self.lang();
        // Rendered now, in the current language (the history keeps labels as data).
        let (undo, redo) = match &self.document {
            Some(document) => (
                document.history.undo_edit_label().map(|l| l.render(lang)),
                document.history.redo_edit_label().map(|l| l.render(lang)),
            ),
            None => (None, None),
        };
        let undo_text = match &undo {
            Some(label) => lang.format("menu.undo_label", &[("label", label)]),
            None => lang.tr("menu.undo").to_owned(),
        };
        if ui
            .add_enabled(
                undo.is_some(),
                egui::Button::new(undo_text).shortcut_text("Ctrl+Z"),
            )
            .clicked()
        {
            self.commands.push(Command::Undo);
        }
        let redo_text = match &redo {
            Some(label) => lang.format("menu.redo_label", &[("label", label)]),
            None => lang.tr("menu.redo").to_owned(),
        };
        if ui
            .add_enabled(
                redo.is_some(),
                egui::Button::new(redo_text).shortcut_text("Ctrl+Y"),
            )
            .clicked()
        {
            self.commands.push(Command::Redo);
        }
        ui.separator();
        ui.menu_button(lang.tr("menu.select"), |ui| self.select_menu_ui(ui));
        ui.separator();
        let table = self.focus_kind.is_some() && self.document.is_some();
        if ui
            .add_enabled(
                table,
                egui::Button::new(lang.tr("menu.select_all")).shortcut_text("Ctrl+A"),
            )
            .clicked()
        {
            self.select_all_in_focus();
        }
        if ui
            .add_enabled(table, egui::Button::new(lang.tr("menu.select_none")))
            .clicked()
            && let (Some(kind), Some(document)) = (self.focus_kind, &mut self.document)
        {
            document.selection.get_mut(kind).clear();
        }
        if ui
            .add_enabled(
                table,
                egui::Button::new(lang.tr("menu.duplicate")).shortcut_text("Ctrl+D"),
            )
            .clicked()
        {
            self.duplicate_in_focus();
        }
        let view_delete = self.view.has_focus && self.document.is_some();
        if ui
            .add_enabled(
                table || view_delete,
                egui::Button::new(lang.tr("menu.delete")).shortcut_text("Delete"),
            )
            .clicked()
        {
            self.delete_in_focus();
        }
    }

    fn view_menu_ui(&mut self, ui: &mut egui::Ui) {
        let lang = self.lang();
        for pane in Pane::ALL {
            if ui.button(lang.tr(pane.title_key())).clicked() {
                workspace::show_pane(&mut self.tree, pane);
                if let Some(kind) = pane.kind() {
                    self.focus_kind = Some(kind);
                }
            }
        }
        ui.separator();
        crate::panes::view::view_menu_ui(ui, lang, &mut self.view, &mut self.commands);
        ui.separator();
        ui.menu_button(lang.tr("menu.language"), |ui| {
            for language in Language::ALL {
                ui.radio_value(
                    &mut self.settings.language,
                    language,
                    language.native_name(),
                );
            }
        });
        ui.menu_button(lang.tr("menu.names"), |ui| {
            ui.radio_value(
                &mut self.settings.names,
                NameLanguage::Japanese,
                lang.tr("menu.names_ja"),
            );
            ui.radio_value(
                &mut self.settings.names,
                NameLanguage::English,
                lang.tr("menu.names_en"),
            );
        });
        ui.separator();
        if ui.button(lang.tr("menu.reset_layout")).clicked() {
            self.tree = workspace::default_tree();
        }
    }

    fn tools_menu_ui(&mut self, ui: &mut egui::Ui) {
        let lang = self.lang();
        let Some(document) = &self.document else {
            ui.weak(lang.tr("status.no_model"));
            return;
        };
        let can_add_uv = document.model.additional_uv_count() < 4;
        if ui
            .add_enabled(
                can_add_uv,
                egui::Button::new(lang.tr("menu.add_uv_channel")),
            )
            .clicked()
        {
            self.commands.push(Command::Edit(EditCommand {
                request: EditRequest::AddUvChannels(1),
                gesture: None,
                select_created: false,
            }));
        }
        ui.separator();
        let sorts: [(&'static str, ElementKind, SortKey); 3] = [
            ("menu.sort_textures", ElementKind::Texture, SortKey::Name),
            (
                "menu.sort_materials_name",
                ElementKind::Material,
                SortKey::Name,
            ),
            (
                "menu.sort_materials_transparency",
                ElementKind::Material,
                SortKey::Transparency,
            ),
        ];
        for (key, kind, by) in sorts {
            if ui.button(lang.tr(key)).clicked() {
                self.commands
                    .push(Command::ops(vec![EditOp::Sort { kind, by }]));
            }
        }
        ui.separator();
        // The tools by group, as PmxEditor's plugin menu lists them; the scripts' group is
        // there even when the folder has none (its folder and Reload are in it).
        for group in pmx_plugins::PluginGroup::ALL {
            let infos: Vec<pmx_plugins::PluginInfo> = self
                .plugins
                .in_group(group)
                .map(|plugin| plugin.info())
                .collect();
            let scripts = group == pmx_plugins::PluginGroup::Scripts;
            if infos.is_empty() && !scripts {
                continue;
            }
            ui.menu_button(group.name(lang), |ui| {
                if scripts {
                    self.scripts_menu_ui(ui);
                }
                for info in infos {
                    if ui
                        .button(format!("{}…", info.name(lang)))
                        .on_hover_text(info.description(lang))
                        .clicked()
                    {
                        self.commands.push(Command::ShowPlugin(info.id.clone()));
                    }
                }
            });
        }
    }

    /// The scripts group's own items: the folder, Reload, and the scripts that did not load.
    fn scripts_menu_ui(&mut self, ui: &mut egui::Ui) {
        let lang = self.lang();
        let folder = self.scripts_folder();
        let shown = folder
            .as_ref()
            .map_or_else(|| "—".to_owned(), |folder| folder.display().to_string());
        ui.weak(lang.format("menu.scripts_folder_is", &[("folder", &shown)]));
        if ui.button(lang.tr("menu.scripts_folder")).clicked() {
            self.commands.push(Command::ShowScriptsFolderDialog);
        }
        if ui.button(lang.tr("menu.scripts_reload")).clicked() {
            self.commands.push(Command::ReloadPlugins);
        }
        for (path, error) in &self.script_errors {
            ui.colored_label(ui.visuals().error_fg_color, file_name(path))
                .on_hover_text(error.render(lang));
        }
        ui.separator();
    }

    pub(super) fn status_bar_ui(&mut self, ui: &mut egui::Ui) {
        // The summary on the right is laid out first and the message gets only the width left
        // of it: a long message (a load error names a byte offset and can run to hundreds of
        // characters) is cut with "…" there instead of being drawn under the summary.
        ui.horizontal(|ui| {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                self.status_summary_ui(ui);
                ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                    self.status_message_ui(ui);
                });
            });
        });
    }

    /// The left part of the status bar: the load in progress and the last message.
    fn status_message_ui(&mut self, ui: &mut egui::Ui) {
        let lang = self.lang();
        if let Some(job) = &self.loading {
            let progress = &job.progress;
            let phase = match progress.phase() {
                LoadPhase::Reading => lang.tr("status.reading"),
                LoadPhase::Parsing => lang.tr("status.parsing"),
            };
            let megabytes = progress.total_bytes() as f64 / 1_048_576.0;
            ui.label(format!(
                "{} {} ({megabytes:.1} MB)",
                phase,
                file_name(&job.path)
            ));
            ui.add(
                egui::ProgressBar::new(progress.fraction())
                    .desired_width(220.0)
                    .show_percentage(),
            );
            if ui.button(lang.tr("dialog.cancel")).clicked() {
                self.cancel_loading();
            }
            ui.separator();
        }
        if let Some(message) = &self.message {
            let color = match message.level {
                MessageLevel::Info => ui.visuals().text_color(),
                MessageLevel::Warning => ui.visuals().warn_fg_color,
                MessageLevel::Error => ui.visuals().error_fg_color,
            };
            // A truncated label shows its whole text as a tooltip when it had to be cut.
            ui.add(
                egui::Label::new(egui::RichText::new(message.text(lang)).color(color)).truncate(),
            );
        }
    }

    /// The right part of the status bar, drawn right to left: the element counts and the
    /// selection.
    fn status_summary_ui(&self, ui: &mut egui::Ui) {
        let lang = self.lang();
        let Some(document) = &self.document else {
            ui.label(lang.tr("status.no_model"));
            return;
        };
        let model = &document.model;
        if let Some(kind) = self.status_selection_kind() {
            let selected = document.selection.get(kind).target_count();
            if selected > 0 {
                ui.label(lang.format(
                    "status.selected",
                    &[("count", &selected), ("kind", &lang.tr(kind_key(kind)))],
                ));
                ui.separator();
            }
        }
        ui.label(lang.format(
            "status.counts",
            &[
                ("vertices", &model.vertices.len()),
                ("faces", &model.faces.len()),
                ("materials", &model.materials.len()),
                ("bones", &model.bones.len()),
                ("morphs", &model.morphs.len()),
            ],
        ));
    }
}

/// i18n key of a kind's plural name.
#[must_use]
pub fn kind_key(kind: ElementKind) -> &'static str {
    match kind {
        ElementKind::Vertex => "kind.vertices",
        ElementKind::Face => "kind.faces",
        ElementKind::Texture => "kind.textures",
        ElementKind::Material => "kind.materials",
        ElementKind::Bone => "kind.bones",
        ElementKind::Morph => "kind.morphs",
        ElementKind::DisplayFrame => "kind.display_frames",
        ElementKind::RigidBody => "kind.rigid_bodies",
        ElementKind::Joint => "kind.joints",
        ElementKind::SoftBody => "kind.soft_bodies",
    }
}
