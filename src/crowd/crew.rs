//! The frame's fork-join: the calling thread and the pipeline's workers take groups from
//! one counter.
//!
//! How it works: a job is `items` indices and a function; every participant takes the
//! next index from an atomic counter until none are left, so a slow participant simply
//! takes fewer. The caller publishes the job (a generation bump), takes indices itself,
//! then closes the job once the workers that joined have finished; a worker that wakes too
//! late finds it closed and does nothing, so nobody waits for a sleeping worker. Between
//! jobs a worker that took part in the last one spins for [`SPIN`] before it sleeps on a
//! condition variable: frames that follow each other closely (the bench, a busy app) find
//! it awake.
//!
//! Why not rayon's `install` (what the pipeline used before): the caller blocks while the
//! pool works, so `threads` workers plus the caller are `threads + 1` threads on
//! `threads` cores, and each frame pays up to three wake-ups: the first worker, the second
//! (woken by the first), the caller at the end. On a virtual machine whose idle virtual
//! CPUs halt, `perf sched` measured 35 µs on average per wake-up, on a 270 µs frame
//! (bench-results/2026-11-23_avx512.md, section 5).
//!
//! Why the job's function is lent to the workers by erasing its lifetime (one `unsafe`
//! block in [`Crew::run`]) and not through `std::thread::scope`, which lends borrowed data
//! to threads safely: a scope joins its threads before it returns, so its threads live for
//! one call, while the crew's live as long as the pipeline, across frames; a scope per
//! frame pays a spawn and a join per worker per frame, the cost this crew exists to avoid.
//! A scope spanning every frame would have to enclose the window's event loop, the bench's
//! loops and every test's, and every `Pipeline` would carry the scope's lifetimes. So
//! `run` keeps the guarantee a scope gives by hand: it returns only once no worker can
//! still reach the function. The tests below run under Miri
//! (`cargo +nightly miri test --lib -- crew`, docs/verify.md), which checks that no
//! worker touches the borrowed function or its captures after `run` returned.
//!
//! The caller takes part only where the job allows it ([`Crew::run`]'s `caller_joins`):
//! `tree` walks the hierarchy recursively and needs the workers' large stacks (see
//! [`super::pipeline::WORKER_STACK_BYTES`]); its jobs run on the workers alone.

use std::cell::Cell;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Upper bound on the participants of a frame the stage clock and the timeline keep rows
/// for (a participant's rows are at its index modulo this).
pub const MAX_WORKERS: usize = 256;

/// How long a worker that just finished a job waits for the next one before sleeping.
pub const SPIN: Duration = Duration::from_micros(200);

/// The job word: generation in the high bits, then a closed flag, then the count of
/// workers inside the job.
const CLOSED: u64 = 1 << 31;
const ACTIVE_MASK: u64 = CLOSED - 1;
const GENERATION_ONE: u64 = 1 << 32;

thread_local! {
    /// This thread's participant index in the running job (0 for the caller, 1.. for the
    /// workers); 0 outside jobs.
    static PARTICIPANT: Cell<usize> = const { Cell::new(0) };
}

/// The participant index of the calling thread in the current job: 0 for the thread that
/// called [`Crew::run`], `1 + i` for worker `i`. Per-participant scratch and stage clocks
/// use it.
pub fn participant() -> usize {
    PARTICIPANT.with(Cell::get)
}

type JobFn<'a> = dyn Fn(usize) + Sync + 'a;

struct Shared {
    /// Workers that have started running (see [`Crew::new`]).
    started: AtomicUsize,
    /// See [`CLOSED`].
    word: AtomicU64,
    /// The open job's function, lifetime erased; valid while the job is open and a worker
    /// is counted in `word`.
    job: AtomicPtr<&'static JobFn<'static>>,
    items: AtomicUsize,
    next: AtomicUsize,
    /// Workers `0..allowed` may join the open job.
    allowed: AtomicUsize,
    sleepers: AtomicUsize,
    lock: Mutex<bool>,
    wake: Condvar,
    /// The first panic of a worker inside the open job, re-raised by the caller.
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
    /// A worker panicked in the open job: its remaining indices may never be taken.
    panicked: std::sync::atomic::AtomicBool,
}

/// `threads` worker threads (each with `stack_bytes` of stack) and the caller.
pub struct Crew {
    shared: Arc<Shared>,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl Crew {
    pub fn new(workers: usize, stack_bytes: usize) -> std::io::Result<Crew> {
        let shared = Arc::new(Shared {
            started: AtomicUsize::new(0),
            word: AtomicU64::new(CLOSED),
            job: AtomicPtr::new(std::ptr::null_mut()),
            items: AtomicUsize::new(0),
            next: AtomicUsize::new(0),
            allowed: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(false),
            wake: Condvar::new(),
            panic: Mutex::new(None),
            panicked: std::sync::atomic::AtomicBool::new(false),
        });
        let mut crew = Crew {
            shared: shared.clone(),
            workers: Vec::new(),
        };
        for i in 0..workers {
            let shared = shared.clone();
            let handle = std::thread::Builder::new()
                .name(format!("skinbench-worker-{i}"))
                .stack_size(stack_bytes)
                .spawn(move || worker_loop(&shared, i))?;
            crew.workers.push(handle);
        }
        // Return once every worker runs: a thread's start-up (the runtime's per-thread
        // state, this crew's thread-locals) then happens here, not during some later frame
        // that a slow-to-start worker first wakes in (where it showed up as an allocation
        // in a steady-state frame).
        while shared.started.load(Ordering::Acquire) < workers {
            std::thread::yield_now();
        }
        Ok(crew)
    }

    /// Calls `f(i)` exactly once for every `i` in `0..items` (never twice: what lets a job
    /// take disjoint chunks by index), on the caller (if `caller_joins`) and up to
    /// `helpers` workers, and returns when all calls have returned. A panic in a call is
    /// re-raised here after the running calls finished; indices nobody had taken by then
    /// are not called.
    pub fn run(
        &mut self,
        items: usize,
        helpers: usize,
        caller_joins: bool,
        f: &(dyn Fn(usize) + Sync),
    ) {
        let helpers = helpers.min(self.workers.len());
        assert!(helpers > 0 || caller_joins, "a job needs someone to run it");
        if items == 0 {
            return;
        }
        let s = &*self.shared;
        let job_ref: &JobFn<'_> = f;
        // SAFETY: only the lifetime is erased. The pointer is published while the job is
        // open and read only by workers counted in `word`; the caller closes the job, and
        // returns, only after that count fell to zero, and a closed job is never joined.
        // So no worker reads `f` or `job_ref` after this function returns.
        let job_ref: &'static JobFn<'static> = unsafe { std::mem::transmute(job_ref) };
        let slot = &job_ref as *const &'static JobFn<'static> as *mut _;
        s.job.store(slot, Ordering::Relaxed);
        s.items.store(items, Ordering::Relaxed);
        s.next.store(0, Ordering::Relaxed);
        s.allowed.store(helpers, Ordering::Relaxed);
        s.panicked.store(false, Ordering::Relaxed);
        // Open the next generation: not closed, nobody inside. SeqCst pairs with the
        // sleepers' check (no missed wake-up).
        let word = s.word.load(Ordering::Relaxed);
        let generation = (word & !(CLOSED | ACTIVE_MASK)).wrapping_add(GENERATION_ONE);
        s.word.store(generation, Ordering::SeqCst);
        if helpers > 0 && s.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = s.lock.lock().unwrap_or_else(|e| e.into_inner());
            s.wake.notify_all();
        }
        let caller_panic = if caller_joins {
            let before = PARTICIPANT.with(|p| p.replace(0));
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| take_items(s, f)));
            PARTICIPANT.with(|p| p.set(before));
            result.err()
        } else {
            None
        };
        // Close the job once nobody is inside; a worker joining later finds it closed.
        loop {
            let word = s.word.load(Ordering::Acquire);
            if !caller_joins
                && s.next.load(Ordering::Relaxed) < items
                && !s.panicked.load(Ordering::Acquire)
            {
                // Workers alone run this job and have not taken every index yet; they may
                // still be waking, on this thread's core.
                std::thread::yield_now();
                continue;
            }
            if word & ACTIVE_MASK == 0
                && s.word
                    .compare_exchange_weak(word, word | CLOSED, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok()
            {
                break;
            }
            std::hint::spin_loop();
        }
        s.job.store(std::ptr::null_mut(), Ordering::Relaxed);
        let worker_panic = s.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(panic) = caller_panic.or(worker_panic) {
            std::panic::resume_unwind(panic);
        }
    }
}

/// Takes indices until none are left.
fn take_items(s: &Shared, f: &JobFn<'_>) {
    let items = s.items.load(Ordering::Relaxed);
    loop {
        let i = s.next.fetch_add(1, Ordering::Relaxed);
        if i >= items {
            return;
        }
        f(i);
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        let s = &*self.shared;
        {
            let mut stop = s.lock.lock().unwrap_or_else(|e| e.into_inner());
            *stop = true;
            s.wake.notify_all();
        }
        for handle in self.workers.drain(..) {
            let _ = handle.join();
        }
    }
}

fn worker_loop(s: &Shared, index: usize) {
    PARTICIPANT.with(|p| p.set(1 + index));
    let _ = std::thread::current();
    s.started.fetch_add(1, Ordering::Release);
    // Generation 0 is the closed word the crew starts with; not the word read now, which
    // may already be the first job's if the caller was quicker than this thread's start.
    let mut seen = 0;
    let mut took_part = false;
    loop {
        // Wait for a generation after `seen`: spinning for a while after a job of ours,
        // else (and then) sleeping.
        let spin_until = took_part.then(|| Instant::now() + SPIN);
        let word = loop {
            let word = s.word.load(Ordering::Acquire);
            if word & !(CLOSED | ACTIVE_MASK) != seen {
                break word;
            }
            match spin_until {
                Some(until) if Instant::now() < until => {
                    for _ in 0..64 {
                        std::hint::spin_loop();
                    }
                }
                _ => {
                    let mut stop = s.lock.lock().unwrap_or_else(|e| e.into_inner());
                    s.sleepers.fetch_add(1, Ordering::SeqCst);
                    while !*stop && s.word.load(Ordering::SeqCst) & !(CLOSED | ACTIVE_MASK) == seen
                    {
                        stop = s.wake.wait(stop).unwrap_or_else(|e| e.into_inner());
                    }
                    s.sleepers.fetch_sub(1, Ordering::SeqCst);
                    if *stop {
                        return;
                    }
                }
            }
        };
        seen = word & !(CLOSED | ACTIVE_MASK);
        took_part = false;
        if index >= s.allowed.load(Ordering::Relaxed) {
            continue;
        }
        // Join: only while this generation is open.
        let mut word = word;
        let joined = loop {
            if word & !(CLOSED | ACTIVE_MASK) != seen || word & CLOSED != 0 {
                break false;
            }
            match s
                .word
                .compare_exchange_weak(word, word + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break true,
                Err(now) => word = now,
            }
        };
        if !joined {
            continue;
        }
        took_part = true;
        // SAFETY: this worker is counted in `word` for the open job, so the caller has not
        // closed it and `job` points at its live function reference (see `Crew::run`).
        let f: &JobFn<'_> = unsafe { *s.job.load(Ordering::Relaxed) };
        if let Err(panic) =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| take_items(s, f)))
        {
            s.panic
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(panic);
            s.panicked.store(true, Ordering::Release);
        }
        s.word.fetch_sub(1, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    /// Runs `jobs` jobs of `items` indices and checks every index ran exactly once, on
    /// the participants the job allowed.
    fn check(workers: usize, helpers: usize, caller_joins: bool, items: usize, jobs: usize) {
        let mut crew = Crew::new(workers, 1 << 20).unwrap();
        for job in 0..jobs {
            let counts: Vec<AtomicU32> = (0..items).map(|_| AtomicU32::new(0)).collect();
            let who: Vec<AtomicUsize> = (0..items).map(|_| AtomicUsize::new(usize::MAX)).collect();
            crew.run(items, helpers, caller_joins, &|i| {
                counts[i].fetch_add(1, Ordering::Relaxed);
                who[i].store(participant(), Ordering::Relaxed);
            });
            for (i, c) in counts.iter().enumerate() {
                assert_eq!(c.load(Ordering::Relaxed), 1, "job {job} index {i}");
                let p = who[i].load(Ordering::Relaxed);
                let allowed = (caller_joins && p == 0) || (1..=helpers.min(workers)).contains(&p);
                assert!(allowed, "job {job} index {i} ran on participant {p}");
            }
            // Every few jobs, a pause longer than the spin, so the workers go to sleep
            // and the next job must wake them.
            if job % 16 == 15 {
                std::thread::sleep(SPIN * 3);
            }
        }
    }

    #[test]
    fn every_index_runs_once_with_the_caller() {
        check(1, 1, true, 13, 200);
        check(3, 3, true, 125, 100);
        check(2, 1, true, 1, 50);
    }

    #[test]
    fn every_index_runs_once_on_the_workers_alone() {
        check(2, 2, false, 13, 200);
        check(1, 1, false, 1, 50);
    }

    #[test]
    fn the_caller_alone_runs_a_job_without_helpers() {
        check(2, 0, true, 7, 20);
    }

    #[test]
    fn a_panic_in_a_job_reaches_the_caller_and_the_crew_goes_on() {
        let mut crew = Crew::new(2, 1 << 20).unwrap();
        for caller_joins in [true, false] {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                crew.run(50, 2, caller_joins, &|i| {
                    if i == 17 {
                        panic!("index 17");
                    }
                })
            }));
            let message = result.unwrap_err();
            assert_eq!(message.downcast_ref::<&str>(), Some(&"index 17"));
            let ran = AtomicU32::new(0);
            crew.run(50, 2, caller_joins, &|_| {
                ran.fetch_add(1, Ordering::Relaxed);
            });
            assert_eq!(ran.load(Ordering::Relaxed), 50);
        }
    }

    #[test]
    fn slice_chunks_are_the_disjoint_pieces_of_the_slice() {
        let mut crew = Crew::new(2, 1 << 20).unwrap();
        let mut data = vec![0u32; 1003];
        let mut claims = crate::chunks::Claims::new();
        {
            let chunks = crate::chunks::SliceChunks::new(&mut data, 10, &mut claims);
            crew.run(101, 2, true, &|i| {
                let piece = chunks.get(i);
                assert_eq!(piece.len(), if i == 100 { 3 } else { 10 });
                for (k, x) in piece.iter_mut().enumerate() {
                    *x += (i * 10 + k) as u32 + 1;
                }
            });
        }
        assert!(data.iter().enumerate().all(|(k, &x)| x == k as u32 + 1));
    }
}
