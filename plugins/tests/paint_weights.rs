//! The `paint_weights` call of user scripts (API versions 1 and 2): a stroke queued by a script
//! is the same edit as the `paint_weights` op, and a bad stroke fails at its line.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::edit::{BoneRef, Edit, PaintMode, PaintWeights};
use pmx_core::generate::sample_model;
use pmx_core::model::Weight;
use pmx_plugins::{Options, Plugin, PluginError, PluginSelection, ScriptPlugin, run_plugin};

fn left_arm_weight(weight: &Weight, bone: usize) -> f32 {
    weight
        .bone_weights()
        .iter()
        .filter(|(b, _)| b.map(|b| b.get()) == Some(bone))
        .map(|(_, w)| w)
        .sum()
}

fn run(source: &str) -> Result<pmx_plugins::PluginRun, PluginError> {
    let plugin = ScriptPlugin::from_source("paint.rhai", source).unwrap();
    let mut model = sample_model();
    run_plugin(
        &plugin,
        &mut model,
        &PluginSelection::new(),
        &Options::defaults(&plugin.info().options),
    )
}

#[test]
fn a_script_paints_weights_as_the_op_does() {
    let model = sample_model();
    let arm = model
        .bones
        .iter()
        .position(|b| b.name_ja.as_str() == "左腕")
        .expect("the sample has 左腕");
    let vertices: Vec<usize> = (0..model.vertices.len()).step_by(5).collect();
    let list = |items: Vec<String>| items.join(", ");
    for version in [1, 2] {
        let source = format!(
            "const api_version = {version};\n\
             paint_weights(#{{ bone: \"左腕\", mode: \"add\", vertices: [{}], amounts: [{}], \
             mirror: true, max_bones: 2, locked: [] }});\n",
            list(vertices.iter().map(usize::to_string).collect()),
            list(vertices.iter().map(|_| "0.5".to_owned()).collect()),
        );
        let mut outcome = run(&source).unwrap();
        assert!(
            outcome.steps[0].en.starts_with("paint the weights of"),
            "{}",
            outcome.steps[0].en
        );
        let mut scripted = model.clone();
        outcome.edit.apply(&mut scripted);
        let mut expected = model.clone();
        Edit::paint_weights(
            &model,
            &PaintWeights {
                bone: BoneRef::Name("左腕".into()),
                mode: PaintMode::Add,
                vertices: vertices.clone(),
                amounts: vec![0.5; vertices.len()],
                mirror: true,
                max_bones: 2,
                locked: Vec::new(),
            },
        )
        .unwrap()
        .apply(&mut expected);
        assert!(
            scripted == expected,
            "API {version}: the script's stroke is the op's"
        );
        assert!(
            vertices
                .iter()
                .any(|&v| left_arm_weight(&scripted.vertices[v].weight, arm) >= 0.5),
            "API {version}: 左腕 was painted"
        );
        outcome.edit.revert(&mut scripted);
        assert!(scripted == model, "API {version}: undo is exact");
    }
}

#[test]
fn a_bad_stroke_fails_at_its_line() {
    for (stroke, says) in [
        (
            r#"#{ bone: "左腕", mode: "blur", vertices: [0], amounts: [1.0] }"#,
            "paint_weights",
        ),
        (
            r#"#{ bone: "左腕", mode: "add", vertices: [100000], amounts: [1.0] }"#,
            "vertex 100000 does not exist",
        ),
        (
            r#"#{ bone: "左腕", mode: "add", vertices: [0], amounts: [1.0], size: 3 }"#,
            "size",
        ),
    ] {
        let source = format!("const api_version = 1;\n\npaint_weights({stroke});\n");
        match run(&source) {
            Err(PluginError::Script { line, message, .. }) => {
                assert_eq!(line, 3, "{message}");
                assert!(message.contains(says), "{message}");
            }
            other => panic!("{stroke}: {other:?}"),
        }
    }
    // A bone the model lacks fails when the edit is built, naming the step.
    let source = "const api_version = 1;\npaint_weights(#{ bone: \"尻尾\", mode: \"add\", \
                  vertices: [0], amounts: [1.0] });\n";
    let error = run(source).unwrap_err().to_string();
    assert!(error.contains("尻尾"), "{error}");
}
