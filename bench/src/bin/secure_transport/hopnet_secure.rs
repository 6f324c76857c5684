//! hopnet in secure mode through its blocking driver: `Server::bind_secure` and
//! `Client::connect_secure`, the same loops as the suite's `hopnet` peer
//! (`bench::transport::hopnet_peer`), the same configuration (its extensions, 1,200-byte
//! datagrams: what a netcode payload packet carries), each datagram sealed as a netcode 1.02
//! payload packet.

use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime};

use bench::transport::hopnet_peer::{Flavor, config};
use bench::transport::{
    Outcome, Params, RttParams, Shared, payload, ping_loop, spawn_server, start_reliable, tag_of,
};
use hopnet::secure::{ConnectToken, ConnectTokenBuilder, Key};
use hopnet::{Client, Server};
use hopnet::{Delivery, Error, Event};

const PROTOCOL_ID: u64 = 7;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// A token for the client: it sends to `target` (the server, or the relay in front of it); the
/// server finds itself, `server`, in the sealed part.
fn token(key: &Key, target: SocketAddr, server: SocketAddr) -> Result<ConnectToken, String> {
    ConnectTokenBuilder::new(PROTOCOL_ID, 1, [target])
        .internal_addresses([server])
        .expire_seconds(300)
        .issue(key, SystemTime::now())
        .map_err(err)
}

/// Connects, and waits for the extensions to be agreed (as the plain peer does).
fn connect(token: ConnectToken) -> Result<Client, String> {
    let mut client = Client::connect_secure(token, config(Flavor::Extended)?).map_err(err)?;
    client.wait_connected().map_err(err)?;
    let give_up = Instant::now() + Duration::from_secs(5);
    while client.machine().extensions().is_none() {
        if Instant::now() > give_up {
            return Err("no agreement on the extensions".into());
        }
        client.poll(Duration::from_millis(1)).map_err(err)?;
    }
    client.poll(Duration::from_millis(1)).map_err(err)?;
    Ok(client)
}

/// Reliable one-way throughput.
pub fn reliable(p: &Params) -> Result<Outcome, String> {
    let key = Key::generate();
    let mut server = Server::bind_secure(
        "127.0.0.1:0",
        config(Flavor::Extended)?,
        PROTOCOL_ID,
        key.clone(),
    )
    .map_err(err)?;
    let addr = server.local_addr().map_err(err)?;
    let (size, count, deadline) = (p.size, p.count, p.deadline);
    let case = start_reliable(addr, p, move |sh, give_up| {
        while !sh.is_done() && Instant::now() < give_up {
            server.poll(Duration::from_millis(5)).map_err(err)?;
            while let Some(ev) = server.poll_event() {
                if let Event::Message { bytes, .. } = ev.event {
                    if bytes.len() == size {
                        sh.deliver(count);
                    }
                    server.recycle(bytes);
                }
            }
        }
        Ok(())
    })?;
    let client_result = (|| -> Result<(), String> {
        let mut client = connect(token(&key, case.target, addr)?)?;
        let msg = payload(size, 0);
        case.shared.start();
        let mut sent = 0u64;
        // SECURE_BENCH_STATS: what the client saw, printed after the run (the congestion
        // window is sampled once per loop, outside the timed work only in the sense that it
        // is cheap; leave it unset for the rows).
        let diagnose = std::env::var_os("SECURE_BENCH_STATS").is_some();
        let mut windows: Vec<u64> = Vec::new();
        while !case.shared.is_done() && !case.shared.past(deadline) {
            if sent < count {
                let mut queued = 0;
                while sent < count {
                    match client.queue(&msg, Delivery::Reliable) {
                        Ok(()) => {
                            sent += 1;
                            queued += 1;
                        }
                        Err(Error::WouldBlock) => break,
                        Err(e) => return Err(err(e)),
                    }
                }
                let wait = if queued == 0 {
                    Duration::from_millis(1)
                } else {
                    Duration::ZERO
                };
                client.poll(wait).map_err(err)?;
                if diagnose {
                    windows.push(client.stats().congestion_window);
                }
            } else {
                client.poll(Duration::from_millis(1)).map_err(err)?;
            }
        }
        if diagnose {
            let s = client.stats();
            let sock = client.socket_stats();
            windows.sort_unstable();
            let at = |q: f64| {
                let i = ((windows.len().max(1) - 1) as f64 * q) as usize;
                windows.get(i).copied().unwrap_or(0)
            };
            eprint!(
                "[window p10 {} p50 {} p90 {}, min rtt {:?}] ",
                at(0.1),
                at(0.5),
                at(0.9),
                s.min_rtt
            );
            eprint!(
                "[datagrams sent {}, received {}, retransmissions {}, srtt {:?}, netcode drops {}] ",
                sock.sent,
                sock.received,
                s.retransmissions,
                s.smoothed_rtt,
                client
                    .secure()
                    .map_or(0, |c| c.netcode_stats().dropped_total())
            );
        }
        Ok(())
    })();
    case.finish(client_result, p)
}

/// Unreliable echo: one ping in flight.
pub fn rtt(p: &RttParams) -> Result<Vec<f64>, String> {
    let key = Key::generate();
    let mut server = Server::bind_secure(
        "127.0.0.1:0",
        config(Flavor::Extended)?,
        PROTOCOL_ID,
        key.clone(),
    )
    .map_err(err)?;
    let addr = server.local_addr().map_err(err)?;
    let shared = Shared::new();
    let sh = shared.clone();
    let give_up = Instant::now() + p.deadline + Duration::from_secs(5);
    let srv = spawn_server(move || -> Result<(), String> {
        while !sh.is_done() && Instant::now() < give_up {
            server.poll(Duration::from_millis(5)).map_err(err)?;
            while let Some(ev) = server.poll_event() {
                if let Event::Message { bytes, .. } = ev.event {
                    let _ = server.send(ev.connection, &bytes, Delivery::Unreliable);
                    server.recycle(bytes);
                }
            }
        }
        Ok(())
    });
    let result = (|| -> Result<Vec<f64>, String> {
        let mut client = connect(token(&key, addr, addr)?)?;
        ping_loop(
            p,
            &mut client,
            |client, _, msg| client.send(&msg, Delivery::Unreliable).map_err(err),
            |client, i| {
                client.poll(Duration::from_millis(1)).map_err(err)?;
                while let Some(ev) = client.poll_event() {
                    if let Event::Message { bytes, .. } = ev
                        && tag_of(&bytes) == i
                    {
                        return Ok(true);
                    }
                }
                Ok(false)
            },
        )
    })();
    shared.end(srv, result)
}
