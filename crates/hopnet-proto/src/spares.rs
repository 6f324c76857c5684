//! Spare payload buffers, for the next message to be copied into instead of a new allocation:
//! the sender's (buffers of acknowledged messages, for the next messages queued) and the
//! receiver's (buffers the application handed back with `recycle`, for the next messages that
//! arrive in one datagram).
//!
//! Both ends free or take buffers in bursts: one ACK frame frees a run of messages, one poll
//! hands the application hundreds. Dropped in a burst, they overflow the allocator's
//! per-thread cache and most frees take its slow path (BENCHMARKS.md, "Stop 22"); kept, the
//! next copy goes into a buffer just used, likelier in the cache.
//!
//! What is kept is bounded: small buffers only ([`MAX_SPARE_CAPACITY`]), at most a given
//! count and a given sum of capacities. Anything past that is freed at once, as if dropped.

/// A buffer of larger capacity is freed rather than kept: keeping 64 KiB buffers (up to
/// 2 MiB of them) measured no faster than the allocator (BENCHMARKS.md, "Stop 20"), and one
/// kept for a small message would hold memory out of proportion to it.
pub(crate) const MAX_SPARE_CAPACITY: usize = 4096;
/// The receiver's bounds: buffers kept, and their capacity in all.
const RECEIVED_SPARES: usize = 1024;
const RECEIVED_SPARE_BYTES: usize = 1 << 20;

/// Spare buffers, most recent last (the next one taken: the likeliest in the cache).
#[derive(Debug)]
pub(crate) struct Spares {
    bufs: Vec<Vec<u8>>,
    /// Capacity of `bufs`, in bytes.
    bytes: usize,
    max_count: usize,
    max_bytes: usize,
}

impl Spares {
    /// Keeps at most `max_count` buffers and `max_bytes` of capacity.
    pub fn new(max_count: usize, max_bytes: usize) -> Spares {
        Spares {
            bufs: Vec::new(),
            bytes: 0,
            max_count,
            max_bytes,
        }
    }

    /// The receiver's: at most 1,024 buffers and 1 MiB (what `recycle` documents).
    pub fn received() -> Spares {
        Spares::new(RECEIVED_SPARES, RECEIVED_SPARE_BYTES)
    }

    /// Keeps `buf` for a later message if it is small and there is room; frees it otherwise.
    pub fn give(&mut self, buf: Vec<u8>) {
        let capacity = buf.capacity();
        if capacity == 0
            || capacity > MAX_SPARE_CAPACITY
            || self.bufs.len() >= self.max_count
            || self.bytes + capacity > self.max_bytes
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

    /// Frees all but `count` buffers (the oldest are kept: this trims an idle sender, whose
    /// buffers are all equally cold).
    pub fn truncate(&mut self, count: usize) {
        for buf in self.bufs.drain(count.min(self.bufs.len())..) {
            self.bytes -= buf.capacity();
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
        let mut spares = Spares::received();
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
        let mut spares = Spares::received();
        spares.give(vec![7; 600]);
        assert_eq!(spares.copy_of(&[1, 2, 3]), [1, 2, 3]);
    }

    #[test]
    fn what_is_kept_is_bounded_in_count_and_bytes() {
        let mut spares = Spares::received();
        spares.give(Vec::new());
        spares.give(Vec::with_capacity(MAX_SPARE_CAPACITY + 1));
        assert_eq!(spares.len(), 0, "empty and large buffers are freed");
        for _ in 0..RECEIVED_SPARES + 10 {
            spares.give(Vec::with_capacity(16));
        }
        assert_eq!(spares.len(), RECEIVED_SPARES);
        let mut spares = Spares::received();
        for _ in 0..RECEIVED_SPARES {
            spares.give(Vec::with_capacity(MAX_SPARE_CAPACITY));
        }
        assert_eq!(spares.bytes(), RECEIVED_SPARE_BYTES);
        assert_eq!(spares.len(), RECEIVED_SPARE_BYTES / MAX_SPARE_CAPACITY);
    }

    #[test]
    fn truncate_frees_buffers_and_their_bytes() {
        let mut spares = Spares::new(8, 1 << 20);
        for capacity in [100, 200, 300] {
            spares.give(Vec::with_capacity(capacity));
        }
        spares.truncate(1);
        assert_eq!((spares.len(), spares.bytes()), (1, 100));
        spares.truncate(5);
        assert_eq!(spares.len(), 1);
    }
}
