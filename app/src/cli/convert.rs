//! `pmx-studio convert IN OUT [--version] [--encoding] [--index-sizes] [--allow-version-violations]`.

use anyhow::{Result, bail};
use pmx_core::formats::pmx::{IndexSizeMode, PmxSaveOptions};
use pmx_core::formats::{self, FileFormat, LoadOptions, SaveOptions};
use pmx_core::model::{PmxVersion, TextEncoding};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ConvertArgs {
    /// The model to read.
    pub input: PathBuf,
    /// The file to write; its extension chooses the format (.pmx, .pmd, .json).
    pub output: PathBuf,
    /// PMX version to write (default: the model's).
    #[arg(long, value_parser = ["2.0", "2.1"])]
    pub version: Option<String>,
    /// Text encoding to write (default: the model's).
    #[arg(long, value_parser = ["utf8", "utf16"])]
    pub encoding: Option<String>,
    /// Index sizes: the smallest that fit, or those of the input where they still fit.
    #[arg(long, value_parser = ["minimal", "keep"], default_value = "minimal")]
    pub index_sizes: String,
    /// Write PMX 2.0 even though the model uses PMX 2.1 features.
    #[arg(long)]
    pub allow_version_violations: bool,
}

impl ConvertArgs {
    /// The save options these flags ask for.
    pub fn save_options(&self) -> SaveOptions {
        SaveOptions {
            pmx: PmxSaveOptions {
                version: self.version.as_deref().map(|v| {
                    if v == "2.1" {
                        PmxVersion::V2_1
                    } else {
                        PmxVersion::V2_0
                    }
                }),
                encoding: self.encoding.as_deref().map(|e| {
                    if e == "utf8" {
                        TextEncoding::Utf8
                    } else {
                        TextEncoding::Utf16
                    }
                }),
                index_sizes: if self.index_sizes == "keep" {
                    IndexSizeMode::Keep
                } else {
                    IndexSizeMode::Minimal
                },
                allow_version_violations: self.allow_version_violations,
            },
        }
    }
}

pub fn run(args: &ConvertArgs) -> Result<ExitCode> {
    if FileFormat::from_extension(&args.output).is_none() {
        bail!(
            "{}: unknown output format (use .pmx, .pmd or .json)",
            args.output.display()
        );
    }
    let loaded = formats::load_path(&args.input, &LoadOptions::default())?;
    let report = formats::save_path(&loaded.model, &args.output, &args.save_options())?;
    if FileFormat::from_extension(&args.output) == Some(FileFormat::Pmd)
        && !report.warnings.is_empty()
    {
        eprintln!(
            "{} things the PMD file cannot hold (written as described):",
            report.warnings.len()
        );
    }
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(ExitCode::SUCCESS)
}
