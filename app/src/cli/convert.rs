//! `pmx-studio convert IN OUT [--version] [--encoding] [--index-sizes] [--allow-version-violations]
//! [--scale] [--skip-hidden-objects] [--mqo-objects] [--mqx]`.

use anyhow::{Result, bail};
use pmx_core::formats::mqo::{
    DEFAULT_MQO_UNITS_PER_PMX_UNIT, MqoExportOptions, MqoImportOptions, MqoObjectGrouping,
};
use pmx_core::formats::pmx::{IndexSizeMode, PmxSaveOptions};
use pmx_core::formats::{self, FileFormat, LoadOptions, SaveOptions, vrm};
use pmx_core::model::{PmxVersion, TextEncoding};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ConvertArgs {
    /// The model to read.
    pub input: PathBuf,
    /// The file to write; its extension chooses the format (.pmx, .pmd, .mqo, .json).
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
    /// Metasequoia units per PMX unit, for an .mqo input or output (default 10: a figure
    /// modelled at Metasequoia's usual size comes in at MMD's).
    #[arg(long, value_name = "MQO_UNITS")]
    pub scale: Option<f32>,
    /// MQO input: leave out the objects hidden in Metasequoia (imported by default, and listed).
    #[arg(long)]
    pub skip_hidden_objects: bool,
    /// MQO output: one object per material, or per bone (the bone with most weight per face).
    #[arg(long, value_parser = ["material", "bone"], default_value = "material")]
    pub mqo_objects: String,
    /// MQO output: what the .mqx side file next to it holds (Metasequoia 4's bone and morph
    /// plugins); `none` writes no .mqx.
    #[arg(long, value_parser = ["all", "bones", "morphs", "none"], default_value = "all")]
    pub mqx: String,
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
            mqo: MqoExportOptions {
                units_per_pmx_unit: self.scale.unwrap_or(DEFAULT_MQO_UNITS_PER_PMX_UNIT),
                grouping: if self.mqo_objects == "bone" {
                    MqoObjectGrouping::PerBone
                } else {
                    MqoObjectGrouping::PerMaterial
                },
                bones: matches!(self.mqx.as_str(), "all" | "bones"),
                morphs: matches!(self.mqx.as_str(), "all" | "morphs"),
                model_dir: Some(
                    self.input
                        .parent()
                        .filter(|dir| !dir.as_os_str().is_empty())
                        .map_or_else(|| PathBuf::from("."), PathBuf::from),
                ),
                ..MqoExportOptions::default()
            },
        }
    }
}

pub fn run(args: &ConvertArgs) -> Result<ExitCode> {
    let Some(format) = FileFormat::from_extension(&args.output) else {
        bail!(
            "{}: unknown output format (use .pmx, .pmd, .mqo, .vrm or .json)",
            args.output.display()
        );
    };
    if let Some(scale) = args.scale
        && !(scale.is_finite() && scale > 0.0)
    {
        bail!("--scale must be a positive number of MQO units per PMX unit, not {scale}");
    }
    if args
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mqoz"))
    {
        bail!(
            "{}: .mqoz is read, not written; write .mqo (and zip it with its .mqx if you need an archive)",
            args.output.display()
        );
    }
    let load = LoadOptions {
        mqo: Some(MqoImportOptions {
            units_per_pmx_unit: args.scale.unwrap_or(DEFAULT_MQO_UNITS_PER_PMX_UNIT),
            skip_hidden_objects: args.skip_hidden_objects,
            // Vertex colours need PMX 2.1: asking for 2.1 keeps them.
            version: if args.version.as_deref() == Some("2.1") {
                PmxVersion::V2_1
            } else {
                PmxVersion::V2_0
            },
            ..MqoImportOptions::default()
        }),
        ..LoadOptions::default()
    };
    let (loaded, vrm_textures) = load_input(&args.input, &load)?;
    for note in &loaded.report.notes {
        if matches!(loaded.format, FileFormat::Mqo | FileFormat::Vrm) {
            eprintln!("note: {}", note.message);
        }
    }
    if let Some(import) = &vrm_textures
        && format != FileFormat::Vrm
    {
        // The images a VRM embeds go beside the output, where its texture paths point.
        let dir = match args.output.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
            _ => std::path::PathBuf::from("."),
        };
        let written = import.write_textures(&dir)?;
        if written > 0 {
            eprintln!("wrote {written} texture(s) under {}", dir.display());
        }
    }
    let options = args.save_options();
    if format == FileFormat::Mqo {
        let export = formats::save_mqo(&loaded.model, &args.output, &options.mqo)?;
        let report = &export.report;
        eprintln!(
            "wrote {}: {} objects, {} vertices, {} faces, {} morph targets{}",
            args.output.display(),
            report.objects,
            report.vertices,
            report.faces,
            report.morph_targets,
            export
                .mqx
                .as_ref()
                .map(|(name, _)| format!("; bones and morphs in {name}"))
                .unwrap_or_default()
        );
        if !report.losses.is_empty() {
            eprintln!(
                "{} things the MQO file cannot hold (written as described):",
                report.losses.len()
            );
        }
        for loss in &report.losses {
            eprintln!("warning: {}", loss.message_en());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let report = formats::save_path(&loaded.model, &args.output, &options)?;
    if format == FileFormat::Pmd && !report.warnings.is_empty() {
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

/// Reads the input; a VRM is imported directly so that its embedded images can be written
/// beside the output.
fn load_input(
    path: &std::path::Path,
    options: &LoadOptions,
) -> Result<(formats::Loaded, Option<vrm::VrmImport>)> {
    let bytes = std::fs::read(path).map_err(|source| formats::FileError::Io {
        path: path.to_owned(),
        source,
    })?;
    if FileFormat::detect(path, &bytes) != Some(FileFormat::Vrm) {
        return Ok((formats::load_path(path, options)?, None));
    }
    let import = vrm::read_vrm(&bytes, options).map_err(|source| formats::FileError::Read {
        path: path.to_owned(),
        source: Box::new(source),
    })?;
    let loaded = formats::Loaded {
        model: import.model.clone(),
        report: import.report.clone(),
        format: FileFormat::Vrm,
    };
    Ok((loaded, Some(import)))
}
