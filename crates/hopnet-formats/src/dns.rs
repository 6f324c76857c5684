//! DNS messages (RFC 1035 section 4, with RFC 4035's AD and CD bits): the header, then the
//! questions, answers, authority and additional records, each section as long as its count in
//! the header says.
//!
//! The header's second word holds the flags from its most significant bit (QR, the opcode, AA,
//! TC, RD, RA, Z, AD, CD, the response code): [`Header`] is a `bit_order = "msb"` container.
//! The sections of [`Message`] have no count of their own: each is `count = "header.questions"`
//! (and so on), so a message whose lists disagree with its header's counts is an encode error,
//! and a forged count is refused before anything is reserved for it. A [`Name`] is a list of
//! [`Label`]s ended by the empty label (`until = "predicate"`).
//!
//! Choices this crate made where the format leaves something open:
//!
//! - **Compression pointers are refused.** A name in a message may end in a pointer to an
//!   earlier name (a length byte whose top two bits are `11`). The derive reads a byte stream in
//!   order and cannot jump back, so a label's top two bits are reserved zero bits here: a
//!   pointer (or RFC 6891's extended label types, `01` and `10`) is a decode error, "expected
//!   0x0 in the 2 bits ... found 0x3", at the label. Messages this crate writes never compress.
//!   Most resolvers compress their answers' names: decoding those fails, plainly.
//! - **Labels are UTF-8 text.** RFC 1035 allows any bytes; a label that is not UTF-8 is a decode
//!   error rather than lossy text. A label takes at most 63 bytes (its length is six bits), a
//!   name at most 127 labels; the 255-byte limit on a whole name is not checked.
//! - **The header's counts are fields.** The caller keeps them equal to the sections' lengths
//!   (encoding refuses a message whose counts disagree), so that a message decodes and encodes
//!   back to the same bytes; [`Message::new`] sets them.
//! - **Record data is bytes.** A record's data is kept as the bytes its length frames, not
//!   parsed by type: a name inside it (a CNAME's, an MX's) may be compressed without harm, and
//!   an OPT pseudo-record (EDNS) is a record like any other, its class the UDP payload size.
//! - **Z is kept.** The reserved bit between RA and AD is a field, zero in every message a
//!   standard writes, so that any header round-trips.

use hopnet_codec::Rabbit;
use hopnet_codec::layout::Computed;

/// The twelve bytes before the sections.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(bit_order = "msb")]
pub struct Header {
    /// Chosen by the asker, copied into the answer.
    #[bits(16)]
    pub id: u16,
    /// QR: a response (`true`) or a query.
    pub response: bool,
    /// The kind of query: 0 a standard query, 4 a notify, 5 an update.
    #[bits(4)]
    pub opcode: u8,
    /// AA: the answer comes from an authority for the name.
    pub authoritative: bool,
    /// TC: the message was cut to fit the datagram.
    pub truncated: bool,
    /// RD: the asker wants the server to recurse.
    pub recursion_desired: bool,
    /// RA: the server recurses.
    pub recursion_available: bool,
    /// Z: reserved, zero.
    pub zero: bool,
    /// AD: the answer was validated (DNSSEC).
    pub authentic_data: bool,
    /// CD: the asker does its own validation (DNSSEC).
    pub checking_disabled: bool,
    /// The response code: 0 no error, 2 server failure, 3 no such name, ...
    #[bits(4)]
    pub rcode: u8,
    /// QDCOUNT: how many questions follow.
    #[bits(16)]
    pub questions: u16,
    /// ANCOUNT: how many answer records follow the questions.
    #[bits(16)]
    pub answers: u16,
    /// NSCOUNT: how many authority records follow the answers.
    #[bits(16)]
    pub authorities: u16,
    /// ARCOUNT: how many additional records follow the authority records.
    #[bits(16)]
    pub additionals: u16,
}

/// A whole message, as one datagram carries it over UDP.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Message {
    /// The header, with the sections' counts.
    pub header: Header,
    /// The questions.
    #[rabbit(count = "header.questions")]
    pub questions: Vec<Question>,
    /// The answers.
    #[rabbit(count = "header.answers")]
    pub answers: Vec<Record>,
    /// The authority records.
    #[rabbit(count = "header.authorities")]
    pub authorities: Vec<Record>,
    /// The additional records (an OPT record for EDNS among them).
    #[rabbit(count = "header.additionals")]
    pub additionals: Vec<Record>,
}

impl Message {
    /// A message of these sections, the header's counts set to their lengths (a section longer
    /// than 65535 records cannot be counted; encoding refuses it).
    pub fn new(
        header: Header,
        questions: Vec<Question>,
        answers: Vec<Record>,
        authorities: Vec<Record>,
        additionals: Vec<Record>,
    ) -> Self {
        let count = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
        let header = Header {
            questions: count(questions.len()),
            answers: count(answers.len()),
            authorities: count(authorities.len()),
            additionals: count(additionals.len()),
            ..header
        };
        Message {
            header,
            questions,
            answers,
            authorities,
            additionals,
        }
    }
}

/// What is asked: a name, a type and a class.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "big")]
pub struct Question {
    /// The name asked about.
    pub name: Name,
    /// QTYPE: 1 A, 28 AAAA, 16 TXT, 33 SRV, 255 any, ...
    pub qtype: u16,
    /// QCLASS: 1 the Internet.
    pub qclass: u16,
}

/// A resource record.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "big")]
pub struct Record {
    /// The name it is about.
    pub name: Name,
    /// TYPE: 1 A, 28 AAAA, 5 CNAME, 41 OPT, ...
    pub rtype: u16,
    /// CLASS: 1 the Internet (an OPT record's UDP payload size).
    pub class: u16,
    /// How long it may be cached, in seconds (an OPT record's extended flags).
    pub ttl: u32,
    /// RDLENGTH, computed from the data.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub data_len: Computed<u16>,
    /// RDATA, as bytes (an A record's four address bytes, ...).
    #[rabbit(byte_len = "data_len")]
    pub data: Vec<u8>,
}

impl Record {
    /// The OPT pseudo-record of EDNS (RFC 6891): the root name, type 41, the largest UDP
    /// payload the sender takes in the class field, no extended flags and no options. A query
    /// or a response carries it last among its additional records.
    pub fn edns_opt(udp_payload_size: u16) -> Self {
        Record {
            name: Name::default(),
            rtype: 41,
            class: udp_payload_size,
            ttl: 0,
            data_len: Computed::new(),
            data: Vec::new(),
        }
    }
}

/// A domain name: its labels, then the empty label. The root is no label at all.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct Name {
    /// The labels, most specific first: `["www", "example", "com"]`.
    #[rabbit(until = "|label: &Label| label.text.is_empty()", max_len = 127)]
    pub labels: Vec<Label>,
}

impl Name {
    /// The name of these dot-separated labels (`"www.example.com"`; `""` or `"."` for the
    /// root).
    pub fn from_dotted(name: &str) -> Self {
        let labels = name
            .split('.')
            .filter(|l| !l.is_empty())
            .map(|l| Label {
                len: Computed::new(),
                text: l.to_owned(),
            })
            .collect();
        Name { labels }
    }
}

/// One label: its length in six bits, after two zero bits (`11` there is a compression
/// pointer, refused), then its bytes. The empty label ends a name.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[rabbit(bit_order = "msb")]
pub struct Label {
    /// The label's length, computed from its text (at most 63).
    #[cfg_attr(feature = "serde", serde(skip))]
    #[rabbit(pad_before = 2)]
    #[bits(6)]
    pub len: Computed<u8>,
    /// The label's text.
    #[rabbit(byte_len = "len")]
    pub text: String,
}
