//! The address a socket bound to an unspecified address (`0.0.0.0`, `::`) sends from, to each
//! peer: what the kernel's routing would pick, asked once per peer by connecting a throwaway
//! UDP socket (nothing is sent). A recording then shows the address a capture on the wire
//! would show, not `0.0.0.0`.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr, UdpSocket};

/// Peers remembered at most; beyond, the memory starts over (a server's clients, or spoofed
/// sources, are not allowed to grow it without bound).
const MAX_PEERS: usize = 4096;

/// The local address of a recording, resolved per peer when it is unspecified.
#[derive(Debug)]
pub(crate) struct LocalIp {
    bound: SocketAddr,
    routes: HashMap<IpAddr, IpAddr>,
}

impl LocalIp {
    pub(crate) fn new(bound: SocketAddr) -> LocalIp {
        LocalIp {
            bound,
            routes: HashMap::new(),
        }
    }

    /// The address bound.
    pub(crate) fn bound(&self) -> SocketAddr {
        self.bound
    }

    /// The address datagrams to or from `peer` carry on this side.
    pub(crate) fn toward(&mut self, peer: SocketAddr) -> SocketAddr {
        if !self.bound.ip().is_unspecified() {
            return self.bound;
        }
        let ip = match self.routes.get(&peer.ip()) {
            Some(ip) => *ip,
            None => {
                let ip = route(self.bound.ip(), peer).unwrap_or(self.bound.ip());
                if self.routes.len() >= MAX_PEERS {
                    self.routes.clear();
                }
                self.routes.insert(peer.ip(), ip);
                ip
            }
        };
        SocketAddr::new(ip, self.bound.port())
    }
}

/// The source address the kernel picks for `peer` from a socket bound like `unspecified`.
fn route(unspecified: IpAddr, peer: SocketAddr) -> Option<IpAddr> {
    let probe = UdpSocket::bind(SocketAddr::new(unspecified, 0)).ok()?;
    probe.connect(peer).ok()?;
    Some(probe.local_addr().ok()?.ip())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unspecified_address_becomes_the_route_s_source() {
        let mut local = LocalIp::new("0.0.0.0:7777".parse().unwrap());
        let toward = local.toward("127.0.0.1:5000".parse().unwrap());
        assert_eq!(toward, "127.0.0.1:7777".parse().unwrap());
        let mut bound = LocalIp::new("127.0.0.2:7777".parse().unwrap());
        assert_eq!(
            bound.toward("127.0.0.1:5000".parse().unwrap()),
            bound.bound()
        );
    }
}
