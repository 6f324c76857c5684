//! Hostile input to the codec, with resource bounds asserted: forged counts and lengths,
//! maximal messages, lists nested deep. Every test is short and deterministic, and states the
//! bound it asserts. Memory is measured where it is allocated, with a per-thread counting
//! allocator (`alloc-counter`), never the process RSS. The regression tests of the fuzzers'
//! findings are at the end (see `fuzz/README.md`). The transport's hostile tests are
//! hopnet's (`crates/hopnet-proto/tests/hostile.rs`).

use std::mem::size_of;

use alloc_counter::{Counting, peak_allocation};
use hopnet_codec::{BitWriter, Encode, Error};
use hopnet_snow_fight::{
    Action, Break, ChannelId, ClientMessage, Direction, Entity, EntityId, EntityKind, ErrorMessage,
    Move, Player, PlayerId, Point, Request, RequestKind, ResponseKind, ServerMessage, Snapshot,
    Throw,
};

/// The largest payload of the transport (hopnet's `MAX_PAYLOAD`: 256 chunks of 504 bytes),
/// the most a snapshot can take.
const MAX_PAYLOAD: usize = 256 * 504;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Room for a failed decode's error: a few boxed `InField` wrappers.
const ERROR_SLACK: usize = 1024;

/// The decoder's bound for a `ServerMessage` of `len` bytes: an entity takes at least 12 bits,
/// the list is read into a `Vec` (at most twice the items read, a reallocation briefly holding
/// both blocks) and copied into an `Arc<[Entity]>`, so at most `3 * (8 * len / 12)` entities'
/// worth of memory, i.e. `2 * size_of::<Entity>() * len` (fuzz/fuzz_targets/decode_messages.rs).
fn server_message_bound(len: usize) -> usize {
    2 * size_of::<Entity>() * len + ERROR_SLACK
}

/// The start of a forged `ServerMessage::Response` on channel 0: its variant, the channel,
/// and the `ResponseKind` of index `kind`.
fn response(w: &mut BitWriter<'_>, kind: u64) {
    w.write_bits(1, 1); // ServerMessage::Response
    w.write_varint(0, 4); // channel
    w.write_bits(kind, 2);
}

fn bits(f: impl FnOnce(&mut BitWriter<'_>)) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = BitWriter::new(&mut out);
    f(&mut w);
    w.finish();
    out
}

/// Bound: a 6-byte message claiming 4 billion entities fails with `CountTooLarge` having
/// allocated no more than an error (1 KiB), nothing for the entities.
#[test]
fn count_prefix_of_four_billion_in_six_bytes() {
    let forged = bits(|w| {
        w.write_bits(0, 1); // ServerMessage::Event
        w.write_varint(0, 4); // time
        w.write_bits(0, 1); // EventKind::Snapshot
        w.write_varint(4_000_000_000, 4); // the count
    });
    assert_eq!(forged.len(), 6);
    assert_eq!(forged_count(&forged), 4_000_000_000);

    // The same inside a Connect response, and for the std containers.
    let forged = bits(|w| {
        response(w, 2); // ResponseKind::Connect
        w.write_varint(0, 4); // player
        w.write_varint(u64::from(u32::MAX), 4);
    });
    forged_count(&forged);
    let forged = bits(|w| w.write_varint(4_000_000_000, 4));
    refused_cheaply::<Vec<u64>>(&forged);
    refused_cheaply::<Vec<()>>(&forged);
    refused_cheaply::<String>(&forged);
}

/// The count that `bytes`, a `ServerMessage` with a forged count, claims: the decoder refuses
/// it with `CountTooLarge`, having allocated no more than an error.
fn forged_count(bytes: &[u8]) -> u64 {
    let (result, peak) = peak_allocation(|| hopnet_codec::from_bytes::<ServerMessage>(bytes));
    assert!(peak <= ERROR_SLACK, "{peak} bytes allocated");
    let err = result.unwrap_err();
    match err.root() {
        Error::CountTooLarge { count, .. } => *count,
        other => panic!("{other}"),
    }
}

/// `bytes` fail to decode as a `T`, having allocated no more than an error.
fn refused_cheaply<T: hopnet_codec::Decode>(bytes: &[u8]) {
    let what = std::any::type_name::<T>();
    let (failed, peak) = peak_allocation(|| hopnet_codec::from_bytes::<T>(bytes).is_err());
    assert!(failed, "{what} accepted a forged count");
    assert!(peak <= ERROR_SLACK, "{what}: {peak} bytes allocated");
}

/// Bound: an `Error` text claiming 4 GiB with 2 bytes present fails with `CountTooLarge`,
/// having allocated no more than an error (1 KiB).
#[test]
fn error_text_claiming_four_gib() {
    let forged = bits(|w| {
        response(w, 0); // ResponseKind::Error
        w.write_varint(u64::from(u32::MAX), 4); // the text's length
        w.write_bytes(b"hi");
    });
    assert_eq!(forged_count(&forged), u64::from(u32::MAX));

    // A real text is held twice at most while it is decoded (the String, then the Arc<str>).
    let text = "é".repeat(50_000);
    let message = ServerMessage::response(7, ResponseKind::Error(ErrorMessage::new(&*text)));
    let bytes = hopnet_codec::to_bytes(&message).unwrap();
    let (decoded, peak) = peak_allocation(|| hopnet_codec::from_bytes::<ServerMessage>(&bytes));
    assert_eq!(decoded.unwrap(), message);
    assert!(
        peak <= 2 * text.len() + ERROR_SLACK,
        "{peak} bytes for a {}-byte text",
        text.len()
    );
}

fn maximal_player(id: u32) -> Entity {
    Entity::new(
        u32::MAX - id,
        Player {
            position: Point::new(f32::MAX, f32::MIN, f32::from_bits(0x7fc0_0001)),
            movement: Direction::from_bits_retain(0xff),
            holding: Some(EntityId(u32::MAX)),
            breaking: Some(EntityId(u32::MAX)),
            owner: PlayerId(u32::MAX),
            health: u32::MAX,
            max_health: u32::MAX,
        },
    )
}

/// Bounds: the largest client messages take exactly `ClientMessage::MAX_BITS` (one chunk); the
/// largest snapshots that fit one transport payload (129,024 bytes), of maximal players or of
/// minimal dead entities, decode within `2 * size_of::<Entity>()` bytes per input byte and come
/// back equal. (That a maximum payload crosses a connection is hopnet's test.)
#[test]
fn maximal_messages() {
    // Client messages: bounded, each variant at its largest.
    let point = Point::new(f32::MIN, -0.0, f32::from_bits(u32::MAX));
    let largest = [
        ClientMessage::Request(Request {
            channel: ChannelId(u32::MAX),
            kind: RequestKind::Init,
        }),
        ClientMessage::Action(Action::Break(Break {
            entity: Some(EntityId(u32::MAX)),
        })),
        ClientMessage::Action(Action::Throw(Throw { target: point })),
        ClientMessage::Action(Action::Move(Move {
            direction: Direction::from_bits_retain(0xff),
        })),
    ];
    let max_bits = ClientMessage::MAX_BITS.unwrap();
    assert!(max_bits <= 504 * 8);
    for m in &largest {
        let bytes = hopnet_codec::to_bytes(m).unwrap();
        assert!(m.encoded_bits() <= max_bits);
        let back = hopnet_codec::from_bytes::<ClientMessage>(&bytes).unwrap();
        assert_eq!(hopnet_codec::to_bytes(&back).unwrap(), bytes);
    }
    assert_eq!(
        largest.iter().map(Encode::encoded_bits).max(),
        Some(max_bits)
    );

    // A snapshot of maximal players filling one payload.
    let player_bits = maximal_player(0).encoded_bits();
    let players = (MAX_PAYLOAD as u64 * 8 - 64) / player_bits;
    let message = ServerMessage::snapshot(
        u32::MAX,
        (0..players as u32)
            .map(maximal_player)
            .collect::<Snapshot>(),
    );
    let bytes = hopnet_codec::to_bytes(&message).unwrap();
    assert!(bytes.len() <= MAX_PAYLOAD && bytes.len() > MAX_PAYLOAD - 64);
    let (decoded, peak) = peak_allocation(|| hopnet_codec::from_bytes::<ServerMessage>(&bytes));
    let decoded = decoded.unwrap();
    assert!(
        peak <= server_message_bound(bytes.len()),
        "{peak} bytes for {}",
        bytes.len()
    );
    assert_eq!(hopnet_codec::to_bytes(&decoded).unwrap(), bytes); // NaN payloads compared by bits

    // The cheapest entities: as many dead ones as fit, 12 bits each.
    let dead = (MAX_PAYLOAD * 8 - 64) / 12;
    let message = ServerMessage::snapshot(0, vec![Entity::new(0, EntityKind::Dead); dead].into());
    let dead_bytes = hopnet_codec::to_bytes(&message).unwrap();
    assert!(dead_bytes.len() <= MAX_PAYLOAD);
    let (decoded, peak) =
        peak_allocation(|| hopnet_codec::from_bytes::<ServerMessage>(&dead_bytes));
    assert_eq!(decoded.unwrap(), message);
    assert!(
        peak <= server_message_bound(dead_bytes.len()),
        "{peak} bytes for {} ({dead} entities)",
        dead_bytes.len()
    );
}

/// Bound: lists nested four deep, each level claiming as many items as the rest of the input
/// could hold, decode (or fail) within 64 bytes per input byte. The spec's messages have no
/// recursive types, so nesting depth, and the decoder's stack, is fixed by the schema.
#[test]
fn deeply_nested_lists_with_forged_counts() {
    type Nested = Vec<Vec<Vec<Vec<u32>>>>;
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    for len in [16usize, 256, 4096, 65_536] {
        for _ in 0..20 {
            // Counts as large as possible at each level, then noise.
            let mut data = bits(|w| {
                for _ in 0..4 {
                    w.write_varint((len as u64 * 8) / 10, 4);
                }
            });
            while data.len() < len {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                data.push((rng & 0x03) as u8); // mostly zero counts
            }
            let (result, peak) =
                peak_allocation(|| hopnet_codec::from_bytes::<Nested>(&data).is_ok());
            assert!(!result || data.len() >= 4);
            assert!(peak <= 64 * len + ERROR_SLACK, "{peak} bytes for {len}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Regressions of the fuzzers' findings (fuzz/README.md)

/// Fuzz finding (roundtrip): a list of more than 65,536 zero-bit items encoded, but the decoder
/// caps such lists at 65,536 (`hopnet_codec::limits::MAX_EMPTY_ITEMS`), so the bytes did not decode. Bound:
/// the encoder now refuses the same lists the decoder refuses.
#[test]
fn lists_of_zero_bit_items_encode_only_what_decodes() {
    let cap = hopnet_codec::limits::MAX_EMPTY_ITEMS as usize;
    let ok = hopnet_codec::to_bytes(&vec![(); cap]).unwrap();
    assert_eq!(hopnet_codec::from_bytes::<Vec<()>>(&ok).unwrap().len(), cap);
    let err = hopnet_codec::to_bytes(&vec![(); cap + 1]).unwrap_err();
    assert!(matches!(err.root(), Error::TooLong { .. }), "{err}");
    let err = hopnet_codec::to_bytes(
        &vec![Vec::<()>::new(); 3]
            .into_iter()
            .chain([vec![(); cap + 1]])
            .collect::<Vec<_>>(),
    )
    .unwrap_err();
    assert!(matches!(err.root(), Error::TooLong { .. }), "{err}");
}
