//! A server written from the spec's text alone, as its strictest reader takes it: neither the
//! spec author's implementation (see `original_server.rs`) nor ours. It is the third kind of
//! server our client must connect to (PROTOCOL.md, "The client's handshake"). Each rule is a
//! reading of a sentence of `game-protocol.md`:
//!
//! - "Connections": the first datagram from an address is its `Init`, a single 32-bit integer,
//!   so exactly 4 bytes (any other size is refused and forgotten); the server answers with a
//!   random `Challenge`. The next datagram is the `ChallengeResponse`: 4 bytes equal to salt
//!   XOR pepper open the connection, anything else fails the handshake and the address is
//!   forgotten, so the datagram after it is a new `Init`. Nothing is sent on success.
//! - "`ACK`: this packet acknowledges a previously sent packet": a packet with `ACK` is an
//!   acknowledgement and nothing else, whatever other flags it has. `REL | ACK` is not
//!   answered, and counted.
//! - "`RESERVED`": a conforming sender keeps these bits zero, so a packet with one set is a
//!   protocol violation: counted and dropped.
//! - "Each sequence consists of up to 256 individual chunks" and "the sender must mark the
//!   packet that contains the last chunk in the sequence with the `FIN` flag": chunk 255 can
//!   only be the last, so a packet naming chunk 255 without `FIN`, whatever its other flags,
//!   is a violation. So are breaches of "every chunk must be 504 bytes except for the last": a
//!   chunk over 504 bytes, a non-final one of any other size, a second `FIN` at another index,
//!   a chunk past the `FIN`.
//! - "the receiver should immediately send back another packet with the `ACK` flag set as well
//!   as `Chunk` and `Sequence` set to the same values": `ACK` with chunk and sequence copied,
//!   and the packet's own `FIN` (so that its acknowledgement of chunk 255 breaks none of its own
//!   rules). A packet that breaks a rule is not acknowledged.
//! - "If the client or server does not receive a packet from the other side for more than 15
//!   seconds, the connection is considered closed": a violation is not a packet it accepts, so
//!   only valid packets keep a connection (or a handshake) open; after 15 s without one the
//!   server forgets it, silently (the spec asks for no `END`).
//! - A packet with `END` closes the connection.
//!
//! As an application it echoes every payload back, reliably if it came reliably, resending each
//! unacknowledged chunk every 200 ms (the sending half it shares with the model of the
//! original, `echo_out.rs`: how a payload becomes the spec's chunks is not what this reader
//! checks). A payload is handed up once; it remembers every sequence it handed up (no test here
//! sends 65,536 messages, so the wrap is not handled).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet_proto::{Machine, Transmit};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::echo_out::{ACK, CHUNK, END, Echoes, FIN, Outbox, REL, RESERVED, pop_into};

const RESEND: Duration = Duration::from_millis(200);
const SILENCE: Duration = Duration::from_secs(15);

/// What the server saw, for the tests' assertions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StrictStats {
    /// Handshakes verified.
    pub accepted: u64,
    /// Handshakes failed: a wrong `ChallengeResponse`, or an `Init` of another size.
    pub failed_handshakes: u64,
    /// Packets with a reserved flag bit set.
    pub reserved_bits: u64,
    /// Packets naming chunk 255 without `FIN`.
    pub chunk_255_without_fin: u64,
    /// Packets with both `REL` and `ACK`: taken as an acknowledgement only, never answered.
    pub rel_ack: u64,
    /// Chunks that break the spec's size or `FIN` rules, and datagrams shorter than a header.
    pub bad_chunks: u64,
    /// Connections forgotten after 15 s without a valid packet.
    pub timed_out: u64,
    /// Connections closed by an `END` from the client.
    pub closed_by_end: u64,
    /// Payloads received and echoed.
    pub echoed: u64,
}

impl StrictStats {
    /// Every packet the server objected to: what a client must never send it.
    pub fn violations(&self) -> u64 {
        self.reserved_bits + self.chunk_255_without_fin + self.rel_ack + self.bad_chunks
    }
}

#[derive(Debug)]
enum Peer {
    AwaitingResponse { expected: [u8; 4], since: Instant },
    Open(Box<Open>),
}

#[derive(Debug)]
struct Open {
    last_valid: Instant,
    partial: HashMap<u16, Partial>,
    delivered: HashSet<u16>,
    echoes: Echoes,
}

#[derive(Debug, Default)]
struct Partial {
    chunks: BTreeMap<u8, Vec<u8>>,
    last: Option<u8>,
    reliable: bool,
}

/// The strict server. Drive it like [`hopnet_proto::Server`] (it implements [`Machine`]).
#[derive(Debug)]
pub struct StrictServer {
    rng: SmallRng,
    peers: BTreeMap<SocketAddr, Peer>,
    out: Outbox,
    /// What happened so far.
    pub stats: StrictStats,
}

impl StrictServer {
    pub fn new(seed: u64) -> StrictServer {
        StrictServer {
            rng: SmallRng::seed_from_u64(seed),
            peers: BTreeMap::new(),
            out: Outbox::new(),
            stats: StrictStats::default(),
        }
    }

    /// The rules a packet must keep to be read at all; `None` if it breaks one (counted).
    fn check(&mut self, datagram: &[u8]) -> Option<(u8, u8, u16, Vec<u8>)> {
        let Some((head, body)) = datagram.split_first_chunk::<4>() else {
            self.stats.bad_chunks += 1;
            return None;
        };
        let [flags, chunk, hi, lo] = *head;
        if flags & RESERVED != 0 {
            self.stats.reserved_bits += 1;
            return None;
        }
        if chunk == 255 && flags & FIN == 0 {
            self.stats.chunk_255_without_fin += 1;
            return None;
        }
        Some((flags, chunk, u16::from_be_bytes([hi, lo]), body.to_vec()))
    }

    fn on_packet(&mut self, now: Instant, from: SocketAddr, mut open: Box<Open>, datagram: &[u8]) {
        let Some((flags, chunk, sequence, body)) = self.check(datagram) else {
            self.peers.insert(from, Peer::Open(open));
            return;
        };
        if flags & END != 0 {
            self.stats.closed_by_end += 1;
            return;
        }
        if flags & ACK != 0 {
            if flags & REL != 0 {
                self.stats.rel_ack += 1;
            }
            open.last_valid = now;
            open.echoes.acked(sequence, chunk);
            self.peers.insert(from, Peer::Open(open));
            return;
        }
        if !chunk_fits(&open, flags, chunk, sequence, &body) {
            self.stats.bad_chunks += 1;
            self.peers.insert(from, Peer::Open(open));
            return;
        }
        open.last_valid = now;
        if flags & REL != 0 {
            let [hi, lo] = sequence.to_be_bytes();
            self.out
                .push_back((from, vec![ACK | (flags & FIN), chunk, hi, lo]));
        }
        if !open.delivered.contains(&sequence) {
            let partial = open.partial.entry(sequence).or_default();
            partial.chunks.insert(chunk, body);
            partial.reliable |= flags & REL != 0;
            if flags & FIN != 0 {
                partial.last = Some(chunk);
            }
            let complete = partial
                .last
                .is_some_and(|last| partial.chunks.len() == usize::from(last) + 1);
            if complete {
                let partial = open.partial.remove(&sequence).unwrap_or_default();
                open.delivered.insert(sequence);
                let payload: Vec<u8> = partial.chunks.into_values().flatten().collect();
                self.stats.echoed += 1;
                for datagram in open.echoes.send(now, &payload, partial.reliable) {
                    self.out.push_back((from, datagram));
                }
            }
        }
        self.peers.insert(from, Peer::Open(open));
    }
}

/// Whether a chunk keeps the spec's rules for its sequence so far: at most 504 bytes, exactly
/// 504 unless final, one `FIN` index, no chunk past it.
fn chunk_fits(open: &Open, flags: u8, chunk: u8, sequence: u16, body: &[u8]) -> bool {
    let fin = flags & FIN != 0;
    if body.len() > CHUNK || (!fin && body.len() != CHUNK) {
        return false;
    }
    let Some(partial) = open.partial.get(&sequence) else {
        return true;
    };
    match partial.last {
        Some(last) if fin => chunk == last,
        Some(last) => chunk < last,
        None => !fin || partial.chunks.keys().all(|&c| c < chunk),
    }
}

impl StrictServer {
    /// Opens a connection to `from` as a verified handshake does: for a server that reads the
    /// handshake otherwise and this one's packets alike (`same_pepper_server.rs`).
    pub fn open(&mut self, now: Instant, from: SocketAddr) {
        let open = Open {
            last_valid: now,
            partial: HashMap::new(),
            delivered: HashSet::new(),
            echoes: Echoes::new(RESEND),
        };
        self.peers.insert(from, Peer::Open(Box::new(open)));
    }

    /// Whether `from` has an open connection.
    pub fn is_open(&self, from: SocketAddr) -> bool {
        matches!(self.peers.get(&from), Some(Peer::Open(_)))
    }
}

impl Machine for StrictServer {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        match self.peers.remove(&from) {
            None => {
                let Ok(salt) = <[u8; 4]>::try_from(datagram) else {
                    self.stats.failed_handshakes += 1;
                    return;
                };
                let pepper: [u8; 4] = self.rng.random();
                let expected = std::array::from_fn(|i| salt[i] ^ pepper[i]);
                let since = now;
                self.peers
                    .insert(from, Peer::AwaitingResponse { expected, since });
                self.out.push_back((from, pepper.to_vec()));
            }
            Some(Peer::AwaitingResponse { expected, .. }) => {
                if datagram == expected {
                    self.stats.accepted += 1;
                    self.open(now, from);
                } else {
                    self.stats.failed_handshakes += 1;
                }
            }
            Some(Peer::Open(open)) => self.on_packet(now, from, open, datagram),
        }
    }

    fn poll_transmit(&mut self, _now: Instant, buf: &mut Vec<u8>, _max: usize) -> Option<Transmit> {
        pop_into(&mut self.out, buf)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.peers
            .values()
            .map(|p| match p {
                Peer::AwaitingResponse { since, .. } => *since + SILENCE,
                Peer::Open(open) => {
                    let resend = open.echoes.next_resend();
                    let silence = open.last_valid + SILENCE;
                    resend.map_or(silence, |t| t.min(silence))
                }
            })
            .min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        let mut resend = Vec::new();
        let mut forget = Vec::new();
        for (addr, peer) in &mut self.peers {
            match peer {
                Peer::AwaitingResponse { since, .. } if now >= *since + SILENCE => {
                    forget.push(*addr);
                }
                Peer::AwaitingResponse { .. } => {}
                Peer::Open(open) if now >= open.last_valid + SILENCE => {
                    self.stats.timed_out += 1;
                    forget.push(*addr);
                }
                Peer::Open(open) => {
                    resend.extend(open.echoes.due(now).into_iter().map(|d| (*addr, d)));
                }
            }
        }
        for addr in forget {
            self.peers.remove(&addr);
        }
        self.out.extend(resend);
    }
}
