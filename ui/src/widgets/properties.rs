//! Property panel rows: one field of the selected elements per row, editing all of them at
//! once. When the selected elements differ in a field, it shows "—" until the user sets it.

use crate::command::Command;
use crate::widgets::{
    EditCx, color_swatch_ui, f32_drag, i64_drag, index_picker_ui, text_commit_ui,
};
use pmx_core::edit::{EditTarget, Element, Field, FieldType, Vector};
use pmx_core::model::Text;
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

    fn push<E: Element, T: FieldType>(
        &self,
        cx: &mut EditCx<'_>,
        response: &egui::Response,
        field: Field<E, T>,
        value: T,
    ) {
        cx.set_on_change(response, field, self.indices, value);
    }
}

/// The text of a field's path: the key of its "mixed" cache and its widgets' accessible name.
#[must_use]
pub fn key<E, T>(field: &Field<E, T>) -> String {
    field.field_path().to_string()
}

/// A row with an `f32` field.
pub fn f32_field_ui<E: Element>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, f32>,
    speed: f64,
    get: impl Fn(usize) -> Option<f32>,
) {
    ui.label(cx.tr(title));
    let name = key(&field);
    if let Some((value, mixed)) = grid.summary(&name, get) {
        let (response, new) = f32_drag(ui, value, mixed, speed, 6, &name);
        grid.push(cx, &response, field, new);
    }
    ui.end_row();
}

/// The model's integer field types, from the number a field shows.
pub trait IntegerField: FieldType {
    fn from_i64(value: i64) -> Option<Self>;
}

macro_rules! integer_field {
    ($($ty:ty),*) => {$(
        impl IntegerField for $ty {
            fn from_i64(value: i64) -> Option<Self> {
                <$ty>::try_from(value).ok()
            }
        }
    )*};
}

integer_field!(i32, u8, u16, u32);

impl IntegerField for pmx_core::model::VertexIdx {
    fn from_i64(value: i64) -> Option<Self> {
        u32::try_from(value).ok().map(|v| Self::new(v as usize))
    }
}

/// A row with an integer field (of any of the model's integer types; `range` keeps the value
/// inside the type).
pub fn i64_field_ui<E: Element, T: IntegerField>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, T>,
    range: std::ops::RangeInclusive<i64>,
    get: impl Fn(usize) -> Option<i64>,
) {
    ui.label(cx.tr(title));
    let name = key(&field);
    if let Some((value, mixed)) = grid.summary(&name, get) {
        let (response, new) = i64_drag(ui, value, mixed, range, &name);
        if let Some(new) = T::from_i64(new) {
            grid.push(cx, &response, field, new);
        }
    }
    ui.end_row();
}

/// A row with a vector (2 to 4 components); each component is set on its own, so the other
/// components of each element stay as they were.
pub fn vec_field_ui<E: Element, V: Vector>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, V>,
    speed: f64,
    get: impl Fn(usize) -> Option<V>,
) {
    ui.label(cx.tr(title));
    number_lines(ui, V::COMPONENTS.len(), |ui, c| {
        let Some(component) = field.clone().component(c) else {
            return;
        };
        let path = key(&component);
        if let Some((value, mixed)) = grid.summary(&path, |i| get(i)?.component(c)) {
            let (response, new) = f32_drag(ui, value, mixed, speed, 6, &path);
            grid.push(cx, &response, component, new);
        }
    });
    ui.end_row();
}

/// The width a number field of a property row takes at most ("-0.123456" with its padding).
const NUMBER_FIELD_WIDTH: f32 = 80.0;

/// Lays out `count` number fields (`add` draws field `i`) on as many lines as the row's
/// width needs: in a narrow property panel a vector's
/// last components go to the next line instead of past the panel's edge. (egui's wrapping
/// layout does not tell a grid row its second line's height, so the lines are made here.)
fn number_lines(ui: &mut egui::Ui, count: usize, mut add: impl FnMut(&mut egui::Ui, usize)) {
    let spacing = ui.spacing().item_spacing.x;
    let room = ui.available_width();
    let per_line = (((room + spacing) / (NUMBER_FIELD_WIDTH + spacing)).floor() as usize)
        .clamp(1, count.max(1));
    ui.vertical(|ui| {
        let mut next = 0;
        while next < count {
            let line = next..(next + per_line).min(count);
            next = line.end;
            ui.horizontal(|ui| line.for_each(|i| add(ui, i)));
        }
    });
}

/// A row with a colour (RGB or RGBA): swatch and number fields.
pub fn color_field_ui<E: Element, V: Vector>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, V>,
    get: impl Fn(usize) -> Option<V>,
) {
    ui.label(cx.tr(title));
    // Top-aligned: the number fields' second line (a narrow panel) counts in the row's height.
    ui.horizontal_top(|ui| {
        let Some(first) = grid.indices.first().and_then(|&i| get(i)) else {
            return;
        };
        let swatch_name = format!("{} colour", key(&field));
        let components: Vec<f32> = (0..V::COMPONENTS.len())
            .filter_map(|c| first.component(c))
            .collect();
        let picked = match components.as_slice() {
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
            let values = grid
                .indices
                .iter()
                .map(|&i| {
                    let mut value = get(i).unwrap_or(first);
                    for (c, (new, old)) in picked.iter().zip(&components).enumerate() {
                        if new != old {
                            value = value.with_component(c, *new);
                        }
                    }
                    value
                })
                .collect();
            cx.commands.push(
                Command::set_each(field.clone(), grid.indices.to_vec(), values)
                    .in_gesture(Some(response.id)),
            );
        }
        number_lines(ui, components.len(), |ui, c| {
            let Some(component) = field.clone().component(c) else {
                return;
            };
            let path = key(&component);
            if let Some((value, mixed)) = grid.summary(&path, |i| get(i)?.component(c)) {
                let (response, new) = f32_drag(ui, value, mixed, 0.005, 4, &path);
                grid.push(cx, &response, component, new);
            }
        });
    });
    ui.end_row();
}

/// A row with a text field (committed when the user leaves it).
pub fn text_field_ui<E: Element>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, Text>,
    multiline: bool,
    get: impl Fn(usize) -> Option<String>,
) {
    ui.label(cx.tr(title));
    let name = key(&field);
    if let Some((value, mixed)) = grid.summary(&name, get) {
        let shown = if mixed { "" } else { value.as_str() };
        let id = ui.scope_id().with(("text", &name, grid.indices.first()));
        // As wide as the panel allows (up to 220): a narrow panel keeps the whole row visible.
        let width = ui.available_width().clamp(80.0, 220.0);
        if let Some(new) = text_commit_ui(ui, id, shown, multiline, width, &name) {
            cx.commands.push(Command::set(
                field,
                grid.indices.to_vec(),
                Text::from(new.as_str()),
            ));
        }
    }
    ui.end_row();
}

/// A row with one bit of a flags field as a check box. Each element keeps its other bits, so
/// the edit sets each element's own new flags.
pub fn flag_field_ui<E: Element, F: FieldType>(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    grid: &mut PropertyGrid<'_>,
    title: &'static str,
    field: Field<E, F>,
    bit: u32,
    flags_of: impl Fn(usize) -> Option<u32>,
    from_bits: impl Fn(u32) -> F,
) {
    let key = format!("{}&{bit}", key(&field));
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
                from_bits(if checked { flags | bit } else { flags & !bit })
            })
            .collect();
        cx.commands
            .push(Command::set_each(field, grid.indices.to_vec(), values));
    }
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
            // As wide as the panel allows (up to 200), like a text row.
            ui.available_width().clamp(100.0, 200.0),
            field,
        );
    }
    ui.end_row();
    picked
}
