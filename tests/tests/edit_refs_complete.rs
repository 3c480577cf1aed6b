//! Completeness of the reference visitors (`model::refs`), checked by an independent walk.
//!
//! Every element gets a unique identity (names; vertices a unique edge scale). A walk written
//! here, not using `model::refs`, lists every reference of the model by the identity of the
//! element it points at. After deleting any element of any kind, every reference must still
//! point at the same element, or, if that element is gone, be as README "Deleting" says: removed
//! with its list entry (faces, morph offsets, display frame items, IK links, anchors, pins;
//! joints of a deleted rigid body), moved to the deleted bone's nearest surviving ancestor
//! (parents, vertex weights, bone-following rigid bodies), or cleared. After moving, sorting or
//! inserting, every reference must point at the same element as before.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pmx_core::edit::{Edit, Elements, History, SortKey};
use pmx_core::generate::feature_model;
use pmx_core::model::*;
use std::collections::BTreeMap;

type Id = Option<String>;
/// References by holder: group name → items (each item a few references, in order).
type Groups = BTreeMap<String, Vec<Vec<Id>>>;

/// A model using every reference kind, with unique identities.
fn tagged_model() -> Model {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 48, 12);
    for (i, vertex) in model.vertices.iter_mut().enumerate() {
        vertex.edge_scale = i as f32 + 0.5;
    }
    for (i, texture) in model.textures.iter_mut().enumerate() {
        *texture = format!("tex/unique{i}.png").into();
    }
    for (i, m) in model.materials.iter_mut().enumerate() {
        m.name_ja = format!("材質#{i}").into();
    }
    for (i, b) in model.bones.iter_mut().enumerate() {
        b.name_ja = format!("ボーン#{i}").into();
    }
    for (i, m) in model.morphs.iter_mut().enumerate() {
        m.name_ja = format!("モーフ#{i}").into();
    }
    for (i, f) in model.display_frames.iter_mut().enumerate() {
        f.name_ja = format!("枠#{i}").into();
    }
    for (i, b) in model.rigid_bodies.iter_mut().enumerate() {
        b.name_ja = format!("剛体#{i}").into();
    }
    for (i, j) in model.joints.iter_mut().enumerate() {
        j.name_ja = format!("J#{i}").into();
    }
    for (i, s) in model.soft_bodies.iter_mut().enumerate() {
        s.name_ja = format!("S#{i}").into();
    }
    // A second soft body and extra references so that every kind is referenced several times.
    let mut second = model.soft_bodies[0].clone();
    second.name_ja = "S#1".into();
    second.material = Some(MaterialIdx::new(0));
    model.soft_bodies.push(second);
    model.bones[5].parent = Some(BoneIdx::new(3));
    model.bones[6].append_parent = Some(BoneIdx::new(3));
    model.materials[1].texture = Some(TextureIdx::new(3));
    model.materials[2].toon = Toon::Texture(Some(TextureIdx::new(3)));
    model
}

fn vertex_id(model: &Model, v: VertexIdx) -> Id {
    Some(
        model
            .vertices
            .get(v.get())
            .map_or("dangling".into(), |x| format!("v{}", x.edge_scale)),
    )
}

macro_rules! id_fn {
    ($name:ident, $idx:ty, $list:ident, $prefix:literal, $key:expr) => {
        fn $name(model: &Model, index: Option<$idx>) -> Id {
            index.map(|i| {
                model.$list.get(i.get()).map_or("dangling".into(), |x| {
                    format!(concat!($prefix, "{}"), $key(x))
                })
            })
        }
    };
}

id_fn!(texture_id, TextureIdx, textures, "t:", |t: &Text| t
    .to_string());
id_fn!(material_id, MaterialIdx, materials, "m:", |m: &Material| m
    .name_ja
    .to_string());
id_fn!(bone_id, BoneIdx, bones, "b:", |b: &Bone| b
    .name_ja
    .to_string());
id_fn!(morph_id, MorphIdx, morphs, "mo:", |m: &Morph| m
    .name_ja
    .to_string());
id_fn!(
    body_id,
    RigidBodyIdx,
    rigid_bodies,
    "r:",
    |r: &RigidBody| r.name_ja.to_string()
);

/// Every reference of `model`, by the identity of its target — written without `model::refs`.
fn walk(model: &Model) -> Groups {
    let mut groups = Groups::new();
    for vertex in &model.vertices {
        // The bones a vertex follows, as a set: deleting a bone merges its weight into another
        // slot and may simplify the weight type, so slots are not kept.
        let mut bones: Vec<Id> = vertex
            .weight
            .bones()
            .iter()
            .filter(|b| b.is_some())
            .map(|&b| bone_id(model, b))
            .collect();
        bones.sort();
        bones.dedup();
        groups.insert(format!("vertex:{}", vertex.edge_scale), vec![bones]);
    }
    let mut start = 0usize;
    for material in &model.materials {
        let end = start + material.face_index_count as usize / 3;
        let faces = model.faces[start.min(model.faces.len())..end.min(model.faces.len())]
            .iter()
            .map(|face| face.iter().map(|&v| vertex_id(model, v)).collect())
            .collect();
        groups.insert(format!("material:{}.faces", material.name_ja), faces);
        let toon = match material.toon {
            Toon::Shared(n) => Some(format!("shared:{n}")),
            Toon::Texture(t) => texture_id(model, t),
        };
        groups.insert(
            format!("material:{}", material.name_ja),
            vec![vec![
                texture_id(model, material.texture),
                texture_id(model, material.sphere_texture),
                toon,
            ]],
        );
        start = end;
    }
    let unassigned = model.faces[start.min(model.faces.len())..]
        .iter()
        .map(|face| face.iter().map(|&v| vertex_id(model, v)).collect())
        .collect();
    groups.insert("faces:unassigned".into(), unassigned);
    for bone in &model.bones {
        groups.insert(
            format!("bone:{}", bone.name_ja),
            vec![vec![
                bone_id(model, bone.parent),
                bone_id(model, bone.tail_bone),
                bone_id(model, bone.append_parent),
                bone_id(model, bone.ik.target),
            ]],
        );
        groups.insert(
            format!("bone:{}.ik.links", bone.name_ja),
            bone.ik
                .links
                .iter()
                .map(|l| vec![bone_id(model, l.bone)])
                .collect(),
        );
    }
    for morph in &model.morphs {
        let items: Vec<Vec<Id>> = match &morph.offsets {
            MorphOffsets::Group(o) | MorphOffsets::Flip(o) => {
                o.iter().map(|x| vec![morph_id(model, x.morph)]).collect()
            }
            MorphOffsets::Vertex(o) => o.iter().map(|x| vec![vertex_id(model, x.vertex)]).collect(),
            MorphOffsets::Bone(o) => o.iter().map(|x| vec![bone_id(model, x.bone)]).collect(),
            MorphOffsets::Uv(o)
            | MorphOffsets::AdditionalUv1(o)
            | MorphOffsets::AdditionalUv2(o)
            | MorphOffsets::AdditionalUv3(o)
            | MorphOffsets::AdditionalUv4(o) => {
                o.iter().map(|x| vec![vertex_id(model, x.vertex)]).collect()
            }
            MorphOffsets::Material(o) => o
                .iter()
                .map(|x| vec![material_id(model, x.material)])
                .collect(),
            MorphOffsets::Impulse(o) => o
                .iter()
                .map(|x| vec![body_id(model, x.rigid_body)])
                .collect(),
        };
        groups.insert(format!("morph:{}.offsets", morph.name_ja), items);
    }
    for frame in &model.display_frames {
        let items = frame
            .items
            .iter()
            .map(|item| match *item {
                DisplayItem::Bone(b) => vec![bone_id(model, b)],
                DisplayItem::Morph(m) => vec![morph_id(model, m)],
            })
            .collect();
        groups.insert(format!("frame:{}.items", frame.name_ja), items);
    }
    for body in &model.rigid_bodies {
        groups.insert(
            format!("rigid:{}", body.name_ja),
            vec![vec![bone_id(model, body.bone)]],
        );
    }
    for joint in &model.joints {
        groups.insert(
            format!("joint:{}", joint.name_ja),
            vec![vec![
                body_id(model, joint.body_a),
                body_id(model, joint.body_b),
            ]],
        );
    }
    for soft in &model.soft_bodies {
        groups.insert(
            format!("soft:{}", soft.name_ja),
            vec![vec![material_id(model, soft.material)]],
        );
        groups.insert(
            format!("soft:{}.anchors", soft.name_ja),
            soft.anchors
                .iter()
                .map(|a| vec![body_id(model, a.rigid_body), vertex_id(model, a.vertex)])
                .collect(),
        );
        groups.insert(
            format!("soft:{}.pins", soft.name_ja),
            soft.pinned_vertices
                .iter()
                .map(|&v| vec![vertex_id(model, v)])
                .collect(),
        );
    }
    groups
}

/// The group owner and reference identity of element `index` of `kind`.
fn identity(model: &Model, kind: ElementKind, index: usize) -> (String, Option<String>) {
    match kind {
        ElementKind::Vertex => {
            let tag = model.vertices[index].edge_scale;
            (format!("vertex:{tag}"), Some(format!("v{tag}")))
        }
        ElementKind::Face => (format!("face {index}"), None),
        ElementKind::Texture => (String::new(), Some(format!("t:{}", model.textures[index]))),
        ElementKind::Material => {
            let name = &model.materials[index].name_ja;
            (format!("material:{name}"), Some(format!("m:{name}")))
        }
        ElementKind::Bone => {
            let name = &model.bones[index].name_ja;
            (format!("bone:{name}"), Some(format!("b:{name}")))
        }
        ElementKind::Morph => {
            let name = &model.morphs[index].name_ja;
            (format!("morph:{name}"), Some(format!("mo:{name}")))
        }
        ElementKind::DisplayFrame => (
            format!("frame:{}", model.display_frames[index].name_ja),
            None,
        ),
        ElementKind::RigidBody => {
            let name = &model.rigid_bodies[index].name_ja;
            (format!("rigid:{name}"), Some(format!("r:{name}")))
        }
        ElementKind::Joint => (format!("joint:{}", model.joints[index].name_ja), None),
        ElementKind::SoftBody => (format!("soft:{}", model.soft_bodies[index].name_ja), None),
    }
}

/// What `walk` must find after deleting element `index` of `kind` from `before`.
fn expected_after_delete(before: &Model, kind: ElementKind, index: usize) -> Groups {
    let mut groups = walk(before);
    let (owner, id) = identity(before, kind, index);
    if !owner.is_empty() {
        groups.retain(|key, _| *key != owner && !key.starts_with(&format!("{owner}.")));
    }
    match kind {
        ElementKind::Vertex => {
            for items in groups.values_mut() {
                items.retain(|item| !item.contains(&id));
            }
        }
        ElementKind::Face => {
            let mut start = 0usize;
            let mut found = false;
            for material in &before.materials {
                let end = start + material.face_index_count as usize / 3;
                if (start..end).contains(&index) {
                    let key = format!("material:{}.faces", material.name_ja);
                    groups.get_mut(&key).unwrap().remove(index - start);
                    found = true;
                    break;
                }
                start = end;
            }
            if !found {
                groups
                    .get_mut("faces:unassigned")
                    .unwrap()
                    .remove(index - start);
            }
        }
        _ => {
            if id.is_some() {
                deleted_reference_goes(before, kind, index, &id, &mut groups);
            }
        }
    }
    groups
}

/// What happens to the references to the deleted element `id` (README, "Deleting").
fn deleted_reference_goes(
    before: &Model,
    kind: ElementKind,
    index: usize,
    id: &Id,
    groups: &mut Groups,
) {
    // A bone's role goes to its nearest surviving ancestor; the deleted root's to the first
    // remaining bone (weights and bone-following rigid bodies only).
    // (One bone is deleted, so its parent is that ancestor.)
    let ancestor = before
        .bones
        .get(index)
        .filter(|_| kind == ElementKind::Bone)
        .and_then(|b| b.parent)
        .filter(|p| p.get() != index)
        .and_then(|p| bone_id(before, Some(p)));
    let first_bone = bone_id(before, Some(BoneIdx::new(usize::from(index == 0))));
    let list = |key: &str| {
        [".ik.links", ".offsets", ".items", ".anchors", ".pins"]
            .iter()
            .any(|suffix| key.ends_with(suffix))
    };
    // Joints of a deleted rigid body go with it.
    groups.retain(|key, items| {
        !(key.starts_with("joint:") && items.iter().flatten().any(|r| r == id))
    });
    for (key, items) in groups.iter_mut() {
        if list(key) {
            items.retain(|item| !item.contains(id));
            continue;
        }
        let follows_bone = key.strip_prefix("rigid:").is_some_and(|name| {
            before
                .rigid_bodies
                .iter()
                .any(|b| b.name_ja.to_string() == name && b.mode == RigidMode::FollowBone)
        });
        let is_vertex = key.starts_with("vertex:");
        for item in items.iter_mut() {
            for (slot, reference) in item.iter_mut().enumerate() {
                if reference != id {
                    continue;
                }
                *reference = if key.starts_with("bone:") && slot == 0 {
                    ancestor.clone()
                } else if is_vertex || follows_bone {
                    ancestor.clone().or_else(|| first_bone.clone())
                } else {
                    None
                };
            }
            if is_vertex {
                item.sort();
                item.dedup();
            }
        }
    }
}

fn assert_same_groups(actual: &Groups, expected: &Groups, context: &str) {
    if actual == expected {
        return;
    }
    for (key, items) in expected {
        match actual.get(key) {
            None => panic!("{context}: group {key} is missing"),
            Some(found) if found != items => {
                panic!("{context}: {key} is {found:?}, expected {items:?}")
            }
            _ => {}
        }
    }
    let extra: Vec<&String> = actual
        .keys()
        .filter(|k| !expected.contains_key(*k))
        .collect();
    panic!("{context}: unexpected groups {extra:?}");
}

fn apply_and_undo(before: &Model, edit: Edit) -> Model {
    let mut model = before.clone();
    let mut history = History::new();
    history.apply(&mut model, edit);
    let after = model.clone();
    history.undo(&mut model);
    assert!(model == *before, "undo restores the model");
    after
}

#[test]
fn deleting_any_element_leaves_no_wrong_reference() {
    let before = tagged_model();
    let mut checked = 0;
    for kind in ElementKind::ALL {
        for index in 0..before.count(kind) {
            if kind == ElementKind::DisplayFrame && before.display_frames[index].special {
                continue;
            }
            let context = format!("delete {} {index}", kind.name());
            let edit =
                Edit::delete(&before, kind, &[index]).unwrap_or_else(|e| panic!("{context}: {e}"));
            let after = apply_and_undo(&before, edit);
            assert_eq!(after.count(kind), before.count(kind) - 1, "{context}");
            assert_same_groups(
                &walk(&after),
                &expected_after_delete(&before, kind, index),
                &context,
            );
            checked += 1;
        }
    }
    assert!(checked > 150, "checked {checked} deletions");
}

#[test]
fn deleting_several_elements_at_once_leaves_no_wrong_reference() {
    let before = tagged_model();
    for kind in [
        ElementKind::Bone,
        ElementKind::Morph,
        ElementKind::RigidBody,
        ElementKind::Texture,
        ElementKind::Material,
    ] {
        let indices = [1, 3, 4];
        let edit = Edit::delete(&before, kind, &indices).unwrap();
        let after = apply_and_undo(&before, edit);
        // Deleting several is deleting them one by one from the highest index down.
        let mut expected_model = before.clone();
        let mut history = History::new();
        for &index in indices.iter().rev() {
            let edit = Edit::delete(&expected_model, kind, &[index]).unwrap();
            history.apply(&mut expected_model, edit);
        }
        assert_same_groups(
            &walk(&after),
            &walk(&expected_model),
            &format!("delete {} {indices:?}", kind.name()),
        );
    }
}

#[test]
fn reordering_and_inserting_keep_every_reference() {
    let before = tagged_model();
    let groups = walk(&before);
    for kind in ElementKind::ALL {
        if kind == ElementKind::Face {
            continue; // a face's place is its material: moving faces changes what draws them
        }
        let last = before.count(kind) - 1;
        for edit in [
            Edit::move_by(&before, kind, &[0], 1).unwrap(),
            Edit::move_to(&before, kind, &[last], 0).unwrap(),
            Edit::move_to(&before, kind, &[1, last], (last - 1).min(2)).unwrap(),
        ] {
            let context = format!("{} ({})", edit.label(), kind.name());
            let after = apply_and_undo(&before, edit);
            assert_same_groups(&walk(&after), &groups, &context);
        }
    }
    let sorts = [
        (ElementKind::Bone, SortKey::Hierarchy),
        (ElementKind::Bone, SortKey::Name),
        (ElementKind::Morph, SortKey::Panel),
        (ElementKind::Material, SortKey::Transparency),
        (ElementKind::Material, SortKey::Name),
        (ElementKind::Texture, SortKey::Name),
        (ElementKind::RigidBody, SortKey::Name),
        (ElementKind::DisplayFrame, SortKey::Name),
    ];
    for (kind, key) in sorts {
        let edit = Edit::sort(&before, kind, key).unwrap();
        let context = edit.label().to_owned();
        let after = apply_and_undo(&before, edit);
        assert_same_groups(&walk(&after), &groups, &context);
    }

    let fresh: Vec<Elements> = vec![
        Elements::Vertices {
            vertices: vec![Vertex {
                edge_scale: 99_999.5,
                ..Vertex::default()
            }],
            additional_uvs: Vec::new(),
        },
        Elements::Textures(vec!["tex/fresh.png".into()]),
        Elements::Bones(vec![Bone {
            name_ja: "fresh".into(),
            ..Bone::default()
        }]),
        Elements::Morphs(vec![Morph {
            name_ja: "fresh".into(),
            name_en: "".into(),
            panel: MorphPanel::Other,
            offsets: MorphOffsets::Group(Vec::new()),
        }]),
        Elements::RigidBodies(vec![RigidBody {
            name_ja: "fresh".into(),
            ..RigidBody::default()
        }]),
        Elements::Joints(vec![Joint {
            name_ja: "fresh".into(),
            ..Joint::default()
        }]),
    ];
    for elements in fresh {
        let kind = elements.kind().unwrap();
        for at in [0, 1] {
            let edit = Edit::insert(&before, at, elements.clone()).unwrap();
            let context = format!("{} at {at}", edit.label());
            let after = apply_and_undo(&before, edit);
            let mut found = walk(&after);
            let (owner, _) = identity(&after, kind, at);
            found.retain(|key, _| *key != owner && !key.starts_with(&format!("{owner}.")));
            assert_same_groups(&found, &groups, &context);
        }
    }
    let material = Material {
        name_ja: "fresh".into(),
        ..Material::default()
    };
    let edit =
        Edit::insert_materials(&before, 1, vec![material], vec![vec![before.faces[0]]]).unwrap();
    let after = apply_and_undo(&before, edit);
    let mut found = walk(&after);
    found.retain(|key, _| !key.starts_with("material:fresh"));
    assert_same_groups(&found, &groups, "insert a material with a face");
}
