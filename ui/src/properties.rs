//! Property panel rows: one field of the selected elements per row, editing all of them at
//! once. When the selected elements differ in a field, it shows "—" until the user sets it.

use crate::command::Command;
use crate::widgets::{
    EditCx, color_swatch_ui, f32_drag, i64_drag, index_picker_ui, json_f32, json_text, json_vec,
    text_commit_ui,
};
use pmx_core::edit::EditTarget;
use pmx_core::model::BoneIdx;
use serde_json::Value;
use std::collections::HashMap;

/// Whether the selected elements differ in a field, remembered per field until the model or
/// the selection changes: with 1,000,000 vertices selected, comparing every field every frame
/// would cost tens of milliseconds.
#[derive(Debug, Default)]
pub struct MixedCache {
    key: (u64, u64, u64),
    mixed: HashMap<String, bool>,
}

impl MixedCache {
    /// Forgets everything when `key` (document, revision, selection fingerprint) changed.
    pub fn validate(&mut self, key: (u64, u64, u64)) {
        if self.key != key {
            self.key = key;
            self.mixed.clear();
        }
    }
}

/// The rows of a property panel for the elements at `indices` of `target`.
#[derive(Debug)]
pub struct PropertyGrid<'a> {
    pub target: EditTarget,
    pub indices: &'a [usize],
    cache: &'a mut MixedCache,
}

impl<'a> PropertyGrid<'a> {
    pub fn new(target: EditTarget, indices: &'a [usize], cache: &'a mut MixedCache) -> Self {
        Self {
            target,
            indices,
            cache,
        }
    }

    /// Lays out the rows in a two-column grid.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        id: &str,
        add_rows: impl FnOnce(&mut egui::Ui, &mut Self),
    ) {
        egui::Grid::new(id)
            .num_columns(2)
            .striped(true)
            .spacing([10.0, 6.0])
            .show(ui, |ui| add_rows(ui, self));
    }

    /// The first element's value and whether any other differs (cached per `key`).
    pub fn summary<T: PartialEq>(
        &mut self,
        key: &str,
        get: impl Fn(usize) -> Option<T>,
    ) -> Option<(T, bool)> {
        let (&first_index, rest) = self.indices.split_first()?;
        let first = get(first_index)?;
        let mixed = match self.cache.mixed.get(key) {
            Some(&mixed) => mixed,
            None => {
                let mixed = rest.iter().any(|&i| get(i).is_none_or(|v| v != first));
                self.cache.mixed.insert(key.to_owned(), mixed);
                mixed
            }
        };
        Some((first, mixed))
    }

    fn push(&self, cx: &mut EditCx<'_>, response: &egui::Response, field: &str, value: Value) {
        cx.set_on_change(response, self.target, self.indices, field, value);
    }
}

/// A row with an `f32` field.
pub fn f32_field_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: &str,
    speed: f64,
    get: impl Fn(usize) -> Option<f32>,
) {
    ui.label(cx.tr(title));
    if let Some((value, mixed)) = grid.summary(field, get) {
        let (response, new) = f32_drag(ui, value, mixed, speed, 6, field);
        grid.push(cx, &response, field, json_f32(new));
    }
    ui.end_row();
}

/// A row with an integer field.
pub fn i64_field_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: &str,
    range: std::ops::RangeInclusive<i64>,
    get: impl Fn(usize) -> Option<i64>,
) {
    ui.label(cx.tr(title));
    if let Some((value, mixed)) = grid.summary(field, get) {
        let (response, new) = i64_drag(ui, value, mixed, range, field);
        grid.push(cx, &response, field, Value::from(new));
    }
    ui.end_row();
}

const AXES: [&str; 4] = ["x", "y", "z", "w"];

/// A row with a vector (2 to 4 components); each component is set on its own, so the other
/// components of each element stay as they were.
pub fn vec_field_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: &str,
    speed: f64,
    get: impl Fn(usize) -> Option<Vec<f32>>,
) {
    ui.label(cx.tr(title));
    ui.horizontal(|ui| {
        let components = grid
            .indices
            .first()
            .and_then(|&i| get(i))
            .map_or(0, |v| v.len());
        for (c, axis) in AXES.iter().enumerate().take(components) {
            let path = format!("{field}.{axis}");
            if let Some((value, mixed)) =
                grid.summary(&path, |i| get(i).and_then(|v| v.get(c).copied()))
            {
                let (response, new) = f32_drag(ui, value, mixed, speed, 6, &path);
                grid.push(cx, &response, &path, json_f32(new));
            }
        }
    });
    ui.end_row();
}

/// A row with a colour (RGB or RGBA): swatch and number fields.
pub fn color_field_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: &str,
    get: impl Fn(usize) -> Option<Vec<f32>>,
) {
    ui.label(cx.tr(title));
    ui.horizontal(|ui| {
        let Some(first) = grid.indices.first().and_then(|&i| get(i)) else {
            return;
        };
        let swatch_name = format!("{field} colour");
        let picked = match first.as_slice() {
            [r, g, b] => {
                let (response, picked) = color_swatch_ui(ui, [*r, *g, *b], &swatch_name);
                picked.map(|p| (response, p.to_vec()))
            }
            [r, g, b, a] => {
                let (response, picked) = color_swatch_ui(ui, [*r, *g, *b, *a], &swatch_name);
                picked.map(|p| (response, p.to_vec()))
            }
            _ => None,
        };
        if let Some((response, picked)) = picked {
            // The components the picker changed are set on every selected element; each
            // element keeps its other components. One edit of the whole field: one undo step.
            let changed: Vec<bool> = picked
                .iter()
                .zip(&first)
                .map(|(new, old)| new != old)
                .collect();
            let values = grid
                .indices
                .iter()
                .map(|&i| {
                    let mut value = get(i).unwrap_or_else(|| first.clone());
                    for (c, slot) in value.iter_mut().enumerate() {
                        if changed.get(c).copied().unwrap_or(false) {
                            *slot = picked[c];
                        }
                    }
                    json_vec(&value)
                })
                .collect();
            cx.commands.push(
                Command::set_each(grid.target, grid.indices.to_vec(), field, values)
                    .in_gesture(Some(response.id)),
            );
        }
        for (c, axis) in AXES.iter().enumerate().take(first.len()) {
            let path = format!("{field}.{axis}");
            if let Some((value, mixed)) =
                grid.summary(&path, |i| get(i).and_then(|v| v.get(c).copied()))
            {
                let (response, new) = f32_drag(ui, value, mixed, 0.005, 4, &path);
                grid.push(cx, &response, &path, json_f32(new));
            }
        }
    });
    ui.end_row();
}

/// A row with a text field (committed when the user leaves it).
pub fn text_field_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: &str,
    multiline: bool,
    get: impl Fn(usize) -> Option<String>,
) {
    ui.label(cx.tr(title));
    if let Some((value, mixed)) = grid.summary(field, get) {
        let shown = if mixed { "" } else { value.as_str() };
        let id = ui.scope_id().with(("text", field, grid.indices.first()));
        // As wide as the panel allows (up to 220): a narrow panel keeps the whole row visible.
        let width = ui.available_width().clamp(80.0, 220.0);
        if let Some(new) = text_commit_ui(ui, id, shown, multiline, width, field) {
            cx.commands.push(Command::set(
                grid.target,
                grid.indices.to_vec(),
                field,
                json_text(&new),
            ));
        }
    }
    ui.end_row();
}

/// A row with one bit of a flags field as a check box. Each element keeps its other bits, so
/// the edit sets each element's own new flags.
pub fn flag_field_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: &str,
    bit: u32,
    flags_of: impl Fn(usize) -> Option<u32>,
    to_json: impl Fn(u32) -> Value,
) {
    let key = format!("{field}&{bit}");
    let Some((on, mixed)) = grid.summary(&key, |i| flags_of(i).map(|f| f & bit != 0)) else {
        return;
    };
    let mut checked = on && !mixed;
    let response = ui.add(egui::Checkbox::new(&mut checked, cx.tr(title)).indeterminate(mixed));
    if response.changed() {
        let values = grid
            .indices
            .iter()
            .map(|&i| {
                let flags = flags_of(i).unwrap_or_default();
                to_json(if checked { flags | bit } else { flags & !bit })
            })
            .collect();
        cx.commands.push(Command::set_each(
            grid.target,
            grid.indices.to_vec(),
            field,
            values,
        ));
    }
}

/// A row choosing a bone (or none).
pub fn bone_field_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: &str,
    get: impl Fn(usize) -> Option<Option<BoneIdx>>,
) {
    crate::table::fields::pick_field_ui(
        cx,
        ui,
        grid,
        title,
        field,
        crate::table::fields::Pick::Bone,
        |i| get(i).map(|b| b.map(BoneIdx::get)),
    );
}

/// A row choosing an element index (or none) from `count` elements; returns the choice.
#[allow(clippy::option_option)]
pub fn index_row_ui(
    cx: &EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: &str,
    count: usize,
    label: &dyn Fn(usize) -> String,
    get: impl Fn(usize) -> Option<Option<usize>>,
) -> Option<Option<usize>> {
    ui.label(cx.tr(title));
    let mut picked = None;
    if let Some((value, mixed)) = grid.summary(field, get) {
        let none = cx.tr("common.none");
        picked = index_picker_ui(
            ui,
            ("pick", field),
            value,
            mixed,
            count,
            label,
            Some(none),
            200.0,
            field,
        );
    }
    ui.end_row();
    picked
}
