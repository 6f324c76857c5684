//! The data phase of one connection, shared by the client and every connection of the server:
//! messages in and out, timers, close. Nothing here reads a clock or touches a socket: time comes in as `now`,
//! datagrams come in through `handle_datagram` and leave through `transmit`.
//!
//! - [`wire`]: the wire this end sends on, the spec's or the extended one, swapped once when
//!   the negotiation agrees: its acknowledgements, keepalive, close and deadlines;
//! - [`acks`]: the spec's ACKs owed to the peer;
//! - [`ack_ranges`]: the ACK frames owed on the extended wire;
//! - [`timer`]: the connection's timers, by name;
//! - [`queue`]: control datagrams and unreliable messages, sent at once;
//! - [`events`]: the events held for the application, charged to the budget;
//! - [`liveness`]: the idle timeout and the keepalive;
//! - [`negotiation`]: the offer and accept of the extensions;
//! - [`extended`]: what arrives on the extended wire;
//! - [`pack`]: extended datagrams packed with frames.
//!
//! The send half (reliable chunks, retransmission, congestion) is [`crate::send`], the receive
//! half (reassembly, exactly-once, ordering) [`crate::receive`].

mod ack_ranges;
mod acks;
mod events;
mod extended;
mod liveness;
mod negotiation;
mod pack;
mod queue;
mod timer;
mod wire;

use std::net::SocketAddr;
use std::time::Instant;

use crate::chunk::{MAX_PAYLOAD, count_chunks};
use crate::config::Config;
use crate::error::Error;
use crate::event::{Delivery, DisconnectReason, Event, MessageId};
use crate::ext::Extensions;
use crate::ext::frame::ACK_NOW;
use crate::packet::{Flags, HEADER_LEN, Header};
use crate::payload::Data;
use crate::receive::{Dropped, Incoming, Reassembler};
use crate::send::Outbound;
use crate::spares::Spares;
use crate::stats::Stats;
use events::EventQueue;
use liveness::{Liveness, keepalive_sequence};
use negotiation::Negotiator;
use queue::DatagramQueue;
use timer::Timer;
use wire::{AckPolicy, Signal, Wire};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Open,
    Closed,
}

/// The data phase of one connection.
#[derive(Debug)]
pub(crate) struct Connection {
    pub peer: SocketAddr,
    max_reassembly_bytes: usize,
    outbound: Outbound,
    rx: Reassembler,
    stats: Stats,
    /// The wire this end sends on; swapped to the extended one when the negotiator says so.
    wire: Wire,
    /// How the extended wire's acknowledgements are owed, for the swap.
    ack_policy: AckPolicy,
    queue: DatagramQueue,
    events: EventQueue,
    liveness: Liveness,
    negotiator: Negotiator,
    state: State,
    /// The latest `now` seen: when a tracked message sent between calls was sent.
    clock: Instant,
    /// Messages handed up by one chunk, reused.
    delivered: Vec<(Vec<u8>, bool)>,
    /// Tracked messages reported by one call, reused.
    tracked: Vec<MessageId>,
    /// Whether data may be transmitted (false on a client until the server confirms).
    pub data_phase: bool,
}

impl Connection {
    pub fn new(
        peer: SocketAddr,
        config: &Config,
        now: Instant,
        client: bool,
        data_phase: bool,
    ) -> Connection {
        Connection {
            peer,
            max_reassembly_bytes: config.max_reassembly_bytes,
            outbound: Outbound::new(config),
            rx: Reassembler::new(
                config.sequenced_unreliable,
                config.unreliable_timeout,
                config.reliable_partial_timeout,
            ),
            stats: Stats::default(),
            wire: Wire::spec(config.max_queued_datagrams),
            ack_policy: AckPolicy {
                max: config.max_queued_datagrams,
                delay: config.ack_delay,
                every: config.ack_every,
            },
            queue: DatagramQueue::new(config.max_queued_datagrams),
            events: EventQueue::default(),
            liveness: Liveness::new(now, config.idle_timeout, config.keepalive_interval),
            negotiator: Negotiator::new(
                config.extensions(),
                client,
                config.handshake_initial_resend,
                config.handshake_max_resend,
                config.max_offers,
            )
            .with_schema(config.schema.clone()),
            state: State::Open,
            clock: now,
            delivered: Vec::new(),
            tracked: Vec::new(),
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
        !self.wire.is_empty() || !self.queue.is_empty()
    }

    pub fn push_event(&mut self, event: Event) {
        self.events.push(event);
    }

    /// What the connection agreed to, if anything.
    pub fn extensions(&self) -> Option<Extensions> {
        self.negotiator.agreed()
    }

    /// Queues a control datagram (a probe's acknowledgement, keepalive, END). Bounded.
    pub fn queue_control(&mut self, datagram: [u8; HEADER_LEN]) {
        if !self.queue.push_control(datagram) {
            self.stats.datagrams_dropped += 1;
        }
    }

    fn queue_frame(&mut self, frame: u8) {
        if !self.queue.push_frame(frame) {
            self.stats.datagrams_dropped += 1;
        }
    }

    /// Queues a keepalive or close of the wire's.
    fn queue_signal(&mut self, signal: Signal) {
        match signal {
            Signal::Control(datagram) => self.queue_control(datagram),
            Signal::Frame(frame) => self.queue_frame(frame),
        }
    }

    /// Counts the peer's silence, and ours, from `now`: a secure client's connection opens when
    /// netcode has connected, which may be long after the connection was made.
    pub fn restart_liveness(&mut self, now: Instant) {
        self.liveness.restart(now);
        self.clock = now;
    }

    /// A client's handshake was confirmed: it offers the extensions, if it has any.
    pub fn start_negotiation(&mut self, now: Instant) {
        self.negotiator.start(now);
        self.poll_offer(now);
    }

    fn poll_offer(&mut self, now: Instant) {
        let sequence = keepalive_sequence(self.rx.newest());
        if let Some(offer) = self.negotiator.poll_offer(now, sequence)
            && !self.queue.push_negotiation(offer)
        {
            self.stats.datagrams_dropped += 1;
        }
    }

    /// Queues a message; returns its id (what a tracked message's events name).
    pub fn send(&mut self, data: Data<'_>, delivery: Delivery) -> Result<MessageId, Error> {
        if self.state == State::Closed {
            return Err(Error::Closed);
        }
        let len = data.as_slice().len();
        if len > MAX_PAYLOAD {
            return Err(Error::PayloadTooLarge { len });
        }
        let reliable = delivery.is_reliable();
        self.outbound.check_room(reliable, len)?;
        self.stats.messages_sent += 1;
        let (data, wire, compressed) = self.outbound.frame(data, delivery);
        self.stats.compressed += u64::from(compressed);
        if reliable {
            self.outbound.allocate(Some((data, wire, delivery)));
            return Ok(self.outbound.last_id());
        }
        self.outbound.allocate(None);
        let id = self.outbound.last_id();
        let n = count_chunks(data.as_slice().len(), wire.chunk_size());
        if delivery == Delivery::Tracked
            && let Some(lost) = self.outbound.track(self.clock, n)
        {
            self.report_tracked(lost, false);
        }
        if !self.data_phase || !self.queue.has_room(n) {
            // Sent once means exactly this: it may be dropped, here rather than on the wire.
            self.stats.datagrams_dropped += n as u64;
            return Ok(id);
        }
        let seq = self.outbound.next_sequence().wrapping_sub(1);
        self.queue.push_message(seq, data, wire);
        Ok(id)
    }

    fn report_tracked(&mut self, id: MessageId, acked: bool) {
        if acked {
            self.stats.tracked_acked += 1;
            self.events.push(Event::Acknowledged { id });
        } else {
            self.stats.tracked_lost += 1;
            self.events.push(Event::Lost { id });
        }
    }

    #[inline]
    fn drain_tracked(&mut self, acked: bool) {
        if self.tracked.is_empty() {
            return;
        }
        let ids = std::mem::take(&mut self.tracked);
        for &id in &ids {
            self.report_tracked(id, acked);
        }
        self.tracked = ids;
        self.tracked.clear();
    }

    /// A datagram after the handshake from the peer: an extended datagram, an offer or
    /// accept, or a spec packet.
    ///
    /// A message of one chunk is copied into one of `spares` (buffers the application handed
    /// back) if there is one.
    pub fn handle_datagram(&mut self, now: Instant, datagram: &[u8], spares: &mut Spares) {
        if self.state == State::Closed {
            return;
        }
        self.clock = now;
        if self.negotiator.enabled() {
            if crate::ext::datagram::is_extended(datagram) {
                return self.handle_extended(now, datagram, spares);
            }
            if crate::ext::negotiate::is_negotiation(datagram) {
                return self.handle_negotiation(now, datagram);
            }
            if self.negotiator.agreed().is_some()
                && datagram
                    .first()
                    .is_some_and(|f| f & Flags::RESERVED_MASK != 0)
            {
                // Our peer sets reserved bits only in extended datagrams: this is one of those
                // with its first byte corrupted.
                self.count_handshake(datagram.len());
                self.stats.malformed += 1;
                return;
            }
        }
        self.handle_packet(now, datagram, spares);
    }

    /// A datagram with a packet header from the peer.
    fn handle_packet(&mut self, now: Instant, datagram: &[u8], spares: &mut Spares) {
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
            let stats = &mut self.stats;
            if self
                .outbound
                .on_ack(now, sequence, chunk, stats, &mut self.tracked)
            {
                self.stats.messages_acked += 1;
            }
            self.drain_tracked(true);
            return;
        }
        self.on_chunk(now, Incoming::spec(header, data), spares);
    }

    /// A chunk, from a spec packet or a data frame.
    fn on_chunk(&mut self, now: Instant, chunk: Incoming<'_>, spares: &mut Spares) {
        let outside = self.events.bytes();
        let budget = self.max_reassembly_bytes;
        let received = self
            .rx
            .on_chunk(now, chunk, outside, budget, spares, &mut self.delivered);
        if received.ack {
            let repeated = received.dropped == Some(Dropped::Duplicate);
            if !self.wire.owe(now, chunk.sequence, chunk.chunk, repeated) {
                self.stats.datagrams_dropped += 1;
            }
        }
        match received.dropped {
            Some(Dropped::Malformed) => self.stats.malformed += 1,
            Some(Dropped::OverBudget) => self.stats.over_budget += 1,
            Some(Dropped::Duplicate) => self.stats.duplicates += 1,
            Some(Dropped::Stale) => self.stats.stale += 1,
            None => {}
        }
        for (bytes, reliable) in self.delivered.drain(..) {
            self.stats.messages_delivered += 1;
            self.events.push(Event::Message { bytes, reliable });
        }
    }

    /// Appends the next datagram, or a batch of up to `max` equal-sized datagrams (the last
    /// may be shorter), to `buf`; returns the segment size. The spec's ACKs first (4 bytes
    /// each, so any run of them is a batch), then control datagrams and unreliable messages,
    /// then reliable chunks as the congestion window and the pacer allow; on the extended
    /// wire, datagrams packed with all of these (see [`pack`]).
    pub fn transmit(&mut self, now: Instant, buf: &mut Vec<u8>, max: usize) -> Option<usize> {
        self.clock = now;
        let max = max.max(1);
        let start = buf.len();
        let open = self.data_phase && self.state == State::Open;
        let acks = self.wire.write_spec_acks(buf, max);
        let (count, segment) = if acks > 0 {
            (acks, HEADER_LEN)
        } else if let Some(batch) = self.write_queued(now, buf, max) {
            batch
        } else {
            match &self.wire {
                Wire::Spec { .. } if open => {
                    self.outbound.poll_batch(now, buf, max, &mut self.stats)
                }
                Wire::Spec { .. } => (0, 0),
                &Wire::Extended { ext, .. } => {
                    // A message framed before the swap leaves as it was framed.
                    let spec = if open && self.outbound.next_is_spec() {
                        self.outbound.poll_batch(now, buf, max, &mut self.stats)
                    } else {
                        (0, 0)
                    };
                    if spec.0 > 0 {
                        spec
                    } else {
                        self.transmit_extended(ext, now, buf, max, open)
                    }
                }
            }
        };
        if count == 0 {
            return None;
        }
        self.stats.packets_sent += count as u64;
        self.stats.bytes_sent += (buf.len() - start) as u64;
        self.liveness.spoke(now);
        Some(segment)
    }

    /// The next spec-framed datagrams of the queue, if it has any; an offer or accept among
    /// them starts its round trip now.
    fn write_queued(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max: usize,
    ) -> Option<(usize, usize)> {
        let negotiation = self.queue.front_is_negotiation();
        let batch = self.queue.write(buf, max)?;
        if negotiation {
            self.negotiator.left(now);
        }
        Some(batch)
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

    /// Runs the timers that have expired at `now`, in [`Timer::VALUES`]' order (see [`timer`]).
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.state == State::Closed {
            return;
        }
        self.clock = now;
        for timer in Timer::VALUES {
            if timer.data_phase_only() && !self.data_phase {
                continue;
            }
            if !timer.checks_itself() && !self.due(timer, now) {
                continue;
            }
            self.on_timer(timer, now);
            if self.state == State::Closed {
                return;
            }
        }
    }

    /// The work of `timer`, which has expired (or, for a timer that
    /// [checks itself](Timer::checks_itself), may have).
    #[inline(always)]
    fn on_timer(&mut self, timer: Timer, now: Instant) {
        match timer {
            Timer::Idle => self.close_with(DisconnectReason::TimedOut, false),
            Timer::Send => {
                self.outbound
                    .on_timeout(now, &mut self.stats, &mut self.tracked);
                self.drain_tracked(false);
            }
            Timer::Negotiation => {
                self.poll_offer(now);
                self.poll_ping(now);
            }
            Timer::Probe => {
                if matches!(self.wire, Wire::Extended { .. }) && self.outbound.probe_due(now) {
                    self.queue_frame(ACK_NOW);
                }
            }
            Timer::Keepalive => {
                if !self.has_output() {
                    self.queue_signal(self.wire.keepalive(self.rx.newest()));
                    self.liveness.spoke(now);
                }
            }
            // Nothing to do here, so its deadline is not even asked: the next transmit writes
            // the frames owed.
            Timer::AckDelay => {}
            Timer::Expiry => {
                let expired = self.rx.expire(now);
                self.stats.unreliable_expired += expired.unreliable as u64;
                self.stats.reliable_abandoned += expired.reliable as u64;
            }
        }
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called: the earliest
    /// timer that runs in this phase.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.state == State::Closed {
            return None;
        }
        Timer::VALUES
            .into_iter()
            .filter(|timer| self.data_phase || !timer.data_phase_only())
            .filter_map(|timer| self.deadline(timer))
            .min()
    }

    /// When `timer` expires, were it running (the data phase's timers run only in it: the
    /// callers ask once). Always inlined: every caller names its timer, and the match folds.
    #[inline(always)]
    fn deadline(&self, timer: Timer) -> Option<Instant> {
        match timer {
            Timer::Idle => Some(self.liveness.idle_deadline()),
            Timer::Send => self.outbound.deadline(),
            Timer::Negotiation => self.negotiator.deadline(),
            Timer::Probe | Timer::AckDelay => self.wire.deadline(timer, &self.outbound),
            Timer::Keepalive => Some(self.liveness.keepalive_deadline()),
            Timer::Expiry => self.rx.next_expiry(),
        }
    }

    /// Whether `timer` has expired at `now`.
    #[inline(always)]
    fn due(&self, timer: Timer, now: Instant) -> bool {
        self.deadline(timer).is_some_and(|t| t <= now)
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
        self.wire.clear();
        self.queue.clear();
        if send_end && self.data_phase {
            self.queue_signal(self.wire.close(self.outbound.next_sequence()));
        }
        self.events.push(Event::Disconnected { reason });
    }

    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        self.outbound.fill_stats(&mut s);
        s.reassembly_bytes = (self.rx.partial_bytes() + self.events.bytes()) as u64;
        s.held_back = self.rx.held_back() as u64;
        s
    }
}
