//! The weight brush's geometry, without the GPU: which vertices a dab of a round brush at a
//! pixel touches, and how much (its falloff), on the mesh as it is drawn (posed or at rest).
//!
//! Two reaches, as in Blender's weight paint:
//! - **front faces** (the default): the brush is a sphere around the surface point under the
//!   pointer, its radius the screen radius at that depth; vertices inside it whose normal faces
//!   the camera are painted, so the far side of a limb and what lies behind it are not;
//! - **through**: every vertex drawn inside the screen circle, front or back (painting both
//!   sides of a sleeve at once).
//!
//! A dab projects every vertex once, in parallel chunks (a million vertices stay within a
//! brush step's budget), and keeps the few near the pointer.

use crate::camera::{OrbitCamera, Projector, Ray, to_world};
use crate::overlay::PosedVertices;
use glam::{Vec2, Vec3};
use pmx_core::model::Model;
use rayon::prelude::*;

/// Vertices per parallel task.
const CHUNK: usize = 16 * 1024;

/// How a dab's effect fades from its centre to its rim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Falloff {
    /// Full at the centre, easing to nothing at the rim (smoothstep).
    #[default]
    Smooth,
    /// Straight from full at the centre to nothing at the rim.
    Linear,
    /// Full everywhere inside the rim.
    Constant,
}

impl Falloff {
    pub const ALL: [Falloff; 3] = [Falloff::Smooth, Falloff::Linear, Falloff::Constant];

    /// The effect at `distance` (0 centre .. 1 rim) from the centre.
    #[must_use]
    pub fn at(self, distance: f32) -> f32 {
        let d = distance.clamp(0.0, 1.0);
        match self {
            Falloff::Smooth => {
                let t = 1.0 - d;
                t * t * (3.0 - 2.0 * t)
            }
            Falloff::Linear => 1.0 - d,
            Falloff::Constant => 1.0,
        }
    }

    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Falloff::Smooth => "brush.falloff_smooth",
            Falloff::Linear => "brush.falloff_linear",
            Falloff::Constant => "brush.falloff_constant",
        }
    }
}

/// Which vertices a dab can reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reach {
    /// Inside the sphere around the surface point under the pointer, facing the camera.
    #[default]
    FrontFaces,
    /// Everything drawn inside the screen circle.
    Through,
}

/// The mesh as drawn: where each vertex is and which way it faces, in world space.
#[derive(Debug, Clone, Copy)]
pub struct Surface<'a> {
    model: &'a Model,
    posed: Option<&'a PosedVertices>,
}

impl<'a> Surface<'a> {
    /// `model` where `posed` puts it (at rest when `None` or when it does not fit the model).
    #[must_use]
    pub fn new(model: &'a Model, posed: Option<&'a PosedVertices>) -> Self {
        Self {
            model,
            posed: posed.filter(|p| p.fits(model)),
        }
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.model.vertices.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.model.vertices.is_empty()
    }

    /// Vertex `index`'s position (world space).
    #[must_use]
    pub fn position(&self, index: usize) -> Vec3 {
        match self.posed {
            Some(posed) => mirror(posed.positions[index]),
            None => to_world(self.model.vertices[index].position),
        }
    }

    /// Vertex `index`'s normal (world space, not normalised).
    #[must_use]
    pub fn normal(&self, index: usize) -> Vec3 {
        match self.posed {
            Some(posed) => mirror(posed.normals[index]),
            None => to_world(self.model.vertices[index].normal),
        }
    }
}

fn mirror(v: Vec3) -> Vec3 {
    Vec3::new(v.x, v.y, -v.z)
}

/// The view a dab is made in.
#[derive(Debug, Clone, Copy)]
pub struct BrushView {
    pub projector: Projector,
    pub eye: Vec3,
    /// World units per pixel at unit distance along the view direction.
    pub pixel_factor: f32,
    /// The camera's looking direction (unit).
    pub forward: Vec3,
}

impl BrushView {
    #[must_use]
    pub fn new(camera: &OrbitCamera, size: Vec2) -> Self {
        Self {
            projector: Projector::new(camera, size),
            eye: camera.eye(),
            pixel_factor: 2.0 * (camera.fov_y * 0.5).tan() / size.y.max(1.0),
            forward: (camera.rotation() * Vec3::NEG_Z).normalize_or(Vec3::NEG_Z),
        }
    }

    /// The ray through `pixel`.
    #[must_use]
    pub fn ray(&self, pixel: Vec2) -> Ray {
        let inverse = self.projector.view_projection.inverse();
        let size = self.projector.size;
        let ndc = Vec2::new(
            2.0 * pixel.x / size.x.max(1.0) - 1.0,
            1.0 - 2.0 * pixel.y / size.y.max(1.0),
        );
        let far = inverse * glam::Vec4::new(ndc.x, ndc.y, 1.0, 1.0);
        let far = far.truncate() / far.w;
        Ray {
            origin: self.eye,
            direction: (far - self.eye).normalize_or(self.forward),
        }
    }
}

/// A dab's shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BrushShape {
    /// The pointer (viewport pixels).
    pub at: Vec2,
    /// The radius on screen (pixels).
    pub radius: f32,
    pub falloff: Falloff,
    pub reach: Reach,
}

/// What one dab touches.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dab {
    /// The touched vertices, ascending.
    pub vertices: Vec<u32>,
    /// Each vertex's falloff (0..1], in the same order.
    pub falloffs: Vec<f32>,
    /// The surface point under the pointer (world space), when the pointer is over the mesh.
    pub centre: Option<Vec3>,
    /// The brush's radius in model units at that point.
    pub model_radius: Option<f32>,
}

/// A vertex near the pointer: its index, its distance from the pointer in pixels, its distance
/// from the eye along the view and whether it faces the camera.
#[derive(Debug, Clone, Copy)]
struct Near {
    index: u32,
    pixels: f32,
    depth: f32,
    facing: bool,
}

/// Every vertex `allowed` lets through that projects inside the view, in parallel chunks:
/// what `keep` makes of it (its index, world position and pixel), in vertex order.
fn projected<T: Send>(
    surface: &Surface<'_>,
    view: &BrushView,
    allowed: Option<&[bool]>,
    keep: impl Fn(usize, Vec3, Vec2) -> Option<T> + Sync,
) -> Vec<T> {
    let count = surface.len();
    (0..count.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|chunk| {
            let start = chunk * CHUNK;
            let end = (start + CHUNK).min(count);
            let keep = &keep;
            (start..end).filter_map(move |index| {
                if allowed.is_some_and(|mask| !mask.get(index).copied().unwrap_or(false)) {
                    return None;
                }
                let position = surface.position(index);
                let (pixel, ndc_depth) = view.projector.project(position)?;
                if !(-1.0..=1.0).contains(&ndc_depth) {
                    return None;
                }
                keep(index, position, pixel)
            })
        })
        .collect()
}

/// The vertices projected within `radius` pixels of `at` that `allowed` lets through.
fn near_pointer(
    surface: &Surface<'_>,
    view: &BrushView,
    at: Vec2,
    radius: f32,
    allowed: Option<&[bool]>,
) -> Vec<Near> {
    projected(surface, view, allowed, |index, position, pixel| {
        let pixels = pixel.distance(at);
        if pixels > radius {
            return None;
        }
        let to_eye = view.eye - position;
        Some(Near {
            index: index as u32,
            pixels,
            depth: -to_eye.dot(view.forward),
            facing: surface.normal(index).dot(to_eye) > 0.0,
        })
    })
}

/// The vertices one dab of `shape` touches on `surface` seen through `view`, each with its
/// falloff; `allowed` (one flag per vertex) limits them (to some materials). Nothing when the
/// pointer is off the mesh (front faces) or nothing is in the circle (through).
#[must_use]
pub fn dab(
    surface: &Surface<'_>,
    view: &BrushView,
    shape: &BrushShape,
    allowed: Option<&[bool]>,
) -> Dab {
    let radius = shape.radius.max(1.0);
    // `near` comes in vertex order (rayon's collect keeps it), so the dab's lists are ascending.
    let (touched, centre, model_radius): (Vec<(u32, f32)>, _, _) = match shape.reach {
        Reach::Through => {
            let near = near_pointer(surface, view, shape.at, radius, allowed);
            let centre = surface_point(view, shape.at, radius, &near);
            let model_radius = centre.map(|c| radius * view.pixel_factor * depth_of(view, c));
            let touched = near
                .iter()
                .map(|n| (n.index, shape.falloff.at(n.pixels / radius)))
                .collect();
            (touched, centre, model_radius)
        }
        Reach::FrontFaces => {
            // The sphere's nearer parts project larger than the circle: look a little wider.
            let near = near_pointer(surface, view, shape.at, radius * 1.5, allowed);
            let Some(centre) = surface_point(view, shape.at, radius, &near) else {
                return Dab::default();
            };
            let model_radius = radius * view.pixel_factor * depth_of(view, centre);
            let touched = near
                .iter()
                .filter(|n| n.facing)
                .filter_map(|n| {
                    let distance = surface.position(n.index as usize).distance(centre);
                    (distance <= model_radius)
                        .then(|| (n.index, shape.falloff.at(distance / model_radius)))
                })
                .collect();
            (touched, Some(centre), Some(model_radius))
        }
    };
    let (vertices, falloffs) = touched.into_iter().filter(|(_, f)| *f > 0.0).unzip();
    Dab {
        vertices,
        falloffs,
        centre,
        model_radius,
    }
}

fn depth_of(view: &BrushView, point: Vec3) -> f32 {
    (point - view.eye).dot(view.forward).max(1.0e-4)
}

/// The surface point under the pointer: on the pointer's ray at the depth of the nearest
/// camera-facing vertex close to the pointer (within a quarter of the brush, at least a few
/// pixels; else the closest facing vertex in the circle).
fn surface_point(view: &BrushView, at: Vec2, radius: f32, near: &[Near]) -> Option<Vec3> {
    let core = (radius * 0.25).max(4.0);
    let facing = near.iter().filter(|n| n.facing && n.pixels <= radius);
    let hit = facing
        .clone()
        .filter(|n| n.pixels <= core)
        .min_by(|a, b| a.depth.total_cmp(&b.depth))
        .or_else(|| facing.min_by(|a, b| a.pixels.total_cmp(&b.pixels)))?;
    let ray = view.ray(at);
    let along = ray.direction.dot(view.forward).max(1.0e-4);
    Some(ray.at(hit.depth / along))
}

/// The vertices a gradient dragged from `from` to `to` (pixels) reaches, each with its place on
/// the ramp (0 at `from`, 1 at `to`): the vertices drawn between the two lines through the ends
/// across the drag, facing the camera unless `reach` is [`Reach::Through`].
#[must_use]
pub fn gradient(
    surface: &Surface<'_>,
    view: &BrushView,
    from: Vec2,
    to: Vec2,
    reach: Reach,
    allowed: Option<&[bool]>,
) -> (Vec<u32>, Vec<f32>) {
    let along = to - from;
    let length_squared = along.length_squared();
    if length_squared < 1.0 {
        return (Vec::new(), Vec::new());
    }
    let found: Vec<(u32, f32)> = projected(surface, view, allowed, |index, position, pixel| {
        let ramp = (pixel - from).dot(along) / length_squared;
        let facing = surface.normal(index).dot(view.eye - position) > 0.0;
        ((0.0..=1.0).contains(&ramp) && (reach == Reach::Through || facing))
            .then_some((index as u32, ramp))
    });
    found.into_iter().unzip()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::model::{Vertex, Weight};

    /// A flat grid of vertices facing the default camera (+Z world = -Z model normal).
    fn grid(n: usize, spacing: f32, z: f32) -> Model {
        let mut model = Model::default();
        for y in 0..n {
            for x in 0..n {
                model.vertices.push(Vertex {
                    position: pmx_core::model::Vec3::new(
                        (x as f32 - n as f32 / 2.0) * spacing,
                        10.0 + (y as f32 - n as f32 / 2.0) * spacing,
                        z,
                    ),
                    normal: pmx_core::model::Vec3::new(0.0, 0.0, -1.0),
                    weight: Weight::Bdef1 { bone: None },
                    ..Vertex::default()
                });
            }
        }
        model
    }

    fn centre_pixel(view: &BrushView) -> Vec2 {
        view.projector
            .project(Vec3::new(0.0, 10.0, 0.0))
            .map(|(p, _)| p)
            .unwrap_or_default()
    }

    #[test]
    fn falloffs_run_from_full_to_nothing() {
        for falloff in Falloff::ALL {
            assert_eq!(falloff.at(0.0), 1.0);
        }
        assert_eq!(Falloff::Smooth.at(1.0), 0.0);
        assert_eq!(Falloff::Linear.at(0.5), 0.5);
        assert_eq!(Falloff::Constant.at(1.0), 1.0);
        assert!((Falloff::Smooth.at(0.5) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn a_front_dab_paints_the_near_sheet_not_the_one_behind() {
        // Two sheets: the near one at model z = -1 (world +1), the far one 5 units behind.
        let mut model = grid(21, 0.1, -1.0);
        let behind = grid(21, 0.1, 4.0);
        let near_count = model.vertices.len();
        model.vertices.extend(behind.vertices);
        let camera = OrbitCamera::default();
        let size = Vec2::new(800.0, 600.0);
        let view = BrushView::new(&camera, size);
        let at = centre_pixel(&view);
        let shape = BrushShape {
            at,
            radius: 30.0,
            falloff: Falloff::Linear,
            reach: Reach::FrontFaces,
        };
        let dab = dab(&Surface::new(&model, None), &view, &shape, None);
        assert!(!dab.vertices.is_empty());
        assert!(dab.vertices.windows(2).all(|w| w[0] < w[1]), "ascending");
        assert!(dab.vertices.iter().all(|&v| (v as usize) < near_count));
        let centre = dab.centre.expect("over the mesh");
        assert!((centre.z - 1.0).abs() < 0.05, "{centre}");
        let radius = dab.model_radius.expect("a radius");
        // 30 px at ~44 units with a 30° view 600 px high.
        assert!(radius > 0.5 && radius < 2.0, "{radius}");
        // Falloffs: within (0, 1], the vertex nearest the centre strongest.
        assert!(dab.falloffs.iter().all(|&f| f > 0.0 && f <= 1.0));
        // Through reaches the far sheet too.
        let through = super::dab(
            &Surface::new(&model, None),
            &view,
            &BrushShape {
                reach: Reach::Through,
                ..shape
            },
            None,
        );
        assert!(through.vertices.iter().any(|&v| v as usize >= near_count));
    }

    #[test]
    fn a_dab_off_the_mesh_touches_nothing_and_limits_hold() {
        let model = grid(11, 0.1, 0.0);
        let camera = OrbitCamera::default();
        let view = BrushView::new(&camera, Vec2::new(800.0, 600.0));
        let shape = BrushShape {
            at: Vec2::new(5.0, 5.0),
            radius: 20.0,
            falloff: Falloff::Smooth,
            reach: Reach::FrontFaces,
        };
        assert_eq!(
            dab(&Surface::new(&model, None), &view, &shape, None),
            Dab::default()
        );
        let shape = BrushShape {
            at: centre_pixel(&view),
            ..shape
        };
        let mask: Vec<bool> = (0..model.vertices.len()).map(|v| v % 2 == 0).collect();
        let limited = dab(&Surface::new(&model, None), &view, &shape, Some(&mask));
        assert!(!limited.vertices.is_empty());
        assert!(limited.vertices.iter().all(|&v| v % 2 == 0));
    }

    #[test]
    fn a_gradient_ramps_along_the_drag() {
        let model = grid(11, 0.2, 0.0);
        let camera = OrbitCamera::default();
        let view = BrushView::new(&camera, Vec2::new(800.0, 600.0));
        let centre = centre_pixel(&view);
        let (vertices, ramp) = gradient(
            &Surface::new(&model, None),
            &view,
            centre - Vec2::new(20.0, 0.0),
            centre + Vec2::new(20.0, 0.0),
            Reach::FrontFaces,
            None,
        );
        assert!(!vertices.is_empty());
        for (&v, &t) in vertices.iter().zip(&ramp) {
            let x = model.vertices[v as usize].position.x;
            let expected_sign = if t < 0.45 {
                -1.0
            } else if t > 0.55 {
                1.0
            } else {
                0.0
            };
            if expected_sign != 0.0 {
                assert_eq!(x.signum(), expected_sign, "vertex {v} at {x}, ramp {t}");
            }
        }
    }
}
