//! What the camera sees, as LOD needs it: the frustum to cull with and the pixels a world
//! distance covers at a depth.

use glam::{Mat4, Vec2, Vec3, Vec4, Vec4Swizzles};

/// What the camera sees, for culling and for the size of a world distance on screen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodView {
    pub view_from_world: Mat4,
    pub clip_from_world: Mat4,
    /// Pixels per unit of `x/z` or `y/z` in view space (half the height over tan(fov/2)).
    pub focal_px: f32,
    /// `tan(fov_x/2)`, `tan(fov_y/2)`: the most `|x/z|`, `|y/z|` a point on screen has.
    pub tan_half_fov: Vec2,
    pub near: f32,
    pub viewport_px: Vec2,
    /// The frustum's planes (inside: `dot(plane, (p, 1)) >= 0`), normalised.
    planes: [Vec4; 6],
}

impl LodView {
    /// A perspective view (`perspective_rh`, vertical field of view `fov_y_rad`) of a
    /// `viewport_px` image.
    pub fn new(
        view_from_world: Mat4,
        fov_y_rad: f32,
        near: f32,
        far: f32,
        viewport_px: Vec2,
    ) -> Self {
        let aspect = viewport_px.x / viewport_px.y.max(1.0);
        let clip_from_view = Mat4::perspective_rh(fov_y_rad, aspect.max(0.01), near, far);
        let clip_from_world = clip_from_view * view_from_world;
        let tan_y = (fov_y_rad * 0.5).tan();
        let tan_x = tan_y * aspect;
        // Gribb–Hartmann: each plane is a sum or difference of the matrix's rows (wgpu's
        // depth runs 0..1, so the near plane is the third row alone).
        let m = clip_from_world.transpose();
        let (r0, r1, r2, r3) = (m.x_axis, m.y_axis, m.z_axis, m.w_axis);
        let planes = [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r2, r3 - r2]
            .map(|p| p / p.xyz().length().max(f32::MIN_POSITIVE));
        LodView {
            view_from_world,
            clip_from_world,
            focal_px: viewport_px.y * 0.5 / tan_y,
            tan_half_fov: Vec2::new(tan_x, tan_y),
            near,
            viewport_px,
            planes,
        }
    }

    /// The frustum's planes (inside: `dot(plane, (p, 1)) >= 0`), normalised.
    pub fn planes(&self) -> [Vec4; 6] {
        self.planes
    }

    /// Whether any part of the sphere may be inside the frustum.
    pub fn sees(&self, center: Vec3, radius: f32) -> bool {
        self.planes
            .iter()
            .all(|p| p.xyz().dot(center) + p.w >= -radius)
    }

    /// How much more than `focal / z · |d|` pixels a world displacement `d` anywhere in
    /// the sphere may move on screen: `√(1 + a² + b²)`, the norm of the projection's
    /// derivative with `a`, `b` the largest `|x/z|`, `|y/z|` a point of the sphere (in front
    /// of `depth`) has, and at most the frustum's edges (points off screen draw nothing).
    pub fn off_axis(&self, view_center: Vec3, radius: f32, depth: f32) -> f32 {
        let a = ((view_center.x.abs() + radius) / depth).min(self.tan_half_fov.x);
        let b = ((view_center.y.abs() + radius) / depth).min(self.tan_half_fov.y);
        (1.0 + a * a + b * b).sqrt()
    }

    /// Distance in front of the camera (view-space −z).
    pub fn depth(&self, world: Vec3) -> f32 {
        -(self.view_from_world * world.extend(1.0)).z
    }

    /// Where `world` lands in the image, pixels; `None` behind the near plane.
    pub fn project_px(&self, world: Vec3) -> Option<Vec2> {
        self.px_from_clip(self.clip_from_world * world.extend(1.0))
    }

    /// Where a point at clip-space `clip` (of this view's `clip_from_world`) lands in the
    /// image, pixels; `None` behind the near plane.
    pub(super) fn px_from_clip(&self, clip: Vec4) -> Option<Vec2> {
        if clip.w < self.near {
            return None;
        }
        let ndc = clip.xy() / clip.w;
        Some(Vec2::new(
            (ndc.x + 1.0) * 0.5 * self.viewport_px.x,
            (1.0 - ndc.y) * 0.5 * self.viewport_px.y,
        ))
    }
}
