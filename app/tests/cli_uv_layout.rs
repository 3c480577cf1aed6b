//! `pmx-studio uv-layout`: the UV wireframe as a PNG. On the corpus Gene (when
//! ../shared/corpus is there) every face edge of the chosen material is drawn where its UVs put
//! it and nothing is drawn far from every edge; the test rasterises nothing of its own, it
//! samples edge midpoints and points more than 3 pixels from every edge. On the generated
//! textured model the layout lies over the material's texture at the default 2048×2048; bad
//! options exit non-zero with a message that names them.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::{self, LoadOptions, SaveOptions};
use pmx_core::generate::{sample_model, textured_model};
use pmx_core::model::Model;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn uv_layout<I: AsRef<OsStr>>(args: impl IntoIterator<Item = I>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .arg("uv-layout")
        .args(args)
        .output()
        .expect("pmx-studio runs")
}

fn succeeded(output: &Output) {
    assert!(
        output.status.success(),
        "uv-layout failed: {:?}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

fn read_png(path: &Path) -> image::RgbaImage {
    image::open(path).expect("a PNG").to_rgba8()
}

fn gene() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/pmx/pmxeditor_gene_cc_by.pmx");
    if path.is_file() {
        Some(path)
    } else {
        println!("skipped: corpus file {} is absent", path.display());
        None
    }
}

/// A point in pixels, x then y.
type Point = [f32; 2];

fn lerp(from: Point, to: Point, t: f32) -> Point {
    [
        from[0] + (to[0] - from[0]) * t,
        from[1] + (to[1] - from[1]) * t,
    ]
}

/// The face edges of `material`, in pixels of a `size`-pixel layout (UV × size), read from the
/// model as it is: one segment per face edge, shared edges twice.
fn face_edges(model: &Model, material: usize, size: f32) -> Vec<(Point, Point)> {
    let range = model.material_face_ranges()[material].clone();
    let uv = |vertex: u32| {
        model
            .vertices
            .get(vertex as usize)
            .map(|v| [v.uv.x * size, v.uv.y * size])
    };
    let mut edges = Vec::new();
    for face in &model.faces[range] {
        let [a, b, c] = face.map(|v| v.0);
        if let (Some(a), Some(b), Some(c)) = (uv(a), uv(b), uv(c)) {
            edges.extend([(a, b), (b, c), (c, a)]);
        }
    }
    edges
}

fn inside(point: Point, size: f32) -> bool {
    point.iter().all(|value| (0.0..=size).contains(value))
}

fn distance_to_segment(point: Point, (from, to): (Point, Point)) -> f32 {
    let delta = [to[0] - from[0], to[1] - from[1]];
    let length_squared = delta[0] * delta[0] + delta[1] * delta[1];
    let along = if length_squared > 0.0 {
        (((point[0] - from[0]) * delta[0] + (point[1] - from[1]) * delta[1]) / length_squared)
            .clamp(0.0, 1.0)
    } else {
        0.0
    };
    let nearest = lerp(from, to, along);
    (point[0] - nearest[0]).hypot(point[1] - nearest[1])
}

/// Whether a pixel at or next to `point` (within 1 pixel) is drawn.
fn drawn_near(image: &image::RgbaImage, point: Point) -> bool {
    let (x, y) = (point[0].floor() as i64, point[1].floor() as i64);
    (-1..=1).any(|dy| {
        (-1..=1).any(|dx| {
            let (px, py) = (x + dx, y + dy);
            px >= 0
                && py >= 0
                && image
                    .get_pixel_checked(px as u32, py as u32)
                    .is_some_and(|pixel| pixel[3] > 0)
        })
    })
}

#[test]
fn every_edge_of_a_gene_material_is_drawn_and_nothing_far_from_them() {
    let Some(gene) = gene() else { return };
    let model = formats::load_path(&gene, &LoadOptions::default())
        .unwrap()
        .model;
    // Gene's UVs run outside 0–1 in many materials (tiled textures): the material with the
    // most edges wholly inside, where most can be checked.
    let inside_edges = |material: usize| {
        face_edges(&model, material, 1.0)
            .iter()
            .filter(|(from, to)| inside(*from, 1.0) && inside(*to, 1.0))
            .count()
    };
    let material = (0..model.materials.len())
        .max_by_key(|&m| inside_edges(m))
        .expect("Gene has materials");
    println!(
        "material {material} ({}): {} of {} face edges inside 0–1",
        model.materials[material].name_ja,
        inside_edges(material),
        face_edges(&model, material, 1.0).len()
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("layout.png");
    let output = uv_layout([
        gene.as_os_str(),
        out.as_os_str(),
        OsStr::new("--material"),
        OsStr::new(&material.to_string()),
        OsStr::new("--size"),
        OsStr::new("1024"),
    ]);
    succeeded(&output);
    let image = read_png(&out);
    assert_eq!(image.dimensions(), (1024, 1024));

    let size = 1024.0;
    let edges = face_edges(&model, material, size);
    let mut checked = 0;
    for &(from, to) in &edges {
        // Clipped edges are skipped: only edges wholly inside 0–1 are sure to show their middle.
        if !(inside(from, size) && inside(to, size)) {
            continue;
        }
        let middle = lerp(from, to, 0.5);
        assert!(
            drawn_near(&image, middle),
            "the edge {from:?}–{to:?} of material {material} is not drawn at {middle:?}"
        );
        checked += 1;
    }
    assert!(checked > 100, "only {checked} edges checked");

    // Points on an 8-pixel grid more than 3 pixels from every edge; the edges binned into
    // 64-pixel cells, each with the edges that pass within 4 pixels of it.
    const CELL: f32 = 64.0;
    let cells = (size / CELL) as usize;
    let mut binned: Vec<Vec<(Point, Point)>> = vec![Vec::new(); cells * cells];
    for &(from, to) in &edges {
        let low = [from[0].min(to[0]) - 4.0, from[1].min(to[1]) - 4.0];
        let high = [from[0].max(to[0]) + 4.0, from[1].max(to[1]) + 4.0];
        let cell_range = |low: f32, high: f32| {
            let first = (low / CELL).floor().max(0.0) as usize;
            let last = ((high / CELL).floor().max(-1.0) as usize).min(cells - 1);
            first..=last
        };
        if !from.iter().chain(&to).all(|value| value.is_finite()) || high[0] < 0.0 || high[1] < 0.0
        {
            continue;
        }
        for cy in cell_range(low[1], high[1]) {
            for cx in cell_range(low[0], high[0]) {
                binned[cy * cells + cx].push((from, to));
            }
        }
    }
    let mut far = 0;
    for y in (4..1024).step_by(8) {
        for x in (4..1024).step_by(8) {
            let point = [x as f32 + 0.5, y as f32 + 0.5];
            let cell = &binned[(y / 64) * cells + x / 64];
            if cell
                .iter()
                .all(|&edge| distance_to_segment(point, edge) > 3.0)
            {
                assert_eq!(
                    image.get_pixel(x as u32, y as u32)[3],
                    0,
                    "({x}, {y}) is far from every edge but drawn"
                );
                far += 1;
            }
        }
    }
    assert!(far > 1_000, "only {far} far points sampled");
}

#[test]
fn the_layout_lies_over_the_texture_at_2048_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let textured = textured_model();
    let input = textured.write(dir.path(), "textured.pmx").unwrap();
    let out = dir.path().join("torso.png");
    // By Japanese name: 胴 draws tex/torso.png, blue with light quadrants.
    succeeded(&uv_layout([
        input.as_os_str(),
        out.as_os_str(),
        OsStr::new("--material"),
        OsStr::new("胴"),
        OsStr::new("--texture"),
    ]));
    let image = read_png(&out);
    assert_eq!(image.dimensions(), (2048, 2048));
    assert!(image.pixels().all(|pixel| pixel[3] == 255), "opaque");
    let count = |rgb: [u8; 3]| image.pixels().filter(|p| p.0[..3] == rgb).count();
    let (main, second) = (count([40, 80, 230]), count([200, 210, 255]));
    assert!(
        main > 1_000_000 && second > 1_000_000,
        "texture tones: {main} and {second} pixels"
    );
    let lines = count([0, 0, 0]);
    assert!(lines > 0, "no line drawn over the texture");

    // By English name, without --texture: the same lines on transparency.
    let bare = dir.path().join("bare.png");
    succeeded(&uv_layout([
        input.as_os_str(),
        bare.as_os_str(),
        OsStr::new("--material"),
        OsStr::new("torso"),
    ]));
    let bare = read_png(&bare);
    for (over, alone) in image.pixels().zip(bare.pixels()) {
        if alone[3] == 255 {
            assert_eq!(over.0, [0, 0, 0, 255]);
        }
    }
    assert_eq!(
        bare.pixels().filter(|p| p[3] == 255).count(),
        lines,
        "the fully covered pixels are the same"
    );
}

#[test]
fn bad_options_exit_non_zero_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("sample.pmx");
    formats::save_path(&sample_model(), &input, &SaveOptions::default()).unwrap();
    let out = dir.path().join("out.png");
    let refused = |extra: &[&str], expected: &str| {
        let mut args: Vec<&OsStr> = vec![input.as_os_str(), out.as_os_str()];
        args.extend(extra.iter().map(OsStr::new));
        let output = uv_layout(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{extra:?} succeeded");
        assert!(
            stderr.contains(expected),
            "{extra:?}: {expected:?} not in:\n{stderr}"
        );
        assert!(!out.exists(), "{extra:?} wrote the PNG");
    };
    refused(&["--channel", "1"], "--channel 1");
    refused(&["--channel", "5"], "--channel");
    refused(&["--material", "そんな材質"], "そんな材質");
    refused(&["--material", "999"], "--material 999");
    refused(&["--size", "8"], "--size");
    refused(&["--size", "20000"], "--size");
    refused(&["--line-width", "0"], "line width");
    refused(&["--texture"], "has no texture");
    // The sample with its defaults writes a 2048×2048 layout.
    succeeded(&uv_layout([input.as_os_str(), out.as_os_str()]));
    assert_eq!(read_png(&out).dimensions(), (2048, 2048));
}
