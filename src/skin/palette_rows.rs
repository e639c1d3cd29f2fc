//! The CPU part of the GPU skin variants (`gpu_compute`, `gpu_vertex`): a group's lane
//! palettes laid out as each instance's palette rows where the output layout says.
//!
//! How it works: each lane row of a joint's matrices is read once, transposed in registers
//! (one 4×4 transpose per row gives four instances' rows in each half) and stored as
//! 16-byte rows into the eight instances' slices: three rows a 3×4 matrix (read in the lane
//! matrix's slot order, [`LANE_SLOT`]), two a dual quaternion (its eight components in
//! slots 0–7). Entries past the lane palette (joints no vertex uses) are written as zeros,
//! so the upload holds no uninitialised bytes.

use super::Dest;
use super::layout::OutputLayout;
use crate::simd::Simd;
use crate::types::{LANE_SLOT, LANES, Lanes3x4};

/// The bytes of one row (four floats) of a palette entry as the GPU reads it.
const ROW_BYTES: usize = 16;

/// A GPU variant's CPU part: a group's lane palettes written as each instance's palette
/// entries where `layout` says (its `stored_vertices` are the palette's entries): three
/// rows of a 3×4 matrix each (48 bytes), or with dual quaternions two (the rotation and
/// the dual part, 32 bytes: the first eight lane vectors of each entry, see
/// `anim::palette::to_dual_quat`). Each lane row is read once, transposed in registers
/// (one 4×4 transpose per row gives four instances' rows in each half) and stored as
/// 16-byte rows into the eight instances' slices. Entries past the lane palette (joints no
/// vertex uses) are written as zeros, so the upload holds no uninitialised bytes.
/// `skin::run_group` validated the palette layout, the output size and alignment; what
/// the loop relies on is re-checked here once.
pub(super) fn run(palettes: &[Lanes3x4], out: Dest<u8>, layout: &OutputLayout, active: usize) {
    let outs = rows::RowOutputs::new(out, layout, active);
    if outs.rows() == 3 {
        lay_out_palette_rows(palettes, &outs);
    } else {
        lay_out_dual_quat_rows(palettes, &outs);
    }
}

mod rows {
    use super::super::Dest;
    use super::super::layout::{OutputFormat, OutputLayout};
    use super::super::output::Outputs;
    use super::ROW_BYTES;
    use crate::simd::Simd;
    use crate::types::LANES;

    /// Each live instance's slice of a group's output, checked once: holding one means
    /// `outs[k]` (`k < active`) is valid for writing `entries` entries of `rows` 16-byte
    /// rows for as long as it lives (its fields are private to this module, and `new` is
    /// the only way to make one).
    pub(super) struct RowOutputs<'a> {
        outs: Outputs,
        active: usize,
        entries: usize,
        rows: usize,
        _out: Dest<'a, u8>,
    }

    impl<'a> RowOutputs<'a> {
        /// Checks `out` against the layout (a palette layout, large enough for `active`
        /// instances, 16-byte aligned); panics where it is not (`skin::run_group` refuses
        /// each with its typed error first).
        pub fn new(mut out: Dest<'a, u8>, layout: &OutputLayout, active: usize) -> Self {
            assert!((1..=LANES).contains(&active));
            let rows = match layout.format() {
                OutputFormat::Palette3x4 => 3,
                OutputFormat::PaletteDualQuat => 2,
                OutputFormat::Interleaved
                | OutputFormat::Float3
                | OutputFormat::Float4
                | OutputFormat::Packed => panic!("not a palette layout"),
            };
            assert_eq!(layout.vertex_size(), rows * ROW_BYTES);
            let entries = layout.stored_vertices();
            assert!(
                out.len() >= layout.group_bytes_needed(active)
                    && (active - 1) * layout.instance_stride() + entries * rows * ROW_BYTES
                        <= out.len(),
                "output too small"
            );
            let base = out.as_mut_ptr();
            assert!(
                (base as usize).is_multiple_of(16) && layout.instance_stride().is_multiple_of(16),
                "output not aligned for 16-byte rows"
            );
            let mut outs: Outputs = [base; LANES];
            for (k, o) in outs.iter_mut().enumerate().take(active) {
                // SAFETY: k * stride <= (active - 1) * stride < out.len() (asserted above),
                // so the pointer stays inside `out`.
                *o = unsafe { base.add(k * layout.instance_stride()) };
            }
            RowOutputs {
                outs,
                active,
                entries,
                rows,
                _out: out,
            }
        }

        pub fn active(&self) -> usize {
            self.active
        }

        /// Entries each instance's slice holds.
        pub fn entries(&self) -> usize {
            self.entries
        }

        /// Rows an entry: 3 for a 3×4 matrix, 2 for a dual quaternion.
        pub fn rows(&self) -> usize {
            self.rows
        }

        /// Row `r` of entry `i` from `t` (the transposed row: instance `k` in `t[k % 4]`'s
        /// low half for k < 4, its high half for k ≥ 4) into the first `lanes` instances'
        /// slices. A function, not a closure: closures are not inlined into the
        /// `#[target_feature]` copies (one measured 2.5× slower, each store a call compiled
        /// without AVX).
        ///
        /// # Safety
        /// `i < self.entries()`, `r < self.rows()` and `lanes <= self.active()`.
        #[inline(always)]
        pub unsafe fn store<S: Simd>(&self, s: S, lanes: usize, i: usize, r: usize, t: [S::V; 4]) {
            for (k, out) in self.outs.iter().enumerate().take(lanes) {
                // SAFETY: `new` checked `(active - 1) * stride + entries * rows * 16 <=
                // out.len()`, and `outs[k]` is `base + k * stride` for `k < lanes <= active`,
                // so row `r < rows` of entry `i < entries` (16 bytes at
                // `(i * rows + r) * 16`) lies inside it (the caller's promise for `i`, `r`
                // and `lanes`).
                unsafe {
                    s.store_half(
                        out.add((i * self.rows + r) * ROW_BYTES) as *mut f32,
                        t[k % 4],
                        k >= 4,
                    )
                }
            }
        }
    }
}

crate::dispatch_simd!(
    fn lay_out_palette_rows(palettes: &[Lanes3x4], outs: &rows::RowOutputs<'_>) -> () {
        palette_rows_loops::<_, 3>
    }
);

crate::dispatch_simd!(
    fn lay_out_dual_quat_rows(palettes: &[Lanes3x4], outs: &rows::RowOutputs<'_>) -> () {
        palette_rows_loops::<_, 2>
    }
);

/// Full groups get a copy with `active` a constant (the per-lane stores unrolled).
#[inline(always)]
fn palette_rows_loops<S: Simd, const ROWS: usize>(
    s: S,
    palettes: &[Lanes3x4],
    outs: &rows::RowOutputs<'_>,
) {
    assert_eq!(outs.rows(), ROWS);
    if outs.active() == LANES {
        palette_rows_group::<S, ROWS, true>(s, palettes, outs)
    } else {
        palette_rows_group::<S, ROWS, false>(s, palettes, outs)
    }
}

#[inline(always)]
fn palette_rows_group<S: Simd, const ROWS: usize, const FULL: bool>(
    s: S,
    palettes: &[Lanes3x4],
    outs: &rows::RowOutputs<'_>,
) {
    let lanes = if FULL { LANES } else { outs.active() };
    let entries = outs.entries();
    let written = entries.min(palettes.len());
    for (i, m) in palettes[..written].iter().enumerate() {
        for r in 0..ROWS {
            // Instance `k`'s row `r` is lane `k` of the row's four column vectors: after
            // the transpose, `t[k % 4]`'s low half for k < 4, its high half for k ≥ 4.
            let t = if ROWS == 3 {
                // A 3×4 palette entry, in `LANE_SLOT`'s order.
                s.transpose_halves([
                    s.load(&m[LANE_SLOT[r * 4]]),
                    s.load(&m[LANE_SLOT[r * 4 + 1]]),
                    s.load(&m[LANE_SLOT[r * 4 + 2]]),
                    s.load(&m[LANE_SLOT[r * 4 + 3]]),
                ])
            } else {
                // A dual quaternion: its eight components in slots 0–7.
                s.transpose_halves([
                    s.load(&m[r * 4]),
                    s.load(&m[r * 4 + 1]),
                    s.load(&m[r * 4 + 2]),
                    s.load(&m[r * 4 + 3]),
                ])
            };
            // SAFETY: i < written <= entries, r < ROWS == rows (asserted by the caller),
            // and lanes is LANES only for a full group (active == LANES), else active.
            unsafe { outs.store(s, lanes, i, r, t) };
        }
    }
    let zero = [s.splat(0.0); 4];
    for i in written..entries {
        for r in 0..ROWS {
            // SAFETY: as above, for i < entries.
            unsafe { outs.store(s, lanes, i, r, zero) };
        }
    }
}
