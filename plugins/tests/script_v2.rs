//! Script API version 2: elements as objects with fields, assignments queued as edits.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::Model;
use pmx_core::generate::sample_model;
use pmx_plugins::{
    Options, Plugin, PluginContext, PluginError, PluginOutput, PluginSelection, ScriptPlugin,
    run_plugin,
};

const ISSUE_SCRIPT: &str = r#"const api_version = 2;
for bone in model.bones {
    if bone.flags.ik && bone.flags.visible { bone.flags.visible = false; }
}
let v = model.vertices[0];
v.position.y += 0.5;
note(`${model.bones.len()} bones, first ${model.bones[0].name}`);
"#;

fn script(name: &str, source: &str) -> ScriptPlugin {
    ScriptPlugin::from_source(name, source).unwrap_or_else(|error| panic!("{name}: {error}"))
}

fn run_on(plugin: &ScriptPlugin, model: &Model) -> Result<PluginOutput, PluginError> {
    let options = Options::defaults(&plugin.info().options);
    plugin.run(&PluginContext {
        model,
        selection: &PluginSelection::new(),
        options: &options,
    })
}

#[test]
fn the_script_of_the_issue_runs_as_written() {
    let model = sample_model();
    let plugin = script("issue.rhai", ISSUE_SCRIPT);
    let output = run_on(&plugin, &model).unwrap();
    let notes: Vec<&str> = output.notes.iter().map(|n| n.en.as_str()).collect();
    println!("{notes:?}");
    let mut working = model.clone();
    let run = run_plugin(
        &plugin,
        &mut working,
        &PluginSelection::new(),
        &Options::default(),
    )
    .unwrap();
    println!("{:?}", run.steps);
}
