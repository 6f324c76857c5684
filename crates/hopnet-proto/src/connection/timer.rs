//! The connection's timers, as a table: one enum names every timer, [`Timer::VALUES`] lists
//! them in the order an expired one is handled, and both
//! [`Connection::poll_timeout`](super::Connection::poll_timeout) and
//! [`Connection::handle_timeout`](super::Connection::handle_timeout) are one loop over that
//! list, so a new timer is a variant, its place in the list, its deadline and its handler.
//!
//! Each deadline is computed from the state it belongs to when asked (nothing is stored, so
//! nothing can go stale), and `poll_timeout` is a pure query: the earliest of them.
//! `handle_timeout` runs the expired ones in the list's order, each at its turn, since an earlier
//! timer's work can move a later one's (a retransmission timeout that declares every chunk lost
//! leaves nothing to probe for). A handler that can tell cheaply that nothing is due (the send
//! half's, the negotiator's) is called without its deadline being asked first
//! ([`Timer::checks_itself`]): computing the send half's deadline, the earliest of three, costs
//! more than its handler's early return (BENCHMARKS.md, "The connection's wire and timers").

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
    /// A partial message's or a held-back message's time is up. Declared last: the table's
    /// test checks the table against the declaration up to this variant.
    Expiry,
}

impl Timer {
    /// Every timer, in the order an expired one is handled.
    pub(crate) const VALUES: [Timer; 7] = [
        Timer::Idle,
        Timer::Send,
        Timer::Negotiation,
        Timer::Probe,
        Timer::Keepalive,
        Timer::AckDelay,
        Timer::Expiry,
    ];

    /// Whether the timer runs only in the data phase (after the handshake).
    pub(crate) const fn data_phase_only(self) -> bool {
        !matches!(self, Timer::Idle | Timer::Expiry)
    }

    /// Whether the timer's handler finds out for itself, cheaply, that nothing is due: it is
    /// then called without its deadline being asked first.
    pub(crate) const fn checks_itself(self) -> bool {
        matches!(
            self,
            Timer::Send | Timer::Negotiation | Timer::Probe | Timer::AckDelay
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Timer;

    /// `VALUES` lists the variants in declaration order, each once, and ends with `Expiry`: a
    /// variant declared anywhere before `Expiry` but left out of the table shifts the
    /// discriminants and fails here. (One declared after `Expiry` would not; `Expiry` is
    /// declared last for that reason.)
    #[test]
    fn values_list_every_timer_in_declaration_order() {
        for (i, timer) in Timer::VALUES.iter().enumerate() {
            assert_eq!(*timer as usize, i, "{timer:?}");
        }
        assert_eq!(Timer::VALUES.last(), Some(&Timer::Expiry));
    }
}
