//! Every built-in tool, with its default options, on every corpus PMX, on the every-feature
//! model and on a damaged model (dangling bone indices in weights, faces past the vertices, a
//! parent cycle, NaN and infinite positions), with nothing selected and with everything
//! selected: a tool either refuses with an error or returns an edit that applies and undoes
//! exactly; it never panics.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::Model;
use pmx_core::generate::{feature_model, sample_model};
use pmx_core::model::{BoneIdx, ElementKind, PmxVersion, TextEncoding, Vec3, VertexIdx, Weight};
use pmx_plugins::{Options, PluginSelection, Registry, run_plugin};
use pmx_tests::{corpus_dir, files_with_extension};

fn damaged() -> Model {
    let mut model = sample_model();
    let bones = model.bones.len();
    model.vertices[0].weight = Weight::Bdef1 {
        bone: Some(BoneIdx::new(bones + 7)),
    };
    model.vertices[1].position = Vec3::new(f32::NAN, 0.0, 0.0);
    model.vertices[2].position = Vec3::new(f32::INFINITY, 1.0, 0.0);
    model.bones[2].parent = Some(BoneIdx::new(3));
    model.bones[3].parent = Some(BoneIdx::new(2));
    model.bones[4].position = Vec3::new(0.0, f32::NAN, 0.0);
    if let Some(face) = model.faces.first_mut() {
        face[0] = VertexIdx::new(model.vertices.len() + 100);
    }
    model
}

fn everything(model: &Model) -> PluginSelection {
    let mut selection = PluginSelection::new();
    for kind in ElementKind::ALL {
        selection.set(kind, (0..model.count(kind)).collect());
    }
    selection
}

/// Bit-level equality, so that NaN positions compare equal to themselves.
fn same(a: &Model, b: &Model) -> bool {
    pmx_core::formats::json::write(a).ok() == pmx_core::formats::json::write(b).ok()
}

fn every_tool_on(name: &str, model: &Model) {
    let registry = Registry::builtin();
    for plugin in registry.iter() {
        let info = plugin.info();
        let options = Options::defaults(&info.options);
        for selection in [PluginSelection::new(), everything(model)] {
            let mut working = model.clone();
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_plugin(plugin.as_ref(), &mut working, &selection, &options)
            }));
            let Ok(result) = outcome else {
                panic!("{} panicked on {name}", info.id);
            };
            assert!(
                same(&working, model),
                "{} changed {name} while building",
                info.id
            );
            if let Ok(mut run) = result {
                run.edit.apply(&mut working);
                run.edit.revert(&mut working);
                assert!(
                    same(&working, model),
                    "{}: undo on {name} is not exact",
                    info.id
                );
            }
        }
    }
}

#[test]
fn every_tool_on_generated_and_damaged_models_refuses_or_undoes_exactly() {
    every_tool_on("sample", &sample_model());
    every_tool_on(
        "feature model",
        &feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 60, 6),
    );
    every_tool_on("damaged sample", &damaged());
    every_tool_on("empty model", &Model::default());
}

#[test]
fn every_tool_on_every_corpus_model_refuses_or_undoes_exactly() {
    let Some(dir) = corpus_dir("pmx") else {
        return;
    };
    for path in files_with_extension(&dir, "pmx") {
        let model = pmx_core::formats::load_path(&path, &pmx_core::LoadOptions::default())
            .unwrap()
            .model;
        every_tool_on(&path.display().to_string(), &model);
    }
}
