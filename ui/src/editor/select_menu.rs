//! 編集 > 選択: the selection tools' menu and how the editor runs them. The tools act on the
//! selection of the 3D view's pick kind ([`select_target`]); they change the selection only
//! and never the history.

use super::EditorState;
use super::menu::kind_key;
use crate::command::Command;
use crate::select_ops::{SelectOp, select_target};
use pmx_core::model::ElementKind;

/// Where the menu keeps ウェイトで選択's threshold between frames (egui's memory).
const THRESHOLD_ID: &str = "select_weight_threshold";
/// The threshold ウェイトで選択 starts with: vertices the bones move more than half.
const DEFAULT_THRESHOLD: f32 = 0.5;

impl EditorState {
    /// The kind the selection tools act on now.
    fn select_ops_target(&self) -> ElementKind {
        select_target(self.view.pick_mode.kind())
    }

    /// Runs a selection tool on the document's selection (no edit, no step in the history).
    pub(super) fn run_select_op(&mut self, op: SelectOp) {
        let target = self.select_ops_target();
        let mirror = match op {
            SelectOp::Mirror => self.paint_index(),
            _ => None,
        };
        if let Some(document) = &mut self.document {
            op.apply(
                &document.model,
                &mut document.selection,
                target,
                mirror.as_deref(),
            );
        }
    }

    /// The 選択 submenu of 編集.
    pub(super) fn select_menu_ui(&mut self, ui: &mut egui::Ui) {
        let lang = self.lang();
        let Some(document) = &self.document else {
            ui.weak(lang.tr("status.no_model"));
            return;
        };
        let target = self.select_ops_target();
        let bones_selected = document.selection.get(ElementKind::Bone).target_count() > 0;
        ui.weak(lang.format("select.target", &[("kind", &lang.tr(kind_key(target)))]));
        let mut chosen = None;
        let mut item = |ui: &mut egui::Ui, op: SelectOp, enabled: bool| {
            if ui
                .add_enabled(
                    enabled && op.applies_to(target),
                    egui::Button::new(lang.tr(op.label_key()))
                        .shortcut_text(op.shortcut().unwrap_or_default()),
                )
                .clicked()
            {
                chosen = Some(op);
            }
        };
        item(ui, SelectOp::All, true);
        item(ui, SelectOp::None, true);
        item(ui, SelectOp::Invert, true);
        ui.separator();
        item(ui, SelectOp::Linked, true);
        item(ui, SelectOp::ByMaterial, true);
        let id = egui::Id::unique(THRESHOLD_ID);
        let mut threshold = ui.data(|data| data.get_temp(id).unwrap_or(DEFAULT_THRESHOLD));
        ui.horizontal(|ui| {
            item(ui, SelectOp::ByWeight { threshold }, bones_selected);
            let label = ui.label(lang.tr("select.threshold"));
            ui.add(
                egui::DragValue::new(&mut threshold)
                    .range(0.0..=1.0)
                    .speed(0.01)
                    .max_decimals(3),
            )
            .labelled_by(label.id);
        });
        ui.data_mut(|data| data.insert_temp(id, threshold));
        item(ui, SelectOp::Mirror, true);
        item(ui, SelectOp::Grow, true);
        item(ui, SelectOp::Shrink, true);
        if let Some(op) = chosen {
            self.commands.push(Command::SelectOp(op));
        }
    }
}
