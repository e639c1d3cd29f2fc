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
use super::layout::{OutputFormat, OutputLayout};
use super::output::Outputs;
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
pub(super) fn run(palettes: &[Lanes3x4], mut out: Dest<u8>, layout: &OutputLayout, active: usize) {
    assert!((1..=LANES).contains(&active));
    let rows = match layout.format {
        OutputFormat::Palette3x4 => 3,
        OutputFormat::PaletteDualQuat => 2,
        OutputFormat::Interleaved
        | OutputFormat::Float3
        | OutputFormat::Float4
        | OutputFormat::Packed => panic!("not a palette layout"),
    };
    assert_eq!(layout.vertex_size(), rows * ROW_BYTES);
    let entries = layout.stored_vertices;
    assert!(
        out.len() >= layout.group_bytes_needed(active)
            && (active - 1) * layout.instance_stride + entries * rows * ROW_BYTES <= out.len(),
        "output too small"
    );
    let base = out.as_mut_ptr();
    assert!(
        (base as usize).is_multiple_of(16) && layout.instance_stride.is_multiple_of(16),
        "output not aligned for 16-byte rows"
    );
    let mut outs: Outputs = [base; LANES];
    for (k, o) in outs.iter_mut().enumerate().take(active) {
        // SAFETY: k * stride < out.len() (asserted above).
        *o = unsafe { base.add(k * layout.instance_stride) };
    }
    if rows == 3 {
        lay_out_palette_rows(palettes, outs, entries, active);
    } else {
        lay_out_dual_quat_rows(palettes, outs, entries, active);
    }
}

crate::dispatch_simd!(
    fn lay_out_palette_rows(
        palettes: &[Lanes3x4],
        outs: Outputs,
        entries: usize,
        active: usize,
    ) -> () {
        palette_rows_loops::<_, 3>
    }
);

crate::dispatch_simd!(
    fn lay_out_dual_quat_rows(
        palettes: &[Lanes3x4],
        outs: Outputs,
        entries: usize,
        active: usize,
    ) -> () {
        palette_rows_loops::<_, 2>
    }
);

/// Full groups get a copy with `active` a constant (the per-lane stores unrolled).
#[inline(always)]
fn palette_rows_loops<S: Simd, const ROWS: usize>(
    s: S,
    palettes: &[Lanes3x4],
    outs: Outputs,
    entries: usize,
    active: usize,
) {
    if active == LANES {
        palette_rows_group::<S, ROWS, true>(s, palettes, outs, entries, active)
    } else {
        palette_rows_group::<S, ROWS, false>(s, palettes, outs, entries, active)
    }
}

#[inline(always)]
fn palette_rows_group<S: Simd, const ROWS: usize, const FULL: bool>(
    s: S,
    palettes: &[Lanes3x4],
    outs: Outputs,
    entries: usize,
    active: usize,
) {
    let lanes = if FULL { LANES } else { active };
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
            store_rows::<S, ROWS>(s, &outs, lanes, i, r, t);
        }
    }
    let zero = [s.splat(0.0); 4];
    for i in written..entries {
        for r in 0..ROWS {
            store_rows::<S, ROWS>(s, &outs, lanes, i, r, zero);
        }
    }
}

/// Row `r` of entry `i` (`ROWS` rows an entry) from `t` (the transposed row: instance `k`
/// in `t[k % 4]`'s low half for k < 4, its high half for k ≥ 4) into the first `lanes`
/// instances' slices. A function, not a closure: closures are not inlined into the
/// `#[target_feature]` copies (one measured 2.5× slower, each store a call compiled
/// without AVX).
#[inline(always)]
fn store_rows<S: Simd, const ROWS: usize>(
    s: S,
    outs: &Outputs,
    lanes: usize,
    i: usize,
    r: usize,
    t: [S::V; 4],
) {
    for (k, out) in outs.iter().enumerate().take(lanes) {
        // SAFETY: `palette_rows` asserted `(active - 1) * stride + entries * ROWS * 16 <=
        // out.len()`; `outs[k]` is `base + k * stride` for `k < lanes <= active`, so row
        // `r < ROWS` of entry `i < entries` (16 bytes at `(i * ROWS + r) * 16`) lies
        // inside it.
        unsafe {
            s.store_half(
                out.add((i * ROWS + r) * ROW_BYTES) as *mut f32,
                t[k % 4],
                k >= 4,
            )
        }
    }
}
