//! The connection's timers, by name. Each deadline is computed from the state it belongs to
//! when asked (nothing is stored, so nothing can go stale), and
//! [`Connection::poll_timeout`](super::Connection::poll_timeout) is a pure query: the earliest
//! of them. [`Connection::handle_timeout`](super::Connection::handle_timeout) runs the expired
//! ones in the order of [`Timer::ALL`], asking each one's deadline again at its turn, since an
//! earlier timer's work can move a later one's (a retransmission timeout that declares every
//! chunk lost leaves nothing to probe for).

/// One of a connection's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Timer {
    /// The peer has been silent for the idle timeout: the connection closes.
    Idle,
    /// The send half's: a chunk's retransmission timeout, a tracked message's, or the pacer
    /// letting the next chunk go (one deadline, [`Outbound::deadline`](crate::send::Outbound::deadline)).
    Send,
    /// The client's next offer, or its next ping until it hears the extended wire.
    Negotiation,
    /// On the extended wire, a probe for an acknowledgement (`ACK_NOW`).
    Probe,
    /// This end has been silent for the keepalive interval.
    Keepalive,
    /// On the extended wire, the ACK frames owed are due (the next transmit writes them).
    AckDelay,
    /// A partial message's or a held-back message's time is up.
    Expiry,
}

impl Timer {
    /// Every timer, in the order an expired one is handled.
    pub const ALL: [Timer; 7] = [
        Timer::Idle,
        Timer::Send,
        Timer::Negotiation,
        Timer::Probe,
        Timer::Keepalive,
        Timer::AckDelay,
        Timer::Expiry,
    ];

    /// Whether the timer runs only in the data phase (a client's handshake has its own).
    #[inline(always)]
    pub fn needs_data_phase(self) -> bool {
        !matches!(self, Timer::Idle | Timer::Expiry)
    }
}
