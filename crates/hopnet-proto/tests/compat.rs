//! The extensions never break a peer that speaks only the spec, at any loss rate, in either
//! direction: our extended client against the model of the spec author's server, the strict
//! reader of the spec and an `Server` without extensions, and a client without extensions
//! against an extended `Server`. Byte-level: every datagram such a peer receives is a packet
//! the spec defines (reserved bits zero, no `REL | ACK`, chunk 255 only with `FIN`), offers
//! included, which a spec peer reads as an `ACK` of nothing; the 4-byte handshake datagrams
//! aside.

mod common;

use std::time::Duration;

use common::servers::{Kind, TestServer};
use common::{index_of, payload, sent_by};
use hopnet_proto::fuzzing::ext::datagram::{MARKER, MIN_LEN};
use hopnet_proto::fuzzing::ext::negotiate::{NEGOTIATION_LEN, is_negotiation};
use hopnet_proto::fuzzing::packet::{Flags, Header, is_handshake_shaped};
use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, Delivery, Event, Machine, Server};

fn extended() -> Config {
    Config::builder()
        .extensions(true)
        .max_datagram_size(1200)
        .connect_timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

fn spec() -> Config {
    Config::builder()
        .connect_timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

fn links() -> [LinkConfig; 3] {
    let lossy = |loss| LinkConfig {
        loss,
        reorder: 0.1,
        ..LinkConfig::default()
    };
    [LinkConfig::default(), lossy(0.1), lossy(0.2)]
}

/// A recording network over every link and seed, its server configured `server`, and the
/// case's name.
fn networks(server: fn() -> Config) -> impl Iterator<Item = (SimNetwork, String)> {
    links().into_iter().enumerate().flat_map(move |(l, link)| {
        (0..8).map(move |seed| {
            let mut net = SimNetwork::new(seed, server(), link.clone());
            net.record_batches(true);
            (net, format!("link {l} seed {seed}"))
        })
    })
}

/// Whether `d` is a packet the spec defines, as its strictest reader takes it: a header with
/// its reserved bits zero, not both `REL` and `ACK`, and `FIN` if it names chunk 255. An offer
/// is one: an `ACK | FIN` of chunk 255, whose payload a spec peer ignores.
fn spec_shaped(d: &[u8]) -> bool {
    let Some((header, _)) = Header::decode(d) else {
        return false;
    };
    let offer = !is_negotiation(d)
        || (d.len() == NEGOTIATION_LEN && header.flags == Flags::ACK | Flags::FIN);
    d[0] & Flags::RESERVED_MASK == 0
        && !header.flags.contains(Flags::REL | Flags::ACK)
        && (header.chunk != 255 || header.flags.contains(Flags::FIN))
        && offer
}

/// Connects client 0 with `config`, sends 60 messages of every mode, and runs until the
/// server `serve`d an echo of every reliable one; returns how many echoes came back.
fn echo_all_modes<S: Machine>(
    net: &mut SimNetwork<S>,
    config: Config,
    mut serve: impl FnMut(&mut S),
) -> usize {
    let c = net.add_client(config);
    assert!(net.run_until(Duration::from_secs(60), |n| n.client(c).is_connected()));
    for i in 0..60u32 {
        let d = Delivery::ALL[i as usize % Delivery::ALL.len()];
        net.client(c)
            .send(&payload(i, 300 + 97 * i as usize), d)
            .unwrap();
        net.step(Duration::from_millis(3));
    }
    let mut echoed = vec![0u32; 60];
    net.run_until(Duration::from_secs(120), |n| {
        serve(n.server());
        while let Some(e) = n.client(c).poll_event() {
            if let Event::Message { bytes, .. } = e {
                echoed[index_of(&bytes).expect("intact echo") as usize] += 1;
            }
        }
        let reliable = |i: &usize| Delivery::ALL[i % Delivery::ALL.len()].is_reliable();
        (0..60).filter(reliable).all(|i| echoed[i] > 0)
    });
    // Stragglers, then the state of things.
    net.step(Duration::from_secs(2));
    serve(net.server());
    assert!(echoed.iter().all(|&n| n <= 1), "an echo twice: {echoed:?}");
    for (i, &n) in echoed.iter().enumerate() {
        if Delivery::ALL[i % Delivery::ALL.len()].is_reliable() {
            assert_eq!(n, 1, "reliable message {i} not echoed");
        }
    }
    echoed.iter().filter(|&&n| n > 0).count()
}

fn echo(endpoint: &mut Server) {
    while let Some(e) = endpoint.poll_event() {
        if let Event::Message { bytes, .. } = e.event {
            let _ = endpoint.send(e.connection, &bytes, Delivery::Reliable);
        }
    }
}

/// Our extended client against a server that speaks only the spec and never confirms.
fn extended_client_against(kind: Kind) {
    for (l, link) in links().into_iter().enumerate() {
        for seed in 0..8 {
            let server = TestServer::new(kind, seed);
            let mut net = SimNetwork::with_server(seed, server, link.clone());
            net.record_batches(true);
            echo_all_modes(&mut net, extended(), |_| {});
            let context = format!("{kind:?} link {l} seed {seed}: {}", net.server().summary());
            assert_eq!(net.server().objection(), None, "{context}");
            // Reordering can put the probe ahead of the response it follows, which fails the
            // handshake (the next probe starts a new one): see tests/handshake.rs.
            if l == 0 {
                assert_eq!(net.server().handshakes(), (1, 0), "{context}");
            }
            assert_eq!(net.client(0).extensions(), None, "{context}");
            let batches = net.take_batches();
            let from = net.client_addr(0);
            let sent = sent_by(&batches, from);
            // Init, response and probe are 4-byte handshake datagrams; everything after is
            // spec-shaped, and some offers were made.
            let after: Vec<_> = sent.iter().skip_while(|d| d.len() == 4).collect();
            assert!(after.iter().all(|d| spec_shaped(d)), "{context}");
            assert!(
                after.iter().any(|d| is_negotiation(d)),
                "{context}: no offer"
            );
            assert!(after.iter().all(|d| d[0] != MARKER), "{context}");
        }
    }
}

#[test]
fn extended_client_against_the_original_server() {
    extended_client_against(Kind::Original);
}

#[test]
fn extended_client_against_the_strict_server() {
    extended_client_against(Kind::Strict);
}

#[test]
fn extended_client_against_the_same_pepper_server() {
    extended_client_against(Kind::SamePepper);
}

#[test]
fn extended_client_against_an_endpoint_without_extensions() {
    for (mut net, context) in networks(spec) {
        echo_all_modes(&mut net, extended(), echo);
        assert_eq!(net.client(0).extensions(), None, "{context}");
        let id = net.server().connections().next().unwrap();
        let stats = net.server().stats(id).unwrap();
        assert_eq!(
            (stats.malformed, stats.extensions_refused),
            (0, 0),
            "{context}"
        );
        let batches = net.take_batches();
        let (client, server) = (net.client_addr(0), net.server_addr());
        let from_client = sent_by(&batches, client);
        let after: Vec<_> = from_client.iter().skip_while(|d| d.len() == 4).collect();
        assert!(after.iter().all(|d| spec_shaped(d)), "{context}");
        let from_server = sent_by(&batches, server);
        let packets = from_server.iter().filter(|d| !is_handshake_shaped4(d));
        assert!(packets.clone().all(|d| spec_shaped(d)), "{context}");
    }
}

/// An extended datagram: the marker, and never as short as a handshake datagram (a
/// `Challenge` may start with the marker's byte too).
fn extended_datagram(d: &[u8]) -> bool {
    d.len() >= MIN_LEN && d[0] == MARKER
}

/// A 4-byte datagram with a reserved bit set: a `Challenge`.
fn is_handshake_shaped4(d: &[u8]) -> bool {
    <[u8; 4]>::try_from(d).is_ok_and(is_handshake_shaped)
}

#[test]
fn client_without_extensions_against_an_extended_endpoint() {
    for (mut net, context) in networks(extended) {
        // The server echoes in every mode, ordered ones included: toward a peer that did
        // not agree, it holds them itself.
        let mut k = 0;
        echo_all_modes(&mut net, spec(), |e: &mut Server| {
            while let Some(ev) = e.poll_event() {
                if let Event::Message { bytes, .. } = ev.event {
                    let d = [
                        Delivery::Reliable,
                        Delivery::ReliableOrdered,
                        Delivery::SemiOrdered,
                    ][k % 3];
                    k += 1;
                    let _ = e.send(ev.connection, &bytes, d);
                }
            }
        });
        let id = net.server().connections().next().unwrap();
        assert_eq!(net.server().extensions(id), None, "{context}");
        let batches = net.take_batches();
        let server = net.server_addr();
        let from_server = sent_by(&batches, server);
        let packets: Vec<_> = from_server
            .iter()
            .filter(|d| !is_handshake_shaped4(d))
            .collect();
        assert!(!packets.is_empty());
        assert!(packets.iter().all(|d| spec_shaped(d)), "{context}");
        let from_client = sent_by(&batches, net.client_addr(0));
        let after: Vec<_> = from_client.iter().skip_while(|d| d.len() == 4).collect();
        assert!(after.iter().all(|d| spec_shaped(d)), "{context}");
    }
}

#[test]
fn an_extended_server_speaks_extended_only_after_its_client_did() {
    for seed in 0..16 {
        let lossy = common::lossy(0.2, 0.2, 0.05);
        let mut net = SimNetwork::new(seed, extended(), lossy);
        net.record_batches(true);
        echo_all_modes(&mut net, extended(), echo);
        let batches = net.take_batches();
        let (client, server) = (net.client_addr(0), net.server_addr());
        let first_ext = |from| {
            batches
                .iter()
                .position(|b| b.from == from && b.datagrams().any(extended_datagram))
        };
        let (c, s) = (first_ext(client), first_ext(server));
        assert!(c.is_some() && s.is_some(), "seed {seed}: {c:?} {s:?}");
        assert!(c < s, "seed {seed}: the server spoke first");
        // Before that, the server's datagrams were all spec-shaped (accepts included).
        let before = batches[..s.unwrap()].iter().filter(|b| b.from == server);
        for d in before.flat_map(|b| b.datagrams().map(<[u8]>::to_vec).collect::<Vec<_>>()) {
            assert!(
                is_handshake_shaped4(&d) || spec_shaped(&d),
                "seed {seed}: {d:02x?}"
            );
        }
        let id = net.server().connections().next().unwrap();
        assert!(net.server().extensions(id).is_some());
    }
}
