//! [`Dest`]: where skinned vertices go. Written, never read.
//!
//! How it works: the skinning output may live in mapped GPU staging memory, which may be
//! uninitialized and write-combined: reading it is slow at best, and turning it into a
//! `&mut [u8]` would assert it is readable. So kernels get a `Dest`, a pointer and a
//! length that can only be written to (checked, or unchecked after the caller validated
//! the range once). It is made either from a `&mut` slice (plain CPU memory) or, unsafely,
//! from a raw pointer into a mapping. [`DestChunks`] cuts a frame's destinations into the
//! groups' chunks, each handed out once, to the threads that skin them.

use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::chunks::Claims;

pub struct Dest<'a, T> {
    ptr: NonNull<T>,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a `Dest` is an exclusive, write-only view of `len` elements, like `&mut [T]`,
// which is `Send` when `T` is.
unsafe impl<T: Send> Send for Dest<'_, T> {}

impl<'a, T: Copy> Dest<'a, T> {
    pub fn from_mut(slice: &'a mut [T]) -> Self {
        let len = slice.len();
        Dest {
            ptr: NonNull::from(slice).cast(),
            len,
            _borrow: PhantomData,
        }
    }

    /// # Safety
    /// `ptr` must be valid for writes of `len` elements of `T`, aligned, for `'a`, and not
    /// accessed through anything else while this `Dest` (or one split from it) exists.
    pub unsafe fn from_raw(ptr: NonNull<T>, len: usize) -> Self {
        Dest {
            ptr,
            len,
            _borrow: PhantomData,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Writes element `i` (bounds-checked).
    #[inline(always)]
    pub fn write(&mut self, i: usize, value: T) {
        assert!(i < self.len, "write {i} beyond destination of {}", self.len);
        // SAFETY: i < len, and the pointer is valid for `len` writes (constructor contract).
        unsafe { self.ptr.as_ptr().add(i).write(value) }
    }

    /// Writes element `i` without a bounds check.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn write_unchecked(&mut self, i: usize, value: T) {
        // SAFETY: the caller guarantees i < len.
        unsafe { self.ptr.as_ptr().add(i).write(value) }
    }

    /// Splits into `[0, mid)` and `[mid, len)`.
    pub fn split_at(self, mid: usize) -> (Dest<'a, T>, Dest<'a, T>) {
        assert!(mid <= self.len);
        // SAFETY: both halves lie within the original range and do not overlap.
        unsafe {
            (
                Dest::from_raw(self.ptr, mid),
                Dest::from_raw(
                    NonNull::new_unchecked(self.ptr.as_ptr().add(mid)),
                    self.len - mid,
                ),
            )
        }
    }

    /// Reborrows `[start, start + len)`.
    pub fn range(&mut self, start: usize, len: usize) -> Dest<'_, T> {
        assert!(
            start.checked_add(len).is_some_and(|end| end <= self.len),
            "range beyond destination"
        );
        // SAFETY: the range lies within this destination, which is exclusively borrowed.
        unsafe { Dest::from_raw(NonNull::new_unchecked(self.ptr.as_ptr().add(start)), len) }
    }
}

impl<'a> Dest<'a, u8> {
    /// Reinterprets bytes as `U`s (length rounded down), checking alignment.
    pub fn cast<U: bytemuck::Pod>(self) -> Dest<'a, U> {
        let size = std::mem::size_of::<U>();
        assert!(
            (self.ptr.as_ptr() as usize).is_multiple_of(std::mem::align_of::<U>()),
            "destination not aligned for {}",
            std::any::type_name::<U>()
        );
        // SAFETY: aligned (checked), and `len / size` whole elements fit in the byte range;
        // `U` is Pod, so any bytes written are valid.
        unsafe { Dest::from_raw(self.ptr.cast(), self.len / size) }
    }
}

/// The chunks of a frame's destinations: chunk `c` of destination `d` is bytes
/// `c * chunk..(c + 1) * chunk` of `dests[d]` (the last of each may be shorter), handed out
/// once each ([`crate::chunks::Claims`]), to any thread.
pub struct DestChunks<'b, 'd> {
    dests: &'b [Dest<'d, u8>],
    chunk: usize,
    claims: &'b Claims,
}

// SAFETY: the destinations are borrowed exclusively for 'b (through `&'b mut` in `new`),
// and `take` hands each chunk out at most once (its claim bit), so threads sharing the
// chunks write disjoint bytes; a `Dest<u8>` is `Send`.
unsafe impl Sync for DestChunks<'_, '_> {}

impl<'b, 'd: 'b> DestChunks<'b, 'd> {
    /// Chunks of `chunk` bytes (at least 1) of every destination in `dests`; `claims` is
    /// reset for them.
    pub fn new(dests: &'b mut [Dest<'d, u8>], chunk: usize, claims: &'b mut Claims) -> Self {
        assert!(chunk > 0, "chunks of no bytes");
        let count: usize = dests.iter().map(|d| d.len.div_ceil(chunk)).sum();
        claims.reset(count);
        DestChunks {
            dests,
            chunk,
            claims,
        }
    }

    /// Chunk `chunk` of destination `dest`; panics past the last chunk, or if it was taken
    /// before.
    pub fn take(&self, dest: usize, chunk: usize) -> Dest<'b, u8> {
        let d = &self.dests[dest];
        let start = chunk
            .checked_mul(self.chunk)
            .filter(|&start| start < d.len)
            .unwrap_or_else(|| panic!("chunk {chunk} past destination {dest}"));
        let before: usize = self.dests[..dest]
            .iter()
            .map(|d| d.len.div_ceil(self.chunk))
            .sum();
        self.claims.claim(before + chunk);
        // SAFETY: start < d.len, so the chunk's `min(chunk, len - start)` bytes lie inside
        // the destination, which is valid for writes for 'd: 'b and borrowed exclusively by
        // these chunks; chunks do not overlap, and this one's claim bit was clear, so no
        // other `Dest` of these bytes exists.
        unsafe {
            Dest::from_raw(
                NonNull::new_unchecked(d.ptr.as_ptr().add(start)),
                self.chunk.min(d.len - start),
            )
        }
    }
}
