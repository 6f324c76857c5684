//! Tracked messages (sent once with `REL`, reported acknowledged or lost) and the sender's hold
//! of ordered messages toward a peer without the extensions: what each reports, and what each
//! keeps.

mod common;

use std::time::Duration;

use common::sent_by;
use hopnet_proto::sim::{LinkConfig, Pair, SimNetwork};
use hopnet_proto::{Config, ConfigBuilder, Delivery, Error, Event, MessageId};

fn extended() -> ConfigBuilder {
    Config::builder().extensions(true)
}

/// A network and its one client, connected with `client` to a server of `server`.
fn connected(seed: u64, server: Config, client: Config) -> (SimNetwork, usize) {
    let mut net = SimNetwork::new(seed, server, LinkConfig::default());
    let c = net.add_client(client);
    assert!(net.run_until(Duration::from_secs(2), |n| n.client(c).is_connected()));
    (net, c)
}

/// A link that loses everything: what is sent over it is never acknowledged.
fn cut() -> LinkConfig {
    LinkConfig {
        loss: 1.0,
        ..LinkConfig::default()
    }
}

fn outcomes(pair: &mut Pair) -> (Vec<MessageId>, Vec<MessageId>) {
    let (mut acked, mut lost) = (Vec::new(), Vec::new());
    while let Some(e) = pair.client().poll_event() {
        match e {
            Event::Acknowledged { id } => acked.push(id),
            Event::Lost { id } => lost.push(id),
            _ => {}
        }
    }
    (acked, lost)
}

#[test]
fn tracked_messages_are_acknowledged_on_both_wires() {
    for config in [Config::default(), extended().build().unwrap()] {
        let mut pair = Pair::new(config);
        pair.step(Duration::from_millis(100));
        let ids: Vec<MessageId> = (0..20)
            .map(|i| pair.client().send_tracked(&vec![i; 700]).unwrap())
            .collect();
        pair.step(Duration::from_millis(100));
        let (acked, lost) = outcomes(&mut pair);
        assert_eq!((acked, lost), (ids, vec![]));
        assert_eq!(pair.server_messages().len(), 20);
        let stats = pair.client().stats();
        assert_eq!((stats.tracked_acked, stats.retransmissions), (20, 0));
    }
}

#[test]
fn unacknowledged_tracked_messages_are_lost_and_never_sent_again() {
    for config in [Config::default(), extended().build().unwrap()] {
        let (mut net, c) = connected(1, config.clone(), config);
        net.step(Duration::from_millis(100));
        // Acknowledgements never come back.
        net.set_downlink(cut());
        let id = net.client(c).send_tracked(b"snapshot").unwrap();
        net.step(Duration::from_millis(999));
        assert!(
            std::iter::from_fn(|| net.client(c).poll_event())
                .all(|e| !matches!(e, Event::Lost { .. })),
            "not before the tracked timeout"
        );
        net.step(Duration::from_millis(2));
        let events: Vec<Event> = std::iter::from_fn(|| net.client(c).poll_event()).collect();
        assert_eq!(events, [Event::Lost { id }]);
        let mut delivered = 0;
        while let Some(e) = net.server().poll_event() {
            delivered += usize::from(matches!(e.event, Event::Message { .. }));
        }
        assert_eq!(delivered, 1, "it arrived, once: only its ACK was lost");
        assert_eq!(net.client(c).stats().retransmissions, 0);
    }
}

#[test]
fn tracked_messages_beyond_the_limit_evict_the_oldest() {
    let config = Config::builder().max_tracked(4).build().unwrap();
    let (mut net, c) = connected(2, Config::default(), config);
    net.client(c).poll_event();
    net.set_downlink(cut());
    let ids: Vec<MessageId> = (0..6)
        .map(|_| net.client(c).send_tracked(b"x").unwrap())
        .collect();
    let events: Vec<Event> = std::iter::from_fn(|| net.client(c).poll_event()).collect();
    assert_eq!(
        events,
        [Event::Lost { id: ids[0] }, Event::Lost { id: ids[1] }]
    );
}

#[test]
fn a_servers_tracked_message_pushed_out_by_a_send_is_reported_at_once() {
    // The eviction happens inside the send: the server's next poll_event must see it, not a
    // later pass over its connections.
    let config = Config::builder().max_tracked(1).build().unwrap();
    let mut pair = Pair::new(config);
    let id = pair.id();
    let server = pair.server();
    while server.poll_event().is_some() {}
    let first = server.send_tracked(id, b"first").unwrap();
    server.send_tracked(id, b"second").unwrap();
    assert_eq!(
        server.poll_event().map(|e| e.event),
        Some(Event::Lost { id: first })
    );
}

/// A pair at `config`, whose server has received every chunk of a 3,000-byte tracked message
/// but the second one; returns the pair after that.
fn one_chunk_short(config: Config) -> Pair {
    let mut pair = Pair::with_seed(3, config.clone(), config);
    pair.step(Duration::from_millis(100));
    // Pseudo-random bytes: compression must not make it one chunk.
    let bytes: Vec<u8> = (0..3000u32)
        .map(|i| (i.wrapping_mul(0x9e37_79b1) >> 19) as u8)
        .collect();
    pair.client().send_tracked(&bytes).unwrap();
    let (from, to) = (pair.client_addr(), pair.server_addr());
    let datagrams = sent_by(&pair.take_outgoing(), from);
    assert!(datagrams.len() >= 3, "{}", datagrams.len());
    for (i, d) in datagrams.into_iter().enumerate() {
        if i != 1 {
            pair.network().inject(from, to, d);
        }
    }
    pair.drive();
    pair
}

#[test]
fn an_incomplete_tracked_message_expires_like_an_unreliable_one_on_the_extended_wire() {
    let mut pair = one_chunk_short(extended().build().unwrap());
    let id = pair.id();
    assert!(pair.server().stats(id).unwrap().reassembly_bytes > 0);
    pair.step(Duration::from_millis(1100));
    let stats = pair.server().stats(id).unwrap();
    assert_eq!((stats.unreliable_expired, stats.reassembly_bytes), (1, 0));
    assert!(pair.server_messages().is_empty());
}

#[test]
fn toward_a_spec_receiver_an_incomplete_tracked_message_waits_as_a_reliable_one() {
    let mut pair = one_chunk_short(Config::default());
    let id = pair.id();
    pair.step(Duration::from_secs(29));
    let stats = pair.server().stats(id).unwrap();
    assert!(
        stats.reassembly_bytes > 0 && stats.unreliable_expired == 0,
        "{stats:?}"
    );
    pair.step(Duration::from_secs(2));
    let stats = pair.server().stats(id).unwrap();
    assert_eq!((stats.reliable_abandoned, stats.reassembly_bytes), (1, 0));
}

#[test]
fn ordered_messages_toward_a_spec_peer_wait_in_the_sender_within_its_limit() {
    let config = Config::builder().max_pending_reliable(16).build().unwrap();
    let (mut net, c) = connected(4, Config::default(), config);
    net.set_downlink(cut());
    for i in 0..16u8 {
        let d = if i % 2 == 0 {
            Delivery::SemiOrdered
        } else {
            Delivery::ReliableOrdered
        };
        net.client(c).send(&[i], d).unwrap();
    }
    assert!(matches!(
        net.client(c).send(b"more", Delivery::SemiOrdered),
        Err(Error::WouldBlock)
    ));
    net.step(Duration::from_secs(3));
    let stats = net.client(c).stats();
    // The first left (and is resent: no ACK comes back); the others wait for it.
    assert_eq!((stats.pending_reliable, stats.ordered_waiting), (16, 15));
    let mut got = Vec::new();
    while let Some(e) = net.server().poll_event() {
        if let Event::Message { bytes, .. } = e.event {
            got.push(bytes);
        }
    }
    assert_eq!(got, [vec![0u8]], "only the first reached the receiver");
    // Acknowledgements flow again: the rest follow, in order.
    net.set_downlink(LinkConfig::default());
    net.run_until(Duration::from_secs(30), |n| {
        n.client(c).stats().pending_reliable == 0
    });
    while let Some(e) = net.server().poll_event() {
        if let Event::Message { bytes, .. } = e.event {
            got.push(bytes);
        }
    }
    let want: Vec<Vec<u8>> = (0..16u8).map(|i| vec![i]).collect();
    assert_eq!(got, want);
}
