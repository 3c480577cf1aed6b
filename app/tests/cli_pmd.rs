//! `info` and `convert` on PMD files: the format name, PMD → PMX → PMD and PMD → PMD through
//! the command line, and the loss report `convert` prints when writing PMD.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pmx_studio(args: &[&Path]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .args(args)
        .output()
        .expect("pmx-studio runs");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn corpus_pmd(file: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/pmd")
        .join(file);
    if path.is_file() {
        Some(path)
    } else {
        println!("skipped: corpus file {} is absent", path.display());
        None
    }
}

#[test]
fn info_reports_pmd_and_convert_round_trips_through_pmx() {
    let Some(corpus_file) = corpus_pmd("mmdagent_sd_mei.pmd") else {
        return;
    };
    // A copy beside the outputs: texture paths are relative to the model's folder, and
    // writing into another folder rewrites them so they still reach the textures.
    let dir = tempfile::tempdir().expect("temp dir");
    let original = dir.path().join("original.pmd");
    std::fs::copy(&corpus_file, &original).expect("copies");
    let output = pmx_studio(&[Path::new("info"), &original, Path::new("--json")]);
    let info: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(info["format"], "pmd");
    assert_eq!(info["counts"]["vertices"], 2207);
    assert_eq!(info["counts"]["faces"], 2975);
    assert_eq!(info["counts"]["bones"], 133);
    assert_eq!(info["counts"]["morphs"], 28);
    assert_eq!(info["counts"]["rigid_bodies"], 41);
    assert_eq!(info["counts"]["joints"], 30);

    let pmx = dir.path().join("mei.pmx");
    let back = dir.path().join("mei.pmd");
    pmx_studio(&[Path::new("convert"), &original, &pmx]);
    let output = pmx_studio(&[Path::new("convert"), &pmx, &back]);
    assert!(output.stderr.is_empty(), "nothing is lost");
    assert!(
        std::fs::read(&back).unwrap() == std::fs::read(&original).unwrap(),
        "PMD → PMX → PMD gives the same bytes"
    );
    let copy = dir.path().join("copy.pmd");
    let output = pmx_studio(&[Path::new("convert"), &original, &copy]);
    assert!(output.stderr.is_empty(), "nothing is lost");
    assert!(
        std::fs::read(&copy).unwrap() == std::fs::read(&original).unwrap(),
        "PMD → PMD gives the same bytes"
    );
}

#[test]
fn convert_to_pmd_prints_the_loss_report() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/pmx/generated_utf8_sdef_two_bone_elbow.pmx");
    if !path.is_file() {
        println!("skipped: corpus file {} is absent", path.display());
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("elbow.pmd");
    let output = pmx_studio(&[Path::new("convert"), &path, &out]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{} things the PMD file cannot hold (written as described):",
            lines.len() - 1
        )
    );
    assert!(lines.contains(
        &"warning: vertices[0].weight: SDEF is written as BDEF2 (same bones and weight; the C, \
          R0 and R1 points are dropped)"
    ));
    let info: Value =
        serde_json::from_slice(&pmx_studio(&[Path::new("info"), &out, Path::new("--json")]).stdout)
            .unwrap();
    assert_eq!(info["format"], "pmd");
    assert_eq!(info["counts"]["vertices"], 40);
}

/// MMD picks a PMD sphere map's mode from its extension (`.spa` adds, anything else
/// multiplies): a PMX material that adds `s.png` or `es.sph`, or multiplies `m.spa`, is written
/// naming a copy under the extension of its mode, made beside the PMD, so that the PMD read
/// back has every material's sphere mode and image of the PMX. A sphere map with no texture
/// reads back as one only as `.sph` or `.spa`.
#[test]
fn convert_to_pmd_writes_sphere_maps_under_the_extension_of_their_mode() {
    use pmx_core::model::{Material, SphereMode, TextureIdx};
    let dir = tempfile::tempdir().unwrap();
    let images: [(&str, &[u8]); 6] = [
        ("a.png", b"texture"),
        ("s.png", b"added"),
        ("es.sph", b"added too"),
        ("m.spa", b"multiplied"),
        ("alone.bmp", b"multiplied alone"),
        ("kept.bmp", b"multiplied, read as it is"),
    ];
    for (name, bytes) in images {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let mut model = pmx_core::generate::sample_model();
    model.textures = images.iter().map(|(name, _)| (*name).into()).collect();
    let spheres = [
        (Some(0), 1, SphereMode::Add),
        (Some(0), 2, SphereMode::Add),
        (Some(0), 3, SphereMode::Multiply),
        (None, 4, SphereMode::Multiply),
        (Some(0), 5, SphereMode::Multiply),
    ];
    let template = model.materials[0].clone();
    let faces = model.faces.len() as u32 * 3;
    model.materials = spheres
        .iter()
        .map(|&(texture, sphere, mode)| Material {
            texture: texture.map(TextureIdx::new),
            sphere_texture: Some(TextureIdx::new(sphere)),
            sphere_mode: mode,
            face_index_count: 0,
            ..template.clone()
        })
        .collect();
    model.materials[0].face_index_count = faces;
    let pmx = dir.path().join("model.pmx");
    pmx_core::formats::save_path(&model, &pmx, &Default::default()).unwrap();
    let pmd = dir.path().join("model.pmd");
    let run = pmx_studio(&[Path::new("convert"), &pmx, &pmd]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains(r#"written as "s.spa", a copy of "s.png""#),
        "{stderr}"
    );

    let back = pmx_core::formats::load_path(&pmd, &Default::default())
        .unwrap()
        .model;
    let image = |model: &pmx_core::Model, index: Option<TextureIdx>| -> Option<Vec<u8>> {
        let name = model.textures.get(index?.get())?.as_str().into_owned();
        std::fs::read(pmx_core::texture::resolve(dir.path(), &name)?).ok()
    };
    for (i, (before, after)) in model.materials.iter().zip(&back.materials).enumerate() {
        assert_eq!(after.sphere_mode, before.sphere_mode, "material {i}");
        assert_eq!(
            image(&back, after.sphere_texture),
            image(&model, before.sphere_texture),
            "material {i}'s sphere map"
        );
        assert_eq!(image(&back, after.texture), image(&model, before.texture));
    }
    let names: Vec<String> = back
        .materials
        .iter()
        .map(|m| {
            back.textures[m.sphere_texture.unwrap().get()]
                .as_str()
                .into_owned()
        })
        .collect();
    assert_eq!(names, ["s.spa", "es.spa", "m.sph", "alone.sph", "kept.bmp"]);
}
