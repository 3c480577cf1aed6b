//! PMX Studio's editors (egui). Panels read the document and emit commands; they never change
//! the model themselves. [`editor::EditorState`] is the whole editor as testable state: the app
//! wraps it in an eframe window, tests drive it with egui_kittest.

pub mod command;
pub mod document;
pub mod editor;
pub mod i18n;
pub mod panes;
pub mod select_ops;
pub mod selection;
pub mod visibility;
pub mod widgets;

pub use editor::EditorState;
