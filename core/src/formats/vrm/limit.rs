//! `VRMC_springBone_limit` 1.0-draft in the VRM file: the limit's JSON. The limit maths itself
//! (the shapes, the limit frame, the shape chosen from swing ranges) is
//! [`crate::physics::spring_limit`], and the limit of an MMD joint (its rotation limits brought
//! into glTF space and into the limit frame) [`crate::physics::mmd_limit`], both shared with the
//! spring preview.

use crate::physics::spring_limit::{LimitShape, SpringLimit};
use glam::Quat;
use serde_json::{Value, json};
use std::f32::consts::{FRAC_PI_2, PI};

/// The version this module writes (`VRMC_springBone_limit.specVersion`).
pub const SPEC_VERSION: &str = "1.0-draft";

/// The `VRMC_springBone_limit` object of a joint. Angles are clamped to the ranges the schema
/// allows (cone and hinge angle and spherical pitch 0..=π, spherical yaw 0..=π/2); the
/// rotation is left out when it is the identity (the schema's default).
#[must_use]
pub fn limit_json(limit: &SpringLimit) -> Value {
    let angle = |a: f32, max: f32| {
        if a.is_finite() {
            f64::from(a.clamp(0.0, max))
        } else {
            0.0
        }
    };
    let mut shape = match limit.shape {
        LimitShape::Cone { angle: a } => json!({ "angle": angle(a, PI) }),
        LimitShape::Hinge { angle: a } => json!({ "angle": angle(a, PI) }),
        LimitShape::Spherical { pitch, yaw } => {
            json!({ "pitch": angle(pitch, PI), "yaw": angle(yaw, FRAC_PI_2) })
        }
    };
    let rotation = limit.rotation.normalize();
    if rotation.is_finite() && !rotation.abs_diff_eq(Quat::IDENTITY, 1e-7) {
        shape["rotation"] = json!(rotation.to_array().map(f64::from));
    }
    let kind = match limit.shape {
        LimitShape::Cone { .. } => "cone",
        LimitShape::Hinge { .. } => "hinge",
        LimitShape::Spherical { .. } => "spherical",
    };
    json!({ "specVersion": SPEC_VERSION, "limit": { kind: shape } })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn json_has_the_spec_version_and_one_shape() {
        let value = limit_json(&SpringLimit {
            shape: LimitShape::Cone { angle: 0.5 },
            rotation: Quat::IDENTITY,
        });
        assert_eq!(value["specVersion"], "1.0-draft");
        assert_eq!(value["limit"]["cone"]["angle"], 0.5);
        assert!(value["limit"]["cone"].get("rotation").is_none());
        let value = limit_json(&SpringLimit {
            shape: LimitShape::Spherical {
                pitch: 0.5,
                yaw: 3.0,
            },
            rotation: Quat::from_rotation_x(0.1),
        });
        assert_eq!(value["limit"].as_object().unwrap().len(), 1);
        assert_eq!(value["limit"]["spherical"]["yaw"], f64::from(FRAC_PI_2));
        assert_eq!(
            value["limit"]["spherical"]["rotation"]
                .as_array()
                .unwrap()
                .len(),
            4
        );
    }
}
