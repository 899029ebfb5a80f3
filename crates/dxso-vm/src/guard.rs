//! Guard-page test mode: a draw's buffers in their own mappings between inaccessible pages,
//! so that generated code reading or writing past one faults instead of passing silently.
//!
//! [`crate::Device::set_guard_pages`] (or [`crate::Options::guard_pages`]) turns it
//! on. A draw then copies into a [`GuardedBuf`] each of: the batch arena (one per worker), the
//! padded constant file (`device::CONST_PAD` zero registers on either side), every bound
//! stream (one copy per input that reads it, the stream's whole data), the index buffer (its
//! first `vertex_count` indices, the ones the draw reads) and the output records (copied to
//! the caller's buffer after the draw). Each copy ends exactly at a `PROT_NONE` page, so an
//! access even one byte past its end faults; the page before the mapping is `PROT_NONE` too,
//! so an access before the start faults once it passes the slack that rounding the length up
//! to whole pages leaves there. Off (the default), draws use their buffers as they are and
//! none of this runs.
//!
//! Only on Unix (`mmap`/`mprotect`); elsewhere, or when a mapping fails, the mode falls back
//! to ordinary buffers.

use crate::math::Row;
use std::ops::{Deref, DerefMut};

/// Element types a guarded buffer may hold: plain data that all-zero bytes make valid.
///
/// # Safety
/// Every bit pattern of `size_of::<Self>()` zero bytes is a valid `Self`, and `Self` has no
/// drop glue.
pub(crate) unsafe trait Plain: Copy {}
// SAFETY: zero bytes are a valid number, and numbers have no drop glue.
unsafe impl Plain for u8 {}
// SAFETY: as for `u8`.
unsafe impl Plain for u32 {}
// SAFETY: as for `u8`.
unsafe impl Plain for f32 {}
// SAFETY: as for `u8`.
unsafe impl Plain for [f32; 4] {}
// SAFETY: `Row` is an array of `f32`, as above.
unsafe impl Plain for Row {}

/// `len` elements in a private anonymous mapping of whole pages, the last element flush
/// against a trailing `PROT_NONE` page and a `PROT_NONE` page before the first page.
pub(crate) struct GuardedBuf<T: Plain> {
    map: *mut u8,
    map_len: usize,
    data: *mut T,
    len: usize,
}

// SAFETY: the buffer owns its mapping alone, like a `Vec<T>`.
unsafe impl<T: Plain + Send> Send for GuardedBuf<T> {}
// SAFETY: as for `Send`: shared access reads the elements, like `&Vec<T>`.
unsafe impl<T: Plain + Sync> Sync for GuardedBuf<T> {}

impl<T: Plain> GuardedBuf<T> {
    /// A copy of `src`, or `None` where the mapping cannot be made.
    pub(crate) fn copy_of(src: &[T]) -> Option<GuardedBuf<T>> {
        let mut b = GuardedBuf::zeroed(src.len())?;
        b.copy_from_slice(src);
        Some(b)
    }

    /// `len` zero elements.
    #[cfg(unix)]
    pub(crate) fn zeroed(len: usize) -> Option<GuardedBuf<T>> {
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
        let bytes = len.checked_mul(size_of::<T>())?;
        let pages = bytes.div_ceil(page);
        let map_len = pages.checked_add(2)?.checked_mul(page)?;
        // SAFETY: a fresh private anonymous mapping, inaccessible at first.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return None;
        }
        let map = map.cast::<u8>();
        // SAFETY: the pages between the two guards lie inside the mapping just made.
        let ok = pages == 0
            || unsafe {
                libc::mprotect(
                    map.add(page).cast(),
                    pages * page,
                    libc::PROT_READ | libc::PROT_WRITE,
                )
            } == 0;
        let b = GuardedBuf {
            map,
            map_len,
            // SAFETY: `page + pages * page - bytes` is inside the mapping; it is aligned for
            // `T` as pages are and `bytes` is a multiple of `T`'s size, hence of its
            // alignment. Anonymous pages read as zero bytes, a valid `T` (`Plain`).
            data: unsafe { map.add(page + pages * page - bytes) }.cast(),
            len,
        };
        ok.then_some(b)
    }

    /// Not on this platform: ordinary buffers are used.
    #[cfg(not(unix))]
    pub(crate) fn zeroed(_len: usize) -> Option<GuardedBuf<T>> {
        None
    }
}

impl<T: Plain> Deref for GuardedBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised elements at `data`, readable and writable while `self`
        // lives (a zero-length slice sits at the trailing guard: aligned and non-null).
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }
}

impl<T: Plain> DerefMut for GuardedBuf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, borrowed uniquely through `self`.
        unsafe { std::slice::from_raw_parts_mut(self.data, self.len) }
    }
}

impl<T: Plain> Drop for GuardedBuf<T> {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: the mapping this buffer made, unmapped once.
        unsafe {
            libc::munmap(self.map.cast(), self.map_len);
        }
    }
}

/// Bytes a draw reads or writes: a vector or shared data as given, or a guarded copy.
pub(crate) enum Buf<T: Plain> {
    Heap(Vec<T>),
    /// Data shared with its owner (a stream's bytes), read where it is.
    Shared(std::sync::Arc<dyn AsRef<[T]> + Send + Sync>),
    Guarded(GuardedBuf<T>),
}

impl<T: Plain> Buf<T> {
    /// Put the data in a guarded copy (kept as it is where none can be made).
    pub(crate) fn guard(&mut self) {
        if let Some(g) = GuardedBuf::copy_of(self) {
            *self = Buf::Guarded(g);
        }
    }
}

impl<T: Plain> Deref for Buf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            Buf::Heap(v) => v,
            Buf::Shared(a) => (**a).as_ref(),
            Buf::Guarded(g) => g,
        }
    }
}

/// The register arena of a batch: a heap vector, or guarded. Reached through a pointer so
/// that indexing it costs what indexing a vector does.
pub(crate) struct Arena {
    ptr: std::ptr::NonNull<Row>,
    len: usize,
    _owner: ArenaOwner,
}

enum ArenaOwner {
    Heap(#[allow(dead_code)] Vec<Row>),
    Guarded(#[allow(dead_code)] GuardedBuf<Row>),
}

// SAFETY: the arena owns its rows alone, like a `Vec<Row>`.
unsafe impl Send for Arena {}
// SAFETY: as for `Send`: shared access reads the rows, like `&Vec<Row>`.
unsafe impl Sync for Arena {}

impl Arena {
    /// `len` zero rows on the heap.
    pub(crate) fn new(len: usize) -> Arena {
        let mut v = vec![[0.0; crate::LANES]; len];
        Arena {
            // SAFETY: a vector's pointer is never null.
            ptr: unsafe { std::ptr::NonNull::new_unchecked(v.as_mut_ptr()) },
            len,
            _owner: ArenaOwner::Heap(v),
        }
    }

    /// Move the rows into a guarded copy (kept where none can be made).
    pub(crate) fn guard(&mut self) {
        if let Some(mut g) = GuardedBuf::copy_of(self) {
            // SAFETY: the guarded buffer's pointer is never null.
            self.ptr = unsafe { std::ptr::NonNull::new_unchecked(g.as_mut_ptr()) };
            self._owner = ArenaOwner::Guarded(g);
        }
    }
}

impl Deref for Arena {
    type Target = [Row];
    fn deref(&self) -> &[Row] {
        // SAFETY: `ptr` is the owner's `len` rows, which live (and do not move: heap or
        // mapping) as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for Arena {
    fn deref_mut(&mut self) -> &mut [Row] {
        // SAFETY: as for `deref`, borrowed uniquely through `self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_guarded_buffer_holds_its_copy_flush_against_the_trailing_guard() {
        let src: Vec<u32> = (0..1000).collect();
        let b = GuardedBuf::copy_of(&src).expect("maps");
        assert_eq!(&b[..], &src[..]);
        let page = 4096;
        let end = b.as_ptr() as usize + 4000;
        assert_eq!(end % page, 0, "the data ends at a page boundary");
        let empty = GuardedBuf::<[f32; 4]>::zeroed(0).expect("maps");
        assert!(empty.is_empty());
        let rows = GuardedBuf::<Row>::zeroed(3).expect("maps");
        assert_eq!(rows.as_ptr() as usize % 64, 0);
        assert!(rows.iter().flatten().all(|&x| x == 0.0));
    }
}
