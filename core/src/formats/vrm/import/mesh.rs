//! Mesh primitives → vertices and faces, bucketed by glTF material for
//! [`super::materials`]; morph targets → per-vertex offsets for [`super::morphs`].

use super::Importer;
use super::gltf::Elements;
use super::materials::Buckets;
use crate::formats::{Location, ReadError};
use crate::i18n::Message;
use crate::model::{BoneIdx, Face, Vec2, Vec3, Vertex, VertexIdx, Weight};
use glam::{Mat3, Mat4, Vec3 as GVec3};
use serde_json::Value;
use std::collections::HashMap;
use std::rc::Rc;

/// Triangles, strips and fans are drawn; points and lines have no PMX 2.0 material.
const MODE_TRIANGLES: u64 = 4;
const MODE_STRIP: u64 = 5;
const MODE_FAN: u64 = 6;

/// A decoded accessor, shared by the primitives that read it.
type SharedElements = Rc<Elements<f32>>;

/// The attributes (and morph targets) of one mesh that more than one of its primitives use,
/// decoded once, by accessor and whether they were read as integers. Exporters such as UniVRM
/// (VRoid Studio's avatars) give every primitive of a mesh the same vertex accessors; without
/// this each primitive decoded them all again, dozens of morph targets included. An accessor
/// only one primitive reads is never kept, and a shared one is dropped when its last reader
/// has it, so nothing outlives the mesh.
#[derive(Default)]
struct Decoded {
    accessors: HashMap<(usize, bool), SharedElements>,
    /// How many more times each accessor will be asked for by the mesh's primitives.
    uses_left: HashMap<usize, usize>,
}

impl Decoded {
    /// Starts a mesh: counts how often its primitives name each accessor.
    fn start_mesh(&mut self, primitives: &[Value]) {
        self.accessors.clear();
        self.uses_left.clear();
        let accessor = |value: &Value| value.as_u64().and_then(|a| usize::try_from(a).ok());
        for primitive in primitives {
            let attributes = primitive.get("attributes").and_then(Value::as_object);
            let targets = primitive.get("targets").and_then(Value::as_array);
            let named = attributes.into_iter().flat_map(|a| a.values()).chain(
                targets
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t.get("POSITION")),
            );
            for index in named.filter_map(accessor) {
                *self.uses_left.entry(index).or_default() += 1;
            }
        }
    }
}

fn primitive_location(
    import: &Importer<'_>,
    mesh: usize,
    primitive: usize,
    field: &'static str,
) -> Location {
    Location {
        sub: Some(("primitives", primitive)),
        ..import.gltf.at("meshes", Some(mesh), field)
    }
}

pub(super) fn build(import: &mut Importer<'_>) -> Result<(), ReadError> {
    let mut buckets = Buckets::default();
    let mut decoded = Decoded::default();
    let mut over_four = 0usize;
    let order = import.order.clone();
    for node in order {
        let Some(mesh) = import.nodes[node].mesh else {
            continue;
        };
        let mesh_value = import
            .gltf
            .item("meshes", mesh, ("nodes", Some(node), "mesh"))?
            .clone();
        let skin = match import.nodes[node].skin {
            Some(skin) => Some(skin_matrices(import, node, skin)?),
            None => None,
        };
        let primitives = mesh_value
            .get("primitives")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        decoded.start_mesh(&primitives);
        for (index, primitive) in primitives.iter().enumerate() {
            let result = read_primitive(
                import,
                node,
                mesh,
                index,
                primitive,
                skin.as_ref(),
                &mut buckets,
                &mut decoded,
            );
            match result {
                Ok(cut) => over_four += cut,
                Err(error) if import.recover => {
                    let location = primitive_location(import, mesh, index, "");
                    import.note(
                        location,
                        Message::new("load.vrm.primitive_left_out")
                            .arg("error", error.to_message()),
                        true,
                    );
                }
                Err(error) => return Err(error),
            }
        }
    }
    if over_four > 0 {
        let location = import.gltf.at("meshes", None, "JOINTS");
        import.note(
            location,
            Message::new("load.vrm.over_four_influences").arg("count", over_four),
            false,
        );
    }
    super::materials::build(import, buckets)?;
    Ok(())
}

/// Per joint: the node's bone and `world(joint) · inverseBind`, the rest-pose skinning matrix.
struct Skin {
    bones: Vec<usize>,
    matrices: Vec<Mat4>,
}

fn skin_matrices(import: &Importer<'_>, node: usize, skin: usize) -> Result<Skin, ReadError> {
    let value = import
        .gltf
        .item("skins", skin, ("nodes", Some(node), "skin"))?;
    let joints: Vec<usize> = value
        .get("joints")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|j| {
                    j.as_u64()
                        .and_then(|j| usize::try_from(j).ok())
                        .unwrap_or(usize::MAX)
                })
                .collect()
        })
        .unwrap_or_default();
    if let Some(bad) = joints.iter().find(|&&j| j >= import.nodes.len()) {
        return Err(import.gltf.malformed(
            "skins",
            Some(skin),
            "joints",
            Message::new("load.gltf.joint_not_node").arg(
                "joint",
                if *bad == usize::MAX {
                    "?".to_owned()
                } else {
                    bad.to_string()
                },
            ),
        ));
    }
    let inverse = match import.gltf.index_field(
        value,
        "inverseBindMatrices",
        ("skins", Some(skin), "inverseBindMatrices"),
    )? {
        Some(accessor) => {
            let count = import
                .gltf
                .accessor_count(accessor, ("skins", Some(skin), "inverseBindMatrices"))?;
            if count < joints.len() {
                // GLTFLoader reads what is there; the joints without a matrix are bound
                // where they stand (identity), as without any inverseBindMatrices.
                import
                    .gltf
                    .notes
                    .borrow_mut()
                    .push(crate::formats::LoadNote {
                        location: import.gltf.at("skins", Some(skin), "inverseBindMatrices"),
                        message: Message::new("load.vrm.inverse_bind_short")
                            .arg("count", count)
                            .arg("joints", joints.len()),
                        lost: false,
                    });
            }
            let elements = import.gltf.floats(accessor)?;
            if elements.components != 16 {
                return Err(import.gltf.malformed(
                    "skins",
                    Some(skin),
                    "inverseBindMatrices",
                    Message::new("load.gltf.must_be_type").arg("kind", "MAT4"),
                ));
            }
            (0..joints.len())
                .map(|j| {
                    let values = elements.get(j);
                    let mut array = [0.0; 16];
                    if values.len() < 16 {
                        return Mat4::IDENTITY;
                    }
                    array.copy_from_slice(&values[..16]);
                    Mat4::from_cols_array(&array)
                })
                .collect()
        }
        None => vec![Mat4::IDENTITY; joints.len()],
    };
    Ok(Skin {
        bones: joints.iter().map(|&j| import.node_bone[j]).collect(),
        matrices: joints
            .iter()
            .zip(inverse)
            .map(|(&joint, inverse): (&usize, Mat4)| import.world[joint] * inverse)
            .collect(),
    })
}

/// Reads an attribute of `expected` elements, refusing a count that differs before reading;
/// an accessor another primitive of the mesh already read is not decoded again.
#[allow(clippy::too_many_arguments)]
fn attribute(
    import: &Importer<'_>,
    decoded: &mut Decoded,
    attributes: &Value,
    name: &str,
    expected: usize,
    mesh: usize,
    primitive: usize,
    floats: bool,
) -> Result<Option<SharedElements>, ReadError> {
    let Some(accessor) = attributes.get(name) else {
        return Ok(None);
    };
    let Some(accessor) = accessor.as_u64().and_then(|a| usize::try_from(a).ok()) else {
        return Err(ReadError::Malformed {
            location: primitive_location(import, mesh, primitive, "attributes"),
            message: Message::new("load.gltf.not_accessor_index").arg("name", name),
        });
    };
    let count = import
        .gltf
        .accessor_count(accessor, ("meshes", Some(mesh), "attributes"))?;
    if count != expected {
        return Err(ReadError::Malformed {
            location: primitive_location(import, mesh, primitive, "attributes"),
            message: Message::new("load.gltf.attribute_count")
                .arg("name", name)
                .arg("accessor", format!("accessors[{accessor}]"))
                .arg("count", count)
                .arg("expected", expected),
        });
    }
    decode(import, decoded, accessor, floats).map(Some)
}

/// Accessor `accessor` as floats (integers converted when `floats` is false), decoded once
/// per mesh.
fn decode(
    import: &Importer<'_>,
    decoded: &mut Decoded,
    accessor: usize,
    floats: bool,
) -> Result<SharedElements, ReadError> {
    let uses_left = decoded.uses_left.get_mut(&accessor).map_or(0, |left| {
        *left = left.saturating_sub(1);
        *left
    });
    let cached = if uses_left == 0 {
        decoded.accessors.remove(&(accessor, floats))
    } else {
        decoded.accessors.get(&(accessor, floats)).cloned()
    };
    if let Some(elements) = cached {
        return Ok(elements);
    }
    let elements = if floats {
        import.gltf.floats(accessor)?
    } else {
        let integers = import.gltf.integers(accessor)?;
        Elements {
            components: integers.components,
            values: integers.values.into_iter().map(|v| v as f32).collect(),
        }
    };
    let elements = Rc::new(elements);
    if uses_left > 0 {
        decoded
            .accessors
            .insert((accessor, floats), Rc::clone(&elements));
    }
    Ok(elements)
}

/// Reads one primitive into the model; returns how many vertices lost influences past four.
fn read_primitive(
    import: &mut Importer<'_>,
    node: usize,
    mesh: usize,
    index: usize,
    primitive: &Value,
    skin: Option<&Skin>,
    buckets: &mut Buckets,
    decoded: &mut Decoded,
) -> Result<usize, ReadError> {
    if primitive
        .get("extensions")
        .and_then(|e| e.get("KHR_draco_mesh_compression"))
        .is_some()
    {
        return Err(ReadError::Unsupported {
            location: primitive_location(import, mesh, index, "extensions"),
            message: Message::new("load.gltf.draco_mesh"),
        });
    }
    let mode = primitive
        .get("mode")
        .and_then(Value::as_u64)
        .unwrap_or(MODE_TRIANGLES);
    if !matches!(mode, MODE_TRIANGLES | MODE_STRIP | MODE_FAN) {
        let location = primitive_location(import, mesh, index, "mode");
        import.note(
            location,
            Message::new("load.vrm.points_or_lines").arg("mode", mode),
            false,
        );
        return Ok(0);
    }
    let empty = Value::Null;
    let attributes = primitive.get("attributes").unwrap_or(&empty);
    let Some(position_accessor) = attributes
        .get("POSITION")
        .and_then(Value::as_u64)
        .and_then(|a| usize::try_from(a).ok())
    else {
        return Err(ReadError::Malformed {
            location: primitive_location(import, mesh, index, "attributes.POSITION"),
            message: Message::new("load.gltf.no_position"),
        });
    };
    let positions = decode(import, decoded, position_accessor, true)?;
    if positions.components != 3 {
        return Err(ReadError::Malformed {
            location: primitive_location(import, mesh, index, "attributes.POSITION"),
            message: Message::new("load.gltf.attribute_type")
                .arg("name", "POSITION")
                .arg("kind", "VEC3"),
        });
    }
    let count = positions.count();
    let normals = attribute(
        import, decoded, attributes, "NORMAL", count, mesh, index, true,
    )?
    .filter(|n| n.components == 3);
    let uvs = attribute(
        import,
        decoded,
        attributes,
        "TEXCOORD_0",
        count,
        mesh,
        index,
        true,
    )?
    .filter(|n| n.components == 2);
    let mut influences: Vec<(SharedElements, SharedElements)> = Vec::new();
    if skin.is_some() {
        for set in 0..4 {
            let joints = attribute(
                import,
                decoded,
                attributes,
                &format!("JOINTS_{set}"),
                count,
                mesh,
                index,
                false,
            )?;
            let weights = attribute(
                import,
                decoded,
                attributes,
                &format!("WEIGHTS_{set}"),
                count,
                mesh,
                index,
                true,
            )?;
            match (joints, weights) {
                (Some(j), Some(w)) if j.components == 4 && w.components == 4 => {
                    influences.push((j, w))
                }
                _ => break,
            }
        }
    }

    // Indices, as triangles in glTF's counter-clockwise order.
    let indices: Vec<u32> = match import.gltf.index_field(
        primitive,
        "indices",
        ("meshes", Some(mesh), "primitives.indices"),
    )? {
        Some(accessor) => {
            let elements = import.gltf.integers(accessor)?;
            if let Some(bad) = elements.values.iter().find(|&&i| i as usize >= count) {
                return Err(ReadError::Malformed {
                    location: primitive_location(import, mesh, index, "indices"),
                    message: Message::new("load.gltf.index_past_vertices")
                        .arg("index", *bad)
                        .arg("count", count)
                        .arg("accessor", format!("accessors[{accessor}]")),
                });
            }
            elements.values
        }
        None => (0..count as u32).collect(),
    };
    let triangles = triangles(&indices, mode);
    // Only the vertices a triangle uses are copied: a buffer shared between primitives (or
    // with vertices left over) would otherwise leave unused vertices in the PMX.
    let mut used = vec![false; count];
    for &corner in triangles.iter().flatten() {
        used[corner as usize] = true;
    }
    // In order, so the model's vertices keep the buffer's order; the morph targets below
    // walk only these (a shared buffer can be many times larger than one primitive).
    let used_vertices: Vec<usize> = (0..count).filter(|&v| used[v]).collect();
    drop(used);
    // The model vertex (after `base`) of each used vertex of the primitive.
    let mut kept: Vec<usize> = vec![usize::MAX; count];

    let skin_bones = skin.map_or(0, |s| s.bones.len());
    let base = import.model.vertices.len();
    let node_world = import.world[node];
    let node_bone = import.node_bone[node];
    let computed_normals = if normals.is_none() {
        Some(face_normals(&positions, &triangles))
    } else {
        None
    };
    let mut over_four = 0;
    // The first vertex with a joint past the skin's list, and that joint.
    let mut past_skin: Option<(usize, usize)> = None;
    let mut blends: Vec<Mat4> = Vec::with_capacity(count.min(3 * triangles.len()));
    for &v in &used_vertices {
        kept[v] = blends.len();
        // The rest-pose matrix of this vertex and its bones.
        let mut weights: Vec<(usize, f32)> = Vec::new();
        for (joints, w) in &influences {
            for k in 0..4 {
                let weight = w.get(v)[k];
                if weight > 0.0 && weight.is_finite() {
                    let joint = joints.get(v)[k] as usize;
                    if joint >= skin_bones {
                        // GLTFLoader draws such a vertex with whatever the shader finds;
                        // here the influence is left out and the others renormalised.
                        past_skin.get_or_insert((v, joint));
                        continue;
                    }
                    weights.push((joint, weight));
                }
            }
        }
        let (blend, weight) = match skin {
            Some(skin) if !weights.is_empty() => {
                let total: f32 = weights.iter().map(|w| w.1).sum();
                let mut blend = Mat4::ZERO;
                for &(joint, w) in &weights {
                    blend += skin.matrices[joint] * (w / total);
                }
                let (weight, cut) = bone_weight(
                    &weights
                        .iter()
                        .map(|&(j, w)| (skin.bones[j], w))
                        .collect::<Vec<_>>(),
                );
                over_four += usize::from(cut);
                (blend, weight)
            }
            _ => (
                node_world,
                Weight::Bdef1 {
                    bone: Some(BoneIdx::new(node_bone)),
                },
            ),
        };
        let p = positions.get(v);
        let position = blend.transform_point3(GVec3::new(p[0], p[1], p[2]));
        let n = match (&normals, &computed_normals) {
            (Some(normals), _) => {
                let n = normals.get(v);
                GVec3::new(n[0], n[1], n[2])
            }
            (None, Some(computed)) => computed[v],
            _ => GVec3::Y,
        };
        let normal_matrix = Mat3::from_mat4(blend).inverse().transpose();
        let normal = (normal_matrix * n).try_normalize().unwrap_or(GVec3::Y);
        let uv = uvs.as_ref().map_or([0.0, 0.0], |uvs| {
            let uv = uvs.get(v);
            [uv[0], uv[1]]
        });
        import.model.vertices.push(Vertex {
            position: finite(import.point(position)),
            normal: finite(import.to_mmd(normal, 1.0)),
            uv: Vec2::new(uv[0], uv[1]),
            weight,
            edge_scale: 1.0,
        });
        blends.push(blend);
    }

    // Morph targets: position deltas through each vertex's rest-pose matrix.
    if let Some(targets) = primitive.get("targets").and_then(Value::as_array) {
        for (target_index, target) in targets.iter().enumerate() {
            let Some(deltas) = attribute(
                import, decoded, target, "POSITION", count, mesh, index, true,
            )?
            else {
                continue;
            };
            if deltas.components != 3 {
                continue;
            }
            let mut offsets = Vec::new();
            for &v in &used_vertices {
                let blend = &blends[kept[v]];
                let d = deltas.get(v);
                if d.iter().all(|c| *c == 0.0 || !c.is_finite()) {
                    continue;
                }
                let moved = Mat3::from_mat4(*blend) * GVec3::new(d[0], d[1], d[2]);
                offsets.push((base + kept[v], finite(import.point(moved))));
            }
            import
                .targets
                .entry((mesh, target_index))
                .or_default()
                .extend(offsets);
        }
    }

    // glTF turns its front faces counter-clockwise and the axis change mirrors them: MMD's
    // clockwise front faces are the reversed corners.
    let faces: Vec<Face> = triangles
        .iter()
        .map(|&[a, b, c]| {
            [
                VertexIdx::new(base + kept[a as usize]),
                VertexIdx::new(base + kept[c as usize]),
                VertexIdx::new(base + kept[b as usize]),
            ]
        })
        .collect();
    let material = import.gltf.index_field(
        primitive,
        "material",
        ("meshes", Some(mesh), "primitives.material"),
    )?;
    if let Some(material) = material {
        import.gltf.item(
            "materials",
            material,
            ("meshes", Some(mesh), "primitives.material"),
        )?;
    }
    buckets.add(material, faces);
    if let Some((vertex, joint)) = past_skin {
        let location = primitive_location(import, mesh, index, "attributes.JOINTS_0");
        import.note(
            location,
            Message::new("load.vrm.joint_past_skin")
                .arg("joint", joint)
                .arg("vertex", vertex)
                .arg("joints", skin_bones),
            true,
        );
    }
    Ok(over_four)
}

fn finite(v: Vec3) -> Vec3 {
    if v.is_finite() { v } else { Vec3::ZERO }
}

/// The triangles of an index list in the primitive's mode (glTF spec § 3.7.2.1).
fn triangles(indices: &[u32], mode: u64) -> Vec<[u32; 3]> {
    match mode {
        MODE_STRIP => (0..indices.len().saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    [indices[i], indices[i + 1], indices[i + 2]]
                } else {
                    [indices[i + 1], indices[i], indices[i + 2]]
                }
            })
            .collect(),
        MODE_FAN => (1..indices.len().saturating_sub(1))
            .map(|i| [indices[i], indices[i + 1], indices[0]])
            .collect(),
        _ => indices
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]])
            .collect(),
    }
}

/// Area-weighted vertex normals (for primitives without NORMAL), in the primitive's space.
fn face_normals(positions: &Elements<f32>, triangles: &[[u32; 3]]) -> Vec<GVec3> {
    let point = |i: u32| {
        let p = positions.get(i as usize);
        GVec3::new(p[0], p[1], p[2])
    };
    let mut normals = vec![GVec3::ZERO; positions.count()];
    for &[a, b, c] in triangles {
        let n = (point(b) - point(a)).cross(point(c) - point(a));
        for i in [a, b, c] {
            normals[i as usize] += n;
        }
    }
    normals
}

/// A PMX weight from (bone, weight) pairs: the same bone summed, the four largest kept and
/// renormalised. Returns whether influences were cut.
fn bone_weight(pairs: &[(usize, f32)]) -> (Weight, bool) {
    let mut summed: Vec<(usize, f32)> = Vec::new();
    for &(bone, weight) in pairs {
        match summed.iter_mut().find(|(b, _)| *b == bone) {
            Some(entry) => entry.1 += weight,
            None => summed.push((bone, weight)),
        }
    }
    summed.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let cut = summed.len() > 4;
    summed.truncate(4);
    let total: f32 = summed.iter().map(|w| w.1).sum();
    let bone = |i: usize| summed.get(i).map(|&(b, _)| BoneIdx::new(b));
    let weight = |i: usize| summed.get(i).map_or(0.0, |&(_, w)| w / total);
    let result = match summed.len() {
        0 | 1 => Weight::Bdef1 { bone: bone(0) },
        2 => Weight::Bdef2 {
            bones: [bone(0), bone(1)],
            weight: weight(0),
        },
        _ => Weight::Bdef4 {
            bones: [bone(0), bone(1), bone(2), bone(3)],
            weights: [weight(0), weight(1), weight(2), weight(3)],
        },
    };
    (result, cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_four_influences_keep_the_largest_renormalised() {
        let (weight, cut) = bone_weight(&[(1, 0.1), (2, 0.4), (3, 0.2), (4, 0.2), (5, 0.1)]);
        assert!(cut);
        let Weight::Bdef4 { bones, weights } = weight else {
            panic!("BDEF4 expected, got {weight:?}");
        };
        assert_eq!(bones[0], Some(BoneIdx::new(2)));
        assert!((weights.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(
            !bones.contains(&Some(BoneIdx::new(5))),
            "the smallest tie goes: {bones:?}"
        );
    }

    #[test]
    fn strips_and_fans_keep_the_turn() {
        assert_eq!(
            triangles(&[0, 1, 2, 3], MODE_STRIP),
            vec![[0, 1, 2], [2, 1, 3]]
        );
        assert_eq!(
            triangles(&[0, 1, 2, 3], MODE_FAN),
            vec![[1, 2, 0], [2, 3, 0]]
        );
    }
}
