//! hopnet through its blocking driver (`hopnet`): `Server` and `Client` over
//! `std::net::UdpSocket`, polled in a loop as an application would.
//!
//! Two rows can come from here: `hopnet` (with the extensions a hopnet peer negotiates)
//! and `hopnet-spec` (the spec's wire only). [`config`] is the one place they differ.

use std::time::{Duration, Instant};

use hopnet::{Client, Server};
use hopnet::{Config, ConnectionId, Delivery, Error, Event};

use super::relay::Relay;
use super::tick::{Message, Side, TickOutcome, TickPlan, run_pair};
use super::{Outcome, Params, RttParams, Shared, payload, ping_loop, start_reliable, tag_of};

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Which hopnet a row measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// The `hopnet` rows: every extension this hopnet has, switched on.
    Extended,
    /// The `hopnet-spec` rows: the spec's wire, no extension.
    Spec,
}

/// The datagram size both ends of the `hopnet` rows agree on: QUIC's 1,200 bytes, which any
/// path carries unfragmented. The floor (`udp-floor`) sends datagrams of the same size.
pub const MAX_DATAGRAM: usize = 1200;

/// The configuration of both ends of a connection, for every case: the one place where the
/// `hopnet` and `hopnet-spec` rows differ.
pub fn config(flavor: Flavor) -> Result<Config, String> {
    match flavor {
        // hopnet's negotiated extensions: batching, ACK ranges with delayed ACKs, CRC-32,
        // and QUIC's 1,200-byte datagram. Not LZ4: the harness's payloads are one byte
        // repeated, which LZ4 shrinks a hundredfold, so it would measure the payload and not
        // the transport (every other peer sends them as they are).
        Flavor::Extended => Config::builder()
            .extensions(true)
            .compression(false)
            .max_datagram_size(MAX_DATAGRAM)
            .build()
            .map_err(err),
        // The spec's wire: every extension off.
        Flavor::Spec => Ok(Config::default()),
    }
}

/// Polls a connected client until its extensions are agreed (the `hopnet` rows), so that no
/// case's timed part starts on the spec's wire: the offer and its accept take a round trip
/// after the handshake, which is not timed either.
fn wait_agreed(client: &mut Client, flavor: Flavor) -> Result<(), String> {
    if flavor == Flavor::Spec {
        return Ok(());
    }
    let give_up = Instant::now() + Duration::from_secs(5);
    while client.machine().extensions().is_none() {
        if Instant::now() > give_up {
            return Err("no agreement on the extensions".into());
        }
        client.poll(Duration::from_millis(1)).map_err(err)?;
    }
    // The server sends extended datagrams once the client's first one arrived.
    client.poll(Duration::from_millis(1)).map_err(err)?;
    Ok(())
}

/// Reliable one-way throughput, the `hopnet-spec` row.
pub fn reliable_spec(p: &Params) -> Result<Outcome, String> {
    reliable_as(p, Flavor::Spec)
}

/// Unreliable echo, the `hopnet-spec` row.
pub fn rtt_spec(p: &RttParams) -> Result<Vec<f64>, String> {
    rtt_as(p, Flavor::Spec)
}

/// Reliable one-way throughput.
pub fn reliable(p: &Params) -> Result<Outcome, String> {
    reliable_as(p, Flavor::Extended)
}

fn reliable_as(p: &Params, flavor: Flavor) -> Result<Outcome, String> {
    let mut server = Server::bind("127.0.0.1:0", config(flavor)?).map_err(err)?;
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
                    // Read: its buffer takes a later message.
                    server.recycle(bytes);
                }
            }
        }
        Ok(())
    })?;
    let client_result = (|| -> Result<(), String> {
        let mut client = Client::connect(case.target, config(flavor)?).map_err(err)?;
        client.wait_connected().map_err(err)?;
        wait_agreed(&mut client, flavor)?;
        let msg = payload(size, 0);
        case.shared.start();
        let mut sent = 0u64;
        while !case.shared.is_done() && !case.shared.past(deadline) {
            if sent < count {
                // Queue as many messages as the API accepts, then turn the I/O loop once
                // (which sends them), as renet's peer does with `can_send_message` and
                // `send_packets`. The API's own bounds (`max_pending_reliable`,
                // `max_pending_bytes`) decide how many.
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
            } else {
                client.poll(Duration::from_millis(1)).map_err(err)?;
            }
        }
        Ok(())
    })();
    case.finish(client_result, p)
}

/// Unreliable echo: one ping in flight.
pub fn rtt(p: &RttParams) -> Result<Vec<f64>, String> {
    rtt_as(p, Flavor::Extended)
}

fn rtt_as(p: &RttParams, flavor: Flavor) -> Result<Vec<f64>, String> {
    let mut server = Server::bind("127.0.0.1:0", config(flavor)?).map_err(err)?;
    let addr = server.local_addr().map_err(err)?;
    let shared = Shared::new();
    let sh = shared.clone();
    let give_up = Instant::now() + p.deadline + Duration::from_secs(5);
    let srv = super::spawn_server(move || -> Result<(), String> {
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
        let mut client = Client::connect(addr, config(flavor)?).map_err(err)?;
        client.wait_connected().map_err(err)?;
        wait_agreed(&mut client, flavor)?;
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

fn delivery(reliable: bool) -> Delivery {
    if reliable {
        Delivery::Reliable
    } else {
        Delivery::Unreliable
    }
}

/// The server side of the tick case: one round of I/O (`poll(0)`, as a game server calls it
/// once per tick), the events, then the tick's messages queued and flushed together.
struct TickServer {
    server: Server,
    peer: Option<ConnectionId>,
}

impl Side for TickServer {
    fn turn(&mut self, out: &[Message], received: &mut dyn FnMut(&[u8])) -> Result<(), String> {
        self.server.poll(Duration::ZERO).map_err(err)?;
        while let Some(ev) = self.server.poll_event() {
            match ev.event {
                Event::Connected => self.peer = Some(ev.connection),
                Event::Message { bytes, .. } => received(&bytes),
                Event::Disconnected { reason } => {
                    return Err(format!("the client disconnected: {reason:?}"));
                }
                Event::Acknowledged { .. } | Event::Lost { .. } => {}
            }
        }
        if out.is_empty() {
            return Ok(());
        }
        let id = self.peer.ok_or("no client")?;
        for m in out {
            self.server
                .queue(id, &m.bytes, delivery(m.reliable))
                .map_err(err)?;
        }
        self.server.flush().map_err(err)
    }

    fn ready(&self) -> bool {
        self.peer.is_some()
    }

    fn note(&mut self) -> Option<String> {
        let id = self.peer?;
        let stats = self.server.machine().stats(id)?;
        Some(format!("{} retransmissions", stats.retransmissions))
    }
}

/// The client side of the tick case, as [`TickServer`].
struct TickClient {
    client: Client,
}

impl Side for TickClient {
    fn turn(&mut self, out: &[Message], received: &mut dyn FnMut(&[u8])) -> Result<(), String> {
        self.client.poll(Duration::ZERO).map_err(err)?;
        while let Some(ev) = self.client.poll_event() {
            match ev {
                Event::Message { bytes, .. } => received(&bytes),
                Event::Disconnected { reason } => {
                    return Err(format!("disconnected: {reason:?}"));
                }
                Event::Connected | Event::Acknowledged { .. } | Event::Lost { .. } => {}
            }
        }
        if out.is_empty() {
            return Ok(());
        }
        for m in out {
            self.client
                .queue(&m.bytes, delivery(m.reliable))
                .map_err(err)?;
        }
        self.client.flush().map_err(err)
    }

    fn note(&mut self) -> Option<String> {
        Some(format!(
            "{} retransmissions",
            self.client.stats().retransmissions
        ))
    }
}

/// The tick case, both ends configured as `flavor`.
pub fn tick(plan: &TickPlan, flavor: Flavor) -> Result<TickOutcome, String> {
    let server = Server::bind("127.0.0.1:0", config(flavor)?).map_err(err)?;
    let relay = Relay::spawn(server.local_addr().map_err(err)?, 0.0, 0).map_err(err)?;
    let server = TickServer { server, peer: None };
    run_pair(plan, relay, server, |addr, _| {
        let mut client = Client::connect(addr, config(flavor)?).map_err(err)?;
        client.wait_connected().map_err(err)?;
        wait_agreed(&mut client, flavor)?;
        Ok(TickClient { client })
    })
}
