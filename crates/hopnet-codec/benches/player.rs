//! Encode and decode 1000 records shaped like the spec's `Player`, written by hand against the
//! runtime (three `f32`, a `u8`, two `Option<u32>`, three `u32`), so the runtime's own cost is
//! measured apart from what the derive generates.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hopnet_codec::{BitReader, BitWriter, Decode, Encode, Result};
use std::hint::black_box;

#[derive(Debug, Clone, PartialEq)]
struct PlayerLike {
    x: f32,
    y: f32,
    z: f32,
    movement: u8,
    holding: Option<u32>,
    breaking: Option<u32>,
    owner: u32,
    health: u32,
    max_health: u32,
}

impl Encode for PlayerLike {
    const MIN_BITS: u64 = 96 + 8 + 2 + 30;
    const MAX_BITS: Option<u64> = Some(96 + 8 + 2 * 35 + 3 * 34);
    #[inline]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        self.x.encode(w)?;
        self.y.encode(w)?;
        self.z.encode(w)?;
        self.movement.encode(w)?;
        self.holding.encode(w)?;
        self.breaking.encode(w)?;
        self.owner.encode(w)?;
        self.health.encode(w)?;
        self.max_health.encode(w)
    }
    fn encoded_bits(&self) -> u64 {
        96 + 8
            + self.holding.encoded_bits()
            + self.breaking.encoded_bits()
            + self.owner.encoded_bits()
            + self.health.encoded_bits()
            + self.max_health.encoded_bits()
    }
}

impl Decode for PlayerLike {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        Ok(PlayerLike {
            x: Decode::decode(r)?,
            y: Decode::decode(r)?,
            z: Decode::decode(r)?,
            movement: Decode::decode(r)?,
            holding: Decode::decode(r)?,
            breaking: Decode::decode(r)?,
            owner: Decode::decode(r)?,
            health: Decode::decode(r)?,
            max_health: Decode::decode(r)?,
        })
    }
}

/// Deterministic records: positions with two decimals, small ids, health up to 100.
fn records(n: usize) -> Vec<PlayerLike> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|i| PlayerLike {
            x: (next() % 25600) as f32 / 100.0,
            y: (next() % 25600) as f32 / 100.0,
            z: 0.0,
            movement: (next() % 16) as u8,
            holding: (next() % 3 == 0).then(|| (next() % 2000) as u32),
            breaking: (next() % 4 == 0).then(|| (next() % 2000) as u32),
            owner: i as u32,
            health: (next() % 101) as u32,
            max_health: 100,
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let data = records(1000);
    let mut buf = Vec::with_capacity(64 * 1024);
    hopnet_codec::encode_into(&data, &mut buf).unwrap();
    let encoded = buf.clone();
    println!("1000 Player-shaped records: {} bytes", encoded.len());

    let mut group = c.benchmark_group("player_x1000");
    group.throughput(Throughput::Elements(1000));
    group.bench_function("encode_reused_buffer", |b| {
        b.iter(|| {
            buf.clear();
            hopnet_codec::encode_into(black_box(&data), &mut buf).unwrap();
            black_box(buf.len())
        })
    });
    group.bench_function("decode", |b| {
        b.iter(|| {
            black_box(hopnet_codec::from_bytes::<Vec<PlayerLike>>(black_box(&encoded)).unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
