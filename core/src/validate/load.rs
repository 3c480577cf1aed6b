//! Rules about the file as read: damage recovered from, what the reader noticed, the raw face
//! index count, versions, header sizes and header index sizes the recovery reader tolerated or
//! corrected. None has a fix in the model: saving writes a correct file.

use super::{Context, Issue, Rule, Severity};
use crate::edit::resolve_path;
use crate::formats::{LoadNote, LoadReport, Location};
use crate::i18n::Language;
use crate::model::{ElementKind, Model};
use crate::path::ModelPath;

#[derive(Debug)]
pub(crate) struct LoadRule;

impl Rule for LoadRule {
    fn name(&self) -> &'static str {
        "file"
    }

    fn codes(&self) -> &'static [&'static str] {
        &[
            "E-FILE-DAMAGED",
            "E-FILE-LOST",
            "W-FILE-TRAILING",
            "I-FILE-NOTE",
            "E-VERSION",
            "E-HEADER-SIZE",
            "E-HEADER-INDEX-SIZE",
            "E-FACE-INDEX-COUNT",
        ]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        let Some(report) = cx.report else {
            return;
        };
        if let Some(error) = &report.recovered_from {
            let path = error
                .location()
                .map_or_else(file_path, |location| model_path_of(cx.model, location));
            let offset = error
                .location()
                .map_or(String::new(), |l| format!(" at byte {}", l.offset));
            out.push(Issue::new(
                Severity::Error,
                "E-FILE-DAMAGED",
                path,
                format!(
                    "the file is damaged{offset}: {}; everything from there on was lost \
                     (saving writes what was recovered as a correct file)",
                    error.render(Language::English)
                ),
                format!(
                    "ファイルが破損しています{}: {}。以降のデータは失われました（保存すると読み込めた部分が正しいファイルとして書き出されます）",
                    error
                        .location()
                        .map_or(String::new(), |l| format!("（{}バイト目）", l.offset)),
                    error.render(Language::Japanese)
                ),
            ));
        }
        for note in &report.notes {
            if let Some(issue) = note_issue(cx.model, note, report.recovered_from.is_some()) {
                out.push(issue);
            }
        }
        if let Some(count) = report.face_index_count
            && count % 3 != 0
        {
            out.push(Issue::new(
                Severity::Error,
                "E-FACE-INDEX-COUNT",
                ModelPath::list(ElementKind::Face),
                format!(
                    "the file declares {count} face indices, not a multiple of 3; the last {} \
                     were dropped (saving writes whole triangles)",
                    count % 3
                ),
                format!(
                    "面の頂点インデックス数 {count} が3の倍数ではありません。末尾の{}個は破棄されました（保存すると三角形単位で書き出されます）",
                    count % 3
                ),
            ));
        }
    }
}

/// The header index sizes the reader corrected, as issues (`E-HEADER-INDEX-SIZE`): what
/// writing the model fixes without any edit, which `repair` lists beside its fixes.
#[must_use]
pub fn header_corrections(report: &LoadReport) -> Vec<Issue> {
    report
        .notes
        .iter()
        .filter_map(header_index_size_issue)
        .collect()
}

/// A header index size the PMX reader's recovery found wrong (`formats/pmx/sizes.rs`), at the
/// header byte or at the one section that stores another size: the model carries sizes that
/// hold every index, and saving writes a header every section agrees with.
fn header_index_size_issue(note: &LoadNote) -> Option<Issue> {
    let location = &note.location;
    let kind = location.field.strip_suffix("_index_size")?;
    if location.is_text_line() || location.element.is_some() || note.lost {
        return None;
    }
    let offset = location.offset;
    let (en, ja) = rendered(note);
    Some(Issue::new(
        Severity::Error,
        "E-HEADER-INDEX-SIZE",
        ModelPath::header().field("index_sizes").field(kind),
        format!(
            "the header's index size is not the one the file stores (saving writes the right header): {en} (byte {offset})"
        ),
        format!(
            "ヘッダのIndexサイズがファイルの実際のサイズと違います（保存すると正しいヘッダが書き出されます）: {ja}（{offset}バイト目）"
        ),
    ))
}

/// The note's message in English and in Japanese.
fn rendered(note: &LoadNote) -> (String, String) {
    (
        note.message.render(Language::English),
        note.message.render(Language::Japanese),
    )
}

/// Issues about the file as a whole point at the header.
fn file_path() -> ModelPath {
    ModelPath::header()
}

/// The place in the loaded model nearest to where the reader was: the file location's path cut
/// back to what the model has (an element lost to damage is not in the model, its list is;
/// a field of the file the model does not keep, such as a count, is its element).
///
/// The reader's [`Location`] names its place in the file's own terms (`ik.link_count`,
/// `weight.type`, `config.vcf`), not in the model's: it is read here as outside text, through
/// the path grammar, and kept only as far as the model has it.
fn model_path_of(model: &Model, location: &Location) -> ModelPath {
    let Ok(mut path) = ModelPath::parse(&location.path()) else {
        return file_path();
    };
    loop {
        if resolve_path(model, &path).is_ok() {
            return path;
        }
        match path.parent() {
            Some(parent) => path = parent,
            None => return file_path(),
        }
    }
}

fn note_issue(model: &Model, note: &LoadNote, recovered: bool) -> Option<Issue> {
    let location = &note.location;
    let path = model_path_of(model, location);
    let (en, ja) = rendered(note);
    // Where the model path is cut back, the file's own place is said in the message.
    let place = location.path();
    let offset = location.offset;
    let (at, at_ja) = if location.is_text_line() {
        // Text formats (MQO) say the line; their messages name it already when there is one.
        match location.element {
            Some(line) => (format!("line {line}"), format!("{line}行目")),
            None => ("in the file".to_owned(), "ファイル内".to_owned()),
        }
    } else if path.to_string() == place {
        (format!("byte {offset}"), format!("{offset}バイト目"))
    } else {
        (
            format!("byte {offset}, {place} in the file"),
            format!("{offset}バイト目、ファイルの{place}"),
        )
    };
    if location.section == "header" && location.field == "version" {
        return Some(Issue::new(
            Severity::Error,
            "E-VERSION",
            ModelPath::header().field("version"),
            format!("{en} ({at})"),
            format!("PMXのバージョンが2.0でも2.1でもありません: {ja}（{at_ja}）"),
        ));
    }
    if location.section == "header" && location.field == "globals_count" {
        return Some(Issue::new(
            Severity::Error,
            "E-HEADER-SIZE",
            file_path(),
            format!("{en} ({at})"),
            format!("ヘッダのバイト数が8ではありません: {ja}（{at_ja}）"),
        ));
    }
    if let Some(issue) = header_index_size_issue(note) {
        return Some(issue);
    }
    if location.section == "end" {
        return Some(Issue::new(
            Severity::Warning,
            "W-FILE-TRAILING",
            file_path(),
            format!("{en} (from byte {offset})"),
            format!(
                "最後のセクションの後に余分なデータがあり、無視されました（{offset}バイト目から）"
            ),
        ));
    }
    if note.lost {
        // The note of the error recovery stopped at repeats `recovered_from` (reported above).
        if recovered && note.message.key() == Some("load.stopped_here") {
            return None;
        }
        return Some(Issue::new(
            Severity::Error,
            "E-FILE-LOST",
            path,
            format!("{en} ({at})"),
            format!("読み込み時にデータが失われました: {ja}（{at_ja}）"),
        ));
    }
    Some(Issue::new(
        Severity::Info,
        "I-FILE-NOTE",
        path,
        format!("{en} ({at})"),
        format!("読み込み時の注記: {ja}（{at_ja}）"),
    ))
}
