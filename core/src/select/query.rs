//! The selection grammar, parsed against a model:
//!
//! - `KIND:LIST`: LIST is comma-separated indices, ranges (`3-7`, both ends included) and,
//!   for kinds with names, names (Japanese first, then English): `bones:0,3-5,頭`,
//!   `vertices:0-99,120`. `KIND:all` and `KIND:none` select every element or none (unless an
//!   element is named so).
//! - `KIND:OP:ARGS`: a query whose ARGS is a LIST of the kind the operation starts from:
//!   `vertices:linked:12` (the faces-connected parts), `vertices:linked_by_position:12`
//!   (vertices at bit-identical positions joined too), `vertices:material:3` or a material
//!   name, `vertices:weighted:左腕>0.5` (no `>x`: above 0), `vertices:mirror:0-99`,
//!   `vertices:grow:0-99`, `vertices:shrink:0-99`, `faces:material:3`, `faces:linked:0`,
//!   `faces:grow:0`, `faces:shrink:0-9`, `bones:children:左腕`, `bones:descendants:左腕`.
//!
//! KIND is an element kind in snake_case, singular or plural (`bone`, `rigid_bodies`). A
//! query that names nothing in the model (an index past the end, an unknown name, an unknown
//! operation, a bad threshold) is an error naming the part, so a typo never quietly selects
//! nothing.

use super::{bones, mesh};
use crate::model::{ElementKind, Model, Text};
use std::fmt::Write as _;

/// Why a query does not select: each names the part of the query at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QueryError {
    #[error(
        "\"{query}\" is not KIND:LIST or KIND:OP:ARGS (e.g. bones:0,3-5 or vertices:linked:12)"
    )]
    Syntax { query: String },
    #[error(
        "{part}: not an element kind (vertices, faces, textures, materials, bones, morphs, \
         display_frames, rigid_bodies, joints, soft_bodies)"
    )]
    UnknownKind { part: String },
    #[error("{part}: the model has {count_text} (0..{count})")]
    OutOfRange {
        part: String,
        count: usize,
        count_text: String,
    },
    #[error("{part}: the range runs backwards")]
    Backwards { part: String },
    #[error("{part}: no {kind} named \"{name}\"")]
    UnknownName {
        part: String,
        kind: &'static str,
        name: String,
    },
    #[error("{part}: {kind} have no names; give indices or ranges (0-99,120)")]
    NotAnIndex { part: String, kind: &'static str },
    #[error("{part}: \"{op}\" is not an operation on {kind} (one of: {ops})")]
    UnknownOp {
        part: String,
        op: String,
        kind: &'static str,
        ops: String,
    },
    #[error("{part}: \"{threshold}\" is not a weight threshold (a number, e.g. >0.5)")]
    BadThreshold { part: String, threshold: String },
}

/// An operation of `KIND:OP:ARGS`: the kind its ARGS list and how it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    LinkedVertices,
    LinkedVerticesByPosition,
    MaterialVertices,
    WeightedVertices,
    MirrorVertices,
    GrowVertices,
    ShrinkVertices,
    LinkedFaces,
    MaterialFaces,
    GrowFaces,
    ShrinkFaces,
    BoneChildren,
    BoneDescendants,
}

/// Each kind's operations by name (what `UnknownOp` lists).
const OPS: &[(ElementKind, &str, Op)] = &[
    (ElementKind::Vertex, "linked", Op::LinkedVertices),
    (
        ElementKind::Vertex,
        "linked_by_position",
        Op::LinkedVerticesByPosition,
    ),
    (ElementKind::Vertex, "material", Op::MaterialVertices),
    (ElementKind::Vertex, "weighted", Op::WeightedVertices),
    (ElementKind::Vertex, "mirror", Op::MirrorVertices),
    (ElementKind::Vertex, "grow", Op::GrowVertices),
    (ElementKind::Vertex, "shrink", Op::ShrinkVertices),
    (ElementKind::Face, "linked", Op::LinkedFaces),
    (ElementKind::Face, "material", Op::MaterialFaces),
    (ElementKind::Face, "grow", Op::GrowFaces),
    (ElementKind::Face, "shrink", Op::ShrinkFaces),
    (ElementKind::Bone, "children", Op::BoneChildren),
    (ElementKind::Bone, "descendants", Op::BoneDescendants),
];

impl Op {
    /// The kind the operation's ARGS list names.
    fn argument_kind(self) -> ElementKind {
        match self {
            Op::MaterialVertices | Op::MaterialFaces => ElementKind::Material,
            Op::WeightedVertices | Op::BoneChildren | Op::BoneDescendants => ElementKind::Bone,
            Op::LinkedFaces | Op::GrowFaces | Op::ShrinkFaces => ElementKind::Face,
            Op::LinkedVertices
            | Op::LinkedVerticesByPosition
            | Op::MirrorVertices
            | Op::GrowVertices
            | Op::ShrinkVertices => ElementKind::Vertex,
        }
    }

    fn answer(self, model: &Model, args: &[usize], threshold: f32) -> Vec<usize> {
        match self {
            Op::LinkedVertices => mesh::linked_vertices(model, args),
            Op::LinkedVerticesByPosition => mesh::linked_vertices_by_position(model, args),
            Op::MaterialVertices => mesh::material_vertices(model, args),
            Op::WeightedVertices => mesh::weighted_vertices(model, args, threshold),
            Op::MirrorVertices => mesh::mirror_vertices(model, args),
            Op::GrowVertices => mesh::grow_vertices(model, args),
            Op::ShrinkVertices => mesh::shrink_vertices(model, args),
            Op::LinkedFaces => mesh::linked_faces(model, args),
            Op::MaterialFaces => mesh::material_faces(model, args),
            Op::GrowFaces => mesh::grow_faces(model, args),
            Op::ShrinkFaces => mesh::shrink_faces(model, args),
            Op::BoneChildren => bones::bone_children(model, args),
            Op::BoneDescendants => bones::bone_descendants(model, args),
        }
    }
}

/// The kind named `name`: snake_case as in paths and JSON, singular or plural, any case
/// (`bone`, `bones`, `rigid_bodies`).
#[must_use]
pub fn kind_from_name(name: &str) -> Option<ElementKind> {
    let name = name.trim().to_ascii_lowercase();
    ElementKind::ALL
        .into_iter()
        .find(|kind| name == kind.name() || name == kind.list_name())
}

/// The kind a query selects, from its text alone (the window knows it before the model is
/// open).
pub fn query_kind(text: &str) -> Result<ElementKind, QueryError> {
    let (kind_name, _) = text.split_once(':').ok_or_else(|| QueryError::Syntax {
        query: text.to_owned(),
    })?;
    kind_from_name(kind_name).ok_or_else(|| QueryError::UnknownKind {
        part: kind_name.to_owned(),
    })
}

/// The elements query `text` selects in `model`: their kind and their indices, sorted and
/// distinct (the grammar is the [module's](self)).
pub fn parse_query(model: &Model, text: &str) -> Result<(ElementKind, Vec<usize>), QueryError> {
    let kind = query_kind(text)?;
    let (kind_text, rest) = text.split_once(':').unwrap_or((text, ""));
    let op = rest.split_once(':').map(|(op, args)| (op.trim(), args));
    let known = op.and_then(|(name, args)| {
        OPS.iter()
            .find(|(k, n, _)| *k == kind && *n == name)
            .map(|&(_, _, op)| (op, name, args))
    });
    let mut indices = match known {
        Some((op, name, args)) => {
            let prefix = format!("{kind_text}:{name}:");
            let (list, threshold) = if op == Op::WeightedVertices {
                split_threshold(args, &prefix)?
            } else {
                (args, 0.0)
            };
            let arguments = parse_list(model, op.argument_kind(), list, &prefix)?;
            op.answer(model, &arguments, threshold)
        }
        None => {
            let prefix = format!("{kind_text}:");
            match parse_list(model, kind, rest, &prefix) {
                Ok(list) => list,
                // `bones:nope:1` is more likely a mistyped operation than a bone named so.
                Err(error) if op.is_some() => {
                    let (name, _) = op.unwrap_or_default();
                    let ops: Vec<&str> = OPS
                        .iter()
                        .filter(|(k, _, _)| *k == kind)
                        .map(|(_, n, _)| *n)
                        .collect();
                    if ops.is_empty() {
                        return Err(error);
                    }
                    return Err(QueryError::UnknownOp {
                        part: format!("{kind_text}:{name}"),
                        op: name.to_owned(),
                        kind: kind.list_name(),
                        ops: ops.join(", "),
                    });
                }
                Err(error) => return Err(error),
            }
        }
    };
    indices.sort_unstable();
    indices.dedup();
    Ok((kind, indices))
}

/// `左腕>0.5` → the list and the threshold (0 without `>`).
fn split_threshold<'a>(args: &'a str, prefix: &str) -> Result<(&'a str, f32), QueryError> {
    let Some((list, threshold)) = args.rsplit_once('>') else {
        return Ok((args, 0.0));
    };
    match threshold.trim().parse::<f32>() {
        Ok(value) if value.is_finite() => Ok((list, value)),
        _ => Err(QueryError::BadThreshold {
            part: format!("{prefix}{args}"),
            threshold: threshold.trim().to_owned(),
        }),
    }
}

/// A LIST of `kind`: indices, ranges, names, `all`, `none`; every one checked against the
/// model. `prefix` is the query up to the list (for the error's part).
fn parse_list(
    model: &Model,
    kind: ElementKind,
    list: &str,
    prefix: &str,
) -> Result<Vec<usize>, QueryError> {
    let count = model.count(kind);
    let trimmed = list.trim();
    if matches!(trimmed, "all" | "none") && element_by_name(model, kind, trimmed).is_none() {
        return Ok(if trimmed == "all" {
            (0..count).collect()
        } else {
            Vec::new()
        });
    }
    let past_end = |part: String| QueryError::OutOfRange {
        part,
        count,
        count_text: counted(count, kind),
    };
    let mut indices = Vec::new();
    for token in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let part = || format!("{prefix}{token}");
        let range = token.split_once('-').and_then(|(start, end)| {
            Some((
                start.trim().parse::<usize>().ok()?,
                end.trim().parse::<usize>().ok()?,
            ))
        });
        if let Some((start, end)) = range {
            if start > end {
                return Err(QueryError::Backwards { part: part() });
            }
            if end >= count {
                return Err(past_end(part()));
            }
            indices.extend(start..=end);
        } else if let Ok(index) = token.parse::<usize>() {
            if index >= count {
                return Err(past_end(part()));
            }
            indices.push(index);
        } else if !has_names(kind) {
            return Err(QueryError::NotAnIndex {
                part: part(),
                kind: kind.list_name(),
            });
        } else {
            let index =
                element_by_name(model, kind, token).ok_or_else(|| QueryError::UnknownName {
                    part: part(),
                    kind: kind_words(kind).0,
                    name: token.to_owned(),
                })?;
            indices.push(index);
        }
    }
    Ok(indices)
}

fn has_names(kind: ElementKind) -> bool {
    !matches!(kind, ElementKind::Vertex | ElementKind::Face)
}

/// The element of `kind` named `name`: the first whose Japanese name it is, else the first
/// whose English name it is (a texture by its path). `None` for vertices and faces.
#[must_use]
pub fn element_by_name(model: &Model, kind: ElementKind, name: &str) -> Option<usize> {
    fn find<'a, T: 'a>(
        list: &'a [T],
        names: impl Fn(&'a T) -> (&'a Text, &'a Text),
        name: &str,
    ) -> Option<usize> {
        list.iter()
            .position(|e| names(e).0.as_str() == name)
            .or_else(|| list.iter().position(|e| names(e).1.as_str() == name))
    }
    match kind {
        ElementKind::Vertex | ElementKind::Face => None,
        ElementKind::Texture => model.textures.iter().position(|t| t.as_str() == name),
        ElementKind::Material => find(&model.materials, |e| (&e.name_ja, &e.name_en), name),
        ElementKind::Bone => find(&model.bones, |e| (&e.name_ja, &e.name_en), name),
        ElementKind::Morph => find(&model.morphs, |e| (&e.name_ja, &e.name_en), name),
        ElementKind::DisplayFrame => {
            find(&model.display_frames, |e| (&e.name_ja, &e.name_en), name)
        }
        ElementKind::RigidBody => find(&model.rigid_bodies, |e| (&e.name_ja, &e.name_en), name),
        ElementKind::Joint => find(&model.joints, |e| (&e.name_ja, &e.name_en), name),
        ElementKind::SoftBody => find(&model.soft_bodies, |e| (&e.name_ja, &e.name_en), name),
    }
}

/// A kind's singular and plural in words (`rigid body`, `rigid bodies`).
fn kind_words(kind: ElementKind) -> (&'static str, &'static str) {
    match kind {
        ElementKind::Vertex => ("vertex", "vertices"),
        ElementKind::Face => ("face", "faces"),
        ElementKind::Texture => ("texture", "textures"),
        ElementKind::Material => ("material", "materials"),
        ElementKind::Bone => ("bone", "bones"),
        ElementKind::Morph => ("morph", "morphs"),
        ElementKind::DisplayFrame => ("display frame", "display frames"),
        ElementKind::RigidBody => ("rigid body", "rigid bodies"),
        ElementKind::Joint => ("joint", "joints"),
        ElementKind::SoftBody => ("soft body", "soft bodies"),
    }
}

/// "17 materials", "1 bone".
fn counted(count: usize, kind: ElementKind) -> String {
    let (singular, plural) = kind_words(kind);
    format!("{count} {}", if count == 1 { singular } else { plural })
}

/// Sorted indices as compact ranges, `0-99,120` (empty for none); what `pmx-studio select`
/// prints and every LIST reads back.
#[must_use]
pub fn format_ranges(indices: &[usize]) -> String {
    let mut text = String::new();
    let mut rest = indices.iter().copied().peekable();
    while let Some(start) = rest.next() {
        let mut end = start;
        while rest.peek() == Some(&(end + 1)) {
            end += 1;
            rest.next();
        }
        if !text.is_empty() {
            text.push(',');
        }
        // Writing into a String cannot fail.
        let _ = if end == start {
            write!(text, "{start}")
        } else {
            write!(text, "{start}-{end}")
        };
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::generate::sample_model;

    fn bone(model: &Model, name: &str) -> usize {
        element_by_name(model, ElementKind::Bone, name).unwrap()
    }

    #[test]
    fn lists_take_indices_ranges_names_all_and_none() {
        let model = sample_model();
        let head = bone(&model, "頭");
        let (kind, indices) = parse_query(&model, "bones:0,2-3,頭").unwrap();
        assert_eq!(kind, ElementKind::Bone);
        let mut expected = vec![0, 2, 3, head];
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(indices, expected);
        assert_eq!(
            parse_query(&model, "vertex:0-2, 5").unwrap(),
            (ElementKind::Vertex, vec![0, 1, 2, 5])
        );
        assert_eq!(
            parse_query(&model, "materials:all").unwrap().1,
            (0..model.materials.len()).collect::<Vec<_>>()
        );
        assert_eq!(
            parse_query(&model, "bones:none").unwrap().1,
            Vec::<usize>::new()
        );
        assert_eq!(
            parse_query(&model, "faces:").unwrap().1,
            Vec::<usize>::new()
        );
    }

    #[test]
    fn operations_answer_through_the_queries() {
        let model = sample_model();
        let head = bone(&model, "頭");
        assert_eq!(
            parse_query(&model, "vertices:linked:0").unwrap().1,
            mesh::linked_vertices(&model, &[0])
        );
        assert_eq!(
            parse_query(&model, "faces:material:0").unwrap(),
            (
                ElementKind::Face,
                model.material_face_ranges()[0].clone().collect()
            )
        );
        assert_eq!(
            parse_query(&model, "vertices:weighted:頭>0.5").unwrap().1,
            mesh::weighted_vertices(&model, &[head], 0.5)
        );
        assert_eq!(
            parse_query(&model, "vertices:weighted:頭").unwrap().1,
            mesh::weighted_vertices(&model, &[head], 0.0)
        );
        assert_eq!(
            parse_query(&model, "bones:descendants:0").unwrap().1,
            bones::bone_descendants(&model, &[0])
        );
    }

    #[test]
    fn errors_name_the_part() {
        let model = sample_model();
        let materials = model.materials.len();
        let error = |text: &str| parse_query(&model, text).unwrap_err().to_string();
        assert_eq!(
            error("vertices:material:99"),
            format!("vertices:material:99: the model has {materials} materials (0..{materials})")
        );
        assert!(error("vertices:material:nope").starts_with("vertices:material:nope: no material"));
        assert!(error("vertices:linky:1").contains("\"linky\" is not an operation on vertices"));
        assert!(error("bones:nope:1").contains("children, descendants"));
        assert!(error("vertices:weighted:頭>x").contains("\"x\" is not a weight threshold"));
        assert!(error("vertices:5-2").contains("vertices:5-2: the range runs backwards"));
        assert!(error("vertices:eye").contains("vertices have no names"));
        assert!(error("bonez:1").starts_with("bonez: not an element kind"));
        assert!(error("1,2").contains("is not KIND:LIST"));
        assert_eq!(
            query_kind("rigid_bodies:0").unwrap(),
            ElementKind::RigidBody
        );
    }

    #[test]
    fn ranges_print_compactly() {
        assert_eq!(format_ranges(&[]), "");
        assert_eq!(format_ranges(&[3]), "3");
        assert_eq!(format_ranges(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
    }
}
