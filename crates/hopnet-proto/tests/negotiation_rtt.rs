//! The first round-trip sample of a connection that negotiates its extensions counts from when
//! the offer or accept left, not from when it was queued: an application that polls for
//! datagrams to send once per tick (sans-I/O, at 60 Hz) would otherwise start every connection
//! with a round trip a tick too long.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet_proto::{Client, Config, Machine, Server, Transmit};

const CLIENT: &str = "127.0.0.1:40001";
const SERVER: &str = "127.0.0.1:40000";
/// How long each side leaves what it queued before sending it.
const TICK: Duration = Duration::from_millis(50);

fn config() -> Config {
    Config::builder()
        .extensions(true)
        .build()
        .expect("valid config")
}

/// Everything `poll` produces at `now`, split into datagrams.
fn drain(
    mut poll: impl FnMut(Instant, &mut Vec<u8>) -> Option<Transmit>,
    now: Instant,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    while let Some(t) = poll(now, &mut buf) {
        out.extend(t.split(&buf).map(<[u8]>::to_vec));
    }
    out
}

struct Ends {
    client: Client,
    server: Server,
    client_addr: SocketAddr,
    server_addr: SocketAddr,
    now: Instant,
}

impl Ends {
    /// A client and a server through the handshake, each answering at once, up to the
    /// moment the client is connected: its offer is queued and has not left.
    fn connected() -> Ends {
        let (client_addr, server_addr): (SocketAddr, SocketAddr) =
            (CLIENT.parse().unwrap(), SERVER.parse().unwrap());
        let now = Instant::now();
        let mut ends = Ends {
            client: Client::with_seed(config(), server_addr, now, 7),
            server: Server::with_seed(config(), 7),
            client_addr,
            server_addr,
            now,
        };
        for _ in 0..20 {
            ends.client_sends();
            ends.server_sends();
            if ends.client.is_connected() {
                return ends;
            }
        }
        panic!("the handshake did not complete");
    }

    /// The client sends what it has queued; the server takes it at once.
    fn client_sends(&mut self) -> usize {
        let datagrams = drain(|t, b| self.client.poll_transmit(t, b, 64), self.now);
        for d in &datagrams {
            self.server.handle(self.now, self.client_addr, d);
        }
        datagrams.len()
    }

    /// The server sends what it has queued; the client takes it at once.
    fn server_sends(&mut self) -> usize {
        let datagrams = drain(|t, b| self.server.poll_transmit(t, b, 64), self.now);
        for d in &datagrams {
            self.client.handle(self.now, self.server_addr, d);
        }
        datagrams.len()
    }

    fn client_sample(&self) -> Duration {
        self.client
            .stats()
            .min_rtt
            .expect("the client has a sample")
    }

    fn server_sample(&mut self) -> Duration {
        let id = self
            .server
            .connection_of(self.client_addr)
            .expect("the server's side");
        self.server
            .stats(id)
            .and_then(|s| s.min_rtt)
            .expect("the server has a sample")
    }
}

#[test]
fn the_clients_sample_counts_from_when_its_offer_left() {
    let mut ends = Ends::connected();
    // The offer waits a tick in the client; then the wire and the server take no time.
    ends.now += TICK;
    assert!(ends.client_sends() > 0, "the offer leaves");
    assert!(ends.server_sends() > 0, "the accept comes back");
    assert!(ends.client.extensions().is_some(), "the client agreed");
    let sample = ends.client_sample();
    assert!(sample < TICK, "the client's first sample is {sample:?}");
}

#[test]
fn the_servers_sample_counts_from_when_its_accept_left() {
    let mut ends = Ends::connected();
    assert!(ends.client_sends() > 0, "the offer leaves");
    // The accept waits a tick in the server; then the wire and the client take no time.
    ends.now += TICK;
    assert!(ends.server_sends() > 0, "the accept leaves");
    assert!(
        ends.client_sends() > 0,
        "the client's first extended datagram"
    );
    let id = ends
        .server
        .connection_of(ends.client_addr)
        .expect("the server's side");
    assert!(ends.server.extensions(id).is_some(), "the server agreed");
    let sample = ends.server_sample();
    assert!(sample < TICK, "the server's first sample is {sample:?}");
}
