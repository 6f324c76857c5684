//! Every declared type: any value round-trips, every truncation of its bytes is an error, and
//! random bytes never panic.

use hopnet_codec::layout::Computed;
use hopnet_codec::{Decode, Encode};
use hopnet_formats::{dogfight, rtype, semi_ordered, woke};
use proptest::collection::vec;
use proptest::prelude::*;

fn reliability() -> impl Strategy<Value = semi_ordered::Reliability> {
    prop_oneof![
        Just(semi_ordered::Reliability::Unreliable),
        Just(semi_ordered::Reliability::Unordered),
        Just(semi_ordered::Reliability::SemiOrdered),
    ]
}

fn datagram() -> impl Strategy<Value = semi_ordered::Datagram> {
    prop_oneof![
        (
            reliability(),
            any::<bool>(),
            0u32..1 << 24,
            vec(any::<u8>(), 0..=semi_ordered::MAX_PAYLOAD)
        )
            .prop_map(|(reliability, server_targeted, id, payload)| {
                semi_ordered::Datagram::Package {
                    reliability,
                    server_targeted,
                    id,
                    payload,
                }
            }),
        vec((0u32..1 << 24).prop_map(semi_ordered::PackageId), 0..40)
            .prop_map(|ids| semi_ordered::Datagram::Confirmation { ids }),
    ]
}

fn direction() -> impl Strategy<Value = dogfight::Direction> {
    use dogfight::Direction::*;
    prop_oneof![Just(Idle), Just(Up), Just(Down), Just(Left), Just(Right)]
}

fn id() -> impl Strategy<Value = String> {
    "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
}

fn bullet() -> impl Strategy<Value = dogfight::Bullet> {
    (any::<i32>(), any::<i32>(), any::<bool>(), direction()).prop_map(
        |(x, y, active, direction)| dogfight::Bullet {
            x,
            y,
            active,
            direction,
        },
    )
}

fn player() -> impl Strategy<Value = dogfight::Player> {
    (
        (any::<i32>(), any::<i32>(), any::<i8>(), any::<bool>()),
        direction(),
        id(),
        [bullet(), bullet(), bullet(), bullet(), bullet()],
    )
        .prop_map(
            |((x, y, hp, alive), direction, id, bullets)| dogfight::Player {
                x,
                y,
                hp,
                alive,
                direction,
                id,
                bullets,
            },
        )
}

fn power_up() -> impl Strategy<Value = dogfight::PowerUp> {
    use dogfight::PowerUpKind::*;
    let kind = prop_oneof![
        Just(Unset),
        Just(HpPlusOne),
        Just(HpPlusThree),
        Just(AmmoPlusOne)
    ];
    (any::<i32>(), any::<i32>(), kind).prop_map(|(x, y, kind)| dogfight::PowerUp { x, y, kind })
}

fn state() -> impl Strategy<Value = dogfight::State> {
    use dogfight::Status::*;
    let status = prop_oneof![Just(Unset), Just(InProgress), Just(Closed)];
    (status, vec(power_up(), 0..8), vec(player(), 0..5)).prop_map(|(status, power_ups, players)| {
        dogfight::State {
            total_length: Computed::new(),
            status,
            power_ups_size: Computed::new(),
            power_ups,
            players,
        }
    })
}

fn event() -> impl Strategy<Value = dogfight::Event> {
    use dogfight::Event::*;
    prop_oneof![
        id().prop_map(|player_id| PlayerConnection { player_id }),
        id().prop_map(|player_id| PlayerDisconnection { player_id }),
        (direction(), id()).prop_map(|(direction, player_id)| Move {
            direction,
            player_id
        }),
        id().prop_map(|player_id| Shoot { player_id }),
    ]
}

fn header() -> impl Strategy<Value = woke::Header> {
    (any::<u16>(), any::<u16>(), any::<u16>(), any::<u32>()).prop_map(
        |(client_id, sequence, ack, ack_bitfield)| woke::Header {
            client_id,
            sequence,
            ack,
            ack_bitfield,
        },
    )
}

fn command() -> impl Strategy<Value = woke::Command> {
    let delivery = prop_oneof![
        Just(woke::Delivery::Unreliable),
        any::<u16>().prop_map(|reliable_id| woke::Delivery::Reliable { reliable_id }),
        any::<[u16; 4]>().prop_map(|[a, b, c, d]| woke::Delivery::Split {
            reliable_id: a,
            split_id: b,
            split_index: c,
            split_count: d,
        }),
    ];
    (0u16..1 << 10, delivery, vec(any::<u8>(), 0..40)).prop_map(|(kind, delivery, data)| {
        woke::Command {
            kind,
            delivery,
            data_size: Computed::new(),
            data,
        }
    })
}

fn packet() -> impl Strategy<Value = woke::Packet> {
    use woke::Packet::*;
    prop_oneof![
        (header(), vec(any::<u8>(), 0..40))
            .prop_map(|(header, payload)| ConnectionRequest { header, payload }),
        header().prop_map(|header| ConnectionClosed { header }),
        (header(), vec(command(), 0..6))
            .prop_map(|(header, commands)| Commands { header, commands }),
        header().prop_map(|header| KeepAlive { header }),
    ]
}

fn frame() -> impl Strategy<Value = rtype::Frame> {
    let action = (0u8..25)
        .prop_map(|i| hopnet_codec::from_bytes::<rtype::Action>(&[i]).expect("25 actions"));
    (action, prop_oneof![".{0,200}", "(SPRITE 1 2 ){0,30}"])
        .prop_map(|(action, message)| rtype::Frame::new(action, message))
}

/// Whether a format marks where a message ends (a length, a checksum, fixed sizes). A
/// datagram whose last field runs to its end (a payload, a list of ids or commands) does not:
/// cut between two items, it is a shorter message, as the seed's own receiver would read it.
#[derive(Clone, Copy, PartialEq)]
enum End {
    Marked,
    ToTheEnd,
}

/// The properties for one value: it round-trips, and every shorter prefix of its bytes is an
/// error; for a format whose last list runs to the end, a prefix may instead be a shorter
/// message, but then exactly that one: one that encodes to the prefix, never another reading
/// of the same bytes.
fn check<T: Encode + Decode + PartialEq + std::fmt::Debug>(
    value: &T,
    end: End,
) -> Result<(), TestCaseError> {
    let bytes = hopnet_codec::to_bytes(value).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&hopnet_codec::from_bytes::<T>(&bytes).unwrap(), value);
    for cut in 0..bytes.len() {
        match hopnet_codec::from_bytes::<T>(&bytes[..cut]) {
            Err(_) => {}
            Ok(shorter) => {
                prop_assert!(
                    end == End::ToTheEnd,
                    "a prefix of {} of {} bytes decoded",
                    cut,
                    bytes.len()
                );
                prop_assert_eq!(hopnet_codec::to_bytes(&shorter).unwrap(), &bytes[..cut]);
                prop_assert_ne!(&shorter, value);
            }
        }
    }
    Ok(())
}

/// One property test per declared type: `name: strategy => how its end is found`.
macro_rules! every_type_round_trips {
    ($($name:ident: $strategy:expr => $end:expr;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(200))]
            $(
                #[test]
                fn $name(value in $strategy) {
                    check(&value, $end)?;
                }
            )*
        }
    };
}

every_type_round_trips! {
    datagrams: datagram() => End::ToTheEnd;
    states: state() => End::Marked;
    events: event() => End::Marked;
    packets: packet() => End::ToTheEnd;
    frames: frame() => End::Marked;
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]


    #[test]
    fn random_bytes_never_panic(bytes in vec(any::<u8>(), 0..400)) {
        let _ = hopnet_codec::from_bytes::<semi_ordered::Datagram>(&bytes);
        let _ = hopnet_codec::from_bytes::<dogfight::State>(&bytes);
        let _ = hopnet_codec::from_bytes::<dogfight::Event>(&bytes);
        let _ = hopnet_codec::from_bytes::<woke::Packet>(&bytes);
        let _ = hopnet_codec::from_bytes::<rtype::Frame>(&bytes);
    }

    /// Random bytes behind each type's valid first bytes, so that decoding gets past them.
    #[test]
    fn random_bodies_never_panic(tail in vec(any::<u8>(), 0..400), kind in 0u8..4) {
        let with = |head: &[u8]| [head, &tail[..]].concat();
        let _ = hopnet_codec::from_bytes::<semi_ordered::Datagram>(&with(&[0x80, 0, 0, 0]));
        let _ = hopnet_codec::from_bytes::<semi_ordered::Datagram>(&with(&[0x40, 0, 0, 1]));
        let _ = hopnet_codec::from_bytes::<dogfight::State>(&with(&[0, 0, 0, 56, 1]));
        let _ = hopnet_codec::from_bytes::<woke::Packet>(&with(&[0x57, kind]));
        let _ = hopnet_codec::from_bytes::<rtype::Frame>(&with(&[3]));
    }
}

/// The one way a prefix decodes, written down: a list to the end cut between two items.
#[test]
fn a_list_to_the_end_cut_between_items_is_a_shorter_list() {
    let d = semi_ordered::Datagram::Confirmation {
        ids: vec![semi_ordered::PackageId(1), semi_ordered::PackageId(2)],
    };
    let bytes = hopnet_codec::to_bytes(&d).unwrap();
    let shorter = hopnet_codec::from_bytes::<semi_ordered::Datagram>(&bytes[..7]).unwrap();
    assert_eq!(
        shorter,
        semi_ordered::Datagram::Confirmation {
            ids: vec![semi_ordered::PackageId(1)]
        }
    );
    // Cut inside an id, it is an error.
    assert!(hopnet_codec::from_bytes::<semi_ordered::Datagram>(&bytes[..8]).is_err());
}
