//! What the socket layer counts, the same for every driver.

/// Counters of the socket layer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SocketStats {
    /// Datagrams handed to the kernel.
    pub sent: u64,
    /// Datagrams read from the kernel.
    pub received: u64,
    /// Datagrams the kernel refused (e.g. an unreachable spoofed address); dropped.
    pub send_errors: u64,
    /// Datagrams dropped by the [`Impairment`](crate::Impairment).
    pub impaired_drops: u64,
    /// Times the blocking driver's busy-poll stood down because its turns got slow (another
    /// thread wanted the core; see [`Server::set_busy_poll`](crate::Server::set_busy_poll)).
    pub busy_poll_calms: u64,
}
