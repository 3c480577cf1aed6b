//! Commands: what panels ask for. Panels read the document and push commands; the editor runs
//! them after the frame (turning edit requests into undoable edits), so no panel ever changes
//! the model itself.

use crate::document::SaveSettings;
use pmx_core::edit::{EditLabel, EditOp, Element, Field, FieldType, SetField};
use pmx_core::formats::{FileFormat, SaveOptions};
use pmx_core::model::ElementKind;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A model change, built into an [`pmx_core::edit::Edit`] when the editor runs it.
#[derive(Debug, Clone, PartialEq)]
pub enum EditRequest {
    /// One typed field of some elements (panels, the gizmo, the pose pane).
    Set(SetField),
    /// Several typed sets as one undo step named `label`, each built on the model as the
    /// previous ones leave it.
    Sets {
        sets: Vec<SetField>,
        label: EditLabel,
    },
    /// Ops as in edit scripts, committed as one undo step named `label` (or the op's own label).
    Ops {
        ops: Vec<EditOp>,
        /// Rendered in the UI's language when shown (never stored as text).
        label: Option<EditLabel>,
    },
    /// One typed field set named `label` (morph edit mode's offsets: "モーフ「笑い」の頂点12個を
    /// 移動"); a drag's later frames merge into its first, as [`EditRequest::Set`]'s do.
    SetNamed { set: SetField, label: EditLabel },
    /// A new morph at the end of the morphs, listed in the 表情 display frame (where
    /// MikuMikuDance's frame list shows it) when the model has that frame; one step.
    NewMorph(pmx_core::model::Morph),
    /// One dab of the weight brush: built with the lookups the editor keeps for the model
    /// (edge neighbours, X mirror) while only weights change. A dab that changes nothing adds
    /// no step and says nothing.
    PaintWeights(pmx_core::edit::PaintWeights),
    /// A validator's fix (typed steps), one undo step named by the fix.
    Fix(pmx_core::validate::Fix),
    /// Inserts new elements so that the first is at `at` (a table's Insert).
    Insert {
        at: usize,
        elements: pmx_core::edit::Elements,
    },
    /// Moves, turns or scales elements, each group by its transform (the gizmo, the numeric
    /// row and their X mirror): normals, SDEF points, morph offsets, tails, axes and rotations
    /// follow ([`pmx_core::edit::Edit::transform`]).
    Transform {
        target: pmx_core::edit::EditTarget,
        groups: Vec<pmx_core::edit::TransformGroup>,
    },
    /// Moves, turns or scales the UVs of vertices (the UV pane's gizmo, numeric row, flips and
    /// snapping): the channel's UVs, or with `morph` (a UV morph of that channel and the value
    /// it is shown at) that morph's offsets ([`pmx_core::edit::Edit::transform_uv`],
    /// [`pmx_core::edit::Edit::transform_uv_morph`]).
    TransformUv {
        channel: pmx_core::edit::UvChannel,
        groups: Vec<pmx_core::edit::UvTransformGroup>,
        morph: Option<(usize, f32)>,
    },
    /// Appends additional UV channels (zero for every vertex).
    AddUvChannels(usize),
    /// The pose (with its morphs) becomes the model's rest shape (pose pane).
    PoseAsRest(pmx_core::pose::Pose),
    /// A bone morph named `name` holding the pose's bone rotations and moves, added at the end
    /// of the morphs (pose pane).
    PoseAsBoneMorph {
        pose: pmx_core::pose::Pose,
        name: String,
    },
}

/// One edit request with what the editor needs around it.
#[derive(Debug, Clone, PartialEq)]
pub struct EditCommand {
    pub request: EditRequest,
    /// The widget being dragged, when the change is one frame of a drag: the frames of one
    /// drag merge into one undo step.
    pub gesture: Option<egui::Id>,
    /// What the edit creates becomes the selection (a table's Insert and Duplicate: the rows
    /// the user asked for); otherwise the selection keeps its elements and nothing joins it.
    pub select_created: bool,
}

/// What a panel, menu, shortcut or dialog asks the editor to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Edit(EditCommand),
    Undo,
    Redo,
    /// Undo or redo until this many steps are applied.
    JumpToHistory(usize),
    /// File actions (asking first when they would lose unsaved changes).
    New,
    ShowOpenDialog,
    Open(PathBuf),
    /// Opens `path` again in recovery mode (the load error's button).
    OpenRecovered(PathBuf),
    /// Does `action` without asking: the unsaved-changes question was answered "don't save".
    Perform(PendingAction),
    Save,
    /// Saves in place, then does `action`; without a file to save in place, Save as is shown
    /// and does it after saving (the unsaved-changes question's Save).
    SaveThen(PendingAction),
    /// Writes the document to `path` with `settings`, then does `then` (Save as, and its
    /// question before writing over the source).
    SaveTo {
        path: PathBuf,
        settings: SaveSettings,
        then: Option<PendingAction>,
    },
    ShowSaveAsDialog,
    /// File > Import `format`: its dialog, or for a format whose import is an open (CSV), the
    /// native open dialog.
    ShowImportDialog(FileFormat),
    /// File > Export `format`: its dialog (for PMD, Save as with a `.pmd` path).
    ShowExportDialog(FileFormat),
    /// File > Export UV layout…: its dialog.
    ShowUvLayoutDialog,
    /// Writes the UV layout PNG of the open model to `path` (the dialog's Export).
    ExportUvLayout {
        path: PathBuf,
        options: pmx_core::uv::UvLayoutOptions,
    },
    /// Writes the open model to `path` as `format` (an export dialog's Export button); the
    /// document is not changed. Written over the file the model was read from in part or
    /// converted from, it asks first.
    Export {
        format: FileFormat,
        path: PathBuf,
        options: Box<SaveOptions>,
    },
    /// [`Command::Export`] after the yes to writing over the document's source.
    ExportOverSource {
        format: FileFormat,
        path: PathBuf,
        options: Box<SaveOptions>,
    },
    /// Imports `path` (an MQO, a VRM) as a new model, or with `merge` merges it into the open
    /// one as one step.
    Import {
        path: PathBuf,
        options: pmx_core::formats::LoadOptions,
        merge: Option<pmx_core::edit::MergeOptions>,
    },
    /// Shows the native file dialog for `purpose` (a dialog's Browse…); its answer comes back
    /// through [`crate::EditorState::browse_finished`].
    Browse {
        purpose: BrowsePurpose,
        suggested: Option<PathBuf>,
    },
    Close,
    Quit,
    /// Applies every automatic fix of the validator (checking for `target`) as one undo step.
    RepairAll {
        target: Option<pmx_core::validate::Target>,
    },
    /// Show `kind`'s tab and make `index` the selected element (e.g. from a link elsewhere).
    Reveal {
        kind: ElementKind,
        index: usize,
    },
    /// Selects `indices` of `kind` (e.g. the vertices a bone moves) and shows `kind`'s tab.
    Select {
        kind: ElementKind,
        indices: Vec<usize>,
    },
    /// 表示 > 絞り込み表示: shows or hides materials, vertices or faces of the open document
    /// (view state: no undo step; [`crate::visibility::Visibility::apply`]).
    Visibility(crate::visibility::VisibilityAction),
    /// A selection tool (編集 > 選択, the view's context menu, keys) on the selection of the 3D
    /// view's pick kind; changes the selection only, never the history.
    SelectOp(crate::select_ops::SelectOp),
    /// ツール > a tool: its dialog (options, preview, Apply).
    ShowPlugin(String),
    /// Commits the edit a tool dialog built on document revision `revision` (one undo step
    /// named after the tool).
    ApplyPluginEdit {
        revision: u64,
        edit: BuiltEdit,
    },
    /// ツール > スクリプト > Reload: the built-ins and the scripts folder's scripts again.
    ReloadPlugins,
    /// ツール > スクリプト > the scripts folder: a dialog to choose it.
    ShowScriptsFolderDialog,
    /// Uses `folder` for the scripts (`None`: the default folder) and loads them again.
    SetScriptsFolder(Option<PathBuf>),
}

/// An action that would replace or drop the document, waiting for the unsaved-changes answer.
#[derive(Debug, Clone, PartialEq)]
pub enum PendingAction {
    New,
    Open {
        path: PathBuf,
        recover: bool,
    },
    /// File > Import as a new model.
    Import {
        path: PathBuf,
        options: pmx_core::formats::LoadOptions,
    },
    Close,
    Quit,
}

/// What a native file dialog is for: it lists the files of the formats that can be used there
/// (from the format registry) and picks a file to read, or names one to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrowsePurpose {
    /// File > Open: any model file.
    Open,
    /// Save as: a file of a format the document is saved in.
    Save,
    /// File > Import `format`.
    Import(FileFormat),
    /// File > Export `format`.
    Export(FileFormat),
    /// A motion (`.vmd`) for a dialog (the SMF export's baked animation); with no dialog
    /// asking, the pose pane loads it.
    Motion,
    /// A pose (`.vpd`) or a motion (`.vmd`) for the pose pane to load.
    Pose,
    /// A PNG to write the UV layout to (File > Export UV layout…).
    UvLayout,
}

/// A file dialog's filter: its name and the extensions it shows, in both cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileFilter {
    pub name: String,
    pub extensions: Vec<String>,
}

impl FileFilter {
    fn new<'a>(name: impl Into<String>, extensions: impl IntoIterator<Item = &'a str>) -> Self {
        // Lower and upper case: some platforms' dialogs match extensions case-sensitively.
        let extensions = extensions
            .into_iter()
            .flat_map(|extension| [extension.to_owned(), extension.to_ascii_uppercase()])
            .collect();
        Self {
            name: name.into(),
            extensions,
        }
    }
}

impl BrowsePurpose {
    /// Whether the dialog names a file to write (a save dialog) rather than picking one.
    #[must_use]
    pub fn writes(self) -> bool {
        matches!(
            self,
            BrowsePurpose::Save | BrowsePurpose::Export(_) | BrowsePurpose::UvLayout
        )
    }

    /// The filters the dialog offers, the first chosen: for Open and Save all the formats
    /// together, then each; for an import every extension the format is read from, for an
    /// export the one it is written with.
    #[must_use]
    pub fn filters(self) -> Vec<FileFilter> {
        use pmx_core::formats::registry::{FORMATS, FormatSpec};
        let several = |usable: fn(&FormatSpec) -> bool| {
            let specs: Vec<&FormatSpec> = FORMATS.iter().filter(|spec| usable(spec)).collect();
            let names: Vec<String> = specs
                .iter()
                .map(|spec| spec.name.to_ascii_uppercase())
                .collect();
            let all = FileFilter::new(
                names.join(" / "),
                specs
                    .iter()
                    .flat_map(|spec| spec.extensions.iter().copied()),
            );
            std::iter::once(all)
                .chain(
                    specs
                        .iter()
                        .map(|spec| FileFilter::new(spec.title, spec.extensions.iter().copied())),
                )
                .collect()
        };
        match self {
            BrowsePurpose::Open => several(|spec| spec.abilities.open || spec.abilities.import),
            BrowsePurpose::Save => several(|spec| spec.abilities.save),
            BrowsePurpose::Import(format) => {
                let spec = format.spec();
                vec![FileFilter::new(spec.title, spec.extensions.iter().copied())]
            }
            BrowsePurpose::Export(format) => {
                let spec = format.spec();
                vec![FileFilter::new(spec.title, [spec.extension()])]
            }
            BrowsePurpose::Motion => vec![FileFilter::new("VMD", ["vmd"])],
            BrowsePurpose::Pose => vec![
                FileFilter::new("VMD / VPD", ["vmd", "vpd"]),
                FileFilter::new("VMD", ["vmd"]),
                FileFilter::new("VPD", ["vpd"]),
            ],
            BrowsePurpose::UvLayout => vec![FileFilter::new("PNG", ["png"])],
        }
    }
}

/// An edit built away from the editor (a tool's run on its own thread), handed over once by
/// [`Command::ApplyPluginEdit`]; clones share it.
#[derive(Debug, Clone)]
pub struct BuiltEdit(Arc<Mutex<Option<pmx_core::edit::Edit>>>);

impl BuiltEdit {
    #[must_use]
    pub fn new(edit: pmx_core::edit::Edit) -> Self {
        Self(Arc::new(Mutex::new(Some(edit))))
    }

    /// The edit, the first time it is asked for.
    #[must_use]
    pub fn take(&self) -> Option<pmx_core::edit::Edit> {
        self.0.lock().ok().and_then(|mut edit| edit.take())
    }
}

impl PartialEq for BuiltEdit {
    /// The same hand-over (the edit itself has no equality).
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Command {
    /// Sets a typed `field` of the elements at `indices` to `value`.
    #[must_use]
    pub fn set<E: Element, T: FieldType>(
        field: Field<E, T>,
        indices: Vec<usize>,
        value: T,
    ) -> Self {
        Command::set_request(SetField::new(field, indices, value))
    }

    /// Sets a typed `field` of each element at `indices` to its own value.
    #[must_use]
    pub fn set_each<E: Element, T: FieldType>(
        field: Field<E, T>,
        indices: Vec<usize>,
        values: Vec<T>,
    ) -> Self {
        Command::set_request(SetField::each(field, indices, values))
    }

    #[must_use]
    pub fn set_request(request: SetField) -> Self {
        Command::Edit(EditCommand {
            request: EditRequest::Set(request),
            gesture: None,
            select_created: false,
        })
    }

    #[must_use]
    pub fn ops(ops: Vec<EditOp>) -> Self {
        Command::Edit(EditCommand {
            request: EditRequest::Ops { ops, label: None },
            gesture: None,
            select_created: false,
        })
    }

    /// Makes what the edit creates the selection (a table's Insert and Duplicate).
    #[must_use]
    pub fn selecting_created(mut self) -> Self {
        if let Command::Edit(edit) = &mut self {
            edit.select_created = true;
        }
        self
    }

    /// Marks an edit as one frame of a drag of widget `id` (no effect on other commands).
    #[must_use]
    pub fn in_gesture(mut self, id: Option<egui::Id>) -> Self {
        if let Command::Edit(edit) = &mut self {
            edit.gesture = id;
        }
        self
    }
}

/// The list panels push commands onto during a frame.
#[derive(Debug, Default)]
pub struct Commands {
    list: Vec<Command>,
}

impl Commands {
    pub fn push(&mut self, command: Command) {
        self.list.push(command);
    }

    pub fn take(&mut self) -> Vec<Command> {
        std::mem::take(&mut self.list)
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}
