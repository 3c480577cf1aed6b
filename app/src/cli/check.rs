//! `pmx-studio check FILE [--json] [--target pmx2.0|pmx2.1|pmd] [--recover] [--lang en|ja]
//! [--no-texture-files]`: prints what is wrong with a model, its texture files included. Exit code 0: no error; 1: errors; 2: the file cannot be
//! read at all. At most 100 issues of one code are listed; one more sums up the rest (in JSON
//! with `"more": N`, the number of findings it stands for).

use anyhow::Result;
use pmx_core::formats::{self, LoadOptions};
use pmx_core::path::ModelPath;
use pmx_core::validate::{self, CheckOptions, Issue, Severity, Summary, Target};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The model file.
    pub file: PathBuf,
    /// Print a JSON list of {severity, code, path, message, message_ja, fixable}.
    #[arg(long)]
    pub json: bool,
    /// Check for saving as this target (default: PMX in the model's own version).
    #[arg(long, value_parser = ["pmx2.0", "pmx2.1", "pmd"])]
    pub target: Option<String>,
    /// Read a damaged file as far as possible (what was lost is reported as errors).
    #[arg(long)]
    pub recover: bool,
    /// Do not look for the texture files next to the model (check the data alone).
    #[arg(long)]
    pub no_texture_files: bool,
}

/// One issue in `check --json` (a contract: extend it compatibly).
#[derive(Debug, Serialize)]
pub struct IssueJson<'a> {
    pub severity: Severity,
    pub code: &'a str,
    pub path: &'a ModelPath,
    pub message: &'a str,
    pub message_ja: &'a str,
    pub fixable: bool,
    /// Only on the issue that sums up what is over the per-code cap ("and 1,234 more"): how
    /// many findings it stands for. Absent on every other issue, as before it existed.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl<'a> From<&'a Issue> for IssueJson<'a> {
    fn from(issue: &'a Issue) -> Self {
        Self {
            severity: issue.severity,
            code: issue.code,
            path: &issue.path,
            message: &issue.message_en,
            message_ja: &issue.message_ja,
            fixable: issue.fix.is_some(),
            more: issue.more,
        }
    }
}

/// Exit code of a file that cannot be read at all.
pub const UNREADABLE: u8 = 2;

pub fn run(args: &CheckArgs) -> Result<ExitCode> {
    let options = LoadOptions {
        recover: args.recover,
        ..LoadOptions::default()
    };
    let loaded = match formats::load_path(&args.file, &options) {
        Ok(loaded) => loaded,
        Err(error) => {
            errln!("error: cannot read the model: {error}");
            if !args.recover {
                errln!("hint: --recover reads as much of a damaged file as it can");
            }
            return Ok(ExitCode::from(UNREADABLE));
        }
    };
    // A VRM's images are inside it: they are checked where a conversion would write them.
    let unpacked = if args.no_texture_files || loaded.embedded_files.is_empty() {
        None
    } else {
        let dir = tempfile::tempdir()?;
        formats::write_embedded_files(&loaded.embedded_files, dir.path(), true)?;
        Some(dir)
    };
    let mut check_options = if args.no_texture_files {
        CheckOptions::default()
    } else if let Some(dir) = &unpacked {
        CheckOptions {
            model_dir: Some(dir.path().to_owned()),
            ..CheckOptions::default()
        }
    } else {
        CheckOptions::for_file(&args.file)
    };
    check_options.target = args.target.as_deref().and_then(Target::parse);
    let issues = validate::check(&loaded.model, Some(&loaded.report), &check_options);
    let summary = Summary::of(&issues);
    if args.json {
        let list: Vec<IssueJson<'_>> = issues.iter().map(IssueJson::from).collect();
        outln!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        // `--lang` is the command line's own (global) option.
        let japanese = super::lang() == pmx_core::i18n::Language::Japanese;
        for issue in &issues {
            let message = if japanese {
                &issue.message_ja
            } else {
                &issue.message_en
            };
            let fixable = if issue.fix.is_some() {
                " [fixable]"
            } else {
                ""
            };
            outln!(
                "{:<7} {:<24} {}: {message}{fixable}",
                issue.severity.name(),
                issue.code,
                issue.path
            );
        }
        outln!("{}", summary_line(&summary, japanese));
    }
    Ok(if summary.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn summary_line(summary: &Summary, japanese: bool) -> String {
    if japanese {
        format!(
            "エラー{}件、警告{}件、情報{}件（{}件は `pmx-studio repair` で自動修正できます）",
            summary.errors, summary.warnings, summary.infos, summary.fixable
        )
    } else {
        format!(
            "{} error(s), {} warning(s), {} info ({} fixable with `pmx-studio repair`)",
            summary.errors, summary.warnings, summary.infos, summary.fixable
        )
    }
}
