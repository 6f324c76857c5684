//! The floor of secure mode: what one core's ChaCha20-Poly1305 (RustCrypto's
//! `chacha20poly1305`, the crate and calls hopnet-netcode's `aead.rs` uses) seals and opens per
//! second, with no protocol at all. Every secure datagram is sealed on one side and opened on
//! the other, so a secure transfer in one direction moves at most this many bytes a second per
//! core, whatever the transport above does.
//!
//! `cipher-floor [DATAGRAM_BYTES] [DATAGRAMS]` (defaults: 1,219, a netcode payload packet of
//! 1,200 bytes with its prefix, sequence and tag; 200,000). Prints one line per operation.
//! Run it as the transport suite is run on a shared machine: `chrt -f 1`.

use std::hint::black_box;
use std::time::Instant;

use chacha20poly1305::aead::AeadInOut;
use chacha20poly1305::{ChaCha20Poly1305, KeyInit, Tag};

fn main() {
    let mut args = std::env::args().skip(1);
    let size: usize = args
        .next()
        .map_or(1219, |a| a.parse().expect("DATAGRAM_BYTES"));
    let count: u64 = args
        .next()
        .map_or(200_000, |a| a.parse().expect("DATAGRAMS"));
    assert!(size > 16, "a datagram holds at least its 16-byte tag");
    let key = [7u8; 32];
    let ad = [0x86u8; 21];
    let mut buf = vec![0x5au8; size - 16];
    let mut tags = Vec::with_capacity(count as usize);

    let start = Instant::now();
    for sequence in 0..count {
        let tag = ChaCha20Poly1305::new((&key).into())
            .encrypt_inout_detached((&nonce(sequence)).into(), &ad, buf.as_mut_slice().into())
            .expect("seal");
        tags.push(tag);
    }
    report("seal", size, count, start.elapsed().as_secs_f64());

    // Opening in reverse undoes the seals one by one (ChaCha20 is its own inverse), so every
    // tag verifies and the buffer ends as it began.
    let start = Instant::now();
    for sequence in (0..count).rev() {
        let tag: Tag = tags[sequence as usize];
        ChaCha20Poly1305::new((&key).into())
            .decrypt_inout_detached(
                (&nonce(sequence)).into(),
                &ad,
                buf.as_mut_slice().into(),
                &tag,
            )
            .expect("every tag verifies");
    }
    report("open", size, count, start.elapsed().as_secs_f64());
    assert!(
        black_box(&buf).iter().all(|&b| b == 0x5a),
        "opened back to the plaintext"
    );
}

/// netcode's packet nonce: four zero bytes, then the sequence, little-endian.
fn nonce(sequence: u64) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[4..].copy_from_slice(&sequence.to_le_bytes());
    n
}

fn report(what: &str, size: usize, count: u64, secs: f64) {
    println!(
        "{what}: {count} datagrams of {size} bytes in {secs:.3} s: {:.0} ns each, {:.0} MB/s",
        secs * 1e9 / count as f64,
        (size as u64 * count) as f64 / secs / 1e6
    );
}
