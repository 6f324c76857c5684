//! The data phase of one connection, shared by the client [`Connection`](crate::Connection)
//! and every connection of the server's [`Endpoint`](crate::Endpoint): messages in and out,
//! timers, close. Nothing here reads a clock or touches a socket: time comes in as `now`,
//! datagrams come in through `handle_packet` and leave through `transmit`.
//!
//! - [`acks`]: the acknowledgements owed to the peer;
//! - [`queue`]: control datagrams and unreliable messages, sent at once;
//! - [`events`]: the events held for the application, charged to the budget;
//! - [`liveness`]: the idle timeout and the keepalive.
//!
//! The send half (reliable chunks, retransmission, congestion) is [`crate::send`], the receive
//! half (reassembly, exactly-once) [`crate::receive`].

mod acks;
mod events;
mod liveness;
mod queue;

use std::net::SocketAddr;
use std::time::Instant;

use crate::Error;
use crate::chunk::{MAX_PAYLOAD, chunk_count};
use crate::config::Config;
use crate::event::{Delivery, DisconnectReason, Event};
use crate::packet::{Flags, HEADER_LEN, Header};
use crate::payload::Data;
use crate::receive::{Dropped, Reassembler};
use crate::send::Outbound;
use crate::stats::Stats;
use acks::AckQueue;
use events::EventQueue;
use liveness::{Liveness, keepalive};
use queue::DatagramQueue;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Open,
    Closed,
}

/// The data phase of one connection.
#[derive(Debug)]
pub(crate) struct Core {
    pub peer: SocketAddr,
    max_reassembly_bytes: usize,
    outbound: Outbound,
    rx: Reassembler,
    stats: Stats,
    acks: AckQueue,
    queue: DatagramQueue,
    events: EventQueue,
    liveness: Liveness,
    state: State,
    /// Whether data may be transmitted (false on a client until the server confirms).
    pub data_phase: bool,
}

impl Core {
    pub fn new(peer: SocketAddr, config: &Config, now: Instant, data_phase: bool) -> Core {
        Core {
            peer,
            max_reassembly_bytes: config.max_reassembly_bytes,
            outbound: Outbound::new(config),
            rx: Reassembler::new(
                config.sequenced_unreliable,
                config.unreliable_timeout,
                config.reliable_partial_timeout,
            ),
            stats: Stats::default(),
            acks: AckQueue::new(config.max_queued_datagrams),
            queue: DatagramQueue::new(config.max_queued_datagrams),
            events: EventQueue::default(),
            liveness: Liveness::new(now, config.idle_timeout, config.keepalive_interval),
            state: State::Open,
            data_phase,
        }
    }

    pub fn is_closed(&self) -> bool {
        self.state == State::Closed
    }

    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    pub fn has_output(&self) -> bool {
        !self.acks.is_empty() || !self.queue.is_empty()
    }

    pub fn push_event(&mut self, event: Event) {
        self.events.push(event);
    }

    /// Queues a control datagram (a probe's acknowledgement, keepalive, END). Bounded.
    pub fn queue_control(&mut self, datagram: [u8; HEADER_LEN]) {
        if !self.queue.push_control(datagram) {
            self.stats.datagrams_dropped += 1;
        }
    }

    pub fn send(&mut self, data: Data<'_>, delivery: Delivery) -> Result<(), Error> {
        if self.state == State::Closed {
            return Err(Error::Closed);
        }
        let len = data.as_slice().len();
        if len > MAX_PAYLOAD {
            return Err(Error::PayloadTooLarge { len });
        }
        let reliable = delivery == Delivery::Reliable;
        self.outbound.check_room(reliable)?;
        self.stats.messages_sent += 1;
        if reliable {
            self.outbound.allocate(Some(data));
            return Ok(());
        }
        let seq = self.outbound.allocate(None);
        let n = chunk_count(len);
        if !self.data_phase || !self.queue.has_room(n) {
            // Unreliable means exactly this: it may be dropped, here rather than on the wire.
            self.stats.datagrams_dropped += n as u64;
            return Ok(());
        }
        self.queue.push_unreliable(seq, data.to_payload());
        Ok(())
    }

    /// A datagram with a packet header from the peer.
    pub fn handle_packet(&mut self, now: Instant, datagram: &[u8]) {
        if self.state == State::Closed {
            return;
        }
        self.count_received(now, datagram.len());
        let Some((header, data)) = Header::decode(datagram) else {
            self.stats.malformed += 1;
            return;
        };
        if header.flags.contains(Flags::END) {
            self.close_with(DisconnectReason::PeerClosed, false);
            return;
        }
        if header.flags.contains(Flags::ACK) {
            let (sequence, chunk) = (header.sequence, header.chunk);
            if self.outbound.on_ack(now, sequence, chunk, &mut self.stats) {
                self.stats.messages_acked += 1;
            }
            return;
        }
        let outside = self.events.bytes();
        let budget = self.max_reassembly_bytes;
        let received = self.rx.on_chunk(now, header, data, outside, budget);
        if received.ack && !self.acks.push(header.chunk, header.sequence) {
            self.stats.datagrams_dropped += 1;
        }
        match received.dropped {
            Some(Dropped::Malformed) => self.stats.malformed += 1,
            Some(Dropped::OverBudget) => self.stats.over_budget += 1,
            Some(Dropped::Duplicate) => self.stats.duplicates += 1,
            Some(Dropped::Stale) => self.stats.stale += 1,
            None => {}
        }
        if let Some((bytes, reliable)) = received.message {
            self.stats.messages_delivered += 1;
            self.events.push(Event::Message { bytes, reliable });
        }
    }

    /// Appends the next datagram, or a batch of up to `max` equal-sized datagrams (the last
    /// may be shorter), to `buf`; returns the segment size. ACKs first (4 bytes each, so any
    /// run of them is a batch), then control datagrams and unreliable messages, then reliable
    /// chunks as the congestion window and the pacer allow.
    pub fn transmit(&mut self, now: Instant, buf: &mut Vec<u8>, max: usize) -> Option<usize> {
        let max = max.max(1);
        let start = buf.len();
        let (count, segment) = if !self.acks.is_empty() {
            (self.acks.write(buf, max), HEADER_LEN)
        } else if let Some(batch) = self.queue.write(buf, max) {
            batch
        } else if self.data_phase && self.state == State::Open {
            self.outbound.poll_batch(now, buf, max, &mut self.stats)
        } else {
            (0, 0)
        };
        if count == 0 {
            return None;
        }
        self.stats.packets_sent += count as u64;
        self.stats.bytes_sent += (buf.len() - start) as u64;
        self.liveness.spoke(now);
        Some(segment)
    }

    /// Counts a datagram sent outside `transmit` (the client's handshake).
    pub fn count_sent(&mut self, now: Instant, len: usize) {
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += len as u64;
        self.liveness.spoke(now);
    }

    /// Counts a datagram from the peer that shows it is alive.
    pub fn count_received(&mut self, now: Instant, len: usize) {
        self.count_handshake(len);
        self.liveness.heard(now);
    }

    /// Counts a handshake datagram from the connected peer: traffic, but no sign of life (it
    /// may come from a client that restarted on the peer's address).
    pub fn count_handshake(&mut self, len: usize) {
        self.stats.packets_received += 1;
        self.stats.bytes_received += len as u64;
    }

    pub fn count_malformed(&mut self) {
        self.stats.malformed += 1;
    }

    pub fn handle_timeout(&mut self, now: Instant) {
        if self.state == State::Closed {
            return;
        }
        if self.liveness.is_dead(now) {
            self.close_with(DisconnectReason::TimedOut, false);
            return;
        }
        if self.data_phase {
            self.outbound.on_timeout(now, &mut self.stats);
            if self.liveness.keepalive_due(now) && !self.has_output() {
                self.queue_control(keepalive(self.rx.newest()));
                self.liveness.spoke(now);
            }
        }
        let expired = self.rx.expire(now);
        self.stats.unreliable_expired += expired.unreliable as u64;
        self.stats.reliable_abandoned += expired.reliable as u64;
    }

    pub fn poll_timeout(&mut self) -> Option<Instant> {
        if self.state == State::Closed {
            return None;
        }
        let mut deadline = self.liveness.idle_deadline();
        if self.data_phase {
            deadline = deadline.min(self.liveness.keepalive_deadline());
            if let Some(t) = self.outbound.deadline() {
                deadline = deadline.min(t);
            }
        }
        if let Some(t) = self.rx.next_expiry() {
            deadline = deadline.min(t);
        }
        Some(deadline)
    }

    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop()
    }

    /// Closes: sends `END` (when asked and in the data phase) and reports `Disconnected`.
    pub fn close_with(&mut self, reason: DisconnectReason, send_end: bool) {
        if self.state == State::Closed {
            return;
        }
        self.state = State::Closed;
        self.outbound.clear();
        self.acks.clear();
        self.queue.clear();
        if send_end && self.data_phase {
            let end = Header::new(Flags::END, 0, self.outbound.next_sequence());
            self.queue_control(end.encode());
        }
        self.events.push(Event::Disconnected { reason });
    }

    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        self.outbound.fill_stats(&mut s);
        s.reassembly_bytes = (self.rx.partial_bytes() + self.events.bytes()) as u64;
        s
    }
}
