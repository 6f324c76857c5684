//! [`ServerBuilder`]: how many workers a server runs and how datagrams reach them, then a
//! plain or secure bind. One worker (the default) is the [`Server`](crate::Server) of today.

use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, sync_channel};

use super::id::MAX_WORKERS;
use super::shard::{ReaderCounters, Router, read};
use super::wake;
use super::worker::{Command, Input, Worker};
use super::{Handle, Reader, WorkerServer};
use crate::endpoint::ServerMachine;
use crate::{Driver, Server};
use hopnet_proto::secure::{Key, MAX_CLIENTS, NetcodeServerConfig};
use hopnet_proto::{Config, Error, ServerEvent};

/// Commands queued to one worker before the game waits for it.
const COMMAND_QUEUE: usize = 1 << 16;
/// Events waiting for the game, per worker.
const EVENT_QUEUE: usize = 4096;
/// Datagrams waiting in one worker's inbox ([`Spread::ByAddress`]).
const INBOX: usize = 8192;

/// How datagrams find the worker that owns their connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Spread {
    /// One socket per worker on the same address with `SO_REUSEPORT`; the kernel hashes each
    /// flow (addresses and ports) to one of them. No thread between the socket and a worker.
    /// Linux only. The default.
    #[default]
    ReusePort,
    /// One socket; a reader thread reads it and hands each datagram to the worker its source
    /// address hashes to. Any Unix; a copy and a channel hop per datagram.
    ByAddress,
}

/// Builds a server whose connections spread over worker threads, each a
/// [`Server`](hopnet_proto::Server) machine of its own, behind one [`WorkerServer`].
///
/// ```no_run
/// use hopnet::{Config, ServerBuilder};
///
/// let mut server = ServerBuilder::new(Config::default()).workers(4).bind("0.0.0.0:7777")?;
/// # Ok::<(), hopnet::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ServerBuilder {
    config: Config,
    workers: usize,
    spread: Spread,
}

impl ServerBuilder {
    /// One worker, [`Spread::ReusePort`]; `config` for every worker's machine (its
    /// `max_connections` is per worker).
    pub fn new(config: Config) -> ServerBuilder {
        ServerBuilder {
            config,
            workers: 1,
            spread: Spread::default(),
        }
    }

    /// How many worker threads (1 to 256): one per core the server may use.
    pub fn workers(mut self, n: usize) -> ServerBuilder {
        self.workers = n;
        self
    }

    /// How datagrams reach the workers.
    pub fn spread(mut self, spread: Spread) -> ServerBuilder {
        self.spread = spread;
        self
    }

    /// Binds and starts the workers, on the spec's wire (or hopnet's extended one).
    pub fn bind(self, addr: impl ToSocketAddrs) -> Result<WorkerServer, Error> {
        let config = self.config.clone();
        self.start(addr, move |_| {
            Ok(ServerMachine::plain(hopnet_proto::Server::new(
                config.clone(),
            )))
        })
    }

    /// Binds and starts the workers in secure mode (see
    /// [`Server::bind_secure`](crate::Server::bind_secure)): every worker has a netcode server
    /// of its own, with the same key, protocol and address, and one slot per connection its
    /// machine accepts. `addr` must be the address the tokens name.
    ///
    /// Each worker's netcode server remembers the tokens it has seen on its own: a token
    /// already used from one address is refused by that worker, but a copy presented from
    /// another address that hashes to another worker is not seen as reused. Tokens expire
    /// (keep their lifetime short) and each names one client id.
    ///
    /// ```no_run
    /// use hopnet::secure::Key;
    /// use hopnet::{Config, ServerBuilder};
    ///
    /// let key = Key::read_file("server.key")?;
    /// let server = ServerBuilder::new(Config::default())
    ///     .workers(2)
    ///     .bind_secure("203.0.113.7:40000", 0x1234, key)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bind_secure(
        self,
        addr: impl ToSocketAddrs,
        protocol_id: u64,
        private_key: Key,
    ) -> Result<WorkerServer, Error> {
        let config = self.config.clone();
        self.start(addr, move |local| {
            ServerMachine::new_secure(local, config.clone(), protocol_id, private_key.clone())
        })
    }

    /// [`bind_secure`](Self::bind_secure) with every netcode setting (see
    /// [`Server::bind_secure_with`](crate::Server::bind_secure_with)); `netcode.max_clients`
    /// is per worker.
    pub fn bind_secure_with(
        self,
        addr: impl ToSocketAddrs,
        netcode: NetcodeServerConfig,
    ) -> Result<WorkerServer, Error> {
        if netcode.max_clients > self.config.max_connections().min(MAX_CLIENTS) {
            return Err(Error::InvalidConfig(
                "netcode.max_clients must not exceed config.max_connections",
            ));
        }
        let config = self.config.clone();
        self.start(addr, move |_| {
            ServerMachine::new_secure_with(config.clone(), netcode.clone())
        })
    }

    /// Makes the sockets and the machines, then the threads.
    fn start(
        self,
        addr: impl ToSocketAddrs,
        machine: impl Fn(SocketAddr) -> Result<ServerMachine, Error>,
    ) -> Result<WorkerServer, Error> {
        let n = self.workers;
        if n == 0 || n > MAX_WORKERS {
            return Err(Error::InvalidConfig("workers must be between 1 and 256"));
        }
        let addr = addr
            .to_socket_addrs()?
            .next()
            .ok_or(Error::InvalidConfig("no address to bind"))?;
        let (events_tx, events) = sync_channel::<ServerEvent>(EVENT_QUEUE * n);
        let mut handles = Vec::with_capacity(n);
        let mut workers = Vec::with_capacity(n);
        let mut inboxes = Vec::new();
        let (sockets, shared) = match self.spread {
            Spread::ReusePort => (super::reuse_port::bind_group(addr, n)?, None),
            Spread::ByAddress => {
                let socket = UdpSocket::bind(addr)?;
                let clones = (0..n)
                    .map(|_| socket.try_clone())
                    .collect::<Result<Vec<_>, _>>()?;
                (clones, Some(socket))
            }
        };
        let local = sockets[0].local_addr()?;
        for (index, socket) in sockets.into_iter().enumerate() {
            let server = Server::on(socket, machine(local)?)?;
            let (commands_tx, commands) = sync_channel::<Command>(COMMAND_QUEUE);
            let (wake, alarm) = wake::pair()?;
            let wake = Arc::new(wake);
            let input = match self.spread {
                Spread::ReusePort => Input::Socket,
                Spread::ByAddress => {
                    let (tx, rx): (_, Receiver<_>) = sync_channel(INBOX);
                    inboxes.push(tx);
                    Input::Inbox(rx)
                }
            };
            let worker = Worker::new(
                index,
                server,
                commands,
                events_tx.clone(),
                wake.clone(),
                alarm,
                input,
            );
            handles.push(Handle {
                commands: commands_tx,
                wake,
                dirty: false,
                thread: None,
            });
            workers.push(worker);
        }
        drop(events_tx);
        let reader = match shared {
            None => None,
            Some(socket) => {
                let counters = Arc::new(ReaderCounters::default());
                let wakes = handles.iter().map(|h| h.wake.clone()).collect();
                let mut driver =
                    Driver::new(socket, Router::new(inboxes, wakes, counters.clone()))?;
                // The reader only reads: it sleeps in poll(2) rather than spin for answers.
                driver.set_busy_poll(std::time::Duration::ZERO);
                let thread = std::thread::Builder::new()
                    .name("hopnet-reader".into())
                    .spawn(move || read(driver))?;
                Some(Reader {
                    counters,
                    thread: Some(thread),
                })
            }
        };
        for (handle, worker) in handles.iter_mut().zip(workers) {
            let thread = std::thread::Builder::new()
                .name(format!("hopnet-worker-{}", worker.index))
                .spawn(move || worker.run())?;
            handle.thread = Some(thread);
        }
        Ok(WorkerServer::new(
            handles,
            events,
            reader,
            local,
            self.spread,
        ))
    }
}
