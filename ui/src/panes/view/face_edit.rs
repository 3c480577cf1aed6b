//! The view's face mode row and 絞り込み表示 menu: 面の反転 and 面対角線の入れ替え for the
//! selected faces (each an edit op, one undo step: `flip_faces`, `swap_face_diagonal`), and
//! the show-and-hide entries, which ask for [`Command::Visibility`] (view state, no step).

use crate::command::{Command, Commands, EditCommand, EditRequest};
use crate::document::Document;
use crate::i18n::Language;
use crate::visibility::VisibilityAction;
use pmx_core::edit::EditOp;
use pmx_core::model::ElementKind;

/// The face edits offered while faces are picked: flip needs a face, the diagonal exactly two.
pub fn face_edits_ui(
    ui: &mut egui::Ui,
    lang: Language,
    document: &Document,
    commands: &mut Commands,
) {
    let faces = document.selection.get(ElementKind::Face).targets();
    let edit = |ops: Vec<EditOp>| {
        Command::Edit(EditCommand {
            request: EditRequest::Ops { ops, label: None },
            gesture: None,
            select_created: false,
        })
    };
    if ui
        .add_enabled(
            !faces.is_empty(),
            egui::Button::new(lang.tr("view.face_flip")),
        )
        .on_hover_text(lang.tr("view.face_hint"))
        .clicked()
    {
        commands.push(edit(vec![EditOp::FlipFaces {
            indices: faces.clone(),
        }]));
    }
    if ui
        .add_enabled(
            faces.len() == 2,
            egui::Button::new(lang.tr("view.face_swap_diagonal")),
        )
        .on_hover_text(lang.tr("view.face_swap_diagonal_hint"))
        .clicked()
        && let [first, second] = faces[..]
    {
        commands.push(edit(vec![EditOp::SwapFaceDiagonal {
            faces: [first, second],
        }]));
    }
}

/// 表示 > 絞り込み表示: the show-and-hide entries; hiding or isolating "the selection" takes
/// the elements of `pick_kind` (the view's pick mode).
pub fn visibility_menu_ui(
    ui: &mut egui::Ui,
    lang: Language,
    pick_kind: ElementKind,
    commands: &mut Commands,
) {
    ui.menu_button(lang.tr("view.menu_visibility"), |ui| {
        for action in [
            VisibilityAction::ShowOnlySelectedMaterials,
            VisibilityAction::HideSelectedMaterials,
            VisibilityAction::HideSelected(pick_kind),
            VisibilityAction::Isolate(pick_kind),
            VisibilityAction::ShowAll,
        ] {
            if ui.button(lang.tr(action.key())).clicked() {
                commands.push(Command::Visibility(action));
                ui.close();
            }
        }
    });
}
