//! What a driver runs: a plain machine, or its secure form (netcode 1.02 underneath), chosen
//! when the driver is made, with, on a server, an optional side channel in front. The
//! application sees the same [`Server`] or [`Client`] either way; only the wire differs.
//! Written once for both roles, so that a driver's datagrams pass one dispatcher.

use std::net::SocketAddr;
use std::time::{Instant, SystemTime};

use super::side_channel::SideChannel;
use hopnet_proto::Machine;
use hopnet_proto::Transmit;
use hopnet_proto::secure::{
    ConnectToken, Key, MAX_CLIENTS, NetcodeServerConfig, SecureClient, SecureServer,
};
use hopnet_proto::{Client, Config, Error, Server, Stats};

/// A plain machine `P`, or `S`, its form over netcode 1.02 (which holds a `P` above netcode),
/// behind an optional [`SideChannel`] (a server's; a client never has one).
#[derive(Debug)]
pub struct Mode<P, S> {
    wire: Wire<P, S>,
    /// Another protocol's datagrams on the same socket, told apart before the machine sees them.
    pub(crate) side: Option<SideChannel>,
}

/// The two differ in size (netcode's slots and keys); one is made per driver and never moved
/// on a hot path, so neither is boxed.
#[derive(Debug)]
enum Wire<P, S> {
    /// The spec's wire (or hopnet's extended one).
    Plain(P),
    /// Secure mode.
    Secure(S),
}

/// A driver's server machine.
pub(crate) type ServerMachine = Mode<Server, SecureServer>;

/// A driver's client machine.
pub(crate) type ClientMachine = Mode<Client, SecureClient>;

/// A secure machine's plain one, above netcode: what the application drives.
pub trait Above<P> {
    /// The plain machine.
    fn plain(&mut self) -> &mut P;
}

impl Above<Server> for SecureServer {
    fn plain(&mut self) -> &mut Server {
        self.machine()
    }
}

impl Above<Client> for SecureClient {
    fn plain(&mut self) -> &mut Client {
        self.machine()
    }
}

impl<P, S> Mode<P, S> {
    /// The plain machine, without a side channel.
    pub fn plain(machine: P) -> Mode<P, S> {
        Mode {
            wire: Wire::Plain(machine),
            side: None,
        }
    }

    fn secure_from(machine: S) -> Mode<P, S> {
        Mode {
            wire: Wire::Secure(machine),
            side: None,
        }
    }
}

impl<P, S: Above<P>> Mode<P, S> {
    /// The machine the application drives (a secure one's own, above netcode).
    pub fn machine(&mut self) -> &mut P {
        match &mut self.wire {
            Wire::Plain(m) => m,
            Wire::Secure(m) => m.plain(),
        }
    }

    /// The secure machine, if it is one.
    pub fn secure(&mut self) -> Option<&mut S> {
        match &mut self.wire {
            Wire::Plain(_) => None,
            Wire::Secure(m) => Some(m),
        }
    }

    /// Whether it runs in secure mode.
    pub fn is_secure(&self) -> bool {
        matches!(self.wire, Wire::Secure(_))
    }
}

impl<P: Machine, S: Machine> Machine for Mode<P, S> {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if let Some(side) = &mut self.side
            && side.offer(from, datagram)
        {
            return;
        }
        match &mut self.wire {
            Wire::Plain(m) => m.handle(now, from, datagram),
            Wire::Secure(m) => m.handle(now, from, datagram),
        }
    }

    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        if let Some((to, answer)) = self.side.as_mut().and_then(SideChannel::next_answer) {
            buf.clear();
            buf.extend_from_slice(&answer);
            return Some(Transmit::single(to, answer.len()));
        }
        match &mut self.wire {
            Wire::Plain(m) => m.poll_transmit(now, buf, max_datagrams),
            Wire::Secure(m) => m.poll_transmit(now, buf, max_datagrams),
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        match &self.wire {
            Wire::Plain(m) => m.poll_timeout(),
            Wire::Secure(m) => m.poll_timeout(),
        }
    }

    fn handle_timeout(&mut self, now: Instant) {
        match &mut self.wire {
            Wire::Plain(m) => m.handle_timeout(now),
            Wire::Secure(m) => m.handle_timeout(now),
        }
    }
}

impl ServerMachine {
    /// A secure server whose clients' tokens name `local`, the socket's bound address, with a
    /// slot for each of `config`'s connections.
    pub fn new_secure(
        local: SocketAddr,
        config: Config,
        protocol_id: u64,
        private_key: Key,
    ) -> Result<ServerMachine, Error> {
        if local.ip().is_unspecified() {
            return Err(Error::InvalidConfig(
                "a secure server bound to an unspecified address (0.0.0.0, ::) needs the public \
                 address its clients' tokens name: use bind_secure_with",
            ));
        }
        let max_clients = config.max_connections().min(MAX_CLIENTS);
        let netcode = NetcodeServerConfig::new(protocol_id, private_key, local, max_clients);
        ServerMachine::new_secure_with(config, netcode)
    }

    /// A secure server with every netcode setting given; its Unix time is the system's now.
    pub fn new_secure_with(
        config: Config,
        netcode: NetcodeServerConfig,
    ) -> Result<ServerMachine, Error> {
        let secure = SecureServer::new(config, netcode, Instant::now(), SystemTime::now())?;
        Ok(Mode::secure_from(secure))
    }
}

impl ClientMachine {
    /// A secure client that starts connecting now with `token`.
    pub fn new_secure(config: Config, token: ConnectToken) -> Result<ClientMachine, Error> {
        let secure = SecureClient::new(config, token, Instant::now())?;
        Ok(Mode::secure_from(secure))
    }

    /// The connection's statistics.
    pub fn stats(&self) -> Stats {
        match &self.wire {
            Wire::Plain(m) => m.stats(),
            Wire::Secure(m) => m.stats(),
        }
    }
}
