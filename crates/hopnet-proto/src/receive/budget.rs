//! The reassembly memory budget: what a chunk may add to a connection's memory, how much a
//! partial payload reserves ahead, and the one exception that keeps reassembly from
//! deadlocking.
//!
//! Memory counted is the partial payloads' buffers and bookkeeping, the complete messages held
//! back for ordering, and the delivered payloads the application has not polled yet. Beyond
//! the budget only the oldest reliable message may still grow, or start if none of it arrived
//! yet (up to one maximum payload more): the sender's window waits on it, and the sender
//! retransmits the oldest message's chunks first. So may, on the extended wire, the message whose
//! reliable index every held message waits for (the ordering prefix): otherwise held messages
//! could fill the budget while the one they wait for is refused.

use crate::chunk::{CHUNK_SIZE, MAX_PAYLOAD};

/// Bookkeeping charged per partial payload on top of its buffer, so that many tiny partials
/// cannot slip under the memory budget.
pub const PARTIAL_OVERHEAD: usize = 96;

/// What a chunk would join: the partial's buffer capacity and how much of it is filled in
/// order, or nothing yet.
#[derive(Debug, Clone, Copy)]
pub struct Room {
    /// The partial's buffer capacity.
    pub capacity: usize,
    /// Bytes filled in order from the start.
    pub filled: usize,
    /// Whether a partial exists yet.
    pub exists: bool,
}

impl Room {
    /// No partial yet.
    pub const NONE: Room = Room {
        capacity: 0,
        filled: 0,
        exists: false,
    };
}

/// Memory held and the limit.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Bytes held now.
    pub used: usize,
    /// The most bytes to hold.
    pub limit: usize,
}

impl Budget {
    /// Whether a single-chunk payload of `len` bytes fits (it needs no reassembly state).
    #[inline]
    pub fn fits(self, len: usize) -> bool {
        self.used + len <= self.limit
    }

    /// Whether `len` more bytes stay within the hard ceiling of a rescued message: the
    /// budget plus one maximum payload.
    pub fn rescues(self, len: usize) -> bool {
        self.used + len <= self.limit + MAX_PAYLOAD + PARTIAL_OVERHEAD
    }

    /// Whether a chunk covering `offset..end` may join `room`; if so, the capacity to reserve
    /// for the chunks to come (`None`: just what this one needs). `oldest_reliable` is asked
    /// only over the budget.
    #[inline]
    pub fn admit(
        self,
        room: Room,
        offset: usize,
        end: usize,
        fin: bool,
        reliable: bool,
        oldest_reliable: impl FnOnce() -> bool,
    ) -> Option<Option<usize>> {
        let Room {
            capacity,
            filled,
            exists,
        } = room;
        let overhead = if exists { 0 } else { PARTIAL_OVERHEAD };
        let need = end.max(capacity) - capacity + overhead;
        // A chunk without FIN arriving in order has another after it: with memory to spare,
        // reserve ahead, charged like the rest. A first chunk makes room for two more, so a
        // 1 KiB message (504 + 504 + 16 bytes) is one allocation; after that the buffer
        // doubles, so a large payload is a handful of allocations, not one per chunk.
        let ahead = if !fin && filled == offset {
            let next = end + CHUNK_SIZE;
            let cap = if next <= capacity {
                capacity
            } else if filled == 0 {
                next + CHUNK_SIZE
            } else {
                next.max(2 * capacity)
            };
            let cap = cap.min(MAX_PAYLOAD).max(capacity);
            let roomy = cap - capacity + overhead;
            (self.used + roomy <= self.limit / 2).then_some(cap)
        } else {
            None
        };
        let within = self.fits(need);
        let rescue = || reliable && self.rescues(need) && oldest_reliable();
        (within || rescue()).then_some(ahead)
    }
}
