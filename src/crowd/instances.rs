//! Instances as bulk data (Niklas Gray's "Data Structures Part 1: Bulk Data"): a packed array of
//! plain structs plus generational handles.
//!
//! How it works: live instances sit contiguously in `dense`, so the pipeline iterates
//! them with no holes and no indirection, and instance `i`'s output goes to slice `i` of
//! the vertex buffer. A [`Handle`] names a slot; the slot knows the instance's current
//! dense index and a generation counter. Despawning swaps the last instance into the hole
//! (O(1)), fixes that instance's slot, and bumps the freed slot's generation, so a handle
//! kept from before is detected as stale instead of silently naming whoever reuses the
//! slot. The prepared rig and clips are shared by all instances; an instance is 24 bytes.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::prepare::PreparedRig;

/// Everything one instance owns: which clip, where in it, how it looks, where it stands.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Instance {
    pub time_secs: f32,
    pub speed: f32,
    /// Position on the ground plane (x, z), metres.
    pub ground_position: [f32; 2],
    pub clip: u16,
    /// Second clip for the optional cross-fade.
    pub blend_clip: u16,
    pub material: u32,
}

const _: () = assert!(std::mem::size_of::<Instance>() == 24);

/// A reference to an instance that survives other instances being despawned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Handle {
    slot: u32,
    generation: u32,
}

/// The handle's instance was despawned (possibly its slot now holds another one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("stale instance handle (slot {slot}, generation {generation})")]
pub struct StaleHandle {
    pub slot: u32,
    pub generation: u32,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    generation: u32,
    /// Index into `dense`, or `FREE`.
    dense: u32,
}

const FREE: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
pub struct InstanceStore {
    dense: Vec<Instance>,
    /// Slot of each dense instance (to fix up the slot of the instance moved by a despawn).
    dense_slot: Vec<u32>,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    /// Changes with every mutable access (a value no other store had: see
    /// [`Self::revision`]).
    revision: u64,
    /// [`Self::ground_extent`], computed at most once per revision.
    extent: OnceLock<f32>,
}

/// The source of revisions: unique across stores, so a new store never repeats one an
/// older store had (a cache keyed by revision cannot mistake one crowd for another).
static NEXT_REVISION: AtomicU64 = AtomicU64::new(1);

impl InstanceStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// A number that changes whenever the instances may have (every `&mut` access): what
    /// was computed from the crowd at one revision holds while the revision is the same,
    /// so a steady crowd costs its users no per-instance pass.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    fn touched(&mut self) {
        self.revision = NEXT_REVISION.fetch_add(1, Ordering::Relaxed);
        self.extent = OnceLock::new();
    }

    /// How far the crowd reaches from the origin on the ground (the largest |x| or |z| of
    /// a place, at least 1): what the cameras frame.
    pub fn ground_extent(&self) -> f32 {
        *self.extent.get_or_init(|| {
            self.dense
                .iter()
                .map(|i| i.ground_position[0].abs().max(i.ground_position[1].abs()))
                .fold(1.0, f32::max)
        })
    }

    /// How far from the centre the characters stand along x and along z, metres (at
    /// least 1 each): what a camera frames.
    pub fn ground_half_extents(&self) -> [f32; 2] {
        self.dense.iter().fold([1.0f32, 1.0], |[x, z], i| {
            [
                x.max(i.ground_position[0].abs()),
                z.max(i.ground_position[1].abs()),
            ]
        })
    }

    pub fn len(&self) -> usize {
        self.dense.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dense.is_empty()
    }

    /// The live instances, packed.
    pub fn as_slice(&self) -> &[Instance] {
        &self.dense
    }

    pub fn as_mut_slice(&mut self) -> &mut [Instance] {
        self.touched();
        &mut self.dense
    }

    pub fn spawn(&mut self, instance: Instance) -> Handle {
        self.touched();
        let dense = self.dense.len() as u32;
        self.dense.push(instance);
        let slot = match self.free_slots.pop() {
            Some(slot) => {
                self.slots[slot as usize].dense = dense;
                slot
            }
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    dense,
                });
                (self.slots.len() - 1) as u32
            }
        };
        self.dense_slot.push(slot);
        Handle {
            slot,
            generation: self.slots[slot as usize].generation,
        }
    }

    fn check(&self, handle: Handle) -> Result<usize, StaleHandle> {
        match self.slots.get(handle.slot as usize) {
            Some(s) if s.generation == handle.generation && s.dense != FREE => Ok(s.dense as usize),
            _ => Err(StaleHandle {
                slot: handle.slot,
                generation: handle.generation,
            }),
        }
    }

    pub fn get(&self, handle: Handle) -> Result<&Instance, StaleHandle> {
        self.check(handle).map(|i| &self.dense[i])
    }

    pub fn get_mut(&mut self, handle: Handle) -> Result<&mut Instance, StaleHandle> {
        self.touched();
        self.check(handle).map(|i| &mut self.dense[i])
    }

    /// Index of the instance in the packed array (and so in the output buffer).
    pub fn dense_index(&self, handle: Handle) -> Result<usize, StaleHandle> {
        self.check(handle)
    }

    /// The handle of the instance at a packed index.
    pub fn handle_at(&self, dense: usize) -> Option<Handle> {
        let slot = *self.dense_slot.get(dense)?;
        Some(Handle {
            slot,
            generation: self.slots[slot as usize].generation,
        })
    }

    pub fn despawn(&mut self, handle: Handle) -> Result<Instance, StaleHandle> {
        let index = self.check(handle)?;
        self.touched();
        let removed = self.dense.swap_remove(index);
        self.dense_slot.swap_remove(index);
        if index < self.dense.len() {
            let moved_slot = self.dense_slot[index];
            self.slots[moved_slot as usize].dense = index as u32;
        }
        let slot = &mut self.slots[handle.slot as usize];
        slot.dense = FREE;
        slot.generation = slot.generation.wrapping_add(1);
        self.free_slots.push(handle.slot);
        Ok(removed)
    }

    /// Swaps the instances at packed indices `a` and `b` (their handles follow them): LOD
    /// moves characters that update at the same rate into the same group of eight.
    pub fn swap(&mut self, a: usize, b: usize) {
        self.touched();
        self.dense.swap(a, b);
        self.dense_slot.swap(a, b);
        self.slots[self.dense_slot[a] as usize].dense = a as u32;
        self.slots[self.dense_slot[b] as usize].dense = b as u32;
    }

    /// Puts every instance at `time_secs` into its clip (clips loop, so any time is one).
    pub fn set_all_times(&mut self, time_secs: f32) {
        self.touched();
        for i in &mut self.dense {
            i.time_secs = time_secs;
        }
    }

    /// Advances every instance's clip time.
    pub fn advance(&mut self, dt_secs: f32) {
        self.touched();
        for i in &mut self.dense {
            i.time_secs += dt_secs * i.speed;
        }
    }

    /// Grows or shrinks the crowd to `count` instances: new ones get a clip, a random
    /// phase and a material from a fixed seed, and take the next place on a square spiral
    /// around the origin; shrinking despawns the most recently spawned ones.
    pub fn resize(&mut self, count: usize, rig: &PreparedRig, spacing: f32) {
        let every: Vec<u16> = (0..rig.clips.len().min(usize::from(u16::MAX)) as u16).collect();
        self.resize_mixed(count, rig, &every, [spacing; 2]);
    }

    /// [`Self::resize`] dealing new instances clips from `clips` (clip indices of `rig`;
    /// empty: clip 0) on a grid whose step along x and z is `spacing` metres. Each
    /// cross-fades towards the next clip of `clips`.
    pub fn resize_mixed(
        &mut self,
        count: usize,
        rig: &PreparedRig,
        clips: &[u16],
        spacing: [f32; 2],
    ) {
        while self.len() > count {
            let last = self.handle_at(self.len() - 1).expect("non-empty");
            self.despawn(last).expect("live handle");
        }
        let dealt = clips.len().max(1);
        let clip_at = |k: usize| clips.get(k % dealt).copied().unwrap_or(0);
        while self.len() < count {
            let i = self.len();
            let mut random = SplitMix64(0x5EED_0000 + i as u64);
            let k = (random.next_u64() % dealt as u64) as usize;
            let clip = clip_at(k);
            let duration = rig
                .clips
                .get(clip as usize)
                .map_or(1.0, |c| c.duration_secs);
            let [x, z] = spiral(i);
            self.spawn(Instance {
                time_secs: random.unit() * duration,
                speed: 1.0,
                ground_position: [x as f32 * spacing[0], z as f32 * spacing[1]],
                clip,
                blend_clip: clip_at(k + 1),
                material: (random.next_u64() % 3) as u32,
            });
        }
    }
}

/// The `i`-th cell of a square spiral around (0, 0).
pub fn spiral(i: usize) -> [i32; 2] {
    if i == 0 {
        return [0, 0];
    }
    // Ring r holds cells with max(|x|, |z|) = r: 8r of them, after (2r-1)² inner cells.
    let r = (((i as f64).sqrt() + 1.0) / 2.0).floor() as i64;
    let r = if (2 * r - 1).pow(2) as usize > i {
        r - 1
    } else {
        r
    };
    let r = r.max(1);
    let k = i as i64 - (2 * r - 1).pow(2);
    let side = k / (2 * r);
    let t = k % (2 * r);
    let (x, z) = match side {
        0 => (r, -r + 1 + t),
        1 => (r - 1 - t, r),
        2 => (-r, r - 1 - t),
        _ => (-r + 1 + t, -r),
    };
    [x as i32, z as i32]
}

/// A tiny deterministic generator (no extra dependency): instance placement here, the
/// soak test's changes in `ui::soak`. The same seed gives the same sequence.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0.0..1.0.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One of `all` (not empty).
    pub fn pick<V: Copy>(&mut self, all: &[V]) -> V {
        all[self.below(all.len())]
    }
}
