//! A game client: a terminal view you play with the keyboard, or (`--bot`) a bot.
//!
//! ```text
//! cargo run --release --example server -- --bind 127.0.0.1:7000
//! cargo run --release --example client -- --connect 127.0.0.1:7000
//! cargo run --release --example client -- --connect 127.0.0.1:7000 --bot
//! cargo run --release --example client -- --connect 127.0.0.1:7000 --dialect original
//! cargo run --release --example client -- --connect 127.0.0.1:7000 --deltas
//! cargo run --release --example client -- --connect 127.0.0.1:7000 --scoped
//! cargo run --release --example client -- --connect 127.0.0.1:7000 --secure --token-file client.token
//! cargo run --release --example client -- --connect 127.0.0.1:7000 --secure --key-file server.key --protocol-id 7
//! cargo run --release --example client -- --websocket ws://127.0.0.1:8080/hopnet --bot
//! cargo run --release --example client -- --connect 127.0.0.1:7000 --bot --record bot.pcapng
//! ```
//!
//! `--secure` connects in secure mode (hopnet over netcode 1.02) to a server started with
//! `--secure`: with a connect token file (2,048 bytes, raw, as `netcode_token` writes it), or
//! with the server's key and protocol id to mint a token here (local play).
//!
//! It follows the spec's client diagram: connect, send `Init`, keep a local state from `Connect`
//! and every newer `Snapshot`, ping once a second, send actions. With `--deltas` it asks for its
//! snapshots as deltas (`hopnet_snow_fight::delta`); with `--scoped`, for scoped updates
//! (`hopnet_snow_fight::scoped`: only what is within the server's `--view-radius` of our
//! player, nearest first, within its `--client-kbps`). The terminal view predicts our own player's
//! walking (it moves the moment an arrow is pressed, and is corrected, smoothly, when the server
//! disagrees) and draws the others between the last snapshots, 100 ms behind the server, so that
//! they move smoothly at any snapshot rate (`session::ClientView`, over `hopnet_sync`).
//!
//! `--websocket URL` plays over a WebSocket instead of UDP (a server started with `--web`
//! takes them on its page's port, path `/hopnet`): for a network that lets no UDP through.
//!
//! `--dialect original` encodes its messages as the spec author's own client does (a 1-bit
//! `ClientMessage` tag instead of the spec's `u32`), to play on that implementation's server;
//! our server takes both.
//!
//! Keys: arrows walk (the player keeps walking; the opposite arrow or `s` stops), `b` breaks the
//! nearest breakable object (stand next to it), space throws what you hold at the nearest
//! player, `q` or Esc quits.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/record_args.rs"]
mod record_args;
#[path = "../common/secure_client.rs"]
mod secure_client;
mod tui;

use std::io;
use std::net::SocketAddr;

use clap::Parser;
use hopnet::ClientDriver;
use hopnet_snow_fight::Dialect;
use hopnet_webtransport::WebSocketClient;
use snow_fight::Config;
use snow_fight::net::play_bot_on;
use snow_fight::session::BotPlayer;

use crate::secure_client::SecureClientArgs;
use crate::tui::Tui;

#[derive(Parser, Debug)]
#[command(about = "A game client: a terminal view, or a bot")]
struct Args {
    /// The server's address.
    #[arg(long, default_value = "127.0.0.1:7000")]
    connect: SocketAddr,
    /// Play by itself instead of showing the terminal view.
    #[arg(long)]
    bot: bool,
    /// With `--bot`: stop after this many rounds (default: play forever).
    #[arg(long)]
    rounds: Option<usize>,
    /// The server's tick rate (the bot uses it to lead its throws, the view to run its clock).
    #[arg(long, default_value_t = 60)]
    tick_rate: u32,
    /// Seed of the bot's choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How to encode what the client sends: `spec` (the spec's text) or `original` (the spec
    /// author's own implementation, whose server understands only that).
    #[arg(long, default_value_t = Dialect::Spec, value_name = "spec|original")]
    dialect: Dialect,
    /// Ask for snapshots as deltas against those the client already has (this toolkit's
    /// extension; the spec dialect only).
    #[arg(long)]
    deltas: bool,
    /// Ask for scoped updates: only what is near our player, nearest first, within the
    /// server's budget for us (this toolkit's extension, in place of `--deltas`; the spec
    /// dialect only).
    #[arg(long, conflicts_with = "deltas")]
    scoped: bool,
    /// Play over a WebSocket to this URL (`ws://host:port/hopnet`, a server's `--web`
    /// address) instead of UDP to `--connect`.
    #[arg(long, value_name = "URL", conflicts_with = "secure")]
    websocket: Option<String>,
    #[command(flatten)]
    security: SecureClientArgs,
    #[command(flatten)]
    record: record_args::RecordArgs,
}

/// What a driver's errors must be for the example to report them.
trait Driver: ClientDriver<Error: std::error::Error + Send + Sync + 'static> {}
impl<C: ClientDriver<Error: std::error::Error + Send + Sync + 'static>> Driver for C {}

fn main() {
    let args = Args::parse();
    let result = match (&args.websocket, args.bot) {
        (Some(_), _) if args.record.record.is_some() => Err(io::Error::other(
            "--record records the UDP socket; it cannot be combined with --websocket",
        )),
        (Some(url), bot) => WebSocketClient::connect(url, hopnet::Config::default())
            .map_err(io::Error::other)
            .and_then(|client| {
                if bot {
                    run_bot(&args, client)
                } else {
                    run_tui(&args, client, url.clone())
                }
            }),
        (None, bot) => args
            .security
            .connect(
                args.connect,
                hopnet::Config::default(),
                args.record.config(),
            )
            .map_err(io::Error::other)
            .and_then(|client| {
                if bot {
                    run_bot(&args, client)
                } else {
                    run_tui(&args, client, args.connect.to_string())
                }
            }),
    };
    if let Err(e) = result {
        eprintln!("client: {e}");
        std::process::exit(1);
    }
}

fn run_bot(args: &Args, client: impl Driver) -> io::Result<()> {
    common::init_logging("info");
    let mut player =
        BotPlayer::new(Config::for_tick_rate(args.tick_rate), args.seed).with_dialect(args.dialect);
    if args.deltas {
        player = player.with_deltas();
    }
    if args.scoped {
        player = player.with_scoped();
    }
    let mut reported = 0;
    let stats = play_bot_on(client, &mut player, |p, _| {
        while reported < p.results.len() {
            let won = p.results[reported].won;
            reported += 1;
            let s = p.client.stats();
            tracing::info!(
                round = reported,
                result = if won { "won" } else { "lost" },
                rtt_p50_ms = s.rtt_quantile(0.5).map(|d| d.as_secs_f64() * 1000.0),
                snapshots = s.snapshots,
                lost = s.snapshots_lost,
                "game over"
            );
        }
        args.rounds.is_some_and(|n| p.results.len() >= n)
    })
    .map_err(io::Error::other)?;
    let won = player.results.iter().filter(|r| r.won).count();
    println!(
        "bot: player {:?}, {} rounds ({} won), {} retransmissions, {} bytes up, {} bytes down",
        player.client.player(),
        player.results.len(),
        won,
        stats.retransmissions,
        stats.bytes_sent,
        stats.bytes_received
    );
    Ok(())
}

fn run_tui(args: &Args, mut client: impl Driver, server: String) -> io::Result<()> {
    let mut terminal = ratatui::init();
    let result = Tui::new(
        server,
        args.dialect,
        args.tick_rate,
        args.deltas,
        args.scoped,
    )
    .run(&mut terminal, &mut client);
    // Restore the terminal on every way out (a panic is covered by ratatui's hook).
    ratatui::restore();
    let _ = client.close();
    result
}
