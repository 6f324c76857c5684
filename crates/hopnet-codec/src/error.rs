//! The one error type of the codec.
//!
//! Every variant says what went wrong and, where the input is involved, at which bit, so that a
//! capture of a bad datagram can be read against the schema.

use std::borrow::Cow;

/// What went wrong while encoding or decoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input ended before the value did.
    #[error("input ended at bit {position}: {needed} more bits needed, {remaining} left")]
    UnexpectedEnd {
        /// Bits the decoder asked for.
        needed: u64,
        /// Bits that were left in the input.
        remaining: u64,
        /// Bit offset of the read, from the start of the input.
        position: u64,
    },

    /// An enum tag named no variant.
    #[error("unknown variant index {index} for `{type_name}` at bit {position}")]
    UnknownVariant {
        /// The enum being decoded.
        type_name: &'static str,
        /// The index that was read.
        index: u64,
        /// Bit offset just after the tag.
        position: u64,
    },

    /// A string's bytes were not UTF-8.
    #[error("invalid UTF-8 in a string ending at bit {position}: {source}")]
    InvalidUtf8 {
        /// Bit offset just after the string's bytes.
        position: u64,
        /// What was wrong with the bytes.
        #[source]
        source: std::str::Utf8Error,
    },

    /// A length prefix claimed more items than the rest of the input could possibly hold.
    ///
    /// Raised before anything is allocated, so a forged count costs the receiver nothing.
    #[error(
        "a count of {count} at bit {position} needs at least {needed_bits} bits, only {remaining} left"
    )]
    CountTooLarge {
        /// The count that was read.
        count: u64,
        /// The fewest bits `count` items can take.
        needed_bits: u64,
        /// Bits left in the input.
        remaining: u64,
        /// Bit offset just after the count.
        position: u64,
    },

    /// Whole bytes followed the message.
    #[error("{bytes} trailing bytes after the message")]
    TrailingBytes {
        /// How many whole bytes were left over.
        bytes: u64,
    },

    /// The padding bits of the final byte were not zero.
    #[error("non-zero padding bits in the final byte")]
    NonZeroPadding,

    /// A variable-length integer used more bytes than its value needs.
    ///
    /// The spec's encoder always picks the fewest bytes, so rejecting longer forms keeps every
    /// value to exactly one encoding.
    #[error(
        "non-canonical variable-length integer at bit {position}: {bytes} bytes for value {value}"
    )]
    NonCanonicalVarint {
        /// The value read.
        value: u128,
        /// The byte count the encoding used.
        bytes: u32,
        /// Bit offset just after the integer.
        position: u64,
    },

    /// A value does not fit the width or range it is declared with.
    #[error("value {value} does not fit {expected}")]
    OutOfRange {
        /// The offending value.
        value: i128,
        /// What it had to fit, e.g. "3 bits" or "10..=20".
        expected: Cow<'static, str>,
    },

    /// A list or string is longer than its declared `max_len` (or than a `u32` count can say).
    #[error("length {len} exceeds the maximum of {max}")]
    TooLong {
        /// The length found.
        len: u64,
        /// The largest length allowed.
        max: u64,
    },

    /// A conditional field's presence disagrees with its condition.
    #[error("field `{field}`: its condition is {condition} but the value is {}", if *.present { "present" } else { "absent" })]
    ConditionMismatch {
        /// The field, as `Type.field`.
        field: &'static str,
        /// What the condition evaluated to.
        condition: bool,
        /// Whether the value was `Some`.
        present: bool,
    },

    /// A delta that does not fit its baseline: it removes or changes an item the baseline
    /// does not have, or places an item where the new list has no room. Either the delta is
    /// forged, or it was made against another baseline than the one it is decoded with.
    #[error("a delta that does not fit its baseline at bit {position}: {what}")]
    BadDelta {
        /// What did not fit.
        what: &'static str,
        /// Bit offset just after what was read.
        position: u64,
    },

    /// Bits with a fixed value (a magic number, reserved or padding bits) held another.
    #[error("expected {expected:#x} in the {bits} bits ending at bit {position}, found {found:#x}")]
    Constant {
        /// The value the format fixes.
        expected: u64,
        /// The value read.
        found: u64,
        /// How many bits.
        bits: u32,
        /// Bit offset just after them.
        position: u64,
    },

    /// A computed field (a length, a checksum) did not hold what the other fields compute.
    #[error("`{field}` {values}")]
    Computed {
        /// The field, as `Type.field`.
        field: &'static str,
        /// The value read and the value computed, as text.
        values: Cow<'static, str>,
    },

    /// A field framed by a byte length did not start on a byte boundary.
    #[error("a field framed by a byte length starts at bit {position}, not on a byte boundary")]
    Unaligned {
        /// Bit offset of the field.
        position: u64,
    },

    /// An error from inside a field, with the field's name.
    #[error("{field}: {source}")]
    InField {
        /// The field, as `Type.field` or `Enum::Variant.field`.
        field: &'static str,
        /// The error inside it.
        #[source]
        source: Box<Error>,
    },

    /// An error raised by a custom codec or a hand-written impl.
    #[error("{0}")]
    Custom(Cow<'static, str>),
}

impl Error {
    /// A custom error with a message, for hand-written codecs.
    pub fn custom(message: impl Into<Cow<'static, str>>) -> Self {
        Error::Custom(message.into())
    }

    /// The innermost error, below any [`Error::InField`] wrappers: what went wrong, without where.
    pub fn root(&self) -> &Error {
        let mut err = self;
        while let Error::InField { source, .. } = err {
            err = source;
        }
        err
    }

    /// Wraps the error with the name of the field it happened in.
    #[cold]
    pub fn in_field(self, field: &'static str) -> Self {
        Error::InField {
            field,
            source: Box::new(self),
        }
    }
}

/// `Result` with the codec's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
