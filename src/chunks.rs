//! Disjoint pieces of one exclusively borrowed range, taken by index from several threads.
//!
//! How it works: a frame hands every group's task its own part of the arena, the trees and
//! the output, without a lock. [`SliceChunks`] (and `skin::dest::DestChunks`, the same for
//! write-only destinations) cut the range into `chunk`-long pieces and give piece `i` to
//! whoever asks for it first; [`Claims`] keeps one bit per piece, set by an atomic
//! `fetch_or`, so a second request for the same piece panics instead of making a second
//! `&mut` to the same memory. Which task takes which piece is then the caller's business,
//! not a promise it must keep for the code to be sound. The bits live in a `Claims` the
//! caller keeps between frames, so a steady frame allocates nothing.

use std::sync::atomic::{AtomicU64, Ordering};

/// One bit per piece of a range: set when the piece is handed out.
#[derive(Debug, Default)]
pub struct Claims {
    bits: Vec<AtomicU64>,
}

impl Claims {
    pub fn new() -> Self {
        Claims::default()
    }

    /// Every piece of `count` unclaimed (grows the bits only when `count` grows).
    pub fn reset(&mut self, count: usize) {
        let words = count.div_ceil(64);
        if self.bits.len() < words {
            self.bits.resize_with(words, AtomicU64::default);
        }
        for w in &mut self.bits[..words] {
            *w.get_mut() = 0;
        }
    }

    /// Claims piece `i`; panics if it was claimed before (or lies past the reset count's
    /// words).
    pub fn claim(&self, i: usize) {
        let bit = 1u64 << (i % 64);
        // Relaxed: the read-modify-writes of one word are totally ordered, so exactly one
        // caller sees the bit clear; the memory of the piece itself needs no ordering here
        // (the job that runs the callers joins them).
        let before = self.bits[i / 64].fetch_or(bit, Ordering::Relaxed);
        assert!(before & bit == 0, "piece {i} handed out twice");
    }
}

/// Disjoint `chunk`-long pieces of a mutable slice (the last may be shorter), each handed
/// out once (see the module docs).
pub struct SliceChunks<'a, T> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
    chunk: usize,
    claims: &'a Claims,
    _borrow: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: the pieces are disjoint `&mut` parts of a slice borrowed exclusively for 'a, and
// `get` hands each one out at most once (its claim bit), so sharing the producer between
// threads gives each piece to one of them; `T: Send` because the piece moves to that thread.
unsafe impl<T: Send> Sync for SliceChunks<'_, T> {}

impl<'a, T> SliceChunks<'a, T> {
    /// Pieces of `chunk` elements (at least 1) of `slice`; `claims` is reset for them and
    /// stays borrowed while any piece lives.
    pub fn new(slice: &'a mut [T], chunk: usize, claims: &'a mut Claims) -> Self {
        assert!(chunk > 0, "pieces of no elements");
        claims.reset(slice.len().div_ceil(chunk));
        SliceChunks {
            len: slice.len(),
            ptr: std::ptr::NonNull::from(slice).cast(),
            chunk,
            claims,
            _borrow: std::marker::PhantomData,
        }
    }

    /// How many pieces there are.
    pub fn count(&self) -> usize {
        self.len.div_ceil(self.chunk)
    }

    /// Piece `i`; panics past the last piece, or if piece `i` was taken before.
    #[allow(clippy::mut_from_ref)]
    pub fn get(&self, i: usize) -> &'a mut [T] {
        assert!(i < self.count(), "piece {i} past the slice");
        self.claims.claim(i);
        let start = i * self.chunk;
        let len = self.chunk.min(self.len - start);
        // SAFETY: start < len (i < count), and start + len <= self.len, so the piece lies in
        // the slice borrowed exclusively for 'a; pieces of distinct indices do not overlap,
        // and this index's claim bit was clear, so no other reference to the piece exists.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(start), len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_slice_once() {
        let mut data = vec![0u32; 1003];
        let mut claims = Claims::new();
        let chunks = SliceChunks::new(&mut data, 10, &mut claims);
        assert_eq!(chunks.count(), 101);
        for i in (0..101).rev() {
            for x in chunks.get(i) {
                *x += 1;
            }
        }
        assert!(data.iter().all(|&x| x == 1));
    }

    #[test]
    #[should_panic(expected = "handed out twice")]
    fn a_piece_taken_twice_panics() {
        let mut data = vec![0u8; 64];
        let mut claims = Claims::new();
        let chunks = SliceChunks::new(&mut data, 8, &mut claims);
        let _first = chunks.get(3);
        let _second = chunks.get(3);
    }

    #[test]
    #[should_panic(expected = "past the slice")]
    fn a_piece_past_the_end_panics() {
        let mut data = vec![0u8; 64];
        let mut claims = Claims::new();
        SliceChunks::new(&mut data, 8, &mut claims).get(8);
    }

    #[test]
    fn claims_are_reset_for_the_next_round() {
        let mut data = vec![0u8; 200];
        let mut claims = Claims::new();
        for _ in 0..3 {
            let chunks = SliceChunks::new(&mut data, 7, &mut claims);
            for i in 0..chunks.count() {
                chunks.get(i)[0] += 1;
            }
        }
        assert_eq!(data[0], 3);
        assert_eq!(data[196], 3);
    }
}
