//! Datagrams that leave without waiting for the congestion window: control datagrams (the
//! acknowledgement of a client's handshake probe, keepalives, `END`) and unreliable messages,
//! latency first. Bounded in datagrams: what does not fit is dropped, as unreliable delivery
//! allows.

use std::collections::VecDeque;

use crate::chunk::{chunk_bytes, chunk_count};
use crate::packet::{Flags, HEADER_LEN, Header};
use crate::payload::Payload;
use crate::transmit::FULL_DATAGRAM;

#[derive(Debug)]
enum Queued {
    Control([u8; HEADER_LEN]),
    /// An unreliable message: its chunks are written straight from the payload when sent.
    Unreliable {
        seq: u16,
        bytes: Payload,
        next: usize,
    },
}

/// The control datagrams and unreliable messages of a connection, in order.
#[derive(Debug)]
pub(crate) struct DatagramQueue {
    queue: VecDeque<Queued>,
    /// Datagrams waiting (an unreliable message counts each chunk not yet sent).
    datagrams: usize,
    max: usize,
}

impl DatagramQueue {
    pub fn new(max: usize) -> DatagramQueue {
        DatagramQueue {
            queue: VecDeque::new(),
            datagrams: 0,
            max,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    pub fn clear(&mut self) {
        self.queue.clear();
        self.datagrams = 0;
    }

    /// Whether `n` more datagrams fit.
    pub fn has_room(&self, n: usize) -> bool {
        self.datagrams + n <= self.max
    }

    /// Queues a control datagram; `false` if the queue is full and it was dropped.
    pub fn push_control(&mut self, datagram: [u8; HEADER_LEN]) -> bool {
        if self.datagrams >= self.max {
            return false;
        }
        self.queue.push_back(Queued::Control(datagram));
        self.datagrams += 1;
        true
    }

    /// Queues unreliable message `seq` (the caller checked [`has_room`](Self::has_room)).
    pub fn push_unreliable(&mut self, seq: u16, bytes: Payload) {
        self.datagrams += chunk_count(bytes.len());
        self.queue.push_back(Queued::Unreliable {
            seq,
            bytes,
            next: 0,
        });
    }

    /// Appends the next datagram, or the next chunks of an unreliable message as a batch of up
    /// to `max` (full chunks, then perhaps the shorter last), to `buf`; returns how many and
    /// the size of each but the last.
    pub fn write(&mut self, buf: &mut Vec<u8>, max: usize) -> Option<(usize, usize)> {
        let front = self.queue.front_mut()?;
        let (count, segment) = match front {
            Queued::Control(datagram) => {
                buf.extend_from_slice(datagram);
                self.queue.pop_front();
                (1, HEADER_LEN)
            }
            Queued::Unreliable { seq, bytes, next } => {
                let n = chunk_count(bytes.len());
                let (mut count, mut segment) = (0, 0);
                while count < max && *next < n {
                    let i = *next;
                    let flags = if i + 1 == n { Flags::FIN } else { Flags::NONE };
                    let part = chunk_bytes(bytes, i);
                    buf.extend_from_slice(&Header::new(flags, i as u8, *seq).encode());
                    buf.extend_from_slice(part);
                    if count == 0 {
                        segment = HEADER_LEN + part.len();
                    }
                    count += 1;
                    *next += 1;
                    if HEADER_LEN + part.len() != FULL_DATAGRAM {
                        break;
                    }
                }
                if *next >= n {
                    self.queue.pop_front();
                }
                (count, segment)
            }
        };
        self.datagrams = self.datagrams.saturating_sub(count);
        Some((count, segment))
    }
}
