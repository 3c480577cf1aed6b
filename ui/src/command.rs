//! Commands: what panels ask for. Panels read the document and push commands; the editor runs
//! them after the frame (turning edit requests into undoable edits), so no panel ever changes
//! the model itself.

use pmx_core::edit::{EditLabel, EditOp, EditTarget};
use pmx_core::model::ElementKind;
use serde_json::Value;
use std::path::PathBuf;

/// A model change, built into an [`pmx_core::edit::Edit`] when the editor runs it.
#[derive(Debug, Clone, PartialEq)]
pub enum EditRequest {
    /// Ops as in edit scripts, committed as one undo step named `label` (or the op's own label).
    Ops {
        ops: Vec<EditOp>,
        /// Rendered in the UI's language when shown (never stored as text).
        label: Option<EditLabel>,
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
}

impl Command {
    /// Sets `field` of the elements at `indices` to `value`.
    #[must_use]
    pub fn set(target: EditTarget, indices: Vec<usize>, field: &str, value: Value) -> Self {
        Command::ops(vec![EditOp::Set {
            kind: target,
            indices,
            field: field.to_owned(),
            value: Some(value),
            values: None,
        }])
    }

    /// Sets `field` of each element at `indices` to its own value.
    #[must_use]
    pub fn set_each(
        target: EditTarget,
        indices: Vec<usize>,
        field: &str,
        values: Vec<Value>,
    ) -> Self {
        Command::ops(vec![EditOp::Set {
            kind: target,
            indices,
            field: field.to_owned(),
            value: None,
            values: Some(values),
        }])
    }

    #[must_use]
    pub fn ops(ops: Vec<EditOp>) -> Self {
        Command::Edit(EditCommand {
            request: EditRequest::Ops { ops, label: None },
            gesture: None,
        })
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
