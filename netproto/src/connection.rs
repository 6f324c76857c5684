//! A client connection: the handshake, then the data phase shared with the server side.
//!
//! [`Core`] is the data phase of one connection (send queue, retransmission, reassembly,
//! timers) and is used by both the client [`Connection`] and the server's
//! [`Endpoint`](crate::Endpoint). Nothing here reads a clock or touches a socket: time comes in
//! as `now`, datagrams come in through `handle` and leave through `poll_transmit`.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Instant;

use rand::{Rng, SeedableRng, rngs::StdRng};

use crate::Error;
use crate::chunk::Dropped;
use crate::chunk::{CHUNK_SIZE, MAX_PAYLOAD, Reassembler, chunk_bytes, chunk_count};
use crate::config::Config;
use crate::congestion::{Congestion, Pacer};
use crate::handshake::{ClientHandshake, HANDSHAKE_LEN};
use crate::packet::{Flags, HEADER_LEN, Header, is_handshake_shaped};
use crate::reliable::{RttEstimator, Sender, Size};
use crate::stats::Stats;

/// How a message is delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Delivery {
    /// Retransmitted until every chunk is acknowledged; handed up exactly once.
    Reliable,
    /// Sent once; handed up at most once, if every chunk arrives in time.
    Unreliable,
}

/// Why a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DisconnectReason {
    /// We called `close`.
    LocalClose,
    /// The peer sent `END`.
    PeerClosed,
    /// Nothing arrived from the peer for the idle timeout (15 s by default).
    TimedOut,
    /// The handshake did not complete before the connect timeout.
    ConnectTimeout,
}

/// Something that happened on a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The handshake completed.
    Connected,
    /// A whole payload arrived.
    Message {
        /// The payload.
        bytes: Vec<u8>,
        /// Whether it was sent reliably.
        reliable: bool,
    },
    /// The connection ended; nothing more will happen on it.
    Disconnected {
        /// Why.
        reason: DisconnectReason,
    },
}

/// A datagram to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// Where to send it.
    pub destination: SocketAddr,
    /// The datagram.
    pub contents: Vec<u8>,
}

/// What [`Connection::poll_transmit_batch`] / [`Endpoint::poll_transmit_batch`] wrote into the
/// caller's buffer: one datagram, or several to the same destination laid end to end.
///
/// Every datagram of a batch is `segment_size` bytes except the last, which may be shorter:
/// exactly the shape UDP generic segmentation offload (GSO, `UDP_SEGMENT`) sends with one
/// system call, and what a driver without GSO splits at every `segment_size` bytes. Batches are
/// only formed where the protocol makes the sizes equal: the ACKs answering received chunks
/// (4 bytes each) and the chunks of one message (504 bytes of payload each, the last shorter).
///
/// [`Endpoint::poll_transmit_batch`]: crate::Endpoint::poll_transmit_batch
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransmitInfo {
    /// Where to send the datagrams.
    pub destination: SocketAddr,
    /// Bytes written into the buffer, all datagrams together.
    pub size: usize,
    /// Size of each datagram but the last (equal to `size` for a single datagram).
    pub segment_size: usize,
}

impl TransmitInfo {
    /// How many datagrams the batch holds.
    pub fn datagrams(&self) -> usize {
        self.size.div_ceil(self.segment_size.max(1)).max(1)
    }

    /// The datagrams of the batch, as slices of the buffer it was written into.
    pub fn split<'a>(&self, buf: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
        let buf = &buf[..self.size.min(buf.len())];
        let segment = self.segment_size.max(1);
        // An empty datagram is still one datagram.
        let empty = buf.is_empty();
        buf.chunks(segment).chain(empty.then_some(&[][..]))
    }
}

/// The size of a datagram carrying a full chunk: only a run of these can lead a batch.
const FULL_DATAGRAM: usize = HEADER_LEN + CHUNK_SIZE;

/// A datagram (or message of datagrams) waiting in a connection's queue, besides ACKs and
/// reliable chunks.
#[derive(Debug)]
enum Queued {
    /// An acknowledgement of a client's handshake probe, a keepalive, END.
    Control([u8; HEADER_LEN]),
    /// An unreliable message: its chunks are written straight from the payload when sent.
    Unreliable {
        seq: u16,
        bytes: Vec<u8>,
        next: usize,
    },
}

/// The keepalive: an `ACK` for chunk 255 of the sequence opposite
/// the newest one we have seen from the peer. A sender never has that chunk in flight (its
/// in-flight messages stay within 16,384 ids of its newest), so the ACK acknowledges nothing,
/// yet it is a well-formed header any conforming peer accepts. See PROTOCOL.md.
pub(crate) fn keepalive(newest_seen: Option<u16>) -> [u8; HEADER_LEN] {
    let seq = newest_seen.map_or(0x8000, |n| n.wrapping_add(0x8000));
    Header::new(Flags::ACK, 255, seq).encode()
}

/// What a delivered payload not yet polled costs besides its bytes (the event, its queue slot,
/// the allocation), charged to the reassembly budget so that empty messages cannot pile up for
/// free while the application is busy.
const EVENT_OVERHEAD: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CoreState {
    Open,
    Closed,
}

/// The data phase of one connection.
#[derive(Debug)]
pub(crate) struct Core {
    pub peer: SocketAddr,
    config: Config,
    sender: Sender,
    rx: Reassembler,
    rtt: RttEstimator,
    cc: Congestion,
    pacer: Option<Pacer>,
    /// When the pacer next lets a chunk go, if it held one back.
    paced_until: Option<Instant>,
    stats: Stats,
    acks: VecDeque<[u8; HEADER_LEN]>,
    out: VecDeque<Queued>,
    /// Datagrams waiting in `out` (an unreliable message counts each chunk not yet sent).
    out_datagrams: usize,
    events: VecDeque<Event>,
    event_bytes: usize,
    last_recv: Instant,
    last_send: Instant,
    state: CoreState,
    /// Whether data may be transmitted (false on a client until the challenge is answered).
    pub data_phase: bool,
}

impl Core {
    pub fn new(peer: SocketAddr, config: &Config, now: Instant, data_phase: bool) -> Core {
        Core {
            peer,
            sender: Sender::new(config.max_pending_reliable),
            rx: Reassembler::new(
                config.sequenced_unreliable,
                config.unreliable_timeout,
                config.reliable_partial_timeout,
            ),
            rtt: RttEstimator::new(config.initial_rtt, config.min_rto, config.max_rto),
            cc: Congestion::new(config.initial_window, config.min_window, config.max_window),
            pacer: config.pacing.then(Pacer::new),
            paced_until: None,
            config: config.clone(),
            stats: Stats::default(),
            acks: VecDeque::new(),
            out: VecDeque::new(),
            out_datagrams: 0,
            events: VecDeque::new(),
            event_bytes: 0,
            last_recv: now,
            last_send: now,
            state: CoreState::Open,
            data_phase,
        }
    }

    pub fn is_closed(&self) -> bool {
        self.state == CoreState::Closed
    }

    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    pub fn has_output(&self) -> bool {
        !self.acks.is_empty() || !self.out.is_empty()
    }

    pub fn push_event(&mut self, event: Event) {
        self.events.push_back(event);
    }

    /// Queues a control datagram (a probe's acknowledgement, keepalive, END). Bounded.
    pub fn queue_control(&mut self, datagram: [u8; HEADER_LEN]) {
        if self.out_datagrams >= self.config.max_queued_datagrams {
            self.stats.datagrams_dropped += 1;
        } else {
            self.out.push_back(Queued::Control(datagram));
            self.out_datagrams += 1;
        }
    }

    pub fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        if self.state == CoreState::Closed {
            return Err(Error::Closed);
        }
        if bytes.len() > MAX_PAYLOAD {
            return Err(Error::PayloadTooLarge { len: bytes.len() });
        }
        let reliable = delivery == Delivery::Reliable;
        self.sender.check_room(reliable)?;
        self.stats.messages_sent += 1;
        if reliable {
            self.sender.allocate(Some(bytes));
            return Ok(());
        }
        let seq = self.sender.allocate(None);
        let n = chunk_count(bytes.len());
        if !self.data_phase || self.out_datagrams + n > self.config.max_queued_datagrams {
            // Unreliable means exactly this: it may be dropped, here rather than on the wire.
            self.stats.datagrams_dropped += n as u64;
            return Ok(());
        }
        self.out.push_back(Queued::Unreliable {
            seq,
            bytes: bytes.to_vec(),
            next: 0,
        });
        self.out_datagrams += n;
        Ok(())
    }

    /// A datagram with a packet header from the peer.
    pub fn handle_packet(&mut self, now: Instant, datagram: &[u8]) {
        if self.state == CoreState::Closed {
            return;
        }
        self.stats.packets_received += 1;
        self.stats.bytes_received += datagram.len() as u64;
        self.last_recv = now;
        let Some((header, data)) = Header::decode(datagram) else {
            self.stats.malformed += 1;
            return;
        };
        if header.flags.contains(Flags::END) {
            self.close_with(DisconnectReason::PeerClosed, false);
            return;
        }
        if header.flags.contains(Flags::ACK) {
            if self.sender.on_ack(
                now,
                header.sequence,
                header.chunk,
                &mut self.rtt,
                &mut self.cc,
                &mut self.stats,
            ) {
                self.stats.messages_acked += 1;
            }
            return;
        }
        let budget = self.config.max_reassembly_bytes;
        let received = self
            .rx
            .on_chunk(now, header, data, self.event_bytes, budget);
        if received.ack {
            if self.acks.len() >= self.config.max_queued_datagrams {
                self.stats.datagrams_dropped += 1;
            } else {
                self.acks
                    .push_back(Header::new(Flags::ACK, header.chunk, header.sequence).encode());
            }
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
            self.event_bytes += bytes.len() + EVENT_OVERHEAD;
            self.events.push_back(Event::Message { bytes, reliable });
        }
    }

    /// Appends the next datagram, or a batch of up to `max_datagrams` equal-sized datagrams
    /// (the last may be shorter), to `buf`; returns the segment size. ACKs first (4 bytes
    /// each, so any run of them is a batch), then control datagrams and unreliable messages,
    /// then reliable chunks as the congestion window and the pacer allow.
    pub fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<usize> {
        let max = max_datagrams.max(1);
        let start = buf.len();
        let mut count = 0;
        let mut segment = 0;
        if !self.acks.is_empty() {
            while count < max
                && let Some(ack) = self.acks.pop_front()
            {
                buf.extend_from_slice(&ack);
                count += 1;
            }
            segment = HEADER_LEN;
        } else if let Some(front) = self.out.front_mut() {
            match front {
                Queued::Control(datagram) => {
                    buf.extend_from_slice(datagram);
                    segment = HEADER_LEN;
                    count = 1;
                    self.out.pop_front();
                }
                Queued::Unreliable { seq, bytes, next } => {
                    let n = chunk_count(bytes.len());
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
                        self.out.pop_front();
                    }
                }
            }
            self.out_datagrams = self.out_datagrams.saturating_sub(count);
        } else if self.data_phase && self.state == CoreState::Open {
            while count < max {
                let window = self.cc.window();
                if !self.sender.has_sendable(window as usize) {
                    break;
                }
                if let Some(pacer) = &mut self.pacer {
                    self.paced_until = pacer.check(now, window, self.rtt.smoothed());
                    if self.paced_until.is_some() {
                        break;
                    }
                }
                // GSO's shape: datagrams of the first one's size, then perhaps one shorter.
                let size = if count == 0 {
                    Size::Any
                } else {
                    Size::Exactly(segment)
                };
                let stats = &mut self.stats;
                let len = match self.sender.poll(now, window as usize, stats, buf, size) {
                    Some(len) => len,
                    None if count > 0 => {
                        // The last datagram of the batch, if a shorter one is next.
                        let last = Size::AtMost(segment);
                        match self.sender.poll(now, window as usize, stats, buf, last) {
                            Some(len) => {
                                count += 1;
                                debug_assert!(len <= segment);
                                break;
                            }
                            None => {
                                // The pacer's token was taken for nothing: give it back.
                                if let Some(pacer) = &mut self.pacer {
                                    pacer.refund();
                                }
                                break;
                            }
                        }
                    }
                    None => break,
                };
                if count == 0 {
                    segment = len;
                }
                count += 1;
                if len < segment {
                    break;
                }
            }
        }
        if count == 0 {
            return None;
        }
        self.stats.packets_sent += count as u64;
        self.stats.bytes_sent += (buf.len() - start) as u64;
        self.last_send = now;
        Some(segment)
    }

    /// Counts a datagram sent outside `poll_transmit` (the client's handshake).
    pub fn count_sent(&mut self, now: Instant, len: usize) {
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += len as u64;
        self.last_send = now;
    }

    /// Counts a datagram handled outside `handle_packet` (handshake).
    pub fn count_received(&mut self, now: Instant, len: usize) {
        self.stats.packets_received += 1;
        self.stats.bytes_received += len as u64;
        self.last_recv = now;
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
        if self.state == CoreState::Closed {
            return;
        }
        if now >= self.last_recv + self.config.idle_timeout {
            self.close_with(DisconnectReason::TimedOut, false);
            return;
        }
        if self.data_phase {
            self.sender
                .on_timeout(now, &mut self.rtt, &mut self.cc, &mut self.stats);
            if now >= self.last_send + self.config.keepalive_interval && !self.has_output() {
                self.queue_control(keepalive(self.rx.newest()));
                // Count the keepalive as sent now so the timer moves even if nobody polls.
                self.last_send = now;
            }
        }
        let expired = self.rx.expire(now);
        self.stats.unreliable_expired += expired.unreliable as u64;
        self.stats.reliable_abandoned += expired.reliable as u64;
    }

    pub fn poll_timeout(&mut self) -> Option<Instant> {
        if self.state == CoreState::Closed {
            return None;
        }
        let mut deadline = self.last_recv + self.config.idle_timeout;
        if self.data_phase {
            deadline = deadline.min(self.last_send + self.config.keepalive_interval);
            if let Some(t) = self.sender.next_timeout(self.rtt.rto()) {
                deadline = deadline.min(t);
            }
            if let Some(t) = self.paced_until
                && self.sender.has_sendable(self.cc.window() as usize)
            {
                deadline = deadline.min(t);
            }
        }
        if let Some(t) = self.rx.next_expiry() {
            deadline = deadline.min(t);
        }
        Some(deadline)
    }

    pub fn poll_event(&mut self) -> Option<Event> {
        let event = self.events.pop_front()?;
        if let Event::Message { bytes, .. } = &event {
            self.event_bytes -= bytes.len() + EVENT_OVERHEAD;
        }
        Some(event)
    }

    /// Closes: sends `END` (when asked and in the data phase) and reports `Disconnected`.
    pub fn close_with(&mut self, reason: DisconnectReason, send_end: bool) {
        if self.state == CoreState::Closed {
            return;
        }
        self.state = CoreState::Closed;
        self.sender.clear();
        self.acks.clear();
        self.out.clear();
        self.out_datagrams = 0;
        if send_end && self.data_phase {
            self.queue_control(Header::new(Flags::END, 0, self.sender.next_sequence()).encode());
        }
        self.events.push_back(Event::Disconnected { reason });
    }

    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        s.smoothed_rtt = self.rtt.smoothed();
        s.min_rtt = self.rtt.min();
        s.rto = self.rtt.rto();
        s.chunks_in_flight = self.sender.in_flight() as u64;
        s.congestion_window = u64::from(self.cc.window());
        s.pending_reliable = self.sender.pending() as u64;
        s.reassembly_bytes = (self.rx.partial_bytes() + self.event_bytes) as u64;
        s
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    AwaitingChallenge,
    AwaitingConfirmation,
    Established,
    Closed,
}

/// A client's connection to a server.
///
/// Drive it like quinn-proto's: feed every datagram from the socket to
/// [`handle`](Connection::handle), send whatever [`poll_transmit`](Connection::poll_transmit)
/// returns, call [`handle_timeout`](Connection::handle_timeout) when the instant from
/// [`poll_timeout`](Connection::poll_timeout) passes, and drain
/// [`poll_event`](Connection::poll_event).
#[derive(Debug)]
pub struct Connection {
    core: Core,
    handshake: ClientHandshake,
    phase: Phase,
}

impl Connection {
    /// Starts connecting to `server` with a random salt.
    pub fn new(config: Config, server: SocketAddr, now: Instant) -> Connection {
        Self::with_rng(config, server, now, &mut rand::rng())
    }

    /// Starts connecting with a salt drawn from a seeded generator (deterministic tests).
    pub fn with_seed(config: Config, server: SocketAddr, now: Instant, seed: u64) -> Connection {
        Self::with_rng(config, server, now, &mut StdRng::seed_from_u64(seed))
    }

    fn with_rng(
        config: Config,
        server: SocketAddr,
        now: Instant,
        rng: &mut impl Rng,
    ) -> Connection {
        Connection {
            handshake: ClientHandshake::new(
                now,
                rng.random(),
                rng.random(),
                config.handshake_initial_resend,
                config.handshake_max_resend,
                config.connect_timeout,
            ),
            core: Core::new(server, &config, now, false),
            phase: Phase::AwaitingChallenge,
        }
    }

    /// The server's address.
    pub fn remote(&self) -> SocketAddr {
        self.core.peer
    }

    /// Whether the server has shown that it accepted the handshake (its first packet with a
    /// header arrived) and the connection is open.
    pub fn is_connected(&self) -> bool {
        self.phase == Phase::Established
    }

    /// Whether the connection has ended.
    pub fn is_closed(&self) -> bool {
        self.phase == Phase::Closed
    }

    /// Queues a message. Reliable messages may be queued during the handshake and go out once
    /// the server has confirmed it ([`Event::Connected`]); unreliable ones sent before that are
    /// dropped, as the delivery mode allows.
    pub fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.core.send(bytes, delivery)
    }

    /// Closes the connection: sends `END` and reports [`Event::Disconnected`].
    pub fn close(&mut self) {
        if self.phase != Phase::Closed {
            self.phase = Phase::Closed;
            self.core.close_with(DisconnectReason::LocalClose, true);
        }
    }

    /// Takes a datagram received from `from`. Datagrams from anyone but the server are
    /// ignored (so an `END` from another address cannot close us); malformed ones are counted.
    ///
    /// Until the server has confirmed the handshake, a 4-byte datagram is either that
    /// confirmation (the acknowledgement of a probe) or a `Challenge`; a longer one is a packet
    /// and confirms too. See PROTOCOL.md, "The client's handshake".
    pub fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if from != self.core.peer || self.phase == Phase::Closed {
            return;
        }
        let four: Option<[u8; 4]> = datagram.try_into().ok();
        match self.phase {
            Phase::AwaitingChallenge | Phase::AwaitingConfirmation => match four {
                Some(v) if self.handshake.responded() && self.handshake.is_confirmation(v) => {
                    self.confirm();
                    self.core.handle_packet(now, datagram);
                }
                Some(v) => {
                    self.core.count_received(now, HANDSHAKE_LEN);
                    if self.handshake.on_challenge(now, v) {
                        self.phase = Phase::AwaitingConfirmation;
                    }
                }
                None if self.phase == Phase::AwaitingConfirmation
                    && datagram.len() > HEADER_LEN =>
                {
                    self.confirm();
                    self.core.handle_packet(now, datagram);
                    self.sync_phase();
                }
                None => self.core.count_malformed(),
            },
            Phase::Established => match four {
                Some(v) if is_handshake_shaped(v) || self.handshake.was_answered(v) => {
                    // A stray handshake datagram (a late copy of a Challenge): never a header
                    // from a conforming peer.
                    self.core.count_received(now, HANDSHAKE_LEN);
                }
                _ if datagram.len() < HEADER_LEN => self.core.count_malformed(),
                _ => {
                    self.core.handle_packet(now, datagram);
                    self.sync_phase();
                }
            },
            Phase::Closed => {}
        }
    }

    /// The server has shown that it accepted us: data may flow.
    fn confirm(&mut self) {
        self.phase = Phase::Established;
        self.core.data_phase = true;
        self.core.push_event(Event::Connected);
    }

    fn sync_phase(&mut self) {
        if self.core.is_closed() {
            self.phase = Phase::Closed;
        }
    }

    /// Runs the timers that have expired at `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        match self.phase {
            Phase::AwaitingChallenge | Phase::AwaitingConfirmation => {
                if now >= self.handshake.deadline() {
                    self.phase = Phase::Closed;
                    self.core
                        .close_with(DisconnectReason::ConnectTimeout, false);
                    return;
                }
            }
            Phase::Established => self.core.handle_timeout(now),
            Phase::Closed => {}
        }
        self.sync_phase();
    }

    /// The next datagram to send, if any, in a fresh `Vec`. Simple, for tests and tools; a
    /// driver should use [`poll_transmit_batch`](Self::poll_transmit_batch), which writes into
    /// its own buffer and batches.
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Transmit> {
        let mut contents = Vec::new();
        let info = self.poll_transmit_batch(now, &mut contents, 1)?;
        Some(Transmit {
            destination: info.destination,
            contents,
        })
    }

    /// Writes the next datagram, or a batch of up to `max_datagrams` datagrams of equal size
    /// (the last may be shorter, see [`TransmitInfo`]), into `buf` (cleared first). Nothing is
    /// allocated per datagram: `buf` is the caller's, reused from call to call. Pass
    /// `max_datagrams = 1` to get one datagram at a time.
    pub fn poll_transmit_batch(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<TransmitInfo> {
        buf.clear();
        let destination = self.core.peer;
        if matches!(
            self.phase,
            Phase::AwaitingChallenge | Phase::AwaitingConfirmation
        ) {
            let datagram = self.handshake.poll(now)?;
            buf.extend_from_slice(&datagram);
            self.core.count_sent(now, buf.len());
            return Some(TransmitInfo {
                destination,
                size: buf.len(),
                segment_size: buf.len(),
            });
        }
        let segment_size = self.core.poll_transmit(now, buf, max_datagrams)?;
        Some(TransmitInfo {
            destination,
            size: buf.len(),
            segment_size,
        })
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    pub fn poll_timeout(&mut self) -> Option<Instant> {
        match self.phase {
            Phase::AwaitingChallenge | Phase::AwaitingConfirmation => {
                Some(self.handshake.next_send().min(self.handshake.deadline()))
            }
            Phase::Established => self.core.poll_timeout(),
            Phase::Closed => None,
        }
    }

    /// The next event, if any.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.core.poll_event()
    }

    /// A snapshot of the connection's statistics.
    pub fn stats(&self) -> Stats {
        self.core.stats()
    }
}
