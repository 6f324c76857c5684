//! Where a game server's messages go. Usually straight into the transport's machine; a match
//! of a server that hosts several ([`mod@crate::host::matches`]) runs on a thread of its own and
//! hands its messages to the socket's thread instead, so the game is written against this
//! trait rather than against [`Server`].

use hopnet::{
    ConnectionId, Delivery, Payload,
    proto::{Server, Stats},
};
use tracing::debug;

/// The transport as a [`GameServer`](super::GameServer) sends through it.
///
/// ```
/// use hopnet::{ConnectionId, Delivery, Payload};
/// use snow_fight::session::Outgoing;
///
/// /// Keeps what the game sends, as a test would.
/// #[derive(Default)]
/// struct Kept(Vec<(ConnectionId, Vec<u8>)>);
///
/// impl Outgoing for Kept {
///     fn send_message(&mut self, c: ConnectionId, bytes: &[u8], _: Delivery) -> bool {
///         self.0.push((c, bytes.to_vec()));
///         true
///     }
///     fn send(&mut self, c: ConnectionId, payload: &Payload) -> bool {
///         self.send_message(c, payload, Delivery::Unreliable)
///     }
///     fn send_tracked(&mut self, c: ConnectionId, payload: &Payload) -> Option<u64> {
///         self.send(c, payload);
///         None
///     }
/// }
/// let mut kept = Kept::default();
/// assert!(kept.send_message(ConnectionId(1), b"hi", Delivery::Reliable));
/// assert_eq!(kept.0.len(), 1);
/// ```
pub trait Outgoing {
    /// Sends a message (a response, `GameOver`) with `delivery`. Returns whether it was
    /// queued.
    fn send_message(&mut self, connection: ConnectionId, bytes: &[u8], delivery: Delivery) -> bool;

    /// Sends a full snapshot event to a client that keeps none as a baseline, unreliably.
    /// Returns whether it was queued.
    fn send(&mut self, connection: ConnectionId, payload: &Payload) -> bool;

    /// Sends a snapshot event a delta client may keep as a baseline, tracked, and returns the
    /// id its acknowledgement will name; `None` when it was not sent, or when the transport
    /// cannot track it (then the client never has an acknowledged baseline, and gets full
    /// snapshots).
    fn send_tracked(&mut self, connection: ConnectionId, payload: &Payload) -> Option<u64>;

    /// What the transport measures of a connection (its round trip, the rate its congestion
    /// controller allows): a scoped client's byte budget follows it. `None` (the default)
    /// when this carrier does not say; the budget is then the server's cap alone.
    fn stats(&self, connection: ConnectionId) -> Option<Stats> {
        let _ = connection;
        None
    }
}

impl Outgoing for Server {
    fn send_message(&mut self, connection: ConnectionId, bytes: &[u8], delivery: Delivery) -> bool {
        match Server::send(self, connection, bytes, delivery) {
            Ok(()) => true,
            Err(e) => {
                debug!(?connection, error = %e, "send failed");
                false
            }
        }
    }

    fn send(&mut self, connection: ConnectionId, payload: &Payload) -> bool {
        match self.send_payload(connection, payload, Delivery::Unreliable) {
            Ok(()) => true,
            Err(e) => {
                debug!(?connection, error = %e, "send failed");
                false
            }
        }
    }

    fn send_tracked(&mut self, connection: ConnectionId, payload: &Payload) -> Option<u64> {
        match self.send_payload_tracked(connection, payload) {
            Ok(id) => Some(id.0),
            Err(e) => {
                debug!(?connection, error = %e, "send failed");
                None
            }
        }
    }

    fn stats(&self, connection: ConnectionId) -> Option<Stats> {
        Server::stats(self, connection)
    }
}
