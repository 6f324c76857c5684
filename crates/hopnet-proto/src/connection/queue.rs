//! Datagrams that leave without waiting for the congestion window: control datagrams (the
//! acknowledgement of a client's handshake probe, keepalives, `END`, offers and accepts) and
//! unreliable and tracked messages, latency first. Bounded in datagrams: what does not fit is
//! dropped, as unreliable delivery allows.
//!
//! An item is framed the spec's way (a datagram of its own) or as frames of the extended wire
//! (any number per datagram, packed by `connection/pack.rs`).

use std::collections::VecDeque;

use crate::chunk::count_chunks;
use crate::packet::HEADER_LEN;
use crate::payload::{Data, Payload};
use crate::send::queue::Wire;
use crate::spares::Spares;
use crate::transmit::FULL_DATAGRAM;

#[derive(Debug)]
enum Queued {
    /// A 4-byte spec datagram.
    Control([u8; HEADER_LEN]),
    /// An offer or accept: a spec-shaped datagram of its own (16 bytes, more with a schema
    /// field).
    Negotiation(Vec<u8>),
    /// A one-byte frame of the extended wire (ping, close).
    Frame(u8),
    /// A message sent once: its chunks are written straight from the payload when sent.
    Message {
        seq: u16,
        bytes: MessageBytes,
        next: usize,
        wire: Wire,
    },
}

/// An unreliable message's bytes while it waits.
#[derive(Debug)]
enum MessageBytes {
    /// A copy of a slice, in a recycled buffer: the queue's messages come and go every tick,
    /// and a shared payload would cost two allocations and two frees per message.
    Copied(Vec<u8>),
    /// A payload shared with other connections (`send_payload`), or compressed.
    Shared(Payload),
}

impl std::ops::Deref for MessageBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            MessageBytes::Copied(v) => v,
            MessageBytes::Shared(p) => p,
        }
    }
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
    /// Buffers of messages sent, for the next messages queued.
    spares: Spares,
}

/// The spare buffers a queue keeps: a tick's worth of unreliable messages.
const SPARES: usize = 64;
const SPARE_BYTES: usize = 64 << 10;

impl DatagramQueue {
    pub fn new(max: usize) -> DatagramQueue {
        DatagramQueue {
            queue: VecDeque::new(),
            datagrams: 0,
            max,
            spares: Spares::new(SPARES, SPARE_BYTES),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Whether the next item is an offer or accept.
    pub fn front_is_negotiation(&self) -> bool {
        matches!(self.queue.front(), Some(Queued::Negotiation(_)))
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
    pub fn push_negotiation(&mut self, datagram: Vec<u8>) -> bool {
        self.push(Queued::Negotiation(datagram))
    }

    /// Queues a one-byte frame of the extended wire; `false` if the queue is full.
    pub fn push_frame(&mut self, frame: u8) -> bool {
        self.push(Queued::Frame(frame))
    }

    /// Queues message `seq` (the caller checked [`has_room`](Self::has_room)).
    pub fn push_message(&mut self, seq: u16, data: Data<'_>, wire: Wire) {
        let bytes = match data {
            Data::Borrowed(bytes) => MessageBytes::Copied(self.spares.copy_of(bytes)),
            Data::Owned(bytes) => MessageBytes::Copied(bytes),
            Data::Shared(payload) => MessageBytes::Shared(payload.clone()),
            Data::Payload(payload) => MessageBytes::Shared(payload),
        };
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
                let len = datagram.len();
                buf.extend_from_slice(datagram);
                self.queue.pop_front();
                (1, len)
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
                    self.pop_message();
                }
                (count, segment)
            }
        };
        self.datagrams = self.datagrams.saturating_sub(count);
        Some((count, segment))
    }

    /// Removes the front item, a message sent whole, keeping its buffer for a later one.
    fn pop_message(&mut self) {
        if let Some(Queued::Message {
            bytes: MessageBytes::Copied(buf),
            ..
        }) = self.queue.pop_front()
        {
            self.spares.give(buf);
        }
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
                        self.pop_message();
                    }
                }
                _ => break,
            }
        }
        buf.len() - start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNRELIABLE: Wire = Wire::Spec { rel: false };

    /// Sends the front message whole; returns its datagram.
    fn send_one(queue: &mut DatagramQueue) -> Vec<u8> {
        let mut buf = Vec::new();
        assert_eq!(queue.write(&mut buf, 1).map(|(n, _)| n), Some(1));
        buf
    }

    fn copied_ptr(queue: &DatagramQueue) -> *const u8 {
        match queue.queue.front() {
            Some(Queued::Message {
                bytes: MessageBytes::Copied(v),
                ..
            }) => v.as_ptr(),
            other => panic!("not a copied message: {other:?}"),
        }
    }

    #[test]
    fn a_sent_message_leaves_its_buffer_to_the_next() {
        let mut queue = DatagramQueue::new(16);
        queue.push_message(1, Data::Borrowed(b"first message"), UNRELIABLE);
        let first = copied_ptr(&queue);
        let datagram = send_one(&mut queue);
        assert!(datagram.ends_with(b"first message"));
        assert!(queue.is_empty());

        queue.push_message(2, Data::Borrowed(b"second"), UNRELIABLE);
        assert_eq!(copied_ptr(&queue), first, "the same allocation");
        let datagram = send_one(&mut queue);
        assert!(datagram.ends_with(b"second"), "only the new bytes");
        assert_eq!(datagram.len(), HEADER_LEN + b"second".len());
    }

    #[test]
    fn a_shared_payload_is_kept_by_reference() {
        let mut queue = DatagramQueue::new(16);
        let payload = Payload::from(&b"snapshot"[..]);
        queue.push_message(1, Data::Shared(&payload), UNRELIABLE);
        match queue.queue.front() {
            Some(Queued::Message {
                bytes: MessageBytes::Shared(p),
                ..
            }) => assert_eq!(p.as_ptr(), payload.as_ptr(), "not copied"),
            other => panic!("not a shared message: {other:?}"),
        }
        assert!(send_one(&mut queue).ends_with(b"snapshot"));
        // A shared payload's bytes are not the queue's to keep.
        assert_eq!(queue.spares.len(), 0);
    }

    #[test]
    fn the_kept_buffers_are_bounded() {
        let mut queue = DatagramQueue::new(1024);
        for seq in 0..(SPARES as u16 + 10) {
            queue.push_message(seq, Data::Borrowed(&[7; 100]), UNRELIABLE);
        }
        while !queue.is_empty() {
            send_one(&mut queue);
        }
        assert_eq!(queue.spares.len(), SPARES);
    }
}
