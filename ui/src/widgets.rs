//! Editing widgets shared by the tables and property panels. Each shows a value read from the
//! model and, when the user changes it, pushes an edit command; none writes to the model.

use crate::command::{Command, Commands};
use crate::i18n::{Language, NameLanguage};
use pmx_core::edit::EditTarget;
use pmx_core::model::{Model, Text};
use serde_json::Value;
use std::hash::Hash;

/// What editing widgets need: the model to read, where to push commands, the languages.
#[derive(Debug)]
pub struct EditCx<'a> {
    pub model: &'a Model,
    pub commands: &'a mut Commands,
    pub lang: Language,
    pub names: NameLanguage,
    /// The model file's folder (texture paths are relative to it).
    pub base_dir: Option<&'a std::path::Path>,
}

impl EditCx<'_> {
    pub fn tr(&self, key: &'static str) -> &'static str {
        self.lang.tr(key)
    }

    /// Pushes a set of `field` on `indices` when `response` changed; drag frames form one
    /// gesture.
    pub fn set_on_change(
        &mut self,
        response: &egui::Response,
        target: EditTarget,
        indices: &[usize],
        field: &str,
        value: Value,
    ) {
        if response.changed() {
            let gesture = response.dragged().then_some(response.id);
            self.commands
                .push(Command::set(target, indices.to_vec(), field, value).in_gesture(gesture));
        }
    }

    /// The display name of bone `index` ("12 センター"), or a note that it does not exist.
    #[must_use]
    pub fn bone_label(&self, index: usize) -> String {
        match self.model.bones.get(index) {
            Some(bone) => format!(
                "{index} {}",
                self.names
                    .pick(&bone.name_ja.as_str(), &bone.name_en.as_str())
            ),
            None => format!("{index} ({})", self.tr("common.missing")),
        }
    }

    #[must_use]
    pub fn texture_label(&self, index: usize) -> String {
        match self.model.textures.get(index) {
            Some(path) => format!("{index} {}", path.as_str()),
            None => format!("{index} ({})", self.tr("common.missing")),
        }
    }

    #[must_use]
    pub fn material_label(&self, index: usize) -> String {
        match self.model.materials.get(index) {
            Some(material) => format!(
                "{index} {}",
                self.names
                    .pick(&material.name_ja.as_str(), &material.name_en.as_str())
            ),
            None => format!("{index} ({})", self.tr("common.missing")),
        }
    }
}

/// JSON of an `f32` (exact: f32 → f64 widening is lossless and parses back to the same f32).
#[must_use]
pub fn json_f32(value: f32) -> Value {
    Value::from(f64::from(value))
}

/// JSON of a vector (`[x, y, z]`), as the model's vectors serialize.
#[must_use]
pub fn json_vec(values: &[f32]) -> Value {
    Value::Array(values.iter().map(|&v| json_f32(v)).collect())
}

/// A number field for an `f32`: drag to change, click to type. `mixed` shows "—" (the selected
/// elements differ) until the user sets a value.
pub fn f32_drag(
    ui: &mut egui::Ui,
    value: f32,
    mixed: bool,
    speed: f64,
    decimals: usize,
    name: &str,
) -> (egui::Response, f32) {
    let mut edited = f64::from(value);
    let mut drag = egui::DragValue::new(&mut edited)
        .speed(speed)
        .max_decimals(decimals.max(7))
        .update_while_editing(false);
    drag = if mixed {
        drag.custom_formatter(|_, _| "—".to_owned())
    } else {
        drag.custom_formatter(move |v, _| trim_number(v, decimals))
    };
    let response = ui.add(drag).accessible_name(name);
    (response, edited as f32)
}

/// `v` with at most `decimals` decimals and no trailing zeros ("1.5", "0.1235", "-2").
#[must_use]
pub fn trim_number(v: f64, decimals: usize) -> String {
    let text = format!("{v:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    };
    if text == "-0" { "0".to_owned() } else { text }
}

/// An integer field.
pub fn i64_drag(
    ui: &mut egui::Ui,
    value: i64,
    mixed: bool,
    range: std::ops::RangeInclusive<i64>,
    name: &str,
) -> (egui::Response, i64) {
    let mut edited = value;
    let mut drag = egui::DragValue::new(&mut edited)
        .speed(0.1)
        .range(range)
        .update_while_editing(false);
    if mixed {
        drag = drag.custom_formatter(|_, _| "—".to_owned());
    }
    let response = ui.add(drag).accessible_name(name);
    (response, edited)
}

/// A text field that edits a copy while it has the focus and returns the new text when the
/// user leaves it (Enter or a click elsewhere; Escape cancels): one undo step per edit, not
/// one per keystroke.
pub fn text_commit_ui(
    ui: &mut egui::Ui,
    id: egui::Id,
    current: &str,
    multiline: bool,
    width: f32,
    name: &str,
) -> Option<String> {
    let mut buffer = ui
        .data(|d| d.get_temp::<String>(id))
        .unwrap_or_else(|| current.to_owned());
    let editor = if multiline {
        egui::TextEdit::multiline(&mut buffer).desired_rows(3)
    } else {
        egui::TextEdit::singleline(&mut buffer)
    };
    let response = editor
        .id(id)
        .desired_width(width)
        .show(ui)
        .response
        .response
        .accessible_name(name);
    if response.has_focus() {
        ui.data_mut(|d| d.insert_temp(id, buffer));
        return None;
    }
    let was_editing = ui.data_mut(|d| d.remove_temp::<String>(id)).is_some();
    let cancelled = ui.input(|i| i.key_pressed(egui::Key::Escape));
    (was_editing && response.lost_focus() && !cancelled && buffer != current).then_some(buffer)
}

/// A [`Text`] as a JSON value for a set edit.
#[must_use]
pub fn json_text(text: &str) -> Value {
    serde_json::to_value(Text::from(text)).unwrap_or(Value::Null)
}

/// A choice of an element index from a list (`None` allowed when `none_label` is given), as
/// a combo box with a search field. Returns the new choice when the user picks one.
#[allow(clippy::option_option)]
pub fn index_picker_ui(
    ui: &mut egui::Ui,
    id_salt: impl Hash + std::fmt::Debug,
    current: Option<usize>,
    mixed: bool,
    count: usize,
    label: &dyn Fn(usize) -> String,
    none_label: Option<&str>,
    width: f32,
    name: &str,
) -> Option<Option<usize>> {
    let shown = match current {
        _ if mixed => "—".to_owned(),
        Some(index) => label(index),
        None => none_label.unwrap_or("-").to_owned(),
    };
    let current = if mixed { Some(usize::MAX) } else { current };
    let id = ui.make_persistent_id(id_salt);
    let mut picked = None;
    let response = egui::ComboBox::from_id_salt(id)
        .selected_text(shown)
        .width(width)
        .height(320.0)
        .show_ui(ui, |ui| {
            let search_id = id.with("search");
            let mut search = ui
                .data(|d| d.get_temp::<String>(search_id))
                .unwrap_or_default();
            ui.add(
                egui::TextEdit::singleline(&mut search)
                    .hint_text("#")
                    .desired_width(width.max(160.0)),
            )
            .accessible_name("search");
            ui.data_mut(|d| d.insert_temp(search_id, search.clone()));
            let needle = search.to_lowercase();
            if let Some(none) = none_label
                && ui.selectable_label(current.is_none(), none).clicked()
            {
                picked = Some(None);
            }
            let matches: Vec<usize> = if needle.is_empty() {
                (0..count).collect()
            } else {
                (0..count)
                    .filter(|&i| label(i).to_lowercase().contains(&needle))
                    .collect()
            };
            let row_height = ui.spacing().interact_size.y;
            egui::ScrollArea::vertical().max_height(280.0).show_rows(
                ui,
                row_height,
                matches.len(),
                |ui, rows| {
                    for &index in &matches[rows] {
                        if ui
                            .selectable_label(current == Some(index), label(index))
                            .clicked()
                        {
                            picked = Some(Some(index));
                        }
                    }
                },
            );
        });
    let _ = response.response.accessible_name(name);
    picked
}

/// A colour swatch that opens a picker. PMX colours are the numbers MMD's shader uses, shown
/// as sRGB (0.5 is mid grey), so the picker works in 8-bit sRGB; exact values are typed in the
/// number fields beside it.
pub fn color_swatch_ui<const N: usize>(
    ui: &mut egui::Ui,
    value: [f32; N],
    name: &str,
) -> (egui::Response, Option<[f32; N]>) {
    let to_u8 = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let mut rgba = [255u8; 4];
    for (slot, v) in rgba.iter_mut().zip(value) {
        *slot = to_u8(v);
    }
    let before = rgba;
    let response = if N == 4 {
        ui.color_edit_button_srgba_unmultiplied(&mut rgba)
    } else {
        let mut color = egui::Color32::from_rgb(rgba[0], rgba[1], rgba[2]);
        let response = egui::color_picker::color_edit_button_srgba(
            ui,
            &mut color,
            egui::color_picker::Alpha::Opaque,
        );
        rgba = [color.r(), color.g(), color.b(), 255];
        response
    }
    .accessible_name(name);
    if rgba == before {
        return (response, None);
    }
    let mut out = value;
    for (slot, (new, old)) in out.iter_mut().zip(rgba.iter().zip(before)) {
        if *new != old {
            *slot = f32::from(*new) / 255.0;
        }
    }
    (response, Some(out))
}

/// The first value of `indices` and whether the others differ from it.
pub fn summarize<T: PartialEq>(
    indices: &[usize],
    get: impl Fn(usize) -> Option<T>,
) -> Option<(T, bool)> {
    let mut iter = indices.iter();
    let first = get(*iter.next()?)?;
    let mixed = iter.any(|&i| get(i).is_none_or(|v| v != first));
    Some((first, mixed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_trimmed() {
        assert_eq!(trim_number(1.5, 4), "1.5");
        assert_eq!(trim_number(0.123456, 4), "0.1235");
        assert_eq!(trim_number(-2.0, 4), "-2");
        assert_eq!(trim_number(-0.00001, 4), "0");
        assert_eq!(trim_number(10.0, 0), "10");
    }

    #[test]
    fn summaries_say_when_values_differ() {
        let values = [1, 1, 2];
        assert_eq!(
            summarize(&[0, 1], |i| values.get(i).copied()),
            Some((1, false))
        );
        assert_eq!(
            summarize(&[0, 2], |i| values.get(i).copied()),
            Some((1, true))
        );
        assert_eq!(summarize(&[], |i| values.get(i).copied()), None);
    }
}
