//! The VRM reader on damaged JSON: every number, string, array and object in small corpus
//! VRMs (and in a VRM exported from the shipped sample model, with its spring bones, colliders,
//! limits and expressions) is replaced, one at a time, by values a
//! broken exporter writes (a huge or negative index, a fraction, NaN-like text, the wrong
//! type, an empty container). Each damaged file must read (strict and recovering) to an
//! error or to a model the validator can check: never a panic, and quickly. A deterministic
//! stand-in for the `vrm` fuzz target that runs in the ordinary test suite.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::vrm::{VrmExportOptions, read_vrm, split_glb, write_vrm};
use pmx_core::validate::{self, CheckOptions};
use pmx_tests::corpus_dir;
use serde_json::Value;
use std::time::{Duration, Instant};

/// Paths (as JSON pointers) to every value in `value`.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                pointers(item, format!("{at}/{escaped}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

fn damaged_values() -> Vec<Value> {
    vec![
        Value::from(4_000_000_000u64),
        Value::from(-1),
        Value::from(0.5),
        Value::from(1e300),
        Value::from("NaN"),
        Value::Null,
        Value::Array(Vec::new()),
        Value::Object(serde_json::Map::new()),
    ]
}

fn sources() -> Vec<(String, Vec<u8>)> {
    let exported = write_vrm(
        &pmx_core::generate::sample_model(),
        &VrmExportOptions::default(),
    )
    .expect("the sample model exports")
    .vrm;
    let mut sources = vec![("sample model export".to_owned(), exported)];
    if let Some(dir) = corpus_dir("vrm") {
        for name in [
            "s06_minimal_vrm0.vrm",
            "s06_mtoon1_vrm1.vrm",
            "vrmspec_expressions_isbinary_overrides_vrm1.vrm",
            "metalkit_NONCONFORMING_anglelimit_in_extcollider_vrm1.vrm",
        ] {
            if let Ok(bytes) = std::fs::read(dir.join(name)) {
                sources.push((name.to_owned(), bytes));
            }
        }
    }
    sources
}

#[test]
fn every_damaged_value_gives_an_error_or_a_checkable_model() {
    let recovering = LoadOptions {
        recover: true,
        ..LoadOptions::default()
    };
    let started = Instant::now();
    let mut files = 0usize;
    for (name, bytes) in sources() {
        let (json, bin) = split_glb(&bytes).expect("a GLB");
        let mut all = Vec::new();
        pointers(&json, String::new(), &mut all);
        // Spread over the whole document, at most ~150 places a file.
        let step = (all.len() / 150).max(1);
        for pointer in all.iter().step_by(step) {
            if pointer.is_empty() {
                continue;
            }
            for bad in damaged_values() {
                let mut damaged = json.clone();
                *damaged.pointer_mut(pointer).unwrap() = bad.clone();
                let file = glb(&damaged, bin);
                let one = Instant::now();
                for options in [&LoadOptions::default(), &recovering] {
                    if let Ok(imported) = read_vrm(&file, options) {
                        let _issues = validate::check(
                            &imported.model,
                            Some(&imported.report),
                            &CheckOptions::default(),
                        );
                    }
                }
                assert!(
                    one.elapsed() < Duration::from_secs(10),
                    "{name}: {pointer} = {bad} took {:?}",
                    one.elapsed()
                );
                files += 1;
            }
        }
    }
    println!("{files} damaged files read in {:?}", started.elapsed());
}

fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    pmx_tests::glb(json, bin)
}
