//! What several built-in tools share: which vertices a run works on, which material draws each
//! face and uses each vertex, and a spatial hash for "vertices near this point" without
//! comparing every pair.

use crate::api::PluginContext;
use pmx_core::Model;
use pmx_core::model::{ElementKind, Vec3};
use std::collections::HashMap;

/// Where the vertices of a run came from (said in the notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VertexScope {
    Selected,
    OfSelectedMaterials,
    All,
}

impl VertexScope {
    /// "the 12 selected vertices" / "選択頂点12個".
    #[must_use]
    pub fn describe(self, count: usize) -> (String, String) {
        match self {
            VertexScope::Selected => (
                format!("{} selected vertices", self::count(count)),
                format!("選択頂点{}個", self::count(count)),
            ),
            VertexScope::OfSelectedMaterials => (
                format!("{} vertices of the selected materials", self::count(count)),
                format!("選択材質の頂点{}個", self::count(count)),
            ),
            VertexScope::All => (
                format!("all {} vertices", self::count(count)),
                format!("全頂点{}個", self::count(count)),
            ),
        }
    }
}

/// The selected vertices; else the vertices the faces of the selected materials use; else all
/// vertices. Sorted, distinct, in range.
#[must_use]
pub fn target_vertices(cx: &PluginContext<'_>) -> (Vec<usize>, VertexScope) {
    let model = cx.model;
    if !cx.selection.get(ElementKind::Vertex).is_empty() {
        return (
            cx.selected_or_all(ElementKind::Vertex),
            VertexScope::Selected,
        );
    }
    let materials = cx.selection.get(ElementKind::Material);
    if materials.is_empty() {
        return ((0..model.vertices.len()).collect(), VertexScope::All);
    }
    let ranges = model.material_face_ranges();
    let mut used = vec![false; model.vertices.len()];
    for range in materials.iter().filter_map(|&m| ranges.get(m)) {
        for face in model.faces.get(range.clone()).unwrap_or(&[]) {
            for corner in face {
                if let Some(slot) = used.get_mut(corner.get()) {
                    *slot = true;
                }
            }
        }
    }
    let vertices = (0..used.len()).filter(|&v| used[v]).collect();
    (vertices, VertexScope::OfSelectedMaterials)
}

/// No material: a face past every material's range, a vertex no face uses.
pub const NO_MATERIAL: u32 = u32::MAX;
/// A vertex that faces of several materials use.
pub const SEVERAL_MATERIALS: u32 = u32::MAX - 1;

/// The material that draws each face ([`NO_MATERIAL`] past every range).
#[must_use]
pub fn face_materials(model: &Model) -> Vec<u32> {
    let mut materials = vec![NO_MATERIAL; model.faces.len()];
    for (material, range) in model.material_face_ranges().into_iter().enumerate() {
        let material = u32::try_from(material).unwrap_or(NO_MATERIAL);
        for slot in materials.get_mut(range).unwrap_or(&mut []) {
            *slot = material;
        }
    }
    materials
}

/// The material whose faces use each vertex: [`NO_MATERIAL`] when no face does,
/// [`SEVERAL_MATERIALS`] when faces of more than one do.
#[must_use]
pub fn vertex_materials(model: &Model, face_materials: &[u32]) -> Vec<u32> {
    let mut materials = vec![NO_MATERIAL; model.vertices.len()];
    for (face, &material) in model.faces.iter().zip(face_materials) {
        for corner in face {
            if let Some(slot) = materials.get_mut(corner.get()) {
                *slot = match *slot {
                    NO_MATERIAL => material,
                    same if same == material => same,
                    _ => SEVERAL_MATERIALS,
                };
            }
        }
    }
    materials
}

/// Points hashed into cubes of `cell` size: the points within `cell` of a position are in the
/// 27 cubes around it, so a lookup costs what is near, never the whole model.
#[derive(Debug)]
pub struct PointGrid {
    cell: f64,
    cells: HashMap<(i64, i64, i64), Vec<u32>>,
}

impl PointGrid {
    /// An empty grid whose cubes are `cell` wide (at least 1e-9: a zero distance still hashes).
    #[must_use]
    pub fn new(cell: f64) -> Self {
        Self {
            cell: if cell.is_finite() {
                cell.max(1e-9)
            } else {
                1.0
            },
            cells: HashMap::new(),
        }
    }

    /// The cube of `position` (`None` for a position that is not finite).
    fn key(&self, position: Vec3) -> Option<(i64, i64, i64)> {
        if !position.is_finite() {
            return None;
        }
        #[allow(clippy::cast_possible_truncation)]
        let coordinate = |value: f32| (f64::from(value) / self.cell).floor() as i64;
        Some((
            coordinate(position.x),
            coordinate(position.y),
            coordinate(position.z),
        ))
    }

    /// Adds point `id` at `position` (a position that is not finite is left out).
    pub fn insert(&mut self, id: u32, position: Vec3) {
        if let Some(key) = self.key(position) {
            self.cells.entry(key).or_default().push(id);
        }
    }

    /// The ids in the cubes around `position` (candidates within one cell; the caller checks
    /// the distance), in insertion order per cube.
    pub fn near(&self, position: Vec3) -> impl Iterator<Item = u32> + '_ {
        let around = self.key(position).into_iter().flat_map(|(x, y, z)| {
            (-1..=1).flat_map(move |dx| {
                (-1..=1).flat_map(move |dy| (-1..=1).map(move |dz| (x + dx, y + dy, z + dz)))
            })
        });
        around
            .filter_map(|key| self.cells.get(&key))
            .flat_map(|ids| ids.iter().copied())
    }
}

/// Squared distance in f64 (exact enough to compare with a squared tolerance).
#[must_use]
pub fn distance_squared(a: Vec3, b: Vec3) -> f64 {
    (glam::Vec3::from(a).as_dvec3() - glam::Vec3::from(b).as_dvec3()).length_squared()
}

/// The text of a count with the core's thousands separator.
#[must_use]
pub fn count(n: usize) -> String {
    pmx_core::edit::thousands(n)
}
