//! The soak test (`skinbench --soak SECS [--seed N]`): the app left running while random
//! changes hit it, every frame, to find what no single test configuration shows.
//!
//! How it works: a soak long enough to read memory growth (more than one checkpoint)
//! first draws every rig with crowds from the largest down to a few, each at full detail
//! with shadows ([`warm_up_crowds`]; a warm-up: the driver keeps some memory at the size
//! of the largest frames it has drawn, and the first memory checkpoint must not come
//! before that). The warm-up is not counted in the time given: the soak's
//! clock starts when the random changes do, so every soak the command line accepts spends
//! its whole time changing things. Then before each frame
//! [`Soak::before_frame`] makes one change to the scene,
//! drawn from a seeded generator (SplitMix64, so a seed replays the same sequence of
//! changes): a variant of any stage, the skinning method, where the animation runs and the
//! GPU's hierarchy pass, the upload, schedule, threads, instance count
//! (log-uniform over 1..=10,000, so large crowds come up without every frame being one),
//! blend, pause, speed, the rig (the built-in ones and every rig given) or a verify
//! request. The scene applies the change as the panel would, with the same refusals. After
//! each frame [`Soak::after_frame`] fails the run on a wgpu validation error (collected by
//! the device's uncaptured-error handler the soak installs) or a verify beyond tolerance;
//! a panic ends the process with the soak's seed and last changes printed by its panic
//! hook. Resident memory is read at checkpoints, every minute and at the end, each taken in
//! the same configuration (the first rig and the starting settings, a few frames in), so
//! the readings show growth and not the random crowd of the moment; the run fails when the
//! last is more than 10 % above the first.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::gpu::scene::Scene;
use crate::gpu::scene::Settings;

/// The shortest soak accepted, seconds. The first random change comes with the first
/// frame (no warm-up is counted), so any soak this long makes changes; a shorter one would
/// be over within a frame or two of a large crowd on a software renderer.
pub const MIN_SOAK_SECS: f64 = 10.0;
use crate::anim::hierarchy::HierarchyVariant;
use crate::crowd::Schedule;
use crate::crowd::instances::SplitMix64;
use crate::gpu::{GpuMemory, UploadVariant};
use crate::prepare::PreparedRig;
use crate::skin::{SkinMethod, SkinVariant};
use crate::variant::Variant;

/// How often a memory checkpoint is taken (the first after one such interval).
pub const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(60);
/// Frames rendered in the checkpoint configuration before resident memory is read: enough
/// for the frames still in flight to finish and for the staging chunks no frame of it asks
/// for to be dropped ([`crate::gpu::staging::IDLE_FRAMES`]), so a checkpoint reads what the
/// starting configuration holds and not what the random one before it needed.
const CHECKPOINT_FRAMES: u32 =
    crate::gpu::staging::IDLE_FRAMES as u32 + crate::gpu::scene::MAX_FRAMES_IN_FLIGHT as u32 + 1;
/// How much the floor of the Rust heap and of wgpu's device memory may grow over the
/// checkpoints ([`SoakReport::memory_failure`]).
pub const MEMORY_GROWTH_LIMIT: f64 = 0.10;
/// GPU objects the checkpoints' floor may gain without failing: what is made once, the
/// first time a path needs it, and then kept (a pipeline with its layouts); a short soak
/// can meet such a path after its first checkpoint (a 10-second soak read 61, 63, 62, 62,
/// 62). A leak grows with what the soak does: one object per rig switch is 50 or more in
/// 10 seconds and hundreds in 30 minutes.
pub const GPU_OBJECTS_MADE_ONCE: u64 = 4;
/// Rust heap the checkpoints' floor may gain without failing (where that is more than
/// [`MEMORY_GROWTH_LIMIT`]): what is made once, the first time a path needs it, and then
/// kept. Each rig fills its caches the first time a setting asks for them (the level
/// errors' clip lanes, the merged joints), and buffers keep the capacity of the largest
/// crowd they held: a 30-minute soak's Rust heap rose from 32 to 35 MiB over its first 15
/// minutes and stayed there, and heaptrack found nothing else held longer. A leak grows
/// with what the soak does: a kilobyte a change is 6 MiB in 30 minutes, 12 in an hour.
pub const RUST_HEAP_MADE_ONCE: u64 = 8 << 20;
/// Bytes in a MiB, for the reports.
const MIB: f64 = 1024.0 * 1024.0;

/// Changes kept for the report of a failure.
const RECENT_CHANGES: usize = 12;

/// What a soak runs.
#[derive(Clone, Debug)]
pub struct SoakPlan {
    pub duration: Duration,
    pub seed: u64,
    /// The rigs it switches between; the first is the one the app started with.
    pub rigs: Vec<Arc<PreparedRig>>,
    /// Upper bound of the random instance count (the app's 10,000; tests use less).
    pub max_instances: usize,
    /// Worker threads it may choose, 1..=this.
    pub max_threads: usize,
    /// How often memory is read ([`CHECKPOINT_INTERVAL`] for the app; tests read it more
    /// often).
    pub checkpoint_every: Duration,
}

impl SoakPlan {
    /// Whether the run reads memory more than once (so growth can be measured), which is
    /// what the warm-up is for: a shorter soak skips it.
    pub fn warms_up(&self) -> bool {
        self.duration > self.checkpoint_every
    }
}

/// The crowds the warm-up draws each rig with: the largest, then a tenth of it while that
/// is at least 10 (10,000: 10,000, 1,000, 100 and 10), so each framing of the view comes
/// before the first checkpoint.
pub fn warm_up_crowds(max_instances: usize) -> Vec<usize> {
    let mut crowds = vec![max_instances.max(1)];
    while let Some(&last) = crowds.last() {
        if last / 10 < 10 {
            break;
        }
        crowds.push(last / 10);
    }
    crowds
}

/// The kinds of change, with how often each is drawn (out of their sum).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    Hierarchy,
    Skin,
    Method,
    Upload,
    Schedule,
    Threads,
    SimdLevel,
    Shadows,
    BaseColors,
    IndirectDraws,
    Lod,
    ComputeShader,
    Draws,
    SkinnedPool,
    Animate,
    GpuHierarchy,
    Instances,
    Blend,
    Pause,
    Speed,
    Rig,
    Verify,
}

const CHANGES: &[(Change, u32)] = &[
    (Change::Hierarchy, 4),
    (Change::Skin, 4),
    (Change::Method, 2),
    (Change::Upload, 3),
    (Change::Schedule, 2),
    (Change::Threads, 2),
    (Change::SimdLevel, 2),
    (Change::Shadows, 1),
    (Change::BaseColors, 1),
    (Change::IndirectDraws, 1),
    (Change::Lod, 1),
    (Change::ComputeShader, 1),
    (Change::Draws, 1),
    (Change::SkinnedPool, 1),
    (Change::Animate, 2),
    (Change::GpuHierarchy, 1),
    (Change::Instances, 4),
    (Change::Blend, 2),
    (Change::Pause, 1),
    (Change::Speed, 1),
    (Change::Rig, 2),
    (Change::Verify, 1),
];

/// Where the run is with its memory checkpoints.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// The first frames: every rig with each of [`warm_up_crowds`] (`step` is the next
    /// one, rig by rig).
    WarmUp {
        step: usize,
    },
    Random,
    /// Rendering in the checkpoint configuration; `frames_left` until the reading.
    Checkpoint {
        frames_left: u32,
        last: bool,
    },
    Done,
}

/// What the soak saw; printed at the end and on failure.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SoakReport {
    pub seed: u64,
    /// The whole run, warm-up included.
    pub seconds: f64,
    /// The warm-up's part of `seconds` (not counted in the time the soak was given).
    pub warm_up_seconds: f64,
    pub frames: u64,
    pub changes: u64,
    pub rig_switches: u64,
    pub verifies: u64,
    pub refusals: u64,
    pub largest_crowd: usize,
    pub validation_errors: Vec<String>,
    pub verify_failures: Vec<String>,
    /// What each memory checkpoint read (every minute and at the end).
    pub checkpoints: Vec<MemoryCheckpoint>,
    /// The soak has ended (its time is up, or it failed).
    pub ended: bool,
}

/// What one memory checkpoint read, in the starting configuration a few frames in.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct MemoryCheckpoint {
    /// Resident memory once the allocator handed back the pages it had freed, bytes.
    pub resident_bytes: u64,
    /// Allocated and not freed, bytes (glibc's count of every `malloc`: the Rust code's and
    /// the driver's); `None` where the allocator does not say.
    pub heap_bytes: Option<u64>,
    /// The part of [`Self::heap_bytes`] the Rust code holds (skinbench, wgpu, egui); the
    /// rest is the C code's, the Vulkan driver's above all. `None` where the process does
    /// not count it (see [`crate::memory::CountingAllocator`]).
    pub rust_heap_bytes: Option<u64>,
    /// Live GPU objects wgpu holds for the process (buffers, textures, views, samplers,
    /// bind groups and their layouts, pipelines, shader modules, query sets); `None` where
    /// wgpu gives no report.
    pub gpu_objects: Option<u64>,
    /// The device's memory as wgpu's allocator holds it; `None` where the backend gives no
    /// report (it suballocates buffers from blocks it keeps, so this tells the blocks it
    /// holds from what lives in them).
    pub gpu_memory: Option<GpuMemory>,
}

impl MemoryCheckpoint {
    /// Reads the process and `scene`'s GPU instance now: once the GPU has finished every
    /// frame submitted, so that wgpu has freed what the scene dropped (it keeps a dropped
    /// object until the GPU's last use of it is done, and the count would depend on where
    /// the GPU stood).
    pub fn read(scene: &Scene) -> Option<Self> {
        let _ = scene.gpu().device.poll(wgpu::PollType::wait_indefinitely());
        crate::memory::trim_heap();
        Some(MemoryCheckpoint {
            resident_bytes: crate::memory::resident_bytes()?,
            heap_bytes: crate::memory::heap_in_use_bytes(),
            rust_heap_bytes: crate::memory::rust_heap_bytes(),
            gpu_objects: scene.gpu().instance.generate_report().map(|r| {
                let h = &r.hub;
                [
                    &h.buffers,
                    &h.textures,
                    &h.texture_views,
                    &h.samplers,
                    &h.bind_groups,
                    &h.bind_group_layouts,
                    &h.pipeline_layouts,
                    &h.render_pipelines,
                    &h.compute_pipelines,
                    &h.shader_modules,
                    &h.query_sets,
                ]
                .iter()
                .map(|registry| registry.num_allocated as u64)
                .sum()
            }),
            gpu_memory: scene.gpu().allocator_memory(),
        })
    }
}

impl SoakReport {
    /// Resident memory's growth from the first checkpoint to the last (0.05 = 5 %).
    pub fn rss_growth(&self) -> Option<f64> {
        match self.checkpoints.as_slice() {
            [first, .., last] if first.resident_bytes > 0 => {
                Some(last.resident_bytes as f64 / first.resident_bytes as f64 - 1.0)
            }
            _ => None,
        }
    }

    /// Why the run failed, if it did.
    pub fn failure(&self) -> Option<String> {
        if let Some(e) = self.validation_errors.first() {
            return Some(format!(
                "{} wgpu validation error(s), the first: {e}",
                self.validation_errors.len()
            ));
        }
        if let Some(e) = self.verify_failures.first() {
            return Some(format!(
                "{} verify failure(s), the first: {e}",
                self.verify_failures.len()
            ));
        }
        if self.ended && self.changes == 0 {
            return Some(format!(
                "the soak ended after {:.0} s and made no change, so it tested nothing \
                 (give it at least {MIN_SOAK_SECS} s)",
                self.seconds
            ));
        }
        self.memory_failure()
    }

    /// Whether memory grew over the checkpoints, each taken in the same configuration. Each
    /// reading of what the program holds (GPU objects, the Rust code's heap, the device
    /// memory in use in wgpu's allocator) is judged on its floor: the lowest reading of the
    /// second half of the checkpoints against the lowest of the first half. What is never
    /// freed raises the floor; what a checkpoint happens to catch does not: objects of a
    /// frame in flight, or buffers still sized for the 10,000 characters drawn just before.
    /// GPU objects may grow by no more than [`GPU_OBJECTS_MADE_ONCE`] (the same scene holds
    /// the same objects), the heap and device memory by up to [`MEMORY_GROWTH_LIMIT`] (the
    /// Rust heap by up to [`RUST_HEAP_MADE_ONCE`] where that is more).
    ///
    /// What the Vulkan driver allocates for itself is reported and not judged: lavapipe
    /// keeps the binned commands of every scene it made until it reuses that scene, and it
    /// makes a scene whenever its rasterizer has not finished the ones before, so what it
    /// holds follows how far its threads fell behind on the largest frames, not what the
    /// program keeps. Where the Rust heap is not counted (a program without
    /// [`crate::memory::CountingAllocator`]), the whole live heap is judged instead.
    pub fn memory_failure(&self) -> Option<String> {
        if self.checkpoints.len() < 2 {
            return None;
        }
        let rust_counted = self.checkpoints.iter().all(|c| c.rust_heap_bytes.is_some());
        self.gpu_object_growth()
            .or_else(|| {
                self.floor_growth(if rust_counted {
                    Judged::RustHeap
                } else {
                    Judged::LiveHeap
                })
            })
            .or_else(|| self.floor_growth(Judged::DeviceMemory))
    }

    /// Whether the floor of the GPU objects wgpu holds grew over the checkpoints (see
    /// [`Self::memory_failure`]): the same scene holds the same objects, so objects never
    /// freed raise it. A checkpoint can also count a frame's transient objects (a read-back
    /// buffer on its way out, objects of the previous configuration whose last frame is
    /// still in flight): a 30-minute soak read 77 to 95 objects, back to 77 to its end.
    /// The floor may gain [`GPU_OBJECTS_MADE_ONCE`].
    pub fn gpu_object_growth(&self) -> Option<String> {
        let counts: Option<Vec<u64>> = self.checkpoints.iter().map(|c| c.gpu_objects).collect();
        let counts = counts?;
        if counts.len() < 2 {
            return None;
        }
        let (first_half, second_half) = counts.split_at(counts.len() / 2);
        let before = *first_half.iter().min()?;
        let after = *second_half.iter().min()?;
        (after > before + GPU_OBJECTS_MADE_ONCE).then(|| {
            format!(
                "the GPU objects wgpu holds grew from at least {before} (the first half of the \
                 checkpoints) to at least {after} (the second half), each in the same \
                 configuration: {} not freed (at each checkpoint: {})",
                after - before,
                counts
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    }

    /// Whether the floor of `judged` grew by more than [`MEMORY_GROWTH_LIMIT`] (and, for the
    /// Rust heap, by more than [`RUST_HEAP_MADE_ONCE`]; see [`Self::memory_failure`]).
    pub fn floor_growth(&self, judged: Judged) -> Option<String> {
        let (what, values): (&str, Option<Vec<f64>>) = match judged {
            Judged::RustHeap => (
                "the Rust code's heap",
                self.checkpoints
                    .iter()
                    .map(|c| c.rust_heap_bytes.map(|b| b as f64))
                    .collect(),
            ),
            Judged::LiveHeap => (
                "the live heap",
                self.checkpoints
                    .iter()
                    .map(|c| c.heap_bytes.map(|b| b as f64))
                    .collect(),
            ),
            Judged::DeviceMemory => (
                "the device memory in use in wgpu's allocator",
                self.checkpoints
                    .iter()
                    .map(|c| c.gpu_memory.map(|g| g.allocated_bytes as f64))
                    .collect(),
            ),
        };
        let values = values?;
        if values.len() < 2 {
            return None;
        }
        let (first_half, second_half) = values.split_at(values.len() / 2);
        let floor = |half: &[f64]| half.iter().copied().fold(f64::INFINITY, f64::min);
        let (before, after) = (floor(first_half), floor(second_half));
        let growth = after / before - 1.0;
        let made_once = match judged {
            Judged::RustHeap => RUST_HEAP_MADE_ONCE as f64,
            Judged::LiveHeap | Judged::DeviceMemory => 0.0,
        };
        (before > 0.0 && growth > MEMORY_GROWTH_LIMIT && after - before > made_once).then(|| {
            format!(
                "the floor of {what} grew {:.1} % (from at least {:.0} MiB in the first half \
                 of the {} checkpoints to at least {:.0} MiB in the second; limit {:.0} %)",
                growth * 100.0,
                before / MIB,
                values.len(),
                after / MIB,
                MEMORY_GROWTH_LIMIT * 100.0
            )
        })
    }
}

/// A memory reading [`SoakReport::floor_growth`] judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judged {
    /// What the Rust code holds: skinbench's, wgpu's and egui's allocations.
    RustHeap,
    /// Every `malloc` of the process, the driver's included (where the Rust heap is not
    /// counted).
    LiveHeap,
    /// The device memory in use in wgpu's allocator: its live allocations, not the blocks
    /// it holds them in (one block more or less is 8 MiB of 50, whatever lives in them).
    DeviceMemory,
}

/// The growth a least-squares line through `values` (one per checkpoint, evenly spaced)
/// shows from the first to the last, as a share of the line's start.
pub fn trend_growth(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    if values.len() < 2 {
        return 0.0;
    }
    let mean_x = (n - 1.0) / 2.0;
    let mean_y = values.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in values.iter().enumerate() {
        let dx = i as f64 - mean_x;
        sxy += dx * (y - mean_y);
        sxx += dx * dx;
    }
    let slope = sxy / sxx;
    let start = mean_y - slope * mean_x;
    if start > 0.0 {
        slope * (n - 1.0) / start
    } else {
        0.0
    }
}

impl SoakReport {
    pub fn to_text(&self) -> String {
        let mib = |b: u64| format!("{:.0}", b as f64 / 1048576.0);
        let list = |values: Vec<String>| {
            if values.is_empty() {
                "none (the soak was shorter than a minute)".to_string()
            } else {
                values.join(", ")
            }
        };
        let cps = &self.checkpoints;
        let judged = list(
            cps.iter()
                .map(|c| {
                    format!(
                        "{} {}, GPU objects {}, GPU memory {}",
                        if c.rust_heap_bytes.is_some() {
                            "Rust heap"
                        } else {
                            "heap (the Rust heap is not counted)"
                        },
                        c.rust_heap_bytes.or(c.heap_bytes).map_or("?".into(), mib),
                        c.gpu_objects.map_or("?".into(), |n| n.to_string()),
                        c.gpu_memory.map_or("?".into(), |g| format!(
                            "{} in use of {} in {} blocks",
                            mib(g.allocated_bytes),
                            mib(g.reserved_bytes),
                            g.blocks
                        ))
                    )
                })
                .collect(),
        );
        let reported = list(
            cps.iter()
                .map(|c| {
                    let driver = match (c.heap_bytes, c.rust_heap_bytes) {
                        (Some(heap), Some(rust)) => mib(heap.saturating_sub(rust)),
                        _ => "?".into(),
                    };
                    format!(
                        "resident {} (the rest of the heap {driver})",
                        mib(c.resident_bytes)
                    )
                })
                .collect(),
        );
        let growth = self.rss_growth().map_or(String::new(), |g| {
            let trend: Vec<f64> = cps.iter().map(|c| c.resident_bytes as f64).collect();
            format!(
                " ({:+.1} % end to end, {:+.1} % along the trend)",
                g * 100.0,
                trend_growth(&trend) * 100.0
            )
        });
        format!(
            "soak: seed {}, {:.0} s ({}), {} frames, {} changes ({} rig switches, {} verifies, {} refused), largest crowd {}\n\
             soak: judged at the checkpoints (each minute, then the end), the program's memory, MiB: {}\n\
             soak: reported, not judged (mostly the Vulkan driver's: docs/commands.md), MiB: {}{}\n\
             soak: {} validation errors, {} verify failures\n",
            self.seed,
            self.seconds,
            if self.warm_up_seconds > 0.0 {
                format!(
                    "a {:.0} s warm-up, then {:.0} s of changes",
                    self.warm_up_seconds,
                    self.seconds - self.warm_up_seconds
                )
            } else {
                "no warm-up: a minute or less reads memory once".to_string()
            },
            self.frames,
            self.changes,
            self.rig_switches,
            self.verifies,
            self.refusals,
            self.largest_crowd,
            judged,
            reported,
            growth,
            self.validation_errors.len(),
            self.verify_failures.len(),
        )
    }
}

/// A running soak.
pub struct Soak {
    plan: SoakPlan,
    rng: SplitMix64,
    started: Instant,
    /// When the random changes began: the soak's own clock (the warm-up is not counted).
    changes_started: Option<Instant>,
    phase: Phase,
    rig_index: usize,
    /// The settings the app started with: the checkpoint configuration.
    start_settings: Settings,
    recent: Arc<Mutex<VecDeque<String>>>,
    validation_errors: Arc<Mutex<Vec<String>>>,
    pub report: SoakReport,
}

impl Soak {
    /// Starts a soak of `scene`: installs the validation-error handler on its device and a
    /// panic hook that prints the seed and the last changes.
    pub fn start(plan: SoakPlan, scene: &Scene) -> Self {
        let validation_errors = Arc::new(Mutex::new(Vec::new()));
        let sink = validation_errors.clone();
        scene.gpu().device.on_uncaptured_error(Arc::new(move |e| {
            sink.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(e.to_string());
        }));
        let recent = Arc::new(Mutex::new(VecDeque::new()));
        let hook_recent = recent.clone();
        let seed = plan.seed;
        let previous_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let changes: Vec<String> = hook_recent
                .try_lock()
                .map(|r| r.iter().cloned().collect())
                .unwrap_or_default();
            eprintln!(
                "soak: panic (seed {seed}); the last changes, oldest first:\n  {}",
                changes.join("\n  ")
            );
            previous_hook(info);
        }));
        let plan_warms_up = plan.warms_up();
        Soak {
            rng: SplitMix64(plan.seed),
            report: SoakReport {
                seed: plan.seed,
                ..SoakReport::default()
            },
            plan,
            started: Instant::now(),
            changes_started: None,
            phase: if plan_warms_up {
                Phase::WarmUp { step: 0 }
            } else {
                Phase::Random
            },
            rig_index: 0,
            start_settings: scene.settings().clone(),
            recent,
            validation_errors,
        }
    }

    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Makes this frame's change (or steers into a checkpoint).
    pub fn before_frame(&mut self, scene: &mut Scene) {
        if let Phase::WarmUp { step } = self.phase {
            let crowds = warm_up_crowds(self.plan.max_instances);
            let rig = step / crowds.len();
            if rig < self.plan.rigs.len() {
                self.warm_up(scene, rig, crowds[step % crowds.len()]);
                self.phase = Phase::WarmUp { step: step + 1 };
                return;
            }
            self.report.warm_up_seconds = self.started.elapsed().as_secs_f64();
            self.phase = Phase::Random;
        }
        let changes_started = *self.changes_started.get_or_insert_with(Instant::now);
        let elapsed = changes_started.elapsed();
        if self.phase == Phase::Random {
            let taken = self.report.checkpoints.len() as u32;
            let last_due = elapsed >= self.plan.duration;
            let next_due = elapsed >= self.plan.checkpoint_every * (taken + 1);
            if last_due || next_due {
                self.enter_checkpoint(scene, last_due);
                return;
            }
            self.random_change(scene);
        }
    }

    /// Checks the frame just rendered; advances a checkpoint.
    pub fn after_frame(&mut self, scene: &mut Scene) {
        self.report.frames += 1;
        self.report.seconds = self.started.elapsed().as_secs_f64();
        self.report.largest_crowd = self.report.largest_crowd.max(scene.crowd().len());
        let errors: Vec<String> = std::mem::take(
            &mut *self
                .validation_errors
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        );
        let context = self.context(scene);
        for e in errors {
            self.report
                .validation_errors
                .push(format!("{e} (after: {context})"));
        }
        if scene.take_budget_refusal().is_some() {
            self.report.refusals += 1;
        }
        if let Some(result) = scene.take_last_verify() {
            match result {
                Ok(d) if d.within_tolerance() => {}
                Ok(d) => self.report.verify_failures.push(format!(
                    "beyond tolerance ({context}): {}",
                    d.to_text().trim_end()
                )),
                Err(e) => self
                    .report
                    .verify_failures
                    .push(format!("verify failed ({context}): {e}")),
            }
        }
        if let Phase::Checkpoint { frames_left, last } = self.phase {
            if frames_left > 1 {
                self.phase = Phase::Checkpoint {
                    frames_left: frames_left - 1,
                    last,
                };
            } else {
                self.report
                    .checkpoints
                    .extend(MemoryCheckpoint::read(scene));
                self.phase = if last { Phase::Done } else { Phase::Random };
            }
        }
        if !self.report.validation_errors.is_empty() || !self.report.verify_failures.is_empty() {
            self.phase = Phase::Done;
        }
        self.report.ended = self.phase == Phase::Done;
    }

    /// The scene's configuration in a few words (for failure messages).
    fn context(&self, scene: &Scene) -> String {
        let p = scene.running_config();
        format!(
            "rig {}, {} instances, {} {} {} {}, {} threads, blend {:.2}",
            scene.rig().name,
            scene.crowd().len(),
            p.hierarchy.name(),
            p.skin.name(),
            scene.settings().upload.name(),
            p.schedule.name(),
            p.threads,
            p.blend_weight
        )
    }

    fn note(&mut self, change: String) {
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        if recent.len() == RECENT_CHANGES {
            recent.pop_front();
        }
        recent.push_back(format!("frame {}: {change}", self.report.frames));
    }

    /// One warm-up frame: rig `index` with `instances`, in the starting variants, every
    /// character at full detail and shadows on (the most triangles a crowd of that size
    /// draws). The renderer's driver keeps some memory at the size of the largest frames
    /// it has drawn (lavapipe keeps every binned scene it ever needed, each holding up to
    /// 36 MiB of its last frame's data, and needs more of them the more triangles a frame
    /// bins), so the first checkpoint would otherwise fall before the driver reached that
    /// size and count it as growth. The largest crowd is not the largest frame: a crowd
    /// is framed to fit the view, so 540 characters of the built-in `twist` at full
    /// detail bin more than 10,000 with their far ones at coarse levels (a soak that met
    /// them after its first checkpoint kept 120 MiB more from then on).
    fn warm_up(&mut self, scene: &mut Scene, index: usize, instances: usize) {
        self.start_settings_on(scene, index);
        let settings = scene.settings_mut();
        settings.instances = instances;
        settings.lod.enabled = false;
        settings.lod.mesh = false;
        settings.shadows = true;
        self.note(format!(
            "warm-up: rig {}, {} instances",
            self.plan.rigs[index].name,
            scene.settings().instances
        ));
    }

    fn enter_checkpoint(&mut self, scene: &mut Scene, last: bool) {
        self.start_settings_on(scene, 0);
        self.note(format!(
            "checkpoint ({})",
            if last { "last" } else { "each minute" }
        ));
        self.phase = Phase::Checkpoint {
            frames_left: CHECKPOINT_FRAMES,
            last,
        };
    }

    /// The starting settings on rig `index` (switching to it unless it is the current one).
    fn start_settings_on(&mut self, scene: &mut Scene, index: usize) {
        if self.rig_index != index {
            self.switch_rig(scene, index);
        }
        *scene.settings_mut() = self.start_settings.clone();
    }

    fn switch_rig(&mut self, scene: &mut Scene, index: usize) {
        let rig = self.plan.rigs[index].clone();
        match scene.set_rig(rig) {
            Ok(()) => {
                self.rig_index = index;
                self.report.rig_switches += 1;
            }
            Err(_) => self.report.refusals += 1,
        }
    }

    fn random_change(&mut self, scene: &mut Scene) {
        let total: u32 = CHANGES.iter().map(|(_, w)| w).sum();
        let mut roll = (self.rng.next_u64() % u64::from(total)) as u32;
        let change = CHANGES
            .iter()
            .find(|(_, w)| {
                let hit = roll < *w;
                roll = roll.saturating_sub(*w);
                hit
            })
            .map_or(Change::Verify, |(c, _)| *c);
        self.report.changes += 1;
        let settings = scene.settings_mut();
        let described = match change {
            Change::Hierarchy => {
                settings.pipeline.hierarchy = self.rng.pick(HierarchyVariant::ALL);
                format!("hierarchy {}", settings.pipeline.hierarchy.name())
            }
            Change::Skin => {
                settings.pipeline.skin = self.rng.pick(SkinVariant::ALL);
                format!("skin {}", settings.pipeline.skin.name())
            }
            Change::Method => {
                settings.pipeline.method = self.rng.pick(SkinMethod::ALL);
                format!("method {}", settings.pipeline.method.name())
            }
            Change::Upload => {
                settings.upload = self.rng.pick(UploadVariant::ALL);
                format!("upload {}", settings.upload.name())
            }
            Change::Schedule => {
                settings.pipeline.schedule = self.rng.pick(Schedule::ALL);
                format!("schedule {}", settings.pipeline.schedule.name())
            }
            Change::Threads => {
                settings.pipeline.threads = 1 + self.rng.below(self.plan.max_threads.max(1));
                format!("threads {}", settings.pipeline.threads)
            }
            Change::SimdLevel => {
                settings.simd_level = self.rng.pick(&crate::simd::SimdLevel::available());
                format!("SIMD level {}", settings.simd_level.name())
            }
            Change::Shadows => {
                settings.shadows = !settings.shadows;
                format!("shadows {}", if settings.shadows { "on" } else { "off" })
            }
            Change::BaseColors => {
                settings.base_colors = self.rng.pick(crate::gpu::BaseColors::ALL);
                format!("colours {}", settings.base_colors.name())
            }
            Change::IndirectDraws => {
                settings.indirect_draws = !settings.indirect_draws;
                format!(
                    "indirect draws {}",
                    if settings.indirect_draws { "on" } else { "off" }
                )
            }
            Change::Lod => {
                settings.lod.enabled = !settings.lod.enabled;
                format!("LOD {}", if settings.lod.enabled { "on" } else { "off" })
            }
            Change::ComputeShader => {
                settings.compute_shader = self.rng.pick(crate::gpu::skin::ComputeShader::ALL);
                format!("compute shader {}", settings.compute_shader.name())
            }
            Change::Draws => {
                settings.draws = self.rng.pick(crate::gpu::draws::Draws::ALL);
                format!("draws {}", settings.draws.name())
            }
            Change::SkinnedPool => {
                // Off, a share from tight (characters left out) to room for everyone, or
                // grown with the crowd's need.
                use crate::skin::pool::{PoolShare, PoolSize};
                settings.skinned_pool = match [0, 3, 100, 1000][self.rng.below(4)] {
                    0 => None,
                    1000 => Some(PoolSize::Auto),
                    percent => PoolShare::from_percent(percent).map(PoolSize::Share),
                };
                format!(
                    "skinned pool {}",
                    settings
                        .skinned_pool
                        .map_or("off".to_string(), PoolSize::name)
                )
            }
            Change::Animate => {
                // The scene turns `gpu` back (with a note) while a CPU skin variant runs, so
                // GPU-animated frames come whenever the skin allows.
                settings.animate = self.rng.pick(crate::crowd::AnimateDevice::ALL);
                format!("animate {}", settings.animate.name())
            }
            Change::GpuHierarchy => {
                settings.gpu_hierarchy = self.rng.pick(crate::gpu::animate::GpuHierarchy::ALL);
                format!("GPU hierarchy {}", settings.gpu_hierarchy.name())
            }
            Change::Instances => {
                // Log-uniform: as many changes land in 1..10 as in 1000..10,000.
                let max = self.plan.max_instances.max(1) as f32;
                settings.instances = (max.powf(self.rng.unit()).round() as usize).max(1);
                format!("instances {}", settings.instances)
            }
            Change::Blend => {
                settings.pipeline.blend_weight = if self.rng.below(2) == 0 {
                    0.0
                } else {
                    self.rng.unit().max(0.01)
                };
                format!("blend {:.2}", settings.pipeline.blend_weight)
            }
            Change::Pause => {
                settings.paused = !settings.paused;
                format!("paused {}", settings.paused)
            }
            Change::Speed => {
                settings.speed = 10.0 * self.rng.unit();
                format!("speed {:.2}", settings.speed)
            }
            Change::Rig => {
                let index = self.rng.below(self.plan.rigs.len());
                self.switch_rig(scene, index);
                format!("rig {}", self.plan.rigs[index].name)
            }
            Change::Verify => {
                scene.request_verify();
                self.report.verifies += 1;
                "verify".to_string()
            }
        };
        self.note(described);
    }
}

pub use crate::memory::resident_bytes;
