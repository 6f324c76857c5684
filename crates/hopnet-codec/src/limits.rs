//! The limits decoding holds untrusted input to, and the sizes of its fast path: constants
//! users may need to reason about what decodes, apart from the API at the crate root.

/// The most items a list of zero-bit items (`()`, `PhantomData`) may claim: such a list takes
/// no input however long it says it is, so its count is capped to keep a forged one from
/// spinning the decoder. Encoding a longer one is an error, so whatever encodes decodes.
pub const MAX_EMPTY_ITEMS: u64 = 1 << 16;

/// The bytes a [`BitWindow`](crate::BitWindow) spans.
pub const WINDOW_BYTES: usize = 72;

/// The most bits a type may take ([`Encode::MAX_BITS`](crate::Encode::MAX_BITS)) for a list to
/// decode its items through a [`BitWindow`](crate::BitWindow): every read of it then starts in
/// the window's first 64 bytes (it starts at most 7 bits into the first), so the eight bytes
/// under it are in the window.
pub const WINDOW_MAX_BITS: u64 = 504;
