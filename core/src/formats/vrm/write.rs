//! The writer: checks, humanoid, T-pose, skeleton, meshes, materials, expressions, GLB.

use super::expressions::{Targets, expressions};
use super::glb::Builder;
use super::humanoid::{
    BoneRole, HumanBone, HumanoidMap, exported_ancestor, fold_name, map_bones_with,
};
use super::material::write_materials;
use super::report::{SpringCounts, VrmExportReport, VrmLoss};
use super::springs::{SpringBones, node_constraints, spring_bones};
use super::tpose::bake_t_pose;
use super::{VRM_LICENSE_URL, VrmExport, VrmExportOptions, direction_to_gltf, to_gltf};
use crate::formats::WriteError;
use crate::model::{ElementKind, Model, MorphOffsets, RigidMode, Weight};
use crate::path::ModelPath;
use crate::pose::{Pose, PoseEvaluator};
use glam::Vec3;
use gltf_json as json;
use json::accessor::Type;
use json::validation::Checked;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};

/// `path` is a model path (`bones[3]`) or the name of a part of the export (`humanoid`).
fn invalid(path: String, message: impl Into<crate::i18n::Message>) -> WriteError {
    WriteError::Unrepresentable {
        path,
        message: message.into(),
    }
}

/// Rejects what no VRM can be made of, naming the element.
fn check_model(model: &Model) -> Result<(), WriteError> {
    if model.bones.is_empty() {
        return Err(invalid(
            ModelPath::list(ElementKind::Bone).to_string(),
            "the model has no bones; a VRM needs a humanoid skeleton",
        ));
    }
    for (i, bone) in model.bones.iter().enumerate() {
        if !bone.position.is_finite() {
            return Err(invalid(
                ModelPath::element(ElementKind::Bone, i).to_string(),
                "the position is not a number",
            ));
        }
    }
    let vertex_count = model.vertices.len();
    for (i, vertex) in model.vertices.iter().enumerate() {
        if !vertex.position.is_finite() || !vertex.uv.is_finite() {
            return Err(invalid(
                ModelPath::element(ElementKind::Vertex, i).to_string(),
                "the position or UV is not a number",
            ));
        }
        let weights_finite = vertex
            .weight
            .bone_weights()
            .iter()
            .all(|(_, w)| w.is_finite());
        if !weights_finite {
            return Err(invalid(
                ModelPath::element(ElementKind::Vertex, i).to_string(),
                "a weight is not a number",
            ));
        }
    }
    for (i, face) in model.faces.iter().enumerate() {
        if let Some(corner) = face.iter().find(|v| v.get() >= vertex_count) {
            return Err(invalid(
                ModelPath::element(ElementKind::Face, i).to_string(),
                format!(
                    "refers to vertex {} but the model has {vertex_count} vertices",
                    corner.get()
                ),
            ));
        }
    }
    for (i, morph) in model.morphs.iter().enumerate() {
        if let MorphOffsets::Vertex(offsets) = &morph.offsets {
            for offset in offsets {
                if offset.vertex.get() >= vertex_count || !offset.offset.is_finite() {
                    return Err(invalid(
                        ModelPath::element(ElementKind::Morph, i).to_string(),
                        format!(
                            "an offset of vertex {} is past the vertex list or not a number",
                            offset.vertex.get()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// One node of the exported skeleton.
#[derive(Debug, Clone)]
struct SkeletonNode {
    name: String,
    /// Model-space position in MMD coordinates (T-posed).
    position: Vec3,
    parent: Option<usize>,
}

/// The exported skeleton: nodes (glTF nodes 0..n, which are also the skin's joints in order).
struct Skeleton {
    nodes: Vec<SkeletonNode>,
    node_of_bone: Vec<Option<usize>>,
    hips: usize,
    hips_added: bool,
}

fn build_skeleton(model: &Model, map: &HumanoidMap) -> Result<Skeleton, WriteError> {
    let keep = |i: usize| matches!(map.roles.get(i), Some(BoneRole::Node));
    let mut node_of_bone = vec![None; model.bones.len()];
    let mut nodes = Vec::new();
    for (i, bone) in model.bones.iter().enumerate() {
        if keep(i) {
            node_of_bone[i] = Some(nodes.len());
            nodes.push(SkeletonNode {
                name: bone.name_ja.as_str().into_owned(),
                position: Vec3::from(bone.position),
                parent: None,
            });
        }
    }
    for (i, node) in node_of_bone.iter().enumerate() {
        let Some(node) = *node else { continue };
        nodes[node].parent = exported_ancestor(model, i, keep).and_then(|p| node_of_bone[p]);
    }
    // A parent loop in a broken model would make the node tree a cycle: cut it.
    for start in 0..nodes.len() {
        let mut current = nodes[start].parent;
        let mut steps = 0;
        while let Some(p) = current {
            steps += 1;
            if p == start || steps > nodes.len() {
                nodes[start].parent = None;
                break;
            }
            current = nodes[p].parent;
        }
    }
    let node = |bone: HumanBone| map.get(bone).and_then(|b| node_of_bone[b]);
    let (Some(spine), Some(left_leg), Some(right_leg)) = (
        node(HumanBone::Spine),
        node(HumanBone::LeftUpperLeg),
        node(HumanBone::RightUpperLeg),
    ) else {
        return Err(WriteError::MissingHumanoidBones {
            bones: vec!["spine (上半身) / upperLeg (左足, 右足)".into()],
        });
    };
    let chain = |start: usize| {
        let mut out = vec![start];
        let mut current = nodes[start].parent;
        while let Some(p) = current {
            out.push(p);
            current = nodes[p].parent;
        }
        out
    };
    let spine_chain = chain(spine);
    let left_chain = chain(left_leg);
    let right_chain = chain(right_leg);
    let common = spine_chain
        .iter()
        .copied()
        .find(|n| left_chain.contains(n) && right_chain.contains(n));
    if let Some(common) = common
        && [spine, left_leg, right_leg].contains(&common)
    {
        return Err(invalid(
            "humanoid".into(),
            format!(
                "\"{}\" is an ancestor of the other of 上半身, 左足 and 右足; VRM needs the spine and both legs to branch from the hips",
                nodes[common].name
            ),
        ));
    }
    if let Some(common) = common
        && matches!(fold_name(&nodes[common].name).as_str(), "腰" | "waist")
    {
        return Ok(Skeleton {
            nodes,
            node_of_bone,
            hips: common,
            hips_added: false,
        });
    }
    // The pelvis: 下半身's position, else the spine's.
    let pelvis = model
        .bones
        .iter()
        .enumerate()
        .find(|(i, bone)| {
            keep(*i)
                && matches!(
                    fold_name(&bone.name_ja.as_str()).as_str(),
                    "下半身" | "lowerbody"
                )
        })
        .map_or(nodes[spine].position, |(_, bone)| Vec3::from(bone.position));
    let hips = nodes.len();
    nodes.push(SkeletonNode {
        name: "hips".into(),
        position: pelvis,
        parent: common,
    });
    // The nodes just below the common ancestor on the way to the spine and the legs.
    for chain in [&spine_chain, &left_chain, &right_chain] {
        let below = match common {
            Some(common) => chain
                .iter()
                .position(|&n| n == common)
                .and_then(|at| at.checked_sub(1))
                .map(|at| chain[at]),
            None => chain.last().copied(),
        };
        if let Some(below) = below {
            nodes[below].parent = Some(hips);
        }
    }
    Ok(Skeleton {
        nodes,
        node_of_bone,
        hips,
        hips_added: true,
    })
}

/// Per-vertex joints and weights (top four, merged per node, normalised).
struct Skinning {
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
}

fn skin_vertices(
    model: &Model,
    map: &HumanoidMap,
    skeleton: &Skeleton,
    losses: &mut Vec<VrmLoss>,
) -> Skinning {
    let keep = |i: usize| matches!(map.roles.get(i), Some(BoneRole::Node));
    let node_for_bone = |bone: usize| -> Option<usize> {
        let bone = match map.roles.get(bone)? {
            BoneRole::Node => bone,
            BoneRole::Redirected { to } => *to,
            BoneRole::Ik => exported_ancestor(model, bone, keep)?,
        };
        skeleton.node_of_bone.get(bone).copied().flatten()
    };
    // VRM applications move the hips, never the nodes above it (センター, グルーブ, 全ての親):
    // skin weighted to those would stay behind, so it goes with the hips.
    let mut above_hips = vec![false; skeleton.nodes.len()];
    let mut current = skeleton.nodes[skeleton.hips].parent;
    while let Some(node) = current {
        if above_hips[node] {
            break;
        }
        above_hips[node] = true;
        current = skeleton.nodes[node].parent;
    }
    let mut moved_to_hips = 0usize;
    let (mut sdef, mut qdef, mut normalised) = (0, 0, 0);
    let mut joints = Vec::with_capacity(model.vertices.len());
    let mut weights = Vec::with_capacity(model.vertices.len());
    for vertex in &model.vertices {
        match vertex.weight {
            Weight::Sdef { .. } => sdef += 1,
            Weight::Qdef { .. } => qdef += 1,
            _ => {}
        }
        let mut merged: Vec<(usize, f32)> = Vec::with_capacity(4);
        for (bone, weight) in vertex.weight.bone_weights() {
            let Some(mut node) = bone.and_then(|b| node_for_bone(b.get())) else {
                continue;
            };
            if weight <= 0.0 {
                continue;
            }
            if above_hips[node] {
                node = skeleton.hips;
                moved_to_hips += 1;
            }
            match merged.iter_mut().find(|(n, _)| *n == node) {
                Some(entry) => entry.1 += weight,
                None => merged.push((node, weight)),
            }
        }
        merged.sort_by(|a, b| b.1.total_cmp(&a.1));
        merged.truncate(4);
        let sum: f32 = merged.iter().map(|(_, w)| w).sum();
        if merged.is_empty() || sum <= 0.0 {
            merged = vec![(skeleton.hips, 1.0)];
            normalised += 1;
        } else if (sum - 1.0).abs() > 1e-3 {
            normalised += 1;
        }
        let sum: f32 = merged.iter().map(|(_, w)| w).sum();
        let mut j = [0u16; 4];
        let mut w = [0f32; 4];
        for (slot, (node, weight)) in merged.iter().enumerate() {
            j[slot] = u16::try_from(*node).unwrap_or(0);
            w[slot] = weight / sum;
        }
        joints.push(j);
        weights.push(w);
    }
    if moved_to_hips > 0 {
        losses.push(VrmLoss::WeightsMovedToHips {
            weights: moved_to_hips,
        });
    }
    if sdef + qdef > 0 {
        losses.push(VrmLoss::SkinningAsLinear { sdef, qdef });
    }
    if normalised > 0 {
        losses.push(VrmLoss::WeightsNormalised {
            vertices: normalised,
        });
    }
    Skinning { joints, weights }
}

/// A morph target: the morph and each moved vertex's offset (MMD units, T-posed space).
struct MorphTarget {
    morph: usize,
    name: String,
    offsets: HashMap<usize, Vec3>,
    normal_deltas: HashMap<usize, Vec3>,
}

/// Vertex morphs' offsets, and bone morphs' vertex movement worked out by the pose engine.
fn morph_targets(model: &Model, losses: &mut Vec<VrmLoss>) -> Vec<MorphTarget> {
    let mut targets = Vec::new();
    let mut evaluator: Option<(PoseEvaluator, Vec<Vec3>)> = None;
    let mut baked = 0;
    for (index, morph) in model.morphs.iter().enumerate() {
        let offsets: HashMap<usize, Vec3> = match &morph.offsets {
            MorphOffsets::Vertex(offsets) => {
                let mut moved = HashMap::new();
                for offset in offsets {
                    let value = Vec3::from(offset.offset);
                    if value != Vec3::ZERO {
                        *moved.entry(offset.vertex.get()).or_insert(Vec3::ZERO) += value;
                    }
                }
                moved
            }
            MorphOffsets::Bone(offsets) if !offsets.is_empty() => {
                if evaluator.is_none() {
                    let mut rest = PoseEvaluator::new(model);
                    if rest.evaluate(model, &Pose::new(model)).is_err() {
                        continue;
                    }
                    let positions = rest.positions().to_vec();
                    evaluator = Some((rest, positions));
                }
                let Some((evaluator, rest)) = evaluator.as_mut() else {
                    continue;
                };
                let mut pose = Pose::new(model);
                pose.morphs[index] = 1.0;
                if evaluator.evaluate(model, &pose).is_err() {
                    continue;
                }
                baked += 1;
                evaluator
                    .positions()
                    .iter()
                    .zip(rest.iter())
                    .enumerate()
                    .filter_map(|(v, (posed, rest))| {
                        let delta = *posed - *rest;
                        (delta.is_finite() && delta.length() > 1e-5).then_some((v, delta))
                    })
                    .collect()
            }
            _ => continue,
        };
        if offsets.is_empty() {
            continue;
        }
        targets.push(MorphTarget {
            morph: index,
            name: morph.name_ja.as_str().into_owned(),
            offsets,
            normal_deltas: HashMap::new(),
        });
    }
    if baked > 0 {
        losses.push(VrmLoss::BoneMorphsBaked { count: baked });
    }
    targets
}

/// Fills each target's normal deltas: the area-weighted face normals of the displaced mesh
/// minus those of the rest mesh, at every corner of a face that a moved vertex touches.
fn compute_normal_deltas(model: &Model, drawn_faces: &[usize], targets: &mut [MorphTarget]) {
    let mut faces_of_vertex: Vec<Vec<usize>> = vec![Vec::new(); model.vertices.len()];
    for &face in drawn_faces {
        for corner in model.faces[face] {
            faces_of_vertex[corner.get()].push(face);
        }
    }
    let face_normal = |face: usize, offsets: &HashMap<usize, Vec3>| {
        let [a, b, c] = model.faces[face].map(|v| {
            let i = v.get();
            Vec3::from(model.vertices[i].position) + offsets.get(&i).copied().unwrap_or(Vec3::ZERO)
        });
        // With MMD's winding and coordinates this points out of the front face (checked
        // against the sample model's authored normals).
        (b - a).cross(c - a)
    };
    let none = HashMap::new();
    for target in targets {
        let mut corners = BTreeSet::new();
        for &vertex in target.offsets.keys() {
            for &face in &faces_of_vertex[vertex] {
                corners.extend(model.faces[face].iter().map(|v| v.get()));
            }
        }
        for vertex in corners {
            let (mut rest, mut moved) = (Vec3::ZERO, Vec3::ZERO);
            for &face in &faces_of_vertex[vertex] {
                rest += face_normal(face, &none);
                moved += face_normal(face, &target.offsets);
            }
            let (Some(rest), Some(moved)) = (rest.try_normalize(), moved.try_normalize()) else {
                continue;
            };
            let delta = moved - rest;
            if delta.length() > 1e-6 {
                target.normal_deltas.insert(vertex, delta);
            }
        }
    }
}

/// The meta object, from the options and the model.
fn meta(model: &Model, options: &VrmExportOptions) -> Value {
    let meta = &options.meta;
    let name = meta.name.clone().unwrap_or_else(|| {
        let ja = model.info.name_ja.as_str().trim().to_owned();
        let en = model.info.name_en.as_str().trim().to_owned();
        [ja, en]
            .into_iter()
            .find(|n| !n.is_empty())
            .unwrap_or_else(|| "model".into())
    });
    let mut authors: Vec<String> = meta
        .authors
        .iter()
        .map(|a| a.trim().to_owned())
        .filter(|a| !a.is_empty())
        .collect();
    if authors.is_empty() {
        authors.push(author_from_comment(model).unwrap_or_else(|| "unknown".into()));
    }
    let mut out = serde_json::Map::new();
    out.insert("name".into(), json!(name));
    if let Some(version) = &meta.version {
        out.insert("version".into(), json!(version));
    }
    out.insert("authors".into(), json!(authors));
    for (key, value) in [
        ("copyrightInformation", &meta.copyright_information),
        ("contactInformation", &meta.contact_information),
        ("thirdPartyLicenses", &meta.third_party_licenses),
        ("otherLicenseUrl", &meta.other_license_url),
    ] {
        if let Some(value) = value {
            out.insert(key.into(), json!(value));
        }
    }
    if !meta.references.is_empty() {
        out.insert("references".into(), json!(meta.references));
    }
    out.insert("licenseUrl".into(), json!(VRM_LICENSE_URL));
    out.insert(
        "avatarPermission".into(),
        json!(meta.avatar_permission.as_str()),
    );
    out.insert(
        "allowExcessivelyViolentUsage".into(),
        json!(meta.allow_excessively_violent_usage),
    );
    out.insert(
        "allowExcessivelySexualUsage".into(),
        json!(meta.allow_excessively_sexual_usage),
    );
    out.insert(
        "commercialUsage".into(),
        json!(meta.commercial_usage.as_str()),
    );
    out.insert(
        "allowPoliticalOrReligiousUsage".into(),
        json!(meta.allow_political_or_religious_usage),
    );
    out.insert(
        "allowAntisocialOrHateUsage".into(),
        json!(meta.allow_antisocial_or_hate_usage),
    );
    out.insert(
        "creditNotation".into(),
        json!(if meta.credit_unnecessary {
            "unnecessary"
        } else {
            "required"
        }),
    );
    out.insert(
        "allowRedistribution".into(),
        json!(meta.allow_redistribution),
    );
    out.insert("modification".into(), json!(meta.modification.as_str()));
    Value::Object(out)
}

/// "作者: name" / "Author: name" / "モデル制作：name" in the model's comments.
#[must_use]
pub(super) fn author_from_comment(model: &Model) -> Option<String> {
    const KEYS: [&str; 7] = [
        "作者",
        "モデル制作",
        "制作",
        "モデリング",
        "author",
        "modeled by",
        "model by",
    ];
    let comments = [
        model.info.comment_ja.as_str().into_owned(),
        model.info.comment_en.as_str().into_owned(),
    ];
    for comment in &comments {
        for line in comment.lines() {
            let lower = line.to_lowercase();
            let Some(key) = KEYS.iter().find(|key| lower.contains(*key)) else {
                continue;
            };
            let after_key = lower.find(key).map_or(0, |at| at + key.len());
            let rest = line.get(after_key..).unwrap_or_default();
            let name = rest
                .trim_start_matches(|c: char| {
                    c.is_whitespace() || matches!(c, ':' | '：' | '・' | '-' | '　')
                })
                .trim();
            if !name.is_empty() && name.chars().count() <= 64 {
                return Some(name.to_owned());
            }
        }
    }
    None
}

/// Writes `model` as a VRM 1.0 file.
pub fn write_vrm(model: &Model, options: &VrmExportOptions) -> Result<VrmExport, WriteError> {
    check_model(model)?;
    let map = map_bones_with(model, &options.humanoid_overrides);
    let missing = map.missing_required();
    if !missing.is_empty() {
        return Err(WriteError::MissingHumanoidBones {
            bones: missing
                .iter()
                .map(|bone| format!("{} ({})", bone.vrm_name(), bone.mmd_name()))
                .collect(),
        });
    }
    let mut losses = Vec::new();
    for (bone, reason) in &map.dropped {
        losses.push(VrmLoss::HumanBoneDropped {
            bone: bone.vrm_name(),
            reason: reason.clone(),
        });
    }
    // The T-pose needs a posed copy of the model; without it the model is read as it is.
    let posed: std::borrow::Cow<'_, Model> = if options.t_pose {
        let (posed, notes) =
            bake_t_pose(model, &map).map_err(|e| invalid("T-pose".into(), e.to_string()))?;
        for note in notes {
            losses.push(VrmLoss::TPoseNote { note });
        }
        std::borrow::Cow::Owned(posed)
    } else {
        std::borrow::Cow::Borrowed(model)
    };
    let model = posed.as_ref();
    let skeleton = build_skeleton(model, &map)?;
    if skeleton.hips_added {
        losses.push(VrmLoss::HipsAdded);
    }
    let redirected: Vec<String> = map
        .roles
        .iter()
        .enumerate()
        .filter(|(_, role)| matches!(role, BoneRole::Redirected { .. }))
        .map(|(i, _)| model.bones[i].name_ja.as_str().into_owned())
        .collect();
    if !redirected.is_empty() {
        losses.push(VrmLoss::WeightsMoved { bones: redirected });
    }
    let ik = map.roles.iter().filter(|r| **r == BoneRole::Ik).count();
    if ik > 0 {
        losses.push(VrmLoss::IkBonesDropped { bones: ik });
    }
    let constraints = node_constraints(model, &map, &skeleton.node_of_bone, &mut losses);

    let mut builder = Builder::default();
    builder.root.asset = json::Asset {
        copyright: None,
        extensions: None,
        extras: Default::default(),
        generator: Some("PMX Studio".into()),
        min_version: None,
        version: "2.0".into(),
    };

    // Skeleton nodes: glTF nodes 0..n, each a skin joint (joint i is node i).
    let mut children: Vec<Vec<json::Index<json::Node>>> = vec![Vec::new(); skeleton.nodes.len()];
    for (i, node) in skeleton.nodes.iter().enumerate() {
        if let Some(parent) = node.parent {
            children[parent].push(json::Index::new(i as u32));
        }
    }
    for (i, node) in skeleton.nodes.iter().enumerate() {
        let parent_position = node
            .parent
            .map_or(Vec3::ZERO, |p| skeleton.nodes[p].position);
        builder.root.push(json::Node {
            camera: None,
            children: (!children[i].is_empty()).then(|| children[i].clone()),
            extensions: None,
            extras: Default::default(),
            matrix: None,
            mesh: None,
            name: Some(node.name.clone()),
            rotation: None,
            scale: None,
            translation: Some(to_gltf(node.position - parent_position)),
            skin: None,
            weights: None,
        });
    }
    for (node, constraint) in &constraints {
        let mut extension = json::extensions::scene::Node::default();
        extension
            .others
            .insert("VRMC_node_constraint".into(), constraint.clone());
        builder.root.nodes[*node].extensions = Some(extension);
    }
    let inverse_binds: Vec<[f32; 16]> = skeleton
        .nodes
        .iter()
        .map(|node| {
            let [x, y, z] = to_gltf(node.position);
            [
                1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -x, -y, -z, 1.0,
            ]
        })
        .collect();
    let inverse_binds = builder.floats(&inverse_binds, Type::Mat4, None, false);
    let skin = builder.root.push(json::Skin {
        extensions: None,
        extras: Default::default(),
        inverse_bind_matrices: Some(inverse_binds),
        joints: (0..skeleton.nodes.len())
            .map(|i| json::Index::new(i as u32))
            .collect(),
        name: None,
        skeleton: None,
    });

    let skinning = skin_vertices(model, &map, &skeleton, &mut losses);
    let material_faces = model.material_face_ranges();
    let mut degenerate = 0usize;
    let mut drawn_faces: Vec<Vec<usize>> = Vec::with_capacity(material_faces.len());
    for range in &material_faces {
        let mut faces = Vec::with_capacity(range.len());
        for face in range.clone() {
            let [a, b, c] = model.faces[face];
            if a == b || b == c || a == c {
                degenerate += 1;
            } else {
                faces.push(face);
            }
        }
        drawn_faces.push(faces);
    }
    if degenerate > 0 {
        losses.push(VrmLoss::DegenerateFacesDropped { faces: degenerate });
    }
    let material_vertices: Vec<BTreeSet<usize>> = drawn_faces
        .iter()
        .map(|faces| {
            faces
                .iter()
                .flat_map(|&f| model.faces[f].iter().map(|v| v.get()))
                .collect()
        })
        .collect();
    let mut targets = morph_targets(model, &mut losses);
    let all_drawn: Vec<usize> = drawn_faces.iter().flatten().copied().collect();
    compute_normal_deltas(model, &all_drawn, &mut targets);
    let moved: BTreeSet<usize> = targets
        .iter()
        .flat_map(|t| t.offsets.keys().copied())
        .collect();
    let morphed_material = |m: usize| !material_vertices[m].is_disjoint(&moved);

    let factors = write_materials(&mut builder, model, options, &mut losses);

    let mut mesh_nodes = Vec::new();
    let mut morph_target: Vec<Option<(usize, usize)>> = vec![None; model.morphs.len()];
    let mut primitives_written = 0usize;
    let mut normals_replaced = 0usize;
    for with_targets in [true, false] {
        let materials: Vec<usize> = (0..model.materials.len())
            .filter(|&m| morphed_material(m) == with_targets && !drawn_faces[m].is_empty())
            .collect();
        if materials.is_empty() {
            continue;
        }
        let mut primitives = Vec::new();
        let mut local_of = vec![u32::MAX; model.vertices.len()];
        for &material in &materials {
            let mut order: Vec<usize> = Vec::new();
            let mut indices = Vec::with_capacity(drawn_faces[material].len() * 3);
            for &face in &drawn_faces[material] {
                let [a, b, c] = model.faces[face];
                // Corners reversed: see the module documentation.
                for vertex in [a, c, b] {
                    let v = vertex.get();
                    if local_of[v] == u32::MAX {
                        local_of[v] = order.len() as u32;
                        order.push(v);
                    }
                    indices.push(local_of[v]);
                }
            }
            let positions: Vec<[f32; 3]> = order
                .iter()
                .map(|&v| to_gltf(Vec3::from(model.vertices[v].position)))
                .collect();
            let normals: Vec<[f32; 3]> = order
                .iter()
                .map(|&v| {
                    let normal = Vec3::from(model.vertices[v].normal);
                    match normal.try_normalize() {
                        Some(unit) => direction_to_gltf(unit),
                        None => {
                            normals_replaced += 1;
                            [0.0, 1.0, 0.0]
                        }
                    }
                })
                .collect();
            let uvs: Vec<[f32; 2]> = order
                .iter()
                .map(|&v| model.vertices[v].uv.to_array())
                .collect();
            let joints: Vec<[u16; 4]> = order.iter().map(|&v| skinning.joints[v]).collect();
            let weights: Vec<[f32; 4]> = order.iter().map(|&v| skinning.weights[v]).collect();
            let target = Some(json::buffer::Target::ArrayBuffer);
            let mut attributes = std::collections::BTreeMap::new();
            use json::mesh::Semantic;
            attributes.insert(
                Checked::Valid(Semantic::Positions),
                builder.floats(&positions, Type::Vec3, target, true),
            );
            attributes.insert(
                Checked::Valid(Semantic::Normals),
                builder.floats(&normals, Type::Vec3, target, false),
            );
            attributes.insert(
                Checked::Valid(Semantic::TexCoords(0)),
                builder.floats(&uvs, Type::Vec2, target, false),
            );
            attributes.insert(
                Checked::Valid(Semantic::Joints(0)),
                builder.joints(&joints, skeleton.nodes.len()),
            );
            attributes.insert(
                Checked::Valid(Semantic::Weights(0)),
                builder.floats(&weights, Type::Vec4, target, false),
            );
            let indices = builder.indices(&indices, order.len());
            let morph_targets = with_targets.then(|| {
                targets
                    .iter()
                    .map(|t| {
                        let mut position_entries = Vec::new();
                        let mut normal_entries = Vec::new();
                        for (local, &v) in order.iter().enumerate() {
                            if let Some(offset) = t.offsets.get(&v) {
                                position_entries.push((local as u32, to_gltf(*offset)));
                            }
                            if let Some(delta) = t.normal_deltas.get(&v) {
                                normal_entries.push((local as u32, direction_to_gltf(*delta)));
                            }
                        }
                        json::mesh::MorphTarget {
                            positions: Some(builder.sparse_vec3(
                                order.len(),
                                &position_entries,
                                true,
                            )),
                            normals: Some(builder.sparse_vec3(order.len(), &normal_entries, false)),
                            tangents: None,
                        }
                    })
                    .collect::<Vec<_>>()
            });
            for &v in &order {
                local_of[v] = u32::MAX;
            }
            primitives.push(json::mesh::Primitive {
                attributes,
                extensions: None,
                extras: Default::default(),
                indices: Some(indices),
                material: Some(json::Index::new(material as u32)),
                mode: Checked::Valid(json::mesh::Mode::Triangles),
                targets: morph_targets.filter(|t| !t.is_empty()),
            });
        }
        primitives_written += primitives.len();
        let target_names: Vec<&str> = targets.iter().map(|t| t.name.as_str()).collect();
        let extras = if with_targets && !targets.is_empty() {
            serde_json::value::to_raw_value(&json!({ "targetNames": target_names })).ok()
        } else {
            None
        };
        let mesh = builder.root.push(json::Mesh {
            extensions: None,
            extras,
            name: Some(if with_targets { "face" } else { "body" }.into()),
            primitives,
            weights: None,
        });
        let node = builder.root.push(json::Node {
            camera: None,
            children: None,
            extensions: None,
            extras: Default::default(),
            matrix: None,
            mesh: Some(mesh),
            name: Some(if with_targets { "face" } else { "body" }.into()),
            rotation: None,
            scale: None,
            translation: None,
            skin: Some(skin),
            weights: None,
        });
        if with_targets {
            for (index, target) in targets.iter().enumerate() {
                morph_target[target.morph] = Some((node.value(), index));
            }
        }
        mesh_nodes.push(node);
    }
    if normals_replaced > 0 {
        losses.push(VrmLoss::NormalsReplaced {
            vertices: normals_replaced,
        });
    }

    let roots: Vec<json::Index<json::Node>> = skeleton
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, node)| node.parent.is_none())
        .map(|(i, _)| json::Index::new(i as u32))
        .chain(mesh_nodes.iter().copied())
        .collect();
    let scene = builder.root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: None,
        nodes: roots,
    });
    builder.root.scene = Some(scene);

    // VRMC_vrm.
    let mut human_bones = serde_json::Map::new();
    human_bones.insert("hips".into(), json!({ "node": skeleton.hips }));
    for (&bone, &index) in &map.bones {
        if let Some(node) = skeleton.node_of_bone[index] {
            human_bones.insert(bone.vrm_name().into(), json!({ "node": node }));
        }
    }
    let (expressions, presets, customs) = expressions(
        model,
        &Targets {
            morph_target: &morph_target,
            materials: &factors,
            material_vertices: &material_vertices,
        },
        &mut losses,
    );
    let mut vrm = serde_json::Map::new();
    vrm.insert("specVersion".into(), json!("1.0"));
    vrm.insert("meta".into(), meta(model, options));
    vrm.insert("humanoid".into(), json!({ "humanBones": human_bones }));
    vrm.insert(
        "firstPerson".into(),
        json!({ "meshAnnotations": mesh_nodes.iter().map(|n| json!({ "node": n.value(), "type": "auto" })).collect::<Vec<_>>() }),
    );
    vrm.insert("expressions".into(), expressions);
    let eye = |bone: HumanBone| {
        map.get(bone)
            .and_then(|b| skeleton.node_of_bone[b])
            .map(|n| skeleton.nodes[n].position)
    };
    let head = map
        .get(HumanBone::Head)
        .and_then(|b| skeleton.node_of_bone[b])
        .map(|n| skeleton.nodes[n].position);
    if let (Some(left), Some(right), Some(head)) =
        (eye(HumanBone::LeftEye), eye(HumanBone::RightEye), head)
    {
        let range = json!({ "inputMaxValue": 90.0, "outputScale": 10.0 });
        vrm.insert(
            "lookAt".into(),
            json!({
                "type": "bone",
                "offsetFromHeadBone": to_gltf((left + right) * 0.5 - head).map(f64::from),
                "rangeMapHorizontalInner": range,
                "rangeMapHorizontalOuter": range,
                "rangeMapVerticalDown": range,
                "rangeMapVerticalUp": range,
            }),
        );
    }
    let mut extensions = json::extensions::root::Root::default();
    extensions
        .others
        .insert("VRMC_vrm".into(), Value::Object(vrm));
    builder.root.extensions = Some(extensions);
    builder.root.extensions_used = vec!["VRMC_vrm".into()];
    if !builder.root.materials.is_empty() {
        builder
            .root
            .extensions_used
            .push("VRMC_materials_mtoon".into());
    }

    let springs = if options.spring_bones {
        spring_bones(
            model,
            &map,
            &skeleton.node_of_bone,
            builder.root.nodes.len(),
            &mut losses,
        )
    } else {
        if !model.rigid_bodies.is_empty() || !model.joints.is_empty() {
            losses.push(VrmLoss::PhysicsNotCarried {
                dynamic_bodies: model
                    .rigid_bodies
                    .iter()
                    .filter(|b| b.mode != RigidMode::FollowBone)
                    .count(),
                static_bodies: model
                    .rigid_bodies
                    .iter()
                    .filter(|b| b.mode == RigidMode::FollowBone)
                    .count(),
                joints: model.joints.len(),
            });
        }
        SpringBones {
            extension: None,
            counts: SpringCounts::default(),
            tail_nodes: Vec::new(),
        }
    };
    for tail in &springs.tail_nodes {
        let index = builder.root.push(json::Node {
            camera: None,
            children: None,
            extensions: None,
            extras: Default::default(),
            matrix: None,
            mesh: None,
            name: Some(tail.name.clone()),
            rotation: None,
            scale: None,
            translation: Some(tail.translation),
            skin: None,
            weights: None,
        });
        builder.root.nodes[tail.parent]
            .children
            .get_or_insert_with(Vec::new)
            .push(index);
    }
    if let Some(extension) = &springs.extension {
        let others = &mut builder
            .root
            .extensions
            .get_or_insert_with(Default::default)
            .others;
        others.insert("VRMC_springBone".into(), extension.clone());
        builder.root.extensions_used.push("VRMC_springBone".into());
        let limits = springs.counts.cone_limits
            + springs.counts.hinge_limits
            + springs.counts.spherical_limits;
        if limits > 0 {
            builder
                .root
                .extensions_used
                .push("VRMC_springBone_limit".into());
        }
    }
    if !constraints.is_empty() {
        builder
            .root
            .extensions_used
            .push("VRMC_node_constraint".into());
    }
    if !model.additional_uvs.is_empty() {
        losses.push(VrmLoss::AdditionalUvsDropped {
            channels: model.additional_uvs.len(),
        });
    }
    let edge_scaled = model
        .vertices
        .iter()
        .filter(|v| (v.edge_scale - 1.0).abs() > 1e-6)
        .count();
    if edge_scaled > 0 {
        losses.push(VrmLoss::EdgeScalesDropped {
            vertices: edge_scaled,
        });
    }

    let report = VrmExportReport {
        humanoid_bones: human_bones_count(&map, &skeleton),
        joints: skeleton.nodes.len(),
        meshes: mesh_nodes.len(),
        primitives: primitives_written,
        morph_targets: targets.len(),
        preset_expressions: presets,
        custom_expressions: customs,
        materials: builder.root.materials.len(),
        images: builder.root.images.len(),
        springs: springs.counts,
        node_constraints: constraints.len(),
        losses,
    };
    let vrm = builder.finish()?;
    Ok(VrmExport { vrm, report })
}

fn human_bones_count(map: &HumanoidMap, skeleton: &Skeleton) -> usize {
    1 + map
        .bones
        .values()
        .filter(|&&b| skeleton.node_of_bone[b].is_some())
        .count()
}
