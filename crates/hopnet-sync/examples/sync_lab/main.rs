//! sync_lab: hopnet-sync's parts in a small shooter, one server and four clients in hopnet's
//! simulator; prints, as its last line, the measures issue 39 defines as one JSON object.
//!
//! ```text
//! sync_lab --rtt-ms R --jitter-ms J --loss P --seconds S --seed N [--tick-hz H]
//!          [--no-prediction] [--no-lag-compensation] [--no-redundancy]
//! ```
//!
//! Measures start once every client is connected and three seconds of play have passed;
//! `--seconds` of play are measured.

mod lab;
mod shooter;

use clap::Parser;

/// The flags, as issue 39 gives them.
#[derive(Parser, Debug)]
#[command(about = "hopnet-sync's parts measured in a small shooter over hopnet's simulator")]
struct Args {
    /// The round trip the links add, in milliseconds (half each way).
    #[arg(long, default_value_t = 100)]
    rtt_ms: u64,
    /// Extra delay on each datagram, uniform in 0..=J milliseconds, each way.
    #[arg(long, default_value_t = 10)]
    jitter_ms: u64,
    /// The share of datagrams each link loses.
    #[arg(long, default_value_t = 0.05)]
    loss: f64,
    /// Seconds of play measured (after a warm-up).
    #[arg(long, default_value_t = 30)]
    seconds: u64,
    /// The seed of the links and of the bots.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Simulation ticks per second.
    #[arg(long, default_value_t = 60)]
    tick_hz: u32,
    /// Show the client's own player only as the server sends it.
    #[arg(long)]
    no_prediction: bool,
    /// Judge shots against the present, not the shooter's view.
    #[arg(long)]
    no_lag_compensation: bool,
    /// Send each input once.
    #[arg(long)]
    no_redundancy: bool,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let settings = lab::Settings {
        rtt_ms: args.rtt_ms,
        jitter_ms: args.jitter_ms,
        loss: args.loss,
        seconds: args.seconds,
        seed: args.seed,
        tick_hz: args.tick_hz,
        prediction: !args.no_prediction,
        lag_compensation: !args.no_lag_compensation,
        redundancy: !args.no_redundancy,
    };
    match lab::run(&settings) {
        Ok(report) => {
            println!(
                "{}",
                serde_json::to_string(&report).expect("numbers serialise")
            );
            std::process::ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("sync_lab: {why}");
            std::process::ExitCode::FAILURE
        }
    }
}
