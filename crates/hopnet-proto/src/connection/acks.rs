//! Acknowledgements waiting to leave: one 4-byte `ACK` per reliable chunk received, sent before
//! anything else so the peer's timers see the true round trip, and in batches (they all have
//! one size).

use std::collections::VecDeque;

use crate::packet::{HEADER_LEN, Header};

/// The ACKs a connection owes its peer, bounded.
#[derive(Debug)]
pub(crate) struct AckQueue {
    queue: VecDeque<[u8; HEADER_LEN]>,
    max: usize,
}

impl AckQueue {
    pub fn new(max: usize) -> AckQueue {
        AckQueue {
            queue: VecDeque::new(),
            max,
        }
    }

    /// Owes an ACK for `(chunk, sequence)`; `false` if the queue is full and it was dropped
    /// (the peer sends the chunk again, and it is acknowledged then).
    pub fn push(&mut self, chunk: u8, sequence: u16) -> bool {
        if self.queue.len() >= self.max {
            return false;
        }
        self.queue.push_back(Header::ack(chunk, sequence).encode());
        true
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    pub fn clear(&mut self) {
        self.queue.clear();
    }

    /// Appends up to `max` ACKs to `buf`; returns how many.
    pub fn write(&mut self, buf: &mut Vec<u8>, max: usize) -> usize {
        let mut count = 0;
        while count < max
            && let Some(ack) = self.queue.pop_front()
        {
            buf.extend_from_slice(&ack);
            count += 1;
        }
        count
    }
}
