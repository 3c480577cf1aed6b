//! Property-panel rows and cells the structure editors share: angles shown in degrees (stored
//! in radians), choices from a fixed list, picks of rigid bodies / morphs / materials, the
//! 16-group non-collision mask, and short labels for elements of every kind.

use crate::command::Command;
use crate::widgets::properties::{PropertyGrid, index_row_ui, key};
use crate::widgets::{EditCx, f32_drag};
use pmx_core::edit::{Element, Field, FieldType, Vector};
use pmx_core::model::{BoneIdx, MaterialIdx, MorphIdx, RigidBodyIdx, Text, Vec3};

/// A number field that shows an angle in degrees and returns it in radians. Unchanged, it
/// returns the stored value itself (no rounding through degrees).
pub fn degrees_drag(
    ui: &mut egui::Ui,
    radians: f32,
    mixed: bool,
    name: &str,
) -> (egui::Response, f32) {
    let (response, degrees) = f32_drag(ui, radians.to_degrees(), mixed, 0.5, 3, name);
    let value = if response.changed() {
        degrees.to_radians()
    } else {
        radians
    };
    (response, value)
}

/// A row with an angle (radians in the model) shown in degrees.
pub fn degrees_field_ui<E: Element>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, f32>,
    get: impl Fn(usize) -> Option<f32>,
) {
    ui.label(cx.tr(title));
    let name = key(&field);
    if let Some((value, mixed)) = grid.summary(&name, get) {
        let (response, new) = degrees_drag(ui, value, mixed, &name);
        cx.set_on_change(&response, field, grid.indices, new);
    }
    ui.end_row();
}

/// A row with three angles (Euler x, y, z in radians) shown in degrees; each component is set
/// on its own.
pub fn degrees_vec_field_ui<E: Element>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, Vec3>,
    get: impl Fn(usize) -> Option<Vec3>,
) {
    ui.label(cx.tr(title));
    ui.horizontal(|ui| {
        for c in 0..3 {
            let Some(component) = field.clone().component(c) else {
                continue;
            };
            let path = key(&component);
            if let Some((value, mixed)) = grid.summary(&path, |i| get(i)?.component(c)) {
                let (response, new) = degrees_drag(ui, value, mixed, &path);
                cx.set_on_change(&response, component, grid.indices, new);
            }
        }
    });
    ui.end_row();
}

/// A combo box over `options` (value, i18n key); a value outside them shows `unknown` with its
/// raw number. Returns the picked value.
pub fn choice_ui<T: Copy + PartialEq>(
    cx: &EditCx<'_>,
    ui: &mut egui::Ui,
    current: Option<T>,
    options: &[(T, &'static str)],
    unknown: &dyn Fn(T) -> String,
    width: f32,
    name: &str,
) -> Option<T> {
    let shown = match current {
        None => "—".to_owned(),
        Some(value) => options
            .iter()
            .find(|(v, _)| *v == value)
            .map_or_else(|| unknown(value), |(_, key)| cx.tr(key).to_owned()),
    };
    let mut picked = None;
    let response = egui::ComboBox::from_id_salt(("choice", name))
        .selected_text(shown)
        .width(width)
        .show_ui(ui, |ui| {
            for &(value, key) in options {
                if ui
                    .selectable_label(current == Some(value), cx.tr(key))
                    .clicked()
                {
                    picked = Some(value);
                }
            }
        });
    let _ = response.response.accessible_name(name);
    picked.filter(|p| current != Some(*p))
}

/// A property row choosing one of `options` for every selected element.
#[allow(clippy::too_many_arguments)]
pub fn choice_field_ui<E: Element, T: FieldType + Copy>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, T>,
    options: &[(T, &'static str)],
    unknown: &dyn Fn(T) -> String,
    get: impl Fn(usize) -> Option<T>,
) {
    ui.label(cx.tr(title));
    let name = key(&field);
    let current = grid
        .summary(&name, get)
        .and_then(|(v, mixed)| (!mixed).then_some(v));
    if let Some(value) = choice_ui(cx, ui, current, options, unknown, 150.0, &name) {
        cx.commands
            .push(Command::set(field, grid.indices.to_vec(), value));
    }
    ui.end_row();
}

/// Short label of an element of another list: "3 頭" or "3 (missing)".
fn label_of(cx: &EditCx<'_>, index: usize, names: Option<(String, String)>) -> String {
    match names {
        Some((ja, en)) => format!("{index} {}", cx.names.pick(&ja, &en)),
        None => format!("{index} ({})", cx.tr("common.missing")),
    }
}

#[must_use]
pub fn rigid_body_label(cx: &EditCx<'_>, index: usize) -> String {
    let names = cx.model.rigid_bodies.get(index).map(|b| {
        (
            b.name_ja.as_str().into_owned(),
            b.name_en.as_str().into_owned(),
        )
    });
    label_of(cx, index, names)
}

#[must_use]
pub fn morph_label(cx: &EditCx<'_>, index: usize) -> String {
    let names = cx.model.morphs.get(index).map(|m| {
        (
            m.name_ja.as_str().into_owned(),
            m.name_en.as_str().into_owned(),
        )
    });
    label_of(cx, index, names)
}

/// Which list an index row picks from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    Bone,
    RigidBody,
    Morph,
    Material,
}

impl Pick {
    fn count(self, cx: &EditCx<'_>) -> usize {
        match self {
            Pick::Bone => cx.model.bones.len(),
            Pick::RigidBody => cx.model.rigid_bodies.len(),
            Pick::Morph => cx.model.morphs.len(),
            Pick::Material => cx.model.materials.len(),
        }
    }

    fn label(self, cx: &EditCx<'_>, index: usize) -> String {
        match self {
            Pick::Bone => cx.bone_label(index),
            Pick::RigidBody => rigid_body_label(cx, index),
            Pick::Morph => morph_label(cx, index),
            Pick::Material => cx.material_label(index),
        }
    }
}

/// The index types a [`Pick`] row sets.
pub trait PickIndex: FieldType + Copy {
    fn of(index: usize) -> Self;
}

macro_rules! pick_index {
    ($($ty:ty),*) => {$(
        impl PickIndex for $ty {
            fn of(index: usize) -> Self {
                <$ty>::new(index)
            }
        }
    )*};
}

pick_index!(BoneIdx, RigidBodyIdx, MorphIdx, MaterialIdx);

/// A row choosing a bone, rigid body, morph or material (or none) for every selected element.
pub fn pick_field_ui<E: Element, I: PickIndex>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, Option<I>>,
    pick: Pick,
    get: impl Fn(usize) -> Option<Option<usize>>,
) {
    let count = pick.count(cx);
    let picked = {
        let label = |i: usize| pick.label(cx, i);
        index_row_ui(cx, ui, grid, title, &key(&field), count, &label, get)
    };
    if let Some(choice) = picked {
        cx.commands.push(Command::set(
            field,
            grid.indices.to_vec(),
            choice.map(I::of),
        ));
    }
}

/// A row choosing a bone (or none).
pub fn bone_field_ui<E: Element>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, Option<BoneIdx>>,
    get: impl Fn(usize) -> Option<Option<BoneIdx>>,
) {
    pick_field_ui(cx, ui, grid, title, field, Pick::Bone, |i| {
        get(i).map(|b| b.map(BoneIdx::get))
    });
}

/// A picker of one element of `pick`'s list for a cell or a sub-list row; returns the choice.
#[allow(clippy::option_option)]
pub fn pick_ui(
    cx: &EditCx<'_>,
    ui: &mut egui::Ui,
    pick: Pick,
    current: Option<usize>,
    width: f32,
    name: &str,
) -> Option<Option<usize>> {
    let count = pick.count(cx);
    let label = |i: usize| pick.label(cx, i);
    let none = cx.tr("common.none");
    crate::widgets::index_picker_ui(
        ui,
        ("pick_ui", name),
        current,
        false,
        count,
        &label,
        Some(none),
        width,
        name,
    )
}

/// A row with a collision group (stored 0..15, shown 1..16).
pub fn group_field_ui<E: Element>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, u8>,
    get: impl Fn(usize) -> Option<u8>,
) {
    ui.label(cx.tr(title));
    let name = key(&field);
    let current = grid
        .summary(&name, get)
        .and_then(|(v, mixed)| (!mixed).then_some(v));
    let shown = current.map_or_else(|| "—".to_owned(), |g| (u32::from(g) + 1).to_string());
    let mut picked = None;
    let response = egui::ComboBox::from_id_salt(("group", &name))
        .selected_text(shown)
        .width(60.0)
        .show_ui(ui, |ui| {
            for group in 0..16u8 {
                if ui
                    .selectable_label(current == Some(group), (group + 1).to_string())
                    .clicked()
                {
                    picked = Some(group);
                }
            }
        });
    let _ = response.response.accessible_name(&name);
    if let Some(group) = picked.filter(|g| current != Some(*g)) {
        cx.commands
            .push(Command::set(field, grid.indices.to_vec(), group));
    }
    ui.end_row();
}

/// A row with the non-collision mask as 16 check boxes (bit n set: no collision with group
/// n + 1). Each element keeps its other bits.
pub fn mask_field_ui<E: Element>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, u16>,
    get: impl Fn(usize) -> Option<u16>,
) {
    let field_name = key(&field);
    ui.label(cx.tr(title))
        .on_hover_text(cx.tr("physics.mask_hint"));
    ui.vertical(|ui| {
        for row in 0..2u16 {
            ui.horizontal(|ui| {
                for bit in row * 8..row * 8 + 8 {
                    let key = format!("{field_name}&{bit}");
                    // Checked = does not collide: the file's mask has the bit cleared (real
                    // files hold 0xFFFF, 0xFFFE, ...; PmxEditor shows the cleared bits).
                    let Some((on, mixed)) =
                        grid.summary(&key, |i| get(i).map(|m| m & (1 << bit) == 0))
                    else {
                        continue;
                    };
                    let mut checked = on && !mixed;
                    let response = ui
                        .add(
                            egui::Checkbox::new(&mut checked, (bit + 1).to_string())
                                .indeterminate(mixed),
                        )
                        .accessible_name(format!("{field_name} {}", bit + 1));
                    if response.changed() {
                        let values = grid
                            .indices
                            .iter()
                            .map(|&i| {
                                let mask = get(i).unwrap_or_default();
                                if checked {
                                    mask & !(1 << bit)
                                } else {
                                    mask | (1 << bit)
                                }
                            })
                            .collect();
                        cx.commands.push(Command::set_each(
                            field.clone(),
                            grid.indices.to_vec(),
                            values,
                        ));
                    }
                }
            });
        }
    });
    ui.end_row();
}

/// Number cells of a vector in a table row, each set on its own.
pub fn vec_cells_ui<E: Element, V: Vector>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    index: usize,
    field: Field<E, V>,
    value: V,
    speed: f64,
) {
    for c in 0..V::COMPONENTS.len() {
        let (Some(component), Some(current)) = (field.clone().component(c), value.component(c))
        else {
            continue;
        };
        let name = format!("{} {index} {}", E::TARGET.name(), key(&component));
        let (response, new) = f32_drag(ui, current, false, speed, 4, &name);
        cx.set_on_change(&response, component, &[index], new);
    }
}

/// Angle cells (Euler x, y, z in radians, shown in degrees) in a table row, each set on its own.
pub fn degrees_cells_ui<E: Element>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    index: usize,
    field: Field<E, Vec3>,
    value: Vec3,
) {
    for c in 0..3 {
        let (Some(component), Some(current)) = (field.clone().component(c), value.component(c))
        else {
            continue;
        };
        let name = format!("{} {index} {}", E::TARGET.name(), key(&component));
        let (response, new) = degrees_drag(ui, current, false, &name);
        cx.set_on_change(&response, component, &[index], new);
    }
}

/// A text cell that edits a name in place.
pub fn name_cell_ui<E: Element>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    index: usize,
    field: Field<E, Text>,
    text: &str,
) {
    let field_name = key(&field);
    let target = E::TARGET;
    let id = ui.scope_id().with((target.name(), &field_name, index));
    let name = format!("{} {index} {field_name}", target.name());
    if let Some(new) =
        crate::widgets::text_commit_ui(ui, id, text, false, ui.available_width(), &name)
    {
        cx.commands
            .push(Command::set(field, vec![index], Text::from(new.as_str())));
    }
}

/// "1.5 2 -0.25" for the text filter.
pub fn push_numbers(values: &[f32], out: &mut String) {
    use std::fmt::Write as _;
    for v in values {
        let _ = write!(out, "{} ", crate::widgets::trim_number(f64::from(*v), 4));
    }
}
