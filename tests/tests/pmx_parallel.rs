//! The parallel reader and writer on every layout a real PMX file has: both text encodings,
//! 0 to 4 additional UVs, every weight type mixed, every vertex index size (1, 2, 4) and small
//! and large sizes of the other indices, PMX 2.0 and 2.1. On each, the workers (vertex and face
//! chunks, morphs) must engage and give exactly the model and report the reading on one thread
//! gives, from memory and from the disk, and the writer in parts must write the file back byte
//! for byte. Damaged files take the one-thread reading's failure or recovery.

// A failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::pmx;
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::{
    BoneIdx, IndexSizes, Model, Morph, MorphOffsets, MorphPanel, PmxVersion, TextEncoding, Vec3,
    VertexIdx, VertexMorphOffset, Weight,
};
use std::fs::File;

/// A model of `vertices` vertices with every weight type (QDEF in 2.1), `channels` additional
/// UVs, and a vertex morph big enough that the morphs are read in parallel too.
fn model(
    vertices: usize,
    channels: usize,
    bones: usize,
    version: PmxVersion,
    encoding: TextEncoding,
) -> Model {
    let mut model = large_model(&LargeModelSpec {
        vertices,
        faces: vertices * 2,
        bones,
        additional_uvs: channels,
        version,
        ..LargeModelSpec::small()
    });
    model.header.encoding = encoding;
    model.morphs.push(Morph {
        name_ja: "大きいモーフ".into(),
        name_en: "big morph".into(),
        panel: MorphPanel::Other,
        offsets: MorphOffsets::Vertex(
            (0..90_000)
                .map(|j| VertexMorphOffset {
                    vertex: VertexIdx::new(j % vertices),
                    offset: Vec3::new(0.001 * (j % 31) as f32, 0.5, -0.25),
                })
                .collect(),
        ),
    });
    model
}

/// The layouts: a name and the file (written with the sizes the model asks for).
fn layouts() -> Vec<(&'static str, Vec<u8>)> {
    let keep = pmx::PmxSaveOptions {
        index_sizes: pmx::IndexSizeMode::Keep,
        ..Default::default()
    };
    let minimal = pmx::PmxSaveOptions::default();
    let mut cases = Vec::new();
    let mut add = |name, model: Model, options: &pmx::PmxSaveOptions| {
        let (bytes, _) = pmx::write(&model, options).unwrap();
        cases.push((name, bytes));
    };
    // Every weight type, UTF-16, one additional UV, 2-byte vertex indices.
    add(
        "utf16 1 uv",
        model(40_000, 1, 300, PmxVersion::V2_0, TextEncoding::Utf16),
        &minimal,
    );
    // UTF-8 and 4 additional UVs, every weight BDEF4.
    let mut bdef4 = model(30_000, 4, 300, PmxVersion::V2_0, TextEncoding::Utf8);
    let bones = bdef4.bones.len();
    for (i, vertex) in bdef4.vertices.iter_mut().enumerate() {
        vertex.weight = Weight::Bdef4 {
            bones: [0, 1, 2, 3].map(|k| Some(BoneIdx::new((i + k * 7) % bones))),
            weights: [0.4, 0.3, 0.2, 0.1],
        };
    }
    add("utf8 4 uvs bdef4", bdef4, &minimal);
    // PMX 2.1: QDEF and SDEF among the others, no additional UV, 4-byte vertex indices.
    add(
        "2.1 qdef sdef 4-byte vertices",
        model(70_000, 0, 300, PmxVersion::V2_1, TextEncoding::Utf16),
        &minimal,
    );
    // 1-byte vertex and bone indices: few vertices, the morphs make the file big.
    add(
        "1-byte vertices and bones",
        model(200, 2, 100, PmxVersion::V2_1, TextEncoding::Utf8),
        &minimal,
    );
    // Every index 4 bytes wide where 1 or 2 would do (kept as the header says).
    let mut wide = model(20_000, 3, 120, PmxVersion::V2_0, TextEncoding::Utf16);
    wide.header.index_sizes = Some(IndexSizes {
        vertex: 4,
        texture: 4,
        material: 4,
        bone: 4,
        morph: 4,
        rigid_body: 4,
    });
    add("every index 4 bytes", wide, &keep);
    // 2-byte bone indices with 1-byte morph and texture indices.
    let mut mixed = model(25_000, 0, 1_000, PmxVersion::V2_0, TextEncoding::Utf8);
    mixed.header.index_sizes = Some(IndexSizes {
        vertex: 2,
        texture: 1,
        material: 2,
        bone: 2,
        morph: 1,
        rigid_body: 2,
    });
    add("mixed index sizes", mixed, &keep);
    cases
}

#[test]
fn every_layout_reads_in_parallel_as_on_one_thread_and_writes_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in layouts() {
        assert!(bytes.len() > 1 << 20, "{name}: {} bytes", bytes.len());
        let options = LoadOptions::default();
        let (one, one_report) = pmx::read_on_one_thread(&bytes, &options).unwrap();
        let before = pmx::parallel_reads();
        let (parallel, report) = pmx::read(&bytes, &options).unwrap();
        let after = pmx::parallel_reads();
        assert_eq!(
            after.bulk,
            before.bulk + 1,
            "{name}: vertices and faces in parallel"
        );
        assert_eq!(
            after.morphs,
            before.morphs + 1,
            "{name}: morphs in parallel"
        );
        assert!(parallel == one, "{name}: the model");
        assert_eq!(report, one_report, "{name}: the report");

        let path = dir.path().join("layout.pmx");
        std::fs::write(&path, &bytes).unwrap();
        let file = File::open(&path).unwrap();
        let (from_disk, disk_report) =
            pmx::read_file(&file, bytes.len(), &options, &|_| {}, None).unwrap();
        assert_eq!(
            pmx::parallel_reads().bulk,
            before.bulk + 2,
            "{name}: from the disk"
        );
        assert!(from_disk == one, "{name}: the model from the disk");
        assert_eq!(disk_report, one_report, "{name}: the report from the disk");

        let keep = pmx::PmxSaveOptions {
            index_sizes: pmx::IndexSizeMode::Keep,
            ..Default::default()
        };
        let written_path = dir.path().join("written.pmx");
        let written = File::create(&written_path).unwrap();
        let writes = pmx::parallel_writes();
        pmx::write_file(&parallel, &keep, &written).unwrap();
        drop(written);
        assert_eq!(
            pmx::parallel_writes(),
            writes + 1,
            "{name}: written in parts"
        );
        assert!(
            std::fs::read(&written_path).unwrap() == bytes,
            "{name}: written back byte for byte"
        );
    }
}

#[test]
fn damaged_layouts_fail_and_recover_as_on_one_thread() {
    let recover = LoadOptions {
        recover: true,
        ..LoadOptions::default()
    };
    for (name, bytes) in layouts().into_iter().take(3) {
        // Cuts and flipped bytes spread over the file: in the vertices, the faces, the morphs
        // (their counts, kinds, names and offsets) and after them.
        let mut damaged = Vec::new();
        for k in 1..12 {
            let at = bytes.len() * k / 12;
            damaged.push(bytes[..at].to_vec());
            let mut flipped = bytes.clone();
            flipped[at] ^= 0xa5;
            flipped[at + 1] = 0xff;
            damaged.push(flipped);
        }
        for (i, damaged) in damaged.iter().enumerate() {
            for options in [LoadOptions::default(), recover] {
                let one = pmx::read_on_one_thread(damaged, &options);
                let parallel = pmx::read(damaged, &options);
                // As text: a flipped byte can make a float NaN, which is never equal to itself.
                assert!(
                    format!("{parallel:?}") == format!("{one:?}"),
                    "{name}, damage {i}, recover {}: {:?} against {:?}",
                    options.recover,
                    parallel.as_ref().map(|(_, report)| report),
                    one.as_ref().map(|(_, report)| report),
                );
            }
        }
    }
}
