//! User scripts: `.rhai` files that are [`Plugin`]s with the same API as the built-in tools
//! (the model, the selection and the options in; edits out, built by the host into one undo
//! step named after the script). docs/scripting.md is the reference for script authors.
//!
//! A script describes itself with literal constants at its top level, read without running
//! it (`const api_version = 2;`, `name`, `name_en`, `description`, `description_en`,
//! `version`, `needs`, `option_specs`). The API version chooses the API the script runs
//! with: 1, elements as maps and calls by kind name (`engine.rs`); 2, the same calls, and
//! elements as objects with fields whose assignments queue edits (`objects.rs`, `typed.rs`).
//! Its plugin id is `script:<file stem>` (`scripts/center_model.rhai` →
//! `script:center_model`), so it never shadows a built-in, and
//! its group is [`PluginGroup::Scripts`](crate::PluginGroup::Scripts).
//!
//! A script cannot read or write files or run programs: Rhai's standard library has no file
//! or process access, `import` and `eval` are refused when the script is compiled, `sleep` is
//! refused, and `print` goes to the run's notes. Every run is bounded: in time and by a Stop
//! flag ([`ScriptLimits`], both looked at while the script runs, so a `loop {}` stops within
//! milliseconds of either), in operations, call depth, expression depth, string, array and map
//! sizes ([`MAX_STRING_BYTES`], ...), and in the number and size of the edits it queues.
//!
//! What this module does not do: the command line (`pmx-studio script`), the Tools menu and
//! the Stop button are built on [`ScriptPlugin::load`], [`find_scripts`] and
//! [`ScriptPlugin::run_with_limits`].

mod engine;
mod lent;
mod metadata;
mod morphs;
mod objects;
mod queue;
mod typed;
mod values;
mod written;

pub use engine::{
    MAX_ARRAY_ITEMS, MAX_CALL_LEVELS, MAX_EXPR_DEPTH, MAX_FUNCTION_EXPR_DEPTH, MAX_MAP_ENTRIES,
    MAX_STRING_BYTES,
};

use crate::api::{EditBatch, Plugin, PluginContext, PluginError, PluginInfo, PluginOutput};
use crate::options::Options;
use pmx_core::edit::ops_to_edit_in;
use rhai::AST;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A script file larger than this is not loaded.
pub const MAX_SCRIPT_BYTES: u64 = 1 << 20;
/// At most this many scripts are loaded from one folder.
pub const MAX_SCRIPTS_IN_FOLDER: usize = 256;
/// Scripts compile and run on a thread of their own with this much stack, so that the deepest
/// nesting the limits allow never overflows the caller's (perhaps small) stack.
const SCRIPT_STACK_BYTES: usize = 64 << 20;

/// How long a run may take and what else bounds it.
#[derive(Debug, Clone)]
pub struct ScriptLimits {
    /// The run stops with "stopped: the script ran longer than N s" after this long.
    pub time: Duration,
    /// The editor's Stop button: set it (from any thread) and the run stops with "stopped by
    /// the user".
    pub cancel: Option<Arc<AtomicBool>>,
    /// Rhai operations (roughly: expressions evaluated) before the run stops; a backstop
    /// behind the time limit (a loop over a million vertices takes some tens of millions).
    pub max_operations: u64,
    /// Edits (`set`, `set_each`, `insert`, `delete`, ...) a run may queue.
    pub max_edits: usize,
    /// The total size of the values those edits hold, in bytes (roughly: their JSON form in
    /// memory).
    pub max_queued_bytes: usize,
    /// Notes (`note`, `print`) a run may write.
    pub max_notes: usize,
}

impl Default for ScriptLimits {
    /// 10 seconds, no Stop flag, a billion operations, 100,000 edits holding at most 512 MB,
    /// 1,000 notes.
    fn default() -> Self {
        Self {
            time: Duration::from_secs(10),
            cancel: None,
            max_operations: 1_000_000_000,
            max_edits: 100_000,
            max_queued_bytes: 512 << 20,
            max_notes: 1_000,
        }
    }
}

impl ScriptLimits {
    /// The default limits with `time` and a Stop flag.
    #[must_use]
    pub fn new(time: Duration, cancel: Arc<AtomicBool>) -> Self {
        Self {
            time,
            cancel: Some(cancel),
            ..Self::default()
        }
    }
}

/// The user's scripts folder: `PMX_STUDIO_SCRIPTS`, else `scripts` in the configuration
/// folder (`$XDG_CONFIG_HOME/pmx-studio`, `%APPDATA%\\pmx-studio`, `~/.config/pmx-studio`).
#[must_use]
pub fn default_scripts_folder() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PMX_STUDIO_SCRIPTS") {
        return Some(PathBuf::from(dir));
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("APPDATA").map(PathBuf::from))
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(config.join("pmx-studio").join("scripts"))
}

/// A compiled `.rhai` script with its description: a [`Plugin`] like any built-in.
#[derive(Clone)]
pub struct ScriptPlugin {
    path: PathBuf,
    info: PluginInfo,
    /// The script API version the script declares (`const api_version = 2;`).
    api_version: u32,
    ast: Arc<AST>,
    limits: ScriptLimits,
}

impl std::fmt::Debug for ScriptPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptPlugin")
            .field("path", &self.path)
            .field("id", &self.info.id)
            .field("api_version", &self.api_version)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// The file name of `path` (what messages and step names show).
pub(crate) fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

impl ScriptPlugin {
    /// Reads and compiles the script at `path` and reads its description. A syntax error is
    /// [`PluginError::Script`] with the line and column; a missing or too new `api_version`, or
    /// a description that does not make sense, is [`PluginError::Refused`] naming the file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, PluginError> {
        let path = path.as_ref();
        let source = read_source(path)?;
        Self::from_source(path, &source)
    }

    /// Compiles `source` as the script at `path` (which gives its id and its name in
    /// messages; the file is not read).
    pub fn from_source(path: impl Into<PathBuf>, source: &str) -> Result<Self, PluginError> {
        let path = path.into();
        let file = path.display().to_string();
        let stem = path
            .file_stem()
            .map_or_else(String::new, |stem| stem.to_string_lossy().into_owned());
        if stem.is_empty() {
            return Err(PluginError::refused(
                format!("{file}: a script needs a file name"),
                format!("{file}: スクリプトにはファイル名が必要です"),
            ));
        }
        let source = source.strip_prefix('\u{feff}').unwrap_or(source);
        let ast = on_script_thread(|| {
            engine::compile_engine()
                .compile(source)
                .map_err(|error| engine::parse_error(&file, &error))
        })??;
        let (info, api_version) = metadata::read_info(&file, &stem, &ast)?;
        Ok(Self {
            path,
            info,
            api_version,
            ast: Arc::new(ast),
            limits: ScriptLimits::default(),
        })
    }

    /// The same script with other limits for [`Plugin::run`] (cheap: the compiled script is
    /// shared). The editor gives each run its own Stop flag this way, or through
    /// [`Self::run_with_limits`].
    #[must_use]
    pub fn with_limits(mut self, limits: ScriptLimits) -> Self {
        self.limits = limits;
        self
    }

    #[must_use]
    pub fn limits(&self) -> &ScriptLimits {
        &self.limits
    }

    /// The script API version the script declares: 1, or 2 for elements as objects.
    #[must_use]
    pub fn api_version(&self) -> u32 {
        self.api_version
    }

    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs the script with `limits` instead of its own: what [`Plugin::run`] does with
    /// [`Self::limits`].
    pub fn run_with_limits(
        &self,
        cx: &PluginContext<'_>,
        limits: &ScriptLimits,
    ) -> Result<PluginOutput, PluginError> {
        let file = self.path.display().to_string();
        // Options the caller left out read as their declared defaults.
        let mut options = Options::defaults(&self.info.options);
        for (key, value) in cx.options.iter() {
            options.set(key, value.clone());
        }
        let cx = PluginContext {
            options: &options,
            ..*cx
        };
        let result =
            on_script_thread(|| engine::run(&self.ast, &file, self.api_version, &cx, limits))??;
        let mut batch = EditBatch::new();
        for edit in result.edits {
            let what = engine::step_name(&self.path, &edit);
            let op = edit.op;
            batch.push_build(what, move |model| {
                ops_to_edit_in(model, std::slice::from_ref(&op), None, None)
            });
        }
        Ok(PluginOutput {
            batch,
            notes: result.notes,
        })
    }
}

impl Plugin for ScriptPlugin {
    fn info(&self) -> PluginInfo {
        self.info.clone()
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        self.run_with_limits(cx, &self.limits)
    }

    fn stoppable(&self, cancel: Arc<AtomicBool>) -> Option<Arc<dyn Plugin>> {
        let limits = ScriptLimits {
            cancel: Some(cancel),
            ..self.limits.clone()
        };
        Some(Arc::new(self.clone().with_limits(limits)))
    }
}

/// Runs `work` on a thread with [`SCRIPT_STACK_BYTES`] of stack and waits for it.
fn on_script_thread<T: Send>(work: impl FnOnce() -> T + Send) -> Result<T, PluginError> {
    let failed = |what: String| {
        PluginError::refused(
            format!("the script engine failed: {what}"),
            format!("スクリプトエンジンが失敗しました: {what}"),
        )
    };
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("script".to_owned())
            .stack_size(SCRIPT_STACK_BYTES)
            .spawn_scoped(scope, work)
            .map_err(|error| failed(error.to_string()))?;
        handle.join().map_err(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "it panicked".to_owned());
            failed(what)
        })
    })
}

/// The text of a script file, refusing files over [`MAX_SCRIPT_BYTES`] and text that is not
/// UTF-8.
fn read_source(path: &Path) -> Result<String, PluginError> {
    let file = path.display().to_string();
    let unreadable = |error: std::io::Error| {
        PluginError::refused(
            format!("{file}: cannot read the script: {error}"),
            format!("{file}: スクリプトを読めません: {error}"),
        )
    };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(unreadable)?
        .take(MAX_SCRIPT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_SCRIPT_BYTES {
        return Err(PluginError::refused(
            format!(
                "{file}: the script is larger than {} MB",
                MAX_SCRIPT_BYTES >> 20
            ),
            format!(
                "{file}: スクリプトが {} MB を超えています",
                MAX_SCRIPT_BYTES >> 20
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|error| {
        let at = error.utf8_error().valid_up_to();
        PluginError::refused(
            format!("{file}: the script is not UTF-8 text (byte {at})"),
            format!("{file}: スクリプトが UTF-8 ではありません(バイト {at})"),
        )
    })
}

/// The `.rhai` scripts of `dir` (not its subfolders), sorted by file name, each loaded or with
/// why not. A folder that does not exist has no scripts; past [`MAX_SCRIPTS_IN_FOLDER`] the
/// rest are left out with one error saying so.
#[must_use]
pub fn find_scripts(dir: &Path) -> Vec<Result<ScriptPlugin, (PathBuf, PluginError)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(error) => {
            let folder = dir.display();
            return vec![Err((
                dir.to_path_buf(),
                PluginError::refused(
                    format!("{folder}: cannot list the scripts: {error}"),
                    format!("{folder}: スクリプトの一覧を読めません: {error}"),
                ),
            ))];
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| !kind.is_dir()))
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension.eq_ignore_ascii_case("rhai"))
        })
        .collect();
    paths.sort();
    let left_out = paths.len().saturating_sub(MAX_SCRIPTS_IN_FOLDER);
    paths.truncate(MAX_SCRIPTS_IN_FOLDER);
    let mut scripts: Vec<_> = paths
        .into_iter()
        .map(|path| ScriptPlugin::load(&path).map_err(|error| (path, error)))
        .collect();
    if left_out > 0 {
        let folder = dir.display();
        scripts.push(Err((
            dir.to_path_buf(),
            PluginError::refused(
                format!(
                    "{folder}: {left_out} more scripts were not loaded (at most \
                     {MAX_SCRIPTS_IN_FOLDER} per folder)"
                ),
                format!(
                    "{folder}: 残り {left_out} 個のスクリプトは読み込まれていません(1フォルダ最大 \
                     {MAX_SCRIPTS_IN_FOLDER} 個)"
                ),
            ),
        )));
    }
    scripts
}
