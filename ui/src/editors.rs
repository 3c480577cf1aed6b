//! The panes of the structure editors (bones, morphs, display frames, rigid bodies, joints, soft
//! bodies): the generic element table of each kind, with the bone tree beside the bone table,
//! the offset table below the morph table and the frame tree beside the frame table.

use crate::bone_tree::{BoneTreeCx, BoneTreeState, bone_tree_ui};
use crate::command::Commands;
use crate::document::Document;
use crate::frames::{DisplayFrameTable, FrameTreeCx, FrameTreeState, frame_tree_ui};
use crate::i18n::{Language, NameLanguage};
use crate::table::morphs::{MorphTable, OffsetCx, OffsetTableState, offset_table_ui};
use crate::table::soft_bodies::soft_body_lists_ui;
use crate::table::{
    BoneTable, JointTable, RigidBodyTable, SoftBodyTable, TableCx, TableState, table_pane_ui,
};
use crate::widgets::EditCx;
use pmx_core::model::ElementKind;

/// The state of the editors beside the tables (reset with each opened document).
#[derive(Debug, Default)]
pub struct EditorsState {
    pub bone_tree: BoneTreeState,
    pub offsets: OffsetTableState,
    pub frame_tree: FrameTreeState,
}

/// What a structure editor pane works with.
#[derive(Debug)]
pub struct PaneCx<'a> {
    pub document: &'a mut Document,
    pub document_id: u64,
    pub commands: &'a mut Commands,
    pub lang: Language,
    pub names: NameLanguage,
}

impl PaneCx<'_> {
    fn table_cx(&mut self, kind: ElementKind) -> TableCx<'_> {
        let revision = self.document.revision();
        let structure_revision = self.document.structure_revision(kind);
        let document = &mut *self.document;
        TableCx {
            model: &document.model,
            document_id: self.document_id,
            revision,
            structure_revision,
            selection: document.selection.get_mut(kind),
            commands: self.commands,
            lang: self.lang,
            names: self.names,
            base_dir: document.path.as_deref().and_then(std::path::Path::parent),
        }
    }
}

/// The default width and the range of a tree beside a table pane `width` wide: `share` of it
/// (at most `largest`), but first the table keeps its index and name columns
/// ([`crate::table::table_min_width`] of `table_min`) and the property panel its width.
fn tree_size(width: f32, share: f32, largest: f32, table_min: f32) -> (f32, egui::Rangef) {
    let room = width - table_min - crate::table::PROPERTY_PANEL_WIDTH;
    let max = room.clamp(140.0, 800.0);
    let min = 140.0_f32.min(max);
    (
        (width * share).clamp(min, largest.min(max)),
        egui::Rangef::new(min, max),
    )
}

/// Whether [`editor_pane_ui`] draws the pane of `kind`.
#[must_use]
pub fn handles(kind: ElementKind) -> bool {
    matches!(
        kind,
        ElementKind::Bone
            | ElementKind::Morph
            | ElementKind::DisplayFrame
            | ElementKind::RigidBody
            | ElementKind::Joint
            | ElementKind::SoftBody
    )
}

/// The pane of `kind` (one of those [`handles`] names).
pub fn editor_pane_ui(
    ui: &mut egui::Ui,
    kind: ElementKind,
    table: &mut TableState,
    editors: &mut EditorsState,
    mut cx: PaneCx<'_>,
) {
    match kind {
        ElementKind::Bone => {
            let key = (cx.document_id, cx.document.revision());
            let table_min = crate::table::table_min_width(&BoneTable, &cx.document.model);
            let (width, range) = tree_size(ui.available_width(), 0.22, 260.0, table_min);
            egui::Panel::left("bone_tree")
                .resizable(true)
                .default_size(width)
                .size_range(range)
                .show(ui, |ui| {
                    let document = &mut *cx.document;
                    bone_tree_ui(
                        ui,
                        &mut editors.bone_tree,
                        BoneTreeCx {
                            model: &document.model,
                            key,
                            selection: document.selection.get_mut(ElementKind::Bone),
                            commands: cx.commands,
                            lang: cx.lang,
                            names: cx.names,
                        },
                    );
                });
            egui::CentralPanel::default().show(ui, |ui| {
                table_pane_ui(ui, &BoneTable, table, cx.table_cx(kind));
            });
        }
        ElementKind::Morph => {
            let current = cx.document.selection.get(kind).current;
            if let Some(index) = current.filter(|&i| i < cx.document.model.morphs.len()) {
                egui::Panel::bottom("morph_offsets")
                    .resizable(true)
                    .default_size(ui.available_height() * 0.5)
                    .show(ui, |ui| {
                        offset_table_ui(
                            ui,
                            &mut editors.offsets,
                            OffsetCx {
                                model: &cx.document.model,
                                selection: &cx.document.selection,
                                commands: cx.commands,
                                lang: cx.lang,
                                names: cx.names,
                            },
                            index,
                        );
                    });
            }
            egui::CentralPanel::default().show(ui, |ui| {
                table_pane_ui(ui, &MorphTable, table, cx.table_cx(kind));
            });
        }
        ElementKind::DisplayFrame => {
            let table_min = crate::table::table_min_width(&DisplayFrameTable, &cx.document.model);
            let (width, range) = tree_size(ui.available_width(), 0.3, 380.0, table_min);
            egui::Panel::left("frame_tree")
                .resizable(true)
                .default_size(width)
                .size_range(range)
                .show(ui, |ui| {
                    let document = &mut *cx.document;
                    frame_tree_ui(
                        ui,
                        &mut editors.frame_tree,
                        FrameTreeCx {
                            model: &document.model,
                            selection: &mut document.selection,
                            commands: cx.commands,
                            lang: cx.lang,
                            names: cx.names,
                        },
                    );
                });
            egui::CentralPanel::default().show(ui, |ui| {
                table_pane_ui(ui, &DisplayFrameTable, table, cx.table_cx(kind));
            });
        }
        ElementKind::RigidBody => {
            table_pane_ui(ui, &RigidBodyTable, table, cx.table_cx(kind));
        }
        ElementKind::Joint => table_pane_ui(ui, &JointTable, table, cx.table_cx(kind)),
        ElementKind::SoftBody => {
            let current = cx.document.selection.get(kind).current;
            if let Some(index) = current.filter(|&i| i < cx.document.model.soft_bodies.len()) {
                let selected_vertices = cx.document.selection.get(ElementKind::Vertex).targets();
                egui::Panel::bottom("soft_body_lists")
                    .resizable(true)
                    .default_size(220.0)
                    .show(ui, |ui| {
                        let mut edit = EditCx {
                            model: &cx.document.model,
                            commands: cx.commands,
                            lang: cx.lang,
                            names: cx.names,
                            base_dir: None,
                        };
                        soft_body_lists_ui(&mut edit, ui, index, &selected_vertices);
                    });
            }
            egui::CentralPanel::default().show(ui, |ui| {
                table_pane_ui(ui, &SoftBodyTable, table, cx.table_cx(kind));
            });
        }
        _ => {}
    }
}
