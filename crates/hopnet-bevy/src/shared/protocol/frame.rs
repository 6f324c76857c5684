//! A payload's framing: the tag, then the message, in one Rabbit bit stream (or the message
//! alone, untagged).

use hopnet_codec::{BitReader, BitWriter, Decode, Encode};

/// Writes `tag` (when framed with tags) and `value` into `out`, cleared first.
pub(crate) fn encode<T: Encode + ?Sized>(
    tag: Option<u32>,
    value: &T,
    out: &mut Vec<u8>,
) -> hopnet_codec::Result<()> {
    write(out, |w| {
        if let Some(tag) = tag {
            tag.encode(w)?;
        }
        value.encode(w)
    })
}

/// Runs `body` on a writer over `out`, cleared first; `out` is left empty on error.
pub(crate) fn write(
    out: &mut Vec<u8>,
    body: impl FnOnce(&mut BitWriter<'_>) -> hopnet_codec::Result<()>,
) -> hopnet_codec::Result<()> {
    out.clear();
    let mut w = BitWriter::new(out);
    let result = body(&mut w);
    w.finish();
    if result.is_err() {
        out.clear();
    }
    result
}

/// The tag of a payload (0 when untagged), and a reader at what follows it.
pub(crate) fn open(bytes: &[u8], tagged: bool) -> hopnet_codec::Result<(u32, BitReader<'_>)> {
    let mut r = BitReader::new(bytes);
    let tag = if tagged { u32::decode(&mut r)? } else { 0 };
    Ok((tag, r))
}

/// Decodes a whole message after its tag: nothing but the last byte's zero padding may
/// follow it.
pub(crate) fn decode<T: Decode>(bytes: &[u8], tagged: bool) -> hopnet_codec::Result<T> {
    let (_, mut r) = open(bytes, tagged)?;
    let value = T::decode(&mut r)?;
    r.finish()?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tagged_payload_is_the_tag_then_the_message_in_one_bit_stream() {
        let mut out = Vec::new();
        encode(Some(3), &true, &mut out).unwrap();
        // The tag 3 as the spec's u32 (prefix 00, then the byte 3), then the bit 1: 11 bits.
        assert_eq!(out, [0b0000_1100, 0b0000_0100]);
        assert_eq!(open(&out, true).unwrap().0, 3);
        assert!(decode::<bool>(&out, true).unwrap());
        // Untagged: the message alone.
        encode(None, &true, &mut out).unwrap();
        assert_eq!(out, [1]);
        assert!(decode::<bool>(&out, false).unwrap());
    }

    #[test]
    fn bytes_after_the_message_are_an_error() {
        let mut out = Vec::new();
        encode(Some(0), &7u8, &mut out).unwrap();
        out.push(0xff);
        assert!(decode::<u8>(&out, true).is_err());
        assert!(decode::<u8>(&[], true).is_err());
    }
}
