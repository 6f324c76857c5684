//! The server's side of the handshake: a stateless challenge cookie. The expected `Seasoning`
//! is a keyed hash of the client's address and a time bucket, so an `Init` costs the server no
//! memory at all.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use std::hash::Hasher;

use siphasher::sip::SipHasher24;

use super::xor;

/// SipHash-2-4 of `data` under a 128-bit key: a keyed pseudo-random function, so that nobody
/// without the key can predict a seasoning.
fn siphash24(key: [u64; 2], data: &[u8]) -> u64 {
    let mut hasher = SipHasher24::new_with_keys(key[0], key[1]);
    hasher.write(data);
    hasher.finish()
}

/// The server's stateless challenge cookies.
#[derive(Debug, Clone)]
pub(crate) struct CookieJar {
    key: [u64; 2],
    epoch: Option<Instant>,
    lifetime: Duration,
}

impl CookieJar {
    pub fn new(key: [u64; 2], lifetime: Duration) -> CookieJar {
        CookieJar {
            key,
            epoch: None,
            lifetime,
        }
    }

    fn bucket(&mut self, now: Instant) -> u64 {
        let epoch = *self.epoch.get_or_insert(now);
        let elapsed = now.saturating_duration_since(epoch).as_millis();
        let lifetime = self.lifetime.as_millis().max(1);
        (elapsed / lifetime) as u64
    }

    /// The two seasonings valid for `addr` in `bucket`: both with a reserved bit set in the
    /// first byte, with different high nibbles so that one of them always yields a pepper
    /// with a reserved bit too.
    fn seasonings(&self, addr: SocketAddr, bucket: u64) -> [[u8; 4]; 2] {
        let mut data = [0u8; 16 + 2 + 8 + 1];
        let mut len = 0;
        match addr {
            SocketAddr::V4(a) => {
                data[..4].copy_from_slice(&a.ip().octets());
                len += 4;
            }
            SocketAddr::V6(a) => {
                data[..16].copy_from_slice(&a.ip().octets());
                len += 16;
            }
        }
        data[len..len + 2].copy_from_slice(&addr.port().to_be_bytes());
        len += 2;
        data[len..len + 8].copy_from_slice(&bucket.to_be_bytes());
        len += 8;
        data[len] = u8::from(addr.is_ipv6());
        len += 1;
        let base = (siphash24(self.key, &data[..len]) as u32).to_be_bytes();
        let nib0 = (base[0] >> 4) % 15 + 1;
        let nib1 = nib0 % 15 + 1;
        let low = base[0] & 0x0f;
        [
            [nib0 << 4 | low, base[1], base[2], base[3]],
            [nib1 << 4 | low, base[1], base[2], base[3]],
        ]
    }

    /// The `Challenge` for an `Init` carrying `salt` from `addr`: returns the pepper.
    pub fn challenge(&mut self, now: Instant, addr: SocketAddr, salt: [u8; 4]) -> [u8; 4] {
        let bucket = self.bucket(now);
        let [s0, s1] = self.seasonings(addr, bucket);
        let seasoning = if salt[0] >> 4 == s0[0] >> 4 { s1 } else { s0 };
        xor(salt, seasoning)
    }

    /// Whether `value` from `addr` is a valid `ChallengeResponse` (for a challenge sent in
    /// this time bucket or the previous one).
    pub fn verify(&mut self, now: Instant, addr: SocketAddr, value: [u8; 4]) -> bool {
        let bucket = self.bucket(now);
        let current = self.seasonings(addr, bucket);
        if current.contains(&value) {
            return true;
        }
        bucket > 0 && self.seasonings(addr, bucket - 1).contains(&value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::is_handshake_shaped;

    /// The key goes in as the reference implementation's two words, in that order (its test
    /// vectors: key bytes 00..0f, messages 00..).
    #[test]
    fn siphash_reference_vectors() {
        let key = [0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908];
        assert_eq!(siphash24(key, &[]), 0x726f_db47_dd0e_0e31);
        let data: Vec<u8> = (0..15).collect();
        assert_eq!(siphash24(key, &data), 0xa129_ca61_49be_45e5);
    }

    #[test]
    fn cookie_roundtrip_and_shape() {
        let now = Instant::now();
        let mut jar = CookieJar::new([1, 2], Duration::from_secs(10));
        let addr: SocketAddr = "10.0.0.2:4000".parse().unwrap();
        for salt0 in 0..=255u8 {
            let salt = [salt0, 1, 2, 3];
            let pepper = jar.challenge(now, addr, salt);
            let seasoning = xor(salt, pepper);
            assert!(is_handshake_shaped(pepper));
            assert!(is_handshake_shaped(seasoning));
            assert!(jar.verify(now + Duration::from_secs(15), addr, seasoning));
            assert!(!jar.verify(now + Duration::from_secs(25), addr, seasoning));
            let other: SocketAddr = "10.0.0.3:4000".parse().unwrap();
            assert!(!jar.verify(now, other, seasoning));
        }
    }
}
