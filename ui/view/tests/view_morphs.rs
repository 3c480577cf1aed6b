#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The 3D view draws a pose's UV and material morphs, as the window feeds them (the pose
//! pane's `PoseState` evaluated, its posed vertices, UVs and material states handed to the
//! view's scene): a material morph at 1 draws exactly what a fresh load of the model with
//! that material's values changed by the same arithmetic draws (multiply and add, colours,
//! edge, texture tints: the fresh load gets the tinted texture image), a material faded to
//! alpha 0 is not drawn, a UV morph at 1 draws the model with those UVs moved, and at 0 every
//! morph draws what a fresh load of the model draws. The document never changes.
//!
//! The model is `pmx_core::generate::textured_model` (its own PNG per material, so a tint or
//! UV on the wrong material shows). Offscreen through EGL (`libegl1 libegl-mesa0
//! libgl1-mesa-dri`); without it they print why and pass.

use pmx_core::formats::{self, LoadOptions, SaveOptions};
use pmx_core::generate::{TexturedModel, textured_model};
use pmx_core::model::{
    Material, MaterialIdx, MaterialMorphOffset, MaterialMorphOp, Model, Morph, MorphOffsets,
    MorphPanel, UvMorphOffset, Vec3, Vec4, VertexIdx,
};
use pmx_core::pose::{MaterialMorphState, MorphEvaluator, Skeleton, TextureTint};
use pmx_ui::document::Document;
use pmx_ui::panes::pose::PoseState;
use pmx_ui::panes::view::ViewState;
use pmx_ui::panes::view::camera::OrbitCamera;
use pmx_view::offscreen::{Offscreen, with_offscreen};
use std::path::Path;

const SIZE: u32 = 192;

/// The torso (multiply sphere, shared toon 3) and the face (shared toon 1, edge).
const TORSO: usize = 2;
const FACE: usize = 0;
const HAIR: usize = 5;

fn offset(material: usize, op: MaterialMorphOp) -> MaterialMorphOffset {
    // What changes nothing: 1 to multiply by, 0 to add.
    let base = if op == MaterialMorphOp::Multiply {
        1.0
    } else {
        0.0
    };
    MaterialMorphOffset {
        material: Some(MaterialIdx::new(material)),
        op,
        diffuse: Vec4::new(base, base, base, base),
        specular: Vec3::new(base, base, base),
        specular_power: base,
        ambient: Vec3::new(base, base, base),
        edge_color: Vec4::new(base, base, base, base),
        edge_size: base,
        texture_tint: Vec4::new(base, base, base, base),
        sphere_tint: Vec4::new(base, base, base, base),
        toon_tint: Vec4::new(base, base, base, base),
    }
}

fn morph(name: &str, offsets: MorphOffsets) -> Morph {
    Morph {
        name_ja: name.into(),
        name_en: name.into(),
        panel: MorphPanel::Other,
        offsets,
    }
}

/// The textured model with the morphs the tests show: 0 a multiply of the torso (colours and
/// texture tint), 1 an add to the face (colours, edge, texture tint), 2 the hair faded to
/// alpha 0, 3 a UV morph moving the torso's UVs by half the texture.
fn textured_with_morphs() -> TexturedModel {
    let mut textured = textured_model();
    let model = &mut textured.model;
    model.materials[FACE].draw_flags |= pmx_core::model::DrawFlags::EDGE;
    model.materials[FACE].edge_size = 1.0;
    let multiply = MaterialMorphOffset {
        diffuse: Vec4::new(0.5, 1.0, 0.75, 1.0),
        specular: Vec3::new(0.5, 0.5, 0.5),
        ambient: Vec3::new(1.5, 0.5, 1.0),
        texture_tint: Vec4::new(1.0, 0.4, 0.6, 1.0),
        ..offset(TORSO, MaterialMorphOp::Multiply)
    };
    let add = MaterialMorphOffset {
        diffuse: Vec4::new(-0.3, 0.1, 0.2, 0.0),
        ambient: Vec3::new(0.2, -0.1, 0.0),
        edge_color: Vec4::new(0.8, 0.1, 0.0, 0.5),
        edge_size: 1.5,
        // Tinted texels stay within 0..=1 (the fresh load's image cannot hold more).
        texture_tint: Vec4::new(0.0, 0.2, 0.4, 0.5),
        ..offset(FACE, MaterialMorphOp::Add)
    };
    let fade = MaterialMorphOffset {
        diffuse: Vec4::new(1.0, 1.0, 1.0, 0.0),
        ..offset(HAIR, MaterialMorphOp::Multiply)
    };
    let torso_uvs = vertices_of(model, TORSO)
        .into_iter()
        .map(|v| UvMorphOffset {
            vertex: VertexIdx(v),
            offset: Vec4::new(0.5, 0.25, 0.0, 0.0),
        })
        .collect();
    model.morphs = vec![
        morph("torso multiply", MorphOffsets::Material(vec![multiply])),
        morph("face add", MorphOffsets::Material(vec![add])),
        morph("hair fade", MorphOffsets::Material(vec![fade])),
        morph("torso UV", MorphOffsets::Uv(torso_uvs)),
    ];
    model.display_frames.clear();
    textured
}

/// The vertices the faces of `material` use (sorted, once each).
fn vertices_of(model: &Model, material: usize) -> Vec<u32> {
    let range = model.material_face_ranges()[material].clone();
    let mut vertices: Vec<u32> = model.faces[range].iter().flatten().map(|v| v.0).collect();
    vertices.sort_unstable();
    vertices.dedup();
    vertices
}

/// The textured model with its morphs, written into `dir`, opened as a document.
fn open(textured: &TexturedModel, dir: &Path, name: &str) -> Document {
    let path = textured.write(dir, name).unwrap();
    let loaded = formats::load_path(&path, &LoadOptions::default()).unwrap();
    Document::from_loaded(path, loaded, None)
}

/// A view of `document` drawn as the window draws it, with `pose`'s morphs fed to it as the
/// window feeds them (`None`: no pose, a fresh view).
fn draw(
    gl: &Offscreen,
    document: &Document,
    view: &mut ViewState,
    pose: Option<&mut PoseState>,
    camera: Option<OrbitCamera>,
) -> image::RgbaImage {
    view.layers.set_from_list("-grid").unwrap();
    view.sync(document, 1);
    if let Some(camera) = camera {
        view.camera = camera;
    }
    if let Some(pose) = pose {
        pose.sync(document, 1);
        pose.evaluate(&document.model);
        // The window's feed (`feed_pose_to_view`): posed vertices, UVs and material states.
        let model = &document.model;
        match pose.share_posed_vertices(None) {
            Some(posed) => {
                let posed = posed.get();
                view.scene
                    .upload_deformed(0, &posed.positions, &posed.normals);
            }
            None => {
                let positions: Vec<_> = model.vertices.iter().map(|v| v.position.into()).collect();
                let normals: Vec<_> = model.vertices.iter().map(|v| v.normal.into()).collect();
                view.scene.upload_deformed(0, &positions, &normals);
            }
        }
        view.scene.show_posed_uvs(model, pose.posed_uvs());
        view.scene
            .set_material_morphs(model, pose.posed_material_morphs());
    }
    view.prepare_frame(document, 1, SIZE, SIZE);
    gl.render_queue(&view.scene.shared, SIZE, SIZE).unwrap()
}

/// The most any channel of any pixel differs, and how many pixels differ at all.
fn difference(a: &image::RgbaImage, b: &image::RgbaImage) -> (u8, usize) {
    let mut most = 0;
    let mut pixels = 0;
    for (p, q) in a.pixels().zip(b.pixels()) {
        let channel =
            p.0.iter()
                .zip(q.0)
                .map(|(x, y)| x.abs_diff(y))
                .max()
                .unwrap();
        most = most.max(channel);
        pixels += usize::from(channel > 0);
    }
    (most, pixels)
}

fn assert_same(what: &str, shown: &image::RgbaImage, expected: &image::RgbaImage, tolerance: u8) {
    let (most, pixels) = difference(shown, expected);
    if most > tolerance {
        let keep = std::env::temp_dir().join(format!("view_morphs_{}", what.replace(' ', "_")));
        std::fs::create_dir_all(&keep).unwrap();
        shown.save(keep.join("shown.png")).unwrap();
        expected.save(keep.join("expected.png")).unwrap();
        panic!(
            "{what}: {pixels} pixels differ (by up to {most}) from the fresh load: {}",
            keep.display()
        );
    }
}

/// The state material morph `morph` at `value` leaves `material` in (the core's evaluation).
fn morph_state(model: &Model, morph: usize, value: f32, material: usize) -> MaterialMorphState {
    let mut evaluator = MorphEvaluator::new(model);
    let mut values = vec![0.0; model.morphs.len()];
    values[morph] = value;
    evaluator.evaluate(model, &values, &mut Skeleton::new(model));
    evaluator.materials()[material]
}

/// `textured` with `material`'s values changed as `state` changes them: the colours and edge
/// into the material, the texture tint into its image's pixels.
fn with_values(
    textured: &TexturedModel,
    material: usize,
    state: &MaterialMorphState,
) -> TexturedModel {
    let mut changed = textured.clone();
    changed.model.morphs.clear();
    let m: &mut Material = &mut changed.model.materials[material];
    let morphed = state.apply(m);
    m.diffuse = morphed.diffuse.into();
    m.specular = morphed.specular.into();
    m.specular_power = morphed.specular_power;
    m.ambient = morphed.ambient.into();
    m.edge_color = morphed.edge_color.into();
    m.edge_size = morphed.edge_size;
    let name = changed.model.textures[m.texture.unwrap().get()]
        .as_str()
        .to_string();
    let file = changed
        .files
        .iter_mut()
        .find(|f| f.path == name)
        .expect("the material's texture");
    file.bytes = tinted_png(&file.bytes, &morphed.texture);
    changed
}

fn tinted_png(png: &[u8], tint: &TextureTint) -> Vec<u8> {
    let mut image = image::load_from_memory(png).unwrap().to_rgba8();
    for pixel in image.pixels_mut() {
        let rgb = glam::Vec3::new(
            f32::from(pixel[0]),
            f32::from(pixel[1]),
            f32::from(pixel[2]),
        ) / 255.0;
        let tinted = tint.apply(rgb).clamp(glam::Vec3::ZERO, glam::Vec3::ONE) * 255.0;
        pixel.0 = [
            tinted.x.round() as u8,
            tinted.y.round() as u8,
            tinted.z.round() as u8,
            pixel[3],
        ];
    }
    let mut bytes = Vec::new();
    image
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .unwrap();
    bytes
}

/// A tinted texture goes through 8 bits once more in the fresh load (and its filtered texels
/// with it): a channel may differ by a step or two. Colours alone are exact.
const TINT_TOLERANCE: u8 = 3;

/// The textured model with its morphs opened, a view of it framed as a fresh load frames it,
/// a pose of it, and the picture of the model at rest.
struct Preview {
    dir: tempfile::TempDir,
    textured: TexturedModel,
    document: Document,
    view: ViewState,
    camera: OrbitCamera,
    pose: PoseState,
    rest: image::RgbaImage,
}

impl Preview {
    fn new(gl: &Offscreen) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let textured = textured_with_morphs();
        let document = open(&textured, dir.path(), "morphs.pmx");
        let mut view = ViewState::default();
        view.sync(&document, 1);
        view.frame_model(&document);
        let camera = view.camera;
        let rest = draw(gl, &document, &mut ViewState::default(), None, Some(camera));
        Self {
            dir,
            textured,
            document,
            view,
            camera,
            pose: PoseState::default(),
            rest,
        }
    }

    /// The view's picture with morph `morph` at `value`, fed as the window feeds it.
    fn show(&mut self, gl: &Offscreen, morph: usize, value: f32) -> image::RgbaImage {
        self.pose.sync(&self.document, 1);
        self.pose.set_morph(morph, value);
        let camera = Some(self.camera);
        draw(
            gl,
            &self.document,
            &mut self.view,
            Some(&mut self.pose),
            camera,
        )
    }

    /// A fresh load's picture of `model` (written into a folder of its own).
    fn fresh(&self, gl: &Offscreen, model: &TexturedModel) -> image::RgbaImage {
        let dir = tempfile::tempdir().unwrap();
        let document = open(model, dir.path(), "fresh.pmx");
        draw(
            gl,
            &document,
            &mut ViewState::default(),
            None,
            Some(self.camera),
        )
    }
}

#[test]
fn material_morphs_draw_as_a_fresh_load_of_the_changed_material() {
    with_offscreen(|gl| {
        let mut preview = Preview::new(gl);
        let bytes_before = std::fs::read(preview.dir.path().join("morphs.pmx")).unwrap();
        for (morph, material, what) in [
            (0, TORSO, "multiply torso"),
            (1, FACE, "add face"),
            (2, HAIR, "fade hair"),
        ] {
            let shown = preview.show(gl, morph, 1.0);
            assert_ne!(
                difference(&shown, &preview.rest).1,
                0,
                "{what}: nothing changed"
            );
            let state = morph_state(&preview.document.model, morph, 1.0, material);
            let expected = preview.fresh(gl, &with_values(&preview.textured, material, &state));
            assert_same(what, &shown, &expected, TINT_TOLERANCE);
            let drawn = |preview: &Preview| {
                let shared = preview.view.scene.shared.lock().unwrap();
                shared.frame.as_ref().unwrap().materials[material].visible
            };
            // Faded to alpha 0, the hair is not drawn at all (nor its edge).
            assert_eq!(drawn(&preview), material != HAIR, "{what}");
            // Back at 0: exactly a fresh load of the model.
            let back = preview.show(gl, morph, 0.0);
            assert_same(&format!("{what} back at 0"), &back, &preview.rest, 0);
            assert!(preview.view.scene.material_morphs().is_empty());
            assert!(drawn(&preview));
        }
        // Showing morphs never changed the document.
        let document = &preview.document;
        assert!(!document.is_dirty());
        let after = preview.dir.path().join("after.pmx");
        formats::save_path(&document.model, &after, &SaveOptions::default()).unwrap();
        assert_eq!(std::fs::read(after).unwrap(), bytes_before);
    });
}

#[test]
fn a_uv_morph_draws_the_model_with_those_uvs_moved() {
    with_offscreen(|gl| {
        let mut preview = Preview::new(gl);
        let shown = preview.show(gl, 3, 1.0);
        assert_ne!(
            difference(&shown, &preview.rest).1,
            0,
            "the UV morph changed nothing"
        );
        let mut moved = preview.textured.clone();
        moved.model.morphs.clear();
        for v in vertices_of(&moved.model, TORSO) {
            let uv = &mut moved.model.vertices[v as usize].uv;
            uv.x += 0.5;
            uv.y += 0.25;
        }
        assert_same("UV morph at 1", &shown, &preview.fresh(gl, &moved), 0);

        // Back at 0: the model's own UVs, exactly as a fresh load draws them.
        let back = preview.show(gl, 3, 0.0);
        assert_same("UV morph back at 0", &back, &preview.rest, 0);
        let uploaded = {
            let shared = preview.view.scene.shared.lock().unwrap();
            let gpu = shared.gpu.as_ref().unwrap();
            let gpu = gpu.downcast_ref::<pmx_view::gpu::GpuScene>().unwrap();
            let count = preview.document.model.vertices.len();
            gpu.read_vertices(0..count).unwrap().unwrap().uvs
        };
        let model = &preview.document.model;
        let model_uvs: Vec<[f32; 2]> = model.vertices.iter().map(|v| v.uv.to_array()).collect();
        assert_eq!(uploaded, model_uvs);
    });
}
