//! The paths a big PMX file takes: read from the disk through the reader's window
//! (`pmx::read_file`), the vertices and faces read by a second thread, the summary `info` reads,
//! the writer that streams into the file with two threads (`pmx::write_file`), and the atomic
//! save around it. Each must give exactly what the plain in-memory, one-thread reader and
//! writer give, also on damaged files and on models that cannot be written.

// A failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::{self, pmx};
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::{IndexSizes, Model, PmxVersion, Weight};
use std::fs::File;
use std::sync::OnceLock;

/// A model whose file is past the size where the reader and writer use two threads (16 MB),
/// with every section and every weight type, as PMX 2.1 with two additional UVs.
fn big() -> &'static (Model, Vec<u8>) {
    static BIG: OnceLock<(Model, Vec<u8>)> = OnceLock::new();
    BIG.get_or_init(|| {
        let model = large_model(&LargeModelSpec {
            vertices: 200_000,
            faces: 400_000,
            additional_uvs: 2,
            ..LargeModelSpec::small()
        });
        let (bytes, _) = pmx::write(&model, &Default::default()).unwrap();
        assert!(bytes.len() > 17 << 20, "{} bytes", bytes.len());
        // The model as a file gives it back (with the index sizes it was written with).
        let (read, _) = pmx::read_on_one_thread(&bytes, &LoadOptions::default()).unwrap();
        (read, bytes)
    })
}

fn recovering() -> LoadOptions {
    LoadOptions {
        recover: true,
        ..LoadOptions::default()
    }
}

fn file_with(bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pmx");
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

#[test]
fn a_big_file_reads_the_same_from_memory_from_the_disk_and_on_one_thread() {
    let (model, bytes) = big();
    let (one_thread, one_report) = pmx::read_on_one_thread(bytes, &LoadOptions::default()).unwrap();
    assert!(&one_thread == model);
    let (two_threads, two_report) = pmx::read(bytes, &LoadOptions::default()).unwrap();
    assert!(two_threads == one_thread, "two threads");
    assert_eq!(two_report, one_report);
    let (_dir, path) = file_with(bytes);
    let file = File::open(&path).unwrap();
    let (from_disk, disk_report) =
        pmx::read_file(&file, bytes.len(), &LoadOptions::default(), &|_| {}, None).unwrap();
    assert!(from_disk == one_thread, "from the disk");
    assert_eq!(disk_report, one_report);
    let loaded = formats::load_path(&path, &LoadOptions::default()).unwrap();
    assert!(loaded.model == one_thread, "load_path");
    // The progress a load reports counts both readers' bytes: it only grows, and it ends near
    // the end of the file rather than jumping there when the first reader passes the faces.
    let reports = std::cell::RefCell::new(Vec::new());
    let record = |at: usize| reports.borrow_mut().push(at);
    pmx::read_file(&file, bytes.len(), &LoadOptions::default(), &record, None).unwrap();
    let reports = reports.into_inner();
    assert!(
        reports.windows(2).all(|pair| pair[0] <= pair[1]),
        "{reports:?}"
    );
    assert!(reports.iter().all(|&at| at <= bytes.len()));
    let last = *reports.last().unwrap();
    assert!(last > bytes.len() / 2, "{last} of {}", bytes.len());
}

#[test]
fn a_damaged_big_file_fails_and_recovers_as_on_one_thread() {
    let (_, bytes) = big();
    // Damage in the vertices (a weight type byte), in the faces (the count), in the morphs
    // (a kind byte) and a cut in the middle of the morphs and of the vertices.
    let vertices_at = 17 + bytes_of_texts(bytes);
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut weight = bytes.clone();
    // The first vertex's weight type: after the count, position, normal, UV and 2 UV channels.
    weight[vertices_at + 4 + 32 + 32] = 9;
    cases.push(("weight type", weight));
    let mut weight_later = bytes.clone();
    let index = find_vertex(bytes, vertices_at, 150_000);
    weight_later[index + 32 + 32] = 7;
    cases.push(("weight type of vertex 150000", weight_later));
    cases.push((
        "cut in the vertices",
        bytes[..vertices_at + 5_000_000].to_vec(),
    ));
    cases.push(("cut in the morphs", bytes[..bytes.len() - 200_000].to_vec()));
    let mut morph_kind = bytes.clone();
    let morph_at = bytes.len() - 150_000;
    // Not necessarily a kind byte: whatever it hits, both readers must agree.
    morph_kind[morph_at] ^= 0x5a;
    cases.push(("a flipped byte near the end", morph_kind));
    for (what, damaged) in &cases {
        for options in [LoadOptions::default(), recovering()] {
            let one = pmx::read_on_one_thread(damaged, &options);
            let two = pmx::read(damaged, &options);
            assert!(two == one, "{what}, recover {}", options.recover);
            let (_dir, path) = file_with(damaged);
            let file = File::open(&path).unwrap();
            let reports = std::cell::RefCell::new(Vec::new());
            let record = |at: usize| reports.borrow_mut().push(at);
            let from_disk = pmx::read_file(&file, damaged.len(), &options, &record, None);
            assert_eq!(
                from_disk, one,
                "{what} from the disk, recover {}",
                options.recover
            );
            // A reading that falls back to one thread does not count the workers' bytes
            // twice: the progress still only grows and stays in the file.
            let reports = reports.into_inner();
            assert!(
                reports.windows(2).all(|pair| pair[0] <= pair[1])
                    && reports.iter().all(|&at| at <= damaged.len()),
                "{what}, recover {}: progress {reports:?}",
                options.recover
            );
        }
    }
}

/// The bytes of the four model info texts of a PMX file (after the 17-byte header).
fn bytes_of_texts(bytes: &[u8]) -> usize {
    let mut at = 17;
    for _ in 0..4 {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        at += 4 + len;
    }
    at - 17
}

/// Where vertex `target` starts, walking the vertex section of `bytes` (2 additional UVs).
fn find_vertex(bytes: &[u8], vertices_at: usize, target: usize) -> usize {
    let bone = bytes[14] as usize;
    let mut at = vertices_at + 4;
    for _ in 0..target {
        at += 32 + 32;
        let weights = match bytes[at] {
            0 => bone,
            1 => 2 * bone + 4,
            2 | 4 => 4 * bone + 16,
            _ => 2 * bone + 4 + 36,
        };
        at += 1 + weights + 4;
    }
    at
}

#[test]
fn the_summary_counts_what_the_reader_reads() {
    let (model, bytes) = big();
    let summary =
        pmx::read_summary(pmx::SummarySource::Bytes(bytes), &LoadOptions::default()).unwrap();
    assert_eq!(summary.vertices, model.vertices.len());
    assert_eq!(summary.faces, model.faces.len());
    let offsets: usize = model.morphs.iter().map(|m| m.offsets.len()).sum();
    assert_eq!(summary.morph_offsets, offsets);
    assert!(summary.model.vertices.is_empty() && summary.model.faces.is_empty());
    assert!(summary.model.bones == model.bones, "bones");
    assert!(summary.model.materials == model.materials, "materials");
    assert_eq!(summary.model.morphs.len(), model.morphs.len());
    assert_eq!(summary.model.additional_uvs.len(), 2);
    let (_dir, path) = file_with(bytes);
    let from_disk = formats::summarize_path(&path, &LoadOptions::default()).unwrap();
    assert_eq!(from_disk.vertices, model.vertices.len());
    assert_eq!(from_disk.faces, model.faces.len());
    // A damaged weight type is found by the summary too, at the same place.
    let mut damaged = bytes.clone();
    let vertices_at = 17 + bytes_of_texts(bytes);
    let at = find_vertex(bytes, vertices_at, 1_000);
    damaged[at + 64] = 9;
    let full = pmx::read(&damaged, &LoadOptions::default()).unwrap_err();
    let counted = pmx::read_summary(pmx::SummarySource::Bytes(&damaged), &LoadOptions::default())
        .unwrap_err();
    assert_eq!(counted.location(), full.location());
}

#[test]
fn the_streaming_and_two_thread_writers_write_the_same_bytes() {
    let (model, bytes) = big();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("written.pmx");
    let file = File::create(&path).unwrap();
    let report = pmx::write_file(model, &Default::default(), &file).unwrap();
    drop(file);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert!(
        std::fs::read(&path).unwrap() == *bytes,
        "write_file differs"
    );
    let mut streamed = Vec::new();
    pmx::write_to(model, &Default::default(), &mut streamed).unwrap();
    assert!(streamed == *bytes, "write_to differs");
    // Through the atomic save, with every version, encoding and index size choice.
    for version in [PmxVersion::V2_0, PmxVersion::V2_1] {
        let options = pmx::PmxSaveOptions {
            version: Some(version),
            allow_version_violations: true,
            ..Default::default()
        };
        let (expected, expected_report) = pmx::write(model, &options).unwrap();
        let report = formats::save_path(
            model,
            &path,
            &formats::SaveOptions {
                pmx: options,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(std::fs::read(&path).unwrap() == expected, "{version:?}");
        assert_eq!(report, expected_report);
    }
}

#[test]
fn the_two_thread_writer_fails_as_the_plain_writer_does() {
    let (model, _) = big();
    // An index that does not fit: a vertex weight naming bone 40,000 with 2-byte bone indices,
    // and a morph offset after it naming a vertex past 4-byte... both in file order.
    let mut broken = model.clone();
    broken.vertices[150_000].weight = Weight::Bdef1 {
        bone: Some(pmx_core::model::BoneIdx::new(40_000)),
    };
    broken.header.index_sizes = Some(IndexSizes {
        bone: 2,
        ..IndexSizes::minimal_for(&broken)
    });
    let options = pmx::PmxSaveOptions {
        index_sizes: pmx::IndexSizeMode::Keep,
        ..Default::default()
    };
    let expected = pmx::write(&broken, &options).unwrap_err();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.pmx");
    std::fs::write(&path, b"the file that was there").unwrap();
    let error = formats::save_path(
        &broken,
        &path,
        &formats::SaveOptions {
            pmx: options,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        error.to_string().ends_with(&expected.to_string()),
        "{error}"
    );
    // Nothing is lost: the file is as it was, no temporary file is left.
    assert_eq!(std::fs::read(&path).unwrap(), b"the file that was there");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
