//! Datagrams that leave without waiting for the congestion window: control datagrams (the
//! acknowledgement of a client's handshake probe, keepalives, `END`, offers and accepts) and
//! unreliable and tracked messages, latency first. Bounded in datagrams: what does not fit is
//! dropped, as unreliable delivery allows.
//!
//! An item is framed the spec's way (a datagram of its own) or as frames of the extended wire
//! (any number per datagram, packed by `core/pack.rs`).

use std::collections::VecDeque;

use crate::chunk::count_chunks;
use crate::ext::negotiate::NEGOTIATION_LEN;
use crate::packet::HEADER_LEN;
use crate::payload::Payload;
use crate::send::wire::Wire;
use crate::transmit::FULL_DATAGRAM;

#[derive(Debug)]
enum Queued {
    /// A 4-byte spec datagram.
    Control([u8; HEADER_LEN]),
    /// An offer or accept: a spec-shaped datagram of its own.
    Negotiation([u8; NEGOTIATION_LEN]),
    /// A one-byte frame of the extended wire (ping, close).
    Frame(u8),
    /// A message sent once: its chunks are written straight from the payload when sent.
    Message {
        seq: u16,
        bytes: Payload,
        next: usize,
        wire: Wire,
    },
}

impl Queued {
    fn is_spec(&self) -> bool {
        match self {
            Queued::Control(_) | Queued::Negotiation(_) => true,
            Queued::Frame(_) => false,
            Queued::Message { wire, .. } => wire.is_spec(),
        }
    }
}

/// The control datagrams and unreliable messages of a connection, in order.
#[derive(Debug)]
pub(crate) struct DatagramQueue {
    queue: VecDeque<Queued>,
    /// Datagrams waiting (a message counts each chunk not yet sent).
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

    /// Whether the next item is framed the spec's way.
    pub fn front_is_spec(&self) -> bool {
        self.queue.front().is_some_and(Queued::is_spec)
    }

    pub fn clear(&mut self) {
        self.queue.clear();
        self.datagrams = 0;
    }

    /// Whether `n` more datagrams fit.
    pub fn has_room(&self, n: usize) -> bool {
        self.datagrams + n <= self.max
    }

    fn push(&mut self, item: Queued) -> bool {
        if self.datagrams >= self.max {
            return false;
        }
        self.queue.push_back(item);
        self.datagrams += 1;
        true
    }

    /// Queues a 4-byte control datagram; `false` if the queue is full and it was dropped.
    pub fn push_control(&mut self, datagram: [u8; HEADER_LEN]) -> bool {
        self.push(Queued::Control(datagram))
    }

    /// Queues an offer or accept; `false` if the queue is full.
    pub fn push_negotiation(&mut self, datagram: [u8; NEGOTIATION_LEN]) -> bool {
        self.push(Queued::Negotiation(datagram))
    }

    /// Queues a one-byte frame of the extended wire; `false` if the queue is full.
    pub fn push_frame(&mut self, frame: u8) -> bool {
        self.push(Queued::Frame(frame))
    }

    /// Queues message `seq` (the caller checked [`has_room`](Self::has_room)).
    pub fn push_message(&mut self, seq: u16, bytes: Payload, wire: Wire) {
        self.datagrams += count_chunks(bytes.len(), wire.chunk_size());
        self.queue.push_back(Queued::Message {
            seq,
            bytes,
            next: 0,
            wire,
        });
    }

    /// Appends the next spec datagram, or the next chunks of a spec-framed message as a batch
    /// of up to `max` (full chunks, then perhaps the shorter last), to `buf`; returns how many
    /// and the size of each but the last. `None` if the next item is not framed the spec's
    /// way.
    pub fn write(&mut self, buf: &mut Vec<u8>, max: usize) -> Option<(usize, usize)> {
        let front = self.queue.front_mut().filter(|q| q.is_spec())?;
        let (count, segment) = match front {
            Queued::Control(datagram) => {
                buf.extend_from_slice(datagram);
                self.queue.pop_front();
                (1, HEADER_LEN)
            }
            Queued::Negotiation(datagram) => {
                buf.extend_from_slice(datagram);
                self.queue.pop_front();
                (1, NEGOTIATION_LEN)
            }
            Queued::Frame(_) => return None,
            Queued::Message {
                seq,
                bytes,
                next,
                wire,
            } => {
                let n = count_chunks(bytes.len(), wire.chunk_size());
                let (mut count, mut segment) = (0, 0);
                while count < max && *next < n {
                    let i = *next;
                    let part = crate::chunk::chunk_bytes(bytes, i);
                    let start = buf.len();
                    wire.write(buf, *seq, i as u8, i + 1 == n, part);
                    let len = buf.len() - start;
                    if count == 0 {
                        segment = len;
                    }
                    count += 1;
                    *next += 1;
                    if len != FULL_DATAGRAM {
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

    /// Appends frames of the extended wire from the front of the queue to `buf` while they fit
    /// in `room` bytes (at most one if `one`); returns the bytes written.
    pub fn write_frames(&mut self, buf: &mut Vec<u8>, room: usize, one: bool) -> usize {
        let start = buf.len();
        while let Some(front) = self.queue.front_mut() {
            let left = room - (buf.len() - start);
            if one && buf.len() > start {
                break;
            }
            match front {
                Queued::Frame(f) => {
                    if left < 1 {
                        break;
                    }
                    buf.push(*f);
                    self.queue.pop_front();
                    self.datagrams = self.datagrams.saturating_sub(1);
                }
                Queued::Message {
                    seq,
                    bytes,
                    next,
                    wire: wire @ Wire::Ext(_),
                } => {
                    let size = wire.chunk_size();
                    let n = count_chunks(bytes.len(), size);
                    let i = *next;
                    let part = crate::chunk::chunk_of(bytes, i, size);
                    let fin = i + 1 == n;
                    if wire.encoded_len(*seq, i as u8, fin, part.len()) > left {
                        break;
                    }
                    wire.write(buf, *seq, i as u8, fin, part);
                    *next += 1;
                    self.datagrams = self.datagrams.saturating_sub(1);
                    if *next >= n {
                        self.queue.pop_front();
                    }
                }
                _ => break,
            }
        }
        buf.len() - start
    }
}
