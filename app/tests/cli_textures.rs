//! Textures follow the file (issue 39): `convert` into another folder rewrites relative
//! texture paths so they still reach the images, or with `--copy-textures` copies the images
//! beside the output; PMX → MQO → PMX with each file in its own folder keeps every texture;
//! saving beside the source keeps the paths; what cannot be kept is listed.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats;
use std::path::Path;
use std::process::{Command, Output};

fn ok(args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .args(args)
        .env("LC_ALL", "C")
        .output()
        .expect("pmx-studio runs");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// For each material of the model at `path`: the bytes of its texture, sphere and toon files
/// as found from the model's folder (`None` where a path reaches nothing).
fn material_images(path: &Path) -> Vec<[Option<Vec<u8>>; 3]> {
    let model = formats::load_path(path, &LoadOptions::default())
        .unwrap()
        .model;
    let folder = formats::folder_of(path);
    let image = |texture: Option<pmx_core::model::TextureIdx>| {
        let name = model.textures.get(texture?.get())?.as_str().into_owned();
        std::fs::read(pmx_core::texture::resolve(folder, &name)?).ok()
    };
    model
        .materials
        .iter()
        .map(|m| {
            let toon = match m.toon {
                pmx_core::model::Toon::Texture(t) => t,
                _ => None,
            };
            [image(m.texture), image(m.sphere_texture), image(toon)]
        })
        .collect()
}

/// The textured model written in `dir/src`.
fn textured_source(dir: &Path) -> std::path::PathBuf {
    let source = dir.join("src");
    std::fs::create_dir_all(&source).unwrap();
    pmx_core::generate::textured_model()
        .write(&source, "model.pmx")
        .unwrap()
}

#[test]
fn convert_into_another_folder_rewrites_the_texture_paths() {
    let dir = tempfile::tempdir().unwrap();
    let input = textured_source(dir.path());
    let expected = material_images(&input);
    assert!(
        expected.iter().all(|m| m[0].is_some()),
        "every material textured"
    );
    let output = dir.path().join("out/deeper/model.pmx");
    std::fs::create_dir_all(output.parent().unwrap()).unwrap();
    let run = ok(&["convert", arg(&input), arg(&output)]);
    assert_eq!(material_images(&output), expected);
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("rewritten"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        !output.parent().unwrap().join("tex").exists(),
        "nothing copied"
    );
}

#[test]
fn convert_with_copy_textures_copies_the_images_beside_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = textured_source(dir.path());
    let expected = material_images(&input);
    let output = dir.path().join("out/model.pmx");
    std::fs::create_dir_all(output.parent().unwrap()).unwrap();
    ok(&["convert", arg(&input), arg(&output), "--copy-textures"]);
    assert_eq!(material_images(&output), expected);
    // The paths are the model's own again: the images lie beside the output.
    std::fs::remove_dir_all(dir.path().join("src")).unwrap();
    assert_eq!(material_images(&output), expected);
}

/// A PMD's texture field holds 20 bytes of Shift-JIS: where the rewritten paths would not fit
/// it (`../../src/tex/hair.png` is 22 bytes where `tex/hair.png` was 12), the images are copied
/// beside the PMD instead, so that every texture its source reached is still reached; where
/// they fit, the paths are rewritten as for any other format.
#[test]
fn convert_to_pmd_copies_the_images_where_rewritten_paths_would_not_fit_its_field() {
    let dir = tempfile::tempdir().unwrap();
    let input = textured_source(dir.path());
    let source = pmx_core::formats::load_path(&input, &LoadOptions::default())
        .unwrap()
        .model;
    // Materials with a sphere map name `texture*sphere`, longer than 20 bytes already in the
    // source: the PMD writer cuts those wherever the file goes.
    let fitting: Vec<usize> = source
        .materials
        .iter()
        .enumerate()
        .filter(|(_, m)| m.sphere_texture.is_none() && m.texture.is_some())
        .map(|(i, _)| i)
        .collect();
    assert!(
        fitting.len() >= 2,
        "materials whose field fits: {fitting:?}"
    );
    let expected = material_images(&input);
    let textures = |path: &Path| -> Vec<Option<Vec<u8>>> {
        let images = material_images(path);
        fitting.iter().map(|&i| images[i][0].clone()).collect()
    };
    let want: Vec<Option<Vec<u8>>> = fitting.iter().map(|&i| expected[i][0].clone()).collect();
    assert!(want.iter().all(Option::is_some));

    let deep = dir.path().join("out/deeper/model.pmd");
    std::fs::create_dir_all(deep.parent().unwrap()).unwrap();
    let run = ok(&["convert", arg(&input), arg(&deep)]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("20-byte texture field"), "{stderr}");
    assert!(
        !stderr.contains("cut to 20 bytes (the field holds 20): \"../"),
        "{stderr}"
    );
    assert_eq!(textures(&deep), want);
    assert!(
        deep.parent().unwrap().join("tex/hair.png").is_file(),
        "copied beside it"
    );

    // One folder up, `../src/tex/hair.png` (19 bytes) fits: rewritten, nothing copied.
    let near = dir.path().join("out/model.pmd");
    let run = ok(&["convert", arg(&input), arg(&near)]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("rewritten"), "{stderr}");
    assert!(
        !near.parent().unwrap().join("tex").exists(),
        "nothing copied"
    );
    assert_eq!(textures(&near), want);
}

#[test]
fn pmx_to_mqo_to_pmx_in_three_folders_keeps_every_texture() {
    let dir = tempfile::tempdir().unwrap();
    let input = textured_source(dir.path());
    let expected = material_images(&input);
    let mqo = dir.path().join("mqo/model.mqo");
    let back = dir.path().join("back/model.pmx");
    for folder in [&mqo, &back] {
        std::fs::create_dir_all(folder.parent().unwrap()).unwrap();
    }
    ok(&["convert", arg(&input), arg(&mqo)]);
    ok(&["convert", arg(&mqo), arg(&back)]);
    // The MQO import keeps only used materials, in order: compare the textures by material.
    assert_eq!(
        material_images(&back)
            .iter()
            .map(|m| m[0].clone())
            .collect::<Vec<_>>(),
        expected.iter().map(|m| m[0].clone()).collect::<Vec<_>>()
    );
}

#[test]
fn saving_beside_the_source_keeps_the_paths_and_a_missing_image_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let input = textured_source(dir.path());
    let beside = dir.path().join("src/copy.pmx");
    ok(&["convert", arg(&input), arg(&beside)]);
    assert_eq!(
        std::fs::read(&beside).unwrap(),
        std::fs::read(&input).unwrap()
    );

    std::fs::remove_file(dir.path().join("src/tex/face.png")).unwrap();
    let output = dir.path().join("elsewhere/model.pmx");
    std::fs::create_dir_all(output.parent().unwrap()).unwrap();
    let run = ok(&["convert", arg(&input), arg(&output), "--copy-textures"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("tex/face.png") || stderr.contains("tex\\face.png"),
        "{stderr}"
    );
}

#[test]
fn every_command_writing_a_vrm_input_as_pmx_puts_its_images_beside_the_output() {
    // A VRM embeds its images: `convert`, `edit`, `repair` and `pose` write them beside the
    // PMX they make, in a folder of their own, and the PMX's paths reach them there (not the
    // VRM's folder, where they never were files).
    let dir = tempfile::tempdir().unwrap();
    let source = textured_source(dir.path());
    let vrm = dir.path().join("vrm/model.vrm");
    std::fs::create_dir_all(vrm.parent().unwrap()).unwrap();
    ok(&["convert", arg(&source), arg(&vrm)]);
    let expected = material_images(&source);
    let script = dir.path().join("script.json");
    std::fs::write(
        &script,
        r#"[{"op": "set", "kind": "vertex", "indices": [0], "field": "uv", "value": [0.5, 0.5]}]"#,
    )
    .unwrap();
    for (command, extra) in [
        ("convert", vec![]),
        ("edit", vec!["--script", arg(&script)]),
        ("repair", vec![]),
        ("pose", vec![]),
    ] {
        let output = dir.path().join(command).join("model.pmx");
        std::fs::create_dir_all(output.parent().unwrap()).unwrap();
        let mut args = vec![command, arg(&vrm), arg(&output)];
        args.extend(extra);
        let run = ok(&args);
        let images = material_images(&output);
        assert_eq!(images.len(), expected.len(), "{command}");
        for (n, (got, want)) in images.iter().zip(&expected).enumerate() {
            assert!(
                got[0].is_some() && want[0].is_some(),
                "{command}: material {n} has no texture: {}",
                String::from_utf8_lossy(&run.stderr)
            );
        }
        assert!(
            !String::from_utf8_lossy(&run.stderr).contains("not found"),
            "{command}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
}
