//! The 3D view's keys, as PmxView has them: the numeric keypad's view directions, framing the
//! selection, resetting the camera, and one key per tool. One table ([`VIEW_KEYS`]) is what the
//! view acts on and what Help > Shortcuts lists.
//!
//! They act only while the pointer is over the view, no text field has the keyboard and no
//! Ctrl, Alt or ⌘ is held (so they never clash with the editor's Ctrl shortcuts). egui reports a
//! keypad digit as the same [`egui::Key::Num2`] as the top row's, so both work.

use super::ViewState;
use super::gizmo::GizmoMode;
use crate::document::Document;
use pmx_scene::camera::CameraPreset;

/// What a view key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewAction {
    /// A camera direction (keypad 2/8/4/6/5/0).
    Preset(CameraPreset),
    /// Point the camera at the selection.
    FrameSelection,
    /// The camera and its orbit centre as the model opened (the double click's reset).
    ResetCamera,
    /// Click and rectangle selection: the gizmo off, no brush, no mode.
    Select,
    /// The gizmo's modes.
    Move,
    Rotate,
    Scale,
    /// ウェイト描画 on or off.
    WeightPaint,
    /// モーフ編集 on or off.
    MorphEdit,
    /// ボーン追加 on or off.
    AddBone,
}

impl ViewAction {
    /// The i18n key of what it does (Help > Shortcuts).
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            ViewAction::Preset(preset) => preset.key(),
            ViewAction::FrameSelection => "view.frame_selection",
            ViewAction::ResetCamera => "view.camera_reset",
            ViewAction::Select => "view.key_select",
            ViewAction::Move => "view.gizmo_move",
            ViewAction::Rotate => "view.gizmo_rotate",
            ViewAction::Scale => "view.gizmo_scale",
            ViewAction::WeightPaint => "brush.weight_paint",
            ViewAction::MorphEdit => "morph_edit.toggle",
            ViewAction::AddBone => "view.bone_place",
        }
    }
}

/// One line of the table: the keys (the first is the one shown first), as written for the
/// user, and the action.
#[derive(Debug, Clone, Copy)]
pub struct ViewKey {
    pub keys: &'static [egui::Key],
    pub shown: &'static str,
    pub action: ViewAction,
}

/// Every view key.
pub const VIEW_KEYS: [ViewKey; 15] = {
    use egui::Key;
    [
        ViewKey {
            keys: &[Key::Num2],
            shown: "2",
            action: ViewAction::Preset(CameraPreset::Front),
        },
        ViewKey {
            keys: &[Key::Num8],
            shown: "8",
            action: ViewAction::Preset(CameraPreset::Back),
        },
        ViewKey {
            keys: &[Key::Num4],
            shown: "4",
            action: ViewAction::Preset(CameraPreset::Left),
        },
        ViewKey {
            keys: &[Key::Num6],
            shown: "6",
            action: ViewAction::Preset(CameraPreset::Right),
        },
        ViewKey {
            keys: &[Key::Num5],
            shown: "5",
            action: ViewAction::Preset(CameraPreset::Top),
        },
        ViewKey {
            keys: &[Key::Num0],
            shown: "0",
            action: ViewAction::Preset(CameraPreset::Bottom),
        },
        ViewKey {
            keys: &[Key::F, Key::Period],
            shown: "F, .",
            action: ViewAction::FrameSelection,
        },
        ViewKey {
            keys: &[Key::Home],
            shown: "Home",
            action: ViewAction::ResetCamera,
        },
        ViewKey {
            keys: &[Key::Q],
            shown: "Q",
            action: ViewAction::Select,
        },
        ViewKey {
            keys: &[Key::W, Key::G],
            shown: "W, G",
            action: ViewAction::Move,
        },
        ViewKey {
            keys: &[Key::E],
            shown: "E",
            action: ViewAction::Rotate,
        },
        ViewKey {
            keys: &[Key::R],
            shown: "R",
            action: ViewAction::Scale,
        },
        ViewKey {
            keys: &[Key::P],
            shown: "P",
            action: ViewAction::WeightPaint,
        },
        ViewKey {
            keys: &[Key::M],
            shown: "M",
            action: ViewAction::MorphEdit,
        },
        ViewKey {
            keys: &[Key::B],
            shown: "B",
            action: ViewAction::AddBone,
        },
    ]
};

/// The action of `key` pressed with `modifiers`, if it is a view key (Shift alone is allowed;
/// Ctrl, Alt and ⌘ leave the key to the editor's shortcuts).
#[must_use]
pub fn action_for(key: egui::Key, modifiers: egui::Modifiers) -> Option<ViewAction> {
    if modifiers.command || modifiers.ctrl || modifiers.alt || modifiers.mac_cmd {
        return None;
    }
    VIEW_KEYS
        .iter()
        .find(|line| line.keys.contains(&key))
        .map(|line| line.action)
}

/// Which of the view's modes are on: (モーフ編集, ウェイト描画, ボーン追加).
type Modes = (bool, bool, bool);

impl ViewState {
    /// Which of the modes that exclude each other are on.
    pub(super) fn modes(&self) -> Modes {
        (
            self.morph_edit.active,
            self.weight_paint.active,
            self.bone_place.active,
        )
    }

    /// Morph edit, the weight brush and bone placing are one at a time: the one switched on
    /// since `before` wins. Placing bones shows them.
    pub(super) fn one_mode_at_a_time(&mut self, before: Modes) {
        let now = self.modes();
        let switched_on = (now.0 && !before.0, now.1 && !before.1, now.2 && !before.2);
        if switched_on.0 {
            self.weight_paint.active = false;
            self.bone_place.active = false;
        } else if switched_on.1 {
            self.morph_edit.set_active(false);
            self.bone_place.active = false;
        } else if switched_on.2 {
            self.morph_edit.set_active(false);
            self.weight_paint.active = false;
            self.layers.bones = true;
        }
    }

    /// Carries out a view key's action.
    pub fn view_action(&mut self, action: ViewAction, document: &Document) {
        let before = self.modes();
        match action {
            ViewAction::Preset(preset) => self.camera.apply_preset(preset),
            ViewAction::FrameSelection => self.frame_selection(document),
            ViewAction::ResetCamera => self.frame_model(document),
            ViewAction::Select => {
                self.gizmo.mode = GizmoMode::Off;
                self.weight_paint.active = false;
                self.morph_edit.set_active(false);
                self.bone_place.active = false;
            }
            ViewAction::Move | ViewAction::Rotate | ViewAction::Scale => {
                self.gizmo.mode = match action {
                    ViewAction::Move => GizmoMode::Move,
                    ViewAction::Rotate => GizmoMode::Rotate,
                    _ => GizmoMode::Scale,
                };
                // The gizmo works in morph edit mode too (into the morph); brushes hide it.
                self.weight_paint.active = false;
                self.bone_place.active = false;
            }
            ViewAction::WeightPaint => self.weight_paint.active = !self.weight_paint.active,
            ViewAction::MorphEdit => self.morph_edit.set_active(!self.morph_edit.active),
            ViewAction::AddBone => self.bone_place.active = !self.bone_place.active,
        }
        self.one_mode_at_a_time(before);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_has_two_actions_and_ctrl_leaves_them_alone() {
        let mut seen = std::collections::HashSet::new();
        for line in VIEW_KEYS {
            for key in line.keys {
                assert!(seen.insert(*key), "{key:?} twice");
            }
        }
        assert_eq!(
            action_for(egui::Key::Num0, egui::Modifiers::NONE),
            Some(ViewAction::Preset(CameraPreset::Bottom))
        );
        assert_eq!(action_for(egui::Key::W, egui::Modifiers::COMMAND), None);
    }
}
