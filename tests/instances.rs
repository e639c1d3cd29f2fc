//! The instance store: generational handles, O(1) spawn/despawn, slot reuse.

use std::collections::HashSet;

use skinbench::crowd::instances::spiral;
use skinbench::crowd::{Instance, InstanceStore};
use skinbench::prepare::PreparedRig;

fn instance(clip: u16) -> Instance {
    Instance {
        time_secs: 0.0,
        speed: 1.0,
        ground_position: [0.0, 0.0],
        clip,
        blend_clip: 0,
        material: 0,
    }
}

#[test]
fn stale_handles_are_detected_not_aliased() {
    let mut store = InstanceStore::new();
    let a = store.spawn(instance(1));
    let b = store.spawn(instance(2));
    let c = store.spawn(instance(3));
    assert_eq!(store.despawn(a).unwrap().clip, 1);
    // c moved into a's dense place; its handle still finds it.
    assert_eq!(store.get(c).unwrap().clip, 3);
    assert_eq!(store.dense_index(c).unwrap(), 0);
    assert_eq!(store.get(b).unwrap().clip, 2);
    // a's slot is reused by the next spawn; the old handle must not see the new instance.
    let d = store.spawn(instance(4));
    assert!(store.get(a).is_err(), "stale handle aliased a new instance");
    assert!(store.despawn(a).is_err(), "double despawn accepted");
    assert_eq!(store.get(d).unwrap().clip, 4);
    assert_ne!(a, d);
    assert_eq!(store.len(), 3);
}

#[test]
fn packed_array_stays_consistent_under_churn() {
    let mut store = InstanceStore::new();
    let mut live = Vec::new();
    let mut x: u64 = 12345;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for step in 0..5000u32 {
        if live.is_empty() || next() % 3 != 0 {
            let h = store.spawn(instance((step % 1000) as u16));
            live.push((h, (step % 1000) as u16));
        } else {
            let i = (next() % live.len() as u64) as usize;
            let (h, clip) = live.swap_remove(i);
            assert_eq!(store.despawn(h).unwrap().clip, clip);
        }
        assert_eq!(store.len(), live.len());
    }
    for (h, clip) in &live {
        assert_eq!(store.get(*h).unwrap().clip, *clip);
        let i = store.dense_index(*h).unwrap();
        assert_eq!(store.as_slice()[i].clip, *clip);
        assert_eq!(store.handle_at(i), Some(*h));
    }
}

#[test]
fn resize_spawns_on_a_spiral_and_despawns_the_newest() {
    let rig = PreparedRig::reference();
    let mut store = InstanceStore::new();
    store.resize(250, &rig, 2.0);
    assert_eq!(store.len(), 250);
    let places: HashSet<[i64; 2]> = store
        .as_slice()
        .iter()
        .map(|i| {
            [
                (i.ground_position[0] * 10.0) as i64,
                (i.ground_position[1] * 10.0) as i64,
            ]
        })
        .collect();
    assert_eq!(places.len(), 250, "every instance has its own place");
    assert!(
        store
            .as_slice()
            .iter()
            .all(|i| (i.clip as usize) < rig.clips.len() && i.material < 3)
    );
    let kept: Vec<Instance> = store.as_slice()[..100].to_vec();
    store.resize(100, &rig, 2.0);
    assert_eq!(
        store.as_slice(),
        &kept[..],
        "shrinking keeps the oldest instances"
    );
    store.resize(0, &rig, 2.0);
    assert!(store.is_empty());
}

#[test]
fn spiral_cells_are_unique_and_compact() {
    let cells: Vec<[i32; 2]> = (0..10_000).map(spiral).collect();
    let unique: HashSet<[i32; 2]> = cells.iter().copied().collect();
    assert_eq!(unique.len(), cells.len());
    // The first (2r+1)² cells fill the square of radius r exactly.
    for r in 1..40i32 {
        let n = ((2 * r + 1) * (2 * r + 1)) as usize;
        assert!(
            cells[..n]
                .iter()
                .all(|c| c[0].abs() <= r && c[1].abs() <= r),
            "radius {r}"
        );
    }
}

/// Every mutable access gives the store a revision no store had before (the caches keyed
/// by it: the renderer's placements, the GPU's records, the ground extent), and the
/// extent follows the instances.
#[test]
fn every_change_gives_a_new_revision_and_extent() {
    let mut crowd = InstanceStore::new();
    let mut seen = vec![crowd.revision()];
    let changed = |crowd: &InstanceStore, seen: &mut Vec<u64>| {
        let r = crowd.revision();
        assert!(!seen.contains(&r), "revision {r} repeated");
        seen.push(r);
    };
    let a = crowd.spawn(instance(0));
    changed(&crowd, &mut seen);
    assert_eq!(crowd.ground_extent(), 1.0);
    crowd.get_mut(a).unwrap().ground_position = [-7.0, 3.0];
    changed(&crowd, &mut seen);
    assert_eq!(crowd.ground_extent(), 7.0);
    let unchanged = crowd.revision();
    let _ = crowd.as_slice();
    let _ = crowd.get(a);
    assert_eq!(crowd.revision(), unchanged, "reading changed the revision");
    crowd.as_mut_slice()[0].ground_position = [2.0, 9.0];
    changed(&crowd, &mut seen);
    assert_eq!(crowd.ground_extent(), 9.0);
    let b = crowd.spawn(instance(1));
    changed(&crowd, &mut seen);
    crowd.swap(0, 1);
    changed(&crowd, &mut seen);
    crowd.advance(0.5);
    changed(&crowd, &mut seen);
    crowd.set_all_times(0.0);
    changed(&crowd, &mut seen);
    crowd.despawn(b).unwrap();
    changed(&crowd, &mut seen);
    // Another store never repeats a revision this one had.
    let mut other = InstanceStore::new();
    other.spawn(instance(0));
    changed(&other, &mut seen);
}
