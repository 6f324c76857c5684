//! What the harness checks: byte strings with what Rust made of them, and the deterministic
//! randomness that makes more of them.

use hopnet_snow_fight::sample::SplitMix64;
use serde_json::{Value, json};

/// A deterministic source of test values: the same cases on every run, from the Snow Fight
/// crate's sample generator (SplitMix64).
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(SplitMix64::new(seed))
    }

    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number below `n` (> 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// An integer of `bits` bits, spread over its magnitudes (each byte width as likely) with
    /// the extremes often.
    pub fn magnitude(&mut self, bits: u32) -> u128 {
        let max = if bits == 128 {
            u128::MAX
        } else {
            (1u128 << bits) - 1
        };
        match self.below(6) {
            0 => [0, 1, max, max >> 1, (max >> 1) + 1][self.below(5) as usize],
            _ => {
                let width = 1 + self.below(u64::from(bits)) as u32;
                let value = u128::from(self.next()) << 64 | u128::from(self.next());
                value >> (128 - width)
            }
        }
    }

    /// An `f32` that JSON can hold: often a special one, else any finite bits.
    pub fn f32(&mut self) -> f32 {
        const SPECIAL: [f32; 9] = [
            0.0,
            -0.0,
            1.5,
            -0.1,
            f32::MIN_POSITIVE,
            1e-45,
            f32::MAX,
            f32::MIN,
            16_777_217.0,
        ];
        if self.one_in(3) {
            return SPECIAL[self.below(SPECIAL.len() as u64) as usize];
        }
        loop {
            let f = f32::from_bits(self.next() as u32);
            if f.is_finite() {
                return f;
            }
        }
    }

    /// An `f64` that JSON can hold.
    pub fn f64(&mut self) -> f64 {
        if self.one_in(3) {
            return [0.0, -0.0, 0.1, f64::MAX, 5e-324, 2f64.powi(60)][self.below(6) as usize];
        }
        loop {
            let f = f64::from_bits(self.next());
            if f.is_finite() {
                return f;
            }
        }
    }

    /// Text of up to `max` characters, ASCII and not: accents, symbols, emoji, controls.
    pub fn text(&mut self, max: u64) -> String {
        const POOL: [char; 14] = [
            'a',
            'Z',
            ' ',
            '"',
            '\\',
            '\n',
            '\0',
            '\u{7f}',
            'é',
            'ö',
            '❄',
            '雪',
            '🐇',
            '\u{10ffff}',
        ];
        (0..self.below(max + 1))
            .map(|_| POOL[self.below(POOL.len() as u64) as usize])
            .collect()
    }
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    test_vectors::hex(bytes)
}

/// The byte strings a valid one turns into by small damage: a bit flipped (a length prefix, a
/// tag, a count, a padding bit), the last byte dropped, a byte added.
pub fn mutations(bytes: &[u8], rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if !bytes.is_empty() {
        for _ in 0..3 {
            let mut flipped = bytes.to_vec();
            let bit = rng.below(bytes.len() as u64 * 8);
            flipped[(bit / 8) as usize] ^= 1 << (bit % 8);
            out.push(flipped);
        }
        // The last byte's high bits: padding when the message ends inside it.
        let mut padded = bytes.to_vec();
        *padded.last_mut().unwrap() ^= 0x80;
        out.push(padded);
        out.push(bytes[..bytes.len() - 1].to_vec());
    }
    let mut longer = bytes.to_vec();
    longer.push(if rng.one_in(2) { 0 } else { rng.next() as u8 });
    out.push(longer);
    out
}

/// A decode case: `rust` is `None` for bytes Rust rejects, `Some(None)` for bytes it decodes to
/// a value JSON cannot hold (a NaN), `Some(Some(json))` for the rest.
pub fn decode_case(ty: &str, bytes: &[u8], rust: Option<Option<String>>) -> Value {
    json!({
        "type": ty,
        "hex": hex(bytes),
        "valid": rust.is_some(),
        "rust": rust.flatten(),
    })
}
