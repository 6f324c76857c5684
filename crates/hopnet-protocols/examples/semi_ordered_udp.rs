//! The issue-28 contract's Semi-ordered UDP program: a server that echoes and forwards, and a
//! client that sends N packages and checks their echoes. The last stdout line is a JSON
//! summary; the exit code says whether it succeeded; 30 s is the deadline.
//!
//! ```text
//! semi_ordered_udp server --bind ADDR [--start-id K]
//! semi_ordered_udp client --connect ADDR --count N --size BYTES [--mode unreliable|unordered|semi-ordered|mixed] [--start-id K]
//! ```
//!
//! `--loss P` (either side, ours only) drops that share of the program's outgoing datagrams.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use hopnet_protocols::semi_ordered_udp::{
    Client, ClientMode, Config, EchoCheck, Event, SendError, Server, Summary,
};

mod common;

use common::{DEADLINE, Echoes, Loss, client_driver, exit, fail, finish, serve};

/// Semi-ordered UDP (context-semi-ordered-udp.txt) on hopnet's engine.
#[derive(Parser)]
enum Role {
    /// Echo server-targeted packages to their sender, forward the others to every other peer.
    Server {
        #[arg(long)]
        bind: SocketAddr,
        #[arg(long, default_value_t = 0)]
        start_id: u32,
        #[command(flatten)]
        loss: Loss,
    },
    /// Send N server-targeted packages and check their echoes.
    Client {
        #[command(flatten)]
        echoes: Echoes,
        #[arg(long, value_enum, default_value_t = Mode::Mixed)]
        mode: Mode,
        #[arg(long, default_value_t = 0)]
        start_id: u32,
        #[command(flatten)]
        loss: Loss,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Mode {
    Unreliable,
    Unordered,
    SemiOrdered,
    Mixed,
}

fn main() -> ExitCode {
    exit(match Role::parse() {
        Role::Server {
            bind,
            start_id,
            loss,
        } => server(bind, start_id, loss),
        Role::Client {
            echoes,
            mode,
            start_id,
            loss,
        } => client(echoes, mode, start_id, loss),
    })
}

/// Serves until the deadline, printing the counts whenever they change (at most once a
/// second), so that the last line is a summary however the server ends. Succeeds if it
/// served a peer.
fn server(bind: SocketAddr, start_id: u32, loss: Loss) -> Result<bool, hopnet::Error> {
    let server = Server::new(Config::starting_at(start_id));
    let stats = serve(bind, server, loss, |server: &Server| {
        let s = server.stats();
        let fields = vec![
            ("peers", server.peers() as u64),
            ("delivered", s.delivered),
            ("echoed", s.echoed),
            ("forwarded", s.forwarded),
            ("dropped", s.dropped),
            ("malformed", s.malformed),
        ];
        (s, fields)
    })?;
    Ok(stats.delivered > 0)
}

fn client(
    Echoes {
        connect,
        count,
        size,
    }: Echoes,
    mode: Mode,
    start_id: u32,
    loss: Loss,
) -> Result<bool, hopnet::Error> {
    if !(4..=hopnet_protocols::semi_ordered_udp::MAX_PAYLOAD).contains(&size) {
        let none = Summary::default().to_json();
        return Ok(fail(&none, "--size must be 4 to 504 bytes"));
    }
    let mode = match mode {
        Mode::Unreliable => ClientMode::Unreliable,
        Mode::Unordered => ClientMode::Unordered,
        Mode::SemiOrdered => ClientMode::SemiOrdered,
        Mode::Mixed => ClientMode::Mixed,
    };
    let start = Instant::now();
    let machine = Client::new(connect, Config::starting_at(start_id), start);
    let mut check = EchoCheck::new(count, size, mode);
    let mut driver = match client_driver(connect, machine, loss) {
        Ok(driver) => driver,
        Err(e) => return Ok(fail(&check.summary().to_json(), &e)),
    };
    let mut error = None;
    let mut next = 0;
    // Unreliable echoes get this long after the last package went out.
    let mut linger_until = None;
    loop {
        let now = Instant::now();
        while next < count {
            let payload = check.payload(next);
            match driver.machine().send(now, check.mode(next), true, &payload) {
                Ok(_) => {
                    check.sent();
                    next += 1;
                }
                Err(SendError::WouldBlock) => break,
                Err(e) => {
                    error = Some(format!("send: {e}"));
                    break;
                }
            }
        }
        if error.is_some() {
            break;
        }
        if let Err(e) = driver.poll(Duration::from_millis(5)) {
            error = Some(format!("socket: {e}"));
            break;
        }
        while let Some(event) = driver.machine().poll_event() {
            match event {
                Event::Delivered {
                    reliability,
                    payload,
                    ..
                } => check.echo(reliability, &payload),
                Event::Forgotten => eprintln!("the server was silent for 15 s"),
            }
        }
        let now = Instant::now();
        if next == count && check.all_reliable_back() {
            let until = *linger_until.get_or_insert(now + Duration::from_millis(300));
            // Done once the last confirmations left, and unreliable echoes had their time.
            if now >= until && driver.machine().is_idle() {
                break;
            }
        }
        if now >= start + DEADLINE {
            error = Some("deadline passed".to_owned());
            break;
        }
    }
    let summary = check.summary().to_json();
    Ok(finish(&mut driver, error, &summary, check.succeeded()))
}
