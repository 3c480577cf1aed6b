#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Textures, sphere maps and toon textures follow their materials: after inserting, deleting,
//! duplicating, moving and sorting materials and textures, a merge, and each of their undos
//! and redos, the view (synced incrementally, as the window syncs it) draws exactly what a
//! fresh load of the model the edits leave draws: the model is saved with `pmx_core`, loaded
//! from the file, and drawn by a new view, pixel for pixel.
//!
//! The models have their textures: `pmx_core::generate::textured_model` (a texture of its own
//! on every material, with add and multiply spheres and toon textures, written into a temporary
//! folder), and the imported VRMs of the corpus (their images embedded; the fresh load gets
//! them written beside the saved PMX). The corpus Gene's texture files are absent, so there
//! every material draws the same placeholder and a wrong binding does not show.
//!
//! The pictures are of the model: the selection an edit leaves (what an insert creates and an
//! undo brings back is selected, and the view tints selected materials) is cleared before
//! each drawing, as a fresh load has none.
//!
//! Offscreen through EGL (`libegl1 libegl-mesa0 libgl1-mesa-dri`); without it they print why
//! and pass. The corpus tests print why and pass without `../shared/corpus`.

use pmx_core::edit::{EditOp, ops_to_edit};
use pmx_core::formats::{self, EmbeddedFile, LoadOptions, SaveOptions};
use pmx_core::model::{ElementKind, Model, TextureIdx};
use pmx_ui::document::Document;
use pmx_ui::panes::view::ViewState;
use pmx_ui::panes::view::camera::OrbitCamera;
use pmx_view::offscreen::{Offscreen, with_offscreen};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const SIZE: u32 = 192;

/// A document edited step by step, its incrementally synced view, and the fresh loads it is
/// compared with.
struct Session<'a> {
    gl: &'a Offscreen,
    name: String,
    document: Document,
    view: ViewState,
    camera: OrbitCamera,
    /// Where the fresh loads are saved (with the model's textures beside them).
    dir: PathBuf,
    checks: usize,
}

impl<'a> Session<'a> {
    fn new(gl: &'a Offscreen, name: &str, document: Document, dir: &Path) -> Self {
        let mut view = ViewState::default();
        view.layers.set_from_list("-grid").unwrap();
        view.sync(&document, 1);
        view.frame_model(&document);
        let camera = view.camera;
        Self {
            gl,
            name: name.to_owned(),
            document,
            view,
            camera,
            dir: dir.to_path_buf(),
            checks: 0,
        }
    }

    fn draw(&self, document: &Document, view: &mut ViewState) -> image::RgbaImage {
        view.sync(document, 1);
        view.camera = self.camera;
        view.prepare_frame(document, 1, SIZE, SIZE);
        self.gl
            .render_queue(&view.scene.shared, SIZE, SIZE)
            .unwrap()
    }

    /// The incremental view's picture (without the selection).
    fn picture(&mut self) -> image::RgbaImage {
        for kind in ElementKind::ALL {
            self.document.selection.get_mut(kind).clear();
        }
        let mut view = std::mem::take(&mut self.view);
        let image = self.draw(&self.document, &mut view);
        self.view = view;
        image
    }

    /// A fresh load of the model as it is now: saved as PMX next to the textures, read back,
    /// drawn by a new view. Returns the picture and the textures it could not load.
    fn fresh(&self) -> (image::RgbaImage, Vec<String>) {
        let path = self.dir.join(format!("fresh{}.pmx", self.checks));
        formats::save_path(&self.document.model, &path, &SaveOptions::default()).unwrap();
        let loaded = formats::load_path(&path, &LoadOptions::default()).unwrap();
        let document = Document::from_loaded(path.clone(), loaded, None);
        let mut view = ViewState::default();
        view.layers = self.view.layers;
        let image = self.draw(&document, &mut view);
        std::fs::remove_file(&path).unwrap();
        let problems = view
            .scene
            .texture_problems
            .iter()
            .map(ToString::to_string)
            .collect();
        (image, problems)
    }

    fn check(&mut self, what: &str) -> image::RgbaImage {
        self.checks += 1;
        let incremental = self.picture();
        let (expected, problems) = self.fresh();
        let seen: Vec<String> = self
            .view
            .scene
            .texture_problems
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            seen, problems,
            "{} step {} ({what}): texture problems",
            self.name, self.checks
        );
        if incremental != expected {
            let keep = std::env::temp_dir().join(format!(
                "view_textures_{}_{}",
                self.name.replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
                self.checks
            ));
            std::fs::create_dir_all(&keep).unwrap();
            incremental.save(keep.join("incremental.png")).unwrap();
            expected.save(keep.join("fresh_load.png")).unwrap();
            let differing = incremental
                .pixels()
                .zip(expected.pixels())
                .filter(|(a, b)| a != b)
                .count();
            panic!(
                "{} step {} ({what}): {differing} pixels differ from a fresh load of the model: {}",
                self.name,
                self.checks,
                keep.display()
            );
        }
        incremental
    }

    /// Applies `ops` as one step, then undoes and redoes it, the view checked after each.
    /// Returns whether the step changed the picture.
    fn step(&mut self, what: &str, ops: Value) -> bool {
        let before = self.picture();
        let ops: Vec<EditOp> = serde_json::from_value(ops).expect("ops");
        let edit = ops_to_edit(&mut self.document.model, &ops)
            .unwrap_or_else(|e| panic!("{} {what}: {e}", self.name));
        self.document.apply(edit);
        let after = self.check(what);
        self.document.undo().unwrap();
        let undone = self.check(&format!("{what}, undone"));
        assert!(
            undone == before,
            "{} {what}: undo changed the picture",
            self.name
        );
        self.document.redo().unwrap();
        self.check(&format!("{what}, redone"));
        after != before
    }

    /// Undoes every step and redoes them again, the view checked after each.
    fn undo_and_redo_all(&mut self) {
        let mut n = 0;
        while self.document.undo().is_some() {
            n += 1;
            self.check(&format!("undo all, {n}"));
        }
        while self.document.redo().is_some() {
            n -= 1;
            self.check(&format!("redo all, {n} left"));
        }
    }
}

fn material_json(model: &Model, index: usize) -> Value {
    let mut value = serde_json::to_value(&model.materials[index]).unwrap();
    value["face_index_count"] = json!(0);
    value
}

/// The textured model with its vertices moved aside (so that merging it shows), its textures
/// listed in the other order, and one texture the document does not have.
fn model_to_merge(dir: &Path) -> PathBuf {
    let textured = pmx_core::generate::textured_model();
    let mut model = textured.model;
    for vertex in &mut model.vertices {
        vertex.position.x += 8.0;
    }
    let count = model.textures.len();
    model.textures.reverse();
    let flip = |t: &mut Option<TextureIdx>| {
        if let Some(index) = t {
            *index = TextureIdx::new(count - 1 - index.get());
        }
    };
    for material in &mut model.materials {
        flip(&mut material.texture);
        flip(&mut material.sphere_texture);
        if let pmx_core::model::Toon::Texture(toon) = &mut material.toon {
            flip(toon);
        }
    }
    model.textures.push("merged/extra.png".into());
    model.materials[0].texture = Some(TextureIdx::new(count));
    image::RgbaImage::from_fn(4, 4, |x, _| {
        image::Rgba(if x < 2 {
            [250, 250, 250, 255]
        } else {
            [200, 0, 40, 255]
        })
    })
    .save({
        std::fs::create_dir_all(dir.join("merged")).unwrap();
        dir.join("merged/extra.png")
    })
    .unwrap();
    let path = dir.join("merged.pmx");
    formats::save_path(&model, &path, &SaveOptions::default()).unwrap();
    path
}

#[test]
fn material_and_texture_edits_draw_as_a_fresh_load_textured_model() {
    with_offscreen(|gl| {
        let dir = tempfile::tempdir().unwrap();
        let textured = pmx_core::generate::textured_model();
        let path = textured.write(dir.path(), "textured.pmx").unwrap();
        let loaded = formats::load_path(&path, &LoadOptions::default()).unwrap();
        let document = Document::from_loaded(path, loaded, None);
        let mut session = Session::new(gl, "textured", document, dir.path());
        let first = session.check("first drawing");
        assert!(session.view.scene.texture_problems.is_empty());
        // The textures are in the picture: without them it is another one.
        let mut bare = session.document.model.clone();
        for material in &mut bare.materials {
            material.texture = None;
        }
        let bare_document = Document::from_model(bare, session.document.path.clone(), None);
        let mut bare_view = ViewState::default();
        bare_view.layers = session.view.layers;
        let untextured = session.draw(&bare_document, &mut bare_view);
        let differing = first
            .pixels()
            .zip(untextured.pixels())
            .filter(|(a, b)| a != b)
            .count();
        assert!(differing > 1000, "textures change {differing} pixels only");

        let merged = model_to_merge(dir.path());
        let hands = material_json(&session.document.model, 1);
        let mut face_on_hands = material_json(&session.document.model, 0);
        face_on_hands["name_ja"] = json!("手の上");
        // Each step stays applied for the next; indices are those of the model it leaves.
        let steps: Vec<(&str, Value, bool)> = vec![
            // The material drawn with the hands' texture, sphere and toon goes.
            (
                "delete the hands",
                json!([{"op": "delete", "kind": "material", "indices": [1]}]),
                true,
            ),
            // The left hand's front and outer side come back with the face texture.
            (
                "insert a material with the face texture on the left hand",
                json!([{"op": "insert", "kind": "material", "at": 1, "items": [face_on_hands], "faces": [[[24, 25, 26], [24, 26, 27], [36, 37, 38], [36, 38, 39]]]}]),
                true,
            ),
            // The right hand's front with the hands' texture, sphere and toon texture.
            (
                "insert the hands material at the start",
                json!([{"op": "insert", "kind": "material", "at": 0, "items": [hands], "faces": [[[48, 49, 50], [48, 50, 51]]]}]),
                true,
            ),
            // The face and the right limbs, with the vertices no other material uses.
            (
                "delete two materials and their vertices",
                json!([{"op": "delete", "kind": "material", "indices": [1, 5], "remove_unused_vertices": true}]),
                true,
            ),
            (
                "duplicate materials",
                json!([{"op": "duplicate", "kind": "material", "indices": [1, 3]}]),
                false,
            ),
            (
                "move materials",
                json!([{"op": "move", "kind": "material", "indices": [1], "to": 4}]),
                false,
            ),
            (
                "move materials by",
                json!([{"op": "move", "kind": "material", "indices": [0, 2], "by": 1}]),
                false,
            ),
            (
                "sort materials by name",
                json!([{"op": "sort", "kind": "material", "by": "name"}]),
                false,
            ),
            (
                "switch a material's texture",
                json!([{"op": "set", "kind": "material", "indices": [2], "field": "texture", "value": 1}]),
                false,
            ),
            // Textures renumbered under the materials.
            (
                "delete an unused texture",
                json!([{"op": "delete", "kind": "texture", "indices": [5]}]),
                false,
            ),
            (
                "delete a used texture",
                json!([{"op": "delete", "kind": "texture", "indices": [2]}]),
                false,
            ),
            (
                "insert a texture at the start",
                json!([{"op": "insert", "kind": "texture", "at": 0, "items": ["tex/torso.png"]}]),
                false,
            ),
            (
                "duplicate textures",
                json!([{"op": "duplicate", "kind": "texture", "indices": [1, 6]}]),
                false,
            ),
            (
                "move textures",
                json!([{"op": "move", "kind": "texture", "indices": [0, 8], "to": 3}]),
                false,
            ),
            (
                "sort textures by path",
                json!([{"op": "sort", "kind": "texture", "by": "name"}]),
                false,
            ),
            (
                "another file for a texture",
                json!([{"op": "set", "kind": "texture", "indices": [3], "field": "path", "value": "tex/hair.png"}]),
                false,
            ),
            // One step that renames a texture and deletes a material (a script's batch).
            (
                "a texture path and a material delete in one step",
                json!([
                    {"op": "set", "kind": "texture", "indices": [4], "field": "path", "value": "tex/face.png"},
                    {"op": "delete", "kind": "material", "indices": [0]}
                ]),
                false,
            ),
            (
                "merge a model sharing the textures in another order",
                json!([{"op": "merge", "path": merged}]),
                true,
            ),
        ];
        for (what, ops, visible) in steps {
            let changed = session.step(what, ops);
            if visible {
                assert!(
                    changed,
                    "{what}: the edit does not show (it would prove nothing)"
                );
            }
        }
        assert!(session.view.scene.texture_problems.is_empty());
        session.undo_and_redo_all();
    });
}

/// A corpus VRM imported as the editor imports it (its images unpacked for the view), edited;
/// the fresh loads get the images written beside the saved PMX.
fn vrm_session(gl: &Offscreen, file: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/vrm")
        .join(file);
    if !path.exists() {
        println!("skipped: {} is absent", path.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let loaded = formats::load_path(&path, &LoadOptions::default()).unwrap();
    let images: Vec<EmbeddedFile> = loaded.embedded_files.clone();
    assert!(!images.is_empty(), "{file}: no embedded images");
    formats::write_embedded_files(&images, dir.path(), false).unwrap();
    let document = Document::from_loaded(path.clone(), loaded, None);
    let materials = document.model.materials.len();
    let textures = document.model.textures.len();
    assert!(
        materials >= 2 && textures >= 2,
        "{file}: {materials} materials, {textures} textures"
    );
    let mut session = Session::new(gl, file, document, dir.path());
    session.check("first drawing");
    assert!(
        session.view.scene.texture_problems.is_empty(),
        "{file}: {:?}",
        session.view.scene.texture_problems
    );
    // The material with the most faces, so that its going shows.
    let largest = (0..materials)
        .max_by_key(|&i| session.document.model.materials[i].face_index_count)
        .unwrap();
    let steps = [
        json!([{"op": "delete", "kind": "material", "indices": [largest]}]),
        json!([{"op": "duplicate", "kind": "material", "indices": [0]}]),
        json!([{"op": "move", "kind": "material", "indices": [0], "to": materials - 1}]),
        json!([{"op": "sort", "kind": "material", "by": "name"}]),
        json!([{"op": "delete", "kind": "texture", "indices": [0]}]),
        json!([{"op": "insert", "kind": "texture", "at": 0, "items": ["none.png"]}]),
        json!([{"op": "move", "kind": "texture", "indices": [0], "to": textures - 1}]),
        json!([{"op": "sort", "kind": "texture", "by": "name"}]),
    ];
    for ops in steps {
        session.step(&ops.to_string(), ops);
    }
    session.undo_and_redo_all();
}

#[test]
fn material_and_texture_edits_draw_as_a_fresh_load_corpus_vrms() {
    with_offscreen(|gl| {
        for file in [
            "godette_vrm0_cc_by.vrm",
            "s06_mtoon1_vrm1.vrm",
            "vrmspec_mtoon_uv_animation_vrm1.vrm",
        ] {
            vrm_session(gl, file);
        }
    });
}
