//! `pmx-studio get FILE PATH... [--pretty] [--recover]`: prints the value at each path (the one
//! path grammar, `bones[3].ik.links[1].bone`) in the model's JSON form, one per line. Exit code 0:
//! every path resolved; 2: a path is not a path or not in the model (nothing is printed then);
//! 1: the file cannot be read.

use anyhow::{Context, Result};
use pmx_core::edit::get_path;
use pmx_core::formats::{self, LoadOptions};
use pmx_core::path::ModelPath;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct GetArgs {
    /// The model file.
    pub file: PathBuf,
    /// Paths into the model: `header.version`, `bones[3].ik.links[1].bone`, `materials`.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<String>,
    /// Print each value indented over several lines.
    #[arg(long)]
    pub pretty: bool,
    /// Read a damaged file as far as possible (as `check --recover` does).
    #[arg(long)]
    pub recover: bool,
}

/// Exit code of a path that does not resolve.
pub const UNRESOLVED: u8 = 2;

pub fn run(args: &GetArgs) -> Result<ExitCode> {
    let options = LoadOptions {
        recover: args.recover,
        ..LoadOptions::default()
    };
    // The file's error names the file: said once, after what could not be done.
    let model = formats::load_path(&args.file, &options)
        .context("cannot read the model")?
        .model;
    // Every path is resolved before anything is printed: output lines match the paths given.
    let mut values = Vec::with_capacity(args.paths.len());
    let mut failed = false;
    for text in &args.paths {
        let resolved = ModelPath::parse(text)
            .map_err(|error| error.to_string())
            .and_then(|path| get_path(&model, &path).map_err(|error| error.to_string()));
        match resolved {
            Ok(value) => values.push(value),
            Err(message) => {
                errln!("error: {message}");
                failed = true;
            }
        }
    }
    if failed {
        return Ok(ExitCode::from(UNRESOLVED));
    }
    for value in &values {
        let text = if args.pretty {
            serde_json::to_string_pretty(value)?
        } else {
            serde_json::to_string(value)?
        };
        outln!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}
