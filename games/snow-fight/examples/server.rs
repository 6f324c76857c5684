//! A game server: accepts players, runs rounds at a fixed tick rate, sends a snapshot to every
//! player each tick (or `--snapshot-rate` a second; as deltas to clients that ask) and
//! `GameOver` at the end of a round, then starts the next.
//!
//! ```text
//! cargo run --release --example server -- --bind 127.0.0.1:7000 --snapshot-rate 20
//! cargo run --release --example client -- --connect 127.0.0.1:7000          # a terminal player
//! cargo run --release --example client -- --connect 127.0.0.1:7000 --bot    # a bot
//! ```
//!
//! Secure mode (hopnet over netcode 1.02, PROTOCOL.md "Secure mode"), the echo example's
//! options: `--secure --key-file F --protocol-id N`; clients then need a connect token sealed
//! under that key (`--token-file`, or the key to mint one locally):
//!
//! ```text
//! cargo run -p hopnet --example netcode_token -- --new-key server.key
//! cargo run --release --example server -- --bind 127.0.0.1:7000 --secure --key-file server.key --protocol-id 7
//! cargo run --release --example client -- --connect 127.0.0.1:7000 --secure --key-file server.key --protocol-id 7
//! ```
//!
//! Server browsers and query tools list it: it answers the Source engine's server queries
//! (A2S_INFO, A2S_PLAYER, A2S_RULES) on the game's port, or on `--query-port`, with
//! `--server-name` and `--map` as its name and map. With python-a2s
//! (`pip install python-a2s`):
//!
//! ```text
//! python3 -c 'import a2s; print(a2s.info(("127.0.0.1", 7000))); print(a2s.players(("127.0.0.1", 7000)))'
//! ```
//!
//! Logs with `tracing` to stderr; `RUST_LOG=debug` shows every hit and refused action.

mod common;
#[path = "common/secure_server.rs"]
mod secure_server;

use std::net::{SocketAddr, UdpSocket};

use clap::Parser;
use snow_fight::Config;
use snow_fight::net::{Listing, UdpServer};
use snow_fight::session::{GameServer, ServerConfig};
use tracing::info;

use crate::secure_server::SecureServerArgs;

#[derive(Parser, Debug)]
#[command(about = "The game server")]
struct Args {
    /// Address and port to listen on.
    #[arg(long, default_value = "127.0.0.1:7000")]
    bind: SocketAddr,
    /// Ticks per second.
    #[arg(long, default_value_t = 60)]
    tick_rate: u32,
    /// World seed of the first round (round n uses seed + n).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Most players at once.
    #[arg(long, default_value_t = 8)]
    max_players: usize,
    /// Players needed before a round starts.
    #[arg(long, default_value_t = 2)]
    min_players: usize,
    /// Longest a round lasts, in seconds (then the healthiest player wins).
    #[arg(long, default_value_t = 90)]
    round_secs: u32,
    /// Snapshots a second (default: one every tick); fewer save bandwidth, and a client that
    /// draws between snapshots still moves smoothly.
    #[arg(long)]
    snapshot_rate: Option<u32>,
    /// The server's name in server browsers (A2S_INFO).
    #[arg(long, default_value_t = Listing::default().name)]
    server_name: String,
    /// The map's name in server browsers (the worlds are generated from the seed).
    #[arg(long, default_value_t = Listing::default().map)]
    map: String,
    /// Answer server queries (A2S) on this UDP port of the bind address instead of the
    /// game's own port.
    #[arg(long)]
    query_port: Option<u16>,
    #[command(flatten)]
    security: SecureServerArgs,
}

fn main() {
    let args = Args::parse();
    common::init_logging("info");
    let game = Config {
        min_players: args.min_players.max(1),
        max_ticks: args.round_secs.max(1) * args.tick_rate.max(1),
        ..Config::for_tick_rate(args.tick_rate)
    };
    let config = ServerConfig {
        seed: args.seed,
        max_players: args.max_players,
        game,
        sample_every: 0,
        snapshot_rate: args.snapshot_rate,
        ..ServerConfig::default()
    };
    let transport = match args.security.bind(args.bind, hopnet::Config::default()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot listen on {}: {e}", args.bind);
            std::process::exit(1);
        }
    };
    let mut server = UdpServer::with_server(transport, GameServer::new(config), args.tick_rate);
    let listing = Listing {
        name: args.server_name.clone(),
        map: args.map.clone(),
    };
    let queries = match args.query_port {
        None => server.answer_queries(listing),
        Some(port) => {
            let addr = SocketAddr::new(args.bind.ip(), port);
            match UdpSocket::bind(addr) {
                Ok(socket) => server.answer_queries_on(socket, listing),
                Err(e) => {
                    eprintln!("cannot listen for queries on {addr}: {e}");
                    std::process::exit(1);
                }
            }
        }
    };
    if let Err(e) = queries {
        eprintln!("cannot answer queries: {e}");
        std::process::exit(1);
    }
    info!(addr = %args.bind, queries = ?server.query_addr(), name = %args.server_name, secure = args.security.secure, tick_rate = args.tick_rate, seed = args.seed, max_players = args.max_players, "server listening");
    let mut last_report = 0;
    if let Err(e) = server.run(|s| {
        let t = s.game.time();
        if t >= last_report + 10 * args.tick_rate {
            last_report = t;
            let st = s.game.stats();
            info!(
                tick = t,
                players = s.game.players(),
                alive = s.game.alive(),
                rounds = st.rounds,
                messages_in = st.messages_in,
                messages_out = st.messages_out,
                "status"
            );
        }
        false
    }) {
        eprintln!("server stopped: {e}");
        std::process::exit(1);
    }
}
