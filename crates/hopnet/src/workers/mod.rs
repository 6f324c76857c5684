//! A server on several cores: connections spread over worker threads, each a
//! [`Server`](hopnet_proto::Server) machine on a socket of its own, behind one handle for the
//! game ([`WorkerServer`]): events from every client, sends to every client.
//!
//! A connection lives on one worker from its first datagram to its last. Its
//! [`ConnectionId`] names the worker in its top byte (`id.rs`), so a send goes straight to that
//! worker's command queue: no map, no lock. The game's sends and closes are commands on a
//! bounded channel per worker; a worker asleep in poll(2) is woken by [`flush`] (a datagram on
//! a Unix socket pair, written only when the worker said it sleeps). Events come back through
//! one bounded channel; a worker whose event does not fit keeps it and its machine keeps the
//! rest, bounded by the machine's own limits.
//!
//! [`flush`]: WorkerServer::flush
//!
//! | File | Rule |
//! |---|---|
//! | `builder.rs` | `ServerBuilder`, `Spread`: how many workers, how datagrams reach them, the binds |
//! | `id.rs` | the worker named in a connection's id |
//! | `reuse_port.rs` | the `SO_REUSEPORT` group: one socket per worker, the kernel hashing flows |
//! | `shard.rs` | one socket, a reader thread handing each datagram to its address's worker |
//! | `wake.rs` | waking a sleeping worker |
//! | `worker.rs` | a worker's thread: commands, a round of I/O, events, sleep |
//! | `stats.rs` | a worker's and the reader's counters |

mod builder;
mod id;
mod reuse_port;
mod shard;
mod stats;
mod wake;
mod worker;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::thread::JoinHandle;
use std::time::Duration;

pub use builder::{ServerBuilder, Spread};
pub use id::MAX_WORKERS;
pub use stats::{ReaderStats, WorkerStats};

use hopnet_proto::{ConnectionId, Delivery, Error, Payload, ServerEvent};
use shard::ReaderCounters;
use wake::Wake;
use worker::{Command, Data};

/// How long [`WorkerServer::worker_stats`] waits for a worker's answer.
const STATS_WAIT: Duration = Duration::from_secs(1);

/// The game's side of one worker.
#[derive(Debug)]
struct Handle {
    commands: SyncSender<Command>,
    wake: Arc<Wake>,
    /// Commands queued since the last wake-up.
    dirty: bool,
    thread: Option<JoinHandle<()>>,
}

/// The reader thread of [`Spread::ByAddress`].
#[derive(Debug)]
struct Reader {
    counters: Arc<ReaderCounters>,
    thread: Option<JoinHandle<()>>,
}

/// A server whose connections spread over worker threads, made by [`ServerBuilder`]: the
/// game reads every client's events and sends to every client here, as on a
/// [`Server`](crate::Server), while the workers run the protocol on their own cores.
///
/// Sends are queued to the connection's worker; [`flush`](Self::flush) (or
/// [`send`](Self::send)) wakes the workers so that they leave now. A send's error (an unknown
/// connection, a full reliable queue) happens on the worker and is counted in its
/// [`WorkerStats::send_failures`]. Dropping the server stops the workers and closes the
/// sockets (connections are not ended: call [`close`](Self::close) first for an `END`).
///
/// ```no_run
/// use std::time::Duration;
/// use hopnet::{Config, Delivery, Event, ServerBuilder};
///
/// let mut server = ServerBuilder::new(Config::default()).workers(4).bind("0.0.0.0:7777")?;
/// let mut players = Vec::new();
/// loop {
///     // One game tick: read what every worker has, then answer.
///     server.poll(Duration::from_millis(16))?;
///     while let Some(ev) = server.poll_event() {
///         match ev.event {
///             Event::Connected => players.push(ev.connection),
///             Event::Message { bytes, .. } => server.queue(ev.connection, &bytes, Delivery::Reliable)?,
///             _ => {}
///         }
///     }
///     server.flush()?;
/// }
/// # Ok::<(), hopnet::Error>(())
/// ```
#[derive(Debug)]
pub struct WorkerServer {
    workers: Vec<Handle>,
    events: Receiver<ServerEvent>,
    /// An event [`poll`](Self::poll) waited for, given first by `poll_event`.
    next: Option<ServerEvent>,
    reader: Option<Reader>,
    local: SocketAddr,
    spread: Spread,
}

impl WorkerServer {
    fn new(
        workers: Vec<Handle>,
        events: Receiver<ServerEvent>,
        reader: Option<Reader>,
        local: SocketAddr,
        spread: Spread,
    ) -> WorkerServer {
        WorkerServer {
            workers,
            events,
            next: None,
            reader,
            local,
            spread,
        }
    }

    /// The bound address (every worker's).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// How many workers run.
    pub fn workers(&self) -> usize {
        self.workers.len()
    }

    /// How datagrams reach the workers.
    pub fn spread(&self) -> Spread {
        self.spread
    }

    /// The worker that owns a connection.
    pub fn worker_of(&self, id: ConnectionId) -> usize {
        id::split(id).0
    }

    /// Wakes the workers with queued sends, then waits up to `max_wait` (zero: not at all)
    /// for an event from any worker. The workers do the I/O on their own threads; this is
    /// only the game's side of a tick.
    pub fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        self.flush()?;
        if self.next.is_some() || max_wait.is_zero() {
            return Ok(());
        }
        match self.events.recv_timeout(max_wait) {
            Ok(ev) => self.next = Some(ev),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Err(stopped()),
        }
        Ok(())
    }

    /// The next event from any worker, if one has come. Events of one connection come in
    /// their order; events of connections on different workers interleave as they happen.
    pub fn poll_event(&mut self) -> Option<ServerEvent> {
        if let Some(ev) = self.next.take() {
            return Some(ev);
        }
        self.events.try_recv().ok()
    }

    /// Queues a message (copied) for a connection's worker; [`flush`](Self::flush) sends it.
    pub fn queue(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.command(id, |local| Command::Send {
            id: local,
            data: Data::Copied(bytes.to_vec()),
            delivery,
        })
    }

    /// Queues a shared message for a connection's worker, without copying it: one snapshot
    /// [`Payload`] to every client costs a reference count each.
    pub fn queue_payload(
        &mut self,
        id: ConnectionId,
        payload: &Payload,
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.command(id, |local| Command::Send {
            id: local,
            data: Data::Shared(payload.clone()),
            delivery,
        })
    }

    /// Queues a message and wakes its worker: it leaves now.
    pub fn send(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.queue(id, bytes, delivery)?;
        self.flush()
    }

    /// Queues a shared message and wakes its worker: it leaves now.
    pub fn send_payload(
        &mut self,
        id: ConnectionId,
        payload: &Payload,
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.queue_payload(id, payload, delivery)?;
        self.flush()
    }

    /// Closes a connection (its `END` leaves now); its `Disconnected` event follows.
    pub fn close(&mut self, id: ConnectionId) -> Result<(), Error> {
        self.command(id, Command::Close)?;
        self.flush()
    }

    /// Wakes every worker that has sends queued since the last flush, so they leave now.
    pub fn flush(&mut self) -> Result<(), Error> {
        for handle in &mut self.workers {
            if std::mem::take(&mut handle.dirty) {
                handle.wake.wake();
            }
        }
        Ok(())
    }

    /// Every worker's counters, asked of each worker (it answers between two rounds, after
    /// the commands queued before): waits up to a second for the answers.
    pub fn worker_stats(&mut self) -> Result<Vec<WorkerStats>, Error> {
        self.worker_stats_within(STATS_WAIT)
    }

    /// [`worker_stats`](Self::worker_stats), waiting up to `max_wait` for every answer. A
    /// worker answers once it has applied every command queued before, so this also waits
    /// until the workers have caught up with the game's sends.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use hopnet::{Config, ServerBuilder};
    ///
    /// let mut server = ServerBuilder::new(Config::default()).workers(2).bind("0.0.0.0:7777")?;
    /// for s in server.worker_stats_within(Duration::from_secs(5))? {
    ///     println!("worker {}: {} connections", s.worker, s.server.connections);
    /// }
    /// # Ok::<(), hopnet::Error>(())
    /// ```
    pub fn worker_stats_within(&mut self, max_wait: Duration) -> Result<Vec<WorkerStats>, Error> {
        let mut answers = Vec::with_capacity(self.workers.len());
        for handle in &self.workers {
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            push(handle, Command::Stats(tx))?;
            handle.wake.force();
            answers.push(rx);
        }
        answers
            .into_iter()
            .map(|rx| match rx.recv_timeout(max_wait) {
                Ok(stats) => Ok(stats),
                Err(RecvTimeoutError::Timeout) => Err(Error::Io(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "a worker did not answer in time (it is behind)",
                ))),
                Err(RecvTimeoutError::Disconnected) => Err(stopped()),
            })
            .collect()
    }

    /// The reader thread's counters, with [`Spread::ByAddress`].
    pub fn reader_stats(&self) -> Option<ReaderStats> {
        let c = &self.reader.as_ref()?.counters;
        Some(ReaderStats {
            received: c.received.load(Ordering::Relaxed),
            inbox_full: c.inbox_full.load(Ordering::Relaxed),
            cpu_time: Duration::from_nanos(c.cpu_nanos.load(Ordering::Relaxed)),
        })
    }

    /// Queues a command for `id`'s worker.
    fn command(
        &mut self,
        id: ConnectionId,
        cmd: impl FnOnce(ConnectionId) -> Command,
    ) -> Result<(), Error> {
        let (worker, local) = id::split(id);
        let handle = self
            .workers
            .get_mut(worker)
            .ok_or(Error::UnknownConnection(id))?;
        push(handle, cmd(local))?;
        handle.dirty = true;
        Ok(())
    }
}

/// Puts a command on a worker's queue; a full queue wakes the worker and waits for room.
fn push(handle: &Handle, cmd: Command) -> Result<(), Error> {
    match handle.commands.try_send(cmd) {
        Ok(()) => Ok(()),
        Err(TrySendError::Full(cmd)) => {
            handle.wake.force();
            handle.commands.send(cmd).map_err(|_| stopped())
        }
        Err(TrySendError::Disconnected(_)) => Err(stopped()),
    }
}

/// A worker thread has ended (it panicked): its connections are gone.
fn stopped() -> Error {
    Error::Io(std::io::Error::other("a worker thread has stopped"))
}

impl Drop for WorkerServer {
    fn drop(&mut self) {
        let mut threads = Vec::with_capacity(self.workers.len());
        for handle in self.workers.drain(..) {
            let Handle {
                commands,
                wake,
                thread,
                ..
            } = handle;
            // A full queue cannot take the command; the closed channel stops the worker then.
            let _ = commands.try_send(Command::Shutdown);
            drop(commands);
            wake.force();
            threads.extend(thread);
        }
        if let Some(reader) = &mut self.reader {
            reader.counters.stop.store(true, Ordering::Relaxed);
            if let Some(t) = reader.thread.take() {
                let _ = t.join();
            }
        }
        for t in threads {
            let _ = t.join();
        }
    }
}
