//! Extending the protocol with messages of your own, in your own crate.
//!
//! A game built on the toolkit declares its messages with `#[derive(Rabbit)]`, using the types of
//! `hopnet_snow_fight` as fields, and plans for growth:
//!
//! - an enum that will gain variants gets a tag wider than it needs today (`#[bits(N)]`), so that
//!   a new variant leaves every old encoding as it was;
//! - the spec's `ClientMessage` tag is a `u32`, so a server can accept a superset of it, and
//!   clients that know only the spec's messages keep working unchanged;
//! - a message that must fit one chunk proves it at compile time with `MAX_BITS`.
//!
//! Run with `cargo run --example custom_message`.

use hopnet_codec::schema::Describe;
use hopnet_codec::{Encode, Rabbit};
use hopnet_snow_fight::notation::Definition;
use hopnet_snow_fight::{Action, ClientMessage, EntityId, PlayerId, Point, Request};

/// A line of chat from one player to everyone.
#[derive(Rabbit, Debug, Clone, PartialEq)]
struct Chat {
    /// Who speaks.
    from: PlayerId,
    /// What they say, at most 200 bytes of UTF-8.
    #[rabbit(max_len = 200)]
    text: String,
}

/// A gesture of a player's avatar.
///
/// Two gestures exist today; the 4-bit tag leaves room for 14 more without changing how these
/// two are encoded.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[bits(4)]
enum Emote {
    /// Wave at an entity.
    Wave {
        /// The entity waved at.
        at: EntityId,
    },
    /// Point at a place in the world.
    PointAt {
        /// The place.
        target: Point,
    },
}

/// What clients of this game send: the spec's two kinds of client message, then our own.
///
/// The tag is the spec's `u32`, and the spec's variants keep their indices 0 and 1, so every
/// encoding of a `hopnet_snow_fight::ClientMessage` is also an encoding of this type.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(tag = "varint")]
enum GameClientMessage {
    /// A request of the spec.
    Request(Request),
    /// An action of the spec.
    Action(Action),
    /// Our chat line.
    Chat(Chat),
    /// Our gestures.
    Emote(Emote),
}

/// One 504-byte chunk of the transport, in bits.
const CHUNK_BITS: u64 = 504 * 8;

// Proven when the example compiles: a chat line or emote always fits one chunk, so it never
// needs reassembly (and cannot be made to by a long text).
const _: () = assert!(match GameClientMessage::MAX_BITS {
    Some(bits) => bits <= CHUNK_BITS,
    None => false,
});

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn main() -> Result<(), hopnet_codec::Error> {
    // A stock client sends a spec message; our server reads it as its own type.
    let stock = ClientMessage::ping(7);
    let bytes = hopnet_codec::to_bytes(&stock)?;
    let ours: GameClientMessage = hopnet_codec::from_bytes(&bytes)?;
    println!("stock ping      {:<30} -> {ours:?}", hex(&bytes));
    assert!(matches!(ours, GameClientMessage::Request(_)));

    // Our own messages.
    let chat = GameClientMessage::Chat(Chat {
        from: PlayerId(3),
        text: "gg".into(),
    });
    let wave = GameClientMessage::Emote(Emote::Wave { at: EntityId(42) });
    for message in [&chat, &wave] {
        let bytes = hopnet_codec::to_bytes(message)?;
        assert_eq!(
            &hopnet_codec::from_bytes::<GameClientMessage>(&bytes)?,
            message
        );
        println!(
            "{:<15} {:<30} ({} bits)",
            "ours",
            hex(&bytes),
            message.encoded_bits()
        );
    }

    // Too long a chat line is refused when encoding, and would be refused when decoding.
    let shout = GameClientMessage::Chat(Chat {
        from: PlayerId(3),
        text: "A".repeat(201),
    });
    println!(
        "too long        {}",
        hopnet_codec::to_bytes(&shout).unwrap_err()
    );

    println!(
        "at most {} bits per message (one chunk holds {CHUNK_BITS})",
        GameClientMessage::MAX_BITS.unwrap_or(u64::MAX)
    );

    // The new messages document themselves in the spec's notation.
    println!();
    for def in [
        Definition::of(&GameClientMessage::type_schema()),
        Definition::of(&Chat::type_schema()),
        Definition::of(&Emote::type_schema()),
    ] {
        println!("{def}");
    }
    Ok(())
}
