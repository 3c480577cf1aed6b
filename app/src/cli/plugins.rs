//! `pmx-studio plugins [--json] [--scripts DIR]` lists the built-in tools and the user's
//! scripts; `pmx-studio run PLUGIN IN OUT [--select QUERY] [--options JSON]` runs one
//! as one undo step and writes the result; `pmx-studio script FILE.rhai IN OUT [--select ...]`
//! does the same with a script file. A tool or script that changes nothing still writes the
//! output (the input's bytes when the format is the same), says so and succeeds, so that a
//! batch over a folder does not stop at a model that needs nothing done.

use anyhow::{Context as _, Result, anyhow, bail};
use pmx_core::edit::{EditReport, History, Touched};
use pmx_core::formats::pmx::{IndexSizeMode, PmxSaveOptions};
use pmx_core::formats::{self, FileFormat, LoadOptions, SaveOptions};
use pmx_core::i18n::Language;
use pmx_plugins::{
    Needs, OptionKind, OptionSpec, Plugin, PluginError, PluginInfo, PluginSelection, Registry,
    run_plugin,
};
use serde::Serialize;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct PluginsArgs {
    /// Print the list as JSON (id, group, names, description, version, needs, options).
    #[arg(long)]
    pub json: bool,
    /// The folder of user scripts (.rhai) to list (default: the user's scripts folder).
    #[arg(long, value_name = "DIR")]
    pub scripts: Option<PathBuf>,
}

// What `run` and `script` share: the files, the selection and the options. Not a doc comment:
// clap would make it the `--help` text of both (see `TextureArgs`).
#[derive(Debug, clap::Args)]
pub struct RunTarget {
    /// The model to read.
    pub input: PathBuf,
    /// The file to write; its extension chooses the format (.pmx, .json).
    pub output: PathBuf,
    #[command(flatten)]
    pub textures: super::textures::TextureArgs,
    /// Elements the tool works on, as selection queries (`bones:3,5-9,左腕`,
    /// `vertices:0-99`, `vertices:linked:12`, `vertices:weighted:左腕>0.5`; the grammar of
    /// `pmx-studio select`); repeat for several kinds or to add to a kind's selection.
    #[arg(long, value_name = "QUERY")]
    pub select: Vec<String>,
    /// The options as a JSON object (`{"angle": 30}`); options left out keep their defaults
    /// (`pmx-studio plugins` lists them).
    #[arg(long, value_name = "JSON")]
    pub options: Option<String>,
    /// Print what changed as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct ScriptArgs {
    /// The Rhai script (`docs/scripting.md`).
    pub script: PathBuf,
    #[command(flatten)]
    pub target: RunTarget,
    /// Stop the script after this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub time_limit: f64,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The tool's id (`pmx-studio plugins` lists them), or `script:NAME` for a script in the
    /// scripts folder.
    pub plugin: String,
    #[command(flatten)]
    pub target: RunTarget,
    /// The folder of user scripts `script:NAME` is looked up in (default: the user's scripts
    /// folder).
    #[arg(long, value_name = "DIR")]
    pub scripts: Option<PathBuf>,
}

/// The built-ins, then the scripts of `folder` (scripts that do not load are returned
/// apart, with their errors).
fn registry_with_scripts(
    folder: Option<&Path>,
) -> (Registry, Vec<(PathBuf, pmx_core::i18n::Message)>) {
    Registry::with_scripts(folder)
}

fn kind_json(kind: &OptionKind) -> Value {
    match kind {
        OptionKind::Bool => json!({"type": "bool"}),
        OptionKind::Number { min, max, unit } => {
            json!({"type": "number", "min": min, "max": max, "unit": unit})
        }
        OptionKind::Integer { min, max } => json!({"type": "integer", "min": min, "max": max}),
        OptionKind::Choice(choices) => json!({
            "type": "choice",
            "choices": choices
                .iter()
                .map(|(id, ja, en)| json!({"id": id, "name_ja": ja, "name_en": en}))
                .collect::<Vec<_>>(),
        }),
        OptionKind::Text => json!({"type": "text"}),
    }
}

fn option_json(spec: &OptionSpec) -> Value {
    let mut value = kind_json(&spec.kind);
    if let Some(object) = value.as_object_mut() {
        object.insert("key".into(), json!(spec.key));
        object.insert("label_ja".into(), json!(spec.label_ja));
        object.insert("label_en".into(), json!(spec.label_en));
        object.insert("default".into(), spec.default.to_json());
    }
    value
}

fn needs_json(needs: Needs) -> Value {
    match needs {
        Needs::Nothing => json!({"selection": "none"}),
        Needs::Selected(kind) => json!({"selection": "required", "kind": kind.name()}),
        Needs::SelectedOrAll(kind) => json!({"selection": "optional", "kind": kind.name()}),
    }
}

/// One entry of `plugins --json`.
fn info_json(info: &PluginInfo) -> Value {
    json!({
        "id": info.id,
        "group": info.group.id(),
        "name_ja": info.name_ja,
        "name_en": info.name_en,
        "description_ja": info.description_ja,
        "description_en": info.description_en,
        "version": info.version,
        "needs": needs_json(info.needs),
        "options": info.options.iter().map(option_json).collect::<Vec<_>>(),
    })
}

pub fn list(args: &PluginsArgs) -> Result<ExitCode> {
    let folder = args
        .scripts
        .clone()
        .or_else(pmx_plugins::default_scripts_folder);
    let (registry, failed) = registry_with_scripts(folder.as_deref());
    if args.json {
        let json = json!({
            "plugins": registry.infos().iter().map(info_json).collect::<Vec<_>>(),
            "scripts_folder": folder,
            "failed_scripts": failed
                .iter()
                .map(|(path, error)| json!({"path": path, "error": error.to_string()}))
                .collect::<Vec<_>>(),
        });
        outln!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(ExitCode::SUCCESS);
    }
    for group in pmx_plugins::PluginGroup::ALL {
        let infos: Vec<PluginInfo> = registry.in_group(group).map(|p| p.info()).collect();
        if infos.is_empty() {
            continue;
        }
        outln!(
            "{} ({})",
            group.name(Language::English),
            group.name(Language::Japanese)
        );
        for info in infos {
            outln!("  {:<24} {} / {}", info.id, info.name_en, info.name_ja);
            outln!("  {:<24} {}", "", info.description_en);
            for spec in &info.options {
                outln!(
                    "  {:<24}   --options {{\"{}\": {}}}  {}",
                    "",
                    spec.key,
                    spec.default.to_json(),
                    spec.label_en
                );
            }
        }
    }
    if let Some(folder) = &folder {
        outln!("scripts folder: {}", folder.display());
    }
    for (path, error) in &failed {
        errln!("warning: {}: {}", path.display(), super::say(error));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run(args: &RunArgs) -> Result<ExitCode> {
    let folder = args
        .scripts
        .clone()
        .or_else(pmx_plugins::default_scripts_folder);
    let (registry, _) = registry_with_scripts(folder.as_deref());
    let plugin = registry.find(&args.plugin).ok_or_else(|| {
        anyhow!(
            "no tool named \"{}\" (`pmx-studio plugins` lists them)",
            args.plugin
        )
    })?;
    run_on_files(plugin.as_ref(), &args.target)
}

pub fn script(args: &ScriptArgs) -> Result<ExitCode> {
    if !(args.time_limit > 0.0 && args.time_limit.is_finite()) {
        bail!("--time-limit must be a positive number of seconds");
    }
    let script = pmx_plugins::ScriptPlugin::load(&args.script)?;
    let limits = pmx_plugins::ScriptLimits {
        time: std::time::Duration::from_secs_f64(args.time_limit),
        ..script.limits().clone()
    };
    run_on_files(&script.with_limits(limits), &args.target)
}

/// The JSON shape of `run --json` / `script --json`.
#[derive(Debug, Serialize)]
struct RunJson<'a> {
    plugin: &'a str,
    /// False when the tool changed nothing and the model was written as it was.
    changed: bool,
    label: &'a str,
    notes: Vec<String>,
    steps: Vec<String>,
    report: &'a EditReport,
    touched: &'a Touched,
}

/// Runs `plugin` on the input with the target's selection and options, applies its one edit
/// and writes the output; prints what changed.
pub fn run_on_files(plugin: &dyn Plugin, target: &RunTarget) -> Result<ExitCode> {
    if FileFormat::from_extension(&target.output).is_none() {
        bail!(
            "{}: unknown output format (use .pmx or .json)",
            target.output.display()
        );
    }
    let info = plugin.info();
    let options_json: Value = match &target.options {
        Some(text) => serde_json::from_str(text).context("--options is not valid JSON")?,
        None => json!({}),
    };
    let options = pmx_plugins::Options::from_json(&info.options, &options_json)?;
    let loaded = formats::load_path(&target.input, &LoadOptions::default())?;
    let embedded = loaded.embedded_files;
    let mut model = loaded.model;
    let mut selection = PluginSelection::new();
    for spec in &target.select {
        selection.add_spec(&model, spec)?;
    }
    let run = match run_plugin(plugin, &mut model, &selection, &options) {
        Ok(run) => run,
        Err(PluginError::NoChange) => return write_unchanged(&info, &model, &embedded, target),
        Err(error) => {
            let message = error.message(super::lang());
            return Err(anyhow::Error::new(error).context(format!(
                "{} ({}): {message}",
                tool_name(&info),
                info.id
            )));
        }
    };
    // The JSON keeps English (its "label" is a contract, as `edit --json`'s is); the text
    // is in the command line's language.
    let lang = if target.json {
        Language::English
    } else {
        super::lang()
    };
    let label = run.edit.label_in(lang);
    let report = run.edit.report().clone();
    let in_lang = |note: &pmx_plugins::Note| match lang {
        Language::Japanese => note.ja.clone(),
        Language::English => note.en.clone(),
    };
    let notes: Vec<String> = run.notes.iter().map(in_lang).collect();
    let steps: Vec<String> = run.steps.iter().map(in_lang).collect();
    let mut history = History::new();
    let touched = history.apply(&mut model, run.edit);

    target
        .textures
        .carry(&mut model, &embedded, &target.input, &target.output)?;
    save(&model, &target.output)?;
    if target.json {
        let json = RunJson {
            plugin: &info.id,
            changed: true,
            label: &label,
            notes,
            steps,
            report: &report,
            touched: &touched,
        };
        outln!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        outln!("{label}");
        for note in &notes {
            outln!("  {note}");
        }
        for step in &steps {
            outln!("  {step}");
        }
        super::report::print_edit_report(&report, lang);
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes `model` to `output` as `run` does: the input's index sizes kept where they fit, as
/// `edit` does; the writer's warnings on stderr.
fn save(model: &pmx_core::Model, output: &Path) -> Result<()> {
    let save_options = SaveOptions {
        pmx: PmxSaveOptions {
            index_sizes: IndexSizeMode::Keep,
            ..PmxSaveOptions::default()
        },
        ..SaveOptions::default()
    };
    let saved = formats::save_path(model, output, &save_options)?;
    for warning in &saved.warnings {
        errln!("warning: {}", super::say(warning));
    }
    Ok(())
}

/// A tool that changed nothing: the output is the model as it was (the input's own bytes when
/// both files have the same format, so nothing is rewritten), and the run succeeds.
fn write_unchanged(
    info: &PluginInfo,
    model: &pmx_core::Model,
    embedded: &[formats::EmbeddedFile],
    target: &RunTarget,
) -> Result<ExitCode> {
    let same_format = FileFormat::from_extension(&target.input).is_some()
        && FileFormat::from_extension(&target.input) == FileFormat::from_extension(&target.output);
    // Into another folder the texture paths must follow the file, so the bytes cannot stay.
    let folder = |path: &Path| {
        let folder = formats::folder_of(path);
        std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_owned())
    };
    if same_format && folder(&target.input) == folder(&target.output) {
        let bytes = std::fs::read(&target.input)
            .with_context(|| format!("{}: cannot read the file", target.input.display()))?;
        formats::write_atomic(&target.output, &bytes)
            .with_context(|| format!("{}: cannot write the file", target.output.display()))?;
    } else {
        let mut model = model.clone();
        target
            .textures
            .carry(&mut model, embedded, &target.input, &target.output)?;
        save(&model, &target.output)?;
    }
    let (language, name) = if target.json {
        (Language::English, info.name_en.clone())
    } else {
        (super::lang(), tool_name(info))
    };
    let message = language.format("cli.run.unchanged", &[("tool", &name)]);
    if target.json {
        let json = RunJson {
            plugin: &info.id,
            changed: false,
            label: &message,
            notes: Vec::new(),
            steps: Vec::new(),
            report: &EditReport::default(),
            touched: &Touched::default(),
        };
        outln!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        outln!("{message}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The tool's name in the command line's language.
fn tool_name(info: &PluginInfo) -> String {
    match super::lang() {
        Language::Japanese => info.name_ja.clone(),
        Language::English => info.name_en.clone(),
    }
}
