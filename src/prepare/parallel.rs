//! Load-time work spread over every core: the measurements made once per rig (each mesh
//! level's error, each clip's motion) are many independent poses.
//!
//! How it works: [`map`] starts one scoped thread per core; each takes the next job from a
//! shared counter until none is left, so jobs of different sizes still share the cores
//! evenly, and the results come back in job order. Nothing here runs per frame: the frame
//! has its own worker threads (`crowd::crew`).

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f(0)`, `f(1)`, … `f(jobs - 1)`, in that order, computed on every core. A job's panic
/// is the caller's.
pub fn map<T: Send>(jobs: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads <= 1 || jobs <= 1 {
        return (0..jobs).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.min(jobs))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let job = next.fetch_add(1, Ordering::Relaxed);
                        if job >= jobs {
                            break mine;
                        }
                        mine.push((job, f(job)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    done.sort_unstable_by_key(|(job, _)| *job);
    done.into_iter().map(|(_, t)| t).collect()
}

/// `0..len` cut into at most one contiguous range per core (fewer where `len` is small),
/// for work whose items depend on the one before (a pose's step from the previous pose).
pub fn chunks(len: usize) -> Vec<std::ops::Range<usize>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let size = len.div_ceil(threads.max(1)).max(1);
    (0..len)
        .step_by(size)
        .map(|start| start..(start + size).min(len))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_job_order() {
        let squares = map(1000, |i| i * i);
        assert_eq!(squares, (0..1000).map(|i| i * i).collect::<Vec<_>>());
        assert!(map(0, |i| i).is_empty());
    }

    #[test]
    fn chunks_cover_every_index_once() {
        for len in [0, 1, 2, 7, 1000] {
            let covered: Vec<usize> = chunks(len).into_iter().flatten().collect();
            assert_eq!(covered, (0..len).collect::<Vec<_>>(), "{len}");
        }
    }
}
