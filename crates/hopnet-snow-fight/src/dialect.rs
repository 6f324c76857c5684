//! Which encoding of [`ClientMessage`] a client speaks: the spec's, or that of the spec author's
//! own implementation ([`crate::original`]).
//!
//! The two differ in one place only, the tag of `ClientMessage`: a `u32` variable-length integer
//! in the spec (10 bits for 0 or 1), 1 bit in the original. Every other type, and everything a
//! server sends, is encoded the same in both, so only a client's messages need a dialect.
//!
//! A server that wants both kinds of client learns each connection's dialect from its first
//! message that decodes ([`Dialect::detect`]) and keeps it for the connection.
//!
//! ```
//! use hopnet_snow_fight::{ClientMessage, Dialect};
//!
//! let init = ClientMessage::init(0u32);
//! let original = Dialect::Original.to_bytes(&init)?;
//! let spec = Dialect::Spec.to_bytes(&init)?;
//! assert_eq!(original, [0x00, 0x08]); // tag 0 in 1 bit, channel 0 in 10, Init in 1
//! assert_eq!(spec, [0x00, 0x00, 0x10]); // tag 0 in 10 bits, channel 0 in 10, Init in 1
//!
//! // A server: the first message that decodes fixes the connection's dialect.
//! assert_eq!(Dialect::detect(&original), Ok((Dialect::Original, init.clone())));
//! assert_eq!(Dialect::detect(&spec), Ok((Dialect::Spec, init.clone())));
//! // ... and later messages decode in that dialect only.
//! assert_eq!(Dialect::Original.from_bytes(&original)?, init);
//! assert!(Dialect::Spec.from_bytes(&original).is_err());
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # Why the spec is tried first
//!
//! A message that decodes as a spec message is taken as one, so no spec client is ever misread.
//! The price falls on the original dialect, and it is small: an original `Action` never decodes
//! as a spec message, nor does an original `Request` on a channel below 65,536; only some
//! requests on higher channels do. The original client's first message is its `Init` on
//! channel 0, so it is always recognised. `PROTOCOL.md` ("The original implementation") works
//! through the bit layouts; `tests/dialect.rs` checks each claim.

use crate::client::ClientMessage;
use crate::original;
use std::fmt;
use std::str::FromStr;

/// An encoding of [`ClientMessage`]. Every other message is the same in both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dialect {
    /// The spec's text: the tag is a `u32` variable-length integer.
    #[default]
    Spec,
    /// The spec author's implementation: the tag is 1 bit ([`original::ClientMessage`]).
    Original,
}

impl Dialect {
    /// Every dialect, in the order [`Dialect::detect`] tries them.
    pub const ALL: [Dialect; 2] = [Dialect::Spec, Dialect::Original];

    /// The name used on command lines and in logs: `spec` or `original`.
    pub const fn name(self) -> &'static str {
        match self {
            Dialect::Spec => "spec",
            Dialect::Original => "original",
        }
    }

    /// Appends `message`'s encoding in this dialect to `out` (left as it was on error). The
    /// original dialect has no [`ClientMessage::Deltas`]: that is an error.
    pub fn encode_into(
        self,
        message: &ClientMessage,
        out: &mut Vec<u8>,
    ) -> hopnet_codec::Result<()> {
        match self {
            Dialect::Spec => hopnet_codec::encode_into(message, out),
            Dialect::Original => {
                let message = original::ClientMessage::try_from(message)
                    .map_err(|e| hopnet_codec::Error::custom(e.to_string()))?;
                hopnet_codec::encode_into(&message, out)
            }
        }
    }

    /// `message`'s encoding in this dialect, in a new buffer.
    pub fn to_bytes(self, message: &ClientMessage) -> hopnet_codec::Result<Vec<u8>> {
        let mut out = Vec::new();
        self.encode_into(message, &mut out)?;
        Ok(out)
    }

    /// Decodes a whole `ClientMessage` in this dialect, as [`hopnet_codec::from_bytes`] does.
    pub fn from_bytes(self, bytes: &[u8]) -> hopnet_codec::Result<ClientMessage> {
        match self {
            Dialect::Spec => hopnet_codec::from_bytes(bytes),
            Dialect::Original => {
                hopnet_codec::from_bytes::<original::ClientMessage>(bytes).map(Into::into)
            }
        }
    }

    /// The dialect of a client whose dialect is not known yet, from one of its messages, and
    /// the message.
    ///
    /// The spec is tried first: a message that decodes as a spec message is one, so a spec
    /// client is never taken for an original one. Otherwise a message that decodes in the
    /// original dialect is original. Call it on each message until one decodes, then keep the
    /// dialect for the connection and decode the rest with [`Dialect::from_bytes`]: a later
    /// message that happens to decode in the other dialect must not switch it.
    pub fn detect(bytes: &[u8]) -> Result<(Dialect, ClientMessage), DetectError> {
        let spec = match Dialect::Spec.from_bytes(bytes) {
            Ok(message) => return Ok((Dialect::Spec, message)),
            Err(e) => e,
        };
        match Dialect::Original.from_bytes(bytes) {
            Ok(message) => Ok((Dialect::Original, message)),
            Err(original) => Err(DetectError::Neither { spec, original }),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    /// `spec` or `original`, as [`Dialect::name`] writes them.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| UnknownDialect::Name(name.to_owned()))
    }
}

/// A message that is no `ClientMessage` in any dialect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DetectError {
    /// Both decoders refused it; each says why.
    #[error("not a ClientMessage in the spec dialect ({spec}) nor in the original ({original})")]
    Neither {
        /// Why the spec dialect refused it.
        spec: hopnet_codec::Error,
        /// Why the original dialect refused it.
        original: hopnet_codec::Error,
    },
}

/// A dialect name that [`Dialect::from_str`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnknownDialect {
    /// Neither `spec` nor `original`.
    #[error("unknown dialect `{0}` (known: spec, original)")]
    Name(String),
}
