//! A netcode 1.02 client without I/O: a connect token in, requests, the challenge's answer,
//! then keep-alives and payloads to the one server that accepted it, driven with explicit time.
//!
//! States and transitions are the standard's ("Client State Machine"): it tries the token's
//! servers in order, moving on after a denial or a timeout, and gives up when the token has
//! expired (counted from when it started, by the token's own lifetime, since the client's
//! clock need not agree with the backend's).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::challenge_token::CHALLENGE_TOKEN_BYTES;
use super::connect_token::{ConnectToken, TokenError};
use super::packet::{
    MAX_PACKET_BYTES, Packet, Receiver, append_next, open_packet, payload_packet_len, read_header,
    write_request,
};
use super::packet_key::PacketKey;
use super::replay::ReplayWindow;
use super::send_error::{SendError, check_payload_size};
use super::server::DISCONNECT_PACKETS;
use super::stats::{DropReason, NetcodeStats};

/// The most packets a client queues toward the socket.
const MAX_QUEUED: usize = 256;

/// Where a client is, as the standard numbers its states (negative ones are failures).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientState {
    /// The token expired before any server accepted the client (-6).
    ConnectTokenExpired,
    /// The token did not read (-5). [`NetcodeClient::from_bytes`] returns an error instead.
    InvalidConnectToken,
    /// Connected, then nothing arrived from the server within the token's timeout (-4).
    ConnectionTimedOut,
    /// No server answered the challenge's response within the timeout (-3).
    ConnectionResponseTimedOut,
    /// No server answered the connection request within the timeout (-2).
    ConnectionRequestTimedOut,
    /// The last server tried was full (-1).
    ConnectionDenied,
    /// Closed by either end, or never connected (0).
    Disconnected,
    /// Sending connection requests (1).
    SendingConnectionRequest,
    /// Sending the challenge's response (2).
    SendingConnectionResponse,
    /// Connected (3).
    Connected,
}

impl ClientState {
    /// The standard's number for the state.
    pub fn code(self) -> i8 {
        match self {
            ClientState::ConnectTokenExpired => -6,
            ClientState::InvalidConnectToken => -5,
            ClientState::ConnectionTimedOut => -4,
            ClientState::ConnectionResponseTimedOut => -3,
            ClientState::ConnectionRequestTimedOut => -2,
            ClientState::ConnectionDenied => -1,
            ClientState::Disconnected => 0,
            ClientState::SendingConnectionRequest => 1,
            ClientState::SendingConnectionResponse => 2,
            ClientState::Connected => 3,
        }
    }

    /// Whether the client is still trying to connect.
    pub fn is_connecting(self) -> bool {
        matches!(
            self,
            ClientState::SendingConnectionRequest | ClientState::SendingConnectionResponse
        )
    }

    /// Whether the client is done: closed or failed.
    pub fn is_closed(self) -> bool {
        self.code() <= 0
    }
}

/// A netcode 1.02 client state machine (see the module docs).
#[derive(Debug)]
pub struct NetcodeClient {
    token: ConnectToken,
    /// The token's client-to-server key, prepared.
    send_key: PacketKey,
    /// The token's server-to-client key, prepared.
    receive_key: PacketKey,
    state: ClientState,
    server_index: usize,
    sequence: u64,
    replay: ReplayWindow,
    challenge: Option<(u64, [u8; CHALLENGE_TOKEN_BYTES])>,
    connect_start: Instant,
    /// `None` until the first packet to the current server, so that one goes at once.
    last_send: Option<Instant>,
    last_receive: Instant,
    client_index: u32,
    max_clients: u32,
    keep_alive_interval: Duration,
    out: VecDeque<Vec<u8>>,
    spare: Vec<Vec<u8>>,
    scratch: Box<[u8; MAX_PACKET_BYTES]>,
    stats: NetcodeStats,
}

impl NetcodeClient {
    /// A client that starts connecting at `now` with `token`, to the token's first server.
    pub fn new(token: ConnectToken, now: Instant) -> NetcodeClient {
        NetcodeClient {
            send_key: PacketKey::new(&token.client_to_server_key),
            receive_key: PacketKey::new(&token.server_to_client_key),
            token,
            state: ClientState::SendingConnectionRequest,
            server_index: 0,
            sequence: 0,
            replay: ReplayWindow::default(),
            challenge: None,
            connect_start: now,
            last_send: None,
            last_receive: now,
            client_index: 0,
            max_clients: 0,
            keep_alive_interval: Duration::from_millis(100),
            out: VecDeque::new(),
            spare: Vec::new(),
            scratch: Box::new([0; MAX_PACKET_BYTES]),
            stats: NetcodeStats::default(),
        }
    }

    /// A client from a token's 2,048 bytes (as a token file holds them); an error for a token
    /// that does not read, which is the standard's "invalid connect token".
    pub fn from_bytes(token: &[u8], now: Instant) -> Result<NetcodeClient, TokenError> {
        Ok(NetcodeClient::new(ConnectToken::from_bytes(token)?, now))
    }

    /// The state.
    pub fn state(&self) -> ClientState {
        self.state
    }

    /// The server being tried or connected to.
    pub fn server_address(&self) -> SocketAddr {
        self.token.server_addresses[self.server_index.min(self.token.server_addresses.len() - 1)]
    }

    /// The slot the server gave this client (once connected).
    pub fn client_index(&self) -> u32 {
        self.client_index
    }

    /// The server's number of slots (once connected).
    pub fn max_clients(&self) -> u32 {
        self.max_clients
    }

    /// The token.
    pub fn token(&self) -> &ConnectToken {
        &self.token
    }

    /// The counters.
    pub fn stats(&self) -> &NetcodeStats {
        &self.stats
    }

    /// Takes a datagram received from `from` at `now`. A payload from the server is returned
    /// once connected; everything else is handled (or dropped and counted) inside.
    pub fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) -> Option<&[u8]> {
        let read = self.read(now, from, datagram);
        let range = self.stats.count(read)?;
        Some(&self.scratch[range])
    }

    /// Reads one datagram; a payload's place in the scratch buffer when it is one.
    fn read(
        &mut self,
        now: Instant,
        from: SocketAddr,
        datagram: &[u8],
    ) -> Result<Option<std::ops::Range<usize>>, DropReason> {
        if datagram.len() > MAX_PACKET_BYTES {
            return Err(DropReason::Oversized);
        }
        let header = read_header(datagram, Receiver::Client)?;
        if self.state.is_closed() {
            return Err(DropReason::Unexpected);
        }
        if from != self.server_address() {
            return Err(DropReason::NotFromServer);
        }
        let buf = &mut self.scratch[..datagram.len()];
        buf.copy_from_slice(datagram);
        let packet = open_packet(
            buf,
            &header,
            &self.receive_key,
            self.token.protocol_id,
            Some(&mut self.replay),
        )?;
        match (packet, self.state) {
            (Packet::Denied, state) if state.is_connecting() => {
                self.next_server_or(now, ClientState::ConnectionDenied);
                Ok(None)
            }
            (
                Packet::Challenge {
                    token_sequence,
                    token,
                },
                ClientState::SendingConnectionRequest,
            ) => {
                self.challenge = Some((token_sequence, token));
                self.state = ClientState::SendingConnectionResponse;
                self.last_receive = now;
                self.last_send = None;
                Ok(None)
            }
            (
                Packet::KeepAlive {
                    client_index,
                    max_clients,
                },
                state,
            ) => match state {
                ClientState::SendingConnectionResponse => {
                    self.client_index = client_index;
                    self.max_clients = max_clients;
                    self.state = ClientState::Connected;
                    self.last_receive = now;
                    Ok(None)
                }
                ClientState::Connected => {
                    self.last_receive = now;
                    Ok(None)
                }
                _ => Err(DropReason::Unexpected),
            },
            (Packet::Payload(payload), ClientState::Connected) => {
                self.last_receive = now;
                let start = datagram.len() - super::aead::MAC_BYTES - payload.len();
                Ok(Some(start..start + payload.len()))
            }
            (Packet::Disconnect, ClientState::Connected) => {
                self.close_to(ClientState::Disconnected);
                Ok(None)
            }
            _ => Err(DropReason::Unexpected),
        }
    }

    /// After a failure with the current server: the token's next server, or `failure`.
    fn next_server_or(&mut self, now: Instant, failure: ClientState) {
        if self.server_index + 1 < self.token.server_addresses.len() {
            self.server_index += 1;
            self.state = ClientState::SendingConnectionRequest;
            self.challenge = None;
            self.replay = ReplayWindow::default();
            self.last_send = None;
            self.last_receive = now;
        } else {
            self.close_to(failure);
        }
    }

    fn close_to(&mut self, state: ClientState) {
        self.state = state;
        self.challenge = None;
    }

    /// Queues a payload packet (1 to 1,200 bytes) to the server; only once connected.
    pub fn send(&mut self, now: Instant, payload: &[u8]) -> Result<(), SendError> {
        check_payload_size(payload)?;
        if self.state != ClientState::Connected {
            return Err(SendError::NotConnected);
        }
        self.queue(now, &Packet::Payload(payload));
        self.stats.payloads_sent += 1;
        Ok(())
    }

    /// The size of the payload packet that would carry `len` bytes next.
    pub fn payload_packet_len(&self, len: usize) -> usize {
        payload_packet_len(len, self.sequence)
    }

    /// Seals a payload packet (1 to 1,200 bytes) to the server and appends it to `out`, a
    /// batch being built for the socket, rather than queueing it for
    /// [`poll_transmit`](Self::poll_transmit): no copy, and the caller decides the batch. Only
    /// once connected; whatever `poll_transmit` holds should go first.
    pub fn append_payload(
        &mut self,
        now: Instant,
        payload: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), SendError> {
        check_payload_size(payload)?;
        if self.state != ClientState::Connected {
            return Err(SendError::NotConnected);
        }
        append_next(
            &Packet::Payload(payload),
            &mut self.sequence,
            &self.send_key,
            self.token.protocol_id,
            out,
        )
        .ok_or(SendError::PayloadSize(payload.len()))?;
        self.last_send = Some(now);
        self.stats.payloads_sent += 1;
        self.stats.datagrams_sent += 1;
        Ok(())
    }

    fn queue(&mut self, now: Instant, packet: &Packet<'_>) {
        let mut buf = self.spare.pop().unwrap_or_default();
        if self.seal(now, packet, &mut buf).is_none() {
            self.spare.push(buf);
            return;
        }
        if self.out.len() >= MAX_QUEUED {
            self.stats.transmit_dropped += 1;
            self.spare.push(buf);
            return;
        }
        self.out.push_back(buf);
    }

    fn seal(&mut self, now: Instant, packet: &Packet<'_>, buf: &mut Vec<u8>) -> Option<()> {
        buf.clear();
        append_next(
            packet,
            &mut self.sequence,
            &self.send_key,
            self.token.protocol_id,
            buf,
        )?;
        self.last_send = Some(now);
        Some(())
    }

    /// Writes the next datagram for the server into `buf` (cleared first): a queued packet, or
    /// the request, response or keep-alive that is due. `None` when nothing is to be sent.
    pub fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<SocketAddr> {
        let to = self.server_address();
        if let Some(datagram) = self.out.pop_front() {
            buf.clear();
            buf.extend_from_slice(&datagram);
            self.spare.push(datagram);
            self.stats.datagrams_sent += 1;
            return Some(to);
        }
        if self.next_send().is_none_or(|due| now < due) {
            return None;
        }
        match self.state {
            ClientState::SendingConnectionRequest => {
                write_request(&self.token, buf);
                self.last_send = Some(now);
            }
            ClientState::SendingConnectionResponse => {
                let (token_sequence, token) = self.challenge?;
                self.seal(
                    now,
                    &Packet::Response {
                        token_sequence,
                        token,
                    },
                    buf,
                )?;
            }
            ClientState::Connected => {
                self.seal(
                    now,
                    &Packet::KeepAlive {
                        client_index: 0,
                        max_clients: 0,
                    },
                    buf,
                )?;
                self.stats.keep_alives_sent += 1;
            }
            _ => return None,
        }
        self.stats.datagrams_sent += 1;
        Some(to)
    }

    /// When the next request, response or keep-alive is due; `None` once closed.
    fn next_send(&self) -> Option<Instant> {
        if self.state.is_closed() {
            return None;
        }
        match self.last_send {
            None => Some(self.last_receive.min(self.connect_start)),
            Some(at) => at.checked_add(self.keep_alive_interval),
        }
    }

    fn timeout(&self) -> Option<Duration> {
        u64::try_from(self.token.timeout_seconds)
            .ok()
            .filter(|&s| s > 0)
            .map(Duration::from_secs)
    }

    fn token_lifetime(&self) -> Duration {
        Duration::from_secs(self.token.expire_timestamp - self.token.create_timestamp)
    }

    /// When [`handle_timeout`](Self::handle_timeout) (or `poll_transmit`) should next be
    /// called; `None` once closed with nothing left to send.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if !self.out.is_empty() {
            return Some(self.last_receive.min(self.connect_start));
        }
        if self.state.is_closed() {
            return None;
        }
        let silence = self
            .timeout()
            .and_then(|t| self.last_receive.checked_add(t));
        let expiry = if self.state.is_connecting() {
            self.connect_start.checked_add(self.token_lifetime())
        } else {
            None
        };
        [self.next_send(), silence, expiry]
            .into_iter()
            .flatten()
            .min()
    }

    /// Gives up on the token once expired, and on the server once silent for the timeout.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.state.is_connecting()
            && now.saturating_duration_since(self.connect_start) >= self.token_lifetime()
        {
            self.close_to(ClientState::ConnectTokenExpired);
            return;
        }
        let Some(timeout) = self.timeout() else {
            return;
        };
        if now.saturating_duration_since(self.last_receive) < timeout {
            return;
        }
        match self.state {
            ClientState::SendingConnectionRequest => {
                self.next_server_or(now, ClientState::ConnectionRequestTimedOut)
            }
            ClientState::SendingConnectionResponse => {
                self.next_server_or(now, ClientState::ConnectionResponseTimedOut)
            }
            ClientState::Connected => self.close_to(ClientState::ConnectionTimedOut),
            _ => {}
        }
    }

    /// Closes the connection: when connected, queues the redundant disconnect packets (drain
    /// them with `poll_transmit`).
    pub fn disconnect(&mut self, now: Instant) {
        if self.state == ClientState::Connected {
            for _ in 0..DISCONNECT_PACKETS {
                self.queue(now, &Packet::Disconnect);
            }
        }
        if !self.state.is_closed() {
            self.close_to(ClientState::Disconnected);
        }
    }
}
