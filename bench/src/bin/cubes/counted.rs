//! A client machine that counts what it receives, per second of virtual time: every datagram
//! that reaches it (hopnet's headers, acknowledgements and anything sent again included) plus
//! the 28 bytes of IPv4 and UDP header it would have carried, as Fiedler's article counts.

use std::net::SocketAddr;
use std::time::Instant;

use hopnet::proto::{Client, Server};
use hopnet::sim::SimNetwork;
use hopnet::{Machine, Transmit};

/// The simulated network the runs use: hopnet's server and counting clients.
pub type Net = SimNetwork<Server, Counted>;

/// IPv4 (20) and UDP (8) headers.
pub const IP_UDP: u64 = 28;

pub struct Counted {
    pub inner: Client,
    /// Counting starts here; nothing before it is counted.
    pub since: Option<Instant>,
    /// Bytes received in each whole second since `since`.
    pub per_second: Vec<u64>,
}

impl Machine for Counted {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if let Some(since) = self.since
            && let Some(elapsed) = now.checked_duration_since(since)
        {
            let second = elapsed.as_secs() as usize;
            if self.per_second.len() <= second {
                self.per_second.resize(second + 1, 0);
            }
            self.per_second[second] += datagram.len() as u64 + IP_UDP;
        }
        self.inner.handle(now, from, datagram);
    }

    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        self.inner.poll_transmit(now, buf, max_datagrams)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.inner.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.inner.handle_timeout(now);
    }
}
