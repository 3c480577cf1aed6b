//! PMX Studio's core: the document model, file formats, edits with undo, validators and the
//! pose engine. No GUI dependency (checked by a test in `tests/`).

pub mod edit;
pub mod formats;
pub mod generate;
pub mod model;
pub mod pose;
pub(crate) mod serde_f32;
pub mod validate;

pub use formats::{FileFormat, LoadOptions, SaveOptions};
pub use model::Model;
