#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Image tests of the 3D view's renderer: small models built in code, drawn offscreen (EGL,
//! no X server) by the same `GpuShared::paint` the window uses, compared with the PNGs in
//! `tests/golden/` within a tolerance. Without a usable EGL/GL 3.3 they print why and pass.
//!
//! Needs `libegl1 libegl-mesa0 libgl1-mesa-dri` (Mesa's software renderer is enough).
//! Regenerate the golden images with `PMX_STUDIO_UPDATE_GOLDEN=1 cargo test -p pmx_view --test view_render`.

use pmx_core::model::{
    DrawFlags, Material, Model, PmxVersion, SphereMode, Text, TextureIdx, Toon, Vec2, Vec3, Vec4,
    Vertex, VertexIdx,
};
use pmx_ui::document::Document;
use pmx_ui::panes::view::ViewState;
use pmx_ui::panes::view::camera::OrbitCamera;
use pmx_view::offscreen::{Offscreen, with_offscreen};
use std::path::{Path, PathBuf};

const SIZE: u32 = 128;

/// Draws `model` (its textures next to `dir`) with `setup` applied to the view state.
fn render(
    offscreen: &Offscreen,
    model: Model,
    dir: Option<&Path>,
    setup: impl FnOnce(&mut ViewState),
) -> image::RgbaImage {
    let path = dir.map(|d| d.join("model.pmx"));
    let document = Document::from_model(model, path, None);
    let mut view = ViewState::default();
    view.layers.grid = false;
    setup(&mut view);
    view.prepare_frame(&document, 1, SIZE, SIZE);
    let image = offscreen
        .render_queue(&view.scene.shared, SIZE, SIZE)
        .unwrap();
    if let Some(dir) = std::env::var_os("PMX_STUDIO_RENDER_DEBUG") {
        let n = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
        image
            .save(Path::new(&dir).join(format!("render{n}.png")))
            .unwrap();
    }
    image
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compares with the stored image: at most 1 % of pixels may differ by more than 24 in any
/// channel (software rasterisers differ in edge coverage and rounding).
fn check_golden(name: &str, image: &image::RgbaImage) {
    let path = golden_dir().join(format!("{name}.png"));
    if std::env::var_os("PMX_STUDIO_UPDATE_GOLDEN").is_some() || !path.exists() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        image.save(&path).unwrap();
        println!("wrote {}", path.display());
        return;
    }
    let golden = image::open(&path).unwrap().to_rgba8();
    assert_eq!(golden.dimensions(), image.dimensions());
    let differing = golden
        .pixels()
        .zip(image.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0.iter()).any(|(x, y)| x.abs_diff(*y) > 24))
        .count();
    let allowed = (SIZE * SIZE) as usize / 100;
    if differing > allowed {
        let actual = std::env::temp_dir().join(format!("{name}-actual.png"));
        image.save(&actual).unwrap();
        panic!(
            "{name}: {differing} pixels differ (allowed {allowed}); this run: {}",
            actual.display()
        );
    }
}

fn vertex(x: f32, y: f32, z: f32, normal: Vec3, u: f32, v: f32) -> Vertex {
    Vertex {
        position: Vec3::new(x, y, z),
        normal,
        uv: Vec2::new(u, v),
        ..Vertex::default()
    }
}

/// A material lit to exactly its texture: ambient 0.4 + diffuse 1 × light 0.6 = 1.
fn plain_material(faces: usize) -> Material {
    Material {
        name_ja: Text::from("mat"),
        diffuse: Vec4::new(1.0, 1.0, 1.0, 1.0),
        ambient: Vec3::new(0.4, 0.4, 0.4),
        specular: Vec3::ZERO,
        specular_power: 0.0,
        face_index_count: (faces * 3) as u32,
        ..Material::default()
    }
}

/// A 2×2-unit quad facing the camera (PMX front faces are clockwise as seen from the front).
fn quad_model() -> Model {
    let mut model = Model::new_empty();
    let n = Vec3::new(0.0, 0.0, -1.0);
    model.vertices = vec![
        vertex(-1.0, 1.0, 0.0, n, 0.0, 0.0),
        vertex(1.0, 1.0, 0.0, n, 1.0, 0.0),
        vertex(1.0, -1.0, 0.0, n, 1.0, 1.0),
        vertex(-1.0, -1.0, 0.0, n, 0.0, 1.0),
    ];
    model.faces = vec![
        [VertexIdx(0), VertexIdx(1), VertexIdx(2)],
        [VertexIdx(0), VertexIdx(2), VertexIdx(3)],
    ];
    model.materials = vec![plain_material(2)];
    model
}

fn sphere_model(
    rings: usize,
    segments: usize,
    radius: f32,
    center: Vec3,
) -> (Vec<Vertex>, Vec<[VertexIdx; 3]>) {
    use std::f32::consts::{PI, TAU};
    let mut vertices = Vec::new();
    for ring in 0..=rings {
        for segment in 0..=segments {
            let theta = PI * ring as f32 / rings as f32;
            let phi = TAU * segment as f32 / segments as f32;
            let n = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            vertices.push(vertex(
                center.x + n.x * radius,
                center.y + n.y * radius,
                center.z + n.z * radius,
                n,
                segment as f32 / segments as f32,
                ring as f32 / rings as f32,
            ));
        }
    }
    let mut faces = Vec::new();
    let row = segments + 1;
    for ring in 0..rings {
        for segment in 0..segments {
            let a = (ring * row + segment) as u32;
            let b = a + 1;
            let c = a + row as u32;
            let d = c + 1;
            // Clockwise seen from outside (PMX's front).
            faces.push([VertexIdx(a), VertexIdx(b), VertexIdx(d)]);
            faces.push([VertexIdx(a), VertexIdx(d), VertexIdx(c)]);
        }
    }
    (vertices, faces)
}

fn camera_at(view: &mut ViewState, target: glam::Vec3, distance: f32) {
    view.camera = OrbitCamera {
        target,
        distance,
        ..OrbitCamera::default()
    };
}

fn write_png(path: &Path, width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u8; 4]) {
    let image = image::RgbaImage::from_fn(width, height, |x, y| image::Rgba(pixel(x, y)));
    image
        .save_with_format(path, image::ImageFormat::Png)
        .unwrap();
}

#[test]
fn textured_quad() {
    with_offscreen(|gl| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("Tex")).unwrap();
        // Quadrants: red, green / blue, white (a Japanese name in a folder of another case).
        write_png(&dir.path().join("Tex/四色.png"), 64, 64, |x, y| {
            match (x / 32, y / 32) {
                (0, 0) => [255, 0, 0, 255],
                (1, 0) => [0, 255, 0, 255],
                (0, 1) => [0, 0, 255, 255],
                _ => [255, 255, 255, 255],
            }
        });
        let mut model = quad_model();
        model.textures = vec![Text::from("tex\\四色.png"), Text::from("missing.bmp")];
        model.materials[0].texture = Some(TextureIdx::new(0));
        let image = render(gl, model.clone(), Some(dir.path()), |view| {
            camera_at(view, glam::Vec3::ZERO, 4.0);
        });
        // Each quadrant's colour where the texture has it (PMX's v = 0 is the image's top).
        let at = |x: u32, y: u32| image.get_pixel(x, y).0;
        let quarter = SIZE / 2 - 20;
        let three_quarters = SIZE / 2 + 20;
        assert_eq!(at(quarter, quarter), [255, 0, 0, 255]);
        assert_eq!(at(three_quarters, quarter), [0, 255, 0, 255]);
        assert_eq!(at(quarter, three_quarters), [0, 0, 255, 255]);
        assert_eq!(at(three_quarters, three_quarters), [255, 255, 255, 255]);
        // The background around the quad.
        assert_eq!(at(2, 2), [235, 235, 240, 255]);
        check_golden("textured_quad", &image);
        // A missing texture is the magenta placeholder, not a crash.
        model.materials[0].texture = Some(TextureIdx::new(1));
        let image = render(gl, model, Some(dir.path()), |view| {
            camera_at(view, glam::Vec3::ZERO, 4.0)
        });
        let centre = image.get_pixel(SIZE / 2 - 10, SIZE / 2 - 10).0;
        assert!(
            centre == [255, 0, 255, 255] || centre == [0, 0, 0, 255],
            "{centre:?}"
        );
        check_golden("missing_texture", &image);
    });
}

#[test]
fn sphere_maps_multiply_and_add() {
    with_offscreen(|gl| {
        let dir = tempfile::tempdir().unwrap();
        // A sphere map: light at the top, dark at the bottom; saved as BMP named .spa/.sph.
        let sphere = |path: &Path| {
            let image = image::RgbImage::from_fn(16, 16, |_, y| {
                let v = 255 - (y * 255 / 15) as u8;
                image::Rgb([v, v, v / 2])
            });
            let mut bytes = Vec::new();
            image
                .write_to(
                    &mut std::io::Cursor::new(&mut bytes),
                    image::ImageFormat::Bmp,
                )
                .unwrap();
            std::fs::write(path, bytes).unwrap();
        };
        sphere(&dir.path().join("metal.sph"));
        sphere(&dir.path().join("glow.spa"));
        let mut model = Model::new_empty();
        let (v1, f1) = sphere_model(12, 24, 1.0, Vec3::new(-1.2, 0.0, 0.0));
        let (v2, f2) = sphere_model(12, 24, 1.0, Vec3::new(1.2, 0.0, 0.0));
        let offset = v1.len() as u32;
        model.vertices = v1.into_iter().chain(v2).collect();
        model.faces = f1
            .iter()
            .copied()
            .chain(f2.iter().map(|f| f.map(|v| VertexIdx(v.0 + offset))))
            .collect();
        model.textures = vec![Text::from("metal.sph"), Text::from("glow.spa")];
        let mut multiply = plain_material(f1.len());
        multiply.diffuse = Vec4::new(0.6, 0.6, 1.0, 1.0);
        multiply.ambient = Vec3::new(0.3, 0.3, 0.3);
        multiply.sphere_texture = Some(TextureIdx::new(0));
        multiply.sphere_mode = SphereMode::Multiply;
        multiply.toon = Toon::Shared(1);
        let mut add = plain_material(f2.len());
        add.diffuse = Vec4::new(0.2, 0.2, 0.5, 1.0);
        add.ambient = Vec3::new(0.1, 0.1, 0.2);
        add.specular = Vec3::new(0.5, 0.5, 0.5);
        add.specular_power = 20.0;
        add.sphere_texture = Some(TextureIdx::new(1));
        add.sphere_mode = SphereMode::Add;
        model.materials = vec![multiply, add];
        let image = render(gl, model, Some(dir.path()), |view| {
            camera_at(view, glam::Vec3::ZERO, 7.0)
        });
        // Multiply: the top of the left sphere is brighter than its bottom.
        let left_top = image.get_pixel(SIZE / 2 - 22, SIZE / 2 - 14).0;
        let left_bottom = image.get_pixel(SIZE / 2 - 22, SIZE / 2 + 14).0;
        assert!(
            left_top[0] > left_bottom[0].saturating_add(40),
            "{left_top:?} {left_bottom:?}"
        );
        // Add: the right sphere's centre is lighter than its material colour alone.
        let right = image.get_pixel(SIZE / 2 + 22, SIZE / 2).0;
        assert!(right[0] > 120, "{right:?}");
        check_golden("sphere_maps", &image);
    });
}

#[test]
fn edge_outline() {
    with_offscreen(|gl| {
        let mut model = Model::new_empty();
        let (vertices, faces) = sphere_model(12, 24, 1.0, Vec3::ZERO);
        model.vertices = vertices;
        let mut material = plain_material(faces.len());
        material.diffuse = Vec4::new(0.6, 0.6, 0.6, 1.0);
        material.draw_flags |= DrawFlags::EDGE;
        material.edge_color = Vec4::new(1.0, 0.0, 0.0, 1.0);
        material.edge_size = 3.0;
        model.faces = faces;
        model.materials = vec![material];
        let image = render(gl, model, None, |view| {
            camera_at(view, glam::Vec3::ZERO, 6.0)
        });
        // Scan the middle row from the left: background, then red edge, then the grey sphere.
        let row: Vec<[u8; 4]> = (0..SIZE).map(|x| image.get_pixel(x, SIZE / 2).0).collect();
        let first_red = row
            .iter()
            .position(|p| p[0] > 200 && p[1] < 60)
            .expect("an edge");
        let first_grey = row
            .iter()
            .position(|p| p[0] < 220 && p[0].abs_diff(p[1]) < 10 && p[0] > 100)
            .expect("the sphere");
        assert!(first_red < first_grey, "{first_red} {first_grey}");
        assert!(
            (2..=5).contains(&(first_grey - first_red)),
            "edge {} px",
            first_grey - first_red
        );
        check_golden("edge_outline", &image);
    });
}

#[test]
fn point_and_line_modes() {
    with_offscreen(|gl| {
        let mut model = quad_model();
        model.header.version = PmxVersion::V2_1;
        // A second quad beside the first, drawn as lines; the first as points.
        let moved: Vec<Vertex> = model
            .vertices
            .iter()
            .map(|v| {
                let mut v = v.clone();
                v.position.x += 2.5;
                v
            })
            .collect();
        model.vertices.extend(moved);
        model.faces.push([VertexIdx(4), VertexIdx(5), VertexIdx(6)]);
        model.faces.push([VertexIdx(4), VertexIdx(6), VertexIdx(7)]);
        let mut points = plain_material(2);
        points.draw_flags |= DrawFlags::POINT;
        points.diffuse = Vec4::new(0.0, 0.0, 0.0, 1.0);
        points.ambient = Vec3::new(0.0, 0.0, 0.8);
        points.edge_size = 6.0;
        let mut lines = plain_material(2);
        lines.draw_flags |= DrawFlags::LINE;
        lines.diffuse = Vec4::new(0.0, 0.0, 0.0, 1.0);
        lines.ambient = Vec3::new(0.8, 0.0, 0.0);
        model.materials = vec![points, lines];
        let image = render(gl, model, None, |view| {
            camera_at(view, glam::Vec3::new(1.25, 0.0, 0.0), 8.0)
        });
        let count = |pred: &dyn Fn([u8; 4]) -> bool| image.pixels().filter(|p| pred(p.0)).count();
        let blue = count(&|p| p[2] > 150 && p[0] < 60);
        let red = count(&|p| p[0] > 150 && p[2] < 60 && p[1] < 60);
        // Four 6-pixel points; five 1-pixel lines about 30 pixels long.
        assert!((4 * 16..=4 * 40).contains(&blue), "blue {blue}");
        assert!((100..=400).contains(&red), "red {red}");
        // The quad's middle is not filled.
        let middle = image.get_pixel(SIZE / 2 - 20, SIZE / 2 + 3).0;
        assert_eq!(middle, [235, 235, 240, 255]);
        check_golden("point_line_modes", &image);
    });
}
