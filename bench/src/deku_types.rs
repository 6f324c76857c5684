//! The snapshot for deku: the closest layout it can express, which here is the exact Rabbit
//! layout. Bits go LSB first (`bit_order = "lsb"`), enum tags are `bits = 2` / `bits = 1`, an
//! `Option` is a presence bit followed by a `cond` field, and the spec's varints are a newtype
//! with its own `DekuReader` / `DekuWriter` built on deku's bit reader and writer (deku has no
//! variable-length integer of this shape), as are floats (see `read_le` for why). The
//! harness checks that the bytes equal hopnet-codec's.

use deku::ctx::{BitSize, Endian, Order};
use deku::no_std_io::{Read, Seek, Write};
use deku::prelude::*;
use deku::writer::Writer;
use hopnet_snow_fight::{EntityKind, ObjectKind, Snapshot};

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

/// The spec's `u32` varint: `m - 1` in 2 bits, then `8m` bits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Varint(pub u32);

impl<'a, Ctx> DekuReader<'a, Ctx> for Varint {
    fn from_reader_with_ctx<R: Read + Seek>(
        reader: &mut Reader<R>,
        _: Ctx,
    ) -> Result<Self, DekuError> {
        let m = u8::from_reader_with_ctx(reader, (LE, BitSize(2), LSB))? as usize + 1;
        let v = read_le(reader, m)?;
        if m > 1 && (32 - v.leading_zeros()).div_ceil(8) as usize != m {
            return Err(DekuError::Parse("non-canonical varint".into()));
        }
        Ok(Varint(v))
    }
}

impl<Ctx> DekuWriter<Ctx> for Varint {
    fn to_writer<W: Write + Seek>(&self, writer: &mut Writer<W>, _: Ctx) -> Result<(), DekuError> {
        let m = (32 - (self.0 | 1).leading_zeros()).div_ceil(8) as usize;
        ((m - 1) as u8).to_writer(writer, (LE, BitSize(2), LSB))?;
        write_le(writer, self.0, m)
    }
}

/// An `f32`: its 32 bits, LSB first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct F32(pub f32);

impl<'a, Ctx> DekuReader<'a, Ctx> for F32 {
    fn from_reader_with_ctx<R: Read + Seek>(
        reader: &mut Reader<R>,
        _: Ctx,
    ) -> Result<Self, DekuError> {
        read_le(reader, 4).map(|bits| F32(f32::from_bits(bits)))
    }
}

impl<Ctx> DekuWriter<Ctx> for F32 {
    fn to_writer<W: Write + Seek>(&self, writer: &mut Writer<W>, _: Ctx) -> Result<(), DekuError> {
        write_le(writer, self.0.to_bits(), 4)
    }
}

#[derive(Debug, Clone, PartialEq, DekuRead, DekuWrite)]
#[deku(endian = "little", bit_order = "lsb")]
pub struct DSnapshot {
    pub count: Varint,
    #[deku(count = "count.0")]
    pub entities: Vec<DEntity>,
}

// The nested types take the snapshot's byte and bit order from it.
each_with! {
    [
        #[derive(Debug, Clone, PartialEq, DekuRead, DekuWrite)]
        #[deku(
            endian = "endian",
            bit_order = "order",
            ctx = "endian: deku::ctx::Endian, order: deku::ctx::Order"
        )]
    ]

    pub struct DEntity {
        pub id: Varint,
        pub kind: DEntityKind,
    }

    #[deku(id_type = "u8", bits = "2")]
    pub enum DEntityKind {
        #[deku(id = "0")]
        Object(DObject),
        #[deku(id = "1")]
        Player(DPlayer),
        #[deku(id = "2")]
        Dead,
    }

    pub struct DPoint {
        pub x: F32,
        pub y: F32,
        pub z: F32,
    }

    pub struct DObject {
        pub position: DPoint,
        #[deku(bits = 1)]
        pub mushroom: bool,
        #[deku(bits = 1)]
        pub has_durability: bool,
        #[deku(cond = "*has_durability")]
        pub durability: Option<F32>,
        pub health: Varint,
        pub max_health: Varint,
    }

    pub struct DPlayer {
        pub position: DPoint,
        #[deku(bits = 8)]
        pub movement: u8,
        #[deku(bits = 1)]
        pub has_holding: bool,
        #[deku(cond = "*has_holding")]
        pub holding: Option<Varint>,
        #[deku(bits = 1)]
        pub has_breaking: bool,
        #[deku(cond = "*has_breaking")]
        pub breaking: Option<Varint>,
        pub owner: Varint,
        pub health: Varint,
        pub max_health: Varint,
    }
}

impl From<&Snapshot> for DSnapshot {
    fn from(s: &Snapshot) -> Self {
        let point = |p: &hopnet_snow_fight::Point| DPoint {
            x: F32(p.x),
            y: F32(p.y),
            z: F32(p.z),
        };
        let kind = |kind: &EntityKind| match kind {
            EntityKind::Object(o) => DEntityKind::Object(DObject {
                position: point(&o.position),
                mushroom: o.kind == ObjectKind::Mushroom,
                has_durability: o.durability.is_some(),
                durability: o.durability.map(F32),
                health: Varint(o.health),
                max_health: Varint(o.max_health),
            }),
            EntityKind::Player(p) => DEntityKind::Player(DPlayer {
                position: point(&p.position),
                movement: p.movement.bits(),
                has_holding: p.holding.is_some(),
                holding: p.holding.map(|h| Varint(h.0)),
                has_breaking: p.breaking.is_some(),
                breaking: p.breaking.map(|b| Varint(b.0)),
                owner: Varint(p.owner.0),
                health: Varint(p.health),
                max_health: Varint(p.max_health),
            }),
            EntityKind::Dead => DEntityKind::Dead,
        };
        DSnapshot {
            count: Varint(s.len() as u32),
            entities: s
                .iter()
                .map(|e| DEntity {
                    id: Varint(e.id.0),
                    kind: kind(&e.kind),
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
            let snap = hopnet_snow_fight::sample::sample_snapshot(n, 1);
            let d = DSnapshot::from(&snap);
            let bytes = d.to_bytes().unwrap();
            let rabbit = hopnet_codec::to_bytes(&snap).unwrap();
            assert_eq!(bytes, rabbit, "{n} entities: {:?}", snap.iter().next());
            assert_eq!(DSnapshot::from_bytes((&bytes, 0)).unwrap().1, d);
        }
    }
}
