//! `#[rabbit(to_end)]`: a list with no count, whose items run to the end of the input (of a
//! datagram, or of the bytes a `byte_len` field gives it).

use super::{FieldCodec, FieldDecode};
use crate::encode::Encode;
use crate::error::{Error, Result};
use crate::impls::collections::{self, decode_windowed, prealloc};
use crate::read::{BitRead, BitReader, Decode};
use crate::schema::Encoding;
use crate::write::BitWriter;

/// Lists and strings that can run to the end of the input.
#[diagnostic::on_unimplemented(
    message = "`to_end` and `byte_len` need a `Vec<T>` or a `String`, not `{Self}`",
    label = "not a list or string"
)]
pub trait EndList: Sized {
    /// The fewest bits an item takes (a byte for strings).
    const ITEM_MIN_BITS: u64;
    /// The most bits an item takes.
    const ITEM_MAX_BITS: Option<u64>;
    /// How many items (bytes for strings).
    fn items(&self) -> usize;
    /// Writes the items, with no count.
    fn encode_items(&self, w: &mut BitWriter<'_>) -> Result<()>;
    /// The bits the items take.
    fn items_bits(&self) -> u64;
    /// Reads items until fewer than eight bits are left, at most `max` of them (an error past
    /// that).
    fn decode_items(r: &mut BitReader<'_>, max: u64) -> Result<Self>;
    /// Reads the items of exactly the next `bytes` bytes (the cursor on a byte boundary), at
    /// most `max` of them, and moves the cursor past those bytes: the items of a field framed
    /// by a byte length. The provided method reads them with [`EndList::decode_items`] from a
    /// reader over those bytes only, then checks what is left of them.
    #[inline]
    fn decode_span(r: &mut BitReader<'_>, bytes: u64, max: u64) -> Result<Self> {
        let mut span = r.region(bytes)?;
        let end = span.position() + span.remaining_bits();
        let value = Self::decode_items(&mut span, max)?;
        span.finish()?;
        r.skip_to(end)?;
        Ok(value)
    }
    /// The schema of one item.
    fn item_schema() -> Encoding;
}

/// More items than the field's `max_len`.
#[cold]
fn too_many(max: u64) -> Error {
    Error::TooLong { len: max + 1, max }
}

impl<T: Encode + Decode> EndList for Vec<T> {
    const ITEM_MIN_BITS: u64 = T::MIN_BITS;
    const ITEM_MAX_BITS: Option<u64> = T::MAX_BITS;

    #[inline]
    fn items(&self) -> usize {
        self.len()
    }

    #[inline]
    fn encode_items(&self, w: &mut BitWriter<'_>) -> Result<()> {
        collections::encode_items(self, w)
    }

    #[inline]
    fn items_bits(&self) -> u64 {
        collections::items_bits(self)
    }

    #[inline]
    fn decode_items(r: &mut BitReader<'_>, max: u64) -> Result<Self> {
        // The fewest bits an item takes bound how many the rest of the input can hold.
        let room = r.remaining_bits() / T::MIN_BITS.max(1);
        let mut items = Vec::with_capacity(prealloc::<T>(room.min(max) as usize));
        let mut local = r.clone();
        let result = decode_all(&mut local, max, &mut items);
        *r = local;
        result.map(|()| items)
    }

    fn item_schema() -> Encoding {
        T::schema()
    }
}

/// Reads items into `items` while a whole byte is left: through windows while the input has a
/// whole window left (no check per read), then through the checked reader.
#[inline(always)]
fn decode_all<T: Encode + Decode>(
    r: &mut BitReader<'_>,
    max: u64,
    items: &mut Vec<T>,
) -> Result<()> {
    if T::MIN_BITS > 0 {
        // Every item moves the cursor, so the window loop ends.
        let limit = usize::try_from(max).unwrap_or(usize::MAX);
        decode_windowed(r, limit, items)?;
    }
    while r.remaining_bits() >= 8 {
        if items.len() as u64 >= max {
            return Err(too_many(max));
        }
        let before = r.position();
        items.push(T::decode(r)?);
        if r.position() == before {
            // An item that takes no bits would never reach the end.
            return Err(Error::custom(
                "a list to the end of the input of items that take no bits",
            ));
        }
    }
    Ok(())
}

impl EndList for String {
    const ITEM_MIN_BITS: u64 = 8;
    const ITEM_MAX_BITS: Option<u64> = Some(8);

    #[inline]
    fn items(&self) -> usize {
        self.len()
    }

    #[inline]
    fn encode_items(&self, w: &mut BitWriter<'_>) -> Result<()> {
        w.write_bytes(self.as_bytes());
        Ok(())
    }

    #[inline]
    fn items_bits(&self) -> u64 {
        8 * self.len() as u64
    }

    /// A string's items are its bytes: taken from the input where they are, with no reader of
    /// their own (the same checks and errors as the provided method's).
    #[inline]
    fn decode_span(r: &mut BitReader<'_>, bytes: u64, max: u64) -> Result<Self> {
        let slice = r.read_slice(bytes)?;
        if bytes > max {
            return Err(Error::TooLong { len: bytes, max });
        }
        utf8_owned(slice, r.position())
    }

    fn decode_items(r: &mut BitReader<'_>, max: u64) -> Result<Self> {
        let len = r.remaining_bits() / 8;
        if len > max {
            return Err(Error::TooLong { len, max });
        }
        if r.position().is_multiple_of(8) {
            // On a byte boundary the bytes are checked where they are, then copied once.
            let bytes = r.read_slice(len)?;
            return utf8_owned(bytes, r.position());
        }
        let mut bytes = vec![0u8; len as usize];
        r.read_bytes(&mut bytes)?;
        String::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
            position: r.position(),
            source: e.utf8_error(),
        })
    }

    fn item_schema() -> Encoding {
        Encoding::Fixed {
            bits: 8,
            signed: false,
        }
    }
}

/// `bytes` as a `String` if they are UTF-8; `position` is the error's, the cursor past them.
#[inline]
fn utf8_owned(bytes: &[u8], position: u64) -> Result<String> {
    if bytes.is_empty() {
        // The empty string (the empty label ending a DNS name): nothing to check or copy.
        return Ok(String::new());
    }
    std::str::from_utf8(bytes)
        .map(str::to_owned)
        .map_err(|source| Error::InvalidUtf8 { position, source })
}

/// The items with no count, to the end of the input, at most `MAX` of them
/// (`#[rabbit(to_end)]`, with `max_len = MAX` if given). Nothing may follow the field: the
/// derive accepts it only as the last field of its struct or variant, and a type that ends in
/// one must itself come last wherever it is used, since its list takes the rest of the input.
pub struct ToEnd<const MAX: u64 = { u64::MAX }>;

/// The largest encoding of at most `max` items of `item` bits each; `None` when `max` is
/// `u64::MAX` (no `max_len`: unbounded). Shared by the lists whose count is not on the wire.
const fn items_max_bits(item: Option<u64>, max: u64) -> Option<u64> {
    if max == u64::MAX {
        None
    } else {
        crate::size::mul_max(item, max)
    }
}

/// Writes the items, more than `max` of them an error (a `max_len` the decoder would refuse).
#[inline]
fn encode_at_most<T: EndList>(value: &T, max: u64, w: &mut BitWriter<'_>) -> Result<()> {
    let len = value.items() as u64;
    if len > max {
        return Err(Error::TooLong { len, max });
    }
    value.encode_items(w)
}

impl<T: EndList, const MAX: u64> FieldCodec<T> for ToEnd<MAX> {
    const MIN_BITS: u64 = 0;
    const MAX_BITS: Option<u64> = items_max_bits(T::ITEM_MAX_BITS, MAX);

    #[inline]
    fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
        encode_at_most(value, MAX, w)
    }

    #[inline]
    fn encoded_bits(value: &T) -> u64 {
        value.items_bits()
    }

    fn schema() -> Encoding {
        Encoding::ToEnd {
            item: Box::new(T::item_schema()),
            max_len: (MAX != u64::MAX).then_some(MAX),
        }
    }
}

impl<T: EndList, const MAX: u64> FieldDecode<T> for ToEnd<MAX> {
    #[inline]
    fn decode<R: BitRead>(r: &mut R) -> Result<T> {
        r.with_reader(|r| T::decode_items(r, MAX))
    }

    #[inline]
    fn decode_framed<R: BitRead>(r: &mut R, bytes: u64) -> Result<T> {
        r.with_reader(|r| T::decode_span(r, bytes, MAX))
    }
}
