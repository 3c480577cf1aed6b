//! Helpers shared by the cross-crate tests.

pub mod pmd;

use std::path::PathBuf;

/// The shared corpus folder of real model files (`../shared/corpus/<sub>` beside the repo),
/// or `None` with the reason printed, so tests skip on a machine that does not have it.
#[must_use]
pub fn corpus_dir(sub: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let dir = std::env::var_os("PMX_STUDIO_CORPUS")
        .map_or(root, PathBuf::from)
        .join(sub);
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: corpus folder {} is absent", dir.display());
        None
    }
}

/// Every file in `dir` with `extension`, sorted.
#[must_use]
pub fn files_with_extension(dir: &std::path::Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The first place where two JSON values differ, as a path with both values (for readable
/// assertion messages on large models).
#[must_use]
pub fn first_difference(a: &serde_json::Value, b: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    fn walk(a: &Value, b: &Value, path: &mut String) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for (key, value) in x {
                    let Some(other) = y.get(key) else {
                        return Some(format!("{path}.{key}: only on the left"));
                    };
                    let len = path.len();
                    path.push('.');
                    path.push_str(key);
                    if let Some(found) = walk(value, other, path) {
                        return Some(found);
                    }
                    path.truncate(len);
                }
                y.keys()
                    .find(|key| !x.contains_key(*key))
                    .map(|key| format!("{path}.{key}: only on the right"))
            }
            (Value::Array(x), Value::Array(y)) => {
                for (i, (value, other)) in x.iter().zip(y).enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    if let Some(found) = walk(value, other, path) {
                        return Some(found);
                    }
                    path.truncate(len);
                }
                (x.len() != y.len()).then(|| format!("{path}: {} vs {} elements", x.len(), y.len()))
            }
            _ => (a != b).then(|| format!("{path}: {a} vs {b}")),
        }
    }
    walk(a, b, &mut String::new())
}

/// Asserts two models are equal, naming the first difference instead of printing both.
pub fn assert_same_model(a: &pmx_core::Model, b: &pmx_core::Model, context: &str) {
    if a != b {
        let a = serde_json::to_value(a).unwrap_or_default();
        let b = serde_json::to_value(b).unwrap_or_default();
        panic!(
            "{context}: models differ at {}",
            first_difference(&a, &b).unwrap_or_else(|| "(only in f32 bits)".into())
        );
    }
}

/// A GLB of `json` and `bin` (no BIN chunk when `bin` is empty), each chunk padded to four
/// bytes as the glTF spec requires: the hand-made VRMs of the import tests.
#[must_use]
pub fn glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let mut json_bytes = serde_json::to_vec(json).unwrap_or_default();
    while !json_bytes.len().is_multiple_of(4) {
        json_bytes.push(b' ');
    }
    let mut bin_bytes = bin.to_vec();
    while !bin_bytes.len().is_multiple_of(4) {
        bin_bytes.push(0);
    }
    let bin_chunk = if bin_bytes.is_empty() {
        0
    } else {
        8 + bin_bytes.len()
    };
    let total = 12 + 8 + json_bytes.len() + bin_chunk;
    let length = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&length(total));
    out.extend_from_slice(&length(json_bytes.len()));
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json_bytes);
    if !bin_bytes.is_empty() {
        out.extend_from_slice(&length(bin_bytes.len()));
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin_bytes);
    }
    out
}

/// The validator's errors on `model` (code, path and message), none expected after an import.
#[must_use]
pub fn validation_errors(model: &pmx_core::Model) -> Vec<String> {
    use pmx_core::validate::{self, CheckOptions, Severity};
    validate::check(model, None, &CheckOptions::default())
        .into_iter()
        .filter(|issue| issue.severity == Severity::Error)
        .map(|issue| format!("{} {}: {}", issue.code, issue.path, issue.message_en))
        .collect()
}

/// A corpus model by file name (`pmx/pmxeditor_gene_cc_by.pmx`), or `None` with the reason
/// printed when the corpus is absent.
#[must_use]
pub fn corpus_model(relative: &str) -> Option<pmx_core::Model> {
    let (sub, name) = relative.split_once('/').unwrap_or(("pmx", relative));
    let path = corpus_dir(sub)?.join(name);
    match pmx_core::formats::load_path(&path, &pmx_core::LoadOptions::default()) {
        Ok(loaded) => Some(loaded.model),
        Err(error) => panic!("{}: {error}", path.display()),
    }
}

/// What a built-in tool or script did to a model: the model after its edit, the edit's
/// label and the plugin's notes. Checks on the way that building the edit changed nothing,
/// that the validator finds no error the model did not have before, and that undo gives back
/// the model exactly.
#[derive(Debug)]
pub struct ToolOutcome {
    pub after: pmx_core::Model,
    pub label_en: String,
    pub label_ja: String,
    pub notes: Vec<String>,
}

/// Runs the built-in tool `id` on `model` with `selection` and `options` (JSON) as the editor
/// does, applies its one edit, and checks the invariants every edit keeps (see
/// [`ToolOutcome`]). Panics with the plugin's error when it refuses.
#[must_use]
pub fn run_tool(
    id: &str,
    model: &pmx_core::Model,
    selection: &pmx_plugins::PluginSelection,
    options: &serde_json::Value,
) -> ToolOutcome {
    let plugin = pmx_plugins::Registry::builtin()
        .find(id)
        .unwrap_or_else(|| panic!("no built-in tool {id}"));
    run_plugin_checked(plugin.as_ref(), model, selection, options)
}

/// [`run_tool`] for any plugin (a user script, say): runs `plugin` on `model` as the editor
/// does, applies its one edit and checks the same invariants (see [`ToolOutcome`]). Panics
/// with the plugin's error when it refuses.
#[must_use]
pub fn run_plugin_checked(
    plugin: &dyn pmx_plugins::Plugin,
    model: &pmx_core::Model,
    selection: &pmx_plugins::PluginSelection,
    options: &serde_json::Value,
) -> ToolOutcome {
    use pmx_core::i18n::Language;
    let id = plugin.info().id;
    let options = pmx_plugins::Options::from_json(&plugin.info().options, options)
        .unwrap_or_else(|error| panic!("{id}: {error}"));
    let mut working = model.clone();
    let mut run = pmx_plugins::run_plugin(plugin, &mut working, selection, &options)
        .unwrap_or_else(|error| panic!("{id}: {error}"));
    assert!(
        working == *model,
        "{id}: building the edit changed the model"
    );
    run.edit.apply(&mut working);
    let count_codes = |errors: &[String]| {
        let mut counts = std::collections::BTreeMap::<String, usize>::new();
        for error in errors {
            let code = error.split(' ').next().unwrap_or_default().to_owned();
            *counts.entry(code).or_default() += 1;
        }
        counts
    };
    let before = count_codes(&validation_errors(model));
    let after = count_codes(&validation_errors(&working));
    let new_errors: Vec<String> = after
        .iter()
        .filter(|(code, count)| **count > before.get(*code).copied().unwrap_or(0))
        .map(|(code, count)| format!("{code} ×{count}"))
        .collect();
    assert!(
        new_errors.is_empty(),
        "{id}: new validator errors: {new_errors:?}"
    );
    let after = working.clone();
    run.edit.revert(&mut working);
    assert!(working == *model, "{id}: undo did not give the model back");
    ToolOutcome {
        after,
        label_en: run.edit.label_in(Language::English),
        label_ja: run.edit.label_in(Language::Japanese),
        notes: run.preview(Language::English),
    }
}

/// The sections of a PMX file in file order, as the reader's error locations name them.
pub const PMX_SECTIONS: [&str; 12] = [
    "header",
    "model_info",
    "vertices",
    "faces",
    "textures",
    "materials",
    "bones",
    "morphs",
    "display_frames",
    "rigid_bodies",
    "joints",
    "soft_bodies",
];

/// One random corruption of a file, as the bounded fuzz loops of the tests make them: one to
/// five of a byte set, a bit flipped, a cut, a value of `count_values` written over four bytes
/// (where counts live) and random bytes inserted.
pub fn mutate(rng: &mut pmx_core::generate::Rng, input: &mut Vec<u8>, count_values: &[u32]) {
    for _ in 0..=rng.below(4) {
        match rng.below(5) {
            0 if !input.is_empty() => {
                let at = rng.below(input.len());
                input[at] = rng.next_u64() as u8;
            }
            1 if !input.is_empty() => {
                let at = rng.below(input.len());
                input[at] ^= 1 << rng.below(8);
            }
            2 => {
                let cut = rng.below(input.len() + 1);
                input.truncate(cut);
            }
            3 if input.len() > 4 && !count_values.is_empty() => {
                let at = rng.below(input.len() - 4);
                let value = count_values[rng.below(count_values.len())];
                input[at..at + 4].copy_from_slice(&value.to_le_bytes());
            }
            _ => {
                let at = rng.below(input.len() + 1);
                let extra: Vec<u8> = (0..rng.below(64)).map(|_| rng.next_u64() as u8).collect();
                input.splice(at..at, extra);
            }
        }
    }
}
