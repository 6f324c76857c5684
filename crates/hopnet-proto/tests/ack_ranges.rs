//! Acknowledgements on the extended wire: a lost ACK frame costs no retransmission (the next
//! frame repeats it), a sender that hears nothing probes before its retransmission timer, and
//! a sender whose window is full gets its acknowledgement at once.

use std::ops::Range;
use std::time::Duration;

use hopnet_proto::fuzzing::ext::datagram::{Frames, open};
use hopnet_proto::fuzzing::ext::frame::Frame;
use hopnet_proto::sim::{Batch, LinkConfig, Pair};
use hopnet_proto::{Config, ConfigBuilder, Delivery};

fn extended() -> ConfigBuilder {
    // No compression: the messages' sizes are the chunks' sizes.
    Config::builder()
        .extensions(true)
        .crc(false)
        .compression(false)
}

/// Loses everything the server sends, or nothing.
fn downlink(pair: &mut Pair, dead: bool) {
    let loss = if dead { 1.0 } else { 0.0 };
    let delay = Duration::ZERO;
    pair.network().set_downlink(LinkConfig {
        loss,
        delay,
        ..LinkConfig::default()
    });
}

/// An agreed pair whose client has a round-trip estimate (one reliable message went through).
fn agreed(config: Config) -> Pair {
    let mut pair = Pair::with_seed(5, config.clone(), config);
    pair.step(Duration::from_millis(50));
    assert!(pair.client().extensions().is_some());
    pair.client().send(b"warm", Delivery::Reliable).unwrap();
    pair.step(Duration::from_millis(10));
    assert_eq!(pair.server_messages(), [b"warm".to_vec()]);
    assert!(pair.client().stats().smoothed_rtt.is_some());
    pair
}

/// Messages `ids` (300 bytes each) reach the server and their acknowledgement (after
/// ack_delay, 2 ms) is lost: every one of them still pending.
fn send_with_ack_lost(pair: &mut Pair, ids: Range<u8>) {
    downlink(pair, true);
    let n = ids.len();
    for i in ids {
        pair.client().send(&[i; 300], Delivery::Reliable).unwrap();
    }
    pair.step(Duration::from_micros(2500));
    assert_eq!(pair.server_messages().len(), n);
    assert_eq!(pair.client().stats().pending_reliable, n as u64);
}

/// Nothing pending, nothing retransmitted.
fn assert_all_acknowledged(pair: &mut Pair) {
    let stats = pair.client().stats();
    assert_eq!(
        (stats.pending_reliable, stats.retransmissions),
        (0, 0),
        "{stats:?}"
    );
}

/// The frames of every datagram in `batches` from `from`.
fn frames_from(batches: &[Batch], from: std::net::SocketAddr) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for b in batches.iter().filter(|b| b.from == from) {
        for d in b.datagrams() {
            let Ok(frames) = open(d, false) else { continue };
            let kinds = Frames(frames)
                .flatten()
                .filter(|f| *f != Frame::Padding)
                .map(|f| match f {
                    Frame::Ack(_) => "ack".to_string(),
                    Frame::AckNow => "ack-now".to_string(),
                    Frame::Data(..) => "data".to_string(),
                    other => format!("{other:?}"),
                })
                .collect();
            out.push(kinds);
        }
    }
    out
}

#[test]
fn a_lost_ack_frame_is_repeated_by_the_next() {
    // The client probes late (its probe timeout counts its own ack_delay), so only the
    // server's next frame can make up for the lost one.
    let server = extended().build().unwrap();
    let client = extended()
        .ack_delay(Duration::from_millis(50))
        .build()
        .unwrap();
    let mut pair = Pair::with_seed(6, server, client);
    pair.step(Duration::from_millis(50));
    pair.client().send(b"warm", Delivery::Reliable).unwrap();
    pair.step(Duration::from_millis(10));
    assert_eq!(pair.server_messages().len(), 1);
    send_with_ack_lost(&mut pair, 0..10);
    // Five more: their acknowledgement covers the first ten too.
    downlink(&mut pair, false);
    for i in 10..15u8 {
        pair.client().send(&[i; 300], Delivery::Reliable).unwrap();
    }
    pair.step(Duration::from_micros(2500));
    assert_all_acknowledged(&mut pair);
    assert_eq!(pair.server_messages().len(), 5);
}

#[test]
fn a_sender_that_hears_nothing_probes_before_resending() {
    let mut pair = agreed(extended().build().unwrap());
    // Eight messages whose only acknowledgement is lost, and nothing more is sent.
    send_with_ack_lost(&mut pair, 0..8);
    downlink(&mut pair, false);
    pair.network().record_batches(true);
    // Well before the retransmission timeout (30 ms at least): a probe, its answer.
    pair.step(Duration::from_millis(10));
    let batches = pair.network().take_batches();
    let from_client = frames_from(&batches, pair.client_addr());
    assert!(
        from_client.iter().any(|d| d == &["ack-now".to_string()]),
        "{from_client:?}"
    );
    assert_all_acknowledged(&mut pair);
}

#[test]
fn a_full_window_asks_for_its_acknowledgement_at_once() {
    // Four chunks of window: every datagram of four fills it.
    let config = extended()
        .initial_window(4)
        .min_window(4)
        .max_window(4)
        .pacing(false)
        .build()
        .unwrap();
    let mut pair = agreed(config);
    pair.network().record_batches(true);
    for i in 0..8u8 {
        pair.client().send(&[i; 400], Delivery::Reliable).unwrap();
    }
    // No time passes: each window's acknowledgement must come at once, not after ack_delay.
    pair.drive();
    assert_eq!(pair.server_messages().len(), 8);
    let batches = pair.network().take_batches();
    let data = frames_from(&batches, pair.client_addr());
    assert_eq!(
        data[3].last().map(String::as_str),
        Some("ack-now"),
        "{data:?}"
    );
    let answers = frames_from(&batches, pair.server_addr());
    assert!(answers.iter().flatten().any(|f| f == "ack"), "{answers:?}");
}
