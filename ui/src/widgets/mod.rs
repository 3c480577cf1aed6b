//! Editing widgets shared by the tables and property panels. Each shows a value read from the
//! model and, when the user changes it, pushes an edit command; none writes to the model.

pub mod properties;
pub mod table;

use crate::command::{Command, Commands};
use crate::document::Document;
use crate::i18n::{Language, NameLanguage};
use crate::selection::Selection;
use pmx_core::edit::{Element, Field, FieldType};
use pmx_core::model::Model;
use std::hash::Hash;

/// A menu's list of recent files (File > Recent files, File > Recent exports, the pose pane's
/// recent motions): each by its file name, the whole path on hover, "(none)" when empty.
/// Returns the one clicked.
pub fn recent_files_ui(
    ui: &mut egui::Ui,
    lang: Language,
    paths: &[std::path::PathBuf],
) -> Option<std::path::PathBuf> {
    if paths.is_empty() {
        ui.weak(lang.tr("menu.no_recent"));
    }
    let mut chosen = None;
    for path in paths {
        if ui
            .button(crate::document::file_name(path))
            .on_hover_text(path.display().to_string())
            .clicked()
        {
            chosen = Some(path.clone());
        }
    }
    chosen
}

/// What every pane works with (one type for all of them): the document, where to push
/// commands, the languages. A pane hands its widgets an [`EditCx`] borrowed from it.
#[derive(Debug)]
pub struct PaneCx<'a> {
    pub document: &'a mut Document,
    /// Changes when another document is opened (with the revision: cache keys).
    pub document_id: u64,
    pub commands: &'a mut Commands,
    pub lang: Language,
    pub names: NameLanguage,
}

/// A pane's context split into the parts a pane reads and writes at the same time.
#[derive(Debug)]
pub struct PaneParts<'p> {
    pub model: &'p Model,
    pub selection: &'p mut Selection,
    pub commands: &'p mut Commands,
    pub lang: Language,
    pub names: NameLanguage,
    /// The model file's folder (texture paths are relative to it).
    pub base_dir: Option<&'p std::path::Path>,
    pub document_id: u64,
    /// The document's revision (changes with every edit, undo and redo).
    pub revision: u64,
}

impl PaneCx<'_> {
    #[must_use]
    pub fn tr(&self, key: &'static str) -> &'static str {
        self.lang.tr(key)
    }

    /// The context split into borrows that can be held together.
    pub fn parts(&mut self) -> PaneParts<'_> {
        let revision = self.document.revision();
        let document = &mut *self.document;
        PaneParts {
            model: &document.model,
            selection: &mut document.selection,
            commands: self.commands,
            lang: self.lang,
            names: self.names,
            // Document::folder, spelled out: `selection` is borrowed mutably beside it.
            base_dir: document
                .path
                .as_deref()
                .or(document.imported_from.as_deref())
                .and_then(std::path::Path::parent),
            document_id: self.document_id,
            revision,
        }
    }

    /// The context of the pane's editing widgets.
    pub fn edit(&mut self) -> EditCx<'_> {
        self.parts().edit()
    }
}

impl<'p> PaneParts<'p> {
    /// The widgets' context (the selection stays with the caller).
    pub fn edit(self) -> EditCx<'p> {
        EditCx {
            model: self.model,
            commands: self.commands,
            lang: self.lang,
            names: self.names,
            base_dir: self.base_dir,
        }
    }
}

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
    pub fn set_on_change<E: Element, T: FieldType>(
        &mut self,
        response: &egui::Response,
        field: Field<E, T>,
        indices: &[usize],
        value: T,
    ) {
        if response.changed() {
            let gesture = response.dragged().then_some(response.id);
            self.commands
                .push(Command::set(field, indices.to_vec(), value).in_gesture(gesture));
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

/// A number field for an `f32`: drag to change, click to type. `mixed` shows "—" (the selected
/// elements differ) until the user sets a value.
///
/// The response says "changed" only when the user set a different value, and the value returned
/// is then exactly what they set; otherwise it is `value` itself, bit for bit. The field shows
/// the number rounded to `decimals`, so the text it edits is rounded too: clicking into the
/// field and leaving it without typing gives back the stored value, not the rounded text (egui
/// would otherwise parse the text and report a change nobody made).
pub fn f32_drag(
    ui: &mut egui::Ui,
    value: f32,
    mixed: bool,
    speed: f64,
    decimals: usize,
    name: &str,
) -> (egui::Response, f32) {
    let stored = f64::from(value);
    // A NaN never equals itself: egui would report it changed on every frame. Such a field
    // starts from 0 when dragged; the text still shows "NaN".
    let start = if stored.is_nan() { 0.0 } else { stored };
    let mut edited = start;
    let shown = if mixed {
        "—".to_owned()
    } else {
        trim_number(stored, decimals)
    };
    let untouched_text = shown.clone();
    let mut drag = egui::DragValue::new(&mut edited)
        .speed(speed)
        .max_decimals(decimals.max(7))
        .update_while_editing(false)
        .custom_parser(move |text| {
            if text.trim() == untouched_text {
                // The text as shown: the stored value, not its rounding.
                Some(start)
            } else {
                parse_number(text)
            }
        });
    drag = if mixed {
        drag.custom_formatter(|_, _| "—".to_owned())
    } else {
        drag.custom_formatter(move |v, _| {
            if v == start {
                shown.clone()
            } else {
                trim_number(v, decimals)
            }
        })
    };
    let mut response = ui.add(drag).accessible_name(name);
    let new = edited as f32;
    let changed = edited != start && new.to_bits() != value.to_bits();
    response.flags.set(egui::response::Flags::CHANGED, changed);
    (response, if changed { new } else { value })
}

/// A number as typed: spaces ignored, the minus sign U+2212 accepted (as egui reads numbers).
fn parse_number(text: &str) -> Option<f64> {
    let text: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| if c == '\u{2212}' { '-' } else { c })
        .collect();
    text.parse().ok()
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

/// An integer field; "changed" only when the user set a different value.
pub fn i64_drag(
    ui: &mut egui::Ui,
    value: i64,
    mixed: bool,
    range: std::ops::RangeInclusive<i64>,
    name: &str,
) -> (egui::Response, i64) {
    let mut edited = value;
    // A value outside the range (a broken file) is shown as it is, not clamped: clamping would
    // be a change nobody made. What the user drags or types is clamped.
    let mut drag = egui::DragValue::new(&mut edited)
        .speed(0.1)
        .range(range)
        .clamp_existing_to_range(false)
        .update_while_editing(false);
    if mixed {
        drag = drag.custom_formatter(|_, _| "—".to_owned());
    }
    let mut response = ui.add(drag).accessible_name(name);
    let changed = edited != value;
    response.flags.set(egui::response::Flags::CHANGED, changed);
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

/// A choice of an element index from a list (`None` allowed when `none_label` is given), as
/// a combo box with a search field. Returns the new choice when the user picks one that differs
/// from `current` (opening and closing the list, or picking what is already set, is no change).
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
    picked.filter(|&choice| choice != current)
}

/// A colour swatch that opens a picker. PMX colours are the numbers MMD's shader uses, shown
/// as sRGB (0.5 is mid grey), so the picker works in 8-bit sRGB; exact values are typed in the
/// number fields beside it. Returns the new colour when the user changed it in the picker: only
/// the components whose 8-bit value the user changed take the picker's value, the others keep
/// theirs exactly.
///
/// The colour stays unmultiplied all the way (egui's `Hsva`, made by [`hsva_of`]): a colour
/// with alpha 0 keeps its RGB, and RGB and alpha are edited independently. (egui's `Color32`
/// and `Rgba` are premultiplied, so going through them turned the RGB of a fully transparent
/// material into 0 as soon as it was shown, and raising its alpha in the picker made it black.)
pub fn color_swatch_ui<const N: usize>(
    ui: &mut egui::Ui,
    value: [f32; N],
    name: &str,
) -> (egui::Response, Option<[f32; N]>) {
    use egui::color_picker::{Alpha, color_edit_button_hsva};
    let to_u8 = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let mut before = [255u8; 4];
    for (slot, v) in before.iter_mut().zip(value) {
        *slot = to_u8(v);
    }
    // The picker's own state while it is open: a grey or black colour has no hue, so the hue
    // the user set would be lost between frames if it were derived from the value again.
    let memory_id = ui.make_persistent_id(("colour_swatch", name));
    let mut hsva = ui
        .data(|d| d.get_temp::<([u8; 4], egui::ecolor::Hsva)>(memory_id))
        .filter(|(shown, _)| *shown == before)
        .map_or_else(|| hsva_of(before), |(_, hsva)| hsva);
    let alpha = if N == 4 {
        Alpha::OnlyBlend
    } else {
        Alpha::Opaque
    };
    let response = color_edit_button_hsva(ui, &mut hsva, alpha).accessible_name(name);
    if !response.changed() {
        return (response, None);
    }
    let mut after = hsva.to_srgba_unmultiplied();
    if N < 4 {
        after[3] = 255;
    }
    ui.data_mut(|d| d.insert_temp(memory_id, (after, hsva)));
    if after == before {
        return (response, None);
    }
    let mut out = value;
    for (slot, (new, old)) in out.iter_mut().zip(after.iter().zip(before)) {
        if *new != old {
            *slot = f32::from(*new) / 255.0;
        }
    }
    (response, Some(out))
}

/// The picker's colour for 8-bit sRGB `rgba` without premultiplied alpha: the inverse of
/// `Hsva::to_srgba_unmultiplied` for every value. egui's `Hsva::from_srgba_unmultiplied` is not
/// (egui 0.37): it goes through the premultiplied `Color32`, so alpha 0 gives black and a low
/// alpha rounds the RGB.
fn hsva_of([r, g, b, a]: [u8; 4]) -> egui::ecolor::Hsva {
    use egui::ecolor::{linear_f32_from_gamma_u8, linear_f32_from_linear_u8};
    egui::ecolor::Hsva::from_rgba_unmultiplied(
        linear_f32_from_gamma_u8(r),
        linear_f32_from_gamma_u8(g),
        linear_f32_from_gamma_u8(b),
        linear_f32_from_linear_u8(a),
    )
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
    fn picker_colours_keep_rgb_and_alpha_apart() {
        use egui::ecolor::{Hsva, HsvaGamma};
        let levels = [0u8, 1, 2, 17, 54, 77, 127, 128, 153, 200, 230, 254, 255];
        for r in levels {
            for g in levels {
                for b in levels {
                    for a in [0u8, 1, 128, 255] {
                        let rgba = [r, g, b, a];
                        let hsva = hsva_of(rgba);
                        assert_eq!(hsva.to_srgba_unmultiplied(), rgba);
                        // The popup edits an `HsvaGamma` of it and gives it back every frame.
                        let shown = Hsva::from(HsvaGamma::from(hsva));
                        assert_eq!(shown.to_srgba_unmultiplied(), rgba);
                        // A new alpha leaves the RGB alone.
                        let raised = Hsva { a: 0.5, ..hsva }.to_srgba_unmultiplied();
                        assert_eq!(raised[..3], rgba[..3]);
                    }
                }
            }
        }
        // What egui's own constructor gives for white with alpha 0 (why it is not used).
        assert_eq!(
            Hsva::from_srgba_unmultiplied([255, 255, 255, 0]).to_srgba_unmultiplied(),
            [0, 0, 0, 0]
        );
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
