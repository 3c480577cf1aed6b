//! `pmx-studio repair IN OUT [--recover] [--json]`: applies every automatic fix, reports what it
//! changed and writes the result (atomically). Exit code 0: the result has no error; 1: errors
//! remain, or part of a damaged input was lost while reading (the file is written anyway);
//! 2: IN cannot be read at all.
//!
//! A model recovered from a damaged file keeps what the recovery read: fixes that would delete
//! recovered elements (vertices left unused by lost faces, say) are listed as kept, not
//! applied, and the report says what was recovered and what was lost.

use super::check::{IssueJson, UNREADABLE, summary_line};
use anyhow::{Result, bail};
use pmx_core::edit::History;
use pmx_core::formats::{self, FileFormat, LoadOptions, SaveOptions};
use pmx_core::path::ModelPath;
use pmx_core::validate::{self, AppliedFix, RepairOptions, Severity, Summary};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct RepairArgs {
    /// The model to read.
    pub input: PathBuf,
    /// The file to write; its extension chooses the format (.pmx, .json).
    pub output: PathBuf,
    /// Read a damaged file as far as possible, then repair what was read.
    #[arg(long)]
    pub recover: bool,
    #[command(flatten)]
    pub textures: super::textures::TextureArgs,
    /// Print {applied, failed, remaining} as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Serialize)]
struct FixJson<'a> {
    code: &'a str,
    path: &'a ModelPath,
    severity: Severity,
    label: &'a str,
    label_ja: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
}

impl<'a> From<&'a AppliedFix> for FixJson<'a> {
    fn from(fix: &'a AppliedFix) -> Self {
        Self {
            code: fix.code,
            path: &fix.path,
            severity: fix.severity,
            label: &fix.label_en,
            label_ja: &fix.label_ja,
            error: fix.error.as_deref(),
        }
    }
}

#[derive(Debug, Serialize)]
struct RepairJson<'a> {
    /// What the reader corrected and writing the file fixes (a wrong header index size).
    corrected_while_reading: Vec<IssueJson<'a>>,
    applied: Vec<FixJson<'a>>,
    failed: Vec<FixJson<'a>>,
    /// Fixes not applied because they would delete recovered content.
    kept: Vec<FixJson<'a>>,
    rounds: usize,
    remaining: Vec<IssueJson<'a>>,
    lost_while_reading: bool,
    /// What the reader could not read (recovery mode): each lost part's place and why.
    lost: Vec<LostJson>,
    /// How many elements of each kind the output holds.
    recovered: Recovered,
}

#[derive(Debug, Serialize)]
struct LostJson {
    at: String,
    message: String,
}

/// The element counts of a model, as the report prints them.
#[derive(Debug, Serialize)]
struct Recovered {
    vertices: usize,
    faces: usize,
    materials: usize,
    bones: usize,
    morphs: usize,
    display_frames: usize,
    rigid_bodies: usize,
    joints: usize,
}

impl Recovered {
    fn of(model: &pmx_core::Model) -> Self {
        Self {
            vertices: model.vertices.len(),
            faces: model.faces.len(),
            materials: model.materials.len(),
            bones: model.bones.len(),
            morphs: model.morphs.len(),
            display_frames: model.display_frames.len(),
            rigid_bodies: model.rigid_bodies.len(),
            joints: model.joints.len(),
        }
    }

    fn line(&self) -> String {
        format!(
            "{} vertices, {} faces, {} materials, {} bones, {} morphs, {} display frames, {} rigid bodies, {} joints",
            self.vertices,
            self.faces,
            self.materials,
            self.bones,
            self.morphs,
            self.display_frames,
            self.rigid_bodies,
            self.joints
        )
    }
}

pub fn run(args: &RepairArgs) -> Result<ExitCode> {
    if FileFormat::from_extension(&args.output).is_none() {
        bail!(
            "{}: unknown output format (use .pmx or .json)",
            args.output.display()
        );
    }
    let options = LoadOptions {
        recover: args.recover,
        ..LoadOptions::default()
    };
    let mut loaded = match formats::load_path(&args.input, &options) {
        Ok(loaded) => loaded,
        Err(error) => {
            errln!("error: cannot read the model: {error}");
            if !args.recover {
                errln!("hint: --recover reads as much of a damaged file as it can");
            }
            return Ok(ExitCode::from(UNREADABLE));
        }
    };
    let mut history = History::new();
    // Texture paths are relative to the model: their files are checked (and wrongly cased
    // paths fixed) only when the output lands in the input's folder, where they stay valid.
    let input_check = validate::CheckOptions::for_file(&args.input);
    let folder = |options: &validate::CheckOptions| {
        let dir = options.model_dir.as_deref()?;
        std::fs::canonicalize(dir).ok()
    };
    let output_folder = folder(&validate::CheckOptions::for_file(&args.output));
    let mut repair_options = RepairOptions::default();
    if folder(&input_check).is_some_and(|dir| Some(dir) == output_folder) {
        repair_options.check = input_check;
    }
    let report = validate::repair(
        &mut loaded.model,
        Some(&loaded.report),
        &mut history,
        &repair_options,
    );
    // Saved with the smallest index sizes that fit (the default): a header the reader found
    // wrong is written right.
    args.textures.carry(
        &mut loaded.model,
        &loaded.embedded_files,
        &args.input,
        &args.output,
    )?;
    let saved = formats::save_path(&loaded.model, &args.output, &SaveOptions::default())?;
    let corrected = validate::header_corrections(&loaded.report);
    for warning in &saved.warnings {
        errln!("warning: {}", super::say(warning));
    }
    let summary = Summary::of(&report.remaining);
    let lost_while_reading = loaded.report.lost_data();
    let lost: Vec<LostJson> = loaded
        .report
        .notes
        .iter()
        .filter(|note| note.lost)
        .map(|note| LostJson {
            at: note.location.to_string(),
            message: note.message.to_string(),
        })
        .collect();
    let recovered = Recovered::of(&loaded.model);
    if args.json {
        let json = RepairJson {
            corrected_while_reading: corrected.iter().map(IssueJson::from).collect(),
            applied: report.applied.iter().map(FixJson::from).collect(),
            failed: report.failed.iter().map(FixJson::from).collect(),
            kept: report.held.iter().map(FixJson::from).collect(),
            rounds: report.rounds,
            remaining: report.remaining.iter().map(IssueJson::from).collect(),
            lost_while_reading,
            lost,
            recovered,
        };
        outln!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        if lost_while_reading {
            outln!(
                "note: the input is damaged; what was lost while reading cannot be restored (see `pmx-studio check --recover`)"
            );
            outln!("recovered: {}", recovered.line());
            for note in loaded.report.notes.iter().filter(|note| note.lost) {
                outln!("lost    {}", note.render(super::lang()));
            }
        }
        for issue in &corrected {
            outln!(
                "fixed   {:<24} {}: {}",
                issue.code,
                issue.path,
                issue.message_en
            );
        }
        for fix in &report.applied {
            outln!("fixed   {:<24} {}: {}", fix.code, fix.path, fix.label_en);
        }
        for fix in &report.failed {
            outln!(
                "failed  {:<24} {}: {}: {}",
                fix.code,
                fix.path,
                fix.label_en,
                fix.error.as_deref().unwrap_or_default()
            );
        }
        for fix in &report.held {
            outln!(
                "kept    {:<24} {}: {}: {}",
                fix.code,
                fix.path,
                fix.label_en,
                fix.error.as_deref().unwrap_or_default()
            );
        }
        if report.applied.is_empty() && corrected.is_empty() {
            outln!("nothing to fix");
        }
        for issue in report
            .remaining
            .iter()
            .filter(|i| i.severity == Severity::Error)
        {
            outln!(
                "left    {:<24} {}: {}",
                issue.code,
                issue.path,
                issue.message_en
            );
        }
        outln!(
            "{} fix(es) in {} round(s); remaining: {}",
            report.applied.len(),
            report.rounds,
            summary_line(&summary, false)
        );
    }
    Ok(if summary.errors > 0 || lost_while_reading {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
