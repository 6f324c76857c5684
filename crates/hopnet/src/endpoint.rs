//! The one driver type: a machine on a UDP socket, generic over what it runs ([`Role`]) and
//! how it waits ([`Wait`]). What every driver has is written here once; how a driver waits
//! (`poll` and `flush`, blocking or async) is in its own module, [`blocking`](super::blocking)
//! or `tokio`, with the constructors.
//!
//! The layers a message crosses between the application and the socket are all here, in the
//! order it crosses them, so that the path reads in one file:
//!
//! - [`Endpoint`]: what every driver has (the machine, `queue`, the counters);
//! - [`Role`]: what a driver runs, and what of it the application drives: hopnet's server,
//!   hopnet's client, or a machine of any protocol. Generic over it, what every driver does is
//!   written once for all three, and what only one role does (a server's `bind`, a client's
//!   `connect`) stands in that role's own `impl`. An application never names a role: it uses
//!   the drivers' names, `Server`, `Client` and `Driver<M>`;
//! - [`Mode`]: hopnet's machine in its plain form or its secure one (netcode 1.02 underneath),
//!   chosen when the driver is made, with, on a server, an optional side channel in front. The
//!   application sees the same [`Server`] or [`Client`] either way; only the wire differs.
//!   Written once for both roles, so that a driver's datagrams pass one dispatcher;
//! - [`Loop`] and [`Port`]: the machine on its socket, what the blocking and the tokio driver
//!   share (everything but how they wait); its outgoing side is [`send`](super::send)'s.

use std::fmt;
use std::io;
use std::marker::PhantomData;
use std::net::SocketAddr;
use std::time::{Instant, SystemTime};

use quinn_udp::UdpSocketState;

use super::record::{Drain, RecordConfig, Recorder, Tap, decrypted};
use super::recv::RecvBuf;
use super::send::{Outbox, Socket};
use super::side_channel::SideChannel;
use super::socket_stats::SocketStats;
use hopnet_proto::Machine;
use hopnet_proto::Transmit;
use hopnet_proto::impairment::Impairment;
use hopnet_proto::secure::{
    ConnectToken, Key, MAX_CLIENTS, NetcodeServerConfig, SecureClient, SecureServer,
};
use hopnet_proto::{
    Client, Config, ConnectionId, Delivery, Error, Event, Server, ServerEvent, Stats,
};

/// How a driver waits: [`Blocking`](super::blocking::Blocking), or tokio's (`Tokio`, feature
/// `tokio`). Sealed.
pub trait Wait: sealed::Sealed {
    /// The socket it waits on.
    type Socket: Socket;
    /// What its waiting keeps beside the socket and the machine.
    type State: fmt::Debug;
    /// The socket's bound address.
    fn local_addr(socket: &Self::Socket) -> io::Result<SocketAddr>;
}

/// A machine on a socket and what waiting on it keeps: a driver's loop, whose rounds (how it
/// waits) are in the driver's own module.
#[derive(Debug)]
pub struct Loop<W: Wait, M> {
    pub(crate) port: Port<W::Socket, M>,
    pub(crate) wait: W::State,
}

/// A machine on a UDP socket: hopnet's server, its client, or a machine of any protocol
/// (`R`), blocking or async (`W`). Its names are the ones to use:
/// [`blocking::Server`](super::blocking::Server), [`blocking::Client`](super::blocking::Client),
/// [`blocking::Driver`](super::blocking::Driver), and the tokio driver's `TokioServer`,
/// `TokioClient` and `Driver`; this page lists what all of them have, then what each adds.
pub struct Endpoint<R: Role, W: Wait> {
    pub(crate) driver: Loop<W, R::Machine>,
}

impl<R: Role, W: Wait> fmt::Debug for Endpoint<R, W>
where
    Loop<W, R::Machine>: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("driver", &self.driver)
            .finish()
    }
}

/// What every driver has.
impl<R: Role, W: Wait> Endpoint<R, W> {
    /// The machine: for a server the [`Server`] machine, for a client the
    /// [`Client`] one (in secure mode, the plain machine above netcode: the
    /// same API whatever the wire), for a `Driver` the machine it was given. Its sends queue:
    /// the next `flush` or round of I/O sends them.
    pub fn machine(&mut self) -> &mut R::App {
        R::app(&mut self.driver.port.machine)
    }

    /// The bound address.
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(W::local_addr(&self.driver.port.socket)?)
    }

    /// Drops and delays outgoing datagrams from now on.
    pub fn set_impairment(&mut self, impairment: Option<Impairment>) {
        self.driver.port.outbox.set_impairment(impairment);
    }

    /// Socket-level counters.
    pub fn socket_stats(&self) -> SocketStats {
        self.driver.port.stats.clone()
    }

    /// Starts recording every datagram between the socket and the machine to a pcapng file
    /// (see [`record`](crate::record)), in place of any recording already running; its
    /// times count from now. Fails if the file cannot be created; once running, a failed
    /// write stops the recording without stopping the driver.
    pub fn record(&mut self, config: RecordConfig) -> Result<(), Error> {
        let local = self.local_addr()?;
        let decrypted = config.is_decrypted();
        let recorder = Recorder::create(config, local, Instant::now())?;
        let port = &mut self.driver.port;
        port.decrypted = R::decrypted(&mut port.machine, decrypted);
        port.recorder = Some(recorder);
        Ok(())
    }

    /// Stops the recording, if one runs, and hands back its recorder (flushed).
    pub fn stop_recording(&mut self) -> Option<Recorder> {
        let port = &mut self.driver.port;
        if port.decrypted.take().is_some() {
            R::decrypted(&mut port.machine, false);
        }
        let mut recorder = port.recorder.take()?;
        recorder.flush();
        Some(recorder)
    }

    /// The recording running, if any: what it has written, whether a write failed.
    pub fn recorder(&self) -> Option<&Recorder> {
        self.driver.port.recorder.as_ref()
    }

    /// What the socket feeds, below what the application drives.
    fn running(&mut self) -> &mut R::Machine {
        &mut self.driver.port.machine
    }
}

/// What every server has, blocking or async.
impl<W: Wait> Endpoint<ServerRole, W> {
    /// The next event, after a round of I/O.
    pub fn poll_event(&mut self) -> Option<ServerEvent> {
        self.machine().poll_event()
    }

    /// Queues a message without sending anything yet: the next `flush`, `send` or round of
    /// I/O sends it, together with whatever else is queued. Messages queued together
    /// leave in fewer system calls (the full chunks of several messages share one GSO
    /// batch), which pays when a tick produces several messages for one peer.
    pub fn queue(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.machine().send(id, bytes, delivery)
    }

    /// Hands back a message's buffer once read, for a later message to be copied into
    /// (see [`Server::recycle`](hopnet_proto::Server::recycle)).
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        self.machine().recycle(bytes)
    }

    /// The secure server (netcode's clients, their client ids and user data, its
    /// counters), if this server is secure.
    pub fn secure(&mut self) -> Option<&mut SecureServer> {
        self.running().secure()
    }
}

/// What every client has, blocking or async.
impl<W: Wait> Endpoint<ClientRole, W> {
    /// The next event, after a round of I/O.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.machine().poll_event()
    }

    /// Queues a message without sending anything yet: the next `flush`, `send` or round of
    /// I/O sends it, together with whatever else is queued. Messages queued together
    /// leave in fewer system calls (the full chunks of several messages share one GSO
    /// batch), which pays when a tick produces several messages.
    pub fn queue(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.machine().send(bytes, delivery)
    }

    /// Hands back a message's buffer once read, for a later message to be copied into
    /// (see [`Client::recycle`](hopnet_proto::Client::recycle)).
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        self.machine().recycle(bytes)
    }

    /// The secure client (netcode's state, its counters), if this client is secure.
    pub fn secure(&mut self) -> Option<&mut SecureClient> {
        self.running().secure()
    }

    /// The connection's statistics.
    pub fn stats(&self) -> Stats {
        self.driver.port.machine.stats()
    }
}

/// What every `Driver` of a machine of any protocol has.
impl<M: Machine, W: Wait> Endpoint<AnyMachine<M>, W> {
    /// The machine, the socket closed.
    pub fn into_machine(self) -> M {
        self.driver.port.machine
    }
}

/// What a driver runs on its socket, and what of it [`machine`](super::Endpoint::machine)
/// gives the application. Sealed: the roles are [`ServerRole`], [`ClientRole`] and
/// [`AnyMachine`].
pub trait Role: sealed_role::Sealed {
    /// What the socket's datagrams are handed to.
    type Machine: Machine;
    /// What the application drives: the machine itself, or, in secure mode, the plain one
    /// above netcode.
    type App;
    /// The application's side of `machine`.
    fn app(machine: &mut Self::Machine) -> &mut Self::App;

    /// Turns secure mode's copy of the decrypted datagrams on or off; the drain a recording
    /// runs after each round, if on (see [`crate::record`]). None for a machine that has no
    /// secure mode.
    #[doc(hidden)]
    fn decrypted(_machine: &mut Self::Machine, _on: bool) -> Option<Drain<Self::Machine>> {
        None
    }
}

/// hopnet's server, plain or secure ([`crate::Server`]): the
/// application drives a [`Server`] either way; a side channel may stand in
/// front of it.
#[derive(Debug)]
pub struct ServerRole;

/// hopnet's client, plain or secure ([`crate::Client`]): the
/// application drives a [`Client`] either way.
#[derive(Debug)]
pub struct ClientRole;

/// A [`Machine`] of any protocol ([`crate::Driver`]), driven as it
/// is.
#[derive(Debug)]
pub struct AnyMachine<M>(PhantomData<fn() -> M>);

impl Role for ServerRole {
    type Machine = ServerMachine;
    type App = hopnet_proto::Server;
    fn app(machine: &mut Self::Machine) -> &mut hopnet_proto::Server {
        machine.machine()
    }
    fn decrypted(machine: &mut ServerMachine, on: bool) -> Option<Drain<ServerMachine>> {
        machine.secure()?.set_plain_capture(on);
        on.then_some(|m, recorder| {
            if let Some(secure) = m.secure() {
                decrypted::from_server(secure, recorder);
            }
        })
    }
}

impl Role for ClientRole {
    type Machine = ClientMachine;
    type App = hopnet_proto::Client;
    fn app(machine: &mut Self::Machine) -> &mut hopnet_proto::Client {
        machine.machine()
    }
    fn decrypted(machine: &mut ClientMachine, on: bool) -> Option<Drain<ClientMachine>> {
        machine.secure()?.set_plain_capture(on);
        on.then_some(|m, recorder| {
            if let Some(secure) = m.secure() {
                decrypted::from_client(secure, recorder);
            }
        })
    }
}

impl<M: Machine> Role for AnyMachine<M> {
    type Machine = M;
    type App = M;
    fn app(machine: &mut M) -> &mut M {
        machine
    }
}

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

/// The socket, quinn-udp's state for it, the machine, the receive and send sides, the
/// counters, and a recording if one runs.
#[derive(Debug)]
pub struct Port<S, M> {
    pub(crate) socket: S,
    pub(crate) state: UdpSocketState,
    pub(crate) machine: M,
    pub(crate) recv: RecvBuf,
    pub(crate) outbox: Outbox,
    pub(crate) stats: SocketStats,
    pub(crate) recorder: Option<Recorder>,
    /// With a recording of secure mode's decrypted datagrams: where they come from.
    pub(crate) decrypted: Option<Drain<M>>,
}

impl<S: Socket, M: Machine> Port<S, M> {
    pub fn new(socket: S, machine: M) -> io::Result<Port<S, M>> {
        Ok(Port {
            state: socket.prepare()?,
            socket,
            machine,
            recv: RecvBuf::new(),
            outbox: Outbox::new(),
            stats: SocketStats::default(),
            recorder: None,
            decrypted: None,
        })
    }

    /// Sends what is due (see [`Outbox::flush`]); `false` if a batch waits for room.
    pub fn flush(&mut self, now: Instant) -> bool {
        let Port {
            socket,
            state,
            machine,
            outbox,
            stats,
            recorder,
            decrypted,
            ..
        } = self;
        match (recorder, decrypted) {
            (None, _) => outbox.flush(socket, state, machine, now, stats),
            (Some(recorder), None) => outbox.flush(
                socket,
                state,
                &mut Tap::borrowed(machine, recorder),
                now,
                stats,
            ),
            (Some(recorder), Some(drain)) => {
                let done = outbox.flush(socket, state, machine, now, stats);
                drain(machine, recorder);
                done
            }
        }
    }

    /// Hands the datagrams of `filled` receive slots to the machine; returns how many.
    pub fn deliver(&mut self, filled: usize, now: Instant) -> usize {
        let machine = &mut self.machine;
        let datagrams = match (&mut self.recorder, self.decrypted) {
            (None, _) => self.recv.deliver(filled, machine, now),
            (Some(recorder), None) => {
                self.recv
                    .deliver(filled, &mut Tap::borrowed(machine, recorder), now)
            }
            (Some(recorder), Some(drain)) => {
                let datagrams = self.recv.deliver(filled, machine, now);
                drain(machine, recorder);
                datagrams
            }
        };
        self.stats.received += datagrams as u64;
        datagrams
    }

    /// Runs the machine's timers if they are due.
    pub fn run_timers(&mut self, now: Instant) {
        if self.machine.poll_timeout().is_some_and(|t| t <= now) {
            self.machine.handle_timeout(now);
        }
    }

    /// The next instant something is due: a timer, or a datagram held by the impairment.
    pub fn next_deadline(&mut self) -> Option<Instant> {
        let timer = self.machine.poll_timeout();
        match (timer, self.outbox.next_due()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

mod sealed {
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

mod sealed_role {
    pub trait Sealed {}
    impl Sealed for super::ServerRole {}
    impl Sealed for super::ClientRole {}
    impl<M> Sealed for super::AnyMachine<M> {}
}
