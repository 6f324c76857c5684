//! Secure mode in the simulator: a `SecureServer` and secure clients on `SimNetwork`'s seeded
//! lossy links with a virtual clock. Many clients exchange reliable messages both ways under
//! loss, duplication and reordering, with the server writing GSO-shaped batches of sealed
//! datagrams; forged and replayed packets from a client's own address, and from the server's
//! toward a client, change nothing.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, SystemTime};

use hopnet_proto::secure::{DropReason, Key, SecureClient, SecureServer};
use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, ConnectionId, Delivery, Event};

mod common;
use common::lossy;
use common::secure::{
    FORGERY_DROPS, PROTOCOL_ID, assert_dropped, message, messages, token_builder,
};

type SecureNet = SimNetwork<SecureServer, SecureClient>;

fn network(seed: u64, link: LinkConfig, clients: u64) -> (SecureNet, Key) {
    let key = Key::generate();
    let mut net = SimNetwork::secure(seed, Config::default(), link, PROTOCOL_ID, &key);
    for client_id in 0..clients {
        let token = token_builder(1000 + client_id, net.server_addr())
            .timeout_seconds(30)
            .issue(&key, SystemTime::now())
            .unwrap();
        net.add_secure_client(Config::default(), token);
    }
    (net, key)
}

/// The server's connections by client index, once every client has connected, and the
/// messages the server received by then (by client index).
fn connect_all(net: &mut SecureNet) -> (Vec<ConnectionId>, Vec<Vec<Vec<u8>>>) {
    let n = net.client_count();
    let mut ids = HashMap::new();
    let mut early: HashMap<SocketAddr, Vec<Vec<u8>>> = HashMap::new();
    let connected = net.run_until(Duration::from_secs(60), |net| {
        while let Some(e) = net.server().poll_event() {
            match e.event {
                Event::Connected => {
                    ids.insert(e.peer, e.connection);
                }
                Event::Message { bytes, .. } => early.entry(e.peer).or_default().push(bytes),
                other => panic!("{other:?}"),
            }
        }
        ids.len() == n && (0..n).all(|i| net.client(i).is_connected())
    });
    assert!(connected, "{} of {n} connected", ids.len());
    let addrs = (0..n).map(|i| net.client_addr(i)).collect::<Vec<_>>();
    (
        addrs.iter().map(|a| ids[a]).collect(),
        addrs
            .iter()
            .map(|a| early.remove(a).unwrap_or_default())
            .collect(),
    )
}

#[test]
fn many_secure_clients_exchange_reliable_messages_over_a_bad_link() {
    let link = LinkConfig {
        corrupt: 0.01,
        ..lossy(0.1, 0.1, 0.05)
    };
    let (mut net, _) = network(11, link, 12);
    net.set_max_batch(64);
    // Queued before netcode connects: these wait, and go first.
    for i in 0..net.client_count() {
        net.client(i)
            .send(&message(i, 2000), Delivery::ReliableOrdered)
            .unwrap();
    }
    let (ids, early) = connect_all(&mut net);
    let sizes = [1, 505, 5000, 60_000];
    for (i, &id) in ids.iter().enumerate() {
        for (k, &len) in sizes.iter().enumerate() {
            net.client(i)
                .send(&message(100 * i + k, len), Delivery::ReliableOrdered)
                .unwrap();
            net.server()
                .machine()
                .send(
                    id,
                    &message(5000 + 100 * i + k, len),
                    Delivery::ReliableOrdered,
                )
                .unwrap();
        }
    }
    net.record_batches(true);
    let n = ids.len();
    let mut up = early;
    let mut down: Vec<Vec<Vec<u8>>> = vec![Vec::new(); n];
    let by_addr: HashMap<SocketAddr, usize> = (0..n).map(|i| (net.client_addr(i), i)).collect();
    // Up: the queued message, then the four; down: the four.
    let want_up = |i: usize| -> Vec<Vec<u8>> {
        std::iter::once(message(i, 2000))
            .chain(messages(100 * i, &sizes))
            .collect()
    };
    let want_down = |i: usize| messages(5000 + 100 * i, &sizes);
    let done = net.run_until(Duration::from_secs(300), |net| {
        while let Some(e) = net.server().poll_event() {
            if let Event::Message { bytes, .. } = e.event {
                up[by_addr[&e.peer]].push(bytes);
            }
        }
        for (i, got) in down.iter_mut().enumerate() {
            while let Some(e) = net.client(i).poll_event() {
                if let Event::Message { bytes, .. } = e {
                    got.push(bytes);
                }
            }
        }
        up.iter().all(|u| u.len() > sizes.len()) && down.iter().all(|d| d.len() >= sizes.len())
    });
    assert!(
        done,
        "not all arrived: up {:?} down {:?}; server {:?}",
        up.iter().map(Vec::len).collect::<Vec<_>>(),
        down.iter().map(Vec::len).collect::<Vec<_>>(),
        net.server().netcode_stats()
    );
    for i in 0..n {
        assert_eq!(up[i], want_up(i), "client {i} up");
        assert_eq!(down[i], want_down(i), "client {i} down");
    }
    // The server sent its sealed datagrams in batches, as a driver with GSO sends them.
    let server = net.server_addr();
    let batches = net.take_batches();
    let batched = batches
        .iter()
        .filter(|b| b.from == server && b.transmit.datagrams() > 1)
        .count();
    assert!(batched > 0, "no batch of sealed datagrams");
    for batch in batches.iter().filter(|b| b.from == server) {
        for datagram in batch.datagrams() {
            // A netcode payload packet or keep-alive: never hopnet's plaintext.
            assert!(matches!(datagram[0] & 0x0f, 4..=6), "{:#x}", datagram[0]);
        }
    }
    assert_eq!(net.server().unsealable(), 0);
    // Corrupted datagrams failed authentication; nothing else was dropped but what loss,
    // duplication and the end of the handshake explain.
    let stats = net.server().netcode_stats().clone();
    assert_dropped("server", &stats, &[DropReason::Unauthentic]);
}

/// Every event of every machine so far, the server's and client `i`'s; panics on a disconnect.
fn drain_expecting_no_disconnect(net: &mut SecureNet) -> (usize, usize) {
    let mut server_messages = 0;
    while let Some(e) = net.server().poll_event() {
        assert!(!matches!(e.event, Event::Disconnected { .. }), "{e:?}");
        server_messages += usize::from(matches!(e.event, Event::Message { .. }));
    }
    let mut client_messages = 0;
    for i in 0..net.client_count() {
        while let Some(e) = net.client(i).poll_event() {
            assert!(
                !matches!(e, Event::Disconnected { .. }),
                "client {i}: {e:?}"
            );
            client_messages += usize::from(matches!(e, Event::Message { .. }));
        }
    }
    (server_messages, client_messages)
}

/// An attacker on the path sees every packet and can send from either end's address, but has
/// no key: replays of everything it saw, disconnects it forges (random tags, and real packets
/// with their type changed to a disconnect) and hopnet's plaintext `END` close nothing.
#[test]
fn forged_and_replayed_packets_from_either_ends_address_change_nothing() {
    let (mut net, _) = network(5, LinkConfig::default(), 2);
    let (ids, _) = connect_all(&mut net);
    drain_expecting_no_disconnect(&mut net);
    net.record_batches(true);
    for k in 0..20 {
        net.client(0)
            .send(&message(k, 800), Delivery::Reliable)
            .unwrap();
        net.server()
            .machine()
            .send(ids[0], &message(k, 800), Delivery::Reliable)
            .unwrap();
    }
    net.step(Duration::from_secs(1));
    assert_eq!(drain_expecting_no_disconnect(&mut net), (20, 20));
    let seen = net.take_batches();
    assert!(!seen.is_empty());

    let mut forged = Vec::new();
    for batch in &seen {
        let (from, to) = (batch.from, batch.transmit.destination);
        for datagram in batch.datagrams() {
            forged.push((from, to, datagram.to_vec()));
            // The same packet, its type made a disconnect's (6), its sequence length kept.
            let mut retyped = datagram.to_vec();
            retyped[0] = (retyped[0] & 0xf0) | 6;
            forged.push((from, to, retyped));
            // Its tag damaged.
            let mut flipped = datagram.to_vec();
            *flipped.last_mut().unwrap() ^= 1;
            forged.push((from, to, flipped));
        }
    }
    let (server, client) = (net.server_addr(), net.client_addr(0));
    // Disconnects under sequences neither end has used yet (two bytes: 1,000 and up), so
    // that they pass the replay window and meet the tag check.
    for k in 0..64u16 {
        let [lo, hi] = (1000 + k).to_le_bytes();
        let mut disconnect = vec![0x26, lo, hi];
        disconnect.extend((0..16).map(|j| lo.wrapping_mul(7).wrapping_add(j)));
        forged.push((client, server, disconnect.clone()));
        forged.push((server, client, disconnect));
    }
    for sequence in 0..64u8 {
        let mut disconnect = vec![0x16, sequence];
        disconnect.extend((0..16).map(|j| sequence.wrapping_mul(31).wrapping_add(j)));
        forged.push((client, server, disconnect.clone()));
        forged.push((server, client, disconnect));
        // hopnet's plaintext END, which closes a plain connection from the peer's address.
        forged.push((client, server, vec![0x08, 0, 0, sequence]));
        forged.push((server, client, vec![0x08, 0, 0, sequence]));
    }
    for (from, to, bytes) in forged {
        net.inject(from, to, bytes);
    }
    net.step(Duration::from_secs(2));
    drain_expecting_no_disconnect(&mut net);
    assert!(net.client(0).is_connected() && net.client(1).is_connected());

    for (name, stats) in [
        ("server", net.server().netcode_stats().clone()),
        ("client", net.client(0).netcode_stats().clone()),
    ] {
        assert_dropped(name, &stats, &FORGERY_DROPS);
    }

    // And the connection works as before.
    net.client(0)
        .send(b"still here", Delivery::Reliable)
        .unwrap();
    net.server()
        .machine()
        .send(ids[0], b"so am I", Delivery::Reliable)
        .unwrap();
    net.step(Duration::from_millis(500));
    assert_eq!(drain_expecting_no_disconnect(&mut net), (1, 1));
}
