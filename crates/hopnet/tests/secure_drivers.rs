//! Secure mode through the drivers, over loopback UDP: a server made with `bind_secure` and a
//! client made with `connect_secure`, blocking and tokio, exchanging every delivery mode; the
//! client's identity from its token on the server; closes both ways; what a secure server and
//! a plain peer make of each other.

use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime};

use hopnet::secure::{ClientState, ConnectToken, Key};
use hopnet::{Client, Server};
use hopnet::{Config, ConnectionId, Delivery, DisconnectReason, Error, Event};

// The test peers and helpers the machines' tests use, in hopnet-proto.
#[path = "../../hopnet-proto/tests/common/mod.rs"]
mod common;
use common::secure::{EVERY_SIZE, PROTOCOL_ID, message, messages, token_builder};

const DEADLINE: Duration = Duration::from_secs(20);

/// A token whose user data carries the client id in its first bytes and 0x5a in its last.
fn token(key: &Key, client_id: u64, server: SocketAddr) -> ConnectToken {
    let mut user_data = [0u8; 256];
    user_data[..8].copy_from_slice(&client_id.to_le_bytes());
    user_data[255] = 0x5a;
    token_builder(client_id, server)
        .user_data(user_data)
        .issue(key, SystemTime::now())
        .unwrap()
}

/// A secure server on loopback, and a secure client connecting to it as `client_id`.
fn secure_pair(client_id: u64) -> (Server, Client) {
    let key = Key::generate();
    let server =
        Server::bind_secure("127.0.0.1:0", Config::default(), PROTOCOL_ID, key.clone()).unwrap();
    let address = server.local_addr().unwrap();
    let token = token(&key, client_id, address);
    (
        server,
        Client::connect_secure(token, Config::default()).unwrap(),
    )
}

/// Polls both until `done`, panicking after the deadline.
fn run(
    server: &mut Server,
    client: &mut Client,
    mut done: impl FnMut(&mut Server, &mut Client) -> bool,
) {
    let start = Instant::now();
    while !done(server, client) {
        assert!(start.elapsed() < DEADLINE, "not done in {DEADLINE:?}");
        server.poll(Duration::ZERO).unwrap();
        client.poll(Duration::from_millis(1)).unwrap();
    }
}

/// Polls both until the client gives up connecting, which it reports as a connect timeout.
fn until_gave_up(server: &mut Server, client: &mut Client) {
    run(server, client, |_, client| client.machine().is_closed());
    assert_eq!(
        client.poll_event(),
        Some(Event::Disconnected {
            reason: DisconnectReason::ConnectTimeout
        })
    );
}

#[test]
fn a_secure_client_and_server_exchange_every_delivery_through_the_blocking_driver() {
    let (mut server, mut client) = secure_pair(77);
    assert!(client.secure().is_some() && server.secure().is_some());

    // Sent before netcode connects: reliable messages wait and go first, in order.
    client
        .send(&message(0, 10), Delivery::ReliableOrdered)
        .unwrap();
    client
        .send(&message(1, 3000), Delivery::ReliableOrdered)
        .unwrap();

    let mut id = None;
    let mut at_server = Vec::new();
    run(&mut server, &mut client, |server, _| {
        while let Some(e) = server.poll_event() {
            match e.event {
                Event::Connected => id = Some(e.connection),
                Event::Message { bytes, .. } => at_server.push(bytes),
                other => panic!("unexpected {other:?}"),
            }
        }
        at_server.len() == 2
    });
    assert_eq!(at_server, [message(0, 10), message(1, 3000)]);
    let id = id.expect("connected");
    let secure = server.secure().unwrap();
    assert_eq!(secure.client_id(id), Some(77));
    assert_eq!(
        secure.user_data(id).map(|u| (u[0], u[255])),
        Some((77, 0x5a))
    );
    assert_eq!(client.poll_event(), Some(Event::Connected));
    assert_eq!(
        client.secure().unwrap().netcode().state(),
        ClientState::Connected
    );

    // Every size both ways, reliably; the largest take many sealed batches.
    let sizes = EVERY_SIZE;
    for (i, &len) in sizes.iter().enumerate() {
        client
            .send(&message(10 + i, len), Delivery::ReliableOrdered)
            .unwrap();
        server
            .send(id, &message(20 + i, len), Delivery::ReliableOrdered)
            .unwrap();
    }
    let (mut up, mut down) = (Vec::new(), Vec::new());
    run(&mut server, &mut client, |server, client| {
        while let Some(e) = server.poll_event() {
            if let Event::Message { bytes, .. } = e.event {
                up.push(bytes);
            }
        }
        while let Some(e) = client.poll_event() {
            if let Event::Message { bytes, .. } = e {
                down.push(bytes);
            }
        }
        up.len() == sizes.len() && down.len() == sizes.len()
    });
    assert_eq!(up, messages(10, &sizes));
    assert_eq!(down, messages(20, &sizes));

    // Unreliable both ways (a lossless loopback: all arrive).
    for i in 0..20 {
        client
            .send(&message(40 + i, 300), Delivery::Unreliable)
            .unwrap();
        server
            .send(id, &message(60 + i, 300), Delivery::Unreliable)
            .unwrap();
    }
    let (mut up, mut down) = (0, 0);
    run(&mut server, &mut client, |server, client| {
        up += std::iter::from_fn(|| server.poll_event())
            .filter(|e| {
                matches!(
                    e.event,
                    Event::Message {
                        reliable: false,
                        ..
                    }
                )
            })
            .count();
        down += std::iter::from_fn(|| client.poll_event())
            .filter(|e| {
                matches!(
                    e,
                    Event::Message {
                        reliable: false,
                        ..
                    }
                )
            })
            .count();
        up == 20 && down == 20
    });

    // Nothing the peers sent each other was dropped by netcode.
    assert_eq!(server.secure().unwrap().netcode_stats().dropped_total(), 0);
    assert_eq!(client.secure().unwrap().netcode_stats().dropped_total(), 0);

    // The client closes: the server sees the peer's close and frees the slot.
    client.close().unwrap();
    assert!(client.machine().is_closed());
    let mut reason = None;
    run(&mut server, &mut client, |server, _| {
        while let Some(e) = server.poll_event() {
            if let Event::Disconnected { reason: r } = e.event {
                reason = Some(r);
            }
        }
        reason.is_some()
    });
    assert_eq!(reason, Some(DisconnectReason::PeerClosed));
    let start = Instant::now();
    while server.secure().unwrap().netcode().connected_clients() > 0 {
        assert!(start.elapsed() < DEADLINE);
        server.poll(Duration::from_millis(1)).unwrap();
    }
}

#[test]
fn a_server_close_reaches_a_secure_client() {
    let (mut server, mut client) = secure_pair(5);
    let mut id: Option<ConnectionId> = None;
    run(&mut server, &mut client, |server, client| {
        while let Some(e) = server.poll_event() {
            id = Some(e.connection);
        }
        id.is_some() && client.machine().is_connected()
    });
    server.close(id.unwrap()).unwrap();
    let mut reason = None;
    run(&mut server, &mut client, |_, client| {
        while let Some(e) = client.poll_event() {
            if let Event::Disconnected { reason: r } = e {
                reason = Some(r);
            }
        }
        reason.is_some()
    });
    assert_eq!(reason, Some(DisconnectReason::PeerClosed));
    assert_eq!(
        client.secure().unwrap().netcode().state(),
        ClientState::Disconnected
    );
    assert!(matches!(
        client.send(b"late", Delivery::Reliable),
        Err(Error::Closed)
    ));
}

#[test]
fn a_secure_server_needs_the_address_its_tokens_name() {
    let err = Server::bind_secure("0.0.0.0:0", Config::default(), PROTOCOL_ID, Key::generate())
        .unwrap_err();
    assert!(matches!(err, Error::InvalidConfig(_)), "{err}");
    let large = Config::builder()
        .extensions(true)
        .max_datagram_size(1400)
        .build()
        .unwrap();
    let err = Server::bind_secure("127.0.0.1:0", large.clone(), PROTOCOL_ID, Key::generate())
        .unwrap_err();
    assert!(matches!(err, Error::InvalidConfig(_)), "{err}");
    let token = token(&Key::generate(), 1, "127.0.0.1:9".parse().unwrap());
    assert!(matches!(
        Client::connect_secure(token, large),
        Err(Error::InvalidConfig(_))
    ));
}

/// A server is secure or plain, never both: a plain client gets no answer from a secure
/// server (its `Init` is dropped and counted), and a secure client none from a plain one.
#[test]
fn plain_and_secure_peers_do_not_connect_to_each_other() {
    let quick = Config::builder()
        .connect_timeout(Duration::from_millis(600))
        .build()
        .unwrap();
    let key = Key::generate();
    let mut secure =
        Server::bind_secure("127.0.0.1:0", Config::default(), PROTOCOL_ID, key.clone()).unwrap();
    let mut plain_client = Client::connect(secure.local_addr().unwrap(), quick.clone()).unwrap();
    until_gave_up(&mut secure, &mut plain_client);
    let stats = secure.secure().unwrap().netcode_stats().clone();
    assert!(stats.dropped_total() > 0, "{stats:?}");
    assert_eq!(secure.poll_event(), None);

    let mut plain = Server::bind("127.0.0.1:0", Config::default()).unwrap();
    let address = plain.local_addr().unwrap();
    let short = token_builder(2, address)
        .timeout_seconds(1)
        .issue(&key, SystemTime::now())
        .unwrap();
    let mut secure_client = Client::connect_secure(short, Config::default()).unwrap();
    until_gave_up(&mut plain, &mut secure_client);
    assert_eq!(
        secure_client.secure().unwrap().netcode().state(),
        ClientState::ConnectionRequestTimedOut
    );
    assert_eq!(plain.poll_event(), None);
    assert!(plain.machine().server_stats().malformed > 0);
}

#[cfg(feature = "tokio")]
#[test]
fn a_secure_client_and_server_exchange_messages_through_the_tokio_driver() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let key = Key::generate();
        let mut server = hopnet::tokio::Server::bind_secure(
            "127.0.0.1:0",
            Config::default(),
            PROTOCOL_ID,
            key.clone(),
        )
        .await
        .unwrap();
        let address = server.local_addr().unwrap();
        // The server echoes every message with its delivery, and reports the client id.
        let echo = tokio::spawn(async move {
            let mut client_id = None;
            loop {
                let e = server.recv().await.unwrap();
                match e.event {
                    Event::Connected => {
                        client_id = server.secure().and_then(|s| s.client_id(e.connection));
                    }
                    Event::Message { bytes, reliable } => {
                        let delivery = if reliable {
                            Delivery::ReliableOrdered
                        } else {
                            Delivery::Unreliable
                        };
                        server.send(e.connection, &bytes, delivery).await.unwrap();
                    }
                    Event::Disconnected { reason } => return (client_id, reason),
                    _ => {}
                }
            }
        });
        let mut client =
            hopnet::tokio::Client::connect_secure(token(&key, 31, address), Config::default())
                .await
                .unwrap();
        assert_eq!(client.recv().await.unwrap(), Event::Connected);
        let sizes = [1, 700, 129_024];
        for (i, &len) in sizes.iter().enumerate() {
            client
                .send(&message(i, len), Delivery::ReliableOrdered)
                .await
                .unwrap();
        }
        let mut echoed = Vec::new();
        while echoed.len() < sizes.len() {
            let event = tokio::time::timeout(DEADLINE, client.recv())
                .await
                .expect("echo in time")
                .unwrap();
            if let Event::Message { bytes, .. } = event {
                echoed.push(bytes);
            }
        }
        for (i, &len) in sizes.iter().enumerate() {
            assert_eq!(echoed[i], message(i, len));
        }
        client.close().await.unwrap();
        let (client_id, reason) = tokio::time::timeout(DEADLINE, echo).await.unwrap().unwrap();
        assert_eq!(client_id, Some(31));
        assert_eq!(reason, DisconnectReason::PeerClosed);
    });
}
