//! 法線の再計算 on cubes whose normals are known exactly and on Gene: face normals where the
//! angle keeps the edges sharp, the averaged corner normal where it does not, per material or
//! across, only the vertices asked for, and nothing left to do on a second run.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::Model;
use pmx_core::model::{ElementKind, Material, Vec3, Vertex, VertexIdx};
use pmx_plugins::{Options, PluginError, PluginSelection, Registry, run_plugin};
use pmx_tests::{corpus_model, run_tool};
use serde_json::json;

/// The six sides of the unit cube: outward normal and two axes with `u × v = normal`.
const SIDES: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
    ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
    ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
    ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
    ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
    ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ([0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]),
];

fn v(a: [f32; 3]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

/// A cube of side 2 around the origin, each side its own 4 vertices (split at every edge, as
/// a UV-mapped cube is), two triangles per side wound outward. `side_materials[k]` is how many
/// sides material k draws, in order. Every normal starts as +Y.
fn split_cube(side_materials: &[usize]) -> Model {
    let mut model = Model::new_empty();
    for (normal, u, w) in SIDES {
        let base = model.vertices.len() as u32;
        for (s, t) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let position = [0, 1, 2].map(|i| normal[i] + s * u[i] + t * w[i]);
            model.vertices.push(Vertex {
                position: v(position),
                normal: Vec3::new(0.0, 1.0, 0.0),
                ..Vertex::default()
            });
        }
        let corner = |k: u32| VertexIdx(base + k);
        model.faces.push([corner(0), corner(1), corner(2)]);
        model.faces.push([corner(0), corner(2), corner(3)]);
    }
    for (k, &sides) in side_materials.iter().enumerate() {
        model.materials.push(Material {
            name_ja: format!("材質{k}").into(),
            face_index_count: 6 * sides as u32,
            ..Material::default()
        });
    }
    model
}

fn unit(x: f64, y: f64, z: f64) -> Vec3 {
    let length = (x * x + y * y + z * z).sqrt();
    Vec3::new(
        (x / length) as f32,
        (y / length) as f32,
        (z / length) as f32,
    )
}

fn sign(value: f32) -> f64 {
    if value < 0.0 { -1.0 } else { 1.0 }
}

#[test]
fn a_split_cube_keeps_its_edges_at_30_degrees_and_rounds_its_corners_at_100() {
    let model = split_cube(&[6]);
    let sharp = run_tool(
        "recompute_normals",
        &model,
        &PluginSelection::new(),
        &json!({"angle": 30}),
    );
    assert_eq!(sharp.label_en, "Recompute normals");
    assert_eq!(sharp.label_ja, "法線の再計算");
    // The four vertices of the top side already had +Y.
    assert_eq!(
        sharp.notes[0],
        "20 normals recomputed of all 24 vertices (4 already right)"
    );
    for (k, vertex) in sharp.after.vertices.iter().enumerate() {
        assert_eq!(vertex.normal, v(SIDES[k / 4].0), "vertex {k}");
    }
    let round = run_tool(
        "recompute_normals",
        &model,
        &PluginSelection::new(),
        &json!({"angle": 100}),
    );
    for (k, vertex) in round.after.vertices.iter().enumerate() {
        let p = vertex.position;
        assert_eq!(
            vertex.normal,
            unit(sign(p.x), sign(p.y), sign(p.z)),
            "vertex {k} at {p:?}"
        );
    }
    // At 90° exactly the neighbouring sides are within the angle.
    let at_90 = run_tool(
        "recompute_normals",
        &model,
        &PluginSelection::new(),
        &json!({"angle": 90}),
    );
    assert_eq!(at_90.after.vertices, round.after.vertices);
}

#[test]
fn a_cube_of_shared_vertices_is_averaged_whatever_the_angle() {
    // 8 corners, each shared by three sides: a vertex has one normal, so its faces always count.
    let split = split_cube(&[6]);
    let mut model = Model::new_empty();
    let mut index_of = std::collections::HashMap::new();
    for vertex in &split.vertices {
        let key = vertex.position.to_array().map(f32::to_bits);
        index_of.entry(key).or_insert_with(|| {
            model.vertices.push(vertex.clone());
            model.vertices.len() as u32 - 1
        });
    }
    model.faces = split
        .faces
        .iter()
        .map(|face| {
            face.map(|corner| {
                let p = split.vertices[corner.get()].position.to_array();
                VertexIdx(index_of[&p.map(f32::to_bits)])
            })
        })
        .collect();
    model.materials = split.materials.clone();
    let outcome = run_tool(
        "recompute_normals",
        &model,
        &PluginSelection::new(),
        &json!({"angle": 0}),
    );
    assert_eq!(outcome.after.vertices.len(), 8);
    for vertex in &outcome.after.vertices {
        let p = vertex.position;
        assert_eq!(vertex.normal, unit(sign(p.x), sign(p.y), sign(p.z)));
    }
}

#[test]
fn per_material_scope_never_averages_in_another_materials_sides() {
    // Material 0 draws ±X and ±Y, material 1 draws ±Z.
    let model = split_cube(&[4, 2]);
    let per_material = run_tool(
        "recompute_normals",
        &model,
        &PluginSelection::new(),
        &json!({"angle": 100}),
    );
    let across = run_tool(
        "recompute_normals",
        &model,
        &PluginSelection::new(),
        &json!({"angle": 100, "scope": "all"}),
    );
    for (k, (vertex, whole)) in per_material
        .after
        .vertices
        .iter()
        .zip(&across.after.vertices)
        .enumerate()
    {
        let p = vertex.position;
        let expected = if k < 16 {
            // ±X, ±Y sides: their corner meets one X and one Y side of material 0.
            unit(sign(p.x), sign(p.y), 0.0)
        } else {
            v(SIDES[k / 4].0)
        };
        assert_eq!(vertex.normal, expected, "vertex {k}");
        assert_eq!(whole.normal, unit(sign(p.x), sign(p.y), sign(p.z)));
    }
    // Only the vertices of the selected material change.
    let selection = PluginSelection::new().with(ElementKind::Material, vec![1]);
    let only_z = run_tool(
        "recompute_normals",
        &model,
        &selection,
        &json!({"angle": 100}),
    );
    assert_eq!(
        only_z.notes[0],
        "8 normals recomputed of 8 vertices of the selected materials (0 already right)"
    );
    assert_eq!(only_z.after.vertices[..16], model.vertices[..16]);
    // Selected vertices win over selected materials.
    let selection = selection.with(ElementKind::Vertex, vec![0]);
    let one = run_tool(
        "recompute_normals",
        &model,
        &selection,
        &json!({"angle": 30}),
    );
    assert_eq!(one.after.vertices[0].normal, Vec3::new(1.0, 0.0, 0.0));
    assert_eq!(one.after.vertices[1..], model.vertices[1..]);
}

#[test]
fn vertices_without_faces_and_degenerate_faces_are_left_alone() {
    let mut model = split_cube(&[6]);
    // A lone vertex, and a degenerate face on three vertices at one point.
    for _ in 0..4 {
        model.vertices.push(Vertex {
            position: Vec3::new(5.0, 5.0, 5.0),
            normal: Vec3::new(0.0, 0.0, 1.0),
            ..Vertex::default()
        });
    }
    model
        .faces
        .push([VertexIdx(25), VertexIdx(26), VertexIdx(27)]);
    model.materials[0].face_index_count += 3;
    let outcome = run_tool(
        "recompute_normals",
        &model,
        &PluginSelection::new(),
        &json!({"angle": 30}),
    );
    assert_eq!(
        outcome.notes[..2],
        [
            "20 normals recomputed of all 28 vertices (4 already right)".to_owned(),
            "4 vertices use no face and kept their normals".to_owned(),
        ]
    );
    assert_eq!(outcome.after.vertices[24..], model.vertices[24..]);
}

#[test]
fn options_are_checked_and_a_second_run_has_nothing_to_do() {
    let registry = Registry::builtin();
    let plugin = registry.find("recompute_normals").unwrap();
    let specs = plugin.info().options;
    assert!(Options::from_json(&specs, &json!({"angle": 181})).is_err());
    assert!(Options::from_json(&specs, &json!({"scope": "bones"})).is_err());
    let defaults = Options::defaults(&specs);
    assert_eq!(defaults.number("angle"), 59.5);
    assert_eq!(defaults.text("scope"), "material");
    let mut model = split_cube(&[6]);
    let mut run = run_plugin(
        plugin.as_ref(),
        &mut model,
        &PluginSelection::new(),
        &defaults,
    )
    .unwrap();
    run.edit.apply(&mut model);
    let again = run_plugin(
        plugin.as_ref(),
        &mut model,
        &PluginSelection::new(),
        &defaults,
    );
    assert!(matches!(again, Err(PluginError::NoChange)), "{again:?}");
    // An empty model is refused with a reason, not a panic.
    let error = run_plugin(
        plugin.as_ref(),
        &mut Model::new_empty(),
        &PluginSelection::new(),
        &defaults,
    )
    .unwrap_err();
    assert!(matches!(error, PluginError::Refused { .. }), "{error}");
}

/// The angle-weighted average of the faces around each vertex, computed here on its own.
fn angle_weighted_normals(model: &Model) -> Vec<[f64; 3]> {
    let mut sums = vec![[0.0f64; 3]; model.vertices.len()];
    for face in &model.faces {
        let p = face.map(|c| model.vertices[c.get()].position.to_array().map(f64::from));
        let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        let cross = |a: [f64; 3], b: [f64; 3]| {
            [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ]
        };
        let length = |a: [f64; 3]| (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        let n = cross(sub(p[1], p[0]), sub(p[2], p[0]));
        if length(n) == 0.0 {
            continue;
        }
        for corner in 0..3 {
            let e1 = sub(p[(corner + 1) % 3], p[corner]);
            let e2 = sub(p[(corner + 2) % 3], p[corner]);
            let dot = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2];
            let angle = length(cross(e1, e2)).atan2(dot);
            let sum = &mut sums[face[corner].get()];
            for axis in 0..3 {
                sum[axis] += n[axis] / length(n) * angle;
            }
        }
    }
    sums
}

#[test]
fn gene_material_normals_come_from_their_faces_and_seams_match() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let ranges = model.material_face_ranges();
    // The material with the most faces.
    let material = (0..ranges.len()).max_by_key(|&m| ranges[m].len()).unwrap();
    let mut in_material = vec![false; model.vertices.len()];
    for face in &model.faces[ranges[material].clone()] {
        for corner in face {
            in_material[corner.get()] = true;
        }
    }
    let selection = PluginSelection::new().with(ElementKind::Material, vec![material]);
    let outcome = run_tool(
        "recompute_normals",
        &model,
        &selection,
        &json!({"angle": 180}),
    );
    let sums = angle_weighted_normals(&model);
    // Positions several vertices share, with a tolerance far above f32 noise.
    let mut at_position = std::collections::HashMap::<[u32; 3], Vec<usize>>::new();
    for (index, vertex) in model.vertices.iter().enumerate() {
        at_position
            .entry(vertex.position.to_array().map(f32::to_bits))
            .or_default()
            .push(index);
    }
    let mut checked_alone = 0;
    let mut checked_seams = 0;
    for (index, (before, after)) in model
        .vertices
        .iter()
        .zip(&outcome.after.vertices)
        .enumerate()
    {
        if !in_material[index] {
            assert_eq!(after, before, "vertex {index} is not in the material");
            continue;
        }
        assert_eq!(after.position, before.position);
        let n = after.normal;
        let length = (n.x * n.x + n.y * n.y + n.z * n.z).sqrt();
        assert!((length - 1.0).abs() < 1e-5, "vertex {index}: {n:?}");
        let shared = &at_position[&before.position.to_array().map(f32::to_bits)];
        if shared.len() == 1 {
            let s = sums[index];
            let l = (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt();
            let expected = Vec3::new((s[0] / l) as f32, (s[1] / l) as f32, (s[2] / l) as f32);
            let d = (n.x - expected.x).abs() + (n.y - expected.y).abs() + (n.z - expected.z).abs();
            assert!(d < 1e-5, "vertex {index}: {n:?} vs {expected:?}");
            checked_alone += 1;
        } else if shared.iter().all(|&other| in_material[other]) {
            // At 180° a seam inside one material is smoothed: every vertex there agrees.
            for &other in shared {
                let m = outcome.after.vertices[other].normal;
                let d = (n.x - m.x).abs() + (n.y - m.y).abs() + (n.z - m.z).abs();
                assert!(d < 1e-5, "seam {index}/{other}: {n:?} vs {m:?}");
            }
            checked_seams += 1;
        }
    }
    assert!(checked_alone > 1000, "{checked_alone}");
    assert!(checked_seams > 10, "{checked_seams}");
}
