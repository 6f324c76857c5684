//! The derived types the delta tests use, and strategies for random values of them: every
//! field kind (its own deltas, codecs, `if`, `skip`, keyed lists), both layouts, enums, a
//! container written as another type, generics, and quantized floats.

// Each test crate compiles its own copy and uses part of it.
#![allow(dead_code)]

use hopnet_codec::Rabbit;
use proptest::prelude::*;

use super::common::nibble;

#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
pub struct Point {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// Per-field layout: no changed bit of its own.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta = "per_field")]
pub struct Flat {
    pub a: u16,
    pub b: Option<i32>,
}

#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta, tag = "varint")]
pub enum Shape {
    Dot,
    Circle {
        #[rabbit(range = "1..=64")]
        radius: u8,
        centre: Point,
    },
    #[rabbit(index = 9)]
    Polygon(#[rabbit(max_len = 4)] Vec<Point>),
    Label(String),
}

/// Per-field layout on an enum: whether the variant is the baseline's, then its fields.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta = "per_field")]
pub enum Toggle {
    Off,
    On { level: u8, flat: Flat },
}

/// A container written as another type: its deltas are that type's.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq)]
#[rabbit(delta, from = "LevelBits", into = "LevelBits")]
pub struct Level(pub u8);

#[derive(Rabbit, Debug, Clone, Copy, PartialEq)]
#[rabbit(delta)]
pub struct LevelBits {
    #[bits(6)]
    bits: u8,
}

impl From<Level> for LevelBits {
    fn from(l: Level) -> Self {
        LevelBits { bits: l.0 & 63 }
    }
}

impl From<LevelBits> for Level {
    fn from(b: LevelBits) -> Self {
        Level(b.bits)
    }
}

#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
pub struct Everything {
    #[bits(5)]
    pub small: u8,
    #[rabbit(zigzag)]
    pub dx: i64,
    pub present: bool,
    #[rabbit(if = "*present")]
    pub extra: Option<u32>,
    #[rabbit(with = "nibble")]
    pub custom: u8,
    #[rabbit(skip)]
    pub cache: u32,
    pub items: Vec<i16>,
    pub pair: (u8, f64),
    pub array: [u16; 3],
    pub shape: Shape,
    pub toggle: Toggle,
    pub level: Level,
    pub near: Option<Point>,
    pub boxed: Box<Flat>,
    pub name: String,
}

#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
pub struct Entity {
    pub id: u32,
    pub shape: Shape,
}

/// A world of entities keyed by id.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
pub struct World {
    pub tick: u32,
    #[rabbit(key = "id")]
    pub entities: Vec<Entity>,
}

/// Quantized floats: they decode to their grid point.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
pub struct Grid {
    #[rabbit(quantize(range = "-100.0..=100.0", precision = 0.25))]
    pub x: f32,
    #[rabbit(quantize(range = "0..=1", precision = 0.001))]
    pub y: f64,
}

/// One field on the wire: its bit is the struct's.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
pub struct Single(pub Grid);

#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
pub struct Generic<T> {
    pub one: T,
    pub many: Vec<T>,
}

/// Any bit pattern, NaNs and negative zero included.
pub fn any_f32() -> impl Strategy<Value = f32> {
    any::<u32>().prop_map(f32::from_bits)
}

pub fn point() -> impl Strategy<Value = Point> {
    (any_f32(), any_f32(), any_f32()).prop_map(|(x, y, z)| Point { x, y, z })
}

pub fn flat() -> impl Strategy<Value = Flat> {
    (any::<u16>(), any::<Option<i32>>()).prop_map(|(a, b)| Flat { a, b })
}

pub fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Dot),
        (1u8..=64, point()).prop_map(|(radius, centre)| Shape::Circle { radius, centre }),
        prop::collection::vec(point(), 0..=4).prop_map(Shape::Polygon),
        "[a-z]{0,6}".prop_map(Shape::Label),
    ]
}

pub fn toggle() -> impl Strategy<Value = Toggle> {
    prop_oneof![
        Just(Toggle::Off),
        (any::<u8>(), flat()).prop_map(|(level, flat)| Toggle::On { level, flat }),
    ]
}

prop_compose! {
    pub fn everything()(
        (small, dx, present, extra, custom, cache) in
            (0u8..32, any::<i64>(), any::<bool>(), any::<u32>(), 0u8..16, any::<u32>()),
        (items, pair, array) in
            (prop::collection::vec(any::<i16>(), 0..=6), (any::<u8>(), any::<u64>()), any::<[u16; 3]>()),
        (shape, toggle, level, near, boxed, name) in
            (shape(), toggle(), 0u8..64, prop::option::of(point()), flat(), "[a-z]{0,8}"),
    ) -> Everything {
        Everything {
            small,
            dx,
            present,
            extra: present.then_some(extra),
            custom,
            cache,
            items,
            pair: (pair.0, f64::from_bits(pair.1)),
            array,
            shape,
            toggle,
            level: Level(level),
            near,
            boxed: Box::new(boxed),
            name,
        }
    }
}

pub fn entity(ids: std::ops::Range<u32>) -> impl Strategy<Value = Entity> {
    (ids, shape()).prop_map(|(id, shape)| Entity { id, shape })
}

/// Worlds of up to 12 entities with ids below 16: sorted or not, duplicate ids now and then,
/// so that a random baseline shares some ids with a random value.
pub fn world() -> impl Strategy<Value = World> {
    (
        any::<u32>(),
        prop::collection::vec(entity(0..16), 0..=12),
        any::<bool>(),
    )
        .prop_map(|(tick, mut entities, sorted)| {
            if sorted {
                entities.sort_by_key(|e| e.id);
                entities.dedup_by_key(|e| e.id);
            }
            World { tick, entities }
        })
}

/// What happens to a world between two ticks.
#[derive(Debug, Clone)]
pub enum Edit {
    Remove(usize),
    Move(usize, Point),
    Add(Entity),
    Swap(usize, usize),
}

pub fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Remove),
        (any::<usize>(), point()).prop_map(|(i, p)| Edit::Move(i, p)),
        entity(0..40).prop_map(Edit::Add),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Edit::Swap(i, j)),
    ]
}

/// `base` after `edits`: a value related to its baseline, as a game's next tick is.
pub fn edited(base: &World, edits: &[Edit]) -> World {
    let mut world = base.clone();
    world.tick = world.tick.wrapping_add(1);
    for edit in edits {
        let n = world.entities.len();
        match edit {
            Edit::Remove(i) if n > 0 => {
                world.entities.remove(i % n);
            }
            Edit::Move(i, p) if n > 0 => {
                world.entities[i % n].shape = Shape::Circle {
                    radius: 1,
                    centre: p.clone(),
                }
            }
            Edit::Add(e) => world.entities.push(e.clone()),
            Edit::Swap(i, j) if n > 0 => world.entities.swap(i % n, j % n),
            _ => {}
        }
    }
    world
}

pub fn grid() -> impl Strategy<Value = Grid> {
    (-100.1f32..=100.1, -0.0004f64..=1.0004).prop_map(|(x, y)| Grid { x, y })
}
