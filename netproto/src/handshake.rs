//! The `Init` / `Challenge` / `ChallengeResponse` handshake: bare 4-byte big-endian datagrams.
//!
//! The server keeps no state per `Init`. It derives the expected `Seasoning` from a keyed hash
//! (SipHash-2-4) of the client's address and a time bucket, and answers with
//! `Pepper = Salt XOR Seasoning`; a client that really sent the `Salt` from that address and
//! receives there computes `Salt XOR Pepper = Seasoning`, which the server recomputes to verify.
//! The pepper is as unpredictable to the client as a random one (the key is random and secret),
//! a flood of spoofed `Init`s costs the server no memory at all, and a real client is never
//! locked out by it: the "table of half-open handshakes" is bounded at zero entries, and it
//! expires after one to two cookie lifetimes.
//!
//! Both the seasoning and the pepper are chosen with a reserved flag bit set in their first
//! byte, so neither can be mistaken for a packet header once the connection is up
//! (see PROTOCOL.md, "the 4-byte rule").

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::packet::Flags;

/// Length of every handshake datagram.
pub const HANDSHAKE_LEN: usize = 4;

/// SipHash-2-4 of `data` under a 128-bit key: a keyed pseudo-random function, so that nobody
/// without the key can predict a seasoning.
pub(crate) fn siphash24(key: [u64; 2], data: &[u8]) -> u64 {
    let mut v = [
        key[0] ^ 0x736f_6d65_7073_6575,
        key[1] ^ 0x646f_7261_6e64_6f6d,
        key[0] ^ 0x6c79_6765_6e65_7261,
        key[1] ^ 0x7465_6462_7974_6573,
    ];
    fn round(v: &mut [u64; 4]) {
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    }
    let mut blocks = data.chunks_exact(8);
    for block in &mut blocks {
        let mut word = [0u8; 8];
        word.copy_from_slice(block);
        let m = u64::from_le_bytes(word);
        v[3] ^= m;
        round(&mut v);
        round(&mut v);
        v[0] ^= m;
    }
    let mut last = [0u8; 8];
    let rest = blocks.remainder();
    last[..rest.len()].copy_from_slice(rest);
    last[7] = data.len() as u8;
    let m = u64::from_le_bytes(last);
    v[3] ^= m;
    round(&mut v);
    round(&mut v);
    v[0] ^= m;
    v[2] ^= 0xff;
    for _ in 0..4 {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

fn xor(a: [u8; 4], b: [u8; 4]) -> [u8; 4] {
    [a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2], a[3] ^ b[3]]
}

/// The server's stateless challenge cookies.
#[derive(Debug, Clone)]
pub(crate) struct CookieJar {
    key: [u64; 2],
    epoch: Option<Instant>,
    lifetime: Duration,
}

impl CookieJar {
    pub fn new(key: [u64; 2], lifetime: Duration) -> CookieJar {
        CookieJar {
            key,
            epoch: None,
            lifetime,
        }
    }

    fn bucket(&mut self, now: Instant) -> u64 {
        let epoch = *self.epoch.get_or_insert(now);
        let elapsed = now.saturating_duration_since(epoch).as_millis();
        let lifetime = self.lifetime.as_millis().max(1);
        (elapsed / lifetime) as u64
    }

    /// The two seasonings valid for `addr` in `bucket`: both with a reserved bit set in the
    /// first byte, with different high nibbles so that one of them always yields a pepper
    /// with a reserved bit too.
    fn seasonings(&self, addr: SocketAddr, bucket: u64) -> [[u8; 4]; 2] {
        let mut data = [0u8; 16 + 2 + 8 + 1];
        let mut len = 0;
        match addr {
            SocketAddr::V4(a) => {
                data[..4].copy_from_slice(&a.ip().octets());
                len += 4;
            }
            SocketAddr::V6(a) => {
                data[..16].copy_from_slice(&a.ip().octets());
                len += 16;
            }
        }
        data[len..len + 2].copy_from_slice(&addr.port().to_be_bytes());
        len += 2;
        data[len..len + 8].copy_from_slice(&bucket.to_be_bytes());
        len += 8;
        data[len] = u8::from(addr.is_ipv6());
        len += 1;
        let base = (siphash24(self.key, &data[..len]) as u32).to_be_bytes();
        let nib0 = (base[0] >> 4) % 15 + 1;
        let nib1 = nib0 % 15 + 1;
        let low = base[0] & 0x0f;
        [
            [nib0 << 4 | low, base[1], base[2], base[3]],
            [nib1 << 4 | low, base[1], base[2], base[3]],
        ]
    }

    /// The `Challenge` for an `Init` carrying `salt` from `addr`: returns the pepper.
    pub fn challenge(&mut self, now: Instant, addr: SocketAddr, salt: [u8; 4]) -> [u8; 4] {
        let bucket = self.bucket(now);
        let [s0, s1] = self.seasonings(addr, bucket);
        let seasoning = if salt[0] >> 4 == s0[0] >> 4 { s1 } else { s0 };
        xor(salt, seasoning)
    }

    /// Whether `value` from `addr` is a valid `ChallengeResponse` (for a challenge sent in
    /// this time bucket or the previous one).
    pub fn verify(&mut self, now: Instant, addr: SocketAddr, value: [u8; 4]) -> bool {
        let bucket = self.bucket(now);
        let current = self.seasonings(addr, bucket);
        if current.contains(&value) {
            return true;
        }
        bucket > 0 && self.seasonings(addr, bucket - 1).contains(&value)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::is_handshake_shaped;

    #[test]
    fn siphash_reference_vectors() {
        let key = [0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908];
        assert_eq!(siphash24(key, &[]), 0x726f_db47_dd0e_0e31);
        let data: Vec<u8> = (0..15).collect();
        assert_eq!(siphash24(key, &data), 0xa129_ca61_49be_45e5);
    }

    #[test]
    fn cookie_roundtrip_and_shape() {
        let now = Instant::now();
        let mut jar = CookieJar::new([1, 2], Duration::from_secs(10));
        let addr: SocketAddr = "10.0.0.2:4000".parse().unwrap();
        for salt0 in 0..=255u8 {
            let salt = [salt0, 1, 2, 3];
            let pepper = jar.challenge(now, addr, salt);
            let seasoning = xor(salt, pepper);
            assert!(is_handshake_shaped(pepper));
            assert!(is_handshake_shaped(seasoning));
            assert!(jar.verify(now + Duration::from_secs(15), addr, seasoning));
            assert!(!jar.verify(now + Duration::from_secs(25), addr, seasoning));
            let other: SocketAddr = "10.0.0.3:4000".parse().unwrap();
            assert!(!jar.verify(now, other, seasoning));
        }
    }
}
