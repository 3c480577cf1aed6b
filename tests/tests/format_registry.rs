//! Every format of the registry (`pmx_core::formats::registry::FORMATS`), in one loop: a model
//! generated in code is written through the format's writer, recognised by its content, opened
//! (as the document or as a conversion, as the format's abilities say), saved again where the
//! format is a document's, and garbage or a cut file of the format is an error that names the
//! file, never a panic. A format added to the registry without a working reader and writer
//! fails here.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::registry::FORMATS;
use pmx_core::formats::{self, FileFormat, SaveOptions};
use pmx_core::generate::sample_model;
use std::path::Path;

/// Bytes that are no model of any format.
const GARBAGE: &[u8] = b"\x01\x02not a model at all\xff\xfe\x00\x13\x37 garbage, garbage\n";

#[test]
fn every_registered_format_writes_opens_and_refuses_garbage() {
    let dir = tempfile::tempdir().unwrap();
    let model = sample_model();
    assert!(!model.faces.is_empty() && !model.bones.is_empty());
    for spec in &FORMATS {
        let name = spec.name;
        let path = dir.path().join(format!("sample.{}", spec.extension()));

        // Written through the format's own writer (an export, or a document's Save as).
        let report = formats::write_path(&model, &path, spec.format, &SaveOptions::default())
            .unwrap_or_else(|error| panic!("{name}: write: {error}"));
        let bytes = std::fs::read(&path).unwrap();
        assert!(!bytes.is_empty(), "{name}: an empty file");
        if spec.lossless {
            assert!(
                report.save_report().warnings.is_empty(),
                "{name} keeps everything: {report:?}"
            );
        }
        let (encoded, _) = (spec.encode)(&model, &SaveOptions::default())
            .unwrap_or_else(|error| panic!("{name}: encode: {error}"));
        // A format with a writer of its own may name its side files in the file (an MQO's
        // `.mqx`); otherwise the file is exactly the encoded bytes.
        assert!(
            spec.write.is_some() || encoded == bytes,
            "{name}: the file is the encoder's bytes"
        );

        // Told by its content, whatever its name, and by its name.
        assert_eq!(
            FileFormat::detect(Path::new("no_extension"), &bytes),
            Some(spec.format),
            "{name}: detected by content"
        );
        assert!(spec.reads_extension(&path) && spec.writes_extension(&path));
        assert_eq!(FileFormat::from_extension(&path), Some(spec.format));

        // Opened, as the document or as a conversion.
        let loaded = formats::load_path(&path, &LoadOptions::default())
            .unwrap_or_else(|error| panic!("{name}: open: {error}"));
        assert_eq!(loaded.format, spec.format, "{name}");
        assert_eq!(spec.converts(), !spec.abilities.open, "{name}");
        assert!(
            !loaded.model.faces.is_empty() && !loaded.model.materials.is_empty(),
            "{name}: the model came back without its faces or materials"
        );
        if spec.lossless {
            assert!(
                as_pmx(&loaded.model) == as_pmx(&model),
                "{name}: a lossless format gives the model back"
            );
        }

        // A document's format saves what it opened, and opens it again.
        if spec.abilities.save {
            let again = dir.path().join(format!("again.{}", spec.extension()));
            formats::save_path(&loaded.model, &again, &SaveOptions::default())
                .unwrap_or_else(|error| panic!("{name}: save: {error}"));
            let reopened = formats::load_path(&again, &LoadOptions::default())
                .unwrap_or_else(|error| panic!("{name}: reopen: {error}"));
            assert!(reopened.model == loaded.model, "{name}: save and reopen");
        }

        // Garbage and a cut file under the format's name: errors naming the file.
        for (label, bad) in [
            ("garbage", GARBAGE.to_vec()),
            ("cut", bytes[..bytes.len() / 2].to_vec()),
            ("empty", Vec::new()),
        ] {
            let bad_path = dir.path().join(format!("{label}.{}", spec.extension()));
            std::fs::write(&bad_path, &bad).unwrap();
            match formats::load_path(&bad_path, &LoadOptions::default()) {
                Err(error) => {
                    let text = error.to_string();
                    assert!(
                        text.contains(&format!("{label}.{}", spec.extension())),
                        "{name} {label}: the error names the file: {text}"
                    );
                }
                // A text format may read the half that is left of a cut file, and an empty
                // file as an empty model; no format invents a model from garbage.
                Ok(loaded) => assert!(
                    (label == "cut" && !spec.converts())
                        || (label == "empty" && loaded.model.vertices.is_empty()),
                    "{name} {label}: read as a model with {} faces",
                    loaded.model.faces.len()
                ),
            }
            assert!(
                formats::read_bytes(&bad, spec.format, &LoadOptions::default()).is_err()
                    || label != "garbage",
                "{name} {label}: read from memory"
            );
        }
    }
}

/// The model as PMX bytes (what "the same model" means to a file).
fn as_pmx(model: &pmx_core::Model) -> Vec<u8> {
    formats::write_bytes(model, FileFormat::Pmx, &SaveOptions::default())
        .expect("a PMX")
        .0
}

#[test]
fn every_extension_names_one_format_and_unknown_ones_are_refused_by_name() {
    let mut seen = Vec::new();
    for spec in &FORMATS {
        assert_eq!(spec.format.spec().name, spec.name);
        for extension in spec.extensions {
            assert!(!seen.contains(extension), ".{extension} names two formats");
            seen.push(*extension);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.txt");
    std::fs::write(&path, GARBAGE).unwrap();
    let error = formats::load_path(&path, &LoadOptions::default())
        .expect_err("no format reads it")
        .to_string();
    for extension in seen {
        assert!(error.contains(&format!(".{extension}")), "{error}");
    }
}
