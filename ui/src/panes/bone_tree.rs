//! The bone hierarchy as a tree beside the bone table: find a bone by name as you type, expand
//! and collapse, select (the selection is the table's), drag a bone onto another to re-parent
//! it or onto the upper edge of a row to move it before that bone (one undoable edit each).
//!
//! Only the visible rows are built (the tree is flattened into rows first), so a model with
//! thousands of bones stays fast. Broken hierarchies are shown, not hidden: a bone whose parent
//! is missing is a root marked with the missing index, and bones in a parent cycle are roots
//! marked as such.

use crate::command::Command;
use crate::panes::bones::bone_icon_ui;
use crate::selection::KindSelection;
use crate::widgets::{PaneCx, PaneParts};
use pmx_core::edit::{EditOp, field};
use pmx_core::model::{Bone, BoneIdx, ElementKind, Model};
use std::collections::HashSet;

/// A bone being dragged in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BoneDrag(usize);

/// Why a bone is a root of the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RootReason {
    NoParent,
    MissingParent(i32),
    Cycle,
}

/// The hierarchy derived from the parents (rebuilt when the model changes).
#[derive(Debug, Default)]
struct Hierarchy {
    key: (u64, u64),
    children: Vec<Vec<u32>>,
    roots: Vec<(u32, RootReason)>,
    parent: Vec<Option<u32>>,
    /// Lowercased "ja en" names for the search.
    names: Vec<String>,
}

impl Hierarchy {
    fn build(model: &Model, key: (u64, u64)) -> Self {
        let len = model.bones.len();
        let mut children = vec![Vec::new(); len];
        let mut roots = Vec::new();
        let mut parent = vec![None; len];
        for (i, bone) in model.bones.iter().enumerate() {
            match bone.parent {
                None => roots.push((i as u32, RootReason::NoParent)),
                Some(p) if p.get() >= len => {
                    roots.push((i as u32, RootReason::MissingParent(p.raw())));
                }
                Some(p) if p.get() == i => roots.push((i as u32, RootReason::Cycle)),
                Some(p) => {
                    children[p.get()].push(i as u32);
                    parent[i] = Some(p.get() as u32);
                }
            }
        }
        // Bones not reachable from a root sit in a parent cycle: show each cycle from its
        // lowest bone, so that every bone appears exactly once.
        let mut reached = vec![false; len];
        let mut stack: Vec<u32> = roots.iter().map(|&(r, _)| r).collect();
        while let Some(b) = stack.pop() {
            if std::mem::replace(&mut reached[b as usize], true) {
                continue;
            }
            stack.extend(children[b as usize].iter().copied());
        }
        for i in 0..len {
            if reached[i] {
                continue;
            }
            roots.push((i as u32, RootReason::Cycle));
            if let Some(p) = parent[i] {
                children[p as usize].retain(|&c| c as usize != i);
            }
            parent[i] = None;
            let mut stack = vec![i as u32];
            while let Some(b) = stack.pop() {
                if std::mem::replace(&mut reached[b as usize], true) {
                    continue;
                }
                stack.extend(children[b as usize].iter().copied());
            }
        }
        roots.sort_by_key(|&(r, _)| r);
        let names = model
            .bones
            .iter()
            .map(|b| format!("{} {}", b.name_ja.as_str(), b.name_en.as_str()).to_lowercase())
            .collect();
        Self {
            key,
            children,
            roots,
            parent,
            names,
        }
    }

    /// Whether `bone` is `ancestor` or below it.
    fn is_within(&self, bone: usize, ancestor: usize) -> bool {
        let mut at = Some(bone as u32);
        let mut steps = 0;
        while let Some(b) = at {
            if b as usize == ancestor {
                return true;
            }
            steps += 1;
            if steps > self.parent.len() {
                return false;
            }
            at = self.parent.get(b as usize).copied().flatten();
        }
        false
    }
}

/// One visible row of the tree.
#[derive(Debug, Clone, Copy)]
struct Row {
    bone: u32,
    depth: u16,
    root: Option<RootReason>,
    matched: bool,
}

/// The tree's UI state.
#[derive(Debug, Default)]
pub struct BoneTreeState {
    /// Find as you type: shows the matching bones with their ancestors.
    pub search: String,
    collapsed: HashSet<usize>,
    hierarchy: Hierarchy,
    rows: Vec<Row>,
    last_current: Option<usize>,
    scroll_to_row: Option<usize>,
}

impl BoneTreeState {
    /// The bones the tree shows, in row order (as of the last frame).
    #[must_use]
    pub fn shown_bones(&self) -> Vec<usize> {
        self.rows.iter().map(|r| r.bone as usize).collect()
    }

    fn refresh(&mut self, model: &Model, key: (u64, u64)) {
        if self.hierarchy.key != key || self.hierarchy.names.len() != model.bones.len() {
            self.hierarchy = Hierarchy::build(model, key);
        }
        let needle = self.search.trim().to_lowercase();
        let hierarchy = &self.hierarchy;
        // With a search: the matches and their ancestors, everything expanded.
        let keep: Option<Vec<bool>> = (!needle.is_empty()).then(|| {
            let mut keep = vec![false; hierarchy.names.len()];
            for (i, name) in hierarchy.names.iter().enumerate() {
                if name.contains(&needle) || i.to_string() == needle {
                    let mut at = Some(i as u32);
                    while let Some(b) = at {
                        if std::mem::replace(&mut keep[b as usize], true) {
                            break;
                        }
                        at = hierarchy.parent[b as usize];
                    }
                }
            }
            keep
        });
        self.rows.clear();
        let mut stack: Vec<(u32, u16, Option<RootReason>)> = hierarchy
            .roots
            .iter()
            .rev()
            .map(|&(r, reason)| (r, 0, Some(reason)))
            .collect();
        while let Some((bone, depth, root)) = stack.pop() {
            let b = bone as usize;
            if keep.as_ref().is_some_and(|k| !k[b]) {
                continue;
            }
            let matched = !needle.is_empty()
                && (hierarchy.names[b].contains(&needle) || b.to_string() == needle);
            self.rows.push(Row {
                bone,
                depth,
                root,
                matched,
            });
            if keep.is_some() || !self.collapsed.contains(&b) {
                for &child in hierarchy.children[b].iter().rev() {
                    stack.push((child, depth.saturating_add(1), None));
                }
            }
        }
    }

    /// Expands the ancestors of `bone` so that its row shows.
    fn reveal(&mut self, bone: usize) {
        let mut at = self.hierarchy.parent.get(bone).copied().flatten();
        let mut steps = 0;
        while let Some(p) = at {
            self.collapsed.remove(&(p as usize));
            steps += 1;
            if steps > self.hierarchy.parent.len() {
                break;
            }
            at = self.hierarchy.parent.get(p as usize).copied().flatten();
        }
    }
}

/// Where a dragged bone was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DropTarget {
    /// Onto a bone: it becomes the parent.
    Parent(usize),
    /// Onto a row's upper edge: move before that bone.
    Before(usize),
    /// Onto the space below the tree: no parent.
    Root,
}

/// The op a drop makes: re-parent the dragged bones (the selection, when the dragged bone is in
/// it), or move them before another bone. `None` when the drop would make a cycle.
fn drop_op(
    hierarchy: &Hierarchy,
    dragged: &[usize],
    target: DropTarget,
    len: usize,
) -> Option<Command> {
    match target {
        DropTarget::Parent(parent) => {
            if dragged.iter().any(|&d| hierarchy.is_within(parent, d)) {
                return None;
            }
            Some(Command::set(
                field::<Bone>().parent(),
                dragged.to_vec(),
                Some(BoneIdx::new(parent)),
            ))
        }
        DropTarget::Root => Some(Command::set(
            field::<Bone>().parent(),
            dragged.to_vec(),
            None,
        )),
        DropTarget::Before(before) => {
            if dragged.contains(&before) {
                return None;
            }
            let shift = dragged.iter().filter(|&&d| d < before).count();
            let to = before - shift;
            (to + dragged.len() <= len).then(|| {
                Command::ops(vec![EditOp::Move {
                    kind: ElementKind::Bone,
                    indices: dragged.to_vec(),
                    to: Some(to),
                    by: None,
                }])
            })
        }
    }
}

/// The tree (with its search field and buttons).
pub fn bone_tree_ui(ui: &mut egui::Ui, state: &mut BoneTreeState, cx: &mut PaneCx<'_>) {
    let PaneParts {
        model,
        selection,
        commands,
        lang,
        names,
        document_id,
        revision,
        ..
    } = cx.parts();
    let key = (document_id, revision);
    let selection = selection.get_mut(ElementKind::Bone);
    state.refresh(model, key);
    // Follow the selection made elsewhere (table, links): show and scroll to its row.
    if selection.current != state.last_current {
        state.last_current = selection.current;
        if let Some(current) = selection.current {
            state.reveal(current);
            state.refresh(model, key);
            state.scroll_to_row = state.rows.iter().position(|r| r.bone as usize == current);
        }
    }
    ui.horizontal(|ui| {
        ui.label(lang.tr("bone_tree.find"));
        let response = ui
            .add(
                egui::TextEdit::singleline(&mut state.search)
                    .hint_text(lang.tr("bone_tree.find_hint"))
                    .desired_width(ui.available_width().max(60.0)),
            )
            .accessible_name(lang.tr("bone_tree.find"));
        // Enter selects the first match.
        if response.lost_focus()
            && ui.input(|i| i.key_pressed(egui::Key::Enter))
            && let Some(row) = state.rows.iter().find(|r| r.matched)
        {
            selection.select_only(row.bone as usize);
        }
    });
    ui.horizontal(|ui| {
        if ui.small_button(lang.tr("bone_tree.expand_all")).clicked() {
            state.collapsed.clear();
        }
        if ui.small_button(lang.tr("bone_tree.collapse_all")).clicked() {
            state.collapsed = (0..model.bones.len())
                .filter(|&b| !state.hierarchy.children[b].is_empty())
                .collect();
        }
        ui.weak(lang.format(
            "bone_tree.count",
            &[("shown", &state.rows.len()), ("total", &model.bones.len())],
        ));
    });
    ui.weak(lang.tr("bone_tree.drag_hint"));
    ui.separator();

    let row_height = ui.spacing().interact_size.y;
    let mut clicked: Option<(usize, egui::Modifiers)> = None;
    let mut toggled: Option<usize> = None;
    let mut dropped: Option<(usize, DropTarget)> = None;
    let dragging = egui::DragAndDrop::has_payload_of_type::<BoneDrag>(ui.ctx());
    let mut scroll = egui::ScrollArea::vertical()
        .id_salt("bone_tree_rows")
        .auto_shrink([false, false]);
    if let Some(row) = state.scroll_to_row.take() {
        let offset = (row as f32 * (row_height + ui.spacing().item_spacing.y)
            - ui.available_height() / 2.0)
            .max(0.0);
        scroll = scroll.vertical_scroll_offset(offset);
    }
    // Leave room below the rows for the "make root" drop zone.
    let zone_height = 28.0;
    let rows_height = (ui.available_height() - zone_height - 8.0).max(row_height * 3.0);
    ui.allocate_ui(egui::vec2(ui.available_width(), rows_height), |ui| {
        scroll.show_rows(ui, row_height, state.rows.len(), |ui, range| {
            for row in &state.rows[range] {
                let bone_index = row.bone as usize;
                let Some(bone) = model.bones.get(bone_index) else {
                    continue;
                };
                ui.horizontal(|ui| {
                    ui.add_space(f32::from(row.depth) * 14.0);
                    let has_children = !state.hierarchy.children[bone_index].is_empty();
                    if has_children {
                        // A search shows everything it keeps expanded.
                        let open = !state.search.trim().is_empty()
                            || !state.collapsed.contains(&bone_index);
                        if ui
                            .add(egui::Button::new(if open { "−" } else { "+" }).frame(false))
                            .accessible_name(format!("bone tree {bone_index} expand"))
                            .clicked()
                        {
                            toggled = Some(bone_index);
                        }
                    } else {
                        ui.add_space(ui.spacing().interact_size.y * 0.6);
                    }
                    bone_icon_ui(ui, lang, bone);
                    let (ja, en) = (bone.name_ja.as_str(), bone.name_en.as_str());
                    let name = names.pick(&ja, &en);
                    let mut text = egui::RichText::new(format!("{bone_index} {name}"));
                    if row.matched {
                        text = text.strong();
                    }
                    let selected = selection.indices.contains(bone_index);
                    let response = ui
                        .add(
                            egui::Button::selectable(selected, text)
                                .sense(egui::Sense::click_and_drag()),
                        )
                        .accessible_name(format!("bone tree {bone_index}"));
                    match row.root {
                        Some(RootReason::MissingParent(raw)) => {
                            ui.colored_label(
                                ui.visuals().warn_fg_color,
                                lang.format("bone_tree.missing_parent", &[("index", &raw)]),
                            );
                        }
                        Some(RootReason::Cycle) => {
                            ui.colored_label(
                                ui.visuals().error_fg_color,
                                lang.tr("bone_tree.cycle"),
                            );
                        }
                        _ => {}
                    }
                    response.dnd_set_drag_payload(BoneDrag(bone_index));
                    if response.clicked() {
                        clicked = Some((bone_index, ui.input(|i| i.modifiers)));
                    }
                    let rect = response.rect;
                    let upper = |pos: Option<egui::Pos2>| {
                        pos.is_some_and(|p| p.y < rect.top() + rect.height() * 0.3)
                    };
                    if let Some(payload) = response.dnd_hover_payload::<BoneDrag>() {
                        let pos = ui.input(|i| i.pointer.interact_pos());
                        let dragged = dragged_bones(selection, payload.0);
                        let target = if upper(pos) {
                            DropTarget::Before(bone_index)
                        } else {
                            DropTarget::Parent(bone_index)
                        };
                        let ok = drop_op(&state.hierarchy, &dragged, target, model.bones.len())
                            .is_some();
                        let color = if ok {
                            ui.visuals().selection.stroke.color
                        } else {
                            ui.visuals().error_fg_color
                        };
                        let stroke = egui::Stroke::new(2.0, color);
                        if matches!(target, DropTarget::Before(_)) {
                            ui.painter().hline(rect.x_range(), rect.top(), stroke);
                        } else {
                            ui.painter()
                                .rect_stroke(rect, 2.0, stroke, egui::StrokeKind::Inside);
                        }
                    }
                    if let Some(payload) = response.dnd_release_payload::<BoneDrag>() {
                        let pos = ui.input(|i| i.pointer.interact_pos());
                        let target = if upper(pos) {
                            DropTarget::Before(bone_index)
                        } else {
                            DropTarget::Parent(bone_index)
                        };
                        dropped = Some((payload.0, target));
                    }
                });
            }
        });
    });
    // Dropping below the rows makes the bone a root.
    let (zone, zone_response) = ui.allocate_exact_size(
        egui::vec2(ui.available_width(), zone_height),
        egui::Sense::hover(),
    );
    if dragging {
        let hovered = zone_response.dnd_hover_payload::<BoneDrag>().is_some();
        let stroke = ui.visuals().widgets.noninteractive.bg_stroke;
        let stroke = if hovered {
            egui::Stroke::new(2.0, ui.visuals().selection.stroke.color)
        } else {
            stroke
        };
        ui.painter()
            .rect_stroke(zone, 4.0, stroke, egui::StrokeKind::Inside);
        ui.painter().text(
            zone.center(),
            egui::Align2::CENTER_CENTER,
            lang.tr("bone_tree.drop_root"),
            egui::FontId::proportional(12.0),
            ui.visuals().weak_text_color(),
        );
    }
    let _ = zone_response
        .clone()
        .accessible_name(lang.tr("bone_tree.drop_root"));
    if let Some(payload) = zone_response.dnd_release_payload::<BoneDrag>() {
        dropped = Some((payload.0, DropTarget::Root));
    }

    if let Some(bone) = toggled
        && !state.collapsed.remove(&bone)
    {
        state.collapsed.insert(bone);
    }
    if let Some((bone, modifiers)) = clicked {
        if modifiers.command {
            selection.indices.toggle(bone);
            selection.current = Some(bone);
        } else {
            selection.select_only(bone);
        }
        // The user clicked the row: it is where it is, no scrolling.
        state.last_current = selection.current;
    }
    if let Some((bone, target)) = dropped {
        let dragged = dragged_bones(selection, bone);
        if let Some(command) = drop_op(&state.hierarchy, &dragged, target, model.bones.len()) {
            commands.push(command);
        }
    }
}

/// The bones a drag moves: the selected bones when the dragged one is selected, else only it.
fn dragged_bones(selection: &KindSelection, bone: usize) -> Vec<usize> {
    if selection.indices.contains(bone) {
        selection.indices.to_vec()
    } else {
        vec![bone]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::model::Bone;

    fn bones(parents: &[i32]) -> Model {
        let mut model = Model::new_empty();
        model.bones = parents
            .iter()
            .enumerate()
            .map(|(i, &p)| Bone {
                name_ja: format!("骨{i}").into(),
                parent: BoneIdx::from_raw(p),
                ..Bone::default()
            })
            .collect();
        model
    }

    #[test]
    fn rows_follow_the_hierarchy_and_show_broken_parents() {
        // 0 ← 1 ← 2, 3 has a missing parent, 4 and 5 are each other's parents.
        let model = bones(&[-1, 0, 1, 99, 5, 4, 0]);
        let mut state = BoneTreeState::default();
        state.refresh(&model, (1, 1));
        let rows: Vec<(u32, u16)> = state.rows.iter().map(|r| (r.bone, r.depth)).collect();
        assert_eq!(
            rows,
            vec![(0, 0), (1, 1), (2, 2), (6, 1), (3, 0), (4, 0), (5, 1)]
        );
        assert_eq!(state.rows[4].root, Some(RootReason::MissingParent(99)));
        assert_eq!(state.rows[5].root, Some(RootReason::Cycle));

        state.collapsed.insert(1);
        state.refresh(&model, (1, 1));
        assert_eq!(state.shown_bones(), vec![0, 1, 6, 3, 4, 5]);

        // Search keeps the ancestors of the matches.
        state.search = "骨2".into();
        state.refresh(&model, (1, 1));
        assert_eq!(state.shown_bones(), vec![0, 1, 2]);
        assert!(state.rows[2].matched && !state.rows[0].matched);
    }

    #[test]
    fn drops_refuse_cycles_and_compute_move_targets() {
        let model = bones(&[-1, 0, 1, 0]);
        let hierarchy = Hierarchy::build(&model, (0, 0));
        // Bone 0 onto its grandchild 2 would make a cycle.
        assert_eq!(drop_op(&hierarchy, &[0], DropTarget::Parent(2), 4), None);
        assert_eq!(drop_op(&hierarchy, &[1], DropTarget::Parent(1), 4), None);
        let command = drop_op(&hierarchy, &[2], DropTarget::Parent(3), 4).unwrap();
        assert_eq!(
            command,
            Command::set(field::<Bone>().parent(), vec![2], Some(BoneIdx::new(3)))
        );
        // Bone 3 before bone 1: it ends up at index 1.
        let command = drop_op(&hierarchy, &[3], DropTarget::Before(1), 4).unwrap();
        assert_eq!(
            command,
            Command::ops(vec![EditOp::Move {
                kind: ElementKind::Bone,
                indices: vec![3],
                to: Some(1),
                by: None
            }])
        );
        // Bone 0 before bone 3: three bones were before it, one of them moves.
        let command = drop_op(&hierarchy, &[0], DropTarget::Before(3), 4).unwrap();
        assert!(matches!(
            command,
            Command::Edit(crate::command::EditCommand {
                request: crate::command::EditRequest::Ops { ref ops, .. },
                ..
            }) if matches!(ops[0], EditOp::Move { to: Some(2), .. })
        ));
    }
}
