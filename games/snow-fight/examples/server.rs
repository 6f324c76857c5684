//! A game server: accepts players, runs rounds at a fixed tick rate, sends a snapshot to every
//! player each tick (or `--snapshot-rate` a second; as deltas to clients that ask, and as
//! scoped updates, within `--view-radius` and `--client-kbps`, to clients that ask for those)
//! and `GameOver` at the end of a round, then starts the next.
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
//! With `--web 127.0.0.1:8080` browsers play too: the server serves the page on
//! `http://127.0.0.1:8080/` (TCP) and takes its WebTransport sessions on the same port (UDP),
//! with a fresh self-signed certificate the page trusts by its hash; `--web-cert` and
//! `--web-key` give it a real one instead (PEM files), for a host with a name. The page's port
//! takes WebSockets too (`ws://127.0.0.1:8080/hopnet`): the page falls back to one where the
//! browser has no WebTransport, and the client's `--websocket` plays over one.
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
//! `--matches N` hosts N matches of `--max-players` at once on the same port(s), each on a
//! thread of its own (`snow_fight::host::MatchHost`); a match is then one round.
//!
//! In an Agones fleet, `--agones` (built with `--features agones`) reports to the local SDK
//! server and drains on SIGTERM; deploy/ at the repository's root has the container and the
//! manifests.
//!
//! `--record FILE` records every datagram of the UDP socket, both ways, to a pcapng file that
//! tshark reads (`--record-decrypted` in secure mode: the decrypted datagrams).
//!
//! Logs with `tracing` to stderr; `RUST_LOG=debug` shows every hit and refused action.

mod common;
#[path = "common/fleet_hooks.rs"]
mod fleet_hooks;
#[path = "common/record_args.rs"]
mod record_args;
#[path = "common/secure_server.rs"]
mod secure_server;

use std::net::{SocketAddr, UdpSocket};

use std::path::PathBuf;

use clap::Parser;
use hopnet::ServerDriver;
use hopnet_webtransport::{Certificate, Trust, WebTransportConfig};
use snow_fight::Config;
use snow_fight::host::{AnswerQueries, GameHost, MatchHost, MatchesConfig};
use snow_fight::net::{Listing, UdpServer};
use snow_fight::session::{GameServer, ScopeConfig, ServerConfig};
use snow_fight::web::WebServer;
use tracing::info;

use crate::fleet_hooks::{FleetArgs, FleetHooks};
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
    /// For the clients that ask for scoped updates (`--scoped`): the distance from their
    /// player beyond which entities are not sent (default: the whole map, as the terminal
    /// client shows it). Other clients get the whole world, as the spec says.
    #[arg(long, value_name = "METRES")]
    view_radius: Option<f32>,
    /// For the clients that ask for scoped updates: each one's budget in kbit/s (default:
    /// what its congestion controller allows, alone).
    #[arg(long, value_name = "KBPS")]
    client_kbps: Option<u64>,
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
    #[command(flatten)]
    record: record_args::RecordArgs,
    /// Also take players from browsers: serve the page over HTTP on this address (TCP) and
    /// accept WebTransport sessions on the same address (UDP), WebSockets on its path
    /// `/hopnet` (TCP).
    #[arg(long, value_name = "ADDR")]
    web: Option<SocketAddr>,
    /// With `--web`: the certificate chain (PEM) to present instead of a self-signed one.
    #[arg(long, value_name = "FILE", requires = "web_key")]
    web_cert: Option<PathBuf>,
    /// With `--web-cert`: its private key (PEM).
    #[arg(long, value_name = "FILE", requires = "web_cert")]
    web_key: Option<PathBuf>,
    /// Matches at once, each of `--max-players`, on a thread of its own; with more than one, a
    /// match is one round, and its players are placed again when it ends.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    matches: u16,
    #[command(flatten)]
    fleet: FleetArgs,
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
        scope: ScopeConfig {
            view_radius: args.view_radius,
            client_kbps: args.client_kbps,
        },
        ..ServerConfig::default()
    };
    let game = GameServer::new(config);
    let result = args
        .fleet
        .start(args.max_players * usize::from(args.matches))
        .and_then(|fleet| match args.web {
            Some(web) => run_web(&args, web, game, fleet),
            None => run_udp(&args, game, fleet),
        });
    if let Err(e) = result {
        eprintln!("server: {e}");
        std::process::exit(1);
    }
}

fn run_udp(args: &Args, game: GameServer, fleet: FleetHooks) -> Result<(), String> {
    let mut transport = args
        .security
        .bind(args.bind, hopnet::Config::default())
        .map_err(|e| format!("cannot listen on {}: {e}", args.bind))?;
    if let Some(record) = args.record.config() {
        let path = record.path().display().to_string();
        transport
            .record(record)
            .map_err(|e| format!("cannot record to {path}: {e}"))?;
    }
    if args.matches > 1 {
        return run_matches(args, transport, game, fleet);
    }
    let mut server = UdpServer::with_server(transport, game, args.tick_rate);
    answer_queries(&mut server, args)?;
    info!(addr = %args.bind, queries = ?server.query_addr(), name = %args.server_name, secure = args.security.secure, tick_rate = args.tick_rate, seed = args.seed, max_players = args.max_players, "server listening");
    play(args, server, fleet)
}

fn run_web(
    args: &Args,
    web: SocketAddr,
    game: GameServer,
    fleet: FleetHooks,
) -> Result<(), String> {
    if args.record.record.is_some() {
        return Err("--record records the UDP server; it cannot be combined with --web".into());
    }
    if args.security.secure {
        // Browsers cannot speak netcode (a page has no UDP): the WebTransport server carries
        // the spec's wire, which QUIC's TLS already protects between the page and the server.
        return Err(
            "--web and --secure cannot be combined: a page speaks hopnet over \
                    WebTransport (TLS), not netcode"
                .into(),
        );
    }
    let certificate = match (&args.web_cert, &args.web_key) {
        (Some(cert), Some(key)) => Certificate::from_pem_files(cert, key, Trust::WebPki),
        _ => Certificate::self_signed(["localhost", &web.ip().to_string()]),
    }
    .map_err(|e| e.to_string())?;
    let hash = certificate.page_hash().map(|_| certificate.hash_hex());
    let mut transport = hopnet_webtransport::Server::bind(
        args.bind,
        WebTransportConfig::new(web, certificate),
        hopnet::Config::default(),
    )
    .map_err(|e| format!("cannot listen on {} and {web}: {e}", args.bind))?;
    let page = transport
        .serve_site(web, snow_fight::web::page())
        .map_err(|e| format!("cannot serve the page on {web}: {e}"))?;
    if args.matches > 1 {
        info!(%page, "the page is served");
        return run_matches(args, transport, game, fleet);
    }
    let mut server = WebServer::with_server(transport, game, args.tick_rate);
    answer_queries(&mut server, args)?;
    info!(addr = %args.bind, queries = ?server.query_addr(), webtransport = %server.server.web_addr(), certificate_sha256 = ?hash, tick_rate = args.tick_rate, seed = args.seed, max_players = args.max_players, "server listening");
    info!("open http://{page}/ in a browser to play (http://{page}/?bot=1 lets a bot play)");
    info!("or play over a WebSocket: --websocket ws://{page}/hopnet");
    play(args, server, fleet)
}

/// One match on `server`, whichever its carrier, until the fleet or its rounds end it; its
/// status logged every 10 s of game time.
fn play<D: ServerDriver>(
    args: &Args,
    mut server: GameHost<D>,
    mut fleet: FleetHooks,
) -> Result<(), String>
where
    D::Error: std::fmt::Display,
{
    fleet.listening();
    let mut status = Status::new(args.tick_rate);
    server
        .run(|s| status.report(&s.game) | fleet.watch(&mut s.game))
        .map_err(|e| e.to_string())?;
    fleet.finish()
}

/// `--matches N`: the matches of `game`'s settings, on any carrier.
fn run_matches<D: ServerDriver>(
    args: &Args,
    transport: D,
    game: GameServer,
    mut fleet: FleetHooks,
) -> Result<(), String>
where
    D::Error: std::fmt::Display,
{
    let config = MatchesConfig::new(args.matches.into(), game.config().clone());
    let mut server = MatchHost::new(transport, config).map_err(|e| e.to_string())?;
    answer_queries(&mut server, args)?;
    info!(addr = %args.bind, queries = ?server.query_addr(), matches = args.matches, secure = args.security.secure, tick_rate = args.tick_rate, max_players = args.max_players, "server listening");
    fleet.listening();
    let mut last = std::time::Instant::now();
    server
        .run(|s| {
            if last.elapsed().as_secs() >= 10 {
                last = std::time::Instant::now();
                info!(players = ?s.players(), rounds = s.rounds(), stats = ?s.stats(), "status");
            }
            fleet.watch(s)
        })
        .map_err(|e| e.to_string())?;
    fleet.finish()
}

fn listing(args: &Args) -> Listing {
    Listing {
        name: args.server_name.clone(),
        map: args.map.clone(),
    }
}

/// `--query-port`'s socket, if it is given.
fn query_socket(args: &Args) -> Result<Option<UdpSocket>, String> {
    let Some(port) = args.query_port else {
        return Ok(None);
    };
    let addr = SocketAddr::new(args.bind.ip(), port);
    UdpSocket::bind(addr)
        .map(Some)
        .map_err(|e| format!("cannot listen for queries on {addr}: {e}"))
}

/// Has the server answer server queries, on whichever carrier: on the game's port, or on
/// `--query-port`.
fn answer_queries<H: AnswerQueries>(server: &mut H, args: &Args) -> Result<(), String>
where
    <H::Driver as hopnet::Carrier>::Error: std::fmt::Display,
{
    match query_socket(args)? {
        None => server.answer_queries(listing(args)),
        Some(socket) => server.answer_queries_on(socket, listing(args)),
    }
    .map_err(|e| format!("cannot answer queries: {e}"))
}

/// The status line logged every 10 s of game time.
struct Status {
    tick_rate: u32,
    last: u32,
}

impl Status {
    fn new(tick_rate: u32) -> Status {
        Status { tick_rate, last: 0 }
    }

    /// Logs the status when it is due; never asks to stop.
    fn report(&mut self, game: &GameServer) -> bool {
        let t = game.time();
        if t >= self.last + 10 * self.tick_rate {
            self.last = t;
            let st = game.stats();
            info!(
                tick = t,
                players = game.players(),
                alive = game.alive(),
                rounds = st.rounds,
                messages_in = st.messages_in,
                messages_out = st.messages_out,
                "status"
            );
        }
        false
    }
}
