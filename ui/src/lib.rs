//! PMX Studio editors (egui). Filled in by the editor-window issues.
