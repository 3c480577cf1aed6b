//! The editor window: eframe (glow backend, depth buffer for the coming 3D preview) around
//! `pmx_ui::EditorState`. The window adds what needs the platform: native file dialogs (rfd,
//! off the UI thread), the title, the close button, settings persistence and `--screenshot`.

use crate::cli::WindowArgs;
use anyhow::{Context as _, Result, anyhow};
use pmx_core::formats;
use pmx_core::model::ElementKind;
use pmx_ui::EditorState;
use pmx_ui::command::Command;
use pmx_ui::editor::settings::Settings;
use pmx_ui::editor::workspace::Pane;
use pmx_ui::editor::{BrowsePurpose, PlatformRequest};
use pmx_ui::panes::view::PickMode;
use pmx_ui::panes::view::gizmo::GizmoMode;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

/// Where the settings live in eframe's storage.
const SETTINGS_KEY: &str = "pmx_studio_settings";

/// Opens the window (optionally on `file`) and runs it until it is closed.
pub fn run(file: Option<PathBuf>, args: WindowArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let mut view_layers = pmx_ui::panes::view::ViewLayers::default();
    if let Some(list) = &args.view_layers {
        view_layers.set_from_list(list).map_err(|e| anyhow!(e))?;
    }
    let size = match &args.size {
        Some(text) => parse_size(text)?,
        None => [1280.0, 800.0],
    };
    let tab = match &args.tab {
        Some(name) => {
            // Fail before opening a window when the tab does not exist.
            EditorState::default()
                .show_tab(name)
                .map_err(|e| anyhow!(e))?;
            Pane::from_name(name)
        }
        None => None,
    };
    // The query's kind is known from its text (the view picks that kind); what it selects
    // needs the model, so it is answered once the model is open.
    let selection = args
        .select
        .as_deref()
        .map(|query| {
            pmx_core::select::query_kind(query)
                .map(|kind| (kind, query.to_owned()))
                .map_err(|error| anyhow!("--select {error}"))
        })
        .transpose()?;
    let gizmo = match args.gizmo.as_deref() {
        Some("move") => GizmoMode::Move,
        Some("rotate") => GizmoMode::Rotate,
        Some("scale") => GizmoMode::Scale,
        _ => GizmoMode::Off,
    };
    let screenshot = args.screenshot.clone();
    let screenshot_mode = screenshot.is_some();
    let options = eframe::NativeOptions {
        renderer: eframe::Renderer::Glow,
        depth_buffer: 24,
        viewport: egui::ViewportBuilder::default()
            .with_inner_size(size)
            .with_min_inner_size([640.0, 400.0])
            .with_title("PMX Studio")
            .with_drag_and_drop(true),
        // Screenshots must not depend on (or change) what earlier runs saved.
        persist_window: !screenshot_mode,
        persistence_path: screenshot_mode.then(|| {
            std::env::temp_dir().join(format!("pmx-studio-screenshot-{}", std::process::id()))
        }),
        ..Default::default()
    };
    let failure: Arc<Mutex<Option<String>>> = Arc::default();
    let failure_in_app = Arc::clone(&failure);
    eframe::run_native(
        "PMX Studio",
        options,
        Box::new(move |cc| {
            pmx_ui::editor::fonts::install(&cc.egui_ctx);
            let settings: Settings = if screenshot_mode {
                Settings::default()
            } else {
                cc.storage
                    .and_then(|storage| eframe::get_value(storage, SETTINGS_KEY))
                    .unwrap_or_default()
            };
            let mut editor = EditorState::new(settings);
            // The 3D view draws through the GL side, which only the window links.
            editor.view.painter = Some(std::sync::Arc::new(pmx_view::GlPainter::new()));
            editor.view.layers = view_layers;
            editor.view.gizmo.mode = gizmo;
            if let Some((kind, _)) = &selection
                && let Some(mode) = PickMode::ALL.into_iter().find(|m| m.kind() == *kind)
            {
                editor.view.pick_mode = mode;
            }
            editor.set_repaint(&cc.egui_ctx);
            if let Some(pane) = tab {
                let _ = editor.show_tab(pane.name());
            }
            if let Some(path) = file {
                editor.push(Command::Open(path));
            }
            let (sender, receiver) = channel();
            Ok(Box::new(EditorApp {
                editor,
                title: String::new(),
                browse_results: receiver,
                browse_sender: sender,
                browsing: false,
                select_given: selection.is_some(),
                selection,
                motion: args.motion.clone().map(|path| (path, args.frame)),
                screenshot: screenshot.map(|path| ScreenshotState {
                    path,
                    tab,
                    frames_after_ready: 0,
                    requested: false,
                    done: Arc::default(),
                    started,
                }),
                failure: failure_in_app,
            }))
        }),
    )
    .map_err(|e| anyhow!("cannot open the window: {e}"))?;
    let failure = failure.lock().map(|f| f.clone()).unwrap_or_default();
    match failure {
        Some(message) => Err(anyhow!(message)),
        None => Ok(()),
    }
}

fn parse_size(text: &str) -> Result<[f32; 2]> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .context("--size takes WIDTHxHEIGHT, e.g. 1280x800")?;
    let w: f32 = w.trim().parse().context("--size width")?;
    let h: f32 = h.trim().parse().context("--size height")?;
    Ok([w, h])
}

struct EditorApp {
    /// `--select`: the query's kind and text, answered once the model is open.
    selection: Option<(ElementKind, String)>,
    /// Whether `--select` was given (the screenshot then keeps that selection).
    select_given: bool,
    /// `--motion` and `--frame`: loaded into the pose pane once the model is open.
    motion: Option<(PathBuf, Option<f32>)>,
    editor: EditorState,
    /// The title last sent to the window.
    title: String,
    browse_results: Receiver<(BrowsePurpose, Option<PathBuf>)>,
    browse_sender: Sender<(BrowsePurpose, Option<PathBuf>)>,
    /// A native dialog is open (one at a time).
    browsing: bool,
    screenshot: Option<ScreenshotState>,
    failure: Arc<Mutex<Option<String>>>,
}

struct ScreenshotState {
    path: PathBuf,
    tab: Option<Pane>,
    frames_after_ready: u32,
    requested: bool,
    done: Arc<Mutex<Option<Result<(), String>>>>,
    /// When the program started (the 3D view's first frame is reported against it).
    started: std::time::Instant,
}

impl EditorApp {
    /// Shows a native file dialog on its own thread: with no desktop portal rfd answers `None`
    /// (like Cancel), and the built-in path field stays usable meanwhile.
    fn browse(&mut self, ctx: &egui::Context, purpose: BrowsePurpose, suggested: Option<PathBuf>) {
        if self.browsing {
            return;
        }
        self.browsing = true;
        let sender = self.browse_sender.clone();
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let mut dialog = rfd::FileDialog::new();
            for filter in purpose.filters() {
                dialog = dialog.add_filter(filter.name, &filter.extensions);
            }
            if let Some(suggested) = &suggested {
                if let Some(dir) = suggested.parent().filter(|d| d.is_dir()) {
                    dialog = dialog.set_directory(dir);
                }
                if let Some(name) = suggested.file_name() {
                    dialog = dialog.set_file_name(name.to_string_lossy());
                }
            }
            let path = if purpose.writes() {
                dialog.save_file()
            } else {
                dialog.pick_file()
            };
            let _ = sender.send((purpose, path));
            ctx.request_repaint();
        });
    }

    fn handle_platform_requests(&mut self, ctx: &egui::Context) {
        while let Ok((purpose, path)) = self.browse_results.try_recv() {
            self.browsing = false;
            self.editor.browse_finished(purpose, path);
        }
        for request in self.editor.take_platform_requests() {
            match request {
                PlatformRequest::Browse { purpose, suggested } => {
                    self.browse(ctx, purpose, suggested);
                }
                PlatformRequest::Quit => ctx.send_viewport_cmd(egui::ViewportCommand::Close),
            }
        }
    }

    fn update_title(&mut self, ctx: &egui::Context) {
        let title = self.editor.title();
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
    }

    /// Loads `--motion` (a VPD or a VMD at `--frame`) into the pose pane once the model is
    /// open; a file that does not load is said in the status bar (and fails a screenshot).
    fn apply_motion(&mut self) {
        if self.editor.loading.is_some() || self.motion.is_none() {
            return;
        }
        let document_id = self.editor.document_id();
        let Some(document) = &self.editor.document else {
            return;
        };
        let Some((path, frame)) = self.motion.take() else {
            return;
        };
        let pose = &mut self.editor.pose;
        // The pose follows the document first (a pose made for no document is dropped then).
        pose.sync(document, document_id);
        let is_vpd = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("vpd"));
        let loaded = if is_vpd {
            pose.load_vpd(&document.model, &path)
        } else {
            pose.load_vmd(&document.model, &path)
        };
        match loaded {
            Ok(_) => {
                if let Some(frame) = frame {
                    pose.set_frame(frame);
                }
            }
            Err(message) => {
                let message = format!("--motion: {message}");
                if self.screenshot.is_some()
                    && let Ok(mut slot) = self.failure.lock()
                {
                    *slot = Some(message.clone());
                }
                self.editor
                    .set_message(pmx_ui::editor::MessageLevel::Error, message);
            }
        }
    }

    /// Applies `--select` to the model once it is open.
    fn apply_selection(&mut self) {
        if self.editor.loading.is_some() {
            return;
        }
        let Some(document) = &mut self.editor.document else {
            return;
        };
        let Some((kind, query)) = self.selection.take() else {
            return;
        };
        match pmx_core::select::parse_query(&document.model, &query) {
            Ok((_, indices)) => {
                let selection = document.selection.get_mut(kind);
                selection.clear();
                selection.current = indices.first().copied();
                for index in indices {
                    selection.indices.insert(index);
                }
            }
            Err(error) => {
                let message = format!("--select {error}");
                if self.screenshot.is_some()
                    && let Ok(mut slot) = self.failure.lock()
                {
                    *slot = Some(message.clone());
                }
                self.editor
                    .set_message(pmx_ui::editor::MessageLevel::Error, message);
            }
        }
    }

    fn handle_screenshot(&mut self, ctx: &egui::Context) {
        let ready = self.editor.loading.is_none();
        let Some(state) = &mut self.screenshot else {
            return;
        };
        if let Some(result) = state.done.lock().ok().and_then(|mut done| done.take()) {
            if state.tab == Some(Pane::View)
                && let Ok(shared) = self.editor.view.scene.shared.lock()
                && let Some(first) = shared.first_model_frame
            {
                eprintln!(
                    "3D view: first frame with the model {:.2} s after start, last paint {:.1} ms",
                    first.duration_since(state.started).as_secs_f64(),
                    shared.last_paint.as_secs_f64() * 1000.0
                );
            }
            let failure = match result {
                Err(message) => Some(message),
                // A model that did not open is a failure too (the PNG shows why).
                Ok(()) if self.editor.document.is_none() => {
                    Some(self.editor.message.as_ref().map_or_else(
                        || "no model was opened".to_owned(),
                        |m| m.text(self.editor.lang()),
                    ))
                }
                Ok(()) => None,
            };
            if let Some(message) = failure
                && let Ok(mut slot) = self.failure.lock()
            {
                *slot = Some(message);
            }
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        if !ready || state.requested {
            ctx.request_repaint();
            return;
        }
        if state.frames_after_ready == 0 && !self.select_given {
            // The document is open: show the tab with its first element selected, so the
            // property panel is filled.
            if let Some(pane) = state.tab {
                let _ = self.editor.show_tab(pane.name());
                if let Some(kind) = pane.kind() {
                    self.editor.select_first(kind);
                } else if pane == pmx_ui::editor::workspace::Pane::Pose {
                    // The pose pane shows the picked bone's fields.
                    self.editor.select_first(ElementKind::Bone);
                }
            } else {
                self.editor.select_first(ElementKind::Vertex);
            }
        }
        // A few frames first, so that layout, column widths and fonts have settled.
        state.frames_after_ready += 1;
        if state.frames_after_ready >= 4 {
            state.requested = true;
            let path = state.path.clone();
            let done = Arc::clone(&state.done);
            let repaint = ctx.clone();
            ctx.request_screenshot(move |image| {
                let result = save_png(&path, &image);
                if let Ok(mut slot) = done.lock() {
                    *slot = Some(result);
                }
                repaint.request_repaint();
            });
        }
        ctx.request_repaint();
    }
}

fn save_png(path: &Path, image: &egui::ColorImage) -> Result<(), String> {
    let [width, height] = image.size;
    let mut bytes = Vec::with_capacity(width * height * 4);
    for pixel in &image.pixels {
        bytes.extend_from_slice(&pixel.to_array());
    }
    let buffer = image::RgbaImage::from_raw(width as u32, height as u32, bytes)
        .ok_or_else(|| "screenshot has an unexpected size".to_owned())?;
    let mut png = Vec::new();
    buffer
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| format!("cannot encode the screenshot: {e}"))?;
    formats::write_atomic(path, &png).map_err(|e| format!("{}: {e}", path.display()))
}

impl eframe::App for EditorApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        // The close button asks first when there are unsaved changes.
        if ctx.input(|i| i.viewport().close_requested())
            && self.screenshot.is_none()
            && !self.editor.quit_confirmed()
        {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.editor.request_quit();
        }
        self.handle_platform_requests(&ctx);
        self.editor.ui(ui);
        self.apply_selection();
        self.apply_motion();
        self.handle_platform_requests(&ctx);
        self.update_title(&ctx);
        self.handle_screenshot(&ctx);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if self.screenshot.is_none() {
            eframe::set_value(storage, SETTINGS_KEY, &self.editor.settings_to_save());
        }
    }

    fn persist_egui_memory(&self) -> bool {
        self.screenshot.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_from_the_command_line_name_their_kind_before_the_model_is_open() {
        let kind = |text: &str| pmx_core::select::query_kind(text);
        assert_eq!(kind("vertices:0-99, 120"), Ok(ElementKind::Vertex));
        assert_eq!(kind("bone:5"), Ok(ElementKind::Bone));
        assert_eq!(kind("vertices:linked:12"), Ok(ElementKind::Vertex));
        assert!(kind("bones").is_err());
        assert!(kind("bonez:1").is_err());
    }
}
