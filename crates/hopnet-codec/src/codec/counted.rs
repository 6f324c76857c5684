//! `#[rabbit(count = "expr")]`: a list or string with no count of its own, as many items as an
//! expression of earlier fields says (DNS counts its questions and answers in the header).
//!
//! The count comes from other fields, so the codec type cannot read it alone: derived code
//! works the count out, checks it against the value when encoding ([`check_count`]) and hands
//! it to [`CountedDecode::decode_counted`] when decoding. Before anything is reserved the count
//! is checked against what the input can hold, so a forged count of billions with a few bytes
//! left is an error, not an allocation.

use super::FieldCodec;
use super::to_end::{EndList, ToEnd};
use crate::encode::Encode;
use crate::error::{Error, Result};
use crate::impls::collections::{decode_list_items, decode_utf8};
use crate::read::{BitRead, BitReader, Decode};
use crate::schema::Encoding;
use crate::write::BitWriter;

/// Lists and strings a count from elsewhere can size.
#[diagnostic::on_unimplemented(
    message = "`count` needs a `Vec<T>` or a `String`, not `{Self}`",
    label = "not a list or string"
)]
pub trait CountedList: EndList {
    /// Reads exactly `count` items (bytes for strings), refusing a count the rest of the input
    /// cannot hold before reserving anything.
    fn decode_counted(r: &mut BitReader<'_>, count: u64) -> Result<Self>;
}

/// `count` after checking that the rest of the input holds that many items of `min_item_bits`
/// each, as a `usize`.
#[inline]
fn checked_len(r: &BitReader<'_>, count: u64, min_item_bits: u64) -> Result<usize> {
    r.check_count(count, min_item_bits)?;
    usize::try_from(count).map_err(|_| count_too_wide(count))
}

/// A count that does not fit this machine's `usize` (only on narrow targets).
#[cold]
fn count_too_wide(count: u64) -> Error {
    Error::custom(format!(
        "a count of {count} does not fit this machine's memory"
    ))
}

impl<T: Encode + Decode> CountedList for Vec<T> {
    /// A count of zero (a DNS query's empty record sections) is the empty list at once,
    /// inline: the checks of a count above zero all pass for it.
    #[inline]
    fn decode_counted(r: &mut BitReader<'_>, count: u64) -> Result<Self> {
        if count == 0 {
            return Ok(Vec::new());
        }
        decode_counted_items(r, count)
    }
}

/// [`CountedList::decode_counted`] of a `Vec<T>` with a count above zero.
#[inline]
fn decode_counted_items<T: Encode + Decode>(r: &mut BitReader<'_>, count: u64) -> Result<Vec<T>> {
    let count = checked_len(r, count, T::MIN_BITS)?;
    decode_list_items(r, count)
}

impl CountedList for String {
    fn decode_counted(r: &mut BitReader<'_>, count: u64) -> Result<Self> {
        let len = checked_len(r, count, 8)?;
        decode_utf8(r, len)
    }
}

/// The items with no count on the wire, at most `MAX` of them (`count = "expr"`, with
/// `max_len = MAX` if given). Encoding writes the items only; derived code checks first that
/// they are as many as the count says.
pub struct Counted<const MAX: u64 = { u64::MAX }>;

/// On the wire exactly a [`ToEnd`] list of at most `MAX` items: the count is elsewhere.
impl<T: EndList, const MAX: u64> FieldCodec<T> for Counted<MAX> {
    const MIN_BITS: u64 = <ToEnd<MAX> as FieldCodec<T>>::MIN_BITS;
    const MAX_BITS: Option<u64> = <ToEnd<MAX> as FieldCodec<T>>::MAX_BITS;

    #[inline]
    fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
        <ToEnd<MAX> as FieldCodec<T>>::encode(value, w)
    }

    #[inline]
    fn encoded_bits(value: &T) -> u64 {
        <ToEnd<MAX> as FieldCodec<T>>::encoded_bits(value)
    }

    /// The count's expression is the field's: the derive fills it in.
    fn schema() -> Encoding {
        Encoding::Counted {
            count: "",
            item: Box::new(T::item_schema()),
            max_len: (MAX != u64::MAX).then_some(MAX),
        }
    }
}

/// Reading a list whose count the caller found.
pub trait CountedDecode<T> {
    /// Reads exactly `count` items.
    fn decode_counted<R: BitRead>(r: &mut R, count: u64) -> Result<T>;
}

impl<T: CountedList, const MAX: u64> CountedDecode<T> for Counted<MAX> {
    #[inline]
    fn decode_counted<R: BitRead>(r: &mut R, count: u64) -> Result<T> {
        if count > MAX {
            return Err(Error::TooLong {
                len: count,
                max: MAX,
            });
        }
        r.with_reader(|r| T::decode_counted(r, count))
    }
}

/// A value a count expression may give: any integer, or a reference to one (an earlier field
/// named on its own).
#[diagnostic::on_unimplemented(
    message = "a count must be an integer, not `{Self}`",
    label = "the `count` expression gives this"
)]
pub trait CountValue {
    /// The count, or an error for a negative one.
    fn to_count(self) -> Result<u64>;
}

macro_rules! count_values {
    ($($t:ty),*) => {$(
        impl CountValue for $t {
            #[inline(always)]
            fn to_count(self) -> Result<u64> {
                u64::try_from(self).map_err(|_| negative_count(self as i128))
            }
        }
    )*};
}
count_values!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<T: CountValue + Copy> CountValue for &T {
    #[inline(always)]
    fn to_count(self) -> Result<u64> {
        (*self).to_count()
    }
}

#[cold]
fn negative_count(value: i128) -> Error {
    Error::custom(format!("a negative count ({value})"))
}

/// Checks, before a counted list is written, that it holds as many items as its count says:
/// a reader would otherwise read another number of them.
#[inline]
pub fn check_count(field: &'static str, items: usize, count: u64) -> Result<()> {
    if items as u64 == count {
        return Ok(());
    }
    Err(count_mismatch(field, items, count))
}

#[cold]
#[inline(never)]
fn count_mismatch(field: &'static str, items: usize, count: u64) -> Error {
    Error::Computed {
        field,
        values: format!("holds {items} items, but its count says {count}").into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_count_is_refused_before_reserving() {
        let input = [0u8; 10];
        let result = <Counted as CountedDecode<Vec<u32>>>::decode_counted(
            &mut BitReader::new(&input),
            4_000_000_000,
        );
        assert!(matches!(
            result,
            Err(Error::CountTooLarge {
                count: 4_000_000_000,
                ..
            })
        ));
        let text = <Counted as CountedDecode<String>>::decode_counted(
            &mut BitReader::new(&input),
            u64::MAX,
        );
        assert!(matches!(text, Err(Error::CountTooLarge { .. })));
    }

    #[test]
    fn reads_exactly_the_count() {
        let input = [1, 2, 3, 4];
        let mut r = BitReader::new(&input);
        let v = <Counted as CountedDecode<Vec<u8>>>::decode_counted(&mut r, 3).unwrap();
        assert_eq!(v, [1, 2, 3]);
        assert_eq!(r.remaining_bits(), 8);
        let over =
            <Counted<2> as CountedDecode<Vec<u8>>>::decode_counted(&mut BitReader::new(&input), 3);
        assert!(matches!(over, Err(Error::TooLong { len: 3, max: 2 })));
        assert!(check_count("T.f", 2, 3).is_err());
        assert!((-1i32).to_count().is_err());
        assert_eq!((&7u16).to_count().unwrap(), 7);
    }

    #[test]
    fn a_count_of_zero_reads_nothing() {
        // Anywhere in the input, even at its end or off a byte boundary: no bits, no item.
        let input = [0xff, 0x01];
        for pos in [0, 3, 16] {
            let mut r = BitReader::new(&input);
            r.skip_to(pos).unwrap();
            let v = <Counted as CountedDecode<Vec<u16>>>::decode_counted(&mut r, 0).unwrap();
            assert!(v.is_empty());
            assert_eq!(r.position(), pos);
        }
        let mut r = BitReader::new(&[]);
        let v = <Counted<0> as CountedDecode<Vec<u8>>>::decode_counted(&mut r, 0).unwrap();
        assert!(v.is_empty());
        r.finish().unwrap();
    }
}
