//! `#[rabbit(until = B)]` and `#[rabbit(until = "predicate")]`: a list or string ended by a
//! terminator instead of a count. The terminator is written after the items and consumed when
//! reading, never kept in the value: a string ended by a byte (a generalised C string), or a
//! list of items ended by an item the predicate accepts (DNS names end at an empty label), the
//! item type's `Default` value being the terminator written.
//!
//! Both grow only by what the input holds (each item read has consumed input), so a missing
//! terminator is an error at the end of the input, never a reservation.

use super::byte_string::ByteString;
use super::{FieldCodec, FieldDecode};
use crate::encode::Encode;
use crate::error::{Error, Result};
use crate::impls::collections;
use crate::read::{BitRead, BitReader, Decode};
use crate::schema::{Encoding, Terminator};
use crate::write::BitWriter;

/// The bytes, then the byte `END` (`until = END`), at most `MAX` bytes before it. A value
/// holding `END` cannot be written (its reader would stop inside it).
pub struct UntilByte<const END: u8, const MAX: u64 = { u64::MAX }>;

impl<T: ByteString, const END: u8, const MAX: u64> FieldCodec<T> for UntilByte<END, MAX> {
    const MIN_BITS: u64 = 8;
    const MAX_BITS: Option<u64> = if MAX == u64::MAX {
        None
    } else {
        crate::size::mul_max(Some(8), MAX.saturating_add(1))
    };

    #[inline]
    fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
        let bytes = value.as_wire();
        if bytes.len() as u64 > MAX {
            return Err(Error::TooLong {
                len: bytes.len() as u64,
                max: MAX,
            });
        }
        if bytes.contains(&END) {
            return Err(holds_terminator(END));
        }
        w.write_bytes(bytes);
        w.write_bits(u64::from(END), 8);
        Ok(())
    }

    #[inline]
    fn encoded_bits(value: &T) -> u64 {
        8 * (value.as_wire().len() as u64 + 1)
    }

    fn schema() -> Encoding {
        Encoding::Until {
            end: Terminator::Byte(END),
            item: Box::new(if T::TEXT {
                Encoding::FixedLen { len: 1, text: true }
            } else {
                Encoding::Fixed {
                    bits: 8,
                    signed: false,
                }
            }),
            max_len: (MAX != u64::MAX).then_some(MAX),
        }
    }
}

#[cold]
fn holds_terminator(end: u8) -> Error {
    Error::custom(format!(
        "the value holds its terminator {end:#04x}: a reader would stop inside it"
    ))
}

impl<T: ByteString, const END: u8, const MAX: u64> FieldDecode<T> for UntilByte<END, MAX> {
    #[inline]
    fn decode<R: BitRead>(r: &mut R) -> Result<T> {
        r.with_reader(|r| read_until_byte(r, END, MAX))
    }
}

/// The value of the bytes before the next `end`, which is consumed; at most `max` of them (an
/// error past that), and a missing `end` an error at the end of the input. On a byte boundary
/// the input is searched as a slice and the value made from the bytes in place, else read byte
/// by byte ([`bytes_one_by_one`]): the same value and errors either way.
#[inline]
pub(crate) fn read_until_byte<T: ByteString>(
    r: &mut BitReader<'_>,
    end: u8,
    max: u64,
) -> Result<T> {
    if let Some(rest) = r.rest_bytes() {
        let limit =
            usize::try_from(max.saturating_add(1)).map_or(rest.len(), |m| m.min(rest.len()));
        match super::find_byte::find_byte(&rest[..limit], end) {
            Some(i) => {
                r.pass_bytes(i + 1);
                return T::from_slice(&rest[..i], r.position());
            }
            None if limit as u64 > max => return Err(past_max(max)),
            // No terminator before the end: the loop below reads to it and reports it.
            None => {}
        }
    }
    let bytes = bytes_one_by_one(r, end, max)?;
    T::from_wire(bytes, r.position())
}

/// The bytes before the next `end`, read one at a time: off a byte boundary, or to report a
/// missing `end` at the end of the input. Out of line: the aligned search is the common path.
#[inline(never)]
fn bytes_one_by_one(r: &mut BitReader<'_>, end: u8, max: u64) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    loop {
        // Fails at the end of the input: a missing terminator is an error.
        let byte = r.read_bits(8)? as u8;
        if byte == end {
            return Ok(bytes);
        }
        if bytes.len() as u64 >= max {
            return Err(past_max(max));
        }
        bytes.push(byte);
    }
}

#[cold]
fn past_max(max: u64) -> Error {
    Error::TooLong {
        len: max.saturating_add(1),
        max,
    }
}

/// Items, then the item type's `Default` value as the terminator (`until = "predicate"`), at
/// most `MAX` items before it. Derived code checks first, with the predicate, that no item
/// would end the list early and that the default value does end it ([`check_until`]), and
/// reads with [`UntilItem::decode_until`].
pub struct UntilItem<const MAX: u64 = { u64::MAX }>;

impl<T: Encode + Default, const MAX: u64> FieldCodec<Vec<T>> for UntilItem<MAX> {
    const MIN_BITS: u64 = T::MIN_BITS;
    const MAX_BITS: Option<u64> = if MAX == u64::MAX {
        None
    } else {
        crate::size::mul_max(T::MAX_BITS, MAX.saturating_add(1))
    };

    #[inline]
    fn encode(value: &Vec<T>, w: &mut BitWriter<'_>) -> Result<()> {
        let len = value.len() as u64;
        if len > MAX {
            return Err(Error::TooLong { len, max: MAX });
        }
        collections::encode_items(value, w)?;
        T::default().encode(w)
    }

    #[inline]
    fn encoded_bits(value: &Vec<T>) -> u64 {
        collections::items_bits(value) + T::default().encoded_bits()
    }

    /// The predicate is the field's: the derive fills it in.
    fn schema() -> Encoding {
        Encoding::Until {
            end: Terminator::Item { predicate: "" },
            item: Box::new(T::schema()),
            max_len: (MAX != u64::MAX).then_some(MAX),
        }
    }
}

impl<const MAX: u64> UntilItem<MAX> {
    /// Reads items until one that `end` accepts, which is consumed and dropped.
    #[inline]
    pub fn decode_until<T: Decode, R: BitRead>(
        r: &mut R,
        end: impl Fn(&T) -> bool,
    ) -> Result<Vec<T>> {
        r.with_reader(|r| read_until(r, MAX, end))
    }
}

/// The items before the one `end` accepts, read through a reader of this function's own,
/// given back to `r` whatever the result: the caller's reader is behind a reference, and
/// through it every item's reads kept the cursor in memory.
fn read_until<T: Decode>(
    r: &mut BitReader<'_>,
    max: u64,
    end: impl Fn(&T) -> bool,
) -> Result<Vec<T>> {
    let mut local = r.clone();
    let result = read_items(&mut local, max, end);
    *r = local;
    result
}

/// [`read_until`]'s loop. A list that ends at once allocates nothing; the first item that
/// does not end it reserves room for a few (what a `Vec`'s first growth would, no more than
/// `max`), so that the usual short list (a DNS name's labels) does not go through the `Vec`'s
/// growth path.
#[inline(always)]
fn read_items<T: Decode>(
    r: &mut BitReader<'_>,
    max: u64,
    end: impl Fn(&T) -> bool,
) -> Result<Vec<T>> {
    let mut items = Vec::new();
    loop {
        let before = r.position();
        let item = T::decode(r)?;
        if end(&item) {
            return Ok(items);
        }
        if r.position() == before {
            // An item of no bits that does not end the list would repeat forever.
            return Err(Error::custom(
                "a list ended by an item, of an item that takes no bits and does not end it",
            ));
        }
        if items.len() as u64 >= max {
            return Err(Error::TooLong {
                len: max.saturating_add(1),
                max,
            });
        }
        if items.capacity() == 0 {
            items = Vec::with_capacity(first_capacity::<T>(max));
        }
        items.push(item);
    }
}

/// The capacity reserved with a list's first item: what a `Vec`'s first growth reserves (8
/// one-byte items, 4 of up to a kilobyte, else 1), at most `max`. A few items at most,
/// whatever the input says.
#[inline(always)]
fn first_capacity<T>(max: u64) -> usize {
    let growth: u64 = match size_of::<T>() {
        1 => 8,
        ..=1024 => 4,
        _ => 1,
    };
    growth.min(max) as usize
}

/// Checks, before a list ended by an item is written, that none of its items would end it and
/// that the terminator written (`T::default()`) does.
#[inline]
pub fn check_until<T: Default>(
    field: &'static str,
    items: &[T],
    end: impl Fn(&T) -> bool,
) -> Result<()> {
    if let Some(i) = items.iter().position(&end) {
        return Err(ends_early(field, i));
    }
    if !end(&T::default()) {
        return Err(Error::custom(format!(
            "`{field}`: the terminator written, the item type's default value, does not satisfy the `until` predicate"
        )));
    }
    Ok(())
}

#[cold]
fn ends_early(field: &'static str, index: usize) -> Error {
    Error::custom(format!(
        "`{field}`: item {index} satisfies the `until` predicate, so a reader would stop there"
    ))
}

/// The schema of a counted or terminated field, with the expression its attribute gave.
pub fn with_expression(encoding: Encoding, text: &'static str) -> Encoding {
    match encoding {
        Encoding::Counted { item, max_len, .. } => Encoding::Counted {
            count: text,
            item,
            max_len,
        },
        Encoding::Until {
            end: Terminator::Item { .. },
            item,
            max_len,
        } => Encoding::Until {
            end: Terminator::Item { predicate: text },
            item,
            max_len,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes<C: FieldCodec<T>, T>(v: &T) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        let mut w = BitWriter::new(&mut buf);
        C::encode(v, &mut w)?;
        w.finish();
        Ok(buf)
    }

    #[test]
    fn byte_terminated() {
        type Line = UntilByte<b'\n', 4>;
        assert_eq!(bytes::<Line, _>(&"abc".to_string()).unwrap(), b"abc\n");
        assert!(bytes::<Line, _>(&"a\nb".to_string()).is_err());
        assert!(bytes::<Line, _>(&"abcde".to_string()).is_err());
        let read = |b: &[u8]| <Line as FieldDecode<String>>::decode(&mut BitReader::new(b));
        assert_eq!(read(b"ab\nzz").unwrap(), "ab");
        assert!(matches!(read(b"ab"), Err(Error::UnexpectedEnd { .. })));
        assert!(matches!(read(b"abcde\n"), Err(Error::TooLong { .. })));
        assert_eq!(<Line as FieldCodec<String>>::MAX_BITS, Some(40));
    }

    #[test]
    fn aligned_and_unaligned_reads_agree() {
        // The same bytes after a byte and after one bit: the slice search and the byte loop.
        for input in [&b"ab\nz"[..], b"abcde\n", b"abc", b"", b"\n"] {
            let aligned = {
                let mut r = BitReader::new(input);
                read_until_byte::<Vec<u8>>(&mut r, b'\n', 4).map(|b| (b, r.position()))
            };
            let mut shifted = Vec::new();
            let mut w = BitWriter::new(&mut shifted);
            w.write_bits(1, 1);
            w.write_bytes(input);
            w.finish();
            let mut r = BitReader::new(&shifted);
            r.read_bits(1).unwrap();
            let unaligned =
                read_until_byte::<Vec<u8>>(&mut r, b'\n', 4).map(|b| (b, r.position() - 1));
            match (aligned, unaligned) {
                (Ok(a), Ok(u)) => assert_eq!(a, u),
                (Err(a), Err(u)) => assert_eq!(
                    std::mem::discriminant(&a),
                    std::mem::discriminant(&u),
                    "{a} / {u}"
                ),
                (a, u) => panic!("{input:?}: {a:?} / {u:?}"),
            }
        }
    }

    #[test]
    fn item_terminated() {
        let v: Vec<u8> = vec![3, 1, 2];
        assert_eq!(bytes::<UntilItem, _>(&v).unwrap(), [3, 1, 2, 0]);
        let zero = |x: &u8| *x == 0;
        assert!(check_until("T.f", &v, zero).is_ok());
        assert!(check_until("T.f", &[1u8, 0, 2], zero).is_err());
        assert!(check_until("T.f", &v, |x: &u8| *x == 9).is_err());
        let mut r = BitReader::new(&[5, 6, 0, 7]);
        assert_eq!(UntilItem::<2>::decode_until(&mut r, zero).unwrap(), [5, 6]);
        assert_eq!(r.remaining_bits(), 8);
        assert!(UntilItem::<1>::decode_until(&mut BitReader::new(&[5, 6, 0]), zero).is_err());
        assert!(UntilItem::<9>::decode_until(&mut BitReader::new(&[5, 6]), zero).is_err());
    }

    #[test]
    fn item_terminated_lists_of_every_length() {
        // Past the room the first item reserves (eight one-byte items), up to `max` and past.
        let zero = |x: &u8| *x == 0;
        for len in 0..=12u8 {
            let items: Vec<u8> = (1..=len).collect();
            let input: Vec<u8> = items.iter().copied().chain([0, 0xab]).collect();
            let mut r = BitReader::new(&input);
            let read = UntilItem::<10>::decode_until(&mut r, zero);
            if len <= 10 {
                assert_eq!(read.unwrap(), items);
                assert_eq!(
                    r.remaining_bits(),
                    8,
                    "{len}: the terminator consumed, no more"
                );
            } else {
                assert!(
                    matches!(read, Err(Error::TooLong { len: 11, max: 10 })),
                    "{len}"
                );
            }
        }
        // A list that ends at once allocates nothing.
        let empty = UntilItem::<10>::decode_until(&mut BitReader::new(&[0, 0]), zero).unwrap();
        assert_eq!(empty.capacity(), 0);
    }
}
