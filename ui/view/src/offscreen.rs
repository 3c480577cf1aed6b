//! The 3D view without a window: an OpenGL 3.3 context made through EGL's device platform
//! (Mesa's software device works; no X server, no environment variables), and
//! [`Offscreen::render_queue`], which draws a view's queued frame with exactly the code the
//! window's paint callback runs ([`crate::painter::paint`]) into an image. `pmx-studio render` and the image
//! tests use it.
//!
//! EGL is loaded at run time (glutin opens libEGL), so nothing here is needed to build or to
//! run the window; without it [`Offscreen::new`] says why.
// glutin and glow create GL contexts through unsafe calls; this module only sets one up.
#![allow(unsafe_code)]

use pmx_scene::scene::SceneQueue;
use std::sync::Mutex;
use three_d::{DepthTexture2D, Interpolation, RenderTarget, Texture2D, Wrapping};

/// Why nothing could be drawn offscreen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OffscreenError {
    /// No EGL library, device, config or OpenGL 3.3 context.
    #[error("no offscreen OpenGL 3.3: {0}")]
    Unavailable(String),
    #[error("image size {width}×{height}: each side must be 1 to {max} pixels")]
    BadSize { width: u32, height: u32, max: u32 },
    /// The view's GPU side did not start (shader compilation) or an upload failed.
    #[error("3D view: {0}")]
    View(String),
}

/// A current OpenGL context on this thread, with no window. GL contexts belong to the thread
/// that made them: keep it on one thread.
pub struct Offscreen {
    context: three_d::Context,
    #[cfg(all(
        any(windows, unix),
        not(target_os = "macos"),
        not(target_os = "ios"),
        not(target_family = "wasm")
    ))]
    _gl_context: glutin::api::egl::context::PossiblyCurrentContext,
}

impl std::fmt::Debug for Offscreen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Offscreen").finish_non_exhaustive()
    }
}

/// Contexts made through [`with_offscreen`] take turns: EGL's display is shared by the threads
/// of a process (the test harness runs tests on several).
static OFFSCREEN_TURN: Mutex<()> = Mutex::new(());

/// Runs `draw` with a new offscreen context, one caller of this process at a time; without
/// offscreen OpenGL it prints why and returns `None` (image tests then pass without drawing).
pub fn with_offscreen<R>(draw: impl FnOnce(&Offscreen) -> R) -> Option<R> {
    let _turn = OFFSCREEN_TURN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match Offscreen::new() {
        Ok(offscreen) => Some(draw(&offscreen)),
        Err(reason) => {
            println!(
                "skipped: {reason}; install libegl1 libegl-mesa0 libgl1-mesa-dri to draw offscreen"
            );
            None
        }
    }
}

/// The largest image side drawn (llvmpipe's and most GPUs' texture limit is at least this).
pub const MAX_SIZE: u32 = 8192;

impl Offscreen {
    /// Makes a surfaceless OpenGL 3.3 context current on this thread (the first EGL device
    /// that gives one).
    #[cfg(all(
        any(windows, unix),
        not(target_os = "macos"),
        not(target_os = "ios"),
        not(target_family = "wasm")
    ))]
    pub fn new() -> Result<Self, OffscreenError> {
        use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
        use glutin::context::{ContextApi, ContextAttributesBuilder, Version};
        use glutin::display::GlDisplay as _;

        let unavailable = OffscreenError::Unavailable;
        let devices = glutin::api::egl::device::Device::query_devices()
            .map_err(|e| unavailable(format!("no EGL devices ({e})")))?;
        let mut last = String::from("no EGL device");
        for device in devices {
            // SAFETY: no native display is passed; the device comes from EGL itself.
            let display =
                match unsafe { glutin::api::egl::display::Display::with_device(&device, None) } {
                    Ok(display) => display,
                    Err(e) => {
                        last = format!("EGL display: {e}");
                        continue;
                    }
                };
            let template = ConfigTemplateBuilder::new()
                .with_surface_type(ConfigSurfaceTypes::empty())
                .with_api(Api::OPENGL)
                .build();
            // SAFETY: the display is alive for the call.
            let configs = unsafe { display.find_configs(template) };
            let Some(config) = configs.ok().and_then(|mut c| c.next()) else {
                last = "no EGL config for OpenGL".to_owned();
                continue;
            };
            let attributes = ContextAttributesBuilder::new()
                .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
                .build(None);
            // SAFETY: the config belongs to this display.
            let context = match unsafe { display.create_context(&config, &attributes) } {
                Ok(context) => context,
                Err(e) => {
                    last = format!("OpenGL 3.3 context: {e}");
                    continue;
                }
            };
            let current = match context.make_current_surfaceless() {
                Ok(current) => current,
                Err(e) => {
                    last = format!("surfaceless context: {e}");
                    continue;
                }
            };
            // SAFETY: the context is current on this thread; names are NUL-terminated C
            // strings.
            let gl = unsafe {
                three_d::context::Context::from_loader_function_cstr(|name| {
                    display.get_proc_address(name)
                })
            };
            let context = three_d::Context::from_gl_context(std::sync::Arc::new(gl))
                .map_err(|e| unavailable(e.to_string()))?;
            return Ok(Self {
                context,
                _gl_context: current,
            });
        }
        Err(unavailable(last))
    }

    /// EGL's device platform does not exist here (macOS, the web).
    #[cfg(not(all(
        any(windows, unix),
        not(target_os = "macos"),
        not(target_os = "ios"),
        not(target_family = "wasm")
    )))]
    pub fn new() -> Result<Self, OffscreenError> {
        Err(OffscreenError::Unavailable(
            "EGL is not available on this platform".to_owned(),
        ))
    }

    #[must_use]
    pub fn context(&self) -> &three_d::Context {
        &self.context
    }

    /// Creates `queue`'s GPU scene now rather than on the first render, so that the view
    /// knows the GPU's limits before it queues a pose (a model too large for GPU skinning is
    /// then posed on the CPU from the first frame).
    pub fn start_scene(&self, queue: &Mutex<SceneQueue>) -> Result<(), OffscreenError> {
        let mut queue = queue
            .lock()
            .map_err(|_| OffscreenError::View("the view's GPU state is poisoned".to_owned()))?;
        crate::painter::start(&mut queue, || Ok(self.context.clone()));
        match &queue.failure {
            Some(failure) => Err(OffscreenError::View(failure.clone())),
            None => Ok(()),
        }
    }

    /// Applies what `queue` has pending (to its GPU scene, created on the first render) and
    /// draws the queued frame into a `width`×`height` image cleared to the view's
    /// background. The editor's view prepares the queue (`ViewState::prepare_frame`).
    pub fn render_queue(
        &self,
        queue: &Mutex<SceneQueue>,
        width: u32,
        height: u32,
    ) -> Result<image::RgbaImage, OffscreenError> {
        let mut queue = queue
            .lock()
            .map_err(|_| OffscreenError::View("the view's GPU state is poisoned".to_owned()))?;
        self.render_shared(&mut queue, width, height)
    }

    /// Applies what `shared` has pending and draws its frame into a `width`×`height` image
    /// cleared to the view's background.
    pub fn render_shared(
        &self,
        shared: &mut SceneQueue,
        width: u32,
        height: u32,
    ) -> Result<image::RgbaImage, OffscreenError> {
        check_size(width, height)?;
        let context = &self.context;
        let color = Texture2D::new_empty::<[u8; 4]>(
            context,
            width,
            height,
            Interpolation::Nearest,
            Interpolation::Nearest,
            None,
            Wrapping::ClampToEdge,
            Wrapping::ClampToEdge,
        );
        let depth = DepthTexture2D::new::<f32>(
            context,
            width,
            height,
            Wrapping::ClampToEdge,
            Wrapping::ClampToEdge,
        );
        let target = RenderTarget::new(color.as_color_target(None), depth.as_depth_target());
        let [r, g, b, a] = pmx_scene::frame::BACKGROUND;
        target.clear(three_d::ClearState::color_and_depth(r, g, b, a, 1.0));
        let viewport = three_d::Viewport::new_at_origo(width, height);
        let scissor = three_d::ScissorBox::new_at_origo(width, height);
        target
            .write::<std::convert::Infallible>(|| {
                crate::painter::paint(shared, || Ok(context.clone()), viewport, scissor, false);
                Ok(())
            })
            .map_err(|e| OffscreenError::View(e.to_string()))?;
        if let Some(failure) = &shared.failure {
            return Err(OffscreenError::View(failure.clone()));
        }
        if let Some(error) = &shared.upload_error {
            return Err(OffscreenError::View(error.clone()));
        }
        // read_color gives the rows top first already.
        let pixels: Vec<[u8; 4]> = target.read_color();
        let bytes: Vec<u8> = pixels.into_iter().flatten().collect();
        image::RgbaImage::from_raw(width, height, bytes).ok_or_else(|| {
            OffscreenError::View("the read-back image has the wrong size".to_owned())
        })
    }
}

fn check_size(width: u32, height: u32) -> Result<(), OffscreenError> {
    if (1..=MAX_SIZE).contains(&width) && (1..=MAX_SIZE).contains(&height) {
        Ok(())
    } else {
        Err(OffscreenError::BadSize {
            width,
            height,
            max: MAX_SIZE,
        })
    }
}
