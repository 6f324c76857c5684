//! Snapshots replicated as deltas between a server app and client apps over the simulator
//! with 20 % loss: every snapshot a client hands up is the server's snapshot of that tick,
//! newer than the one before; most arrive as deltas; a client that lost its baselines asks to
//! start again and gets whole snapshots, then deltas again.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use bevy::prelude::*;
use common::{Stepper, app};
use hopnet::sim::LinkConfig;
use hopnet_bevy::client::SnapshotClient;
use hopnet_bevy::prelude::*;
use hopnet_bevy::sim::SimNet;
use hopnet_codec::Rabbit;

#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
struct Piece {
    id: u32,
    x: i32,
    y: i32,
}

#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
struct Board {
    tick: u32,
    #[rabbit(key = "id")]
    pieces: Vec<Piece>,
}

/// The server's board, one tick further each frame: one piece moves, now and then one goes
/// and another comes.
#[derive(Resource)]
struct Game {
    board: Board,
    sent: BTreeMap<u32, Board>,
}

fn tick(mut game: ResMut<Game>, mut out: MessageWriter<SnapshotToClients<Board>>) {
    let game = &mut *game;
    let t = game.board.tick + 1;
    game.board.tick = t;
    let n = game.board.pieces.len();
    let moving = &mut game.board.pieces[t as usize % n];
    moving.x += 1;
    moving.y -= 2;
    if t.is_multiple_of(10) {
        game.board.pieces.remove(0);
        let id = game.board.pieces.last().map_or(0, |p| p.id) + 1;
        game.board.pieces.push(Piece { id, x: 0, y: 0 });
    }
    game.sent.insert(t, game.board.clone());
    out.write(SnapshotToClients::all(game.board.clone()));
}

#[derive(Resource, Default)]
struct Seen(Vec<Board>);

fn see(mut snapshots: MessageReader<SnapshotFromServer<Board>>, mut seen: ResMut<Seen>) {
    seen.0.extend(snapshots.read().map(|s| s.snapshot.clone()));
}

#[test]
fn clients_hand_up_the_servers_snapshots_mostly_as_deltas_and_recover_lost_baselines() {
    let link = LinkConfig {
        loss: 0.2,
        delay: Duration::from_millis(30),
        jitter: Duration::from_millis(20),
        ..LinkConfig::default()
    };
    let net = SimNet::new(3, hopnet::Config::default(), link);
    let frame = Duration::from_millis(16);

    let mut server = app(frame);
    server
        .add_plugins(HopnetServerPlugin)
        .insert_resource(NetServer::new(net.server()))
        .add_snapshot::<Board>()
        .insert_resource(Game {
            board: Board {
                tick: 0,
                pieces: (1..=40).map(|id| Piece { id, x: 0, y: 0 }).collect(),
            },
            sent: BTreeMap::new(),
        })
        .add_systems(
            Update,
            tick.run_if(|s: Res<NetServer>| s.clients().count() == 2),
        );

    let clients: Vec<App> = (0..2)
        .map(|_| {
            let mut client = app(frame);
            client
                .add_plugins(HopnetClientPlugin)
                .insert_resource(NetClient::new(net.client(hopnet::Config::default())))
                .add_snapshot::<Board>()
                .init_resource::<Seen>()
                .add_systems(Update, see);
            client
        })
        .collect();

    let mut stepper = Stepper::new(server, clients);
    stepper.frames(601);
    // Client 1 loses every baseline it held: the deltas already on their way name snapshots
    // it no longer has.
    stepper.clients[1].insert_resource(SnapshotClient::<Board>::default());
    stepper.frames(599);
    stepper.assert_no_errors();
    let (server, clients) = (&stepper.server, &stepper.clients);

    let sent = &server.world().resource::<Game>().sent;
    assert!(sent.len() > 1000, "{}", sent.len());
    for (i, client) in clients.iter().enumerate() {
        let seen = &client.world().resource::<Seen>().0;
        for s in seen {
            assert_eq!(Some(s), sent.get(&s.tick), "client {i}: tick {}", s.tick);
        }
        assert!(
            seen.windows(2).all(|w| w[0].tick < w[1].tick),
            "client {i}: handed up out of order"
        );
        // Most of what was sent arrived (at 20 % loss, a snapshot of a few datagrams).
        assert!(
            seen.len() * 2 > sent.len(),
            "client {i}: {} of {}",
            seen.len(),
            sent.len()
        );
        let stats = client.world().resource::<SnapshotClient<Board>>().stats();
        assert!(stats.deltas > stats.whole * 5, "client {i}: {stats:?}");
        assert_eq!(stats.undecodable, 0, "client {i}: {stats:?}");
        if i == 1 {
            // The state was replaced at frame 600: these count from there.
            assert!(
                stats.missing_baseline > 0 && stats.restarts > 0,
                "{stats:?}"
            );
            assert!(stats.whole > 0 && stats.deltas > 100, "{stats:?}");
            let last = seen.last().expect("snapshots after the loss").tick;
            assert!(
                last + 20 > sent.keys().last().copied().unwrap(),
                "recovered: {last}"
            );
        } else {
            assert_eq!(stats.missing_baseline, 0, "{stats:?}");
        }
    }
}
