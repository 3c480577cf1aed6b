//! PMX Studio's editors (egui). Panels read the document and emit commands; they never change
//! the model themselves. [`editor::EditorState`] is the whole editor as testable state: the app
//! wraps it in an eframe window, tests drive it with egui_kittest.

pub mod bone_tree;
pub mod command;
pub mod document;
pub mod editor;
pub mod editors;
pub mod fonts;
pub mod frames;
pub mod i18n;
pub mod info;
pub mod pose;
pub mod properties;
pub mod selection;
pub mod settings;
pub mod table;
pub mod validation;
pub mod view;
pub mod widgets;
pub mod workspace;

pub use editor::EditorState;
