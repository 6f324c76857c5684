//! The snapshot for deku: the closest layout it can express, which here is the exact Rabbit
//! layout. Bits go LSB first (`bit_order = "lsb"`), enum tags are `bits = 2` / `bits = 1`, an
//! `Option` is a presence bit followed by a `cond` field, and the spec's varints are custom
//! `reader` / `writer` functions built on deku's own bit reader and writer (deku has no
//! variable-length integer of this shape), as are floats (see [`read_le`] for why). The harness checks that the bytes equal rabbit's.

use deku::ctx::{BitSize, Endian, Order};
use deku::no_std_io::{Read, Seek, Write};
use deku::prelude::*;
use deku::writer::Writer;
use game_messages::{EntityKind, ObjectKind, Snapshot};

const LE: Endian = Endian::Little;
const LSB: Order = Order::Lsb0;

/// `n` bytes, little endian, each read as 8 bits LSB first. deku 0.20's multi-byte reads
/// with `bit_order = "lsb"` at a position that is not byte-aligned do not give back what its
/// writer wrote (nibbles come back swapped), so wider values go a byte at a time.
fn read_le<R: Read + Seek>(reader: &mut Reader<R>, n: usize) -> Result<u32, DekuError> {
    let mut v = 0u32;
    for i in 0..n {
        let b = u8::from_reader_with_ctx(reader, (LE, BitSize(8), LSB))?;
        v |= u32::from(b) << (8 * i);
    }
    Ok(v)
}

fn write_le<W: Write + Seek>(writer: &mut Writer<W>, v: u32, n: usize) -> Result<(), DekuError> {
    for i in 0..n {
        ((v >> (8 * i)) as u8).to_writer(writer, (LE, BitSize(8), LSB))?;
    }
    Ok(())
}

/// Reads the spec's `u32` varint: `m - 1` in 2 bits, then `8m` bits.
pub fn read_varint<R: Read + Seek>(reader: &mut Reader<R>) -> Result<u32, DekuError> {
    let m = u8::from_reader_with_ctx(reader, (LE, BitSize(2), LSB))? as usize + 1;
    let v = read_le(reader, m)?;
    if m > 1 && (32 - v.leading_zeros()).div_ceil(8) as usize != m {
        return Err(DekuError::Parse("non-canonical varint".into()));
    }
    Ok(v)
}

/// Writes the spec's `u32` varint.
pub fn write_varint<W: Write + Seek>(writer: &mut Writer<W>, v: u32) -> Result<(), DekuError> {
    let m = (32 - (v | 1).leading_zeros()).div_ceil(8) as usize;
    ((m - 1) as u8).to_writer(writer, (LE, BitSize(2), LSB))?;
    write_le(writer, v, m)
}

/// Reads an `f32` (its 32 bits, LSB first).
pub fn read_f32<R: Read + Seek>(reader: &mut Reader<R>) -> Result<f32, DekuError> {
    read_le(reader, 4).map(f32::from_bits)
}

/// Writes an `f32`.
pub fn write_f32<W: Write + Seek>(writer: &mut Writer<W>, v: f32) -> Result<(), DekuError> {
    write_le(writer, v.to_bits(), 4)
}

/// Writes an optional varint: nothing for `None` (its presence bit is written before).
pub fn write_opt_varint<W: Write + Seek>(
    writer: &mut Writer<W>,
    v: Option<u32>,
) -> Result<(), DekuError> {
    match v {
        Some(v) => write_varint(writer, v),
        None => Ok(()),
    }
}

#[derive(Debug, Clone, PartialEq, DekuRead, DekuWrite)]
#[deku(endian = "little", bit_order = "lsb")]
pub struct DSnapshot {
    #[deku(
        reader = "read_varint(deku::reader)",
        writer = "write_varint(deku::writer, *count)"
    )]
    pub count: u32,
    #[deku(count = "*count")]
    pub entities: Vec<DEntity>,
}

#[derive(Debug, Clone, PartialEq, DekuRead, DekuWrite)]
#[deku(
    endian = "endian",
    bit_order = "order",
    ctx = "endian: deku::ctx::Endian, order: deku::ctx::Order"
)]
pub struct DEntity {
    #[deku(
        reader = "read_varint(deku::reader)",
        writer = "write_varint(deku::writer, *id)"
    )]
    pub id: u32,
    pub kind: DEntityKind,
}

#[derive(Debug, Clone, PartialEq, DekuRead, DekuWrite)]
#[deku(
    id_type = "u8",
    bits = "2",
    endian = "endian",
    bit_order = "order",
    ctx = "endian: deku::ctx::Endian, order: deku::ctx::Order"
)]
pub enum DEntityKind {
    #[deku(id = "0")]
    Object(DObject),
    #[deku(id = "1")]
    Player(DPlayer),
    #[deku(id = "2")]
    Dead,
}

#[derive(Debug, Clone, Copy, PartialEq, DekuRead, DekuWrite)]
#[deku(
    endian = "endian",
    bit_order = "order",
    ctx = "endian: deku::ctx::Endian, order: deku::ctx::Order"
)]
pub struct DPoint {
    #[deku(
        reader = "read_f32(deku::reader)",
        writer = "write_f32(deku::writer, *x)"
    )]
    pub x: f32,
    #[deku(
        reader = "read_f32(deku::reader)",
        writer = "write_f32(deku::writer, *y)"
    )]
    pub y: f32,
    #[deku(
        reader = "read_f32(deku::reader)",
        writer = "write_f32(deku::writer, *z)"
    )]
    pub z: f32,
}

#[derive(Debug, Clone, PartialEq, DekuRead, DekuWrite)]
#[deku(
    endian = "endian",
    bit_order = "order",
    ctx = "endian: deku::ctx::Endian, order: deku::ctx::Order"
)]
pub struct DObject {
    pub position: DPoint,
    #[deku(bits = 1)]
    pub mushroom: bool,
    #[deku(bits = 1)]
    pub has_durability: bool,
    #[deku(
        cond = "*has_durability",
        reader = "read_f32(deku::reader).map(Some)",
        writer = "match durability { Some(d) => write_f32(deku::writer, *d), None => Ok(()) }"
    )]
    pub durability: Option<f32>,
    #[deku(
        reader = "read_varint(deku::reader)",
        writer = "write_varint(deku::writer, *health)"
    )]
    pub health: u32,
    #[deku(
        reader = "read_varint(deku::reader)",
        writer = "write_varint(deku::writer, *max_health)"
    )]
    pub max_health: u32,
}

#[derive(Debug, Clone, PartialEq, DekuRead, DekuWrite)]
#[deku(
    endian = "endian",
    bit_order = "order",
    ctx = "endian: deku::ctx::Endian, order: deku::ctx::Order"
)]
pub struct DPlayer {
    pub position: DPoint,
    #[deku(bits = 8)]
    pub movement: u8,
    #[deku(bits = 1)]
    pub has_holding: bool,
    #[deku(
        cond = "*has_holding",
        reader = "read_varint(deku::reader).map(Some)",
        writer = "write_opt_varint(deku::writer, *holding)"
    )]
    pub holding: Option<u32>,
    #[deku(bits = 1)]
    pub has_breaking: bool,
    #[deku(
        cond = "*has_breaking",
        reader = "read_varint(deku::reader).map(Some)",
        writer = "write_opt_varint(deku::writer, *breaking)"
    )]
    pub breaking: Option<u32>,
    #[deku(
        reader = "read_varint(deku::reader)",
        writer = "write_varint(deku::writer, *owner)"
    )]
    pub owner: u32,
    #[deku(
        reader = "read_varint(deku::reader)",
        writer = "write_varint(deku::writer, *health)"
    )]
    pub health: u32,
    #[deku(
        reader = "read_varint(deku::reader)",
        writer = "write_varint(deku::writer, *max_health)"
    )]
    pub max_health: u32,
}

impl From<&Snapshot> for DSnapshot {
    fn from(s: &Snapshot) -> Self {
        let point = |p: &game_messages::Point| DPoint {
            x: p.x,
            y: p.y,
            z: p.z,
        };
        DSnapshot {
            count: s.len() as u32,
            entities: s
                .iter()
                .map(|e| DEntity {
                    id: e.id.0,
                    kind: match &e.kind {
                        EntityKind::Object(o) => DEntityKind::Object(DObject {
                            position: point(&o.position),
                            mushroom: o.kind == ObjectKind::Mushroom,
                            has_durability: o.durability.is_some(),
                            durability: o.durability,
                            health: o.health,
                            max_health: o.max_health,
                        }),
                        EntityKind::Player(p) => DEntityKind::Player(DPlayer {
                            position: point(&p.position),
                            movement: p.movement.bits(),
                            has_holding: p.holding.is_some(),
                            holding: p.holding.map(|h| h.0),
                            has_breaking: p.breaking.is_some(),
                            breaking: p.breaking.map(|b| b.0),
                            owner: p.owner.0,
                            health: p.health,
                            max_health: p.max_health,
                        }),
                        EntityKind::Dead => DEntityKind::Dead,
                    },
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deku::{DekuContainerRead, DekuContainerWrite};

    #[test]
    fn same_bytes_as_rabbit() {
        for n in [0usize, 1, 2, 3, 10, 100] {
            let snap = game_messages::sample::sample_snapshot(n, 1);
            let d = DSnapshot::from(&snap);
            let bytes = d.to_bytes().unwrap();
            let rabbit = rabbit::to_bytes(&snap).unwrap();
            assert_eq!(bytes, rabbit, "{n} entities: {:?}", snap.iter().next());
            assert_eq!(DSnapshot::from_bytes((&bytes, 0)).unwrap().1, d);
        }
    }
}
