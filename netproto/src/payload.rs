//! A message's bytes, encoded once and shared between the connections it goes to.
//!
//! [`send`](crate::Endpoint::send) takes a slice and copies it (into a recycled buffer for a
//! reliable message, into a fresh one for an unreliable message, which waits in a queue);
//! [`send_payload`](crate::Endpoint::send_payload) takes a [`Payload`] and keeps a reference
//! instead. A server broadcasting one snapshot to every client builds one `Payload` and sends
//! clones of it: the bytes are never copied, whatever the number of clients, and are freed
//! when the last connection has sent (or, reliably, seen acknowledged) its chunks.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// Immutable bytes of a message, cheap to clone (a reference count) and to send to many
/// connections.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Payload(Arc<[u8]>);

impl Payload {
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.0
    }
}

impl Deref for Payload {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for Payload {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<&[u8]> for Payload {
    fn from(bytes: &[u8]) -> Payload {
        Payload(Arc::from(bytes))
    }
}

impl From<Vec<u8>> for Payload {
    fn from(bytes: Vec<u8>) -> Payload {
        Payload(Arc::from(bytes))
    }
}

impl From<Box<[u8]>> for Payload {
    fn from(bytes: Box<[u8]>) -> Payload {
        Payload(Arc::from(bytes))
    }
}

impl From<Arc<[u8]>> for Payload {
    fn from(bytes: Arc<[u8]>) -> Payload {
        Payload(bytes)
    }
}

impl fmt::Debug for Payload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Payload({} bytes)", self.0.len())
    }
}

/// What `send` was given: a slice to copy where the message is kept, or shared bytes to keep
/// as they are.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Data<'a> {
    Borrowed(&'a [u8]),
    Shared(&'a Payload),
}

impl Data<'_> {
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Data::Borrowed(bytes) => bytes,
            Data::Shared(payload) => payload,
        }
    }

    /// Shared bytes to keep: a reference, or a copy of a slice.
    pub fn to_payload(self) -> Payload {
        match self {
            Data::Borrowed(bytes) => Payload::from(bytes),
            Data::Shared(payload) => payload.clone(),
        }
    }
}
