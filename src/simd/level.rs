//! Which SIMD level runs: the levels declared once ([`SimdLevel`]), what this CPU supports,
//! and the level a process or a pipeline forces.
//!
//! How it works: [`SimdLevel::detect`] picks the best level the CPU supports unless
//! [`force_level`] (the process) or [`with_level`] (a thread, for one pipeline) asks for a
//! lower one; the backends' tokens ask it before they can be made.

/// What a SIMD level is; one row per level in [`SimdLevel`]'s declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimdLevelSpec {
    /// The CLI value (`--simd-level`).
    pub name: &'static str,
    pub description: &'static str,
    /// How reports and the panel name it.
    pub label: &'static str,
    /// Higher is preferred where the CPU has it.
    pub rank: u8,
}

crate::declare_variants! {
    /// Which instruction set the lane kernels (sampler, hierarchy, palette, skin) run
    /// with: the best the CPU has, detected at run time, or a lower one forced with
    /// [`force_level`] (`bench --simd-level`, the tests).
    pub enum SimdLevel: SimdLevelSpec in "SIMD level" {
        Portable => SimdLevelSpec {
            name: "portable",
            description: "plain arrays the compiler vectorizes for the build target (SSE2 on x86-64, NEON on aarch64)",
            label: "portable",
            rank: 0,
        },
        Avx2Fma => SimdLevelSpec {
            name: "avx2",
            description: "AVX2 and FMA: eight instances per 256-bit register, fused multiply-add",
            label: "AVX2+FMA",
            rank: 1,
        },
        Avx512 => SimdLevelSpec {
            name: "avx512",
            description: "AVX-512 F/VL/DQ: eight instances per 256-bit register, with 32 registers and EVEX encodings",
            label: "AVX-512",
            rank: 2,
        },
        Avx512Wide => SimdLevelSpec {
            name: "avx512-wide",
            description: "AVX-512 as avx512, and where a kernel pairs two lane vectors (the skin kernel's blend and transform) one 512-bit register for both",
            label: "AVX-512 wide",
            rank: 3,
        },
    }
}

/// A SIMD level this CPU does not have was asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("SIMD level {asked:?} is not supported by this CPU; it has: {available}")]
pub struct UnsupportedLevel {
    pub asked: &'static str,
    pub available: String,
}

/// The forced level's rank + 1; 0 for none.
static FORCED_LEVEL: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

thread_local! {
    /// This thread's level (rank + 1; 0: the process's), set by [`with_level`].
    static THREAD_LEVEL: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// Runs `f` with the lane kernels on this thread at `level` (`None`: the process's
/// level), then restores the thread's previous one, also when `f` panics. A pipeline
/// sets its own level around every group it runs, so pipelines at different levels (the
/// bench's, the conformance tests') can run side by side in one process. The caller
/// checks that the CPU has the level ([`SimdLevel::require`]): a level it lacks would
/// run instructions it does not have.
pub fn with_level<R>(level: Option<SimdLevel>, f: impl FnOnce() -> R) -> R {
    struct Restore(u8);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD_LEVEL.with(|l| l.set(self.0));
        }
    }
    let value = level.map_or(0, |l| {
        assert!(l.supported(), "SIMD level {} not supported here", l.label());
        l.spec().rank + 1
    });
    let _restore = Restore(THREAD_LEVEL.with(|l| l.replace(value)));
    f()
}

/// From now on every lane kernel in the process runs at `level` (`None`: the best the CPU
/// has again). For measuring what each instruction set buys (`bench --simd-level`) and
/// for testing every level on a machine that has a higher one. Refuses a level the CPU
/// lacks.
pub fn force_level(level: Option<SimdLevel>) -> Result<(), UnsupportedLevel> {
    if let Some(level) = level {
        level.require()?;
    }
    let value = level.map_or(0, |l| l.spec().rank + 1);
    FORCED_LEVEL.store(value, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

impl SimdLevel {
    /// Whether this CPU has the level's instructions.
    pub fn supported(self) -> bool {
        match self {
            SimdLevel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx2Fma => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx512Wide => SimdLevel::Avx512.supported(),
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx512 => {
                SimdLevel::Avx2Fma.supported()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512dq")
            }
            #[cfg(not(target_arch = "x86_64"))]
            SimdLevel::Avx2Fma | SimdLevel::Avx512 | SimdLevel::Avx512Wide => false,
        }
    }

    /// The level itself if this CPU has it, else an error listing the ones it has.
    pub fn require(self) -> Result<SimdLevel, UnsupportedLevel> {
        if self.supported() {
            return Ok(self);
        }
        Err(UnsupportedLevel {
            asked: self.spec().name,
            available: SimdLevel::available()
                .iter()
                .map(|l| l.spec().name)
                .collect::<Vec<_>>()
                .join(", "),
        })
    }

    /// The levels this CPU has, lowest first.
    pub fn available() -> Vec<SimdLevel> {
        let mut levels: Vec<SimdLevel> = <SimdLevel as crate::variant::Variant>::ALL
            .iter()
            .copied()
            .filter(|l| l.supported())
            .collect();
        levels.sort_by_key(|l| l.spec().rank);
        levels
    }

    /// The best level the CPU has, whatever [`force_level`] says (found once, then read
    /// from a static: every kernel call asks).
    pub fn native() -> SimdLevel {
        static NATIVE: std::sync::OnceLock<SimdLevel> = std::sync::OnceLock::new();
        *NATIVE.get_or_init(|| {
            let mut best = SimdLevel::Portable;
            for &level in <SimdLevel as crate::variant::Variant>::ALL {
                if level.spec().rank > best.spec().rank && level.supported() {
                    best = level;
                }
            }
            best
        })
    }

    /// What the lane kernels run with now, on this thread: the level [`with_level`] set
    /// here, else the one [`force_level`] set for the process, else the native one.
    /// Called once per kernel call (a group of eight instances), it allocates nothing.
    pub fn detect() -> SimdLevel {
        let own = THREAD_LEVEL.with(std::cell::Cell::get);
        let forced = if own != 0 {
            own
        } else {
            FORCED_LEVEL.load(std::sync::atomic::Ordering::Relaxed)
        };
        SimdLevel::from_rank(forced.wrapping_sub(1)).unwrap_or_else(SimdLevel::native)
    }

    fn from_rank(rank: u8) -> Option<SimdLevel> {
        <SimdLevel as crate::variant::Variant>::ALL
            .iter()
            .copied()
            .find(|l| l.spec().rank == rank)
    }

    /// How reports and the panel name the level (`AVX-512`, `AVX2+FMA`, `portable`).
    pub fn label(self) -> &'static str {
        self.spec().label
    }
}
