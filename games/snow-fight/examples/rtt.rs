//! Round trips from a native client to the game's server over UDP: joins, pings every
//! `--every-ms` for `--seconds`, and prints the count, p50, p99 and max. A benchmark, run by
//! hand beside the browser's (`web/bench/rtt.mjs`, BENCHMARKS.md):
//!
//! ```text
//! cargo run --release --example server -- --bind 127.0.0.1:7777 --web 127.0.0.1:8080
//! cargo run --release --example rtt -- --connect 127.0.0.1:7777 --seconds 30 --every-ms 20
//! ```

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use clap::Parser;
use hopnet::Event;
use hopnet::io::blocking::Client;
use snow_fight::session::GameClient;

#[derive(Parser, Debug)]
#[command(about = "Round trips to the game server")]
struct Args {
    /// The server's UDP address.
    #[arg(long, default_value = "127.0.0.1:7000")]
    connect: SocketAddr,
    /// How long to measure.
    #[arg(long, default_value_t = 30)]
    seconds: u64,
    /// Milliseconds between pings.
    #[arg(long, default_value_t = 20)]
    every_ms: u64,
}

fn main() -> Result<(), hopnet::Error> {
    let args = Args::parse();
    let mut client = Client::connect(args.connect, hopnet::Config::default())?;
    let mut game = GameClient::new();
    let every = Duration::from_millis(args.every_ms.max(1));
    let mut next_ping = None;
    let mut measuring_from = None;
    let mut skip = 0;
    let mut end = None;
    let give_up = Instant::now() + Duration::from_secs(20);
    while end.is_none_or(|e| Instant::now() < e) {
        if end.is_none() && Instant::now() > give_up {
            eprintln!("not joined within 20 s");
            std::process::exit(1);
        }
        let now = Instant::now();
        let wait = next_ping.map_or(Duration::from_millis(5), |t: Instant| {
            t.saturating_duration_since(now)
        });
        client.poll(wait.min(Duration::from_millis(5)))?;
        while let Some(event) = client.poll_event() {
            match event {
                Event::Connected => game.send_init(client.connection()),
                Event::Message { bytes, .. } => {
                    game.handle(&bytes, Instant::now());
                }
                Event::Disconnected { reason } => {
                    eprintln!("disconnected: {reason:?}");
                    std::process::exit(1);
                }
                _ => {}
            }
        }
        let now = Instant::now();
        if game.player().is_some() {
            // The first second is the connection settling; keep what follows.
            let from = *measuring_from.get_or_insert(now + Duration::from_secs(1));
            if now >= from && end.is_none() {
                skip = game.stats().rtts.len();
                end = Some(now + Duration::from_secs(args.seconds));
            }
            if next_ping.is_none_or(|t| now >= t) {
                game.send_ping(client.connection(), now);
                client.flush()?;
                next_ping = Some(now + every);
            }
        }
    }
    let mut rtts: Vec<f64> = game.stats().rtts[skip..]
        .iter()
        .map(|d| d.as_secs_f64() * 1000.0)
        .collect();
    rtts.sort_by(f64::total_cmp);
    let q = |p: f64| rtts[((rtts.len() - 1) as f64 * p).round() as usize];
    println!(
        "{{\"count\":{},\"p50_ms\":{:.4},\"p99_ms\":{:.4},\"max_ms\":{:.4}}}",
        rtts.len(),
        q(0.5),
        q(0.99),
        rtts[rtts.len() - 1]
    );
    let _ = client.close();
    Ok(())
}
