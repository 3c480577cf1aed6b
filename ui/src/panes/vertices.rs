//! 頂点 (vertices): position, normal, UV, additional UVs, weight type, bones and weights,
//! SDEF C/R0/R1, edge scale.

use crate::command::Command;
use crate::widgets::properties::{PropertyGrid, f32_field_ui, vec_field_ui};
use crate::widgets::table::fields::bone_field_ui;
use crate::widgets::table::{ColumnSpec, ElementTable, SortValue};
use crate::widgets::{EditCx, f32_drag, index_picker_ui, trim_number};
use pmx_core::edit::Elements;
use pmx_core::edit::{Field, Vector, field};
use pmx_core::model::{BoneIdx, ElementKind, Model, Vec3, Vertex, Weight, WeightKind};
use std::fmt::Write as _;

/// The vertex table.
#[derive(Debug, Clone, Copy, Default)]
pub struct VertexTable;

const WEIGHT_KINDS: [WeightKind; 5] = [
    WeightKind::Bdef1,
    WeightKind::Bdef2,
    WeightKind::Bdef4,
    WeightKind::Sdef,
    WeightKind::Qdef,
];

/// The name PMX tools use for a weight type.
#[must_use]
pub fn weight_kind_name(kind: WeightKind) -> &'static str {
    match kind {
        WeightKind::Bdef1 => "BDEF1",
        WeightKind::Bdef2 => "BDEF2",
        WeightKind::Bdef4 => "BDEF4",
        WeightKind::Sdef => "SDEF",
        WeightKind::Qdef => "QDEF",
    }
}

/// Columns after position, normal, UV and the additional UVs.
enum Col {
    Position,
    Normal,
    Uv,
    AdditionalUv(usize),
    WeightKind,
    Bone(usize),
    Weight(usize),
    SdefC,
    SdefR0,
    SdefR1,
    EdgeScale,
}

fn column_of(model: &Model, column: usize) -> Option<Col> {
    let channels = model.additional_uv_count();
    Some(match column {
        0 => Col::Position,
        1 => Col::Normal,
        2 => Col::Uv,
        c if c < 3 + channels => Col::AdditionalUv(c - 3),
        c => match c - 3 - channels {
            0 => Col::WeightKind,
            n @ 1..=8 => {
                let slot = (n - 1) / 2;
                if (n - 1) % 2 == 0 {
                    Col::Bone(slot)
                } else {
                    Col::Weight(slot)
                }
            }
            9 => Col::SdefC,
            10 => Col::SdefR0,
            11 => Col::SdefR1,
            12 => Col::EdgeScale,
            _ => return None,
        },
    })
}

const ADDITIONAL_UV_TITLES: [&str; 4] = [
    "vertex.additional_uv1",
    "vertex.additional_uv2",
    "vertex.additional_uv3",
    "vertex.additional_uv4",
];
const BONE_TITLES: [&str; 4] = [
    "vertex.bone1",
    "vertex.bone2",
    "vertex.bone3",
    "vertex.bone4",
];
const WEIGHT_TITLES: [&str; 4] = [
    "vertex.weight1",
    "vertex.weight2",
    "vertex.weight3",
    "vertex.weight4",
];

/// The bone of a weight slot, and its weight value.
type SlotFields = (
    Option<Field<Vertex, Option<BoneIdx>>>,
    Option<Field<Vertex, f32>>,
);

/// The field of bone slot `slot` of a weight, and of its weight value (`None` when the weight
/// is derived, as BDEF2's second).
fn weight_fields(weight: &Weight, slot: usize) -> SlotFields {
    let weight_field = || field::<Vertex>().weight();
    match weight {
        Weight::Bdef1 { .. } => ((slot == 0).then(|| weight_field().bone()), None),
        Weight::Bdef2 { .. } | Weight::Sdef { .. } => (
            (slot < 2).then(|| weight_field().bones(slot)),
            (slot == 0).then(|| weight_field().weight()),
        ),
        Weight::Bdef4 { .. } | Weight::Qdef { .. } => (
            (slot < 4).then(|| weight_field().bones(slot)),
            (slot < 4).then(|| weight_field().weights(slot)),
        ),
    }
}

/// The weight converted to another type, keeping bones and weights where the new type has
/// room for them (what PmxEditor does when the type is switched).
#[must_use]
pub fn convert_weight(weight: &Weight, kind: WeightKind, position: Vec3) -> Weight {
    let pairs = weight.bone_weights();
    let bone = |i: usize| pairs.get(i).and_then(|p| p.0);
    let value = |i: usize| pairs.get(i).map_or(0.0, |p| p.1);
    let (c, r0, r1) = match weight {
        Weight::Sdef { c, r0, r1, .. } => (*c, *r0, *r1),
        _ => (position, position, position),
    };
    match kind {
        WeightKind::Bdef1 => Weight::Bdef1 { bone: bone(0) },
        WeightKind::Bdef2 => Weight::Bdef2 {
            bones: [bone(0), bone(1)],
            weight: if pairs.len() == 1 { 1.0 } else { value(0) },
        },
        WeightKind::Sdef => Weight::Sdef {
            bones: [bone(0), bone(1)],
            weight: if pairs.len() == 1 { 1.0 } else { value(0) },
            c,
            r0,
            r1,
        },
        WeightKind::Bdef4 | WeightKind::Qdef => {
            let bones = [bone(0), bone(1), bone(2), bone(3)];
            let weights = [value(0), value(1), value(2), value(3)];
            if kind == WeightKind::Bdef4 {
                Weight::Bdef4 { bones, weights }
            } else {
                Weight::Qdef { bones, weights }
            }
        }
    }
}

fn vec_text(values: &[f32], out: &mut String) {
    for v in values {
        let _ = write!(out, "{} ", trim_number(f64::from(*v), 4));
    }
}

fn weight_kind_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    indices: &[usize],
    current: Option<WeightKind>,
    name: &str,
) {
    let shown = current.map_or("—", weight_kind_name);
    let mut picked = None;
    let response = egui::ComboBox::from_id_salt(("weight_kind", name))
        .selected_text(shown)
        .width(64.0)
        .show_ui(ui, |ui| {
            for kind in WEIGHT_KINDS {
                if ui
                    .selectable_label(current == Some(kind), weight_kind_name(kind))
                    .clicked()
                {
                    picked = Some(kind);
                }
            }
        });
    let _ = response.response.accessible_name(name);
    // Picking the type the vertices have already is no change.
    if let Some(kind) = picked.filter(|&k| Some(k) != current) {
        let values = indices
            .iter()
            .filter_map(|&i| cx.model.vertices.get(i))
            .map(|v| convert_weight(&v.weight, kind, v.position))
            .collect();
        cx.commands.push(Command::set_each(
            field::<Vertex>().weight(),
            indices.to_vec(),
            values,
        ));
    }
}

fn cell_vec<V: Vector>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    index: usize,
    handle: Field<Vertex, V>,
    value: V,
    speed: f64,
) {
    crate::widgets::table::fields::vec_cells_ui(cx, ui, index, handle, value, speed);
}

impl ElementTable for VertexTable {
    fn kind(&self) -> ElementKind {
        ElementKind::Vertex
    }

    fn columns(&self, model: &Model) -> Vec<ColumnSpec> {
        let mut columns = vec![
            ColumnSpec::new("vertex.position", 220.0),
            ColumnSpec::new("vertex.normal", 200.0),
            ColumnSpec::new("vertex.uv", 130.0),
        ];
        for title in ADDITIONAL_UV_TITLES
            .iter()
            .take(model.additional_uv_count())
        {
            columns.push(ColumnSpec::new(title, 250.0));
        }
        columns.push(ColumnSpec::new("vertex.weight_type", 80.0));
        for slot in 0..4 {
            columns.push(ColumnSpec::new(BONE_TITLES[slot], 130.0));
            columns.push(ColumnSpec::new(WEIGHT_TITLES[slot], 64.0));
        }
        columns.push(ColumnSpec::new("vertex.sdef_c", 200.0).unsortable());
        columns.push(ColumnSpec::new("vertex.sdef_r0", 200.0).unsortable());
        columns.push(ColumnSpec::new("vertex.sdef_r1", 200.0).unsortable());
        columns.push(ColumnSpec::new("vertex.edge_scale", 70.0));
        columns
    }

    /// The position.
    fn key_columns(&self) -> usize {
        1
    }

    fn cell_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize, column: usize) {
        let model = cx.model;
        let Some(vertex) = model.vertices.get(index) else {
            return;
        };
        let Some(col) = column_of(model, column) else {
            return;
        };
        match col {
            Col::Position => cell_vec(
                cx,
                ui,
                index,
                field::<Vertex>().position(),
                vertex.position,
                0.01,
            ),
            Col::Normal => cell_vec(
                cx,
                ui,
                index,
                field::<Vertex>().normal(),
                vertex.normal,
                0.01,
            ),
            Col::Uv => cell_vec(cx, ui, index, field::<Vertex>().uv(), vertex.uv, 0.001),
            Col::AdditionalUv(channel) => {
                if let Some(value) = model.additional_uv(channel, index) {
                    let handle = field::<Vertex>().additional_uv(channel);
                    cell_vec(cx, ui, index, handle, value, 0.001);
                }
            }
            Col::WeightKind => weight_kind_ui(
                cx,
                ui,
                &[index],
                Some(vertex.weight.kind()),
                &format!("vertex {index} weight type"),
            ),
            Col::Bone(slot) => {
                let (Some(handle), _) = weight_fields(&vertex.weight, slot) else {
                    return;
                };
                let current = vertex.weight.bones().get(slot).copied().flatten();
                let name = format!("vertex {index} {}", handle.field_path());
                let bone_count = model.bones.len();
                let picked = {
                    let label = |i: usize| cx.bone_label(i);
                    index_picker_ui(
                        ui,
                        ("bone", index, slot),
                        current.map(BoneIdx::get),
                        false,
                        bone_count,
                        &label,
                        Some("-1"),
                        110.0,
                        &name,
                    )
                };
                if let Some(choice) = picked {
                    let value = choice.map(BoneIdx::new);
                    cx.commands.push(Command::set(handle, vec![index], value));
                }
            }
            Col::Weight(slot) => {
                let (_, handle) = weight_fields(&vertex.weight, slot);
                let pairs = vertex.weight.bone_weights();
                match handle {
                    Some(handle) => {
                        let value = pairs.get(slot).map_or(0.0, |p| p.1);
                        let name = format!("vertex {index} {}", handle.field_path());
                        let (response, new) = f32_drag(ui, value, false, 0.005, 3, &name);
                        cx.set_on_change(&response, handle, &[index], new);
                    }
                    None => {
                        // BDEF2/SDEF's second weight is 1 − the first: shown, not edited.
                        if let Some((_, value)) = pairs.get(slot)
                            && slot == 1
                        {
                            ui.weak(trim_number(f64::from(*value), 3));
                        }
                    }
                }
            }
            Col::SdefC | Col::SdefR0 | Col::SdefR1 => {
                if let Weight::Sdef { c, r0, r1, .. } = &vertex.weight {
                    let weight = field::<Vertex>().weight();
                    let (handle, value) = match col {
                        Col::SdefC => (weight.c(), c),
                        Col::SdefR0 => (weight.r0(), r0),
                        _ => (weight.r1(), r1),
                    };
                    cell_vec(cx, ui, index, handle, *value, 0.01);
                }
            }
            Col::EdgeScale => {
                let name = format!("vertex {index} edge_scale");
                let (response, new) = f32_drag(ui, vertex.edge_scale, false, 0.01, 3, &name);
                cx.set_on_change(&response, field::<Vertex>().edge_scale(), &[index], new);
            }
        }
    }

    fn sort_value(&self, model: &Model, index: usize, column: usize) -> SortValue {
        let Some(vertex) = model.vertices.get(index) else {
            return SortValue::Number(0.0);
        };
        let number = |v: f32| SortValue::Number(f64::from(v));
        match column_of(model, column) {
            // Vectors sort by their first component.
            Some(Col::Position) => number(vertex.position.x),
            Some(Col::Normal) => number(vertex.normal.x),
            Some(Col::Uv) => number(vertex.uv.x),
            Some(Col::AdditionalUv(channel)) => {
                number(model.additional_uv(channel, index).map_or(0.0, |v| v.x))
            }
            Some(Col::WeightKind) => SortValue::Number(f64::from(vertex.weight.kind() as u8)),
            Some(Col::Bone(slot)) => SortValue::Number(
                vertex
                    .weight
                    .bones()
                    .get(slot)
                    .map_or(-2.0, |b| f64::from(BoneIdx::to_raw(*b))),
            ),
            Some(Col::Weight(slot)) => {
                number(vertex.weight.bone_weights().get(slot).map_or(-1.0, |p| p.1))
            }
            Some(Col::EdgeScale) => number(vertex.edge_scale),
            _ => SortValue::Number(0.0),
        }
    }

    fn row_text(&self, model: &Model, index: usize, out: &mut String) {
        let Some(vertex) = model.vertices.get(index) else {
            return;
        };
        vec_text(&vertex.position.to_array(), out);
        vec_text(&vertex.normal.to_array(), out);
        vec_text(&[vertex.uv.x, vertex.uv.y], out);
        out.push_str(weight_kind_name(vertex.weight.kind()));
        out.push(' ');
        for (bone, _) in vertex.weight.bone_weights() {
            if let Some(bone) = bone.and_then(|b| model.bones.get(b.get())) {
                out.push_str(&bone.name_ja.as_str());
                out.push(' ');
            }
        }
    }

    fn new_element(&self, _model: &Model, _at: usize) -> Option<Elements> {
        Some(Elements::Vertices {
            vertices: vec![Vertex::default()],
            additional_uvs: Vec::new(),
        })
    }

    fn properties_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, grid: &mut PropertyGrid<'_>) {
        let model = cx.model;
        let vertex = |i: usize| model.vertices.get(i);
        let indices = grid.indices;
        grid.show(ui, "vertex_properties", |ui, grid| {
            vec_field_ui(
                cx,
                ui,
                grid,
                "vertex.position",
                field::<Vertex>().position(),
                0.01,
                |i| vertex(i).map(|v| v.position),
            );
            vec_field_ui(
                cx,
                ui,
                grid,
                "vertex.normal",
                field::<Vertex>().normal(),
                0.01,
                |i| vertex(i).map(|v| v.normal),
            );
            vec_field_ui(
                cx,
                ui,
                grid,
                "vertex.uv",
                field::<Vertex>().uv(),
                0.001,
                |i| vertex(i).map(|v| v.uv),
            );
            for (channel, title) in ADDITIONAL_UV_TITLES
                .iter()
                .enumerate()
                .take(model.additional_uv_count())
            {
                vec_field_ui(
                    cx,
                    ui,
                    grid,
                    title,
                    field::<Vertex>().additional_uv(channel),
                    0.001,
                    |i| model.additional_uv(channel, i),
                );
            }
            f32_field_ui(
                cx,
                ui,
                grid,
                "vertex.edge_scale",
                field::<Vertex>().edge_scale(),
                0.01,
                |i| vertex(i).map(|v| v.edge_scale),
            );
            ui.label(cx.tr("vertex.weight_type"));
            let kind = grid.summary("weight.type", |i| vertex(i).map(|v| v.weight.kind()));
            let shown_kind = kind.and_then(|(k, mixed)| (!mixed).then_some(k));
            weight_kind_ui(cx, ui, indices, shown_kind, "weight type");
            ui.end_row();
            // The bones and weights the type brings (shown when all selected share the type).
            let Some(kind) = shown_kind else {
                return;
            };
            let slots = match kind {
                WeightKind::Bdef1 => 1,
                WeightKind::Bdef2 | WeightKind::Sdef => 2,
                WeightKind::Bdef4 | WeightKind::Qdef => 4,
            };
            let Some(first) = indices.first().and_then(|&i| vertex(i)) else {
                return;
            };
            for slot in 0..slots {
                let (bone_field, weight_field) = weight_fields(&first.weight, slot);
                if let Some(handle) = bone_field {
                    bone_field_ui(cx, ui, grid, BONE_TITLES[slot], handle, |i| {
                        vertex(i).and_then(|v| v.weight.bones().get(slot).copied())
                    });
                }
                if let Some(handle) = weight_field {
                    f32_field_ui(cx, ui, grid, WEIGHT_TITLES[slot], handle, 0.005, |i| {
                        vertex(i).and_then(|v| v.weight.bone_weights().get(slot).map(|p| p.1))
                    });
                }
            }
            if kind == WeightKind::Sdef {
                let weight = || field::<Vertex>().weight();
                for (title, handle) in [
                    ("vertex.sdef_c", weight().c()),
                    ("vertex.sdef_r0", weight().r0()),
                    ("vertex.sdef_r1", weight().r1()),
                ] {
                    let read = handle.clone();
                    vec_field_ui(cx, ui, grid, title, handle, 0.01, |i| {
                        read.get(model, i).copied()
                    });
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converting_weights_keeps_what_fits() {
        let bdef4 = Weight::Bdef4 {
            bones: [Some(BoneIdx::new(1)), Some(BoneIdx::new(2)), None, None],
            weights: [0.75, 0.25, 0.0, 0.0],
        };
        let position = Vec3::new(1.0, 2.0, 3.0);
        assert_eq!(
            convert_weight(&bdef4, WeightKind::Bdef2, position),
            Weight::Bdef2 {
                bones: [Some(BoneIdx::new(1)), Some(BoneIdx::new(2))],
                weight: 0.75
            }
        );
        assert_eq!(
            convert_weight(&bdef4, WeightKind::Bdef1, position),
            Weight::Bdef1 {
                bone: Some(BoneIdx::new(1))
            }
        );
        let bdef1 = Weight::Bdef1 {
            bone: Some(BoneIdx::new(4)),
        };
        assert_eq!(
            convert_weight(&bdef1, WeightKind::Sdef, position),
            Weight::Sdef {
                bones: [Some(BoneIdx::new(4)), None],
                weight: 1.0,
                c: position,
                r0: position,
                r1: position
            }
        );
    }
}
