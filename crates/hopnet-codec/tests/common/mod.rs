//! Helpers shared by the property tests (a module of each test crate, not a test of its own).

/// A custom codec for `#[rabbit(with = "nibble")]`: a `u8` below 16 in four bits.
pub mod nibble {
    use hopnet_codec::{BitReader, BitWriter, Error, Result};

    pub fn encode(value: &u8, w: &mut BitWriter<'_>) -> Result<()> {
        if *value > 15 {
            return Err(Error::custom("not a nibble"));
        }
        w.write_bits(*value as u64, 4);
        Ok(())
    }

    pub fn decode(r: &mut BitReader<'_>) -> Result<u8> {
        Ok(r.read_bits(4)? as u8)
    }
}
