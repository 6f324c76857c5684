//! R-TYPE: the frame's layout with its LZ4 body and four CRC32s, each checked on decode, and
//! the bound on decompression.

mod common;

use hopnet_codec::Error;
use hopnet_formats::rtype::{Action, Frame, MAX_MESSAGE};

/// The frame's bytes built by hand from the RFC's layout, with the crates' own LZ4 and CRC32:
/// what the derived encoder must write.
fn by_hand(action: u8, message: &str) -> Vec<u8> {
    let compressed = lz4_flex::block::compress(message.as_bytes());
    let original_size = (message.len() as u32).to_le_bytes();
    let compressed_size = (compressed.len() as u32).to_le_bytes();
    let mut b = vec![action];
    b.extend(original_size);
    b.extend(compressed_size);
    b.extend(&compressed);
    b.extend(crc32fast::hash(message.as_bytes()).to_le_bytes());
    b.extend(crc32fast::hash(&compressed_size).to_le_bytes());
    b.extend(crc32fast::hash(&original_size).to_le_bytes());
    b.extend(crc32fast::hash(&[action]).to_le_bytes());
    b
}

#[test]
fn frames_are_the_rfcs_layout() {
    let long = "SPRITE 12 340 560 ".repeat(20);
    for (action, code, message) in [
        (Action::List, 3u8, "A RTPE 0 4 4240 0"),
        (Action::Ping, 14, ""),
        (Action::Sprite, 16, long.as_str()),
        (Action::Key, 24, "é"),
    ] {
        let frame = Frame::new(action, message);
        let bytes = by_hand(code, message);
        common::both_ways(&frame, &bytes);
    }
    // The repeated text compresses.
    assert!(by_hand(16, &long).len() < long.len());
}

#[test]
fn each_crc_is_checked() {
    let bytes = by_hand(1, "JOIN 4240");
    let end = bytes.len();
    for (crc, field) in [
        (4, "crc_message"),
        (3, "crc_compressed_size"),
        (2, "crc_original_size"),
        (1, "crc_action"),
    ] {
        let mut wrong = bytes.clone();
        wrong[end - 4 * crc] ^= 1;
        let err = hopnet_codec::from_bytes::<Frame>(&wrong).unwrap_err();
        match err.root() {
            Error::Computed { field: f, .. } => assert_eq!(*f, format!("Frame.{field}")),
            other => panic!("{field}: {other}"),
        }
    }
}

#[test]
fn decompression_is_bounded() {
    let bytes = by_hand(17, "TEXT hello");
    // A frame claiming 4 GiB, and one claiming more than its compressed bytes can hold: both
    // refused before anything is reserved for them.
    for claim in [u32::MAX, MAX_MESSAGE + 1, 5_000] {
        let mut wrong = bytes.clone();
        wrong[1..5].copy_from_slice(&claim.to_le_bytes());
        let err = hopnet_codec::from_bytes::<Frame>(&wrong).unwrap_err();
        assert!(
            matches!(err.root(), Error::TooLong { .. }),
            "{claim}: {err}"
        );
    }
    // A size that disagrees with what the bytes decompress to.
    let mut wrong = bytes.clone();
    wrong[1] += 1;
    assert!(hopnet_codec::from_bytes::<Frame>(&wrong).is_err());
    // A compressed size past the end, and corrupt LZ4.
    let mut wrong = bytes.clone();
    wrong[5] = 0xff;
    assert!(hopnet_codec::from_bytes::<Frame>(&wrong).is_err());
    let mut wrong = bytes.clone();
    wrong[9] = 0xff;
    assert!(hopnet_codec::from_bytes::<Frame>(&wrong).is_err());
}

#[test]
fn a_message_over_the_bound_does_not_encode() {
    let frame = Frame::new(Action::Text, "x".repeat(MAX_MESSAGE as usize + 1));
    assert!(hopnet_codec::to_bytes(&frame).is_err());
}
