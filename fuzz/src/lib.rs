//! Helpers shared by the fuzz targets: bit-exact equality, builders of arbitrary game messages,
//! the transport targets' input reader, and a "kitchen sink" of derived types that uses every
//! attribute of `#[derive(Rabbit)]`. (The counting allocator is the `alloc-counter` crate's,
//! shared with the tests.)

pub mod input;

use std::sync::Arc;

use arbitrary::{Arbitrary, Result, Unstructured};
use hopnet_snow_fight::*;
use hopnet_codec::Rabbit;

// ---------------------------------------------------------------------------------------------
// Bit-exact equality: floats compare by their bits, so NaN payloads and -0.0 count.

/// Equality where floats compare by their IEEE-754 bits.
pub trait BitEq {
    /// Whether `self` and `other` are the same bits.
    fn bit_eq(&self, other: &Self) -> bool;
}

macro_rules! plain_eq {
    ($($t:ty),* $(,)?) => {$(
        impl BitEq for $t {
            fn bit_eq(&self, other: &Self) -> bool {
                self == other
            }
        }
    )*};
}

plain_eq!(
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    bool,
    char,
    (),
    String,
    str,
    GameOver,
    ObjectKind,
    RequestKind,
    Direction,
    EntityId,
    PlayerId,
    ChannelId,
    ErrorMessage,
    Break,
    Move,
    Request,
);

impl BitEq for f32 {
    fn bit_eq(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl BitEq for f64 {
    fn bit_eq(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl<T: BitEq> BitEq for Option<T> {
    fn bit_eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.bit_eq(b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl<T: BitEq> BitEq for [T] {
    fn bit_eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.bit_eq(b))
    }
}

impl<T: BitEq, const N: usize> BitEq for [T; N] {
    fn bit_eq(&self, other: &Self) -> bool {
        self[..].bit_eq(&other[..])
    }
}

impl<T: BitEq> BitEq for Vec<T> {
    fn bit_eq(&self, other: &Self) -> bool {
        self[..].bit_eq(&other[..])
    }
}

impl<T: BitEq + ?Sized> BitEq for Box<T> {
    fn bit_eq(&self, other: &Self) -> bool {
        (**self).bit_eq(&**other)
    }
}

impl<T: BitEq + ?Sized> BitEq for Arc<T> {
    fn bit_eq(&self, other: &Self) -> bool {
        (**self).bit_eq(&**other)
    }
}

impl<A: BitEq, B: BitEq, C: BitEq> BitEq for (A, B, C) {
    fn bit_eq(&self, other: &Self) -> bool {
        self.0.bit_eq(&other.0) && self.1.bit_eq(&other.1) && self.2.bit_eq(&other.2)
    }
}

/// `BitEq` for a struct, field by field.
macro_rules! struct_eq {
    ($($t:ty { $($f:tt),* $(,)? })*) => {$(
        impl BitEq for $t {
            fn bit_eq(&self, other: &Self) -> bool {
                true $(&& self.$f.bit_eq(&other.$f))*
            }
        }
    )*};
}

struct_eq! {
    Point { x, y, z }
    Object { position, kind, durability, health, max_health }
    Player { position, movement, holding, breaking, owner, health, max_health }
    Entity { id, kind }
    Snapshot { entities }
    Connect { player, snapshot }
    Response { channel, kind }
    Event { time, kind }
    Throw { target }
}

/// `BitEq` for an enum: the same variant, its one field `BitEq` (tuple variants before the
/// semicolon, unit variants after it).
macro_rules! enum_eq {
    ($($t:ident { $($v:ident),* ; $($unit:ident),* })*) => {$(
        impl BitEq for $t {
            fn bit_eq(&self, other: &Self) -> bool {
                match (self, other) {
                    $(($t::$v(a), $t::$v(b)) => a.bit_eq(b),)*
                    $(($t::$unit, $t::$unit) => true,)*
                    _ => false,
                }
            }
        }
    )*};
}

enum_eq! {
    EntityKind { Object, Player; Dead }
    ResponseKind { Error, Connect; Pong }
    EventKind { Snapshot, GameOver; }
    ServerMessage { Event, Response; }
    Action { Break, Throw, Move; }
    ClientMessage { Request, Action; }
}

// ---------------------------------------------------------------------------------------------
// Arbitrary game messages, built by hand (the crate's types do not derive `Arbitrary`, and the
// orphan rule forbids implementing it here). Floats come from raw bits: NaN payloads included.

fn f32_bits(u: &mut Unstructured<'_>) -> Result<f32> {
    Ok(f32::from_bits(u.arbitrary()?))
}

fn point(u: &mut Unstructured<'_>) -> Result<Point> {
    Ok(Point::new(f32_bits(u)?, f32_bits(u)?, f32_bits(u)?))
}

fn entity(u: &mut Unstructured<'_>) -> Result<Entity> {
    let kind = match u.int_in_range(0..=2u8)? {
        0 => EntityKind::Object(Object {
            position: point(u)?,
            kind: if u.arbitrary()? {
                ObjectKind::Mushroom
            } else {
                ObjectKind::Tree
            },
            durability: if u.arbitrary()? {
                Some(f32_bits(u)?)
            } else {
                None
            },
            health: u.arbitrary()?,
            max_health: u.arbitrary()?,
        }),
        1 => EntityKind::Player(Player {
            position: point(u)?,
            movement: Direction::from_bits_retain(u.arbitrary()?),
            holding: u.arbitrary::<Option<u32>>()?.map(EntityId),
            breaking: u.arbitrary::<Option<u32>>()?.map(EntityId),
            owner: PlayerId(u.arbitrary()?),
            health: u.arbitrary()?,
            max_health: u.arbitrary()?,
        }),
        _ => EntityKind::Dead,
    };
    Ok(Entity {
        id: EntityId(u.arbitrary()?),
        kind,
    })
}

fn snapshot(u: &mut Unstructured<'_>) -> Result<Snapshot> {
    let mut entities = Vec::new();
    // Mostly small worlds; sometimes many dead entities, cheap in input bytes.
    if u.ratio(1, 16)? {
        let n = u.int_in_range(0..=5000u32)?;
        entities.resize(n as usize, Entity::new(0, EntityKind::Dead));
    }
    while entities.len() < 10_000 && u.arbitrary::<bool>()? {
        entities.push(entity(u)?);
    }
    Ok(Snapshot::from(entities))
}

/// An arbitrary `ServerMessage`.
pub fn server_message(u: &mut Unstructured<'_>) -> Result<ServerMessage> {
    Ok(if u.arbitrary()? {
        let kind = if u.arbitrary()? {
            EventKind::GameOver(if u.arbitrary()? {
                GameOver::Won
            } else {
                GameOver::Lost
            })
        } else {
            EventKind::Snapshot(snapshot(u)?)
        };
        ServerMessage::Event(Event {
            time: u.arbitrary()?,
            kind,
        })
    } else {
        let kind = match u.int_in_range(0..=2u8)? {
            0 => ResponseKind::Error(ErrorMessage::new(u.arbitrary::<String>()?)),
            1 => ResponseKind::Pong,
            _ => ResponseKind::Connect(Connect {
                player: PlayerId(u.arbitrary()?),
                snapshot: snapshot(u)?,
            }),
        };
        ServerMessage::Response(Response {
            channel: ChannelId(u.arbitrary()?),
            kind,
        })
    })
}

/// An arbitrary `ClientMessage`.
pub fn client_message(u: &mut Unstructured<'_>) -> Result<ClientMessage> {
    Ok(if u.arbitrary()? {
        ClientMessage::Request(Request {
            channel: ChannelId(u.arbitrary()?),
            kind: if u.arbitrary()? {
                RequestKind::Init
            } else {
                RequestKind::Ping
            },
        })
    } else {
        ClientMessage::Action(match u.int_in_range(0..=2u8)? {
            0 => Action::Break(Break {
                entity: u.arbitrary::<Option<u32>>()?.map(EntityId),
            }),
            1 => Action::Throw(Throw { target: point(u)? }),
            _ => Action::Move(Move {
                direction: Direction::from_bits_retain(u.arbitrary()?),
            }),
        })
    })
}

// ---------------------------------------------------------------------------------------------
// The kitchen sink: derived types using every attribute of the derive.

/// A custom codec: a `u16` below 512 in 9 bits. A bijection on what it accepts (larger values
/// are an encode error, every 9-bit pattern decodes), so it keeps the encoding canonical.
pub mod nine_bits {
    use hopnet_codec::{BitReader, BitWriter, Error, Result};

    /// Encodes `value` (< 512) in 9 bits.
    pub fn encode(value: &u16, w: &mut BitWriter<'_>) -> Result<()> {
        if *value >= 512 {
            return Err(Error::custom("nine_bits: value too large"));
        }
        w.write_bits(u64::from(*value), 9);
        Ok(())
    }

    /// Decodes 9 bits.
    pub fn decode(r: &mut BitReader<'_>) -> Result<u16> {
        Ok(r.read_bits(9)? as u16)
    }
}

/// Every field attribute of the derive, most integer widths and most std containers.
#[derive(Rabbit, Arbitrary, Debug, Clone, PartialEq)]
pub struct Sink {
    #[bits(5)]
    pub small: u8,
    #[bits(12)]
    pub i12: i16,
    #[bits(64)]
    pub full: u64,
    #[bits(1)]
    pub one: bool,
    #[bits(33)]
    pub i33: i64,
    #[rabbit(zigzag)]
    pub zz: i64,
    #[rabbit(varint)]
    pub raw: i32,
    #[rabbit(varint)]
    pub byte: u8,
    #[rabbit(zigzag)]
    pub zbyte: i8,
    #[rabbit(range = "-5..=100")]
    pub ranged: i32,
    #[rabbit(range = "7..=7")]
    pub fixed: u16,
    #[rabbit(range = "0..=4294967295")]
    pub wide_range: u64,
    pub flag: bool,
    #[rabbit(if = "*flag")]
    pub cond: Option<u16>,
    #[rabbit(if = "*small > 20 && cond.is_some()")]
    #[bits(4)]
    pub cond_bits: Option<u8>,
    pub opt: Option<f64>,
    pub float: f32,
    pub items: Vec<Item>,
    #[rabbit(max_len = 8)]
    pub text: String,
    #[rabbit(max_len = 3)]
    pub short: Vec<i16>,
    pub arr: [i8; 3],
    pub tuple: (u128, i128, char),
    pub boxed: Box<[u16]>,
    pub shared: Arc<str>,
    pub sizes: (usize, isize, u16),
    pub shape: Shape,
    pub wide: Wide,
    pub tagged: Tagged,
    pub generic: Generic<Vec<u8>>,
    pub unit: Unit,
    #[rabbit(skip)]
    pub skipped: u8,
    #[rabbit(with = "nine_bits")]
    pub custom: u16,
}

/// A tuple struct.
#[derive(Rabbit, Arbitrary, Debug, Clone, PartialEq)]
pub struct Item(
    pub u32,
    pub Option<i16>,
    #[rabbit(if = "*_0 > 1000")] pub Option<bool>,
);

/// A unit struct: no bits.
#[derive(Rabbit, Arbitrary, Debug, Clone, PartialEq)]
pub struct Unit;

/// A generic struct.
#[derive(Rabbit, Arbitrary, Debug, Clone, PartialEq)]
pub struct Generic<T> {
    pub value: T,
    pub extra: Option<T>,
}

/// Default tag (2 bits), unit, tuple and struct variants.
#[derive(Rabbit, Arbitrary, Debug, Clone, PartialEq)]
pub enum Shape {
    Empty,
    Pair(u8, #[bits(3)] u8),
    Named {
        a: i32,
        #[rabbit(if = "*a < 0")]
        b: Option<bool>,
    },
    Boxed(Box<Item>),
}

/// A 7-bit tag with pinned indices.
#[derive(Rabbit, Arbitrary, Debug, Clone, PartialEq)]
#[bits(7)]
pub enum Wide {
    A,
    #[rabbit(index = 100)]
    B(u16),
    C,
}

/// A varint tag with a large pinned index.
#[derive(Rabbit, Arbitrary, Debug, Clone, PartialEq)]
#[rabbit(tag = "varint")]
pub enum Tagged {
    X,
    #[rabbit(index = 70000)]
    Y(String),
    Z(f32),
}

impl Item {
    /// Whether the encoder must accept it.
    pub fn valid(&self) -> bool {
        self.2.is_some() == (self.0 > 1000)
    }
}

impl Shape {
    /// Whether the encoder must accept it.
    pub fn valid(&self) -> bool {
        match self {
            Shape::Empty => true,
            Shape::Pair(_, b) => *b < 8,
            Shape::Named { a, b } => b.is_some() == (*a < 0),
            Shape::Boxed(item) => item.valid(),
        }
    }
}

impl Sink {
    /// Whether the encoder must accept it: every value fits its declared width or range, and
    /// every conditional field is present exactly when its condition holds.
    pub fn valid(&self) -> bool {
        self.small < 32
            && (-2048..=2047).contains(&self.i12)
            && (-(1i64 << 32)..(1i64 << 32)).contains(&self.i33)
            && (-5..=100).contains(&self.ranged)
            && self.fixed == 7
            && self.wide_range <= u64::from(u32::MAX)
            && self.cond.is_some() == self.flag
            && self.cond_bits.is_some() == (self.small > 20 && self.cond.is_some())
            && self.cond_bits.is_none_or(|v| v < 16)
            && self.items.iter().all(Item::valid)
            && self.text.len() <= 8
            && self.short.len() <= 3
            && self.shape.valid()
            && self.custom < 512
    }
}

impl BitEq for Sink {
    fn bit_eq(&self, o: &Self) -> bool {
        // `skipped` is not on the wire: compared by the caller after resetting it.
        self.small == o.small
            && self.i12 == o.i12
            && self.full == o.full
            && self.one == o.one
            && self.i33 == o.i33
            && self.zz == o.zz
            && self.raw == o.raw
            && self.byte == o.byte
            && self.zbyte == o.zbyte
            && self.ranged == o.ranged
            && self.fixed == o.fixed
            && self.wide_range == o.wide_range
            && self.flag == o.flag
            && self.cond == o.cond
            && self.cond_bits == o.cond_bits
            && self.opt.bit_eq(&o.opt)
            && self.float.bit_eq(&o.float)
            && self.items == o.items
            && self.text == o.text
            && self.short == o.short
            && self.arr == o.arr
            && self.tuple == o.tuple
            && self.boxed == o.boxed
            && self.shared == o.shared
            && self.sizes == o.sizes
            && self.shape == o.shape
            && self.wide == o.wide
            && match (&self.tagged, &o.tagged) {
                (Tagged::Z(a), Tagged::Z(b)) => a.bit_eq(b),
                (a, b) => a == b,
            }
            && self.generic == o.generic
            && self.unit == o.unit
            && self.skipped == o.skipped
            && self.custom == o.custom
    }
}
