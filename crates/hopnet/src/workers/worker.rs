//! One worker thread: a [`Server`] machine on its own socket (or, with
//! [`Spread::ByAddress`](super::Spread::ByAddress), fed by the reader thread), the commands the
//! game queued for its connections, and its events handed on through the shared bounded
//! channel. The machine and everything it owns stay on this thread: nothing of it is locked.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError};
use std::time::{Duration, Instant};

use super::id;
use super::stats::WorkerStats;
use super::wake::{Alarm, Wake};
use crate::Server;
use hopnet_proto::{ConnectionId, Delivery, Machine, Payload, ServerEvent};

/// Datagrams taken from the reader's inbox per round, so commands and timers are not starved.
const INBOX_PER_ROUND: usize = 4096;
/// How soon a worker whose event could not be handed on (the game is behind) tries again.
const EVENT_RETRY: Duration = Duration::from_millis(1);
/// The longest a worker sleeps with nothing due: a bound, not a timer anything relies on.
const MAX_SLEEP: Duration = Duration::from_millis(100);

/// What the game asks of a worker.
#[derive(Debug)]
pub(crate) enum Command {
    /// A message for one of its connections (the worker machine's own id).
    Send {
        id: ConnectionId,
        data: Data,
        delivery: Delivery,
    },
    /// Closes a connection.
    Close(ConnectionId),
    /// Its counters, answered on the channel given.
    Stats(SyncSender<WorkerStats>),
    /// Stops the thread.
    Shutdown,
}

/// A message's bytes on their way to a worker.
#[derive(Debug)]
pub(crate) enum Data {
    /// Copied from the game's slice (the worker's machine takes the buffer back).
    Copied(Vec<u8>),
    /// Shared, not copied (one snapshot to many connections).
    Shared(Payload),
}

/// Where a worker's datagrams come from.
#[derive(Debug)]
pub(crate) enum Input {
    /// Its own socket of a `SO_REUSEPORT` group.
    Socket,
    /// The reader thread, which owns the one socket's receive side.
    Inbox(Receiver<(SocketAddr, Vec<u8>)>),
}

/// One worker's state, moved onto its thread.
pub(crate) struct Worker {
    pub(crate) index: usize,
    pub(crate) server: Server,
    pub(crate) commands: Receiver<Command>,
    pub(crate) events: SyncSender<ServerEvent>,
    pub(crate) wake: Arc<Wake>,
    pub(crate) alarm: Alarm,
    pub(crate) input: Input,
    /// An event the shared channel had no room for, handed on first next time.
    pending: Option<ServerEvent>,
    send_failures: u64,
    io_errors: u64,
    last_error: Option<String>,
}

impl Worker {
    pub(crate) fn new(
        index: usize,
        server: Server,
        commands: Receiver<Command>,
        events: SyncSender<ServerEvent>,
        wake: Arc<Wake>,
        alarm: Alarm,
        input: Input,
    ) -> Worker {
        Worker {
            index,
            server,
            commands,
            events,
            wake,
            alarm,
            input,
            pending: None,
            send_failures: 0,
            io_errors: 0,
            last_error: None,
        }
    }

    /// The thread's loop: commands, a round of I/O, events, then sleep until a datagram, a
    /// wake-up or the machine's next deadline. Returns on `Shutdown` or when the game's handle
    /// is gone.
    pub(crate) fn run(mut self) {
        loop {
            loop {
                match self.commands.try_recv() {
                    Ok(cmd) => {
                        if !self.apply(cmd) {
                            return;
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return,
                }
            }
            self.round();
            self.hand_on_events();
            self.alarm.may_sleep(&self.wake);
            // What was queued between the round and the flag: handled now, not after a sleep.
            match self.commands.try_recv() {
                Ok(cmd) => {
                    self.alarm.awake(&self.wake);
                    if !self.apply(cmd) {
                        return;
                    }
                    continue;
                }
                Err(TryRecvError::Disconnected) => return,
                Err(TryRecvError::Empty) => {}
            }
            if let Input::Inbox(rx) = &self.input
                && let Ok((from, datagram)) = rx.try_recv()
            {
                self.alarm.awake(&self.wake);
                let port = &mut self.server.driver.port;
                port.machine.handle(Instant::now(), from, &datagram);
                port.stats.received += 1;
                continue;
            }
            self.sleep();
            self.alarm.awake(&self.wake);
        }
    }

    /// Applies one command; `false` to stop.
    fn apply(&mut self, cmd: Command) -> bool {
        let machine = self.server.machine();
        match cmd {
            Command::Send { id, data, delivery } => {
                let sent = match data {
                    Data::Copied(bytes) => {
                        let sent = machine.send(id, &bytes, delivery);
                        machine.recycle(bytes);
                        sent
                    }
                    Data::Shared(payload) => machine.send_payload(id, &payload, delivery),
                };
                self.send_failures += u64::from(sent.is_err());
            }
            Command::Close(id) => {
                let _ = machine.close(id);
            }
            Command::Stats(reply) => {
                let _ = reply.try_send(self.stats());
            }
            Command::Shutdown => return false,
        }
        true
    }

    /// Timers, what is queued sent, datagrams read and handed to the machine, answers sent.
    fn round(&mut self) {
        let result = match &self.input {
            Input::Socket => self.server.poll(Duration::ZERO),
            Input::Inbox(rx) => {
                let port = &mut self.server.driver.port;
                let now = Instant::now();
                port.run_timers(now);
                for _ in 0..INBOX_PER_ROUND {
                    let Ok((from, datagram)) = rx.try_recv() else {
                        break;
                    };
                    port.machine.handle(now, from, &datagram);
                    port.stats.received += 1;
                }
                port.run_timers(now);
                self.server.flush()
            }
        };
        if let Err(e) = result {
            self.io_errors += 1;
            self.last_error = Some(e.to_string());
        }
    }

    /// Hands the machine's events to the game, each id made the game's; stops at the first the
    /// channel has no room for and keeps it.
    fn hand_on_events(&mut self) {
        loop {
            let event = match self.pending.take() {
                Some(e) => e,
                None => match self.server.poll_event() {
                    Some(mut e) => {
                        e.connection = id::global(self.index, e.connection);
                        e
                    }
                    None => return,
                },
            };
            match self.events.try_send(event) {
                Ok(()) => {}
                Err(TrySendError::Full(e)) => {
                    self.pending = Some(e);
                    return;
                }
                // The game's handle is gone; the next command read ends the thread.
                Err(TrySendError::Disconnected(_)) => return,
            }
        }
    }

    /// Sleeps in poll(2) on the socket (if the worker reads one) and the alarm, until the
    /// machine's next deadline.
    fn sleep(&mut self) {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let now = Instant::now();
        let port = &mut self.server.driver.port;
        let mut wait = port
            .next_deadline()
            .map_or(MAX_SLEEP, |t| t.saturating_duration_since(now))
            .min(MAX_SLEEP);
        if self.pending.is_some() || port.outbox.is_stalled() {
            wait = wait.min(EVENT_RETRY);
        }
        if wait.is_zero() {
            return;
        }
        let timeout = Timespec {
            tv_sec: wait.as_secs().try_into().unwrap_or(i64::MAX),
            tv_nsec: wait.subsec_nanos().into(),
        };
        let alarm = PollFd::new(self.alarm.socket(), PollFlags::IN);
        let result = match self.input {
            Input::Socket => {
                let socket = PollFd::new(&port.socket, PollFlags::IN);
                poll(&mut [socket, alarm], Some(&timeout))
            }
            Input::Inbox(_) => poll(&mut [alarm], Some(&timeout)),
        };
        match result {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => {
                self.io_errors += 1;
                self.last_error = Some(e.to_string());
            }
        }
    }

    /// Its counters now.
    fn stats(&mut self) -> WorkerStats {
        let cpu = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        let cpu_time = Duration::new(
            u64::try_from(cpu.tv_sec).unwrap_or(0),
            u32::try_from(cpu.tv_nsec).unwrap_or(0),
        );
        WorkerStats {
            worker: self.index,
            server: self.server.machine().server_stats(),
            socket: self.server.socket_stats(),
            netcode: self.server.secure().map(|s| s.netcode_stats().clone()),
            cpu_time,
            send_failures: self.send_failures,
            io_errors: self.io_errors,
            last_error: self.last_error.clone(),
        }
    }
}
