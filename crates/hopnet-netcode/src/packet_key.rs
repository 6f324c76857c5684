//! The cipher of packets and challenge tokens: ChaCha20-Poly1305 IETF (12-byte nonce), from
//! `ring`. Its ChaCha20 and Poly1305 are BoringSSL's assembly, which picks the CPU's vector
//! code at run time, so a default build gets that code; RustCrypto's vector code is reached
//! through `#[target_feature]` functions whose intrinsics a default build does not inline
//! (BENCHMARKS.md, "Secure mode on ring"). The bytes are the same either way (the test below),
//! and no crypto is ours.
//!
//! A [`PacketKey`] is prepared once, when a connection's keys are known (the client's from its
//! token, the server's at the request, then kept by the handshake and the slot), and one is
//! kept for each direction: sealing or opening a datagram does not build a cipher.

use std::fmt;

use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, Nonce, Tag, UnboundKey};

use super::aead::{MAC_BYTES, Unauthentic, sequence_nonce};
use super::key::Key;

/// A [`Key`] ready to seal or open packets and challenge tokens. Its `Debug` does not print
/// the key.
#[derive(Clone)]
pub(crate) struct PacketKey(LessSafeKey);

impl PacketKey {
    /// Prepares `key`.
    pub(crate) fn new(key: &Key) -> PacketKey {
        // ring refuses a key only for its length, and a `Key` is always 32 bytes.
        let unbound = UnboundKey::new(&CHACHA20_POLY1305, key.as_bytes())
            .expect("ChaCha20-Poly1305 takes any 32-byte key");
        PacketKey(LessSafeKey::new(unbound))
    }

    /// Encrypts `buf[..len - 16]` in place under the nonce of `sequence` and writes its tag
    /// into the last 16 bytes. `None` for a buffer shorter than a tag.
    pub(crate) fn seal(&self, sequence: u64, ad: &[u8], buf: &mut [u8]) -> Option<()> {
        let (message, mac) = buf.split_last_chunk_mut::<MAC_BYTES>()?;
        let tag = self
            .0
            .seal_in_place_separate_tag(nonce(sequence), Aad::from(ad), message)
            .ok()?;
        mac.copy_from_slice(tag.as_ref());
        Some(())
    }

    /// Checks the tag in the last 16 bytes and decrypts the rest in place (as [`seal`]
    /// wrote it). On failure the buffer's content is unspecified.
    ///
    /// [`seal`]: Self::seal
    pub(crate) fn open(&self, sequence: u64, ad: &[u8], buf: &mut [u8]) -> Result<(), Unauthentic> {
        let (message, mac) = buf.split_last_chunk_mut::<MAC_BYTES>().ok_or(Unauthentic)?;
        let tag = Tag::from(*mac);
        self.0
            .open_in_place_separate_tag(nonce(sequence), Aad::from(ad), tag, message, 0..)
            .map(|_| ())
            .map_err(|_| Unauthentic)
    }
}

fn nonce(sequence: u64) -> Nonce {
    Nonce::assume_unique_for_key(sequence_nonce(sequence))
}

impl fmt::Debug for PacketKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PacketKey(..)")
    }
}

#[cfg(test)]
mod tests {
    use chacha20poly1305::aead::AeadInOut;
    use chacha20poly1305::{ChaCha20Poly1305, KeyInit};
    use rand::rngs::SmallRng;
    use rand::{Rng, RngCore, SeedableRng};

    use super::*;

    /// ring's seal against RustCrypto's, the cipher this crate sealed packets with before:
    /// the same key, nonce, associated data and message give the same ciphertext and tag, and
    /// each opens the other's.
    #[test]
    fn ring_seals_what_rustcrypto_seals_at_every_length() {
        let mut rng = SmallRng::seed_from_u64(38);
        for len in (0..=1300).chain([4096, 65_536]) {
            let key = Key::generate_with(&mut rand::rng());
            let sequence: u64 = rng.random();
            let mut ad = vec![0u8; rng.random_range(0..40)];
            rng.fill_bytes(&mut ad);
            let mut message = vec![0u8; len];
            rng.fill_bytes(&mut message);

            let mut ours = message.clone();
            ours.resize(len + MAC_BYTES, 0);
            PacketKey::new(&key).seal(sequence, &ad, &mut ours).unwrap();

            let rustcrypto = ChaCha20Poly1305::new(key.as_bytes().into());
            let mut theirs = message.clone();
            let tag = rustcrypto
                .encrypt_inout_detached(
                    (&sequence_nonce(sequence)).into(),
                    &ad,
                    theirs.as_mut_slice().into(),
                )
                .unwrap();
            theirs.extend_from_slice(&tag);
            assert_eq!(ours, theirs, "{len} bytes");

            let (body, mac) = theirs.split_at_mut(len);
            rustcrypto
                .decrypt_inout_detached(
                    (&sequence_nonce(sequence)).into(),
                    &ad,
                    body.into(),
                    (&*mac).try_into().unwrap(),
                )
                .unwrap();
            assert_eq!(body, &message[..], "{len} bytes, opened by RustCrypto");
            PacketKey::new(&key).open(sequence, &ad, &mut ours).unwrap();
            assert_eq!(&ours[..len], &message[..], "{len} bytes, opened by ring");
        }
    }

    #[test]
    fn a_flipped_bit_anywhere_fails_to_open() {
        let key = PacketKey::new(&Key::from_bytes([7; 32]));
        let mut sealed = [0u8; 20];
        sealed[..4].copy_from_slice(b"ping");
        key.seal(9, b"ad", &mut sealed).unwrap();
        for bit in 0..sealed.len() * 8 {
            let mut tampered = sealed;
            tampered[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(key.open(9, b"ad", &mut tampered), Err(Unauthentic));
        }
        assert_eq!(key.open(9, b"da", &mut sealed.clone()), Err(Unauthentic));
        assert_eq!(key.open(10, b"ad", &mut sealed.clone()), Err(Unauthentic));
        let other = PacketKey::new(&Key::from_bytes([8; 32]));
        assert_eq!(other.open(9, b"ad", &mut sealed.clone()), Err(Unauthentic));
        key.open(9, b"ad", &mut sealed).unwrap();
        assert_eq!(&sealed[..4], b"ping");
    }

    #[test]
    fn a_buffer_shorter_than_a_tag_is_refused() {
        let key = PacketKey::new(&Key::from_bytes([7; 32]));
        assert_eq!(key.seal(0, &[], &mut [0u8; 15]), None);
        assert_eq!(key.open(0, &[], &mut [0u8; 15]), Err(Unauthentic));
        let mut empty = [0u8; MAC_BYTES];
        key.seal(0, &[], &mut empty).unwrap();
        key.open(0, &[], &mut empty).unwrap();
    }

    #[test]
    fn debug_hides_the_key() {
        let key = PacketKey::new(&Key::from_bytes([0xab; 32]));
        assert_eq!(format!("{key:?}"), "PacketKey(..)");
    }
}
