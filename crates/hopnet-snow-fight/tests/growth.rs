//! Growing the schema: adding a variant where the tag has room leaves every old encoding as it
//! was, so old encodings still decode (to the same variant) with the new type.

use hopnet_codec::{Encode, Rabbit};
use hopnet_snow_fight::{Action, ClientMessage, DeltaRequest, EntityId, Move, Point, Request};

/// A downstream enum, version 1: two variants, a tag of 3 bits reserved for up to 8.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[bits(3)]
enum EmoteV1 {
    Wave { at: EntityId },
    Bow,
}

/// Version 2: a variant added at the end, same tag width.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[bits(3)]
enum EmoteV2 {
    Wave { at: EntityId },
    Bow,
    Point { at: Point },
}

/// Without reserved room: the minimal tag of two variants is 1 bit ...
#[derive(Rabbit, Debug, Clone, PartialEq)]
enum TightV1 {
    Wave { at: EntityId },
    Bow,
}

/// ... and of three variants 2 bits: the old encodings change.
#[derive(Rabbit, Debug, Clone, PartialEq)]
enum TightV2 {
    Wave { at: EntityId },
    Bow,
    Point { at: Point },
}

/// A server that understands one more kind of client message than this crate: the spec's
/// `u32` tag of `ClientMessage` has room for it (as it had for `Deltas`, this crate's own).
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(tag = "varint")]
enum ExtendedClientMessage {
    Request(Request),
    Action(Action),
    Emote(EmoteV2),
    #[rabbit(index = 4)]
    Deltas(DeltaRequest),
}

/// The spec's own `ClientMessage`, as a client that knows nothing else declares it.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(tag = "varint")]
enum SpecClientMessage {
    Request(Request),
    Action(Action),
}

#[test]
fn reserved_tag_room_keeps_old_encodings() {
    let old = [
        (
            EmoteV1::Wave { at: EntityId(9) },
            EmoteV2::Wave { at: EntityId(9) },
        ),
        (EmoteV1::Bow, EmoteV2::Bow),
    ];
    for (v1, v2) in old {
        let bytes = hopnet_codec::to_bytes(&v1).unwrap();
        assert_eq!(hopnet_codec::from_bytes::<EmoteV2>(&bytes).unwrap(), v2);
        assert_eq!(
            hopnet_codec::to_bytes(&v2).unwrap(),
            bytes,
            "same bits both ways"
        );
    }
    assert_eq!(EmoteV1::MIN_BITS, EmoteV2::MIN_BITS);
    // A new variant is an unknown index to an old decoder: an error, not a misreading.
    let new = hopnet_codec::to_bytes(&EmoteV2::Point {
        at: Point::new(1.0, 2.0, 3.0),
    })
    .unwrap();
    assert!(hopnet_codec::from_bytes::<EmoteV1>(&new).is_err());
}

#[test]
fn without_reserved_room_the_encoding_changes() {
    let v1 = hopnet_codec::to_bytes(&TightV1::Wave { at: EntityId(9) }).unwrap();
    let v2 = hopnet_codec::to_bytes(&TightV2::Wave { at: EntityId(9) }).unwrap();
    assert_ne!(v1, v2);
    // The old bytes no longer mean the old message.
    assert_ne!(
        hopnet_codec::from_bytes::<TightV2>(&v1).ok(),
        Some(TightV2::Wave { at: EntityId(9) })
    );
    assert_eq!(TightV1::MIN_BITS + 1, TightV2::MIN_BITS);
}

#[test]
fn client_message_grows_without_breaking_old_clients() {
    let messages = [
        ClientMessage::ping(3),
        ClientMessage::init(u32::MAX),
        ClientMessage::Action(Action::Move(Move {
            direction: hopnet_snow_fight::Direction::NORTH,
        })),
    ];
    for message in messages {
        let bytes = hopnet_codec::to_bytes(&message).unwrap();
        let extended: ExtendedClientMessage = hopnet_codec::from_bytes(&bytes).unwrap();
        let (expected, spec) = match message {
            ClientMessage::Request(r) => (
                ExtendedClientMessage::Request(r),
                SpecClientMessage::Request(r),
            ),
            ClientMessage::Action(a) => (
                ExtendedClientMessage::Action(a),
                SpecClientMessage::Action(a),
            ),
            ClientMessage::Deltas(_) | ClientMessage::Scoped(_) => {
                unreachable!("not among the messages")
            }
        };
        assert_eq!(extended, expected);
        assert_eq!(hopnet_codec::to_bytes(&expected).unwrap(), bytes);
        // This crate's `ClientMessage` grew too: the spec's encodings are its own.
        assert_eq!(hopnet_codec::to_bytes(&spec).unwrap(), bytes);
    }
    // What the spec's type does not know is an unknown index to it, not another message.
    let deltas = hopnet_codec::to_bytes(&ClientMessage::deltas(4u32)).unwrap();
    assert!(hopnet_codec::from_bytes::<SpecClientMessage>(&deltas).is_err());
    // And the vectors of the spec's ClientMessage decode with the extended type too.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/messages.json");
    let text = std::fs::read_to_string(path).unwrap();
    let mut decoded = 0;
    for line in text.lines().filter(|l| l.contains("\"ClientMessage\"")) {
        let hex = line.rsplit("\"hex\": \"").next().unwrap();
        let hex = &hex[..hex.find('"').unwrap()];
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let old: ClientMessage = hopnet_codec::from_bytes(&bytes).unwrap();
        let new: ExtendedClientMessage = hopnet_codec::from_bytes(&bytes).unwrap();
        assert_eq!(
            hopnet_codec::to_bytes(&new).unwrap(),
            hopnet_codec::to_bytes(&old).unwrap()
        );
        decoded += 1;
    }
    assert!(decoded > 10);
}
