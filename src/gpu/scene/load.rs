//! Opening a rig in a new scene, step by step, saying how far it got: what the window shows
//! (a progress line while the crowd cannot be drawn yet) and the terminal prints.
//!
//! How it works: [`load_scene`] does, in order, what the first frame would otherwise do
//! unannounced: the mesh's LOD chain and each level's error measured over the clips (where
//! geometric LOD or the GPU's animation will read them), the
//! scene (renderer, buffers, the clip survey, the crowd), and the motion of every clip the
//! crowd plays (what update-rate and geometric LOD bound with). Before each step it writes
//! the step into a shared [`LoadProgress`], and during the motions how many are done; any
//! thread may read it ([`LoadProgress::status`]) or be called on every change
//! ([`LoadProgress::observe`]). Every measurement is kept with the rig or the scene, so the
//! first frame finds them made.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{Scene, SceneError, Settings};
use crate::gpu::GpuContext;
use crate::prepare::PreparedRig;
use crate::prepare::cache::MeasureCache;
use crate::skin::level_cache::{LevelSource, level_errors_cached, path_for};

/// Whether a scene of `settings` reads its rig's level errors: geometric LOD chooses levels
/// by them; the GPU's animation tables list what each level samples. A crowd at full
/// detail animated on the CPU needs neither (the measurement waits until a coarse level is
/// asked for, if ever).
pub fn reads_level_errors(settings: &Settings) -> bool {
    settings.lod.mesh || settings.animate == crate::crowd::AnimateDevice::Gpu
}

/// Measures what [`reads_level_errors`] reads of `rig`, writing the steps into `progress`:
/// the load's steps, and the app's when a setting asks for them while it runs. With
/// `cache`, a measurement of the same rig by the same code is read from it instead, and a
/// new one is written to it; a note in `progress` says which.
pub fn measure_level_errors(
    rig: &PreparedRig,
    progress: &LoadProgress,
    cache: Option<&MeasureCache>,
) {
    progress.start(LoadStep::MeshLevels);
    rig.mesh_chain();
    progress.start(LoadStep::MeshErrors);
    let (_, source, problem) = level_errors_cached(rig, cache);
    if let Some(cache) = cache {
        let path = path_for(cache, rig);
        match source {
            LevelSource::Cache => {
                progress.note(format!("level errors read from {}", path.display()))
            }
            LevelSource::Measured if problem.is_none() => {
                progress.note(format!("level errors kept in {}", path.display()))
            }
            LevelSource::Measured | LevelSource::Kept => {}
        }
    }
    if let Some(problem) = problem {
        progress.note(format!("{problem} (measured instead)"));
    }
}

/// A step of [`load_scene`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadStep {
    MeshLevels,
    MeshErrors,
    Scene,
    Motions,
}

impl LoadStep {
    pub const ALL: [LoadStep; 4] = [
        LoadStep::MeshLevels,
        LoadStep::MeshErrors,
        LoadStep::Scene,
        LoadStep::Motions,
    ];

    /// What the step does, as a progress line says it.
    pub fn describe(self) -> &'static str {
        match self {
            LoadStep::MeshLevels => "stating the mesh's LOD levels (simplified as it was prepared)",
            LoadStep::MeshErrors => "measuring each level's error over the clips",
            LoadStep::Scene => "making the GPU buffers and the crowd",
            LoadStep::Motions => "measuring how far each clip moves the mesh",
        }
    }

    /// A short name, for the summary line.
    pub fn name(self) -> &'static str {
        match self {
            LoadStep::MeshLevels => "mesh levels",
            LoadStep::MeshErrors => "level errors",
            LoadStep::Scene => "scene",
            LoadStep::Motions => "clip motions",
        }
    }
}

/// Where a load stands.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadStatus {
    /// The step under way (`None` before the first and once done).
    pub step: Option<LoadStep>,
    /// Its parts done and in all, where it counts them (0 of 0 where not).
    pub done: usize,
    pub of: usize,
    /// The steps finished, with what each took.
    pub finished: Vec<(LoadStep, Duration)>,
    /// Since the load began.
    pub elapsed: Duration,
    pub complete: bool,
    /// What the load found worth saying (where the level errors came from).
    pub notes: Vec<String>,
}

impl LoadStatus {
    /// The progress line: the step, its count, the time so far.
    pub fn line(&self) -> String {
        match self.step {
            Some(step) if self.of > 0 => format!(
                "{} ({} of {}) · {:.1} s",
                step.describe(),
                self.done,
                self.of,
                self.elapsed.as_secs_f64()
            ),
            Some(step) => format!("{} · {:.1} s", step.describe(), self.elapsed.as_secs_f64()),
            None if self.complete => format!("ready · {:.1} s", self.elapsed.as_secs_f64()),
            None => "starting".to_string(),
        }
    }

    /// The share of the load done, 0 to 1, weighing the steps alike and a counted step by
    /// its count.
    pub fn fraction(&self) -> f32 {
        if self.complete {
            return 1.0;
        }
        let steps = LoadStep::ALL.len() as f32;
        let within = if self.of > 0 {
            self.done as f32 / self.of as f32
        } else {
            0.0
        };
        (self.finished.len() as f32 + within) / steps
    }

    /// What each step took, as the summary line says it.
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self
            .finished
            .iter()
            .map(|(step, took)| format!("{} {:.2} s", step.name(), took.as_secs_f64()))
            .collect();
        let notes: String = self.notes.iter().map(|n| format!("; {n}")).collect();
        format!(
            "{:.2} s ({}{notes})",
            self.elapsed.as_secs_f64(),
            parts.join(", ")
        )
    }
}

type Observer = Box<dyn Fn(&LoadStatus) + Send + Sync>;

/// A load's progress, shared between the thread that loads and those that show it.
#[derive(Clone)]
pub struct LoadProgress {
    inner: Arc<Mutex<Inner>>,
}

struct Inner {
    status: LoadStatus,
    started: Instant,
    step_started: Instant,
    observers: Vec<Observer>,
}

impl Default for LoadProgress {
    fn default() -> Self {
        Self::new()
    }
}

impl LoadProgress {
    pub fn new() -> Self {
        let now = Instant::now();
        LoadProgress {
            inner: Arc::new(Mutex::new(Inner {
                status: LoadStatus {
                    step: None,
                    done: 0,
                    of: 0,
                    finished: Vec::new(),
                    elapsed: Duration::ZERO,
                    complete: false,
                    notes: Vec::new(),
                },
                started: now,
                step_started: now,
                observers: Vec::new(),
            })),
        }
    }

    /// Calls `observer` with the status at every change (on the loading thread).
    pub fn observe(&self, observer: impl Fn(&LoadStatus) + Send + Sync + 'static) {
        self.lock().observers.push(Box::new(observer));
    }

    /// The status now.
    pub fn status(&self) -> LoadStatus {
        let inner = self.lock();
        LoadStatus {
            elapsed: inner.started.elapsed(),
            ..inner.status.clone()
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic elsewhere while holding it leaves a status that is still readable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn change(&self, f: impl FnOnce(&mut Inner)) {
        let mut inner = self.lock();
        f(&mut inner);
        inner.status.elapsed = inner.started.elapsed();
        let status = inner.status.clone();
        for observer in &inner.observers {
            observer(&status);
        }
    }

    /// Ends the step under way (if any) and starts `step`.
    pub fn start(&self, step: LoadStep) {
        self.change(|inner| {
            end_step(inner);
            inner.status.step = Some(step);
            inner.status.done = 0;
            inner.status.of = 0;
            inner.step_started = Instant::now();
        });
    }

    /// `done` of `of` parts of the step under way.
    pub fn count(&self, done: usize, of: usize) {
        self.change(|inner| {
            inner.status.done = done;
            inner.status.of = of;
        });
    }

    /// Adds `note` to what the summary says.
    pub fn note(&self, note: String) {
        self.change(|inner| inner.status.notes.push(note));
    }

    /// Ends the last step: the load is complete.
    pub fn finish(&self) {
        self.change(|inner| {
            end_step(inner);
            inner.status.complete = true;
        });
    }
}

fn end_step(inner: &mut Inner) {
    if let Some(step) = inner.status.step.take() {
        inner
            .status
            .finished
            .push((step, inner.step_started.elapsed()));
    }
}

/// A scene for `rig` as [`Scene::new`] makes it, with the load-time measurements made first
/// and every step written into `progress` (see the module docs).
pub fn load_scene(
    gpu: GpuContext,
    rig: Arc<PreparedRig>,
    settings: Settings,
    format: wgpu::TextureFormat,
    size: (u32, u32),
    progress: &LoadProgress,
    cache: Option<&MeasureCache>,
) -> Result<Scene, SceneError> {
    if reads_level_errors(&settings) {
        measure_level_errors(&rig, progress, cache);
    }
    progress.start(LoadStep::Scene);
    let mut scene = Scene::new(gpu, rig, settings, format, size)?;
    progress.start(LoadStep::Motions);
    scene.measure_motions(cache, &mut |done, of| progress.count(done, of));
    progress.finish();
    Ok(scene)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_follows_the_steps() {
        let progress = LoadProgress::new();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        progress.observe(move |s| log.lock().unwrap().push((s.step, s.done, s.of)));
        assert_eq!(progress.status().line(), "starting");
        progress.start(LoadStep::MeshLevels);
        progress.start(LoadStep::Motions);
        progress.count(1, 4);
        let status = progress.status();
        assert!(
            status
                .line()
                .starts_with("measuring how far each clip moves the mesh (1 of 4)")
        );
        assert_eq!(status.fraction(), (1.0 + 0.25) / 4.0);
        progress.finish();
        let status = progress.status();
        assert!(status.complete);
        assert_eq!(status.fraction(), 1.0);
        let steps: Vec<LoadStep> = status.finished.iter().map(|(s, _)| *s).collect();
        assert_eq!(steps, [LoadStep::MeshLevels, LoadStep::Motions]);
        assert!(
            status.summary().contains("mesh levels") && status.summary().contains("clip motions")
        );
        assert_eq!(
            *seen.lock().unwrap(),
            [
                (Some(LoadStep::MeshLevels), 0, 0),
                (Some(LoadStep::Motions), 0, 0),
                (Some(LoadStep::Motions), 1, 4),
                (None, 1, 4),
            ]
        );
    }
}
