//! R-TYPE (RFC 4242, `context-rtype-rfc.txt`): a server (the TCP lobby and its instances on
//! UDP ports of their own) and a client that lists, creates or joins, and plays.
//!
//! ```text
//! cargo run -p hopnet-protocols --example rtype -- server --bind 127.0.0.1:4242
//! cargo run -p hopnet-protocols --example rtype -- client --connect 127.0.0.1:4242 --create arena
//! cargo run -p hopnet-protocols --example rtype -- client --connect 127.0.0.1:4242 --join --moves 40
//! cargo run -p hopnet-protocols --example rtype -- client --connect 127.0.0.1:4242 --create b --no-extrapolation
//! ```
//!
//! The client shows the other ships and the bullets between SPRITEs as the RFC's section 2.3
//! asks (an entity going straight carried on for a bounded time, converging back when the
//! next SPRITE comes; `--no-extrapolation` shows each where its last SPRITE put it). Before
//! its summary it prints, on stdout, how far off it showed them: for each SPRITE of an entity
//! other than its own ship, the distance (in the game's units) between where the client
//! showed that entity when the SPRITE came and where the SPRITE puts it, as one line
//!
//! ```text
//! position error: sprites N p50 X p99 Y max Z (extrapolation MODE)
//! ```
//!
//! where MODE is `bounded at 90 ms` or `off`.
//!
//! Either side takes `--loss P`, `--delay-ms D` and `--jitter-ms J` (ours, none by default):
//! its outgoing UDP datagrams dropped at that rate and delayed, to try the RFC's section 2.3
//! by hand over a bad link (the server's applies to every instance).
//!
//! Each prints, as its last line on stdout, one JSON object: the client
//! `{"instance":ID,"port":P,"entities":K,"checks":C,"resyncs":R}`, the server
//! `{"instances":I,"lobby_connections":L}`. The client exits 0 once every move is played and
//! the instance has shown its ship where the moves lead,
//! non-zero on a refusal, a protocol error or its 30 s deadline; then its summary holds what
//! it saw so far (`null` where it never learnt the instance or port) and an `"error"`. The server serves for its
//! 30 s, then prints its summary and exits 0 (non-zero only if it could not bind).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{ArgGroup, Parser, Subcommand};
use hopnet::Impairment;
use hopnet_protocols::rtype::{
    Entry, ErrorSummary, Extrapolation, Host, HostConfig, SessionConfig, SessionProgress,
    play_tracked,
};

/// Every program's deadline.
const DEADLINE: Duration = Duration::from_secs(30);

#[derive(Parser)]
#[command(about = "R-TYPE (RFC 4242): the lobby and its instances, or a client")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

/// What the program's outgoing UDP datagrams suffer.
#[derive(clap::Args, Clone, Copy)]
struct Link {
    /// The share of outgoing UDP datagrams dropped.
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// Milliseconds added to every outgoing UDP datagram.
    #[arg(long, default_value_t = 0)]
    delay_ms: u64,
    /// Up to this many milliseconds more, drawn for each.
    #[arg(long, default_value_t = 0)]
    jitter_ms: u64,
}

impl Link {
    fn impairment(self) -> Option<Impairment> {
        let bad = self.loss > 0.0 || self.delay_ms > 0 || self.jitter_ms > 0;
        bad.then(|| Impairment {
            loss: self.loss,
            delay: Duration::from_millis(self.delay_ms),
            jitter: Duration::from_millis(self.jitter_ms),
            ..Impairment::default()
        })
    }
}

#[derive(Subcommand)]
enum Command {
    /// The TCP lobby on ADDR; instances on UDP ports of the same host.
    Server {
        /// Where the lobby listens.
        #[arg(long)]
        bind: SocketAddr,
        #[command(flatten)]
        link: Link,
    },
    /// Lists, creates or joins an instance, and plays.
    #[command(group(ArgGroup::new("entry").required(true).args(["create", "join"])))]
    Client {
        /// The lobby's address.
        #[arg(long)]
        connect: SocketAddr,
        /// Creates an instance of this name.
        #[arg(long)]
        create: Option<String>,
        /// Joins the first listed instance with room.
        #[arg(long)]
        join: bool,
        /// Moves to play (every fifth a SPACE).
        #[arg(long, default_value_t = 20)]
        moves: usize,
        /// Shows each entity where its last SPRITE put it, instead of carrying it on.
        #[arg(long)]
        no_extrapolation: bool,
        #[command(flatten)]
        link: Link,
    },
}

fn main() -> ExitCode {
    let deadline = Instant::now() + DEADLINE;
    match Args::parse().command {
        Command::Server { bind, link } => server(bind, link, deadline),
        Command::Client {
            connect,
            create,
            join: _,
            moves,
            no_extrapolation,
            link,
        } => {
            let extrapolation = if no_extrapolation {
                Extrapolation::Off
            } else {
                Extrapolation::default()
            };
            client(connect, create, moves, extrapolation, link, deadline)
        }
    }
}

fn server(bind: SocketAddr, link: Link, deadline: Instant) -> ExitCode {
    let config = HostConfig {
        impairment: link.impairment(),
    };
    let host = match Host::bind(bind, config) {
        Ok(host) => host,
        Err(e) => {
            eprintln!("rtype: cannot bind {bind}: {e}");
            println!("{}", serde_json::json!({ "error": e.to_string() }));
            return ExitCode::FAILURE;
        }
    };
    eprintln!("rtype lobby on {}", host.local_addr());
    std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
    let summary = host.shutdown();
    println!(
        "{}",
        serde_json::json!({
            "instances": summary.instances,
            "lobby_connections": summary.lobby_connections,
        })
    );
    ExitCode::SUCCESS
}

/// The position error's line (its form is in the module's docs).
fn error_line(e: &ErrorSummary, mode: Extrapolation) -> String {
    let mode = match mode {
        Extrapolation::Off => "off".to_owned(),
        Extrapolation::Bounded { max, .. } => format!("bounded at {} ms", max.as_millis()),
    };
    format!(
        "position error: sprites {} p50 {:.2} p99 {:.2} max {:.2} (extrapolation {mode})",
        e.count, e.p50, e.p99, e.max
    )
}

fn client(
    lobby: SocketAddr,
    create: Option<String>,
    moves: usize,
    extrapolation: Extrapolation,
    link: Link,
    deadline: Instant,
) -> ExitCode {
    let config = SessionConfig {
        lobby,
        entry: create.map_or(Entry::Join, Entry::Create),
        moves,
        deadline,
        impairment: link.impairment(),
        extrapolation,
    };
    let mut progress = SessionProgress::default();
    match play_tracked(&config, &mut progress) {
        Ok(s) => {
            for l in &s.listed {
                eprintln!("listed: {l}");
            }
            eprintln!(
                "instance {} on port {}: {} moves played",
                s.instance, s.port, s.moves
            );
            println!("{}", error_line(&s.position_error, extrapolation));
            println!(
                "{}",
                serde_json::json!({
                    "instance": s.instance,
                    "port": s.port,
                    "entities": s.entities,
                    "checks": s.checks,
                    "resyncs": s.resyncs,
                })
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rtype: {e}");
            println!("{}", error_line(&progress.position_error, extrapolation));
            // The contract's summary as far as the session got, and why it ended.
            println!(
                "{}",
                serde_json::json!({
                    "instance": progress.instance,
                    "port": progress.port,
                    "entities": progress.entities,
                    "checks": progress.checks,
                    "resyncs": progress.resyncs,
                    "error": e.to_string(),
                })
            );
            ExitCode::FAILURE
        }
    }
}
