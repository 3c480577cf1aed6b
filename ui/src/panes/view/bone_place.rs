//! Bones by clicking: ボーン追加 mode ([`BonePlace`], modal while on) adds a bone where a click
//! lands, inside the mesh: the middle of the pick ray's front hit and the hit behind it where
//! the ray leaves the mesh ([`pmx_scene::pick::inside_point`]), the front hit alone when there
//! is no other, and the point on the plane through the orbit centre facing the camera when the
//! ray misses. The same bone comes from the context menu's ここにボーンを追加
//! ([`new_bone_request`]).
//!
//! The new bone is one undo step: the bone (a child of the selected bone, else of the first
//! root bone; named `ボーンN`/`boneN` with the first free N; rotatable, visible and operable;
//! its parent's deform layer; tail offset 0) and its entry in its parent's display frame (else
//! the first frame that is not special, else a new frame), built as a typed [`Fix`]; it
//! becomes the selected bone.
//!
//! [`BoneDrag`] drags a bone's head or tail in bone pick mode: the head moves the bone's
//! `position`, the tail its `tail_offset` or, when the bone's tail is a bone, that bone's
//! `position` (as the bone says). The pointer's motion is taken on the plane through the
//! grabbed point facing the camera; every frame sets the value from where the drag began, under
//! the drag's gesture, so one drag is one undo step.

use super::shown::{PickMode, ShownScene, mirror_z};
use super::tool::{
    Gestures, SelectHow, SelectionChange, Taken, ToolCx, ToolRequest, ViewInput, ViewTool,
};
use crate::command::EditRequest;
use crate::document::Document;
use crate::i18n::Language;
use glam::{Vec2, Vec3};
use pmx_core::edit::{Elements, SetField, field};
use pmx_core::model::{Bone, BoneFlags, BoneIdx, DisplayFrame, DisplayItem, ElementKind, Model};
use pmx_core::validate::{Fix, FixStep};
use pmx_scene::{overlay, pick};

/// How near (pixels) the pointer must be to a bone's head or tail to grab it.
const GRAB_PIXELS: f32 = 10.0;

/// The pick ray's hits on the mesh as drawn (posed where the pose puts it), nearest first.
fn surface_hits(scene: &ShownScene<'_>, model: &Model, pixel: Vec2) -> Vec<f32> {
    let positions: Vec<Vec3> =
        overlay::vertices_placed(model, scene.placements.vertices_for(model)).collect();
    let faces: Vec<[u32; 3]> = model
        .faces
        .iter()
        .map(|f| [f[0].0, f[1].0, f[2].0])
        .collect();
    pick::ray_hits(&scene.ray(pixel), &positions, &faces)
        .into_iter()
        .map(|(_, t)| t)
        .collect()
}

/// Where the ray through `pixel` meets the plane through `point` facing the camera (world).
fn on_facing_plane(scene: &ShownScene<'_>, pixel: Vec2, point: Vec3) -> Option<Vec3> {
    let ray = scene.ray(pixel);
    let normal = (scene.camera.eye() - scene.camera.target).normalize_or(Vec3::Z);
    let facing = ray.direction.dot(normal);
    if facing.abs() < 1.0e-6 {
        return None;
    }
    let t = (point - ray.origin).dot(normal) / facing;
    t.is_finite().then(|| ray.at(t))
}

/// Where a bone added by a click at `pixel` goes (model space): inside the mesh under the
/// pointer, or on the plane through the orbit centre facing the camera.
#[must_use]
pub fn point_under(scene: &ShownScene<'_>, model: &Model, pixel: Vec2) -> Vec3 {
    let ray = scene.ray(pixel);
    let world = pick::inside_point(&ray, &surface_hits(scene, model, pixel))
        .or_else(|| on_facing_plane(scene, pixel, scene.camera.target))
        .unwrap_or(scene.camera.target);
    mirror_z(world)
}

/// The first surface point under `pixel` (world space), if the mesh is there.
#[must_use]
pub fn surface_point(scene: &ShownScene<'_>, model: &Model, pixel: Vec2) -> Option<Vec3> {
    let front = *surface_hits(scene, model, pixel).first()?;
    Some(scene.ray(pixel).at(front))
}

/// `ボーンN` / `boneN` with the first N from 1 that no bone's Japanese or English name has.
fn new_bone_names(model: &Model) -> (String, String) {
    let taken = |name: &str| {
        model
            .bones
            .iter()
            .any(|b| b.name_ja.as_str() == name || b.name_en.as_str() == name)
    };
    let n = (1..)
        .find(|n| !taken(&format!("ボーン{n}")) && !taken(&format!("bone{n}")))
        .unwrap_or(1);
    (format!("ボーン{n}"), format!("bone{n}"))
}

/// The parent of a new bone: the current selected bone, else the first bone without a parent.
fn new_bone_parent(document: &Document) -> Option<usize> {
    let model = &document.model;
    let bones = document.selection.get(ElementKind::Bone);
    bones
        .current
        .or_else(|| bones.indices.first())
        .filter(|&b| b < model.bones.len())
        .or_else(|| model.bones.iter().position(|b| b.parent.is_none()))
}

/// The display frame a new child of `parent` joins: the parent's frame unless that is a special
/// one (Root holds 全ての親 alone), else the first frame that is not special; `None`: a new
/// frame is needed.
fn frame_for(model: &Model, parent: Option<usize>) -> Option<usize> {
    let lists_parent = |frame: &DisplayFrame| {
        parent.is_some_and(|p| {
            frame
                .items
                .iter()
                .any(|item| *item == DisplayItem::Bone(Some(BoneIdx::new(p))))
        })
    };
    model
        .display_frames
        .iter()
        .position(|frame| !frame.special && lists_parent(frame))
        .or_else(|| model.display_frames.iter().position(|frame| !frame.special))
}

/// The edit that adds a bone at `position` (model space) as the module says: one step, whose
/// new bone the view selects ([`ToolRequest::Create`]).
#[must_use]
pub fn new_bone_request(document: &Document, position: Vec3) -> EditRequest {
    let model = &document.model;
    let parent = new_bone_parent(document);
    let (name_ja, name_en) = new_bone_names(model);
    let index = model.bones.len();
    let bone = Bone {
        name_ja: name_ja.as_str().into(),
        name_en: name_en.as_str().into(),
        position: position.into(),
        parent: parent.map(BoneIdx::new),
        layer: parent
            .and_then(|p| model.bones.get(p))
            .map_or(0, |p| p.layer),
        flags: BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE,
        ..Bone::default()
    };
    let item = DisplayItem::Bone(Some(BoneIdx::new(index)));
    let mut steps = vec![FixStep::Insert {
        at: None,
        elements: Elements::Bones(vec![bone]),
    }];
    match frame_for(model, parent) {
        Some(frame) => {
            let mut items = model.display_frames[frame].items.clone();
            items.push(item);
            steps.push(FixStep::Set(SetField::new(
                field::<DisplayFrame>().items(),
                vec![frame],
                items,
            )));
        }
        None => steps.push(FixStep::Insert {
            at: None,
            elements: Elements::DisplayFrames(vec![DisplayFrame {
                name_ja: "新規枠".into(),
                name_en: "new frame".into(),
                special: false,
                items: vec![item],
            }]),
        }),
    }
    let label = |lang: Language| lang.format("edit.add_bone", &[("name", &name_ja)]);
    EditRequest::Fix(Fix::new(
        label(Language::English),
        label(Language::Japanese),
        steps,
    ))
}

/// ボーン追加 mode: while on, a click adds a bone there (and nothing else takes the pointer).
#[derive(Debug, Default)]
pub struct BonePlace {
    pub active: bool,
}

impl ViewTool for BonePlace {
    fn toolbar_ui(&mut self, ui: &mut egui::Ui, lang: Language) {
        ui.toggle_value(&mut self.active, lang.tr("view.bone_place"))
            .on_hover_text(lang.tr("view.bone_place_hint"));
    }

    fn input(&mut self, cx: &mut ToolCx<'_>, input: ViewInput) -> Taken {
        let ViewInput::Click { at } = input else {
            return Taken::No;
        };
        if !self.active {
            return Taken::No;
        }
        let position = point_under(&cx.scene, &cx.document.model, at);
        cx.request(ToolRequest::Create(new_bone_request(cx.document, position)));
        cx.request(ToolRequest::SetPickMode(PickMode::Bone));
        Taken::Yes
    }

    fn cursor(&self) -> Option<egui::CursorIcon> {
        self.active.then_some(egui::CursorIcon::Crosshair)
    }

    fn is_modal(&self) -> bool {
        self.active
    }
}

/// The end of a bone a drag took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoneEnd {
    Head,
    Tail,
}

/// A bone head or tail being dragged.
#[derive(Debug, Clone, Copy, PartialEq)]
struct BoneGrab {
    /// The element whose field moves (the tail bone's own index for a tail that is a bone).
    bone: usize,
    /// `position` (head, tail bone) or `tail_offset` (tail as offset).
    offset: bool,
    /// The field's value when the drag began (model space).
    start: Vec3,
    /// The grabbed point (world space) and the pixel the drag began at.
    point: Vec3,
    origin: Vec2,
    gesture: egui::Id,
}

/// Dragging bone heads and tails in bone pick mode (a tool; see the module).
#[derive(Debug, Default)]
pub struct BoneDrag {
    grab: Option<BoneGrab>,
    gestures: Gestures,
}

/// The head or tail drawn nearest `pixel` within [`GRAB_PIXELS`] (heads win ties): the bone and
/// which end, with where it is drawn (world).
#[must_use]
pub fn bone_end_at(
    scene: &ShownScene<'_>,
    model: &Model,
    pixel: Vec2,
) -> Option<(usize, BoneEnd, Vec3)> {
    let projector = scene.projector();
    let placed = scene.placements.bones_for(model);
    let mut best: Option<(f32, usize, BoneEnd, Vec3)> = None;
    for bone in 0..model.bones.len() {
        let ends = [
            (
                BoneEnd::Head,
                overlay::bone_head_placed(model, bone, placed),
            ),
            (
                BoneEnd::Tail,
                overlay::bone_tail_placed(model, bone, placed),
            ),
        ];
        for (end, at) in ends {
            let Some(at) = at else { continue };
            let Some((on_screen, depth)) = projector.project(at) else {
                continue;
            };
            let distance = on_screen.distance(pixel);
            if depth <= 1.0
                && distance <= GRAB_PIXELS
                && best.is_none_or(|(d, ..)| distance < d - 0.5)
            {
                best = Some((distance, bone, end, at));
            }
        }
    }
    best.map(|(_, bone, end, at)| (bone, end, at))
}

impl BoneDrag {
    /// Takes the head or tail under `origin`, if any.
    fn take(&mut self, cx: &mut ToolCx<'_>, origin: Vec2) -> Option<BoneGrab> {
        let model = &cx.document.model;
        let (bone, end, point) = bone_end_at(&cx.scene, model, origin)?;
        let grabbed = model.bones.get(bone)?;
        let (element, offset) = match end {
            BoneEnd::Head => (bone, false),
            BoneEnd::Tail if grabbed.flags.contains(BoneFlags::TAIL_IS_BONE) => {
                (grabbed.tail_bone?.get(), false)
            }
            BoneEnd::Tail => (bone, true),
        };
        let moved = model.bones.get(element)?;
        let start = if offset {
            moved.tail_offset
        } else {
            moved.position
        };
        cx.request(ToolRequest::Select(SelectionChange {
            kind: ElementKind::Bone,
            elements: vec![bone],
            how: SelectHow::Replace,
        }));
        Some(BoneGrab {
            bone: element,
            offset,
            start: start.into(),
            point,
            origin,
            gesture: self.gestures.next("bone_drag"),
        })
    }

    /// The frame's edit: the field at its start value plus the pointer's motion on the plane.
    fn step(cx: &mut ToolCx<'_>, grab: &BoneGrab, at: Vec2) {
        let (Some(from), Some(to)) = (
            on_facing_plane(&cx.scene, grab.origin, grab.point),
            on_facing_plane(&cx.scene, at, grab.point),
        ) else {
            return;
        };
        let value: pmx_core::model::Vec3 = (grab.start + mirror_z(to - from)).into();
        let set = if grab.offset {
            SetField::new(field::<Bone>().tail_offset(), vec![grab.bone], value)
        } else {
            SetField::new(field::<Bone>().position(), vec![grab.bone], value)
        };
        cx.request(ToolRequest::Edit {
            request: EditRequest::Set(set),
            gesture: Some(grab.gesture),
        });
    }
}

impl ViewTool for BoneDrag {
    fn input(&mut self, cx: &mut ToolCx<'_>, input: ViewInput) -> Taken {
        match input {
            ViewInput::DragStart { origin, .. } if cx.pick_mode == PickMode::Bone => {
                match self.take(cx, origin) {
                    Some(grab) => self.grab = Some(grab),
                    None => return Taken::No,
                }
            }
            ViewInput::Drag { at } => {
                let Some(grab) = self.grab else {
                    return Taken::No;
                };
                Self::step(cx, &grab, at);
            }
            // The release frame is past the gesture (the editor ends it when no button is
            // down): the last drag frame already put the value where the pointer let go.
            ViewInput::DragEnd { .. } => {
                if self.grab.take().is_none() {
                    return Taken::No;
                }
            }
            ViewInput::Cancel => self.grab = None,
            _ => return Taken::No,
        }
        Taken::Yes
    }

    fn cursor(&self) -> Option<egui::CursorIcon> {
        self.grab.is_some().then_some(egui::CursorIcon::Grabbing)
    }
}
