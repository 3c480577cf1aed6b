//! The panes: one per tab, each drawn from one context type ([`PaneCx`]) through one
//! dispatcher ([`pane_ui`]).
//!
//! - the element tables (頂点, 面, テクスチャ, 材質, ボーン, モーフ, 表示枠, 剛体, Joint, SoftBody): one
//!   generic table ([`crate::widgets::table`]) given each kind's columns and cells
//!   ([`crate::widgets::table::ElementTable`], one file per kind here), with the bone tree beside
//!   the bone table, the offset table below the morph table, the frame tree beside the frame
//!   table and the soft body's anchor and pin lists below its table;
//! - 情報 (info), 履歴 (history), ポーズ (pose), 3D表示 (view), 検証 (validation).
//!
//! Panes read the document and push commands; none changes the model.

pub mod bone_tree;
pub mod bones;
pub mod display_frames;
pub mod faces;
pub mod history;
pub mod info;
pub mod joints;
pub mod materials;
pub mod morph_preview;
pub mod morphs;
pub mod pose;
pub mod pose_feed;
pub mod rigid_bodies;
pub mod soft_bodies;
pub mod textures;
pub mod uv;
pub mod validation;
pub mod vertices;
pub mod view;

pub use crate::widgets::PaneCx;
pub use bones::BoneTable;
pub use display_frames::DisplayFrameTable;
pub use faces::FaceTable;
pub use joints::JointTable;
pub use materials::MaterialTable;
pub use morphs::MorphTable;
pub use rigid_bodies::RigidBodyTable;
pub use soft_bodies::SoftBodyTable;
pub use textures::TextureTable;
pub use vertices::VertexTable;

use crate::editor::workspace::Pane;
use crate::widgets::EditCx;
use crate::widgets::table::{ElementTable, TableState, table_pane_ui};
use bone_tree::{BoneTreeState, bone_tree_ui};
use display_frames::{FrameTreeState, frame_tree_ui};
use morphs::{OffsetTableState, offset_table_ui};
use pmx_core::model::ElementKind;
use soft_bodies::soft_body_lists_ui;
use std::collections::HashMap;

/// The state of the editors beside the tables (reset with each opened document).
#[derive(Debug, Default)]
pub struct EditorsState {
    pub bone_tree: BoneTreeState,
    pub offsets: OffsetTableState,
    pub frame_tree: FrameTreeState,
}

/// The panes' own states (kept by the editor between frames).
#[derive(Debug)]
pub struct PaneStates<'a> {
    pub tables: &'a mut HashMap<ElementKind, TableState>,
    pub editors: &'a mut EditorsState,
    pub validation: &'a mut validation::ValidationState,
    pub pose: &'a mut pose::PoseState,
    pub view: &'a mut view::ViewState,
    pub uv: &'a mut uv::UvState,
}

/// The table of an element kind.
#[must_use]
pub fn table_of(kind: ElementKind) -> &'static dyn ElementTable {
    match kind {
        ElementKind::Vertex => &VertexTable,
        ElementKind::Face => &FaceTable,
        ElementKind::Texture => &TextureTable,
        ElementKind::Material => &MaterialTable,
        ElementKind::Bone => &BoneTable,
        ElementKind::Morph => &MorphTable,
        ElementKind::DisplayFrame => &DisplayFrameTable,
        ElementKind::RigidBody => &RigidBodyTable,
        ElementKind::Joint => &JointTable,
        ElementKind::SoftBody => &SoftBodyTable,
    }
}

/// The one dispatcher: draws `pane` of the open document.
pub fn pane_ui(ui: &mut egui::Ui, pane: Pane, states: PaneStates<'_>, cx: &mut PaneCx<'_>) {
    match pane {
        Pane::Info => info::info_pane_ui(ui, cx),
        Pane::History => history::history_pane_ui(ui, cx),
        Pane::Pose => pose::pose_pane_ui(ui, states.pose, cx),
        Pane::View => view::view_pane_ui(ui, states.view, cx),
        Pane::Uv => uv::uv_pane_ui(ui, states.uv, states.pose, states.view, cx),
        Pane::Validation => validation::validation_pane_ui(
            ui,
            states.validation,
            cx,
            &states.view.scene.texture_problems,
        ),
        element_pane => {
            let Some(kind) = element_pane.kind() else {
                return;
            };
            let Some(table) = states.tables.get_mut(&kind) else {
                return;
            };
            if kind == ElementKind::Morph {
                let current = cx.document.selection.get(kind).current;
                egui::Panel::top("morph_preview").show(ui, |ui| {
                    morph_preview::morph_preview_ui(ui, states.pose, states.view, cx, current);
                });
            }
            element_pane_ui(ui, kind, table, states.editors, cx);
        }
    }
}

/// The default width and the range of a tree beside a table pane `width` wide: `share` of it
/// (at most `largest`), but first the table keeps its index and name columns
/// ([`crate::widgets::table::table_min_width`] of `table_min`) and the property panel its width.
fn tree_size(width: f32, share: f32, largest: f32, table_min: f32) -> (f32, egui::Rangef) {
    let room = width - table_min - crate::widgets::table::PROPERTY_PANEL_WIDTH;
    let max = room.clamp(140.0, 800.0);
    let min = 140.0_f32.min(max);
    (
        (width * share).clamp(min, largest.min(max)),
        egui::Rangef::new(min, max),
    )
}

/// The pane of an element kind: its table, and the editor beside or below it.
fn element_pane_ui(
    ui: &mut egui::Ui,
    kind: ElementKind,
    table: &mut TableState,
    editors: &mut EditorsState,
    cx: &mut PaneCx<'_>,
) {
    match kind {
        ElementKind::Bone => {
            let table_min = crate::widgets::table::table_min_width(&BoneTable, &cx.document.model);
            let (width, range) = tree_size(ui.available_width(), 0.28, 280.0, table_min);
            egui::Panel::left("bone_tree")
                .resizable(true)
                .default_size(width)
                .size_range(range)
                .show(ui, |ui| {
                    bone_tree_ui(ui, &mut editors.bone_tree, cx);
                });
            egui::CentralPanel::default().show(ui, |ui| {
                table_pane_ui(ui, &BoneTable, table, cx);
            });
        }
        ElementKind::Morph => {
            let current = cx.document.selection.get(kind).current;
            if let Some(index) = current.filter(|&i| i < cx.document.model.morphs.len()) {
                egui::Panel::bottom("morph_offsets")
                    .resizable(true)
                    .default_size(ui.available_height() * 0.5)
                    .show(ui, |ui| {
                        offset_table_ui(ui, &mut editors.offsets, cx, index);
                    });
            }
            egui::CentralPanel::default().show(ui, |ui| {
                table_pane_ui(ui, &MorphTable, table, cx);
            });
        }
        ElementKind::DisplayFrame => {
            let table_min =
                crate::widgets::table::table_min_width(&DisplayFrameTable, &cx.document.model);
            let (width, range) = tree_size(ui.available_width(), 0.3, 380.0, table_min);
            egui::Panel::left("frame_tree")
                .resizable(true)
                .default_size(width)
                .size_range(range)
                .show(ui, |ui| {
                    frame_tree_ui(ui, &mut editors.frame_tree, cx);
                });
            egui::CentralPanel::default().show(ui, |ui| {
                table_pane_ui(ui, &DisplayFrameTable, table, cx);
            });
        }
        ElementKind::Vertex
        | ElementKind::Face
        | ElementKind::Texture
        | ElementKind::Material
        | ElementKind::RigidBody
        | ElementKind::Joint => table_pane_ui(ui, table_of(kind), table, cx),
        ElementKind::SoftBody => {
            let current = cx.document.selection.get(kind).current;
            if let Some(index) = current.filter(|&i| i < cx.document.model.soft_bodies.len()) {
                let selected_vertices = cx.document.selection.get(ElementKind::Vertex).targets();
                egui::Panel::bottom("soft_body_lists")
                    .resizable(true)
                    .default_size(220.0)
                    .show(ui, |ui| {
                        let mut edit: EditCx<'_> = cx.edit();
                        soft_body_lists_ui(&mut edit, ui, index, &selected_vertices);
                    });
            }
            egui::CentralPanel::default().show(ui, |ui| {
                table_pane_ui(ui, &SoftBodyTable, table, cx);
            });
        }
    }
}
