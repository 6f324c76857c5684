//! The game server with clients of both dialects: one speaking the spec's `ClientMessage`
//! encoding, one the original implementation's (a 1-bit tag), side by side over `hopnet`'s
//! simulated network. The server learns each connection's dialect from its first message that
//! decodes and answers both with the same bytes.

mod play;

use std::time::Duration;

use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet::{ConnectionId, Delivery, Event};
use hopnet_snow_fight::{self as wire, Dialect};
use snow_fight::session::{ClientEvent, GameClient, GameServer};
use snow_fight::{Config, Dir, Input, PlayerId};

use crate::play::{TICK_RATE, events, server, tick};

/// The server's connection that plays `player`.
fn connection_of(server: &GameServer, player: PlayerId) -> ConnectionId {
    server
        .connections()
        .into_iter()
        .find_map(|(c, p)| (p == Some(player)).then_some(c))
        .expect("the player has a connection")
}

/// The direction from `y` toward the middle of the world's height, so that a walk is not
/// stopped by the edge.
fn inward(y: f32, config: &Config) -> Dir {
    if y < config.height / 2.0 {
        Dir::NORTH
    } else {
        Dir::SOUTH
    }
}

#[test]
fn an_original_dialect_client_plays_next_to_a_spec_one() {
    let config = Config::for_tick_rate(TICK_RATE);
    // A perfect link: every Ping must get its Pong.
    let mut net = SimNetwork::new(11, hopnet::Config::default(), LinkConfig::default());
    let mut server = server(11, 8);
    let dialects = [Dialect::Original, Dialect::Spec];
    let mut clients: Vec<GameClient> = dialects
        .iter()
        .map(|&d| {
            net.add_client(hopnet::Config::default());
            GameClient::new().with_dialect(d)
        })
        .collect();
    let mut seen: Vec<Vec<ClientEvent>> = vec![Vec::new(); clients.len()];
    // Where each player stood and where it was sent walking.
    let mut walks: Vec<Option<(f32, Dir)>> = vec![None; clients.len()];
    // 4 s: a ping every half second from 0.5 s to 2.5 s (the connection is not up at 0 s),
    // then time for the last Pongs; a move at 1 s.
    for t in 0..4 * TICK_RATE {
        tick(&mut net, &mut server);
        let now = net.now();
        for (i, client) in clients.iter_mut().enumerate() {
            seen[i].extend(events(&mut net, i, client));
            if net.client(i).is_connected() && t < 3 * TICK_RATE && t % (TICK_RATE / 2) == 0 {
                client.send_ping(net.client(i), now);
            }
            if t == TICK_RATE
                && let Some(me) = client.me()
            {
                let dir = inward(me.pos.y, &config);
                walks[i] = Some((me.pos.y, dir));
                client.send_input(net.client(i), Input::Move(dir));
            }
        }
    }

    for (i, client) in clients.iter().enumerate() {
        let dialect = dialects[i];
        let events = &seen[i];
        let player = client
            .player()
            .unwrap_or_else(|| panic!("{dialect}: no Connect"));
        let joined = events
            .iter()
            .position(|e| *e == ClientEvent::Joined(player));
        let first_snapshot = events.iter().position(|e| *e == ClientEvent::Snapshot);
        assert!(joined.is_some(), "{dialect}: Connect");
        assert!(
            joined < first_snapshot,
            "{dialect}: Connect before snapshots"
        );
        let snapshots = client.stats().snapshots;
        assert!(
            snapshots > 3 * TICK_RATE as u64,
            "{dialect}: {snapshots} snapshots"
        );
        let (pings, pongs) = (client.stats().pings, client.stats().rtts.len());
        assert_eq!(pings, 5, "{dialect}: pings at 0.5, 1, 1.5, 2 and 2.5 s");
        assert_eq!(pongs, pings as usize, "{dialect}: a Pong per Ping");
        assert_eq!(client.stats().undecodable, 0, "{dialect}");

        // The server detected the dialect and applied the move: the player walks inward, in
        // the server's world and in the client's latest snapshot.
        let connection = connection_of(&server, player);
        assert_eq!(server.dialect(connection), Some(dialect));
        let (start_y, dir) = walks[i].unwrap_or_else(|| panic!("{dialect}: no player to move"));
        let on_server = server
            .world()
            .player_entity(player)
            .and_then(|e| e.player());
        assert_eq!(on_server.map(|p| p.movement), Some(dir), "{dialect}");
        let me = client.me().expect("alive");
        assert_eq!(me.movement, dir, "{dialect}");
        let walked = if dir == Dir::NORTH {
            me.pos.y - start_y
        } else {
            start_y - me.pos.y
        };
        assert!(walked > 1.0, "{dialect}: walked {walked}");
    }
    assert_eq!(server.stats().refused, 0);
    assert_eq!(server.players(), 2);
}

/// Sends `bytes` reliably from client 0, runs 300 ms of the network and the server (no ticks:
/// only responses come back), and collects the replies.
fn exchange(
    net: &mut SimNetwork,
    server: &mut GameServer,
    replies: &mut Vec<wire::ServerMessage>,
    bytes: &[u8],
) {
    net.client(0).send(bytes, Delivery::Reliable).unwrap();
    for _ in 0..30 {
        net.step(Duration::from_millis(10));
        server.poll(net.server());
        while let Some(event) = net.client(0).poll_event() {
            if let Event::Message { bytes, .. } = event {
                replies.push(hopnet_codec::from_bytes(&bytes).unwrap());
            }
        }
    }
}

/// A connection's dialect is unknown until a message decodes, then fixed: a later message in
/// the other dialect is dropped as undecodable, not taken as a change of mind.
#[test]
fn a_connections_dialect_is_fixed_by_its_first_decodable_message() {
    let mut net = SimNetwork::new(12, hopnet::Config::default(), LinkConfig::default());
    let mut server = server(12, 8);
    let c = net.add_client(hopnet::Config::default());
    assert!(net.run_until(Duration::from_secs(5), |n| n.client(c).is_connected()));
    let mut replies: Vec<wire::ServerMessage> = Vec::new();

    // Garbage decodes in neither dialect: dropped, the dialect stays unknown.
    exchange(&mut net, &mut server, &mut replies, &[0xff; 6]);
    assert_eq!(server.stats().refused, 1);
    let conn = server.connections()[0].0;
    assert_eq!(server.dialect(conn), None);

    // The original client's Init (channel 0): detected, answered with Connect.
    let init = Dialect::Original
        .to_bytes(&wire::ClientMessage::init(0u32))
        .unwrap();
    exchange(&mut net, &mut server, &mut replies, &init);
    assert_eq!(server.dialect(conn), Some(Dialect::Original));
    assert!(matches!(
        replies.last(),
        Some(wire::ServerMessage::Response(wire::Response {
            channel: wire::ChannelId(0),
            kind: wire::ResponseKind::Connect(_),
        }))
    ));

    // A spec-encoded Ping is no original message: dropped, no Pong, the dialect stays.
    let replies_before = replies.len();
    let spec_ping = Dialect::Spec
        .to_bytes(&wire::ClientMessage::ping(5u32))
        .unwrap();
    exchange(&mut net, &mut server, &mut replies, &spec_ping);
    assert_eq!(server.stats().refused, 2);
    assert_eq!(replies.len(), replies_before);
    assert_eq!(server.dialect(conn), Some(Dialect::Original));

    // The same Ping in the original dialect is answered.
    let ping = Dialect::Original
        .to_bytes(&wire::ClientMessage::ping(6u32))
        .unwrap();
    exchange(&mut net, &mut server, &mut replies, &ping);
    assert_eq!(
        replies.last(),
        Some(&wire::ServerMessage::response(
            6u32,
            wire::ResponseKind::Pong
        ))
    );
    assert_eq!(server.stats().refused, 2);
}
