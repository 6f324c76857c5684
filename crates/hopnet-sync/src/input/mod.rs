//! Inputs: sent every tick with the last ones not yet acknowledged, buffered by the server
//! per client per tick, applied each at its tick.
//!
//! - [`InputSender`] (client): schedules each input for its tick plus the input delay, and
//!   writes the [`InputMessage`] of the tick, which repeats the newest inputs the server has
//!   not acknowledged (redundancy), so that one lost datagram loses no input. Send it
//!   unreliably ([`INPUT_DELIVERY`]).
//! - [`InputBuffer`] (server, one per client): takes messages in, hands each tick's input out
//!   once, writes the [`InputAck`] the client needs, counts inputs that came late or never
//!   came ([`InputStats`]), and hands the late ones over for their events
//!   ([`InputBuffer::take_late`]). Whatever a client sends, its memory is bounded and nothing panics:
//!   ticks far ahead or behind, floods of messages or of inputs, duplicate ticks are dropped
//!   and counted.
//!
//! ```
//! use std::time::Instant;
//! use hopnet_sync::input::{InputBuffer, InputBufferConfig, InputMessage, InputSender};
//!
//! let now = Instant::now();
//! let mut client = InputSender::<u8>::new(3, 0);
//! let mut server = InputBuffer::<u8>::new(InputBufferConfig::default());
//! for tick in 10..13 {
//!     client.push(tick, tick as u8);
//!     let message = client.message(now).unwrap();
//!     if tick == 11 {
//!         continue; // this datagram is lost
//!     }
//!     // On the wire: a Rabbit message like any other.
//!     let bytes = hopnet_codec::to_bytes(&message).unwrap();
//!     let message: InputMessage<u8> = hopnet_codec::from_bytes(&bytes).unwrap();
//!     server.receive(now, &message);
//! }
//! // Tick 11's input came again with tick 12's.
//! assert_eq!(server.take(10), Some(10));
//! assert_eq!(server.take(11), Some(11));
//! assert_eq!(server.take(12), Some(12));
//! assert_eq!(server.stats().missing, 0);
//! ```

mod buffer;
mod message;
mod sender;

pub use buffer::{InputBuffer, InputBufferConfig, InputStats};
pub use message::{INPUT_DELIVERY, InputAck, InputMessage, MAX_INPUTS_PER_MESSAGE};
pub use sender::{Acked, InputSender, SenderStats};
