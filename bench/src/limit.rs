//! The yardstick: a hand-written encoder and decoder for exactly the snapshot's layout, in safe
//! Rust, the way one would write it without a derive: a 64-bit accumulator that reaches a
//! reused buffer a whole word at a time, fields merged into as few writes as the layout allows,
//! varint lengths from `leading_zeros`, no `Result` in the encoder; a decoder that loads 64
//! bits at a time and checks what a hostile input could break (bounds, enum tags, canonical
//! varints, the count against the remaining input).
//!
//! It works on hopnet-snow-fight' own types, so its input and output are hopnet-codec's.

use hopnet_snow_fight::{
    Direction, Entity, EntityId, EntityKind, Object, ObjectKind, Player, PlayerId, Point, Snapshot,
};

/// Bit accumulator over a borrowed buffer.
struct Acc<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    n: u32,
}

impl Acc<'_> {
    /// Pushes the low `bits` of `v` (`v` has nothing above them; `bits <= 64`).
    #[inline(always)]
    fn put(&mut self, v: u64, bits: u32) {
        self.acc |= v << self.n;
        let t = self.n + bits;
        if t >= 64 {
            self.out.extend_from_slice(&self.acc.to_le_bytes());
            // The bits of `v` that did not fit (none when `n` was 0).
            self.acc = (v >> (63 - self.n)) >> 1;
            self.n = t - 64;
        } else {
            self.n = t;
        }
    }

    #[inline(always)]
    fn finish(self) {
        let bytes = self.n.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.acc.to_le_bytes()[..bytes]);
    }
}

/// A `u32` varint as one value: `(v << 2) | (m - 1)` in `2 + 8m` bits.
#[inline(always)]
fn varint(v: u32) -> (u64, u32) {
    let m = (32 - (v | 1).leading_zeros()).div_ceil(8);
    ((u64::from(v) << 2) | u64::from(m - 1), 2 + 8 * m)
}

/// The most bits one entity takes: id 34 + tag 2 + player (96 + 8 + 35 + 35 + 3 × 34).
const MAX_ENTITY_BITS: usize = 34 + 2 + 96 + 8 + 35 + 35 + 34 * 3;

/// Encodes a snapshot (the count, then each entity), appending to `out`.
pub fn encode(snapshot: &Snapshot, out: &mut Vec<u8>) {
    out.reserve((34 + snapshot.len() * MAX_ENTITY_BITS).div_ceil(8) + 8);
    let mut w = Acc { out, acc: 0, n: 0 };
    let (c, cb) = varint(snapshot.len() as u32);
    w.put(c, cb);
    for e in snapshot.iter() {
        let (id, idb) = varint(e.id.0);
        match &e.kind {
            EntityKind::Object(o) => {
                w.put(id, idb);
                let p = o.position;
                // tag 0 (2 bits), x: 34 bits; then y, z
                w.put(u64::from(p.x.to_bits()) << 2, 34);
                w.put(
                    u64::from(p.y.to_bits()) | (u64::from(p.z.to_bits()) << 32),
                    64,
                );
                let kind = matches!(o.kind, ObjectKind::Mushroom) as u64;
                match o.durability {
                    Some(d) => w.put(kind | 2 | (u64::from(d.to_bits()) << 2), 34),
                    None => w.put(kind, 2),
                }
                let (h, hb) = varint(o.health);
                let (mh, mhb) = varint(o.max_health);
                w.put(h | (mh << hb), hb + mhb);
            }
            EntityKind::Player(p) => {
                w.put(id | (1 << idb), idb + 2);
                let q = p.position;
                w.put(
                    u64::from(q.x.to_bits()) | (u64::from(q.y.to_bits()) << 32),
                    64,
                );
                w.put(
                    u64::from(q.z.to_bits()) | (u64::from(p.movement.bits()) << 32),
                    40,
                );
                match p.holding {
                    Some(h) => {
                        let (v, b) = varint(h.0);
                        w.put(1 | (v << 1), b + 1);
                    }
                    None => w.put(0, 1),
                }
                match p.breaking {
                    Some(h) => {
                        let (v, b) = varint(h.0);
                        w.put(1 | (v << 1), b + 1);
                    }
                    None => w.put(0, 1),
                }
                let (o, ob) = varint(p.owner.0);
                w.put(o, ob);
                let (h, hb) = varint(p.health);
                let (mh, mhb) = varint(p.max_health);
                w.put(h | (mh << hb), hb + mhb);
            }
            EntityKind::Dead => w.put(id | (2 << idb), idb + 2),
        }
    }
    w.finish();
}

/// Why the hand-written decoder refused an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// The input ended inside a value.
    End,
    /// A tag named no variant.
    Tag,
    /// A varint was not in its shortest form.
    NonCanonical,
    /// The count cannot fit in what is left.
    Count,
    /// Something other than zero padding follows.
    Trailing,
}

/// A 64-bit bit buffer refilled a whole word at a time: after [`Bits::refill`] at least 56
/// bits are ready, and reads are shifts out of the buffer.
struct Bits<'a> {
    data: &'a [u8],
    /// The next byte to load.
    next: usize,
    buf: u64,
    avail: u32,
}

impl Bits<'_> {
    /// The 64 bits from byte `b`, zero-filled past the end.
    #[inline(always)]
    fn word(&self, b: usize) -> u64 {
        match self.data.get(b..b + 8) {
            Some(s) => u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]),
            None => {
                let mut w = [0u8; 8];
                let tail = self.data.get(b..).unwrap_or(&[]);
                w[..tail.len()].copy_from_slice(tail);
                u64::from_le_bytes(w)
            }
        }
    }

    /// Tops the buffer up to 56 bits or more. Bits past the end of the input read as zeros;
    /// the caller checks [`Bits::consumed`] against the input's length.
    #[inline(always)]
    fn refill(&mut self) {
        let w = self.word(self.next);
        self.buf |= w << self.avail;
        let bytes = (63 - self.avail) >> 3;
        self.next += bytes as usize;
        self.avail += bytes * 8;
    }

    /// Takes `n <= avail` bits.
    #[inline(always)]
    fn take(&mut self, n: u32) -> u64 {
        let v = self.buf & ((1u64 << n) - 1);
        self.buf >>= n;
        self.avail -= n;
        v
    }

    /// A `u32` varint (at most 34 bits: `avail >= 34` required).
    ///
    /// One and two bytes get their own branch with constant shifts: the buffer's next state
    /// then does not wait for the prefix, which a predicted branch lets the processor skip
    /// (as hopnet-codec's reader does).
    #[inline(always)]
    fn varint(&mut self) -> Result<u32, DecodeError> {
        match self.buf & 3 {
            0 => {
                let v = ((self.buf >> 2) & 0xff) as u32;
                self.buf >>= 10;
                self.avail -= 10;
                return Ok(v);
            }
            1 => {
                let v = ((self.buf >> 2) & 0xffff) as u32;
                if v < 0x100 {
                    return Err(DecodeError::NonCanonical);
                }
                self.buf >>= 18;
                self.avail -= 18;
                return Ok(v);
            }
            _ => {}
        }
        let m = (self.buf & 3) as u32 + 1;
        let bits = 8 * m;
        let v = ((self.buf >> 2) & ((1u64 << bits) - 1)) as u32;
        if m > 1 && (32 - v.leading_zeros()).div_ceil(8) != m {
            return Err(DecodeError::NonCanonical);
        }
        self.buf >>= 2 + bits;
        self.avail -= 2 + bits;
        Ok(v)
    }

    /// A varint after a refill.
    #[inline(always)]
    fn next_varint(&mut self) -> Result<u32, DecodeError> {
        self.refill();
        self.varint()
    }

    /// A position: three `f32`s, each after a refill.
    #[inline(always)]
    fn point(&mut self) -> Point {
        self.refill();
        let x = self.f32();
        self.refill();
        let y = self.f32();
        self.refill();
        Point::new(x, y, self.f32())
    }

    /// An `f32` (`avail >= 32` required).
    #[inline(always)]
    fn f32(&mut self) -> f32 {
        f32::from_bits(self.take(32) as u32)
    }

    /// Bits consumed so far.
    #[inline(always)]
    fn consumed(&self) -> usize {
        self.next * 8 - self.avail as usize
    }
}

/// Decodes what [`encode`] wrote, into the `Vec` of entities.
pub fn decode_vec(data: &[u8]) -> Result<Vec<Entity>, DecodeError> {
    let len = data.len() * 8;
    let mut r = Bits {
        data,
        next: 0,
        buf: 0,
        avail: 0,
    };
    r.refill();
    let count = r.varint()? as usize;
    if r.consumed() > len || count.saturating_mul(12) > len - r.consumed() {
        return Err(DecodeError::Count);
    }
    let mut entities = Vec::with_capacity(count);
    for _ in 0..count {
        r.refill();
        let id = EntityId(r.varint()?);
        let kind = match r.take(2) {
            0 => {
                let position = r.point();
                let flags = r.take(2);
                r.refill();
                let durability = if flags & 2 != 0 { Some(r.f32()) } else { None };
                let health = r.next_varint()?;
                let max_health = r.next_varint()?;
                EntityKind::Object(Object {
                    position,
                    kind: if flags & 1 != 0 {
                        ObjectKind::Mushroom
                    } else {
                        ObjectKind::Tree
                    },
                    durability,
                    health,
                    max_health,
                })
            }
            1 => {
                let position = r.point();
                let movement = Direction::from_bits_retain(r.take(8) as u8);
                r.refill();
                let holding = if r.take(1) != 0 {
                    Some(EntityId(r.varint()?))
                } else {
                    None
                };
                r.refill();
                let breaking = if r.take(1) != 0 {
                    Some(EntityId(r.varint()?))
                } else {
                    None
                };
                r.refill();
                let owner = PlayerId(r.varint()?);
                let health = r.next_varint()?;
                let max_health = r.next_varint()?;
                EntityKind::Player(Player {
                    position,
                    movement,
                    holding,
                    breaking,
                    owner,
                    health,
                    max_health,
                })
            }
            2 => EntityKind::Dead,
            _ => return Err(DecodeError::Tag),
        };
        entities.push(Entity { id, kind });
    }
    // Reads past the end saw zeros: reject them here, once.
    r.refill();
    let used = r.consumed();
    if used > len {
        return Err(DecodeError::End);
    }
    let left = len - used;
    if left >= 8 || (left > 0 && r.buf & ((1 << left) - 1) != 0) {
        return Err(DecodeError::Trailing);
    }
    Ok(entities)
}

/// Decodes what [`encode`] wrote, into hopnet-snow-fight' `Snapshot` (its `Vec<Entity>`, moved in).
pub fn decode(data: &[u8]) -> Result<Snapshot, DecodeError> {
    decode_vec(data).map(Snapshot::from)
}
