//! `NetcodeServer` and `NetcodeClient` against the real thing: `netcode-official`
//! (mas-bandwidth's Rust port of the netcode 1.02 reference, checked by its authors byte for
//! byte against the C implementation).
//!
//! Its client connects to our server with a token we issue, and our client to its server with
//! a token it issues; payloads of every size pass both ways, over loopback UDP sockets, at 0 %
//! and at 10 % loss. Its server and client own their sockets, so the loss is applied at our
//! end, to every datagram we send and every one we receive (a lossy shim in this file): each
//! direction loses 10 %, handshake included.

use std::collections::BTreeSet;
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant, SystemTime};

use hopnet_netcode::{
    ClientState, ConnectToken, ConnectTokenBuilder, DropReason, Key, NetcodeClient, NetcodeServer,
    NetcodeServerConfig, NetcodeServerEvent, NetcodeStats, ServerDisconnectReason,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const PROTOCOL_ID: u64 = 0x6e65_7470_726f_746f;
const CLIENT_ID: u64 = 0x0123_4567_89ab_cdef;
/// Payloads each way.
const MESSAGES: usize = 200;
const DEADLINE: Duration = Duration::from_secs(20);
/// How long to wait for the last payloads after all were sent (what is lost stays lost).
const GRACE: Duration = Duration::from_millis(300);

/// Drops a share of datagrams, seeded.
struct Lossy {
    rng: SmallRng,
    loss: f64,
    dropped: u64,
}

impl Lossy {
    fn new(loss: f64, seed: u64) -> Lossy {
        Lossy {
            rng: SmallRng::seed_from_u64(seed),
            loss,
            dropped: 0,
        }
    }

    fn pass(&mut self) -> bool {
        let lost = self.loss > 0.0 && self.rng.random_bool(self.loss);
        self.dropped += u64::from(lost);
        !lost
    }
}

/// Message `i`: its index, then a pattern, 1 to 1,200 bytes long.
fn message(i: usize) -> Vec<u8> {
    let len = [1, 2, 100, 1199, 1200, 4, 37][i % 7];
    let mut bytes: Vec<u8> = (0..len).map(|j| (i * 31 + j) as u8).collect();
    if len >= 2 {
        bytes[..2].copy_from_slice(&(i as u16).to_le_bytes());
    }
    bytes
}

/// Which message this is, if it is exactly one of ours.
fn which(bytes: &[u8]) -> Option<usize> {
    (0..MESSAGES).find(|&i| message(i) == bytes)
}

/// Checks what arrived: each a message sent, none twice, all at 0 % loss, most at 10 %.
fn check_arrivals(direction: &str, arrived: &[Vec<u8>], loss: f64) -> usize {
    let mut seen = BTreeSet::new();
    for bytes in arrived {
        let i = which(bytes).unwrap_or_else(|| panic!("{direction}: a payload we never sent"));
        assert!(seen.insert(i), "{direction}: message {i} arrived twice");
    }
    if loss == 0.0 {
        assert_eq!(
            seen.len(),
            MESSAGES,
            "{direction}: lost on a lossless loopback"
        );
    } else {
        assert!(
            seen.len() >= MESSAGES * 3 / 4,
            "{direction}: only {} arrived",
            seen.len()
        );
        assert!(seen.len() < MESSAGES, "{direction}: the shim lost nothing");
    }
    seen.len()
}

/// Nothing the peer sent failed a check of integrity or of the standard's layout. (Drops of
/// another kind are legitimate under loss: a response resent after its keep-alive was lost
/// arrives from an address already connected.)
fn assert_intact(stats: &NetcodeStats) {
    let legitimate = [
        DropReason::AddressConnected,
        DropReason::ClientConnected,
        DropReason::HandshakesFull,
        DropReason::Unexpected,
    ];
    for reason in DropReason::ALL {
        if !legitimate.contains(&reason) {
            assert_eq!(stats.dropped(reason), 0, "{reason:?}: {stats:?}");
        }
    }
}

fn bind() -> UdpSocket {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.set_nonblocking(true).unwrap();
    socket
}

/// Every datagram waiting on `socket`, less the shim's losses.
fn receive_all(socket: &UdpSocket, lossy: &mut Lossy) -> Vec<(SocketAddr, Vec<u8>)> {
    let mut buf = [0u8; 2048];
    let mut got = Vec::new();
    loop {
        match socket.recv_from(&mut buf) {
            Ok((n, from)) => {
                if lossy.pass() {
                    got.push((from, buf[..n].to_vec()));
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return got,
            Err(e) => panic!("recv: {e}"),
        }
    }
}

/// The messages of both directions: how many of each were sent, what arrived at each end
/// (`up` at the server, `down` at the client), and when to stop.
struct Exchange {
    start: Instant,
    sent_up: usize,
    sent_down: usize,
    up: Vec<Vec<u8>>,
    down: Vec<Vec<u8>>,
    /// When the last message of both directions had been sent.
    all_sent: Option<Instant>,
}

impl Exchange {
    fn new(start: Instant) -> Exchange {
        Exchange {
            start,
            sent_up: 0,
            sent_down: 0,
            up: Vec::new(),
            down: Vec::new(),
            all_sent: None,
        }
    }

    /// Whether to run another turn: not once everything has arrived, after the deadline, or
    /// once what is still missing has had its grace after the last send (what is lost stays
    /// lost).
    fn go_on(&mut self) -> bool {
        if self.up.len() >= MESSAGES && self.down.len() >= MESSAGES {
            return false;
        }
        if self.start.elapsed() > DEADLINE || self.all_sent.is_some_and(|t| t.elapsed() > GRACE) {
            return false;
        }
        if self.all_sent.is_none() && self.sent_up == MESSAGES && self.sent_down == MESSAGES {
            self.all_sent = Some(Instant::now());
        }
        true
    }

    /// The next message from the client, when it can send and one is left.
    fn next_up(&mut self, connected: bool) -> Option<Vec<u8>> {
        (connected && self.sent_up < MESSAGES).then(|| {
            self.sent_up += 1;
            message(self.sent_up - 1)
        })
    }

    /// Checks what arrived each way ([`check_arrivals`]) and reports it.
    fn check(&self, up: &str, down: &str, loss: f64, shim_dropped: u64) {
        let up = check_arrivals(up, &self.up, loss);
        let down = check_arrivals(down, &self.down, loss);
        eprintln!("loss {loss}: {up} up, {down} down of {MESSAGES}; shim dropped {shim_dropped}");
    }

    /// The next message from the server, if one is left.
    fn next_down(&mut self) -> Option<Vec<u8>> {
        (self.sent_down < MESSAGES).then(|| {
            self.sent_down += 1;
            message(self.sent_down - 1)
        })
    }
}

fn elapsed(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

/// netcode-official's client, our server and our token.
fn their_client_our_server(loss: f64, seed: u64) {
    let mut lossy = Lossy::new(loss, seed);
    let socket = bind();
    let address = socket.local_addr().unwrap();
    let key = Key::generate();
    let start = Instant::now();
    let config = NetcodeServerConfig::new(PROTOCOL_ID, key.clone(), address, 4);
    let mut server = NetcodeServer::new(config, start, SystemTime::now()).unwrap();

    let mut user_data = [0u8; 256];
    user_data[..5].copy_from_slice(b"hello");
    user_data[255] = 0xee;
    let token = ConnectTokenBuilder::new(PROTOCOL_ID, CLIENT_ID, [address])
        .expire_seconds(30)
        .timeout_seconds(5)
        .user_data(user_data)
        .issue(&key, SystemTime::now())
        .unwrap()
        .to_bytes()
        .unwrap();

    let mut client = netcode::Client::new("127.0.0.1:0".parse().unwrap(), 0.0).unwrap();
    client
        .connect(&token)
        .expect("netcode-official reads our token");

    let mut slot = None;
    let mut exchange = Exchange::new(start);
    let mut buf = Vec::new();
    while exchange.go_on() {
        client.update(elapsed(start));
        assert!(
            !client.state().is_error(),
            "their client failed: {}",
            client.state()
        );
        let now = Instant::now();
        for (from, datagram) in receive_all(&socket, &mut lossy) {
            if let Some((i, payload)) = server.handle(now, from, &datagram) {
                assert_eq!(Some(i), slot);
                exchange.up.push(payload.to_vec());
            }
        }
        server.handle_timeout(now);
        while let Some(event) = server.poll_event() {
            match event {
                NetcodeServerEvent::Connected {
                    client: i,
                    client_id,
                    address: a,
                } => {
                    assert_eq!(client_id, CLIENT_ID);
                    assert_eq!(a.port(), client.port());
                    slot = Some(i);
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        if let Some(m) = exchange.next_up(client.state() == netcode::ClientState::Connected) {
            client.send_packet(&m).unwrap();
        }
        if let Some(i) = slot
            && let Some(m) = exchange.next_down()
        {
            server.send(now, i, &m).unwrap();
        }
        while let Some(to) = server.poll_transmit(now, &mut buf) {
            if lossy.pass() {
                socket.send_to(&buf, to).unwrap();
            }
        }
        while let Some((payload, _sequence)) = client.receive_packet() {
            exchange.down.push(payload);
        }
        std::thread::sleep(Duration::from_millis(1));
    }

    let slot = slot.expect("their client never connected");
    assert_eq!(server.user_data(slot), Some(&user_data));
    assert_eq!(client.client_index(), slot);
    assert_eq!(client.max_clients(), 4);
    exchange.check(
        "their client to our server",
        "our server to their client",
        loss,
        lossy.dropped,
    );
    assert_intact(server.stats());

    // Their disconnect reaches us (ten packets: at 10 % loss one gets through).
    client.disconnect();
    let until = Instant::now() + Duration::from_secs(2);
    let mut reason = None;
    while reason.is_none() && Instant::now() < until {
        let now = Instant::now();
        for (from, datagram) in receive_all(&socket, &mut lossy) {
            server.handle(now, from, &datagram);
        }
        if let Some(NetcodeServerEvent::Disconnected { reason: r, .. }) = server.poll_event() {
            reason = Some(r);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(reason, Some(ServerDisconnectReason::ClientDisconnected));
    assert_eq!(server.connected_clients(), 0);
}

/// Our client, netcode-official's server and its token.
fn our_client_their_server(loss: f64, seed: u64) {
    let mut lossy = Lossy::new(loss, seed);
    let key = netcode::generate_key();
    let mut server =
        netcode::Server::new("127.0.0.1:0".parse().unwrap(), PROTOCOL_ID, &key, 0.0).unwrap();
    server.start(4).unwrap();
    let address = server.address();
    let mut user_data = [0u8; 256];
    user_data[7] = 7;
    let token_bytes = netcode::generate_connect_token(
        &[address],
        &[address],
        30,
        5,
        CLIENT_ID,
        PROTOCOL_ID,
        &key,
        &user_data,
    )
    .unwrap();

    // Their token, read by us: the public part's every field.
    let token = ConnectToken::from_bytes(&token_bytes).unwrap();
    assert_eq!(token.protocol_id(), PROTOCOL_ID);
    assert_eq!(token.server_addresses(), [address]);
    assert_eq!(token.timeout_seconds(), 5);
    assert_eq!(token.expire_timestamp() - token.create_timestamp(), 30);
    assert_eq!(
        token.to_bytes().unwrap(),
        token_bytes,
        "their token re-written by us"
    );

    let socket = bind();
    let start = Instant::now();
    let mut client = NetcodeClient::new(token, start);

    let mut slot = None;
    let mut exchange = Exchange::new(start);
    let mut buf = Vec::new();
    while exchange.go_on() {
        server.update(elapsed(start));
        while let Some(event) = server.next_event() {
            match event {
                netcode::ServerEvent::ClientConnected { client_index } => slot = Some(client_index),
                other => panic!("unexpected {other:?}"),
            }
        }
        let now = Instant::now();
        for (from, datagram) in receive_all(&socket, &mut lossy) {
            if let Some(payload) = client.handle(now, from, &datagram) {
                exchange.down.push(payload.to_vec());
            }
        }
        client.handle_timeout(now);
        assert!(
            !client.state().is_closed(),
            "our client failed: {:?}",
            client.state()
        );
        if let Some(m) = exchange.next_up(client.state() == ClientState::Connected) {
            client.send(now, &m).unwrap();
        }
        if let Some(i) = slot
            && let Some(m) = exchange.next_down()
        {
            server.send_packet(i, &m).unwrap();
        }
        while let Some(to) = client.poll_transmit(now, &mut buf) {
            if lossy.pass() {
                socket.send_to(&buf, to).unwrap();
            }
        }
        if let Some(i) = slot {
            while let Some((payload, _sequence)) = server.receive_packet(i) {
                exchange.up.push(payload);
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }

    let slot = slot.expect("our client never connected");
    assert_eq!(server.client_id(slot), CLIENT_ID);
    assert_eq!(server.client_user_data(slot), Some(&user_data));
    assert_eq!(client.client_index() as usize, slot);
    assert_eq!(client.max_clients(), 4);
    exchange.check(
        "our client to their server",
        "their server to our client",
        loss,
        lossy.dropped,
    );
    assert_intact(client.stats());

    // Our disconnect reaches them.
    client.disconnect(Instant::now());
    assert_eq!(client.state(), ClientState::Disconnected);
    while let Some(to) = client.poll_transmit(Instant::now(), &mut buf) {
        if lossy.pass() {
            socket.send_to(&buf, to).unwrap();
        }
    }
    let until = Instant::now() + Duration::from_secs(2);
    let mut disconnected = false;
    while !disconnected && Instant::now() < until {
        server.update(elapsed(start));
        while let Some(event) = server.next_event() {
            if let netcode::ServerEvent::ClientDisconnected { reason, .. } = event {
                assert_eq!(reason, netcode::DisconnectReason::ClientDisconnect);
                disconnected = true;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(disconnected, "their server never saw our disconnect");
}

#[test]
fn their_client_connects_to_our_server() {
    their_client_our_server(0.0, 1);
}

#[test]
fn their_client_connects_to_our_server_at_10_percent_loss() {
    their_client_our_server(0.1, 2);
}

#[test]
fn our_client_connects_to_their_server() {
    our_client_their_server(0.0, 3);
}

#[test]
fn our_client_connects_to_their_server_at_10_percent_loss() {
    our_client_their_server(0.1, 4);
}
