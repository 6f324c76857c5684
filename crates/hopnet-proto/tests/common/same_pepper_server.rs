//! A server that reads the spec's "Connections" as the strict reader does in every respect but
//! one: the pepper. The spec has the server choose it; it does not say a new one per `Init`. So
//! this one chooses a pepper once per address and keeps it: while it waits for the
//! `ChallengeResponse`, any 4-byte datagram that is not the expected response is a new `Init`,
//! answered with the **same** `Challenge` (the expected response becomes that salt XOR the
//! pepper). A client that answers each pepper only once never connects to it once its first
//! response is lost (PROTOCOL.md, "The client's handshake").
//!
//! Once a response verifies, the connection is the strict reader's (`strict_server.rs`): the
//! same packet rules, echo and 15 s silence, so that everything a client sends after the
//! handshake is held to the strictest reading. A response that arrives after acceptance (equal
//! to a seasoning this address was asked for) is counted: the server reads it as a packet.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::time::Instant;

use hopnet_proto::{Machine, Transmit};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::strict_server::StrictServer;

/// What the handshake side saw, beside the strict reader's own statistics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SamePepperStats {
    /// `Challenge`s sent again with a pepper already sent to that address.
    pub rechallenges: u64,
    /// Datagrams from an address without a connection that were not 4 bytes long.
    pub not_handshakes: u64,
    /// `ChallengeResponse`s (for this or an earlier salt) that arrived once the connection was
    /// open, and were read as packets.
    pub late_responses: u64,
}

/// One address's handshake: its pepper, and the responses it was asked for.
#[derive(Debug)]
struct Handshake {
    pepper: [u8; 4],
    /// The seasoning of the latest `Init`: the response that opens the connection.
    expected: [u8; 4],
    /// Every seasoning asked for, to recognise a late response.
    asked: Vec<[u8; 4]>,
}

/// The same-pepper server. Drive it like [`hopnet::Server`] (it implements [`Machine`]).
#[derive(Debug)]
pub struct SamePepperServer {
    rng: SmallRng,
    handshakes: HashMap<SocketAddr, Handshake>,
    challenges: VecDeque<(SocketAddr, [u8; 4])>,
    /// The connections, once open: the strict reader's.
    pub inner: StrictServer,
    /// What the handshake side saw.
    pub stats: SamePepperStats,
}

impl SamePepperServer {
    pub fn new(seed: u64) -> SamePepperServer {
        SamePepperServer {
            rng: SmallRng::seed_from_u64(seed ^ 0x9e99e7),
            handshakes: HashMap::new(),
            challenges: VecDeque::new(),
            inner: StrictServer::new(seed),
            stats: SamePepperStats::default(),
        }
    }

    /// Everything it objects to: the strict reader's violations, connections it forgot or that
    /// were closed, and late responses.
    pub fn objections(&self) -> u64 {
        let s = &self.inner.stats;
        s.violations() + s.timed_out + s.closed_by_end + self.stats.late_responses
    }
}

fn xor(a: [u8; 4], b: [u8; 4]) -> [u8; 4] {
    std::array::from_fn(|i| a[i] ^ b[i])
}

impl Machine for SamePepperServer {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if self.inner.is_open(from) {
            let late = self
                .handshakes
                .get(&from)
                .is_some_and(|h| <[u8; 4]>::try_from(datagram).is_ok_and(|d| h.asked.contains(&d)));
            if late {
                self.stats.late_responses += 1;
            }
            self.inner.handle(now, from, datagram);
            return;
        }
        let Ok(datagram) = <[u8; 4]>::try_from(datagram) else {
            self.stats.not_handshakes += 1;
            return;
        };
        if let Some(h) = self.handshakes.get_mut(&from)
            && h.expected == datagram
        {
            self.inner.stats.accepted += 1;
            self.inner.open(now, from);
            return;
        }
        // An Init: the first from this address, or any datagram that is not the response.
        let fresh: [u8; 4] = self.rng.random();
        let h = self.handshakes.entry(from).or_insert(Handshake {
            pepper: fresh,
            expected: [0; 4],
            asked: Vec::new(),
        });
        if !h.asked.is_empty() {
            self.stats.rechallenges += 1;
        }
        h.expected = xor(datagram, h.pepper);
        h.asked.push(h.expected);
        self.challenges.push_back((from, h.pepper));
    }

    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>, max: usize) -> Option<Transmit> {
        let Some((destination, pepper)) = self.challenges.pop_front() else {
            return self.inner.poll_transmit(now, buf, max);
        };
        buf.clear();
        buf.extend_from_slice(&pepper);
        Some(Transmit {
            destination,
            size: 4,
            segment_size: 4,
        })
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.inner.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.inner.handle_timeout(now);
    }
}
