//! `pmx-studio render`: the 3D view drawn offscreen. After `--edit` (the script applied as one
//! undo step through the document, so the view uploads only what it touched) the picture is
//! the picture of the file `pmx-studio edit` writes with the same script, pixel for pixel: the
//! same geometry in the same buffers, drawn in the same order by the same rasteriser, so no
//! tolerance is needed. `--then-undo` gives the untouched picture back.
//!
//! Runs on models made by `pmx_core::generate` (the sample, and the textured model with its
//! images, where a texture drawn on the wrong material shows), on three corpus PMX models and
//! two imported corpus VRMs (their embedded images drawn) when ../shared/corpus is there.
//! Without OpenGL through EGL (`libegl1 libegl-mesa0 libgl1-mesa-dri`) render exits 2 and these
//! tests print why and pass.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::{self, EmbeddedFile, LoadOptions, SaveOptions};
use pmx_core::model::{ElementKind, Model};
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SIZE: &str = "256x256";
/// Overlays on, so that deleting bones, rigid bodies and joints shows in the picture.
const LAYERS: &str = "bones,rigid_bodies,joints";

fn pmx_studio<I: AsRef<OsStr>>(args: impl IntoIterator<Item = I>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .args(args)
        .output()
        .expect("pmx-studio runs")
}

fn succeeded(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what}: {:?}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `render MODEL OUT --size 256x256 --layers LAYERS [extra]`; `None` when there is no OpenGL
/// (exit 2 with the reason, printed).
fn render(model: &Path, out: &Path, extra: &[&OsStr]) -> Option<image::RgbaImage> {
    render_with(model, out, LAYERS, extra)
}

fn render_with(
    model: &Path,
    out: &Path,
    layers: &str,
    extra: &[&OsStr],
) -> Option<image::RgbaImage> {
    let mut args: Vec<&OsStr> = vec![
        OsStr::new("render"),
        model.as_os_str(),
        out.as_os_str(),
        OsStr::new("--size"),
        OsStr::new(SIZE),
        OsStr::new("--layers"),
        OsStr::new(layers),
    ];
    args.extend_from_slice(extra);
    let output = pmx_studio(&args);
    if output.status.code() == Some(2) {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("OpenGL"),
            "exit 2 without a reason: {stderr}"
        );
        println!("skipped: {stderr}");
        return None;
    }
    succeeded(&output, "render");
    Some(image::open(out).expect("a PNG").to_rgba8())
}

fn assert_same(a: &image::RgbaImage, b: &image::RgbaImage, what: &str, dir: &Path) {
    assert_eq!(a.dimensions(), b.dimensions(), "{what}");
    let differing = a.pixels().zip(b.pixels()).filter(|(x, y)| x != y).count();
    if differing > 0 {
        // Keep both pictures for a look.
        let keep = std::env::temp_dir().join(format!(
            "cli_render_{}",
            what.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        ));
        std::fs::create_dir_all(&keep).unwrap();
        a.save(keep.join("render_edit.png")).unwrap();
        b.save(keep.join("edit_then_render.png")).unwrap();
        panic!(
            "{what}: {differing} pixels differ ({}; work files in {})",
            keep.display(),
            dir.display()
        );
    }
}

/// One edit script to try.
struct Script {
    what: &'static str,
    ops: Value,
    /// The layers to draw with (the face edits also with the wireframe: its line indices).
    layers: &'static str,
    /// Whether the edit changes the picture (deleting morphs does not).
    visible: bool,
}

impl Script {
    fn new(what: &'static str, ops: Value) -> Self {
        Self {
            what,
            ops,
            layers: LAYERS,
            visible: true,
        }
    }
}

/// The edit scripts tried on `model`: value edits at non-zero offsets (partial uploads) and a
/// delete of every kind the model has two or more of.
fn scripts(model: &Model) -> Vec<Script> {
    let n = |kind: ElementKind| model.count(kind);
    let mut scripts = Vec::new();
    let vertices = n(ElementKind::Vertex);
    if vertices > 8 {
        let indices = [vertices / 3, vertices / 3 + 1, vertices / 2, vertices - 2];
        let values: Vec<Value> = indices
            .iter()
            .map(|&i| {
                let p = model.vertices[i].position;
                json!([p.x + 0.8, p.y - 1.5, p.z + 0.3])
            })
            .collect();
        scripts.push(Script::new(
            "vertex moves",
            json!([
                {"op": "set", "kind": "vertex", "indices": indices, "field": "position", "values": values},
                {"op": "set", "kind": "vertex", "indices": [vertices / 4], "field": "normal", "value": [1.0, 0.0, 0.0]},
                {"op": "set", "kind": "vertex", "indices": [vertices / 5], "field": "uv", "value": [0.9, 0.1]}
            ]),
        ));
    }
    let faces = n(ElementKind::Face);
    if faces > 8 && vertices > 8 {
        scripts.push(Script {
            layers: "bones,rigid_bodies,joints,wireframe",
            ..Script::new(
                "face edits",
                json!([
                    {"op": "set", "kind": "face", "indices": [faces / 2], "field": "", "value": [0, vertices / 2, vertices - 1]},
                    {"op": "set", "kind": "face", "indices": [faces / 3, faces - 1], "field": "1", "value": vertices / 3}
                ]),
            )
        });
    }
    let materials = n(ElementKind::Material);
    if materials > 0 {
        // The material with the most faces: its colour shows.
        let i = (0..materials)
            .max_by_key(|&i| model.materials[i].face_index_count)
            .unwrap_or(0);
        let mut ops = vec![
            json!({"op": "set", "kind": "material", "indices": [i], "field": "diffuse", "value": [1.0, 0.2, 0.1, 1.0]}),
            json!({"op": "set", "kind": "material", "indices": [i], "field": "edge_size", "value": 2.5}),
        ];
        // Three indices (one face) move from one material to the next: only the ranges change.
        if materials > 1 {
            let (a, b) = (0, 1);
            let count = model.materials[a].face_index_count;
            if count >= 3 {
                ops.push(json!({"op": "set", "kind": "material", "indices": [a], "field": "face_index_count", "value": count - 3}));
                ops.push(json!({"op": "set", "kind": "material", "indices": [b], "field": "face_index_count", "value": model.materials[b].face_index_count + 3}));
            }
        }
        scripts.push(Script::new("material edits", Value::Array(ops)));
    }
    let deletes = [
        ("delete vertices", ElementKind::Vertex),
        ("delete faces", ElementKind::Face),
        ("delete materials", ElementKind::Material),
        ("delete bones", ElementKind::Bone),
        ("delete morphs", ElementKind::Morph),
        ("delete rigid bodies", ElementKind::RigidBody),
        ("delete joints", ElementKind::Joint),
    ];
    for (what, kind) in deletes {
        let count = n(kind);
        if count >= 2 {
            // A run from the middle (a twentieth of the list: enough vertices or faces to
            // show at 256 pixels) and the last one.
            let mut indices: Vec<usize> = (count / 2..count / 2 + (count / 20).max(1)).collect();
            indices.push(count - 1);
            indices.dedup();
            if kind == ElementKind::Material {
                // The one with the most faces (a small one may hide behind the others).
                indices = vec![
                    (0..count)
                        .max_by_key(|&i| model.materials[i].face_index_count)
                        .unwrap_or(0),
                ];
            }
            scripts.push(Script {
                visible: kind != ElementKind::Morph,
                ..Script::new(
                    what,
                    json!([{"op": "delete", "kind": kind, "indices": indices}]),
                )
            });
        }
    }
    // Lists reordered and grown: textures, sphere maps and toon textures must follow their
    // materials (each script is one step; its ops build on each other).
    if materials >= 2 {
        scripts.push(Script {
            visible: false,
            ..Script::new(
                "duplicate, move and sort materials",
                json!([
                    {"op": "duplicate", "kind": "material", "indices": [0]},
                    {"op": "move", "kind": "material", "indices": [0], "to": materials},
                    {"op": "sort", "kind": "material", "by": "name"}
                ]),
            )
        });
    }
    let textures = n(ElementKind::Texture);
    if textures >= 2 {
        scripts.push(Script {
            visible: false,
            ..Script::new(
                "insert, move, sort and delete textures",
                json!([
                    {"op": "insert", "kind": "texture", "at": 0, "items": ["missing.png"]},
                    {"op": "move", "kind": "texture", "indices": [0], "to": textures},
                    {"op": "sort", "kind": "texture", "by": "name"},
                    {"op": "delete", "kind": "texture", "indices": [1]}
                ]),
            )
        });
        // A texture path changed in the same step as a material list (the material with the
        // most faces goes, so that the step shows).
        if materials >= 2 {
            let largest = (0..materials)
                .max_by_key(|&i| model.materials[i].face_index_count)
                .unwrap_or(0);
            scripts.push(Script::new(
                "a texture path and a material delete",
                json!([
                    {"op": "set", "kind": "texture", "indices": [0], "field": "path", "value": model.textures[1].as_str()},
                    {"op": "delete", "kind": "material", "indices": [largest]}
                ]),
            ));
        }
    }
    scripts
}

/// Every script on `model`: `render --edit` equals `edit` + `render`; `--then-undo` equals the
/// untouched picture. `images` (the model's textures) are written beside the edited files;
/// `hidden` names the scripts whose edit does not show on this model.
fn check_model(model_path: &Path, name: &str, images: &[EmbeddedFile], hidden: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    formats::write_embedded_files(images, dir.path(), false).unwrap();
    let model = formats::load_path(model_path, &LoadOptions::default())
        .unwrap()
        .model;
    let untouched_png = dir.path().join("untouched.png");
    let Some(untouched) = render(model_path, &untouched_png, &[]) else {
        return;
    };
    // The picture shows something besides the background.
    let background = untouched.get_pixel(0, 0);
    assert!(
        untouched.pixels().filter(|p| *p != background).count() > 500,
        "{name}: the model is not in the picture"
    );
    let scripts = scripts(&model);
    assert!(scripts.len() >= 5, "{name}: too few scripts");
    for (n, script) in scripts.iter().enumerate() {
        let label = format!("{name}: {}", script.what);
        let script_path = dir.path().join(format!("script{n}.json"));
        std::fs::write(&script_path, serde_json::to_string(&script.ops).unwrap()).unwrap();
        // `edit` writes the edited model; a fresh render of it is the expected picture. The
        // model's images are next to it (the corpus PMX models have none: a missing texture is
        // the placeholder in both pictures).
        let edited = dir.path().join(format!("edited{n}.pmx"));
        let output = pmx_studio([
            OsStr::new("edit"),
            model_path.as_os_str(),
            edited.as_os_str(),
            OsStr::new("--script"),
            script_path.as_os_str(),
        ]);
        succeeded(&output, &label);
        let expected_png = dir.path().join(format!("expected{n}.png"));
        let expected = render_with(&edited, &expected_png, script.layers, &[]).unwrap();

        let actual_png = dir.path().join(format!("actual{n}.png"));
        let mut extra = vec![OsStr::new("--edit"), script_path.as_os_str()];
        let actual = render_with(model_path, &actual_png, script.layers, &extra).unwrap();
        assert_same(&actual, &expected, &label, dir.path());
        if script.visible && script.layers == LAYERS && !hidden.contains(&script.what) {
            assert!(
                actual != untouched,
                "{label}: the edit does not show (the comparison would prove nothing)"
            );
        }
        // Undone, every step gives the untouched picture back (the selection the undo leaves,
        // a deleted material brought back, is no part of it).
        let undone_png = dir.path().join(format!("undone{n}.png"));
        extra.push(OsStr::new("--then-undo"));
        let undone = render_with(model_path, &undone_png, script.layers, &extra).unwrap();
        let untouched = if script.layers == LAYERS {
            untouched.clone()
        } else {
            let png = dir.path().join(format!("untouched{n}.png"));
            render_with(model_path, &png, script.layers, &[]).unwrap()
        };
        assert_same(
            &undone,
            &untouched,
            &format!("{label} then undo"),
            dir.path(),
        );
    }
}

/// The shared corpus of real files, beside the repository.
fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

fn corpus(name: &str) -> Option<PathBuf> {
    let path = corpus_dir().join("pmx").join(name);
    if path.exists() {
        Some(path)
    } else {
        println!("skipped: {} is absent", path.display());
        None
    }
}

#[test]
fn render_edit_equals_edit_then_render_generated_model() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.pmx");
    formats::save_path(
        &pmx_core::generate::sample_model(),
        &path,
        &SaveOptions::default(),
    )
    .unwrap();
    check_model(&path, "sample", &[], &[]);
}

#[test]
fn render_edit_equals_edit_then_render_textured_model() {
    // Every material with a texture of its own (and spheres, toon textures): a texture drawn
    // on the wrong material shows.
    let dir = tempfile::tempdir().unwrap();
    let textured = pmx_core::generate::textured_model();
    let path = textured.write(dir.path(), "textured.pmx").unwrap();
    check_model(&path, "textured", &textured.files, &[]);
}

#[test]
fn render_edit_equals_edit_then_render_gene() {
    if let Some(path) = corpus("pmxeditor_gene_cc_by.pmx") {
        check_model(&path, "gene", &[], &[]);
    }
}

#[test]
fn render_edit_equals_edit_then_render_sdef_elbow() {
    if let Some(path) = corpus("generated_utf8_sdef_two_bone_elbow.pmx") {
        check_model(&path, "sdef_elbow", &[], &[]);
    }
}

#[test]
fn render_edit_equals_edit_then_render_blender_physics() {
    if let Some(path) = corpus("blender2pmxem_sample_finish_physics.pmx") {
        check_model(&path, "blender_physics", &[], &[]);
    }
}

#[test]
fn render_edit_equals_edit_then_render_corpus_vrms() {
    // Imported VRMs: `render` draws them with their embedded images (unpacked for the view);
    // the edited PMX gets them beside it.
    for file in [
        "godette_vrm0_cc_by.vrm",
        "vrmspec_mtoon_uv_animation_vrm1.vrm",
    ] {
        let path = corpus_dir().join("vrm").join(file);
        if !path.exists() {
            println!("skipped: {} is absent", path.display());
            continue;
        }
        let loaded = formats::load_path(&path, &LoadOptions::default()).unwrap();
        assert!(!loaded.embedded_files.is_empty(), "{file}: no images");
        // Godette's spring joints sit inside the hair's rigid bodies: at 256 pixels deleting
        // some does not show.
        check_model(&path, file, &loaded.embedded_files, &["delete joints"]);
    }
}

#[test]
fn render_views_layers_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.pmx");
    formats::save_path(
        &pmx_core::generate::sample_model(),
        &path,
        &SaveOptions::default(),
    )
    .unwrap();
    let out = dir.path().join("front.png");
    let Some(front) = render(&path, &out, &[]) else {
        return;
    };
    assert_eq!(front.dimensions(), (256, 256));
    let side_png = dir.path().join("left.png");
    let side = render(
        &path,
        &side_png,
        &[OsStr::new("--view"), OsStr::new("left")],
    )
    .unwrap();
    assert!(front != side, "the left view differs from the front");
    let bare_png = dir.path().join("bare.png");
    // `-name` after --layers is the list, not an option.
    let bare = render_with(&path, &bare_png, "-bones,-rigid_bodies,-joints", &[]).unwrap();
    assert!(front != bare, "switching overlays off changes the picture");

    // Errors: an unknown layer, a bad size, --then-undo without --edit.
    for (args, message) in [
        (vec!["--layers", "bonez"], "bonez"),
        (vec!["--size", "0x10"], "--size"),
        (vec!["--then-undo"], "--edit"),
    ] {
        let mut all: Vec<&OsStr> = vec![OsStr::new("render"), path.as_os_str(), out.as_os_str()];
        all.extend(args.iter().map(OsStr::new));
        let output = pmx_studio(&all);
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}
