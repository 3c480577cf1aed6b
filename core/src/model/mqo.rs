//! What an MQO file holds that the model has no place for, kept on the model so that
//! MQO → model → MQO (File > Import MQO then Export MQO, `convert a.mqo b.json`, `b.json c.mqo`)
//! writes the objects the file had, with their own settings.
//!
//! The model itself knows materials, not Metasequoia's objects: the import makes one PMX material
//! per MQO material and splits vertices wherever normals or UVs differ. This record keeps, per
//! object, its settings (shading, smoothing angle, visibility, locking, colour, mirror, local
//! frame), which object each face came from and which object vertex each PMX vertex copies. The
//! MQO writer uses it only while the model still has exactly the faces and vertices it describes
//! (the counts and every reference agree); any structural edit simply makes it stale, so edits
//! never need to update it and undo cannot make it disagree with the model.
//!
//! The PMX writer ignores it (PMX has no such place), the validator never looks at it, and the
//! JSON form leaves it out when it is empty (every model not imported from an MQO file).

use serde::{Deserialize, Serialize};

/// The settings of one Metasequoia object (the `Object` chunk's fields other than geometry).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MqoObjectSettings {
    pub name: String,
    pub depth: u32,
    pub folding: bool,
    pub scale: [f32; 3],
    pub rotation: [f32; 3],
    pub translation: [f32; 3],
    pub visible: bool,
    pub locked: bool,
    /// `shading 1` (smooth, by `facet`) or `0` (flat).
    pub smooth_shading: bool,
    /// The smoothing angle in degrees.
    pub facet: f32,
    pub color: Option<[f32; 3]>,
    pub color_type: i32,
    /// `mirror` (0 none, 1 separate, 2 connected), `mirror_axis` bits and `mirror_dis`.
    pub mirror: u8,
    pub mirror_axis: u8,
    pub mirror_distance: f32,
}

/// A run of consecutive model faces made from one object. `object` is an index into
/// [`MqoExtras::objects`], or `None` for faces the import generated (mirror copies), which
/// Metasequoia makes again from the object's mirror setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MqoFaceRun {
    pub object: Option<u32>,
    pub faces: u32,
}

/// The MQO-only details of a model imported from an MQO file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MqoExtras {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<MqoObjectSettings>,
    /// The model's faces in order, as runs by the object they came from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub face_runs: Vec<MqoFaceRun>,
    /// Per model vertex: the index, within its object's vertex list, of the file vertex it copies
    /// (`u32::MAX` for a vertex the import generated).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vertex_sources: Vec<u32>,
}

impl MqoExtras {
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// The object of each face when the record describes exactly `faces` faces, else `None`
    /// (the model was edited since the import).
    #[must_use]
    pub fn face_objects(&self, faces: usize) -> Option<Vec<Option<u32>>> {
        let total: u64 = self.face_runs.iter().map(|run| u64::from(run.faces)).sum();
        if total != faces as u64 {
            return None;
        }
        let mut objects = Vec::with_capacity(faces);
        for run in &self.face_runs {
            if run
                .object
                .is_some_and(|object| object as usize >= self.objects.len())
            {
                return None;
            }
            objects.extend(std::iter::repeat_n(run.object, run.faces as usize));
        }
        Some(objects)
    }
}
