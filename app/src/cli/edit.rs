//! `pmx-studio edit IN OUT --script STEPS.json [--undo-all] [--json] [--allow-version-violations]`: applies an edit script
//! (README.md, "Edit scripts") as one undo step and writes the result.

use anyhow::{Context, Result, bail};
use pmx_core::edit::{EditReport, EditScript, History, Touched, ops_to_edit_in};
use pmx_core::formats::pmx::{IndexSizeMode, PmxSaveOptions};
use pmx_core::formats::{self, FileFormat, LoadOptions, SaveOptions};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct EditArgs {
    /// The model to read.
    pub input: PathBuf,
    /// The file to write; its extension chooses the format (.pmx, .json).
    pub output: PathBuf,
    /// The edit script: a JSON list of ops, or {"label": ..., "ops": [...]}.
    #[arg(long, value_name = "STEPS.json")]
    pub script: PathBuf,
    /// Undo the edits again before writing (the output then equals the input: a test of undo).
    #[arg(long)]
    pub undo_all: bool,
    /// Print what was done as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Write PMX 2.0 even though the model uses PMX 2.1 features (as `convert` does), so a
    /// 2.0 file that already uses them can be edited and written as it came.
    #[arg(long)]
    pub allow_version_violations: bool,
    #[command(flatten)]
    pub textures: super::textures::TextureArgs,
}

/// The JSON shape of `edit --json`.
#[derive(Debug, Serialize)]
struct EditJson<'a> {
    label: &'a str,
    steps: usize,
    undone: bool,
    report: &'a EditReport,
    touched: &'a Touched,
}

pub fn run(args: &EditArgs) -> Result<ExitCode> {
    if FileFormat::from_extension(&args.output).is_none() {
        bail!(
            "{}: unknown output format (use .pmx or .json)",
            args.output.display()
        );
    }
    let text = std::fs::read_to_string(&args.script)
        .with_context(|| format!("{}: cannot read the script", args.script.display()))?;
    let script = EditScript::parse(&text)
        .with_context(|| format!("{}: invalid edit script", args.script.display()))?;
    let loaded = formats::load_path(&args.input, &LoadOptions::default())?;
    let embedded = loaded.embedded_files;
    let mut model = loaded.model;

    // Merge paths in the script are relative to the script's folder.
    let base_dir = args.script.parent().map(PathBuf::from);
    let edit = ops_to_edit_in(
        &mut model,
        &script.ops,
        script.label.as_deref(),
        base_dir.as_deref(),
    )
    .with_context(|| format!("{}", args.script.display()))?;
    // The JSON keeps English (its "label" is a contract); the text is in the command line's
    // language.
    let label = if args.json {
        edit.label().to_owned()
    } else {
        edit.label_in(super::lang())
    };
    let report = edit.report().clone();

    let mut history = History::new();
    let touched = history.apply(&mut model, edit);
    if args.undo_all {
        history.undo_all(&mut model);
    }

    // Keep the input's index sizes where they fit, so that an undone script writes the same bytes.
    let options = SaveOptions {
        pmx: PmxSaveOptions {
            index_sizes: IndexSizeMode::Keep,
            allow_version_violations: args.allow_version_violations,
            ..PmxSaveOptions::default()
        },
        ..SaveOptions::default()
    };
    args.textures
        .carry(&mut model, &embedded, &args.input, &args.output)?;
    let saved = formats::save_path(&model, &args.output, &options)?;
    for warning in &saved.warnings {
        errln!("warning: {}", super::say(warning));
    }

    if args.json {
        let json = EditJson {
            label: &label,
            steps: script.ops.len(),
            undone: args.undo_all,
            report: &report,
            touched: &touched,
        };
        outln!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        outln!("{label}");
        super::report::print_edit_report(&report, super::lang());
        if args.undo_all {
            outln!("{}", super::lang().tr("cli.report.undone"));
        }
    }
    Ok(ExitCode::SUCCESS)
}
