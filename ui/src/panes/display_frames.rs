//! 表示枠 (display frames): the frame table and, beside it, the tree of frames with their items
//! (bones and morphs). Items are dragged between frames (or before another item), moved with
//! the context menu, added from the bone and morph selections and removed; "register" adds the
//! bones / morphs that no frame lists yet. The special frames (Root, 表情) cannot be deleted
//! (the edit refuses, and the tree offers no deletion).

use crate::command::{Command, EditCommand, EditRequest};
use crate::widgets::properties::{PropertyGrid, text_field_ui};
use crate::widgets::table::fields::{morph_label, name_cell_ui};
use crate::widgets::table::{ColumnSpec, ElementTable, SortValue};
use crate::widgets::{EditCx, PaneCx, PaneParts};
use pmx_core::edit::Elements;
use pmx_core::edit::{SetField, field};
use pmx_core::model::{BoneIdx, DisplayFrame, DisplayItem, ElementKind, Model, MorphIdx};
use std::collections::HashSet;

/// The display frame table.
#[derive(Debug, Clone, Copy, Default)]
pub struct DisplayFrameTable;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    NameJa,
    NameEn,
    Special,
    Items,
}

const COLUMNS: [(Col, &str, f32); 4] = [
    (Col::NameJa, "frame.name_ja", 140.0),
    (Col::NameEn, "frame.name_en", 120.0),
    (Col::Special, "frame.special", 70.0),
    (Col::Items, "frame.items", 70.0),
];

impl ElementTable for DisplayFrameTable {
    fn kind(&self) -> ElementKind {
        ElementKind::DisplayFrame
    }

    fn columns(&self, _model: &Model) -> Vec<ColumnSpec> {
        ColumnSpec::of_list(&COLUMNS)
    }

    fn cell_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize, column: usize) {
        let Some(frame) = cx.model.display_frames.get(index) else {
            return;
        };
        match COLUMNS.get(column).map(|c| c.0) {
            Some(Col::NameJa) => {
                name_cell_ui(
                    cx,
                    ui,
                    index,
                    field::<DisplayFrame>().name_ja(),
                    &frame.name_ja.as_str(),
                );
            }
            Some(Col::NameEn) => {
                name_cell_ui(
                    cx,
                    ui,
                    index,
                    field::<DisplayFrame>().name_en(),
                    &frame.name_en.as_str(),
                );
            }
            Some(Col::Special) if frame.special => {
                ui.label(cx.tr("frame.special_mark"))
                    .on_hover_text(cx.tr("frame.special_hint"));
            }
            Some(Col::Items) => {
                ui.label(frame.items.len().to_string());
            }
            Some(Col::Special) | None => {}
        }
    }

    fn sort_value(&self, model: &Model, index: usize, column: usize) -> SortValue {
        let Some(frame) = model.display_frames.get(index) else {
            return SortValue::Number(0.0);
        };
        match COLUMNS.get(column).map(|c| c.0) {
            Some(Col::NameJa) => SortValue::Text(frame.name_ja.as_str().into_owned()),
            Some(Col::NameEn) => SortValue::Text(frame.name_en.as_str().into_owned()),
            Some(Col::Special) => SortValue::Number(f64::from(u8::from(frame.special))),
            Some(Col::Items) => SortValue::Number(frame.items.len() as f64),
            None => SortValue::Number(0.0),
        }
    }

    fn row_text(&self, model: &Model, index: usize, out: &mut String) {
        if let Some(frame) = model.display_frames.get(index) {
            out.push_str(&frame.name_ja.as_str());
            out.push(' ');
            out.push_str(&frame.name_en.as_str());
        }
    }

    fn new_element(&self, _model: &Model, _at: usize) -> Option<Elements> {
        let frame = DisplayFrame {
            name_ja: "新規枠".into(),
            name_en: "new frame".into(),
            special: false,
            items: Vec::new(),
        };
        Some(Elements::DisplayFrames(vec![frame]))
    }

    fn properties_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, grid: &mut PropertyGrid<'_>) {
        let model = cx.model;
        let frame = |i: usize| model.display_frames.get(i);
        let indices = grid.indices;
        grid.show(ui, "frame_properties", |ui, grid| {
            text_field_ui(
                cx,
                ui,
                grid,
                "frame.name_ja",
                field::<DisplayFrame>().name_ja(),
                false,
                |i| frame(i).map(|f| f.name_ja.as_str().into_owned()),
            );
            text_field_ui(
                cx,
                ui,
                grid,
                "frame.name_en",
                field::<DisplayFrame>().name_en(),
                false,
                |i| frame(i).map(|f| f.name_en.as_str().into_owned()),
            );
            ui.label(cx.tr("frame.special"));
            let special = indices.iter().filter_map(|&i| frame(i)).any(|f| f.special);
            ui.label(if special {
                cx.tr("frame.special_hint")
            } else {
                "-"
            });
            ui.end_row();
            ui.label(cx.tr("frame.items"));
            let items: usize = indices
                .iter()
                .filter_map(|&i| frame(i))
                .map(|f| f.items.len())
                .sum();
            ui.label(items.to_string());
            ui.end_row();
        });
    }
}

/// An item being dragged in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ItemDrag {
    frame: usize,
    item: usize,
}

/// Where an item goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemPlace {
    pub frame: usize,
    /// Position in the frame's list (before the move); `None`: at the end.
    pub before: Option<usize>,
}

/// The tree's UI state.
#[derive(Debug, Default)]
pub struct FrameTreeState {
    collapsed: HashSet<usize>,
    /// Selected items as (frame, position).
    pub selected: HashSet<(usize, usize)>,
}

fn items_op(frame: usize, items: &[DisplayItem]) -> SetField {
    SetField::new(field::<DisplayFrame>().items(), vec![frame], items.to_vec())
}

fn labelled(sets: Vec<SetField>, label: pmx_core::edit::EditLabel) -> Command {
    Command::Edit(EditCommand {
        request: EditRequest::Sets { sets, label },
        gesture: None,
        select_created: false,
    })
}

/// The ops that move item `from` to `to` (one set when within a frame, two otherwise).
#[must_use]
pub fn move_item_ops(model: &Model, from: (usize, usize), to: ItemPlace) -> Option<Vec<SetField>> {
    let source = model.display_frames.get(from.0)?;
    let item = *source.items.get(from.1)?;
    let dest = model.display_frames.get(to.frame)?;
    if from.0 == to.frame {
        let mut items = source.items.clone();
        let before = to.before.unwrap_or(items.len()).min(items.len());
        if before == from.1 || before == from.1 + 1 {
            return None;
        }
        items.remove(from.1);
        let at = if before > from.1 { before - 1 } else { before };
        items.insert(at, item);
        return Some(vec![items_op(from.0, &items)]);
    }
    let mut source_items = source.items.clone();
    source_items.remove(from.1);
    let mut dest_items = dest.items.clone();
    let at = to.before.unwrap_or(dest_items.len()).min(dest_items.len());
    dest_items.insert(at, item);
    Some(vec![
        items_op(from.0, &source_items),
        items_op(to.frame, &dest_items),
    ])
}

/// The bones (visible and operable ones) or morphs no frame lists, ascending: the validator's
/// rule ([`Model::unlisted_bones`]).
#[must_use]
pub fn unlisted(model: &Model, bones: bool) -> Vec<usize> {
    if bones {
        model.unlisted_bones()
    } else {
        model.unlisted_morphs()
    }
}

/// The frame morphs are registered in: the special 表情 frame, else `fallback`.
fn expression_frame(model: &Model, fallback: Option<usize>) -> Option<usize> {
    model.expression_frame().or(fallback)
}

fn item_text(cx: &EditCx<'_>, item: DisplayItem) -> (String, bool) {
    match item {
        DisplayItem::Bone(Some(b)) => (
            format!("{} {}", cx.tr("frame.item_bone"), cx.bone_label(b.get())),
            b.get() < cx.model.bones.len(),
        ),
        DisplayItem::Morph(Some(m)) => (
            format!("{} {}", cx.tr("frame.item_morph"), morph_label(cx, m.get())),
            m.get() < cx.model.morphs.len(),
        ),
        DisplayItem::Bone(None) => (
            format!("{} ({})", cx.tr("frame.item_bone"), cx.tr("common.none")),
            false,
        ),
        DisplayItem::Morph(None) => (
            format!("{} ({})", cx.tr("frame.item_morph"), cx.tr("common.none")),
            false,
        ),
    }
}

/// The frame tree with its buttons.
#[allow(clippy::too_many_lines)]
pub fn frame_tree_ui(ui: &mut egui::Ui, state: &mut FrameTreeState, cx: &mut PaneCx<'_>) {
    let PaneParts {
        model,
        selection,
        commands,
        lang,
        names,
        ..
    } = cx.parts();
    let frame_count = model.display_frames.len();
    state.selected.retain(|&(f, i)| {
        model
            .display_frames
            .get(f)
            .is_some_and(|fr| i < fr.items.len())
    });
    let current = selection
        .get(ElementKind::DisplayFrame)
        .current
        .filter(|&f| f < frame_count);
    let edit = EditCx {
        model,
        commands,
        lang,
        names,
        base_dir: None,
    };
    let mut pushed: Vec<Command> = Vec::new();
    let mut select_frame: Option<usize> = None;
    let mut select_element: Option<(ElementKind, usize)> = None;

    // Buttons: add from the selections, remove, register what no frame lists.
    let bones: Vec<usize> = selection.get(ElementKind::Bone).indices.to_vec();
    let morphs: Vec<usize> = selection.get(ElementKind::Morph).indices.to_vec();
    ui.horizontal_wrapped(|ui| {
        let target = current.and_then(|f| model.display_frames.get(f).map(|fr| (f, fr)));
        for (kind, picked) in [(ElementKind::Bone, &bones), (ElementKind::Morph, &morphs)] {
            let key = if kind == ElementKind::Bone {
                "frame.add_bones"
            } else {
                "frame.add_morphs"
            };
            let text = lang.format(key, &[("count", &picked.len())]);
            if ui
                .add_enabled(
                    target.is_some() && !picked.is_empty(),
                    egui::Button::new(text),
                )
                .on_hover_text(lang.tr("frame.add_hint"))
                .clicked()
                && let Some((f, frame)) = target
            {
                let mut items = frame.items.clone();
                for &i in picked {
                    let item = if kind == ElementKind::Bone {
                        DisplayItem::Bone(Some(BoneIdx::new(i)))
                    } else {
                        DisplayItem::Morph(Some(MorphIdx::new(i)))
                    };
                    if !items.contains(&item) {
                        items.push(item);
                    }
                }
                pushed.push(Command::set_request(items_op(f, &items)));
            }
        }
        let text = lang.format("frame.remove_items", &[("count", &state.selected.len())]);
        if ui
            .add_enabled(!state.selected.is_empty(), egui::Button::new(text))
            .clicked()
        {
            let mut ops = Vec::new();
            let touched: HashSet<usize> = state.selected.iter().map(|&(f, _)| f).collect();
            let mut frames: Vec<usize> = touched.into_iter().collect();
            frames.sort_unstable();
            for f in frames {
                if let Some(frame) = model.display_frames.get(f) {
                    let items: Vec<DisplayItem> = frame
                        .items
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| !state.selected.contains(&(f, *i)))
                        .map(|(_, item)| *item)
                        .collect();
                    ops.push(items_op(f, &items));
                }
            }
            let count = state.selected.len();
            pushed.push(labelled(
                ops,
                pmx_core::edit::EditLabel::new("frame.remove_items_label")
                    .arg("count", pmx_core::edit::LabelArg::Number(count)),
            ));
            state.selected.clear();
        }
    });
    ui.horizontal_wrapped(|ui| {
        let unlisted_bones = unlisted(model, true);
        let bone_frame = current.filter(|&f| Some(f) != expression_frame(model, None));
        let text = lang.format("frame.register_bones", &[("count", &unlisted_bones.len())]);
        if ui
            .add_enabled(
                bone_frame.is_some() && !unlisted_bones.is_empty(),
                egui::Button::new(text),
            )
            .on_hover_text(lang.tr("frame.register_bones_hint"))
            .clicked()
            && let Some(f) = bone_frame
            && let Some(frame) = model.display_frames.get(f)
        {
            let mut items = frame.items.clone();
            items.extend(
                unlisted_bones
                    .iter()
                    .map(|&b| DisplayItem::Bone(Some(BoneIdx::new(b)))),
            );
            pushed.push(Command::set_request(items_op(f, &items)));
        }
        let unlisted_morphs = unlisted(model, false);
        let morph_frame = expression_frame(model, current);
        let text = lang.format(
            "frame.register_morphs",
            &[("count", &unlisted_morphs.len())],
        );
        if ui
            .add_enabled(
                morph_frame.is_some() && !unlisted_morphs.is_empty(),
                egui::Button::new(text),
            )
            .on_hover_text(lang.tr("frame.register_morphs_hint"))
            .clicked()
            && let Some(f) = morph_frame
            && let Some(frame) = model.display_frames.get(f)
        {
            let mut items = frame.items.clone();
            items.extend(
                unlisted_morphs
                    .iter()
                    .map(|&m| DisplayItem::Morph(Some(MorphIdx::new(m)))),
            );
            pushed.push(Command::set_request(items_op(f, &items)));
        }
    });
    ui.weak(lang.tr("frame.drag_hint"));
    ui.separator();

    let mut dropped: Option<(ItemDrag, ItemPlace)> = None;
    let mut clicked_item: Option<((usize, usize), egui::Modifiers)> = None;
    egui::ScrollArea::vertical()
        .id_salt("frame_tree")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (f, frame) in model.display_frames.iter().enumerate() {
                let open = !state.collapsed.contains(&f);
                let header = ui.horizontal(|ui| {
                    if ui
                        .add(egui::Button::new(if open { "−" } else { "+" }).frame(false))
                        .accessible_name(format!("frame tree {f} expand"))
                        .clicked()
                        && !state.collapsed.remove(&f)
                    {
                        state.collapsed.insert(f);
                    }
                    let (ja, en) = (frame.name_ja.as_str(), frame.name_en.as_str());
                    let mut text = egui::RichText::new(format!(
                        "{f} {} ({})",
                        names.pick(&ja, &en),
                        frame.items.len()
                    ))
                    .strong();
                    if frame.special {
                        text = text.italics();
                    }
                    let response = ui
                        .add(egui::Button::selectable(current == Some(f), text))
                        .accessible_name(format!("frame tree {f}"));
                    if frame.special {
                        ui.weak(lang.tr("frame.special_mark"))
                            .on_hover_text(lang.tr("frame.special_hint"));
                    }
                    if response.clicked() {
                        select_frame = Some(f);
                    }
                    response
                });
                let header_response = header.inner;
                if let Some(payload) = header_response.dnd_hover_payload::<ItemDrag>() {
                    let _ = payload;
                    ui.painter().rect_stroke(
                        header_response.rect,
                        2.0,
                        egui::Stroke::new(2.0, ui.visuals().selection.stroke.color),
                        egui::StrokeKind::Inside,
                    );
                }
                if let Some(payload) = header_response.dnd_release_payload::<ItemDrag>() {
                    dropped = Some((
                        *payload,
                        ItemPlace {
                            frame: f,
                            before: None,
                        },
                    ));
                }
                if !open {
                    continue;
                }
                for (i, item) in frame.items.iter().enumerate() {
                    ui.horizontal(|ui| {
                        ui.add_space(22.0);
                        let (text, exists) = item_text(&edit, *item);
                        let selected = state.selected.contains(&(f, i));
                        let mut rich = egui::RichText::new(text);
                        if !exists {
                            rich = rich.color(ui.visuals().warn_fg_color);
                        }
                        let response = ui
                            .add(
                                egui::Button::selectable(selected, rich)
                                    .sense(egui::Sense::click_and_drag()),
                            )
                            .accessible_name(format!("frame tree {f} item {i}"));
                        response.dnd_set_drag_payload(ItemDrag { frame: f, item: i });
                        if response.clicked() {
                            clicked_item = Some(((f, i), ui.input(|inp| inp.modifiers)));
                        }
                        if response.dnd_hover_payload::<ItemDrag>().is_some() {
                            let rect = response.rect;
                            ui.painter().hline(
                                rect.x_range(),
                                rect.top(),
                                egui::Stroke::new(2.0, ui.visuals().selection.stroke.color),
                            );
                        }
                        if let Some(payload) = response.dnd_release_payload::<ItemDrag>() {
                            dropped = Some((
                                *payload,
                                ItemPlace {
                                    frame: f,
                                    before: Some(i),
                                },
                            ));
                        }
                        response.context_menu(|ui| {
                            ui.label(egui::RichText::new(lang.tr("frame.move_to")).weak());
                            for (g, other) in model.display_frames.iter().enumerate() {
                                if g == f {
                                    continue;
                                }
                                let (ja, en) = (other.name_ja.as_str(), other.name_en.as_str());
                                if ui.button(format!("{g} {}", names.pick(&ja, &en))).clicked() {
                                    dropped = Some((
                                        ItemDrag { frame: f, item: i },
                                        ItemPlace {
                                            frame: g,
                                            before: None,
                                        },
                                    ));
                                    ui.close();
                                }
                            }
                            ui.separator();
                            if ui.button(lang.tr("context.delete")).clicked() {
                                let mut items = frame.items.clone();
                                items.remove(i);
                                pushed.push(Command::set_request(items_op(f, &items)));
                                ui.close();
                            }
                        });
                    });
                }
            }
        });

    if let Some(((f, i), modifiers)) = clicked_item {
        if modifiers.command {
            if !state.selected.remove(&(f, i)) {
                state.selected.insert((f, i));
            }
        } else {
            state.selected.clear();
            state.selected.insert((f, i));
        }
        select_frame = Some(f);
        // The bone or morph of the item becomes the selected one of its kind.
        match model.display_frames.get(f).and_then(|fr| fr.items.get(i)) {
            Some(DisplayItem::Bone(Some(b))) if b.get() < model.bones.len() => {
                select_element = Some((ElementKind::Bone, b.get()));
            }
            Some(DisplayItem::Morph(Some(m))) if m.get() < model.morphs.len() => {
                select_element = Some((ElementKind::Morph, m.get()));
            }
            _ => {}
        }
    }
    if let Some(f) = select_frame {
        selection.get_mut(ElementKind::DisplayFrame).select_only(f);
    }
    if let Some((kind, index)) = select_element {
        selection.get_mut(kind).select_only(index);
    }
    if let Some((drag, place)) = dropped
        && let Some(ops) = move_item_ops(model, (drag.frame, drag.item), place)
    {
        state.selected.clear();
        pushed.push(labelled(
            ops,
            pmx_core::edit::EditLabel::new("frame.move_item_label"),
        ));
    }
    for command in pushed {
        edit.commands.push(command);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::model::{Bone, Morph};

    fn model() -> Model {
        let mut model = Model::new_empty();
        model.bones = vec![Bone::default(); 4];
        model.morphs = vec![
            Morph {
                name_ja: "a".into(),
                name_en: "a".into(),
                panel: pmx_core::model::MorphPanel::Eye,
                offsets: pmx_core::model::MorphOffsets::Vertex(Vec::new()),
            };
            2
        ];
        let b = |i| DisplayItem::Bone(Some(BoneIdx::new(i)));
        model.display_frames[0].items = vec![b(0)];
        model.display_frames[1].items = vec![DisplayItem::Morph(Some(MorphIdx::new(1)))];
        model.display_frames.push(DisplayFrame {
            name_ja: "体".into(),
            name_en: "body".into(),
            special: false,
            items: vec![b(1), b(2), b(9)],
        });
        model
    }

    #[test]
    fn unlisted_elements_are_found() {
        let model = model();
        assert_eq!(unlisted(&model, true), vec![3]);
        assert_eq!(unlisted(&model, false), vec![0]);
        assert_eq!(expression_frame(&model, None), Some(1));
    }

    #[test]
    fn items_move_within_and_between_frames() {
        let model = model();
        let b = |i| DisplayItem::Bone(Some(BoneIdx::new(i)));
        // Item 0 of frame 2 to the end of frame 2.
        let ops = move_item_ops(
            &model,
            (2, 0),
            ItemPlace {
                frame: 2,
                before: None,
            },
        )
        .unwrap();
        assert_eq!(ops, vec![items_op(2, &[b(2), b(9), b(1)])]);
        // Onto its own place: nothing to do.
        assert!(
            move_item_ops(
                &model,
                (2, 1),
                ItemPlace {
                    frame: 2,
                    before: Some(2)
                }
            )
            .is_none()
        );
        // Item 1 of frame 2 before item 0 of frame 0.
        let ops = move_item_ops(
            &model,
            (2, 1),
            ItemPlace {
                frame: 0,
                before: Some(0),
            },
        )
        .unwrap();
        assert_eq!(
            ops,
            vec![items_op(2, &[b(1), b(9)]), items_op(0, &[b(2), b(0)])]
        );
        assert!(
            move_item_ops(
                &model,
                (7, 0),
                ItemPlace {
                    frame: 0,
                    before: None
                }
            )
            .is_none()
        );
    }
}
