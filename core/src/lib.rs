//! PMX Studio's core: the document model, file formats, edits with undo, validators and the
//! pose engine, and texture files (found and decoded for the 3D view and the validator). No GUI dependency (checked by a test in `tests/`).

pub mod edit;
pub mod formats;
pub mod generate;
pub mod i18n;
pub mod model;
pub mod path;
pub mod physics;
pub mod pose;
pub mod select;
pub(crate) mod serde_f32;
pub mod texture;
pub mod uv;
pub mod validate;

pub use formats::{FileFormat, LoadOptions, SaveOptions};
pub use model::Model;
