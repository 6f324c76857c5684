//! Bad bytes from a peer cost it its message and nothing else: a server app and a client
//! app, each fed payloads that are not what the protocol registered (unknown tags, no tag,
//! cut short, impossible counts, bytes left over, random bytes) by a raw hopnet peer on the
//! simulator. Every one is dropped and reported with the peer and the reason; nothing panics;
//! the connection goes on and a good message still arrives.

mod common;

use std::time::Duration;

use bevy::prelude::*;
use common::Stepper;
use hopnet::sim::LinkConfig;
use hopnet_bevy::Peer;
use hopnet_bevy::prelude::*;
use hopnet_bevy::sim::SimNet;
use hopnet_bevy::transport::ClientTransport;
use hopnet_codec::Rabbit;

#[derive(Rabbit, Debug, Clone, PartialEq)]
struct Chat {
    #[bits(3)]
    room: u8,
    lines: Vec<String>,
}

#[derive(Resource, Default)]
struct Seen {
    chats: Vec<Chat>,
    errors: Vec<(Option<Peer>, String)>,
}

fn record(
    mut from_clients: MessageReader<FromClient<Chat>>,
    mut from_server: MessageReader<FromServer<Chat>>,
    mut errors: MessageReader<NetworkError>,
    mut seen: ResMut<Seen>,
) {
    seen.chats
        .extend(from_clients.read().map(|m| m.message.clone()));
    seen.chats
        .extend(from_server.read().map(|m| m.message.clone()));
    seen.errors
        .extend(errors.read().map(|e| (e.peer(), e.to_string())));
}

const TICK: Duration = Duration::from_millis(16);

/// A side's app (`plugin`, and its `NetServer` or `NetClient` as `side`) that registers
/// `Chat` and records what it sees.
fn app(plugin: impl Plugin, side: impl Resource) -> App {
    let mut app = common::app(TICK);
    app.init_resource::<Seen>()
        // Both, so that one system records on either side.
        .add_message::<FromClient<Chat>>()
        .add_message::<FromServer<Chat>>()
        .add_systems(Update, record)
        .add_plugins(plugin)
        .insert_resource(side)
        .add_network_message::<Chat>(hopnet::Delivery::ReliableOrdered);
    app
}

/// Payloads that are wrong in every way the framing allows, and a good one last.
fn payloads() -> Vec<Vec<u8>> {
    let good = Chat {
        room: 5,
        lines: vec!["gg".into()],
    };
    let tagged = |tag: u32, body: &dyn Fn(&mut hopnet_codec::BitWriter<'_>)| {
        let mut out = Vec::new();
        let mut w = hopnet_codec::BitWriter::new(&mut out);
        hopnet_codec::Encode::encode(&tag, &mut w).unwrap();
        body(&mut w);
        w.finish();
        out
    };
    let whole = hopnet_codec::to_bytes(&(0u32, &good)).unwrap();
    let mut left_over = whole.clone();
    left_over.push(0x5a);
    vec![
        // Tag 7: nothing registered.
        tagged(7, &|_| {}),
        // A tag larger than any.
        tagged(u32::MAX, &|w| w.write_bits(0xff, 8)),
        // No tag at all.
        Vec::new(),
        // Chat, cut short.
        whole[..whole.len() - 2].to_vec(),
        // Chat claiming four billion lines in a few bytes.
        tagged(0, &|w| {
            w.write_bits(5, 3);
            hopnet_codec::Encode::encode(&u32::MAX, w).unwrap();
        }),
        // Chat, then a byte more.
        left_over,
        // The good one.
        whole,
    ]
}

#[test]
fn a_server_app_drops_and_reports_what_a_client_gets_wrong() {
    let net = SimNet::new(9, hopnet::Config::default(), LinkConfig::default());
    let server = app(HopnetServerPlugin, NetServer::new(net.server()));
    // A client that is no Bevy app: it sends whatever it likes.
    let mut raw = net.client(hopnet::Config::default());
    let mut stepper = Stepper::new(server, Vec::new());
    stepper.frames(100);
    let id = stepper
        .server
        .world()
        .resource::<NetServer>()
        .clients()
        .next()
        .expect("connected");
    let bad = payloads();
    for p in &bad {
        raw.send(p, hopnet::Delivery::ReliableOrdered).unwrap();
    }
    // And random bytes, as many as the reliable queue takes, unreliable.
    let mut x = 0x9e37_79b9_u32;
    let mut random = 0;
    for len in 0..300usize {
        let bytes: Vec<u8> = (0..len % 60)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        raw.send(&bytes, hopnet::Delivery::Unreliable).unwrap();
        random += 1;
    }
    stepper.frames(200);
    let server = &stepper.server;
    let seen = server.world().resource::<Seen>();
    let good = Chat {
        room: 5,
        lines: vec!["gg".into()],
    };
    // Random bytes that happen to decode as a Chat are Chats; everything else is reported.
    assert!(seen.chats.contains(&good), "{:?}", seen.chats);
    let from_raw = seen
        .errors
        .iter()
        .filter(|(peer, _)| *peer == Some(Peer::Client(id)))
        .count();
    assert_eq!(
        from_raw + seen.chats.len(),
        bad.len() + random,
        "every payload decoded or reported: {:?}",
        seen.errors
    );
    let text: Vec<&str> = seen.errors.iter().map(|(_, t)| t.as_str()).collect();
    for expect in [
        "unknown tag 7",
        &format!("unknown tag {}", u32::MAX),
        "without a tag",
        "did not decode",
    ] {
        assert!(
            text.iter().any(|t| t.contains(expect)),
            "{expect}: {text:?}"
        );
    }
    assert!(server.world().resource::<NetServer>().is_connected(id));
}

#[test]
fn a_client_app_drops_and_reports_what_the_server_gets_wrong() {
    let net = SimNet::new(10, hopnet::Config::default(), LinkConfig::default());
    let client = app(
        HopnetClientPlugin,
        NetClient::new(net.client(hopnet::Config::default())),
    );
    // The server is no Bevy app: in its place, an app that steps the network, and the test
    // sends raw payloads from the network's server.
    let mut network = common::app(TICK);
    let stepped = net.clone();
    network.add_systems(Update, move || stepped.with(|n| n.step(TICK)));
    let mut stepper = Stepper::new(network, vec![client]);
    stepper.frames(100);
    assert!(
        stepper.clients[0]
            .world()
            .resource::<NetClient>()
            .is_connected()
    );
    let id = net.with(|n| {
        while n.server().poll_event().is_some() {}
        n.server().connections().next().expect("connected")
    });
    let bad = payloads();
    net.with(|n| {
        for p in &bad {
            n.server()
                .send(id, p, hopnet::Delivery::ReliableOrdered)
                .unwrap();
        }
    });
    stepper.frames(200);
    let client = &stepper.clients[0];
    let seen = client.world().resource::<Seen>();
    assert_eq!(seen.chats.len(), 1, "{:?}", seen.chats);
    assert_eq!(seen.errors.len(), bad.len() - 1, "{:?}", seen.errors);
    assert!(
        seen.errors
            .iter()
            .all(|(peer, _)| *peer == Some(Peer::Server))
    );
    assert!(client.world().resource::<NetClient>().is_connected());
}
