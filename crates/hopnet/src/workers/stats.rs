//! One worker's counters, as [`WorkerServer::worker_stats`](super::WorkerServer::worker_stats)
//! reads them: the machine's, the socket's, the netcode layer's in secure mode, and the
//! worker thread's own CPU time, so an operator sees whether the load is spread.

use std::time::Duration;

use crate::SocketStats;
use hopnet_proto::ServerStats;
use hopnet_proto::secure::NetcodeStats;

/// One worker's counters.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct WorkerStats {
    /// The worker's index (the top byte of its connections' ids).
    pub worker: usize,
    /// Its machine's counters (`malformed` counts the bad datagrams that reached it).
    pub server: ServerStats,
    /// Its socket's counters (with [`Spread::ByAddress`](super::Spread::ByAddress): what it
    /// sent on the shared socket, and the datagrams the reader handed it).
    pub socket: SocketStats,
    /// In secure mode, its netcode server's counters (every datagram it dropped, by reason).
    pub netcode: Option<NetcodeStats>,
    /// The worker thread's CPU time since it started.
    pub cpu_time: Duration,
    /// Messages the worker's machine refused (unknown or closed connection, a full reliable
    /// queue): sends are queued to the worker, so their errors land here.
    pub send_failures: u64,
    /// Socket errors the worker met (it keeps running).
    pub io_errors: u64,
    /// The last of them.
    pub last_error: Option<String>,
}

/// What the reader thread of [`Spread::ByAddress`](super::Spread::ByAddress) counts.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ReaderStats {
    /// Datagrams read from the socket.
    pub received: u64,
    /// Datagrams dropped because their worker's inbox was full (as a full socket buffer
    /// would).
    pub inbox_full: u64,
    /// The reader thread's CPU time since it started.
    pub cpu_time: Duration,
}
