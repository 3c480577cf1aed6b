//! The editor window (eframe, glow backend so the 3D preview can join it).
//!
//! For now it opens a model off the UI thread and shows its info and counts; the editing issues
//! grow it into the full editor.

use crate::cli::WindowArgs;
use anyhow::{Context as _, Result, anyhow};
use pmx_core::formats::{self, LoadOptions, Loaded};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};

/// Opens the window (optionally on `file`) and runs it until it is closed.
pub fn run(file: Option<PathBuf>, args: WindowArgs) -> Result<()> {
    let size = match &args.size {
        Some(text) => parse_size(text)?,
        None => [1280.0, 800.0],
    };
    let options = eframe::NativeOptions {
        renderer: eframe::Renderer::Glow,
        depth_buffer: 24,
        viewport: egui::ViewportBuilder::default()
            .with_inner_size(size)
            .with_title("PMX Studio"),
        ..Default::default()
    };
    let screenshot = args.screenshot.clone();
    let failure: Arc<Mutex<Option<String>>> = Arc::default();
    let failure_in_app = Arc::clone(&failure);
    eframe::run_native(
        "PMX Studio",
        options,
        Box::new(move |cc| {
            pmx_ui::fonts::install(&cc.egui_ctx);
            let mut app = EditorApp::new(screenshot, failure_in_app);
            if let Some(path) = file {
                app.open(&cc.egui_ctx, path);
            }
            Ok(Box::new(app))
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

enum Document {
    Empty,
    Loading {
        path: PathBuf,
        result: Receiver<Result<Loaded, String>>,
    },
    Open {
        path: PathBuf,
        loaded: Loaded,
    },
    Failed {
        path: PathBuf,
        message: String,
    },
}

struct EditorApp {
    document: Document,
    open_path: String,
    screenshot: Option<ScreenshotState>,
    failure: Arc<Mutex<Option<String>>>,
}

struct ScreenshotState {
    path: PathBuf,
    frames_after_ready: u32,
    requested: bool,
    done: Arc<Mutex<Option<Result<(), String>>>>,
}

impl EditorApp {
    fn new(screenshot: Option<PathBuf>, failure: Arc<Mutex<Option<String>>>) -> Self {
        Self {
            document: Document::Empty,
            open_path: String::new(),
            screenshot: screenshot.map(|path| ScreenshotState {
                path,
                frames_after_ready: 0,
                requested: false,
                done: Arc::default(),
            }),
            failure,
        }
    }

    /// Starts reading `path` on a worker thread; the UI keeps running.
    fn open(&mut self, ctx: &egui::Context, path: PathBuf) {
        let (sender, receiver) = channel();
        let ctx = ctx.clone();
        let worker_path = path.clone();
        std::thread::spawn(move || {
            let result = formats::load_path(&worker_path, &LoadOptions::default())
                .map_err(|e| e.to_string());
            let _ = sender.send(result);
            ctx.request_repaint();
        });
        self.open_path = path.display().to_string();
        self.document = Document::Loading {
            path,
            result: receiver,
        };
    }

    fn poll_loading(&mut self) {
        if let Document::Loading { path, result } = &self.document
            && let Ok(result) = result.try_recv()
        {
            let path = path.clone();
            self.document = match result {
                Ok(loaded) => Document::Open { path, loaded },
                Err(message) => Document::Failed { path, message },
            };
        }
    }

    fn title(&self) -> String {
        match &self.document {
            Document::Open { path, .. }
            | Document::Loading { path, .. }
            | Document::Failed { path, .. } => {
                format!("{} - PMX Studio", file_name(path))
            }
            Document::Empty => "PMX Studio".to_owned(),
        }
    }

    fn handle_screenshot(&mut self, ctx: &egui::Context) {
        let ready = !matches!(self.document, Document::Loading { .. });
        let Some(state) = &mut self.screenshot else {
            return;
        };
        if let Some(result) = state.done.lock().ok().and_then(|mut done| done.take()) {
            if let Err(message) = result
                && let Ok(mut failure) = self.failure.lock()
            {
                *failure = Some(message);
            }
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        if !ready || state.requested {
            ctx.request_repaint();
            return;
        }
        // A few frames first, so that layout and fonts have settled.
        state.frames_after_ready += 1;
        if state.frames_after_ready >= 3 {
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

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
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
        self.poll_loading();
        ctx.send_viewport_cmd(egui::ViewportCommand::Title(self.title()));

        egui::Panel::top("menu_bar").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.label("ファイル / File:");
                let field = ui.add(
                    egui::TextEdit::singleline(&mut self.open_path)
                        .hint_text("path to a .pmx or .json model")
                        .desired_width(420.0),
                );
                let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if (ui.button("開く / open").clicked() || enter)
                    && !self.open_path.trim().is_empty()
                {
                    let path = PathBuf::from(self.open_path.trim());
                    self.open(&ctx, path);
                }
            });
        });
        egui::Panel::bottom("status_bar").show(ui, |ui| {
            ui.label(match &self.document {
                Document::Empty => "モデルが開かれていません / no model open".to_owned(),
                Document::Loading { path, .. } => {
                    format!("読み込み中 / loading {}…", path.display())
                }
                Document::Open { loaded, .. } => format!(
                    "頂点 {} / 面 {} / 材質 {} / ボーン {} / モーフ {}",
                    loaded.model.vertices.len(),
                    loaded.model.faces.len(),
                    loaded.model.materials.len(),
                    loaded.model.bones.len(),
                    loaded.model.morphs.len()
                ),
                Document::Failed { .. } => "読み込みに失敗しました / loading failed".to_owned(),
            });
        });
        egui::CentralPanel::default().show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| match &self.document {
                Document::Empty => {
                    ui.heading("PMX Studio");
                    ui.label("ファイルのパスを入力して開いてください / enter a model path above and open it");
                }
                Document::Loading { .. } => {
                    ui.spinner();
                }
                Document::Open { path, loaded } => {
                    ui.heading(format!("情報 / Info — {}", file_name(path)));
                    ui.add_space(8.0);
                    pmx_ui::info::info_panel_ui(ui, &loaded.model);
                    if !loaded.report.notes.is_empty() {
                        ui.add_space(12.0);
                        ui.heading("読み込み時の注意 / notes from reading");
                        for note in &loaded.report.notes {
                            ui.label(note.to_string());
                        }
                    }
                }
                Document::Failed { path, message } => {
                    ui.heading(format!("{} を開けません / cannot open", file_name(path)));
                    ui.colored_label(ui.visuals().error_fg_color, message);
                }
            });
        });
        self.handle_screenshot(&ctx);
    }
}
