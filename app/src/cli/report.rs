//! What an edit did besides its main change (an [`EditReport`]), as `edit` and `run` print it
//! under the label: in the command line's language, one line per thing moved, removed,
//! switched off or cleared, then the edit's notes.

use pmx_core::edit::{EditReport, bone_count, report_count, switched_off_setting};
use pmx_core::i18n::Language;

/// Prints `report` on stdout, each line indented by two spaces.
pub fn print_edit_report(report: &EditReport, lang: Language) {
    for moved in &report.moved {
        let items = report_count(lang, &moved.what, moved.count);
        let line = lang.format(
            "cli.report.moved",
            &[
                ("items", &items),
                ("index", &moved.to),
                ("name", &moved.to_name),
            ],
        );
        outln!("  {line}");
    }
    for (what, count) in &report.removed_with {
        let items = report_count(lang, what, *count);
        outln!(
            "  {}",
            lang.format("cli.report.removed", &[("items", &items)])
        );
    }
    for (what, count) in &report.switched_off {
        let setting = switched_off_setting(lang, what);
        let bones = bone_count(lang, *count);
        let line = lang.format(
            "cli.report.switched_off",
            &[("what", &setting), ("bones", &bones)],
        );
        outln!("  {line}");
    }
    for (field, count) in &report.cleared {
        let items = report_count(lang, field, *count);
        outln!(
            "  {}",
            lang.format("cli.report.cleared", &[("items", &items)])
        );
    }
    for example in &report.cleared_examples {
        outln!("    {example}");
    }
    for note in &report.notes {
        let note = note.render(lang);
        outln!("  {}", lang.format("cli.report.note", &[("note", &note)]));
    }
}
