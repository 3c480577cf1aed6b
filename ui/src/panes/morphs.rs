//! モーフ (morphs): the list with panel (眉/目/口/その他) and kind, and below it the offsets of the
//! current morph for every kind: vertex (index, offset), UV and additional UV 1-4 (vec4), bone
//! (move, rotation edited as Euler degrees and stored as a quaternion), material (target or all,
//! multiply/add, every coefficient), group and flip (morph, ratio), impulse (rigid body, local,
//! velocity, torque). Offsets are added from the current vertex / bone / material / morph /
//! rigid body selection; a morph's kind changes where the offsets allow it (an empty morph, or
//! among UV kinds, or between group and flip).
//!
//! The offset table builds only its visible rows: a morph with 100,000 offsets scrolls as fast
//! as one with ten.

use crate::command::Command;
use crate::selection::{IndexSet, Selection};
use crate::widgets::properties::{IntegerField, PropertyGrid, text_field_ui};
use crate::widgets::table::fields::{
    Pick, choice_field_ui, choice_ui, degrees_drag, morph_label, name_cell_ui, pick_ui,
};
use crate::widgets::table::{ColumnSpec, ElementTable, SortValue};
use crate::widgets::{EditCx, PaneCx, PaneParts, f32_drag, i64_drag, index_picker_ui};
use egui_extras::{Column, TableBuilder};
use pmx_core::edit::Elements;
use pmx_core::edit::{Field, Vector, field};
use pmx_core::model::{
    BoneIdx, BoneMorphOffset, ElementKind, GroupMorphOffset, ImpulseMorphOffset, MaterialIdx,
    MaterialMorphOffset, MaterialMorphOp, Model, Morph, MorphIdx, MorphKind, MorphOffsets,
    MorphPanel, RigidBodyIdx, UvMorphOffset, Vec3, Vec4, VertexIdx, VertexMorphOffset,
};

/// The morph table.
#[derive(Debug, Clone, Copy, Default)]
pub struct MorphTable;

pub const PANELS: [(MorphPanel, &str); 5] = [
    (MorphPanel::Eyebrow, "morph.panel_eyebrow"),
    (MorphPanel::Eye, "morph.panel_eye"),
    (MorphPanel::Mouth, "morph.panel_mouth"),
    (MorphPanel::Other, "morph.panel_other"),
    (MorphPanel::System, "morph.panel_system"),
];

pub const KINDS: [(MorphKind, &str); 11] = [
    (MorphKind::Group, "morph.kind_group"),
    (MorphKind::Vertex, "morph.kind_vertex"),
    (MorphKind::Bone, "morph.kind_bone"),
    (MorphKind::Uv, "morph.kind_uv"),
    (MorphKind::AdditionalUv1, "morph.kind_additional_uv1"),
    (MorphKind::AdditionalUv2, "morph.kind_additional_uv2"),
    (MorphKind::AdditionalUv3, "morph.kind_additional_uv3"),
    (MorphKind::AdditionalUv4, "morph.kind_additional_uv4"),
    (MorphKind::Material, "morph.kind_material"),
    (MorphKind::Flip, "morph.kind_flip"),
    (MorphKind::Impulse, "morph.kind_impulse"),
];

#[must_use]
pub fn kind_key(kind: MorphKind) -> &'static str {
    KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("morph.kind_group", |(_, key)| key)
}

fn unknown_panel(panel: MorphPanel) -> String {
    format!("? ({})", panel.to_raw())
}

fn unknown_kind(kind: MorphKind) -> String {
    format!("? ({})", kind as u8)
}

fn is_uv(kind: MorphKind) -> bool {
    matches!(
        kind,
        MorphKind::Uv
            | MorphKind::AdditionalUv1
            | MorphKind::AdditionalUv2
            | MorphKind::AdditionalUv3
            | MorphKind::AdditionalUv4
    )
}

/// Whether a morph's offsets can become `to` without losing anything: an empty morph can take
/// any kind; UV kinds share their offsets, and so do group and flip.
#[must_use]
pub fn can_convert(offsets: &MorphOffsets, to: MorphKind) -> bool {
    let from = offsets.kind();
    offsets.is_empty()
        || from == to
        || (is_uv(from) && is_uv(to))
        || matches!(
            (from, to),
            (MorphKind::Group, MorphKind::Flip) | (MorphKind::Flip, MorphKind::Group)
        )
}

/// `offsets` as kind `to` (see [`can_convert`]): the same offsets under the other kind.
#[must_use]
pub fn converted(offsets: &MorphOffsets, to: MorphKind) -> Option<MorphOffsets> {
    if !can_convert(offsets, to) {
        return None;
    }
    if offsets.is_empty() {
        return Some(MorphOffsets::empty(to));
    }
    let uv = |list: &Vec<pmx_core::model::UvMorphOffset>| match to {
        MorphKind::Uv => Some(MorphOffsets::Uv(list.clone())),
        MorphKind::AdditionalUv1 => Some(MorphOffsets::AdditionalUv1(list.clone())),
        MorphKind::AdditionalUv2 => Some(MorphOffsets::AdditionalUv2(list.clone())),
        MorphKind::AdditionalUv3 => Some(MorphOffsets::AdditionalUv3(list.clone())),
        MorphKind::AdditionalUv4 => Some(MorphOffsets::AdditionalUv4(list.clone())),
        _ => None,
    };
    match offsets {
        MorphOffsets::Uv(list)
        | MorphOffsets::AdditionalUv1(list)
        | MorphOffsets::AdditionalUv2(list)
        | MorphOffsets::AdditionalUv3(list)
        | MorphOffsets::AdditionalUv4(list) => uv(list),
        MorphOffsets::Group(list) | MorphOffsets::Flip(list) => match to {
            MorphKind::Group => Some(MorphOffsets::Group(list.clone())),
            MorphKind::Flip => Some(MorphOffsets::Flip(list.clone())),
            _ => None,
        },
        same if same.kind() == to => Some(same.clone()),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    NameJa,
    NameEn,
    Panel,
    Kind,
    Count,
}

const COLUMNS: [(Col, &str, f32); 5] = [
    (Col::NameJa, "morph.name_ja", 130.0),
    (Col::NameEn, "morph.name_en", 110.0),
    (Col::Panel, "morph.panel", 70.0),
    (Col::Kind, "morph.kind", 80.0),
    (Col::Count, "morph.offset_count", 60.0),
];

impl ElementTable for MorphTable {
    fn kind(&self) -> ElementKind {
        ElementKind::Morph
    }

    fn columns(&self, _model: &Model) -> Vec<ColumnSpec> {
        ColumnSpec::of_list(&COLUMNS)
    }

    /// Every column: the property panel gives way before the table hides one (five narrow
    /// columns; the offsets are edited below the table).
    fn key_columns(&self) -> usize {
        COLUMNS.len()
    }

    fn cell_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize, column: usize) {
        let Some(morph) = cx.model.morphs.get(index) else {
            return;
        };
        let Some(&(col, _, _)) = COLUMNS.get(column) else {
            return;
        };
        match col {
            Col::NameJa => name_cell_ui(
                cx,
                ui,
                index,
                field::<Morph>().name_ja(),
                &morph.name_ja.as_str(),
            ),
            Col::NameEn => name_cell_ui(
                cx,
                ui,
                index,
                field::<Morph>().name_en(),
                &morph.name_en.as_str(),
            ),
            Col::Panel => {
                let name = format!("morph {index} panel");
                if let Some(panel) = choice_ui(
                    cx,
                    ui,
                    Some(morph.panel),
                    &PANELS,
                    &unknown_panel,
                    90.0,
                    &name,
                ) {
                    let value = panel;
                    cx.commands
                        .push(Command::set(field::<Morph>().panel(), vec![index], value));
                }
            }
            Col::Kind => {
                ui.label(cx.tr(kind_key(morph.offsets.kind())));
            }
            Col::Count => {
                ui.label(morph.offsets.len().to_string());
            }
        }
    }

    fn sort_value(&self, model: &Model, index: usize, column: usize) -> SortValue {
        let Some(morph) = model.morphs.get(index) else {
            return SortValue::Number(0.0);
        };
        let Some(&(col, _, _)) = COLUMNS.get(column) else {
            return SortValue::Number(0.0);
        };
        match col {
            Col::NameJa => SortValue::Text(morph.name_ja.as_str().into_owned()),
            Col::NameEn => SortValue::Text(morph.name_en.as_str().into_owned()),
            Col::Panel => SortValue::Number(f64::from(morph.panel.to_raw())),
            Col::Kind => SortValue::Number(f64::from(morph.offsets.kind() as u8)),
            Col::Count => SortValue::Number(morph.offsets.len() as f64),
        }
    }

    fn row_text(&self, model: &Model, index: usize, out: &mut String) {
        if let Some(morph) = model.morphs.get(index) {
            out.push_str(&morph.name_ja.as_str());
            out.push(' ');
            out.push_str(&morph.name_en.as_str());
        }
    }

    fn new_element(&self, _model: &Model, _at: usize) -> Option<Elements> {
        let morph = Morph {
            name_ja: "新規モーフ".into(),
            name_en: "new morph".into(),
            panel: MorphPanel::Other,
            offsets: MorphOffsets::Vertex(Vec::new()),
        };
        Some(Elements::Morphs(vec![morph]))
    }

    fn properties_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, grid: &mut PropertyGrid<'_>) {
        let model = cx.model;
        let morph = |i: usize| model.morphs.get(i);
        let indices = grid.indices;
        grid.show(ui, "morph_properties", |ui, grid| {
            text_field_ui(
                cx,
                ui,
                grid,
                "morph.name_ja",
                field::<Morph>().name_ja(),
                false,
                |i| morph(i).map(|m| m.name_ja.as_str().into_owned()),
            );
            text_field_ui(
                cx,
                ui,
                grid,
                "morph.name_en",
                field::<Morph>().name_en(),
                false,
                |i| morph(i).map(|m| m.name_en.as_str().into_owned()),
            );
            choice_field_ui(
                cx,
                ui,
                grid,
                "morph.panel",
                field::<Morph>().panel(),
                &PANELS,
                &unknown_panel,
                |i| morph(i).map(|m| m.panel),
            );
            ui.label(cx.tr("morph.kind"));
            if let [only] = indices
                && let Some(m) = morph(*only)
            {
                // Only the kinds the offsets can become are offered.
                let allowed: Vec<(MorphKind, &'static str)> = KINDS
                    .iter()
                    .copied()
                    .filter(|&(k, _)| can_convert(&m.offsets, k))
                    .collect();
                let picked = choice_ui(
                    cx,
                    ui,
                    Some(m.offsets.kind()),
                    &allowed,
                    &unknown_kind,
                    150.0,
                    "kind",
                );
                if let Some(json) = picked.and_then(|to| converted(&m.offsets, to)) {
                    cx.commands
                        .push(Command::set(field::<Morph>().offsets(), vec![*only], json));
                }
            } else {
                let kind = grid
                    .summary("kind", |i| morph(i).map(|m| m.offsets.kind()))
                    .and_then(|(k, mixed)| (!mixed).then_some(k));
                ui.label(kind.map_or("—", |k| cx.tr(kind_key(k))));
            }
            ui.end_row();
            ui.label(cx.tr("morph.offset_count"));
            let total: usize = indices
                .iter()
                .filter_map(|&i| morph(i))
                .map(|m| m.offsets.len())
                .sum();
            ui.label(total.to_string());
            ui.end_row();
        });
        ui.weak(cx.tr("morph.kind_hint"));
    }
}

/// The offset table's state.
#[derive(Debug, Default)]
pub struct OffsetTableState {
    /// Selected offsets (positions in the current morph's list).
    pub selected: IndexSet,
    /// The morph the selection belongs to.
    morph: Option<usize>,
    pub goto_text: String,
    scroll_to_row: Option<usize>,
}

/// Euler angles (radians, x y z) of a quaternion (x y z w), in MMD's order (Y, then X, then Z).
#[must_use]
pub fn quat_to_euler(q: Vec4) -> [f32; 3] {
    let angles = pmx_core::model::facts::quat_to_euler(glam::Quat::from_xyzw(q.x, q.y, q.z, q.w));
    [angles.x, angles.y, angles.z]
}

/// The quaternion (x y z w) of Euler angles (radians), inverse of [`quat_to_euler`].
#[must_use]
pub fn euler_to_quat(e: [f32; 3]) -> Vec4 {
    let q = pmx_core::model::facts::euler_to_quat(Vec3::new(e[0], e[1], e[2]));
    Vec4::new(q.x, q.y, q.z, q.w)
}

/// What selection "add from selection" takes for a kind of morph, and how many it has.
fn source_selection(kind: MorphKind, selection: &Selection) -> (ElementKind, Vec<usize>) {
    let source = match kind {
        MorphKind::Vertex
        | MorphKind::Uv
        | MorphKind::AdditionalUv1
        | MorphKind::AdditionalUv2
        | MorphKind::AdditionalUv3
        | MorphKind::AdditionalUv4 => ElementKind::Vertex,
        MorphKind::Bone => ElementKind::Bone,
        MorphKind::Material => ElementKind::Material,
        MorphKind::Group | MorphKind::Flip => ElementKind::Morph,
        MorphKind::Impulse => ElementKind::RigidBody,
    };
    (source, selection.get(source).indices.to_vec())
}

/// The i18n key of the kinds offsets are added from.
fn source_key(kind: ElementKind) -> &'static str {
    match kind {
        ElementKind::Bone => "kind.bones",
        ElementKind::Material => "kind.materials",
        ElementKind::Morph => "kind.morphs",
        ElementKind::RigidBody => "kind.rigid_bodies",
        _ => "kind.vertices",
    }
}

/// The offsets with new ones for `picked` elements appended (those the morph already has are
/// skipped; a group or flip morph never takes itself).
#[must_use]
pub fn with_added(offsets: &MorphOffsets, morph: usize, picked: &[usize]) -> MorphOffsets {
    let mut out = offsets.clone();
    let zero_uv = |v: usize| UvMorphOffset {
        vertex: VertexIdx::new(v),
        offset: Vec4::ZERO,
    };
    match &mut out {
        MorphOffsets::Vertex(list) => {
            let have: std::collections::HashSet<usize> =
                list.iter().map(|o| o.vertex.get()).collect();
            list.extend(
                picked
                    .iter()
                    .filter(|v| !have.contains(v))
                    .map(|&v| VertexMorphOffset {
                        vertex: VertexIdx::new(v),
                        offset: Vec3::ZERO,
                    }),
            );
        }
        MorphOffsets::Uv(list)
        | MorphOffsets::AdditionalUv1(list)
        | MorphOffsets::AdditionalUv2(list)
        | MorphOffsets::AdditionalUv3(list)
        | MorphOffsets::AdditionalUv4(list) => {
            let have: std::collections::HashSet<usize> =
                list.iter().map(|o| o.vertex.get()).collect();
            list.extend(
                picked
                    .iter()
                    .filter(|v| !have.contains(v))
                    .map(|&v| zero_uv(v)),
            );
        }
        MorphOffsets::Bone(list) => {
            let have: Vec<Option<BoneIdx>> = list.iter().map(|o| o.bone).collect();
            list.extend(
                picked
                    .iter()
                    .filter(|&&b| !have.contains(&Some(BoneIdx::new(b))))
                    .map(|&b| BoneMorphOffset {
                        bone: Some(BoneIdx::new(b)),
                        translation: Vec3::ZERO,
                        rotation: Vec4::new(0.0, 0.0, 0.0, 1.0),
                    }),
            );
        }
        MorphOffsets::Material(list) => {
            list.extend(picked.iter().map(|&m| MaterialMorphOffset {
                material: Some(pmx_core::model::MaterialIdx::new(m)),
                op: MaterialMorphOp::Multiply,
                diffuse: Vec4::ONE,
                specular: Vec3::new(1.0, 1.0, 1.0),
                specular_power: 1.0,
                ambient: Vec3::new(1.0, 1.0, 1.0),
                edge_color: Vec4::ONE,
                edge_size: 1.0,
                texture_tint: Vec4::ONE,
                sphere_tint: Vec4::ONE,
                toon_tint: Vec4::ONE,
            }));
        }
        MorphOffsets::Group(list) | MorphOffsets::Flip(list) => {
            let have: Vec<Option<MorphIdx>> = list.iter().map(|o| o.morph).collect();
            list.extend(
                picked
                    .iter()
                    .filter(|&&m| m != morph && !have.contains(&Some(MorphIdx::new(m))))
                    .map(|&m| GroupMorphOffset {
                        morph: Some(MorphIdx::new(m)),
                        ratio: 1.0,
                    }),
            );
        }
        MorphOffsets::Impulse(list) => {
            list.extend(picked.iter().map(|&b| ImpulseMorphOffset {
                rigid_body: Some(RigidBodyIdx::new(b)),
                local: false,
                velocity: Vec3::ZERO,
                torque: Vec3::ZERO,
            }));
        }
    }
    out
}

/// The offsets without those at `remove` (positions, ascending).
#[must_use]
pub fn without(offsets: &MorphOffsets, remove: &IndexSet) -> MorphOffsets {
    fn keep<T: Clone>(list: &[T], remove: &IndexSet) -> Vec<T> {
        list.iter()
            .enumerate()
            .filter(|(i, _)| !remove.contains(*i))
            .map(|(_, o)| o.clone())
            .collect()
    }
    match offsets {
        MorphOffsets::Group(l) => MorphOffsets::Group(keep(l, remove)),
        MorphOffsets::Flip(l) => MorphOffsets::Flip(keep(l, remove)),
        MorphOffsets::Vertex(l) => MorphOffsets::Vertex(keep(l, remove)),
        MorphOffsets::Bone(l) => MorphOffsets::Bone(keep(l, remove)),
        MorphOffsets::Uv(l) => MorphOffsets::Uv(keep(l, remove)),
        MorphOffsets::AdditionalUv1(l) => MorphOffsets::AdditionalUv1(keep(l, remove)),
        MorphOffsets::AdditionalUv2(l) => MorphOffsets::AdditionalUv2(keep(l, remove)),
        MorphOffsets::AdditionalUv3(l) => MorphOffsets::AdditionalUv3(keep(l, remove)),
        MorphOffsets::AdditionalUv4(l) => MorphOffsets::AdditionalUv4(keep(l, remove)),
        MorphOffsets::Material(l) => MorphOffsets::Material(keep(l, remove)),
        MorphOffsets::Impulse(l) => MorphOffsets::Impulse(keep(l, remove)),
    }
}

/// Column titles (i18n keys) and widths of the offset table for a kind.
fn offset_columns(kind: MorphKind) -> Vec<(&'static str, f32)> {
    let vec = |key, n: usize| (key, 58.0 * n as f32 + 8.0);
    match kind {
        MorphKind::Vertex => vec![("offset.vertex", 110.0), vec("offset.offset", 3)],
        MorphKind::Uv
        | MorphKind::AdditionalUv1
        | MorphKind::AdditionalUv2
        | MorphKind::AdditionalUv3
        | MorphKind::AdditionalUv4 => vec![("offset.vertex", 110.0), vec("offset.offset", 4)],
        MorphKind::Bone => vec![
            ("offset.bone", 160.0),
            vec("offset.translation", 3),
            vec("offset.rotation_degrees", 3),
        ],
        MorphKind::Material => vec![
            ("offset.material", 160.0),
            ("offset.op", 90.0),
            vec("offset.diffuse", 4),
            vec("offset.specular", 3),
            vec("offset.specular_power", 1),
            vec("offset.ambient", 3),
            vec("offset.edge_color", 4),
            vec("offset.edge_size", 1),
            vec("offset.texture_tint", 4),
            vec("offset.sphere_tint", 4),
            vec("offset.toon_tint", 4),
        ],
        MorphKind::Group | MorphKind::Flip => {
            vec![("offset.morph", 180.0), vec("offset.ratio", 1)]
        }
        MorphKind::Impulse => vec![
            ("offset.rigid_body", 160.0),
            ("offset.local", 60.0),
            vec("offset.velocity", 3),
            vec("offset.torque", 3),
        ],
    }
}

const MATERIAL_OPS: [(MaterialMorphOp, &str); 2] = [
    (MaterialMorphOp::Multiply, "offset.op_multiply"),
    (MaterialMorphOp::Add, "offset.op_add"),
];

/// Number fields for the components of an offset's vector, each set on its own.
fn numbers_ui<V: Vector>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    morph: usize,
    handle: Field<Morph, V>,
    value: V,
) {
    for c in 0..V::COMPONENTS.len() {
        let (Some(component), Some(current)) = (handle.clone().component(c), value.component(c))
        else {
            continue;
        };
        let name = format!("morph {morph} {}", component.field_path());
        let (response, new) = f32_drag(ui, current, false, 0.01, 4, &name);
        cx.set_on_change(&response, component, &[morph], new);
    }
}

/// One number field of an offset.
fn number_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    morph: usize,
    handle: Field<Morph, f32>,
    value: f32,
) {
    let name = format!("morph {morph} {}", handle.field_path());
    let (response, new) = f32_drag(ui, value, false, 0.01, 4, &name);
    cx.set_on_change(&response, handle, &[morph], new);
}

fn vertex_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    morph: usize,
    handle: Field<Morph, VertexIdx>,
    vertex: VertexIdx,
) {
    let (response, new) = i64_drag(
        ui,
        i64::from(vertex.0),
        false,
        0..=i64::from(u32::MAX),
        &format!("morph {morph} {}", handle.field_path()),
    );
    if vertex.get() >= cx.model.vertices.len() {
        ui.colored_label(ui.visuals().warn_fg_color, "!")
            .on_hover_text(cx.tr("common.missing"));
    }
    if let Some(new) = VertexIdx::from_i64(new) {
        cx.set_on_change(&response, handle, &[morph], new);
    }
}

/// One offset's cells after the position column.
fn offset_cells_ui(
    cx: &mut EditCx<'_>,
    row: &mut egui_extras::TableRow<'_, '_>,
    morph: usize,
    offsets: &MorphOffsets,
    r: usize,
) {
    let all = field::<Morph>().offsets();
    match offsets {
        MorphOffsets::Vertex(list) => {
            let Some(o) = list.get(r) else { return };
            let offset = all.vertex(r);
            row.col(|ui| vertex_ui(cx, ui, morph, offset.clone().vertex(), o.vertex));
            row.col(|ui| numbers_ui(cx, ui, morph, offset.offset(), o.offset));
        }
        MorphOffsets::Uv(list)
        | MorphOffsets::AdditionalUv1(list)
        | MorphOffsets::AdditionalUv2(list)
        | MorphOffsets::AdditionalUv3(list)
        | MorphOffsets::AdditionalUv4(list) => {
            let Some(o) = list.get(r) else { return };
            let offset = all.uv(r);
            row.col(|ui| vertex_ui(cx, ui, morph, offset.clone().vertex(), o.vertex));
            row.col(|ui| numbers_ui(cx, ui, morph, offset.offset(), o.offset));
        }
        MorphOffsets::Bone(list) => {
            let Some(o) = list.get(r) else { return };
            let offset = all.bone(r);
            row.col(|ui| {
                let handle = offset.clone().bone();
                let name = format!("morph {morph} {}", handle.field_path());
                let current = o.bone.map(BoneIdx::get);
                if let Some(choice) = pick_ui(cx, ui, Pick::Bone, current, 150.0, &name) {
                    cx.commands
                        .push(Command::set(handle, vec![morph], choice.map(BoneIdx::new)));
                }
            });
            row.col(|ui| numbers_ui(cx, ui, morph, offset.clone().translation(), o.translation));
            row.col(|ui| {
                // Shown as MMD Euler angles in degrees; stored as the quaternion.
                let handle = offset.rotation();
                let euler = quat_to_euler(o.rotation);
                for (c, axis) in ["x", "y", "z"].iter().enumerate() {
                    let name = format!("morph {morph} {}.{axis} degrees", handle.field_path());
                    let (response, new) = degrees_drag(ui, euler[c], false, &name);
                    if response.changed() {
                        let mut angles = euler;
                        angles[c] = new;
                        let gesture = response.dragged().then_some(response.id);
                        cx.commands.push(
                            Command::set(handle.clone(), vec![morph], euler_to_quat(angles))
                                .in_gesture(gesture),
                        );
                    }
                }
            });
        }
        MorphOffsets::Material(list) => {
            let Some(o) = list.get(r) else { return };
            let offset = all.material(r);
            row.col(|ui| {
                let count = cx.model.materials.len();
                let handle = offset.clone().material();
                let name = format!("morph {morph} {}", handle.field_path());
                let picked = {
                    let label = |i: usize| cx.material_label(i);
                    index_picker_ui(
                        ui,
                        ("offset_material", morph, r),
                        o.material.map(|m| m.get()),
                        false,
                        count,
                        &label,
                        Some(cx.tr("offset.all_materials")),
                        150.0,
                        &name,
                    )
                };
                if let Some(choice) = picked {
                    cx.commands.push(Command::set(
                        handle,
                        vec![morph],
                        choice.map(MaterialIdx::new),
                    ));
                }
            });
            row.col(|ui| {
                let handle = offset.clone().op();
                let name = format!("morph {morph} {}", handle.field_path());
                if let Some(op) = choice_ui(
                    cx,
                    ui,
                    Some(o.op),
                    &MATERIAL_OPS,
                    &|op| format!("? ({})", op.to_raw()),
                    80.0,
                    &name,
                ) {
                    cx.commands.push(Command::set(handle, vec![morph], op));
                }
            });
            row.col(|ui| numbers_ui(cx, ui, morph, offset.clone().diffuse(), o.diffuse));
            row.col(|ui| numbers_ui(cx, ui, morph, offset.clone().specular(), o.specular));
            row.col(|ui| {
                number_ui(
                    cx,
                    ui,
                    morph,
                    offset.clone().specular_power(),
                    o.specular_power,
                );
            });
            row.col(|ui| numbers_ui(cx, ui, morph, offset.clone().ambient(), o.ambient));
            row.col(|ui| numbers_ui(cx, ui, morph, offset.clone().edge_color(), o.edge_color));
            row.col(|ui| number_ui(cx, ui, morph, offset.clone().edge_size(), o.edge_size));
            row.col(|ui| {
                numbers_ui(cx, ui, morph, offset.clone().texture_tint(), o.texture_tint);
            });
            row.col(|ui| numbers_ui(cx, ui, morph, offset.clone().sphere_tint(), o.sphere_tint));
            row.col(|ui| numbers_ui(cx, ui, morph, offset.toon_tint(), o.toon_tint));
        }
        MorphOffsets::Group(list) | MorphOffsets::Flip(list) => {
            let Some(o) = list.get(r) else { return };
            let offset = all.group(r);
            row.col(|ui| {
                let handle = offset.clone().morph();
                let name = format!("morph {morph} {}", handle.field_path());
                if let Some(choice) = pick_ui(
                    cx,
                    ui,
                    Pick::Morph,
                    o.morph.map(MorphIdx::get),
                    170.0,
                    &name,
                ) {
                    cx.commands
                        .push(Command::set(handle, vec![morph], choice.map(MorphIdx::new)));
                }
            });
            row.col(|ui| number_ui(cx, ui, morph, offset.ratio(), o.ratio));
        }
        MorphOffsets::Impulse(list) => {
            let Some(o) = list.get(r) else { return };
            let offset = all.impulse(r);
            row.col(|ui| {
                let handle = offset.clone().rigid_body();
                let name = format!("morph {morph} {}", handle.field_path());
                if let Some(choice) = pick_ui(
                    cx,
                    ui,
                    Pick::RigidBody,
                    o.rigid_body.map(RigidBodyIdx::get),
                    150.0,
                    &name,
                ) {
                    cx.commands.push(Command::set(
                        handle,
                        vec![morph],
                        choice.map(RigidBodyIdx::new),
                    ));
                }
            });
            row.col(|ui| {
                let handle = offset.clone().local();
                let mut local = o.local;
                if ui
                    .checkbox(&mut local, "")
                    .accessible_name(format!("morph {morph} {}", handle.field_path()))
                    .changed()
                {
                    cx.commands.push(Command::set(handle, vec![morph], local));
                }
            });
            row.col(|ui| numbers_ui(cx, ui, morph, offset.clone().velocity(), o.velocity));
            row.col(|ui| numbers_ui(cx, ui, morph, offset.torque(), o.torque));
        }
    }
}

/// The offsets of morph `index`: toolbar (add from selection, remove, go to) and the table.
pub fn offset_table_ui(
    ui: &mut egui::Ui,
    state: &mut OffsetTableState,
    cx: &mut PaneCx<'_>,
    index: usize,
) {
    let PaneParts {
        model,
        selection,
        commands,
        lang,
        names,
        ..
    } = cx.parts();
    let selection = &*selection;
    let Some(morph) = model.morphs.get(index) else {
        return;
    };
    if state.morph != Some(index) {
        state.morph = Some(index);
        state.selected.clear();
    }
    state.selected.truncate(morph.offsets.len());
    let mut cx = EditCx {
        model,
        commands,
        lang,
        names,
        base_dir: None,
    };
    let kind = morph.offsets.kind();
    let len = morph.offsets.len();
    ui.horizontal_wrapped(|ui| {
        ui.strong(lang.format(
            "offset.title",
            &[
                ("morph", &morph_label(&cx, index)),
                ("kind", &lang.tr(kind_key(kind))),
                ("count", &len),
            ],
        ));
        ui.separator();
        let (source, picked) = source_selection(kind, selection);
        let source_name = lang.tr(source_key(source));
        let text = lang.format(
            "offset.add_from_selection",
            &[("count", &picked.len()), ("kind", &source_name)],
        );
        if ui
            .add_enabled(!picked.is_empty(), egui::Button::new(text))
            .on_hover_text(lang.tr("offset.add_hint"))
            .clicked()
        {
            let new = with_added(&morph.offsets, index, &picked);
            if new.len() > len {
                cx.commands
                    .push(Command::set(field::<Morph>().offsets(), vec![index], new));
            }
        }
        let text = lang.format(
            "offset.remove_selected",
            &[("count", &state.selected.len())],
        );
        if ui
            .add_enabled(!state.selected.is_empty(), egui::Button::new(text))
            .clicked()
        {
            let new = without(&morph.offsets, &state.selected);
            cx.commands
                .push(Command::set(field::<Morph>().offsets(), vec![index], new));
            state.selected.clear();
        }
        ui.separator();
        ui.label(lang.tr("table.goto"));
        let goto = ui
            .add(
                egui::TextEdit::singleline(&mut state.goto_text)
                    .hint_text("#")
                    .desired_width(60.0),
            )
            .accessible_name(lang.tr("offset.goto"));
        if goto.lost_focus()
            && ui.input(|i| i.key_pressed(egui::Key::Enter))
            && let Ok(row) = state.goto_text.trim().parse::<usize>()
            && row < len
        {
            state.scroll_to_row = Some(row);
        }
    });
    ui.separator();
    let columns = offset_columns(kind);
    let row_height = ui.spacing().interact_size.y + 4.0;
    let mut clicked: Option<(usize, egui::Modifiers)> = None;
    egui::ScrollArea::horizontal()
        .id_salt("offset_table_h")
        .show(ui, |ui| {
            let mut builder = TableBuilder::new(ui)
                .id_salt(("offset_table", kind as u8))
                .striped(true)
                .resizable(true)
                .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
                .column(Column::initial(70.0).at_least(40.0).clip(true));
            for &(_, width) in &columns {
                builder = builder.column(Column::initial(width).at_least(30.0).clip(true));
            }
            if let Some(row) = state.scroll_to_row.take() {
                builder = builder.scroll_to_row(row, Some(egui::Align::Center));
            }
            builder
                .header(row_height, |mut header| {
                    header.col(|ui| {
                        ui.strong("#");
                    });
                    for &(title, _) in &columns {
                        header.col(|ui| {
                            ui.strong(lang.tr(title));
                        });
                    }
                })
                .body(|body| {
                    body.rows(row_height, len, |mut row| {
                        let r = row.index();
                        let selected = state.selected.contains(r);
                        row.set_selected(selected);
                        row.col(|ui| {
                            let response = ui
                                .add(
                                    egui::Button::selectable(
                                        selected,
                                        egui::RichText::new(r.to_string()).monospace(),
                                    )
                                    .frame_when_inactive(false),
                                )
                                .accessible_name(format!("offset {r}"));
                            if response.clicked() {
                                clicked = Some((r, ui.input(|i| i.modifiers)));
                            }
                        });
                        offset_cells_ui(&mut cx, &mut row, index, &morph.offsets, r);
                    });
                });
        });
    if let Some((r, modifiers)) = clicked {
        if modifiers.command {
            state.selected.toggle(r);
        } else if modifiers.shift
            && let Some(anchor) = state.selected.first()
        {
            let (a, b) = if anchor <= r {
                (anchor, r)
            } else {
                (r, anchor)
            };
            state.selected.insert_range(a, b + 1);
        } else {
            state.selected.clear();
            state.selected.insert(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_convert_only_where_the_offsets_fit() {
        let uv = MorphOffsets::Uv(vec![UvMorphOffset {
            vertex: VertexIdx(3),
            offset: Vec4::new(0.5, 0.0, 0.0, 0.0),
        }]);
        assert!(can_convert(&uv, MorphKind::AdditionalUv2));
        assert!(!can_convert(&uv, MorphKind::Vertex));
        assert_eq!(
            converted(&uv, MorphKind::AdditionalUv2).unwrap(),
            MorphOffsets::AdditionalUv2(vec![UvMorphOffset {
                vertex: VertexIdx(3),
                offset: Vec4::new(0.5, 0.0, 0.0, 0.0),
            }])
        );
        let empty = MorphOffsets::Vertex(Vec::new());
        assert!(can_convert(&empty, MorphKind::Impulse));
        assert_eq!(
            converted(&empty, MorphKind::Impulse).unwrap(),
            MorphOffsets::Impulse(Vec::new())
        );
        assert!(can_convert(
            &MorphOffsets::Group(vec![GroupMorphOffset {
                morph: None,
                ratio: 1.0
            }]),
            MorphKind::Flip
        ));
    }

    #[test]
    fn added_offsets_skip_what_the_morph_has() {
        let offsets = MorphOffsets::Vertex(vec![VertexMorphOffset {
            vertex: VertexIdx(2),
            offset: Vec3::new(1.0, 0.0, 0.0),
        }]);
        let MorphOffsets::Vertex(list) = with_added(&offsets, 0, &[1, 2, 5]) else {
            panic!("still a vertex morph");
        };
        let vertices: Vec<u32> = list.iter().map(|o| o.vertex.0).collect();
        assert_eq!(vertices, vec![2, 1, 5]);
        assert_eq!(list[1].offset, Vec3::ZERO);
        // A group morph never takes itself.
        let group = MorphOffsets::Group(Vec::new());
        assert_eq!(with_added(&group, 4, &[3, 4]).len(), 1);
        let removed = without(
            &with_added(&offsets, 0, &[1, 5]),
            &[0, 2].into_iter().collect(),
        );
        let MorphOffsets::Vertex(list) = removed else {
            panic!("still a vertex morph");
        };
        assert_eq!(list.iter().map(|o| o.vertex.0).collect::<Vec<_>>(), vec![1]);
    }

    #[test]
    fn euler_degrees_round_trip_through_quaternions() {
        let angles = [0.3, -0.5, 1.1];
        let back = quat_to_euler(euler_to_quat(angles));
        for (a, b) in angles.iter().zip(back) {
            assert!((a - b).abs() < 1e-5, "{angles:?} → {back:?}");
        }
        assert_eq!(
            quat_to_euler(Vec4::new(0.0, 0.0, 0.0, 1.0)),
            [0.0, 0.0, 0.0]
        );
    }
}
