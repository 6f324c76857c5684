//! A server that speaks only the spec, modelled on its author's implementation (the `socket`
//! crate of nolanderc/snow-fight), for checking our client against it without that program.
//!
//! Where it matters to a client, it behaves as the original does:
//!
//! - The first datagram from an address (any of at least 4 bytes) is its `Init`: the server
//!   answers with a random `Challenge`. The next one, whatever its size, is read as the
//!   `ChallengeResponse` from its first 4 bytes. A wrong one fails the handshake: the datagram
//!   after that is dropped and the address forgotten, so the one after starts a new handshake.
//! - After verification it answers nothing, and parses every datagram as a packet, 4-byte ones
//!   included: `END` closes the connection; a chunk the original's reassembly rejects (an empty
//!   non-final chunk, one over 504 bytes, a non-final chunk 255) ends its connection task. Both
//!   are counted, as is every late `ChallengeResponse` (a 4-byte datagram equal to the accepted
//!   seasoning).
//! - Every `REL` chunk is acknowledged at once with `ACK | FIN`, chunk and sequence copied; an
//!   `ACK` stops the resending of that chunk and carries nothing else.
//! - Each reliable payload it receives is sent back reliably (an echo server on the original's
//!   `Client`), each chunk resent every 100 ms until acknowledged.
//!
//! Its reassembly is the original's `SequenceBuilder`: 1,024 slots, sequence `s` in slot
//! `s mod 1024`, a chunk of another sequence resets the slot, and a sequence 1,024 or more
//! ahead of the window's start moves the start up to it, clearing every slot it passes (so a
//! chunk that arrives very late can wipe messages in progress). A chunk that completes a
//! payload hands up every byte its slot holds. It ignores what no test here exercises (its
//! 15 s accept timeout).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet_proto::fuzzing::packet::Flags;
use hopnet_proto::{Machine, Transmit};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::echo_out::{CHUNK, Echoes, Outbox, pop_into};

const WINDOW: u16 = 1024;
const RETRANSMIT: Duration = Duration::from_millis(100);
const IDLE: Duration = Duration::from_secs(15);

/// What happened to the server's connections, for the tests' assertions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OriginalStats {
    /// Handshakes verified.
    pub accepted: u64,
    /// Handshakes failed on a wrong `ChallengeResponse`.
    pub failed_handshakes: u64,
    /// `ChallengeResponse`s that arrived after their connection was open.
    pub late_responses: u64,
    /// Connections closed by an `END` from the client.
    pub closed_by_end: u64,
    /// Connections whose task the original would have ended on a chunk error.
    pub broken: u64,
    /// Payloads received and echoed.
    pub echoed: u64,
}

#[derive(Debug)]
enum Peer {
    AwaitingResponse {
        expected: [u8; 4],
    },
    /// The original's connection task ended; its address entry goes with the next datagram.
    Gone,
    Open(Box<Open>),
}

#[derive(Debug)]
struct Open {
    seasoning: [u8; 4],
    /// The original's `SequenceBuilder`: the slot of sequence `s` is `s mod 1024`.
    slots: Vec<Slot>,
    window_start: u16,
    /// Our payloads, every chunk reliable.
    echoes: Echoes,
    last_recv: Instant,
}

#[derive(Debug, Default)]
struct Slot {
    sequence: Option<u16>,
    received: Vec<bool>,
    last: Option<u8>,
    payload: Vec<u8>,
    complete: bool,
}

/// The model server. Drive it like [`hopnet_proto::Server`] (it implements [`Machine`]).
#[derive(Debug)]
pub struct OriginalServer {
    rng: SmallRng,
    peers: HashMap<SocketAddr, Peer>,
    out: Outbox,
    /// What happened so far.
    pub stats: OriginalStats,
}

impl OriginalServer {
    pub fn new(seed: u64) -> OriginalServer {
        OriginalServer {
            rng: SmallRng::seed_from_u64(seed),
            peers: HashMap::new(),
            out: Outbox::new(),
            stats: OriginalStats::default(),
        }
    }

    fn send(&mut self, to: SocketAddr, contents: Vec<u8>) {
        self.out.push_back((to, contents));
    }
}

impl Machine for OriginalServer {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        let Some(peer) = self.peers.remove(&from) else {
            // A new address: this datagram is the Init (its first 4 bytes are the salt).
            let Some(salt) = datagram.first_chunk::<4>() else {
                // The original's accept fails to read it; the address is gone with the next.
                self.peers.insert(from, Peer::Gone);
                return;
            };
            let pepper: [u8; 4] = self.rng.random();
            let expected = std::array::from_fn(|i| salt[i] ^ pepper[i]);
            self.peers.insert(from, Peer::AwaitingResponse { expected });
            self.send(from, pepper.to_vec());
            return;
        };
        match peer {
            Peer::Gone => {}
            Peer::AwaitingResponse { expected } => {
                if datagram.first_chunk::<4>() == Some(&expected) {
                    self.stats.accepted += 1;
                    let open = Open {
                        seasoning: expected,
                        slots: (0..WINDOW).map(|_| Slot::default()).collect(),
                        window_start: 0,
                        echoes: Echoes::new(RETRANSMIT),
                        last_recv: now,
                    };
                    self.peers.insert(from, Peer::Open(Box::new(open)));
                } else {
                    self.stats.failed_handshakes += 1;
                    self.peers.insert(from, Peer::Gone);
                }
            }
            Peer::Open(mut open) => {
                if datagram == open.seasoning {
                    self.stats.late_responses += 1;
                }
                match self.on_packet(now, from, &mut open, datagram) {
                    Ok(()) => {
                        self.peers.insert(from, Peer::Open(open));
                    }
                    Err(ended) => {
                        match ended {
                            Ended::ByEnd => self.stats.closed_by_end += 1,
                            Ended::Broken => self.stats.broken += 1,
                        }
                        self.peers.insert(from, Peer::Gone);
                    }
                }
            }
        }
    }

    fn poll_transmit(&mut self, _now: Instant, buf: &mut Vec<u8>, _max: usize) -> Option<Transmit> {
        pop_into(&mut self.out, buf)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.peers
            .values()
            .filter_map(|p| match p {
                Peer::Open(open) => {
                    let resend = open.echoes.next_resend();
                    let idle = open.last_recv + IDLE;
                    Some(resend.map_or(idle, |t| t.min(idle)))
                }
                _ => None,
            })
            .min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        let mut resend = Vec::new();
        let mut idle = Vec::new();
        for (addr, peer) in &mut self.peers {
            let Peer::Open(open) = peer else { continue };
            if now >= open.last_recv + IDLE {
                idle.push(*addr);
                continue;
            }
            resend.extend(open.echoes.due(now).into_iter().map(|d| (*addr, d)));
        }
        for (addr, datagram) in resend {
            self.send(addr, datagram);
        }
        for addr in idle {
            self.send(addr, vec![(Flags::END | Flags::FIN).bits(), 0, 0, 0]);
            self.peers.insert(addr, Peer::Gone);
        }
    }
}

enum Ended {
    ByEnd,
    Broken,
}

impl OriginalServer {
    fn on_packet(
        &mut self,
        now: Instant,
        from: SocketAddr,
        open: &mut Open,
        datagram: &[u8],
    ) -> Result<(), Ended> {
        let Some((head, body)) = datagram.split_first_chunk::<4>() else {
            return Ok(());
        };
        let flags = Flags::from_bits_truncate(head[0]);
        let chunk = head[1];
        let sequence = u16::from_be_bytes([head[2], head[3]]);
        if flags.contains(Flags::END) {
            return Err(Ended::ByEnd);
        }
        open.last_recv = now;
        if flags.contains(Flags::REL) {
            self.send(
                from,
                vec![(Flags::ACK | Flags::FIN).bits(), chunk, head[2], head[3]],
            );
        }
        if flags.contains(Flags::ACK) {
            open.echoes.acked(sequence, chunk);
            return Ok(());
        }
        if let Some(payload) = insert_chunk(open, flags, chunk, sequence, body)? {
            self.stats.echoed += 1;
            self.echo(now, from, open, &payload);
        }
        Ok(())
    }

    fn echo(&mut self, now: Instant, to: SocketAddr, open: &mut Open, payload: &[u8]) {
        for datagram in open.echoes.send(now, payload, true) {
            self.send(to, datagram);
        }
    }
}

/// The original's `SequenceBuilder::insert` and `Sequence::insert_chunk`: an error ends the
/// connection task.
fn insert_chunk(
    open: &mut Open,
    flags: Flags,
    chunk: u8,
    sequence: u16,
    body: &[u8],
) -> Result<Option<Vec<u8>>, Ended> {
    while sequence.wrapping_sub(open.window_start) >= WINDOW {
        open.slots[usize::from(open.window_start % WINDOW)] = Slot::default();
        open.window_start = open.window_start.wrapping_add(1);
    }
    let slot = &mut open.slots[usize::from(sequence % WINDOW)];
    if slot.sequence != Some(sequence) {
        *slot = Slot {
            sequence: Some(sequence),
            ..Slot::default()
        };
    }
    if slot.complete {
        return Ok(None);
    }
    if body.len() > CHUNK {
        return Err(Ended::Broken);
    }
    if flags.contains(Flags::FIN) {
        slot.last = Some(chunk);
    } else if body.len() != CHUNK || chunk == u8::MAX {
        return Err(Ended::Broken);
    }
    let index = usize::from(chunk);
    if slot.received.len() <= index {
        slot.received.resize(index + 1, false);
    }
    slot.received[index] = true;
    let start = index * CHUNK;
    if slot.payload.len() < start + body.len() {
        slot.payload.resize(start + body.len(), 0);
    }
    slot.payload[start..start + body.len()].copy_from_slice(body);
    let complete = match slot.last {
        Some(last) => (0..=usize::from(last)).all(|i| slot.received.get(i) == Some(&true)),
        None => false,
    };
    if !complete {
        return Ok(None);
    }
    slot.complete = true;
    Ok(Some(std::mem::take(&mut slot.payload)))
}
