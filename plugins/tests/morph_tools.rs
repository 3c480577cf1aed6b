//! The morph calls of user scripts: `split_morph`, `mirror_morph`, `morph_from_pose` and
//! `group_morph` queue the same edits as the ops of those names; `morph_from_model` and a
//! `vpd` are refused, since scripts do not read files.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::edit::{EditOp, ops_to_edit};
use pmx_core::generate::sample_model;
use pmx_plugins::{Options, Plugin, PluginError, PluginSelection, ScriptPlugin, run_plugin};
use serde_json::json;

fn run(source: &str) -> Result<pmx_core::Model, PluginError> {
    let plugin = ScriptPlugin::from_source("morphs.rhai", source).unwrap();
    let mut model = sample_model();
    let mut outcome = run_plugin(
        &plugin,
        &mut model,
        &PluginSelection::new(),
        &Options::defaults(&plugin.info().options),
    )?;
    outcome.edit.apply(&mut model);
    Ok(model)
}

fn by_ops(ops: serde_json::Value) -> pmx_core::Model {
    let ops: Vec<EditOp> = serde_json::from_value(ops).unwrap();
    let mut model = sample_model();
    let mut edit = ops_to_edit(&mut model, &ops).unwrap();
    edit.apply(&mut model);
    model
}

#[test]
fn script_calls_make_what_the_ops_make() {
    for version in [1, 2] {
        let scripted = run(&format!(
            "const api_version = {version};\n\
             split_morph(\"あ\", #{{ blend_width: 0.0, suffix_left: \"L\", suffix_right: \"R\" }});\n\
             mirror_morph(1, #{{ mode: \"mirror_copy\" }});\n\
             morph_from_pose(#{{ name: \"口\", morphs: #{{ \"あ\": 0.5 }} }});\n\
             group_morph(#{{ name: \"合成\", panel: \"mouth\", morphs: [#{{ morph: \"あ\", ratio: 0.5 }}, #{{ morph: 1 }}] }});\n"
        ))
        .unwrap();
        let expected = by_ops(json!([
            {"op": "split_morph", "morph": "あ", "blend_width": 0.0, "suffix_left": "L", "suffix_right": "R"},
            {"op": "mirror_morph", "morph": 1, "mode": "mirror_copy"},
            {"op": "morph_from_pose", "name": "口", "morphs": {"あ": 0.5}},
            {"op": "group_morph_from_selection", "name": "合成", "panel": "mouth",
             "morphs": [{"morph": "あ", "ratio": 0.5}, {"morph": 1}]}
        ]));
        assert!(scripted == expected, "version {version}");
        assert_eq!(scripted.morphs[1].name_ja.as_str(), "あL");
        assert_eq!(scripted.morphs.len(), sample_model().morphs.len() + 5);
    }
}

#[test]
fn scripts_cannot_read_files_through_the_morph_calls() {
    let error =
        run("const api_version = 2;\nmorph_from_model(#{ model: \"other.pmx\", name: \"x\" });\n")
            .unwrap_err()
            .to_string();
    assert!(
        error.contains("cannot read files") && error.contains(":2:"),
        "{error}"
    );
    let error =
        run("const api_version = 2;\nmorph_from_pose(#{ vpd: \"pose.vpd\", name: \"x\" });\n")
            .unwrap_err()
            .to_string();
    assert!(error.contains("cannot read files"), "{error}");
}

#[test]
fn a_bad_part_fails_at_its_line() {
    let error = run("const api_version = 2;\n\nsplit_morph(0, #{ blend: 1.0 });\n")
        .unwrap_err()
        .to_string();
    assert!(error.contains(":3:") && error.contains("blend"), "{error}");
}
