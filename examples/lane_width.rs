//! How wide should an AVX-512 skin group be? Eight instances per 256-bit register (what
//! every level uses) against sixteen per 512-bit register, on the built-in rig's sorted
//! mesh: the same blend, transform and normal encoding, the same lane-block stores
//! (non-temporal), at 96 instances (12 groups of eight or 6 of sixteen) and at the bench's
//! 100 and 1,000 on one and two threads (the project's crew hands the groups out), where a
//! partial last group and the split of few groups between threads count too.
//!
//! A measuring probe, not a variant: the kernels here store each vertex's block as four
//! planes (x, y, z, normal bits) instead of `streamed`'s transposed vertices, in both
//! widths alike, so the comparison is of the arithmetic and the palette's cache footprint
//! (a group's lane palette is 36 KiB at eight instances, 72 KiB at sixteen). Each width's
//! output is checked against a scalar evaluation of the same formulas first.
//!
//! `cargo run --release --example lane_width [rounds]` (x86-64 with AVX-512 F/VL/DQ only).

#[cfg(target_arch = "x86_64")]
mod probe {
    pub use skinbench::crowd::crew::{Crew, SliceChunks};
    use skinbench::prepare::PreparedRig;
    use std::arch::x86_64::*;
    use std::time::Instant;

    /// The vector operations of one width.
    pub trait Width: Copy {
        type V: Copy;
        const LANES: usize;
        unsafe fn splat(x: f32) -> Self::V;
        unsafe fn load(p: *const f32) -> Self::V;
        unsafe fn mul(a: Self::V, b: Self::V) -> Self::V;
        unsafe fn add(a: Self::V, b: Self::V) -> Self::V;
        unsafe fn fmadd(a: Self::V, b: Self::V, c: Self::V) -> Self::V;
        unsafe fn encode(n: [Self::V; 3]) -> Self::V;
        unsafe fn stream(p: *mut f32, v: Self::V);
    }

    #[derive(Clone, Copy)]
    pub struct Ymm;
    #[derive(Clone, Copy)]
    pub struct Zmm;

    // SAFETY (every method of both impls): called only from `run_kernel`'s
    // `#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]` entry, after
    // `main` checked those features; pointers come from `kernel`, which keeps them inside
    // its buffers (aligned to 64 bytes).
    impl Width for Ymm {
        type V = __m256;
        const LANES: usize = 8;
        #[inline(always)]
        unsafe fn splat(x: f32) -> __m256 {
            unsafe { _mm256_set1_ps(x) }
        }
        #[inline(always)]
        unsafe fn load(p: *const f32) -> __m256 {
            unsafe { _mm256_load_ps(p) }
        }
        #[inline(always)]
        unsafe fn mul(a: __m256, b: __m256) -> __m256 {
            unsafe { _mm256_mul_ps(a, b) }
        }
        #[inline(always)]
        unsafe fn add(a: __m256, b: __m256) -> __m256 {
            unsafe { _mm256_add_ps(a, b) }
        }
        #[inline(always)]
        unsafe fn fmadd(a: __m256, b: __m256, c: __m256) -> __m256 {
            unsafe { _mm256_fmadd_ps(a, b, c) }
        }
        #[inline(always)]
        unsafe fn encode([x, y, z]: [__m256; 3]) -> __m256 {
            unsafe {
                let len2 = _mm256_fmadd_ps(z, z, _mm256_fmadd_ps(y, y, _mm256_mul_ps(x, x)));
                let scale = _mm256_mul_ps(_mm256_rsqrt_ps(len2), _mm256_set1_ps(511.0));
                let magic = _mm256_set1_ps(8_388_608.0 + 512.0);
                macro_rules! q {
                    ($c:expr) => {
                        _mm256_castps_si256(_mm256_fmadd_ps($c, scale, magic))
                    };
                }
                let bits = _mm256_or_si256(
                    _mm256_or_si256(
                        _mm256_sub_epi32(q!(x), _mm256_set1_epi32(0x4B00_0000)),
                        _mm256_slli_epi32::<10>(q!(y)),
                    ),
                    _mm256_slli_epi32::<20>(q!(z)),
                );
                _mm256_castsi256_ps(bits)
            }
        }
        #[inline(always)]
        unsafe fn stream(p: *mut f32, v: __m256) {
            unsafe { _mm256_stream_ps(p, v) }
        }
    }

    impl Width for Zmm {
        type V = __m512;
        const LANES: usize = 16;
        #[inline(always)]
        unsafe fn splat(x: f32) -> __m512 {
            unsafe { _mm512_set1_ps(x) }
        }
        #[inline(always)]
        unsafe fn load(p: *const f32) -> __m512 {
            unsafe { _mm512_load_ps(p) }
        }
        #[inline(always)]
        unsafe fn mul(a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_mul_ps(a, b) }
        }
        #[inline(always)]
        unsafe fn add(a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_add_ps(a, b) }
        }
        #[inline(always)]
        unsafe fn fmadd(a: __m512, b: __m512, c: __m512) -> __m512 {
            unsafe { _mm512_fmadd_ps(a, b, c) }
        }
        #[inline(always)]
        unsafe fn encode([x, y, z]: [__m512; 3]) -> __m512 {
            unsafe {
                let len2 = _mm512_fmadd_ps(z, z, _mm512_fmadd_ps(y, y, _mm512_mul_ps(x, x)));
                let scale = _mm512_mul_ps(_mm512_rsqrt14_ps(len2), _mm512_set1_ps(511.0));
                let magic = _mm512_set1_ps(8_388_608.0 + 512.0);
                macro_rules! q {
                    ($c:expr) => {
                        _mm512_castps_si512(_mm512_fmadd_ps($c, scale, magic))
                    };
                }
                let bits = _mm512_or_si512(
                    _mm512_or_si512(
                        _mm512_sub_epi32(q!(x), _mm512_set1_epi32(0x4B00_0000)),
                        _mm512_slli_epi32::<10>(q!(y)),
                    ),
                    _mm512_slli_epi32::<20>(q!(z)),
                );
                _mm512_castsi512_ps(bits)
            }
        }
        #[inline(always)]
        unsafe fn stream(p: *mut f32, v: __m512) {
            unsafe { _mm512_stream_ps(p, v) }
        }
    }

    /// The mesh input, influence-sorted (what the lane kernels read).
    pub struct Input {
        pub class_counts: [usize; 4],
        pub source: Vec<[f32; 8]>,
        pub joints: Vec<u16>,
        pub weights: Vec<f32>,
        pub joint_count: usize,
    }

    impl Input {
        pub fn reference() -> Input {
            let rig = PreparedRig::reference();
            let mesh = &rig.mesh.sorted;
            // The built-in rig has four influences at most: the probe's classes.
            let [c1, c2, c3, c4, rest @ ..] = mesh.class_counts;
            assert!(rest.iter().all(|&n| n == 0));
            Input {
                class_counts: [c1, c2, c3, c4],
                source: mesh
                    .source
                    .iter()
                    .map(|v| {
                        let (p, n) = (v.position, v.normal);
                        [p[0], p[1], p[2], p[3], n[0], n[1], n[2], n[3]]
                    })
                    .collect(),
                joints: mesh.joints.clone(),
                weights: mesh.weights.clone(),
                joint_count: mesh.joint_bound,
            }
        }
    }

    /// 64-byte aligned floats.
    #[derive(Clone, Copy)]
    #[repr(C, align(64))]
    pub struct Line([f32; 16]);

    pub fn floats(lines: &[Line]) -> &[f32] {
        // SAFETY: `Line` is 16 f32 with no padding.
        unsafe { std::slice::from_raw_parts(lines.as_ptr() as *const f32, lines.len() * 16) }
    }

    /// One group's palette: joint `j`'s entry `e` for lane `k` at `(j * 12 + e) * L + k`,
    /// a rotation-free scale-and-shift per lane so results are easy to check.
    pub fn palette(input: &Input, lanes: usize, group: usize) -> Vec<Line> {
        let mut lines = vec![Line([0.0; 16]); (input.joint_count * 12 * lanes).div_ceil(16)];
        let p = floats_mut(&mut lines);
        for j in 0..input.joint_count {
            for k in 0..lanes {
                let s = 1.0 + 0.001 * ((group * lanes + k) as f32) + 0.01 * j as f32;
                for e in 0..12 {
                    let (row, col) = (e / 4, e % 4);
                    let value = if row == col {
                        s
                    } else if col == 3 {
                        0.1 * (j + row) as f32
                    } else {
                        0.01 * (row as f32 - col as f32)
                    };
                    p[(j * 12 + e) * lanes + k] = value;
                }
            }
        }
        lines
    }

    fn floats_mut(lines: &mut [Line]) -> &mut [f32] {
        // SAFETY: `Line` is 16 f32 with no padding.
        unsafe { std::slice::from_raw_parts_mut(lines.as_mut_ptr() as *mut f32, lines.len() * 16) }
    }

    /// Skins every vertex of one group: output vertex `v` is four planes of `L` floats at
    /// `out[v * 4 * L..]`.
    ///
    /// # Safety
    /// The CPU must have the features of `run_kernel`.
    #[inline(always)]
    unsafe fn kernel<W: Width>(input: &Input, palette: &[f32], out: &mut [f32]) {
        let l = W::LANES;
        assert!(palette.len() >= input.joint_count * 12 * l);
        assert!(out.len() >= input.source.len() * 4 * l);
        assert!(
            input
                .joints
                .iter()
                .all(|&j| (j as usize) < input.joint_count)
        );
        assert_eq!(input.class_counts.iter().sum::<usize>(), input.source.len());
        let (mut v, mut ji, mut wi) = (0usize, 0usize, 0usize);
        for (class, &count) in input.class_counts.iter().enumerate() {
            let k = class + 1;
            let range = (v, ji, wi, count);
            // SAFETY: forwarded; the ranges lie inside the asserted arrays.
            unsafe {
                match k {
                    1 => class_loop::<W, 1>(input, palette, out, range),
                    2 => class_loop::<W, 2>(input, palette, out, range),
                    3 => class_loop::<W, 3>(input, palette, out, range),
                    _ => class_loop::<W, 4>(input, palette, out, range),
                }
            }
            v += count;
            ji += count * k;
            if k > 1 {
                wi += count * k;
            }
        }
        // SAFETY: SSE is part of x86-64.
        unsafe { _mm_sfence() };
    }

    /// The `count` vertices of one influence class, from vertex `v`, joint `ji` and weight
    /// `wi` on: `K` influences each, `K` a constant as in the real kernel.
    ///
    /// # Safety
    /// As for `kernel`, which checked the arrays.
    #[inline(always)]
    unsafe fn class_loop<W: Width, const K: usize>(
        input: &Input,
        palette: &[f32],
        out: &mut [f32],
        (v0, ji0, wi0, count): (usize, usize, usize, usize),
    ) {
        let l = W::LANES;
        let pal = palette.as_ptr();
        let dst = out.as_mut_ptr();
        for i in 0..count {
            let (v, ji, wi) = (v0 + i, ji0 + i * K, wi0 + i * K);
            // SAFETY: joint indices < joint_count and v < source.len() (checked by
            // `kernel`), so every load and store is inside its buffer.
            unsafe {
                // A macro, not a closure: a closure would not inherit the entry's
                // target features.
                macro_rules! m {
                    ($j:expr, $e:expr) => {
                        W::load(pal.add(($j as usize * 12 + $e) * l))
                    };
                }
                let jj = &input.joints[ji..ji + K];
                let mut b = [W::splat(0.0); 12];
                if K == 1 {
                    for (e, be) in b.iter_mut().enumerate() {
                        *be = m!(jj[0], e);
                    }
                } else {
                    let ww = &input.weights[wi..wi + K];
                    let w = [
                        W::splat(ww[0]),
                        W::splat(ww[1 % K]),
                        W::splat(ww[2 % K]),
                        W::splat(ww[3 % K]),
                    ];
                    for (e, be) in b.iter_mut().enumerate() {
                        let ab = W::fmadd(m!(jj[1 % K], e), w[1], W::mul(m!(jj[0], e), w[0]));
                        *be = match K {
                            2 => ab,
                            3 => W::fmadd(m!(jj[2 % K], e), w[2], ab),
                            _ => W::add(
                                ab,
                                W::fmadd(m!(jj[3 % K], e), w[3], W::mul(m!(jj[2 % K], e), w[2])),
                            ),
                        };
                    }
                }
                let s = &input.source[v];
                let (px, py, pz) = (W::splat(s[0]), W::splat(s[1]), W::splat(s[2]));
                let (nx, ny, nz) = (W::splat(s[4]), W::splat(s[5]), W::splat(s[6]));
                let mut pos = [W::splat(0.0); 3];
                let mut nrm = [W::splat(0.0); 3];
                for r in 0..3 {
                    pos[r] = W::fmadd(
                        b[r * 4 + 2],
                        pz,
                        W::fmadd(b[r * 4 + 1], py, W::fmadd(b[r * 4], px, b[r * 4 + 3])),
                    );
                    nrm[r] = W::fmadd(
                        b[r * 4 + 2],
                        nz,
                        W::fmadd(b[r * 4 + 1], ny, W::mul(b[r * 4], nx)),
                    );
                }
                let base = dst.add(v * 4 * l);
                W::stream(base, pos[0]);
                W::stream(base.add(l), pos[1]);
                W::stream(base.add(2 * l), pos[2]);
                W::stream(base.add(3 * l), W::encode(nrm));
            }
        }
    }

    /// # Safety
    /// The CPU must have AVX-512 F/VL/DQ, AVX2 and FMA.
    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
    pub unsafe fn run_kernel<W: Width>(input: &Input, palette: &[f32], out: &mut [f32]) {
        // SAFETY: forwarded to the caller.
        unsafe { kernel::<W>(input, palette, out) }
    }

    /// The same formulas in scalar f32 for lane `k`'s position (to check a kernel).
    pub fn scalar_position(
        input: &Input,
        palette: &[f32],
        lanes: usize,
        k: usize,
    ) -> Vec<[f32; 3]> {
        let (mut ji, mut wi) = (0, 0);
        let mut out = Vec::new();
        let mut v = 0;
        for (class, &count) in input.class_counts.iter().enumerate() {
            let kk = class + 1;
            for _ in 0..count {
                let mut b = [0.0f32; 12];
                for i in 0..kk {
                    let w = if kk == 1 { 1.0 } else { input.weights[wi + i] };
                    let j = input.joints[ji + i] as usize;
                    for (e, be) in b.iter_mut().enumerate() {
                        *be += w * palette[(j * 12 + e) * lanes + k];
                    }
                }
                ji += kk;
                if kk > 1 {
                    wi += kk;
                }
                let s = input.source[v];
                out.push(std::array::from_fn(|r| {
                    b[r * 4] * s[0] + b[r * 4 + 1] * s[1] + b[r * 4 + 2] * s[2] + b[r * 4 + 3]
                }));
                v += 1;
            }
        }
        out
    }

    pub fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    /// One frame at width `W`: every group's kernel, taken from the crew's counter by the
    /// caller and `threads - 1` workers (the pipeline's hand-out), in µs.
    pub fn frame<W: Width>(
        crew: &mut Crew,
        threads: usize,
        input: &Input,
        palettes: &[Vec<Line>],
        out: &mut [Vec<Line>],
    ) -> f64 {
        let start = Instant::now();
        let groups = palettes.len();
        let outs = SliceChunks::new(out, 1);
        crew.run(groups, threads - 1, true, &|g| {
            // SAFETY: the crew calls each index once, so each group's output is taken once.
            let out = unsafe { outs.get(g) };
            // SAFETY: `main` checked the CPU features; the buffers are sized by `setup`.
            unsafe { run_kernel::<W>(input, floats(&palettes[g]), floats_mut(&mut out[0])) };
        });
        start.elapsed().as_secs_f64() * 1e6
    }

    pub fn setup(
        input: &Input,
        lanes: usize,
        instances: usize,
    ) -> (Vec<Vec<Line>>, Vec<Vec<Line>>) {
        // A partial last group costs a whole one: its lanes are computed (and, in lane
        // blocks, stored) whatever the live count.
        let groups = instances.div_ceil(lanes);
        let palettes = (0..groups).map(|g| palette(input, lanes, g)).collect();
        let outs = (0..groups)
            .map(|_| vec![Line([0.0; 16]); (input.source.len() * 4 * lanes).div_ceil(16)])
            .collect();
        (palettes, outs)
    }

    pub fn check<W: Width>(input: &Input, palettes: &[Vec<Line>], outs: &[Vec<Line>]) {
        let l = W::LANES;
        for (g, (palette, out)) in palettes.iter().zip(outs).enumerate() {
            let out = floats(out);
            for k in [0, l - 1] {
                let expected = scalar_position(input, floats(palette), l, k);
                for (v, e) in expected.iter().enumerate() {
                    for (r, &e) in e.iter().enumerate() {
                        let got = out[v * 4 * l + r * l + k];
                        assert!(
                            (got - e).abs() <= 1e-4 * e.abs().max(1.0),
                            "{l} lanes, group {g} lane {k} vertex {v}: {got} vs {e}"
                        );
                    }
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn main() {
    use probe::*;
    let has_all = std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma");
    if !has_all {
        println!("the probe needs AVX-512 F/VL/DQ, AVX2 and FMA, which this CPU lacks");
        return;
    }
    let input = Input::reference();
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    let mut crew = Crew::new(1, 1 << 20).expect("a worker thread");
    println!(
        "{cpu}: built-in rig, {} vertices, {rounds} rounds of 50 frames per width, alternating",
        input.source.len()
    );
    // 96: whole groups at both widths; 100 and 1000: the bench's instance counts, where
    // a partial last group of sixteen costs as much as a full one, and two threads share
    // 7 (or 63) groups of sixteen against 13 (or 125) of eight.
    for (instances, threads) in [(96, 1), (100, 1), (100, 2), (1000, 1), (1000, 2)] {
        let (p8, mut o8) = setup(&input, 8, instances);
        let (p16, mut o16) = setup(&input, 16, instances);
        frame::<Ymm>(&mut crew, threads, &input, &p8, &mut o8);
        frame::<Zmm>(&mut crew, threads, &input, &p16, &mut o16);
        check::<Ymm>(&input, &p8, &o8);
        check::<Zmm>(&input, &p16, &o16);
        let (mut t8, mut t16) = (Vec::new(), Vec::new());
        // Alternating bursts of frames, so both widths see the same machine.
        for _ in 0..rounds {
            for _ in 0..50 {
                t8.push(frame::<Ymm>(&mut crew, threads, &input, &p8, &mut o8));
            }
            for _ in 0..50 {
                t16.push(frame::<Zmm>(&mut crew, threads, &input, &p16, &mut o16));
            }
        }
        let items = (instances * input.source.len()) as f64;
        let min = |t: &[f64]| t.iter().copied().fold(f64::INFINITY, f64::min);
        println!(
            "{instances} instances, {threads} thread{}: {} groups of 8 / {} of 16",
            if threads == 1 { "" } else { "s" },
            p8.len(),
            p16.len()
        );
        for (name, t) in [("  8 per 256-bit", &t8), ("  16 per 512-bit", &t16)] {
            let med = median(t.to_vec());
            println!(
                "{name}: median {med:.1} µs ({:.3} ns/vertex), min {:.1} µs",
                med * 1000.0 / items,
                min(t)
            );
        }
        println!(
            "  16 / 8: median {:.3}×, min {:.3}× the time",
            median(t16.clone()) / median(t8.clone()),
            min(&t16) / min(&t8)
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("the probe needs x86-64 with AVX-512 F/VL/DQ");
}
