//! The view's painter: the GPU scene behind egui_glow's paint callback. The editor's view pane
//! queues uploads and a frame in a [`SceneQueue`]; the callback applies them on the GL context
//! egui draws with and draws the frame.

use crate::gpu::GpuScene;
use pmx_scene::scene::{Painter, SceneQueue};
use std::sync::{Arc, Mutex};

/// Paints the view's queue on egui's GL context; the GPU resources live in the queue
/// ([`SceneQueue::gpu`]), created on the first paint.
#[derive(Debug, Default)]
pub struct GlPainter;

impl GlPainter {
    #[must_use]
    pub fn new() -> Self {
        Self
    }
}

/// Creates `queue`'s GPU scene with `make_context` if it has none yet (nor a failure to start
/// one), and tells the UI side the GPU's limits ([`SceneQueue::max_buffer_texels`]).
pub fn start(
    queue: &mut SceneQueue,
    make_context: impl FnOnce() -> Result<three_d::Context, String>,
) {
    if queue.gpu.is_none() && queue.failure.is_none() {
        match make_context().and_then(GpuScene::new) {
            Ok(scene) => {
                queue.max_buffer_texels = Some(scene.max_buffer_texels());
                queue.gpu = Some(Box::new(scene));
            }
            Err(message) => queue.failure = Some(message),
        }
    }
}

/// Applies what `queue` has pending to its GPU scene (creating it with `make_context` the first
/// time) and draws the queued frame: the paint callback's body, and the offscreen renderer's.
pub fn paint(
    queue: &mut SceneQueue,
    make_context: impl FnOnce() -> Result<three_d::Context, String>,
    viewport: three_d::Viewport,
    scissor: three_d::ScissorBox,
    clear: bool,
) {
    let started = std::time::Instant::now();
    start(queue, make_context);
    let SceneQueue {
        gpu,
        pending,
        frame,
        upload_error,
        frames,
        first_model_frame,
        last_paint,
        ..
    } = queue;
    let Some(gpu) = gpu.as_mut().and_then(|gpu| gpu.downcast_mut::<GpuScene>()) else {
        return;
    };
    for upload in pending.drain(..) {
        if let Err(error) = gpu.apply(upload) {
            // Later patches of the same mesh may still apply; the rebuild corrects all.
            *upload_error = Some(error.to_string());
        }
    }
    if let Some(frame) = frame {
        if clear {
            gpu.render(frame, viewport, scissor);
        } else {
            gpu.draw(frame, viewport);
        }
        *frames += 1;
        if first_model_frame.is_none() && gpu.has_mesh() {
            *first_model_frame = Some(std::time::Instant::now());
        }
    }
    *last_paint = started.elapsed();
}

/// The part of `clip` (the callback's clip rectangle, the whole pane's) inside `viewport`.
fn intersect_scissor(
    viewport: &egui::epaint::ViewportInPixels,
    clip: &egui::epaint::ViewportInPixels,
) -> three_d::ScissorBox {
    let left = viewport.left_px.max(clip.left_px);
    let right = (viewport.left_px + viewport.width_px).min(clip.left_px + clip.width_px);
    let bottom = viewport.from_bottom_px.max(clip.from_bottom_px);
    let top =
        (viewport.from_bottom_px + viewport.height_px).min(clip.from_bottom_px + clip.height_px);
    three_d::ScissorBox {
        x: left,
        y: bottom,
        width: (right - left).max(0) as u32,
        height: (top - bottom).max(0) as u32,
    }
}

impl Painter for GlPainter {
    fn callback(&self, rect: egui::Rect, queue: Arc<Mutex<SceneQueue>>) -> egui::PaintCallback {
        let callback = egui_glow::CallbackFn::new(move |info, painter| {
            let viewport = info.viewport_in_pixels();
            let clip = info.clip_rect_in_pixels();
            let gl = Arc::clone(painter.gl());
            if let Ok(mut queue) = queue.lock() {
                paint(
                    &mut queue,
                    || three_d::Context::from_gl_context(gl).map_err(|e| e.to_string()),
                    three_d::Viewport {
                        x: viewport.left_px,
                        y: viewport.from_bottom_px,
                        width: viewport.width_px.max(1) as u32,
                        height: viewport.height_px.max(1) as u32,
                    },
                    // The callback's clip rectangle is the whole pane's (toolbar included):
                    // clear and draw only where it overlaps the view.
                    intersect_scissor(&viewport, &clip),
                    true,
                );
            }
        });
        egui::PaintCallback {
            rect,
            callback: Arc::new(callback),
        }
    }
}
