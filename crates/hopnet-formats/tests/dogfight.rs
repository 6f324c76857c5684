//! Dogfight: the seed's example state and events, byte for byte as its Elixir `encode` and
//! `encode_event` write them.

mod common;

use hopnet_codec::Error;
use hopnet_codec::layout::Computed;
use hopnet_formats::dogfight::{
    Bullet, Direction, Event, Player, PowerUp, PowerUpKind, State, Status,
};

const ID: &str = "5afd1a7c-50c6-4a55-be57-0f02cef8e48e";

fn bullet(x: i32, y: i32, direction: Direction, active: bool) -> Bullet {
    Bullet {
        x,
        y,
        active,
        direction,
    }
}

/// The state the seed prints as its example.
fn example() -> State {
    State {
        total_length: Computed::new(),
        status: Status::InProgress,
        power_ups_size: Computed::new(),
        power_ups: vec![PowerUp {
            x: 407,
            y: 209,
            kind: PowerUpKind::HpPlusThree,
        }],
        players: vec![Player {
            x: 533,
            y: 353,
            hp: 5,
            alive: true,
            direction: Direction::Up,
            id: ID.into(),
            bullets: [
                bullet(343, 123, Direction::Up, true),
                bullet(241, 123, Direction::Up, true),
                bullet(167, 123, Direction::Up, true),
                bullet(101, 123, Direction::Up, true),
                bullet(0, 0, Direction::Idle, false),
            ],
        }],
    }
}

/// The bytes the seed's `encode` writes for [`example`], derived by reading it step by step:
///
/// - `encode_power_up`: `encode_list([{x, :double_word}, {y, :double_word}, {kind,
///   :half_word}])`, and `Helpers` writes `:double_word` as `<<v::integer-size(32)>>` (Elixir
///   integers are big-endian unless told otherwise) and `:half_word` as 8 bits;
///   `power_up_to_int(:hp_plus_three)` is 2. So 407, 209, 2: 9 bytes.
/// - `encode_spaceship`: x, y (32 bits each), hp, alive (1 for `alive?`), direction
///   (`direction_to_int(:up)` is 1; 8 bits each), the player id as a binary (its 36 bytes of
///   text), then each bullet's x, y (32 bits), active (1 or 0) and direction (8 bits):
///   4 + 4 + 1 + 1 + 1 + 36 + 5 * 10 = 97 bytes.
/// - `encode`: `total_length` is the ships' bytes (97) plus the power-ups' (9) plus
///   `double_word_size() + half_word_size() + word_size()`, which are 32 + 8 + 16: 162. Then
///   `total_length` in 32 bits, the status in 8 (`status_to_int(:in_progress)` is 1), the
///   power-ups' byte size in 16 (9), the power-ups, the ships.
fn example_bytes() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(162u32.to_be_bytes()); // total_length
    b.push(1); // status: in_progress
    b.extend(9u16.to_be_bytes()); // the power-ups' byte size
    b.extend(407i32.to_be_bytes()); // power-up x
    b.extend(209i32.to_be_bytes()); // power-up y
    b.push(2); // hp_plus_three
    b.extend(533i32.to_be_bytes()); // ship x
    b.extend(353i32.to_be_bytes()); // ship y
    b.extend([5, 1, 1]); // hp, alive, direction up
    b.extend(ID.as_bytes()); // the player id
    for x in [343i32, 241, 167, 101] {
        b.extend(x.to_be_bytes());
        b.extend(123i32.to_be_bytes());
        b.extend([1, 1]); // active, up
    }
    b.extend([0; 10]); // (0, 0), inactive, idle
    b
}

#[test]
fn the_example_state_is_the_seeds_bytes() {
    let bytes = example_bytes();
    assert_eq!(bytes.len(), 4 + 1 + 2 + 9 + 97);
    // The start, as a reader of the hex would check it.
    assert_eq!(
        bytes[..16],
        [0, 0, 0, 0xa2, 1, 0, 9, 0, 0, 1, 0x97, 0, 0, 0, 0xd1, 2]
    );
    common::both_ways(&example(), &bytes);
}

#[test]
fn total_length_counts_what_the_seed_counts() {
    // An empty state: no ships, no power-ups, and still 56.
    let empty = State {
        total_length: Computed::new(),
        status: Status::Unset,
        power_ups_size: Computed::new(),
        power_ups: vec![],
        players: vec![],
    };
    assert_eq!(
        hopnet_codec::to_bytes(&empty).unwrap(),
        [0, 0, 0, 56, 0, 0, 0]
    );
    // Two power-ups and two players: 2 * 9 + 2 * 97 + 56.
    let mut two = example();
    two.power_ups.push(two.power_ups[0]);
    two.players.push(two.players[0].clone());
    let bytes = hopnet_codec::to_bytes(&two).unwrap();
    assert_eq!(bytes[..4], (18u32 + 194 + 56).to_be_bytes());
    assert_eq!(bytes[5..7], 18u16.to_be_bytes());
    assert_eq!(hopnet_codec::from_bytes::<State>(&bytes).unwrap(), two);
}

#[test]
fn decoding_checks_the_lengths() {
    let bytes = example_bytes();
    // A total_length the payload does not make.
    let mut wrong = bytes.clone();
    wrong[3] = 0xa3;
    let err = hopnet_codec::from_bytes::<State>(&wrong).unwrap_err();
    assert!(matches!(err.root(), Error::Computed { .. }), "{err}");
    // A power-up size that cuts a power-up, or that runs past the end.
    for size in [8u16, 10, 200] {
        let mut wrong = bytes.clone();
        wrong[5..7].copy_from_slice(&size.to_be_bytes());
        assert!(hopnet_codec::from_bytes::<State>(&wrong).is_err(), "{size}");
    }
    // A ship cut short.
    assert!(hopnet_codec::from_bytes::<State>(&bytes[..bytes.len() - 1]).is_err());
    // A ship whose id is not UTF-8.
    let mut wrong = bytes.clone();
    wrong[16 + 11] = 0xff;
    assert!(matches!(
        hopnet_codec::from_bytes::<State>(&wrong)
            .unwrap_err()
            .root(),
        Error::InvalidUtf8 { .. }
    ));
    // `alive` is 0 or 1.
    let mut wrong = bytes.clone();
    wrong[16 + 9] = 2;
    assert!(hopnet_codec::from_bytes::<State>(&wrong).is_err());
}

#[test]
fn an_id_is_exactly_36_bytes() {
    let mut state = example();
    state.players[0].id.push('x');
    assert!(hopnet_codec::to_bytes(&state).is_err());
    state.players[0].id = "short".into();
    assert!(hopnet_codec::to_bytes(&state).is_err());
}

#[test]
fn events_are_the_seeds_bytes() {
    // `encode_event`: the action (`event_to_int`) in 8 bits, the direction for a move, then
    // the player id's bytes.
    let cases = [
        (
            Event::PlayerConnection {
                player_id: ID.into(),
            },
            vec![0u8],
        ),
        (
            Event::PlayerDisconnection {
                player_id: ID.into(),
            },
            vec![1],
        ),
        (
            Event::Move {
                direction: Direction::Left,
                player_id: ID.into(),
            },
            vec![2, 3],
        ),
        (
            Event::Shoot {
                player_id: ID.into(),
            },
            vec![3],
        ),
    ];
    for (event, mut bytes) in cases {
        bytes.extend(ID.as_bytes());
        common::both_ways(&event, &bytes);
    }
    assert!(hopnet_codec::from_bytes::<Event>(&[4; 37]).is_err());
    // A move whose direction is not one.
    let mut bytes = vec![2, 5];
    bytes.extend(ID.as_bytes());
    assert!(hopnet_codec::from_bytes::<Event>(&bytes).is_err());
}

#[test]
fn the_example_in_rabbits_packing() {
    use hopnet_formats::dogfight::packed;
    let packed = packed::State::from(&example());
    let bytes = hopnet_codec::to_bytes(&packed).unwrap();
    assert_eq!(
        hopnet_codec::from_bytes::<packed::State>(&bytes).unwrap(),
        packed
    );
    assert_eq!(packed.players[0].id[..4], [0x5a, 0xfd, 0x1a, 0x7c]);
    // 113 bytes in the seed's layout; the size here, printed for the record.
    println!(
        "the example: {} bytes in the seed's layout, {} bit-packed",
        example_bytes().len(),
        bytes.len()
    );
    assert!(bytes.len() < example_bytes().len() / 2);
}
