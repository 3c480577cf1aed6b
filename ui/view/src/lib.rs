//! The 3D view on the GPU: three-d and glow inside egui (egui_glow's paint callback), and the
//! same drawing offscreen (EGL) for `pmx-studio render` and the image tests.
//!
//! - `gl`: the mesh's buffers owned through glow (three-d 0.19's `fill_subset` takes an
//!   element index as a byte offset; partial uploads here land at first × element size);
//! - `gpu`, `shaders`: textures and MMD's shading, edge and overlay passes;
//! - `painter`: [`painter::GlPainter`], the [`pmx_scene::scene::Painter`] the window gives the
//!   editor;
//! - `offscreen`: an OpenGL 3.3 context without a window and a frame drawn into an image.
//!
//! Nothing here knows the editor: it draws what [`pmx_scene`] queued.

pub mod gl;
pub mod gpu;
pub mod offscreen;
pub mod painter;
pub mod shaders;

pub use painter::GlPainter;
