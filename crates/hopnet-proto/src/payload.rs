//! A message's bytes, encoded once and shared between the connections it goes to.
//!
//! [`send`](crate::Server::send) takes a slice and copies it into a recycled buffer (a
//! reliable message's waits for its acknowledgement, an unreliable one's for its datagram);
//! [`send_payload`](crate::Server::send_payload) takes a [`Payload`] and keeps a reference
//! instead. A server broadcasting one snapshot to every client builds one `Payload` and sends
//! clones of it: the bytes are never copied, whatever the number of clients, and are freed
//! when the last connection has sent (or, reliably, seen acknowledged) its chunks.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use crate::ext::compress;

/// Immutable bytes of a message, cheap to clone (a reference count) and to send to many
/// connections.
///
/// Its LZ4 form is computed at most once, by the first connection that compresses it (see
/// `ConfigBuilder::compression`), and shared by the others.
#[derive(Clone, Default)]
pub struct Payload(Arc<Inner>);

#[derive(Default)]
struct Inner {
    bytes: Arc<[u8]>,
    /// The compressed form, once asked for: `None` inside if compression does not shorten it.
    compressed: OnceLock<Option<Payload>>,
}

impl Payload {
    fn new(bytes: Arc<[u8]>) -> Payload {
        Payload(Arc::new(Inner {
            bytes,
            compressed: OnceLock::new(),
        }))
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.0.bytes
    }

    /// The compressed form (`ext::compress`), if it is shorter.
    pub(crate) fn compressed(&self) -> Option<Payload> {
        self.0
            .compressed
            .get_or_init(|| compress::compress(self).map(Payload::from))
            .clone()
    }
}

impl Deref for Payload {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0.bytes
    }
}

impl AsRef<[u8]> for Payload {
    fn as_ref(&self) -> &[u8] {
        &self.0.bytes
    }
}

impl PartialEq for Payload {
    fn eq(&self, other: &Payload) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Payload {}

impl Hash for Payload {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl From<&[u8]> for Payload {
    fn from(bytes: &[u8]) -> Payload {
        Payload::new(Arc::from(bytes))
    }
}

impl From<Vec<u8>> for Payload {
    fn from(bytes: Vec<u8>) -> Payload {
        Payload::new(Arc::from(bytes))
    }
}

impl From<Box<[u8]>> for Payload {
    fn from(bytes: Box<[u8]>) -> Payload {
        Payload::new(Arc::from(bytes))
    }
}

impl From<Arc<[u8]>> for Payload {
    fn from(bytes: Arc<[u8]>) -> Payload {
        Payload::new(bytes)
    }
}

impl fmt::Debug for Payload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Payload({} bytes)", self.0.bytes.len())
    }
}

/// What `send` was given: a slice to copy where the message is kept, or shared bytes to keep
/// as they are; or what became of them (a compressed copy).
#[derive(Debug, Clone)]
pub(crate) enum Data<'a> {
    Borrowed(&'a [u8]),
    Shared(&'a Payload),
    Owned(Vec<u8>),
    /// Shared bytes made for this send (a payload's compressed form, computed once).
    Payload(Payload),
}

impl Data<'_> {
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Data::Borrowed(bytes) => bytes,
            Data::Shared(payload) => payload,
            Data::Owned(bytes) => bytes,
            Data::Payload(payload) => payload,
        }
    }
}
