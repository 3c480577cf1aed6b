//! `pmx-studio convert IN OUT [--version] [--encoding] [--index-sizes] [--allow-version-violations]
//! [--recover] [--scale] [--skip-hidden-objects] [--mqo-objects] [--mqx] [--vmd MOTION.vmd]
//! [--collision-materials LIST] [--alpha-test auto|none|LIST] [--alpha-boundary N]
//! [--vrm-meta META.json] [--no-spring-bones] [--keep-t-pose] [--arm-angle DEGREES] [--no-physics]
//! [--csv-encoding utf8|sjis] [--copy-textures]`.

use super::textures::TextureArgs;
use anyhow::{Context as _, Result, bail};
use pmx_core::formats::csv::{CsvEncoding, CsvSaveOptions};
use pmx_core::formats::mqo::{
    DEFAULT_MQO_UNITS_PER_PMX_UNIT, MqoExportOptions, MqoImportOptions, MqoObjectGrouping,
};
use pmx_core::formats::pmx::{IndexSizeMode, PmxSaveOptions};
use pmx_core::formats::smf::{AlphaTestMaterials, SmfAnimation, SmfExportOptions};
use pmx_core::formats::vrm::{VrmExportOptions, VrmImportOptions, VrmMeta, parse_meta_json};
use pmx_core::formats::{self, FileFormat, LoadOptions, SaveOptions, WriteReport, vmd};
use pmx_core::model::{Model, PmxVersion, TextEncoding};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ConvertArgs {
    /// The model to read.
    pub input: PathBuf,
    /// The file to write; its extension chooses the format (.pmx, .pmd, .mqo, .smf, .json, .vrm,
    /// .csv).
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
    /// Read a damaged file as far as possible (as `check --recover` does), and say what the
    /// reader lost or corrected; with `--index-sizes keep`, a header whose index sizes are not
    /// the ones the file uses is written with the sizes it really uses.
    #[arg(long)]
    pub recover: bool,
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
    /// SMF output: a VMD motion baked into the file as one animation set (one key per MMD
    /// frame, 1/30 s, per moving bone).
    #[arg(long, value_name = "MOTION.vmd")]
    pub vmd: Option<PathBuf>,
    /// SMF output: materials (indices or Japanese names, comma-separated) whose faces are also
    /// written as collision data (stage models).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub collision_materials: Vec<String>,
    /// SMF output: materials drawn with an alpha test (cut-out textures): `auto` (textures that
    /// can carry alpha: .png, .tga, .dds), `none`, or materials (indices or Japanese names,
    /// comma-separated).
    #[arg(long, value_name = "auto|none|LIST", default_value = "auto")]
    pub alpha_test: String,
    /// SMF output: the alpha test cuts pixels whose alpha is at or below this (0-255).
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u32).range(0..=255))]
    pub alpha_boundary: u32,
    /// VRM output: the VRM 1.0 `meta` (name, authors, permissions...) as a JSON object with
    /// the spec's key names; keys left out keep the most restrictive choice.
    #[arg(long, value_name = "META.json")]
    pub vrm_meta: Option<PathBuf>,
    /// VRM output: leave the MMD physics out instead of writing it as spring bones.
    #[arg(long)]
    pub no_spring_bones: bool,
    /// VRM / glTF input: keep the avatar's T-pose instead of turning the arms down to MMD's
    /// A-pose.
    #[arg(long)]
    pub keep_t_pose: bool,
    /// VRM / glTF input: how far below horizontal the upper arms end up in the A-pose.
    #[arg(long, value_name = "DEGREES", default_value_t = 35.0)]
    pub arm_angle: f32,
    /// VRM / glTF input: leave the spring bones out instead of making rigid bodies and joints.
    #[arg(long)]
    pub no_physics: bool,
    /// CSV output: UTF-8 with a byte order mark (every character as it is), or Shift_JIS as
    /// PmxEditor writes it (characters it cannot hold escaped).
    #[arg(long, value_parser = ["utf8", "sjis"], default_value = "utf8")]
    pub csv_encoding: String,
    #[command(flatten)]
    pub textures: TextureArgs,
}

impl ConvertArgs {
    /// The input's folder: the model's texture paths are relative to it.
    fn input_dir(&self) -> PathBuf {
        formats::folder_of(&self.input).to_owned()
    }

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
                model_dir: Some(self.input_dir()),
                ..MqoExportOptions::default()
            },
            // Needs the model (material names) and the motion file: see `smf_options`.
            smf: SmfExportOptions::default(),
            // Needs the meta file and the folder of the textures: see `run`.
            vrm: VrmExportOptions::default(),
            csv: CsvSaveOptions {
                encoding: if self.csv_encoding == "sjis" {
                    CsvEncoding::ShiftJis
                } else {
                    CsvEncoding::Utf8Bom
                },
            },
        }
    }

    /// The SMF export options these flags ask for, with material names resolved in `model`
    /// and the motion read.
    pub fn smf_options(&self, model: &Model) -> Result<SmfExportOptions> {
        let collision_materials = material_indices(model, &self.collision_materials)?;
        let alpha_test = match self.alpha_test.trim() {
            "auto" => AlphaTestMaterials::Automatic,
            "none" => AlphaTestMaterials::None,
            list => {
                let items: Vec<String> = list.split(',').map(str::to_owned).collect();
                AlphaTestMaterials::Listed(material_indices(model, &items)?)
            }
        };
        let animation = match &self.vmd {
            Some(path) => Some(read_motion(path)?),
            None => None,
        };
        Ok(SmfExportOptions {
            collision_materials,
            alpha_test,
            alpha_boundary: self.alpha_boundary,
            animation,
        })
    }

    /// Whether any SMF-only flag was given (they are refused for other outputs rather than
    /// silently ignored).
    fn has_vrm_import_flags(&self) -> bool {
        self.keep_t_pose || self.no_physics || self.arm_angle != 35.0
    }

    fn has_smf_flags(&self) -> bool {
        self.vmd.is_some()
            || !self.collision_materials.is_empty()
            || self.alpha_test != "auto"
            || self.alpha_boundary != 16
    }
}

/// The motion at `path` as an animation set named after the file.
fn read_motion(path: &Path) -> Result<SmfAnimation> {
    let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
    let motion = vmd::read(&bytes, &LoadOptions::default())
        .with_context(|| format!("{}", path.display()))?;
    let name = path
        .file_stem()
        .map_or_else(|| "motion".to_owned(), |s| s.to_string_lossy().into_owned());
    Ok(SmfAnimation { name, motion })
}

/// Material indices from `items`: each an index or a material's Japanese (else English) name.
fn material_indices(model: &Model, items: &[String]) -> Result<Vec<usize>> {
    let mut indices = Vec::new();
    for item in items.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
        let found = if let Ok(index) = item.parse::<usize>() {
            (index < model.materials.len()).then_some(index)
        } else {
            model
                .materials
                .iter()
                .position(|m| m.name_ja.as_str() == item)
                .or_else(|| {
                    model
                        .materials
                        .iter()
                        .position(|m| m.name_en.as_str() == item)
                })
        };
        let Some(index) = found else {
            bail!(
                "no material {item:?} (the model has {} materials: give an index or a name)",
                model.materials.len()
            );
        };
        if !indices.contains(&index) {
            indices.push(index);
        }
    }
    Ok(indices)
}

pub fn run(args: &ConvertArgs) -> Result<ExitCode> {
    let format = FileFormat::from_extension(&args.output);
    // `.vrm`, `.glb` and `.gltf` outputs are all the VRM export.
    let vrm = format == Some(FileFormat::Vrm);
    if !vrm && (args.vrm_meta.is_some() || args.no_spring_bones) {
        bail!(
            "--vrm-meta and --no-spring-bones are for a .vrm output, not {}",
            args.output.display()
        );
    }
    // Read before the model: a mistyped key is reported without waiting for a big model.
    let meta = if vrm {
        Some(read_vrm_meta(args.vrm_meta.as_deref())?)
    } else {
        None
    };
    let Some(format) = format else {
        bail!(
            "{}: unknown output format (use .pmx, .pmd, .mqo, .smf, .json, .csv or .vrm)",
            args.output.display()
        );
    };
    if let Some(scale) = args.scale
        && !(scale.is_finite() && scale > 0.0)
    {
        bail!("--scale must be a positive number of MQO units per PMX unit, not {scale}");
    }
    let spec = format.spec();
    if !spec.writes_extension(&args.output) {
        let extension = args
            .output
            .extension()
            .map(|extension| extension.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        bail!(
            "{}: .{extension} is read, not written; write .{}{}",
            args.output.display(),
            spec.extension(),
            if format == FileFormat::Mqo {
                " (and zip it with its .mqx if you need an archive)"
            } else {
                ""
            }
        );
    }
    if args.has_vrm_import_flags() {
        let input = FileFormat::from_extension(&args.input);
        if input != Some(FileFormat::Vrm) {
            bail!(
                "--keep-t-pose, --arm-angle and --no-physics are for a .vrm, .glb or .gltf input"
            );
        }
        if !(args.arm_angle.is_finite() && (0.0..=90.0).contains(&args.arm_angle)) {
            bail!(
                "--arm-angle must be between 0 and 90 degrees below horizontal, not {}",
                args.arm_angle
            );
        }
    }
    if format != FileFormat::Csv && args.csv_encoding != "utf8" {
        bail!("--csv-encoding is for a .csv output");
    }
    if format != FileFormat::Smf && args.has_smf_flags() {
        bail!(
            "--vmd, --collision-materials, --alpha-test and --alpha-boundary are for .smf output"
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
        vrm: Some(VrmImportOptions {
            a_pose: !args.keep_t_pose,
            arm_angle_degrees: args.arm_angle,
            physics: !args.no_physics,
        }),
        recover: args.recover,
        ..LoadOptions::default()
    };
    let mut loaded = formats::load_path(&args.input, &load)?;
    for note in &loaded.report.notes {
        // The readers of conversions (MQO, SMF, VRM) say what they made of the file; the
        // others' notes are for `check`, unless recovery was asked for: then what it lost or
        // corrected is news, with its place in the file.
        if loaded.format.spec().converts() {
            errln!("note: {}", super::say(&note.message));
        } else if args.recover {
            errln!("note: {}", note.render(super::lang()));
        }
    }
    let mut options = args.save_options();
    // Kept until the VRM is written: the export reads the images from it.
    let mut scratch = None;
    if let Some(meta) = meta {
        // A VRM read back out: the export finds its images in a scratch folder.
        if !loaded.embedded_files.is_empty() {
            let dir = tempfile::tempdir().context("cannot make a folder for the textures")?;
            formats::write_embedded_files(&loaded.embedded_files, dir.path(), true)?;
            scratch = Some(dir);
        }
        let model_dir = scratch
            .as_ref()
            .map_or_else(|| args.input_dir(), |dir| dir.path().to_owned());
        options.vrm = VrmExportOptions {
            meta,
            model_dir: Some(model_dir),
            spring_bones: !args.no_spring_bones,
            ..VrmExportOptions::default()
        };
    } else {
        // The VRM export embeds the images it finds from the input's folder; every other
        // format names them by path, which must reach them from the output's folder (a VRM
        // input's images are written there).
        args.textures.carry(
            &mut loaded.model,
            &loaded.embedded_files,
            &args.input,
            &args.output,
        )?;
        options.mqo.model_dir = Some(formats::folder_of(&args.output).to_owned());
    }
    if format == FileFormat::Smf {
        options.smf = args.smf_options(&loaded.model)?;
    }
    let report = formats::write_path(&loaded.model, &args.output, format, &options)?;
    drop(scratch);
    print_report(&args.output, format, &report, &options);
    super::leave_for_exit(loaded);
    Ok(ExitCode::SUCCESS)
}

/// What was written (the counts of a conversion) and what the file could not hold, on stderr.
fn print_report(output: &Path, format: FileFormat, report: &WriteReport, options: &SaveOptions) {
    let output = output.display();
    match report {
        WriteReport::Saved(_) => {}
        WriteReport::Mqo { report, mqx_file } => errln!(
            "wrote {output}: {} objects, {} vertices, {} faces, {} morph targets{}",
            report.objects,
            report.vertices,
            report.faces,
            report.morph_targets,
            mqx_file
                .as_ref()
                .map(|name| format!("; bones and morphs in {name}"))
                .unwrap_or_default()
        ),
        WriteReport::Smf(report) => {
            let smf = &options.smf;
            errln!(
                "wrote {output}: {} frames, {} meshes (largest bone palette {} of {}), {} vertices, {} faces{}{}",
                report.frames,
                report.meshes,
                report.largest_palette,
                formats::smf::MAX_BONE_COUNT,
                report.vertices,
                report.faces,
                if smf.collision_materials.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", collision from {} materials",
                        smf.collision_materials.len()
                    )
                },
                smf.animation
                    .as_ref()
                    .map(|a| format!(
                        ", animation set \"{}\" (key times in MMD frames, 30 a second)",
                        a.name
                    ))
                    .unwrap_or_default(),
            );
        }
        WriteReport::Vrm(report) => {
            errln!(
                "wrote {output}: {} humanoid bones, {} nodes, {} meshes ({} primitives), {} morph targets, {} preset and {} custom expressions, {} materials, {} images",
                report.humanoid_bones,
                report.joints,
                report.meshes,
                report.primitives,
                report.morph_targets,
                report.preset_expressions,
                report.custom_expressions,
                report.materials,
                report.images,
            );
            let springs = &report.springs;
            errln!(
                "spring bones: {} springs, {} spring joints, {} colliders in {} groups; limits: {} cone, {} hinge, {} spherical; {} node constraints",
                springs.springs,
                springs.joints,
                springs.colliders,
                springs.collider_groups,
                springs.cone_limits,
                springs.hinge_limits,
                springs.spherical_limits,
                report.node_constraints
            );
        }
    }
    let warnings = report.save_report().warnings;
    if !format.spec().lossless && !warnings.is_empty() {
        errln!(
            "{} things the {} file cannot hold (written as described):",
            warnings.len(),
            format.name().to_ascii_uppercase()
        );
    }
    for warning in &warnings {
        errln!("warning: {}", super::say(warning));
    }
}

/// The meta of `--vrm-meta` (its warnings on stderr), or the defaults without it.
fn read_vrm_meta(path: Option<&Path>) -> Result<VrmMeta> {
    let Some(path) = path else {
        return Ok(VrmMeta::default());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the VRM meta", path.display()))?;
    let parsed = parse_meta_json(&text).with_context(|| path.display().to_string())?;
    for warning in &parsed.warnings {
        errln!("warning: {}: {warning}", path.display());
    }
    Ok(parsed.meta)
}
