//! The issue-28 contract's WOKE program: a server that echoes every command, and a client
//! that sends N commands and checks their echoes. The last stdout line is a JSON summary; the
//! exit code says whether it succeeded; 30 s is the deadline.
//!
//! ```text
//! woke server --bind ADDR
//! woke client --connect ADDR --count N --size BYTES [--unreliable]
//! ```
//!
//! `--loss P` (either side, ours only) drops that share of the program's outgoing datagrams.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use hopnet_protocols::woke::{
    Client, CloseReason, Config, EchoCheck, Event, MAX_PENDING_RELIABLE, Server, Summary,
};

mod common;

use common::{DEADLINE, Echoes, Loss, client_driver, exit, fail, finish, serve};

/// WOKE (context-woke-transport.txt) on hopnet's engine.
#[derive(Parser)]
enum Role {
    /// Echo every command to its sender.
    Server {
        #[arg(long)]
        bind: SocketAddr,
        #[command(flatten)]
        loss: Loss,
    },
    /// Send N commands and check their echoes.
    Client {
        #[command(flatten)]
        echoes: Echoes,
        #[arg(long)]
        unreliable: bool,
        #[command(flatten)]
        loss: Loss,
    },
}

fn main() -> ExitCode {
    exit(match Role::parse() {
        Role::Server { bind, loss } => server(bind, loss),
        Role::Client {
            echoes,
            unreliable,
            loss,
        } => client(echoes, !unreliable, loss),
    })
}

/// Serves until the deadline, printing the counts whenever they change (at most once a
/// second), so that the last line is a summary however the server ends. Succeeds if a client
/// connected.
fn server(bind: SocketAddr, loss: Loss) -> Result<bool, hopnet::Error> {
    let server = Server::new(Config::default());
    let stats = serve(bind, server, loss, |server: &Server| {
        let s = server.stats();
        let fields = vec![
            ("connections", server.connections() as u64),
            ("connected", s.connected),
            ("closed", s.closed),
            ("dropped", s.dropped),
            ("delivered", s.delivered),
            ("malformed", s.malformed),
        ];
        (s, fields)
    })?;
    Ok(stats.connected > 0)
}

fn client(
    Echoes {
        connect,
        count,
        size,
    }: Echoes,
    reliable: bool,
    loss: Loss,
) -> Result<bool, hopnet::Error> {
    if size < 4 {
        let none = Summary::default().to_json();
        return Ok(fail(&none, "--size must be at least 4 bytes"));
    }
    let start = Instant::now();
    let mut check = EchoCheck::new(count, size, reliable);
    let mut driver = match client_driver(
        connect,
        Client::new(connect, Config::default(), start),
        loss,
    ) {
        Ok(driver) => driver,
        Err(e) => return Ok(fail(&check.summary().to_json(), &e)),
    };
    let mut error = None;
    // Commands on their way at most, both directions together, so that neither end's
    // pending reliable commands reach the seed's limit.
    let in_flight = (MAX_PENDING_RELIABLE / 2) as u32;
    let mut next = 0;
    let mut linger_until = None;
    let mut closed = None;
    loop {
        while next < count && check.outstanding() < in_flight && closed.is_none() {
            let (kind, data) = check.command(next);
            match driver.machine().send(kind, &data, reliable) {
                Ok(()) => {
                    check.sent();
                    next += 1;
                }
                Err(e) => {
                    eprintln!("send: {e}");
                    break;
                }
            }
            if !reliable {
                // Unreliable commands are paced to what one packet a tick carries.
                break;
            }
        }
        if let Err(e) = driver.poll(Duration::from_millis(5)) {
            error = Some(format!("socket: {e}"));
            break;
        }
        while let Some(event) = driver.machine().poll_event() {
            match event {
                Event::Connected(id) => check.connected(id),
                Event::Command(c) => check.echo(c.kind, &c.data, c.reliable),
                Event::Closed(reason) => closed = Some(reason),
            }
        }
        let now = Instant::now();
        if let Some(reason) = closed.filter(|&r| r != CloseReason::Local) {
            error = Some(format!("connection ended: {reason:?}"));
            break;
        }
        let finished = next == count && (!reliable || check.all_back());
        if finished {
            let until = *linger_until.get_or_insert(now + Duration::from_millis(300));
            if now >= until && (!reliable || driver.machine().pending() == 0) {
                break;
            }
        }
        if now >= start + DEADLINE {
            error = Some("deadline passed".to_owned());
            break;
        }
    }
    driver.machine().close(Instant::now());
    let summary = check.summary().to_json();
    Ok(finish(&mut driver, error, &summary, check.succeeded()))
}
