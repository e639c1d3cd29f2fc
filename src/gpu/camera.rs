//! The camera: an orbit camera around the crowd, where it starts (`--camera`), the
//! uniform the shaders read (view-projection, the sun's view-projection for the shadow
//! map, the eye, the light direction, the ground), and the projection LOD plans with.
//!
//! How it works: the camera orbits a target point at a distance, yaw and pitch; its view
//! and projection, with a far plane that covers the crowd's ground, give the crowd pass's
//! view-projection, and the same view feeds [`LodView`], so LOD projects exactly what is
//! drawn. The sun looks at the crowd along a fixed direction through an orthographic
//! projection over the ground.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4};

use crate::crowd::lod::LodView;
use crate::variant::PlainSpec;

crate::gpu_struct! {
    /// The frame's camera and sun (`Camera` in crowd.wgsl).
    #[derive(Clone, Copy, Pod, Zeroable)]
    pub struct CameraUniform in "Camera" {
        pub view_proj: Mat4,
        /// The sun's view-projection (world → shadow-map clip space).
        pub light_view_proj: Mat4,
        pub eye: Vec4,
        pub light_dir: Vec4,
        pub ground: Vec4,
    }
}

const _: () = assert!(std::mem::size_of::<CameraUniform>() == 176);

crate::declare_variants! {
    /// Where the camera starts (`--camera`), and the bench's `crowd` workload's views.
    pub enum CameraStart: PlainSpec in "camera" {
        Overview => PlainSpec {
            name: "overview",
            description: "frames the whole crowd from above",
        },
        Street => PlainSpec {
            name: "street",
            description: "at the crowd's corner at eye height, looking across it to its centre",
        },
    }
}

/// What [`OrbitCamera::framing`] leaves around the crowd's centres: room for the outer
/// characters' own width.
pub const FRAME_MARGIN_METRES: f32 = 1.5;
/// The nearest the camera comes to its target: outside the centre character.
pub const MIN_DISTANCE: f32 = 2.5;
/// The farthest the camera goes: far enough to frame a million characters spaced for
/// clips that move several metres (a square kilometre or more of crowd).
const MAX_DISTANCE: f32 = 50_000.0;

/// An orbit camera around a target point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    pub target: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub distance: f32,
}

impl OrbitCamera {
    /// A view that frames a crowd whose characters stand within `extent` metres of the
    /// centre along x and z: the nearest distance at which every corner of that square,
    /// grown by [`FRAME_MARGIN_METRES`], at the feet and at head height, lies inside 90 %
    /// of a square viewport (so it also fits any wider one, such as the window beside the
    /// panel).
    pub fn framing(extent: f32) -> Self {
        Self::framing_rect([extent, extent])
    }

    /// [`Self::framing`] for a crowd within `half_extents` metres of the centre along x
    /// and z respectively.
    pub fn framing_rect(half_extents: [f32; 2]) -> Self {
        Self::framing_rect_in(half_extents, 1.0)
    }

    /// [`Self::framing_rect`] for a viewport `aspect` (width over height) wide: one
    /// narrower than square (a small window beside the panel) is fitted as it is, one wider
    /// as a square, which it then also fits.
    pub fn framing_rect_in(half_extents: [f32; 2], aspect: f32) -> Self {
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect.min(1.0)
        } else {
            1.0
        };
        let mut camera = OrbitCamera {
            target: Vec3::new(0.0, 0.9, 0.0),
            yaw: 0.55,
            pitch: 0.42,
            distance: MIN_DISTANCE,
        };
        let [reach_x, reach_z] = half_extents.map(|e| e.max(0.0) + FRAME_MARGIN_METRES);
        let reach = reach_x.max(reach_z);
        let corners: Vec<Vec3> = [-reach_x, reach_x]
            .into_iter()
            .flat_map(|x| [-reach_z, reach_z].map(|z| (x, z)))
            .flat_map(|(x, z)| [Vec3::new(x, 0.0, z), Vec3::new(x, 2.0, z)])
            .collect();
        let fits = |camera: &OrbitCamera| {
            let (view, far) = camera.view_and_far(reach);
            let view_proj = Mat4::perspective_rh(Self::FOV_Y_RAD, aspect, Self::NEAR, far) * view;
            corners.iter().all(|&p| {
                let clip = view_proj * p.extend(1.0);
                clip.w > Self::NEAR && clip.x.abs() <= 0.9 * clip.w && clip.y.abs() <= 0.9 * clip.w
            })
        };
        // Farther fits more: halve the interval between a distance that does not fit and
        // one that does.
        let (mut near, mut far) = (MIN_DISTANCE, MAX_DISTANCE);
        for _ in 0..40 {
            camera.distance = 0.5 * (near + far);
            if fits(&camera) {
                far = camera.distance;
            } else {
                near = camera.distance;
            }
        }
        camera.distance = far;
        camera
    }

    /// The view `start` names over a crowd spread over `extent` metres.
    pub fn start(start: CameraStart, extent: f32) -> Self {
        match start {
            CameraStart::Overview => Self::framing(extent),
            CameraStart::Street => Self::street_rect([extent, extent]),
        }
    }

    /// The street view over a crowd within `half_extents` metres of the centre along x
    /// and z: three metres beyond the corner character, on the line from the centre
    /// through that corner, 1.7 m up (0.7 m above the target): nearer, the eye stood
    /// inside that character's head.
    pub fn street_rect(half_extents: [f32; 2]) -> Self {
        let [x, z] = half_extents.map(|e| e.max(0.0));
        let distance = x.hypot(z) + 3.0;
        OrbitCamera {
            target: Vec3::new(0.0, 1.0, 0.0),
            yaw: if x == 0.0 && z == 0.0 {
                std::f32::consts::FRAC_PI_4
            } else {
                x.atan2(z)
            },
            pitch: (0.7 / distance).asin(),
            distance,
        }
    }

    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + Vec3::new(sy * cp, sp, cy * cp) * self.distance
    }

    /// Vertical field of view, radians.
    pub const FOV_Y_RAD: f32 = 40f32.to_radians();
    pub const NEAR: f32 = 0.1;

    fn view_and_far(&self, ground_extent: f32) -> (Mat4, f32) {
        let view = Mat4::look_at_rh(self.eye(), self.target, Vec3::Y);
        let far = (self.distance * 4.0 + ground_extent * 2.0).max(100.0);
        (view, far)
    }

    /// The same view as [`Self::uniform`], for LOD's culling and error bound, drawn into
    /// `viewport_px` pixels.
    pub fn lod_view(&self, viewport_px: glam::Vec2, ground_extent: f32) -> LodView {
        let (view, far) = self.view_and_far(ground_extent);
        LodView::new(view, Self::FOV_Y_RAD, Self::NEAR, far, viewport_px)
    }

    pub fn uniform(&self, aspect: f32, ground_extent: f32) -> CameraUniform {
        let eye = self.eye();
        let (view, far) = self.view_and_far(ground_extent);
        let proj = Mat4::perspective_rh(Self::FOV_Y_RAD, aspect.max(0.01), Self::NEAR, far);
        let light_dir = sun_direction();
        CameraUniform {
            view_proj: proj * view,
            light_view_proj: light_view_proj(light_dir, ground_extent),
            eye: eye.extend(1.0),
            light_dir: light_dir.extend(0.0),
            // y: shadows, set by the renderer.
            ground: Vec4::new(ground_extent, 0.0, 0.0, 0.0),
        }
    }

    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.008;
        self.pitch = (self.pitch + dy * 0.008).clamp(0.05, 1.5);
    }

    /// Each step in comes 10 % closer (out: back as far), never nearer than
    /// [`MIN_DISTANCE`]: the target is the centre character's hips.
    pub fn zoom(&mut self, steps: f32) {
        let steps = if steps.is_finite() { steps } else { 0.0 };
        self.distance = (self.distance * 0.9f32.powf(steps)).clamp(MIN_DISTANCE, MAX_DISTANCE);
    }
}

/// The sun's view and orthographic projection over the ground (half-extent `extent`
/// metres, characters up to a few metres tall): what the shadow map covers.
/// The direction the sun's light travels (from the sun towards the scene), world space.
pub fn sun_direction() -> Vec3 {
    Vec3::new(-0.4, -1.0, -0.55).normalize()
}

pub fn light_view_proj(light_dir: Vec3, extent: f32) -> Mat4 {
    let radius = extent.max(1.0) * std::f32::consts::SQRT_2;
    let target = Vec3::ZERO;
    let eye = target - light_dir * (radius * 2.0);
    let view = Mat4::look_at_rh(eye, target, Vec3::Y);
    Mat4::orthographic_rh(-radius, radius, -radius, radius, 0.1, radius * 4.0) * view
}

/// Half the side of the square the crowd stands on, metres.
pub fn crowd_extent(crowd: &crate::crowd::InstanceStore) -> f32 {
    crowd.ground_extent()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a crowd longer than it is wide (the Fox's spacing), the street eye stands three
    /// metres beyond the corner character, not beyond the corner of the enclosing square.
    #[test]
    fn street_eye_stands_beyond_the_corner_of_a_long_crowd() {
        let (x, z) = (47.0, 121.0);
        let eye = OrbitCamera::street_rect([x, z]).eye();
        let beyond = Vec3::new(eye.x - x, 0.0, eye.z - z).length();
        assert!(
            (beyond - 3.0).abs() < 0.01,
            "{eye} is {beyond} m from the corner"
        );
        assert!((eye.y - 1.7).abs() < 0.01, "{eye}");
        // A square crowd keeps the view it always had.
        assert_eq!(
            OrbitCamera::street_rect([10.0, 10.0]),
            OrbitCamera::start(CameraStart::Street, 10.0)
        );
    }

    /// A million characters spaced 5 m apart (the widest a public rig's clips ask for is
    /// 4.4 m) reach 2.5 km from the centre: the overview still frames every corner, rather
    /// than stopping at the farthest distance and cutting the crowd's edges off.
    #[test]
    fn the_overview_frames_a_million_characters() {
        let half = [2500.0f32, 2500.0];
        let camera = OrbitCamera::framing_rect(half);
        assert!(camera.distance < MAX_DISTANCE, "{}", camera.distance);
        let reach = half[0] + FRAME_MARGIN_METRES;
        let (view, far) = camera.view_and_far(reach);
        let view_proj =
            Mat4::perspective_rh(OrbitCamera::FOV_Y_RAD, 1.0, OrbitCamera::NEAR, far) * view;
        for (x, z) in [(-1.0f32, -1.0f32), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)] {
            let clip = view_proj * Vec3::new(x * half[0], 0.0, z * half[1]).extend(1.0);
            assert!(clip.x.abs() <= clip.w && clip.y.abs() <= clip.w && clip.z <= clip.w);
        }
    }

    /// Reset frames the whole crowd in a viewport narrower than square (a small window
    /// beside the panel); the square framing leaves corners out there.
    #[test]
    fn the_overview_fits_a_narrow_viewport() {
        let half = [30.0f32, 20.0];
        let aspect = 0.6;
        let inside = |camera: &OrbitCamera| {
            let reach = half[0].max(half[1]) + FRAME_MARGIN_METRES;
            let (view, far) = camera.view_and_far(reach);
            let view_proj =
                Mat4::perspective_rh(OrbitCamera::FOV_Y_RAD, aspect, OrbitCamera::NEAR, far) * view;
            [-1.0f32, 1.0].into_iter().all(|sx| {
                [-1.0f32, 1.0].into_iter().all(|sz| {
                    let p = Vec3::new(sx * half[0], 0.0, sz * half[1]);
                    let clip = view_proj * p.extend(1.0);
                    clip.x.abs() <= clip.w && clip.y.abs() <= clip.w
                })
            })
        };
        assert!(inside(&OrbitCamera::framing_rect_in(half, aspect)));
        assert!(!inside(&OrbitCamera::framing_rect(half)));
        // A wide viewport keeps the square framing.
        assert_eq!(
            OrbitCamera::framing_rect_in(half, 2.0),
            OrbitCamera::framing_rect(half)
        );
    }
}
