//! What a plugin is: its description, its options, and the batch of edits it returns.
//!
//! A plugin never changes the model. It reads a [`PluginContext`] (the model, the selection,
//! the options) and returns a [`PluginOutput`]: an [`EditBatch`] whose steps the host builds
//! one after the other on the model as the previous steps leave it, then commits as one undo
//! step labelled with the plugin's name ([`crate::host::build_edit`]). Built-in tools and user
//! scripts (Rhai) go through the same path.

pub use crate::error::PluginError;
use crate::options::{OptionSpec, Options};
use crate::selection::PluginSelection;
use pmx_core::Model;
use pmx_core::edit::{Edit, EditError, EditOp};
use pmx_core::i18n::Language;
use pmx_core::model::ElementKind;
use pmx_core::pose::Pose;
use pmx_core::validate::FixStep;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// The version of the plugin and script API. A script declares the version it was written
/// for (`const api_version = 2;`); the host runs every version up to this one, each as it was
/// made (1: elements as maps and calls by kind name; 2: elements as objects with fields), and
/// refuses newer ones by name.
pub const API_VERSION: u32 = 2;

/// Where a plugin is listed in the ツール (Tools) menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PluginGroup {
    Bones,
    Weights,
    Normals,
    Mirror,
    Morphs,
    Materials,
    Physics,
    Names,
    Transform,
    CleanUp,
    Scripts,
}

impl PluginGroup {
    pub const ALL: [PluginGroup; 11] = [
        PluginGroup::Bones,
        PluginGroup::Weights,
        PluginGroup::Normals,
        PluginGroup::Mirror,
        PluginGroup::Morphs,
        PluginGroup::Materials,
        PluginGroup::Physics,
        PluginGroup::Names,
        PluginGroup::Transform,
        PluginGroup::CleanUp,
        PluginGroup::Scripts,
    ];

    /// The stable name of the group (JSON, the command line).
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            PluginGroup::Bones => "bones",
            PluginGroup::Weights => "weights",
            PluginGroup::Normals => "normals",
            PluginGroup::Mirror => "mirror",
            PluginGroup::Morphs => "morphs",
            PluginGroup::Materials => "materials",
            PluginGroup::Physics => "physics",
            PluginGroup::Names => "names",
            PluginGroup::Transform => "transform",
            PluginGroup::CleanUp => "clean_up",
            PluginGroup::Scripts => "scripts",
        }
    }

    /// The group's name in the menu, in PmxEditor's words.
    #[must_use]
    pub fn name(self, lang: Language) -> &'static str {
        match (self, lang) {
            (PluginGroup::Bones, Language::Japanese) => "ボーン",
            (PluginGroup::Bones, Language::English) => "Bones",
            (PluginGroup::Weights, Language::Japanese) => "ウェイト",
            (PluginGroup::Weights, Language::English) => "Weights",
            (PluginGroup::Normals, Language::Japanese) => "法線",
            (PluginGroup::Normals, Language::English) => "Normals",
            (PluginGroup::Mirror, Language::Japanese) => "ミラー",
            (PluginGroup::Mirror, Language::English) => "Mirror",
            (PluginGroup::Morphs, Language::Japanese) => "モーフ",
            (PluginGroup::Morphs, Language::English) => "Morphs",
            (PluginGroup::Materials, Language::Japanese) => "材質",
            (PluginGroup::Materials, Language::English) => "Materials",
            (PluginGroup::Physics, Language::Japanese) => "物理",
            (PluginGroup::Physics, Language::English) => "Physics",
            (PluginGroup::Names, Language::Japanese) => "名称",
            (PluginGroup::Names, Language::English) => "Names",
            (PluginGroup::Transform, Language::Japanese) => "モデル変形",
            (PluginGroup::Transform, Language::English) => "Transform model",
            (PluginGroup::CleanUp, Language::Japanese) => "整理",
            (PluginGroup::CleanUp, Language::English) => "Clean up",
            (PluginGroup::Scripts, Language::Japanese) => "スクリプト",
            (PluginGroup::Scripts, Language::English) => "Scripts",
        }
    }
}

/// What a plugin needs selected before it can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Runs on the whole model.
    Nothing,
    /// At least one element of this kind must be selected.
    Selected(ElementKind),
    /// Runs on the selected elements of this kind, or on all of them when none is selected.
    SelectedOrAll(ElementKind),
}

/// A plugin's description: what the menu, the options form and `pmx-studio plugins` show.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginInfo {
    /// Stable id for the command line (`pmx-studio run semi_standard_bones ...`).
    pub id: String,
    pub group: PluginGroup,
    pub name_ja: String,
    pub name_en: String,
    pub description_ja: String,
    pub description_en: String,
    pub version: String,
    pub needs: Needs,
    pub options: Vec<OptionSpec>,
}

impl PluginInfo {
    #[must_use]
    pub fn name(&self, lang: Language) -> &str {
        match lang {
            Language::Japanese => &self.name_ja,
            Language::English => &self.name_en,
        }
    }

    #[must_use]
    pub fn description(&self, lang: Language) -> &str {
        match lang {
            Language::Japanese => &self.description_ja,
            Language::English => &self.description_en,
        }
    }
}

/// What a plugin reads: never a `&mut`.
#[derive(Debug, Clone, Copy)]
pub struct PluginContext<'a> {
    pub model: &'a Model,
    pub selection: &'a PluginSelection,
    pub options: &'a Options,
    /// The pose the host shows (the editor's pose pane; `None` on the command line and when
    /// the host has none that fits the model): what "from the pose" and "current preview
    /// values" tools read.
    pub pose: Option<&'a Pose>,
}

impl<'a> PluginContext<'a> {
    /// A context without a pose ([`PluginContext::with_pose`] adds one).
    #[must_use]
    pub fn new(model: &'a Model, selection: &'a PluginSelection, options: &'a Options) -> Self {
        Self {
            model,
            selection,
            options,
            pose: None,
        }
    }

    /// The same context with the host's pose.
    #[must_use]
    pub fn with_pose(mut self, pose: Option<&'a Pose>) -> Self {
        self.pose = pose;
        self
    }

    /// The selected elements of `kind`, or all of them when none is selected (what
    /// [`Needs::SelectedOrAll`] plugins work on).
    #[must_use]
    pub fn selected_or_all(&self, kind: ElementKind) -> Vec<usize> {
        let selected = self.selection.get(kind);
        if selected.is_empty() {
            (0..self.model.count(kind)).collect()
        } else {
            selected
                .iter()
                .copied()
                .filter(|&index| index < self.model.count(kind))
                .collect()
        }
    }
}

/// Builds one step on the model as the previous steps leave it (the model is handed back
/// unchanged; the host applies the edit).
pub type StepBuilder = Box<dyn FnOnce(&mut Model) -> Result<Edit, EditError> + Send>;

/// One step of an [`EditBatch`].
pub enum BatchStep {
    /// A typed step: a field set from a typed handle, or an insert, move or delete of whole
    /// elements (the validator's fixes are made of the same steps).
    Typed(FixStep),
    /// A structural op in the JSON form of `pmx-studio edit` (what scripts produce).
    Op(EditOp),
    /// A step whose edit depends on the model as the earlier steps leave it.
    Build { what: Note, build: StepBuilder },
}

impl fmt::Debug for BatchStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BatchStep::Typed(step) => f.debug_tuple("Typed").field(step).finish(),
            BatchStep::Op(op) => f.debug_tuple("Op").field(op).finish(),
            BatchStep::Build { what, .. } => {
                f.debug_struct("Build").field("what", &what.en).finish()
            }
        }
    }
}

/// The edits a plugin returns, in order.
#[derive(Debug, Default)]
pub struct EditBatch {
    pub steps: Vec<BatchStep>,
}

impl EditBatch {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, step: FixStep) {
        self.steps.push(BatchStep::Typed(step));
    }

    pub fn push_op(&mut self, op: EditOp) {
        self.steps.push(BatchStep::Op(op));
    }

    /// A step built on the model as the earlier steps leave it; `what` says what it does (a
    /// `(English, Japanese)` pair, or one text for both).
    pub fn push_build(
        &mut self,
        what: impl Into<Note>,
        build: impl FnOnce(&mut Model) -> Result<Edit, EditError> + Send + 'static,
    ) {
        self.steps.push(BatchStep::Build {
            what: what.into(),
            build: Box::new(build),
        });
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.steps.len()
    }
}

/// A line a plugin wants the user to read (what it did, what it skipped and why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub en: String,
    pub ja: String,
}

impl From<String> for Note {
    fn from(text: String) -> Self {
        Note::new(text.clone(), text)
    }
}

impl From<&str> for Note {
    fn from(text: &str) -> Self {
        Note::new(text, text)
    }
}

impl From<(String, String)> for Note {
    fn from((en, ja): (String, String)) -> Self {
        Note::new(en, ja)
    }
}

impl From<(&str, &str)> for Note {
    fn from((en, ja): (&str, &str)) -> Self {
        Note::new(en, ja)
    }
}

impl Note {
    #[must_use]
    pub fn new(en: impl Into<String>, ja: impl Into<String>) -> Self {
        Self {
            en: en.into(),
            ja: ja.into(),
        }
    }

    #[must_use]
    pub fn text(&self, lang: Language) -> &str {
        match lang {
            Language::Japanese => &self.ja,
            Language::English => &self.en,
        }
    }
}

/// What a run returns: the edits, and what to tell the user (shown as the preview before the
/// edits are committed, and printed by the command line).
#[derive(Debug, Default)]
pub struct PluginOutput {
    pub batch: EditBatch,
    pub notes: Vec<Note>,
}

impl PluginOutput {
    #[must_use]
    pub fn new(batch: EditBatch) -> Self {
        Self {
            batch,
            notes: Vec::new(),
        }
    }

    #[must_use]
    pub fn with_note(mut self, en: impl Into<String>, ja: impl Into<String>) -> Self {
        self.notes.push(Note::new(en, ja));
        self
    }

    pub fn note(&mut self, en: impl Into<String>, ja: impl Into<String>) {
        self.notes.push(Note::new(en, ja));
    }
}

/// A tool: built-in (Rust) or a user script.
pub trait Plugin: Send + Sync {
    fn info(&self) -> PluginInfo;

    /// Reads the model and the selection, returns the edits. Never changes anything itself.
    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError>;

    /// A copy of this plugin whose run stops soon after `cancel` is set (the editor's Stop
    /// button), or `None` when a run cannot be stopped part-way (the built-ins: one pass over
    /// the model).
    fn stoppable(&self, cancel: Arc<AtomicBool>) -> Option<Arc<dyn Plugin>> {
        let _ = cancel;
        None
    }
}
