//! The server: many connections keyed by peer address, and the stateless handshake.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::SocketAddr;
use std::time::Instant;

use rand::{Rng, SeedableRng, rngs::StdRng};

use crate::config::Config;
use crate::connection::Connection;
use crate::error::Error;
use crate::event::{ConnectionId, Delivery, DisconnectReason, Event, MessageId, ServerEvent};
use crate::ext::Extensions;
use crate::handshake::cookie::CookieJar;
use crate::machine::Machine;
use crate::packet::{HEADER_LEN, Header, is_handshake_shaped, is_probe};
use crate::payload::{Data, Payload};
use crate::spares::Spares;
use crate::stats::{ServerStats, Stats};
use crate::transmit::Transmit;

#[derive(Debug)]
struct Peer {
    core: Connection,
    in_ready: bool,
}

/// A server endpoint: accepts handshakes and runs a connection per verified peer address.
///
/// It never reads a clock or touches a socket; drive it like [`Client`](crate::Client).
#[derive(Debug)]
pub struct Server {
    config: Config,
    cookies: CookieJar,
    by_addr: HashMap<SocketAddr, ConnectionId>,
    /// The peer of the last datagram, so that a run of datagrams from one peer (a received
    /// batch) hashes its address once. Cleared whenever `by_addr` changes.
    last_peer: Option<(SocketAddr, ConnectionId)>,
    peers: BTreeMap<ConnectionId, Peer>,
    next_id: u64,
    /// Challenges to send: the destination and the 4-byte `Challenge`.
    out: VecDeque<(SocketAddr, [u8; 4])>,
    ready: VecDeque<ConnectionId>,
    cursor: u64,
    stats: ServerStats,
    /// Buffers handed back with [`recycle`](Server::recycle), for every connection.
    spares: Spares,
    /// The connections' ids for a pass over all of them that may remove some (the timers),
    /// kept between passes so that a pass allocates nothing.
    pass: Vec<ConnectionId>,
}

impl Server {
    /// An endpoint whose cookie key comes from the thread's random generator.
    pub fn new(config: Config) -> Server {
        Self::with_rng(config, &mut rand::rng())
    }

    /// An endpoint with a cookie key from a seeded generator (deterministic tests).
    pub fn with_seed(config: Config, seed: u64) -> Server {
        Self::with_rng(config, &mut StdRng::seed_from_u64(seed))
    }

    fn with_rng(config: Config, rng: &mut impl Rng) -> Server {
        Server {
            cookies: CookieJar::new(rng.random(), config.cookie_lifetime),
            config,
            by_addr: HashMap::new(),
            last_peer: None,
            peers: BTreeMap::new(),
            next_id: 0,
            out: VecDeque::new(),
            ready: VecDeque::new(),
            cursor: 0,
            stats: ServerStats::default(),
            pass: Vec::new(),
            spares: Spares::received(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Opens a connection to `peer`, whose handshake is done: it starts in the data phase and
    /// reports [`Event::Connected`]. `last` is the size of the handshake's last datagram, counted
    /// as received (none in secure mode, whose handshake is netcode's, below). `None` when the
    /// endpoint is full or `peer` already has a connection.
    fn open(
        &mut self,
        now: Instant,
        peer: SocketAddr,
        last: Option<usize>,
    ) -> Option<ConnectionId> {
        if self.by_addr.contains_key(&peer) || self.peers.len() >= self.config.max_connections {
            self.stats.refused_full += 1;
            return None;
        }
        let id = ConnectionId(self.next_id);
        self.next_id += 1;
        let mut core = Connection::new(peer, &self.config, now, false, true);
        if let Some(len) = last {
            core.count_received(now, len);
        }
        core.push_event(Event::Connected);
        self.peers.insert(
            id,
            Peer {
                core,
                in_ready: false,
            },
        );
        self.by_addr.insert(peer, id);
        self.last_peer = None;
        self.stats.connections_accepted += 1;
        self.after_activity(id);
        Some(id)
    }

    fn after_activity(&mut self, id: ConnectionId) {
        let Some(peer) = self.peers.get_mut(&id) else {
            return;
        };
        if peer.core.has_events() && !peer.in_ready {
            peer.in_ready = true;
            self.ready.push_back(id);
        }
        if peer.core.is_closed() && self.by_addr.get(&peer.core.peer) == Some(&id) {
            self.by_addr.remove(&peer.core.peer);
            self.last_peer = None;
        }
        self.maybe_remove(id);
    }

    fn maybe_remove(&mut self, id: ConnectionId) {
        let done = self
            .peers
            .get(&id)
            .is_some_and(|p| p.core.is_closed() && !p.core.has_events() && !p.core.has_output());
        if done {
            self.peers.remove(&id);
        }
    }

    /// The next event on any connection (connections take turns).
    pub fn poll_event(&mut self) -> Option<ServerEvent> {
        while let Some(id) = self.ready.pop_front() {
            let Some(peer) = self.peers.get_mut(&id) else {
                continue;
            };
            let Some(event) = peer.core.poll_event() else {
                peer.in_ready = false;
                continue;
            };
            let peer_addr = peer.core.peer;
            if peer.core.has_events() {
                self.ready.push_back(id);
            } else {
                peer.in_ready = false;
            }
            self.maybe_remove(id);
            return Some(ServerEvent {
                connection: id,
                peer: peer_addr,
                event,
            });
        }
        None
    }

    /// Hands back the buffer of a message the application has read (the `bytes` of an
    /// [`Event::Message`]), so that a later message, on any connection, is copied into it
    /// rather than into a new allocation. Optional, and bounded: see
    /// [`Client::recycle`](crate::Client::recycle).
    ///
    /// ```
    /// use hopnet_proto::sim::Pair;
    /// use hopnet_proto::{Config, Delivery, Event};
    ///
    /// let mut pair = Pair::new(Config::default());
    /// pair.client().send(b"ping", Delivery::Reliable).unwrap();
    /// pair.drive();
    /// while let Some(ev) = pair.server().poll_event() {
    ///     if let Event::Message { bytes, .. } = ev.event {
    ///         assert_eq!(bytes, b"ping");
    ///         pair.server().recycle(bytes);
    ///     }
    /// }
    /// ```
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        self.spares.give(bytes);
    }

    /// Queues a message on a connection.
    pub fn send(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.core_mut(id)?
            .send(Data::Borrowed(bytes), delivery)
            .map(drop)
    }

    /// Queues a message held in shared bytes on a connection, without copying them: sending
    /// one [`Payload`] to every connection copies it zero times.
    pub fn send_payload(
        &mut self,
        id: ConnectionId,
        payload: &Payload,
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.core_mut(id)?
            .send(Data::Shared(payload), delivery)
            .map(drop)
    }

    /// Queues a [`Delivery::Tracked`] message on a connection; its [`Event::Acknowledged`] or
    /// [`Event::Lost`] will name the id returned.
    pub fn send_tracked(&mut self, id: ConnectionId, bytes: &[u8]) -> Result<MessageId, Error> {
        let sent = self
            .core_mut(id)?
            .send(Data::Borrowed(bytes), Delivery::Tracked);
        // Past `max_tracked` the oldest tracked message is pushed out: its `Lost` is due now.
        self.after_activity(id);
        sent
    }

    /// Queues a [`Delivery::Tracked`] message held in shared bytes on a connection.
    pub fn send_payload_tracked(
        &mut self,
        id: ConnectionId,
        payload: &Payload,
    ) -> Result<MessageId, Error> {
        let sent = self
            .core_mut(id)?
            .send(Data::Shared(payload), Delivery::Tracked);
        // Past `max_tracked` the oldest tracked message is pushed out: its `Lost` is due now.
        self.after_activity(id);
        sent
    }

    /// The extensions a connection agreed to, if any.
    pub fn extensions(&self, id: ConnectionId) -> Option<Extensions> {
        self.peers.get(&id).and_then(|p| p.core.extensions())
    }

    fn core_mut(&mut self, id: ConnectionId) -> Result<&mut Connection, Error> {
        let peer = self.peers.get_mut(&id);
        Ok(&mut peer.ok_or(Error::UnknownConnection(id))?.core)
    }

    /// Closes a connection: sends `END`; its [`Event::Disconnected`] follows.
    pub fn close(&mut self, id: ConnectionId) -> Result<(), Error> {
        self.core_mut(id)?
            .close_with(DisconnectReason::LocalClose, true);
        self.after_activity(id);
        Ok(())
    }

    /// Statistics of one connection.
    pub fn stats(&self, id: ConnectionId) -> Option<Stats> {
        self.peers.get(&id).map(|p| p.core.stats())
    }

    /// Statistics of the endpoint.
    pub fn server_stats(&self) -> ServerStats {
        let mut s = self.stats.clone();
        s.connections = self.peers.values().filter(|p| !p.core.is_closed()).count() as u64;
        s
    }

    /// The peer address of a connection.
    pub fn peer(&self, id: ConnectionId) -> Option<SocketAddr> {
        self.peers.get(&id).map(|p| p.core.peer)
    }

    /// The connection of a peer address, if one is open.
    pub fn connection_of(&self, addr: SocketAddr) -> Option<ConnectionId> {
        self.by_addr.get(&addr).copied()
    }

    /// The open connections.
    pub fn connections(&self) -> impl Iterator<Item = ConnectionId> + '_ {
        self.peers
            .iter()
            .filter(|(_, p)| !p.core.is_closed())
            .map(|(&id, _)| id)
    }

    /// Datagrams waiting in the endpoint's own queue (challenges): bounded by
    /// `max_queued_datagrams`.
    pub fn queued_challenges(&self) -> usize {
        self.out.len()
    }
}

/// Entry points for secure mode (`crate::secure`), whose netcode handshake authenticates a peer
/// before the endpoint sees it and replaces the spec's `Init` / `Challenge`.
impl Server {
    /// Opens a connection to `peer`, already authenticated below: it starts in the data phase
    /// and reports [`Event::Connected`]. `None` when the endpoint is full or `peer` already has
    /// a connection.
    pub(crate) fn open_authenticated(
        &mut self,
        now: Instant,
        peer: SocketAddr,
    ) -> Option<ConnectionId> {
        self.open(now, peer, None)
    }

    /// How many connections are open (the secure server compares it with its netcode clients,
    /// to learn without a pass over them whether a connection closed).
    pub(crate) fn open_connections(&self) -> usize {
        self.by_addr.len()
    }

    /// Ends a connection whose layer below has ended (its peer closed, timed out, or was
    /// disconnected there), sending nothing: nothing could reach the peer any more.
    pub(crate) fn end_authenticated(&mut self, id: ConnectionId, reason: DisconnectReason) {
        if let Some(peer) = self.peers.get_mut(&id) {
            peer.core.close_with(reason, false);
        }
        self.after_activity(id);
    }
}

/// The [`Machine`] surface, what a driver, the simulator or a generic loop calls.
impl Machine for Server {
    /// Takes a datagram received from `from`. Never fails: anything unexpected is counted in
    /// [`ServerStats::malformed`] and dropped.
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        self.stats.datagrams_received += 1;
        let four: Option<[u8; 4]> = datagram.try_into().ok();
        let known = match self.last_peer {
            Some((addr, id)) if addr == from => Some(id),
            _ => self.by_addr.get(&from).copied(),
        };
        if let Some(id) = known {
            let Some(peer) = self.peers.get_mut(&id) else {
                self.by_addr.remove(&from);
                self.last_peer = None;
                return;
            };
            self.last_peer = Some((from, id));
            match four {
                Some(v) if is_probe(v) || is_handshake_shaped(v) => {
                    // A client's probe (or a repeated Init or ChallengeResponse, or an earlier
                    // version's probe): it has not seen us accept. Acknowledge it as any
                    // conforming peer acknowledges a `REL` chunk, store nothing, and let it
                    // not count as life: a client that restarted on this address must not
                    // keep its predecessor's connection open forever.
                    peer.core.count_handshake(v.len());
                    let [_, chunk, hi, lo] = v;
                    let ack = Header::ack(chunk, u16::from_be_bytes([hi, lo]));
                    peer.core.queue_control(ack.encode());
                }
                _ if datagram.len() < HEADER_LEN => peer.core.count_malformed(),
                _ => peer.core.handle_datagram(now, datagram, &mut self.spares),
            }
            self.after_activity(id);
            return;
        }
        let Some(value) = four else {
            self.stats.malformed += 1;
            return;
        };
        if self.cookies.verify(now, from, value) {
            // Like the spec's server, we answer nothing: the client's probe asks for a
            // confirmation (PROTOCOL.md, "The client's handshake").
            self.open(now, from, Some(value.len()));
            return;
        }
        // An Init. Answer with a challenge of the same size (no amplification), storing nothing.
        if self.peers.len() >= self.config.max_connections {
            self.stats.refused_full += 1;
            return;
        }
        if self.out.len() >= self.config.max_queued_datagrams {
            self.stats.challenges_dropped += 1;
            return;
        }
        let pepper = self.cookies.challenge(now, from, value);
        self.out.push_back((from, pepper));
        self.stats.challenges_sent += 1;
    }

    /// Runs the timers that have expired at `now` on every connection.
    fn handle_timeout(&mut self, now: Instant) {
        let mut ids = std::mem::take(&mut self.pass);
        ids.clear();
        ids.extend(self.peers.keys().copied());
        for &id in &ids {
            if let Some(peer) = self.peers.get_mut(&id) {
                peer.core.handle_timeout(now);
            }
            self.after_activity(id);
        }
        self.pass = ids;
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    fn poll_timeout(&self) -> Option<Instant> {
        self.peers
            .values()
            .filter_map(|p| p.core.poll_timeout())
            .min()
    }

    /// Writes the next datagram, or a batch of up to `max_datagrams` equal-sized datagrams to
    /// one connection (the last may be shorter, see [`Transmit`]), into `buf` (cleared
    /// first), and says where it goes: challenges first, then the connections in turn, one
    /// batch each. Nothing is allocated per datagram.
    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        buf.clear();
        if let Some((destination, challenge)) = self.out.pop_front() {
            buf.extend_from_slice(&challenge);
            return Some(Transmit::single(destination, buf.len()));
        }
        // Round robin from the connection after the last one that sent, without allocating.
        let cursor = ConnectionId(self.cursor);
        let mut found = None;
        for (&id, peer) in self.peers.range_mut(cursor..) {
            if let Some(segment) = peer.core.transmit(now, buf, max_datagrams) {
                found = Some((id, peer.core.peer, segment));
                break;
            }
        }
        if found.is_none() {
            for (&id, peer) in self.peers.range_mut(..cursor) {
                if let Some(segment) = peer.core.transmit(now, buf, max_datagrams) {
                    found = Some((id, peer.core.peer, segment));
                    break;
                }
            }
        }
        let (id, destination, segment_size) = found?;
        self.cursor = id.0 + 1;
        self.maybe_remove(id);
        Some(Transmit {
            destination,
            size: buf.len(),
            segment_size,
        })
    }
}
