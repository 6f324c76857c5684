//! Echo over the hopnet transport, to check the wire from outside Rust.
//!
//! ```text
//! cargo run --release -p hopnet --example echo -- server --bind 127.0.0.1:7000
//! cargo run --release -p hopnet --example echo -- client --connect 127.0.0.1:7000 --count 1000 --size 1200 [--unreliable]
//! ```
//!
//! The server echoes every payload back with the delivery it came with, until killed. The
//! client sends `count` payloads, checks the echoes, prints a one-line summary and exits 0
//! only if every reliable echo came back intact.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use hopnet::io::blocking::{Client, Server};
use hopnet::{Config, Delivery, Error, Event, MAX_PAYLOAD};

#[derive(Parser)]
#[command(about = "Echo server and client over the hopnet transport")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Echo every payload back with the delivery it came with, until killed.
    Server {
        /// Address to listen on.
        #[arg(long)]
        bind: SocketAddr,
    },
    /// Send payloads, check the echoes, print a summary.
    Client {
        /// The server's address.
        #[arg(long)]
        connect: SocketAddr,
        /// How many payloads.
        #[arg(long, default_value_t = 100)]
        count: u32,
        /// Bytes per payload (at most 129024).
        #[arg(long, default_value_t = 1000)]
        size: usize,
        /// Send unreliably (echoes may be lost; only corruption fails).
        #[arg(long)]
        unreliable: bool,
        /// Seconds to wait for the echoes after the last send.
        #[arg(long, default_value_t = 3)]
        linger: u64,
    },
}

fn main() -> ExitCode {
    let result = match Args::parse().command {
        Command::Server { bind } => server(bind),
        Command::Client {
            connect,
            count,
            size,
            unreliable,
            linger,
        } => client(
            connect,
            count,
            size,
            unreliable,
            Duration::from_secs(linger),
        ),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("echo: {e}");
            ExitCode::FAILURE
        }
    }
}

fn server(bind: SocketAddr) -> Result<ExitCode, Error> {
    let mut server = Server::bind(bind, Config::default())?;
    eprintln!("echo server on {}", server.local_addr()?);
    loop {
        server.poll(Duration::from_millis(100))?;
        while let Some(e) = server.poll_event() {
            match e.event {
                Event::Message { bytes, reliable } => {
                    let d = if reliable {
                        Delivery::Reliable
                    } else {
                        Delivery::Unreliable
                    };
                    // Backpressure: keep polling until the connection has room.
                    loop {
                        match server.send(e.connection, &bytes, d) {
                            Err(Error::WouldBlock) => server.poll(Duration::from_millis(1))?,
                            Err(Error::Closed | Error::UnknownConnection(_)) => break,
                            other => break other?,
                        }
                    }
                }
                Event::Connected => eprintln!("{} connected", e.peer),
                Event::Disconnected { reason } => eprintln!("{} disconnected: {reason:?}", e.peer),
                // Only tracked messages have these; the echo sends none.
                Event::Acknowledged { .. } | Event::Lost { .. } => {}
            }
        }
    }
}

/// Payload `i`: its index in the first 4 bytes (when they fit), then a pattern of the index.
fn payload(i: u32, size: usize) -> Vec<u8> {
    let mut v: Vec<u8> = (0..size).map(|j| (i as usize * 31 + j * 7) as u8).collect();
    if size >= 4 {
        v[..4].copy_from_slice(&i.to_le_bytes());
    }
    v
}

fn client(
    server: SocketAddr,
    count: u32,
    size: usize,
    unreliable: bool,
    linger: Duration,
) -> Result<ExitCode, Error> {
    if size > MAX_PAYLOAD {
        return Err(Error::PayloadTooLarge { len: size });
    }
    let delivery = if unreliable {
        Delivery::Unreliable
    } else {
        Delivery::Reliable
    };
    let mut client = Client::connect(server, Config::default())?;
    client.wait_connected()?;
    let start = Instant::now();
    let mut tally = Tally {
        seen: vec![false; count as usize],
        size,
        intact: 0,
        corrupt: 0,
        duplicate: 0,
    };
    let mut sent = 0u32;
    let mut last_send = Instant::now();
    loop {
        while sent < count {
            match client.send(&payload(sent, size), delivery) {
                Ok(()) => {
                    sent += 1;
                    last_send = Instant::now();
                }
                Err(Error::WouldBlock) => break,
                Err(e) => return Err(e),
            }
        }
        client.poll(Duration::from_millis(5))?;
        while let Some(e) = client.poll_event() {
            match e {
                Event::Message { bytes, .. } => tally.check(&bytes),
                Event::Disconnected { reason } => {
                    eprintln!("disconnected: {reason:?}");
                    sent = count;
                }
                Event::Connected | Event::Acknowledged { .. } | Event::Lost { .. } => {}
            }
        }
        let done = sent == count && tally.intact + tally.corrupt + tally.duplicate >= count;
        if done || (sent == count && last_send.elapsed() > linger) || client.machine().is_closed() {
            break;
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let stats = client.stats();
    let Tally {
        intact,
        corrupt,
        duplicate,
        ..
    } = tally;
    let bytes = f64::from(intact) * size as f64;
    println!(
        "{} {count} x {size} B: {intact} intact, {} missing, {corrupt} corrupt, {duplicate} duplicate in {elapsed:.2} s ({:.0} msg/s, {:.2} MB/s echoed), rtt {:?} (min {:?}), {} retransmissions",
        if unreliable { "unreliable" } else { "reliable" },
        count - intact,
        f64::from(intact) / elapsed,
        bytes / elapsed / 1e6,
        stats.smoothed_rtt.unwrap_or_default(),
        stats.min_rtt.unwrap_or_default(),
        stats.retransmissions,
    );
    client.close()?;
    let ok = corrupt == 0 && duplicate == 0 && (unreliable || intact == count);
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// What came back.
struct Tally {
    seen: Vec<bool>,
    size: usize,
    intact: u32,
    corrupt: u32,
    duplicate: u32,
}

impl Tally {
    fn check(&mut self, bytes: &[u8]) {
        let count = self.seen.len();
        // Payloads under 4 bytes carry no index: they are all alike, so count them.
        let i = match bytes.get(..4) {
            Some(head) if self.size >= 4 => {
                u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize
            }
            _ => self.seen.iter().position(|s| !s).unwrap_or(count),
        };
        if i >= count || bytes != payload(i as u32, self.size) {
            self.corrupt += 1;
        } else if self.seen[i] {
            self.duplicate += 1;
        } else {
            self.seen[i] = true;
            self.intact += 1;
        }
    }
}
