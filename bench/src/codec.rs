//! The codec suite: the 1000-entity snapshot of `hopnet_snow_fight::sample`, encoded and decoded by
//! rabbit (hopnet-snow-fight' own derived types), the hand-written limit, bitcode, bincode,
//! postcard and deku.
//!
//! Every case is a closure that runs a batch of operations; a round runs every case once, in an
//! order rotated from round to round (interleaving, so drift in the machine's load hits every
//! peer alike), and the reported time is the median over rounds of the time per operation.

use std::hint::black_box;
use std::time::{Duration, Instant};

use deku::{DekuContainerRead, DekuContainerWrite};
use hopnet_snow_fight::{Entity, Snapshot};

use crate::deku_types::DSnapshot;
use crate::delta;
use crate::limit;
use crate::mirror::MSnapshot;
use crate::report::{Row, median};
pub use crate::snapshot::{ENTITIES, snapshot};

/// Options of a run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Interleaved rounds.
    pub rounds: usize,
    /// Target duration of one batch.
    pub batch: Duration,
    /// Only these peers (empty: all).
    pub only: Vec<String>,
}

struct Case {
    peer: &'static str,
    case: &'static str,
    bytes: Option<u64>,
    note: String,
    /// Runs `n` operations.
    run: Box<dyn FnMut(u64)>,
    iters: u64,
    samples: Vec<f64>,
}

fn case(
    peer: &'static str,
    case: &'static str,
    bytes: usize,
    note: impl Into<String>,
    mut op: impl FnMut() + 'static,
) -> Case {
    Case {
        peer,
        case,
        bytes: Some(bytes as u64),
        note: note.into(),
        run: Box::new(move |k| {
            for _ in 0..k {
                op();
            }
        }),
        iters: 1,
        samples: Vec::new(),
    }
}

/// A case that encodes `value` with `encode` into one buffer, cleared before each operation.
fn encode_case<T: 'static>(
    peer: &'static str,
    name: &'static str,
    bytes: usize,
    note: &'static str,
    value: T,
    mut encode: impl FnMut(&T, &mut Vec<u8>) + 'static,
) -> Case {
    let mut buf = Vec::with_capacity(bytes + 64);
    case(peer, name, bytes, note, move || {
        buf.clear();
        encode(black_box(&value), &mut buf);
        black_box(&buf);
    })
}

/// The two cases of a codec that writes into a `Vec`: `encode` of `value` into one buffer,
/// reused, and `decode` of `bytes` (its encoding). `names` and `notes` go in that order.
fn vec_codec_cases<T: 'static, D>(
    peer: &'static str,
    names: [&'static str; 2],
    notes: [&'static str; 2],
    value: T,
    bytes: Vec<u8>,
    encode: impl FnMut(&T, &mut Vec<u8>) + 'static,
    decode: impl Fn(&[u8]) -> D + 'static,
) -> [Case; 2] {
    [
        encode_case(peer, names[0], bytes.len(), notes[0], value, encode),
        decode_case(peer, names[1], notes[1], bytes, decode),
    ]
}

/// The three cases of a codec that writes into a caller's slice: `encode` into one 64 KiB
/// slice, reused; `fresh` into a new allocation each time; `decode` of `bytes`. `notes` name
/// the calls, in that order.
fn slice_codec_cases<T: Clone + 'static, R, F, D>(
    peer: &'static str,
    value: &T,
    bytes: Vec<u8>,
    notes: [&str; 3],
    mut encode: impl FnMut(&T, &mut [u8]) -> R + 'static,
    fresh: impl Fn(&T) -> F + 'static,
    decode: impl Fn(&[u8]) -> D + 'static,
) -> [Case; 3] {
    let n = bytes.len();
    let v = value.clone();
    let mut buf = vec![0u8; 1 << 16];
    [
        case(peer, "encode", n, notes[0], move || {
            black_box(encode(black_box(&v), &mut buf));
        }),
        fresh_case(peer, n, notes[1], value.clone(), fresh),
        case(peer, "decode", n, notes[2], move || {
            black_box(decode(black_box(&bytes)));
        }),
    ]
}

/// A case that encodes `value` with `encode` into a fresh allocation each time.
fn fresh_case<T: 'static, R>(
    peer: &'static str,
    bytes: usize,
    note: impl Into<String>,
    value: T,
    encode: impl Fn(&T) -> R + 'static,
) -> Case {
    case(peer, "encode-fresh", bytes, note, move || {
        black_box(encode(black_box(&value)));
    })
}

/// A case that decodes `input` with `decode`.
fn decode_case<T>(
    peer: &'static str,
    name: &'static str,
    note: &'static str,
    input: Vec<u8>,
    decode: impl Fn(&[u8]) -> T + 'static,
) -> Case {
    case(peer, name, input.len(), note, move || {
        black_box(decode(black_box(&input)));
    })
}

/// Builds every case, checking first that each peer round-trips the data (and that the limit
/// and deku write exactly hopnet-codec's bytes).
fn cases() -> Vec<Case> {
    let snap = snapshot();
    let mut out = Vec::new();

    // rabbit: hopnet-snow-fight' derived impls.
    let rabbit_bytes = hopnet_codec::to_bytes(&snap).expect("rabbit encodes");
    let n = rabbit_bytes.len();
    assert_eq!(
        hopnet_codec::from_bytes::<Snapshot>(&rabbit_bytes).expect("rabbit decodes"),
        snap
    );
    assert_eq!(
        hopnet_codec::from_bytes::<Vec<Entity>>(&rabbit_bytes).expect("rabbit decodes"),
        snap.iter().cloned().collect::<Vec<_>>()
    );
    {
        // The snapshot's bytes are its entity list's: decoding them as a `Vec<Entity>` builds
        // what the peers build (a `Vec`); a `Snapshot` is that `Vec` in a struct.
        out.extend(vec_codec_cases(
            "rabbit",
            ["encode", "decode"],
            ["encode_into, reused Vec", "from_bytes::<Vec<Entity>>"],
            snap.clone(),
            rabbit_bytes.clone(),
            |v, buf| hopnet_codec::encode_into(v, buf).unwrap(),
            |b| hopnet_codec::from_bytes::<Vec<Entity>>(b).unwrap(),
        ));
        out.push(fresh_case("rabbit", n, "to_bytes", snap.clone(), |v| {
            hopnet_codec::to_bytes(v).unwrap()
        }));
        out.push(decode_case(
            "rabbit",
            "decode-snapshot",
            "from_bytes::<Snapshot> (its Vec<Entity>)",
            rabbit_bytes.clone(),
            |b| hopnet_codec::from_bytes::<Snapshot>(b).unwrap(),
        ));
    }

    // The hand-written limit for exactly this layout.
    {
        let mut lb = Vec::new();
        limit::encode(&snap, &mut lb);
        assert_eq!(lb, rabbit_bytes, "the limit writes hopnet-codec's bytes");
        assert_eq!(limit::decode(&lb).expect("limit decodes"), snap);
        out.extend(vec_codec_cases(
            "limit",
            ["encode", "decode"],
            ["hand-written, reused Vec", "hand-written, into Vec<Entity>"],
            snap.clone(),
            rabbit_bytes.clone(),
            limit::encode,
            |b| limit::decode_vec(b).unwrap(),
        ));
        out.push(decode_case(
            "limit",
            "decode-snapshot",
            "hand-written, into Snapshot",
            rabbit_bytes.clone(),
            |b| limit::decode(b).unwrap(),
        ));
    }

    let m = MSnapshot::from(&snap);

    // bitcode 0.6, its derive.
    {
        let bytes = bitcode::encode(&m);
        assert_eq!(bitcode::decode::<MSnapshot>(&bytes).unwrap(), m);
        let n = bytes.len();
        let v = m.clone();
        let mut buffer = bitcode::Buffer::new();
        out.push(case(
            "bitcode",
            "encode",
            n,
            "Buffer::encode, reused",
            move || {
                black_box(buffer.encode(black_box(&v)));
            },
        ));
        out.push(fresh_case(
            "bitcode",
            n,
            "bitcode::encode",
            m.clone(),
            bitcode::encode,
        ));
        out.push(decode_case(
            "bitcode",
            "decode",
            "bitcode::decode into Vec",
            bytes.clone(),
            |b| bitcode::decode::<MSnapshot>(b).unwrap(),
        ));
        let b = bytes;
        let mut buffer = bitcode::Buffer::new();
        out.push(case(
            "bitcode",
            "decode-reused",
            n,
            "Buffer::decode into Vec",
            move || {
                black_box(buffer.decode::<MSnapshot>(black_box(&b)).unwrap());
            },
        ));
    }

    // bincode 2, its derive, standard config (varint integers).
    {
        let cfg = bincode::config::standard();
        let bytes = bincode::encode_to_vec(&m, cfg).unwrap();
        let (back, _): (MSnapshot, usize) = bincode::decode_from_slice(&bytes, cfg).unwrap();
        assert_eq!(back, m);
        out.extend(slice_codec_cases(
            "bincode",
            &m,
            bytes,
            [
                "encode_into_slice, reused",
                "encode_to_vec",
                "decode_from_slice into Vec",
            ],
            move |v, buf| bincode::encode_into_slice(v, buf, cfg).unwrap(),
            move |v| bincode::encode_to_vec(v, cfg).unwrap(),
            move |b| -> (MSnapshot, usize) { bincode::decode_from_slice(b, cfg).unwrap() },
        ));
    }

    // postcard 1, serde.
    {
        let bytes = postcard::to_allocvec(&m).unwrap();
        assert_eq!(postcard::from_bytes::<MSnapshot>(&bytes).unwrap(), m);
        out.extend(slice_codec_cases(
            "postcard",
            &m,
            bytes,
            ["to_slice, reused", "to_allocvec", "from_bytes into Vec"],
            |v, buf| postcard::to_slice(v, buf).unwrap().len(),
            |v| postcard::to_allocvec(v).unwrap(),
            |b| postcard::from_bytes::<MSnapshot>(b).unwrap(),
        ));
    }

    // deku 0.20: the exact layout, varints through custom reader / writer.
    {
        let d = DSnapshot::from(&snap);
        let bytes = d.to_bytes().unwrap();
        let same = bytes == rabbit_bytes;
        let (_, back) = DSnapshot::from_bytes((&bytes, 0)).unwrap();
        assert_eq!(back, d);
        let layout = if same {
            "same bytes as rabbit"
        } else {
            "layout differs from rabbit"
        };
        out.extend(slice_codec_cases(
            "deku",
            &d,
            bytes,
            [
                &format!("to_slice, reused; {layout}"),
                "to_bytes",
                "from_bytes into Vec",
            ],
            |v, buf| v.to_slice(buf).unwrap(),
            |v| v.to_bytes().unwrap(),
            |b| DSnapshot::from_bytes((b, 0)).unwrap().1,
        ));
    }
    delta_cases(&mut out);
    out.extend(dogfight_cases());
    out.extend(server_cases());
    out
}

/// What game servers answer (`crate::servers`): an `A2S_INFO` response and a DNS query of four
/// questions, by hopnet-codec's derive, the hand-written codec and deku, all checked to write
/// and read the same bytes.
fn server_cases() -> Vec<Case> {
    use crate::servers::{DInfo, DMessage, hand, info, query};
    use hopnet_formats::dns::Message;
    use hopnet_formats::source_query::InfoResponse;

    let mut out = Vec::new();

    let v = info();
    let bytes = hopnet_codec::to_bytes(&v).expect("rabbit encodes");
    assert_eq!(hopnet_codec::from_bytes::<InfoResponse>(&bytes).unwrap(), v);
    let mut hb = Vec::new();
    hand::encode_info(&v, &mut hb).expect("hand encodes");
    assert_eq!(
        hb, bytes,
        "the hand-written encoder writes the derive's bytes"
    );
    assert_eq!(hand::decode_info(&bytes).expect("hand decodes"), v);
    let d = DInfo::from(&v);
    assert_eq!(
        d.to_bytes().unwrap(),
        bytes,
        "deku writes the derive's bytes"
    );
    assert_eq!(DInfo::from_bytes((&bytes, 0)).unwrap().1, d);
    let names = ["a2s-info-encode", "a2s-info-decode"];
    out.extend(vec_codec_cases(
        "rabbit",
        names,
        ["derive, encode_into, reused Vec", "derive, from_bytes"],
        v.clone(),
        bytes.clone(),
        |v, buf| hopnet_codec::encode_into(v, buf).unwrap(),
        |b| hopnet_codec::from_bytes::<InfoResponse>(b).unwrap(),
    ));
    out.extend(vec_codec_cases(
        "hand",
        names,
        ["hand-written, reused Vec", "hand-written"],
        v,
        bytes.clone(),
        |v, buf| hand::encode_info(v, buf).unwrap(),
        |b| hand::decode_info(b).unwrap(),
    ));
    out.extend(deku_cases::<DInfo>(names, d, bytes));

    let m = query();
    let bytes = hopnet_codec::to_bytes(&m).expect("rabbit encodes");
    assert_eq!(hopnet_codec::from_bytes::<Message>(&bytes).unwrap(), m);
    let mut hb = Vec::new();
    hand::encode_query(&m, &mut hb).expect("hand encodes");
    assert_eq!(
        hb, bytes,
        "the hand-written encoder writes the derive's bytes"
    );
    assert_eq!(hand::decode_query(&bytes).expect("hand decodes"), m);
    let d = DMessage::from(&m);
    assert_eq!(
        d.to_bytes().unwrap(),
        bytes,
        "deku writes the derive's bytes"
    );
    assert_eq!(DMessage::from_bytes((&bytes, 0)).unwrap().1, d);
    let names = ["dns-4q-encode", "dns-4q-decode"];
    out.extend(vec_codec_cases(
        "rabbit",
        names,
        ["derive, encode_into, reused Vec", "derive, from_bytes"],
        m.clone(),
        bytes.clone(),
        |v, buf| hopnet_codec::encode_into(v, buf).unwrap(),
        |b| hopnet_codec::from_bytes::<Message>(b).unwrap(),
    ));
    out.extend(vec_codec_cases(
        "hand",
        names,
        ["hand-written, reused Vec", "hand-written"],
        m,
        bytes.clone(),
        |v, buf| hand::encode_query(v, buf).unwrap(),
        |b| hand::decode_query(b).unwrap(),
    ));
    out.extend(deku_cases::<DMessage>(names, d, bytes));
    out
}

/// deku's encode (into a reused slice) and decode of a value that writes `bytes`.
fn deku_cases<T>(names: [&'static str; 2], value: T, bytes: Vec<u8>) -> [Case; 2]
where
    T: for<'a> DekuContainerRead<'a> + DekuContainerWrite + 'static,
{
    let mut buf = vec![0u8; bytes.len()];
    [
        case(
            "deku",
            names[0],
            bytes.len(),
            "to_slice, reused; same bytes",
            move || {
                black_box(black_box(&value).to_slice(&mut buf).unwrap());
            },
        ),
        case("deku", names[1], bytes.len(), "from_bytes", move || {
            black_box(T::from_bytes((black_box(&bytes), 0)).unwrap());
        }),
    ]
}

/// Dogfight's state (`crate::dogfight`): hopnet-codec's derive, the hand-written codec and deku, all
/// checked to write and read the same bytes; and the size of the state in Rabbit's packing.
fn dogfight_cases() -> Vec<Case> {
    use crate::dogfight::{DState, hand, state};
    use hopnet_formats::dogfight::State;
    use hopnet_formats::dogfight::packed;
    let s = state();
    let bytes = hopnet_codec::to_bytes(&s).expect("rabbit encodes");
    let n = bytes.len();
    assert_eq!(
        hopnet_codec::from_bytes::<State>(&bytes).expect("rabbit decodes"),
        s
    );
    let mut hb = Vec::new();
    hand::encode(&s, &mut hb);
    assert_eq!(
        hb, bytes,
        "the hand-written encoder writes the derive's bytes"
    );
    assert_eq!(hand::decode(&bytes).expect("hand decodes"), s);
    let d = DState::from(&s);
    assert_eq!(
        d.to_bytes().unwrap(),
        bytes,
        "deku writes the derive's bytes"
    );
    assert_eq!(DState::from_bytes((&bytes, 0)).unwrap().1, d);
    let p = packed::State::from(&s);
    let packed_bytes = hopnet_codec::to_bytes(&p).unwrap();
    assert_eq!(
        hopnet_codec::from_bytes::<packed::State>(&packed_bytes).unwrap(),
        p
    );

    let mut out = Vec::new();
    let names = ["dogfight-encode", "dogfight-decode"];
    out.extend(vec_codec_cases(
        "rabbit",
        names,
        ["derive, encode_into, reused Vec", "derive, from_bytes"],
        s.clone(),
        bytes.clone(),
        |v, buf| hopnet_codec::encode_into(v, buf).unwrap(),
        |b| hopnet_codec::from_bytes::<State>(b).unwrap(),
    ));
    out.extend(vec_codec_cases(
        "hand",
        names,
        ["hand-written, reused Vec", "hand-written"],
        s.clone(),
        bytes.clone(),
        hand::encode,
        |b| hand::decode(b).unwrap(),
    ));
    let v = d.clone();
    let mut dbuf = vec![0u8; n];
    out.push(case(
        "deku",
        "dogfight-encode",
        n,
        "to_slice, reused; same bytes",
        move || {
            black_box(black_box(&v).to_slice(&mut dbuf).unwrap());
        },
    ));
    let b = bytes;
    out.push(case(
        "deku",
        "dogfight-decode",
        n,
        "from_bytes",
        move || {
            black_box(DState::from_bytes((black_box(&b), 0)).unwrap());
        },
    ));
    out.push(encode_case(
        "rabbit",
        "dogfight-packed-encode",
        packed_bytes.len(),
        "the same state in Rabbit's bit-packing",
        p,
        |v, buf| hopnet_codec::encode_into(v, buf).unwrap(),
    ));
    out
}

/// `delta-10pct`: the snapshot after the suite's one ([`delta::successor`]), encoded against
/// it by hopnet-codec's delta, and whole by rabbit and bitcode; then the same delta in the other
/// layout (`per_field`) and with quantized positions, and the quantized snapshot whole.
fn delta_cases(out: &mut Vec<Case>) {
    const CASE: &str = "delta-10pct";
    let prev = delta::predecessor();
    let next = delta::successor(&prev);

    /// A case encoding `value` against `base`, checked first to decode back exactly.
    fn against<
        T: hopnet_codec::DeltaEncode
            + hopnet_codec::DeltaDecode
            + PartialEq
            + std::fmt::Debug
            + 'static,
    >(
        peer: &'static str,
        note: &str,
        value: T,
        base: T,
    ) -> Case {
        let bytes = hopnet_codec::delta::to_bytes(&value, &base).expect("encodes");
        assert_eq!(
            hopnet_codec::delta::from_bytes(&base, &bytes).expect("decodes"),
            value
        );
        let mut buf = Vec::with_capacity(bytes.len());
        case(peer, CASE, bytes.len(), note, move || {
            buf.clear();
            hopnet_codec::delta::encode_into(black_box(&value), black_box(&base), &mut buf)
                .unwrap();
            black_box(&buf);
        })
    }

    /// A case encoding `value` whole.
    fn whole<T: hopnet_codec::Encode + 'static>(peer: &'static str, note: &str, value: T) -> Case {
        let n = hopnet_codec::encoded_len(&value);
        let mut buf = Vec::with_capacity(n);
        case(peer, CASE, n, note, move || {
            buf.clear();
            hopnet_codec::encode_into(black_box(&value), &mut buf).unwrap();
            black_box(&buf);
        })
    }

    out.push(against(
        "rabbit",
        "delta::encode_into against the predecessor, reused Vec",
        next.clone(),
        prev.clone(),
    ));
    out.push(whole(
        "rabbit-full",
        "encode_into, reused Vec",
        next.clone(),
    ));
    let m = MSnapshot::from(&next);
    let n = bitcode::encode(&m).len();
    let mut buffer = bitcode::Buffer::new();
    out.push(case(
        "bitcode",
        CASE,
        n,
        "Buffer::encode, whole",
        move || {
            black_box(buffer.encode(black_box(&m)));
        },
    ));
    out.push(against(
        "rabbit-per-field",
        "delta, every struct per_field",
        delta::per_field::Snapshot::from(&next),
        delta::per_field::Snapshot::from(&prev),
    ));
    let quantized = delta::quantized::Snapshot::from(&next);
    out.push(against(
        "rabbit-quantized",
        "delta, positions quantized to 0.01 in 17 bits",
        quantized.clone(),
        delta::quantized::Snapshot::from(&prev),
    ));
    out.push(whole(
        "rabbit-quantized-full",
        "encode_into, positions quantized",
        quantized,
    ));
}

/// Runs the suite and returns its rows (ratios not yet filled in).
pub fn run(opts: &Options) -> Vec<Row> {
    let mut cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| {
            opts.only.is_empty()
                || c.peer.starts_with("rabbit")
                || c.peer == "limit"
                || c.peer == "hand"
                || opts.only.iter().any(|o| o == c.peer)
        })
        .collect();
    // Calibrate: a batch of about `opts.batch` for each case, after a warm-up.
    for c in &mut cases {
        (c.run)(3);
        let t = Instant::now();
        (c.run)(5);
        let per = t.elapsed().as_secs_f64() / 5.0;
        c.iters = ((opts.batch.as_secs_f64() / per.max(1e-9)) as u64).clamp(1, 100_000);
    }
    let n = cases.len();
    for round in 0..opts.rounds {
        for j in 0..n {
            // Rotate the order each round, and reverse it every other round.
            let idx = if round % 2 == 0 {
                (round / 2 + j) % n
            } else {
                (round / 2 + n - 1 - j) % n
            };
            let c = &mut cases[idx];
            let t = Instant::now();
            (c.run)(c.iters);
            let ns = t.elapsed().as_nanos() as f64 / c.iters as f64;
            c.samples.push(ns);
        }
    }
    cases
        .into_iter()
        .map(|mut c| {
            let med = median(&mut c.samples);
            let p10 = crate::report::quantile(&mut c.samples, 0.1);
            let p90 = crate::report::quantile(&mut c.samples, 0.9);
            let spread = match (med, p10, p90) {
                (Some(m), Some(a), Some(b)) if m > 0.0 => {
                    format!(
                        "p10–p90 {:+.0}%/{:+.0}%",
                        (a / m - 1.0) * 100.0,
                        (b / m - 1.0) * 100.0
                    )
                }
                _ => String::new(),
            };
            Row {
                suite: "codec",
                peer: c.peer.to_string(),
                case: c.case.to_string(),
                median_ns: med,
                bytes: c.bytes,
                ratio: None,
                note: if c.note.is_empty() {
                    spread
                } else {
                    format!("{}; {spread}", c.note)
                },
                bytes_ratio: false,
            }
        })
        .collect()
}
