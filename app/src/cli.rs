//! The command line: `pmx-studio [FILE]` opens the editor; subcommands work on files.

// First: its `outln!` and `errln!` are for the modules below.
#[macro_use]
mod output;

mod check;
mod convert;
mod edit;
mod get;
mod info;
mod plugins;
mod pose;
mod render;
mod repair;
mod report;
mod select;
mod textures;
mod uv_layout;

use clap::{Parser, Subcommand};
use pmx_core::i18n::{Language, Message};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::OnceLock;

/// The language of the command line's notes, warnings and errors (`--lang`).
static LANG: OnceLock<Language> = OnceLock::new();

/// Sets the language the notes, warnings and errors are printed in: `--lang`'s, else the
/// environment's locale (`LC_ALL`, `LC_MESSAGES`, `LANG`).
pub fn set_lang(code: Option<&str>) {
    let lang = code
        .and_then(Language::from_code)
        .unwrap_or_else(pmx_core::i18n::language_from_environment);
    let _ = LANG.set(lang);
}

/// The language notes, warnings and errors are printed in.
pub fn lang() -> Language {
    LANG.get()
        .copied()
        .unwrap_or_else(pmx_core::i18n::language_from_environment)
}

/// `message` in the command line's language.
pub fn say(message: &Message) -> String {
    message.render(lang())
}

/// PMX Studio: an editor for MikuMikuDance models (PMX 2.0/2.1).
#[derive(Debug, Parser)]
#[command(name = "pmx-studio", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// A model to open in the editor window.
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub window: WindowArgs,
    /// The language of notes, warnings and errors: ja or en (default: the environment's
    /// locale, LC_ALL / LC_MESSAGES / LANG; English when it is not Japanese).
    #[arg(long, global = true, value_name = "ja|en", value_parser = ["ja", "en"])]
    pub lang: Option<String>,
}

/// Options of the editor window.
#[derive(Debug, Clone, clap::Args)]
pub struct WindowArgs {
    /// Render the window once, save a PNG of it to this path and exit.
    #[arg(long, value_name = "OUT.png")]
    pub screenshot: Option<PathBuf>,
    /// The tab to show (info, vertices, faces, textures, materials, pose, bones, morphs,
    /// display_frames, rigid_bodies, joints, soft_bodies, view).
    #[arg(long, value_name = "NAME")]
    pub tab: Option<String>,
    /// Window size for --screenshot, as WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH")]
    pub size: Option<String>,
    /// 3D view layers to switch on, comma-separated (model, edges, bones, rigid_bodies,
    /// joints, vertices, wireframe, normals, weights, grid; `-name` switches one off).
    #[arg(long, value_name = "LIST")]
    pub view_layers: Option<String>,
    /// Elements to select once the model is open, as a selection query (`bones:12`,
    /// `vertices:0-99,120`, `vertices:linked:12`, `bones:children:左腕`; as `pmx-studio
    /// select` takes). The 3D view picks that kind (vertices, materials, bones, rigid_bodies,
    /// joints).
    #[arg(long, value_name = "QUERY")]
    pub select: Option<String>,
    /// The 3D view's gizmo: off, move, rotate or scale.
    #[arg(long, value_name = "MODE", value_parser = ["off", "move", "rotate", "scale"])]
    pub gizmo: Option<String>,
    /// A pose (`.vpd`) or motion (`.vmd`) for the pose pane (ポーズ) to show once the model is
    /// open; the 3D view draws the model posed.
    #[arg(long, value_name = "POSE.vpd|MOTION.vmd")]
    pub motion: Option<PathBuf>,
    /// The frame of `--motion`'s VMD to show.
    #[arg(long, value_name = "N", requires = "motion")]
    pub frame: Option<f32>,
}

/// Each subcommand's arguments are built only when that subcommand is run (clap's `defer`):
/// building all thirteen took a third of a millisecond of every command's start.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Print a model's format, version, encoding, index sizes and element counts.
    Info(info::InfoArgs),
    /// Print the value at each path of a model as JSON (`bones[3].ik.links[1].bone`; exit 2
    /// when a path does not resolve).
    Get(get::GetArgs),
    /// Convert a model (PMX, PMD, JSON, MQO, SMF, VRM/GLB/glTF in); the output format follows
    /// OUT's extension (.pmx, .pmd, .json, .mqo, .smf, .vrm).
    Convert(convert::ConvertArgs),
    /// Apply an edit script (JSON) as one undo step and write the result.
    Edit(edit::EditArgs),
    /// Write a model with a pose (VPD, a VMD frame) and morphs applied as its new rest shape.
    Pose(pose::PoseArgs),
    /// Print the indices each selection query gives, one line per query (`vertices:linked:12`,
    /// `vertices:material:3`, `bones:children:左腕`, `bones:0-3`; ranges like `0-99,120`, or a
    /// JSON array with --json; exit 2 when a query names nothing in the model).
    Select(select::SelectArgs),
    /// Check a model: errors, warnings and info with paths (exit 1 on errors, 2 if unreadable).
    Check(check::CheckArgs),
    /// Apply every automatic fix and write the result (exit 1 if errors remain).
    Repair(repair::RepairArgs),
    /// Draw the 3D view of a model offscreen into a PNG (exit 2 without OpenGL).
    Render(render::RenderArgs),
    /// Draw the UV wireframe of chosen materials into a PNG (on transparency or over the
    /// texture), the template to paint a texture over.
    UvLayout(uv_layout::UvLayoutArgs),
    /// List the built-in tools and the user's scripts, with their options.
    Plugins(plugins::PluginsArgs),
    /// Run a tool on a model as one undo step and write the result; prints what changed.
    Run(plugins::RunArgs),
    /// Run a Rhai script on a model as one undo step and write the result.
    Script(plugins::ScriptArgs),
}

/// Runs a subcommand and turns its outcome into the process exit code.
pub fn run(command: Command) -> ExitCode {
    let result = match command {
        Command::Info(args) => info::run(&args),
        Command::Get(args) => get::run(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Edit(args) => edit::run(&args),
        Command::Pose(args) => pose::run(&args),
        Command::Select(args) => select::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Repair(args) => repair::run(&args),
        Command::Render(args) => render::run(&args),
        Command::UvLayout(args) => uv_layout::run(&args),
        Command::Plugins(args) => plugins::list(&args),
        Command::Run(args) => plugins::run(&args),
        Command::Script(args) => plugins::script(&args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            errln!("error: {}", describe(&error));
            ExitCode::from(1)
        }
    }
}

/// Leaves `value` (a command's model) for the system to take back when the process ends,
/// which comes right after the command: freeing a model list by list, name by name, only adds
/// to the time the command takes.
fn leave_for_exit<T>(value: T) {
    std::mem::forget(value);
}

/// An error and its causes on one line, each cause said once: the file errors already end
/// with their cause's text, which `{:#}` would print a second time.
pub fn describe(error: &anyhow::Error) -> String {
    let mut text = String::new();
    // The previous cause's own English text: a translated error ends with its cause's text in
    // the user's language, so the cause is recognised by its English.
    let mut previous_english = String::new();
    for cause in error.chain() {
        let english = cause.to_string();
        let message = localized(cause).unwrap_or_else(|| english.clone());
        let said = text.ends_with(&message) || previous_english.ends_with(&english);
        previous_english = english;
        if said {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&message);
    }
    text
}

/// A reader's, writer's, edit's or tool's error in the command line's language (other errors
/// as they say themselves).
fn localized(cause: &(dyn std::error::Error + 'static)) -> Option<String> {
    use pmx_core::edit::EditError;
    use pmx_core::formats::{FileError, ReadError, WriteError};
    use pmx_plugins::PluginError;
    if let Some(error) = cause.downcast_ref::<FileError>() {
        return Some(error.render(lang()));
    }
    if let Some(error) = cause.downcast_ref::<ReadError>() {
        return Some(error.render(lang()));
    }
    if let Some(error) = cause.downcast_ref::<EditError>() {
        return Some(error.render(lang()));
    }
    if let Some(error) = cause.downcast_ref::<PluginError>() {
        return Some(error.message(lang()));
    }
    cause
        .downcast_ref::<WriteError>()
        .map(|error| error.render(lang()))
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory as _;

    /// The subcommands' arguments are built late (`defer`): a flattened struct's doc comment
    /// must not then replace a subcommand's own text in `--help` (it replaced `convert`'s,
    /// `edit`'s and four others' with `--copy-textures`' struct's).
    #[test]
    fn every_subcommand_keeps_its_own_help_text() {
        let declared: Vec<(String, String)> = Cli::command()
            .get_subcommands()
            .map(|sub| {
                let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
                (sub.get_name().to_owned(), about)
            })
            .collect();
        assert!(declared.len() >= 13, "{} subcommands", declared.len());
        for (name, about) in declared {
            assert!(!about.is_empty(), "{name} has no help text");
            let mut command = Cli::command();
            let sub = command
                .find_subcommand_mut(&name)
                .unwrap_or_else(|| panic!("{name} is gone"));
            let help = sub.render_help().to_string();
            assert_eq!(
                help.lines().next(),
                Some(about.as_str()),
                "{name}'s --help starts with another text"
            );
            assert!(
                sub.get_arguments().count() > 1,
                "{name}'s arguments were not built"
            );
        }
        Cli::command().debug_assert();
    }
}
