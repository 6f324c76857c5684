//! Lists and strings with no count of their own: counted by earlier fields, or ended by a
//! terminator. Where the spec writes a count before every list, other formats keep the counts
//! in a header (DNS counts its questions and answers there) or end a list with a marker (a DNS
//! name ends at an empty label, a line at a newline).
//!
//! | Where | Attribute | Codec type | Effect |
//! |---|---|---|---|
//! | field | `count = "expr"` | [`Counted`](crate::codec::Counted) | exactly as many items (bytes for a string) as `expr`, an expression of earlier fields, says; no count on the wire |
//! | field | `until = B` | [`UntilByte`](crate::codec::UntilByte) | a `String` or `Vec<u8>`, then the byte `B` (0 to 255) |
//! | field | `until = "predicate"` | [`UntilItem`](crate::codec::UntilItem) | a `Vec<T>`'s items, then `T::default()`; read until an item the predicate accepts |
//!
//! Each ends a list one way, so they exclude each other and `to_end` and `byte_len`; `max_len`
//! bounds any of them (and makes `MAX_BITS` known). The items use their own encoding. The
//! schema shows them as [`Encoding::Counted`](crate::schema::Encoding::Counted), with the
//! expression as written, and [`Encoding::Until`](crate::schema::Encoding::Until) with its
//! [`Terminator`](crate::schema::Terminator). They do not go with `delta`, nor with `if` (an
//! empty list is already an absence).
//!
//! # `count = "expr"`: a count from earlier fields
//!
//! The items use their own encoding, not the container's byte order (a `Vec<u16>` in an
//! `endian` container is still varints: give its items a type of their own for whole bytes).
//! The expression sees the earlier fields as references named after them, as an `if`
//! condition does (`"n"`, `"*a + *b"`, `"_0"` in a tuple), and gives any integer type. The
//! derive checks that it names earlier fields on the wire only.
//!
//! The count is the other fields' business: encoding checks that the list holds as many items
//! as the expression says, and refuses it otherwise, since a reader would read another number
//! of them. Decoding refuses a count that the rest of the input cannot hold (each item takes at
//! least its type's `MIN_BITS`) before it reserves anything: a forged count of four billion
//! with ten bytes left is an error, not an allocation.
//!
//! ```
//! use hopnet_codec::{Error, Rabbit};
//!
//! /// A header that counts two lists, one by a field, one by a sum of two.
//! #[derive(Rabbit, Debug, PartialEq)]
//! #[rabbit(endian = "big")]
//! struct Packet {
//!     ids: u16,
//!     low: u8,
//!     high: u8,
//!     #[rabbit(count = "ids")]
//!     id_list: Vec<u8>,
//!     #[rabbit(count = "*low as u32 + *high as u32", max_len = 16)]
//!     payload: Vec<u8>,
//! }
//!
//! let p = Packet { ids: 2, low: 1, high: 1, id_list: vec![7, 8], payload: vec![0xaa, 0xbb] };
//! let bytes = hopnet_codec::to_bytes(&p)?;
//! assert_eq!(bytes, [0, 2, 1, 1, 7, 8, 0xaa, 0xbb]);
//! assert_eq!(hopnet_codec::from_bytes::<Packet>(&bytes)?, p);
//!
//! // A count that disagrees with the list is an encode error.
//! assert!(hopnet_codec::to_bytes(&Packet { ids: 3, ..p }).is_err());
//! // A count of 65535 items with two bytes left: refused before anything is reserved.
//! let err = hopnet_codec::from_bytes::<Packet>(&[0xff, 0xff, 0, 0, 0, 1]).unwrap_err();
//! assert!(matches!(err.root(), Error::CountTooLarge { count: 65535, .. }));
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `until = B`: a string ended by a byte
//!
//! On a `String` or a `Vec<u8>`: its bytes, then `B`. `until = 0` is a C string (as
//! [`cstring`](super::terminated)); a line ends at `until = 10`. A value holding `B` is an
//! encode error (a reader would stop inside it); a missing terminator is a decode error at the
//! end of the input.
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Header {
//!     #[rabbit(until = 10, max_len = 64)]
//!     line: String,
//!     #[rabbit(until = 0xff)]
//!     raw: Vec<u8>,
//! }
//!
//! let h = Header { line: "HELLO".into(), raw: vec![1, 2] };
//! let bytes = hopnet_codec::to_bytes(&h)?;
//! assert_eq!(bytes, b"HELLO\n\x01\x02\xff");
//! assert_eq!(hopnet_codec::from_bytes::<Header>(&bytes)?, h);
//! assert!(hopnet_codec::to_bytes(&Header { line: "a\nb".into(), raw: vec![] }).is_err());
//! assert!(hopnet_codec::from_bytes::<Header>(b"no newline").is_err());
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `until = "predicate"`: a list ended by an item
//!
//! On a `Vec<T>`: the predicate is a closure or a function taking `&T` and returning whether
//! the item ends the list; it sees the item only, no field. Decoding reads items until one the
//! predicate accepts, and drops it; encoding writes the items, then `T::default()` as the
//! terminator. So `T` is `Default`, the predicate must accept the default value, and must
//! refuse every item of the list (an item it accepts would end the list early): encoding checks
//! both and refuses the value otherwise.
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! /// A label: its length, then its bytes. The empty label ends a name.
//! #[derive(Rabbit, Debug, PartialEq, Default)]
//! struct Label {
//!     len: hopnet_codec::layout::Computed<u8>,
//!     #[rabbit(byte_len = "len", max_len = 63)]
//!     text: Vec<u8>,
//! }
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Name {
//!     #[rabbit(until = "|l: &Label| l.text.is_empty()", max_len = 127)]
//!     labels: Vec<Label>,
//! }
//!
//! let label = |s: &str| Label { text: s.as_bytes().to_vec(), ..Label::default() };
//! let name = Name { labels: vec![label("example"), label("com")] };
//! let bytes = hopnet_codec::to_bytes(&name)?;
//! assert_eq!(bytes, b"\x07example\x03com\x00");
//! assert_eq!(hopnet_codec::from_bytes::<Name>(&bytes)?, name);
//! // An empty label inside the name would end it there.
//! assert!(hopnet_codec::to_bytes(&Name { labels: vec![label("a"), label(""), label("b")] }).is_err());
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
