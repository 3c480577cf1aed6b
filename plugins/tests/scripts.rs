//! User scripts: loading and describing, the script API, and what a script cannot do (files,
//! programs, running forever, filling the memory).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::Model;
use pmx_core::generate::sample_model;
use pmx_core::i18n::Language;
use pmx_core::model::ElementKind;
use pmx_plugins::{
    API_VERSION, Needs, OptionKind, OptionValue, Options, Plugin, PluginContext, PluginError,
    PluginGroup, PluginOutput, PluginSelection, ScriptLimits, ScriptPlugin, find_scripts,
    run_plugin,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const HEADER: &str = "const api_version = 1;\n";

fn script(name: &str, body: &str) -> ScriptPlugin {
    ScriptPlugin::from_source(name, &format!("{HEADER}{body}"))
        .unwrap_or_else(|error| panic!("{name}: {error}"))
}

fn run_on(
    plugin: &ScriptPlugin,
    model: &Model,
    selection: &PluginSelection,
    limits: &ScriptLimits,
) -> Result<PluginOutput, PluginError> {
    let options = Options::defaults(&plugin.info().options);
    plugin.run_with_limits(&PluginContext::new(model, selection, &options), limits)
}

fn run(plugin: &ScriptPlugin) -> Result<PluginOutput, PluginError> {
    run_on(
        plugin,
        &sample_model(),
        &PluginSelection::new(),
        plugin.limits(),
    )
}

fn notes(output: &PluginOutput) -> Vec<String> {
    output.notes.iter().map(|note| note.en.clone()).collect()
}

/// (line, column, message) of a script error.
fn script_error(error: PluginError) -> (usize, usize, String) {
    match error {
        PluginError::Script {
            line,
            column,
            message,
            ..
        } => (line, column, message),
        other => panic!("expected a script error, got {other:?}"),
    }
}

fn half_second() -> ScriptLimits {
    ScriptLimits {
        time: Duration::from_millis(500),
        ..ScriptLimits::default()
    }
}

#[test]
fn a_script_describes_itself_with_constants() {
    let plugin = ScriptPlugin::from_source(
        "scripts/my_tool.rhai",
        r#"
const api_version = 1;
const name = "ボーン先倍率";
const name_en = "Scale tails";
const description = "説明";
const description_en = "What it does";
const version = "2.1";
const needs = "bone";
const option_specs = [
    #{ key: "scale", kind: "number", initial: 1.5, min: 0.0, max: 10.0, unit: "×", label: "倍率", label_en: "Scale" },
    #{ key: "count", kind: "integer", initial: 3, min: 1, max: 9 },
    #{ key: "axis", kind: "choice", initial: "y", choices: [["x", "X軸", "X axis"], #{ id: "y", label: "Y軸", label_en: "Y axis" }] },
    #{ key: "keep", kind: "bool", initial: true, label: "保持" },
    #{ key: "prefix", kind: "text", initial: "新" },
];
"#,
    )
    .unwrap();
    let info = plugin.info();
    assert_eq!(info.id, "script:my_tool");
    assert_eq!(info.group, PluginGroup::Scripts);
    assert_eq!(info.name(Language::Japanese), "ボーン先倍率");
    assert_eq!(info.name(Language::English), "Scale tails");
    assert_eq!(info.description(Language::Japanese), "説明");
    assert_eq!(info.description(Language::English), "What it does");
    assert_eq!(info.version, "2.1");
    assert_eq!(info.needs, Needs::Selected(ElementKind::Bone));
    let keys: Vec<&str> = info.options.iter().map(|option| option.key).collect();
    assert_eq!(keys, ["scale", "count", "axis", "keep", "prefix"]);
    assert_eq!(
        info.options[0].kind,
        OptionKind::Number {
            min: 0.0,
            max: 10.0,
            unit: "×"
        }
    );
    assert_eq!(info.options[0].default, OptionValue::Number(1.5));
    assert_eq!(info.options[0].label(Language::English), "Scale");
    assert_eq!(info.options[1].kind, OptionKind::Integer { min: 1, max: 9 });
    assert_eq!(info.options[1].label(Language::Japanese), "count");
    assert_eq!(
        info.options[2].kind,
        OptionKind::Choice(vec![("x", "X軸", "X axis"), ("y", "Y軸", "Y axis")])
    );
    assert_eq!(info.options[2].default, OptionValue::Choice("y".into()));
    assert_eq!(info.options[3].default, OptionValue::Bool(true));
    assert_eq!(info.options[3].label(Language::English), "保持");
    assert_eq!(info.options[4].default, OptionValue::Text("新".into()));

    // Without a name the file stem names it; `needs` defaults to nothing.
    let plain = script("dir/plain.rhai", "");
    assert_eq!(plain.info().name_en, "plain");
    assert_eq!(plain.info().needs, Needs::Nothing);
    assert_eq!(
        script("x.rhai", "const needs = \"vertices_or_all\";")
            .info()
            .needs,
        Needs::SelectedOrAll(ElementKind::Vertex)
    );
}

#[test]
fn a_missing_or_too_new_api_version_is_refused_by_name() {
    let error = ScriptPlugin::from_source("old.rhai", "let x = 1;").unwrap_err();
    assert!(
        error
            .to_string()
            .contains("old.rhai: declares no api_version"),
        "{error}"
    );
    let newer = API_VERSION + 1;
    let error = ScriptPlugin::from_source("future.rhai", &format!("const api_version = {newer};"))
        .unwrap_err();
    assert!(matches!(error, PluginError::Refused { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!(
            "future.rhai: the script needs script API version {newer}; this PMX Studio has \
             version {API_VERSION} (a newer PMX Studio may run it)"
        )
    );
    assert!(
        error
            .message(Language::Japanese)
            .contains(&format!("スクリプトAPIバージョン{newer}"))
    );
}

#[test]
fn bad_declarations_are_refused_with_what_is_wrong() {
    let cases = [
        (
            "const needs = \"bonez\";",
            "needs = \"bonez\": expected \"nothing\"",
        ),
        ("const name = 3;", "`name` must be a string, not i64"),
        (
            "const option_specs = [#{ key: \"s\", kind: \"number\", initial: 11.0, max: 10.0 }];",
            "option_specs[0] (\"s\"): the initial value 11 is outside",
        ),
        (
            "const option_specs = [#{ key: \"s\", kind: \"colour\" }];",
            "kind \"colour\" is not one of bool, number, integer, choice, text",
        ),
        (
            "const option_specs = [#{ key: \"a b\", kind: \"bool\" }];",
            "the key \"a b\" must be a name",
        ),
        (
            "const option_specs = [#{ key: \"s\", kind: \"bool\" }, #{ key: \"s\", kind: \"text\" }];",
            "the key \"s\" is declared twice",
        ),
        (
            "const option_specs = [#{ key: \"c\", kind: \"choice\", initial: \"z\", choices: [[\"x\"]] }];",
            "the initial value \"z\" is not one of the choices",
        ),
        (
            "const options = [#{ key: \"s\", kind: \"bool\" }];",
            "declare options as `const option_specs = [...]`",
        ),
    ];
    for (source, expected) in cases {
        let error =
            ScriptPlugin::from_source("bad.rhai", &format!("{HEADER}{source}")).unwrap_err();
        assert!(
            error.to_string().contains(expected),
            "{source}: {error} (expected {expected})"
        );
    }
}

#[test]
fn a_syntax_error_names_its_line_and_column() {
    let error = ScriptPlugin::from_source(
        "scripts/broken.rhai",
        "const api_version = 1;\nlet a = 1;\nlet b = a +;\n",
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "scripts/broken.rhai:3:12: Unexpected ';'"
    );
    let (line, column, _) = script_error(error);
    assert_eq!((line, column), (3, 12));
}

#[test]
fn a_runtime_error_names_its_line_column_and_the_calls_on_the_way() {
    let plugin = script(
        "oops.rhai",
        "fn inner(i) {\n    model.bone(i)\n}\nfn outer() {\n  inner(1000)\n}\nouter();\n",
    );
    let (line, column, message) = script_error(run(&plugin).unwrap_err());
    assert_eq!((line, column), (3, 11));
    assert_eq!(
        message,
        "bone 1000 does not exist (the model has 21 bones) (in inner() called at line 6, in \
         outer() called at line 8)"
    );
}

#[test]
fn the_script_reads_the_model_one_element_at_a_time_in_its_json_form() {
    let model = sample_model();
    let head = model
        .bones
        .iter()
        .position(|bone| bone.name_ja.as_str() == "頭")
        .unwrap();
    let plugin = script(
        "read.rhai",
        r#"
let head = model.find_bone("頭");
print(head);
print(model.find_bone("head"));
print(model.find_bone("無い"));
print(model.bone(head).name_ja);
print(model.bone(head).parent);
print(model.get("bone", head, "position.y"));
print(model.get(`bones[${head}].name_en`));
print(model.count("vertex"));
print(model.count("vertices"));
print(model.vertex(0).position.len());
print(model.header.version);
print(model.info.name_ja);
print(type_of(model.vertex(0).weight));
print(model.face(0));
fn in_a_function() { model.count("bone") }
print(in_a_function());
print(options);
"#,
    );
    let output = run(&plugin).unwrap();
    assert!(output.batch.is_empty());
    let get = |path: &str| {
        pmx_core::edit::get_path(&model, &pmx_core::path::ModelPath::parse(path).unwrap()).unwrap()
    };
    assert_eq!(
        notes(&output),
        [
            head.to_string(),
            head.to_string(),
            "-1".to_owned(),
            "頭".to_owned(),
            get(&format!("bones[{head}].parent")).to_string(),
            f64::from(model.bones[head].position.y).to_string(),
            "head".to_owned(),
            model.vertices.len().to_string(),
            model.vertices.len().to_string(),
            "3".to_owned(),
            get("header.version").as_str().unwrap().to_owned(),
            model.info.name_ja.as_str().into_owned(),
            "map".to_owned(),
            format!(
                "[{}, {}, {}]",
                model.faces[0][0].get(),
                model.faces[0][1].get(),
                model.faces[0][2].get()
            ),
            model.bones.len().to_string(),
            "#{}".to_owned(),
        ]
    );
}

#[test]
fn the_selection_and_the_options_reach_the_script() {
    let plugin = ScriptPlugin::from_source(
        "sel.rhai",
        r#"
const api_version = 1;
const option_specs = [#{ key: "scale", kind: "number", initial: 1.0 }, #{ key: "mode", kind: "choice", choices: [["a"], ["b"]] }];
print(selected("bone"));
print(selected("vertex").len());
print(is_selected("bone", 2));
print(is_selected("bone", 3));
print(selected_or_all("material").len());
print(options.scale * 2);
print(options.mode);
"#,
    )
    .unwrap();
    let model = sample_model();
    let selection = PluginSelection::new().with(ElementKind::Bone, vec![4, 2]);
    let options = Options::from_json(
        &plugin.info().options,
        &serde_json::json!({"scale": 2.5, "mode": "b"}),
    )
    .unwrap();
    let output = plugin
        .run(&PluginContext::new(&model, &selection, &options))
        .unwrap();
    assert_eq!(
        notes(&output),
        [
            "[2, 4]",
            "0",
            "true",
            "false",
            &model.materials.len().to_string(),
            "5.0",
            "b"
        ]
    );
}

#[test]
fn select_answers_the_selection_grammar_in_both_versions() {
    let model = sample_model();
    let head = model
        .bones
        .iter()
        .position(|bone| bone.name_ja.as_str() == "頭")
        .unwrap();
    for version in [1, 2] {
        let plugin = ScriptPlugin::from_source(
            "select.rhai",
            &format!(
                "const api_version = {version};\nprint(select(\"vertices:linked:0\").len());\n\
                 print(select(\"bones:children:頭\"));\nprint(select(\"bones:0-1\"));"
            ),
        )
        .unwrap();
        let selection = PluginSelection::new();
        let options = Options::from_json(&plugin.info().options, &serde_json::json!({})).unwrap();
        let output = plugin
            .run(&PluginContext::new(&model, &selection, &options))
            .unwrap();
        let children = pmx_core::select::bone_children(&model, &[head]);
        let children: Vec<String> = children.iter().map(ToString::to_string).collect();
        assert_eq!(
            notes(&output),
            [
                pmx_core::select::linked_vertices(&model, &[0])
                    .len()
                    .to_string(),
                format!("[{}]", children.join(", ")),
                "[0, 1]".to_owned(),
            ],
            "version {version}"
        );
        // A query naming nothing stops the script with the part named.
        let failing = ScriptPlugin::from_source(
            "bad.rhai",
            &format!("const api_version = {version};\nselect(\"vertices:material:999\");"),
        )
        .unwrap();
        let error = failing
            .run(&PluginContext::new(&model, &selection, &options))
            .unwrap_err()
            .to_string();
        assert!(error.contains("vertices:material:999"), "{error}");
    }
}

#[test]
fn edits_go_into_one_undo_step_named_after_the_script() {
    let plugin = ScriptPlugin::from_source(
        "edits.rhai",
        r#"
const api_version = 1;
const name = "編集テスト";
const name_en = "Edit test";
set("bone", 0, "name_en", "root");
set("bone", [1, 2], "position.y", 5);
set_each("bone", [3, 4], "name_en", ["three", "four"]);
set("info", "name_en", "Renamed");
let new_bone = insert("bone", #{ name_ja: "新ボーン", position: [1.0, 2.0, 3.0], parent: 0 });
set("bone", new_bone, "name_en", "new");
let at = insert_at("morph", 0, #{ name_ja: "先頭", kind: "vertex", offsets: [] });
delete("rigid_body", [0]);
note("done", "完了");
"#,
    )
    .unwrap();
    let model = sample_model();
    let mut working = model.clone();
    let mut run = run_plugin(
        &plugin,
        &mut working,
        &PluginSelection::new(),
        &Options::defaults(&plugin.info().options),
    )
    .unwrap();
    assert_eq!(run.edit.label_in(Language::English), "Edit test");
    assert_eq!(run.edit.label_in(Language::Japanese), "編集テスト");
    assert_eq!(run.notes[0].en, "done");
    assert_eq!(run.notes[0].ja, "完了");
    assert_eq!(run.steps[0].en, "set name_en of 1 bone (edits.rhai:5:1)");
    assert_eq!(
        run.steps[1].en,
        "set position.y of 2 bones (edits.rhai:6:1)"
    );
    run.edit.apply(&mut working);
    assert_eq!(working.bones[0].name_en.as_str(), "root");
    assert_eq!(working.bones[1].position.y, 5.0);
    assert_eq!(working.bones[2].position.y, 5.0);
    assert_eq!(working.bones[1].position.x, model.bones[1].position.x);
    assert_eq!(working.bones[3].name_en.as_str(), "three");
    assert_eq!(working.bones[4].name_en.as_str(), "four");
    assert_eq!(working.info.name_en.as_str(), "Renamed");
    let new_bone = working.bones.last().unwrap();
    assert_eq!(working.bones.len(), model.bones.len() + 1);
    assert_eq!(new_bone.name_ja.as_str(), "新ボーン");
    assert_eq!(new_bone.name_en.as_str(), "new");
    assert_eq!(new_bone.parent.map(|parent| parent.get()), Some(0));
    assert_eq!(new_bone.position, pmx_core::model::Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(new_bone.flags, pmx_core::model::Bone::default().flags);
    assert_eq!(working.morphs[0].name_ja.as_str(), "先頭");
    assert_eq!(working.morphs.len(), model.morphs.len() + 1);
    assert_eq!(working.rigid_bodies.len(), model.rigid_bodies.len() - 1);
    run.edit.revert(&mut working);
    assert!(working == model, "undo gives the model back");
}

#[test]
fn a_wrong_field_or_value_fails_where_the_script_sets_it() {
    let cases = [
        ("set(\"bone\", 0, \"nmae\", 1);", 2, "bone"),
        ("set(\"bone\", 0, \"position\", \"up\");", 2, "position"),
        (
            "set(\"bone\", 99, \"name_en\", \"x\");",
            2,
            "bone 99 does not exist (the model has 21 bones)",
        ),
        ("delete(\"bone\", -1);", 2, "index -1 is negative"),
        ("insert(\"bone\", #{ name_ja: 3 });", 2, "not a bone"),
        (
            "set(\"bones\", \"name_en\", \"x\");",
            2,
            "needs the indices",
        ),
        (
            "set_each(\"bone\", [0, 1], \"name_en\", [\"x\"]);",
            2,
            "2 indices but 1 values",
        ),
        (
            "set(\"bone\", 0, \"name_en\", model);",
            2,
            "a value of type Model cannot be written",
        ),
        (
            "set(\"bone\", 0, \"name_en\", || 1);",
            2,
            "cannot be written",
        ),
    ];
    for (body, line, expected) in cases {
        let error = run(&script("wrong.rhai", body)).unwrap_err();
        let text = error.to_string();
        let (got_line, _, message) = script_error(error);
        assert_eq!(got_line, line, "{body}: {text}");
        assert!(message.contains(expected), "{body}: {text}");
    }
}

#[test]
fn a_script_without_edits_makes_no_change() {
    let plugin = script("nothing.rhai", "let x = 1;");
    let mut model = sample_model();
    let error = run_plugin(
        &plugin,
        &mut model,
        &PluginSelection::new(),
        &Options::default(),
    )
    .unwrap_err();
    assert!(matches!(error, PluginError::NoChange));
}

#[test]
fn exit_ends_the_script_and_keeps_what_it_queued() {
    let plugin = script(
        "early.rhai",
        "set(\"bone\", 0, \"name_en\", \"a\");\nexit();\nset(\"bone\", 1, \"name_en\", \"b\");",
    );
    assert_eq!(run(&plugin).unwrap().batch.len(), 1);
}

// Safety: no files, no programs, no eval.

#[test]
fn import_eval_and_file_access_are_refused() {
    let cases = [
        (
            "import \"x\" as x;",
            "import is not allowed: scripts cannot load files",
        ),
        ("eval(\"1 + 1\");", "eval is not allowed in scripts"),
        ("let f = Fn(\"eval\"); f.call(\"1\");", "eval"),
        (
            "open_file(\"/etc/passwd\");",
            "Function not found: open_file",
        ),
        (
            "read_file(\"/etc/passwd\");",
            "Function not found: read_file",
        ),
        ("let f = File(\"/etc/passwd\");", "Function not found: File"),
        ("system(\"ls\");", "Function not found: system"),
        ("sleep(100);", "sleep is not available in scripts"),
        ("sleep(1.5);", "sleep is not available in scripts"),
    ];
    for (body, expected) in cases {
        let error = ScriptPlugin::from_source("escape.rhai", &format!("{HEADER}{body}"))
            .and_then(|plugin| run(&plugin).map(|_| ()))
            .unwrap_err();
        assert!(
            error.to_string().contains(expected),
            "{body}: {error} (expected {expected})"
        );
        assert!(
            matches!(error, PluginError::Script { .. }),
            "{body}: {error:?}"
        );
    }
}

// Limits: time, Stop, recursion, sizes, edits.

/// Runs `body` with a 0.5 s limit: it must stop with the time-limit error, at a place in
/// `lines` (where the check found it, which depends on timing), between 0.5 and 1.5 s.
fn assert_stops_in_time(body: &str, lines: std::ops::RangeInclusive<usize>) {
    let plugin = script("forever.rhai", body);
    let started = Instant::now();
    let error = run_on(
        &plugin,
        &sample_model(),
        &PluginSelection::new(),
        &half_second(),
    )
    .unwrap_err();
    let elapsed = started.elapsed();
    let text = error.to_string();
    let (got_line, _, message) = script_error(error);
    assert_eq!(
        message, "stopped: the script ran longer than 0.5 s",
        "{body}"
    );
    assert!(lines.contains(&got_line), "{text}");
    assert!(
        elapsed >= Duration::from_millis(500) && elapsed < Duration::from_millis(1500),
        "{body}: stopped after {elapsed:?}"
    );
}

#[test]
fn a_loop_without_end_stops_at_the_time_limit() {
    assert_stops_in_time("let i = 0;\nloop {\n    i += 1;\n}", 3..=5);
    assert_stops_in_time("while true {\n}", 2..=3);
    // Model reads in the loop: the check is between operations, not only in plain maths.
    assert_stops_in_time(
        "let n = 0;\nwhile true { n += model.count(\"bone\"); }",
        3..=3,
    );
    // Branching recursion (depth stays small, the work explodes).
    assert_stops_in_time(
        "fn f(n) { if n <= 1 { n } else { f(n - 1) + f(n - 2) } }\nf(60);",
        3..=3,
    );
}

#[test]
fn the_default_limit_is_ten_seconds() {
    assert_eq!(ScriptLimits::default().time, Duration::from_secs(10));
    assert!(ScriptLimits::default().cancel.is_none());
}

#[test]
fn stop_from_another_thread_stops_the_script_within_a_second() {
    let plugin = script("forever.rhai", "loop { }");
    let cancel = Arc::new(AtomicBool::new(false));
    let limits = ScriptLimits::new(Duration::from_secs(60), Arc::clone(&cancel));
    let plugin = plugin.with_limits(limits);
    let presser = {
        let cancel = Arc::clone(&cancel);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            cancel.store(true, Ordering::Relaxed);
            Instant::now()
        })
    };
    let error = plugin
        .run(&PluginContext::new(
            &sample_model(),
            &PluginSelection::new(),
            &Options::default(),
        ))
        .unwrap_err();
    let stopped = Instant::now();
    let pressed = presser.join().unwrap();
    assert!(
        stopped.duration_since(pressed) < Duration::from_secs(1),
        "stopped {:?} after Stop",
        stopped.duration_since(pressed)
    );
    let (line, _, message) = script_error(error);
    assert_eq!(message, "stopped by the user");
    assert_eq!(line, 2);
}

#[test]
fn a_recursion_without_end_stops_with_a_clear_error() {
    let started = Instant::now();
    let plugin = script("deep.rhai", "fn down(n) { down(n + 1) }\ndown(0);");
    let (line, _, message) = script_error(run(&plugin).unwrap_err());
    // Rhai gives the place of the outermost call.
    assert_eq!(line, 3);
    assert!(
        message.starts_with(
            "stopped: functions called each other more than 64 levels deep (a recursion \
             without an end?)"
        ),
        "{message}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    // Deeply nested expressions are refused when the script is compiled.
    let nested = format!("{HEADER}let x = {}1{};", "(".repeat(200), ")".repeat(200));
    let error = ScriptPlugin::from_source("nested.rhai", &nested).unwrap_err();
    assert_eq!(
        error.to_string(),
        "nested.rhai:2:40: expressions are nested too deeply (at most 64 levels, 32 inside \
         functions)"
    );
}

#[test]
fn huge_strings_arrays_and_maps_hit_the_limits() {
    let cases = [
        (
            "let s = \"x\";\nloop { s += s; }",
            "a string grew past the limit of 1,048,576 bytes",
        ),
        (
            "let a = [1];\nloop { a += a; }",
            "an array grew past the limit of 10,000,000 items",
        ),
        (
            // Rhai counts a map whenever a function takes it (here len()); `m[key] = value`
            // alone is not checked (see docs/scripting.md).
            "let m = #{};\nfor i in 0..100001 { m[`k${i}`] = i; }\nm.len();",
            "a map grew past the limit of 100,000 entries",
        ),
        (
            "let s = \"\";\ns.pad(2000000, \"y\");",
            "a string grew past the limit of 1,048,576 bytes",
        ),
    ];
    for (body, expected) in cases {
        let started = Instant::now();
        let result = run(&script("big.rhai", body));
        let (_, _, message) = script_error(result.expect_err(body));
        assert_eq!(message, expected, "{body}");
        assert!(started.elapsed() < Duration::from_secs(5), "{body}");
    }
}

#[test]
fn too_many_edits_or_too_much_queued_data_stops_the_script() {
    let limits = ScriptLimits {
        max_edits: 1_000,
        ..ScriptLimits::default()
    };
    let plugin = script(
        "many.rhai",
        "for i in 0..100000 {\n    set(\"bone\", 0, \"name_en\", `n${i}`);\n}",
    );
    let (line, _, message) = script_error(
        run_on(&plugin, &sample_model(), &PluginSelection::new(), &limits).unwrap_err(),
    );
    assert_eq!(line, 3);
    assert_eq!(
        message,
        "too many edits: a script may queue at most 1,000 (set_each sets many elements in one edit)"
    );
    let limits = ScriptLimits {
        max_queued_bytes: 1 << 20,
        ..ScriptLimits::default()
    };
    let plugin = script(
        "heavy.rhai",
        "let text = \"x\";\ntext.pad(500000, \"y\");\nfor i in 0..10 {\n    set(\"bone\", 0, \"name_en\", text);\n}",
    );
    let (_, _, message) = script_error(
        run_on(&plugin, &sample_model(), &PluginSelection::new(), &limits).unwrap_err(),
    );
    assert_eq!(
        message,
        "too much data: the queued edits would hold more than 1 MB"
    );
    let limits = ScriptLimits {
        max_notes: 5,
        ..ScriptLimits::default()
    };
    let plugin = script("chatty.rhai", "for i in 0..10 { note(`${i}`); }");
    let (_, _, message) = script_error(
        run_on(&plugin, &sample_model(), &PluginSelection::new(), &limits).unwrap_err(),
    );
    assert_eq!(message, "too many notes: a script may write at most 5");
}

#[test]
fn the_operation_limit_is_a_backstop() {
    let limits = ScriptLimits {
        max_operations: 10_000,
        ..ScriptLimits::default()
    };
    let plugin = script("busy.rhai", "let n = 0;\nfor i in 0..1000000 { n += i; }");
    let (_, _, message) = script_error(
        run_on(&plugin, &sample_model(), &PluginSelection::new(), &limits).unwrap_err(),
    );
    assert_eq!(
        message,
        "stopped: the script ran more than 10,000 operations"
    );
}

// Files.

#[test]
fn scripts_load_from_files_and_folders_in_order() {
    let dir = std::env::temp_dir().join(format!("pmx-scripts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(
        dir.join("b.rhai"),
        "const api_version = 1;\nconst name = \"B\";",
    )
    .unwrap();
    std::fs::write(dir.join("a.RHAI"), "\u{feff}const api_version = 1;").unwrap();
    std::fs::write(dir.join("c.rhai"), "const api_version = 1;\nlet = ;").unwrap();
    std::fs::write(dir.join("notes.txt"), "not a script").unwrap();
    std::fs::write(dir.join("sub/d.rhai"), "const api_version = 1;").unwrap();
    std::fs::write(dir.join("e.rhai"), [0xff_u8, 0xfe, 0x00]).unwrap();
    let mut big = String::from("const api_version = 1;\n");
    big.push_str(&"// padding\n".repeat(100_000));
    std::fs::write(dir.join("f.rhai"), big).unwrap();

    let found = find_scripts(&dir);
    let summary: Vec<String> = found
        .iter()
        .map(|entry| match entry {
            Ok(plugin) => format!("ok {}", plugin.info().id),
            Err((path, error)) => format!(
                "{}: {}",
                path.file_name().unwrap().to_string_lossy(),
                error.to_string().replace(&dir.display().to_string(), "DIR")
            ),
        })
        .collect();
    assert_eq!(
        summary,
        [
            "ok script:a",
            "ok script:b",
            "c.rhai: DIR/c.rhai:2:5: Expecting name of a variable",
            "e.rhai: DIR/e.rhai: the script is not UTF-8 text (byte 0)",
            "f.rhai: DIR/f.rhai: the script is larger than 1 MB",
        ]
    );
    let loaded = ScriptPlugin::load(dir.join("b.rhai")).unwrap();
    assert_eq!(loaded.info().name_ja, "B");
    assert_eq!(loaded.path(), dir.join("b.rhai"));
    assert!(find_scripts(&dir.join("missing")).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_examples_in_the_documentation_compile_and_the_first_runs() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/scripting.md"))
        .unwrap();
    let blocks: Vec<&str> = doc
        .split("```rhai\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap())
        .collect();
    assert!(blocks.len() >= 5, "{} blocks", blocks.len());
    for block in &blocks {
        let source = if block.contains("api_version") {
            (*block).to_owned()
        } else {
            format!("{HEADER}{block}")
        };
        ScriptPlugin::from_source("doc.rhai", &source)
            .unwrap_or_else(|error| panic!("{error}\n{block}"));
    }
    let first = ScriptPlugin::from_source("doc.rhai", blocks[0]).unwrap();
    let model = sample_model();
    let mut working = model.clone();
    let mut run = run_plugin(
        &first,
        &mut working,
        &PluginSelection::new(),
        &Options::default(),
    )
    .unwrap();
    run.edit.apply(&mut working);
    let hidden: Vec<String> = working
        .bones
        .iter()
        .zip(&model.bones)
        .filter(|(now, before)| now.flags != before.flags)
        .map(|(now, _)| now.name_ja.as_str().into_owned())
        .collect();
    assert_eq!(hidden, ["左足ＩＫ", "右足ＩＫ"]);
}

#[test]
fn transform_turns_vertices_with_their_normals_as_the_view_does() {
    let plugin = script(
        "turn.rhai",
        "transform(\"vertex\", [0, 1, 2], #{ rotate: [0.0, 0.0, 90.0], pivot: [0.0, 0.0, 0.0] });",
    );
    let model = sample_model();
    let mut working = model.clone();
    let mut turned = run_plugin(
        &plugin,
        &mut working,
        &PluginSelection::new(),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(turned.steps[0].en, "transform 3 vertices (turn.rhai:2:1)");
    turned.edit.apply(&mut working);
    for v in 0..3 {
        let (before, after) = (&model.vertices[v], &working.vertices[v]);
        assert!((after.position.x + before.position.y).abs() < 1e-5);
        assert!((after.position.y - before.position.x).abs() < 1e-5);
        assert!((after.normal.x + before.normal.y).abs() < 1e-5);
        assert!((after.normal.y - before.normal.x).abs() < 1e-5);
    }
    assert_eq!(working.vertices[3], model.vertices[3]);
    turned.edit.revert(&mut working);
    assert!(working == model, "undo is exact");
    // A part that is not a part, or a kind that does not move, fails at the script's line.
    let wrong = script(
        "wrong.rhai",
        "transform(\"vertex\", 0, #{ turn: [0.0, 0.0, 1.0] });",
    );
    let (line, _, message) = script_error(run(&wrong).unwrap_err());
    assert_eq!(line, 2);
    assert!(message.contains("no part \"turn\""), "{message}");
}
