//! The floor (`udp-floor`): what this machine allows any UDP transport that does hopnet's least
//! per message, measured as the suite measures every peer, so that each row can be read as a
//! share of what the machine allows rather than of TCP's rate (TCP on loopback sends
//! 64 KiB segments, where every UDP datagram is a packet of its own).
//!
//! Reliable cases: bare UDP ([`bare_udp`]) with GSO and GRO, in datagrams of the size hopnet
//! sends (a 1 KiB message in 1,036 bytes; a larger one in datagrams of hopnet's
//! [`MAX_DATAGRAM`]), with the copy in and out and the CRC-32 per datagram that hopnet does,
//! and nothing else of a protocol. It recovers no loss, so it runs at 0 % only.
//!
//! Round trip: a bare UDP echo, both ends busy-polling non-blocking sockets and yielding when
//! nothing is there, as hopnet's blocking driver polls.

use std::io::ErrorKind;
use std::net::UdpSocket;
use std::time::{Duration, Instant};

use super::bare_udp::{self, OVERHEAD, Work};
use super::hopnet_peer::MAX_DATAGRAM;
use super::{Outcome, Params, RttParams, Shared, ping_loop, spawn_server, tag_of};

/// The row's name, and the reference of the suite's table of shares.
pub const NAME: &str = "udp-floor";

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Reliable one-way throughput at 0 % loss.
pub fn reliable(p: &Params) -> Result<Outcome, String> {
    let datagram = (p.size + OVERHEAD).min(MAX_DATAGRAM);
    bare_udp::transfer(
        p,
        datagram,
        Work {
            copy: true,
            crc: true,
        },
    )
}

/// Whether the floor can run case `p`.
pub fn cannot(p: &Params) -> Option<&'static str> {
    (p.loss > 0.0).then_some("the floor recovers no loss: 0 % only")
}

/// Unreliable echo: one ping in flight.
pub fn rtt(p: &RttParams) -> Result<Vec<f64>, String> {
    let server = UdpSocket::bind("127.0.0.1:0").map_err(err)?;
    server.set_nonblocking(true).map_err(err)?;
    let addr = server.local_addr().map_err(err)?;
    let shared = Shared::new();
    let sh = shared.clone();
    let give_up = Instant::now() + p.deadline + Duration::from_secs(5);
    let srv = spawn_server(move || -> Result<(), String> {
        let mut buf = vec![0u8; 1 << 16];
        while !sh.is_done() && Instant::now() < give_up {
            match server.recv_from(&mut buf) {
                Ok((n, from)) => match server.send_to(&buf[..n], from) {
                    Ok(_) => {}
                    // A full buffer loses the echo, as it would any UDP peer's.
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => return Err(err(e)),
                },
                Err(e) if e.kind() == ErrorKind::WouldBlock => std::thread::yield_now(),
                Err(e) => return Err(err(e)),
            }
        }
        Ok(())
    });
    let result = (|| -> Result<Vec<f64>, String> {
        let client = UdpSocket::bind("127.0.0.1:0").map_err(err)?;
        client.connect(addr).map_err(err)?;
        client.set_nonblocking(true).map_err(err)?;
        let mut echo = (client, vec![0u8; 1 << 16]);
        ping_loop(
            p,
            &mut echo,
            |(client, _), _, msg| client.send(&msg).map(drop).map_err(err),
            |(client, buf), i| loop {
                match client.recv(buf) {
                    Ok(n) if tag_of(&buf[..n]) == i => return Ok(true),
                    // An echo of an earlier ping, given up on: read on.
                    Ok(_) => {}
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        std::thread::yield_now();
                        return Ok(false);
                    }
                    Err(e) => return Err(err(e)),
                }
            },
        )
    })();
    shared.end(srv, result)
}
