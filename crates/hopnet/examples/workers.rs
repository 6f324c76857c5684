//! A server on several cores: `ServerBuilder::workers` spreads the connections over worker
//! threads, each with its own socket and machine, and the game reads and writes every client
//! through one `WorkerServer`. Here 16 clients connect to an echo server on 2 workers (or
//! `--workers N`, `--by-address` for one socket sharded by address), each sends a message,
//! and the per-worker counters show how the connections spread.
//!
//! `cargo run --release -p hopnet --example workers -- --workers 4`

use std::time::{Duration, Instant};

use hopnet::{Client, Config, Delivery, Event, ServerBuilder, Spread};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let workers = args
        .iter()
        .position(|a| a == "--workers")
        .and_then(|i| args.get(i + 1))
        .map_or(Ok(2), |n| n.parse())?;
    let spread = if args.iter().any(|a| a == "--by-address") {
        Spread::ByAddress
    } else {
        Spread::ReusePort
    };
    let mut server = ServerBuilder::new(Config::default())
        .workers(workers)
        .spread(spread)
        .bind("127.0.0.1:0")?;
    let mut clients = (0..16)
        .map(|_| Client::connect(server.local_addr(), Config::default()))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, c) in clients.iter_mut().enumerate() {
        c.queue(format!("hello from {i}").as_bytes(), Delivery::Reliable)?;
    }
    let mut echoed = 0;
    let give_up = Instant::now() + Duration::from_secs(10);
    while echoed < clients.len() && Instant::now() < give_up {
        // The game's tick: every worker's events, the answers queued, one flush.
        server.poll(Duration::from_millis(1))?;
        while let Some(ev) = server.poll_event() {
            if let Event::Message { bytes, .. } = ev.event {
                server.queue(ev.connection, &bytes, Delivery::Reliable)?;
            }
        }
        server.flush()?;
        for c in &mut clients {
            c.poll(Duration::ZERO)?;
            while let Some(ev) = c.poll_event() {
                if let Event::Message { bytes, .. } = ev {
                    println!("echo: {}", String::from_utf8_lossy(&bytes));
                    echoed += 1;
                }
            }
        }
    }
    for s in server.worker_stats()? {
        println!(
            "worker {}: {} connections, {} datagrams in, {:?} of CPU",
            s.worker, s.server.connections, s.socket.received, s.cpu_time
        );
    }
    assert_eq!(echoed, clients.len(), "every client heard its echo");
    Ok(())
}
