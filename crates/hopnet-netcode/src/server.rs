//! A netcode 1.02 server without I/O: connection requests, challenges, client slots,
//! keep-alives, payloads, disconnects and timeouts, driven with explicit time.
//!
//! It never reads a clock or a socket. Feed it every datagram ([`handle`]), send what
//! [`poll_transmit`] writes, and call [`handle_timeout`] when [`poll_timeout`] says. The Unix
//! time that connect tokens expire by is counted from the one pair of instant and system time
//! given to [`new`]. Everything it holds is bounded: the slots, the handshakes under way, the
//! history of used tokens, the queue of datagrams toward the socket, and the events.
//!
//! [`handle`]: NetcodeServer::handle
//! [`poll_transmit`]: NetcodeServer::poll_transmit
//! [`handle_timeout`]: NetcodeServer::handle_timeout
//! [`poll_timeout`]: NetcodeServer::poll_timeout
//! [`new`]: NetcodeServer::new

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime};

use rand::{CryptoRng, RngCore};

use super::address::same_address;
use super::challenge_token::ChallengeToken;
use super::clock::UnixClock;
use super::handshakes::{Handshake, Handshakes};
use super::key::Key;
use super::packet::{
    MAX_PACKET_BYTES, Packet, REQUEST, Receiver, append_next, append_packet, open_packet,
    payload_packet_len, read_header, read_request,
};
use super::packet_key::PacketKey;
use super::replay::ReplayWindow;
use super::send_error::{SendError, check_payload_size};
use super::slot_timers::SlotTimers;
use super::stats::{DropReason, NetcodeStats};
use super::token_history::TokenHistory;
use super::user_data::UserData;

/// How many disconnect packets a server or client sends when it closes a connection, so that
/// one arrives despite loss.
pub const DISCONNECT_PACKETS: usize = 10;

/// The global sequence's start: packets sent before a client has a slot (challenges, denials)
/// are sealed under the same per-token key as the slot's packets, whose sequences start at
/// zero, so they take the top half of the sequence space (IMPLEMENTERS.md, finding 3).
const GLOBAL_SEQUENCE_START: u64 = 1 << 63;

/// A server's settings.
#[derive(Debug, Clone)]
pub struct NetcodeServerConfig {
    /// The game's protocol id: requests for another are ignored.
    pub protocol_id: u64,
    /// The key shared with the backend that issues connect tokens.
    pub private_key: Key,
    /// The address clients send to, as connect tokens name it; a token that does not name it
    /// is ignored.
    pub public_address: SocketAddr,
    /// Client slots; a request past them is answered with a denial.
    pub max_clients: usize,
    /// How long a connected client may go without a packet from the server before the server
    /// sends a keep-alive (the standard suggests 10 Hz).
    pub keep_alive_interval: Duration,
    /// Handshakes under way at once (addresses sent a challenge and not yet connected).
    pub max_handshakes: usize,
    /// Used connect tokens remembered, each bound to its first address.
    pub token_history: usize,
    /// Datagrams waiting for `poll_transmit`; past this, new ones are dropped and counted.
    pub max_queued_datagrams: usize,
}

impl NetcodeServerConfig {
    /// Settings for a server at `public_address` with `max_clients` slots, the other values
    /// scaled from it: handshakes 4 per slot, the token history 8 per slot (at least 256 each).
    pub fn new(
        protocol_id: u64,
        private_key: Key,
        public_address: SocketAddr,
        max_clients: usize,
    ) -> NetcodeServerConfig {
        NetcodeServerConfig {
            protocol_id,
            private_key,
            public_address,
            max_clients,
            keep_alive_interval: Duration::from_millis(100),
            max_handshakes: (4 * max_clients).max(256),
            token_history: (8 * max_clients).max(256),
            max_queued_datagrams: 4096 + DISCONNECT_PACKETS * max_clients,
        }
    }
}

/// The most client slots a server may have.
pub const MAX_CLIENTS: usize = 65_536;

/// Why a client's slot was freed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerDisconnectReason {
    /// Nothing arrived from the client within its token's timeout.
    TimedOut,
    /// The client sent a disconnect packet.
    ClientDisconnected,
    /// The server application disconnected the client.
    ServerDisconnected,
}

/// A change in a server's clients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetcodeServerEvent {
    /// A client answered its challenge and has a slot.
    Connected {
        /// Its slot.
        client: usize,
        /// The id from its connect token.
        client_id: u64,
        /// Its address.
        address: SocketAddr,
    },
    /// A client's slot was freed.
    Disconnected {
        /// Its former slot.
        client: usize,
        /// The id from its connect token.
        client_id: u64,
        /// Its address.
        address: SocketAddr,
        /// Why.
        reason: ServerDisconnectReason,
    },
}

#[derive(Debug)]
struct Slot {
    address: SocketAddr,
    client_id: u64,
    user_data: UserData,
    send_key: PacketKey,
    receive_key: PacketKey,
    /// `None` when the token disables timeouts.
    timeout: Option<Duration>,
    /// Whether the client has shown that it knows its slot (it sent a keep-alive or payload);
    /// until then every payload is preceded by a keep-alive.
    confirmed: bool,
    sequence: u64,
    last_send: Instant,
    last_receive: Instant,
    replay: ReplayWindow,
    /// Which client this is of those the slot has held (see [`SlotTimers`]).
    generation: u64,
}

impl Slot {
    /// When the slot next needs attention: its keep-alive, or its timeout.
    fn due(&self, keep_alive_interval: Duration) -> Instant {
        let keep_alive = self.last_send.checked_add(keep_alive_interval);
        let timeout = self.timeout.and_then(|t| self.last_receive.checked_add(t));
        match (keep_alive, timeout) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).unwrap_or(self.last_send),
        }
    }
}

/// A netcode 1.02 server state machine (see the module docs).
#[derive(Debug)]
pub struct NetcodeServer {
    config: NetcodeServerConfig,
    clock: UnixClock,
    challenge_key: PacketKey,
    challenge_sequence: u64,
    global_sequence: u64,
    slots: Vec<Option<Slot>>,
    /// When each occupied slot next needs attention.
    timers: SlotTimers,
    /// Clients given a slot so far: the next one's generation.
    generations: u64,
    connected: usize,
    by_address: HashMap<SocketAddr, usize>,
    by_client_id: HashMap<u64, usize>,
    handshakes: Handshakes,
    history: TokenHistory,
    out: VecDeque<(SocketAddr, Vec<u8>)>,
    spare: Vec<Vec<u8>>,
    events: VecDeque<NetcodeServerEvent>,
    /// The datagram being read, decrypted in place.
    scratch: Box<[u8; MAX_PACKET_BYTES]>,
    stats: NetcodeStats,
}

/// Why a server could not be created.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServerConfigError {
    /// `max_clients` must be 1 to [`MAX_CLIENTS`].
    #[error("max_clients must be 1 to {MAX_CLIENTS}, not {0}")]
    MaxClients(usize),
}

impl NetcodeServer {
    /// A server started at `now`, which is the instant of the Unix time `unix_now`. Its
    /// challenge key is drawn from `rand`'s thread generator.
    pub fn new(
        config: NetcodeServerConfig,
        now: Instant,
        unix_now: SystemTime,
    ) -> Result<NetcodeServer, ServerConfigError> {
        NetcodeServer::with_rng(config, now, unix_now, &mut rand::rng())
    }

    /// [`new`](Self::new) with the challenge key drawn from `rng`.
    pub fn with_rng<R: RngCore + CryptoRng>(
        config: NetcodeServerConfig,
        now: Instant,
        unix_now: SystemTime,
        rng: &mut R,
    ) -> Result<NetcodeServer, ServerConfigError> {
        if !(1..=MAX_CLIENTS).contains(&config.max_clients) {
            return Err(ServerConfigError::MaxClients(config.max_clients));
        }
        Ok(NetcodeServer {
            clock: UnixClock::new(now, unix_now),
            challenge_key: PacketKey::new(&Key::generate_with(rng)),
            challenge_sequence: 0,
            global_sequence: GLOBAL_SEQUENCE_START,
            slots: (0..config.max_clients).map(|_| None).collect(),
            timers: SlotTimers::default(),
            generations: 0,
            connected: 0,
            by_address: HashMap::new(),
            by_client_id: HashMap::new(),
            handshakes: Handshakes::new(config.max_handshakes),
            history: TokenHistory::new(config.token_history),
            out: VecDeque::new(),
            spare: Vec::new(),
            events: VecDeque::new(),
            scratch: Box::new([0; MAX_PACKET_BYTES]),
            stats: NetcodeStats::default(),
            config,
        })
    }

    /// The settings.
    pub fn config(&self) -> &NetcodeServerConfig {
        &self.config
    }

    /// Takes a datagram received from `from` at `now`. A payload from a connected client is
    /// returned with the client's slot; everything else is handled (or dropped and counted in
    /// [`stats`](Self::stats)) inside.
    pub fn handle(
        &mut self,
        now: Instant,
        from: SocketAddr,
        datagram: &[u8],
    ) -> Option<(usize, &[u8])> {
        let read = self.read(now, from, datagram);
        let client = self.stats.count(read)?;
        Some((client, self.payload_in_scratch(datagram.len())))
    }

    /// The decrypted payload of the datagram of `len` bytes now in the scratch buffer.
    fn payload_in_scratch(&self, len: usize) -> &[u8] {
        let sequence_bytes = usize::from(self.scratch[0] >> 4);
        &self.scratch[1 + sequence_bytes..len - super::aead::MAC_BYTES]
    }

    /// Reads one datagram; `Ok(Some(slot))` when it is a payload (left decrypted in scratch).
    fn read(
        &mut self,
        now: Instant,
        from: SocketAddr,
        datagram: &[u8],
    ) -> Result<Option<usize>, DropReason> {
        if datagram.len() > MAX_PACKET_BYTES {
            return Err(DropReason::Oversized);
        }
        if datagram.first() == Some(&REQUEST) {
            return self.process_request(now, from, datagram).map(|()| None);
        }
        let header = read_header(datagram, Receiver::Server)?;
        let slot_index = self.by_address.get(&from).copied();
        let buf = &mut self.scratch[..datagram.len()];
        buf.copy_from_slice(datagram);
        let protocol_id = self.config.protocol_id;
        let packet = match slot_index.and_then(|i| self.slots[i].as_mut()) {
            Some(slot) => open_packet(
                buf,
                &header,
                &slot.receive_key,
                protocol_id,
                Some(&mut slot.replay),
            )?,
            None => match self.handshakes.get(now, from) {
                Some(handshake) => {
                    open_packet(buf, &header, &handshake.receive_key, protocol_id, None)?
                }
                None => return Err(DropReason::NoKey),
            },
        };
        match (packet, slot_index) {
            (
                Packet::Response {
                    token_sequence,
                    token,
                },
                _,
            ) => self
                .process_response(now, from, token_sequence, &token)
                .map(|()| None),
            (Packet::KeepAlive { .. }, Some(i)) => {
                self.touch(i, now);
                Ok(None)
            }
            (Packet::Payload(_), Some(i)) => {
                self.touch(i, now);
                Ok(Some(i))
            }
            (Packet::Disconnect, Some(i)) => {
                self.free_slot(i, ServerDisconnectReason::ClientDisconnected);
                Ok(None)
            }
            _ => Err(DropReason::Unexpected),
        }
    }

    fn touch(&mut self, index: usize, now: Instant) {
        if let Some(slot) = self.slots[index].as_mut() {
            slot.last_receive = now;
            slot.confirmed = true;
        }
    }

    /// The standard's "Processing Client Requests", in its order.
    fn process_request(
        &mut self,
        now: Instant,
        from: SocketAddr,
        datagram: &[u8],
    ) -> Result<(), DropReason> {
        let request = read_request(
            datagram,
            self.config.protocol_id,
            self.clock.unix_seconds(now),
            &self.config.private_key,
        )?;
        let token = request.token;
        let public = self.config.public_address;
        if !token
            .server_addresses
            .iter()
            .any(|&a| same_address(a, public))
        {
            return Err(DropReason::NotInToken);
        }
        if self.by_address.contains_key(&from) {
            return Err(DropReason::AddressConnected);
        }
        if self.by_client_id.contains_key(&token.client_id) {
            return Err(DropReason::ClientConnected);
        }
        if !self.history.admit(&request.mac, from) {
            return Err(DropReason::TokenUsedElsewhere);
        }
        let send_key = PacketKey::new(&token.server_to_client_key);
        if self.connected == self.config.max_clients {
            self.send_global(from, &Packet::Denied, &send_key);
            self.stats.denials_sent += 1;
            return Ok(());
        }
        let handshake = Handshake::new(
            now,
            send_key.clone(),
            PacketKey::new(&token.client_to_server_key),
            token.timeout_seconds,
        );
        if !self.handshakes.insert(now, from, handshake) {
            return Err(DropReason::HandshakesFull);
        }
        let challenge = ChallengeToken {
            client_id: token.client_id,
            user_data: token.user_data,
        };
        let Some(sealed) = challenge.seal(self.challenge_sequence, &self.challenge_key) else {
            return Err(DropReason::RequestToken);
        };
        let packet = Packet::Challenge {
            token_sequence: self.challenge_sequence,
            token: sealed,
        };
        self.challenge_sequence += 1;
        self.send_global(from, &packet, &send_key);
        self.stats.challenges_sent += 1;
        Ok(())
    }

    /// The standard's "Processing Client Response Packets", in its order.
    fn process_response(
        &mut self,
        now: Instant,
        from: SocketAddr,
        token_sequence: u64,
        sealed: &[u8; super::challenge_token::CHALLENGE_TOKEN_BYTES],
    ) -> Result<(), DropReason> {
        let challenge = ChallengeToken::open(sealed, token_sequence, &self.challenge_key)
            .map_err(|_| DropReason::ChallengeInvalid)?;
        if self.by_address.contains_key(&from) {
            return Err(DropReason::AddressConnected);
        }
        if self.by_client_id.contains_key(&challenge.client_id) {
            return Err(DropReason::ClientConnected);
        }
        // The packet decrypted with this address's handshake keys, so the handshake is there.
        let Some(handshake) = self.handshakes.get(now, from).cloned() else {
            return Err(DropReason::NoKey);
        };
        let Some(index) = self.slots.iter().position(Option::is_none) else {
            self.send_global(from, &Packet::Denied, &handshake.send_key);
            self.stats.denials_sent += 1;
            return Ok(());
        };
        self.handshakes.remove(from);
        let generation = self.generations;
        self.generations += 1;
        let timeout = u64::try_from(handshake.timeout_seconds)
            .ok()
            .filter(|&s| s > 0)
            .map(Duration::from_secs);
        self.slots[index] = Some(Slot {
            address: from,
            client_id: challenge.client_id,
            user_data: challenge.user_data,
            send_key: handshake.send_key,
            receive_key: handshake.receive_key,
            timeout,
            confirmed: false,
            sequence: 0,
            last_send: now,
            last_receive: now,
            replay: ReplayWindow::default(),
            generation,
        });
        self.connected += 1;
        self.by_address.insert(from, index);
        self.by_client_id.insert(challenge.client_id, index);
        self.send_keep_alive(index, now);
        self.schedule(index);
        self.push_event(NetcodeServerEvent::Connected {
            client: index,
            client_id: challenge.client_id,
            address: from,
        });
        Ok(())
    }

    fn push_event(&mut self, event: NetcodeServerEvent) {
        // Bounded: at most one connect and one disconnect per slot can be waiting, unless the
        // application never polls; then the oldest are dropped and counted.
        if self.events.len() >= 2 * self.config.max_clients + 64 {
            self.events.pop_front();
            self.stats.events_dropped += 1;
        }
        self.events.push_back(event);
    }

    /// Queues a packet sealed with `key` and the server-wide sequence.
    fn send_global(&mut self, to: SocketAddr, packet: &Packet<'_>, key: &PacketKey) {
        let sequence = self.global_sequence;
        self.global_sequence += 1;
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        if append_packet(packet, sequence, key, self.config.protocol_id, &mut buf).is_some() {
            self.enqueue(to, buf);
        }
    }

    /// Queues a packet to a slot's client, sealed with its key and sequence.
    fn send_to_slot(&mut self, index: usize, packet: &Packet<'_>, now: Instant) -> Option<()> {
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        let slot = self.slots[index].as_mut()?;
        append_next(
            packet,
            &mut slot.sequence,
            &slot.send_key,
            self.config.protocol_id,
            &mut buf,
        )?;
        slot.last_send = now;
        let to = slot.address;
        self.enqueue(to, buf);
        Some(())
    }

    fn send_keep_alive(&mut self, index: usize, now: Instant) {
        let packet = Packet::KeepAlive {
            client_index: index as u32,
            max_clients: self.config.max_clients as u32,
        };
        if self.send_to_slot(index, &packet, now).is_some() {
            self.stats.keep_alives_sent += 1;
        }
    }

    fn enqueue(&mut self, to: SocketAddr, buf: Vec<u8>) {
        if self.out.len() >= self.config.max_queued_datagrams {
            self.stats.transmit_dropped += 1;
            self.spare.push(buf);
            return;
        }
        self.out.push_back((to, buf));
    }

    /// Queues a payload packet (1 to 1,200 bytes) to the client in slot `client`. Until the
    /// client has confirmed its slot, a keep-alive goes first, so that it learns the slot even
    /// if its first keep-alive was lost.
    pub fn send(&mut self, now: Instant, client: usize, payload: &[u8]) -> Result<(), SendError> {
        check_payload_size(payload)?;
        let Some(slot) = self.slots.get(client).and_then(Option::as_ref) else {
            return Err(SendError::NotConnected);
        };
        if !slot.confirmed {
            self.send_keep_alive(client, now);
        }
        self.send_to_slot(client, &Packet::Payload(payload), now)
            .ok_or(SendError::NotConnected)?;
        self.stats.payloads_sent += 1;
        Ok(())
    }

    /// Whether the client in slot `client` has shown that it knows its slot (it has sent a
    /// keep-alive or a payload); until then [`send`](Self::send) puts a keep-alive before each
    /// payload, and [`append_payload`](Self::append_payload) refuses.
    pub fn is_confirmed(&self, client: usize) -> bool {
        self.slot(client).is_some_and(|slot| slot.confirmed)
    }

    /// The size of the payload packet that would carry `len` bytes to slot `client` next.
    pub fn payload_packet_len(&self, client: usize, len: usize) -> Option<usize> {
        self.slot(client)
            .map(|slot| payload_packet_len(len, slot.sequence))
    }

    /// Seals a payload packet (1 to 1,200 bytes) to the confirmed client in slot `client` and
    /// appends it to `out`, a batch being built for the socket, rather than queueing it for
    /// [`poll_transmit`](Self::poll_transmit): no copy, and the caller decides the batch.
    /// Whatever [`poll_transmit`](Self::poll_transmit) holds should go first (a keep-alive
    /// queued before it has a lower sequence; the client would still take both).
    pub fn append_payload(
        &mut self,
        now: Instant,
        client: usize,
        payload: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), SendError> {
        check_payload_size(payload)?;
        let Some(slot) = self.slots.get_mut(client).and_then(Option::as_mut) else {
            return Err(SendError::NotConnected);
        };
        if !slot.confirmed {
            return Err(SendError::NotConnected);
        }
        let packet = Packet::Payload(payload);
        append_next(
            &packet,
            &mut slot.sequence,
            &slot.send_key,
            self.config.protocol_id,
            out,
        )
        .ok_or(SendError::PayloadSize(payload.len()))?;
        slot.last_send = now;
        self.stats.payloads_sent += 1;
        self.stats.datagrams_sent += 1;
        Ok(())
    }

    /// Writes the next queued datagram into `buf` (cleared first) and says where it goes;
    /// `None` when nothing waits.
    pub fn poll_transmit(&mut self, _now: Instant, buf: &mut Vec<u8>) -> Option<SocketAddr> {
        let (to, datagram) = self.out.pop_front()?;
        buf.clear();
        buf.extend_from_slice(&datagram);
        self.spare.push(datagram);
        self.stats.datagrams_sent += 1;
        Some(to)
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called: the next
    /// keep-alive due or the next client timeout (or a little sooner, never later). `None` with
    /// no client connected.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.timers.next()
    }

    /// Sends the keep-alives due at `now` and frees the slots of clients silent for their
    /// token's timeout. Only the slots whose deadline has come are looked at.
    pub fn handle_timeout(&mut self, now: Instant) {
        let interval = self.config.keep_alive_interval;
        while let Some((index, generation)) = self.timers.pop_due(now) {
            let Some(slot) = self.slots[index]
                .as_ref()
                .filter(|slot| slot.generation == generation)
            else {
                continue;
            };
            if slot
                .timeout
                .is_some_and(|t| now.saturating_duration_since(slot.last_receive) >= t)
            {
                self.free_slot(index, ServerDisconnectReason::TimedOut);
                continue;
            }
            if now.saturating_duration_since(slot.last_send) >= interval {
                self.send_keep_alive(index, now);
            }
            self.schedule(index);
        }
    }

    /// Puts slot `index`'s next deadline in the timers.
    fn schedule(&mut self, index: usize) {
        if let Some(slot) = self.slots[index].as_ref() {
            let due = slot.due(self.config.keep_alive_interval);
            self.timers.schedule(due, index, slot.generation);
        }
    }

    /// Disconnects the client in slot `client`: queues the redundant disconnect packets and
    /// frees the slot at once.
    pub fn disconnect(&mut self, now: Instant, client: usize) -> Result<(), SendError> {
        if self.slots.get(client).and_then(Option::as_ref).is_none() {
            return Err(SendError::NotConnected);
        }
        for _ in 0..DISCONNECT_PACKETS {
            self.send_to_slot(client, &Packet::Disconnect, now);
        }
        self.free_slot(client, ServerDisconnectReason::ServerDisconnected);
        Ok(())
    }

    fn free_slot(&mut self, index: usize, reason: ServerDisconnectReason) {
        let Some(slot) = self.slots.get_mut(index).and_then(Option::take) else {
            return;
        };
        self.connected -= 1;
        // Freed slots leave their timer entries behind until they come due; a churn of
        // short connections must not pile them up.
        if self.timers.len() > 2 * self.slots.len() + 64 {
            let slots = &self.slots;
            self.timers.retain(|i, generation| {
                slots[i]
                    .as_ref()
                    .is_some_and(|s| s.generation == generation)
            });
        }
        self.by_address.remove(&slot.address);
        self.by_client_id.remove(&slot.client_id);
        self.push_event(NetcodeServerEvent::Disconnected {
            client: index,
            client_id: slot.client_id,
            address: slot.address,
            reason,
        });
    }

    /// The next change in the clients, oldest first.
    pub fn poll_event(&mut self) -> Option<NetcodeServerEvent> {
        self.events.pop_front()
    }

    /// Whether a client has slot `client`.
    pub fn is_connected(&self, client: usize) -> bool {
        self.slots.get(client).is_some_and(Option::is_some)
    }

    /// How many clients are connected.
    pub fn connected_clients(&self) -> usize {
        self.connected
    }

    /// The slot of the client at `address`, if it is connected.
    pub fn client_at(&self, address: SocketAddr) -> Option<usize> {
        self.by_address.get(&address).copied()
    }

    /// The address of the client in slot `client`.
    pub fn client_address(&self, client: usize) -> Option<SocketAddr> {
        self.slot(client).map(|s| s.address)
    }

    /// The client id (from its connect token) of the client in slot `client`.
    pub fn client_id(&self, client: usize) -> Option<u64> {
        self.slot(client).map(|s| s.client_id)
    }

    /// The user data (from its connect token) of the client in slot `client`.
    pub fn user_data(&self, client: usize) -> Option<&UserData> {
        self.slot(client).map(|s| &s.user_data)
    }

    fn slot(&self, client: usize) -> Option<&Slot> {
        self.slots.get(client).and_then(Option::as_ref)
    }

    /// Handshakes under way now (bounded by `max_handshakes`).
    pub fn handshakes_in_progress(&self) -> usize {
        self.handshakes.len()
    }

    /// Connect tokens remembered now (bounded by `token_history`).
    pub fn tokens_remembered(&self) -> usize {
        self.history.len()
    }

    /// Datagrams waiting for `poll_transmit` (bounded by `max_queued_datagrams`).
    pub fn queued_datagrams(&self) -> usize {
        self.out.len()
    }

    /// The counters.
    pub fn stats(&self) -> &NetcodeStats {
        &self.stats
    }
}
