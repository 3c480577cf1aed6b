//! "three-vrm opens it → we open it, with notes": GLB files generated in code with the length
//! mistakes real writers make (buffer views past the buffer's declared `byteLength` but inside
//! the BIN chunk, a header length that is not the file's, a JSON chunk with a byte order mark
//! or NUL padding, joints stored as floats), each read with a note, and each also opened by the
//! three-vrm peer (`../shared/tools/peers/three-vrm-peer`, after its `install.sh`) when it is
//! there (skipped with the reason printed when it is not).

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use crate::LoadOptions;
use crate::formats::vrm::{VrmExportOptions, read_vrm, split_glb, write_vrm};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The sample model as a VRM: its JSON and BIN chunk.
fn sample_vrm() -> (Value, Vec<u8>) {
    let export = write_vrm(
        &crate::generate::sample_model(),
        &VrmExportOptions::default(),
    )
    .unwrap();
    let (json, bin) = split_glb(&export.vrm).unwrap();
    (json, bin.to_vec())
}

/// A GLB of `json` (padded with spaces) and `bin` (padded with zeros), lengths all right.
fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut json = serde_json::to_vec(json).unwrap();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    glb_of_chunks(&json, &bin)
}

/// A GLB of the two chunks as they are.
fn glb_of_chunks(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out
}

fn view_end(view: &Value) -> u64 {
    view["byteOffset"].as_u64().unwrap_or(0) + view["byteLength"].as_u64().unwrap()
}

/// The notes of reading `bytes`, which must succeed with the same model as the sample's VRM.
fn read_with_notes(bytes: &[u8]) -> Vec<String> {
    let (json, bin) = sample_vrm();
    let reference = read_vrm(&glb(&json, &bin), &LoadOptions::default()).unwrap();
    let import = read_vrm(bytes, &LoadOptions::default()).unwrap();
    assert_eq!(import.model.vertices, reference.model.vertices);
    assert_eq!(import.model.faces, reference.model.faces);
    assert_eq!(import.model.bones.len(), reference.model.bones.len());
    assert_eq!(import.model.morphs.len(), reference.model.morphs.len());
    import
        .report
        .notes
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn three_vrm_peer() -> Option<PathBuf> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/tools/peers/three-vrm-peer");
    if !path.exists() {
        println!("skipped three-vrm: {} is absent", path.display());
        return None;
    }
    Some(path)
}

/// Whether three-vrm opens `bytes` as a VRM (`None`: the peer is not installed).
fn three_vrm_opens(name: &str, bytes: &[u8]) -> Option<bool> {
    let peer = three_vrm_peer()?;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("{name}.vrm"));
    std::fs::write(&file, bytes).unwrap();
    let output = Command::new(&peer).arg(&file).output().ok()?;
    if output.status.code() == Some(2) {
        println!(
            "skipped three-vrm: not installed (run its install.sh): {}",
            String::from_utf8_lossy(&output.stdout)
        );
        return None;
    }
    Some(output.status.success())
}

#[test]
fn views_past_the_declared_buffer_length_inside_the_bin_chunk_read_with_a_note() {
    let (mut json, bin) = sample_vrm();
    let views = json["bufferViews"].as_array().unwrap();
    let mut ends: Vec<(u64, usize)> = views
        .iter()
        .enumerate()
        .map(|(i, v)| (view_end(v), i))
        .collect();
    ends.sort_unstable();
    let (last_end, last) = ends[ends.len() - 1];
    let (second_end, second) = ends[ends.len() - 2];
    assert!(second_end < last_end && last_end as usize <= bin.len());
    // Declared 8 bytes short of the second-to-last view's end: two views run past it.
    let declared = second_end - 8;
    json["buffers"][0]["byteLength"] = declared.into();
    let bytes = glb(&json, &bin);
    let notes = read_with_notes(&bytes);
    let note = notes
        .iter()
        .find(|n| n.contains("declared byteLength"))
        .unwrap_or_else(|| panic!("a note on the views: {notes:?}"));
    assert!(
        note.contains(&format!("bufferViews[{second}] (+8)"))
            && note.contains(&format!("bufferViews[{last}] (+{})", last_end - declared)),
        "{note}"
    );
    if let Some(opened) = three_vrm_opens("views_past_declared", &bytes) {
        assert!(opened, "three-vrm opens it too");
    }

    // Past the BIN chunk itself is still an error, naming the view.
    let mut json = json.clone();
    let position = json["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize;
    let view = json["accessors"][position]["bufferView"].as_u64().unwrap() as usize;
    let offset = json["bufferViews"][view]["byteOffset"]
        .as_u64()
        .unwrap_or(0);
    json["bufferViews"][view]["byteLength"] = (bin.len() as u64 + 64 - offset).into();
    let error = read_vrm(&glb(&json, &bin), &LoadOptions::default()).unwrap_err();
    assert!(error.to_string().contains("bufferViews"), "{error}");
}

#[test]
fn a_buffer_without_byte_length_reads_with_a_note() {
    let (mut json, bin) = sample_vrm();
    json["buffers"][0]
        .as_object_mut()
        .unwrap()
        .remove("byteLength");
    let notes = read_with_notes(&glb(&json, &bin));
    assert!(
        notes.iter().any(|n| n.contains("no byteLength")),
        "{notes:?}"
    );
}

#[test]
fn header_length_bom_and_nul_padding_read_with_notes() {
    let (json, bin) = sample_vrm();
    let good = glb(&json, &bin);

    // A header length past the end of the file.
    let mut long = good.clone();
    long[8..12].copy_from_slice(&(good.len() as u32 + 100).to_le_bytes());
    let notes = read_with_notes(&long);
    assert!(
        notes.iter().any(|n| n.contains("header declares")),
        "{notes:?}"
    );

    // A byte order mark before the JSON and NULs instead of spaces after it.
    let mut text = b"\xEF\xBB\xBF".to_vec();
    text.extend(serde_json::to_vec(&json).unwrap());
    while !text.len().is_multiple_of(4) {
        text.push(0);
    }
    text.extend_from_slice(&[0; 4]);
    let odd = glb_of_chunks(&text, &bin);
    let notes = read_with_notes(&odd);
    assert!(
        notes.iter().any(|n| n.contains("byte order mark")),
        "{notes:?}"
    );
    assert!(notes.iter().any(|n| n.contains("NUL")), "{notes:?}");

    // Stray bytes after the BIN chunk, inside the declared length.
    let mut stray = good.clone();
    stray.extend_from_slice(&[0; 4]);
    let total = stray.len() as u32;
    stray[8..12].copy_from_slice(&total.to_le_bytes());
    let notes = read_with_notes(&stray);
    assert!(
        notes.iter().any(|n| n.contains("after the last chunk")),
        "{notes:?}"
    );
}

#[test]
fn joints_stored_as_floats_read_with_a_note() {
    let (mut json, mut bin) = sample_vrm();
    // Rewrite the first JOINTS_0 accessor's u16 values as f32 in a new view at the end.
    let accessor = json["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"]
        .as_u64()
        .unwrap() as usize;
    let old = json["accessors"][accessor].clone();
    let size = match old["componentType"].as_u64().unwrap() {
        5121 => 1,
        5123 => 2,
        other => panic!("joints of component type {other}"),
    };
    let view = &json["bufferViews"][old["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + old["byteOffset"].as_u64().unwrap_or(0) as usize;
    let count = old["count"].as_u64().unwrap() as usize;
    let floats: Vec<u8> = (0..count * 4)
        .flat_map(|i| {
            let at = start + i * size;
            let joint = if size == 1 {
                u16::from(bin[at])
            } else {
                u16::from_le_bytes([bin[at], bin[at + 1]])
            };
            f32::from(joint).to_le_bytes()
        })
        .collect();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let offset = bin.len();
    bin.extend(&floats);
    let views = json["bufferViews"].as_array_mut().unwrap();
    views
        .push(serde_json::json!({ "buffer": 0, "byteOffset": offset, "byteLength": floats.len() }));
    let new_view = views.len() - 1;
    json["buffers"][0]["byteLength"] = bin.len().into();
    json["accessors"][accessor] = serde_json::json!({
        "bufferView": new_view, "componentType": 5126, "count": count, "type": "VEC4"
    });
    let notes = read_with_notes(&glb(&json, &bin));
    assert!(
        notes.iter().any(|n| n.contains("component type 5126")),
        "{notes:?}"
    );
}

#[test]
fn an_image_whose_bytes_are_not_there_is_left_out_in_recovery() {
    // A file cut inside an image's bytes: glTF viewers draw the model without that texture.
    // Strictly it is an error; recovery reads the model whole and lists the image as lost.
    let dir = tempfile::tempdir().unwrap();
    let textured = crate::generate::textured_model();
    textured.write(dir.path(), "model.pmx").unwrap();
    let options = VrmExportOptions {
        model_dir: Some(dir.path().to_owned()),
        ..VrmExportOptions::default()
    };
    let export = write_vrm(&textured.model, &options).unwrap();
    let (mut json, bin) = split_glb(&export.vrm).unwrap();
    let bin = bin.to_vec();
    let reference = read_vrm(&export.vrm, &LoadOptions::default()).unwrap();
    let view = json["images"][0]["bufferView"].as_u64().unwrap() as usize;
    json["bufferViews"][view]["byteOffset"] = Value::from(bin.len() as u64 - 4);
    let damaged = glb(&json, &bin);
    assert!(read_vrm(&damaged, &LoadOptions::default()).is_err());
    let recovered = read_vrm(
        &damaged,
        &LoadOptions {
            recover: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(recovered.model.vertices, reference.model.vertices);
    assert_eq!(recovered.model.faces, reference.model.faces);
    assert_eq!(
        recovered.model.materials.len(),
        reference.model.materials.len()
    );
    let lost: Vec<_> = recovered.report.notes.iter().filter(|n| n.lost).collect();
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert_eq!(lost[0].message.key(), Some("load.vrm.image_left_out"));
    assert!(lost[0].message.is_translated());
}
