//! The send half of a connection: sequence ids, reliable chunks in flight, RTT estimation and
//! retransmission (RFC 6298), loss detection.
//!
//! Each transmission of a chunk gets a transmission id. A chunk is declared lost when its
//! retransmission timer expires, or early when a chunk sent three transmissions later has
//! been acknowledged (a packet threshold, as in QUIC), so that one loss does not cost a whole
//! RTO under random loss. Only first transmissions give RTT samples (Karn's rule); the backoff
//! ends with a new sample, or when a retransmission is acknowledged faster than the
//! un-backed-off timeout.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::Error;
use crate::chunk::{CHUNK_SIZE, chunk_bytes};
use crate::congestion::Congestion;
use crate::outgoing::Outgoing;
use crate::packet::{Flags, HEADER_LEN, Header};
use crate::stats::Stats;

/// How many later transmissions must be acknowledged before an unacknowledged one is lost.
const PACKET_THRESHOLD: u64 = 3;
/// Sends are refused while the oldest unacknowledged reliable message is this many ids behind
/// the next one, so that a sequence id is never reused while its previous message may live.
pub(crate) const SEQUENCE_WINDOW: u64 = 16384;
/// Clock granularity term of RFC 6298.
const GRANULARITY: Duration = Duration::from_millis(1);

/// A duration in whole nanoseconds (saturating after 584 years).
fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// RFC 6298 round-trip estimator.
#[derive(Debug, Clone)]
pub(crate) struct RttEstimator {
    srtt: Option<Duration>,
    rttvar: Duration,
    min: Option<Duration>,
    base_rto: Duration,
    backoff: u32,
    min_rto: Duration,
    max_rto: Duration,
}

impl RttEstimator {
    pub fn new(initial_rtt: Duration, min_rto: Duration, max_rto: Duration) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: initial_rtt / 2,
            min: None,
            base_rto: (initial_rtt * 3).clamp(min_rto, max_rto),
            backoff: 0,
            min_rto,
            max_rto,
        }
    }

    /// A new measurement (only from chunks sent once).
    ///
    /// The arithmetic is on whole nanoseconds, with the same results as on `Duration`s: a
    /// `Duration` divided by an integer divides its seconds and its nanoseconds apart, several
    /// divisions for every acknowledged chunk.
    pub fn sample(&mut self, r: Duration) {
        let r_ns = nanos(r);
        let (srtt, rttvar) = match self.srtt {
            None => (r_ns, r_ns / 2),
            Some(srtt) => {
                let (srtt, rttvar) = (nanos(srtt), nanos(self.rttvar));
                let delta = srtt.abs_diff(r_ns);
                (
                    srtt.saturating_mul(7) / 8 + r_ns / 8,
                    rttvar.saturating_mul(3) / 4 + delta / 4,
                )
            }
        };
        self.srtt = Some(Duration::from_nanos(srtt));
        self.rttvar = Duration::from_nanos(rttvar);
        self.min = Some(self.min.map_or(r, |m| m.min(r)));
        let spread = rttvar.saturating_mul(4).max(nanos(GRANULARITY));
        self.base_rto =
            Duration::from_nanos(srtt.saturating_add(spread)).clamp(self.min_rto, self.max_rto);
        self.backoff = 0;
    }

    /// The current retransmission timeout, including backoff.
    pub fn rto(&self) -> Duration {
        self.base_rto
            .saturating_mul(1 << self.backoff.min(16))
            .min(self.max_rto)
    }

    /// The timer expired: double the timeout until a new sample arrives.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(16);
    }

    /// A retransmission was acknowledged within the un-backed-off timeout of being sent: the
    /// timeout is long enough after all, so the backoff ends even without a sample. (Without
    /// this, a link where every first transmission of a rare reliable message is lost would
    /// never take a sample and would keep the backoff forever.)
    pub fn on_prompt_retransmission_ack(&mut self, elapsed: Duration) {
        if elapsed < self.base_rto {
            self.backoff = 0;
        }
    }

    pub fn smoothed(&self) -> Option<Duration> {
        self.srtt
    }

    pub fn min(&self) -> Option<Duration> {
        self.min
    }
}

#[derive(Debug, Clone, Copy)]
struct Transmission {
    abs: u64,
    chunk: u8,
    tx_id: u64,
    sent_at: Instant,
}

/// Which datagram sizes [`Sender::poll`] may produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Size {
    /// Any: the first datagram of a batch.
    Any,
    /// Exactly this many bytes: the middle of a batch.
    Exactly(usize),
    /// At most this many bytes: the last datagram of a batch.
    AtMost(usize),
}

impl Size {
    fn fits(self, len: usize) -> bool {
        match self {
            Size::Any => true,
            Size::Exactly(want) => len == want,
            Size::AtMost(max) => len <= max,
        }
    }
}

/// How many messages [`Sender::poll`] looks through for a chunk of the size a batch needs.
/// Bounded, so that a long queue of messages whose next chunk has another size costs a fixed
/// amount per datagram.
const SIZE_SCAN: usize = 64;

/// A datagram carrying a full chunk.
const FULL_DATAGRAM: usize = HEADER_LEN + CHUNK_SIZE;

/// The length of the datagram carrying chunk `index` of `payload`.
fn datagram_len(payload: &[u8], index: usize) -> usize {
    HEADER_LEN + chunk_bytes(payload, index).len()
}

/// Outgoing sequence numbering and the reliable messages not yet fully acknowledged.
#[derive(Debug)]
pub(crate) struct Sender {
    next_abs: u64,
    messages: Outgoing,
    /// Chunks of `messages` never sent yet: whether there is new data to send, without a walk
    /// over the messages.
    unsent: usize,
    /// No message before this has a chunk never sent.
    cursor: u64,
    /// No message before this has a full-size chunk never sent: where a GSO batch of full
    /// chunks looks for its next one, past the messages that only have a short last chunk
    /// left (a queue of 1 KiB messages is two full chunks and one short one each).
    full_cursor: u64,
    in_flight: VecDeque<Transmission>,
    in_flight_count: usize,
    retransmit: VecDeque<(u64, u8)>,
    next_tx_id: u64,
    largest_acked_tx: u64,
    /// When a chunk in flight was last acknowledged: a timeout with acknowledgements still
    /// arriving is a lost chunk, one after a silence of a whole RTO is a blackout.
    last_ack_at: Option<Instant>,
    max_pending: usize,
}

impl Sender {
    pub fn new(max_pending: usize) -> Sender {
        Sender {
            next_abs: 0,
            messages: Outgoing::default(),
            unsent: 0,
            cursor: 0,
            full_cursor: 0,
            in_flight: VecDeque::new(),
            in_flight_count: 0,
            retransmit: VecDeque::new(),
            next_tx_id: 1,
            largest_acked_tx: 0,
            last_ack_at: None,
            max_pending,
        }
    }

    /// Reliable chunks sent and neither acknowledged nor declared lost.
    pub fn in_flight(&self) -> usize {
        self.in_flight_count
    }

    /// Reliable messages not yet fully acknowledged.
    pub fn pending(&self) -> usize {
        self.messages.len()
    }

    /// The sequence id the next message will get.
    pub fn next_sequence(&self) -> u16 {
        self.next_abs as u16
    }

    /// Whether a message may be given a sequence id now.
    pub fn check_room(&self, reliable: bool) -> Result<(), Error> {
        if reliable && self.messages.len() >= self.max_pending {
            return Err(Error::WouldBlock);
        }
        if let Some(oldest) = self.messages.oldest()
            && self.next_abs - oldest >= SEQUENCE_WINDOW
        {
            return Err(Error::WouldBlock);
        }
        Ok(())
    }

    /// Gives the next sequence id to a message. A copy of a reliable payload is kept until
    /// every chunk is acknowledged.
    pub fn allocate(&mut self, reliable: Option<&[u8]>) -> u16 {
        let abs = self.next_abs;
        self.next_abs += 1;
        let seq = abs as u16;
        if let Some(payload) = reliable {
            self.unsent += self.messages.insert(abs, seq, payload);
        }
        seq
    }

    /// Appends the next reliable datagram to `buf` if the congestion window has room and it
    /// fits `size`, and returns its length. Writing into the caller's buffer means no
    /// allocation per datagram.
    ///
    /// `size` serves GSO batches, whose datagrams must all have the first one's size but the
    /// last, which may be shorter. With [`Size::Exactly`] the sender takes a retransmission at
    /// the front of its queue if it has that size, else the next new chunk of that size among
    /// the messages of the next [`SIZE_SCAN`] sequence numbers: the full chunks of several
    /// queued messages then share one batch while their shorter last chunks wait for a batch
    /// of their own (the receiver reassembles in any order, so this only reorders datagrams
    /// within one flush).
    pub fn poll(
        &mut self,
        now: Instant,
        window: usize,
        stats: &mut Stats,
        buf: &mut Vec<u8>,
        size: Size,
    ) -> Option<usize> {
        if self.in_flight_count >= window {
            return None;
        }
        while let Some(&(abs, chunk)) = self.retransmit.front() {
            let Some(msg) = self.messages.get_mut(abs) else {
                self.retransmit.pop_front();
                continue;
            };
            let state = &mut msg.chunks[usize::from(chunk)];
            if state.acked || state.in_flight {
                state.queued = false;
                self.retransmit.pop_front();
                continue;
            }
            if !size.fits(datagram_len(&msg.data, usize::from(chunk))) {
                return None;
            }
            state.queued = false;
            self.retransmit.pop_front();
            stats.retransmissions += 1;
            return Some(self.transmit(now, abs, chunk, buf));
        }
        if self.unsent == 0 {
            return None;
        }
        let first = self.first_unsent()?;
        let abs = match size {
            Size::Exactly(FULL_DATAGRAM) => self.next_full()?,
            Size::Exactly(len) => self
                .messages
                .iter_from(first)
                .take(SIZE_SCAN)
                .find(|(_, m)| {
                    m.next_new < m.chunks.len() && datagram_len(&m.data, m.next_new) == len
                })
                .map(|(abs, _)| abs)?,
            Size::Any | Size::AtMost(_) => {
                let msg = self.messages.get(first)?;
                if !size.fits(datagram_len(&msg.data, msg.next_new)) {
                    return None;
                }
                first
            }
        };
        let msg = self.messages.get_mut(abs)?;
        let chunk = msg.next_new as u8;
        msg.next_new += 1;
        self.unsent -= 1;
        Some(self.transmit(now, abs, chunk, buf))
    }

    /// The oldest message with a chunk never sent, moving `cursor` to it: past the messages
    /// sent whole, for good, so a batch of short last chunks (one per message) finds each next
    /// one at once instead of walking again past those already sent.
    fn first_unsent(&mut self) -> Option<u64> {
        let (abs, _) = self
            .messages
            .iter_from(self.cursor)
            .find(|(_, m)| m.next_new < m.chunks.len())?;
        self.cursor = abs;
        Some(abs)
    }

    /// The oldest message with a full-size chunk never sent, if its sequence number is within
    /// [`SIZE_SCAN`] of the oldest message with any chunk never sent. Moves `full_cursor` past
    /// the messages that have none left, for good (`next_new` only grows), so the walk costs
    /// a constant per message over its life, not a scan per datagram.
    fn next_full(&mut self) -> Option<u64> {
        let start = self.full_cursor.max(self.cursor);
        let found = self
            .messages
            .iter_from(start)
            .find(|(_, m)| m.next_new < m.full_chunks())
            .map(|(abs, _)| abs);
        self.full_cursor = found.unwrap_or_else(|| self.messages.end());
        found.filter(|&abs| abs - self.cursor < SIZE_SCAN as u64)
    }

    /// Whether [`poll`](Self::poll) would produce a datagram under this window.
    pub fn has_sendable(&self, window: usize) -> bool {
        if self.in_flight_count >= window {
            return false;
        }
        self.unsent > 0
            || self.retransmit.iter().any(|&(abs, chunk)| {
                self.messages
                    .get(abs)
                    .and_then(|m| m.chunks.get(usize::from(chunk)))
                    .is_some_and(|s| !s.acked && !s.in_flight)
            })
    }

    fn transmit(&mut self, now: Instant, abs: u64, chunk: u8, buf: &mut Vec<u8>) -> usize {
        let tx_id = self.next_tx_id;
        self.next_tx_id += 1;
        let Some(msg) = self.messages.get_mut(abs) else {
            return 0;
        };
        let last = msg.chunks.len() - 1;
        let state = &mut msg.chunks[usize::from(chunk)];
        state.tx_id = tx_id;
        state.sent_at = Some(now);
        state.tx_count += 1;
        state.in_flight = true;
        self.in_flight_count += 1;
        self.in_flight.push_back(Transmission {
            abs,
            chunk,
            tx_id,
            sent_at: now,
        });
        let mut flags = Flags::REL;
        if usize::from(chunk) == last {
            flags = flags | Flags::FIN;
        }
        let bytes = chunk_bytes(&msg.data, usize::from(chunk));
        buf.extend_from_slice(&Header::new(flags, chunk, msg.seq).encode());
        buf.extend_from_slice(bytes);
        HEADER_LEN + bytes.len()
    }

    fn is_current(&self, t: &Transmission) -> bool {
        self.messages
            .get(t.abs)
            .and_then(|m| m.chunks.get(usize::from(t.chunk)))
            .is_some_and(|s| s.in_flight && s.tx_id == t.tx_id)
    }

    fn declare_lost(
        &mut self,
        t: Transmission,
        blackout: bool,
        cc: &mut Congestion,
        stats: &mut Stats,
    ) {
        let Some(state) = self
            .messages
            .get_mut(t.abs)
            .and_then(|m| m.chunks.get_mut(usize::from(t.chunk)))
        else {
            return;
        };
        state.in_flight = false;
        self.in_flight_count -= 1;
        if !state.queued {
            state.queued = true;
            self.retransmit.push_back((t.abs, t.chunk));
        }
        stats.chunks_lost += 1;
        cc.on_loss(t.tx_id, self.next_tx_id, blackout);
    }

    /// An ACK for `(sequence, chunk)` arrived. Returns whether it completed a message.
    pub fn on_ack(
        &mut self,
        now: Instant,
        sequence: u16,
        chunk: u8,
        rtt: &mut RttEstimator,
        cc: &mut Congestion,
        stats: &mut Stats,
    ) -> bool {
        let back = u64::from((self.next_abs as u16).wrapping_sub(sequence));
        if back == 0 || back > self.next_abs {
            return false;
        }
        let abs = self.next_abs - back;
        let Some(msg) = self.messages.get_mut(abs) else {
            return false;
        };
        let Some(state) = msg.chunks.get_mut(usize::from(chunk)) else {
            return false;
        };
        if state.acked || state.tx_count == 0 {
            return false;
        }
        state.acked = true;
        let mut sample = None;
        if let Some(sent) = state.sent_at {
            let elapsed = now.saturating_duration_since(sent);
            if state.tx_count == 1 {
                rtt.sample(elapsed);
                sample = Some(elapsed);
            } else {
                rtt.on_prompt_retransmission_ack(elapsed);
            }
        }
        if state.in_flight {
            state.in_flight = false;
            self.in_flight_count -= 1;
            cc.on_ack(state.tx_id, sample, rtt.min(), self.next_tx_id);
            self.last_ack_at = Some(now);
        }
        self.largest_acked_tx = self.largest_acked_tx.max(state.tx_id);
        msg.acked += 1;
        let complete = msg.acked == msg.chunks.len();
        if complete {
            self.messages.remove(abs);
        }
        self.detect_by_threshold(cc, stats);
        complete
    }

    fn detect_by_threshold(&mut self, cc: &mut Congestion, stats: &mut Stats) {
        while let Some(&front) = self.in_flight.front() {
            if !self.is_current(&front) {
                self.in_flight.pop_front();
                continue;
            }
            if front.tx_id + PACKET_THRESHOLD < self.largest_acked_tx {
                self.in_flight.pop_front();
                self.declare_lost(front, false, cc, stats);
            } else {
                break;
            }
        }
    }

    /// Declares lost every chunk whose retransmission timer expired, backing the timer off once.
    pub fn on_timeout(
        &mut self,
        now: Instant,
        rtt: &mut RttEstimator,
        cc: &mut Congestion,
        stats: &mut Stats,
    ) {
        let rto = rtt.rto();
        let blackout = self
            .last_ack_at
            .is_none_or(|t| now.saturating_duration_since(t) >= rto);
        let mut expired = false;
        while let Some(&front) = self.in_flight.front() {
            if !self.is_current(&front) {
                self.in_flight.pop_front();
                continue;
            }
            if front.sent_at + rto <= now {
                self.in_flight.pop_front();
                self.declare_lost(front, blackout, cc, stats);
                expired = true;
            } else {
                break;
            }
        }
        if expired {
            rtt.back_off();
        }
    }

    /// When the oldest chunk in flight times out.
    pub fn next_timeout(&mut self, rto: Duration) -> Option<Instant> {
        while let Some(front) = self.in_flight.front() {
            if self.is_current(front) {
                return Some(front.sent_at + rto);
            }
            self.in_flight.pop_front();
        }
        None
    }

    /// Forgets everything (the connection closed).
    pub fn clear(&mut self) {
        self.messages.clear();
        self.in_flight.clear();
        self.retransmit.clear();
        self.in_flight_count = 0;
        self.unsent = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rto_follows_rfc6298() {
        let mut r = RttEstimator::new(
            Duration::from_millis(100),
            Duration::from_millis(10),
            Duration::from_secs(10),
        );
        assert_eq!(r.rto(), Duration::from_millis(300));
        r.sample(Duration::from_millis(40));
        // srtt 40, rttvar 20: rto = 40 + 80
        assert_eq!(r.rto(), Duration::from_millis(120));
        r.back_off();
        assert_eq!(r.rto(), Duration::from_millis(240));
        r.sample(Duration::from_millis(40));
        // rttvar = 15 + 0, srtt = 40: rto = 100, backoff reset
        assert_eq!(r.rto(), Duration::from_millis(100));
    }

    #[test]
    fn ack_of_unsent_chunk_is_ignored() {
        let mut s = Sender::new(8);
        let mut stats = Stats::default();
        let mut rtt = RttEstimator::new(
            Duration::from_millis(100),
            Duration::from_millis(10),
            Duration::from_secs(10),
        );
        let mut cc = Congestion::new(4, 2, 8);
        let seq = s.allocate(Some(&[0; 2000]));
        assert!(!s.on_ack(Instant::now(), seq, 0, &mut rtt, &mut cc, &mut stats));
        assert_eq!(s.pending(), 1);
        let now = Instant::now();
        let mut buf = Vec::new();
        for _ in 0..4 {
            assert!(s.poll(now, 4, &mut stats, &mut buf, Size::Any).is_some());
        }
        assert!(s.poll(now, 4, &mut stats, &mut buf, Size::Any).is_none());
        assert_eq!(buf.len(), 4 * HEADER_LEN + 2000);
        for c in 0..4 {
            s.on_ack(now, seq, c, &mut rtt, &mut cc, &mut stats);
        }
        assert_eq!(s.pending(), 0);
    }
}
