//! Buffers the application handed back after reading a message (`recycle`), for the next
//! messages received.
//!
//! A message that arrives in one datagram is copied out of it into a buffer of its own. Without
//! spares that is an allocation per message, freed when the application drops it; a receiver
//! handed hundreds of messages per poll frees them in a burst, more than the allocator's
//! thread cache holds, and pays for it in the allocator's slow path (and, once the freed
//! memory is trimmed, in page faults). With the buffers handed back, the copy goes into one
//! that was just read, still in the cache.
//!
//! What is kept is bounded: small buffers only (a message of one datagram is at most a
//! datagram's payload), and at most [`MAX_SPARES`] of them and [`MAX_SPARE_BYTES`] in all.
//! Anything past that is freed at once, as if it had been dropped.

/// Buffers kept at most.
pub(crate) const MAX_SPARES: usize = 1024;
/// A buffer of larger capacity is freed rather than kept: it would hold memory out of
/// proportion to the one-datagram messages it serves.
pub(crate) const MAX_SPARE_CAPACITY: usize = 4096;
/// Capacity kept in all.
pub(crate) const MAX_SPARE_BYTES: usize = 1 << 20;

/// Buffers handed back, most recent last (the next one taken: the likeliest in the cache).
#[derive(Debug, Default)]
pub(crate) struct Spares {
    bufs: Vec<Vec<u8>>,
    /// Capacity of `bufs`, in bytes.
    bytes: usize,
}

impl Spares {
    /// Keeps `buf` for a later message if it is small and there is room; frees it otherwise.
    pub fn give(&mut self, buf: Vec<u8>) {
        let capacity = buf.capacity();
        if capacity == 0
            || capacity > MAX_SPARE_CAPACITY
            || self.bufs.len() >= MAX_SPARES
            || self.bytes + capacity > MAX_SPARE_BYTES
        {
            return;
        }
        self.bytes += capacity;
        self.bufs.push(buf);
    }

    /// `data` in a buffer of its own: a spare one if there is one, else a new one.
    pub fn copy_of(&mut self, data: &[u8]) -> Vec<u8> {
        match self.bufs.pop() {
            Some(mut buf) => {
                self.bytes -= buf.capacity();
                buf.clear();
                buf.extend_from_slice(data);
                buf
            }
            None => data.to_vec(),
        }
    }

    /// Buffers kept.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.bufs.len()
    }

    /// Capacity kept, in bytes.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_handed_back_carries_the_next_message() {
        let mut spares = Spares::default();
        assert_eq!(
            spares.copy_of(b"first"),
            b"first",
            "none kept: a new buffer"
        );
        let buf = Vec::with_capacity(1024);
        let at = buf.as_ptr();
        spares.give(buf);
        assert_eq!((spares.len(), spares.bytes()), (1, 1024));
        let next = spares.copy_of(b"second");
        assert_eq!(next, b"second");
        assert_eq!(next.as_ptr(), at, "the same allocation");
        assert_eq!((spares.len(), spares.bytes()), (0, 0));
    }

    #[test]
    fn a_buffer_with_old_bytes_holds_only_the_new_message() {
        let mut spares = Spares::default();
        spares.give(vec![7; 600]);
        assert_eq!(spares.copy_of(&[1, 2, 3]), [1, 2, 3]);
    }

    #[test]
    fn what_is_kept_is_bounded() {
        let mut spares = Spares::default();
        spares.give(Vec::new());
        spares.give(Vec::with_capacity(MAX_SPARE_CAPACITY + 1));
        assert_eq!(spares.len(), 0, "empty and large buffers are freed");
        for _ in 0..MAX_SPARES + 10 {
            spares.give(Vec::with_capacity(16));
        }
        assert_eq!(spares.len(), MAX_SPARES);
        let mut spares = Spares::default();
        for _ in 0..MAX_SPARES {
            spares.give(Vec::with_capacity(MAX_SPARE_CAPACITY));
        }
        assert_eq!(spares.bytes(), MAX_SPARE_BYTES);
        assert_eq!(spares.len(), MAX_SPARE_BYTES / MAX_SPARE_CAPACITY);
    }
}
