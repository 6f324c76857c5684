//! Datagrams a machine has made and its driver has not yet taken: a bounded queue, so a peer
//! that makes the machine answer a lot cannot make it hold more than a fixed amount.

use std::collections::VecDeque;
use std::net::SocketAddr;

use hopnet::Transmit;
use hopnet_formats::rtype::Action;

use super::frames;

/// Datagrams held at most; what comes on top is dropped (and counted), as a full socket
/// buffer would drop it. A resync answer is at most [`MAX_ENTITIES`](super::MAX_ENTITIES)
/// SPRITEs, so this holds dozens of them.
pub const MAX_OUTBOX: usize = 1024;

/// The queue of datagrams to send.
#[derive(Debug, Default)]
pub struct Outbox {
    queue: VecDeque<(SocketAddr, Vec<u8>)>,
    /// Datagrams dropped because the queue was full.
    pub dropped: u64,
}

impl Outbox {
    /// Queues a frame of `action` with `message` for `to`.
    pub fn push(&mut self, to: SocketAddr, action: Action, message: &str) {
        if self.queue.len() >= MAX_OUTBOX {
            self.dropped += 1;
            return;
        }
        self.queue
            .push_back((to, frames::to_bytes(action, message)));
    }

    /// Datagrams waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Writes the next datagram into `buf` for [`hopnet::Machine::poll_transmit`].
    pub fn poll_transmit(&mut self, buf: &mut Vec<u8>) -> Option<Transmit> {
        let (to, bytes) = self.queue.pop_front()?;
        buf.clear();
        buf.extend_from_slice(&bytes);
        Some(Transmit::single(to, bytes.len()))
    }
}
