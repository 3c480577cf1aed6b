//! MMD readers' leniency is the floor: PMX and PMD files changed the ways real writers change
//! them (bytes after the last section, text that is not valid in its encoding, a count at the
//! end that overruns the file, a section storing its own index sizes) open here, with notes,
//! whenever mmd-parser (three.js's MMD parser) opens them, holding at least the elements it
//! read. mmd-parser runs through `../shared/tools/peers/mmd-parser-peer`; without node or the
//! peer the comparison is skipped with a printed reason, and every case must still open in
//! recovery mode.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::{pmd, pmx};
use pmx_core::generate::sample_model;
use pmx_core::model::{Model, PmxVersion, TextEncoding};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What mmd-parser said about a file: `None` when the peer cannot run here.
#[derive(Debug)]
struct PeerVerdict {
    ok: bool,
    counts: serde_json::Value,
    error: String,
}

fn peer_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/tools/peers/mmd-parser-peer")
}

/// Runs the peer on `file`; `Err` with the reason when it cannot run (no node, no peer, the
/// package not installed).
fn mmd_parser(file: &Path) -> Result<PeerVerdict, String> {
    let peer = peer_path();
    if !peer.is_file() {
        return Err(format!("{} is absent", peer.display()));
    }
    let output = Command::new("node")
        .arg(&peer)
        .arg(file)
        .output()
        .map_err(|error| format!("node does not run: {error}"))?;
    let line = String::from_utf8_lossy(&output.stdout);
    let json: serde_json::Value = serde_json::from_str(line.trim())
        .map_err(|error| format!("the peer printed no JSON ({error}): {line}"))?;
    if output.status.code() == Some(2) {
        return Err(format!("the peer is not set up: {}", json["error"]));
    }
    Ok(PeerVerdict {
        ok: json["ok"].as_bool() == Some(true),
        counts: json["counts"].clone(),
        error: json["error"].to_string(),
    })
}

/// A changed file and what it is.
struct Case {
    name: String,
    extension: &'static str,
    bytes: Vec<u8>,
}

fn pmx_file(model: &Model, encoding: TextEncoding) -> Vec<u8> {
    let options = pmx::PmxSaveOptions {
        version: Some(PmxVersion::V2_0),
        encoding: Some(encoding),
        ..pmx::PmxSaveOptions::default()
    };
    pmx::write(model, &options).unwrap().0
}

/// `bytes` with the first occurrence of `needle` overwritten by `with` (same length).
fn overwrite(bytes: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the text is in the file");
    let mut changed = bytes.to_vec();
    changed[at..at + with.len()].copy_from_slice(with);
    changed
}

/// Every way real writers change a file, on PMX (UTF-16 and UTF-8) and PMD files made from
/// the sample model.
fn cases() -> Vec<Case> {
    let mut model = sample_model();
    model.info.name_ja = "ミクさん".into();
    // No joints: the file ends with the joint count, which a writer may get wrong.
    model.joints.clear();
    let mut cases = Vec::new();
    let mut add = |name: String, extension: &'static str, bytes: Vec<u8>| {
        cases.push(Case {
            name,
            extension,
            bytes,
        });
    };
    for encoding in [TextEncoding::Utf16, TextEncoding::Utf8] {
        let bytes = pmx_file(&model, encoding);
        let tag = format!("pmx {encoding:?}");
        for trailing in [vec![0u8], vec![0xFD; 7], (0..100u8).collect()] {
            let mut longer = bytes.clone();
            longer.extend_from_slice(&trailing);
            add(
                format!("{tag}: {} trailing bytes", trailing.len()),
                "pmx",
                longer,
            );
        }
        let (name, odd): (Vec<u8>, Vec<u8>) = match encoding {
            // An unpaired surrogate, as some tools cut UTF-16 text.
            TextEncoding::Utf16 => (
                "ミクさん"
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes)
                    .collect(),
                vec![0x00, 0xD8],
            ),
            // Shift_JIS bytes in a UTF-8 file.
            TextEncoding::Utf8 => ("ミクさん".as_bytes().to_vec(), vec![0x83, 0x7E, 0x83]),
        };
        add(
            format!("{tag}: odd text"),
            "pmx",
            overwrite(&bytes, &name, &odd),
        );
        let mut overrun = bytes.clone();
        let at = overrun.len() - 4;
        overrun[at..].copy_from_slice(&3i32.to_le_bytes());
        add(
            format!("{tag}: joint count overruns the end"),
            "pmx",
            overrun,
        );
    }
    let (bytes, _) = pmd::write(&model).unwrap();
    for trailing in [vec![0u8], vec![0xFD; 7], (0..100u8).collect()] {
        let mut longer = bytes.clone();
        longer.extend_from_slice(&trailing);
        add(
            format!("pmd: {} trailing bytes", trailing.len()),
            "pmd",
            longer,
        );
    }
    let mut odd = bytes.clone();
    // The model name (after "Pmd" and the version): bytes that are not Shift_JIS.
    odd[7..9].copy_from_slice(&[0xFF, 0x80]);
    add("pmd: odd text".into(), "pmd", odd);
    let mut overrun = bytes.clone();
    let at = overrun.len() - 4;
    overrun[at..].copy_from_slice(&3u32.to_le_bytes());
    add("pmd: joint count overruns the end".into(), "pmd", overrun);
    cases
}

fn read(
    case: &Case,
    options: &LoadOptions,
) -> Result<(Model, pmx_core::formats::LoadReport), String> {
    match case.extension {
        "pmx" => pmx::read(&case.bytes, options),
        _ => pmd::read(&case.bytes, options),
    }
    .map_err(|error| error.to_string())
}

/// Our counts, named as the peer names them.
fn count(model: &Model, what: &str) -> usize {
    match what {
        "vertices" => model.vertices.len(),
        "faces" => model.faces.len(),
        "materials" => model.materials.len(),
        "bones" => model.bones.len(),
        "rigid_bodies" => model.rigid_bodies.len(),
        "joints" => model.joints.len(),
        _ => 0,
    }
}

#[test]
fn what_mmd_parser_opens_opens_here_with_notes() {
    let recovering = LoadOptions {
        recover: true,
        ..LoadOptions::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let mut skipped: Option<String> = None;
    let mut compared = 0;
    for case in cases() {
        // Whatever the peer says, recovery opens every one of them, and says what it noticed.
        let (recovered, report) =
            read(&case, &recovering).unwrap_or_else(|error| panic!("{}: {error}", case.name));
        assert!(!report.notes.is_empty(), "{}: no note", case.name);
        if skipped.is_some() {
            continue;
        }
        let path = dir.path().join(format!("case.{}", case.extension));
        std::fs::write(&path, &case.bytes).unwrap();
        let verdict = match mmd_parser(&path) {
            Ok(verdict) => verdict,
            Err(reason) => {
                skipped = Some(reason);
                continue;
            }
        };
        if !verdict.ok {
            println!("{}: mmd-parser refuses it ({})", case.name, verdict.error);
            continue;
        }
        compared += 1;
        // The peer opens it: so does an ordinary open here, with notes, and it holds at least
        // what the peer read.
        let (model, report) = read(&case, &LoadOptions::default()).unwrap_or_else(|error| {
            panic!("{}: mmd-parser opens it, we do not: {error}", case.name)
        });
        assert!(!report.notes.is_empty(), "{}: no note", case.name);
        for what in [
            "vertices",
            "faces",
            "materials",
            "bones",
            "rigid_bodies",
            "joints",
        ] {
            let Some(theirs) = verdict.counts[what].as_u64() else {
                continue;
            };
            // (The peer counts triangles, as we do.)
            let theirs = theirs as usize;
            let ours = count(&model, what);
            assert!(
                ours >= theirs && count(&recovered, what) >= count(&model, what),
                "{}: {what}: we hold {ours}, mmd-parser read {theirs}",
                case.name
            );
        }
    }
    match skipped {
        Some(reason) => println!("skipped the comparison with mmd-parser: {reason}"),
        None => assert!(compared > 0, "mmd-parser opened none of the cases"),
    }
}
