//! What went wrong with a message, reported as a Bevy message and a log line, never a panic.
//!
//! A peer's bad bytes cost it its message and nothing else: the message is dropped,
//! [`NetworkError`] says who sent it and why it did not decode, and the connection goes on
//! (a server that wants to drop such clients reads these and closes their connections). The
//! log repeats what the messages say, a few lines per peer and then ever fewer, so that a
//! flood of bad messages cannot flood the log.

use std::collections::HashMap;
use std::fmt;

use bevy_ecs::message::{Message, MessageReader};
use bevy_ecs::system::Local;
use hopnet::ConnectionId;
use tracing::warn;

/// The other end of a connection, as an error names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Peer {
    /// The server (on a client).
    Server,
    /// A client (on the server).
    Client(ConnectionId),
}

impl fmt::Display for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Peer::Server => f.write_str("the server"),
            Peer::Client(id) => write!(f, "client {}", id.0),
        }
    }
}

/// Something that went wrong with a message or the transport. The message concerned, if any,
/// was dropped; nothing else was.
#[derive(Message, Debug)]
pub enum NetworkError {
    /// A message from `peer` did not decode as the type its tag names.
    Undecodable {
        /// Who sent it.
        peer: Peer,
        /// The type it was to be.
        message: &'static str,
        /// Why it did not decode.
        reason: hopnet_codec::Error,
    },
    /// A payload from `peer` names no type registered for its direction, or has no tag at all.
    UnknownTag {
        /// Who sent it.
        peer: Peer,
        /// The tag, if one could be read.
        tag: Option<u32>,
    },
    /// A message for `peer` was not queued: the connection's send queue was full
    /// (back-pressure: too much reliable data awaits acknowledgement), or it had closed.
    NotSent {
        /// For whom.
        peer: Peer,
        /// Its type.
        message: &'static str,
        /// Why.
        error: hopnet::Error,
    },
    /// A message could not be encoded: a value its type's encoding does not allow (a number
    /// outside its range, a list longer than its bound).
    Unencodable {
        /// Its type.
        message: &'static str,
        /// Why.
        reason: hopnet_codec::Error,
    },
    /// A replication update from the server was refused whole (hopnet-sync's
    /// [`Replica::apply`](hopnet_sync::replicate::Replica::apply)): nothing of it was applied.
    Refused {
        /// Who sent it.
        peer: Peer,
        /// The replicated component type.
        message: &'static str,
        /// Why.
        reason: hopnet_sync::replicate::ReplicaError,
    },
    /// The transport failed (a socket error); it is tried again the next frame.
    Transport {
        /// The error.
        error: hopnet::Error,
    },
}

impl NetworkError {
    /// A message of type `T` for `peer` that was not queued.
    pub(crate) fn not_sent<T>(peer: Peer, error: hopnet::Error) -> NetworkError {
        NetworkError::NotSent {
            peer,
            message: std::any::type_name::<T>(),
            error,
        }
    }

    /// A message of type `T` from `peer` that did not decode.
    pub(crate) fn undecodable<T>(peer: Peer, reason: hopnet_codec::Error) -> NetworkError {
        NetworkError::Undecodable {
            peer,
            message: std::any::type_name::<T>(),
            reason,
        }
    }

    /// The peer concerned, if one is.
    pub fn peer(&self) -> Option<Peer> {
        match self {
            NetworkError::Undecodable { peer, .. }
            | NetworkError::UnknownTag { peer, .. }
            | NetworkError::NotSent { peer, .. }
            | NetworkError::Refused { peer, .. } => Some(*peer),
            NetworkError::Unencodable { .. } | NetworkError::Transport { .. } => None,
        }
    }
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetworkError::Undecodable {
                peer,
                message,
                reason,
            } => write!(f, "a {message} from {peer} did not decode: {reason}"),
            NetworkError::UnknownTag {
                peer,
                tag: Some(tag),
            } => write!(f, "{peer} sent a message of unknown tag {tag}"),
            NetworkError::UnknownTag { peer, tag: None } => {
                write!(f, "{peer} sent a message without a tag")
            }
            NetworkError::NotSent {
                peer,
                message,
                error,
            } => write!(f, "a {message} for {peer} was not sent: {error}"),
            NetworkError::Unencodable { message, reason } => {
                write!(f, "a {message} could not be encoded: {reason}")
            }
            NetworkError::Refused {
                peer,
                message,
                reason,
            } => write!(f, "a {message} update from {peer} was refused: {reason}"),
            NetworkError::Transport { error } => write!(f, "transport: {error}"),
        }
    }
}

/// Log lines per peer before they thin out: after these, only the 2^k-th error is logged.
const LOGGED_IN_FULL: u64 = 8;
/// Peers whose errors are counted at most; the counts start over beyond it.
const MAX_COUNTED_PEERS: usize = 4096;

/// Logs the frame's errors (a system in `Last`).
pub(crate) fn log_errors(
    mut errors: MessageReader<NetworkError>,
    mut counts: Local<HashMap<Option<Peer>, u64>>,
) {
    for error in errors.read() {
        if counts.len() >= MAX_COUNTED_PEERS {
            counts.clear();
        }
        let count = counts.entry(error.peer()).or_default();
        *count += 1;
        if *count <= LOGGED_IN_FULL || count.is_power_of_two() {
            warn!(count = *count, "hopnet-bevy: {error}");
        }
    }
}
