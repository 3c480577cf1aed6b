//! Every reader's notes and errors, and every writer's warnings, say themselves in the user's
//! language: real and damaged files of every format are read (strictly and in recovery mode)
//! and written, and each message must have a key in both resource files, with no English left
//! in the Japanese text and no Japanese in the English.

use pmx_core::formats::{self, FileError, LoadOptions, SaveOptions};
use pmx_core::i18n::{EN_JSON, JA_JSON, Language, Message};
use pmx_tests::corpus_dir;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Kana, kanji and the full-width punctuation Japanese text uses.
fn is_japanese(c: char) -> bool {
    matches!(c,
        '\u{3000}'..='\u{303f}' // punctuation 、。「」
        | '\u{3040}'..='\u{30ff}' // hiragana, katakana
        | '\u{4e00}'..='\u{9fff}' // kanji
        | '\u{ff00}'..='\u{ffef}') // full-width forms （）：
}

/// Hiragana: Japanese sentences have it, names mostly do not.
fn is_hiragana(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{309f}')
}

/// Text with its `{placeholders}` taken out.
fn without_placeholders(template: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in template.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Three English words in a row ("is not a"), which identifiers and paths never are.
fn english_phrase(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split(' ').collect();
    words.windows(3).find_map(|three| {
        three
            .iter()
            .all(|word| word.len() >= 2 && word.chars().all(|c| c.is_ascii_lowercase()))
            .then(|| three.join(" "))
    })
}

/// The keys of the messages readers, writers and tools give.
const MESSAGE_PREFIXES: [&str; 5] = ["load.", "save.", "io.", "file.", "edit.note."];

#[test]
fn message_templates_are_in_their_own_language() {
    let ja: HashMap<String, String> = serde_json::from_str(JA_JSON).expect("ja.json");
    let en: HashMap<String, String> = serde_json::from_str(EN_JSON).expect("en.json");
    let mut failures = Vec::new();
    for (key, english) in &en {
        if !MESSAGE_PREFIXES
            .iter()
            .any(|prefix| key.starts_with(prefix))
        {
            continue;
        }
        let Some(japanese) = ja.get(key) else {
            failures.push(format!("{key}: no Japanese text"));
            continue;
        };
        // MMD's own names (上半身, 付与) belong in English text too; Japanese prose does not.
        if english.chars().any(is_hiragana) {
            failures.push(format!("{key}: Japanese in the English text {english:?}"));
        }
        let words = without_placeholders(japanese);
        // A name (Catmull-Clark) is the same in both; a sentence is not.
        if !words.chars().any(is_japanese)
            && words.trim().contains(' ')
            && words.chars().any(|c| c.is_ascii_lowercase())
        {
            failures.push(format!("{key}: the Japanese text is English: {japanese:?}"));
        }
        if let Some(phrase) = english_phrase(&words) {
            failures.push(format!("{key}: English {phrase:?} in {japanese:?}"));
        }
    }
    for key in ja.keys() {
        if MESSAGE_PREFIXES
            .iter()
            .any(|prefix| key.starts_with(prefix))
            && !en.contains_key(key)
        {
            failures.push(format!("{key}: no English text"));
        }
    }
    failures.sort();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What one file gave: where it came from and its messages.
struct Said {
    source: String,
    messages: Vec<Message>,
}

fn check(said: &[Said]) -> Vec<String> {
    let mut failures = Vec::new();
    for Said { source, messages } in said {
        for message in messages {
            if !message.is_translated() {
                failures.push(format!("{source}: untranslated: {message}"));
                continue;
            }
            for key in message.keys() {
                for lang in Language::ALL {
                    if lang.get(key).is_none() {
                        failures.push(format!("{source}: {key} missing in {}", lang.code()));
                    }
                }
            }
            let japanese = message.render(Language::Japanese);
            if let Some(phrase) = english_phrase(&japanese) {
                failures.push(format!("{source}: English {phrase:?} in {japanese:?}"));
            }
        }
    }
    failures.sort();
    failures.dedup();
    failures
}

/// The notes, or the error, of reading `path` strictly and in recovery mode.
fn read_messages(path: &Path, source: &str, said: &mut Vec<Said>) {
    for recover in [false, true] {
        let options = LoadOptions {
            recover,
            ..LoadOptions::default()
        };
        let messages = match formats::load_path(path, &options) {
            Ok(loaded) => {
                let mut messages: Vec<Message> = loaded
                    .report
                    .notes
                    .iter()
                    .map(pmx_core::formats::LoadNote::to_message)
                    .collect();
                messages.extend(loaded.report.recovered_from.iter().map(|e| e.to_message()));
                messages
            }
            Err(FileError::UnknownFormat { .. }) => Vec::new(),
            Err(error) => vec![error.to_message()],
        };
        said.push(Said {
            source: format!("{source} (recover: {recover})"),
            messages,
        });
    }
}

/// Every corpus model file.
fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for (sub, extensions) in [
        ("pmx", &["pmx"][..]),
        ("pmd", &["pmd"]),
        ("mqo", &["mqo", "mqoz"]),
        ("vrm", &["vrm", "glb"]),
    ] {
        if let Some(dir) = corpus_dir(sub) {
            for extension in extensions {
                files.extend(pmx_tests::files_with_extension(&dir, extension));
            }
        }
    }
    files
}

/// `bytes` damaged as real files are: cut at half and near the end, and a run of bytes
/// overwritten in the middle.
fn damaged(bytes: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let mut flipped = bytes.to_vec();
    let middle = flipped.len() / 2;
    for byte in flipped.iter_mut().skip(middle).take(16) {
        *byte = 0xff;
    }
    vec![
        ("cut-half", bytes[..bytes.len() / 2].to_vec()),
        ("cut-90", bytes[..bytes.len() * 9 / 10].to_vec()),
        ("overwritten", flipped),
    ]
}

#[test]
fn every_reader_says_its_notes_and_errors_in_both_languages() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut said = Vec::new();
    let mut files = corpus_files();
    // Generated files of every format the editor writes, so the test sees the readers even
    // without the corpus.
    let sample = pmx_core::generate::sample_model();
    for extension in ["pmx", "pmd", "mqo", "smf", "vrm"] {
        let path = dir.path().join(format!("sample.{extension}"));
        match formats::save_path(&sample, &path, &SaveOptions::default()) {
            Ok(report) => {
                said.push(Said {
                    source: format!("writing {}", path.display()),
                    messages: report.warnings,
                });
                files.push(path);
            }
            Err(error) => said.push(Said {
                source: format!("writing {}", path.display()),
                messages: vec![error.to_message()],
            }),
        }
    }
    // A PMX 2.1 model with what PMD cannot hold (SDEF, soft bodies, morph kinds): the PMD
    // writer's loss list, element by element.
    let feature = pmx_core::generate::feature_model(
        pmx_core::model::PmxVersion::V2_1,
        pmx_core::model::TextEncoding::Utf16,
        60,
        20,
    );
    let pmd = dir.path().join("feature.pmd");
    let report = formats::save_path(&feature, &pmd, &SaveOptions::default()).expect("written");
    assert!(report.warnings.len() > 3, "the PMD writer lists its losses");
    said.push(Said {
        source: format!("writing {}", pmd.display()),
        messages: report.warnings,
    });
    for path in &files {
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        read_messages(path, &name, &mut said);
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        // Damaged copies keep the extension, in a folder of their own (an MQO's or glTF's
        // neighbours are not there: their absence is one more note).
        for (how, damaged) in damaged(&bytes) {
            let copy = dir.path().join(format!("{how}-{name}"));
            std::fs::write(&copy, damaged).expect("written");
            read_messages(&copy, &format!("{name}, {how}"), &mut said);
        }
    }
    let failures = check(&said);
    let shown: Vec<&String> = failures.iter().take(80).collect();
    assert!(
        failures.is_empty(),
        "{} messages not in both languages (first 80):\n{}",
        failures.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn a_damaged_file_reads_in_japanese_and_in_english() {
    let model = pmx_core::generate::sample_model();
    let (bytes, _) = pmx_core::formats::pmx::write(&model, &Default::default()).expect("written");
    let cut = &bytes[..bytes.len() * 2 / 3];
    let error = pmx_core::formats::pmx::read(cut, &LoadOptions::default()).expect_err("cut");
    let english = error.render(Language::English);
    let japanese = error.render(Language::Japanese);
    assert!(english.contains("at byte"), "{english}");
    assert!(japanese.contains("バイト目"), "{japanese}");
    assert!(english_phrase(&japanese).is_none(), "{japanese}");
    assert!(!english.chars().any(is_japanese), "{english}");
}
