//! The selection a plugin sees: sorted element indices per kind, from the editor's selection
//! or from the command line's `--select KIND:INDICES`.

use crate::error::PluginError;
use pmx_core::Model;
use pmx_core::model::{ElementKind, Text};

/// Sorted, distinct indices of the selected elements of every kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PluginSelection {
    by_kind: [Vec<usize>; 10],
}

fn slot(kind: ElementKind) -> usize {
    ElementKind::ALL
        .iter()
        .position(|other| *other == kind)
        .unwrap_or(0)
}

/// The kind named `name`: snake_case as in paths and JSON, singular or plural
/// (`bone`, `bones`, `rigid_bodies`).
#[must_use]
pub fn kind_from_name(name: &str) -> Option<ElementKind> {
    let name = name.trim().to_ascii_lowercase();
    ElementKind::ALL.into_iter().find(|kind| {
        let singular = kind.name();
        let plural = match kind {
            ElementKind::Vertex => "vertices".to_owned(),
            ElementKind::RigidBody => "rigid_bodies".to_owned(),
            ElementKind::SoftBody => "soft_bodies".to_owned(),
            other => format!("{}s", other.name()),
        };
        name == singular || name == plural
    })
}

impl PluginSelection {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Selects `indices` of `kind` (sorted and made distinct).
    pub fn set(&mut self, kind: ElementKind, mut indices: Vec<usize>) {
        indices.sort_unstable();
        indices.dedup();
        self.by_kind[slot(kind)] = indices;
    }

    #[must_use]
    pub fn with(mut self, kind: ElementKind, indices: Vec<usize>) -> Self {
        self.set(kind, indices);
        self
    }

    #[must_use]
    pub fn get(&self, kind: ElementKind) -> &[usize] {
        &self.by_kind[slot(kind)]
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_kind.iter().all(Vec::is_empty)
    }

    /// Adds a command line selection, `KIND:LIST`: LIST is comma-separated indices, ranges
    /// (`3-7`, both ends included) and, for bones, morphs, materials, rigid bodies and joints,
    /// names (Japanese first, then English). Indices past the end are errors, so a typo never
    /// silently selects nothing.
    pub fn add_spec(&mut self, model: &Model, spec: &str) -> Result<(), PluginError> {
        let bad = |message: String| PluginError::BadOption {
            key: "select".to_owned(),
            message,
        };
        let (kind_name, list) = spec
            .split_once(':')
            .ok_or_else(|| bad(format!("\"{spec}\" is not KIND:INDICES (e.g. bone:0,3-5)")))?;
        let kind = kind_from_name(kind_name)
            .ok_or_else(|| bad(format!("\"{kind_name}\" is not an element kind")))?;
        let count = model.count(kind);
        let mut indices = self.get(kind).to_vec();
        for token in list
            .split(',')
            .map(str::trim)
            .filter(|token| !token.is_empty())
        {
            let range = token.split_once('-').and_then(|(start, end)| {
                Some((
                    start.trim().parse::<usize>().ok()?,
                    end.trim().parse::<usize>().ok()?,
                ))
            });
            if let Some((start, end)) = range {
                if start > end || end >= count {
                    return Err(bad(format!(
                        "{token}: the model has {} (0..{count})",
                        crate::nouns::counted(count, kind.name()).0
                    )));
                }
                indices.extend(start..=end);
            } else if let Ok(index) = token.parse::<usize>() {
                if index >= count {
                    return Err(bad(format!(
                        "{index}: the model has {} (0..{count})",
                        crate::nouns::counted(count, kind.name()).0
                    )));
                }
                indices.push(index);
            } else {
                let index = index_by_name(model, kind, token)
                    .ok_or_else(|| bad(format!("no {} named \"{token}\"", kind.name())))?;
                indices.push(index);
            }
        }
        self.set(kind, indices);
        Ok(())
    }
}

fn index_by_name(model: &Model, kind: ElementKind, name: &str) -> Option<usize> {
    let names: Vec<(&Text, &Text)> = match kind {
        ElementKind::Bone => model
            .bones
            .iter()
            .map(|e| (&e.name_ja, &e.name_en))
            .collect(),
        ElementKind::Morph => model
            .morphs
            .iter()
            .map(|e| (&e.name_ja, &e.name_en))
            .collect(),
        ElementKind::Material => model
            .materials
            .iter()
            .map(|e| (&e.name_ja, &e.name_en))
            .collect(),
        ElementKind::RigidBody => model
            .rigid_bodies
            .iter()
            .map(|e| (&e.name_ja, &e.name_en))
            .collect(),
        ElementKind::Joint => model
            .joints
            .iter()
            .map(|e| (&e.name_ja, &e.name_en))
            .collect(),
        _ => return None,
    };
    names
        .iter()
        .position(|(ja, _)| ja.as_str() == name)
        .or_else(|| names.iter().position(|(_, en)| en.as_str() == name))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use pmx_core::generate::sample_model;

    #[test]
    fn command_line_selections_take_indices_ranges_and_names() {
        let model = sample_model();
        let head = model
            .bones
            .iter()
            .position(|bone| bone.name_ja.as_str() == "頭")
            .unwrap();
        let mut selection = PluginSelection::new();
        selection.add_spec(&model, "bones:0,2-3,頭").unwrap();
        let mut expected = vec![0, 2, 3, head];
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(selection.get(ElementKind::Bone), expected.as_slice());
        assert!(selection.get(ElementKind::Vertex).is_empty());
        let past = model.bones.len();
        let error = selection
            .add_spec(&model, &format!("bone:{past}"))
            .unwrap_err();
        assert!(error.to_string().contains("the model has"), "{error}");
        assert!(selection.add_spec(&model, "bone:nope").is_err());
        assert!(selection.add_spec(&model, "bonez:1").is_err());
        assert!(selection.add_spec(&model, "1,2").is_err());
        assert_eq!(kind_from_name("rigid_bodies"), Some(ElementKind::RigidBody));
    }
}
