//! The 3D view's right-click menu: a right click without a drag (a right drag still orbits)
//! opens it with entries for what is under the pointer and what is selected. The menu is built
//! from a list of typed [`ContextAction`]s ([`entries`]); the view carries the chosen one out
//! (`ViewState::context_action`).
//!
//! What is under the pointer is read once, when the menu opens ([`Hit`]): the surface point and
//! the point inside the mesh there, the material drawn there and the bone whose head or tail is
//! there. Deleting acts on the view's selection ([`delete_command`]), as Delete and 編集 > 削除 do
//! while the view has the focus.

use super::bone_place;
use super::shown::{PickMode, ShownScene};
use super::tool::ToolRequest;
use crate::command::{Command, Commands};
use crate::document::Document;
use crate::i18n::{Language, NameLanguage};
use crate::select_ops::SelectOp;
use crate::visibility::VisibilityAction;
use glam::{Vec2, Vec3};
use pmx_core::edit::EditOp;
use pmx_core::model::{ElementKind, Model};

/// What the pointer was over when the menu opened.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Where the right click was (viewport pixels).
    pub at: Vec2,
    /// The first surface point under the pointer (world space), if the mesh is there.
    pub surface: Option<Vec3>,
    /// Where a bone added here goes (model space; see [`bone_place::point_under`]).
    pub inside: Vec3,
    /// The material drawn under the pointer.
    pub material: Option<usize>,
    /// The bone whose head or tail is under the pointer.
    pub bone: Option<usize>,
}

impl Hit {
    /// Reads what is under `pixel`.
    #[must_use]
    pub fn read(scene: &ShownScene<'_>, model: &Model, pixel: Vec2) -> Self {
        Self {
            at: pixel,
            surface: bone_place::surface_point(scene, model, pixel),
            inside: bone_place::point_under(scene, model, pixel),
            material: scene.pick(model, PickMode::Material, pixel),
            bone: bone_place::bone_end_at(scene, model, pixel).map(|(bone, ..)| bone),
        }
    }
}

/// One thing the menu can do. The view carries it out (`ViewState::context_action`).
///
/// Adding an entry: a variant here, its line in [`entries`] (label key, whether it applies) and
/// its arm in `ViewState::context_action`. Show and hide and the selection tools are the same
/// commands the 表示 > 絞り込み表示 and 編集 > 選択 menus send.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ContextAction {
    /// Select the element the pointer was over (its name is the entry).
    SelectHit { kind: ElementKind, index: usize },
    /// 削除: the view's selection ([`delete_command`]).
    Delete,
    /// 選択範囲をフレーム: point the camera at the selection.
    FrameSelection,
    /// ここにボーンを追加: a bone inside the mesh under the pointer.
    AddBoneHere,
    /// ここを回転の中心に: the orbit centre to the surface point under the pointer.
    OrbitCentreHere,
    /// 非表示, 選択部分のみ表示, すべて表示 (view state, no undo step).
    Visibility(VisibilityAction),
    /// 繋がったパーツを選択, 材質で選択 (the selection only).
    Select(SelectOp),
}

/// A line of the menu: what it does, its text, whether it can be chosen now.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub action: ContextAction,
    pub text: String,
    pub enabled: bool,
    /// A separator goes above it.
    pub group_start: bool,
}

/// The menu for `hit` on `document` with the view picking `pick_mode`, in `lang`.
#[must_use]
pub fn entries(
    hit: &Hit,
    document: &Document,
    pick_mode: PickMode,
    lang: Language,
    names: NameLanguage,
) -> Vec<Entry> {
    let model = &document.model;
    let mut out = Vec::new();
    let mut push = |action, text: String, enabled, group_start| {
        out.push(Entry {
            action,
            text,
            enabled,
            group_start,
        });
    };
    // What is under the pointer, by name: choosing it selects it.
    if let Some(index) = hit.bone
        && let Some(bone) = model.bones.get(index)
    {
        let name = names
            .pick(&bone.name_ja.as_str(), &bone.name_en.as_str())
            .to_owned();
        let text = lang.format("view.menu_bone_named", &[("name", &name)]);
        push(
            ContextAction::SelectHit {
                kind: ElementKind::Bone,
                index,
            },
            text,
            true,
            false,
        );
    }
    if let Some(index) = hit.material
        && let Some(material) = model.materials.get(index)
    {
        let name = names
            .pick(&material.name_ja.as_str(), &material.name_en.as_str())
            .to_owned();
        let text = lang.format("view.menu_material_named", &[("name", &name)]);
        push(
            ContextAction::SelectHit {
                kind: ElementKind::Material,
                index,
            },
            text,
            true,
            false,
        );
    }
    let named = hit.bone.is_some() || hit.material.is_some();
    let selected = delete_command(document, pick_mode).is_some();
    push(
        ContextAction::Delete,
        lang.tr("view.menu_delete").to_owned(),
        selected,
        named,
    );
    // Show and hide, by the pick kind (vertices, faces or materials; bones and bodies are not
    // hidden, so the entries are not offered for them).
    let kind = pick_mode.kind();
    let hideable = matches!(
        kind,
        ElementKind::Vertex | ElementKind::Face | ElementKind::Material
    );
    let any_selected = !document.selection.get(kind).indices.is_empty();
    if hideable {
        for (index, action) in [
            VisibilityAction::HideSelected(kind),
            VisibilityAction::Isolate(kind),
        ]
        .into_iter()
        .enumerate()
        {
            push(
                ContextAction::Visibility(action),
                lang.tr(action.key()).to_owned(),
                any_selected,
                index == 0,
            );
        }
        push(
            ContextAction::Visibility(VisibilityAction::ShowAll),
            lang.tr(VisibilityAction::ShowAll.key()).to_owned(),
            !document.visibility.shows_everything(),
            false,
        );
    }
    // The selection tools that start from what is selected (on the kind 編集 > 選択 acts on).
    let target = crate::select_ops::select_target(kind);
    let from_target = !document.selection.get(target).indices.is_empty();
    let from_materials = !document
        .selection
        .get(ElementKind::Material)
        .indices
        .is_empty();
    for (index, op) in [SelectOp::Linked, SelectOp::ByMaterial]
        .into_iter()
        .enumerate()
    {
        if op.applies_to(target) {
            let enabled = from_target || (op == SelectOp::ByMaterial && from_materials);
            push(
                ContextAction::Select(op),
                lang.tr(op.label_key()).to_owned(),
                enabled,
                index == 0,
            );
        }
    }
    push(
        ContextAction::FrameSelection,
        lang.tr("view.menu_frame_selection").to_owned(),
        true,
        false,
    );
    push(
        ContextAction::AddBoneHere,
        lang.tr("view.menu_add_bone").to_owned(),
        true,
        true,
    );
    push(
        ContextAction::OrbitCentreHere,
        lang.tr("view.menu_orbit_centre").to_owned(),
        hit.surface.is_some(),
        false,
    );
    out
}

/// Draws `entries` in an open menu; the chosen action (the menu then closes).
pub fn menu_ui(ui: &mut egui::Ui, entries: &[Entry]) -> Option<ContextAction> {
    let mut chosen = None;
    for entry in entries {
        if entry.group_start {
            ui.separator();
        }
        if ui
            .add_enabled(entry.enabled, egui::Button::new(&entry.text))
            .clicked()
        {
            chosen = Some(entry.action);
            ui.close();
        }
    }
    chosen
}

/// Deleting the view's selection, as one step: the pick mode's selected elements; in vertex
/// mode the selected vertices with the faces that use them (the faces leave with them), in
/// material mode the selected materials with their faces and the vertices no other face uses.
/// `None` when nothing deletable is selected (the special display frames are never deleted).
#[must_use]
pub fn delete_command(document: &Document, pick_mode: PickMode) -> Option<Command> {
    let kind = pick_mode.kind();
    let indices = crate::widgets::table::deletable_targets(
        &document.model,
        kind,
        &document.selection.get(kind).targets(),
    );
    (!indices.is_empty()).then(|| {
        Command::ops(vec![EditOp::Delete {
            kind,
            indices,
            remove_unused_vertices: kind == ElementKind::Material,
        }])
    })
}

impl super::ViewState {
    /// Carries out `action` chosen in the menu opened over `hit`.
    pub fn context_action(
        &mut self,
        action: ContextAction,
        hit: &Hit,
        document: &mut Document,
        commands: &mut Commands,
    ) {
        match action {
            ContextAction::SelectHit { kind, index } => {
                document.selection.get_mut(kind).select_only(index);
                if let Some(mode) = PickMode::ALL.into_iter().find(|m| m.kind() == kind) {
                    self.pick_mode = mode;
                }
            }
            ContextAction::Delete => {
                if let Some(command) = delete_command(document, self.pick_mode) {
                    commands.push(command);
                }
            }
            ContextAction::FrameSelection => self.frame_selection(document),
            ContextAction::AddBoneHere => {
                let route = self.transform_route(document);
                let request = bone_place::new_bone_request(document, hit.inside);
                ToolRequest::Create(request).apply(document, commands, &mut self.pick_mode, route);
                self.pick_mode = PickMode::Bone;
                self.layers.bones = true;
            }
            ContextAction::Visibility(action) => commands.push(Command::Visibility(action)),
            ContextAction::Select(op) => commands.push(Command::SelectOp(op)),
            ContextAction::OrbitCentreHere => {
                if let Some(surface) = hit.surface {
                    self.camera.target = surface;
                }
            }
        }
    }
}

/// The menu over the view pane's `response`: a right click (without a drag) opens it over what
/// is under the pointer; the chosen entry is carried out.
pub(super) fn show(
    state: &mut super::ViewState,
    response: &egui::Response,
    document: &mut Document,
    commands: &mut Commands,
) {
    let rect = response.rect;
    if response.secondary_clicked()
        && let Some(pointer) = response.interact_pointer_pos()
    {
        let size = Vec2::new(rect.width(), rect.height());
        let at = Vec2::new(pointer.x - rect.left(), pointer.y - rect.top());
        state.context_hit = Some(Hit::read(&state.shown(size), &document.model, at));
    }
    let Some(hit) = state.context_hit.clone() else {
        return;
    };
    let lines = entries(&hit, document, state.pick_mode, state.lang, state.names);
    let mut chosen = None;
    let open = response.context_menu(|ui| chosen = menu_ui(ui, &lines));
    if let Some(action) = chosen {
        state.context_action(action, &hit, document, commands);
    }
    if open.is_none() || chosen.is_some() {
        state.context_hit = None;
    }
}
