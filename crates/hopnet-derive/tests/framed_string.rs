//! A `String` framed by a byte length (`byte_len`), which the decoder takes from the input's
//! slice: the round trip, and each check on hostile input with its error (the frame past the
//! end, `max_len`, UTF-8 with its position).

use hopnet_codec::layout::Computed;
use hopnet_codec::{Error, Rabbit, from_bytes, to_bytes};

/// A length byte, then that many bytes of text (at most 4), then a byte after it.
#[derive(Rabbit, Debug, PartialEq, Clone, Default)]
struct Tagged {
    len: Computed<u8>,
    #[rabbit(byte_len = "len", max_len = 4)]
    text: String,
    after: u8,
}

fn tagged(text: &str, after: u8) -> Tagged {
    Tagged {
        len: Computed::new(),
        text: text.to_owned(),
        after,
    }
}

#[test]
fn a_framed_string_round_trips_and_the_next_field_follows_it() {
    let bytes = to_bytes(&tagged("abc", 7)).unwrap();
    assert_eq!(bytes, [3, b'a', b'b', b'c', 7]);
    assert_eq!(from_bytes::<Tagged>(&bytes).unwrap(), tagged("abc", 7));
    let empty = to_bytes(&tagged("", 9)).unwrap();
    assert_eq!(empty, [0, 9]);
    assert_eq!(from_bytes::<Tagged>(&empty).unwrap(), tagged("", 9));
}

#[test]
fn a_frame_past_the_end_of_the_input_is_an_unexpected_end() {
    let err = from_bytes::<Tagged>(&[4, b'a', b'b']).unwrap_err();
    assert!(
        matches!(
            err.root(),
            Error::UnexpectedEnd {
                needed: 32,
                remaining: 16,
                position: 8
            }
        ),
        "{err:?}"
    );
}

#[test]
fn a_frame_longer_than_max_len_is_too_long() {
    let err = from_bytes::<Tagged>(&[5, b'a', b'b', b'c', b'd', b'e', 0]).unwrap_err();
    assert!(
        matches!(err.root(), Error::TooLong { len: 5, max: 4 }),
        "{err:?}"
    );
}

#[test]
fn text_that_is_not_utf8_is_refused_with_the_position_after_its_bytes() {
    let err = from_bytes::<Tagged>(&[2, 0xff, b'a', 0]).unwrap_err();
    assert!(
        matches!(err.root(), Error::InvalidUtf8 { position: 24, .. }),
        "{err:?}"
    );
}
