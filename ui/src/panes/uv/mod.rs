//! The UV pane: the selected materials' texture with their faces' UV wireframe over it (all
//! materials, without a texture, when none is selected), as PmxEditor's UV view shows them.
//!
//! - `canvas`: the UV ↔ screen mapping (U right, V down, as the texture image is seen),
//!   the texture tiled outside 0–1, the wireframe as one mesh;
//! - `pick`: clicking, rectangle and lasso selection of UV corners, into the document's vertex
//!   selection, which the 3D view and the tables share (a selection made there shows here);
//! - `gizmo`: move, rotate and scale handles at the pivot;
//! - this file: the pane's state, its rows (channel, UV morph, the numeric 移動・回転・拡大 row,
//!   flips, snapping to pixels) and the edits they send: the `transform` op's UV form
//!   ([`pmx_core::edit::Edit::transform_uv`]), or into the chosen UV morph's offsets.
//!
//! The pane never changes the model itself: it changes the selection and pushes edit commands.

pub mod canvas;
pub mod gizmo;
pub mod pick;

use crate::command::{Command, EditCommand, EditRequest};
use crate::document::Document;
use crate::i18n::Language;
use crate::panes::PaneCx;
use crate::panes::pose::PoseState;
use crate::panes::view::ViewState;
use crate::panes::view::tool::{SelectHow, SelectionChange};
use canvas::{LineMesh, UvCamera};
use egui::{Pos2, Rect};
use glam::Vec2 as Uv;
use pmx_core::edit::{UvChannel, UvTransform, UvTransformGroup};
use pmx_core::model::{ElementKind, Model, MorphIdx, MorphOffsets};
use pmx_core::uv::UvWireframe;
use std::collections::HashMap;
use std::sync::Arc;

/// How a primary drag on the canvas selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SelectShape {
    #[default]
    Rectangle,
    Lasso,
}

/// What rotations and scales of the numeric row turn about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PivotChoice {
    /// The centre of the selected corners (as drawn).
    #[default]
    Selection,
    /// The middle of the texture.
    Half,
    /// [`UvNumeric::pivot`].
    Typed,
}

/// The numbers the numeric row holds between clicks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UvNumeric {
    pub translate: Uv,
    pub rotate_degrees: f32,
    pub scale: Uv,
    pub pivot_choice: PivotChoice,
    pub pivot: Uv,
}

impl Default for UvNumeric {
    fn default() -> Self {
        Self {
            translate: Uv::ZERO,
            rotate_degrees: 0.0,
            scale: Uv::ONE,
            pivot_choice: PivotChoice::Selection,
            pivot: Uv::splat(0.5),
        }
    }
}

/// The wireframe of the shown materials, kept while faces and positions stay as they were.
#[derive(Debug)]
struct WireframeCache {
    document_id: u64,
    revision: u64,
    materials: Vec<usize>,
    channel: u8,
    /// The fingerprint of the document's 絞り込み表示 the wireframe leaves hidden faces out by.
    visibility: u64,
    wireframe: Arc<UvWireframe>,
    /// Every vertex the wireframe reaches, ascending: what can be picked.
    corners: Arc<[u32]>,
}

/// A texture loaded for the canvas (`None`: missing or undecodable, drawn as nothing).
struct LoadedTexture {
    handle: Option<egui::TextureHandle>,
    /// The image's size in pixels (snapping to pixels uses it).
    size: [u32; 2],
}

impl std::fmt::Debug for LoadedTexture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedTexture")
            .field("loaded", &self.handle.is_some())
            .field("size", &self.size)
            .finish()
    }
}

/// The pane's state, kept between frames (the camera and choices survive a new document).
#[derive(Debug)]
pub struct UvState {
    pub camera: UvCamera,
    fitted: bool,
    /// The materials shown when the camera was last fitted.
    fitted_to: Vec<usize>,
    /// 0: the vertices' UV; 1–4: additional UV N.
    pub channel: u8,
    pub select_shape: SelectShape,
    pub show_seams: bool,
    pub numeric: UvNumeric,
    /// The UV morph whose offsets edits change (of the channel's kind), instead of the UVs.
    pub morph: Option<usize>,
    marquee: Option<(Pos2, Pos2)>,
    lasso: Vec<Pos2>,
    drag: Option<gizmo::GizmoDrag>,
    gesture_serial: u64,
    wireframe: Option<WireframeCache>,
    textures: HashMap<(u64, usize, String), LoadedTexture>,
    /// The last wireframe mesh and what it was built from.
    drawn: Option<(DrawKey, Arc<egui::Mesh>)>,
    /// Each vertex's place on the canvas, reused between builds.
    screen: Vec<Pos2>,
    /// Where the canvas was last drawn (screen points).
    pub last_rect: Option<Rect>,
    /// Where the gizmo was last drawn (screen points; `None`: nothing selected).
    pub last_gizmo: Option<Pos2>,
    /// The selected vertices the canvas last drew (those of the shown materials), ascending.
    pub drawn_selection: Vec<usize>,
}

/// What the canvas needs of the document this frame.
struct Shown {
    materials: Vec<usize>,
    wireframe: Arc<UvWireframe>,
    corners: Arc<[u32]>,
    /// The chosen UV morph's offsets (x, y) times its preview value, by vertex.
    morph_shift: HashMap<u32, Uv>,
}

impl Shown {
    fn uv(&self, model: &Model, channel: u8, vertex: u32) -> Option<Uv> {
        let base = pmx_core::uv::channel_uv(model, channel, vertex as usize)?;
        if self.morph_shift.is_empty() {
            return Some(base);
        }
        Some(base + self.morph_shift.get(&vertex).copied().unwrap_or(Uv::ZERO))
    }
}

impl Default for UvState {
    fn default() -> Self {
        Self {
            camera: UvCamera::default(),
            fitted: false,
            fitted_to: Vec::new(),
            channel: 0,
            select_shape: SelectShape::default(),
            show_seams: true,
            numeric: UvNumeric::default(),
            morph: None,
            marquee: None,
            lasso: Vec::new(),
            drag: None,
            gesture_serial: 0,
            wireframe: None,
            textures: HashMap::new(),
            drawn: None,
            screen: Vec::new(),
            last_rect: None,
            last_gizmo: None,
            drawn_selection: Vec::new(),
        }
    }
}

impl UvState {
    fn channel(&self) -> UvChannel {
        match self.channel {
            0 => UvChannel::Base,
            n => UvChannel::Additional(n),
        }
    }

    fn next_gesture(&mut self) -> egui::Id {
        self.gesture_serial += 1;
        egui::Id::unique(("uv_gizmo", self.gesture_serial))
    }

    /// The wireframe of `materials`, built again only when the faces, the vertex positions
    /// (seams) or the element lists changed.
    fn wireframe_of(
        &mut self,
        document: &Document,
        document_id: u64,
        materials: &[usize],
    ) -> (Arc<UvWireframe>, Arc<[u32]>) {
        let visibility = document.visibility.fingerprint();
        if let Some(cache) = &mut self.wireframe
            && cache.document_id == document_id
            && cache.materials == materials
            && cache.channel == self.channel
            && cache.visibility == visibility
            && (cache.revision == document.revision()
                || document.mesh_unchanged_since(cache.revision))
        {
            cache.revision = document.revision();
            return (cache.wireframe.clone(), cache.corners.clone());
        }
        let mut wireframe = pmx_core::uv::uv_wireframe(&document.model, materials, self.channel);
        if let Some(shown) = document.visibility.shown(&document.model) {
            keep_shown_edges(&mut wireframe, &document.model, &shown);
        }
        let mut corners: Vec<u32> = wireframe.edges.iter().flat_map(|e| [e.a, e.b]).collect();
        corners.sort_unstable();
        corners.dedup();
        let cache = WireframeCache {
            document_id,
            revision: document.revision(),
            materials: materials.to_vec(),
            channel: self.channel,
            visibility,
            wireframe: Arc::new(wireframe),
            corners: corners.into(),
        };
        let out = (cache.wireframe.clone(), cache.corners.clone());
        self.wireframe = Some(cache);
        out
    }

    /// The texture of material `material` for the canvas, loaded once.
    fn texture_of(
        &mut self,
        ctx: &egui::Context,
        document: &Document,
        document_id: u64,
        material: usize,
    ) -> Option<&LoadedTexture> {
        let model = &document.model;
        let index = model.materials.get(material)?.texture?.get();
        let name = model.textures.get(index)?.as_str().into_owned();
        let key = (document_id, index, name.clone());
        if !self.textures.contains_key(&key) {
            self.textures.retain(|(id, _, _), _| *id == document_id);
            let loaded = match pmx_core::texture::load(document.folder(), &name) {
                Ok(image) => {
                    let max_side = ctx.input(|i| i.max_texture_side).max(256);
                    let size = [image.width, image.height];
                    let image = fit_within(image, max_side as u32);
                    let colour = egui::ColorImage::from_rgba_unmultiplied(
                        [image.width as usize, image.height as usize],
                        &image.pixels,
                    );
                    // Pixels stay sharp when zoomed in: a painter places UVs on them.
                    let options = egui::TextureOptions {
                        magnification: egui::TextureFilter::Nearest,
                        minification: egui::TextureFilter::Linear,
                        wrap_mode: egui::TextureWrapMode::Repeat,
                        mipmap_mode: None,
                    };
                    LoadedTexture {
                        handle: Some(ctx.load_texture(format!("uv:{name}"), colour, options)),
                        size,
                    }
                }
                Err(_) => LoadedTexture {
                    handle: None,
                    size: [0, 0],
                },
            };
            self.textures.insert(key.clone(), loaded);
        }
        self.textures.get(&key)
    }
}

/// `image` halved until both sides are at most `max_side` (2×2 boxes averaged).
fn fit_within(mut image: pmx_core::texture::Image, max_side: u32) -> pmx_core::texture::Image {
    while image.width > max_side || image.height > max_side {
        let (w, h) = ((image.width / 2).max(1), (image.height / 2).max(1));
        let mut pixels = Vec::with_capacity((w * h * 4) as usize);
        for y in 0..h {
            for x in 0..w {
                for c in 0..4 {
                    let mut sum = 0u32;
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let sx = (x * 2 + dx).min(image.width - 1);
                        let sy = (y * 2 + dy).min(image.height - 1);
                        sum += u32::from(image.pixels[((sy * image.width + sx) * 4 + c) as usize]);
                    }
                    pixels.push((sum / 4) as u8);
                }
            }
        }
        image = pmx_core::texture::Image {
            width: w,
            height: h,
            pixels,
        };
    }
    image
}

/// Leaves out of `wireframe` every edge no shown face has (絞り込み表示: hidden materials,
/// faces, and faces on hidden vertices), so the pane neither draws nor picks them; each
/// material's range of edges follows.
fn keep_shown_edges(wireframe: &mut UvWireframe, model: &Model, shown: &crate::visibility::Shown) {
    let shown_edges: std::collections::HashSet<(u32, u32)> = model
        .faces
        .iter()
        .enumerate()
        .filter(|&(index, _)| shown.face(index))
        .flat_map(|(_, f)| {
            let [a, b, c] = f.map(|v| v.0);
            [(a, b), (b, c), (c, a)].map(|(p, q)| (p.min(q), p.max(q)))
        })
        .collect();
    let mut kept = Vec::with_capacity(wireframe.edges.len());
    for material in &mut wireframe.materials {
        let start = kept.len();
        kept.extend(
            wireframe.edges[material.edges.clone()]
                .iter()
                .filter(|e| shown_edges.contains(&(e.a, e.b))),
        );
        material.edges = start..kept.len();
    }
    wireframe.edges = kept;
}

/// The materials the pane shows: the selected ones, all when none is selected.
fn shown_materials(document: &Document) -> Vec<usize> {
    let count = document.model.materials.len();
    let mut materials = document.selection.get(ElementKind::Material).targets();
    materials.retain(|&m| m < count);
    materials
}

/// The UV morphs of `channel`'s kind, as (index, name).
fn uv_morphs(
    model: &Model,
    channel: UvChannel,
    names: crate::i18n::NameLanguage,
) -> Vec<(usize, String)> {
    let kind = channel.morph_kind();
    model
        .morphs
        .iter()
        .enumerate()
        .filter(|(_, m)| m.offsets.kind() == kind)
        .map(|(i, m)| {
            (
                i,
                names
                    .pick(&m.name_ja.as_str(), &m.name_en.as_str())
                    .to_owned(),
            )
        })
        .collect()
}

/// The chosen morph's offsets times `value`, by vertex.
fn morph_shift(model: &Model, morph: Option<usize>, value: f32) -> HashMap<u32, Uv> {
    let Some(list) = morph
        .and_then(|m| model.morphs.get(m))
        .and_then(|m| match &m.offsets {
            MorphOffsets::Uv(list)
            | MorphOffsets::AdditionalUv1(list)
            | MorphOffsets::AdditionalUv2(list)
            | MorphOffsets::AdditionalUv3(list)
            | MorphOffsets::AdditionalUv4(list) => Some(list),
            _ => None,
        })
    else {
        return HashMap::new();
    };
    if value == 0.0 {
        return HashMap::new();
    }
    list.iter()
        .map(|o| {
            (
                o.vertex.get() as u32,
                Uv::new(o.offset.x, o.offset.y) * value,
            )
        })
        .collect()
}

/// The pane.
pub fn uv_pane_ui(
    ui: &mut egui::Ui,
    state: &mut UvState,
    pose: &mut PoseState,
    view: &mut ViewState,
    cx: &mut PaneCx<'_>,
) {
    let lang = cx.lang;
    let document_id = cx.document_id;
    pose.sync(cx.document, document_id);
    let channels = cx.document.model.additional_uvs.len() as u8;
    if state.channel > channels {
        state.channel = 0;
    }
    let channel = state.channel();
    // The chosen morph must still be a UV morph of the channel's kind.
    if let Some(m) = state.morph
        && cx
            .document
            .model
            .morphs
            .get(m)
            .is_none_or(|morph| morph.offsets.kind() != channel.morph_kind())
    {
        state.morph = None;
    }
    let materials = shown_materials(cx.document);
    let (wireframe, corners) = state.wireframe_of(cx.document, document_id, &materials);
    let morph_value = state
        .morph
        .map_or(0.0, |m| pose.pose.morph(MorphIdx::new(m)).unwrap_or(0.0));
    let shown = Shown {
        materials,
        wireframe,
        corners,
        morph_shift: morph_shift(&cx.document.model, state.morph, morph_value),
    };
    let texture_material = cx
        .document
        .selection
        .get(ElementKind::Material)
        .current
        .filter(|m| shown.materials.contains(m))
        .or_else(|| shown.materials.first().copied());
    let texture = texture_material.and_then(|m| {
        state
            .texture_of(ui.ctx(), cx.document, document_id, m)
            .map(|t| (t.handle.as_ref().map(egui::TextureHandle::id), t.size))
    });

    // Row 1: what is shown.
    ui.horizontal_wrapped(|ui| {
        if channels > 0 {
            egui::ComboBox::from_id_salt("uv_channel")
                .selected_text(channel_name(lang, state.channel))
                .show_ui(ui, |ui| {
                    for c in 0..=channels {
                        ui.selectable_value(&mut state.channel, c, channel_name(lang, c));
                    }
                })
                .response
                .accessible_name(lang.tr("uv.channel"));
        }
        if shown.materials.is_empty() {
            ui.label(lang.tr("uv.all_materials"))
                .on_hover_text(lang.tr("uv.materials_hint"));
        } else {
            let names = cx.names;
            let first = &cx.document.model.materials[shown.materials[0]];
            let name = names
                .pick(&first.name_ja.as_str(), &first.name_en.as_str())
                .to_owned();
            let text = if shown.materials.len() == 1 {
                name
            } else {
                lang.format(
                    "uv.materials_more",
                    &[("name", &name), ("count", &(shown.materials.len() - 1))],
                )
            };
            ui.label(text).on_hover_text(lang.tr("uv.materials_hint"));
        }
        ui.separator();
        ui.selectable_value(
            &mut state.select_shape,
            SelectShape::Rectangle,
            lang.tr("uv.select_rectangle"),
        );
        ui.selectable_value(
            &mut state.select_shape,
            SelectShape::Lasso,
            lang.tr("uv.select_lasso"),
        );
        ui.checkbox(&mut state.show_seams, lang.tr("uv.seams"));
        if ui.small_button(lang.tr("uv.fit")).clicked() {
            state.fitted = false;
        }
        ui.weak("(?)").on_hover_text(lang.tr("uv.hint"));
        if let Some((_, size)) = texture
            && size[0] > 0
        {
            ui.weak(format!("{}×{}", size[0], size[1]));
        }
    });
    // Row 2: the UV morph edits go into.
    let morphs = uv_morphs(&cx.document.model, channel, cx.names);
    ui.horizontal_wrapped(|ui| {
        ui.label(lang.tr("uv.morph"));
        let current = state
            .morph
            .and_then(|m| morphs.iter().find(|(i, _)| *i == m))
            .map_or_else(|| lang.tr("uv.morph_none").to_owned(), |(_, n)| n.clone());
        let before = state.morph;
        egui::ComboBox::from_id_salt("uv_morph")
            .selected_text(current)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut state.morph, None, lang.tr("uv.morph_none"));
                for (i, name) in &morphs {
                    ui.selectable_value(&mut state.morph, Some(*i), name);
                }
            })
            .response
            .accessible_name(lang.tr("uv.morph"));
        if let Some(m) = state.morph {
            // A morph chosen to edit shows at full strength (an edit at 0 would move nothing).
            if before != state.morph && pose.pose.morph(MorphIdx::new(m)).unwrap_or(0.0) == 0.0 {
                pose.set_morph(m, 1.0);
            }
            let mut value = pose.pose.morph(MorphIdx::new(m)).unwrap_or(0.0);
            if ui
                .add(
                    egui::Slider::new(&mut value, 0.0..=1.0)
                        .text(lang.tr("morph.preview"))
                        .max_decimals(3),
                )
                .changed()
            {
                pose.set_morph(m, value);
            }
            if value < pmx_core::edit::MIN_MORPH_VALUE {
                ui.weak(lang.tr("uv.morph_at_zero"));
            }
        } else if morphs.is_empty() {
            ui.weak(lang.tr("uv.no_uv_morphs"));
        }
    });
    // Row 3: numbers, flips, snapping.
    let selected = edited_vertices(cx.document, &shown);
    let centre = drawn_centre(&cx.document.model, state.channel, &shown, &selected);
    let pivot = match state.numeric.pivot_choice {
        PivotChoice::Selection => centre,
        PivotChoice::Half => Some(Uv::splat(0.5)),
        PivotChoice::Typed => Some(state.numeric.pivot),
    };
    let mut requested: Vec<UvTransformGroup> = Vec::new();
    ui.horizontal_wrapped(|ui| {
        let pair = |ui: &mut egui::Ui, value: &mut Uv, name: &str, speed: f64| {
            for (axis, v) in [("U", &mut value.x), ("V", &mut value.y)] {
                ui.add(egui::DragValue::new(v).speed(speed).max_decimals(4))
                    .accessible_name(format!("{name} {axis}"));
            }
        };
        let numeric = &mut state.numeric;
        ui.label(lang.tr("view.move"));
        pair(ui, &mut numeric.translate, lang.tr("view.move"), 0.001);
        if ui.button(lang.tr("view.apply_move")).clicked() {
            requested = whole(&selected, UvTransform::moving(numeric.translate));
        }
        ui.separator();
        ui.label(lang.tr("view.rotate"));
        ui.add(
            egui::DragValue::new(&mut numeric.rotate_degrees)
                .speed(0.5)
                .suffix("°")
                .max_decimals(3),
        )
        .accessible_name(lang.tr("view.rotate"));
        if ui.button(lang.tr("view.apply_rotate")).clicked()
            && let Some(p) = pivot
        {
            requested = whole(&selected, UvTransform::rotating(numeric.rotate_degrees, p));
        }
        ui.separator();
        ui.label(lang.tr("view.scale"));
        pair(ui, &mut numeric.scale, lang.tr("view.scale"), 0.01);
        if ui.button(lang.tr("view.apply_scale")).clicked()
            && let Some(p) = pivot
        {
            requested = whole(&selected, UvTransform::scaling(numeric.scale, p));
        }
        ui.separator();
        ui.label(lang.tr("uv.pivot"));
        ui.selectable_value(
            &mut numeric.pivot_choice,
            PivotChoice::Selection,
            lang.tr("uv.pivot_selection"),
        );
        ui.selectable_value(&mut numeric.pivot_choice, PivotChoice::Half, "0.5, 0.5");
        ui.selectable_value(
            &mut numeric.pivot_choice,
            PivotChoice::Typed,
            lang.tr("uv.pivot_typed"),
        );
        if numeric.pivot_choice == PivotChoice::Typed {
            pair(ui, &mut numeric.pivot, lang.tr("uv.pivot"), 0.001);
        }
        ui.separator();
        if ui.button(lang.tr("uv.flip_u")).clicked()
            && let Some(p) = pivot
        {
            requested = whole(&selected, UvTransform::scaling(Uv::new(-1.0, 1.0), p));
        }
        if ui.button(lang.tr("uv.flip_v")).clicked()
            && let Some(p) = pivot
        {
            requested = whole(&selected, UvTransform::scaling(Uv::new(1.0, -1.0), p));
        }
        let size = texture.map_or([0, 0], |(_, s)| s);
        if ui
            .add_enabled(
                size[0] > 0 && size[1] > 0,
                egui::Button::new(lang.tr("uv.snap_pixels")),
            )
            .on_hover_text(lang.tr("uv.snap_pixels_hint"))
            .clicked()
        {
            requested = snap_groups(&cx.document.model, state.channel, &shown, &selected, size);
        }
    });
    if !requested.is_empty() {
        push_transform(cx, state, morph_value, requested, None);
    }
    canvas_ui(
        ui,
        state,
        view,
        cx,
        &shown,
        texture.and_then(|(t, _)| t),
        &selected,
        pivot,
        morph_value,
    );
}

/// Every selected vertex under one transform.
fn whole(selected: &[usize], transform: UvTransform) -> Vec<UvTransformGroup> {
    if selected.is_empty() || transform.kind() == pmx_core::edit::TransformKind::Identity {
        return Vec::new();
    }
    vec![UvTransformGroup {
        indices: selected.to_vec(),
        transform,
    }]
}

/// Each selected vertex moved onto the nearest pixel corner of a `size` texture.
fn snap_groups(
    model: &Model,
    channel: u8,
    shown: &Shown,
    selected: &[usize],
    size: [u32; 2],
) -> Vec<UvTransformGroup> {
    let (w, h) = (size[0] as f32, size[1] as f32);
    selected
        .iter()
        .filter_map(|&v| {
            let uv = shown.uv(model, channel, v as u32)?;
            let snapped = Uv::new((uv.x * w).round() / w, (uv.y * h).round() / h);
            (snapped != uv).then(|| UvTransformGroup {
                indices: vec![v],
                transform: UvTransform::moving(snapped - uv),
            })
        })
        .collect()
}

/// The selected vertices the pane edits: those of the shown materials.
fn edited_vertices(document: &Document, shown: &Shown) -> Vec<usize> {
    let selection = document.selection.get(ElementKind::Vertex);
    if selection.target_count() == 0 {
        return Vec::new();
    }
    if selection.indices.is_empty() {
        return selection
            .current
            .filter(|&v| shown.corners.binary_search(&(v as u32)).is_ok())
            .into_iter()
            .collect();
    }
    shown
        .corners
        .iter()
        .map(|&v| v as usize)
        .filter(|&v| selection.indices.contains(v))
        .collect()
}

/// The mean of the vertices' UVs as drawn.
fn drawn_centre(model: &Model, channel: u8, shown: &Shown, vertices: &[usize]) -> Option<Uv> {
    let (sum, count) = vertices
        .iter()
        .filter_map(|&v| shown.uv(model, channel, v as u32))
        .fold((Uv::ZERO, 0usize), |(s, n), uv| (s + uv, n + 1));
    (count > 0).then(|| sum / count as f32)
}

/// Sends `groups` as one edit (in `gesture`, for a drag): into the chosen UV morph when one is,
/// else onto the UVs.
fn push_transform(
    cx: &mut PaneCx<'_>,
    state: &UvState,
    morph_value: f32,
    groups: Vec<UvTransformGroup>,
    gesture: Option<egui::Id>,
) {
    let morph = match state.morph {
        Some(m) if morph_value >= pmx_core::edit::MIN_MORPH_VALUE => Some((m, morph_value)),
        // Nothing to edit at 0: the morph would need an endless offset.
        Some(_) => return,
        None => None,
    };
    cx.commands.push(Command::Edit(EditCommand {
        request: EditRequest::TransformUv {
            channel: state.channel(),
            groups,
            morph,
        },
        gesture,
        select_created: false,
    }));
}

fn channel_name(lang: Language, channel: u8) -> String {
    if channel == 0 {
        lang.tr("uv.channel_base").to_owned()
    } else {
        lang.format("uv.channel_additional", &[("n", &channel)])
    }
}

/// The canvas: zoom and pan, selection, the gizmo, and the drawing.
#[allow(clippy::too_many_arguments)]
fn canvas_ui(
    ui: &mut egui::Ui,
    state: &mut UvState,
    view: &mut ViewState,
    cx: &mut PaneCx<'_>,
    shown: &Shown,
    texture: Option<egui::TextureId>,
    selected: &[usize],
    pivot: Option<Uv>,
    morph_value: f32,
) {
    let lang = cx.lang;
    let (rect, response) = ui.allocate_exact_size(
        ui.available_size().max(egui::vec2(64.0, 64.0)),
        egui::Sense::click_and_drag(),
    );
    // Fitted to what is shown when asked and whenever other materials are shown.
    if !state.fitted || state.fitted_to != shown.materials {
        let (low, high) = shown
            .corners
            .iter()
            .filter_map(|&v| shown.uv(&cx.document.model, state.channel, v))
            .filter(|uv| uv.is_finite())
            .fold((Uv::ZERO, Uv::ONE), |(low, high), uv| {
                (low.min(uv), high.max(uv))
            });
        state.camera.fit(rect, low, high);
        state.fitted = true;
        state.fitted_to.clone_from(&shown.materials);
    }
    state.last_rect = Some(rect);
    let channel = state.channel;
    let camera = state.camera;
    let (modifiers, scroll, pointer) =
        ui.input(|i| (i.modifiers, i.smooth_scroll_delta.y, i.pointer.hover_pos()));
    // Zoom and pan.
    if response.hovered() && scroll != 0.0 {
        let at = pointer.unwrap_or(rect.center());
        state.camera.zoom_about(rect, at, (scroll / 200.0).exp());
    }
    if response.dragged_by(egui::PointerButton::Secondary)
        || response.dragged_by(egui::PointerButton::Middle)
    {
        state.camera.pan(response.drag_delta());
    }
    let gizmo_at = (!selected.is_empty())
        .then_some(())
        .and(pivot)
        .map(|p| camera.to_screen(rect, p));
    // The gizmo takes a primary drag that starts on a handle.
    if response.drag_started_by(egui::PointerButton::Primary) {
        let origin = ui.input(|i| i.pointer.press_origin()).unwrap_or_default();
        match gizmo_at.and_then(|c| gizmo::handle_at(c, origin)) {
            Some(handle) => {
                state.drag = Some(gizmo::GizmoDrag {
                    handle,
                    pivot: pivot.unwrap_or(Uv::splat(0.5)),
                    last: origin,
                    gesture: state.next_gesture(),
                });
            }
            None => match state.select_shape {
                SelectShape::Rectangle => state.marquee = Some((origin, origin)),
                SelectShape::Lasso => state.lasso = vec![origin],
            },
        }
    }
    if let Some(at) = response.interact_pointer_pos()
        && response.dragged_by(egui::PointerButton::Primary)
    {
        if let Some(drag) = state.drag
            && let Some(centre) = gizmo_at.or_else(|| Some(camera.to_screen(rect, drag.pivot)))
        {
            let about = if matches!(
                drag.handle,
                gizmo::Handle::Move | gizmo::Handle::MoveU | gizmo::Handle::MoveV
            ) {
                centre
            } else {
                camera.to_screen(rect, drag.pivot)
            };
            if let Some(change) = gizmo::change(&drag, &camera, about, at) {
                push_transform(
                    cx,
                    state,
                    morph_value,
                    whole(selected, change),
                    Some(drag.gesture),
                );
                if let Some(drag) = &mut state.drag {
                    drag.last = at;
                }
            }
        } else if let Some((_, now)) = &mut state.marquee {
            *now = at;
        } else if !state.lasso.is_empty() && state.lasso.last().is_none_or(|l| l.distance(at) > 2.0)
        {
            state.lasso.push(at);
        }
    }
    if response.drag_stopped_by(egui::PointerButton::Primary) {
        state.drag = None;
        if let Some((a, b)) = state.marquee.take() {
            let model = &cx.document.model;
            let screen_of = |v: u32| {
                shown
                    .uv(model, channel, v)
                    .map(|uv| camera.to_screen(rect, uv))
            };
            let picked = pick::in_rect(&shown.corners, screen_of, Rect::from_two_pos(a, b));
            select(cx, view, picked, modifiers);
        } else if !state.lasso.is_empty() {
            let lasso = std::mem::take(&mut state.lasso);
            let model = &cx.document.model;
            let screen_of = |v: u32| {
                shown
                    .uv(model, channel, v)
                    .map(|uv| camera.to_screen(rect, uv))
            };
            let picked = pick::in_lasso(&shown.corners, screen_of, &lasso);
            select(cx, view, picked, modifiers);
        }
    } else if response.clicked_by(egui::PointerButton::Primary)
        && let Some(at) = response.interact_pointer_pos()
    {
        let model = &cx.document.model;
        let picked = pick::nearest_corner(
            &shown.corners,
            |v| {
                let uv = shown.uv(model, channel, v)?;
                Some((camera.to_screen(rect, uv), uv))
            },
            at,
        );
        if !picked.is_empty() || SelectHow::from_modifiers(modifiers) == SelectHow::Replace {
            select(cx, view, picked, modifiers);
        }
    }

    // Drawing.
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, egui::Color32::from_gray(40));
    let camera = state.camera;
    canvas::paint_tiles(&painter, rect, &camera, texture);
    let key = DrawKey {
        rect,
        centre: camera.centre.to_array(),
        zoom: camera.zoom,
        revision: cx.document.revision(),
        selection: cx.document.selection.get(ElementKind::Vertex).signature(),
        wireframe: Arc::as_ptr(&shown.wireframe) as usize,
        channel,
        show_seams: state.show_seams,
        morph: state.morph,
        morph_value: morph_value.to_bits(),
    };
    // Frames where nothing drawn changed (a hover, a tooltip) reuse the last mesh.
    let mesh = match &state.drawn {
        Some((drawn, mesh)) if *drawn == key => mesh.clone(),
        _ => {
            let mesh = Arc::new(wireframe_mesh(
                &cx.document.model,
                &cx.document.selection.get(ElementKind::Vertex).indices,
                shown,
                selected,
                (channel, state.show_seams),
                (rect, &camera),
                &mut state.screen,
            ));
            state.drawn = Some((key, mesh.clone()));
            mesh
        }
    };
    painter.add(egui::Shape::Mesh(mesh));
    if let Some((a, b)) = state.marquee {
        painter.rect_stroke(
            Rect::from_two_pos(a, b),
            0.0,
            egui::Stroke::new(1.0, canvas::SELECTED),
            egui::StrokeKind::Inside,
        );
    }
    if state.lasso.len() > 1 {
        let mut points = state.lasso.clone();
        points.push(state.lasso[0]);
        painter.add(egui::Shape::line(
            points,
            egui::Stroke::new(1.0, canvas::SELECTED),
        ));
    }
    state.last_gizmo = gizmo_at;
    state.drawn_selection.clear();
    state.drawn_selection.extend_from_slice(selected);
    if let Some(centre) = gizmo_at {
        let hot = state
            .drag
            .map(|d| d.handle)
            .or_else(|| pointer.and_then(|p| gizmo::handle_at(centre, p)));
        gizmo::paint(&painter, rect, centre, hot);
    }
    if state.morph.is_some() && morph_value < pmx_core::edit::MIN_MORPH_VALUE {
        painter.text(
            rect.left_top() + egui::vec2(8.0, 8.0),
            egui::Align2::LEFT_TOP,
            lang.tr("uv.morph_at_zero"),
            egui::FontId::proportional(13.0),
            egui::Color32::YELLOW,
        );
    }
}

/// What the canvas's wireframe mesh was built from: the same key, the same mesh.
#[derive(Debug, Clone, Copy, PartialEq)]
struct DrawKey {
    rect: Rect,
    centre: [f32; 2],
    zoom: f32,
    revision: u64,
    selection: (usize, Option<usize>, u64),
    wireframe: usize,
    channel: u8,
    show_seams: bool,
    morph: Option<usize>,
    morph_value: u32,
}

/// The wireframe in screen points as one mesh: plain edges, then seams and selected edges
/// over them, then the selected corners. Each corner is placed once (`screen`, kept between
/// frames, by vertex) rather than once per edge it ends.
fn wireframe_mesh(
    model: &Model,
    selection: &crate::selection::IndexSet,
    shown: &Shown,
    selected: &[usize],
    (channel, show_seams): (u8, bool),
    (rect, camera): (Rect, &UvCamera),
    screen: &mut Vec<Pos2>,
) -> egui::Mesh {
    let far = Pos2::new(f32::NAN, f32::NAN);
    screen.clear();
    screen.resize(model.vertices.len(), far);
    for &v in shown.corners.iter() {
        if let (Some(uv), Some(slot)) = (shown.uv(model, channel, v), screen.get_mut(v as usize)) {
            *slot = camera.to_screen(rect, uv);
        }
    }
    let at = |v: u32| screen.get(v as usize).copied().filter(|p| p.x.is_finite());
    let mut lines = LineMesh::default();
    let mut highlighted = LineMesh::default();
    for edge in &shown.wireframe.edges {
        let (Some(a), Some(b)) = (at(edge.a), at(edge.b)) else {
            continue;
        };
        if !canvas::may_show(rect, a, b) {
            continue;
        }
        if selection.contains(edge.a as usize) && selection.contains(edge.b as usize) {
            highlighted.line(a, b, 1.5, canvas::SELECTED);
        } else if edge.seam && show_seams {
            highlighted.line(a, b, 2.0, canvas::SEAM);
        } else {
            lines.line(a, b, 1.0, canvas::EDGE);
        }
    }
    for &v in selected {
        if let Some(p) = at(v as u32).filter(|p| rect.contains(*p)) {
            highlighted.dot(p, 4.0, canvas::SELECTED);
        }
    }
    lines.append(highlighted);
    lines.into_mesh()
}

/// Applies a pick to the vertex selection (Shift adds, Ctrl takes out) and has the 3D view
/// pick vertices, so it shows them.
fn select(
    cx: &mut PaneCx<'_>,
    view: &mut ViewState,
    elements: Vec<usize>,
    modifiers: egui::Modifiers,
) {
    let change = SelectionChange {
        kind: ElementKind::Vertex,
        elements,
        how: SelectHow::from_modifiers(modifiers),
    };
    change.apply(cx.document.selection.get_mut(ElementKind::Vertex));
    view.pick_mode = crate::panes::view::PickMode::Vertex;
}
