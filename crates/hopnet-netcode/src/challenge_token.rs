//! The challenge token: the server's proof, sealed to itself, that a client at an address
//! answered from that address. Client id and user data, zero padded to 300 bytes, encrypted
//! with ChaCha20-Poly1305 under a key the server draws when it starts, without associated
//! data, the nonce built from the challenge sequence. The server keeps nothing per challenge.

use super::aead::{MAC_BYTES, Unauthentic};
use super::packet_key::PacketKey;
use super::user_data::USER_DATA_BYTES;
use super::user_data::UserData;
use super::wire::{Reader, Writer};

/// The size of a challenge token, encrypted or not.
pub const CHALLENGE_TOKEN_BYTES: usize = 300;

/// A challenge token in the clear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChallengeToken {
    pub client_id: u64,
    pub user_data: UserData,
}

impl ChallengeToken {
    /// Writes and seals the token under `key` with nonce `sequence`.
    pub(crate) fn seal(
        &self,
        sequence: u64,
        key: &PacketKey,
    ) -> Option<[u8; CHALLENGE_TOKEN_BYTES]> {
        let mut buf = [0u8; CHALLENGE_TOKEN_BYTES];
        let mut w = Writer::new(&mut buf[..CHALLENGE_TOKEN_BYTES - MAC_BYTES]);
        w.u64(self.client_id);
        w.bytes(&self.user_data);
        w.pad_to_end()?;
        key.seal(sequence, &[], &mut buf)?;
        Some(buf)
    }

    /// Opens a sealed token; an error when it was not sealed by `key` with `sequence`.
    pub(crate) fn open(
        sealed: &[u8; CHALLENGE_TOKEN_BYTES],
        sequence: u64,
        key: &PacketKey,
    ) -> Result<ChallengeToken, Unauthentic> {
        let mut buf = *sealed;
        key.open(sequence, &[], &mut buf)?;
        let mut r = Reader::new(&buf);
        let client_id = r.u64().ok_or(Unauthentic)?;
        let user_data = r.array::<USER_DATA_BYTES>().ok_or(Unauthentic)?;
        Ok(ChallengeToken {
            client_id,
            user_data,
        })
    }
}
