//! Property tests: random messages round-trip through the encoding (and, with the `serde`
//! feature, through the JSON form), `encoded_bits` is exact, and random bytes never panic.

use hopnet_snow_fight::*;
use proptest::prelude::*;
use test_vectors::round_trip;

fn float() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(0.0f32),
        Just(-0.0f32),
        any::<f32>().prop_filter("finite", |f| f.is_finite()),
        (0u32..25_600).prop_map(|n| n as f32 / 100.0),
    ]
}

fn point() -> impl Strategy<Value = Point> {
    (float(), float(), float()).prop_map(|(x, y, z)| Point { x, y, z })
}

fn direction() -> impl Strategy<Value = Direction> {
    any::<u8>().prop_map(Direction::from_bits_retain)
}

fn entity_id() -> impl Strategy<Value = EntityId> {
    any::<u32>().prop_map(EntityId)
}

fn object() -> impl Strategy<Value = Object> {
    (
        point(),
        any::<bool>(),
        proptest::option::of(float()),
        any::<u32>(),
        any::<u32>(),
    )
        .prop_map(|(position, tree, durability, health, max_health)| Object {
            position,
            kind: if tree {
                ObjectKind::Tree
            } else {
                ObjectKind::Mushroom
            },
            durability,
            health,
            max_health,
        })
}

fn player() -> impl Strategy<Value = Player> {
    (
        point(),
        direction(),
        proptest::option::of(entity_id()),
        proptest::option::of(entity_id()),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
    )
        .prop_map(
            |(position, movement, holding, breaking, owner, health, max_health)| Player {
                position,
                movement,
                holding,
                breaking,
                owner: PlayerId(owner),
                health,
                max_health,
            },
        )
}

fn entity() -> impl Strategy<Value = Entity> {
    let kind = prop_oneof![
        object().prop_map(EntityKind::Object),
        player().prop_map(EntityKind::Player),
        Just(EntityKind::Dead),
    ];
    (entity_id(), kind).prop_map(|(id, kind)| Entity { id, kind })
}

fn snapshot() -> impl Strategy<Value = Snapshot> {
    proptest::collection::vec(entity(), 0..20).prop_map(Snapshot::from)
}

fn server_message() -> impl Strategy<Value = ServerMessage> {
    let event_kind = prop_oneof![
        snapshot().prop_map(EventKind::Snapshot),
        Just(EventKind::GameOver(GameOver::Lost)),
        Just(EventKind::GameOver(GameOver::Won)),
    ];
    let event = (any::<u32>(), event_kind).prop_map(|(time, kind)| Event { time, kind });
    let response_kind = prop_oneof![
        ".{0,20}".prop_map(|text: String| ResponseKind::Error(ErrorMessage::new(text))),
        Just(ResponseKind::Pong),
        (any::<u32>(), snapshot()).prop_map(|(player, snapshot)| {
            ResponseKind::Connect(Connect {
                player: PlayerId(player),
                snapshot,
            })
        }),
    ];
    let response = (any::<u32>(), response_kind).prop_map(|(channel, kind)| Response {
        channel: ChannelId(channel),
        kind,
    });
    prop_oneof![
        event.prop_map(ServerMessage::Event),
        response.prop_map(ServerMessage::Response),
    ]
}

fn client_message() -> impl Strategy<Value = ClientMessage> {
    let request = (any::<u32>(), any::<bool>()).prop_map(|(channel, init)| Request {
        channel: ChannelId(channel),
        kind: if init {
            RequestKind::Init
        } else {
            RequestKind::Ping
        },
    });
    let action = prop_oneof![
        proptest::option::of(entity_id()).prop_map(|entity| Action::Break(Break { entity })),
        point().prop_map(|target| Action::Throw(Throw { target })),
        direction().prop_map(|direction| Action::Move(Move { direction })),
    ];
    prop_oneof![
        request.prop_map(ClientMessage::Request),
        action.prop_map(ClientMessage::Action),
        any::<u32>().prop_map(ClientMessage::deltas),
    ]
}

/// The value written as JSON and read back.
#[cfg(feature = "serde")]
fn through_json<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> T {
    serde_json::from_str(&serde_json::to_string(value).unwrap()).unwrap()
}

proptest! {
    #[test]
    fn server_messages_round_trip(message in server_message()) {
        round_trip(&message);
        #[cfg(feature = "serde")]
        prop_assert_eq!(
            hopnet_codec::to_bytes(&through_json(&message)).unwrap(),
            hopnet_codec::to_bytes(&message).unwrap()
        );
    }

    #[test]
    fn client_messages_round_trip(message in client_message()) {
        round_trip(&message);
        #[cfg(feature = "serde")]
        prop_assert_eq!(through_json(&message), message);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = hopnet_codec::from_bytes::<ServerMessage>(&bytes);
        let _ = hopnet_codec::from_bytes::<ClientMessage>(&bytes);
        let _ = delta::decode(&bytes, &Snapshot::default());
    }

    /// A snapshot delta against any baseline (an unrelated one, or the same world with some
    /// entities changed, gone and new) decodes against it to exactly the snapshot.
    #[test]
    fn snapshot_deltas_decode_exactly(
        base in snapshot(),
        other in snapshot(),
        changes in proptest::collection::vec((any::<usize>(), 0u8..3), 0..6),
        header in (any::<u32>(), any::<u32>(), any::<u32>()),
    ) {
        let mut next = base.clone();
        for (at, what) in changes {
            let n = next.entities.len();
            let replacement = other.entities.get(at % other.len().max(1)).cloned();
            match (what, replacement) {
                (0, Some(e)) if n > 0 => next.entities[at % n].kind = e.kind,
                (1, _) if n > 0 => {
                    next.entities.remove(at % n);
                }
                (_, Some(e)) => next.entities.push(e),
                _ => {}
            }
        }
        let header = delta::DeltaHeader { channel: ChannelId(header.0), time: header.1, base: header.2 };
        for (value, base) in [(&next, &base), (&other, &base), (&base, &other)] {
            let mut bytes = Vec::new();
            header.encode(value, base, &mut bytes).unwrap();
            prop_assert_eq!(delta::DeltaHeader::of(&bytes), Some(header));
            let (read, back) = delta::decode(&bytes, base).unwrap();
            prop_assert_eq!(read, header);
            prop_assert_eq!(hopnet_codec::to_bytes(&back).unwrap(), hopnet_codec::to_bytes(value).unwrap());
        }
    }
}
