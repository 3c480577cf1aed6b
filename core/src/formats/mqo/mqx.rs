//! The `.mqx` side file an MQO names with `IncludeXml`: XML in which Metasequoia 4's plugins
//! keep their data. Two plugins matter for PMX: the bone plugin (`Plugin.56A31D20.71F282AB`,
//! `BoneSet2`: bones with positions, parents and per-vertex weights) and the morph plugin
//! (`Plugin.56A31D20.C452C6DB`, `MorphSet`: morph target objects per base object). Other
//! plugins are listed, not read. Positions stay in MQO units and axes.

use super::report::{MqoError, MqoNote};
use crate::i18n::Message;

/// The bone plugin's plugin ID.
pub const BONE_PLUGIN: &str = "Plugin.56A31D20.71F282AB";
/// The morph plugin's plugin ID.
pub const MORPH_PLUGIN: &str = "Plugin.56A31D20.C452C6DB";

/// What an `.mqx` file holds for the import.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MqxDocument {
    /// `BoneSet2` bones in file order.
    pub bones: Vec<MqxBone>,
    /// `<Obj id>`: the objects (by uid) the bone plugin deforms.
    pub bone_objects: Vec<u32>,
    /// `MorphSet` target lists.
    pub morphs: Vec<MqxMorphList>,
}

/// A `<Bone>` of `BoneSet2`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MqxBone {
    pub id: u32,
    pub name: String,
    /// The parent bone's `id`; `None` for a root bone (no attribute, or 0).
    pub parent: Option<u32>,
    /// World position in MQO units.
    pub position: [f32; 3],
    /// `<IK chain="n">`: the bone ends an IK chain of `n` bones.
    pub ik_chain: Option<u32>,
    pub movable: bool,
    pub hidden: bool,
    pub dummy: bool,
    /// `<W obj><V v w>`: weights in percent (0..100).
    pub weights: Vec<MqxWeight>,
}

/// One `<V v w>` of a bone: the vertex with unique ID `vertex` of the object with uid `object`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MqxWeight {
    pub object: u32,
    pub vertex: u32,
    /// Percent, 0..100.
    pub weight: f32,
}

/// `<TargetList base>`: morph targets of one base object, by object name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MqxMorphList {
    pub base: String,
    pub targets: Vec<MqxMorphTarget>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct MqxMorphTarget {
    pub name: String,
    pub param: i32,
}

/// Parses an `.mqx` file (`file` names it in messages).
pub fn parse_mqx(
    bytes: &[u8],
    file: &str,
    notes: &mut Vec<MqoNote>,
) -> Result<MqxDocument, MqoError> {
    let text = std::str::from_utf8(bytes).map_err(|error| {
        xml_error(
            file,
            1,
            1,
            Message::new("load.mqo.mqx_not_utf8").arg("offset", error.valid_up_to()),
        )
    })?;
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        ..roxmltree::ParsingOptions::default()
    };
    let document = roxmltree::Document::parse_with_options(text, options).map_err(|error| {
        let position = error.pos();
        xml_error(
            file,
            position.row as usize,
            position.col as usize,
            // roxmltree's own words, after its position.
            Message::new("load.mqo.mqx_not_xml").arg("detail", error.to_string()),
        )
    })?;
    let root = document.root_element();
    if root.tag_name().name() != "MetasequoiaDocument" {
        return Err(node_error(
            file,
            &document,
            root,
            Message::new("load.mqo.mqx_wrong_root").arg("element", root.tag_name().name()),
        ));
    }
    let mut mqx = MqxDocument::default();
    for plugin in root.children().filter(roxmltree::Node::is_element) {
        match plugin.tag_name().name() {
            BONE_PLUGIN => read_bone_plugin(file, &document, plugin, &mut mqx, notes)?,
            MORPH_PLUGIN => read_morph_plugin(file, &document, plugin, &mut mqx)?,
            "IncludedBy" => {}
            other => notes.push(MqoNote::SkippedPlugin {
                name: match plugin.attribute("name") {
                    Some(name) => format!("{other} ({name})"),
                    None => other.to_owned(),
                },
            }),
        }
    }
    Ok(mqx)
}

fn xml_error(file: &str, line: usize, column: usize, message: Message) -> MqoError {
    MqoError::Mqx {
        file: file.to_owned(),
        line,
        column,
        message,
    }
}

fn node_error(
    file: &str,
    document: &roxmltree::Document<'_>,
    node: roxmltree::Node<'_, '_>,
    message: Message,
) -> MqoError {
    let position = document.text_pos_at(node.range().start);
    xml_error(file, position.row as usize, position.col as usize, message)
}

/// The error for a required attribute `attribute` that `node` lacks.
fn missing_attribute(
    file: &str,
    document: &roxmltree::Document<'_>,
    node: roxmltree::Node<'_, '_>,
    attribute: &str,
) -> MqoError {
    let message = Message::new("load.mqo.mqx_missing_attribute")
        .arg("element", node.tag_name().name())
        .arg("attribute", attribute);
    node_error(file, document, node, message)
}

/// An attribute parsed as `T`, or `None` when absent.
fn attribute<T: std::str::FromStr>(
    file: &str,
    document: &roxmltree::Document<'_>,
    node: roxmltree::Node<'_, '_>,
    name: &str,
) -> Result<Option<T>, MqoError> {
    let Some(text) = node.attribute(name) else {
        return Ok(None);
    };
    text.trim().parse::<T>().map(Some).map_err(|_| {
        node_error(
            file,
            document,
            node,
            Message::new("load.mqo.mqx_bad_number")
                .arg("element", node.tag_name().name())
                .arg("attribute", name)
                .arg("value", text),
        )
    })
}

/// `"x,y,z"` as three finite floats.
fn vector(
    file: &str,
    document: &roxmltree::Document<'_>,
    node: roxmltree::Node<'_, '_>,
    name: &str,
) -> Result<Option<[f32; 3]>, MqoError> {
    let Some(text) = node.attribute(name) else {
        return Ok(None);
    };
    let mut values = [0.0f32; 3];
    let mut parts = text.split(',');
    for value in &mut values {
        let parsed = parts
            .next()
            .and_then(|part| part.trim().parse::<f32>().ok())
            .filter(|v| v.is_finite());
        match parsed {
            Some(v) => *value = v,
            None => {
                return Err(node_error(
                    file,
                    document,
                    node,
                    Message::new("load.mqo.mqx_bad_vector")
                        .arg("element", node.tag_name().name())
                        .arg("attribute", name)
                        .arg("value", text),
                ));
            }
        }
    }
    Ok(Some(values))
}

fn read_bone_plugin(
    file: &str,
    document: &roxmltree::Document<'_>,
    plugin: roxmltree::Node<'_, '_>,
    mqx: &mut MqxDocument,
    notes: &mut Vec<MqoNote>,
) -> Result<(), MqoError> {
    for child in plugin.children().filter(roxmltree::Node::is_element) {
        match child.tag_name().name() {
            "BoneSet2" => {
                for bone in child.children().filter(|n| n.has_tag_name("Bone")) {
                    mqx.bones.push(read_bone(file, document, bone)?);
                }
            }
            "BoneSet" => notes.push(MqoNote::OldBoneSet),
            "Obj" => {
                if let Some(id) = attribute::<u32>(file, document, child, "id")? {
                    mqx.bone_objects.push(id);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn read_bone(
    file: &str,
    document: &roxmltree::Document<'_>,
    node: roxmltree::Node<'_, '_>,
) -> Result<MqxBone, MqoError> {
    let id = attribute::<u32>(file, document, node, "id")?
        .ok_or_else(|| missing_attribute(file, document, node, "id"))?;
    let flag = |name: &str| -> Result<bool, MqoError> {
        Ok(attribute::<i64>(file, document, node, name)?.is_some_and(|v| v != 0))
    };
    let mut bone = MqxBone {
        id,
        name: node.attribute("name").unwrap_or_default().to_owned(),
        parent: attribute::<u32>(file, document, node, "parent")?.filter(|&p| p != 0),
        position: vector(file, document, node, "pos")?.unwrap_or_default(),
        ik_chain: None,
        movable: flag("movable")?,
        hidden: flag("hide")?,
        dummy: flag("dummy")?,
        weights: Vec::new(),
    };
    for child in node.children().filter(roxmltree::Node::is_element) {
        match child.tag_name().name() {
            "IK" => bone.ik_chain = attribute::<u32>(file, document, child, "chain")?,
            "W" => {
                let object = attribute::<u32>(file, document, child, "obj")?
                    .ok_or_else(|| missing_attribute(file, document, child, "obj"))?;
                for weight in child.children().filter(|n| n.has_tag_name("V")) {
                    let vertex = attribute::<u32>(file, document, weight, "v")?
                        .ok_or_else(|| missing_attribute(file, document, weight, "v"))?;
                    let value = attribute::<f32>(file, document, weight, "w")?
                        .filter(|w| w.is_finite())
                        .unwrap_or(100.0);
                    bone.weights.push(MqxWeight {
                        object,
                        vertex,
                        weight: value,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(bone)
}

fn read_morph_plugin(
    file: &str,
    document: &roxmltree::Document<'_>,
    plugin: roxmltree::Node<'_, '_>,
    mqx: &mut MqxDocument,
) -> Result<(), MqoError> {
    for set in plugin.children().filter(|n| n.has_tag_name("MorphSet")) {
        for list in set.children().filter(|n| n.has_tag_name("TargetList")) {
            let base = list
                .attribute("base")
                .ok_or_else(|| missing_attribute(file, document, list, "base"))?;
            let mut morphs = MqxMorphList {
                base: base.to_owned(),
                targets: Vec::new(),
            };
            for target in list.children().filter(|n| n.has_tag_name("Target")) {
                let name = target
                    .attribute("name")
                    .ok_or_else(|| missing_attribute(file, document, target, "name"))?;
                morphs.targets.push(MqxMorphTarget {
                    name: name.to_owned(),
                    param: attribute::<i32>(file, document, target, "param")?.unwrap_or(0),
                });
            }
            mqx.morphs.push(morphs);
        }
    }
    Ok(())
}
