//! Commands: what panels ask for. Panels read the document and push commands; the editor runs
//! them after the frame (turning edit requests into undoable edits), so no panel ever changes
//! the model itself.

use pmx_core::edit::{EditLabel, EditOp, Element, Field, FieldType, SetField};
use pmx_core::model::ElementKind;
use std::path::PathBuf;

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

/// What a panel, menu or shortcut asks the editor to do.
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
    Save,
    ShowSaveAsDialog,
    /// The save-as dialog with the path's extension set to `.pmd` (File > Export PMD).
    ShowExportPmdDialog,
    /// File > Import MQO: the import dialog.
    ShowImportMqoDialog,
    /// File > Import VRM: the import dialog (`.vrm`, `.glb`, `.gltf`).
    ShowImportVrmDialog,
    /// File > Export MQO: the export dialog.
    ShowExportMqoDialog,
    /// File > Export SMF: the export dialog.
    ShowExportSmfDialog,
    /// Writes the open model to `path` as SMF (the export dialog's Export button); the
    /// document is not changed.
    ExportSmf {
        path: PathBuf,
        options: pmx_core::formats::smf::SmfExportOptions,
    },
    /// File > Export VRM: the export dialog (meta, humanoid mapping, report).
    ShowExportVrmDialog,
    /// Writes the open model as a VRM at `path` (the export dialog's Export button); the
    /// document is not changed.
    ExportVrm {
        path: PathBuf,
        options: Box<pmx_core::formats::vrm::VrmExportOptions>,
    },
    /// Imports `path` (an MQO) as a new model, or with `merge` merges it into the open one as
    /// one step.
    Import {
        path: PathBuf,
        options: pmx_core::formats::LoadOptions,
        merge: Option<pmx_core::edit::MergeOptions>,
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
    /// File > Export CSV: the export dialog (path, encoding).
    ShowExportCsvDialog,
    /// File > Import CSV: the native open dialog for a PmxEditor CSV.
    BrowseImportCsv,
    /// ツール > a tool: its dialog (options, preview, Apply).
    ShowPlugin(String),
    /// Commits the edit the tool dialog built (one undo step named after the tool).
    ApplyPluginEdit,
    /// ツール > スクリプト > Reload: the built-ins and the scripts folder's scripts again.
    ReloadPlugins,
    /// ツール > スクリプト > the scripts folder: a dialog to choose it.
    ShowScriptsFolderDialog,
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
