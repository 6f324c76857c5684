//! The same game state in Rabbit's own bit-packing: what the derive chooses when the layout is
//! free. Positions are zig-zag varints, the small enums take the fewest bits, flags one bit,
//! the id its 16 bytes, and the lists a count instead of a byte size and `total_length`. The
//! seed's example takes 113 bytes in its own layout and 48 here (`tests/dogfight.rs`); the
//! benchmark state (16 players, 20 power-ups) 1,739 and 818 (BENCHMARKS.md).

#![allow(missing_docs)]

use crate::dogfight as seed;
use hopnet_codec::Rabbit;

#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct State {
    #[rabbit(range = "0..=2")]
    pub status: u8,
    pub power_ups: Vec<PowerUp>,
    pub players: Vec<Player>,
}

#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct PowerUp {
    pub x: i32,
    pub y: i32,
    #[rabbit(range = "0..=3")]
    pub kind: u8,
}

#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct Bullet {
    pub x: i32,
    pub y: i32,
    pub active: bool,
    #[rabbit(range = "0..=4")]
    pub direction: u8,
}

#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct Player {
    pub x: i32,
    pub y: i32,
    pub hp: i8,
    pub alive: bool,
    #[rabbit(range = "0..=4")]
    pub direction: u8,
    /// The UUID's 128 bits.
    pub id: [u8; 16],
    pub bullets: [Bullet; 5],
}

/// The UUID text's 16 bytes (a missing or non-hex digit reads as 0).
fn uuid(text: &str) -> [u8; 16] {
    let hex: Vec<u8> = text.bytes().filter(|b| *b != b'-').collect();
    std::array::from_fn(|i| {
        let digit = |at: usize| {
            let c = hex.get(at).copied().unwrap_or(b'0');
            (c as char).to_digit(16).unwrap_or(0) as u8
        };
        digit(2 * i) << 4 | digit(2 * i + 1)
    })
}

impl From<&seed::State> for State {
    fn from(s: &seed::State) -> Self {
        let bullet = |b: &seed::Bullet| Bullet {
            x: b.x,
            y: b.y,
            active: b.active,
            direction: b.direction as u8,
        };
        State {
            status: s.status as u8,
            power_ups: s
                .power_ups
                .iter()
                .map(|p| PowerUp {
                    x: p.x,
                    y: p.y,
                    kind: p.kind as u8,
                })
                .collect(),
            players: s
                .players
                .iter()
                .map(|p| Player {
                    x: p.x,
                    y: p.y,
                    hp: p.hp,
                    alive: p.alive,
                    direction: p.direction as u8,
                    id: uuid(&p.id),
                    bullets: std::array::from_fn(|i| bullet(&p.bullets[i])),
                })
                .collect(),
        }
    }
}
