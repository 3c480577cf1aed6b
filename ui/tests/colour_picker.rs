#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The colour picker edits the stored RGB and alpha independently, and showing it changes
//! nothing: a fully transparent material keeps its RGB when its picker opens (it shows the
//! stored colour, not black), raising its alpha in the picker changes the alpha alone, and
//! opening and closing the picker leaves the history empty.
//!
//! On the corpus Gene's 青ざめ (white, alpha 0; skipped with the reason when the corpus is
//! absent) and on a generated model with a white and a coloured transparent material.

use egui::Key;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use pmx_core::model::{ElementKind, Material, Model, Vec4};
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::editor::workspace::Pane;
use pmx_ui::i18n::Language;
use std::path::Path;

/// The editor (English) on `model`. The picker's copy button is an emoji the bundled font
/// lacks: drawn as a box, as the app draws it.
fn harness(model: Model) -> Harness<'static, EditorState> {
    let mut editor = EditorState::new(Settings {
        language: Language::English,
        ..Settings::default()
    });
    editor.open_document(Document::from_model(model, None, None));
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(1600.0, 1000.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .allow_missing_glyphs()
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    harness
}

fn document<'a>(harness: &'a Harness<'_, EditorState>) -> &'a Document {
    harness.state().document.as_ref().unwrap()
}

fn model_json(harness: &Harness<'_, EditorState>) -> Vec<u8> {
    pmx_core::formats::json::write(&document(harness).model).unwrap()
}

/// The picker's number for `channel` ("R", "G", "B" or "A"), 0 to 255.
fn shown(harness: &Harness<'_, EditorState>, channel: &str) -> f64 {
    harness
        .get_by_role_and_label(Role::SpinButton, channel)
        .accesskit_node()
        .numeric_value()
        .unwrap_or_else(|| panic!("{channel} has no value"))
}

/// What the picker shows for a stored component (8-bit, as the picker works).
fn byte(value: f32) -> f64 {
    f64::from((value.clamp(0.0, 1.0) * 255.0).round())
}

/// Selects material `index` in the 材質 tab, opens the property panel's picker `swatch` of the
/// RGBA colour `get` reads, checks what it shows, closes it, then opens it again and raises
/// the alpha to 128: one step that changes the alpha alone.
fn check_picker(
    mut harness: Harness<'static, EditorState>,
    index: usize,
    swatch: &str,
    get: impl Fn(&Material) -> Vec4,
) {
    let pane = Pane::of_kind(ElementKind::Material).unwrap();
    harness.state_mut().show_tab(pane.name()).unwrap();
    harness.run_ok();
    harness.get_by_label(&format!("material {index}")).click();
    harness.run_ok();
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Material)
            .current,
        Some(index)
    );
    let stored = get(&document(&harness).model.materials[index]);
    let before = model_json(&harness);

    // Opened: the stored colour, alpha 0 included. Closed: nothing changed.
    harness.get_by_label(swatch).click();
    harness.run_ok();
    for (channel, value) in [
        ("R", stored.x),
        ("G", stored.y),
        ("B", stored.z),
        ("A", stored.w),
    ] {
        assert_eq!(
            shown(&harness, channel),
            byte(value),
            "{swatch} of material {index} ({stored:?}): {channel}"
        );
    }
    harness.key_press(Key::Escape);
    harness.run_ok();
    assert!(
        harness
            .query_by_role_and_label(Role::SpinButton, "A")
            .is_none(),
        "the picker closed"
    );
    assert!(
        document(&harness).history.is_empty(),
        "{swatch}: opening and closing the picker made a step"
    );
    assert!(
        model_json(&harness) == before,
        "{swatch}: the model changed"
    );

    // The alpha raised in the picker: the RGB stays exactly as stored.
    harness.get_by_label(swatch).click();
    harness.run_ok();
    harness
        .get_by_role_and_label(Role::SpinButton, "A")
        .set_value_accesskit(128.0);
    harness.run_ok();
    assert_eq!(shown(&harness, "A"), 128.0);
    for (channel, value) in [("R", stored.x), ("G", stored.y), ("B", stored.z)] {
        assert_eq!(
            shown(&harness, channel),
            byte(value),
            "{channel} after alpha"
        );
    }
    harness.key_press(Key::Escape);
    harness.run_ok();
    let after = get(&document(&harness).model.materials[index]);
    assert_eq!(
        [after.x, after.y, after.z].map(f32::to_bits),
        [stored.x, stored.y, stored.z].map(f32::to_bits),
        "{swatch}: the RGB changed with the alpha"
    );
    assert_eq!(after.w, 128.0 / 255.0, "{swatch}: the alpha");
    assert_eq!(document(&harness).history.len(), 1, "{swatch}: one step");
}

/// A model whose first material is white with alpha 0 (as Gene's 青ざめ) and whose second
/// is coloured with alpha 0 (as Gene's イライラ), edge colours transparent too.
fn transparent_materials() -> Model {
    let mut model = pmx_core::generate::sample_model();
    model.materials[0].diffuse = Vec4::new(1.0, 1.0, 1.0, 0.0);
    model.materials[1].diffuse = Vec4::new(0.333_333_3, 0.505_882_4, 0.580_392_2, 0.0);
    model.materials[1].edge_color = Vec4::new(0.25, 0.5, 0.75, 0.0);
    model
}

#[test]
fn a_white_transparent_material_keeps_its_rgb_in_the_picker() {
    let diffuse = |m: &Material| m.diffuse;
    check_picker(
        harness(transparent_materials()),
        0,
        "diffuse colour",
        diffuse,
    );
}

#[test]
fn a_coloured_transparent_material_keeps_its_rgb_in_the_picker() {
    let diffuse = |m: &Material| m.diffuse;
    check_picker(
        harness(transparent_materials()),
        1,
        "diffuse colour",
        diffuse,
    );
    let edge = |m: &Material| m.edge_color;
    check_picker(
        harness(transparent_materials()),
        1,
        "edge_color colour",
        edge,
    );
}

#[test]
fn genes_aozame_keeps_its_rgb_in_the_picker() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/pmx/pmxeditor_gene_cc_by.pmx");
    if !path.exists() {
        println!("skipped: the corpus Gene is not at {}", path.display());
        return;
    }
    let model = pmx_core::formats::load_path(&path, &Default::default())
        .unwrap()
        .model;
    let index = model
        .materials
        .iter()
        .position(|m| m.name_ja.as_str() == "青ざめ")
        .expect("Gene has the material 青ざめ");
    assert_eq!(
        model.materials[index].diffuse,
        Vec4::new(1.0, 1.0, 1.0, 0.0),
        "青ざめ is white with alpha 0"
    );
    let diffuse = |m: &Material| m.diffuse;
    check_picker(harness(model), index, "diffuse colour", diffuse);
}
