//! The view's camera, as MikuMikuDance moves it: it orbits a target point, pans the target,
//! zooms by distance, and has front/back/left/right/top presets. GPU-free: the renderer and the
//! picking both take their matrices from here, and tests check them without a GL context.
//!
//! World space is the model's space with Z negated (PMX is left-handed like DirectX, OpenGL is
//! right-handed): see [`to_world`]. The model faces +Z in world space, towards the default camera.

use glam::{Mat4, Quat, Vec2, Vec3, Vec4Swizzles as _};

/// MikuMikuDance's default view: looking at (0, 10, 0) from 45 units in front, 30° field of view.
pub const DEFAULT_TARGET: Vec3 = Vec3::new(0.0, 10.0, 0.0);
pub const DEFAULT_DISTANCE: f32 = 45.0;
pub const DEFAULT_FOV_Y_DEGREES: f32 = 30.0;

/// A model-space point or direction in world space (Z negated).
#[must_use]
pub fn to_world(v: pmx_core::model::Vec3) -> Vec3 {
    Vec3::new(v.x, v.y, -v.z)
}

/// A world-space point or direction back in model space.
#[must_use]
pub fn to_model(v: Vec3) -> pmx_core::model::Vec3 {
    pmx_core::model::Vec3::new(v.x, v.y, -v.z)
}

/// Named camera directions (MikuMikuDance's 視点 buttons).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CameraPreset {
    Front,
    Back,
    /// From the model's left side (its left hand points at the camera).
    Left,
    Right,
    Top,
    /// From below (MMD's keypad 0): the screen's up is the model's front.
    Bottom,
}

impl CameraPreset {
    pub const ALL: [CameraPreset; 6] = [
        CameraPreset::Front,
        CameraPreset::Back,
        CameraPreset::Left,
        CameraPreset::Right,
        CameraPreset::Top,
        CameraPreset::Bottom,
    ];

    /// (yaw, pitch) in radians.
    #[must_use]
    pub fn angles(self) -> (f32, f32) {
        use std::f32::consts::{FRAC_PI_2, PI};
        match self {
            CameraPreset::Front => (0.0, 0.0),
            CameraPreset::Back => (PI, 0.0),
            // The model's left side is +X (MMD puts left-side bones at positive X).
            CameraPreset::Left => (FRAC_PI_2, 0.0),
            CameraPreset::Right => (-FRAC_PI_2, 0.0),
            CameraPreset::Top => (0.0, FRAC_PI_2),
            CameraPreset::Bottom => (0.0, -FRAC_PI_2),
        }
    }

    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            CameraPreset::Front => "view.camera_front",
            CameraPreset::Back => "view.camera_back",
            CameraPreset::Left => "view.camera_left",
            CameraPreset::Right => "view.camera_right",
            CameraPreset::Top => "view.camera_top",
            CameraPreset::Bottom => "view.camera_bottom",
        }
    }
}

/// A ray in world space (`direction` is unit length).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    pub origin: Vec3,
    pub direction: Vec3,
}

impl Ray {
    #[must_use]
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.direction * t
    }
}

/// An orbiting camera.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    pub target: Vec3,
    /// Rotation about the vertical axis; 0 looks at the model's front.
    pub yaw: f32,
    /// Rotation above the horizon; positive looks down from above.
    pub pitch: f32,
    pub distance: f32,
    pub fov_y: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            target: DEFAULT_TARGET,
            yaw: 0.0,
            pitch: 0.0,
            distance: DEFAULT_DISTANCE,
            fov_y: DEFAULT_FOV_Y_DEGREES.to_radians(),
        }
    }
}

/// Radians of orbit per pixel dragged.
const ORBIT_PER_PIXEL: f32 = 0.008;
/// Distance factor per wheel notch (a notch is about 50 points in egui).
const ZOOM_PER_POINT: f32 = 0.002;
const MIN_DISTANCE: f32 = 0.01;
const MAX_DISTANCE: f32 = 1.0e6;

impl OrbitCamera {
    /// The camera's orientation: its local -Z looks at the target, its local +Y is up.
    #[must_use]
    pub fn rotation(&self) -> Quat {
        Quat::from_rotation_y(self.yaw) * Quat::from_rotation_x(-self.pitch)
    }

    #[must_use]
    pub fn eye(&self) -> Vec3 {
        self.target + self.rotation() * Vec3::new(0.0, 0.0, self.distance)
    }

    #[must_use]
    pub fn up(&self) -> Vec3 {
        self.rotation() * Vec3::Y
    }

    /// The camera's right direction on screen.
    #[must_use]
    pub fn right(&self) -> Vec3 {
        self.rotation() * Vec3::X
    }

    #[must_use]
    pub fn view_matrix(&self) -> Mat4 {
        Mat4::look_at_rh(self.eye(), self.target, self.up())
    }

    /// Near and far planes that keep depth precision around the target.
    #[must_use]
    pub fn clip_planes(&self) -> (f32, f32) {
        let near = (self.distance * 0.01).max(1.0e-3);
        let far = self.distance * 100.0 + 1000.0;
        (near, far)
    }

    #[must_use]
    pub fn projection_matrix(&self, aspect: f32) -> Mat4 {
        let (near, far) = self.clip_planes();
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        Mat4::perspective_rh_gl(self.fov_y, aspect, near, far)
    }

    /// Projection × view for a viewport of `size` pixels.
    #[must_use]
    pub fn view_projection(&self, size: Vec2) -> Mat4 {
        self.projection_matrix(size.x / size.y.max(1.0)) * self.view_matrix()
    }

    pub fn reset(&mut self) {
        *self = Self {
            fov_y: self.fov_y,
            ..Self::default()
        };
    }

    pub fn apply_preset(&mut self, preset: CameraPreset) {
        let (yaw, pitch) = preset.angles();
        self.yaw = yaw;
        self.pitch = pitch;
    }

    /// Orbits by a drag of `delta` pixels (right = turn the model to the right, as in MMD).
    pub fn orbit(&mut self, delta: Vec2) {
        use std::f32::consts::{FRAC_PI_2, TAU};
        self.yaw = (self.yaw - delta.x * ORBIT_PER_PIXEL).rem_euclid(TAU);
        self.pitch = (self.pitch + delta.y * ORBIT_PER_PIXEL).clamp(-FRAC_PI_2, FRAC_PI_2);
    }

    /// Pans so that the point under the pointer follows a drag of `delta` pixels in a viewport
    /// `viewport_height` pixels high.
    pub fn pan(&mut self, delta: Vec2, viewport_height: f32) {
        let world_per_pixel = self.world_per_pixel(viewport_height);
        self.target += (-self.right() * delta.x + self.up() * delta.y) * world_per_pixel;
    }

    /// Zooms by a wheel scroll of `points` (positive: closer).
    pub fn zoom(&mut self, points: f32) {
        let factor = (-points * ZOOM_PER_POINT).exp();
        self.distance = (self.distance * factor).clamp(MIN_DISTANCE, MAX_DISTANCE);
    }

    /// World units per pixel at the target's depth.
    #[must_use]
    pub fn world_per_pixel(&self, viewport_height: f32) -> f32 {
        2.0 * self.distance * (self.fov_y * 0.5).tan() / viewport_height.max(1.0)
    }

    /// Centres `center` and moves so that a sphere of `radius` fills the view.
    pub fn frame(&mut self, center: Vec3, radius: f32) {
        if !center.is_finite() {
            return;
        }
        self.target = center;
        let radius = if radius.is_finite() && radius > 0.0 {
            radius
        } else {
            1.0
        };
        self.distance = (radius * 1.1 / (self.fov_y * 0.5).sin()).clamp(MIN_DISTANCE, MAX_DISTANCE);
    }

    /// The ray through `pixel` (origin top left) of a viewport of `size` pixels.
    #[must_use]
    pub fn ray(&self, pixel: Vec2, size: Vec2) -> Ray {
        let ndc = Vec2::new(
            2.0 * pixel.x / size.x.max(1.0) - 1.0,
            1.0 - 2.0 * pixel.y / size.y.max(1.0),
        );
        let inverse = self.view_projection(size).inverse();
        let near = inverse * glam::Vec4::new(ndc.x, ndc.y, -1.0, 1.0);
        let far = inverse * glam::Vec4::new(ndc.x, ndc.y, 1.0, 1.0);
        let near = near.xyz() / near.w;
        let far = far.xyz() / far.w;
        Ray {
            origin: self.eye(),
            direction: (far - near).normalize_or(Vec3::NEG_Z),
        }
    }
}

/// Projects world points to viewport pixels (origin top left).
#[derive(Debug, Clone, Copy)]
pub struct Projector {
    pub view_projection: Mat4,
    pub size: Vec2,
}

impl Projector {
    #[must_use]
    pub fn new(camera: &OrbitCamera, size: Vec2) -> Self {
        Self {
            view_projection: camera.view_projection(size),
            size,
        }
    }

    /// The pixel of `point` and its NDC depth (-1 near .. 1 far); `None` behind the camera or
    /// not finite.
    #[must_use]
    pub fn project(&self, point: Vec3) -> Option<(Vec2, f32)> {
        let clip = self.view_projection * point.extend(1.0);
        if clip.w.is_nan() || clip.w <= 1.0e-6 {
            return None;
        }
        let ndc = clip.xyz() / clip.w;
        if !ndc.is_finite() {
            return None;
        }
        let pixel = Vec2::new(
            (ndc.x + 1.0) * 0.5 * self.size.x,
            (1.0 - ndc.y) * 0.5 * self.size.y,
        );
        Some((pixel, ndc.z))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1.0e-4
    }

    #[test]
    fn default_camera_is_mmds() {
        let camera = OrbitCamera::default();
        assert!(close(camera.eye(), Vec3::new(0.0, 10.0, 45.0)));
        assert!(close(camera.up(), Vec3::Y));
        // The model's front faces -Z in PMX, +Z in world space: the camera sees it.
        assert_eq!(
            to_world(pmx_core::model::Vec3::new(1.0, 2.0, -3.0)),
            Vec3::new(1.0, 2.0, 3.0)
        );
    }

    #[test]
    fn presets_place_the_eye() {
        let mut camera = OrbitCamera::default();
        camera.apply_preset(CameraPreset::Back);
        assert!(close(camera.eye(), Vec3::new(0.0, 10.0, -45.0)));
        camera.apply_preset(CameraPreset::Left);
        assert!(close(camera.eye(), Vec3::new(45.0, 10.0, 0.0)));
        camera.apply_preset(CameraPreset::Right);
        assert!(close(camera.eye(), Vec3::new(-45.0, 10.0, 0.0)));
        camera.apply_preset(CameraPreset::Top);
        assert!(close(camera.eye(), Vec3::new(0.0, 55.0, 0.0)));
        // Looking straight down, the screen's up is the model's back (world -Z).
        assert!(close(camera.up(), Vec3::new(0.0, 0.0, -1.0)));
        camera.apply_preset(CameraPreset::Bottom);
        assert!(close(camera.eye(), Vec3::new(0.0, -35.0, 0.0)));
        // Looking straight up, the screen's up is the model's front (world +Z).
        assert!(close(camera.up(), Vec3::new(0.0, 0.0, 1.0)));
    }

    #[test]
    fn centre_pixel_ray_hits_the_target() {
        let camera = OrbitCamera::default();
        let size = Vec2::new(800.0, 600.0);
        let ray = camera.ray(size * 0.5, size);
        assert!(close(ray.origin, Vec3::new(0.0, 10.0, 45.0)));
        assert!(close(ray.direction, Vec3::NEG_Z));
        assert!(close(ray.at(45.0), DEFAULT_TARGET));
    }

    #[test]
    fn projection_and_ray_agree() {
        let mut camera = OrbitCamera::default();
        camera.orbit(Vec2::new(37.0, -12.0));
        let size = Vec2::new(640.0, 480.0);
        let projector = Projector::new(&camera, size);
        let point = Vec3::new(3.0, 12.5, -2.0);
        let (pixel, depth) = projector.project(point).expect("in front");
        assert!(depth > -1.0 && depth < 1.0);
        let ray = camera.ray(pixel, size);
        let along = (point - ray.origin).dot(ray.direction);
        assert!((ray.at(along) - point).length() < 1.0e-3);
        // The top edge of the view is half the field of view above the target.
        let (top, _) = projector
            .project(DEFAULT_TARGET + Vec3::Y * 45.0 * (camera.fov_y * 0.5).tan())
            .expect("visible");
        assert!(top.y.abs() < 40.0);
        // Behind the camera: nothing.
        assert!(
            projector
                .project(camera.eye() + (camera.eye() - camera.target))
                .is_none()
        );
    }

    #[test]
    fn pan_moves_the_target_with_the_pointer() {
        let mut camera = OrbitCamera::default();
        let height = 500.0;
        let per_pixel = camera.world_per_pixel(height);
        camera.pan(Vec2::new(10.0, 0.0), height);
        // Dragging right moves the view's content right: the target moves left.
        assert!(close(
            camera.target,
            Vec3::new(-10.0 * per_pixel, 10.0, 0.0)
        ));
        assert!((per_pixel - 2.0 * 45.0 * 15f32.to_radians().tan() / 500.0).abs() < 1.0e-6);
    }

    #[test]
    fn zoom_orbit_and_frame_stay_bounded() {
        let mut camera = OrbitCamera::default();
        camera.zoom(100.0);
        assert!((camera.distance - 45.0 * (-0.2f32).exp()).abs() < 1.0e-3);
        camera.zoom(-1.0e9);
        assert_eq!(camera.distance, MAX_DISTANCE);
        camera.orbit(Vec2::new(0.0, 1.0e6));
        assert_eq!(camera.pitch, std::f32::consts::FRAC_PI_2);
        camera.frame(Vec3::new(1.0, 2.0, 3.0), 5.0);
        assert_eq!(camera.target, Vec3::new(1.0, 2.0, 3.0));
        assert!((camera.distance - 5.5 / 15f32.to_radians().sin()).abs() < 1.0e-3);
        camera.frame(Vec3::new(f32::NAN, 0.0, 0.0), 5.0);
        assert_eq!(camera.target, Vec3::new(1.0, 2.0, 3.0));
        camera.reset();
        assert_eq!(camera, OrbitCamera::default());
    }
}
