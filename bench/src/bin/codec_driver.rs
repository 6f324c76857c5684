//! A small driver for profilers (callgrind, perf): encodes or decodes the 1000-entity
//! snapshot N times with one codec, nothing else.
//!
//! `codec-driver (rabbit|limit|bitcode|bincode) (encode|decode|decode-vec|decode-players) N`;
//! `codec-driver (rabbit|hand|deku) (dogfight-encode|dogfight-decode) N`: Dogfight's state;
//! `codec-driver rabbit (delta|delta-decode) N`: the `delta-10pct` case;
//! `codec-driver rabbit (a2s-info-encode|a2s-info-decode|dns-4q-encode|dns-4q-decode) N`: the
//! server answers (`bench::servers`);
//! `codec-driver hand (a2s-info-decode|dns-4q-decode) N`: their hand-written decoders.

use std::hint::black_box;

use bench::codec::snapshot;
use bench::limit;
use bench::mirror::MSnapshot;
use hopnet_snow_fight::{Entity, EntityKind, Player, Snapshot};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (peer, op) = (
        args.first().map(String::as_str),
        args.get(1).map(String::as_str),
    );
    let n: u64 = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(1000);
    let snap = snapshot();
    let bytes = hopnet_codec::to_bytes(&snap).unwrap();
    let m = MSnapshot::from(&snap);
    let cfg = bincode::config::standard();
    let mut buf = Vec::with_capacity(1 << 16);
    match (peer, op) {
        (Some("rabbit"), Some(case @ ("a2s-info-encode" | "dns-4q-encode"))) => {
            let (info, query) = (bench::servers::info(), bench::servers::query());
            for _ in 0..n {
                buf.clear();
                if case.starts_with("a2s") {
                    hopnet_codec::encode_into(black_box(&info), &mut buf).unwrap();
                } else {
                    hopnet_codec::encode_into(black_box(&query), &mut buf).unwrap();
                }
                black_box(&buf);
            }
        }
        (Some("rabbit"), Some("a2s-info-decode")) => {
            let b = hopnet_codec::to_bytes(&bench::servers::info()).unwrap();
            for _ in 0..n {
                black_box(
                    hopnet_codec::from_bytes::<hopnet_formats::source_query::InfoResponse>(
                        black_box(&b),
                    )
                    .unwrap(),
                );
            }
        }
        (Some("rabbit"), Some("dns-4q-decode")) => {
            let b = hopnet_codec::to_bytes(&bench::servers::query()).unwrap();
            for _ in 0..n {
                black_box(
                    hopnet_codec::from_bytes::<hopnet_formats::dns::Message>(black_box(&b))
                        .unwrap(),
                );
            }
        }
        (Some("hand"), Some("a2s-info-decode")) => {
            let b = hopnet_codec::to_bytes(&bench::servers::info()).unwrap();
            for _ in 0..n {
                black_box(bench::servers::hand::decode_info(black_box(&b)).unwrap());
            }
        }
        (Some("hand"), Some("dns-4q-decode")) => {
            let b = hopnet_codec::to_bytes(&bench::servers::query()).unwrap();
            for _ in 0..n {
                black_box(bench::servers::hand::decode_query(black_box(&b)).unwrap());
            }
        }
        (Some("rabbit"), Some("encode")) => {
            for _ in 0..n {
                buf.clear();
                hopnet_codec::encode_into(black_box(&snap), &mut buf).unwrap();
                black_box(&buf);
            }
        }
        (Some("rabbit"), Some("decode")) => {
            for _ in 0..n {
                black_box(hopnet_codec::from_bytes::<Snapshot>(black_box(&bytes)).unwrap());
            }
        }
        (Some("rabbit"), Some("decode-vec")) => {
            for _ in 0..n {
                black_box(hopnet_codec::from_bytes::<Vec<Entity>>(black_box(&bytes)).unwrap());
            }
        }
        (Some("rabbit"), Some("decode-players")) => {
            // 1000 records shaped like the spec's Player (the rabbit crate's own bench shape).
            let players: Vec<Player> = snap
                .iter()
                .filter_map(|e| match &e.kind {
                    EntityKind::Player(p) => Some(p.clone()),
                    _ => None,
                })
                .cycle()
                .take(1000)
                .collect();
            let pb = hopnet_codec::to_bytes(&players).unwrap();
            for _ in 0..n {
                black_box(hopnet_codec::from_bytes::<Vec<Player>>(black_box(&pb)).unwrap());
            }
        }
        (Some("limit"), Some("decode-vec")) => {
            for _ in 0..n {
                black_box(limit::decode_vec(black_box(&bytes)).unwrap());
            }
        }
        (Some("limit"), Some("encode")) => {
            for _ in 0..n {
                buf.clear();
                limit::encode(black_box(&snap), &mut buf);
                black_box(&buf);
            }
        }
        (Some("limit"), Some("decode")) => {
            for _ in 0..n {
                black_box(limit::decode(black_box(&bytes)).unwrap());
            }
        }
        (Some("rabbit"), Some("delta")) => {
            // `delta-10pct`: the successor against the suite's snapshot.
            let next = bench::delta::successor(&snap);
            for _ in 0..n {
                buf.clear();
                hopnet_codec::delta::encode_into(black_box(&next), black_box(&snap), &mut buf)
                    .unwrap();
                black_box(&buf);
            }
        }
        (Some("rabbit"), Some("delta-decode")) => {
            let next = bench::delta::successor(&snap);
            let bytes = hopnet_codec::delta::to_bytes(&next, &snap).unwrap();
            for _ in 0..n {
                black_box(
                    hopnet_codec::delta::from_bytes(black_box(&snap), black_box(&bytes)).unwrap(),
                );
            }
        }
        (
            Some(peer @ ("rabbit" | "hand" | "deku")),
            Some(op @ ("dogfight-encode" | "dogfight-decode")),
        ) => dogfight(peer, op, n),
        (Some("bitcode"), Some("encode")) => {
            let mut b = bitcode::Buffer::new();
            for _ in 0..n {
                black_box(b.encode(black_box(&m)));
            }
        }
        (Some("bitcode"), Some("decode")) => {
            let bc = bitcode::encode(&m);
            let mut b = bitcode::Buffer::new();
            for _ in 0..n {
                black_box(b.decode::<MSnapshot>(black_box(&bc)).unwrap());
            }
        }
        (Some("bincode"), Some("encode")) => {
            let mut slice = vec![0u8; 1 << 16];
            for _ in 0..n {
                black_box(bincode::encode_into_slice(black_box(&m), &mut slice, cfg).unwrap());
            }
        }
        (Some("bincode"), Some("decode")) => {
            let bc = bincode::encode_to_vec(&m, cfg).unwrap();
            for _ in 0..n {
                let r: (MSnapshot, usize) =
                    bincode::decode_from_slice(black_box(&bc), cfg).unwrap();
                black_box(r);
            }
        }
        _ => {
            eprintln!(
                "usage: codec-driver (rabbit|limit|bitcode|bincode) (encode|decode|decode-vec|decode-players) N\n       codec-driver (rabbit|hand|deku) (dogfight-encode|dogfight-decode) N"
            );
            std::process::exit(2);
        }
    }
}

/// Dogfight's state (`bench::dogfight`), `n` times.
fn dogfight(peer: &str, op: &str, n: u64) {
    use bench::dogfight::{DState, hand, state};
    use deku::{DekuContainerRead, DekuContainerWrite};
    use hopnet_formats::dogfight::State;
    let s = state();
    let bytes = hopnet_codec::to_bytes(&s).unwrap();
    let d = DState::from(&s);
    let mut buf = Vec::with_capacity(bytes.len());
    let mut slice = vec![0u8; bytes.len()];
    for _ in 0..n {
        match (peer, op) {
            ("rabbit", "dogfight-encode") => {
                buf.clear();
                hopnet_codec::encode_into(black_box(&s), &mut buf).unwrap();
                black_box(&buf);
            }
            ("rabbit", _) => {
                black_box(hopnet_codec::from_bytes::<State>(black_box(&bytes)).unwrap());
            }
            ("hand", "dogfight-encode") => {
                buf.clear();
                hand::encode(black_box(&s), &mut buf);
                black_box(&buf);
            }
            ("hand", _) => {
                black_box(hand::decode(black_box(&bytes)).unwrap());
            }
            (_, "dogfight-encode") => {
                black_box(black_box(&d).to_slice(&mut slice).unwrap());
            }
            _ => {
                black_box(DState::from_bytes((black_box(&bytes), 0)).unwrap());
            }
        }
    }
}
