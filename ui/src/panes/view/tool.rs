//! The 3D view's tools as values: what the view does with the pointer (and keys) is a list of
//! [`ViewTool`]s, each in its own file, that read the input and the shown scene, draw their
//! overlay and ask for changes as typed [`ToolRequest`]s. The view pane only turns egui's
//! pointer state into [`ViewInput`]s and routes them ([`route`]); the camera (orbit, pan, zoom,
//! double-click reset) stays the pane's, whatever tool is in use.
//!
//! Routing: the tools are offered input in the registry's order (the one list of them,
//! `ViewState::with_tools`: the modes (morph edit, weight paint, ボーン追加), the gizmo, bone
//! head and tail drags, then rectangle selection, then click selection). The
//! first tool to take a press or the start of a drag owns that gesture until the button is
//! released (it alone gets the drag, the release and, for a press that never became a drag,
//! the click); a click nobody owns goes to the first tool that takes it. A tool that is
//! [modal](ViewTool::is_modal) (a weight brush, an edit mode) gets all the input and alone
//! draws while it is.
//!
//! Requests, not writes: a tool never changes the document. Selection changes, the pick mode and
//! edits come back as [`ToolRequest`]s, which the pane applies after each input in order (a
//! click's selection is in place before the drag that follows in the same frame). Each stroke or
//! drag takes one gesture id ([`Gestures`]) and every edit of it carries that id, so the
//! editor's gesture merging makes it one undo step.

use super::shown::{PickMode, SelectShape, ShownScene};
use super::transform::{self, Transform};
use crate::command::{Command, Commands, EditCommand, EditRequest};
use crate::document::Document;
use crate::i18n::Language;
use crate::selection::KindSelection;
use glam::Vec2;
use pmx_core::model::ElementKind;

/// What the pointer or the keyboard did in the view, in viewport pixels (from its top left).
/// The pane reports egui's own reading: a click is a press and release without a drag, a drag
/// starts once the pointer has moved a few pixels (or the button was held a while).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ViewInput {
    /// The primary button went down over the view (a brush starts its stroke here).
    Press { at: Vec2 },
    /// A primary click (not the second of a double click, which resets the camera).
    Click { at: Vec2 },
    /// A primary drag began: `origin` is where the button went down, `at` where the pointer is
    /// now. A [`ViewInput::Drag`] to `at` follows in the same frame.
    DragStart { origin: Vec2, at: Vec2 },
    /// The pointer moved with the primary button held (once a frame while dragging).
    Drag { at: Vec2 },
    /// The drag ended with the pointer at `at`.
    DragEnd { at: Vec2 },
    /// The gesture the tool owns ended without a release over the view (the view was hidden,
    /// another tool became modal): drop it without finishing.
    Cancel,
    /// A key pressed while the pointer is over the view and no text field has the keyboard.
    Key(egui::Key),
}

/// Whether a tool took an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    Yes,
    No,
}

/// What a tool asks of the editor; the view applies requests in order after each input.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolRequest {
    /// Change the selection of one kind of element.
    Select(SelectionChange),
    /// Switch the kind of element the view picks and transforms.
    SetPickMode(PickMode),
    /// Move, turn or scale the elements the view's selection moves (the pick mode's kind;
    /// vertices for materials) about their centre, as one frame of `gesture`. The view adds the
    /// numeric row's X mirror.
    Transform {
        change: Transform,
        gesture: egui::Id,
    },
    /// Any other edit (a brush's frames), as one frame of `gesture` when it has one.
    Edit {
        request: EditRequest,
        gesture: Option<egui::Id>,
    },
    /// An edit that makes elements (a new morph), which become the selection of their kind.
    Create(EditRequest),
}

/// How a pick combines with the selection there is: PmxEditor's modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectHow {
    /// Only what was picked (no modifier).
    Replace,
    /// Added to the selection (Shift).
    Add,
    /// Taken out of the selection (Ctrl, ⌘ on a Mac).
    Remove,
}

impl SelectHow {
    /// Ctrl removes, Shift adds, nothing replaces (Ctrl wins when both are held).
    #[must_use]
    pub fn from_modifiers(modifiers: egui::Modifiers) -> Self {
        if modifiers.command {
            Self::Remove
        } else if modifiers.shift {
            Self::Add
        } else {
            Self::Replace
        }
    }
}

/// A change of one kind's selection by picked elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectionChange {
    pub kind: ElementKind,
    /// The picked elements, the first becoming the current one (unless they are removed).
    pub elements: Vec<usize>,
    pub how: SelectHow,
}

impl SelectionChange {
    /// Applies the change to `selection` (the selection of [`SelectionChange::kind`]).
    pub fn apply(&self, selection: &mut KindSelection) {
        match self.how {
            SelectHow::Remove => {
                for &i in &self.elements {
                    selection.indices.remove(i);
                }
                if selection
                    .current
                    .is_some_and(|c| !selection.indices.contains(c))
                {
                    selection.current = selection.indices.first();
                }
            }
            SelectHow::Replace | SelectHow::Add => {
                if self.how == SelectHow::Replace {
                    selection.clear();
                }
                for &i in &self.elements {
                    selection.indices.insert(i);
                }
                if let Some(&first) = self.elements.first() {
                    selection.current = Some(first);
                }
            }
        }
    }
}

impl ToolRequest {
    /// Carries the request out: the selection changes in `document` at once, edits go to
    /// `commands` (transforms of the selection of `pick_mode`'s kind go as `route` says: into
    /// the model or a morph's offsets, mirrored across X or not; a transform that changes
    /// nothing is no command).
    pub fn apply(
        self,
        document: &mut Document,
        commands: &mut Commands,
        pick_mode: &mut PickMode,
        route: transform::TransformRoute,
    ) {
        match self {
            ToolRequest::Select(change) => change.apply(document.selection.get_mut(change.kind)),
            ToolRequest::SetPickMode(mode) => *pick_mode = mode,
            ToolRequest::Transform { change, gesture } => {
                if let Some(command) =
                    transform::routed_command(document, pick_mode.kind(), change, route)
                {
                    commands.push(command.in_gesture(Some(gesture)));
                }
            }
            ToolRequest::Edit { request, gesture } => commands.push(Command::Edit(EditCommand {
                request,
                gesture,
                select_created: false,
            })),
            ToolRequest::Create(request) => commands.push(Command::Edit(EditCommand {
                request,
                gesture: None,
                select_created: true,
            })),
        }
    }
}

/// What a tool reads (the document, the shown scene, the pick mode, the modifiers held) and
/// where it puts its requests.
#[derive(Debug)]
pub struct ToolCx<'a> {
    /// The document as it is before this input's requests are applied.
    pub document: &'a Document,
    /// The camera, the viewport and the pose shown: picking and projection.
    pub scene: ShownScene<'a>,
    /// The kind of element the view picks and transforms.
    pub pick_mode: PickMode,
    /// The modifier keys held this frame.
    pub modifiers: egui::Modifiers,
    /// The shape a drag selects with (the toolbar's choice).
    pub select_shape: SelectShape,
    /// The UI's language and the names shown (for what tools paint and say).
    pub lang: Language,
    pub names: crate::i18n::NameLanguage,
    requests: Vec<ToolRequest>,
}

impl<'a> ToolCx<'a> {
    #[must_use]
    pub fn new(
        document: &'a Document,
        scene: ShownScene<'a>,
        pick_mode: PickMode,
        modifiers: egui::Modifiers,
    ) -> Self {
        Self {
            document,
            scene,
            pick_mode,
            modifiers,
            select_shape: SelectShape::default(),
            lang: Language::default(),
            names: crate::i18n::NameLanguage::default(),
            requests: Vec::new(),
        }
    }

    /// The context in `lang`, showing element names in `names`.
    #[must_use]
    pub fn in_language(mut self, lang: Language, names: crate::i18n::NameLanguage) -> Self {
        self.lang = lang;
        self.names = names;
        self
    }

    /// The context with drags selecting by `shape`.
    #[must_use]
    pub fn with_select_shape(mut self, shape: SelectShape) -> Self {
        self.select_shape = shape;
        self
    }

    /// Asks for `request` (applied once the tool returns).
    pub fn request(&mut self, request: ToolRequest) {
        self.requests.push(request);
    }

    /// Asks to change the selection of `kind` by `elements`, as the held modifiers say.
    pub fn select(&mut self, kind: ElementKind, elements: Vec<usize>) {
        let how = SelectHow::from_modifiers(self.modifiers);
        self.request(ToolRequest::Select(SelectionChange {
            kind,
            elements,
            how,
        }));
    }

    /// The requests made so far, in order (the view applies them).
    pub fn take_requests(&mut self) -> Vec<ToolRequest> {
        std::mem::take(&mut self.requests)
    }
}

/// One tool of the 3D view: reads the input and the scene, draws its overlay, asks for changes.
///
/// Built for today's pick, rectangle selection and gizmo, and for what comes next: a brush
/// takes [`ViewInput::Press`] (owning the stroke until the release), makes one gesture per
/// stroke and sends each frame's edit in it, reads the posed mesh through
/// [`ToolCx::scene`] and paints its radius in [`ViewTool::paint`]; an edit mode is
/// [modal](ViewTool::is_modal) while on, and may hold other tools (a gizmo) and rewrite their
/// requests (transforms into morph offsets).
pub trait ViewTool: std::fmt::Debug {
    /// The tool's switches in the view's toolbar row (none by default).
    fn toolbar_ui(&mut self, _ui: &mut egui::Ui, _lang: Language) {}

    /// The tool's own row under the view's toolbar, shown while it takes part (a brush's
    /// settings while it is on). Like input, it asks for changes through `cx` (the brush's
    /// target bone is a selection change), never writes.
    fn options_ui(&mut self, _ui: &mut egui::Ui, _cx: &mut ToolCx<'_>) {}

    /// What the tool says about what is under the pointer (a tooltip: the weights of the vertex
    /// under a brush), asked after the frame's input.
    fn hover_text(&self, _cx: &ToolCx<'_>) -> Option<String> {
        None
    }

    /// Once a frame, after a click and before a drag is routed: the tool lays itself out for
    /// this frame's selection and camera and notes what is under the pointer (`hover`, viewport
    /// pixels; `None` when the pointer is elsewhere).
    fn prepare(&mut self, _cx: &mut ToolCx<'_>, _hover: Option<Vec2>) {}

    /// Offered `input`; [`Taken::Yes`] when the tool handled it (a press or a drag start taken
    /// makes the tool the gesture's owner).
    fn input(&mut self, cx: &mut ToolCx<'_>, input: ViewInput) -> Taken;

    /// The pointer's look over the view, asked after the frame's input (the first tool with
    /// one wins).
    fn cursor(&self) -> Option<egui::CursorIcon> {
        None
    }

    /// Draws the tool's overlay over the view whose rectangle (screen points) is `rect`. Called
    /// after the frame's pose is fed to the view, so an overlay follows the same pose as the
    /// mesh drawn under it.
    fn paint(&mut self, _cx: &ToolCx<'_>, _painter: &egui::Painter, _rect: egui::Rect) {}

    /// Whether the tool is on as a mode of its own: while it is, it alone gets the input and
    /// draws (the camera still moves).
    fn is_modal(&self) -> bool {
        false
    }
}

/// Hands out one gesture id per stroke or drag of a tool.
#[derive(Debug, Default)]
pub struct Gestures {
    serial: u64,
}

impl Gestures {
    /// A new gesture of the tool named `tool`: every edit of one drag carries it, so the editor
    /// merges them into one undo step.
    pub fn next(&mut self, tool: &'static str) -> egui::Id {
        self.serial += 1;
        egui::Id::unique((tool, self.serial))
    }
}

/// The tools that take part now, with their registry positions: a modal tool alone, else all.
fn live(tools: &mut [&mut dyn ViewTool]) -> Vec<usize> {
    match tools.iter().position(|tool| tool.is_modal()) {
        Some(modal) => vec![modal],
        None => (0..tools.len()).collect(),
    }
}

/// Routes `input` to `tools` (registry order); `owner` is the registry position of the tool
/// that owns the gesture under way, kept between calls.
pub fn route(
    tools: &mut [&mut dyn ViewTool],
    owner: &mut Option<usize>,
    cx: &mut ToolCx<'_>,
    input: ViewInput,
) {
    let live = live(tools);
    // A gesture owned by a tool that no longer takes part ends here.
    if let Some(index) = *owner
        && !live.contains(&index)
    {
        *owner = None;
        if let Some(tool) = tools.get_mut(index) {
            tool.input(cx, ViewInput::Cancel);
        }
    }
    if let Some(index) = *owner
        && let Some(tool) = tools.get_mut(index)
    {
        if matches!(input, ViewInput::Press { .. }) {
            // A press while a gesture is under way (its release was missed): end that one.
            tool.input(cx, ViewInput::Cancel);
            *owner = None;
        } else {
            tool.input(cx, input);
            if matches!(
                input,
                ViewInput::Click { .. } | ViewInput::DragEnd { .. } | ViewInput::Cancel
            ) {
                *owner = None;
            }
            return;
        }
    }
    for index in live {
        let Some(tool) = tools.get_mut(index) else {
            continue;
        };
        if tool.input(cx, input) == Taken::Yes {
            if matches!(input, ViewInput::Press { .. } | ViewInput::DragStart { .. }) {
                *owner = Some(index);
            }
            return;
        }
    }
}

/// Lets every tool that takes part lay itself out for the frame ([`ViewTool::prepare`]).
pub fn prepare(tools: &mut [&mut dyn ViewTool], cx: &mut ToolCx<'_>, hover: Option<Vec2>) {
    for index in live(tools) {
        if let Some(tool) = tools.get_mut(index) {
            tool.prepare(cx, hover);
        }
    }
}

/// The pointer's look: the first tool that takes part and has one.
#[must_use]
pub fn cursor(tools: &mut [&mut dyn ViewTool]) -> Option<egui::CursorIcon> {
    live(tools)
        .into_iter()
        .find_map(|index| tools.get(index).and_then(|tool| tool.cursor()))
}

/// The rows of the tools that take part ([`ViewTool::options_ui`]), one under the other.
pub fn options(tools: &mut [&mut dyn ViewTool], cx: &mut ToolCx<'_>, ui: &mut egui::Ui) {
    for index in live(tools) {
        if let Some(tool) = tools.get_mut(index) {
            tool.options_ui(ui, cx);
        }
    }
}

/// What the first tool that takes part and has something to say says about what is under the
/// pointer.
#[must_use]
pub fn hover_text(tools: &mut [&mut dyn ViewTool], cx: &ToolCx<'_>) -> Option<String> {
    live(tools)
        .into_iter()
        .find_map(|index| tools.get(index).and_then(|tool| tool.hover_text(cx)))
}

/// Paints the overlays of the tools that take part, in registry order.
pub fn paint(
    tools: &mut [&mut dyn ViewTool],
    cx: &ToolCx<'_>,
    painter: &egui::Painter,
    rect: egui::Rect,
) {
    for index in live(tools) {
        if let Some(tool) = tools.get_mut(index) {
            tool.paint(cx, painter, rect);
        }
    }
}
