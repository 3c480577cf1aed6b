//! Unit tests of the CSV form: exact round trips of generated models, text escapes, floats,
//! PmxEditor's own rows and bad input.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use super::text::{TextKind, parse_f32, parse_text, push_f32, push_text};
use super::*;
use crate::model::{PmxVersion, Text, TextEncoding};

fn round_trip(model: &Model) {
    for encoding in [CsvEncoding::Utf8Bom, CsvEncoding::ShiftJis] {
        let bytes = write_bytes(model, &CsvSaveOptions { encoding }).expect("writes");
        let (back, _) = read(&bytes).unwrap_or_else(|e| panic!("{encoding:?}: {e}"));
        assert!(back == *model, "{encoding:?}: the model changed");
    }
}

#[test]
fn feature_models_round_trip() {
    for version in [PmxVersion::V2_0, PmxVersion::V2_1] {
        for encoding in [TextEncoding::Utf16, TextEncoding::Utf8] {
            round_trip(&crate::generate::feature_model(version, encoding, 40, 12));
        }
    }
    round_trip(&crate::generate::sample_model());
    round_trip(&Model::new_empty());
    round_trip(&Model::default());
}

#[test]
fn floats_keep_their_bits() {
    for bits in [
        0u32,
        0x8000_0000,
        0x7fc0_0000,
        0xffc0_0000,
        0x7f80_0001,
        0x7f80_0000,
        0xff80_0000,
        1,
        0x7f7f_ffff,
        0x3dcc_cccd,
    ] {
        let value = f32::from_bits(bits);
        let mut text = String::new();
        push_f32(&mut text, value);
        assert_eq!(parse_f32(&text).map(f32::to_bits), Ok(bits), "{text}");
    }
    assert_eq!(parse_f32("1E-05"), Ok(1e-5));
    assert_eq!(parse_f32("Infinity"), Ok(f32::INFINITY));
    assert_eq!(parse_f32("-∞"), Ok(f32::NEG_INFINITY));
}

#[test]
fn text_survives_every_escape() {
    let texts = [
        "",
        "センター",
        "tex\\face.png",
        "a \"quoted\" name, with a comma",
        "line\r\nbreak",
        "lone\nfeed",
        "literal \\r\\n",
        "\\~starts like ours",
        "\\#utf8:00",
        "tab\tand\u{1}control",
        "emoji 😀 and ¥ and ～",
    ];
    for encoding in [CsvEncoding::Utf8Bom, CsvEncoding::ShiftJis] {
        for kind in [TextKind::Line, TextKind::MultiLine] {
            for text in texts {
                let mut cell = String::new();
                push_text(&mut cell, &Text::from(text), kind, encoding);
                let cells = super::text::split_cells(&cell).expect("one cell");
                assert_eq!(cells.len(), 1, "{cell}");
                assert_eq!(
                    parse_text(&cells[0], kind),
                    Ok(Text::from(text)),
                    "{cell} ({encoding:?}, {kind:?})"
                );
            }
        }
    }
    for raw in [
        Text::Undecodable {
            encoding: TextEncoding::Utf16,
            raw: vec![0x00, 0xD8, 0x41],
        },
        Text::Undecodable {
            encoding: TextEncoding::Utf8,
            raw: vec![0xff],
        },
    ] {
        let mut cell = String::new();
        push_text(&mut cell, &raw, TextKind::Line, CsvEncoding::ShiftJis);
        let cells = super::text::split_cells(&cell).expect("one cell");
        assert_eq!(parse_text(&cells[0], TextKind::Line), Ok(raw));
    }
}

#[test]
fn plain_names_are_written_as_pmx_editor_writes_them() {
    let mut cell = String::new();
    push_text(
        &mut cell,
        &Text::from("tex\\a.png"),
        TextKind::Line,
        CsvEncoding::ShiftJis,
    );
    assert_eq!(cell, "\"tex\\a.png\"");
    cell.clear();
    push_text(
        &mut cell,
        &Text::from("一行目\r\n二行目"),
        TextKind::MultiLine,
        CsvEncoding::ShiftJis,
    );
    assert_eq!(cell, "\"一行目\\r\\n二行目\"");
}

#[test]
fn detects_csv_by_content() {
    let text = write_csv(&crate::generate::sample_model());
    assert!(looks_like_csv(text.as_bytes()));
    assert!(looks_like_csv(b"\xEF\xBB\xBFPmxHeader,2.0,0,0"));
    assert!(!looks_like_csv(b"PMX \x00\x00"));
    assert!(!looks_like_csv(b"Pmx 2.0"));
}
