//! The tab area (egui_tiles): tabs of panes, each drawn by [`crate::panes::pane_ui`].

use super::EditorState;
use crate::command::{Command, Commands};
use crate::document::Document;
use crate::editor::workspace::Pane;
use crate::i18n::{Language, NameLanguage};
use crate::panes::validation::ValidationState;
use crate::panes::{PaneCx, PaneStates};
use crate::widgets::table::TableState;
use pmx_core::model::ElementKind;
use std::collections::HashMap;

struct Behavior<'a> {
    lang: Language,
    names: NameLanguage,
    document: Option<&'a mut Document>,
    document_id: u64,
    tables: &'a mut HashMap<ElementKind, TableState>,
    commands: &'a mut Commands,
    focus_kind: &'a mut Option<ElementKind>,
    validation: &'a mut ValidationState,
    pose: &'a mut crate::panes::pose::PoseState,
    view: &'a mut crate::panes::view::ViewState,
    uv: &'a mut crate::panes::uv::UvState,
    editors: &'a mut crate::panes::EditorsState,
    loading: bool,
}

impl egui_tiles::Behavior<Pane> for Behavior<'_> {
    fn tab_title_for_pane(&mut self, pane: &Pane) -> egui::WidgetText {
        self.lang.tr(pane.title_key()).into()
    }

    fn pane_ui(
        &mut self,
        ui: &mut egui::Ui,
        _tile_id: egui_tiles::TileId,
        pane: &mut Pane,
    ) -> egui_tiles::UiResponse {
        // The table the user clicks in is the one Ctrl+A and Delete act on (the 3D view sets
        // its own focus, which a press in any other pane takes away).
        if ui.rect_contains_pointer(ui.max_rect()) && ui.input(|i| i.pointer.any_pressed()) {
            self.view.has_focus &= *pane == Pane::View;
            if let Some(kind) = pane.kind() {
                *self.focus_kind = Some(kind);
            }
        }
        let lang = self.lang;
        let Some(document) = self.document.as_deref_mut() else {
            empty_pane_ui(ui, lang, self.loading, self.commands);
            return egui_tiles::UiResponse::None;
        };
        let mut cx = PaneCx {
            document,
            document_id: self.document_id,
            commands: self.commands,
            lang,
            names: self.names,
        };
        let states = PaneStates {
            tables: self.tables,
            editors: self.editors,
            validation: self.validation,
            pose: self.pose,
            view: self.view,
            uv: self.uv,
        };
        crate::panes::pane_ui(ui, *pane, states, &mut cx);
        egui_tiles::UiResponse::None
    }

    fn simplification_options(&self) -> egui_tiles::SimplificationOptions {
        egui_tiles::SimplificationOptions {
            all_panes_must_have_tabs: true,
            ..Default::default()
        }
    }
}

fn empty_pane_ui(ui: &mut egui::Ui, lang: Language, loading: bool, commands: &mut Commands) {
    ui.add_space(24.0);
    ui.vertical_centered(|ui| {
        if loading {
            ui.spinner();
            ui.label(lang.tr("status.loading"));
            return;
        }
        ui.heading("PMX Studio");
        ui.label(lang.tr("status.no_model_hint"));
        ui.add_space(8.0);
        if ui.button(lang.tr("status.open_model")).clicked() {
            commands.push(Command::ShowOpenDialog);
        }
        if ui.button(lang.tr("status.new_model")).clicked() {
            commands.push(Command::New);
        }
    });
}

impl EditorState {
    pub(super) fn workspace_ui(&mut self, ui: &mut egui::Ui) {
        self.pose
            .recent_files
            .clone_from(&self.settings.recent_motions);
        let mut behavior = Behavior {
            lang: self.settings.language,
            names: self.settings.names,
            document: self.document.as_mut(),
            document_id: self.document_id,
            tables: &mut self.tables,
            commands: &mut self.commands,
            focus_kind: &mut self.focus_kind,
            validation: &mut self.validation,
            pose: &mut self.pose,
            view: &mut self.view,
            uv: &mut self.uv,
            editors: &mut self.editors,
            loading: self.loading.is_some(),
        };
        self.tree.ui(&mut behavior, ui);
        self.remember_pose_file();
        self.run_physics(ui.ctx());
        self.keep_pose_current();
        self.feed_pose_to_view();
        self.view.paint_tools(ui.ctx(), self.document.as_ref());
    }

    /// Loads a motion or pose file chosen in the native dialog into the pose pane (which it
    /// shows), as its path field would.
    pub(super) fn open_pose_file(&mut self, path: &std::path::Path) {
        let Some(document) = &self.document else {
            return;
        };
        self.pose.sync(document, self.document_id);
        self.pose.open_file(&document.model, path);
        self.remember_pose_file();
        super::workspace::show_pane(&mut self.tree, Pane::Pose);
    }

    /// A motion or pose the pose pane loaded goes first in the recent motions.
    fn remember_pose_file(&mut self) {
        if let Some(path) = self.pose.take_opened() {
            self.settings.add_recent_motion(&path);
        }
    }

    /// The pose's physics plays on whichever tab is shown (picking a body in the 剛体 tab must
    /// not pause it): time passes here, once a frame, not in the pose pane.
    fn run_physics(&mut self, ctx: &egui::Context) {
        let Some(document) = &self.document else {
            return;
        };
        if !self.pose.physics.enabled {
            return;
        }
        self.pose.sync(document, self.document_id);
        if self
            .pose
            .tick_physics(&document.model, std::time::Instant::now())
            || self.pose.physics.playing
        {
            ctx.request_repaint();
        }
        self.pose.evaluate(&document.model);
    }

    /// The pose the view draws follows the document and morph edit mode every frame, whether
    /// or not the pose pane is shown: an edit re-evaluates it, and while morph edit mode is on
    /// the pose is the rest pose with the edited morph at the mode's value (the pose there was
    /// before is put back when the mode is switched off).
    fn keep_pose_current(&mut self) {
        let Some(document) = &self.document else {
            return;
        };
        self.pose.sync(document, self.document_id);
        match (&self.morph_edit_pose, self.view.morph_edit.active) {
            (None, true) => {
                let replaced = self.pose.pose.clone();
                self.pose.reset();
                self.morph_edit_pose = Some(super::MorphEditPose {
                    replaced,
                    shown: None,
                });
            }
            (Some(_), false) => {
                if let Some(state) = self.morph_edit_pose.take() {
                    self.pose.restore(state.replaced);
                }
            }
            _ => {}
        }
        if let (Some(state), Some((morph, value))) = (
            &mut self.morph_edit_pose,
            self.view.morph_edit.pose_value(document),
        ) {
            if let Some(previous) = state.shown.filter(|&shown| shown != morph) {
                self.pose.set_morph(previous, 0.0);
            }
            state.shown = Some(morph);
            let index = pmx_core::model::MorphIdx::new(morph);
            if self.pose.pose.morph(index) != Some(value) {
                self.pose.set_morph(morph, value);
            }
        }
        self.pose.evaluate(&document.model);
    }

    /// The 3D view draws the pose pane's pose ([`crate::panes::pose_feed::PoseFeed`]).
    fn feed_pose_to_view(&mut self) {
        let Some(document) = &self.document else {
            return;
        };
        self.pose_feed
            .feed(&mut self.view, &mut self.pose, document, self.document_id);
    }
}
