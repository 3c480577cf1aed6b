//! The モーフ tab's preview row: the current morph's value in the pose the 3D view draws (every
//! morph kind: vertex, UV, bone, material, group, flip), so a morph is seen without changing the
//! document, and the way into the 3D view's morph edit mode for a vertex morph. Each morph keeps
//! its own preview value (the pose pane's morph sliders show the same values); 全て0 sets them
//! all back.

use super::PaneCx;
use super::pose::PoseState;
use super::view::ViewState;
use super::view::morph_edit::target_morph;
use pmx_core::model::{ElementKind, MorphIdx, MorphOffsets};

/// The row above the morph table for morph `index` (the morph selection's current one).
pub fn morph_preview_ui(
    ui: &mut egui::Ui,
    pose: &mut PoseState,
    view: &mut ViewState,
    cx: &mut PaneCx<'_>,
    index: Option<usize>,
) {
    let lang = cx.lang;
    pose.sync(cx.document, cx.document_id);
    let morph_count = cx.document.model.morphs.len();
    ui.horizontal_wrapped(|ui| {
        let Some(index) = index.filter(|&i| i < morph_count) else {
            ui.weak(lang.tr("morph.preview_none"));
            return;
        };
        let edited = view.morph_edit.active && target_morph(cx.document) == Some(index);
        let mut value = if edited {
            view.morph_edit.value
        } else {
            pose.pose.morph(MorphIdx::new(index)).unwrap_or(0.0)
        };
        let response = ui
            .add(
                egui::Slider::new(&mut value, 0.0..=1.0)
                    .text(lang.tr("morph.preview"))
                    .max_decimals(3),
            )
            .on_hover_text(lang.tr("morph.preview_hint"));
        if response.changed() {
            if edited {
                view.morph_edit.value = value;
            } else {
                pose.set_morph(index, value);
            }
        }
        let previewed = pose.pose.morphs.iter().filter(|&&v| v != 0.0).count();
        if ui
            .add_enabled(
                previewed > 0,
                egui::Button::new(lang.tr("morph.preview_reset")),
            )
            .clicked()
        {
            for morph in 0..pose.pose.morphs.len() {
                if pose.pose.morphs[morph] != 0.0 {
                    pose.set_morph(morph, 0.0);
                }
            }
            if view.morph_edit.active {
                view.morph_edit.value = 0.0;
            }
        }
        if previewed > 0 {
            ui.weak(lang.format("morph.previewed", &[("count", &previewed)]));
        }
        let is_vertex = matches!(
            cx.document.model.morphs.get(index).map(|m| &m.offsets),
            Some(MorphOffsets::Vertex(_))
        );
        if is_vertex
            && !edited
            && ui
                .button(lang.tr("morph.edit_in_view"))
                .on_hover_text(lang.tr("morph.edit_in_view_hint"))
                .clicked()
        {
            let selection = cx.document.selection.get_mut(ElementKind::Morph);
            selection.current = Some(index);
            view.morph_edit.value = 1.0;
            view.morph_edit.set_active(true);
            view.weight_paint.active = false;
        }
    });
}
