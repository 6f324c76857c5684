//! Acknowledgement by `ack` and a 32-bit bitfield, both ways.
//!
//! Received: the peer's packet sequences, one bit each in the engine's [`Delivered`] (the
//! newest is `ack`; bit `i` says whether `ack - 1 - i` came). Sent: this end's recent packets
//! with the reliable ids each carried, so that an acknowledgement releases those commands and
//! gives the engine's [`RttEstimator`] a sample (a WOKE packet is never sent twice, so every
//! acknowledgement times one).

use std::collections::VecDeque;
use std::time::Instant;

use hopnet::engine::{Delivered, RttEstimator, seq_diff};

use super::config::MAX_UNACKED_IN_A_ROW;

/// Packets this end remembers having sent: older ones fall outside every ack bitfield.
const SENT_REMEMBERED: usize = 64;

/// The peer's packets received.
#[derive(Debug, Default)]
pub(super) struct Received {
    seen: Delivered,
}

impl Received {
    /// Records packet `sequence`; `false` if it came already (a duplicate).
    pub fn record(&mut self, sequence: u16) -> bool {
        if self.seen.contains(sequence) {
            return false;
        }
        self.seen.observe(sequence);
        self.seen.insert(sequence);
        true
    }

    /// The header's `ack` and `ack_bitfield`.
    pub fn ack(&self) -> (u16, u32) {
        let Some(ack) = self.seen.newest() else {
            return (0, 0);
        };
        let mut bits = 0u32;
        for i in 0..32u16 {
            if self.seen.contains(ack.wrapping_sub(1 + i)) {
                bits |= 1 << i;
            }
        }
        (ack, bits)
    }
}

#[derive(Debug)]
struct SentPacket {
    sequence: u16,
    at: Instant,
    reliable_ids: Vec<u16>,
    acked: bool,
}

/// This end's packets and what their acknowledgements tell.
#[derive(Debug)]
pub(super) struct Sent {
    next_sequence: u16,
    packets: VecDeque<SentPacket>,
    newest_acked: Option<u16>,
    /// Packets sent since counting began (the connection was established) while none was
    /// acknowledged.
    since_count_start: u16,
    counting: bool,
}

impl Sent {
    pub fn new() -> Sent {
        Sent {
            next_sequence: 0,
            packets: VecDeque::new(),
            newest_acked: None,
            since_count_start: 0,
            counting: false,
        }
    }

    /// The sequence the next packet takes; call [`sent`](Self::sent) once it is written.
    pub fn next_sequence(&self) -> u16 {
        self.next_sequence
    }

    /// The packet with the next sequence left, carrying `reliable_ids`.
    pub fn sent(&mut self, now: Instant, reliable_ids: Vec<u16>) {
        if self.packets.len() == SENT_REMEMBERED {
            self.packets.pop_front();
        }
        self.packets.push_back(SentPacket {
            sequence: self.next_sequence,
            at: now,
            reliable_ids,
            acked: false,
        });
        self.next_sequence = self.next_sequence.wrapping_add(1);
        if self.counting && self.newest_acked.is_none() {
            self.since_count_start = self.since_count_start.saturating_add(1);
        }
    }

    /// From now on, packets left unacknowledged count toward the limit.
    pub fn start_counting(&mut self) {
        self.counting = true;
    }

    /// The peer's `ack` and bitfield: each newly acknowledged packet's reliable ids go to
    /// `acked`, and its round trip to `rtt`.
    pub fn acknowledged(
        &mut self,
        now: Instant,
        ack: u16,
        bits: u32,
        rtt: &mut RttEstimator,
        acked: &mut Vec<u16>,
    ) {
        // An ack for a packet never sent (ahead of the next sequence) is a lie: ignored.
        if seq_diff(ack, self.next_sequence) >= 0 {
            return;
        }
        let Some(front) = self.packets.front().map(|p| p.sequence) else {
            return;
        };
        for i in 0..=32u16 {
            if i > 0 && bits & (1 << (i - 1)) == 0 {
                continue;
            }
            let seq = ack.wrapping_sub(i);
            let Ok(index) = usize::try_from(seq_diff(seq, front)) else {
                continue;
            };
            let Some(p) = self.packets.get_mut(index) else {
                continue;
            };
            if p.acked {
                continue;
            }
            p.acked = true;
            rtt.sample(now.saturating_duration_since(p.at));
            acked.append(&mut p.reliable_ids);
            if self.newest_acked.is_none_or(|n| seq_diff(seq, n) > 0) {
                self.newest_acked = Some(seq);
            }
        }
    }

    /// Whether more than 32 packets in a row went unacknowledged.
    pub fn too_many_unacked(&self) -> bool {
        let run = match self.newest_acked {
            Some(n) => self.next_sequence.wrapping_sub(n).wrapping_sub(1),
            None => self.since_count_start,
        };
        self.counting && run > MAX_UNACKED_IN_A_ROW
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_bitfield_names_the_packets_before_ack() {
        let mut r = Received::default();
        for seq in [5, 8, 10, 8] {
            r.record(seq);
        }
        // ack 10; bit 1 is 8, bit 4 is 5.
        assert_eq!(r.ack(), (10, 0b1_0010));
        let mut r = Received::default();
        for seq in [65_534, 65_535, 1] {
            r.record(seq);
        }
        assert_eq!(r.ack(), (1, 0b110), "across the wrap");
    }

    #[test]
    fn acknowledgements_release_what_the_packets_carried() {
        let now = Instant::now();
        let mut sent = Sent::new();
        sent.start_counting();
        for i in 0..40u16 {
            sent.sent(now, vec![i]);
        }
        assert!(sent.too_many_unacked(), "40 sent, none acknowledged");
        let mut rtt = RttEstimator::new(
            Duration::from_millis(100),
            Duration::from_millis(10),
            Duration::from_secs(1),
        );
        let mut acked = Vec::new();
        sent.acknowledged(now, 39, 0b101, &mut rtt, &mut acked);
        assert_eq!(acked, [39, 38, 36]);
        assert!(!sent.too_many_unacked());
        acked.clear();
        sent.acknowledged(now, 200, !0, &mut rtt, &mut acked);
        assert!(acked.is_empty(), "an ack of a packet never sent is ignored");
    }
}
