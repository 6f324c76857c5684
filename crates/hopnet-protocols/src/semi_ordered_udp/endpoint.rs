//! Peers by address: every datagram in, every datagram out, the timers. The roles (server,
//! client) decide what a delivered package leads to.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::time::Instant;

use hopnet::Transmit;
use hopnet::engine::U24;
use hopnet_formats::semi_ordered::{Datagram, Reliability};

use super::Config;
use super::inbound::Verdict;
use super::outbound::SendError;
use super::peer::Peer;

/// Events waiting for an application at most; while it is this far behind, packages are not
/// taken (reliable ones are not confirmed, so they come again; unreliable ones are dropped).
const MAX_EVENTS: usize = 65_536;

/// A package handed up, in delivery order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivered {
    /// Its sender.
    pub from: SocketAddr,
    /// How it was sent.
    pub reliability: Reliability,
    /// Whether it was for the server only.
    pub server_targeted: bool,
    /// Its id in its sender's numbering.
    pub id: u32,
    /// Its payload.
    pub payload: Vec<u8>,
}

impl Delivered {
    /// The package `datagram` is, from `from`.
    fn of(from: SocketAddr, datagram: Datagram) -> Option<Delivered> {
        match datagram {
            Datagram::Package {
                reliability,
                server_targeted,
                id,
                payload,
            } => Some(Delivered {
                from,
                reliability,
                server_targeted,
                id,
                payload,
            }),
            Datagram::Confirmation { .. } => None,
        }
    }
}

/// What an endpoint counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Counters {
    pub malformed: u64,
    pub refused_peers: u64,
    pub refused_packages: u64,
    pub forgotten: u64,
}

#[derive(Debug)]
pub(super) struct Endpoint {
    pub config: Config,
    pub peers: HashMap<SocketAddr, Peer>,
    pub counters: Counters,
    /// The latest instant the endpoint was told: what it has ready to send is due then.
    pub now: Option<Instant>,
    /// Released packages, reused between datagrams.
    released: Vec<(Vec<u8>, bool)>,
}

impl Endpoint {
    pub fn new(config: Config) -> Endpoint {
        Endpoint {
            config,
            peers: HashMap::new(),
            counters: Counters::default(),
            now: None,
            released: Vec::new(),
        }
    }

    /// The peer at `addr`, made if there is room.
    pub fn peer(&mut self, addr: SocketAddr, now: Instant) -> Option<&mut Peer> {
        if !self.peers.contains_key(&addr) && self.peers.len() >= self.config.max_peers {
            self.counters.refused_peers += 1;
            return None;
        }
        Some(
            self.peers
                .entry(addr)
                .or_insert_with(|| Peer::new(&self.config, now)),
        )
    }

    /// Queues a package to the known peer at `addr`; returns its id.
    pub fn send(
        &mut self,
        now: Instant,
        addr: SocketAddr,
        reliability: Reliability,
        server_targeted: bool,
        payload: &[u8],
    ) -> Result<u32, SendError> {
        self.now = Some(now);
        let peer = self.peers.get_mut(&addr).ok_or(SendError::UnknownPeer)?;
        Ok(peer
            .outbound
            .send(reliability, server_targeted, payload)?
            .get())
    }

    /// Reliable packages awaiting the confirmation of the peer at `addr` (none if unknown).
    pub fn unconfirmed(&self, addr: SocketAddr) -> usize {
        self.peers
            .get(&addr)
            .map_or(0, |p| p.outbound.unconfirmed())
    }

    /// Takes a datagram for an application, whose events wait in `events`: each package it
    /// hands up is pushed there as `event(package)`. While [`MAX_EVENTS`] are waiting, no
    /// reliable package is taken (it is not confirmed, so it comes again) and unreliable ones
    /// are dropped.
    pub fn handle_into<E>(
        &mut self,
        now: Instant,
        from: SocketAddr,
        bytes: &[u8],
        events: &mut VecDeque<E>,
        event: impl Fn(Delivered) -> E,
    ) {
        let full = events.len() >= MAX_EVENTS;
        self.handle(
            now,
            from,
            bytes,
            |_| !full,
            |_, package| {
                if events.len() < MAX_EVENTS || package.reliability != Reliability::Unreliable {
                    events.push_back(event(package));
                }
            },
        );
    }

    /// Takes a datagram; the packages it hands up go to `deliver`, in delivery order.
    /// `accept` says, before a reliable package is taken, whether the role has room for what
    /// it leads to (a refused one is not confirmed, so it comes again).
    pub fn handle(
        &mut self,
        now: Instant,
        from: SocketAddr,
        bytes: &[u8],
        accept: impl FnOnce(&mut Endpoint) -> bool,
        mut deliver: impl FnMut(&mut Endpoint, Delivered),
    ) {
        self.now = Some(now);
        let Ok(datagram) = hopnet_codec::from_bytes::<Datagram>(bytes) else {
            self.counters.malformed += 1;
            return;
        };
        if self.peer(from, now).is_none() {
            return;
        }
        let peer = self.peers.get_mut(&from).expect("made above");
        peer.last_heard = now;
        let (reliability, id) = match &datagram {
            Datagram::Confirmation { ids } => {
                for id in ids {
                    peer.outbound.confirmed(U24::new(id.0), now);
                }
                return;
            }
            Datagram::Package {
                reliability, id, ..
            } => (*reliability, U24::new(*id)),
        };
        if reliability == Reliability::Unreliable {
            if let Some(package) = Delivered::of(from, datagram) {
                deliver(self, package);
            }
            return;
        }
        let verdict = if accept(self) {
            // The orderer holds the datagram as it came, so that a package released later
            // still has its flags and id.
            let peer = self.peers.get_mut(&from).expect("made above");
            peer.inbound
                .reliable(id, reliability, bytes.to_vec(), &mut self.released)
        } else {
            Verdict::Refuse
        };
        match verdict {
            Verdict::Confirm => {
                let peer = self.peers.get_mut(&from).expect("made above");
                peer.confirmations.owe(id, now);
            }
            Verdict::Refuse => self.counters.refused_packages += 1,
        }
        let mut released = std::mem::take(&mut self.released);
        for (datagram, _) in released.drain(..) {
            let package = hopnet_codec::from_bytes::<Datagram>(&datagram)
                .ok()
                .and_then(|d| Delivered::of(from, d));
            if let Some(package) = package {
                deliver(self, package);
            }
        }
        self.released = released;
    }

    /// Writes the next datagram into `buf`: a due confirmation first, then packages.
    pub fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<Transmit> {
        self.now = Some(now);
        buf.clear();
        let delay = self.config.confirm_delay;
        for (&addr, peer) in self.peers.iter_mut() {
            let written = if let Some(confirmation) = peer.confirmations.take_due(now, delay)
                && hopnet_codec::encode_into(&confirmation, buf).is_ok()
            {
                true
            } else if peer.outbound.has_ready() && peer.outbound.write_next(now, buf) {
                true
            } else if peer
                .keepalive_due(&self.config)
                .is_some_and(|due| due <= now)
            {
                let keepalive = Datagram::Confirmation { ids: Vec::new() };
                hopnet_codec::encode_into(&keepalive, buf).is_ok()
            } else {
                false
            };
            if written {
                peer.last_sent = Some(now);
                return Some(Transmit::single(addr, buf.len()));
            }
        }
        None
    }

    pub fn poll_timeout(&self) -> Option<Instant> {
        let ready = self
            .peers
            .values()
            .any(|p| p.outbound.has_ready())
            .then_some(self.now)
            .flatten();
        self.peers
            .values()
            .map(|p| p.deadline(&self.config))
            .chain(ready)
            .min()
    }

    /// Runs the timers; the peers forgotten are added to `forgotten`.
    pub fn handle_timeout(&mut self, now: Instant, forgotten: &mut Vec<SocketAddr>) {
        self.now = Some(now);
        let forget_after = self.config.forget_after;
        let before = forgotten.len();
        self.peers.retain(|&addr, peer| {
            let silent = now >= peer.last_heard + forget_after;
            if silent {
                forgotten.push(addr);
            } else {
                peer.outbound.handle_timeout(now);
            }
            !silent
        });
        self.counters.forgotten += (forgotten.len() - before) as u64;
    }

    /// Bytes held for every peer, as the memory bound counts them.
    pub fn bytes(&self) -> usize {
        self.peers.values().map(Peer::bytes).sum::<usize>()
            + self.peers.capacity() * (size_of::<SocketAddr>() + size_of::<Peer>())
    }
}

impl crate::one_at_a_time::Datagrams for Endpoint {
    fn next_into(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<Transmit> {
        self.poll_transmit(now, buf)
    }
}
