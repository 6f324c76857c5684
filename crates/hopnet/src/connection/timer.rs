//! The connection's timers, by name. Each deadline is computed from the state it belongs to
//! when asked (nothing is stored, so nothing can go stale), and
//! [`Connection::poll_timeout`](super::Connection::poll_timeout) is a pure query: the earliest
//! of them. [`Connection::handle_timeout`](super::Connection::handle_timeout) runs the expired
//! ones in the order of [`Timer`]'s variants, each at its turn, since an earlier timer's work can move
//! a later one's (a retransmission timeout that declares every chunk lost leaves nothing to
//! probe for). A handler that can tell cheaply that nothing is due (the send half's, the
//! negotiator's) is called without its deadline being asked first: computing the send half's
//! deadline, the earliest of three, costs more than its handler's early return
//! (BENCHMARKS.md, "The connection's wire and timers").

/// One of a connection's timers, in the order an expired one is handled.
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
