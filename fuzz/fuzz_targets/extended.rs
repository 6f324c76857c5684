//! An agreed extended connection (hopnet's `sim::Pair`) whose server is fed arbitrary frames
//! from its client's address, sealed as the agreement says (marker, and the CRC when agreed,
//! so that the fuzzer's bytes reach the frame parser), or arbitrary raw datagrams, with time
//! passing and the real client sending messages of every delivery mode:
//!
//! - nothing panics;
//! - the server's reassembly memory (`Stats::reassembly_bytes`: partial payloads, messages held
//!   back for ordering, delivered payloads not yet polled) stays within the documented
//!   ceiling: the budget, one maximum payload for the message the others wait for, one
//!   decompressed message, bookkeeping;
//! - every frame that parses encodes back to exactly its bytes (one encoding per frame);
//! - a compressed message's decompression never panics nor gives more than a maximum payload.
//!
//! The input's first byte picks the agreement (every extension at 1,472-byte datagrams, or
//! none at 508); the rest is a program of operations (see `gen_corpus.py`).

#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use hopnet_fuzz::input::Input;
use hopnet_proto::fuzzing::ext::compress::decompress;
use hopnet_proto::fuzzing::ext::datagram::{Frames, begin, seal};
use hopnet_proto::fuzzing::ext::frame::{Frame, write_ack};
use hopnet::sim::Pair;
use hopnet::{Config, Delivery, MAX_PAYLOAD};

/// The smallest reassembly budget hopnet allows, so that the fuzzer reaches it quickly.
const BUDGET: usize = MAX_PAYLOAD;
const CEILING: u64 = (BUDGET + 2 * MAX_PAYLOAD + 4096) as u64;
const MAX_PENDING: usize = 8;

fn config(all: bool) -> Config {
    let b = Config::builder()
        .extensions(true)
        .max_reassembly_bytes(BUDGET)
        .max_pending_reliable(MAX_PENDING);
    let b = if all {
        b.max_datagram_size(1472)
    } else {
        b.batching(false)
            .ack_ranges(false)
            .crc(false)
            .compression(false)
    };
    b.build().expect("valid config")
}

/// Every frame that parses encodes back to its own bytes; a compressed data frame's body
/// decompresses within bounds or is an error.
fn check_frames(frames: &[u8]) {
    let mut rest = frames;
    for frame in Frames(frames) {
        let Ok(frame) = frame else { break };
        let mut again = Vec::new();
        match frame {
            Frame::Padding => again.push(0x00),
            Frame::Ping => again.push(0x01),
            Frame::Close => again.push(0x02),
            Frame::AckNow => again.push(0x04),
            Frame::Ack(ack) => {
                let ranges: Vec<_> = ack.ranges().collect();
                write_ack(&mut again, ack.delay_micros, &ranges);
            }
            Frame::Data(header, data) => {
                header.write(&mut again, data);
                if header.compressed
                    && let Ok(out) = decompress(data)
                {
                    assert!(out.len() <= MAX_PAYLOAD);
                }
            }
        }
        assert_eq!(
            &rest[..again.len()],
            &again[..],
            "{frame:?} re-encodes otherwise"
        );
        rest = &rest[again.len()..];
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let all = input.byte() & 1 == 1;
    let config = config(all);
    let crc = config.extensions().is_some_and(|e| e.crc);
    let mut pair = Pair::with_seed(7, config.clone(), config);
    pair.step(Duration::from_millis(50));
    let id = pair.id();
    let (client, server) = (pair.client_addr(), pair.server_addr());
    let mut ops = 0;
    while !input.is_empty() && ops < 2000 {
        ops += 1;
        match input.byte() % 6 {
            0 => {
                // Frames, sealed as agreed.
                let n = usize::from(input.u16() % 1600);
                let frames = input.bytes(n);
                check_frames(&frames);
                let mut d = Vec::new();
                let start = begin(&mut d);
                d.extend_from_slice(&frames);
                seal(&mut d, start, crc, 0);
                pair.network().inject(client, server, d);
            }
            1 => {
                // A raw datagram.
                let n = usize::from(input.u16() % 1600);
                let d = input.bytes(n);
                pair.network().inject(client, server, d);
            }
            2 => pair.step(Duration::from_millis(u64::from(input.u16() % 2000))),
            3 => {
                let mode = Delivery::ALL[usize::from(input.byte()) % Delivery::ALL.len()];
                let len = usize::from(input.u16()) * 2;
                let _ = pair.client().send(&vec![0x5a; len], mode);
            }
            4 => {
                pair.server_messages();
                pair.client_messages();
            }
            _ => pair.drive(),
        }
        pair.drive();
        let Some(stats) = pair.server().stats(id) else {
            // A close frame ended the connection, as it should.
            return;
        };
        assert!(
            stats.reassembly_bytes <= CEILING,
            "reassembly {} > {CEILING}",
            stats.reassembly_bytes
        );
        assert!(stats.pending_reliable <= MAX_PENDING as u64);
    }
});
