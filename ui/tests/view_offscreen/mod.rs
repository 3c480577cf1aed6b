//! An offscreen OpenGL 3.3 context without an X server: EGL's device platform (Mesa's
//! software device works), a surfaceless current context, three-d on top. Shared by the image
//! tests and the view bench (`#[path]`-included).
// glutin and glow create GL contexts through unsafe calls; this module only sets one up.
#![allow(unsafe_code)]

use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, Version};
use glutin::display::GlDisplay as _;

pub struct Offscreen {
    pub context: three_d::Context,
    _gl_context: glutin::api::egl::context::PossiblyCurrentContext,
}

pub fn offscreen() -> Result<Offscreen, String> {
    let devices = glutin::api::egl::device::Device::query_devices()
        .map_err(|e| format!("no EGL devices: {e}"))?;
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
        // SAFETY: the display is alive for the call.
        let template = ConfigTemplateBuilder::new()
            .with_surface_type(ConfigSurfaceTypes::empty())
            .with_api(Api::OPENGL)
            .build();
        let configs = unsafe { display.find_configs(template) };
        let Some(config) = configs.ok().and_then(|mut c| c.next()) else {
            last = "no EGL config".to_owned();
            continue;
        };
        let attributes = ContextAttributesBuilder::new()
            .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
            .build(None);
        // SAFETY: the config belongs to this display.
        let context = match unsafe { display.create_context(&config, &attributes) } {
            Ok(context) => context,
            Err(e) => {
                last = format!("GL 3.3 context: {e}");
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
        // SAFETY: the context is current on this thread; names are NUL-terminated C strings.
        let gl = unsafe {
            three_d::context::Context::from_loader_function_cstr(|name| {
                display.get_proc_address(name)
            })
        };
        let context = three_d::Context::from_gl_context(std::sync::Arc::new(gl))
            .map_err(|e| e.to_string())?;
        return Ok(Offscreen {
            context,
            _gl_context: current,
        });
    }
    Err(last)
}

impl std::fmt::Debug for Offscreen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Offscreen").finish_non_exhaustive()
    }
}
