//! DNS messages: bytes written by hand after RFC 1035, the header's counts, compression
//! pointers refused, round trips of random messages, truncations and random bytes. The round
//! trips against dnspython are in `dns_dnspython.rs`.

mod common;

use hopnet_codec::layout::Computed;
use hopnet_codec::{Error, from_bytes, to_bytes};
use hopnet_formats::dns::*;
use proptest::collection::vec;
use proptest::prelude::*;

fn query() -> Message {
    Message::new(
        Header {
            id: 0xbeef,
            recursion_desired: true,
            ..Header::default()
        },
        vec![Question {
            name: Name::from_dotted("www.example.com"),
            qtype: 1,
            qclass: 1,
        }],
        vec![],
        vec![],
        vec![],
    )
}

#[test]
fn a_query_byte_for_byte() {
    let want = b"\xbe\xef\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\
\x03www\x07example\x03com\x00\x00\x01\x00\x01";
    common::both_ways(&query(), want);
}

#[test]
fn an_answer_with_flags_and_records() {
    let mut answer = query();
    answer.header = Header {
        response: true,
        opcode: 0,
        authoritative: true,
        recursion_available: true,
        authentic_data: true,
        rcode: 3,
        ..answer.header
    };
    answer.answers.push(Record {
        name: Name::from_dotted("www.example.com"),
        rtype: 1,
        class: 1,
        ttl: 300,
        data_len: Computed::new(),
        data: vec![192, 0, 2, 1],
    });
    answer.additionals.push(Record::edns_opt(1232));
    answer.header.answers = 1;
    answer.header.additionals = 1;
    let bytes = to_bytes(&answer).unwrap();
    // QR, AA, RD in the first flags byte; RA, AD and NXDOMAIN (3) in the second.
    assert_eq!(&bytes[2..4], [0x85, 0xa3]);
    assert_eq!(&bytes[4..12], [0, 1, 0, 1, 0, 0, 0, 1]);
    let record =
        b"\x03www\x07example\x03com\x00\x00\x01\x00\x01\x00\x00\x01\x2c\x00\x04\xc0\x00\x02\x01";
    let opt = b"\x00\x00\x29\x04\xd0\x00\x00\x00\x00\x00\x00";
    assert_eq!(&bytes[bytes.len() - opt.len()..], opt);
    assert_eq!(
        &bytes[bytes.len() - opt.len() - record.len()..bytes.len() - opt.len()],
        record
    );
    assert_eq!(from_bytes::<Message>(&bytes).unwrap(), answer);
}

#[test]
fn counts_that_disagree_are_errors() {
    let mut m = query();
    m.header.questions = 2;
    let err = to_bytes(&m).unwrap_err();
    assert!(err.to_string().contains("Message.questions"), "{err}");
    // A header claiming 65535 questions with nothing after it: refused before reserving.
    let mut bytes = to_bytes(&query()).unwrap();
    bytes[4] = 0xff;
    bytes[5] = 0xff;
    bytes.truncate(12);
    let err = from_bytes::<Message>(&bytes).unwrap_err();
    assert!(
        matches!(err.root(), Error::CountTooLarge { count: 65535, .. }),
        "{err}"
    );
}

#[test]
fn a_compression_pointer_is_refused() {
    // An answer whose name points back at the question's (offset 12): `C0 0C`.
    let mut bytes = to_bytes(&query()).unwrap();
    bytes[7] = 1;
    bytes.extend(b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\x7f\x00\x00\x01");
    let err = from_bytes::<Message>(&bytes).unwrap_err().to_string();
    assert!(err.contains("Message.answers"), "{err}");
    assert!(err.contains("expected 0x0 in the 2 bits"), "{err}");
    assert!(err.contains("found 0x3"), "{err}");
}

#[test]
fn an_empty_label_inside_a_name_and_a_long_label_are_refused() {
    let mut m = query();
    m.questions[0].name.labels.insert(1, Label::default());
    assert!(to_bytes(&m).is_err());
    let mut m = query();
    m.questions[0].name.labels[0].text = "x".repeat(64);
    assert!(to_bytes(&m).is_err());
    m.questions[0].name.labels[0].text = "x".repeat(63);
    assert!(to_bytes(&m).is_ok());
}

fn label() -> impl Strategy<Value = Label> {
    "[a-z0-9-]{1,20}".prop_map(|text| Label {
        len: Computed::new(),
        text,
    })
}

fn name() -> impl Strategy<Value = Name> {
    vec(label(), 0..5).prop_map(|labels| Name { labels })
}

fn record() -> impl Strategy<Value = Record> {
    (
        name(),
        any::<u16>(),
        any::<u16>(),
        any::<u32>(),
        vec(any::<u8>(), 0..40),
    )
        .prop_map(|(name, rtype, class, ttl, data)| Record {
            name,
            rtype,
            class,
            ttl,
            data_len: Computed::new(),
            data,
        })
}

prop_compose! {
    fn header()(
        id in any::<u16>(),
        flags in any::<[bool; 8]>(),
        opcode in 0u8..16,
        rcode in 0u8..16,
    ) -> Header {
        Header {
            id,
            response: flags[0],
            opcode,
            authoritative: flags[1],
            truncated: flags[2],
            recursion_desired: flags[3],
            recursion_available: flags[4],
            zero: flags[5],
            authentic_data: flags[6],
            checking_disabled: flags[7],
            rcode,
            ..Header::default()
        }
    }
}

fn message() -> impl Strategy<Value = Message> {
    (
        header(),
        vec(
            (name(), any::<u16>(), any::<u16>()).prop_map(|(name, qtype, qclass)| Question {
                name,
                qtype,
                qclass,
            }),
            0..4,
        ),
        vec(record(), 0..3),
        vec(record(), 0..2),
        vec(record(), 0..2),
    )
        .prop_map(|(h, q, an, ns, ar)| Message::new(h, q, an, ns, ar))
}

proptest! {
    #[test]
    fn messages_round_trip(m in message()) {
        test_vectors::round_trip_strict(&m);
    }

    #[test]
    fn random_bytes_never_panic(bytes in vec(any::<u8>(), 0..300)) {
        let _ = from_bytes::<Message>(&bytes);
        let _ = from_bytes::<Name>(&bytes);
        let _ = from_bytes::<Record>(&bytes);
    }

    #[test]
    fn a_header_with_any_counts_never_panics(header in any::<[u8; 12]>(), rest in vec(any::<u8>(), 0..64)) {
        let mut bytes = header.to_vec();
        bytes.extend(rest);
        let _ = from_bytes::<Message>(&bytes);
    }
}
