//! DNS messages against dnspython (PyPI `dnspython`), an independent implementation: messages
//! dnspython writes decode to what dnspython says they hold and encode back to its bytes;
//! messages this crate writes parse in dnspython to what they hold; a message dnspython
//! compresses is refused with the error the module documents.

mod oracles;

use hopnet_codec::layout::Computed;
use hopnet_codec::{from_bytes, to_bytes};
use hopnet_formats::dns::*;
use oracles::{hex, python, unhex};

const SCRIPT: &str = include_str!("oracles/dns.py");

/// A name as dnspython prints it: `www.example.com.`, `.` for the root.
fn dotted(name: &Name) -> String {
    if name.labels.is_empty() {
        return ".".into();
    }
    name.labels.iter().map(|l| format!("{}.", l.text)).collect()
}

fn flags(h: &Header) -> u16 {
    let bit = |b: bool, at: u16| u16::from(b) << at;
    bit(h.response, 15)
        | u16::from(h.opcode) << 11
        | bit(h.authoritative, 10)
        | bit(h.truncated, 9)
        | bit(h.recursion_desired, 8)
        | bit(h.recursion_available, 7)
        | bit(h.zero, 6)
        | bit(h.authentic_data, 5)
        | bit(h.checking_disabled, 4)
        | u16::from(h.rcode)
}

fn rows(records: &[Record]) -> String {
    records
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {} {}",
                dotted(&r.name),
                r.rtype,
                r.class,
                r.ttl,
                hex(&r.data)
            )
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// The description `oracles/dns.py` prints, made from our value.
fn describe(m: &Message) -> String {
    let questions: Vec<String> = m
        .questions
        .iter()
        .map(|q| format!("{} {} {}", dotted(&q.name), q.qtype, q.qclass))
        .collect();
    format!(
        "id={} flags={:#06x} | q={} | an={} | ns={} | ar={}",
        m.header.id,
        flags(&m.header),
        questions.join(";"),
        rows(&m.answers),
        rows(&m.authorities),
        rows(&m.additionals)
    )
}

#[test]
fn messages_dnspython_writes_decode_and_encode_back() {
    let Some(out) = python("dns.message", "dnspython", SCRIPT, "make\n") else {
        return;
    };
    let mut plain = 0;
    let mut compressed = 0;
    for line in out.lines() {
        let (hex_text, description) = line.split_once(' ').expect("hex, then a description");
        let bytes = unhex(hex_text);
        if description == "compressed" {
            let err = from_bytes::<Message>(&bytes).unwrap_err().to_string();
            assert!(
                err.contains("expected 0x0 in the 2 bits") && err.contains("found 0x3"),
                "{err}"
            );
            compressed += 1;
            continue;
        }
        let message = from_bytes::<Message>(&bytes).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(describe(&message), description);
        assert_eq!(to_bytes(&message).unwrap(), bytes, "{description}");
        plain += 1;
    }
    // A query, four questions with EDNS, a response with records; one compressed response.
    assert_eq!((plain, compressed), (3, 1), "{out}");
}

/// A small deterministic generator, so that dnspython sees the same messages every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn label(text: &str) -> Label {
    Label {
        len: Computed::new(),
        text: text.into(),
    }
}

/// A name of its own (`r<tag>` first, so that no two records share a name and dnspython keeps
/// them apart), then up to three more labels.
fn name(rng: &mut Lcg, tag: &str) -> Name {
    let mut labels = vec![label(&format!("r{tag}"))];
    for _ in 0..rng.below(4) {
        let len = 1 + rng.below(10) as usize;
        let text: String = (0..len)
            .map(|_| b"abcdefghijklmnopqrstuvwxyz0123456789-"[rng.below(36) as usize] as char)
            .collect();
        labels.push(label(&text));
    }
    Name { labels }
}

/// A record whose data dnspython parses whatever it holds: an Internet address (in another
/// class an A record holds a name), or a type of the private range, kept as bytes in any
/// class.
fn record(rng: &mut Lcg, tag: &str) -> Record {
    let (rtype, class, data) = match rng.below(3) {
        0 => (1, 1, rng.bytes(4)),
        1 => (28, 1, rng.bytes(16)),
        _ => (
            65280 + rng.below(200) as u16,
            [1, 3, 4][rng.below(3) as usize],
            {
                let n = rng.below(30) as usize;
                rng.bytes(n)
            },
        ),
    };
    Record {
        name: name(rng, tag),
        rtype,
        class,
        ttl: rng.below(1 << 31) as u32,
        data_len: Computed::new(),
        data,
    }
}

fn message(rng: &mut Lcg, n: usize) -> Message {
    let b = |rng: &mut Lcg| rng.below(2) == 1;
    let header = Header {
        id: rng.next() as u16,
        response: b(rng),
        opcode: 0,
        authoritative: b(rng),
        truncated: b(rng),
        recursion_desired: b(rng),
        recursion_available: b(rng),
        zero: b(rng),
        authentic_data: b(rng),
        checking_disabled: b(rng),
        rcode: rng.below(11) as u8,
        ..Header::default()
    };
    let questions = (0..rng.below(5))
        .map(|i| Question {
            name: name(rng, &format!("{n}q{i}")),
            qtype: [1, 28, 16, 33, 255][rng.below(5) as usize],
            qclass: 1,
        })
        .collect();
    let section = |rng: &mut Lcg, s: &str| -> Vec<Record> {
        (0..rng.below(3))
            .map(|i| record(rng, &format!("{n}{s}{i}")))
            .collect()
    };
    let answers = section(rng, "an");
    let authorities = section(rng, "ns");
    let mut additionals = section(rng, "ar");
    if n.is_multiple_of(3) {
        // EDNS: the OPT pseudo-record, last, as dnspython lists it.
        additionals.push(Record::edns_opt(1232));
    }
    Message::new(header, questions, answers, authorities, additionals)
}

#[test]
fn messages_this_crate_writes_parse_in_dnspython() {
    let mut rng = Lcg(0x5eed);
    let messages: Vec<Message> = (0..60).map(|n| message(&mut rng, n)).collect();
    let mut input = String::from("read\n");
    for m in &messages {
        input.push_str(&hex(&to_bytes(m).unwrap()));
        input.push('\n');
    }
    let Some(out) = python("dns.message", "dnspython", SCRIPT, &input) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), messages.len(), "{out}");
    for (m, line) in messages.iter().zip(lines) {
        assert_eq!(*line, describe(m));
    }
}
