//! The game in secure mode over real loopback UDP: a game server on a secure driver server,
//! two bots on secure driver clients with tokens the test issues (as a backend would), playing
//! one round to `GameOver`. The game is the same above netcode; the server also knows each
//! player by the client id its token carries.

mod play;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, SystemTime};

use hopnet::secure::{ConnectTokenBuilder, Key};
use hopnet::{Client, Server};
use snow_fight::net::{UdpServer, play_bot_on};
use snow_fight::session::{BotPlayer, GameServer, RoundResult};

use crate::play::{TICK_RATE, server_config, short_game};

const PROTOCOL_ID: u64 = 0x736e_6f77;

#[test]
fn two_bots_play_a_round_in_secure_mode() {
    let key = Key::generate();
    let game = short_game(2, 3);
    let server_config = server_config(3, 2, game.clone());
    let transport = Server::bind_secure(
        "127.0.0.1:0",
        hopnet::Config::default(),
        PROTOCOL_ID,
        key.clone(),
    )
    .unwrap();
    let address: SocketAddr = transport.local_addr().unwrap();
    let mut server = UdpServer::with_server(transport, GameServer::new(server_config), TICK_RATE);
    let stop = Arc::new(AtomicBool::new(false));
    let server_thread = {
        let stop = stop.clone();
        thread::spawn(move || {
            let mut client_ids = Vec::new();
            server
                .run(|s| {
                    for (connection, _) in s.game.connections() {
                        let id = s.server.secure().and_then(|n| n.client_id(connection));
                        if let Some(id) = id
                            && !client_ids.contains(&id)
                        {
                            client_ids.push(id);
                        }
                    }
                    stop.load(Ordering::Relaxed)
                })
                .unwrap();
            client_ids.sort();
            (server.game.outcomes().to_vec(), client_ids)
        })
    };

    let bots: Vec<_> = (0..2u64)
        .map(|i| {
            let token = ConnectTokenBuilder::new(PROTOCOL_ID, 100 + i, [address])
                .issue(&key, SystemTime::now())
                .unwrap();
            let game = game.clone();
            thread::spawn(move || {
                let mut player = BotPlayer::new(game, 10 + i);
                player.ping_every = Duration::from_millis(250);
                let client = Client::connect_secure(token, hopnet::Config::default()).unwrap();
                let mut turns = 0u32;
                play_bot_on(client, &mut player, |p, _| {
                    turns += 1;
                    !p.results.is_empty() || turns > 20_000
                })
                .unwrap();
                player.results
            })
        })
        .collect();
    let results: Vec<Vec<RoundResult>> = bots.into_iter().map(|b| b.join().unwrap()).collect();
    stop.store(true, Ordering::Relaxed);
    let (outcomes, client_ids) = server_thread.join().unwrap();
    assert!(
        results.iter().all(|r| r.len() == 1),
        "each bot saw its GameOver: {results:?}"
    );
    assert!(!outcomes.is_empty(), "the round ended");
    assert_eq!(client_ids, [100, 101]);
}
