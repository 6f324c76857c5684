//! The bit readers: [`BitReader`] over the whole input, [`BitWindow`] over a bounded window of
//! it, and [`BitRead`], the reads they share.

mod decode;
mod reader;
mod region;
mod window;
mod word;

pub use decode::{Decode, from_bytes};
pub use reader::BitReader;
pub use window::BitWindow;

use crate::error::Result;

/// The reads shared by [`BitReader`] and [`BitWindow`], so that one decoder serves both: codec
/// types ([`crate::codec::FieldDecode`]) and derived code are written once over it.
///
/// Sealed: only this crate's two readers implement it.
pub trait BitRead: sealed::Sealed {
    /// Reads `n` bits (0 to 64), the first read bit as the least significant.
    fn read_bits(&mut self, n: u32) -> Result<u64>;

    /// Reads one bit.
    #[inline(always)]
    fn read_bool(&mut self) -> Result<bool> {
        Ok(self.read_bits(1)? != 0)
    }

    /// Reads the spec's variable-length encoding of a `bytes`-byte integer (1, 2, 4 or 8),
    /// accepting only its shortest form.
    fn read_varint(&mut self, bytes: u32) -> Result<u64>;

    /// Bit offset of the next read, from the start of the input.
    fn position(&self) -> u64;

    /// The next `n` bits (0 to 64), without moving: an enum whose tag sits in the high bits of
    /// its first byte (`bit_order = "msb"`) reads it ahead of the fields around it.
    fn peek_bits(&mut self, n: u32) -> Result<u64> {
        let start = self.position();
        let value = self.with_reader(|r| r.read_bits(n));
        self.with_reader(|r| {
            r.pos = start;
            Ok(())
        })?;
        value
    }

    /// Decodes a `T` with its [`Decode::decode`] from a reader, its
    /// [`Decode::decode_window`] from a window.
    fn decode_value<T: Decode>(&mut self) -> Result<T>;

    /// Runs `read` on a [`BitReader`] at the cursor and moves the cursor to where it stopped:
    /// for reads with no window path of their own.
    fn with_reader<T>(&mut self, read: impl FnOnce(&mut BitReader<'_>) -> Result<T>) -> Result<T>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::BitReader<'_> {}
    impl Sealed for super::BitWindow<'_> {}
}

/// The trait's reads are the readers' own; `decode_value` and `with_reader` are what differ.
macro_rules! bit_read {
    ($reader:ident, $decode:ident, |$this:ident, $read:ident| $with_reader:expr) => {
        impl BitRead for $reader<'_> {
            #[inline(always)]
            fn read_bits(&mut self, n: u32) -> Result<u64> {
                $reader::read_bits(self, n)
            }
            #[inline(always)]
            fn read_varint(&mut self, bytes: u32) -> Result<u64> {
                $reader::read_varint(self, bytes)
            }
            #[inline(always)]
            fn position(&self) -> u64 {
                $reader::position(self)
            }
            #[inline(always)]
            fn decode_value<T: Decode>(&mut self) -> Result<T> {
                T::$decode(self)
            }
            #[inline(always)]
            fn with_reader<T>(
                &mut self,
                $read: impl FnOnce(&mut BitReader<'_>) -> Result<T>,
            ) -> Result<T> {
                let $this = self;
                $with_reader
            }
        }
    };
}

bit_read!(BitReader, decode, |this, read| read(this));
bit_read!(BitWindow, decode_window, |this, read| this
    .with_reader(read));
