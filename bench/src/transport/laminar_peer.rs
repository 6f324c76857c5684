//! laminar 0.5: `Socket` driven by `manual_poll` in the application's loop (busy, yielding
//! between iterations, as `start_polling_with_duration(None)` does), reliable-unordered packets.
//!
//! laminar has no flow or congestion control and drops a connection with more than
//! `max_packets_in_flight` (512) unacknowledged packets, and its acknowledgements ride on
//! packets going the other way, each acknowledging the newest packet and the 32 before it.
//! So the receiver answers every batch it receives with a small reliable packet carrying its
//! delivered count, and the sender keeps at most 32 messages beyond that count: the
//! application-level window a laminar application needs for bulk transfer (a larger one
//! leaves packets outside every acknowledgement's 33-packet reach, which laminar then resends
//! until the connection is dropped).

use std::net::SocketAddr;
use std::thread;
use std::time::{Duration, Instant};

use laminar::{Config, Packet, Socket, SocketEvent};

use super::relay::Relay;
use super::tick::{Message, Side, TickOutcome, TickPlan, TickShared, run_pair};
use super::{Outcome, Params, RttParams, Shared, payload, ping_loop, start_reliable, tag_of};

/// Messages the sender keeps ahead of the receiver's count.
const WINDOW: u64 = 32;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// laminar's payload length is a `u16` and a packet has at most 255 fragments of
/// `fragment_size` bytes: 65,536 bytes cannot be sent in one message.
pub fn cannot(p: &Params) -> Option<&'static str> {
    (p.size > u16::MAX as usize)
        .then_some("cannot send it: laminar's payload length is a u16 (65,535 bytes at most)")
}

fn config() -> Config {
    Config {
        idle_connection_timeout: Duration::from_secs(10),
        ..Config::default()
    }
}

/// Reliable one-way throughput.
pub fn reliable(p: &Params) -> Result<Outcome, String> {
    let mut server = Socket::bind_with_config("127.0.0.1:0", config()).map_err(err)?;
    let addr = server.local_addr().map_err(err)?;
    let (size, count, deadline) = (p.size, p.count, p.deadline);
    let case = start_reliable(addr, p, move |sh, give_up| {
        let mut delivered = 0u64;
        while !sh.is_done() && Instant::now() < give_up {
            server.manual_poll(Instant::now());
            let mut from: Option<SocketAddr> = None;
            while let Some(ev) = server.recv() {
                if let SocketEvent::Packet(pk) = ev {
                    from = Some(pk.addr());
                    if pk.payload().len() == size {
                        delivered += 1;
                        sh.deliver(count);
                    }
                }
            }
            if let Some(to) = from {
                let _ = server.send(Packet::reliable_unordered(
                    to,
                    delivered.to_le_bytes().to_vec(),
                ));
                server.manual_poll(Instant::now());
            }
            thread::yield_now();
        }
        Ok(())
    })?;
    let client_result = (|| -> Result<(), String> {
        let mut client = Socket::bind_with_config("127.0.0.1:0", config()).map_err(err)?;
        let msg = payload(size, 0);
        case.shared.start();
        let (mut sent, mut acked) = (0u64, 0u64);
        while !case.shared.is_done() && !case.shared.past(deadline) {
            while sent < count && sent < acked + WINDOW {
                client
                    .send(Packet::reliable_unordered(case.target, msg.clone()))
                    .map_err(err)?;
                sent += 1;
            }
            client.manual_poll(Instant::now());
            while let Some(ev) = client.recv() {
                match ev {
                    SocketEvent::Packet(pk) => acked = acked.max(tag_of(pk.payload())),
                    SocketEvent::Timeout(_) | SocketEvent::Disconnect(_) => {
                        return Err("laminar dropped the connection".into());
                    }
                    _ => {}
                }
            }
            thread::yield_now();
        }
        Ok(())
    })();
    case.finish(client_result, p)
}

/// Unreliable echo.
pub fn rtt(p: &RttParams) -> Result<Vec<f64>, String> {
    let mut server = Socket::bind_with_config("127.0.0.1:0", config()).map_err(err)?;
    let addr = server.local_addr().map_err(err)?;
    let shared = Shared::new();
    let sh = shared.clone();
    let give_up = Instant::now() + p.deadline + Duration::from_secs(5);
    let srv = super::spawn_server(move || {
        while !sh.is_done() && Instant::now() < give_up {
            server.manual_poll(Instant::now());
            while let Some(ev) = server.recv() {
                if let SocketEvent::Packet(pk) = ev {
                    let _ = server.send(Packet::unreliable(pk.addr(), pk.payload().to_vec()));
                    server.manual_poll(Instant::now());
                }
            }
            thread::yield_now();
        }
    });
    let result = (|| -> Result<Vec<f64>, String> {
        let mut client = Socket::bind_with_config("127.0.0.1:0", config()).map_err(err)?;
        ping_loop(
            p,
            &mut client,
            |client, _, msg| client.send(Packet::unreliable(addr, msg)).map_err(err),
            |client, i| {
                client.manual_poll(Instant::now());
                while let Some(ev) = client.recv() {
                    if let SocketEvent::Packet(pk) = ev
                        && tag_of(pk.payload()) == i
                    {
                        return Ok(true);
                    }
                }
                thread::yield_now();
                Ok(false)
            },
        )
    })();
    shared.stop();
    let _ = srv.join();
    result
}

/// What the tick case's client sends until the server answers in kind: laminar has no
/// handshake, and its server learns the client's address from the first packet.
const HELLO: &[u8] = b"hello";

fn packet(to: SocketAddr, m: &Message) -> Packet {
    if m.reliable {
        Packet::reliable_unordered(to, m.bytes.clone())
    } else {
        Packet::unreliable(to, m.bytes.clone())
    }
}

/// One turn of a laminar side: queue `out` to `to`, `manual_poll` (which reads, then sends),
/// then the events. Returns the sender of a hello, if one came.
fn turn(
    socket: &mut Socket,
    to: Option<SocketAddr>,
    out: &[Message],
    received: &mut dyn FnMut(&[u8]),
) -> Result<Option<SocketAddr>, String> {
    if !out.is_empty() {
        let to = to.ok_or("no client")?;
        for m in out {
            socket.send(packet(to, m)).map_err(err)?;
        }
    }
    socket.manual_poll(Instant::now());
    let mut hello = None;
    while let Some(ev) = socket.recv() {
        match ev {
            SocketEvent::Packet(pk) if pk.payload() == HELLO => hello = Some(pk.addr()),
            SocketEvent::Packet(pk) => received(pk.payload()),
            SocketEvent::Timeout(_) | SocketEvent::Disconnect(_) => {
                return Err("laminar dropped the connection".into());
            }
            SocketEvent::Connect(_) => {}
        }
    }
    Ok(hello)
}

/// The server side of the tick case: `manual_poll` once per tick.
struct TickServer {
    socket: Socket,
    client: Option<SocketAddr>,
}

impl Side for TickServer {
    fn turn(&mut self, out: &[Message], received: &mut dyn FnMut(&[u8])) -> Result<(), String> {
        if let Some(from) = turn(&mut self.socket, self.client, out, received)? {
            self.client = Some(from);
            self.socket
                .send(Packet::unreliable(from, HELLO.to_vec()))
                .map_err(err)?;
        }
        Ok(())
    }

    fn ready(&self) -> bool {
        self.client.is_some()
    }
}

/// The client side of the tick case.
struct TickClient {
    socket: Socket,
    server: SocketAddr,
}

impl Side for TickClient {
    fn turn(&mut self, out: &[Message], received: &mut dyn FnMut(&[u8])) -> Result<(), String> {
        turn(&mut self.socket, Some(self.server), out, received).map(|_| ())
    }
}

/// Sends hellos until the server answers one.
fn connect(server: SocketAddr, shared: &TickShared) -> Result<TickClient, String> {
    let mut socket = Socket::bind_with_config("127.0.0.1:0", config()).map_err(err)?;
    let give_up = Instant::now() + Duration::from_secs(5);
    loop {
        socket
            .send(Packet::unreliable(server, HELLO.to_vec()))
            .map_err(err)?;
        if turn(&mut socket, None, &[], &mut |_| {})?.is_some() {
            return Ok(TickClient { socket, server });
        }
        if shared.failed() || Instant::now() > give_up {
            return Err("the server did not answer".into());
        }
        thread::sleep(Duration::from_millis(1));
    }
}

/// The tick case.
pub fn tick(plan: &TickPlan) -> Result<TickOutcome, String> {
    let socket = Socket::bind_with_config("127.0.0.1:0", config()).map_err(err)?;
    let relay = Relay::spawn(socket.local_addr().map_err(err)?, 0.0, 0).map_err(err)?;
    let server = TickServer {
        socket,
        client: None,
    };
    run_pair(plan, relay, server, connect)
}
