#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Every field the UI edits names a place the model has. On the feature model (every weight
//! kind, morph kind, joint kind, soft body, IK with limits, ...), each number field of every
//! tab's property panel and of the selected row, for an element of every variant, is stepped
//! once through accessibility, as a screen reader would: each step makes exactly one undo step,
//! with no error, and undo gives the model back byte for byte. The typed
//! field handles make a wrong field name a build error; this test covers what only the data
//! decides (a weight slot, a morph offset's kind, an option that must be set).

use egui::Vec2;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use pmx_core::generate::feature_model;
use pmx_core::model::{ElementKind, Model, MorphKind, PmxVersion, TextEncoding};
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::editor::MessageLevel;
use pmx_ui::editor::settings::Settings;
use pmx_ui::editor::workspace::Pane;
use pmx_ui::i18n::Language;
use std::collections::BTreeSet;

fn harness(model: Model) -> Harness<'static, EditorState> {
    let mut editor = EditorState::new(Settings {
        language: Language::English,
        ..Settings::default()
    });
    editor.open_document(Document::from_model(model, None, None));
    let mut harness = Harness::builder()
        .with_size(Vec2::new(1920.0, 1200.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .allow_missing_glyphs()
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    harness
}

fn bytes(model: &Model) -> Vec<u8> {
    serde_json::to_vec(model).unwrap()
}

fn document<'a>(harness: &'a Harness<'_, EditorState>) -> &'a Document {
    harness.state().document.as_ref().unwrap()
}

/// One element of each variant the panels show differently.
fn elements_of_every_variant(model: &Model, kind: ElementKind) -> Vec<usize> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut keep = |key: u32, index: usize| {
        if seen.insert(key) {
            out.push(index);
        }
    };
    match kind {
        ElementKind::Vertex => {
            for (i, v) in model.vertices.iter().enumerate() {
                keep(v.weight.kind() as u32, i);
            }
            assert_eq!(out.len(), 5, "every weight kind");
        }
        ElementKind::Morph => {
            for (i, m) in model.morphs.iter().enumerate() {
                keep(m.offsets.kind() as u32, i);
            }
            assert!(seen.contains(&(MorphKind::Impulse as u32)));
        }
        ElementKind::Bone => {
            for (i, b) in model.bones.iter().enumerate() {
                keep(u32::from(b.flags.bits()), i);
            }
        }
        ElementKind::Joint => {
            for (i, j) in model.joints.iter().enumerate() {
                keep(u32::from(j.kind.to_raw()), i);
            }
        }
        _ => {
            if model.count(kind) > 0 {
                out.push(0);
            }
        }
    }
    out
}

/// The number fields to step for element `index` of `kind`: the property panel's (their names
/// are paths) and the selected row's (their names start with the element).
fn number_fields(
    harness: &Harness<'_, EditorState>,
    kind: ElementKind,
    index: usize,
) -> Vec<String> {
    let row = format!("{} {index} ", kind.name());
    let mut names: Vec<String> = harness
        .query_all_by_role(Role::SpinButton)
        .filter_map(|node| node.accesskit_node().label())
        .filter(|label| {
            label.starts_with(&row)
                || (!label.contains(' ') && label.chars().next().is_some_and(char::is_alphabetic))
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

fn step_every_field(kind: ElementKind) -> usize {
    let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 24, 12);
    let elements = elements_of_every_variant(&model, kind);
    assert!(!elements.is_empty(), "{kind:?}: the feature model has some");
    let mut harness = harness(model);
    let pane = Pane::of_kind(kind).expect("every kind has a tab");
    harness.state_mut().show_tab(pane.name()).unwrap();
    harness.run_ok();
    let mut stepped = 0;
    for index in elements {
        harness
            .state_mut()
            .document
            .as_mut()
            .unwrap()
            .selection
            .get_mut(kind)
            .select_only(index);
        harness.run_ok();
        let fields = number_fields(&harness, kind, index);
        assert!(
            !fields.is_empty(),
            "{kind:?} {index}: no number fields shown"
        );
        for name in fields {
            let before = bytes(&document(&harness).model);
            let steps = document(&harness).history.head();
            let Some(node) = harness
                .query_all_by_role(Role::SpinButton)
                .find(|node| node.accesskit_node().label().as_deref() == Some(name.as_str()))
            else {
                continue;
            };
            // One more than shown (an index field moves to the next element).
            match node.accesskit_node().numeric_value() {
                Some(value) if value.is_finite() => node.set_value_accesskit(value + 1.0),
                _ => node.increment_accesskit(),
            }
            harness.run_ok();
            let message = harness.state().message.as_ref();
            assert!(
                message.is_none_or(|m| m.level != MessageLevel::Error),
                "{kind:?} {index} `{name}`: {}",
                message
                    .map(|m| m.text(Language::English))
                    .unwrap_or_default()
            );
            let edited = document(&harness);
            // A field at its limit may not move; otherwise exactly one step.
            if bytes(&edited.model) == before {
                continue;
            }
            assert_eq!(
                edited.history.head(),
                steps + 1,
                "{kind:?} {index} `{name}`: one step"
            );
            harness.state_mut().document.as_mut().unwrap().undo();
            harness.run_ok();
            assert!(
                bytes(&document(&harness).model) == before,
                "{kind:?} {index} `{name}`: undo gives the model back"
            );
            stepped += 1;
        }
    }
    stepped
}

#[test]
fn every_number_field_of_every_tab_edits_its_own_field() {
    let mut total = 0;
    for kind in [
        ElementKind::Vertex,
        ElementKind::Face,
        ElementKind::Material,
        ElementKind::Bone,
        ElementKind::Morph,
        ElementKind::RigidBody,
        ElementKind::Joint,
        ElementKind::SoftBody,
    ] {
        let stepped = step_every_field(kind);
        assert!(stepped > 0, "{kind:?}: some field edited");
        println!("{kind:?}: {stepped} fields stepped");
        total += stepped;
    }
    assert!(total > 100, "{total} fields");
}
