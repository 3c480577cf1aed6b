//! PMX Studio's editors (egui). Panels read the document and emit commands; they never change
//! the model themselves.

pub mod fonts;
pub mod info;
