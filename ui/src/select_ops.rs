//! 編集 > 選択: the selection tools as commands (すべて選択, 選択解除, 選択の反転, 繋がったパーツ,
//! 材質で選択, ウェイトで選択, 対称選択, 選択範囲を拡大/縮小). Each answers through the queries of
//! `pmx_core::select` (the grammar `--select`, `pmx-studio select` and scripts use) and changes
//! the selection only: a selection is not an edit, so no step enters the history. The menu,
//! the 3D view's context menu and keys send the same [`crate::command::Command::SelectOp`].

use crate::selection::{KindSelection, Selection};
use pmx_core::Model;
use pmx_core::edit::PaintIndex;
use pmx_core::model::ElementKind;
use pmx_core::select;

/// A selection tool, acting on the selection of one kind (the 3D view's pick kind).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SelectOp {
    /// すべて選択: every element of the kind.
    All,
    /// 選択解除: none.
    None,
    /// 選択の反転: what is not selected.
    Invert,
    /// 繋がったパーツを選択: the faces-connected parts holding the selected vertices (faces).
    Linked,
    /// 材質で選択: the vertices (faces) of the materials that draw the selected ones, or of
    /// the selected materials when none is selected.
    ByMaterial,
    /// ウェイトで選択: the vertices weighted to the selected bones above `threshold`.
    ByWeight { threshold: f32 },
    /// 対称選択: the X-mirror counterparts of the selected vertices join them.
    Mirror,
    /// 選択範囲を拡大: one ring more over face edges.
    Grow,
    /// 選択範囲を縮小: one ring less.
    Shrink,
}

/// A selection tool's keys: Ctrl (⌘ on a Mac), Shift when `shift`, and any of `keys`.
#[derive(Debug, Clone, Copy)]
pub struct SelectShortcut {
    pub op: SelectOp,
    /// As Help > Shortcuts and the menu show it.
    pub shown: &'static str,
    pub shift: bool,
    /// `+` is `=` unshifted on most keyboards, so both grow.
    pub keys: &'static [egui::Key],
}

/// The tools' keys, the one table the editor binds (while the 3D view has the focus) and
/// Help > Shortcuts and the 選択 menu show; they follow what PmxEditor and Blender users reach
/// for and clash with no other Ctrl shortcut.
pub const SELECT_SHORTCUTS: &[SelectShortcut] = &[
    SelectShortcut {
        op: SelectOp::None,
        shown: "Ctrl+Shift+A",
        shift: true,
        keys: &[egui::Key::A],
    },
    SelectShortcut {
        op: SelectOp::All,
        shown: "Ctrl+A",
        shift: false,
        keys: &[egui::Key::A],
    },
    SelectShortcut {
        op: SelectOp::Invert,
        shown: "Ctrl+I",
        shift: false,
        keys: &[egui::Key::I],
    },
    SelectShortcut {
        op: SelectOp::Linked,
        shown: "Ctrl+L",
        shift: false,
        keys: &[egui::Key::L],
    },
    SelectShortcut {
        op: SelectOp::Mirror,
        shown: "Ctrl+M",
        shift: false,
        keys: &[egui::Key::M],
    },
    SelectShortcut {
        op: SelectOp::Grow,
        shown: "Ctrl++",
        shift: false,
        keys: &[egui::Key::Plus, egui::Key::Equals],
    },
    SelectShortcut {
        op: SelectOp::Shrink,
        shown: "Ctrl+-",
        shift: false,
        keys: &[egui::Key::Minus],
    },
];

impl SelectOp {
    /// The i18n key of the tool's menu item.
    #[must_use]
    pub fn label_key(self) -> &'static str {
        match self {
            SelectOp::All => "select.all",
            SelectOp::None => "select.none",
            SelectOp::Invert => "select.invert",
            SelectOp::Linked => "select.linked",
            SelectOp::ByMaterial => "select.by_material",
            SelectOp::ByWeight { .. } => "select.by_weight",
            SelectOp::Mirror => "select.mirror",
            SelectOp::Grow => "select.grow",
            SelectOp::Shrink => "select.shrink",
        }
    }

    /// The key shown beside the tool ([`SELECT_SHORTCUTS`]), if it has one.
    #[must_use]
    pub fn shortcut(self) -> Option<&'static str> {
        SELECT_SHORTCUTS
            .iter()
            .find(|line| std::mem::discriminant(&line.op) == std::mem::discriminant(&self))
            .map(|line| line.shown)
    }

    /// Whether the tool applies to a selection of `target` (the mesh tools to vertices, and
    /// linked, by material, grow and shrink to faces too; all, none and invert to any kind).
    #[must_use]
    pub fn applies_to(self, target: ElementKind) -> bool {
        match self {
            SelectOp::All | SelectOp::None | SelectOp::Invert => true,
            SelectOp::ByWeight { .. } | SelectOp::Mirror => target == ElementKind::Vertex,
            SelectOp::Linked | SelectOp::ByMaterial | SelectOp::Grow | SelectOp::Shrink => {
                matches!(target, ElementKind::Vertex | ElementKind::Face)
            }
        }
    }

    /// Changes the selection of `target` as the tool says (nothing when it does not apply).
    /// `mirror` is the editor's X-mirror lookup for the model, if it keeps one.
    pub fn apply(
        self,
        model: &Model,
        selection: &mut Selection,
        target: ElementKind,
        mirror: Option<&PaintIndex>,
    ) {
        if !self.applies_to(target) {
            return;
        }
        let count = model.count(target);
        let selected = selection.get(target).targets();
        let chosen = match self {
            SelectOp::All => select::all(count),
            SelectOp::None => Vec::new(),
            SelectOp::Invert => select::invert(count, &selected),
            SelectOp::Linked if target == ElementKind::Face => {
                select::linked_faces(model, &selected)
            }
            SelectOp::Linked => select::linked_vertices(model, &selected),
            SelectOp::ByMaterial => {
                let materials = if selected.is_empty() {
                    selection.get(ElementKind::Material).targets()
                } else if target == ElementKind::Face {
                    select::materials_of_faces(model, &selected)
                } else {
                    select::materials_of_vertices(model, &selected)
                };
                let mut chosen = if target == ElementKind::Face {
                    select::material_faces(model, &materials)
                } else {
                    select::material_vertices(model, &materials)
                };
                // A selected vertex in no face stays selected.
                chosen.extend(&selected);
                chosen
            }
            SelectOp::ByWeight { threshold } => {
                let bones = selection.get(ElementKind::Bone).targets();
                select::weighted_vertices(model, &bones, threshold)
            }
            SelectOp::Mirror => {
                let mut chosen = match mirror {
                    Some(index) if index.fits(model) => {
                        select::mirror_vertices_with(model, index, &selected)
                    }
                    _ => select::mirror_vertices(model, &selected),
                };
                chosen.extend(&selected);
                chosen
            }
            SelectOp::Grow if target == ElementKind::Face => select::grow_faces(model, &selected),
            SelectOp::Grow => select::grow_vertices(model, &selected),
            SelectOp::Shrink if target == ElementKind::Face => {
                select::shrink_faces(model, &selected)
            }
            SelectOp::Shrink => select::shrink_vertices(model, &selected),
        };
        replace(selection.get_mut(target), chosen);
    }
}

/// The kind the selection tools act on for the 3D view's pick kind: vertices when it picks
/// materials (材質で選択 and the mesh tools work on their vertices), else the kind itself.
#[must_use]
pub fn select_target(pick_kind: ElementKind) -> ElementKind {
    match pick_kind {
        ElementKind::Material => ElementKind::Vertex,
        other => other,
    }
}

/// `selection` becomes `chosen` (any order, repeats allowed); the current element stays if it
/// is still selected, else the first becomes current.
fn replace(selection: &mut KindSelection, mut chosen: Vec<usize>) {
    chosen.sort_unstable();
    chosen.dedup();
    let current = selection
        .current
        .filter(|current| chosen.binary_search(current).is_ok())
        .or_else(|| chosen.first().copied());
    selection.clear();
    let mut runs = chosen.iter().copied().peekable();
    while let Some(start) = runs.next() {
        let mut end = start + 1;
        while runs.peek() == Some(&end) {
            end += 1;
            runs.next();
        }
        selection.indices.insert_range(start, end);
    }
    selection.current = current;
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::generate::sample_model;

    #[test]
    fn tools_replace_the_selection_of_their_kind() {
        let model = sample_model();
        let mut selection = Selection::default();
        selection.get_mut(ElementKind::Vertex).select_only(0);
        SelectOp::Linked.apply(&model, &mut selection, ElementKind::Vertex, None);
        assert_eq!(
            selection.get(ElementKind::Vertex).indices.to_vec(),
            select::linked_vertices(&model, &[0])
        );
        assert_eq!(selection.get(ElementKind::Vertex).current, Some(0));
        SelectOp::Invert.apply(&model, &mut selection, ElementKind::Vertex, None);
        assert_eq!(
            selection.get(ElementKind::Vertex).indices.to_vec(),
            select::invert(model.vertices.len(), &select::linked_vertices(&model, &[0]))
        );
        SelectOp::None.apply(&model, &mut selection, ElementKind::Vertex, None);
        assert!(selection.get(ElementKind::Vertex).indices.is_empty());
        // Bones take all, none and invert only.
        SelectOp::Grow.apply(&model, &mut selection, ElementKind::Bone, None);
        assert!(selection.get(ElementKind::Bone).indices.is_empty());
        SelectOp::All.apply(&model, &mut selection, ElementKind::Bone, None);
        assert_eq!(
            selection.get(ElementKind::Bone).indices.len(),
            model.bones.len()
        );
        assert_eq!(select_target(ElementKind::Material), ElementKind::Vertex);
        assert_eq!(SelectOp::Invert.shortcut(), Some("Ctrl+I"));
    }
}
