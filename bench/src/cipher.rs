//! The floor of secure mode: what one core's ChaCha20-Poly1305 seals and opens, with no
//! protocol at all, in both crates hopnet has used for it. Every secure datagram is sealed on
//! one side and opened on the other, so a secure transfer in one direction moves at most this
//! many bytes a second per core, whatever the transport above does.
//!
//! The two crates are called as hopnet-netcode calls (or called) them: RustCrypto's
//! `chacha20poly1305` with the cipher built for every datagram (`C::new(key)`, as netcode's
//! `aead.rs` did before issue 38), and `ring`'s `LessSafeKey`, prepared once per key (as its
//! `packet_key.rs` does). They run alternately in one process, several rounds, so that a
//! machine shared with other work slows both alike and the ratio stays meaningful.

use std::hint::black_box;
use std::time::Instant;

use chacha20poly1305::aead::AeadInOut;
use chacha20poly1305::{ChaCha20Poly1305, KeyInit, Tag};
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, Nonce, UnboundKey};

use crate::report::median;

/// The datagrams measured: a full netcode payload packet (prefix, 2-byte sequence, 1,200 bytes,
/// tag), a 300-byte snapshot as secure mode sends it, and a small message or an ACK.
pub const SIZES: [usize; 3] = [1219, 340, 64];

/// The associated data of a netcode packet: version, protocol id, prefix byte.
const AD: [u8; 22] = [0x86; 22];
const KEY: [u8; 32] = [7; 32];

/// Which crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crate {
    /// RustCrypto's `chacha20poly1305`, the cipher built per datagram.
    RustCrypto,
    /// `ring`'s `aead`, the key prepared once.
    Ring,
}

impl Crate {
    /// Both, in the order of the table's columns.
    pub const BOTH: [Crate; 2] = [Crate::RustCrypto, Crate::Ring];

    /// The crate's name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Crate::RustCrypto => "RustCrypto chacha20poly1305 0.11",
            Crate::Ring => "ring 0.17",
        }
    }
}

/// The medians of one datagram size, in nanoseconds per datagram, indexed as [`Crate::BOTH`].
#[derive(Debug, Clone)]
pub struct Floor {
    /// The datagram's size, tag included.
    pub size: usize,
    /// Sealing.
    pub seal_ns: [f64; 2],
    /// Opening.
    pub open_ns: [f64; 2],
}

impl Floor {
    /// One direction's ceiling in MB/s when every datagram is opened by `krate`.
    pub fn open_mbs(&self, krate: Crate) -> f64 {
        self.size as f64 / self.open_ns[krate as usize] * 1e3
    }
}

/// Measures every size in `sizes`: `rounds` rounds, in each of which both crates seal then
/// open `datagrams` datagrams, the crate that goes first alternating from round to round.
pub fn measure(sizes: &[usize], datagrams: u64, rounds: usize) -> Vec<Floor> {
    sizes
        .iter()
        .map(|&size| {
            let mut seal = [Vec::new(), Vec::new()];
            let mut open = [Vec::new(), Vec::new()];
            for round in 0..rounds.max(1) {
                for k in 0..2 {
                    let krate = Crate::BOTH[(k + round) % 2];
                    let (s, o) = seal_then_open(krate, size, datagrams);
                    seal[krate as usize].push(s);
                    open[krate as usize].push(o);
                }
            }
            let med = |v: &mut Vec<f64>| median(v).unwrap_or(f64::NAN);
            Floor {
                size,
                seal_ns: [med(&mut seal[0]), med(&mut seal[1])],
                open_ns: [med(&mut open[0]), med(&mut open[1])],
            }
        })
        .collect()
}

/// Seals `count` datagrams of `size` bytes in one buffer, keeping the tags, then opens them in
/// reverse (ChaCha20 is its own inverse, so every tag verifies and the buffer ends as it
/// began). Nanoseconds per datagram, sealing and opening.
fn seal_then_open(krate: Crate, size: usize, count: u64) -> (f64, f64) {
    assert!(size > 16, "a datagram holds at least its 16-byte tag");
    let mut buf = vec![0x5au8; size - 16];
    let mut tags: Vec<[u8; 16]> = Vec::with_capacity(count as usize);
    let ring_key = LessSafeKey::new(UnboundKey::new(&CHACHA20_POLY1305, &KEY).expect("a key"));

    let start = Instant::now();
    for sequence in 0..count {
        let tag: [u8; 16] = match krate {
            Crate::RustCrypto => ChaCha20Poly1305::new((&KEY).into())
                .encrypt_inout_detached((&nonce(sequence)).into(), &AD, buf.as_mut_slice().into())
                .expect("seal")
                .into(),
            Crate::Ring => ring_key
                .seal_in_place_separate_tag(
                    Nonce::assume_unique_for_key(nonce(sequence)),
                    Aad::from(&AD),
                    &mut buf,
                )
                .expect("seal")
                .as_ref()
                .try_into()
                .expect("a 16-byte tag"),
        };
        tags.push(tag);
    }
    let sealed = start.elapsed().as_secs_f64();

    let start = Instant::now();
    for sequence in (0..count).rev() {
        let tag = tags[sequence as usize];
        match krate {
            Crate::RustCrypto => ChaCha20Poly1305::new((&KEY).into())
                .decrypt_inout_detached(
                    (&nonce(sequence)).into(),
                    &AD,
                    buf.as_mut_slice().into(),
                    &Tag::from(tag),
                )
                .expect("every tag verifies"),
            Crate::Ring => {
                ring_key
                    .open_in_place_separate_tag(
                        Nonce::assume_unique_for_key(nonce(sequence)),
                        Aad::from(&AD),
                        tag.into(),
                        &mut buf,
                        0..,
                    )
                    .expect("every tag verifies");
            }
        }
    }
    let opened = start.elapsed().as_secs_f64();
    assert!(
        black_box(&buf).iter().all(|&b| b == 0x5a),
        "opened back to the plaintext"
    );
    let per = |secs: f64| secs * 1e9 / count as f64;
    (per(sealed), per(opened))
}

/// netcode's packet nonce: four zero bytes, then the sequence, little-endian.
fn nonce(sequence: u64) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[4..].copy_from_slice(&sequence.to_le_bytes());
    n
}

/// The floors as a Markdown table: ns per datagram and MB/s for each crate, and how many times
/// faster ring is.
pub fn table(floors: &[Floor]) -> String {
    let mut out = format!(
        "| datagram | operation | {} | {} | RustCrypto / ring |\n|---:|---|---:|---:|---:|\n",
        Crate::RustCrypto.name(),
        Crate::Ring.name()
    );
    for f in floors {
        for (op, ns) in [("seal", f.seal_ns), ("open", f.open_ns)] {
            let cell =
                |i: usize| format!("{:.0} ns ({:.0} MB/s)", ns[i], f.size as f64 / ns[i] * 1e3);
            out.push_str(&format!(
                "| {} bytes | {op} | {} | {} | {:.2} |\n",
                f.size,
                cell(0),
                cell(1),
                ns[0] / ns[1]
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_crates_seal_and_open_every_size() {
        let floors = measure(&SIZES, 50, 2);
        assert_eq!(floors.len(), SIZES.len());
        for f in &floors {
            assert!(f.seal_ns.iter().chain(&f.open_ns).all(|ns| *ns > 0.0));
        }
        assert!(table(&floors).contains("| 64 bytes | open |"));
    }

    #[test]
    fn the_crates_seal_the_same_tag() {
        let mut a = vec![1u8; 100];
        let mut b = a.clone();
        let rc = ChaCha20Poly1305::new((&KEY).into())
            .encrypt_inout_detached((&nonce(5)).into(), &AD, a.as_mut_slice().into())
            .unwrap();
        let key = LessSafeKey::new(UnboundKey::new(&CHACHA20_POLY1305, &KEY).unwrap());
        let ring = key
            .seal_in_place_separate_tag(
                Nonce::assume_unique_for_key(nonce(5)),
                Aad::from(&AD),
                &mut b,
            )
            .unwrap();
        assert_eq!(a, b);
        assert_eq!(rc.as_slice(), ring.as_ref());
    }
}
