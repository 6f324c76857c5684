//! The client's side of the handshake: what it sends, when, and which answers it accepts
//! (PROTOCOL.md, "The client's handshake").

use std::time::{Duration, Instant};

use super::failure::HandshakeFailure;
use super::xor;
use crate::packet::{Flags, PROBE_CHUNK, PROBE_FLAGS};

/// How many sequences the probes of one attempt use: they count down from the first, and
/// start over at it after this many (a probe a second for four minutes). So every probe's
/// sequence lies between 65,025 and 65,535, just behind sequence 0, where data starts.
const PROBE_SEQUENCES: u16 = 256;

/// The highest sequences, where every attempt's first probe lies (its low byte is random):
/// just behind sequence 0, so that a receiver that keeps a window of recent sequences (the
/// spec author's keeps 1,024) has them in its window with the first data, and never takes a
/// late probe for a jump of half the sequence space.
const PROBE_BASE: u16 = 0xff00;

/// Peppers remembered per connection attempt, so that a late copy of a `Challenge` is never
/// answered twice. A client sends at most one `Init` per resend interval before its connect
/// timeout, so this covers every attempt of the default configuration and then some.
const MAX_ANSWERED: usize = 32;

/// The client's side of the handshake: what it sends, when, and which answers it accepts.
///
/// The rule (PROTOCOL.md, "The client's handshake"): the client resends only its `Init`, never
/// its `ChallengeResponse`. Each salt is a *probe*: `REL | FIN`, chunk 255, no payload, and a
/// sequence just behind 0, a packet every reading of the spec defines. A server that already
/// accepted us parses it as the empty last chunk of a 256-chunk message and, like any
/// conforming peer, acknowledges it at once: that `ACK` is the confirmation the spec never
/// sends. The message never completes (chunks 0 to 254 never come), so nothing is handed up.
/// A server still waiting for our response takes it as a new `Init` and challenges it, with a
/// new pepper or (a reading the spec allows) the same one again.
///
/// The re-answer rule: a `Challenge` is answered once per salt, with that salt's seasoning, and
/// only if a salt left since the last answer. A pepper never answered is answered for any such
/// salt; a pepper already answered only for a probe resent since that answer (one that left on
/// its own, at a resend, not the probe that went with the answer), so that a copy of a
/// `Challenge` the network delivers twice is not answered in the same breath as the first.
/// Every `ChallengeResponse` is the XOR of a salt never used before, so no datagram is ever
/// sent twice, and a server that accepted one never sees that one again.
#[derive(Debug, Clone)]
pub(crate) struct ClientHandshake {
    /// The salt of the latest `Init` or probe.
    salt: [u8; 4],
    /// The sequence of the first salt; the `n`-th probe after it has `first - n`.
    first: u16,
    /// Which of the sequences the latest salt has (0 for the first).
    index: u16,
    /// The highest index used so far: the probes whose acknowledgement confirms.
    highest: u16,
    /// Whether a `ChallengeResponse` was sent: from then on every `Init` is a probe with a new
    /// salt, so that even a server whose pepper depends only on the salt (ours) answers it with
    /// a pepper we have not answered yet.
    responded: bool,
    /// Whether an `Init` left since the last answer: a `Challenge` is answered only then.
    armed: bool,
    /// Whether a salt was resent (by the resend timer) since the last answer: a pepper already
    /// answered is answered again only then.
    resent: bool,
    /// Peppers answered so far, oldest first.
    answered: Vec<[u8; 4]>,
    /// Datagrams due at once, in order: a `ChallengeResponse`, then a probe.
    due_now: Vec<[u8; 4]>,
    /// What was sent so far, for the error if no confirmation comes.
    tried: HandshakeFailure,
    started: Instant,
    /// When the latest salt (`Init` or probe) left.
    last_sent: Instant,
    /// How many salts left since the last answer: when one did, the next `Challenge` came at
    /// least its delay after it, and a probe waits at least that (`on_challenge`).
    sent_since_answer: u32,
    /// How long a probe waits for its answer at least: the initial interval plus the round
    /// trip's bound, once the first `Challenge` gave one (see `on_challenge`).
    floor: Duration,
    next_resend: Instant,
    interval: Duration,
    initial: Duration,
    max: Duration,
    timeout: Duration,
}

impl ClientHandshake {
    /// A handshake whose first `Init` is due at `now`. `low` (the low byte of the first
    /// probe's sequence) comes from the caller's random generator.
    pub fn new(
        now: Instant,
        low: u8,
        initial: Duration,
        max: Duration,
        timeout: Duration,
    ) -> ClientHandshake {
        let first = PROBE_BASE | u16::from(low);
        ClientHandshake {
            salt: probe(first),
            first,
            index: 0,
            highest: 0,
            responded: false,
            armed: false,
            resent: false,
            answered: Vec::new(),
            due_now: Vec::new(),
            tried: HandshakeFailure {
                waited: timeout,
                inits: 0,
                challenges: 0,
                probes: 0,
            },
            started: now,
            last_sent: now,
            sent_since_answer: 0,
            floor: Duration::ZERO,
            next_resend: now,
            interval: initial,
            initial,
            max,
            timeout,
        }
    }

    /// The next handshake datagram to send at `now`, if one is due.
    pub fn poll(&mut self, now: Instant) -> Option<[u8; 4]> {
        if now >= self.deadline() {
            self.due_now.clear();
            return None;
        }
        if !self.due_now.is_empty() {
            return Some(self.due_now.remove(0));
        }
        if now < self.next_resend {
            return None;
        }
        self.next_resend = now + self.interval;
        self.interval = (self.interval * 2).min(self.max.max(self.floor));
        let salt = self.next_init(now);
        self.resent = true;
        Some(salt)
    }

    /// The `Init` to send next: the same salt until we have responded, a fresh probe after.
    fn next_init(&mut self, now: Instant) -> [u8; 4] {
        if self.responded {
            self.index = (self.index + 1) % PROBE_SEQUENCES;
            self.highest = self.highest.max(self.index);
            self.salt = probe(self.first.wrapping_sub(self.index));
            self.tried.probes += 1;
        } else {
            self.tried.inits += 1;
        }
        self.last_sent = now;
        self.sent_since_answer += 1;
        self.armed = true;
        self.salt
    }

    /// A 4-byte datagram that is not a confirmation arrived: a `Challenge`, answered under the
    /// re-answer rule (a salt left since the last answer; for a pepper answered before, a salt
    /// resent since). Returns whether it was answered.
    pub fn on_challenge(&mut self, now: Instant, pepper: [u8; 4]) -> bool {
        let repeated = self.answered.contains(&pepper);
        if !self.armed || (repeated && !self.resent) {
            return false;
        }
        if !repeated {
            if self.answered.len() == MAX_ANSWERED {
                self.answered.remove(0);
            }
            self.answered.push(pepper);
        }
        self.armed = false;
        self.resent = false;
        let response = xor(self.salt, pepper);
        self.responded = true;
        self.tried.challenges += 1;
        if self.floor.is_zero() {
            self.floor = self.initial + self.round_trip_bound(now);
        } else if self.sent_since_answer == 1 {
            let since_last = now.saturating_duration_since(self.last_sent);
            self.floor = self.floor.max(self.initial + since_last);
        }
        self.sent_since_answer = 0;
        let probe = self.next_init(now);
        self.due_now.clear();
        self.due_now.extend([response, probe]);
        self.interval = self.floor;
        self.next_resend = now + self.floor;
        true
    }

    /// How long the round trip may be, from the first `Challenge`. A `Challenge` carries no
    /// salt, so the client answers it with its latest one: were a probe resent sooner than a
    /// round trip, two salts would be in flight, each `Challenge` would be answered with the
    /// salt after its own, and each answer would send one more probe, so that a client whose
    /// response was once lost might never answer right again. So a probe waits at least the
    /// round trip. The first `Challenge` answers one of the `Init`s, which all carry one salt:
    /// the round trip is at most the time since the first of them and at least the time since
    /// the latest. The upper bound is taken, but no more than twice the initial interval unless
    /// the lower bound is longer still: an `Init` lost early makes the upper bound long, and
    /// every later probe would wait for nothing. Past that cap, a later `Challenge` that
    /// comes when one salt left since the last answer took at least its delay, and the wait
    /// grows to it (PROTOCOL.md, "The client's handshake", step 5).
    fn round_trip_bound(&self, now: Instant) -> Duration {
        let since_first = now.saturating_duration_since(self.started);
        let since_last = now.saturating_duration_since(self.last_sent);
        since_first.min(since_last.max(self.initial * 2))
    }

    /// Whether `datagram` is a server's acknowledgement of one of our probes: `ACK` (with or
    /// without `FIN`: the spec's text sets `ACK` alone, its author's implementation and ours
    /// add `FIN`), no `END`, no reserved bit, chunk 255 and the sequence of a probe of this
    /// attempt. A random pepper looks like this about once in 2^22.
    pub fn is_confirmation(&self, datagram: [u8; 4]) -> bool {
        let flags = datagram[0];
        let sequence = u16::from_be_bytes([datagram[2], datagram[3]]);
        flags & Flags::RESERVED_MASK == 0
            && flags & Flags::ACK.bits() != 0
            && flags & Flags::END.bits() == 0
            && datagram[1] == PROBE_CHUNK
            && self.first.wrapping_sub(sequence) <= self.highest
    }

    /// Whether a pepper was already answered: a copy of it arriving after the handshake is a
    /// stray `Challenge`, not a header.
    pub fn was_answered(&self, datagram: [u8; 4]) -> bool {
        self.answered.contains(&datagram)
    }

    /// Whether a `ChallengeResponse` has been sent.
    pub fn responded(&self) -> bool {
        self.responded
    }

    /// What was tried, for the error when the connect timeout passes without a confirmation.
    pub fn tried(&self) -> HandshakeFailure {
        self.tried
    }

    pub fn deadline(&self) -> Instant {
        self.started + self.timeout
    }

    /// When `poll` has something to send next (an instant already past if something is due
    /// at once).
    pub fn next_send(&self) -> Instant {
        if self.due_now.is_empty() {
            self.next_resend
        } else {
            self.started
        }
    }
}

/// A probe, and the salt it is: `REL | FIN`, chunk 255, the sequence, no payload.
fn probe(sequence: u16) -> [u8; 4] {
    let [hi, lo] = sequence.to_be_bytes();
    [PROBE_FLAGS.bits(), PROBE_CHUNK, hi, lo]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Header, is_probe};

    const MS: Duration = Duration::from_millis(1);

    fn handshake(now: Instant) -> ClientHandshake {
        ClientHandshake::new(now, 0x34, 250 * MS, 1000 * MS, 10_000 * MS)
    }

    /// Takes a Challenge with `pepper` at `at` (it must be answered), sends all that is due
    /// then, and says when the next probe goes.
    fn answer(h: &mut ClientHandshake, at: Instant, pepper: [u8; 4]) -> Instant {
        assert!(h.on_challenge(at, pepper));
        while h.poll(at).is_some() {}
        h.next_send()
    }

    #[test]
    fn every_salt_is_a_probe_counting_down_from_the_first() {
        let now = Instant::now();
        let mut h = handshake(now);
        let init = h.poll(now).unwrap();
        assert_eq!(init, [0x05, 0xff, 0xff, 0x34]);
        // Resent unchanged until a Challenge comes.
        assert_eq!(h.poll(now + 250 * MS), Some(init));
        assert!(h.on_challenge(now + 300 * MS, [1, 2, 3, 4]));
        let response = h.poll(now + 300 * MS).unwrap();
        assert_eq!(response, xor(init, [1, 2, 3, 4]));
        let probe = h.poll(now + 300 * MS).unwrap();
        assert_eq!(probe, [0x05, 0xff, 0xff, 0x33]);
        // The next probe waits the round trip's bound (300 ms since the first Init) plus
        // the initial interval, so that the Challenge for this one comes before it.
        assert_eq!(h.poll(now + 849 * MS), None);
        assert_eq!(h.poll(now + 850 * MS), Some([0x05, 0xff, 0xff, 0x32]));
        for d in [init, probe] {
            assert!(is_probe(d));
            let (header, rest) = Header::decode(&d).unwrap();
            assert_eq!(header.flags, Flags::REL | Flags::FIN);
            assert!(rest.is_empty());
        }
        let tried = h.tried();
        assert_eq!((tried.inits, tried.challenges, tried.probes), (2, 1, 2));
    }

    #[test]
    fn a_probe_waits_longer_when_the_one_salt_in_flight_took_longer() {
        let now = Instant::now();
        let mut h = handshake(now);
        h.poll(now).unwrap();
        // The first Challenge, 400 ms after the one Init: the bound is 400 ms.
        assert_eq!(
            answer(&mut h, now + 400 * MS, [1, 1, 1, 1]),
            now + 1050 * MS
        );
        // The probe that went with the answer is the only salt sent since: a new Challenge
        // 600 ms later took at least that long, so the wait grows to 600 + 250 ms.
        assert_eq!(
            answer(&mut h, now + 1000 * MS, [2, 2, 2, 2]),
            now + 1850 * MS
        );
        // A quicker one does not shorten it.
        assert_eq!(
            answer(&mut h, now + 1100 * MS, [3, 3, 3, 3]),
            now + 1950 * MS
        );
    }

    #[test]
    fn an_init_lost_early_does_not_make_probes_wait_long() {
        let now = Instant::now();
        let mut h = handshake(now);
        // Inits at 0, 250, 750 and 1750 ms; the Challenge 20 ms after the last.
        for t in [0, 250, 750, 1750] {
            assert!(h.poll(now + t * MS).is_some(), "{t}");
        }
        // The bound is capped at twice the initial interval: 500 + 250 ms.
        assert_eq!(
            answer(&mut h, now + 1770 * MS, [1, 1, 1, 1]),
            now + 2520 * MS
        );
    }

    #[test]
    fn the_acknowledgement_of_any_probe_confirms() {
        let now = Instant::now();
        let mut h = handshake(now);
        h.poll(now);
        h.on_challenge(now, [9, 9, 9, 9]);
        while h.poll(now).is_some() {}
        h.poll(now + 250 * MS);
        // Probes 0xff34 (the Init), 0xff33, 0xff32 were sent.
        for seq in [0xff34u16, 0xff33, 0xff32] {
            let [hi, lo] = seq.to_be_bytes();
            assert!(h.is_confirmation([0x06, 0xff, hi, lo]), "{seq:x}");
            assert!(h.is_confirmation([0x02, 0xff, hi, lo]), "{seq:x}");
            assert!(!h.is_confirmation([0x0a, 0xff, hi, lo]), "END");
            assert!(!h.is_confirmation([0x16, 0xff, hi, lo]), "reserved bit");
            assert!(!h.is_confirmation([0x06, 0xfe, hi, lo]), "chunk");
        }
        for seq in [0xff35u16, 0xff31, 0] {
            let [hi, lo] = seq.to_be_bytes();
            assert!(!h.is_confirmation([0x06, 0xff, hi, lo]), "{seq:x}");
        }
    }

    #[test]
    fn a_pepper_answered_before_is_answered_again_only_for_a_resent_probe() {
        let now = Instant::now();
        let mut h = handshake(now);
        let init = h.poll(now).unwrap();
        let pepper = [0x12, 0x34, 0x56, 0x78];
        assert!(h.on_challenge(now, pepper));
        let first = h.poll(now).unwrap();
        assert_eq!(first, xor(init, pepper));
        let companion = h.poll(now).unwrap();
        // A copy of the same Challenge (the network's duplicate, or the server's answer to the
        // probe that went with the response): not answered before a probe was resent.
        assert!(!h.on_challenge(now + 10 * MS, pepper));
        assert_eq!(h.poll(now + 10 * MS), None);
        let resent = h.poll(now + 250 * MS).unwrap();
        assert_ne!(resent, companion);
        // Now it is answered, with the resent probe's seasoning: a datagram never sent before.
        assert!(h.on_challenge(now + 260 * MS, pepper));
        let second = h.poll(now + 260 * MS).unwrap();
        assert_eq!(second, xor(resent, pepper));
        assert_ne!(second, first);
        // Once per salt: the next copy waits for the next resend.
        h.poll(now + 260 * MS).unwrap();
        assert!(!h.on_challenge(now + 270 * MS, pepper));
        assert_eq!(h.tried().challenges, 2);
    }

    #[test]
    fn a_new_pepper_is_answered_for_the_probe_that_went_with_the_response() {
        let now = Instant::now();
        let mut h = handshake(now);
        h.poll(now).unwrap();
        assert!(h.on_challenge(now, [1, 1, 1, 1]));
        h.poll(now).unwrap();
        let companion = h.poll(now).unwrap();
        assert!(h.on_challenge(now + 10 * MS, [2, 2, 2, 2]));
        assert_eq!(h.poll(now + 10 * MS), Some(xor(companion, [2, 2, 2, 2])));
    }

    #[test]
    fn probe_sequences_stay_within_their_range() {
        let now = Instant::now();
        let mut h = ClientHandshake::new(now, 0, MS, MS, Duration::from_secs(3600));
        h.poll(now);
        h.on_challenge(now, [9, 9, 9, 9]);
        let mut seen = std::collections::HashSet::new();
        for i in 0..1000u32 {
            let t = now + MS * i;
            while let Some(d) = h.poll(t) {
                let seq = u16::from_be_bytes([d[2], d[3]]);
                if is_probe(d) {
                    assert!((0xfe01..=0xff00).contains(&seq), "{seq:x}");
                    seen.insert(seq);
                }
            }
        }
        assert_eq!(seen.len(), usize::from(PROBE_SEQUENCES));
    }
}
