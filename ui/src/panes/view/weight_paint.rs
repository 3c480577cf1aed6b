//! ウェイト描画 (weight paint): a round brush that paints the target bone's weights on the mesh
//! as it is drawn (posed, played or simulated in the pose pane: the brush reaches the deformed
//! mesh and the mesh re-deforms as the weights change).
//!
//! The target bone is the bone selection's current bone, so it is picked in the bone tree, the
//! bone table, the list in the tool's row, or in the view with Alt+click (the bone head under
//! the pointer, else the bone that weighs most on the vertex there). Modes: 加算, 減算, 置換
//! (towards a value), ぼかし (towards the average of edge neighbours), グラデーション (a linear
//! ramp dragged between two points). A stroke sends one `paint_weights` op per dab, all under
//! one gesture, so the stroke is one undo step; the op keeps every touched vertex valid
//! (`pmx_core::edit::PaintWeights`). While the tool is on it is modal and the view shows the
//! weights: the target bone on a ramp with its legend (or every bone in its own colour), and
//! the weights of the vertex under the pointer as a tooltip.

use super::shown::PickMode;
use super::tool::{
    Gestures, SelectHow, SelectionChange, Taken, ToolCx, ToolRequest, ViewInput, ViewTool,
};
use crate::command::EditRequest;
use crate::document::Document;
use crate::i18n::{Language, NameLanguage};
use glam::Vec2;
use pmx_core::edit::{BoneRef, PaintMode, PaintWeights};
use pmx_core::model::{ElementKind, Model};
use pmx_scene::brush::{self, BrushShape, BrushView, Falloff, Reach, Surface};
use pmx_scene::weight_colors::{self, WeightDisplay};
use std::collections::BTreeSet;
use std::sync::Arc;

/// What a stroke does to the target bone's weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BrushMode {
    /// 加算
    #[default]
    Add,
    /// 減算
    Subtract,
    /// 置換: towards the brush's value.
    Set,
    /// ぼかし: towards the average of the edge neighbours.
    Smooth,
    /// グラデーション: a ramp from the value at the drag's start to 0 at its end.
    Gradient,
}

impl BrushMode {
    pub const ALL: [BrushMode; 5] = [
        BrushMode::Add,
        BrushMode::Subtract,
        BrushMode::Set,
        BrushMode::Smooth,
        BrushMode::Gradient,
    ];

    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            BrushMode::Add => "brush.mode_add",
            BrushMode::Subtract => "brush.mode_subtract",
            BrushMode::Set => "brush.mode_set",
            BrushMode::Smooth => "brush.mode_smooth",
            BrushMode::Gradient => "brush.mode_gradient",
        }
    }
}

/// Which materials' vertices the brush may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MaterialLimit {
    #[default]
    All,
    /// The selected materials (all when none is selected).
    Selected,
    /// The materials MikuMikuDance draws (diffuse alpha above 0).
    Visible,
}

impl MaterialLimit {
    pub const ALL: [MaterialLimit; 3] = [
        MaterialLimit::All,
        MaterialLimit::Selected,
        MaterialLimit::Visible,
    ];

    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            MaterialLimit::All => "brush.limit_all",
            MaterialLimit::Selected => "brush.limit_selected",
            MaterialLimit::Visible => "brush.limit_visible",
        }
    }
}

/// How the weights are shown while painting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DisplayChoice {
    /// The target bone on a ramp.
    #[default]
    Ramp,
    /// Every bone in its own colour.
    AllBones,
}

/// The brush's settings (kept while the tool is off).
#[derive(Debug, Clone, PartialEq)]
pub struct BrushSettings {
    pub mode: BrushMode,
    /// On screen, in pixels.
    pub radius: f32,
    /// 0..1: how much of the way a dab goes at its centre.
    pub strength: f32,
    /// 置換's and グラデーション's value.
    pub value: f32,
    pub falloff: Falloff,
    pub reach: Reach,
    /// X-mirror: the mirrored vertex gets the same change on the mirrored bone (左 ↔ 右).
    pub mirror: bool,
    pub limit: MaterialLimit,
    /// Most bones per vertex: 4, or 2 to stay PMD-compatible.
    pub max_bones: usize,
    /// Bones whose weights the brush never changes.
    pub locked: BTreeSet<usize>,
}

impl Default for BrushSettings {
    fn default() -> Self {
        Self {
            mode: BrushMode::Add,
            radius: 40.0,
            strength: 0.2,
            value: 1.0,
            falloff: Falloff::Smooth,
            reach: Reach::FrontFaces,
            mirror: false,
            limit: MaterialLimit::All,
            max_bones: 4,
            locked: BTreeSet::new(),
        }
    }
}

/// A stroke under way.
#[derive(Debug, Clone)]
struct Stroke {
    gesture: egui::Id,
    bone: usize,
    /// Where the last dab was (pixels).
    last: Vec2,
}

/// What the pointer is over (for the tooltip and the brush's radius in model units).
#[derive(Debug, Clone, Default)]
struct Hover {
    at: Option<Vec2>,
    /// The camera, viewport and pose the hover was worked out in.
    seen: Option<(pmx_scene::camera::OrbitCamera, Vec2, [Option<u64>; 3])>,
    vertex: Option<usize>,
    model_radius: Option<f32>,
}

/// The per-vertex mask of the material limit, for what it was built from.
type MaskKey = (u64, u64, u64, MaterialLimit, u64);

/// The weight brush (a tool of the 3D view).
#[derive(Debug, Default)]
pub struct WeightPaint {
    /// Whether the tool is on (it is modal while it is).
    pub active: bool,
    pub brush: BrushSettings,
    pub display: DisplayChoice,
    gestures: Gestures,
    stroke: Option<Stroke>,
    /// A gradient being dragged: from, to (pixels).
    gradient: Option<(Vec2, Vec2)>,
    hover: Hover,
    mask: Option<(MaskKey, Option<Arc<Vec<bool>>>)>,
    /// How many dabs this tool has sent (tests and the status line).
    pub dabs_sent: u64,
}

/// The bone the brush paints: the bone selection's current bone (or its first).
#[must_use]
pub fn target_bone(document: &Document) -> Option<usize> {
    let bones = document.selection.get(ElementKind::Bone);
    bones
        .current
        .or_else(|| bones.indices.first())
        .filter(|&b| b < document.model.bones.len())
}

/// A bone's name as lists show it.
fn bone_name(model: &Model, bone: usize, names: NameLanguage) -> String {
    model.bones.get(bone).map_or_else(String::new, |b| {
        names
            .pick(&b.name_ja.as_str(), &b.name_en.as_str())
            .to_owned()
    })
}

impl WeightPaint {
    /// What the weight display shows while the tool is on.
    #[must_use]
    pub fn weight_display(&self, document: &Document) -> WeightDisplay {
        match (self.display, target_bone(document)) {
            (DisplayChoice::Ramp, Some(bone)) => WeightDisplay::Bone(bone),
            _ => WeightDisplay::AllBones,
        }
    }

    /// The vertex under the pointer, as last laid out.
    #[must_use]
    pub fn hovered_vertex(&self) -> Option<usize> {
        self.hover.vertex
    }

    /// The brush's radius in model units where the pointer is, as last laid out.
    #[must_use]
    pub fn model_radius(&self) -> Option<f32> {
        self.hover.model_radius
    }

    /// The per-vertex mask of the material limit (`None`: no limit).
    fn mask(&mut self, document: &Document) -> Option<Arc<Vec<bool>>> {
        let model = &document.model;
        let limit = self.brush.limit;
        let selected = &document.selection.get(ElementKind::Material).indices;
        let materials: Vec<bool> = match limit {
            MaterialLimit::All => return None,
            MaterialLimit::Selected if selected.is_empty() => return None,
            MaterialLimit::Selected => (0..model.materials.len())
                .map(|m| selected.contains(m))
                .collect(),
            MaterialLimit::Visible => model.materials.iter().map(|m| m.diffuse.w > 0.0).collect(),
        };
        let key: MaskKey = (
            document.structure_revision(ElementKind::Face),
            document.structure_revision(ElementKind::Material),
            document.structure_revision(ElementKind::Vertex),
            limit,
            {
                use std::hash::{Hash, Hasher};
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                materials.hash(&mut hasher);
                hasher.finish()
            },
        );
        if let Some((built, mask)) = &self.mask
            && *built == key
        {
            return mask.clone();
        }
        let mut mask = vec![false; model.vertices.len()];
        for (material, range) in model.material_face_ranges().into_iter().enumerate() {
            if !materials.get(material).copied().unwrap_or(false) {
                continue;
            }
            for face in model.faces.get(range).unwrap_or_default() {
                for v in face {
                    if let Some(slot) = mask.get_mut(v.get()) {
                        *slot = true;
                    }
                }
            }
        }
        let mask = Some(Arc::new(mask));
        self.mask = Some((key, mask.clone()));
        mask
    }

    /// One dab at `at`: the op it sends (none when it touches nothing).
    fn dab(&mut self, cx: &mut ToolCx<'_>, bone: usize, gesture: egui::Id, at: Vec2) {
        let document = cx.document;
        let model = &document.model;
        let mask = self.mask(document);
        let surface = Surface::new(model, cx.scene.placements.vertices_for(model));
        let view = BrushView::new(cx.scene.camera, cx.scene.size);
        let shape = BrushShape {
            at,
            radius: self.brush.radius,
            falloff: self.brush.falloff,
            reach: self.brush.reach,
        };
        let dab = brush::dab(&surface, &view, &shape, mask.as_deref().map(Vec::as_slice));
        self.hover.model_radius = dab.model_radius.or(self.hover.model_radius);
        if dab.vertices.is_empty() {
            return;
        }
        let strength = self.brush.strength.clamp(0.0, 1.0);
        let (mode, amounts) = match self.brush.mode {
            BrushMode::Add => (PaintMode::Add, scaled(&dab.falloffs, strength)),
            BrushMode::Subtract => (PaintMode::Subtract, scaled(&dab.falloffs, strength)),
            BrushMode::Smooth => (PaintMode::Smooth, scaled(&dab.falloffs, strength)),
            BrushMode::Set | BrushMode::Gradient => {
                let value = self.brush.value.clamp(0.0, 1.0);
                let amounts = dab
                    .vertices
                    .iter()
                    .zip(&dab.falloffs)
                    .map(|(&v, &falloff)| {
                        let now = current_weight(model, v as usize, bone);
                        now + (value - now) * strength * falloff
                    })
                    .collect();
                (PaintMode::Set, amounts)
            }
        };
        self.send(cx, bone, mode, &dab.vertices, amounts, Some(gesture));
    }

    /// Sends one `paint_weights` op.
    fn send(
        &mut self,
        cx: &mut ToolCx<'_>,
        bone: usize,
        mode: PaintMode,
        vertices: &[u32],
        amounts: Vec<f32>,
        gesture: Option<egui::Id>,
    ) {
        let paint = PaintWeights {
            bone: BoneRef::Index(bone),
            mode,
            vertices: vertices.iter().map(|&v| v as usize).collect(),
            amounts,
            mirror: self.brush.mirror,
            max_bones: self.brush.max_bones,
            locked: self
                .brush
                .locked
                .iter()
                .map(|&b| BoneRef::Index(b))
                .collect(),
        };
        self.dabs_sent += 1;
        cx.request(ToolRequest::Edit {
            request: EditRequest::PaintWeights(paint),
            gesture,
        });
    }

    /// The gradient dragged from `from` to `to`, as one edit.
    fn gradient(&mut self, cx: &mut ToolCx<'_>, bone: usize, from: Vec2, to: Vec2) {
        let document = cx.document;
        let model = &document.model;
        let mask = self.mask(document);
        let surface = Surface::new(model, cx.scene.placements.vertices_for(model));
        let view = BrushView::new(cx.scene.camera, cx.scene.size);
        let (vertices, ramp) = brush::gradient(
            &surface,
            &view,
            from,
            to,
            self.brush.reach,
            mask.as_deref().map(Vec::as_slice),
        );
        if vertices.is_empty() {
            return;
        }
        let value = self.brush.value.clamp(0.0, 1.0);
        let strength = self.brush.strength.clamp(0.0, 1.0);
        let amounts = vertices
            .iter()
            .zip(&ramp)
            .map(|(&v, &t)| {
                let now = current_weight(model, v as usize, bone);
                now + (value * (1.0 - t) - now) * strength
            })
            .collect();
        self.send(cx, bone, PaintMode::Set, &vertices, amounts, None);
    }

    /// Alt+click: the bone head at `at`, else the bone that weighs most on the vertex there.
    fn pick_bone(&self, cx: &mut ToolCx<'_>, at: Vec2) {
        let model = &cx.document.model;
        let bone = cx.scene.pick(model, PickMode::Bone, at).or_else(|| {
            let vertex = cx.scene.pick(model, PickMode::Vertex, at)?;
            dominant_bone(model, vertex)
        });
        if let Some(bone) = bone {
            cx.request(ToolRequest::Select(SelectionChange {
                kind: ElementKind::Bone,
                elements: vec![bone],
                how: SelectHow::Replace,
            }));
        }
    }

    /// The brush's row: mode, radius, strength, value, falloff, reach, mirror, limit, maximum
    /// bones, locks and the display, and the target bone's list.
    fn options_row(&mut self, ui: &mut egui::Ui, cx: &mut ToolCx<'_>) {
        let (lang, names) = (cx.lang, cx.names);
        let document = cx.document;
        let model = &document.model;
        let current = target_bone(document);
        let label = |i: usize| format!("{i} {}", bone_name(model, i, names));
        ui.label(lang.tr("brush.target"));
        let picked = crate::widgets::index_picker_ui(
            ui,
            "weight_paint_bone",
            current,
            false,
            model.bones.len(),
            &label,
            None,
            140.0,
            lang.tr("brush.target"),
        );
        if let Some(Some(bone)) = picked {
            cx.request(ToolRequest::Select(SelectionChange {
                kind: ElementKind::Bone,
                elements: vec![bone],
                how: SelectHow::Replace,
            }));
        }
        ui.separator();
        for mode in BrushMode::ALL {
            ui.selectable_value(&mut self.brush.mode, mode, lang.tr(mode.key()));
        }
        ui.separator();
        // Each value carries its name, so the row can wrap anywhere.
        radius_field(ui, lang, &mut self.brush.radius).on_hover_text(lang.tr("brush.radius_hint"));
        if let Some(radius) = self.hover.model_radius {
            ui.weak(format!("({radius:.3})"));
        }
        strength_field(ui, lang, &mut self.brush.strength);
        if matches!(self.brush.mode, BrushMode::Set | BrushMode::Gradient) {
            ui.add(
                egui::DragValue::new(&mut self.brush.value)
                    .range(0.0..=1.0)
                    .speed(0.01)
                    .prefix(format!("{} ", lang.tr("brush.value"))),
            )
            .accessible_name(lang.tr("brush.value"));
        }
        combo(
            ui,
            lang,
            "brush.falloff",
            &mut self.brush.falloff,
            Falloff::ALL.map(|f| (f, f.key())),
        );
        reach_checkbox(ui, lang, &mut self.brush.reach);
        ui.checkbox(&mut self.brush.mirror, lang.tr("brush.mirror"));
        combo(
            ui,
            lang,
            "brush.limit",
            &mut self.brush.limit,
            MaterialLimit::ALL.map(|l| (l, l.key())),
        );
        ui.label(lang.tr("brush.max_bones"));
        ui.selectable_value(&mut self.brush.max_bones, 4, "4");
        ui.selectable_value(&mut self.brush.max_bones, 2, "2 (PMD)");
        if let Some(bone) = current {
            let locked = self.brush.locked.contains(&bone);
            if ui
                .selectable_label(locked, lang.tr("brush.lock"))
                .on_hover_text(lang.tr("brush.lock_hint"))
                .clicked()
            {
                if locked {
                    self.brush.locked.remove(&bone);
                } else {
                    self.brush.locked.insert(bone);
                }
            }
        }
        let locked: Vec<usize> = self.brush.locked.iter().copied().collect();
        for bone in locked {
            if ui
                .small_button(format!("🔒 {} ✕", bone_name(model, bone, names)))
                .on_hover_text(lang.tr("brush.unlock_hint"))
                .clicked()
            {
                self.brush.locked.remove(&bone);
            }
        }
        ui.separator();
        ui.selectable_value(
            &mut self.display,
            DisplayChoice::Ramp,
            lang.tr("brush.display_ramp"),
        );
        ui.selectable_value(
            &mut self.display,
            DisplayChoice::AllBones,
            lang.tr("brush.display_all"),
        );
        ui.weak(lang.tr("brush.pick_hint"));
    }

    /// The weights of the vertex under the pointer, one line per bone (the target marked).
    #[must_use]
    fn readout(&self, cx: &ToolCx<'_>) -> Option<String> {
        let (lang, names, document) = (cx.lang, cx.names, cx.document);
        let vertex = self.hover.vertex?;
        let model = &document.model;
        let weight = &model.vertices.get(vertex)?.weight;
        let target = target_bone(document);
        let mut lines = vec![lang.format("brush.readout_vertex", &[("index", &vertex)])];
        if let Some(bone) = target {
            lines.push(format!(
                "{} {:.3}",
                bone_name(model, bone, names),
                current_weight(model, vertex, bone)
            ));
        }
        let mut any = false;
        for (bone, w) in combined(weight, model.bones.len()) {
            any = true;
            let mark = if Some(bone) == target { "▶ " } else { "  " };
            lines.push(format!(
                "{mark}{bone} {} {w:.3}",
                bone_name(model, bone, names)
            ));
        }
        if !any {
            lines.push(lang.tr("brush.readout_unweighted").to_owned());
        }
        Some(lines.join("\n"))
    }
}

/// A combo box named by `name_key` choosing `value` among `options` (value, i18n key).
/// A brush's radius in screen pixels (the brushes' rows share it).
pub(super) fn radius_field(ui: &mut egui::Ui, lang: Language, radius: &mut f32) -> egui::Response {
    ui.add(
        egui::DragValue::new(radius)
            .range(2.0..=600.0)
            .prefix(format!("{} ", lang.tr("brush.radius")))
            .suffix(" px"),
    )
    .accessible_name(lang.tr("brush.radius"))
}

/// A brush's strength, 0 to 1.
pub(super) fn strength_field(ui: &mut egui::Ui, lang: Language, strength: &mut f32) {
    ui.add(
        egui::DragValue::new(strength)
            .range(0.0..=1.0)
            .speed(0.01)
            .prefix(format!("{} ", lang.tr("brush.strength"))),
    )
    .accessible_name(lang.tr("brush.strength"));
}

/// 貫通: whether a brush reaches through to everything in its circle.
pub(super) fn reach_checkbox(ui: &mut egui::Ui, lang: Language, reach: &mut Reach) {
    let mut through = *reach == Reach::Through;
    if ui
        .checkbox(&mut through, lang.tr("brush.through"))
        .on_hover_text(lang.tr("brush.through_hint"))
        .changed()
    {
        *reach = if through {
            Reach::Through
        } else {
            Reach::FrontFaces
        };
    }
}

/// A choice as a combo box named by `name_key` (the brushes' rows share it).
pub(super) fn combo<T: Copy + PartialEq, const N: usize>(
    ui: &mut egui::Ui,
    lang: Language,
    name_key: &'static str,
    value: &mut T,
    options: [(T, &'static str); N],
) {
    let shown = options
        .iter()
        .find(|(v, _)| v == value)
        .map_or("", |(_, key)| lang.tr(key));
    egui::ComboBox::from_id_salt(("weight_paint", name_key))
        .selected_text(shown)
        .show_ui(ui, |ui| {
            for (option, key) in options {
                ui.selectable_value(value, option, lang.tr(key));
            }
        })
        .response
        .accessible_name(lang.tr(name_key));
}

/// `falloffs` × `strength`.
fn scaled(falloffs: &[f32], strength: f32) -> Vec<f32> {
    falloffs.iter().map(|f| f * strength).collect()
}

/// The valid bones of a weight with their summed weights, heaviest first.
fn combined(weight: &pmx_core::model::Weight, bone_count: usize) -> Vec<(usize, f32)> {
    let mut list: Vec<(usize, f32)> = Vec::new();
    for (bone, w) in weight.bone_weights() {
        let Some(bone) = bone.map(|b| b.get()).filter(|&b| b < bone_count) else {
            continue;
        };
        let w = if w.is_finite() { w } else { 0.0 };
        match list.iter_mut().find(|(b, _)| *b == bone) {
            Some((_, total)) => *total += w,
            None => list.push((bone, w)),
        }
    }
    list.sort_by(|a, b| b.1.total_cmp(&a.1));
    list
}

/// Vertex `vertex`'s weight on `bone` (0 when it does not hold it).
fn current_weight(model: &Model, vertex: usize, bone: usize) -> f32 {
    // `+ 0.0`: an empty float sum is -0.0, which would read "-0.000".
    model
        .vertices
        .get(vertex)
        .map_or(0.0, |v| pmx_scene::overlay::weight_of(&v.weight, bone))
        + 0.0
}

/// The bone that weighs most on `vertex`.
fn dominant_bone(model: &Model, vertex: usize) -> Option<usize> {
    let weight = &model.vertices.get(vertex)?.weight;
    combined(weight, model.bones.len()).first().map(|(b, _)| *b)
}

impl ViewTool for WeightPaint {
    fn toolbar_ui(&mut self, ui: &mut egui::Ui, lang: Language) {
        ui.separator();
        if ui
            .selectable_label(self.active, lang.tr("brush.weight_paint"))
            .on_hover_text(lang.tr("brush.weight_paint_hint"))
            .clicked()
        {
            self.active = !self.active;
            self.stroke = None;
            self.gradient = None;
        }
    }

    fn options_ui(&mut self, ui: &mut egui::Ui, cx: &mut ToolCx<'_>) {
        if self.active {
            self.options_row(ui, cx);
        }
    }

    fn hover_text(&self, cx: &ToolCx<'_>) -> Option<String> {
        self.readout(cx)
    }

    fn prepare(&mut self, cx: &mut ToolCx<'_>, hover: Option<Vec2>) {
        if !self.active {
            self.hover = Hover::default();
            return;
        }
        if hover.is_none() {
            self.hover.at = None;
            self.hover.vertex = None;
            return;
        }
        let model = &cx.document.model;
        let seen = (
            *cx.scene.camera,
            cx.scene.size,
            cx.scene.placements.generations_for(model),
        );
        if hover == self.hover.at && self.hover.seen.as_ref() == Some(&seen) {
            return;
        }
        self.hover.at = hover;
        self.hover.seen = Some(seen);
        if self.stroke.is_some() {
            // While painting the dabs say where the brush is; the readout waits for the release.
            self.hover.vertex = None;
            return;
        }
        self.hover.vertex = None;
        if let Some(at) = hover {
            let surface = Surface::new(model, cx.scene.placements.vertices_for(model));
            let view = BrushView::new(cx.scene.camera, cx.scene.size);
            // Only the radius is wanted: a small brush finds the surface point cheaply.
            let probe = brush::dab(
                &surface,
                &view,
                &BrushShape {
                    at,
                    radius: 6.0,
                    falloff: Falloff::Linear,
                    reach: Reach::FrontFaces,
                },
                None,
            );
            self.hover.model_radius = probe.model_radius.map(|r| r * self.brush.radius / 6.0);
            // The readout's vertex: the one nearest the surface point under the pointer (on
            // the side facing the camera), else the one drawn nearest the pointer.
            self.hover.vertex = probe
                .vertices
                .iter()
                .zip(&probe.falloffs)
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map(|(&v, _)| v as usize)
                .or_else(|| cx.scene.pick(model, PickMode::Vertex, at));
        }
    }

    fn input(&mut self, cx: &mut ToolCx<'_>, input: ViewInput) -> Taken {
        if !self.active {
            return Taken::No;
        }
        match input {
            ViewInput::Press { at } => {
                self.stroke = None;
                self.gradient = None;
                if cx.modifiers.alt {
                    self.pick_bone(cx, at);
                    return Taken::Yes;
                }
                let Some(bone) = target_bone(cx.document) else {
                    return Taken::Yes;
                };
                if self.brush.mode == BrushMode::Gradient {
                    self.gradient = Some((at, at));
                    return Taken::Yes;
                }
                let gesture = self.gestures.next("weight_paint");
                self.stroke = Some(Stroke {
                    gesture,
                    bone,
                    last: at,
                });
                self.dab(cx, bone, gesture, at);
            }
            ViewInput::DragStart { at, .. } | ViewInput::Drag { at } => {
                if let Some((_, end)) = &mut self.gradient {
                    *end = at;
                } else if let Some(stroke) = self.stroke.clone() {
                    // Dabs a fifth of the brush apart: an even stroke at any pointer speed.
                    let spacing = (self.brush.radius * 0.2).max(2.0);
                    let steps = (stroke.last.distance(at) / spacing).floor() as usize;
                    for step in 1..=steps.min(64) {
                        let point = stroke.last + (at - stroke.last) * (step as f32 / steps as f32);
                        self.dab(cx, stroke.bone, stroke.gesture, point);
                    }
                    if steps > 0
                        && let Some(stroke) = &mut self.stroke
                    {
                        stroke.last = at;
                    }
                }
            }
            ViewInput::DragEnd { at } => {
                if let Some((from, _)) = self.gradient.take() {
                    if let Some(bone) = target_bone(cx.document) {
                        self.gradient(cx, bone, from, at);
                    }
                } else {
                    self.stroke = None;
                }
            }
            ViewInput::Click { .. } | ViewInput::Cancel => {
                self.stroke = None;
                self.gradient = None;
            }
            ViewInput::Key(key) => match key {
                egui::Key::OpenBracket => self.brush.radius = (self.brush.radius / 1.25).max(2.0),
                egui::Key::CloseBracket => {
                    self.brush.radius = (self.brush.radius * 1.25).min(600.0);
                }
                _ => return Taken::No,
            },
        }
        Taken::Yes
    }

    fn cursor(&self) -> Option<egui::CursorIcon> {
        self.active.then_some(egui::CursorIcon::Crosshair)
    }

    fn paint(&mut self, cx: &ToolCx<'_>, painter: &egui::Painter, rect: egui::Rect) {
        if !self.active {
            return;
        }
        let screen = |p: Vec2| rect.min + egui::vec2(p.x, p.y);
        let ink = egui::Color32::from_rgb(255, 255, 255);
        let shadow = egui::Stroke::new(3.0, egui::Color32::from_black_alpha(140));
        if let Some((from, to)) = self.gradient {
            let (a, b) = (screen(from), screen(to));
            painter.line_segment([a, b], shadow);
            painter.line_segment([a, b], egui::Stroke::new(1.5, ink));
            painter.circle_filled(a, 4.0, egui::Color32::from_rgb(230, 40, 40));
            painter.circle_filled(b, 4.0, egui::Color32::from_rgb(40, 80, 230));
        } else if let Some(at) = self.hover.at {
            let centre = screen(at);
            painter.circle_stroke(centre, self.brush.radius, shadow);
            painter.circle_stroke(centre, self.brush.radius, egui::Stroke::new(1.0, ink));
            if let Some(radius) = self.hover.model_radius {
                painter.text(
                    centre + egui::vec2(self.brush.radius * 0.72, -self.brush.radius * 0.72),
                    egui::Align2::LEFT_BOTTOM,
                    format!("r {radius:.3}"),
                    egui::FontId::proportional(11.0),
                    ink,
                );
            }
        }
        paint_legend(cx, self.display, self.hover.vertex, painter, rect);
    }

    fn is_modal(&self) -> bool {
        self.active
    }
}

/// The weight display's legend in the view's lower right corner: the ramp with its values and
/// the two colours off it (not on this bone, no bone), or the all-bones note.
fn paint_legend(
    cx: &ToolCx<'_>,
    display: DisplayChoice,
    hovered: Option<usize>,
    painter: &egui::Painter,
    rect: egui::Rect,
) {
    let document = cx.document;
    let model = &document.model;
    let font = egui::FontId::proportional(11.0);
    let text = egui::Color32::from_gray(235);
    let back = egui::Color32::from_black_alpha(150);
    let color = |c: [u8; 4]| egui::Color32::from_rgb(c[0], c[1], c[2]);
    let bone = target_bone(document);
    // The bones the all-bones legend lists: the vertex under the pointer's, heaviest first,
    // else the target.
    let listed: Vec<(usize, Option<f32>)> = match hovered
        .and_then(|v| model.vertices.get(v))
        .map(|v| combined(&v.weight, model.bones.len()))
    {
        Some(list) if !list.is_empty() => list
            .into_iter()
            .take(8)
            .map(|(b, w)| (b, Some(w)))
            .collect(),
        _ => bone.into_iter().map(|b| (b, None)).collect(),
    };
    let height = match (display, bone) {
        (DisplayChoice::Ramp, Some(_)) => 176.0,
        _ => 30.0 + 18.0 * listed.len() as f32,
    };
    let panel = egui::Rect::from_min_size(
        rect.right_bottom() + egui::vec2(-142.0, -height - 8.0),
        egui::vec2(134.0, height),
    );
    painter.rect_filled(panel, 4.0, back);
    match (display, bone) {
        (DisplayChoice::Ramp, Some(bone)) => {
            let name = model
                .bones
                .get(bone)
                .map(|b| b.name_ja.as_str().into_owned())
                .unwrap_or_default();
            painter.text(
                panel.min + egui::vec2(8.0, 6.0),
                egui::Align2::LEFT_TOP,
                name,
                egui::FontId::proportional(12.0),
                text,
            );
            let bar = egui::Rect::from_min_size(
                panel.min + egui::vec2(10.0, 26.0),
                egui::vec2(16.0, 100.0),
            );
            let mut mesh = egui::Mesh::default();
            let steps = 10;
            for step in 0..=steps {
                let w = step as f32 / steps as f32;
                let y = bar.bottom() - bar.height() * w;
                let c = color(weight_colors::ramp_color(w));
                mesh.colored_vertex(egui::pos2(bar.left(), y), c);
                mesh.colored_vertex(egui::pos2(bar.right(), y), c);
                if step > 0 {
                    let base = (step as u32 - 1) * 2;
                    mesh.add_triangle(base, base + 1, base + 2);
                    mesh.add_triangle(base + 1, base + 3, base + 2);
                }
            }
            painter.add(mesh);
            for (w, label) in [(1.0, "1.0"), (0.5, "0.5"), (0.0, "0.0")] {
                painter.text(
                    egui::pos2(bar.right() + 6.0, bar.bottom() - bar.height() * w),
                    egui::Align2::LEFT_CENTER,
                    label,
                    font.clone(),
                    text,
                );
            }
            let swatch = |y: f32, c: [u8; 4], label: &str| {
                let r = egui::Rect::from_min_size(
                    panel.min + egui::vec2(10.0, y),
                    egui::vec2(16.0, 12.0),
                );
                painter.rect_filled(r, 2.0, color(c));
                painter.text(
                    r.right_center() + egui::vec2(6.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    label,
                    font.clone(),
                    text,
                );
            };
            let lang = cx.lang;
            swatch(
                136.0,
                weight_colors::NOT_ON_BONE,
                lang.tr("brush.legend_not_on_bone"),
            );
            swatch(
                154.0,
                weight_colors::NO_BONE,
                lang.tr("brush.legend_no_bone"),
            );
        }
        _ => {
            painter.text(
                panel.min + egui::vec2(8.0, 6.0),
                egui::Align2::LEFT_TOP,
                cx.lang.tr("brush.display_all"),
                egui::FontId::proportional(12.0),
                text,
            );
            let mut y = 28.0;
            for (b, w) in listed {
                let r = egui::Rect::from_min_size(
                    panel.min + egui::vec2(10.0, y),
                    egui::vec2(16.0, 12.0),
                );
                painter.rect_filled(r, 2.0, color(weight_colors::bone_color(b)));
                let name = model.bones[b].name_ja.as_str().into_owned();
                let label = match w {
                    Some(w) => format!("{name} {w:.2}"),
                    None => name,
                };
                painter.text(
                    r.right_center() + egui::vec2(6.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    label,
                    font.clone(),
                    text,
                );
                y += 18.0;
            }
        }
    }
}
