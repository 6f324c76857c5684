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
//!
//! Secure mode (hopnet over netcode 1.02; PROTOCOL.md, "Secure mode"), so that any netcode
//! implementation can be pointed at it. A key file holds the 32-byte private key as 64
//! hexadecimal characters (a newline may follow; `netcode_token --new-key F` writes one); a
//! token file holds a 2,048-byte connect token, raw (`netcode_token` issues one):
//!
//! ```text
//! echo server --bind ADDR --secure --key-file F --protocol-id N [--public-address ADDR]
//! echo client --connect ADDR --secure --token-file T
//! echo client --connect ADDR --secure --key-file F --protocol-id N   (mints its own token)
//! ```
//!
//! A secure server's tokens must name the address it is bound to; bound to `0.0.0.0`, give the
//! address they name with `--public-address`. Protocol ids are decimal, or hexadecimal after
//! `0x`.

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};

use clap::{Parser, Subcommand};
use common::{parse_u64, read_key};
use hopnet::secure::{ConnectToken, ConnectTokenBuilder, Key, NetcodeServerConfig};
use hopnet::{Client, Server};
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
        /// Serve over netcode 1.02 (needs --key-file and --protocol-id).
        #[arg(long, requires_all = ["key_file", "protocol_id"])]
        secure: bool,
        /// The private key shared with whoever issues tokens: 64 hexadecimal characters.
        #[arg(long, requires = "secure")]
        key_file: Option<PathBuf>,
        /// The game's netcode protocol id (decimal, or hexadecimal with 0x).
        #[arg(long, value_parser = parse_u64, requires = "secure")]
        protocol_id: Option<u64>,
        /// The address tokens name, when it is not --bind (bound to 0.0.0.0, behind NAT).
        #[arg(long, requires = "secure")]
        public_address: Option<SocketAddr>,
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
        /// Connect over netcode 1.02 (needs --token-file, or --key-file and --protocol-id).
        #[arg(long)]
        secure: bool,
        /// A connect token, its 2,048 bytes raw.
        #[arg(long, requires = "secure", conflicts_with_all = ["key_file", "protocol_id"])]
        token_file: Option<PathBuf>,
        /// The server's private key, to mint a token here (local play).
        #[arg(long, requires_all = ["secure", "protocol_id"])]
        key_file: Option<PathBuf>,
        /// The game's netcode protocol id, for the token minted here.
        #[arg(long, value_parser = parse_u64, requires_all = ["secure", "key_file"])]
        protocol_id: Option<u64>,
    },
}

/// How a server listens: on the spec's wire, or over netcode with a key.
enum Listen {
    Plain,
    Secure {
        key: Key,
        protocol_id: u64,
        public_address: Option<SocketAddr>,
    },
}

/// How a client connects: on the spec's wire, or over netcode with a token.
enum Connect {
    Plain,
    Secure(ConnectToken),
}

fn main() -> ExitCode {
    match run(Args::parse().command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("echo: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Server {
            bind,
            secure,
            key_file,
            protocol_id,
            public_address,
        } => {
            let listen = match (secure, key_file, protocol_id) {
                (false, ..) => Listen::Plain,
                (true, Some(key_file), Some(protocol_id)) => Listen::Secure {
                    key: read_key(&key_file)?,
                    protocol_id,
                    public_address,
                },
                (true, ..) => return Err("--secure needs --key-file and --protocol-id".into()),
            };
            server(bind, listen).map_err(|e| e.to_string())
        }
        Command::Client {
            connect,
            count,
            size,
            unreliable,
            linger,
            secure,
            token_file,
            key_file,
            protocol_id,
        } => {
            let how = match (secure, token_file, key_file, protocol_id) {
                (false, ..) => Connect::Plain,
                (true, Some(path), None, None) => {
                    let bytes =
                        std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                    let token = ConnectToken::from_bytes(&bytes)
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                    if !token.server_addresses().contains(&connect) {
                        eprintln!(
                            "echo: the token names {:?}, not {connect}; connecting as it says",
                            token.server_addresses()
                        );
                    }
                    Connect::Secure(token)
                }
                (true, None, Some(path), Some(protocol_id)) => {
                    let client_id = rand::random();
                    let token = ConnectTokenBuilder::new(protocol_id, client_id, [connect])
                        .issue(&read_key(&path)?, SystemTime::now())
                        .map_err(|e| e.to_string())?;
                    Connect::Secure(token)
                }
                (true, ..) => {
                    return Err(
                        "--secure needs --token-file, or --key-file and --protocol-id".into(),
                    );
                }
            };
            client(
                connect,
                how,
                count,
                size,
                unreliable,
                Duration::from_secs(linger),
            )
            .map_err(|e| e.to_string())
        }
    }
}

fn server(bind: SocketAddr, listen: Listen) -> Result<ExitCode, Error> {
    let config = Config::default();
    let mut server = match listen {
        Listen::Plain => Server::bind(bind, config)?,
        Listen::Secure {
            key,
            protocol_id,
            public_address: None,
        } => Server::bind_secure(bind, config, protocol_id, key)?,
        Listen::Secure {
            key,
            protocol_id,
            public_address: Some(public),
        } => {
            let slots = config.max_connections();
            let netcode = NetcodeServerConfig::new(protocol_id, key, public, slots);
            Server::bind_secure_with(bind, config, netcode)?
        }
    };
    let local = server.local_addr()?;
    match server.secure() {
        Some(secure) => eprintln!(
            "echo server on {local} (secure: netcode 1.02, protocol id {:#x}, tokens naming {})",
            secure.netcode().config().protocol_id,
            secure.netcode().config().public_address,
        ),
        None => eprintln!("echo server on {local}"),
    }
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
                Event::Connected => match server.secure().and_then(|s| s.client_id(e.connection)) {
                    Some(client_id) => eprintln!("{} connected (client id {client_id})", e.peer),
                    None => eprintln!("{} connected", e.peer),
                },
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
    how: Connect,
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
    let mut client = match how {
        Connect::Plain => Client::connect(server, Config::default())?,
        Connect::Secure(token) => Client::connect_secure(token, Config::default())?,
    };
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
