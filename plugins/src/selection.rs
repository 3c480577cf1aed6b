//! The selection a plugin sees: sorted element indices per kind, from the editor's selection
//! or from the command line's `--select QUERY` (the selection grammar of [`pmx_core::select`]).

use crate::error::PluginError;
use pmx_core::Model;
use pmx_core::model::ElementKind;

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
/// (`bone`, `bones`, `rigid_bodies`); the selection grammar's ([`pmx_core::select`]).
pub use pmx_core::select::kind_from_name;

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

    /// Adds what a selection query selects (the one grammar of [`pmx_core::select`]:
    /// `KIND:LIST` with indices, ranges and names, or `KIND:OP:ARGS` such as
    /// `vertices:linked:12`) to the selection of its kind. A query that names nothing in the
    /// model is an error naming the part, so a typo never silently selects nothing.
    pub fn add_spec(&mut self, model: &Model, spec: &str) -> Result<(), PluginError> {
        let (kind, found) =
            pmx_core::select::parse_query(model, spec).map_err(|error| PluginError::BadOption {
                key: "select".to_owned(),
                message: error.to_string(),
            })?;
        let mut indices = self.get(kind).to_vec();
        indices.extend(found);
        self.set(kind, indices);
        Ok(())
    }
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
        // The grammar's operations too, adding to what is selected.
        let mut children = PluginSelection::new();
        children.add_spec(&model, "bones:children:頭").unwrap();
        children.add_spec(&model, "bones:0").unwrap();
        let mut expected = pmx_core::select::bone_children(&model, &[head]);
        expected.push(0);
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(children.get(ElementKind::Bone), expected.as_slice());
        assert_eq!(kind_from_name("rigid_bodies"), Some(ElementKind::RigidBody));
    }
}
