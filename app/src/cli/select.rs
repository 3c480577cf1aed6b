//! `pmx-studio select FILE QUERY... [--json]`: prints the indices each selection query gives
//! (the one grammar of `pmx_core::select`: `vertices:linked:12`, `vertices:material:3`,
//! `vertices:weighted:左腕>0.5`, `bones:children:左腕`, plain lists and ranges), one line per
//! query: compact ranges (`0-99,120`; an empty line for none), or with `--json` a JSON array
//! of indices. Every query is answered before anything is printed, so the output lines match
//! the queries given; a query that names nothing in the model is an error naming the part
//! (exit 2), an unreadable file exit 1.

use anyhow::{Context, Result};
use pmx_core::formats::{self, LoadOptions};
use pmx_core::select::{format_ranges, parse_query};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct SelectArgs {
    /// The model file (any format the editor opens or imports).
    pub file: PathBuf,
    /// Selection queries: `KIND:LIST` (`bones:0,3-5,頭`) or `KIND:OP:ARGS`
    /// (`vertices:linked:12`, `vertices:material:3`, `vertices:weighted:左腕>0.5`,
    /// `vertices:mirror:0-99`, `vertices:grow:0-99`, `vertices:shrink:0-99`,
    /// `faces:material:3`, `bones:children:左腕`).
    #[arg(required = true, value_name = "QUERY")]
    pub queries: Vec<String>,
    /// Print each selection as a JSON array of indices instead of ranges.
    #[arg(long)]
    pub json: bool,
}

/// Exit code of a query that does not select (names nothing in the model).
pub const BAD_QUERY: u8 = 2;

pub fn run(args: &SelectArgs) -> Result<ExitCode> {
    let model = formats::load_path(&args.file, &LoadOptions::default())
        .context("cannot read the model")?
        .model;
    let mut answers = Vec::with_capacity(args.queries.len());
    let mut failed = false;
    for query in &args.queries {
        match parse_query(&model, query) {
            Ok((_, indices)) => answers.push(indices),
            Err(error) => {
                errln!("error: {error}");
                failed = true;
            }
        }
    }
    if failed {
        return Ok(ExitCode::from(BAD_QUERY));
    }
    for indices in &answers {
        if args.json {
            outln!("{}", serde_json::to_string(indices)?);
        } else {
            outln!("{}", format_ranges(indices));
        }
    }
    Ok(ExitCode::SUCCESS)
}
