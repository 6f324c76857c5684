//! Dogfight's game state (`hopnet_formats::dogfight`) with 16 players and 20 power-ups,
//! encoded and decoded three ways, to the same bytes: hopnet-codec's derive (the byte-layout
//! attributes), deku declaring the same layout, and an encoder and decoder written by hand.
//! The same state declared in Rabbit's bit-packing (`hopnet_formats::dogfight::packed`) gives
//! the size of the layout Rabbit would choose.

use deku::prelude::*;
use hopnet_codec::layout::Computed;
use hopnet_formats::dogfight::{Bullet, Direction, Player, PowerUp, PowerUpKind, State, Status};

/// Players and power-ups in the benchmark state.
pub const PLAYERS: usize = 16;
pub const POWER_UPS: usize = 20;

/// A deterministic state: positions spread over a 1000 × 1000 map, a few bullets active.
pub fn state() -> State {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    };
    let direction = |d: u64| match d {
        0 => Direction::Idle,
        1 => Direction::Up,
        2 => Direction::Down,
        3 => Direction::Left,
        _ => Direction::Right,
    };
    let power_ups = (0..POWER_UPS)
        .map(|_| PowerUp {
            x: next(1000) as i32,
            y: next(1000) as i32,
            kind: match next(4) {
                0 => PowerUpKind::Unset,
                1 => PowerUpKind::HpPlusOne,
                2 => PowerUpKind::HpPlusThree,
                _ => PowerUpKind::AmmoPlusOne,
            },
        })
        .collect();
    let players = (0..PLAYERS)
        .map(|i| Player {
            x: next(1000) as i32,
            y: next(1000) as i32,
            hp: next(6) as i8,
            alive: next(4) != 0,
            direction: direction(next(5)),
            id: format!(
                "{:08x}-50c6-4a55-be57-{:012x}",
                0x5afd_1a7c + i,
                next(1 << 40)
            ),
            bullets: std::array::from_fn(|_| Bullet {
                x: next(1000) as i32,
                y: next(1000) as i32,
                active: next(2) == 1,
                direction: direction(next(5)),
            }),
        })
        .collect();
    State {
        total_length: Computed::new(),
        status: Status::InProgress,
        power_ups_size: Computed::new(),
        power_ups,
        players,
    }
}

/// The same layout hand-written: big-endian bytes appended to a `Vec`, and read back with a
/// cursor over the slice, every read checked.
pub mod hand {
    use super::*;

    fn direction(d: Direction) -> u8 {
        d as u8
    }

    /// Appends the state's bytes.
    pub fn encode(s: &State, out: &mut Vec<u8>) {
        let pu = s.power_ups.len() * 9;
        let total = pu + s.players.len() * 97 + 56;
        out.reserve(7 + pu + s.players.len() * 97);
        out.extend_from_slice(&(total as u32).to_be_bytes());
        out.push(s.status as u8);
        out.extend_from_slice(&(pu as u16).to_be_bytes());
        for p in &s.power_ups {
            out.extend_from_slice(&p.x.to_be_bytes());
            out.extend_from_slice(&p.y.to_be_bytes());
            out.push(p.kind as u8);
        }
        for p in &s.players {
            out.extend_from_slice(&p.x.to_be_bytes());
            out.extend_from_slice(&p.y.to_be_bytes());
            out.push(p.hp as u8);
            out.push(p.alive as u8);
            out.push(direction(p.direction));
            out.extend_from_slice(p.id.as_bytes());
            for b in &p.bullets {
                out.extend_from_slice(&b.x.to_be_bytes());
                out.extend_from_slice(&b.y.to_be_bytes());
                out.push(b.active as u8);
                out.push(direction(b.direction));
            }
        }
    }

    struct Cursor<'a>(&'a [u8]);

    impl<'a> Cursor<'a> {
        fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
            let (head, rest) = self.0.split_first_chunk::<N>()?;
            self.0 = rest;
            Some(*head)
        }
        fn u8(&mut self) -> Option<u8> {
            self.take::<1>().map(|[b]| b)
        }
        fn i32(&mut self) -> Option<i32> {
            self.take().map(i32::from_be_bytes)
        }
        fn bool(&mut self) -> Option<bool> {
            match self.u8()? {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            }
        }
        fn direction(&mut self) -> Option<Direction> {
            Some(match self.u8()? {
                0 => Direction::Idle,
                1 => Direction::Up,
                2 => Direction::Down,
                3 => Direction::Left,
                4 => Direction::Right,
                _ => return None,
            })
        }
    }

    /// Reads a state, checking what the derived decoder checks.
    pub fn decode(bytes: &[u8]) -> Option<State> {
        let mut c = Cursor(bytes);
        let total = u32::from_be_bytes(c.take()?);
        let status = match c.u8()? {
            0 => Status::Unset,
            1 => Status::InProgress,
            2 => Status::Closed,
            _ => return None,
        };
        let pu = u16::from_be_bytes(c.take()?) as usize;
        if !pu.is_multiple_of(9) || pu > c.0.len() {
            return None;
        }
        let mut power_ups = Vec::with_capacity(pu / 9);
        let (mut pc, rest) = (Cursor(&c.0[..pu]), &c.0[pu..]);
        while !pc.0.is_empty() {
            power_ups.push(PowerUp {
                x: pc.i32()?,
                y: pc.i32()?,
                kind: match pc.u8()? {
                    0 => PowerUpKind::Unset,
                    1 => PowerUpKind::HpPlusOne,
                    2 => PowerUpKind::HpPlusThree,
                    3 => PowerUpKind::AmmoPlusOne,
                    _ => return None,
                },
            });
        }
        c.0 = rest;
        let mut players = Vec::with_capacity(c.0.len() / 97);
        while !c.0.is_empty() {
            let x = c.i32()?;
            let y = c.i32()?;
            let hp = c.u8()? as i8;
            let alive = c.bool()?;
            let direction = c.direction()?;
            let id = std::str::from_utf8(&c.take::<36>()?).ok()?.to_string();
            let mut bullet = || -> Option<Bullet> {
                Some(Bullet {
                    x: c.i32()?,
                    y: c.i32()?,
                    active: c.bool()?,
                    direction: c.direction()?,
                })
            };
            let bullets = [bullet()?, bullet()?, bullet()?, bullet()?, bullet()?];
            players.push(Player {
                x,
                y,
                hp,
                alive,
                direction,
                id,
                bullets,
            });
        }
        if total as usize != pu + players.len() * 97 + 56 {
            return None;
        }
        Some(State {
            total_length: Computed::new(),
            status,
            power_ups_size: Computed::new(),
            power_ups,
            players,
        })
    }
}

/// The same layout declared with deku 0.20: big-endian, the power-ups read from their byte
/// size (`bytes_read`), the players to the end (`read_all`), the byte size and the total
/// length filled in by `update` before writing.
#[derive(Debug, Clone, PartialEq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct DState {
    pub total_length: u32,
    pub status: u8,
    #[deku(update = "self.power_ups.len() * 9")]
    pub power_ups_size: u16,
    #[deku(bytes_read = "*power_ups_size")]
    pub power_ups: Vec<DPowerUp>,
    #[deku(read_all)]
    pub players: Vec<DPlayer>,
}

// The nested types take the state's byte order from it.
each_with! {
    [
        #[derive(Debug, Clone, PartialEq, DekuRead, DekuWrite)]
        #[deku(
            endian = "endian",
            ctx = "endian: deku::ctx::Endian",
            ctx_default = "deku::ctx::Endian::Big"
        )]
    ]

    pub struct DPowerUp {
        pub x: i32,
        pub y: i32,
        pub kind: u8,
    }

    pub struct DBullet {
        pub x: i32,
        pub y: i32,
        pub active: u8,
        pub direction: u8,
    }

    pub struct DPlayer {
        pub x: i32,
        pub y: i32,
        pub hp: i8,
        pub alive: u8,
        pub direction: u8,
        pub id: [u8; 36],
        pub bullets: [DBullet; 5],
    }
}

impl From<&State> for DState {
    fn from(s: &State) -> Self {
        let bullet = |b: &Bullet| DBullet {
            x: b.x,
            y: b.y,
            active: b.active as u8,
            direction: b.direction as u8,
        };
        let mut d = DState {
            total_length: (s.power_ups.len() * 9 + s.players.len() * 97 + 56) as u32,
            status: s.status as u8,
            power_ups_size: 0,
            power_ups: s
                .power_ups
                .iter()
                .map(|p| DPowerUp {
                    x: p.x,
                    y: p.y,
                    kind: p.kind as u8,
                })
                .collect(),
            players: s
                .players
                .iter()
                .map(|p| DPlayer {
                    x: p.x,
                    y: p.y,
                    hp: p.hp,
                    alive: p.alive as u8,
                    direction: p.direction as u8,
                    id: p.id.as_bytes().try_into().expect("36-byte ids"),
                    bullets: std::array::from_fn(|i| bullet(&p.bullets[i])),
                })
                .collect(),
        };
        d.update().expect("deku updates the size");
        d
    }
}
