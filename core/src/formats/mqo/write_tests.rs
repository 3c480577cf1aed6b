// Tests: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use super::read::{MqoImportOptions, parse_mqo, read_mqo};
use super::write::*;
use crate::formats::WriteError;
use crate::model::{
    Material, Model, Morph, MorphOffsets, MorphPanel, Text, Vec2, Vec3, Vertex, VertexIdx,
    VertexMorphOffset,
};
use std::path::PathBuf;

/// A unit cube as PMX stores a flat-shaded one: 24 vertices (4 per side, split by normal and
/// UV), 12 triangles, one material.
fn cube() -> Model {
    let mut model = Model::new_empty();
    let sides: [(Vec3, Vec3, Vec3); 6] = [
        (
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ),
        (
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ),
        (
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(0.0, 1.0, 0.0),
        ),
        (
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(0.0, 1.0, 0.0),
        ),
        (
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ),
        (
            Vec3::new(0.0, -1.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, -1.0),
        ),
    ];
    for (normal, right, up) in sides {
        let first = model.vertices.len();
        for (u, v) in [(-1.0f32, 1.0f32), (1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)] {
            let g = |a: Vec3| glam::Vec3::from(a);
            let position = g(normal) + g(right) * u + g(up) * v;
            model.vertices.push(Vertex {
                position: Vec3::new(position.x, position.y, position.z),
                normal,
                uv: Vec2::new((u + 1.0) / 2.0, (1.0 - v) / 2.0),
                ..Vertex::default()
            });
        }
        let index = |i: usize| VertexIdx::new(first + i);
        model.faces.push([index(0), index(1), index(2)]);
        model.faces.push([index(0), index(2), index(3)]);
    }
    model.materials.push(Material {
        name_ja: "白".into(),
        face_index_count: 36,
        ..Material::default()
    });
    model
}

fn text(bytes: &[u8]) -> String {
    encoding_rs::SHIFT_JIS.decode(bytes).0.into_owned()
}

#[test]
fn a_flat_cube_is_welded_to_eight_vertices_with_its_uv_seams_kept() {
    let export = write_mqo(&cube(), &MqoExportOptions::default()).unwrap();
    assert_eq!(export.report.objects, 1);
    assert_eq!(export.report.vertices, 8, "24 PMX vertices at 8 positions");
    assert_eq!(export.report.faces, 12);
    assert!(export.mqx.is_none(), "no bones, no morphs: no .mqx");
    let (document, _) = parse_mqo(&export.mqo, &MqoImportOptions::default()).unwrap();
    let object = &document.objects[0];
    assert_eq!(object.vertices.len(), 8);
    // Scale 10, Z flipped: the PMX corner (1, 1, -1) is the MQO corner (10, 10, 10).
    assert!(object.vertices.contains(&[10.0, 10.0, 10.0]));
    assert!(object.vertices.contains(&[-10.0, -10.0, -10.0]));
    // UVs are per corner: the cube's corners keep each side's own UVs.
    let uvs: std::collections::HashSet<[u32; 2]> = object
        .corner_uvs
        .iter()
        .map(|uv| uv.map(f32::to_bits))
        .collect();
    assert_eq!(uvs.len(), 4);
    // Reading it back gives the 24 PMX vertices again (hard edges by the facet angle).
    let back = read_mqo(&export.mqo, &MqoImportOptions::default())
        .unwrap()
        .model;
    assert_eq!(back.vertices.len(), 24);
    assert_eq!(back.faces.len(), 12);
}

#[test]
fn the_scale_divides_and_multiplies_consistently() {
    let options = MqoExportOptions {
        units_per_pmx_unit: 80.0,
        ..MqoExportOptions::default()
    };
    let export = write_mqo(&cube(), &options).unwrap();
    let (document, _) = parse_mqo(&export.mqo, &MqoImportOptions::default()).unwrap();
    assert!(document.objects[0].vertices.contains(&[80.0, 80.0, 80.0]));
    let back = read_mqo(
        &export.mqo,
        &MqoImportOptions {
            units_per_pmx_unit: 80.0,
            ..MqoImportOptions::default()
        },
    )
    .unwrap()
    .model;
    let extent = back
        .vertices
        .iter()
        .map(|v| v.position.x.abs())
        .fold(0.0f32, f32::max);
    assert_eq!(extent, 1.0);
}

#[test]
fn a_name_cp932_cannot_hold_makes_the_file_utf8_with_a_code_page_line() {
    let mut model = cube();
    model.materials[0].name_ja = "머리카락".into();
    let export = write_mqo(&model, &MqoExportOptions::default()).unwrap();
    let written = String::from_utf8(export.mqo.clone()).expect("UTF-8");
    assert!(
        written.starts_with("Metasequoia Document\r\nFormat Text Ver 1.0\r\nCodePage utf8\r\n"),
        "{}",
        &written[..80]
    );
    assert!(
        export
            .report
            .losses
            .iter()
            .any(|l| matches!(l, MqoLoss::Utf8CodePage { example } if example == "머리카락"))
    );
    let back = read_mqo(&export.mqo, &MqoImportOptions::default())
        .unwrap()
        .model;
    assert_eq!(back.materials[0].name_ja.as_str(), "머리카락");

    // Japanese alone stays cp932.
    let plain = write_mqo(&cube(), &MqoExportOptions::default()).unwrap();
    assert!(String::from_utf8(plain.mqo.clone()).is_err(), "cp932 bytes");
    assert!(text(&plain.mqo).contains("\"白\" shader(3)"));
}

#[test]
fn texture_paths_are_rewritten_relative_to_the_mqo() {
    let mut model = cube();
    model.textures.push(Text::from("tex\\skin.png"));
    model.materials[0].texture = Some(crate::model::TextureIdx::new(0));
    let options = MqoExportOptions {
        model_dir: Some(PathBuf::from("/models/miku")),
        mqo_dir: Some(PathBuf::from("/models/out/mqo")),
        ..MqoExportOptions::default()
    };
    let export = write_mqo(&model, &options).unwrap();
    assert!(
        text(&export.mqo).contains("tex(\"..\\..\\miku\\tex\\skin.png\")"),
        "{}",
        text(&export.mqo)
    );
    // Without folders the path is written as the model has it.
    let export = write_mqo(&model, &MqoExportOptions::default()).unwrap();
    assert!(text(&export.mqo).contains("tex(\"tex\\skin.png\")"));
}

#[test]
fn a_bad_scale_or_a_face_past_the_vertices_is_an_error_not_a_panic() {
    let options = MqoExportOptions {
        units_per_pmx_unit: 0.0,
        ..MqoExportOptions::default()
    };
    assert!(matches!(
        write_mqo(&cube(), &options),
        Err(WriteError::Unrepresentable { path, .. }) if path == "scale"
    ));
    let mut broken = cube();
    broken.faces[3][1] = VertexIdx::new(99);
    assert!(matches!(
        write_mqo(&broken, &MqoExportOptions::default()),
        Err(WriteError::Unrepresentable { path, .. }) if path == "faces[3]"
    ));
    let mut nan = cube();
    nan.vertices[5].position.y = f32::NAN;
    assert!(matches!(
        write_mqo(&nan, &MqoExportOptions::default()),
        Err(WriteError::Unrepresentable { path, .. }) if path == "vertices[5].position"
    ));
}

#[test]
fn vertices_that_a_morph_moves_apart_are_not_welded() {
    // Two triangles touching at a corner: vertex 1 and vertex 3 share a position, but the
    // morph moves only vertex 3 (a mouth's upper and lower lip).
    let mut model = Model::new_empty();
    for position in [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(2.0, -1.0, 0.0),
    ] {
        model.vertices.push(Vertex {
            position,
            ..Vertex::default()
        });
    }
    model.faces = vec![
        [VertexIdx::new(0), VertexIdx::new(1), VertexIdx::new(2)],
        [VertexIdx::new(3), VertexIdx::new(4), VertexIdx::new(5)],
    ];
    model.materials.push(Material {
        name_ja: "口".into(),
        face_index_count: 6,
        ..Material::default()
    });
    model.morphs.push(Morph {
        name_ja: "あ".into(),
        name_en: Text::default(),
        panel: MorphPanel::Mouth,
        offsets: MorphOffsets::Vertex(vec![VertexMorphOffset {
            vertex: VertexIdx::new(3),
            offset: Vec3::new(0.0, -0.5, 0.0),
        }]),
    });
    let with_morphs = write_mqo(&model, &MqoExportOptions::default()).unwrap();
    assert_eq!(with_morphs.report.vertices, 6);
    assert_eq!(with_morphs.report.morph_targets, 1);
    let (_, mqx) = with_morphs.mqx.as_ref().unwrap();
    let mqx = String::from_utf8(mqx.clone()).unwrap();
    // The part the morph moves is an object of its own (`口_morph`), the morph's base.
    assert!(mqx.contains("<TargetList base=\"口_morph\">"), "{mqx}");
    assert!(mqx.contains("<Target name=\"あ\" param=\"0\"/>"), "{mqx}");
    // Back through the .mqx: the morph moves the lower lip only.
    let back = super::read::read_mqo_with_mqx(
        &with_morphs.mqo,
        with_morphs.mqx.as_ref().unwrap().1.as_slice(),
        &MqoImportOptions::default(),
    )
    .unwrap()
    .model;
    let MorphOffsets::Vertex(offsets) = &back.morphs[0].offsets else {
        panic!("a vertex morph")
    };
    assert_eq!(back.morphs[0].name_ja.as_str(), "あ");
    assert_eq!(offsets.len(), 1);
    assert_eq!(offsets[0].offset, Vec3::new(0.0, -0.5, 0.0));

    let without = MqoExportOptions {
        morphs: false,
        ..MqoExportOptions::default()
    };
    let welded = write_mqo(&model, &without).unwrap();
    assert_eq!(
        welded.report.vertices, 5,
        "without morphs the touching corner is one vertex"
    );
    assert!(welded.report.losses.iter().any(|l| matches!(
        l,
        MqoLoss::MorphsDropped {
            kind: "vertex",
            count: 1
        }
    )));
}

#[test]
fn names_are_made_safe_and_unique_and_the_changes_reported() {
    let mut model = cube();
    model.faces.extend(model.faces.clone());
    model.materials[0].name_ja = "say \"hi\"".into();
    model.materials.push(Material {
        name_ja: "say \"hi\"".into(),
        face_index_count: 36,
        ..Material::default()
    });
    let export = write_mqo(&model, &MqoExportOptions::default()).unwrap();
    let written = text(&export.mqo);
    assert!(written.contains("Object \"say 'hi'\" {"));
    assert!(written.contains("Object \"say 'hi'_2\" {"));
    let losses = &export.report.losses;
    assert!(
        losses
            .iter()
            .any(|l| matches!(l, MqoLoss::QuoteReplaced { .. }))
    );
    assert!(
        losses
            .iter()
            .any(|l| matches!(l, MqoLoss::NameMadeUnique { to, .. } if to == "say 'hi'_2"))
    );
    // Every loss reads in both languages.
    for loss in losses {
        assert!(!loss.message_en().is_empty() && !loss.message_ja().is_empty());
    }
}

#[test]
fn the_report_without_text_equals_the_report_of_the_export() {
    let model = crate::generate::feature_model(
        crate::model::PmxVersion::V2_1,
        crate::model::TextEncoding::Utf16,
        200,
        10,
    );
    for grouping in [MqoObjectGrouping::PerMaterial, MqoObjectGrouping::PerBone] {
        let options = MqoExportOptions {
            grouping,
            ..MqoExportOptions::default()
        };
        assert_eq!(
            mqo_export_report(&model, &options).unwrap(),
            write_mqo(&model, &options).unwrap().report
        );
    }
}
