// Tests: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use super::*;
use crate::model::{DrawFlags, Model, PmxVersion, Weight};
use crate::validate::{CheckOptions, Severity, check};
use glam::Vec3 as V3;
use std::path::PathBuf;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn corpus() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/mqo");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: corpus folder {} is absent", dir.display());
        None
    }
}

/// Imports with the default options (PMX 2.0, 10 MQO units per PMX unit); the result must be a
/// model the validator finds no error in.
fn import(text: &str) -> MqoImport {
    import_with(text.as_bytes(), &MqoImportOptions::default())
}

fn import_with(bytes: &[u8], options: &MqoImportOptions) -> MqoImport {
    let imported = read_mqo(bytes, options).unwrap_or_else(|e| panic!("import failed: {e}"));
    assert_valid(&imported.model);
    imported
}

fn assert_valid(model: &Model) {
    let errors: Vec<String> = check(model, None, &CheckOptions::default())
        .into_iter()
        .filter(|issue| issue.severity >= Severity::Error)
        .map(|issue| issue.to_string())
        .collect();
    assert!(errors.is_empty(), "validator errors: {errors:#?}");
}

fn pos(model: &Model, vertex: usize) -> V3 {
    V3::from(model.vertices[vertex].position.to_array())
}

fn normal(model: &Model, vertex: usize) -> V3 {
    V3::from(model.vertices[vertex].normal.to_array())
}

fn bbox(model: &Model) -> (V3, V3) {
    let mut lo = V3::splat(f32::MAX);
    let mut hi = V3::splat(f32::MIN);
    for v in 0..model.vertices.len() {
        lo = lo.min(pos(model, v));
        hi = hi.max(pos(model, v));
    }
    (lo, hi)
}

fn assert_close(actual: V3, expected: [f32; 3], tolerance: f32, what: &str) {
    assert!(
        actual.abs_diff_eq(V3::from(expected), tolerance),
        "{what}: {actual:?} is not {expected:?}"
    );
}

fn assert_bbox(model: &Model, lo: [f32; 3], hi: [f32; 3]) {
    let (min, max) = bbox(model);
    assert_close(min, lo, 1e-3, "bounding box minimum");
    assert_close(max, hi, 1e-3, "bounding box maximum");
}

fn face_counts(model: &Model) -> Vec<u32> {
    model
        .materials
        .iter()
        .map(|m| m.face_index_count / 3)
        .collect()
}

/// The distinct values of one coordinate over all vertices, rounded to 1e-4, sorted.
fn coordinate_values(model: &Model, axis: usize) -> Vec<f32> {
    let mut values: Vec<f32> = (0..model.vertices.len())
        .map(|v| (pos(model, v)[axis] * 1e4).round() / 1e4)
        .map(|x| if x == 0.0 { 0.0 } else { x }) // -0 and 0 are one value
        .collect();
    values.sort_by(f32::total_cmp);
    values.dedup();
    values
}

/// The winding normal of each triangle, `(b − a) × (c − a)` in PMX space, unnormalised. PMX's
/// front faces are clockwise seen from the front in its left-handed space, which makes this
/// vector point out of the front side.
fn winding_normal(model: &Model, triangle: usize) -> V3 {
    let [a, b, c] = model.faces[triangle].map(|v| pos(model, v.get()));
    (b - a).cross(c - a)
}

/// Every triangle's winding agrees with the normals of its corners (no face inside out).
fn assert_winding_matches_normals(model: &Model) {
    for (t, face) in model.faces.iter().enumerate() {
        let winding = winding_normal(model, t);
        for v in face {
            let n = normal(model, v.get());
            assert!(
                winding.dot(n) > 0.0,
                "triangle {t}: winding {winding:?} against the normal {n:?} of vertex {}",
                v.get()
            );
        }
    }
}

fn bone_of(model: &Model, vertex: usize) -> Option<usize> {
    match model.vertices[vertex].weight {
        Weight::Bdef1 { bone } => bone.map(|b| b.get()),
        ref other => panic!("vertex {vertex}: expected BDEF1, got {other:?}"),
    }
}

/// The vertices at a PMX position (within 1e-3).
fn vertices_at(model: &Model, at: [f32; 3]) -> Vec<usize> {
    (0..model.vertices.len())
        .filter(|&v| pos(model, v).abs_diff_eq(V3::from(at), 1e-3))
        .collect()
}

const HEADER: &str = "Metasequoia Document\nFormat Text Ver 1.1\n";

/// An MQO with one object: `attributes` are extra object lines, `vertices` and `faces` the
/// lines of the vertex and face chunks.
fn one_object(materials: &str, attributes: &str, vertices: &[&str], faces: &[&str]) -> String {
    let mut text = String::from(HEADER);
    if !materials.is_empty() {
        let count = materials.lines().count();
        text += &format!("Material {count} {{\n{materials}\n}}\n");
    }
    text += "Object \"obj\" {\n";
    text += attributes;
    text += &format!("\tvertex {} {{\n", vertices.len());
    for v in vertices {
        text += &format!("\t\t{v}\n");
    }
    text += &format!("\t}}\n\tface {} {{\n", faces.len());
    for f in faces {
        text += &format!("\t\t{f}\n");
    }
    text += "\t}\n}\nEof\n";
    text
}

/// A cube of edge 20 MQO units around the origin (2 PMX units), the corpus cube's faces.
const CUBE_VERTICES: [&str; 8] = [
    "-10 10 10",
    "-10 -10 10",
    "10 10 10",
    "10 -10 10",
    "10 10 -10",
    "10 -10 -10",
    "-10 10 -10",
    "-10 -10 -10",
];
const CUBE_FACES: [&str; 6] = [
    "4 V(0 2 3 1)",
    "4 V(2 4 5 3)",
    "4 V(4 6 7 5)",
    "4 V(6 0 1 7)",
    "4 V(6 4 2 0)",
    "4 V(1 3 5 7)",
];

fn cube(attributes: &str) -> String {
    one_object("", attributes, &CUBE_VERTICES, &CUBE_FACES)
}

/// A quad in the plane z = 30, x and y in 10..20 (PMX: x, y in 1..2, z = −3), wound
/// counter-clockwise seen from +Z: its front faces −Z in MQO, +Z in PMX.
const OFFSET_QUAD: [&str; 4] = ["10 10 30", "20 10 30", "20 20 30", "10 20 30"];

// ---------------------------------------------------------------------------------------------
// The corpus, value by value (worked out from the files' text)
// ---------------------------------------------------------------------------------------------

fn load(name: &str) -> Option<MqoImport> {
    let dir = corpus()?;
    let imported = load_mqo_path(&dir.join(name), &MqoImportOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_valid(&imported.model);
    Some(imported)
}

#[test]
fn corpus_cube_ver10_without_materials() {
    // 8 vertices at ±100, 6 quads without M(), UVs 0..1 on every face, shading 1, facet 59.5.
    let Some(imported) = load("wanwan_cube_ver10_nomaterial.mqo") else {
        return;
    };
    let model = &imported.model;
    assert_eq!(model.faces.len(), 12, "6 quads, two triangles each");
    assert_eq!(face_counts(model), [12], "one added default material");
    assert_eq!(model.materials[0].name_en.as_str(), "default");
    // Faces meet at 90° > 59.5°: each corner keeps its face's normal (and each face has its
    // own UV square anyway): 6 × 4 vertices.
    assert_eq!(model.vertices.len(), 24);
    assert_bbox(model, [-10.0; 3], [10.0; 3]);
    assert_eq!(model.bones.len(), 1, "the added root bone");
    for v in 0..model.vertices.len() {
        // Outward: the normal points the way of the corner's largest coordinate.
        let n = normal(model, v);
        assert!((pos(model, v).dot(n) - 10.0).abs() < 1e-4, "vertex {v}");
    }
    assert_winding_matches_normals(model);
    assert_eq!(
        imported.report.skipped_chunks().collect::<Vec<_>>(),
        ["Scene"]
    );
    assert!(
        imported
            .report
            .notes
            .contains(&MqoNote::DefaultMaterial { faces: 6 })
    );
    assert!(imported.report.notes.contains(&MqoNote::RootBoneAdded {
        name: "センター".into(),
        vertices: 24
    }));
    assert!(!imported.report.mqx_missing());
}

#[test]
fn corpus_includexml_with_a_missing_side_file() {
    // The same cube with `IncludeXml "test.xml"` on line 4; test.xml is not in the corpus.
    let Some(imported) = load("wanwan_includexml_cube.mqo") else {
        return;
    };
    assert_eq!(imported.model.faces.len(), 12);
    assert_eq!(face_counts(&imported.model), [12]);
    assert_bbox(&imported.model, [-10.0; 3], [10.0; 3]);
    assert_eq!(imported.model.bones.len(), 1);
    assert!(imported.report.notes.contains(&MqoNote::MqxMissing {
        file: "test.xml".into(),
        reason: MqxUnavailable::NotFound
    }));
    let scene: Vec<_> = imported
        .report
        .notes
        .iter()
        .filter_map(|n| match n {
            MqoNote::SkippedChunk { name, line, .. } => Some((name.as_str(), *line)),
            _ => None,
        })
        .collect();
    assert_eq!(scene, [("Scene", 6)]);
}

#[test]
fn corpus_trialnoise_stops_reading_at_its_line() {
    let Some(dir) = corpus() else { return };
    let error = load_mqo_path(
        &dir.join("wanwan_trialnoise_chunk.mqo"),
        &MqoImportOptions::default(),
    )
    .expect_err("the specification says to stop at TrialNoise");
    // Line 4: `TrialNoise {` right after the header and an empty line.
    assert_eq!(error, MqoError::TrialNoise { line: 4 });
    assert_eq!(error.line(), Some(4));
    assert!(error.to_string().contains("TrialNoise"));
}

#[test]
fn corpus_hachune_miku_ver10() {
    // Objects: miku (1214 vertices, 2099 triangles + 2 quads, facet 160), negi (52 vertices,
    // 96 triangles), R_arm (98 vertices, 172 triangles); no mirrors. Material use by M():
    // mat1 1261 triangles, mat2 1110. Extremes: x ±97.07, y −107.7585..123.5924,
    // z −85.8941..58.1517 (negated: −5.81517..8.58941).
    let Some(imported) = load("wanwan_hachune_miku01_ver10.mqo") else {
        return;
    };
    let model = &imported.model;
    assert_eq!(model.faces.len(), 2099 + 2 * 2 + 96 + 172);
    assert_eq!(face_counts(model), [1261, 1110]);
    assert_eq!(model.materials[0].name_ja.as_str(), "mat1");
    assert_eq!(model.materials[1].name_ja.as_str(), "mat2");
    assert_eq!(model.textures.len(), 1, "tex(\"miku.jpg\")");
    assert_eq!(model.textures[0].as_str(), "miku.jpg");
    assert_bbox(
        model,
        [-9.707, -10.77585, -5.81517],
        [9.707, 12.35924, 8.58941],
    );
    assert_eq!(model.bones.len(), 1);
    assert_eq!(
        imported.report.skipped_chunks().collect::<Vec<_>>(),
        ["Scene"]
    );
    assert!(
        imported
            .report
            .notes
            .contains(&MqoNote::MaterialMapDropped {
                material: "mat1".into(),
                kind: "aplane",
                value: "miku_alpha.psd".into()
            })
    );
    assert_eq!(imported.report.hidden_objects().count(), 0);
}

#[test]
fn corpus_shrinkwrap_cp932_ver11() {
    // Four objects, no mirrors: でかいほう (visible; 25 triangles, 241 quads and 25 n-gons of 6
    // to 22 corners: 758 triangles), obj2 (hidden; 760), obj3 (hidden; 196 quads: 392), obj1
    // (visible; 106 quads: 212). By material: mat1 795, mat2 723, mat3 392, mat4 212.
    let Some(imported) = load("tamachan_shrinkwrap_cp932_ver11.mqo") else {
        return;
    };
    let model = &imported.model;
    assert_eq!(model.faces.len(), 758 + 760 + 392 + 212);
    assert_eq!(face_counts(model), [795, 723, 392, 212]);
    assert_bbox(model, [-10.0, -10.0, -14.350676], [10.0, 14.585262, 10.0]);
    assert_eq!(model.bones.len(), 1);
    assert_eq!(
        imported.report.skipped_chunks().collect::<Vec<_>>(),
        ["Thumbnail", "Scene"]
    );
    assert_eq!(
        imported.report.hidden_objects().collect::<Vec<_>>(),
        ["obj2", "obj3"]
    );

    // Leaving the hidden objects out leaves でかいほう and obj1: mat1 and mat2 lose what obj2
    // gave them; obj3's material (mat3) is used by no face then.
    let dir = corpus().unwrap();
    let options = MqoImportOptions {
        skip_hidden_objects: true,
        ..MqoImportOptions::default()
    };
    let visible =
        load_mqo_path(&dir.join("tamachan_shrinkwrap_cp932_ver11.mqo"), &options).expect("imports");
    assert_eq!(visible.model.faces.len(), 758 + 212);
    assert!(visible.report.notes.contains(&MqoNote::HiddenObject {
        name: "obj2".into(),
        imported: false
    }));
}

#[test]
fn corpus_autocsg_ver11_vertexattr_lf() {
    // LF line endings; 12 objects, only mugcup:SUB (uid 1) visible: 488 vertices, 64
    // triangles, 167 quads and 81 n-gons up to 66 corners (970 triangles); the hidden "mug"
    // (uid 2) has 128 triangles and 54 quads (236); the other ten are empty. By material:
    // mat1 1026, mat2 180. The mugcup's `translation 0 1 0` does not move its vertices, which
    // are stored in world coordinates.
    let Some(imported) = load("binzume_autocsg_ver11_vertexattr.mqo") else {
        return;
    };
    let model = &imported.model;
    assert_eq!(model.faces.len(), 970 + 236);
    assert_eq!(face_counts(model), [1026, 180]);
    assert_bbox(model, [-0.1, 0.0, -0.2648948], [0.1, 0.2, -0.01]);
    assert_eq!(model.bones.len(), 1);
    assert_eq!(
        imported.report.skipped_chunks().collect::<Vec<_>>(),
        ["Thumbnail", "Scene"]
    );
    assert_eq!(imported.report.hidden_objects().count(), 11);
    assert!(imported.report.notes.contains(&MqoNote::MqxMissing {
        file: "autocsg_sample.mqx".into(),
        reason: MqxUnavailable::NotFound
    }));
}

#[test]
fn corpus_simple_bone_bvertex_and_mqx() {
    // One object "obj" (uid 1), 22 binary vertices (BVertex, `Vector 22 [264]`), 15 quads, all
    // M(0). No vertexattr, so vertex i has the unique ID i + 1. test.mqx has 12 bones; bone10
    // weights V 22 and V 24: 24 is no vertex of a 22-vertex object (the file's own
    // inconsistency: its ids 1..20, 22, 24 look like unique IDs from before vertices were
    // re-made, which BVertex cannot store), so vertex 21 (index 20) has no bone.
    let Some(imported) = load("anatawa12_simple_bone/test.mqo") else {
        return;
    };
    let model = &imported.model;
    assert_eq!(model.faces.len(), 30);
    assert_eq!(face_counts(model), [30]);
    // x −146.82..900, y 0..251.68, z −500..100 (negated: −10..50).
    assert_bbox(model, [-14.682042, 0.0, -10.0], [90.0, 25.168451, 50.0]);

    let names: Vec<String> = model
        .bones
        .iter()
        .map(|b| b.name_ja.as_str().into())
        .collect();
    assert_eq!(
        names,
        [
            "bone6",
            "bone1",
            "bone2",
            "bone3",
            "bone4",
            "bone5",
            "bone8",
            "bone9",
            "bone10",
            "bone11",
            "bone12",
            "bone13",
            "センター"
        ]
    );
    let parent = |i: usize| model.bones[i].parent.map(|p| p.get());
    // bone1 → bone6, bone2 → bone1, ..., bone5 → bone4; bone8 and bone11 are roots; bone9 →
    // bone8, bone10 → bone9, bone12 → bone11, bone13 → bone12.
    let parents: Vec<Option<usize>> = (0..model.bones.len()).map(parent).collect();
    assert_eq!(
        parents,
        [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            None,
            Some(6),
            Some(7),
            None,
            Some(9),
            Some(10),
            None
        ]
    );
    let bone_position = |i: usize| V3::from(model.bones[i].position.to_array());
    assert_close(bone_position(0), [-10.0, 0.0, 0.0], 1e-5, "bone6");
    assert_close(bone_position(5), [90.0, 0.0, 0.0], 1e-5, "bone5");
    assert_close(
        bone_position(6),
        [-10.0, -0.0000289917, 40.0],
        1e-5,
        "bone8",
    );
    assert_close(bone_position(7), [-14.682, 12.855, 40.0], 1e-5, "bone9");
    assert_close(bone_position(8), [0.0, 25.168, 40.0], 1e-5, "bone10");
    assert_close(bone_position(12), [0.0; 3], 0.0, "root");

    // Weights by position (every PMX copy of a vertex has its weight): index 0 (−100, 0,
    // −100) is V 1 → bone6; index 1 (100, 0, −100) is V 2 → bone1; index 16 (−146.82,
    // 128.55, −500) is V 17 → bone9; index 13 (100, 0, −500) is V 14 → bone11; index 21 (0,
    // 251.68, −300) is V 22 → bone10; index 20 (0, 251.68, −500) is V 21, which no bone
    // weights → the root.
    for (at, bone) in [
        ([-10.0, 0.0, 10.0], 0),
        ([10.0, 0.0, 10.0], 1),
        ([-14.682042, 12.854788, 50.0], 7),
        ([10.0, 0.0, 50.0], 9),
        ([0.0, 25.168451, 30.0], 8),
        ([0.0, 25.168451, 50.0], 12),
    ] {
        let vertices = vertices_at(model, at);
        assert!(!vertices.is_empty(), "no vertex at {at:?}");
        for v in vertices {
            assert_eq!(bone_of(model, v), Some(bone), "vertex {v} at {at:?}");
        }
    }
    let notes = &imported.report.notes;
    assert!(notes.contains(&MqoNote::DanglingWeights {
        bone: "bone10".into(),
        count: 1
    }));
    // Index 20 is the ridge of a double-sided roof: four faces (two slopes 80° apart, each
    // twice, back to back), one UV (1, 0): four PMX vertices, all without a weight.
    assert!(notes.contains(&MqoNote::RootBoneAdded {
        name: "センター".into(),
        vertices: 4
    }));
    assert!(notes.contains(&MqoNote::IkNotConverted { bones: 3 }));
    assert_eq!(
        imported.report.skipped_chunks().collect::<Vec<_>>(),
        ["Thumbnail", "Scene"]
    );
    assert!(!imported.report.mqx_missing());
}

// ---------------------------------------------------------------------------------------------
// Geometry: mirrors, n-gons, smoothing, UV seams, lathes, local frames
// ---------------------------------------------------------------------------------------------

#[test]
fn separate_mirror_on_each_axis() {
    for (axis, x, y, z) in [
        (1, vec![-2.0, -1.0, 1.0, 2.0], vec![1.0, 2.0], vec![-3.0]),
        (2, vec![1.0, 2.0], vec![-2.0, -1.0, 1.0, 2.0], vec![-3.0]),
        (4, vec![1.0, 2.0], vec![1.0, 2.0], vec![-3.0, 3.0]),
    ] {
        let attributes = format!("\tmirror 1\n\tmirror_axis {axis}\n");
        let imported = import(&one_object(
            "",
            &attributes,
            &OFFSET_QUAD,
            &["4 V(0 1 2 3)"],
        ));
        let model = &imported.model;
        assert_eq!(model.faces.len(), 4, "axis {axis}");
        assert_eq!(model.vertices.len(), 8, "axis {axis}");
        assert_eq!(coordinate_values(model, 0), x, "axis {axis}");
        assert_eq!(coordinate_values(model, 1), y, "axis {axis}");
        assert_eq!(coordinate_values(model, 2), z, "axis {axis}");
        assert_winding_matches_normals(model);
        assert!(imported.report.notes.contains(&MqoNote::MirrorApplied {
            object: "obj".into(),
            axes: axis,
            connected: false,
            welded: 0
        }));
    }
    // The original faces +Z in PMX; its Z mirror image faces the other way, −Z.
    let imported = import(&one_object(
        "",
        "\tmirror 1\n\tmirror_axis 4\n",
        &OFFSET_QUAD,
        &["4 V(0 1 2 3)"],
    ));
    for v in 0..imported.model.vertices.len() {
        let expected = -pos(&imported.model, v).z / 3.0;
        assert_close(
            normal(&imported.model, v),
            [0.0, 0.0, expected],
            1e-6,
            "normal",
        );
    }
}

#[test]
fn mirror_on_several_axes_makes_a_copy_per_octant() {
    for (axis, copies) in [(3, 4), (5, 4), (6, 4), (7, 8)] {
        let attributes = format!("\tmirror 1\n\tmirror_axis {axis}\n");
        let imported = import(&one_object(
            "",
            &attributes,
            &OFFSET_QUAD,
            &["4 V(0 1 2 3)"],
        ));
        assert_eq!(imported.model.faces.len(), 2 * copies, "axis {axis}");
        assert_eq!(imported.model.vertices.len(), 4 * copies, "axis {axis}");
        assert_winding_matches_normals(&imported.model);
    }
    let imported = import(&one_object(
        "",
        "\tmirror 1\n\tmirror_axis 7\n",
        &OFFSET_QUAD,
        &["4 V(0 1 2 3)"],
    ));
    assert_bbox(&imported.model, [-2.0, -2.0, -3.0], [2.0, 2.0, 3.0]);
}

#[test]
fn connected_mirror_joins_vertices_on_the_plane() {
    // A quad touching each mirror plane with one edge: that edge's two vertices are shared by
    // both halves (4 + 2 vertices); the separate mirror keeps them apart (4 + 4).
    for (axis, quad, coordinate) in [
        (1, ["0 0 0", "10 0 0", "10 10 0", "0 10 0"], 0),
        (2, ["0 0 0", "10 0 0", "10 10 0", "0 10 0"], 1),
        (4, ["0 0 0", "0 0 10", "10 0 10", "10 0 0"], 2),
    ] {
        for (mirror, vertices, welded) in [(2, 6, 2), (1, 8, 0)] {
            let attributes = format!("\tmirror {mirror}\n\tmirror_axis {axis}\n");
            let imported = import(&one_object("", &attributes, &quad, &["4 V(0 1 2 3)"]));
            let model = &imported.model;
            assert_eq!(model.faces.len(), 4, "axis {axis} mirror {mirror}");
            assert_eq!(
                model.vertices.len(),
                vertices,
                "axis {axis} mirror {mirror}"
            );
            assert_eq!(coordinate_values(model, coordinate), [-1.0, 0.0, 1.0]);
            assert_winding_matches_normals(model);
            assert!(imported.report.notes.contains(&MqoNote::MirrorApplied {
                object: "obj".into(),
                axes: axis,
                connected: mirror == 2,
                welded
            }));
        }
    }
}

#[test]
fn mirror_dis_is_the_joining_distance() {
    // The inner edge is 0.5 MQO units from the X plane: within `mirror_dis 1` it is moved onto
    // the plane and joined; with `mirror_dis 0.1` both halves keep their own copy.
    let quad = ["0.5 0 0", "10 0 0", "10 10 0", "0.5 10 0"];
    let joined = import(&one_object(
        "",
        "\tmirror 2\n\tmirror_axis 1\n\tmirror_dis 1.000\n",
        &quad,
        &["4 V(0 1 2 3)"],
    ));
    assert_eq!(joined.model.vertices.len(), 6);
    assert_eq!(coordinate_values(&joined.model, 0), [-1.0, 0.0, 1.0]);
    let apart = import(&one_object(
        "",
        "\tmirror 2\n\tmirror_axis 1\n\tmirror_dis 0.100\n",
        &quad,
        &["4 V(0 1 2 3)"],
    ));
    assert_eq!(apart.model.vertices.len(), 8);
    assert_eq!(coordinate_values(&apart.model, 0), [-1.0, -0.05, 0.05, 1.0]);
    assert_eq!(apart.model.faces.len(), 4);
}

#[test]
fn concave_hexagon_is_triangulated_inside_its_outline() {
    // An L: the square 0..20 without its corner 10..20 × 10..20 (area 300 MQO², 3 PMX²),
    // with a reflex corner at (10, 10).
    let imported = import(&one_object(
        "",
        "",
        &["0 0 0", "20 0 0", "20 10 0", "10 10 0", "10 20 0", "0 20 0"],
        &["6 V(0 1 2 3 4 5)"],
    ));
    let model = &imported.model;
    assert_eq!(model.faces.len(), 4, "a hexagon is four triangles");
    assert_eq!(model.vertices.len(), 6);
    let mut area = 0.0;
    for t in 0..model.faces.len() {
        let winding = winding_normal(model, t);
        area += winding.length() / 2.0;
        // All triangles face the same way as the hexagon: counter-clockwise seen from +Z in
        // MQO is front towards −Z there, +Z in PMX.
        assert!(winding.z > 0.0 && winding.x == 0.0 && winding.y == 0.0);
        let [a, b, c] = model.faces[t].map(|v| pos(model, v.get()));
        let centroid = (a + b + c) / 3.0;
        let inside = centroid.x > 0.0
            && centroid.x < 2.0
            && centroid.y > 0.0
            && centroid.y < 2.0
            && !(centroid.x > 1.0 && centroid.y > 1.0);
        assert!(
            inside,
            "triangle {t} with centroid {centroid:?} is outside the L"
        );
    }
    assert!(
        (area - 3.0).abs() < 1e-5,
        "the triangles cover {area}, not 3"
    );
    assert_winding_matches_normals(model);
}

#[test]
fn facet_angle_and_shading_decide_shared_normals() {
    // facet 59.5 < 90°: every face of the cube keeps its own normal: 6 × 4 vertices.
    let flat = import(&cube("\tshading 1\n\tfacet 59.5\n"));
    assert_eq!(flat.model.vertices.len(), 24);
    for v in 0..24 {
        let n = normal(&flat.model, v);
        assert!(
            (n.abs().max_element() - 1.0).abs() < 1e-6,
            "axis-aligned: {n:?}"
        );
        assert!((pos(&flat.model, v).dot(n) - 1.0).abs() < 1e-5, "outward");
    }
    assert_winding_matches_normals(&flat.model);

    // facet 90.1 > 90°: each corner averages its three faces: 8 vertices, diagonal normals.
    let smooth = import(&cube("\tshading 1\n\tfacet 90.1\n"));
    assert_eq!(smooth.model.vertices.len(), 8);
    assert_eq!(smooth.model.faces.len(), 12);
    for v in 0..8 {
        let expected = pos(&smooth.model, v).signum() / 3f32.sqrt();
        assert_close(
            normal(&smooth.model, v),
            expected.to_array(),
            1e-6,
            "normal",
        );
    }
    assert_winding_matches_normals(&smooth.model);

    // shading 0 is flat whatever the facet.
    let flat_shaded = import(&cube("\tshading 0\n\tfacet 90.1\n"));
    assert_eq!(flat_shaded.model.vertices.len(), 24);
}

#[test]
fn uv_seam_splits_a_vertex() {
    // Two triangles share vertices 1 and 2. Same UVs on both sides: 4 vertices.
    let vertices = ["0 0 0", "10 0 0", "0 10 0", "10 10 0"];
    let shared = import(&one_object(
        "",
        "",
        &vertices,
        &["3 V(0 1 2) UV(0 0 1 0 0 1)", "3 V(2 1 3) UV(0 1 1 0 1 1)"],
    ));
    assert_eq!(shared.model.vertices.len(), 4);
    // Vertex 2 has UV (0, 1) in one face and (0.5, 1) in the other: a seam, two vertices at
    // one position.
    let seam = import(&one_object(
        "",
        "",
        &vertices,
        &["3 V(0 1 2) UV(0 0 1 0 0 1)", "3 V(2 1 3) UV(0.5 1 1 0 1 1)"],
    ));
    assert_eq!(seam.model.vertices.len(), 5);
    let at = vertices_at(&seam.model, [0.0, 1.0, 0.0]);
    assert_eq!(at.len(), 2);
    let mut uvs: Vec<[f32; 2]> = at
        .iter()
        .map(|&v| seam.model.vertices[v].uv.to_array())
        .collect();
    uvs.sort_by(|a, b| a[0].total_cmp(&b[0]));
    assert_eq!(uvs, [[0.0, 1.0], [0.5, 1.0]]);
}

#[test]
fn faces_without_a_material_get_the_default_one() {
    let imported = import(&one_object(
        "\t\"red\" col(1.000 0.000 0.000 1.000)",
        "",
        &["0 0 0", "10 0 0", "0 10 0"],
        &[
            "3 V(0 1 2) M(0)",
            "3 V(0 1 2) M(-1)",
            "3 V(0 1 2)",
            "3 V(0 1 2) M(3)",
            "3 V(0 1 2) M(-2)",
            "3 V(0 1 2) M(4294967296)",
        ],
    ));
    let model = &imported.model;
    assert_eq!(face_counts(model), [1, 5], "red first, then the default");
    assert_eq!(model.materials[0].name_ja.as_str(), "red");
    assert_eq!(model.materials[1].name_ja.as_str(), "既定の材質");
    assert_eq!(model.materials[0].diffuse.to_array(), [0.8, 0.0, 0.0, 1.0]);
    let notes = &imported.report.notes;
    assert!(notes.contains(&MqoNote::DefaultMaterial { faces: 5 }));
    // M(3), M(-2) and M(2^32) name no material (only -1 means "none", says the spec).
    assert!(notes.contains(&MqoNote::MissingMaterial {
        object: "obj".into(),
        count: 3
    }));
}

#[test]
fn two_corner_faces_are_skipped_and_counted() {
    let imported = import(&one_object(
        "",
        "",
        &["0 0 0", "10 0 0", "0 10 0"],
        &["2 V(0 1)", "3 V(0 1 2)", "2 V(1 2)"],
    ));
    assert_eq!(imported.model.faces.len(), 1);
    assert_eq!(imported.model.vertices.len(), 3);
    assert_eq!(imported.report.skipped_lines(), 2);
    // The lines take no material: the default material holds only the triangle.
    assert!(
        imported
            .report
            .notes
            .contains(&MqoNote::DefaultMaterial { faces: 1 })
    );
}

#[test]
fn lathe_turns_a_line_into_a_double_sided_surface() {
    // A line from (10, 0, 0) to (10, 10, 0) turned around Y in 4 segments: a square tube of
    // 4 quads, each also facing inwards: 16 triangles on 8 positions.
    let imported = import(&one_object(
        "",
        "\tlathe 3\n\tlathe_axis 1\n\tlathe_seg 4\n",
        &["10 0 0", "10 10 0"],
        &["2 V(0 1)"],
    ));
    let model = &imported.model;
    assert_eq!(model.faces.len(), 16);
    assert_eq!(coordinate_values(model, 0), [-1.0, 0.0, 1.0]);
    assert_eq!(coordinate_values(model, 1), [0.0, 1.0]);
    assert_eq!(coordinate_values(model, 2), [-1.0, 0.0, 1.0]);
    for v in 0..model.vertices.len() {
        let p = pos(model, v);
        // Every position is on the circle of radius 1 around Y.
        assert!((p.x.hypot(p.z) - 1.0).abs() < 1e-5, "{p:?}");
    }
    assert_winding_matches_normals(model);
    assert_eq!(imported.report.skipped_lines(), 0);
    assert!(imported.report.notes.contains(&MqoNote::LatheApplied {
        object: "obj".into(),
        axis: 1,
        segments: 4,
        lathe: 3
    }));

    // A cone: the apex is on the axis and stays one position; 4 triangles each way.
    let cone = import(&one_object(
        "",
        "\tlathe 3\n\tlathe_axis 1\n\tlathe_seg 4\n",
        &["0 10 0", "10 0 0"],
        &["2 V(0 1)"],
    ));
    assert_eq!(cone.model.faces.len(), 8);
    let mut positions: Vec<[i32; 3]> = (0..cone.model.vertices.len())
        .map(|v| (pos(&cone.model, v) * 1e3).round().as_ivec3().to_array())
        .collect();
    positions.sort_unstable();
    positions.dedup();
    assert_eq!(positions.len(), 5);
}

#[test]
fn patch_is_imported_as_its_control_mesh_and_noted() {
    let imported = import(&cube("\tpatch 3\n\tsegment 2\n"));
    assert_eq!(imported.model.faces.len(), 12);
    assert!(imported.report.notes.contains(&MqoNote::Patch {
        object: "obj".into(),
        patch: 3,
        segment: 2
    }));
}

#[test]
fn local_frame_does_not_move_vertices_but_places_the_mirror_plane() {
    // Vertices are world coordinates: `translation 100 0 0` leaves the quad at x 110..120.
    let quad = ["110 0 0", "120 0 0", "120 10 0", "110 10 0"];
    let plain = import(&one_object(
        "",
        "\tscale 2 2 2\n\trotation 0 0 0\n\ttranslation 100 0 0\n",
        &quad,
        &["4 V(0 1 2 3)"],
    ));
    assert_eq!(coordinate_values(&plain.model, 0), [11.0, 12.0]);
    // The X mirror plane is the object's local YZ plane, at world x = 100: the copy lands at
    // x 80..90 (PMX 8..9).
    let mirrored = import(&one_object(
        "",
        "\tscale 2 2 2\n\trotation 0 0 0\n\ttranslation 100 0 0\n\tmirror 1\n\tmirror_axis 1\n",
        &quad,
        &["4 V(0 1 2 3)"],
    ));
    assert_eq!(
        coordinate_values(&mirrored.model, 0),
        [8.0, 9.0, 11.0, 12.0]
    );
    assert_eq!(coordinate_values(&mirrored.model, 1), [0.0, 1.0]);
    // Banked 90° about Z, the local X axis is the world Y axis: the X mirror flips y.
    let banked = import(&one_object(
        "",
        "\trotation 0 0 90\n\tmirror 1\n\tmirror_axis 1\n",
        &OFFSET_QUAD,
        &["4 V(0 1 2 3)"],
    ));
    assert_eq!(coordinate_values(&banked.model, 0), [1.0, 2.0]);
    assert_eq!(coordinate_values(&banked.model, 1), [-2.0, -1.0, 1.0, 2.0]);
    assert_winding_matches_normals(&banked.model);
}

// ---------------------------------------------------------------------------------------------
// Text: code pages, line ends, letter case, versions, binary vertices, vertex colours
// ---------------------------------------------------------------------------------------------

/// A hidden object and a material, both named in Japanese, in `code_page` bytes.
fn named(code_page_line: &str, encode: impl Fn(&str) -> Vec<u8>) -> Vec<u8> {
    let mut bytes = format!("{HEADER}{code_page_line}Material 1 {{\n\t").into_bytes();
    bytes.extend(encode("\"肌\" col(1 1 1 1)\n}\nObject \"髪\" {\n"));
    bytes.extend(b"\tvisible 0\n\tvertex 3 {\n\t\t0 0 0\n\t\t1 0 0\n\t\t0 1 0\n\t}\n");
    bytes.extend(b"\tface 1 {\n\t\t3 V(0 1 2) M(0)\n\t}\n}\nEof\n");
    bytes
}

fn names(imported: &MqoImport) -> (String, String) {
    (
        imported.model.materials[0].name_ja.as_str().into_owned(),
        imported.report.hidden_objects().next().unwrap().to_owned(),
    )
}

#[test]
fn code_pages() {
    let utf8 = |s: &str| s.as_bytes().to_vec();
    let cp932 = |s: &str| encoding_rs::SHIFT_JIS.encode(s).0.into_owned();
    let options = MqoImportOptions::default();
    let expected = ("肌".to_owned(), "髪".to_owned());
    let from_utf8 = import_with(&named("CodePage utf8\n", utf8), &options);
    assert_eq!(names(&from_utf8), expected);
    let from_cp932 = import_with(&named("CodePage 932\n", cp932), &options);
    assert_eq!(names(&from_cp932), expected);
    // No CodePage line means cp932.
    let default = import_with(&named("", cp932), &options);
    assert_eq!(names(&default), expected);
    // UTF-8 bytes read as cp932 are not the names.
    let wrong = import_with(&named("", utf8), &options);
    assert_ne!(names(&wrong).0, "肌");
    // An unknown code page is noted and read as cp932.
    let unknown = import_with(&named("CodePage 1252\n", cp932), &options);
    assert_eq!(names(&unknown), expected);
    assert!(unknown.report.notes.contains(&MqoNote::UnknownCodePage {
        value: "1252".into(),
        line: 3
    }));
}

#[test]
fn line_ends_and_letter_case_do_not_matter() {
    let faces = CUBE_FACES.map(|f| format!("{f} M(0) UV(0 0 1 0 1 1 0 1)"));
    let text = one_object(
        "\t\"m\" col(1 0 0 1) dif(0.5)",
        "\tshading 1\n\tfacet 59.5\n",
        &CUBE_VERTICES,
        &faces.each_ref().map(String::as_str),
    );
    let lf = import(&text);
    let crlf = import(&text.replace('\n', "\r\n"));
    assert_eq!(crlf.model, lf.model);
    assert_eq!(lf.model.faces.len(), 12);
    assert_eq!(face_counts(&lf.model), [12]);
    let shouting = text
        .replace("Material", "MATERIAL")
        .replace("Object", "OBJECT")
        .replace("vertex", "VERTEX")
        .replace("face", "FACE")
        .replace("shading", "SHADING")
        .replace("Eof", "EOF")
        .replace(" V(", " v(")
        .replace("M(", "m(")
        .replace("UV(", "uv(")
        .replace("col(", "COL(")
        .replace("dif(", "DIF(");
    let loud = import(&shouting);
    assert_eq!(loud.model, lf.model);
    assert!(
        loud.report
            .notes
            .iter()
            .all(|n| !matches!(n, MqoNote::UnknownAttribute { .. }))
    );
    // And a header in lower case.
    let quiet = import(&text.replacen("Metasequoia Document", "metasequoia document", 1));
    assert_eq!(quiet.model, lf.model);
}

#[test]
fn unsupported_formats_are_refused_with_their_line() {
    for (header, needle) in [
        ("Format Compress Ver 1.0", "Compress"),
        ("Format Text Ver 2.0", "2.0"),
        ("Format Binary Ver 1.0", "Binary"),
    ] {
        let text = format!("Metasequoia Document\n{header}\nEof\n");
        let error = read_mqo(text.as_bytes(), &MqoImportOptions::default()).expect_err("refused");
        assert!(
            matches!(error, MqoError::Unsupported { line: 2, .. }),
            "{header}: {error:?}"
        );
        assert!(error.to_string().contains(needle), "{error}");
        assert!(error.message_ja().contains("対応していない"));
    }
    // A newer minor version is read by the 1.1 rules, and noted.
    let newer = import(&cube("").replace("Ver 1.1", "Ver 1.2"));
    assert_eq!(newer.model.faces.len(), 12);
    assert!(newer.report.notes.contains(&MqoNote::NewerMinorVersion {
        version: "1.2".into()
    }));
    // Not an MQO at all.
    let error = read_mqo(b"Hello\n", &MqoImportOptions::default()).expect_err("refused");
    assert!(matches!(
        error,
        MqoError::Syntax {
            line: 1,
            column: 1,
            ..
        }
    ));
}

/// An object with binary vertices: vertex 0's x is a float whose bytes are 0A 0D 7D 41 (a
/// line feed, a carriage return and a `}` inside the binary block).
fn bvertex_file(size: usize) -> (Vec<u8>, f32) {
    let tricky = f32::from_le_bytes([0x0A, 0x0D, 0x7D, 0x41]);
    let mut bytes = format!(
        "Metasequoia Document\r\nFormat Text Ver 1.1\r\nObject \"b\" {{\r\n\tBVertex 3 {{\r\n\t\tVector 3 [{size}]\r\n"
    )
    .into_bytes();
    for value in [tricky, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0, 20.0, -30.0] {
        bytes.extend(value.to_le_bytes());
    }
    bytes.extend(b"\r\n\t}\r\n\tface 1 {\r\n\t\t3 V(0 1 2)\r\n\t}\r\n}\r\nEof\r\n");
    (bytes, tricky)
}

#[test]
fn binary_vertices() {
    let (bytes, tricky) = bvertex_file(36);
    let imported = import_with(&bytes, &MqoImportOptions::default());
    let model = &imported.model;
    assert_eq!(model.faces.len(), 1);
    let mut positions: Vec<[f32; 3]> = (0..3).map(|v| pos(model, v).to_array()).collect();
    positions.sort_by(|a, b| a[0].total_cmp(&b[0]));
    assert_eq!(
        positions,
        [
            [0.0, 2.0, 3.0],
            [1.0, 0.0, -0.0],
            [tricky / 10.0, 0.0, -0.0]
        ]
    );
    // A data size that is not 12 bytes a vertex is refused on the Vector line (5).
    let (bytes, _) = bvertex_file(35);
    let error = read_mqo(&bytes, &MqoImportOptions::default()).expect_err("refused");
    assert_eq!(error.line(), Some(5), "{error}");
}

fn colored(version: PmxVersion) -> MqoImport {
    let text = colored_text();
    import_with(
        text.as_bytes(),
        &MqoImportOptions {
            version,
            ..MqoImportOptions::default()
        },
    )
}

#[test]
fn vertex_colours_become_pmx21_vertex_colours() {
    let imported = colored(PmxVersion::V2_1);
    let model = &imported.model;
    assert_eq!(model.additional_uvs.len(), 1);
    for (at, rgba) in [
        ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 1.0]),
        ([1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]),
        ([0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]),
    ] {
        let [v] = vertices_at(model, at)[..] else {
            panic!("one vertex at {at:?}");
        };
        assert_eq!(model.additional_uvs[0][v].to_array(), rgba, "at {at:?}");
    }
    assert!(
        model.materials[0]
            .draw_flags
            .contains(DrawFlags::VERTEX_COLOR)
    );
    assert!(
        imported
            .report
            .notes
            .contains(&MqoNote::VertexColorsKept { materials: 1 })
    );

    let dropped = colored(PmxVersion::V2_0);
    assert!(dropped.model.additional_uvs.is_empty());
    assert!(
        !dropped.model.materials[0]
            .draw_flags
            .contains(DrawFlags::VERTEX_COLOR)
    );
    assert!(dropped.report.notes.contains(&MqoNote::VertexColorsDropped));
}

// ---------------------------------------------------------------------------------------------
// Malformed input: no panic, and every error says where
// ---------------------------------------------------------------------------------------------

/// The small files above, as bytes.
fn samples() -> Vec<Vec<u8>> {
    let mut samples: Vec<Vec<u8>> = vec![
        cube("\tshading 1\n\tfacet 90.1\n").into_bytes(),
        one_object(
            "",
            "\tmirror 2\n\tmirror_axis 7\n\tmirror_dis 1\n",
            &OFFSET_QUAD,
            &["4 V(0 1 2 3)"],
        )
        .into_bytes(),
        one_object(
            "\t\"red\" col(1.000 0.000 0.000 1.000) tex(\"a b.png\") aplane(x.png)",
            "",
            &["0 0 0", "20 0 0", "20 10 0", "10 10 0", "10 20 0", "0 20 0"],
            &[
                "6 V(0 1 2 3 4 5) M(0) UV(0 0 1 0 1 .5 .5 .5 .5 1 0 1)",
                "2 V(0 1)",
                "3 V(0 1 2) M(-1) COL(1 2 3)",
            ],
        )
        .into_bytes(),
        one_object(
            "",
            "\tlathe 3\n\tlathe_axis 1\n\tlathe_seg 4\n",
            &["0 10 0", "10 0 0"],
            &["2 V(0 1)"],
        )
        .into_bytes(),
        named("CodePage utf8\n", |s| s.as_bytes().to_vec()),
        bvertex_file(36).0,
    ];
    samples.push(colored_text().into_bytes());
    samples
}

/// Vertex colours by `vertexattr`: 4278190335 = 0xFF0000FF is opaque red on vertex 0,
/// 4278255360 = 0xFF00FF00 opaque green on vertex 2 (vertex 1 has none: white).
fn colored_text() -> String {
    format!(
        "{HEADER}Material 1 {{\n\t\"vc\" vcol(1) col(1 1 1 1)\n}}\nObject \"o\" {{\n\
         \tvertex 3 {{\n\t\t0 0 0\n\t\t10 0 0\n\t\t0 10 0\n\t}}\n\
         \tvertexattr {{\n\t\tuid {{\n\t\t\t5\n\t\t\t6\n\t\t\t7\n\t\t}}\n\
         \t\tcolor {{\n\t\t\t0 4278190335\n\t\t\t2 4278255360\n\t\t}}\n\t}}\n\
         \tface 1 {{\n\t\t3 V(0 1 2) M(0)\n\t}}\n}}\nEof\n"
    )
}

/// Reads `bytes` (which must not panic) and checks that an error says where it is.
fn check_malformed(bytes: &[u8], options: &MqoImportOptions, lines_in: usize, what: &str) {
    match read_mqo(bytes, options) {
        Ok(imported) => assert_valid(&imported.model),
        Err(error) => {
            let line = error
                .line()
                .unwrap_or_else(|| panic!("{what}: error without a line: {error}"));
            // One past the last line when the file ends inside a chunk.
            assert!(
                (1..=lines_in + 1).contains(&line),
                "{what}: line {line} of {lines_in}: {error}"
            );
            if let MqoError::Syntax { column, .. } = error {
                assert!(column >= 1, "{what}: {error}");
            }
        }
    }
}

#[test]
fn truncated_files_do_not_panic_and_errors_have_lines() {
    let options = MqoImportOptions {
        version: PmxVersion::V2_1,
        ..MqoImportOptions::default()
    };
    for (index, sample) in samples().iter().enumerate() {
        let lines = sample.split(|&b| b == b'\n').count();
        for length in 0..=sample.len() {
            check_malformed(
                &sample[..length],
                &options,
                lines,
                &format!("sample {index} cut at {length}"),
            );
        }
    }
}

#[test]
fn garbled_files_do_not_panic_and_errors_have_lines() {
    // xorshift64: a fixed sequence, so a failure can be replayed.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // Bytes that change the structure the most when they appear.
    const INTERESTING: &[u8] = b"{}()[]\"\n\r 0123456789-.eE\t\x00\xFF\x81";
    let options = MqoImportOptions {
        version: PmxVersion::V2_1,
        ..MqoImportOptions::default()
    };
    for (index, sample) in samples().iter().enumerate() {
        let lines = sample.split(|&b| b == b'\n').count();
        for round in 0..400 {
            let mut bytes = sample.clone();
            let flips = 1 + random() % 3;
            for _ in 0..flips {
                let at = (random() % bytes.len() as u64) as usize;
                let r = random();
                bytes[at] = if r % 2 == 0 {
                    INTERESTING[(r / 2 % INTERESTING.len() as u64) as usize]
                } else {
                    (r >> 8) as u8
                };
            }
            // Flipping a byte to a line feed adds a line.
            let lines = lines + flips as usize;
            check_malformed(
                &bytes,
                &options,
                lines,
                &format!("sample {index} round {round}"),
            );
        }
    }
}

#[test]
fn syntax_errors_point_at_the_column() {
    let text = one_object("", "", &["0 0 0", "10 0 x", "0 10 0"], &["3 V(0 1 2)"]);
    let error = import_error(&text);
    // Line 6 is `\t\t10 0 x`: the `x` is its eighth character.
    assert_eq!(
        (error.line(), column_of(&error)),
        (Some(6), Some(8)),
        "{error}"
    );
    let text = one_object("", "", &["0 0 0", "10 0 0", "0 10 0"], &["3 V(0 1 7)"]);
    let error = import_error(&text);
    // Line 10 is `\t\t3 V(0 1 7)`: vertex 7 does not exist; it is at column 11.
    assert_eq!(
        (error.line(), column_of(&error)),
        (Some(10), Some(11)),
        "{error}"
    );
    let text = one_object("", "", &["0 0 0", "10 0 0", "0 10 0"], &["3 V(0 1 2"]);
    let error = import_error(&text);
    assert_eq!(error.line(), Some(10), "{error}");
    assert!(error.to_string().contains("`)`"), "{error}");
}

#[test]
fn error_columns_count_characters_and_unclosed_chunks_point_past_the_end() {
    // A cp932 name before the error: 肌 is two bytes but one character. Line 4 is
    // `\t"肌" col(1 1 x 1)`; the `x` is its fourteenth character.
    let mut bytes = format!("{HEADER}Material 1 {{\n\t").into_bytes();
    bytes.extend(
        encoding_rs::SHIFT_JIS
            .encode("\"肌\" col(1 1 x 1)\n}\nEof\n")
            .0
            .iter(),
    );
    let error = read_mqo(&bytes, &MqoImportOptions::default()).expect_err("refused");
    assert_eq!(
        (error.line(), column_of(&error)),
        (Some(4), Some(14)),
        "{error}"
    );
    assert!(
        error.message_ja().contains("4行14桁目"),
        "{}",
        error.message_ja()
    );
    // The detail reads in the user's language too: what was expected and what was found.
    assert!(
        error
            .message_ja()
            .contains("colの値が必要ですが、「x」があります"),
        "{}",
        error.message_ja()
    );
    assert!(
        error
            .to_string()
            .contains("expected a value of col, found `x`"),
        "{error}"
    );
    // An object that is never closed: the error is on line 9, after the last line (8).
    let text =
        format!("{HEADER}Object \"o\" {{\n\tvertex 1 {{\n\t\t0 0 0\n\t}}\n\tface 0 {{\n\t}}\n");
    let error = import_error(&text);
    assert_eq!(error.line(), Some(9), "{error}");
    assert!(
        error.to_string().contains("line 3"),
        "names the opening line: {error}"
    );
}

fn import_error(text: &str) -> MqoError {
    read_mqo(text.as_bytes(), &MqoImportOptions::default()).expect_err("refused")
}

fn column_of(error: &MqoError) -> Option<usize> {
    match error {
        MqoError::Syntax { column, .. } => Some(*column),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// MQX bones: objects by uid, vertices by vertexattr uid
// ---------------------------------------------------------------------------------------------

#[test]
fn mqx_weights_name_objects_by_uid_and_vertices_by_vertexattr_uid() {
    // "first" has no uid (it gets 1, its place in the file) and no vertexattr (vertex i has
    // the ID i + 1); "second" has `uid 7` and the vertex IDs 30, 10, 20.
    let mqo = format!(
        "{HEADER}IncludeXml \"x.mqx\"\n\
         Object \"first\" {{\n\tvertex 3 {{\n\t\t0 0 0\n\t\t10 0 0\n\t\t0 10 0\n\t}}\n\
         \tface 1 {{\n\t\t3 V(0 1 2)\n\t}}\n}}\n\
         Object \"second\" {{\n\tuid 7\n\tvertex 3 {{\n\t\t100 0 0\n\t\t110 0 0\n\t\t100 10 0\n\t}}\n\
         \tvertexattr {{\n\t\tuid {{\n\t\t\t30\n\t\t\t10\n\t\t\t20\n\t\t}}\n\t}}\n\
         \tface 1 {{\n\t\t3 V(0 1 2)\n\t}}\n}}\nEof\n"
    );
    let mqx = r#"<?xml version="1.0" encoding="UTF-8"?>
<MetasequoiaDocument>
    <Plugin.56A31D20.71F282AB name="Bone">
        <BoneSet2>
            <Bone id="1" name="a" pos="0,0,0">
                <W obj="7"><V v="10" w="100"/><V v="20" w="60"/></W>
            </Bone>
            <Bone id="2" name="b" parent="1" pos="0,10,0">
                <W obj="7"><V v="20" w="40"/><V v="99" w="100"/></W>
                <W obj="1"><V v="1" w="100"/></W>
            </Bone>
        </BoneSet2>
        <Obj id="7"/>
    </Plugin.56A31D20.71F282AB>
</MetasequoiaDocument>
"#;
    let imported = read_mqo_with_mqx(mqo.as_bytes(), mqx.as_bytes(), &MqoImportOptions::default())
        .expect("imports");
    let model = &imported.model;
    assert_valid(model);
    let names: Vec<String> = model
        .bones
        .iter()
        .map(|b| b.name_ja.as_str().into())
        .collect();
    assert_eq!(names, ["a", "b", "センター"]);
    assert_eq!(model.bones[1].parent.map(|p| p.get()), Some(0));
    assert_close(
        V3::from(model.bones[1].position.to_array()),
        [0.0, 1.0, 0.0],
        0.0,
        "bone b",
    );
    let weight_at = |at: [f32; 3]| {
        let [v] = vertices_at(model, at)[..] else {
            panic!("one vertex at {at:?}");
        };
        model.vertices[v].weight.clone()
    };
    let bone = |i: usize| Some(crate::model::BoneIdx::new(i));
    // first, ID 1 → b; IDs 2 and 3 → the root.
    assert_eq!(weight_at([0.0, 0.0, 0.0]), Weight::Bdef1 { bone: bone(1) });
    assert_eq!(weight_at([1.0, 0.0, 0.0]), Weight::Bdef1 { bone: bone(2) });
    // second: index 1 is ID 10 → a; index 2 is ID 20 → a 60 %, b 40 %; index 0 is ID 30 →
    // the root.
    assert_eq!(weight_at([11.0, 0.0, 0.0]), Weight::Bdef1 { bone: bone(0) });
    assert_eq!(
        weight_at([10.0, 1.0, 0.0]),
        Weight::Bdef2 {
            bones: [bone(0), bone(1)],
            weight: 0.6
        }
    );
    assert_eq!(weight_at([10.0, 0.0, 0.0]), Weight::Bdef1 { bone: bone(2) });
    let notes = &imported.report.notes;
    assert!(notes.contains(&MqoNote::DanglingWeights {
        bone: "b".into(),
        count: 1
    }));
    assert!(notes.contains(&MqoNote::RootBoneAdded {
        name: "センター".into(),
        vertices: 3
    }));
}

// ---------------------------------------------------------------------------------------------
// .mqoz: the MQO and its MQX in a zip
// ---------------------------------------------------------------------------------------------

fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write as _;
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in files {
        writer
            .start_file(
                *name,
                zip::write::SimpleFileOptions::default()
                    .compression_method(zip::CompressionMethod::Deflated),
            )
            .unwrap();
        writer.write_all(data).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

#[test]
fn mqoz_archive_holds_the_mqo_and_its_mqx() {
    let mqo = cube("\tuid 1\n").replacen(
        "Format Text Ver 1.1\n",
        "Format Text Ver 1.1\nIncludeXml \"sub\\Bones.MQX\"\n",
        1,
    );
    // One bone weighting the cube's vertex 1 (index 0, at (−10, 10, 10)).
    let mqx = br#"<MetasequoiaDocument><Plugin.56A31D20.71F282AB><BoneSet2>
        <Bone id="1" name="top" pos="0,10,0"><W obj="1"><V v="1" w="100"/></W></Bone>
        </BoneSet2></Plugin.56A31D20.71F282AB></MetasequoiaDocument>"#;
    // The MQX is found by its file name in any letter case, whatever folder it names.
    let archive = zip(&[
        ("readme.txt", b"not read"),
        ("model/cube.mqo", mqo.as_bytes()),
        ("model/bones.mqx", mqx),
    ]);
    assert!(is_archive(&archive));
    let imported = import_with(&archive, &MqoImportOptions::default());
    assert_eq!(imported.model.faces.len(), 12);
    assert_eq!(imported.model.bones.len(), 2, "top and the root");
    assert!(!imported.report.mqx_missing());
    for v in vertices_at(&imported.model, [-1.0, 1.0, -1.0]) {
        assert_eq!(bone_of(&imported.model, v), Some(0));
    }
    assert_eq!(imported.report.file_size, archive.len());

    // Without the MQX in it, the bones are reported missing.
    let alone = zip(&[("cube.mqo", mqo.as_bytes())]);
    let imported = import_with(&alone, &MqoImportOptions::default());
    assert!(imported.report.notes.contains(&MqoNote::MqxMissing {
        file: "sub\\Bones.MQX".into(),
        reason: MqxUnavailable::BytesOnly
    }));
    assert_eq!(imported.model.bones.len(), 1);

    // An archive with no .mqo, and a broken one, are refused.
    let empty = zip(&[("readme.txt", b"no model")]);
    let error = read_mqo(&empty, &MqoImportOptions::default()).expect_err("refused");
    assert!(matches!(error, MqoError::Archive { .. }), "{error}");
    assert!(error.to_string().contains("no .mqo"), "{error}");
    let error =
        read_mqo(&archive[..archive.len() / 2], &MqoImportOptions::default()).expect_err("refused");
    assert!(matches!(error, MqoError::Archive { .. }), "{error}");
}

// ---------------------------------------------------------------------------------------------
// MQX morphs
// ---------------------------------------------------------------------------------------------

#[test]
fn mqx_morph_targets_become_vertex_morphs_of_their_base() {
    // "base" is a triangle mirrored on X; "smile" is the same triangle with vertex 0 moved by
    // (5, 0, −10) MQO: PMX (0.5, 0, 1) on the original, mirrored on the copy to (−0.5, 0, 1).
    let object = |name: &str, extra: &str, first: &str| {
        format!(
            "Object \"{name}\" {{\n{extra}\tvertex 3 {{\n\t\t{first}\n\t\t20 0 0\n\t\t10 10 0\n\t}}\n\
             \tface 1 {{\n\t\t3 V(0 1 2)\n\t}}\n}}\n"
        )
    };
    let mqo = format!(
        "{HEADER}IncludeXml \"m.mqx\"\n{}{}Eof\n",
        object("base", "\tmirror 1\n\tmirror_axis 1\n", "10 0 0"),
        object("smile", "\tvisible 0\n", "15 0 -10"),
    );
    let mqx = br#"<MetasequoiaDocument><Plugin.56A31D20.C452C6DB><MorphSet>
        <TargetList base="base"><Target name="smile" param="0"/><Target name="gone"/></TargetList>
        </MorphSet></Plugin.56A31D20.C452C6DB></MetasequoiaDocument>"#;
    let imported =
        read_mqo_with_mqx(mqo.as_bytes(), mqx, &MqoImportOptions::default()).expect("imports");
    let model = &imported.model;
    assert_valid(model);
    // The target is not drawn: only the base and its mirror image.
    assert_eq!(model.faces.len(), 2);
    assert_eq!(model.vertices.len(), 6);
    assert_eq!(model.morphs.len(), 1);
    assert_eq!(model.morphs[0].name_ja.as_str(), "smile");
    let crate::model::MorphOffsets::Vertex(offsets) = &model.morphs[0].offsets else {
        panic!("a vertex morph");
    };
    let mut moved: Vec<([f32; 3], [f32; 3])> = offsets
        .iter()
        .map(|o| (pos(model, o.vertex.get()).to_array(), o.offset.to_array()))
        .collect();
    moved.sort_by(|a, b| a.0[0].total_cmp(&b.0[0]));
    assert_eq!(moved.len(), 2);
    assert_close(
        V3::from(moved[0].0),
        [-1.0, 0.0, 0.0],
        1e-6,
        "mirrored vertex",
    );
    assert_close(
        V3::from(moved[0].1),
        [-0.5, 0.0, 1.0],
        1e-6,
        "mirrored offset",
    );
    assert_close(V3::from(moved[1].0), [1.0, 0.0, 0.0], 1e-6, "vertex");
    assert_close(V3::from(moved[1].1), [0.5, 0.0, 1.0], 1e-6, "offset");
    assert!(
        imported
            .report
            .notes
            .contains(&MqoNote::MorphTargetMismatch {
                base: "base".into(),
                target: "gone".into()
            })
    );
    // A morph target is not a hidden object the user should hear about.
    assert_eq!(imported.report.hidden_objects().count(), 0);
}

#[test]
fn refusals_say_their_detail_in_both_languages() {
    use crate::i18n::Language;
    let vertices = ["0 0 0", "10 0 0", "0 10 0"];
    let broken = [
        String::new(),
        "Hello\n".to_owned(),
        format!("{HEADER}Object \"o\" {{\n\tvertex x {{\n"),
        format!("{HEADER}Object \"o\" {{\n\tvertex 1 {{\n\t\t0 0 0\n\t\t0 0 0\n\t}}\n}}\n"),
        one_object("", "", &vertices, &["3 V(0 1 7)"]),
        one_object("", "", &vertices, &["1 V(0)"]),
        one_object("", "", &vertices, &["3 V(0 1 2) V(0 1 2)"]),
        one_object("", "", &vertices, &["3 M(0"]),
        one_object("", "\tfacet nan\n", &vertices, &["3 V(0 1 2)"]),
        format!("{HEADER}Object \"o\" {{\n\tvertex 1 {{\n\t\t0 0 0\n\t}}\n"),
    ];
    for text in &broken {
        let error = import_error(text);
        let message = error.message();
        assert!(message.is_translated(), "{error}");
        let japanese = message.render(Language::Japanese);
        let english = message.render(Language::English);
        assert!(japanese.contains("行"), "{japanese}");
        assert!(!english.chars().any(|c| c > '\u{3000}'), "{english}");
        assert!(
            crate::formats::ReadError::from(error)
                .to_message()
                .is_translated()
        );
    }
    let empty = import_error("");
    assert!(
        empty.message_ja().contains("ファイルが空です"),
        "{}",
        empty.message_ja()
    );
    let count = import_error(&format!("{HEADER}Object \"o\" {{\n\tvertex x {{\n"));
    assert!(
        count
            .message_ja()
            .contains("頂点数が必要ですが、「x」があります"),
        "{}",
        count.message_ja()
    );
}
