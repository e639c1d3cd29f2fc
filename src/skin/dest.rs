//! [`Dest`]: where skinned vertices go. Written, never read.
//!
//! How it works: the skinning output may live in mapped GPU staging memory, which may be
//! uninitialized and write-combined: reading it is slow at best, and turning it into a
//! `&mut [u8]` would assert it is readable. So kernels get a `Dest`, a pointer and a
//! length that can only be written to (checked, or unchecked after the caller validated
//! the range once). It is made either from a `&mut` slice (plain CPU memory) or, unsafely,
//! from a raw pointer into a mapping.

use std::marker::PhantomData;
use std::ptr::NonNull;

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

impl<'a, T: Copy + Send> Dest<'a, T> {
    /// Consecutive chunks of `chunk` elements (the last may be shorter), taken by index
    /// inside a frame job, beside the other per-group data.
    pub fn chunks(self, chunk: usize) -> DestChunks<'a, T> {
        assert!(chunk > 0);
        DestChunks {
            shared: Shared {
                ptr: self.ptr,
                len: self.len,
            },
            chunk,
            _borrow: PhantomData,
        }
    }
}

/// The chunks of a consumed [`Dest`], handed out by index (see [`Dest::chunks`]).
pub struct DestChunks<'a, T> {
    shared: Shared<T>,
    chunk: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<'a, T: Copy> DestChunks<'a, T> {
    /// How many chunks there are.
    pub fn count(&self) -> usize {
        self.shared.len.div_ceil(self.chunk)
    }

    /// Chunk `i` (panics past the last).
    ///
    /// # Safety
    /// Each `i` must be taken at most once while the chunks are alive.
    pub unsafe fn get(&self, i: usize) -> Dest<'a, T> {
        assert!(i < self.count(), "chunk {i} past the destination");
        // SAFETY: i is in range (asserted); exclusivity is the caller's promise.
        unsafe { self.shared.chunk(i, self.chunk) }
    }
}

/// The base pointer shared by the chunk producer (each chunk is handed out once).
struct Shared<T> {
    ptr: NonNull<T>,
    len: usize,
}

impl<T: Copy> Shared<T> {
    /// # Safety
    /// Each `i` must be requested at most once while the chunks are alive.
    unsafe fn chunk<'a>(&self, i: usize, chunk: usize) -> Dest<'a, T> {
        let start = i * chunk;
        let len = chunk.min(self.len - start);
        // SAFETY: start < len (i < count), so the pointer stays in the range; exclusivity
        // is the caller's promise.
        unsafe { Dest::from_raw(NonNull::new_unchecked(self.ptr.as_ptr().add(start)), len) }
    }
}

// SAFETY: `Shared` is only used by `DestChunks` to build disjoint chunks; no two threads
// ever write through the same range.
unsafe impl<T: Send> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Shared<T> {}
