//! What a driver runs: a plain machine, or its secure form (netcode 1.02 underneath), chosen
//! when the driver is made. The application sees the same [`Server`] or [`Client`] either
//! way; only the wire differs.

use std::net::SocketAddr;
use std::time::{Instant, SystemTime};

use super::Driven;
use crate::machine::Machine;
use crate::secure::{
    ConnectToken, Key, MAX_CLIENTS, NetcodeServerConfig, SecureClient, SecureServer,
};
use crate::stats::Stats;
use crate::transmit::Transmit;
use crate::{Client, Config, Error, Event, Server, ServerEvent};

/// A driver's server machine.
#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "one per driver, made once and never moved on a hot path: boxing would only add an indirection"
)]
pub(crate) enum ServerMachine {
    Plain(Server),
    Secure(SecureServer),
}

/// A driver's client machine.
#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "one per driver, made once and never moved on a hot path: boxing would only add an indirection"
)]
pub(crate) enum ClientMachine {
    Plain(Client),
    Secure(SecureClient),
}

/// `Machine` by dispatch to the variant's own.
macro_rules! dispatch_machine {
    ($ty:ident) => {
        impl Machine for $ty {
            fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
                match self {
                    $ty::Plain(m) => m.handle(now, from, datagram),
                    $ty::Secure(m) => m.handle(now, from, datagram),
                }
            }
            fn poll_transmit(
                &mut self,
                now: Instant,
                buf: &mut Vec<u8>,
                max_datagrams: usize,
            ) -> Option<Transmit> {
                match self {
                    $ty::Plain(m) => m.poll_transmit(now, buf, max_datagrams),
                    $ty::Secure(m) => m.poll_transmit(now, buf, max_datagrams),
                }
            }
            fn poll_timeout(&self) -> Option<Instant> {
                match self {
                    $ty::Plain(m) => m.poll_timeout(),
                    $ty::Secure(m) => m.poll_timeout(),
                }
            }
            fn handle_timeout(&mut self, now: Instant) {
                match self {
                    $ty::Plain(m) => m.handle_timeout(now),
                    $ty::Secure(m) => m.handle_timeout(now),
                }
            }
        }
    };
}

dispatch_machine!(ServerMachine);
dispatch_machine!(ClientMachine);

impl Driven for ServerMachine {
    type Event = ServerEvent;
    fn poll_event(&mut self) -> Option<ServerEvent> {
        match self {
            ServerMachine::Plain(m) => m.poll_event(),
            ServerMachine::Secure(m) => m.poll_event(),
        }
    }
}

impl Driven for ClientMachine {
    type Event = Event;
    fn poll_event(&mut self) -> Option<Event> {
        match self {
            ClientMachine::Plain(m) => m.poll_event(),
            ClientMachine::Secure(m) => m.poll_event(),
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
        let max_clients = config.max_connections.min(MAX_CLIENTS);
        let netcode = NetcodeServerConfig::new(protocol_id, private_key, local, max_clients);
        ServerMachine::new_secure_with(config, netcode)
    }

    /// A secure server with every netcode setting given; its Unix time is the system's now.
    pub fn new_secure_with(
        config: Config,
        netcode: NetcodeServerConfig,
    ) -> Result<ServerMachine, Error> {
        let secure = SecureServer::new(config, netcode, Instant::now(), SystemTime::now())?;
        Ok(ServerMachine::Secure(secure))
    }

    /// The endpoint the application drives (a secure server's own, above netcode).
    pub fn machine(&mut self) -> &mut Server {
        match self {
            ServerMachine::Plain(m) => m,
            ServerMachine::Secure(m) => m.machine(),
        }
    }

    pub fn secure(&mut self) -> Option<&mut SecureServer> {
        match self {
            ServerMachine::Plain(_) => None,
            ServerMachine::Secure(m) => Some(m),
        }
    }
}

impl ClientMachine {
    /// A secure client that starts connecting now with `token`.
    pub fn new_secure(config: Config, token: ConnectToken) -> Result<ClientMachine, Error> {
        let secure = SecureClient::new(config, token, Instant::now())?;
        Ok(ClientMachine::Secure(secure))
    }

    /// The connection the application drives (a secure client's own, above netcode).
    pub fn machine(&mut self) -> &mut Client {
        match self {
            ClientMachine::Plain(m) => m,
            ClientMachine::Secure(m) => m.machine(),
        }
    }

    pub fn secure(&mut self) -> Option<&mut SecureClient> {
        match self {
            ClientMachine::Plain(_) => None,
            ClientMachine::Secure(m) => Some(m),
        }
    }

    pub fn stats(&self) -> Stats {
        match self {
            ClientMachine::Plain(m) => m.stats(),
            ClientMachine::Secure(m) => m.stats(),
        }
    }

    #[cfg(feature = "tokio")]
    pub fn is_closed(&self) -> bool {
        match self {
            ClientMachine::Plain(m) => m.is_closed(),
            ClientMachine::Secure(m) => m.is_closed(),
        }
    }
}
