//! Outgoing sequence numbering and the reliable messages not yet fully acknowledged: which
//! chunk of which message is in flight, acknowledged, or waiting to be sent again.
//!
//! Each transmission of a chunk gets a transmission id, so that an acknowledgement tells which
//! transmission it answers (Karn's rule, loss detection in [`loss`](super::loss)).

use std::collections::VecDeque;
use std::time::Instant;

use super::congestion::Congestion;
use super::outgoing::Outgoing;
use super::rtt::RttEstimator;
use crate::Error;
use crate::chunk::chunk_bytes;
use crate::packet::{Flags, HEADER_LEN, Header};
use crate::payload::Data;
use crate::stats::Stats;

/// Sends are refused while the oldest unacknowledged reliable message is this many ids behind
/// the next one, so that a sequence id is never reused while its previous message may live.
const SEQUENCE_WINDOW: u64 = 16384;

/// One transmission of a reliable chunk.
#[derive(Debug, Clone, Copy)]
pub(super) struct Transmission {
    pub(super) abs: u64,
    pub(super) chunk: u8,
    pub(super) tx_id: u64,
    pub(super) sent_at: Instant,
}

/// Outgoing sequence numbering and the reliable messages not yet fully acknowledged.
#[derive(Debug)]
pub(crate) struct Sender {
    pub(super) next_abs: u64,
    pub(super) messages: Outgoing,
    /// Chunks of `messages` never sent yet: whether there is new data to send, without a walk
    /// over the messages.
    pub(super) unsent: usize,
    /// No message before this has a chunk never sent.
    pub(super) cursor: u64,
    /// No message before this has a full-size chunk never sent: where a GSO batch of full
    /// chunks looks for its next one, past the messages that only have a short last chunk
    /// left (a queue of 1 KiB messages is two full chunks and one short one each).
    pub(super) full_cursor: u64,
    pub(super) in_flight: VecDeque<Transmission>,
    pub(super) in_flight_count: usize,
    pub(super) retransmit: VecDeque<(u64, u8)>,
    pub(super) next_tx_id: u64,
    pub(super) largest_acked_tx: u64,
    /// When a chunk in flight was last acknowledged: a timeout with acknowledgements still
    /// arriving is a lost chunk, one after a silence of a whole RTO is a blackout.
    pub(super) last_ack_at: Option<Instant>,
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
    pub fn allocate(&mut self, reliable: Option<Data<'_>>) -> u16 {
        let abs = self.next_abs;
        self.next_abs += 1;
        let seq = abs as u16;
        if let Some(payload) = reliable {
            self.unsent += self.messages.insert(abs, seq, payload);
        }
        seq
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

    pub(super) fn transmit(
        &mut self,
        now: Instant,
        abs: u64,
        chunk: u8,
        buf: &mut Vec<u8>,
    ) -> usize {
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
        let bytes = chunk_bytes(msg.bytes(), usize::from(chunk));
        buf.extend_from_slice(&Header::new(flags, chunk, msg.seq).encode());
        buf.extend_from_slice(bytes);
        HEADER_LEN + bytes.len()
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
    use std::time::Duration;

    use super::*;
    use crate::transmit::Size;

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
        let seq = s.allocate(Some(Data::Borrowed(&[0; 2000])));
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
