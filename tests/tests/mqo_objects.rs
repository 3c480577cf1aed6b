//! MQO objects through conversions (issue 39): a morph target holds only the object its morph
//! moves; an MQO's own object settings (`shading`, `facet`, visibility, locking, colour,
//! mirror) and vertex counts survive MQO → model → MQO, and shading survives a PMX file in
//! between; zero-area triangles survive PMX → MQO → PMX; every corpus file both ways, with the
//! MQO at most ten times the PMX's size (sizes and counts printed).

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::mqo::{
    self, MqoExportOptions, MqoImportOptions, read_mqo, read_mqo_with_mqx, write_mqo,
};
use pmx_core::formats::{json, pmx};
use pmx_core::model::{
    Material, Model, Morph, MorphOffsets, MorphPanel, Vec2, Vec3, Vertex, VertexIdx,
    VertexMorphOffset, Weight,
};
use pmx_tests::{corpus_dir, files_with_extension};

fn vertex(x: f32, y: f32, z: f32) -> Vertex {
    Vertex {
        position: Vec3::new(x, y, z),
        normal: Vec3::new(0.0, 0.0, -1.0),
        uv: Vec2::new(x, y),
        weight: Weight::Bdef1 { bone: None },
        edge_scale: 1.0,
    }
}

/// `objects` separate grids of `side`×`side` quads, one material each, side by side in X.
fn grids(objects: usize, side: usize) -> Model {
    let mut model = Model::new_empty();
    for object in 0..objects {
        let first = model.vertices.len();
        for row in 0..=side {
            for column in 0..=side {
                model.vertices.push(vertex(
                    object as f32 * 2.0 + column as f32 / side as f32,
                    row as f32 / side as f32,
                    0.0,
                ));
            }
        }
        let at = |row: usize, column: usize| VertexIdx::new(first + row * (side + 1) + column);
        for row in 0..side {
            for column in 0..side {
                let (a, b, c, d) = (
                    at(row, column),
                    at(row + 1, column),
                    at(row + 1, column + 1),
                    at(row, column + 1),
                );
                model.faces.push([a, b, c]);
                model.faces.push([a, c, d]);
            }
        }
        model.materials.push(Material {
            name_ja: format!("材質{object}").into(),
            name_en: format!("material{object}").into(),
            face_index_count: (side * side * 6) as u32,
            ..Material::default()
        });
    }
    model
}

/// A morph listing every vertex, moving only those of `moved` objects (PmxEditor's morphs list
/// unmoved vertices with zero offsets too).
fn morph_listing_everything(
    model: &Model,
    name: &str,
    moved: &[usize],
    per_object: usize,
) -> Morph {
    let offsets = (0..model.vertices.len())
        .map(|v| VertexMorphOffset {
            vertex: VertexIdx::new(v),
            offset: if moved.contains(&(v / per_object)) {
                Vec3::new(0.0, 0.0, 0.25)
            } else {
                Vec3::new(0.0, 0.0, 0.0)
            },
        })
        .collect();
    Morph {
        name_ja: name.into(),
        name_en: name.into(),
        panel: MorphPanel::Other,
        offsets: MorphOffsets::Vertex(offsets),
    }
}

fn object_names(mqo_bytes: &[u8]) -> Vec<String> {
    let (document, _) = mqo::parse_mqo(mqo_bytes, &MqoImportOptions::default()).unwrap();
    document.objects.iter().map(|o| o.name.clone()).collect()
}

#[test]
fn a_morph_on_one_object_of_many_writes_only_that_object() {
    let side = 12;
    let per_object = (side + 1) * (side + 1);
    let mut model = grids(8, side);
    let plain = write_mqo(&model, &MqoExportOptions::default()).unwrap();
    model
        .morphs
        .push(morph_listing_everything(&model, "あ", &[3], per_object));
    model
        .morphs
        .push(morph_listing_everything(&model, "い", &[1, 6], per_object));
    let export = write_mqo(&model, &MqoExportOptions::default()).unwrap();

    // Content: one target for あ (under object 3), two for い.
    assert_eq!(export.report.morph_targets, 3);
    let names = object_names(&export.mqo);
    assert_eq!(names.len(), 8 + 3);
    assert!(names.contains(&"あ".to_owned()), "{names:?}");
    assert!(names.contains(&"い:材質1".to_owned()), "{names:?}");
    assert!(names.contains(&"い:材質6".to_owned()), "{names:?}");
    // Size: each target is about one object, an eighth of the geometry.
    let per_target = plain.mqo.len() / 8;
    assert!(
        export.mqo.len() <= plain.mqo.len() + 3 * per_target * 13 / 10,
        "{} bytes with 3 targets, {} without",
        export.mqo.len(),
        plain.mqo.len()
    );

    // Read back: the morphs move the same vertices by the same amount.
    let (_, mqx) = export.mqx.as_ref().unwrap();
    let back = read_mqo_with_mqx(&export.mqo, mqx, &MqoImportOptions::default())
        .unwrap()
        .model;
    for (name, objects) in [("あ", 1usize), ("い", 2)] {
        let morph = back
            .morphs
            .iter()
            .find(|m| m.name_ja.as_str() == name)
            .unwrap();
        let MorphOffsets::Vertex(offsets) = &morph.offsets else {
            panic!("{name} is a vertex morph");
        };
        assert_eq!(offsets.len(), objects * per_object, "{name}");
        for offset in offsets {
            assert!((offset.offset.z - 0.25).abs() < 1e-5, "{name}: {offset:?}");
        }
    }
}

/// Two objects with their own settings: a flat cube at facet 30, locked, coloured; a smooth
/// strip mirrored in X; and a hidden one.
const SETTINGS_MQO: &str = "Metasequoia Document\r
Format Text Ver 1.0\r
\r
Material 1 {\r
\t\"mat\" shader(3) col(1.000 1.000 1.000 1.000) dif(0.800) amb(0.600) emi(0.000) spc(0.000) power(5.00)\r
}\r
Object \"flat\" {\r
\tdepth 0\r
\tfolding 0\r
\tscale 1 1 1\r
\trotation 0 0 0\r
\ttranslation 0 0 0\r
\tvisible 15\r
\tlocking 1\r
\tshading 0\r
\tfacet 30\r
\tcolor 0.250 0.500 0.750\r
\tcolor_type 1\r
\tvertex 8 {\r
\t\t-1 -1 -1\r
\t\t1 -1 -1\r
\t\t1 1 -1\r
\t\t-1 1 -1\r
\t\t-1 -1 1\r
\t\t1 -1 1\r
\t\t1 1 1\r
\t\t-1 1 1\r
\t}\r
\tface 6 {\r
\t\t4 V(0 3 2 1) M(0)\r
\t\t4 V(4 5 6 7) M(0)\r
\t\t4 V(0 1 5 4) M(0)\r
\t\t4 V(2 3 7 6) M(0)\r
\t\t4 V(1 2 6 5) M(0)\r
\t\t4 V(0 4 7 3) M(0)\r
\t}\r
}\r
Object \"half\" {\r
\tdepth 0\r
\tfolding 1\r
\tscale 1 1 1\r
\trotation 0 0 0\r
\ttranslation 0 0 0\r
\tvisible 15\r
\tlocking 0\r
\tshading 1\r
\tfacet 30\r
\tcolor 0.900 0.100 0.100\r
\tcolor_type 0\r
\tmirror 1\r
\tmirror_axis 1\r
\tmirror_dis 0\r
\tvertex 6 {\r
\t\t3 0 0\r
\t\t4 0.2 0\r
\t\t5 0.9 0\r
\t\t3 0 1\r
\t\t4 0.2 1\r
\t\t5 0.9 1\r
\t}\r
\tface 2 {\r
\t\t4 V(0 1 4 3) M(0)\r
\t\t4 V(1 2 5 4) M(0)\r
\t}\r
}\r
Object \"hidden\" {\r
\tdepth 1\r
\tvisible 0\r
\tlocking 0\r
\tshading 1\r
\tfacet 45\r
\tvertex 3 {\r
\t\t0 5 0\r
\t\t1 5 0\r
\t\t0 6 0\r
\t}\r
\tface 1 {\r
\t\t3 V(0 2 1) M(0)\r
\t}\r
}\r
Eof\r
";

/// Per object: (name, shading, facet, visible, locked, colour, mirror, vertices, faces).
type ObjectSummary = (
    String,
    bool,
    u32,
    bool,
    bool,
    Option<[u32; 3]>,
    u8,
    usize,
    usize,
);

fn summary(mqo_bytes: &[u8]) -> Vec<ObjectSummary> {
    let (document, _) = mqo::parse_mqo(mqo_bytes, &MqoImportOptions::default()).unwrap();
    document
        .objects
        .iter()
        .map(|o| {
            (
                o.name.clone(),
                o.smooth_shading,
                o.facet.to_bits(),
                o.visible,
                o.locked,
                o.color.map(|c| c.map(|v| (v * 1000.0).round() as u32)),
                o.mirror_axis,
                o.vertices.len(),
                o.faces.len(),
            )
        })
        .collect()
}

#[test]
fn an_mqo_with_facet_30_and_shading_0_keeps_its_object_settings() {
    let options = MqoImportOptions::default();
    let imported = read_mqo(SETTINGS_MQO.as_bytes(), &options).unwrap().model;
    let export = MqoExportOptions {
        bones: false,
        morphs: false,
        ..MqoExportOptions::default()
    };
    let original = summary(SETTINGS_MQO.as_bytes());

    // MQO → model → MQO: every setting and vertex count (the cube's quads come back as
    // triangles: twice the faces; the mirror's copy is made again by Metasequoia).
    let written = write_mqo(&imported, &export).unwrap().mqo;
    let again = summary(&written);
    assert_eq!(again.len(), original.len());
    for (before, after) in original.iter().zip(&again) {
        let mut triangulated = before.clone();
        triangulated.8 = before.8 * 2 - usize::from(before.0 == "hidden");
        assert_eq!(&triangulated, after);
    }

    // Through the JSON form (the editor's lossless document): the same.
    let (from_json, _) = json::read(&json::write(&imported).unwrap()).unwrap();
    assert_eq!(summary(&write_mqo(&from_json, &export).unwrap().mqo), again);

    // Through a PMX file the objects are the materials' (one here), but the shading is read
    // from the normals: the flat cube (the material's first 12 triangles) is written flat,
    // and its 8 corners are welded again.
    let (pmx_bytes, _) = pmx::write(&imported, &pmx::PmxSaveOptions::default()).unwrap();
    let (mut cube, _) = pmx::read(&pmx_bytes, &LoadOptions::default()).unwrap();
    assert!(cube.mqo.is_empty(), "PMX has no place for the objects");
    cube.faces.truncate(12);
    cube.materials[0].face_index_count = 36;
    let flat = summary(&write_mqo(&cube, &export).unwrap().mqo);
    assert_eq!(flat.len(), 1);
    assert!(!flat[0].1, "the flat cube is written with shading 0");
    assert_eq!(flat[0].7, 8, "its 8 corners welded again");
}

#[test]
fn zero_area_triangles_survive_pmx_to_mqo_to_pmx() {
    let mut model = grids(1, 2);
    let (a, b) = (
        model_vertex_index(&model, 0.0, 0.0),
        model_vertex_index(&model, 0.5, 0.0),
    );
    // Two corners welded (a copy at the same place), one vertex used twice, three in a line.
    model.vertices.push(vertex(0.0, 0.0, 0.0));
    let copy = VertexIdx::new(model.vertices.len() - 1);
    let c = model_vertex_index(&model, 1.0, 0.0);
    model.faces.extend([[a, copy, b], [a, a, b], [a, b, c]]);
    model.materials[0].face_index_count += 9;
    let export = write_mqo(&model, &MqoExportOptions::default()).unwrap();
    let back = read_mqo(&export.mqo, &MqoImportOptions::default())
        .unwrap()
        .model;
    assert_eq!(
        back.faces.len(),
        model.faces.len(),
        "every triangle, zero-area ones too"
    );
}

fn model_vertex_index(model: &Model, x: f32, y: f32) -> VertexIdx {
    VertexIdx::new(
        model
            .vertices
            .iter()
            .position(|v| v.position.x == x && v.position.y == y)
            .unwrap(),
    )
}

/// Every corpus PMX through MQO and back, and every corpus MQO through PMX and back: faces
/// kept, MQO at most ten times the PMX; sizes and counts printed.
#[test]
fn corpus_files_both_ways() {
    if let Some(dir) = corpus_dir("pmx") {
        for path in files_with_extension(&dir, "pmx") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&path).unwrap();
            let Ok((model, _)) = pmx::read(&bytes, &LoadOptions::default()) else {
                eprintln!("{name}: not read (a deliberately broken file)");
                continue;
            };
            let export = write_mqo(&model, &MqoExportOptions::default()).unwrap();
            let mqo_size = export.mqo.len() + export.mqx.as_ref().map_or(0, |(_, x)| x.len());
            let back = match &export.mqx {
                Some((_, mqx)) => read_mqo_with_mqx(&export.mqo, mqx, &MqoImportOptions::default()),
                None => read_mqo(&export.mqo, &MqoImportOptions::default()),
            }
            .unwrap()
            .model;
            let drawn: usize = model
                .materials
                .iter()
                .map(|m| m.face_index_count as usize / 3)
                .sum::<usize>()
                .min(model.faces.len());
            eprintln!(
                "PMX → MQO → PMX {name}: PMX {} bytes, MQO+MQX {mqo_size} bytes ({:.2}×), {} morph targets; faces {} → {}; vertices {} → {}",
                bytes.len(),
                mqo_size as f64 / bytes.len() as f64,
                export.report.morph_targets,
                drawn,
                back.faces.len(),
                model.vertices.len(),
                back.vertices.len()
            );
            assert_eq!(back.faces.len(), drawn, "{name}: every triangle");
            assert!(
                mqo_size <= bytes.len() * 10,
                "{name}: MQO {mqo_size} bytes for a {}-byte PMX",
                bytes.len()
            );
        }
    }
    let Some(dir) = corpus_dir("mqo") else { return };
    let mut files = files_with_extension(&dir, "mqo");
    files.extend(files_with_extension(
        &dir.join("anatawa12_simple_bone"),
        "mqo",
    ));
    let (mut kept, mut total) = (0, 0);
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(first) = mqo::load_mqo_path(&path, &MqoImportOptions::default()) else {
            eprintln!("{name}: not imported");
            continue;
        };
        let original = summary(&std::fs::read(&path).unwrap());
        let export = MqoExportOptions::default();
        // In memory (the editor's import then export) and through a PMX file.
        let direct = summary(&write_mqo(&first.model, &export).unwrap().mqo);
        let (pmx_bytes, _) = pmx::write(&first.model, &pmx::PmxSaveOptions::default()).unwrap();
        let (from_pmx, _) = pmx::read(&pmx_bytes, &LoadOptions::default()).unwrap();
        let through_pmx = summary(&write_mqo(&from_pmx, &export).unwrap().mqo);
        let shading_and_vertices = |objects: &[ObjectSummary]| {
            objects
                .iter()
                .filter(|o| o.7 > 0)
                .map(|o| (o.0.clone(), o.1, o.2, o.7))
                .collect::<Vec<_>>()
        };
        // Objects without faces (and morph targets, which the model holds as morphs) are not
        // objects of the model.
        let wanted: Vec<_> = shading_and_vertices(&original)
            .into_iter()
            .filter(|o| direct.iter().any(|d| d.0 == o.0))
            .collect();
        let got: Vec<_> = shading_and_vertices(&direct)
            .into_iter()
            .filter(|o| wanted.iter().any(|w| w.0 == o.0))
            .collect();
        total += 1;
        if wanted == got {
            kept += 1;
        }
        eprintln!(
            "MQO → model → MQO {name}: {} objects, shading and vertex counts {}; through PMX: {} objects ({} vertices, {} before)",
            original.len(),
            if wanted == got { "kept" } else { "changed" },
            through_pmx.len(),
            through_pmx.iter().map(|o| o.7).sum::<usize>(),
            original.iter().map(|o| o.7).sum::<usize>(),
        );
        assert_eq!(wanted, got, "{name}: shading and vertex counts");
    }
    eprintln!("MQO → model → MQO: {kept} of {total} files keep shading and vertex counts");
}
