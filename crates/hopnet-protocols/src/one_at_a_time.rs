//! The [`Machine::poll_transmit`](hopnet::Machine::poll_transmit) of this crate's machines:
//! none of their protocols batches, so each writes one whole datagram per call from a queue
//! it keeps ([`Outbox`], or Semi-ordered UDP's endpoint), whatever batch size the driver
//! allows.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Instant;

use hopnet::Transmit;

/// Where a machine's datagrams wait until the driver polls them, one at a time.
pub(crate) trait Datagrams {
    /// Writes the next datagram into `buf` (cleared first) and says where it goes.
    fn next_into(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<Transmit>;
}

/// The [`Machine::poll_transmit`](hopnet::Machine::poll_transmit) of a role whose datagrams
/// wait in its field `$queue` (a [`Datagrams`]).
macro_rules! transmit_one_at_a_time {
    ($queue:ident) => {
        fn poll_transmit(
            &mut self,
            now: std::time::Instant,
            buf: &mut Vec<u8>,
            _max_datagrams: usize,
        ) -> Option<hopnet::Transmit> {
            $crate::one_at_a_time::Datagrams::next_into(&mut self.$queue, now, buf)
        }
    };
}
pub(crate) use transmit_one_at_a_time;

/// Datagrams made whole on a tick or an event, waiting for the driver. A bound, when it has
/// one, caps what a peer that makes the machine answer a lot can make it hold: what comes on
/// top is dropped (and counted), as a full socket buffer would drop it.
#[derive(Debug)]
pub(crate) struct Outbox {
    queue: VecDeque<(SocketAddr, Vec<u8>)>,
    limit: usize,
    /// Datagrams dropped because the queue was full.
    dropped: u64,
}

impl Default for Outbox {
    /// Unbounded: the owner bounds it by counting its [`bytes`](Outbox::bytes).
    fn default() -> Outbox {
        Outbox::bounded(usize::MAX)
    }
}

impl Outbox {
    /// A queue of at most `limit` datagrams.
    pub fn bounded(limit: usize) -> Outbox {
        Outbox {
            queue: VecDeque::new(),
            limit,
            dropped: 0,
        }
    }

    /// Queues `datagram` for `to`, or drops it when the queue is full.
    pub fn push(&mut self, to: SocketAddr, datagram: Vec<u8>) {
        if self.queue.len() >= self.limit {
            self.dropped += 1;
            return;
        }
        self.queue.push_back((to, datagram));
    }

    /// Datagrams waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Datagrams dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Bytes held, as a memory bound counts them.
    pub fn bytes(&self) -> usize {
        self.queue.iter().map(|(_, b)| b.capacity() + 48).sum()
    }
}

impl Datagrams for Outbox {
    fn next_into(&mut self, _now: Instant, buf: &mut Vec<u8>) -> Option<Transmit> {
        let (to, bytes) = self.queue.pop_front()?;
        buf.clear();
        buf.extend_from_slice(&bytes);
        Some(Transmit::single(to, bytes.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_outbox_drops_and_counts_what_comes_on_top_and_hands_the_rest_out_in_order() {
        let to: SocketAddr = "10.0.0.1:1".parse().unwrap();
        let mut out = Outbox::bounded(2);
        for byte in 1..=3u8 {
            out.push(to, vec![byte; 3]);
        }
        assert_eq!((out.len(), out.dropped()), (2, 1));
        let (now, mut buf) = (Instant::now(), Vec::new());
        for byte in 1..=2u8 {
            let t = out.next_into(now, &mut buf).unwrap();
            assert_eq!((t.destination, t.size, buf.clone()), (to, 3, vec![byte; 3]));
        }
        assert!(out.next_into(now, &mut buf).is_none());
    }
}
