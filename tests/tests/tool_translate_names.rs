//! 名称の日英変換 on Gene: empty English names of standard bones, morphs, materials and frames
//! get MMD's standard names, existing ones stay unless asked, and the user's CSV wins.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::Model;
use pmx_plugins::{Options, PluginSelection, Registry, run_plugin};
use pmx_tests::{corpus_model, run_tool};
use serde_json::json;

fn bone_en(model: &Model, name: &str) -> String {
    model
        .bones
        .iter()
        .find(|bone| bone.name_ja.as_str() == name)
        .unwrap_or_else(|| panic!("no bone {name}"))
        .name_en
        .as_str()
        .into_owned()
}

fn morph_en(model: &Model, name: &str) -> String {
    model
        .morphs
        .iter()
        .find(|morph| morph.name_ja.as_str() == name)
        .unwrap_or_else(|| panic!("no morph {name}"))
        .name_en
        .as_str()
        .into_owned()
}

fn translate(model: &Model, options: serde_json::Value) -> pmx_tests::ToolOutcome {
    run_tool("translate_names", model, &PluginSelection::new(), &options)
}

#[test]
fn empty_english_names_get_the_standard_ones_and_existing_ones_stay() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    // Gene leaves these English names empty.
    assert_eq!(bone_en(&model, "全ての親"), "");
    assert_eq!(bone_en(&model, "両目"), "");
    let outcome = translate(&model, json!({}));
    assert_eq!(outcome.label_en, "Translate names");
    let after = &outcome.after;
    assert_eq!(bone_en(after, "全ての親"), "master");
    assert_eq!(bone_en(after, "両目"), "eyes");
    assert_eq!(bone_en(after, "両目先"), "eyes end");
    // Already named: kept.
    assert_eq!(bone_en(after, "上半身2"), "Chest");
    assert_eq!(bone_en(after, "左足ＩＫ"), "ankle_L");
    assert_eq!(bone_en(after, "センター"), "center");
    // Morphs.
    assert_eq!(morph_en(after, "まばたき"), "blink");
    assert_eq!(morph_en(after, "笑い"), "smile");
    assert_eq!(morph_en(after, "ウィンク"), "wink");
    assert_eq!(morph_en(after, "ウィンク右"), "wink_R");
    assert_eq!(morph_en(after, "ｳｨﾝｸ２右"), "wink2_R");
    assert_eq!(morph_en(after, "あ"), "a");
    assert_eq!(morph_en(after, "お"), "o");
    assert_eq!(morph_en(after, "真面目"), "serious");
    // Materials, by table and by parts.
    assert_eq!(after.materials[0].name_en.as_str(), "hair");
    assert_eq!(after.materials[1].name_en.as_str(), "hand skin");
    assert_eq!(after.materials[3].name_en.as_str(), "face");
    assert_eq!(after.materials[4].name_en.as_str(), "eye");
    // Display frames.
    let frame = |name: &str| {
        after
            .display_frames
            .iter()
            .find(|f| f.name_ja.as_str() == name)
            .unwrap()
            .name_en
            .as_str()
            .into_owned()
    };
    assert_eq!(frame("センター"), "Center");
    assert_eq!(frame("ＩＫ"), "IK");
    assert_eq!(frame("体(上)"), "Body[u]");
    assert_eq!(frame("体(下)"), "Body[l]");
    assert_eq!(frame("表情"), "Exp");
    // Nothing but English names changed.
    for (before, now) in model.bones.iter().zip(&after.bones) {
        assert_eq!(before.name_ja, now.name_ja);
        if !before.name_en.is_empty() {
            assert_eq!(before.name_en, now.name_en);
        }
    }
    assert!(
        outcome.notes.iter().any(|note| note.contains("were kept")),
        "{:?}",
        outcome.notes
    );
    assert!(
        outcome
            .notes
            .iter()
            .any(|note| note.contains("are not in the dictionary")),
        "{:?}",
        outcome.notes
    );
}

#[test]
fn overwrite_replaces_existing_english_names() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let after = translate(
        &model,
        json!({"overwrite": true, "morphs": false, "materials": false, "frames": false}),
    )
    .after;
    assert_eq!(bone_en(&after, "上半身2"), "upper body2");
    assert_eq!(bone_en(&after, "左足ＩＫ"), "leg IK_L");
    assert_eq!(bone_en(&after, "右つま先ＩＫ"), "toe IK_R");
    assert_eq!(bone_en(&after, "左腕捩"), "arm twist_L");
    assert_eq!(bone_en(&after, "右手捩"), "wrist twist_R");
    assert_eq!(bone_en(&after, "左親指０"), "thumb0_L");
    assert_eq!(bone_en(&after, "左足首"), "ankle_L");
    // By parts: 右 + 腕 + xca, the side last as MMD writes it.
    assert_eq!(bone_en(&after, "右腕xca"), "arm xca_R");
    assert_eq!(bone_en(&after, "後髪A1_1"), "back hair A1_1");
    assert_eq!(after.morphs, model.morphs);
    assert_eq!(after.materials, model.materials);
}

#[test]
fn a_user_dictionary_wins_and_bad_lines_are_named() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("names.csv");
    std::fs::write(
        &path,
        "\u{FEFF}japanese,english\n# Gene's own words\n全ての親,root\n星目,star eyes\n",
    )
    .unwrap();
    let after = translate(&model, json!({"dictionary": path.to_str().unwrap()})).after;
    assert_eq!(bone_en(&after, "全ての親"), "root");
    assert_eq!(after.materials[5].name_ja.as_str(), "星目");
    assert_eq!(after.materials[5].name_en.as_str(), "star eyes");
    assert_eq!(bone_en(&after, "両目"), "eyes");

    // Shift_JIS works too.
    let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode("全ての親,root of all\n");
    std::fs::write(&path, &bytes).unwrap();
    let after = translate(&model, json!({"dictionary": path.to_str().unwrap()})).after;
    assert_eq!(bone_en(&after, "全ての親"), "root of all");

    // A broken line is refused with its number.
    std::fs::write(&path, "全ての親,master\nonly one column\n").unwrap();
    let registry = Registry::builtin();
    let plugin = registry.find("translate_names").unwrap();
    let options = Options::from_json(
        &plugin.info().options,
        &json!({"dictionary": path.to_str().unwrap()}),
    )
    .unwrap();
    let mut working = model.clone();
    let error = run_plugin(
        plugin.as_ref(),
        &mut working,
        &PluginSelection::new(),
        &options,
    )
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(
        error.ends_with("names.csv:2: expected two columns (japanese,english), found 1"),
        "{error}"
    );
}

#[test]
fn english_to_japanese_fills_empty_japanese_names_from_the_tables() {
    let mut model = pmx_core::generate::sample_model();
    model.bones[0].name_ja = "".into();
    model.bones[0].name_en = "arm_L".into();
    model.bones[1].name_ja = "".into();
    model.bones[1].name_en = "leg IK_R".into();
    let after = translate(&model, json!({"direction": "en_to_ja"})).after;
    assert_eq!(after.bones[0].name_ja.as_str(), "左腕");
    assert_eq!(after.bones[1].name_ja.as_str(), "右足ＩＫ");
}
