//! `VRMC_node_constraint` (VRM 1.0) → PMX append (付与) rotation.
//!
//! A constraint makes a node follow the rotation of a source node, scaled by a weight. PMX's
//! append does the same with a bone's user rotation: the constrained bone gets
//! `APPEND_ROTATE`, the source bone as its append parent and the weight as the ratio.
//!
//! - **rotation**: an append rotation. MMD appends the source's rotation about the model's
//!   axes (its bones carry no rest rotation) where VRM turns each node in its own rest frame,
//!   so it is exact when the two nodes' rest orientations agree (the usual case of a twist
//!   bone beside its arm) and close otherwise.
//! - **roll**: the source's twist about one axis; PMX appends the whole rotation, so the roll
//!   is approximated by it (listed, `lost = false`: the arm twist it is made for is mostly
//!   that rotation).
//! - **aim**: pointing an axis at the source has no PMX counterpart; it is listed and left out
//!   (`lost = false`: the node still moves with its parent).
//!
//! A constraint without a valid source, one naming its own node, or one that would close an
//! append cycle is listed with its JSON location and skipped, so the model never gets an
//! append that MMD cannot evaluate.

use super::Importer;
use crate::i18n::Message;
use crate::model::{BoneFlags, BoneIdx};
use serde_json::Value;

const EXTENSION: &str = "VRMC_node_constraint";

/// One kind of constraint and the JSON field paths its notes name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Roll,
    Aim,
    Rotation,
}

impl Kind {
    fn key(self) -> &'static str {
        match self {
            Kind::Roll => "roll",
            Kind::Aim => "aim",
            Kind::Rotation => "rotation",
        }
    }

    fn field(self) -> &'static str {
        match self {
            Kind::Roll => "extensions.VRMC_node_constraint.constraint.roll",
            Kind::Aim => "extensions.VRMC_node_constraint.constraint.aim",
            Kind::Rotation => "extensions.VRMC_node_constraint.constraint.rotation",
        }
    }
}

const CONSTRAINT_FIELD: &str = "extensions.VRMC_node_constraint.constraint";

pub(super) fn build(import: &mut Importer<'_>) {
    // Constraints of a 0.x file or plain glTF are read too: the extension stands on its own.
    let node_count = import.nodes.len();
    let constraints: Vec<(usize, Value)> = import
        .gltf
        .list("nodes")
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .filter_map(|(node, value)| {
            value
                .get("extensions")
                .and_then(|e| e.get(EXTENSION))
                .map(|c| (node, c.clone()))
        })
        .collect();
    for (node, extension) in constraints {
        if node >= node_count || node >= import.node_bone.len() {
            continue;
        }
        let Some(constraint) = extension.get("constraint").and_then(Value::as_object) else {
            let location = import.gltf.at("nodes", Some(node), CONSTRAINT_FIELD);
            import.note(location, Message::new("load.vrm.constraint_empty"), true);
            continue;
        };
        let kinds: Vec<Kind> = [Kind::Roll, Kind::Aim, Kind::Rotation]
            .into_iter()
            .filter(|kind| constraint.contains_key(kind.key()))
            .collect();
        let [kind] = kinds.as_slice() else {
            let location = import.gltf.at("nodes", Some(node), CONSTRAINT_FIELD);
            import.note(
                location,
                Message::new("load.vrm.constraint_kinds").arg("count", kinds.len()),
                true,
            );
            continue;
        };
        let kind = *kind;
        let body = &constraint[kind.key()];
        let location = import.gltf.at("nodes", Some(node), kind.field());
        let source = body
            .get("source")
            .and_then(Value::as_u64)
            .and_then(|s| usize::try_from(s).ok());
        let Some(source) = source.filter(|&s| s < node_count) else {
            import.note(
                location,
                Message::new("load.vrm.constraint_no_source")
                    .arg("kind", kind.key())
                    .arg("count", node_count),
                true,
            );
            continue;
        };
        if source == node {
            import.note(
                location,
                Message::new("load.vrm.constraint_own_source").arg("kind", kind.key()),
                true,
            );
            continue;
        }
        // The spec's weight is 0..1, 1 when absent; other values are clamped into it.
        let weight = match body.get("weight") {
            None => 1.0,
            Some(value) => match value.as_f64().filter(|w| w.is_finite()) {
                Some(w) => w.clamp(0.0, 1.0) as f32,
                None => {
                    import.note(
                        location.clone(),
                        Message::new("load.vrm.constraint_weight").arg("kind", kind.key()),
                        true,
                    );
                    1.0
                }
            },
        };
        let destination = import.node_bone[node];
        let source_bone = import.node_bone[source];
        if kind == Kind::Aim {
            import.note(
                location,
                Message::new("load.vrm.constraint_aim")
                    .arg("bone", import.model.bones[destination].name_ja.to_string())
                    .arg(
                        "source",
                        import.model.bones[source_bone].name_ja.to_string(),
                    ),
                false,
            );
            continue;
        }
        if let Some(existing) = import.model.bones[destination]
            .has_append()
            .then_some(import.model.bones[destination].append_parent)
            .flatten()
        {
            let existing = import
                .model
                .bones
                .get(existing.get())
                .map(|b| b.name_ja.as_str().into_owned())
                .unwrap_or_default();
            import.note(
                location,
                Message::new("load.vrm.constraint_already_appends")
                    .arg("bone", import.model.bones[destination].name_ja.to_string())
                    .arg("existing", existing.to_string())
                    .arg("kind", kind.key()),
                false,
            );
            continue;
        }
        if appends_from(&import.model.bones, source_bone, destination) {
            import.note(
                location,
                Message::new("load.vrm.constraint_cycle")
                    .arg("kind", kind.key())
                    .arg("bone", import.model.bones[source_bone].name_ja.to_string()),
                true,
            );
            continue;
        }
        let bone = &mut import.model.bones[destination];
        bone.flags |= BoneFlags::APPEND_ROTATE;
        bone.append_parent = Some(BoneIdx::new(source_bone));
        bone.append_ratio = weight;
        if kind == Kind::Roll {
            let axis = body.get("rollAxis").and_then(Value::as_str).unwrap_or("X");
            let message = Message::new("load.vrm.constraint_roll")
                .arg("bone", import.model.bones[destination].name_ja.to_string())
                .arg("axis", axis)
                .arg(
                    "source",
                    import.model.bones[source_bone].name_ja.to_string(),
                )
                .arg("weight", weight);
            import.note(location, message, false);
        }
    }
}

/// Whether `from`'s chain of append parents reaches `bone` (so `bone` appending from `from`
/// would close a cycle). The walk stops after as many steps as there are bones, which a chain
/// without a cycle never needs.
fn appends_from(bones: &[crate::model::Bone], from: usize, bone: usize) -> bool {
    let mut current = Some(from);
    for _ in 0..=bones.len() {
        let Some(index) = current else {
            return false;
        };
        if index == bone {
            return true;
        }
        current = bones
            .get(index)
            .filter(|b| b.has_append())
            .and_then(|b| b.append_parent)
            .map(BoneIdx::get);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::appends_from;
    use crate::model::{Bone, BoneFlags, BoneIdx};

    fn appending(parent: usize) -> Bone {
        Bone {
            flags: Bone::default().flags | BoneFlags::APPEND_ROTATE,
            append_parent: Some(BoneIdx::new(parent)),
            ..Bone::default()
        }
    }

    #[test]
    fn a_chain_back_to_the_bone_is_a_cycle() {
        // 1 appends from 2, 2 from 0: 0 appending from 1 would loop.
        let bones = vec![Bone::default(), appending(2), appending(0)];
        assert!(appends_from(&bones, 1, 0));
        assert!(!appends_from(&bones, 0, 1));
        assert!(!appends_from(&bones, 2, 1));
    }
}
