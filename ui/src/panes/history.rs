//! The 履歴 (history) pane: every undo step with its label; a click jumps there.

use crate::command::Command;
use crate::widgets::PaneCx;

/// The undo history: every step with its label; a click jumps there.
pub fn history_pane_ui(ui: &mut egui::Ui, cx: &mut PaneCx<'_>) {
    let lang = cx.lang;
    let document = &*cx.document;
    let commands = &mut *cx.commands;
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
