//! 材質 (materials): names, colours, draw flags, edge, texture / sphere / toon with pickers from
//! the texture list, memo and face count.

use crate::command::Command;
use crate::widgets::properties::{
    PropertyGrid, color_field_ui, f32_field_ui, flag_field_ui, index_row_ui, text_field_ui,
};
use crate::widgets::table::{ColumnSpec, ElementTable, SortValue};
use crate::widgets::{
    EditCx, color_swatch_ui, f32_drag, index_picker_ui, text_commit_ui, trim_number,
};
use pmx_core::edit::Elements;
use pmx_core::edit::{EditOp, Field, Vector, field};
use pmx_core::model::{
    DrawFlags, ElementKind, Material, Model, SphereMode, Text, TextureIdx, Toon,
};

/// The material table.
#[derive(Debug, Clone, Copy, Default)]
pub struct MaterialTable;

/// The draw flags with their i18n keys and the short mark the table shows.
pub const DRAW_FLAGS: [(DrawFlags, &str, &str); 8] = [
    (DrawFlags::DOUBLE_SIDED, "material.flag_double_sided", "両"),
    (
        DrawFlags::GROUND_SHADOW,
        "material.flag_ground_shadow",
        "地",
    ),
    (
        DrawFlags::DRAW_TO_SHADOW_MAP,
        "material.flag_shadow_map",
        "S",
    ),
    (
        DrawFlags::DRAW_SELF_SHADOW,
        "material.flag_self_shadow",
        "セ",
    ),
    (DrawFlags::EDGE, "material.flag_edge", "輪"),
    (DrawFlags::VERTEX_COLOR, "material.flag_vertex_color", "頂"),
    (DrawFlags::POINT, "material.flag_point", "点"),
    (DrawFlags::LINE, "material.flag_line", "線"),
];

const SPHERE_MODES: [(SphereMode, &str); 4] = [
    (SphereMode::Disabled, "material.sphere_disabled"),
    (SphereMode::Multiply, "material.sphere_multiply"),
    (SphereMode::Add, "material.sphere_add"),
    (SphereMode::SubTexture, "material.sphere_sub_texture"),
];

fn sphere_mode_key(mode: SphereMode) -> &'static str {
    SPHERE_MODES
        .iter()
        .find(|(m, _)| *m == mode)
        .map_or("material.sphere_unknown", |(_, key)| key)
}

/// Columns after the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    NameJa,
    NameEn,
    Diffuse,
    Specular,
    SpecularPower,
    Ambient,
    Flags,
    EdgeColor,
    EdgeSize,
    Texture,
    Sphere,
    SphereMode,
    Toon,
    Faces,
    Memo,
}

const COLUMNS: [(Col, &str, f32); 15] = [
    (Col::NameJa, "material.name_ja", 150.0),
    (Col::NameEn, "material.name_en", 130.0),
    (Col::Diffuse, "material.diffuse", 120.0),
    (Col::Specular, "material.specular", 60.0),
    (Col::SpecularPower, "material.specular_power", 70.0),
    (Col::Ambient, "material.ambient", 60.0),
    (Col::Flags, "material.flags", 230.0),
    (Col::EdgeColor, "material.edge_color", 70.0),
    (Col::EdgeSize, "material.edge_size", 60.0),
    (Col::Texture, "material.texture", 170.0),
    (Col::Sphere, "material.sphere", 170.0),
    (Col::SphereMode, "material.sphere_mode", 90.0),
    (Col::Toon, "material.toon", 170.0),
    (Col::Faces, "material.faces", 80.0),
    (Col::Memo, "material.memo", 160.0),
];

fn toon_text(cx: &EditCx<'_>, toon: Toon) -> String {
    match toon {
        Toon::Shared(n) => format!("toon{:02}.bmp", u32::from(n) + 1),
        Toon::Texture(Some(t)) => cx.texture_label(t.get()),
        Toon::Texture(None) => cx.tr("common.none").to_owned(),
    }
}

/// The toon choice: none, one of the shared toon01..10, or a texture of the model.
fn toon_picker_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    indices: &[usize],
    current: Option<Toon>,
    name: &str,
) {
    let shown = current.map_or_else(|| "—".to_owned(), |t| toon_text(cx, t));
    let mut picked = None;
    let response = egui::ComboBox::from_id_salt(("toon", name))
        .selected_text(shown)
        .width(150.0)
        .height(320.0)
        .show_ui(ui, |ui| {
            if ui
                .selectable_label(current == Some(Toon::Texture(None)), cx.tr("common.none"))
                .clicked()
            {
                picked = Some(Toon::Texture(None));
            }
            ui.separator();
            for n in 0..10u8 {
                let toon = Toon::Shared(n);
                if ui
                    .selectable_label(current == Some(toon), toon_text(cx, toon))
                    .clicked()
                {
                    picked = Some(toon);
                }
            }
            ui.separator();
            for t in 0..cx.model.textures.len() {
                let toon = Toon::Texture(Some(TextureIdx::new(t)));
                if ui
                    .selectable_label(current == Some(toon), cx.texture_label(t))
                    .clicked()
                {
                    picked = Some(toon);
                }
            }
        });
    let _ = response.response.accessible_name(name);
    // Picking what is already set is no change.
    if let Some(toon) = picked.filter(|&t| Some(t) != current) {
        let value = toon;
        cx.commands.push(Command::set(
            field::<Material>().toon(),
            indices.to_vec(),
            value,
        ));
    }
}

fn sphere_mode_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    indices: &[usize],
    current: Option<SphereMode>,
    name: &str,
) {
    let shown = current.map_or("—", |m| cx.tr(sphere_mode_key(m)));
    let mut picked = None;
    let response = egui::ComboBox::from_id_salt(("sphere_mode", name))
        .selected_text(shown)
        .width(80.0)
        .show_ui(ui, |ui| {
            for (mode, key) in SPHERE_MODES {
                if ui
                    .selectable_label(current == Some(mode), cx.tr(key))
                    .clicked()
                {
                    picked = Some(mode);
                }
            }
        });
    let _ = response.response.accessible_name(name);
    if let Some(mode) = picked.filter(|&m| Some(m) != current) {
        let value = mode;
        cx.commands.push(Command::set(
            field::<Material>().sphere_mode(),
            indices.to_vec(),
            value,
        ));
    }
}

/// Draw flags from a check box row's bits (every bit kept: unknown bits survive).
fn draw_flags_from(bits: u32) -> DrawFlags {
    DrawFlags::from_bits_retain(u8::try_from(bits & 0xFF).unwrap_or_default())
}

impl ElementTable for MaterialTable {
    fn kind(&self) -> ElementKind {
        ElementKind::Material
    }

    fn columns(&self, _model: &Model) -> Vec<ColumnSpec> {
        ColumnSpec::of_list_except(&COLUMNS, |col| {
            matches!(
                col,
                Col::Flags | Col::Diffuse | Col::Specular | Col::Ambient | Col::EdgeColor
            )
        })
    }

    fn cell_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize, column: usize) {
        let Some(material) = cx.model.materials.get(index) else {
            return;
        };
        let Some(&(col, _, _)) = COLUMNS.get(column) else {
            return;
        };
        let one = [index];
        match col {
            Col::NameJa | Col::NameEn | Col::Memo => {
                let (handle, text) = match col {
                    Col::NameJa => (field::<Material>().name_ja(), &material.name_ja),
                    Col::NameEn => (field::<Material>().name_en(), &material.name_en),
                    _ => (field::<Material>().memo(), &material.memo),
                };
                let field_name = handle.field_path().to_string();
                let id = ui.scope_id().with(("material_text", &field_name, index));
                let name = format!("material {index} {field_name}");
                if let Some(new) =
                    text_commit_ui(ui, id, &text.as_str(), false, ui.available_width(), &name)
                {
                    cx.commands
                        .push(Command::set(handle, one.to_vec(), Text::from(new.as_str())));
                }
            }
            Col::Diffuse => {
                let d = material.diffuse;
                let (response, picked) = color_swatch_ui(
                    ui,
                    [d.x, d.y, d.z],
                    &format!("material {index} diffuse colour"),
                );
                push_color(
                    cx,
                    &response,
                    index,
                    field::<Material>().diffuse(),
                    d,
                    picked.as_ref().map(|p| p.as_slice()),
                );
                let name = format!("material {index} diffuse.w");
                let (response, alpha) = f32_drag(ui, d.w, false, 0.005, 3, &name);
                cx.set_on_change(&response, field::<Material>().diffuse().w(), &one, alpha);
            }
            Col::Specular | Col::Ambient => {
                let (handle, v) = if col == Col::Specular {
                    (field::<Material>().specular(), material.specular)
                } else {
                    (field::<Material>().ambient(), material.ambient)
                };
                let (response, picked) = color_swatch_ui(
                    ui,
                    [v.x, v.y, v.z],
                    &format!("material {index} {} colour", handle.field_path()),
                );
                push_color(
                    cx,
                    &response,
                    index,
                    handle,
                    v,
                    picked.as_ref().map(|p| p.as_slice()),
                );
            }
            Col::EdgeColor => {
                let e = material.edge_color;
                let old = [e.x, e.y, e.z, e.w];
                let (response, picked) =
                    color_swatch_ui(ui, old, &format!("material {index} edge_color colour"));
                push_color(
                    cx,
                    &response,
                    index,
                    field::<Material>().edge_color(),
                    e,
                    picked.as_ref().map(|p| p.as_slice()),
                );
            }
            Col::SpecularPower | Col::EdgeSize => {
                let (handle, value) = if col == Col::SpecularPower {
                    (
                        field::<Material>().specular_power(),
                        material.specular_power,
                    )
                } else {
                    (field::<Material>().edge_size(), material.edge_size)
                };
                let name = format!("material {index} {}", handle.field_path());
                let (response, new) = f32_drag(ui, value, false, 0.05, 3, &name);
                cx.set_on_change(&response, handle, &one, new);
            }
            Col::Flags => {
                let bits = material.draw_flags.bits();
                for (flag, key, mark) in DRAW_FLAGS {
                    let mut on = material.draw_flags.contains(flag);
                    let response = ui
                        .toggle_value(&mut on, mark)
                        .on_hover_text(cx.tr(key))
                        .accessible_name(format!("material {index} {}", cx.tr(key)));
                    if response.changed() {
                        let new = if on {
                            bits | flag.bits()
                        } else {
                            bits & !flag.bits()
                        };
                        cx.commands.push(Command::set(
                            field::<Material>().draw_flags(),
                            one.to_vec(),
                            DrawFlags::from_bits_retain(new),
                        ));
                    }
                }
            }
            Col::Texture | Col::Sphere => {
                let (handle, current) = if col == Col::Texture {
                    (field::<Material>().texture(), material.texture)
                } else {
                    (
                        field::<Material>().sphere_texture(),
                        material.sphere_texture,
                    )
                };
                let field_name = handle.field_path().to_string();
                let name = format!("material {index} {field_name}");
                let count = cx.model.textures.len();
                let picked = {
                    let label = |i: usize| cx.texture_label(i);
                    let none = cx.tr("common.none");
                    index_picker_ui(
                        ui,
                        (&field_name, index),
                        current.map(TextureIdx::get),
                        false,
                        count,
                        &label,
                        Some(none),
                        150.0,
                        &name,
                    )
                };
                if let Some(choice) = picked {
                    cx.commands.push(Command::set(
                        handle,
                        one.to_vec(),
                        choice.map(TextureIdx::new),
                    ));
                }
            }
            Col::SphereMode => {
                sphere_mode_ui(
                    cx,
                    ui,
                    &one,
                    Some(material.sphere_mode),
                    &format!("material {index} sphere_mode"),
                );
            }
            Col::Toon => {
                toon_picker_ui(
                    cx,
                    ui,
                    &one,
                    Some(material.toon),
                    &format!("material {index} toon"),
                );
            }
            Col::Faces => {
                ui.label((material.face_index_count / 3).to_string());
            }
        }
    }

    fn sort_value(&self, model: &Model, index: usize, column: usize) -> SortValue {
        let Some(material) = model.materials.get(index) else {
            return SortValue::Number(0.0);
        };
        let Some(&(col, _, _)) = COLUMNS.get(column) else {
            return SortValue::Number(0.0);
        };
        let number = |v: f32| SortValue::Number(f64::from(v));
        let texture = |t: Option<TextureIdx>| SortValue::Number(t.map_or(-1.0, |t| t.get() as f64));
        match col {
            Col::NameJa => SortValue::Text(material.name_ja.as_str().into_owned()),
            Col::NameEn => SortValue::Text(material.name_en.as_str().into_owned()),
            Col::Memo => SortValue::Text(material.memo.as_str().into_owned()),
            Col::SpecularPower => number(material.specular_power),
            Col::EdgeSize => number(material.edge_size),
            Col::Texture => texture(material.texture),
            Col::Sphere => texture(material.sphere_texture),
            Col::SphereMode => SortValue::Number(f64::from(material.sphere_mode.to_raw())),
            Col::Toon => SortValue::Number(match material.toon {
                Toon::Shared(n) => f64::from(n) - 100.0,
                Toon::Texture(t) => t.map_or(-1.0, |t| t.get() as f64),
            }),
            Col::Faces => SortValue::Number(f64::from(material.face_index_count)),
            Col::Diffuse | Col::Specular | Col::Ambient | Col::EdgeColor | Col::Flags => {
                SortValue::Number(0.0)
            }
        }
    }

    fn row_text(&self, model: &Model, index: usize, out: &mut String) {
        if let Some(material) = model.materials.get(index) {
            for text in [&material.name_ja, &material.name_en, &material.memo] {
                out.push_str(&text.as_str());
                out.push(' ');
            }
            for t in [material.texture, material.sphere_texture]
                .into_iter()
                .flatten()
            {
                if let Some(path) = model.textures.get(t.get()) {
                    out.push_str(&path.as_str());
                    out.push(' ');
                }
            }
        }
    }

    fn new_element(&self, _model: &Model, _at: usize) -> Option<Elements> {
        let material = Material {
            name_ja: "新規材質".into(),
            name_en: "new material".into(),
            ..Material::default()
        };
        Some(Elements::Materials(vec![material]))
    }

    fn extra_context_menu_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, indices: &[usize]) {
        if ui.button(cx.tr("context.delete_with_vertices")).clicked() && !indices.is_empty() {
            cx.commands.push(Command::ops(vec![EditOp::Delete {
                kind: ElementKind::Material,
                indices: indices.to_vec(),
                remove_unused_vertices: true,
            }]));
        }
    }

    fn properties_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, grid: &mut PropertyGrid<'_>) {
        let model = cx.model;
        let material = |i: usize| model.materials.get(i);
        let indices = grid.indices;
        grid.show(ui, "material_properties", |ui, grid| {
            text_field_ui(
                cx,
                ui,
                grid,
                "material.name_ja",
                field::<Material>().name_ja(),
                false,
                |i| material(i).map(|m| m.name_ja.as_str().into_owned()),
            );
            text_field_ui(
                cx,
                ui,
                grid,
                "material.name_en",
                field::<Material>().name_en(),
                false,
                |i| material(i).map(|m| m.name_en.as_str().into_owned()),
            );
            color_field_ui(
                cx,
                ui,
                grid,
                "material.diffuse",
                field::<Material>().diffuse(),
                |i| material(i).map(|m| m.diffuse),
            );
            color_field_ui(
                cx,
                ui,
                grid,
                "material.specular",
                field::<Material>().specular(),
                |i| material(i).map(|m| m.specular),
            );
            f32_field_ui(
                cx,
                ui,
                grid,
                "material.specular_power",
                field::<Material>().specular_power(),
                0.05,
                |i| material(i).map(|m| m.specular_power),
            );
            color_field_ui(
                cx,
                ui,
                grid,
                "material.ambient",
                field::<Material>().ambient(),
                |i| material(i).map(|m| m.ambient),
            );
            ui.label(cx.tr("material.flags"));
            ui.vertical(|ui| {
                for (flag, key, _) in DRAW_FLAGS {
                    flag_field_ui(
                        cx,
                        ui,
                        grid,
                        key,
                        field::<Material>().draw_flags(),
                        u32::from(flag.bits()),
                        |i| material(i).map(|m| u32::from(m.draw_flags.bits())),
                        draw_flags_from,
                    );
                }
            });
            ui.end_row();
            color_field_ui(
                cx,
                ui,
                grid,
                "material.edge_color",
                field::<Material>().edge_color(),
                |i| material(i).map(|m| m.edge_color),
            );
            f32_field_ui(
                cx,
                ui,
                grid,
                "material.edge_size",
                field::<Material>().edge_size(),
                0.05,
                |i| material(i).map(|m| m.edge_size),
            );
            for (title, handle) in [
                ("material.texture", field::<Material>().texture()),
                ("material.sphere", field::<Material>().sphere_texture()),
            ] {
                let read = handle.clone();
                let count = model.textures.len();
                let picked = {
                    let label = |i: usize| cx.texture_label(i);
                    let key = crate::widgets::properties::key(&handle);
                    index_row_ui(cx, ui, grid, title, &key, count, &label, |i| {
                        read.get(model, i).map(|t| t.map(TextureIdx::get))
                    })
                };
                if let Some(choice) = picked {
                    cx.commands.push(Command::set(
                        handle,
                        indices.to_vec(),
                        choice.map(TextureIdx::new),
                    ));
                }
            }
            ui.label(cx.tr("material.sphere_mode"));
            let mode = grid
                .summary("sphere_mode", |i| material(i).map(|m| m.sphere_mode))
                .and_then(|(m, mixed)| (!mixed).then_some(m));
            sphere_mode_ui(cx, ui, indices, mode, "sphere_mode");
            ui.end_row();
            ui.label(cx.tr("material.toon"));
            let toon = grid
                .summary("toon", |i| material(i).map(|m| m.toon))
                .and_then(|(t, mixed)| (!mixed).then_some(t));
            toon_picker_ui(cx, ui, indices, toon, "toon");
            ui.end_row();
            text_field_ui(
                cx,
                ui,
                grid,
                "material.memo",
                field::<Material>().memo(),
                true,
                |i| material(i).map(|m| m.memo.as_str().into_owned()),
            );
            ui.label(cx.tr("material.faces"));
            let faces: u64 = indices
                .iter()
                .filter_map(|&i| material(i))
                .map(|m| u64::from(m.face_index_count / 3))
                .sum();
            ui.label(faces.to_string());
            ui.end_row();
        });
        if let [only] = indices
            && let Some(m) = material(*only)
        {
            ui.separator();
            let d = m.diffuse;
            ui.weak(format!(
                "{} {} {} {}",
                trim_number(f64::from(d.x), 3),
                trim_number(f64::from(d.y), 3),
                trim_number(f64::from(d.z), 3),
                trim_number(f64::from(d.w), 3)
            ));
        }
    }
}

/// Sets a colour the picker changed, as one edit of the whole field (one undo step per drag).
/// The table's swatches show RGB: a diffuse colour keeps its alpha.
fn push_color<V: Vector>(
    cx: &mut EditCx<'_>,
    response: &egui::Response,
    index: usize,
    handle: Field<Material, V>,
    old: V,
    picked: Option<&[f32]>,
) {
    let Some(picked) = picked else {
        return;
    };
    let value = picked
        .iter()
        .enumerate()
        .fold(old, |value, (c, &v)| value.with_component(c, v));
    cx.commands
        .push(Command::set(handle, vec![index], value).in_gesture(Some(response.id)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_has_a_title() {
        assert_eq!(
            MaterialTable.columns(&Model::default()).len(),
            COLUMNS.len()
        );
        assert_eq!(
            sphere_mode_key(SphereMode::Unknown(9)),
            "material.sphere_unknown"
        );
    }
}
