//! 面 (faces): the material that draws each triangle and its three vertex indices.

use crate::widgets::properties::{PropertyGrid, i64_field_ui};
use crate::widgets::table::{ColumnSpec, ElementTable, SortValue};
use crate::widgets::{EditCx, i64_drag, trim_number};
use pmx_core::edit::Elements;
use pmx_core::edit::field;
use pmx_core::model::{ElementKind, Face, Model, VertexIdx};
use std::fmt::Write as _;

/// The face table.
#[derive(Debug, Clone, Copy, Default)]
pub struct FaceTable;

const CORNER_TITLES: [&str; 3] = ["face.vertex_a", "face.vertex_b", "face.vertex_c"];

impl ElementTable for FaceTable {
    fn kind(&self) -> ElementKind {
        ElementKind::Face
    }

    fn columns(&self, _model: &Model) -> Vec<ColumnSpec> {
        vec![
            ColumnSpec::new("face.material", 200.0),
            ColumnSpec::new(CORNER_TITLES[0], 100.0),
            ColumnSpec::new(CORNER_TITLES[1], 100.0),
            ColumnSpec::new(CORNER_TITLES[2], 100.0),
        ]
    }

    fn cell_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize, column: usize) {
        let Some(face) = cx.model.faces.get(index) else {
            return;
        };
        match column {
            0 => {
                match cx.model.material_of_face(index) {
                    Some(m) => ui.label(cx.material_label(m)),
                    None => ui.weak(cx.tr("face.no_material")),
                };
            }
            corner @ 1..=3 => {
                let value = face[corner - 1].0;
                let name = format!("face {index} {}", corner - 1);
                let max = i64::from(u32::MAX);
                let (response, new) = i64_drag(ui, i64::from(value), false, 0..=max, &name);
                if let Some(vertex) = crate::widgets::properties::IntegerField::from_i64(new) {
                    cx.set_on_change(&response, field::<Face>().at(corner - 1), &[index], vertex);
                }
            }
            _ => {}
        }
    }

    fn sort_value(&self, model: &Model, index: usize, column: usize) -> SortValue {
        let number = |v: usize| SortValue::Number(v as f64);
        match column {
            0 => number(model.material_of_face(index).unwrap_or(usize::MAX)),
            corner @ 1..=3 => number(model.faces.get(index).map_or(0, |f| f[corner - 1].get())),
            _ => SortValue::Number(0.0),
        }
    }

    fn row_text(&self, model: &Model, index: usize, out: &mut String) {
        if let Some(m) = model
            .material_of_face(index)
            .and_then(|m| model.materials.get(m))
        {
            out.push_str(&m.name_ja.as_str());
            out.push(' ');
        }
        if let Some(face) = model.faces.get(index) {
            for corner in face {
                let _ = write!(out, "{} ", corner.0);
            }
        }
    }

    fn new_element(&self, model: &Model, at: usize) -> Option<Elements> {
        // A face of the selected one's first vertex (a point until the user sets the others).
        let corner = model
            .faces
            .get(at.saturating_sub(1))
            .map_or(VertexIdx(0), |f| f[0]);
        Some(Elements::Faces(vec![[corner; 3]]))
    }

    fn properties_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, grid: &mut PropertyGrid<'_>) {
        let model = cx.model;
        let indices = grid.indices;
        let last_vertex = model.vertices.len().saturating_sub(1) as i64;
        grid.show(ui, "face_properties", |ui, grid| {
            ui.label(cx.tr("face.material"));
            match grid.summary("material", |i| Some(model.material_of_face(i))) {
                Some((Some(m), false)) => ui.label(cx.material_label(m)),
                Some((_, true)) => ui.label("—"),
                _ => ui.weak(cx.tr("face.no_material")),
            };
            ui.end_row();
            for (corner, title) in CORNER_TITLES.iter().enumerate() {
                i64_field_ui(
                    cx,
                    ui,
                    grid,
                    title,
                    field::<Face>().at(corner),
                    0..=last_vertex,
                    |i| model.faces.get(i).map(|f| i64::from(f[corner].0)),
                );
            }
        });
        // Where the corners are, for orientation (single face only).
        if let [only] = indices
            && let Some(face) = model.faces.get(*only)
        {
            ui.separator();
            ui.label(cx.tr("face.corner_positions"));
            for corner in face {
                let text = match model.vertices.get(corner.get()) {
                    Some(v) => format!(
                        "{}: {} {} {}",
                        corner.0,
                        trim_number(f64::from(v.position.x), 4),
                        trim_number(f64::from(v.position.y), 4),
                        trim_number(f64::from(v.position.z), 4)
                    ),
                    None => format!("{}: ({})", corner.0, cx.tr("common.missing")),
                };
                ui.monospace(text);
            }
        }
    }
}
