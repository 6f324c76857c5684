//! The client's side of the handshake: what it sends, when, and which answers it accepts
//! (PROTOCOL.md, "The client's handshake").

use std::time::{Duration, Instant};

use super::xor;
use crate::packet::Flags;

/// The flags of a probe-shaped salt, as a conforming peer reads them once it has accepted us:
/// `REL | ACK`. `REL` makes it answer with an `ACK` for the same chunk and sequence (the echo
/// that confirms the handshake); `ACK` asks it to stop resending a chunk it never sent.
const PROBE_FLAGS: u8 = 0x03;

/// The chunk index of every probe: the last index of a maximum payload, never in flight this
/// early in a connection.
const PROBE_CHUNK: u8 = 255;

/// Peppers remembered per connection attempt, so that a late copy of a `Challenge` is never
/// answered twice. A client sends at most one `Init` per resend interval before its connect
/// timeout, so this covers every attempt of the default configuration and then some.
const MAX_ANSWERED: usize = 32;

/// The client's side of the handshake: what it sends, when, and which answers it accepts.
///
/// The rule (PROTOCOL.md, "The client's handshake"): the client resends only its `Init`, never
/// its `ChallengeResponse`. Each salt is *probe-shaped*: a reserved flag bit set (so our server
/// reads it as a handshake datagram), then `REL | ACK`, chunk 255, and a sequence with its top
/// bit set. A server that already accepted us parses it as a packet and, like any conforming
/// peer, acknowledges the `REL` chunk: that echo is the confirmation the spec never sends. A
/// server still waiting for our response takes it as a new `Init` and answers with a new
/// `Challenge`, which the client answers once. So a `ChallengeResponse` is only ever sent in
/// answer to a fresh `Challenge`, and a server that accepted one never sees another.
#[derive(Debug, Clone)]
pub(crate) struct ClientHandshake {
    /// The salt of the latest `Init`.
    salt: [u8; 4],
    /// The sequence every probe of this attempt carries, and its echo acknowledges.
    probe_sequence: u16,
    /// Whether a `ChallengeResponse` was sent: from then on every `Init` is a probe with a new
    /// salt, so that even a server whose pepper depends only on the salt (ours) answers it with
    /// a pepper we have not answered yet.
    responded: bool,
    /// Whether an `Init` left since the last answer: a `Challenge` is answered only then.
    armed: bool,
    /// Peppers answered so far, oldest first.
    answered: Vec<[u8; 4]>,
    /// Datagrams due at once, in order: a `ChallengeResponse`, then a probe.
    due_now: Vec<[u8; 4]>,
    started: Instant,
    next_resend: Instant,
    interval: Duration,
    initial: Duration,
    max: Duration,
    timeout: Duration,
}

impl ClientHandshake {
    /// A handshake whose first `Init` is due at `now`. `nibble` (1 to 15) and `sequence` come
    /// from the caller's random generator.
    pub fn new(
        now: Instant,
        nibble: u8,
        sequence: u16,
        initial: Duration,
        max: Duration,
        timeout: Duration,
    ) -> ClientHandshake {
        let probe_sequence = sequence | 0x8000;
        ClientHandshake {
            salt: probe_salt(nibble % 15 + 1, probe_sequence),
            probe_sequence,
            responded: false,
            armed: false,
            answered: Vec::new(),
            due_now: Vec::new(),
            started: now,
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
        self.interval = (self.interval * 2).min(self.max);
        Some(self.next_init())
    }

    /// The `Init` to send next: the same salt until we have responded, a fresh probe after.
    fn next_init(&mut self) -> [u8; 4] {
        if self.responded {
            let nibble = (self.salt[0] >> 4) % 15 + 1;
            self.salt = probe_salt(nibble, self.probe_sequence);
        }
        self.armed = true;
        self.salt
    }

    /// A 4-byte datagram that is not a confirmation arrived: a `Challenge`, if we are waiting
    /// for one and have not answered this pepper before. Returns whether it was answered.
    pub fn on_challenge(&mut self, now: Instant, pepper: [u8; 4]) -> bool {
        if !self.armed || self.answered.contains(&pepper) {
            return false;
        }
        if self.answered.len() == MAX_ANSWERED {
            self.answered.remove(0);
        }
        self.answered.push(pepper);
        self.armed = false;
        let response = xor(self.salt, pepper);
        self.responded = true;
        let probe = self.next_init();
        self.due_now.clear();
        self.due_now.extend([response, probe]);
        self.interval = self.initial;
        self.next_resend = now + self.initial;
        true
    }

    /// Whether `datagram` is a server's acknowledgement of one of our probes: `ACK` (perhaps
    /// with `FIN`, as the spec author's implementation sends it), no `END`, no reserved bit,
    /// chunk 255 and the probe's sequence. A random pepper looks like this once in 2^30.
    pub fn is_confirmation(&self, datagram: [u8; 4]) -> bool {
        let flags = datagram[0];
        flags & Flags::RESERVED_MASK == 0
            && flags & Flags::ACK.bits() != 0
            && flags & Flags::END.bits() == 0
            && datagram[1] == PROBE_CHUNK
            && u16::from_be_bytes([datagram[2], datagram[3]]) == self.probe_sequence
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

/// A probe-shaped salt: the reserved nibble, `REL | ACK`, chunk 255, the probe's sequence.
fn probe_salt(nibble: u8, sequence: u16) -> [u8; 4] {
    let [hi, lo] = sequence.to_be_bytes();
    [nibble << 4 | PROBE_FLAGS, PROBE_CHUNK, hi, lo]
}
