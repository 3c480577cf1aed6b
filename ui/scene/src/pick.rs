//! Picking in the 3D view without a GPU: rays against triangles and rigid-body shapes, points
//! near the pointer in screen space, and rectangle selection. Everything takes world-space
//! positions (see [`super::camera::to_world`]) and skips what is not finite, so a broken model
//! never makes a click fail.

use crate::camera::{Projector, Ray};
use glam::{Quat, Vec2, Vec3};

/// Möller–Trumbore: the distance along `ray` to triangle `abc` (either side), if hit.
#[must_use]
pub fn ray_triangle(ray: &Ray, a: Vec3, b: Vec3, c: Vec3) -> Option<f32> {
    let edge1 = b - a;
    let edge2 = c - a;
    let p = ray.direction.cross(edge2);
    let det = edge1.dot(p);
    if !det.is_finite() || det.abs() < 1.0e-12 {
        return None;
    }
    let inverse = 1.0 / det;
    let s = ray.origin - a;
    let u = s.dot(p) * inverse;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(edge1);
    let v = ray.direction.dot(q) * inverse;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = edge2.dot(q) * inverse;
    (t > 0.0 && t.is_finite()).then_some(t)
}

/// Every triangle `ray` crosses, in face order: (face index, distance). Faces with vertex
/// indices out of range are skipped.
fn face_hits<'a>(
    ray: &'a Ray,
    positions: &'a [Vec3],
    faces: &'a [[u32; 3]],
) -> impl Iterator<Item = (usize, f32)> + 'a {
    faces.iter().enumerate().filter_map(|(index, face)| {
        let a = *positions.get(face[0] as usize)?;
        let b = *positions.get(face[1] as usize)?;
        let c = *positions.get(face[2] as usize)?;
        ray_triangle(ray, a, b, c).map(|t| (index, t))
    })
}

/// The nearest triangle `ray` hits: (face index, distance); the first face wins a tie. Faces
/// with vertex indices out of range are skipped.
#[must_use]
pub fn pick_face(ray: &Ray, positions: &[Vec3], faces: &[[u32; 3]]) -> Option<(usize, f32)> {
    face_hits(ray, positions, faces).min_by(|a, b| a.1.total_cmp(&b.1))
}

/// Every triangle `ray` crosses, nearest first: (face index, distance). What adding a bone
/// inside the mesh needs (the front hit and the one where the ray leaves); faces with vertex
/// indices out of range are skipped.
#[must_use]
pub fn ray_hits(ray: &Ray, positions: &[Vec3], faces: &[[u32; 3]]) -> Vec<(usize, f32)> {
    let mut hits: Vec<(usize, f32)> = face_hits(ray, positions, faces).collect();
    hits.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    hits
}

/// The point inside a closed surface under `ray`: the middle of the front hit and the next
/// hit behind it (where the ray leaves), the front hit alone when there is no other; `None`
/// when `hits` (distances, nearest first, as [`ray_hits`] gives them) is empty. Hits within
/// `1e-4` of the front one (the shared edge of two triangles, a doubled face) are the same
/// crossing.
#[must_use]
pub fn inside_point(ray: &Ray, hits: &[f32]) -> Option<Vec3> {
    let front = *hits.first()?;
    let tolerance = 1.0e-4 * front.abs().max(1.0);
    let back = hits.iter().copied().find(|&t| t > front + tolerance);
    Some(ray.at(back.map_or(front, |back| (front + back) * 0.5)))
}

/// The point nearest to `pixel` on screen within `radius` pixels (ties go to the nearer one in
/// depth): its index.
pub fn pick_point(
    projector: &Projector,
    points: impl IntoIterator<Item = Vec3>,
    pixel: Vec2,
    radius: f32,
) -> Option<usize> {
    let mut best: Option<(usize, f32, f32)> = None;
    for (index, point) in points.into_iter().enumerate() {
        let Some((at, depth)) = projector.project(point) else {
            continue;
        };
        if depth > 1.0 {
            continue;
        }
        let distance = at.distance(pixel);
        if distance > radius {
            continue;
        }
        let better = match best {
            None => true,
            Some((_, d, z)) => distance < d - 0.5 || (distance <= d + 0.5 && depth < z),
        };
        if better {
            best = Some((index, distance, depth));
        }
    }
    best.map(|(index, _, _)| index)
}

/// Indices of the points inside the screen rectangle `min..max` (in front of the camera).
pub fn points_in_rect(
    projector: &Projector,
    points: impl IntoIterator<Item = Vec3>,
    min: Vec2,
    max: Vec2,
) -> Vec<usize> {
    let (lo, hi) = (min.min(max), min.max(max));
    points_where(projector, points, |at| {
        at.cmpge(lo).all() && at.cmple(hi).all()
    })
}

/// Indices of the points (in front of the camera) whose pixel `inside` accepts: what the
/// rectangle, lasso and brush selections share.
pub fn points_where(
    projector: &Projector,
    points: impl IntoIterator<Item = Vec3>,
    inside: impl Fn(Vec2) -> bool,
) -> Vec<usize> {
    points
        .into_iter()
        .enumerate()
        .filter_map(|(index, point)| {
            let (at, depth) = projector.project(point)?;
            (depth <= 1.0 && inside(at)).then_some(index)
        })
        .collect()
}

/// Whether `p` lies inside the closed `polygon` (a lasso; even-odd rule: a ray to the right
/// crosses its edges an odd number of times). Fewer than three corners hold nothing.
#[must_use]
pub fn inside_polygon(polygon: &[Vec2], p: Vec2) -> bool {
    if polygon.len() < 3 {
        return false;
    }
    let mut inside = false;
    let mut j = polygon.len() - 1;
    for i in 0..polygon.len() {
        let (a, b) = (polygon[i], polygon[j]);
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if p.x < x {
                inside = !inside;
            }
        }
        j = i;
    }
    inside
}

/// A rigid body's shape in world space, for picking and drawing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    Sphere {
        radius: f32,
    },
    /// Half extents along the local axes.
    Box {
        half: Vec3,
    },
    /// Along the local Y axis: `half_height` from the centre to each hemisphere's centre.
    Capsule {
        radius: f32,
        half_height: f32,
    },
}

/// A placed shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Solid {
    pub shape: Shape,
    pub center: Vec3,
    pub rotation: Quat,
}

fn ray_sphere(origin: Vec3, direction: Vec3, center: Vec3, radius: f32) -> Option<f32> {
    let m = origin - center;
    let b = m.dot(direction);
    let c = m.length_squared() - radius * radius;
    if c > 0.0 && b > 0.0 {
        return None;
    }
    let discriminant = b * b - c;
    if discriminant < 0.0 {
        return None;
    }
    Some((-b - discriminant.sqrt()).max(0.0))
}

impl Solid {
    /// Distance along `ray` to the surface (0 when the ray starts inside).
    #[must_use]
    pub fn intersect(&self, ray: &Ray) -> Option<f32> {
        if !self.center.is_finite() || !self.rotation.is_finite() {
            return None;
        }
        // In the shape's local frame the direction stays unit length.
        let inverse = self.rotation.inverse();
        let origin = inverse * (ray.origin - self.center);
        let direction = inverse * ray.direction;
        let hit = match self.shape {
            Shape::Sphere { radius } => ray_sphere(origin, direction, Vec3::ZERO, radius.abs()),
            Shape::Box { half } => {
                let half = half.abs();
                let mut near = f32::NEG_INFINITY;
                let mut far = f32::INFINITY;
                for axis in 0..3 {
                    let (o, d, h) = (origin[axis], direction[axis], half[axis]);
                    if d.abs() < 1.0e-12 {
                        if o.abs() > h {
                            return None;
                        }
                        continue;
                    }
                    let (t1, t2) = ((-h - o) / d, (h - o) / d);
                    near = near.max(t1.min(t2));
                    far = far.min(t1.max(t2));
                }
                (near <= far && far >= 0.0).then_some(near.max(0.0))
            }
            Shape::Capsule {
                radius,
                half_height,
            } => {
                let radius = radius.abs();
                let half_height = half_height.abs();
                // The cylinder (infinite, then clipped), and the two end spheres.
                let mut best: Option<f32> = None;
                let a = direction.x * direction.x + direction.z * direction.z;
                if a > 1.0e-12 {
                    let b = origin.x * direction.x + origin.z * direction.z;
                    let c = origin.x * origin.x + origin.z * origin.z - radius * radius;
                    let discriminant = b * b - a * c;
                    if discriminant >= 0.0 {
                        let t = ((-b - discriminant.sqrt()) / a).max(0.0);
                        let y = origin.y + direction.y * t;
                        if y.abs() <= half_height {
                            best = Some(t);
                        }
                    }
                }
                for end in [half_height, -half_height] {
                    if let Some(t) = ray_sphere(origin, direction, Vec3::Y * end, radius) {
                        best = Some(best.map_or(t, |b| b.min(t)));
                    }
                }
                best
            }
        };
        hit.filter(|t| t.is_finite())
    }
}

/// The nearest solid `ray` hits: its index.
pub fn pick_solid(ray: &Ray, solids: impl IntoIterator<Item = Solid>) -> Option<usize> {
    solids
        .into_iter()
        .enumerate()
        .filter_map(|(index, solid)| solid.intersect(ray).map(|t| (index, t)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(index, _)| index)
}

#[cfg(test)]
mod tests {
    use super::super::camera::OrbitCamera;
    use super::*;

    fn ray(origin: Vec3, direction: Vec3) -> Ray {
        Ray {
            origin,
            direction: direction.normalize(),
        }
    }

    #[test]
    fn ray_hits_triangle_at_its_distance() {
        let r = ray(Vec3::new(0.25, 0.25, 5.0), Vec3::NEG_Z);
        let t = ray_triangle(&r, Vec3::ZERO, Vec3::X, Vec3::Y).expect("hit");
        assert!((t - 5.0).abs() < 1.0e-6);
        let miss = ray(Vec3::new(0.75, 0.75, 5.0), Vec3::NEG_Z);
        assert_eq!(ray_triangle(&miss, Vec3::ZERO, Vec3::X, Vec3::Y), None);
        // Behind the origin: no hit.
        let away = ray(Vec3::new(0.25, 0.25, 5.0), Vec3::Z);
        assert_eq!(ray_triangle(&away, Vec3::ZERO, Vec3::X, Vec3::Y), None);
    }

    #[test]
    fn nearest_face_wins_and_bad_indices_are_skipped() {
        let positions = vec![
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(-1.0, -1.0, 2.0),
            Vec3::new(1.0, -1.0, 2.0),
            Vec3::new(0.0, 1.0, 2.0),
            Vec3::new(f32::NAN, 0.0, 0.0),
        ];
        let faces = [[0, 1, 2], [3, 4, 5], [0, 1, 99], [6, 1, 2]];
        let r = ray(Vec3::new(0.0, 0.0, 10.0), Vec3::NEG_Z);
        let (face, t) = pick_face(&r, &positions, &faces).expect("hit");
        assert_eq!(face, 1);
        assert!((t - 8.0).abs() < 1.0e-5);
    }

    #[test]
    fn every_hit_nearest_first_and_the_point_between_the_first_two() {
        let positions = vec![
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(-1.0, -1.0, 2.0),
            Vec3::new(1.0, -1.0, 2.0),
            Vec3::new(0.0, 1.0, 2.0),
        ];
        let faces = [[0, 1, 2], [3, 4, 5], [0, 1, 7]];
        let r = ray(Vec3::new(0.0, 0.0, 10.0), Vec3::NEG_Z);
        let hits = ray_hits(&r, &positions, &faces);
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![1, 0]);
        let distances: Vec<f32> = hits.iter().map(|h| h.1).collect();
        let inside = inside_point(&r, &distances).expect("hit");
        assert!((inside - Vec3::new(0.0, 0.0, 1.0)).length() < 1.0e-5);
        // A doubled front face is one crossing; one hit alone is that point; none is none.
        let inside = inside_point(&r, &[8.0, 8.0, 10.0]).expect("hit");
        assert!((inside - Vec3::new(0.0, 0.0, 1.0)).length() < 1.0e-5);
        assert_eq!(inside_point(&r, &[8.0]), Some(Vec3::new(0.0, 0.0, 2.0)));
        assert_eq!(inside_point(&r, &[]), None);
    }

    #[test]
    fn vertex_picking_on_known_geometry() {
        let camera = OrbitCamera::default();
        let size = Vec2::new(800.0, 600.0);
        let projector = Projector::new(&camera, size);
        // The target is at the centre of the view; a point 1 unit right is some pixels right.
        let points = [
            Vec3::new(0.0, 10.0, 0.0),
            Vec3::new(1.0, 10.0, 0.0),
            Vec3::new(0.0, 10.0, 5.0),
            Vec3::new(f32::NAN, 10.0, 0.0),
        ];
        // Two points at the centre pixel: the one nearer the camera wins.
        assert_eq!(pick_point(&projector, points, size * 0.5, 6.0), Some(2));
        let (right, _) = projector.project(points[1]).expect("visible");
        assert!((right.x - 400.0 - 1.0 / camera.world_per_pixel(600.0)).abs() < 0.5);
        assert_eq!(
            pick_point(&projector, points, right + Vec2::new(3.0, 0.0), 6.0),
            Some(1)
        );
        assert_eq!(
            pick_point(&projector, points, Vec2::new(10.0, 10.0), 6.0),
            None
        );
        let inside = points_in_rect(
            &projector,
            points,
            Vec2::new(390.0, 290.0),
            Vec2::new(410.0, 310.0),
        );
        assert_eq!(inside, vec![0, 2]);
        // Corners in either order.
        let all = points_in_rect(&projector, points, Vec2::new(800.0, 600.0), Vec2::ZERO);
        assert_eq!(all, vec![0, 1, 2]);
    }

    #[test]
    fn solids_are_hit_where_their_surface_is() {
        let r = ray(Vec3::new(0.0, 0.0, 10.0), Vec3::NEG_Z);
        let sphere = Solid {
            shape: Shape::Sphere { radius: 2.0 },
            center: Vec3::ZERO,
            rotation: Quat::IDENTITY,
        };
        assert!((sphere.intersect(&r).expect("hit") - 8.0).abs() < 1.0e-5);
        let boxed = Solid {
            shape: Shape::Box {
                half: Vec3::new(1.0, 1.0, 3.0),
            },
            center: Vec3::ZERO,
            rotation: Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        };
        // Rotated 90° about Y: the long local Z axis now lies along world X.
        assert!((boxed.intersect(&r).expect("hit") - 9.0).abs() < 1.0e-5);
        let side = ray(Vec3::new(10.0, 0.0, 0.0), Vec3::NEG_X);
        assert!((boxed.intersect(&side).expect("hit") - 7.0).abs() < 1.0e-5);
        let capsule = Solid {
            shape: Shape::Capsule {
                radius: 1.0,
                half_height: 2.0,
            },
            center: Vec3::new(0.0, 0.0, 0.0),
            rotation: Quat::IDENTITY,
        };
        let down = ray(Vec3::new(0.0, 10.0, 0.0), Vec3::NEG_Y);
        assert!((capsule.intersect(&down).expect("hit") - 7.0).abs() < 1.0e-5);
        assert!((capsule.intersect(&r).expect("hit") - 9.0).abs() < 1.0e-5);
        let past = ray(Vec3::new(0.0, 3.5, 10.0), Vec3::NEG_Z);
        assert_eq!(capsule.intersect(&past), None);
        assert_eq!(pick_solid(&r, [capsule, sphere, boxed]), Some(1));
    }
}
