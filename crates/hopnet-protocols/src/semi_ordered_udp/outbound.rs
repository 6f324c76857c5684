//! One peer's packages to send: the two 24-bit counters, the reliable packages awaiting
//! confirmation (retransmitted on the engine's RTO until confirmed), and the unreliable ones
//! waiting for the next transmit.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::time::Instant;

use hopnet::engine::{ORDER_WINDOW, RttEstimator, SerialIndex, U24};
use hopnet_formats::semi_ordered::{Datagram, MAX_PAYLOAD, Reliability};

use super::Config;

/// Why a package was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// The payload is longer than the seed's 504 bytes.
    #[error("payload larger than {MAX_PAYLOAD} bytes")]
    TooLarge,
    /// Too many reliable packages await confirmation from this peer; poll, then retry.
    #[error("too many reliable packages await confirmation")]
    WouldBlock,
    /// No such peer.
    #[error("unknown peer")]
    UnknownPeer,
}

/// A reliable package sent and not yet confirmed, encoded once.
#[derive(Debug)]
struct Unconfirmed {
    datagram: Vec<u8>,
    first_sent: Option<Instant>,
    last_sent: Option<Instant>,
    retransmitted: bool,
    /// When it is due again (the newest of its timer entries).
    due: Option<Instant>,
}

/// The sending half toward one peer.
#[derive(Debug)]
pub(super) struct Outbound {
    next_reliable: U24,
    next_unreliable: U24,
    unconfirmed: HashMap<U24, Unconfirmed>,
    /// Reliable ids in the order sent, the confirmed ones removed from the front lazily: the
    /// oldest unconfirmed one bounds how far ahead a new id may go (the receiver's window).
    sent_order: VecDeque<U24>,
    /// Reliable ids to transmit now, new or timed out.
    ready: VecDeque<U24>,
    /// Retransmission deadlines; an entry whose package was confirmed or sent again since is
    /// skipped when it comes due.
    timers: BinaryHeap<Reverse<(Instant, U24)>>,
    unreliable: VecDeque<Vec<u8>>,
    rtt: RttEstimator,
    /// When the timeout last backed off: packages sent at different instants expire at
    /// different instants, and the timeout doubles once per timeout, not once per package.
    backed_off: Option<Instant>,
    bytes: usize,
    max_unconfirmed: usize,
    max_unreliable_queued: usize,
}

impl Outbound {
    pub fn new(config: &Config) -> Outbound {
        Outbound {
            next_reliable: U24::new(config.start_id),
            next_unreliable: U24::new(config.start_id),
            unconfirmed: HashMap::new(),
            sent_order: VecDeque::new(),
            ready: VecDeque::new(),
            timers: BinaryHeap::new(),
            unreliable: VecDeque::new(),
            rtt: config.rto.estimator(),
            backed_off: None,
            bytes: 0,
            max_unconfirmed: config.max_unconfirmed,
            max_unreliable_queued: config.max_unreliable_queued,
        }
    }

    /// How many more reliable packages `send` would take now: within the count limit, and
    /// within the receiver's window from the oldest unconfirmed one.
    pub fn room(&mut self) -> usize {
        while let Some(front) = self.sent_order.front() {
            if self.unconfirmed.contains_key(front) {
                break;
            }
            self.sent_order.pop_front();
        }
        let window = match self.sent_order.front() {
            Some(&oldest) => (ORDER_WINDOW - 1 - self.next_reliable.diff(oldest)).max(0) as usize,
            None => (ORDER_WINDOW - 1) as usize,
        };
        window.min(self.max_unconfirmed.saturating_sub(self.unconfirmed.len()))
    }

    /// Queues a package; returns its id.
    pub fn send(
        &mut self,
        reliability: Reliability,
        server_targeted: bool,
        payload: &[u8],
    ) -> Result<U24, SendError> {
        self.send_within(reliability, server_targeted, payload, true)
    }

    /// Queues a package caused by one already taken (an echo, a forward): a reliable one goes
    /// beyond the limits rather than be lost. Its caller took the cause only with room for
    /// it ([`room`](Self::room)); what it releases, held back behind it, is already counted
    /// in the receiver's held budget, and a package sent beyond the peer's window is
    /// refused there and sent again once the window moves.
    pub fn send_caused(
        &mut self,
        reliability: Reliability,
        payload: &[u8],
    ) -> Result<U24, SendError> {
        self.send_within(reliability, false, payload, false)
    }

    fn send_within(
        &mut self,
        reliability: Reliability,
        server_targeted: bool,
        payload: &[u8],
        limited: bool,
    ) -> Result<U24, SendError> {
        if payload.len() > MAX_PAYLOAD {
            return Err(SendError::TooLarge);
        }
        let reliable = reliability != Reliability::Unreliable;
        if reliable && limited && self.room() == 0
            || !reliable && self.unreliable.len() >= self.max_unreliable_queued
        {
            return Err(SendError::WouldBlock);
        }
        let counter = if reliable {
            &mut self.next_reliable
        } else {
            &mut self.next_unreliable
        };
        let id = *counter;
        *counter = id.next();
        let datagram = Datagram::Package {
            reliability,
            server_targeted,
            id: id.get(),
            payload: payload.to_vec(),
        };
        let bytes = hopnet_codec::to_bytes(&datagram).map_err(|_| SendError::TooLarge)?;
        if reliable {
            self.bytes += bytes.capacity();
            self.unconfirmed.insert(
                id,
                Unconfirmed {
                    datagram: bytes,
                    first_sent: None,
                    last_sent: None,
                    retransmitted: false,
                    due: None,
                },
            );
            self.sent_order.push_back(id);
            self.ready.push_back(id);
        } else {
            self.bytes += bytes.capacity();
            self.unreliable.push_back(bytes);
        }
        Ok(id)
    }

    /// The peer confirmed `id`.
    pub fn confirmed(&mut self, id: U24, now: Instant) {
        let Some(p) = self.unconfirmed.remove(&id) else {
            return;
        };
        self.bytes -= p.datagram.capacity();
        match (p.retransmitted, p.first_sent, p.last_sent) {
            (false, Some(first), _) => {
                self.rtt.sample(now.saturating_duration_since(first));
                self.backed_off = None;
            }
            (true, _, Some(last)) => self
                .rtt
                .on_prompt_retransmission_ack(now.saturating_duration_since(last)),
            _ => {}
        }
    }

    /// Writes the next datagram to send into `buf`: a reliable package first, then an
    /// unreliable one. `false` when there is none.
    pub fn write_next(&mut self, now: Instant, buf: &mut Vec<u8>) -> bool {
        while let Some(id) = self.ready.pop_front() {
            let Some(p) = self.unconfirmed.get_mut(&id) else {
                continue;
            };
            buf.extend_from_slice(&p.datagram);
            if p.first_sent.is_some() {
                p.retransmitted = true;
            }
            p.first_sent.get_or_insert(now);
            p.last_sent = Some(now);
            let due = now + self.rtt.rto();
            p.due = Some(due);
            self.timers.push(Reverse((due, id)));
            return true;
        }
        match self.unreliable.pop_front() {
            Some(bytes) => {
                self.bytes -= bytes.capacity();
                buf.extend_from_slice(&bytes);
                true
            }
            None => false,
        }
    }

    pub fn has_ready(&self) -> bool {
        !self.ready.is_empty() || !self.unreliable.is_empty()
    }

    /// The earliest retransmission deadline (perhaps of a package confirmed since: waking
    /// for it early only skips it).
    pub fn deadline(&self) -> Option<Instant> {
        self.timers.peek().map(|Reverse((t, _))| *t)
    }

    /// Queues every package whose timeout has passed; the timeout backs off once if any did.
    pub fn handle_timeout(&mut self, now: Instant) {
        let mut expired = false;
        while let Some(&Reverse((due, id))) = self.timers.peek() {
            if due > now {
                break;
            }
            self.timers.pop();
            if let Some(p) = self.unconfirmed.get_mut(&id)
                && p.due == Some(due)
            {
                p.due = None;
                self.ready.push_back(id);
                expired = true;
            }
        }
        let rto = self.rtt.rto();
        if expired && self.backed_off.is_none_or(|t| now >= t + rto) {
            self.rtt.back_off();
            self.backed_off = Some(now);
        }
    }

    /// Reliable packages awaiting confirmation.
    pub fn unconfirmed(&self) -> usize {
        self.unconfirmed.len()
    }

    /// Bytes held: the encoded packages and the bookkeeping per entry.
    pub fn bytes(&self) -> usize {
        self.bytes
            + self.unconfirmed.capacity() * 64
            + (self.sent_order.capacity() + self.ready.capacity()) * size_of::<U24>()
            + self.timers.capacity() * 24
            + self.unreliable.capacity() * size_of::<Vec<u8>>()
    }
}
