//! What the standard's two AEADs share (the tag's size, the nonce built from a sequence), and
//! the first of them: XChaCha20-Poly1305 (24-byte nonce) for the private connect token, from
//! RustCrypto's `chacha20poly1305` (`ring` has no XChaCha). The second, ChaCha20-Poly1305 IETF
//! for packets and challenge tokens, is in `packet_key.rs`. Each seals a buffer whose last 16
//! bytes receive the tag.

use chacha20poly1305::aead::{AeadInOut, Tag};
use chacha20poly1305::{KeyInit, XChaCha20Poly1305};

use super::key::Key;

/// The size of the Poly1305 tag that follows every ciphertext.
pub const MAC_BYTES: usize = 16;

/// A tag did not verify: the bytes were not sealed with this key, nonce and associated data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unauthentic;

/// The 12-byte nonce of a packet or a challenge token: four zero bytes, then the sequence as
/// a little-endian `u64` (IMPLEMENTERS.md, erratum on the nonce's construction).
pub(crate) fn sequence_nonce(sequence: u64) -> [u8; 12] {
    let mut nonce = [0u8; 12];
    nonce[4..].copy_from_slice(&sequence.to_le_bytes());
    nonce
}

/// Encrypts `buf[..len - 16]` in place with XChaCha20-Poly1305 and writes its tag into the
/// last 16 bytes.
pub(crate) fn seal_x(key: &Key, nonce: &[u8; 24], ad: &[u8], buf: &mut [u8]) -> Option<()> {
    let (message, mac) = buf.split_last_chunk_mut::<MAC_BYTES>()?;
    let tag = XChaCha20Poly1305::new(key.as_bytes().into())
        .encrypt_inout_detached(nonce.into(), ad, message.into())
        .ok()?;
    mac.copy_from_slice(&tag);
    Some(())
}

/// Checks the tag in the last 16 bytes and decrypts the rest in place, with
/// XChaCha20-Poly1305 (as [`seal_x`]).
pub(crate) fn open_x(
    key: &Key,
    nonce: &[u8; 24],
    ad: &[u8],
    buf: &mut [u8],
) -> Result<(), Unauthentic> {
    let (message, mac) = buf.split_last_chunk_mut::<MAC_BYTES>().ok_or(Unauthentic)?;
    let tag = Tag::<XChaCha20Poly1305>::try_from(&mac[..]).map_err(|_| Unauthentic)?;
    XChaCha20Poly1305::new(key.as_bytes().into())
        .decrypt_inout_detached(nonce.into(), ad, message.into(), &tag)
        .map_err(|_| Unauthentic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonce_is_four_zero_bytes_then_the_sequence_little_endian() {
        assert_eq!(
            sequence_nonce(0x0102_0304_0506_0708),
            [0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1]
        );
    }

    #[test]
    fn a_flipped_bit_anywhere_fails_to_open_a_token() {
        let key = Key::from_bytes([7; 32]);
        let nonce = [3; 24];
        let mut sealed = [0u8; 20];
        sealed[..4].copy_from_slice(b"ping");
        seal_x(&key, &nonce, b"ad", &mut sealed).unwrap();
        for bit in 0..sealed.len() * 8 {
            let mut tampered = sealed;
            tampered[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(open_x(&key, &nonce, b"ad", &mut tampered), Err(Unauthentic));
        }
        assert_eq!(
            open_x(&key, &nonce, b"da", &mut sealed.clone()),
            Err(Unauthentic)
        );
        assert_eq!(
            open_x(&key, &[4; 24], b"ad", &mut sealed.clone()),
            Err(Unauthentic)
        );
        open_x(&key, &nonce, b"ad", &mut sealed).unwrap();
        assert_eq!(&sealed[..4], b"ping");
    }
}
