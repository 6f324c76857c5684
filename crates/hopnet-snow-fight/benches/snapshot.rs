//! Encode and decode of `ServerMessage::Event` with a 1000-entity snapshot: the yardstick data
//! set of `hopnet_snow_fight::sample` (60 % objects, 30 % of them breakable, 40 % players, positions
//! with two decimals in 0..256, a fixed seed).
//!
//! Run with `cargo bench -p hopnet-snow-fight --bench snapshot`. Each benchmark's time is per
//! snapshot (1000 entities); the encoded size is printed first.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hopnet_snow_fight::ServerMessage;
use hopnet_snow_fight::sample::{DEFAULT_SEED, sample_event};
use std::hint::black_box;

const ENTITIES: usize = 1000;

fn bench(c: &mut Criterion) {
    let message = sample_event(ENTITIES, DEFAULT_SEED);
    let bytes = hopnet_codec::to_bytes(&message).expect("the sample encodes");
    println!(
        "snapshot of {ENTITIES} entities: {} bytes ({:.1} bytes per entity)",
        bytes.len(),
        bytes.len() as f64 / ENTITIES as f64
    );

    let mut group = c.benchmark_group("snapshot_1000");
    group.throughput(Throughput::Bytes(bytes.len() as u64));

    let mut buffer = Vec::with_capacity(bytes.len());
    group.bench_function("encode_into", |b| {
        b.iter(|| {
            buffer.clear();
            hopnet_codec::encode_into(black_box(&message), &mut buffer).unwrap();
            black_box(buffer.len())
        })
    });
    group.bench_function("to_bytes", |b| {
        b.iter(|| hopnet_codec::to_bytes(black_box(&message)).unwrap())
    });
    group.bench_function("encoded_len", |b| {
        b.iter(|| hopnet_codec::encoded_len(black_box(&message)))
    });
    group.bench_function("decode", |b| {
        b.iter(|| hopnet_codec::from_bytes::<ServerMessage>(black_box(&bytes)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
