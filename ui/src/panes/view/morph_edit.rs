//! モーフ編集 (morph edit mode): a vertex morph is shaped by moving vertices in the view.
//!
//! While the mode is on, the view shows the model with the edited morph at the mode's value (1
//! by default; the row's slider sets 0–1 for checking), and everything that moves vertices
//! changes that morph's offsets instead of the base mesh: the gizmo, the numeric 移動・回転・拡大
//! row (both with their X mirror) and the mode's sculpt brush (つかむ: drag the vertices under
//! the brush; スムーズ: towards the mean of their edge neighbours), with radius, strength and
//! falloff. A moved vertex is drawn at `base + value × offset`, so a change `d` of where it is
//! drawn is a change `d / value` of its offset (no edit at a value under 0.01). Offsets that end
//! up zero leave the list. Each drag or stroke is one undo step, a `set` of
//! `morphs[k].offsets` named after the morph ("モーフ「笑い」の頂点12個を移動"), so scripts
//! replay it; leaving the mode leaves the base mesh as it was.
//!
//! The edited morph is the morph selection's current morph when it is a vertex morph (picked in
//! the モーフ tab, in the mode's row, or made there with 新規作成). The editor puts the pose the
//! view draws in step with the mode ([`MorphEdit::pose_value`]).

use super::morph_offsets::{label, offsets_by_vertex, offsets_command, vertex_offsets};
use super::shown::PickMode;
use super::tool::{
    Gestures, SelectHow, SelectionChange, Taken, ToolCx, ToolRequest, ViewInput, ViewTool,
};
use super::transform::MIN_MORPH_EDIT_VALUE as MIN_EDIT_VALUE;
use crate::command::{Command, EditCommand, EditRequest};
use crate::document::Document;
use crate::i18n::{Language, NameLanguage};
use glam::{Vec2, Vec3};
use pmx_core::edit::PaintIndex;
use pmx_core::model::{ElementKind, Model, Morph, MorphOffsets, MorphPanel};
use pmx_scene::brush::{self, BrushShape, BrushView, Falloff, Reach, Surface};
use std::collections::HashMap;
use std::sync::Arc;

/// What the sculpt brush does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SculptMode {
    /// つかむ: the vertices under the brush where the press was follow the pointer.
    #[default]
    Grab,
    /// スムーズ: each vertex under the brush towards the mean of its edge neighbours.
    Smooth,
}

impl SculptMode {
    pub const ALL: [SculptMode; 2] = [SculptMode::Grab, SculptMode::Smooth];

    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            SculptMode::Grab => "morph_edit.grab",
            SculptMode::Smooth => "morph_edit.smooth",
        }
    }
}

/// The sculpt brush's settings (kept while it is off).
#[derive(Debug, Clone, PartialEq)]
pub struct SculptSettings {
    /// Whether the brush is on (it takes the pointer from selection and the gizmo while on).
    pub on: bool,
    pub mode: SculptMode,
    /// On screen, in pixels.
    pub radius: f32,
    /// 0..1: how far a vertex at the brush's centre goes (つかむ: of the pointer's move).
    pub strength: f32,
    pub falloff: Falloff,
    pub reach: Reach,
    /// The vertex at (−x, y, z) gets the mirrored change.
    pub mirror: bool,
}

impl Default for SculptSettings {
    fn default() -> Self {
        Self {
            on: false,
            mode: SculptMode::Grab,
            radius: 40.0,
            strength: 1.0,
            falloff: Falloff::Smooth,
            reach: Reach::FrontFaces,
            mirror: false,
        }
    }
}

/// A つかむ stroke: the vertices caught at the press with their falloffs and their offsets then.
#[derive(Debug, Clone)]
struct Grab {
    gesture: egui::Id,
    morph: usize,
    origin: Vec2,
    /// The surface point caught (world space): the pointer moves it in the screen's plane.
    centre: Vec3,
    /// (vertex, falloff × strength, mirrored, offset at the press).
    caught: Vec<(usize, f32, bool, Vec3)>,
}

/// A スムーズ stroke.
#[derive(Debug, Clone)]
struct Smooth {
    gesture: egui::Id,
    morph: usize,
    last: Vec2,
}

/// Morph edit mode (a tool of the view: its toolbar switch, its row, its brush).
#[derive(Debug)]
pub struct MorphEdit {
    /// Whether the mode is on.
    pub active: bool,
    /// The value the edited morph is shown at (0..1).
    pub value: f32,
    pub sculpt: SculptSettings,
    /// The name 新規作成 gives the new morph.
    pub new_name: String,
    pub new_panel: MorphPanel,
    gestures: Gestures,
    grab: Option<Grab>,
    smooth: Option<Smooth>,
    hover: Option<Vec2>,
    /// Edge neighbours and the X-mirror lookup, for the model they were built for.
    index: Option<(u64, Arc<PaintIndex>)>,
}

impl Default for MorphEdit {
    fn default() -> Self {
        Self {
            active: false,
            value: 1.0,
            sculpt: SculptSettings::default(),
            new_name: String::new(),
            new_panel: MorphPanel::Other,
            gestures: Gestures::default(),
            grab: None,
            smooth: None,
            hover: None,
            index: None,
        }
    }
}

/// The morph the mode edits: the morph selection's current morph, if it is a vertex morph.
#[must_use]
pub fn target_morph(document: &Document) -> Option<usize> {
    let morphs = document.selection.get(ElementKind::Morph);
    morphs
        .current
        .or_else(|| morphs.indices.first())
        .filter(|&m| vertex_offsets(&document.model, m).is_some())
}

/// A morph's name as lists show it.
fn morph_name(model: &Model, morph: usize, names: NameLanguage) -> String {
    model.morphs.get(morph).map_or_else(String::new, |m| {
        names
            .pick(&m.name_ja.as_str(), &m.name_en.as_str())
            .to_owned()
    })
}

impl MorphEdit {
    /// The morph and value the pose the view draws must hold while the mode is on (`None`
    /// when it is off or no vertex morph is chosen).
    #[must_use]
    pub fn pose_value(&self, document: &Document) -> Option<(usize, f32)> {
        if !self.active {
            return None;
        }
        target_morph(document).map(|morph| (morph, self.value.clamp(0.0, 1.0)))
    }

    /// Where transforms of the selection go: the model while the mode is off, else the edited
    /// morph at the value shown (nothing without a morph to edit).
    #[must_use]
    pub fn transform_into(&self, document: &Document) -> super::transform::TransformInto {
        use super::transform::TransformInto;
        if !self.active {
            return TransformInto::Model;
        }
        match self.pose_value(document) {
            Some((morph, value)) => TransformInto::Morph { morph, value },
            None => TransformInto::Nothing,
        }
    }

    /// Switches the mode on or off (the sculpt brush and strokes end).
    pub fn set_active(&mut self, on: bool) {
        self.active = on;
        self.grab = None;
        self.smooth = None;
        if !on {
            self.sculpt.on = false;
        }
    }

    /// Edge neighbours and the X-mirror lookup of the base mesh, kept while the changes since
    /// they were built touch neither vertices nor faces (the mode's own edits touch morphs).
    fn index(&mut self, document: &Document) -> Arc<PaintIndex> {
        let revision = document.revision();
        let kept = self.index.take().filter(|(at, index)| {
            index.fits(&document.model) && document.mesh_unchanged_since(*at)
        });
        let index = kept.map_or_else(
            || Arc::new(PaintIndex::lazy(&document.model)),
            |(_, index)| index,
        );
        self.index = Some((revision, Arc::clone(&index)));
        index
    }

    /// The brush's shape at `at`.
    fn shape(&self, at: Vec2) -> BrushShape {
        BrushShape {
            at,
            radius: self.sculpt.radius,
            falloff: self.sculpt.falloff,
            reach: self.sculpt.reach,
        }
    }

    /// A つかむ press at `at`: catches the vertices under the brush.
    fn start_grab(&mut self, cx: &ToolCx<'_>, morph: usize, at: Vec2) {
        let document = cx.document;
        let model = &document.model;
        let surface = Surface::new(model, cx.scene.placements.vertices_for(model));
        let view = BrushView::new(cx.scene.camera, cx.scene.size);
        let dab = brush::dab(&surface, &view, &self.shape(at), None);
        let Some(centre) = dab.centre else {
            return;
        };
        let offsets = vertex_offsets(model, morph)
            .map(offsets_by_vertex)
            .unwrap_or_default();
        let offset = |v: usize| offsets.get(&v).copied().unwrap_or(Vec3::ZERO);
        let strength = self.sculpt.strength.clamp(0.0, 1.0);
        let mut caught: Vec<(usize, f32, bool, Vec3)> = dab
            .vertices
            .iter()
            .zip(&dab.falloffs)
            .map(|(&v, &f)| (v as usize, f * strength, false, offset(v as usize)))
            .collect();
        if self.sculpt.mirror {
            let index = self.index(document);
            let taken: std::collections::HashSet<usize> = caught.iter().map(|c| c.0).collect();
            let mirrored: Vec<_> = caught
                .iter()
                .filter_map(|&(v, f, _, _)| {
                    let m = index.mirror_vertex(model, v)?;
                    (m != v && !taken.contains(&m)).then(|| (m, f, true, offset(m)))
                })
                .collect();
            caught.extend(mirrored);
        }
        self.grab = Some(Grab {
            gesture: self.gestures.next("morph_grab"),
            morph,
            origin: at,
            centre,
            caught,
        });
    }

    /// A つかむ stroke's frame with the pointer at `at`: every caught vertex's offset from the
    /// press moved by the pointer's move in the screen's plane through the caught point.
    fn drag_grab(&self, cx: &mut ToolCx<'_>, at: Vec2) {
        let Some(grab) = &self.grab else {
            return;
        };
        let view = BrushView::new(cx.scene.camera, cx.scene.size);
        let on_plane = |pixel: Vec2| -> Option<Vec3> {
            let ray = view.ray(pixel);
            let along = ray.direction.dot(view.forward);
            if along.abs() < 1.0e-6 {
                return None;
            }
            let t = (grab.centre - ray.origin).dot(view.forward) / along;
            Some(ray.origin + ray.direction * t)
        };
        let (Some(from), Some(to)) = (on_plane(grab.origin), on_plane(at)) else {
            return;
        };
        // World space has Z mirrored.
        let world = to - from;
        let moved = Vec3::new(world.x, world.y, -world.z) / self.value.max(MIN_EDIT_VALUE);
        let changes: HashMap<usize, Vec3> = grab
            .caught
            .iter()
            .map(|&(v, weight, mirrored, start)| {
                let by = if mirrored {
                    Vec3::new(-moved.x, moved.y, moved.z)
                } else {
                    moved
                };
                (v, start + by * weight)
            })
            .collect();
        let model = &cx.document.model;
        let label = label(model, "edit.morph_grab", grab.morph, grab.caught.len());
        if let Some(command) =
            offsets_command(model, grab.morph, &changes, label, Some(grab.gesture))
        {
            push_command(cx, command);
        }
    }

    /// One スムーズ dab at `at`: each vertex under the brush towards the mean of where its edge
    /// neighbours are drawn.
    fn smooth_dab(&mut self, cx: &mut ToolCx<'_>, stroke: &Smooth, at: Vec2) {
        let document = cx.document;
        let model = &document.model;
        let Some(list) = vertex_offsets(model, stroke.morph) else {
            return;
        };
        let surface = Surface::new(model, cx.scene.placements.vertices_for(model));
        let view = BrushView::new(cx.scene.camera, cx.scene.size);
        let dab = brush::dab(&surface, &view, &self.shape(at), None);
        if dab.vertices.is_empty() {
            return;
        }
        let index = self.index(document);
        let value = self.value.max(MIN_EDIT_VALUE);
        let offsets = offsets_by_vertex(list);
        let offset = |v: usize| offsets.get(&v).copied().unwrap_or(Vec3::ZERO);
        let drawn = |v: usize| {
            model
                .vertices
                .get(v)
                .map(|vertex| Vec3::from(vertex.position) + offset(v) * value)
        };
        let strength = self.sculpt.strength.clamp(0.0, 1.0);
        let mut targets: Vec<(usize, f32)> = dab
            .vertices
            .iter()
            .zip(&dab.falloffs)
            .map(|(&v, &f)| (v as usize, f * strength))
            .collect();
        if self.sculpt.mirror {
            let taken: std::collections::HashSet<usize> = targets.iter().map(|t| t.0).collect();
            let mirrored: Vec<_> = targets
                .iter()
                .filter_map(|&(v, f)| {
                    let m = index.mirror_vertex(model, v)?;
                    (!taken.contains(&m)).then_some((m, f))
                })
                .collect();
            targets.extend(mirrored);
        }
        let mut changes = HashMap::new();
        for (v, weight) in targets {
            let neighbours = index.neighbours_of(model, v);
            let (Some(here), false) = (drawn(v), neighbours.is_empty()) else {
                continue;
            };
            let mean = neighbours
                .iter()
                .filter_map(|&n| drawn(n as usize))
                .sum::<Vec3>()
                / neighbours.len() as f32;
            changes.insert(v, offset(v) + (mean - here) * weight / value);
        }
        let label = label(model, "edit.morph_smooth", stroke.morph, changes.len());
        if let Some(command) =
            offsets_command(model, stroke.morph, &changes, label, Some(stroke.gesture))
        {
            push_command(cx, command);
        }
    }

    /// The mode's row: the morph, 新規作成, the value, the brush and its settings.
    fn options_row(&mut self, ui: &mut egui::Ui, cx: &mut ToolCx<'_>) {
        let (lang, names) = (cx.lang, cx.names);
        let document = cx.document;
        let model = &document.model;
        let current = target_morph(document);
        ui.label(lang.tr("morph_edit.morph"));
        let vertex_morphs: Vec<usize> = (0..model.morphs.len())
            .filter(|&m| vertex_offsets(model, m).is_some())
            .collect();
        let label = |k: usize| {
            vertex_morphs.get(k).map_or_else(String::new, |&m| {
                format!("{m} {}", morph_name(model, m, names))
            })
        };
        let shown = current.and_then(|m| vertex_morphs.iter().position(|&v| v == m));
        let picked = crate::widgets::index_picker_ui(
            ui,
            "morph_edit_morph",
            shown,
            false,
            vertex_morphs.len(),
            &label,
            Some(lang.tr("morph_edit.none")),
            120.0,
            lang.tr("morph_edit.morph"),
        );
        if let Some(Some(k)) = picked
            && let Some(&morph) = vertex_morphs.get(k)
        {
            cx.request(ToolRequest::Select(SelectionChange {
                kind: ElementKind::Morph,
                elements: vec![morph],
                how: SelectHow::Replace,
            }));
        }
        ui.add(
            egui::Slider::new(&mut self.value, 0.0..=1.0)
                .text(lang.tr("morph_edit.value"))
                .max_decimals(3),
        )
        .accessible_name(lang.tr("morph_edit.value"));
        ui.separator();
        ui.add(
            egui::TextEdit::singleline(&mut self.new_name)
                .hint_text(lang.tr("morph_edit.new_name"))
                .desired_width(80.0),
        )
        .accessible_name(lang.tr("morph_edit.new_name"));
        if ui
            .button(lang.tr("morph_edit.new"))
            .on_hover_text(lang.tr("morph_edit.new_hint"))
            .clicked()
        {
            let name = match self.new_name.trim() {
                "" => lang.tr("morph_edit.new_name").to_owned(),
                name => name.to_owned(),
            };
            let morph = Morph {
                name_ja: name.as_str().into(),
                name_en: "".into(),
                panel: self.new_panel,
                offsets: MorphOffsets::Vertex(Vec::new()),
            };
            cx.request(ToolRequest::Create(EditRequest::NewMorph(morph)));
            self.new_name.clear();
        }
        ui.separator();
        ui.toggle_value(&mut self.sculpt.on, lang.tr("morph_edit.brush"))
            .on_hover_text(lang.tr("morph_edit.brush_hint"));
        if self.sculpt.on {
            for mode in SculptMode::ALL {
                ui.selectable_value(&mut self.sculpt.mode, mode, lang.tr(mode.key()));
            }
            super::weight_paint::radius_field(ui, lang, &mut self.sculpt.radius);
            super::weight_paint::strength_field(ui, lang, &mut self.sculpt.strength);
            super::weight_paint::combo(
                ui,
                lang,
                "brush.falloff",
                &mut self.sculpt.falloff,
                Falloff::ALL.map(|f| (f, f.key())),
            );
            super::weight_paint::reach_checkbox(ui, lang, &mut self.sculpt.reach);
            ui.checkbox(&mut self.sculpt.mirror, lang.tr("brush.mirror"));
        }
        if current.is_none() {
            ui.colored_label(
                egui::Color32::from_rgb(200, 120, 0),
                lang.tr("morph_edit.no_target"),
            );
        } else if self.value < MIN_EDIT_VALUE {
            ui.colored_label(
                egui::Color32::from_rgb(200, 120, 0),
                lang.tr("morph_edit.value_zero"),
            );
        } else {
            ui.weak(lang.tr("morph_edit.hint"));
        }
    }
}

/// Queues `command` as a request of the tool.
fn push_command(cx: &mut ToolCx<'_>, command: Command) {
    if let Command::Edit(EditCommand {
        request, gesture, ..
    }) = command
    {
        cx.request(ToolRequest::Edit { request, gesture });
    }
}

impl ViewTool for MorphEdit {
    fn toolbar_ui(&mut self, ui: &mut egui::Ui, lang: Language) {
        ui.separator();
        if ui
            .selectable_label(self.active, lang.tr("morph_edit.toggle"))
            .on_hover_text(lang.tr("morph_edit.toggle_hint"))
            .clicked()
        {
            self.set_active(!self.active);
        }
    }

    fn options_ui(&mut self, ui: &mut egui::Ui, cx: &mut ToolCx<'_>) {
        if self.active {
            if cx.pick_mode != PickMode::Vertex && cx.pick_mode != PickMode::Material {
                cx.request(ToolRequest::SetPickMode(PickMode::Vertex));
            }
            self.options_row(ui, cx);
        }
    }

    fn prepare(&mut self, _cx: &mut ToolCx<'_>, hover: Option<Vec2>) {
        self.hover = hover;
    }

    fn input(&mut self, cx: &mut ToolCx<'_>, input: ViewInput) -> Taken {
        if !self.is_modal() {
            return Taken::No;
        }
        let morph = target_morph(cx.document).filter(|_| self.value >= MIN_EDIT_VALUE);
        match input {
            ViewInput::Press { at } => {
                self.grab = None;
                self.smooth = None;
                let Some(morph) = morph else {
                    return Taken::Yes;
                };
                match self.sculpt.mode {
                    SculptMode::Grab => self.start_grab(cx, morph, at),
                    SculptMode::Smooth => {
                        let stroke = Smooth {
                            gesture: self.gestures.next("morph_smooth"),
                            morph,
                            last: at,
                        };
                        self.smooth_dab(cx, &stroke, at);
                        self.smooth = Some(stroke);
                    }
                }
            }
            ViewInput::DragStart { at, .. } | ViewInput::Drag { at } => {
                if self.grab.is_some() {
                    self.drag_grab(cx, at);
                } else if let Some(stroke) = self.smooth.clone() {
                    let spacing = (self.sculpt.radius * 0.25).max(2.0);
                    let steps = (stroke.last.distance(at) / spacing).floor() as usize;
                    for step in 1..=steps.min(32) {
                        let point = stroke.last + (at - stroke.last) * (step as f32 / steps as f32);
                        self.smooth_dab(cx, &stroke, point);
                    }
                    if steps > 0
                        && let Some(stroke) = &mut self.smooth
                    {
                        stroke.last = at;
                    }
                }
            }
            ViewInput::DragEnd { .. } | ViewInput::Click { .. } | ViewInput::Cancel => {
                self.grab = None;
                self.smooth = None;
            }
            ViewInput::Key(key) => match key {
                egui::Key::OpenBracket => {
                    self.sculpt.radius = (self.sculpt.radius / 1.25).max(2.0);
                }
                egui::Key::CloseBracket => {
                    self.sculpt.radius = (self.sculpt.radius * 1.25).min(600.0);
                }
                _ => return Taken::No,
            },
        }
        Taken::Yes
    }

    fn cursor(&self) -> Option<egui::CursorIcon> {
        self.is_modal().then_some(if self.grab.is_some() {
            egui::CursorIcon::Grabbing
        } else {
            egui::CursorIcon::Crosshair
        })
    }

    fn paint(&mut self, cx: &ToolCx<'_>, painter: &egui::Painter, rect: egui::Rect) {
        if !self.active {
            return;
        }
        if self.is_modal()
            && let Some(at) = self.grab.as_ref().map(|g| g.origin).or(self.hover)
        {
            let centre = rect.min + egui::vec2(at.x, at.y);
            let shadow = egui::Stroke::new(3.0, egui::Color32::from_black_alpha(140));
            painter.circle_stroke(centre, self.sculpt.radius, shadow);
            painter.circle_stroke(
                centre,
                self.sculpt.radius,
                egui::Stroke::new(1.0, egui::Color32::from_rgb(255, 200, 120)),
            );
        }
        // Which morph the view shows, in its upper left corner.
        let model = &cx.document.model;
        let text = match target_morph(cx.document) {
            Some(morph) => cx.lang.format(
                "morph_edit.banner",
                &[
                    ("name", &morph_name(model, morph, cx.names)),
                    ("value", &format!("{:.2}", self.value)),
                ],
            ),
            None => cx.lang.tr("morph_edit.no_target").to_owned(),
        };
        painter.text(
            rect.min + egui::vec2(8.0, 8.0),
            egui::Align2::LEFT_TOP,
            text,
            egui::FontId::proportional(14.0),
            egui::Color32::from_rgb(255, 200, 120),
        );
    }

    fn is_modal(&self) -> bool {
        self.active && self.sculpt.on
    }
}
